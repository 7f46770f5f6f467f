/* planar-bench-load.c: how fast a profile becomes a ready index, against
 * two baselines measured in the same run: reading the file, and unpacking it
 * as one message with protobuf-c (what any protobuf-based viewer does
 * first). Each measurement runs in a child process of its own so that peak
 * memory is that measurement's alone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache-private.h"
#include "planar-model.h"
#include "planar-trace-private.h"
#include "xplane.pb-c.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPEATS 3

/* MODE_INDEX: the file's events indexed and queryable (what the targets
 * are about); MODE_PLANAR: that plus the derived lines and the flow index,
 * as the application loads, with no cached index; MODE_PRIME: the same,
 * then writing its cached index (timed apart); MODE_CACHED: a reopen from
 * that cached index. MODE_CHECK: what a reopen does first, hashing the
 * file for the cached index's content key (timed after the structure
 * scan). MODE_STATS indexes the file, then counts its events'
 * stats (in a child of its own: reading them touches the whole file, which
 * would count in the index's RSS). MODE_SESSION_EAGER and MODE_SESSION_LAZY open a
 * session folder of several hosts as the application does, every host
 * decoded or only the first (planar_profile_set_lazy_hosts()). */
typedef enum
{
  MODE_READ,
  MODE_UNPACK,
  MODE_INDEX,
  MODE_PLANAR,
  MODE_PRIME,
  MODE_CACHED,
  MODE_CHECK,
  MODE_STATS,
  MODE_SESSION_EAGER,
  MODE_SESSION_LAZY,
  N_MODES
} Mode;

static const char * const mode_names[N_MODES] = { "read", "unpack", "index", "planar", "prime", "cached",
                                                  "check", "stats", "session-eager", "session-lazy" };

/* Set (in the environment, for the children): each child first drops the
 * profile's pages and its cached index's from the page cache, so that
 * what it reads comes from the disk. */
#define COLD_ENV "PLANAR_BENCH_COLD"

/* The process's CPU time so far, every thread's. */
static double
cpu_now (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec / 1e6 + (double) ru.ru_stime.tv_sec
         + (double) ru.ru_stime.tv_usec / 1e6;
}

static void
drop_from_page_cache (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return;
  /* Dirty pages are not dropped: written first. */
  fdatasync (fd);
  posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
  close (fd);
}

/* The session of the lazy-hosts table: this many hosts of this many
 * events each. */
#define SESSION_HOSTS  8
#define SESSION_EVENTS 1000000

typedef struct
{
  double  seconds;
  /* User and system CPU time of the child up to the end of what is timed
   * (the load's: start-up included; the check's: the check alone), every
   * thread's: what a busy machine's wall-clock times hide. */
  double  cpu_seconds;
  guint64 peak_rss;
  guint64 events;
  /* MODE_PLANAR only: the largest anonymous memory seen (file-backed pages
   * of the mapped profile left out), and when the first track was ready
   * (what a progressive viewer can draw first). */
  guint64 peak_anon;
  double  first_track_seconds;
  /* MODE_PRIME: writing the cached index. */
  double  write_seconds;
  /* Full loads: the index's bytes in file-backed memory at the end
   * (planar-spill.h). */
  guint64 spilled;
  /* MODE_STATS: XStats per file event (the event's own, not its
   * metadata's), counted after the timing on one event in @stats_stride. */
  double  stats_per_event;
  guint64 stats_stride;
} Measurement;

/* Polls the child's own RssAnon and its trace's track readiness while the
 * main thread decodes. */
typedef struct
{
  PlanarTrace *trace;
  gint64       t0;
  gint         stop;
  guint64      peak_anon;
  double       first_track_seconds;
} Sampler;

static guint64
read_rss_anon (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, "RssAnon:");
  return line != NULL ? g_ascii_strtoull (line + strlen ("RssAnon:"), NULL, 10) * 1024 : 0;
}

static gboolean
any_track_ready (PlanarTrace *trace)
{
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    for (guint t = 0; t < planar_trace_get_plane (trace, p)->n_tracks; t++)
      if (planar_trace_is_track_ready (trace, p, t))
        return TRUE;
  return FALSE;
}

static gpointer
sampler_thread (gpointer data)
{
  Sampler *s = data;

  while (!g_atomic_int_get (&s->stop))
    {
      s->peak_anon = MAX (s->peak_anon, read_rss_anon ());
      if (s->first_track_seconds < 0 && s->trace != NULL && any_track_ready (s->trace))
        s->first_track_seconds = (double) (g_get_monotonic_time () - s->t0) / 1e6;
      g_usleep (2000);
    }
  return NULL;
}

/* The file events' own XStats per event, over every event of the file's
 * tracks up to 200,000 of them, else over one in *@stride. */
