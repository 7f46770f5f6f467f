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

/* One large piece of work cut into parts side by side, one per thread of
 * the pool, from @default_min items (PLANAR_PARALLEL_CUT_INIT()); a test
 * may set another bound and number of parts, and counts the cuts. */
typedef struct
{
  gsize default_min;
  /* 0: default_min. */
  gsize min;
  /* 0: planar_parallel_max_threads(). */
  guint n_parts;
  gint  n_cut;
} PlanarParallelCut;

#define PLANAR_PARALLEL_CUT_INIT(min) { (min), 0, 0, 0 }

/* How many parts @n_items are cut into, at most one an item: 1 when they
 * are not cut (fewer than the bound, or one thread). Counts the cuts. */
guint    planar_parallel_cut_parts   (PlanarParallelCut *cut,
                                      gsize              n_items);
/* For tests: the bound (0: the default) and the parts (0: a thread each),
 * and how many cuts were made. */
void     planar_parallel_cut_set     (PlanarParallelCut *cut,
                                      gsize              min,
                                      guint              n_parts);
guint    planar_parallel_cut_count   (PlanarParallelCut *cut);

/* How much lower than the thread that turned planar_parallel_set_background()
 * on the background's threads run (nice values, up to 19). */
#define PLANAR_PARALLEL_BACKGROUND_NICE 10
/* How much lower a load's own thread (planar_parallel_run_task()) runs in
 * the background. 0: lowered at all (10 or 3), the load starved beside
 * another busy process of the same session (the GUI tests under ASan
 * beside another test: /app/derived-rows-still waited 30 s for lines
 * that need the load's thread); the pool's helpers stay lowered. */
#define PLANAR_PARALLEL_TASK_NICE 0

/* With @background, the threads the pool starts (not the caller, which
 * works too) run PLANAR_PARALLEL_BACKGROUND_NICE below the thread that
 * called this (the one that draws), and the threads of
 * planar_parallel_run_task() PLANAR_PARALLEL_TASK_NICE below it, or lower
 * where they already were, so that a load never
 * takes a core from the thread that draws: the application sets it,
 * planar-cli does not. Any thread; the calling one is the reference. */
void     planar_parallel_set_background (gboolean background);
gboolean planar_parallel_get_background (void);

/* Runs @task_func for @task as g_task_run_in_thread() does, but on a
 * thread started for it alone that ends with it, not on GTask's pool:
 * with the background on, that thread first lowers itself (as the pool's
 * threads do), which a pool thread, that other tasks use again after,
 * could not do, since a lowered thread cannot be raised back without
 * privileges. For the loads a window waits for while it draws. The task
 * must not be set to return on cancel. */
void     planar_parallel_run_task    (GTask           *task,
                                      GTaskThreadFunc  task_func);

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
