/* test-trace.c: the index built from hand-made XSpaces.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "xplane.pb-c.h"

#include <glib/gstdio.h>
#include <string.h>

/* Small builders over protobuf-c's structs. Everything is allocated with
 * GLib and freed in one go by the test's scratch list. */

typedef Tensorflow__Profiler__XSpace XSpace;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XLine XLine;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XStat XStat;
typedef Tensorflow__Profiler__XEventMetadata XEventMetadata;
typedef Tensorflow__Profiler__XStatMetadata XStatMetadata;
typedef Tensorflow__Profiler__XPlane__EventMetadataEntry EventMetadataEntry;
typedef Tensorflow__Profiler__XPlane__StatMetadataEntry StatMetadataEntry;

static GPtrArray *scratch;

static gpointer
keep (gpointer p)
{
  g_ptr_array_add (scratch, p);
  return p;
}

static char *
keep_str (const char *s)
{
  return keep (g_strdup (s));
}

#define APPEND(array, n, item) \
  G_STMT_START { \
    (array) = g_realloc ((array), sizeof (*(array)) * ((n) + 1)); \
    (array)[(n)++] = (item); \
  } G_STMT_END

static XSpace *
space_new (void)
{
  XSpace *space = g_new0 (XSpace, 1);

  tensorflow__profiler__xspace__init (space);
  return space;
}

static XPlane *
space_add_plane (XSpace     *space,
                 gint64      id,
                 const char *name)
{
  XPlane *plane = keep (g_new0 (XPlane, 1));

  tensorflow__profiler__xplane__init (plane);
  plane->id = id;
  plane->name = keep_str (name);
  APPEND (space->planes, space->n_planes, plane);
  return plane;
}

static void
plane_add_stat_metadata (XPlane     *plane,
                         gint64      id,
                         const char *name)
{
  StatMetadataEntry *entry = keep (g_new0 (StatMetadataEntry, 1));
  XStatMetadata *md = keep (g_new0 (XStatMetadata, 1));

  tensorflow__profiler__xplane__stat_metadata_entry__init (entry);
  tensorflow__profiler__xstat_metadata__init (md);
  md->id = id;
  md->name = keep_str (name);
  entry->key = id;
  entry->value = md;
  APPEND (plane->stat_metadata, plane->n_stat_metadata, entry);
}

static XEventMetadata *
plane_add_event_metadata (XPlane     *plane,
                          gint64      id,
                          const char *name,
                          const char *display_name)
{
  EventMetadataEntry *entry = keep (g_new0 (EventMetadataEntry, 1));
  XEventMetadata *md = keep (g_new0 (XEventMetadata, 1));

  tensorflow__profiler__xplane__event_metadata_entry__init (entry);
  tensorflow__profiler__xevent_metadata__init (md);
  md->id = id;
  md->name = keep_str (name);
  if (display_name != NULL)
    md->display_name = keep_str (display_name);
  entry->key = id;
  entry->value = md;
  APPEND (plane->event_metadata, plane->n_event_metadata, entry);
  return md;
}

static XLine *
plane_add_line (XPlane     *plane,
                gint64      id,
                const char *name,
                gint64      timestamp_ns)
{
  XLine *line = keep (g_new0 (XLine, 1));

  tensorflow__profiler__xline__init (line);
  line->id = id;
  line->name = keep_str (name);
  line->timestamp_ns = timestamp_ns;
  APPEND (plane->lines, plane->n_lines, line);
  return line;
}

static XEvent *
line_add_event (XLine  *line,
                gint64  metadata_id,
                gint64  offset_ps,
                gint64  duration_ps)
{
  XEvent *event = keep (g_new0 (XEvent, 1));

  tensorflow__profiler__xevent__init (event);
  event->metadata_id = metadata_id;
  event->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
  event->offset_ps = offset_ps;
  event->duration_ps = duration_ps;
  APPEND (line->events, line->n_events, event);
  return event;
}

static XStat *
stat_new (gint64 metadata_id)
{
  XStat *stat = keep (g_new0 (XStat, 1));

  tensorflow__profiler__xstat__init (stat);
  stat->metadata_id = metadata_id;
  return stat;
}

static XStat *
stat_uint (gint64  metadata_id,
           guint64 value)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
  stat->uint64_value = value;
  return stat;
}

