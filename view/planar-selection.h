/* planar-selection.h: what is selected on the timeline.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "planar-profile.h"

G_BEGIN_DECLS

/* The event @ref (a profile's: its @trace set) points to in @profile, or
 * NULL when it points nowhere (or at a track not loaded yet); @trace,
 * @plane and @track are optional. Returns: (transfer none) (nullable). */
const PlanarEvent  *planar_event_ref_resolve         (const PlanarEventRef        *ref,
                                                      PlanarProfile               *profile,
                                                      PlanarTrace                **trace,
                                                      const PlanarPlane          **plane,
                                                      const PlanarTrack          **track);

#define PLANAR_TYPE_SELECTION (planar_selection_get_type ())
G_DECLARE_FINAL_TYPE (PlanarSelection, planar_selection, PLANAR, SELECTION, GObject)

/* A selection is immutable: events of one profile, a time range, or both
 * (a box selection keeps the range it was drawn over). Whoever changes the
 * selection makes a new one, so a binding to PlanarTimeline:selection sees
 * every change. */

/* @events need not be sorted or unique; they are copied. @start_ps and
 * @end_ps (ps since the profile start) are used when @has_range is TRUE.
 * Returns: (transfer full). */
PlanarSelection             *planar_selection_new           (PlanarProfile               *profile,
                                                             const PlanarEventRef        *events,
                                                             gsize                        n_events,
                                                             gboolean                     has_range,
                                                             gint64                       start_ps,
                                                             gint64                       end_ps);
/* Returns: (transfer full). */
PlanarSelection             *planar_selection_new_for_event (PlanarProfile               *profile,
                                                             const PlanarEventRef        *event);
/* Returns: (transfer full). */
PlanarSelection             *planar_selection_new_for_range (PlanarProfile               *profile,
                                                             gint64                       start_ps,
                                                             gint64                       end_ps);

/* Returns: (transfer none) (nullable). */
PlanarProfile               *planar_selection_get_profile   (PlanarSelection             *self);
gboolean                     planar_selection_is_empty      (PlanarSelection             *self);
gsize                        planar_selection_get_n_events  (PlanarSelection             *self);
/* Returns: (transfer none): the events, sorted by
 * planar_event_ref_compare() and unique, valid while @self lives. */
const PlanarEventRef        *planar_selection_get_events    (PlanarSelection             *self,
                                                             gsize                       *n_events);
gboolean                     planar_selection_contains      (PlanarSelection             *self,
                                                             const PlanarEventRef        *event);
/* The time range the selection was made over, if it has one. */
gboolean                     planar_selection_get_range     (PlanarSelection             *self,
                                                             gint64                      *start_ps,
                                                             gint64                      *end_ps);
/* The time the selection covers: its range joined with every event's span,
 * ps. FALSE when empty. */
gboolean                     planar_selection_get_bounds    (PlanarSelection             *self,
                                                             gint64                      *start_ps,
                                                             gint64                      *end_ps);
/* The @index-th event and, optionally, its host, plane and track. Returns:
 * (transfer none) (nullable): NULL when the ref points nowhere. */
const PlanarEvent           *planar_selection_resolve       (PlanarSelection             *self,
                                                             gsize                        index,
                                                             PlanarTrace                **trace,
                                                             const PlanarPlane          **plane,
                                                             const PlanarTrack          **track);

G_END_DECLS
