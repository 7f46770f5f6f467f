/* planar-timeline.c: the timeline widget: its state, the view and the
 * profile. Drawing is in planar-timeline-draw.c, input in
 * planar-timeline-input.c, commands in planar-timeline-actions.c.
 *
 * A frame has two layers. The tracks layer (sections, track labels, the
 * time axis, events, counters, grid and flows) depends only on the view,
 * the size and the profile; it is kept as a render node and rebuilt only
 * when one of those changes. The overlay (hover, selection, marks, the
 * rectangle or interval being dragged) is drawn on top every frame, so
 * moving the pointer never walks the tracks again.
 *
 * The tracks layer asks the span index for every visible track and depth
 * at the resolution of a device pixel (planar-track-renderer.c), so a frame
 * costs O(visible pixels) at any zoom and for any number of events.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-private.h"

#include <glib/gi18n.h>
#include <math.h>

#include "planar-counters.h"
#include "planar-flows.h"
#include "planar-shortcuts.h"
#include "planar-stat-format.h"
#include "planar-time-ticks.h"
#include "planar-tool-selector.h"
#include "planar-units.h"

/* The widest window without a profile: a millisecond. */
#define DEFAULT_WINDOW_PS PLANAR_PS_PER_MS


G_DEFINE_FINAL_TYPE_WITH_CODE (PlanarTimeline, planar_timeline, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

enum {
  HOST_REQUESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_PROFILE,
  PROP_START_PS,
  PROP_END_PS,
  PROP_TOOL,
  PROP_SELECTION,
  PROP_SHOW_FLOWS,
  PROP_SHOW_GRID,
  PROP_HIDE_INTERNAL_EVENTS,
  PROP_VIEW_STATE,
  PROP_TRACK_FILTER,
  N_PROPS,

  /* GtkScrollable */
  PROP_HADJUSTMENT = N_PROPS,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
};

static GParamSpec *properties[N_PROPS];

/* ------------------------------------------------------------------------
 * Geometry
 * ------------------------------------------------------------------------ */

double
_planar_timeline_x_for_time (PlanarTimeline *self,
                             gint64          t_ps)
{
  gint64 start, end;

  planar_timeline_view_get_visible_range (self->view, &start, &end);
  return self->label_width + (double) (t_ps - start) / (double) MAX (end - start, 1) * _planar_timeline_time_area_width (self);
}

gint64
_planar_timeline_time_for_x (PlanarTimeline *self,
                             double          x)
{
  gint64 start, end;

  planar_timeline_view_get_visible_range (self->view, &start, &end);
  return start + (gint64) llround ((x - self->label_width) / _planar_timeline_time_area_width (self) * (double) MAX (end - start, 1));
}

void
_planar_timeline_get_track_view (PlanarTimeline  *self,
                                 PlanarTrackView *view)
{
  view->t0_ps = planar_timeline_view_get_start_ps (self->view);
  view->t1_ps = planar_timeline_view_get_end_ps (self->view);
  view->x = self->label_width;
  view->width = (float) _planar_timeline_time_area_width (self);
  view->scale = MAX (gtk_widget_get_scale_factor (GTK_WIDGET (self)), 1);
  view->dark = FALSE;
}

/* The whole profile, or as much of it as is loaded. */
static void
get_span (PlanarTimeline *self,
          gint64         *first_ps,
          gint64         *last_ps)
{
  gboolean any = FALSE;

  *first_ps = 0;
  *last_ps = DEFAULT_WINDOW_PS;
  if (self->profile == NULL)
    return;
  if (planar_profile_is_loaded (self->profile))
    {
      if (planar_profile_get_span (self->profile, first_ps, last_ps) && *last_ps > *first_ps)
        return;
      *first_ps = 0;
      *last_ps = DEFAULT_WINDOW_PS;
      return;
    }
  /* Loading: the tracks in place so far. */
  for (guint r = 0; r < planar_timeline_layout_get_n_rows (self->layout); r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (self->layout, r);
      const PlanarTrack *track;

      if (row->kind != PLANAR_TIMELINE_ROW_TRACK)
        continue;
      track = &planar_trace_get_plane (planar_profile_get_trace (self->profile, row->trace), row->plane)->tracks[row->track];
      if (track->n_events == 0 || track->derived)
        continue;
      if (!any || track->start_ps < *first_ps)
        *first_ps = track->start_ps;
      if (!any || track->end_ps > *last_ps)
        *last_ps = track->end_ps;
      any = TRUE;
    }
  if (!any || *last_ps <= *first_ps)
    {
      *first_ps = 0;
      *last_ps = DEFAULT_WINDOW_PS;
    }
}

/* ------------------------------------------------------------------------
 * Adjustments (GtkScrollable)
 * ------------------------------------------------------------------------ */

static void
configure_vadjustment (PlanarTimeline *self)
{
  double page = _planar_timeline_content_height (self);
  double upper = MAX (planar_timeline_layout_get_height (self->layout), page);
  double value = CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, MAX (upper - page, 0));

  self->updating_adjustments = TRUE;
  gtk_adjustment_configure (self->vadjustment, value, 0, upper,
                            PLANAR_TIMELINE_DEPTH_PITCH * 3, page * 0.9, page);
  self->updating_adjustments = FALSE;
}

