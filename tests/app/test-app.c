/* test-app.c: the application in process, driven through its actions as
 * the header bar, the menus and the keys drive it.
 *
 * Runs under Xvfb in its own session bus (tests/meson.build). Needs
 * PLANAR_GEN and GSETTINGS_SCHEMA_DIR (the build's compiled schema); the
 * cases on the real profiles of PLANAR_SAMPLES_DIR (shared/samples) skip
 * where it is not there.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planar-application.h"
#include "planar-application-private.h"
#include "planar-details-pane-private.h"
#include "planar-shortcuts.h"
#include "planar-timeline-private.h"
#include "planar-welcome-page.h"
/* The tools' widgets, reached as the window holds them. */
#include "planar-aggregate-row.h"
#include "planar-model.h"
#include "planar-capture-dialog.h"
#include "planar-cache-private.h"
#include "planar-profile-private.h"
#include "planar-trace-loader-private.h"
#include "planar-export-private.h"
#include "planar-preferences.h"
#include "planar-record-dialog.h"
#include "planar-test-samples.h"
#include "planar-window-private.h"
#include "planar-test-xspace.h"

/* Two sessions of one run, as XProf lays them out, made of real profiles:
 *   <logdir>/plugins/profile/2026_01_01_00_00_00/{tw003,fused}.xplane.pb
 *   <logdir>/plugins/profile/2025_12_31_00_00_00/gpu.xplane.pb */
#define NEWEST "2026_01_01_00_00_00"
#define OLDER  "2025_12_31_00_00_00"
/* A large generated profile, in a session of its own, to cancel. */
#define LARGE  "2025_06_01_00_00_00"

static PlanarApplication *app;
static char *tmp_dir;
static char *logdir;
static char *broken_dir;

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
wait_for (gboolean (*done) (gpointer),
          gpointer   data,
          double     timeout_s,
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

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop for @seconds, for what should not happen in that
 * time. */
static void
run_main_loop_for (double seconds)
{
  gboolean done = FALSE;

  g_timeout_add ((guint) (seconds * 1000), set_flag, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
window_settled (gpointer data)
{
  PlanarWindow *window = data;

  return !planar_window_get_loading (window);
}

static gboolean
window_loaded (gpointer data)
{
  PlanarWindow *window = data;
  PlanarProfile *profile = planar_window_get_profile (window);

  return !planar_window_get_loading (window) && profile != NULL && planar_profile_is_loaded (profile);
}

static void
wait_loaded (PlanarWindow *window)
{
  wait_for (window_loaded, window, 30, "the profile to load");
}

static void
activate (PlanarWindow *window,
          const char   *action,
          GVariant     *parameter)
{
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), action));
  g_action_group_activate_action (G_ACTION_GROUP (window), action, parameter);
}

static char **
dup_state_strv (PlanarWindow *window,
                const char   *action)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (window), action);

  return g_variant_dup_strv (state, NULL);
}

static PlanarWindow *
open_path (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  PlanarWindow *window = planar_application_open_file (app, file, NULL);

  gtk_window_present (GTK_WINDOW (window));
  return window;
}

/* The first widget of @type under @root, depth first, or NULL. */
static GtkWidget *
find_descendant (GtkWidget *root,
                 GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        return child;
      found = find_descendant (child, type);
      if (found != NULL)
        return found;
    }
  return NULL;
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
  /* Let the cancelled workers report back. */
  for (guint i = 0; i < 50 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

/* Returns: (transfer none) (nullable): the message dialog shown over
 * @window. */
static AdwMessageDialog *
find_message_dialog (PlanarWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (toplevel) && gtk_window_get_transient_for (toplevel) == GTK_WINDOW (window))
        return ADW_MESSAGE_DIALOG (toplevel);
    }
  return NULL;
}

static gboolean
has_message_dialog (gpointer data)
{
  return find_message_dialog (data) != NULL;
}

static void
link_sample (const char *session,
             const char *host,
             const char *sample)
{
  g_autofree char *folder = g_build_filename (logdir, "plugins", "profile", session, NULL);
  g_autofree char *target = g_build_filename (planar_test_samples_dir (), sample, NULL);
  g_autofree char *link = g_strdup_printf ("%s/%s.xplane.pb", folder, host);

  g_assert_true (g_file_test (target, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  g_assert_cmpint (symlink (target, link), ==, 0);
}

static void
make_logdirs (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *large_dir = NULL;
  g_autofree char *large = NULL;
  g_autofree char *broken = NULL;
  const char *gen = g_getenv ("PLANAR_GEN");
  char *argv[] = { (char *) gen, (char *) "--events", (char *) "1000000", (char *) "-o", NULL, NULL };
  int status = 0;

  tmp_dir = g_dir_make_tmp ("planar-test-app-XXXXXX", &error);
  g_assert_no_error (error);
  logdir = g_build_filename (tmp_dir, "logs", NULL);

  if (planar_test_samples_dir () != NULL)
    {
      link_sample (NEWEST, "tw003", "tracelens_mi300_jax08_attention_tw003.xplane.pb");
      link_sample (NEWEST, "fused", "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb");
      link_sample (OLDER, "worker", "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb");
    }

  g_assert_nonnull (gen);
  large_dir = g_build_filename (logdir, "plugins", "profile", LARGE, NULL);
  g_assert_cmpint (g_mkdir_with_parents (large_dir, 0755), ==, 0);
  large = g_build_filename (large_dir, "large.xplane.pb", NULL);
  argv[4] = large;
  g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  /* Bytes that are no XSpace, named like a profile. */
  broken_dir = g_build_filename (tmp_dir, "broken", "plugins", "profile", NEWEST, NULL);
  g_assert_cmpint (g_mkdir_with_parents (broken_dir, 0755), ==, 0);
  broken = g_build_filename (broken_dir, "bad.xplane.pb", NULL);
  g_file_set_contents (broken, "\x0a\xff\xff\xff\xff\x0f garbage, not a profile", -1, &error);
  g_assert_no_error (error);
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);

        if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
          remove_tree (child);
        else
          g_unlink (child);
      }
  g_rmdir (path);
}

/* ------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------ */

static guint
count_planar_windows (void)
{
  guint n = 0;

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    n += PLANAR_IS_WINDOW (l->data);
  return n;
}

static void
test_welcome (void)
{
  PlanarWindow *window;

  /* `planar` without a path: one window, with the welcome page. */
  g_application_activate (G_APPLICATION (app));
  g_assert_cmpuint (count_planar_windows (), ==, 1);
  window = PLANAR_WINDOW (gtk_application_get_windows (GTK_APPLICATION (app))->data);
  g_assert_true (planar_window_is_empty (window));
  g_assert_false (planar_window_get_loading (window));
  g_assert_null (planar_window_get_profile (window));
  /* Nothing to choose from before a profile is open. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "session"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "reload"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "open-file"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "open-folder"));

  destroy_all_windows ();
}

/* `planar PATH`: the window shows the profile's page from its first frame,
 * never the welcome page cross-faded away once the catalog is found, and
 * never builds that page (it reads the whole list of recent files); a
 * window without a path keeps its welcome page. */
static void
test_path_opens_profile_page (void)
{
  g_autofree char *dir = g_build_filename (tmp_dir, "first-page", NULL);
  g_autofree char *path = g_build_filename (dir, "gen.xplane.pb", NULL);
  const char *argv[] = { g_getenv ("PLANAR_GEN"), "--events", "1000", "-o", path, NULL };
  g_autoptr(GError) error = NULL;
  PlanarWindow *window;
  PlanarWindow *empty;
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  window = open_path (path);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "trace-viewer");
  g_assert_false (gtk_stack_get_transition_running (window->stack));
  wait_loaded (window);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "trace-viewer");
  g_assert_null (find_descendant (GTK_WIDGET (window), PLANAR_TYPE_WELCOME_PAGE));

  empty = planar_application_new_window (app);
  gtk_window_present (GTK_WINDOW (empty));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (empty->stack), ==, "welcome");
  g_assert_nonnull (find_descendant (GTK_WIDGET (empty), PLANAR_TYPE_WELCOME_PAGE));
  g_assert_true (gtk_widget_get_mapped (find_descendant (GTK_WIDGET (empty), PLANAR_TYPE_WELCOME_PAGE)));

  destroy_all_windows ();
}

static char *
generate_profile (const char *name,
                  const char *events)
{
  g_autofree char *dir = g_build_filename (tmp_dir, "early-load", NULL);
  char *path = g_build_filename (dir, name, NULL);
  const char *argv[] = { g_getenv ("PLANAR_GEN"), "--events", events, "-o", path, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return path;
}

static int
compare_string_ptrs (gconstpointer a,
                     gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Each row of @rows as "kind / name: count, total, self", sorted. */
static GPtrArray *
describe_rows (GListModel *rows)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(PlanarAggregateRow) row = g_list_model_get_item (rows, i);

      g_ptr_array_add (out, g_strdup_printf ("%s / %s: %" G_GUINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT,
                                             planar_aggregate_row_get_kind (row), planar_aggregate_row_get_name (row),
                                             planar_aggregate_row_get_count (row),
                                             planar_aggregate_row_get_total_ps (row),
                                             planar_aggregate_row_get_self_ps (row)));
    }
  g_ptr_array_sort (out, compare_string_ptrs);
  return out;
}

static gboolean
details_table_filled (gpointer data)
{
  PlanarWindow *window = data;
  GListModel *rows = planar_details_pane_get_rows (window->details_pane);

  return rows != NULL && g_list_model_get_n_items (rows) > 0;
}

static gboolean
pointer_cleared (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static gboolean
early_load_returned (gpointer data)
{
  return _planar_early_load_has_returned (data);
}

/* Begins @path's load as `planar PATH` does before GTK starts; returns it. */
static PlanarEarlyLoad *
start_early_load (const char *path)
{
  char *argv[] = { (char *) "planar", (char *) path, NULL };

  g_assert_true (planar_application_start_early_load (app, 2, argv));
  return _planar_application_get_early_load (app);
}

/* `planar PATH` starts PATH's load before GTK starts, and the window that
 * opens PATH adopts it: one load, whose tracks, end and errors the window
 * gets as from its own. Any other path is loaded by the window, and the
 * early load is cancelled. */
static void
test_early_load (void)
{
  g_autofree char *demo = g_build_filename (tmp_dir, "early-load", "logs", NULL);
  g_autofree char *other = generate_profile ("other.xplane.pb", "2000");
  g_autofree char *bad = g_build_filename (broken_dir, "bad.xplane.pb", NULL);
  const char *gen_argv[] = { g_getenv ("PLANAR_GEN"), "--demo", demo, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarProfile) early = NULL;
  PlanarEarlyLoad *early_load;
  PlanarWindow *window;
  AdwMessageDialog *dialog;
  int status = 0;

  g_spawn_sync (NULL, (char **) gen_argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  /* Options, several paths, or none: no early load. */
  {
    char *none[] = { (char *) "planar", NULL };
    char *version[] = { (char *) "planar", (char *) "--version", NULL };
    char *two[] = { (char *) "planar", demo, other, NULL };

    g_assert_false (planar_application_start_early_load (app, 1, none));
    g_assert_false (planar_application_start_early_load (app, 2, version));
    g_assert_false (planar_application_start_early_load (app, 3, two));
    g_assert_null (_planar_application_get_early_load (app));
  }

  /* A log folder (its newest session, both hosts): the load runs before
   * any window exists, and the window adopts it. */
  early_load = start_early_load (demo);
  g_assert_nonnull (early_load);
  early = _planar_early_load_dup_profile (early_load);
  g_assert_nonnull (early);
  g_assert_cmpuint (count_planar_windows (), ==, 0);
  window = open_path (demo);
  wait_loaded (window);
  g_assert_true (planar_window_get_profile (window) == early);
  g_assert_true (_planar_early_load_is_adopted (early_load));
  g_assert_cmpuint (planar_profile_get_n_traces (early), ==, 2);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "trace-viewer");
  g_assert_cmpuint (planar_timeline_layout_get_n_sections (window->timeline->layout), >, 0);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "reload"));
  /* Reload is the window's own load, as always, and the profile the early
   * load handed over goes with the window's last reference, while the
   * application still holds the early load (as it does until it quits):
   * it was kept, with every byte of its index, until then. */
  {
    gpointer weak = early;

    g_object_add_weak_pointer (G_OBJECT (early), &weak);
    g_clear_object (&early);
    activate (window, "reload", NULL);
    wait_loaded (window);
    g_assert_true (planar_window_get_profile (window) != weak);
    wait_for (pointer_cleared, &weak, 30, "the early load's profile to be finalized after a reload");
  }
  planar_application_end_early_load (app);
  g_assert_null (_planar_application_get_early_load (app));
  destroy_all_windows ();

  /* A load that ended before the window was made: its end reaches the
   * window all the same. */
  early_load = start_early_load (other);
  early = _planar_early_load_dup_profile (early_load);
  /* Held before its derive pass until the deadline: no window paints. */
  wait_for (early_load_returned, early_load, 30, "the early load to end");
  g_assert_true (planar_profile_is_loaded (early));
  window = open_path (other);
  wait_loaded (window);
  g_assert_true (planar_window_get_profile (window) == early);
  g_assert_true (_planar_early_load_is_adopted (early_load));
  g_assert_cmpuint (planar_profile_get_n_events (early), >, 0);
  planar_application_end_early_load (app);
  destroy_all_windows ();
  g_clear_object (&early);

  /* Another path is the window's own load; the early one is cancelled. */
  early_load = start_early_load (demo);
  early = _planar_early_load_dup_profile (early_load);
  window = open_path (other);
  wait_loaded (window);
  g_assert_true (planar_window_get_profile (window) != early);
  g_assert_false (_planar_early_load_is_adopted (early_load));
  planar_application_end_early_load (app);
  g_assert_false (planar_profile_is_busy (early));
  destroy_all_windows ();
  g_clear_object (&early);

  /* A load the window does not adopt though it took its path's resolution
   * (here the lazy threshold changed since the early load began): the
   * window loads it itself, and the early load keeps nothing of it. */
  early_load = start_early_load (demo);
  early = _planar_early_load_dup_profile (early_load);
  g_setenv ("PLANAR_LAZY_HOSTS", "100", TRUE);
  window = open_path (demo);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  wait_loaded (window);
  g_unsetenv ("PLANAR_LAZY_HOSTS");
  g_assert_true (planar_window_get_profile (window) != early);
  g_assert_false (_planar_early_load_is_adopted (early_load));
  planar_application_end_early_load (app);
  destroy_all_windows ();
  wait_for (pointer_cleared, &window, 30, "the window to be finalized");
  g_clear_object (&early);

  /* A file that is no profile: the error is the window's, as always. */
  early_load = start_early_load (bad);
  window = open_path (bad);
  wait_for (has_message_dialog, window, 30, "the error dialog");
  dialog = find_message_dialog (window);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), bad));
  g_assert_true (_planar_early_load_is_adopted (early_load));
  g_assert_null (planar_window_get_profile (window));
  g_assert_false (planar_window_get_loading (window));
  planar_application_end_early_load (app);
  destroy_all_windows ();

  /* A path that does not exist: no load to adopt; the window says so. */
  {
    g_autofree char *missing = g_build_filename (tmp_dir, "early-load", "missing", NULL);

    early_load = start_early_load (missing);
    g_assert_null (_planar_early_load_dup_profile (early_load));
    window = open_path (missing);
    wait_for (has_message_dialog, window, 30, "the error dialog");
    g_assert_nonnull (strstr (adw_message_dialog_get_body (find_message_dialog (window)), missing));
    g_assert_true (planar_window_is_empty (window));
    planar_application_end_early_load (app);
    destroy_all_windows ();
  }
}

static GtkWindow *
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (toplevel, type))
        return toplevel;
    }
  return NULL;
}

static gboolean
has_file_chooser (gpointer data)
{
  return find_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG) != NULL;
}

static gboolean
has_current_folder (gpointer data)
{
  g_autoptr(GFile) folder = gtk_file_chooser_get_current_folder (data);

  return folder != NULL;
}

/* Open File… shows a file chooser (GTK's own, without a portal here), in
 * the folder the last profile came from; cancelling it opens nothing. */
static void
test_file_chooser (void)
{
  PlanarWindow *window = planar_application_new_window (app);
  g_autofree char *folder = g_build_filename (logdir, "plugins", "profile", NULL);
  g_autoptr(GFile) current = NULL;
  GtkWindow *chooser;

  g_settings_set_string (planar_application_get_settings (app), "last-folder", folder);
  gtk_window_present (GTK_WINDOW (window));
  activate (window, "open-file", NULL);
  wait_for (has_file_chooser, NULL, 10, "the file chooser");
  chooser = find_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG);
  g_assert_true (gtk_window_get_transient_for (chooser) == GTK_WINDOW (window));
  wait_for (has_current_folder, chooser, 10, "the file chooser's folder");
  current = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));
  g_assert_cmpstr (g_file_peek_path (current), ==, folder);
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (planar_window_is_empty (window));

  activate (window, "open-folder", NULL);
  wait_for (has_file_chooser, NULL, 10, "the folder chooser");
  chooser = find_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG);
  g_assert_cmpint (gtk_file_chooser_get_action (GTK_FILE_CHOOSER (chooser)), ==, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER);
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  /* Let the cancelled chooser go before its parent: destroyed at once, it
   * left the next window deaf to real pointer clicks (/app/lazy-hosts,
   * which runs right after this case where the samples' cases skip). */
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);

  destroy_all_windows ();
}

/* Dropping a folder on an empty window opens it there. */
static void
test_drop (void)
{
  PlanarWindow *window = planar_application_new_window (app);
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  g_autoptr(GFile) file = g_file_new_for_path (logdir);
  GValue value = G_VALUE_INIT;
  GtkDropTarget *target = NULL;
  gboolean handled = FALSE;

  gtk_window_present (GTK_WINDOW (window));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller))
        target = GTK_DROP_TARGET (controller);
    }
  g_assert_nonnull (target);

  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_array (&file, 1));
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &handled);
  g_value_unset (&value);
  g_assert_true (handled);
  wait_loaded (window);
  g_assert_cmpstr (planar_window_get_session (window), ==, NEWEST);

  destroy_all_windows ();
}

static gboolean
recent_listed (gpointer data)
{
  return planar_welcome_page_get_n_recent (data) > 0;
}

static void
test_open_logdir (void)
{
  PlanarWindow *window = open_path (logdir);
  GListModel *sessions;
  g_auto(GStrv) hosts = NULL;
  g_autofree char *first = NULL;
  PlanarWelcomePage *page;

  g_assert_false (planar_window_is_empty (window));
  wait_loaded (window);

  /* The newest session, every host of it, and the run's sessions newest
   * first. */
  g_assert_cmpstr (planar_window_get_session (window), ==, NEWEST);
  hosts = dup_state_strv (window, "hosts");
  g_assert_cmpuint (g_strv_length (hosts), ==, 2);
  g_assert_cmpstr (hosts[0], ==, "fused");
  g_assert_cmpstr (hosts[1], ==, "tw003");
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 2);
  sessions = planar_window_get_sessions (window);
  g_assert_cmpuint (g_list_model_get_n_items (sessions), ==, 3);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (sessions), 0), ==, NEWEST);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (sessions), 1), ==, OLDER);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (sessions), 2), ==, LARGE);
  /* The title names what was opened. */
  g_assert_true (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (window)), "logs"));

  /* One window per profile: opening again takes a new window. */
  g_assert_false (planar_window_is_empty (window));

  /* A new window lists the profile among the recent ones. */
  page = PLANAR_WELCOME_PAGE (g_object_new (PLANAR_TYPE_WELCOME_PAGE, NULL));
  g_object_ref_sink (page);
  wait_for (recent_listed, page, 10, "the recent profile");
  g_object_unref (page);

  destroy_all_windows ();
}

/* `planar PATH PATH`: one window each. */
static void
test_open_several (void)
{
  g_autofree char *session = g_build_filename (logdir, "plugins", "profile", OLDER, NULL);
  g_autoptr(GFile) first = g_file_new_for_path (logdir);
  g_autoptr(GFile) second = g_file_new_for_path (session);
  GFile *files[] = { first, second };
  g_autoptr(GPtrArray) sessions = g_ptr_array_new ();
  GList *windows;

  g_application_open (G_APPLICATION (app), files, G_N_ELEMENTS (files), "");
  g_assert_cmpuint (count_planar_windows (), ==, 2);
  /* A copy: GtkApplication reorders its list as windows take the focus
   * while they load. */
  windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (app)));
  for (GList *l = windows; l != NULL; l = l->next)
    {
      wait_loaded (l->data);
      g_ptr_array_add (sessions, (gpointer) planar_window_get_session (l->data));
    }
  g_list_free (windows);
  g_assert_cmpuint (sessions->len, ==, 2);
  g_assert_true (g_ptr_array_find_with_equal_func (sessions, NEWEST, g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (sessions, OLDER, g_str_equal, NULL));

  destroy_all_windows ();
}

static void
test_switch_sessions_and_hosts (void)
{
  PlanarWindow *window = open_path (logdir);
  g_auto(GStrv) hosts = NULL;
  const char *only_tw003[] = { "tw003", NULL };

  wait_loaded (window);

  activate (window, "session", g_variant_new_string (OLDER));
  wait_loaded (window);
  g_assert_cmpstr (planar_window_get_session (window), ==, OLDER);
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 1);
  hosts = dup_state_strv (window, "hosts");
  g_assert_cmpstrv (hosts, ((const char *[]) { "worker", NULL }));
  g_clear_pointer (&hosts, g_strfreev);

  activate (window, "session", g_variant_new_string (NEWEST));
  wait_loaded (window);
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 2);

  /* One host, then all of them again (an empty list). */
  activate (window, "hosts", g_variant_new_strv (only_tw003, -1));
  wait_loaded (window);
  hosts = dup_state_strv (window, "hosts");
  g_assert_cmpstrv (hosts, only_tw003);
  g_clear_pointer (&hosts, g_strfreev);
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 1);
  g_assert_cmpstr (planar_trace_get_host_name (planar_profile_get_trace (planar_window_get_profile (window), 0)),
                   ==, "tw003");

  activate (window, "hosts", g_variant_new_strv (NULL, 0));
  wait_loaded (window);
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 2);

  /* A host the session does not have is left out. */
  activate (window, "hosts", g_variant_new_strv ((const char *[]) { "tw003", "nowhere", NULL }, -1));
  wait_loaded (window);
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 1);

  /* A session that does not exist changes nothing. */
  activate (window, "session", g_variant_new_string ("1999_01_01_00_00_00"));
  g_assert_cmpstr (planar_window_get_session (window), ==, NEWEST);
  g_assert_false (planar_window_get_loading (window));

  activate (window, "reload", NULL);
  g_assert_true (planar_window_get_loading (window));
  wait_loaded (window);

  destroy_all_windows ();
}

static gboolean
widget_mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static PlanarTimeline *
find_timeline (GtkWidget *root)
{
  GtkWidget *found = find_descendant (root, PLANAR_TYPE_TIMELINE);

  return found != NULL ? PLANAR_TIMELINE (found) : NULL;
}

/* The id of the first track in a section of several, and its row. */
static char *
dup_first_track_id (PlanarTimeline           *timeline,
                    const PlanarTimelineRow **row_out)
{
  PlanarTimelineLayout *layout = timeline->layout;

  for (guint r = 0; r < planar_timeline_layout_get_n_rows (layout); r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout, r);

      if (row->kind == PLANAR_TIMELINE_ROW_TRACK && planar_timeline_layout_get_section (layout, row->section)->n_tracks > 1)
        {
          *row_out = row;
          return g_strdup (planar_timeline_layout_get_entry (layout, row->entry)->id);
        }
    }
  g_assert_not_reached ();
}

static char *
dup_first_section_title (PlanarTimeline *timeline)
{
  return g_strdup (planar_timeline_layout_get_section (timeline->layout, 0)->title);
}

/* Hidden tracks, collapsed and moved sections stay so across Reload, in a
 * new window, and when the session is shown again; another session has
 * its own arrangement. */
