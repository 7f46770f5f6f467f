/* test-capture.c: remote capture against a test ProfilerService on
 * 127.0.0.1 (tests/lib/planar-test-profiler-server.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <utime.h>

#include "planar-capture.h"
#include "planar-capture-response.h"
#include "planar-grpc.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"
#include "planar-test-pty.h"
#include "profiler_service.pb-c.h"

#define SAMPLE "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb"

typedef struct
{
  GPid        pid;
  int         port;
  char       *address;
  char       *record;
  /* Its standard output, kept open: "CALL <method>" lines with --announce. */
  GIOChannel *out;
} Server;

/* What the test server sends: a real sample, or a profile of planar-gen in
 * a clone without the samples. */
static char *
sample_path (void)
{
  return planar_test_sample_or_generated (SAMPLE);
}

/* Starts the test server in @mode serving @xspace, with the options
 * @extras (NULL-terminated, may be NULL); it prints its port and exits by
 * itself a few seconds after its last call. */
static void
server_start_full (Server             *server,
                   const char         *dir,
                   const char         *mode,
                   const char         *xspace,
                   const char * const *extras)
{
  g_autofree char *mode_arg = g_strdup_printf ("--mode=%s", mode);
  g_autofree char *xspace_arg = g_strdup_printf ("--xspace=%s", xspace);
  g_autofree char *record_arg = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  int out = -1;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  static guint count;

  server->record = g_strdup_printf ("%s/requests-%u.txt", dir, count++);
  record_arg = g_strdup_printf ("--record=%s", server->record);
  g_ptr_array_add (argv, (gpointer) g_getenv ("PLANAR_TEST_PROFILER_SERVER"));
  g_ptr_array_add (argv, mode_arg);
  g_ptr_array_add (argv, xspace_arg);
  g_ptr_array_add (argv, record_arg);
  g_ptr_array_add (argv, "--idle-ms=8000");
  for (guint i = 0; extras != NULL && extras[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extras[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_nonnull (argv->pdata[0]);
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                           &server->pid, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  server->out = g_io_channel_unix_new (out);
  g_io_channel_set_close_on_unref (server->out, TRUE);
  g_assert_cmpint (g_io_channel_read_line (server->out, &line, NULL, NULL, &error), ==, G_IO_STATUS_NORMAL);
  g_assert_true (g_str_has_prefix (line, "PORT "));
  server->port = atoi (line + 5);
  g_assert_cmpint (server->port, >, 0);
  server->address = g_strdup_printf ("127.0.0.1:%d", server->port);
}

/* The same with the sample profile and one extra option. */
static void
server_start (Server      *server,
              const char  *dir,
              const char  *mode,
              const char  *extra)
{
  g_autofree char *xspace = sample_path ();
  const char *extras[] = { extra, NULL };

  server_start_full (server, dir, mode, xspace, extras);
}

/* Blocks until the server (started with --announce) says that a call of
 * @method arrived: a fixed point in the capture, with no clock. */
static void
server_wait_call (Server     *server,
                  const char *method)
{
  for (;;)
    {
      g_autofree char *line = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_cmpint (g_io_channel_read_line (server->out, &line, NULL, NULL, &error), ==, G_IO_STATUS_NORMAL);
      if (g_str_has_prefix (line, "CALL ") && strstr (line, method) != NULL)
        return;
    }
}

static void
server_stop (Server *server)
{
  int status;

  kill (server->pid, SIGTERM);
  waitpid (server->pid, &status, 0);
  g_spawn_close_pid (server->pid);
  g_clear_pointer (&server->out, g_io_channel_unref);
  g_free (server->address);
  g_free (server->record);
}

/* The requests the server received: method and bytes. */
static GPtrArray *
server_requests (Server     *server,
                 const char *method)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);

  if (!g_file_get_contents (server->record, &text, NULL, NULL))
    return out;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *space = strchr (lines[i], ' ');
      GByteArray *bytes;

      if (space == NULL)
        continue;
      *space = '\0';
      if (method != NULL && strcmp (lines[i], method) != 0)
        continue;
      bytes = g_byte_array_new ();
      for (const char *p = space + 1; p[0] != '\0' && p[1] != '\0'; p += 2)
        {
          char hex[3] = { p[0], p[1], 0 };
          guint8 b = (guint8) strtoul (hex, NULL, 16);

          g_byte_array_append (bytes, &b, 1);
        }
      g_ptr_array_add (out, g_byte_array_free_to_bytes (bytes));
    }
  return out;
}

static PlanarCaptureOptions *
options_for (const char *addresses,
             const char *logdir)
{
  PlanarCaptureOptions *options = planar_capture_options_new ();

  g_object_set (options, "addresses", addresses, "logdir", logdir, "duration-ms", 100, "deadline-floor-ms", 20000,
                NULL);
  return options;
}

static char *
profile_root (const char *logdir)
{
  return g_build_filename (logdir, "plugins", "profile", NULL);
}

static void
assert_same_file (const char *a,
                  const char *b)
{
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;
  gsize nx = 0, ny = 0;

  g_assert_true (g_file_get_contents (a, &x, &nx, NULL));
  g_assert_true (g_file_get_contents (b, &y, &ny, NULL));
  g_assert_cmpuint (nx, ==, ny);
  g_assert_true (memcmp (x, y, nx) == 0);
}

/* ------------------------------------------------------------------------ */

