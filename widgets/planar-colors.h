/* planar-colors.h: the colors events are drawn in.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gdk/gdk.h>

G_BEGIN_DECLS

/* The number of colors in the event palette. */
#define PLANAR_N_EVENT_COLORS 20

/* The index in the palette of the color of events named @name: a hash of
 * the name's bytes (FNV-1a), so the same name gets the same color in every
 * run, on every host and in every profile. */
guint          planar_color_index_for_name (const char *name);

/* Returns: (transfer none): the palette entry @index (modulo the size). */
const GdkRGBA *planar_color_get_event_color (guint      index);

/* The color of events named @name. */
void           planar_color_for_name       (const char *name,
                                            GdkRGBA    *color);

/* Whether text drawn on @background should be light (white) rather than
 * dark, by the background's relative luminance. */
gboolean       planar_color_wants_light_text (const GdkRGBA *background);

G_END_DECLS
