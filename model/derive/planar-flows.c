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
 * Times are stored as they were when the index was built; the trace may
 * move every event by the same amount later (planar_trace_shift_time()),
 * so queries read how far one event (the anchor) has moved and apply that.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-private.h"

#include <glib/gi18n-lib.h>

#include "planar-derived-results-private.h"
#include "planar-flows-private.h"

#include <stdlib.h>
#include <string.h>

#define FLOW_ID_MASK ((G_GUINT64_CONSTANT (1) << 56) - 1)

/* Leaves of the time index's tree: runs of this many flows. */
#define TIME_BLOCK 16

/* One end; @key is category << 56 | id. */
typedef struct
{
  guint64        key;
  gint64         start_ps;
  PlanarEventRef ref;
  guint32        direction;
} FlowEnd;

G_STATIC_ASSERT (sizeof (FlowEnd) == 32);

/* One end of a launch flow. Its time is its event's start, read from the
 * trace when it is paired: a launch end is most of a profile's flow ends
 * (one per kernel and one per launch call), and 8 bytes fewer each is
 * 56 MB fewer at the pairing of a 10^7-event profile. */
typedef struct
{
  guint64        correlation_id;
  PlanarEventRef ref;
  guint32        is_host;
} LaunchEnd;

G_STATIC_ASSERT (sizeof (LaunchEnd) == 24);

struct _PlanarFlowBuilder
{
  PlanarSpillArray *ends;
  PlanarSpillArray *launches;
};

/* A flow as stored; its times are in the index's from_ps and to_ps. */
typedef struct
{
  guint64        id;
  PlanarEventRef from;
  PlanarEventRef to;
  guint32        category;
} Flow;

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
  Flow              *flows;
  /* The starts of each flow's ends when the index was built (a missing
   * end has the other's); flows are sorted by the smaller. */
  gint64            *from_ps;
  gint64            *to_ps;
  gsize              n_flows;
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
  /* An event whose start was @anchor_ps when the index was built. */
  const PlanarEvent *anchor;
  gint64             anchor_ps;
};

static const char * const category_names[PLANAR_FLOW_N_KNOWN_CATEGORIES] = {
  "", "", "tf_exec", "tfrt_exec", "batch_sched", "PjRt", "as_batch_sched", "tfrt_rt",
  "tpu_embed", "gpu_launch", "batcher", "tpu_stream", "tpu_launch", "pathways_exec",
  "pjrt_library_call", "threadpool_event", "jax_serving", "sparsecore_offload",
};

static const PlanarEventRef no_event = { PLANAR_EVENT_REF_NONE, 0, 0, 0 };

const char *
planar_flow_category_get_name (guint category)
{
  return category < G_N_ELEMENTS (category_names) ? category_names[category] : "";
}

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

guint64
_planar_flow_make_id (guint64 host_id,
                      guint64 a,
                      guint64 b)
{
  return mix64 (mix64 (mix64 (host_id) ^ a) ^ b) & FLOW_ID_MASK;
}

/* ------------------------------------------------------------------------ */
/* The builder */

PlanarFlowBuilder *
_planar_flow_builder_new (gboolean spill)
{
  PlanarFlowBuilder *self = g_new0 (PlanarFlowBuilder, 1);

  self->ends = planar_spill_array_new (sizeof (FlowEnd), spill);
  self->launches = planar_spill_array_new (sizeof (LaunchEnd), spill);
  return self;
}

void
_planar_flow_builder_free (PlanarFlowBuilder *self)
{
  if (self == NULL)
    return;
  planar_spill_array_free (self->ends);
  planar_spill_array_free (self->launches);
  g_free (self);
}

void
_planar_flow_builder_add (PlanarFlowBuilder    *self,
                          guint                 category,
                          guint64               id,
                          PlanarFlowDirection   direction,
                          const PlanarEventRef *event,
                          gint64                start_ps)
{
  FlowEnd end;

  g_return_if_fail (category < PLANAR_FLOW_N_CATEGORIES);
  g_return_if_fail (direction >= PLANAR_FLOW_DIRECTION_IN &&
                    direction <= PLANAR_FLOW_DIRECTION_INOUT);

  end.key = (guint64) category << 56 | (id & FLOW_ID_MASK);
  end.start_ps = start_ps;
  end.ref = *event;
  end.direction = direction;
  planar_spill_array_append (self->ends, &end, 1);
}

void
_planar_flow_builder_add_launch (PlanarFlowBuilder    *self,
                                 guint64               correlation_id,
                                 gboolean              is_host,
                                 const PlanarEventRef *event)
{
  LaunchEnd end;

  end.correlation_id = correlation_id;
  end.ref = *event;
  end.is_host = is_host != FALSE;
  planar_spill_array_append (self->launches, &end, 1);
}