static void
test_options (void)
{
  g_autoptr(PlanarCaptureOptions) options = planar_capture_options_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) addresses = NULL;
  g_autofree char *warning = NULL;
  guint duration, host, device, python, retries;
  const char *key, *value;
  PlanarCaptureValueType type;

  g_object_get (options, "duration-ms", &duration, "host-tracer-level", &host, "device-tracer-level", &device,
                "python-tracer-level", &python, "retries", &retries, NULL);
  g_assert_cmpuint (duration, ==, 1000);
  g_assert_cmpuint (host, ==, 2);
  g_assert_cmpuint (device, ==, 1);
  g_assert_cmpuint (python, ==, 0);
  g_assert_cmpuint (retries, ==, 3);

  g_assert_false (planar_capture_options_validate (options, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  {
    static const char * const bad[] = { "host", "host:0", "host:70000", ":80", "a b:1", "h:1,h:1", "h:x" };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_object_set (options, "addresses", bad[i], "logdir", "/tmp", NULL);
        g_assert_false (planar_capture_options_validate (options, &error));
        g_test_message ("%s: %s", bad[i], error->message);
        g_clear_error (&error);
      }
  }
  g_object_set (options, "addresses", " grpc://10.0.0.1:6009 , worker-1:8466,[::1]:9999", "logdir", "", NULL);
  addresses = planar_capture_options_dup_addresses (options, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (addresses[0], ==, "10.0.0.1:6009");
  g_assert_cmpstr (addresses[1], ==, "worker-1:8466");
  g_assert_cmpstr (addresses[2], ==, "[::1]:9999");
  g_assert_false (planar_capture_options_validate (options, &error));
  g_clear_error (&error);

  g_assert_cmpuint (planar_capture_options_get_effective_delay_ms (options, 1), ==, 0);
  g_assert_cmpuint (planar_capture_options_get_effective_delay_ms (options, 2), ==, 3000);
  g_object_set (options, "delay-ms", 500, "duration-ms", 40000, NULL);
  g_assert_cmpuint (planar_capture_options_get_effective_delay_ms (options, 2), ==, 500);
  g_assert_cmpint (planar_capture_options_get_deadline_ms (options, 2), ==, 80000 + 500);
  g_object_set (options, "duration-ms", 1000, NULL);
  g_assert_cmpint (planar_capture_options_get_deadline_ms (options, 1), ==, 60000 + 500);

  g_assert_true (planar_capture_options_parse_option (options, "gpu_enable_nvtx_tracking=true", &error));
  g_assert_true (planar_capture_options_parse_option (options, "gpu_max_activity_api_events=1000", &error));
  g_assert_true (planar_capture_options_parse_option (options, "tpu_trace_mode=TRACE_ALL", &error));
  g_assert_true (planar_capture_options_parse_option (options, "tag:string=12", &error));
  g_assert_no_error (error);
  g_assert_false (planar_capture_options_parse_option (options, "n:int=twelve", &error));
  g_clear_error (&error);
  g_assert_false (planar_capture_options_parse_option (options, "noequals", &error));
  g_clear_error (&error);
  g_assert_false (planar_capture_options_parse_option (options, "k:float=1", &error));
  g_clear_error (&error);
  g_assert_cmpuint (planar_capture_options_get_n_options (options), ==, 4);
  planar_capture_options_get_option (options, 0, &key, &type, &value);
  g_assert_cmpstr (key, ==, "gpu_enable_nvtx_tracking");
  g_assert_cmpint (type, ==, PLANAR_CAPTURE_VALUE_BOOL);
  planar_capture_options_get_option (options, 1, NULL, &type, NULL);
  g_assert_cmpint (type, ==, PLANAR_CAPTURE_VALUE_INT64);
  planar_capture_options_get_option (options, 3, NULL, &type, &value);
  g_assert_cmpint (type, ==, PLANAR_CAPTURE_VALUE_STRING);
  g_assert_cmpstr (value, ==, "12");

  /* A non-gpu_ key makes a GPU tracer drop everything: a warning. */
  warning = planar_capture_options_dup_warning (options);
  g_assert_nonnull (warning);
  g_assert_nonnull (strstr (warning, "tpu_trace_mode"));
  g_assert_true (planar_capture_options_remove_option (options, "tpu_trace_mode"));
  g_assert_true (planar_capture_options_remove_option (options, "tag"));
  g_clear_pointer (&warning, g_free);
  g_assert_null (planar_capture_options_dup_warning (options));
}

static void
test_request (void)
{
  g_autoptr(PlanarCaptureOptions) options = options_for ("127.0.0.1:1", "/logs");
  g_autoptr(GBytes) bytes = NULL;
  Tensorflow__ProfileRequest *request;
  gsize len;
  const guint8 *data;

  g_object_set (options, "duration-ms", 2500, "host-tracer-level", 3, "python-tracer-level", 1,
                "raise-error-on-start-failure", TRUE, NULL);
  planar_capture_options_parse_option (options, "gpu_max_callback_api_events=5", NULL);
  planar_capture_options_parse_option (options, "gpu_enable_nvtx_tracking=true", NULL);
  planar_capture_options_parse_option (options, "note=hello", NULL);
  bytes = planar_capture_options_build_request (options, "127.0.0.1:1", "/logs/plugins/profile", "2026_01_01_00_00_00",
                                                1234567890);
  data = g_bytes_get_data (bytes, &len);
  request = tensorflow__profile_request__unpack (NULL, len, data);
  g_assert_nonnull (request);
  g_assert_nonnull (request->opts);
  g_assert_cmpuint (request->opts->version, ==, 1);
  g_assert_cmpuint (request->opts->duration_ms, ==, 2500);
  g_assert_cmpuint (request->duration_ms, ==, 2500);
  g_assert_cmpuint (request->opts->host_tracer_level, ==, 3);
  g_assert_cmpuint (request->opts->device_tracer_level, ==, 1);
  g_assert_cmpuint (request->opts->python_tracer_level, ==, 1);
  g_assert_cmpuint (request->opts->start_timestamp_ns, ==, 1234567890);
  g_assert_true (request->opts->raise_error_on_start_failure);
  g_assert_true (request->emit_xspace);
  g_assert_cmpstr (request->repository_root, ==, "/logs/plugins/profile");
  g_assert_cmpstr (request->session_id, ==, "2026_01_01_00_00_00");
  g_assert_cmpstr (request->host_name, ==, "127.0.0.1:1");
  g_assert_cmpuint (request->opts->n_advanced_configuration, ==, 3);
  g_assert_cmpstr (request->opts->advanced_configuration[0]->key, ==, "gpu_max_callback_api_events");
  g_assert_cmpint (request->opts->advanced_configuration[0]->value->value_case, ==,
                   TENSORFLOW__PROFILE_OPTIONS__ADVANCED_CONFIG_VALUE__VALUE_INT64_VALUE);
  g_assert_cmpint (request->opts->advanced_configuration[0]->value->int64_value, ==, 5);
  g_assert_cmpint (request->opts->advanced_configuration[1]->value->value_case, ==,
                   TENSORFLOW__PROFILE_OPTIONS__ADVANCED_CONFIG_VALUE__VALUE_BOOL_VALUE);
  g_assert_true (request->opts->advanced_configuration[1]->value->bool_value);
  g_assert_cmpstr (request->opts->advanced_configuration[2]->value->string_value, ==, "hello");
  tensorflow__profile_request__free_unpacked (request, NULL);
}

/* One server: the file written is the served XSpace, byte for byte, with
 * the tool data beside it; the request carries the fields specified. */
static void
test_capture_one (PlanarTestFixture *f,
                  gconstpointer      data)
{
  Server server;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *sample = sample_path ();
  g_autofree char *tool = NULL;
  const PlanarCaptureHost *host;
  Tensorflow__ProfileRequest *request;
  gsize len;
  const guint8 *bytes;

  server_start (&server, f->dir, "ok", NULL);
  options = options_for (server.address, f->dir);
  session = planar_capture_session_new (options, &error);
  g_assert_no_error (error);
  g_assert_true (planar_capture_session_run (session, &error));
  g_assert_no_error (error);
  host = planar_capture_session_get_host (session, 0);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_SAVED);
  g_assert_true (g_str_has_prefix (host->path, planar_capture_session_get_folder (session)));
  assert_same_file (host->path, sample);
  tool = g_strdup_printf ("%s/127.0.0.1_%d.tool.json", planar_capture_session_get_folder (session), server.port);
  g_assert_true (g_file_test (tool, G_FILE_TEST_IS_REGULAR));
  /* No temporary file left. */
  g_assert_cmpuint (planar_test_count_entries (planar_capture_session_get_folder (session)), ==, 2);

  requests = server_requests (&server, "/tensorflow.ProfilerService/Profile");
  g_assert_cmpuint (requests->len, ==, 1);
  bytes = g_bytes_get_data (g_ptr_array_index (requests, 0), &len);
  request = tensorflow__profile_request__unpack (NULL, len, bytes);
  g_assert_nonnull (request);
  g_assert_true (request->emit_xspace);
  g_assert_cmpuint (request->opts->version, ==, 1);
  g_assert_cmpuint (request->opts->duration_ms, ==, 100);
  g_assert_cmpuint (request->opts->start_timestamp_ns, ==, 0);
  g_assert_cmpstr (request->host_name, ==, server.address);
  tensorflow__profile_request__free_unpacked (request, NULL);
  server_stop (&server);
}

/* Two servers, one session folder, the default start delay. */
static void
test_capture_two (PlanarTestFixture *f,
                  gconstpointer      data)
{
  Server a, b;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *addresses = NULL;
  g_autofree char *root = profile_root (f->dir);
  g_autofree char *sample = sample_path ();
  g_autoptr(GPtrArray) requests = NULL;
  Tensorflow__ProfileRequest *request;
  gsize len;
  const guint8 *bytes;
  gint64 before = g_get_real_time ();

  server_start (&a, f->dir, "ok", NULL);
  server_start (&b, f->dir, "ok", NULL);
  addresses = g_strdup_printf ("%s,grpc://%s", a.address, b.address);
  options = options_for (addresses, f->dir);
  session = planar_capture_session_new (options, &error);
  g_assert_true (planar_capture_session_run (session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (planar_test_count_entries (root), ==, 1);
  for (guint i = 0; i < 2; i++)
    {
      const PlanarCaptureHost *host = planar_capture_session_get_host (session, i);

      g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_SAVED);
      assert_same_file (host->path, sample);
    }
  /* Several hosts start together, 3 s from now. */
  requests = server_requests (&a, NULL);
  bytes = g_bytes_get_data (g_ptr_array_index (requests, 0), &len);
  request = tensorflow__profile_request__unpack (NULL, len, bytes);
  g_assert_cmpuint (request->opts->start_timestamp_ns, >=, (guint64) (before + 2900000) * 1000);
  g_assert_cmpuint (request->opts->start_timestamp_ns, <=, (guint64) (g_get_real_time () + 3100000) * 1000);
  tensorflow__profile_request__free_unpacked (request, NULL);
  server_stop (&a);
  server_stop (&b);
}

/* Failures of one kind: the host's message, the number of calls made,
 * and nothing left in the log directory. */
static void
check_failure (PlanarTestFixture *f,
               const char        *mode,
               const char        *extra,
               guint              retries,
               guint              floor_ms,
               guint              expected_calls,
               const char        *message_part)
{
  Server server;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *root = profile_root (f->dir);
  const PlanarCaptureHost *host;

  server_start (&server, f->dir, mode, extra);
  options = options_for (server.address, f->dir);
  g_object_set (options, "retries", retries, NULL);
  if (floor_ms > 0)
    g_object_set (options, "deadline-floor-ms", floor_ms, NULL);
  session = planar_capture_session_new (options, &error);
  g_assert_false (planar_capture_session_run (session, &error));
  g_assert_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED);
  host = planar_capture_session_get_host (session, 0);
  g_test_message ("%s: %s", mode, host->message);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_FAILED);
  if (strstr (host->message, message_part) == NULL)
    g_error ("%s: expected \"%s\" in \"%s\"", mode, message_part, host->message);
  g_assert_nonnull (strstr (error->message, server.address));
  requests = server_requests (&server, "/tensorflow.ProfilerService/Profile");
  if (expected_calls > 0)
    g_assert_cmpuint (requests->len, ==, expected_calls);
  /* Nothing left: no session folder, no temporary file. */
  g_assert_cmpuint (planar_test_count_entries (root), ==, 0);
  server_stop (&server);
}

