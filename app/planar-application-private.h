/* planar-application-private.h: what the rest of app/ asks of the
 * application and nothing outside it may.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The build tree the running program was built in, when it runs from there
 * (its folder's parent holds meson-private), else %NULL: where the schema
 * and planar-cli are found before anything is installed. Returns: (transfer full). */
char *_planar_application_dup_build_dir (void);

G_END_DECLS
