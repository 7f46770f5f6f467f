/* planar-trace-decode.c: decodes an XSpace's lines in parallel, on the
 * model's worker pool, into flat per-track event arrays (each line read by
 * planar-trace-decode-line.c, the longest in pieces by
 * planar-trace-split.c), and groups them into tracks. It knows nothing of
 * derived lines or of the cached index: the loader
 * (session/planar-trace-loader.c) runs those steps around it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-decode-private.h"
#include "planar-xspace-fields-private.h"

#include <glib/gi18n-lib.h>

#include <inttypes.h>

#include "planar-parallel.h"

#include <stdlib.h>
#include <string.h>

void
_planar_decode_fail (PlanarDecodeContext *ctx,
             GError        *error)
{
  g_mutex_lock (&ctx->lock);
  if (ctx->error == NULL)
    ctx->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&ctx->lock);
  g_atomic_int_set (&ctx->failed, 1);
}

gboolean
_planar_decode_stopped (PlanarDecodeContext *ctx)
{
  if (g_atomic_int_get (&ctx->failed))
    return TRUE;
  if (ctx->cancellable != NULL && g_cancellable_is_cancelled (ctx->cancellable))
    {
      GError *error = NULL;

      g_cancellable_set_error_if_cancelled (ctx->cancellable, &error);
      _planar_decode_fail (ctx, error);
      return TRUE;
    }
  return FALSE;
}

gboolean
_planar_decode_take_failure (PlanarDecodeContext  *ctx,
                             GError              **error)
{
  g_mutex_lock (&ctx->lock);
  if (ctx->error != NULL)
    g_propagate_error (error, g_error_copy (ctx->error));
  g_mutex_unlock (&ctx->lock);
  return FALSE;
}

gboolean
_planar_decode_claim_memory (PlanarDecodeContext *ctx,
              gsize          bytes)
{
  gint64 now = __atomic_add_fetch (&ctx->allocated, (gint64) bytes, __ATOMIC_RELAXED);

  if ((guint64) now > ctx->budget)
    {
      _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_TOO_LARGE,
                                     "%s needs more memory than its size justifies "
                                     "(over %" G_GUINT64_FORMAT " MiB for the index)",
                                     ctx->self->file_name, ctx->budget >> 20));
      return FALSE;
    }
  return TRUE;
}

PlanarSpillMode
_planar_decode_spill_mode (PlanarDecodeContext *ctx,
                           guint                p,
                           gsize                bytes)
{
  if (ctx->self->spill == PLANAR_SPILL_NEVER)
    return PLANAR_SPILL_NEVER;
  if (ctx->plane_heap != NULL && p < ctx->self->n_planes && ctx->plane_heap[p] &&
      __atomic_load_n (&ctx->heap_left, __ATOMIC_RELAXED) >= (gint64) bytes &&
      __atomic_sub_fetch (&ctx->heap_left, (gint64) bytes, __ATOMIC_RELAXED) >= 0)
    return PLANAR_SPILL_NEVER;
  return ctx->self->spill;
}

PlanarSpillMode
_planar_decode_depth_spill_mode (PlanarDecodeContext *ctx,
                                 guint                p,
                                 gsize                bytes)
{
  PlanarTrace *self = ctx->self;

  /* The allowance is 0 unless the index spills; smaller blocks are on the
   * heap anyway and take nothing from it. */
  if (bytes >= PLANAR_SPILL_MIN_BLOCK &&
      __atomic_load_n (&self->depth_heap_left, __ATOMIC_RELAXED) >= (gint64) bytes &&
      __atomic_sub_fetch (&self->depth_heap_left, (gint64) bytes, __ATOMIC_RELAXED) >= 0)
    return PLANAR_SPILL_NEVER;
  return _planar_decode_spill_mode (ctx, p, bytes);
}