static void
test_failures (PlanarTestFixture *f,
               gconstpointer      data)
{
  /* Retried codes, until the retries run out. */
  check_failure (f, "unavailable", "--fail=10", 2, 0, 3, "unavailable");
  check_failure (f, "stream-removed", "--fail=10", 1, 0, 2, "Stream removed");
  /* Not retried. */
  check_failure (f, "internal", NULL, 3, 0, 1, "INTERNAL");
  check_failure (f, "empty", NULL, 3, 0, 1, "recorded nothing");
  check_failure (f, "garbage", NULL, 3, 0, 1, "not a ProfileResponse");
  check_failure (f, "slow", "--slow-ms=5000", 0, 300, 1, "did not answer");
  check_failure (f, "drop", NULL, 0, 0, 1, "unavailable");
}

static void
test_retries_succeed (PlanarTestFixture *f,
                      gconstpointer      data)
{
  static const char * const modes[] = { "unavailable", "stream-removed" };

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      Server server;
      g_autoptr(PlanarCaptureOptions) options = NULL;
      g_autoptr(PlanarCaptureSession) session = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) requests = NULL;

      server_start (&server, f->dir, modes[i], "--fail=2");
      options = options_for (server.address, f->dir);
      session = planar_capture_session_new (options, &error);
      g_assert_true (planar_capture_session_run (session, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (planar_capture_session_get_host (session, 0)->attempt, ==, 3);
      requests = server_requests (&server, "/tensorflow.ProfilerService/Profile");
      g_assert_cmpuint (requests->len, ==, 3);
      server_stop (&server);
    }
}

static void
test_refused (PlanarTestFixture *f,
              gconstpointer      data)
{
  Server server;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = profile_root (f->dir);
  g_autofree char *address = NULL;

  /* A port that was just free: nothing listens there any more. */
  server_start (&server, f->dir, "ok", NULL);
  address = g_strdup (server.address);
  server_stop (&server);
  options = options_for (address, f->dir);
  g_object_set (options, "retries", 0, NULL);
  session = planar_capture_session_new (options, &error);
  g_assert_false (planar_capture_session_run (session, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (planar_capture_session_get_host (session, 0)->message, "refused"));
  g_assert_cmpuint (planar_test_count_entries (root), ==, 0);
}

/* A server from before emit_xspace writes the file on its side; the
 * user is told where. */
static void
test_old_server (PlanarTestFixture *f,
                 gconstpointer      data)
{
  Server server;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *sample = sample_path ();
  const PlanarCaptureHost *host;

  server_start (&server, f->dir, "old", NULL);
  options = options_for (server.address, f->dir);
  session = planar_capture_session_new (options, &error);
  g_assert_false (planar_capture_session_run (session, &error));
  host = planar_capture_session_get_host (session, 0);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_SAVED_REMOTELY);
  g_assert_nonnull (strstr (host->message, "older"));
  g_assert_nonnull (strstr (error->message, host->path));
  /* Here the server's machine is this one: the file is where it says. */
  assert_same_file (host->path, sample);
  server_stop (&server);
}

static void
run_done (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  GError **error = user_data;

  if (!planar_capture_session_run_finish (PLANAR_CAPTURE_SESSION (source), result, error) && *error == NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "failed");
  if (*error == NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_EXISTS, "done");
}

static void
host_changed (PlanarCaptureSession *session,
              guint                 index,
              guint                *changes)
{
  (*changes)++;
}

/* Stop now ends a long capture early and keeps what was recorded; Cancel
 * keeps nothing. */
static void
test_stop_and_cancel (PlanarTestFixture *f,
                      gconstpointer      data)
{
  for (guint pass = 0; pass < 2; pass++)
    {
      Server server;
      g_autoptr(PlanarCaptureOptions) options = NULL;
      g_autoptr(PlanarCaptureSession) session = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *root = profile_root (f->dir);
      gint64 start = g_get_monotonic_time ();
      guint changes = 0;
      gboolean asked = FALSE;

      server_start (&server, f->dir, "slow", "--slow-ms=20000");
      options = options_for (server.address, f->dir);
      g_object_set (options, "duration-ms", 20000, NULL);
      session = planar_capture_session_new (options, &error);
      g_signal_connect (session, "host-changed", G_CALLBACK (host_changed), &changes);
      planar_capture_session_run_async (session, run_done, &error);
      while (error == NULL)
        {
          g_main_context_iteration (NULL, FALSE);
          g_usleep (10000);
          if (!asked && planar_capture_session_get_host (session, 0)->state == PLANAR_CAPTURE_HOST_PROFILING
              && g_get_monotonic_time () - start > 500000)
            {
              asked = TRUE;
              if (pass == 0)
                planar_capture_session_stop_now (session);
              else
                planar_capture_session_cancel (session);
            }
          g_assert_cmpint (g_get_monotonic_time () - start, <, 15 * G_USEC_PER_SEC);
        }
      g_assert_cmpuint (changes, >, 0);
      if (pass == 0)
        {
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
          g_assert_cmpint (planar_capture_session_get_host (session, 0)->state, ==, PLANAR_CAPTURE_HOST_SAVED);
          g_autoptr(GPtrArray) terminates = server_requests (&server, "/tensorflow.ProfilerService/Terminate");

          g_assert_cmpuint (terminates->len, ==, 1);
          g_assert_cmpuint (planar_test_count_entries (root), ==, 1);
        }
      else
        {
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
          g_assert_cmpuint (planar_test_count_entries (root), ==, 1);
        }
      /* A notification still queued keeps the session alive past this
       * frame: it must not reach `changes` then. */
      g_signal_handlers_disconnect_by_func (session, host_changed, &changes);
      server_stop (&server);
    }
}

/* A session folder already there is never touched. */
static void
test_existing_session (PlanarTestFixture *f,
                       gconstpointer      data)
{
  Server server;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *root = profile_root (f->dir);
  g_autoptr(GPtrArray) markers = g_ptr_array_new_with_free_func (g_free);

  for (int i = 0; i < 4; i++)
    {
      g_autoptr(GDateTime) when = g_date_time_add_seconds (now, i);
      g_autofree char *name = g_date_time_format (when, "%Y_%m_%d_%H_%M_%S");
      g_autofree char *dir = g_build_filename (root, name, NULL);
      char *marker = g_build_filename (dir, "127.0.0.1_1.xplane.pb", NULL);

      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_assert_true (g_file_set_contents (marker, "keep", -1, NULL));
      g_ptr_array_add (markers, marker);
    }
  server_start (&server, f->dir, "ok", NULL);
  options = options_for (server.address, f->dir);
  session = planar_capture_session_new (options, &error);
  g_assert_true (planar_capture_session_run (session, &error));
  for (guint i = 0; i < markers->len; i++)
    {
      g_autofree char *text = NULL;

      g_assert_true (g_file_get_contents (g_ptr_array_index (markers, i), &text, NULL, NULL));
      g_assert_cmpstr (text, ==, "keep");
      g_assert_false (g_str_has_prefix (g_ptr_array_index (markers, i), planar_capture_session_get_folder (session)));
    }
  server_stop (&server);
}

