/* test-timeline.c: PlanarTimeline's commands, input handlers, selection
 * and layout, on a real profile. Commands are activated as actions, the
 * same path the keys and menus take.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "planar-shortcuts.h"
#include "planar-span-index.h"
#include "planar-time-ticks.h"
#include "planar-test-samples.h"
#include "planar-timeline-private.h"

#define SAMPLE_GPU "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb"

#define WIDTH  1600
#define HEIGHT 1000

static PlanarProfile *sample;
/* The sample, or in a clone without the samples a profile of planar-gen:
 * for the cases that work on any profile. */
static PlanarProfile *any_profile;

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

static char *
sample_path (const char *name)
{
  return planar_test_sample_path (name);
}

static PlanarProfile *
load_profile (const char *path)
{
  const char *paths[] = { path, NULL };
  g_autoptr(GError) error = NULL;
  PlanarProfile *profile = planar_profile_new (paths);

  planar_profile_load (profile, NULL, &error);
  g_assert_no_error (error);
  return profile;
}

static void
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
wait_until_allocated (GtkWidget *widget)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!gtk_widget_get_mapped (widget) || gtk_widget_get_width (widget) <= 1)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  drain ();
}

typedef struct
{
  GtkWidget      *window;
  PlanarTimeline *timeline;
} Fixture;

/* The timeline in a scrolled window, as the application has it. */
static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), WIDTH, HEIGHT);
  gtk_window_set_decorated (GTK_WINDOW (f->window), FALSE);
  f->timeline = g_object_ref (PLANAR_TIMELINE (planar_timeline_new ()));
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (f->timeline));
  gtk_window_set_child (GTK_WINDOW (f->window), scrolled);
  if (data != NULL)
    planar_timeline_set_profile (f->timeline, (PlanarProfile *) data);
  gtk_window_present (GTK_WINDOW (f->window));
  wait_until_allocated (GTK_WIDGET (f->timeline));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  drain ();
  g_assert_finalize_object (f->timeline);
}

static void
activate (Fixture    *f,
          const char *action)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->timeline), action, NULL));
}

static gint64
window_width (Fixture *f)
{
  return planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline);
}

static gint64
window_middle (Fixture *f)
{
  return planar_timeline_get_start_ps (f->timeline) + window_width (f) / 2;
}

/* Asserts @a is within @tolerance of @b. */
#define assert_near(a, b, tolerance) \
  G_STMT_START { \
    gint64 _a = (a), _b = (b), _t = (tolerance); \
    if (ABS (_a - _b) > _t) \
      g_error ("%s = %" G_GINT64_FORMAT " is not within %" G_GINT64_FORMAT " of %s = %" G_GINT64_FORMAT, \
               #a, _a, _t, #b, _b); \
  } G_STMT_END

static const PlanarPlane *
find_plane (guint      *index,
            const char *name)
{
  PlanarTrace *trace = planar_profile_get_trace (sample, 0);

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    if (strcmp (planar_trace_get_plane (trace, p)->name, name) == 0)
      {
        *index = p;
        return planar_trace_get_plane (trace, p);
      }
  g_error ("no plane %s", name);
}

static guint
find_track (const PlanarPlane *plane,
            const char        *name)
{
  for (guint t = 0; t < plane->n_tracks; t++)
    if (strcmp (plane->tracks[t].name, name) == 0)
      return t;
  g_error ("no track %s", name);
}

/* The GPU 4 step: the busiest stretch of the sample. */
static const PlanarEvent *
gpu4_step (void)
{
  guint p;
  const PlanarPlane *plane = find_plane (&p, "/device:GPU:4");

  return &plane->tracks[find_track (plane, "Steps")].events[0];
}

/* ------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------ */

static void
count_notify (guint *counter)
{
  (*counter)++;
}

static void
test_defaults (Fixture       *f,
               gconstpointer  data)
{
  gint64 first, last;

  g_assert_true (planar_timeline_get_profile (f->timeline) == sample);
  g_assert_cmpint (planar_timeline_get_tool (f->timeline), ==, PLANAR_TIMELINE_TOOL_SELECT);
  g_assert_null (planar_timeline_get_selection (f->timeline));
  g_assert_false (planar_timeline_get_show_grid (f->timeline));
  g_assert_false (planar_timeline_get_show_flows (f->timeline));
  /* Internal events are hidden unless asked for, as in XProf; the setting
   * is a property the application binds. */
  g_assert_true (planar_timeline_get_hide_internal_events (f->timeline));
  {
    guint notified = 0;
    gulong id = g_signal_connect_swapped (f->timeline, "notify::hide-internal-events",
                                          G_CALLBACK (count_notify), &notified);

    g_object_set (f->timeline, "hide-internal-events", FALSE, NULL);
    g_assert_cmpuint (notified, ==, 1);
    g_assert_false (planar_timeline_get_hide_internal_events (f->timeline));
    /* Setting the same value again says nothing. */
    planar_timeline_set_hide_internal_events (f->timeline, FALSE);
    g_assert_cmpuint (notified, ==, 1);
    planar_timeline_set_hide_internal_events (f->timeline, TRUE);
    g_assert_cmpuint (notified, ==, 2);
    g_signal_handler_disconnect (f->timeline, id);
  }
  /* A loaded profile is shown whole. */
  g_assert_true (planar_profile_get_span (sample, &first, &last));
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, first);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline), ==, last);
  /* The scrolled window drives the vertical adjustment. */
  g_assert_cmpfloat (gtk_adjustment_get_upper (gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (f->timeline))),
                     >, HEIGHT);
}

