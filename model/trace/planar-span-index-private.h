/* planar-span-index-private.h: the span index's directory, for the loader
 * that builds it and for the tests that count what a query reads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-span-index.h"
#include "planar-spill.h"

G_BEGIN_DECLS

/* Bytes that _planar_track_build_cells() will allocate for @track, whose
 * depth groups (depth_offsets, depth_starts) are built. */
gsize _planar_track_cells_size  (const PlanarTrack *track);
/* Builds @track's depth_cells from its depth groups. O(events). */
void  _planar_track_build_cells (PlanarTrack       *track,
                                 PlanarSpillMode    spill);

/* How a query walks a depth group: column by column from event to event
 * (each column's entries read one after another), or a batch of columns
 * at once (their entries asked for together, so that the misses overlap),
 * which a zoomed-out window with more events than columns takes. Both give
 * the same rectangles; the tests compare them. */
typedef enum
{
  PLANAR_SPAN_QUERY_AUTO,
  PLANAR_SPAN_QUERY_WALK,
  PLANAR_SPAN_QUERY_COLUMNS,
} PlanarSpanQueryPath;

/* planar_track_query_spans() by @path (PLANAR_SPAN_QUERY_COLUMNS where it
 * can: a group with damaged nesting, or a window reaching G_MAXINT64, is
 * walked), adding to @visited, when given, the number of index entries
 * (starts, directory cells, order entries and event records) it read. */
gsize _planar_track_query_spans_path (const PlanarTrack   *track,
                                      gint64               t0_ps,
                                      gint64               t1_ps,
                                      gint64               ps_per_px,
                                      guint                min_depth,
                                      guint                max_depth,
                                      PlanarSpanQueryPath  path,
                                      GArray              *out,
                                      guint64             *visited);

/* planar_track_query_spans(), adding to @visited the number of index
 * entries (starts, directory cells, event records) it read. */
gsize _planar_track_query_spans_counted (const PlanarTrack *track,
                                         gint64             t0_ps,
                                         gint64             t1_ps,
                                         gint64             ps_per_px,
                                         guint              min_depth,
                                         guint              max_depth,
                                         GArray            *out,
                                         guint64           *visited);

G_END_DECLS
