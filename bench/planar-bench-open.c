/* planar-bench-open.c: the time from starting `planar PATH` to its first
 * frame, as the user sees it, against a bare libadwaita window started the
 * same way in the same run (bench/planar-bench-adw-window.c).
 *
 * Each program runs as a child with PLANAR_BENCH_FIRST_FRAME set: Planar
 * prints "first-frame USEC" when the frame clock has painted the first
 * frame in which the timeline draws every track of the file that its first
 * view shows (scrolled to the top, the window's default size) from its
 * complete index (app/planar-window-first-frame.c), the bare window when
 * it has painted its rectangle; USEC is g_get_monotonic_time(), the clock
 * read here just before the child is spawned. Runs alternate between the
 * programs so that a busy machine slows them alike; each figure is the
 * median of the runs. The profiles come from `planar-gen --seed 1`, made
 * once in a folder outside the repository (PLANAR_BENCH_DIR, default
 * $XDG_CACHE_HOME/planar-bench); the 1e8 one (~4 GB) is skipped, with the
 * reason, when the disk has no room for it. No cached index is used
 * (PLANAR_CACHE=0): this is the cold open. With --cached it is the reopen
 * instead: each profile's index is written first, once, by a load here into
 * a cache folder of the benchmark's own (DIR/cache, PLANAR_CACHE_DIR), and
 * the app restores it. Beside each time, the CPU time
 * the child used up to that frame (every thread's user + system time, read
 * with getrusage (RUSAGE_CHILDREN) once it has ended: it ends at the frame). 
 *
 * It needs a display and a session bus, as the application does:
 *   xvfb-run -a -s '-screen 0 1920x1200x24' dbus-run-session -- planar-bench-open
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include "planar-cache.h"
#include "planar-model.h"

/* With --cached: the cache folder the app reads (NULL: no cached index). */
static char *cache_dir;

/* A run that has not painted by then is stopped and reported. */
#define RUN_TIMEOUT_S 300

typedef struct
{
  char   *label;
  char   *app;      /* the planar binary; NULL for the bare window */
  char   *path;
  double  n_events; /* 0 for the bare window and real samples */
  guint64 size;
  GArray *seconds;  /* double */
  GArray *cpu;      /* double, the child's CPU seconds to the same frame */
  char   *skipped;  /* why, or NULL */
} Target;

typedef struct
{
  GMutex        lock;
  GCond         cond;
  gboolean      done;
  GCancellable *cancellable;
} Watchdog;

static gpointer
watchdog_thread (gpointer data)
{
  Watchdog *w = data;
  gint64 deadline = g_get_monotonic_time () + RUN_TIMEOUT_S * G_TIME_SPAN_SECOND;

  g_mutex_lock (&w->lock);
  while (!w->done)
    if (!g_cond_wait_until (&w->cond, &w->lock, deadline))
      {
        g_cancellable_cancel (w->cancellable);
        break;
      }
  g_mutex_unlock (&w->lock);
  return NULL;
}

