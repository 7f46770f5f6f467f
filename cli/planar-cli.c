/* planar-cli.c: the command-line face of the model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"
#include "planar-cache.h"
#include "planar-mapping.h"

#include <errno.h>
#include <gio/gunixoutputstream.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

typedef struct
{
  const char *name;
  const char *summary;
  int (*run) (int argc, char **argv);
} Command;

static const Command commands[] = {
  { "info", "List the hosts, planes and lines of a profile with event counts", planar_cli_info },
  { "events", "Print the events of one line, with their stats", planar_cli_events },
  { "summary", "Per plane, the event names that take the most self time", planar_cli_summary },
  { "find", "Find events whose name or string stats match a pattern", planar_cli_find },
  { "capture", "Capture a profile from running programs' profiler servers", planar_cli_capture },
  { "snapshot", "Continuous profiling: start, get a snapshot, stop", planar_cli_snapshot },
  { "record", "Run a command and record its GPU work with CUPTI", planar_cli_record },
  { "export", "Write a profile as Chrome Trace Event JSON or a Perfetto trace", planar_cli_export },
  { "health", "Report what may make a trace look incomplete: errors, drops, overlaps", planar_cli_health },
};

/* An escaped control character or stray byte: \xNN. */
static void
append_escaped_byte (GString *out,
                     guchar   byte)
{
  g_string_append_printf (out, "\\x%02x", byte);
}

char *
planar_cli_escape (const char *text,
                   gssize      len)
{
  GString *out;
  const char *p, *end;

  if (text == NULL)
    return g_strdup ("");
  if (len < 0)
    len = (gssize) strlen (text);
  out = g_string_sized_new ((gsize) len + 1);
  p = text;
  end = text + len;
  while (p < end)
    {
      guchar c = (guchar) *p;
      gunichar u;
      int n;

      if (c < 0x20 || c == 0x7f)
        {
          append_escaped_byte (out, c);
          p++;
          continue;
        }
      if (c < 0x80)
        {
          g_string_append_c (out, (char) c);
          p++;
          continue;
        }
      u = g_utf8_get_char_validated (p, end - p);
      if (u == (gunichar) -1 || u == (gunichar) -2)
        {
          /* Not UTF-8: the byte alone, and the next one is looked at anew. */
          append_escaped_byte (out, c);
          p++;
          continue;
        }
      n = g_utf8_skip[c];
      /* C1 controls (U+0080 to U+009F: CSI, OSC, ...) act like ESC
       * sequences in many terminals. */
      if (u <= 0x9f)
        for (int i = 0; i < n; i++)
          append_escaped_byte (out, (guchar) p[i]);
      else
        g_string_append_len (out, p, n);
      p += n;
    }
  return g_string_free (out, FALSE);
}

static gboolean
needs_escape (const char *text)
{
  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    if (*p < 0x20 || *p >= 0x7f)
      return TRUE;
  return FALSE;
}

const char *
planar_cli_text (const char *text)
{
  /* Enough for the arguments of any one printf() of planar-cli. */
  static char *ring[16];
  static guint next;
  char *escaped;

  if (text == NULL)
    return "";
  if (!needs_escape (text))
    return text;
  escaped = planar_cli_escape (text, -1);
  if (strcmp (escaped, text) == 0)
    {
      g_free (escaped);
      return text;
    }
  g_free (ring[next]);
  ring[next] = escaped;
  next = (next + 1) % G_N_ELEMENTS (ring);
  return escaped;
}

static void
print_line (const char *prefix,
            const char *format,
            va_list     args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);
  g_autofree char *escaped = planar_cli_escape (message, -1);

  fflush (stdout);
  fprintf (stderr, "planar-cli: %s%s\n", prefix, escaped);
}

int
planar_cli_fail (int         status,
                 const char *format,
                 ...)
{
  va_list args;

  va_start (args, format);
  print_line ("", format, args);
  va_end (args);
  return status;
}

void
planar_cli_warn (const char *format,
                 ...)
{
  va_list args;

  va_start (args, format);
  print_line ("warning: ", format, args);
  va_end (args);
}

