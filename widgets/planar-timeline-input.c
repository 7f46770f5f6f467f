/* planar-timeline-input.c: what the pointer, the wheel and the fingers do
 * on the timeline, and the selection they make. It owns their state
 * (PlanarTimelineInput, planar-timeline-input-private.h): where the
 * pointer is and what it hovers, the drag or pinch under way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-private.h"

#include <glib/gi18n.h>
#include <math.h>

#include "planar-span-index.h"
#include "planar-time-ticks.h"

/* A click that moves less than this many pixels is not a drag. */
#define DRAG_THRESHOLD 4.0
/* The timing tool snaps to an event edge this close, in pixels. */
#define SNAP_DISTANCE 8.0

/* ------------------------------------------------------------------------
 * The state
 * ------------------------------------------------------------------------ */

PlanarTimelineInput *
_planar_timeline_input_new (void)
{
  return g_new0 (PlanarTimelineInput, 1);
}

void
_planar_timeline_input_free (PlanarTimelineInput *input)
{
  g_free (input);
}

void
_planar_timeline_input_clear_hover (PlanarTimeline *self)
{
  self->input->has_hover = FALSE;
}

void
_planar_timeline_input_reset (PlanarTimeline *self)
{
  self->input->has_hover = FALSE;
  self->input->drag = DRAG_NONE;
}

double
_planar_timeline_key_anchor (PlanarTimeline *self)
{
  if (self->input->pointer_inside && self->input->pointer_x >= self->label_width)
    return self->input->pointer_x;
  return -1;
}

void
_planar_timeline_update_cursor (PlanarTimeline *self)
{
  static const char * const cursors[] = { "default", "grab", "zoom-in", "col-resize" };

  if (self->input->drag == DRAG_LABEL_EDGE ||
      (self->input->pointer_inside && _planar_timeline_on_label_edge (self, self->input->pointer_x, self->input->pointer_y)))
    gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "col-resize");
  else
    gtk_widget_set_cursor_from_name (GTK_WIDGET (self), cursors[planar_timeline_view_get_tool (self->view)]);
}

/* ------------------------------------------------------------------------
 * Events under the pointer
 * ------------------------------------------------------------------------ */

const PlanarTrack *
_planar_timeline_row_track (PlanarTimeline           *self,
                            const PlanarTimelineRow  *row,
                            const PlanarPlane       **plane)
{
  PlanarTrace *trace = planar_profile_get_trace (self->profile, row->trace);
  const PlanarPlane *p = planar_trace_get_plane (trace, row->plane);

  if (plane != NULL)
    *plane = p;
  return &p->tracks[row->track];
}

/* The track row and depth band at widget @y; FALSE between bands. */
static gboolean
find_band (PlanarTimeline           *self,
           double                    y,
           const PlanarTimelineRow **row_out,
           guint                    *depth_out)
{
  double cy;
  int index;
  const PlanarTimelineRow *row;
  double within;
  guint depth;

  if (self->profile == NULL || y < PLANAR_TIMELINE_AXIS_HEIGHT)
    return FALSE;
  cy = y - PLANAR_TIMELINE_AXIS_HEIGHT + _planar_timeline_vscroll (self);
  index = planar_timeline_layout_find_row_at (self->layout, (int) floor (cy));
  if (index < 0)
    return FALSE;
  row = planar_timeline_layout_get_row (self->layout, (guint) index);
  if (row->kind != PLANAR_TIMELINE_ROW_TRACK)
    return FALSE;
  within = cy - planar_timeline_row_depth_y (row, 0);
  if (within < 0)
    return FALSE;
  depth = (guint) (within / PLANAR_TIMELINE_DEPTH_PITCH);
  if (depth >= row->n_depths || within - depth * PLANAR_TIMELINE_DEPTH_PITCH >= PLANAR_TIMELINE_EVENT_HEIGHT)
    return FALSE;
  *row_out = row;
  *depth_out = depth;
  return TRUE;
}

/* The index in the track's events of the event at position @k of depth
 * @depth's group (see PlanarTrack.depth_order). */
static inline guint64
depth_group_event (const PlanarTrack *track,
                   guint              depth,
                   gsize              k)
{
  if (track->depth_order == NULL)
    return k;
  return track->depth_order[track->depth_offsets[depth] + k];
}

static inline gsize
depth_group_size (const PlanarTrack *track,
                  guint              depth)
{
  if (track->depth_offsets == NULL)
    return depth == 0 ? track->n_events : 0;
  if (depth > track->max_depth)
    return 0;
  return track->depth_offsets[depth + 1] - track->depth_offsets[depth];
}

/* The position in @depth's group of the last event whose index is <=
 * @index, or -1. Groups are in start order, which is index order. */
static gssize
depth_group_find (const PlanarTrack *track,
                  guint              depth,
                  guint64            index)
{
  gsize lo = 0, hi = depth_group_size (track, depth);

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (depth_group_event (track, depth, mid) <= index)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (gssize) lo - 1;
}

/* The span under @t at @depth, at the resolution the frame was drawn
 * with: a single event, or a folded block. */
