/* planar-units.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-units.h"

char *
planar_format_duration (gint64 ps)
{
  static const struct { gint64 scale; const char *unit; } units[] = {
    { G_GINT64_CONSTANT (1000000000000), "s" },
    { 1000000000, "ms" },
    { 1000000, "us" },
    { 1000, "ns" },
  };
  guint64 mag = ps < 0 ? (guint64) 0 - (guint64) ps : (guint64) ps;

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (mag >= (guint64) units[i].scale)
      {
        /* Whole and fractional parts separately so that huge values keep
         * every digit a double would round away. */
        guint64 whole = mag / (guint64) units[i].scale;
        guint64 frac = (mag % (guint64) units[i].scale) * 1000 / (guint64) units[i].scale;

        return g_strdup_printf ("%s%" G_GUINT64_FORMAT ".%03" G_GUINT64_FORMAT " %s",
                                ps < 0 ? "-" : "", whole, frac, units[i].unit);
      }
  return g_strdup_printf ("%" G_GINT64_FORMAT " ps", ps);
}