static void
configure_hadjustment (PlanarTimeline *self)
{
  gint64 first, last;
  double page = (double) (planar_timeline_view_get_end_ps (self->view) - planar_timeline_view_get_start_ps (self->view));

  get_span (self, &first, &last);
  self->updating_adjustments = TRUE;
  gtk_adjustment_configure (self->hadjustment,
                            (double) planar_timeline_view_get_start_ps (self->view),
                            (double) MIN (first, planar_timeline_view_get_start_ps (self->view)),
                            (double) MAX (last, planar_timeline_view_get_end_ps (self->view)),
                            page * PLANAR_TIMELINE_PAN_STEP, page * 0.9, page);
  self->updating_adjustments = FALSE;
}

static void
hadjustment_value_changed (PlanarTimeline *self,
                           GtkAdjustment  *adjustment)
{
  gint64 start;

  if (self->updating_adjustments)
    return;
  start = (gint64) llround (gtk_adjustment_get_value (adjustment));
  planar_timeline_set_view (self, start, start + (planar_timeline_view_get_end_ps (self->view) - planar_timeline_view_get_start_ps (self->view)));
}

static void refresh_layout_still (PlanarTimeline *self);

static void
vadjustment_value_changed (PlanarTimeline *self,
                           GtkAdjustment  *adjustment)
{
  if (self->updating_adjustments)
    return;
  /* Rows kept as they were while on screen come in once their place is
   * scrolled off. */
  if (planar_timeline_layout_get_n_held (self->layout) > 0)
    refresh_layout_still (self);
  _planar_timeline_input_clear_hover (self);
  _planar_timeline_invalidate_tracks (self);
}

static void
set_adjustment (PlanarTimeline  *self,
                GtkAdjustment  **slot,
                GtkAdjustment   *adjustment,
                GCallback        callback,
                guint            prop_id)
{
  if (adjustment == NULL)
    adjustment = gtk_adjustment_new (0, 0, 0, 0, 0, 0);
  if (*slot == adjustment)
    return;
  if (*slot != NULL)
    {
      g_signal_handlers_disconnect_by_func (*slot, callback, self);
      g_object_unref (*slot);
    }
  *slot = g_object_ref_sink (adjustment);
  g_signal_connect_object (adjustment, "value-changed", callback, self, G_CONNECT_SWAPPED);
  if (slot == &self->vadjustment)
    configure_vadjustment (self);
  else
    configure_hadjustment (self);
  g_object_notify (G_OBJECT (self), prop_id == PROP_HADJUSTMENT ? "hadjustment" : "vadjustment");
}

void
_planar_timeline_scroll_to (PlanarTimeline *self,
                            double          value)
{
  double upper = gtk_adjustment_get_upper (self->vadjustment);
  double page = gtk_adjustment_get_page_size (self->vadjustment);

  gtk_adjustment_set_value (self->vadjustment, CLAMP (value, 0, MAX (upper - page, 0)));
}

/* ------------------------------------------------------------------------
 * The view
 * ------------------------------------------------------------------------ */

void
_planar_timeline_invalidate_tracks (PlanarTimeline *self)
{
  self->tracks_dirty = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void update_accessible_selection (PlanarTimeline *self);

/* The timeline follows its PlanarTimelineView, whoever changed it, and
 * tells its own listeners under its own property names. */
static void
view_notify (PlanarTimelineView *view,
             GParamSpec         *pspec,
             PlanarTimeline     *self)
{
  const char *name = g_param_spec_get_name (pspec);

  if (g_str_equal (name, "visible-range"))
    {
      _planar_timeline_input_clear_hover (self);
      g_object_freeze_notify (G_OBJECT (self));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_START_PS]);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_END_PS]);
      g_object_thaw_notify (G_OBJECT (self));
      if (self->hadjustment != NULL)
        configure_hadjustment (self);
      _planar_timeline_invalidate_tracks (self);
    }
  else if (g_str_equal (name, "selection"))
    {
      update_accessible_selection (self);
      _planar_timeline_update_actions (self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTION]);
    }
  else if (g_str_equal (name, "tool"))
    {
      _planar_timeline_update_cursor (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOOL]);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  else if (g_str_equal (name, "show-flows"))
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_FLOWS]);
      _planar_timeline_invalidate_tracks (self);
    }
  else if (g_str_equal (name, "hidden-flow-categories"))
    {
      if (planar_timeline_view_get_show_flows (view))
        _planar_timeline_invalidate_tracks (self);
    }
  else if (g_str_equal (name, "n-marks"))
    {
      _planar_timeline_update_actions (self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

/* Keeps a window at least PLANAR_TIMELINE_MIN_WINDOW_PS wide, no wider
 * than the profile and inside it. */
static void
clamp_view (PlanarTimeline *self,
            gint64         *start_ps,
            gint64         *end_ps)
{
  gint64 first, last, width, full;

  get_span (self, &first, &last);
  full = MAX (last - first, PLANAR_TIMELINE_MIN_WINDOW_PS);
  if (*end_ps < *start_ps)
    {
      gint64 tmp = *start_ps;

      *start_ps = *end_ps;
      *end_ps = tmp;
    }
  width = *end_ps - *start_ps;
  if (width < PLANAR_TIMELINE_MIN_WINDOW_PS)
    {
      gint64 middle = *start_ps + width / 2;

      width = PLANAR_TIMELINE_MIN_WINDOW_PS;
      *start_ps = middle - width / 2;
    }
  if (width >= full)
    {
      *start_ps = first;
      *end_ps = first + full;
      return;
    }
  if (*start_ps < first)
    *start_ps = first;
  if (*start_ps + width > first + full)
    *start_ps = first + full - width;
  *end_ps = *start_ps + width;
}

static void
set_view_internal (PlanarTimeline *self,
                   gint64          start_ps,
                   gint64          end_ps)
{
  clamp_view (self, &start_ps, &end_ps);
  /* view_notify() follows. */
  planar_timeline_view_set_visible_range (self->view, start_ps, end_ps);
}

void
planar_timeline_set_view (PlanarTimeline *self,
                          gint64          start_ps,
                          gint64          end_ps)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));

  self->view_touched = TRUE;
  set_view_internal (self, start_ps, end_ps);
}

