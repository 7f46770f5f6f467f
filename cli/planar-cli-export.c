/* planar-cli-export.c: `planar-cli export`, a profile for other tools.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"

#include <stdio.h>

int
planar_cli_export (int    argc,
                   char **argv)
{
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *session = NULL;
  gboolean force = FALSE;
  PlanarExportFormat format;
  int status;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      "chrome-json or perfetto (default: from OUT's name: .pftrace and .perfetto-trace are Perfetto)", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The file to write; gzip-compressed when it ends in .gz", "OUT" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Replace OUT if it exists", NULL },
    { "session", 0, 0, G_OPTION_ARG_STRING, &session, "Session to read (default: the newest)", "NAME" },
    { NULL }
  };

  if (!planar_cli_parse ("export", "-o OUT PATH",
                         "Writes a profile as Chrome Trace Event JSON (chrome://tracing, Perfetto, XProf) or as a\n"
                         "Perfetto protobuf trace (ui.perfetto.dev).",
                         entries, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "export takes one PATH (see 'planar-cli export --help')");
  if (output == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "export needs -o OUT (see 'planar-cli export --help')");
  if (format_name != NULL && !planar_export_format_from_string (format_name, &format))
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "unknown format '%s': use chrome-json or perfetto", format_name);
  if (format_name == NULL)
    format = planar_export_format_for_path (output);
  if (!force && g_file_test (output, G_FILE_TEST_EXISTS))
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "%s already exists (use --force to replace it)", output);

  profile = planar_cli_load_profile (argv[1], session, NULL, &error);
  if (profile == NULL)
    return planar_cli_fail (planar_cli_error_status (error, PLANAR_CLI_EXIT_BAD_INPUT), "%s", error->message);
  if (!planar_export_to_file (profile, format, output, force, NULL, NULL, NULL, &error))
    return planar_cli_fail (planar_cli_error_status (error, PLANAR_CLI_EXIT_FAILURE), "%s", error->message);
  printf ("wrote %s (%s, %" G_GUINT64_FORMAT " events)\n", output, planar_export_format_to_string (format),
          _planar_export_count_events (profile));
  return PLANAR_CLI_EXIT_OK;
}