static int
run_cli (char **argv,
         char **out,
         char **err)
{
  int status = 0;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
test_cli (PlanarTestFixture *f,
          gconstpointer      data)
{
  Server server;
  const char *cli = g_getenv ("PLANAR_CLI");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *sample = sample_path ();
  g_autofree char *address = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  server_start (&server, f->dir, "ok", NULL);
  {
    char *argv[] = { (char *) cli, "capture", "--service", server.address, "--logdir", f->dir, "--duration-ms", "100",
                     "--option", "gpu_enable_nvtx_tracking=true", NULL };

    g_assert_cmpint (run_cli (argv, &out, &err), ==, 0);
    g_strstrip (out);
    g_assert_true (g_str_has_suffix (out, ".xplane.pb"));
    assert_same_file (out, sample);
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    char *argv[] = { (char *) cli, "capture", "--service", server.address, "--logdir", f->dir, "--json", NULL };

    g_assert_cmpint (run_cli (argv, &out, &err), ==, 0);
    g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                       json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "hosts"), 0),
                       "state"), ==, "saved");
  }
  address = g_strdup (server.address);
  server_stop (&server);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    /* The server is gone: a failure, with the reason, exit 1. */
    char *argv[] = { (char *) cli, "capture", "--service", address, "--logdir", f->dir, "--retries", "0", NULL };
    char *bad[] = { (char *) cli, "capture", "--service", "nohost", "--logdir", f->dir, NULL };
    char *bad_option[] = { (char *) cli, "capture", "--service", "h:1", "--logdir", f->dir, "--option", "x", NULL };

    g_assert_cmpint (run_cli (argv, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "refused"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_cli (bad, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "host:port"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_cli (bad_option, &out, &err), ==, 2);
  }
}

/* Continuous profiling with a server that only knows the older names. */
static void
test_continuous (PlanarTestFixture *f,
                 gconstpointer      data)
{
  Server server;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *sample = sample_path ();
  g_autofree char *text = NULL;

  server_start (&server, f->dir, "continuous-old", NULL);
  options = options_for (server.address, f->dir);
  g_assert_true (planar_capture_continuous_start (options, server.address, &error));
  g_assert_no_error (error);
  path = planar_capture_continuous_snapshot (options, server.address, &error);
  g_assert_no_error (error);
  assert_same_file (path, sample);
  g_assert_true (planar_capture_continuous_stop (options, server.address, &error));
  g_assert_no_error (error);
  /* The upstream names first, then the older spellings. */
  g_assert_true (g_file_get_contents (server.record, &text, NULL, NULL));
  g_assert_true (strstr (text, "/StartContinuousProfiling") < strstr (text, "/ContinuousProfiling "));
  g_assert_true (strstr (text, "/GetSnapshot") < strstr (text, "/GetSnapShot"));
  server_stop (&server);
}

/* A ProfileResponse the parser refuses says what was wrong and where, in
 * one whole sentence per problem (translatable as one) naming the message
 * by its proto name. */
static void
test_response_errors (void)
{
  static const struct
  {
    const guint8 *bytes;
    gsize         len;
    const char   *message;
  } cases[] = {
    /* tool_data (field 6) holding a name whose length runs past the end. */
    { (const guint8 *) "\x32\x03\x0a\x09x", 5,
      "The server's answer is not a ProfileResponse: ProfileToolData has a length at byte 3 that runs past its end" },
    /* xspace (field 8) as a varint. */
    { (const guint8 *) "\x38\x00\x40\x01", 4,
      "The server's answer is not a ProfileResponse: the field xspace of ProfileResponse at byte 2 is not length-delimited" },
    /* tool_data as a varint. */
    { (const guint8 *) "\x30\x01", 2,
      "The server's answer is not a ProfileResponse: the field tool_data of ProfileResponse at byte 0 is not length-delimited" },
    /* A varint cut short. */
    { (const guint8 *) "\x38\x80", 2,
      "The server's answer is not a ProfileResponse: ProfileResponse has a malformed varint at byte 1" },
    /* A tag cut short. */
    { (const guint8 *) "\x80", 1,
      "The server's answer is not a ProfileResponse: ProfileResponse is cut short at byte 0" },
    /* Field number 0. */
    { (const guint8 *) "\x00", 1,
      "The server's answer is not a ProfileResponse: ProfileResponse has an invalid field number at byte 0" },
    /* A length that is no varint. */
    { (const guint8 *) "\x42\x80", 2,
      "The server's answer is not a ProfileResponse: ProfileResponse has a malformed length at byte 1" },
    /* A group (wire type 3). */
    { (const guint8 *) "\x3b", 1,
      "The server's answer is not a ProfileResponse: ProfileResponse has an unsupported wire type at byte 0" },
  };
  static const guint8 good[] = { 0x38, 0x01, 0x42, 0x00 };
  PlanarCaptureResponse response;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_false (planar_capture_response_parse (cases[i].bytes, cases[i].len, &response, &error));
      g_assert_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED);
      g_assert_cmpstr (error->message, ==, cases[i].message);
      g_assert_null (response.tools);
      g_clear_error (&error);
    }

  g_assert_true (planar_capture_response_parse (good, sizeof good, &response, &error));
  g_assert_no_error (error);
  g_assert_true (response.empty_trace);
  g_assert_true (response.has_xspace);
  g_assert_cmpuint (response.xspace_len, ==, 0);
  planar_capture_response_clear (&response);
}

/* An XSpace the check refuses, and one it takes: the fields and their wire
 * types are those of xplane.proto. */
static void
test_response_check_xspace (void)
{
  static const struct
  {
    const guint8 *bytes;
    gsize         len;
    const char   *message;
  } cases[] = {
    { (const guint8 *) "", 0, "it is empty" },
    /* planes (field 1) as a varint. */
    { (const guint8 *) "\x08\x01", 2, "the field planes of XSpace at byte 0 has the wrong wire type" },
    /* hostnames (field 4) as a varint. */
    { (const guint8 *) "\x20\x01", 2, "the field hostnames of XSpace at byte 0 has the wrong wire type" },
    /* A plane whose name (field 2) is a varint. */
    { (const guint8 *) "\x0a\x02\x10\x01", 4, "the field name of XPlane at byte 2 has the wrong wire type" },
    /* A plane whose id (field 1) is length-delimited. */
    { (const guint8 *) "\x0a\x02\x0a\x00", 4, "the field id of XPlane at byte 2 has the wrong wire type" },
    /* A plane longer than the space. */
    { (const guint8 *) "\x0a\x05\x08", 3, "XSpace has a length at byte 1 that runs past its end" },
    /* A plane whose id is cut short. */
    { (const guint8 *) "\x0a\x02\x08\x80", 4, "XPlane has a malformed varint at byte 3" },
    /* Only fields XSpace does not have. */
    { (const guint8 *) "\x28\x01", 2, "it holds no planes, host names, errors or warnings" },
  };
  /* One plane with an id and a name; a host name. */
  static const guint8 good[] = { 0x0a, 0x05, 0x08, 0x01, 0x12, 0x01, 'x', 0x22, 0x01, 'h' };
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_false (planar_capture_response_check_xspace (cases[i].bytes, cases[i].len, &error));
      g_assert_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED);
      g_assert_cmpstr (error->message, ==, cases[i].message);
      g_clear_error (&error);
    }
  g_assert_true (planar_capture_response_check_xspace (good, sizeof good, &error));
  g_assert_no_error (error);
}

/* ------------------------------------------------------------------------
 * A capture never throws a received profile away; odd tool_data names;
 * signals; listeners that are no gRPC server. These run on a profile the
 * test makes, so that they need no samples.
 * ------------------------------------------------------------------------ */

/* A small XSpace in @dir. Returns: (transfer full): its path. */
static char *
small_xspace (const char *dir)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 1, "/host:CPU");
  XLine *line = planar_test_plane_add_line (plane, 1, "main", 1000);

  planar_test_plane_add_event_metadata (plane, 1, "step", NULL);
  planar_test_line_add_event (line, 1, 0, 5000);
  return planar_test_write_space (space, dir, "served.xplane.pb");
}

/* The names in @dir that start with a dot: temporaries. */
static guint
count_hidden (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (name[0] == '.')
      n++;
  return n;
}

static void
assert_file_text (const char *dir,
                  const char *name,
                  const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    g_error ("%s was not saved", path);
  g_assert_cmpstr (contents, ==, text);
}

/* Tool data named xplane.pb (the profile's own name), a 300-byte name,
 * names with '/' and "..", a name that is only "..", twice the same name,
 * a control character: the XSpace is saved, each entry under a safe and
 * unique name in the session folder, the one that cannot be made safe is
 * skipped and reported, and the host is saved. */
