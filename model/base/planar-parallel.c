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
 * planar_parallel_run_threads() is the same pool with the number of
 * threads chosen by the caller. It exists for work that waits on the
 * network: a capture asks every host at once, and a host records for as
 * long as the capture lasts, so that a pool bounded by the processors would
 * start the ninth host only when the first had finished recording, over
 * other seconds. GLib's GTask pool would not do either: it grows only
 * while its threads stay busy, a step at a time, and its tasks cannot be
 * joined. Every thread started here is joined before the call returns.
 *
 * planar_parallel_run_task() runs a load's GTask on a thread started for
 * it, which ends with it: in the background (a window draws) the load's
 * own thread, which works as one of the pool's too, can be lowered
 * (PLANAR_PARALLEL_TASK_NICE, 0 for now: see planar-parallel.h), which a
 * thread of GTask's pool could not be (see lower_priority()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-parallel.h"

#include <glib/gi18n-lib.h>
#ifdef __linux__
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

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
  gboolean            background;
} Run;

static gint background_threads; /* atomic */
/* The nice value the background's threads take at least (atomic): the
 * pool's, and a load's own. */
static gint background_nice = PLANAR_PARALLEL_BACKGROUND_NICE;
static gint task_nice = PLANAR_PARALLEL_TASK_NICE;

static int own_nice (void);

void
planar_parallel_set_background (gboolean background)
{
  if (background)
    {
      int own = own_nice ();

      g_atomic_int_set (&background_nice, MIN (own + PLANAR_PARALLEL_BACKGROUND_NICE, 19));
      g_atomic_int_set (&task_nice, MIN (own + PLANAR_PARALLEL_TASK_NICE, 19));
    }
  g_atomic_int_set (&background_threads, !!background);
}

gboolean
planar_parallel_get_background (void)
{
  return g_atomic_int_get (&background_threads);
}

guint
planar_parallel_max_threads (void)
{
  return MAX (1u, MIN ((guint) g_get_num_processors (), 8u));
}

guint
planar_parallel_cut_parts (PlanarParallelCut *cut,
                           gsize              n_items)
{
  guint n_parts = cut->n_parts != 0 ? cut->n_parts : planar_parallel_max_threads ();

  if (n_items < (cut->min != 0 ? cut->min : cut->default_min))
    return 1;
  n_parts = (guint) MIN ((gsize) n_parts, n_items);
  if (n_parts < 2)
    return 1;
  g_atomic_int_inc (&cut->n_cut);
  return n_parts;
}

void
planar_parallel_cut_set (PlanarParallelCut *cut,
                         gsize              min,
                         guint              n_parts)
{
  cut->min = min;
  cut->n_parts = n_parts;
}

guint
planar_parallel_cut_count (PlanarParallelCut *cut)
{
  return (guint) g_atomic_int_get (&cut->n_cut);
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
            g_set_error_literal (&run->failed, G_IO_ERROR, G_IO_ERROR_FAILED, _("a worker failed without saying why"));
        }
      g_mutex_unlock (&run->lock);
    }
  return NULL;
}

/* The calling thread's nice value (0 where threads have none of their own). */
static int
own_nice (void)
{
#ifdef __linux__
  int nice;

  errno = 0;
  nice = getpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid));
  if (errno == 0)
    return nice;
#endif
  return 0;
}

/* On Linux a thread's nice value is its own (setpriority() on its id),
 * and a thread starts with its starter's; it cannot be raised back
 * without privileges, which is why only threads that end with their work
 * are lowered: the pool's, and planar_parallel_run_task()'s. A thread
 * started by a lowered one is lowered already. */
static void
lower_priority (const gint *level)
{
#ifdef __linux__
  int nice = own_nice ();
  int target = g_atomic_int_get (level);

  if (nice < target)
    (void) setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), target);
#else
  (void) level;
#endif
}

static gpointer
pool_thread (gpointer user_data)
{
  Run *run = user_data;

  if (run->background)
    lower_priority (&background_nice);
  return worker (run);
}

gboolean
planar_parallel_run (guint               n_jobs,
                     const guint        *order,
                     PlanarParallelFunc  func,
                     gpointer            data,
                     GCancellable       *cancellable,
                     GError            **error)
{
  return planar_parallel_run_threads (0, n_jobs, order, func, data, cancellable, error);
}

gboolean
planar_parallel_run_threads (guint               n_threads,
                             guint               n_jobs,
                             const guint        *order,
                             PlanarParallelFunc  func,
                             gpointer            data,
                             GCancellable       *cancellable,
                             GError            **error)
{
  Run run = { n_jobs, order, func, data, cancellable, 0, 0, { 0 }, 0, NULL, planar_parallel_get_background () };
  g_autofree GThread **threads = NULL;
  guint n_started = 0;

  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (n_jobs <= G_MAXINT, FALSE);

  if (n_threads == 0)
    n_threads = planar_parallel_max_threads ();
  n_threads = MIN (n_threads, MAX (n_jobs, 1u));
  threads = g_new (GThread *, n_threads);
  g_mutex_init (&run.lock);
  for (guint i = 1; i < n_threads; i++)
    {
      GThread *thread = g_thread_try_new ("planar-worker", pool_thread, &run, NULL);

      /* Fewer threads only make it slower (waiting jobs, later). */
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

typedef struct
{
  GTask           *task;
  GTaskThreadFunc  func;
} TaskThread;

static gpointer
task_thread (gpointer user_data)
{
  TaskThread *tt = user_data;
  GTask *task = tt->task;

  if (planar_parallel_get_background ())
    lower_priority (&task_nice);
  tt->func (task, g_task_get_source_object (task), g_task_get_task_data (task), g_task_get_cancellable (task));
  g_free (tt);
  /* The task's callback runs in its context, from an idle that holds its
   * own reference. */
  g_object_unref (task);
  return NULL;
}

void
planar_parallel_run_task (GTask           *task,
                          GTaskThreadFunc  task_func)
{
  TaskThread *tt;
  GThread *thread;

  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (task_func != NULL);
  g_return_if_fail (!g_task_get_return_on_cancel (task));

  tt = g_new (TaskThread, 1);
  tt->task = g_object_ref (task);
  tt->func = task_func;
  thread = g_thread_try_new ("planar-load", task_thread, tt, NULL);
  if (thread != NULL)
    {
      g_thread_unref (thread);
      return;
    }
  /* No thread to be had: GTask's pool, at the priority it has. */
  g_object_unref (tt->task);
  g_free (tt);
  g_task_run_in_thread (task, task_func);
}
