/* planar-cli-info.c: `planar-cli info`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include <stdio.h>
#include <string.h>

static void
write_span (PlanarJsonWriter *w,
            gboolean          has_span,
            gint64            first,
            gint64            last)
{
  planar_json_writer_key (w, "span_ps");
  if (!has_span)
    {
      planar_json_writer_null (w);
      return;
    }
  planar_json_writer_begin_array (w);
  planar_json_writer_int (w, first);
  planar_json_writer_int (w, last);
  planar_json_writer_end_array (w);
}

/* Phases sorted, so that the output is the same every time. */
static GList *
sorted_phases (const PlanarImportReport *report)
{
  return g_list_sort (g_hash_table_get_keys (report->ignored), (GCompareFunc) strcmp);
}

/* What an import of Chrome JSON found besides its events. */
static void
write_import_json (PlanarJsonWriter         *w,
                   const PlanarImportReport *report)
{
  g_autoptr(GList) phases = sorted_phases (report);

  planar_json_writer_key (w, "import");
  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "format");
  planar_json_writer_string (w, "chrome-json");
  planar_json_writer_key (w, "complete");
  planar_json_writer_uint (w, report->n_complete);
  planar_json_writer_key (w, "begin_end");
  planar_json_writer_uint (w, report->n_begin_end);
  planar_json_writer_key (w, "instant");
  planar_json_writer_uint (w, report->n_instant);
  planar_json_writer_key (w, "flows");
  planar_json_writer_uint (w, report->n_flows);
  planar_json_writer_key (w, "unbound_flows");
  planar_json_writer_uint (w, report->n_unbound_flows);
  planar_json_writer_key (w, "counters");
  planar_json_writer_uint (w, report->n_counters);
  planar_json_writer_key (w, "metadata");
  planar_json_writer_uint (w, report->n_metadata);
  planar_json_writer_key (w, "unmatched_begin");
  planar_json_writer_uint (w, report->n_unmatched_begin);
  planar_json_writer_key (w, "unmatched_end");
  planar_json_writer_uint (w, report->n_unmatched_end);
  planar_json_writer_key (w, "ignored");
  planar_json_writer_begin_object (w);
  for (GList *l = phases; l != NULL; l = l->next)
    {
      planar_json_writer_key (w, l->data);
      planar_json_writer_uint (w, GPOINTER_TO_SIZE (g_hash_table_lookup (report->ignored, l->data)));
    }
  planar_json_writer_end_object (w);
  planar_json_writer_end_object (w);
}

static void
print_import_text (const PlanarImportReport *report)
{
  g_autoptr(GList) phases = sorted_phases (report);
  g_autoptr(GString) ignored = g_string_new (NULL);

  for (GList *l = phases; l != NULL; l = l->next)
    g_string_append_printf (ignored, "%s%s %" G_GSIZE_FORMAT, ignored->len > 0 ? ", " : "", (const char *) l->data,
                            GPOINTER_TO_SIZE (g_hash_table_lookup (report->ignored, l->data)));
  /* TRANSLATORS: a line of `planar-cli info`; keep the label's width. */
  printf (_("  Imported:   Chrome JSON: %" PRIu64 " complete, %" PRIu64 " begin/end pairs, %"
            PRIu64 " instants; %" PRIu64 " flow records (%" PRIu64 " unbound), %"
            PRIu64 " counter samples\n"),
          report->n_complete, report->n_begin_end, report->n_instant, report->n_flows, report->n_unbound_flows,
          report->n_counters);
  if (report->n_unmatched_begin + report->n_unmatched_end > 0)
    printf (_("  Unmatched:  %" PRIu64 " B without E, %" PRIu64 " E without B\n"),
            report->n_unmatched_begin, report->n_unmatched_end);
  if (ignored->len > 0)
    printf (_("  Skipped:    %s\n"), planar_cli_text (ignored->str));
}