static gboolean
build_track (PlanarDecodeContext *ctx,
             PlanarTrackJob      *tj)
{
  PlanarTrace *self = ctx->self;
  PlanarTrack *track = &self->planes[tj->plane].tracks[tj->track];
  gboolean sorted = TRUE;
  gsize n = 0, n_agg = 0;

  for (guint i = 0; i < tj->n_lines; i++)
    {
      PlanarLineJob *lj = &ctx->line_jobs[tj->lines[i]];

      n += lj->n_events;
      n_agg += lj->n_aggregated;
      sorted = sorted && lj->sorted;
    }

  if (tj->n_lines == 1)
    {
      PlanarLineJob *lj = &ctx->line_jobs[tj->lines[0]];

      track->events = g_steal_pointer (&lj->events);
      track->aggregated = g_steal_pointer (&lj->aggregated);
    }
  else
    {
      gsize at = 0, at_agg = 0;

      if (!_planar_decode_claim_memory (ctx, (n + n_agg) * sizeof (PlanarEvent)))
        return FALSE;
      track->events = planar_spill_alloc (MAX (n, 1) * sizeof (PlanarEvent),
                                          _planar_decode_spill_mode (ctx, tj->plane, MAX (n, 1) * sizeof (PlanarEvent)));
      track->aggregated = n_agg ? planar_spill_alloc (n_agg * sizeof (PlanarEvent),
                                                      _planar_decode_spill_mode (ctx, tj->plane, n_agg * sizeof (PlanarEvent)))
                                : NULL;
      for (guint i = 0; i < tj->n_lines; i++)
        {
          PlanarLineJob *lj = &ctx->line_jobs[tj->lines[i]];

          if (lj->n_events > 0)
            {
              if (at > 0 && _planar_event_before (&lj->events[0], &track->events[at - 1]))
                sorted = FALSE;
              memcpy (track->events + at, lj->events, lj->n_events * sizeof (PlanarEvent));
            }
          if (lj->n_aggregated > 0)
            memcpy (track->aggregated + at_agg, lj->aggregated, lj->n_aggregated * sizeof (PlanarEvent));
          at += lj->n_events;
          at_agg += lj->n_aggregated;
          g_clear_pointer (&lj->events, planar_spill_free);
          g_clear_pointer (&lj->aggregated, planar_spill_free);
        }
    }
  track->n_events = n;
  track->n_aggregated = n_agg;
  /* Trimmed where it is: a file-backed block keeps its size (the pages
   * past the events were never touched), one in memory gives the rest
   * back. */
  if (n > 0)
    track->events = planar_spill_renew (track->events, n * sizeof (PlanarEvent),
                                        n * sizeof (PlanarEvent), PLANAR_SPILL_NEVER);
  else
    g_clear_pointer (&track->events, planar_spill_free);
  if (n_agg > 0)
    track->aggregated = planar_spill_renew (track->aggregated, n_agg * sizeof (PlanarEvent),
                                            n_agg * sizeof (PlanarEvent), PLANAR_SPILL_NEVER);

  return _planar_decode_finish_track (ctx, tj->plane, track, sorted);
}


/* Events from which a plane's tracks are built side by side. */
#define PLANE_TRACKS_PARALLEL_MIN (1u << 20)

static void plan_plane_tracks (PlanarDecodeContext *ctx,
                               guint                p,
                               GArray              *track_jobs,
                               guint               *job);
static void align_lines       (PlanarDecodeContext *ctx,
                               const guint         *jobs,
                               guint                n_jobs);

/* Marks plane @p built and publishes, in the timeline's order, every plane
 * built whose planes above are published. Any worker. */
static void
publish_in_order (PlanarDecodeContext *ctx,
                  guint                p)
{
  PlanarTrace *self = ctx->self;
  gboolean published = FALSE;

  g_mutex_lock (&ctx->lock);
  ctx->plane_built[p] = TRUE;
  /* A cancel stops the publishing too: the planes built by then are not
   * shown, and the decode takes back what it had published. */
  while (ctx->n_published < ctx->n_order && ctx->plane_built[ctx->plane_order[ctx->n_published]] &&
         !g_atomic_int_get (&ctx->failed) &&
         !(ctx->cancellable != NULL && g_cancellable_is_cancelled (ctx->cancellable)))
    {
      guint q = ctx->plane_order[ctx->n_published++];

      /* Drawable from now on: their times are final and nothing changes
       * them (deriving adds tracks and metadata beside them). */
      for (guint t = 0; t < self->planes_priv[q].n_file_tracks; t++)
        g_atomic_int_set (&self->track_ready[q][t], 1);
      if (self->planes[q].n_lines > 0)
        {
          published = TRUE;
          /* For tests only (planar-mapping-private.h). */
          _planar_trace_test_point (self, "plane-published", self->path);
        }
    }
  g_mutex_unlock (&ctx->lock);
  if (published)
    _planar_trace_report_progress (self, PLANAR_LOAD_PHASE_DECODING_LINES, TRUE);
}

/* A plane's tracks built on workers of their own (build_plane_tracks()). */
typedef struct
{
  PlanarDecodeContext *ctx;
  PlanarTrackJob      *jobs;
} PlaneTracks;

static gboolean
plane_track_job (guint          job,
                 gpointer       data,
                 GCancellable  *cancellable,
                 GError       **error)
{
  PlaneTracks *pt = data;

  if (_planar_decode_stopped (pt->ctx) || !build_track (pt->ctx, &pt->jobs[job]))
    return _planar_decode_take_failure (pt->ctx, error);
  return TRUE;
}

static int compare_line_size_desc (gconstpointer a,
                                   gconstpointer b,
                                   gpointer      user_data);

/* Builds a plane's @n tracks. A plane with many events builds them side
 * by side, biggest first: the last plane's tracks are built when no line
 * is left to decode, and at 10^8 events the host's Python thread took
 * 3.6 s to index while its other threads' tracks waited 1.6 s behind it
 * with the other workers idle. */
static gboolean
build_plane_tracks (PlanarDecodeContext *ctx,
                    PlanarTrackJob      *jobs,
                    guint                n)
{
  g_autofree guint64 *sizes = g_new0 (guint64, MAX (n, 1));
  g_autofree guint *order = NULL;
  guint64 total = 0;
  PlaneTracks pt = { ctx, jobs };
  gboolean ok = TRUE;

  for (guint i = 0; i < n; i++)
    {
      for (guint l = 0; l < jobs[i].n_lines; l++)
        sizes[i] += ctx->line_jobs[jobs[i].lines[l]].n_events;
      total += sizes[i];
    }
  /* A test that cuts lines into pieces has small planes built side by
   * side as well. */
  if (n < 2 || (ctx->self->test_options.split_min <= 0 &&
                (total < PLANE_TRACKS_PARALLEL_MIN || planar_parallel_max_threads () < 2)))
    {
      for (guint i = 0; i < n && ok; i++)
        ok = !_planar_decode_stopped (ctx) && build_track (ctx, &jobs[i]);
      return ok;
    }
  order = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof (guint), compare_line_size_desc, sizes);
  /* A failure is in the context already. */
  return planar_parallel_run (n, order, plane_track_job, &pt, NULL, NULL);
}