void
_planar_timeline_zoom (PlanarTimeline *self,
                       double          factor,
                       double          anchor_x)
{
  double width = (double) (planar_timeline_view_get_end_ps (self->view) - planar_timeline_view_get_start_ps (self->view));
  double new_width, anchor, fraction;
  gint64 start;

  g_return_if_fail (factor > 0);

  if (anchor_x >= self->label_width)
    anchor = (double) _planar_timeline_time_for_x (self, anchor_x);
  else
    anchor = (double) planar_timeline_view_get_start_ps (self->view) + width / 2;
  fraction = (anchor - (double) planar_timeline_view_get_start_ps (self->view)) / MAX (width, 1.0);
  new_width = MAX (width / factor, (double) PLANAR_TIMELINE_MIN_WINDOW_PS);
  start = (gint64) llround (anchor - fraction * new_width);
  planar_timeline_set_view (self, start, start + (gint64) llround (new_width));
}

void
_planar_timeline_pan (PlanarTimeline *self,
                      double          fraction)
{
  gint64 delta = (gint64) llround ((double) (planar_timeline_view_get_end_ps (self->view) - planar_timeline_view_get_start_ps (self->view)) * fraction);

  planar_timeline_set_view (self, planar_timeline_view_get_start_ps (self->view) + delta, planar_timeline_view_get_end_ps (self->view) + delta);
}


void
_planar_timeline_show_all (PlanarTimeline *self)
{
  gint64 first, last;

  get_span (self, &first, &last);
  planar_timeline_set_view (self, first, last);
}

void
_planar_timeline_zoom_to_selection (PlanarTimeline *self)
{
  gint64 start, end, margin;

  if (planar_timeline_view_get_selection (self->view) == NULL || !planar_selection_get_bounds (planar_timeline_view_get_selection (self->view), &start, &end))
    return;
  margin = (gint64) ((double) (end - start) * PLANAR_TIMELINE_FIT_MARGIN);
  planar_timeline_set_view (self, start - margin, end + margin);
}

/* ------------------------------------------------------------------------
 * Profile
 * ------------------------------------------------------------------------ */

void
_planar_timeline_refresh_layout (PlanarTimeline *self)
{
  if (planar_timeline_layout_update (self->layout, self->profile))
    {
      _planar_timeline_input_clear_hover (self);
      _planar_timeline_invalidate_tracks (self);
    }
  if (self->vadjustment != NULL)
    configure_vadjustment (self);
  if (self->hadjustment != NULL)
    configure_hadjustment (self);
}

/* Lays out again after a change the user did not make (the load published
 * tracks): the rows on screen stay where they are
 * (planar_timeline_layout_update_still()), the scroll offset following
 * rows that came or went above them. */
static void
refresh_layout_still (PlanarTimeline *self)
{
  double top = _planar_timeline_vscroll (self);
  int old_top = (int) floor (top), new_top;

  if (planar_timeline_layout_update_still (self->layout, self->profile, old_top,
                                           (int) ceil (top + _planar_timeline_content_height (self)), &new_top))
    {
      _planar_timeline_input_clear_hover (self);
      _planar_timeline_invalidate_tracks (self);
    }
  if (self->vadjustment != NULL)
    {
      configure_vadjustment (self);
      if (new_top != old_top)
        {
          double upper = gtk_adjustment_get_upper (self->vadjustment);
          double page = gtk_adjustment_get_page_size (self->vadjustment);

          self->updating_adjustments = TRUE;
          gtk_adjustment_set_value (self->vadjustment, CLAMP (top + new_top - old_top, 0, MAX (upper - page, 0)));
          self->updating_adjustments = FALSE;
          _planar_timeline_invalidate_tracks (self);
        }
    }
  if (self->hadjustment != NULL)
    configure_hadjustment (self);
}

void
planar_timeline_relayout (PlanarTimeline *self)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));
  _planar_timeline_refresh_layout (self);
}

static void
stop_loading_watch (PlanarTimeline *self)
{
  if (self->tracks_handler != 0 && self->profile != NULL)
    g_clear_signal_handler (&self->tracks_handler, self->profile);
  if (self->fraction_handler != 0 && self->profile != NULL)
    g_clear_signal_handler (&self->fraction_handler, self->profile);
  self->tracks_handler = 0;
  self->fraction_handler = 0;
  if (self->loaded_handler != 0 && self->profile != NULL)
    g_clear_signal_handler (&self->loaded_handler, self->profile);
  if (self->busy_handler != 0 && self->profile != NULL)
    g_clear_signal_handler (&self->busy_handler, self->profile);
  self->loaded_handler = 0;
  self->busy_handler = 0;
}

/* Whether the profile's tracks can still change: its load, or hosts of a
 * lazy profile being decoded. */
static gboolean
profile_changing (PlanarTimeline *self)
{
  return self->profile != NULL
         && (planar_profile_is_busy (self->profile)
             || (!planar_profile_is_open (self->profile) && !planar_profile_is_loaded (self->profile)));
}

