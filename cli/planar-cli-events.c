/* planar-cli-events.c: `planar-cli events`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include <stdio.h>

static gboolean
in_window (const PlanarEvent *ev,
           gint64             from,
           gint64             to)
{
  gint64 end = ev->start_ps + ev->duration_ps;

  /* Instants on the window's edges count as inside. */
  return ev->start_ps <= to && (end > from || (ev->duration_ps == 0 && ev->start_ps >= from));
}

/* The stats of @ev as "name=value; ..." (values escaped for text and TSV
 * when @escape). Returns: (transfer full). */
static char *
stats_text (GArray   *stats,
            gboolean  escape)
{
  GString *line = g_string_new (NULL);

  for (guint s = 0; s < stats->len; s++)
    {
      const PlanarStat *stat = &g_array_index (stats, PlanarStat, s);
      g_autofree char *name = planar_cli_stat_name (stat);
      g_autofree char *value = planar_stat_format_value (stat);

      if (escape)
        {
          g_autofree char *safe_value = planar_cli_escape (value, -1);

          g_string_append_printf (line, "%s%s=%s", s ? "; " : "", planar_cli_text (name), safe_value);
        }
      else
        g_string_append_printf (line, "%s%s=%s", s ? "; " : "", name, value);
    }
  return g_string_free (line, FALSE);
}

