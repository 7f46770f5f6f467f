/* test-parallel.c: the model's one worker pool (model/base/planar-parallel.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-parallel.h"

#include <string.h>
#ifdef __linux__
#include "planar-test-threads.h"
#endif

#define N_JOBS 1000

typedef struct
{
  gint     runs[N_JOBS];
  guint    fail_from;    /* jobs >= this fail */
  GCancellable *cancel_at_job_cancellable;
  guint    cancel_at;
} Data;

static gboolean
count_job (guint          job,
           gpointer       user_data,
           GCancellable  *cancellable,
           GError       **error)
{
  Data *data = user_data;

  g_atomic_int_inc (&data->runs[job]);
  if (data->cancel_at_job_cancellable != NULL && job == data->cancel_at)
    g_cancellable_cancel (data->cancel_at_job_cancellable);
  if (job >= data->fail_from)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "job %u failed", job);
      return FALSE;
    }
  return TRUE;
}

static void
test_every_job_once (void)
{
  Data data = { .fail_from = G_MAXUINT };
  g_autofree guint *order = g_new (guint, N_JOBS);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < N_JOBS; i++)
    order[i] = N_JOBS - 1 - i;
  g_assert_true (planar_parallel_run (N_JOBS, order, count_job, &data, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < N_JOBS; i++)
    g_assert_cmpint (data.runs[i], ==, 1);

  memset (data.runs, 0, sizeof data.runs);
  g_assert_true (planar_parallel_run (N_JOBS, NULL, count_job, &data, NULL, &error));
  for (guint i = 0; i < N_JOBS; i++)
    g_assert_cmpint (data.runs[i], ==, 1);

  g_assert_true (planar_parallel_run (0, NULL, count_job, &data, NULL, &error));
  g_assert_cmpuint (planar_parallel_max_threads (), >=, 1);
  g_assert_cmpuint (planar_parallel_max_threads (), <=, 8);
}

/* Every job fails: whichever threads ran which, the error is job 0's (the
 * order puts it last, so it is taken after others have failed only if the
 * pool kept going; it is not, so the lowest failed index is reported). */
