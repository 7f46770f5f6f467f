/* planar-stat-format.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-stat-format.h"

#include <math.h>
#include <string.h>

#include "planar-units.h"

PlanarStatUnit
planar_stat_unit_for_name (const char *name)
{
  static const struct { const char *name; PlanarStatUnit unit; } exact[] = {
    { "flops", PLANAR_STAT_UNIT_FLOPS },
    { "model_flops", PLANAR_STAT_UNIT_FLOPS },
    { "peak_teraflops_per_second", PLANAR_STAT_UNIT_TERAFLOPS_PER_SECOND },
    { "memory_bandwidth", PLANAR_STAT_UNIT_BYTES_PER_SECOND },
    { "memory_size", PLANAR_STAT_UNIT_BYTES },
    { "buffer_size", PLANAR_STAT_UNIT_BYTES },
    { "input_size", PLANAR_STAT_UNIT_BYTES },
    { "fragmentation", PLANAR_STAT_UNIT_NONE },
    { "profile_start_time", PLANAR_STAT_UNIT_EPOCH_NANOSECONDS },
    { "profile_stop_time", PLANAR_STAT_UNIT_EPOCH_NANOSECONDS },
    { "gpu_temp_c", PLANAR_STAT_UNIT_CELSIUS },
  };

  if (name == NULL || name[0] == '\0')
    return PLANAR_STAT_UNIT_NONE;
  for (guint i = 0; i < G_N_ELEMENTS (exact); i++)
    if (strcmp (name, exact[i].name) == 0)
      return exact[i].unit;

  if (g_str_has_suffix (name, "_gigabytes_per_second"))
    return PLANAR_STAT_UNIT_GIGABYTES_PER_SECOND;
  if (strstr (name, "bytes") != NULL && strstr (name, "per_second") == NULL)
    return PLANAR_STAT_UNIT_BYTES;
  if (g_str_has_suffix (name, "_ps"))
    return PLANAR_STAT_UNIT_PICOSECONDS;
  if (g_str_has_suffix (name, "_ns"))
    return PLANAR_STAT_UNIT_NANOSECONDS;
  if (g_str_has_suffix (name, "_us"))
    return PLANAR_STAT_UNIT_MICROSECONDS;
  if (g_str_has_suffix (name, "_ms"))
    return PLANAR_STAT_UNIT_MILLISECONDS;
  if (g_str_has_suffix (name, "_pct") || strstr (name, "percent") != NULL)
    return PLANAR_STAT_UNIT_PERCENT;
  if (g_str_has_suffix (name, "_mhz"))
    return PLANAR_STAT_UNIT_MEGAHERTZ;
  if (g_str_has_suffix (name, "_mw"))
    return PLANAR_STAT_UNIT_MILLIWATTS;
  return PLANAR_STAT_UNIT_NONE;
}

/* "1,572,864" for 1572864. */
static char *
group_digits (guint64 value)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, value);
  GString *out = g_string_new (NULL);
  gsize n = strlen (digits);

  for (gsize i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

/* @value with an SI prefix and @unit: "2.35 GFLOP", "900.00 GB/s". */
static char *
format_si (double      value,
           const char *unit)
{
  static const char prefixes[] = { 'k', 'M', 'G', 'T', 'P', 'E' };
  double mag = fabs (value);
  int p = -1;

  while (p + 1 < (int) G_N_ELEMENTS (prefixes) && mag >= 1000.0)
    {
      mag /= 1000.0;
      value /= 1000.0;
      p++;
    }
  if (p < 0)
    return g_strdup_printf ("%.6g %s", value, unit);
  return g_strdup_printf ("%.2f %c%s", value, prefixes[p], unit);
}

static char *
format_bytes (double value)
{
  static const char * const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  double mag = fabs (value);
  int u = -1;
  g_autofree char *exact = NULL;

  if (value < 0 || value != floor (value) || value >= 18446744073709551616.0)
    return g_strdup_printf ("%.6g bytes", value);
  exact = group_digits ((guint64) value);
  if (mag < 1024.0)
    return g_strdup_printf ("%s %s", exact, value == 1.0 ? "byte" : "bytes");
  while (u + 1 < (int) G_N_ELEMENTS (units) && mag >= 1024.0)
    {
      mag /= 1024.0;
      u++;
    }
  return g_strdup_printf ("%.2f %s (%s bytes)", mag, units[u], exact);
}

static char *
format_epoch_ns (double value)
{
  g_autoptr(GDateTime) time = NULL;
  gint64 ns;
  g_autofree char *date = NULL;

  if (!(value >= 0 && value < 9.2e18))
    return g_strdup_printf ("%.0f ns", value);
  ns = (gint64) value;
  time = g_date_time_new_from_unix_utc (ns / 1000000000);
  if (time == NULL)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  date = g_date_time_format (time, "%Y-%m-%d %H:%M:%S");
  return g_strdup_printf ("%s.%09" G_GINT64_FORMAT " UTC", date, ns % 1000000000);
}

/* A time of @value units of @ps_per_unit picoseconds. */
static char *
format_time (double value,
             double ps_per_unit)
{
  double ps = value * ps_per_unit;

  if (!(fabs (ps) < 9.2e18))
    return g_strdup_printf ("%.6g s", value * ps_per_unit / 1e12);
  return planar_format_duration ((gint64) llround (ps));
}

char *
planar_format_quantity (double         value,
                        PlanarStatUnit unit)
{
  switch (unit)
    {
    case PLANAR_STAT_UNIT_PICOSECONDS:
      return format_time (value, 1.0);
    case PLANAR_STAT_UNIT_NANOSECONDS:
      return format_time (value, 1e3);
    case PLANAR_STAT_UNIT_MICROSECONDS:
      return format_time (value, 1e6);
    case PLANAR_STAT_UNIT_MILLISECONDS:
      return format_time (value, 1e9);
    case PLANAR_STAT_UNIT_BYTES:
      return format_bytes (value);
    case PLANAR_STAT_UNIT_FLOPS:
      return format_si (value, "FLOP");
    case PLANAR_STAT_UNIT_TERAFLOPS_PER_SECOND:
      return format_si (value * 1e12, "FLOP/s");
    case PLANAR_STAT_UNIT_GIGABYTES_PER_SECOND:
      return format_si (value * 1e9, "B/s");
    case PLANAR_STAT_UNIT_BYTES_PER_SECOND:
      return format_si (value, "B/s");
    case PLANAR_STAT_UNIT_PERCENT:
      return g_strdup_printf ("%.1f %%", value);
    case PLANAR_STAT_UNIT_MEGAHERTZ:
      return g_strdup_printf ("%.6g MHz", value);
    case PLANAR_STAT_UNIT_MILLIWATTS:
      return format_si (value / 1000.0, "W");
    case PLANAR_STAT_UNIT_CELSIUS:
      return g_strdup_printf ("%.6g °C", value);
    case PLANAR_STAT_UNIT_EPOCH_NANOSECONDS:
      return format_epoch_ns (value);
    case PLANAR_STAT_UNIT_NONE:
    default:
      return g_strdup_printf ("%.6g", value);
    }
}

/* "regs:32 grid:1,1,1" as "regs: 32\ngrid: 1,1,1"; NULL when @text is not
 * made of key:value tokens. */
static char *
format_details (const char *text,
                gsize       len)
{
  g_autofree char *copy = g_strndup (text, len);
  g_auto(GStrv) tokens = g_strsplit_set (copy, " \n", -1);
  GString *out = g_string_new (NULL);

  for (guint i = 0; tokens[i] != NULL; i++)
    {
      const char *colon;

      if (tokens[i][0] == '\0')
        continue;
      colon = strchr (tokens[i], ':');
      if (colon == NULL || colon == tokens[i])
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      if (out->len > 0)
        g_string_append_c (out, '\n');
      g_string_append_len (out, tokens[i], colon - tokens[i] + 1);
      g_string_append_c (out, ' ');
      g_string_append (out, colon + 1);
    }
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

/* Bytes values (serialized protobufs such as memory_access_breakdown) as
 * hex with their length. */
static char *
format_hex (const char *data,
            gsize       len)
{
  const gsize shown = MIN (len, 64);
  GString *out = g_string_new (NULL);

  for (gsize i = 0; i < shown; i++)
    g_string_append_printf (out, i == 0 ? "%02x" : " %02x", (guint8) data[i]);
  if (shown < len)
    g_string_append (out, " \xe2\x80\xa6");
  if (out->len > 0)
    g_string_append_c (out, ' ');
  g_string_append_printf (out, "(%" G_GSIZE_FORMAT " %s)", len, len == 1 ? "byte" : "bytes");
  return g_string_free (out, FALSE);
}

char *
planar_stat_format_display (const PlanarStat *stat)
{
  PlanarStatUnit unit;

  g_return_val_if_fail (stat != NULL, NULL);

  unit = planar_stat_unit_for_name (stat->name);
  switch (stat->kind)
    {
    case PLANAR_STAT_INT64:
      if (unit != PLANAR_STAT_UNIT_NONE)
        return planar_format_quantity ((double) stat->v.i64, unit);
      break;
    case PLANAR_STAT_UINT64:
      if (unit != PLANAR_STAT_UNIT_NONE)
        return planar_format_quantity ((double) stat->v.u64, unit);
      break;
    case PLANAR_STAT_DOUBLE:
      if (unit != PLANAR_STAT_UNIT_NONE)
        return planar_format_quantity (stat->v.f64, unit);
      break;
    case PLANAR_STAT_STRING:
    case PLANAR_STAT_REF:
      if (stat->name != NULL && g_str_has_suffix (stat->name, "_details"))
        {
          char *details = format_details (stat->str.data, stat->str.len);

          if (details != NULL)
            return details;
        }
      /* context_id and friends: "$$<decimal>" (docs/formats.md §2.3). */
      if (stat->str.len > 2 && stat->str.len < 24 && memcmp (stat->str.data, "$$", 2) == 0)
        {
          gboolean digits = TRUE;

          for (gsize i = 2; i < stat->str.len; i++)
            digits = digits && g_ascii_isdigit (stat->str.data[i]);
          if (digits)
            return g_strndup (stat->str.data + 2, stat->str.len - 2);
        }
      break;
    case PLANAR_STAT_BYTES:
      return format_hex (stat->str.data, stat->str.len);
    case PLANAR_STAT_NONE:
    default:
      break;
    }
  return planar_stat_format_value (stat);
}

gboolean
planar_stat_is_key_stat (const char *name)
{
  static const char * const keys[] = {
    "hlo_module", "hlo_op", "tf_op", "tf_op_name", "source", "source_stack", "long_name", NULL,
  };

  return name != NULL && g_strv_contains (keys, name);
}

gboolean
planar_stat_is_internal (const char *name)
{
  static const char * const internal[] = { "_pt", "_p", "_ct", "_c", "_r", "_a", NULL };

  return name != NULL && g_strv_contains (internal, name);
}

gboolean
planar_format_achieved_rates (double   flops,
                              double   bytes,
                              gint64   duration_ps,
                              char   **flops_rate,
                              char   **bytes_rate)
{
  double seconds = (double) duration_ps / 1e12;

  g_return_val_if_fail (flops_rate != NULL && bytes_rate != NULL, FALSE);

  *flops_rate = NULL;
  *bytes_rate = NULL;
  if (duration_ps <= 0)
    return FALSE;
  if (flops > 0)
    *flops_rate = format_si (flops / seconds, "FLOP/s");
  if (bytes > 0)
    *bytes_rate = format_si (bytes / seconds, "B/s");
  return TRUE;
}

char *
planar_stat_micro_sign (const char *text)
{
  GString *out;

  g_return_val_if_fail (text != NULL, NULL);

  out = g_string_new (NULL);
  for (const char *p = text; *p != '\0'; p++)
    {
      /* "us" as a unit: after a digit and a space, before the end or a
       * character that is not a letter. */
      if (p[0] == 'u' && p[1] == 's' && p > text + 1 && p[-1] == ' ' && g_ascii_isdigit (p[-2])
          && !g_ascii_isalpha (p[2]))
        {
          g_string_append (out, "\xc2\xb5s");
          p++;
          continue;
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}
