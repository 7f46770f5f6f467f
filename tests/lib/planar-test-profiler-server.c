/* planar-test-profiler-server.c: a ProfilerService for the capture tests,
 * on gRPC's C core, on 127.0.0.1 with a port of the system's choosing
 * (printed as "PORT <n>"), exiting by itself after --idle-ms without calls.
 *
 * It records every request (method and bytes, one hex line each, to
 * --record) and answers by --mode:
 *   ok              the --xspace file as ProfileResponse.xspace, and a tool
 *   empty           empty_trace
 *   unavailable     UNAVAILABLE for the first --fail calls, then ok
 *   stream-removed  UNKNOWN "Stream removed" for the first --fail, then ok
 *   internal        INTERNAL (not to be retried)
 *   hostile         INTERNAL with terminal escapes in its message
 *   slow            ok after --slow-ms, or at once when Terminate comes
 *                   for its session_id (with --slow-calls N, only the
 *                   first N Profile calls are slow; the next answer ok)
 *   garbage         bytes that are no ProfileResponse
 *   drop            the process exits in the middle of the call
 *   old             like a server from before emit_xspace: the file is
 *                   written under repository_root, and no xspace comes back
 *   continuous-old  only the older continuous-profiling method names
 *   not-xspace      ok, but ProfileResponse.xspace holds bytes that are no
 *                   XSpace (a JSON text)
 *   stall           like slow, for signal tests: with --announce the call
 *                   is announced first, so that the test acts while the
 *                   call is in flight
 *   listen-silent   no gRPC at all: a TCP listener that accepts and never
 *                   says anything
 *   listen-garbage  a TCP listener that answers every connection with bytes
 *                   that are no HTTP/2
 *   listen-http1    a TCP listener that answers like an HTTP/1.1 server
 *
 * Like a real profiler server, it runs one profiling session at a time:
 * a Profile call that arrives while another is recording is answered
 * INTERNAL "Another profiling session active.", and a call the client
 * cancelled keeps its session until it ends (--slow-ms for slow and
 * stall) or a Terminate for its session_id comes. With --collect-ms N a
 * slow or stall session stays on N ms after that, before its answer, as a
 * real server's does while it collects what it recorded.
 *
 * --tool NAME (repeated) replaces the tool of ok answers by entries named
 * NAME, each holding "tool data N"; --tool-xspace makes an entry named
 * xplane.pb hold the served XSpace instead, as legacy servers send it;
 * --no-xspace leaves ProfileResponse.xspace out. --announce prints
 * "CALL <method>" on standard output when a call arrives (keep reading it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "profiler_service.pb-c.h"

#define SERVICE "/tensorflow.ProfilerService/"

static const char *mode = "ok";
static char *xspace_path;
static char *record_path;
static int idle_ms = 20000;
static int fail_times = 0;
static int slow_ms = 5000;
static char **tool_names;
static gboolean tool_xspace;
static gboolean no_xspace;
static gboolean announce;
static int slow_calls = -1;
static int collect_ms;

static GMutex lock;
static GCond terminated_cond;
/* The session_ids a Terminate asked to stop (a set), and whether a
 * profiling session is running. */
static GHashTable *stop_requests;
static gboolean session_active;
static int profile_calls;
static int active_calls;
static grpc_completion_queue *queue;

typedef enum
{
  STATE_NEW,
  STATE_RECV,
  STATE_DONE,
} State;

typedef struct
{
  State               state;
  grpc_call          *call;
  grpc_call_details   details;
  grpc_metadata_array metadata;
  grpc_byte_buffer   *request;
  grpc_byte_buffer   *reply;
  grpc_slice          status_details;
  int                 cancelled;
  char               *method;
} Call;