static void
test_tool_names (PlanarTestFixture *f,
                 gconstpointer      data)
{
  Server server;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *xspace = small_xspace (f->dir);
  g_autofree char *long_name = g_strnfill (295, 'a');
  g_autofree char *long_tool = g_strconcat ("--tool=", long_name, ".json", NULL);
  g_autofree char *stem = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *folder, *entry;
  const PlanarCaptureHost *host;
  gboolean found_long = FALSE;
  const char *extras[] = {
    "--tool=xplane.pb", long_tool, "--tool=../../escape.json", "--tool=sub/dir/x.json", "--tool=..",
    "--tool=tool.json", "--tool=tool.json", "--tool=bell\anote.txt", NULL,
  };

  server_start_full (&server, f->dir, "ok", xspace, extras);
  options = options_for (server.address, f->dir);
  session = planar_capture_session_new (options, &error);
  g_assert_true (planar_capture_session_run (session, &error));
  g_assert_no_error (error);
  host = planar_capture_session_get_host (session, 0);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_SAVED);
  g_test_message ("%s", host->message);
  folder = planar_capture_session_get_folder (session);
  stem = g_strdup_printf ("127.0.0.1_%d", server.port);

  /* The profile, byte for byte, under its own name. */
  name = g_strconcat (stem, ".xplane.pb", NULL);
  g_assert_cmpstr (strrchr (host->path, '/') + 1, ==, name);
  assert_same_file (host->path, xspace);
  /* "xplane.pb" as tool data: beside it, never mistaken for a host. */
  g_clear_pointer (&name, g_free);
  name = g_strconcat (stem, ".xplane.pb.tool", NULL);
  assert_file_text (folder, name, "tool data 0");
  /* Separators and ".." components go; nothing is written outside. */
  g_clear_pointer (&name, g_free);
  name = g_strconcat (stem, ".escape.json", NULL);
  assert_file_text (folder, name, "tool data 2");
  g_clear_pointer (&name, g_free);
  name = g_strconcat (stem, ".sub_dir_x.json", NULL);
  assert_file_text (folder, name, "tool data 3");
  {
    g_autofree char *root = profile_root (f->dir);
    const char *outside[] = { f->dir, root, NULL };

    for (guint i = 0; outside[i] != NULL; i++)
      {
        g_autofree char *path = g_build_filename (outside[i], "escape.json", NULL);

        g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
      }
    g_assert_cmpuint (planar_test_count_entries (root), ==, 1);
  }
  /* Two entries of one name: both kept. */
  g_clear_pointer (&name, g_free);
  name = g_strconcat (stem, ".tool.json", NULL);
  assert_file_text (folder, name, "tool data 5");
  g_clear_pointer (&name, g_free);
  name = g_strconcat (stem, ".2.tool.json", NULL);
  assert_file_text (folder, name, "tool data 6");
  g_clear_pointer (&name, g_free);
  name = g_strconcat (stem, ".bell_note.txt", NULL);
  assert_file_text (folder, name, "tool data 7");
  /* The long name: shortened to what the file system takes, its
   * extension kept. */
  dir = g_dir_open (folder, 0, NULL);
  while ((entry = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (entry, stem) && g_str_has_suffix (entry, ".json") && strstr (entry, "aaaa") != NULL)
      {
        g_assert_cmpuint (strlen (entry), <=, 255 - 8);
        assert_file_text (folder, entry, "tool data 1");
        found_long = TRUE;
      }
  g_assert_true (found_long);
  /* ".." cannot be made a name: skipped, and said. */
  g_assert_nonnull (host->message);
  g_assert_nonnull (strstr (host->message, "“..” was not saved"));
  /* The profile, 7 tool files, no temporary. */
  g_assert_cmpuint (planar_test_count_entries (folder), ==, 8);
  g_assert_cmpuint (count_hidden (folder), ==, 0);
  server_stop (&server);
}

/* A server from before emit_xspace asked for the tool "xplane.pb" sends
 * the profile that way: it is the host's profile. */
static void
test_tool_xspace (PlanarTestFixture *f,
                  gconstpointer      data)
{
  Server server;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *xspace = small_xspace (f->dir);
  const char *extras[] = { "--tool=xplane.pb", "--tool-xspace", "--no-xspace", NULL };
  const PlanarCaptureHost *host;

  server_start_full (&server, f->dir, "ok", xspace, extras);
  options = options_for (server.address, f->dir);
  session = planar_capture_session_new (options, &error);
  g_assert_true (planar_capture_session_run (session, &error));
  g_assert_no_error (error);
  host = planar_capture_session_get_host (session, 0);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_SAVED);
  g_assert_true (g_str_has_suffix (host->path, ".xplane.pb"));
  assert_same_file (host->path, xspace);
  /* Saved once. */
  g_assert_cmpuint (planar_test_count_entries (planar_capture_session_get_folder (session)), ==, 1);
  server_stop (&server);
}

/* Bytes that are no XSpace are not saved as a profile: the host fails,
 * says why, and nothing is left. */
static void
test_not_xspace (PlanarTestFixture *f,
                 gconstpointer      data)
{
  Server server;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *xspace = small_xspace (f->dir);
  g_autofree char *root = profile_root (f->dir);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const PlanarCaptureHost *host;
  int status = 0;

  server_start_full (&server, f->dir, "not-xspace", xspace, NULL);
  options = options_for (server.address, f->dir);
  session = planar_capture_session_new (options, &error);
  g_assert_false (planar_capture_session_run (session, &error));
  g_assert_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED);
  host = planar_capture_session_get_host (session, 0);
  g_test_message ("%s", host->message);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_FAILED);
  g_assert_nonnull (strstr (host->message, "no XSpace"));
  g_assert_nonnull (strstr (host->message, "traceEvents"));
  g_assert_cmpuint (planar_test_count_entries (root), ==, 0);

  /* The CLI: exit 1, the reason on stderr. */
  {
    const char *argv[] = { g_getenv ("PLANAR_CLI"), "capture", "--service", server.address, "--logdir", f->dir,
                           "--duration-ms", "100", NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL));
    g_assert_true (WIFEXITED (status));
    g_assert_cmpint (WEXITSTATUS (status), ==, 1);
    g_assert_nonnull (strstr (err, "no XSpace"));
    g_assert_cmpuint (planar_test_count_entries (root), ==, 0);
  }
  server_stop (&server);
}

/* Without gRPC's library no call is made: the reason says so, and not that
 * the server answered INTERNAL (as it did); and a host's reason names the
 * host once ("127.0.0.1:1: 127.0.0.1:1 refused..." before). */
static void
test_cli_grpc_not_loaded (PlanarTestFixture *f,
                          gconstpointer      data)
{
  Server server;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;
  int status = 0;

  server_start (&server, f->dir, "ok", NULL);
  {
    const char *argv[] = { g_getenv ("PLANAR_CLI"), "capture", "--service", server.address, "--logdir", f->dir,
                           "--duration-ms", "100", NULL };
    g_auto(GStrv) env = g_environ_setenv (g_get_environ (), "PLANAR_GRPC_LIBRARY", "/nonexistent/libgrpc.so.29",
                                          TRUE);

    g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                                 NULL));
    g_test_message ("%s", err);
    g_assert_true (WIFEXITED (status));
    g_assert_cmpint (WEXITSTATUS (status), ==, 1);
    g_assert_cmpstr (out, ==, "");
    expected = g_strdup_printf ("planar-cli:   %s was not asked: gRPC's library cannot be loaded: "
                                "/nonexistent/libgrpc.so.29: ", server.address);
    g_assert_nonnull (strstr (err, expected));
    g_assert_nonnull (strstr (err, "(Planar needs gRPC's C library, libgrpc, to capture)"));
    g_assert_null (strstr (err, "answered"));
    g_assert_null (strstr (err, "INTERNAL"));
  }
  server_stop (&server);

  /* Nothing listens on port 1: refused, the host named once. */
  {
    const char *argv[] = { g_getenv ("PLANAR_CLI"), "capture", "--service", "127.0.0.1:1", "--logdir", f->dir,
                           "--duration-ms", "100", NULL };

    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_cli ((char **) argv, &out, &err), ==, 1);
    g_test_message ("%s", err);
    g_assert_nonnull (strstr (err, "planar-cli:   127.0.0.1:1 refused the connection"));
    g_assert_null (strstr (err, "127.0.0.1:1: 127.0.0.1:1"));
  }
}

/* One host saved and one failed: the saved one is printed and kept, the
 * other's reason said, and the status is 1. */
