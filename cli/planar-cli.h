/* planar-cli.h: what the subcommands of planar-cli share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-model.h"

G_BEGIN_DECLS

/* Exit statuses, one table for every command (docs/cli.md):
 *   0    ok, also a profile read with losses (each loss one
 *        "planar-cli: warning: ..." line on stderr and a health finding);
 *   1    the command ran but its answer is negative (find: no match;
 *        health: findings; capture: at least one host failed);
 *   2    bad input or usage (a missing PATH, not a profile, a bad option);
 *   3    I/O failure (cannot write the output, disk full, the file changed
 *        while it was read);
 *   128+N stopped by signal N (130 SIGINT, 143 SIGTERM).
 * `record` returns the recorded command's own status (127: could not start). */
#define PLANAR_CLI_EXIT_OK 0
#define PLANAR_CLI_EXIT_FAILURE 1
#define PLANAR_CLI_EXIT_BAD_INPUT 2
#define PLANAR_CLI_EXIT_IO 3
#define PLANAR_CLI_EXIT_SIGNAL(n) (128 + (n))

int  planar_cli_info   (int argc, char **argv);
int  planar_cli_events (int argc, char **argv);
int  planar_cli_summary (int argc, char **argv);
int  planar_cli_find (int argc, char **argv);
int  planar_cli_health (int argc, char **argv);
int  planar_cli_export (int argc, char **argv);
int  planar_cli_capture (int argc, char **argv);
int  planar_cli_snapshot (int argc, char **argv);
int  planar_cli_record (int argc, char **argv);

/* Prints "planar-cli: MESSAGE" on stderr and returns @status. */
int  planar_cli_fail   (int status, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Parses @argc/@argv with @entries; on error prints it and the usage.
 * Returns FALSE when the command should exit with @status. */
gboolean planar_cli_parse (const char    *command,
                           const char    *parameters,
                           const char    *summary,
                           GOptionEntry  *entries,
                           int           *argc,
                           char        ***argv,
                           int           *status);

/* Finds the profile at @path (a file, session, run or log directory),
 * picks @session (or the newest) and loads its hosts. What the load lost
 * (a host skipped, a file cut short) is printed as one "planar-cli:
 * warning: ..." line each on stderr. Returns: (transfer full): the loaded
 * profile, or %NULL with @error set. @session_name_out receives the
 * session's name. */
PlanarProfile *planar_cli_load_profile (const char  *path,
                                        const char  *session,
                                        char       **session_name_out,
                                        GError     **error);

/* The same, also returning the catalog and the session found in it (owned
 * by the catalog); both optional. */
PlanarProfile *planar_cli_load_session (const char             *path,
                                        const char             *session,
                                        char                  **session_name_out,
                                        PlanarCatalog         **catalog_out,
                                        PlanarCatalogSession  **session_out,
                                        GError                **error);

/* A writer on standard output. Returns: (transfer full). */
PlanarJsonWriter *planar_cli_stdout_json (gboolean pretty);

/* Opens {"name": @name, "@list_key": [ ... and closes it again: the shape
 * of the per-host and per-plane lists of the JSON outputs. */
void planar_cli_begin_named_list (PlanarJsonWriter *writer,
                                  const char       *name,
                                  const char       *list_key);
void planar_cli_end_named_list   (PlanarJsonWriter *writer);

/* Writes the value of @stat as JSON. */
void planar_cli_write_stat_value (PlanarJsonWriter *writer,
                                  const PlanarStat *stat);

/* The stat's name, "#<id>" when its metadata is missing. Returns: (transfer full). */
char *planar_cli_stat_name (const PlanarStat *stat);

G_END_DECLS