/* The last line of plane @p decoded: aligns its lines, builds its tracks
 * and publishes them when the planes above are. */
static gboolean
finish_plane (PlanarDecodeContext *ctx,
              guint                p)
{
  PlanarTrace *self = ctx->self;
  guint n_lines = self->planes[p].n_lines;
  g_autofree guint *jobs = g_new (guint, MAX (n_lines, 1));
  g_autoptr(GArray) track_jobs = g_array_new (FALSE, TRUE, sizeof (PlanarTrackJob));
  guint job = ctx->first_job[p];
  gboolean ok = TRUE;

  for (guint l = 0; l < n_lines; l++)
    jobs[l] = ctx->first_job[p] + l;
  align_lines (ctx, jobs, n_lines);
  if (g_atomic_int_get (&ctx->failed))
    return FALSE;
  plan_plane_tracks (ctx, p, track_jobs, &job);
  ok = build_plane_tracks (ctx, (PlanarTrackJob *) (gpointer) track_jobs->data, track_jobs->len);
  for (guint i = 0; i < track_jobs->len; i++)
    g_free (g_array_index (track_jobs, PlanarTrackJob, i).lines);
  for (guint l = 0; l < n_lines; l++)
    {
      g_clear_pointer (&ctx->line_jobs[jobs[l]].events, planar_spill_free);
      g_clear_pointer (&ctx->line_jobs[jobs[l]].aggregated, planar_spill_free);
    }
  if (ok)
    publish_in_order (ctx, p);
  return ok;
}

static gboolean
decode_job (guint          job,
            gpointer       data,
            GCancellable  *cancellable,
            GError       **error)
{
  PlanarDecodeContext *ctx = data;

  /* A piece of a line decoded in pieces, or its scan. */
  if (job >= ctx->n_line_jobs)
    return _planar_decode_split_job (ctx, job - ctx->n_line_jobs) || _planar_decode_take_failure (ctx, error);
  if (_planar_decode_stopped (ctx) || !_planar_decode_line (ctx, &ctx->line_jobs[job]) ||
      !_planar_decode_line_done (ctx, job))
    return _planar_decode_take_failure (ctx, error);
  return TRUE;
}

/* Line job @job is decoded: when streaming, whoever decodes a plane's last
 * line builds the plane. */
gboolean
_planar_decode_line_done (PlanarDecodeContext *ctx,
                          guint                job)
{
  guint p = ctx->line_jobs[job].plane;

  return ctx->plane_left == NULL || !g_atomic_int_dec_and_test (&ctx->plane_left[p]) || finish_plane (ctx, p);
}

static gboolean
track_job (guint          job,
           gpointer       data,
           GCancellable  *cancellable,
           GError       **error)
{
  PlanarDecodeContext *ctx = data;
  PlanarTrackJob *tj = &ctx->track_jobs[job];

  if (_planar_decode_stopped (ctx) || !build_track (ctx, tj))
    return _planar_decode_take_failure (ctx, error);
  /* Drawable from now on: its times are final and nothing changes it
   * (deriving adds tracks and metadata beside it). */
  g_atomic_int_set (&ctx->self->track_ready[tj->plane][tj->track], 1);
  _planar_trace_report_progress (ctx->self, PLANAR_LOAD_PHASE_DECODING_LINES, TRUE);
  return TRUE;
}

/* Runs @func over @n_jobs jobs (in @order) on the model's worker pool. A
 * failure is in @ctx->error afterwards (a cancellation included). */
static void
run_jobs (PlanarDecodeContext *ctx,
          PlanarParallelFunc   func,
          guint                n_jobs,
          const guint         *order)
{
  GError *error = NULL;

  if (!planar_parallel_run (n_jobs, order, func, ctx, ctx->cancellable, &error))
    _planar_decode_fail (ctx, error);
}

static int
compare_job_size_desc (gconstpointer a,
                       gconstpointer b,
                       gpointer      user_data)
{
  const PlanarDecodeContext *ctx = user_data;
  const PlanarLineJob *ja = &ctx->line_jobs[*(const guint *) a];
  const PlanarLineJob *jb = &ctx->line_jobs[*(const guint *) b];
  guint64 sa = ctx->self->planes_priv[ja->plane].line_sizes[ja->line];
  guint64 sb = ctx->self->planes_priv[jb->plane].line_sizes[jb->line];

  return sa < sb ? 1 : sa > sb ? -1 : 0;
}

static int
compare_line_size_desc (gconstpointer a,
                        gconstpointer b,
                        gpointer      user_data)
{
  const guint64 *sizes = user_data;
  guint64 sa = sizes[*(const guint *) a];
  guint64 sb = sizes[*(const guint *) b];

  return sa < sb ? 1 : sa > sb ? -1 : 0;
}

/* Groups the decoded lines of every plane into tracks: lines with one id form
 * one track, tracks with one display id share a row. */
