/* test-samples.c: the real profiles in the shared samples folder, decoded
 * independently with protobuf-c and compared with the model and with
 * `planar-cli info --json`; the same checks run on profiles of planar-gen,
 * also in a clone without the samples.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef Tensorflow__Profiler__XSpace XSpace;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XLine XLine;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XStat XStat;
typedef Tensorflow__Profiler__XEventMetadata XEventMetadata;

/* How many events per sample get their stats compared. */
#define STATS_SAMPLE_SIZE 300

/* ------------------------------------------------------------------------ */
/* The samples */

/* Every `*.xplane.pb` of the samples folder, sorted (NULL, the case
 * skipped, in a clone without them). */
static GPtrArray *
list_samples (void)
{
  return planar_test_list_samples (".xplane.pb");
}

/* What a case reads: the samples when @data is NULL, otherwise two
 * profiles of planar-gen, so that the same checks run in every clone. */
static GPtrArray *
list_profiles (gconstpointer data)
{
  GPtrArray *paths;

  if (data == NULL)
    return list_samples ();
  paths = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (paths, g_strdup (planar_test_generated_profile (1)));
  g_ptr_array_add (paths, g_strdup (planar_test_generated_profile (2)));
  return paths;
}

/* ------------------------------------------------------------------------ */
/* The independent decode: protobuf-c unpacks the whole XSpace, and the
 * semantics of docs/formats.md §1.4-§1.8 are applied to it here, without the model. */

typedef struct
{
  const XEvent *event;
  guint         line;
  /* In model time (see Reference.shift_ps). */
  gint64        start_ps;
  gint64        duration_ps;
} RefEvent;

typedef struct
{
  gint64  id;
  /* RefEvent: the non-aggregated events of every line with this id, in
   * timeline order. */
  GArray *events;
  guint64 n_aggregated;
} RefTrack;

typedef struct
{
  const XPlane *plane;
  /* gint64 key -> const char *name, for stat metadata. */
  GHashTable   *stat_names;
  /* gint64 key -> const XEventMetadata *. */
  GHashTable   *event_metadata;
  /* RefTrack, in the order their first line appears. */
  GPtrArray    *tracks;
  guint64       n_events;
} RefPlane;

typedef struct
{
  char     *path;
  char     *contents;
  gsize     size;
  XSpace   *space;
  gboolean  has_start;
  guint64   start_ns;
  RefPlane *planes;
  guint     n_planes;
  guint64   n_events;
  guint64   n_timeline_events;
  gboolean  has_span;
  gint64    first_ps;
  gint64    last_ps;
} Reference;

static void
ref_track_free (RefTrack *track)
{
  g_array_unref (track->events);
  g_free (track);
}

static void
reference_free (Reference *ref)
{
  for (guint p = 0; p < ref->n_planes; p++)
    {
      g_hash_table_unref (ref->planes[p].stat_names);
      g_hash_table_unref (ref->planes[p].event_metadata);
      g_ptr_array_unref (ref->planes[p].tracks);
    }
  g_free (ref->planes);
  if (ref->space != NULL)
    tensorflow__profiler__xspace__free_unpacked (ref->space, NULL);
  g_free (ref->contents);
  g_free (ref->path);
  g_free (ref);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reference, reference_free)

static const char *
ref_stat_name (const RefPlane *rp,
               gint64          id)
{
  const char *name = g_hash_table_lookup (rp->stat_names, &id);

  return name != NULL ? name : "";
}

static const XEventMetadata *
ref_event_metadata (const RefPlane *rp,
                    gint64          id)
{
  return g_hash_table_lookup (rp->event_metadata, &id);
}

static int
compare_ref_events (gconstpointer pa,
                    gconstpointer pb)
{
  const RefEvent *a = pa;
  const RefEvent *b = pb;

  if (a->start_ps != b->start_ps)
    return a->start_ps < b->start_ps ? -1 : 1;
  if (a->duration_ps != b->duration_ps)
    return a->duration_ps > b->duration_ps ? -1 : 1;
  return 0;
}

static RefTrack *
ref_plane_track (RefPlane *rp,
                 gint64    id)
{
  RefTrack *track;

  for (guint i = 0; i < rp->tracks->len; i++)
    {
      track = g_ptr_array_index (rp->tracks, i);
      if (track->id == id)
        return track;
    }
  track = g_new0 (RefTrack, 1);
  track->id = id;
  track->events = g_array_new (FALSE, FALSE, sizeof (RefEvent));
  g_ptr_array_add (rp->tracks, track);
  return track;
}