static void
record (const char *method,
        GBytes     *bytes)
{
  FILE *f;
  gsize len = 0;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  if (record_path == NULL)
    return;
  g_mutex_lock (&lock);
  f = fopen (record_path, "a");
  if (f != NULL)
    {
      fprintf (f, "%s ", method);
      for (gsize i = 0; i < len; i++)
        fprintf (f, "%02x", data[i]);
      fprintf (f, "\n");
      fclose (f);
    }
  g_mutex_unlock (&lock);
}

static GBytes *
read_buffer (grpc_byte_buffer *buffer)
{
  grpc_byte_buffer_reader reader;
  grpc_slice all;
  GBytes *bytes;

  if (buffer == NULL || !grpc_byte_buffer_reader_init (&reader, buffer))
    return g_bytes_new (NULL, 0);
  all = grpc_byte_buffer_reader_readall (&reader);
  bytes = g_bytes_new (GRPC_SLICE_START_PTR (all), GRPC_SLICE_LENGTH (all));
  grpc_slice_unref (all);
  grpc_byte_buffer_reader_destroy (&reader);
  return bytes;
}

/* Appends field @number holding @data as it is (length-delimited). */
static void
append_len_field (GByteArray   *out,
                  guint         number,
                  const guint8 *data,
                  gsize         len)
{
  guint8 header[11];
  guint n = 0;
  guint64 v = len;

  header[n++] = (guint8) ((number << 3) | 2);
  do
    {
      header[n] = v & 0x7f;
      v >>= 7;
      if (v != 0)
        header[n] |= 0x80;
      n++;
    }
  while (v != 0);
  g_byte_array_append (out, header, n);
  g_byte_array_append (out, data, (guint) len);
}

/* A ProfileResponse with @xspace's bytes as field 8 and the tools. */
static GBytes *
profile_response_with (gboolean      with_xspace,
                       gboolean      empty,
                       const guint8 *xspace,
                       gsize         xspace_len)
{
  Tensorflow__ProfileResponse response = TENSORFLOW__PROFILE_RESPONSE__INIT;
  GByteArray *out = g_byte_array_new ();
  gsize size;

  response.empty_trace = empty;
  size = tensorflow__profile_response__get_packed_size (&response);
  g_byte_array_set_size (out, (guint) size);
  tensorflow__profile_response__pack (&response, out->data);
  if (with_xspace)
    {
      guint n_tools = tool_names != NULL ? g_strv_length (tool_names) : 1;

      /* Each tool_data entry written by hand too: a name may hold any byte. */
      for (guint i = 0; i < n_tools; i++)
        {
          const char *name = tool_names != NULL ? tool_names[i] : "tool.json";
          g_autofree char *text = tool_names != NULL ? g_strdup_printf ("tool data %u", i) : g_strdup ("{\"tool\": 1}");
          g_autoptr(GByteArray) entry = g_byte_array_new ();

          append_len_field (entry, 1, (const guint8 *) name, strlen (name));
          if (tool_xspace && strcmp (name, "xplane.pb") == 0 && xspace != NULL)
            append_len_field (entry, 2, xspace, xspace_len);
          else
            append_len_field (entry, 2, (const guint8 *) text, strlen (text));
          append_len_field (out, 6, entry->data, entry->len);
        }
      /* Field 8 written by hand: the file's bytes as they are. */
      if (xspace != NULL && !no_xspace)
        append_len_field (out, 8, xspace, xspace_len);
    }
  return g_byte_array_free_to_bytes (out);
}

/* The same with the --xspace file. */
static GBytes *
profile_response (gboolean with_xspace,
                  gboolean empty)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  if (with_xspace && xspace_path != NULL && g_file_get_contents (xspace_path, &data, &len, NULL))
    return profile_response_with (TRUE, empty, (const guint8 *) data, len);
  return profile_response_with (with_xspace, empty, NULL, 0);
}

