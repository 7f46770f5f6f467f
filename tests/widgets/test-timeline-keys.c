/* test-timeline-keys.c: real input, sent to the X server with xdotool.
 * Key presses reach the timeline's bare-key bindings while it has the
 * focus: typing in an entry of the same window never moves the view, while
 * Control accelerators work from anywhere in the window. (The application's
 * window also hands the bare keys on from its controls that take no text:
 * test-app.c, /app/tracks-filter-and-keys.) Pointer drags work each
 * tool.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gtk/gtk.h>
#include <string.h>

#include "planar-test-samples.h"
#include "planar-timeline-private.h"

#define SAMPLE_GPU "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb"

#define WIDTH  1400
#define HEIGHT 900

typedef struct
{
  GtkWidget      *window;
  GtkWidget      *entry;
  PlanarTimeline *timeline;
  char           *title;
  PlanarProfile  *profile;
} Fixture;

static void
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Runs xdotool with @args after focusing the fixture's window, the way a
 * person's keyboard reaches it (XTEST), then lets GTK handle what came. */
static void
xdotool (Fixture    *f,
         const char *first_arg,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  const char *xdotool_path = g_getenv ("PLANAR_XDOTOOL");
  int status = 0;
  va_list ap;

  g_ptr_array_add (argv, (gpointer) (xdotool_path != NULL ? xdotool_path : "xdotool"));
  /* xdotool needs windowfocus before key (it types at the focused
   * window). */
  g_ptr_array_add (argv, (gpointer) "search");
  g_ptr_array_add (argv, (gpointer) "--sync");
  g_ptr_array_add (argv, (gpointer) "--name");
  g_ptr_array_add (argv, f->title);
  g_ptr_array_add (argv, (gpointer) "windowfocus");
  g_ptr_array_add (argv, (gpointer) "--sync");
  va_start (ap, first_arg);
  for (const char *arg = first_arg; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("xdotool failed: %s", err);
}

/* Iterates the main loop until @done says so, for at most twenty seconds
 * (a bound for a hang, not a time the test asks for: on a busy machine
 * the X server and GTK may take seconds); returns whether it did. */
static gboolean
wait_for (gboolean (*done) (Fixture *f),
          Fixture   *f)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (!done (f))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  drain ();
  return TRUE;
}

static gint64 expected_start, expected_end;

static gboolean
view_is_expected (Fixture *f)
{
  return planar_timeline_get_start_ps (f->timeline) == expected_start &&
         planar_timeline_get_end_ps (f->timeline) == expected_end;
}

static gboolean
view_changed (Fixture *f)
{
  return !view_is_expected (f);
}

static const char *expected_text;

static gboolean
entry_has_text (Fixture *f)
{
  return strcmp (gtk_editable_get_text (GTK_EDITABLE (f->entry)), expected_text) == 0;
}

static PlanarTimelineTool expected_tool;

static gboolean
tool_is_expected (Fixture *f)
{
  return planar_timeline_get_tool (f->timeline) == expected_tool;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *path = planar_test_sample_path (SAMPLE_GPU);
  const char *paths[] = { path, NULL };
  g_autoptr(GError) error = NULL;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  f->profile = planar_profile_new (paths);
  planar_profile_load (f->profile, NULL, &error);
  g_assert_no_error (error);

  f->title = g_strdup_printf ("planar-test-keys-%d", (int) getpid ());
  f->window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (f->window), f->title);
  gtk_window_set_default_size (GTK_WINDOW (f->window), WIDTH, HEIGHT);
  f->entry = gtk_entry_new ();
  f->timeline = g_object_ref (PLANAR_TIMELINE (planar_timeline_new ()));
  planar_timeline_set_profile (f->timeline, f->profile);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (f->timeline));
  gtk_box_append (GTK_BOX (box), f->entry);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_window_set_child (GTK_WINDOW (f->window), box);
  gtk_window_present (GTK_WINDOW (f->window));
  while (!gtk_widget_get_mapped (GTK_WIDGET (f->timeline)) || gtk_widget_get_width (GTK_WIDGET (f->timeline)) <= 1)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  drain ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  drain ();
  g_assert_finalize_object (f->timeline);
  g_clear_object (&f->profile);
  g_free (f->title);
}

