/* test-view-state.c: remembering how a profile's timeline was arranged.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-view-state.h"

#include <glib/gstdio.h>
#include <string.h>

static void
count_changes (PlanarViewState *state,
               guint           *n)
{
  (*n)++;
}

static void
test_setters (void)
{
  g_autoptr(PlanarViewState) state = planar_view_state_new ();
  const char * const order[] = { "h|b", "h|a", NULL };
  guint n = 0;

  g_signal_connect (state, "changed", G_CALLBACK (count_changes), &n);
  g_assert_true (planar_view_state_is_default (state));
  g_assert_true (planar_view_state_set_track_hidden (state, "h|a|1", TRUE));
  g_assert_false (planar_view_state_set_track_hidden (state, "h|a|1", TRUE));
  g_assert_true (planar_view_state_get_track_hidden (state, "h|a|1"));
  g_assert_false (planar_view_state_get_track_hidden (state, "h|a|2"));
  g_assert_true (planar_view_state_set_section_hidden (state, "h|b", TRUE));
  g_assert_true (planar_view_state_set_section_collapsed (state, "h|a", TRUE));
  g_assert_true (planar_view_state_set_section_order (state, order));
  g_assert_false (planar_view_state_set_section_order (state, order));
  g_assert_cmpuint (n, ==, 4);
  g_assert_false (planar_view_state_is_default (state));

  g_assert_true (planar_view_state_show_all (state));
  g_assert_false (planar_view_state_show_all (state));
  g_assert_false (planar_view_state_get_track_hidden (state, "h|a|1"));
  g_assert_false (planar_view_state_get_section_hidden (state, "h|b"));
  /* Showing all keeps the sections folded and in their order. */
  g_assert_true (planar_view_state_get_section_collapsed (state, "h|a"));
  g_assert_cmpstrv (planar_view_state_get_section_order (state), order);
  g_assert_cmpuint (n, ==, 5);

  g_assert_true (planar_view_state_set_section_order (state, NULL));
  g_assert_true (planar_view_state_set_section_collapsed (state, "h|a", FALSE));
  g_assert_true (planar_view_state_is_default (state));
  g_assert_cmpuint (n, ==, 7);

  /* Frozen, changes make one signal at the last thaw; none without a
   * change. */
  planar_view_state_freeze_changes (state);
  planar_view_state_freeze_changes (state);
  planar_view_state_set_section_collapsed (state, "h|a", TRUE);
  planar_view_state_set_section_collapsed (state, "h|b", TRUE);
  planar_view_state_thaw_changes (state);
  g_assert_cmpuint (n, ==, 7);
  planar_view_state_thaw_changes (state);
  g_assert_cmpuint (n, ==, 8);
  planar_view_state_freeze_changes (state);
  planar_view_state_set_section_collapsed (state, "h|a", TRUE);
  planar_view_state_thaw_changes (state);
  g_assert_cmpuint (n, ==, 8);
}