void
_planar_flow_builder_take (PlanarFlowBuilder *self,
                           PlanarFlowBuilder *other)
{
  planar_spill_array_append (self->ends, other->ends->data, other->ends->len);
  planar_spill_array_append (self->launches, other->launches->data, other->launches->len);
  _planar_flow_builder_free (other);
}

/* ------------------------------------------------------------------------ */
/* Sorting millions of items: a stable radix sort of (key, value) pairs by
 * 11-bit digits, skipping the digits every key shares. glibc's qsort()
 * moves whole elements through a generic merge sort and compares through a
 * function pointer; this is a few linear passes. */
/* The sorts' scratch and the other arrays that live only while the flow
 * index is built (the sort items, the new positions, the launch chains)
 * are on the heap even when the index is in files (planar-spill.c), unless
 * the system is short of memory (PLANAR_SPILL_WHEN_SHORT): they are
 * written in scattered order, which in a file-backed mapping faults and
 * dirties its pages at random and gives the kernel writeback to do for
 * memory freed moments later. Only the arrays the index keeps go to
 * files, written in order. */

typedef struct
{
  guint64 key;
  guint64 value;
} SortItem;

static void
radix_sort (SortItem *items,
            gsize     n)
{
  SortItem *tmp;
  g_autofree gsize *count = NULL;
  SortItem *src = items, *dst;
  guint64 min = G_MAXUINT64, max = 0;

  if (n < 2)
    return;
  for (gsize i = 0; i < n; i++)
    {
      min = MIN (min, items[i].key);
      max = MAX (max, items[i].key);
    }
  tmp = planar_spill_alloc (n * sizeof (SortItem), PLANAR_SPILL_WHEN_SHORT);
  count = g_new (gsize, 2048);
  dst = tmp;
  /* Keys relative to the smallest need only the digits of max - min. */
  for (guint shift = 0; shift < 64 && ((max - min) >> shift) != 0; shift += 11)
    {
      gsize at = 0;

      memset (count, 0, 2048 * sizeof (gsize));
      for (gsize i = 0; i < n; i++)
        count[((src[i].key - min) >> shift) & 2047]++;
      for (guint b = 0; b < 2048; b++)
        {
          gsize c = count[b];

          count[b] = at;
          at += c;
        }
      for (gsize i = 0; i < n; i++)
        dst[count[((src[i].key - min) >> shift) & 2047]++] = src[i];
      {
        SortItem *swap = src;

        src = dst;
        dst = swap;
      }
    }
  if (src != items)
    memcpy (items, src, n * sizeof (SortItem));
  planar_spill_free (tmp);
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
  if (a->plane != b->plane)
    return a->plane < b->plane ? -1 : 1;
  if (a->track != b->track)
    return a->track < b->track ? -1 : 1;
  if (a->index != b->index)
    return a->index < b->index ? -1 : 1;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Pairing */

#define NO_FLOW G_MAXUINT32

typedef struct
{
  PlanarSpillArray flows;
  PlanarSpillArray from_ps;
  PlanarSpillArray to_ps;
  /* Per flow: the next flow of the same from end (for by_from), or
   * NO_FLOW. */
  PlanarSpillArray next_from;
} Paired;

static gsize
add_flow (Paired               *paired,
          guint64               id,
          guint                 category,
          const PlanarEventRef *from,
          gint64                from_ps,
          const PlanarEventRef *to,
          gint64                to_ps)
{
  guint32 none = NO_FLOW;
  Flow f;

  memset (&f, 0, sizeof f);
  f.id = id;
  f.category = category;
  f.from = from != NULL ? *from : no_event;
  f.to = to != NULL ? *to : no_event;
  if (from == NULL)
    from_ps = to_ps;
  if (to == NULL)
    to_ps = from_ps;
  planar_spill_array_append (&paired->flows, &f, 1);
  planar_spill_array_append (&paired->from_ps, &from_ps, 1);
  planar_spill_array_append (&paired->to_ps, &to_ps, 1);
  planar_spill_array_append (&paired->next_from, &none, 1);
  return paired->flows.len - 1;
}

static int
compare_ends (const void *pa,
              const void *pb)
{
  const FlowEnd *a = pa, *b = pb;

  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  if (a->start_ps != b->start_ps)
    return a->start_ps < b->start_ps ? -1 : 1;
  return compare_refs (&a->ref, &b->ref);
}

static inline guint
end_bucket (const FlowEnd *end)
{
  return (guint) (mix64 (end->key) >> 48);
}

/* Sorts @ends by compare_ends(). Keys are hashes, so ordering the ends by
 * a 16-bit hash of the key (two stable byte passes) leaves runs of a few
 * ends that sort in cache. Every end of one key lands in one run, which is
 * all the pairing needs. */
static void
sort_ends (FlowEnd  *ends,
           gsize     n)
{
  FlowEnd *tmp;

  if (n < 2)
    return;
  tmp = planar_spill_alloc (n * sizeof (FlowEnd), PLANAR_SPILL_WHEN_SHORT);
  for (guint shift = 0; shift < 16; shift += 8)
    {
      const FlowEnd *src = shift == 0 ? ends : tmp;
      FlowEnd *dst = shift == 0 ? tmp : ends;
      gsize count[256] = { 0 }, at = 0;

      for (gsize i = 0; i < n; i++)
        count[(end_bucket (&src[i]) >> shift) & 0xff]++;
      for (guint b = 0; b < 256; b++)
        {
          gsize c = count[b];

          count[b] = at;
          at += c;
        }
      for (gsize i = 0; i < n; i++)
        dst[count[(end_bucket (&src[i]) >> shift) & 0xff]++] = src[i];
    }
  planar_spill_free (tmp);

  for (gsize begin = 0, end; begin < n; begin = end)
    {
      guint bucket = end_bucket (&ends[begin]);

      for (end = begin + 1; end < n && end_bucket (&ends[end]) == bucket; end++)
        ;
      if (end - begin > 1)
        qsort (ends + begin, end - begin, sizeof (FlowEnd), compare_ends);
    }
}

/* Pairs the ends [@begin, @end) of one key, sorted by time. */
static void
pair_group (const FlowEnd *ends,
            gsize          begin,
            gsize          end,
            guint8        *used,
            Paired        *paired)
{
  guint64 id = ends[begin].key & FLOW_ID_MASK;
  guint category = (guint) (ends[begin].key >> 56);
  gssize first_out = -1, second_out = -1, last_out = -1;

  for (gsize i = begin; i < end; i++)
    if (ends[i].direction & PLANAR_FLOW_DIRECTION_OUT)
      {
        if (first_out < 0)
          first_out = (gssize) i;
        else if (second_out < 0)
          second_out = (gssize) i;
      }

  for (gsize i = begin; i < end; i++)
    {
      if (ends[i].direction & PLANAR_FLOW_DIRECTION_IN)
        {
          gssize from = last_out;

          if (from < 0)
            from = first_out != (gssize) i ? first_out : second_out;
          if (from >= 0)
            {
              add_flow (paired, id, category, &ends[from].ref, ends[from].start_ps,
                        &ends[i].ref, ends[i].start_ps);
              used[from] = 1;
            }
          else
            add_flow (paired, id, category, NULL, 0, &ends[i].ref, ends[i].start_ps);
        }
      if (ends[i].direction & PLANAR_FLOW_DIRECTION_OUT)
        last_out = (gssize) i;
    }

  for (gsize i = begin; i < end; i++)
    if ((ends[i].direction & PLANAR_FLOW_DIRECTION_OUT) && !used[i])
      add_flow (paired, id, category, &ends[i].ref, ends[i].start_ps, NULL, 0);
}

static void
pair_generic (PlanarSpillArray *ends_array,
              Paired           *paired)
{
  FlowEnd *ends = (FlowEnd *) (gpointer) ends_array->data;
  gsize n = ends_array->len;
  g_autofree guint8 *used = g_new0 (guint8, MAX (n, 1));

  sort_ends (ends, n);
  for (gsize begin = 0, end; begin < n; begin = end)
    {
      for (end = begin + 1; end < n && ends[end].key == ends[begin].key; end++)
        ;
      pair_group (ends, begin, end, used, paired);
    }
}

/* Pairs the launch ends: each device end with the host end of its
 * correlation id. Ends whose id the table cannot serve (sparse ids, or one
 * id on several host events) go to @generic. Returns, per host end in the
 * launches' order, its first flow (NO_FLOW if none; the others follow
 * through paired->next_from). */
/* The start of the (file) event @ref names: a launch end's time. */
static inline gint64
launch_start (PlanarTrace          *trace,
              const PlanarEventRef *ref)
{
  return trace->planes[ref->plane].tracks[ref->track].events[ref->index].start_ps;
}

static guint32 *
pair_launches (PlanarSpillArray *launches_array,
               PlanarTrace      *trace,
               guint64           host_id,
               Paired           *paired,
               PlanarSpillArray *generic)
{
  const LaunchEnd *launches = (const LaunchEnd *) (gpointer) launches_array->data;
  gsize n = launches_array->len, n_host = 0;
  guint64 min = G_MAXUINT64, max = 0;
  g_autofree guint32 *slots = NULL;
  g_autofree guint32 *host_of = NULL;
  g_autofree guint32 *last_flow = NULL;
  guint32 *first_flow;
  guint64 range;

  for (gsize i = 0; i < n; i++)
    if (launches[i].is_host)
      {
        n_host++;
        min = MIN (min, launches[i].correlation_id);
        max = MAX (max, launches[i].correlation_id);
      }
  first_flow = g_new (guint32, MAX (n_host, 1));
  last_flow = g_new (guint32, MAX (n_host, 1));
  host_of = g_new (guint32, MAX (n_host, 1));
  for (gsize i = 0, k = 0; i < n; i++)
    if (launches[i].is_host)
      {
        first_flow[k] = last_flow[k] = NO_FLOW;
        host_of[k++] = (guint32) i;
      }

  /* A direct table (slot = host ordinal + 1, 0 when empty, G_MAXUINT32 for
   * an id on several host ends) when it costs at most a few words per
   * launch. */
  range = n_host > 0 ? max - min : 0;
  if (n_host > 0 && n_host < G_MAXUINT32 - 1 && range < (guint64) n_host * 4 + 1024)
    {
      slots = g_new0 (guint32, range + 1);
      for (gsize k = 0; k < n_host; k++)
        {
          guint32 *slot = &slots[launches[host_of[k]].correlation_id - min];

          *slot = *slot == 0 ? (guint32) (k + 1) : G_MAXUINT32;
        }
    }

  for (gsize i = 0; i < n; i++)
    {
      const LaunchEnd *end = &launches[i];
      guint64 id = _planar_flow_make_id (host_id, end->correlation_id,
                                         PLANAR_FLOW_CATEGORY_GPU_LAUNCH);
      guint32 slot = G_MAXUINT32;

      if (slots != NULL)
        slot = end->correlation_id >= min && end->correlation_id <= max
          ? slots[end->correlation_id - min] : 0;
      if (slot == G_MAXUINT32)
        {
          FlowEnd fe;

          fe.key = (guint64) PLANAR_FLOW_CATEGORY_GPU_LAUNCH << 56 | id;
          fe.start_ps = launch_start (trace, &end->ref);
          fe.ref = end->ref;
          fe.direction = end->is_host ? PLANAR_FLOW_DIRECTION_OUT : PLANAR_FLOW_DIRECTION_IN;
          planar_spill_array_append (generic, &fe, 1);
          continue;
        }
      if (end->is_host)
        continue;
      if (slot == 0)
        add_flow (paired, id, PLANAR_FLOW_CATEGORY_GPU_LAUNCH, NULL, 0, &end->ref,
                  launch_start (trace, &end->ref));
      else
        {
          gsize k = slot - 1;
          const LaunchEnd *host = &launches[host_of[k]];
          guint32 f = (guint32) add_flow (paired, id, PLANAR_FLOW_CATEGORY_GPU_LAUNCH, &host->ref,
                                          launch_start (trace, &host->ref), &end->ref,
                                          launch_start (trace, &end->ref));

          /* Chained per host end, for the by_from order. */
          if (last_flow[k] == NO_FLOW)
            first_flow[k] = f;
          else
            planar_spill_array_index (&paired->next_from, guint32, last_flow[k]) = f;
          last_flow[k] = f;
        }
    }

  /* Host ends that fed nothing. */
  for (gsize k = 0; k < n_host; k++)
    {
      const LaunchEnd *host = &launches[host_of[k]];

      guint64 id = _planar_flow_make_id (host_id, host->correlation_id,
                                         PLANAR_FLOW_CATEGORY_GPU_LAUNCH);

      if (first_flow[k] == NO_FLOW && slots != NULL &&
          slots[host->correlation_id - min] != G_MAXUINT32)
        first_flow[k] = (guint32) add_flow (paired, id, PLANAR_FLOW_CATEGORY_GPU_LAUNCH,
                                            &host->ref, launch_start (trace, &host->ref), NULL, 0);
    }
  return first_flow;
}

/* ------------------------------------------------------------------------ */
/* Indices */

static inline gint64
span_lo (const PlanarFlowIndex *self,
         gsize                  i)
{
  return MIN (self->from_ps[i], self->to_ps[i]);
}

static inline gint64
span_hi (const PlanarFlowIndex *self,
         gsize                  i)
{
  return MAX (self->from_ps[i], self->to_ps[i]);
}

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

/* Returns the elements of @array (@n of @size bytes) in the order @order
 * gives (element i is element order[i].value of @array), freeing @array.
 * For an array in a file (planar-spill.c): there, writes in the order of
 * a permutation's cycles fault and dirty its pages at random (a 10^8-event
 * load spent minutes on them), where a copy writes one page after the
 * other, and a file-backed copy costs no anonymous memory. */
static gpointer
gather (gpointer        array,
        gsize           size,
        const SortItem *order,
        gsize           n,
        gboolean        spill)
{
  guint8 *out = planar_spill_alloc (MAX (n, 1) * size, spill);

  for (gsize i = 0; i < n; i++)
    memcpy (out + i * size, (const guint8 *) array + order[i].value * size, size);
  planar_spill_free (array);
  return out;
}

/* Puts the flows and their times in the order @order gives (flow i
 * becomes what flow order[i].value was), in place, following each cycle of the
 * permutation: copies of the three arrays would add 56 bytes a flow to the
 * load's peak memory. @order is left as the identity. */
static void
permute_flows (PlanarFlowIndex *self,
               SortItem        *order)
{
  for (gsize i = 0; i < self->n_flows; i++)
    {
      Flow flow;
      gint64 from_ps, to_ps;
      gsize j = i;

      if (order[i].value == i)
        continue;
      flow = self->flows[i];
      from_ps = self->from_ps[i];
      to_ps = self->to_ps[i];
      for (;;)
        {
          gsize k = (gsize) order[j].value;

          order[j].value = j;
          if (k == i)
            {
              self->flows[j] = flow;
              self->from_ps[j] = from_ps;
              self->to_ps[j] = to_ps;
              break;
            }
          self->flows[j] = self->flows[k];
          self->from_ps[j] = self->from_ps[k];
          self->to_ps[j] = self->to_ps[k];
          j = k;
        }
    }
}

/* The flows among [@first, @n) of @flows with a from (@from) or a to end,
 * sorted by it. */
static GArray *
sorted_by_end (const Flow *flows,
               gsize       first,
               gsize       n,
               gboolean    from)
{
  SortItem *items = planar_spill_alloc (MAX (n - first, 1) * sizeof (SortItem), PLANAR_SPILL_WHEN_SHORT);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint32));
  gsize m = 0;

  for (gsize i = first; i < n; i++)
    {
      const PlanarEventRef *ref = from ? &flows[i].from : &flows[i].to;

      if (planar_event_ref_is_none (ref))
        continue;
      items[m].value = i;
      items[m].key = ref->index;
      m++;
    }
  /* Least significant field first; the sort is stable. */
  radix_sort (items, m);
  for (gsize i = 0; i < m; i++)
    {
      const Flow *f = &flows[items[i].value];
      const PlanarEventRef *ref = from ? &f->from : &f->to;

      items[i].key = (guint64) ref->plane << 32 | ref->track;
    }
  radix_sort (items, m);
  for (gsize i = 0; i < m; i++)
    {
      guint32 v = (guint32) items[i].value;

      g_array_append_val (out, v);
    }
  planar_spill_free (items);
  return out;
}

