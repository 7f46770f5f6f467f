/* planar-span-index.c: level-of-detail and range queries over a track.
 *
 * The structure is the one built by the loader: the track's event indices
 * grouped by depth, each group in start order. Events of one depth never
 * nest, so within a group starts increase and ends do not decrease (the
 * loader records where damaged input breaks that, and those groups are
 * searched linearly). A query binary-searches the first visible event of a
 * depth and then walks the window a pixel column at a time, galloping over
 * the events that start in the same column instead of visiting them: the
 * cost follows the rectangles returned, not the events behind them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-span-index.h"

typedef struct
{
  const PlanarEvent *events;
  const guint32     *order;
  const gint64      *starts;
  gsize              n;
} DepthGroup;

static inline const PlanarEvent *
group_event (const DepthGroup *g,
             gsize             k)
{
  return &g->events[g->order ? g->order[k] : k];
}

static inline gsize
group_index (const DepthGroup *g,
             gsize             k)
{
  return g->order ? g->order[k] : k;
}

static inline gint64
event_end (const PlanarEvent *ev)
{
  return ev->start_ps + ev->duration_ps;
}

static gboolean
get_group (const PlanarTrack *track,
           guint              depth,
           DepthGroup        *g)
{
  gsize begin, end;

  if (track->n_events == 0 || depth > track->max_depth || track->depth_offsets == NULL)
    return FALSE;
  begin = track->depth_offsets[depth];
  end = track->depth_offsets[depth + 1];
  g->events = track->events;
  g->order = track->depth_order ? track->depth_order + begin : NULL;
  g->starts = track->depth_starts + begin;
  g->n = end - begin;
  /* Without an order array there is one depth and the group is the track. */
  return g->n > 0;
}

/* The first event of the group that may meet a window opening at @t0: the
 * first whose end is >= t0 (instants at t0 meet it). */