static void
test_no_profile (Fixture       *f,
                 gconstpointer  data)
{
  const char *actions[] = {
    "timeline.zoom-in", "timeline.zoom-out", "timeline.pan-left", "timeline.pan-right",
    "timeline.toggle-grid", "timeline.show-flows",
  };
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (f->timeline));
  GtkSnapshot *snapshot;
  GskRenderNode *node;

  g_assert_null (planar_timeline_get_profile (f->timeline));
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    activate (f, actions[i]);
  /* The commands that need a profile or a selection are off. */
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (f->timeline), "timeline.zoom-to-selection", NULL) &&
                  planar_timeline_get_selection (f->timeline) != NULL);
  g_assert_cmpint (window_width (f), >, 0);

  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, WIDTH, HEIGHT);
  node = gtk_snapshot_free_to_node (snapshot);
  g_clear_pointer (&node, gsk_render_node_unref);

  /* A profile, then none again. */
  planar_timeline_set_profile (f->timeline, any_profile);
  g_assert_cmpint (planar_timeline_layout_get_n_rows (f->timeline->layout), >, 0);
  planar_timeline_set_profile (f->timeline, NULL);
  g_assert_cmpint (planar_timeline_layout_get_n_rows (f->timeline->layout), ==, 0);
}

static void
test_zoom_actions (Fixture       *f,
                   gconstpointer  data)
{
  gint64 first, last, width, middle;

  planar_profile_get_span (sample, &first, &last);
  /* The pointer is not over the widget: keys zoom around the middle. */
  f->timeline->input->pointer_inside = FALSE;

  width = window_width (f);
  middle = window_middle (f);
  activate (f, "timeline.zoom-in");
  assert_near (window_width (f), (gint64) (width / PLANAR_TIMELINE_ZOOM_STEP), 2);
  assert_near (window_middle (f), middle, 2);

  width = window_width (f);
  activate (f, "timeline.zoom-in-fast");
  assert_near (window_width (f), (gint64) (width / PLANAR_TIMELINE_ZOOM_STEP_FAST), 2);
  assert_near (window_middle (f), middle, 2);

  width = window_width (f);
  activate (f, "timeline.zoom-out");
  assert_near (window_width (f), (gint64) (width * PLANAR_TIMELINE_ZOOM_STEP), 2);
  assert_near (window_middle (f), middle, 2);

  width = window_width (f);
  activate (f, "timeline.zoom-out-fast");
  assert_near (window_width (f), (gint64) (width * PLANAR_TIMELINE_ZOOM_STEP_FAST), 2);

  /* Zooming out stops at the whole profile. */
  for (guint i = 0; i < 10; i++)
    activate (f, "timeline.zoom-out-fast");
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, first);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline), ==, last);

  /* Keys zoom around the pointer when it is over the tracks: the time
   * under it stays under it. */
  f->timeline->input->pointer_inside = TRUE;
  f->timeline->input->pointer_x = PLANAR_TIMELINE_LABEL_WIDTH + 300;
  f->timeline->input->pointer_y = 200;
  {
    gint64 under = _planar_timeline_time_for_x (f->timeline, f->timeline->input->pointer_x);

    activate (f, "timeline.zoom-in");
    assert_near (_planar_timeline_time_for_x (f->timeline, f->timeline->input->pointer_x), under, window_width (f) / 1000);
  }
  f->timeline->input->pointer_inside = FALSE;

  /* Zooming in stops at the narrowest window. */
  for (guint i = 0; i < 40; i++)
    activate (f, "timeline.zoom-in-fast");
  g_assert_cmpint (window_width (f), ==, PLANAR_TIMELINE_MIN_WINDOW_PS);

  planar_timeline_set_view (f->timeline, first + 10, first + 20);
  activate (f, "timeline.show-all");
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, first);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline), ==, last);
}

