/* test-time-ticks.c: where the ticks of the time axis go and how they read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-time-ticks.h"
#include "planar-units.h"

#define PS_PER_MS G_GINT64_CONSTANT (1000000000)

/* The integer part of an axis label: its digits before the point. */
static guint
label_integer_digits (const char *label)
{
  guint n = 0;

  if (*label == '+' || *label == '-')
    label++;
  while (g_ascii_isdigit (label[n]))
    n++;
  return n;
}

/* The value of an axis label ("+1.5 ms") in ps, read back. */
static gint64
label_ps (const char *label)
{
  gint64 ps = -1;

  g_assert_true (planar_parse_duration (label[0] == '+' ? label + 1 : label, PS_PER_MS, &ps, NULL));
  return ps;
}

/* The axis never reads "143700 ms": a window 143.7 s in counts from a
 * base, in the unit of its span, and every label reads back to its tick. */
static void
test_axis_labels (void)
{
  PlanarTimeTicks ticks;
  char label[64], base[64];

  /* 150 ms at 143.6 s over 1400 px: the bug's window. */
  planar_time_ticks_compute (&ticks, G_GINT64_CONSTANT (143600000000000), G_GINT64_CONSTANT (143750000000000), 1400, 110);
  g_assert_cmpint (ticks.unit_ps, ==, PLANAR_PS_PER_MS);
  g_assert_true (ticks.relative);
  planar_time_ticks_format (&ticks, G_GINT64_CONSTANT (143700000000000), label, sizeof label);
  g_assert_cmpstr (label, ==, "+100 ms");
  planar_time_ticks_format_base (&ticks, base, sizeof base);
  g_assert_cmpstr (base, ==, "143.6 s");

  /* The whole of a 150 s profile: plain seconds. */
  planar_time_ticks_compute (&ticks, 0, G_GINT64_CONSTANT (150000000000000), 1400, 110);
  g_assert_false (ticks.relative);
  g_assert_cmpint (ticks.unit_ps, ==, PLANAR_PS_PER_S);
  planar_time_ticks_format (&ticks, G_GINT64_CONSTANT (140000000000000), label, sizeof label);
  g_assert_cmpstr (label, ==, "140 s");

  /* 150 ms at 9.6 s: "+20 ms" from "9.6 s", not "9620 ms". */
  planar_time_ticks_compute (&ticks, G_GINT64_CONSTANT (9600000000000), G_GINT64_CONSTANT (9750000000000), 1180, 110);
  g_assert_true (ticks.relative);
  planar_time_ticks_format (&ticks, G_GINT64_CONSTANT (9620000000000), label, sizeof label);
  g_assert_cmpstr (label, ==, "+20 ms");
  planar_time_ticks_format_base (&ticks, base, sizeof base);
  g_assert_cmpstr (base, ==, "9.6 s");

  /* Any window, anywhere in an hour: labels of at most three digits
   * before the point (seconds, the largest unit, go on counting), which
   * read back to their ticks. */
  for (gint64 span = 1000; span < G_GINT64_CONSTANT (4000000000000000); span = span * 7 / 2 + 13)
    for (gint64 t0 = 0; t0 < G_GINT64_CONSTANT (3600000000000000); t0 = t0 * 5 + span / 3 + 7)
      {
        planar_time_ticks_compute (&ticks, t0, t0 + span, 1400, 110);
        g_assert_cmpint (ticks.first_ps, >=, t0);
        for (gint64 t = ticks.first_ps; t <= t0 + span; t += ticks.step_ps)
          {
            planar_time_ticks_format (&ticks, t, label, sizeof label);
            g_assert_cmpuint (label_integer_digits (label), <=, ticks.unit_ps == PLANAR_PS_PER_S ? 4 : 3);
            g_assert_cmpint (label_ps (label) + ticks.base_ps, ==, t);
          }
        if (ticks.relative)
          {
            planar_time_ticks_format_base (&ticks, base, sizeof base);
            g_assert_cmpint (label_ps (base), ==, ticks.base_ps);
            g_assert_cmpint (ticks.base_ps, <=, t0);
          }
      }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/time-ticks/axis-labels", test_axis_labels);
  return g_test_run ();
}
