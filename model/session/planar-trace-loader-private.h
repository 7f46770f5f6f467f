/* planar-trace-loader-private.h: what the tests may ask of one load.
 *
 * For tests: nothing here is process-wide; each setting belongs to the
 * loader it is set on, and to the trace it makes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace-loader.h"
#include "planar-trace-private.h"

G_BEGIN_DECLS

/* For tests: the hook told of this load's fixed points
 * (planar-mapping-private.h) and the spill mode of its index (-1: as the
 * file's size says; planar-spill.h), given to the trace the open step
 * makes. Set before planar_trace_loader_open(). */
void _planar_trace_loader_set_test_options (PlanarTraceLoader            *self,
                                            const PlanarTraceTestOptions *options);

G_END_DECLS
