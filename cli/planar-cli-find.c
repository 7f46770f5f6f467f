/* planar-cli-find.c: `planar-cli find`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include <stdio.h>

#define DEFAULT_LIMIT 100

/* GLib's messages may quote the pattern, which can hold a newline; the
 * refusal must stay one line for scripts. */
static char *
one_line (const char *message)
{
  char *text = g_strdup (message);

  g_strdelimit (text, "\r\n", ' ');
  return text;
}

/* The end of a search whose answer is printed: 1 when nothing matched. */
static int
finish (PlanarProfile *profile,
        guint64        n_hits)
{
  int status = planar_cli_finish_stdout ();

  if (status != PLANAR_CLI_EXIT_OK)
    return status;
  planar_cli_warn_losses (profile);
  return n_hits > 0 ? PLANAR_CLI_EXIT_OK : PLANAR_CLI_EXIT_FAILURE;
}

int
planar_cli_find (int    argc,
                 char **argv)
{
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(PlanarSearch) search = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *session = NULL;
  g_autofree char *session_name = NULL;
  g_autofree char *format_name = NULL;
  PlanarCliFormat format;
  gboolean regex = FALSE, case_sensitive = FALSE, json = FALSE;
  gint64 limit = DEFAULT_LIMIT;
  PlanarSearchFlags flags = PLANAR_SEARCH_DEFAULT;
  const char *pattern;
  guint64 n_hits, n_shown;
  int status;
  GOptionEntry entries[] = {
    { "regex", 0, 0, G_OPTION_ARG_NONE, &regex, N_("PATTERN is a regular expression (PCRE)"), NULL },
    { "case-sensitive", 0, 0, G_OPTION_ARG_NONE, &case_sensitive, N_("Match letter case exactly"), NULL },
    { "limit", 0, 0, G_OPTION_ARG_INT64, &limit, N_("Print at most N events (default 100; 0: all)"), "N" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_name, N_("text (default), tsv, csv or json"), "FORMAT" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON (--format json)"), NULL },
    { "session", 0, 0, G_OPTION_ARG_STRING, &session, N_("Session to read (default: the newest)"), "NAME" },
    { NULL }
  };

  if (!planar_cli_parse ("find", "PATH PATTERN",
                         N_("Prints the events, on every host, plane and line, whose name, display name or\n"
                            "string stats (hlo_op, tf_op, kernel_details, …) match PATTERN, in time order;\n"
                            "device events also by the framework op and source line of their HLO.\n"
                            "PATTERN is a substring, matched without regard to case unless told."),
                         entries, PLANAR_CLI_OPTIONS_LOAD | PLANAR_CLI_OPTIONS_JSON, &argc, &argv, &status))
    return status;
  if (argc != 3)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("find takes PATH and PATTERN (see 'planar-cli find --help')"));
  if (limit < 0)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("--limit must be 0 (all) or more"));
  if (!planar_cli_get_format (format_name, json, &format, &status))
    return status;

  pattern = argv[2];
  if (regex)
    flags |= PLANAR_SEARCH_REGEX;
  if (case_sensitive)
    flags |= PLANAR_SEARCH_CASE_SENSITIVE;

  /* A bad pattern is refused before minutes go into loading. */
  if (!planar_search_check_pattern (pattern, flags, &error))
    {
      g_autofree char *message = one_line (error->message);

      return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "%s", message);
    }

  profile = planar_cli_load_profile (argv[1], session, &session_name, &error);
  if (profile == NULL)
    return planar_cli_fail_error (error, FALSE);

  search = planar_search_new (profile, pattern, flags, &error);
  if (search == NULL || !planar_search_run (search, NULL, &error))
    return planar_cli_fail_error (error, FALSE);

  n_hits = planar_search_get_n_hits (search);
  n_shown = limit == 0 ? n_hits : MIN (n_hits, (guint64) limit);

  if (format == PLANAR_CLI_FORMAT_JSON)
    {
      g_autoptr(PlanarJsonWriter) w = planar_cli_begin_json (session_name);

      planar_json_writer_key (w, "count");
      planar_json_writer_uint (w, n_hits);
      planar_json_writer_key (w, "printed");
      planar_json_writer_uint (w, n_shown);
      planar_json_writer_key (w, "events");
      planar_json_writer_begin_array (w);
      for (guint64 i = 0; i < n_shown; i++)
        {
          const PlanarSearchHit *hit = planar_search_get_hit (search, i);
          PlanarTrace *trace;
          const PlanarPlane *plane;
          const PlanarTrack *track;
          const PlanarEvent *ev = planar_search_resolve_hit (search, hit, &trace, &plane, &track);

          planar_json_writer_begin_object (w);
          planar_json_writer_key (w, "host");
          planar_json_writer_string (w, planar_trace_get_host_name (trace));
          planar_json_writer_key (w, "plane");
          planar_json_writer_string (w, plane->name);
          planar_json_writer_key (w, "line");
          planar_json_writer_string (w, track->name);
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
          planar_json_writer_end_object (w);
        }
      planar_json_writer_end_array (w);
      status = planar_cli_end_json (w);
      if (status != PLANAR_CLI_EXIT_OK)
        return status;
      return finish (profile, n_hits);
    }

  if (format != PLANAR_CLI_FORMAT_TEXT)
    {
      const char *header[] = { "host", "plane", "line", "start_ps", "duration_ps", "depth", "name", "display_name",
                               NULL };

      planar_cli_print_row (format, header);
    }
  for (guint64 i = 0; i < n_shown; i++)
    {
      const PlanarSearchHit *hit = planar_search_get_hit (search, i);
      PlanarTrace *trace;
      const PlanarPlane *plane;
      const PlanarTrack *track;
      const PlanarEvent *ev = planar_search_resolve_hit (search, hit, &trace, &plane, &track);

      if (format != PLANAR_CLI_FORMAT_TEXT)
        {
          g_autofree char *start = g_strdup_printf ("%" G_GINT64_FORMAT, ev->start_ps);
          g_autofree char *duration = g_strdup_printf ("%" G_GINT64_FORMAT, ev->duration_ps);
          g_autofree char *depth = g_strdup_printf ("%u", ev->depth);
          const char *fields[] = { planar_trace_get_host_name (trace), plane->name, track->name, start, duration,
                                   depth, planar_plane_get_event_name (plane, ev, FALSE),
                                   planar_plane_get_event_name (plane, ev, TRUE), NULL };

          planar_cli_print_row (format, fields);
          continue;
        }
      printf ("%s\t%s\t%s\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%s\n",
              planar_cli_text (planar_trace_get_host_name (trace)), planar_cli_text (plane->name),
              planar_cli_text (track->name), ev->start_ps, ev->duration_ps,
              planar_cli_text (planar_plane_get_event_name (plane, ev, TRUE)));
    }
  if (format != PLANAR_CLI_FORMAT_TEXT)
    ;
  else if (n_shown < n_hits)
    printf (ngettext ("# %" PRIu64 " match, first %" PRIu64 " shown (--limit 0 shows all)\n",
                      "# %" PRIu64 " matches, first %" PRIu64 " shown (--limit 0 shows all)\n", n_hits),
            n_hits, n_shown);
  else
    printf (ngettext ("# %" PRIu64 " match\n", "# %" PRIu64 " matches\n", n_hits), n_hits);
  return finish (profile, n_hits);
}
