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
int  planar_cli_hlo (int argc, char **argv);
int  planar_cli_export (int argc, char **argv);
int  planar_cli_capture (int argc, char **argv);
int  planar_cli_snapshot (int argc, char **argv);
int  planar_cli_record (int argc, char **argv);

/* Prints "planar-cli: MESSAGE" on stderr, its control characters escaped
 * (planar_cli_escape()), and returns @status. */
int  planar_cli_fail   (int status, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Prints "planar-cli: warning: MESSAGE" on stderr, escaped the same way: one
 * line per loss in a profile read with losses (the status stays 0). */
void planar_cli_warn   (const char *format, ...) G_GNUC_PRINTF (1, 2);

/* The exit status for @error by the table above: the file changed while it
 * was read, a full disk or a failed read or write is PLANAR_CLI_EXIT_IO; any
 * other error of the profile (PLANAR_TRACE_ERROR, a missing or unreadable
 * PATH) PLANAR_CLI_EXIT_BAD_INPUT when @writing is FALSE, PLANAR_CLI_EXIT_IO
 * when the error came from writing the output. */
int  planar_cli_status_for_error (const GError *error,
                                  gboolean      writing);

/* planar_cli_fail() with planar_cli_status_for_error() and the message. */
int  planar_cli_fail_error (const GError *error,
                            gboolean      writing);

/* Text for a terminal: @text with every C0 and C1 control character, DEL
 * and byte of invalid UTF-8 written as \xNN, so that nothing a profile or
 * a server holds can retitle, recolour or otherwise drive the terminal.
 * @len may be -1 for a NUL-terminated @text; %NULL reads as "".
 * Returns: (transfer full). */
char *planar_cli_escape (const char *text,
                         gssize      len);

/* planar_cli_escape() for printf() arguments: returns @text itself when it
 * needs no escaping, else an escaped copy that stays valid until the
 * sixteenth next call. Returns: (transfer none). */
const char *planar_cli_text (const char *text);

/* After a command read @profile: one warning line per host whose events
 * had damaged stats skipped (planar_trace_count_damaged_stats()), for the
 * hosts where a read met one. Returns the number of lines printed. */
guint planar_cli_warn_losses (PlanarProfile *profile);

/* Flushes standard output; on failure prints why and returns
 * PLANAR_CLI_EXIT_IO, else PLANAR_CLI_EXIT_OK. */
int  planar_cli_finish_stdout (void);

/* What a command adds to its own options (planar_cli_parse()). */
typedef enum
{
  PLANAR_CLI_OPTIONS_NONE = 0,
  /* --no-cache: the command reads a profile (planar_cli_load_session()). */
  PLANAR_CLI_OPTIONS_LOAD = 1 << 0,
  /* --pretty: the command prints JSON (planar_cli_begin_json()). */
  PLANAR_CLI_OPTIONS_JSON = 1 << 1,
  /* The command counts every damaged stat (planar_trace_count_damaged_stats()):
   * the load checks them as it decodes, instead of a second pass over the
   * file afterwards (planar_profile_set_count_stats()). */
  PLANAR_CLI_OPTIONS_COUNT_STATS = 1 << 2,
} PlanarCliOptions;

/* Parses @argc/@argv with @entries and the options @common asks for; on
 * error prints it and where the usage is. `--help` prints the help, whose
 * first line is "Usage: planar-cli COMMAND [OPTION…] PARAMETERS", on
 * standard output (status 0). Returns FALSE when the command should exit
 * with @status. */
gboolean planar_cli_parse (const char        *command,
                           const char        *parameters,
                           const char        *summary,
                           GOptionEntry      *entries,
                           PlanarCliOptions   common,
                           int               *argc,
                           char            ***argv,
                           int               *status);

/* @text, the value of @option (--from, --to), as Go to Time reads a time:
 * a number with a unit ("1.5ms", "250 us", "1:02.5"), planar_parse_duration()
 * with a unit required. FALSE with a one-line refusal printed (a bare
 * number with a hint) and @status set (2). */
gboolean planar_cli_parse_time (const char *option,
                                const char *text,
                                gint64     *ps,
                                int        *status);

/* Whether --no-cache was given (tests and the load read it). */
gboolean planar_cli_get_no_cache (void);

/* The output formats of summary, events and find (--format; --json is
 * --format json). */
typedef enum
{
  PLANAR_CLI_FORMAT_TEXT,
  PLANAR_CLI_FORMAT_TSV,
  PLANAR_CLI_FORMAT_CSV,
  PLANAR_CLI_FORMAT_JSON,
} PlanarCliFormat;

/* @name (NULL: text, or json when @json) as a format. FALSE with a
 * one-line refusal printed and @status set (2) when @name is none of
 * text, tsv, csv and json, or contradicts --json. */
gboolean planar_cli_get_format (const char      *name,
                                gboolean         json,
                                PlanarCliFormat *format,
                                int             *status);

/* One field of a TSV row: planar_cli_escape() (control characters, tab
 * and newline included, as \xNN). Of a CSV row: as RFC 4180 quotes it
 * (in double quotes, a quote doubled, when it holds a comma, a quote, CR
 * or LF). Returns: (transfer full). */
char *planar_cli_tsv_field (const char *text);
char *planar_cli_csv_field (const char *text);

/* Prints the %NULL-terminated @fields as one row of @format (TSV or CSV)
 * on standard output. */
void planar_cli_print_row (PlanarCliFormat     format,
                           const char * const *fields);

/* The head of every JSON document of planar-cli: a writer on standard
 * output (compact unless --pretty), the object opened, "format_version":
 * 1 and "session": @session (null when %NULL) written. Returns: (transfer full). */
PlanarJsonWriter *planar_cli_begin_json (const char *session);
/* The same with "format_version": @version, for a document whose keys
 * changed meaning since version 1 (docs/cli.md). */
PlanarJsonWriter *planar_cli_begin_json_version (const char *session,
                                                 guint       version);

/* Closes the object planar_cli_begin_json() opened, ends the line and
 * flushes. Returns: the exit status (PLANAR_CLI_EXIT_IO when standard
 * output cannot be written). */
int  planar_cli_end_json (PlanarJsonWriter *writer);

/* Progress on standard error, only when standard error is a terminal:
 * "planar-cli: WHAT… NN%" rewritten in place, cleared by
 * planar_cli_progress_end(). @fraction < 0 prints no percentage. */
gboolean planar_cli_progress_enabled (void);
void planar_cli_progress     (const char *what,
                              double      fraction);
void planar_cli_progress_end (void);

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

/* Adds the keys of what event @index of @track stands for through the
 * profile's stats and its HLO (planar-op-info.h), each only when known, to
 * the open object of @writer: hlo_module, hlo_instruction, hlo_kernels,
 * hlo_kernels_ps, framework_op, source, stack, flops (null when the HLO
 * cannot estimate it), flops_estimated, bytes_accessed, bytes_estimated,
 * flop_rate, bandwidth (docs/cli.md). */
void planar_cli_write_op_info (PlanarJsonWriter  *writer,
                               PlanarTrace       *trace,
                               const PlanarPlane *plane,
                               const PlanarTrack *track,
                               gsize              index);

/* The stat's name, "#<id>" when its metadata is missing. Returns: (transfer full). */
char *planar_cli_stat_name (const PlanarStat *stat);

G_END_DECLS
