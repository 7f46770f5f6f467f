/* planar-flows.c: the flow index of a trace.
 *
 * planar-derive.c hands over every flow end it finds. Two kinds:
 *
 *  - Launches: a host event and the device events sharing its correlation
 *    id. They are most of the flows (one per kernel or copy), so they are
 *    matched through a table indexed by correlation id (CUPTI numbers its
 *    calls 1, 2, 3...), in a linear pass without sorting.
 *  - Every other end (an XFlow stat, a producer or consumer id, and
 *    launches whose ids are too sparse or repeated for the table): ends with
 *    the same (category, id) are grouped by sorting and paired in time
 *    order. Each end that flows in takes the latest end that flows out at or
 *    before it (so a chain out -> in/out -> in becomes two arrows and a
 *    launch that starts several kernels one arrow per kernel), or, when all
 *    of them are later (clocks of host and device disagree a little), the
 *    earliest one.
 *
 * An end that flows out and feeds nothing, or flows in from nothing, makes a
 * dangling flow.
 *
 * Queries by event use two arrays of flow indices in the order of the from
 * and of the to event; the ends arrive in that order, so they are built
 * without sorting. Queries by time use, per category and for all, the flows
 * sorted by the start of their time span, with a tree of the spans' ends
 * over blocks of flows, so that a window query visits only subtrees holding
 * a flow that reaches the window.
 *
 * A flow is 32 bytes: its id with the category in the top byte, and its
 * two ends. Its times are its events' starts, read from the trace's
 * tracks when a query needs them, not stored (they were 16 more bytes a
 * flow, 53 MiB of a 10^7-event profile's memory). The tree's latest span
 * ends are stored as they were when the index was built; the trace may
 * move every event by the same amount later (planar_trace_shift_time()),
 * so queries read how far one event (the anchor) has moved and apply that
 * to them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-private.h"

#include <glib/gi18n-lib.h>

#include "planar-derived-results-private.h"
#include "planar-flows-index-private.h"

#include <stdlib.h>
#include <string.h>

static const char * const category_names[PLANAR_FLOW_N_KNOWN_CATEGORIES] = {
  "", "", "tf_exec", "tfrt_exec", "batch_sched", "PjRt", "as_batch_sched", "tfrt_rt",
  "tpu_embed", "gpu_launch", "batcher", "tpu_stream", "tpu_launch", "pathways_exec",
  "pjrt_library_call", "threadpool_event", "jax_serving", "sparsecore_offload",
};


const char *
planar_flow_category_get_name (guint category)
{
  return category < G_N_ELEMENTS (category_names) ? category_names[category] : "";
}

guint64
_planar_flow_make_id (guint64 host_id,
                      guint64 a,
                      guint64 b)
{
  return mix64 (mix64 (mix64 (host_id) ^ a) ^ b) & FLOW_ID_MASK;
}

/* ------------------------------------------------------------------------ */
/* Indices */

static void
time_index_build (TimeIndex             *ti,
                  const PlanarFlowIndex *self,
                  guint32               *order,
                  gsize                  n)
{
  gsize n_blocks = (n + TIME_BLOCK - 1) / TIME_BLOCK;

  ti->order = order;
  ti->n = n;
  for (ti->size = 1; ti->size < n_blocks; ti->size *= 2)
    ;
  ti->max_hi = g_new (gint64, 2 * ti->size);
  for (gsize b = 0; b < ti->size; b++)
    {
      gint64 m = G_MININT64;

      for (gsize i = b * TIME_BLOCK; i < MIN ((b + 1) * TIME_BLOCK, n); i++)
        m = MAX (m, span_hi (self, order != NULL ? order[i] : i));
      ti->max_hi[ti->size + b] = m;
    }
  for (gsize k = ti->size; k-- > 1;)
    ti->max_hi[k] = MAX (ti->max_hi[2 * k], ti->max_hi[2 * k + 1]);
}

static void
time_index_clear (TimeIndex *ti)
{
  g_free (ti->order);
  g_free (ti->max_hi);
}

/* Counts, the anchor and the time indices of an index whose flows,
 * times and end orders are in place. */
