/* fuzz-cache.c: the cached index reader (model/io/planar-cache.c), on any
 * bytes, for one fixed profile. The key and header checksum are skipped,
 * so that the fuzzer reaches the sections behind them (a checksum it
 * cannot forge would stop it at the door); every index in what follows is
 * checked, and what restores is queried like a loaded profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache-private.h"
#include "planar-fuzz.h"
#include "planar-model.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarTrace) trace = planar_trace_open (PLANAR_FUZZ_CACHE_PROFILE, &error);

  g_assert_no_error (error);
  if (_planar_cache_restore_bytes (trace, data, size, FALSE, &error))
    planar_fuzz_exercise (trace);
  else
    {
      g_assert (error != NULL);
      /* Left as opened: it still decodes. */
      g_clear_error (&error);
      planar_cache_set_enabled (FALSE);
      g_assert (planar_trace_decode (trace, NULL, &error));
    }
  return 0;
}
