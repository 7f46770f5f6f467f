/* planar-cli.c: the command-line face of the model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"
#include "planar-cache.h"
#include "planar-mapping.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  const char *name;
  const char *summary;
  int (*run) (int argc, char **argv);
} Command;

static const Command commands[] = {
  { "info", N_("List the hosts, planes and lines of a profile with event counts"), planar_cli_info },
  { "events", N_("Print the events of one line, with their stats"), planar_cli_events },
  { "summary", N_("Per plane, the event names that take the most self time"), planar_cli_summary },
  { "find", N_("Find events whose name or string stats match a pattern"), planar_cli_find },
  { "capture", N_("Capture a profile from running programs' profiler servers"), planar_cli_capture },
  { "snapshot", N_("Continuous profiling: start, get a snapshot, stop"), planar_cli_snapshot },
  { "record", N_("Run a command and record its GPU work with CUPTI"), planar_cli_record },
  { "export", N_("Write a profile as Chrome Trace Event JSON or a Perfetto trace"), planar_cli_export },
  { "hlo", N_("Print the HLO of the programs a profile ran, or one instruction"), planar_cli_hlo },
  { "health", N_("Report what may make a trace look incomplete: errors, drops, overlaps"), planar_cli_health },
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

/* Prints @format's message on stderr after "planar-cli: " and @prefix;
 * a message of several lines ("No profile was captured:" and a line per
 * host) is printed line by line, the lines after the first indented.
 * Control characters within a line are escaped: text from elsewhere (a
 * server's) has its own newlines escaped before it gets here, so only
 * Planar's newlines break lines. */
static void G_GNUC_PRINTF (2, 0)
print_line (const char *prefix,
            const char *format,
            va_list     args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);
  const char *line = message;

  fflush (stdout);
  for (guint i = 0;; i++)
    {
      const char *end = strchr (line, '\n');
      g_autofree char *escaped = planar_cli_escape (line, end != NULL ? end - line : -1);

      if (i == 0)
        fprintf (stderr, "planar-cli: %s%s\n", prefix, escaped);
      else
        fprintf (stderr, "planar-cli:   %s\n", escaped);
      /* A newline that ends the message ends its last line. */
      if (end == NULL || end[1] == '\0')
        break;
      line = end + 1;
    }
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
  /* TRANSLATORS: the start of a warning line, after "planar-cli: ". */
  print_line (_("warning: "), format, args);
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

      return planar_cli_fail (PLANAR_CLI_EXIT_IO, _("cannot write the output: %s"),
                              saved != 0 ? g_strerror (saved) : _("write error"));
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
      planar_cli_warn (ngettext ("%s: %" PRIu64 " damaged event stat skipped (the first: %s; "
                                 "see 'planar-cli health')",
                                 "%s: %" PRIu64 " damaged event stats skipped (the first: %s; "
                                 "see 'planar-cli health')", damaged),
                       planar_trace_get_host_name (trace), damaged, first);
      n++;
    }
  return n;
}

static gboolean no_cache;
static gboolean json_pretty;
static gboolean count_stats;

gboolean
planar_cli_get_no_cache (void)
{
  return no_cache;
}

/* Whether @argv asks for help before any "--". */
static gboolean
wants_help (int    argc,
            char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        return FALSE;
      if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "-?") == 0)
        return TRUE;
    }
  return FALSE;
}

