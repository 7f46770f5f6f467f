/* planar-window.h: a window showing one profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "planar-profile.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_WINDOW (planar_window_get_type ())
G_DECLARE_FINAL_TYPE (PlanarWindow, planar_window, PLANAR, WINDOW, AdwApplicationWindow)

/* A window opens one path (planar_window_open()), lists the sessions found
 * under it in its Sessions menu and the hosts of the chosen session in its
 * Hosts menu, and shows the chosen hosts on the timeline. Every command is
 * a "win." action (planar-window-actions.c):
 *
 *   win.session (s)      show the session named so ("<run>/<session>", or
 *                        "<session>" in the root run); state: the session
 *   win.hosts (as)       show these hosts of the session, all when empty;
 *                        state: the hosts shown
 *   win.tool (s)         the tool shown ("trace-viewer")
 *   win.reload, win.cancel-load, win.open-file, win.open-folder,
 *   win.open-uri (s), win.show-sessions, win.show-hosts, win.show-menu */

PlanarWindow       *planar_window_new           (GtkApplication *application);

/* Looks for profiles under @file in a worker, then loads the newest
 * session: a session folder or file opened from a `plugins/profile` folder
 * lists the other sessions of its run as well, and a file shows its host
 * alone. Errors are shown in a dialog. */
void                planar_window_open          (PlanarWindow   *self,
                                                 GFile          *file);

/* TRUE while the window shows the welcome page and is opening nothing. */
gboolean            planar_window_is_empty      (PlanarWindow   *self);
/* TRUE while sessions are searched for or hosts decoded. */
gboolean            planar_window_get_loading   (PlanarWindow   *self);
/* Returns: (transfer none) (nullable): the profile shown, loaded or not. */
PlanarProfile      *planar_window_get_profile   (PlanarWindow   *self);
/* Returns: (transfer none) (nullable): the session shown. */
const char         *planar_window_get_session   (PlanarWindow   *self);
/* Returns: (transfer none): the names of the sessions found, newest first,
 * as GtkStringObjects. */
GListModel         *planar_window_get_sessions  (PlanarWindow   *self);

G_END_DECLS
