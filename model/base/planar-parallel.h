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

G_END_DECLS