/* Merges two arrays of flow indices, each sorted by the from (@from) or to
 * end, into @out. */
static void
merge_by_end (const Flow    *flows,
              const guint32 *a,
              gsize          n_a,
              const guint32 *b,
              gsize          n_b,
              gboolean       from,
              guint32       *out)
{
  gsize i = 0, j = 0, k = 0;

  while (i < n_a || j < n_b)
    {
      gboolean take_a = j == n_b;

      if (i < n_a && j < n_b)
        take_a = compare_refs (from ? &flows[a[i]].from : &flows[a[i]].to,
                               from ? &flows[b[j]].from : &flows[b[j]].to) <= 0;
      out[k++] = take_a ? a[i++] : b[j++];
    }
}

static gboolean
launches_in_ref_order (PlanarSpillArray *launches_array)
{
  const LaunchEnd *launches = (const LaunchEnd *) (gpointer) launches_array->data;

  for (gsize i = 1; i < launches_array->len; i++)
    if (compare_refs (&launches[i - 1].ref, &launches[i].ref) > 0)
      return FALSE;
  return TRUE;
}

static int
compare_launch_refs (const void *pa,
                     const void *pb)
{
  return compare_refs (&((const LaunchEnd *) pa)->ref, &((const LaunchEnd *) pb)->ref);
}

