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
 * Those few entries are still far apart: a zoomed-out column reads its
 * cell, the starts in it, the order entries and the records of its first
 * and last events, each on its own page of an index that at 10^8 events
 * lives in gigabytes of file-backed spill mappings, so that each load is
 * a TLB miss and a page walk (a long one under virtualization). Walking
 * from column to column, each column's loads wait for the one before. A
 * window with more events than columns is answered a batch of columns at
 * a time instead (query_columns): the columns' boundaries are known in
 * advance, so each step (the cells, the starts in them, the order entries,
 * the records) is asked for the whole batch before any of it is used, and
 * the misses of a batch overlap. The rectangles are the walk's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-span-index-private.h"

/* Events per directory cell, on average. */
#define CELL_EVENTS 16

/* Columns a batch of query_columns() asks for at once: enough misses in
 * flight to fill the memory system, and its arrays stay on the stack. */
#define BATCH 64

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
  /* On the heap, whatever the trace spills: a zoomed-out frame reads a
   * cell for every column of every group, and at 0.25 bytes an event (25
   * MB at 10^8) it is worth keeping out of the spill files' pages, which
   * the kernel may drop and read back. */
  (void) spill;
  h = planar_spill_alloc (size, PLANAR_SPILL_NEVER);
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

static inline void
append_span (GArray           *out,
             const DepthGroup *g,
             gsize             first,
             gsize             last,
             guint             depth)
{
  PlanarSpan *slot, span;

  span.start_ps = g->starts[first];
  /* Ends do not decrease within a group that is galloped over, so the last
   * event's end is the block's; a damaged group only asks for single
   * events. */
  span.end_ps = event_end (group_event (g, last));
  span.first = group_index (g, first);
  span.count = last - first + 1;
  span.depth = depth;
  span.metadata = g->events[span.first].metadata;
  visit (g, 3);
  /* The array grows by doubling (g_array_set_size() keeps its
   * reservation); writing the slot costs less than a call that copies. */
  g_array_set_size (out, out->len + 1);
  slot = &g_array_index (out, PlanarSpan, out->len - 1);
  *slot = span;
}

/* The rectangles of the events [@first, @last] that start in one column:
 * one, or, when the last is at least a column wide, the narrow ones folded
 * and that one apart. A wide event is the last to start in its column (the
 * next one starts after it ends, unless it is a partial overlap): kept
 * apart, it stays recognisable. */
static inline void
append_column (GArray           *out,
               const DepthGroup *g,
               gsize             first,
               gsize             last,
               gint64            ps_per_px,
               guint             depth)
{
  visit (g, 1);
  if (last == first)
    append_span (out, g, first, first, depth);
  else if (group_event (g, last)->duration_ps >= ps_per_px)
    {
      append_span (out, g, first, last - 1, depth);
      append_span (out, g, last, last, depth);
    }
  else
    append_span (out, g, first, last, depth);
}

/* How many of the group's events start before @limit: the first of
 * [@lo, @hi) whose start is >= @limit, given that those before @lo start
 * before it and those from @hi on do not. */
