/* planar-application.h: the application: windows, settings, app actions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "planar-window.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_APPLICATION (planar_application_get_type ())
G_DECLARE_FINAL_TYPE (PlanarApplication, planar_application, PLANAR, APPLICATION, AdwApplication)

/* Opens every path given on the command line, one window each; without a
 * path, a window with the welcome page. */
PlanarApplication *planar_application_new        (void);

/* The application's settings (schema dev.planar.Planar). Returns: (transfer
 * none). */
GSettings         *planar_application_get_settings (PlanarApplication *self);

/* A new window showing the welcome page. Returns: (transfer none). */
PlanarWindow      *planar_application_new_window (PlanarApplication *self);

/* Opens @file (a log directory, run, session folder or profile file) in
 * @window if it shows nothing yet, else in a window that shows nothing, else
 * in a new one: one window per profile. @window may be %NULL. Returns:
 * (transfer none): the window it opens in. */
PlanarWindow      *planar_application_open_file  (PlanarApplication *self,
                                                  GFile             *file,
                                                  PlanarWindow      *window);

G_END_DECLS