static void
test_store (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("planar-view-state-XXXXXX", &error);
  g_autofree char *store = NULL;
  g_autoptr(PlanarViewState) state = planar_view_state_new ();
  g_autoptr(PlanarViewState) other = planar_view_state_new ();
  g_autoptr(PlanarViewState) loaded = NULL;
  const char * const order[] = { "host;1|/device:GPU:1", "host;1|/device:GPU:0", NULL };
  const char *odd_key = "/runs/[odd]\npath";

  g_assert_no_error (error);
  /* The folder does not exist yet: saving makes it. */
  store = g_build_filename (dir, "planar", "views.ini", NULL);

  /* Nothing remembered: a default state. */
  loaded = planar_view_state_load (store, "/runs/a", &error);
  g_assert_no_error (error);
  g_assert_true (planar_view_state_is_default (loaded));
  g_clear_object (&loaded);

  planar_view_state_set_track_hidden (state, "host;1|/device:GPU:0|3", TRUE);
  planar_view_state_set_section_hidden (state, "host;1|/host:CPU", TRUE);
  planar_view_state_set_section_collapsed (state, "host;1|/device:GPU:1", TRUE);
  planar_view_state_set_section_order (state, order);
  g_assert_true (planar_view_state_save (state, store, "/runs/a", &error));
  g_assert_no_error (error);
  planar_view_state_set_track_hidden (other, "x|y|0", TRUE);
  g_assert_true (planar_view_state_save (other, store, odd_key, &error));
  g_assert_no_error (error);

  loaded = planar_view_state_load (store, "/runs/a", &error);
  g_assert_no_error (error);
  g_assert_true (planar_view_state_get_track_hidden (loaded, "host;1|/device:GPU:0|3"));
  g_assert_false (planar_view_state_get_track_hidden (loaded, "x|y|0"));
  g_assert_true (planar_view_state_get_section_hidden (loaded, "host;1|/host:CPU"));
  g_assert_true (planar_view_state_get_section_collapsed (loaded, "host;1|/device:GPU:1"));
  g_assert_cmpstrv (planar_view_state_get_section_order (loaded), order);
  g_clear_object (&loaded);

  loaded = planar_view_state_load (store, odd_key, &error);
  g_assert_no_error (error);
  g_assert_true (planar_view_state_get_track_hidden (loaded, "x|y|0"));
  g_clear_object (&loaded);

  /* A default state is forgotten; the other profile's stays. */
  planar_view_state_show_all (state);
  planar_view_state_set_section_collapsed (state, "host;1|/device:GPU:1", FALSE);
  planar_view_state_set_section_order (state, NULL);
  g_assert_true (planar_view_state_save (state, store, "/runs/a", &error));
  g_assert_no_error (error);
  {
    g_autoptr(GKeyFile) keyfile = g_key_file_new ();
    g_auto(GStrv) groups = NULL;

    g_assert_true (g_key_file_load_from_file (keyfile, store, G_KEY_FILE_NONE, &error));
    g_assert_false (g_key_file_has_group (keyfile, "/runs/a"));
    groups = g_key_file_get_groups (keyfile, NULL);
    g_assert_cmpuint (g_strv_length (groups), ==, 1);
  }
  loaded = planar_view_state_load (store, odd_key, &error);
  g_assert_true (planar_view_state_get_track_hidden (loaded, "x|y|0"));
  g_clear_object (&loaded);

  /* A store that is not a key file is an error, not an empty state. */
  g_assert_true (g_file_set_contents (store, "not [a key file\n", -1, NULL));
  loaded = planar_view_state_load (store, "/runs/a", &error);
  g_assert_null (loaded);
  g_assert_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE);
  g_clear_error (&error);

  g_assert_cmpint (g_remove (store), ==, 0);
  {
    g_autofree char *parent = g_path_get_dirname (store);

    g_assert_cmpint (g_rmdir (parent), ==, 0);
  }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* State once keyed by in-file hostname moves to the host files: two files
 * sharing a hostname each get it, a file named as its hostname keeps its
 * own, and the old keys are gone from the store once saved. */