static void
test_cli_partial (PlanarTestFixture *f,
                  gconstpointer      data)
{
  Server ok, bad;
  g_autofree char *xspace = small_xspace (f->dir);
  g_autofree char *addresses = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  server_start_full (&ok, f->dir, "ok", xspace, NULL);
  server_start_full (&bad, f->dir, "internal", xspace, NULL);
  addresses = g_strdup_printf ("%s,%s", ok.address, bad.address);
  {
    const char *argv[] = { g_getenv ("PLANAR_CLI"), "capture", "--service", addresses, "--logdir", f->dir,
                           "--duration-ms", "100", "--delay-ms", "0", NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL));
  }
  g_test_message ("%s", err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_strstrip (out);
  g_assert_true (g_str_has_suffix (out, ".xplane.pb"));
  assert_same_file (out, xspace);
  g_assert_nonnull (strstr (err, bad.address));
  g_assert_nonnull (strstr (err, "INTERNAL"));
  server_stop (&ok);
  server_stop (&bad);
}

/* The session folder holding @name, under @root, or NULL. */
static char *
find_saved (const char *root,
            const char *name)
{
  g_autoptr(GDir) d = g_dir_open (root, 0, NULL);
  const char *session;

  while (d != NULL && (session = g_dir_read_name (d)) != NULL)
    {
      char *path = g_build_filename (root, session, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return path;
      g_free (path);
    }
  return NULL;
}

/* SIGINT and SIGTERM while a call is in flight: the calls are cancelled,
 * the hosts saved before are kept, nothing else is left (no temporary,
 * no empty session folder), the status is 128 + the signal and one line
 * says what was kept. The signal comes at a fixed point: once the
 * stalling server has the call (and, with two hosts, once the other
 * host's profile is in place). */
static void
test_signals (PlanarTestFixture *f,
              gconstpointer      data)
{
  static const int signals_sent[] = { SIGINT, SIGTERM };
  g_autofree char *xspace = small_xspace (f->dir);

  for (guint s = 0; s < G_N_ELEMENTS (signals_sent); s++)
    for (guint hosts = 1; hosts <= 2; hosts++)
      {
        Server stall = { 0 }, ok = { 0 };
        g_autofree char *logdir = g_strdup_printf ("%s/logs-%u-%u", f->dir, s, hosts);
        g_autofree char *root = profile_root (logdir);
        g_autofree char *addresses = NULL;
        g_autofree char *ok_name = NULL;
        g_autofree char *saved = NULL;
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        g_autoptr(GError) error = NULL;
        /* Only the interrupted call stalls: the next capture is answered
         * at once, once the server is free. */
        const char *stall_extras[] = { "--announce", "--slow-ms=60000", "--slow-calls=1", NULL };
        GPid pid;
        int out_fd = -1, err_fd = -1, status = 0;

        server_start_full (&stall, f->dir, "stall", xspace, stall_extras);
        if (hosts == 2)
          {
            server_start_full (&ok, f->dir, "ok", xspace, NULL);
            addresses = g_strdup_printf ("%s,%s", ok.address, stall.address);
            ok_name = g_strdup_printf ("127.0.0.1_%d.xplane.pb", ok.port);
          }
        else
          addresses = g_strdup (stall.address);
        {
          const char *argv[] = { g_getenv ("PLANAR_CLI"), "capture", "--service", addresses, "--logdir", logdir,
                                 "--duration-ms", "100", "--delay-ms", "0", NULL };

          g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                                   &pid, NULL, &out_fd, &err_fd, &error));
          g_assert_no_error (error);
        }
        server_wait_call (&stall, "/Profile");
        /* The other host's profile in place: linked whole, so kept. A
         * bound on the wait, not a timing. */
        for (guint i = 0; ok_name != NULL && saved == NULL; i++)
          {
            saved = find_saved (root, ok_name);
            if (saved == NULL && i > 6000)
              g_error ("%s was never saved", ok_name);
            if (saved == NULL)
              g_usleep (10000);
          }
        g_assert_cmpint (kill (pid, signals_sent[s]), ==, 0);
        g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
        g_spawn_close_pid (pid);
        {
          g_autoptr(GIOChannel) o = g_io_channel_unix_new (out_fd);
          g_autoptr(GIOChannel) e = g_io_channel_unix_new (err_fd);

          g_io_channel_set_close_on_unref (o, TRUE);
          g_io_channel_set_close_on_unref (e, TRUE);
          g_io_channel_read_to_end (o, &out, NULL, NULL);
          g_io_channel_read_to_end (e, &err, NULL, NULL);
        }
        g_test_message ("signal %d, %u hosts: %s", signals_sent[s], hosts, err);
        g_assert_true (WIFEXITED (status));
        g_assert_cmpint (WEXITSTATUS (status), ==, 128 + signals_sent[s]);
        if (hosts == 1)
          {
            g_assert_nonnull (strstr (err, "nothing was kept"));
            /* No session folder left. */
            g_assert_cmpuint (planar_test_count_entries (root), ==, 0);
          }
        else
          {
            g_autofree char *folder = g_path_get_dirname (saved);

            g_assert_nonnull (strstr (err, "kept 1 of 2 hosts"));
            assert_same_file (saved, xspace);
            g_assert_nonnull (strstr (out, saved));
            g_assert_cmpuint (planar_test_count_entries (root), ==, 1);
            g_assert_cmpuint (count_hidden (folder), ==, 0);
            server_stop (&ok);
          }
        /* One line says it, the last. */
        {
          g_auto(GStrv) lines = g_strsplit (g_strstrip (err), "\n", -1);
          guint n = g_strv_length (lines);

          g_assert_cmpuint (n, >, 0);
          g_assert_true (g_str_has_prefix (lines[n - 1], "planar-cli: capture stopped by "));
          g_assert_nonnull (strstr (lines[n - 1], signals_sent[s] == SIGINT ? "SIGINT" : "SIGTERM"));
          for (guint i = 0; i + 1 < n; i++)
            g_assert_null (strstr (lines[i], "capture stopped"));
        }
        /* The interrupted capture ended the server's session on its way
         * out (Terminate, for its session): a capture right after gets a
         * profile, where the server would otherwise refuse it ("Another
         * profiling session active.") for the rest of the 60 s. */
        {
          g_autofree char *again = g_strdup_printf ("%s/again-%u-%u", f->dir, s, hosts);
          g_autofree char *again_out = NULL;
          g_autofree char *again_err = NULL;
          char *argv[] = { (char *) g_getenv ("PLANAR_CLI"), "capture", "--service", stall.address, "--logdir", again,
                           "--duration-ms", "100", NULL };
          g_autoptr(GPtrArray) terminates = NULL;

          if (run_cli (argv, &again_out, &again_err) != 0)
            g_error ("no capture right after the interrupted one: %s", again_err);
          assert_same_file (g_strstrip (again_out), xspace);
          terminates = server_requests (&stall, "/tensorflow.ProfilerService/Terminate");
          g_assert_cmpuint (terminates->len, ==, 1);
        }
        server_stop (&stall);
      }
}

/* Cancel (the app's Cancel button calls it) once one host is saved and
 * another's call is in flight: the saved host is kept, the other call
 * cancelled, and the session says so. */
static void
test_cancel_keeps_saved (PlanarTestFixture *f,
                         gconstpointer      data)
{
  Server ok, stall;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *xspace = small_xspace (f->dir);
  g_autofree char *addresses = NULL;
  g_autofree char *root = profile_root (f->dir);
  const char *stall_extras[] = { "--announce", "--slow-ms=60000", NULL };
  const PlanarCaptureHost *host;
  guint changes = 0;

  server_start_full (&ok, f->dir, "ok", xspace, NULL);
  server_start_full (&stall, f->dir, "stall", xspace, stall_extras);
  addresses = g_strdup_printf ("%s,%s", ok.address, stall.address);
  options = options_for (addresses, f->dir);
  g_object_set (options, "delay-ms", 0, NULL);
  session = planar_capture_session_new (options, &error);
  g_signal_connect (session, "host-changed", G_CALLBACK (host_changed), &changes);
  planar_capture_session_run_async (session, run_done, &error);
  server_wait_call (&stall, "/Profile");
  /* The other host saved: a fixed point, the wait bounded. */
  for (guint i = 0; planar_capture_session_get_host (session, 0)->state != PLANAR_CAPTURE_HOST_SAVED; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      if (i > 6000)
        g_error ("the first host was never saved");
      g_usleep (10000);
    }
  planar_capture_session_cancel (session);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_test_message ("%s", error->message);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_nonnull (strstr (error->message, "1 of 2"));
  host = planar_capture_session_get_host (session, 0);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_SAVED);
  assert_same_file (host->path, xspace);
  g_assert_cmpint (planar_capture_session_get_host (session, 1)->state, ==, PLANAR_CAPTURE_HOST_CANCELLED);
  g_assert_cmpuint (planar_test_count_entries (root), ==, 1);
  g_assert_cmpuint (count_hidden (planar_capture_session_get_folder (session)), ==, 0);
  /* As in test_stop_and_cancel(): no queued notification reaches `changes`
   * after this frame. */
  g_signal_handlers_disconnect_by_func (session, host_changed, &changes);
  server_stop (&ok);
  server_stop (&stall);
}