int
planar_cli_status_for_error (const GError *error,
                             gboolean      writing)
{
  g_return_val_if_fail (error != NULL, PLANAR_CLI_EXIT_FAILURE);

  if (g_error_matches (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE) ||
      g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC) ||
      g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_IO))
    return PLANAR_CLI_EXIT_IO;
  /* What the profile holds is the input's fault even while the output is
   * written (an export reads the stats as it goes). */
  if (error->domain == PLANAR_TRACE_ERROR)
    return PLANAR_CLI_EXIT_BAD_INPUT;
  return writing ? PLANAR_CLI_EXIT_IO : PLANAR_CLI_EXIT_BAD_INPUT;
}

int
planar_cli_fail_error (const GError *error,
                       gboolean      writing)
{
  return planar_cli_fail (planar_cli_status_for_error (error, writing), "%s", error->message);
}

int
planar_cli_finish_stdout (void)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      int saved = errno;

      return planar_cli_fail (PLANAR_CLI_EXIT_IO, "cannot write the output: %s",
                              saved != 0 ? g_strerror (saved) : "write error");
    }
  return PLANAR_CLI_EXIT_OK;
}

guint
planar_cli_warn_losses (PlanarProfile *profile)
{
  guint n = 0;

  for (guint i = 0; i < planar_profile_get_n_traces (profile); i++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, i);
      g_autofree char *first = NULL;
      guint64 damaged;

      /* Counting reads every stat: only where a read met damage. */
      if (planar_trace_get_n_damaged_stats (trace, NULL) == 0)
        continue;
      damaged = planar_trace_count_damaged_stats (trace, &first);
      planar_cli_warn ("%s: %" G_GUINT64_FORMAT " damaged event stat%s skipped (the first: %s; "
                       "see 'planar-cli health')", planar_trace_get_host_name (trace), damaged,
                       damaged == 1 ? "" : "s", first);
      n++;
    }
  return n;
}

gboolean
planar_cli_parse (const char    *command,
                  const char    *parameters,
                  const char    *summary,
                  GOptionEntry  *entries,
                  int           *argc,
                  char        ***argv,
                  int           *status)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *full = g_strdup_printf ("%s %s", command, parameters);

  context = g_option_context_new (full);
  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      *status = planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "%s (see 'planar-cli %s --help')",
                                 error->message, command);
      return FALSE;
    }
  return TRUE;
}

PlanarProfile *
planar_cli_load_profile (const char  *path,
                         const char  *session,
                         char       **session_name_out,
                         GError     **error)
{
  return planar_cli_load_session (path, session, session_name_out, NULL, NULL, error);
}

PlanarProfile *
planar_cli_load_session (const char             *path,
                         const char             *session,
                         char                  **session_name_out,
                         PlanarCatalog         **catalog_out,
                         PlanarCatalogSession  **session_out,
                         GError                **error)
{
  g_autoptr(PlanarCatalogResolution) resolved = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  g_auto(GStrv) paths = NULL;
  PlanarCatalogSession *found;

  /* As the window opens it: a file in a run's session is that host, a
   * session folder there is that session, among the run's others. */
  resolved = planar_catalog_resolve (path, NULL, error);
  if (resolved == NULL)
    return NULL;
  found = planar_catalog_find_session (resolved->catalog, session != NULL ? session : resolved->session);
  if (found == NULL)
    {
      if (session != NULL)
        g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND,
                     "No session named %s under %s", session, path);
      else
        g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND,
                     "No profile (*.xplane.pb) found under %s", path);
      return NULL;
    }
  paths = planar_catalog_session_dup_paths (found);
  /* The host file opened, alone. */
  if (session == NULL && resolved->hosts != NULL)
    {
      g_autoptr(GStrvBuilder) hosts = g_strv_builder_new ();

      for (guint i = 0; i < found->hosts->len; i++)
        {
          PlanarCatalogHost *host = g_ptr_array_index (found->hosts, i);

          if (host->supported && g_strv_contains ((const char * const *) resolved->hosts, host->name))
            g_strv_builder_add (hosts, host->path);
        }
      g_strfreev (paths);
      paths = g_strv_builder_end (hosts);
    }
  if (paths == NULL || paths[0] == NULL)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_UNSUPPORTED,
                   "Session %s holds no profile Planar can read (only .xplane.riegeli files)",
                   found->name);
      return NULL;
    }

  profile = planar_profile_new ((const char * const *) paths);
  if (!planar_profile_load (profile, NULL, error))
    return NULL;
  /* What was read with losses (a host skipped, a file cut short): one
   * warning line each, and the command goes on. */
  {
    g_auto(GStrv) losses = planar_profile_dup_losses (profile);

    for (guint i = 0; losses[i] != NULL; i++)
      planar_cli_warn ("%s", losses[i]);
  }
  if (session_name_out != NULL)
    *session_name_out = g_strdup (found->name);
  if (session_out != NULL)
    *session_out = found;
  if (catalog_out != NULL)
    *catalog_out = g_steal_pointer (&resolved->catalog);
  return g_steal_pointer (&profile);
}