static void
test_tracks_remembered (void)
{
  PlanarWindow *window = open_path (logdir);
  PlanarTimeline *timeline = find_timeline (GTK_WIDGET (window));
  g_autofree char *store = g_build_filename (g_get_user_state_dir (), "planar", "views.ini", NULL);
  g_autofree char *id = NULL;
  g_autofree char *first_title = NULL;
  g_autofree char *moved_title = NULL;
  const PlanarTimelineRow *row;
  guint trace, plane, track, rows;

  g_assert_nonnull (timeline);
  wait_loaded (window);
  activate (window, "session", g_variant_new_string (OLDER));
  wait_loaded (window);
  g_assert_true (planar_view_state_is_default (planar_timeline_get_view_state (timeline)));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-view"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "show-tracks"));

  rows = planar_timeline_layout_get_n_rows (timeline->layout);
  id = dup_first_track_id (timeline, &row);
  trace = row->trace;
  plane = row->plane;
  track = row->track;
  first_title = dup_first_section_title (timeline);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (timeline), "timeline.hide-track", "s", id));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (timeline), "timeline.move-section-down", "s",
                                             planar_timeline_layout_get_section (timeline->layout, 0)->id));
  moved_title = dup_first_section_title (timeline);
  g_assert_cmpstr (moved_title, !=, first_title);
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (timeline->layout), ==, rows - 1);
  g_assert_cmpint (planar_timeline_layout_find_track (timeline->layout, trace, plane, track), ==, -1);
  g_assert_true (g_file_test (store, G_FILE_TEST_IS_REGULAR));

  /* Reload: the same profile again, arranged the same way. */
  activate (window, "reload", NULL);
  g_assert_true (planar_window_get_loading (window));
  wait_loaded (window);
  g_assert_true (planar_view_state_get_track_hidden (planar_timeline_get_view_state (timeline), id));
  g_assert_cmpint (planar_timeline_layout_find_track (timeline->layout, trace, plane, track), ==, -1);
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (timeline->layout), ==, rows - 1);
  {
    g_autofree char *title = dup_first_section_title (timeline);

    g_assert_cmpstr (title, ==, moved_title);
  }

  /* Another session shows everything; coming back restores the
   * arrangement. */
  activate (window, "session", g_variant_new_string (NEWEST));
  wait_loaded (window);
  g_assert_true (planar_view_state_is_default (planar_timeline_get_view_state (timeline)));
  activate (window, "session", g_variant_new_string (OLDER));
  wait_loaded (window);
  g_assert_cmpint (planar_timeline_layout_find_track (timeline->layout, trace, plane, track), ==, -1);

  /* A new window remembers it too. */
  destroy_all_windows ();
  window = open_path (logdir);
  timeline = find_timeline (GTK_WIDGET (window));
  wait_loaded (window);
  activate (window, "session", g_variant_new_string (OLDER));
  wait_loaded (window);
  g_assert_true (planar_view_state_get_track_hidden (planar_timeline_get_view_state (timeline), id));
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (timeline->layout), ==, rows - 1);

  /* Control+T's action opens the Tracks menu, which lists the hidden
   * track unchecked. */
  {
    GtkPopover *popover = gtk_menu_button_get_popover (window->tracks_button);

    g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->tracks_button)));
    activate (window, "show-tracks", NULL);
    wait_for (widget_mapped, popover, 10, "the Tracks menu");
    gtk_popover_popdown (popover);
  }

  /* Export View writes the view (the file chooser is GTK's; its answer
   * goes to the same function). */
  {
    g_autofree char *png_path = g_build_filename (tmp_dir, "view.png", NULL);
    g_autoptr(GFile) png = g_file_new_for_path (png_path);
    g_autoptr(GFile) nowhere = g_file_new_for_path ("/nonexistent-folder/view.svg");
    g_autoptr(GError) error = NULL;

    g_assert_true (_planar_window_export_view (window, png, PLANAR_TIMELINE_EXPORT_PNG, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_test (png_path, G_FILE_TEST_IS_REGULAR));
    /* A failure is a toast, not a crash or a dialog. */
    g_assert_false (_planar_window_export_view (window, nowhere, PLANAR_TIMELINE_EXPORT_SVG, &error));
    g_assert_nonnull (error);
    g_unlink (png_path);
  }

  /* Back to the usual arrangement: nothing is kept for the session. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (timeline), "timeline.show-all-tracks", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (timeline), "timeline.reset-section-order", NULL));
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (timeline->layout), ==, rows);
  {
    g_autoptr(GKeyFile) keyfile = g_key_file_new ();
    g_autoptr(GError) error = NULL;
    gsize n_groups = 0;
    g_auto(GStrv) groups = NULL;

    g_assert_true (g_key_file_load_from_file (keyfile, store, G_KEY_FILE_NONE, &error));
    groups = g_key_file_get_groups (keyfile, &n_groups);
    g_assert_cmpuint (n_groups, ==, 0);
  }

  destroy_all_windows ();
}

static gboolean
count_tick (gpointer data)
{
  guint *ticks = data;

  (*ticks)++;
  return G_SOURCE_CONTINUE;
}

static void
test_cancel_load (void)
{
  PlanarWindow *window = open_path (logdir);
  guint ticks = 0;
  guint source;

  wait_loaded (window);

  /* The large session loads in a worker: the main loop keeps running. */
  activate (window, "session", g_variant_new_string (LARGE));
  g_assert_true (planar_window_get_loading (window));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "cancel-load"));
  source = g_timeout_add (5, count_tick, &ticks);
  activate (window, "cancel-load", NULL);
  wait_for (window_settled, window, 30, "the load to stop");
  g_source_remove (source);

  g_assert_null (planar_window_get_profile (window));
  g_assert_null (find_message_dialog (window));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "cancel-load"));
  g_assert_cmpstr (planar_window_get_session (window), ==, LARGE);

  /* Loading again works, and the window answers while it runs. */
  ticks = 0;
  source = g_timeout_add (5, count_tick, &ticks);
  activate (window, "reload", NULL);
  wait_loaded (window);
  g_source_remove (source);
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 1);
  g_assert_cmpuint (planar_profile_get_n_events (planar_window_get_profile (window)), >=, 1000000);
  g_test_message ("%u main-loop ticks while the large profile loaded", ticks);
  g_assert_cmpuint (ticks, >, 1);

  /* Another session while one loads: the first is dropped. */
  activate (window, "session", g_variant_new_string (OLDER));
  activate (window, "session", g_variant_new_string (NEWEST));
  wait_loaded (window);
  g_assert_cmpstr (planar_window_get_session (window), ==, NEWEST);
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 2);

  destroy_all_windows ();
}

static void
test_broken_file (void)
{
  g_autofree char *bad = g_build_filename (broken_dir, "bad.xplane.pb", NULL);
  g_autofree char *missing = g_build_filename (tmp_dir, "no-such-folder", NULL);
  PlanarWindow *window = open_path (bad);
  PlanarWindow *missing_window;
  PlanarWindow *good;
  AdwMessageDialog *dialog;

  wait_for (has_message_dialog, window, 30, "the error dialog");
  dialog = find_message_dialog (window);
  /* The dialog names the file and says what is wrong with it. */
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), bad));
  g_assert_cmpuint (strlen (adw_message_dialog_get_body (dialog)), >, strlen (bad) + 30);
  g_assert_null (planar_window_get_profile (window));
  g_assert_false (planar_window_get_loading (window));
  adw_message_dialog_response (dialog, "close");
  gtk_window_destroy (GTK_WINDOW (dialog));
  /* A file that failed to open is not offered among the recent ones. */
  {
    g_autoptr(GFile) file = g_file_new_for_path (bad);
    g_autofree char *uri = g_file_get_uri (file);
    GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());

    for (GList *l = items; l != NULL; l = l->next)
      g_assert_cmpstr (gtk_recent_info_get_uri (l->data), !=, uri);
    g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  }

  /* Nothing there at all: the window stays free for the next profile. */
  missing_window = planar_application_new_window (app);
  {
    g_autoptr(GFile) file = g_file_new_for_path (missing);

    planar_application_open_file (app, file, missing_window);
  }
  wait_for (has_message_dialog, missing_window, 30, "the error dialog");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (find_message_dialog (missing_window)), missing));
  g_assert_true (planar_window_is_empty (missing_window));
  gtk_window_destroy (GTK_WINDOW (find_message_dialog (missing_window)));

  /* The application goes on: a good profile opens, in the free window. */
  good = open_path (logdir);
  g_assert_true (good == missing_window);
  wait_loaded (good);
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (good)), ==, 2);

  /* And the broken window can still switch to something else. */
  activate (window, "reload", NULL);
  wait_for (has_message_dialog, window, 30, "the error dialog again");

  destroy_all_windows ();
}

static void
test_open_session_folder_and_file (void)
{
  g_autofree char *session = g_build_filename (logdir, "plugins", "profile", OLDER, NULL);
  g_autofree char *file = g_build_filename (logdir, "plugins", "profile", NEWEST, "tw003.xplane.pb", NULL);
  g_auto(GStrv) hosts = NULL;
  PlanarWindow *window;

  /* A session folder: that session, with its run's others in the menu. */
  window = open_path (session);
  wait_loaded (window);
  g_assert_cmpstr (planar_window_get_session (window), ==, OLDER);
  g_assert_cmpuint (g_list_model_get_n_items (planar_window_get_sessions (window)), ==, 3);

  /* A file: its host alone, in its session. */
  window = open_path (file);
  wait_loaded (window);
  g_assert_cmpstr (planar_window_get_session (window), ==, NEWEST);
  hosts = dup_state_strv (window, "hosts");
  g_assert_cmpstrv (hosts, ((const char *[]) { "tw003", NULL }));
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 1);

  destroy_all_windows ();
}

typedef struct
{
  PlanarWindow *window;
  guint         n_sessions;
} SessionsWait;

static gboolean
has_more_sessions (gpointer data)
{
  SessionsWait *wait = data;

  return g_list_model_get_n_items (planar_window_get_sessions (wait->window)) > wait->n_sessions;
}

static void
test_new_session_appears (void)
{
  PlanarWindow *window = open_path (logdir);
  g_autofree char *folder = g_build_filename (logdir, "plugins", "profile", "2026_02_01_00_00_00", NULL);
  SessionsWait wait = { window, 0 };

  wait_loaded (window);
  wait.n_sessions = g_list_model_get_n_items (planar_window_get_sessions (window));

  /* A capture: the folder first, its host file a moment later. */
  g_assert_cmpint (g_mkdir (folder, 0755), ==, 0);
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  link_sample ("2026_02_01_00_00_00", "late", "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb");
  wait_for (has_more_sessions, &wait, 10, "the new session in the menu");
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (planar_window_get_sessions (window)), 0),
                   ==, "2026_02_01_00_00_00");
  /* What is shown does not change by itself. */
  g_assert_cmpstr (planar_window_get_session (window), ==, NEWEST);

  activate (window, "session", g_variant_new_string ("2026_02_01_00_00_00"));
  wait_loaded (window);
  g_assert_cmpuint (planar_profile_get_n_traces (planar_window_get_profile (window)), ==, 1);

  destroy_all_windows ();
}

/* Every control a person can reach has a name for screen readers. Only
 * the application's own widgets are looked at: the timeline is its own. */
static void
check_labels (GtkWidget *widget,
              guint     *n_checked)
{
  gboolean control = GTK_IS_BUTTON (widget) || GTK_IS_MENU_BUTTON (widget) || GTK_IS_DROP_DOWN (widget) ||
                     GTK_IS_CHECK_BUTTON (widget) || GTK_IS_PROGRESS_BAR (widget) ||
                     (GTK_IS_LIST_BOX_ROW (widget) && gtk_list_box_row_get_activatable (GTK_LIST_BOX_ROW (widget)));

  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, g_type_from_name ("PlanarTimeline")) ||
      g_strcmp0 (G_OBJECT_TYPE_NAME (widget), "GtkWindowControls") == 0)
    return;
  if (control)
    {
      if (!gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL))
        {
          g_autoptr(GString) path = g_string_new (G_OBJECT_TYPE_NAME (widget));

          for (GtkWidget *w = gtk_widget_get_parent (widget); w != NULL; w = gtk_widget_get_parent (w))
            g_string_prepend (g_string_prepend (path, " > "), G_OBJECT_TYPE_NAME (w));
          g_error ("%s has no accessible label", path->str);
        }
      (*n_checked)++;
      /* Their insides are theirs. */
      if (GTK_IS_MENU_BUTTON (widget) || GTK_IS_DROP_DOWN (widget))
        {
          if (GTK_IS_MENU_BUTTON (widget) && gtk_menu_button_get_popover (GTK_MENU_BUTTON (widget)) != NULL &&
              gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget)) == NULL)
            check_labels (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (widget))), n_checked);
          return;
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    check_labels (child, n_checked);
}

static void
test_accessible_labels (void)
{
  PlanarWindow *window = open_path (logdir);
  PlanarWindow *empty = planar_application_new_window (app);
  guint n_checked = 0;

  gtk_window_present (GTK_WINDOW (empty));
  wait_loaded (window);

  check_labels (GTK_WIDGET (window), &n_checked);
  check_labels (GTK_WIDGET (empty), &n_checked);
  g_test_message ("%u controls have accessible labels", n_checked);
  /* Open, Sessions, Hosts and its checks, Tools, menu, Cancel, Load
   * Again, welcome buttons and recent rows. */
  g_assert_cmpuint (n_checked, >=, 14);

  destroy_all_windows ();
}

/* Collects the text of every label under @widget. */
static void
collect_label_text (GtkWidget *widget,
                    GString   *text)
{
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (text, "%s\n", gtk_label_get_label (GTK_LABEL (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    collect_label_text (child, text);
}

/* The shortcuts window names Shift+Tab as such, never by the keyval
 * ISO_Left_Tab: the labels its shortcut labels hold. (It is not shown:
 * GTK 4.8's shortcuts window warns about a label's size when mapped, and
 * warnings are fatal here.) */
static void
test_shortcuts_shift_tab (void)
{
  g_autoptr(GString) text = g_string_new (NULL);
  GtkWindow *shortcuts = GTK_WINDOW (planar_shortcuts_new_window ());

  collect_label_text (GTK_WIDGET (shortcuts), text);
  g_assert_null (strstr (text->str, "ISO_Left_Tab"));
  g_assert_nonnull (strstr (text->str, "Shift"));
  g_assert_nonnull (strstr (text->str, "Tab"));
  gtk_window_destroy (shortcuts);
  destroy_all_windows ();
}

/* Settings that cannot be stored (dconf without a session bus) still apply
 * until the app quits: the flow arrows switched on stay on. Runs in a child
 * whose app starts on the dconf backend with no D-Bus. */
static void
test_settings_unstorable (void)
{
  if (g_test_subprocess ())
    {
      GSettings *settings = planar_application_get_settings (app);
      gboolean before = g_settings_get_boolean (settings, "show-flows");
      g_autoptr(GVariant) state = NULL;

      g_action_group_activate_action (G_ACTION_GROUP (app), "show-flows", NULL);
      /* dconf answers a failed write by putting the old value back: wait
       * for the write to finish, then for what it sends back. */
      g_settings_sync ();
      for (guint i = 0; i < 100 && g_main_context_iteration (NULL, FALSE); i++)
        ;
      g_assert_cmpint (g_settings_get_boolean (settings, "show-flows"), ==, !before);
      state = g_action_group_get_action_state (G_ACTION_GROUP (app), "show-flows");
      g_assert_cmpint (g_variant_get_boolean (state), ==, !before);
      return;
    }
  else
    {
      g_autofree char *backend = g_strdup (g_getenv ("GSETTINGS_BACKEND"));
      g_autofree char *bus = g_strdup (g_getenv ("DBUS_SESSION_BUS_ADDRESS"));

      g_setenv ("GSETTINGS_BACKEND", "dconf", TRUE);
      g_setenv ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent", TRUE);
      g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
      if (backend != NULL)
        g_setenv ("GSETTINGS_BACKEND", backend, TRUE);
      else
        g_unsetenv ("GSETTINGS_BACKEND");
      if (bus != NULL)
        g_setenv ("DBUS_SESSION_BUS_ADDRESS", bus, TRUE);
      else
        g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
      g_test_trap_assert_passed ();
    }
}

/* Counts the shortcuts in the window's sections (its search page holds a
 * copy of each). */
static void
count_shortcuts (GtkWidget *widget,
                 gboolean   in_section,
                 guint     *n)
{
  in_section |= GTK_IS_SHORTCUTS_SECTION (widget);
  if (in_section && GTK_IS_SHORTCUTS_SHORTCUT (widget))
    (*n)++;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    count_shortcuts (child, in_section, n);
}

static void
test_settings (void)
{
  GSettings *settings = planar_application_get_settings (app);
  PlanarWindow *window;
  int width, height;

  g_settings_set_int (settings, "window-width", 900);
  g_settings_set_int (settings, "window-height", 700);
  window = planar_application_new_window (app);
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 900);
  g_assert_cmpint (height, ==, 700);

  /* Closing keeps the size for the next window. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 640);
  gtk_window_present (GTK_WINDOW (window));
  gtk_window_close (GTK_WINDOW (window));
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 1000);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 640);

  /* The flow arrows follow the setting, whichever way it is changed. */
  g_action_group_activate_action (G_ACTION_GROUP (app), "show-flows", NULL);
  g_assert_true (g_settings_get_boolean (settings, "show-flows"));
  g_action_group_activate_action (G_ACTION_GROUP (app), "show-flows", NULL);
  g_assert_false (g_settings_get_boolean (settings, "show-flows"));

  /* The shortcuts window lists the application's keys and the timeline's. */
  {
    GtkWidget *shortcuts = GTK_WIDGET (planar_shortcuts_new_window ());
    const PlanarShortcut *table;
    gsize n_entries, n_app = 0;
    guint n_listed = 0;

    table = planar_shortcuts_get_table (&n_entries);
    for (gsize i = 0; i < n_entries; i++)
      if (!g_str_has_prefix (table[i].action, "timeline."))
        n_app++;
    g_assert_cmpuint (n_app, >, 0);
    count_shortcuts (shortcuts, FALSE, &n_listed);
    g_assert_cmpuint (n_listed, ==, n_entries);
    gtk_window_destroy (GTK_WINDOW (shortcuts));
  }

  /* The application's accelerators are the table's. */
  {
    g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.open-file");

    g_assert_cmpstrv (accels, ((const char *[]) { "<Control>o", NULL }));
  }

  /* The shortcuts and about windows open from their actions. GTK 4.8's
   * GtkShortcutLabel measures the "+" between keys below zero under
   * Adwaita ("GtkLabel reported min width -4"), a warning GTK itself
   * clamps away; it is not made fatal while the window is shown. */
  {
    GLogLevelFlags fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
    GListModel *toplevels = gtk_window_get_toplevels ();
    gboolean shortcuts = FALSE, about = FALSE;

    g_action_group_activate_action (G_ACTION_GROUP (app), "shortcuts", NULL);
    g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
    for (guint i = 0; i < 20; i++)
      g_main_context_iteration (NULL, FALSE);
    for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
      {
        g_autoptr(GObject) toplevel = g_list_model_get_item (toplevels, i);

        shortcuts |= GTK_IS_SHORTCUTS_WINDOW (toplevel);
        about |= ADW_IS_ABOUT_WINDOW (toplevel);
        /* How to report a problem: text naming a section that exists in
         * the repository, not an invented web address. */
        if (ADW_IS_ABOUT_WINDOW (toplevel))
          {
            const char *debug_info = adw_about_window_get_debug_info (ADW_ABOUT_WINDOW (toplevel));
            g_autofree char *contributing = g_build_filename (g_getenv ("PLANAR_TEST_SOURCE_DIR"), "..", "..",
                                                              "CONTRIBUTING.md", NULL);
            g_autofree char *text = NULL;

            g_assert_nonnull (strstr (debug_info, "CONTRIBUTING.md"));
            g_assert_nonnull (strstr (debug_info, "“Reporting problems”"));
            g_assert_true (g_file_get_contents (contributing, &text, NULL, NULL));
            g_assert_nonnull (strstr (text, "\n## Reporting problems\n"));
            g_assert_cmpstr (adw_about_window_get_issue_url (ADW_ABOUT_WINDOW (toplevel)) ?: "", ==, "");
            g_assert_cmpstr (adw_about_window_get_support_url (ADW_ABOUT_WINDOW (toplevel)) ?: "", ==, "");
          }
      }
    g_assert_true (shortcuts);
    g_assert_true (about);
    destroy_all_windows ();
    g_log_set_always_fatal (fatal);
  }

  destroy_all_windows ();
}

/* GTK's test accessibility context reports each state change on stdout,
 * where the TAP stream goes. */
/* ------------------------------------------------------------------------
 * Find, details, Op Stats and Trace Health
 * ------------------------------------------------------------------------ */

static PlanarWindow *
open_worker_session (void)
{
  g_autofree char *session = g_build_filename (logdir, "plugins", "profile", OLDER, NULL);
  PlanarWindow *window = open_path (session);

  wait_loaded (window);
  return window;
}

static gboolean
find_bar_done (gpointer data)
{
  PlanarWindow *window = data;

  return planar_find_bar_get_search (window->find_bar) != NULL;
}

/* The model's own count for @pattern, for the find bar to match. */
static guint64
model_count (PlanarProfile     *profile,
             const char        *pattern,
             PlanarSearchFlags  flags)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarSearch) search = planar_search_new (profile, pattern, flags, &error);

  g_assert_no_error (error);
  g_assert_true (planar_search_run (search, NULL, &error));
  g_assert_no_error (error);
  return planar_search_get_n_hits (search);
}

static void
test_find (void)
{
  PlanarWindow *window = open_worker_session ();
  PlanarProfile *profile = planar_window_get_profile (window);
  PlanarSearch *search;
  guint64 n;
  gint64 last = G_MININT64;

  activate (window, "find", NULL);
  g_assert_true (planar_find_bar_get_open (window->find_bar));
  g_assert_true (gtk_widget_is_ancestor (gtk_window_get_focus (GTK_WINDOW (window)), GTK_WIDGET (window->find_bar)));

  /* Names and string stats, anywhere in the profile, as the model finds. */
  planar_find_bar_set_text (window->find_bar, "MatMul", FALSE);
  wait_for (find_bar_done, window, 30, "the search");
  search = planar_find_bar_get_search (window->find_bar);
  n = planar_search_get_n_hits (search);
  g_assert_cmpuint (n, >, 3);
  g_assert_cmpuint (n, ==, model_count (profile, "MatMul", PLANAR_SEARCH_DEFAULT));
  g_assert_cmpuint (g_list_model_get_n_items (planar_find_bar_get_hits (window->find_bar)), ==, n);

  /* Stepping visits the hits in time order, selects each and wraps. */
  planar_timeline_set_view (window->timeline, G_MININT64 / 4, G_MAXINT64 / 4);
  for (guint64 i = 0; i < MIN (n, 25); i++)
    {
      const PlanarSearchHit *hit;
      PlanarSelection *selection;
      const PlanarEventRef *refs;
      gsize n_refs;

      gtk_widget_activate_action (GTK_WIDGET (window->find_bar), "find.next", NULL);
      g_assert_cmpint (planar_find_bar_get_current (window->find_bar), ==, (gint64) i);
      hit = planar_search_get_hit (search, i);
      g_assert_cmpint (hit->start_ps, >=, last);
      last = hit->start_ps;
      selection = planar_timeline_get_selection (window->timeline);
      refs = planar_selection_get_events (selection, &n_refs);
      g_assert_cmpuint (n_refs, ==, 1);
      g_assert_cmpuint (refs[0].plane, ==, hit->ref.plane);
      g_assert_cmpuint (refs[0].track, ==, hit->ref.track);
      g_assert_cmpuint (refs[0].index, ==, hit->ref.index);
    }
  planar_find_bar_select_hit (window->find_bar, n - 1);
  gtk_widget_activate_action (GTK_WIDGET (window->find_bar), "find.next", NULL);
  g_assert_cmpint (planar_find_bar_get_current (window->find_bar), ==, 0);
  gtk_widget_activate_action (GTK_WIDGET (window->find_bar), "find.previous", NULL);
  g_assert_cmpint (planar_find_bar_get_current (window->find_bar), ==, (gint64) n - 1);

  /* A regular expression, case-sensitive or not, and a broken one. */
  planar_find_bar_set_text (window->find_bar, "^(MatMul|Relu)", TRUE);
  wait_for (find_bar_done, window, 30, "the regex search");
  g_assert_cmpuint (planar_search_get_n_hits (planar_find_bar_get_search (window->find_bar)), ==,
                    model_count (profile, "^(MatMul|Relu)", PLANAR_SEARCH_REGEX));
  planar_find_bar_set_text (window->find_bar, "(unclosed", TRUE);
  g_assert_null (planar_find_bar_get_search (window->find_bar));
  planar_find_bar_set_text (window->find_bar, "no event is called this", FALSE);
  wait_for (find_bar_done, window, 30, "the empty search");
  g_assert_cmpuint (planar_search_get_n_hits (planar_find_bar_get_search (window->find_bar)), ==, 0);
  gtk_widget_activate_action (GTK_WIDGET (window->find_bar), "find.next", NULL);

  /* Escape (find.close) gives the keys back to the timeline. */
  gtk_widget_activate_action (GTK_WIDGET (window->find_bar), "find.close", NULL);
  g_assert_false (planar_find_bar_get_open (window->find_bar));
  g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == GTK_WIDGET (window->timeline));

  destroy_all_windows ();
}

