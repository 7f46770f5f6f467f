/* planar-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-error.h"

G_DEFINE_QUARK (planar-trace-error-quark, planar_trace_error)
