/* planar-fuzz.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planar-model.h"

static char *scratch_dir;

static void
remove_scratch (void)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (scratch_dir == NULL)
    return;
  dir = g_dir_open (scratch_dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (scratch_dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (scratch_dir);
}

const char *
planar_fuzz_write_input (const uint8_t *data,
                         size_t         size,
                         const char    *suffix)
{
  static GHashTable *paths;
  char *path;
  int fd;

  if (scratch_dir == NULL)
    {
      scratch_dir = g_dir_make_tmp ("planar-fuzz-XXXXXX", NULL);
      g_assert (scratch_dir != NULL);
      paths = g_hash_table_new (g_str_hash, g_str_equal);
      atexit (remove_scratch);
    }
  path = g_hash_table_lookup (paths, suffix);
  if (path == NULL)
    {
      path = g_strdup_printf ("%s/input%s", scratch_dir, suffix);
      g_hash_table_insert (paths, g_strdup (suffix), path);
    }

  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  g_assert (fd >= 0);
  while (size > 0)
    {
      ssize_t n = write (fd, data, size);

      if (n < 0 && errno == EINTR)
        continue;
      g_assert (n > 0);
      data += n;
      size -= (size_t) n;
    }
  close (fd);
  return path;
}

/* The queries a viewer runs on what it loaded. */
void
planar_fuzz_exercise (PlanarTrace *trace)
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

