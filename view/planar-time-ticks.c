/* planar-time-ticks.c: the rules of the time axis (GLib only)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-time-ticks.h"

#include <string.h>

#include <stdio.h>

static const gint64 units[] = {
  1, PLANAR_PS_PER_NS, PLANAR_PS_PER_US, PLANAR_PS_PER_MS, PLANAR_PS_PER_S,
};

const char *
planar_time_unit_name (gint64 unit_ps)
{
  switch (unit_ps)
    {
    case 1: return "ps";
    case PLANAR_PS_PER_NS: return "ns";
    case PLANAR_PS_PER_US: return "µs";
    case PLANAR_PS_PER_MS: return "ms";
    case PLANAR_PS_PER_S: return "s";
    default: return "?";
    }
}

static gint64
pow10_i64 (guint e)
{
  gint64 v = 1;

  while (e-- > 0)
    v *= 10;
  return v;
}

/* The decimal exponent of @v, a power of ten. */
static guint
log10_i64 (gint64 v)
{
  guint e = 0;

  while (v >= 10)
    {
      v /= 10;
      e++;
    }
  return e;
}

void
planar_time_format_fixed (gint64  t_ps,
                          gint64  unit_ps,
                          guint   decimals,
                          char   *buf,
                          gsize   size)
{
  guint64 magnitude;
  guint64 whole, frac;
  const char *sign = "";

  g_return_if_fail (unit_ps > 0);
  g_return_if_fail (buf != NULL && size > 0);

  if (t_ps < 0)
    {
      sign = "-";
      magnitude = (guint64) -(t_ps + 1) + 1;
    }
  else
    magnitude = (guint64) t_ps;
  whole = magnitude / (guint64) unit_ps;
  frac = magnitude % (guint64) unit_ps;

  /* The unit is a power of ten; keep @decimals of its digits. */
  decimals = MIN (decimals, log10_i64 (unit_ps));
  if (decimals == 0)
    g_snprintf (buf, size, "%s%" G_GUINT64_FORMAT, sign, whole);
  else
    {
      guint64 scaled = frac / (guint64) (unit_ps / pow10_i64 (decimals));

      g_snprintf (buf, size, "%s%" G_GUINT64_FORMAT ".%0*" G_GUINT64_FORMAT,
                  sign, whole, (int) decimals, scaled);
    }
}

static gint64
floor_div (gint64 a,
           gint64 b)
{
  gint64 q = a / b;

  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

void
planar_time_ticks_compute (PlanarTimeTicks *ticks,
                           gint64           t0_ps,
                           gint64           t1_ps,
                           double           width_px,
                           double           min_spacing_px)
{
  double min_step;
  gint64 decade = 1;
  gint64 step = 1;
  guint step_exp;
  gint64 unit = 1;
  gint64 magnitude;

  g_return_if_fail (ticks != NULL);

  if (t1_ps <= t0_ps)
    t1_ps = t0_ps + 1;
  if (width_px < 1)
    width_px = 1;
  min_step = (double) (t1_ps - t0_ps) / width_px * MAX (min_spacing_px, 1.0);

  /* 1, 2 or 5 times a power of ten, the smallest at least min_step. */
  for (;;)
    {
      if ((double) decade >= min_step)
        {
          step = decade;
          break;
        }
      if ((double) (decade * 2) >= min_step)
        {
          step = decade * 2;
          break;
        }
      if ((double) (decade * 5) >= min_step)
        {
          step = decade * 5;
          break;
        }
      if (decade > G_MAXINT64 / 100)
        {
          step = decade * 10;
          break;
        }
      decade *= 10;
    }
  step_exp = log10_i64 (decade);

  /* The largest unit of which a step is at least a tenth, so a label
   * needs at most one decimal for the step itself. */
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (step >= units[i] / 10)
      unit = units[i];

  ticks->step_ps = step;
  ticks->minor_step_ps = step / (step == decade * 2 ? 4 : 5);
  if (ticks->minor_step_ps <= 0)
    ticks->minor_step_ps = step;
  ticks->unit_ps = unit;
  ticks->decimals = log10_i64 (unit) > step_exp ? log10_i64 (unit) - step_exp : 0;

  /* Labels of four digits or more before the point ("9720 ms",
   * "143700 ms") are a larger unit's worth, unreadable at a glance: count
   * from a round base before the window instead. The base is a multiple
   * of ten times the step's decade, so that the offsets stay below a
   * thousand units. Seconds, the largest unit, go on counting. */
  magnitude = MAX (ABS (t0_ps), ABS (t1_ps)) / unit;
  ticks->relative = magnitude >= 1000 && unit < PLANAR_PS_PER_S;
  ticks->base_step_ps = decade <= G_MAXINT64 / 10 ? decade * 10 : decade;
  ticks->base_ps = 0;
  if (ticks->relative)
    ticks->base_ps = floor_div (t0_ps, ticks->base_step_ps) * ticks->base_step_ps;

  /* The first multiple of the step at or after t0. */
  ticks->first_ps = floor_div (t0_ps, step) * step;
  if (ticks->first_ps < t0_ps)
    ticks->first_ps += step;
}

void
planar_time_ticks_format (const PlanarTimeTicks *ticks,
                          gint64                 t_ps,
                          char                  *buf,
                          gsize                  size)
{
  char number[64];

  g_return_if_fail (ticks != NULL);
  g_return_if_fail (buf != NULL);

  if (ticks->relative)
    {
      planar_time_format_fixed (t_ps - ticks->base_ps, ticks->unit_ps, ticks->decimals, number, sizeof number);
      g_snprintf (buf, size, "+%s %s", number, planar_time_unit_name (ticks->unit_ps));
    }
  else
    {
      planar_time_format_fixed (t_ps, ticks->unit_ps, ticks->decimals, number, sizeof number);
      g_snprintf (buf, size, "%s %s", number, planar_time_unit_name (ticks->unit_ps));
    }
}

void
planar_time_ticks_format_base (const PlanarTimeTicks *ticks,
                               char                  *buf,
                               gsize                  size)
{
  gint64 unit = 1;
  guint decimals;
  char number[64];

  g_return_if_fail (ticks != NULL);
  g_return_if_fail (buf != NULL);

  /* The largest unit not above the base (seconds for a base of 2.6 s),
   * with the decimals its rounding needs. */
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (units[i] <= MAX (ABS (ticks->base_ps), 1))
      unit = units[i];
  decimals = log10_i64 (unit) > log10_i64 (ticks->base_step_ps) ? log10_i64 (unit) - log10_i64 (ticks->base_step_ps) : 0;
  planar_time_format_fixed (ticks->base_ps, unit, decimals, number, sizeof number);
  g_snprintf (buf, size, "%s %s", number, planar_time_unit_name (unit));
}

void
planar_time_format_duration (gint64  ps,
                             char   *buf,
                             gsize   size)
{
  gint64 magnitude = ps < 0 ? -ps : ps;
  gint64 unit = 1;
  char number[64];
  char *end;

  g_return_if_fail (buf != NULL);

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (magnitude >= units[i])
      unit = units[i];
  if (magnitude == 0)
    unit = PLANAR_PS_PER_S;
  planar_time_format_fixed (ps, unit, MIN (3, log10_i64 (unit)), number, sizeof number);
  if (strchr (number, '.') != NULL)
    {
      end = number + strlen (number) - 1;
      while (*end == '0')
        *end-- = '\0';
      if (*end == '.')
        *end = '\0';
    }
  g_snprintf (buf, size, "%s %s", number, planar_time_unit_name (unit));
}