static gboolean
pick_span (PlanarTimeline    *self,
           const PlanarTrack *track,
           guint              depth,
           gint64             t,
           PlanarSpan        *out)
{
  PlanarTrackView view;
  gint64 ps_per_column, tolerance;
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (PlanarSpan));
  gint64 best_distance = G_MAXINT64;

  _planar_timeline_get_track_view (self, &view);
  ps_per_column = planar_track_view_ps_per_column (&view);
  /* Anything within two pixels counts, so a one-pixel event can be hit. */
  tolerance = (gint64) (2.0 / planar_track_view_px_per_ps (&view));
  planar_track_query_spans (track, t - tolerance, t + tolerance, ps_per_column, depth, depth, spans);
  for (guint i = 0; i < spans->len; i++)
    {
      const PlanarSpan *span = &g_array_index (spans, PlanarSpan, i);
      gint64 distance = t < span->start_ps ? span->start_ps - t : t > span->end_ps ? t - span->end_ps : 0;

      /* At the same distance a single event wins over a block, and else
       * the later rectangle, which is drawn over the earlier where they
       * meet (a kernel that starts before the one before it ends, at the
       * same depth): what is picked is what is seen there. */
      if (distance < best_distance ||
          (distance == best_distance && (span->count == 1 || out->count != 1)))
        {
          best_distance = distance;
          *out = *span;
        }
    }
  return best_distance != G_MAXINT64;
}

static int section_at (PlanarTimeline *self,
                       double          y);

/* The row at widget @y, or NULL. */
static const PlanarTimelineRow *
row_at (PlanarTimeline *self,
        double          y)
{
  int r;

  if (y < PLANAR_TIMELINE_AXIS_HEIGHT)
    return NULL;
  r = planar_timeline_layout_find_row_at (self->layout, (int) floor (y - PLANAR_TIMELINE_AXIS_HEIGHT + _planar_timeline_vscroll (self)));
  return r >= 0 ? planar_timeline_layout_get_row (self->layout, (guint) r) : NULL;
}

gboolean
_planar_timeline_pick (PlanarTimeline *self,
                       double          x,
                       double          y,
                       PlanarEventRef *ref)
{
  const PlanarTimelineRow *row;
  const PlanarTimelineRowClass *klass;

  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), FALSE);
  g_return_val_if_fail (ref != NULL, FALSE);

  /* Not through the section header pinned over the tracks. */
  if (self->profile == NULL || x < self->label_width || section_at (self, y) >= 0 || (row = row_at (self, y)) == NULL)
    return FALSE;
  klass = _planar_timeline_row_class (row);
  return klass->pick != NULL && klass->pick (self, row, x, y, ref);
}

/* A track's events: the span under the pointer at its depth. */
gboolean
_planar_timeline_pick_track_row (PlanarTimeline          *self,
                                 const PlanarTimelineRow *track_row,
                                 double                   x,
                                 double                   y,
                                 PlanarEventRef          *ref)
{
  const PlanarTimelineRow *row;
  const PlanarTrack *track;
  guint depth;
  PlanarSpan span = { 0 };

  if (!find_band (self, y, &row, &depth) || row != track_row)
    return FALSE;
  track = _planar_timeline_row_track (self, row, NULL);
  if (!pick_span (self, track, depth, _planar_timeline_time_for_x (self, x), &span))
    return FALSE;
  ref->trace = row->trace;
  ref->plane = row->plane;
  ref->track = row->track;
  ref->index = (guint32) span.first;
  return TRUE;
}

static void
update_hover (PlanarTimeline *self)
{
  const PlanarTimelineRow *row;
  guint depth;
  PlanarSpan span = { 0 };
  gboolean had = self->input->has_hover;
  PlanarEventRef old = self->input->hover;
  guint64 old_count = self->input->hover_count;

  self->input->has_hover = FALSE;
  if (self->input->pointer_inside && self->input->drag == DRAG_NONE &&
      self->input->pointer_x >= self->label_width &&
      find_band (self, self->input->pointer_y, &row, &depth) &&
      pick_span (self, _planar_timeline_row_track (self, row, NULL), depth,
                 _planar_timeline_time_for_x (self, self->input->pointer_x), &span))
    {
      self->input->has_hover = TRUE;
      self->input->hover = (PlanarEventRef) { row->plane, row->trace, row->track, (guint32) span.first };
      self->input->hover_count = span.count;
      self->input->hover_start_ps = span.start_ps;
      self->input->hover_end_ps = span.end_ps;
    }
  if (had != self->input->has_hover ||
      (had && (!planar_event_ref_equal (&old, &self->input->hover) || old_count != self->input->hover_count)))
    {
      /* The overlay only: the tracks layer is reused. */
      gtk_widget_queue_draw (GTK_WIDGET (self));
      gtk_widget_trigger_tooltip_query (GTK_WIDGET (self));
    }
}