/* The first event of the profile with at least @min_stats stats and a
 * flow, or with stats only when @need_flow is FALSE. */
static gboolean
find_event (PlanarProfile         *profile,
            guint                  min_stats,
            gboolean               need_flow,
            PlanarEventRef *out)
{
  PlanarTrace *trace = planar_profile_get_trace (profile, 0);
  const PlanarFlowIndex *flows = planar_trace_get_flows (trace);
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autoptr(GArray) found = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      for (guint t = 0; t < plane->n_tracks; t++)
        for (gsize i = 0; i < plane->tracks[t].n_events; i++)
          {
            PlanarEventRef ref = { p, 0, t, (guint32) i };

            g_array_set_size (stats, 0);
            g_array_set_size (found, 0);
            planar_trace_get_event_stats (trace, plane, &plane->tracks[t].events[i], stats, NULL);
            if (need_flow && planar_flow_index_query_event (flows, &ref, found) == 0)
              continue;
            if (need_flow && planar_event_ref_is_none (&g_array_index (found, PlanarFlow, 0).to))
              continue;
            if (stats->len >= min_stats)
              {
                *out = (PlanarEventRef) { p, 0, t, (guint32) i };
                return TRUE;
              }
          }
    }
  return FALSE;
}

static void
check_rows (GListModel       *rows,
            PlanarAggregator *expected)
{
  g_autoptr(GArray) results = planar_aggregator_get_results (expected, PLANAR_AGGREGATE_SORT_SELF);
  guint64 total = 0;

  g_assert_nonnull (rows);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, results->len);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(PlanarAggregateRow) row = g_list_model_get_item (rows, i);
      const PlanarAggregate *match = NULL;

      for (guint r = 0; r < results->len; r++)
        if (g_str_equal (g_array_index (results, PlanarAggregate, r).name, planar_aggregate_row_get_name (row)))
          match = &g_array_index (results, PlanarAggregate, r);
      g_assert_nonnull (match);
      g_assert_cmpuint (planar_aggregate_row_get_count (row), ==, match->count);
      g_assert_cmpint (planar_aggregate_row_get_total_ps (row), ==, match->total_ps);
      g_assert_cmpint (planar_aggregate_row_get_self_ps (row), ==, match->self_ps);
      /* Sorted by self time, largest first. */
      if (i > 0)
        {
          g_autoptr(PlanarAggregateRow) previous = g_list_model_get_item (rows, i - 1);

          g_assert_cmpint (planar_aggregate_row_get_self_ps (previous), >=, planar_aggregate_row_get_self_ps (row));
        }
      total += planar_aggregate_row_get_count (row);
    }
  g_assert_cmpuint (total, ==, planar_aggregator_get_n_events (expected));
}

static void save_screenshot (const char *name,
                             gint64      settle_us);

static GtkLabel *find_label_with_prefix (GtkWidget  *widget,
                                        const char *prefix);

/* For a screenshot of the details pane's HLO part: the pane given most of
 * the window, scrolled to the label starting with @prefix. */
static void
show_details_from (PlanarWindow *window,
                   const char   *prefix)
{
  GtkLabel *label = find_label_with_prefix (GTK_WIDGET (window->details_pane), prefix);
  GtkWidget *scrolled;
  double x = 0, y = 0;

  g_assert_nonnull (label);
  gtk_paned_set_position (window->details_paned, 120);
  scrolled = gtk_widget_get_ancestor (GTK_WIDGET (label), GTK_TYPE_SCROLLED_WINDOW);
  g_assert_nonnull (scrolled);
  /* Laid out first, so that the label has its place. */
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  if (gtk_widget_translate_coordinates (GTK_WIDGET (label), gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)),
                                        0, 0, &x, &y))
    gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled)), MAX (y - 8, 0));
}

/* The event of @plane_name / @line_name at @index, as a ref of host 0. */
static PlanarEventRef
event_on_line (PlanarTrace *trace,
               const char  *plane_name,
               const char  *line_name,
               guint        index)
{
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      if (g_strcmp0 (plane->name, plane_name) != 0)
        continue;
      for (guint t = 0; t < plane->n_tracks; t++)
        if (g_strcmp0 (plane->tracks[t].name, line_name) == 0)
          {
            g_assert_cmpuint (index, <, plane->tracks[t].n_events);
            return (PlanarEventRef) { p, 0, t, index };
          }
    }
  g_error ("no line %s on %s", line_name, plane_name);
}

/* A JAX GPU kernel through the program's HLO: its framework op, source
 * and stack (its tf_op is only "XlaModule:"), its instruction as HLO text,
 * a fusion's fused computation, estimated FLOPs and rates; an operand
 * that ran as a kernel of the same module execution is a link that
 * selects it, one fused away says so. */
static void
test_details_hlo (void)
{
  g_autofree char *path = planar_test_sample_path ("tracelens_mi300_jax08_attention_tw003.xplane.pb");
  g_autofree char *te = planar_test_sample_path ("tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb");
  g_autoptr(PlanarSelection) gemm = NULL;
  g_autoptr(PlanarSelection) fusion = NULL;
  g_autoptr(PlanarSelection) attention = NULL;
  g_autofree char *text = NULL;
  PlanarSelection *followed;
  PlanarEventRef ref, producer;
  PlanarWindow *window;
  PlanarProfile *profile;
  PlanarTrace *trace;

  if (path == NULL || te == NULL)
    return;
  window = open_path (path);
  wait_loaded (window);
  profile = planar_window_get_profile (window);
  trace = planar_profile_get_trace (profile, 0);
  g_assert_nonnull (planar_trace_get_hlo_index (trace));

  /* A cuBLAS GEMM (hipBLASLt on this MI300X). */
  ref = event_on_line (trace, "/device:GPU:0", "Stream #16(Kernel)", 0);
  gemm = planar_selection_new_for_event (profile, &ref);
  planar_timeline_set_selection (window->timeline, gemm);
  text = planar_details_pane_dup_text (window->details_pane);
  g_assert_nonnull (text);
  g_test_message ("%s", text);
  g_assert_null (strstr (text, "Framework op: XlaModule:"));
  g_assert_nonnull (strstr (text, "\nFramework op (HLO): jit(matmul)/dot_general:\n"));
  g_assert_nonnull (strstr (text, "\nSource (HLO): generate_attention_trace.py:31\n"));
  g_assert_nonnull (strstr (text, "\nStack (HLO): /workspace/traces/generate_attention_trace.py:31 transformer_block\n"
                                  "/workspace/traces/generate_attention_trace.py:78 main\n"));
  g_assert_nonnull (strstr (text, "\nHLO instruction: %custom-call.1 = (bf16[8192,1024]{1,0}, s8[18874368]{0}) "
                                  "custom-call(%bitcast.4.0, %b.1), custom_call_target=\"__cublas$gemm\""));
  g_assert_nonnull (strstr (text, "\nOutput shape: (bf16[8192,1024]{1,0}, s8[18874368]{0})\n"));
  g_assert_nonnull (strstr (text, "\nOperand shapes: bf16[8192,1024]{1,0}\nbf16[1024,1024]{1,0}\n"));
  /* 2 x 8192 x 1024 x 1024. */
  g_assert_nonnull (strstr (text, "\nFLOPs (estimated): 17.18 GFLOP\n"));
  g_assert_nonnull (strstr (text, "\nAchieved FLOP rate (estimated): "));
  g_assert_nonnull (strstr (text, "\nAchieved bandwidth (estimated): "));
  /* Its operands are a bitcast and a parameter: no kernels of their own. */
  g_assert_nonnull (strstr (text, "\nOperand %bitcast.4.0 (bitcast) bf16[8192,1024]{1,0}: no event in this execution"));
  show_details_from (window, "Framework op (HLO)");
  save_screenshot ("details-hlo-gemm.png", G_USEC_PER_SEC / 2);
  g_clear_pointer (&text, g_free);

  /* A loop fusion of jit__reduce_max, fed by the reduce fusion just
   * before it. */
  ref = event_on_line (trace, "/device:GPU:0", "Stream #16(Kernel)", 9);
  producer = event_on_line (trace, "/device:GPU:0", "Stream #16(Kernel)", 8);
  fusion = planar_selection_new_for_event (profile, &ref);
  planar_timeline_set_selection (window->timeline, fusion);
  text = planar_details_pane_dup_text (window->details_pane);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "\nHLO instruction: %loop_convert_fusion = bf16[4,2048]{1,0} "
                                  "fusion(%input_reduce_fusion, %initial.1), kind=kLoop, calls=%fused_convert\n"));
  g_assert_nonnull (strstr (text, "\nFused computation: %fused_convert {\n"));
  g_assert_nonnull (strstr (text, "  ROOT %convert.14.1 = bf16[4,2048]{1,0} convert(%max.3.3)\n}"));
  g_assert_nonnull (strstr (text, "\nOperand %input_reduce_fusion (fusion) f32[4,2048]{1,0}\n"));
  g_assert_nonnull (strstr (text, "\nOperand %initial.1 (parameter) f32[]: no event in this execution"));
  show_details_from (window, "HLO instruction");
  save_screenshot ("details-hlo-fusion.png", G_USEC_PER_SEC / 2);
  /* The operand's link selects the kernel that made it. */
  gtk_widget_activate_action (GTK_WIDGET (window->details_pane), "details.follow-flow", "u", 0);
  followed = planar_timeline_get_selection (window->timeline);
  g_assert_cmpuint (planar_selection_get_n_events (followed), ==, 1);
  g_assert_true (planar_selection_contains (followed, &producer));
  gtk_window_destroy (GTK_WINDOW (window));

  /* TransformerEngine's attention: no FLOPs estimate, never a guess; no
   * source file: the source is the stack's innermost frame (XProf's
   * GetSourceInfo), and the stack is there. */
  window = open_path (te);
  wait_loaded (window);
  profile = planar_window_get_profile (window);
  trace = planar_profile_get_trace (profile, 0);
  g_clear_pointer (&text, g_free);
  for (guint i = 0; i < 150 && text == NULL; i++)
    {
      g_autofree char *candidate = NULL;

      ref = event_on_line (trace, "/device:GPU:0", "Stream #2", i);
      g_clear_object (&attention);
      attention = planar_selection_new_for_event (profile, &ref);
      planar_timeline_set_selection (window->timeline, attention);
      candidate = planar_details_pane_dup_text (window->details_pane);
      if (strstr (candidate, "HLO instruction: %te_fused_attn_forward_ffi.10 ") != NULL)
        text = g_steal_pointer (&candidate);
    }
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "\nFLOPs (estimated): unknown"));
  g_assert_nonnull (strstr (text, "\nSource (HLO): attention.py:2680\n"));
  g_assert_nonnull (strstr (text, "\nStack (HLO): /opt/venv/lib/python3.12/site-packages/transformer_engine/"));
  /* It ran as two kernels (the RNG state, then the attention): the bytes
   * are the instruction's, for both, and the bandwidth is over their
   * summed time (290.683 us), never one kernel's. */
  g_assert_nonnull (strstr (text, "\nBytes accessed (estimated): 64.25 MiB ("));
  g_assert_nonnull (strstr (text, " bytes) for 2 kernels of this instruction\n"));
  g_assert_nonnull (strstr (text, "\nKernels of this instruction: 2 kernels, 290.683 µs in all; this one "));
  g_assert_nonnull (strstr (text, "\nAchieved bandwidth (estimated, over the instruction's kernels): 231.77 GB/s\n"));
  g_assert_null (strstr (text, "\nAchieved bandwidth (estimated): "));
  show_details_from (window, "FLOPs (estimated)");
  save_screenshot ("details-hlo-te-kernels.png", G_USEC_PER_SEC / 2);
  show_details_from (window, "Framework op (HLO)");
  save_screenshot ("details-hlo-te-attention.png", G_USEC_PER_SEC / 2);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_details (void)
{
  PlanarWindow *window = open_worker_session ();
  PlanarProfile *profile = planar_window_get_profile (window);
  PlanarTrace *trace = planar_profile_get_trace (profile, 0);
  PlanarEventRef ref;
  g_autoptr(PlanarSelection) one = NULL;
  g_autoptr(PlanarSelection) range = NULL;
  g_autoptr(PlanarSelection) several = NULL;
  g_autoptr(PlanarAggregator) expected = planar_aggregator_new ();
  g_autoptr(PlanarAggregator) expected_several = planar_aggregator_new ();
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autofree char *text = NULL;
  g_autofree char *start = NULL;
  g_autofree char *duration = NULL;
  const PlanarPlane *plane;
  const PlanarEvent *event;
  PlanarEventRef picks[3];
  PlanarSelection *followed;
  gint64 first, last;
  char *line;

  g_assert_null (planar_details_pane_dup_text (window->details_pane));

  /* One event: its name, times and every stat as the model has them. */
  g_assert_true (find_event (profile, 3, TRUE, &ref));
  one = planar_selection_new_for_event (profile, &ref);
  planar_timeline_set_selection (window->timeline, one);
  text = planar_details_pane_dup_text (window->details_pane);
  g_assert_nonnull (text);
  plane = planar_trace_get_plane (trace, ref.plane);
  event = &plane->tracks[ref.track].events[ref.index];
  g_assert_true (g_str_has_prefix (text, planar_plane_get_event_name (plane, event, TRUE)));
  /* Times to the nanosecond. */
  start = planar_format_time_exact (event->start_ps);
  duration = planar_format_time_exact (event->duration_ps);
  line = g_strdup_printf ("Start: %s\n", start);
  g_assert_nonnull (strstr (text, line));
  g_free (line);
  line = g_strdup_printf ("Duration: %s\n", duration);
  g_assert_nonnull (strstr (text, line));
  g_free (line);
  line = g_strdup_printf ("Track: %s\n", plane->tracks[ref.track].display_name);
  g_assert_nonnull (strstr (text, line));
  g_free (line);
  planar_trace_get_event_stats (trace, plane, event, stats, NULL);
  for (guint i = 0; i < stats->len; i++)
    {
      g_autofree char *value = planar_stat_format_display (&g_array_index (stats, PlanarStat, i));

      g_assert_nonnull (strstr (text, value));
    }
  g_assert_nonnull (strstr (text, "Flow: "));

  /* A flow link selects the other end. */
  gtk_widget_activate_action (GTK_WIDGET (window->details_pane), "details.follow-flow", "u", 0);
  followed = planar_timeline_get_selection (window->timeline);
  g_assert_true (followed != one);
  g_assert_cmpuint (planar_selection_get_n_events (followed), ==, 1);
  g_assert_false (planar_selection_contains (followed, &ref));

  /* A range: every event meeting it, per name, exact from the index. */
  g_assert_true (planar_profile_get_span (profile, &first, &last));
  range = planar_selection_new_for_range (profile, first + (last - first) / 3, first + (last - first) / 2);
  planar_timeline_set_selection (window->timeline, range);
  g_assert_null (planar_details_pane_dup_text (window->details_pane));
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *pl = planar_trace_get_plane (trace, p);

      for (guint t = 0; t < pl->n_tracks; t++)
        planar_aggregator_add_track (expected, pl, &pl->tracks[t], first + (last - first) / 3,
                                     first + (last - first) / 2);
    }
  check_rows (planar_details_pane_get_rows (window->details_pane), expected);

  /* Several events picked one by one (Control+click). */
  for (guint i = 0; i < G_N_ELEMENTS (picks); i++)
    {
      picks[i] = ref;
      picks[i].index = ref.index + i;
      planar_aggregator_add_event (expected_several, plane, &plane->tracks[ref.track], ref.index + i);
    }
  several = planar_selection_new (profile, picks, G_N_ELEMENTS (picks), FALSE, 0, 0);
  planar_timeline_set_selection (window->timeline, several);
  check_rows (planar_details_pane_get_rows (window->details_pane), expected_several);

  /* A row searches for its name. */
  planar_details_pane_activate_row (window->details_pane, 0);
  g_assert_true (planar_find_bar_get_open (window->find_bar));
  wait_for (find_bar_done, window, 30, "the search for a row's name");
  g_assert_cmpuint (planar_search_get_n_hits (planar_find_bar_get_search (window->find_bar)), >=, 1);

  planar_timeline_set_selection (window->timeline, NULL);
  g_assert_null (planar_details_pane_dup_text (window->details_pane));
  g_assert_null (planar_details_pane_get_rows (window->details_pane));
  destroy_all_windows ();
}

/* The first GtkLabel under @widget whose text starts with @prefix. */
static GtkLabel *
find_label_with_prefix (GtkWidget  *widget,
                        const char *prefix)
{
  if (GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_label (GTK_LABEL (widget)), prefix))
    return GTK_LABEL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label_with_prefix (child, prefix);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Whether @text writes a time unit "us" (a digit, a space, "us"). */
static gboolean
has_ascii_micro (const char *text)
{
  for (const char *p = strstr (text, " us"); p != NULL; p = strstr (p + 1, " us"))
    if (p > text && g_ascii_isdigit (p[-1]) && !g_ascii_isalpha (p[3]))
      return TRUE;
  return FALSE;
}

/* The details pane of an XLA op with flops and bytes: the achieved rates,
 * µs, the name in normal weight; a range's table grouped by kind with a
 * total row. */
static void
test_details_rates_and_groups (void)
{
  g_autofree char *dir = g_build_filename (tmp_dir, "rates", NULL);
  g_autofree char *path = g_build_filename (dir, "gen.xplane.pb", NULL);
  const char *argv[] = { g_getenv ("PLANAR_GEN"), "--events", "20000", "--no-task-env", "-o", path, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarSelection) one = NULL;
  g_autoptr(PlanarSelection) range = NULL;
  g_autofree char *text = NULL;
  PlanarEventRef ref = { 0 };
  gboolean found = FALSE;
  PlanarWindow *window;
  PlanarProfile *profile;
  PlanarTrace *trace;
  GtkLabel *title;
  GtkLabel *total;
  GListModel *rows;
  gint64 first, last;
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  window = open_path (path);
  wait_loaded (window);
  profile = planar_window_get_profile (window);
  trace = planar_profile_get_trace (profile, 0);

  /* An op of the TPU's XLA Ops line (its metadata has flops and bytes). */
  for (guint p = 0; p < planar_trace_get_n_planes (trace) && !found; p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      if (strstr (plane->name, "TPU") == NULL)
        continue;
      for (guint t = 0; t < plane->n_tracks && !found; t++)
        if (g_strcmp0 (plane->tracks[t].name, "XLA Ops") == 0 && plane->tracks[t].n_events > 0)
          {
            ref = (PlanarEventRef) { p, 0, t, 0 };
            found = TRUE;
          }
    }
  g_assert_true (found);
  one = planar_selection_new_for_event (profile, &ref);
  planar_timeline_set_selection (window->timeline, one);
  text = planar_details_pane_dup_text (window->details_pane);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "Achieved FLOP rate: "));
  g_assert_nonnull (strstr (text, "Achieved bandwidth: "));
  g_assert_false (has_ascii_micro (text));
  g_assert_null (strstr (text, " bytes>"));
  /* The name wraps in the body's weight. */
  title = find_label_with_prefix (GTK_WIDGET (window->details_pane),
                                  planar_plane_get_event_name (planar_trace_get_plane (trace, ref.plane),
                                                               &planar_trace_get_plane (trace, ref.plane)->tracks[ref.track].events[0],
                                                               TRUE));
  g_assert_nonnull (title);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (title), "title-4"));
  g_assert_true (gtk_label_get_selectable (title));
  g_assert_true (gtk_label_get_wrap (title));
  save_screenshot ("details-rates.png", G_USEC_PER_SEC / 2);

  /* A range over everything: rows grouped by kind, one per name inside a
   * kind, and a total row. */
  g_assert_true (planar_profile_get_span (profile, &first, &last));
  range = planar_selection_new_for_range (profile, first, last);
  planar_timeline_set_selection (window->timeline, range);
  rows = planar_details_pane_get_rows (window->details_pane);
  g_assert_nonnull (rows);
  {
    g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) kinds = g_hash_table_new (g_str_hash, g_str_equal);

    for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
      {
        g_autoptr(PlanarAggregateRow) row = g_list_model_get_item (rows, i);
        char *key = g_strconcat (planar_aggregate_row_get_kind (row), "/",
                                 planar_aggregate_row_get_display_name (row), NULL);

        g_assert_false (g_hash_table_contains (seen, key));
        g_hash_table_add (seen, key);
        g_hash_table_add (kinds, (gpointer) planar_aggregate_row_get_kind (row));
      }
    g_assert_true (g_hash_table_contains (kinds, "XLA Ops"));
    g_assert_true (g_hash_table_contains (kinds, "Device kernels"));
    g_assert_true (g_hash_table_contains (kinds, "Host threads"));
  }
  /* The Steps lines (the GPUs' and the TPU's): one row of every step, not
   * one row a step. */
  {
    guint64 n_steps = 0, n_rows = 0;

    for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
      {
        const PlanarPlane *plane = planar_trace_get_plane (trace, p);

        for (guint t = 0; t < plane->n_tracks; t++)
          if (strcmp (planar_aggregate_kind_for_track (plane, &plane->tracks[t], NULL), "Steps") == 0)
            n_steps += plane->tracks[t].n_events;
      }
    g_assert_cmpuint (n_steps, >, 1);
    for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
      {
        g_autoptr(PlanarAggregateRow) row = g_list_model_get_item (rows, i);

        if (g_strcmp0 (planar_aggregate_row_get_kind (row), "Steps") != 0)
          continue;
        n_rows++;
        g_assert_cmpstr (planar_aggregate_row_get_display_name (row), ==, "Steps");
        g_assert_cmpuint (planar_aggregate_row_get_count (row), ==, n_steps);
      }
    g_assert_cmpuint (n_rows, ==, 1);
  }
  total = find_label_with_prefix (GTK_WIDGET (window->details_pane), "Total: ");
  g_assert_nonnull (total);
  g_assert_nonnull (strstr (gtk_label_get_label (total), " events · wall "));
  g_assert_nonnull (strstr (gtk_label_get_label (total), " · span "));
  g_assert_false (has_ascii_micro (gtk_label_get_label (total)));
  save_screenshot ("details-groups.png", G_USEC_PER_SEC / 2);

  /* Past a size a frame cannot wait for, the table is summed in a worker:
   * the pane says so at once, the main loop runs on, and the same rows
   * come. It was summed on the main thread: a drag over a few rows of a
   * 10^8-event profile froze the window for seconds. */
  {
    g_autoptr(GPtrArray) made_here = describe_rows (rows);
    g_autoptr(GPtrArray) made_by_worker = NULL;
    g_autoptr(PlanarSelection) again = planar_selection_new_for_range (profile, first, last);
    gint64 until;

    _planar_details_pane_set_async_min (window->details_pane, 0);
    planar_timeline_set_selection (window->timeline, again);
    g_assert_cmpuint (g_list_model_get_n_items (planar_details_pane_get_rows (window->details_pane)), ==, 0);
    g_assert_nonnull (find_label_with_prefix (GTK_WIDGET (window->details_pane), "Summing about "));
    wait_for (details_table_filled, window, 30, "the table summed in a worker");
    made_by_worker = describe_rows (planar_details_pane_get_rows (window->details_pane));
    g_assert_cmpuint (made_by_worker->len, ==, made_here->len);
    for (guint i = 0; i < made_here->len; i++)
      g_assert_cmpstr (g_ptr_array_index (made_by_worker, i), ==, g_ptr_array_index (made_here, i));
    g_assert_null (find_label_with_prefix (GTK_WIDGET (window->details_pane), "Summing about "));
    g_assert_nonnull (find_label_with_prefix (GTK_WIDGET (window->details_pane), "Total: "));

    /* Another selection meanwhile: the worker's sums are not shown. */
    planar_timeline_set_selection (window->timeline, range);
    planar_timeline_set_selection (window->timeline, NULL);
    until = g_get_monotonic_time () + G_USEC_PER_SEC / 5;
    while (g_get_monotonic_time () < until)
      g_main_context_iteration (NULL, FALSE);
    g_assert_null (planar_details_pane_get_rows (window->details_pane));
    _planar_details_pane_set_async_min (window->details_pane, PLANAR_DETAILS_PANE_ASYNC_MIN);
  }
  destroy_all_windows ();
}