/* Where an older server writes its file. */
static void
write_like_old_server (GBytes *request_bytes)
{
  gsize len = 0;
  const guint8 *data = g_bytes_get_data (request_bytes, &len);
  Tensorflow__ProfileRequest *request = tensorflow__profile_request__unpack (NULL, len, data);
  g_autofree char *dir = NULL;
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  gsize contents_len = 0;

  if (request == NULL)
    return;
  dir = g_build_filename (request->repository_root, request->session_id, NULL);
  name = g_strdup_printf ("%s.xplane.pb", request->host_name);
  g_strdelimit (name, ":", '_');
  path = g_build_filename (dir, name, NULL);
  g_mkdir_with_parents (dir, 0755);
  if (g_file_get_contents (xspace_path, &contents, &contents_len, NULL))
    g_file_set_contents (path, contents, (gssize) contents_len, NULL);
  tensorflow__profile_request__free_unpacked (request, NULL);
}

static void
reply (Call             *c,
       grpc_status_code  status,
       const char       *message,
       GBytes           *body)
{
  grpc_op ops[4];
  int n = 0;
  grpc_slice body_slice;

  memset (ops, 0, sizeof ops);
  ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
  if (body != NULL && status == GRPC_STATUS_OK)
    {
      gsize len = 0;
      const void *data = g_bytes_get_data (body, &len);

      body_slice = grpc_slice_from_copied_buffer (data, len);
      c->reply = grpc_raw_byte_buffer_create (&body_slice, 1);
      grpc_slice_unref (body_slice);
      ops[n].op = GRPC_OP_SEND_MESSAGE;
      ops[n++].data.send_message.send_message = c->reply;
    }
  c->status_details = grpc_slice_from_copied_string (message != NULL ? message : "");
  ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
  ops[n].data.send_status_from_server.status = status;
  ops[n].data.send_status_from_server.status_details = &c->status_details;
  n++;
  ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
  ops[n++].data.recv_close_on_server.cancelled = &c->cancelled;
  c->state = STATE_DONE;
  grpc_call_start_batch (c->call, ops, (size_t) n, c, NULL);
}

