/* planar-profile.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-profile-private.h"

#include <glib/gi18n-lib.h>

#include "planar-trace-loader.h"
#include "planar-parallel.h"

struct _PlanarProfile
{
  GObject    parent_instance;
  GStrv      paths;
  /* PlanarTraceLoader, in @paths order: one per host, made with the
   * profile (on its thread, where they notify). */
  GPtrArray *loaders;
  /* Held while @loaders is read off the loading thread
   * (planar_profile_release_derive()) or changed by the load. */
  GMutex     loaders_lock;
  /* PlanarTrace, in @paths order; filled while loading. */
  GPtrArray *traces;
  /* Per host: why its decode failed (NULL while it did not). */
  GPtrArray *failures;
  /* The step under way, as the last loader to report said it. */
  char      *message;
  /* Per path: a PlanarProfileTraceState (atomic). */
  gint      *states;
  guint      n_paths;
  guint      lazy_min_hosts;
  gint       lazy;
  gint       open;
  gint       loaded;
  gint       loading;
  /* planar_profile_load_traces() calls under way (atomic). */
  gint       busy;
  /* A PlanarHostAlignment, set by the load. */
  gint       alignment;
  /* SkippedHost: hosts the load could not open. */
  GPtrArray *skipped;
};

typedef struct
{
  char   *path;
  GError *error;
} SkippedHost;

static void
skipped_host_free (gpointer data)
{
  SkippedHost *host = data;

  g_free (host->path);
  g_clear_error (&host->error);
  g_free (host);
}

static void
error_free0 (gpointer data)
{
  if (data != NULL)
    g_error_free (data);
}

G_DEFINE_FINAL_TYPE (PlanarProfile, planar_profile, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FRACTION,
  PROP_LOADED,
  PROP_BUSY,
  PROP_MESSAGE,
  N_PROPS
};

enum {
  TRACKS_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
planar_profile_finalize (GObject *object)
{
  PlanarProfile *self = (PlanarProfile *) object;

  g_clear_pointer (&self->traces, g_ptr_array_unref);
  g_clear_pointer (&self->loaders, g_ptr_array_unref);
  g_clear_pointer (&self->failures, g_ptr_array_unref);
  g_clear_pointer (&self->message, g_free);
  g_clear_pointer (&self->paths, g_strfreev);
  g_clear_pointer (&self->states, g_free);
  g_clear_pointer (&self->skipped, g_ptr_array_unref);
  g_mutex_clear (&self->loaders_lock);

  G_OBJECT_CLASS (planar_profile_parent_class)->finalize (object);
}

static void
planar_profile_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  PlanarProfile *self = PLANAR_PROFILE (object);