gboolean
planar_cli_parse (const char        *command,
                  const char        *parameters,
                  const char        *summary,
                  GOptionEntry      *entries,
                  PlanarCliOptions   common,
                  int               *argc,
                  char            ***argv,
                  int               *status)
{
  GOptionEntry load_entries[] = {
    { "no-cache", 0, 0, G_OPTION_ARG_NONE, &no_cache,
      N_("Neither read nor write the cached index of the profile (see planar-cli(1))"), NULL },
    { NULL }
  };
  GOptionEntry json_entries[] = {
    { "pretty", 0, 0, G_OPTION_ARG_NONE, &json_pretty, N_("Indent the JSON output (compact by default)"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;

  context = g_option_context_new (parameters);
  /* The summaries and option descriptions are N_() where they are written:
   * translated here, in Planar's domain. */
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, NULL);
  if (common & PLANAR_CLI_OPTIONS_LOAD)
    g_option_context_add_main_entries (context, load_entries, NULL);
  if (common & PLANAR_CLI_OPTIONS_JSON)
    g_option_context_add_main_entries (context, json_entries, NULL);
  count_stats = (common & PLANAR_CLI_OPTIONS_COUNT_STATS) != 0;

  if (wants_help (*argc, *argv))
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);
      /* GLib's help starts "Usage:\n  PRGNAME [OPTION…] PARAMETERS": the
       * first line is ours, with the program and the command. */
      const char *rest = strstr (help, "\n\n");

      /* TRANSLATORS: the first line of a command's help: the command
       * (info, events…) and its parameters (PATH…), which stay as they are. */
      printf (_("Usage: planar-cli %s [OPTION…] %s"), command, parameters);
      fputs (rest != NULL ? rest : "\n", stdout);
      *status = planar_cli_finish_stdout ();
      return FALSE;
    }
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      *status = planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("%s (see 'planar-cli %s --help')"),
                                 error->message, command);
      return FALSE;
    }
  return TRUE;
}

gboolean
planar_cli_parse_time (const char *option,
                       const char *text,
                       gint64     *ps,
                       int        *status)
{
  g_autoptr(GError) error = NULL;

  if (planar_parse_duration (text, 0, ps, &error))
    return TRUE;
  if (g_error_matches (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_NO_UNIT))
    {
      g_autofree char *bare = g_strstrip (g_strdup (text));

      *status = planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT,
                                 _("%s %s: a time needs a unit, as in %sms or %sus (ps, ns, us, ms, s; or m:ss)"),
                                 option, bare, bare, bare);
    }
  else
    *status = planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "%s: %s", option, error->message);
  return FALSE;
}

gboolean
planar_cli_get_format (const char      *name,
                       gboolean         json,
                       PlanarCliFormat *format,
                       int             *status)
{
  static const struct { const char *name; PlanarCliFormat format; } formats[] = {
    { "text", PLANAR_CLI_FORMAT_TEXT },
    { "tsv", PLANAR_CLI_FORMAT_TSV },
    { "csv", PLANAR_CLI_FORMAT_CSV },
    { "json", PLANAR_CLI_FORMAT_JSON },
  };

  if (name == NULL)
    {
      *format = json ? PLANAR_CLI_FORMAT_JSON : PLANAR_CLI_FORMAT_TEXT;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (strcmp (name, formats[i].name) == 0)
      {
        if (json && formats[i].format != PLANAR_CLI_FORMAT_JSON)
          {
            *status = planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("--json contradicts --format %s"), name);
            return FALSE;
          }
        *format = formats[i].format;
        return TRUE;
      }
  *status = planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("unknown format '%s': use text, tsv, csv or json"), name);
  return FALSE;
}

char *
planar_cli_tsv_field (const char *text)
{
  return planar_cli_escape (text, -1);
}

char *
planar_cli_csv_field (const char *text)
{
  GString *out;

  if (text == NULL)
    return g_strdup ("");
  if (strpbrk (text, ",\"\r\n") == NULL)
    return g_strdup (text);
  out = g_string_new ("\"");
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
  return g_string_free (out, FALSE);
}

void
planar_cli_print_row (PlanarCliFormat     format,
                      const char * const *fields)
{
  g_autoptr(GString) row = g_string_new (NULL);

  for (guint i = 0; fields[i] != NULL; i++)
    {
      g_autofree char *field = format == PLANAR_CLI_FORMAT_CSV ? planar_cli_csv_field (fields[i])
                                                               : planar_cli_tsv_field (fields[i]);

      if (i > 0)
        g_string_append_c (row, format == PLANAR_CLI_FORMAT_CSV ? ',' : '\t');
      g_string_append (row, field);
    }
  g_string_append_c (row, '\n');
  fputs (row->str, stdout);
}