static void
test_first_error_in_job_order (void)
{
  for (guint round = 0; round < 20; round++)
    {
      Data data = { .fail_from = 0 };
      g_autoptr(GError) error = NULL;
      guint order[] = { 7, 3, 5, 1, 2 };

      g_assert_false (planar_parallel_run (G_N_ELEMENTS (order), order, count_job, &data, NULL, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      {
        guint lowest = G_MAXUINT;

        for (guint i = 0; i < 8; i++)
          if (data.runs[i] > 0 && i < lowest)
            lowest = i;
        g_autofree char *expected = g_strdup_printf ("job %u failed", lowest);
        g_assert_cmpstr (error->message, ==, expected);
      }
    }
}

/* After a failure no further job starts. */
static void
test_failure_stops (void)
{
  Data data = { .fail_from = 0 };
  g_autoptr(GError) error = NULL;
  guint started = 0;

  g_assert_false (planar_parallel_run (N_JOBS, NULL, count_job, &data, NULL, &error));
  for (guint i = 0; i < N_JOBS; i++)
    started += (guint) data.runs[i];
  /* At most one job per thread can have started before the stop. */
  g_assert_cmpuint (started, <=, planar_parallel_max_threads ());
}

static void
test_cancelled (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Data data = { .fail_from = G_MAXUINT, .cancel_at_job_cancellable = cancellable, .cancel_at = 3 };
  g_autoptr(GError) error = NULL;
  guint started = 0;

  g_assert_false (planar_parallel_run (N_JOBS, NULL, count_job, &data, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  for (guint i = 0; i < N_JOBS; i++)
    started += (guint) data.runs[i];
  g_assert_cmpuint (started, <, N_JOBS);

  /* Cancelled before it starts: nothing runs. */
  memset (data.runs, 0, sizeof data.runs);
  g_clear_error (&error);
  g_assert_false (planar_parallel_run (N_JOBS, NULL, count_job, &data, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  for (guint i = 0; i < N_JOBS; i++)
    g_assert_cmpint (data.runs[i], ==, 0);
}

/* Jobs that wait for each other: each holds on until all have started,
 * which only a pool with a thread per job gets through. */
#define N_WAITING 24

typedef struct
{
  GMutex lock;
  GCond  cond;
  guint  started;
} Rendezvous;

static gboolean
meet_job (guint          job,
          gpointer       user_data,
          GCancellable  *cancellable,
          GError       **error)
{
  Rendezvous *r = user_data;
  /* A bound on the wait, not a measure: a pool that cannot run every job
   * at once fails here instead of hanging. */
  gint64 give_up = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  gboolean met;

  g_mutex_lock (&r->lock);
  r->started++;
  g_cond_broadcast (&r->cond);
  while (r->started < N_WAITING && g_cond_wait_until (&r->cond, &r->lock, give_up))
    ;
  met = r->started == N_WAITING;
  g_mutex_unlock (&r->lock);
  if (!met)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "job %u never met the others", job);
  return met;
}

static void
test_explicit_threads (void)
{
  Rendezvous r = { 0 };
  Data data = { .fail_from = G_MAXUINT };
  g_autoptr(GError) error = NULL;

  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  g_assert_true (planar_parallel_run_threads (N_WAITING, N_WAITING, NULL, meet_job, &r, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (r.started, ==, N_WAITING);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);

  /* 0 threads: the CPU bound; and more threads than jobs is fine. */
  g_assert_true (planar_parallel_run_threads (0, N_JOBS, NULL, count_job, &data, NULL, &error));
  g_assert_true (planar_parallel_run_threads (3 * N_JOBS, 10, NULL, count_job, &data, NULL, &error));
  for (guint i = 0; i < N_JOBS; i++)
    g_assert_cmpint (data.runs[i], ==, i < 10 ? 2 : 1);
}

#ifdef __linux__
typedef struct
{
  Rendezvous rendezvous;
  GThread   *caller;
  int        nice[N_WAITING];
  gboolean   on_caller[N_WAITING];
  int        start_nice;
} NiceProbe;

/* Every job on a thread of its own (they wait for each other), saying
 * how nice its thread is. */
static gboolean
nice_job (guint          job,
          gpointer       user_data,
          GCancellable  *cancellable,
          GError       **error)
{
  NiceProbe *probe = user_data;

  probe->nice[job] = planar_test_thread_nice ();
  probe->on_caller[job] = g_thread_self () == probe->caller;
  return meet_job (job, &probe->rendezvous, cancellable, error);
}

static void
probe_nice (NiceProbe *probe)
{
  g_autoptr(GError) error = NULL;

  memset (probe, 0, sizeof *probe);
  g_mutex_init (&probe->rendezvous.lock);
  g_cond_init (&probe->rendezvous.cond);
  probe->caller = g_thread_self ();
  g_assert_true (planar_parallel_run_threads (N_WAITING, N_WAITING, NULL, nice_job, probe, NULL, &error));
  g_assert_no_error (error);
  g_mutex_clear (&probe->rendezvous.lock);
  g_cond_clear (&probe->rendezvous.cond);
}

/* In the background the pool's threads yield to the caller's kind (the
 * application's main thread): lower by PLANAR_PARALLEL_BACKGROUND_NICE, up
 * to the lowest, 19; the caller keeps its own; by default nothing moves. */
static void
test_background (void)
{
  int own = planar_test_thread_nice ();
  int lowered = MIN (own + PLANAR_PARALLEL_BACKGROUND_NICE, 19);
  NiceProbe probe;
  guint n_workers = 0;

  g_assert_false (planar_parallel_get_background ());
  probe_nice (&probe);
  for (guint i = 0; i < N_WAITING; i++)
    g_assert_cmpint (probe.nice[i], ==, own);

  planar_parallel_set_background (TRUE);
  g_assert_true (planar_parallel_get_background ());
  probe_nice (&probe);
  planar_parallel_set_background (FALSE);
  for (guint i = 0; i < N_WAITING; i++)
    {
      g_assert_cmpint (probe.nice[i], ==, probe.on_caller[i] ? own : lowered);
      n_workers += !probe.on_caller[i];
    }
  g_assert_cmpuint (n_workers, ==, N_WAITING - 1);
  g_assert_cmpint (planar_test_thread_nice (), ==, own);
}

static gpointer
probe_from_lowered_thread (gpointer data)
{
  NiceProbe *probe = data;

  /* As planar_parallel_run_task()'s thread does as it starts. */
  g_assert_cmpint (setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), probe->start_nice), ==, 0);
  probe_nice (probe);
  return NULL;
}

/* A load's own thread, lowered, starts the pool's threads: they run at
 * the background's level, the thread that turned it on's plus
 * PLANAR_PARALLEL_BACKGROUND_NICE, beside their starter, not a further
 * PLANAR_PARALLEL_BACKGROUND_NICE below it. */
static void
test_background_from_lowered (void)
{
  int own = planar_test_thread_nice ();
  int lowered = MIN (own + PLANAR_PARALLEL_BACKGROUND_NICE, 19);
  NiceProbe probe;

  if (lowered == own || lowered == 19)
    {
      g_test_skip ("too low a priority to tell the levels apart");
      return;
    }
  planar_parallel_set_background (TRUE);
  memset (&probe, 0, sizeof probe);
  probe.start_nice = lowered;
  g_thread_join (g_thread_new ("lowered", probe_from_lowered_thread, &probe));
  planar_parallel_set_background (FALSE);
  for (guint i = 0; i < N_WAITING; i++)
    g_assert_cmpint (probe.nice[i], ==, lowered);
  g_assert_cmpint (planar_test_thread_nice (), ==, own);
}
#endif

/* A piece of work is cut from its bound on, in a part per thread of the
 * pool or as a test says, never in more parts than items, and only the
 * cuts are counted. */
static void
test_cut_parts (void)
{
  PlanarParallelCut cut = PLANAR_PARALLEL_CUT_INIT (100);
  guint threads = planar_parallel_max_threads ();

  g_assert_cmpuint (planar_parallel_cut_parts (&cut, 99), ==, 1);
  g_assert_cmpuint (planar_parallel_cut_parts (&cut, 100), ==, threads);
  g_assert_cmpuint (planar_parallel_cut_count (&cut), ==, threads > 1 ? 1 : 0);
  planar_parallel_cut_set (&cut, 3, 5);
  g_assert_cmpuint (planar_parallel_cut_parts (&cut, 2), ==, 1);
  g_assert_cmpuint (planar_parallel_cut_parts (&cut, 4), ==, 4);
  g_assert_cmpuint (planar_parallel_cut_parts (&cut, 99), ==, 5);
  planar_parallel_cut_set (&cut, 0, 1);
  g_assert_cmpuint (planar_parallel_cut_parts (&cut, 1000), ==, 1);
  planar_parallel_cut_set (&cut, 0, 0);
  g_assert_cmpuint (planar_parallel_cut_parts (&cut, 99), ==, 1);
  g_assert_cmpuint (planar_parallel_cut_count (&cut), ==, (threads > 1 ? 1 : 0) + 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/parallel/every-job-once", test_every_job_once);
  g_test_add_func ("/parallel/cut-parts", test_cut_parts);
  g_test_add_func ("/parallel/first-error-in-job-order", test_first_error_in_job_order);
  g_test_add_func ("/parallel/failure-stops", test_failure_stops);
  g_test_add_func ("/parallel/cancelled", test_cancelled);
  g_test_add_func ("/parallel/explicit-threads", test_explicit_threads);
#ifdef __linux__
  g_test_add_func ("/parallel/background", test_background);
  g_test_add_func ("/parallel/background-from-lowered", test_background_from_lowered);
#endif
  return g_test_run ();
}