  switch (prop_id)
    {
    case PROP_FRACTION:
      g_value_set_double (value, planar_profile_get_fraction (self));
      break;
    case PROP_LOADED:
      g_value_set_boolean (value, planar_profile_is_loaded (self));
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, planar_profile_is_busy (self));
      break;
    case PROP_MESSAGE:
      g_value_set_string (value, self->message);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_profile_class_init (PlanarProfileClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = planar_profile_finalize;
  object_class->get_property = planar_profile_get_property;

  /* Notified on the profile's thread when a host's loader notifies its
   * own (from one idle: planar-trace-loader.h), never on a worker. */
  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, 0.0, 1.0, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The step under way ("Decoding lines"), or NULL. */
  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOADED] =
    g_param_spec_boolean ("loaded", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Notified on the main thread by the _finish() of the async calls. */
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A host's loader published tracks: a view lays out again. */
  signals[TRACKS_CHANGED] =
    g_signal_new ("tracks-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
planar_profile_init (PlanarProfile *self)
{
  self->traces = g_ptr_array_new_with_free_func (g_object_unref);
  self->loaders = g_ptr_array_new_with_free_func (g_object_unref);
  self->failures = g_ptr_array_new_with_free_func (error_free0);
  self->skipped = g_ptr_array_new_with_free_func (skipped_host_free);
  g_mutex_init (&self->loaders_lock);
}

/* The loaders' notifications, on the profile's thread. */
static void
loader_fraction_changed (PlanarProfile *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
}

static void
loader_message_changed (PlanarProfile     *self,
                        GParamSpec        *pspec,
                        PlanarTraceLoader *loader)
{
  g_autofree char *message = NULL;

  g_object_get (loader, "message", &message, NULL);
  /* A loader that is done says nothing; another may still be at work. */
  if (message == NULL || g_strcmp0 (message, self->message) == 0)
    return;
  g_free (self->message);
  self->message = g_steal_pointer (&message);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
}

static void
loader_tracks_changed (PlanarProfile *self)
{
  g_signal_emit (self, signals[TRACKS_CHANGED], 0);
}

PlanarProfile *
planar_profile_new (const char * const *paths)
{
  PlanarProfile *self;

  g_return_val_if_fail (paths != NULL && paths[0] != NULL, NULL);

  self = g_object_new (PLANAR_TYPE_PROFILE, NULL);
  self->paths = g_strdupv ((char **) paths);
  self->n_paths = g_strv_length (self->paths);
  self->states = g_new0 (gint, self->n_paths);
  for (guint i = 0; i < self->n_paths; i++)
    {
      PlanarTraceLoader *loader = planar_trace_loader_new (self->paths[i]);

      g_signal_connect_object (loader, "notify::fraction", G_CALLBACK (loader_fraction_changed), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (loader, "notify::message", G_CALLBACK (loader_message_changed), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (loader, "tracks-changed", G_CALLBACK (loader_tracks_changed), self,
                               G_CONNECT_SWAPPED);
      g_ptr_array_add (self->loaders, loader);
      g_ptr_array_add (self->failures, NULL);
    }
  return self;
}

void
planar_profile_set_lazy_hosts (PlanarProfile *self,
                               guint          min_hosts)
{
  g_return_if_fail (PLANAR_IS_PROFILE (self));
  g_return_if_fail (!g_atomic_int_get (&self->loading) && !g_atomic_int_get (&self->open));
  self->lazy_min_hosts = min_hosts;
}

void
planar_profile_hold_derive (PlanarProfile *self,
                            guint          max_wait_ms)
{
  g_return_if_fail (PLANAR_IS_PROFILE (self));
  g_return_if_fail (!g_atomic_int_get (&self->loading) && !g_atomic_int_get (&self->open));
  for (guint i = 0; i < self->loaders->len; i++)
    planar_trace_loader_hold_derive (g_ptr_array_index (self->loaders, i), max_wait_ms);
}

void
planar_profile_set_count_stats (PlanarProfile *self,
                                gboolean       count_stats)
{
  g_return_if_fail (PLANAR_IS_PROFILE (self));
  g_return_if_fail (!g_atomic_int_get (&self->loading) && !g_atomic_int_get (&self->open));
  for (guint i = 0; i < self->loaders->len; i++)
    planar_trace_loader_set_count_stats (g_ptr_array_index (self->loaders, i), count_stats);
}

void
planar_profile_release_derive (PlanarProfile *self)
{
  g_return_if_fail (PLANAR_IS_PROFILE (self));
  /* The load drops the loaders of hosts that could not be opened while a
   * release may run on another thread: under the lock. */
  g_mutex_lock (&self->loaders_lock);
  for (guint i = 0; i < self->loaders->len; i++)
    planar_trace_loader_release_derive (g_ptr_array_index (self->loaders, i));
  g_mutex_unlock (&self->loaders_lock);
}

gboolean
planar_profile_is_lazy (PlanarProfile *self)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  return g_atomic_int_get (&self->lazy) != 0;
}

PlanarProfileTraceState
planar_profile_get_trace_state (PlanarProfile *self,
                                guint          index)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), PLANAR_PROFILE_TRACE_PENDING);
  g_return_val_if_fail (index < self->n_paths, PLANAR_PROFILE_TRACE_PENDING);
  return (PlanarProfileTraceState) g_atomic_int_get (&self->states[index]);
}

static gboolean failed_for_good (PlanarProfile *self,
                                 guint          i);

const GError *
planar_profile_get_trace_error (PlanarProfile *self,
                                guint          index)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), NULL);
  g_return_val_if_fail (index < self->n_paths, NULL);
  return failed_for_good (self, index) ? g_ptr_array_index (self->failures, index) : NULL;
}