static double
count_stats (PlanarTrace *trace,
             guint64     *stride)
{
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  guint64 n_stats = 0, n_sampled = 0, k = 0;

  *stride = planar_trace_get_n_events (trace) / 200000 + 1;
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      for (guint t = 0; t < plane->n_tracks; t++)
        for (gsize i = 0; !plane->tracks[t].derived && i < plane->tracks[t].n_events; i++, k++)
          {
            if (k % *stride != 0)
              continue;
            g_array_set_size (stats, 0);
            planar_trace_get_event_stats (trace, plane, &plane->tracks[t].events[i], stats, NULL);
            for (guint s = 0; s < stats->len; s++)
              n_stats += !g_array_index (stats, PlanarStat, s).from_metadata;
            n_sampled++;
          }
    }
  return n_sampled > 0 ? (double) n_stats / (double) n_sampled : 0.0;
}

/* Child side: does one thing and prints "seconds events" on stdout. */
static int
run_child (Mode        mode,
           const char *path)
{
  gint64 t0;
  guint64 events = 0;

  if (g_getenv (COLD_ENV) != NULL)
    {
      g_autofree char *cache = planar_cache_get_path (path);

      drop_from_page_cache (path);
      drop_from_page_cache (cache);
    }
  t0 = g_get_monotonic_time ();
  if (mode == MODE_CHECK)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PlanarTrace) trace = NULL;
      guint8 hash[16];
      gint64 c0;
      double cpu0;

      planar_cache_set_enabled (TRUE);
      trace = planar_trace_open (path, &error);
      c0 = g_get_monotonic_time ();
      cpu0 = cpu_now ();
      if (trace == NULL || !_planar_cache_check_content (trace, NULL, NULL, hash, &error))
        {
          fprintf (stderr, "planar-bench-load: %s\n", error->message);
          return 1;
        }
      printf ("%.6f %" G_GUINT64_FORMAT " 0 0 0 0 0 0 %.6f\n", (double) (g_get_monotonic_time () - c0) / 1e6,
              (guint64) planar_trace_get_file_size (trace), cpu_now () - cpu0);
      fflush (stdout);
      _exit (0);
    }

  if (mode == MODE_SESSION_EAGER || mode == MODE_SESSION_LAZY)
    {
      g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      g_autoptr(PlanarProfile) profile = NULL;
      g_autoptr(GError) error = NULL;
      Sampler sampler = { NULL, t0, 0, 0, -1.0 };
      GThread *thread;
      const char *name;
      gboolean ok;
      double seconds;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (name, ".xplane.pb"))
          g_ptr_array_add (paths, g_build_filename (path, name, NULL));
      if (paths->len == 0)
        return 1;
      g_ptr_array_sort (paths, (GCompareFunc) g_strcmp0);
      g_ptr_array_add (paths, NULL);
      planar_cache_set_enabled (FALSE);
      profile = planar_profile_new ((const char * const *) paths->pdata);
      planar_profile_set_lazy_hosts (profile, mode == MODE_SESSION_LAZY ? PLANAR_PROFILE_LAZY_HOSTS : 0);
      thread = g_thread_new ("sampler", sampler_thread, &sampler);
      ok = planar_profile_load (profile, NULL, &error);
      seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
      g_atomic_int_set (&sampler.stop, 1);
      g_thread_join (thread);
      sampler.peak_anon = MAX (sampler.peak_anon, read_rss_anon ());
      if (!ok)
        {
          fprintf (stderr, "planar-bench-load: %s\n", error->message);
          return 1;
        }
      printf ("%.6f %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %.6f 0 0\n", seconds,
              planar_profile_get_n_events (profile), sampler.peak_anon, seconds);
      fflush (stdout);
      _exit (0);
    }
  if (mode == MODE_READ || mode == MODE_UNPACK)
    {
      struct stat st;
      guint8 *buf;
      gsize at = 0;
      int fd = open (path, O_RDONLY | O_CLOEXEC);

      if (fd < 0 || fstat (fd, &st) != 0)
        return 1;
      buf = malloc (MAX ((gsize) st.st_size, 1));
      while (at < (gsize) st.st_size)
        {
          ssize_t n = read (fd, buf + at, MIN ((gsize) st.st_size - at, (gsize) 1 << 24));

          if (n <= 0)
            {
              if (n < 0 && errno == EINTR)
                continue;
              return 1;
            }
          at += (gsize) n;
        }
      close (fd);
      if (mode == MODE_UNPACK)
        {
          Tensorflow__Profiler__XSpace *space = tensorflow__profiler__xspace__unpack (NULL, at, buf);

          if (space == NULL)
            return 1;
          for (gsize p = 0; p < space->n_planes; p++)
            for (gsize l = 0; l < space->planes[p]->n_lines; l++)
              events += space->planes[p]->lines[l]->n_events;
          /* Timed up to here: a viewer has its events now. Freeing is not
           * part of becoming ready. */
          printf ("%.6f %" G_GUINT64_FORMAT "\n", (double) (g_get_monotonic_time () - t0) / 1e6, events);
          fflush (stdout);
          _exit (0);
        }
      free (buf);
    }
  else
    {
      g_autoptr(GError) error = NULL;
      PlanarTrace *trace = NULL;
      Sampler sampler = { NULL, t0, 0, 0, -1.0 };
      GThread *thread = NULL;
      gboolean full = mode == MODE_PLANAR || mode == MODE_PRIME || mode == MODE_CACHED;
      g_autoptr(PlanarTraceLoader) loader = NULL;
      double seconds, write_seconds = 0, stats_per_event = 0, cpu;
      guint64 spilled = 0, stats_stride = 0;

      /* Only the reopen reads a cached index; priming writes one afresh,
       * whatever its size. */
      planar_cache_set_enabled (mode == MODE_PRIME || mode == MODE_CACHED);
      planar_cache_set_limit (G_MAXUINT64);
      if (mode == MODE_PRIME)
        {
          g_autofree char *cache = planar_cache_get_path (path);

          g_unlink (cache);
        }
      /* The loader's steps; without deriving, the decode alone. */
      loader = planar_trace_loader_new (path);
      planar_trace_loader_set_derive (loader, full);
      if (planar_trace_loader_open (loader, NULL, &error))
        trace = g_object_ref (planar_trace_loader_get_trace (loader));
      sampler.trace = trace;
      /* The sampler only watches the full loads: its polling would cost the
       * index-only measurement its comparison with the baselines. */
      if (trace != NULL && full)
        thread = g_thread_new ("sampler", sampler_thread, &sampler);
      if (trace != NULL && !planar_trace_loader_decode (loader, NULL, &error))
        g_clear_object (&trace);
      seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
      cpu = cpu_now ();
      if (mode == MODE_PRIME)
        {
          gint64 w0 = g_get_monotonic_time ();

          planar_cache_wait ();
          write_seconds = (double) (g_get_monotonic_time () - w0) / 1e6;
        }
      if (thread != NULL)
        {
          g_atomic_int_set (&sampler.stop, 1);
          g_thread_join (thread);
          sampler.peak_anon = MAX (sampler.peak_anon, read_rss_anon ());
        }
      if (trace == NULL)
        {
          fprintf (stderr, "planar-bench-load: %s\n", error->message);
          return 1;
        }
      events = planar_trace_get_n_events (trace);
      planar_spill_get_usage (&spilled, NULL);
      if (mode == MODE_STATS)
        stats_per_event = count_stats (trace, &stats_stride);
      printf ("%.6f %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %.6f %.6f %" G_GUINT64_FORMAT " %.6f %" G_GUINT64_FORMAT " %.6f\n",
              seconds, events, sampler.peak_anon,
              sampler.first_track_seconds < 0 ? seconds : sampler.first_track_seconds,
              write_seconds, spilled, stats_per_event, stats_stride, cpu);
      fflush (stdout);
      _exit (0);
    }

  printf ("%.6f %" G_GUINT64_FORMAT "\n", (double) (g_get_monotonic_time () - t0) / 1e6, events);
  return 0;
}