static double
children_cpu_seconds (void)
{
  struct rusage usage;

  if (getrusage (RUSAGE_CHILDREN, &usage) != 0)
    return 0.0;
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/* Starts @argv with the first-frame watch on and returns the seconds from
 * the spawn to the first frame, or a negative number on failure; *@cpu_s is
 * the CPU time the child used. */
static double
time_first_frame (const char * const *argv,
                  gboolean             verbose,
                  double              *cpu_s)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  Watchdog w = { 0 };
  GThread *thread;
  const char *line;
  gint64 t0, t1 = 0;
  double cpu0 = children_cpu_seconds ();

  g_subprocess_launcher_setenv (launcher, "PLANAR_BENCH_FIRST_FRAME", verbose ? "verbose" : "1", TRUE);
  if (cache_dir != NULL)
    {
      g_subprocess_launcher_unsetenv (launcher, "PLANAR_CACHE");
      g_subprocess_launcher_setenv (launcher, "PLANAR_CACHE_DIR", cache_dir, TRUE);
    }
  else
    g_subprocess_launcher_setenv (launcher, "PLANAR_CACHE", "0", TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);

  t0 = g_get_monotonic_time ();
  child = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (child == NULL)
    {
      g_printerr ("planar-bench-open: %s\n", error->message);
      return -1.0;
    }
  g_mutex_init (&w.lock);
  g_cond_init (&w.cond);
  w.cancellable = g_cancellable_new ();
  thread = g_thread_new ("watchdog", watchdog_thread, &w);
  if (!g_subprocess_communicate_utf8 (child, NULL, w.cancellable, &out, NULL, &error))
    {
      g_printerr ("planar-bench-open: %s: %s\n", argv[0], error->message);
      g_subprocess_force_exit (child);
    }
  g_mutex_lock (&w.lock);
  w.done = TRUE;
  g_cond_signal (&w.cond);
  g_mutex_unlock (&w.lock);
  g_thread_join (thread);
  g_object_unref (w.cancellable);
  g_mutex_clear (&w.lock);
  g_cond_clear (&w.cond);
  g_subprocess_wait (child, NULL, NULL);
  /* Reaped: its CPU time is counted among the children's. */
  *cpu_s = children_cpu_seconds () - cpu0;

  line = out != NULL ? strstr (out, "first-frame ") : NULL;
  if (line != NULL)
    t1 = g_ascii_strtoll (line + strlen ("first-frame "), NULL, 10);
  if (t1 <= t0)
    {
      g_printerr ("planar-bench-open: %s printed no first frame\n", argv[0]);
      return -1.0;
    }
  return (double) (t1 - t0) / G_TIME_SPAN_SECOND;
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (GArray *values)
{
  g_autoptr(GArray) sorted = NULL;

  if (values->len == 0)
    return 0.0;
  sorted = g_array_copy (values);
  g_array_sort (sorted, compare_double);
  if (sorted->len % 2 == 1)
    return g_array_index (sorted, double, sorted->len / 2);
  return (g_array_index (sorted, double, sorted->len / 2 - 1) + g_array_index (sorted, double, sorted->len / 2)) / 2;
}

static guint64
file_size (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 ? (guint64) st.st_size : 0;
}

/* The events planar-gen writes at @n take about 40 bytes each. */
static gboolean
ensure_profile (Target     *target,
                const char *dir,
                const char *size_arg)
{
  g_autoptr(GError) error = NULL;
  struct statvfs fs;
  guint64 needed = (guint64) (target->n_events * 42.0) + ((guint64) 1 << 30);
  int status = 0;

  if (g_file_test (target->path, G_FILE_TEST_EXISTS))
    {
      target->size = file_size (target->path);
      return TRUE;
    }
  if (statvfs (dir, &fs) == 0 && (guint64) fs.f_bavail * fs.f_frsize < needed)
    {
      target->skipped = g_strdup_printf ("skipped: %.1f GB free in %s, %.1f GB needed",
                                         (double) fs.f_bavail * fs.f_frsize / 1e9, dir, needed / 1e9);
      return FALSE;
    }
  {
    const char *argv[] = { PLANAR_GEN_PATH, "--seed", "1", "--events", size_arg, "--output", target->path, NULL };

    g_printerr ("planar-bench-open: writing %s (once)\n", target->path);
    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error)
        || !g_spawn_check_wait_status (status, &error))
      {
        target->skipped = g_strdup_printf ("skipped: planar-gen failed: %s", error->message);
        return FALSE;
      }
  }
  target->size = file_size (target->path);
  return TRUE;
}

/* With --cached: @target's index in the benchmark's cache folder, written
 * here by a load of the profile unless a sound one is there (whatever its
 * size); else @target is skipped, with the reason. */
static void
ensure_cached (Target *target)
{
  g_autofree char *index = NULL;
  g_autoptr(GError) error = NULL;
  PlanarTrace *trace;

  planar_cache_set_dir (cache_dir);
  planar_cache_set_enabled (TRUE);
  planar_cache_set_limit (G_MAXUINT64);
  index = planar_cache_get_path (target->path);
  if (!g_file_test (index, G_FILE_TEST_IS_REGULAR))
    g_printerr ("planar-bench-open: writing the cached index of %s (once)\n", target->path);
  trace = planar_trace_load (target->path, NULL, &error);
  planar_cache_wait ();
  if (trace == NULL)
    target->skipped = g_strdup_printf ("skipped: %s", error->message);
  else if (!g_file_test (index, G_FILE_TEST_IS_REGULAR))
    target->skipped = g_strdup_printf ("skipped: no cached index was written (%s)", index);
  g_clear_object (&trace);
}

/* The smallest real XSpace among the samples beside the clone, if any. */
static char *
smallest_sample (void)
{
  const char *env = g_getenv ("PLANAR_SAMPLES_DIR");
  g_autofree char *dir = g_strdup (env != NULL ? env : PLANAR_SOURCE_DIR "/../shared/samples");
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  char *best = NULL;
  guint64 best_size = G_MAXUINT64;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = NULL;
      guint64 size;

      if (!g_str_has_suffix (name, ".xplane.pb"))
        continue;
      path = g_build_filename (dir, name, NULL);
      size = file_size (path);
      if (size > 0 && size < best_size)
        {
          g_free (best);
          best = g_steal_pointer (&path);
          best_size = size;
        }
    }
  return best;
}

