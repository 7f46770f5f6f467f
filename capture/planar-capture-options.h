/* planar-capture-options.h: what a remote capture asks for, as a plain
 * object (the Capture Profile dialog is a view of it; the CLI fills it from
 * its arguments).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The type of an advanced_configuration value (docs/formats.md §6.4). */
typedef enum
{
  PLANAR_CAPTURE_VALUE_STRING,
  PLANAR_CAPTURE_VALUE_BOOL,
  PLANAR_CAPTURE_VALUE_INT64,
} PlanarCaptureValueType;

#define PLANAR_TYPE_CAPTURE_OPTIONS (planar_capture_options_get_type ())
G_DECLARE_FINAL_TYPE (PlanarCaptureOptions, planar_capture_options, PLANAR, CAPTURE_OPTIONS, GObject)

/* Properties, one per option:
 *   "addresses"            host:port[,host:port...] (an optional grpc://)
 *   "logdir"               the log directory the session folder goes in
 *   "duration-ms"          capture length (default 1000)
 *   "host-tracer-level"    0 off, 1 critical, 2 info (default), 3 verbose
 *   "device-tracer-level"  0 off, 1 on (default)
 *   "python-tracer-level"  0 off (default), 1 on
 *   "retries"              attempts after a server that is unavailable, or
 *                          whose stream was removed (default 3)
 *   "busy-wait-ms"         how long a server busy with another profiling
 *                          session is asked again, every
 *                          PLANAR_CAPTURE_BUSY_PAUSE_MS (default 15000; 0:
 *                          not at all). A real server stays busy after a
 *                          Terminate while it collects what it recorded
 *   "delay-ms"             start delay; -1 (default) is 0 for one address
 *                          and 3000 for several, so that they start together
 *   "deadline-floor-ms"    the shortest wait for an answer (default 60000);
 *                          the deadline is max(floor, 2 x duration) + delay
 *   "raise-error-on-start-failure"  fail when a tracer cannot start */

#define PLANAR_CAPTURE_BUSY_WAIT_MS_DEFAULT 15000
#define PLANAR_CAPTURE_BUSY_PAUSE_MS        500

PlanarCaptureOptions *planar_capture_options_new            (void);

/* Advanced options, kept in the order set; setting a key again replaces
 * its value. */
void         planar_capture_options_set_option     (PlanarCaptureOptions   *self,
                                                    const char             *key,
                                                    PlanarCaptureValueType  type,
                                                    const char             *value);
gboolean     planar_capture_options_remove_option  (PlanarCaptureOptions   *self,
                                                    const char             *key);
void         planar_capture_options_clear_options  (PlanarCaptureOptions   *self);
guint        planar_capture_options_get_n_options  (PlanarCaptureOptions   *self);
/* @key and @value: (transfer none). */
void         planar_capture_options_get_option     (PlanarCaptureOptions   *self,
                                                    guint                   index,
                                                    const char            **key,
                                                    PlanarCaptureValueType *type,
                                                    const char            **value);
/* "KEY=VALUE" (true/false a bool, an integer an int64, else a string) or
 * "KEY:string=VALUE", "KEY:bool=VALUE", "KEY:int=VALUE". */
gboolean     planar_capture_options_parse_option   (PlanarCaptureOptions   *self,
                                                    const char             *text,
                                                    GError                **error);

/* The addresses, checked (host:port, port 1-65535, no duplicates) and
 * normalized. Returns: (transfer full) (nullable). */
GStrv        planar_capture_options_dup_addresses  (PlanarCaptureOptions   *self,
                                                    GError                **error);
/* Checks every option; %G_IO_ERROR_INVALID_ARGUMENT with a message for
 * people on the first problem. */
gboolean     planar_capture_options_validate       (PlanarCaptureOptions   *self,
                                                    GError                **error);
/* A warning for options that will not do what they seem: a GPU tracer
 * rejects the whole option set, and silently records nothing, when any
 * advanced key is not one of its `gpu_` keys (docs/formats.md §6.4). Returns:
 * (transfer full) (nullable). */
char        *planar_capture_options_dup_warning    (PlanarCaptureOptions   *self);

/* The delay used with @n_addresses addresses, ms. */
guint        planar_capture_options_get_effective_delay_ms (PlanarCaptureOptions *self,
                                                            guint                 n_addresses);
/* How long one attempt may wait for its answer, ms. */
gint64       planar_capture_options_get_deadline_ms (PlanarCaptureOptions  *self,
                                                     guint                  n_addresses);

/* The serialized ProfileRequest for @address: opts.version 1, durations,
 * tracer levels, start_timestamp_ns (@start_ns, 0 for now), advanced
 * options, emit_xspace, and repository_root, session_id and host_name for
 * servers that ignore emit_xspace. Returns: (transfer full). */
GBytes      *planar_capture_options_build_request  (PlanarCaptureOptions   *self,
                                                    const char             *address,
                                                    const char             *repository_root,
                                                    const char             *session_id,
                                                    guint64                 start_ns);

G_END_DECLS
