/* fuzz-xplane.c: the xplane loader and the queries a viewer runs on what
 * it loaded, on any bytes. Each input is loaded a second time with every
 * line cut into pieces (planar-trace-split.c), which must end as the whole
 * read does: both fail, or both load the same events.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-fuzz.h"
#include "planar-cache.h"
#include "planar-model.h"
#include "planar-trace-loader-private.h"

static PlanarTrace *
load_in_pieces (const char  *path,
                GError     **error)
{
  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
  PlanarTraceTestOptions options = { NULL, NULL, -1, 0, 16 };
  gboolean ok;

  _planar_trace_loader_set_test_options (loader, &options);
  /* Decoded, not restored from the index the first load may have cached. */
  planar_cache_set_enabled (FALSE);
  ok = planar_trace_loader_open (loader, NULL, error) && planar_trace_loader_decode (loader, NULL, error);
  planar_cache_set_enabled (TRUE);
  return ok ? g_object_ref (planar_trace_loader_get_trace (loader)) : NULL;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *path = planar_fuzz_write_input (data, size, ".xplane.pb");
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) pieces_error = NULL;
  g_autoptr(PlanarTrace) trace = planar_trace_load (path, NULL, &error);
  g_autoptr(PlanarTrace) pieces = NULL;

  /* The first load's cached index is written on a thread: done before the
   * input is, so that a leak check sees no write in flight. */
  planar_cache_wait ();
  pieces = load_in_pieces (path, &pieces_error);

  g_assert ((trace == NULL) != (error == NULL));
  g_assert ((pieces == NULL) != (pieces_error == NULL));
  g_assert ((trace == NULL) == (pieces == NULL));
  if (trace != NULL)
    {
      gint64 a0 = 0, a1 = 0, b0 = 0, b1 = 0;

      g_assert (planar_trace_get_n_events (trace) == planar_trace_get_n_events (pieces));
      g_assert (planar_trace_get_n_planes (trace) == planar_trace_get_n_planes (pieces));
      g_assert (planar_trace_get_span (trace, &a0, &a1) == planar_trace_get_span (pieces, &b0, &b1));
      g_assert (a0 == b0 && a1 == b1);
      planar_fuzz_exercise (trace);
    }
  return 0;
}