static Reference *
reference_new (const char *path)
{
  g_autoptr(Reference) ref = g_new0 (Reference, 1);
  g_autoptr(GError) error = NULL;
  gint64 shift_ps;

  ref->path = g_strdup (path);
  g_file_get_contents (path, &ref->contents, &ref->size, &error);
  g_assert_no_error (error);
  ref->space = tensorflow__profiler__xspace__unpack (NULL, ref->size, (const uint8_t *) ref->contents);
  if (ref->space == NULL)
    g_error ("protobuf-c cannot unpack %s", path);

  ref->n_planes = (guint) ref->space->n_planes;
  ref->planes = g_new0 (RefPlane, MAX (ref->n_planes, 1));
  for (guint p = 0; p < ref->n_planes; p++)
    {
      const XPlane *plane = ref->space->planes[p];
      RefPlane *rp = &ref->planes[p];

      rp->plane = plane;
      rp->stat_names = g_hash_table_new (g_int64_hash, g_int64_equal);
      rp->event_metadata = g_hash_table_new (g_int64_hash, g_int64_equal);
      rp->tracks = g_ptr_array_new_with_free_func ((GDestroyNotify) ref_track_free);
      /* Later map entries with the same key win, as in protobuf. */
      for (gsize i = 0; i < plane->n_stat_metadata; i++)
        g_hash_table_insert (rp->stat_names, &plane->stat_metadata[i]->key,
                             plane->stat_metadata[i]->value != NULL
                               ? plane->stat_metadata[i]->value->name : (char *) "");
      for (gsize i = 0; i < plane->n_event_metadata; i++)
        if (plane->event_metadata[i]->value != NULL)
          g_hash_table_insert (rp->event_metadata, &plane->event_metadata[i]->key,
                               plane->event_metadata[i]->value);
        else
          g_hash_table_remove (rp->event_metadata, &plane->event_metadata[i]->key);

      /* The profile start: a uint64 stat on the Task Environment plane. */
      if (g_strcmp0 (plane->name, "Task Environment") == 0)
        for (gsize i = 0; i < plane->n_stats; i++)
          {
            const XStat *stat = plane->stats[i];

            if (strcmp (ref_stat_name (rp, stat->metadata_id), "profile_start_time") != 0)
              continue;
            if (stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE &&
                stat->uint64_value > 0 && stat->uint64_value <= G_MAXINT64)
              {
                ref->has_start = TRUE;
                ref->start_ns = stat->uint64_value;
              }
            else if (stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE &&
                     stat->int64_value > 0)
              {
                ref->has_start = TRUE;
                ref->start_ns = (guint64) stat->int64_value;
              }
          }
    }

  for (guint p = 0; p < ref->n_planes; p++)
    {
      const XPlane *plane = ref->space->planes[p];
      RefPlane *rp = &ref->planes[p];

      for (gsize l = 0; l < plane->n_lines; l++)
        {
          const XLine *line = plane->lines[l];
          RefTrack *track = ref_plane_track (rp, line->id);
          gint64 base_ns = 0;

          if (ref->has_start && line->timestamp_ns >= (gint64) ref->start_ns)
            base_ns = (gint64) ref->start_ns;
          rp->n_events += line->n_events;
          for (gsize e = 0; e < line->n_events; e++)
            {
              const XEvent *event = line->events[e];
              RefEvent re = { event, (guint) l, 0, MAX (event->duration_ps, 0) };

              if (event->data_case == TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES)
                {
                  track->n_aggregated++;
                  continue;
                }
              re.start_ps = (line->timestamp_ns - base_ns) * 1000 +
                (event->data_case == TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS ? event->offset_ps : 0);
              g_array_append_val (track->events, re);
              ref->n_timeline_events++;
              if (!ref->has_span || re.start_ps < ref->first_ps)
                ref->first_ps = re.start_ps;
              if (!ref->has_span || re.start_ps + re.duration_ps > ref->last_ps)
                ref->last_ps = re.start_ps + re.duration_ps;
              ref->has_span = TRUE;
            }
        }
      ref->n_events += rp->n_events;
    }

  /* Without a Task Environment start, time 0 is the earliest event. */
  shift_ps = (!ref->has_start && ref->has_span) ? -ref->first_ps : 0;
  if (ref->has_span)
    {
      ref->first_ps += shift_ps;
      ref->last_ps += shift_ps;
    }
  for (guint p = 0; p < ref->n_planes; p++)
    for (guint t = 0; t < ref->planes[p].tracks->len; t++)
      {
        RefTrack *track = g_ptr_array_index (ref->planes[p].tracks, t);

        for (guint e = 0; e < track->events->len; e++)
          g_array_index (track->events, RefEvent, e).start_ps += shift_ps;
        /* A stable sort: equal events stay in file order, as the model
         * breaks ties by file offset. */
        g_array_sort (track->events, compare_ref_events);
      }

  return g_steal_pointer (&ref);
}