static void
test_pan_actions (Fixture       *f,
                  gconstpointer  data)
{
  gint64 first, last, start, width;

  planar_profile_get_span (sample, &first, &last);
  width = (last - first) / 10;
  planar_timeline_set_view (f->timeline, first + 4 * width, first + 5 * width);
  width = window_width (f);

  start = planar_timeline_get_start_ps (f->timeline);
  activate (f, "timeline.pan-right");
  assert_near (planar_timeline_get_start_ps (f->timeline), start + (gint64) (width * PLANAR_TIMELINE_PAN_STEP), 1);
  g_assert_cmpint (window_width (f), ==, width);

  start = planar_timeline_get_start_ps (f->timeline);
  activate (f, "timeline.pan-left");
  assert_near (planar_timeline_get_start_ps (f->timeline), start - (gint64) (width * PLANAR_TIMELINE_PAN_STEP), 1);

  start = planar_timeline_get_start_ps (f->timeline);
  activate (f, "timeline.pan-right-fast");
  assert_near (planar_timeline_get_start_ps (f->timeline), start + (gint64) (width * PLANAR_TIMELINE_PAN_STEP_FAST), 1);

  start = planar_timeline_get_start_ps (f->timeline);
  activate (f, "timeline.pan-left-fast");
  assert_near (planar_timeline_get_start_ps (f->timeline), start - (gint64) (width * PLANAR_TIMELINE_PAN_STEP_FAST), 1);

  /* Panning stops at the ends of the profile. */
  for (guint i = 0; i < 40; i++)
    activate (f, "timeline.pan-right-fast");
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline), ==, last);
  g_assert_cmpint (window_width (f), ==, width);
  for (guint i = 0; i < 40; i++)
    activate (f, "timeline.pan-left-fast");
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, first);
  g_assert_cmpint (window_width (f), ==, width);
}

static void
notify_count (GObject    *object,
              GParamSpec *pspec,
              int        *count)
{
  (*count)++;
}

static void
test_tool_grid_flows (Fixture       *f,
                      gconstpointer  data)
{
  static const struct { const char *target; PlanarTimelineTool tool; } tools[] = {
    { "pan", PLANAR_TIMELINE_TOOL_PAN },
    { "zoom", PLANAR_TIMELINE_TOOL_ZOOM },
    { "timing", PLANAR_TIMELINE_TOOL_TIMING },
    { "select", PLANAR_TIMELINE_TOOL_SELECT },
  };
  int tool_notifies = 0;
  gint64 start = planar_timeline_get_start_ps (f->timeline);
  gint64 end = planar_timeline_get_end_ps (f->timeline);

  g_signal_connect (f->timeline, "notify::tool", G_CALLBACK (notify_count), &tool_notifies);
  for (guint i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->timeline), "timeline.tool", "s", tools[i].target));
      g_assert_cmpint (planar_timeline_get_tool (f->timeline), ==, tools[i].tool);
    }
  g_assert_cmpint (tool_notifies, ==, G_N_ELEMENTS (tools));
  /* Setting the same tool again says nothing. */
  planar_timeline_set_tool (f->timeline, PLANAR_TIMELINE_TOOL_SELECT);
  g_assert_cmpint (tool_notifies, ==, G_N_ELEMENTS (tools));

  activate (f, "timeline.toggle-grid");
  g_assert_true (planar_timeline_get_show_grid (f->timeline));
  activate (f, "timeline.toggle-grid");
  g_assert_false (planar_timeline_get_show_grid (f->timeline));

  activate (f, "timeline.show-flows");
  g_assert_true (planar_timeline_get_show_flows (f->timeline));
  activate (f, "timeline.show-flows");
  g_assert_false (planar_timeline_get_show_flows (f->timeline));

  g_assert_true (planar_timeline_get_flow_category_visible (f->timeline, 9));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->timeline), "timeline.toggle-flow-category", "u", 9));
  g_assert_false (planar_timeline_get_flow_category_visible (f->timeline, 9));
  g_assert_true (planar_timeline_get_flow_category_visible (f->timeline, 2));

  /* None of these moves the view. */
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, start);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline), ==, end);
}