static void
profile_finished_loading (PlanarTimeline *self)
{
  /* Loading ends by aligning the hosts, which moves every event: the
   * caches of the tracks layer are stale even where the rows are not. */
  planar_track_renderer_reset (self->renderer);
  refresh_layout_still (self);
  if (!self->view_touched)
    {
      gint64 first, last;

      get_span (self, &first, &last);
      set_view_internal (self, first, last);
    }
  _planar_timeline_invalidate_tracks (self);
}

/* The profile's loaders published tracks (notified in an idle of the main
 * loop, at most once an iteration): lay out again. */
static void
profile_tracks_changed (PlanarTimeline *self)
{
  if (!profile_changing (self))
    return;
  refresh_layout_still (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (!self->view_touched)
    {
      gint64 first, last;

      get_span (self, &first, &last);
      set_view_internal (self, first, last);
    }
}

static void
profile_state_changed (PlanarTimeline *self)
{
  if (!profile_changing (self))
    profile_finished_loading (self);
}

void
_planar_timeline_request_host (PlanarTimeline *self,
                               guint           section)
{
  const PlanarTimelineSection *s = planar_timeline_layout_get_section (self->layout, section);

  if (s->pending && planar_profile_get_trace_state (self->profile, s->trace) == PLANAR_PROFILE_TRACE_PENDING)
    g_signal_emit (self, signals[HOST_REQUESTED], 0, s->trace);
}

PlanarProfile *
planar_timeline_get_profile (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), NULL);
  return self->profile;
}

void
planar_timeline_set_profile (PlanarTimeline *self,
                             PlanarProfile  *profile)
{
  gint64 first, last;

  g_return_if_fail (PLANAR_IS_TIMELINE (self));
  g_return_if_fail (profile == NULL || PLANAR_IS_PROFILE (profile));

  if (self->profile == profile)
    return;

  stop_loading_watch (self);
  g_set_object (&self->profile, profile);

  planar_timeline_layout_reset (self->layout);
  planar_track_renderer_reset (self->renderer);
  planar_timeline_view_clear_marks (self->view);
  self->has_go_to_marker = FALSE;
  /* A find's hits name the old profile's tracks. */
  g_clear_pointer (&self->search_hits, planar_search_hit_index_unref);
  self->view_touched = FALSE;
  _planar_timeline_input_reset (self);
  planar_timeline_view_set_selection (self->view, NULL);
  /* A new profile shows everything, unless told otherwise (after the
   * selection is gone: it belongs to the old profile). */
  if (!planar_view_state_is_default (self->view_state))
    {
      g_autoptr(PlanarViewState) state = planar_view_state_new ();

      planar_timeline_set_view_state (self, state);
    }

  if (profile != NULL && !planar_profile_is_loaded (profile))
    {
      self->loaded_handler = g_signal_connect_object (profile, "notify::loaded",
                                                      G_CALLBACK (profile_state_changed), self,
                                                      G_CONNECT_SWAPPED);
      /* A lazy profile's hosts decode on demand, after its load. */
      self->busy_handler = g_signal_connect_object (profile, "notify::busy",
                                                    G_CALLBACK (profile_state_changed), self,
                                                    G_CONNECT_SWAPPED);
      self->tracks_handler = g_signal_connect_object (profile, "tracks-changed",
                                                      G_CALLBACK (profile_tracks_changed), self,
                                                      G_CONNECT_SWAPPED);
      /* A pending host's header says how far its decode is. */
      self->fraction_handler = g_signal_connect_object (profile, "notify::fraction",
                                                        G_CALLBACK (gtk_widget_queue_draw), self,
                                                        G_CONNECT_SWAPPED);
    }

  _planar_timeline_refresh_layout (self);
  get_span (self, &first, &last);
  set_view_internal (self, first, last);
  if (self->vadjustment != NULL)
    gtk_adjustment_set_value (self->vadjustment, 0);
  _planar_timeline_update_actions (self);
  _planar_timeline_invalidate_tracks (self);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);
}

/* ------------------------------------------------------------------------
 * Tracks shown
 * ------------------------------------------------------------------------ */

PlanarViewState *
planar_timeline_get_view_state (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), NULL);
  return self->view_state;
}

void
planar_timeline_set_view_state (PlanarTimeline  *self,
                                PlanarViewState *state)
{
  g_autoptr(PlanarViewState) old = NULL;
  g_autoptr(PlanarViewState) fresh = NULL;

  g_return_if_fail (PLANAR_IS_TIMELINE (self));
  g_return_if_fail (state == NULL || PLANAR_IS_VIEW_STATE (state));

  if (state == NULL)
    state = fresh = planar_view_state_new ();
  if (self->view_state == state)
    return;
  old = g_steal_pointer (&self->view_state);
  self->view_state = g_object_ref (state);
  _planar_timeline_watch_view_state (self, old);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW_STATE]);
}

const char *
planar_timeline_get_track_filter (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), NULL);
  return self->track_filter != NULL ? self->track_filter : "";
}

void
planar_timeline_set_track_filter (PlanarTimeline *self,
                                  const char     *filter)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));

  if (filter != NULL && filter[0] == '\0')
    filter = NULL;
  if (g_strcmp0 (self->track_filter, filter) == 0)
    return;
  g_free (self->track_filter);
  self->track_filter = g_strdup (filter);
  planar_timeline_layout_set_filter (self->layout, filter);
  _planar_timeline_refresh_layout (self);
  _planar_timeline_invalidate_tracks (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACK_FILTER]);
}

