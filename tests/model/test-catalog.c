/* test-catalog.c: discovery of runs, sessions and hosts in XProf layouts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planar-catalog.h"
#include "planar-error.h"
#include "planar-test-scratch.h"

/* Discovery never parses host files, so any bytes stand in for a profile;
 * their lengths differ so that sizes can be told apart. */
#define DUMMY "xspace"

typedef PlanarTestFixture Fixture;

/* Creates @relative (and its folders) under @root. Returns: the full path. */
static char *
make_file (const char *root,
           const char *relative,
           const char *contents)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (root, relative, NULL);
  g_autofree char *folder = g_path_get_dirname (path);

  g_assert_no_errno (g_mkdir_with_parents (folder, 0700));
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static char *
make_folder (const char *root,
             const char *relative)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);

  g_assert_no_errno (g_mkdir_with_parents (path, 0700));
  return g_steal_pointer (&path);
}

static PlanarCatalog *
discover_ok (const char *path)
{
  g_autoptr(GError) error = NULL;
  PlanarCatalog *catalog = planar_catalog_discover (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (catalog);
  return catalog;
}

static void
assert_not_found (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarCatalog) catalog = planar_catalog_discover (path, NULL, &error);

  g_assert_null (catalog);
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, path));
}

static PlanarCatalogRun *
run_at (PlanarCatalog *catalog,
        guint          i)
{
  g_assert_cmpuint (i, <, catalog->runs->len);
  return g_ptr_array_index (catalog->runs, i);
}

static PlanarCatalogSession *
session_at (PlanarCatalogRun *run,
            guint             i)
{
  g_assert_cmpuint (i, <, run->sessions->len);
  return g_ptr_array_index (run->sessions, i);
}

static PlanarCatalogHost *
host_at (PlanarCatalogSession *session,
         guint                 i)
{
  g_assert_cmpuint (i, <, session->hosts->len);
  return g_ptr_array_index (session->hosts, i);
}

/* Checks the session's name and that its hosts are exactly @host_names, in
 * order (a NULL-terminated list). */
static void
assert_session (PlanarCatalogSession *session,
                const char           *name,
                const char * const   *host_names)
{
  g_assert_nonnull (session);
  g_assert_cmpstr (session->name, ==, name);
  g_assert_cmpuint (session->hosts->len, ==, g_strv_length ((GStrv) host_names));
  for (guint i = 0; host_names[i] != NULL; i++)
    {
      PlanarCatalogHost *host = host_at (session, i);
      g_autofree char *base = g_path_get_basename (host->path);
      g_autofree char *folder = g_path_get_dirname (host->path);

      g_assert_cmpstr (host->name, ==, host_names[i]);
      g_assert_true (g_str_has_prefix (base, host_names[i]));
      g_assert_cmpstr (folder, ==, session->path);
      g_assert_true (g_file_test (host->path, G_FILE_TEST_IS_REGULAR));
    }
}

static void
assert_run (PlanarCatalogRun   *run,
            const char         *name,
            const char         *path,
            const char * const *session_names)
{
  g_assert_cmpstr (run->name, ==, name);
  g_assert_cmpstr (run->path, ==, path);
  g_assert_cmpuint (run->sessions->len, ==, g_strv_length ((GStrv) session_names));
  for (guint i = 0; session_names[i] != NULL; i++)
    g_assert_cmpstr (session_at (run, i)->name, ==, session_names[i]);
}

static void
test_single_file (Fixture       *fixture,
                  gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *path = make_file (fixture->dir,
                                     "plugins/profile/2024_01_02_03_04_05/host0.xplane.pb", DUMMY);
  g_autofree char *sibling = make_file (fixture->dir,
                                        "plugins/profile/2024_01_02_03_04_05/host1.xplane.pb",
                                        DUMMY DUMMY);
  g_autofree char *session_path = g_path_get_dirname (path);
  g_autoptr(PlanarCatalog) catalog = discover_ok (path);
  PlanarCatalogRun *run;
  PlanarCatalogSession *session;
  PlanarCatalogHost *host;

  g_assert_cmpstr (catalog->root, ==, path);
  g_assert_cmpuint (catalog->runs->len, ==, 1);
  run = run_at (catalog, 0);
  /* The run of a file inside plugins/profile is the TensorBoard run. */
  assert_run (run, ".", fixture->dir, (const char *[]) { "2024_01_02_03_04_05", NULL });
  session = session_at (run, 0);
  g_assert_cmpstr (session->path, ==, session_path);
  /* Only the file asked for, not its sibling. */
  assert_session (session, "2024_01_02_03_04_05", (const char *[]) { "host0", NULL });
  host = host_at (session, 0);
  g_assert_cmpstr (host->path, ==, path);
  g_assert_true (host->supported);
  g_assert_cmpuint (host->size, ==, strlen (DUMMY));
  g_assert_cmpuint (planar_catalog_get_n_sessions (catalog), ==, 1);
}

