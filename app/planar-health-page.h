/* planar-health-page.h: the Trace Health tool.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "planar-catalog.h"
#include "planar-profile.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_HEALTH_PAGE (planar_health_page_get_type ())
G_DECLARE_FINAL_TYPE (PlanarHealthPage, planar_health_page, PLANAR, HEALTH_PAGE, GtkWidget)

/* What a user checks when a trace looks incomplete: the model's health
 * findings (planar-health.h) and the events of every plane and line. */

GtkWidget *planar_health_page_new         (void);
/* @profile must be loaded, or NULL; @session (nullable) is the catalog's
 * session it was read from, for the files Planar cannot read. */
void       planar_health_page_set_profile (PlanarHealthPage           *self,
                                           PlanarProfile              *profile,
                                           const PlanarCatalogSession *session);
/* The findings shown. Returns: (transfer none) (nullable): a GPtrArray of
 * PlanarHealthIssue. */
GPtrArray *planar_health_page_get_issues  (PlanarHealthPage           *self);

G_END_DECLS
