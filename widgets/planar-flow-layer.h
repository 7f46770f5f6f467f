/* planar-flow-layer.h: how flow arrows (launch -> kernel, producer ->
 * consumer) look.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Draws one arrow as a curve from (@x0, @y0) to (@x1, @y1), leaving and
 * entering horizontally, with a head at the end, in @color. */
void planar_flow_layer_draw_arrow (cairo_t       *cr,
                                   double         x0,
                                   double         y0,
                                   double         x1,
                                   double         y1,
                                   const GdkRGBA *color,
                                   double         line_width);
/* The color of category @category's arrows (a PlanarFlowCategory). */
void planar_flow_layer_get_color  (guint          category,
                                   gboolean       dark,
                                   GdkRGBA       *color);

G_END_DECLS
