/* planar-cli-capture.c: `planar-cli capture` and `planar-cli snapshot`,
 * profiles from running programs' profiler servers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>

#include "planar-capture.h"

/* A capture run under a main loop that SIGINT and SIGTERM can reach. */
typedef struct
{
  PlanarCaptureSession *session;
  GMainLoop            *loop;
  GError               *error;
  gboolean              ok;
  int                   signal;
  gint64                started;
} Run;

static gboolean
stop_on_signal (gpointer data,
                int      signum)
{
  Run *run = data;

  /* The first signal decides the status; the capture winds down (calls
   * cancelled, temporaries removed, saved hosts kept) and run_done()
   * ends the loop. */
  if (run->signal == 0)
    run->signal = signum;
  planar_capture_session_cancel (run->session);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigint (gpointer data)
{
  return stop_on_signal (data, SIGINT);
}

static gboolean
on_sigterm (gpointer data)
{
  return stop_on_signal (data, SIGTERM);
}

static void
run_done (GObject      *source,
          GAsyncResult *result,
          gpointer      data)
{
  Run *run = data;

  run->ok = planar_capture_session_run_finish (PLANAR_CAPTURE_SESSION (source), result, &run->error);
  g_main_loop_quit (run->loop);
}

/* "capturing… 3 s" on a terminal's stderr, with the hosts saved so far,
 * and those asked again (busy with another session, or unavailable). */
static gboolean
show_progress (gpointer data)
{
  Run *run = data;
  guint n = planar_capture_session_get_n_hosts (run->session), saved = 0, again = 0;
  g_autofree char *what = NULL;

  for (guint i = 0; i < n; i++)
    {
      const PlanarCaptureHost *host = planar_capture_session_get_host (run->session, i);

      if (host->state == PLANAR_CAPTURE_HOST_SAVED)
        saved++;
      else if (host->state == PLANAR_CAPTURE_HOST_CONNECTING && host->attempt > 1)
        again++;
    }
  what = g_strdup_printf (ngettext ("capturing (%u of %u host saved, %" PRId64 " s)",
                                    "capturing (%u of %u hosts saved, %" PRId64 " s)", n),
                          saved, n, (gint64) ((g_get_monotonic_time () - run->started) / G_USEC_PER_SEC));
  if (again > 0)
    {
      /* The host's own note says why (busy, unavailable) at the end. */
      char *longer = g_strdup_printf (ngettext ("%s, %u host asked again", "%s, %u hosts asked again", again), what,
                                      again);

      g_free (what);
      what = longer;
    }
  planar_cli_progress (what, -1);
  return G_SOURCE_CONTINUE;
}

/* Runs @session; returns 0 or the signal that stopped it. */
static int
run_session (PlanarCaptureSession  *session,
             gboolean              *ok,
             GError               **error)
{
  Run run = { session, NULL, NULL, FALSE, 0, g_get_monotonic_time () };
  guint int_id, term_id, progress_id = 0;

  run.loop = g_main_loop_new (NULL, FALSE);
  int_id = g_unix_signal_add (SIGINT, on_sigint, &run);
  term_id = g_unix_signal_add (SIGTERM, on_sigterm, &run);
  if (planar_cli_progress_enabled ())
    {
      show_progress (&run);
      progress_id = g_timeout_add (250, show_progress, &run);
    }
  planar_capture_session_run_async (session, run_done, &run);
  g_main_loop_run (run.loop);
  if (progress_id != 0)
    g_source_remove (progress_id);
  planar_cli_progress_end ();
  g_source_remove (int_id);
  g_source_remove (term_id);
  g_main_loop_unref (run.loop);
  *ok = run.ok;
  if (run.error != NULL)
    g_propagate_error (error, run.error);
  return run.signal;
}

static const char *
state_name (PlanarCaptureHostState state)
{
  switch (state)
    {
    case PLANAR_CAPTURE_HOST_SAVED:
      return "saved";
    case PLANAR_CAPTURE_HOST_SAVED_REMOTELY:
      return "saved_on_server";
    case PLANAR_CAPTURE_HOST_CANCELLED:
      return "cancelled";
    case PLANAR_CAPTURE_HOST_FAILED:
    default:
      return "failed";
    }
}

int
planar_cli_capture (int    argc,
                    char **argv)
{
  g_autoptr(PlanarCaptureOptions) options = planar_capture_options_new ();
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *service = NULL;
  g_autofree char *logdir = NULL;
  g_auto(GStrv) option_args = NULL;
  gint duration = 1000, host_level = 2, device_level = 1, python_level = 0, retries = 3, delay = -1;
  gint deadline_floor = 60000, busy_wait = PLANAR_CAPTURE_BUSY_WAIT_MS_DEFAULT;
  gboolean raise_error = FALSE;
  gboolean json = FALSE;
  g_autofree char *warning = NULL;
  gboolean ok;
  int status, signum;
  guint saved = 0, failed = 0;
  GOptionEntry entries[] = {
    { "service", 0, 0, G_OPTION_ARG_STRING, &service, N_("Profiler servers, comma-separated"), "H:P[,H:P...]" },
    { "logdir", 0, 0, G_OPTION_ARG_FILENAME, &logdir, N_("Log directory; the session goes in plugins/profile"), "DIR" },
    { "duration-ms", 0, 0, G_OPTION_ARG_INT, &duration, N_("Capture length (default 1000)"), "N" },
    { "host-tracer-level", 0, 0, G_OPTION_ARG_INT, &host_level, N_("0 off, 1 critical, 2 info (default), 3 verbose"), "N" },
    { "device-tracer-level", 0, 0, G_OPTION_ARG_INT, &device_level, N_("0 off, 1 on (default)"), "N" },
    { "python-tracer-level", 0, 0, G_OPTION_ARG_INT, &python_level, N_("0 off (default), 1 on"), "N" },
    { "retries", 0, 0, G_OPTION_ARG_INT, &retries, N_("Attempts after an unavailable server (default 3)"), "N" },
    { "busy-wait-ms", 0, 0, G_OPTION_ARG_INT, &busy_wait,
      N_("How long a server busy with another session is asked again (default 15000)"), "N" },
    { "delay-ms", 0, 0, G_OPTION_ARG_INT, &delay, N_("Start delay (default 0, 3000 with several servers)"), "N" },
    { "deadline-floor-ms", 0, 0, G_OPTION_ARG_INT, &deadline_floor, N_("Shortest wait for an answer (default 60000)"), "N" },
    { "raise-error-on-start-failure", 0, 0, G_OPTION_ARG_NONE, &raise_error, N_("Fail when a tracer cannot start"), NULL },
    { "option", 0, 0, G_OPTION_ARG_STRING_ARRAY, &option_args, N_("An advanced option (KEY=VALUE, KEY:int=VALUE, ...)"), "KEY=VALUE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    { NULL }
  };

  if (!planar_cli_parse ("capture", "--service H:P --logdir DIR",
                         N_("Captures a profile from the profiler servers of running programs\n"
                            "(jax.profiler.start_server(port), TensorFlow, PyTorch/XLA) into a new session folder."),
                         entries, PLANAR_CLI_OPTIONS_JSON, &argc, &argv, &status))
    return status;
  if (argc != 1)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("capture takes no PATH (see 'planar-cli capture --help')"));
  if (service == NULL || logdir == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("capture needs --service and --logdir"));
  if (duration < 1 || host_level < 0 || host_level > 3 || device_level < 0 || device_level > 1 || python_level < 0
      || python_level > 1 || retries < 0 || retries > 100 || delay < -1 || delay > 600000 || deadline_floor < 1
      || busy_wait < 0 || busy_wait > 3600000)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("an option is out of range (see 'planar-cli capture --help')"));

  g_object_set (options, "addresses", service, "logdir", logdir, "duration-ms", (guint) duration,
                "host-tracer-level", (guint) host_level, "device-tracer-level", (guint) device_level,
                "python-tracer-level", (guint) python_level, "retries", (guint) retries,
                "busy-wait-ms", (guint) busy_wait, "delay-ms", delay,
                "deadline-floor-ms", (guint) deadline_floor, "raise-error-on-start-failure", raise_error, NULL);
  for (guint i = 0; option_args != NULL && option_args[i] != NULL; i++)
    if (!planar_capture_options_parse_option (options, option_args[i], &error))
      return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "%s", error->message);
  session = planar_capture_session_new (options, &error);
  if (session == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "%s", error->message);
  warning = planar_capture_options_dup_warning (options);
  if (warning != NULL)
    planar_cli_warn ("%s", warning);

  signum = run_session (session, &ok, &error);
  for (guint i = 0; i < planar_capture_session_get_n_hosts (session); i++)
    {
      PlanarCaptureHostState state = planar_capture_session_get_host (session, i)->state;

      if (state == PLANAR_CAPTURE_HOST_SAVED)
        saved++;
      else if (state == PLANAR_CAPTURE_HOST_FAILED)
        failed++;
    }
  if (json)
    {
      g_autoptr(PlanarJsonWriter) w = planar_cli_begin_json (saved > 0 ? planar_capture_session_get_folder (session)
                                                                        : NULL);

      planar_json_writer_key (w, "hosts");
      planar_json_writer_begin_array (w);
      for (guint i = 0; i < planar_capture_session_get_n_hosts (session); i++)
        {
          const PlanarCaptureHost *host = planar_capture_session_get_host (session, i);

          planar_json_writer_begin_object (w);
          planar_json_writer_key (w, "address");
          planar_json_writer_string (w, host->address);
          planar_json_writer_key (w, "state");
          planar_json_writer_string (w, state_name (host->state));
          planar_json_writer_key (w, "attempts");
          planar_json_writer_uint (w, host->attempt);
          planar_json_writer_key (w, "file");
          if (host->path != NULL)
            planar_json_writer_string (w, host->path);
          else
            planar_json_writer_null (w);
          planar_json_writer_key (w, "bytes");
          planar_json_writer_uint (w, host->bytes);
          planar_json_writer_key (w, "message");
          if (host->message != NULL)
            planar_json_writer_string (w, host->message);
          else
            planar_json_writer_null (w);
          planar_json_writer_end_object (w);
        }
      planar_json_writer_end_array (w);
      planar_cli_end_json (w);
    }
  else
    for (guint i = 0; i < planar_capture_session_get_n_hosts (session); i++)
      {
        const PlanarCaptureHost *host = planar_capture_session_get_host (session, i);

        if (host->state == PLANAR_CAPTURE_HOST_SAVED)
          {
            printf ("%s\n", planar_cli_text (host->path));
            /* What happened to its tool data (renamed, skipped). */
            if (host->message != NULL)
              planar_cli_warn ("%s: %s", host->address, host->message);
          }
        else if (ok)
          fprintf (stderr, "planar-cli: %s: %s\n", planar_cli_text (host->address),
                   host->message != NULL ? planar_cli_text (host->message) : _("no profile"));
      }
  fflush (stdout);
  if (signum != 0)
    {
      /* One line: what the interrupted capture kept. */
      if (saved == 0)
        fprintf (stderr, _("planar-cli: capture stopped by %s: nothing was kept\n"),
                 signum == SIGINT ? "SIGINT" : "SIGTERM");
      else
        fprintf (stderr, ngettext ("planar-cli: capture stopped by %s: kept %u of %u host in %s\n",
                                   "planar-cli: capture stopped by %s: kept %u of %u hosts in %s\n",
                                   planar_capture_session_get_n_hosts (session)),
                 signum == SIGINT ? "SIGINT" : "SIGTERM", saved, planar_capture_session_get_n_hosts (session),
                 planar_capture_session_get_folder (session));
      return PLANAR_CLI_EXIT_SIGNAL (signum);
    }
  if (!ok)
    return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);
  /* Some hosts saved, others failed: a negative answer all the same. */
  if (failed > 0)
    return PLANAR_CLI_EXIT_FAILURE;
  return PLANAR_CLI_EXIT_OK;
}

