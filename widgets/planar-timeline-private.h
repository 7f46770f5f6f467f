/* planar-timeline-private.h: what the timeline's files share, and the
 * entry points its tests drive directly.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-timeline.h"
#include "planar-flow-layer.h"
#include "planar-timeline-input-private.h"
#include "planar-timeline-layout.h"
#include "planar-track-renderer.h"

G_BEGIN_DECLS

/* Geometry, in logical pixels. */
#define PLANAR_TIMELINE_AXIS_HEIGHT  28
/* The label column's usual width; dragging its edge makes it anything
 * from the least to the most width (remembered in the view state). */
#define PLANAR_TIMELINE_LABEL_WIDTH  220
#define PLANAR_TIMELINE_LABEL_WIDTH_MIN 120
#define PLANAR_TIMELINE_LABEL_WIDTH_MAX 800
/* Where a section's or host's title starts, after the expander. */
#define PLANAR_TIMELINE_TITLE_X      26
/* How near its edge, either side, a drag resizes the column. */
#define PLANAR_TIMELINE_LABEL_GRIP   4

/* Zoom steps: W/S multiply the window by 1/1.25 or 1.25, with Shift by 1/3
 * or 3; A/D move it by a tenth of its width, with Shift by half. */
#define PLANAR_TIMELINE_ZOOM_STEP      1.25
#define PLANAR_TIMELINE_ZOOM_STEP_FAST 3.0
#define PLANAR_TIMELINE_PAN_STEP       0.1
#define PLANAR_TIMELINE_PAN_STEP_FAST  0.5
/* The narrowest window, ps. */
#define PLANAR_TIMELINE_MIN_WINDOW_PS  G_GINT64_CONSTANT (1000)
/* planar_timeline_show_event() zooms in on an event narrower than this. */
#define PLANAR_TIMELINE_SHOW_MIN_PX    40
/* The narrowest mark of a find's hit. */
#define PLANAR_TIMELINE_HIT_TICK_WIDTH 3
/* zoom-to-selection leaves this share of the selection free on each side. */
#define PLANAR_TIMELINE_FIT_MARGIN     0.05

/* The colors of a frame, from the widget's foreground. */
typedef struct
{
  gboolean dark;
  GdkRGBA  fg;
  GdkRGBA  dim_fg;
  GdkRGBA  background;
  GdkRGBA  label_background;
  GdkRGBA  header_background;
  GdkRGBA  axis_background;
  GdkRGBA  separator;
  GdkRGBA  grid;
} PlanarTimelinePalette;

/* One frame of the tracks as a row draws into it. */
typedef struct
{
  /* Headers and labels; events go to the track renderer. */
  GtkSnapshot                 *snapshot;
  const PlanarTimelinePalette *palette;
  double                       width;
  double                       height;
  /* The content y of the viewport's top and bottom. */
  double                       top;
  double                       bottom;
  /* The label column's width, and the height of a track's name. */
  double                       left;
  int                          name_height;
} PlanarTimelineFrame;

/* What a kind of row does, as Tracy's TimelineItem and Perfetto's track
 * classes do (planar-timeline-rows.c holds one per kind: section header,
 * host header, track, counter, room kept for a derived line; a pending
 * host is a section header whose section is pending). Its height is the
 * layout's (view/). NULL members do nothing. */
typedef struct
{
  /* Draws @row, its top at widget @y. */
  void        (*draw)          (PlanarTimeline            *self,
                                const PlanarTimelineFrame *frame,
                                const PlanarTimelineRow   *row,
                                double                     y);
  /* The event at widget (@x, @y) on @row: TRUE with @ref set. */
  gboolean    (*pick)          (PlanarTimeline            *self,
                                const PlanarTimelineRow   *row,
                                double                     x,
                                double                     y,
                                PlanarEventRef            *ref);
  /* The tooltip of the row's label drawn with its top at widget @y, when
   * it is cut short there: the whole name (a header's with its subtitle,
   * which names the device and host). Returns: (transfer full)
   * (nullable). */
  char       *(*tooltip)       (PlanarTimeline            *self,
                                const PlanarTimelineRow   *row,
                                double                     y);
  /* A click on its label (a header folds or loads). */
  void        (*activate)      (PlanarTimeline            *self,
                                const PlanarTimelineRow   *row);
  /* Appends the row's parts of the secondary-click menu. */
  void        (*context_menu)  (PlanarTimeline            *self,
                                const PlanarTimelineRow   *row,
                                GMenu                     *menu);
} PlanarTimelineRowClass;

