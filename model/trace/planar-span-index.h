/* planar-span-index.h: level-of-detail queries over one track.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace.h"

G_BEGIN_DECLS

/* One rectangle to draw: either exactly one event (@count == 1, the event
 * is track->events[@first]) or a block standing for @count events of one
 * depth too narrow to draw apart, from the first one's start to the last
 * one's end. Times in ps since the profile start. */
typedef struct
{
  gint64  start_ps;
  gint64  end_ps;
  /* Index in the track's events of the first event the rectangle covers. */
  guint64 first;
  guint64 count;
  guint   depth;
  /* The metadata of event @first (track->events[@first].metadata), whose
   * color a block takes: read by the query, which has the event at hand,
   * so that drawing a zoomed-out frame does not look each one up again. */
  guint32 metadata;
} PlanarSpan;

/* Appends to @out (a GArray of PlanarSpan) the rectangles of @track's
 * events at depths [@min_depth, @max_depth] that meet [@t0_ps, @t1_ps], at
 * @ps_per_px picoseconds per pixel column (columns start at @t0_ps).
 *
 * At most two rectangles start in any (depth, column); together they cover
 * every event that meets the window. When no column holds the start of
 * more than one event, the rectangles are exactly those events. The cost
 * is O(log n) per rectangle, whatever the number of events; the index is
 * built at load and never changes, so any number of threads may query it.
 * Returns the number of rectangles appended. */
gsize planar_track_query_spans (const PlanarTrack *track,
                                gint64             t0_ps,
                                gint64             t1_ps,
                                gint64             ps_per_px,
                                guint              min_depth,
                                guint              max_depth,
                                GArray            *out);

/* Calls @func for every event of @track at any depth that meets
 * [@t0_ps, @t1_ps], depth by depth, in start order within a depth. Stops
 * when @func returns FALSE. O(log n + matches). */
typedef gboolean (*PlanarEventFunc) (const PlanarTrack *track,
                                     gsize              index,
                                     gpointer           user_data);

void  planar_track_foreach_in_range (const PlanarTrack *track,
                                     gint64             t0_ps,
                                     gint64             t1_ps,
                                     PlanarEventFunc    func,
                                     gpointer           user_data);

/* How many events of @track start in [@t0_ps, @t1_ps] (the track's events
 * are in start order). O(log n). */
gsize planar_track_count_starting_in (const PlanarTrack *track,
                                      gint64             t0_ps,
                                      gint64             t1_ps);

/* Self time of the event at @index: its duration less that of its direct
 * children (each clipped to the event's end). O(log n). */
gint64 planar_track_get_self_time (const PlanarTrack *track,
                                   gsize              index);

G_END_DECLS