static const char *
display_or_name (const char *display_name,
                 const char *name)
{
  return display_name != NULL && display_name[0] != '\0' ? display_name : (name ? name : "");
}

/* ------------------------------------------------------------------------ */
/* Model checks */


static void
check_stat_value (const RefPlane   *rp,
                  const XStat      *expected,
                  const PlanarStat *got)
{
  switch (expected->value_case)
    {
    case TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE:
      g_assert_cmpint (got->kind, ==, PLANAR_STAT_INT64);
      g_assert_cmpint (got->v.i64, ==, expected->int64_value);
      break;
    case TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE:
      g_assert_cmpint (got->kind, ==, PLANAR_STAT_UINT64);
      g_assert_cmpuint (got->v.u64, ==, expected->uint64_value);
      break;
    case TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE:
      g_assert_cmpint (got->kind, ==, PLANAR_STAT_DOUBLE);
      g_assert_cmpmem (&got->v.f64, sizeof (double), &expected->double_value, sizeof (double));
      break;
    case TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE:
      g_assert_cmpint (got->kind, ==, PLANAR_STAT_STRING);
      g_assert_cmpmem (got->str.data, got->str.len, expected->str_value, strlen (expected->str_value));
      break;
    case TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE:
      g_assert_cmpint (got->kind, ==, PLANAR_STAT_BYTES);
      g_assert_cmpmem (got->str.data, got->str.len, expected->bytes_value.data, expected->bytes_value.len);
      break;
    case TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE:
      {
        const char *text = ref_stat_name (rp, (gint64) expected->ref_value);

        g_assert_cmpint (got->kind, ==, PLANAR_STAT_REF);
        g_assert_cmpuint (got->v.u64, ==, expected->ref_value);
        g_assert_cmpmem (got->str.data, got->str.len, text, strlen (text));
      }
      break;
    case TENSORFLOW__PROFILER__XSTAT__VALUE__NOT_SET:
    default:
      g_assert_cmpint (got->kind, ==, PLANAR_STAT_NONE);
      break;
    }
}

typedef struct
{
  const XStat *stat;
  const char  *name;
  gboolean     from_metadata;
} ExpectedStat;

/* The stats XProf shows for an event: its metadata's first (a repeated
 * metadata id keeps its last value), then its own, each replacing a
 * metadata stat of the same name. */
static GArray *
expected_event_stats (const RefPlane       *rp,
                      const XEventMetadata *md,
                      const XEvent         *event)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (ExpectedStat));
  guint n_from_metadata;

  for (gsize i = 0; md != NULL && i < md->n_stats; i++)
    {
      ExpectedStat es = { md->stats[i], ref_stat_name (rp, md->stats[i]->metadata_id), TRUE };
      gboolean replaced = FALSE;

      for (guint k = 0; k < out->len && !replaced; k++)
        if (g_array_index (out, ExpectedStat, k).stat->metadata_id == es.stat->metadata_id)
          {
            g_array_index (out, ExpectedStat, k) = es;
            replaced = TRUE;
          }
      if (!replaced)
        g_array_append_val (out, es);
    }
  n_from_metadata = out->len;
  for (gsize i = 0; i < event->n_stats; i++)
    {
      ExpectedStat es = { event->stats[i], ref_stat_name (rp, event->stats[i]->metadata_id), FALSE };
      gboolean replaced = FALSE;

      for (guint k = 0; k < n_from_metadata && !replaced; k++)
        {
          ExpectedStat *old = &g_array_index (out, ExpectedStat, k);

          if (strcmp (old->name, es.name) == 0 &&
              (es.name[0] != '\0' || old->stat->metadata_id == es.stat->metadata_id))
            {
              *old = es;
              replaced = TRUE;
            }
        }
      if (!replaced)
        g_array_append_val (out, es);
    }
  return out;
}