int
planar_cli_events (int    argc,
                   char **argv)
{
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) selected = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  g_autofree char *plane_name = NULL;
  g_autofree char *line_name = NULL;
  g_autofree char *host_name = NULL;
  g_autofree char *session = NULL;
  g_autofree char *session_name = NULL;
  g_autofree char *from_text = NULL;
  g_autofree char *to_text = NULL;
  g_autofree char *format_name = NULL;
  gint64 from = G_MININT64, to = G_MAXINT64, limit = 0;
  guint64 count = 0;
  gboolean json = FALSE;
  PlanarCliFormat format;
  PlanarTrace *trace = NULL;
  const PlanarPlane *plane = NULL;
  const PlanarTrack *track = NULL;
  int status;
  GOptionEntry entries[] = {
    { "plane", 0, 0, G_OPTION_ARG_STRING, &plane_name, N_("Plane name (required)"), "NAME" },
    { "line", 0, 0, G_OPTION_ARG_STRING, &line_name, N_("Line name or display name (required)"), "NAME" },
    { "host", 0, 0, G_OPTION_ARG_STRING, &host_name, N_("Host (default: the first that has the plane)"), "NAME" },
    { "session", 0, 0, G_OPTION_ARG_STRING, &session, N_("Session to read (default: the newest)"), "NAME" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from_text,
      N_("Only events ending at or after this time, with a unit (1.5ms, 250us, 1:02.5)"), "TIME" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to_text, N_("Only events starting at or before this time, with a unit"), "TIME" },
    { "from-ps", 0, 0, G_OPTION_ARG_INT64, &from, N_("Only events ending at or after this time (ps)"), "A" },
    { "to-ps", 0, 0, G_OPTION_ARG_INT64, &to, N_("Only events starting at or before this time (ps)"), "B" },
    { "limit", 0, 0, G_OPTION_ARG_INT64, &limit, N_("Print at most N events (default 0: all)"), "N" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_name, N_("text (default), tsv, csv or json"), "FORMAT" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON (--format json)"), NULL },
    { NULL }
  };

  if (!planar_cli_parse ("events", "PATH", N_("Prints the events of one line with their stats."),
                         entries, PLANAR_CLI_OPTIONS_LOAD | PLANAR_CLI_OPTIONS_JSON, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("events takes one PATH (see 'planar-cli events --help')"));
  if (plane_name == NULL || line_name == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("events needs --plane NAME and --line NAME"));
  if (from_text != NULL && from != G_MININT64)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("give --from or --from-ps, not both"));
  if (to_text != NULL && to != G_MAXINT64)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("give --to or --to-ps, not both"));
  if (from_text != NULL && !planar_cli_parse_time ("--from", from_text, &from, &status))
    return status;
  if (to_text != NULL && !planar_cli_parse_time ("--to", to_text, &to, &status))
    return status;
  if (from > to)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("%s is after %s"), from_text != NULL ? "--from" : "--from-ps",
                            to_text != NULL ? "--to" : "--to-ps");
  if (limit < 0)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("--limit must be 0 (all) or more"));
  if (!planar_cli_get_format (format_name, json, &format, &status))
    return status;

  profile = planar_cli_load_profile (argv[1], session, &session_name, &error);
  if (profile == NULL)
    return planar_cli_fail_error (error, FALSE);

  for (guint i = 0; i < planar_profile_get_n_traces (profile) && track == NULL; i++)
    {
      PlanarTrace *t = planar_profile_get_trace (profile, i);

      if (host_name != NULL && g_strcmp0 (planar_trace_get_host_name (t), host_name) != 0)
        continue;
      for (guint p = 0; p < planar_trace_get_n_planes (t) && track == NULL; p++)
        {
          const PlanarPlane *candidate = planar_trace_get_plane (t, p);

          if (g_strcmp0 (candidate->name, plane_name) != 0)
            continue;
          track = planar_plane_find_track (candidate, line_name);
          if (track != NULL)
            {
              trace = t;
              plane = candidate;
            }
        }
    }
  if (track == NULL && host_name != NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("no line '%s' on a plane '%s' of host %s in %s"),
                            line_name, plane_name, host_name, argv[1]);
  if (track == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("no line '%s' on a plane '%s' in %s"),
                            line_name, plane_name, argv[1]);

  /* Select first, and decode every selected event's stats once before
   * printing, so that an event that cannot be read fails the command with
   * nothing printed (a damaged stat alone is skipped, and said at the
   * end). Every event of the window is counted (count), the first
   * --limit of them printed (printed). */
  /* Parents can be arbitrarily long, so the walk starts at the first event;
   * the span index of the model queries replaces this scan. */
  for (gsize i = 0; i < track->n_events; i++)
    {
      const PlanarEvent *ev = &track->events[i];

      if (ev->start_ps > to)
        break;
      if (!in_window (ev, from, to))
        continue;
      count++;
      if (limit > 0 && (gint64) selected->len >= limit)
        continue;
      g_array_set_size (stats, 0);
      if (planar_trace_get_event_stats (trace, plane, ev, stats, &error) == 0 && error != NULL)
        return planar_cli_fail_error (error, FALSE);
      g_array_append_val (selected, i);
    }

  if (format == PLANAR_CLI_FORMAT_JSON)
    {
      g_autoptr(PlanarJsonWriter) w = planar_cli_begin_json (session_name);

      planar_json_writer_key (w, "host");
      planar_json_writer_string (w, planar_trace_get_host_name (trace));
      planar_json_writer_key (w, "plane");
      planar_json_writer_string (w, plane->name);
      planar_json_writer_key (w, "line");
      planar_json_writer_string (w, track->name);
      planar_json_writer_key (w, "count");
      planar_json_writer_uint (w, count);
      planar_json_writer_key (w, "printed");
      planar_json_writer_uint (w, selected->len);
      planar_json_writer_key (w, "events");
      planar_json_writer_begin_array (w);
      for (guint k = 0; k < selected->len; k++)
        {
          const PlanarEvent *ev = &track->events[g_array_index (selected, gsize, k)];

          g_array_set_size (stats, 0);
          planar_trace_get_event_stats (trace, plane, ev, stats, NULL);
          planar_json_writer_begin_object (w);
          planar_json_writer_key (w, "name");
          planar_json_writer_string (w, planar_plane_get_event_name (plane, ev, FALSE));
          planar_json_writer_key (w, "display_name");
          planar_json_writer_string (w, planar_plane_get_event_name (plane, ev, TRUE));
          planar_json_writer_key (w, "start_ps");
          planar_json_writer_int (w, ev->start_ps);
          planar_json_writer_key (w, "duration_ps");
          planar_json_writer_int (w, ev->duration_ps);
          planar_json_writer_key (w, "depth");
          planar_json_writer_uint (w, ev->depth);
          planar_cli_write_op_info (w, trace, plane, track, (gsize) (ev - track->events));
          planar_json_writer_key (w, "stats");
          planar_json_writer_begin_object (w);
          for (guint s = 0; s < stats->len; s++)
            {
              const PlanarStat *stat = &g_array_index (stats, PlanarStat, s);
              g_autofree char *name = planar_cli_stat_name (stat);

              planar_json_writer_key (w, name);
              planar_cli_write_stat_value (w, stat);
            }
          planar_json_writer_end_object (w);
          planar_json_writer_end_object (w);
        }
      planar_json_writer_end_array (w);
      status = planar_cli_end_json (w);
      if (status == PLANAR_CLI_EXIT_OK)
        planar_cli_warn_losses (profile);
      return status;
    }

  if (format == PLANAR_CLI_FORMAT_TEXT)
    printf ("# start_ps\tduration_ps\tdepth\tname\tstats\n");
  else
    {
      const char *header[] = { "start_ps", "duration_ps", "depth", "name", "display_name", "stats", NULL };

      planar_cli_print_row (format, header);
    }
  for (guint k = 0; k < selected->len; k++)
    {
      const PlanarEvent *ev = &track->events[g_array_index (selected, gsize, k)];

      g_array_set_size (stats, 0);
      planar_trace_get_event_stats (trace, plane, ev, stats, NULL);
      if (format == PLANAR_CLI_FORMAT_TEXT)
        {
          g_autofree char *line = stats_text (stats, TRUE);

          printf ("%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%u\t%s\t%s\n", ev->start_ps, ev->duration_ps,
                  ev->depth, planar_cli_text (planar_plane_get_event_name (plane, ev, TRUE)), line);
        }
      else
        {
          g_autofree char *start = g_strdup_printf ("%" G_GINT64_FORMAT, ev->start_ps);
          g_autofree char *duration = g_strdup_printf ("%" G_GINT64_FORMAT, ev->duration_ps);
          g_autofree char *depth = g_strdup_printf ("%u", ev->depth);
          g_autofree char *line = stats_text (stats, FALSE);
          const char *fields[] = { start, duration, depth, planar_plane_get_event_name (plane, ev, FALSE),
                                   planar_plane_get_event_name (plane, ev, TRUE), line, NULL };

          planar_cli_print_row (format, fields);
        }
    }
  if (format == PLANAR_CLI_FORMAT_TEXT && (guint64) selected->len < count)
    printf (ngettext ("# %" PRIu64 " event, first %u shown (--limit 0 shows all)\n",
                      "# %" PRIu64 " events, first %u shown (--limit 0 shows all)\n", count),
            count, selected->len);
  status = planar_cli_finish_stdout ();
  if (status == PLANAR_CLI_EXIT_OK)
    planar_cli_warn_losses (profile);
  return status;
}
