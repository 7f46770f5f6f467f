/* planar-bench-guard.c: what guarding the mapped profile against a cut
 * (SIGBUS) costs a stats-heavy workload, for the choice in docs/loader.md.
 *
 * On a planar-gen profile (1e6 events by default), every file event's stats
 * are read with planar_trace_get_event_stats() (what find, export and the
 * details pane do per event):
 *   guard      what Planar does (model/base/planar-mapping.c): a process-wide
 *              handler knows the mapping; the read path only loads the
 *              mapping's 'changed' flag once per call;
 *   sigsetjmp  the alternative of a guard per read: each call wrapped in
 *              sigsetjmp() (saving the signal mask, as a handler that
 *              siglongjmp()s out of SIGBUS needs) with a thread-local
 *              pointer to the jump buffer set and cleared around it;
 *   nomask     the same with sigsetjmp (env, 0): cheaper, but the recovery
 *              path must then unblock SIGBUS itself.
 * Then a find that reads every event's string stats (no match), with the
 * guard; and what copying the events' bytes at load (so that the lazy reads
 * never touch the mapping) would cost in memory. Median of REPEATS runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache.h"
#include "planar-model.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPEATS 5

typedef enum
{
  MODE_GUARD,
  MODE_SIGSETJMP,
  MODE_NOMASK,
} Mode;

static __thread sigjmp_buf *thread_guard;

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

/* One read under a guard of its own: what a per-read sigsetjmp() guard
 * costs when nothing faults (a fault would siglongjmp() to the else). */
static G_GNUC_NO_INLINE guint
guarded_read (PlanarTrace       *trace,
              const PlanarPlane *plane,
              const PlanarEvent *ev,
              GArray            *stats,
              gboolean           save_mask)
{
  sigjmp_buf env;

  if ((save_mask ? sigsetjmp (env, 1) : sigsetjmp (env, 0)) == 0)
    {
      guint n;

      thread_guard = &env;
      n = planar_trace_get_event_stats (trace, plane, ev, stats, NULL);
      thread_guard = NULL;
      return n;
    }
  thread_guard = NULL;
  return 0;
}

/* Reads every file event's stats once; returns the number of reads, and
 * stats seen in @n_stats. */
static guint64
read_all_stats (PlanarTrace *trace,
                Mode         mode,
                guint64     *n_stats)
{
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  guint64 reads = 0;

  *n_stats = 0;
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          for (guint64 i = 0; i < track->n_events; i++)
            {
              const PlanarEvent *ev = &track->events[i];

              if (ev->flags & PLANAR_EVENT_DERIVED)
                continue;
              g_array_set_size (stats, 0);
              if (mode == MODE_GUARD)
                *n_stats += planar_trace_get_event_stats (trace, plane, ev, stats, NULL);
              else
                *n_stats += guarded_read (trace, plane, ev, stats, mode == MODE_SIGSETJMP);
              reads++;
            }
        }
    }
  return reads;
}