static void
target_free (gpointer data)
{
  Target *t = data;

  g_free (t->label);
  g_free (t->app);
  g_free (t->path);
  g_free (t->skipped);
  g_array_unref (t->seconds);
  g_array_unref (t->cpu);
  g_free (t);
}

static Target *
target_new (const char *label,
            const char *app,
            const char *path)
{
  Target *t = g_new0 (Target, 1);

  t->label = g_strdup (label);
  t->app = g_strdup (app);
  t->path = g_strdup (path);
  t->seconds = g_array_new (FALSE, FALSE, sizeof (double));
  t->cpu = g_array_new (FALSE, FALSE, sizeof (double));
  return t;
}

/* The profile of @n_events run with @app, if timed. */
static Target *
find_target (GPtrArray  *targets,
             const char *app,
             double      n_events)
{
  for (guint i = 0; i < targets->len; i++)
    {
      Target *t = g_ptr_array_index (targets, i);

      if (t->skipped == NULL && t->n_events == n_events && g_strcmp0 (t->app, app) == 0)
        return t;
    }
  return NULL;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *sizes_arg = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *baseline = NULL;
  int runs = 5;
  int big_runs = 3;
  gboolean verbose = FALSE;
  gboolean no_sample = FALSE;
  gboolean cached = FALSE;
  GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_arg, "Profile sizes in events (default 1e6,1e7,1e8)", "N,N..." },
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "Runs of each program (default 5)", "N" },
    { "big-runs", 0, 0, G_OPTION_ARG_INT, &big_runs, "Runs of profiles from 1e8 events (default 3)", "N" },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "Where the profiles are made once (default $PLANAR_BENCH_DIR)", "DIR" },
    { "baseline", 0, 0, G_OPTION_ARG_FILENAME, &baseline, "Another build of planar to time in the same runs "
      "(each profile twice: this build's and the baseline's)", "PLANAR" },
    { "no-sample", 0, 0, G_OPTION_ARG_NONE, &no_sample, "Leave out the smallest real sample", NULL },
    { "cached", 0, 0, G_OPTION_ARG_NONE, &cached, "Reopen from a cached index (written once beforehand by "
      "a load into DIR/cache) instead of decoding", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Let Planar say when it reached each step", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- time to Planar's first frame");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func (target_free);
  g_auto(GStrv) sizes = NULL;
  g_autofree char *sample = NULL;
  Target *window, *first_gen = NULL, *big = NULL, *one;
  double floor_s, floor_cpu;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("planar-bench-open: %s\n", error->message);
      return 2;
    }
  if (dir == NULL)
    dir = g_strdup (g_getenv ("PLANAR_BENCH_DIR"));
  if (dir == NULL)
    dir = g_build_filename (g_get_user_cache_dir (), "planar-bench", NULL);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_printerr ("planar-bench-open: cannot make %s\n", dir);
      return 3;
    }
  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("planar-bench-open: no display: run it under xvfb-run\n");
      return 2;
    }

  if (cached)
    {
      cache_dir = g_build_filename (dir, "cache", NULL);
      if (g_mkdir_with_parents (cache_dir, 0700) != 0)
        {
          g_printerr ("planar-bench-open: cannot make %s\n", cache_dir);
          return 3;
        }
    }

  window = target_new ("bare libadwaita window, one rectangle", NULL, NULL);
  g_ptr_array_add (targets, window);
  if (!no_sample && (sample = smallest_sample ()) != NULL)
    {
      g_autofree char *base = g_path_get_basename (sample);
      g_autofree char *label = g_strdup_printf ("Planar, smallest real sample (%s)", base);

      g_ptr_array_add (targets, target_new (label, PLANAR_APP_PATH, sample));
      ((Target *) g_ptr_array_index (targets, targets->len - 1))->size = file_size (sample);
      if (baseline != NULL)
        {
          g_autofree char *base_label = g_strdup_printf ("baseline %s", label);

          g_ptr_array_add (targets, target_new (base_label, baseline, sample));
          ((Target *) g_ptr_array_index (targets, targets->len - 1))->size = file_size (sample);
        }
    }
  sizes = g_strsplit (sizes_arg != NULL ? sizes_arg : "1e6,1e7,1e8", ",", -1);
  for (guint i = 0; sizes[i] != NULL; i++)
    {
      g_autofree char *name = g_strdup_printf ("gen-seed1-%s.xplane.pb", sizes[i]);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *label = g_strdup_printf ("Planar, planar-gen %s events", sizes[i]);
      Target *t = target_new (label, PLANAR_APP_PATH, path);

      t->n_events = g_ascii_strtod (sizes[i], NULL);
      g_ptr_array_add (targets, t);
      ensure_profile (t, dir, sizes[i]);
      if (t->skipped == NULL && first_gen == NULL)
        first_gen = t;
      if (t->skipped == NULL && t->n_events >= 1e8)
        big = t;
      if (baseline != NULL)
        {
          g_autofree char *base_label = g_strdup_printf ("baseline %s", label);
          Target *b = target_new (base_label, baseline, path);

          b->n_events = t->n_events;
          b->size = t->size;
          b->skipped = g_strdup (t->skipped);
          g_ptr_array_add (targets, b);
        }
    }

  /* One index per profile, for this build and the baseline alike. */
  for (guint i = 0; i < targets->len && cache_dir != NULL; i++)
    {
      Target *t = g_ptr_array_index (targets, i);
      Target *first = NULL;

      for (guint k = 0; k < i && t->app != NULL; k++)
        if (g_strcmp0 (((Target *) g_ptr_array_index (targets, k))->path, t->path) == 0)
          first = g_ptr_array_index (targets, k);
      if (t->app == NULL || t->skipped != NULL)
        continue;
      if (first != NULL)
        t->skipped = g_strdup (first->skipped);
      else
        ensure_cached (t);
    }

  for (int r = 0; r < MAX (runs, big_runs); r++)
    for (guint i = 0; i < targets->len; i++)
      {
        Target *t = g_ptr_array_index (targets, i);
        const char *adw_argv[] = { PLANAR_ADW_WINDOW_PATH, NULL };
        const char *app_argv[] = { t->app, t->path, NULL };
        double s, cpu = 0.0;

        if (t->skipped != NULL || r >= (t->n_events >= 1e8 ? big_runs : runs))
          continue;
        s = time_first_frame (t->app == NULL ? adw_argv : app_argv, verbose, &cpu);
        if (s < 0)
          {
            t->skipped = g_strdup ("failed: no first frame (see above)");
            continue;
          }
        g_array_append_val (t->seconds, s);
        g_array_append_val (t->cpu, cpu);
        g_printerr ("planar-bench-open: run %d: %s: %.3f s, CPU %.3f s\n", r + 1, t->label, s, cpu);
      }

  floor_s = median (window->seconds);
  floor_cpu = median (window->cpu);
  printf ("| program | file MB | runs | first frame s (median) | min s | max s | / bare window | / 1e6 "
          "| process CPU s (median) | CPU / bare window |\n");
  printf ("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (guint i = 0; i < targets->len; i++)
    {
      Target *t = g_ptr_array_index (targets, i);
      double m = median (t->seconds);
      double lo = 0, hi = 0;

      if (t->skipped != NULL)
        {
          printf ("| %s | %.1f | 0 | %s | | | | | | |\n", t->label, t->size / 1e6, t->skipped);
          continue;
        }
      for (guint k = 0; k < t->seconds->len; k++)
        {
          double s = g_array_index (t->seconds, double, k);

          lo = k == 0 || s < lo ? s : lo;
          hi = k == 0 || s > hi ? s : hi;
        }
      printf ("| %s | %.1f | %u | %.3f | %.3f | %.3f | %.2fx | ", t->label, t->size / 1e6, t->seconds->len, m, lo, hi,
              floor_s > 0 ? m / floor_s : 0.0);
      one = t->n_events > 0 ? find_target (targets, t->app, 1e6) : NULL;
      if (one != NULL && one->seconds->len > 0)
        printf ("%.2fx | ", m / median (one->seconds));
      else
        printf ("| ");
      printf ("%.3f | %.2fx |\n", median (t->cpu), floor_cpu > 0 ? median (t->cpu) / floor_cpu : 0.0);
    }
  printf ("\nFirst frame: the frame clock's after-paint of the first frame drawing every track of the file "
          "in the first view from its complete index (Planar), or the rectangle (bare window); from the spawn.%s\n",
          cache_dir != NULL ? " Planar reopened each profile from its cached index (--cached)." : "");
  if (first_gen != NULL && first_gen->n_events == 1e6 && floor_s > 0)
    printf ("Target 1, first frame at 1e6 <= 1.5x the bare libadwaita window: %.2fx\n",
            median (first_gen->seconds) / floor_s);
  if (big != NULL && first_gen != NULL && first_gen->n_events == 1e6 && big->seconds->len > 0)
    printf ("Target 2, first frame at 1e8 <= 3x the first frame at 1e6: %.2fx\n",
            median (big->seconds) / median (first_gen->seconds));
  if (baseline != NULL && (one = find_target (targets, baseline, 1e6)) != NULL && floor_s > 0)
    printf ("The baseline's first frame at 1e6: %.2fx the bare window\n", median (one->seconds) / floor_s);
  return 0;
}