static XStat *
stat_int (gint64 metadata_id,
          gint64 value)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
  stat->int64_value = value;
  return stat;
}

static XStat *
stat_ref (gint64  metadata_id,
          guint64 ref)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE;
  stat->ref_value = ref;
  return stat;
}

static XStat *
stat_str (gint64      metadata_id,
          const char *value)
{
  XStat *stat = stat_new (metadata_id);

  stat->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
  stat->str_value = keep_str (value);
  return stat;
}

static XStat *
stat_double (gint64 metadata_id,
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
  g_free (space);
}

/* Writes @space into @dir/@name and frees it. Returns the path. */
static char *
write_space (XSpace     *space,
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

static void
add_task_environment (XSpace  *space,
                      guint64  start_ns)
{
  XPlane *env = space_add_plane (space, 0, "Task Environment");

  plane_add_stat_metadata (env, 1, "profile_start_time");
  plane_add_stat_metadata (env, 2, "profile_stop_time");
  APPEND (env->stats, env->n_stats, stat_uint (1, start_ns));
  APPEND (env->stats, env->n_stats, stat_uint (2, start_ns + 1000000000));
}

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  scratch = g_ptr_array_new_with_free_func (g_free);
  f->dir = g_dir_make_tmp ("planar-test-trace-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        remove_tree (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  remove_tree (f->dir);
  g_free (f->dir);
  g_clear_pointer (&scratch, g_ptr_array_unref);
}

static PlanarTrace *
load_ok (const char *path)
{
  g_autoptr(GError) error = NULL;
  PlanarTrace *trace = planar_trace_load (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

/* ------------------------------------------------------------------------ */

static void
test_depth_and_overlap (Fixture       *f,
                        gconstpointer  data)
{
  XSpace *space = space_new ();
  XPlane *plane = space_add_plane (space, 0, "/device:GPU:0");
  XLine *line = plane_add_line (plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarTrack *track;
  const PlanarEvent *ev;

  plane_add_event_metadata (plane, 1, "a", NULL);
  add_task_environment (space, 1000);
  /* Written out of order on purpose: the index sorts by (start, longer first). */
  line_add_event (line, 1, 200, 10);   /* E: after everything, depth 0 */
  line_add_event (line, 1, 0, 100);    /* A: depth 0 */
  line_add_event (line, 1, 10, 40);    /* B: inside A, depth 1 */
  line_add_event (line, 1, 40, 20);    /* C: starts in B, ends after it: overlap, B's depth */
  line_add_event (line, 1, 45, 5);     /* D: inside C, depth 2 */
  line_add_event (line, 1, 10, 40);    /* B': same span as B, nests inside it */
  line_add_event (line, 1, 100, 0);    /* instant at A's end: depth 0 */

  path = write_space (space, f->dir, "h.xplane.pb");
  trace = load_ok (path);
  track = &planar_trace_find_plane (trace, "/device:GPU:0")->tracks[0];
  g_assert_cmpuint (track->n_events, ==, 7);

  ev = track->events;
  g_assert_cmpint (ev[0].start_ps, ==, 0);
  g_assert_cmpuint (ev[0].depth, ==, 0);
  g_assert_cmpint (ev[1].start_ps, ==, 10);
  g_assert_cmpuint (ev[1].depth, ==, 1);
  g_assert_cmpint (ev[2].start_ps, ==, 10);
  g_assert_cmpuint (ev[2].depth, ==, 2);
  g_assert_cmpint (ev[3].start_ps, ==, 40);
  g_assert_cmpuint (ev[3].depth, ==, 2);
  g_assert_true (ev[3].flags & PLANAR_EVENT_OVERLAP);
  g_assert_cmpint (ev[4].start_ps, ==, 45);
  g_assert_cmpuint (ev[4].depth, ==, 3);
  g_assert_false (ev[4].flags & PLANAR_EVENT_OVERLAP);
  g_assert_cmpint (ev[5].start_ps, ==, 100);
  g_assert_cmpuint (ev[5].depth, ==, 0);
  g_assert_cmpint (ev[6].start_ps, ==, 200);
  g_assert_cmpuint (ev[6].depth, ==, 0);
  g_assert_cmpuint (track->n_overlaps, ==, 1);
  g_assert_cmpuint (planar_trace_get_n_overlaps (trace), ==, 1);
  g_assert_cmpuint (track->max_depth, ==, 3);
  g_assert_cmpint (track->start_ps, ==, 0);
  g_assert_cmpint (track->end_ps, ==, 210);
}

static void
test_stats (Fixture       *f,
            gconstpointer  data)
{
  XSpace *space = space_new ();
  XPlane *plane = space_add_plane (space, 3, "/device:GPU:3");
  XLine *line = plane_add_line (plane, 1, "Stream #1", 0);
  XEventMetadata *md;
  XEvent *ev;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  g_autoptr(GError) error = NULL;
  const PlanarPlane *p;
  const PlanarTrack *track;
  const PlanarStat *s;

  add_task_environment (space, 5);
  plane_add_stat_metadata (plane, 10, "kernel_details");
  plane_add_stat_metadata (plane, 11, "regs:32 grid:1,1,1");
  plane_add_stat_metadata (plane, 12, "flops");
  plane_add_stat_metadata (plane, 13, "tf_op");
  plane_add_stat_metadata (plane, 14, "occupancy");
  md = plane_add_event_metadata (plane, 5, "fusion.1", "fusion");
  APPEND (md->stats, md->n_stats, stat_int (12, 1000));
  APPEND (md->stats, md->n_stats, stat_str (13, "jit(f)/dot"));
  plane_add_event_metadata (plane, 6, "plain", NULL);

  ev = line_add_event (line, 5, 0, 10);
  APPEND (ev->stats, ev->n_stats, stat_ref (10, 11));
  APPEND (ev->stats, ev->n_stats, stat_int (12, 2000));
  APPEND (ev->stats, ev->n_stats, stat_double (14, 0.5));
  APPEND (ev->stats, ev->n_stats, stat_ref (10, 999));
  ev = line_add_event (line, 42, 20, 10);   /* metadata the plane lacks */
  APPEND (ev->stats, ev->n_stats, stat_int (77, -3));   /* stat metadata it lacks */

  path = write_space (space, f->dir, "stats.xplane.pb");
  trace = load_ok (path);
  p = planar_trace_find_plane (trace, "/device:GPU:3");
  g_assert_nonnull (p);
  track = &p->tracks[0];
  g_assert_cmpuint (track->n_events, ==, 2);

  g_assert_cmpstr (planar_plane_get_event_name (p, &track->events[0], FALSE), ==, "fusion.1");
  g_assert_cmpstr (planar_plane_get_event_name (p, &track->events[0], TRUE), ==, "fusion");

  g_assert_cmpuint (planar_trace_get_event_stats (trace, p, &track->events[0], stats, &error), ==, 4);
  g_assert_no_error (error);
  /* flops from metadata (1000) overridden by the event (2000), in place. */
  s = &g_array_index (stats, PlanarStat, 0);
  g_assert_cmpstr (s->name, ==, "flops");
  g_assert_cmpint (s->kind, ==, PLANAR_STAT_INT64);
  g_assert_cmpint (s->v.i64, ==, 2000);
  g_assert_false (s->from_metadata);
  s = &g_array_index (stats, PlanarStat, 1);
  g_assert_cmpstr (s->name, ==, "tf_op");
  g_assert_true (s->from_metadata);
  g_assert_cmpint (s->kind, ==, PLANAR_STAT_STRING);
  g_assert_cmpmem (s->str.data, s->str.len, "jit(f)/dot", 10);
  /* The second kernel_details (an unknown reference) replaced the first:
   * a repeated name keeps the last value. */
  s = &g_array_index (stats, PlanarStat, 2);
  g_assert_cmpstr (s->name, ==, "kernel_details");
  g_assert_cmpint (s->kind, ==, PLANAR_STAT_REF);
  s = &g_array_index (stats, PlanarStat, 3);
  g_assert_cmpstr (s->name, ==, "occupancy");
  g_assert_cmpint (s->kind, ==, PLANAR_STAT_DOUBLE);
  g_assert_cmpfloat (s->v.f64, ==, 0.5);

  /* The unknown metadata id gives an empty name; the unknown stat an empty
   * name with its id kept. */
  g_assert_cmpstr (planar_plane_get_event_name (p, &track->events[1], FALSE), ==, "");
  g_array_set_size (stats, 0);
  g_assert_cmpuint (planar_trace_get_event_stats (trace, p, &track->events[1], stats, &error), ==, 1);
  s = &g_array_index (stats, PlanarStat, 0);
  g_assert_cmpstr (s->name, ==, "");
  g_assert_cmpint (s->metadata_id, ==, 77);
  g_assert_cmpint (s->v.i64, ==, -3);
}

static void
test_ref_value (Fixture       *f,
                gconstpointer  data)
{
  XSpace *space = space_new ();
  XPlane *plane = space_add_plane (space, 0, "/device:GPU:0");
  XLine *line = plane_add_line (plane, 1, "Stream #1", 0);
  XEvent *ev;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  const PlanarPlane *p;
  const PlanarStat *s;
  g_autofree char *text = NULL;

  plane_add_stat_metadata (plane, 1, "hlo_op");
  plane_add_stat_metadata (plane, 2, "fusion.42");
  plane_add_event_metadata (plane, 1, "k", NULL);
  ev = line_add_event (line, 1, 0, 10);
  APPEND (ev->stats, ev->n_stats, stat_ref (1, 2));

  path = write_space (space, f->dir, "ref.xplane.pb");
  trace = load_ok (path);
  p = planar_trace_get_plane (trace, 0);
  g_assert_cmpuint (planar_trace_get_event_stats (trace, p, &p->tracks[0].events[0], stats, NULL), ==, 1);
  s = &g_array_index (stats, PlanarStat, 0);
  g_assert_cmpint (s->kind, ==, PLANAR_STAT_REF);
  g_assert_cmpuint (s->v.u64, ==, 2);
  text = planar_stat_format_value (s);
  g_assert_cmpstr (text, ==, "fusion.42");
}

static void
test_time_base (Fixture       *f,
                gconstpointer  data)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  XSpace *space = space_new ();
  XPlane *plane = space_add_plane (space, 0, "/host:CPU");
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *p;
  gint64 first, last;
  guint64 got_start;

  add_task_environment (space, start);
  plane_add_event_metadata (plane, 1, "e", NULL);
  /* A relative line (ns since the start) and a wall-clock one. */
  line_add_event (plane_add_line (plane, 1, "relative", 500), 1, 7, 3);
  line_add_event (plane_add_line (plane, 2, "epoch", (gint64) start + 2000), 1, 9, 1);

  path = write_space (space, f->dir, "time.xplane.pb");
  trace = load_ok (path);
  g_assert_true (planar_trace_get_profile_start_time (trace, &got_start));
  g_assert_cmpuint (got_start, ==, start);
  g_assert_false (planar_trace_is_aligned_at_earliest_event (trace));
  p = planar_trace_find_plane (trace, "/host:CPU");
  g_assert_cmpint (planar_plane_find_track (p, "relative")->events[0].start_ps, ==, 500 * 1000 + 7);
  g_assert_cmpint (planar_plane_find_track (p, "epoch")->events[0].start_ps, ==, 2000 * 1000 + 9);
  g_assert_true (planar_trace_get_span (trace, &first, &last));
  g_assert_cmpint (first, ==, 500007);
  g_assert_cmpint (last, ==, 2000010);
}

static void
test_time_without_task_environment (Fixture       *f,
                                    gconstpointer  data)
{
  const gint64 wall = G_GINT64_CONSTANT (1767225600000000000);
  XSpace *space = space_new ();
  XPlane *plane = space_add_plane (space, 0, "/host:CPU");
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *p;
  gint64 first, last;

  plane_add_event_metadata (plane, 1, "e", NULL);
  /* Wall-clock lines are rebased on the earliest, then the earliest event
   * becomes time 0. */
  line_add_event (plane_add_line (plane, 1, "a", wall + 1000), 1, 500, 10);
  line_add_event (plane_add_line (plane, 2, "b", wall), 1, 2000, 10);

  path = write_space (space, f->dir, "noenv.xplane.pb");
  trace = load_ok (path);
  g_assert_false (planar_trace_get_profile_start_time (trace, NULL));
  g_assert_true (planar_trace_is_aligned_at_earliest_event (trace));
  p = planar_trace_get_plane (trace, 0);
  g_assert_cmpint (planar_plane_find_track (p, "b")->events[0].start_ps, ==, 0);
  g_assert_cmpint (planar_plane_find_track (p, "a")->events[0].start_ps, ==, 1000 * 1000 + 500 - 2000);
  g_assert_true (planar_trace_get_span (trace, &first, &last));
  g_assert_cmpint (first, ==, 0);
  g_assert_cmpint (last, ==, 1000 * 1000 + 500 - 2000 + 10);
}

static void
test_time_overflow (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path1 = NULL;
  g_autofree char *path2 = NULL;
  g_autoptr(PlanarTrace) t1 = NULL;
  g_autoptr(PlanarTrace) t2 = NULL;
  XSpace *space;
  XPlane *plane;

  /* 9.3e15 ns past the start does not fit in int64 picoseconds. */
  space = space_new ();
  add_task_environment (space, 1000);
  plane = space_add_plane (space, 0, "/host:CPU");
  plane_add_event_metadata (plane, 1, "e", NULL);
  line_add_event (plane_add_line (plane, 1, "t", G_GINT64_CONSTANT (9300000000000000)), 1, 0, 1);
  path1 = write_space (space, f->dir, "overflow1.xplane.pb");
  t1 = planar_trace_load (path1, NULL, &error);
  g_assert_null (t1);
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW);
  g_assert_nonnull (strstr (error->message, "overflow1.xplane.pb"));
  g_clear_error (&error);

  /* An offset near the top of int64 plus a line start, and an end past it. */
  space = space_new ();
  add_task_environment (space, 1000);
  plane = space_add_plane (space, 0, "/host:CPU");
  plane_add_event_metadata (plane, 1, "e", NULL);
  line_add_event (plane_add_line (plane, 1, "t", 1), 1, G_MAXINT64 - 10, 1);
  path2 = write_space (space, f->dir, "overflow2.xplane.pb");
  t2 = planar_trace_load (path2, NULL, &error);
  g_assert_null (t2);
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW);
}

static void
test_lines_tracks_rows (Fixture       *f,
                        gconstpointer  data)
{
  XSpace *space = space_new ();
  XPlane *plane = space_add_plane (space, 0, "/host:CPU");
  XLine *line;
  XEvent *agg;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *p;
  gint64 first, last;

  add_task_environment (space, 1);
  plane_add_event_metadata (plane, 1, "e", NULL);
  /* Two XLines with id 5 form one track; ids 6 and 7 share display_id 9. */
  line = plane_add_line (plane, 5, "worker", 0);
  line_add_event (line, 1, 100, 10);
  line = plane_add_line (plane, 6, "six", 0);
  line->display_id = 9;
  line_add_event (line, 1, 0, 5);
  line = plane_add_line (plane, 5, "worker-again", 0);
  line_add_event (line, 1, 50, 10);
  agg = line_add_event (line, 1, 0, 1000000);
  agg->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
  agg->num_occurrences = 12;
  line = plane_add_line (plane, 7, "seven", 0);
  line->display_id = 9;
  line->display_name = keep_str ("Seven");
  line_add_event (line, 1, 20, 5);
  plane_add_line (plane, 8, "empty", 0);

  path = write_space (space, f->dir, "lines.xplane.pb");
  trace = load_ok (path);
  p = planar_trace_find_plane (trace, "/host:CPU");
  g_assert_cmpuint (p->n_lines, ==, 5);
  g_assert_cmpuint (p->n_tracks, ==, 4);
  g_assert_cmpuint (p->n_rows, ==, 4 - 1);
  g_assert_cmpstr (p->lines[2].name, ==, "worker-again");
  g_assert_cmpuint (p->lines[2].n_events, ==, 2);
  g_assert_cmpuint (p->lines[2].track, ==, p->lines[0].track);
  g_assert_cmpstr (p->lines[3].display_name, ==, "Seven");
  g_assert_cmpint (p->lines[3].display_id, ==, 9);
  g_assert_cmpint (p->lines[0].display_id, ==, 5);

  {
    const PlanarTrack *worker = &p->tracks[p->lines[0].track];
    const PlanarTrack *six = &p->tracks[p->lines[1].track];
    const PlanarTrack *seven = &p->tracks[p->lines[3].track];

    g_assert_cmpstr (worker->name, ==, "worker");
    g_assert_cmpuint (worker->n_events, ==, 2);
    g_assert_cmpint (worker->events[0].start_ps, ==, 50);
    g_assert_cmpint (worker->events[1].start_ps, ==, 100);
    g_assert_cmpuint (worker->n_aggregated, ==, 1);
    g_assert_cmpuint (six->row, ==, seven->row);
    g_assert_cmpuint (worker->row, !=, six->row);
    g_assert_true (planar_trace_is_track_ready (trace, (guint) (p - planar_trace_get_plane (trace, 0)),
                                                p->lines[0].track));
  }

  /* Aggregated events count, but take no part in the span. */
  g_assert_cmpuint (p->n_events, ==, 5);
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 5);
  g_assert_true (planar_trace_get_span (trace, &first, &last));
  g_assert_cmpint (first, ==, 0);
  g_assert_cmpint (last, ==, 110);
  g_assert_cmpfloat (planar_trace_get_fraction (trace), ==, 1.0);
}

