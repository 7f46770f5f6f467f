/* planar-time-ticks.h: where the ticks of a time axis go and how they read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PLANAR_PS_PER_NS G_GINT64_CONSTANT (1000)
#define PLANAR_PS_PER_US G_GINT64_CONSTANT (1000000)
#define PLANAR_PS_PER_MS G_GINT64_CONSTANT (1000000000)
#define PLANAR_PS_PER_S  G_GINT64_CONSTANT (1000000000000)

/* The ticks of a window of time, all in ps since the profile start. Labels
 * are in @unit_ps (1 ps, 1 ns, 1 us, 1 ms or 1 s) with @decimals decimals,
 * relative to @base_ps: when absolute labels would need four digits or
 * more before the point ("143700 ms"), the base is a round time just
 * before the window (a multiple of ten steps, "143.6 s"), shown once, and
 * the ticks read "+20 ms", "+40 ms"..., never more than three digits
 * before the point (but seconds, which count on). The unit is the one that fits the step, so a label has
 * at most one decimal. */
typedef struct
{
  /* Between labelled ticks: 1, 2 or 5 times a power of ten. */
  gint64 step_ps;
  /* Between unlabelled ticks. */
  gint64 minor_step_ps;
  /* The first labelled tick at or after the window's start. */
  gint64 first_ps;
  gint64 unit_ps;
  guint  decimals;
  gint64 base_ps;
  /* The power of ten the base is a multiple of. */
  gint64 base_step_ps;
  gboolean relative;
} PlanarTimeTicks;

/* Chooses ticks for [@t0_ps, @t1_ps] drawn over @width_px pixels, at least
 * @min_spacing_px apart. */
void        planar_time_ticks_compute   (PlanarTimeTicks       *ticks,
                                         gint64                 t0_ps,
                                         gint64                 t1_ps,
                                         double                 width_px,
                                         double                 min_spacing_px);

/* Writes the label of the tick at @t_ps ("1.5 ms", "+20 ns") to @buf. */
void        planar_time_ticks_format    (const PlanarTimeTicks *ticks,
                                         gint64                 t_ps,
                                         char                  *buf,
                                         gsize                  size);

/* Writes the base of relative ticks ("2.6013 s") to @buf. */
void        planar_time_ticks_format_base (const PlanarTimeTicks *ticks,
                                           char                  *buf,
                                           gsize                  size);

/* The name of @unit_ps for people ("ps", "ns", "µs", "ms", "s"). */
const char *planar_time_unit_name       (gint64                 unit_ps);

/* Writes @t_ps in @unit_ps with exactly @decimals decimals, computed in
 * integers so that nothing is lost at any magnitude ("1234.000125 ms"). */
void        planar_time_format_fixed    (gint64                 t_ps,
                                         gint64                 unit_ps,
                                         guint                  decimals,
                                         char                  *buf,
                                         gsize                  size);

/* Writes the duration @ps in the largest unit that keeps it at least 1,
 * with up to three decimals and no trailing zeros ("496.637 µs", "40 ms",
 * "0 s"). */
void        planar_time_format_duration (gint64                 ps,
                                         char                  *buf,
                                         gsize                  size);

G_END_DECLS