static void
test_renamed_file (Fixture       *fixture,
                   gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *renamed = make_file (fixture->dir, "capture.bin", DUMMY DUMMY);
  g_autofree char *riegeli = make_file (fixture->dir, "tpu0.xplane.riegeli", DUMMY);
  g_autoptr(PlanarCatalog) catalog = discover_ok (renamed);
  g_autoptr(PlanarCatalog) riegeli_catalog = NULL;
  g_autofree char *root_name = g_path_get_basename (fixture->dir);
  g_autofree char *root_parent = g_path_get_dirname (fixture->dir);
  PlanarCatalogHost *host;

  /* Outside plugins/profile, the run is the folder holding the session. */
  assert_run (run_at (catalog, 0), ".", root_parent, (const char *[]) { root_name, NULL });
  host = host_at (session_at (run_at (catalog, 0), 0), 0);
  g_assert_cmpstr (host->name, ==, "capture.bin");
  g_assert_true (host->supported);
  g_assert_cmpuint (host->size, ==, 2 * strlen (DUMMY));

  riegeli_catalog = discover_ok (riegeli);
  host = host_at (session_at (run_at (riegeli_catalog, 0), 0), 0);
  g_assert_cmpstr (host->name, ==, "tpu0");
  g_assert_false (host->supported);
}

static void
test_session_folder (Fixture       *fixture,
                     gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *session_path = make_folder (fixture->dir, "my_session");
  g_autoptr(PlanarCatalog) catalog = NULL;
  PlanarCatalogSession *session;

  g_free (make_file (session_path, "worker-1_8466.xplane.pb", DUMMY));
  g_free (make_file (session_path, "worker-0_8466.xplane.pb", DUMMY DUMMY));
  g_free (make_file (session_path, "worker-0_8466.trace.json.gz", DUMMY));

  catalog = discover_ok (session_path);
  g_assert_cmpstr (catalog->root, ==, session_path);
  g_assert_cmpuint (catalog->runs->len, ==, 1);
  assert_run (run_at (catalog, 0), ".", fixture->dir, (const char *[]) { "my_session", NULL });
  session = session_at (run_at (catalog, 0), 0);
  g_assert_cmpstr (session->path, ==, session_path);
  assert_session (session, "my_session",
                  (const char *[]) { "worker-0_8466", "worker-1_8466", NULL });
  g_assert_cmpuint (host_at (session, 0)->size, ==, 2 * strlen (DUMMY));
  g_assert_cmpuint (host_at (session, 1)->size, ==, strlen (DUMMY));
}

static void
test_plugins_profile_folder (Fixture       *fixture,
                             gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *profile = make_folder (fixture->dir, "plugins/profile");
  g_autoptr(PlanarCatalog) catalog = NULL;

  g_free (make_file (profile, "2024_01_01_00_00_00/h.xplane.pb", DUMMY));
  g_free (make_file (profile, "2024_03_01_00_00_00/h.xplane.pb", DUMMY));
  /* A session with no host file is left out. */
  g_free (make_file (profile, "2025_01_01_00_00_00/h.SSTABLE", DUMMY));
  g_free (make_folder (profile, "2026_01_01_00_00_00"));
  /* One of Chrome JSON traces only is a session of its own (Kineto,
   * other tools). */
  g_free (make_file (profile, "2025_06_01_00_00_00/worker0.pt.trace.json.gz", DUMMY));

  catalog = discover_ok (profile);
  g_assert_cmpuint (catalog->runs->len, ==, 1);
  assert_run (run_at (catalog, 0), ".", fixture->dir,
              (const char *[]) { "2025_06_01_00_00_00", "2024_03_01_00_00_00", "2024_01_01_00_00_00", NULL });
  assert_session (session_at (run_at (catalog, 0), 0), "2025_06_01_00_00_00",
                  (const char *[]) { "worker0", NULL });
  g_assert_true (host_at (session_at (run_at (catalog, 0), 0), 0)->supported);
  g_assert_cmpuint (planar_catalog_get_n_sessions (catalog), ==, 3);
}

static void
test_run_folder (Fixture       *fixture,
                 gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *run_path = make_folder (fixture->dir, "my_run");
  g_autoptr(PlanarCatalog) catalog = NULL;

  g_free (make_file (run_path, "plugins/profile/2024_05_01_10_00_00/a.xplane.pb", DUMMY));
  g_free (make_file (run_path, "plugins/profile/2024_05_01_10_00_00/b.xplane.pb", DUMMY));
  g_free (make_file (run_path, "events.out.tfevents.1714557600.a", DUMMY));

  catalog = discover_ok (run_path);
  g_assert_cmpuint (catalog->runs->len, ==, 1);
  assert_run (run_at (catalog, 0), ".", run_path, (const char *[]) { "2024_05_01_10_00_00", NULL });
  assert_session (session_at (run_at (catalog, 0), 0), "2024_05_01_10_00_00",
                  (const char *[]) { "a", "b", NULL });
}

