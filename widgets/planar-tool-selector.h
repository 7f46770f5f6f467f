/* planar-tool-selector.h: the floating buttons that pick the timeline's
 * tool.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PLANAR_TYPE_TOOL_SELECTOR (planar_tool_selector_get_type ())
G_DECLARE_FINAL_TYPE (PlanarToolSelector, planar_tool_selector, PLANAR, TOOL_SELECTOR, GtkWidget)

/* Four toggle buttons bound to the "timeline.tool" action of the nearest
 * ancestor that has it (the timeline), so the button of the current tool
 * is the pressed one whichever way the tool was changed. */
GtkWidget *planar_tool_selector_new (void);

G_END_DECLS