static void
test_selection_actions (Fixture       *f,
                        gconstpointer  data)
{
  guint p;
  const PlanarPlane *plane = find_plane (&p, "/device:GPU:4");
  guint t = find_track (plane, "TensorFlow Name Scope");
  const PlanarTrack *track = &plane->tracks[t];
  g_autoptr(PlanarSelection) selection = NULL;
  PlanarEventRef ref = { p, 0, t, 0 };
  const PlanarEventRef *refs;
  const PlanarEvent *ev, *next, *parent, *child;
  gint64 margin, start, end;
  int selection_notifies = 0;
  gsize n;

  /* An event at depth 2 with siblings on both sides. */
  for (ref.index = 0; ref.index < track->n_events; ref.index++)
    if (track->events[ref.index].depth == 2 && ref.index > 200)
      break;
  g_assert_cmpuint (ref.index, <, track->n_events);
  ev = &track->events[ref.index];

  g_signal_connect (f->timeline, "notify::selection", G_CALLBACK (notify_count), &selection_notifies);
  selection = planar_selection_new_for_event (sample, &ref);
  planar_timeline_set_selection (f->timeline, selection);
  g_assert_true (planar_timeline_get_selection (f->timeline) == selection);
  g_assert_cmpint (selection_notifies, ==, 1);

  activate (f, "timeline.zoom-to-selection");
  margin = (gint64) (ev->duration_ps * PLANAR_TIMELINE_FIT_MARGIN);
  assert_near (planar_timeline_get_start_ps (f->timeline), ev->start_ps - margin, 1);
  assert_near (planar_timeline_get_end_ps (f->timeline), ev->start_ps + ev->duration_ps + margin, 1);

  activate (f, "timeline.mark");
  g_assert_cmpuint (planar_timeline_get_n_marks (f->timeline), ==, 1);
  planar_timeline_get_mark (f->timeline, 0, &start, &end);
  g_assert_cmpint (start, ==, ev->start_ps);
  g_assert_cmpint (end, ==, ev->start_ps + ev->duration_ps);

  /* Next: the following event of the same depth. */
  activate (f, "timeline.next-event");
  refs = planar_selection_get_events (planar_timeline_get_selection (f->timeline), &n);
  g_assert_cmpuint (n, ==, 1);
  next = &track->events[refs[0].index];
  g_assert_cmpuint (refs[0].track, ==, t);
  g_assert_cmpuint (refs[0].index, >, ref.index);
  g_assert_cmpuint (next->depth, ==, ev->depth);
  for (guint32 i = ref.index + 1; i < refs[0].index; i++)
    g_assert_cmpuint (track->events[i].depth, !=, ev->depth);
  /* It is in view. */
  g_assert_cmpint (next->start_ps + next->duration_ps, >=, planar_timeline_get_start_ps (f->timeline));
  g_assert_cmpint (next->start_ps, <=, planar_timeline_get_end_ps (f->timeline));

  activate (f, "timeline.previous-event");
  refs = planar_selection_get_events (planar_timeline_get_selection (f->timeline), &n);
  g_assert_cmpuint (refs[0].index, ==, ref.index);

  activate (f, "timeline.select-parent");
  refs = planar_selection_get_events (planar_timeline_get_selection (f->timeline), &n);
  parent = &track->events[refs[0].index];
  g_assert_cmpuint (parent->depth, ==, ev->depth - 1);
  g_assert_cmpint (parent->start_ps, <=, ev->start_ps);
  g_assert_cmpint (parent->start_ps + parent->duration_ps, >=, ev->start_ps + ev->duration_ps);

  activate (f, "timeline.select-child");
  refs = planar_selection_get_events (planar_timeline_get_selection (f->timeline), &n);
  child = &track->events[refs[0].index];
  g_assert_cmpuint (child->depth, ==, parent->depth + 1);
  g_assert_cmpint (child->start_ps, >=, parent->start_ps);
  g_assert_cmpint (child->start_ps, <=, parent->start_ps + parent->duration_ps);

  activate (f, "timeline.mark");
  g_assert_cmpuint (planar_timeline_get_n_marks (f->timeline), ==, 2);
  activate (f, "timeline.clear-marks");
  g_assert_cmpuint (planar_timeline_get_n_marks (f->timeline), ==, 0);

  activate (f, "timeline.clear-selection");
  g_assert_null (planar_timeline_get_selection (f->timeline));
  /* Without a selection, the commands that need one do nothing. */
  start = planar_timeline_get_start_ps (f->timeline);
  gtk_widget_activate_action (GTK_WIDGET (f->timeline), "timeline.zoom-to-selection", NULL);
  gtk_widget_activate_action (GTK_WIDGET (f->timeline), "timeline.next-event", NULL);
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, start);
}