static double
median (double *v,
        guint   n)
{
  qsort (v, n, sizeof (double), compare_double);
  return v[n / 2];
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *events_arg = NULL;
  g_autofree char *data_dir = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  GOptionEntry entries[] = {
    { "events", 0, 0, G_OPTION_ARG_STRING, &events_arg, "Events in the generated profile (default 1e6)", "N" },
    { "data-dir", 0, 0, G_OPTION_ARG_FILENAME, &data_dir, "Where the generated file is kept", "DIR" },
    { NULL }
  };
  static const char * const mode_names[] = { "guard (handler, flag per read)", "sigsetjmp per read (mask saved)",
                                             "sigsetjmp per read (no mask)" };
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  double base = 0;
  guint64 reads = 0, n_stats = 0, copy_bytes = 0;
  struct stat st;

  context = g_option_context_new ("- the cost of the SIGBUS guard on stat reads");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "planar-bench-guard: %s\n", error->message);
      return 2;
    }
  planar_cache_set_enabled (FALSE);
  if (data_dir == NULL)
    data_dir = g_build_filename (g_get_tmp_dir (), "planar-bench", NULL);
  g_mkdir_with_parents (data_dir, 0755);
  path = g_strdup_printf ("%s/guard-%s.xplane.pb", data_dir, events_arg ? events_arg : "1e6");
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *cmd = g_strdup_printf ("'%s' --events %s --seed 1 -o '%s' > /dev/null", PLANAR_GEN_PATH,
                                              events_arg ? events_arg : "1e6", path);

      if (system (cmd) != 0)
        {
          fprintf (stderr, "planar-bench-guard: planar-gen failed\n");
          return 1;
        }
    }
  trace = planar_trace_load (path, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "planar-bench-guard: %s\n", error->message);
      return 1;
    }
  stat (path, &st);

  /* Warm: every page of the file in memory for every mode. */
  read_all_stats (trace, MODE_GUARD, &n_stats);

  printf ("profile: %s, %" G_GUINT64_FORMAT " events, %.1f MB\n", path, planar_trace_get_n_events (trace),
          (double) st.st_size / 1e6);
  printf ("| stat reads of every file event | reads | stats | median s | ns/read | vs guard |\n");
  printf ("|---|---:|---:|---:|---:|---:|\n");
  for (Mode mode = MODE_GUARD; mode <= MODE_NOMASK; mode++)
    {
      double times[REPEATS];
      double m;

      for (guint r = 0; r < REPEATS; r++)
        {
          gint64 t0 = g_get_monotonic_time ();

          reads = read_all_stats (trace, mode, &n_stats);
          times[r] = (double) (g_get_monotonic_time () - t0) / 1e6;
        }
      m = median (times, REPEATS);
      if (mode == MODE_GUARD)
        base = m;
      printf ("| %s | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %.3f | %.1f | %.2fx |\n", mode_names[mode], reads,
              n_stats, m, m * 1e9 / (double) reads, m / base);
    }

  /* A find that reads every event's string stats, with the guard. */
  {
    const char *paths[] = { path, NULL };
    g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
    double times[REPEATS];

    if (!planar_profile_load (profile, NULL, &error))
      {
        fprintf (stderr, "planar-bench-guard: %s\n", error->message);
        return 1;
      }
    for (guint r = 0; r < REPEATS; r++)
      {
        g_autoptr(PlanarSearch) search = planar_search_new (profile, "no event is named this", PLANAR_SEARCH_DEFAULT,
                                                            NULL);
        gint64 t0 = g_get_monotonic_time ();

        if (!planar_search_run (search, NULL, &error))
          {
            fprintf (stderr, "planar-bench-guard: %s\n", error->message);
            return 1;
          }
        times[r] = (double) (g_get_monotonic_time () - t0) / 1e6;
      }
    printf ("\nfind (no match, every event's stats read), with the guard: median %.3f s\n", median (times, REPEATS));
  }

  /* Copying at load what the lazy stat reads need: each file event's bytes. */
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);
      const guint8 *data = NULL;
      gsize size = 0;

      {
        g_autoptr(GMappedFile) mapped = g_mapped_file_new (path, FALSE, NULL);

        data = (const guint8 *) g_mapped_file_get_contents (mapped);
        size = g_mapped_file_get_length (mapped);
        for (guint t = 0; t < plane->n_tracks; t++)
          for (guint64 i = 0; i < plane->tracks[t].n_events; i++)
            {
              const PlanarEvent *ev = &plane->tracks[t].events[i];
              const guint8 *q;
              guint64 len = 0;
              guint shift = 0;

              if ((ev->flags & PLANAR_EVENT_DERIVED) || ev->source >= size)
                continue;
              q = data + ev->source;
              /* The length prefix, a varint. */
              while (q < data + size)
                {
                  len |= (guint64) (*q & 0x7f) << shift;
                  shift += 7;
                  if (!(*q++ & 0x80))
                    break;
                }
              copy_bytes += (guint64) (q - (data + ev->source)) + len;
            }
      }
    }
  printf ("copy at load of the file events' bytes (what the lazy reads need): %.1f MB, %.2fx the file\n",
          (double) copy_bytes / 1e6, (double) copy_bytes / (double) st.st_size);
  return 0;
}