static void
test_op_stats_and_health (void)
{
  PlanarWindow *window = open_worker_session ();
  PlanarProfile *profile = planar_window_get_profile (window);
  PlanarTrace *trace = planar_profile_get_trace (profile, 0);
  const PlanarPlane *gpu = planar_trace_find_plane (trace, "/device:GPU:4");
  g_autoptr(PlanarAggregator) expected = planar_aggregator_new ();
  g_autoptr(PlanarAggregateRow) top = NULL;
  g_autoptr(GPtrArray) issues = NULL;
  guint gpu_index = 0;

  activate (window, "tool", g_variant_new_string ("op-stats"));
  g_assert_nonnull (gpu);
  while (planar_trace_get_plane (trace, gpu_index) != gpu)
    gpu_index++;
  g_assert_true (planar_op_stats_page_select (window->op_stats_page, 0, gpu_index, -1));
  for (guint t = 0; t < gpu->n_tracks; t++)
    if (!gpu->tracks[t].derived)
      planar_aggregator_add_track (expected, gpu, &gpu->tracks[t], G_MININT64, G_MAXINT64);
  check_rows (planar_op_stats_page_get_rows (window->op_stats_page), expected);

  /* Activating a row shows every event of that name on the timeline. */
  top = g_list_model_get_item (planar_op_stats_page_get_rows (window->op_stats_page), 0);
  planar_op_stats_page_activate_row (window->op_stats_page, 0);
  {
    g_autoptr(GVariant) tool = g_action_group_get_action_state (G_ACTION_GROUP (window), "tool");

    g_assert_cmpstr (g_variant_get_string (tool, NULL), ==, "trace-viewer");
  }
  g_assert_cmpuint (planar_selection_get_n_events (planar_timeline_get_selection (window->timeline)), ==,
                    planar_aggregate_row_get_count (top));

  /* Trace Health shows the model's findings. */
  activate (window, "tool", g_variant_new_string ("trace-health"));
  issues = planar_health_check (profile, NULL);
  g_assert_nonnull (planar_health_page_get_issues (window->health_page));
  g_assert_cmpuint (planar_health_page_get_issues (window->health_page)->len, ==, issues->len);
  g_assert_cmpuint (issues->len, >, 0);
  destroy_all_windows ();
}

static gboolean
health_page_has_damaged_stats (gpointer data)
{
  PlanarWindow *window = data;
  GPtrArray *issues = planar_health_page_get_issues (window->health_page);

  for (guint i = 0; issues != NULL && i < issues->len; i++)
    {
      const PlanarHealthIssue *issue = g_ptr_array_index (issues, i);

      if (g_strcmp0 (issue->kind, "damaged-stats") == 0)
        return TRUE;
    }
  return FALSE;
}

/* A damaged stat no view reads (the event is never selected): Trace Health
 * counts every stat in the background and lists it, once it is opened, not
 * before (the count reads the whole file). */
static void
test_health_damaged_stat (void)
{
  /* XSpace { planes { id: 1, name: "/host:CPU", lines { id: 1, name: "m",
   * events { metadata_id: 1, offset_ps: 0, duration_ps: 10, stats {
   * metadata_id: 1, <field 5, str_value, as a varint> } } }, event_metadata
   * { 1: "work" }, stat_metadata { 1: "note" } } } */
  static const guint8 damaged[] = {
    0x0a, '>', 0x08, 0x01, 0x12, 0x09, '/', 'h', 'o', 's', 't', ':', 'C', 'P', 'U', 0x1a, 0x13, 0x08, 0x01,
    0x12, 0x01, 'm', '"', 0x0c, 0x08, 0x01, 0x10, 0x00, 0x18, 0x0a, '"', 0x04, 0x08, 0x01, '(', 0x05, '"',
    0x0c, 0x08, 0x01, 0x12, 0x08, 0x08, 0x01, 0x12, 0x04, 'w', 'o', 'r', 'k', '*', 0x0c, 0x08, 0x01, 0x12,
    0x08, 0x08, 0x01, 0x12, 0x04, 'n', 'o', 't', 'e',
  };
  g_autofree char *path = g_build_filename (tmp_dir, "damaged-stat.xplane.pb", NULL);
  g_autoptr(GError) error = NULL;
  PlanarWindow *window;
  PlanarTrace *trace;

  g_file_set_contents (path, (const char *) damaged, sizeof damaged, &error);
  g_assert_no_error (error);
  window = open_path (path);
  wait_loaded (window);
  trace = planar_profile_get_trace (planar_window_get_profile (window), 0);
  run_main_loop_for (1.0);
  g_assert_cmpuint (planar_trace_get_n_damaged_stats (trace, NULL), ==, 0);
  g_assert_null (window->health_page);

  activate (window, "tool", g_variant_new_string ("trace-health"));
  wait_for (health_page_has_damaged_stats, window, 30, "Trace Health to list the damaged stat");
  g_assert_cmpuint (planar_trace_get_n_damaged_stats (trace, NULL), ==, 1);
  destroy_all_windows ();
}

static void
test_record_options (void)
{
  g_autoptr(PlanarRecordOptions) options = planar_record_options_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;
  g_auto(GStrv) env = NULL;

  /* Nothing to run yet. */
  g_assert_null (planar_record_options_build_argv (options, "planar-cli", &env, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_object_set (options, "command", "python3 train.py --steps '10 20'", "logdir", "/tmp/logs",
                "environment", "CUDA_VISIBLE_DEVICES=0 XLA_FLAGS='--a --b'", "duration-ms", 500, "nvtx", TRUE,
                NULL);
  argv = planar_record_options_build_argv (options, "planar-cli", &env, &error);
  g_assert_no_error (error);
  {
    const char *expected[] = { "planar-cli", "record", "--logdir", "/tmp/logs", "--duration-ms=500", "--nvtx", "--",
                               "python3", "train.py", "--steps", "10 20", NULL };
    const char *expected_env[] = { "CUDA_VISIBLE_DEVICES=0", "XLA_FLAGS=--a --b", NULL };

    g_assert_true (g_strv_equal ((const char * const *) argv, expected));
    g_assert_true (g_strv_equal ((const char * const *) env, expected_env));
  }

  /* Bad words are refused with a message, not passed on. */
  g_object_set (options, "environment", "1BAD=x", NULL);
  g_assert_null (planar_record_options_build_argv (options, "planar-cli", NULL, &error));
  g_assert_nonnull (strstr (error->message, "1BAD=x"));
  g_clear_error (&error);
  g_object_set (options, "environment", "", "command", "python3 'unclosed", NULL);
  g_assert_null (planar_record_options_build_argv (options, "planar-cli", NULL, &error));
  g_clear_error (&error);
  g_object_set (options, "command", "true", "working-folder", "/nonexistent/planar", NULL);
  g_assert_null (planar_record_options_build_argv (options, "planar-cli", NULL, &error));
  g_clear_error (&error);
  g_object_set (options, "working-folder", "", "logdir", "", NULL);
  g_assert_null (planar_record_options_build_argv (options, "planar-cli", NULL, &error));
}

static PlanarRecordDialog *
find_record_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (PLANAR_IS_RECORD_DIALOG (toplevel))
        return PLANAR_RECORD_DIALOG (toplevel);
    }
  return NULL;
}

static gboolean
record_finished (gpointer data)
{
  PlanarRecordDialog *dialog = find_record_dialog ();

  return dialog == NULL || !planar_record_dialog_get_running (dialog);
}

static gboolean
window_shows_recording (gpointer data)
{
  const char *session = planar_window_get_session (data);

  return session != NULL && strstr (session, "2026_03_01_00_00_00") != NULL && window_loaded (data);
}

/* Record a Command: the dialog runs the recorder (a stand-in here, as CI
 * has no GPU), shows a failure in its own words, and opens the session of
 * a success in the window. */
static void
test_record (void)
{
  PlanarWindow *window = open_path (logdir);
  g_autofree char *fake = g_build_filename (g_getenv ("PLANAR_TEST_SOURCE_DIR"), "fake-planar-cli-record.sh", NULL);
  g_autofree char *record_logdir = g_build_filename (tmp_dir, "recorded", NULL);
  PlanarRecordDialog *dialog;
  PlanarRecordOptions *options;

  wait_loaded (window);
  g_setenv ("PLANAR_CLI", fake, TRUE);
  activate (window, "record", NULL);
  dialog = find_record_dialog ();
  g_assert_nonnull (dialog);
  options = planar_record_dialog_get_options (dialog);

  g_object_set (options, "command", "sh -c 'exit 3'", "logdir", record_logdir, NULL);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL);
  g_assert_true (planar_record_dialog_get_running (dialog));
  wait_for (record_finished, NULL, 30, "the failing recording");
  g_assert_nonnull (strstr (planar_record_dialog_get_status (dialog), "status 3"));

  g_object_set (options, "command", "true", NULL);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL);
  wait_for (window_shows_recording, window, 30, "the recorded session to open");
  g_assert_null (find_record_dialog ());
  g_unsetenv ("PLANAR_CLI");
  destroy_all_windows ();
}

/* Saves a screenshot of the newest window in PLANAR_E2E_OUTPUT (kept for
 * a person to look at), once it has drawn a frame and its page transition
 * is over: a moment, then up to 5 s more. */
static void
save_screenshot (const char *name,
                 gint64      settle_us)
{
  g_autofree char *shot = NULL;

  if (g_getenv ("PLANAR_E2E_OUTPUT") == NULL)
    return;
  g_mkdir_with_parents (g_getenv ("PLANAR_E2E_OUTPUT"), 0755);
  shot = g_build_filename (g_getenv ("PLANAR_E2E_OUTPUT"), name, NULL);
  g_unlink (shot);
  for (guint i = 0; i < 100 && !g_file_test (shot, G_FILE_TEST_IS_REGULAR); i++)
    {
      gint64 until = g_get_monotonic_time () + (i == 0 ? settle_us : 50000);

      while (g_get_monotonic_time () < until)
        g_main_context_iteration (NULL, FALSE);
      g_action_group_activate_action (G_ACTION_GROUP (app), "debug-screenshot", g_variant_new_string (shot));
    }
  g_assert_true (g_file_test (shot, G_FILE_TEST_IS_REGULAR));
}

static gboolean
window_shows_cupti_recording (gpointer data)
{
  PlanarProfile *profile;

  if (!window_loaded (data))
    return FALSE;
  profile = planar_window_get_profile (data);
  return planar_profile_get_n_traces (profile) > 0
         && strstr (planar_trace_get_path (planar_profile_get_trace (profile, 0)), "cupti-recorded") != NULL;
}

/* The same with the real recorder: planar-cli record, libplanar-cupti.so
 * and a stand-in libcupti inside a stand-in CUDA program (test-cupti.c
 * tests those alone). The session opens with its GPU and host lines; a
 * screenshot is kept in meson-logs/app-e2e. */
static void
test_record_cupti (void)
{
  g_autofree char *record_logdir = g_build_filename (tmp_dir, "cupti-recorded", NULL);
  g_autofree char *command = NULL;
  PlanarWindow *window;
  PlanarRecordDialog *dialog;
  PlanarTrace *trace;

  if (g_getenv ("PLANAR_FAKE_CUPTI") == NULL)
    {
      g_test_skip ("built without the CUDA headers: no recording library");
      return;
    }
  window = open_path (logdir);
  wait_loaded (window);
  g_setenv ("PLANAR_CLI", g_getenv ("PLANAR_CLI_BUILT"), TRUE);
  g_setenv ("PLANAR_CUPTI_LIBRARY", g_getenv ("PLANAR_FAKE_CUPTI"), TRUE);
  g_setenv ("PLANAR_RECORD_SKIP_GPU_CHECK", "1", TRUE);
  activate (window, "record", NULL);
  dialog = find_record_dialog ();
  g_assert_nonnull (dialog);
  command = g_strdup_printf ("'%s' --kernels 40 --threads 1 --devices 2", g_getenv ("PLANAR_FAKE_CUDA_APP"));
  g_object_set (planar_record_dialog_get_options (dialog), "command", command, "logdir", record_logdir, "nvtx", TRUE,
                NULL);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL);
  wait_for (window_shows_cupti_recording, window, 30, "the recorded session to open");
  g_unsetenv ("PLANAR_CLI");
  g_unsetenv ("PLANAR_CUPTI_LIBRARY");
  g_unsetenv ("PLANAR_RECORD_SKIP_GPU_CHECK");

  trace = planar_profile_get_trace (planar_window_get_profile (window), 0);
  g_assert_nonnull (planar_trace_find_plane (trace, "/host:CPU"));
  g_assert_nonnull (planar_trace_find_plane (trace, "/device:GPU:0"));
  g_assert_nonnull (planar_trace_find_plane (trace, "/device:GPU:1"));
  g_assert_cmpuint (planar_flow_index_get_n_complete (planar_trace_get_flows (trace), PLANAR_FLOW_CATEGORY_ALL), >=,
                    2 * 2 * (40 + 3));
  save_screenshot ("record-cupti.png", G_USEC_PER_SEC);
  destroy_all_windows ();
}

static gboolean
window_open (gpointer data)
{
  PlanarWindow *window = data;
  PlanarProfile *profile = planar_window_get_profile (window);

  return !planar_window_get_loading (window) && profile != NULL && planar_profile_is_open (profile);
}

static gboolean
profile_busy_or_host_5_loaded (gpointer data)
{
  return planar_profile_is_busy (data)
         || planar_profile_get_trace_state (data, 5) == PLANAR_PROFILE_TRACE_LOADED;
}

static gboolean
timeline_settled (gpointer data)
{
  PlanarWindow *window = data;
  PlanarProfile *profile = planar_window_get_profile (window);

  /* The timeline lays out again in its "notify::busy" handler, on the
   * main thread, when the profile stops being busy: nothing polls. */
  return !planar_profile_is_busy (profile);
}

/* The timeline's sections of host @trace: pending ones, and the others. */
static void
count_host_sections (PlanarWindow *window,
                     guint         trace,
                     guint        *n_pending,
                     guint        *n_loaded)
{
  PlanarTimelineLayout *layout = window->timeline->layout;

  *n_pending = *n_loaded = 0;
  for (guint s = 0; s < planar_timeline_layout_get_n_sections (layout); s++)
    {
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (layout, s);

      if (section->trace != trace)
        continue;
      if (section->pending)
        {
          g_assert_true (section->collapsed);
          g_assert_cmpuint (section->row, !=, G_MAXUINT);
          (*n_pending)++;
        }
      else
        (*n_loaded)++;
    }
}

/* Writes a session of eight generated hosts under tmp_dir/@name. */
static char *
make_session_of_8 (const char *name)
{
  char *session = g_build_filename (tmp_dir, name, "plugins", "profile", NEWEST, NULL);
  g_autofree char *parent = g_path_get_dirname (session);
  const char *gen = g_getenv ("PLANAR_GEN");
  char *argv[] = { (char *) gen, (char *) "--events", (char *) "4000", (char *) "--hosts", (char *) "8",
                   (char *) "-o", session, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return session;
}

static void click_row_header (PlanarWindow            *window,
                              const PlanarTimelineRow *row);

/* Clicks the header of section @id with the real pointer (xdotool, over
 * XTEST), scrolled into view first. */
static void
click_section_header (PlanarWindow *window,
                      const char   *id)
{
  PlanarTimeline *timeline = window->timeline;
  int s = planar_timeline_layout_find_section (timeline->layout, id);

  g_assert_cmpint (s, >=, 0);
  click_row_header (window, planar_timeline_layout_get_row (timeline->layout,
                                                            planar_timeline_layout_get_section (timeline->layout, (guint) s)->row));
}

/* Clicks the header @row (a section's or a host's) with the real pointer,
 * scrolled into view first. */
static void
click_row_header (PlanarWindow            *window,
                  const PlanarTimelineRow *row)
{
  PlanarTimeline *timeline = window->timeline;
  graphene_point_t point;
  double sx, sy;
  g_autofree char *title = NULL, *x = NULL, *y = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  const char *xdotool = g_getenv ("XDOTOOL");
  int status = 0;

  _planar_timeline_scroll_to (timeline, row->y);
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (timeline), GTK_WIDGET (window),
                                           &GRAPHENE_POINT_INIT (120, (float) (_planar_timeline_widget_y (timeline, row->y)
                                                                                + PLANAR_TIMELINE_SECTION_HEIGHT / 2.0)),
                                           &point));
  gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
  x = g_strdup_printf ("%d", (int) (point.x + sx));
  y = g_strdup_printf ("%d", (int) (point.y + sy));
  title = g_strdup_printf ("^%s$", gtk_window_get_title (GTK_WINDOW (window)));
  {
    const char *argv[] = { xdotool != NULL ? xdotool : "xdotool", "search", "--sync", "--name", title,
                           "windowfocus", "--sync", "mousemove", "--window", "%1", x, y, "click", "1", NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &err, &status, &error);
  }
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("xdotool failed: %s", err);
}

/* A session of eight hosts opens as one timeline with its first host
 * decoded; each other host has a header that loads it when expanded, and
 * the tools over the whole profile load the rest. */
static void
test_lazy_hosts (void)
{
  g_autofree char *session = make_session_of_8 ("many-hosts");
  g_autofree char *id = NULL;
  PlanarWindow *window;
  PlanarProfile *profile;
  guint n_pending, n_loaded;

  window = open_path (session);
  wait_for (window_open, window, 30, "the session to open");
  profile = planar_window_get_profile (window);
  wait_for (timeline_settled, window, 30, "the timeline to settle");
  g_assert_cmpuint (planar_profile_get_n_traces (profile), ==, 8);
  g_assert_true (planar_profile_is_lazy (profile));
  g_assert_false (planar_profile_is_loaded (profile));
  g_assert_cmpuint (planar_profile_get_n_pending (profile), ==, 7);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "load-all-hosts"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-profile"));
  count_host_sections (window, 0, &n_pending, &n_loaded);
  g_assert_cmpuint (n_pending, ==, 0);
  g_assert_cmpuint (n_loaded, >=, 3);
  for (guint h = 1; h < 8; h++)
    {
      count_host_sections (window, h, &n_pending, &n_loaded);
      g_assert_cmpuint (n_pending, ==, 1);
      g_assert_cmpuint (n_loaded, ==, 0);
    }
  /* Host 0's sections folded, for the screenshot to show the others. */
  gtk_widget_activate_action (GTK_WIDGET (window->timeline), "timeline.collapse-all", NULL);
  save_screenshot ("lazy-hosts.png", G_USEC_PER_SEC / 2);

  /* Expanding host 3's header loads host 3 alone. */
  id = g_strdup_printf ("%s|*", planar_trace_get_host_name (planar_profile_get_trace (profile, 3)));
  g_assert_cmpint (planar_timeline_layout_find_section (window->timeline->layout, id), >=, 0);
  gtk_widget_activate_action (GTK_WIDGET (window->timeline), "timeline.toggle-section", "s", id);
  g_assert_true (planar_profile_is_busy (profile));
  wait_for (timeline_settled, window, 30, "host 3 to load");
  g_assert_cmpint (planar_profile_get_trace_state (profile, 3), ==, PLANAR_PROFILE_TRACE_LOADED);
  g_assert_cmpint (planar_profile_get_trace_state (profile, 4), ==, PLANAR_PROFILE_TRACE_PENDING);
  g_assert_cmpuint (planar_profile_get_n_pending (profile), ==, 6);
  count_host_sections (window, 3, &n_pending, &n_loaded);
  g_assert_cmpuint (n_pending, ==, 0);
  g_assert_cmpuint (n_loaded, >=, 3);
  save_screenshot ("lazy-hosts-one-more.png", G_USEC_PER_SEC / 2);

  /* A click on host 5's header, with the real pointer, loads host 5. */
  g_free (id);
  id = g_strdup_printf ("%s|*", planar_trace_get_host_name (planar_profile_get_trace (profile, 5)));
  click_section_header (window, id);
  wait_for (profile_busy_or_host_5_loaded, profile, 10, "the click to reach the header");
  wait_for (timeline_settled, window, 30, "host 5 to load");
  g_assert_cmpint (planar_profile_get_trace_state (profile, 5), ==, PLANAR_PROFILE_TRACE_LOADED);
  g_assert_cmpuint (planar_profile_get_n_pending (profile), ==, 5);

  /* Load All Hosts, stopped at once: the host under way finishes, the
   * others stay to be loaded (none fails). */
  activate (window, "load-all-hosts", NULL);
  g_assert_true (planar_window_get_loading (window));
  activate (window, "cancel-load", NULL);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "cancel-load"));
  wait_for (window_settled, window, 30, "Load All Hosts to stop");
  wait_for (timeline_settled, window, 30, "the timeline to settle");
  g_assert_cmpuint (planar_profile_get_n_pending (profile), ==, 4);
  for (guint h = 0; h < 8; h++)
    g_assert_cmpint (planar_profile_get_trace_state (profile, h), !=, PLANAR_PROFILE_TRACE_FAILED);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "load-all-hosts"));

  /* Op Stats looks at every host: the others load, and the profile is
   * whole. */
  activate (window, "tool", g_variant_new_string ("op-stats"));
  g_assert_true (planar_window_get_loading (window));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "load-all-hosts"));
  wait_loaded (window);
  wait_for (timeline_settled, window, 30, "the timeline to settle");
  g_assert_cmpuint (planar_profile_get_n_pending (profile), ==, 0);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-profile"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "load-all-hosts"));
  for (guint h = 0; h < 8; h++)
    {
      count_host_sections (window, h, &n_pending, &n_loaded);
      g_assert_cmpuint (n_pending, ==, 0);
      g_assert_cmpuint (n_loaded, >=, 3);
    }
  destroy_all_windows ();
}

/* A host whose structure reads but whose events do not: opening the
 * session works, expanding that host says why it cannot be loaded, and
 * its header says so too. */
static void
test_lazy_host_error (void)
{
  /* XSpace { planes { id: 1, name: "/host:CPU", lines { id: 1, name: "m",
   * events: <a varint cut short> } } } */
  static const guint8 bad[] = { 0x0a, 0x18, 0x08, 0x01, 0x12, 0x09, '/', 'h', 'o', 's', 't', ':', 'C', 'P', 'U',
                                0x1a, 0x09, 0x08, 0x01, 0x12, 0x01, 'm', 0x22, 0x02, 0x08, 0x80 };
  g_autofree char *session = make_session_of_8 ("many-hosts-one-bad");
  g_autofree char *bad_path = g_build_filename (session, "host8.xplane.pb", NULL);
  g_autoptr(GError) error = NULL;
  PlanarWindow *window;
  PlanarProfile *profile;
  AdwMessageDialog *dialog;
  int section;

  g_file_set_contents (bad_path, (const char *) bad, sizeof bad, &error);
  g_assert_no_error (error);
  window = open_path (session);
  wait_for (window_open, window, 30, "the session to open");
  profile = planar_window_get_profile (window);
  wait_for (timeline_settled, window, 30, "the timeline to settle");
  g_assert_cmpuint (planar_profile_get_n_traces (profile), ==, 9);
  g_assert_null (find_message_dialog (window));

  section = planar_timeline_layout_find_section (window->timeline->layout, "host8|*");
  g_assert_cmpint (section, >=, 0);
  gtk_widget_activate_action (GTK_WIDGET (window->timeline), "timeline.toggle-section", "s", "host8|*");
  wait_for (has_message_dialog, window, 30, "the error dialog");
  dialog = find_message_dialog (window);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "host8.xplane.pb"));
  g_assert_cmpint (planar_profile_get_trace_state (profile, 8), ==, PLANAR_PROFILE_TRACE_FAILED);
  wait_for (timeline_settled, window, 30, "the timeline to settle");
  section = planar_timeline_layout_find_section (window->timeline->layout, "host8|*");
  g_assert_cmpint (section, >=, 0);
  g_assert_cmpstr (planar_timeline_layout_get_section (window->timeline->layout, (guint) section)->subtitle, ==,
                   "Could not be loaded");
  /* Asking again does not try again. */
  gtk_widget_activate_action (GTK_WIDGET (window->timeline), "timeline.toggle-section", "s", "host8|*");
  g_assert_false (planar_profile_is_busy (profile));
  destroy_all_windows ();
}