void
_planar_flow_builder_sort_launches (PlanarFlowBuilder *self)
{
  LaunchEnd *launches = (LaunchEnd *) (gpointer) self->launches->data;
  gsize n = self->launches->len;
  gboolean spill = self->launches->spill;
  SortItem *items;
  gboolean fits = TRUE;

  if (launches_in_ref_order (self->launches))
    return;
  for (gsize i = 0; i < n; i++)
    fits = fits && launches[i].ref.track <= G_MAXUINT16;
  /* Every real trace has fewer than 2^16 planes and tracks per plane, so
   * a reference fits one radix key. */
  if (!fits)
    {
      qsort (launches, n, sizeof (LaunchEnd), compare_launch_refs);
      return;
    }
  items = planar_spill_alloc (n * sizeof (SortItem), PLANAR_SPILL_WHEN_SHORT);
  for (gsize i = 0; i < n; i++)
    {
      const PlanarEventRef *ref = &launches[i].ref;

      items[i].key = (guint64) ref->plane << 48 | (guint64) ref->track << 32 | ref->index;
      items[i].value = i;
    }
  radix_sort (items, n);
  if (planar_spill_is_mapped (launches))
    {
      self->launches->data = gather (launches, sizeof (LaunchEnd), items, n, spill);
      self->launches->capacity = n;
      planar_spill_free (items);
      return;
    }
  /* On the heap, in place, as the flows are put in time order. */
  for (gsize i = 0; i < n; i++)
    {
      LaunchEnd first;
      gsize j = i;

      if (items[i].value == i)
        continue;
      first = launches[i];
      for (;;)
        {
          gsize k = (gsize) items[j].value;

          items[j].value = j;
          if (k == i)
            {
              launches[j] = first;
              break;
            }
          launches[j] = launches[k];
          j = k;
        }
    }
  planar_spill_free (items);
}

