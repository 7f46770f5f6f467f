/* planar-flows-index-private.h: the flow index's layout, shared by the
 * file that builds it (planar-flows-build.c) and the one that stores and
 * queries it (planar-flows.c); nothing else includes it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace-private.h"

#include "planar-flows-private.h"

G_BEGIN_DECLS

#define FLOW_ID_MASK ((G_GUINT64_CONSTANT (1) << 56) - 1)

/* Leaves of the time index's tree: runs of this many flows. */
#define TIME_BLOCK 16

/* A flow as stored: @key is category << 56 | id; its times are its
 * events' starts (flow_times()). */
typedef struct
{
  guint64        key;
  PlanarEventRef from;
  PlanarEventRef to;
} Flow;

G_STATIC_ASSERT (sizeof (Flow) == 32);

static inline guint
flow_category (const Flow *f)
{
  return (guint) (f->key >> 56);
}

/* Flows sorted by the start of their time span, with a max tree over
 * blocks of TIME_BLOCK of them: node k covers nodes 2k and 2k + 1, the
 * leaves (from @size on) hold each block's latest span end. */
typedef struct
{
  /* Indices into the index's flows; NULL when they are all of them, in
   * order (the flows array itself is sorted by span start). */
  guint32 *order;
  gsize    n;
  gint64  *max_hi;
  gsize    size;
} TimeIndex;

struct _PlanarFlowIndex
{
  /* Sorted by the start of their time span (the earlier of their ends'
   * starts, flow_times()). */
  Flow              *flows;
  gsize              n_flows;
  /* The trace's planes, where the flows' times are read. */
  const PlanarPlane *planes;
  guint32           *by_from;
  gsize              n_by_from;
  guint32           *by_to;
  gsize              n_by_to;
  gsize              n_complete[PLANAR_FLOW_N_CATEGORIES];
  gsize              n_dangling[PLANAR_FLOW_N_CATEGORIES];
  gsize              n_complete_all;
  gsize              n_dangling_all;
  TimeIndex          all;
  /* NULL for a category without flows; &all for one that has them all. */
  TimeIndex         *by_category[PLANAR_FLOW_N_CATEGORIES];
  /* An event whose start was @anchor_ps when the tree was built. */
  const PlanarEvent *anchor;
  gint64             anchor_ps;
};

static const PlanarEventRef no_event = { PLANAR_EVENT_REF_NONE, 0, 0, 0 };

static inline guint64
mix64 (guint64 x)
{
  /* SplitMix64's finalizer: every input bit affects every output bit. */
  x ^= x >> 30;
  x *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= G_GUINT64_CONSTANT (0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

/* Maps a signed time onto an unsigned key of the same order. */
static inline guint64
time_key (gint64 t)
{
  return (guint64) t ^ (G_GUINT64_CONSTANT (1) << 63);
}

/* As planar_event_ref_compare() without the host: a trace's flows name
 * its own events, and a caller's ref may carry the host's index. */
static inline int
compare_refs (const PlanarEventRef *a,
              const PlanarEventRef *b)
{
  PlanarEventRef same_host = *a;

  same_host.trace = b->trace;
  return planar_event_ref_compare (&same_host, b);
}


/* The starts of flow @i's ends as the trace has them now; a missing end
 * has the other's. */
static inline void
flow_times (const PlanarFlowIndex *self,
            gsize                  i,
            gint64                *from_ps,
            gint64                *to_ps)
{
  const Flow *f = &self->flows[i];
  const PlanarEventRef *from = &f->from, *to = &f->to;

  if (planar_event_ref_is_none (from))
    from = to;
  else if (planar_event_ref_is_none (to))
    to = from;
  *from_ps = self->planes[from->plane].tracks[from->track].events[from->index].start_ps;
  *to_ps = from == to ? *from_ps : self->planes[to->plane].tracks[to->track].events[to->index].start_ps;
}

static inline gint64
span_lo (const PlanarFlowIndex *self,
         gsize                  i)
{
  gint64 from_ps, to_ps;

  flow_times (self, i, &from_ps, &to_ps);
  return MIN (from_ps, to_ps);
}

static inline gint64
span_hi (const PlanarFlowIndex *self,
         gsize                  i)
{
  gint64 from_ps, to_ps;

  flow_times (self, i, &from_ps, &to_ps);
  return MAX (from_ps, to_ps);
}

/* Sets @order to the flows' indices sorted by the start of their time
 * span, stably; @tmp holds as many (planar-flows-order.c). */
void _planar_flow_index_sort_by_span_start (const PlanarFlowIndex *self,
                                            guint32               *order,
                                            guint32               *tmp);
/* Counts, the anchor and the time indices of an index whose flows and
 * end orders are in place (planar-flows.c). */
void _planar_flow_index_finish (PlanarFlowIndex *self,
                                PlanarTrace     *trace);

G_END_DECLS
