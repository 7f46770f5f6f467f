/* planar-profile.h: the hosts of one session, loaded and aligned.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_PROFILE (planar_profile_get_type ())
G_DECLARE_FINAL_TYPE (PlanarProfile, planar_profile, PLANAR, PROFILE, GObject)

/* A profile of one or more host files. Hosts with a Task Environment are
 * placed by their profile_start_time (time 0 is the earliest start among
 * them); a host without one is placed with its earliest event at 0. */

/* Returns: (transfer full): a profile of @paths, not loaded yet. */
PlanarProfile *planar_profile_new               (const char * const  *paths);
/* Opens and decodes every host; blocks. */
gboolean       planar_profile_load              (PlanarProfile       *self,
                                                 GCancellable        *cancellable,
                                                 GError             **error);
/* The same in a worker thread; the "fraction" property can be polled from
 * the main thread meanwhile. */
void           planar_profile_load_async        (PlanarProfile       *self,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
gboolean       planar_profile_load_finish       (PlanarProfile       *self,
                                                 GAsyncResult        *result,
                                                 GError             **error);

/* 0 to 1 over every host's line bytes. Any thread. */
double         planar_profile_get_fraction      (PlanarProfile       *self);
gboolean       planar_profile_is_loaded         (PlanarProfile       *self);
guint          planar_profile_get_n_traces      (PlanarProfile       *self);
/* Returns: (transfer none). */
PlanarTrace   *planar_profile_get_trace         (PlanarProfile       *self,
                                                 guint                index);
guint64        planar_profile_get_n_events      (PlanarProfile       *self);
/* First start and last end over all hosts, ps. FALSE when there is none. */
gboolean       planar_profile_get_span          (PlanarProfile       *self,
                                                 gint64              *first_ps,
                                                 gint64              *last_ps);

G_END_DECLS
