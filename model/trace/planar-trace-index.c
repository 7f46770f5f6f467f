/* planar-trace-index.c: a track's index, built once its events are in
 * place: nesting depths (overlaps flagged), self times, the events grouped
 * by depth for the span queries, and its span.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-decode-private.h"
#include "planar-span-index-private.h"

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

/* Gives each event its depth with a stack of open events. An event that
 * starts inside the open event on top but ends after it is not nested: it
 * takes that event's place (and depth) and is flagged as an overlap. The
 * same walk sums each event's direct children for self times, in a list
 * by event index: an event's entry is added when its first child comes,
 * and no event after it in the track can get a first child before that
 * (it would be its descendant, or come after it closed), so the list
 * needs no sort. Entries whose children took no time are dropped. */
static gboolean
assign_depths (PlanarDecodeContext *ctx,
               guint          p,
               PlanarTrack   *track)
{
  typedef struct { gint64 end; guint64 index; gsize slot; } Open;
  g_autofree Open *stack = NULL;
  g_autoptr(GArray) children = g_array_new (FALSE, FALSE, sizeof (ChildTime));
  gsize sp = 0, cap = 64, kept = 0;

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
      if (sp > 0 && end > stack[sp - 1].end)
        {
          ev->flags |= PLANAR_EVENT_OVERLAP;
          track->n_overlaps++;
          sp--;
        }
      if (sp > 0)
        {
          /* A child counts against its parent only up to the parent's end. */
          Open *parent = &stack[sp - 1];
          PlanarEvent *pev = &track->events[parent->index];

          if (parent->slot == G_MAXSIZE)
            {
              ChildTime ct = { parent->index, 0 };

              parent->slot = children->len;
              g_array_append_val (children, ct);
            }
          g_array_index (children, ChildTime, parent->slot).children_ps += MIN (end, parent->end) - ev->start_ps;
          if (!(pev->flags & PLANAR_EVENT_HAS_CHILDREN))
            pev->flags |= PLANAR_EVENT_HAS_CHILDREN;
        }
      depth = sp;
      if (sp == cap)
        {
          if (!_planar_decode_claim_memory (ctx, cap * sizeof (Open)))
            return FALSE;
          cap *= 2;
          stack = g_renew (Open, stack, cap);
        }
      stack[sp].end = end;
      stack[sp].index = i;
      stack[sp].slot = G_MAXSIZE;
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

/* Groups event indices by depth (a counting sort, so each group keeps the
 * track's start order) for the level-of-detail and range queries. One pass
 * in the track's order writes each event's index and start at its group's
 * next place and checks that the group's ends do not go back: each group
 * is written front to back, and the events are read once, in order, not
 * gathered group by group (at 10^8 events the gathers through the order
 * took 2.6 s of a deep track's 2.9 s here). */
static gboolean
index_depths (PlanarDecodeContext *ctx,
              guint          p,
              PlanarTrack   *track)
{
  guint n_depths = track->max_depth + 1;
  g_autofree gsize *fill = NULL;
  g_autofree gint64 *last_end = NULL;

  if (track->n_events > G_MAXUINT32)
    {
      _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_TOO_LARGE,
                                     "line %s of %s has more than 2^32 events",
                                     track->name, ctx->self->file_name));
      return FALSE;
    }

  track->depth_offsets = g_new0 (gsize, n_depths + 1);
  track->depth_ends_sorted = g_new (gboolean, n_depths);
  for (gsize i = 0; i < track->n_events; i++)
    track->depth_offsets[track->events[i].depth + 1]++;
  for (guint d = 0; d < n_depths; d++)
    track->depth_offsets[d + 1] += track->depth_offsets[d];

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

  fill = g_memdup2 (track->depth_offsets, n_depths * sizeof (gsize));
  last_end = g_new (gint64, n_depths);
  for (guint d = 0; d < n_depths; d++)
    {
      last_end[d] = G_MININT64;
      track->depth_ends_sorted[d] = TRUE;
    }
  for (gsize i = 0; i < track->n_events; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      guint d = ev->depth;
      gsize k = fill[d]++;
      gint64 end = ev->start_ps + ev->duration_ps;

      if (track->depth_order != NULL)
        track->depth_order[k] = (guint32) i;
      track->depth_starts[k] = ev->start_ps;
      if (end < last_end[d])
        track->depth_ends_sorted[d] = FALSE;
      last_end[d] = end;
    }

  if (!_planar_decode_claim_memory (ctx, _planar_track_cells_size (track)))
    return FALSE;
  _planar_track_build_cells (track, _planar_decode_spill_mode (ctx, p, _planar_track_cells_size (track)));
  return TRUE;
}

/* Sorts the track's events (unless @sorted says they are), nests them and
 * builds the query indices and the span. */
/* The span of a track's (sorted) events; start > end when it has none. */
static void
set_span (PlanarTrack *track)
{
  track->start_ps = G_MAXINT64;
  track->end_ps = G_MININT64;
  if (track->n_events > 0)
    track->start_ps = track->events[0].start_ps;
  for (gsize i = 0; i < track->n_events; i++)
    track->end_ps = MAX (track->end_ps, track->events[i].start_ps + track->events[i].duration_ps);
}

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

  if (!assign_depths (ctx, p, track) || !index_depths (ctx, p, track))
    return FALSE;
  set_span (track);
  return TRUE;
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
  if (!nest)
    set_span (track);
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
