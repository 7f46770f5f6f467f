/* planar-timeline.h: the timeline of a profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "planar-profile.h"
#include "planar-search-hits.h"
#include "planar-selection.h"
#include "planar-timeline-view.h"
#include "planar-view-state.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_TIMELINE (planar_timeline_get_type ())
G_DECLARE_FINAL_TYPE (PlanarTimeline, planar_timeline, PLANAR, TIMELINE, GtkWidget)

/* The timeline draws every track of a profile, one section per plane, over
 * a window of time (PlanarTimeline:start-ps to :end-ps, ps since the
 * profile start). It implements GtkScrollable: the vertical adjustment
 * scrolls the tracks and the horizontal one follows the window, so it
 * belongs in a GtkScrolledWindow. Every command is a "timeline." action
 * (see planar-shortcuts.c for the keys). Which tracks and sections show,
 * folded or not and in which order, is a PlanarViewState the application
 * may keep per profile (PlanarTimeline:view-state); a right click on the
 * labels, PlanarTracksPopover and the actions change it. */

GtkWidget          *planar_timeline_new              (void);

/* Returns: (transfer none) (nullable). */
PlanarProfile      *planar_timeline_get_profile      (PlanarTimeline     *self);
/* What the timeline shows now (visible range, selection, marks, tool, flow
 * toggles): the object the axis, details pane and find bar follow. The
 * timeline's own setters and properties below go through it. Returns:
 * (transfer none). */
PlanarTimelineView *planar_timeline_get_timeline_view (PlanarTimeline    *self);
/* @profile may still be loading: tracks appear as they are ready, and the
 * whole profile is shown once it has loaded. */
void                planar_timeline_set_profile      (PlanarTimeline     *self,
                                                      PlanarProfile      *profile);

/* Lays the profile's tracks out again: for whoever learns that tracks
 * changed (a loader's tracks-changed), the timeline's own poll aside. */
void                planar_timeline_relayout         (PlanarTimeline     *self);

gint64              planar_timeline_get_start_ps     (PlanarTimeline     *self);
gint64              planar_timeline_get_end_ps       (PlanarTimeline     *self);
/* Shows [@start_ps, @end_ps], kept within the profile and at least a
 * nanosecond wide. */
void                planar_timeline_set_view         (PlanarTimeline     *self,
                                                      gint64              start_ps,
                                                      gint64              end_ps);

PlanarTimelineTool  planar_timeline_get_tool         (PlanarTimeline     *self);
void                planar_timeline_set_tool         (PlanarTimeline     *self,
                                                      PlanarTimelineTool  tool);

/* Returns: (transfer none) (nullable). */
PlanarSelection    *planar_timeline_get_selection    (PlanarTimeline     *self);
/* @selection: (nullable): NULL or an empty selection clears it. */
void                planar_timeline_set_selection    (PlanarTimeline     *self,
                                                      PlanarSelection    *selection);

/* Puts the event @ref points to in view, keeping the zoom: the window is
 * centred on it when it lies outside, and its row scrolled into view. */
void                planar_timeline_reveal_event     (PlanarTimeline              *self,
                                                      const PlanarEventRef        *ref);

/* Brings the event @ref points to on screen as a find does: when it is
 * narrower than a few dozen pixels, the view zooms in around it until it
 * is a tenth of the view wide; otherwise the zoom is kept, and the view
 * moves only when the event is outside it or cut by its edge. Its row is
 * scrolled into view. */
void                planar_timeline_show_event       (PlanarTimeline              *self,
                                                      const PlanarEventRef        *ref);

/* The hits of a find, highlighted on the tracks: each hit in view is
 * outlined, or marked with a bar when too narrow to outline, at any zoom.
 * @hits: (nullable): NULL for none; referenced. */
void                planar_timeline_set_search_hits  (PlanarTimeline       *self,
                                                      PlanarSearchHitIndex *hits);
/* Returns: (transfer none) (nullable). */
PlanarSearchHitIndex *planar_timeline_get_search_hits (PlanarTimeline      *self);

gboolean            planar_timeline_get_show_flows   (PlanarTimeline     *self);
void                planar_timeline_set_show_flows   (PlanarTimeline     *self,
                                                      gboolean            show_flows);
/* Flow categories are XProf's ContextType numbers (0 to 63); a hidden one
 * is not drawn even when flows are shown (the selected event's flows
 * always are). */
gboolean            planar_timeline_get_flow_category_visible (PlanarTimeline *self,
                                                               guint           category);
void                planar_timeline_set_flow_category_visible (PlanarTimeline *self,
                                                               guint           category,
                                                               gboolean        visible);

gboolean            planar_timeline_get_hide_internal_events (PlanarTimeline *self);
/* Hides events whose metadata the model marks internal (drawn one by one;
 * a folded block of narrow events still shows where they are). */
void                planar_timeline_set_hide_internal_events (PlanarTimeline *self,
                                                              gboolean        hide_internal_events);
gboolean            planar_timeline_get_show_grid    (PlanarTimeline     *self);
void                planar_timeline_set_show_grid    (PlanarTimeline     *self,
                                                      gboolean            show_grid);

/* What is hidden, collapsed and moved. A new profile starts with a new,
 * default state; set the remembered one after the profile. Returns:
 * (transfer none). */
PlanarViewState    *planar_timeline_get_view_state   (PlanarTimeline     *self);
/* @state: (nullable): NULL for a new, default state. */
void                planar_timeline_set_view_state   (PlanarTimeline     *self,
                                                      PlanarViewState    *state);
/* Shows only the tracks whose name holds the filter (any case), and the
 * sections whose title does; not remembered. Returns: (transfer none). */
const char         *planar_timeline_get_track_filter (PlanarTimeline     *self);
void                planar_timeline_set_track_filter (PlanarTimeline     *self,
                                                      const char         *filter);
/* Centres the window on @t_ps (ps since the profile start), keeping its
 * width; at overview zoom (the window shows the whole profile) zooms in to
 * 1% of the window, at least 1 µs. Leaves a marker line at @t_ps. */
void                planar_timeline_go_to_time       (PlanarTimeline     *self,
                                                      gint64              t_ps);
/* Whether the view shows the marker line the last Go to Time left (drawn
 * at *@t_ps with that time as its label, until the next one). */
gboolean            planar_timeline_get_go_to_marker (PlanarTimeline     *self,
                                                      gint64             *t_ps);

typedef enum
{
  PLANAR_TIMELINE_EXPORT_PNG,
  PLANAR_TIMELINE_EXPORT_SVG,
} PlanarTimelineExportFormat;

/* Draws the view as it is on screen (tracks, axis, selection and marks, at
 * the widget's size) into @file, written aside and renamed over it. */
gboolean            planar_timeline_export           (PlanarTimeline     *self,
                                                      GFile              *file,
                                                      PlanarTimelineExportFormat format,
                                                      GError            **error);

/* Marks are time ranges the user pinned with timeline.mark. Returns the
 * number of marks; @start_ps and @end_ps may be NULL. */
guint               planar_timeline_get_n_marks      (PlanarTimeline     *self);
void                planar_timeline_get_mark         (PlanarTimeline     *self,
                                                      guint               index,
                                                      gint64             *start_ps,
                                                      gint64             *end_ps);

G_END_DECLS
