/* planar-bench-import.c: how fast Chrome JSON becomes events, against
 * loading the same events from the xplane they were exported from, in one
 * run: a planar-gen profile is exported to JSON (plain and gzip), then each
 * file is loaded REPEATS times (median).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPEATS 3

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

/* Median seconds to load @path (file tracks, derived lines and flows, as
 * the application does), and its events. */
static double
time_load (const char *path,
           guint64    *events)
{
  double times[REPEATS];

  for (guint i = 0; i < REPEATS; i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(PlanarTrace) trace = planar_trace_load (path, NULL, &error);

      if (trace == NULL)
        {
          fprintf (stderr, "planar-bench-import: %s\n", error->message);
          exit (1);
        }
      times[i] = (double) (g_get_monotonic_time () - t0) / 1e6;
      *events = planar_trace_get_n_events (trace);
    }
  qsort (times, REPEATS, sizeof (double), compare_double);
  return times[REPEATS / 2];
}

static guint64
file_size (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 ? (guint64) st.st_size : 0;
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
    { "data-dir", 0, 0, G_OPTION_ARG_FILENAME, &data_dir, "Where generated files are kept", "DIR" },
    { NULL }
  };
  guint64 n;
  g_autofree char *xplane = NULL;
  g_autofree char *json = NULL;
  g_autofree char *gz = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  const char *paths[2] = { NULL, NULL };
  guint64 events_x = 0, events_j = 0, events_g = 0;
  double tx, tj, tg;

  context = g_option_context_new ("- Chrome JSON import benchmark");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "planar-bench-import: %s\n", error->message);
      return 2;
    }
  n = (guint64) g_ascii_strtod (events_arg ? events_arg : "1e6", NULL);
  if (data_dir == NULL)
    data_dir = g_build_filename (g_get_user_cache_dir (), "planar", "bench", NULL);
  g_mkdir_with_parents (data_dir, 0755);
  xplane = g_strdup_printf ("%s/gen-%" G_GUINT64_FORMAT ".xplane.pb", data_dir, n);
  json = g_strdup_printf ("%s/gen-%" G_GUINT64_FORMAT ".trace.json", data_dir, n);
  gz = g_strdup_printf ("%s/gen-%" G_GUINT64_FORMAT ".trace.json.gz", data_dir, n);

  if (!g_file_test (xplane, G_FILE_TEST_EXISTS))
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
      const char *argv_gen[] = { PLANAR_GEN_PATH, "--events", count, "--seed", "1", "-o", xplane, NULL };
      int status = 0;

      if (!g_spawn_sync (NULL, (char **) argv_gen, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status,
                         &error) || !g_spawn_check_wait_status (status, &error))
        {
          fprintf (stderr, "planar-bench-import: cannot generate %s: %s\n", xplane, error->message);
          return 1;
        }
    }
  paths[0] = xplane;
  profile = planar_profile_new (paths);
  if (!planar_profile_load (profile, NULL, &error) ||
      (!g_file_test (json, G_FILE_TEST_EXISTS) &&
       !planar_export_to_file (profile, PLANAR_EXPORT_CHROME_JSON, json, FALSE, NULL, NULL, NULL, &error)) ||
      (!g_file_test (gz, G_FILE_TEST_EXISTS) &&
       !planar_export_to_file (profile, PLANAR_EXPORT_CHROME_JSON, gz, FALSE, NULL, NULL, NULL, &error)))
    {
      fprintf (stderr, "planar-bench-import: %s\n", error->message);
      return 1;
    }
  g_clear_object (&profile);

  tx = time_load (xplane, &events_x);
  tj = time_load (json, &events_j);
  tg = time_load (gz, &events_g);
  if (events_j != events_g)
    {
      fprintf (stderr, "planar-bench-import: the plain and gzip imports differ\n");
      return 1;
    }

  printf ("| file | MB | events | load s | events/s | vs xplane |\n");
  printf ("|---|---:|---:|---:|---:|---:|\n");
  printf ("| xplane (baseline) | %.1f | %" G_GUINT64_FORMAT " | %.3f | %.3g | 1.00x |\n",
          (double) file_size (xplane) / 1048576.0, events_x, tx, (double) events_x / tx);
  printf ("| Chrome JSON | %.1f | %" G_GUINT64_FORMAT " | %.3f | %.3g | %.2fx |\n",
          (double) file_size (json) / 1048576.0, events_j, tj, (double) events_j / tj, tj / tx);
  printf ("| Chrome JSON, gzip | %.1f | %" G_GUINT64_FORMAT " | %.3f | %.3g | %.2fx |\n",
          (double) file_size (gz) / 1048576.0, events_g, tg, (double) events_g / tg, tg / tx);
  printf ("\nEvents: the xplane's include aggregated events and counter samples the export leaves out.\n");
  return 0;
}
