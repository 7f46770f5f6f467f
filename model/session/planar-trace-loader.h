/* planar-trace-loader.h: loads one host file, step by step.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace.h"

G_BEGIN_DECLS

/* A load runs as steps that never call back up, each below the next:
 *
 *   open     map the file, tell an XSpace from Chrome JSON by its name or
 *            bytes, import JSON into an XSpace, scan its structure
 *            ("Reading structure");
 *   restore  the cached index of this very file, when there is a sound one
 *            ("Restoring cached index"), or else
 *   decode   every line, the file's tracks published as they are built
 *            ("Decoding lines"), then
 *   derive   the lines XProf derives ("Deriving lines") and the flow index
 *            ("Linking flows"), then
 *   store    the index in the cache, later, on a thread of its own.
 *
 * The steps run on the thread that calls them (planar_trace_loader_open(),
 * planar_trace_loader_decode()) or on a thread of their own (_load_async(),
 * lowered while planar_parallel_set_background() is on). Whatever
 * thread they run on, the loader's "fraction" and "message" are notified,
 * and "tracks-changed" emitted, from one idle at a time in the main context
 * of the thread that made the loader: never more often than the main loop
 * runs, and never on a worker. */

#define PLANAR_TYPE_TRACE_LOADER (planar_trace_loader_get_type ())
G_DECLARE_FINAL_TYPE (PlanarTraceLoader, planar_trace_loader, PLANAR, TRACE_LOADER, GObject)

/* Returns: (transfer full). */
PlanarTraceLoader *planar_trace_loader_new           (const char          *path);
const char        *planar_trace_loader_get_path      (PlanarTraceLoader   *self);
/* The trace, once opened. Returns: (transfer none) (nullable). */
PlanarTrace       *planar_trace_loader_get_trace     (PlanarTraceLoader   *self);

/* Whether the derived lines and flows are made ("derive", default TRUE;
 * the load benchmark measures the decode alone) and whether the cached
 * index is used ("use-cache", default TRUE, and only while
 * planar_cache_get_enabled()). Set before the decode. */
void               planar_trace_loader_set_derive    (PlanarTraceLoader   *self,
                                                      gboolean             derive);
void               planar_trace_loader_set_use_cache (PlanarTraceLoader   *self,
                                                      gboolean             use_cache);

/* Whether the decode checks every event stat as it reads the events, so
 * that planar_trace_count_damaged_stats() answers at once instead of
 * reading the whole file again (default FALSE: the check costs the decode
 * a little, and a viewer counts only when Trace Health is opened).
 * planar-cli sets it for the commands that count. A trace restored from
 * the cached index is counted by planar_trace_count_damaged_stats() as
 * before. Set before the decode. */
void               planar_trace_loader_set_count_stats (PlanarTraceLoader *self,
                                                        gboolean           count_stats);

/* Holding the derive step until a viewer has drawn the file's tracks.
 * Once the decode has published the file's tracks and read the HLO (from
 * which a viewer predicts the derived lines to come), a held load waits
 * before deriving lines until
 * planar_trace_loader_release_derive() is called, the load is cancelled,
 * or @max_wait_ms pass from the moment the tracks were published, so that
 * nothing waits for a viewer that never draws. A window calls it before
 * the load so that the frames drawing the first tracks do not share the
 * cores with the derive pass; planar_trace_load() and planar-cli never
 * hold. A restore from the cached index derives nothing and never waits.
 * Set before the decode, from the thread that made the loader. */
void               planar_trace_loader_hold_derive   (PlanarTraceLoader   *self,
                                                      guint                max_wait_ms);
/* Lets a held load go on (now, or at once when it reaches the hold).
 * Any thread, any time: before the load, during, after it ended or was
 * cancelled; a second call does nothing. */
void               planar_trace_loader_release_derive (PlanarTraceLoader  *self);

/* The open step. Any thread; blocks. */
gboolean           planar_trace_loader_open          (PlanarTraceLoader   *self,
                                                      GCancellable        *cancellable,
                                                      GError             **error);
/* The other steps, on an opened loader whose host was placed in time
 * (planar_trace_set_time_offset()). Any thread; blocks. */
gboolean           planar_trace_loader_decode        (PlanarTraceLoader   *self,
                                                      GCancellable        *cancellable,
                                                      GError             **error);
/* Every step on a worker thread. */
void               planar_trace_loader_load_async    (PlanarTraceLoader   *self,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
/* Returns: (transfer full): the decoded trace. */
PlanarTrace       *planar_trace_loader_load_finish   (PlanarTraceLoader   *self,
                                                      GAsyncResult        *result,
                                                      GError             **error);

/* 0 to 1 over the steps. Any thread. */
double             planar_trace_loader_get_fraction  (PlanarTraceLoader   *self);
/* The step under way, in words for people (translated), or NULL before the
 * first and after the last. Returns: (transfer full) (nullable). Any thread. */
char              *planar_trace_loader_dup_message   (PlanarTraceLoader   *self);

/* The loader's steps on this thread, without an object to watch: every
 * step on @path (Returns: (transfer full)), or the decode steps on a trace
 * planar_trace_open() made. */
PlanarTrace       *planar_trace_load                 (const char          *path,
                                                      GCancellable        *cancellable,
                                                      GError             **error);
gboolean           planar_trace_decode               (PlanarTrace         *trace,
                                                      GCancellable        *cancellable,
                                                      GError             **error);

G_END_DECLS
