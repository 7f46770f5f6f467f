/* planar-tracks-popover.h: the sections and tracks of a timeline, to show,
 * hide, filter, collapse and expand.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "planar-timeline.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_TRACKS_POPOVER (planar_tracks_popover_get_type ())
G_DECLARE_FINAL_TYPE (PlanarTracksPopover, planar_tracks_popover, PLANAR, TRACKS_POPOVER, GtkPopover)

/* The popover lists the sections of PlanarTracksPopover:timeline with a
 * check button each, and their tracks below them; a search entry edits the
 * timeline's track filter. It is rebuilt each time it opens, and acts
 * through the timeline's view state and actions. */

GtkWidget      *planar_tracks_popover_new          (PlanarTimeline      *timeline);

/* Returns: (transfer none) (nullable). */
PlanarTimeline *planar_tracks_popover_get_timeline (PlanarTracksPopover *self);
void            planar_tracks_popover_set_timeline (PlanarTracksPopover *self,
                                                    PlanarTimeline      *timeline);

G_END_DECLS