/* A cancelled capture ends the server's session (the Terminate for its
 * session_id, before its call goes), so that a capture right after is
 * not refused: a server keeps profiling for a call that went away. With
 * @collect_ms, the server stays busy that long after the Terminate, as a
 * real one does while it collects what it recorded: the capture right
 * after waits for it. */
static void
cancel_frees_server (PlanarTestFixture *f,
                     int                collect_ms)
{
  Server stall;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(PlanarCaptureSession) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) terminates = NULL;
  g_autofree char *xspace = small_xspace (f->dir);
  g_autofree char *session_id = NULL;
  g_autofree char *collect = g_strdup_printf ("--collect-ms=%d", collect_ms);
  const char *stall_extras[] = { "--announce", "--slow-ms=60000", "--slow-calls=1", collect, NULL };
  Tensorflow__TerminateRequest *terminate;
  const PlanarCaptureHost *host;

  server_start_full (&stall, f->dir, "stall", xspace, stall_extras);
  options = options_for (stall.address, f->dir);
  g_object_set (options, "duration-ms", 60000, NULL);
  session = planar_capture_session_new (options, &error);
  planar_capture_session_run_async (session, run_done, &error);
  server_wait_call (&stall, "/Profile");
  planar_capture_session_cancel (session);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_cmpint (planar_capture_session_get_host (session, 0)->state, ==, PLANAR_CAPTURE_HOST_CANCELLED);
  g_assert_cmpstr (planar_capture_session_get_host (session, 0)->message, ==, "Cancelled");

  /* At once, from the same server, with the default options but the
   * duration: a profile, once the server is free. */
  g_object_set (options, "duration-ms", 100, NULL);
  again = planar_capture_session_new (options, &error);
  g_assert_true (planar_capture_session_run (again, &error));
  g_assert_no_error (error);
  host = planar_capture_session_get_host (again, 0);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_SAVED);
  assert_same_file (host->path, xspace);
  /* With a collect time, it was refused while the server collected, and
   * asked again. (No bound on the time it took: the collect time starts
   * when the server gets the Terminate, before the cancel is over here.) */
  if (collect_ms > 0)
    g_assert_cmpuint (host->attempt, >, 1);
  else
    g_assert_cmpuint (host->attempt, ==, 1);

  /* The server was told which session to end. */
  terminates = server_requests (&stall, "/tensorflow.ProfilerService/Terminate");
  g_assert_cmpuint (terminates->len, ==, 1);
  terminate = tensorflow__terminate_request__unpack (NULL, g_bytes_get_size (terminates->pdata[0]),
                                                     g_bytes_get_data (terminates->pdata[0], NULL));
  g_assert_nonnull (terminate);
  session_id = g_path_get_basename (planar_capture_session_get_folder (session));
  g_assert_cmpstr (terminate->session_id, ==, session_id);
  tensorflow__terminate_request__free_unpacked (terminate, NULL);
  server_stop (&stall);
}

static void
test_cancel_frees_server (PlanarTestFixture *f,
                          gconstpointer      data)
{
  cancel_frees_server (f, 0);
}

/* 3 s: longer than the pauses of the default retries (1.5 s in all),
 * within the busy budget. A JAX server on a GPU stayed busy 1.65 s after
 * 3 s of recording and 3.75 s after 8 s (docs/capture.md). */
static void
test_cancel_frees_collecting_server (PlanarTestFixture *f,
                                     gconstpointer      data)
{
  cancel_frees_server (f, 3000);
}

/* A server busy with another session ("Another profiling session
 * active.") is asked again every PLANAR_CAPTURE_BUSY_PAUSE_MS within
 * busy-wait-ms, whatever the retries, and then named as busy, in
 * Planar's words, with the time waited; busy-wait-ms 0 fails at once. */
static void
test_server_busy (PlanarTestFixture *f,
                  gconstpointer      data)
{
  Server stall;
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureOptions) second = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(PlanarCaptureSession) refused = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) refused_error = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autofree char *xspace = small_xspace (f->dir);
  g_autofree char *logdir = g_build_filename (f->dir, "second", NULL);
  g_autofree char *root = profile_root (logdir);
  const char *stall_extras[] = { "--announce", "--slow-ms=60000", NULL };
  const PlanarCaptureHost *host;

  server_start_full (&stall, f->dir, "stall", xspace, stall_extras);
  options = options_for (stall.address, f->dir);
  g_object_set (options, "duration-ms", 60000, NULL);
  session = planar_capture_session_new (options, &error);
  planar_capture_session_run_async (session, run_done, &error);
  server_wait_call (&stall, "/Profile");

  second = options_for (stall.address, logdir);
  g_object_set (second, "retries", 0, "busy-wait-ms", 2 * PLANAR_CAPTURE_BUSY_PAUSE_MS, NULL);
  refused = planar_capture_session_new (second, &refused_error);
  g_assert_false (planar_capture_session_run (refused, &refused_error));
  g_assert_error (refused_error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED);
  host = planar_capture_session_get_host (refused, 0);
  g_test_message ("%s", host->message);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_FAILED);
  g_assert_cmpuint (host->attempt, ==, 3);
  g_assert_nonnull (strstr (host->message, "is already profiling"));
  g_assert_nonnull (strstr (host->message, "until its duration ends (still after 1 s)"));
  g_assert_cmpuint (planar_test_count_entries (root), ==, 0);
  /* The first capture's call, and three of the second. */
  requests = server_requests (&stall, "/tensorflow.ProfilerService/Profile");
  g_assert_cmpuint (requests->len, ==, 4);

  /* No budget, and retries left: one call, refused, and the host fails. */
  g_clear_object (&refused);
  g_clear_error (&refused_error);
  g_object_set (second, "retries", 3, "busy-wait-ms", 0, NULL);
  refused = planar_capture_session_new (second, &refused_error);
  g_assert_false (planar_capture_session_run (refused, &refused_error));
  host = planar_capture_session_get_host (refused, 0);
  g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_FAILED);
  g_assert_cmpuint (host->attempt, ==, 1);
  g_assert_nonnull (strstr (host->message, "is already profiling"));
  g_assert_null (strstr (host->message, "still after"));
  g_clear_pointer (&requests, g_ptr_array_unref);
  requests = server_requests (&stall, "/tensorflow.ProfilerService/Profile");
  g_assert_cmpuint (requests->len, ==, 5);

  /* planar-cli at a terminal says that it asks again while it waits, and
   * then why it gave up. */
  {
    const char *argv[] = { g_getenv ("PLANAR_CLI"), "capture", "--service", stall.address, "--logdir", logdir,
                           "--busy-wait-ms", "1500", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_cmpint (planar_test_spawn_stderr_tty (argv, &out, &err), ==, 1);
    g_test_message ("%s", err);
    g_assert_nonnull (strstr (err, "1 host asked again"));
    g_assert_nonnull (strstr (err, "is already profiling"));
    g_assert_nonnull (strstr (err, "(still after 1.5 s)"));
    g_assert_cmpstr (out, ==, "");
  }

  planar_capture_session_cancel (session);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  server_stop (&stall);
}

/* Temporaries that a capture killed on the way left are removed by the
 * next capture into that log directory once untouched for an hour;
 * younger ones (another capture may be writing them) and everything else
 * stay. */
