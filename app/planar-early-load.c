/* planar-early-load.c: the load of `planar PATH`, started from main()
 * before GTK and libadwaita start (about a quarter of a second of the main
 * thread, mostly GDK loading the GL driver), so that the decode of the
 * first view runs beside it on another core and the window, once shown,
 * draws tracks that are already there. docs/loader.md, "The first frame".
 *
 * Threads: the early load's own thread resolves the path and starts the
 * profile's load (planar_profile_load_async(), whose notifications and end
 * come to the global default main context, the main thread's, since that
 * thread has no context of its own); a window's discover worker waits for
 * the resolution; everything else runs on the main thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-early-load-private.h"

#include "planar-window-private.h"

/* How long the derive step of an early load waits at most, once the file's
 * tracks are published, for the window to paint them: GTK's start, which
 * the decode runs beside, takes about a quarter of a second of CPU, and
 * several times that in wall-clock time on a busy machine. */
#define EARLY_DERIVE_HOLD_MAX_MS 2000

struct _PlanarEarlyLoad
{
  gatomicrefcount          ref_count;
  char                    *path;
  GCancellable            *cancellable;

  GMutex                   lock;
  GCond                    cond;
  /* Under @lock: set by the thread when it is done with its part. */
  gboolean                 resolved;
  PlanarCatalogResolution *resolution;
  gboolean                 resolution_taken;
  /* The profile's host paths and its lazy threshold (set before @resolved,
   * never changed after); @profile is NULL when no load was started, and
   * once the profile is handed to the window that adopts it or its load,
   * cancelled, has returned (the application keeps the early load until it
   * quits: a profile held here would outlive every window). */
  GStrv                    paths;
  guint                    lazy_hosts;
  PlanarProfile           *profile;

  /* Main thread only. */
  gboolean                 adopted;
  gboolean                 dropped;
  /* The profile's load returned; its result, kept until adopted. */
  gboolean                 returned;
  GAsyncResult            *result;
  GAsyncReadyCallback      callback;
  gpointer                 user_data;
};

PlanarEarlyLoad *
_planar_early_load_ref (PlanarEarlyLoad *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
_planar_early_load_unref (PlanarEarlyLoad *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_free (self->path);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->resolution, planar_catalog_resolution_free);
  g_strfreev (self->paths);
  g_clear_object (&self->profile);
  g_clear_object (&self->result);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}

const char *
_planar_early_load_get_path (PlanarEarlyLoad *self)
{
  return self->path;
}

static void
release_profile (PlanarEarlyLoad *self)
{
  g_autoptr(PlanarProfile) profile = NULL;

  g_mutex_lock (&self->lock);
  profile = g_steal_pointer (&self->profile);
  g_mutex_unlock (&self->lock);
}

/* The profile's load returned, on the main thread: to the window that
 * adopted it, or kept for the one that will, or let go. */
static void
load_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  PlanarEarlyLoad *self = user_data;
  GAsyncReadyCallback callback = self->callback;

  self->returned = TRUE;
  self->callback = NULL;
  if (callback != NULL)
    callback (source, result, self->user_data);
  else if (self->dropped)
    {
      g_autoptr(GError) error = NULL;

      if (!planar_profile_load_finish (PLANAR_PROFILE (source), result, &error))
        g_debug ("Early load of %s ended: %s", self->path, error->message);
      release_profile (self);
    }
  else
    self->result = g_object_ref (result);
  _planar_early_load_unref (self);
}

static gpointer
early_load_thread (gpointer data)
{
  PlanarEarlyLoad *self = data;
  g_autoptr(GError) error = NULL;
  PlanarCatalogResolution *resolution;
  PlanarCatalogSession *session = NULL;
  g_auto(GStrv) chosen = NULL;
  g_auto(GStrv) paths = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  guint lazy_hosts = _planar_window_lazy_hosts_threshold ();

  resolution = planar_catalog_resolve (self->path, self->cancellable, &error);
  if (resolution == NULL)
    g_debug ("Early load of %s not started: %s", self->path, error->message);
  else
    session = planar_catalog_find_session (resolution->catalog, resolution->session);
  if (session != NULL)
    chosen = _planar_window_choose_hosts (session, (const char * const *) resolution->hosts);
  if (chosen != NULL && chosen[0] != NULL)
    {
      paths = _planar_window_dup_host_paths (session, (const char * const *) chosen);
      profile = planar_profile_new ((const char * const *) paths);
      planar_profile_set_lazy_hosts (profile, lazy_hosts);
      /* The derived lines wait until the window has painted the file's
       * tracks (_planar_window_hold_derive()): GTK's start, the window and
       * its first frame take the main thread meanwhile, and the derive pass
       * would take the cores from it. */
      planar_profile_hold_derive (profile, EARLY_DERIVE_HOLD_MAX_MS);
      g_debug ("Early load of %s started: %u hosts of session %s", self->path, g_strv_length (paths),
               resolution->session);
    }

  g_mutex_lock (&self->lock);
  self->resolution = resolution;
  self->paths = g_steal_pointer (&paths);
  self->lazy_hosts = lazy_hosts;
  self->profile = g_steal_pointer (&profile);
  /* Its end comes to the main context, never before this returns. */
  if (self->profile != NULL)
    planar_profile_load_async (self->profile, self->cancellable, load_done, _planar_early_load_ref (self));
  self->resolved = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  /* _planar_early_load_wait() may be blocked in the main context. */
  g_main_context_wakeup (NULL);
  _planar_early_load_unref (self);
  return NULL;
}