struct _PlanarTimeline
{
  GtkWidget             parent_instance;

  PlanarProfile        *profile;
  /* The label column's width (the view state's, or the usual one). */
  int                   label_width;
  gulong                loaded_handler;
  gulong                busy_handler;
  gulong                tracks_handler;
  gulong                fraction_handler;
  /* Whether the user moved the view while the profile was loading. */
  gboolean              view_touched;

  /* The visible range, selection, marks, tool and flow toggles. */
  PlanarTimelineView   *view;
  gboolean              show_grid;
  gboolean              hide_internal_events;

  GtkAdjustment        *hadjustment;
  GtkAdjustment        *vadjustment;
  guint                 hscroll_policy : 1;
  guint                 vscroll_policy : 1;
  /* Set while the timeline itself writes the adjustments. */
  guint                 updating_adjustments : 1;

  PlanarTimelineLayout *layout;
  /* What is hidden, collapsed and moved; shared with the layout. */
  PlanarViewState      *view_state;
  char                 *track_filter;
  PlanarTrackRenderer  *renderer;
  /* Rectangles the tracks layer drew last (bench/frame prints them). */
  guint                 n_spans_drawn;
  /* Track names; the axis and subtitles; event labels; section titles. */
  PangoLayout          *label_layout;
  PangoLayout          *small_layout;
  PangoLayout          *event_layout;
  PangoLayout          *title_layout;
  /* Reused by every frame: PlanarFlow. */
  GArray               *flows;
  /* The hits of a find, highlighted (nullable), and the spans of one
   * query, reused by every frame. */
  PlanarSearchHitIndex *search_hits;
  GArray               *hit_spans;

  /* The tracks as last drawn, reused while only the overlay (hover,
   * selection, drags) changes. */
  GskRenderNode        *tracks_node;
  gboolean              tracks_dirty;
  int                   cached_width;
  int                   cached_height;
  int                   cached_scale;
  GdkRGBA               cached_fg;

  GtkWidget            *tool_selector;
  /* The track and section menu (secondary click), and the Go to Time
   * popover with its entry and message. */
  GtkWidget            *context_menu;
  GtkWidget            *go_to_popover;
  GtkWidget            *go_to_entry;
  GtkWidget            *go_to_message;

  /* The pointer and the gestures (planar-timeline-input.c). */
  PlanarTimelineInput  *input;

  /* The time the last Go to Time went to, marked by a labelled line until
   * the next one (or another profile). */
  gboolean              has_go_to_marker;
  gint64                go_to_marker_ps;
};

static inline double
_planar_timeline_time_area_width (PlanarTimeline *self)
{
  return MAX (gtk_widget_get_width (GTK_WIDGET (self)) - self->label_width, 1);
}

static inline double
_planar_timeline_content_height (PlanarTimeline *self)
{
  return MAX (gtk_widget_get_height (GTK_WIDGET (self)) - PLANAR_TIMELINE_AXIS_HEIGHT, 0);
}

/* The vertical scroll offset. */
static inline double
_planar_timeline_vscroll (PlanarTimeline *self)
{
  return self->vadjustment != NULL ? gtk_adjustment_get_value (self->vadjustment) : 0.0;
}

/* The widget y of content y @content_y. */
static inline double
_planar_timeline_widget_y (PlanarTimeline *self,
                           double          content_y)
{
  return content_y + PLANAR_TIMELINE_AXIS_HEIGHT - _planar_timeline_vscroll (self);
}

/* planar-timeline.c */
double   _planar_timeline_x_for_time       (PlanarTimeline        *self,
                                            gint64                 t_ps);
gint64   _planar_timeline_time_for_x       (PlanarTimeline        *self,
                                            double                 x);
/* Multiplies the window's width by 1 / @factor around the time at widget
 * x @anchor_x (the middle when @anchor_x is negative). */
void     _planar_timeline_zoom             (PlanarTimeline        *self,
                                            double                 factor,
                                            double                 anchor_x);
/* Moves the window by @fraction of its width (negative: earlier). */
void     _planar_timeline_pan              (PlanarTimeline        *self,
                                            double                 fraction);
void     _planar_timeline_show_all         (PlanarTimeline        *self);
/* The widget x where the text of a header row whose top is at widget @y
 * ends: before the floating tool palette when beside it. */