/* Groups plane @p's lines into tracks; @job counts lines over the planes. */
static void
plan_plane_tracks (PlanarDecodeContext *ctx,
                   guint          p,
                   GArray        *track_jobs,
                   guint         *job)
{
  PlanarTrace *self = ctx->self;
  PlanarPlane *plane = &self->planes[p];
  g_autoptr(GHashTable) by_id = g_hash_table_new_full (_planar_id_hash, _planar_id_equal, NULL, NULL);
  g_autoptr(GHashTable) rows = g_hash_table_new_full (_planar_id_hash, _planar_id_equal, NULL, NULL);
  g_autoptr(GArray) plane_tracks = g_array_new (FALSE, TRUE, sizeof (PlanarTrack));
  guint64 steps = _planar_trace_steps;
  guint reserve, n_tracks;

  /* What derived metadata and lines will follow. */
  self->planes_priv[p].n_file_metadata = plane->n_metadata;
  self->planes_priv[p].n_file_lines = plane->n_lines;
  self->planes_priv[p].n_file_tracks = 0;
  for (guint l = 0; l < plane->n_lines; l++, (*job)++)
    {
      PlanarLine *line = &plane->lines[l];
      gpointer found;
      PlanarTrackJob *tj;

      if (g_hash_table_lookup_extended (by_id, &line->id, NULL, &found))
        {
          tj = &g_array_index (track_jobs, PlanarTrackJob, GPOINTER_TO_UINT (found));
          line->track = tj->track;
        }
      else
        {
          PlanarTrack track = { 0 };
          PlanarTrackJob new_job = { 0 };
          gpointer row;

          track.id = line->id;
          track.display_id = line->display_id;
          track.name = line->name;
          track.display_name = line->display_name;
          if (g_hash_table_lookup_extended (rows, &line->display_id, NULL, &row))
            track.row = GPOINTER_TO_UINT (row);
          else
            {
              track.row = g_hash_table_size (rows);
              g_hash_table_insert (rows, &line->display_id, GUINT_TO_POINTER (track.row));
            }
          new_job.plane = p;
          new_job.track = plane_tracks->len;
          line->track = new_job.track;
          g_array_append_val (plane_tracks, track);
          g_array_append_val (track_jobs, new_job);
          g_hash_table_insert (by_id, &line->id, GUINT_TO_POINTER (track_jobs->len - 1));
          tj = &g_array_index (track_jobs, PlanarTrackJob, track_jobs->len - 1);
        }
      if (tj->n_lines == tj->lines_capacity)
        {
          tj->lines_capacity = MAX (4, 2 * tj->lines_capacity);
          tj->lines = g_renew (guint, tj->lines, tj->lines_capacity);
        }
      tj->lines[tj->n_lines++] = *job;
      plane->n_events += line->n_events;
    }

  /* Device planes (and the host's threads) keep room for the lines the
   * model derives from their events once every track is built, so that
   * appending them never moves a track a reader may already hold. */
  reserve = 0;
  if (plane->n_events > 0 && g_str_has_prefix (plane->name, "/device:TPU:"))
    reserve = MIN (PLANAR_DERIVED_TRACKS_MAX, plane_tracks->len * 6 + 2 + PLANAR_HOST_OFFLOAD_ROWS_MAX);
  else if (plane->n_events > 0 && g_str_has_prefix (plane->name, "/device:"))
    reserve = MIN (PLANAR_DERIVED_TRACKS_MAX, plane_tracks->len * 6 + 2);
  else if (plane->n_events > 0 && g_str_has_prefix (plane->name, "/host:CPU"))
    reserve = MIN (PLANAR_DERIVED_HOST_TRACKS_MAX, plane_tracks->len * 3);
  self->planes_priv[p].tracks_capacity = plane_tracks->len + reserve;
  self->planes_priv[p].lines_capacity = plane->n_lines + reserve;
  plane->lines = g_renew (PlanarLine, plane->lines, MAX (self->planes_priv[p].lines_capacity, 1));
  plane->n_rows = g_hash_table_size (rows);
  __atomic_add_fetch (&self->steps, _planar_trace_steps - steps, __ATOMIC_RELAXED);
  self->planes_priv[p].n_file_rows = plane->n_rows;
  self->planes_priv[p].n_file_tracks = plane_tracks->len;
  n_tracks = plane_tracks->len;
  g_array_set_size (plane_tracks, self->planes_priv[p].tracks_capacity);
  plane->tracks = (PlanarTrack *) g_array_free (g_steal_pointer (&plane_tracks), FALSE);
  /* The viewer may be drawing the planes decoded before this one: the
   * count comes after the array it counts. */
  __atomic_store_n (&plane->n_tracks, n_tracks, __ATOMIC_RELEASE);
  /* Published last: a reader that sees it sees the tracks above. */
  g_atomic_pointer_set (&self->track_ready[p], g_new0 (gint, MAX (self->planes_priv[p].tracks_capacity, 1)));
}

/* Moves every decoded event by the host's offset in its session, or, for a
 * file without a profile start, so that its earliest event is at 0 (and
 * says so: planar_trace_is_aligned_at_earliest_event()). */
