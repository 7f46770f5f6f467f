/* planar-test-xspace.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-test-xspace.h"
#include "planar-counters.h"
#include "planar-derive.h"
#include "planar-trace.h"
#include "planar-trace-loader.h"
#include "planar-trace-private.h"

#include <glib/gstdio.h>

typedef Tensorflow__Profiler__XPlane__EventMetadataEntry EventMetadataEntry;
typedef Tensorflow__Profiler__XPlane__StatMetadataEntry StatMetadataEntry;

/* Small builders over protobuf-c's structs. Everything is allocated with
 * GLib and freed in one go by the test's scratch list. */

XSpace *
planar_test_space_new (void)
{
  XSpace *space = g_new0 (XSpace, 1);

  tensorflow__profiler__xspace__init (space);
  return space;
}

XPlane *
planar_test_space_add_plane (XSpace     *space,
                 gint64      id,
                 const char *name)
{
  XPlane *plane = planar_test_keep (g_new0 (XPlane, 1));

  tensorflow__profiler__xplane__init (plane);
  plane->id = id;
  plane->name = planar_test_keep_str (name);
  PLANAR_TEST_APPEND (space->planes, space->n_planes, plane);
  return plane;
}

void
planar_test_plane_add_stat_metadata (XPlane     *plane,
                         gint64      id,
                         const char *name)
{
  StatMetadataEntry *entry = planar_test_keep (g_new0 (StatMetadataEntry, 1));
  XStatMetadata *md = planar_test_keep (g_new0 (XStatMetadata, 1));

  tensorflow__profiler__xplane__stat_metadata_entry__init (entry);
  tensorflow__profiler__xstat_metadata__init (md);
  md->id = id;
  md->name = planar_test_keep_str (name);
  entry->key = id;
  entry->value = md;
  PLANAR_TEST_APPEND (plane->stat_metadata, plane->n_stat_metadata, entry);
}

XEventMetadata *
planar_test_plane_add_event_metadata (XPlane     *plane,
                          gint64      id,
                          const char *name,
                          const char *display_name)
{
  EventMetadataEntry *entry = planar_test_keep (g_new0 (EventMetadataEntry, 1));
  XEventMetadata *md = planar_test_keep (g_new0 (XEventMetadata, 1));

  tensorflow__profiler__xplane__event_metadata_entry__init (entry);
  tensorflow__profiler__xevent_metadata__init (md);
  md->id = id;
  md->name = planar_test_keep_str (name);
  if (display_name != NULL)
    md->display_name = planar_test_keep_str (display_name);
  entry->key = id;
  entry->value = md;
  PLANAR_TEST_APPEND (plane->event_metadata, plane->n_event_metadata, entry);
  return md;
}

XLine *
planar_test_plane_add_line (XPlane     *plane,
                gint64      id,
                const char *name,
                gint64      timestamp_ns)
{
  XLine *line = planar_test_keep (g_new0 (XLine, 1));

  tensorflow__profiler__xline__init (line);
  line->id = id;
  line->name = planar_test_keep_str (name);
  line->timestamp_ns = timestamp_ns;
  PLANAR_TEST_APPEND (plane->lines, plane->n_lines, line);
  return line;
}

static void
event_init (XEvent *event,
            gint64  metadata_id,
            gint64  offset_ps,
            gint64  duration_ps)
{
  tensorflow__profiler__xevent__init (event);
  event->metadata_id = metadata_id;
  event->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
  event->offset_ps = offset_ps;
  event->duration_ps = duration_ps;
}

XEvent *
planar_test_line_add_event (XLine  *line,
                gint64  metadata_id,
                gint64  offset_ps,
                gint64  duration_ps)
{
  XEvent *event = planar_test_keep (g_new0 (XEvent, 1));

  event_init (event, metadata_id, offset_ps, duration_ps);
  PLANAR_TEST_APPEND (line->events, line->n_events, event);
  return event;
}

void
planar_test_line_set_events (XLine  *line,
                             guint   n,
                             gint64  metadata_id,
                             gint64  step_ps,
                             gint64  duration_ps)
{
  XEvent *events = planar_test_keep (g_new0 (XEvent, MAX (n, 1)));

  g_assert_cmpuint (line->n_events, ==, 0);
  line->events = g_new (XEvent *, MAX (n, 1));
  line->n_events = n;
  for (guint i = 0; i < n; i++)
    {
      event_init (&events[i], metadata_id, (gint64) i * step_ps, duration_ps);
      line->events[i] = &events[i];
    }
}