static void
test_keys (Fixture       *f,
           gconstpointer  data)
{
  gint64 width, start;

  /* Keep the pointer off the window: keys zoom around the middle. */
  xdotool (f, "mousemove", "1900", "1190", NULL);

  /* Typing into the entry: the text arrives, the view and tool stay. */
  planar_timeline_set_view (f->timeline, 1700000000000, 1900000000000);
  expected_start = planar_timeline_get_start_ps (f->timeline);
  expected_end = planar_timeline_get_end_ps (f->timeline);
  gtk_widget_grab_focus (f->entry);
  xdotool (f, "type", "--delay", "15", "wasd01g2m", NULL);
  expected_text = "wasd01g2m";
  g_assert_true (wait_for (entry_has_text, f));
  g_assert_true (view_is_expected (f));
  g_assert_cmpint (planar_timeline_get_tool (f->timeline), ==, PLANAR_TIMELINE_TOOL_SELECT);
  g_assert_false (planar_timeline_get_show_grid (f->timeline));

  /* The same keys on the focused timeline. */
  gtk_widget_grab_focus (GTK_WIDGET (f->timeline));
  drain ();
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (f->timeline)));

  width = expected_end - expected_start;
  xdotool (f, "key", "w", NULL);
  g_assert_true (wait_for (view_changed, f));
  g_assert_cmpint (ABS ((planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline)) -
                        (gint64) (width / PLANAR_TIMELINE_ZOOM_STEP)), <=, 2);

  expected_start = planar_timeline_get_start_ps (f->timeline);
  expected_end = planar_timeline_get_end_ps (f->timeline);
  width = expected_end - expected_start;
  xdotool (f, "key", "s", NULL);
  g_assert_true (wait_for (view_changed, f));
  g_assert_cmpint (ABS ((planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline)) -
                        (gint64) (width * PLANAR_TIMELINE_ZOOM_STEP)), <=, 2);

  expected_start = start = planar_timeline_get_start_ps (f->timeline);
  expected_end = planar_timeline_get_end_ps (f->timeline);
  width = expected_end - expected_start;
  xdotool (f, "key", "d", NULL);
  g_assert_true (wait_for (view_changed, f));
  g_assert_cmpint (ABS (planar_timeline_get_start_ps (f->timeline) - (start + (gint64) (width * PLANAR_TIMELINE_PAN_STEP))), <=, 1);

  expected_start = start = planar_timeline_get_start_ps (f->timeline);
  expected_end = planar_timeline_get_end_ps (f->timeline);
  xdotool (f, "key", "a", NULL);
  g_assert_true (wait_for (view_changed, f));
  g_assert_cmpint (ABS (planar_timeline_get_start_ps (f->timeline) - (start - (gint64) (width * PLANAR_TIMELINE_PAN_STEP))), <=, 1);

  /* Shift makes W faster. */
  expected_start = planar_timeline_get_start_ps (f->timeline);
  expected_end = planar_timeline_get_end_ps (f->timeline);
  xdotool (f, "key", "shift+w", NULL);
  g_assert_true (wait_for (view_changed, f));
  g_assert_cmpint (ABS ((planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline)) -
                        (gint64) (width / PLANAR_TIMELINE_ZOOM_STEP_FAST)), <=, 2);

  /* 0 shows everything. */
  planar_profile_get_span (f->profile, &expected_start, &expected_end);
  xdotool (f, "key", "0", NULL);
  g_assert_true (wait_for (view_is_expected, f));

  /* 2 and Shift+1 (!) pick tools; g the grid. */
  expected_tool = PLANAR_TIMELINE_TOOL_PAN;
  xdotool (f, "key", "2", NULL);
  g_assert_true (wait_for (tool_is_expected, f));
  expected_tool = PLANAR_TIMELINE_TOOL_SELECT;
  xdotool (f, "key", "shift+1", NULL);
  g_assert_true (wait_for (tool_is_expected, f));
  expected_tool = PLANAR_TIMELINE_TOOL_TIMING;
  xdotool (f, "key", "4", NULL);
  g_assert_true (wait_for (tool_is_expected, f));
  xdotool (f, "key", "g", NULL);
  drain ();
  g_assert_true (planar_timeline_get_show_grid (f->timeline));

  /* Control accelerators are window-wide: Control+plus zooms in even
   * from the entry, which keeps its text. */
  gtk_widget_grab_focus (f->entry);
  drain ();
  expected_start = planar_timeline_get_start_ps (f->timeline);
  expected_end = planar_timeline_get_end_ps (f->timeline);
  width = expected_end - expected_start;
  xdotool (f, "key", "ctrl+plus", NULL);
  g_assert_true (wait_for (view_changed, f));
  g_assert_cmpint (ABS ((planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline)) -
                        (gint64) (width / PLANAR_TIMELINE_ZOOM_STEP)), <=, 2);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (f->entry)), ==, "wasd01g2m");
}