static gboolean
measure (const char  *self_exe,
         Mode         mode,
         const char  *path,
         Measurement *out)
{
  int pipefd[2];
  pid_t pid;
  int status;
  struct rusage usage;
  char buf[256] = { 0 };
  ssize_t n;
  double cpu = -1;

  if (pipe (pipefd) != 0)
    return FALSE;
  pid = fork ();
  if (pid < 0)
    return FALSE;
  if (pid == 0)
    {
      dup2 (pipefd[1], STDOUT_FILENO);
      close (pipefd[0]);
      close (pipefd[1]);
      execl (self_exe, self_exe, "--child", mode_names[mode], path, (char *) NULL);
      _exit (127);
    }
  close (pipefd[1]);
  n = read (pipefd[0], buf, sizeof buf - 1);
  close (pipefd[0]);
  if (wait4 (pid, &status, 0, &usage) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0 || n <= 0)
    return FALSE;
  out->peak_anon = 0;
  out->first_track_seconds = 0;
  out->write_seconds = 0;
  out->spilled = 0;
  out->stats_per_event = 0;
  out->stats_stride = 0;
  if (sscanf (buf, "%lf %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %lf %lf %" G_GUINT64_FORMAT " %lf %" G_GUINT64_FORMAT " %lf",
              &out->seconds, &out->events, &out->peak_anon, &out->first_track_seconds, &out->write_seconds,
              &out->spilled, &out->stats_per_event, &out->stats_stride, &cpu) < 2)
    return FALSE;
  out->peak_rss = (guint64) usage.ru_maxrss * 1024;
  /* The child's own figure when it gives one (up to the end of the timed
   * part), else its whole run. */
  out->cpu_seconds = cpu >= 0 ? cpu
                     : (double) usage.ru_utime.tv_sec + (double) usage.ru_utime.tv_usec / 1e6
                       + (double) usage.ru_stime.tv_sec + (double) usage.ru_stime.tv_usec / 1e6;
  return TRUE;
}

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