static void
select_events (PlanarTimeline       *self,
               const PlanarEventRef *refs,
               gsize                 n_refs,
               gboolean              has_range,
               gint64                start_ps,
               gint64                end_ps,
               gboolean              add)
{
  g_autoptr(PlanarSelection) selection = NULL;
  g_autoptr(GArray) all = NULL;

  if (add && planar_timeline_view_get_selection (self->view) != NULL)
    {
      gsize n_old;
      const PlanarEventRef *old = planar_selection_get_events (planar_timeline_view_get_selection (self->view), &n_old);
      gint64 old_start, old_end;

      all = g_array_sized_new (FALSE, FALSE, sizeof (PlanarEventRef), n_old + n_refs);
      g_array_append_vals (all, old, n_old);
      /* Control-clicking a selected event takes it out. */
      if (n_refs == 1 && !has_range && planar_selection_contains (planar_timeline_view_get_selection (self->view), refs))
        {
          for (guint i = 0; i < all->len; i++)
            if (planar_event_ref_equal (&g_array_index (all, PlanarEventRef, i), refs))
              {
                g_array_remove_index (all, i);
                break;
              }
        }
      else
        g_array_append_vals (all, refs, n_refs);
      if (planar_selection_get_range (planar_timeline_view_get_selection (self->view), &old_start, &old_end))
        {
          start_ps = has_range ? MIN (start_ps, old_start) : old_start;
          end_ps = has_range ? MAX (end_ps, old_end) : old_end;
          has_range = TRUE;
        }
      refs = (const PlanarEventRef *) (gpointer) all->data;
      n_refs = all->len;
    }
  selection = planar_selection_new (self->profile, refs, n_refs, has_range, start_ps, end_ps);
  planar_timeline_set_selection (self, selection);
}

typedef struct
{
  PlanarEventRef base;
  guint                 min_depth;
  guint                 max_depth;
  GArray               *out;
} BoxCollect;

static gboolean
collect_box_event (const PlanarTrack *track,
                   gsize              index,
                   gpointer           user_data)
{
  BoxCollect *collect = user_data;
  guint depth = track->events[index].depth;

  if (depth >= collect->min_depth && depth <= collect->max_depth)
    {
      PlanarEventRef ref = collect->base;

      ref.index = (guint32) index;
      g_array_append_val (collect->out, ref);
    }
  return TRUE;
}

void
_planar_timeline_select_box (PlanarTimeline *self,
                             double          x0,
                             double          y0,
                             double          x1,
                             double          y1,
                             gboolean        add)
{
  g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (PlanarEventRef));
  gint64 t0, t1;
  double left, right, top, bottom;
  guint first;

  g_return_if_fail (PLANAR_IS_TIMELINE (self));

  if (self->profile == NULL)
    return;
  /* A box over the labels alone holds no event. */
  if (MAX (x0, x1) < self->label_width)
    {
      if (!add)
        planar_timeline_set_selection (self, NULL);
      return;
    }
  left = MAX (MIN (x0, x1), self->label_width);
  right = MAX (MAX (x0, x1), self->label_width);
  top = MAX (MIN (y0, y1), PLANAR_TIMELINE_AXIS_HEIGHT) - PLANAR_TIMELINE_AXIS_HEIGHT + _planar_timeline_vscroll (self);
  bottom = MAX (y0, y1) - PLANAR_TIMELINE_AXIS_HEIGHT + _planar_timeline_vscroll (self);
  t0 = _planar_timeline_time_for_x (self, left);
  t1 = _planar_timeline_time_for_x (self, right);

  first = planar_timeline_layout_first_row_below (self->layout, (int) floor (top));
  for (guint r = first; r < planar_timeline_layout_get_n_rows (self->layout); r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (self->layout, r);
      BoxCollect collect;
      double band0;
      int lo, hi;

      if (row->y > bottom)
        break;
      if (row->kind != PLANAR_TIMELINE_ROW_TRACK)
        continue;
      /* The depths whose bands the box meets. */
      band0 = planar_timeline_row_depth_y (row, 0);
      lo = (int) floor ((top - band0 - PLANAR_TIMELINE_EVENT_HEIGHT) / PLANAR_TIMELINE_DEPTH_PITCH) + 1;
      hi = (int) floor ((bottom - band0) / PLANAR_TIMELINE_DEPTH_PITCH);
      lo = MAX (lo, 0);
      hi = MIN (hi, (int) row->n_depths - 1);
      if (lo > hi)
        continue;
      collect.base = (PlanarEventRef) { row->plane, row->trace, row->track, 0 };
      collect.min_depth = (guint) lo;
      collect.max_depth = (guint) hi;
      collect.out = refs;
      planar_track_foreach_in_range (_planar_timeline_row_track (self, row, NULL), t0, t1, collect_box_event, &collect);
    }
  select_events (self, (const PlanarEventRef *) (gpointer) refs->data, refs->len, TRUE, t0, t1, add);
}

