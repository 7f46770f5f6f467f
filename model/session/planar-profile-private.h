/* planar-profile-private.h: what the model's tests reach inside a profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-profile.h"
#include "planar-trace-loader.h"

G_BEGIN_DECLS

/* For tests */

/* The loader of host @i (in the paths' order), to set its properties
 * before the load. Returns: (transfer none). */
PlanarTraceLoader *_planar_profile_get_loader (PlanarProfile *self,
                                               guint          i);

G_END_DECLS