guint
planar_profile_get_n_pending (PlanarProfile *self)
{
  guint n = 0;

  g_return_val_if_fail (PLANAR_IS_PROFILE (self), 0);
  for (guint i = 0; i < self->n_paths; i++)
    if (g_atomic_int_get (&self->states[i]) != PLANAR_PROFILE_TRACE_LOADED && !failed_for_good (self, i))
      n++;
  return n;
}

gboolean
planar_profile_is_busy (PlanarProfile *self)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  return g_atomic_int_get (&self->loading) || g_atomic_int_get (&self->busy) > 0;
}

gboolean
planar_profile_is_open (PlanarProfile *self)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  return g_atomic_int_get (&self->open) != 0;
}

/* Decodes host @i unless another call has it or had it. A host whose
 * decode fails becomes FAILED and, unless cancelled, says why
 * (planar_profile_dup_losses()) and waits no more. With @keep_going (the
 * first load of a session that is not lazy) such a host is left out and
 * the others go on; FALSE then only when cancelled or when a file changed
 * while it was read. */
static gboolean
decode_trace (PlanarProfile  *self,
              guint           i,
              gboolean        keep_going,
              GCancellable   *cancellable,
              GError        **error)
{
  GError *local_error = NULL;
  gboolean cancelled, changed;

  if (!g_atomic_int_compare_and_exchange (&self->states[i], PLANAR_PROFILE_TRACE_PENDING,
                                          PLANAR_PROFILE_TRACE_LOADING))
    return TRUE;
  if (planar_trace_loader_decode (g_ptr_array_index (self->loaders, i), cancellable, &local_error))
    {
      g_atomic_int_set (&self->states[i], PLANAR_PROFILE_TRACE_LOADED);
      return TRUE;
    }
  cancelled = g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  changed = g_error_matches (local_error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED);
  /* Set before the state says FAILED: readers look at it after. */
  if (!cancelled)
    g_ptr_array_index (self->failures, i) = g_error_copy (local_error);
  g_atomic_int_set (&self->states[i], PLANAR_PROFILE_TRACE_FAILED);
  if (keep_going && !cancelled && !changed)
    {
      g_error_free (local_error);
      return TRUE;
    }
  g_propagate_error (error, local_error);
  return FALSE;
}

/* Whether host @i failed for good (not cancelled): it waits no more. */
static gboolean
failed_for_good (PlanarProfile *self,
                 guint          i)
{
  return g_atomic_int_get (&self->states[i]) == PLANAR_PROFILE_TRACE_FAILED &&
         g_ptr_array_index (self->failures, i) != NULL;
}

static gboolean
load_traces (PlanarProfile  *self,
             const guint    *indices,
             guint           n_indices,
             gboolean        keep_going,
             GCancellable   *cancellable,
             GError        **error)
{
  guint n = indices != NULL ? n_indices : self->traces->len;

  for (guint k = 0; k < n; k++)
    {
      guint i = indices != NULL ? indices[k] : k;

      if (i >= self->traces->len)
        continue;
      if (!decode_trace (self, i, keep_going, cancellable, error))
        return FALSE;
    }
  /* Loaded once no host waits: those that failed are left out, said. */
  if (planar_profile_get_n_pending (self) == 0)
    g_atomic_int_set (&self->loaded, 1);
  return TRUE;
}