static void
check_event_stats (const RefPlane    *rp,
                   PlanarTrace       *trace,
                   const PlanarPlane *plane,
                   const PlanarEvent *ev,
                   const XEvent      *event)
{
  g_autoptr(GArray) expected = expected_event_stats (rp, ref_event_metadata (rp, event->metadata_id), event);
  g_autoptr(GArray) got = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autoptr(GError) error = NULL;
  guint n;

  n = planar_trace_get_event_stats (trace, plane, ev, got, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, got->len);
  g_assert_cmpuint (got->len, ==, expected->len);
  for (guint i = 0; i < expected->len; i++)
    {
      const ExpectedStat *es = &g_array_index (expected, ExpectedStat, i);
      const PlanarStat *stat = &g_array_index (got, PlanarStat, i);

      g_assert_cmpstr (stat->name, ==, es->name);
      g_assert_cmpint (stat->metadata_id, ==, es->stat->metadata_id);
      g_assert_cmpint (stat->from_metadata, ==, es->from_metadata);
      check_stat_value (rp, es->stat, stat);
    }
}

static void
check_event_metadata (const RefPlane    *rp,
                      const PlanarPlane *plane,
                      const PlanarEvent *ev,
                      const XEvent      *event)
{
  const XEventMetadata *md = ref_event_metadata (rp, event->metadata_id);

  g_assert_cmpuint (ev->metadata, <, plane->n_metadata);
  if (md == NULL)
    {
      /* Entry 0 stands for ids the plane does not define. */
      g_assert_cmpuint (ev->metadata, ==, 0);
      g_assert_cmpstr (planar_plane_get_event_name (plane, ev, FALSE), ==, "");
      return;
    }
  g_assert_cmpint (plane->metadata[ev->metadata].id, ==, event->metadata_id);
  g_assert_cmpstr (planar_plane_get_event_name (plane, ev, FALSE), ==, md->name ? md->name : "");
  g_assert_cmpstr (planar_plane_get_event_name (plane, ev, TRUE), ==, display_or_name (md->display_name, md->name));
}

static const PlanarTrack *
find_track_by_id (const PlanarPlane *plane,
                  gint64             id)
{
  for (guint t = 0; t < plane->n_tracks; t++)
    if (!plane->tracks[t].derived && plane->tracks[t].id == id)
      return &plane->tracks[t];
  return NULL;
}