void
_planar_flow_index_finish (PlanarFlowIndex *self,
                           PlanarTrace     *trace)
{
  gsize n_by_category[PLANAR_FLOW_N_CATEGORIES] = { 0 };

  for (gsize i = 0; i < self->n_flows; i++)
    {
      const Flow *f = &self->flows[i];

      if (!planar_event_ref_is_none (&f->from) && !planar_event_ref_is_none (&f->to))
        {
          self->n_complete[flow_category (f)]++;
          self->n_complete_all++;
        }
      else
        {
          self->n_dangling[flow_category (f)]++;
          self->n_dangling_all++;
        }
      n_by_category[flow_category (f)]++;
    }

  if (self->n_flows > 0)
    {
      const Flow *f = &self->flows[0];
      const PlanarEventRef *ref = !planar_event_ref_is_none (&f->from) ? &f->from : &f->to;
      const PlanarPlane *plane = &trace->planes[ref->plane];

      self->anchor = &plane->tracks[ref->track].events[ref->index];
      self->anchor_ps = self->anchor->start_ps;
    }
  time_index_build (&self->all, self, NULL, self->n_flows);
  for (guint c = 0; c < PLANAR_FLOW_N_CATEGORIES; c++)
    {
      guint32 *order;
      gsize n = 0;

      if (n_by_category[c] == 0)
        continue;
      if (n_by_category[c] == self->n_flows)
        {
          self->by_category[c] = &self->all;
          continue;
        }
      order = g_new (guint32, n_by_category[c]);
      for (gsize i = 0; i < self->n_flows; i++)
        if (flow_category (&self->flows[i]) == c)
          order[n++] = (guint32) i;
      self->by_category[c] = g_new0 (TimeIndex, 1);
      time_index_build (self->by_category[c], self, order, n);
    }
}

/* ------------------------------------------------------------------------ */
/* The cached index (planar-cache.c) */

/* n_flows, n_by_from, n_by_to, then the arrays as they are in memory (the
 * flows, 32 bytes each, and the two orders by end). */
void
_planar_flow_index_serialize (const PlanarFlowIndex *self,
                              PlanarByteSink         sink,
                              gpointer               data)
{
  guint64 counts[3] = { self->n_flows, self->n_by_from, self->n_by_to };

  sink (data, counts, sizeof counts);
  sink (data, self->flows, self->n_flows * sizeof (Flow));
  sink (data, self->by_from, self->n_by_from * sizeof (guint32));
  sink (data, self->by_to, self->n_by_to * sizeof (guint32));
}

/* An end on a file event (or none): the derive passes take flows from the
 * file's lines only, and a restore checks the flows while the derived
 * tracks are still being filled. */
static gboolean
ref_valid (PlanarTrace          *trace,
           const PlanarEventRef *ref)
{
  if (planar_event_ref_is_none (ref))
    return TRUE;
  return ref->plane < trace->n_planes && ref->track < trace->planes_priv[ref->plane].n_file_tracks
         && ref->index < trace->planes[ref->plane].tracks[ref->track].n_events;
}

/* The next @n items of @size bytes, in a block of their own (never an
 * empty one); FALSE when @source has run short. */
static gboolean
take (PlanarByteSource   source,
      gpointer           source_data,
      gsize              n,
      gsize              size,
      PlanarSpillMode    spill,
      gpointer          *block)
{
  *block = planar_spill_alloc (MAX (n * size, 1), spill);
  return source (source_data, *block, n * size);
}