static inline gsize
rank_in (const DepthGroup *g,
         gsize             lo,
         gsize             hi,
         gint64            limit)
{
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      visit (g, 1);
      if (g->starts[mid] < limit)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The bounds of the rank of @limit that the directory gives: [*@lo, *@hi],
 * and the cell to read in @cell (G_MAXUINT64 when none is needed). */
static inline void
rank_bounds (const DepthGroup *g,
             gint64            limit,
             guint64          *cell,
             gsize            *lo,
             gsize            *hi)
{
  *cell = G_MAXUINT64;
  if (limit <= g->starts[0])
    *lo = *hi = 0;
  else
    {
      guint64 c = ((guint64) limit - (guint64) g->starts[0]) / g->cell_ps;

      /* The last start lies in the last cell, before @limit. */
      if (c >= g->n_cells)
        *lo = *hi = g->n;
      else
        {
          *cell = c;
          *lo = 0;
          *hi = g->n;
        }
    }
}

/* The group's rectangles in [@t0, @t1] (@t1 < G_MAXINT64) from event @k0
 * on (the first visible one), a batch of columns at a time: the same
 * rectangles as query_depth's walk. Column i (0 <= i < n_columns) holds
 * the starts in [t0 + i ps, t0 + (i + 1) ps), cut at t1; column -1 those
 * before t0 (of events still open at t0). With R(i) the number of events
 * that start before column i (R(n_columns): before t1 + 1), column i - 1
 * is the events [max (k0, R(i - 1)), R(i)). */
static void
query_columns (const DepthGroup *g,
               guint             depth,
               gsize             k0,
               gint64            t0,
               gint64            t1,
               gint64            ps_per_px,
               guint64           n_columns,
               GArray           *out)
{
  gint64 limit[BATCH];
  guint64 cell[BATCH];
  gsize hi[BATCH];
  /* The ranks of three batches in turn: the one being searched, the one
   * whose records are asked for, and the one whose rectangles are made
   * (each step a batch behind the one before, so that what it reads has
   * had a batch's time to arrive). */
  gsize rank[3][BATCH];
  guint count[3] = { 0, 0, 0 };
  gsize prev = k0;
  guint64 n_batches = (n_columns + 1 + BATCH - 1) / BATCH;

  for (guint64 batch = 0; batch < n_batches + 2; batch++)
    {
      gsize *lo = rank[batch % 3];
      const gsize *asked = rank[(batch + 2) % 3];
      const gsize *made = rank[(batch + 1) % 3];
      guint64 base = batch * BATCH;
      guint m = batch < n_batches ? (guint) MIN ((guint64) BATCH, n_columns + 1 - base) : 0;

      /* The boundaries, and their cells asked for. */
      for (guint b = 0; b < m; b++)
        {
          guint64 i = base + b;

          limit[b] = i == 0 ? t0 : i >= n_columns ? t1 + 1 : t0 + (gint64) (i * (guint64) ps_per_px);
          rank_bounds (g, limit[b], &cell[b], &lo[b], &hi[b]);
          if (cell[b] != G_MAXUINT64)
            __builtin_prefetch (&g->cells[cell[b]]);
        }
      /* The cells read; the starts they point at asked for. */
      for (guint b = 0; b < m; b++)
        if (cell[b] != G_MAXUINT64)
          {
            visit (g, 2);
            lo[b] = g->cells[cell[b]];
            hi[b] = g->cells[cell[b] + 1];
            if (lo[b] < g->n)
              {
                __builtin_prefetch (&g->starts[lo[b]]);
                __builtin_prefetch (&g->starts[lo[b] + (hi[b] - lo[b]) / 2]);
              }
          }
      /* The ranks; the order entries of the events on either side asked
       * for. */
      for (guint b = 0; b < m; b++)
        {
          lo[b] = rank_in (g, lo[b], hi[b], limit[b]);
          if (g->order != NULL)
            __builtin_prefetch (&g->order[lo[b] > 0 ? lo[b] - 1 : 0]);
        }
      count[batch % 3] = m;

      /* The batch before: the records of its columns' last events and of
       * the next ones' first events asked for. */
      for (guint b = 0; b < count[(batch + 2) % 3]; b++)
        {
          gsize r = asked[b];

          if (r > 0)
            __builtin_prefetch (group_event (g, r - 1));
          if (r < g->n)
            __builtin_prefetch (group_event (g, r));
        }

      /* The batch before that: its rectangles. */
      for (guint b = 0; b < count[(batch + 1) % 3]; b++)
        {
          gsize r = made[b];

          if (r > prev)
            {
              append_column (out, g, prev, r - 1, ps_per_px, depth);
              prev = r;
            }
        }
      count[(batch + 1) % 3] = 0;
    }
}

/* The most columns query_columns() takes: a forced one (the tests) and
 * one it picks. */
#define MAX_COLUMNS      (1 << 20)
#define MAX_AUTO_COLUMNS (1 << 16)

static gsize
query_depth (const PlanarTrack   *track,
             guint                depth,
             gint64               t0,
             gint64               t1,
             gint64               ps_per_px,
             PlanarSpanQueryPath  path,
             GArray              *out,
             guint64             *visited)
{
  DepthGroup g;
  gsize k, before = out->len;
  gboolean sorted;

  if (!get_group (track, depth, &g))
    return 0;
  g.visited = visited;
  sorted = track->depth_ends_sorted[depth];
  k = first_visible (track, depth, &g, t0);

  /* More events in the window than columns: most columns hold some, and
   * the batches of columns find them with their misses overlapping. */
  if (path != PLANAR_SPAN_QUERY_WALK && sorted && g.cells != NULL && t1 < G_MAXINT64 && k < g.n)
    {
      guint64 n_columns = ((guint64) t1 - (guint64) t0) / (guint64) ps_per_px + 1;
      gboolean wide = FALSE;

      if (path == PLANAR_SPAN_QUERY_COLUMNS)
        wide = n_columns <= MAX_COLUMNS;
      else if (n_columns <= MAX_AUTO_COLUMNS)
        {
          guint64 cell;
          gsize lo, hi;

          rank_bounds (&g, t1 + 1, &cell, &lo, &hi);
          if (cell != G_MAXUINT64)
            {
              visit (&g, 2);
              lo = g.cells[cell];
              hi = g.cells[cell + 1];
            }
          lo = rank_in (&g, lo, hi, t1 + 1);
          wide = lo > k && lo - k >= n_columns;
        }
      if (wide)
        {
          query_columns (&g, depth, k, t0, t1, ps_per_px, n_columns, out);
          return out->len - before;
        }
    }

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
      append_column (out, &g, k, j, ps_per_px, depth);
      k = j + 1;
    }
  return out->len - before;
}

