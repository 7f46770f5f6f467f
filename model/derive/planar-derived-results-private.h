/* planar-derived-results-private.h: PlanarDerivedResults, the one owner
 * of what the derive layer computes for a trace: per plane, the table of
 * derived event sources; the derived lines left out for lack of room; the
 * flow index; the counter series.
 *
 * The trace holds it (planar-trace-private.h) and frees it; the derive
 * pass fills it, the cached index saves and restores it, and the public
 * getters (planar_trace_get_flows(), planar_trace_get_counters(),
 * planar_trace_get_derived_source(),
 * planar_trace_get_n_dropped_derived_lines()) read it.
 *
 * Threads: readers (the main thread drawing the file's tracks) may call
 * the getters while the loader's thread and its workers fill it: the flow
 * index and the counter series are published by one atomic store each,
 * the dropped-line count is atomic. A plane's sources table is set before
 * any derived event that points into it is published.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace-private.h"

#include "planar-counters.h"
#include "planar-flows.h"

G_BEGIN_DECLS

/* Gives @trace its (empty) derived results unless it has them, before
 * anything derived is added; returns them. Any thread. */
PlanarDerivedResults *_planar_derive_attach                  (PlanarTrace          *trace);
/* The derived results of @trace, or NULL while none are attached. */
PlanarDerivedResults *_planar_derived_results_get            (PlanarTrace          *trace);

/* Empties @self: no sources, no flows, no counters, nothing dropped (the
 * derived tracks are being thrown away; nothing published points in). */
void                  _planar_derived_results_clear          (PlanarDerivedResults *self);

/* Makes room for the tables of @n_planes planes: done before any derived
 * event is published, as the room may move (readers index it). */
void                  _planar_derived_results_set_n_planes   (PlanarDerivedResults *self,
                                                              guint                 n_planes);
/* Plane @p's table of DerivedSource (planar-derive-pass-private.h), or NULL. */
PlanarSpillArray     *_planar_derived_results_get_sources    (PlanarDerivedResults *self,
                                                              guint                 p);
/* Replaces plane @p's table with @sources (taken; NULL: none); @p below
 * the planes made room for. */
void                  _planar_derived_results_set_sources    (PlanarDerivedResults *self,
                                                              guint                 p,
                                                              PlanarSpillArray     *sources);

/* Derived lines left out for lack of room. Any thread. */
guint                 _planar_derived_results_get_n_dropped  (PlanarDerivedResults *self);
void                  _planar_derived_results_set_n_dropped  (PlanarDerivedResults *self,
                                                              guint                 n_dropped);
void                  _planar_derived_results_add_dropped    (PlanarDerivedResults *self);

/* The flow index, or NULL; set publishes @flows (taken) in one store. */
const PlanarFlowIndex *_planar_derived_results_get_flows     (PlanarDerivedResults *self);
void                  _planar_derived_results_set_flows      (PlanarDerivedResults *self,
                                                              PlanarFlowIndex      *flows);

/* The counter series, or NULL; set publishes @counters (taken). */
const PlanarCounterSet *_planar_derived_results_get_counters (PlanarDerivedResults *self);
void                  _planar_derived_results_set_counters   (PlanarDerivedResults *self,
                                                              PlanarCounterSet     *counters);

G_END_DECLS
