/* planar-timeline-input-private.h: the pointer and gesture state of the
 * timeline, owned by planar-timeline-input.c.
 *
 * Only planar-timeline-input.c writes it (the tests set it to draw chosen
 * states); the drawing reads it (the hover, the drag's rectangle and the
 * section dropped), and the rest of the widget goes through the functions
 * below.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-timeline.h"

G_BEGIN_DECLS

typedef enum
{
  DRAG_NONE,
  DRAG_BOX,
  DRAG_PAN,
  DRAG_ZOOM,
  DRAG_TIMING,
  /* A section header, to put it elsewhere. */
  DRAG_SECTION,
  /* The label column's edge, to widen or narrow it. */
  DRAG_LABEL_EDGE,
} PlanarTimelineDrag;

typedef struct
{
  /* The pointer, in widget coordinates, while it is over the widget. */
  gboolean           pointer_inside;
  double             pointer_x;
  double             pointer_y;
  gboolean           has_hover;
  PlanarEventRef     hover;
  /* Hovering a folded block: how many events it stands for. */
  guint64            hover_count;
  gint64             hover_start_ps;
  gint64             hover_end_ps;

  PlanarTimelineDrag drag;
  guint              drag_button;
  double             drag_x0;
  double             drag_y0;
  double             drag_x1;
  double             drag_y1;
  gint64             drag_start_ps;
  gint64             drag_end_ps;
  double             drag_vscroll;
  gint64             timing_t0_ps;
  gint64             timing_t1_ps;
  /* DRAG_SECTION: the section dragged, and the one it would go before
   * (the number of sections: last). */
  guint              drag_section;
  guint              drop_before;
  /* DRAG_LABEL_EDGE: the column's width when the drag began. */
  int                drag_label_width;

  /* A pinch: the window when it began, and where. */
  gint64             pinch_start_ps;
  gint64             pinch_end_ps;
  double             pinch_anchor_x;
} PlanarTimelineInput;

PlanarTimelineInput *_planar_timeline_input_new   (void);
void                 _planar_timeline_input_free  (PlanarTimelineInput *input);

/* Forgets the event under the pointer (the view moved under it). */
void     _planar_timeline_input_clear_hover       (PlanarTimeline *self);
/* Forgets the hover and ends any drag without its effect (another
 * profile). */
void     _planar_timeline_input_reset             (PlanarTimeline *self);

G_END_DECLS
