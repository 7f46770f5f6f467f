/* planar-units.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-units.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#define PS_PER_S G_GINT64_CONSTANT (1000000000000)

G_DEFINE_QUARK (planar-units-error-quark, planar_units_error)

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

/* U+202F NARROW NO-BREAK SPACE: groups digits without letting a line
 * break inside a number. */
#define DIGIT_GROUP_SEPARATOR "\xe2\x80\xaf"

char *
planar_format_time_exact (gint64 ps)
{
  static const struct { gint64 scale; guint digits; const char *unit; } units[] = {
    { G_GINT64_CONSTANT (1000000000000), 12, "s" },
    { 1000000000, 9, "ms" },
    { 1000000, 6, "\xc2\xb5s" },  /* U+00B5 MICRO SIGN */
    { 1000, 3, "ns" },
  };
  guint64 mag = ps < 0 ? (guint64) 0 - (guint64) ps : (guint64) ps;
  GString *text = g_string_new (ps < 0 ? "-" : "");

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (mag >= (guint64) units[i].scale || (mag == 0 && i == 0))
      {
        guint64 scale = (guint64) units[i].scale;
        guint64 frac = mag % scale;
        /* Down to the nanosecond, or the picosecond when there is one. */
        guint decimals = mag == 0 ? 0 : frac % 1000 != 0 ? units[i].digits : units[i].digits - 3;
        char digits[16];

        g_string_append_printf (text, "%" G_GUINT64_FORMAT, mag / scale);
        if (decimals > 0)
          {
            g_snprintf (digits, sizeof digits, "%0*" G_GUINT64_FORMAT, (int) units[i].digits, frac);
            g_string_append_c (text, '.');
            for (guint d = 0; d < decimals; d++)
              {
                if (d > 0 && d % 3 == 0)
                  g_string_append (text, DIGIT_GROUP_SEPARATOR);
                g_string_append_c (text, digits[d]);
              }
          }
        g_string_append_printf (text, " %s", units[i].unit);
        return g_string_free (text, FALSE);
      }
  g_string_append_printf (text, "%" G_GUINT64_FORMAT " ps", mag);
  return g_string_free (text, FALSE);
}