static void index_finish (PlanarFlowIndex *self,
                          PlanarTrace     *trace);

PlanarFlowIndex *
_planar_flow_builder_finish (PlanarFlowBuilder *builder,
                             PlanarTrace       *trace,
                             guint64            host_id)
{
  PlanarFlowIndex *self = g_new0 (PlanarFlowIndex, 1);
  g_autofree guint32 *first_flow_of_host = NULL;
  guint32 *new_index;
  g_autoptr(GArray) launch_by_from = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) launch_by_to = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) generic_by_from = NULL;
  g_autoptr(GArray) generic_by_to = NULL;
  const LaunchEnd *launches;
  guint32 *next_from;
  gsize n_launch_flows;
  guint reserve;
  SortItem *items;
  Paired paired;
  gboolean spill = trace->spill;

  /* Every end makes at most one flow. */
  reserve = MIN (builder->launches->len + builder->ends->len, G_MAXUINT);
  planar_spill_array_init (&paired.flows, sizeof (Flow), spill);
  planar_spill_array_init (&paired.from_ps, sizeof (gint64), spill);
  planar_spill_array_init (&paired.to_ps, sizeof (gint64), spill);
  planar_spill_array_init (&paired.next_from, sizeof (guint32), PLANAR_SPILL_WHEN_SHORT);
  planar_spill_array_reserve (&paired.flows, reserve);
  planar_spill_array_reserve (&paired.from_ps, reserve);
  planar_spill_array_reserve (&paired.to_ps, reserve);
  planar_spill_array_reserve (&paired.next_from, reserve);

  /* Launches first: their flows come out in the order of their device ends
   * (the launches' order), and chained per host end. */
  _planar_flow_builder_sort_launches (builder);
  first_flow_of_host = pair_launches (builder->launches, trace, host_id, &paired, builder->ends);
  n_launch_flows = paired.flows.len;
  launches = (const LaunchEnd *) (gpointer) builder->launches->data;
  next_from = (guint32 *) paired.next_from.data;
  for (gsize i = 0, k = 0; i < builder->launches->len; i++)
    if (launches[i].is_host)
      {
        for (guint32 f = first_flow_of_host[k++]; f != NO_FLOW; f = next_from[f])
          g_array_append_val (launch_by_from, f);
      }
  for (gsize f = 0; f < n_launch_flows; f++)
    if (!planar_event_ref_is_none (&planar_spill_array_index (&paired.flows, Flow, f).to))
      {
        guint32 v = (guint32) f;

        g_array_append_val (launch_by_to, v);
      }
  /* Done with before the other ends are sorted, which need memory too. */
  planar_spill_array_clear (builder->launches);
  g_clear_pointer (&first_flow_of_host, g_free);

  pair_generic (builder->ends, &paired);
  planar_spill_debug_memory ("the flows' pairing");
  _planar_flow_builder_free (builder);

  self->n_flows = paired.flows.len;
  /* Never NULL, as the cache reader's copies are not. */
  planar_spill_array_reserve (&paired.flows, 1);
  planar_spill_array_reserve (&paired.from_ps, 1);
  planar_spill_array_reserve (&paired.to_ps, 1);
  self->flows = paired.flows.data;
  self->from_ps = paired.from_ps.data;
  self->to_ps = paired.to_ps.data;
  planar_spill_array_clear (&paired.next_from);

  generic_by_from = sorted_by_end (self->flows, n_launch_flows, self->n_flows, TRUE);
  generic_by_to = sorted_by_end (self->flows, n_launch_flows, self->n_flows, FALSE);
  self->n_by_from = launch_by_from->len + generic_by_from->len;
  self->n_by_to = launch_by_to->len + generic_by_to->len;
  self->by_from = planar_spill_alloc (MAX (self->n_by_from, 1) * sizeof (guint32), spill);
  self->by_to = planar_spill_alloc (MAX (self->n_by_to, 1) * sizeof (guint32), spill);
  merge_by_end (self->flows,
                (guint32 *) (gpointer) launch_by_from->data, launch_by_from->len,
                (guint32 *) (gpointer) generic_by_from->data, generic_by_from->len,
                TRUE, self->by_from);
  merge_by_end (self->flows,
                (guint32 *) (gpointer) launch_by_to->data, launch_by_to->len,
                (guint32 *) (gpointer) generic_by_to->data, generic_by_to->len,
                FALSE, self->by_to);

  planar_spill_debug_memory ("the flows' orders by end");
  /* Sorted by the start of their time span, the flows array is the "all"
   * time index's order, and every category's order taken from it is
   * sorted too. The radix sort is stable and the pairing's order is
   * deterministic, so ties always come out the same. */
  items = planar_spill_alloc (MAX (self->n_flows, 1) * sizeof (SortItem), PLANAR_SPILL_WHEN_SHORT);
  for (gsize i = 0; i < self->n_flows; i++)
    {
      items[i].key = time_key (span_lo (self, i));
      items[i].value = i;
    }
  radix_sort (items, self->n_flows);
  new_index = planar_spill_alloc (MAX (self->n_flows, 1) * sizeof (guint32), PLANAR_SPILL_WHEN_SHORT);
  for (gsize i = 0; i < self->n_flows; i++)
    new_index[items[i].value] = (guint32) i;
  if (planar_spill_is_mapped (self->flows) || planar_spill_is_mapped (self->from_ps) ||
      planar_spill_is_mapped (self->to_ps))
    {
      self->flows = gather (self->flows, sizeof (Flow), items, self->n_flows, spill);
      self->from_ps = gather (self->from_ps, sizeof (gint64), items, self->n_flows, spill);
      self->to_ps = gather (self->to_ps, sizeof (gint64), items, self->n_flows, spill);
    }
  else
    permute_flows (self, items);
  planar_spill_free (items);
  for (gsize i = 0; i < self->n_by_from; i++)
    self->by_from[i] = new_index[self->by_from[i]];
  for (gsize i = 0; i < self->n_by_to; i++)
    self->by_to[i] = new_index[self->by_to[i]];
  planar_spill_free (new_index);
  index_finish (self, trace);
  planar_spill_debug_memory ("the flow index");
  return self;
}