/* A log directory with a root run and two nested runs:
 *   plugins/profile/{S_ROOT_OLD,S_ROOT_NEW}
 *   train/plugins/profile/{S_TRAIN_OLD,S_TRAIN_NEW}
 *   eval/deep/plugins/profile/S_EVAL
 * S_SHARED is in train and eval/deep but not in the root run. */
#define S_ROOT_OLD "2024_01_01_00_00_00"
#define S_ROOT_NEW "2024_06_01_00_00_00"
#define S_TRAIN_OLD "2024_02_01_00_00_00"
#define S_TRAIN_NEW "2024_08_01_00_00_00"
#define S_EVAL "2024_07_01_00_00_00"
#define S_SHARED "2024_03_01_00_00_00"

static void
make_log_directory (const char *root)
{
  g_free (make_file (root, "plugins/profile/" S_ROOT_OLD "/h.xplane.pb", DUMMY));
  g_free (make_file (root, "plugins/profile/" S_ROOT_NEW "/h.xplane.pb", DUMMY));
  g_free (make_file (root, "train/plugins/profile/" S_TRAIN_OLD "/t.xplane.pb", DUMMY));
  g_free (make_file (root, "train/plugins/profile/" S_TRAIN_NEW "/t0.xplane.pb", DUMMY));
  g_free (make_file (root, "train/plugins/profile/" S_TRAIN_NEW "/t1.xplane.pb", DUMMY));
  g_free (make_file (root, "train/plugins/profile/" S_TRAIN_NEW "/t2.xplane.riegeli", DUMMY));
  g_free (make_file (root, "train/plugins/profile/" S_SHARED "/t.xplane.pb", DUMMY));
  g_free (make_file (root, "eval/deep/plugins/profile/" S_EVAL "/e.xplane.pb", DUMMY));
  g_free (make_file (root, "eval/deep/plugins/profile/" S_SHARED "/e.xplane.pb", DUMMY));
  /* Neither a run nor a session. */
  g_free (make_file (root, "notes/readme.txt", DUMMY));
  g_free (make_folder (root, "eval/plugins/other"));
}

static void
test_log_directory (Fixture       *fixture,
                    gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autoptr(PlanarCatalog) catalog = NULL;
  g_autofree char *train = g_build_filename (fixture->dir, "train", NULL);
  g_autofree char *eval = g_build_filename (fixture->dir, "eval", "deep", NULL);

  make_log_directory (fixture->dir);
  catalog = discover_ok (fixture->dir);
  g_assert_cmpstr (catalog->root, ==, fixture->dir);
  g_assert_cmpuint (catalog->runs->len, ==, 3);
  assert_run (run_at (catalog, 0), ".", fixture->dir,
              (const char *[]) { S_ROOT_NEW, S_ROOT_OLD, NULL });
  assert_run (run_at (catalog, 1), "eval/deep", eval, (const char *[]) { S_EVAL, S_SHARED, NULL });
  assert_run (run_at (catalog, 2), "train", train,
              (const char *[]) { S_TRAIN_NEW, S_SHARED, S_TRAIN_OLD, NULL });
  assert_session (session_at (run_at (catalog, 2), 0), S_TRAIN_NEW,
                  (const char *[]) { "t0", "t1", "t2", NULL });
  g_assert_cmpuint (planar_catalog_get_n_sessions (catalog), ==, 7);
}

static void
test_run_path (Fixture       *fixture,
               gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autoptr(PlanarCatalog) catalog = NULL;

  g_free (make_file (fixture->dir, "session_a/h.xplane.pb", DUMMY));
  g_free (make_file (fixture->dir, "session_b/h0.xplane.pb", DUMMY));
  g_free (make_file (fixture->dir, "session_b/h1.xplane.pb", DUMMY));
  g_free (make_file (fixture->dir, "notes/readme.txt", DUMMY));

  catalog = discover_ok (fixture->dir);
  g_assert_cmpuint (catalog->runs->len, ==, 1);
  assert_run (run_at (catalog, 0), ".", fixture->dir,
              (const char *[]) { "session_b", "session_a", NULL });
  assert_session (session_at (run_at (catalog, 0), 0), "session_b",
                  (const char *[]) { "h0", "h1", NULL });
}

static void
test_newest_first (Fixture       *fixture,
                   gconstpointer  user_data G_GNUC_UNUSED)
{
  /* Made in an order unrelated to their names, so that neither creation
   * order nor listing order can pass for sorting. */
  static const char * const made[] = {
    "2024_05_05_00_00_00", "2023_12_31_23_59_59", "2025_01_01_00_00_00",
    "2024_05_05_00_00_01", "2024_01_10_12_00_00",
  };
  g_autoptr(PlanarCatalog) catalog = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (made); i++)
    {
      g_autofree char *relative = g_strdup_printf ("plugins/profile/%s/h.xplane.pb", made[i]);

      g_free (make_file (fixture->dir, relative, DUMMY));
    }

  catalog = discover_ok (fixture->dir);
  assert_run (run_at (catalog, 0), ".", fixture->dir,
              (const char *[]) { "2025_01_01_00_00_00", "2024_05_05_00_00_01",
                                 "2024_05_05_00_00_00", "2024_01_10_12_00_00",
                                 "2023_12_31_23_59_59", NULL });
}