static void
write_trace_json (PlanarJsonWriter *w,
                  PlanarTrace      *trace)
{
  const char * const *hostnames = planar_trace_get_hostnames (trace);
  gint64 first, last;
  gboolean has_span = planar_trace_get_span (trace, &first, &last);

  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "name");
  planar_json_writer_string (w, planar_trace_get_host_name (trace));
  planar_json_writer_key (w, "file");
  planar_json_writer_string (w, planar_trace_get_path (trace));
  planar_json_writer_key (w, "hostnames");
  planar_json_writer_begin_array (w);
  for (guint i = 0; hostnames[i] != NULL; i++)
    planar_json_writer_string (w, hostnames[i]);
  planar_json_writer_end_array (w);
  planar_json_writer_key (w, "alignment");
  planar_json_writer_string (w, planar_trace_is_aligned_at_earliest_event (trace)
                                ? "earliest_event" : "profile_start_time");
  if (planar_trace_get_import_report (trace) != NULL)
    write_import_json (w, planar_trace_get_import_report (trace));
  planar_json_writer_key (w, "planes");
  planar_json_writer_begin_array (w);
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      planar_json_writer_begin_object (w);
      planar_json_writer_key (w, "name");
      planar_json_writer_string (w, plane->name);
      planar_json_writer_key (w, "id");
      planar_json_writer_int (w, plane->id);
      planar_json_writer_key (w, "events");
      planar_json_writer_uint (w, plane->n_events);
      planar_json_writer_key (w, "lines");
      planar_json_writer_begin_array (w);
      for (guint l = 0; l < plane->n_lines; l++)
        {
          const PlanarLine *line = &plane->lines[l];

          planar_json_writer_begin_object (w);
          planar_json_writer_key (w, "name");
          planar_json_writer_string (w, line->name);
          planar_json_writer_key (w, "display_name");
          planar_json_writer_string (w, line->display_name);
          planar_json_writer_key (w, "id");
          planar_json_writer_int (w, line->id);
          planar_json_writer_key (w, "events");
          planar_json_writer_uint (w, line->n_events);
          if (line->derived)
            {
              planar_json_writer_key (w, "derived");
              planar_json_writer_boolean (w, TRUE);
            }
          planar_json_writer_end_object (w);
        }
      planar_json_writer_end_array (w);
      planar_json_writer_end_object (w);
    }
  planar_json_writer_end_array (w);
  planar_json_writer_key (w, "events");
  planar_json_writer_uint (w, planar_trace_get_n_events (trace));
  write_span (w, has_span, first, last);
  planar_json_writer_key (w, "damaged_stats");
  planar_json_writer_uint (w, planar_trace_get_n_damaged_stats (trace, NULL));
  planar_json_writer_end_object (w);
}

static void
print_trace_text (PlanarTrace *trace)
{
  const char * const *hostnames = planar_trace_get_hostnames (trace);
  const char * const *errors = planar_trace_get_errors (trace);
  const char * const *warnings = planar_trace_get_warnings (trace);
  g_autofree char *joined = g_strjoinv (", ", (char **) hostnames);
  g_autofree char *size = g_format_size (planar_trace_get_file_size (trace));
  g_autofree char *first_damaged = NULL;
  guint64 damaged = planar_trace_get_n_damaged_stats (trace, &first_damaged);
  gint64 first, last;

  /* TRANSLATORS: the lines of `planar-cli info` about a host; keep the
   * labels' width. */
  printf (_("Host %s\n"), planar_cli_text (planar_trace_get_host_name (trace)));
  printf (_("  File:       %s (%s)\n"), planar_cli_text (planar_trace_get_path (trace)), size);
  printf (_("  Hostnames:  %s\n"), joined[0] ? planar_cli_text (joined) : _("(none)"));
  printf (_("  Events:     %" PRIu64 "\n"), planar_trace_get_n_events (trace));
  if (planar_trace_get_import_report (trace) != NULL)
    print_import_text (planar_trace_get_import_report (trace));
  if (planar_trace_get_span (trace, &first, &last))
    {
      g_autofree char *a = planar_format_duration (first);
      g_autofree char *b = planar_format_duration (last);
      g_autofree char *d = planar_format_duration (last - first);

      printf (_("  Span:       %s to %s (%s)\n"), a, b, d);
    }
  if (planar_trace_is_aligned_at_earliest_event (trace))
    printf ("%s\n", _("  Time 0:     earliest event (the file has no Task Environment start time)"));
  if (planar_trace_get_damage (trace, NULL) != NULL)
    printf (_("  Cut short:  %s\n"), planar_cli_text (planar_trace_get_damage (trace, NULL)));
  if (planar_trace_get_n_overlaps (trace) > 0)
    printf (ngettext ("  Overlaps:   %" PRIu64 " event starts inside another and ends after it\n",
                      "  Overlaps:   %" PRIu64 " events start inside another and end after it\n",
                      planar_trace_get_n_overlaps (trace)),
            planar_trace_get_n_overlaps (trace));
  if (damaged > 0)
    printf (ngettext ("  Damaged:    %" PRIu64 " event stat cannot be read and is left out (the first: %s)\n",
                      "  Damaged:    %" PRIu64 " event stats cannot be read and are left out (the first: %s)\n",
                      damaged),
            damaged, planar_cli_text (first_damaged));
  for (guint i = 0; errors[i] != NULL; i++)
    printf (_("  Error:      %s\n"), planar_cli_text (errors[i]));
  for (guint i = 0; warnings[i] != NULL; i++)
    printf (_("  Warning:    %s\n"), planar_cli_text (warnings[i]));

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      printf (ngettext ("  Plane %s (id %" PRId64 "): %" PRIu64 " event\n",
                        "  Plane %s (id %" PRId64 "): %" PRIu64 " events\n", plane->n_events),
              planar_cli_text (plane->name), plane->id, plane->n_events);
      for (guint l = 0; l < plane->n_lines; l++)
        {
          const PlanarLine *line = &plane->lines[l];

          /* TRANSLATORS: a line of a plane in `planar-cli info`: its name, id and events. */
          printf (line->derived ? ngettext ("    %-40s id %-12" PRId64 " %10" PRIu64 " event (derived)\n",
                                            "    %-40s id %-12" PRId64 " %10" PRIu64 " events (derived)\n",
                                            line->n_events)
                                : ngettext ("    %-40s id %-12" PRId64 " %10" PRIu64 " event\n",
                                            "    %-40s id %-12" PRId64 " %10" PRIu64 " events\n",
                                            line->n_events),
                  planar_cli_text (line->display_name), line->id, line->n_events);
        }
    }
}