/* Counts, the anchor and the time indices of an index whose flows,
 * times and end orders are in place. */
static void
index_finish (PlanarFlowIndex *self,
              PlanarTrace     *trace)
{
  gsize n_by_category[PLANAR_FLOW_N_CATEGORIES] = { 0 };

  for (gsize i = 0; i < self->n_flows; i++)
    {
      const Flow *f = &self->flows[i];

      if (!planar_event_ref_is_none (&f->from) && !planar_event_ref_is_none (&f->to))
        {
          self->n_complete[f->category]++;
          self->n_complete_all++;
        }
      else
        {
          self->n_dangling[f->category]++;
          self->n_dangling_all++;
        }
      n_by_category[f->category]++;
    }

  if (self->n_flows > 0)
    {
      const Flow *f = &self->flows[0];
      gboolean has_from = !planar_event_ref_is_none (&f->from);
      const PlanarEventRef *ref = has_from ? &f->from : &f->to;
      const PlanarPlane *plane = &trace->planes[ref->plane];

      self->anchor = &plane->tracks[ref->track].events[ref->index];
      self->anchor_ps = has_from ? self->from_ps[0] : self->to_ps[0];
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
        if (self->flows[i].category == c)
          order[n++] = (guint32) i;
      self->by_category[c] = g_new0 (TimeIndex, 1);
      time_index_build (self->by_category[c], self, order, n);
    }
}

