/* planar-cli-health.c: `planar-cli health`, the trace health report: what
 * a user checks when a trace looks incomplete.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void
write_nullable (PlanarJsonWriter *w,
                const char       *key,
                const char       *value)
{
  planar_json_writer_key (w, key);
  if (value != NULL)
    planar_json_writer_string (w, value);
  else
    planar_json_writer_null (w);
}

static void
write_issue_json (PlanarJsonWriter        *w,
                  const PlanarHealthIssue *issue)
{
  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "severity");
  planar_json_writer_string (w, planar_health_severity_to_string (issue->severity));
  planar_json_writer_key (w, "kind");
  planar_json_writer_string (w, issue->kind);
  write_nullable (w, "host", issue->host);
  write_nullable (w, "plane", issue->plane);
  write_nullable (w, "line", issue->line);
  planar_json_writer_key (w, "count");
  planar_json_writer_uint (w, issue->count);
  planar_json_writer_key (w, "message");
  planar_json_writer_string (w, issue->message);
  planar_json_writer_end_object (w);
}

/* The severity as the text output shows it (the JSON keeps
 * planar_health_severity_to_string()'s words). */
static const char *
severity_label (PlanarHealthSeverity severity)
{
  switch (severity)
    {
    case PLANAR_HEALTH_ERROR:
      return C_("health severity", "error");
    case PLANAR_HEALTH_WARNING:
      return C_("health severity", "warning");
    case PLANAR_HEALTH_INFO:
    default:
      return C_("health severity", "info");
    }
}

static void
print_issue_text (const PlanarHealthIssue *issue)
{
  /* TRANSLATORS: where a finding of the whole session (no host) is. */
  g_autofree char *where = g_strjoin (" / ", issue->host != NULL ? issue->host : _("session"),
                                      issue->plane != NULL ? issue->plane : "",
                                      issue->line, NULL);

  if (issue->plane == NULL)
    where[strlen (where) - 3] = '\0';
  printf ("%-7s %s: %s\n", severity_label (issue->severity), planar_cli_text (where),
          planar_cli_text (issue->message));
}

/* Events per plane and line, so that a missing device or thread shows. */
static void
write_counts (PlanarJsonWriter *w,
              PlanarProfile    *profile)
{
  if (w != NULL)
    {
      planar_json_writer_key (w, "hosts");
      planar_json_writer_begin_array (w);
    }
  else
    printf ("\n%s\n", _("Events per plane and line"));

  for (guint h = 0; h < planar_profile_get_n_traces (profile); h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);

      if (w != NULL)
        planar_cli_begin_named_list (w, planar_trace_get_host_name (trace), "planes");
      else
        printf (_("Host %s\n"), planar_cli_text (planar_trace_get_host_name (trace)));

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);

          if (w != NULL)
            {
              planar_json_writer_begin_object (w);
              planar_json_writer_key (w, "name");
              planar_json_writer_string (w, plane->name);
              planar_json_writer_key (w, "events");
              planar_json_writer_uint (w, plane->n_events);
              planar_json_writer_key (w, "lines");
              planar_json_writer_begin_array (w);
            }
          else
            printf ("  %10" G_GUINT64_FORMAT "  %s\n", plane->n_events, planar_cli_text (plane->name));

          for (guint l = 0; l < plane->n_lines; l++)
            {
              const PlanarLine *line = &plane->lines[l];

              if (line->derived)
                continue;
              if (w != NULL)
                {
                  planar_json_writer_begin_object (w);
                  planar_json_writer_key (w, "name");
                  planar_json_writer_string (w, line->display_name);
                  planar_json_writer_key (w, "id");
                  planar_json_writer_int (w, line->id);
                  planar_json_writer_key (w, "events");
                  planar_json_writer_uint (w, line->n_events);
                  planar_json_writer_end_object (w);
                }
              else
                printf ("  %10" G_GUINT64_FORMAT "      %s\n", line->n_events, planar_cli_text (line->display_name));
            }
          if (w != NULL)
            planar_cli_end_named_list (w);
        }
      if (w != NULL)
        planar_cli_end_named_list (w);
    }
  if (w != NULL)
    planar_json_writer_end_array (w);
}

/* The status of a report printed: 1 when it holds a warning or an error
 * (notes alone, such as an empty plane or flows with one end, are how
 * many sound profiles look). */
static int
finish (PlanarProfile *profile,
        GPtrArray     *issues)
{
  int status = planar_cli_finish_stdout ();

  if (status != PLANAR_CLI_EXIT_OK)
    return status;
  planar_cli_warn_losses (profile);
  for (guint i = 0; i < issues->len; i++)
    if (((const PlanarHealthIssue *) g_ptr_array_index (issues, i))->severity >= PLANAR_HEALTH_WARNING)
      return PLANAR_CLI_EXIT_FAILURE;
  return PLANAR_CLI_EXIT_OK;
}

int
planar_cli_health (int    argc,
                   char **argv)
{
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(PlanarCatalog) catalog = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarJsonWriter) w = NULL;
  g_autoptr(GPtrArray) issues = NULL;
  g_autofree char *session = NULL;
  g_autofree char *session_name = NULL;
  PlanarCatalogSession *found = NULL;
  gboolean json = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    { "session", 0, 0, G_OPTION_ARG_STRING, &session, N_("Session to read (default: the newest)"), "NAME" },
    { NULL }
  };

  if (!planar_cli_parse ("health", "PATH",
                         N_("Reports the profiler's errors and warnings, dropped events, empty planes, partial\n"
                            "overlaps, a missing Task Environment, unreadable files, and events per plane and line."),
                         entries, PLANAR_CLI_OPTIONS_LOAD | PLANAR_CLI_OPTIONS_JSON | PLANAR_CLI_OPTIONS_COUNT_STATS,
                         &argc, &argv, &status))
    return status;
  if (argc != 2)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("health takes one PATH (see 'planar-cli health --help')"));

  profile = planar_cli_load_session (argv[1], session, &session_name, &catalog, &found, &error);
  if (profile == NULL)
    return planar_cli_fail_error (error, FALSE);
  /* Every damaged stat, not only those the load happened to read. */
  for (guint i = 0; i < planar_profile_get_n_traces (profile); i++)
    planar_trace_count_damaged_stats (planar_profile_get_trace (profile, i), NULL);
  issues = planar_health_check (profile, found);

  if (json)
    {
      w = planar_cli_begin_json (session_name);
      planar_json_writer_key (w, "issues");
      planar_json_writer_begin_array (w);
      for (guint i = 0; i < issues->len; i++)
        write_issue_json (w, g_ptr_array_index (issues, i));
      planar_json_writer_end_array (w);
      write_counts (w, profile);
      status = planar_cli_end_json (w);
      if (status != PLANAR_CLI_EXIT_OK)
        return status;
      return finish (profile, issues);
    }

  printf (ngettext ("Session %s: %u finding\n", "Session %s: %u findings\n", issues->len),
          planar_cli_text (session_name), issues->len);
  for (guint i = 0; i < issues->len; i++)
    print_issue_text (g_ptr_array_index (issues, i));
  write_counts (NULL, profile);
  return finish (profile, issues);
}