/* Opened again, a profile comes from its cached index, the same. */
static void
test_cached_reopen (void)
{
  g_autofree char *cache_dir = g_build_filename (tmp_dir, "index-cache", NULL);
  PlanarWindow *window;
  guint64 n_events;
  gint64 first = 0, last = 0, first2 = 0, last2 = 0;
  PlanarProfile *profile;
  gboolean restored = FALSE;

  g_unsetenv ("PLANAR_CACHE");
  planar_cache_set_dir (cache_dir);
  planar_cache_set_enabled (TRUE);
  window = open_path (logdir);
  wait_loaded (window);
  n_events = planar_profile_get_n_events (planar_window_get_profile (window));
  g_assert_true (planar_profile_get_span (planar_window_get_profile (window), &first, &last));
  destroy_all_windows ();
  planar_cache_wait ();

  window = open_path (logdir);
  wait_loaded (window);
  profile = planar_window_get_profile (window);
  for (guint i = 0; i < planar_profile_get_n_traces (profile); i++)
    if (planar_profile_get_trace (profile, i) != NULL)
      restored |= _planar_cache_was_restored (planar_profile_get_trace (profile, i));
  g_assert_true (restored);
  g_assert_cmpuint (planar_profile_get_n_events (planar_window_get_profile (window)), ==, n_events);
  g_assert_true (planar_profile_get_span (planar_window_get_profile (window), &first2, &last2));
  g_assert_cmpint (first2, ==, first);
  g_assert_cmpint (last2, ==, last);
  save_screenshot ("cached-reopen.png", G_USEC_PER_SEC / 2);
  destroy_all_windows ();

  planar_cache_set_enabled (FALSE);
  planar_cache_set_dir (NULL);
  g_setenv ("PLANAR_CACHE", "0", TRUE);
}

/* Preferences: the cached indexes follow the settings, the window shows
 * what the folder holds and clears it. */
static void
test_preferences (void)
{
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *index = NULL;
  g_autofree char *usage = NULL;
  GtkWindow *prefs = NULL;
  GListModel *toplevels = gtk_window_get_toplevels ();
  PlanarWindow *window = open_path (logdir);

  wait_loaded (window);
  settings = g_object_ref (planar_application_get_settings (app));

  /* PLANAR_CACHE=0 (the tests' environment) keeps them off whatever the
   * setting; without it the setting decides. */
  g_assert_false (planar_cache_get_enabled ());
  g_unsetenv ("PLANAR_CACHE");
  g_settings_set_boolean (settings, "cache-enabled", FALSE);
  g_settings_set_boolean (settings, "cache-enabled", TRUE);
  g_assert_true (planar_cache_get_enabled ());
  g_settings_set_boolean (settings, "cache-enabled", FALSE);
  g_assert_false (planar_cache_get_enabled ());
  g_settings_set_uint (settings, "cache-size-mb", 300);
  g_assert_cmpuint (planar_cache_get_limit (), ==, (guint64) 300 << 20);
  g_setenv ("PLANAR_CACHE", "0", TRUE);
  g_settings_reset (settings, "cache-enabled");
  g_settings_reset (settings, "cache-size-mb");
  g_assert_false (planar_cache_get_enabled ());
  g_assert_cmpuint (planar_cache_get_limit (), ==, (guint64) 8192 << 20);

  dir = planar_cache_get_dir ();
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  index = g_build_filename (dir, "0123456789abcdef0123456789abcdef.planar-index", NULL);
  g_assert_true (g_file_set_contents (index, "0123456789", 10, NULL));
  usage = planar_preferences_describe_cache ();
  g_assert_cmpstr (usage, ==, "10 bytes in 1 file");

  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (app), "preferences"));
  g_action_group_activate_action (G_ACTION_GROUP (app), "preferences", NULL);
  for (guint i = 0; i < g_list_model_get_n_items (toplevels) && prefs == NULL; i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_PREFERENCES_WINDOW (w))
        prefs = w;
    }
  g_assert_nonnull (prefs);
  save_screenshot ("preferences.png", G_USEC_PER_SEC / 2);
  g_assert_cmpuint (planar_preferences_clear_cache (), ==, 1);
  g_assert_false (g_file_test (index, G_FILE_TEST_EXISTS));
  gtk_window_destroy (prefs);
  destroy_all_windows ();
}

static void
export_finished (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (_planar_window_export_profile_finish (PLANAR_WINDOW (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

/* File > Export Profile writes Chrome JSON that opens again in the app
 * (the import), with the events of the file's tracks. */
static void
test_export_and_open_json (void)
{
  PlanarWindow *window = open_worker_session ();
  g_autofree char *path = g_build_filename (tmp_dir, "exported.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  PlanarWindow *second;
  gboolean done = FALSE;
  guint64 expected;

  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-profile"));
  expected = planar_export_count_events (planar_window_get_profile (window));
  _planar_window_export_profile_async (window, file, PLANAR_EXPORT_CHROME_JSON, export_finished, &done);
  wait_for (flag_set, &done, 60, "the export");
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));

  second = open_path (path);
  wait_loaded (second);
  g_assert_cmpuint (planar_profile_get_n_events (planar_window_get_profile (second)), ==, expected);
  g_assert_nonnull (planar_trace_get_import_report (planar_profile_get_trace (planar_window_get_profile (second), 0)));
  destroy_all_windows ();
}

static PlanarCaptureDialog *
find_capture_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (PLANAR_IS_CAPTURE_DIALOG (toplevel))
        return PLANAR_CAPTURE_DIALOG (toplevel);
    }
  return NULL;
}

static gboolean
window_shows_capture (gpointer data)
{
  PlanarWindow *window = data;

  return find_capture_dialog () == NULL && window_loaded (window)
         && planar_profile_get_n_events (planar_window_get_profile (window)) > 0;
}

/* Capture Profile: the dialog checks the address as it is typed, captures
 * from a ProfilerService on 127.0.0.1 (the tests' own), remembers the
 * server, and the window opens the new session. */
static void
test_capture (void)
{
  PlanarWindow *window = open_path (logdir);
  g_autofree char *sample = planar_test_sample_path ("xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb");
  g_autofree char *xspace_arg = g_strdup_printf ("--xspace=%s", sample);
  g_autofree char *capture_dir = g_build_filename (tmp_dir, "captures", NULL);
  const char *argv[] = { g_getenv ("PLANAR_TEST_PROFILER_SERVER"), "--mode=ok", xspace_arg, "--idle-ms=5000", NULL };
  g_autoptr(GIOChannel) channel = NULL;
  g_autofree char *line = NULL;
  g_autofree char *address = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) recent = NULL;
  PlanarCaptureDialog *dialog;
  PlanarCaptureOptions *options;
  GPid pid;
  int out = -1;

  wait_loaded (window);
  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &pid, NULL,
                                           &out, NULL, &error));
  channel = g_io_channel_unix_new (out);
  g_io_channel_set_close_on_unref (channel, TRUE);
  g_assert_cmpint (g_io_channel_read_line (channel, &line, NULL, NULL, &error), ==, G_IO_STATUS_NORMAL);
  address = g_strdup_printf ("127.0.0.1:%d", atoi (line + strlen ("PORT ")));

  activate (window, "capture", NULL);
  dialog = find_capture_dialog ();
  g_assert_nonnull (dialog);
  options = planar_capture_dialog_get_options (dialog);
  g_object_set (options, "logdir", capture_dir, "duration-ms", 100, NULL);

  g_object_set (options, "addresses", "no-port-here", NULL);
  g_assert_cmpstr (planar_capture_dialog_get_problem (dialog), !=, "");
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (dialog), "capture.start", NULL)
                  && planar_capture_dialog_get_session (dialog) != NULL);
  g_object_set (options, "addresses", address, NULL);
  g_assert_cmpstr (planar_capture_dialog_get_problem (dialog), ==, "");

  gtk_widget_activate_action (GTK_WIDGET (dialog), "capture.start", NULL);
  g_assert_nonnull (planar_capture_dialog_get_session (dialog));
  wait_for (window_shows_capture, window, 60, "the captured session to open");
  recent = g_settings_get_strv (planar_application_get_settings (app), "recent-capture-targets");
  g_assert_cmpstr (recent[0], ==, address);
  destroy_all_windows ();
}

/* ------------------------------------------------------------------------
 * Real keys and clicks (xdotool, over XTEST), as a person's reach the app
 * ------------------------------------------------------------------------ */

/* Runs xdotool with the arguments, NULL-terminated, as they are. */
static void
xdotool_run (const char *first_arg,
             ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  const char *xdotool = g_getenv ("XDOTOOL");
  int status = 0;
  va_list ap;

  g_ptr_array_add (argv, (gpointer) (xdotool != NULL ? xdotool : "xdotool"));
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

/* The regular expression xdotool finds @window by. */
static char *
window_title_pattern (GtkWindow *window)
{
  g_autofree char *escaped = g_regex_escape_string (gtk_window_get_title (window), -1);

  return g_strdup_printf ("^%s$", escaped);
}

static gboolean
window_active (gpointer data)
{
  return gtk_window_is_active (data);
}

static gboolean
window_inactive (gpointer data)
{
  return !gtk_window_is_active (data);
}

/* Gives @window the keyboard focus, as a click on it would. */
static void
focus_window (GtkWindow *window)
{
  g_autofree char *title = window_title_pattern (window);

  xdotool_run ("search", "--sync", "--name", title, "windowfocus", "--sync", NULL);
  wait_for (window_active, window, 10, "the window to have the focus");
}

/* Types @keys (xdotool key names, separated by spaces) at the focused
 * window, one press and release each, then lets GTK handle them. */
static void
press_keys (const char *keys)
{
  g_auto(GStrv) names = g_strsplit (keys, " ", -1);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  const char *xdotool = g_getenv ("XDOTOOL");
  int status = 0;

  g_ptr_array_add (argv, (gpointer) (xdotool != NULL ? xdotool : "xdotool"));
  g_ptr_array_add (argv, (gpointer) "key");
  g_ptr_array_add (argv, (gpointer) "--delay");
  g_ptr_array_add (argv, (gpointer) "30");
  for (guint i = 0; names[i] != NULL; i++)
    g_ptr_array_add (argv, names[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("xdotool failed: %s", err);
  for (guint i = 0; i < 50 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

/* Clicks @widget of @window at (@x, @y) in the widget's coordinates with
 * the real pointer. */
static void
click_at (GtkWindow *window,
          GtkWidget *widget,
          double     x,
          double     y)
{
  g_autofree char *title = window_title_pattern (window);
  g_autofree char *sx = NULL, *sy = NULL;
  graphene_point_t point;
  double tx, ty;

  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (window), &GRAPHENE_POINT_INIT ((float) x, (float) y),
                                           &point));
  gtk_native_get_surface_transform (GTK_NATIVE (window), &tx, &ty);
  sx = g_strdup_printf ("%d", (int) (point.x + tx));
  sy = g_strdup_printf ("%d", (int) (point.y + ty));
  xdotool_run ("search", "--sync", "--name", title, "mousemove", "--window", "%1", "--sync", sx, sy,
               "click", "1", NULL);
  for (guint i = 0; i < 50 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

static void
click_widget (GtkWindow *window,
              GtkWidget *widget)
{
  g_assert_true (gtk_widget_is_drawable (widget));
  click_at (window, widget, gtk_widget_get_width (widget) / 2.0, gtk_widget_get_height (widget) / 2.0);
}

static gboolean
stack_settled (gpointer data)
{
  PlanarWindow *window = data;

  return !gtk_stack_get_transition_running (window->stack);
}

static gboolean
op_stats_idle (gpointer data)
{
  PlanarWindow *window = data;

  return !planar_op_stats_page_get_busy (window->op_stats_page);
}

/* The position of the Op Stats row named @name, and its FLOP rate and
 * bandwidth; fails when there is none. */
static guint
op_stats_row (PlanarWindow *window,
              const char   *name,
              double       *rate,
              double       *bandwidth)
{
  GListModel *rows = planar_op_stats_page_get_rows (window->op_stats_page);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(PlanarAggregateRow) row = g_list_model_get_item (rows, i);

      if (g_strcmp0 (planar_aggregate_row_get_name (row), name) == 0)
        {
          g_object_get (row, "flop-rate", rate, "bandwidth", bandwidth, NULL);
          return i;
        }
    }
  g_error ("no Op Stats row %s", name);
}

/* The label under @widget that shows @text, drawn. */
static GtkWidget *
find_drawn_label (GtkWidget  *widget,
                  const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_label (GTK_LABEL (widget)), text) == 0
      && gtk_widget_is_drawable (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_drawn_label (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

typedef struct
{
  PlanarWindow *window;
  guint64       count;
} SelectionWait;

static gboolean
selection_has (gpointer data)
{
  SelectionWait *w = data;
  PlanarSelection *selection = planar_timeline_get_selection (w->window->timeline);

  return selection != NULL && planar_selection_get_n_events (selection) == w->count;
}

static gboolean
time_passed (gpointer data)
{
  return g_get_monotonic_time () >= *(gint64 *) data;
}

/* The label under @widget that shows @text, scrolled into its scrolled
 * window's visible part first when it is drawn outside it (the window's
 * size is what earlier cases left; a row further down the table is
 * clipped, and a click at it would land on another widget). The rows
 * are recycled as they scroll, so the label is looked for again. */
static GtkWidget *
reveal_drawn_label (GtkWidget  *widget,
                    const char *text)
{
  for (guint attempt = 0; attempt < 10; attempt++)
    {
      GtkWidget *label = find_drawn_label (widget, text);
      GtkWidget *sw = label != NULL ? gtk_widget_get_ancestor (label, GTK_TYPE_SCROLLED_WINDOW) : NULL;
      graphene_point_t point;
      double height;
      GtkAdjustment *adjustment;
      gint64 until;

      g_assert_nonnull (label);
      if (sw == NULL)
        return label;
      g_assert_true (gtk_widget_compute_point (label, sw, &GRAPHENE_POINT_INIT (0, 0), &point));
      height = gtk_widget_get_height (sw);
      if (point.y >= 40 && point.y + gtk_widget_get_height (label) <= height - 4)
        return label;
      adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (sw));
      gtk_adjustment_set_value (adjustment, gtk_adjustment_get_value (adjustment) + point.y - height / 2);
      until = g_get_monotonic_time () + G_USEC_PER_SEC / 5;
      wait_for (time_passed, &until, 10, "the table to scroll");
    }
  g_error ("the label %s stays outside its scrolled window", text);
}

typedef struct
{
  GtkWidget *page;
  guint      position;
} RowSelectedWait;

static GtkColumnView *
find_column_view (GtkWidget *widget)
{
  if (GTK_IS_COLUMN_VIEW (widget))
    return GTK_COLUMN_VIEW (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkColumnView *found = find_column_view (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The Op Stats table's selected row is @position. */
static gboolean
op_stats_row_selected (gpointer data)
{
  RowSelectedWait *rw = data;
  GtkColumnView *view = find_column_view (rw->page);
  GtkSelectionModel *model = view != NULL ? gtk_column_view_get_model (view) : NULL;

  return model != NULL && gtk_selection_model_is_selected (model, rw->position);
}

/* Every selected event's framework op (@source FALSE) or source line is
 * @value, and there are @count of them, on the timeline. */
static void
check_selected_ops (PlanarWindow *window,
                    gboolean      source,
                    const char   *value,
                    guint64       count)
{
  PlanarSelection *selection = planar_timeline_get_selection (window->timeline);
  PlanarProfile *profile = planar_window_get_profile (window);
  g_autoptr(GVariant) tool = g_action_group_get_action_state (G_ACTION_GROUP (window), "tool");
  const PlanarEventRef *refs;
  gsize n;

  g_assert_cmpstr (g_variant_get_string (tool, NULL), ==, "trace-viewer");
  refs = planar_selection_get_events (selection, &n);
  g_assert_cmpuint (n, ==, count);
  for (gsize i = 0; i < n; i++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, refs[i].trace);
      const PlanarPlane *plane = planar_trace_get_plane (trace, refs[i].plane);
      PlanarOpInfo info;

      g_assert_true (planar_op_info_init (&info, trace, plane, &plane->tracks[refs[i].track].events[refs[i].index],
                                          NULL));
      g_assert_cmpstr (source ? info.source : info.framework_op, ==, value);
      planar_op_info_clear (&info);
    }
}

/* Op Stats on a JAX GPU profile: rows by name at once, their FLOP rate and
 * bandwidth read on a worker; rows per framework op and per source line
 * read on a worker too; a row of those activated with the real pointer
 * (double click) and keys (Enter) selects the kernels it counts, whatever
 * their names, and shows them. */
static void
test_op_stats_costs (void)
{
  g_autofree char *path = planar_test_sample_path ("tracelens_mi300_jax08_attention_tw003.xplane.pb");
  PlanarWindow *window;
  PlanarTrace *trace;
  GListModel *rows;
  guint gpu_index = 0, position;
  double rate = 0, bandwidth = 0, best = 0;
  GtkWidget *label;
  SelectionWait w;

  if (path == NULL)
    return;
  window = open_path (path);
  wait_loaded (window);
  trace = planar_profile_get_trace (planar_window_get_profile (window), 0);
  while (g_strcmp0 (planar_trace_get_plane (trace, gpu_index)->name, "/device:GPU:0") != 0)
    gpu_index++;
  activate (window, "tool", g_variant_new_string ("op-stats"));
  rows = planar_op_stats_page_get_rows (window->op_stats_page);

  /* By name: the rows at once, their costs later. */
  g_assert_true (planar_op_stats_page_select (window->op_stats_page, 0, gpu_index, -1));
  g_assert_cmpuint (g_list_model_get_n_items (rows), >, 0);
  g_assert_true (planar_op_stats_page_get_busy (window->op_stats_page));
  wait_for (op_stats_idle, window, 60, "the FLOPs and bytes of the rows by name");
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(PlanarAggregateRow) row = g_list_model_get_item (rows, i);

      g_object_get (row, "flop-rate", &rate, NULL);
      best = MAX (best, rate);
    }
  g_assert_cmpfloat (best, >, 1e12);

  /* By framework op: rows once a worker has read them. */
  planar_op_stats_page_set_key (window->op_stats_page, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP);
  g_assert_true (planar_op_stats_page_get_busy (window->op_stats_page));
  wait_for (op_stats_idle, window, 60, "the rows by framework op");
  position = op_stats_row (window, "jit(matmul)/dot_general:", &rate, &bandwidth);
  wait_for (stack_settled, window, 10, "Op Stats to be shown");
  g_assert_cmpfloat (rate, >, 1e12);
  g_assert_cmpfloat (bandwidth, >, 0);
  save_screenshot ("op-stats-framework-ops.png", G_USEC_PER_SEC / 2);

  /* A double click on the row selects its kernels on the timeline. */
  {
    g_autoptr(PlanarAggregateRow) row = g_list_model_get_item (rows, position);
    g_autofree char *title = window_title_pattern (GTK_WINDOW (window));
    g_autofree char *sx = NULL, *sy = NULL;
    graphene_point_t point;
    double tx, ty;

    w = (SelectionWait) { window, planar_aggregate_row_get_count (row) };
    g_assert_cmpuint (w.count, >, 0);
    label = find_drawn_label (GTK_WIDGET (window->op_stats_page), "jit(matmul)/dot_general:");
    g_assert_nonnull (label);
    focus_window (GTK_WINDOW (window));
    g_assert_true (gtk_widget_compute_point (label, GTK_WIDGET (window), &GRAPHENE_POINT_INIT (4, 4), &point));
    gtk_native_get_surface_transform (GTK_NATIVE (window), &tx, &ty);
    sx = g_strdup_printf ("%d", (int) (point.x + tx));
    sy = g_strdup_printf ("%d", (int) (point.y + ty));
    xdotool_run ("search", "--sync", "--name", title, "mousemove", "--window", "%1", "--sync", sx, sy,
                 "click", "--repeat", "2", "--delay", "50", "1", NULL);
    wait_for (selection_has, &w, 60, "the framework op's kernels to be selected");
    check_selected_ops (window, FALSE, "jit(matmul)/dot_general:", w.count);
  }

  /* By source line: a click on the row and Enter. */
  activate (window, "tool", g_variant_new_string ("op-stats"));
  planar_op_stats_page_set_key (window->op_stats_page, PLANAR_AGGREGATE_KEY_SOURCE);
  wait_for (op_stats_idle, window, 60, "the rows by source line");
  wait_for (stack_settled, window, 10, "Op Stats to be shown");
  position = op_stats_row (window, "generate_attention_trace.py:31", &rate, &bandwidth);
  {
    g_autoptr(PlanarAggregateRow) row = g_list_model_get_item (rows, position);

    w = (SelectionWait) { window, planar_aggregate_row_get_count (row) };
  }
  g_assert_cmpuint (w.count, >, 0);
  label = reveal_drawn_label (GTK_WIDGET (window->op_stats_page), "generate_attention_trace.py:31");
  focus_window (GTK_WINDOW (window));
  /* Enter goes to the row the click selected, in the window that has the
   * focus: both are waited for. Under ASan, in the whole program, the
   * first click after the tool switch could leave the row unselected (seen
   * in screenshots: the row hovered, not selected); it is clicked again,
   * at most 3 times. */
  {
    RowSelectedWait rw = { GTK_WIDGET (window->op_stats_page), position };

    for (guint attempt = 0; attempt < 3 && !op_stats_row_selected (&rw); attempt++)
      {
        gint64 until = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;

        click_at (GTK_WINDOW (window), reveal_drawn_label (GTK_WIDGET (window->op_stats_page),
                                                           "generate_attention_trace.py:31"), 4, 4);
        while (!op_stats_row_selected (&rw) && g_get_monotonic_time () < until)
          g_main_context_iteration (NULL, FALSE);
      }
    save_screenshot ("op-stats-source-click.png", G_USEC_PER_SEC / 2);
    wait_for (op_stats_row_selected, &rw, 10, "the clicked Op Stats row to be selected");
  }
  focus_window (GTK_WINDOW (window));
  press_keys ("Return");
  wait_for (selection_has, &w, 60, "the source line's kernels to be selected");
  check_selected_ops (window, TRUE, "generate_attention_trace.py:31", w.count);

  /* The page goes while a worker reads: it is cancelled, nothing is
   * touched after. */
  activate (window, "tool", g_variant_new_string ("op-stats"));
  planar_op_stats_page_set_key (window->op_stats_page, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP);
  g_assert_true (planar_op_stats_page_get_busy (window->op_stats_page));
  destroy_all_windows ();
}

/* The message bar's lines: in the order first set, replaced in place,
 * removed by key, closed by their close button (which says which); the
 * bar takes no room without a line. */
static void
closed_cb (PlanarMessageBar *bar,
           const char       *key,
           char            **closed)
{
  g_free (*closed);
  *closed = g_strdup (key);
}

static GtkWidget *
line_label (GtkWidget *line)
{
  return gtk_widget_get_next_sibling (gtk_widget_get_first_child (line));
}

static void
test_message_bar (void)
{
  PlanarMessageBar *bar = PLANAR_MESSAGE_BAR (g_object_ref_sink (planar_message_bar_new ()));
  g_autofree char *closed = NULL;
  GtkWidget *line, *close;

  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (bar)));
  g_assert_cmpuint (planar_message_bar_get_n_lines (bar), ==, 0);
  g_signal_connect (bar, "closed", G_CALLBACK (closed_cb), &closed);

  planar_message_bar_set (bar, "a", PLANAR_MESSAGE_INFO, "first", "_Clear", "win.clear-track-filter", FALSE);
  planar_message_bar_set (bar, "b", PLANAR_MESSAGE_WARNING, "second", NULL, NULL, TRUE);
  planar_message_bar_set (bar, "c", PLANAR_MESSAGE_ERROR, "third", "_Reload", "win.reload", TRUE);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (bar)));
  g_assert_cmpuint (planar_message_bar_get_n_lines (bar), ==, 3);
  g_assert_nonnull (planar_message_bar_get_button (bar, "a"));
  g_assert_null (planar_message_bar_get_button (bar, "b"));
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (planar_message_bar_get_button (bar, "c"))),
                   ==, "win.reload");

  /* Replaced in place: still the first line, with the new text. */
  planar_message_bar_set (bar, "a", PLANAR_MESSAGE_INFO, "first, again", NULL, NULL, FALSE);
  g_assert_cmpuint (planar_message_bar_get_n_lines (bar), ==, 3);
  g_assert_cmpstr (planar_message_bar_get_text (bar, "a"), ==, "first, again");
  g_assert_null (planar_message_bar_get_button (bar, "a"));
  line = gtk_widget_get_first_child (GTK_WIDGET (bar));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (line_label (line))), ==, "first, again");
  g_assert_true (gtk_widget_has_css_class (line, "info"));
  line = gtk_widget_get_next_sibling (line);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (line_label (line))), ==, "second");
  g_assert_true (gtk_widget_has_css_class (line, "warning"));

  /* Its close button removes the second line and says so. */
  close = gtk_widget_get_last_child (line);
  g_assert_true (GTK_IS_BUTTON (close));
  g_signal_emit_by_name (close, "clicked");
  g_assert_cmpstr (closed, ==, "b");
  g_assert_null (planar_message_bar_get_text (bar, "b"));
  g_assert_cmpuint (planar_message_bar_get_n_lines (bar), ==, 2);

  planar_message_bar_remove (bar, "nothing");
  planar_message_bar_remove (bar, "a");
  g_assert_cmpstr (planar_message_bar_get_text (bar, "c"), ==, "third");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (bar)));
  planar_message_bar_remove_all (bar);
  g_assert_cmpuint (planar_message_bar_get_n_lines (bar), ==, 0);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (bar)));
  g_object_unref (bar);
}