static void
test_scroll (Fixture       *f,
             gconstpointer  data)
{
  GtkAdjustment *vadj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (f->timeline));
  double x = PLANAR_TIMELINE_LABEL_WIDTH + 500;
  gint64 width, start, under;
  double value;

  planar_timeline_set_view (f->timeline, gpu4_step ()->start_ps, gpu4_step ()->start_ps + gpu4_step ()->duration_ps);

  /* Control + wheel down zooms out around the pointer, up zooms in. */
  width = window_width (f);
  under = _planar_timeline_time_for_x (f->timeline, x);
  g_assert_true (_planar_timeline_handle_scroll (f->timeline, 0, 1, GDK_CONTROL_MASK, x));
  assert_near (window_width (f), (gint64) (width * PLANAR_TIMELINE_ZOOM_STEP), 2);
  assert_near (_planar_timeline_time_for_x (f->timeline, x), under, window_width (f) / 1000);
  width = window_width (f);
  g_assert_true (_planar_timeline_handle_scroll (f->timeline, 0, -2, GDK_CONTROL_MASK, x));
  assert_near (window_width (f), (gint64) (width / (PLANAR_TIMELINE_ZOOM_STEP * PLANAR_TIMELINE_ZOOM_STEP)), 2);
  assert_near (_planar_timeline_time_for_x (f->timeline, x), under, window_width (f) / 1000);

  /* Shift + wheel pans a tenth of the window per notch. */
  width = window_width (f);
  start = planar_timeline_get_start_ps (f->timeline);
  value = gtk_adjustment_get_value (vadj);
  g_assert_true (_planar_timeline_handle_scroll (f->timeline, 0, 1, GDK_SHIFT_MASK, x));
  assert_near (planar_timeline_get_start_ps (f->timeline), start + (gint64) (width * PLANAR_TIMELINE_PAN_STEP), 1);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), ==, value);

  /* A horizontal wheel pans too. */
  start = planar_timeline_get_start_ps (f->timeline);
  g_assert_true (_planar_timeline_handle_scroll (f->timeline, -1, 0, 0, x));
  assert_near (planar_timeline_get_start_ps (f->timeline), start - (gint64) (width * PLANAR_TIMELINE_PAN_STEP), 1);

  /* The plain wheel scrolls the tracks, not the time. */
  start = planar_timeline_get_start_ps (f->timeline);
  g_assert_true (_planar_timeline_handle_scroll (f->timeline, 0, 2, 0, x));
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), ==, value + 2 * 3 * PLANAR_TIMELINE_DEPTH_PITCH);
  g_assert_true (_planar_timeline_handle_scroll (f->timeline, 0, -1, 0, x));
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), ==, value + 3 * PLANAR_TIMELINE_DEPTH_PITCH);
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, start);
  g_assert_cmpint (window_width (f), ==, width);
}

static void
test_pinch (Fixture       *f,
            gconstpointer  data)
{
  double x = PLANAR_TIMELINE_LABEL_WIDTH + 200;
  gint64 width, under;

  planar_timeline_set_view (f->timeline, gpu4_step ()->start_ps, gpu4_step ()->start_ps + gpu4_step ()->duration_ps);
  width = window_width (f);
  under = _planar_timeline_time_for_x (f->timeline, x);

  /* Spreading the fingers to twice their distance halves the window, and
   * the time between them stays there. */
  _planar_timeline_pinch_begin (f->timeline, x);
  _planar_timeline_pinch_update (f->timeline, 1.5);
  assert_near (window_width (f), (gint64) (width / 1.5), 2);
  _planar_timeline_pinch_update (f->timeline, 2.0);
  assert_near (window_width (f), width / 2, 2);
  assert_near (_planar_timeline_time_for_x (f->timeline, x), under, window_width (f) / 1000);
  /* Scales are relative to where the pinch began. */
  _planar_timeline_pinch_update (f->timeline, 0.5);
  assert_near (window_width (f), width * 2, 4);
  assert_near (_planar_timeline_time_for_x (f->timeline, x), under, window_width (f) / 1000);
}

static int
compare_refs (gconstpointer a,
              gconstpointer b)
{
  return planar_event_ref_compare (a, b);
}