static char *
write_host (Fixture    *f,
            const char *dir,
            const char *name,
            guint64     start_ns,
            gint64      line_ts,
            gint64      offset_ps)
{
  XSpace *space = space_new ();
  XPlane *plane;

  if (start_ns != 0)
    add_task_environment (space, start_ns);
  plane = space_add_plane (space, 0, "/host:CPU");
  plane_add_event_metadata (plane, 1, "e", NULL);
  line_add_event (plane_add_line (plane, 1, "main", line_ts), 1, offset_ps, 1000);
  return write_space (space, dir, name);
}

static void
test_multi_host (Fixture       *f,
                 gconstpointer  data)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autofree char *a = write_host (f, f->dir, "a.xplane.pb", start + 5000000, 10, 0);
  g_autofree char *b = write_host (f, f->dir, "b.xplane.pb", start, 10, 0);
  g_autofree char *c = write_host (f, f->dir, "c.xplane.pb", 0, 777, 5);
  const char *paths[] = { a, b, c, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(GError) error = NULL;
  gint64 first, last;

  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (planar_profile_is_loaded (profile));
  g_assert_cmpuint (planar_profile_get_n_traces (profile), ==, 3);
  g_assert_cmpuint (planar_profile_get_n_events (profile), ==, 3);

  /* a started 5 ms after b: its events move 5 ms later. */
  g_assert_cmpint (planar_trace_get_plane (planar_profile_get_trace (profile, 0), 1)->tracks[0].events[0].start_ps,
                   ==, 10000 + G_GINT64_CONSTANT (5000000000));
  g_assert_cmpint (planar_trace_get_plane (planar_profile_get_trace (profile, 1), 1)->tracks[0].events[0].start_ps,
                   ==, 10000);
  /* c has no Task Environment: its earliest event is at 0, and it says so. */
  g_assert_true (planar_trace_is_aligned_at_earliest_event (planar_profile_get_trace (profile, 2)));
  g_assert_cmpint (planar_trace_get_plane (planar_profile_get_trace (profile, 2), 0)->tracks[0].events[0].start_ps,
                   ==, 0);
  g_assert_true (planar_profile_get_span (profile, &first, &last));
  g_assert_cmpint (first, ==, 0);
  g_assert_cmpint (last, ==, 10000 + G_GINT64_CONSTANT (5000000000) + 1000);
}

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} LoadResult;

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  LoadResult *r = user_data;

  r->ok = planar_profile_load_finish (PLANAR_PROFILE (object), result, &r->error);
  r->done = TRUE;
}