static void
align_lines (PlanarDecodeContext *ctx,
             const guint         *jobs,
             guint                n_jobs)
{
  PlanarTrace *self = ctx->self;
  gint64 delta = self->time_offset_ps;

  if (!self->has_start_time)
    {
      gboolean any = FALSE;
      gint64 earliest = 0;

      /* Only ever asked of every line at once (the earliest of them all). */
      g_assert (n_jobs == ctx->n_line_jobs);
      for (guint i = 0; i < n_jobs; i++)
        {
          const PlanarLineJob *lj = &ctx->line_jobs[jobs[i]];

          /* Lines come out of the decoder in order more often than not,
           * but the earliest start is only sure after a scan. */
          for (gsize e = 0; e < lj->n_events; e++)
            if (!any || lj->events[e].start_ps < earliest)
              {
                earliest = lj->events[e].start_ps;
                any = TRUE;
              }
        }
      self->aligned_at_earliest_event = TRUE;
      delta = any ? -earliest : 0;
      if (any && earliest == G_MININT64)
        {
          _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                                         "timestamp overflow aligning %s", self->file_name));
          return;
        }
    }
  if (delta == 0)
    return;

  for (guint i = 0; i < n_jobs; i++)
    {
      PlanarLineJob *lj = &ctx->line_jobs[jobs[i]];
      PlanarEvent *arrays[2] = { lj->events, lj->aggregated };
      gsize counts[2] = { lj->n_events, lj->n_aggregated };

      for (guint a = 0; a < 2; a++)
        for (gsize e = 0; e < counts[a]; e++)
          {
            PlanarEvent *ev = &arrays[a][e];

            if (__builtin_add_overflow (ev->start_ps, delta, &ev->start_ps) ||
                ev->start_ps > G_MAXINT64 - ev->duration_ps)
              {
                _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                                               "timestamp overflow aligning %s by %" G_GINT64_FORMAT " ps",
                                               self->file_name, delta));
                return;
              }
          }
    }
}
gboolean
planar_trace_set_time_offset (PlanarTrace *self,
                              gint64       offset_ps)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  g_return_val_if_fail (!g_atomic_int_get (&self->decoded), FALSE);

  self->time_offset_ps = offset_ps;
  return TRUE;
}

/* Where a plane sorts on the timeline, as view/planar-timeline-layout.c
 * orders the sections (its compare_planes()): GPUs, TPUs, other devices,
 * custom planes, the host, the rest; devices by id, the others by name. */
static guint
plane_display_kind (const char *name)
{
  if (g_str_has_prefix (name, "/device:GPU:"))
    return 0;
  if (g_str_has_prefix (name, "/device:TPU:"))
    return 1;
  if (g_str_has_prefix (name, "/device:CUSTOM:") || g_str_has_prefix (name, "/custom:"))
    return 3;
  if (g_str_has_prefix (name, "/device:") || g_str_has_prefix (name, "#Chip"))
    return 2;
  if (g_str_has_prefix (name, "/host:") || strcmp (name, "Host CPUs") == 0 || strcmp (name, "Syscalls") == 0)
    return 4;
  return 5;
}

static int
compare_planes_display (gconstpointer a,
                        gconstpointer b,
                        gpointer      user_data)
{
  const PlanarTrace *self = user_data;
  const PlanarPlane *pa = &self->planes[*(const guint *) a];
  const PlanarPlane *pb = &self->planes[*(const guint *) b];
  guint ka = plane_display_kind (pa->name), kb = plane_display_kind (pb->name);
  int c;

  if (ka != kb)
    return ka < kb ? -1 : 1;
  if (ka < 4 && pa->id != pb->id)
    return pa->id < pb->id ? -1 : 1;
  c = strcmp (pa->name, pb->name);
  if (c != 0)
    return c;
  /* Ties in file order (the view's sort is not stable: any order of
   * equals is one it may show). */
  return *(const guint *) a < *(const guint *) b ? -1 : *(const guint *) a > *(const guint *) b;
}

guint *
_planar_trace_display_order (PlanarTrace *self)
{
  guint *order = g_new (guint, MAX (self->n_planes, 1));

  for (guint p = 0; p < self->n_planes; p++)
    order[p] = p;
  g_qsort_with_data (order, (gint) self->n_planes, sizeof (guint), compare_planes_display, self);
  return order;
}

/* Which planes may keep their index in memory while it spills: the first in
 * the timeline's order whose lines' bytes add up to no more than the trace's
 * first_heap (an index takes about as many bytes as the events it comes
 * from; the claims against @ctx's heap_left bound it where it takes more).
 * NULL when the index does not spill or nothing stays. */
static gboolean *
plan_first_heap (PlanarDecodeContext *ctx)
{
  PlanarTrace *self = ctx->self;
  g_autofree guint *order = NULL;
  gboolean *plane_heap;
  guint64 bytes = 0;

  if (self->spill == PLANAR_SPILL_NEVER || ctx->heap_left <= 0 || self->n_planes == 0)
    return NULL;
  order = _planar_trace_display_order (self);
  plane_heap = g_new0 (gboolean, self->n_planes);
  for (guint i = 0; i < self->n_planes; i++)
    {
      guint p = order[i];

      for (guint l = 0; l < self->planes[p].n_lines; l++)
        bytes += self->planes_priv[p].line_sizes[l];
      if (bytes > (guint64) ctx->heap_left)
        break;
      plane_heap[p] = TRUE;
    }
  return plane_heap;
}