static const char *
skip_blanks (const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

/* The length of the digit group separator at @s (a space, a thin space
 * or a narrow no-break space), or 0. */
static gsize
digit_separator_length (const char *s)
{
  if (*s == ' ')
    return 1;
  if (g_str_has_prefix (s, "\xe2\x80\x89") || g_str_has_prefix (s, DIGIT_GROUP_SEPARATOR))
    return 3;
  return 0;
}

/* A decimal number at *@p: its whole part and up to 12 fraction digits
 * scaled to a picosecond fraction of one (0 to 10^12 - 1). Advances *@p. */
static gboolean
read_decimal (const char **p,
              guint64     *whole,
              guint64     *frac_ps,
              gboolean    *overflow)
{
  const char *s = *p;
  gboolean any = FALSE;
  guint64 frac_scale = (guint64) PS_PER_S;

  *whole = 0;
  *frac_ps = 0;
  *overflow = FALSE;
  while (g_ascii_isdigit (*s))
    {
      guint d = (guint) (*s - '0');

      if (*whole > (G_MAXUINT64 - d) / 10)
        *overflow = TRUE;
      else
        *whole = *whole * 10 + d;
      any = TRUE;
      s++;
    }
  if (*s == '.' || *s == ',')
    {
      s++;
      for (;;)
        {
          gsize separator = digit_separator_length (s);

          /* A separator between digits of the fraction: "0.804 123". */
          if (separator > 0 && g_ascii_isdigit (s[-1]) && g_ascii_isdigit (s[separator]))
            s += separator;
          if (!g_ascii_isdigit (*s))
            break;
          frac_scale /= 10;
          *frac_ps += (guint64) (*s - '0') * frac_scale;
          any = TRUE;
          s++;
        }
    }
  *p = s;
  return any;
}

/* @whole units and @frac_ps of one unit, in ps: FALSE on overflow. */
static gboolean
scale_to_ps (guint64  whole,
             guint64  frac_ps,
             guint64  unit_ps,
             gint64  *ps)
{
  guint64 total;

  if (whole > (guint64) G_MAXINT64 / unit_ps)
    return FALSE;
  total = whole * unit_ps;
  /* frac_ps < 10^12 and unit_ps <= 10^12 would overflow a product, so
   * the fraction is taken in two steps. */
  total += (frac_ps / 1000000) * (unit_ps / 1000000) + (frac_ps % 1000000) * (unit_ps / 1000000) / 1000000
           + (frac_ps / 1000000) * (unit_ps % 1000000) / 1000000;
  if (total > (guint64) G_MAXINT64)
    return FALSE;
  *ps = (gint64) total;
  return TRUE;
}

static gboolean
has_decimal_point (const char *start,
                   const char *end)
{
  for (const char *c = start; c < end; c++)
    if (*c == '.' || *c == ',')
      return TRUE;
  return FALSE;
}

static gboolean
out_of_range (const char  *text,
              GError     **error)
{
  g_set_error (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_OUT_OF_RANGE,
               _("duration “%s” is out of range"), text);
  return FALSE;
}

gboolean
planar_parse_duration (const char  *text,
                       gint64       default_unit_ps,
                       gint64      *ps,
                       GError     **error)
{
  static const struct { const char *name; gint64 scale; } units[] = {
    { "ps", 1 },
    { "ns", 1000 },
    { "us", 1000000 },
    { "\xc2\xb5s", 1000000 },  /* U+00B5 MICRO SIGN */
    { "\xce\xbcs", 1000000 },  /* U+03BC GREEK SMALL LETTER MU */
    { "ms", 1000000000 },
    { "s", G_GINT64_CONSTANT (1000000000000) },
  };
  const char *p, *number;
  guint64 whole, frac;
  gboolean overflow;
  gint64 result;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (default_unit_ps >= 0, FALSE);
  g_return_val_if_fail (ps != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  p = skip_blanks (text);
  if (*p == '\0')
    {
      g_set_error_literal (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_EMPTY, _("no duration given"));
      return FALSE;
    }
  if (*p == '-')
    return out_of_range (text, error);
  if (*p == '+')
    p++;

  number = p;
  if (!read_decimal (&p, &whole, &frac, &overflow))
    {
      g_set_error (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_INVALID,
                   _("“%s” does not start with a number"), text);
      return FALSE;
    }
  if (overflow)
    return out_of_range (text, error);

  if (*p == ':')
    {
      /* [h:]m:ss[.frac]: the fields before the last are whole numbers. */
      guint64 fields[3] = { whole, 0, 0 };
      guint64 last_frac = 0;
      guint n = 1;

      /* Only the seconds, last, may have a fraction. */
      if (has_decimal_point (number, p))
        goto invalid;
      while (*p == ':')
        {
          p++;
          if (n == 3 || !g_ascii_isdigit (*p))
            goto invalid;
          number = p;
          if (!read_decimal (&p, &fields[n], &last_frac, &overflow) || overflow)
            goto invalid;
          if (fields[n] >= 60 || (*p == ':' && has_decimal_point (number, p)))
            goto invalid;
          n++;
        }
      p = skip_blanks (p);
      if (*p != '\0')
        goto invalid;
      if (n == 2)
        whole = fields[0] * 60 + fields[1];
      else
        {
          if (fields[1] >= 60 || fields[0] > G_MAXUINT32)
            goto invalid;
          whole = fields[0] * 3600 + fields[1] * 60 + fields[2];
        }
      if (!scale_to_ps (whole, last_frac, (guint64) PS_PER_S, &result))
        return out_of_range (text, error);
      *ps = result;
      return TRUE;
    }

  p = skip_blanks (p);
  if (*p == '\0' && default_unit_ps == 0)
    {
      g_set_error (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_NO_UNIT,
                   _("“%s” has no unit (ps, ns, us, ms or s)"), text);
      return FALSE;
    }
  if (*p == '\0')
    {
      if (!scale_to_ps (whole, frac, (guint64) default_unit_ps, &result))
        return out_of_range (text, error);
      *ps = result;
      return TRUE;
    }
  {
    const char *end = p + strlen (p);
    g_autofree char *unit = NULL;

    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
      end--;
    unit = g_ascii_strdown (p, end - p);
    for (guint i = 0; i < G_N_ELEMENTS (units); i++)
      if (strcmp (unit, units[i].name) == 0)
        {
          if (!scale_to_ps (whole, frac, (guint64) units[i].scale, &result))
            return out_of_range (text, error);
          *ps = result;
          return TRUE;
        }
    if (g_ascii_isalpha (*p) || (guchar) *p >= 0x80)
      {
        g_set_error (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_UNKNOWN_UNIT,
                     _("unknown unit “%s” in “%s”"), unit, text);
        return FALSE;
      }
  }

invalid:
  g_set_error (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_INVALID,
               _("“%s” is not a duration"), text);
  return FALSE;
}
