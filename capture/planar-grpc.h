/* planar-grpc.h: one unary gRPC call on gRPC's C core, the way Planar
 * talks to a profiler server.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* gRPC status codes Planar tells apart (grpc_status_code's values). */
typedef enum
{
  PLANAR_GRPC_OK                 = 0,
  PLANAR_GRPC_CANCELLED          = 1,
  PLANAR_GRPC_UNKNOWN            = 2,
  PLANAR_GRPC_INVALID_ARGUMENT   = 3,
  PLANAR_GRPC_DEADLINE_EXCEEDED  = 4,
  PLANAR_GRPC_NOT_FOUND          = 5,
  PLANAR_GRPC_ALREADY_EXISTS     = 6,
  PLANAR_GRPC_PERMISSION_DENIED  = 7,
  PLANAR_GRPC_RESOURCE_EXHAUSTED = 8,
  PLANAR_GRPC_FAILED_PRECONDITION = 9,
  PLANAR_GRPC_ABORTED            = 10,
  PLANAR_GRPC_OUT_OF_RANGE       = 11,
  PLANAR_GRPC_UNIMPLEMENTED      = 12,
  PLANAR_GRPC_INTERNAL           = 13,
  PLANAR_GRPC_UNAVAILABLE        = 14,
  PLANAR_GRPC_DATA_LOSS          = 15,
  PLANAR_GRPC_UNAUTHENTICATED    = 16,
  /* Not gRPC's: its library could not be loaded, so no call was made. */
  PLANAR_GRPC_NOT_LOADED         = 17,
} PlanarGrpcStatus;

/* "UNAVAILABLE", "DEADLINE_EXCEEDED", ... */
const char *planar_grpc_status_name (PlanarGrpcStatus status);

/* Calls @method (e.g. "/tensorflow.ProfilerService/Profile") on @target
 * ("host:port") with the serialized @request, over an insecure channel with
 * no size limit on the reply, no proxy and no retries of gRPC's own, and
 * waits at most @deadline_ms. Blocks; @cancellable (checked every 100 ms)
 * cancels the call. Returns the call's status; @details receives gRPC's
 * message and @response (when OK) the serialized reply. */
PlanarGrpcStatus planar_grpc_call (const char    *target,
                                   const char    *method,
                                   GBytes        *request,
                                   gint64         deadline_ms,
                                   GCancellable  *cancellable,
                                   GBytes       **response,
                                   char         **details);

/* Called on the calling thread of planar_grpc_call_full() once its
 * cancellable is cancelled while the call is in flight; it may block
 * (for a call of its own). */
typedef void (*PlanarGrpcBeforeCancel) (gpointer data);

/* planar_grpc_call(), but a cancel runs @before_cancel (when not %NULL)
 * first and then leaves the call @grace_ms more to end by itself before
 * it is cancelled: a server told to stop in @before_cancel sees that
 * before it sees the call go. A call that ends within the grace returns
 * what it returned (OK included); the caller looks at @cancellable. */
PlanarGrpcStatus planar_grpc_call_full (const char              *target,
                                        const char              *method,
                                        GBytes                  *request,
                                        gint64                   deadline_ms,
                                        GCancellable            *cancellable,
                                        PlanarGrpcBeforeCancel   before_cancel,
                                        gpointer                 before_cancel_data,
                                        gint64                   grace_ms,
                                        GBytes                 **response,
                                        char                   **details);

/* What a plain look at @target finds before a gRPC call, so that a listener
 * that is no gRPC server is named as such (gRPC's own channel only says
 * that it failed to connect, and waits 20 s to say it). */
typedef enum
{
  /* It answered the HTTP/2 preface with SETTINGS: a gRPC call may go on. */
  PLANAR_GRPC_PROBE_HTTP2,
  /* The name did not resolve or the network failed: gRPC says the rest. */
  PLANAR_GRPC_PROBE_UNREACHED,
  /* Every address refused the connection: nothing listens there. */
  PLANAR_GRPC_PROBE_REFUSED,
  /* No answer to the connection itself within the time given. */
  PLANAR_GRPC_PROBE_NO_CONNECTION,
  /* Connected; nothing came back within the time given. */
  PLANAR_GRPC_PROBE_SILENT,
  /* Connected; what came back (or the connection closing) is no HTTP/2. */
  PLANAR_GRPC_PROBE_NOT_HTTP2,
  PLANAR_GRPC_PROBE_CANCELLED,
} PlanarGrpcProbe;

/* Connects to @target ("host:port", "[v6]:port") over TCP, sends the
 * HTTP/2 client preface and an empty SETTINGS frame, and reads the first
 * frame back, all within @timeout_ms; @cancellable is checked every 100
 * ms. @details (optional) receives, for people, what was seen: the error,
 * or the first bytes of an answer that is no HTTP/2, escaped. Blocks. */
PlanarGrpcProbe  planar_grpc_probe (const char    *target,
                                    gint64         timeout_ms,
                                    GCancellable  *cancellable,
                                    char         **details);

G_END_DECLS
