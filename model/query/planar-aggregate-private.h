/* planar-aggregate-private.h: what tests and benches ask of the
 * aggregator beyond planar-aggregate.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-aggregate.h"

G_BEGIN_DECLS

/* With planar_aggregator_set_costs(): read each event's costs through
 * planar_op_info_init() (stats read twice, strings made, the estimate made
 * again per event) instead of a PlanarOpCostReader. The tables are the
 * same; a test compares them, a bench times both. Before any event is
 * added. */
void _planar_aggregator_set_full_op_info (PlanarAggregator *self,
                                          gboolean          full);

G_END_DECLS
