/* planar-cli-summary.c: `planar-cli summary`, the first thing to read about
 * a profile: per plane, where the time goes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"
#include "planar-hash-private.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include <stdio.h>

/* FLOP/s and bytes/s of a row with costs, 0 when unknown. */
static double
rate (double  amount,
      gint64  ps)
{
  return ps > 0 ? amount / ((double) ps * 1e-12) : 0;
}

static void
write_row_json (PlanarJsonWriter      *w,
                const PlanarAggregate *row,
                gboolean               costs)
{
  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "name");
  planar_json_writer_string (w, row->name);
  planar_json_writer_key (w, "display_name");
  planar_json_writer_string (w, row->display_name);
  planar_json_writer_key (w, "count");
  planar_json_writer_uint (w, row->count);
  planar_json_writer_key (w, "total_ps");
  planar_json_writer_int (w, row->total_ps);
  planar_json_writer_key (w, "self_ps");
  planar_json_writer_int (w, row->self_ps);
  planar_json_writer_key (w, "average_ps");
  planar_json_writer_double (w, row->count ? (double) row->total_ps / (double) row->count : 0.0);
  planar_json_writer_key (w, "min_ps");
  planar_json_writer_int (w, row->min_ps);
  planar_json_writer_key (w, "max_ps");
  planar_json_writer_int (w, row->max_ps);
  if (costs)
    {
      planar_json_writer_key (w, "flops");
      planar_json_writer_double (w, row->flops);
      planar_json_writer_key (w, "flops_ps");
      planar_json_writer_int (w, row->flops_ps);
      planar_json_writer_key (w, "bytes_accessed");
      planar_json_writer_double (w, row->bytes);
      planar_json_writer_key (w, "bytes_ps");
      planar_json_writer_int (w, row->bytes_ps);
      planar_json_writer_key (w, "flop_rate");
      planar_json_writer_double (w, rate (row->flops, row->flops_ps));
      planar_json_writer_key (w, "bandwidth");
      planar_json_writer_double (w, rate (row->bytes, row->bytes_ps));
      planar_json_writer_key (w, "estimated");
      planar_json_writer_boolean (w, row->estimated);
    }
  planar_json_writer_end_object (w);
}

/* The text column shows display names; where two of a plane's rows share
 * one (a kernel named after its fusion, and the XLA op derived from it),
 * each shows its full name instead, so that no two rows look the same. */
static GHashTable *
shared_display_names (GArray *rows)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  GHashTable *shared = g_hash_table_new (_planar_str_hash, _planar_str_equal);

  for (guint i = 0; i < rows->len; i++)
    {
      const char *display = g_array_index (rows, PlanarAggregate, i).display_name;

      if (!g_hash_table_add (seen, (gpointer) display))
        g_hash_table_add (shared, (gpointer) display);
    }
  return shared;
}

static void
print_row_text (const PlanarAggregate *row,
                GHashTable            *shared,
                gboolean               costs)
{
  const char *name = g_hash_table_contains (shared, row->display_name) ? row->name : row->display_name;
  g_autofree char *total = planar_format_duration (row->total_ps);
  g_autofree char *self = planar_format_duration (row->self_ps);
  g_autofree char *avg = planar_format_duration (row->count ? row->total_ps / (gint64) row->count : 0);
  g_autofree char *flop_rate = NULL;
  g_autofree char *bandwidth = NULL;

  if (!costs)
    {
      printf ("    %14s %14s %10" G_GUINT64_FORMAT " %14s  %s\n", self, total, row->count, avg,
              planar_cli_text (name));
      return;
    }
  planar_format_achieved_rates (rate (row->flops, row->flops_ps), rate (row->bytes, row->bytes_ps), 1000000000000,
                                &flop_rate, &bandwidth);
  printf ("    %14s %14s %10" G_GUINT64_FORMAT " %14s %1s%15s %15s  %s\n", self, total, row->count, avg,
          row->estimated ? "~" : "", flop_rate != NULL ? flop_rate : "-", bandwidth != NULL ? bandwidth : "-",
          planar_cli_text (name));
}

