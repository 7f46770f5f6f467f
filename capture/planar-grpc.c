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
#include <string.h>

const char *
planar_grpc_status_name (PlanarGrpcStatus status)
{
  static const char * const names[] = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
  };

  if ((guint) status < G_N_ELEMENTS (names))
    return names[status];
  return "UNKNOWN";
}

static gpointer
init_grpc (gpointer data)
{
  grpc_init ();
  return NULL;
}

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
  grpc_slice status_details = grpc_empty_slice ();
  grpc_op ops[6];
  gpr_timespec deadline;
  gboolean cancelled = FALSE;
  gsize len = 0;
  const void *data = g_bytes_get_data (request, &len);

  g_once (&once, init_grpc, NULL);
  if (response != NULL)
    *response = NULL;

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
        gpr_timespec tick = gpr_time_add (gpr_now (GPR_CLOCK_REALTIME), gpr_time_from_millis (100, GPR_TIMESPAN));
        grpc_event event = grpc_completion_queue_next (queue, tick, NULL);

        if (event.type == GRPC_OP_COMPLETE)
          break;
        if (!cancelled && g_cancellable_is_cancelled (cancellable))
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