void
planar_timeline_reveal_event (PlanarTimeline       *self,
                              const PlanarEventRef *ref)
{
  const PlanarEvent *ev;
  int r;

  g_return_if_fail (PLANAR_IS_TIMELINE (self));
  g_return_if_fail (ref != NULL);

  if (self->profile == NULL)
    return;
  ev = planar_event_ref_resolve (ref, self->profile, NULL, NULL, NULL);
  if (ev == NULL)
    return;
  if (ev->start_ps + ev->duration_ps < planar_timeline_view_get_start_ps (self->view) || ev->start_ps > planar_timeline_view_get_end_ps (self->view))
    {
      gint64 width = planar_timeline_view_get_end_ps (self->view) - planar_timeline_view_get_start_ps (self->view);
      gint64 middle = ev->start_ps + ev->duration_ps / 2;

      planar_timeline_set_view (self, middle - width / 2, middle - width / 2 + width);
    }
  r = planar_timeline_layout_find_track (self->layout, ref->trace, ref->plane, ref->track);
  if (r >= 0)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (self->layout, (guint) r);
      double top = planar_timeline_row_depth_y (row, ev->depth);
      double bottom = top + PLANAR_TIMELINE_EVENT_HEIGHT;
      double value = _planar_timeline_vscroll (self);

      if (top < value)
        _planar_timeline_scroll_to (self, top - PLANAR_TIMELINE_DEPTH_PITCH);
      else if (bottom > value + _planar_timeline_content_height (self))
        _planar_timeline_scroll_to (self, bottom - _planar_timeline_content_height (self) + PLANAR_TIMELINE_DEPTH_PITCH);
    }
}

void
_planar_timeline_step_selection (PlanarTimeline *self,
                                 int             direction)
{
  const PlanarEventRef *refs;
  PlanarEventRef ref;
  const PlanarTrack *track;
  const PlanarEvent *ev;
  gsize n;
  gssize k;
  guint depth;
  g_autoptr(PlanarSelection) selection = NULL;

  if (planar_timeline_view_get_selection (self->view) == NULL || self->profile == NULL)
    return;
  refs = planar_selection_get_events (planar_timeline_view_get_selection (self->view), &n);
  if (n == 0)
    return;
  /* Steps go from the first selected event (the earliest of the first
   * track in display data order). */
  ref = refs[0];
  ev = planar_event_ref_resolve (&ref, self->profile, NULL, NULL, &track);
  if (ev == NULL)
    return;
  depth = ev->depth;
  k = depth_group_find (track, depth, ref.index);
  g_assert (k >= 0);

  switch (direction)
    {
    case 1:
      if ((gsize) k + 1 >= depth_group_size (track, depth))
        return;
      ref.index = (guint32) depth_group_event (track, depth, (gsize) k + 1);
      break;
    case -1:
      if (k == 0)
        return;
      ref.index = (guint32) depth_group_event (track, depth, (gsize) k - 1);
      break;
    case 2:
      {
        gssize p;

        if (depth == 0)
          return;
        /* The last event one level up starting before this one encloses
         * it: events of a depth never overlap. */
        p = depth_group_find (track, depth - 1, ref.index);
        if (p < 0)
          return;
        ref.index = (guint32) depth_group_event (track, depth - 1, (gsize) p);
      }
      break;
    case -2:
      {
        gssize c = depth_group_find (track, depth + 1, ref.index) + 1;
        guint64 child;

        if (depth >= track->max_depth || (gsize) c >= depth_group_size (track, depth + 1))
          return;
        child = depth_group_event (track, depth + 1, (gsize) c);
        if (track->events[child].start_ps > ev->start_ps + ev->duration_ps)
          return;
        ref.index = (guint32) child;
      }
      break;
    default:
      g_assert_not_reached ();
    }

  selection = planar_selection_new_for_event (self->profile, &ref);
  planar_timeline_set_selection (self, selection);
  planar_timeline_reveal_event (self, &ref);
}

/* ------------------------------------------------------------------------
 * Input
 * ------------------------------------------------------------------------ */

gboolean
_planar_timeline_handle_scroll (PlanarTimeline  *self,
                                double           dx,
                                double           dy,
                                GdkModifierType  state,
                                double           pointer_x)
{
  if (state & GDK_CONTROL_MASK)
    {
      /* Control + wheel zooms around the pointer; down is out. */
      if (dy != 0)
        _planar_timeline_zoom (self, pow (PLANAR_TIMELINE_ZOOM_STEP, -dy), pointer_x);
      return TRUE;
    }
  if (state & GDK_SHIFT_MASK)
    {
      /* Shift + wheel pans: the wheel's one axis moves along time. */
      _planar_timeline_pan (self, (dy + dx) * PLANAR_TIMELINE_PAN_STEP);
      return TRUE;
    }
  if (dx != 0)
    _planar_timeline_pan (self, dx * PLANAR_TIMELINE_PAN_STEP);
  if (dy != 0)
    _planar_timeline_scroll_to (self, _planar_timeline_vscroll (self) + dy * 3 * PLANAR_TIMELINE_DEPTH_PITCH);
  return TRUE;
}

static gboolean
on_scroll (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           PlanarTimeline           *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));

  /* Touchpads scroll in pixels: a wheel notch is about 50 of them. */
  if (gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_SURFACE)
    {
      dx /= 50.0;
      dy /= 50.0;
    }
  return _planar_timeline_handle_scroll (self, dx, dy, state, self->input->pointer_inside ? self->input->pointer_x : -1);
}

