/* planar-stat-format.h: stat values for people, with the units their names
 * imply (docs/formats.md §2.3).
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
 * strings as they are, bytes as hex: "0a 04 08 01 10 02 (6 bytes)",
 * the first 64 bytes of a longer value followed by "…". Returns: (transfer full). */
char          *planar_stat_format_display (const PlanarStat *stat);

/* Whether @name is one of the stats a details view shows first, as text
 * to copy: the HLO module and op, the framework op, the source and its
 * stack. */
gboolean       planar_stat_is_key_stat   (const char *name);

/* Whether @name is a stat XProf keeps for itself and never shows in its
 * trace viewer: the producer and consumer markers `_pt`, `_p`, `_ct`,
 * `_c`, the root marker `_r` and the async marker `_a`. */
gboolean       planar_stat_is_internal   (const char *name);

/* The achieved rates of an event that did @flops operations and moved
 * @bytes in @duration_ps: "12.3 GFLOP/s" in *@flops_rate and "456 GB/s"
 * in *@bytes_rate (each NULL when its count is not positive). Returns
 * FALSE, setting neither, when @duration_ps is not positive. */
gboolean       planar_format_achieved_rates (double   flops,
                                             double   bytes,
                                             gint64   duration_ps,
                                             char   **flops_rate,
                                             char   **bytes_rate);

/* @text with each time unit "us" spelled "µs", as the GUI writes it (the
 * CLI's text keeps ASCII). Returns: (transfer full). */
char          *planar_stat_micro_sign    (const char *text);

G_END_DECLS
