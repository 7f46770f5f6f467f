/* planar-flows-order.c: the flow index's time order, the flows sorted by
 * the start of their time span (planar-flows-build.c builds the rest of
 * the index; planar-flows.c says what it holds).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-flows-index-private.h"
#include "planar-heap-private.h"
#include "planar-parallel.h"

#include <string.h>

/* The sort's scratch stays on the heap unless the system is short of
 * memory, as the flow index's other scratch does (planar-flows-build.c). */
#define SCRATCH PLANAR_SPILL_WHEN_SHORT

/* One digit pass of the radix sort (below): @dst gets @src (@n flow
 * indices) stably by bits [@shift, @shift + 11) of @keys[src[i]]. */
static void
sort_digit (const guint32 *src,
            guint32       *dst,
            const guint32 *keys,
            gsize          n,
            guint          shift,
            gsize         *count)
{
  gsize at = 0;

  memset (count, 0, 2048 * sizeof (gsize));
  for (gsize i = 0; i < n; i++)
    count[(keys[i] >> shift) & 2047]++;
  for (guint b = 0; b < 2048; b++)
    {
      gsize c = count[b];

      count[b] = at;
      at += c;
    }
  for (gsize i = 0; i < n; i++)
    dst[count[(keys[src[i]] >> shift) & 2047]++] = src[i];
}

/* Flows sorted by merging their runs: at most this many runs (a test may
 * say otherwise), and how many flow indices were sorted so. */
#define MERGE_RUNS_MAX 128
static guint merge_runs_max = MERGE_RUNS_MAX;
static guint n_merged;

void
_planar_flow_index_set_merge_runs_max (guint n_runs)
{
  merge_runs_max = n_runs;
}

guint
_planar_flow_index_get_n_merged (void)
{
  return g_atomic_int_get (&n_merged);
}

/* One run of flows [next, end) in a merge, and the start of its next
 * flow's span. */
typedef struct
{
  gint64 key;
  gsize  next;
  gsize  end;
} MergeRun;

/* Whether run @a's next flow goes before @b's: by key, then by index (the
 * runs cover the flows in index order, so ties keep it: a stable sort). */
static inline gboolean
merge_run_before (const MergeRun *a,
                  const MergeRun *b)
{
  return a->key != b->key ? a->key < b->key : a->next < b->next;
}

PLANAR_DEFINE_HEAP_SIFT_DOWN (merge_run_sift_down, MergeRun, merge_run_before)

/* Runs [begin, end) of flows, each in order, merged into @order. */
typedef struct
{
  gsize begin;
  gsize end;
} RunSpan;

static void
merge_runs (const PlanarFlowIndex *self,
            const RunSpan         *spans,
            guint                  n_spans,
            guint32               *order)
{
  g_autofree MergeRun *heap = g_new (MergeRun, MAX (n_spans, 1));
  guint n_runs = 0;

  for (guint r = 0; r < n_spans; r++)
    if (spans[r].begin < spans[r].end)
      heap[n_runs++] = (MergeRun) { span_lo (self, spans[r].begin), spans[r].begin, spans[r].end };
  for (guint i = n_runs; i-- > 0;)
    merge_run_sift_down (heap, n_runs, i);
  for (gsize k = 0; n_runs > 0; k++)
    {
      MergeRun *top = &heap[0];

      order[k] = (guint32) top->next;
      if (++top->next < top->end)
        top->key = span_lo (self, top->next);
      else
        *top = heap[--n_runs];
      merge_run_sift_down (heap, n_runs, 0);
    }
}