PlanarEarlyLoad *
_planar_early_load_start (const char *path)
{
  PlanarEarlyLoad *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_new0 (PlanarEarlyLoad, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->path = g_strdup (path);
  self->cancellable = g_cancellable_new ();
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_thread_unref (g_thread_new ("planar-early-load", early_load_thread, _planar_early_load_ref (self)));
  return self;
}

static void
wake_waiters (GCancellable    *cancellable,
              PlanarEarlyLoad *self)
{
  g_mutex_lock (&self->lock);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

PlanarCatalogResolution *
_planar_early_load_take_resolution (PlanarEarlyLoad *self,
                                    GCancellable    *cancellable)
{
  PlanarCatalogResolution *resolution = NULL;
  gulong handler = 0;

  g_return_val_if_fail (self != NULL, NULL);

  /* Connected outside the lock: it runs at once when already cancelled. */
  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (wake_waiters), self, NULL);
  g_mutex_lock (&self->lock);
  while (!self->resolved && !g_cancellable_is_cancelled (cancellable) &&
         !g_cancellable_is_cancelled (self->cancellable))
    g_cond_wait (&self->cond, &self->lock);
  if (self->resolved && !self->resolution_taken)
    {
      resolution = g_steal_pointer (&self->resolution);
      self->resolution_taken = TRUE;
    }
  g_mutex_unlock (&self->lock);
  g_cancellable_disconnect (cancellable, handler);
  return resolution;
}

typedef struct
{
  GAsyncReadyCallback  callback;
  gpointer             user_data;
  PlanarProfile       *profile;
  GAsyncResult        *result;
} Delivery;

/* A load that returned before it was adopted: its end is told from the
 * main loop, as it would have been. */
static gboolean
deliver (gpointer data)
{
  Delivery *delivery = data;

  delivery->callback (G_OBJECT (delivery->profile), delivery->result, delivery->user_data);
  g_object_unref (delivery->profile);
  g_object_unref (delivery->result);
  g_free (delivery);
  return G_SOURCE_REMOVE;
}

PlanarProfile *
_planar_early_load_adopt (PlanarEarlyLoad     *self,
                          const char * const  *paths,
                          guint                lazy_hosts,
                          GCancellable       **cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  PlanarProfile *profile;
  gboolean same;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (paths != NULL, NULL);
  g_return_val_if_fail (cancellable != NULL && *cancellable == NULL, NULL);
  g_return_val_if_fail (callback != NULL, NULL);

  g_mutex_lock (&self->lock);
  same = self->resolved && self->profile != NULL && lazy_hosts == self->lazy_hosts &&
         g_strv_equal ((const char * const *) self->paths, paths);
  g_mutex_unlock (&self->lock);
  if (!same || self->adopted || self->dropped || g_cancellable_is_cancelled (self->cancellable))
    {
      g_debug ("Early load of %s not adopted: %s", self->path,
               !same ? "another session or other hosts" : self->adopted ? "adopted before" : "cancelled");
      return NULL;
    }

  self->adopted = TRUE;
  *cancellable = g_object_ref (self->cancellable);
  if (self->result != NULL)
    {
      Delivery *delivery = g_new0 (Delivery, 1);

      delivery->callback = callback;
      delivery->user_data = user_data;
      delivery->profile = g_object_ref (self->profile);
      delivery->result = g_steal_pointer (&self->result);
      g_idle_add_full (G_PRIORITY_DEFAULT, deliver, delivery, NULL);
    }
  else
    {
      self->callback = callback;
      self->user_data = user_data;
    }
  g_debug ("Early load of %s adopted", self->path);
  /* The early load's reference, now the window's. */
  g_mutex_lock (&self->lock);
  profile = g_steal_pointer (&self->profile);
  g_mutex_unlock (&self->lock);
  return profile;
}

PlanarProfile *
_planar_early_load_dup_profile (PlanarEarlyLoad *self)
{
  PlanarProfile *profile;

  g_return_val_if_fail (self != NULL, NULL);

  g_mutex_lock (&self->lock);
  while (!self->resolved)
    g_cond_wait (&self->cond, &self->lock);
  profile = self->profile != NULL ? g_object_ref (self->profile) : NULL;
  g_mutex_unlock (&self->lock);
  return profile;
}

gboolean
_planar_early_load_has_returned (PlanarEarlyLoad *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->returned;
}

gboolean
_planar_early_load_is_adopted (PlanarEarlyLoad *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->adopted;
}

void
_planar_early_load_drop (PlanarEarlyLoad *self)
{
  g_return_if_fail (self != NULL);

  _planar_early_load_cancel (self);
  _planar_early_load_unref (self);
}

void
_planar_early_load_cancel (PlanarEarlyLoad *self)
{
  g_return_if_fail (self != NULL);

  if (!self->adopted && !self->dropped)
    {
      self->dropped = TRUE;
      g_cancellable_cancel (self->cancellable);
      /* A load that returned before: its result is let go. */
      if (self->result != NULL)
        {
          g_autoptr(GAsyncResult) result = g_steal_pointer (&self->result);

          planar_profile_load_finish (self->profile, result, NULL);
        }
      /* Returned: nothing of it runs any more (else load_done() lets it go). */
      if (self->returned)
        release_profile (self);
      g_debug ("Early load of %s cancelled", self->path);
    }
}

static gboolean
finished (PlanarEarlyLoad *self)
{
  gboolean done;

  g_mutex_lock (&self->lock);
  done = self->resolved && (self->profile == NULL || self->returned);
  g_mutex_unlock (&self->lock);
  return done;
}

void
_planar_early_load_wait (PlanarEarlyLoad *self)
{
  g_return_if_fail (self != NULL);

  if (self->adopted)
    return;
  while (!finished (self))
    g_main_context_iteration (NULL, TRUE);
}
