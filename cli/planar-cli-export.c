/* planar-cli-export.c: `planar-cli export`, a profile for other tools.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"
#include "planar-export-private.h"

#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

static void
show_progress (double   fraction,
               gpointer user_data)
{
  planar_cli_progress (_("exporting"), fraction);
}

/* -o -: the document on standard output, never compressed. */
static gboolean
export_to_stdout (PlanarProfile            *profile,
                  PlanarExportFormat        format,
                  const PlanarExportFilter *filter,
                  GError                  **error)
{
  g_autoptr(GOutputStream) raw = g_unix_output_stream_new (STDOUT_FILENO, FALSE);
  g_autoptr(GOutputStream) out = G_OUTPUT_STREAM (g_buffered_output_stream_new_sized (raw, 1 << 20));
  gboolean ok;

  /* Whatever printf() holds goes first. */
  fflush (stdout);
  ok = planar_export_to_stream_filtered (profile, format, filter, out, show_progress, NULL, NULL, error) &&
       g_output_stream_close (out, NULL, error);
  planar_cli_progress_end ();
  return ok;
}

/* Whether @filter keeps any plane of @profile. */
static gboolean
keeps_a_plane (PlanarProfile            *profile,
               const PlanarExportFilter *filter)
{
  for (guint h = 0; h < planar_profile_get_n_traces (profile); h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        if (planar_export_filter_keeps_plane (filter, trace, planar_trace_get_plane (trace, p)))
          return TRUE;
    }
  return FALSE;
}

int
planar_cli_export (int    argc,
                   char **argv)
{
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *session = NULL;
  g_autofree char *host = NULL;
  g_autofree char *plane = NULL;
  g_autofree char *line = NULL;
  g_autofree char *from_text = NULL;
  g_autofree char *to_text = NULL;
  PlanarExportFilter filter = PLANAR_EXPORT_FILTER_INIT;
  gboolean force = FALSE;
  gboolean to_stdout;
  PlanarExportFormat format;
  guint64 n_written;
  gboolean ok;
  int status;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      N_("chrome-json or perfetto (default: from OUT's name: .pftrace and .perfetto-trace are Perfetto; "
         "chrome-json for -o -)"), "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      N_("The file to write, gzip-compressed when it ends in .gz; - for standard output"), "OUT" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, N_("Replace OUT if it is an existing regular file"), NULL },
    { "session", 0, 0, G_OPTION_ARG_STRING, &session, N_("Session to read (default: the newest)"), "NAME" },
    { "host", 0, 0, G_OPTION_ARG_STRING, &host, N_("Only this host's planes"), "NAME" },
    { "plane", 0, 0, G_OPTION_ARG_STRING, &plane, N_("Only the planes of this name"), "NAME" },
    { "line", 0, 0, G_OPTION_ARG_STRING, &line, N_("Only the lines of this name or display name"), "NAME" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from_text,
      N_("Only events ending at or after this time, with a unit (1.5ms, 250us, 1:02.5)"), "TIME" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to_text, N_("Only events starting at or before this time, with a unit"), "TIME" },
    { NULL }
  };

  if (!planar_cli_parse ("export", "-o OUT PATH",
                         N_("Writes a profile as Chrome Trace Event JSON (chrome://tracing, Perfetto, XProf) or as a\n"
                            "Perfetto protobuf trace (ui.perfetto.dev); counter lines as counters."),
                         entries, PLANAR_CLI_OPTIONS_LOAD, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("export takes one PATH (see 'planar-cli export --help')"));
  if (output == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("export needs -o OUT (see 'planar-cli export --help')"));
  if (format_name != NULL && !planar_export_format_from_string (format_name, &format))
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("unknown format '%s': use chrome-json or perfetto"), format_name);
  if (from_text != NULL && !planar_cli_parse_time ("--from", from_text, &filter.from_ps, &status))
    return status;
  if (to_text != NULL && !planar_cli_parse_time ("--to", to_text, &filter.to_ps, &status))
    return status;
  if (filter.from_ps > filter.to_ps)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("--from is after --to"));
  filter.host = host;
  filter.plane = plane;
  filter.line = line;

  to_stdout = g_strcmp0 (output, "-") == 0;
  if (format_name == NULL)
    format = to_stdout ? PLANAR_EXPORT_CHROME_JSON : planar_export_format_for_path (output);

  /* Refused before minutes go into loading. */
  if (to_stdout)
    {
      if (format == PLANAR_EXPORT_PERFETTO && isatty (STDOUT_FILENO))
        return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT,
                                _("a Perfetto trace is binary and is not written to a terminal: "
                                  "redirect standard output, or use -o FILE"));
    }
  else if (!planar_export_check_target (output, force, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("%s already exists (use --force to replace it)"), output);
      return planar_cli_fail_error (error, !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE));
    }

  profile = planar_cli_load_profile (argv[1], session, NULL, &error);
  if (profile == NULL)
    return planar_cli_fail_error (error, FALSE);
  if (!keeps_a_plane (profile, &filter))
    {
      g_autofree char *filters = g_strdup_printf ("%s%s%s%s%s%s",
                                                  host != NULL ? " --host " : "", host != NULL ? host : "",
                                                  plane != NULL ? " --plane " : "", plane != NULL ? plane : "",
                                                  line != NULL ? " --line " : "", line != NULL ? line : "");

      /* TRANSLATORS: the second %s is the filter options given, each with
       * a space before it (" --host h1 --plane /host:CPU"). */
      return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("nothing in %s matches%s"), argv[1], filters);
    }
  n_written = planar_export_count_filtered (profile, &filter);

  if (to_stdout)
    {
      if (!export_to_stdout (profile, format, &filter, &error))
        return planar_cli_fail (planar_cli_status_for_error (error, TRUE), _("cannot write the output: %s"),
                                error->message);
      planar_cli_warn_losses (profile);
      /* Standard output holds the document: the report goes to stderr. */
      fprintf (stderr, ngettext ("wrote standard output (%s, %" PRIu64 " event)\n",
                                 "wrote standard output (%s, %" PRIu64 " events)\n", n_written),
               planar_export_format_to_string (format), n_written);
      return PLANAR_CLI_EXIT_OK;
    }

  ok = planar_export_to_file_filtered (profile, format, &filter, output, force, show_progress, NULL, NULL, &error);
  planar_cli_progress_end ();
  if (!ok)
    {
      /* Something else took the name while the export ran. */
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS) ||
          g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE))
        return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "%s", error->message);
      return planar_cli_fail_error (error, TRUE);
    }
  planar_cli_warn_losses (profile);
  printf (ngettext ("wrote %s (%s, %" PRIu64 " event)\n", "wrote %s (%s, %" PRIu64 " events)\n", n_written),
          planar_cli_text (output), planar_export_format_to_string (format), n_written);
  return planar_cli_finish_stdout ();
}
