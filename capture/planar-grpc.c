/* planar-grpc.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-grpc.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

const char *
planar_grpc_status_name (PlanarGrpcStatus status)
{
  static const char * const names[] = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED", "NOT_LOADED",
  };

  if ((guint) status < G_N_ELEMENTS (names))
    return names[status];
  return "UNKNOWN";
}

/* gRPC's library and the fifty it needs (abseil, OpenSSL, c-ares, re2...)
 * are not linked: each process that starts (the application's window, a
 * planar-cli command) would pay for loading and relocating them, about
 * 35 ms of CPU before its first frame, though few ever make a call. They
 * are loaded with the first call instead (PLANAR_GRPC_LIBRARY, the soname
 * of the gRPC the build was configured with), and the functions this file
 * calls are looked up in them once. */
#define GRPC_FUNCTIONS(F) \
  F (grpc_init) \
  F (grpc_insecure_credentials_create) \
  F (grpc_channel_create) \
  F (grpc_channel_credentials_release) \
  F (grpc_channel_create_call) \
  F (grpc_channel_destroy) \
  F (grpc_completion_queue_create_for_next) \
  F (grpc_completion_queue_next) \
  F (grpc_completion_queue_shutdown) \
  F (grpc_completion_queue_destroy) \
  F (grpc_call_start_batch) \
  F (grpc_call_cancel) \
  F (grpc_call_unref) \
  F (grpc_empty_slice) \
  F (grpc_slice_from_copied_string) \
  F (grpc_slice_from_copied_buffer) \
  F (grpc_slice_unref) \
  F (grpc_raw_byte_buffer_create) \
  F (grpc_byte_buffer_destroy) \
  F (grpc_byte_buffer_reader_init) \
  F (grpc_byte_buffer_reader_readall) \
  F (grpc_byte_buffer_reader_destroy) \
  F (grpc_metadata_array_init) \
  F (grpc_metadata_array_destroy) \
  F (gpr_now) \
  F (gpr_time_add) \
  F (gpr_time_from_millis) \
  F (gpr_inf_future)

#define GRPC_DECLARE(name) __typeof__ (&name) name;
static struct
{
  GRPC_FUNCTIONS (GRPC_DECLARE)
} grpc_lib;

/* NULL once every function is found and gRPC is initialized, else why not
 * (for the call's details). */