/* ------------------------------------------------------------------------
 * The Tracks filter, the message bar and the timeline's keys
 * ------------------------------------------------------------------------ */

typedef struct
{
  PlanarWindow *window;
  const char   *text;
  gint64        start_ps;
  gint64        end_ps;
  PlanarTimelineTool tool;
} Expect;

static GtkWidget *
tracks_popover (PlanarWindow *window)
{
  return GTK_WIDGET (gtk_menu_button_get_popover (window->tracks_button));
}

static GtkWidget *
tracks_entry (PlanarWindow *window)
{
  for (GtkWidget *w = tracks_popover (window); w != NULL;)
    {
      if (GTK_IS_SEARCH_ENTRY (w))
        return w;
      /* Depth first. */
      if (gtk_widget_get_first_child (w) != NULL)
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w != NULL && gtk_widget_get_next_sibling (w) == NULL)
            {
              w = gtk_widget_get_parent (w);
              if (w == tracks_popover (window))
                return NULL;
            }
          if (w != NULL)
            w = gtk_widget_get_next_sibling (w);
        }
    }
  return NULL;
}

static gboolean
tracks_popover_shown (gpointer data)
{
  return gtk_widget_get_mapped (tracks_popover (data));
}

static gboolean
tracks_popover_hidden (gpointer data)
{
  return !gtk_widget_get_visible (tracks_popover (data));
}

static gboolean
filter_is (gpointer data)
{
  const Expect *expect = data;

  return g_strcmp0 (planar_timeline_get_track_filter (expect->window->timeline), expect->text) == 0;
}

static gboolean
view_changed (gpointer data)
{
  const Expect *expect = data;

  return planar_timeline_get_start_ps (expect->window->timeline) != expect->start_ps
         || planar_timeline_get_end_ps (expect->window->timeline) != expect->end_ps;
}

static gboolean
view_is (gpointer data)
{
  return !view_changed (data);
}

static gboolean
tool_is (gpointer data)
{
  const Expect *expect = data;

  return planar_timeline_get_tool (expect->window->timeline) == expect->tool;
}

static gboolean
timeline_has_focus (PlanarWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  return focus != NULL && (focus == GTK_WIDGET (window->timeline)
                           || gtk_widget_is_ancestor (focus, GTK_WIDGET (window->timeline)));
}

/* Issue 18 §1-§3, with the keys and clicks of a person: Ctrl+T, type
 * "XLA", click the timeline (the menu closes), again and again (the
 * Tracks menu handed the timeline's own filter string to the entry, which
 * freed it on the way: garbage, then a crash); the filter in force is
 * said above the tracks, with Clear; and the timeline's keys work while
 * the focus is on the header bar, but not in an entry or an open menu. */
static void
test_tracks_filter_and_keys (void)
{
  g_autofree char *path = g_build_filename (logdir, "plugins", "profile", NEWEST, "tw003.xplane.pb", NULL);
  PlanarWindow *window = open_path (path);
  GtkWidget *timeline = GTK_WIDGET (window->timeline);
  Expect expect = { window, NULL, 0, 0, 0 };
  gint64 full_start, full_end;
  const char *line;
  GtkWidget *clear;

  wait_loaded (window);
  wait_for (timeline_settled, window, 30, "the timeline to settle");
  focus_window (GTK_WINDOW (window));
  g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_TRACK_FILTER));
  full_start = planar_timeline_get_start_ps (window->timeline);
  full_end = planar_timeline_get_end_ps (window->timeline);

  for (guint round = 0; round < 3; round++)
    {
      press_keys ("ctrl+t");
      wait_for (tracks_popover_shown, window, 10, "the Tracks menu");
      /* The entry shows the filter in force, selected: typing replaces it. */
      g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (tracks_entry (window))), ==, round == 0 ? "" : "XLA");
      press_keys ("shift+x shift+l shift+a");
      expect.text = "XLA";
      wait_for (filter_is, &expect, 10, "the filter to apply");
      /* A click on the tracks closes the menu; the filter stays. */
      click_at (GTK_WINDOW (window), timeline, gtk_widget_get_width (timeline) * 0.6,
                gtk_widget_get_height (timeline) * 0.5);
      wait_for (tracks_popover_hidden, window, 10, "the Tracks menu to close");
      g_assert_cmpstr (planar_timeline_get_track_filter (window->timeline), ==, "XLA");
      g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (tracks_entry (window))), ==, "XLA");
      line = planar_message_bar_get_text (window->message_bar, MESSAGE_TRACK_FILTER);
      g_assert_cmpstr (line, ==, "Showing tracks matching “XLA”");
      g_assert_cmpuint (planar_timeline_layout_get_n_rows (window->timeline->layout), >, 0);
    }
  save_screenshot ("tracks-filter.png", G_USEC_PER_SEC / 2);

  /* The keys after a header control: Ctrl+T then Escape leaves the focus on
   * the Tracks button; W zooms, 0 shows the whole profile, 2 picks the Pan
   * tool, and the filter is untouched. */
  press_keys ("ctrl+t");
  wait_for (tracks_popover_shown, window, 10, "the Tracks menu");
  press_keys ("Escape");
  wait_for (tracks_popover_hidden, window, 10, "the Tracks menu to close");
  g_assert_false (timeline_has_focus (window));
  expect.start_ps = planar_timeline_get_start_ps (window->timeline);
  expect.end_ps = planar_timeline_get_end_ps (window->timeline);
  press_keys ("w w w");
  wait_for (view_changed, &expect, 10, "W to zoom in from the header bar");
  g_assert_cmpint (planar_timeline_get_end_ps (window->timeline) - planar_timeline_get_start_ps (window->timeline),
                   <, expect.end_ps - expect.start_ps);
  press_keys ("0");
  expect.start_ps = full_start;
  expect.end_ps = full_end;
  wait_for (view_is, &expect, 10, "0 to show the whole profile");
  expect.tool = PLANAR_TIMELINE_TOOL_PAN;
  press_keys ("2");
  wait_for (tool_is, &expect, 10, "2 to pick the Pan tool");
  g_assert_cmpstr (planar_timeline_get_track_filter (window->timeline), ==, "XLA");
  g_assert_false (timeline_has_focus (window));

  /* While a menu is open, its keys stay with it: 1 does not pick the Select
   * tool. */
  press_keys ("F10");
  wait_for (widget_mapped, gtk_menu_button_get_popover (window->menu_button), 10, "the main menu");
  press_keys ("1");
  g_assert_cmpint (planar_timeline_get_tool (window->timeline), ==, PLANAR_TIMELINE_TOOL_PAN);
  press_keys ("Escape");
  /* Nor from the Tracks menu's entry: typing stays text. */
  press_keys ("ctrl+t");
  wait_for (tracks_popover_shown, window, 10, "the Tracks menu");
  press_keys ("End 1 0");
  expect.text = "XLA10";
  wait_for (filter_is, &expect, 10, "the typed filter");
  g_assert_cmpint (planar_timeline_get_tool (window->timeline), ==, PLANAR_TIMELINE_TOOL_PAN);
  press_keys ("BackSpace BackSpace Escape");
  expect.text = "XLA";
  wait_for (filter_is, &expect, 10, "the filter back");
  wait_for (tracks_popover_hidden, window, 10, "the Tracks menu to close");
  press_keys ("1");
  expect.tool = PLANAR_TIMELINE_TOOL_SELECT;
  wait_for (tool_is, &expect, 10, "1 to pick the Select tool");

  /* Clear, clicked, shows every track again and takes the line away. */
  clear = planar_message_bar_get_button (window->message_bar, MESSAGE_TRACK_FILTER);
  g_assert_nonnull (clear);
  click_widget (GTK_WINDOW (window), clear);
  expect.text = "";
  wait_for (filter_is, &expect, 10, "Clear to clear the filter");
  g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_TRACK_FILTER));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->message_bar)));
  press_keys ("ctrl+t");
  wait_for (tracks_popover_shown, window, 10, "the Tracks menu");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (tracks_entry (window))), ==, "");
  press_keys ("Escape");
  wait_for (tracks_popover_hidden, window, 10, "the Tracks menu to close");

  destroy_all_windows ();
}

/* ------------------------------------------------------------------------
 * A host file that changes on disk while it is open (issue 17 §1)
 * ------------------------------------------------------------------------ */

static gboolean
file_changed_shown (gpointer data)
{
  PlanarWindow *window = data;

  return planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CHANGED) != NULL;
}

static gboolean
window_settled_without_file_changed (gpointer data)
{
  return window_loaded (data) && !file_changed_shown (data);
}

/* The file is cut to nothing while the app has it open (a profiler
 * writing over it with O_TRUNC): reading an event's stats, which come
 * from the file, then finds them gone. The app stays alive and says so in
 * the message bar, and again when its window regains the focus; once the
 * file is whole again, the line's Reload loads it. */
static void
test_file_changed (void)
{
  g_autofree char *folder = g_build_filename (tmp_dir, "changed", "plugins", "profile", NEWEST, NULL);
  g_autofree char *path = g_build_filename (folder, "host0.xplane.pb", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *details = NULL;
  g_autoptr(PlanarSelection) one = NULL;
  g_autoptr(GError) error = NULL;
  const char *gen = g_getenv ("PLANAR_GEN");
  char *argv[] = { (char *) gen, (char *) "--events", (char *) "20000", (char *) "-o", path, NULL };
  PlanarEventRef ref;
  PlanarWindow *window;
  GtkWindow *other;
  const char *line;
  gsize length;
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_file_get_contents (path, &contents, &length, &error);
  g_assert_no_error (error);

  window = open_path (path);
  wait_loaded (window);
  focus_window (GTK_WINDOW (window));
  g_assert_true (find_event (planar_window_get_profile (window), 1, FALSE, &ref));
  g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CHANGED));

  /* Cut while open; then the details pane reads the event's stats. */
  g_assert_cmpint (truncate (path, 0), ==, 0);
  one = planar_selection_new_for_event (planar_window_get_profile (window), &ref);
  planar_timeline_set_selection (window->timeline, one);
  wait_for (file_changed_shown, window, 10, "the message bar to say the file changed");
  line = planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CHANGED);
  g_assert_nonnull (strstr (line, "host0.xplane.pb"));
  g_assert_nonnull (planar_message_bar_get_button (window->message_bar, MESSAGE_FILE_CHANGED));

  /* Closed, it comes back when the window regains the focus (from another
   * window) and the file is still not what was opened. */
  planar_message_bar_remove (window->message_bar, MESSAGE_FILE_CHANGED);
  other = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_title (other, "planar-test-other-window");
  gtk_window_present (other);
  wait_for (widget_mapped, other, 10, "the other window");
  focus_window (other);
  wait_for (window_inactive, window, 10, "the window to lose the focus");
  g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CHANGED));
  focus_window (GTK_WINDOW (window));
  wait_for (file_changed_shown, window, 10, "the message bar to say the file changed");
  g_assert_nonnull (strstr (planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CHANGED),
                            "host0.xplane.pb"));
  gtk_window_destroy (other);
  save_screenshot ("file-changed.png", G_USEC_PER_SEC);

  /* Written whole again (in place, as cp does), Reload, clicked, loads it. */
  {
    FILE *out = fopen (path, "r+b");

    g_assert_nonnull (out);
    g_assert_cmpuint (fwrite (contents, 1, length, out), ==, length);
    g_assert_cmpint (fclose (out), ==, 0);
  }
  focus_window (GTK_WINDOW (window));
  click_widget (GTK_WINDOW (window), planar_message_bar_get_button (window->message_bar, MESSAGE_FILE_CHANGED));
  wait_for (window_settled_without_file_changed, window, 30, "Reload to load the file again");
  wait_loaded (window);
  g_assert_true (planar_profile_check_files (planar_window_get_profile (window), NULL));
  planar_timeline_set_selection (window->timeline, NULL);
  g_clear_object (&one);
  one = planar_selection_new_for_event (planar_window_get_profile (window), &ref);
  planar_timeline_set_selection (window->timeline, one);
  g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CHANGED));
  details = planar_details_pane_dup_text (window->details_pane);
  g_assert_nonnull (strstr (details, "Start: "));

  destroy_all_windows ();
}

/* A host of one step at @start_ns (its Task Environment's start). */
static void
write_host_at (const char *dir,
               const char *name,
               guint64     start_ns)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane;

  planar_test_add_task_environment (space, start_ns);
  plane = planar_test_space_add_plane (space, 1, "/host:CPU");
  planar_test_plane_add_event_metadata (plane, 1, "step", NULL);
  planar_test_line_add_event (planar_test_plane_add_line (plane, 1, "main", 10), 1, 0, 1000);
  g_free (planar_test_write_space (space, dir, name));
}

static gboolean
load_notes_shown (gpointer data)
{
  PlanarWindow *window = data;

  return planar_message_bar_get_text (window->message_bar, MESSAGE_HOST_ALIGNMENT) != NULL
         && planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CUT) != NULL;
}

static gboolean
health_shown (gpointer data)
{
  PlanarWindow *window = data;
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (window), "tool");

  return g_strcmp0 (g_variant_get_string (state, NULL), "trace-health") == 0;
}

/* A session of hosts 200 days apart, one of them a file cut short, opens:
 * the message bar says that each host is shown from its own start and
 * what the cut file lost, and its Details button opens Trace Health. */
static void
test_load_notes (void)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autofree char *folder = g_build_filename (tmp_dir, "notes", "plugins", "profile", NEWEST, NULL);
  g_autofree char *cut = g_build_filename (folder, "worker2.xplane.pb", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  const char *gen = g_getenv ("PLANAR_GEN");
  char *argv[] = { (char *) gen, (char *) "--events", (char *) "20000", (char *) "-o", cut, NULL };
  PlanarWindow *window;
  const char *line;
  gsize length;
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  planar_test_scratch_begin ();
  write_host_at (folder, "worker0.xplane.pb", start + G_GUINT64_CONSTANT (200) * 86400 * 1000000000);
  write_host_at (folder, "worker1.xplane.pb", start);
  planar_test_scratch_end ();
  g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_file_get_contents (cut, &contents, &length, &error);
  g_assert_no_error (error);
  g_file_set_contents (cut, contents, (gssize) (length * 56 / 100), &error);
  g_assert_no_error (error);

  window = open_path (folder);
  wait_loaded (window);
  wait_for (load_notes_shown, window, 10, "the message bar's lines on alignment and the cut file");
  g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CHANGED));
  line = planar_message_bar_get_text (window->message_bar, MESSAGE_HOST_ALIGNMENT);
  g_assert_nonnull (strstr (line, "own start"));
  line = planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CUT);
  g_assert_nonnull (strstr (line, "worker2.xplane.pb"));
  g_assert_nonnull (strstr (line, "ends early"));
  save_screenshot ("load-notes.png", G_USEC_PER_SEC / 2);

  focus_window (GTK_WINDOW (window));
  click_widget (GTK_WINDOW (window), planar_message_bar_get_button (window->message_bar, MESSAGE_FILE_CUT));
  wait_for (health_shown, window, 10, "Details to open Trace Health");
  save_screenshot ("load-notes-health.png", G_USEC_PER_SEC / 2);

  destroy_all_windows ();
}

/* Starts the tests' ProfilerService in @mode (plus @extra, may be NULL)
 * serving @xspace; @channel keeps its standard output. Returns: (transfer
 * full): its address. */
static char *
start_profiler_server (const char  *mode,
                       const char  *xspace,
                       const char  *extra,
                       GIOChannel **channel)
{
  g_autofree char *xspace_arg = g_strdup_printf ("--xspace=%s", xspace);
  g_autofree char *mode_arg = g_strdup_printf ("--mode=%s", mode);
  const char *argv[] = { g_getenv ("PLANAR_TEST_PROFILER_SERVER"), mode_arg, xspace_arg, "--idle-ms=5000", extra, NULL };
  g_autofree char *line = NULL;
  g_autoptr(GError) error = NULL;
  GPid pid;
  int out = -1;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &pid, NULL,
                                           &out, NULL, &error));
  *channel = g_io_channel_unix_new (out);
  g_io_channel_set_close_on_unref (*channel, TRUE);
  g_assert_cmpint (g_io_channel_read_line (*channel, &line, NULL, NULL, &error), ==, G_IO_STATUS_NORMAL);
  return g_strdup_printf ("127.0.0.1:%d", atoi (line + strlen ("PORT ")));
}

static gboolean
first_host_saved (gpointer data)
{
  PlanarCaptureDialog *dialog = data;

  return planar_capture_session_get_host (planar_capture_dialog_get_session (dialog), 0)->state
         == PLANAR_CAPTURE_HOST_SAVED;
}

static gboolean
capture_ended (gpointer data)
{
  GtkButton *capture_button = data;

  return gtk_widget_get_visible (GTK_WIDGET (capture_button));
}

/* What the progress bar says, as GTK draws it: its text, or the
 * percentage GTK writes when it has none; NULL when it shows no text. */
static char *
dup_progress_text (GtkProgressBar *bar)
{
  if (!gtk_progress_bar_get_show_text (bar))
    return NULL;
  if (gtk_progress_bar_get_text (bar) != NULL)
    return g_strdup (gtk_progress_bar_get_text (bar));
  return g_strdup_printf ("%.0f %%", gtk_progress_bar_get_fraction (bar) * 100.0);
}

typedef struct
{
  PlanarWindow   *window;
  GtkProgressBar *bar;
  guint           n_samples;
} ProgressWatch;

/* Each look at the bar during the load: never "100 %" before the profile
 * is whole, never "0 %". */
static gboolean
progress_checked_until_loaded (gpointer data)
{
  ProgressWatch *watch = data;
  g_autofree char *text = dup_progress_text (watch->bar);
  PlanarProfile *profile = planar_window_get_profile (watch->window);

  if (planar_window_get_loading (watch->window) && gtk_widget_get_mapped (GTK_WIDGET (watch->bar)))
    {
      watch->n_samples++;
      if (text != NULL && (profile == NULL || !planar_profile_is_loaded (profile)))
        g_assert_cmpstr (text, !=, "100 %");
      g_assert_cmpstr (text, !=, "0 %");
    }
  return window_loaded (watch->window);
}

/* The progress bar tells the truth: the rule, then a cached reopen (no
 * bytes to count: a pulse, not "0 %") watched as it loads. */
static void
test_progress_truth (void)
{
  g_autofree char *cache_dir = g_build_filename (tmp_dir, "progress-cache", NULL);
  g_autofree char *text = NULL;
  ProgressWatch watch = { 0 };
  double shown = -1.0;

  /* Every byte read, the index still being built. */
  text = _planar_window_progress_text (1.0, FALSE, &shown);
  g_assert_nonnull (text);
  g_assert_cmpstr (text, !=, "100 %");
  g_assert_cmpfloat (shown, <, 1.0);
  g_clear_pointer (&text, g_free);
  text = _planar_window_progress_text (0.998, FALSE, &shown);
  g_assert_cmpstr (text, !=, "100 %");
  g_clear_pointer (&text, g_free);
  /* Nothing measurable: no number at all. */
  g_assert_null (_planar_window_progress_text (0.0, FALSE, &shown));
  text = _planar_window_progress_text (0.423, FALSE, &shown);
  g_assert_cmpstr (text, ==, "42 %");
  g_assert_cmpfloat (shown, ==, 0.423);
  g_clear_pointer (&text, g_free);
  text = _planar_window_progress_text (1.0, TRUE, &shown);
  g_assert_cmpstr (text, ==, "100 %");
  g_assert_cmpfloat (shown, ==, 1.0);
  g_clear_pointer (&text, g_free);

  g_unsetenv ("PLANAR_CACHE");
  planar_cache_set_dir (cache_dir);
  planar_cache_set_enabled (TRUE);
  for (guint round = 0; round < 2; round++)
    {
      watch.window = open_path (logdir);
      watch.bar = GTK_PROGRESS_BAR (find_descendant (GTK_WIDGET (watch.window), GTK_TYPE_PROGRESS_BAR));
      g_assert_nonnull (watch.bar);
      wait_for (progress_checked_until_loaded, &watch, 30, "the profile to load, its progress watched");
      destroy_all_windows ();
      planar_cache_wait ();
    }
  planar_cache_set_enabled (FALSE);
  planar_cache_set_dir (NULL);
  g_setenv ("PLANAR_CACHE", "0", TRUE);
}

static gboolean
title_hidden (gpointer data)
{
  return !gtk_widget_get_visible (find_descendant (data, ADW_TYPE_WINDOW_TITLE));
}

static gboolean
window_narrow (gpointer data)
{
  return gtk_widget_get_width (data) > 0 && gtk_widget_get_width (data) <= 600;
}

static gboolean
title_shown (gpointer data)
{
  return !title_hidden (data);
}

/* With a profile open the window shrinks to 600 px wide (half a laptop
 * screen): nothing in the header bar or the panes asks for more. A
 * screenshot is kept in meson-logs/app-e2e (narrow-window.png; under
 * GDK_SCALE=2, narrow-window-scale2.png). */