/* The first flow of the run @span whose span starts at or after @key. */
static gsize
run_lower_bound (const PlanarFlowIndex *self,
                 const RunSpan         *span,
                 gint64                 key)
{
  gsize lo = span->begin, hi = span->end;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (span_lo (self, mid) < key)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* How many flows of the runs start before @key. */
static gsize
count_before (const PlanarFlowIndex *self,
              const RunSpan         *spans,
              guint                  n_spans,
              gint64                 key)
{
  gsize n = 0;

  for (guint r = 0; r < n_spans; r++)
    n += run_lower_bound (self, &spans[r], key) - spans[r].begin;
  return n;
}

/* A merge cut into parts by time, for the pool (merge_part()): part j is
 * every run's flows in [cuts[j * n_runs + r], cuts[(j + 1) * n_runs + r])
 * and goes to @order from part_at[j]. */
typedef struct
{
  const PlanarFlowIndex *self;
  guint                  n_runs;
  const gsize           *cuts;
  const gsize           *part_at;
  guint32               *order;
} SplitMerge;

static gboolean
merge_part (guint          job,
            gpointer       data,
            GCancellable  *cancellable,
            GError       **error)
{
  const SplitMerge *m = data;
  g_autofree RunSpan *spans = g_new (RunSpan, MAX (m->n_runs, 1));

  for (guint r = 0; r < m->n_runs; r++)
    {
      spans[r].begin = m->cuts[job * m->n_runs + r];
      spans[r].end = m->cuts[(job + 1) * m->n_runs + r];
    }
  merge_runs (m->self, spans, m->n_runs, m->order + m->part_at[job]);
  return TRUE;
}

/* From 2^20 flows the search for runs and their merge are cut into a
 * part per thread of the pool. */
static PlanarParallelCut merge_cut = PLANAR_PARALLEL_CUT_INIT ((gsize) 1 << 20);

void
_planar_flow_index_set_merge_split (gsize n_flows,
                                    guint n_parts)
{
  planar_parallel_cut_set (&merge_cut, n_flows, n_parts);
}

guint
_planar_flow_index_get_n_split_merges (void)
{
  return planar_parallel_cut_count (&merge_cut);
}

/* Merges the runs in @n_parts parts side by side: the cut between part
 * j - 1 and part j is the earliest start with at least j / n_parts of the
 * flows before it (found by bisecting the time, each count a bisection of
 * every run), so a part holds every flow that starts in its stretch of
 * time. As the merge's order is by start, then by index, the parts' orders
 * one after the other are the whole merge's, whatever the cuts. */
static void
merge_runs_in_parts (const PlanarFlowIndex *self,
                     const RunSpan         *spans,
                     guint                  n_spans,
                     guint                  n_parts,
                     guint32               *order)
{
  gsize n = self->n_flows;
  g_autofree gsize *cuts = g_new (gsize, (gsize) (n_parts + 1) * n_spans);
  g_autofree gsize *part_at = g_new (gsize, n_parts);
  guint64 lo_key = G_MAXUINT64, hi_key = 0;
  gsize at = 0;
  SplitMerge m = { self, n_spans, cuts, part_at, order };

  for (guint r = 0; r < n_spans; r++)
    {
      lo_key = MIN (lo_key, time_key (span_lo (self, spans[r].begin)));
      hi_key = MAX (hi_key, time_key (span_lo (self, spans[r].end - 1)));
    }
  for (guint r = 0; r < n_spans; r++)
    {
      cuts[r] = spans[r].begin;
      cuts[(gsize) n_parts * n_spans + r] = spans[r].end;
    }
  /* The inner cuts; the first and the last are the runs' own ends. */
  for (guint j = 1; j < n_parts; j++)
    {
      gsize want = (gsize) ((guint64) n * j / n_parts);
      guint64 lo = lo_key, hi = hi_key;
      gint64 key;

      /* The smallest key in [lo_key, hi_key] with @want flows before it
       * (hi_key has all but the last's). */
      while (lo < hi)
        {
          guint64 mid = lo + (hi - lo) / 2;

          if (count_before (self, spans, n_spans, (gint64) (mid ^ (G_GUINT64_CONSTANT (1) << 63))) >= want)
            hi = mid;
          else
            lo = mid + 1;
        }
      key = (gint64) (lo ^ (G_GUINT64_CONSTANT (1) << 63));
      for (guint r = 0; r < n_spans; r++)
        cuts[j * n_spans + r] = MAX (run_lower_bound (self, &spans[r], key), cuts[(j - 1) * n_spans + r]);
    }
  for (guint j = 0; j < n_parts; j++)
    {
      part_at[j] = at;
      for (guint r = 0; r < n_spans; r++)
        at += cuts[(j + 1) * n_spans + r] - cuts[j * n_spans + r];
    }
  /* Nothing fails and nothing cancels: the pool only shares the work. */
  planar_parallel_run (n_parts, NULL, merge_part, &m, NULL, NULL);
}

/* Where runs of flows in order start, found in @n_parts parts of the
 * flows side by side (find_runs()): part j's first ones, at most
 * @max_runs + 2 (its first flow, which may not start a run, and one more
 * than max_runs, which is too many: the caller stops there), from
 * starts[j * (max_runs + 2)], n_starts[j] of them. */
typedef struct
{
  const PlanarFlowIndex *self;
  gsize                  n;
  guint                  n_parts;
  guint                  max_runs;
  gsize                 *starts;
  guint                 *n_starts;
} FindRuns;

static gboolean
find_runs (guint          job,
           gpointer       data,
           GCancellable  *cancellable,
           GError       **error)
{
  const FindRuns *f = data;
  gsize begin = (gsize) ((guint64) f->n * job / f->n_parts);
  gsize end = (gsize) ((guint64) f->n * (job + 1) / f->n_parts);
  gsize *starts = f->starts + (gsize) job * (f->max_runs + 2);
  guint n_starts = 0;
  gint64 previous = 0;

  for (gsize i = begin; i < end; i++)
    {
      gint64 key = span_lo (f->self, i);

      if (i == begin || key < previous)
        {
          if (n_starts == f->max_runs + 2)
            break;
          starts[n_starts++] = i;
        }
      previous = key;
    }
  f->n_starts[job] = n_starts;
  return TRUE;
}

/* The time order (below) of flows that come as a few runs already in
 * order, as the pairing makes them (at 10^7 planar-gen events, 3.5 million
 * launch flows in 8 runs, one a GPU; the samples' in 8 to 94): the runs
 * found by one pass over the flows are merged, reading each flow's key
 * once more, with no array of keys and none of the radix sort's scattered
 * passes; from 2^20 flows in parts side by side
 * (merge_runs_in_parts()). FALSE, with @order untouched, past
 * merge_runs_max runs. */
static gboolean
sort_by_merging_runs (const PlanarFlowIndex *self,
                      guint32               *order)
{
  gsize n = self->n_flows;
  guint n_runs = 0, max_runs = merge_runs_max, n_parts;
  g_autofree RunSpan *spans = NULL;
  g_autofree gsize *starts = NULL;
  g_autofree guint *n_starts = NULL;
  FindRuns find = { self, n, 0, max_runs, NULL, NULL };

  /* The first flow would start a run too many. */
  if (max_runs == 0 && n > 0)
    return FALSE;
  /* The runs are found in parts side by side too: each part's (a part's
   * first flow always, which starts a run only where it starts before
   * the flow ahead of it). */
  spans = g_new (RunSpan, MAX (max_runs, 1));
  n_parts = planar_parallel_cut_parts (&merge_cut, n);
  find.n_parts = n_parts;
  find.starts = starts = g_new (gsize, (gsize) n_parts * (max_runs + 2));
  find.n_starts = n_starts = g_new0 (guint, n_parts);
  if (n_parts > 1)
    planar_parallel_run (n_parts, NULL, find_runs, &find, NULL, NULL);
  else
    find_runs (0, &find, NULL, NULL);
  for (guint j = 0; j < n_parts; j++)
    for (guint k = 0; k < n_starts[j]; k++)
      {
        gsize i = starts[(gsize) j * (max_runs + 2) + k];

        if (k == 0 && i > 0 && span_lo (self, i) >= span_lo (self, i - 1))
          continue;
        if (n_runs == max_runs)
          return FALSE;
        if (n_runs > 0)
          spans[n_runs - 1].end = i;
        spans[n_runs++] = (RunSpan) { i, n };
      }
  if (n_parts > 1)
    merge_runs_in_parts (self, spans, n_runs, n_parts, order);
  else
    merge_runs (self, spans, n_runs, order);
  g_atomic_int_inc (&n_merged);
  return TRUE;
}

/* Sets @order to the flows' indices sorted by the start of their time
 * span, stably (ties keep the pairing's order, so that they always come
 * out the same): by merging their runs when they come in a few
 * (sort_by_merging_runs()), else a radix sort of 4-byte indices by 11-bit
 * digits that reads each key through its index. The keys, relative to the smallest,
 * are sorted by their low 32 bits, then by their high ones, from an array
 * of 4 bytes a flow that holds one half at a time: the sort takes 12 bytes
 * a flow with the keys, where 8-byte keys took 16 (a stable sort by each
 * digit from the lowest up is the same whatever digits the key is cut
 * into). @tmp holds as many indices. */
void
_planar_flow_index_sort_by_span_start (const PlanarFlowIndex *self,
                                       guint32               *order,
                                       guint32               *tmp)
{
  gsize n = self->n_flows;
  guint32 *keys;
  g_autofree gsize *count = NULL;
  guint32 *src = order, *dst = tmp;
  guint64 min = G_MAXUINT64, max = 0;

  if (sort_by_merging_runs (self, order))
    return;
  keys = planar_spill_alloc (MAX (n, 1) * sizeof (guint32), SCRATCH);
  count = g_new (gsize, 2048);

  for (gsize i = 0; i < n; i++)
    {
      guint64 key = time_key (span_lo (self, i));

      min = MIN (min, key);
      max = MAX (max, key);
      /* (key - min) mod 2^32, once min is known. */
      keys[i] = (guint32) key;
      order[i] = (guint32) i;
    }
  for (guint half = 0; half < 2 && n > 1; half++)
    {
      guint64 digits = half == 0 ? MIN (max - min, G_MAXUINT32) : (max - min) >> 32;

      if (digits == 0)
        break;
      if (half == 0)
        for (gsize i = 0; i < n; i++)
          keys[i] -= (guint32) min;
      else
        for (gsize i = 0; i < n; i++)
          keys[i] = (guint32) ((time_key (span_lo (self, i)) - min) >> 32);
      for (guint shift = 0; shift < 32 && (digits >> shift) != 0; shift += 11)
        {
          guint32 *swap = src;

          sort_digit (src, dst, keys, n, shift, count);
          src = dst;
          dst = swap;
        }
    }
  if (src != order)
    memcpy (order, src, n * sizeof (guint32));
  planar_spill_free (keys);
}