static void
test_hidden_temp_files (Fixture       *fixture,
                        gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *session = make_folder (fixture->dir, "plugins/profile/2024_01_01_00_00_00");
  g_autoptr(PlanarCatalog) catalog = NULL;

  g_free (make_file (session, "host.xplane.pb", DUMMY));
  /* g_file_set_contents' temp name, another writer's, and a hidden host. */
  g_free (make_file (session, ".host2.xplane.pb.Ab12Cd", DUMMY));
  g_free (make_file (session, ".host3.xplane.pb", DUMMY));
  g_free (make_file (session, ".name.XyZ789", DUMMY));
  /* A session holding only a half-written file is no session. */
  g_free (make_file (fixture->dir, "plugins/profile/2024_02_01_00_00_00/.h.xplane.pb.Qw9Er8",
                     DUMMY));
  /* Nor is a hidden folder, whatever it holds. */
  g_free (make_file (fixture->dir, "plugins/profile/.2024_03_01_00_00_00/h.xplane.pb", DUMMY));

  catalog = discover_ok (fixture->dir);
  assert_run (run_at (catalog, 0), ".", fixture->dir,
              (const char *[]) { "2024_01_01_00_00_00", NULL });
  assert_session (session_at (run_at (catalog, 0), 0), "2024_01_01_00_00_00",
                  (const char *[]) { "host", NULL });
}

static void
test_riegeli_unsupported (Fixture       *fixture,
                          gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *session_path = make_folder (fixture->dir, "s");
  g_autoptr(PlanarCatalog) catalog = NULL;
  PlanarCatalogSession *session;

  g_free (make_file (session_path, "a.xplane.pb", DUMMY));
  g_free (make_file (session_path, "b.xplane.riegeli", DUMMY DUMMY DUMMY));

  catalog = discover_ok (session_path);
  session = session_at (run_at (catalog, 0), 0);
  assert_session (session, "s", (const char *[]) { "a", "b", NULL });
  g_assert_true (host_at (session, 0)->supported);
  g_assert_false (host_at (session, 1)->supported);
  g_assert_cmpuint (host_at (session, 1)->size, ==, 3 * strlen (DUMMY));
}

static void
test_unrelated_files (Fixture       *fixture,
                      gconstpointer  user_data G_GNUC_UNUSED)
{
  static const char * const unrelated[] = {
    "h.trace.json.gz", "h.SSTABLE", "h.metadata.SSTABLE", ".cached_tools.json",
    "h.op_stats_v2.pb", "module.hlo_proto.pb", "h.xplane.pb.gz", "xplane.pb",
  };
  g_autofree char *session_path = make_folder (fixture->dir, "s");
  g_autofree char *host_path = make_file (session_path, "h.xplane.pb", DUMMY);
  g_autofree char *dangling = g_build_filename (session_path, "gone.xplane.pb", NULL);
  g_autoptr(PlanarCatalog) catalog = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (unrelated); i++)
    g_free (make_file (session_path, unrelated[i], DUMMY));
  /* A folder with a host's name and a link to nothing are no hosts. */
  g_free (make_folder (session_path, "dir.xplane.pb"));
  g_assert_no_errno (symlink ("/nonexistent/planar/gone.xplane.pb", dangling));

  catalog = discover_ok (session_path);
  assert_session (session_at (run_at (catalog, 0), 0), "s", (const char *[]) { "h", NULL });
  g_assert_cmpstr (host_at (session_at (run_at (catalog, 0), 0), 0)->path, ==, host_path);

  /* Only unrelated files: no profile at all, except the JSON export JAX
   * writes beside its xplanes, which stands in once they are gone. */
  g_assert_no_errno (g_remove (host_path));
  {
    g_autoptr(PlanarCatalog) json_only = discover_ok (session_path);
    g_autofree char *json = g_build_filename (session_path, "h.trace.json.gz", NULL);

    assert_session (session_at (run_at (json_only, 0), 0), "s", (const char *[]) { "h", NULL });
    g_assert_no_errno (g_remove (json));
  }
  assert_not_found (session_path);
}

static void
test_empty_folder (Fixture       *fixture,
                   gconstpointer  user_data G_GNUC_UNUSED)
{
  assert_not_found (fixture->dir);

  /* Empty sessions in a well-formed layout are still nothing to open. */
  g_free (make_folder (fixture->dir, "train/plugins/profile/2024_01_01_00_00_00"));
  assert_not_found (fixture->dir);
}

static void
test_missing_path (Fixture       *fixture,
                   gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *missing = g_build_filename (fixture->dir, "no-such-logdir", NULL);

  assert_not_found (missing);
}