static XStat *
stat_new (gint64 metadata_id)
{
  XStat *stat = planar_test_keep (g_new0 (XStat, 1));

  tensorflow__profiler__xstat__init (stat);
  stat->metadata_id = metadata_id;
  return stat;
}

XStat *
planar_test_stat_uint (gint64  metadata_id,
           guint64 value)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
  stat->uint64_value = value;
  return stat;
}

XStat *
planar_test_stat_int (gint64 metadata_id,
          gint64 value)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
  stat->int64_value = value;
  return stat;
}

XStat *
planar_test_stat_ref (gint64  metadata_id,
          guint64 ref)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE;
  stat->ref_value = ref;
  return stat;
}

XStat *
planar_test_stat_str (gint64      metadata_id,
          const char *value)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
  stat->str_value = planar_test_keep_str (value);
  return stat;
}

XStat *
planar_test_stat_bytes (gint64        metadata_id,
                        const guint8 *data,
                        gsize         len)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE;
  stat->bytes_value.data = planar_test_keep (g_memdup2 (data, len));
  stat->bytes_value.len = len;
  return stat;
}

XStat *
planar_test_stat_double (gint64 metadata_id,
             double value)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE;
  stat->double_value = value;
  return stat;
}

static void
free_space (XSpace *space)
{
  for (gsize p = 0; p < space->n_planes; p++)
    {
      XPlane *plane = space->planes[p];

      for (gsize l = 0; l < plane->n_lines; l++)
        {
          for (gsize e = 0; e < plane->lines[l]->n_events; e++)
            g_free (plane->lines[l]->events[e]->stats);
          g_free (plane->lines[l]->events);
        }
      for (gsize m = 0; m < plane->n_event_metadata; m++)
        g_free (plane->event_metadata[m]->value->stats);
      g_free (plane->lines);
      g_free (plane->event_metadata);
      g_free (plane->stat_metadata);
      g_free (plane->stats);
    }
  g_free (space->planes);
  g_free (space->hostnames);
  g_free (space->errors);
  g_free (space->warnings);
  g_free (space);
}

/* Writes @space into @dir/@name and frees it. Returns the path. */
char *
planar_test_write_space (XSpace     *space,
             const char *dir,
             const char *name)
{
  gsize len = tensorflow__profiler__xspace__get_packed_size (space);
  g_autofree guint8 *buf = g_malloc (MAX (len, 1));
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  tensorflow__profiler__xspace__pack (space, buf);
  g_file_set_contents (path, (const char *) buf, (gssize) len, &error);
  g_assert_no_error (error);
  free_space (space);
  return path;
}

void
planar_test_add_task_environment (XSpace  *space,
                      guint64  start_ns)
{
  XPlane *env = planar_test_space_add_plane (space, 0, "Task Environment");

  planar_test_plane_add_stat_metadata (env, 1, "profile_start_time");
  planar_test_plane_add_stat_metadata (env, 2, "profile_stop_time");
  PLANAR_TEST_APPEND (env->stats, env->n_stats, planar_test_stat_uint (1, start_ns));
  PLANAR_TEST_APPEND (env->stats, env->n_stats, planar_test_stat_uint (2, start_ns + 1000000000));
}