PlanarFlowIndex *
_planar_flow_index_deserialize (PlanarTrace      *trace,
                                gsize             len,
                                PlanarByteSource  source,
                                gpointer          source_data,
                                GError          **error)
{
  PlanarFlowIndex *self;
  guint64 counts[3];
  gsize need;

  if (len < sizeof counts || !source (source_data, counts, sizeof counts))
    goto bad;
  if (counts[0] > G_MAXUINT32 || counts[1] > counts[0] || counts[2] > counts[0])
    goto bad;
  need = sizeof counts + counts[0] * sizeof (Flow) + (counts[1] + counts[2]) * sizeof (guint32);
  if (len != need)
    goto bad;
  self = g_new0 (PlanarFlowIndex, 1);
  self->n_flows = counts[0];
  self->n_by_from = counts[1];
  self->n_by_to = counts[2];
  self->planes = trace->planes;
  if (!take (source, source_data, self->n_flows, sizeof (Flow), trace->spill, (gpointer *) &self->flows)
      || !take (source, source_data, self->n_by_from, sizeof (guint32), trace->spill, (gpointer *) &self->by_from)
      || !take (source, source_data, self->n_by_to, sizeof (guint32), trace->spill, (gpointer *) &self->by_to))
    goto bad_index;

  /* Every reference in the trace, every order entry a flow, and the
   * flows sorted as the time index needs them. */
  for (gsize i = 0; i < self->n_flows; i++)
    {
      const Flow *f = &self->flows[i];

      if (flow_category (f) >= PLANAR_FLOW_N_CATEGORIES || !ref_valid (trace, &f->from) || !ref_valid (trace, &f->to)
          || (planar_event_ref_is_none (&f->from) && planar_event_ref_is_none (&f->to))
          || (i > 0 && time_key (span_lo (self, i - 1)) > time_key (span_lo (self, i))))
        goto bad_index;
    }
  for (gsize i = 0; i < self->n_by_from; i++)
    if (self->by_from[i] >= self->n_flows)
      goto bad_index;
  for (gsize i = 0; i < self->n_by_to; i++)
    if (self->by_to[i] >= self->n_flows)
      goto bad_index;
  _planar_flow_index_finish (self, trace);
  return self;

bad_index:
  _planar_flow_index_free (self);
bad:
  g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("inconsistent flow index"));
  return NULL;
}

void
_planar_flow_index_free (PlanarFlowIndex *self)
{
  if (self == NULL)
    return;
  planar_spill_free (self->flows);
  planar_spill_free (self->by_from);
  planar_spill_free (self->by_to);
  for (guint c = 0; c < PLANAR_FLOW_N_CATEGORIES; c++)
    if (self->by_category[c] != NULL && self->by_category[c] != &self->all)
      {
        time_index_clear (self->by_category[c]);
        g_free (self->by_category[c]);
      }
  time_index_clear (&self->all);
  g_free (self);
}

/* ------------------------------------------------------------------------ */
/* Queries */

const PlanarFlowIndex *
planar_trace_get_flows (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return _planar_derived_results_get_flows (_planar_derived_results_get (self));
}

/* How far the trace's events moved since the tree was built. */
static inline gint64
time_shift (const PlanarFlowIndex *self)
{
  return self->anchor != NULL ? self->anchor->start_ps - self->anchor_ps : 0;
}

static inline void
copy_flow (const PlanarFlowIndex *self,
           gsize                  i,
           PlanarFlow            *out)
{
  const Flow *f = &self->flows[i];

  out->id = f->key & FLOW_ID_MASK;
  out->from = f->from;
  out->to = f->to;
  out->category = flow_category (f);
  flow_times (self, i, &out->from_ps, &out->to_ps);
}

static inline void
append_flow (const PlanarFlowIndex *self,
             gsize                  i,
             GArray                *out)
{
  PlanarFlow flow;

  copy_flow (self, i, &flow);
  g_array_append_val (out, flow);
}

gsize
planar_flow_index_get_n_flows (const PlanarFlowIndex *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_flows;
}

gsize
planar_flow_index_get_n_complete (const PlanarFlowIndex *self,
                                  guint                  category)
{
  g_return_val_if_fail (self != NULL, 0);
  if (category == PLANAR_FLOW_CATEGORY_ALL)
    return self->n_complete_all;
  return category < PLANAR_FLOW_N_CATEGORIES ? self->n_complete[category] : 0;
}

gsize
planar_flow_index_get_n_dangling (const PlanarFlowIndex *self,
                                  guint                  category)
{
  g_return_val_if_fail (self != NULL, 0);
  if (category == PLANAR_FLOW_CATEGORY_ALL)
    return self->n_dangling_all;
  return category < PLANAR_FLOW_N_CATEGORIES ? self->n_dangling[category] : 0;
}