gsize
_planar_track_query_spans_path (const PlanarTrack   *track,
                                gint64               t0_ps,
                                gint64               t1_ps,
                                gint64               ps_per_px,
                                guint                min_depth,
                                guint                max_depth,
                                PlanarSpanQueryPath  path,
                                GArray              *out,
                                guint64             *visited)
{
  gsize n = 0;

  g_return_val_if_fail (track != NULL, 0);
  g_return_val_if_fail (out != NULL && g_array_get_element_size (out) == sizeof (PlanarSpan), 0);
  g_return_val_if_fail (ps_per_px > 0, 0);

  if (t1_ps < t0_ps || track->n_events == 0)
    return 0;
  max_depth = MIN (max_depth, track->max_depth);
  for (guint d = min_depth; d <= max_depth; d++)
    n += query_depth (track, d, t0_ps, t1_ps, ps_per_px, path, out, visited);
  return n;
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
  return _planar_track_query_spans_path (track, t0_ps, t1_ps, ps_per_px, min_depth, max_depth,
                                         PLANAR_SPAN_QUERY_AUTO, out, visited);
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
  return _planar_track_query_spans_path (track, t0_ps, t1_ps, ps_per_px, min_depth, max_depth,
                                         PLANAR_SPAN_QUERY_AUTO, out, NULL);
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

/* The first of @track's events whose start is >= @t (n_events when none). */
static gsize
first_starting_at (const PlanarTrack *track,
                   gint64             t)
{
  gsize lo = 0, hi = track->n_events;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (track->events[mid].start_ps < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gsize
planar_track_count_starting_in (const PlanarTrack *track,
                                gint64             t0_ps,
                                gint64             t1_ps)
{
  gsize first;

  g_return_val_if_fail (track != NULL, 0);

  if (t1_ps < t0_ps)
    return 0;
  first = first_starting_at (track, t0_ps);
  return (t1_ps == G_MAXINT64 ? track->n_events : first_starting_at (track, t1_ps + 1)) - first;
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
