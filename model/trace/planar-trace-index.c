/* planar-trace-index.c: a track's index, built once its events are in
 * place: nesting depths (overlaps flagged), self times, the events grouped
 * by depth for the span queries, and its span.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-decode-private.h"
#include "planar-span-index-private.h"
#include "planar-parallel.h"

#include <stdlib.h>
#include <string.h>

static int
event_compare (const void *pa,
               const void *pb)
{
  const PlanarEvent *a = pa;
  const PlanarEvent *b = pb;

  if (_planar_event_before (a, b))
    return -1;
  if (_planar_event_before (b, a))
    return 1;
  return 0;
}
typedef struct
{
  guint64 index;
  gint64  children_ps;
} ChildTime;

static int
child_time_compare (gconstpointer pa,
                    gconstpointer pb)
{
  const ChildTime *a = pa, *b = pb;

  return a->index < b->index ? -1 : a->index > b->index;
}

/* Gives each event its depth with a stack of open events. An event that
 * starts inside the open event on top but ends after it is not nested in
 * it, and is flagged as an overlap: it takes the place (and depth) of the
 * outermost open event it outlives, under the innermost one that holds it
 * whole, as Chrome's trace viewer nests such a slice. The deeper ones it
 * outlives stay open above it until they end, so that what starts inside
 * them still nests in them (a Python call that returns after the
 * annotation it opened began). Taking the top's place only put PyTorch's
 * ProfilerStep#N (begun inside the Python calls of profiler.step(), which
 * return after it begins) three rows below ProfilerStep#N-1, a staircase
 * as deep as the steps were many.
 *
 * The stack's ends never grow towards its top (an overlap ends before the
 * event below it and after those above it), so the events popped are
 * exactly the ones ended. Each event of a depth starts after the one
 * before it there ended, or outlives it: a depth's events end in order,
 * as the span index needs.
 *
 * The same walk sums each event's direct children for self times, in a
 * list by event index: an event's entry is added when its first child
 * comes. Without overlaps no event after it in the track can get a first
 * child before that (it would be its descendant, or come after it
 * closed), so the list is in order; an event left open above an overlap
 * can get its first child after the overlap got its own, and then the
 * list is sorted at the end. Entries whose children took no time are
 * dropped. */
