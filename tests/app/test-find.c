/* test-find.c: the find bar in the application, with real keys and clicks
 * sent to the X server (xdotool), and the times it shows.
 *
 * One launch checks in turn: Ctrl+F, the count as the user types, Enter,
 * Shift+Enter and F3 bringing sub-pixel hits on screen zoomed in, the
 * highlight of every hit in view, Alt+Enter and the zoom button doing what
 * f does, a bare f staying text, Escape closing the list then the bar, the
 * details pane's exact times and the axis labels. Screenshots go to
 * PLANAR_E2E_OUTPUT for a person to look at.
 *
 * Runs under Xvfb in its own session bus (tests/meson.build). Needs
 * PLANAR_SAMPLES_DIR and GSETTINGS_SCHEMA_DIR.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "planar-application.h"
#include "planar-model.h"
#include "planar-timeline-private.h"
#include "planar-test-samples.h"
#include "planar-window-private.h"

#define SAMPLE "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb"

static PlanarApplication *app;
static char *tmp_dir;

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

static gboolean
wake_up (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Runs the main loop until @done says so; fails after @timeout_s. */
static void
wait_for (gboolean  (*done) (gpointer),
          gpointer    data,
          double      timeout_s,
          const char *what)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);
  guint source = g_timeout_add (10, wake_up, NULL);

  while (!done (data))
    {
      if (g_get_monotonic_time () > end)
        g_error ("Timed out waiting for %s", what);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (source);
}

/* Runs the main loop for a moment, for input that may do nothing. */
static void
settle (gint64 us)
{
  gint64 until = g_get_monotonic_time () + us;
  guint source = g_timeout_add (10, wake_up, NULL);

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (source);
}

static gboolean
window_loaded (gpointer data)
{
  PlanarWindow *window = data;
  PlanarProfile *profile = planar_window_get_profile (window);

  return !planar_window_get_loading (window) && profile != NULL && planar_profile_is_loaded (profile);
}

/* Runs xdotool on @window, focused first as a window manager would, with
 * the arguments after it (NULL-terminated). */
static void
xdotool (PlanarWindow *window,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  const char *path = g_getenv ("XDOTOOL");
  const char *arg;
  int status = 0;
  va_list args;

  g_ptr_array_add (argv, g_strdup (path != NULL ? path : "xdotool"));
  g_ptr_array_add (argv, g_strdup ("search"));
  g_ptr_array_add (argv, g_strdup ("--sync"));
  g_ptr_array_add (argv, g_strdup ("--name"));
  g_ptr_array_add (argv, g_strdup_printf ("^%s$", gtk_window_get_title (GTK_WINDOW (window))));
  g_ptr_array_add (argv, g_strdup ("windowfocus"));
  g_ptr_array_add (argv, g_strdup ("--sync"));
  va_start (args, window);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("xdotool failed: %s", err);
}

/* Clicks the middle of @widget with the real pointer. */
static void
click (PlanarWindow *window,
       GtkWidget    *widget)
{
  graphene_point_t point;
  double sx, sy;
  g_autofree char *x = NULL, *y = NULL;

  g_assert_true (gtk_widget_get_mapped (widget));
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (window),
                                           &GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0f,
                                                                 gtk_widget_get_height (widget) / 2.0f),
                                           &point));
  gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
  x = g_strdup_printf ("%d", (int) (point.x + sx));
  y = g_strdup_printf ("%d", (int) (point.y + sy));
  xdotool (window, "mousemove", "--window", "%1", "--sync", x, y, "click", "1", NULL);
}

/* Saves a screenshot of the window in PLANAR_E2E_OUTPUT, once it has drawn
 * a frame. */
static void
save_screenshot (const char *name)
{
  g_autofree char *shot = NULL;

  if (g_getenv ("PLANAR_E2E_OUTPUT") == NULL)
    return;
  g_mkdir_with_parents (g_getenv ("PLANAR_E2E_OUTPUT"), 0755);
  shot = g_build_filename (g_getenv ("PLANAR_E2E_OUTPUT"), name, NULL);
  g_unlink (shot);
  for (guint i = 0; i < 100 && !g_file_test (shot, G_FILE_TEST_IS_REGULAR); i++)
    {
      settle (i == 0 ? G_USEC_PER_SEC / 2 : 50000);
      g_action_group_activate_action (G_ACTION_GROUP (app), "debug-screenshot", g_variant_new_string (shot));
    }
  g_assert_true (g_file_test (shot, G_FILE_TEST_IS_REGULAR));
}