static void
test_depth_bound (Fixture       *fixture,
                  gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *near = make_folder (fixture->dir, "near");
  g_autofree char *far = make_folder (fixture->dir, "far");
  g_autoptr(PlanarCatalog) catalog = NULL;

  /* `profile` at depth 10 is found, at depth 11 it is not. */
  g_free (make_file (near, "1/2/3/4/5/6/7/8/plugins/profile/s/h.xplane.pb", DUMMY));
  g_free (make_file (far, "1/2/3/4/5/6/7/8/9/plugins/profile/s/h.xplane.pb", DUMMY));

  catalog = discover_ok (near);
  g_assert_cmpuint (catalog->runs->len, ==, 1);
  g_assert_cmpstr (run_at (catalog, 0)->name, ==, "1/2/3/4/5/6/7/8");
  assert_not_found (far);
}

static void
test_symlinked_folders (Fixture       *fixture,
                        gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *logdir = make_folder (fixture->dir, "logdir");
  g_autofree char *outside = make_folder (fixture->dir, "outside");
  g_autofree char *train = g_build_filename (logdir, "train", NULL);
  g_autofree char *loop = g_build_filename (train, "loop", NULL);
  g_autofree char *linked_run = g_build_filename (logdir, "linked", NULL);
  g_autoptr(PlanarCatalog) catalog = NULL;

  g_free (make_file (logdir, "train/plugins/profile/s/h.xplane.pb", DUMMY));
  g_free (make_file (outside, "plugins/profile/s/h.xplane.pb", DUMMY));
  /* A link back up the tree must not make the search loop, and a linked
   * run is not followed, as in XProf's walk. */
  g_assert_no_errno (symlink (logdir, loop));
  g_assert_no_errno (symlink (outside, linked_run));

  catalog = discover_ok (logdir);
  g_assert_cmpuint (catalog->runs->len, ==, 1);
  assert_run (run_at (catalog, 0), "train", train,
              (const char *[]) { "s", NULL });

  /* A link given as the path itself is opened. */
  g_clear_pointer (&catalog, planar_catalog_free);
  catalog = discover_ok (linked_run);
  g_assert_cmpuint (catalog->runs->len, ==, 1);
  g_assert_cmpstr (run_at (catalog, 0)->name, ==, ".");
}

static void
test_unreadable_subfolder (Fixture       *fixture,
                           gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *locked = make_folder (fixture->dir, "locked");
  g_autoptr(PlanarCatalog) catalog = NULL;

  g_free (make_file (fixture->dir, "train/plugins/profile/s/h.xplane.pb", DUMMY));
  g_free (make_file (locked, "plugins/profile/s/h.xplane.pb", DUMMY));
  g_assert_no_errno (g_chmod (locked, 0));

  catalog = discover_ok (fixture->dir);
  if (access (locked, R_OK) == 0)
    {
      /* Run as root, the folder is readable anyway. */
      g_assert_cmpuint (catalog->runs->len, ==, 2);
    }
  else
    {
      g_assert_cmpuint (catalog->runs->len, ==, 1);
      g_assert_cmpstr (run_at (catalog, 0)->name, ==, "train");
    }
  g_assert_no_errno (g_chmod (locked, 0700));
}

static void
test_find_session (Fixture       *fixture,
                   gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autoptr(PlanarCatalog) catalog = NULL;
  PlanarCatalogSession *session;

  make_log_directory (fixture->dir);
  catalog = discover_ok (fixture->dir);

  /* The newest session of all runs, here in train. */
  session = planar_catalog_find_session (catalog, NULL);
  g_assert_nonnull (session);
  g_assert_cmpstr (session->name, ==, S_TRAIN_NEW);
  g_assert_true (session == session_at (run_at (catalog, 2), 0));

  session = planar_catalog_find_session (catalog, "train/" S_TRAIN_OLD);
  g_assert_true (session == session_at (run_at (catalog, 2), 2));
  session = planar_catalog_find_session (catalog, "eval/deep/" S_SHARED);
  g_assert_true (session == session_at (run_at (catalog, 1), 1));
  session = planar_catalog_find_session (catalog, "./" S_ROOT_OLD);
  g_assert_true (session == session_at (run_at (catalog, 0), 1));

  /* Bare names: the root run's, or one unique among all runs. */
  session = planar_catalog_find_session (catalog, S_ROOT_NEW);
  g_assert_true (session == session_at (run_at (catalog, 0), 0));
  session = planar_catalog_find_session (catalog, S_TRAIN_OLD);
  g_assert_true (session == session_at (run_at (catalog, 2), 2));
  session = planar_catalog_find_session (catalog, S_EVAL);
  g_assert_true (session == session_at (run_at (catalog, 1), 0));
  /* In two runs, neither of them the root: ambiguous. */
  g_assert_null (planar_catalog_find_session (catalog, S_SHARED));

  g_assert_null (planar_catalog_find_session (catalog, "2000_01_01_00_00_00"));
  g_assert_null (planar_catalog_find_session (catalog, "train/" S_EVAL));
  g_assert_null (planar_catalog_find_session (catalog, "nope/" S_TRAIN_NEW));
  g_assert_null (planar_catalog_find_session (catalog, "train"));
}

