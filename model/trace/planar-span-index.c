/* planar-span-index.c: level-of-detail and range queries over a track.
 *
 * The structure is the one built by the loader: the track's event indices
 * grouped by depth, each group in start order. Events of one depth never
 * nest, so within a group starts increase and ends do not decrease (the
 * loader records where damaged input breaks that, and those groups are
 * searched linearly). A query binary-searches the first visible event of a
 * depth and then walks the window a pixel column at a time, skipping the
 * events that start in the same column instead of visiting them: the cost
 * follows the rectangles returned, not the events behind them.
 *
 * A column's last event is found through the group's directory by time
 * (depth_cells): the group's time from its first start cut into cells that
 * hold CELL_EVENTS events on average, each with the number of the group's
 * events that start before it. A column's end falls in one cell, whose two
 * ranks bound the answer to a few neighbours, searched by galloping. A
 * search of the whole column (O(log events per column), each step a cache
 * and TLB miss far into gigabytes of starts) is what made a zoomed-out
 * frame grow with the file; through the directory a column reads the same
 * few entries at any size (where the events are spread evenly in time;
 * a burst denser than a cell costs a gallop over the burst, as before).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-span-index-private.h"

/* Events per directory cell, on average. */
#define CELL_EVENTS 16

/* The directory's block: a header of n_depths + 1 offsets (in cells) and
 * n_depths cell widths, then the cells of every group. Group d's cells
 * c[0..m] (m = offsets[d + 1] - offsets[d] - 1 >= 1) give the number of
 * its events that start before first start + i * width; c[m] is the
 * group's size. */
typedef struct
{
  guint64 n_depths;
  guint64 words[];
} CellsHeader;

typedef struct
{
  const PlanarEvent *events;
  const guint32     *order;
  const gint64      *starts;
  gsize              n;
  /* The directory: @n_cells cells of @cell_ps ps from starts[0], with
   * @n_cells + 1 ranks; NULL when the track has none. */
  const guint32     *cells;
  guint64            cell_ps;
  gsize              n_cells;
  guint64           *visited;
} DepthGroup;

static inline guint32 *
header_cells (const CellsHeader *h)
{
  return (guint32 *) (gpointer) &((guint64 *) h->words)[2 * h->n_depths + 1];
}

gsize
_planar_track_cells_size (const PlanarTrack *track)
{
  guint n_depths = track->max_depth + 1;
  gsize n_cells = 0;

  if (track->n_events == 0 || track->depth_offsets == NULL)
    return 0;
  for (guint d = 0; d < n_depths; d++)
    n_cells += MAX ((track->depth_offsets[d + 1] - track->depth_offsets[d]) / CELL_EVENTS, 1) + 1;
  return sizeof (CellsHeader) + (2 * (gsize) n_depths + 1) * sizeof (guint64) + n_cells * sizeof (guint32);
}

void
_planar_track_build_cells (PlanarTrack     *track,
                           PlanarSpillMode  spill)
{
  guint n_depths = track->max_depth + 1;
  gsize size = _planar_track_cells_size (track);
  CellsHeader *h;
  guint64 *offsets, *widths;
  guint32 *cells;
  gsize at = 0;

  g_clear_pointer (&track->depth_cells, planar_spill_free);
  if (size == 0)
    return;
  h = planar_spill_alloc (size, spill);
  h->n_depths = n_depths;
  offsets = h->words;
  widths = h->words + n_depths + 1;
  cells = header_cells (h);
  for (guint d = 0; d < n_depths; d++)
    {
      gsize begin = track->depth_offsets[d], n = track->depth_offsets[d + 1] - begin;
      const gint64 *starts = track->depth_starts + begin;
      guint64 span, width;
      gsize n_cells, k = 0;

      offsets[d] = at;
      if (n == 0)
        {
          /* One empty cell. */
          widths[d] = 1;
          cells[at++] = 0;
          cells[at++] = 0;
          continue;
        }
      /* Starts never decrease within a group; their distance from the
       * first fits 64 bits unsigned. */
      span = (guint64) starts[n - 1] - (guint64) starts[0];
      width = span / MAX (n / CELL_EVENTS, 1) + 1;
      n_cells = (gsize) (span / width) + 1;
      widths[d] = width;
      cells[at++] = 0;
      for (gsize i = 1; i < n_cells; i++)
        {
          guint64 limit = (guint64) i * width;

          while (k < n && (guint64) starts[k] - (guint64) starts[0] < limit)
            k++;
          cells[at++] = (guint32) k;
        }
      cells[at++] = (guint32) n;
    }
  offsets[n_depths] = at;
  track->depth_cells = h;
}

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
  g->visited = NULL;
  g->cells = NULL;
  g->cell_ps = 1;
  g->n_cells = 0;
  if (track->depth_cells != NULL)
    {
      const CellsHeader *h = track->depth_cells;
      const guint64 *offsets = h->words;

      g->cells = header_cells (h) + offsets[depth];
      g->n_cells = offsets[depth + 1] - offsets[depth] - 1;
      g->cell_ps = h->words[h->n_depths + 1 + depth];
    }
  /* Without an order array there is one depth and the group is the track. */
  return g->n > 0;
}

