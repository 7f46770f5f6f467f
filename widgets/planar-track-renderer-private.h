/* planar-track-renderer-private.h: what the tests read of the renderer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-track-renderer.h"

G_BEGIN_DECLS

/* The bytes of the names of the labels kept from frame to frame. */
gsize _planar_track_renderer_get_kept_bytes (PlanarTrackRenderer *self);

G_END_DECLS