static void
test_find_session_tie (Fixture       *fixture,
                       gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autoptr(PlanarCatalog) catalog = NULL;
  PlanarCatalogSession *session;

  /* The newest name is in two runs: the run that sorts first wins. */
  g_free (make_file (fixture->dir, "b/plugins/profile/2024_09_09_00_00_00/h.xplane.pb", DUMMY));
  g_free (make_file (fixture->dir, "a/plugins/profile/2024_09_09_00_00_00/h.xplane.pb", DUMMY));
  g_free (make_file (fixture->dir, "a/plugins/profile/2024_01_01_00_00_00/h.xplane.pb", DUMMY));

  catalog = discover_ok (fixture->dir);
  session = planar_catalog_find_session (catalog, NULL);
  g_assert_true (session == session_at (run_at (catalog, 0), 0));
  g_assert_cmpstr (run_at (catalog, 0)->name, ==, "a");
}

static void
test_dup_paths (Fixture       *fixture,
                gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *session_path = make_folder (fixture->dir, "s");
  g_autofree char *a = make_file (session_path, "a.xplane.pb", DUMMY);
  g_autofree char *b = make_file (session_path, "b.xplane.riegeli", DUMMY);
  g_autofree char *c = make_file (session_path, "c.xplane.pb", DUMMY);
  g_autofree char *d = make_file (fixture->dir, "t/d.xplane.riegeli", DUMMY);
  g_autoptr(PlanarCatalog) catalog = discover_ok (session_path);
  g_autoptr(PlanarCatalog) riegeli_only = NULL;
  g_auto(GStrv) paths = planar_catalog_session_dup_paths (session_at (run_at (catalog, 0), 0));
  g_auto(GStrv) none = NULL;

  g_assert_cmpuint (session_at (run_at (catalog, 0), 0)->hosts->len, ==, 3);
  g_assert_nonnull (paths);
  g_assert_cmpuint (g_strv_length (paths), ==, 2);
  g_assert_cmpstr (paths[0], ==, a);
  g_assert_cmpstr (paths[1], ==, c);
  g_assert_null (paths[2]);
  g_assert_cmpstr (host_at (session_at (run_at (catalog, 0), 0), 1)->path, ==, b);

  /* A session of unsupported hosts only is listed, with no paths to open. */
  riegeli_only = discover_ok (d);
  none = planar_catalog_session_dup_paths (session_at (run_at (riegeli_only, 0), 0));
  g_assert_nonnull (none);
  g_assert_null (none[0]);
}

static void
test_cancelled (Fixture       *fixture,
                gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarCatalog) catalog = NULL;

  make_log_directory (fixture->dir);
  g_cancellable_cancel (cancellable);
  catalog = planar_catalog_discover (fixture->dir, cancellable, &error);
  g_assert_null (catalog);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_free_null (void)
{
  /* Must return without touching anything. */
  planar_catalog_free (NULL);
  planar_catalog_resolution_free (NULL);
}

/* ------------------------------------------------------------------------
 * planar_catalog_resolve(): what opening a path lists and selects
 * ------------------------------------------------------------------------ */

