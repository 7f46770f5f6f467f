/* planar-derive-private.h: what the rest of the model (the loader, the
 * trace, the cached index) and the tests call of the derive layer;
 * planar-derive.h is its public API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-derive.h"
#include "planar-derived-results-private.h"
#include "planar-trace-private.h"

G_BEGIN_DECLS

/* Marks the metadata of XProf's internal events (PlanarEventMetadata.internal);
 * done by the loader before any track is published. */
void     _planar_trace_flag_internal_events      (PlanarTrace    *self);
/* Adds the derived lines, counter series and flow index once every file
 * track is built (the loader's "Deriving lines" and "Linking flows"). */
gboolean _planar_trace_derive                    (PlanarTrace    *self,
                                                  GCancellable   *cancellable,
                                                  GError        **error);
/* Plane @p's table of derived event sources as bytes for the cache, and
 * back (checked against the trace's tracks, in place). */
void     _planar_trace_serialize_derived_sources (PlanarTrace    *self,
                                                  guint           p,
                                                  PlanarByteSink  sink,
                                                  gpointer        data);
gboolean _planar_trace_restore_derived_sources   (PlanarTrace      *self,
                                                  guint             p,
                                                  gsize             len,
                                                  PlanarByteSource  source,
                                                  gpointer          source_data,
                                                  GError          **error);

/* Appends the per-event stats of the derived @event (its group_id) to
 * @out, replacing stats of the same name at or after @first. */
void     _planar_trace_add_derived_stats           (PlanarTrace       *self,
                                                    const PlanarEvent *event,
                                                    GArray            *out,
                                                    guint              first);
G_END_DECLS
