/* planar-track-renderer.h: draws the tracks' events for one frame.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "planar-counters.h"
#include "planar-trace.h"

G_BEGIN_DECLS

/* The window of time a frame shows and where it goes, in logical pixels. */
typedef struct
{
  gint64   t0_ps;
  gint64   t1_ps;
  /* Where t0 is drawn, and how wide the window is. */
  float    x;
  float    width;
  /* Device pixels per logical pixel (2 on a HiDPI screen). */
  int      scale;
  gboolean dark;
} PlanarTrackView;

/* Logical pixels per ps of @view. */
static inline double
planar_track_view_px_per_ps (const PlanarTrackView *view)
{
  return (double) view->width / (double) MAX (view->t1_ps - view->t0_ps, 1);
}

/* The ps a device pixel column of @view spans, as the span index wants it
 * (at least 1). */
gint64 planar_track_view_ps_per_column (const PlanarTrackView *view);

/* Everything one frame reuses from the last instead of allocating it again:
 * the spans arrays, the label layout, the color of every event name, its
 * worker threads. One per widget; call it from the main thread only.
 *
 * Rectangles are not render nodes: a frame fills them into one image of the
 * tracks area, at device resolution, which becomes a single render node.
 * A zoomed-out frame draws tens of thousands of rectangles, and a node each
 * would make the renderer's cost follow them instead of the pixels. */
typedef struct _PlanarTrackRenderer PlanarTrackRenderer;

PlanarTrackRenderer *planar_track_renderer_new          (void);
void                 planar_track_renderer_free         (PlanarTrackRenderer   *self);
/* Drops what refers to a profile (call when it changes). */
void                 planar_track_renderer_reset        (PlanarTrackRenderer   *self);
/* Sets the layout labels are drawn with; its font decides their size. */
void                 planar_track_renderer_set_layout   (PlanarTrackRenderer   *self,
                                                         PangoLayout           *layout);

/* Starts a frame whose tracks area is @view's window across, from @top to
 * @top + @height down (logical pixels). */
void                 planar_track_renderer_begin        (PlanarTrackRenderer   *self,
                                                         const PlanarTrackView *view,
                                                         float                  top,
                                                         float                  height);
/* Adds to the frame the events of @track at depths [@min_depth,
 * @max_depth] (the ones on screen), the top of depth 0's band at @y, each
 * depth PLANAR_TIMELINE_DEPTH_PITCH below the previous, nothing outside
 * [@clip_top, @clip_bottom), which must not overlap another track's.
 * @plane and @track must stay in place until the frame ends. */
void                 planar_track_renderer_add_track    (PlanarTrackRenderer   *self,
                                                         const PlanarPlane     *plane,
                                                         const PlanarTrack     *track,
                                                         float                  y,
                                                         guint                  min_depth,
                                                         guint                  max_depth,
                                                         float                  clip_top,
                                                         float                  clip_bottom);
/* Draws the tracks and counters added since the frame began or the last
 * flush: asks
 * the span index for each one's rectangles (on several threads; the index
 * folds what is too narrow to draw apart, so this costs O(rectangles)),
 * fills them into the frame's image, and appends the labels of the events
 * wide enough for one to @labels. Returns the number of rectangles. */
guint                planar_track_renderer_flush        (PlanarTrackRenderer   *self,
                                                         GtkSnapshot           *labels);
/* Adds to the frame a counter, drawn as an area chart when the frame is
 * flushed: each device pixel column of the window from its smallest to its
 * largest value as a line, with the area below it filled, values from @lo
 * (at @bottom) to @hi (at @top), logical pixels. Its columns are queried
 * on the threads that draw the tracks. @series must stay in place until
 * the frame ends; [@top, @bottom] must not overlap a track's clip. */
void                 planar_track_renderer_add_counter  (PlanarTrackRenderer       *self,
                                                         const PlanarCounterSeries *series,
                                                         double                     lo,
                                                         double                     hi,
                                                         float                      top,
                                                         float                      bottom,
                                                         const GdkRGBA             *color);
/* Ends the frame: appends its image to @snapshot. */
void                 planar_track_renderer_end          (PlanarTrackRenderer   *self,
                                                         GtkSnapshot           *snapshot);

/* Whether single events with internal metadata are left out of frames. */
void                 planar_track_renderer_set_hide_internal (PlanarTrackRenderer *self,
                                                              gboolean             hide_internal);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarTrackRenderer, planar_track_renderer_free)

G_END_DECLS