gboolean
planar_profile_load_traces (PlanarProfile  *self,
                            const guint    *indices,
                            guint           n_indices,
                            GCancellable   *cancellable,
                            GError        **error)
{
  gboolean ok;

  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (planar_profile_is_open (self), FALSE);

  g_atomic_int_inc (&self->busy);
  ok = load_traces (self, indices, n_indices, FALSE, cancellable, error);
  g_atomic_int_add (&self->busy, -1);
  return ok;
}

typedef struct
{
  guint *indices;
  guint  n_indices;
} TracesJob;

static void
traces_job_free (gpointer data)
{
  TracesJob *job = data;

  g_free (job->indices);
  g_free (job);
}

static void
load_traces_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  TracesJob *job = task_data;
  GError *error = NULL;

  if (load_traces (source_object, job->indices, job->n_indices, FALSE, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* On the main thread: the worker is done; "busy" (and "loaded") change
 * before the caller hears of it. */
static void
load_traces_done (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  PlanarProfile *self = PLANAR_PROFILE (source);
  g_autoptr(GTask) outer = user_data;
  GError *error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  g_atomic_int_add (&self->busy, -1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
  if (planar_profile_is_loaded (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADED]);
  if (ok)
    g_task_return_boolean (outer, TRUE);
  else
    g_task_return_error (outer, error);
}

void
planar_profile_load_traces_async (PlanarProfile       *self,
                                  const guint         *indices,
                                  guint                n_indices,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GTask *outer;
  g_autoptr(GTask) inner = NULL;
  TracesJob *job;

  g_return_if_fail (PLANAR_IS_PROFILE (self));
  g_return_if_fail (planar_profile_is_open (self));

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, planar_profile_load_traces_async);
  job = g_new0 (TracesJob, 1);
  job->indices = indices != NULL ? g_memdup2 (indices, n_indices * sizeof (guint)) : NULL;
  job->n_indices = n_indices;
  g_atomic_int_inc (&self->busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);

  inner = g_task_new (self, cancellable, load_traces_done, outer);
  g_task_set_task_data (inner, job, traces_job_free);
  g_task_set_return_on_cancel (inner, FALSE);
  planar_parallel_run_task (inner, load_traces_thread);
}

gboolean
planar_profile_load_traces_finish (PlanarProfile  *self,
                                   GAsyncResult   *result,
                                   GError        **error)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Whether host window @i overlaps another host's (closed intervals). */
static gboolean
overlaps_another (const guint64 *lo,
                  const guint64 *hi,
                  guint          n,
                  guint          i)
{
  for (guint j = 0; j < n; j++)
    if (j != i && lo[i] <= hi[j] && lo[j] <= hi[i])
      return TRUE;
  return FALSE;
}

/* Places each host with a start time: by its start since the earliest
 * start when every host's window overlaps another's (and the offsets fit
 * in int64 ps), else at its own start. */
static PlanarHostAlignment
place_hosts (GPtrArray *traces)
{
  g_autofree guint64 *lo = g_new0 (guint64, MAX (traces->len, 1));
  g_autofree guint64 *hi = g_new0 (guint64, MAX (traces->len, 1));
  PlanarHostAlignment alignment = PLANAR_HOST_ALIGNMENT_COMMON_START;
  guint64 earliest_start = G_MAXUINT64;
  guint n = 0;

  for (guint i = 0; i < traces->len; i++)
    {
      PlanarTrace *trace = g_ptr_array_index (traces, i);
      guint64 start;

      if (!planar_trace_get_profile_start_time (trace, &start))
        continue;
      planar_trace_get_time_window (trace, &lo[n], &hi[n]);
      earliest_start = MIN (earliest_start, start);
      n++;
    }
  /* One host overlaps nothing, and shares its axis with nobody either. */
  for (guint i = 0; n > 1 && i < n && alignment == PLANAR_HOST_ALIGNMENT_COMMON_START; i++)
    if (!overlaps_another (lo, hi, n, i))
      alignment = PLANAR_HOST_ALIGNMENT_OWN_START;

  /* Overlapping windows can still be too far apart for int64 ps (a window
   * of months): then each host starts at 0 too. */
  for (guint i = 0; i < traces->len && alignment == PLANAR_HOST_ALIGNMENT_COMMON_START; i++)
    {
      guint64 start;

      if (planar_trace_get_profile_start_time (g_ptr_array_index (traces, i), &start) &&
          start - earliest_start > (guint64) (G_MAXINT64 / 1000))
        alignment = PLANAR_HOST_ALIGNMENT_OWN_START;
    }

  for (guint i = 0; i < traces->len; i++)
    {
      PlanarTrace *trace = g_ptr_array_index (traces, i);
      guint64 start;

      if (!planar_trace_get_profile_start_time (trace, &start))
        continue;
      planar_trace_set_time_offset (trace, alignment == PLANAR_HOST_ALIGNMENT_COMMON_START
                                           ? (gint64) (start - earliest_start) * 1000 : 0);
    }
  return alignment;
}

gboolean
planar_profile_load (PlanarProfile  *self,
                     GCancellable   *cancellable,
                     GError        **error)
{
  g_autoptr(GPtrArray) traces = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GStrvBuilder) opened = g_strv_builder_new ();
  guint first = 0;

  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (!g_atomic_int_get (&self->loaded), FALSE);
  g_return_val_if_fail (g_atomic_int_compare_and_exchange (&self->loading, 0, 1), FALSE);

  /* Every host is opened (a cheap structure scan) before any is decoded,
   * so that a broken host is known before minutes are spent. One that
   * cannot be opened is left out, and the others open. */
  g_ptr_array_set_size (self->skipped, 0);
  g_autoptr(GPtrArray) loaders = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; self->paths[i] != NULL; i++)
    {
      GError *local_error = NULL;
      PlanarTraceLoader *loader = g_ptr_array_index (self->loaders, i);
      PlanarTrace *trace = NULL;

      if (planar_trace_loader_open (loader, cancellable, &local_error))
        trace = g_object_ref (planar_trace_loader_get_trace (loader));
      if (trace == NULL)
        {
          SkippedHost *host = g_new0 (SkippedHost, 1);

          host->path = g_strdup (self->paths[i]);
          host->error = local_error;
          g_ptr_array_add (self->skipped, host);
          continue;
        }
      g_ptr_array_add (traces, trace);
      g_ptr_array_add (loaders, g_object_ref (loader));
      g_strv_builder_add (opened, self->paths[i]);
    }
  if (traces->len == 0)
    {
      /* Not one host: the first one's reason. */
      g_propagate_error (error, g_error_copy (((SkippedHost *) g_ptr_array_index (self->skipped, 0))->error));
      goto fail;
    }
  /* From here on a host's index is its place among those opened. */
  if (self->skipped->len > 0)
    {
      g_strfreev (self->paths);
      self->paths = g_strv_builder_end (opened);
      self->n_paths = traces->len;
      g_mutex_lock (&self->loaders_lock);
      g_ptr_array_set_size (self->loaders, 0);
      g_ptr_array_extend_and_steal (self->loaders, g_steal_pointer (&loaders));
      g_mutex_unlock (&self->loaders_lock);
      g_ptr_array_set_size (self->failures, self->n_paths);
    }

  /* Each host's place in the session is known from its start time before
   * any event is decoded, so that times never move once published. */
  g_atomic_int_set (&self->alignment, place_hosts (traces));

  /* Published before decoding so that progress covers all hosts. */
  g_ptr_array_extend_and_steal (self->traces, g_steal_pointer (&traces));

  /* A lazy profile decodes its first host now, the others when asked. */
  if (self->lazy_min_hosts > 0 && self->traces->len >= self->lazy_min_hosts)
    g_atomic_int_set (&self->lazy, 1);
  if (!load_traces (self, g_atomic_int_get (&self->lazy) ? &first : NULL, 1, !g_atomic_int_get (&self->lazy),
                    cancellable, error))
    goto fail;
  /* Hosts that failed to decode are left out, unless none decoded. */
  {
    gboolean any = FALSE;

    for (guint i = 0; i < self->n_paths && !any; i++)
      any = g_atomic_int_get (&self->states[i]) == PLANAR_PROFILE_TRACE_LOADED;
    for (guint i = 0; i < self->n_paths && !any; i++)
      if (g_ptr_array_index (self->failures, i) != NULL)
        {
          g_propagate_error (error, g_error_copy (g_ptr_array_index (self->failures, i)));
          goto fail;
        }
  }
  g_atomic_int_set (&self->open, 1);
  g_atomic_int_set (&self->loading, 0);
  return TRUE;

fail:
  g_ptr_array_set_size (self->traces, 0);
  g_atomic_int_set (&self->lazy, 0);
  g_atomic_int_set (&self->loading, 0);
  return FALSE;
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;

  if (planar_profile_load (source_object, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
planar_profile_load_async (PlanarProfile       *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PLANAR_IS_PROFILE (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, planar_profile_load_async);
  g_task_set_return_on_cancel (task, FALSE);
  planar_parallel_run_task (task, load_thread);
}

gboolean
planar_profile_load_finish (PlanarProfile  *self,
                            GAsyncResult   *result,
                            GError        **error)
{
  gboolean ok;

  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  ok = g_task_propagate_boolean (G_TASK (result), error);
  if (ok)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADED]);
  return ok;
}

double
planar_profile_get_fraction (PlanarProfile *self)
{
  double total = 0, done = 0;

  g_return_val_if_fail (PLANAR_IS_PROFILE (self), 0.0);

  if (g_atomic_int_get (&self->loaded))
    return 1.0;
  if (!g_atomic_int_get (&self->loading) && !g_atomic_int_get (&self->open))
    return 0.0;
  /* The array is only resized by the loading thread before decoding
   * starts and after a failed load; reading sizes in between is safe. A
   * host weighs its file's size. */
  for (guint i = 0; i < self->traces->len; i++)
    {
      PlanarTrace *trace = g_ptr_array_index (self->traces, i);
      double size = (double) planar_trace_get_file_size (trace);

      total += size;
      done += size * planar_trace_loader_get_fraction (g_ptr_array_index (self->loaders, i));
    }
  return total > 0 ? done / total : 0.0;
}

gboolean
planar_profile_is_loaded (PlanarProfile *self)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  return g_atomic_int_get (&self->loaded) != 0;
}