static gpointer
handle (gpointer data)
{
  Call *c = data;
  g_autoptr(GBytes) request = read_buffer (c->request);
  g_autoptr(GBytes) body = NULL;
  g_autofree char *session_id = NULL;
  grpc_status_code status = GRPC_STATUS_OK;
  const char *message = NULL;
  gboolean busy;
  int call_number;

  record (c->method, request);
  if (announce)
    {
      g_mutex_lock (&lock);
      printf ("CALL %s\n", c->method);
      fflush (stdout);
      g_mutex_unlock (&lock);
    }
  if (strcmp (c->method, SERVICE "Terminate") == 0)
    {
      gsize len = 0;
      const guint8 *bytes = g_bytes_get_data (request, &len);
      Tensorflow__TerminateRequest *terminate = tensorflow__terminate_request__unpack (NULL, len, bytes);

      g_mutex_lock (&lock);
      g_hash_table_add (stop_requests, g_strdup (terminate != NULL && terminate->session_id != NULL
                                                 ? terminate->session_id : ""));
      g_cond_broadcast (&terminated_cond);
      g_mutex_unlock (&lock);
      if (terminate != NULL)
        tensorflow__terminate_request__free_unpacked (terminate, NULL);
      body = g_bytes_new (NULL, 0);
      reply (c, GRPC_STATUS_OK, NULL, body);
      return NULL;
    }
  if (strcmp (mode, "continuous-old") == 0)
    {
      if (strcmp (c->method, SERVICE "ContinuousProfiling") == 0 || strcmp (c->method, SERVICE "StopContinuousProfiling") == 0)
        {
          body = g_bytes_new (NULL, 0);
          reply (c, GRPC_STATUS_OK, NULL, body);
        }
      else if (strcmp (c->method, SERVICE "GetSnapShot") == 0)
        {
          body = profile_response (TRUE, FALSE);
          reply (c, GRPC_STATUS_OK, NULL, body);
        }
      else
        reply (c, GRPC_STATUS_UNIMPLEMENTED, "unknown method", NULL);
      return NULL;
    }
  if (strcmp (c->method, SERVICE "Profile") != 0)
    {
      reply (c, GRPC_STATUS_UNIMPLEMENTED, "unknown method", NULL);
      return NULL;
    }

  /* One profiling session at a time, as ProfilerSession's lock allows. */
  {
    gsize len = 0;
    const guint8 *bytes = g_bytes_get_data (request, &len);
    Tensorflow__ProfileRequest *profile = tensorflow__profile_request__unpack (NULL, len, bytes);

    session_id = g_strdup (profile != NULL && profile->session_id != NULL ? profile->session_id : "");
    if (profile != NULL)
      tensorflow__profile_request__free_unpacked (profile, NULL);
  }
  g_mutex_lock (&lock);
  call_number = ++profile_calls;
  busy = session_active;
  session_active = TRUE;
  g_mutex_unlock (&lock);
  if (busy)
    {
      reply (c, GRPC_STATUS_INTERNAL, "Another profiling session active.", NULL);
      return NULL;
    }

  if (strcmp (mode, "empty") == 0)
    body = profile_response (FALSE, TRUE);
  else if (strcmp (mode, "unavailable") == 0 && call_number <= fail_times)
    {
      status = GRPC_STATUS_UNAVAILABLE;
      message = "Socket closed";
    }
  else if (strcmp (mode, "stream-removed") == 0 && call_number <= fail_times)
    {
      status = GRPC_STATUS_UNKNOWN;
      message = "Stream removed";
    }
  else if (strcmp (mode, "internal") == 0)
    {
      status = GRPC_STATUS_INTERNAL;
      message = "the profiler broke";
    }
  else if (strcmp (mode, "hostile") == 0)
    {
      /* Terminal escapes, and a line of its own that must not pass for
       * one of the client's. */
      status = GRPC_STATUS_INTERNAL;
      message = "the profiler \x1b]0;owned\x07 broke \x1b[2J\nplanar-cli: forged line";
    }
  else if (strcmp (mode, "garbage") == 0)
    body = g_bytes_new_static ("\x42\xff\xff\xff\xff\x0f", 6);
  else if (strcmp (mode, "drop") == 0)
    _exit (0);
  else if (strcmp (mode, "not-xspace") == 0)
    {
      static const char text[] = "{\"traceEvents\": [], \"note\": \"JSON, not an XSpace\"}";

      body = profile_response_with (TRUE, FALSE, (const guint8 *) text, strlen (text));
    }
  else if (strcmp (mode, "old") == 0)
    {
      write_like_old_server (request);
      body = profile_response (FALSE, FALSE);
    }
  else
    {
      if ((strcmp (mode, "slow") == 0 || strcmp (mode, "stall") == 0) && (slow_calls < 0 || call_number <= slow_calls))
        {
          gint64 end = g_get_monotonic_time () + (gint64) slow_ms * 1000;

          /* Until the duration ends or a Terminate for this session comes;
           * a client that went away changes nothing. */
          g_mutex_lock (&lock);
          while (!g_hash_table_remove (stop_requests, session_id) && g_cond_wait_until (&terminated_cond, &lock, end))
            ;
          g_mutex_unlock (&lock);
          if (collect_ms > 0)
            g_usleep ((gulong) collect_ms * 1000);
        }
      body = profile_response (TRUE, FALSE);
    }
  /* The session ends before the answer goes: the next call finds the
   * server free. */
  g_mutex_lock (&lock);
  session_active = FALSE;
  g_mutex_unlock (&lock);
  reply (c, status, message, body);
  return NULL;
}

static Call *
request_next (grpc_server *server)
{
  Call *c = g_new0 (Call, 1);

  c->state = STATE_NEW;
  grpc_call_details_init (&c->details);
  grpc_metadata_array_init (&c->metadata);
  grpc_server_request_call (server, &c->call, &c->details, &c->metadata, queue, queue, c);
  return c;
}

