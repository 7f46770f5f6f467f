/* planar-counters-private.h: how the derive pass builds the counter
 * series; planar-counters.h is the public API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-counters.h"

G_BEGIN_DECLS

/* Returns: (transfer full): the series of every `_counters_` track of
 * @trace, or NULL with @error set when @cancellable fired. */
PlanarCounterSet *_planar_counter_set_build (PlanarTrace       *trace,
                                             GCancellable      *cancellable,
                                             GError           **error);
void              _planar_counter_set_free  (PlanarCounterSet  *self);
/* Appends to @names the (interned) names of the series the set will have
 * on @plane, in its order, and to @tracks the `_counters_` track of each
 * (guint), reading the samples' stats as the build does: every sample's
 * of the first 65536 of a track, then those of a kind not seen yet. */
void              _planar_counter_predict_series (PlanarTrace *trace,
                                                  guint        plane,
                                                  GArray      *tracks,
                                                  GPtrArray   *names);

/* planar_counter_series_query_columns(), adding to @visited the number of
 * entries (sample times, directory cells) it read to find the columns'
 * samples. */
void              _planar_counter_series_query_columns_counted (const PlanarCounterSeries *self,
                                                                gint64                     t0_ps,
                                                                gint64                     ps_per_px,
                                                                guint                      n_columns,
                                                                PlanarCounterColumn       *columns,
                                                                guint64                   *visited);

G_END_DECLS