guint
planar_profile_get_n_traces (PlanarProfile *self)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), 0);
  return self->traces->len;
}

PlanarTrace *
planar_profile_get_trace (PlanarProfile *self,
                          guint          index)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), NULL);
  g_return_val_if_fail (index < self->traces->len, NULL);
  return g_ptr_array_index (self->traces, index);
}

gboolean
planar_profile_check_files (PlanarProfile  *self,
                            GError        **error)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* The traces array is filled by the load; it is stable once open. */
  if (!planar_profile_is_open (self))
    return TRUE;
  for (guint i = 0; i < self->traces->len; i++)
    {
      PlanarTrace *trace = g_ptr_array_index (self->traces, i);

      if (planar_trace_has_changed (trace))
        {
          g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED,
                       _("%s changed on disk since it was opened"), planar_trace_get_file_name (trace));
          return FALSE;
        }
    }
  return TRUE;
}

guint64
planar_profile_get_n_events (PlanarProfile *self)
{
  guint64 n = 0;

  g_return_val_if_fail (PLANAR_IS_PROFILE (self), 0);
  for (guint i = 0; i < self->traces->len; i++)
    n += planar_trace_get_n_events (g_ptr_array_index (self->traces, i));
  return n;
}

gboolean
planar_profile_get_span (PlanarProfile *self,
                         gint64        *first_ps,
                         gint64        *last_ps)
{
  gboolean any = FALSE;
  gint64 first = 0, last = 0;

  g_return_val_if_fail (PLANAR_IS_PROFILE (self), FALSE);
  for (guint i = 0; i < self->traces->len; i++)
    {
      gint64 f, l;

      if (!planar_trace_get_span (g_ptr_array_index (self->traces, i), &f, &l))
        continue;
      if (!any || f < first)
        first = f;
      if (!any || l > last)
        last = l;
      any = TRUE;
    }
  if (first_ps != NULL)
    *first_ps = first;
  if (last_ps != NULL)
    *last_ps = last;
  return any;
}