static gsize
first_visible (const PlanarTrack *track,
               guint              depth,
               const DepthGroup  *g,
               gint64             t0)
{
  gsize lo = 0, hi = g->n;

  if (!track->depth_ends_sorted[depth])
    return 0;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (event_end (group_event (g, mid)) < t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The last index in [k, n) whose start is < @limit, given that event k's
 * is. Gallops, so skipping m events costs O(log m). */
static gsize
last_starting_before (const DepthGroup *g,
                      gsize             k,
                      gint64            limit)
{
  gsize lo = k, step = 1, hi;

  /* Find a bracket [lo, hi) with start(lo) < limit <= start(hi). */
  for (;;)
    {
      gsize probe = lo + step;

      if (probe >= g->n || probe < lo)
        {
          hi = g->n;
          break;
        }
      if (g->starts[probe] >= limit)
        {
          hi = probe;
          break;
        }
      lo = probe;
      step *= 2;
    }
  while (hi - lo > 1)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (g->starts[mid] < limit)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

static void
append_span (GArray           *out,
             const DepthGroup *g,
             gsize             first,
             gsize             last,
             guint             depth)
{
  PlanarSpan span;

  span.start_ps = group_event (g, first)->start_ps;
  /* Ends do not decrease within a group that is galloped over, so the last
   * event's end is the block's; a damaged group only asks for single
   * events. */
  span.end_ps = event_end (group_event (g, last));
  span.first = group_index (g, first);
  span.count = last - first + 1;
  span.depth = depth;
  g_array_append_val (out, span);
}

static gsize
query_depth (const PlanarTrack *track,
             guint              depth,
             gint64             t0,
             gint64             t1,
             gint64             ps_per_px,
             GArray            *out)
{
  DepthGroup g;
  gsize k, before = out->len;
  gboolean sorted;

  if (!get_group (track, depth, &g))
    return 0;
  sorted = track->depth_ends_sorted[depth];
  k = first_visible (track, depth, &g, t0);

  while (k < g.n)
    {
      const PlanarEvent *ev = group_event (&g, k);
      gint64 column_end;
      gsize j;

      if (ev->start_ps > t1)
        break;
      if (event_end (ev) < t0)
        {
          /* Only in groups searched linearly. */
          k++;
          continue;
        }

      /* The column the event starts in, as the time the next one begins.
       * Everything that starts before the window shares one column. */
      if (ev->start_ps < t0)
        column_end = t0;
      else
        {
          __int128 col = ((__int128) ev->start_ps - t0) / ps_per_px;
          __int128 next = (__int128) t0 + (col + 1) * ps_per_px;

          column_end = next > G_MAXINT64 ? G_MAXINT64 : (gint64) next;
        }

      if (!sorted)
        {
          /* Damaged nesting: no galloping, one rectangle per event. */
          append_span (out, &g, k, k, depth);
          k++;
          continue;
        }

      /* Events past the window's end stay out even when their column
       * straddles it. */
      j = last_starting_before (&g, k, t1 == G_MAXINT64 ? column_end : MIN (column_end, t1 + 1));
      if (j == k)
        append_span (out, &g, k, k, depth);
      else if (group_event (&g, j)->duration_ps >= ps_per_px)
        {
          /* A wide event is the last to start in its column (the next one
           * starts after it ends, unless it is a partial overlap): keep it
           * apart so it stays recognisable, and fold the narrow ones
           * before it. */
          append_span (out, &g, k, j - 1, depth);
          append_span (out, &g, j, j, depth);
        }
      else
        append_span (out, &g, k, j, depth);
      k = j + 1;
    }
  return out->len - before;
}

gsize
planar_track_query_spans (const PlanarTrack *track,
                          gint64             t0_ps,
                          gint64             t1_ps,
                          gint64             ps_per_px,
                          guint              min_depth,
                          guint              max_depth,
                          GArray            *out)
{
  gsize n = 0;

  g_return_val_if_fail (track != NULL, 0);
  g_return_val_if_fail (out != NULL && g_array_get_element_size (out) == sizeof (PlanarSpan), 0);
  g_return_val_if_fail (ps_per_px > 0, 0);

  if (t1_ps < t0_ps || track->n_events == 0)
    return 0;
  max_depth = MIN (max_depth, track->max_depth);
  for (guint d = min_depth; d <= max_depth; d++)
    n += query_depth (track, d, t0_ps, t1_ps, ps_per_px, out);
  return n;
}

void
planar_track_foreach_in_range (const PlanarTrack *track,
                               gint64             t0_ps,
                               gint64             t1_ps,
                               PlanarEventFunc    func,
                               gpointer           user_data)
{
  g_return_if_fail (track != NULL);
  g_return_if_fail (func != NULL);

  if (t1_ps < t0_ps)
    return;
  for (guint d = 0; d <= track->max_depth; d++)
    {
      DepthGroup g;

      if (!get_group (track, d, &g))
        continue;
      for (gsize k = first_visible (track, d, &g, t0_ps); k < g.n; k++)
        {
          const PlanarEvent *ev = group_event (&g, k);

          if (ev->start_ps > t1_ps)
            break;
          if (event_end (ev) < t0_ps)
            continue;
          if (!func (track, group_index (&g, k), user_data))
            return;
        }
    }
}

gint64
planar_track_get_self_time (const PlanarTrack *track,
                            gsize              index)
{
  const PlanarEvent *ev;
  gsize lo = 0, hi;

  g_return_val_if_fail (track != NULL, 0);
  g_return_val_if_fail (index < track->n_events, 0);

  ev = &track->events[index];
  if (!(ev->flags & PLANAR_EVENT_HAS_CHILDREN))
    return ev->duration_ps;
  hi = track->n_children;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (track->children[mid].index < index)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < track->n_children && track->children[lo].index == index)
    return ev->duration_ps - track->children[lo].children_ps;
  return ev->duration_ps;
}
