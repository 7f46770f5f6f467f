/* planar-find-bar.h: finds events anywhere in the profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "planar-search.h"
#include "planar-timeline.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_FIND_BAR (planar_find_bar_get_type ())
G_DECLARE_FINAL_TYPE (PlanarFindBar, planar_find_bar, PLANAR, FIND_BAR, GtkWidget)

/* The find bar searches every event of PlanarFindBar:timeline's profile
 * with the model's search (names, display names, string stats such as
 * hlo_op, hlo_module, tf_op and source; substring or regular expression),
 * shows the count as the user types, and steps through the hits in time
 * order, selecting each on the timeline and bringing it on screen
 * (planar_timeline_show_event(): zoomed in when too narrow to see). While
 * it is open the timeline highlights every hit. Its commands are "find."
 * actions: find.next (Enter), find.previous (Shift+Enter), find.zoom
 * (Alt+Enter: what f does on the timeline, for the hit) and find.close.
 * Escape closes the list of hits when it is shown, otherwise the bar;
 * closing the bar closes the list. ::closed is emitted when the bar
 * closes, so that the window can give the focus back. */

GtkWidget      *planar_find_bar_new           (void);
void            planar_find_bar_set_timeline  (PlanarFindBar  *self,
                                               PlanarTimeline *timeline);
/* Called when the timeline's profile has finished loading (or changed):
 * searches it again. */
void            planar_find_bar_refresh       (PlanarFindBar  *self);

gboolean        planar_find_bar_get_open      (PlanarFindBar  *self);
/* Shows the bar and focuses its entry, its text selected. */
void            planar_find_bar_open          (PlanarFindBar  *self);
void            planar_find_bar_close         (PlanarFindBar  *self);

/* Sets the pattern and runs the search (as typing does, without the
 * typing delay). */
void            planar_find_bar_set_text      (PlanarFindBar  *self,
                                               const char     *text,
                                               gboolean        regex);
/* Returns: (transfer none) (nullable): the search whose hits are shown,
 * NULL while none has completed. */
PlanarSearch   *planar_find_bar_get_search    (PlanarFindBar  *self);
/* The hits as a list model of PlanarSearchHitItem. Returns: (transfer
 * none). */
GListModel     *planar_find_bar_get_hits      (PlanarFindBar  *self);
/* The index of the hit selected last, or -1. */
gint64          planar_find_bar_get_current   (PlanarFindBar  *self);
/* Selects hit @index and moves the view to it. */
void            planar_find_bar_select_hit    (PlanarFindBar  *self,
                                               guint64         index);

G_END_DECLS