static gpointer
init_grpc (gpointer data)
{
  /* $PLANAR_GRPC_LIBRARY names another (a gRPC carried beside a copy of
   * planar-cli, say). */
  const char *library = g_getenv ("PLANAR_GRPC_LIBRARY");
  void *handle;

  if (library == NULL || library[0] == '\0')
    library = PLANAR_GRPC_LIBRARY;
  handle = dlopen (library, RTLD_NOW | RTLD_LOCAL);

  if (handle == NULL)
    return g_strdup_printf ("gRPC's library cannot be loaded: %s", dlerror ());
#define GRPC_LOOK_UP(name) \
  if ((*(void **) &grpc_lib.name = dlsym (handle, #name)) == NULL) \
    return g_strdup_printf ("gRPC's library %s has no %s", library, #name);
  GRPC_FUNCTIONS (GRPC_LOOK_UP)
#undef GRPC_LOOK_UP
  grpc_lib.grpc_init ();
  return NULL;
}

/* From here on, each gRPC function this file names is the one looked up. */
#define grpc_init (grpc_lib.grpc_init)
#define grpc_insecure_credentials_create (grpc_lib.grpc_insecure_credentials_create)
#define grpc_channel_create (grpc_lib.grpc_channel_create)
#define grpc_channel_credentials_release (grpc_lib.grpc_channel_credentials_release)
#define grpc_channel_create_call (grpc_lib.grpc_channel_create_call)
#define grpc_channel_destroy (grpc_lib.grpc_channel_destroy)
#define grpc_completion_queue_create_for_next (grpc_lib.grpc_completion_queue_create_for_next)
#define grpc_completion_queue_next (grpc_lib.grpc_completion_queue_next)
#define grpc_completion_queue_shutdown (grpc_lib.grpc_completion_queue_shutdown)
#define grpc_completion_queue_destroy (grpc_lib.grpc_completion_queue_destroy)
#define grpc_call_start_batch (grpc_lib.grpc_call_start_batch)
#define grpc_call_cancel (grpc_lib.grpc_call_cancel)
#define grpc_call_unref (grpc_lib.grpc_call_unref)
#define grpc_empty_slice (grpc_lib.grpc_empty_slice)
#define grpc_slice_from_copied_string (grpc_lib.grpc_slice_from_copied_string)
#define grpc_slice_from_copied_buffer (grpc_lib.grpc_slice_from_copied_buffer)
#define grpc_slice_unref (grpc_lib.grpc_slice_unref)
#define grpc_raw_byte_buffer_create (grpc_lib.grpc_raw_byte_buffer_create)
#define grpc_byte_buffer_destroy (grpc_lib.grpc_byte_buffer_destroy)
#define grpc_byte_buffer_reader_init (grpc_lib.grpc_byte_buffer_reader_init)
#define grpc_byte_buffer_reader_readall (grpc_lib.grpc_byte_buffer_reader_readall)
#define grpc_byte_buffer_reader_destroy (grpc_lib.grpc_byte_buffer_reader_destroy)
#define grpc_metadata_array_init (grpc_lib.grpc_metadata_array_init)
#define grpc_metadata_array_destroy (grpc_lib.grpc_metadata_array_destroy)
#define gpr_now (grpc_lib.gpr_now)
#define gpr_time_add (grpc_lib.gpr_time_add)
#define gpr_time_from_millis (grpc_lib.gpr_time_from_millis)
#define gpr_inf_future (grpc_lib.gpr_inf_future)

static char *
slice_to_string (grpc_slice slice)
{
  return g_strndup ((const char *) GRPC_SLICE_START_PTR (slice), GRPC_SLICE_LENGTH (slice));
}

PlanarGrpcStatus
planar_grpc_call (const char    *target,
                  const char    *method,
                  GBytes        *request,
                  gint64         deadline_ms,
                  GCancellable  *cancellable,
                  GBytes       **response,
                  char         **details)
{
  return planar_grpc_call_full (target, method, request, deadline_ms, cancellable, NULL, NULL, 0, response, details);
}

PlanarGrpcStatus
planar_grpc_call_full (const char              *target,
                       const char              *method,
                       GBytes                  *request,
                       gint64                   deadline_ms,
                       GCancellable            *cancellable,
                       PlanarGrpcBeforeCancel   before_cancel,
                       gpointer                 before_cancel_data,
                       gint64                   grace_ms,
                       GBytes                 **response,
                       char                   **details)
{
  static GOnce once = G_ONCE_INIT;
  grpc_arg args[3];
  grpc_channel_args channel_args = { G_N_ELEMENTS (args), args };
  grpc_channel_credentials *credentials;
  grpc_channel *channel;
  grpc_completion_queue *queue;
  grpc_call *call;
  grpc_slice method_slice;
  grpc_slice request_slice;
  grpc_byte_buffer *send_buffer;
  grpc_byte_buffer *recv_buffer = NULL;
  grpc_metadata_array initial_metadata;
  grpc_metadata_array trailing_metadata;
  grpc_status_code status = GRPC_STATUS_UNKNOWN;
  grpc_slice status_details;
  grpc_op ops[6];
  gpr_timespec deadline;
  gboolean cancelled = FALSE;
  /* Once the cancellable fires: when the call is cancelled (monotonic
   * µs), after @before_cancel and the grace. */
  gint64 cancel_at = -1;
  gsize len = 0;
  const void *data = g_bytes_get_data (request, &len);
  const char *unloaded;

  if (response != NULL)
    *response = NULL;
  unloaded = g_once (&once, init_grpc, NULL);
  if (unloaded != NULL)
    {
      if (details != NULL)
        *details = g_strdup (unloaded);
      return PLANAR_GRPC_NOT_LOADED;
    }
  status_details = grpc_empty_slice ();

  /* Profiles are large: no limit on what comes back. No proxy (a profiler
   * server is on the user's network, and http_proxy would send it away),
   * and no retries of gRPC's own: Planar decides which codes to retry. */
  args[0].type = GRPC_ARG_INTEGER;
  args[0].key = (char *) GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
  args[0].value.integer = -1;
  args[1].type = GRPC_ARG_INTEGER;
  args[1].key = (char *) GRPC_ARG_ENABLE_HTTP_PROXY;
  args[1].value.integer = 0;
  args[2].type = GRPC_ARG_INTEGER;
  args[2].key = (char *) GRPC_ARG_ENABLE_RETRIES;
  args[2].value.integer = 0;

  credentials = grpc_insecure_credentials_create ();
  channel = grpc_channel_create (target, credentials, &channel_args);
  grpc_channel_credentials_release (credentials);
  queue = grpc_completion_queue_create_for_next (NULL);
  method_slice = grpc_slice_from_copied_string (method);
  deadline = gpr_time_add (gpr_now (GPR_CLOCK_REALTIME), gpr_time_from_millis (MAX (deadline_ms, 1), GPR_TIMESPAN));
  call = grpc_channel_create_call (channel, NULL, GRPC_PROPAGATE_DEFAULTS, queue, method_slice, NULL, deadline, NULL);

  request_slice = grpc_slice_from_copied_buffer (data, len);
  send_buffer = grpc_raw_byte_buffer_create (&request_slice, 1);
  grpc_metadata_array_init (&initial_metadata);
  grpc_metadata_array_init (&trailing_metadata);
  memset (ops, 0, sizeof ops);
  ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
  ops[1].op = GRPC_OP_SEND_MESSAGE;
  ops[1].data.send_message.send_message = send_buffer;
  ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
  ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
  ops[3].data.recv_initial_metadata.recv_initial_metadata = &initial_metadata;
  ops[4].op = GRPC_OP_RECV_MESSAGE;
  ops[4].data.recv_message.recv_message = &recv_buffer;
  ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
  ops[5].data.recv_status_on_client.trailing_metadata = &trailing_metadata;
  ops[5].data.recv_status_on_client.status = &status;
  ops[5].data.recv_status_on_client.status_details = &status_details;

  if (grpc_call_start_batch (call, ops, G_N_ELEMENTS (ops), (void *) 1, NULL) != GRPC_CALL_OK)
    status = GRPC_STATUS_INTERNAL;
  else
    for (;;)
      {
        /* Wakes up now and then to look at the cancellable. */
        gint64 wait_ms = 100;
        gpr_timespec tick;
        grpc_event event;

        if (cancel_at >= 0 && !cancelled)
          wait_ms = CLAMP ((cancel_at - g_get_monotonic_time ()) / 1000 + 1, 1, 100);
        tick = gpr_time_add (gpr_now (GPR_CLOCK_REALTIME), gpr_time_from_millis (wait_ms, GPR_TIMESPAN));
        event = grpc_completion_queue_next (queue, tick, NULL);
        if (event.type == GRPC_OP_COMPLETE)
          break;
        if (cancel_at < 0 && g_cancellable_is_cancelled (cancellable))
          {
            if (before_cancel != NULL)
              {
                before_cancel (before_cancel_data);
                cancel_at = g_get_monotonic_time () + MAX (grace_ms, 0) * 1000;
              }
            else
              cancel_at = 0;
          }
        if (!cancelled && cancel_at >= 0 && g_get_monotonic_time () >= cancel_at)
          {
            cancelled = TRUE;
            grpc_call_cancel (call, NULL);
          }
      }

  if (status == GRPC_STATUS_OK && recv_buffer != NULL && response != NULL)
    {
      grpc_byte_buffer_reader reader;

      if (grpc_byte_buffer_reader_init (&reader, recv_buffer))
        {
          grpc_slice all = grpc_byte_buffer_reader_readall (&reader);

          *response = g_bytes_new (GRPC_SLICE_START_PTR (all), GRPC_SLICE_LENGTH (all));
          grpc_slice_unref (all);
          grpc_byte_buffer_reader_destroy (&reader);
        }
    }
  if (status == GRPC_STATUS_OK && response != NULL && *response == NULL)
    *response = g_bytes_new (NULL, 0);
  if (details != NULL)
    *details = slice_to_string (status_details);

  grpc_slice_unref (status_details);
  grpc_slice_unref (method_slice);
  grpc_slice_unref (request_slice);
  grpc_byte_buffer_destroy (send_buffer);
  if (recv_buffer != NULL)
    grpc_byte_buffer_destroy (recv_buffer);
  grpc_metadata_array_destroy (&initial_metadata);
  grpc_metadata_array_destroy (&trailing_metadata);
  grpc_call_unref (call);
  grpc_completion_queue_shutdown (queue);
  while (grpc_completion_queue_next (queue, gpr_inf_future (GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN)
    ;
  grpc_completion_queue_destroy (queue);
  grpc_channel_destroy (channel);
  return cancelled && status == GRPC_STATUS_CANCELLED ? PLANAR_GRPC_CANCELLED : (PlanarGrpcStatus) status;
}

/* ------------------------------------------------------------------------
 * A plain look at a listener
 * ------------------------------------------------------------------------ */

/* Splits "host:port" and "[v6]:port". */
static gboolean
split_target (const char  *target,
              char       **host,
              char       **port)
{
  const char *colon;

  if (target[0] == '[')
    {
      const char *close = strchr (target, ']');

      if (close == NULL || close[1] != ':' || close[2] == '\0')
        return FALSE;
      *host = g_strndup (target + 1, (gsize) (close - target - 1));
      *port = g_strdup (close + 2);
      return TRUE;
    }
  colon = strrchr (target, ':');
  if (colon == NULL || colon == target || colon[1] == '\0')
    return FALSE;
  *host = g_strndup (target, (gsize) (colon - target));
  *port = g_strdup (colon + 1);
  return TRUE;
}

/* Waits for @events on @fd until @end (monotonic µs), in 100 ms slices
 * that look at @cancellable. Returns 1 when ready, 0 at @end, -1 when
 * cancelled. */
static int
wait_fd (int           fd,
         short         events,
         gint64        end,
         GCancellable *cancellable)
{
  for (;;)
    {
      struct pollfd p = { fd, events, 0 };
      gint64 left = end - g_get_monotonic_time ();
      int n;

      if (g_cancellable_is_cancelled (cancellable))
        return -1;
      if (left <= 0)
        return 0;
      n = poll (&p, 1, (int) MIN (left / 1000 + 1, 100));
      if (n > 0)
        return 1;
      if (n < 0 && errno != EINTR)
        return 1;
    }
}

/* @data as text for people: printable ASCII kept, the rest \xNN. */
static char *
escape_bytes (const guint8 *data,
              gsize         len)
{
  GString *out = g_string_new (NULL);

  for (gsize i = 0; i < len; i++)
    if (data[i] >= 0x20 && data[i] < 0x7f && data[i] != '\\')
      g_string_append_c (out, (char) data[i]);
    else if (data[i] == '\r' && i + 1 < len && data[i + 1] == '\n')
      break;
    else
      g_string_append_printf (out, "\\x%02x", data[i]);
  return g_string_free (out, FALSE);
}

PlanarGrpcProbe
planar_grpc_probe (const char    *target,
                   gint64         timeout_ms,
                   GCancellable  *cancellable,
                   char         **details)
{
  /* The client preface (RFC 9113 §3.4) and an empty SETTINGS frame. */
  static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" "\0\0\0\4\0\0\0\0\0";
  g_autofree char *host = NULL;
  g_autofree char *port = NULL;
  struct addrinfo hints, *list = NULL;
  gint64 end = g_get_monotonic_time () + MAX (timeout_ms, 1) * 1000;
  PlanarGrpcProbe result = PLANAR_GRPC_PROBE_UNREACHED;
  int fd = -1, rc, last_error = 0;
  gboolean timed_out = FALSE;
  guint8 answer[64];
  gsize got = 0;

  if (details != NULL)
    *details = NULL;
  if (!split_target (target, &host, &port))
    return PLANAR_GRPC_PROBE_UNREACHED;
  memset (&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  rc = getaddrinfo (host, port, &hints, &list);
  if (rc != 0)
    {
      if (details != NULL)
        *details = g_strdup (gai_strerror (rc));
      return PLANAR_GRPC_PROBE_UNREACHED;
    }

  /* Every address in turn, as gRPC would. */
  result = PLANAR_GRPC_PROBE_REFUSED;
  for (struct addrinfo *a = list; a != NULL && fd < 0; a = a->ai_next)
    {
      int s = socket (a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
      int error = 0;
      socklen_t error_len = sizeof error;

      if (s < 0)
        {
          last_error = errno;
          continue;
        }
      if (connect (s, a->ai_addr, a->ai_addrlen) != 0)
        {
          if (errno != EINPROGRESS)
            error = errno;
          else
            switch (wait_fd (s, POLLOUT, end, cancellable))
              {
              case -1:
                close (s);
                freeaddrinfo (list);
                return PLANAR_GRPC_PROBE_CANCELLED;
              case 0:
                error = ETIMEDOUT;
                timed_out = TRUE;
                break;
              default:
                if (getsockopt (s, SOL_SOCKET, SO_ERROR, &error, &error_len) != 0)
                  error = errno;
              }
        }
      if (error == 0)
        fd = s;
      else
        {
          close (s);
          last_error = error;
          if (error != ECONNREFUSED)
            result = timed_out ? PLANAR_GRPC_PROBE_NO_CONNECTION : PLANAR_GRPC_PROBE_UNREACHED;
        }
    }
  freeaddrinfo (list);
  if (fd < 0)
    {
      if (details != NULL)
        *details = g_strdup (g_strerror (last_error != 0 ? last_error : ECONNREFUSED));
      return result;
    }

  /* Connected: say hello in HTTP/2 and read what comes back. */
  if (send (fd, preface, sizeof preface - 1, MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET)
    {
      if (details != NULL)
        *details = g_strdup (g_strerror (errno));
      close (fd);
      return PLANAR_GRPC_PROBE_NOT_HTTP2;
    }
  result = PLANAR_GRPC_PROBE_SILENT;
  while (got < 9)
    {
      ssize_t n;

      rc = wait_fd (fd, POLLIN, end, cancellable);
      if (rc < 0)
        {
          result = PLANAR_GRPC_PROBE_CANCELLED;
          break;
        }
      if (rc == 0)
        {
          result = got == 0 ? PLANAR_GRPC_PROBE_SILENT : PLANAR_GRPC_PROBE_NOT_HTTP2;
          break;
        }
      n = recv (fd, answer + got, sizeof answer - got, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n <= 0)
        {
          /* Closed (or reset) before a whole frame header. */
          result = PLANAR_GRPC_PROBE_NOT_HTTP2;
          if (details != NULL && got == 0)
            *details = g_strdup (n < 0 ? g_strerror (errno) : "it closed the connection without answering");
          break;
        }
      got += (gsize) n;
    }
  if (got >= 9)
    {
      /* A SETTINGS frame (type 4) on stream 0, not an acknowledgement. */
      guint32 stream = ((guint32) (answer[5] & 0x7f) << 24) | ((guint32) answer[6] << 16) | ((guint32) answer[7] << 8)
                       | answer[8];

      if (answer[3] == 0x4 && (answer[4] & 0x1) == 0 && stream == 0)
        result = PLANAR_GRPC_PROBE_HTTP2;
      else
        {
          ssize_t n;

          /* More of the answer, when it is already there, for the message. */
          if (got < sizeof answer && (n = recv (fd, answer + got, sizeof answer - got, MSG_DONTWAIT)) > 0)
            got += (gsize) n;
          result = PLANAR_GRPC_PROBE_NOT_HTTP2;
        }
    }
  if (result == PLANAR_GRPC_PROBE_NOT_HTTP2 && got > 0 && details != NULL)
    {
      g_autofree char *text = escape_bytes (answer, got);

      /* A TLS record (alert 21, handshake 22) to a plain-text hello. */
      if ((answer[0] == 21 || answer[0] == 22) && got >= 3 && answer[1] == 3)
        *details = g_strdup_printf ("it answered in TLS, and Planar speaks gRPC without TLS: “%s”", text);
      else
        *details = g_strdup_printf ("it answered “%s”", text);
    }
  close (fd);
  return result;
}