void
planar_timeline_go_to_time (PlanarTimeline *self,
                            gint64          t_ps)
{
  gint64 width;

  g_return_if_fail (PLANAR_IS_TIMELINE (self));

  width = planar_timeline_view_get_end_ps (self->view) - planar_timeline_view_get_start_ps (self->view);
  /* At overview zoom (the whole profile in view) the time alone would not
   * move the view: zoom in to 1% of it, at least a microsecond. */
  {
    gint64 first_ps, last_ps;

    get_span (self, &first_ps, &last_ps);
    if (width >= last_ps - first_ps)
      width = MAX (width / 100, PLANAR_PS_PER_US);
  }
  self->has_go_to_marker = TRUE;
  self->go_to_marker_ps = t_ps;
  planar_timeline_set_view (self, t_ps - width / 2, t_ps - width / 2 + width);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
planar_timeline_get_go_to_marker (PlanarTimeline *self,
                                  gint64         *t_ps)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), FALSE);

  if (self->has_go_to_marker && t_ps != NULL)
    *t_ps = self->go_to_marker_ps;
  return self->has_go_to_marker;
}

/* ------------------------------------------------------------------------
 * Selection
 * ------------------------------------------------------------------------ */

/* What a screen reader says about the selection: the event's name, start
 * and duration, or how many events are selected. */
static void
update_accessible_selection (PlanarTimeline *self)
{
  g_autofree char *text = NULL;
  gsize n = planar_timeline_view_get_selection (self->view) ? planar_selection_get_n_events (planar_timeline_view_get_selection (self->view)) : 0;

  if (n == 1)
    {
      const PlanarPlane *plane = NULL;
      const PlanarTrack *track = NULL;
      const PlanarEvent *ev = planar_selection_resolve (planar_timeline_view_get_selection (self->view), 0, NULL, &plane, &track);

      if (ev != NULL)
        {
          g_autofree char *start_ascii = planar_format_duration (ev->start_ps);
          g_autofree char *duration_ascii = planar_format_duration (ev->duration_ps);
          g_autofree char *start = planar_stat_micro_sign (start_ascii);
          g_autofree char *duration = planar_stat_micro_sign (duration_ascii);

          /* Translators: an event's name, the track it is on, when it starts and how long it lasts. */
          text = g_strdup_printf (_("Selected %s on %s, at %s, lasting %s"),
                                  planar_plane_get_event_name (plane, ev, TRUE), track->display_name,
                                  start, duration);
        }
    }
  else if (n > 1)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GSIZE_FORMAT, n);

      text = g_strdup_printf (ngettext ("%s event selected", "%s events selected", (gulong) MIN (n, G_MAXULONG)),
                              count);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  text ? text : _("Nothing selected"),
                                  -1);
}

PlanarSelection *
planar_timeline_get_selection (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), NULL);
  return planar_timeline_view_get_selection (self->view);
}

void
planar_timeline_set_selection (PlanarTimeline  *self,
                               PlanarSelection *selection)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));
  g_return_if_fail (selection == NULL || PLANAR_IS_SELECTION (selection));

  planar_timeline_view_set_selection (self->view, selection);
}

/* ------------------------------------------------------------------------
 * Marks
 * ------------------------------------------------------------------------ */

void
_planar_timeline_mark (PlanarTimeline *self)
{
  PlanarSelection *selection = planar_timeline_view_get_selection (self->view);
  gint64 start, end;

  /* Marking the same range again takes the mark away. */
  if (selection != NULL && planar_selection_get_bounds (selection, &start, &end))
    planar_timeline_view_toggle_mark (self->view, start, end);
}

void
_planar_timeline_clear_marks (PlanarTimeline *self)
{
  planar_timeline_view_clear_marks (self->view);
}

guint
planar_timeline_get_n_marks (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), 0);
  return planar_timeline_view_get_n_marks (self->view);
}

void
planar_timeline_get_mark (PlanarTimeline *self,
                          guint           index,
                          gint64         *start_ps,
                          gint64         *end_ps)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));

  planar_timeline_view_get_mark (self->view, index, start_ps, end_ps);
}

/* ------------------------------------------------------------------------
 * Simple properties
 * ------------------------------------------------------------------------ */

PlanarTimelineView *
planar_timeline_get_timeline_view (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), NULL);
  return self->view;
}

gint64
planar_timeline_get_start_ps (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), 0);
  return planar_timeline_view_get_start_ps (self->view);
}

gint64
planar_timeline_get_end_ps (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), 0);
  return planar_timeline_view_get_end_ps (self->view);
}


gboolean
_planar_timeline_on_label_edge (PlanarTimeline *self,
                                double          x,
                                double          y)
{
  return y >= PLANAR_TIMELINE_AXIS_HEIGHT && fabs (x - self->label_width) <= PLANAR_TIMELINE_LABEL_GRIP;
}