PlanarTrace *
planar_test_load_ok (const char *path)
{
  g_autoptr(GError) error = NULL;
  PlanarTrace *trace = planar_trace_load (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

void
planar_test_check_depth_ends_sorted (const PlanarTrack *track)
{
  for (guint d = 0; d <= track->max_depth; d++)
    g_assert_true (track->depth_ends_sorted[d]);
}

/* Sorted by (start, longer first), depths consistent with a stack of open
 * events (every event, an overlap too, inside its parent whole; an event
 * of a depth starting after the one before it there ended, unless it
 * outlives it), per-track totals right. Checks @track; when @in_span, also that its events lie in the trace's
 * span [@span_first, @span_last]. */
void
planar_test_check_track (const PlanarPlane *plane,
                         const PlanarTrack *track,
                         gint64             span_first,
                         gint64             span_last,
                         gboolean           in_span)
{
  g_autofree gsize *open = g_new (gsize, MAX (track->n_events, 1));
  g_autofree gboolean *has_child = g_new0 (gboolean, MAX (track->n_events, 1));
  gsize n_open = 0;
  guint64 n_overlaps = 0;
  guint max_depth = 0;
  gint64 end_max = G_MININT64;

  for (gsize i = 0; i < track->n_events; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      gint64 end;
      guint d = ev->depth;

      g_assert_cmpint (ev->duration_ps, >=, 0);
      g_assert_cmpint (ev->start_ps, <=, G_MAXINT64 - ev->duration_ps);
      g_assert_cmpuint (ev->metadata, <, plane->n_metadata);
      end = ev->start_ps + ev->duration_ps;
      if (in_span)
        {
          g_assert_cmpint (ev->start_ps, >=, span_first);
          g_assert_cmpint (end, <=, span_last);
        }
      if (i > 0)
        {
          const PlanarEvent *prev = &track->events[i - 1];

          g_assert_cmpint (prev->start_ps, <=, ev->start_ps);
          if (prev->start_ps == ev->start_ps)
            g_assert_cmpint (prev->duration_ps, >=, ev->duration_ps);
        }
      end_max = MAX (end_max, end);
      max_depth = MAX (max_depth, d);
      if (ev->flags & PLANAR_EVENT_OVERLAP)
        n_overlaps++;
      if (ev->flags & PLANAR_EVENT_DEPTH_CLAMPED)
        {
          g_assert_cmpuint (d, ==, G_MAXUINT16);
          continue;
        }
      g_assert_cmpuint (d, <=, n_open);
      if (d > 0)
        {
          const PlanarEvent *parent = &track->events[open[d - 1]];

          g_assert_cmpint (parent->start_ps, <=, ev->start_ps);
          g_assert_cmpint (parent->start_ps + parent->duration_ps, >, ev->start_ps);
          /* An overlap too lies whole inside its parent: it outlives only
           * the open events at its depth and below. */
          g_assert_cmpint (end, <=, parent->start_ps + parent->duration_ps);
          has_child[open[d - 1]] = TRUE;
        }
      if (ev->flags & PLANAR_EVENT_OVERLAP)
        {
          const PlanarEvent *prev;

          g_assert_cmpuint (d, <, n_open);
          prev = &track->events[open[d]];
          g_assert_cmpint (prev->start_ps + prev->duration_ps, >, ev->start_ps);
          g_assert_cmpint (end, >, prev->start_ps + prev->duration_ps);
        }
      else if (d < n_open)
        {
          const PlanarEvent *prev = &track->events[open[d]];

          g_assert_cmpint (prev->start_ps + prev->duration_ps, <=, ev->start_ps);
        }
      open[d] = i;
      /* An overlap leaves the events above its place open (those it
       * outlives, until they end). */
      n_open = (ev->flags & PLANAR_EVENT_OVERLAP) ? MAX (n_open, d + 1) : d + 1;
    }
  /* HAS_CHILDREN says whether an event is some event's parent (left
   * unchecked next to clamped depths, where the stack goes on unseen). */
  for (gsize i = 0; i < track->n_events; i++)
    if (track->events[i].depth < G_MAXUINT16 - 1)
      g_assert_cmpint (!!(track->events[i].flags & PLANAR_EVENT_HAS_CHILDREN), ==, has_child[i]);
  g_assert_cmpuint (track->n_overlaps, ==, n_overlaps);
  g_assert_cmpuint (track->max_depth, ==, max_depth);
  if (track->n_events > 0)
    {
      g_assert_cmpint (track->start_ps, ==, track->events[0].start_ps);
      g_assert_cmpint (track->end_ps, ==, end_max);
    }
  for (gsize i = 0; i < track->n_aggregated; i++)
    g_assert_cmpuint (track->aggregated[i].metadata, <, plane->n_metadata);
}

XSpace *
planar_test_read_space (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;
  XSpace *space;

  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  space = tensorflow__profiler__xspace__unpack (NULL, len, (const guint8 *) data);
  g_assert_nonnull (space);
  return space;
}

XPlane *
planar_test_find_plane (const XSpace *space,
                        const char   *name)
{
  for (gsize i = 0; i < space->n_planes; i++)
    if (g_strcmp0 (space->planes[i]->name, name) == 0)
      return space->planes[i];
  return NULL;
}

XLine *
planar_test_find_line (const XPlane *plane,
                       gint64        id)
{
  for (gsize i = 0; i < plane->n_lines; i++)
    if (plane->lines[i]->id == id)
      return plane->lines[i];
  return NULL;
}

const char *
planar_test_event_name (const XPlane *plane,
                        const XEvent *event)
{
  for (gsize i = 0; i < plane->n_event_metadata; i++)
    if (plane->event_metadata[i]->key == event->metadata_id)
      return plane->event_metadata[i]->value->name;
  return NULL;
}

const char *
planar_test_stat_name (const XPlane *plane,
                       gint64        id)
{
  for (gsize i = 0; i < plane->n_stat_metadata; i++)
    if (plane->stat_metadata[i]->key == id)
      return plane->stat_metadata[i]->value->name;
  return NULL;
}

PlanarTestPlane *
planar_test_named_plane_new (XSpace     *space,
                             gint64      id,
                             const char *name)
{
  PlanarTestPlane *b = planar_test_keep (g_new0 (PlanarTestPlane, 1));

  b->plane = planar_test_space_add_plane (space, id, name);
  b->stat_ids = g_hash_table_new (g_str_hash, g_str_equal);
  b->event_ids = g_hash_table_new (g_str_hash, g_str_equal);
  b->next_id = 1;
  return b;
}

void
planar_test_named_plane_done (PlanarTestPlane *b)
{
  g_clear_pointer (&b->stat_ids, g_hash_table_unref);
  g_clear_pointer (&b->event_ids, g_hash_table_unref);
}

static gint64
named_id (PlanarTestPlane *b,
          GHashTable      *ids,
          gboolean         stat,
          const char      *name)
{
  gpointer id = g_hash_table_lookup (ids, name);

  if (id == NULL)
    {
      gint64 new_id = b->next_id++;

      if (stat)
        planar_test_plane_add_stat_metadata (b->plane, new_id, name);
      else
        planar_test_plane_add_event_metadata (b->plane, new_id, name, NULL);
      id = GSIZE_TO_POINTER ((gsize) new_id);
      g_hash_table_insert (ids, planar_test_keep_str (name), id);
    }
  return (gint64) GPOINTER_TO_SIZE (id);
}

gint64
planar_test_named_plane_stat_id (PlanarTestPlane *b,
                                 const char      *name)
{
  return named_id (b, b->stat_ids, TRUE, name);
}

gint64
planar_test_named_plane_event_id (PlanarTestPlane *b,
                                  const char      *name)
{
  return named_id (b, b->event_ids, FALSE, name);
}

/* What planar_trace_predict_derived_lines() tells from @path decoded
 * without the derive pass is exactly what the pass then added to @trace:
 * the same lines, in the same order, with the same ids, names, streams
 * and depths, and the same counter series. */
void
planar_test_check_prediction (const char  *path,
                              PlanarTrace *trace)
{
  g_autoptr(PlanarTraceLoader) loader = NULL;
  g_autoptr(GError) error = NULL;
  PlanarTrace *bare;

  loader = g_object_new (PLANAR_TYPE_TRACE_LOADER, "path", path, "derive", FALSE, "use-cache", FALSE, NULL);
  g_assert_true (planar_trace_loader_open (loader, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (planar_trace_loader_decode (loader, NULL, &error));
  g_assert_no_error (error);
  bare = planar_trace_loader_get_trace (loader);
  /* As the loader does before it derives: the HLO, which the GPU lines of
   * XLA ops are predicted from as they are derived from it. */
  g_assert_true (_planar_trace_read_hlo (bare, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (planar_trace_get_n_planes (bare), ==, planar_trace_get_n_planes (trace));
  for (guint p = 0; p < planar_trace_get_n_planes (bare); p++)
    {
      g_autoptr(GArray) predicted = planar_trace_predict_derived_lines (bare, p);
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);
      const PlanarCounterSet *counters = planar_trace_get_counters (trace);
      guint k = 0;

      for (guint i = 0; i < predicted->len; i++)
        g_test_message ("%s: predicted %s", plane->name,
                        g_array_index (predicted, PlanarDerivedLinePrediction, i).name);

      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];
          const PlanarDerivedLinePrediction *line;

          if (!track->derived)
            continue;
          g_assert_cmpuint (k, <, predicted->len);
          line = &g_array_index (predicted, PlanarDerivedLinePrediction, k);
          g_assert_cmpint (line->kind, !=, PLANAR_DERIVED_LINE_COUNTER);
          g_assert_cmpstr (line->name, ==, track->name);
          g_assert_cmpint (line->id, ==, track->id);
          g_assert_cmpint (line->display_id, ==, track->display_id);
          g_assert_cmpuint (line->source_track, ==, track->source_track);
          /* As tall as it comes. */
          g_assert_cmpuint (line->n_depths, ==, track->max_depth + 1);
          k++;
        }
      /* Then the plane's counter series, in the set's order. */
      for (guint s = 0; counters != NULL && s < planar_counter_set_get_n_series (counters); s++)
        {
          const PlanarCounterSeries *series = planar_counter_set_get_series (counters, s);
          const PlanarDerivedLinePrediction *line;

          if (planar_counter_series_get_plane (series) != p)
            continue;
          g_assert_cmpuint (k, <, predicted->len);
          line = &g_array_index (predicted, PlanarDerivedLinePrediction, k);
          g_assert_cmpint (line->kind, ==, PLANAR_DERIVED_LINE_COUNTER);
          g_assert_cmpstr (line->name, ==, planar_counter_series_get_name (series));
          k++;
        }
      g_assert_cmpuint (k, ==, predicted->len);
    }
}

void
planar_test_named_plane_add_ref (PlanarTestPlane *b,
                                 XEvent          *ev,
                                 const char      *name,
                                 const char      *value)
{
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                      planar_test_stat_ref (planar_test_named_plane_stat_id (b, name),
                                            (guint64) planar_test_named_plane_stat_id (b, value)));
}

void
planar_test_named_plane_add_str (PlanarTestPlane *b,
                                 XEvent          *ev,
                                 const char      *name,
                                 const char      *value)
{
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_str (planar_test_named_plane_stat_id (b, name), value));
}

void
planar_test_named_plane_add_int (PlanarTestPlane *b,
                                 XEvent          *ev,
                                 const char      *name,
                                 gint64           value)
{
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_int (planar_test_named_plane_stat_id (b, name), value));
}

