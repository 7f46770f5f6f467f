/* planar-sandbox.h: what running inside the Flatpak sandbox changes.
 *
 * Inside the sandbox the home folder is not the user's, folders given
 * by "Open With" need the document portal to forward them, and a file
 * opened through the portal is seen alone, without the hosts beside it.
 * Everything that depends on being sandboxed asks
 * planar_sandbox_is_flatpak(), the only test of it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The file whose presence means "inside Flatpak": /.flatpak-info, or the
 * file PLANAR_FLATPAK_INFO names when it is set (the tests' fake; an empty
 * value means "not sandboxed"). */
#define PLANAR_SANDBOX_INFO_ENV "PLANAR_FLATPAK_INFO"
/* Where the document portal shows the files it passes: the folder
 * PLANAR_DOCUMENT_PORTAL_DIR names (tests), else $XDG_RUNTIME_DIR/doc. */
#define PLANAR_SANDBOX_PORTAL_ENV "PLANAR_DOCUMENT_PORTAL_DIR"

/* Whether Planar runs inside the Flatpak sandbox. */
gboolean  planar_sandbox_is_flatpak              (void);
/* The Flatpak that started the sandbox, as .flatpak-info's [Instance]
 * flatpak-version says ("1.16.0"), or NULL outside it or when it does not
 * say. Returns: (transfer full) (nullable). */
char     *planar_sandbox_dup_flatpak_version     (void);
/* Whether "Open With" on a folder reaches Planar: always outside the
 * sandbox; inside, with Flatpak 1.18 or later (which forwards folders
 * through the document portal, xdg-desktop-portal 1.7 or later). */
gboolean  planar_sandbox_can_forward_folders     (void);
/* The folder captures go to when none is chosen: ~/planar-logs, or inside
 * the sandbox (where that home folder is not the user's)
 * $XDG_DATA_HOME/planar/captures, which the app keeps. Returns: (transfer full). */
char     *planar_sandbox_dup_default_capture_folder (void);
/* Whether @path came through the document portal (lies in its folder):
 * such a file is seen alone, without its siblings. */
gboolean  planar_sandbox_is_portal_path          (const char *path);
/* Where a file passed through the document portal lives on the host, if
 * the portal says (its "document-portal.host-path" attribute).
 * Returns: (transfer full) (nullable). */
char     *planar_sandbox_dup_host_path           (GFile      *file);
/* Whether @path names a host file in an XProf session layout
 * (.../plugins/profile/SESSION/HOST.xplane.pb) or, for a file the portal
 * passed, a .xplane.pb whose host path is in one or unknown. */
gboolean  planar_sandbox_is_session_file         (const char *path);

G_END_DECLS