/* The median time of @repeats runs (at most REPEATS), and the largest
 * peak RSS seen. */
static gboolean
measure_median (const char  *self_exe,
                Mode         mode,
                const char  *path,
                guint        repeats,
                Measurement *out)
{
  double times[REPEATS], cpu[REPEATS];

  memset (out, 0, sizeof *out);
  for (guint i = 0; i < repeats; i++)
    {
      Measurement m;

      if (!measure (self_exe, mode, path, &m))
        return FALSE;
      times[i] = m.seconds;
      cpu[i] = m.cpu_seconds;
      out->peak_rss = MAX (out->peak_rss, m.peak_rss);
      out->peak_anon = MAX (out->peak_anon, m.peak_anon);
      /* The first track's time goes with the median run below; the
       * slowest is kept, which errs on the safe side. */
      out->first_track_seconds = MAX (out->first_track_seconds, m.first_track_seconds);
      out->write_seconds = MAX (out->write_seconds, m.write_seconds);
      out->spilled = MAX (out->spilled, m.spilled);
      out->stats_per_event = m.stats_per_event;
      out->stats_stride = m.stats_stride;
      out->events = m.events;
    }
  qsort (times, repeats, sizeof (double), compare_double);
  qsort (cpu, repeats, sizeof (double), compare_double);
  out->seconds = times[repeats / 2];
  out->cpu_seconds = cpu[repeats / 2];
  return TRUE;
}

