/* fuzz-json.c: the Chrome Trace Event JSON importer (plain and gzip), and
 * the queries a viewer runs on what it imported, on any bytes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-fuzz.h"
#include "planar-model.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *path = planar_fuzz_write_input (data, size, ".trace.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarTrace) trace = planar_trace_load (path, NULL, &error);

  g_assert ((trace == NULL) != (error == NULL));
  if (trace != NULL)
    planar_fuzz_exercise (trace);
  return 0;
}