/* Decodes the lines of @planes, aligns them, groups them into tracks and
 * builds and publishes each track. */
static void
decode_planes (PlanarDecodeContext *ctx,
               const guint         *planes,
               guint                n_planes,
               const guint         *first_job)
{
  PlanarTrace *self = ctx->self;
  g_autoptr(GArray) track_jobs = g_array_new (FALSE, TRUE, sizeof (PlanarTrackJob));
  g_autofree guint *jobs = NULL;
  g_autofree guint64 *sizes = g_new (guint64, MAX (ctx->n_line_jobs, 1));
  guint n_jobs = 0;

  for (guint i = 0; i < n_planes; i++)
    n_jobs += self->planes[planes[i]].n_lines;
  jobs = g_new (guint, MAX (n_jobs, 1));
  n_jobs = 0;
  for (guint i = 0; i < n_planes; i++)
    for (guint l = 0; l < self->planes[planes[i]].n_lines; l++)
      {
        guint job = first_job[planes[i]] + l;

        jobs[n_jobs++] = job;
        sizes[job] = self->planes_priv[planes[i]].line_sizes[l];
      }
  /* Biggest lines first, so no worker is left with a long one at the end. */
  g_qsort_with_data (jobs, (gint) n_jobs, sizeof (guint), compare_line_size_desc, sizes);

  run_jobs (ctx, decode_job, n_jobs, jobs);

  /* Times are final before any track is published, so that a reader
   * drawing the first tracks never sees them move. */
  if (ctx->error == NULL)
    align_lines (ctx, jobs, n_jobs);

  if (ctx->error == NULL)
    {
      for (guint i = 0; i < n_planes; i++)
        {
          guint job = first_job[planes[i]];

          plan_plane_tracks (ctx, planes[i], track_jobs, &job);
        }
      ctx->track_jobs = (PlanarTrackJob *) (gpointer) track_jobs->data;
      ctx->n_track_jobs = track_jobs->len;
      run_jobs (ctx, track_job, ctx->n_track_jobs, NULL);
      ctx->track_jobs = NULL;
      ctx->n_track_jobs = 0;
    }

  for (guint i = 0; i < n_jobs; i++)
    {
      g_clear_pointer (&ctx->line_jobs[jobs[i]].events, planar_spill_free);
      g_clear_pointer (&ctx->line_jobs[jobs[i]].aggregated, planar_spill_free);
    }
  for (guint i = 0; i < track_jobs->len; i++)
    g_free (g_array_index (track_jobs, PlanarTrackJob, i).lines);
}

/* A decode that failed publishes nothing: the tracks of the planes done
 * before are taken back (their arrays stay until the trace goes, for a
 * reader drawing one now). */
static void
unpublish_tracks (PlanarTrace *self)
{
  gint **ready = g_atomic_pointer_get (&self->track_ready);

  for (guint p = 0; p < self->n_planes; p++)
    if (g_atomic_pointer_get (&ready[p]) != NULL)
      for (guint t = 0; t < self->planes_priv[p].tracks_capacity; t++)
        g_atomic_int_set (&ready[p][t], 0);
  _planar_trace_report_progress (self, PLANAR_LOAD_PHASE_DECODING_LINES, TRUE);
}

gboolean
_planar_trace_decode_lines (PlanarTrace   *self,
                            GCancellable  *cancellable,
                            GError       **error)
{
  return _planar_trace_decode_planes (self, NULL, cancellable, error);
}