void
_planar_timeline_set_label_width (PlanarTimeline *self,
                                  int             width,
                                  gboolean        remember)
{
  int most = MAX (PLANAR_TIMELINE_LABEL_WIDTH_MIN,
                  MIN (PLANAR_TIMELINE_LABEL_WIDTH_MAX, gtk_widget_get_width (GTK_WIDGET (self)) - 200));

  /* Before the first allocation the widget has no width to bound it. */
  if (gtk_widget_get_width (GTK_WIDGET (self)) <= 0)
    most = PLANAR_TIMELINE_LABEL_WIDTH_MAX;
  width = CLAMP (width, PLANAR_TIMELINE_LABEL_WIDTH_MIN, most);
  if (remember && self->view_state != NULL)
    planar_view_state_set_label_width (self->view_state, width == PLANAR_TIMELINE_LABEL_WIDTH ? 0 : width);
  if (width == self->label_width)
    return;
  self->label_width = width;
  _planar_timeline_invalidate_tracks (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

PlanarTimelineTool
planar_timeline_get_tool (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), PLANAR_TIMELINE_TOOL_SELECT);
  return planar_timeline_view_get_tool (self->view);
}

void
planar_timeline_set_tool (PlanarTimeline     *self,
                          PlanarTimelineTool  tool)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));
  g_return_if_fail (tool <= PLANAR_TIMELINE_TOOL_TIMING);

  planar_timeline_view_set_tool (self->view, tool);
}

gboolean
planar_timeline_get_show_flows (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), FALSE);
  return planar_timeline_view_get_show_flows (self->view);
}

void
planar_timeline_set_show_flows (PlanarTimeline *self,
                                gboolean        show_flows)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));

  planar_timeline_view_set_show_flows (self->view, show_flows);
}

gboolean
planar_timeline_get_flow_category_visible (PlanarTimeline *self,
                                           guint           category)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), FALSE);
  return planar_timeline_view_get_flow_category_visible (self->view, category);
}

void
planar_timeline_set_flow_category_visible (PlanarTimeline *self,
                                           guint           category,
                                           gboolean        visible)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));
  planar_timeline_view_set_flow_category_visible (self->view, category, visible);
}

gboolean
planar_timeline_get_hide_internal_events (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), FALSE);
  return self->hide_internal_events;
}

void
planar_timeline_set_hide_internal_events (PlanarTimeline *self,
                                          gboolean        hide_internal_events)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));

  hide_internal_events = !!hide_internal_events;
  if (self->hide_internal_events == hide_internal_events)
    return;
  self->hide_internal_events = hide_internal_events;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIDE_INTERNAL_EVENTS]);
  _planar_timeline_invalidate_tracks (self);
}

gboolean
planar_timeline_get_show_grid (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), FALSE);
  return self->show_grid;
}

void
planar_timeline_set_show_grid (PlanarTimeline *self,
                               gboolean        show_grid)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));

  show_grid = !!show_grid;
  if (self->show_grid == show_grid)
    return;
  self->show_grid = show_grid;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_GRID]);
  _planar_timeline_invalidate_tracks (self);
}

gboolean
_planar_timeline_get_track_y (PlanarTimeline *self,
                              guint           trace,
                              guint           plane,
                              guint           track,
                              guint           depth,
                              double         *y)
{
  int r = planar_timeline_layout_find_track (self->layout, trace, plane, track);

  if (r < 0)
    return FALSE;
  *y = _planar_timeline_widget_y (self, planar_timeline_row_depth_y (planar_timeline_layout_get_row (self->layout, (guint) r), depth));
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Size
 * ------------------------------------------------------------------------ */

static void
planar_timeline_measure (GtkWidget      *widget,
                         GtkOrientation  orientation,
                         int             for_size,
                         int            *minimum,
                         int            *natural,
                         int            *minimum_baseline,
                         int            *natural_baseline)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  int child_min, child_nat;

  gtk_widget_measure (self->tool_selector, orientation, -1, &child_min, &child_nat, NULL, NULL);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = self->label_width + MAX (child_min + 24, 100);
      *natural = MAX (*minimum, 960);
    }
  else
    {
      *minimum = PLANAR_TIMELINE_AXIS_HEIGHT + MAX (child_min + 16, 60);
      *natural = MAX (*minimum, PLANAR_TIMELINE_AXIS_HEIGHT + planar_timeline_layout_get_height (self->layout));
    }
}

double
_planar_timeline_header_text_end (PlanarTimeline *self,
                                  double          y)
{
  double end = gtk_widget_get_width (GTK_WIDGET (self)) - 8;
  graphene_rect_t palette;

  /* The palette floats in the right end of the top header row: a header
   * beside it ends its text before it, a gap away. */
  if (self->tool_selector != NULL && gtk_widget_get_visible (self->tool_selector) &&
      gtk_widget_compute_bounds (self->tool_selector, GTK_WIDGET (self), &palette) &&
      y < palette.origin.y + palette.size.height && y + PLANAR_TIMELINE_SECTION_HEIGHT > palette.origin.y)
    end = MIN (end, palette.origin.x - 12);
  return end;
}

static void
planar_timeline_size_allocate (GtkWidget *widget,
                               int        width,
                               int        height,
                               int        baseline)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  GtkRequisition natural;

  /* The tool selector floats in the right end of the header row under
   * the axis: a host's or section's, or the one pinned there once the
   * tracks are scrolled, whose text ends before it. Lower, it hid the end
   * of the first track, a GPU's stream in most profiles, and in a short
   * program's recording every kernel (they run last). */
  gtk_widget_get_preferred_size (self->tool_selector, NULL, &natural);
  gtk_widget_size_allocate (self->tool_selector,
                            &(GtkAllocation) { MAX (width - natural.width - 8, self->label_width),
                                               PLANAR_TIMELINE_AXIS_HEIGHT
                                               + MAX ((PLANAR_TIMELINE_SECTION_HEIGHT - natural.height) / 2, 0),
                                               natural.width, natural.height },
                            -1);
  configure_vadjustment (self);
  configure_hadjustment (self);
  _planar_timeline_allocate_popovers (self);
  _planar_timeline_input_clear_hover (self);
}