typedef struct
{
  PlanarWindow *window;
  const char   *text;
} EntryWait;

static GtkEditable *
find_entry (PlanarWindow *window)
{
  GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (window));

  /* The text of the search entry holds the focus. */
  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_ancestor (focus, GTK_WIDGET (window->find_bar)));
  g_assert_true (GTK_IS_EDITABLE (focus));
  return GTK_EDITABLE (focus);
}

static gboolean
entry_reads (gpointer data)
{
  EntryWait *wait = data;

  return g_strcmp0 (gtk_editable_get_text (find_entry (wait->window)), wait->text) == 0;
}

static void
wait_entry_text (PlanarWindow *window,
                 const char   *text)
{
  EntryWait wait = { window, text };
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!entry_reads (&wait))
    {
      if (g_get_monotonic_time () > end)
        g_error ("The find entry reads “%s”, not “%s”", gtk_editable_get_text (find_entry (window)), text);
      settle (10000);
    }
}

/* The find bar's count label: the label whose text ends in "results" or
 * reads "N of M". */
static GtkLabel *
count_label (PlanarWindow *window)
{
  GtkWidget *widget = GTK_WIDGET (window->find_bar);
  GtkWidget *child;
  GPtrArray *stack = g_ptr_array_new ();
  GtkLabel *found = NULL;

  g_ptr_array_add (stack, widget);
  while (stack->len > 0 && found == NULL)
    {
      widget = g_ptr_array_steal_index (stack, stack->len - 1);
      if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "numeric"))
        found = GTK_LABEL (widget);
      for (child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
        g_ptr_array_add (stack, child);
    }
  g_ptr_array_unref (stack);
  g_assert_nonnull (found);
  return found;
}

typedef struct
{
  PlanarWindow *window;
  char         *pattern;
} SearchWait;

/* The search of @pattern has completed and its count is shown. */
static gboolean
search_shown (gpointer data)
{
  SearchWait *wait = data;
  PlanarSearch *search = planar_find_bar_get_search (wait->window->find_bar);

  return search != NULL && g_strcmp0 (planar_search_get_pattern (search), wait->pattern) == 0;
}

static guint64
wait_search (PlanarWindow *window,
             const char   *pattern)
{
  SearchWait wait = { window, (char *) pattern };
  PlanarSearch *search;
  g_autofree char *count = NULL;
  guint64 n;

  wait_for (search_shown, &wait, 30, pattern);
  search = planar_find_bar_get_search (window->find_bar);
  n = planar_search_get_n_hits (search);
  count = g_strdup_printf ("%" G_GUINT64_FORMAT " results", n);
  if (n > 0)
    g_assert_cmpstr (gtk_label_get_text (count_label (window)), ==, count);
  return n;
}

typedef struct
{
  PlanarWindow *window;
  gint64        current;
} CurrentWait;

static gboolean
current_is (gpointer data)
{
  CurrentWait *wait = data;

  return planar_find_bar_get_current (wait->window->find_bar) == wait->current;
}

/* Presses @key and waits for hit @current to be selected. */
static void
press_for_hit (PlanarWindow *window,
               const char   *key,
               gint64        current)
{
  CurrentWait wait = { window, current };

  xdotool (window, "key", key, NULL);
  wait_for (current_is, &wait, 10, key);
  settle (G_USEC_PER_SEC / 10);
}

/* The event of hit @index, and its width on screen in pixels. */
static const PlanarEvent *
hit_event (PlanarWindow *window,
           guint64       index,
           double       *width_px)
{
  PlanarSearch *search = planar_find_bar_get_search (window->find_bar);
  const PlanarEvent *event = planar_search_resolve_hit (search, planar_search_get_hit (search, index), NULL, NULL, NULL);
  PlanarTimeline *timeline = window->timeline;

  *width_px = _planar_timeline_x_for_time (timeline, event->start_ps + event->duration_ps)
              - _planar_timeline_x_for_time (timeline, event->start_ps);
  return event;
}

/* The hit is selected, inside the view and at least a few dozen pixels
 * wide, or as wide as it was when it was visible already. */