PlanarJsonWriter *
planar_cli_begin_json (const char *session)
{
  return planar_cli_begin_json_version (session, 1);
}

PlanarJsonWriter *
planar_cli_begin_json_version (const char *session,
                               guint       version)
{
  PlanarJsonWriter *w = planar_cli_stdout_json (json_pretty);

  fflush (stdout);
  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "format_version");
  planar_json_writer_uint (w, version);
  planar_json_writer_key (w, "session");
  if (session != NULL)
    planar_json_writer_string (w, session);
  else
    planar_json_writer_null (w);
  return w;
}

int
planar_cli_end_json (PlanarJsonWriter *writer)
{
  g_autoptr(GError) error = NULL;

  planar_json_writer_end_object (writer);
  if (!planar_json_writer_finish (writer, &error))
    return planar_cli_fail (PLANAR_CLI_EXIT_IO, _("cannot write the output: %s"), error->message);
  /* A pretty document ends its line already. */
  if (!json_pretty)
    putchar ('\n');
  return planar_cli_finish_stdout ();
}

/* Progress ------------------------------------------------------------- */

/* The line drawn last, under progress_lock: a load's watch thread and the
 * main thread both draw. */
static GMutex progress_lock;
static gboolean progress_shown;
static gint64 progress_last_us;
static int progress_last_percent = -1;
static char *progress_last_what;

gboolean
planar_cli_progress_enabled (void)
{
  static int tty = -1;

  if (tty < 0)
    tty = isatty (STDERR_FILENO) ? 1 : 0;
  return tty == 1;
}

void
planar_cli_progress (const char *what,
                     double      fraction)
{
  gint64 now = g_get_monotonic_time ();
  int percent = fraction < 0 ? -1 : (int) (CLAMP (fraction, 0.0, 1.0) * 100.0);
  g_autoptr(GMutexLocker) locker = NULL;

  if (!planar_cli_progress_enabled ())
    return;
  locker = g_mutex_locker_new (&progress_lock);
  /* At most five times a second, the first at once, and only when it says
   * something new: the percentage or the words ("capturing … 3 s"). */
  if (progress_shown
      && (now - progress_last_us < 200000
          || (percent == progress_last_percent && g_strcmp0 (what, progress_last_what) == 0)))
    return;
  progress_last_us = now;
  progress_last_percent = percent;
  g_free (progress_last_what);
  progress_last_what = g_strdup (what);
  progress_shown = TRUE;
  /* \r and erase to the end of the line: one line rewritten in place. */
  if (percent >= 0)
    fprintf (stderr, "\rplanar-cli: %s… %d%%\033[K", what, percent);
  else
    fprintf (stderr, "\rplanar-cli: %s…\033[K", what);
  fflush (stderr);
}

void
planar_cli_progress_end (void)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&progress_lock);

  if (!progress_shown)
    return;
  fprintf (stderr, "\r\033[K");
  fflush (stderr);
  progress_shown = FALSE;
  progress_last_percent = -1;
  g_clear_pointer (&progress_last_what, g_free);
}

/* The cached index in planar-cli (docs/cli.md, "The cached index"): a
 * command reads one whenever there is one, and writes one only on the
 * second read of a file that has none, since writing it costs about as much
 * as the read and pays back only from the next one on. The first read
 * leaves an empty marker, <key>.planar-cli-seen, in the cache folder.
 * --no-cache neither reads, writes nor marks. */
static char *
seen_marker_path (const char *path)
{
  g_autofree char *index = planar_cache_get_path (path);

  index[strlen (index) - strlen (".planar-index")] = '\0';
  return g_strconcat (index, ".planar-cli-seen", NULL);
}

