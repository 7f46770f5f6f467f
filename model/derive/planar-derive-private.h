/* planar-derive-private.h: what the rest of the model (the trace, the
 * cached index) and the tests call of the derive layer; planar-derive.h is
 * its public API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-derive.h"

G_BEGIN_DECLS

/* Appends the per-event stats of the derived @event (its group_id) to
 * @out, replacing stats of the same name at or after @first. */
void     _planar_trace_add_derived_stats           (PlanarTrace       *self,
                                                    const PlanarEvent *event,
                                                    GArray            *out,
                                                    guint              first);
/* Frees what planar-derive.c, planar-flows.c and planar-counters.c hung
 * on the trace. */
void     _planar_trace_clear_derived               (PlanarTrace       *self);

/* For tests */

/* Derive at most @n tracks per plane (G_MAXUINT: no limit
 * beyond the planes' room), to exercise running out of room. */
void     _planar_derive_set_max_tracks_per_plane   (guint              n);
/* The bytes derived events may take (-1: as the file's size
 * allows), to exercise running out. */
void     _planar_derive_set_budget                 (gint64             bytes);

G_END_DECLS
