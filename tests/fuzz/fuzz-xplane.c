/* fuzz-xplane.c: the xplane loader and the queries a viewer runs on what
 * it loaded, on any bytes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-fuzz.h"
#include "planar-model.h"

static void
exercise (PlanarTrace *trace)
{
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (PlanarSpan));
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autoptr(GArray) flows = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  g_autoptr(PlanarAggregator) aggregator = planar_aggregator_new ();
  const PlanarFlowIndex *index = planar_trace_get_flows (trace);
  gint64 first = 0, last = 0;

  planar_trace_get_span (trace, &first, &last);
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];
          gint64 width = last > first ? (last - first) / 64 + 1 : 1;

          g_array_set_size (spans, 0);
          planar_track_query_spans (track, first, last, width, 0, G_MAXUINT, spans);
          planar_aggregator_add_track (aggregator, plane, track, first, last);
          /* A few events' stats, names and self times. */
          for (gsize i = 0; i < MIN (track->n_events, 16); i++)
            {
              g_autoptr(GError) error = NULL;
              g_autofree char *text = NULL;

              g_array_set_size (stats, 0);
              planar_trace_get_event_stats (trace, plane, &track->events[i], stats, &error);
              for (guint s = 0; s < stats->len; s++)
                {
                  g_free (text);
                  text = planar_stat_format_display (&g_array_index (stats, PlanarStat, s));
                }
              planar_plane_get_event_name (plane, &track->events[i], TRUE);
              planar_track_get_self_time (track, i);
            }
        }
    }
  g_array_unref (planar_aggregator_get_results (aggregator, PLANAR_AGGREGATE_SORT_SELF));
  if (index != NULL)
    planar_flow_index_query_range (index, PLANAR_FLOW_CATEGORY_ALL, first, last, flows);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *path = planar_fuzz_write_input (data, size, ".xplane.pb");
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarTrace) trace = planar_trace_load (path, NULL, &error);

  g_assert ((trace == NULL) != (error == NULL));
  if (trace != NULL)
    exercise (trace);
  return 0;
}