void
planar_test_named_plane_add_uint (PlanarTestPlane *b,
                                  XEvent          *ev,
                                  const char      *name,
                                  guint64          value)
{
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                      planar_test_stat_uint (planar_test_named_plane_stat_id (b, name), value));
}

guint
planar_test_count_derived (const PlanarPlane *plane)
{
  guint n = 0;

  for (guint t = 0; t < plane->n_tracks; t++)
    n += plane->tracks[t].derived;
  return n;
}

const PlanarTrack *
planar_test_derived_track (const PlanarPlane *plane,
                           const char        *name)
{
  for (guint t = 0; t < plane->n_tracks; t++)
    if (plane->tracks[t].derived && strcmp (plane->tracks[t].name, name) == 0)
      return &plane->tracks[t];
  return NULL;
}

void
planar_test_check_linear (guint       n,
                          guint64     small,
                          guint64     large,
                          const char *what)
{
  g_assert_cmpuint (small, >=, n);
  if (2 * large > 9 * small)
    g_test_fail_printf ("%s: 4x as many took %.1fx the steps (%" G_GUINT64_FORMAT " against %"
                        G_GUINT64_FORMAT "): quadratic", what, (double) large / (double) small, large, small);
}

void
planar_test_check_like (guint       n,
                        guint64     ordinary,
                        guint64     colliding,
                        const char *what)
{
  g_assert_cmpuint (ordinary, >=, n);
  if (colliding > 2 * ordinary)
    g_test_fail_printf ("%s: %u colliding took %.1fx the steps of ordinary ones (%" G_GUINT64_FORMAT " against %"
                        G_GUINT64_FORMAT "): quadratic", what, n, (double) colliding / (double) ordinary,
                        colliding, ordinary);
}