static void
test_async_and_cancel (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *a = write_host (f, f->dir, "a.xplane.pb", 100, 10, 0);
  const char *paths[] = { a, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(PlanarProfile) cancelled = planar_profile_new (paths);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  LoadResult r1 = { 0 }, r2 = { 0 };

  g_assert_cmpfloat (planar_profile_get_fraction (profile), ==, 0.0);
  g_cancellable_cancel (cancellable);
  planar_profile_load_async (profile, NULL, load_done, &r1);
  planar_profile_load_async (cancelled, cancellable, load_done, &r2);
  while (!r1.done || !r2.done)
    g_main_context_iteration (NULL, TRUE);

  g_assert_no_error (r1.error);
  g_assert_true (r1.ok);
  g_assert_true (planar_profile_is_loaded (profile));
  g_assert_cmpfloat (planar_profile_get_fraction (profile), ==, 1.0);

  g_assert_false (r2.ok);
  g_assert_error (r2.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&r2.error);
  g_assert_false (planar_profile_is_loaded (cancelled));
  g_assert_cmpuint (planar_profile_get_n_traces (cancelled), ==, 0);
}

static void
test_cancelled_decode (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *a = write_host (f, f->dir, "a.xplane.pb", 100, 10, 0);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarTrace) trace = NULL;

  g_cancellable_cancel (cancellable);
  trace = planar_trace_load (a, cancellable, &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_open_errors (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->dir, "missing.xplane.pb", NULL);
  g_autofree char *empty = g_build_filename (f->dir, "empty.xplane.pb", NULL);
  g_autofree char *riegeli = g_build_filename (f->dir, "h.xplane.riegeli", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_null (planar_trace_open (missing, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_file_set_contents (empty, "", 0, NULL);
  g_assert_null (planar_trace_open (empty, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_EMPTY);
  g_assert_nonnull (strstr (error->message, "empty.xplane.pb"));
  g_clear_error (&error);

  g_file_set_contents (riegeli, "x", 1, NULL);
  g_assert_null (planar_trace_open (riegeli, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  g_assert_null (planar_trace_open (f->dir, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND);
}

static void
test_space_fields (Fixture       *f,
                   gconstpointer  data)
{
  XSpace *space = space_new ();
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  char *hostnames[] = { keep_str ("tw003"), keep_str ("other") };
  char *errors[] = { keep_str ("CUPTI needs root") };
  const char * const *got;

  space->hostnames = g_memdup2 (hostnames, sizeof hostnames);
  space->n_hostnames = G_N_ELEMENTS (hostnames);
  space->errors = g_memdup2 (errors, sizeof errors);
  space->n_errors = G_N_ELEMENTS (errors);
  space_add_plane (space, 0, "/host:CPU");
  path = write_space (space, f->dir, "tw003.xplane.pb");
  trace = load_ok (path);
  got = planar_trace_get_hostnames (trace);
  g_assert_cmpstr (got[0], ==, "tw003");
  g_assert_cmpstr (got[1], ==, "other");
  g_assert_null (got[2]);
  g_assert_cmpstr (planar_trace_get_errors (trace)[0], ==, "CUPTI needs root");
  g_assert_null (planar_trace_get_warnings (trace)[0]);
  g_assert_cmpstr (planar_trace_get_host_name (trace), ==, "tw003");
  g_assert_false (planar_trace_get_span (trace, NULL, NULL));
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 0);
}

static void
test_format_duration (void)
{
  struct { gint64 ps; const char *text; } cases[] = {
    { 0, "0 ps" },
    { 999, "999 ps" },
    { 1000, "1.000 ns" },
    { 1234567, "1.234 us" },
    { G_GINT64_CONSTANT (12345678901), "12.345 ms" },
    { G_GINT64_CONSTANT (3000000000000), "3.000 s" },
    { -1500, "-1.500 ns" },
    { G_MININT64, "-9223372.036 s" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = planar_format_duration (cases[i].ps);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/trace/depth-and-overlap", test_depth_and_overlap);
  ADD ("/trace/stats", test_stats);
  ADD ("/trace/ref-value", test_ref_value);
  ADD ("/trace/time-base", test_time_base);
  ADD ("/trace/time-without-task-environment", test_time_without_task_environment);
  ADD ("/trace/time-overflow", test_time_overflow);
  ADD ("/trace/lines-tracks-rows", test_lines_tracks_rows);
  ADD ("/trace/multi-host", test_multi_host);
  ADD ("/trace/async-and-cancel", test_async_and_cancel);
  ADD ("/trace/cancelled-decode", test_cancelled_decode);
  ADD ("/trace/open-errors", test_open_errors);
  ADD ("/trace/space-fields", test_space_fields);
#undef ADD
  g_test_add_func ("/units/format-duration", test_format_duration);

  return g_test_run ();
}
