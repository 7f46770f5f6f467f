/* planar-timeline-view.h: what a timeline shows now (the visible range,
 * the selection, the marks, the tool, the flow toggles), shared by the
 * widgets that follow it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "planar-flows.h"
#include "planar-selection.h"

G_BEGIN_DECLS

/* What a drag with the first button does. */
typedef enum
{
  /* Click selects an event (Control adds), drag selects a box. */
  PLANAR_TIMELINE_TOOL_SELECT,
  /* Drag moves the view. */
  PLANAR_TIMELINE_TOOL_PAN,
  /* Drag a time range to zoom into it. */
  PLANAR_TIMELINE_TOOL_ZOOM,
  /* Drag an interval, snapped to event edges, to measure it. */
  PLANAR_TIMELINE_TOOL_TIMING,
} PlanarTimelineTool;

GType planar_timeline_tool_get_type (void) G_GNUC_CONST;
#define PLANAR_TYPE_TIMELINE_TOOL (planar_timeline_tool_get_type ())

/* A window of time, ps since the profile start. */
typedef struct
{
  gint64 start_ps;
  gint64 end_ps;
} PlanarTimeRange;

GType planar_time_range_get_type (void) G_GNUC_CONST;
#define PLANAR_TYPE_TIME_RANGE (planar_time_range_get_type ())

#define PLANAR_TYPE_TIMELINE_VIEW (planar_timeline_view_get_type ())
G_DECLARE_FINAL_TYPE (PlanarTimelineView, planar_timeline_view, PLANAR, TIMELINE_VIEW, GObject)

/* The state of one timeline that more than one widget reads: the timeline
 * draws it and changes it on input, and the axis, the details pane and the
 * find bar follow it through notify::visible-range, notify::selection,
 * notify::tool, notify::show-flows, notify::hidden-flow-categories and
 * notify::n-marks. Every setter compares, assigns and notifies only on a
 * change. It knows nothing of the profile's extent: whoever sets the range
 * keeps it inside the profile (PlanarTimeline does). GLib only. */

PlanarTimelineView *planar_timeline_view_new                   (void);

/* The visible window. Setting a range whose end is before its start
 * swaps them. */
void                planar_timeline_view_get_visible_range     (PlanarTimelineView *self,
                                                                gint64             *start_ps,
                                                                gint64             *end_ps);
gint64              planar_timeline_view_get_start_ps          (PlanarTimelineView *self);
gint64              planar_timeline_view_get_end_ps            (PlanarTimelineView *self);
/* Returns whether the range changed. */
gboolean            planar_timeline_view_set_visible_range     (PlanarTimelineView *self,
                                                                gint64              start_ps,
                                                                gint64              end_ps);

/* Returns: (transfer none) (nullable). */
PlanarSelection    *planar_timeline_view_get_selection         (PlanarTimelineView *self);
/* @selection: (nullable): NULL or an empty selection clears it. Returns
 * whether it changed. */
gboolean            planar_timeline_view_set_selection         (PlanarTimelineView *self,
                                                                PlanarSelection    *selection);

PlanarTimelineTool  planar_timeline_view_get_tool              (PlanarTimelineView *self);
gboolean            planar_timeline_view_set_tool              (PlanarTimelineView *self,
                                                                PlanarTimelineTool  tool);

gboolean            planar_timeline_view_get_show_flows        (PlanarTimelineView *self);
gboolean            planar_timeline_view_set_show_flows        (PlanarTimelineView *self,
                                                                gboolean            show_flows);
/* One bit per flow category (XProf's ContextType, below
 * PLANAR_FLOW_N_CATEGORIES), set when hidden. */
guint64             planar_timeline_view_get_hidden_flow_categories (PlanarTimelineView *self);
gboolean            planar_timeline_view_get_flow_category_visible  (PlanarTimelineView *self,
                                                                     guint               category);
gboolean            planar_timeline_view_set_flow_category_visible  (PlanarTimelineView *self,
                                                                     guint               category,
                                                                     gboolean            visible);

/* Marks are time ranges the user pinned. Toggling a range that is marked
 * takes its mark away, otherwise adds one; returns whether it is marked
 * now. */
gboolean            planar_timeline_view_toggle_mark           (PlanarTimelineView *self,
                                                                gint64              start_ps,
                                                                gint64              end_ps);
void                planar_timeline_view_clear_marks           (PlanarTimelineView *self);
guint               planar_timeline_view_get_n_marks           (PlanarTimelineView *self);
/* @start_ps and @end_ps may be NULL. */
void                planar_timeline_view_get_mark              (PlanarTimelineView *self,
                                                                guint               index,
                                                                gint64             *start_ps,
                                                                gint64             *end_ps);

G_END_DECLS