gboolean
_planar_trace_decode_planes (PlanarTrace    *self,
                             const gboolean *planes,
                             GCancellable   *cancellable,
                             GError        **error)
{
  PlanarDecodeContext ctx = { 0 };
  g_autofree guint *first_job = NULL;
  g_autofree guint *order = NULL;
  g_autofree gboolean *plane_heap = NULL;
  guint64 n_damaged = 0, first_damaged = G_MAXUINT64;
  const char *first_reason = NULL;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  g_return_val_if_fail (!g_atomic_int_get (&self->decoded), FALSE);

  ctx.self = self;
  ctx.cancellable = cancellable;
  /* What the structure scan left of the budget: events take 32 bytes in
   * the index and at least ~8 on the wire in any real profile, so only a
   * file made of empty events runs out, and is refused. */
  ctx.budget = self->memory_budget - MIN (self->memory_claimed, self->memory_budget);
  /* Spilled, the index of the planes decoded first (those the timeline
   * shows first) may stay in memory up to this: 0 but where a test or a
   * benchmark asks (docs/loader.md, "The first frame", has what it did). */
  ctx.heap_left = (gint64) MIN (self->first_heap, (guint64) G_MAXINT64);
  g_mutex_init (&ctx.lock);
  g_cond_init (&ctx.split_cond);
  plane_heap = plan_first_heap (&ctx);
  ctx.plane_heap = plane_heap;

  first_job = g_new (guint, MAX (self->n_planes, 1));
  order = g_new (guint, MAX (self->n_planes, 1));
  for (guint p = 0; p < self->n_planes; p++)
    {
      first_job[p] = ctx.n_line_jobs;
      order[p] = p;
      ctx.n_line_jobs += self->planes[p].n_lines;
    }
  ctx.line_jobs = g_new0 (PlanarLineJob, MAX (ctx.n_line_jobs, 1));
  for (guint p = 0; p < self->n_planes; p++)
    for (guint l = 0; l < self->planes[p].n_lines; l++)
      {
        ctx.line_jobs[first_job[p] + l].plane = p;
        ctx.line_jobs[first_job[p] + l].line = l;
      }
  /* A decode of the other planes, after some, keeps what those published. */
  if (g_atomic_pointer_get (&self->track_ready) == NULL)
    g_atomic_pointer_set (&self->track_ready, g_new0 (gint *, MAX (self->n_planes, 1)));

  if (!self->has_start_time)
    {
      /* Without a profile start, the earliest event of every line is the
       * time base: nothing is final before every line is read. */
      g_return_val_if_fail (planes == NULL, FALSE);
      decode_planes (&ctx, order, self->n_planes, first_job);
    }
  else
    {
      /* What the timeline shows first is decoded first: the lines in the
       * order of its sections (biggest first within a plane), every
       * worker busy; the worker that decodes a plane's last line builds
       * its tracks, and planes are published in that order, each whole
       * (docs/loader.md, "The first frame"). */
      g_autofree guint *jobs = g_new (guint, MAX (ctx.n_line_jobs, 1));
      g_autofree gint *plane_left = g_new0 (gint, MAX (self->n_planes, 1));
      g_autofree gboolean *plane_built = g_new0 (gboolean, MAX (self->n_planes, 1));
      g_autofree guint *split_order = NULL;
      guint n = 0, n_planes = 0, n_order = 0;

      g_free (order);
      order = _planar_trace_display_order (self);
      /* Only @planes, when given, in the same order. */
      for (guint i = 0; i < self->n_planes; i++)
        if (planes == NULL || planes[order[i]])
          order[n_planes++] = order[i];
      for (guint i = 0; i < n_planes; i++)
        {
          guint p = order[i];
          guint first = n;

          plane_left[p] = (gint) self->planes[p].n_lines;
          for (guint l = 0; l < self->planes[p].n_lines; l++)
            jobs[n++] = first_job[p] + l;
          g_qsort_with_data (jobs + first, (gint) (n - first), sizeof (guint), compare_job_size_desc, &ctx);
        }
      ctx.first_job = first_job;
      ctx.plane_left = plane_left;
      ctx.plane_built = plane_built;
      ctx.plane_order = order;
      ctx.n_order = n_planes;
      /* Planes without lines have nothing to wait for. */
      for (guint i = 0; i < n_planes; i++)
        if (self->planes[order[i]].n_lines == 0)
          finish_plane (&ctx, order[i]);
      /* The longest lines in pieces, so that no worker is left alone with
       * one at the end. */
      split_order = _planar_decode_plan_splits (&ctx, jobs, n, &n_order);
      run_jobs (&ctx, decode_job, n_order, split_order);
      _planar_decode_free_splits (&ctx);
      for (guint i = 0; i < ctx.n_line_jobs; i++)
        {
          g_clear_pointer (&ctx.line_jobs[i].events, planar_spill_free);
          g_clear_pointer (&ctx.line_jobs[i].aggregated, planar_spill_free);
        }
    }

  /* Every line's damaged stats, when the decode counted them. */
  for (guint i = 0; i < ctx.n_line_jobs && self->count_stats; i++)
    {
      const PlanarLineJob *job = &ctx.line_jobs[i];

      n_damaged += job->n_damaged_stats;
      if (job->n_damaged_stats > 0 && job->first_damaged_stat < first_damaged)
        {
          first_damaged = job->first_damaged_stat;
          first_reason = job->first_damaged_reason;
        }
    }
  g_free (ctx.line_jobs);
  g_mutex_clear (&ctx.lock);
  g_cond_clear (&ctx.split_cond);

  /* A file cut under the decoder read as zeros from the cut on: whatever
   * the decoder made of them, the answer is that the file changed. Rewritten
   * in place without a fault, its size or time says so. */
  if (_planar_trace_check_changed (self, TRUE, &ctx.error) || ctx.error != NULL)
    {
      unpublish_tracks (self);
      g_propagate_error (error, ctx.error);
      return FALSE;
    }
  if (self->count_stats)
    _planar_trace_set_damaged_count (self, n_damaged, first_damaged, first_reason);
  return TRUE;
}

void
_planar_trace_publish_tracks (PlanarTrace *self)
{
  for (guint p = 0; p < self->n_planes; p++)
    for (guint t = 0; t < self->planes[p].n_tracks; t++)
      g_atomic_int_set (&self->track_ready[p][t], 1);
  _planar_trace_report_progress (self, PLANAR_LOAD_PHASE_NONE, TRUE);
}

void
_planar_trace_finish_decode (PlanarTrace *self)
{
  /* Totals, once. */
  self->n_events = 0;
  self->n_overlaps = 0;
  self->has_span = FALSE;
  for (guint p = 0; p < self->n_planes; p++)
    {
      const PlanarPlane *plane = &self->planes[p];

      self->n_events += plane->n_events;
      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          /* Derived events repeat the file's; they count nowhere. */
          if (track->derived)
            continue;
          self->n_overlaps += track->n_overlaps;
          if (track->n_events == 0)
            continue;
          if (!self->has_span || track->start_ps < self->first_ps)
            self->first_ps = track->start_ps;
          if (!self->has_span || track->end_ps > self->last_ps)
            self->last_ps = track->end_ps;
          self->has_span = TRUE;
        }
    }

  __atomic_store_n (&self->line_bytes_done, (gint64) self->line_bytes_total, __ATOMIC_RELEASE);
  g_atomic_int_set (&self->decoded, 1);
}