static void
decide_cache (const char * const *paths)
{
  gboolean pays = FALSE;

  if (no_cache)
    {
      planar_cache_set_enabled (FALSE);
      return;
    }
  if (!planar_cache_get_enabled ())
    return;
  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autofree char *index = planar_cache_get_path (paths[i]);
      g_autofree char *marker = seen_marker_path (paths[i]);

      if (g_file_test (index, G_FILE_TEST_EXISTS) || g_file_test (marker, G_FILE_TEST_EXISTS))
        pays = TRUE;
    }
  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autofree char *marker = seen_marker_path (paths[i]);

      if (pays)
        g_unlink (marker);
      else
        {
          g_autofree char *dir = g_path_get_dirname (marker);

          /* Best effort: without a marker the next read is a first one again. */
          if (g_mkdir_with_parents (dir, 0700) == 0)
            g_file_set_contents (marker, "", 0, NULL);
        }
    }
  planar_cache_set_enabled (pays);
}

typedef struct
{
  PlanarProfile *profile;
  GMutex         lock;
  GCond          cond;
  gboolean       done;
} LoadWatch;

static gpointer
watch_load (gpointer data)
{
  LoadWatch *watch = data;

  g_mutex_lock (&watch->lock);
  while (!watch->done)
    {
      planar_cli_progress (_("loading"), planar_profile_get_fraction (watch->profile));
      g_cond_wait_until (&watch->cond, &watch->lock, g_get_monotonic_time () + 100 * G_TIME_SPAN_MILLISECOND);
    }
  g_mutex_unlock (&watch->lock);
  return NULL;
}

/* planar_profile_load() with "loading… NN%" on a terminal's stderr. */
static gboolean
load_with_progress (PlanarProfile  *profile,
                    GError        **error)
{
  LoadWatch watch = { profile, { 0 }, { 0 }, FALSE };
  GThread *thread;
  gboolean ok;

  if (!planar_cli_progress_enabled ())
    return planar_profile_load (profile, NULL, error);
  g_mutex_init (&watch.lock);
  g_cond_init (&watch.cond);
  planar_cli_progress (_("loading"), 0.0);
  thread = g_thread_new ("planar-cli-progress", watch_load, &watch);
  ok = planar_profile_load (profile, NULL, error);
  g_mutex_lock (&watch.lock);
  watch.done = TRUE;
  g_cond_signal (&watch.cond);
  g_mutex_unlock (&watch.lock);
  g_thread_join (thread);
  g_mutex_clear (&watch.lock);
  g_cond_clear (&watch.cond);
  planar_cli_progress_end ();
  return ok;
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
                     _("No session named %s under %s"), session, path);
      else
        g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND,
                     _("No profile (*.xplane.pb) found under %s"), path);
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
                   _("Session %s holds no profile Planar can read (only .xplane.riegeli files)"),
                   found->name);
      return NULL;
    }

  decide_cache ((const char * const *) paths);
  profile = planar_profile_new ((const char * const *) paths);
  planar_profile_set_count_stats (profile, count_stats);
  if (!load_with_progress (profile, error))
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
  fprintf (out, "%s\n\n", _("Usage: planar-cli COMMAND [OPTION…] ARGS"));
  fprintf (out, "%s\n\n", _("Reads XProf profiles (*.xplane.pb). PATH is a profile file, a session folder,\n"
                            "a run or a log directory (the newest session is used unless --session says)."));
  fprintf (out, "%s\n", _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (out, "\n%s\n", _("Run 'planar-cli COMMAND --help' for a command's options, 'planar-cli --version' for the\n"
                            "version; planar-cli(1) has the whole manual."));
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  /* Its own messages, and the model's errors and findings, come in the
   * user's language (JSON keys and machine output stay as they are). */
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("no command given (see 'planar-cli --help')"));
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
          return planar_cli_fail (PLANAR_CLI_EXIT_IO, _("the file changed while it was read: %s; reload it"), changed);
        return status;
      }

  return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("unknown command '%s' (see 'planar-cli --help')"), argv[1]);
}
