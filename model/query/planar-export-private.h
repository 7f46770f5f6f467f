/* planar-export-private.h: what the two export formats share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-export.h"

G_BEGIN_DECLS

/* planar-export-perfetto.c: planar_export_to_stream()'s Perfetto half.
 * @filter is never %NULL. Counter lines (`_counters_`) become counter
 * tracks, one per series. */
gboolean    _planar_export_perfetto          (PlanarProfile        *profile,
                                              const PlanarExportFilter *filter,
                                              GOutputStream        *stream,
                                              PlanarExportProgress  progress,
                                              gpointer              user_data,
                                              GCancellable         *cancellable,
                                              GError              **error);

/* What both formats share. */

/* Stats the exports leave out of an event's args: XProf's internal ones,
 * the flow encoding, and async/group bookkeeping (docs/formats.md §7.1). */
gboolean    _planar_export_skip_stat         (const char          *name);
/* A flow id the way the exports write it: the model's id, which is already
 * unique within a trace, made unique across the hosts of a session. */
guint64     _planar_export_flow_id           (guint                trace,
                                              guint64              id);

G_END_DECLS
