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
