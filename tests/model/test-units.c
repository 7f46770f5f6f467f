/* test-units.c: reading and writing durations.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-units.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <string.h>

#define PS_PER_MS G_GINT64_CONSTANT (1000000000)

static void
test_parse_units (void)
{
  static const struct { const char *text; gint64 ps; } cases[] = {
    { "1.5 ms", G_GINT64_CONSTANT (1500000000) },
    { "250us", 250000000 },
    { "250 µs", 250000000 },
    { "250μs", 250000000 },
    { "3s", G_GINT64_CONSTANT (3000000000000) },
    { " 3 S ", G_GINT64_CONSTANT (3000000000000) },
    { "12345 ns", 12345000 },
    { "40ps", 40 },
    { "0", 0 },
    { "+2 ms", 2 * PS_PER_MS },
    { ".5 ns", 500 },
    { "1,25 ms", G_GINT64_CONSTANT (1250000000) },
    /* Digits past the picosecond are dropped, not rounded. */
    { "1.0000009 ns", 1000 },
    { "0.123456789012 s", G_GINT64_CONSTANT (123456789012) },
    { "1:02.5", G_GINT64_CONSTANT (62500000000000) },
    { "0:00.001", PS_PER_MS },
    { "1:00:02", G_GINT64_CONSTANT (3602000000000000) },
    /* Without a unit: the default one. */
    { "7", 7 * PS_PER_MS },
    { "7.25", G_GINT64_CONSTANT (7250000000) },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 ps = -1;

      g_test_message ("%s", cases[i].text);
      g_assert_true (planar_parse_duration (cases[i].text, PS_PER_MS, &ps, &error));
      g_assert_no_error (error);
      g_assert_cmpint (ps, ==, cases[i].ps);
    }
}

static void
test_parse_default_unit (void)
{
  gint64 ps = 0;

  g_assert_true (planar_parse_duration ("3", 1000, &ps, NULL));
  g_assert_cmpint (ps, ==, 3000);
  g_assert_true (planar_parse_duration ("3 ms", 1000, &ps, NULL));
  g_assert_cmpint (ps, ==, 3 * PS_PER_MS);
}

/* Default unit 0, the command line's: a unit (or m:ss) is required. */
static void
test_parse_unit_required (void)
{
  g_autoptr(GError) error = NULL;
  gint64 ps = 0;

  g_assert_false (planar_parse_duration ("3", 0, &ps, &error));
  g_assert_error (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_NO_UNIT);
  g_assert_true (planar_parse_duration ("3us", 0, &ps, NULL));
  g_assert_cmpint (ps, ==, 3000000);
  g_assert_true (planar_parse_duration ("1:02.5", 0, &ps, NULL));
  g_assert_cmpint (ps, ==, G_GINT64_CONSTANT (62500000000000));
}

static void
test_parse_errors (void)
{
  static const struct { const char *text; PlanarUnitsError code; } cases[] = {
    { "", PLANAR_UNITS_ERROR_EMPTY },
    { "   ", PLANAR_UNITS_ERROR_EMPTY },
    { "ms", PLANAR_UNITS_ERROR_INVALID },
    { "abc", PLANAR_UNITS_ERROR_INVALID },
    { ".", PLANAR_UNITS_ERROR_INVALID },
    { "1.5 xs", PLANAR_UNITS_ERROR_UNKNOWN_UNIT },
    { "2 minutes", PLANAR_UNITS_ERROR_UNKNOWN_UNIT },
    { "1 ms 2", PLANAR_UNITS_ERROR_UNKNOWN_UNIT },
    { "1 !", PLANAR_UNITS_ERROR_INVALID },
    { "1:", PLANAR_UNITS_ERROR_INVALID },
    { "1:75", PLANAR_UNITS_ERROR_INVALID },
    { "1.5:02", PLANAR_UNITS_ERROR_INVALID },
    { "1:02.5:03", PLANAR_UNITS_ERROR_INVALID },
    { "1:02.0:03", PLANAR_UNITS_ERROR_INVALID },
    { "1.0:02", PLANAR_UNITS_ERROR_INVALID },
    { "1:2:3:4", PLANAR_UNITS_ERROR_INVALID },
    { "-1 ms", PLANAR_UNITS_ERROR_OUT_OF_RANGE },
    { "10000000 s", PLANAR_UNITS_ERROR_OUT_OF_RANGE },
    { "99999999999999999999999 ps", PLANAR_UNITS_ERROR_OUT_OF_RANGE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 ps = 42;

      g_test_message ("%s", cases[i].text);
      g_assert_false (planar_parse_duration (cases[i].text, PS_PER_MS, &ps, &error));
      g_assert_error (error, PLANAR_UNITS_ERROR, (int) cases[i].code);
      g_assert_cmpint (ps, ==, 42);
    }
}

/* What planar_format_duration() writes reads back to within its three
 * decimals. */
static void
test_round_trip (void)
{
  static const gint64 values[] = { 0, 999, 1000, 123456, G_GINT64_CONSTANT (98765432109), G_GINT64_CONSTANT (5000000000000) };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *text = planar_format_duration (values[i]);
      gint64 ps = -1;
      gint64 tolerance = values[i] / 1000 + 1;

      g_assert_true (planar_parse_duration (text, PS_PER_MS, &ps, NULL));
      g_assert_cmpint (ABS (ps - values[i]), <=, tolerance);
    }
}