static void
test_box_select (Fixture       *f,
                 gconstpointer  data)
{
  const PlanarEvent *step = gpu4_step ();
  PlanarTrace *trace = planar_profile_get_trace (sample, 0);
  guint p;
  const PlanarPlane *plane = find_plane (&p, "/device:GPU:4");
  guint name_scope = find_track (plane, "TensorFlow Name Scope");
  g_autoptr(GArray) expected = g_array_new (FALSE, FALSE, sizeof (PlanarEventRef));
  const PlanarEventRef *got;
  double y_top, x0, x1, y0, y1;
  gint64 t0, t1, range_start, range_end;
  gsize n_got;
  PlanarSelection *selection;

  planar_timeline_set_view (f->timeline, step->start_ps, step->start_ps + step->duration_ps);

  /* From a third to two thirds of the step, from the middle of Name
   * Scope's depth 3 band down into TensorFlow Ops. */
  g_assert_true (_planar_timeline_get_track_y (f->timeline, 0, p, name_scope, 3, &y_top));
  x0 = PLANAR_TIMELINE_LABEL_WIDTH + _planar_timeline_time_area_width (f->timeline) / 3;
  x1 = PLANAR_TIMELINE_LABEL_WIDTH + 2 * _planar_timeline_time_area_width (f->timeline) / 3;
  y0 = y_top + PLANAR_TIMELINE_EVENT_HEIGHT / 2;
  g_assert_true (_planar_timeline_get_track_y (f->timeline, 0, p, find_track (plane, "TensorFlow Ops"), 0, &y1));
  y1 += 4;
  /* Drawn from bottom right to top left, with the Control key: a new
   * selection all the same, as there was none. */
  _planar_timeline_select_box (f->timeline, x1, y1, x0, y0, TRUE);

  /* Brute force: every event of every track whose band the box meets. */
  t0 = _planar_timeline_time_for_x (f->timeline, x0);
  t1 = _planar_timeline_time_for_x (f->timeline, x1);
  for (guint r = 0; r < planar_timeline_layout_get_n_rows (f->timeline->layout); r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (f->timeline->layout, r);
      const PlanarTrack *track;

      if (row->kind != PLANAR_TIMELINE_ROW_TRACK)
        continue;
      track = &planar_trace_get_plane (trace, row->plane)->tracks[row->track];
      for (guint32 i = 0; i < track->n_events; i++)
        {
          const PlanarEvent *ev = &track->events[i];
          double band_top = _planar_timeline_widget_y (f->timeline, planar_timeline_row_depth_y (row, ev->depth));
          double band_bottom = band_top + PLANAR_TIMELINE_EVENT_HEIGHT;

          if (band_bottom <= y0 || band_top > y1)
            continue;
          if (ev->start_ps > t1 || ev->start_ps + ev->duration_ps < t0)
            continue;
          g_array_append_val (expected, ((PlanarEventRef) { row->plane, row->trace, row->track, i }));
        }
    }
  g_array_sort (expected, compare_refs);
  g_assert_cmpuint (expected->len, >, 50);

  selection = planar_timeline_get_selection (f->timeline);
  g_assert_nonnull (selection);
  got = planar_selection_get_events (selection, &n_got);
  g_assert_cmpuint (n_got, ==, expected->len);
  for (gsize i = 0; i < n_got; i++)
    g_assert_true (planar_event_ref_equal (&got[i], &g_array_index (expected, PlanarEventRef, i)));
  g_assert_true (planar_selection_get_range (selection, &range_start, &range_end));
  g_assert_cmpint (range_start, ==, t0);
  g_assert_cmpint (range_end, ==, t1);

  /* A box over nothing but the label column selects nothing. */
  _planar_timeline_select_box (f->timeline, 10, y0, 100, y1, FALSE);
  g_assert_true (planar_timeline_get_selection (f->timeline) == NULL ||
                 planar_selection_get_n_events (planar_timeline_get_selection (f->timeline)) == 0);
}

static void
test_pick (Fixture       *f,
           gconstpointer  data)
{
  const PlanarEvent *step = gpu4_step ();
  guint p;
  const PlanarPlane *plane = find_plane (&p, "/device:GPU:4");
  guint t = find_track (plane, "TensorFlow Name Scope");
  const PlanarTrack *track = &plane->tracks[t];
  guint checked = 0;

  planar_timeline_set_view (f->timeline, step->start_ps, step->start_ps + step->duration_ps / 8);
  for (guint32 i = 0; i < track->n_events && checked < 50; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      double x0 = _planar_timeline_x_for_time (f->timeline, ev->start_ps);
      double x1 = _planar_timeline_x_for_time (f->timeline, ev->start_ps + ev->duration_ps);
      double y;
      PlanarEventRef ref;

      /* Events at least 5 px wide and fully in view. */
      if (x0 < PLANAR_TIMELINE_LABEL_WIDTH || x1 > WIDTH || x1 - x0 < 5)
        continue;
      g_assert_true (_planar_timeline_get_track_y (f->timeline, 0, p, t, ev->depth, &y));
      if (y < PLANAR_TIMELINE_AXIS_HEIGHT || y > HEIGHT - 20)
        continue;
      g_assert_true (_planar_timeline_pick (f->timeline, (x0 + x1) / 2, y + 8, &ref));
      g_assert_cmpuint (ref.plane, ==, p);
      g_assert_cmpuint (ref.track, ==, t);
      g_assert_cmpuint (ref.index, ==, i);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 50);
}

static void
test_layout_order (Fixture       *f,
                   gconstpointer  data)
{
  PlanarTimelineLayout *layout = f->timeline->layout;
  const char *expected_sections[] = { "GPU 1", "GPU 4", "GPU 6", "Host CPU" };
  const char *previous = NULL;
  PlanarTrace *trace = planar_profile_get_trace (sample, 0);

  /* Empty planes (GPU 0, 2, 3, 5, 7, the Task Environment) take no room. */
  g_assert_cmpuint (planar_timeline_layout_get_n_sections (layout), ==, G_N_ELEMENTS (expected_sections));
  for (guint s = 0; s < G_N_ELEMENTS (expected_sections); s++)
    g_assert_cmpstr (planar_timeline_layout_get_section (layout, s)->title, ==, expected_sections[s]);
  /* GPU 4's header names the device from its plane stats. */
  g_assert_nonnull (strstr (planar_timeline_layout_get_section (layout, 1)->subtitle, "80 cores"));
  g_assert_nonnull (strstr (planar_timeline_layout_get_section (layout, 1)->subtitle, "GiB"));

  /* Host threads are sorted by name; GPU lines follow their display id. */
  for (guint r = 0; r < planar_timeline_layout_get_n_rows (layout); r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout, r);
      const PlanarPlane *plane = planar_trace_get_plane (trace, row->plane);

      if (row->kind != PLANAR_TIMELINE_ROW_TRACK || strcmp (plane->name, "/host:CPU") != 0)
        continue;
      if (previous != NULL)
        g_assert_cmpint (strcmp (previous, plane->tracks[row->track].display_name), <, 0);
      previous = plane->tracks[row->track].display_name;
    }
  g_assert_nonnull (previous);

  /* Collapsing a section takes its tracks out. */
  {
    guint rows = planar_timeline_layout_get_n_rows (layout);
    guint gpu4_tracks = planar_timeline_layout_get_section (layout, 1)->n_tracks;

    planar_timeline_layout_set_collapsed (layout, 1, TRUE);
    _planar_timeline_refresh_layout (f->timeline);
    g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, rows - gpu4_tracks);
    g_assert_true (planar_timeline_layout_get_section (layout, 1)->collapsed);
    planar_timeline_layout_set_collapsed (layout, 1, FALSE);
    _planar_timeline_refresh_layout (f->timeline);
    g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, rows);
  }
}

