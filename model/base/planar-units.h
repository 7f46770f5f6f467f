/* planar-units.h: times and sizes for people.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PLANAR_UNITS_ERROR (planar_units_error_quark ())

/**
 * PlanarUnitsError:
 * @PLANAR_UNITS_ERROR_EMPTY: nothing but blanks.
 * @PLANAR_UNITS_ERROR_INVALID: not a number, or characters after it that
 *   are not a unit.
 * @PLANAR_UNITS_ERROR_UNKNOWN_UNIT: a word after the number that is not one
 *   of ps, ns, us (µs), ms, s.
 * @PLANAR_UNITS_ERROR_OUT_OF_RANGE: negative, or more picoseconds than a
 *   gint64 holds.
 * @PLANAR_UNITS_ERROR_NO_UNIT: a bare number where a unit is required
 *   (@default_unit_ps 0).
 */
typedef enum
{
  PLANAR_UNITS_ERROR_EMPTY,
  PLANAR_UNITS_ERROR_INVALID,
  PLANAR_UNITS_ERROR_UNKNOWN_UNIT,
  PLANAR_UNITS_ERROR_OUT_OF_RANGE,
  PLANAR_UNITS_ERROR_NO_UNIT,
} PlanarUnitsError;

GQuark planar_units_error_quark (void);

/* @ps picoseconds in the largest unit that keeps it >= 1 (ps, ns, us, ms, s),
 * with up to three decimals: "12.345 ms". Returns: (transfer full). */
char     *planar_format_duration (gint64       ps);

/* @ps exactly, for a details pane that must tell adjacent events apart:
 * in the largest unit that keeps it >= 1 (s, ms, µs, ns; ps below a
 * nanosecond), with every decimal down to the nanosecond (to the
 * picosecond when @ps has a part below one), the decimals grouped by three
 * with a narrow no-break space (U+202F): "33.804 123 456 s",
 * "146.123 µs", "4.512 345 ms", "0 s". planar_parse_duration() reads it
 * back exactly. Returns: (transfer full). */
char     *planar_format_time_exact (gint64     ps);

/* Reads a duration a person typed: a number with an optional unit, blanks
 * allowed around and between ("1.5 ms", "250us", "3 s", "12345 ns", "7 µs",
 * "40ps", and "33.804 123 456 s": the digits of a fraction may be grouped
 * by spaces, thin spaces or narrow no-break spaces), or minutes and
 * seconds ("1:02.5", "1:00:02" with hours). The
 * units are ps, ns, us, µs, ms and s, in any case; a bare number is in
 * @default_unit_ps picoseconds (PLANAR_PS_PER_MS for milliseconds), or
 * refused with %PLANAR_UNITS_ERROR_NO_UNIT when @default_unit_ps is 0 (the
 * command line, where a bare number is too easily meant in another unit).
 * Decimals are exact to the picosecond (further digits are dropped).
 * Returns: TRUE with *@ps set, or FALSE with @error (PLANAR_UNITS_ERROR)
 * naming what was wrong. */
gboolean  planar_parse_duration  (const char  *text,
                                  gint64       default_unit_ps,
                                  gint64      *ps,
                                  GError     **error);

G_END_DECLS
