/* planar-bench-opstats.c: what Op Stats costs on a profile with HloProtos
 * (planar-gen --hlo), against its own baseline in the same run: the table
 * by name without costs (what the page shows at once) and the tables
 * with costs that a worker reads (FLOPs and bytes through the HLO: by
 * name, by framework op, by source line), for every device plane; the
 * table by name with each event read through planar_op_info_init() as Op
 * Stats read it before PlanarOpCostReader (stats read twice, strings
 * made, the estimate made again per event); and how soon a cancelled
 * worker lets go.
 *
 * Usage: planar-bench-opstats [--sizes 1e6,1e7] [--hlo-instructions N]
 *        [--data-dir DIR]
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-aggregate-private.h"
#include "planar-cache.h"
#include "planar-model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPEATS 3

typedef enum
{
  /* Rows by name, no stat read. */
  TABLE_PLAIN,
  TABLE_COSTS_BY_NAME,
  TABLE_BY_FRAMEWORK_OP,
  TABLE_BY_SOURCE,
  /* By name, through planar_op_info_init(). */
  TABLE_COSTS_FULL,
  N_TABLES
} Table;

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

/* One table of every device plane of @trace, as the page makes it (every
 * track the file holds); seconds. */
static double
time_table (PlanarTrace *trace,
            Table        table,
            guint64     *events,
            guint       *rows)
{
  gint64 t0 = g_get_monotonic_time ();

  *events = 0;
  *rows = 0;
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);
      g_autoptr(PlanarAggregator) aggregator = planar_aggregator_new ();
      g_autoptr(GArray) results = NULL;

      if (!g_str_has_prefix (plane->name, "/device:"))
        continue;
      if (table != TABLE_PLAIN)
        planar_aggregator_set_costs (aggregator, trace,
                                     table == TABLE_BY_FRAMEWORK_OP ? PLANAR_AGGREGATE_KEY_FRAMEWORK_OP
                                     : table == TABLE_BY_SOURCE     ? PLANAR_AGGREGATE_KEY_SOURCE
                                                                    : PLANAR_AGGREGATE_KEY_NAME);
      _planar_aggregator_set_full_op_info (aggregator, table == TABLE_COSTS_FULL);
      for (guint t = 0; t < plane->n_tracks; t++)
        if (!plane->tracks[t].derived)
          planar_aggregator_add_track (aggregator, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
      results = planar_aggregator_get_results (aggregator, PLANAR_AGGREGATE_SORT_SELF);
      *events += planar_aggregator_get_n_events (aggregator);
      *rows += results->len;
    }
  return (double) (g_get_monotonic_time () - t0) / 1e6;
}

typedef struct
{
  gint64 done_at;
  gboolean cancelled;
} CancelWait;

static void
cancelled_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  CancelWait *w = user_data;
  g_autoptr(GError) error = NULL;
  G_GNUC_UNUSED g_autoptr(PlanarAggregator) aggregator = planar_aggregator_add_plane_finish (result, &error);

  w->cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  w->done_at = g_get_monotonic_time ();
}

/* The largest device plane's table by framework op on a worker, cancelled
 * 50 ms after it started: seconds from the cancel to the callback. */
static double
time_cancel (PlanarTrace *trace)
{
  guint largest = G_MAXUINT;
  guint64 most = 0;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  PlanarAggregator *aggregator = planar_aggregator_new ();
  CancelWait w = { 0, FALSE };
  gint64 cancel_at;

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      if (g_str_has_prefix (plane->name, "/device:") && plane->n_events > most)
        {
          most = plane->n_events;
          largest = p;
        }
    }
  if (largest == G_MAXUINT)
    {
      planar_aggregator_free (aggregator);
      return -1;
    }
  planar_aggregator_set_costs (aggregator, trace, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP);
  planar_aggregator_add_plane_async (aggregator, trace, largest, -1, cancellable, cancelled_cb, &w);
  g_usleep (50000);
  cancel_at = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  while (w.done_at == 0)
    g_main_context_iteration (NULL, TRUE);
  return w.cancelled ? (double) (w.done_at - cancel_at) / 1e6 : -1;
}