double   _planar_timeline_header_text_end  (PlanarTimeline        *self,
                                            double                 y);
/* Whether widget @x, @y is on the label column's edge. */
gboolean _planar_timeline_on_label_edge    (PlanarTimeline        *self,
                                            double                 x,
                                            double                 y);
/* Sets the label column's width (clamped), remembering it in the view
 * state when @remember. */
void     _planar_timeline_set_label_width  (PlanarTimeline        *self,
                                            int                    width,
                                            gboolean               remember);
void     _planar_timeline_zoom_to_selection (PlanarTimeline       *self);
void     _planar_timeline_mark             (PlanarTimeline        *self);
void     _planar_timeline_clear_marks      (PlanarTimeline        *self);
/* Selects the event beside the selected one on its track and depth
 * (@direction 1: next, -1: previous), its parent (@direction 2) or its
 * first child (@direction -2), and scrolls it into view. */
void     _planar_timeline_step_selection   (PlanarTimeline        *self,
                                            int                    direction);

/* planar-timeline-input.c: the handlers' logic, callable with chosen
 * values by the tests. */
/* The zoom anchor of the keys: the pointer when it is over the tracks,
 * else the middle (-1). */
double   _planar_timeline_key_anchor       (PlanarTimeline        *self);
/* Sets the cursor of the tool in use. */
void     _planar_timeline_update_cursor    (PlanarTimeline        *self);
gboolean _planar_timeline_handle_scroll    (PlanarTimeline        *self,
                                            double                 dx,
                                            double                 dy,
                                            GdkModifierType        state,
                                            double                 pointer_x);
void     _planar_timeline_pinch_begin      (PlanarTimeline        *self,
                                            double                 anchor_x);
void     _planar_timeline_pinch_update     (PlanarTimeline        *self,
                                            double                 scale);
/* The event under widget (@x, @y): TRUE with @ref set, or FALSE. */
gboolean _planar_timeline_pick             (PlanarTimeline        *self,
                                            double                 x,
                                            double                 y,
                                            PlanarEventRef        *ref);
/* Selects every event inside the widget rectangle from (@x0, @y0) to
 * (@x1, @y1); with @add, joined to the current selection. */
void     _planar_timeline_select_box       (PlanarTimeline        *self,
                                            double                 x0,
                                            double                 y0,
                                            double                 x1,
                                            double                 y1,
                                            gboolean               add);
/* The widget y of the top of @depth's band on a track, or FALSE when the
 * track has no row. */
gboolean _planar_timeline_get_track_y      (PlanarTimeline        *self,
                                            guint                  trace,
                                            guint                  plane,
                                            guint                  track,
                                            guint                  depth,
                                            double                *y);
/* Marks the tracks for redrawing on the next frame. */
void     _planar_timeline_invalidate_tracks (PlanarTimeline       *self);
/* The view as the renderer sees it. */
void     _planar_timeline_get_track_view   (PlanarTimeline        *self,
                                            PlanarTrackView       *view);
/* Sets the vertical scroll offset, clamped. */
void     _planar_timeline_scroll_to        (PlanarTimeline        *self,
                                            double                 value);
/* Lays the profile out again (tracks that finished loading, a section
 * collapsed) and updates the adjustments. */
void     _planar_timeline_refresh_layout   (PlanarTimeline        *self);
/* Emits "host-requested" for a pending host's section. */
void     _planar_timeline_request_host     (PlanarTimeline        *self,
                                            guint                  section);
/* The track @row shows, and its plane. */
const PlanarTrack *
         _planar_timeline_row_track        (PlanarTimeline          *self,
                                            const PlanarTimelineRow *row,
                                            const PlanarPlane      **plane);

/* planar-timeline-tracks.c */
void     _planar_timeline_class_add_track_actions (GtkWidgetClass *widget_class);
void     _planar_timeline_init_tracks      (PlanarTimeline        *self);
void     _planar_timeline_dispose_tracks   (PlanarTimeline        *self);
/* Follows a new view state: the layout reads it, and its changes lay the
 * tracks out again. */
void     _planar_timeline_watch_view_state (PlanarTimeline        *self,
                                            PlanarViewState       *old_state);
/* Places the popovers; from size_allocate. */
void     _planar_timeline_allocate_popovers (PlanarTimeline       *self);
/* Opens the track and section menu for the row at widget (@x, @y). */
gboolean _planar_timeline_popup_context_menu (PlanarTimeline      *self,
                                              double               x,
                                              double               y);