/* ------------------------------------------------------------------------
 * GObject
 * ------------------------------------------------------------------------ */

static void
planar_timeline_dispose (GObject *object)
{
  PlanarTimeline *self = (PlanarTimeline *) object;

  stop_loading_watch (self);
  _planar_timeline_dispose_tracks (self);
  g_clear_pointer (&self->tool_selector, gtk_widget_unparent);
  g_clear_object (&self->profile);
  if (self->view != NULL)
    g_signal_handlers_disconnect_by_func (self->view, view_notify, self);
  g_clear_object (&self->view);
  if (self->hadjustment != NULL)
    g_signal_handlers_disconnect_by_func (self->hadjustment, hadjustment_value_changed, self);
  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_func (self->vadjustment, vadjustment_value_changed, self);
  g_clear_object (&self->hadjustment);
  g_clear_object (&self->vadjustment);
  g_clear_pointer (&self->tracks_node, gsk_render_node_unref);
  _planar_timeline_drop_layouts (self);

  G_OBJECT_CLASS (planar_timeline_parent_class)->dispose (object);
}

static void
planar_timeline_finalize (GObject *object)
{
  PlanarTimeline *self = (PlanarTimeline *) object;

  g_clear_pointer (&self->layout, planar_timeline_layout_free);
  g_clear_pointer (&self->renderer, planar_track_renderer_free);
  g_clear_pointer (&self->flows, g_array_unref);
  g_clear_pointer (&self->hit_spans, g_array_unref);
  g_clear_pointer (&self->search_hits, planar_search_hit_index_unref);
  g_clear_pointer (&self->track_filter, g_free);
  g_clear_pointer (&self->input, _planar_timeline_input_free);

  G_OBJECT_CLASS (planar_timeline_parent_class)->finalize (object);
}