int
planar_cli_snapshot (int    argc,
                     char **argv)
{
  g_autoptr(PlanarCaptureOptions) options = planar_capture_options_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *service = NULL;
  g_autofree char *logdir = NULL;
  int status;
  GOptionEntry entries[] = {
    { "service", 0, 0, G_OPTION_ARG_STRING, &service, N_("The profiler server"), "H:P" },
    { "logdir", 0, 0, G_OPTION_ARG_FILENAME, &logdir, N_("Log directory, for get"), "DIR" },
    { NULL }
  };

  if (!planar_cli_parse ("snapshot", "start|get|stop --service H:P [--logdir DIR]",
                         N_("Continuous profiling: start it, get a snapshot as a new session, stop it."),
                         entries, PLANAR_CLI_OPTIONS_NONE, &argc, &argv, &status))
    return status;
  if (argc != 2 || service == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("snapshot takes start, get or stop, and --service"));
  g_object_set (options, "addresses", service, "logdir", logdir != NULL ? logdir : "", NULL);
  if (g_str_equal (argv[1], "start"))
    {
      if (!planar_capture_continuous_start (options, service, &error))
        return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);
      printf (_("continuous profiling started on %s\n"), planar_cli_text (service));
    }
  else if (g_str_equal (argv[1], "get"))
    {
      g_autofree char *path = NULL;

      if (logdir == NULL)
        return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("snapshot get needs --logdir"));
      path = planar_capture_continuous_snapshot (options, service, &error);
      if (path == NULL)
        return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);
      printf ("%s\n", planar_cli_text (path));
    }
  else if (g_str_equal (argv[1], "stop"))
    {
      if (!planar_capture_continuous_stop (options, service, &error))
        return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);
      printf (_("continuous profiling stopped on %s\n"), planar_cli_text (service));
    }
  else
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("unknown snapshot command '%s': use start, get or stop"), argv[1]);
  return PLANAR_CLI_EXIT_OK;
}