/* The timeline's (@x, @y) in the window, for xdotool's mousemove
 * --window. */
static void
window_point (Fixture *f,
              double   x,
              double   y,
              char     out_x[16],
              char     out_y[16])
{
  graphene_point_t p;

  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (f->timeline), f->window, &GRAPHENE_POINT_INIT (x, y), &p));
  g_snprintf (out_x, 16, "%d", (int) p.x);
  g_snprintf (out_y, 16, "%d", (int) p.y);
}

/* A press at (@x0, @y0), a move in steps, a release at (@x1, @y1), in
 * timeline coordinates; @modifier is held down if not NULL. */
static void
drag (Fixture    *f,
      double      x0,
      double      y0,
      double      x1,
      double      y1,
      const char *modifier)
{
  char ax[16], ay[16], bx[16], by[16], mx[16], my[16];

  window_point (f, x0, y0, ax, ay);
  window_point (f, (x0 + x1) / 2, (y0 + y1) / 2, mx, my);
  window_point (f, x1, y1, bx, by);
  if (modifier != NULL)
    xdotool (f, "keydown", modifier, NULL);
  xdotool (f, "mousemove", "--window", "%1", "--sync", ax, ay, "mousedown", "1",
           "mousemove", "--window", "%1", "--sync", mx, my,
           "mousemove", "--window", "%1", "--sync", bx, by,
           "mouseup", "1", NULL);
  if (modifier != NULL)
    xdotool (f, "keyup", modifier, NULL);
}

static gboolean
has_selection (Fixture *f)
{
  return planar_timeline_get_selection (f->timeline) != NULL;
}

static gsize expected_n_events;

static gboolean
selection_has_n_events (Fixture *f)
{
  return planar_timeline_get_selection (f->timeline) != NULL &&
         planar_selection_get_n_events (planar_timeline_get_selection (f->timeline)) == expected_n_events;
}

static guint expected_n_sections_rows;

static gboolean
rows_changed (Fixture *f)
{
  return planar_timeline_layout_get_n_rows (f->timeline->layout) != expected_n_sections_rows;
}