void
_planar_timeline_pinch_begin (PlanarTimeline *self,
                              double          anchor_x)
{
  self->input->pinch_start_ps = planar_timeline_view_get_start_ps (self->view);
  self->input->pinch_end_ps = planar_timeline_view_get_end_ps (self->view);
  self->input->pinch_anchor_x = anchor_x;
}

void
_planar_timeline_pinch_update (PlanarTimeline *self,
                               double          scale)
{
  double width = (double) (self->input->pinch_end_ps - self->input->pinch_start_ps);
  double fraction, anchor, new_width;
  gint64 start;

  if (scale <= 0)
    return;
  /* The time under the fingers stays under them; spreading them by
   * @scale shows 1 / @scale of the window the pinch began with. */
  fraction = self->input->pinch_anchor_x >= self->label_width
    ? (self->input->pinch_anchor_x - self->label_width) / _planar_timeline_time_area_width (self) : 0.5;
  anchor = (double) self->input->pinch_start_ps + fraction * width;
  new_width = MAX (width / scale, (double) PLANAR_TIMELINE_MIN_WINDOW_PS);
  start = (gint64) llround (anchor - fraction * new_width);
  planar_timeline_set_view (self, start, start + (gint64) llround (new_width));
}

static void
on_zoom_begin (GtkGesture       *gesture,
               GdkEventSequence *sequence,
               PlanarTimeline   *self)
{
  double x, y;

  if (!gtk_gesture_get_bounding_box_center (gesture, &x, &y))
    x = -1;
  _planar_timeline_pinch_begin (self, x);
}

static void
on_zoom_scale_changed (GtkGestureZoom *gesture,
                       double          scale,
                       PlanarTimeline *self)
{
  _planar_timeline_pinch_update (self, scale);
}

static void
on_motion (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           PlanarTimeline           *self)
{
  self->input->pointer_inside = TRUE;
  self->input->pointer_x = x;
  self->input->pointer_y = y;
  update_hover (self);
  if (self->input->drag == DRAG_NONE)
    _planar_timeline_update_cursor (self);
}

static void
on_leave (GtkEventControllerMotion *controller,
          PlanarTimeline           *self)
{
  self->input->pointer_inside = FALSE;
  update_hover (self);
}

static int section_at (PlanarTimeline *self,
                       double          y);

char *
_planar_timeline_dup_label_tooltip (PlanarTimeline *self,
                                    double          x,
                                    double          y)
{
  const PlanarTimelineRow *row;
  const PlanarTimelineRowClass *klass;
  int pinned = section_at (self, y);
  double top;

  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), NULL);

  if (pinned < 0 && x >= self->label_width)
    return NULL;
  row = row_at (self, y);
  if (row == NULL)
    return NULL;
  top = _planar_timeline_widget_y (self, row->y);
  if (pinned >= 0)
    {
      /* The pinned header, over the row under it. */
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (self->layout, (guint) pinned);
      int header_y;

      if (section->row == G_MAXUINT)
        return NULL;
      row = planar_timeline_layout_get_row (self->layout, section->row);
      top = _planar_timeline_widget_y (self, row->y);
      if (planar_timeline_layout_sticky_section (self->layout, (int) floor (_planar_timeline_vscroll (self)), &header_y) == pinned)
        top = _planar_timeline_widget_y (self, header_y);
    }
  klass = _planar_timeline_row_class (row);
  return klass->tooltip != NULL ? klass->tooltip (self, row, top) : NULL;
}

