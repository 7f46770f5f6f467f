/* planar-import.h: Chrome Trace Event JSON (PyTorch/Kineto, TensorFlow,
 * JAX, Chrome) opened like an xplane.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace.h"

G_BEGIN_DECLS

/* What an import found besides the events it made. Each "X", each matched
 * "B"/"E" pair and each "i"/"I"/"R" is one event on its thread's line (a
 * global or process instant on a line of its own). */
typedef struct _PlanarImportReport
{
  guint64     n_events;
  guint64     n_complete;
  guint64     n_begin_end;
  guint64     n_instant;
  /* Flow records: flow v1 "s"/"t"/"f" events, and "X" events carrying a
   * flow v2 bind_id. */
  guint64     n_flows;
  /* Flow v1 records with no slice to bind to (unmatched ends are
   * tolerated, not fatal). */
  guint64     n_unbound_flows;
  /* "C" samples. */
  guint64     n_counters;
  /* "M" records. */
  guint64     n_metadata;
  /* "B" never ended, "E" never begun. */
  guint64     n_unmatched_begin;
  guint64     n_unmatched_end;
  /* Records of other phases, skipped: phase (string) -> count (guint64
   * stored in a pointer). */
  GHashTable *ignored;
} PlanarImportReport;

/* Whether @data looks like Chrome JSON (its first non-blank byte is "{" or
 * "[") or gzip; an XSpace can start with neither. */
gboolean                   planar_import_is_json        (const guint8 *data,
                                                         gsize         size);

/* The report of @trace's import, or NULL for an xplane. Returns:
 * (transfer none) (nullable). */
const PlanarImportReport  *planar_trace_get_import_report (PlanarTrace *trace);

G_END_DECLS