/* ------------------------------------------------------------------------ */
/* The cached index (planar-cache.c) */

/* n_flows, n_by_from, n_by_to, then the arrays as they are in memory. */
void
_planar_flow_index_serialize (const PlanarFlowIndex *self,
                              void                 (*sink) (gpointer, const void *, gsize),
                              gpointer               data)
{
  guint64 counts[3] = { self->n_flows, self->n_by_from, self->n_by_to };

  sink (data, counts, sizeof counts);
  sink (data, self->flows, self->n_flows * sizeof (Flow));
  sink (data, self->from_ps, self->n_flows * sizeof (gint64));
  sink (data, self->to_ps, self->n_flows * sizeof (gint64));
  sink (data, self->by_from, self->n_by_from * sizeof (guint32));
  sink (data, self->by_to, self->n_by_to * sizeof (guint32));
}

static gboolean
ref_valid (PlanarTrace          *trace,
           const PlanarEventRef *ref)
{
  if (planar_event_ref_is_none (ref))
    return TRUE;
  return ref->plane < trace->n_planes && ref->track < trace->planes[ref->plane].n_tracks
         && ref->index < trace->planes[ref->plane].tracks[ref->track].n_events;
}

/* A copy of the next @n items of @size bytes (never an empty block). */
static gpointer
take (const guint8 **data,
      gsize          n,
      gsize          size,
      gboolean       spill)
{
  gpointer copy = planar_spill_alloc (MAX (n * size, 1), spill);

  memcpy (copy, *data, n * size);
  *data += n * size;
  return copy;
}