static gboolean
on_query_tooltip (GtkWidget      *widget,
                  int             x,
                  int             y,
                  gboolean        keyboard,
                  GtkTooltip     *tooltip,
                  PlanarTimeline *self)
{
  const PlanarPlane *plane;
  const PlanarEvent *ev;
  char duration[64];
  char start[64];
  g_autofree char *name = NULL;
  g_autofree char *markup = NULL;

  /* Over a label cut short (a track's name, a section's title): the whole
   * label. */
  if (!keyboard && (section_at (self, y) >= 0 || x < self->label_width))
    {
      g_autofree char *text = _planar_timeline_dup_label_tooltip (self, x, y);

      if (text == NULL)
        return FALSE;
      gtk_tooltip_set_text (tooltip, text);
      return TRUE;
    }
  if (keyboard || !self->input->has_hover || self->profile == NULL)
    return FALSE;
  ev = planar_event_ref_resolve (&self->input->hover, self->profile, NULL, &plane, NULL);
  if (ev == NULL)
    return FALSE;
  if (self->input->hover_count > 1)
    {
      planar_time_format_duration (self->input->hover_end_ps - self->input->hover_start_ps, duration, sizeof duration);
      /* The count is formatted apart: a G_GUINT64_FORMAT macro inside a
       * translatable string is not a format gettext can check. */
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, self->input->hover_count);

      markup = g_markup_printf_escaped (ngettext ("<b>%s event</b> in %s\nZoom in to tell them apart",
                                                  "<b>%s events</b> in %s\nZoom in to tell them apart",
                                                  (gulong) MIN (self->input->hover_count, G_MAXULONG)),
                                        count, duration);
    }
  else
    {
      planar_time_format_duration (ev->duration_ps, duration, sizeof duration);
      planar_time_format_duration (ev->start_ps, start, sizeof start);
      name = g_strdup (planar_plane_get_event_name (plane, ev, TRUE));
      markup = g_markup_printf_escaped (_("<b>%s</b>\n%s at %s"), name, duration, start);
    }
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* The section header at widget @y, or -1. */
static int
section_at (PlanarTimeline *self,
            double          y)
{
  int r;
  const PlanarTimelineRow *row;

  int top = (int) floor (_planar_timeline_vscroll (self));
  int header_y;
  int sticky;

  if (y < PLANAR_TIMELINE_AXIS_HEIGHT)
    return -1;
  /* The header pinned at the top, over its tracks. */
  sticky = planar_timeline_layout_sticky_section (self->layout, top, &header_y);
  if (sticky >= 0 && y < _planar_timeline_widget_y (self, header_y) + PLANAR_TIMELINE_SECTION_HEIGHT)
    return sticky;
  r = planar_timeline_layout_find_row_at (self->layout, (int) floor (y - PLANAR_TIMELINE_AXIS_HEIGHT + _planar_timeline_vscroll (self)));
  if (r < 0)
    return -1;
  row = planar_timeline_layout_get_row (self->layout, (guint) r);
  return row->kind == PLANAR_TIMELINE_ROW_SECTION ? (int) row->section : -1;
}

static void toggle_section (PlanarTimeline *self,
                            guint           section);

void
_planar_timeline_activate_section_row (PlanarTimeline          *self,
                                       const PlanarTimelineRow *row)
{
  toggle_section (self, row->section);
}

void
_planar_timeline_activate_host_row (PlanarTimeline          *self,
                                    const PlanarTimelineRow *row)
{
  guint trace = row->trace;

  for (guint h = 0; h < planar_timeline_layout_get_n_hosts (self->layout); h++)
    {
      const PlanarTimelineHost *host = planar_timeline_layout_get_host (self->layout, h);

      /* The view state's signal lays the tracks out again at once, so
       * neither @row nor @host outlive the change. */
      if (host->trace == trace)
        {
          planar_timeline_layout_set_host_collapsed (self->layout, h, !host->collapsed);
          return;
        }
    }
}

static void
toggle_section (PlanarTimeline *self,
                guint           section)
{
  const PlanarTimelineSection *s = planar_timeline_layout_get_section (self->layout, section);

  if (s->pending)
    {
      _planar_timeline_request_host (self, section);
      return;
    }
  /* The view state's signal lays the tracks out again. */
  planar_timeline_layout_set_collapsed (self->layout, section, !s->collapsed);
}

/* A time at widget @x, pulled to the nearest event edge within
 * SNAP_DISTANCE pixels on the track under @y. */
static gint64
snap_time (PlanarTimeline *self,
           double          x,
           double          y)
{
  gint64 t = _planar_timeline_time_for_x (self, x);
  double cy = y - PLANAR_TIMELINE_AXIS_HEIGHT + _planar_timeline_vscroll (self);
  int r = planar_timeline_layout_find_row_at (self->layout, (int) floor (cy));
  const PlanarTimelineRow *row;
  PlanarTrackView view;
  g_autoptr(GArray) spans = NULL;
  gint64 tolerance, best = t, best_distance;

  if (r < 0 || self->profile == NULL)
    return t;
  row = planar_timeline_layout_get_row (self->layout, (guint) r);
  if (row->kind != PLANAR_TIMELINE_ROW_TRACK)
    return t;
  _planar_timeline_get_track_view (self, &view);
  tolerance = (gint64) (SNAP_DISTANCE / planar_track_view_px_per_ps (&view));
  best_distance = tolerance + 1;
  spans = g_array_new (FALSE, FALSE, sizeof (PlanarSpan));
  planar_track_query_spans (_planar_timeline_row_track (self, row, NULL), t - tolerance, t + tolerance,
                            planar_track_view_ps_per_column (&view), 0, G_MAXUINT, spans);
  for (guint i = 0; i < spans->len; i++)
    {
      const PlanarSpan *span = &g_array_index (spans, PlanarSpan, i);
      gint64 edges[2] = { span->start_ps, span->end_ps };

      for (guint e = 0; e < 2; e++)
        {
          gint64 d = ABS (edges[e] - t);

          if (d < best_distance)
            {
              best_distance = d;
              best = edges[e];
            }
        }
    }
  return best;
}