/* One TSV or CSV row per name. */
static void
print_row_table (PlanarCliFormat        format,
                 const char            *host,
                 const char            *plane,
                 const PlanarAggregate *row,
                 gboolean               costs)
{
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, row->count);
  g_autofree char *total = g_strdup_printf ("%" G_GINT64_FORMAT, row->total_ps);
  g_autofree char *self = g_strdup_printf ("%" G_GINT64_FORMAT, row->self_ps);
  g_autofree char *average = g_strdup_printf ("%.3f", row->count ? (double) row->total_ps / (double) row->count : 0.0);
  g_autofree char *min = g_strdup_printf ("%" G_GINT64_FORMAT, row->min_ps);
  g_autofree char *max = g_strdup_printf ("%" G_GINT64_FORMAT, row->max_ps);
  g_autofree char *flops = g_strdup_printf ("%.0f", row->flops);
  g_autofree char *bytes = g_strdup_printf ("%.0f", row->bytes);
  g_autofree char *flop_rate = g_strdup_printf ("%.6g", rate (row->flops, row->flops_ps));
  g_autofree char *bandwidth = g_strdup_printf ("%.6g", rate (row->bytes, row->bytes_ps));
  const char *fields[] = { host, plane, row->name, row->display_name, count, total, self, average, min, max,
                           flops, bytes, flop_rate, bandwidth, row->estimated ? "true" : "false", NULL };

  if (!costs)
    fields[10] = NULL;

  planar_cli_print_row (format, fields);
}