static void
compare_with_model (const Reference *ref,
                    PlanarTrace     *trace)
{
  const char * const *hostnames = planar_trace_get_hostnames (trace);
  guint64 stride = MAX (ref->n_timeline_events / STATS_SAMPLE_SIZE, 1);
  guint64 seen = 0, n_stats_checked = 0;
  guint64 n_events = 0;
  gint64 first, last;
  guint64 start_ns;

  g_assert_true (planar_trace_is_decoded (trace));

  /* XSpace fields. */
  g_assert_cmpuint (g_strv_length ((char **) hostnames), ==, ref->space->n_hostnames);
  for (gsize i = 0; i < ref->space->n_hostnames; i++)
    g_assert_cmpstr (hostnames[i], ==, ref->space->hostnames[i]);
  g_assert_cmpuint (g_strv_length ((char **) planar_trace_get_errors (trace)), ==, ref->space->n_errors);
  g_assert_cmpuint (g_strv_length ((char **) planar_trace_get_warnings (trace)), ==, ref->space->n_warnings);

  /* Time base. */
  g_assert_cmpint (planar_trace_get_profile_start_time (trace, &start_ns), ==, ref->has_start);
  if (ref->has_start)
    g_assert_cmpuint (start_ns, ==, ref->start_ns);
  g_assert_cmpint (planar_trace_is_aligned_at_earliest_event (trace), ==, !ref->has_start);

  g_assert_cmpuint (planar_trace_get_n_planes (trace), ==, ref->n_planes);
  for (guint p = 0; p < ref->n_planes; p++)
    {
      const RefPlane *rp = &ref->planes[p];
      const XPlane *xp = rp->plane;
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);
      guint n_lines = 0, n_tracks = 0;
      guint64 line_events = 0;

      g_assert_cmpstr (plane->name, ==, xp->name);
      g_assert_cmpint (plane->id, ==, xp->id);

      /* Lines, in file order. */
      for (guint l = 0; l < plane->n_lines; l++)
        {
          const PlanarLine *line = &plane->lines[l];
          const XLine *xl;

          if (line->derived)
            continue;
          g_assert_cmpuint (n_lines, <, xp->n_lines);
          xl = xp->lines[n_lines++];
          g_assert_cmpstr (line->name, ==, xl->name);
          g_assert_cmpstr (line->display_name, ==, display_or_name (xl->display_name, xl->name));
          g_assert_cmpint (line->id, ==, xl->id);
          g_assert_cmpint (line->display_id, ==, xl->display_id != 0 ? xl->display_id : xl->id);
          g_assert_cmpint (line->timestamp_ns, ==, xl->timestamp_ns);
          g_assert_cmpint (line->duration_ps, ==, xl->duration_ps);
          g_assert_cmpuint (line->n_events, ==, xl->n_events);
          g_assert_cmpuint (line->track, <, plane->n_tracks);
          g_assert_cmpint (plane->tracks[line->track].id, ==, line->id);
          line_events += line->n_events;
        }
      g_assert_cmpuint (n_lines, ==, xp->n_lines);
      g_assert_cmpuint (plane->n_events, ==, rp->n_events);
      g_assert_cmpuint (line_events, ==, rp->n_events);
      n_events += plane->n_events;

      /* Tracks: every event, in timeline order. */
      for (guint t = 0; t < plane->n_tracks; t++)
        {
          planar_test_check_track (plane, &plane->tracks[t], 0, 0, FALSE);
          if (!plane->tracks[t].derived)
            n_tracks++;
        }
      g_assert_cmpuint (n_tracks, ==, rp->tracks->len);
      for (guint t = 0; t < rp->tracks->len; t++)
        {
          const RefTrack *rt = g_ptr_array_index (rp->tracks, t);
          const PlanarTrack *track = find_track_by_id (plane, rt->id);

          g_assert_nonnull (track);
          g_assert_cmpuint (track->n_events, ==, rt->events->len);
          g_assert_cmpuint (track->n_aggregated, ==, rt->n_aggregated);
          for (gsize e = 0; e < track->n_events; e++)
            {
              const PlanarEvent *ev = &track->events[e];
              const RefEvent *re = &g_array_index (rt->events, RefEvent, e);

              g_assert_cmpint (ev->start_ps, ==, re->start_ps);
              g_assert_cmpint (ev->duration_ps, ==, re->duration_ps);
              check_event_metadata (rp, plane, ev, re->event);
              if (seen++ % stride == 0)
                {
                  check_event_stats (rp, trace, plane, ev, re->event);
                  n_stats_checked++;
                }
            }
        }
    }
  g_assert_cmpuint (n_events, ==, ref->n_events);
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, ref->n_events);
  g_assert_cmpuint (seen, ==, ref->n_timeline_events);
  if (ref->n_timeline_events > 0)
    g_assert_cmpuint (n_stats_checked, >=, MIN (ref->n_timeline_events, STATS_SAMPLE_SIZE));

  g_assert_cmpint (planar_trace_get_span (trace, &first, &last), ==, ref->has_span);
  if (ref->has_span)
    {
      g_assert_cmpint (first, ==, ref->first_ps);
      g_assert_cmpint (last, ==, ref->last_ps);
      if (!ref->has_start)
        g_assert_cmpint (first, ==, 0);
    }
}

static void
test_samples_found (void)
{
  g_autoptr(GPtrArray) paths = list_samples ();

  if (paths == NULL)
    return;
  g_assert_cmpuint (paths->len, >, 0);
  for (guint i = 0; i < paths->len; i++)
    g_test_message ("sample: %s", (const char *) g_ptr_array_index (paths, i));
}

static void
test_samples_model (gconstpointer data)
{
  g_autoptr(GPtrArray) paths = list_profiles (data);

  if (paths == NULL)
    return;
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autoptr(Reference) ref = reference_new (path);
      g_autoptr(PlanarTrace) trace = NULL;
      g_autoptr(GError) error = NULL;

      g_test_message ("%s: %u planes, %" G_GUINT64_FORMAT " events", path, ref->n_planes, ref->n_events);
      trace = planar_trace_load (path, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (trace);
      compare_with_model (ref, trace);
    }
}

/* ------------------------------------------------------------------------ */
/* What the samples README says about them */

typedef struct
{
  const char *plane;
  const char *line;
  guint64     events;
} KnownLine;

typedef struct
{
  const char *file;
  guint64     events;
  guint       planes;
  const char *hostname;
  /* A plane whose line count is known, and how many. */
  const char *counted_plane;
  guint       counted_lines;
  guint64     counted_events;
  KnownLine   lines[3];
} KnownSample;

static const KnownSample known_samples[] = {
  { "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb", 23128, 9, "34.83.195.179:6003",
    "/host:CPU", 22, 15354, { { NULL } } },
  { "tracelens_mi300_jax08_attention_tw003.xplane.pb", 4380, 11, "tw003",
    "/host:CPU", 5, G_MAXUINT64,
    { { "/device:GPU:0", "Stream #16(Kernel)", 87 }, { "/device:GPU:0", "Stream #17(Kernel)", 18 } } },
  { "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb", 1992, 12, "934987a2fc2f",
    "/device:CUSTOM:Megascale Trace", 0, 0,
    { { "/host:CPU", "Host Threads/7", G_MAXUINT64 }, { "/host:CPU", "python3", G_MAXUINT64 } } },
};