/* The parts of the secondary-click menu of a track or counter (hide it,
 * then its section's part), a section and a host. */
void     _planar_timeline_track_menu       (PlanarTimeline          *self,
                                            const PlanarTimelineRow *row,
                                            GMenu                   *menu);
void     _planar_timeline_section_menu     (PlanarTimeline          *self,
                                            const PlanarTimelineRow *row,
                                            GMenu                   *menu);
void     _planar_timeline_host_menu        (PlanarTimeline          *self,
                                            const PlanarTimelineRow *row,
                                            GMenu                   *menu);
/* Puts section @section before section @before (the number of sections:
 * last), in the view state's order. */
void     _planar_timeline_move_section     (PlanarTimeline        *self,
                                            guint                  section,
                                            guint                  before);
/* The section whose header a drop at widget @y lands before. */
guint    _planar_timeline_drop_target      (PlanarTimeline        *self,
                                            double                 y);

/* planar-timeline-rows.c */
const PlanarTimelineRowClass *
         _planar_timeline_row_class        (const PlanarTimelineRow *row);

/* planar-timeline-draw.c */
void     _planar_timeline_draw_section_row (PlanarTimeline            *self,
                                            const PlanarTimelineFrame *frame,
                                            const PlanarTimelineRow   *row,
                                            double                     y);
void     _planar_timeline_draw_host_row    (PlanarTimeline            *self,
                                            const PlanarTimelineFrame *frame,
                                            const PlanarTimelineRow   *row,
                                            double                     y);
void     _planar_timeline_draw_track_row   (PlanarTimeline            *self,
                                            const PlanarTimelineFrame *frame,
                                            const PlanarTimelineRow   *row,
                                            double                     y);
void     _planar_timeline_draw_counter_row (PlanarTimeline            *self,
                                            const PlanarTimelineFrame *frame,
                                            const PlanarTimelineRow   *row,
                                            double                     y);
/* Room kept for a derived line to come: its name, dimmed. */
void     _planar_timeline_draw_reserved_row (PlanarTimeline           *self,
                                             const PlanarTimelineFrame *frame,
                                             const PlanarTimelineRow  *row,
                                             double                    y);
/* Makes the text layouts from the widget's font, unless they are made. */
void     _planar_timeline_ensure_layouts   (PlanarTimeline        *self);
/* Drops the text layouts, made again when next needed from the widget's
 * font as it is then (call when the font changes). */
void     _planar_timeline_drop_layouts     (PlanarTimeline        *self);
/* The tracks and the overlay, drawn afresh (for export). */
void     _planar_timeline_draw_view        (PlanarTimeline        *self,
                                            GtkSnapshot           *snapshot,
                                            int                    width,
                                            int                    height);
void     _planar_timeline_snapshot         (GtkWidget             *widget,
                                            GtkSnapshot           *snapshot);

/* planar-timeline-hits.c */
/* Outlines the find's hits in the rows in view; a hit too narrow to
 * outline gets a bar. */
void     _planar_timeline_draw_hits        (PlanarTimeline        *self,
                                            GtkSnapshot           *snapshot,
                                            double                 width);

/* planar-timeline-input.c */
gboolean _planar_timeline_pick_track_row   (PlanarTimeline          *self,
                                            const PlanarTimelineRow *row,
                                            double                   x,
                                            double                   y,
                                            PlanarEventRef          *ref);
void     _planar_timeline_activate_section_row (PlanarTimeline          *self,
                                                const PlanarTimelineRow *row);
void     _planar_timeline_activate_host_row (PlanarTimeline          *self,
                                             const PlanarTimelineRow *row);
/* The tooltip of the label at widget (@x, @y) (a header's title, pinned
 * or not, or a track's name in the label column) when it is drawn cut
 * short, else NULL. Returns: (transfer full) (nullable). */
char    *_planar_timeline_dup_label_tooltip (PlanarTimeline       *self,
                                             double                x,
                                             double                y);
/* Adds the event controllers and the tooltip. */
void     _planar_timeline_init_input       (PlanarTimeline        *self);

/* planar-timeline-actions.c */
void     _planar_timeline_class_add_actions (GtkWidgetClass       *widget_class);
void     _planar_timeline_update_actions   (PlanarTimeline        *self);

G_END_DECLS