static void
on_drag_begin (GtkGestureDrag *gesture,
               double          x,
               double          y,
               PlanarTimeline *self)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));

  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->input->drag_button = button;
  self->input->drag_x0 = self->input->drag_x1 = x;
  self->input->drag_y0 = self->input->drag_y1 = y;
  self->input->drag_start_ps = planar_timeline_view_get_start_ps (self->view);
  self->input->drag_end_ps = planar_timeline_view_get_end_ps (self->view);
  self->input->drag_vscroll = _planar_timeline_vscroll (self);
  self->input->drag = DRAG_NONE;
  self->input->drag_section = G_MAXUINT;
  self->input->drag_label_width = self->label_width;
  if (button == GDK_BUTTON_PRIMARY && !_planar_timeline_on_label_edge (self, x, y))
    {
      int section = section_at (self, y);

      if (section >= 0)
        self->input->drag_section = (guint) section;
    }
}

static PlanarTimelineDrag
drag_kind (PlanarTimeline *self)
{
  if (self->input->drag_button == GDK_BUTTON_MIDDLE)
    return DRAG_PAN;
  /* The label column's edge, over the tracks and headers alike. */
  if (self->input->drag_button == GDK_BUTTON_PRIMARY &&
      fabs (self->input->drag_x0 - self->input->drag_label_width) <= PLANAR_TIMELINE_LABEL_GRIP &&
      self->input->drag_y0 >= PLANAR_TIMELINE_AXIS_HEIGHT)
    return DRAG_LABEL_EDGE;
  /* A section header moves vertically, whatever the tool. */
  if (self->input->drag_button == GDK_BUTTON_PRIMARY && self->input->drag_section != G_MAXUINT &&
      fabs (self->input->drag_y1 - self->input->drag_y0) >= fabs (self->input->drag_x1 - self->input->drag_x0))
    return DRAG_SECTION;
  if (self->input->drag_button != GDK_BUTTON_PRIMARY || self->input->drag_x0 < self->label_width)
    return DRAG_NONE;
  switch (planar_timeline_view_get_tool (self->view))
    {
    case PLANAR_TIMELINE_TOOL_SELECT:
      return DRAG_BOX;
    case PLANAR_TIMELINE_TOOL_PAN:
      return DRAG_PAN;
    case PLANAR_TIMELINE_TOOL_ZOOM:
      return DRAG_ZOOM;
    case PLANAR_TIMELINE_TOOL_TIMING:
      return DRAG_TIMING;
    default:
      return DRAG_NONE;
    }
}

static void
on_drag_update (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                PlanarTimeline *self)
{
  self->input->drag_x1 = self->input->drag_x0 + dx;
  self->input->drag_y1 = self->input->drag_y0 + dy;

  if (self->input->drag == DRAG_NONE)
    {
      if (fabs (dx) < DRAG_THRESHOLD && fabs (dy) < DRAG_THRESHOLD)
        return;
      self->input->drag = drag_kind (self);
      if (self->input->drag == DRAG_NONE)
        return;
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      if (self->input->drag == DRAG_SECTION)
        gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
      if (self->input->drag == DRAG_TIMING)
        self->input->timing_t0_ps = snap_time (self, self->input->drag_x0, self->input->drag_y0);
      update_hover (self);
    }

  switch (self->input->drag)
    {
    case DRAG_PAN:
      {
        double ps_per_px = (double) (self->input->drag_end_ps - self->input->drag_start_ps) / _planar_timeline_time_area_width (self);
        gint64 delta = (gint64) llround (-dx * ps_per_px);

        planar_timeline_set_view (self, self->input->drag_start_ps + delta, self->input->drag_end_ps + delta);
        _planar_timeline_scroll_to (self, self->input->drag_vscroll - dy);
      }
      break;

    case DRAG_TIMING:
      self->input->timing_t1_ps = snap_time (self, self->input->drag_x1, self->input->drag_y1);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;

    case DRAG_BOX:
    case DRAG_ZOOM:
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;

    case DRAG_SECTION:
      self->input->drop_before = _planar_timeline_drop_target (self, self->input->drag_y1);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;

    case DRAG_LABEL_EDGE:
      _planar_timeline_set_label_width (self, self->input->drag_label_width + (int) lround (dx), FALSE);
      break;

    case DRAG_NONE:
    default:
      break;
    }
}

