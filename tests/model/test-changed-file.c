/* test-changed-file.c: a profile changed on disk while Planar reads it.
 *
 * The file is cut at fixed points (no sleeps): between planar_trace_open()
 * and the decode, between the load and the stat reads, under the cached
 * index's restore, and (through the test-only hook of
 * planar-mapping-private.h) inside planar-cli. Each read of a page past the
 * cut raised SIGBUS and killed the process; now it is an error saying the
 * file changed. Also: a FIFO named like a profile is refused, not waited
 * on, and a fault outside Planar's mappings still kills the process.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache.h"
#include "planar-cache-private.h"
#include "planar-mapping.h"
#include "planar-model.h"
#include "planar-trace-loader-private.h"
#include "planar-test-scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CUT_AT 65536

static char *
make_tmp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("planar-changed-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

typedef struct
{
  int   status;
  char *out;
  char *err;
} RunResult;

/* Runs @argv with extra environment @env (NULL-terminated "K=V" pairs).
 * A death by signal fails the test. */
static void
run (const char * const *argv,
     const char * const *env,
     RunResult          *result)
{
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (env[i], "=", 2);

      envp = g_environ_setenv (envp, kv[0], kv[1], TRUE);
    }
  g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &result->out, &result->err,
                &wait_status, &error);
  g_assert_no_error (error);
  if (!WIFEXITED (wait_status))
    g_error ("%s %s died (wait status %d); stderr: %s", argv[0], argv[1], wait_status, result->err);
  result->status = WEXITSTATUS (wait_status);
}

static void
run_result_clear (RunResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RunResult, run_result_clear)

/* A generated profile of @n events (3.7 MB at 1e5) in @dir. */
static char *
generate (const char *dir,
          const char *name,
          const char *n)
{
  char *path = g_build_filename (dir, name, NULL);
  const char *gen = g_getenv ("PLANAR_GEN");
  const char *argv[] = { gen, "--events", n, "--seed", "3", "-f", "-o", path, NULL };
  g_auto(RunResult) r = { 0 };

  g_assert_nonnull (gen);
  run (argv, NULL, &r);
  if (r.status != 0)
    g_error ("planar-gen exited %d: %s", r.status, r.err);
  return path;
}

static void
cut (const char *path,
     gint64      size)
{
  if (truncate (path, (off_t) size) != 0)
    g_error ("cannot truncate %s: %s", path, g_strerror (errno));
}

static void
assert_changed_error (const GError *error,
                      const char   *path)
{
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED);
  g_assert_nonnull (strstr (error->message, "changed while it was read"));
  g_assert_nonnull (strstr (error->message, path));
}

/* Cut after planar_trace_open() (the structure scanned), before the decode
 * reads the lines. */
static void
test_cut_before_decode (PlanarTestFixture *f,
                        gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *path = generate (dir, "host0.xplane.pb", "100000");
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;

  trace = planar_trace_open (path, &error);
  g_assert_no_error (error);
  g_assert_false (planar_trace_has_changed (trace));

  cut (path, CUT_AT);
  g_assert_false (planar_trace_decode (trace, NULL, &error));
  assert_changed_error (error, path);
  g_assert_true (planar_trace_has_changed (trace));

  g_clear_object (&trace);
}

/* Cut while the structure scan reads the file (a fixed point through the
 * test hook: mapped, not scanned yet). */
static void
cut_hook (const char *point,
          const char *path,
          gpointer    data)
{
  const char *wanted = data;

  if (g_str_equal (point, wanted))
    cut (path, g_str_equal (point, "cache-mapped") ? 4096 : 100);
}

static void
test_cut_before_scan (PlanarTestFixture *f,
                      gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *path = generate (dir, "host0.xplane.pb", "100000");
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;

  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
  PlanarTraceTestOptions options = { cut_hook, (gpointer) "trace-mapped", -1 };

  /* The hook is this load's: a load beside it is not cut. */
  _planar_trace_loader_set_test_options (loader, &options);
  trace = planar_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_clear_object (&trace);
  g_assert_false (planar_trace_loader_open (loader, NULL, &error));
  g_assert_null (planar_trace_loader_get_trace (loader));
  assert_changed_error (error, path);
}

/* Cut after the load, before the stats are read (lazily, from the mapping):
 * the stat read, a search of string stats and an export all say so. */