int
planar_cli_summary (int    argc,
                    char **argv)
{
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarJsonWriter) w = NULL;
  g_autofree char *session = NULL;
  g_autofree char *session_name = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *by = NULL;
  gint64 top = 10;
  gboolean json = FALSE, costs = FALSE;
  PlanarAggregateKey key = PLANAR_AGGREGATE_KEY_NAME;
  PlanarCliFormat format;
  int status;
  GOptionEntry entries[] = {
    { "top", 0, 0, G_OPTION_ARG_INT64, &top, N_("Names per plane (default 10; 0 for all)"), "N" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_name, N_("text (default), tsv, csv or json"), "FORMAT" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON (--format json)"), NULL },
    { "session", 0, 0, G_OPTION_ARG_STRING, &session, N_("Session to read (default: the newest)"), "NAME" },
    { "costs", 0, 0, G_OPTION_ARG_NONE, &costs,
      N_("Device planes only, with FLOPs, bytes, FLOP rate and bandwidth (the profile's, else estimated from the HLO)"),
      NULL },
    { "by", 0, 0, G_OPTION_ARG_STRING, &by, N_("Rows per name (default), framework-op or source (implies --costs)"),
      "KEY" },
    { NULL }
  };

  if (!planar_cli_parse ("summary", "PATH", N_("Lists, per plane, the event names that take the most self time."),
                         entries, PLANAR_CLI_OPTIONS_LOAD | PLANAR_CLI_OPTIONS_JSON, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("summary takes one PATH (see 'planar-cli summary --help')"));
  if (top < 0)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("--top must be 0 (all) or more"));
  if (!planar_cli_get_format (format_name, json, &format, &status))
    return status;
  if (by != NULL && g_strcmp0 (by, "name") != 0)
    {
      if (g_strcmp0 (by, "framework-op") == 0)
        key = PLANAR_AGGREGATE_KEY_FRAMEWORK_OP;
      else if (g_strcmp0 (by, "source") == 0)
        key = PLANAR_AGGREGATE_KEY_SOURCE;
      else
        return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("--by is name, framework-op or source, not '%s'"), by);
      costs = TRUE;
    }

  profile = planar_cli_load_profile (argv[1], session, &session_name, &error);
  if (profile == NULL)
    return planar_cli_fail_error (error, FALSE);

  switch (format)
    {
    case PLANAR_CLI_FORMAT_JSON:
      /* 2: a line of steps is one row (planar_aggregator_set_step_lines_as_one()). */
      w = planar_cli_begin_json_version (session_name, 2);
      planar_json_writer_key (w, "hosts");
      planar_json_writer_begin_array (w);
      break;
    case PLANAR_CLI_FORMAT_TSV:
    case PLANAR_CLI_FORMAT_CSV:
      {
        const char *header[] = { "host", "plane", "name", "display_name", "count", "total_ps", "self_ps",
                                 "average_ps", "min_ps", "max_ps", "flops", "bytes_accessed", "flop_rate", "bandwidth",
                                 "estimated", NULL };

        /* The cost columns only with --costs. */
        if (!costs)
          header[10] = NULL;
        planar_cli_print_row (format, header);
      }
      break;
    case PLANAR_CLI_FORMAT_TEXT:
    default:
      printf (_("Session %s: self time per event name (self = wall less direct children)\n"),
              planar_cli_text (session_name));
      break;
    }

  for (guint h = 0; h < planar_profile_get_n_traces (profile); h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);
      const char *host = planar_trace_get_host_name (trace);

      /* A host whose decode failed is left out, said in a warning line. */
      if (!planar_trace_is_decoded (trace))
        continue;
      if (w != NULL)
        planar_cli_begin_named_list (w, host, "planes");
      else if (format == PLANAR_CLI_FORMAT_TEXT)
        printf (_("Host %s\n"), planar_cli_text (host));

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);
          g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
          g_autoptr(GArray) rows = NULL;
          guint n;

          /* The step times in one row, not a row a step. */
          planar_aggregator_set_step_lines_as_one (agg, TRUE);
          if (costs)
            {
              /* Costs are the devices': their ops and kernels. */
              if (!g_str_has_prefix (plane->name, "/device:"))
                continue;
              planar_aggregator_set_costs (agg, trace, key);
            }
          for (guint t = 0; t < plane->n_tracks; t++)
            /* With costs, the kernels and ops once: not again as the
             * derived XLA Ops and Modules lines made of them. */
            if (!costs || !plane->tracks[t].derived)
              planar_aggregator_add_track (agg, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
          if (planar_aggregator_get_n_events (agg) == 0)
            continue;
          rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_SELF);
          n = top == 0 ? rows->len : (guint) MIN ((gint64) rows->len, top);

          if (w != NULL)
            {
              planar_json_writer_begin_object (w);
              planar_json_writer_key (w, "name");
              planar_json_writer_string (w, plane->name);
              planar_json_writer_key (w, "events");
              planar_json_writer_uint (w, planar_aggregator_get_n_events (agg));
              planar_json_writer_key (w, "names");
              planar_json_writer_uint (w, rows->len);
              /* count: every name of the plane, as "names" says; printed:
               * those in "top". */
              planar_json_writer_key (w, "count");
              planar_json_writer_uint (w, rows->len);
              planar_json_writer_key (w, "printed");
              planar_json_writer_uint (w, n);
              planar_json_writer_key (w, "top");
              planar_json_writer_begin_array (w);
              for (guint i = 0; i < n; i++)
                write_row_json (w, &g_array_index (rows, PlanarAggregate, i), costs);
              planar_json_writer_end_array (w);
              planar_json_writer_end_object (w);
            }
          else if (format == PLANAR_CLI_FORMAT_TEXT)
            {
              guint64 n_events = planar_aggregator_get_n_events (agg);
              g_autofree char *events = g_strdup_printf (ngettext ("%" PRIu64 " event", "%" PRIu64 " events",
                                                                   n_events), n_events);
              g_autofree char *names = g_strdup_printf (ngettext ("%u name", "%u names", rows->len), rows->len);

              /* TRANSLATORS: "PLANE: 1000 events, 12 names". */
              printf (_("  %s: %s, %s\n"), planar_cli_text (plane->name), events, names);
              /* TRANSLATORS: the column heads of `planar-cli summary`. */
              if (costs)
                printf ("    %14s %14s %10s %14s %16s %15s  %s\n", C_("summary column", "self"),
                        C_("summary column", "total"), C_("summary column", "count"),
                        C_("summary column", "average"), C_("summary column", "FLOP rate"),
                        C_("summary column", "bandwidth"), C_("summary column", "name"));
              else
                printf ("    %14s %14s %10s %14s  %s\n", C_("summary column", "self"), C_("summary column", "total"),
                        C_("summary column", "count"), C_("summary column", "average"), C_("summary column", "name"));
              g_autoptr(GHashTable) shared = shared_display_names (rows);

              for (guint i = 0; i < n; i++)
                print_row_text (&g_array_index (rows, PlanarAggregate, i), shared, costs);
            }
          else
            for (guint i = 0; i < n; i++)
              print_row_table (format, host, plane->name, &g_array_index (rows, PlanarAggregate, i), costs);
        }

      if (w != NULL)
        planar_cli_end_named_list (w);
    }

  if (w != NULL)
    {
      planar_json_writer_end_array (w);
      return planar_cli_end_json (w);
    }
  return planar_cli_finish_stdout ();
}