static void
test_samples_known_counts (void)
{
  if (!planar_test_need_samples ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (known_samples); i++)
    {
      const KnownSample *k = &known_samples[i];
      g_autofree char *path = planar_test_sample_path (k->file);
      g_autoptr(Reference) ref = reference_new (path);
      g_autoptr(PlanarTrace) trace = NULL;
      g_autoptr(GError) error = NULL;
      const PlanarPlane *plane;

      /* The README's numbers hold for the independent decode ... */
      g_assert_cmpuint (ref->n_events, ==, k->events);
      g_assert_cmpuint (ref->n_planes, ==, k->planes);

      /* ... and for the model. */
      trace = planar_trace_load (path, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (planar_trace_get_n_events (trace), ==, k->events);
      g_assert_cmpuint (planar_trace_get_n_planes (trace), ==, k->planes);
      if (k->hostname != NULL)
        {
          g_assert_cmpuint (g_strv_length ((char **) planar_trace_get_hostnames (trace)), ==, 1);
          g_assert_cmpstr (planar_trace_get_hostnames (trace)[0], ==, k->hostname);
        }

      plane = planar_trace_find_plane (trace, k->counted_plane);
      g_assert_nonnull (plane);
      g_assert_cmpuint (plane->n_lines, ==, k->counted_lines);
      if (k->counted_events != G_MAXUINT64)
        g_assert_cmpuint (plane->n_events, ==, k->counted_events);

      for (guint j = 0; j < G_N_ELEMENTS (k->lines) && k->lines[j].plane != NULL; j++)
        {
          const PlanarPlane *lp = planar_trace_find_plane (trace, k->lines[j].plane);
          const PlanarTrack *track;

          g_assert_nonnull (lp);
          track = planar_plane_find_track (lp, k->lines[j].line);
          g_assert_nonnull (track);
          if (k->lines[j].events != G_MAXUINT64)
            g_assert_cmpuint (track->n_events + track->n_aggregated, ==, k->lines[j].events);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* planar-cli info --json */

static int
run_cli (const char * const  *args,
         char               **out,
         char               **err)
{
  const char *cli = g_getenv ("PLANAR_CLI");
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (char *) cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                out, err, &wait_status, &error);
  g_assert_no_error (error);
  if (!WIFEXITED (wait_status))
    g_error ("planar-cli %s died (wait status %d); stderr: %s", args[0], wait_status, *err);
  return WEXITSTATUS (wait_status);
}

static JsonNode *
run_info_json (const char *path)
{
  const char *args[] = { "info", "--json", path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = run_cli (args, &out, &err);

  if (status != 0)
    g_error ("planar-cli info --json %s exited %d: %s", path, status, err);
  g_assert_cmpstr (err, ==, "");
  return json_from_string (out, &error);
}

static JsonNode *
member (JsonObject *object,
        const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL)
    g_error ("no member '%s' in the JSON object", name);
  return node;
}

static gint64
member_int (JsonObject *object,
            const char *name)
{
  JsonNode *node = member (object, name);

  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_INT64);
  return json_node_get_int (node);
}

static const char *
member_string (JsonObject *object,
               const char *name)
{
  JsonNode *node = member (object, name);

  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_STRING);
  return json_node_get_string (node);
}

static JsonArray *
member_array (JsonObject *object,
              const char *name)
{
  JsonNode *node = member (object, name);

  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_node_get_array (node);
}

static JsonObject *
element_object (JsonArray *array,
                guint      index)
{
  JsonNode *node = json_array_get_element (array, index);

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_node_get_object (node);
}

static void
check_json_span (JsonObject *object,
                 gboolean    has_span,
                 gint64      first,
                 gint64      last)
{
  JsonNode *node = member (object, "span_ps");
  JsonArray *span;

  if (!has_span)
    {
      g_assert_true (JSON_NODE_HOLDS_NULL (node));
      return;
    }
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  span = json_node_get_array (node);
  g_assert_cmpuint (json_array_get_length (span), ==, 2);
  g_assert_cmpint (json_array_get_int_element (span, 0), ==, first);
  g_assert_cmpint (json_array_get_int_element (span, 1), ==, last);
}

static gboolean
same_file (const char *a,
           const char *b)
{
  g_autoptr(GFile) fa = g_file_new_for_path (a);
  g_autoptr(GFile) fb = g_file_new_for_path (b);
  GStatBuf sa, sb;

  if (g_file_equal (fa, fb))
    return TRUE;
  /* A session lists its hosts through their links' own paths. */
  return g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static char *
host_name_of (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);

  g_assert_true (g_str_has_suffix (base, ".xplane.pb"));
  return g_strndup (base, strlen (base) - strlen (".xplane.pb"));
}

/* Checks one entry of "hosts" against the independent decode; @shift_ps is
 * what aligning the session's hosts added to every time. */
static void
check_json_host (JsonObject      *host,
                 const Reference *ref,
                 gint64           shift_ps)
{
  g_autofree char *name = host_name_of (ref->path);
  JsonArray *hostnames = member_array (host, "hostnames");
  JsonArray *planes = member_array (host, "planes");

  g_assert_cmpstr (member_string (host, "name"), ==, name);
  g_assert_true (same_file (member_string (host, "file"), ref->path));
  g_assert_cmpuint (json_array_get_length (hostnames), ==, ref->space->n_hostnames);
  for (gsize i = 0; i < ref->space->n_hostnames; i++)
    g_assert_cmpstr (json_array_get_string_element (hostnames, (guint) i), ==, ref->space->hostnames[i]);

  g_assert_cmpuint (json_array_get_length (planes), ==, ref->n_planes);
  for (guint p = 0; p < ref->n_planes; p++)
    {
      const XPlane *xp = ref->planes[p].plane;
      JsonObject *plane = element_object (planes, p);
      JsonArray *lines = member_array (plane, "lines");
      guint n_lines = 0;

      g_assert_cmpstr (member_string (plane, "name"), ==, xp->name);
      g_assert_cmpint (member_int (plane, "id"), ==, xp->id);
      g_assert_cmpint (member_int (plane, "events"), ==, (gint64) ref->planes[p].n_events);
      for (guint l = 0; l < json_array_get_length (lines); l++)
        {
          JsonObject *line = element_object (lines, l);
          const XLine *xl;

          if (json_object_has_member (line, "derived") && json_object_get_boolean_member (line, "derived"))
            continue;
          g_assert_cmpuint (n_lines, <, xp->n_lines);
          xl = xp->lines[n_lines++];
          g_assert_cmpstr (member_string (line, "name"), ==, xl->name);
          g_assert_cmpstr (member_string (line, "display_name"), ==, display_or_name (xl->display_name, xl->name));
          g_assert_cmpint (member_int (line, "id"), ==, xl->id);
          g_assert_cmpint (member_int (line, "events"), ==, (gint64) xl->n_events);
        }
      g_assert_cmpuint (n_lines, ==, xp->n_lines);
    }
  g_assert_cmpint (member_int (host, "events"), ==, (gint64) ref->n_events);
  check_json_span (host, ref->has_span, ref->first_ps + shift_ps, ref->last_ps + shift_ps);
}

static void
test_samples_cli_info (gconstpointer data)
{
  g_autoptr(GPtrArray) paths = list_profiles (data);

  if (paths == NULL)
    return;
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autoptr(Reference) ref = reference_new (path);
      g_autoptr(JsonNode) root = run_info_json (path);
      JsonObject *doc;
      JsonArray *hosts;

      g_assert_nonnull (root);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
      doc = json_node_get_object (root);
      hosts = member_array (doc, "hosts");
      g_assert_cmpuint (json_array_get_length (hosts), ==, 1);
      check_json_host (element_object (hosts, 0), ref, 0);
      g_assert_cmpint (member_int (doc, "events"), ==, (gint64) ref->n_events);
      check_json_span (doc, ref->has_span, ref->first_ps, ref->last_ps);
    }
}