int
planar_cli_info (int    argc,
                 char **argv)
{
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_name = NULL;
  g_autofree char *session = NULL;
  gboolean json = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    { "session", 0, 0, G_OPTION_ARG_STRING, &session, N_("Session to read (default: the newest)"), "NAME" },
    { NULL }
  };

  if (!planar_cli_parse ("info", "PATH", N_("Lists the hosts, planes and lines of a profile."),
                         entries, PLANAR_CLI_OPTIONS_LOAD | PLANAR_CLI_OPTIONS_JSON | PLANAR_CLI_OPTIONS_COUNT_STATS,
                         &argc, &argv, &status))
    return status;
  if (argc != 2)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("info takes one PATH (see 'planar-cli info --help')"));

  profile = planar_cli_load_profile (argv[1], session, &session_name, &error);
  if (profile == NULL)
    return planar_cli_fail_error (error, FALSE);
  /* A profile read with losses says so: damaged stats are counted first. */
  for (guint i = 0; i < planar_profile_get_n_traces (profile); i++)
    planar_trace_count_damaged_stats (planar_profile_get_trace (profile, i), NULL);

  if (json)
    {
      g_autoptr(PlanarJsonWriter) w = planar_cli_begin_json (session_name);
      gint64 first, last;
      gboolean has_span = planar_profile_get_span (profile, &first, &last);

      planar_json_writer_key (w, "hosts");
      planar_json_writer_begin_array (w);
      for (guint i = 0; i < planar_profile_get_n_traces (profile); i++)
        write_trace_json (w, planar_profile_get_trace (profile, i));
      planar_json_writer_end_array (w);
      planar_json_writer_key (w, "events");
      planar_json_writer_uint (w, planar_profile_get_n_events (profile));
      write_span (w, has_span, first, last);
      planar_json_writer_key (w, "host_alignment");
      planar_json_writer_string (w, planar_host_alignment_to_string (planar_profile_get_host_alignment (profile)));
      status = planar_cli_end_json (w);
      if (status != PLANAR_CLI_EXIT_OK)
        return status;
      planar_cli_warn_losses (profile);
      return PLANAR_CLI_EXIT_OK;
    }

  {
    guint n_hosts = planar_profile_get_n_traces (profile);
    guint64 n_events = planar_profile_get_n_events (profile);
    g_autofree char *hosts = g_strdup_printf (ngettext ("%u host", "%u hosts", n_hosts), n_hosts);
    g_autofree char *events = g_strdup_printf (ngettext ("%" PRIu64 " event", "%" PRIu64 " events", n_events),
                                               n_events);

    /* TRANSLATORS: "Session NAME: 2 hosts, 1000 events". */
    printf (_("Session %s: %s, %s\n"), planar_cli_text (session_name), hosts, events);
  }
  /* How the hosts share the time axis, when there are several. */
  if (planar_profile_get_n_traces (profile) > 1)
    printf ("%s\n", planar_profile_get_host_alignment (profile) == PLANAR_HOST_ALIGNMENT_OWN_START
                     ? _("Host alignment: own start (hosts do not overlap in time; each is shown from its own start)")
                     : _("Host alignment: common start (hosts placed by their profile start times)"));
  for (guint i = 0; i < planar_profile_get_n_traces (profile); i++)
    print_trace_text (planar_profile_get_trace (profile, i));
  status = planar_cli_finish_stdout ();
  if (status != PLANAR_CLI_EXIT_OK)
    return status;
  planar_cli_warn_losses (profile);
  return PLANAR_CLI_EXIT_OK;
}