static void
test_rekey_hosts (void)
{
  g_autofree char *dir = g_dir_make_tmp ("planar-view-state-XXXXXX", NULL);
  g_autofree char *store = g_build_filename (dir, "views.ini", NULL);
  g_autoptr(PlanarViewState) state = planar_view_state_new ();
  g_autoptr(PlanarViewState) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  const char * const order[] = { "localhost|/device:GPU:1", "tw003|/host:CPU", "other|x", NULL };
  const char * const old_hosts[] = { "localhost", "localhost", "tw003", NULL };
  const char * const new_hosts[] = { "worker0", "worker1", "tw003", NULL };
  const char * const rekeyed_order[] = { "worker0|/device:GPU:1", "worker1|/device:GPU:1", "tw003|/host:CPU", "other|x", NULL };
  guint n = 0;

  planar_view_state_set_track_hidden (state, "localhost|/device:GPU:0|3", TRUE);
  planar_view_state_set_section_hidden (state, "tw003|/host:CPU", TRUE);
  planar_view_state_set_section_collapsed (state, "localhost|/device:GPU:1", TRUE);
  planar_view_state_set_section_order (state, order);
  g_assert_true (planar_view_state_save (state, store, "/runs/a", &error));
  g_assert_no_error (error);
  g_clear_object (&state);

  state = planar_view_state_load (store, "/runs/a", &error);
  g_assert_no_error (error);
  g_signal_connect (state, "changed", G_CALLBACK (count_changes), &n);
  g_assert_true (planar_view_state_rekey_hosts (state, old_hosts, new_hosts));
  g_assert_cmpuint (n, ==, 1);
  g_assert_true (planar_view_state_get_track_hidden (state, "worker0|/device:GPU:0|3"));
  g_assert_true (planar_view_state_get_track_hidden (state, "worker1|/device:GPU:0|3"));
  g_assert_false (planar_view_state_get_track_hidden (state, "localhost|/device:GPU:0|3"));
  g_assert_true (planar_view_state_get_section_collapsed (state, "worker0|/device:GPU:1"));
  g_assert_true (planar_view_state_get_section_collapsed (state, "worker1|/device:GPU:1"));
  g_assert_false (planar_view_state_get_section_collapsed (state, "localhost|/device:GPU:1"));
  g_assert_true (planar_view_state_get_section_hidden (state, "tw003|/host:CPU"));
  g_assert_cmpstrv (planar_view_state_get_section_order (state), rekeyed_order);
  /* Read once: a second pass changes nothing. */
  g_assert_false (planar_view_state_rekey_hosts (state, old_hosts, new_hosts));
  g_assert_cmpuint (n, ==, 1);

  /* Now one host's state no longer follows the other's. */
  planar_view_state_set_track_hidden (state, "worker1|/device:GPU:0|3", FALSE);
  g_assert_true (planar_view_state_get_track_hidden (state, "worker0|/device:GPU:0|3"));
  g_assert_true (planar_view_state_save (state, store, "/runs/a", &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (store, &data, NULL, &error));
  g_assert_null (strstr (data, "localhost"));
  loaded = planar_view_state_load (store, "/runs/a", &error);
  g_assert_no_error (error);
  g_assert_true (planar_view_state_get_track_hidden (loaded, "worker0|/device:GPU:0|3"));
  g_assert_false (planar_view_state_get_track_hidden (loaded, "worker1|/device:GPU:0|3"));

  g_unlink (store);
  g_rmdir (dir);
}

/* The label column's width is remembered per profile; the usual width (0)
 * is no change, and a width that is not a number is ignored. */
static void
test_label_width (void)
{
  g_autofree char *dir = g_dir_make_tmp ("planar-view-state-XXXXXX", NULL);
  g_autofree char *store = g_build_filename (dir, "views.ini", NULL);
  g_autoptr(PlanarViewState) state = planar_view_state_new ();
  g_autoptr(PlanarViewState) loaded = NULL;
  g_autoptr(PlanarViewState) other = NULL;
  g_autoptr(GError) error = NULL;
  guint n = 0;

  g_signal_connect (state, "changed", G_CALLBACK (count_changes), &n);
  g_assert_cmpint (planar_view_state_get_label_width (state), ==, 0);
  g_assert_true (planar_view_state_set_label_width (state, 340));
  g_assert_false (planar_view_state_set_label_width (state, 340));
  g_assert_cmpuint (n, ==, 1);
  g_assert_false (planar_view_state_is_default (state));
  g_assert_true (planar_view_state_save (state, store, "/runs/a", &error));
  g_assert_no_error (error);
  loaded = planar_view_state_load (store, "/runs/a", &error);
  g_assert_no_error (error);
  g_assert_cmpint (planar_view_state_get_label_width (loaded), ==, 340);
  other = planar_view_state_load (store, "/runs/b", &error);
  g_assert_no_error (error);
  g_assert_cmpint (planar_view_state_get_label_width (other), ==, 0);
  g_clear_object (&loaded);

  g_assert_true (g_file_set_contents (store, "[/runs/a]\nlabel-width=wide\n", -1, &error));
  loaded = planar_view_state_load (store, "/runs/a", &error);
  g_assert_no_error (error);
  g_assert_cmpint (planar_view_state_get_label_width (loaded), ==, 0);

  g_assert_true (planar_view_state_set_label_width (state, 0));
  g_assert_true (planar_view_state_is_default (state));
  g_unlink (store);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/view-state/setters", test_setters);
  g_test_add_func ("/view-state/store", test_store);
  g_test_add_func ("/view-state/rekey-hosts", test_rekey_hosts);
  g_test_add_func ("/view-state/label-width", test_label_width);

  return g_test_run ();
}
