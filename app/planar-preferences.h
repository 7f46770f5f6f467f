/* planar-preferences.h: the Preferences window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* A window over @settings (the application's). Returns: (transfer floating). */
GtkWindow *planar_preferences_window_new (GSettings *settings);

/* What the cached indexes' folder holds, for people: "12.3 MB in 4 files".
 * Returns: (transfer full). */
char      *planar_preferences_describe_cache (void);

/* Removes every cached index; returns how many files went. */
guint      planar_preferences_clear_cache (void);

G_END_DECLS