static void
assert_hit_on_screen (PlanarWindow *window,
                      guint64       index)
{
  PlanarTimeline *timeline = window->timeline;
  PlanarSearch *search = planar_find_bar_get_search (window->find_bar);
  const PlanarSearchHit *hit = planar_search_get_hit (search, index);
  const PlanarEventRef *refs;
  const PlanarEvent *event;
  double width_px;
  gsize n;
  double y;

  refs = planar_selection_get_events (planar_timeline_get_selection (timeline), &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (refs[0].track, ==, hit->ref.track);
  g_assert_cmpuint (refs[0].index, ==, hit->ref.index);
  event = hit_event (window, index, &width_px);
  g_assert_cmpint (event->start_ps, >=, planar_timeline_get_start_ps (timeline));
  g_assert_cmpint (event->start_ps + event->duration_ps, <=, planar_timeline_get_end_ps (timeline));
  g_assert_cmpfloat (width_px, >=, PLANAR_TIMELINE_SHOW_MIN_PX);
  /* Its row is on screen too. */
  g_assert_true (_planar_timeline_get_track_y (timeline, hit->ref.trace, hit->ref.plane, hit->ref.track, event->depth, &y));
  g_assert_cmpfloat (y, >=, PLANAR_TIMELINE_AXIS_HEIGHT);
  g_assert_cmpfloat (y + PLANAR_TIMELINE_EVENT_HEIGHT, <=, gtk_widget_get_height (GTK_WIDGET (timeline)));
}

/* The timeline as drawn, counted: pixels of the hits' orange. */
static guint64
count_hit_pixels (PlanarWindow *window)
{
  g_autofree char *path = g_build_filename (tmp_dir, "view.png", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  int width, height;
  guint64 n = 0;

  g_assert_true (planar_timeline_export (window->timeline, file, PLANAR_TIMELINE_EXPORT_PNG, &error));
  g_assert_no_error (error);
  texture = gdk_texture_new_from_file (file, &error);
  g_assert_no_error (error);
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  pixels = g_malloc ((gsize) width * (gsize) height * 4);
  gdk_texture_download (texture, pixels, (gsize) width * 4);
  for (gsize i = 0; i < (gsize) width * (gsize) height; i++)
    {
      /* GDK_MEMORY_DEFAULT: B, G, R, A in memory on little-endian. */
      guchar b = pixels[i * 4], g = pixels[i * 4 + 1], r = pixels[i * 4 + 2];

      if (r > 235 && g > 100 && g < 140 && b < 30)
        n++;
    }
  g_unlink (path);
  return n;
}

static void
destroy_all_windows (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  while (g_list_model_get_n_items (toplevels) > 0)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, 0);

      gtk_window_destroy (window);
    }
  for (guint i = 0; i < 50 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

static gboolean
timeline_highlights (gpointer data)
{
  return planar_timeline_get_search_hits (data) != NULL;
}

static gboolean
find_bar_open (gpointer data)
{
  PlanarWindow *window = data;
  GtkWidget *revealer = gtk_widget_get_first_child (GTK_WIDGET (window->find_bar));

  /* Open, and done sliding in: a click computed from a button's place
   * while the bar still moves lands beside it. */
  return planar_find_bar_get_open (window->find_bar)
         && GTK_IS_REVEALER (revealer) && gtk_revealer_get_child_revealed (GTK_REVEALER (revealer));
}

static gboolean
find_bar_closed (gpointer data)
{
  PlanarWindow *window = data;

  return !planar_find_bar_get_open (window->find_bar);
}

static gboolean
find_list_closed (gpointer data)
{
  PlanarWindow *window = data;

  return !gtk_widget_get_visible (GTK_WIDGET (window->find_results));
}

static gboolean
find_list_open (gpointer data)
{
  PlanarWindow *window = data;

  return gtk_widget_get_visible (GTK_WIDGET (window->find_results));
}

/* The toggle button of the find bar that shows the list. */
static GtkWidget *
find_bar_button (PlanarWindow *window,
                 GType         type,
                 const char   *icon)
{
  GPtrArray *stack = g_ptr_array_new ();
  GtkWidget *found = NULL;

  g_ptr_array_add (stack, window->find_bar);
  while (stack->len > 0 && found == NULL)
    {
      GtkWidget *widget = g_ptr_array_steal_index (stack, stack->len - 1);

      if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && GTK_IS_BUTTON (widget)
          && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), icon) == 0)
        found = widget;
      for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
           child = gtk_widget_get_next_sibling (child))
        g_ptr_array_add (stack, child);
    }
  g_ptr_array_unref (stack);
  g_assert_nonnull (found);
  return found;
}