static void
test_pointer_tools (Fixture       *f,
                    gconstpointer  data)
{
  PlanarTrace *trace = planar_profile_get_trace (f->profile, 0);
  const PlanarPlane *plane = planar_trace_find_plane (trace, "/device:GPU:4");
  guint p = 0, t = 0;
  const PlanarTrack *track;
  const PlanarEvent *step;
  const PlanarEvent *a = NULL, *b = NULL;
  double y, xa, xb;
  gint64 start, end;
  char px[16], py[16];

  for (p = 0; planar_trace_get_plane (trace, p) != plane; p++)
    ;
  step = &planar_plane_find_track (plane, "Steps")->events[0];
  track = planar_plane_find_track (plane, "TensorFlow Ops");
  t = (guint) (track - plane->tracks);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (f->timeline)));

  /* Zoom: drag a range, it fills the view. */
  planar_timeline_set_view (f->timeline, step->start_ps, step->start_ps + step->duration_ps);
  planar_timeline_set_tool (f->timeline, PLANAR_TIMELINE_TOOL_ZOOM);
  expected_start = planar_timeline_get_start_ps (f->timeline);
  expected_end = planar_timeline_get_end_ps (f->timeline);
  {
    double x0 = PLANAR_TIMELINE_LABEL_WIDTH + 300, x1 = PLANAR_TIMELINE_LABEL_WIDTH + 700;
    gint64 t0 = _planar_timeline_time_for_x (f->timeline, x0);
    gint64 t1 = _planar_timeline_time_for_x (f->timeline, x1);
    gint64 px_ps = (expected_end - expected_start) / (gint64) _planar_timeline_time_area_width (f->timeline);

    drag (f, x0, 300, x1, 320, NULL);
    g_assert_true (wait_for (view_changed, f));
    g_assert_cmpint (ABS (planar_timeline_get_start_ps (f->timeline) - t0), <=, 2 * px_ps);
    g_assert_cmpint (ABS (planar_timeline_get_end_ps (f->timeline) - t1), <=, 2 * px_ps);
  }

  /* Pan: dragging 200 px to the left shows what was 200 px to the right. */
  planar_timeline_set_tool (f->timeline, PLANAR_TIMELINE_TOOL_PAN);
  expected_start = planar_timeline_get_start_ps (f->timeline);
  expected_end = planar_timeline_get_end_ps (f->timeline);
  {
    gint64 shift = _planar_timeline_time_for_x (f->timeline, PLANAR_TIMELINE_LABEL_WIDTH + 700) -
                   _planar_timeline_time_for_x (f->timeline, PLANAR_TIMELINE_LABEL_WIDTH + 500);
    gint64 px_ps = (expected_end - expected_start) / (gint64) _planar_timeline_time_area_width (f->timeline);

    drag (f, PLANAR_TIMELINE_LABEL_WIDTH + 700, 300, PLANAR_TIMELINE_LABEL_WIDTH + 500, 300, NULL);
    g_assert_true (wait_for (view_changed, f));
    g_assert_cmpint (ABS (planar_timeline_get_start_ps (f->timeline) - (expected_start + shift)), <=, 2 * px_ps);
    g_assert_cmpint (planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline), ==,
                     expected_end - expected_start);
  }

  /* Two wide events of TensorFlow Ops in view. */
  planar_timeline_set_view (f->timeline, step->start_ps + step->duration_ps / 3,
                            step->start_ps + step->duration_ps / 3 + step->duration_ps / 40);
  drain ();
  g_assert_true (_planar_timeline_get_track_y (f->timeline, 0, p, t, 0, &y));
  for (guint32 i = 0; i < track->n_events; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      double x0 = _planar_timeline_x_for_time (f->timeline, ev->start_ps);
      double x1 = _planar_timeline_x_for_time (f->timeline, ev->start_ps + ev->duration_ps);

      if (x0 < PLANAR_TIMELINE_LABEL_WIDTH + 20 || x1 > WIDTH - 250 || x1 - x0 < 12)
        continue;
      if (a == NULL)
        a = ev;
      else if (x0 > _planar_timeline_x_for_time (f->timeline, a->start_ps + a->duration_ps) + 60)
        {
          b = ev;
          break;
        }
    }
  g_assert_nonnull (a);
  g_assert_nonnull (b);

  /* Timing: a drag from 3 px inside a's start to 3 px past b's end
   * measures exactly from edge to edge. */
  planar_timeline_set_tool (f->timeline, PLANAR_TIMELINE_TOOL_TIMING);
  planar_timeline_set_selection (f->timeline, NULL);
  xa = _planar_timeline_x_for_time (f->timeline, a->start_ps) + 3;
  xb = _planar_timeline_x_for_time (f->timeline, b->start_ps + b->duration_ps) + 3;
  drag (f, xa, y + 8, xb, y + 8, NULL);
  g_assert_true (wait_for (has_selection, f));
  g_assert_true (planar_selection_get_range (planar_timeline_get_selection (f->timeline), &start, &end));
  g_assert_cmpint (start, ==, a->start_ps);
  g_assert_cmpint (end, ==, b->start_ps + b->duration_ps);
  g_assert_cmpuint (planar_selection_get_n_events (planar_timeline_get_selection (f->timeline)), ==, 0);

  /* Select: a click selects an event, Control+click adds another. */
  planar_timeline_set_tool (f->timeline, PLANAR_TIMELINE_TOOL_SELECT);
  planar_timeline_set_selection (f->timeline, NULL);
  window_point (f, _planar_timeline_x_for_time (f->timeline, a->start_ps + a->duration_ps / 2), y + 8, px, py);
  xdotool (f, "mousemove", "--window", "%1", "--sync", px, py, "click", "1", NULL);
  expected_n_events = 1;
  g_assert_true (wait_for (selection_has_n_events, f));
  g_assert_cmpuint (planar_selection_get_events (planar_timeline_get_selection (f->timeline), NULL)[0].index, ==,
                    (guint32) (a - track->events));
  window_point (f, _planar_timeline_x_for_time (f->timeline, b->start_ps + b->duration_ps / 2), y + 8, px, py);
  xdotool (f, "mousemove", "--window", "%1", "--sync", px, py, "keydown", "ctrl", "click", "1", "keyup", "ctrl", NULL);
  expected_n_events = 2;
  g_assert_true (wait_for (selection_has_n_events, f));

  /* A box from a's middle to b's middle, on TensorFlow Ops only, holds
   * the events of that track that meet its time range. */
  {
    double x0 = _planar_timeline_x_for_time (f->timeline, a->start_ps + a->duration_ps / 2);
    double x1 = _planar_timeline_x_for_time (f->timeline, b->start_ps + b->duration_ps / 2);
    gint64 t0, t1;
    gsize n = 0;

    drag (f, x0, y + 3, x1, y + 12, NULL);
    t0 = _planar_timeline_time_for_x (f->timeline, x0);
    t1 = _planar_timeline_time_for_x (f->timeline, x1);
    for (guint32 i = 0; i < track->n_events; i++)
      if (track->events[i].start_ps <= t1 && track->events[i].start_ps + track->events[i].duration_ps >= t0)
        n++;
    expected_n_events = n;
    g_assert_cmpuint (n, >=, 3);
    if (!wait_for (selection_has_n_events, f))
      g_error ("the box selected %" G_GSIZE_FORMAT " events, not %" G_GSIZE_FORMAT,
               planar_timeline_get_selection (f->timeline) != NULL
                 ? planar_selection_get_n_events (planar_timeline_get_selection (f->timeline)) : 0, n);
  }

  /* A click on a section's header collapses it. */
  expected_n_sections_rows = planar_timeline_layout_get_n_rows (f->timeline->layout);
  {
    const PlanarTimelineRow *header = planar_timeline_layout_get_row (f->timeline->layout, 0);

    g_assert_cmpint (header->kind, ==, PLANAR_TIMELINE_ROW_SECTION);
    window_point (f, 400, _planar_timeline_widget_y (f->timeline, header->y + 10), px, py);
    xdotool (f, "mousemove", "--window", "%1", "--sync", px, py, "click", "1", NULL);
    g_assert_true (wait_for (rows_changed, f));
    g_assert_true (planar_timeline_layout_get_section (f->timeline->layout, 0)->collapsed);
  }
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);

  /* Both cases draw the GPU sample: they only skip in a clone without the
   * samples. */
  if (planar_test_samples_dir () != NULL)
    {
      g_test_add ("/timeline-keys/entry-and-timeline", Fixture, NULL, fixture_setup, test_keys, fixture_teardown);
      g_test_add ("/timeline-keys/pointer-tools", Fixture, NULL, fixture_setup, test_pointer_tools, fixture_teardown);
    }
  else
    {
      planar_test_add_skipped ("/timeline-keys/entry-and-timeline");
      planar_test_add_skipped ("/timeline-keys/pointer-tools");
    }

  return g_test_run ();
}