static void
test_stale_temporaries (PlanarTestFixture *f,
                        gconstpointer      data)
{
  g_autofree char *root = profile_root (f->dir);
  g_autofree char *old_session = g_build_filename (root, "2020_01_01_00_00_00", NULL);
  g_autofree char *dead_session = g_build_filename (root, "2020_01_01_00_00_01", NULL);
  g_autofree char *stale = g_build_filename (old_session, ".127.0.0.1_1.xplane.pb.AbC123", NULL);
  g_autofree char *young = g_build_filename (old_session, ".127.0.0.1_2.xplane.pb.XyZ789", NULL);
  g_autofree char *profile = g_build_filename (old_session, "127.0.0.1_3.xplane.pb", NULL);
  g_autofree char *hidden_dir = g_build_filename (old_session, ".folder.QwE456", NULL);
  g_autofree char *dead = g_build_filename (dead_session, ".127.0.0.1_4.xplane.pb.RtY321", NULL);
  g_autoptr(PlanarCaptureOptions) options = NULL;
  g_autoptr(PlanarCaptureSession) session = NULL;
  g_autoptr(GError) error = NULL;
  gint64 two_hours_ago = g_get_real_time () - (gint64) 7200 * G_USEC_PER_SEC;
  Server server;
  g_autofree char *address = NULL;
  const char *old_files[] = { stale, profile, dead, hidden_dir };

  g_assert_cmpint (g_mkdir_with_parents (old_session, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (dead_session, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (hidden_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (stale, "half", -1, NULL));
  g_assert_true (g_file_set_contents (young, "being written", -1, NULL));
  g_assert_true (g_file_set_contents (profile, "keep", -1, NULL));
  g_assert_true (g_file_set_contents (dead, "half", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (old_files); i++)
    {
      struct utimbuf times = { (time_t) (two_hours_ago / G_USEC_PER_SEC), (time_t) (two_hours_ago / G_USEC_PER_SEC) };

      g_assert_cmpint (g_utime (old_files[i], &times), ==, 0);
    }

  /* Any capture will do, even one that finds no server. */
  server_start_full (&server, f->dir, "ok", profile, NULL);
  address = g_strdup (server.address);
  server_stop (&server);
  options = options_for (address, f->dir);
  g_object_set (options, "retries", 0, NULL);
  session = planar_capture_session_new (options, &error);
  g_assert_false (planar_capture_session_run (session, &error));

  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (dead_session, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (young, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (profile, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (hidden_dir, G_FILE_TEST_IS_DIR));
}

/* A session folder or file that cannot be made fails with the
 * G_IO_ERROR code of its cause, as every I/O failure in Planar does. */
static void
test_io_errors (PlanarTestFixture *f,
                gconstpointer      data)
{
  g_autofree char *file = g_build_filename (f->dir, "a-file", NULL);
  g_autofree char *under_file = g_build_filename (file, "plugins", "profile", NULL);
  g_autofree char *root = profile_root (f->dir);
  g_autofree char *session_id = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (file, "not a folder", -1, NULL));
  g_assert_null (planar_capture_make_session_folder (under_file, &session_id, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY);
  g_assert_nonnull (strstr (error->message, under_file));
  g_clear_error (&error);

  folder = planar_capture_make_session_folder (root, &session_id, &error);
  g_assert_no_error (error);
  g_assert_true (planar_capture_write_new_file (folder, "h.xplane.pb", (const guint8 *) "x", 1, &path, &error));
  g_assert_no_error (error);
  g_assert_false (planar_capture_write_new_file (folder, "h.xplane.pb", (const guint8 *) "y", 1, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_false (planar_capture_write_new_file (file, "h.xplane.pb", (const guint8 *) "y", 1, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY);
  g_assert_cmpuint (count_hidden (folder), ==, 0);
}

/* Listeners that are no gRPC server are named as such, within the
 * capture's deadline (1 s here; the test's own timeout is the only
 * clock), and not retried. */
static void
test_listeners (PlanarTestFixture *f,
                gconstpointer      data)
{
  static const struct
  {
    const char *mode;
    const char *message;
  } cases[] = {
    { "listen-silent", "connected, no answer within 1 s" },
    { "listen-garbage", "connected, but it does not speak gRPC" },
    { "listen-http1", "connected, but it does not speak gRPC (it answered “HTTP/1.1 400 Bad Request”)" },
  };
  g_autofree char *xspace = small_xspace (f->dir);
  g_autofree char *root = profile_root (f->dir);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Server server;
      g_autoptr(PlanarCaptureOptions) options = NULL;
      g_autoptr(PlanarCaptureSession) session = NULL;
      g_autoptr(GError) error = NULL;
      const PlanarCaptureHost *host;

      server_start_full (&server, f->dir, cases[i].mode, xspace, NULL);
      options = options_for (server.address, f->dir);
      g_object_set (options, "deadline-floor-ms", 1000, "retries", 3, NULL);
      session = planar_capture_session_new (options, &error);
      g_assert_false (planar_capture_session_run (session, &error));
      host = planar_capture_session_get_host (session, 0);
      g_test_message ("%s: %s", cases[i].mode, host->message);
      g_assert_cmpint (host->state, ==, PLANAR_CAPTURE_HOST_FAILED);
      if (strstr (host->message, cases[i].message) == NULL)
        g_error ("%s: expected \"%s\" in \"%s\"", cases[i].mode, cases[i].message, host->message);
      g_assert_null (strstr (host->message, "refused"));
      /* Not retried. */
      g_assert_cmpuint (host->attempt, ==, 1);
      g_assert_cmpuint (planar_test_count_entries (root), ==, 0);
      server_stop (&server);
    }
}

/* Whether gRPC's library is in this process's mappings. */
static gboolean
grpc_mapped (void)
{
  g_autofree char *maps = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  return strstr (maps, "/libgrpc.so") != NULL;
}

static gboolean grpc_mapped_at_start;

/* gRPC's library (and the fifty it needs) is loaded by the first call, not
 * when a process that links capture/ starts (the application's start paid
 * about 35 ms of CPU for it). */
static void
test_grpc_loaded_on_call (void)
{
  g_autoptr(GBytes) request = g_bytes_new_static ("", 0);
  g_autofree char *details = NULL;
  PlanarGrpcStatus status;

  g_assert_false (grpc_mapped_at_start);
  /* Nothing listens on port 1: refused, in gRPC's words. */
  status = planar_grpc_call ("127.0.0.1:1", "/tensorflow.ProfilerService/Monitor", request, 5000, NULL, NULL, &details);
  g_test_message ("%s: %s", planar_grpc_status_name (status), details);
  g_assert_cmpint (status, ==, PLANAR_GRPC_UNAVAILABLE);
  g_assert_true (grpc_mapped ());
}

int
main (int    argc,
      char **argv)
{
  grpc_mapped_at_start = grpc_mapped ();
  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("PLANAR_TEST_PROFILER_SERVER") == NULL)
    g_error ("PLANAR_TEST_PROFILER_SERVER must be set (meson test sets it)");
  g_test_add_func ("/capture/options", test_options);
  g_test_add_func ("/capture/request", test_request);
  g_test_add_func ("/capture/response-errors", test_response_errors);
  g_test_add_func ("/capture/response-check-xspace", test_response_check_xspace);
  g_test_add_func ("/capture/grpc-loaded-on-call", test_grpc_loaded_on_call);
  PLANAR_TEST_ADD ("/capture/one", test_capture_one);
  PLANAR_TEST_ADD ("/capture/two", test_capture_two);
  PLANAR_TEST_ADD ("/capture/failures", test_failures);
  PLANAR_TEST_ADD ("/capture/retries-succeed", test_retries_succeed);
  PLANAR_TEST_ADD ("/capture/refused", test_refused);
  PLANAR_TEST_ADD ("/capture/old-server", test_old_server);
  PLANAR_TEST_ADD ("/capture/stop-and-cancel", test_stop_and_cancel);
  PLANAR_TEST_ADD ("/capture/existing-session", test_existing_session);
  PLANAR_TEST_ADD ("/capture/cli", test_cli);
  PLANAR_TEST_ADD ("/capture/continuous", test_continuous);
  PLANAR_TEST_ADD ("/capture/tool-names", test_tool_names);
  PLANAR_TEST_ADD ("/capture/tool-xspace", test_tool_xspace);
  PLANAR_TEST_ADD ("/capture/not-xspace", test_not_xspace);
  PLANAR_TEST_ADD ("/capture/cli-partial", test_cli_partial);
  PLANAR_TEST_ADD ("/capture/cli-grpc-not-loaded", test_cli_grpc_not_loaded);
  PLANAR_TEST_ADD ("/capture/signals", test_signals);
  PLANAR_TEST_ADD ("/capture/cancel-keeps-saved", test_cancel_keeps_saved);
  PLANAR_TEST_ADD ("/capture/cancel-frees-server", test_cancel_frees_server);
  PLANAR_TEST_ADD ("/capture/cancel-frees-collecting-server", test_cancel_frees_collecting_server);
  PLANAR_TEST_ADD ("/capture/server-busy", test_server_busy);
  PLANAR_TEST_ADD ("/capture/stale-temporaries", test_stale_temporaries);
  PLANAR_TEST_ADD ("/capture/listeners", test_listeners);
  PLANAR_TEST_ADD ("/capture/io-errors", test_io_errors);
  return g_test_run ();
}
