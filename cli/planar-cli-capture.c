/* planar-cli-capture.c: `planar-cli capture` and `planar-cli snapshot`,
 * profiles from running programs' profiler servers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"

#include <stdio.h>

#include "planar-capture.h"

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
  gint deadline_floor = 60000;
  gboolean raise_error = FALSE;
  gboolean json = FALSE;
  g_autofree char *warning = NULL;
  gboolean ok;
  int status;
  GOptionEntry entries[] = {
    { "service", 0, 0, G_OPTION_ARG_STRING, &service, "Profiler servers, comma-separated", "H:P[,H:P...]" },
    { "logdir", 0, 0, G_OPTION_ARG_FILENAME, &logdir, "Log directory; the session goes in plugins/profile", "DIR" },
    { "duration-ms", 0, 0, G_OPTION_ARG_INT, &duration, "Capture length (default 1000)", "N" },
    { "host-tracer-level", 0, 0, G_OPTION_ARG_INT, &host_level, "0 off, 1 critical, 2 info (default), 3 verbose", "N" },
    { "device-tracer-level", 0, 0, G_OPTION_ARG_INT, &device_level, "0 off, 1 on (default)", "N" },
    { "python-tracer-level", 0, 0, G_OPTION_ARG_INT, &python_level, "0 off (default), 1 on", "N" },
    { "retries", 0, 0, G_OPTION_ARG_INT, &retries, "Attempts after an unavailable server (default 3)", "N" },
    { "delay-ms", 0, 0, G_OPTION_ARG_INT, &delay, "Start delay (default 0, 3000 with several servers)", "N" },
    { "deadline-floor-ms", 0, 0, G_OPTION_ARG_INT, &deadline_floor, "Shortest wait for an answer (default 60000)", "N" },
    { "raise-error-on-start-failure", 0, 0, G_OPTION_ARG_NONE, &raise_error, "Fail when a tracer cannot start", NULL },
    { "option", 0, 0, G_OPTION_ARG_STRING_ARRAY, &option_args, "An advanced option (KEY=VALUE, KEY:int=VALUE, ...)", "KEY=VALUE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { NULL }
  };

  if (!planar_cli_parse ("capture", "--service H:P --logdir DIR",
                         "Captures a profile from the profiler servers of running programs\n"
                         "(jax.profiler.start_server(port), TensorFlow, PyTorch/XLA) into a new session folder.",
                         entries, &argc, &argv, &status))
    return status;
  if (argc != 1)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "capture takes no PATH (see 'planar-cli capture --help')");
  if (service == NULL || logdir == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "capture needs --service and --logdir");
  if (duration < 1 || host_level < 0 || host_level > 3 || device_level < 0 || device_level > 1 || python_level < 0
      || python_level > 1 || retries < 0 || retries > 100 || delay < -1 || delay > 600000 || deadline_floor < 1)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "an option is out of range (see 'planar-cli capture --help')");

  g_object_set (options, "addresses", service, "logdir", logdir, "duration-ms", (guint) duration,
                "host-tracer-level", (guint) host_level, "device-tracer-level", (guint) device_level,
                "python-tracer-level", (guint) python_level, "retries", (guint) retries, "delay-ms", delay,
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

  ok = planar_capture_session_run (session, &error);
  if (json)
    {
      g_autoptr(PlanarJsonWriter) w = planar_cli_stdout_json (TRUE);

      planar_json_writer_begin_object (w);
      planar_json_writer_key (w, "session");
      if (ok)
        planar_json_writer_string (w, planar_capture_session_get_folder (session));
      else
        planar_json_writer_null (w);
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
      planar_json_writer_end_object (w);
      planar_json_writer_finish (w, NULL);
    }
  else
    for (guint i = 0; i < planar_capture_session_get_n_hosts (session); i++)
      {
        const PlanarCaptureHost *host = planar_capture_session_get_host (session, i);

        if (host->state == PLANAR_CAPTURE_HOST_SAVED)
          printf ("%s\n", planar_cli_text (host->path));
        else if (ok)
          fprintf (stderr, "planar-cli: %s: %s\n", planar_cli_text (host->address),
                   host->message != NULL ? planar_cli_text (host->message) : "no profile");
      }
  if (!ok)
    return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);
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
    { "service", 0, 0, G_OPTION_ARG_STRING, &service, "The profiler server", "H:P" },
    { "logdir", 0, 0, G_OPTION_ARG_FILENAME, &logdir, "Log directory, for get", "DIR" },
    { NULL }
  };

  if (!planar_cli_parse ("snapshot", "start|get|stop --service H:P [--logdir DIR]",
                         "Continuous profiling: start it, get a snapshot as a new session, stop it.",
                         entries, &argc, &argv, &status))
    return status;
  if (argc != 2 || service == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "snapshot takes start, get or stop, and --service");
  g_object_set (options, "addresses", service, "logdir", logdir != NULL ? logdir : "", NULL);
  if (g_str_equal (argv[1], "start"))
    {
      if (!planar_capture_continuous_start (options, service, &error))
        return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);
      printf ("continuous profiling started on %s\n", planar_cli_text (service));
    }
  else if (g_str_equal (argv[1], "get"))
    {
      g_autofree char *path = NULL;

      if (logdir == NULL)
        return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "snapshot get needs --logdir");
      path = planar_capture_continuous_snapshot (options, service, &error);
      if (path == NULL)
        return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);
      printf ("%s\n", planar_cli_text (path));
    }
  else if (g_str_equal (argv[1], "stop"))
    {
      if (!planar_capture_continuous_stop (options, service, &error))
        return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);
      printf ("continuous profiling stopped on %s\n", planar_cli_text (service));
    }
  else
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, "unknown snapshot command '%s': use start, get or stop", argv[1]);
  return PLANAR_CLI_EXIT_OK;
}
