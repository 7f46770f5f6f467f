/* planar-derived-results.c: PlanarDerivedResults, what the derive layer
 * hangs on a trace (see planar-derived-results-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derived-results-private.h"

#include "planar-counters-private.h"
#include "planar-derive-pass-private.h"
#include "planar-flows-private.h"

struct _PlanarDerivedResults
{
  /* Per plane: a PlanarSpillArray of DerivedSource, or NULL. Grown as
   * planes get tables. */
  GPtrArray        *sources;
  /* Atomic. */
  gint              n_dropped;
  /* Atomic pointers: published in one store each. */
  PlanarFlowIndex  *flows;
  PlanarCounterSet *counters;
};

static void
derived_results_free (PlanarDerivedResults *self)
{
  _planar_derived_results_clear (self);
  g_ptr_array_unref (self->sources);
  g_free (self);
}

static void
derived_results_add_event_stats (PlanarDerivedResults *self,
                                 PlanarTrace          *trace,
                                 const PlanarEvent    *event,
                                 GArray               *out,
                                 guint                 first)
{
  (void) self;
  _planar_trace_add_derived_stats (trace, event, out, first);
}

static const PlanarDerivedResultsVTable derived_results_vtable = {
  .free = derived_results_free,
  .add_event_stats = derived_results_add_event_stats,
};

PlanarDerivedResults *
_planar_derive_attach (PlanarTrace *trace)
{
  PlanarDerivedResults *self = _planar_trace_get_derived (trace);

  if (self != NULL)
    return self;
  self = g_new0 (PlanarDerivedResults, 1);
  self->sources = g_ptr_array_new_with_free_func (_planar_derive_sources_free);
  return _planar_trace_attach_derived (trace, self, &derived_results_vtable);
}

PlanarDerivedResults *
_planar_derived_results_get (PlanarTrace *trace)
{
  return _planar_trace_get_derived (trace);
}

void
_planar_derived_results_clear (PlanarDerivedResults *self)
{
  if (self == NULL)
    return;
  g_ptr_array_set_size (self->sources, 0);
  _planar_flow_index_free (g_atomic_pointer_exchange (&self->flows, NULL));
  _planar_counter_set_free (g_atomic_pointer_exchange (&self->counters, NULL));
  g_atomic_int_set (&self->n_dropped, 0);
}

void
_planar_derived_results_set_n_planes (PlanarDerivedResults *self,
                                      guint                 n_planes)
{
  if (n_planes > self->sources->len)
    g_ptr_array_set_size (self->sources, n_planes);
}

PlanarSpillArray *
_planar_derived_results_get_sources (PlanarDerivedResults *self,
                                     guint                 p)
{
  if (self == NULL || p >= self->sources->len)
    return NULL;
  return g_ptr_array_index (self->sources, p);
}

void
_planar_derived_results_set_sources (PlanarDerivedResults *self,
                                     guint                 p,
                                     PlanarSpillArray     *sources)
{
  g_return_if_fail (p < self->sources->len);

  _planar_derive_sources_free (g_ptr_array_index (self->sources, p));
  g_ptr_array_index (self->sources, p) = sources;
}

guint
_planar_derived_results_get_n_dropped (PlanarDerivedResults *self)
{
  return self != NULL ? (guint) g_atomic_int_get (&self->n_dropped) : 0;
}

void
_planar_derived_results_set_n_dropped (PlanarDerivedResults *self,
                                       guint                 n_dropped)
{
  g_atomic_int_set (&self->n_dropped, (gint) MIN (n_dropped, (guint) G_MAXINT));
}

void
_planar_derived_results_add_dropped (PlanarDerivedResults *self)
{
  g_atomic_int_inc (&self->n_dropped);
}

const PlanarFlowIndex *
_planar_derived_results_get_flows (PlanarDerivedResults *self)
{
  return self != NULL ? g_atomic_pointer_get (&self->flows) : NULL;
}

void
_planar_derived_results_set_flows (PlanarDerivedResults *self,
                                   PlanarFlowIndex      *flows)
{
  /* Readers may be drawing the file's tracks: one store publishes it. */
  _planar_flow_index_free (g_atomic_pointer_exchange (&self->flows, flows));
}

const PlanarCounterSet *
_planar_derived_results_get_counters (PlanarDerivedResults *self)
{
  return self != NULL ? g_atomic_pointer_get (&self->counters) : NULL;
}

void
_planar_derived_results_set_counters (PlanarDerivedResults *self,
                                      PlanarCounterSet     *counters)
{
  _planar_counter_set_free (g_atomic_pointer_exchange (&self->counters, counters));
}
