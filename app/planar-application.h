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

/* From main(), before g_application_run() with the same arguments: when
 * they name one path and nothing else, begins to load it as the window that
 * opens it would (its catalog, session and hosts), so that the decode runs
 * while GTK starts; that window adopts the load instead of starting its
 * own. PLANAR_EARLY_LOAD=0 in the environment turns it off. Returns: whether
 * it began. */
gboolean           planar_application_start_early_load (PlanarApplication  *self,
                                                        int                 argc,
                                                        char              **argv);
/* From main(), after g_application_run(): cancels the early load if no
 * window adopted it (the path went to the instance already running) and
 * waits until nothing of it runs. */
void               planar_application_end_early_load   (PlanarApplication  *self);

G_END_DECLS
