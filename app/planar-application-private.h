/* planar-application-private.h: what the rest of app/ asks of the
 * application and nothing outside it may.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "planar-application.h"
#include "planar-early-load-private.h"

G_BEGIN_DECLS

/* The early load of @path (planar_application_start_early_load()), for the
 * first window that opens it and no other. Returns: (transfer full)
 * (nullable). */
PlanarEarlyLoad *_planar_application_claim_early_load (PlanarApplication *self,
                                                       const char        *path);
/* The early load, claimed or not, until planar_application_end_early_load().
 * Returns: (transfer none) (nullable). */
PlanarEarlyLoad *_planar_application_get_early_load   (PlanarApplication *self);

/* The build tree the running program was built in, when it runs from there
 * (its folder's parent holds meson-private), else %NULL: where the schema
 * and planar-cli are found before anything is installed. Returns: (transfer full). */
char *_planar_application_dup_build_dir (void);

G_END_DECLS