static gboolean
ensure_profile (const char *path,
                guint64     events,
                guint64     instructions)
{
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, events);
  g_autofree char *padding = g_strdup_printf ("--hlo-instructions=%" G_GUINT64_FORMAT, instructions);
  const char *argv[] = { PLANAR_GEN_PATH, "--events", count, "--seed", "1", "--hlo", padding, "-o", path, NULL };
  g_autoptr(GError) error = NULL;
  int status;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  fprintf (stderr, "generating %s\n", path);
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status,
                     &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      fprintf (stderr, "planar-bench-opstats: cannot generate %s: %s\n", path, error->message);
      return FALSE;
    }
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *sizes_arg = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *instructions_arg = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) sizes = NULL;
  guint64 instructions;
  GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_arg, "Event counts, comma-separated (default 1e6,1e7)", "LIST" },
    { "hlo-instructions", 0, 0, G_OPTION_ARG_STRING, &instructions_arg,
      "Instructions added to the module (planar-gen --hlo-instructions, default 0)", "N" },
    { "data-dir", 0, 0, G_OPTION_ARG_FILENAME, &data_dir, "Where generated profiles are kept", "DIR" },
    { NULL }
  };

  context = g_option_context_new ("- Op Stats with and without costs");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "planar-bench-opstats: %s\n", error->message);
      return 2;
    }
  if (data_dir == NULL)
    data_dir = g_build_filename (g_get_user_cache_dir (), "planar", "bench", NULL);
  g_mkdir_with_parents (data_dir, 0755);
  sizes = g_strsplit (sizes_arg != NULL ? sizes_arg : "1e6,1e7", ",", -1);
  instructions = instructions_arg != NULL ? (guint64) g_ascii_strtod (instructions_arg, NULL) : 0;
  planar_cache_set_enabled (FALSE);

  printf ("| events | HLO instructions | device events | rows by name | plain table s | with costs by name s "
          "| costs / plain | by framework op s | / plain | by source line s | / plain | costs ns/event "
          "| by name through op info s | op info / costs | cancel to callback s |\n");
  printf ("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (guint i = 0; sizes[i] != NULL; i++)
    {
      guint64 events = (guint64) g_ascii_strtod (sizes[i], NULL);
      g_autofree char *name = g_strdup_printf ("gen-hlo-%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT ".xplane.pb", events,
                                               instructions);
      g_autofree char *path = g_build_filename (data_dir, name, NULL);
      g_autoptr(PlanarTrace) trace = NULL;
      double times[N_TABLES][REPEATS], medians[N_TABLES];
      guint64 device_events = 0;
      guint rows = 0, name_rows = 0;
      double cancel;

      if (!ensure_profile (path, events, instructions))
        return 1;
      trace = planar_trace_load (path, NULL, &error);
      if (trace == NULL)
        {
          fprintf (stderr, "planar-bench-opstats: %s\n", error->message);
          return 1;
        }
      /* The tables take turns, so that what else the machine does weighs
       * on all alike. */
      for (guint r = 0; r < REPEATS; r++)
        for (guint k = 0; k < N_TABLES; k++)
          {
            times[k][r] = time_table (trace, (Table) k, &device_events, &rows);
            if (k == TABLE_PLAIN)
              name_rows = rows;
          }
      for (guint k = 0; k < N_TABLES; k++)
        {
          qsort (times[k], REPEATS, sizeof (double), compare_double);
          medians[k] = times[k][REPEATS / 2];
        }
      cancel = time_cancel (trace);
      printf ("| %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %u | %.3f | %.3f | %.1fx "
              "| %.3f | %.1fx | %.3f | %.1fx | %.0f | %.3f | %.1fx | %.4f |\n",
              events, instructions, device_events, name_rows, medians[TABLE_PLAIN], medians[TABLE_COSTS_BY_NAME],
              medians[TABLE_COSTS_BY_NAME] / medians[TABLE_PLAIN], medians[TABLE_BY_FRAMEWORK_OP],
              medians[TABLE_BY_FRAMEWORK_OP] / medians[TABLE_PLAIN], medians[TABLE_BY_SOURCE],
              medians[TABLE_BY_SOURCE] / medians[TABLE_PLAIN],
              device_events > 0 ? medians[TABLE_COSTS_BY_NAME] * 1e9 / (double) device_events : 0.0,
              medians[TABLE_COSTS_FULL], medians[TABLE_COSTS_FULL] / medians[TABLE_COSTS_BY_NAME], cancel);
      fflush (stdout);
    }
  return 0;
}