static void
test_narrow_window (void)
{
  GSettings *settings = planar_application_get_settings (app);
  PlanarWindow *window;
  int min_width = 0, nat_width = 0;
  const char *scale = g_getenv ("GDK_SCALE");

  /* The window opens at 600 px, as the last one closed at that width. */
  destroy_all_windows ();
  g_settings_set_int (settings, "window-width", 600);
  g_settings_set_int (settings, "window-height", 700);
  g_settings_set_boolean (settings, "window-maximized", FALSE);
  window = open_path (logdir);

  wait_loaded (window);
  /* The HiDPI run (tests/meson.build: app-hidpi) draws at twice the
   * pixels: the layout, in logical pixels, is the same. */
  if (scale != NULL && g_str_equal (scale, "2"))
    g_assert_cmpint (gdk_surface_get_scale_factor (gtk_native_get_surface (GTK_NATIVE (window))), ==, 2);
  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, &nat_width, NULL, NULL);
  g_assert_cmpint (min_width, <=, 600);
  wait_for (window_narrow, window, 10, "the window to shrink to 600 px");
  wait_for (title_hidden, window, 10, "the window title to give way");
  save_screenshot (scale != NULL && g_str_equal (scale, "2") ? "narrow-window-scale2.png" : "narrow-window.png",
                   G_USEC_PER_SEC / 2);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 600);
  /* The screenshot has the screen's pixels, as a person with that screen
   * sees the window: twice the logical size under GDK_SCALE=2. */
  if (g_getenv ("PLANAR_E2E_OUTPUT") != NULL)
    {
      g_autofree char *shot = g_build_filename (g_getenv ("PLANAR_E2E_OUTPUT"),
                                                scale != NULL && g_str_equal (scale, "2")
                                                ? "narrow-window-scale2.png" : "narrow-window.png", NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(GdkTexture) texture = gdk_texture_new_from_filename (shot, &error);
      int factor = gtk_widget_get_scale_factor (GTK_WIDGET (window));

      g_assert_no_error (error);
      g_assert_cmpint (gdk_texture_get_width (texture), ==, factor * gtk_widget_get_width (GTK_WIDGET (window)));
      g_assert_cmpint (gdk_texture_get_height (texture), ==, factor * gtk_widget_get_height (GTK_WIDGET (window)));
    }
  /* The header bar gave its title's room to the drop-downs. */
  g_assert_false (gtk_widget_get_visible (find_descendant (GTK_WIDGET (window), ADW_TYPE_WINDOW_TITLE)));
  /* The floating tool palette covers no header's text: beside it, the
   * titles and subtitles end before it (they are cut short, and their
   * tooltips say them whole). */
  {
    PlanarTimeline *timeline = find_timeline (GTK_WIDGET (window));
    graphene_rect_t palette;
    guint n_beside = 0;

    g_assert_nonnull (timeline);
    g_assert_true (gtk_widget_compute_bounds (timeline->tool_selector, GTK_WIDGET (timeline), &palette));
    for (guint r = 0; r < planar_timeline_layout_get_n_rows (timeline->layout); r++)
      {
        const PlanarTimelineRow *row = planar_timeline_layout_get_row (timeline->layout, r);
        double y = _planar_timeline_widget_y (timeline, row->y);

        if ((row->kind != PLANAR_TIMELINE_ROW_SECTION && row->kind != PLANAR_TIMELINE_ROW_HOST) ||
            y >= palette.origin.y + palette.size.height || y + row->height <= palette.origin.y)
          continue;
        g_assert_cmpfloat (_planar_timeline_header_text_end (timeline, y), <=, palette.origin.x);
        n_beside++;
      }
    g_assert_cmpuint (n_beside, >, 0);
  }
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 700);
  wait_for (title_shown, window, 10, "the window title to come back");
  destroy_all_windows ();
}

/* Cancel while one host is saved and another's call is in flight: the
 * call is cancelled, the saved host stays on disk, nothing half-written
 * is left. */
static void
test_capture_cancel (void)
{
  PlanarWindow *window;
  g_autofree char *capture_dir = g_build_filename (tmp_dir, "captures-cancel", NULL);
  g_autofree char *served = g_build_filename (tmp_dir, "cancel-served.xplane.pb", NULL);
  const char *gen_argv[] = { g_getenv ("PLANAR_GEN"), "--events", "1000", "-o", served, NULL };
  g_autoptr(GIOChannel) ok_out = NULL;
  g_autoptr(GIOChannel) stall_out = NULL;
  g_autofree char *ok = NULL;
  g_autofree char *stall = NULL;
  g_autofree char *addresses = NULL;
  int status = 0;
  g_autofree char *line = NULL;
  g_autofree char *folder = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;
  PlanarCaptureDialog *dialog;
  PlanarCaptureSession *session;
  GtkButton *capture_button;

  /* A profile of the test's own making: the samples are not needed. */
  g_assert_true (g_spawn_sync (NULL, (char **) gen_argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                               &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  /* The window shows that profile too, loaded before the servers start
   * counting their idle time (the log directory's newest session, where
   * the samples are missing, is the large one). */
  window = open_path (served);
  wait_loaded (window);
  ok = start_profiler_server ("ok", served, NULL, &ok_out);
  stall = start_profiler_server ("stall", served, "--announce", &stall_out);
  addresses = g_strdup_printf ("%s,%s", ok, stall);
  activate (window, "capture", NULL);
  dialog = find_capture_dialog ();
  g_assert_nonnull (dialog);
  g_object_set (planar_capture_dialog_get_options (dialog), "logdir", capture_dir, "duration-ms", 100, "delay-ms", 0,
                "addresses", addresses, NULL);
  capture_button = GTK_BUTTON (gtk_widget_get_template_child (GTK_WIDGET (dialog), PLANAR_TYPE_CAPTURE_DIALOG,
                                                              "capture_button"));
  gtk_widget_activate_action (GTK_WIDGET (dialog), "capture.start", NULL);
  session = planar_capture_dialog_get_session (dialog);
  g_assert_nonnull (session);
  /* The stalling server has the call; the other host is saved. */
  g_assert_cmpint (g_io_channel_read_line (stall_out, &line, NULL, NULL, NULL), ==, G_IO_STATUS_NORMAL);
  g_assert_true (g_str_has_prefix (line, "CALL "));
  wait_for (first_host_saved, dialog, 60, "the first host to be saved");
  gtk_widget_activate_action (GTK_WIDGET (dialog), "capture.cancel", NULL);
  wait_for (capture_ended, capture_button, 60, "the capture to end");

  g_assert_cmpint (planar_capture_session_get_host (session, 1)->state, ==, PLANAR_CAPTURE_HOST_CANCELLED);
  /* Before the capture ended, the stalling server was told to end its
   * session (else it would refuse captures for the rest of it). Its
   * output ends when it exits, idle: no endless wait. */
  for (;;)
    {
      g_clear_pointer (&line, g_free);
      if (g_io_channel_read_line (stall_out, &line, NULL, NULL, NULL) != G_IO_STATUS_NORMAL)
        g_error ("the stalling server was never told to stop");
      if (strstr (line, "/Terminate") != NULL)
        break;
    }
  g_assert_true (g_file_test (planar_capture_session_get_host (session, 0)->path, G_FILE_TEST_IS_REGULAR));
  folder = g_path_get_dirname (planar_capture_session_get_host (session, 0)->path);
  dir = g_dir_open (folder, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_assert_false (name[0] == '.');
  destroy_all_windows ();
}

static void
print_without_accessibility_chatter (const char *string)
{
  if (g_str_has_prefix (string, "Accessible state changed"))
    return;
  fputs (string, stdout);
  fflush (stdout);
}

/* A host file whose XSpace says it is host "localhost". */
static void
write_localhost_host (const char *dir,
                      const char *name,
                      guint64     start_ns)
{
  XSpace *space = planar_test_space_new ();

  PLANAR_TEST_APPEND (space->hostnames, space->n_hostnames, planar_test_keep_str ("localhost"));
  for (int p = 0; p < 2; p++)
    {
      XPlane *plane = planar_test_space_add_plane (space, p + 1, p == 0 ? "/device:GPU:0" : "/host:CPU");

      planar_test_plane_add_event_metadata (plane, 1, p == 0 ? "kernel" : "step", NULL);
      for (int l = 0; l < 3; l++)
        planar_test_line_add_event (planar_test_plane_add_line (plane, l + 1, p == 0 ? "Stream" : "thread", 10),
                                    1, 1000 * l, 100000);
    }
  planar_test_add_task_environment (space, start_ns);
  g_free (planar_test_write_space (space, dir, name));
}

/* Issue 18 §7: a host that opens but whose events cannot be decoded (a
 * line past what int64 picoseconds hold) no longer refuses the session:
 * the other host opens, the failed one keeps its place as a header, and
 * the message bar says what was lost. */
static void
test_undecodable_host (void)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autofree char *folder = g_build_filename (tmp_dir, "undecodable-host", "plugins", "profile", NEWEST, NULL);
  PlanarProfile *profile;
  PlanarWindow *window;
  const char *line;
  guint n_pending = 0, n_loaded = 0;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  planar_test_scratch_begin ();
  write_localhost_host (folder, "worker0.xplane.pb", start);
  {
    XSpace *space = planar_test_space_new ();
    XPlane *plane = planar_test_space_add_plane (space, 1, "/host:CPU");

    planar_test_plane_add_event_metadata (plane, 1, "step", NULL);
    planar_test_line_add_event (planar_test_plane_add_line (plane, 1, "thread", G_GINT64_CONSTANT (9300000000000000)),
                                1, 0, 1);
    planar_test_add_task_environment (space, start);
    g_free (planar_test_write_space (space, folder, "worker1.xplane.pb"));
  }
  planar_test_scratch_end ();

  window = open_path (folder);
  wait_loaded (window);
  profile = planar_window_get_profile (window);
  g_assert_cmpuint (planar_profile_get_n_traces (profile), ==, 2);
  g_assert_cmpint (planar_profile_get_trace_state (profile, 0), ==, PLANAR_PROFILE_TRACE_LOADED);
  g_assert_cmpint (planar_profile_get_trace_state (profile, 1), ==, PLANAR_PROFILE_TRACE_FAILED);
  line = planar_message_bar_get_text (window->message_bar, MESSAGE_FILE_CUT);
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, "worker1.xplane.pb could not be decoded and is left out"));
  count_host_sections (window, 1, &n_pending, &n_loaded);
  g_assert_cmpuint (n_pending, ==, 1);
  g_assert_cmpuint (n_loaded, ==, 0);
  count_host_sections (window, 0, &n_pending, &n_loaded);
  g_assert_cmpuint (n_pending, ==, 0);
  g_assert_cmpuint (n_loaded, ==, 2);
  destroy_all_windows ();
}

static char *section_store;

static gboolean
store_rekeyed (gpointer data)
{
  g_autofree char *contents = NULL;

  return g_file_get_contents (section_store, &contents, NULL, NULL) &&
         strstr (contents, "localhost|") == NULL && strstr (contents, "worker1|/host:CPU") != NULL;
}

static gboolean
worker1_cpu_open (gpointer data)
{
  PlanarTimelineLayout *layout = ((PlanarWindow *) data)->timeline->layout;
  int s = planar_timeline_layout_find_section (layout, "worker1|/host:CPU");

  return s >= 0 && !planar_timeline_layout_get_section (layout, (guint) s)->collapsed;
}

/* Two hosts of a session whose files both say "localhost": the sections
 * carry the file's host name (worker0, worker1) with the hostname as
 * detail; what was remembered under "localhost" is re-keyed to both files
 * and saved so; then a real click on worker1's CPU header opens it alone. */
static void
test_same_hostname (void)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autofree char *folder = g_build_filename (tmp_dir, "same-hostname", "plugins", "profile", NEWEST, NULL);
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  PlanarTimelineLayout *layout;
  PlanarWindow *window;
  const char *legacy[] = { "localhost|/host:CPU", NULL };
  g_autoptr(GHashTable) titles = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *store_dir = NULL;
  int s0;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  planar_test_scratch_begin ();
  write_localhost_host (folder, "worker0.xplane.pb", start);
  write_localhost_host (folder, "worker1.xplane.pb", start);
  planar_test_scratch_end ();
  /* Remembered the old way: by the in-file hostname. */
  section_store = planar_view_state_get_default_store ();
  g_key_file_load_from_file (keyfile, section_store, G_KEY_FILE_NONE, NULL);
  g_key_file_set_string_list (keyfile, folder, "collapsed-sections", legacy, 1);
  store_dir = g_path_get_dirname (section_store);
  g_assert_cmpint (g_mkdir_with_parents (store_dir, 0700), ==, 0);
  g_assert_true (g_key_file_save_to_file (keyfile, section_store, &error));
  g_assert_no_error (error);

  window = open_path (folder);
  wait_loaded (window);
  wait_for (store_rekeyed, NULL, 10, "the state kept under 'localhost' to be saved per host file");
  layout = window->timeline->layout;
  g_assert_cmpuint (planar_timeline_layout_get_n_sections (layout), ==, 4);
  for (guint s = 0; s < 4; s++)
    {
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (layout, s);

      g_assert_true (g_hash_table_add (titles, section->title));
      g_assert_true (g_str_has_prefix (section->title, "worker0 · ") || g_str_has_prefix (section->title, "worker1 · "));
      g_assert_nonnull (strstr (section->subtitle, "localhost"));
      g_assert_cmpint (section->collapsed, ==, g_str_has_suffix (section->id, "/host:CPU"));
    }
  save_screenshot ("same-hostname.png", G_USEC_PER_SEC / 2);

  click_section_header (window, "worker1|/host:CPU");
  wait_for (worker1_cpu_open, window, 10, "the click to open worker1's CPU");
  s0 = planar_timeline_layout_find_section (layout, "worker0|/host:CPU");
  g_assert_cmpint (s0, >=, 0);
  g_assert_true (planar_timeline_layout_get_section (layout, (guint) s0)->collapsed);
  save_screenshot ("same-hostname-one-open.png", G_USEC_PER_SEC / 2);

  destroy_all_windows ();
  g_clear_pointer (&section_store, g_free);
}

static gboolean
host0_collapsed (gpointer data)
{
  PlanarTimelineLayout *layout = ((PlanarWindow *) data)->timeline->layout;

  return planar_timeline_layout_get_n_hosts (layout) == 2 && planar_timeline_layout_get_host (layout, 0)->collapsed;
}

static gboolean
host0_open (gpointer data)
{
  return !host0_collapsed (data);
}

/* A session of two hosts shows each as a group of its sections under a
 * header; a real click on worker0's header folds all its sections (its
 * header stays, worker1 is untouched), the fold is remembered for the host
 * file when the session opens again, and another click unfolds it. */
static void
test_host_groups (void)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autofree char *folder = g_build_filename (tmp_dir, "host-groups", "plugins", "profile", NEWEST, NULL);
  PlanarTimelineLayout *layout;
  const PlanarTimelineHost *host;
  PlanarWindow *window;
  guint n_rows;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  planar_test_scratch_begin ();
  write_localhost_host (folder, "worker0.xplane.pb", start);
  write_localhost_host (folder, "worker1.xplane.pb", start);
  planar_test_scratch_end ();

  window = open_path (folder);
  wait_loaded (window);
  layout = window->timeline->layout;
  g_assert_cmpuint (planar_timeline_layout_get_n_hosts (layout), ==, 2);
  host = planar_timeline_layout_get_host (layout, 0);
  g_assert_cmpstr (host->title, ==, "worker0 (localhost)");
  g_assert_cmpuint (host->n_sections, ==, 2);
  g_assert_cmpint (planar_timeline_layout_get_row (layout, 0)->kind, ==, PLANAR_TIMELINE_ROW_HOST);
  n_rows = planar_timeline_layout_get_n_rows (layout);
  save_screenshot ("host-groups.png", G_USEC_PER_SEC / 2);

  click_row_header (window, planar_timeline_layout_get_row (layout, host->row));
  wait_for (host0_collapsed, window, 10, "the click to fold worker0");
  g_assert_cmpuint (planar_timeline_layout_get_section (layout, 0)->row, ==, G_MAXUINT);
  g_assert_cmpuint (planar_timeline_layout_get_section (layout, 1)->row, ==, G_MAXUINT);
  g_assert_false (planar_timeline_layout_get_host (layout, 1)->collapsed);
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), <, n_rows);
  g_assert_true (planar_view_state_get_section_collapsed (planar_timeline_get_view_state (window->timeline), "worker0|*"));
  save_screenshot ("host-groups-folded.png", G_USEC_PER_SEC / 2);

  /* Remembered for the host file. */
  destroy_all_windows ();
  window = open_path (folder);
  wait_loaded (window);
  layout = window->timeline->layout;
  wait_for (host0_collapsed, window, 10, "worker0 to open folded again");

  click_row_header (window, planar_timeline_layout_get_row (layout, planar_timeline_layout_get_host (layout, 0)->row));
  wait_for (host0_open, window, 10, "the click to unfold worker0");
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, n_rows);

  destroy_all_windows ();
}

/* ------------------------------------------------------------------------
 * Inside the Flatpak sandbox (planar-sandbox.h), faked: PLANAR_FLATPAK_INFO
 * names a .flatpak-info of the tests' own, PLANAR_DOCUMENT_PORTAL_DIR a
 * folder standing for the document portal's.
 * ------------------------------------------------------------------------ */

/* Runs what the main loop has pending, as a person's next look would see. */
static void
sandbox_drain (void)
{
  for (guint i = 0; i < 50 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

/* Pretends to run in a Flatpak started by @flatpak_version (NULL: not in
 * one). */
static void
fake_sandbox (const char *flatpak_version)
{
  g_autofree char *info = g_build_filename (tmp_dir, "flatpak-info", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  if (flatpak_version == NULL)
    {
      g_setenv ("PLANAR_FLATPAK_INFO", "", TRUE);
      return;
    }
  text = g_strdup_printf ("[Application]\nname=dev.planar.Planar\n\n[Instance]\nflatpak-version=%s\n",
                          flatpak_version);
  g_assert_true (g_file_set_contents (info, text, -1, &error));
  g_assert_no_error (error);
  g_setenv ("PLANAR_FLATPAK_INFO", info, TRUE);
}

static gboolean
toast_says_captured (gpointer data)
{
  return find_label_with_prefix (GTK_WIDGET (data), "Captured into ~/planar/captures/plugins/profile/") != NULL;
}

/* Inside the sandbox captures default to $XDG_DATA_HOME/planar/captures
 * (the home folder there is not the user's), the dialog shows it, and the
 * window's toast says where the session went. */
static void
test_sandbox_capture_folder (void)
{
  g_autofree char *sample = planar_test_sample_path ("xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb");
  g_autofree char *xspace_arg = g_strdup_printf ("--xspace=%s", sample);
  g_autofree char *expected = g_build_filename (g_get_user_data_dir (), "planar", "captures", NULL);
  g_autofree char *outside = g_build_filename (g_get_home_dir (), "planar-logs", NULL);
  const char *argv[] = { g_getenv ("PLANAR_TEST_PROFILER_SERVER"), "--mode=ok", xspace_arg, "--idle-ms=5000", NULL };
  GSettings *settings = planar_application_get_settings (app);
  g_autoptr(GIOChannel) channel = NULL;
  g_autofree char *line = NULL;
  g_autofree char *address = NULL;
  g_autofree char *logdir_shown = NULL;
  g_autofree char *default_logdir = NULL;
  g_autofree char *outside_logdir = NULL;
  g_autoptr(GError) error = NULL;
  PlanarCaptureDialog *dialog;
  PlanarWindow *window;
  GPid pid;
  int out = -1;

  g_settings_reset (settings, "capture-logdir");
  window = planar_application_new_window (app);
  gtk_window_present (GTK_WINDOW (window));

  fake_sandbox (NULL);
  outside_logdir = _planar_window_dup_capture_logdir (window);
  g_assert_cmpstr (outside_logdir, ==, outside);
  fake_sandbox ("1.16.0");
  default_logdir = _planar_window_dup_capture_logdir (window);
  g_assert_cmpstr (default_logdir, ==, expected);

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &pid, NULL,
                                           &out, NULL, &error));
  channel = g_io_channel_unix_new (out);
  g_io_channel_set_close_on_unref (channel, TRUE);
  g_assert_cmpint (g_io_channel_read_line (channel, &line, NULL, NULL, &error), ==, G_IO_STATUS_NORMAL);
  address = g_strdup_printf ("127.0.0.1:%d", atoi (line + strlen ("PORT ")));

  activate (window, "capture", NULL);
  dialog = find_capture_dialog ();
  g_assert_nonnull (dialog);
  g_object_get (planar_capture_dialog_get_options (dialog), "logdir", &logdir_shown, NULL);
  g_assert_cmpstr (logdir_shown, ==, expected);
  g_object_set (planar_capture_dialog_get_options (dialog), "addresses", address, "duration-ms", 100, NULL);
  save_screenshot ("sandbox-capture-dialog.png", G_USEC_PER_SEC / 2);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "capture.start", NULL);
  g_assert_nonnull (planar_capture_dialog_get_session (dialog));
  wait_for (window_shows_capture, window, 60, "the captured session to open");
  g_assert_true (g_str_has_prefix (g_file_peek_path (window->file), expected));
  wait_for (toast_says_captured, window, 10, "the toast saying where the capture went");
  save_screenshot ("sandbox-captured-toast.png", G_USEC_PER_SEC / 4);

  g_unsetenv ("PLANAR_FLATPAK_INFO");
  g_settings_reset (settings, "capture-logdir");
  destroy_all_windows ();
}

/* "Open With" on a folder the document portal could not pass: the
 * window says why in words (what is needed, what to do) instead of an
 * error about a missing file. */
static void
test_sandbox_folder_message (void)
{
  g_autofree char *folder = g_build_filename (tmp_dir, "not-forwarded", "logs", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  PlanarWindow *window;
  const char *text;
  GtkWidget *button;

  fake_sandbox ("1.16.0");
  g_application_open (G_APPLICATION (app), &file, 1, "");
  window = PLANAR_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);
  sandbox_drain ();
  g_assert_null (find_message_dialog (window));
  text = planar_message_bar_get_text (window->message_bar, MESSAGE_SESSION_FOLDER);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, folder));
  g_assert_nonnull (strstr (text, "Flatpak 1.18 or later"));
  g_assert_nonnull (strstr (text, "xdg-desktop-portal 1.7"));
  button = planar_message_bar_get_button (window->message_bar, MESSAGE_SESSION_FOLDER);
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "win.open-folder");
  g_assert_true (planar_window_is_empty (window));
  save_screenshot ("sandbox-folder-message.png", G_USEC_PER_SEC / 2);
  destroy_all_windows ();

  /* A Flatpak that forwards folders, and the path still unseen. */
  fake_sandbox ("1.18.2");
  g_application_open (G_APPLICATION (app), &file, 1, "");
  window = PLANAR_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  sandbox_drain ();
  text = planar_message_bar_get_text (window->message_bar, MESSAGE_SESSION_FOLDER);
  g_assert_nonnull (text);
  g_assert_null (strstr (text, "Flatpak 1.18"));
  g_assert_nonnull (strstr (text, "sandbox"));
  destroy_all_windows ();

  /* Outside the sandbox a missing path is an error, as before. */
  fake_sandbox (NULL);
  g_application_open (G_APPLICATION (app), &file, 1, "");
  window = PLANAR_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  wait_for (has_message_dialog, window, 10, "the error about the missing folder");
  g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_SESSION_FOLDER));
  g_unsetenv ("PLANAR_FLATPAK_INFO");
  destroy_all_windows ();
}

static gboolean
has_folder_chooser (gpointer data)
{
  GtkWindow *chooser = find_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG);

  return chooser != NULL && gtk_file_chooser_get_action (GTK_FILE_CHOOSER (chooser)) == GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
         && has_current_folder (chooser);
}

/* Cancels the folder chooser of win.open-session-folder and returns the
 * folder it started in. Returns: (transfer full). */
static char *
session_folder_chooser_start (PlanarWindow *window)
{
  GtkWindow *chooser;
  g_autoptr(GFile) current = NULL;

  activate (window, "open-session-folder", NULL);
  wait_for (has_folder_chooser, NULL, 10, "the session folder chooser");
  chooser = find_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG);
  g_assert_true (gtk_window_get_transient_for (chooser) == GTK_WINDOW (window));
  g_assert_cmpstr (gtk_window_get_title (chooser), ==, "Open the Whole Session Folder");
  current = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  sandbox_drain ();
  return g_file_get_path (current);
}

/* A host file the document portal passed alone: the window offers "Open
 * the Whole Session Folder…", a folder chooser at the file's folder on
 * the host where the portal says it, else at the last folder. */