static gboolean
assign_depths (PlanarDecodeContext *ctx,
               guint                p,
               PlanarTrack         *track)
{
  typedef struct { gint64 end; guint64 index; gsize slot; } Open;
  g_autofree Open *stack = NULL;
  g_autoptr(GArray) children = g_array_new (FALSE, FALSE, sizeof (ChildTime));
  gsize sp = 0, cap = 64, kept = 0;
  gboolean children_sorted = TRUE;

  stack = g_new (Open, cap);
  track->max_depth = 0;
  track->n_overlaps = 0;
  for (gsize i = 0; i < track->n_events; i++)
    {
      PlanarEvent *ev = &track->events[i];
      gint64 end = ev->start_ps + ev->duration_ps;
      gsize depth;

      while (sp > 0 && stack[sp - 1].end <= ev->start_ps)
        sp--;
      depth = sp;
      if (sp > 0 && end > stack[sp - 1].end)
        {
          ev->flags |= PLANAR_EVENT_OVERLAP;
          track->n_overlaps++;
          depth = sp - 1;
          while (depth > 0 && end > stack[depth - 1].end)
            depth--;
        }
      if (depth > 0)
        {
          /* A child counts against its parent only up to the parent's end. */
          Open *parent = &stack[depth - 1];
          PlanarEvent *pev = &track->events[parent->index];

          if (parent->slot == G_MAXSIZE)
            {
              ChildTime ct = { parent->index, 0 };

              if (children->len > 0 && g_array_index (children, ChildTime, children->len - 1).index > ct.index)
                children_sorted = FALSE;
              parent->slot = children->len;
              g_array_append_val (children, ct);
            }
          g_array_index (children, ChildTime, parent->slot).children_ps += MIN (end, parent->end) - ev->start_ps;
          if (!(pev->flags & PLANAR_EVENT_HAS_CHILDREN))
            pev->flags |= PLANAR_EVENT_HAS_CHILDREN;
        }
      if (depth == cap)
        {
          if (!_planar_decode_claim_memory (ctx, cap * sizeof (Open)))
            return FALSE;
          cap *= 2;
          stack = g_renew (Open, stack, cap);
        }
      stack[depth].end = end;
      stack[depth].index = i;
      stack[depth].slot = G_MAXSIZE;
      /* An overlap leaves the events above its place open. */
      if (depth == sp)
        sp++;
      if (depth > G_MAXUINT16)
        {
          depth = G_MAXUINT16;
          ev->flags |= PLANAR_EVENT_DEPTH_CLAMPED;
        }
      /* Written only when it changes: a page of a large index may be in a
       * file and written back by now (planar-spill.c), and a store, even
       * of the same value, would fault it writable and dirty it again;
       * most events of a GPU stream or a derived line stay at depth 0. */
      if (ev->depth != depth)
        ev->depth = (guint16) depth;
      if (depth > track->max_depth)
        track->max_depth = (guint) depth;
    }

  for (guint c = 0; c < children->len; c++)
    if (g_array_index (children, ChildTime, c).children_ps > 0)
      g_array_index (children, ChildTime, kept++) = g_array_index (children, ChildTime, c);
  g_array_set_size (children, (guint) kept);
  if (!children_sorted)
    g_array_sort (children, child_time_compare);
  if (children->len > 0)
    {
      if (!_planar_decode_claim_memory (ctx, children->len * sizeof (ChildTime)))
        return FALSE;
      track->n_children = children->len;
      track->children = planar_spill_take (g_array_free (g_steal_pointer (&children), FALSE),
                                           track->n_children * sizeof (ChildTime),
                                           _planar_decode_spill_mode (ctx, p, track->n_children * sizeof (ChildTime)));
    }
  return TRUE;
}

/* From 2^20 events a track's depth index is built in a part of its events
 * per thread of the pool. */
static PlanarParallelCut depth_cut = PLANAR_PARALLEL_CUT_INIT ((gsize) 1 << 20);

void
_planar_trace_set_depth_index_parts (gsize n_events,
                                     guint n_parts)
{
  planar_parallel_cut_set (&depth_cut, n_events, n_parts);
}

guint
_planar_trace_get_n_parted_depth_indices (void)
{
  return planar_parallel_cut_count (&depth_cut);
}

/* index_depths() in @n_parts parts of the track's events, [n * j /
 * n_parts, n * (j + 1) / n_parts) for part j. Each array is n_parts rows
 * of n_depths: @at is first each part's count of each depth, then where
 * the part writes its next event of that depth, from @first_at; @first_end
 * and @last_end are the ends of the part's first and last event of each
 * depth, @sorted whether its events of that depth end in order. */
typedef struct
{
  PlanarTrack *track;
  guint        n_depths;
  guint        n_parts;
  gboolean     scatter;
  gsize       *at;
  const gsize *first_at;
  gint64      *first_end;
  gint64      *last_end;
  gboolean    *sorted;
  /* Per part: the latest end of its events. */
  gint64      *max_end;
} DepthParts;

