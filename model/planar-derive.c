/* planar-derive.c: the lines and indices the model derives from the file's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-private.h"

gboolean
_planar_trace_derive (PlanarTrace   *self,
                      GCancellable  *cancellable,
                      GError       **error)
{
  /* Being written: derived lines, flows and counters (issue 4). */
  return TRUE;
}