void
planar_flow_index_get_flow (const PlanarFlowIndex *self,
                            gsize                  i,
                            PlanarFlow            *flow)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (i < self->n_flows);
  g_return_if_fail (flow != NULL);

  copy_flow (self, i, flow);
}

/* The first position in @order (sorted by the from or to end) whose end
 * is not before @event. */
static gsize
lower_bound_ref (const PlanarFlowIndex *self,
                 const guint32         *order,
                 gsize                  n,
                 gboolean               from,
                 const PlanarEventRef  *event)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      const Flow *f = &self->flows[order[mid]];

      if (compare_refs (from ? &f->from : &f->to, event) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gsize
planar_flow_index_query_event (const PlanarFlowIndex *self,
                               const PlanarEventRef  *event,
                               GArray                *out)
{
  guint before;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (event != NULL, 0);
  g_return_val_if_fail (out != NULL && g_array_get_element_size (out) == sizeof (PlanarFlow), 0);

  before = out->len;
  for (gsize k = lower_bound_ref (self, self->by_from, self->n_by_from, TRUE, event);
       k < self->n_by_from && compare_refs (&self->flows[self->by_from[k]].from, event) == 0; k++)
    append_flow (self, self->by_from[k], out);
  for (gsize k = lower_bound_ref (self, self->by_to, self->n_by_to, FALSE, event);
       k < self->n_by_to && compare_refs (&self->flows[self->by_to[k]].to, event) == 0; k++)
    append_flow (self, self->by_to[k], out);
  return out->len - before;
}

gsize
planar_flow_index_query_range (const PlanarFlowIndex *self,
                               guint                  category,
                               gint64                 t0_ps,
                               gint64                 t1_ps,
                               GArray                *out)
{
  const TimeIndex *ti;
  gint64 shift, t0;
  gsize stack[2 * 64], sp = 0, k, lo = 0, hi;
  guint before;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (out != NULL && g_array_get_element_size (out) == sizeof (PlanarFlow), 0);

  before = out->len;
  if (category == PLANAR_FLOW_CATEGORY_ALL)
    ti = &self->all;
  else if (category < PLANAR_FLOW_N_CATEGORIES && self->by_category[category] != NULL)
    ti = self->by_category[category];
  else
    return 0;
  if (ti->n == 0 || t1_ps < t0_ps)
    return 0;

  /* The tree's ends are the times it was built with. */
  shift = time_shift (self);
  if (__builtin_sub_overflow (t0_ps, shift, &t0))
    t0 = shift > 0 ? G_MININT64 : G_MAXINT64;

  /* Candidates start at or before the window's end: a prefix. */
  hi = ti->n;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (span_lo (self, ti->order != NULL ? ti->order[mid] : mid) <= t1_ps)
        lo = mid + 1;
      else
        hi = mid;
    }
  k = lo;

  /* Of those, the ones that end at or after the window's start: walk the
   * tree left to right, only into subtrees whose latest end reaches t0. */
  stack[sp++] = 1;
  while (sp > 0)
    {
      gsize node = stack[--sp];
      guint depth = 63 - (guint) __builtin_clzll ((unsigned long long) node);
      /* The first flow below @node: nodes of one depth split the blocks
       * evenly. */
      gsize first = (node - ((gsize) 1 << depth)) * (ti->size >> depth) * TIME_BLOCK;

      if (first >= k || ti->max_hi[node] < t0)
        continue;
      if (node >= ti->size)
        {
          for (gsize i = first; i < MIN (first + TIME_BLOCK, k); i++)
            {
              gsize f = ti->order != NULL ? ti->order[i] : i;

              if (span_hi (self, f) >= t0_ps)
                append_flow (self, f, out);
            }
          continue;
        }
      /* Right child first on the stack, so the left one comes out first. */
      stack[sp++] = 2 * node + 1;
      stack[sp++] = 2 * node;
    }
  return out->len - before;
}
