/* planar-stat-format.h: stat values for people, with the units their names
 * imply (FORMATS.md §2.3).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace.h"

G_BEGIN_DECLS

/* What a stat's value measures, from its name. */
typedef enum
{
  PLANAR_STAT_UNIT_NONE,
  /* Times: the name says the unit (`_ps`, `_ns`, `_us`, `_ms`). */
  PLANAR_STAT_UNIT_PICOSECONDS,
  PLANAR_STAT_UNIT_NANOSECONDS,
  PLANAR_STAT_UNIT_MICROSECONDS,
  PLANAR_STAT_UNIT_MILLISECONDS,
  PLANAR_STAT_UNIT_BYTES,
  /* Floating-point operations (`flops`, `model_flops`). */
  PLANAR_STAT_UNIT_FLOPS,
  PLANAR_STAT_UNIT_TERAFLOPS_PER_SECOND,
  PLANAR_STAT_UNIT_GIGABYTES_PER_SECOND,
  PLANAR_STAT_UNIT_BYTES_PER_SECOND,
  PLANAR_STAT_UNIT_PERCENT,
  PLANAR_STAT_UNIT_MEGAHERTZ,
  PLANAR_STAT_UNIT_MILLIWATTS,
  PLANAR_STAT_UNIT_CELSIUS,
  /* Wall-clock nanoseconds since 1970 (`profile_start_time`). */
  PLANAR_STAT_UNIT_EPOCH_NANOSECONDS,
} PlanarStatUnit;

PlanarStatUnit planar_stat_unit_for_name (const char *name);

/* @value in @unit for people: "1.500 ms", "1.50 MiB (1,572,864 bytes)",
 * "2.35 GFLOP", "45.0 %". Returns: (transfer full). */
char          *planar_format_quantity    (double          value,
                                          PlanarStatUnit  unit);

/* The value of @stat for people: numbers with their unit when the name
 * implies one, the `key:value` details strings (kernel_details,
 * memcpy_details, ...) one pair per line, `$$<n>` ids as the number, other
 * strings as they are, bytes as "<N bytes>". Returns: (transfer full). */
char          *planar_stat_format_display (const PlanarStat *stat);

/* Whether @name is one of the stats a details view shows first, as text
 * to copy: the HLO module and op, the framework op, the source and its
 * stack. */
gboolean       planar_stat_is_key_stat   (const char *name);

G_END_DECLS