static void
click (PlanarTimeline  *self,
       double           x,
       double           y,
       GdkModifierType  state)
{
  PlanarEventRef ref;
  int section = section_at (self, y);
  const PlanarTimelineRow *label_row = row_at (self, y);

  /* The pinned header first: it lies over the row under it. */
  if (section >= 0)
    {
      toggle_section (self, (guint) section);
      return;
    }
  if (label_row != NULL && _planar_timeline_row_class (label_row)->activate != NULL)
    {
      _planar_timeline_row_class (label_row)->activate (self, label_row);
      return;
    }
  if (x < self->label_width)
    return;
  switch (planar_timeline_view_get_tool (self->view))
    {
    case PLANAR_TIMELINE_TOOL_ZOOM:
      _planar_timeline_zoom (self, (state & GDK_SHIFT_MASK) ? 1 / PLANAR_TIMELINE_ZOOM_STEP_FAST
                                                            : PLANAR_TIMELINE_ZOOM_STEP_FAST, x);
      break;

    case PLANAR_TIMELINE_TOOL_SELECT:
    case PLANAR_TIMELINE_TOOL_TIMING:
      if (_planar_timeline_pick (self, x, y, &ref))
        {
          const PlanarEvent *ev;
          const PlanarTrack *track;
          PlanarSpan span = { 0 };
          const PlanarTimelineRow *row;
          guint depth;

          ev = planar_event_ref_resolve (&ref, self->profile, NULL, NULL, &track);
          /* A click on a folded block selects the events it stands for. */
          if (ev != NULL && find_band (self, y, &row, &depth) &&
              pick_span (self, track, depth, _planar_timeline_time_for_x (self, x), &span) && span.count > 1)
            {
              g_autoptr(GArray) refs = g_array_sized_new (FALSE, FALSE, sizeof (PlanarEventRef), (guint) span.count);
              gssize k = depth_group_find (track, depth, span.first);

              for (guint64 i = 0; i < span.count && k >= 0; i++)
                {
                  PlanarEventRef r = ref;

                  r.index = (guint32) depth_group_event (track, depth, (gsize) k + i);
                  g_array_append_val (refs, r);
                }
              select_events (self, (const PlanarEventRef *) (gpointer) refs->data, refs->len,
                             FALSE, 0, 0, (state & GDK_CONTROL_MASK) != 0);
            }
          else
            select_events (self, &ref, 1, FALSE, 0, 0, (state & GDK_CONTROL_MASK) != 0);
        }
      else if (!(state & GDK_CONTROL_MASK))
        planar_timeline_set_selection (self, NULL);
      break;

    case PLANAR_TIMELINE_TOOL_PAN:
    default:
      break;
    }
}

static void
on_drag_end (GtkGestureDrag *gesture,
             double          dx,
             double          dy,
             PlanarTimeline *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  PlanarTimelineDrag drag = self->input->drag;

  self->input->drag = DRAG_NONE;
  self->input->drag_x1 = self->input->drag_x0 + dx;
  self->input->drag_y1 = self->input->drag_y0 + dy;

  switch (drag)
    {
    case DRAG_NONE:
      if (self->input->drag_button == GDK_BUTTON_PRIMARY)
        click (self, self->input->drag_x0, self->input->drag_y0, state);
      break;

    case DRAG_BOX:
      _planar_timeline_select_box (self, self->input->drag_x0, self->input->drag_y0, self->input->drag_x1, self->input->drag_y1,
                                   (state & GDK_CONTROL_MASK) != 0);
      break;

    case DRAG_ZOOM:
      planar_timeline_set_view (self, _planar_timeline_time_for_x (self, MIN (self->input->drag_x0, self->input->drag_x1)),
                                _planar_timeline_time_for_x (self, MAX (self->input->drag_x0, self->input->drag_x1)));
      break;

    case DRAG_TIMING:
      {
        g_autoptr(PlanarSelection) selection = NULL;

        self->input->timing_t1_ps = snap_time (self, self->input->drag_x1, self->input->drag_y1);
        if (self->input->timing_t1_ps != self->input->timing_t0_ps)
          {
            selection = planar_selection_new_for_range (self->profile, self->input->timing_t0_ps, self->input->timing_t1_ps);
            planar_timeline_set_selection (self, selection);
          }
      }
      break;

    case DRAG_SECTION:
      _planar_timeline_move_section (self, self->input->drag_section, _planar_timeline_drop_target (self, self->input->drag_y1));
      _planar_timeline_update_cursor (self);
      break;

    case DRAG_LABEL_EDGE:
      /* Remembered once, where the drag ends. */
      _planar_timeline_set_label_width (self, self->input->drag_label_width + (int) lround (dx), TRUE);
      _planar_timeline_update_cursor (self);
      break;

    case DRAG_PAN:
    default:
      break;
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_secondary_click (GtkGestureClick *gesture,
                    int              n_press,
                    double           x,
                    double           y,
                    PlanarTimeline  *self)
{
  /* Over the labels or a section header: the track and section menu. */
  if (x < self->label_width || section_at (self, y) >= 0)
    {
      if (_planar_timeline_popup_context_menu (self, x, y))
        gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    }
}

static void
on_double_click (GtkGestureClick *gesture,
                 int              n_press,
                 double           x,
                 double           y,
                 PlanarTimeline  *self)
{
  PlanarEventRef ref;
  const PlanarEvent *ev;
  gint64 margin;

  /* A double click zooms to the event under the pointer. */
  if (n_press != 2 || !_planar_timeline_pick (self, x, y, &ref))
    return;
  ev = planar_event_ref_resolve (&ref, self->profile, NULL, NULL, NULL);
  if (ev == NULL)
    return;
  margin = (gint64) ((double) ev->duration_ps * PLANAR_TIMELINE_FIT_MARGIN);
  planar_timeline_set_view (self, ev->start_ps - margin, ev->start_ps + ev->duration_ps + margin);
}


void
_planar_timeline_init_input (PlanarTimeline *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), self);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "enter", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (controller, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (on_zoom_begin), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (on_zoom_scale_changed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), 0);
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (gesture, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_double_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_SECONDARY);
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_secondary_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
}
