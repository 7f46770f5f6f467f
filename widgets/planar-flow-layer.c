/* planar-flow-layer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-flow-layer.h"

#include "planar-flows.h"

#include <math.h>

void
planar_flow_layer_get_color (guint     category,
                             gboolean  dark,
                             GdkRGBA  *color)
{
  /* A few distinct hues; GPU launches, by far the most common, in the
   * accent-like blue-violet. */
  static const GdkRGBA colors[] = {
    { 0.42f, 0.36f, 0.85f, 1.f },
    { 0.85f, 0.40f, 0.15f, 1.f },
    { 0.10f, 0.60f, 0.45f, 1.f },
    { 0.80f, 0.20f, 0.45f, 1.f },
  };

  g_return_if_fail (color != NULL);

  *color = colors[category == PLANAR_FLOW_CATEGORY_GPU_LAUNCH ? 0 : 1 + category % (G_N_ELEMENTS (colors) - 1)];
  if (dark)
    {
      color->red = MIN (1.f, color->red + 0.2f);
      color->green = MIN (1.f, color->green + 0.2f);
      color->blue = MIN (1.f, color->blue + 0.2f);
    }
}

void
planar_flow_layer_draw_arrow (cairo_t       *cr,
                              double         x0,
                              double         y0,
                              double         x1,
                              double         y1,
                              const GdkRGBA *color,
                              double         line_width)
{
  double dx = MAX (fabs (x1 - x0) * 0.5, 12.0);
  double angle;
  const double head = 7.0;

  /* Horizontal tangents at both ends: the arrow leaves its event going
   * forward in time and enters the next one the same way. */
  gdk_cairo_set_source_rgba (cr, color);
  cairo_set_line_width (cr, line_width);
  cairo_move_to (cr, x0, y0);
  cairo_curve_to (cr, x0 + dx, y0, x1 - dx, y1, x1, y1);
  cairo_stroke (cr);

  angle = 0.0;
  cairo_move_to (cr, x1, y1);
  cairo_line_to (cr, x1 - head * cos (angle - 0.45), y1 - head * sin (angle - 0.45));
  cairo_line_to (cr, x1 - head * cos (angle + 0.45), y1 - head * sin (angle + 0.45));
  cairo_close_path (cr);
  cairo_fill (cr);
}
