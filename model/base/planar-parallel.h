/* planar-parallel.h: the one worker pool of the model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Runs job @job. Returns FALSE with @error set when it failed. Called on any
 * thread, the caller's included. */
typedef gboolean (*PlanarParallelFunc) (guint          job,
                                        gpointer       data,
                                        GCancellable  *cancellable,
                                        GError       **error);

guint    planar_parallel_max_threads (void);

/* How much lower than their starter the pool's threads run once
 * planar_parallel_set_background() is on (nice values, up to 19). */
#define PLANAR_PARALLEL_BACKGROUND_NICE 10

/* With @background, the threads the pool starts (not the caller, which
 * works too) run PLANAR_PARALLEL_BACKGROUND_NICE below the thread that
 * started them, so that a load never takes a core from the thread that
 * draws: the application sets it, planar-cli does not. Any thread. */
void     planar_parallel_set_background (gboolean background);
gboolean planar_parallel_get_background (void);

gboolean planar_parallel_run         (guint               n_jobs,
                                      const guint        *order,
                                      PlanarParallelFunc  func,
                                      gpointer            data,
                                      GCancellable       *cancellable,
                                      GError            **error);

/* planar_parallel_run() on up to @n_threads threads (the caller's
 * included; 0 for planar_parallel_max_threads()) instead of the CPU bound,
 * for jobs that wait rather than compute and must all be under way at
 * once: a capture's hosts, which record over the same seconds. With
 * @n_threads >= @n_jobs no job waits for another to end. */
gboolean planar_parallel_run_threads (guint               n_threads,
                                      guint               n_jobs,
                                      const guint        *order,
                                      PlanarParallelFunc  func,
                                      gpointer            data,
                                      GCancellable       *cancellable,
                                      GError            **error);

G_END_DECLS
