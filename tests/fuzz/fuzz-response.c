/* fuzz-response.c: the reader of the profiler servers' ProfileResponse
 * (capture/planar-capture-response.c), on any bytes. Every slice it hands
 * back is read to its end, so that ASan sees one that strays.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-capture-response.h"
#include "planar-fuzz.h"

#include <string.h>

/* Where the bytes read go, so that the reads are not optimized away. */
volatile guint8 planar_fuzz_response_sink;

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  PlanarCaptureResponse response;
  guint8 sum = 0;

  if (!planar_capture_response_parse (data, size, &response, &error))
    {
      g_assert (error != NULL);
      return 0;
    }
  for (gsize i = 0; i < response.xspace_len; i++)
    sum += response.xspace[i];
  for (guint t = 0; t < response.tools->len; t++)
    {
      const PlanarCaptureToolData *tool = &g_array_index (response.tools, PlanarCaptureToolData, t);

      for (gsize i = 0; i < tool->len; i++)
        sum += tool->data[i];
      if (tool->name != NULL)
        sum += (guint8) strlen (tool->name);
    }
  planar_fuzz_response_sink = sum;
  planar_capture_response_clear (&response);
  return 0;
}
