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