static void
planar_timeline_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  PlanarTimeline *self = PLANAR_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_PROFILE:
      g_value_set_object (value, self->profile);
      break;
    case PROP_START_PS:
      g_value_set_int64 (value, planar_timeline_view_get_start_ps (self->view));
      break;
    case PROP_END_PS:
      g_value_set_int64 (value, planar_timeline_view_get_end_ps (self->view));
      break;
    case PROP_TOOL:
      g_value_set_enum (value, planar_timeline_view_get_tool (self->view));
      break;
    case PROP_SELECTION:
      g_value_set_object (value, planar_timeline_view_get_selection (self->view));
      break;
    case PROP_SHOW_FLOWS:
      g_value_set_boolean (value, planar_timeline_view_get_show_flows (self->view));
      break;
    case PROP_SHOW_GRID:
      g_value_set_boolean (value, self->show_grid);
      break;
    case PROP_HIDE_INTERNAL_EVENTS:
      g_value_set_boolean (value, self->hide_internal_events);
      break;
    case PROP_VIEW_STATE:
      g_value_set_object (value, self->view_state);
      break;
    case PROP_TRACK_FILTER:
      g_value_set_string (value, planar_timeline_get_track_filter (self));
      break;
    case PROP_HADJUSTMENT:
      g_value_set_object (value, self->hadjustment);
      break;
    case PROP_VADJUSTMENT:
      g_value_set_object (value, self->vadjustment);
      break;
    case PROP_HSCROLL_POLICY:
      g_value_set_enum (value, self->hscroll_policy);
      break;
    case PROP_VSCROLL_POLICY:
      g_value_set_enum (value, self->vscroll_policy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_timeline_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  PlanarTimeline *self = PLANAR_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_PROFILE:
      planar_timeline_set_profile (self, g_value_get_object (value));
      break;
    case PROP_START_PS:
      planar_timeline_set_view (self, g_value_get_int64 (value), MAX (planar_timeline_view_get_end_ps (self->view), g_value_get_int64 (value)));
      break;
    case PROP_END_PS:
      planar_timeline_set_view (self, MIN (planar_timeline_view_get_start_ps (self->view), g_value_get_int64 (value)), g_value_get_int64 (value));
      break;
    case PROP_TOOL:
      planar_timeline_set_tool (self, g_value_get_enum (value));
      break;
    case PROP_SELECTION:
      planar_timeline_set_selection (self, g_value_get_object (value));
      break;
    case PROP_SHOW_FLOWS:
      planar_timeline_set_show_flows (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_GRID:
      planar_timeline_set_show_grid (self, g_value_get_boolean (value));
      break;
    case PROP_HIDE_INTERNAL_EVENTS:
      planar_timeline_set_hide_internal_events (self, g_value_get_boolean (value));
      break;
    case PROP_VIEW_STATE:
      planar_timeline_set_view_state (self, g_value_get_object (value));
      break;
    case PROP_TRACK_FILTER:
      planar_timeline_set_track_filter (self, g_value_get_string (value));
      break;
    case PROP_HADJUSTMENT:
      set_adjustment (self, &self->hadjustment, g_value_get_object (value),
                      G_CALLBACK (hadjustment_value_changed), PROP_HADJUSTMENT);
      break;
    case PROP_VADJUSTMENT:
      set_adjustment (self, &self->vadjustment, g_value_get_object (value),
                      G_CALLBACK (vadjustment_value_changed), PROP_VADJUSTMENT);
      break;
    case PROP_HSCROLL_POLICY:
      self->hscroll_policy = g_value_get_enum (value);
      gtk_widget_queue_resize (GTK_WIDGET (self));
      break;
    case PROP_VSCROLL_POLICY:
      self->vscroll_policy = g_value_get_enum (value);
      gtk_widget_queue_resize (GTK_WIDGET (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The layouts were made with the font of the time (the smaller ones from
 * its size): a new font, in the settings or in the fonts installed, makes
 * them again, or the labels would keep the old one. */
static void
planar_timeline_system_setting_changed (GtkWidget        *widget,
                                        GtkSystemSetting  setting)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);

  GTK_WIDGET_CLASS (planar_timeline_parent_class)->system_setting_changed (widget, setting);
  if (setting == GTK_SYSTEM_SETTING_FONT_NAME || setting == GTK_SYSTEM_SETTING_FONT_CONFIG)
    {
      _planar_timeline_drop_layouts (self);
      _planar_timeline_invalidate_tracks (self);
      gtk_widget_queue_draw (widget);
    }
}

static void
planar_timeline_class_init (PlanarTimelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_timeline_dispose;
  object_class->finalize = planar_timeline_finalize;
  object_class->get_property = planar_timeline_get_property;
  object_class->set_property = planar_timeline_set_property;

  widget_class->snapshot = _planar_timeline_snapshot;
  widget_class->measure = planar_timeline_measure;
  widget_class->size_allocate = planar_timeline_size_allocate;
  widget_class->system_setting_changed = planar_timeline_system_setting_changed;

  properties[PROP_PROFILE] =
    g_param_spec_object ("profile", NULL, NULL,
                         PLANAR_TYPE_PROFILE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The visible window, ps since the profile start. */
  properties[PROP_START_PS] =
    g_param_spec_int64 ("start-ps", NULL, NULL,
                        G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_END_PS] =
    g_param_spec_int64 ("end-ps", NULL, NULL,
                        G_MININT64, G_MAXINT64, DEFAULT_WINDOW_PS,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TOOL] =
    g_param_spec_enum ("tool", NULL, NULL,
                       PLANAR_TYPE_TIMELINE_TOOL, PLANAR_TIMELINE_TOOL_SELECT,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTION] =
    g_param_spec_object ("selection", NULL, NULL,
                         PLANAR_TYPE_SELECTION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_FLOWS] =
    g_param_spec_boolean ("show-flows", NULL, NULL,
                          FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_GRID] =
    g_param_spec_boolean ("show-grid", NULL, NULL,
                          FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* XProf's trace viewer hides the profiler's own bookkeeping events
   * (memory allocations, prefetches, ...) unless asked to show them. */
  properties[PROP_HIDE_INTERNAL_EVENTS] =
    g_param_spec_boolean ("hide-internal-events", NULL, NULL,
                          TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Hidden tracks and sections, collapsed sections, their order. */
  properties[PROP_VIEW_STATE] =
    g_param_spec_object ("view-state", NULL, NULL,
                         PLANAR_TYPE_VIEW_STATE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TRACK_FILTER] =
    g_param_spec_string ("track-filter", NULL, NULL,
                         "",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A host of a lazy profile was asked for (its section expanded): the
   * handler decodes it (planar_profile_load_traces_async()), which the
   * timeline follows. */
  signals[HOST_REQUESTED] =
    g_signal_new ("host-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  gtk_widget_class_set_css_name (widget_class, "planartimeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_WIDGET);

  _planar_timeline_class_add_actions (widget_class);
  _planar_timeline_class_add_track_actions (widget_class);
}

static void
planar_timeline_init (PlanarTimeline *self)
{
  self->input = _planar_timeline_input_new ();
  self->hide_internal_events = TRUE;
  self->label_width = PLANAR_TIMELINE_LABEL_WIDTH;
  self->view = planar_timeline_view_new ();
  planar_timeline_view_set_visible_range (self->view, 0, DEFAULT_WINDOW_PS);
  g_signal_connect (self->view, "notify", G_CALLBACK (view_notify), self);
  self->layout = planar_timeline_layout_new ();
  self->renderer = planar_track_renderer_new ();
  self->flows = g_array_new (FALSE, FALSE, sizeof (PlanarFlow));
  self->hit_spans = g_array_new (FALSE, FALSE, sizeof (PlanarSearchHitSpan));
  self->tracks_dirty = TRUE;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_focus_on_click (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  set_adjustment (self, &self->hadjustment, NULL, G_CALLBACK (hadjustment_value_changed), PROP_HADJUSTMENT);
  set_adjustment (self, &self->vadjustment, NULL, G_CALLBACK (vadjustment_value_changed), PROP_VADJUSTMENT);

  self->tool_selector = planar_tool_selector_new ();
  gtk_widget_set_parent (self->tool_selector, GTK_WIDGET (self));

  self->view_state = planar_view_state_new ();
  _planar_timeline_watch_view_state (self, NULL);
  _planar_timeline_init_tracks (self);

  _planar_timeline_init_input (self);

  /* Control accelerators act wherever the focus is in the window; the bare
   * keys are class bindings, active while the timeline has focus (a window
   * may hand them on: planar_shortcuts_activate_typed_key()). */
  gtk_widget_add_controller (GTK_WIDGET (self), planar_shortcuts_new_window_controller ("timeline."));

  _planar_timeline_update_actions (self);
}

GtkWidget *
planar_timeline_new (void)
{
  return g_object_new (PLANAR_TYPE_TIMELINE, NULL);
}