static void
test_time_axis (void)
{
  PlanarTimeTicks ticks;
  char label[64];

  /* 2.6 s over 1400 px, labels at least 110 px apart: 0.5 s steps. */
  planar_time_ticks_compute (&ticks, 0, 2646000000000, 1400, 110);
  g_assert_cmpint (ticks.step_ps, ==, 500000000000);
  g_assert_cmpint (ticks.unit_ps, ==, PLANAR_PS_PER_S);
  g_assert_false (ticks.relative);
  planar_time_ticks_format (&ticks, 1500000000000, label, sizeof label);
  g_assert_cmpstr (label, ==, "1.5 s");
  g_assert_cmpint (ticks.first_ps, ==, 0);

  /* 40 ms at 1.75 s: 5 ms steps, in ms from a base ("1755 ms" would be
   * a second's worth of milliseconds). */
  planar_time_ticks_compute (&ticks, 1750000000000, 1790000000000, 1400, 110);
  g_assert_cmpint (ticks.step_ps, ==, 5000000000);
  g_assert_true (ticks.relative);
  planar_time_ticks_format (&ticks, 1755000000000, label, sizeof label);
  g_assert_cmpstr (label, ==, "+5 ms");
  planar_time_ticks_format_base (&ticks, label, sizeof label);
  g_assert_cmpstr (label, ==, "1.75 s");

  /* A microsecond window 1.8 s in: labels count from a round base. */
  planar_time_ticks_compute (&ticks, 1799123456789, 1799124456789, 1400, 110);
  g_assert_true (ticks.relative);
  g_assert_cmpint (ticks.base_ps, <=, 1799123456789);
  g_assert_cmpint (ticks.step_ps, ==, 100000);
  g_assert_cmpint (ticks.base_ps, ==, 1799123000000);
  planar_time_ticks_format (&ticks, ticks.first_ps, label, sizeof label);
  g_assert_cmpstr (label, ==, "+0.5 µs");
  planar_time_ticks_format_base (&ticks, label, sizeof label);
  g_assert_cmpstr (label, ==, "1.799123 s");

  /* Nanoseconds from 0. */
  planar_time_ticks_compute (&ticks, 0, 20000, 1000, 100);
  g_assert_cmpint (ticks.step_ps, ==, 2000);
  planar_time_ticks_format (&ticks, 4000, label, sizeof label);
  g_assert_cmpstr (label, ==, "4 ns");

  planar_time_format_duration (496637000, label, sizeof label);
  g_assert_cmpstr (label, ==, "496.637 µs");
  planar_time_format_duration (40000000000, label, sizeof label);
  g_assert_cmpstr (label, ==, "40 ms");
  planar_time_format_duration (0, label, sizeof label);
  g_assert_cmpstr (label, ==, "0 s");
  planar_time_format_duration (1, label, sizeof label);
  g_assert_cmpstr (label, ==, "1 ps");
}