static gboolean
depth_part (guint          job,
            gpointer       data,
            GCancellable  *cancellable,
            GError       **error)
{
  const DepthParts *dp = data;
  PlanarTrack *track = dp->track;
  gsize n = track->n_events;
  gsize begin = (gsize) ((guint64) n * job / dp->n_parts);
  gsize end = (gsize) ((guint64) n * (job + 1) / dp->n_parts);
  gsize row = (gsize) job * dp->n_depths;
  gsize *at = dp->at + row;
  const gsize *first_at;
  gint64 *first_end = dp->first_end + row, *last_end = dp->last_end + row;
  gboolean *sorted = dp->sorted + row;
  gint64 max_end = G_MININT64;

  if (!dp->scatter)
    {
      for (gsize i = begin; i < end; i++)
        at[track->events[i].depth]++;
      return TRUE;
    }
  /* Set once the counts are. */
  first_at = dp->first_at + row;
  for (guint d = 0; d < dp->n_depths; d++)
    sorted[d] = TRUE;
  for (gsize i = begin; i < end; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      guint d = ev->depth;
      gsize k = at[d]++;
      gint64 ev_end = ev->start_ps + ev->duration_ps;

      if (track->depth_order != NULL)
        track->depth_order[k] = (guint32) i;
      track->depth_starts[k] = ev->start_ps;
      if (k == first_at[d])
        first_end[d] = ev_end;
      else if (ev_end < last_end[d])
        sorted[d] = FALSE;
      last_end[d] = ev_end;
      max_end = MAX (max_end, ev_end);
    }
  dp->max_end[job] = max_end;
  return TRUE;
}

/* Groups event indices by depth (a counting sort, so each group keeps the
 * track's start order) for the level-of-detail and range queries, and sets
 * the track's span. One pass in the track's order writes each event's
 * index and start at its group's next place, checks that the group's ends
 * do not go back and finds the latest end: each group is written front to
 * back, and the events are read once, in order, not gathered group by
 * group (at 10^8 events the gathers through the order took 2.6 s of a deep
 * track's 2.9 s here). A large track's count and pass are cut into a part
 * per thread (DepthParts): each part counts its events of each depth,
 * which tells where it writes its first of each, and the parts' checks of
 * the ends are joined at their seams. At 10^8 events the host's Python
 * thread (40 million events, many depths) is indexed last, alone, while
 * the other core has nothing left to do. */
static gboolean
index_depths (PlanarDecodeContext *ctx,
              guint          p,
              PlanarTrack   *track)
{
  guint n_depths = track->max_depth + 1;
  guint n_parts;
  g_autofree gsize *at = NULL, *first_at = NULL;
  g_autofree gint64 *first_end = NULL, *last_end = NULL;
  g_autofree gboolean *sorted = NULL;
  g_autofree gint64 *max_end = NULL;
  DepthParts dp;

  if (track->n_events > G_MAXUINT32)
    {
      _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_TOO_LARGE,
                                     "line %s of %s has more than 2^32 events",
                                     track->name, ctx->self->file_name));
      return FALSE;
    }
  n_parts = planar_parallel_cut_parts (&depth_cut, track->n_events);

  at = g_new0 (gsize, (gsize) n_parts * n_depths);
  first_end = g_new (gint64, (gsize) n_parts * n_depths);
  last_end = g_new (gint64, (gsize) n_parts * n_depths);
  sorted = g_new (gboolean, (gsize) n_parts * n_depths);
  max_end = g_new (gint64, n_parts);
  dp = (DepthParts) { track, n_depths, n_parts, FALSE, at, NULL, first_end, last_end, sorted, max_end };
  if (n_parts > 1)
    planar_parallel_run (n_parts, NULL, depth_part, &dp, NULL, NULL);
  else
    depth_part (0, &dp, NULL, NULL);

  /* The groups' offsets, and where each part starts in each group. */
  track->depth_offsets = g_new0 (gsize, n_depths + 1);
  track->depth_ends_sorted = g_new (gboolean, n_depths);
  for (guint d = 0; d < n_depths; d++)
    {
      gsize next = track->depth_offsets[d];

      for (guint j = 0; j < n_parts; j++)
        {
          gsize count = at[(gsize) j * n_depths + d];

          at[(gsize) j * n_depths + d] = next;
          next += count;
        }
      track->depth_offsets[d + 1] = next;
    }
  dp.first_at = first_at = g_memdup2 (at, (gsize) n_parts * n_depths * sizeof (gsize));

  if (n_depths > 1)
    {
      if (!_planar_decode_claim_memory (ctx, track->n_events * sizeof (guint32)))
        return FALSE;
      track->depth_order = planar_spill_alloc (MAX (track->n_events, 1) * sizeof (guint32),
                                               _planar_decode_depth_spill_mode (ctx, p, track->n_events * sizeof (guint32)));
    }
  if (!_planar_decode_claim_memory (ctx, track->n_events * sizeof (gint64)))
    return FALSE;
  track->depth_starts = planar_spill_alloc (MAX (track->n_events, 1) * sizeof (gint64),
                                            _planar_decode_depth_spill_mode (ctx, p, track->n_events * sizeof (gint64)));

  dp.scatter = TRUE;
  if (n_parts > 1)
    planar_parallel_run (n_parts, NULL, depth_part, &dp, NULL, NULL);
  else
    depth_part (0, &dp, NULL, NULL);
  /* The track's span (start > end when it has no events). */
  track->start_ps = track->n_events > 0 ? track->events[0].start_ps : G_MAXINT64;
  track->end_ps = G_MININT64;
  for (guint j = 0; j < n_parts; j++)
    track->end_ps = MAX (track->end_ps, max_end[j]);
  /* A group's ends are in order where each part's are and no part's
   * first end comes before the last end of the part before it with
   * events of that depth. */
  for (guint d = 0; d < n_depths; d++)
    {
      gint64 previous = G_MININT64;

      track->depth_ends_sorted[d] = TRUE;
      for (guint j = 0; j < n_parts; j++)
        {
          gsize k = (gsize) j * n_depths + d;

          if (at[k] == first_at[k])
            continue;
          if (!sorted[k] || first_end[k] < previous)
            track->depth_ends_sorted[d] = FALSE;
          previous = last_end[k];
        }
    }

  if (!_planar_decode_claim_memory (ctx, _planar_track_cells_size (track)))
    return FALSE;
  _planar_track_build_cells (track, _planar_decode_spill_mode (ctx, p, _planar_track_cells_size (track)));
  return TRUE;
}

