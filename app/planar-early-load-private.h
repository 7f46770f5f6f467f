/* planar-early-load-private.h: the load of `planar PATH`, started before
 * GTK starts and adopted by the window that opens PATH.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "planar-catalog.h"
#include "planar-profile.h"

G_BEGIN_DECLS

/* On a thread of its own, an early load resolves @path as a window would
 * (planar_catalog_resolve()), chooses the session and hosts a window would
 * (_planar_window_choose_hosts()) and starts their profile's load; its
 * notifications and its end come to the main context, as a window's own
 * load's do. The window that opens @path takes the resolution in place of
 * its own (_planar_early_load_take_resolution()) and the profile in place of
 * its own load (_planar_early_load_adopt()). What it does not adopt is
 * cancelled (_planar_early_load_drop()). */
typedef struct _PlanarEarlyLoad PlanarEarlyLoad;

/* Returns: (transfer full). */
PlanarEarlyLoad         *_planar_early_load_start           (const char           *path);
PlanarEarlyLoad         *_planar_early_load_ref             (PlanarEarlyLoad      *self);
void                     _planar_early_load_unref           (PlanarEarlyLoad      *self);
const char              *_planar_early_load_get_path        (PlanarEarlyLoad      *self);

/* Blocks (on a worker) until the early load has resolved its path, or
 * @cancellable is cancelled. Returns: (transfer full) (nullable): the
 * resolution, the first time it is asked for; %NULL when the path could not
 * be resolved (the caller resolves it again, and reports the error as it
 * would have). */
PlanarCatalogResolution *_planar_early_load_take_resolution (PlanarEarlyLoad      *self,
                                                             GCancellable         *cancellable);

/* On the main thread: the profile being loaded, when it is the profile of
 * @paths with @lazy_hosts (planar_profile_set_lazy_hosts()) and neither
 * adopted nor dropped before; %NULL otherwise. From then on it is the
 * caller's: @callback is called once, on the main thread, when its load
 * returns, with the load's result (for planar_profile_load_finish()) and
 * @user_data (left alone when %NULL is returned), and *@cancellable
 * (transfer full) cancels the load. Returns: (transfer full) (nullable). */
PlanarProfile           *_planar_early_load_adopt           (PlanarEarlyLoad      *self,
                                                             const char * const   *paths,
                                                             guint                 lazy_hosts,
                                                             GCancellable        **cancellable,
                                                             GAsyncReadyCallback   callback,
                                                             gpointer              user_data);
gboolean                 _planar_early_load_is_adopted      (PlanarEarlyLoad      *self);
/* On the main thread: whether the profile's load has returned. */
gboolean                 _planar_early_load_has_returned    (PlanarEarlyLoad      *self);
/* For the tests: blocks until the early load has started its profile's
 * load, or found none to start. Returns: (transfer full) (nullable). */
PlanarProfile           *_planar_early_load_dup_profile     (PlanarEarlyLoad      *self);

/* Cancels the load unless it was adopted; _drop() also drops a reference. */
void                     _planar_early_load_cancel          (PlanarEarlyLoad      *self);
void                     _planar_early_load_drop            (PlanarEarlyLoad      *self);

/* On the main thread, after _planar_early_load_drop() or adoption: iterates
 * the default main context until nothing of an early load that was not
 * adopted is left running (its thread and its cancelled load). */
void                     _planar_early_load_wait            (PlanarEarlyLoad      *self);

G_END_DECLS