PlanarJsonWriter *
planar_cli_stdout_json (gboolean pretty)
{
  g_autoptr(GOutputStream) out = g_unix_output_stream_new (1, FALSE);

  return planar_json_writer_new (out, pretty);
}

void
planar_cli_begin_named_list (PlanarJsonWriter *writer,
                             const char       *name,
                             const char       *list_key)
{
  planar_json_writer_begin_object (writer);
  planar_json_writer_key (writer, "name");
  planar_json_writer_string (writer, name);
  planar_json_writer_key (writer, list_key);
  planar_json_writer_begin_array (writer);
}

void
planar_cli_end_named_list (PlanarJsonWriter *writer)
{
  planar_json_writer_end_array (writer);
  planar_json_writer_end_object (writer);
}

void
planar_cli_write_stat_value (PlanarJsonWriter *writer,
                             const PlanarStat *stat)
{
  switch (stat->kind)
    {
    case PLANAR_STAT_INT64:
      planar_json_writer_int (writer, stat->v.i64);
      break;
    case PLANAR_STAT_UINT64:
      planar_json_writer_uint (writer, stat->v.u64);
      break;
    case PLANAR_STAT_DOUBLE:
      planar_json_writer_double (writer, stat->v.f64);
      break;
    case PLANAR_STAT_STRING:
    case PLANAR_STAT_REF:
      planar_json_writer_string_len (writer, stat->str.data, stat->str.len);
      break;
    case PLANAR_STAT_BYTES:
      {
        g_autofree char *text = planar_stat_format_value (stat);

        planar_json_writer_string (writer, text);
      }
      break;
    case PLANAR_STAT_NONE:
    default:
      planar_json_writer_null (writer);
      break;
    }
}

char *
planar_cli_stat_name (const PlanarStat *stat)
{
  if (stat->name != NULL && stat->name[0] != '\0')
    return g_strdup (stat->name);
  return g_strdup_printf ("#%" G_GINT64_FORMAT, stat->metadata_id);
}

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: planar-cli COMMAND [OPTION…] PATH\n\n");
  fprintf (out, "Reads XProf profiles (*.xplane.pb). PATH is a profile file, a session folder,\n"
                "a run or a log directory (the newest session is used unless --session says).\n\n");
  fprintf (out, "Commands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'planar-cli COMMAND --help' for a command's options.\n");
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");

  if (argc < 2)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "no command given (see 'planar-cli --help')");
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return PLANAR_CLI_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("planar-cli %s\n", PLANAR_VERSION);
      return PLANAR_CLI_EXIT_OK;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      {
        int status = commands[i].run (argc - 1, argv + 1);
        g_autofree char *changed = NULL;

        /* The cached indexes of what was loaded, before the process goes. */
        planar_cache_wait ();
        /* A profile cut while the command read it (a read that faulted
         * found zeros: planar-mapping.h) fails the command, whatever it
         * made of them. */
        changed = planar_mapping_dup_changed_path ();
        if (changed != NULL && status != PLANAR_CLI_EXIT_IO && status < PLANAR_CLI_EXIT_SIGNAL (1))
          return planar_cli_fail (PLANAR_CLI_EXIT_IO, "the file changed while it was read: %s; reload it", changed);
        return status;
      }

  return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "unknown command '%s' (see 'planar-cli --help')", argv[1]);
}