/* Runs planar-gen with @argv unless @path is there already. */
static gboolean
generate (const char * const *argv,
          const char         *path,
          const char         *what)
{
  g_autoptr(GError) error = NULL;
  int status;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  fprintf (stderr, "generating %s into %s\n", what, path);
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                     &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    {
      fprintf (stderr, "planar-bench-load: cannot generate %s: %s\n", path, error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
ensure_profile (const char *gen,
                const char *path,
                guint64     events)
{
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, events);
  g_autofree char *what = g_strdup_printf ("%s events", count);
  const char *argv[] = { gen, "--events", count, "--seed", "1", "-o", path, NULL };

  return generate (argv, path, what);
}

static gboolean
ensure_session (const char *gen,
                const char *path)
{
  g_autofree char *hosts = g_strdup_printf ("%d", SESSION_HOSTS);
  g_autofree char *count = g_strdup_printf ("%d", SESSION_EVENTS);
  g_autofree char *what = g_strdup_printf ("a session of %s hosts", hosts);
  const char *argv[] = { gen, "--events", count, "--hosts", hosts, "--seed", "1", "-o", path, NULL };

  return generate (argv, path, what);
}

/* The application's load of @path (MODE_PLANAR) with the index's large
 * arrays on the heap (@spill "0") or in files ("1"). */
static gboolean
measure_spill (const char  *self_exe,
               const char  *path,
               const char  *spill,
               guint        repeats,
               Measurement *out)
{
  gboolean ok;

  g_setenv ("PLANAR_SPILL", spill, TRUE);
  ok = measure_median (self_exe, MODE_PLANAR, path, repeats, out);
  g_unsetenv ("PLANAR_SPILL");
  return ok;
}

/* The cached index's content key (docs/loader.md), page cache warm and
 * cold, in one row each: the application's load without hashing (the
 * cache off) and with it (writing the index, timed apart), the check a
 * reopen makes first, and the whole cached reopen. */
static gboolean
measure_content_key (const char *self_exe,
                     const char *path,
                     guint64     events,
                     guint64     file_size,
                     guint       repeats,
                     GString    *rows)
{
  for (guint cold = 0; cold < 2; cold++)
    {
      Measurement plain, hashed, check, reopen;
      gboolean ok;

      if (cold)
        g_setenv (COLD_ENV, "1", TRUE);
      ok = measure_median (self_exe, MODE_PLANAR, path, repeats, &plain)
        && measure_median (self_exe, MODE_PRIME, path, repeats, &hashed)
        && measure_median (self_exe, MODE_CHECK, path, repeats, &check)
        && measure_median (self_exe, MODE_CACHED, path, repeats, &reopen);
      g_unsetenv (COLD_ENV);
      if (!ok || reopen.events != events || hashed.events != events)
        return FALSE;
      g_string_append_printf (rows,
                              "| %" G_GUINT64_FORMAT " | %.1f | %s | %.3f | %.3f | %.3fx | %.2f | %.2f | %.3fx "
                              "| %.3f | %.2f | %.0f | %.3fx | %.3f | %.2fx | %.3f |\n",
                              events, (double) file_size / (1024.0 * 1024.0), cold ? "cold" : "warm",
                              plain.seconds, hashed.seconds, hashed.seconds / plain.seconds,
                              plain.cpu_seconds, hashed.cpu_seconds, hashed.cpu_seconds / plain.cpu_seconds,
                              check.seconds, check.cpu_seconds,
                              (double) file_size / (1024.0 * 1024.0) / check.seconds, check.seconds / plain.seconds,
                              reopen.seconds, check.seconds / reopen.seconds, reopen.first_track_seconds);
      fflush (stdout);
    }
  return TRUE;
}

static void
print_content_key (GString *rows)
{
  printf ("\nThe cached index's content key (XXH3-128 of every byte of the profile), page cache warm and "
          "cold (dropped with posix_fadvise before each run): the load without hashing (cache off) and "
          "with it, the check a reopen makes before using the index, and the whole cached reopen:\n\n"
          "| events | file MB | page cache | load s, no hashing | load s, hashing | hashing / none "
          "| load CPU s, no hashing | load CPU s, hashing | CPU: hashing / none "
          "| reopen check s | check CPU s | check MB/s | check / load | cached reopen s | check / reopen "
          "| cached first track s |\n"
          "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n%s", rows->str);
}

static char *
format_mb (guint64 bytes)
{
  return g_strdup_printf ("%.1f", (double) bytes / (1024.0 * 1024.0));
}

/* --hlo N: a profile of N events with the program's HloProto (planar-gen
 * --hlo, padded to @instructions instructions) against the same profile
 * without it, loaded in turns in this run as the application loads
 * (MODE_PLANAR, each load in a child of its own, median of 3, cache off): the cost of reading the HLO and resolving every GPU kernel
 * through it, and when the first track was ready in each (the HLO is read
 * after the file's tracks are shown, so the first frame does not wait for
 * it). Also the HloProto's serialized bytes against the index's. */
static int
run_hlo_bench (const char *self_exe,
               const char *gen,
               const char *data_dir,
               guint64     events,
               guint64     instructions)
{
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, events);
  g_autofree char *padding = g_strdup_printf ("--hlo-instructions=%" G_GUINT64_FORMAT, instructions);
  g_autofree char *name = g_strdup_printf ("gen-hlo-%s-%" G_GUINT64_FORMAT ".xplane.pb", count, instructions);
  g_autofree char *plain_name = g_strdup_printf ("gen-%s.xplane.pb", count);
  g_autofree char *path = g_build_filename (data_dir, name, NULL);
  g_autofree char *plain = g_build_filename (data_dir, plain_name, NULL);
  const char *argv[] = { gen, "--events", count, "--seed", "1", "--hlo", padding, "-o", path, NULL };
  Measurement without, with;
  guint64 serialized = 0, memory = 0, modules = 0;

  if (!ensure_profile (gen, plain, events) || !generate (argv, path, "a profile with HloProtos"))
    return 1;
  planar_cache_set_enabled (FALSE);
  /* The index's figures, from a load of its own. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(PlanarTrace) trace = planar_trace_load (path, NULL, &error);
    const PlanarHloIndex *index;

    if (trace == NULL)
      {
        fprintf (stderr, "planar-bench-load: %s\n", error->message);
        return 1;
      }
    index = planar_trace_get_hlo_index (trace);
    serialized = planar_hlo_index_get_serialized_bytes (index);
    memory = planar_hlo_index_get_memory (index);
    modules = planar_hlo_index_get_n_modules (index);
  }
  /* The two loads take turns, so that what else the machine does weighs
   * on both alike; the median of each figure. */
  {
    double times[2][REPEATS], cpu[2][REPEATS], first[2][REPEATS];
    Measurement *out[2] = { &without, &with };
    const char *paths[2] = { plain, path };

    memset (&without, 0, sizeof without);
    memset (&with, 0, sizeof with);
    for (guint r = 0; r < REPEATS; r++)
      for (guint k = 0; k < 2; k++)
        {
          Measurement m;

          if (!measure (self_exe, MODE_PLANAR, paths[k], &m))
            return 1;
          times[k][r] = m.seconds;
          cpu[k][r] = m.cpu_seconds;
          first[k][r] = m.first_track_seconds;
          out[k]->peak_rss = MAX (out[k]->peak_rss, m.peak_rss);
        }
    for (guint k = 0; k < 2; k++)
      {
        qsort (times[k], REPEATS, sizeof (double), compare_double);
        qsort (cpu[k], REPEATS, sizeof (double), compare_double);
        qsort (first[k], REPEATS, sizeof (double), compare_double);
        out[k]->seconds = times[k][REPEATS / 2];
        out[k]->cpu_seconds = cpu[k][REPEATS / 2];
        out[k]->first_track_seconds = first[k][REPEATS / 2];
      }
  }
  printf ("| events | HLO instructions | modules | HloProto bytes | index bytes | index / bytes "
          "| load without HLO s | load with HLO, resolved s | with / without "
          "| CPU s without | CPU s with | CPU with / without "
          "| first track without s | first track with s | peak RSS without MB | peak RSS with MB |\n");
  printf ("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  printf ("| %s | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT
          " | %.2fx | %.3f | %.3f | %.2fx | %.2f | %.2f | %.2fx | %.3f | %.3f | %.0f | %.0f |\n",
          count, instructions, modules, serialized, memory, (double) memory / (double) MAX (serialized, 1),
          without.seconds, with.seconds, with.seconds / without.seconds, without.cpu_seconds, with.cpu_seconds,
          with.cpu_seconds / without.cpu_seconds, without.first_track_seconds,
          with.first_track_seconds, (double) without.peak_rss / (1024.0 * 1024.0),
          (double) with.peak_rss / (1024.0 * 1024.0));
  return 0;
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *sizes_arg = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *gen = NULL;
  g_autofree char *self_exe = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) sizes = NULL;
  g_autoptr(GString) cache_rows = NULL;
  g_autoptr(GString) spill_rows = g_string_new (NULL);
  g_autofree char *scale_verdict = NULL;
  g_autoptr(GString) key_rows = g_string_new (NULL);
  gboolean key_only = FALSE;
  g_autofree char *hlo_arg = NULL;
  g_autofree char *hlo_instructions_arg = NULL;
  GOptionEntry entries[] = {
    { "hlo", 0, 0, G_OPTION_ARG_STRING, &hlo_arg,
      "Only the HLO table: a profile of N events with HloProtos against one without", "N" },
    { "hlo-instructions", 0, 0, G_OPTION_ARG_STRING, &hlo_instructions_arg,
      "With --hlo: instructions added to the module (default 1e6)", "N" },
    { "content-key-only", 0, 0, G_OPTION_ARG_NONE, &key_only, "Only the cached index's content key table", NULL },
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_arg, "Event counts, comma-separated (default 1e5,1e6,1e7)", "LIST" },
    { "data-dir", 0, 0, G_OPTION_ARG_FILENAME, &data_dir, "Where generated profiles are kept", "DIR" },
    { "gen", 0, 0, G_OPTION_ARG_FILENAME, &gen, "The planar-gen program", "PATH" },
    { NULL }
  };

  if (argc == 4 && strcmp (argv[1], "--child") == 0)
    {
      for (int m = 0; m < N_MODES; m++)
        if (strcmp (argv[2], mode_names[m]) == 0)
          return run_child ((Mode) m, argv[3]);
      return 2;
    }

  context = g_option_context_new ("- load benchmark");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "planar-bench-load: %s\n", error->message);
      return 2;
    }
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (gen == NULL)
    gen = g_strdup (PLANAR_GEN_PATH);
  if (data_dir == NULL)
    data_dir = g_build_filename (g_get_user_cache_dir (), "planar", "bench", NULL);
  g_mkdir_with_parents (data_dir, 0755);
  sizes = g_strsplit (sizes_arg ? sizes_arg : "1e5,1e6,1e7", ",", -1);
  /* The cached indexes go with the profiles, not to the user's cache. */
  {
    g_autofree char *cache_dir = g_build_filename (data_dir, "cache", NULL);

    g_setenv ("PLANAR_CACHE_DIR", cache_dir, TRUE);
    planar_cache_set_limit (G_MAXUINT64);
  }
  cache_rows = g_string_new (NULL);

  if (hlo_arg != NULL)
    {
      double n = g_ascii_strtod (hlo_arg, NULL);
      double instructions = hlo_instructions_arg != NULL ? g_ascii_strtod (hlo_instructions_arg, NULL) : 1e6;

      if (n < 1 || instructions < 0)
        return 2;
      return run_hlo_bench (self_exe, gen, data_dir, (guint64) n, (guint64) instructions);
    }

  if (!key_only)
    {
      printf ("| events | file MB | bytes/event | stats/event | read s | protobuf-c unpack s | index ready s | index / unpack "
              "| events/s | unpack peak RSS MB | index peak RSS MB | RSS target MB | index RSS / target "
              "| with derived lines + flows: s | / unpack | peak RSS MB | RSS / target "
              "| first track ready s | first / full load | peak anon MB | anon / file | file-backed index MB |\n");
      printf ("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    }
  for (guint i = 0; sizes[i] != NULL; i++)
    {
      guint64 events = (guint64) g_ascii_strtod (sizes[i], NULL);
      g_autofree char *name = g_strdup_printf ("gen-%" G_GUINT64_FORMAT ".xplane.pb", events);
      g_autofree char *path = g_build_filename (data_dir, name, NULL);
      g_autofree char *size_mb = NULL, *unpack_mb = NULL, *index_mb = NULL, *planar_mb = NULL, *target_mb = NULL;
      Measurement m[N_MODES];
      struct stat st;
      guint64 target;

      gboolean huge;

      if (events == 0 || !ensure_profile (gen, path, events) || stat (path, &st) != 0)
        return 1;
      huge = (guint64) st.st_size >= (G_GUINT64_CONSTANT (2) << 30);
      if (!measure_content_key (self_exe, path, events, (guint64) st.st_size, huge ? 1 : REPEATS, key_rows))
        {
          fprintf (stderr, "planar-bench-load: the content key measurement of %s failed\n", path);
          return 1;
        }
      if (key_only)
        continue;
      /* Index in files against index on the heap, from 1e7 events up. */
      if (events >= 10000000)
        {
          Measurement heap, files;
          guint repeats = (guint64) st.st_size >= (G_GUINT64_CONSTANT (2) << 30) ? 1 : REPEATS;

          if (!measure_spill (self_exe, path, "0", repeats, &heap) || !measure_spill (self_exe, path, "1", repeats, &files))
            {
              fprintf (stderr, "planar-bench-load: the heap/file-backed measurement of %s failed\n", path);
              return 1;
            }
          g_string_append_printf (spill_rows,
                                  "| %" G_GUINT64_FORMAT " | %.1f | %.3f | %.1f | %.2fx | %.3f | %.1f | %.2fx | %.1f | %.2fx |\n",
                                  events, (double) st.st_size / (1024.0 * 1024.0),
                                  heap.seconds, (double) heap.peak_anon / (1024.0 * 1024.0),
                                  (double) heap.peak_anon / (double) st.st_size,
                                  files.seconds, (double) files.peak_anon / (1024.0 * 1024.0),
                                  (double) files.peak_anon / (double) st.st_size,
                                  (double) files.spilled / (1024.0 * 1024.0), files.seconds / heap.seconds);
        }
      /* Past protobuf's 2 GiB limit a whole-message unpack cannot run (nor
       * XProf); such sizes are measured once. */
      memset (m, 0, sizeof m);
      for (int mode = 0; mode < MODE_SESSION_EAGER; mode++)
        if (mode != MODE_CHECK && (!huge || (mode != MODE_READ && mode != MODE_UNPACK))
            && !measure_median (self_exe, (Mode) mode, path, huge || mode == MODE_STATS ? 1 : REPEATS, &m[mode]))
          {
            fprintf (stderr, "planar-bench-load: the %s measurement of %s failed\n", mode_names[mode], path);
            return 1;
          }
      if (m[MODE_PLANAR].events != events || m[MODE_INDEX].events != events
          || (!huge && m[MODE_UNPACK].events != events))
        {
          fprintf (stderr, "planar-bench-load: event counts differ (%" G_GUINT64_FORMAT " planar, %"
                   G_GUINT64_FORMAT " protobuf-c, %" G_GUINT64_FORMAT " asked)\n",
                   m[MODE_PLANAR].events, m[MODE_UNPACK].events, events);
          return 1;
        }

      target = (guint64) st.st_size * 3 / 2 + ((guint64) 64 << 20);
      size_mb = format_mb ((guint64) st.st_size);
      unpack_mb = format_mb (m[MODE_UNPACK].peak_rss);
      index_mb = format_mb (m[MODE_INDEX].peak_rss);
      planar_mb = format_mb (m[MODE_PLANAR].peak_rss);
      target_mb = format_mb (target);
      if (huge)
        {
          g_free (unpack_mb);
          unpack_mb = g_strdup ("n/a (> 2 GiB)");
        }
      printf ("| %" G_GUINT64_FORMAT " | %s | %.1f | %.2f%s | %.3f | %.3f | %.3f | %.2fx | %.3g | %s | %s | %s | %.2fx "
              "| %.3f | %.2fx | %s | %.2fx | %.3f | %.2fx | %.1f | %.2fx | %.1f |\n",
              events, size_mb, (double) st.st_size / (double) events, m[MODE_STATS].stats_per_event,
              m[MODE_STATS].stats_stride > 1 ? " (sampled)" : "",
              m[MODE_READ].seconds, m[MODE_UNPACK].seconds, m[MODE_INDEX].seconds,
              huge ? 0.0 : m[MODE_INDEX].seconds / m[MODE_UNPACK].seconds,
              (double) events / m[MODE_INDEX].seconds,
              unpack_mb, index_mb, target_mb, (double) m[MODE_INDEX].peak_rss / (double) target,
              m[MODE_PLANAR].seconds, huge ? 0.0 : m[MODE_PLANAR].seconds / m[MODE_UNPACK].seconds,
              planar_mb, (double) m[MODE_PLANAR].peak_rss / (double) target,
              m[MODE_PLANAR].first_track_seconds, m[MODE_PLANAR].first_track_seconds / m[MODE_PLANAR].seconds,
              (double) m[MODE_PLANAR].peak_anon / (1024.0 * 1024.0),
              (double) m[MODE_PLANAR].peak_anon / (double) st.st_size,
              (double) m[MODE_PLANAR].spilled / (1024.0 * 1024.0));
      fflush (stdout);
      if (huge)
        {
          g_free (scale_verdict);
          scale_verdict = g_strdup_printf ("%.2fx at %" G_GUINT64_FORMAT " events (%s MB): %s",
                                           (double) m[MODE_PLANAR].peak_anon / (double) st.st_size, events,
                                           size_mb, m[MODE_PLANAR].peak_anon <= (guint64) st.st_size ? "met" : "NOT met");
        }
      {
        g_autofree char *cache = planar_cache_get_path (path);
        struct stat cst;

        if (stat (cache, &cst) != 0)
          {
            fprintf (stderr, "planar-bench-load: no cached index of %s was written\n", path);
            return 1;
          }
        g_string_append_printf (cache_rows,
                                "| %" G_GUINT64_FORMAT " | %.3f | %.3f | %.1f | %.1f | %.3f | %.3f | %.2fx | %.3f | %.2fx | %.1f |\n",
                                events, m[MODE_PLANAR].seconds, m[MODE_PLANAR].first_track_seconds,
                                (double) cst.st_size / (1024.0 * 1024.0), (double) cst.st_size / (double) events,
                                m[MODE_PRIME].write_seconds, m[MODE_CACHED].seconds,
                                m[MODE_CACHED].seconds / m[MODE_PLANAR].seconds, m[MODE_CACHED].first_track_seconds,
                                m[MODE_CACHED].first_track_seconds / m[MODE_PLANAR].seconds,
                                (double) m[MODE_CACHED].peak_anon / (1024.0 * 1024.0));
      }
    }
  if (key_only)
    {
      print_content_key (key_rows);
      return 0;
    }
  printf ("\nCold load (no cached index) against a reopen from the cached index written after it:\n\n"
          "| events | cold load s | cold first track s | cache MB | cache bytes/event | cache write s "
          "| cached reopen s | reopen / cold | cached first track s | first track / cold load | reopen peak anon MB |\n"
          "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n%s", cache_rows->str);
  if (spill_rows->len > 0)
    printf ("\nThe index's large arrays on the heap against file-backed (planar-spill.c; the application "
            "puts them in files for profiles from %" G_GUINT64_FORMAT " MiB up), the application's load each way:\n\n"
            "| events | file MB | heap: load s | peak anon MB | anon / file | file-backed: load s | peak anon MB "
            "| anon / file | in files MB | file-backed / heap time |\n"
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n%s",
            PLANAR_SPILL_FILE_MIN >> 20, spill_rows->str);

  print_content_key (key_rows);

  /* A session of many hosts, all decoded or lazily. */
  {
    g_autofree char *session = g_strdup_printf ("%s/session-%dx%d", data_dir, SESSION_HOSTS, SESSION_EVENTS);
    Measurement eager, lazy;

    if (!ensure_session (gen, session) || !measure_median (self_exe, MODE_SESSION_EAGER, session, REPEATS, &eager)
        || !measure_median (self_exe, MODE_SESSION_LAZY, session, REPEATS, &lazy))
      {
        fprintf (stderr, "planar-bench-load: the session measurement failed\n");
        return 1;
      }
    printf ("\nA session of %d hosts of %d events each, opened with every host decoded against lazily "
            "(the first host decoded, the others on demand), no cached index:\n\n"
            "| hosts | events | all hosts: load s | peak anon MB | lazy: open s | peak anon MB | open / load |\n"
            "|---:|---:|---:|---:|---:|---:|---:|\n"
            "| %d | %" G_GUINT64_FORMAT " | %.3f | %.1f | %.3f | %.1f | %.2fx |\n",
            SESSION_HOSTS, SESSION_EVENTS, SESSION_HOSTS, eager.events, eager.seconds,
            (double) eager.peak_anon / (1024.0 * 1024.0), lazy.seconds,
            (double) lazy.peak_anon / (1024.0 * 1024.0), lazy.seconds / eager.seconds);
  }

  printf ("\nTargets at 1e7 events: index / unpack <= 1.00x; index RSS / target <= 1.00x "
          "(target = 1.5 x file size + 64 MB; the mapped file counts); cached reopen to first frame "
          "<= 0.2x the cold load.\n"
          "Scale target: peak anonymous memory <= 1.0x the file size for a profile past 2 GiB: %s.\n",
          scale_verdict != NULL ? scale_verdict : "not measured in this run (add --sizes 1e8)");
  return 0;
}
