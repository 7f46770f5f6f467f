/* planar-units.h: times and sizes for people.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @ps picoseconds in the largest unit that keeps it >= 1 (ps, ns, us, ms, s),
 * with up to three decimals: "12.345 ms". Returns: (transfer full). */
char *planar_format_duration (gint64 ps);

G_END_DECLS
