/* planar-welcome-page.h: what a window shows before it opens a profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define PLANAR_TYPE_WELCOME_PAGE (planar_welcome_page_get_type ())
G_DECLARE_FINAL_TYPE (PlanarWelcomePage, planar_welcome_page, PLANAR, WELCOME_PAGE, AdwBin)

/* The buttons and the rows of recent profiles activate the window's
 * win.open-file, win.open-folder and win.open-uri actions. */
GtkWidget *planar_welcome_page_new          (void);

/* The number of recent profiles listed (at most PLANAR_WELCOME_PAGE_MAX_RECENT). */
guint      planar_welcome_page_get_n_recent (PlanarWelcomePage *self);

#define PLANAR_WELCOME_PAGE_MAX_RECENT 8

/* The application name Planar records its profiles under in the recently
 * used files (GtkRecentManager), so that the list shows Planar's only. */
#define PLANAR_RECENT_APP_NAME "Planar"
/* The MIME type of a profile file (data/dev.planar.Planar.mime.xml). */
#define PLANAR_PROFILE_MIME_TYPE "application/x-xplane+protobuf"

G_END_DECLS