static void
call_free (Call *c)
{
  if (c->call != NULL)
    grpc_call_unref (c->call);
  grpc_call_details_destroy (&c->details);
  grpc_metadata_array_destroy (&c->metadata);
  if (c->request != NULL)
    grpc_byte_buffer_destroy (c->request);
  if (c->reply != NULL)
    grpc_byte_buffer_destroy (c->reply);
  grpc_slice_unref (c->status_details);
  g_free (c->method);
  g_free (c);
}

/* Modes listen-*: a plain TCP listener on 127.0.0.1, no gRPC. Serves one
 * connection at a time until --idle-ms pass without one. */
static int
listen_plain (void)
{
  struct sockaddr_in addr;
  socklen_t addr_len = sizeof addr;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  memset (&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (fd < 0 || bind (fd, (struct sockaddr *) &addr, sizeof addr) != 0 || listen (fd, 16) != 0
      || getsockname (fd, (struct sockaddr *) &addr, &addr_len) != 0)
    {
      fprintf (stderr, "cannot listen on 127.0.0.1\n");
      return 1;
    }
  printf ("PORT %d\n", ntohs (addr.sin_port));
  fflush (stdout);
  signal (SIGPIPE, SIG_IGN);
  for (;;)
    {
      GPollFD poll_fd = { fd, G_IO_IN, 0 };
      int client;
      char buffer[4096];

      if (g_poll (&poll_fd, 1, idle_ms) <= 0)
        break;
      client = accept (fd, NULL, NULL);
      if (client < 0)
        continue;
      if (announce)
        {
          printf ("CALL connection\n");
          fflush (stdout);
        }
      if (strcmp (mode, "listen-garbage") == 0)
        {
          static const char garbage[] = "\x13\x37 this is not HTTP/2 \xff\xfe\n";

          if (write (client, garbage, sizeof garbage - 1) < 0)
            perror ("write");
        }
      else if (strcmp (mode, "listen-http1") == 0)
        {
          static const char answer[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

          if (read (client, buffer, sizeof buffer) >= 0 && write (client, answer, sizeof answer - 1) < 0)
            perror ("write");
        }
      /* Silent: read what comes until the client goes, answer nothing. The
       * others: the same, after their answer. */
      for (;;)
        {
          GPollFD c = { client, G_IO_IN, 0 };

          if (g_poll (&c, 1, idle_ms) <= 0 || read (client, buffer, sizeof buffer) <= 0)
            break;
        }
      close (client);
    }
  close (fd);
  return 0;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("- a ProfilerService for tests");
  g_autoptr(GError) error = NULL;
  char *mode_arg = NULL;
  GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_STRING, &mode_arg, "How to answer", "MODE" },
    { "xspace", 0, 0, G_OPTION_ARG_FILENAME, &xspace_path, "The profile to serve", "FILE" },
    { "record", 0, 0, G_OPTION_ARG_FILENAME, &record_path, "Where requests are recorded", "FILE" },
    { "idle-ms", 0, 0, G_OPTION_ARG_INT, &idle_ms, "Exit after this long without calls", "MS" },
    { "fail", 0, 0, G_OPTION_ARG_INT, &fail_times, "Calls that fail first", "N" },
    { "slow-ms", 0, 0, G_OPTION_ARG_INT, &slow_ms, "How long a slow capture takes", "MS" },
    { "tool", 0, 0, G_OPTION_ARG_STRING_ARRAY, &tool_names, "A tool_data entry of this name", "NAME" },
    { "tool-xspace", 0, 0, G_OPTION_ARG_NONE, &tool_xspace, "Tool xplane.pb holds the XSpace", NULL },
    { "no-xspace", 0, 0, G_OPTION_ARG_NONE, &no_xspace, "No ProfileResponse.xspace", NULL },
    { "announce", 0, 0, G_OPTION_ARG_NONE, &announce, "Print CALL <method> as calls arrive", NULL },
    { "slow-calls", 0, 0, G_OPTION_ARG_INT, &slow_calls, "Only the first N Profile calls are slow", "N" },
    { "collect-ms", 0, 0, G_OPTION_ARG_INT, &collect_ms, "How long a slow session stays on once it has ended", "MS" },
    { NULL }
  };
  grpc_server *server;
  grpc_server_credentials *credentials;
  Call *pending;
  gint64 last_activity;
  int port;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  if (mode_arg != NULL)
    mode = mode_arg;
  if (g_str_has_prefix (mode, "listen-"))
    return listen_plain ();
  stop_requests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  grpc_init ();
  server = grpc_server_create (NULL, NULL);
  queue = grpc_completion_queue_create_for_next (NULL);
  grpc_server_register_completion_queue (server, queue, NULL);
  credentials = grpc_insecure_server_credentials_create ();
  port = grpc_server_add_http2_port (server, "127.0.0.1:0", credentials);
  grpc_server_credentials_release (credentials);
  if (port <= 0)
    {
      fprintf (stderr, "cannot listen on 127.0.0.1\n");
      return 1;
    }
  grpc_server_start (server);
  printf ("PORT %d\n", port);
  fflush (stdout);

  pending = request_next (server);
  last_activity = g_get_monotonic_time ();
  for (;;)
    {
      gpr_timespec tick = gpr_time_add (gpr_now (GPR_CLOCK_REALTIME), gpr_time_from_millis (100, GPR_TIMESPAN));
      grpc_event event = grpc_completion_queue_next (queue, tick, NULL);
      Call *c;

      if (event.type == GRPC_QUEUE_TIMEOUT)
        {
          gboolean idle;

          g_mutex_lock (&lock);
          idle = active_calls == 0;
          g_mutex_unlock (&lock);
          if (idle && g_get_monotonic_time () - last_activity > (gint64) idle_ms * 1000)
            break;
          continue;
        }
      if (event.type != GRPC_OP_COMPLETE)
        break;
      last_activity = g_get_monotonic_time ();
      c = event.tag;
      if (c->state == STATE_NEW)
        {
          grpc_op op;

          pending = request_next (server);
          if (!event.success)
            {
              call_free (c);
              continue;
            }
          g_mutex_lock (&lock);
          active_calls++;
          g_mutex_unlock (&lock);
          c->method = g_strndup ((const char *) GRPC_SLICE_START_PTR (c->details.method),
                                 GRPC_SLICE_LENGTH (c->details.method));
          memset (&op, 0, sizeof op);
          op.op = GRPC_OP_RECV_MESSAGE;
          op.data.recv_message.recv_message = &c->request;
          c->state = STATE_RECV;
          grpc_call_start_batch (c->call, &op, 1, c, NULL);
        }
      else if (c->state == STATE_RECV)
        g_thread_unref (g_thread_new ("handler", handle, c));
      else
        {
          call_free (c);
          g_mutex_lock (&lock);
          active_calls--;
          g_mutex_unlock (&lock);
        }
    }

  grpc_server_shutdown_and_notify (server, queue, NULL);
  grpc_server_cancel_all_calls (server);
  for (;;)
    {
      grpc_event event = grpc_completion_queue_next (queue, gpr_inf_future (GPR_CLOCK_REALTIME), NULL);

      if (event.type == GRPC_OP_COMPLETE && event.tag == NULL)
        break;
      if (event.type == GRPC_OP_COMPLETE && event.tag == pending)
        {
          call_free (pending);
          pending = NULL;
        }
    }
  grpc_server_destroy (server);
  grpc_completion_queue_shutdown (queue);
  while (grpc_completion_queue_next (queue, gpr_inf_future (GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN)
    ;
  grpc_completion_queue_destroy (queue);
  grpc_shutdown ();
  g_free (mode_arg);
  return 0;
}