/* Counts @n entries read, for the tests. */
static inline void
visit (const DepthGroup *g,
       guint64           n)
{
  if (g->visited != NULL)
    *g->visited += n;
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

      visit (g, 1);
      if (event_end (group_event (g, mid)) < t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The last index in [k, n) whose start is < @limit, given that event k's
 * is. The directory's cell holding @limit bounds it; within the bounds it
 * gallops from the lower one, so skipping m events costs O(log m). */
static gsize
last_starting_before (const DepthGroup *g,
                      gsize             k,
                      gint64            limit)
{
  gsize lo = k, step = 1, hi = g->n;

  if (g->cells != NULL)
    {
      /* limit > starts[k] >= starts[0]. */
      guint64 cell = ((guint64) limit - (guint64) g->starts[0]) / g->cell_ps;

      visit (g, 2);
      if (cell >= g->n_cells)
        return g->n - 1;
      /* Events before cells[cell] start before the cell, so before
       * @limit; those from cells[cell + 1] on start after it. */
      if (g->cells[cell] > 0)
        lo = MAX (lo, (gsize) g->cells[cell] - 1);
      hi = MIN (hi, (gsize) g->cells[cell + 1]);
    }

  /* Find a bracket [lo, hi) with start(lo) < limit <= start(hi). */
  for (;;)
    {
      gsize probe = lo + step;

      if (probe >= hi || probe < lo)
        break;
      visit (g, 1);
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

      visit (g, 1);
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

  span.start_ps = g->starts[first];
  /* Ends do not decrease within a group that is galloped over, so the last
   * event's end is the block's; a damaged group only asks for single
   * events. */
  span.end_ps = event_end (group_event (g, last));
  span.first = group_index (g, first);
  span.count = last - first + 1;
  span.depth = depth;
  visit (g, 2);
  g_array_append_val (out, span);
}

static gsize
query_depth (const PlanarTrack *track,
             guint              depth,
             gint64             t0,
             gint64             t1,
             gint64             ps_per_px,
             GArray            *out,
             guint64           *visited)
{
  DepthGroup g;
  gsize k, before = out->len;
  gboolean sorted;

  if (!get_group (track, depth, &g))
    return 0;
  g.visited = visited;
  sorted = track->depth_ends_sorted[depth];
  k = first_visible (track, depth, &g, t0);

  while (k < g.n)
    {
      gint64 start = g.starts[k];
      gint64 column_end;
      gsize j;

      visit (&g, 1);
      if (start > t1)
        break;
      if (!sorted)
        {
          /* Damaged nesting: searched linearly, no skipping, one
           * rectangle per event. */
          visit (&g, 1);
          if (event_end (group_event (&g, k)) >= t0)
            append_span (out, &g, k, k, depth);
          k++;
          continue;
        }
      /* Ends never decrease here: every event from the first visible one
       * on meets the window. */

      /* The column the event starts in, as the time the next one begins.
       * Everything that starts before the window shares one column. */
      if (start < t0)
        column_end = t0;
      else
        {
          __int128 col = ((__int128) start - t0) / ps_per_px;
          __int128 next = (__int128) t0 + (col + 1) * ps_per_px;

          column_end = next > G_MAXINT64 ? G_MAXINT64 : (gint64) next;
        }

      /* The columns ahead are known: ask for their cells, and for the
       * starts and order entries the next one's cell points at, before
       * they are needed, so that the misses of several columns overlap
       * instead of following one another. */
      if (g.cells != NULL)
        {
          __int128 ahead = (__int128) column_end + 4 * (__int128) ps_per_px;
          __int128 next = (__int128) column_end + ps_per_px;

          if (ahead < G_MAXINT64)
            {
              guint64 c = ((guint64) (gint64) ahead - (guint64) g.starts[0]) / g.cell_ps;

              if (c < g.n_cells)
                __builtin_prefetch (&g.cells[c]);
            }
          if (next < G_MAXINT64)
            {
              guint64 c = ((guint64) (gint64) next - (guint64) g.starts[0]) / g.cell_ps;

              visit (&g, 1);
              if (c < g.n_cells && g.cells[c] < g.n)
                {
                  __builtin_prefetch (&g.starts[g.cells[c]]);
                  if (g.order != NULL)
                    __builtin_prefetch (&g.order[g.cells[c]]);
                }
            }
        }

      /* Events past the window's end stay out even when their column
       * straddles it. */
      j = last_starting_before (&g, k, t1 == G_MAXINT64 ? column_end : MIN (column_end, t1 + 1));
      visit (&g, 1);
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
_planar_track_query_spans_counted (const PlanarTrack *track,
                                   gint64             t0_ps,
                                   gint64             t1_ps,
                                   gint64             ps_per_px,
                                   guint              min_depth,
                                   guint              max_depth,
                                   GArray            *out,
                                   guint64           *visited)
{
  gsize n = 0;

  g_return_val_if_fail (track != NULL, 0);
  g_return_val_if_fail (out != NULL && g_array_get_element_size (out) == sizeof (PlanarSpan), 0);
  g_return_val_if_fail (ps_per_px > 0, 0);

  if (t1_ps < t0_ps || track->n_events == 0)
    return 0;
  max_depth = MIN (max_depth, track->max_depth);
  for (guint d = min_depth; d <= max_depth; d++)
    n += query_depth (track, d, t0_ps, t1_ps, ps_per_px, out, visited);
  return n;
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
  return _planar_track_query_spans_counted (track, t0_ps, t1_ps, ps_per_px, min_depth, max_depth, out, NULL);
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