static void
test_cut_before_stats (PlanarTestFixture *f,
                       gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *path = generate (dir, "host0.xplane.pb", "100000");
  g_autofree char *out = g_build_filename (dir, "out.json", NULL);
  const char *paths[] = { path, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  g_autoptr(GError) error = NULL;
  PlanarTrace *trace;
  gboolean failed = FALSE;

  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (planar_profile_check_files (profile, &error));
  trace = planar_profile_get_trace (profile, 0);

  cut (path, CUT_AT);
  for (guint p = 0; p < planar_trace_get_n_planes (trace) && !failed; p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      for (guint t = 0; t < plane->n_tracks && !failed; t++)
        for (guint64 i = 0; i < plane->tracks[t].n_events && !failed; i++)
          {
            g_array_set_size (stats, 0);
            if (planar_trace_get_event_stats (trace, plane, &plane->tracks[t].events[i], stats, &error) == 0 &&
                error != NULL)
              failed = TRUE;
          }
    }
  g_assert_true (failed);
  assert_changed_error (error, path);
  g_clear_error (&error);
  g_assert_true (planar_trace_has_changed (trace));

  /* Every later read says so too, not only the one that faulted: a search
   * (it reads every event's string stats) and an export. */
  {
    g_autoptr(PlanarSearch) search = planar_search_new (profile, "no event is named this", PLANAR_SEARCH_DEFAULT,
                                                        &error);

    g_assert_no_error (error);
    g_assert_false (planar_search_run (search, NULL, &error));
    assert_changed_error (error, path);
    g_clear_error (&error);
  }
  g_assert_false (planar_export_to_file (profile, PLANAR_EXPORT_CHROME_JSON, out, TRUE, NULL, NULL, NULL, &error));
  assert_changed_error (error, path);
  g_clear_error (&error);

  g_assert_false (planar_profile_check_files (profile, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED);
  g_assert_cmpstr (error->message, ==, "host0.xplane.pb changed on disk since it was opened");

  g_clear_object (&profile);
}

/* A file rewritten with a new modification time, nothing read since:
 * planar_profile_check_files() (the app's focus-in and Reload) says so. */
static void
test_check_files (PlanarTestFixture *f,
                  gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *path = generate (dir, "host0.xplane.pb", "2000");
  const char *paths[] = { path, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(GError) error = NULL;
  struct timespec times[2] = { { 0, UTIME_OMIT }, { 1000000000, 5 } };

  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_true (planar_profile_check_files (profile, &error));
  g_assert_no_error (error);
  g_assert_false (planar_trace_has_changed (planar_profile_get_trace (profile, 0)));

  g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
  g_assert_true (planar_trace_has_changed (planar_profile_get_trace (profile, 0)));
  g_assert_false (planar_profile_check_files (profile, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED);
  g_assert_cmpstr (error->message, ==, "host0.xplane.pb changed on disk since it was opened");

  g_clear_object (&profile);
}

/* The cached index cut after it was mapped: dropped, the profile decoded. */
static void
test_cut_cache (PlanarTestFixture *f,
                gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *cache_dir = g_build_filename (dir, "cache", NULL);
  g_autofree char *path = generate (dir, "host0.xplane.pb", "100000");
  g_autofree char *cache = NULL;
  g_autoptr(PlanarTrace) first = NULL;
  g_autoptr(PlanarTrace) second = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf st;

  planar_cache_set_dir (cache_dir);
  planar_cache_set_enabled (TRUE);
  first = planar_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  planar_cache_wait ();
  cache = planar_cache_get_path (path);
  g_assert_cmpint (g_stat (cache, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 3 * 4096);

  {
    g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
    PlanarTraceTestOptions options = { cut_hook, (gpointer) "cache-mapped", -1 };

    _planar_trace_loader_set_test_options (loader, &options);
    g_assert_true (planar_trace_loader_open (loader, NULL, &error));
    g_assert_true (planar_trace_loader_decode (loader, NULL, &error));
    second = g_object_ref (planar_trace_loader_get_trace (loader));
  }
  g_assert_no_error (error);
  g_assert_false (_planar_cache_was_restored (second));
  g_assert_nonnull (second);
  g_assert_cmpuint (planar_trace_get_n_events (second), ==, planar_trace_get_n_events (first));
  g_assert_false (planar_trace_has_changed (second));
  planar_cache_wait ();

  planar_cache_set_enabled (FALSE);
  g_clear_object (&first);
  g_clear_object (&second);
  planar_test_remove_tree (cache_dir);
}

/* A FIFO named like a profile is refused at once (it used to block the
 * open forever); a symbolic link to a profile opens. */
static void
test_fifo (PlanarTestFixture *f,
           gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *fifo = g_build_filename (dir, "x.xplane.pb", NULL);
  g_autofree char *path = generate (dir, "host0.xplane.pb", "2000");
  g_autofree char *link = g_build_filename (dir, "link.xplane.pb", NULL);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  trace = planar_trace_open (fifo, &error);
  g_assert_null (trace);
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);

  g_assert_cmpint (symlink (path, link), ==, 0);
  trace = planar_trace_load (link, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 2000);

  g_clear_object (&trace);
}

/* A fault in a mapping Planar did not register is not swallowed: the
 * process dies of it (or the sanitizer that was there first reports it). */
static void
test_foreign_fault (void)
{
  g_autofree char *parent_dir = NULL;

  if (g_test_subprocess ())
    {
      /* The parent's folder: this process dies before it could clean up. */
      const char *dir = g_getenv ("PLANAR_TEST_FOREIGN_DIR");
      g_autofree char *path = generate (dir, "host0.xplane.pb", "100000");
      g_autoptr(PlanarTrace) trace = NULL;
      volatile const guint8 *bytes;
      guint8 sum = 0;
      int fd;

      /* The handler is in place (a profile is mapped). */
      trace = planar_trace_open (path, NULL);
      g_assert_nonnull (trace);
      fd = g_open (path, O_RDONLY, 0);
      bytes = mmap (NULL, 1 << 20, PROT_READ, MAP_PRIVATE, fd, 0);
      g_assert_true (bytes != MAP_FAILED);
      cut (path, 4096);
      for (gsize i = 0; i < (1 << 20); i += 4096)
        sum += bytes[i];
      g_print ("read past the end and lived (%u)\n", sum);
      return;
    }
  parent_dir = make_tmp_dir ();
  g_setenv ("PLANAR_TEST_FOREIGN_DIR", parent_dir, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv ("PLANAR_TEST_FOREIGN_DIR");
  planar_test_remove_tree (parent_dir);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stdout_unmatched ("*lived*");
}

/* planar-cli: a file cut while a command reads it exits 3 with the
 * message, never dies of a signal. */
static void
test_cli (PlanarTestFixture *f,
          gconstpointer      data)
{
  const char *cli = g_getenv ("PLANAR_CLI");
  const char *dir = f->dir;
  g_autofree char *path = generate (dir, "host0.xplane.pb", "100000");
  g_autofree char *copy = NULL;
  g_autofree char *bytes = NULL;
  gsize len;
  struct
  {
    const char *point;
    const char *args[8];
  } cases[] = {
    { "PLANAR_TEST_CHANGE_AT=trace-opened:65536", { "info", NULL } },
    { "PLANAR_TEST_CHANGE_AT=trace-mapped:100", { "info", "--json", NULL } },
    { "PLANAR_TEST_CHANGE_AT=trace-opened:65536", { "events", "--plane", "/device:GPU:0", "--line", "Stream #7(Compute)",
                                                    NULL } },
    { "PLANAR_TEST_CHANGE_AT=trace-decoded:65536", { "events", "--plane", "/device:GPU:0", "--line",
                                                     "Stream #7(Compute)", NULL } },
  };

  g_assert_nonnull (cli);
  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
  copy = g_build_filename (dir, "cut.xplane.pb", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) argv = g_ptr_array_new ();
      const char *env[] = { cases[i].point, "PLANAR_CACHE=0", NULL };
      g_auto(RunResult) r = { 0 };

      g_assert_true (g_file_set_contents (copy, bytes, (gssize) len, NULL));
      g_ptr_array_add (argv, (char *) cli);
      for (guint a = 0; cases[i].args[a] != NULL; a++)
        g_ptr_array_add (argv, (char *) cases[i].args[a]);
      g_ptr_array_add (argv, copy);
      g_ptr_array_add (argv, NULL);
      run ((const char * const *) argv->pdata, env, &r);
      g_test_message ("case %u: %s: exit %d, %s", i, cases[i].point, r.status, r.err);
      g_assert_cmpint (r.status, ==, 3);
      g_assert_nonnull (strstr (r.err, "planar-cli: the file changed while it was read: "));
      g_assert_nonnull (strstr (r.err, copy));
    }

}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  PLANAR_TEST_ADD ("/changed-file/cut-before-scan", test_cut_before_scan);
  PLANAR_TEST_ADD ("/changed-file/cut-before-decode", test_cut_before_decode);
  PLANAR_TEST_ADD ("/changed-file/cut-before-stats", test_cut_before_stats);
  PLANAR_TEST_ADD ("/changed-file/check-files", test_check_files);
  PLANAR_TEST_ADD ("/changed-file/cut-cache", test_cut_cache);
  PLANAR_TEST_ADD ("/changed-file/fifo", test_fifo);
  g_test_add_func ("/changed-file/foreign-fault", test_foreign_fault);
  PLANAR_TEST_ADD ("/changed-file/cli", test_cli);

  return g_test_run ();
}
