/* planar-details-pane.h: what is selected on the timeline, in words.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "planar-timeline.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_DETAILS_PANE (planar_details_pane_get_type ())
G_DECLARE_FINAL_TYPE (PlanarDetailsPane, planar_details_pane, PLANAR, DETAILS_PANE, GtkWidget)

/* The pane follows PlanarDetailsPane:timeline's selection: one event shows
 * its name, track, times, every stat with its unit, the HLO module and op,
 * source and stack as text to copy, and its flows as links that select the
 * other end; several events or a time range show a table per name (count,
 * wall, self, average, min, max) made from the model, not from what is
 * drawn. Activating a row emits ::search with the row's name; reading an
 * event's stats from a host file that changed on disk emits
 * ::file-changed. */

GtkWidget  *planar_details_pane_new          (void);
/* Returns: (transfer none) (nullable). */
PlanarTimeline *planar_details_pane_get_timeline (PlanarDetailsPane *self);
void        planar_details_pane_set_timeline (PlanarDetailsPane *self,
                                              PlanarTimeline    *timeline);

/* For tests and accessibility: the text shown for one event, one
 * "Label: value" line per field and stat, as a user would copy it.
 * Returns: (transfer full) (nullable): NULL unless one event is shown. */
char       *planar_details_pane_dup_text     (PlanarDetailsPane *self);
/* The table shown for several events or a range, in its current order.
 * Returns: (transfer none) (nullable): a GListModel of PlanarAggregateRow. */
GListModel *planar_details_pane_get_rows     (PlanarDetailsPane *self);

/* What activating row @position of the table does: ::search for its name. */
void        planar_details_pane_activate_row (PlanarDetailsPane *self,
                                              guint              position);

G_END_DECLS
