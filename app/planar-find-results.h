/* planar-find-results.h: every hit of the find bar's search, as a list.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-find-bar.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_FIND_RESULTS (planar_find_results_get_type ())
G_DECLARE_FINAL_TYPE (PlanarFindResults, planar_find_results, PLANAR, FIND_RESULTS, GtkWidget)

/* Lists PlanarFindResults:find-bar's hits in time order (rows made only as
 * they scroll into view); activating one selects it through the bar. */
GtkWidget *planar_find_results_new          (void);
void       planar_find_results_set_find_bar (PlanarFindResults *self,
                                             PlanarFindBar     *find_bar);

G_END_DECLS