static guint64
file_size (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return (guint64) st.st_size;
}

static int
compare_by_size (gconstpointer a,
                 gconstpointer b)
{
  guint64 sa = file_size (*(const char * const *) a);
  guint64 sb = file_size (*(const char * const *) b);

  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

static void
remove_tree (const char *path)
{
  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

/* A log directory whose one session holds two of the samples, linked (the
 * samples are never copied). */
static void
test_samples_cli_session (gconstpointer data)
{
  g_autoptr(GPtrArray) paths = list_profiles (data);
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *session = NULL;
  g_autoptr(JsonNode) node = NULL;
  Reference *refs[2] = { NULL, NULL };
  gboolean any_start = FALSE;
  guint64 earliest_start = 0;
  gint64 shifts[2] = { 0, 0 };
  gboolean own_start = FALSE;
  gboolean has_span = FALSE;
  gint64 first = 0, last = 0;
  JsonObject *doc;
  JsonArray *hosts;
  guint n;

  if (paths == NULL)
    return;
  if (paths->len < 2)
    {
      g_test_skip ("needs two samples");
      return;
    }
  root = g_dir_make_tmp ("planar-test-samples-XXXXXX", &error);
  g_assert_no_error (error);
  /* The two smallest keep the test quick. */
  g_ptr_array_sort (paths, compare_by_size);

  session = g_build_filename (root, "plugins", "profile", "2026_01_01_00_00_00", NULL);
  g_assert_cmpint (g_mkdir_with_parents (session, 0700), ==, 0);
  for (guint i = 0; i < 2; i++)
    {
      const char *target = g_ptr_array_index (paths, i);
      g_autofree char *base = g_path_get_basename (target);
      g_autofree char *link = g_build_filename (session, base, NULL);

      if (symlink (target, link) != 0)
        g_error ("symlink %s: %s", link, g_strerror (errno));
      refs[i] = reference_new (target);
      if (refs[i]->has_start && (!any_start || refs[i]->start_ns < earliest_start))
        {
          earliest_start = refs[i]->start_ns;
          any_start = TRUE;
        }
    }
  /* Hosts with a start time are placed by it when they overlap in time
   * (their events' wall-clock spans meet); otherwise, as two captures of
   * different runs, each keeps its own start at 0. Hosts without one keep
   * their earliest event at 0. */
  if (refs[0]->has_start && refs[1]->has_start && refs[0]->has_span && refs[1]->has_span)
    {
      gint64 lo[2], hi[2];

      for (guint i = 0; i < 2; i++)
        {
          lo[i] = (gint64) refs[i]->start_ns + refs[i]->first_ps / 1000;
          hi[i] = (gint64) refs[i]->start_ns + refs[i]->last_ps / 1000;
        }
      own_start = lo[0] > hi[1] || lo[1] > hi[0];
    }
  for (guint i = 0; i < 2; i++)
    if (refs[i]->has_start && !own_start)
      shifts[i] = (gint64) (refs[i]->start_ns - earliest_start) * 1000;

  node = run_info_json (root);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  doc = json_node_get_object (node);
  g_assert_cmpstr (member_string (doc, "session"), ==, "2026_01_01_00_00_00");
  g_assert_cmpstr (member_string (doc, "host_alignment"), ==, own_start ? "own_start" : "common_start");
  hosts = member_array (doc, "hosts");
  n = json_array_get_length (hosts);
  g_assert_cmpuint (n, ==, 2);
  for (guint h = 0; h < n; h++)
    {
      JsonObject *host = element_object (hosts, h);
      const char *name = member_string (host, "name");
      gboolean matched = FALSE;

      for (guint i = 0; i < 2; i++)
        {
          g_autofree char *expected = host_name_of (refs[i]->path);

          if (strcmp (name, expected) != 0)
            continue;
          check_json_host (host, refs[i], shifts[i]);
          matched = TRUE;
        }
      g_assert_true (matched);
    }
  for (guint i = 0; i < 2; i++)
    if (refs[i]->has_span)
      {
        if (!has_span || refs[i]->first_ps + shifts[i] < first)
          first = refs[i]->first_ps + shifts[i];
        if (!has_span || refs[i]->last_ps + shifts[i] > last)
          last = refs[i]->last_ps + shifts[i];
        has_span = TRUE;
      }
  g_assert_cmpint (member_int (doc, "events"), ==, (gint64) (refs[0]->n_events + refs[1]->n_events));
  check_json_span (doc, has_span, first, last);

  reference_free (refs[0]);
  reference_free (refs[1]);
  remove_tree (root);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/samples/found", test_samples_found);
  g_test_add_data_func ("/samples/model", NULL, test_samples_model);
  g_test_add_func ("/samples/known-counts", test_samples_known_counts);
  g_test_add_data_func ("/samples/cli-info-json", NULL, test_samples_cli_info);
  g_test_add_data_func ("/samples/cli-session", NULL, test_samples_cli_session);
  /* The same checks on profiles of planar-gen, which every clone has. */
  g_test_add_data_func ("/samples/generated/model", "generated", test_samples_model);
  g_test_add_data_func ("/samples/generated/cli-info-json", "generated", test_samples_cli_info);
  g_test_add_data_func ("/samples/generated/cli-session", "generated", test_samples_cli_session);

  return g_test_run ();
}
