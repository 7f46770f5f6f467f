/* planar-details-pane-private.h: what the tests call of the details pane
 * beside its public API (planar-details-pane.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-details-pane.h"

G_BEGIN_DECLS

/* A table of more events than this is summed in a worker, the pane saying
 * so meanwhile; a smaller one at once. */
#define PLANAR_DETAILS_PANE_ASYNC_MIN 100000
/* For tests: another bound than PLANAR_DETAILS_PANE_ASYNC_MIN. */
void _planar_details_pane_set_async_min (PlanarDetailsPane *self,
                                         guint64            n_events);

G_END_DECLS
