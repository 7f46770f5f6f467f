/* planar-op-stats-page.h: the Op Stats tool: where a device's time goes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "planar-aggregate.h"
#include "planar-profile.h"
#include "planar-selection.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_OP_STATS_PAGE (planar_op_stats_page_get_type ())
G_DECLARE_FINAL_TYPE (PlanarOpStatsPage, planar_op_stats_page, PLANAR, OP_STATS_PAGE, GtkWidget)

/* For one plane of the profile (devices first) and one of its tracks or
 * all the file's lines, the events by name, framework op or source line,
 * with count, wall, self, average, min and max time, FLOP rate and
 * bandwidth, sortable. Rows by name show at once; their FLOPs and bytes,
 * and rows by framework op or source line, are read from the file on a
 * worker, started when the page is shown ("busy" until it is done). Activating a row (double click, Enter)
 * emits ::highlight with a selection of every event the row counts: at
 * once by name, when a worker has found them by framework op or source
 * line. */

GtkWidget  *planar_op_stats_page_new         (void);
/* @profile must be loaded, or NULL. */
void        planar_op_stats_page_set_profile (PlanarOpStatsPage *self,
                                              PlanarProfile     *profile);
/* Picks plane @plane of host @trace and track @track (-1: every line of
 * the file), as the drop-downs do. FALSE when there is no such plane. */
gboolean    planar_op_stats_page_select      (PlanarOpStatsPage *self,
                                              guint              trace,
                                              guint              plane,
                                              int                track);
/* Rows per event name, framework op or source line, as the Rows
 * drop-down picks. */
void        planar_op_stats_page_set_key     (PlanarOpStatsPage  *self,
                                              PlanarAggregateKey  key);
/* The table in its current order. Returns: (transfer none): a GListModel
 * of PlanarAggregateRow. */
GListModel *planar_op_stats_page_get_rows    (PlanarOpStatsPage *self);
/* What activating row @position does. */
void        planar_op_stats_page_activate_row (PlanarOpStatsPage *self,
                                               guint              position);
/* Whether the page waits for a worker: the table's FLOPs and bytes (or
 * rows) not read yet, or an activated row's events not found yet (the
 * "busy" property). */
gboolean    planar_op_stats_page_get_busy    (PlanarOpStatsPage *self);

G_END_DECLS
