/* planar-derive-publish.c: a plane's lines: which kinds it has already
 * (so that none is derived twice), and publishing derived lines in the
 * room the loader reserved, never moving an array a reader may hold.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include <string.h>

gint64
_planar_derive_plane_start_ns (const PlanarPlane *plane,
                               guint              n_file_lines)
{
  gint64 start = 0;

  /* XLA's GetStartTimestampNs(): the earliest line timestamp. */
  for (guint l = 0; l < n_file_lines; l++)
    if (l == 0 || plane->lines[l].timestamp_ns < start)
      start = plane->lines[l].timestamp_ns;
  return start;
}

/* Moves plane @ctx's new metadata into the plane. The file's tracks are
 * published already, and their readers may hold the metadata array: it is
 * copied into a bigger one, published in one store, and the old one kept
 * until the trace goes. */
static void
install_metadata (PlaneContext *ctx)
{
  PlanarTrace *self = ctx->self;
  PlanarPlane *plane = ctx->plane;
  guint n = ctx->metadata->len;
  PlanarEventMetadata *grown;

  if (n == 0)
    return;
  grown = g_new (PlanarEventMetadata, plane->n_metadata + n);
  memcpy (grown, plane->metadata, plane->n_metadata * sizeof (PlanarEventMetadata));
  memcpy (grown + plane->n_metadata, ctx->metadata->data, n * sizeof (PlanarEventMetadata));
  _planar_trace_replace_metadata (self, plane, grown, plane->n_metadata + n);
  g_array_set_size (ctx->metadata, 0);
}

/* Appends @b's events as a new track and line of the plane, in the room the
 * loader left (never moving the arrays readers may hold), and publishes it. */
static gboolean
publish_line (PlanarTrace  *self,
              guint         p,
              LineBuilder  *b,
              gint64        timestamp_ns,
              GError      **error)
{
  PlanarPlane *plane = &self->planes[p];
  guint t = plane->n_tracks, l = plane->n_lines;
  PlanarTrack *track = &plane->tracks[t];
  PlanarLine *line = &plane->lines[l];

  g_assert (t < self->planes_priv[p].tracks_capacity && l < self->planes_priv[p].lines_capacity);

  memset (track, 0, sizeof *track);
  track->id = b->id;
  track->display_id = b->display_id;
  track->name = track->display_name = b->name;
  /* Each derived line gets a row of its own after the file's rows; the
   * viewer places it after its stream through source_track. */
  track->row = plane->n_rows;
  track->derived = TRUE;
  track->source_track = b->source_track;
  track->n_events = b->events->len;
  track->events = planar_spill_array_steal (b->events);
  if (!_planar_trace_finish_track (self, track, error))
    {
      _planar_track_clear_arrays (track);
      memset (track, 0, sizeof *track);
      return FALSE;
    }

  memset (line, 0, sizeof *line);
  line->id = track->id;
  line->display_id = track->display_id;
  line->name = line->display_name = track->name;
  line->timestamp_ns = timestamp_ns;
  line->n_events = track->n_events;
  line->track = t;
  line->derived = TRUE;

  __atomic_store_n (&plane->n_lines, l + 1, __ATOMIC_RELEASE);
  g_atomic_int_set (&self->track_ready[p][t], 1);
  plane->n_rows++;
  __atomic_store_n (&plane->n_tracks, t + 1, __ATOMIC_RELEASE);
  return TRUE;
}

/* Publishes the non-empty @builders in order while there is room. */
gboolean
_planar_derive_publish_lines (DeriveContext  *dc,
                              PlaneContext   *ctx,
                              LineBuilder   **builders,
                              guint           n_builders,
                              gint64         *timestamps_ns,
                              GError        **error)
{
  PlanarTrace *self = dc->self;
  PlanarPlane *plane = ctx->plane;
  const PlanarPlanePrivate *ppriv = &self->planes_priv[ctx->p];
  guint room = MIN (ppriv->tracks_capacity - plane->n_tracks,
                    ppriv->lines_capacity - plane->n_lines);
  guint published = 0;

  room = MIN (room, self->derive_max_tracks_per_plane);
  /* Lines cut short by the memory budget would mislead: none is shown. */
  if (ctx->over_budget)
    room = 0;
  install_metadata (ctx);
  for (guint i = 0; i < n_builders; i++)
    {
      if (builders[i]->events->len == 0)
        continue;
      /* No room left: the plane gets no more derived lines, and the trace
       * says how many it lost. */
      if (published == room)
        {
          _planar_derived_results_add_dropped (_planar_derived_results_get (self));
          continue;
        }
      if (!publish_line (self, ctx->p, builders[i], timestamps_ns[i], error))
        return FALSE;
      published++;
    }
  return TRUE;
}

static gboolean
name_is (const char *name,
         const char *base)
{
  gsize n = strlen (base);

  /* "XLA Ops" and XProf's per-stream "XLA Ops - from #7". */
  return strncmp (name, base, n) == 0 &&
         (name[n] == '\0' || g_str_has_prefix (name + n, " - from #"));
}

void
_planar_derive_find_native_lines (const PlanarPlane *plane,
                                  guint              n_file_tracks,
                                  NativeLines       *native)
{
  memset (native, 0, sizeof *native);
  for (guint t = 0; t < n_file_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];
      gint64 id = track->id;

      if (id == PLANAR_LINE_ID_STEPS || name_is (track->name, "Steps"))
        native->steps = TRUE;
      if (id == PLANAR_LINE_ID_LAUNCH_STATS || name_is (track->name, "Launch Stats"))
        native->launch_stats = TRUE;
      if (id == PLANAR_LINE_ID_FRAMEWORK_OPS || id == PLANAR_LINE_ID_FRAMEWORK_NAME_SCOPE ||
          name_is (track->name, "Framework Ops") || name_is (track->name, "Framework Name Scope") ||
          name_is (track->name, "TensorFlow Ops") || name_is (track->name, "TensorFlow Name Scope"))
        native->framework = TRUE;
      if (id == PLANAR_LINE_ID_XLA_OPS || id == PLANAR_LINE_ID_XLA_MODULES ||
          name_is (track->name, "XLA Ops") || name_is (track->name, "XLA Modules"))
        native->xla = TRUE;
      if (id == PLANAR_LINE_ID_SOURCE_CODE || name_is (track->name, "Source code"))
        native->source = TRUE;
      if (id >= PLANAR_LINE_ID_DEVICE_DERIVED_MIN && id <= PLANAR_LINE_ID_DEVICE_DERIVED_MAX)
        native->device_derived = TRUE;
      if ((id >= PLANAR_LINE_ID_HOST_OFFLOAD_MIN && id <= PLANAR_LINE_ID_HOST_OFFLOAD_MAX) ||
          g_str_has_prefix (track->name, "Host Offload Ops row "))
        native->host_offload = TRUE;
      if ((id >= PLANAR_LINE_ID_HOST_XLA_MIN && id <= PLANAR_LINE_ID_HOST_XLA_MAX) ||
          g_str_has_suffix (track->name, "-XLA Modules"))
        native->host_xla = TRUE;
    }
}
