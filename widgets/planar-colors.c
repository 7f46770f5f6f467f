/* planar-colors.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-colors.h"

/* Mid-saturation hues that keep black or white text readable and stay apart
 * from each other on both the light and the dark background; loosely the
 * GNOME palette's 3 and 4 shades, interleaved so that neighbouring indices
 * differ in hue. */
static const GdkRGBA event_palette[PLANAR_N_EVENT_COLORS] = {
  { 0.384f, 0.627f, 0.918f, 1.f }, /* blue */
  { 0.973f, 0.608f, 0.251f, 1.f }, /* orange */
  { 0.341f, 0.780f, 0.506f, 1.f }, /* green */
  { 0.863f, 0.435f, 0.663f, 1.f }, /* pink */
  { 0.600f, 0.757f, 0.945f, 1.f }, /* light blue */
  { 0.965f, 0.827f, 0.176f, 1.f }, /* yellow */
  { 0.569f, 0.463f, 0.808f, 1.f }, /* purple */
  { 0.212f, 0.698f, 0.682f, 1.f }, /* teal */
  { 0.898f, 0.392f, 0.369f, 1.f }, /* red */
  { 0.561f, 0.839f, 0.396f, 1.f }, /* lime */
  { 0.745f, 0.580f, 0.424f, 1.f }, /* brown */
  { 0.482f, 0.812f, 0.902f, 1.f }, /* cyan */
  { 0.933f, 0.667f, 0.541f, 1.f }, /* salmon */
  { 0.702f, 0.604f, 0.894f, 1.f }, /* lavender */
  { 0.792f, 0.800f, 0.337f, 1.f }, /* olive */
  { 0.949f, 0.533f, 0.784f, 1.f }, /* magenta */
  { 0.278f, 0.561f, 0.769f, 1.f }, /* steel blue */
  { 0.961f, 0.737f, 0.455f, 1.f }, /* apricot */
  { 0.447f, 0.667f, 0.490f, 1.f }, /* sage */
  { 0.647f, 0.647f, 0.737f, 1.f }, /* slate */
};

guint
planar_color_index_for_name (const char *name)
{
  guint32 hash = 2166136261u;

  g_return_val_if_fail (name != NULL, 0);

  for (const guchar *p = (const guchar *) name; *p != '\0'; p++)
    {
      hash ^= *p;
      hash *= 16777619u;
    }
  /* The low bits of FNV-1a mix poorly for short names; fold the high ones
   * in before taking the remainder. */
  hash ^= hash >> 16;
  return hash % PLANAR_N_EVENT_COLORS;
}

const GdkRGBA *
planar_color_get_event_color (guint index)
{
  return &event_palette[index % PLANAR_N_EVENT_COLORS];
}

void
planar_color_for_name (const char *name,
                       GdkRGBA    *color)
{
  g_return_if_fail (name != NULL);
  g_return_if_fail (color != NULL);

  *color = event_palette[planar_color_index_for_name (name)];
}

gboolean
planar_color_wants_light_text (const GdkRGBA *background)
{
  double luminance;

  g_return_val_if_fail (background != NULL, FALSE);

  /* Rec. 709 weights on the (already gamma-encoded) channels are close
   * enough to pick between black and white. */
  luminance = 0.2126 * background->red + 0.7152 * background->green + 0.0722 * background->blue;
  return luminance < 0.45;
}