static void
test_shortcuts (void)
{
  gsize n;
  const PlanarShortcut *table = planar_shortcuts_get_table (&n);
  GtkWidgetClass *klass = g_type_class_ref (PLANAR_TYPE_TIMELINE);
  GtkShortcutsWindow *window;

  g_assert_cmpuint (n, >, 20);
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GVariant) target = NULL;
      g_auto(GStrv) accels = g_strsplit (table[i].accels, " ", -1);
      gboolean found = FALSE;
      const char *action_name, *property_name;
      const GVariantType *parameter_type;
      GType owner;

      g_assert_true (g_action_parse_detailed_name (table[i].action, &name, &target, NULL));
      /* The application's own entries are checked by the application's
       * test; every other entry must be one of the timeline's actions. */
      if (g_str_has_prefix (name, "app.") || g_str_has_prefix (name, "win.") ||
          g_str_has_prefix (name, "window."))
        continue;
      for (guint a = 0; gtk_widget_class_query_action (klass, a, &owner, &action_name, &parameter_type, &property_name); a++)
        if (strcmp (action_name, name) == 0)
          found = TRUE;
      if (!found)
        g_error ("the shortcuts table names %s, which the timeline does not have", name);
      for (guint a = 0; accels[a] != NULL; a++)
        g_assert_true (gtk_accelerator_parse (accels[a], NULL, NULL));
      g_assert_nonnull (table[i].title);
      g_assert_nonnull (table[i].section);
    }
  g_assert_true (planar_shortcuts_is_window_accel ("<Control>minus"));
  g_assert_false (planar_shortcuts_is_window_accel ("w"));
  g_assert_false (planar_shortcuts_is_window_accel ("<Shift>w"));

  window = planar_shortcuts_new_window ();
  g_assert_true (GTK_IS_SHORTCUTS_WINDOW (window));
  gtk_window_destroy (GTK_WINDOW (window));
  g_type_class_unref (klass);
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(GError) error = NULL;

  planar_profile_load_finish (PLANAR_PROFILE (object), result, &error);
  g_assert_no_error (error);
  *(gboolean *) data = TRUE;
}

static void
test_loading (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *path = sample_path (SAMPLE_GPU);
  const char *paths[] = { path, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  gboolean done = FALSE;
  gint64 first, last;
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (f->timeline));

  /* Given while it loads: frames are drawn from whatever is in place. */
  planar_profile_load_async (profile, NULL, loaded_cb, &done);
  planar_timeline_set_profile (f->timeline, profile);
  while (!done)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();
      GskRenderNode *node;

      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      f->timeline->tracks_dirty = TRUE;
      gdk_paintable_snapshot (paintable, snapshot, WIDTH, HEIGHT);
      node = gtk_snapshot_free_to_node (snapshot);
      g_clear_pointer (&node, gsk_render_node_unref);
      g_main_context_iteration (NULL, FALSE);
    }
  drain ();

  /* Once loaded, the whole profile is shown and every track laid out. */
  g_assert_true (planar_profile_get_span (profile, &first, &last));
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, first);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline), ==, last);
  g_assert_cmpuint (planar_timeline_layout_get_n_sections (f->timeline->layout), ==, 4);
  /* Nothing polls the profile: the layout followed its "tracks-changed"
   * and "notify::busy", and a late "tracks-changed" changes nothing. */
  g_signal_emit_by_name (profile, "tracks-changed");
  drain ();
  g_assert_cmpuint (planar_timeline_layout_get_n_sections (f->timeline->layout), ==, 4);
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, first);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline), ==, last);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *path = NULL;
  int status;

  gtk_test_init (&argc, &argv, NULL);

  /* The cases on the GPU sample only skip in a clone without the samples. */
  if (planar_test_samples_dir () != NULL)
    {
      path = sample_path (SAMPLE_GPU);
      sample = load_profile (path);
      any_profile = g_object_ref (sample);
    }
  else
    any_profile = load_profile (planar_test_generated_profile (1));
#define ADD_SAMPLE(name, data, func)                                            \
  G_STMT_START {                                                                \
    if (sample != NULL)                                                         \
      g_test_add (name, Fixture, data, fixture_setup, func, fixture_teardown); \
    else                                                                        \
      planar_test_add_skipped (name);                                           \
  } G_STMT_END

  ADD_SAMPLE ("/timeline/defaults", sample, test_defaults);
  g_test_add ("/timeline/no-profile", Fixture, NULL, fixture_setup, test_no_profile, fixture_teardown);
  ADD_SAMPLE ("/timeline/actions/zoom", sample, test_zoom_actions);
  ADD_SAMPLE ("/timeline/actions/pan", sample, test_pan_actions);
  ADD_SAMPLE ("/timeline/actions/tool-grid-flows", sample, test_tool_grid_flows);
  ADD_SAMPLE ("/timeline/actions/selection", sample, test_selection_actions);
  ADD_SAMPLE ("/timeline/input/scroll", sample, test_scroll);
  ADD_SAMPLE ("/timeline/input/pinch", sample, test_pinch);
  ADD_SAMPLE ("/timeline/input/box-select", sample, test_box_select);
  ADD_SAMPLE ("/timeline/input/pick", sample, test_pick);
  ADD_SAMPLE ("/timeline/layout", sample, test_layout_order);
  ADD_SAMPLE ("/timeline/loading", NULL, test_loading);
#undef ADD_SAMPLE
  g_test_add_func ("/timeline/time-axis", test_time_axis);
  g_test_add_func ("/timeline/shortcuts", test_shortcuts);

  status = g_test_run ();
  g_clear_object (&any_profile);
  g_clear_object (&sample);
  return status;
}