static PlanarCatalogResolution *
resolve_ok (const char *path)
{
  g_autoptr(GError) error = NULL;
  PlanarCatalogResolution *resolved = planar_catalog_resolve (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (resolved);
  g_assert_nonnull (resolved->catalog);
  /* What is selected is always there to find. */
  g_assert_nonnull (planar_catalog_find_session (resolved->catalog, resolved->session));
  return resolved;
}

/* @resolved selects @session (a planar_catalog_find_session() key) among
 * @n_sessions read from @root, with @hosts (NULL: all) to open. */
static void
assert_resolved (PlanarCatalogResolution *resolved,
                 const char              *root,
                 guint                    n_sessions,
                 const char              *session,
                 const char * const      *hosts)
{
  g_assert_cmpstr (resolved->root, ==, root);
  g_assert_cmpstr (resolved->catalog->root, ==, root);
  g_assert_cmpuint (planar_catalog_get_n_sessions (resolved->catalog), ==, n_sessions);
  g_assert_cmpstr (resolved->session, ==, session);
  if (hosts == NULL)
    g_assert_null (resolved->hosts);
  else
    {
      g_assert_nonnull (resolved->hosts);
      g_assert_cmpstrv (resolved->hosts, hosts);
    }
}

/* The folders: a log directory, a run, its `plugins/profile` folder list
 * what is under them and select the newest session. */
static void
test_resolve_folders (Fixture       *fixture,
                      gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *train = g_build_filename (fixture->dir, "train", NULL);
  g_autofree char *profile = g_build_filename (train, "plugins", "profile", NULL);
  g_autoptr(PlanarCatalogResolution) resolved = NULL;

  make_log_directory (fixture->dir);
  resolved = resolve_ok (fixture->dir);
  assert_resolved (resolved, fixture->dir, 7, "train/" S_TRAIN_NEW, NULL);
  g_clear_pointer (&resolved, planar_catalog_resolution_free);

  resolved = resolve_ok (train);
  assert_resolved (resolved, train, 3, S_TRAIN_NEW, NULL);
  g_clear_pointer (&resolved, planar_catalog_resolution_free);

  resolved = resolve_ok (profile);
  assert_resolved (resolved, profile, 3, S_TRAIN_NEW, NULL);
}

/* A session folder of a run, or a host file in one, lists the run's
 * sessions and selects that one (not the newest); the file, its host
 * alone. */
static void
test_resolve_in_run (Fixture       *fixture,
                     gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *profile = g_build_filename (fixture->dir, "train", "plugins", "profile", NULL);
  g_autofree char *old = g_build_filename (profile, S_TRAIN_OLD, NULL);
  g_autofree char *new_host = g_build_filename (profile, S_TRAIN_NEW, "t1.xplane.pb", NULL);
  g_autofree char *renamed = NULL;
  g_autoptr(PlanarCatalogResolution) resolved = NULL;

  make_log_directory (fixture->dir);
  resolved = resolve_ok (old);
  assert_resolved (resolved, profile, 3, S_TRAIN_OLD, NULL);
  g_clear_pointer (&resolved, planar_catalog_resolution_free);

  resolved = resolve_ok (new_host);
  assert_resolved (resolved, profile, 3, S_TRAIN_NEW, (const char *[]) { "t1", NULL });
  g_clear_pointer (&resolved, planar_catalog_resolution_free);

  /* A file the run does not list (not named *.xplane.pb) is opened alone,
   * in its own folder. */
  renamed = make_file (old, "copy.pb", DUMMY);
  resolved = resolve_ok (renamed);
  assert_resolved (resolved, renamed, 1, S_TRAIN_OLD, NULL);
  g_assert_cmpstr (host_at (planar_catalog_find_session (resolved->catalog, NULL), 0)->path, ==, renamed);
}

/* Outside a run's `plugins/profile` folder a session folder, a folder of
 * sessions and a file are shown alone. */
static void
test_resolve_outside_run (Fixture       *fixture,
                          gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *sessions = make_folder (fixture->dir, "sessions");
  g_autofree char *loose = NULL;
  g_autofree char *file = NULL;
  g_autoptr(PlanarCatalogResolution) resolved = NULL;

  g_free (make_file (sessions, "s1/a.xplane.pb", DUMMY));
  g_free (make_file (sessions, "s1/b.xplane.pb", DUMMY));
  file = make_file (sessions, "s2/a.xplane.pb", DUMMY);
  loose = g_build_filename (sessions, "s1", NULL);

  resolved = resolve_ok (loose);
  assert_resolved (resolved, loose, 1, "s1", NULL);
  g_clear_pointer (&resolved, planar_catalog_resolution_free);

  resolved = resolve_ok (sessions);
  assert_resolved (resolved, sessions, 2, "s2", NULL);
  g_clear_pointer (&resolved, planar_catalog_resolution_free);

  resolved = resolve_ok (file);
  assert_resolved (resolved, file, 1, "s2", NULL);
}

/* A path is taken where it is: a link to a session folder from elsewhere
 * opens that session alone; a link inside a run's `plugins/profile`
 * folder (to a session, or to a host file) is part of the run. */
static void
test_resolve_symlinks (Fixture       *fixture,
                       gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *profile = g_build_filename (fixture->dir, "train", "plugins", "profile", NULL);
  g_autofree char *old = g_build_filename (profile, S_TRAIN_OLD, NULL);
  g_autofree char *link_out = g_build_filename (fixture->dir, "shortcut", NULL);
  g_autofree char *outside = make_folder (fixture->dir, "elsewhere/2025_01_01_00_00_00");
  g_autofree char *outside_file = make_file (fixture->dir, "elsewhere/x.bin", DUMMY);
  g_autofree char *link_in = g_build_filename (profile, "2025_01_01_00_00_00", NULL);
  g_autofree char *linked_host = g_build_filename (old, "linked.xplane.pb", NULL);
  g_autoptr(PlanarCatalogResolution) resolved = NULL;

  make_log_directory (fixture->dir);
  g_free (make_file (outside, "o.xplane.pb", DUMMY));
  g_assert_no_errno (symlink (old, link_out));
  g_assert_no_errno (symlink (outside, link_in));
  g_assert_no_errno (symlink (outside_file, linked_host));

  resolved = resolve_ok (link_out);
  assert_resolved (resolved, link_out, 1, "shortcut", NULL);
  g_clear_pointer (&resolved, planar_catalog_resolution_free);

  resolved = resolve_ok (link_in);
  assert_resolved (resolved, profile, 4, "2025_01_01_00_00_00", NULL);
  g_clear_pointer (&resolved, planar_catalog_resolution_free);

  resolved = resolve_ok (linked_host);
  assert_resolved (resolved, profile, 4, S_TRAIN_OLD, (const char *[]) { "linked", NULL });
}

/* An unreadable folder opened is an error that names it; an unreadable
 * session beside the one opened is passed over. Run as root, folders are
 * readable whatever their mode: only the second half holds then. */
static void
test_resolve_unreadable (Fixture       *fixture,
                         gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *profile = g_build_filename (fixture->dir, "train", "plugins", "profile", NULL);
  g_autofree char *old = g_build_filename (profile, S_TRAIN_OLD, NULL);
  g_autofree char *shared = g_build_filename (profile, S_SHARED, NULL);
  g_autoptr(PlanarCatalogResolution) resolved = NULL;
  g_autoptr(GError) error = NULL;

  make_log_directory (fixture->dir);
  g_assert_no_errno (g_chmod (shared, 0));
  if (access (shared, R_OK) != 0)
    {
      resolved = planar_catalog_resolve (shared, NULL, &error);
      g_assert_null (resolved);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
      g_assert_nonnull (strstr (error->message, shared));
      g_clear_error (&error);

      resolved = resolve_ok (old);
      assert_resolved (resolved, profile, 2, S_TRAIN_OLD, NULL);
    }
  else
    {
      resolved = resolve_ok (old);
      assert_resolved (resolved, profile, 3, S_TRAIN_OLD, NULL);
    }
  g_assert_no_errno (g_chmod (shared, 0700));
}

/* A path that is none of the above: a clear error naming it. */
static void
test_resolve_nothing (Fixture       *fixture,
                      gconstpointer  user_data G_GNUC_UNUSED)
{
  g_autofree char *empty = make_folder (fixture->dir, "empty");
  g_autofree char *notes = make_file (fixture->dir, "notes/readme.txt", "hello");
  g_autofree char *notes_folder = g_path_get_dirname (notes);
  g_autofree char *missing = g_build_filename (fixture->dir, "missing", NULL);
  g_autofree char *dangling = g_build_filename (fixture->dir, "dangling", NULL);
  g_autofree char *fifo = g_build_filename (fixture->dir, "fifo", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  const char *paths[] = { empty, notes_folder, missing, dangling, fifo };
  g_autoptr(GError) error = NULL;

  g_assert_no_errno (symlink (missing, dangling));
  g_assert_no_errno (mkfifo (fifo, 0600));
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(PlanarCatalogResolution) resolved = planar_catalog_resolve (paths[i], NULL, &error);

      g_assert_null (resolved);
      g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND);
      g_assert_nonnull (strstr (error->message, paths[i]));
      g_clear_error (&error);
    }

  make_log_directory (fixture->dir);
  g_cancellable_cancel (cancellable);
  g_assert_null (planar_catalog_resolve (fixture->dir, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  PLANAR_TEST_ADD ("/catalog/single-file", test_single_file);
  PLANAR_TEST_ADD ("/catalog/renamed-file", test_renamed_file);
  PLANAR_TEST_ADD ("/catalog/session-folder", test_session_folder);
  PLANAR_TEST_ADD ("/catalog/plugins-profile-folder", test_plugins_profile_folder);
  PLANAR_TEST_ADD ("/catalog/run-folder", test_run_folder);
  PLANAR_TEST_ADD ("/catalog/log-directory", test_log_directory);
  PLANAR_TEST_ADD ("/catalog/run-path", test_run_path);
  PLANAR_TEST_ADD ("/catalog/newest-first", test_newest_first);
  PLANAR_TEST_ADD ("/catalog/hidden-temp-files", test_hidden_temp_files);
  PLANAR_TEST_ADD ("/catalog/riegeli-unsupported", test_riegeli_unsupported);
  PLANAR_TEST_ADD ("/catalog/unrelated-files", test_unrelated_files);
  PLANAR_TEST_ADD ("/catalog/empty-folder", test_empty_folder);
  PLANAR_TEST_ADD ("/catalog/missing-path", test_missing_path);
  PLANAR_TEST_ADD ("/catalog/depth-bound", test_depth_bound);
  PLANAR_TEST_ADD ("/catalog/symlinked-folders", test_symlinked_folders);
  PLANAR_TEST_ADD ("/catalog/unreadable-subfolder", test_unreadable_subfolder);
  PLANAR_TEST_ADD ("/catalog/find-session", test_find_session);
  PLANAR_TEST_ADD ("/catalog/find-session-tie", test_find_session_tie);
  PLANAR_TEST_ADD ("/catalog/dup-paths", test_dup_paths);
  PLANAR_TEST_ADD ("/catalog/cancelled", test_cancelled);
  PLANAR_TEST_ADD ("/catalog/resolve-folders", test_resolve_folders);
  PLANAR_TEST_ADD ("/catalog/resolve-in-run", test_resolve_in_run);
  PLANAR_TEST_ADD ("/catalog/resolve-outside-run", test_resolve_outside_run);
  PLANAR_TEST_ADD ("/catalog/resolve-symlinks", test_resolve_symlinks);
  PLANAR_TEST_ADD ("/catalog/resolve-unreadable", test_resolve_unreadable);
  PLANAR_TEST_ADD ("/catalog/resolve-nothing", test_resolve_nothing);
  g_test_add_func ("/catalog/free-null", test_free_null);

  return g_test_run ();
}