static void
test_sandbox_session_folder (void)
{
  g_autofree char *portal = g_build_filename (tmp_dir, "doc", NULL);
  g_autofree char *document = g_build_filename (portal, "7f3a9c", NULL);
  g_autofree char *host_file = g_build_filename (document, "worker0.xplane.pb", NULL);
  g_autofree char *host_session = g_build_filename (tmp_dir, "host-logs", "plugins", "profile", "2026_01_01_00_00_00", NULL);
  g_autofree char *host_path = g_build_filename (host_session, "worker0.xplane.pb", NULL);
  g_autofree char *last = g_build_filename (tmp_dir, "last-folder", NULL);
  g_autofree char *started = NULL;
  const char *gen_argv[] = { g_getenv ("PLANAR_GEN"), "--events", "1000", "-o", host_file, NULL };
  GSettings *settings = planar_application_get_settings (app);
  g_autoptr(GFile) file = g_file_new_for_path (host_file);
  g_autoptr(GError) error = NULL;
  PlanarWindow *window;
  GtkWidget *button;
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (document, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (host_session, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (last, 0755), ==, 0);
  g_assert_true (g_spawn_sync (NULL, (char **) gen_argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_setenv ("PLANAR_DOCUMENT_PORTAL_DIR", portal, TRUE);

  /* Outside the sandbox the file is opened as it is. */
  fake_sandbox (NULL);
  window = open_path (host_file);
  wait_loaded (window);
  g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_SESSION_FOLDER));
  destroy_all_windows ();

  /* Inside, opening the file leaves the last folder alone: the portal's
   * folder of one document is no place to start a chooser in. */
  g_settings_set_string (settings, "last-folder", last);
  fake_sandbox ("1.18.2");
  window = open_path (host_file);
  wait_loaded (window);
  g_assert_nonnull (planar_message_bar_get_text (window->message_bar, MESSAGE_SESSION_FOLDER));
  button = planar_message_bar_get_button (window->message_bar, MESSAGE_SESSION_FOLDER);
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "win.open-session-folder");
  save_screenshot ("sandbox-session-folder-offer.png", G_USEC_PER_SEC / 2);

  /* The portal does not say where the file is on the host: the last folder. */
  started = session_folder_chooser_start (window);
  g_assert_cmpstr (started, ==, last);
  g_clear_pointer (&started, g_free);

  /* It does (xdg-desktop-portal's host-path attribute): the file's folder there. */
  if (!g_file_set_attribute_string (file, "xattr::document-portal.host-path", host_path, G_FILE_QUERY_INFO_NONE,
                                    NULL, &error))
    g_test_message ("user extended attributes are not supported here (%s): the host-path case is not checked",
                    error->message);
  else
    {
      started = session_folder_chooser_start (window);
      g_assert_cmpstr (started, ==, host_session);
    }
  g_clear_error (&error);

  /* Choosing the folder opens the whole session in this window. */
  {
    g_autoptr(GFile) session = g_file_new_for_path (host_session);
    g_autoptr(GFile) copy = g_file_new_for_path (host_path);
    GtkWindow *chooser;

    g_assert_true (g_file_copy (file, copy, G_FILE_COPY_NONE, NULL, NULL, NULL, &error));
    g_assert_no_error (error);
    activate (window, "open-session-folder", NULL);
    wait_for (has_folder_chooser, NULL, 10, "the session folder chooser");
    chooser = find_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG);
    g_assert_true (gtk_file_chooser_set_file (GTK_FILE_CHOOSER (chooser), session, NULL));
    gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
    wait_loaded (window);
    g_assert_cmpstr (g_file_peek_path (window->file), ==, host_session);
    g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_SESSION_FOLDER));
  }

  /* A file outside the portal's folder sees its siblings: nothing to offer. */
  g_unsetenv ("PLANAR_DOCUMENT_PORTAL_DIR");
  planar_window_open (window, file);
  wait_loaded (window);
  g_assert_null (planar_message_bar_get_text (window->message_bar, MESSAGE_SESSION_FOLDER));

  g_unsetenv ("PLANAR_FLATPAK_INFO");
  g_settings_reset (settings, "last-folder");
  destroy_all_windows ();
}

/* Holds a load at "trace-deriving" (the file's tracks shown, the derive
 * pass not run) until released. */
typedef struct
{
  GMutex                 lock;
  GCond                  cond;
  gboolean               reached;
  gboolean               released;
  PlanarTimeline        *timeline;
  guint                  n_reserved;
  PlanarTraceTestOptions options;
} DeriveGate;

static void
derive_gate_hook (const char *point,
                  const char *path,
                  gpointer    data)
{
  DeriveGate *gate = data;

  if (strcmp (point, "trace-deriving") != 0)
    return;
  g_mutex_lock (&gate->lock);
  gate->reached = TRUE;
  while (!gate->released)
    g_cond_wait (&gate->cond, &gate->lock);
  g_mutex_unlock (&gate->lock);
}

/* The window made its profile and is about to load it: the gate goes on
 * its host's load. */
static void
gate_profile (PlanarWindow *window,
              GParamSpec   *pspec,
              DeriveGate   *gate)
{
  PlanarProfile *profile = planar_window_get_profile (window);

  if (profile != NULL)
    _planar_trace_loader_set_test_options (_planar_profile_get_loader (profile, 0), &gate->options);
}

static guint
count_rows_of_kind (PlanarTimeline        *timeline,
                    PlanarTimelineRowKind  kind)
{
  guint n = 0;

  for (guint r = 0; r < planar_timeline_layout_get_n_rows (timeline->layout); r++)
    n += planar_timeline_layout_get_row (timeline->layout, r)->kind == kind;
  return n;
}

static int
host_cpu_y (PlanarTimeline *timeline)
{
  for (guint s = 0; s < planar_timeline_layout_get_n_sections (timeline->layout); s++)
    {
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (timeline->layout, s);

      if (strcmp (section->title, "Host CPU") == 0 && section->row != G_MAXUINT)
        return planar_timeline_layout_get_row (timeline->layout, section->row)->y;
    }
  return -1;
}

/* Held before deriving: the timeline shows the file's tracks, with room
 * for the derived lines to come, and the Host CPU section below. */
static gboolean
shows_reserved_rows (gpointer data)
{
  DeriveGate *gate = data;
  gboolean reached;

  g_mutex_lock (&gate->lock);
  reached = gate->reached;
  g_mutex_unlock (&gate->lock);
  return reached && host_cpu_y (gate->timeline) > 0 &&
         count_rows_of_kind (gate->timeline, PLANAR_TIMELINE_ROW_RESERVED) > 0;
}

static gboolean
shows_all_reserved_rows (gpointer data)
{
  DeriveGate *gate = data;

  return count_rows_of_kind (gate->timeline, PLANAR_TIMELINE_ROW_RESERVED)
         + planar_timeline_layout_get_n_held (gate->timeline->layout) >= gate->n_reserved;
}

static gboolean
shows_derived_rows (gpointer data)
{
  DeriveGate *gate = data;

  return count_rows_of_kind (gate->timeline, PLANAR_TIMELINE_ROW_RESERVED) == 0;
}

/* The window as drawn now, once settled, saved as @name (in
 * PLANAR_E2E_OUTPUT for a person to look at, else in the test's folder)
 * and read back: one pixel per window unit. */
static GdkTexture *
window_shot (const char *name)
{
  const char *dir = g_getenv ("PLANAR_E2E_OUTPUT") != NULL ? g_getenv ("PLANAR_E2E_OUTPUT") : tmp_dir;
  g_autofree char *shot = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  GdkTexture *texture;

  g_mkdir_with_parents (dir, 0755);
  g_unlink (shot);
  for (guint i = 0; i < 100 && !g_file_test (shot, G_FILE_TEST_IS_REGULAR); i++)
    {
      gint64 until = g_get_monotonic_time () + (i == 0 ? G_USEC_PER_SEC / 2 : 50000);

      while (g_get_monotonic_time () < until)
        g_main_context_iteration (NULL, FALSE);
      g_action_group_activate_action (G_ACTION_GROUP (app), "debug-screenshot", g_variant_new_string (shot));
    }
  texture = gdk_texture_new_from_filename (shot, &error);
  g_assert_no_error (error);
  return texture;
}

/* Whether the @height window rows from @ya in @a show the same pixels as
 * those from @yb in @b, between window x @x0 and @x1. */
static gboolean
same_pixels (GdkTexture *a,
             int         ya,
             GdkTexture *b,
             int         yb,
             int         x0,
             int         x1,
             int         height)
{
  int width = gdk_texture_get_width (a);
  g_autofree guchar *pa = g_malloc ((gsize) width * (gsize) gdk_texture_get_height (a) * 4);
  g_autofree guchar *pb = g_malloc ((gsize) width * (gsize) gdk_texture_get_height (b) * 4);

  g_assert_cmpint (gdk_texture_get_width (b), ==, width);
  g_assert_cmpint (ya + height, <=, gdk_texture_get_height (a));
  g_assert_cmpint (yb + height, <=, gdk_texture_get_height (b));
  g_assert_cmpint (x1, <=, width);
  gdk_texture_download (a, pa, (gsize) width * 4);
  gdk_texture_download (b, pb, (gsize) width * 4);
  for (int y = 0; y < height; y++)
    if (memcmp (pa + ((gsize) (ya + y) * width + x0) * 4, pb + ((gsize) (yb + y) * width + x0) * 4,
                (gsize) (x1 - x0) * 4) != 0)
      return FALSE;
  return TRUE;
}

/* Where content y @y of the timeline is in the window now. */
static int
window_y (PlanarWindow *window,
          int           y)
{
  graphene_point_t point;

  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (window->timeline), GTK_WIDGET (window),
                                           &GRAPHENE_POINT_INIT (0, (float) _planar_timeline_widget_y (window->timeline, y)),
                                           &point));
  return (int) point.y;
}

static int
timeline_x (PlanarWindow *window)
{
  graphene_point_t point;

  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (window->timeline), GTK_WIDGET (window),
                                           &GRAPHENE_POINT_INIT (0, 0), &point));
  return (int) point.x;
}

static gboolean
loading_bar_gone (gpointer data)
{
  PlanarWindow *window = data;

  return !gtk_revealer_get_reveal_child (window->progress_revealer) &&
         !gtk_revealer_get_child_revealed (window->progress_revealer);
}

/* Opens @path in a new window whose load is held before deriving, once the
 * timeline shows the file's tracks with @n_reserved rows kept. */
static PlanarWindow *
open_held (const char *path,
           DeriveGate *gate,
           guint       n_reserved)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  PlanarWindow *window;
  gulong handler;

  g_mutex_init (&gate->lock);
  g_cond_init (&gate->cond);
  gate->options.test_hook = derive_gate_hook;
  gate->options.test_hook_data = gate;
  gate->options.spill = -1;
  window = planar_application_new_window (app);
  handler = g_signal_connect (window, "notify::profile", G_CALLBACK (gate_profile), gate);
  g_assert_true (planar_application_open_file (app, file, window) == window);
  gtk_window_present (GTK_WINDOW (window));
  wait_for (widget_mapped, window, 30, "the window to show");
  gate->timeline = find_timeline (GTK_WIDGET (window));
  g_assert_nonnull (gate->timeline);
  wait_for (shows_reserved_rows, gate, 30, "the file's tracks with room for the derived lines");
  /* The HLO's lines are predicted once the HLO is read, which comes
   * before the gate but reaches the timeline in an idle of its own: when
   * the file's tracks were drawn before it (under ASan), their room comes
   * then (/layout/derived-reserved-late-hlo). Lines that arrive where the
   * user looks unpredicted wait there (held): either way every line to
   * come has its room or waits. */
  gate->n_reserved = n_reserved;
  {
    gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

    while (!shows_all_reserved_rows (gate))
      {
        if (g_get_monotonic_time () > end)
          g_error ("Timed out waiting for room for every derived line: %u reserved rows, %u lines held, %u wanted",
                   count_rows_of_kind (gate->timeline, PLANAR_TIMELINE_ROW_RESERVED),
                   planar_timeline_layout_get_n_held (gate->timeline->layout), n_reserved);
        g_main_context_iteration (NULL, FALSE);
        g_usleep (1000);
      }
  }
  g_signal_handler_disconnect (window, handler);
  g_assert_cmpuint (count_rows_of_kind (gate->timeline, PLANAR_TIMELINE_ROW_RESERVED)
                    + planar_timeline_layout_get_n_held (gate->timeline->layout), ==, n_reserved);
  return window;
}

/* Lets the held load derive and finish: its loading bar gone. */
static void
release_held (PlanarWindow *window,
              DeriveGate   *gate)
{
  g_mutex_lock (&gate->lock);
  gate->released = TRUE;
  g_cond_broadcast (&gate->cond);
  g_mutex_unlock (&gate->lock);
  wait_loaded (window);
  wait_for (loading_bar_gone, window, 30, "the loading bar to go");
}

/* A GPU stream whose kernels carry their module from the first, and an op
 * only on the last, past the sample the prediction reads: its XLA Ops line
 * is not told before it arrives. Below it, the host's 40 threads. */
static char *
write_late_op_profile (void)
{
  XSpace *space = planar_test_space_new ();
  PlanarTestPlane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  PlanarTestPlane *host = planar_test_named_plane_new (space, 1, "/host:CPU");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < 600; i++)
    {
      XEvent *ev = planar_test_line_add_event (stream, planar_test_named_plane_event_id (gpu, "kernel"),
                                               i * 1000, 500);

      planar_test_named_plane_add_ref (gpu, ev, "kernel_details", "regs:32 grid:1,1,1 block:128,1,1");
      planar_test_named_plane_add_ref (gpu, ev, "hlo_module", "jit_f");
      if (i == 599)
        planar_test_named_plane_add_ref (gpu, ev, "hlo_op", "fusion.1");
    }
  planar_test_named_plane_done (gpu);
  for (guint t = 0; t < 40; t++)
    {
      g_autofree char *name = g_strdup_printf ("thread %02u", t);

      planar_test_line_add_event (planar_test_plane_add_line (host->plane, t + 1, name, 0),
                                  planar_test_named_plane_event_id (host, "op"), t * 1000, 100000);
    }
  planar_test_named_plane_done (host);
  return planar_test_write_space (space, tmp_dir, "late-op.xplane.pb");
}

static gboolean
nothing_held (gpointer data)
{
  return planar_timeline_layout_get_n_held (data) == 0;
}

/* The derived lines of a real profile (XLA Modules and XLA Ops of GPU 0's
 * stream #16) arrive while the window shows its file's tracks: the rows
 * kept for them take them, and the Host CPU section below stays where it
 * was, on screen too: the loading bar, which goes away with the load,
 * floats over the page and moves nothing. Then a line the prediction
 * misses (an op first seen late in its stream) arrives where the user
 * looks: it waits, and nothing on screen moves, until the real mouse
 * wheel scrolls its place off. Compared in real pixels of screenshots
 * (derived-reserved.png, derived-arrived.png, derived-late-held.png,
 * derived-late-arrived.png, derived-late-scrolled.png; kept in
 * meson-logs/app-e2e). */
static void
test_derived_rows_still (void)
{
  g_autofree char *sample = planar_test_sample_path ("tracelens_mi300_jax08_attention_tw003.xplane.pb");
  g_autofree char *late = NULL;
  g_autoptr(GdkTexture) reserved = NULL, arrived = NULL, held = NULL, came = NULL, scrolled = NULL;
  g_autofree char *title = NULL, *x = NULL, *y = NULL;
  DeriveGate gate = { 0 }, late_gate = { 0 };
  PlanarWindow *window;
  int y_before, y_after, win_before, win_after, x0;
  double sx, sy;

  if (sample == NULL)
    return;
  destroy_all_windows ();
  /* GPU 0's one stream: XLA Modules and XLA Ops from its kernels'
   * annotations, and Framework Name Scope, Framework Ops and Source code
   * from the program's HLO, read before the gate. */
  window = open_held (sample, &gate, 5);
  g_assert_true (gtk_revealer_get_reveal_child (window->progress_revealer));
  y_before = host_cpu_y (gate.timeline);
  win_before = window_y (window, y_before);
  reserved = window_shot ("derived-reserved.png");

  release_held (window, &gate);
  wait_for (shows_derived_rows, &gate, 30, "the derived lines");
  y_after = host_cpu_y (gate.timeline);
  g_assert_cmpint (y_after, ==, y_before);
  /* Nor does the timeline move in the window when the bar goes. */
  win_after = window_y (window, y_after);
  g_assert_cmpint (win_after, ==, win_before);
  arrived = window_shot ("derived-arrived.png");
  /* The Host CPU header's label, and the file's stream rows above it (the
   * first 30 px of the section: its header), pixel for pixel. */
  x0 = timeline_x (window);
  g_assert_true (same_pixels (reserved, win_before, arrived, win_after, x0 + 1, x0 + 200,
                              PLANAR_TIMELINE_SECTION_HEIGHT));
  g_assert_true (same_pixels (reserved, window_y (window, 0), arrived, window_y (window, 0), x0 + 1, x0 + 200,
                              PLANAR_TIMELINE_SECTION_HEIGHT));
  destroy_all_windows ();
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);

  /* A line not predicted: XLA Modules is, XLA Ops is not. */
  planar_test_scratch_begin ();
  late = write_late_op_profile ();
  planar_test_scratch_end ();
  window = open_held (late, &late_gate, 1);
  y_before = host_cpu_y (late_gate.timeline);
  win_before = window_y (window, y_before);
  held = window_shot ("derived-late-held.png");
  release_held (window, &late_gate);
  came = window_shot ("derived-late-arrived.png");
  /* XLA Ops waits: the host's header and threads on screen have not
   * moved. */
  g_assert_cmpint (host_cpu_y (late_gate.timeline), ==, y_before);
  win_after = window_y (window, host_cpu_y (late_gate.timeline));
  g_assert_cmpint (win_after, ==, win_before);
  x0 = timeline_x (window);
  g_assert_true (same_pixels (held, win_before, came, win_after, x0 + 1, x0 + 200,
                              PLANAR_TIMELINE_SECTION_HEIGHT + 5 * (2 * PLANAR_TIMELINE_TRACK_PADDING + PLANAR_TIMELINE_DEPTH_PITCH)));
  g_assert_cmpuint (planar_timeline_layout_get_n_held (window->timeline->layout), ==, 1);

  /* The wheel scrolls the GPU off: XLA Ops comes in above what is seen. */
  gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
  x = g_strdup_printf ("%d", (int) (x0 + sx + 400));
  y = g_strdup_printf ("%d", (int) (win_before + sy + 40));
  title = window_title_pattern (GTK_WINDOW (window));
  xdotool_run ("search", "--sync", "--name", title, "mousemove", "--window", "%1", "--sync", x, y, NULL);
  for (guint i = 0; i < 20 && !nothing_held (window->timeline->layout); i++)
    {
      xdotool_run ("click", "5", NULL);
      for (guint k = 0; k < 20; k++)
        g_main_context_iteration (NULL, FALSE);
    }
  wait_for (nothing_held, window->timeline->layout, 10, "XLA Ops to come in");
  g_assert_nonnull (planar_plane_find_track (planar_trace_get_plane (planar_profile_get_trace (window->timeline->profile, 0), 0),
                                             "XLA Ops - from #7"));
  g_assert_cmpint (planar_timeline_layout_find_track (window->timeline->layout, 0, 0, 2), >=, 0);
  scrolled = window_shot ("derived-late-scrolled.png");
  destroy_all_windows ();
  g_mutex_clear (&late_gate.lock);
  g_cond_clear (&late_gate.cond);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *home = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("PLANAR_GEN") == NULL)
    g_error ("PLANAR_GEN must be set (meson test sets it)");

  make_logdirs ();
  /* Recent files and the like go to the test's own folder, not the user's. */
  home = g_build_filename (tmp_dir, "home", NULL);
  g_assert_cmpint (g_mkdir_with_parents (home, 0755), ==, 0);
  g_setenv ("HOME", home, TRUE);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_setenv ("XDG_CONFIG_HOME", home, TRUE);
  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("XDG_STATE_HOME", home, TRUE);

  /* The test context keeps accessible properties, for
   * gtk_test_accessible_has_property(), and like "none" needs no
   * accessibility bus. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  /* app.debug-screenshot, for the screenshots kept for a person. */
  g_setenv ("PLANAR_DEBUG_ACTIONS", "1", TRUE);
  g_set_print_handler (print_without_accessibility_chatter);

  gtk_disable_setlocale ();
  setlocale (LC_ALL, "C.UTF-8");
  gtk_init ();

  app = planar_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);

  /* The cases on the log directory of real samples (make_logdirs()) only
   * skip in a clone without the samples. */
  g_test_add_func ("/app/welcome", test_welcome);
  g_test_add_func ("/app/file-chooser", test_file_chooser);
  g_test_add_func ("/app/path-opens-profile-page", test_path_opens_profile_page);
  g_test_add_func ("/app/early-load", test_early_load);
  planar_test_add_func_with_samples ("/app/drop", test_drop);
  planar_test_add_func_with_samples ("/app/open-logdir", test_open_logdir);
  planar_test_add_func_with_samples ("/app/open-several", test_open_several);
  planar_test_add_func_with_samples ("/app/switch-sessions-and-hosts", test_switch_sessions_and_hosts);
  planar_test_add_func_with_samples ("/app/tracks-remembered", test_tracks_remembered);
  planar_test_add_func_with_samples ("/app/cancel-load", test_cancel_load);
  planar_test_add_func_with_samples ("/app/broken-file", test_broken_file);
  g_test_add_func ("/app/load-notes", test_load_notes);
  planar_test_add_func_with_samples ("/app/open-session-folder-and-file", test_open_session_folder_and_file);
  planar_test_add_func_with_samples ("/app/new-session-appears", test_new_session_appears);
  planar_test_add_func_with_samples ("/app/accessible-labels", test_accessible_labels);
  planar_test_add_func_with_samples ("/app/settings", test_settings);
  g_test_add_func ("/app/settings-unstorable", test_settings_unstorable);
  g_test_add_func ("/app/shortcuts-shift-tab", test_shortcuts_shift_tab);
  planar_test_add_func_with_samples ("/app/find", test_find);
  planar_test_add_func_with_samples ("/app/details", test_details);
  g_test_add_func ("/app/details-rates-and-groups", test_details_rates_and_groups);
  planar_test_add_func_with_samples ("/app/details-hlo", test_details_hlo);
  planar_test_add_func_with_samples ("/app/op-stats-and-health", test_op_stats_and_health);
  planar_test_add_func_with_samples ("/app/op-stats-costs", test_op_stats_costs);
  g_test_add_func ("/app/health-damaged-stat", test_health_damaged_stat);
  g_test_add_func ("/app/record-options", test_record_options);
  planar_test_add_func_with_samples ("/app/record", test_record);
  planar_test_add_func_with_samples ("/app/record-cupti", test_record_cupti);
  planar_test_add_func_with_samples ("/app/preferences", test_preferences);
  planar_test_add_func_with_samples ("/app/cached-reopen", test_cached_reopen);
  g_test_add_func ("/app/lazy-hosts", test_lazy_hosts);
  g_test_add_func ("/app/same-hostname", test_same_hostname);
  g_test_add_func ("/app/host-groups", test_host_groups);
  g_test_add_func ("/app/lazy-host-error", test_lazy_host_error);
  g_test_add_func ("/app/undecodable-host", test_undecodable_host);
  planar_test_add_func_with_samples ("/app/export-and-open-json", test_export_and_open_json);
  planar_test_add_func_with_samples ("/app/capture", test_capture);
  g_test_add_func ("/app/message-bar", test_message_bar);
  planar_test_add_func_with_samples ("/app/tracks-filter-and-keys", test_tracks_filter_and_keys);
  planar_test_add_func_with_samples ("/app/progress-truth", test_progress_truth);
  planar_test_add_func_with_samples ("/app/narrow-window", test_narrow_window);
  planar_test_add_func_with_samples ("/app/derived-rows-still", test_derived_rows_still);
  g_test_add_func ("/app/file-changed", test_file_changed);
  g_test_add_func ("/app/capture-cancel", test_capture_cancel);
  planar_test_add_func_with_samples ("/app/sandbox-capture-folder", test_sandbox_capture_folder);
  g_test_add_func ("/app/sandbox-folder-message", test_sandbox_folder_message);
  g_test_add_func ("/app/sandbox-session-folder", test_sandbox_session_folder);
  status = g_test_run ();

  destroy_all_windows ();
  g_clear_object (&app);
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_free (logdir);
  g_free (broken_dir);
  return status;
}