PlanarFlowIndex *
_planar_flow_index_deserialize (PlanarTrace   *trace,
                                const guint8  *data,
                                gsize          len,
                                GError       **error)
{
  PlanarFlowIndex *self;
  guint64 counts[3];
  gsize need;

  if (len < sizeof counts)
    goto bad;
  memcpy (counts, data, sizeof counts);
  if (counts[0] > G_MAXUINT32 || counts[1] > counts[0] || counts[2] > counts[0])
    goto bad;
  need = sizeof counts + counts[0] * (sizeof (Flow) + 2 * sizeof (gint64)) + (counts[1] + counts[2]) * sizeof (guint32);
  if (len != need)
    goto bad;
  self = g_new0 (PlanarFlowIndex, 1);
  self->n_flows = counts[0];
  self->n_by_from = counts[1];
  self->n_by_to = counts[2];
  data += sizeof counts;
  self->flows = take (&data, self->n_flows, sizeof (Flow), trace->spill);
  self->from_ps = take (&data, self->n_flows, sizeof (gint64), trace->spill);
  self->to_ps = take (&data, self->n_flows, sizeof (gint64), trace->spill);
  self->by_from = take (&data, self->n_by_from, sizeof (guint32), trace->spill);
  self->by_to = take (&data, self->n_by_to, sizeof (guint32), trace->spill);

  /* Every reference in the trace, every order entry a flow, and the
   * flows sorted as the time index needs them. */
  for (gsize i = 0; i < self->n_flows; i++)
    {
      const Flow *f = &self->flows[i];

      if (f->category >= PLANAR_FLOW_N_CATEGORIES || !ref_valid (trace, &f->from) || !ref_valid (trace, &f->to)
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
  index_finish (self, trace);
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
  planar_spill_free (self->from_ps);
  planar_spill_free (self->to_ps);
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

/* How far the trace's events moved since the index was built. */
static inline gint64
time_shift (const PlanarFlowIndex *self)
{
  return self->anchor != NULL ? self->anchor->start_ps - self->anchor_ps : 0;
}

static inline void
copy_flow (const PlanarFlowIndex *self,
           gsize                  i,
           gint64                 shift,
           PlanarFlow            *out)
{
  const Flow *f = &self->flows[i];

  out->id = f->id;
  out->from = f->from;
  out->to = f->to;
  out->category = f->category;
  out->from_ps = self->from_ps[i] + shift;
  out->to_ps = self->to_ps[i] + shift;
}

static inline void
append_flow (const PlanarFlowIndex *self,
             gsize                  i,
             gint64                 shift,
             GArray                *out)
{
  PlanarFlow flow;

  copy_flow (self, i, shift, &flow);
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

  copy_flow (self, i, time_shift (self), flow);
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
  gint64 shift;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (event != NULL, 0);
  g_return_val_if_fail (out != NULL && g_array_get_element_size (out) == sizeof (PlanarFlow), 0);

  before = out->len;
  shift = time_shift (self);
  for (gsize k = lower_bound_ref (self, self->by_from, self->n_by_from, TRUE, event);
       k < self->n_by_from && compare_refs (&self->flows[self->by_from[k]].from, event) == 0; k++)
    append_flow (self, self->by_from[k], shift, out);
  for (gsize k = lower_bound_ref (self, self->by_to, self->n_by_to, FALSE, event);
       k < self->n_by_to && compare_refs (&self->flows[self->by_to[k]].to, event) == 0; k++)
    append_flow (self, self->by_to[k], shift, out);
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
  gint64 shift, t0, t1;
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

  /* Into the times the index was built with. */
  shift = time_shift (self);
  if (__builtin_sub_overflow (t0_ps, shift, &t0))
    t0 = shift > 0 ? G_MININT64 : G_MAXINT64;
  if (__builtin_sub_overflow (t1_ps, shift, &t1))
    t1 = shift > 0 ? G_MININT64 : G_MAXINT64;

  /* Candidates start at or before the window's end: a prefix. */
  hi = ti->n;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (span_lo (self, ti->order != NULL ? ti->order[mid] : mid) <= t1)
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

              if (span_hi (self, f) >= t0)
                append_flow (self, f, shift, out);
            }
          continue;
        }
      /* Right child first on the stack, so the left one comes out first. */
      stack[sp++] = 2 * node + 1;
      stack[sp++] = 2 * node;
    }
  return out->len - before;
}
