/* planar-bench-firstview.c: the load up to the first view, without a
 * window. It opens a profile with the loader, as the application does, and
 * prints when the planes are published in the timeline's order: the first
 * view of a `planar-gen` profile is its first three planes (GPU 0, GPU 1,
 * TPU 0; bench/open measures the same as the user sees it). By default the
 * load is cancelled once the first view is published (--full decodes the
 * rest, without the derived lines). One load per process; run it several
 * times, alternating builds, and read medians.
 *
 *   planar-bench-firstview [--planes N] [--full] [--first-heap BYTES] [--verbose] PATH
 *
 * --first-heap spills the index as a file past 1 GiB does, keeping BYTES of
 * it in memory, the first planes' in the timeline's order (0: none, what
 * every load of such a file does).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-trace-loader-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef struct
{
  GCancellable *cancellable;
  gint64        start_us;
  guint         planes;
  guint         published;
  gboolean      full;
  gboolean      verbose;
  double        first_view_s;
  double        first_view_user_s;
  double        first_view_sys_s;
} Bench;

static void
cpu_times (double *user,
           double *sys)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  *user = (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec / 1e6;
  *sys = (double) ru.ru_stime.tv_sec + (double) ru.ru_stime.tv_usec / 1e6;
}

static void
hook (const char *point,
      const char *path,
      gpointer    data)
{
  Bench *bench = data;
  double s = (double) (g_get_monotonic_time () - bench->start_us) / 1e6;

  if (g_strcmp0 (point, "plane-published") != 0)
    return;
  bench->published++;
  if (bench->verbose)
    {
      g_autofree char *status = NULL;
      const char *anon = NULL;
      guint64 spilled = 0;

      planar_spill_get_usage (&spilled, NULL);
      if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
        anon = strstr (status, "RssAnon:");
      fprintf (stderr, "plane %u published at %.3f s: anonymous %" G_GUINT64_FORMAT " MB, file-backed index %"
               G_GUINT64_FORMAT " MB\n", bench->published, s,
               anon != NULL ? g_ascii_strtoull (anon + 8, NULL, 10) >> 10 : 0, spilled >> 20);
    }
  if (bench->published == bench->planes)
    {
      bench->first_view_s = s;
      cpu_times (&bench->first_view_user_s, &bench->first_view_sys_s);
      if (!bench->full)
        g_cancellable_cancel (bench->cancellable);
    }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("PATH");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarTraceLoader) loader = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  PlanarTraceTestOptions options = { 0 };
  Bench bench = { 0 };
  int planes = 3;
  gint64 first_heap = -1;
  gboolean full = FALSE, verbose = FALSE, ok;
  double open_s, end_s, user, sys;
  GOptionEntry entries[] = {
    { "planes", 0, 0, G_OPTION_ARG_INT, &planes, "Planes in the first view (default 3)", "N" },
    { "full", 0, 0, G_OPTION_ARG_NONE, &full, "Decode every line (no derived lines)", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Print each plane's publication", NULL },
    { "first-heap", 0, 0, G_OPTION_ARG_INT64, &first_heap, "Spill the index, keeping BYTES in memory", "BYTES" },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || planes < 1)
    {
      fprintf (stderr, "usage: %s [--planes N] [--full] [--verbose] PATH%s%s\n", argv[0],
               error != NULL ? ": " : "", error != NULL ? error->message : "");
      return 2;
    }

  bench.start_us = g_get_monotonic_time ();
  bench.cancellable = cancellable;
  bench.planes = (guint) planes;
  bench.full = full;
  bench.verbose = verbose;
  options.test_hook = hook;
  options.test_hook_data = &bench;
  options.spill = first_heap >= 0 ? PLANAR_SPILL_LARGE : -1;
  options.first_heap = first_heap;
  loader = planar_trace_loader_new (argv[1]);
  planar_trace_loader_set_derive (loader, FALSE);
  planar_trace_loader_set_use_cache (loader, FALSE);
  _planar_trace_loader_set_test_options (loader, &options);
  if (!planar_trace_loader_open (loader, NULL, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  open_s = (double) (g_get_monotonic_time () - bench.start_us) / 1e6;
  ok = planar_trace_loader_decode (loader, cancellable, &error);
  end_s = (double) (g_get_monotonic_time () - bench.start_us) / 1e6;
  cpu_times (&user, &sys);
  if (!ok && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  if (bench.published < bench.planes)
    {
      fprintf (stderr, "only %u planes published\n", bench.published);
      return 1;
    }
  printf ("open %.3f s, first view %.3f s (user %.2f s, sys %.2f s)", open_s, bench.first_view_s,
          bench.first_view_user_s, bench.first_view_sys_s);
  if (full)
    printf (", decoded %.3f s (user %.2f s, sys %.2f s)", end_s, user, sys);
  printf ("\n");
  return 0;
}