void
_planar_trace_plan_tracks_plane (PlanarTrace *self,
                                 guint        p)
{
  PlanarDecodeContext ctx = { 0 };
  g_autoptr(GArray) track_jobs = g_array_new (FALSE, TRUE, sizeof (PlanarTrackJob));
  guint job = 0;

  ctx.self = self;
  g_mutex_init (&ctx.lock);
  plan_plane_tracks (&ctx, p, track_jobs, &job);
  for (guint i = 0; i < track_jobs->len; i++)
    g_free (g_array_index (track_jobs, PlanarTrackJob, i).lines);
  g_mutex_clear (&ctx.lock);
}

gboolean
_planar_trace_decode_track (PlanarTrace  *self,
                            guint         p,
                            guint         t,
                            GError      **error)
{
  PlanarPlane *plane = &self->planes[p];
  PlanarTrack *track = &plane->tracks[t];
  PlanarDecodeContext ctx = { 0 };
  PlanarTrackJob tj = { p, t, NULL, 0 };
  gboolean ok = TRUE;

  g_return_val_if_fail (self->has_start_time, FALSE);

  ctx.self = self;
  ctx.budget = G_MAXUINT64;
  g_mutex_init (&ctx.lock);
  ctx.line_jobs = g_new0 (PlanarLineJob, MAX (plane->n_lines, 1));
  tj.lines = g_new (guint, MAX (plane->n_lines, 1));
  for (guint l = 0; l < self->planes_priv[p].n_file_lines; l++)
    if (plane->lines[l].track == t)
      {
        ctx.line_jobs[ctx.n_line_jobs].plane = p;
        ctx.line_jobs[ctx.n_line_jobs].line = l;
        tj.lines[tj.n_lines++] = ctx.n_line_jobs++;
      }
  for (guint i = 0; i < ctx.n_line_jobs && ok; i++)
    ok = _planar_decode_line (&ctx, &ctx.line_jobs[i]);
  if (ok)
    align_lines (&ctx, tj.lines, tj.n_lines);
  ok = ok && ctx.error == NULL;
  if (ok)
    {
      /* Whatever a failed restore left goes; the header stays. */
      _planar_track_clear_arrays (track);
      ok = build_track (&ctx, &tj);
    }
  for (guint i = 0; i < ctx.n_line_jobs; i++)
    {
      planar_spill_free (ctx.line_jobs[i].events);
      planar_spill_free (ctx.line_jobs[i].aggregated);
    }
  g_free (ctx.line_jobs);
  g_free (tj.lines);
  g_mutex_clear (&ctx.lock);
  if (_planar_trace_check_changed (self, FALSE, &ctx.error))
    ok = FALSE;
  if (!ok || ctx.error != NULL)
    {
      if (ctx.error != NULL)
        g_propagate_error (error, ctx.error);
      else
        g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, _("cannot decode track %u of %s"), t,
                     self->file_name);
      return FALSE;
    }
  return TRUE;
}

gboolean
planar_trace_shift_time (PlanarTrace  *self,
                         gint64        delta_ps,
                         GError      **error)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  g_return_val_if_fail (g_atomic_int_get (&self->decoded), FALSE);

  if (delta_ps == 0)
    return TRUE;

  /* Check every end first so that a failure leaves the trace untouched. */
  for (guint p = 0; p < self->n_planes; p++)
    for (guint t = 0; t < self->planes[p].n_tracks; t++)
      {
        const PlanarTrack *track = &self->planes[p].tracks[t];
        gint64 tmp;

        for (gsize i = 0; i < track->n_events; i++)
          if (__builtin_add_overflow (track->events[i].start_ps, delta_ps, &tmp) ||
              tmp > G_MAXINT64 - track->events[i].duration_ps)
            {
              g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                           _("timestamp overflow aligning %s by %" PRId64 " ps"),
                           self->file_name, delta_ps);
              return FALSE;
            }
        for (gsize i = 0; i < track->n_aggregated; i++)
          if (__builtin_add_overflow (track->aggregated[i].start_ps, delta_ps, &tmp))
            {
              g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                           _("timestamp overflow aligning %s by %" PRId64 " ps"),
                           self->file_name, delta_ps);
              return FALSE;
            }
      }

  for (guint p = 0; p < self->n_planes; p++)
    for (guint t = 0; t < self->planes[p].n_tracks; t++)
      {
        PlanarTrack *track = &self->planes[p].tracks[t];

        for (gsize i = 0; i < track->n_events; i++)
          track->events[i].start_ps += delta_ps;
        if (track->depth_starts != NULL)
          for (gsize i = 0; i < track->n_events; i++)
            track->depth_starts[i] += delta_ps;
        for (gsize i = 0; i < track->n_aggregated; i++)
          track->aggregated[i].start_ps += delta_ps;
        if (track->n_events > 0)
          {
            track->start_ps += delta_ps;
            track->end_ps += delta_ps;
          }
      }
  if (self->has_span)
    {
      self->first_ps += delta_ps;
      self->last_ps += delta_ps;
    }
  return TRUE;
}
