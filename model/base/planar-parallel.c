/* planar-parallel.c: the one worker pool of the model.
 *
 * planar_parallel_run() runs @n_jobs jobs on at most
 * planar_parallel_max_threads() threads, the calling thread being one of
 * them, and returns when every started job has returned. Jobs are taken in
 * @order (job indexes, the first taken first: callers put their biggest jobs
 * first), or in index order when @order is NULL. Once a job fails or
 * @cancellable is cancelled no further job starts. The error returned is
 * the cancellation when there was one, else the failed job's with the
 * lowest index among those that failed, so that it does not depend on how
 * the threads ran.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-parallel.h"

typedef struct
{
  guint               n_jobs;
  const guint        *order;
  PlanarParallelFunc  func;
  gpointer            data;
  GCancellable       *cancellable;
  gint                next;       /* atomic: the next position in @order */
  gint                stopped;    /* atomic */
  GMutex              lock;
  guint               failed_job; /* under @lock */
  GError             *failed;     /* under @lock */
} Run;

guint
planar_parallel_max_threads (void)
{
  return MAX (1u, MIN ((guint) g_get_num_processors (), 8u));
}

static gpointer
worker (gpointer user_data)
{
  Run *run = user_data;

  while (!g_atomic_int_get (&run->stopped))
    {
      gint position = g_atomic_int_add (&run->next, 1);
      g_autoptr(GError) error = NULL;
      guint job;

      if (position < 0 || (guint) position >= run->n_jobs)
        break;
      if (g_cancellable_is_cancelled (run->cancellable))
        {
          g_atomic_int_set (&run->stopped, 1);
          break;
        }
      job = run->order != NULL ? run->order[position] : (guint) position;
      if (run->func (job, run->data, run->cancellable, &error))
        continue;
      g_atomic_int_set (&run->stopped, 1);
      g_mutex_lock (&run->lock);
      if (run->failed == NULL || job < run->failed_job)
        {
          g_clear_error (&run->failed);
          run->failed = g_steal_pointer (&error);
          run->failed_job = job;
          if (run->failed == NULL)
            g_set_error_literal (&run->failed, G_IO_ERROR, G_IO_ERROR_FAILED, "a worker failed without saying why");
        }
      g_mutex_unlock (&run->lock);
    }
  return NULL;
}

gboolean
planar_parallel_run (guint               n_jobs,
                     const guint        *order,
                     PlanarParallelFunc  func,
                     gpointer            data,
                     GCancellable       *cancellable,
                     GError            **error)
{
  Run run = { n_jobs, order, func, data, cancellable, 0, 0, { 0 }, 0, NULL };
  guint n_threads = MIN (planar_parallel_max_threads (), MAX (n_jobs, 1u));
  GThread *threads[8];
  guint n_started = 0;

  g_return_val_if_fail (func != NULL, FALSE);

  g_mutex_init (&run.lock);
  for (guint i = 1; i < n_threads; i++)
    {
      GThread *thread = g_thread_try_new ("planar-worker", worker, &run, NULL);

      /* Fewer threads only make it slower. */
      if (thread != NULL)
        threads[n_started++] = thread;
    }
  worker (&run);
  for (guint i = 0; i < n_started; i++)
    g_thread_join (threads[i]);
  g_mutex_clear (&run.lock);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      g_clear_error (&run.failed);
      return FALSE;
    }
  if (run.failed != NULL)
    {
      g_propagate_error (error, run.failed);
      return FALSE;
    }
  return TRUE;
}