/* Sorts the track's events (unless @sorted says they are), nests them and
 * builds the query indices and the span. */
gboolean
_planar_decode_finish_track (PlanarDecodeContext *ctx,
              guint          p,
              PlanarTrack   *track,
              gboolean       sorted)
{
  gsize n = track->n_events;

  /* Tracks built outside the decoder are usually in order already; a
   * look is cheaper than a sort. */
  if (!sorted)
    {
      sorted = TRUE;
      for (gsize i = 1; i < n && sorted; i++)
        sorted = _planar_event_before (&track->events[i - 1], &track->events[i]);
    }
  if (!sorted)
    qsort (track->events, n, sizeof (PlanarEvent), event_compare);

  return assign_depths (ctx, p, track) && index_depths (ctx, p, track);
}

/* finish_track() (@nest) or only the depth index and span, for a track
 * built outside the decoder. */
static gboolean
finish_track_alone (PlanarTrace  *self,
                    PlanarTrack  *track,
                    gboolean      nest,
                    GError      **error)
{
  PlanarDecodeContext ctx = { 0 };
  gboolean ok;

  ctx.self = self;
  /* Derived tracks hold fewer events than the file's tracks they come
   * from, which the decode budget already allowed; restored tracks were
   * allowed when they were decoded. */
  ctx.budget = G_MAXUINT64;
  g_mutex_init (&ctx.lock);
  ok = nest ? _planar_decode_finish_track (&ctx, G_MAXUINT, track, FALSE) : index_depths (&ctx, G_MAXUINT, track);
  g_mutex_clear (&ctx.lock);
  if (!ok)
    {
      g_propagate_error (error, ctx.error);
      return FALSE;
    }
  return TRUE;
}

gboolean
_planar_trace_finish_track (PlanarTrace  *self,
                            PlanarTrack  *track,
                            GError      **error)
{
  return finish_track_alone (self, track, TRUE, error);
}
gboolean
_planar_trace_index_track (PlanarTrace  *self,
                           PlanarTrack  *track,
                           GError      **error)
{
  return finish_track_alone (self, track, FALSE, error);
}