const char *
planar_host_alignment_to_string (PlanarHostAlignment alignment)
{
  return alignment == PLANAR_HOST_ALIGNMENT_OWN_START ? "own_start" : "common_start";
}

const char *
planar_host_alignment_describe (PlanarHostAlignment alignment)
{
  if (alignment == PLANAR_HOST_ALIGNMENT_OWN_START)
    return "hosts do not overlap in time; each is shown from its own start";
  return NULL;
}

PlanarHostAlignment
planar_profile_get_host_alignment (PlanarProfile *self)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), PLANAR_HOST_ALIGNMENT_COMMON_START);
  return (PlanarHostAlignment) g_atomic_int_get (&self->alignment);
}

guint
planar_profile_get_n_skipped_hosts (PlanarProfile *self)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), 0);
  return self->skipped->len;
}

const char *
planar_profile_get_skipped_host (PlanarProfile  *self,
                                 guint           index,
                                 const GError  **error)
{
  const SkippedHost *host;

  g_return_val_if_fail (PLANAR_IS_PROFILE (self), NULL);
  g_return_val_if_fail (index < self->skipped->len, NULL);

  host = g_ptr_array_index (self->skipped, index);
  if (error != NULL)
    *error = host->error;
  return host->path;
}

GStrv
planar_profile_dup_losses (PlanarProfile *self)
{
  g_autoptr(GStrvBuilder) lines = g_strv_builder_new ();

  g_return_val_if_fail (PLANAR_IS_PROFILE (self), NULL);

  for (guint i = 0; i < self->skipped->len; i++)
    {
      const SkippedHost *host = g_ptr_array_index (self->skipped, i);
      g_autofree char *name = g_path_get_basename (host->path);
      g_autofree char *line = g_strdup_printf ("%s could not be read and is left out: %s", name,
                                               host->error->message);

      g_strv_builder_add (lines, line);
    }
  for (guint i = 0; i < self->traces->len; i++)
    {
      if (failed_for_good (self, i))
        {
          const GError *failure = g_ptr_array_index (self->failures, i);

          g_autofree char *line = g_strdup_printf ("%s could not be decoded and is left out: %s",
                                                   planar_trace_get_file_name (g_ptr_array_index (self->traces, i)),
                                                   failure->message);

          g_strv_builder_add (lines, line);
        }
    }
  for (guint i = 0; i < self->traces->len; i++)
    {
      PlanarTrace *trace = g_ptr_array_index (self->traces, i);
      const char *damage = planar_trace_get_damage (trace, NULL);

      if (damage != NULL)
        {
          g_autofree char *line = g_strdup_printf ("%s: %s", planar_trace_get_file_name (trace), damage);

          g_strv_builder_add (lines, line);
        }
    }
  return g_strv_builder_end (lines);
}

PlanarTraceLoader *
_planar_profile_get_loader (PlanarProfile *self,
                            guint          i)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (self), NULL);
  g_return_val_if_fail (i < self->loaders->len, NULL);
  return g_ptr_array_index (self->loaders, i);
}