/* ------------------------------------------------------------------------
 * The test
 * ------------------------------------------------------------------------ */

typedef struct
{
  PlanarTimeline *timeline;
  gint64          start_ps;
  gint64          end_ps;
} ViewWait;

static gboolean
view_is (gpointer data)
{
  ViewWait *wait = data;

  return planar_timeline_get_start_ps (wait->timeline) == wait->start_ps
         && planar_timeline_get_end_ps (wait->timeline) == wait->end_ps;
}

static void
test_find_shows_hits (void)
{
  g_autofree char *path = planar_test_sample_path (SAMPLE);
  g_autoptr(GFile) file = NULL;
  PlanarWindow *window;
  PlanarTimeline *timeline;
  gint64 first, last, width_before;
  guint64 n, highlighted, plain;
  double width_px;
  const PlanarEvent *event;

  /* A real JAX GPU profile: skipped in a clone without the samples. */
  if (path == NULL)
    return;
  file = g_file_new_for_path (path);
  window = planar_application_open_file (app, file, NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1300, 820);
  gtk_window_present (GTK_WINDOW (window));
  wait_for (window_loaded, window, 30, "the profile to load");
  timeline = window->timeline;
  settle (G_USEC_PER_SEC / 2);

  /* The whole profile in view: 0 on the timeline. */
  gtk_widget_grab_focus (GTK_WIDGET (timeline));
  g_assert_true (planar_profile_get_span (planar_window_get_profile (window), &first, &last));
  planar_timeline_set_view (timeline, first + (last - first) / 3, first + (last - first) / 2);
  xdotool (window, "key", "0", NULL);
  {
    ViewWait wait = { timeline, first, last };

    wait_for (view_is, &wait, 10, "the whole profile in view");
  }

  /* Ctrl+F, then the count as the user types. */
  xdotool (window, "key", "ctrl+f", NULL);
  wait_for (find_bar_open, window, 10, "the find bar");
  settle (G_USEC_PER_SEC / 2);
  save_screenshot ("find-opened.png");
  xdotool (window, "type", "--delay", "40", "fus", NULL);
  wait_entry_text (window, "fus");
  g_assert_cmpuint (wait_search (window, "fus"), >, 0);
  xdotool (window, "type", "--delay", "40", "ion", NULL);
  wait_entry_text (window, "fusion");
  n = wait_search (window, "fusion");
  g_assert_cmpuint (n, >, 10);
  save_screenshot ("find-typed.png");

  /* Enter: the first hit in view, sub-pixel, comes on screen zoomed in. */
  event = hit_event (window, 0, &width_px);
  g_assert_cmpfloat (width_px, <, 1);
  press_for_hit (window, "Return", 0);
  assert_hit_on_screen (window, 0);
  {
    g_autofree char *count = g_strdup_printf ("1 of %" G_GUINT64_FORMAT, n);

    g_assert_cmpstr (gtk_label_get_text (count_label (window)), ==, count);
  }
  save_screenshot ("find-enter.png");

  /* Enter again: the next hit; visible already and wide enough, the zoom
   * stays. */
  width_before = planar_timeline_get_end_ps (timeline) - planar_timeline_get_start_ps (timeline);
  press_for_hit (window, "Return", 1);
  assert_hit_on_screen (window, 1);
  hit_event (window, 1, &width_px);
  if (width_px >= PLANAR_TIMELINE_SHOW_MIN_PX)
    g_assert_cmpint (planar_timeline_get_end_ps (timeline) - planar_timeline_get_start_ps (timeline), ==, width_before);

  /* Shift+Enter goes back, F3 forward, Shift+F3 back; from the whole
   * profile again, each zooms in. */
  xdotool (window, "key", "shift+Return", NULL);
  {
    CurrentWait wait = { window, 0 };

    wait_for (current_is, &wait, 10, "Shift+Enter");
  }
  assert_hit_on_screen (window, 0);
  planar_timeline_set_view (timeline, first, last);
  press_for_hit (window, "F3", 1);
  assert_hit_on_screen (window, 1);
  planar_timeline_set_view (timeline, first, last);
  press_for_hit (window, "shift+F3", 0);
  assert_hit_on_screen (window, 0);

  /* A bare f typed in the entry is text; BackSpace takes it away. */
  {
    gint64 start = planar_timeline_get_start_ps (timeline), end = planar_timeline_get_end_ps (timeline);

    xdotool (window, "key", "End", "f", NULL);
    wait_entry_text (window, "fusionf");
    g_assert_cmpuint (wait_search (window, "fusionf"), ==, 0);
    g_assert_cmpint (planar_timeline_get_start_ps (timeline), ==, start);
    g_assert_cmpint (planar_timeline_get_end_ps (timeline), ==, end);
    xdotool (window, "key", "BackSpace", NULL);
    wait_entry_text (window, "fusion");
    n = wait_search (window, "fusion");
  }

  /* Alt+Enter does what f does: the view fits the hit with a margin. */
  press_for_hit (window, "Return", 0);
  {
    gint64 margin;
    ViewWait wait = { timeline, 0, 0 };

    event = hit_event (window, 0, &width_px);
    margin = (gint64) ((double) event->duration_ps * PLANAR_TIMELINE_FIT_MARGIN);
    wait.start_ps = event->start_ps - margin;
    wait.end_ps = event->start_ps + event->duration_ps + margin;
    xdotool (window, "key", "alt+Return", NULL);
    wait_for (view_is, &wait, 10, "Alt+Enter to zoom to the hit");

    /* So does the bar's button, with the real pointer. */
    planar_timeline_set_view (timeline, first, last);
    click (window, find_bar_button (window, GTK_TYPE_BUTTON, "zoom-fit-best-symbolic"));
    wait_for (view_is, &wait, 10, "the zoom button");
    g_assert_true (planar_find_bar_get_open (window->find_bar));
  }
  save_screenshot ("find-zoomed.png");

  /* The details pane tells the hit's times to the nanosecond. */
  {
    g_autofree char *text = planar_details_pane_dup_text (window->details_pane);
    g_autofree char *start = planar_format_time_exact (event->start_ps);
    g_autofree char *line = g_strdup_printf ("Start: %s\n", start);

    g_assert_nonnull (text);
    g_assert_nonnull (strstr (text, line));
    /* Nanoseconds: nine decimals of a second. */
    g_assert_nonnull (strstr (start, " s"));
    g_assert_cmpuint (strlen (start), >, strlen ("9.721 819 103 s"));
  }

  /* The whole profile again, the bar open: every hit in view is marked,
   * sub-pixel as they are at this zoom; closing the bar takes the marks
   * away (below). */
  wait_for (timeline_highlights, timeline, 10, "the hits to be laid out");
  planar_timeline_set_view (timeline, first, last);
  settle (G_USEC_PER_SEC / 5);
  highlighted = count_hit_pixels (window);
  save_screenshot ("find-overview.png");
  /* Every hit's span: outlines where they are wide enough, bars where
   * not, for a person to look at. */
  {
    PlanarSearch *search = planar_find_bar_get_search (window->find_bar);
    const PlanarSearchHit *last_hit = planar_search_get_hit (search, planar_search_get_n_hits (search) - 1);
    gint64 from = planar_search_get_hit (search, 0)->start_ps;

    planar_timeline_set_view (timeline, from - (last_hit->start_ps - from) / 20,
                              last_hit->start_ps + (last_hit->start_ps - from) / 20);
    save_screenshot ("find-hits-spread.png");
  }

  /* Escape closes the list when it is open, then the bar; closing the bar
   * closes its list. */
  click (window, find_bar_button (window, GTK_TYPE_TOGGLE_BUTTON, "view-list-symbolic"));
  wait_for (find_list_open, window, 10, "the list of hits");
  save_screenshot ("find-list.png");
  xdotool (window, "key", "Escape", NULL);
  wait_for (find_list_closed, window, 10, "Escape to close the list");
  g_assert_true (planar_find_bar_get_open (window->find_bar));
  /* The list, focused, closes on Escape too. */
  click (window, find_bar_button (window, GTK_TYPE_TOGGLE_BUTTON, "view-list-symbolic"));
  wait_for (find_list_open, window, 10, "the list of hits");
  gtk_widget_grab_focus (GTK_WIDGET (window->find_results));
  xdotool (window, "key", "Escape", NULL);
  wait_for (find_list_closed, window, 10, "Escape in the list");
  g_assert_true (planar_find_bar_get_open (window->find_bar));
  click (window, find_bar_button (window, GTK_TYPE_TOGGLE_BUTTON, "view-list-symbolic"));
  wait_for (find_list_open, window, 10, "the list of hits");
  /* And from the entry. */
  planar_find_bar_open (window->find_bar);
  find_entry (window);
  xdotool (window, "key", "Escape", NULL);
  wait_for (find_list_closed, window, 10, "Escape to close the list");
  xdotool (window, "key", "Escape", NULL);
  wait_for (find_bar_closed, window, 10, "Escape to close the bar");
  g_assert_null (planar_timeline_get_search_hits (timeline));
  settle (G_USEC_PER_SEC / 5);
  plain = count_hit_pixels (window);
  g_test_message ("hit pixels: %" G_GUINT64_FORMAT " with the bar open, %" G_GUINT64_FORMAT " closed",
                  highlighted, plain);
  g_assert_cmpuint (highlighted, >, plain + 20 * 3);

  xdotool (window, "key", "ctrl+f", NULL);
  wait_for (find_bar_open, window, 10, "the find bar again");
  click (window, find_bar_button (window, GTK_TYPE_TOGGLE_BUTTON, "view-list-symbolic"));
  wait_for (find_list_open, window, 10, "the list of hits");
  click (window, find_bar_button (window, GTK_TYPE_BUTTON, "window-close-symbolic"));
  wait_for (find_bar_closed, window, 10, "the close button");
  wait_for (find_list_closed, window, 10, "the list to close with the bar");

  /* Enter typed right after the pattern, before the entry's search delay
   * has passed (the keys reach the app together, as when a person types
   * fast): the search of what was typed runs, and Enter goes to its first
   * hit. Enter was lost: it stepped no search (or the last pattern's),
   * and the search that started afterwards forgot it. */
  planar_timeline_set_view (timeline, first, last);
  xdotool (window, "key", "ctrl+f", NULL);
  wait_for (find_bar_open, window, 10, "the find bar once more");
  xdotool (window, "key", "ctrl+a", "BackSpace", NULL);
  /* No main loop iteration between the two: the keys wait in the queue. */
  xdotool (window, "type", "--delay", "20", "usion", NULL);
  xdotool (window, "key", "Return", NULL);
  wait_entry_text (window, "usion");
  {
    CurrentWait wait = { window, 0 };

    wait_for (current_is, &wait, 10, "Enter typed with the pattern to go to its first hit");
    g_assert_cmpstr (planar_search_get_pattern (planar_find_bar_get_search (window->find_bar)), ==, "usion");
  }
  assert_hit_on_screen (window, 0);
  xdotool (window, "key", "Escape", NULL);
  wait_for (find_bar_closed, window, 10, "Escape to close the bar");

  /* The axis, 150 ms wide at 9.6 s: labels from a base, never "9650 ms". */
  planar_timeline_set_view (timeline, G_GINT64_CONSTANT (9600000000000), G_GINT64_CONSTANT (9750000000000));
  save_screenshot ("axis-offset.png");

  destroy_all_windows ();
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *home = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  tmp_dir = g_dir_make_tmp ("planar-test-find-XXXXXX", &error);
  g_assert_no_error (error);
  home = g_build_filename (tmp_dir, "home", NULL);
  g_assert_cmpint (g_mkdir_with_parents (home, 0755), ==, 0);
  g_setenv ("HOME", home, TRUE);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_setenv ("XDG_CONFIG_HOME", home, TRUE);
  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("XDG_STATE_HOME", home, TRUE);
  g_setenv ("PLANAR_DEBUG_ACTIONS", "1", TRUE);

  gtk_disable_setlocale ();
  setlocale (LC_ALL, "C.UTF-8");
  gtk_init ();

  app = planar_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);

  g_test_add_func ("/find/shows-hits", test_find_shows_hits);
  status = g_test_run ();

  destroy_all_windows ();
  g_clear_object (&app);
  {
    const char *argv_rm[] = { "rm", "-rf", tmp_dir, NULL };

    g_spawn_sync (NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  g_free (tmp_dir);
  return status;
}
