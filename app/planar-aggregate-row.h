/* planar-aggregate-row.h: a table of per-name totals (the selection's
 * table, Op Stats), one row object per name.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "planar-aggregate.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_AGGREGATE_ROW (planar_aggregate_row_get_type ())
G_DECLARE_FINAL_TYPE (PlanarAggregateRow, planar_aggregate_row, PLANAR, AGGREGATE_ROW, GObject)

/* The totals of one event name, with a property per column (name,
 * display-name, count, total-ps, self-ps, average-ps, min-ps, max-ps) so
 * that columns sort by property. Times in ps. Returns: (transfer full). */
PlanarAggregateRow *planar_aggregate_row_new          (const PlanarAggregate *aggregate);
const char         *planar_aggregate_row_get_name     (PlanarAggregateRow    *self);
guint64             planar_aggregate_row_get_count    (PlanarAggregateRow    *self);
gint64              planar_aggregate_row_get_total_ps (PlanarAggregateRow    *self);
gint64              planar_aggregate_row_get_self_ps  (PlanarAggregateRow    *self);

/* Fills @rows (a GListStore of PlanarAggregateRow) with @aggregator's
 * results. */
void                planar_aggregate_rows_fill        (GListStore            *rows,
                                                       PlanarAggregator      *aggregator);

/* Gives @view sortable columns for @rows (Name, Count, Wall, Self,
 * Average, and Min and Max when @min_max), sorted by self time, largest
 * first, and a single-selection model. Returns: (transfer full): the
 * sorted model the view shows, whose positions "activate" reports. */
GtkSortListModel   *planar_aggregate_view_setup       (GtkColumnView         *view,
                                                       GListStore            *rows,
                                                       gboolean               min_max);
/* Like planar_aggregate_view_setup(), for rows of an aggregator grouped by
 * kind: a Kind column first, and the rows of a kind kept together, in the
 * kinds' order, whichever column sorts them. */
GtkSortListModel   *planar_aggregate_view_setup_by_kind (GtkColumnView       *view,
                                                         GListStore          *rows,
                                                         gboolean             min_max);
/* Like planar_aggregate_view_setup() with Min and Max, and FLOP rate and
 * Bandwidth columns (the rates achieved, "≈" where the HLO estimated
 * them) for rows of an aggregator with costs. */
GtkSortListModel   *planar_aggregate_view_setup_with_costs (GtkColumnView    *view,
                                                            GListStore       *rows);
const char         *planar_aggregate_row_get_kind     (PlanarAggregateRow    *self);
const char         *planar_aggregate_row_get_display_name (PlanarAggregateRow *self);

G_END_DECLS