/* Times in the details pane: every digit down to the nanosecond, grouped
 * by three, so that two events a nanosecond apart read differently. */
static void
test_format_exact (void)
{
  static const struct { gint64 ps; const char *text; } cases[] = {
    { G_GINT64_CONSTANT (33804123456000), "33.804 123 456 s" },
    { G_GINT64_CONSTANT (4588000000000), "4.588 000 000 s" },
    { G_GINT64_CONSTANT (4588000001000), "4.588 000 001 s" },
    { 146123000, "146.123 µs" },
    { 146000000, "146.000 µs" },
    { G_GINT64_CONSTANT (4512345000), "4.512 345 ms" },
    { G_GINT64_CONSTANT (1000000000000), "1.000 000 000 s" },
    { 1000, "1 ns" },
    { 999000, "999 ns" },
    /* Picoseconds only when there are some. */
    { 1234567, "1.234 567 µs" },
    { 1500, "1.500 ns" },
    { 42, "42 ps" },
    { 0, "0 s" },
    { -G_GINT64_CONSTANT (2500000000), "-2.500 000 ms" },
    { G_MAXINT64, "9223372.036 854 775 807 s" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = planar_format_time_exact (cases[i].ps);
      g_autofree char *expected = NULL;
      GString *plain = g_string_new (NULL);

      /* The cases above write the narrow no-break space as a space. */
      for (const char *c = text; *c != '\0'; c++)
        {
          if (g_str_has_prefix (c, "\xe2\x80\xaf"))
            {
              g_string_append_c (plain, ' ');
              c += 2;
            }
          else
            g_string_append_c (plain, *c);
        }
      expected = g_string_free (plain, FALSE);
      g_assert_cmpstr (expected, ==, cases[i].text);
      g_assert_null (strstr (text, "  "));
    }
}

/* What planar_format_time_exact() writes, copied from the pane, reads back
 * exactly, and so do the groups typed with plain or thin spaces. */
static void
test_exact_round_trip (void)
{
  static const gint64 values[] = {
    0, 1, 999, 1000, 146123000, 1234567, G_GINT64_CONSTANT (33804123456000), G_GINT64_CONSTANT (33804123456789),
    G_GINT64_CONSTANT (98765432109), G_GINT64_CONSTANT (5000000000000),
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *text = planar_format_time_exact (values[i]);
      g_autoptr(GError) error = NULL;
      gint64 ps = -1;

      g_test_message ("%s", text);
      g_assert_true (planar_parse_duration (text, PS_PER_MS, &ps, &error));
      g_assert_no_error (error);
      g_assert_cmpint (ps, ==, values[i]);
    }
  {
    gint64 ps = -1;

    g_assert_true (planar_parse_duration ("33.804 123 456 s", PS_PER_MS, &ps, NULL));
    g_assert_cmpint (ps, ==, G_GINT64_CONSTANT (33804123456000));
    g_assert_true (planar_parse_duration ("33.804\xe2\x80\x89" "123 s", PS_PER_MS, &ps, NULL));
    g_assert_cmpint (ps, ==, G_GINT64_CONSTANT (33804123000000));
    /* Only digits of a fraction are grouped. */
    g_assert_false (planar_parse_duration ("33 804 s", PS_PER_MS, &ps, NULL));
    g_assert_false (planar_parse_duration ("1. 5 ms", PS_PER_MS, &ps, NULL));
  }
}

/* The model's errors come in the user's language, from the project's
 * domain, once the program that runs it binds the domain (planar and
 * planar-cli do); here the build's German catalog. */
static void
test_translated_errors (void)
{
  const char *dir = g_getenv ("PLANAR_LOCALE_DIR");
  g_autofree char *catalog = NULL;
  g_autoptr(GError) error = NULL;
  gint64 ps = -1;

  if (dir != NULL)
    catalog = g_build_filename (dir, "de", "LC_MESSAGES", "planar.mo", NULL);
  if (catalog == NULL || !g_file_test (catalog, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("the build has no German catalog (po/de/LC_MESSAGES/planar.mo)");
      return;
    }
  /* GNU gettext ignores LANGUAGE in the plain C locale, not in C.UTF-8. */
  if (setlocale (LC_ALL, "C.UTF-8") == NULL)
    {
      g_test_skip ("no C.UTF-8 locale");
      return;
    }
  bindtextdomain ("planar", dir);
  bind_textdomain_codeset ("planar", "UTF-8");
  g_setenv ("LANGUAGE", "de", TRUE);
  g_assert_false (planar_parse_duration ("12 parsecs", PS_PER_MS, &ps, &error));
  g_unsetenv ("LANGUAGE");
  setlocale (LC_ALL, "C");
  g_assert_error (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_UNKNOWN_UNIT);
  g_assert_cmpstr (error->message, ==, "unbekannte Einheit „parsecs“ in „12 parsecs“");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/units/parse", test_parse_units);
  g_test_add_func ("/units/parse-default-unit", test_parse_default_unit);
  g_test_add_func ("/units/parse-unit-required", test_parse_unit_required);
  g_test_add_func ("/units/parse-errors", test_parse_errors);
  g_test_add_func ("/units/round-trip", test_round_trip);
  g_test_add_func ("/units/format-exact", test_format_exact);
  g_test_add_func ("/units/exact-round-trip", test_exact_round_trip);
  g_test_add_func ("/units/translated-errors", test_translated_errors);

  return g_test_run ();
}
