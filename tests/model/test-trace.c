/* test-trace.c: the index built from hand-made XSpaces.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-trace-private.h"
#include "planar-test-xspace.h"

#include <glib/gstdio.h>
#include <string.h>

typedef PlanarTestFixture Fixture;

/* ------------------------------------------------------------------------ */

static void
test_depth_and_overlap (Fixture       *f,
                        gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 0, "/device:GPU:0");
  XLine *line = planar_test_plane_add_line (plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarTrack *track;
  const PlanarEvent *ev;

  planar_test_plane_add_event_metadata (plane, 1, "a", NULL);
  planar_test_add_task_environment (space, 1000);
  /* Written out of order on purpose: the index sorts by (start, longer first). */
  planar_test_line_add_event (line, 1, 200, 10);   /* E: after everything, depth 0 */
  planar_test_line_add_event (line, 1, 0, 100);    /* A: depth 0 */
  planar_test_line_add_event (line, 1, 10, 40);    /* B: inside A, depth 1 */
  /* C starts in B' and outlives both B' and B: it takes B's place, under
   * A; B' stays open above it until it ends, and D, inside both, nests in
   * B'. */
  planar_test_line_add_event (line, 1, 40, 20);    /* C: starts in B', outlives it and B: overlap, B's depth */
  planar_test_line_add_event (line, 1, 45, 5);     /* D: inside B' (and C), depth 3 */
  planar_test_line_add_event (line, 1, 10, 40);    /* B': same span as B, nests inside it */
  planar_test_line_add_event (line, 1, 100, 0);    /* instant at A's end: depth 0 */

  path = planar_test_write_space (space, f->dir, "h.xplane.pb");
  trace = planar_test_load_ok (path);
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
  g_assert_cmpuint (ev[3].depth, ==, 1);
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
  planar_test_check_depth_ends_sorted (track);
}

/* An overlap leaves the events it outlives above its place open until
 * they end: what starts inside them nests in them, and their self times
 * count those children although an overlap got its first child before
 * they got theirs. */
static void
test_overlap_leaves_open (Fixture       *f,
                          gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 0, "/host:CPU");
  XLine *line = planar_test_plane_add_line (plane, 1, "python3", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarTrack *track;
  static const struct { gint64 start, duration; guint depth; gboolean overlap; gint64 self; } want[] = {
    { 0, 100, 0, FALSE, 20 },  /* P */
    { 10, 20, 1, FALSE, 1 },   /* Q */
    { 11, 19, 2, FALSE, 2 },   /* R */
    { 12, 17, 3, FALSE, 16 },  /* S */
    { 20, 60, 1, TRUE, 46 },   /* X: outlives S, R and Q: Q's place, under P */
    { 21, 14, 2, TRUE, 14 },   /* Z: outlives S and R (open above X): R's place, under X */
    { 22, 1, 4, FALSE, 1 },    /* W: inside S, still open above Z */
  };

  planar_test_plane_add_event_metadata (plane, 1, "a", NULL);
  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    planar_test_line_add_event (line, 1, want[i].start, want[i].duration);
  path = planar_test_write_space (space, f->dir, "open.xplane.pb");
  trace = planar_test_load_ok (path);
  track = &planar_trace_find_plane (trace, "/host:CPU")->tracks[0];
  g_assert_cmpuint (track->n_events, ==, G_N_ELEMENTS (want));
  planar_test_check_track (planar_trace_find_plane (trace, "/host:CPU"), track, 0, G_MAXINT64, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_assert_cmpint (track->events[i].start_ps, ==, want[i].start);
      g_assert_cmpuint (track->events[i].depth, ==, want[i].depth);
      g_assert_cmpint (!!(track->events[i].flags & PLANAR_EVENT_OVERLAP), ==, want[i].overlap);
      g_assert_cmpint (planar_track_get_self_time (track, i), ==, want[i].self);
    }
  planar_test_check_depth_ends_sorted (track);
}

/* Ids written as text (XProf's trace viewer JSON writes every arg so):
 * the whole text a decimal number of at most 64 bits, nothing else. A
 * program_id's text past 64 bits is none (it read as 2^64 - 1 before). */
static void
test_decimal_text (void)
{
  static const struct { const char *text; gboolean negative, ok; guint64 value; } cases[] = {
    { "0", FALSE, TRUE, 0 },
    { "2653", FALSE, TRUE, 2653 },
    { "007", FALSE, TRUE, 7 },
    { "18446744073709551615", FALSE, TRUE, G_MAXUINT64 },
    { "18446744073709551616", FALSE, FALSE, 0 },
    { "99999999999999999999", FALSE, FALSE, 0 },
    { "-12", TRUE, TRUE, (guint64) -12 },
    { "-12", FALSE, FALSE, 0 },
    { "-9223372036854775808", TRUE, TRUE, (guint64) G_MININT64 },
    { "-9223372036854775809", TRUE, FALSE, 0 },
    { "", TRUE, FALSE, 0 },
    { "-", TRUE, FALSE, 0 },
    { "12 ", TRUE, FALSE, 0 },
    { " 12", TRUE, FALSE, 0 },
    { "+5", TRUE, FALSE, 0 },
    { "1e3", TRUE, FALSE, 0 },
    { "$$1", TRUE, FALSE, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint64 v = 42;
      PlanarStat stat = { .name = "program_id", .kind = PLANAR_STAT_STRING };

      g_assert_cmpint (_planar_decimal_text (cases[i].text, strlen (cases[i].text), cases[i].negative, &v), ==,
                       cases[i].ok);
      if (cases[i].ok)
        g_assert_cmpuint (v, ==, cases[i].value);
      if (cases[i].negative)
        continue;
      stat.str.data = cases[i].text;
      stat.str.len = strlen (cases[i].text);
      v = 42;
      g_assert_cmpint (planar_hlo_stat_get_program_id (&stat, &v), ==, cases[i].ok);
      if (cases[i].ok)
        g_assert_cmpuint (v, ==, cases[i].value);
    }
}

static void
test_stats (Fixture       *f,
            gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 3, "/device:GPU:3");
  XLine *line = planar_test_plane_add_line (plane, 1, "Stream #1", 0);
  XEventMetadata *md;
  XEvent *ev;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  g_autoptr(GError) error = NULL;
  const PlanarPlane *p;
  const PlanarTrack *track;
  const PlanarStat *s;

  planar_test_add_task_environment (space, 5);
  planar_test_plane_add_stat_metadata (plane, 10, "kernel_details");
  planar_test_plane_add_stat_metadata (plane, 11, "regs:32 grid:1,1,1");
  planar_test_plane_add_stat_metadata (plane, 12, "flops");
  planar_test_plane_add_stat_metadata (plane, 13, "tf_op");
  planar_test_plane_add_stat_metadata (plane, 14, "occupancy");
  md = planar_test_plane_add_event_metadata (plane, 5, "fusion.1", "fusion");
  PLANAR_TEST_APPEND (md->stats, md->n_stats, planar_test_stat_int (12, 1000));
  PLANAR_TEST_APPEND (md->stats, md->n_stats, planar_test_stat_str (13, "jit(f)/dot"));
  planar_test_plane_add_event_metadata (plane, 6, "plain", NULL);

  ev = planar_test_line_add_event (line, 5, 0, 10);
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_ref (10, 11));
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_int (12, 2000));
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_double (14, 0.5));
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_ref (10, 999));
  ev = planar_test_line_add_event (line, 42, 20, 10);   /* metadata the plane lacks */
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_int (77, -3));   /* stat metadata it lacks */

  path = planar_test_write_space (space, f->dir, "stats.xplane.pb");
  trace = planar_test_load_ok (path);
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
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 0, "/device:GPU:0");
  XLine *line = planar_test_plane_add_line (plane, 1, "Stream #1", 0);
  XEvent *ev;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  const PlanarPlane *p;
  const PlanarStat *s;
  g_autofree char *text = NULL;

  planar_test_plane_add_stat_metadata (plane, 1, "hlo_op");
  planar_test_plane_add_stat_metadata (plane, 2, "fusion.42");
  planar_test_plane_add_event_metadata (plane, 1, "k", NULL);
  ev = planar_test_line_add_event (line, 1, 0, 10);
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_ref (1, 2));

  path = planar_test_write_space (space, f->dir, "ref.xplane.pb");
  trace = planar_test_load_ok (path);
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
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 0, "/host:CPU");
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *p;
  gint64 first, last;
  guint64 got_start;

  planar_test_add_task_environment (space, start);
  planar_test_plane_add_event_metadata (plane, 1, "e", NULL);
  /* A relative line (ns since the start) and a wall-clock one. */
  planar_test_line_add_event (planar_test_plane_add_line (plane, 1, "relative", 500), 1, 7, 3);
  planar_test_line_add_event (planar_test_plane_add_line (plane, 2, "epoch", (gint64) start + 2000), 1, 9, 1);

  path = planar_test_write_space (space, f->dir, "time.xplane.pb");
  trace = planar_test_load_ok (path);
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
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 0, "/host:CPU");
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *p;
  gint64 first, last;

  planar_test_plane_add_event_metadata (plane, 1, "e", NULL);
  /* Wall-clock lines are rebased on the earliest, then the earliest event
   * becomes time 0. */
  planar_test_line_add_event (planar_test_plane_add_line (plane, 1, "a", wall + 1000), 1, 500, 10);
  planar_test_line_add_event (planar_test_plane_add_line (plane, 2, "b", wall), 1, 2000, 10);

  path = planar_test_write_space (space, f->dir, "noenv.xplane.pb");
  trace = planar_test_load_ok (path);
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
  space = planar_test_space_new ();
  planar_test_add_task_environment (space, 1000);
  plane = planar_test_space_add_plane (space, 0, "/host:CPU");
  planar_test_plane_add_event_metadata (plane, 1, "e", NULL);
  planar_test_line_add_event (planar_test_plane_add_line (plane, 1, "t", G_GINT64_CONSTANT (9300000000000000)), 1, 0, 1);
  path1 = planar_test_write_space (space, f->dir, "overflow1.xplane.pb");
  t1 = planar_trace_load (path1, NULL, &error);
  g_assert_null (t1);
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW);
  g_assert_nonnull (strstr (error->message, "overflow1.xplane.pb"));
  g_clear_error (&error);

  /* An offset near the top of int64 plus a line start, and an end past it. */
  space = planar_test_space_new ();
  planar_test_add_task_environment (space, 1000);
  plane = planar_test_space_add_plane (space, 0, "/host:CPU");
  planar_test_plane_add_event_metadata (plane, 1, "e", NULL);
  planar_test_line_add_event (planar_test_plane_add_line (plane, 1, "t", 1), 1, G_MAXINT64 - 10, 1);
  path2 = planar_test_write_space (space, f->dir, "overflow2.xplane.pb");
  t2 = planar_trace_load (path2, NULL, &error);
  g_assert_null (t2);
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW);
}

static void
test_lines_tracks_rows (Fixture       *f,
                        gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 0, "/host:CPU");
  XLine *line;
  XEvent *agg;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *p;
  gint64 first, last;

  planar_test_add_task_environment (space, 1);
  planar_test_plane_add_event_metadata (plane, 1, "e", NULL);
  /* Two XLines with id 5 form one track; ids 6 and 7 share display_id 9. */
  line = planar_test_plane_add_line (plane, 5, "worker", 0);
  planar_test_line_add_event (line, 1, 100, 10);
  line = planar_test_plane_add_line (plane, 6, "six", 0);
  line->display_id = 9;
  planar_test_line_add_event (line, 1, 0, 5);
  line = planar_test_plane_add_line (plane, 5, "worker-again", 0);
  planar_test_line_add_event (line, 1, 50, 10);
  agg = planar_test_line_add_event (line, 1, 0, 1000000);
  agg->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
  agg->num_occurrences = 12;
  line = planar_test_plane_add_line (plane, 7, "seven", 0);
  line->display_id = 9;
  line->display_name = planar_test_keep_str ("Seven");
  planar_test_line_add_event (line, 1, 20, 5);
  planar_test_plane_add_line (plane, 8, "empty", 0);

  path = planar_test_write_space (space, f->dir, "lines.xplane.pb");
  trace = planar_test_load_ok (path);
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
  XSpace *space = planar_test_space_new ();
  XPlane *plane;

  if (start_ns != 0)
    planar_test_add_task_environment (space, start_ns);
  plane = planar_test_space_add_plane (space, 0, "/host:CPU");
  planar_test_plane_add_event_metadata (plane, 1, "e", NULL);
  planar_test_line_add_event (planar_test_plane_add_line (plane, 1, "main", line_ts), 1, offset_ps, 1000);
  return planar_test_write_space (space, dir, name);
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
  /* a and b overlap: one time axis. */
  g_assert_cmpint (planar_profile_get_host_alignment (profile), ==, PLANAR_HOST_ALIGNMENT_COMMON_START);
}

/* 200 days in ns: past the ~106 days int64 picoseconds hold. */
#define FAR_APART_NS (G_GUINT64_CONSTANT (200) * 86400 * 1000000000)

static gint64
first_event_start (PlanarProfile *profile,
                   guint          host)
{
  const PlanarPlane *plane = planar_trace_find_plane (planar_profile_get_trace (profile, host), "/host:CPU");

  return plane->tracks[0].events[0].start_ps;
}

/* Hosts whose windows do not overlap (months apart, or seconds apart with
 * one-second captures) open, each from its own start; overlapping ones
 * share the earliest start. */
static void
test_host_alignment (Fixture       *f,
                     gconstpointer  data)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autofree char *a = write_host (f, f->dir, "a.xplane.pb", start, 10, 0);
  g_autofree char *far = write_host (f, f->dir, "far.xplane.pb", start + FAR_APART_NS, 20, 0);
  g_autofree char *later = write_host (f, f->dir, "later.xplane.pb", start + G_GUINT64_CONSTANT (10000000000), 30, 0);
  g_autofree char *near = write_host (f, f->dir, "near.xplane.pb", start + 500000000, 40, 0);
  const char *far_paths[] = { far, a, NULL };
  const char *later_paths[] = { a, later, NULL };
  const char *near_paths[] = { a, near, NULL };
  const char *mixed_paths[] = { a, near, far, NULL };
  const char *one_path[] = { far, NULL };
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(PlanarProfile) profile = planar_profile_new (one_path);

    g_assert_true (planar_profile_load (profile, NULL, &error));
    g_assert_cmpint (planar_profile_get_host_alignment (profile), ==, PLANAR_HOST_ALIGNMENT_COMMON_START);
  }

  {
    g_autoptr(PlanarProfile) profile = planar_profile_new (far_paths);

    g_assert_true (planar_profile_load (profile, NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpint (planar_profile_get_host_alignment (profile), ==, PLANAR_HOST_ALIGNMENT_OWN_START);
    g_assert_cmpstr (planar_host_alignment_to_string (planar_profile_get_host_alignment (profile)), ==,
                     "own_start");
    g_assert_cmpstr (planar_host_alignment_describe (PLANAR_HOST_ALIGNMENT_OWN_START), ==,
                     "hosts do not overlap in time; each is shown from its own start");
    g_assert_cmpint (first_event_start (profile, 0), ==, 20000);
    g_assert_cmpint (first_event_start (profile, 1), ==, 10000);
    g_assert_cmpuint (planar_profile_get_n_skipped_hosts (profile), ==, 0);
  }
  {
    g_autoptr(PlanarProfile) profile = planar_profile_new (later_paths);

    g_assert_true (planar_profile_load (profile, NULL, &error));
    g_assert_cmpint (planar_profile_get_host_alignment (profile), ==, PLANAR_HOST_ALIGNMENT_OWN_START);
    g_assert_cmpint (first_event_start (profile, 1), ==, 30000);
  }
  {
    g_autoptr(PlanarProfile) profile = planar_profile_new (near_paths);

    g_assert_true (planar_profile_load (profile, NULL, &error));
    g_assert_cmpint (planar_profile_get_host_alignment (profile), ==, PLANAR_HOST_ALIGNMENT_COMMON_START);
    g_assert_null (planar_host_alignment_describe (PLANAR_HOST_ALIGNMENT_COMMON_START));
    g_assert_cmpint (first_event_start (profile, 1), ==, 40000 + G_GINT64_CONSTANT (500000000000));
  }
  {
    /* Two overlap, the third overlaps neither: each from its own start. */
    g_autoptr(PlanarProfile) profile = planar_profile_new (mixed_paths);

    g_assert_true (planar_profile_load (profile, NULL, &error));
    g_assert_cmpint (planar_profile_get_host_alignment (profile), ==, PLANAR_HOST_ALIGNMENT_OWN_START);
    g_assert_cmpint (first_event_start (profile, 1), ==, 40000);
    g_assert_cmpint (first_event_start (profile, 2), ==, 20000);
  }
}

/* A host that cannot be opened is named and left out; the others open.
 * When none can, the first one's reason fails the load. */
static void
test_unreadable_host (Fixture       *f,
                      gconstpointer  data)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autofree char *a = write_host (f, f->dir, "a.xplane.pb", start, 10, 0);
  g_autofree char *bad = g_build_filename (f->dir, "bad.xplane.pb", NULL);
  g_autofree char *c = write_host (f, f->dir, "c.xplane.pb", start + 1000, 30, 0);
  g_autofree char *empty = g_build_filename (f->dir, "empty.xplane.pb", NULL);
  const char *paths[] = { a, bad, c, NULL };
  const char *none_paths[] = { bad, empty, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(PlanarProfile) none = planar_profile_new (none_paths);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) losses = NULL;
  const GError *why = NULL;

  /* A field 1 of wire type 5 (fixed32): not an XSpace. */
  g_assert_true (g_file_set_contents (bad, "\x0d\x01\x02\x03\x04 not a profile", -1, NULL));
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));

  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (planar_profile_is_loaded (profile));
  g_assert_cmpuint (planar_profile_get_n_traces (profile), ==, 2);
  g_assert_cmpstr (planar_trace_get_file_name (planar_profile_get_trace (profile, 0)), ==, "a.xplane.pb");
  g_assert_cmpstr (planar_trace_get_file_name (planar_profile_get_trace (profile, 1)), ==, "c.xplane.pb");
  g_assert_cmpint (planar_profile_get_trace_state (profile, 1), ==, PLANAR_PROFILE_TRACE_LOADED);
  g_assert_cmpuint (planar_profile_get_n_pending (profile), ==, 0);
  g_assert_cmpuint (planar_profile_get_n_skipped_hosts (profile), ==, 1);
  g_assert_cmpstr (planar_profile_get_skipped_host (profile, 0, &why), ==, bad);
  g_assert_error (why, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT);
  losses = planar_profile_dup_losses (profile);
  g_assert_cmpuint (g_strv_length (losses), ==, 1);
  g_assert_true (g_str_has_prefix (losses[0], "bad.xplane.pb could not be read"));
  g_assert_cmpint (first_event_start (profile, 1), ==, 30000 + 1000000);

  g_assert_false (planar_profile_load (none, NULL, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "bad.xplane.pb"));
  g_assert_cmpuint (planar_profile_get_n_traces (none), ==, 0);
}

/* A file cut short opens with its whole planes (and the whole lines of the
 * plane the cut runs through), identical to the file's, and says what was
 * lost; cut before anything is whole, it is refused saying so. */
static void
test_cut_file (Fixture       *f,
               gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(PlanarTrace) whole = NULL;
  gsize size;
  static const guint percents[] = { 20, 56, 80, 95 };
  gboolean saw_part = FALSE;

  planar_test_add_task_environment (space, G_GUINT64_CONSTANT (1767225600000000000));
  for (guint p = 0; p < 10; p++)
    {
      g_autofree char *name = g_strdup_printf ("/device:GPU:%u", p);
      XPlane *plane = planar_test_space_add_plane (space, p, name);

      planar_test_plane_add_event_metadata (plane, 1, "kernel", NULL);
      for (guint l = 0; l < 3; l++)
        {
          XLine *line = planar_test_plane_add_line (plane, l, "Stream", 0);

          for (guint e = 0; e < 20; e++)
            planar_test_line_add_event (line, 1, e * 1000, 500);
        }
    }
  path = planar_test_write_space (space, f->dir, "whole.xplane.pb");
  whole = planar_test_load_ok (path);
  g_assert_null (planar_trace_get_damage (whole, NULL));
  g_assert_true (g_file_get_contents (path, &contents, &size, NULL));

  for (guint i = 0; i <= G_N_ELEMENTS (percents); i++)
    {
      gsize len = i < G_N_ELEMENTS (percents) ? size * percents[i] / 100 : size - 1;
      g_autofree char *cut = g_strdup_printf ("%s/cut%u.xplane.pb", f->dir, i);
      g_autoptr(PlanarTrace) trace = NULL;
      const char *detail = NULL;
      const char *damage;
      guint n;

      g_assert_true (g_file_set_contents (cut, contents, (gssize) len, NULL));
      trace = planar_test_load_ok (cut);
      damage = planar_trace_get_damage (trace, &detail);
      g_test_message ("cut at %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT ": %s (%s)", len, size, damage, detail);
      g_assert_nonnull (damage);
      g_assert_true (g_str_has_prefix (damage, "the file ends early: "));
      g_assert_nonnull (strstr (detail, "at byte "));
      g_assert_true (planar_trace_get_profile_start_time (trace, NULL));

      /* Whole planes first, as in the file, with all their events; the
       * last may be the one cut, with fewer lines. */
      n = planar_trace_get_n_planes (trace);
      g_assert_cmpuint (n, >=, 1);
      g_assert_cmpuint (n, <=, planar_trace_get_n_planes (whole));
      for (guint p = 0; p < n; p++)
        {
          const PlanarPlane *got = planar_trace_get_plane (trace, p);
          const PlanarPlane *want = planar_trace_get_plane (whole, p);

          g_assert_cmpstr (got->name, ==, want->name);
          for (guint t = 0; t < got->n_tracks; t++)
            planar_test_check_track (got, &got->tracks[t], 0, 0, FALSE);
          if (p == n - 1 && strstr (damage, " of plane \"") != NULL)
            {
              g_assert_cmpuint (got->n_lines, <=, want->n_lines);
              g_assert_nonnull (strstr (damage, want->name));
              g_assert_cmpuint (got->n_events, ==, (guint64) got->n_lines * 20);
              saw_part = TRUE;
            }
          else if (want->n_tracks > 0)
            {
              g_assert_cmpuint (got->n_events, ==, want->n_events);
              g_assert_cmpstr (planar_plane_get_event_name (got, &got->tracks[0].events[0], FALSE), ==,
                               planar_plane_get_event_name (want, &want->tracks[0].events[0], FALSE));
            }
        }
    }
  g_assert_true (saw_part);

  /* Cut inside the first plane's name: nothing whole. */
  {
    g_autofree char *cut = g_build_filename (f->dir, "nothing.xplane.pb", NULL);
    g_autoptr(GError) error = NULL;

    g_assert_true (g_file_set_contents (cut, contents, 6, NULL));
    g_assert_null (planar_trace_load (cut, NULL, &error));
    g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT);
    g_assert_nonnull (strstr (error->message, "ends early"));
    g_assert_nonnull (strstr (error->message, "nothing.xplane.pb"));
  }
}

typedef struct
{
  /* planar_profile_load_finish() or planar_profile_load_traces_finish(). */
  gboolean (*finish) (PlanarProfile *, GAsyncResult *, GError **);
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

  r->ok = r->finish (PLANAR_PROFILE (object), result, &r->error);
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
  LoadResult r1 = { planar_profile_load_finish }, r2 = { planar_profile_load_finish };

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
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  (*(guint *) user_data)++;
}

/* A session of many hosts opens with its first host decoded; the others
 * are opened and placed in time but decoded only when asked for, and then
 * hold the same events as in an eager load. */
static void
test_lazy_hosts (Fixture       *f,
                 gconstpointer  data)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(PlanarProfile) eager = NULL;
  g_autoptr(PlanarProfile) lazy = NULL;
  g_autoptr(GError) error = NULL;
  guint indices[] = { 5, 2, 5 };
  LoadResult r = { planar_profile_load_traces_finish };
  guint n_busy = 0, n_loaded = 0;

  for (guint i = 0; i < 9; i++)
    {
      g_autofree char *name = g_strdup_printf ("host%u.xplane.pb", i);

      g_ptr_array_add (paths, write_host (f, f->dir, name, start + i * 1000000, 10 + i, 0));
    }
  g_ptr_array_add (paths, NULL);
  eager = planar_profile_new ((const char * const *) paths->pdata);
  lazy = planar_profile_new ((const char * const *) paths->pdata);
  /* Below the threshold: eager. */
  planar_profile_set_lazy_hosts (eager, 10);
  planar_profile_set_lazy_hosts (lazy, PLANAR_PROFILE_LAZY_HOSTS);
  g_assert_true (planar_profile_load (eager, NULL, &error));
  g_assert_true (planar_profile_is_loaded (eager));
  g_assert_false (planar_profile_is_lazy (eager));

  g_assert_true (planar_profile_load (lazy, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (planar_profile_is_lazy (lazy));
  g_assert_true (planar_profile_is_open (lazy));
  g_assert_false (planar_profile_is_loaded (lazy));
  g_assert_false (planar_profile_is_busy (lazy));
  g_assert_cmpuint (planar_profile_get_n_traces (lazy), ==, 9);
  g_assert_cmpuint (planar_profile_get_n_pending (lazy), ==, 8);
  g_assert_cmpint (planar_profile_get_trace_state (lazy, 0), ==, PLANAR_PROFILE_TRACE_LOADED);
  g_assert_cmpint (planar_profile_get_trace_state (lazy, 1), ==, PLANAR_PROFILE_TRACE_PENDING);
  g_assert_false (planar_trace_is_decoded (planar_profile_get_trace (lazy, 1)));
  /* The pending hosts' planes are known already. */
  g_assert_cmpuint (planar_trace_get_n_planes (planar_profile_get_trace (lazy, 8)), ==, 2);
  g_assert_cmpuint (planar_profile_get_n_events (lazy), ==, 1);
  g_assert_cmpfloat (planar_profile_get_fraction (lazy), >, 0.0);
  g_assert_cmpfloat (planar_profile_get_fraction (lazy), <, 0.5);

  /* Some hosts, asked for twice over: decoded once. */
  g_assert_true (planar_profile_load_traces (lazy, indices, G_N_ELEMENTS (indices), NULL, &error));
  g_assert_cmpint (planar_profile_get_trace_state (lazy, 5), ==, PLANAR_PROFILE_TRACE_LOADED);
  g_assert_cmpint (planar_profile_get_trace_state (lazy, 2), ==, PLANAR_PROFILE_TRACE_LOADED);
  g_assert_cmpuint (planar_profile_get_n_pending (lazy), ==, 6);
  g_assert_false (planar_profile_is_loaded (lazy));

  /* The rest, in a worker: "busy" goes up and down, and "loaded" comes. */
  g_signal_connect (lazy, "notify::busy", G_CALLBACK (count_notify), &n_busy);
  g_signal_connect (lazy, "notify::loaded", G_CALLBACK (count_notify), &n_loaded);
  planar_profile_load_traces_async (lazy, NULL, 0, NULL, load_done, &r);
  g_assert_true (planar_profile_is_busy (lazy));
  g_assert_cmpuint (n_busy, ==, 1);
  while (!r.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_cmpuint (n_busy, ==, 2);
  g_assert_cmpuint (n_loaded, ==, 1);
  g_assert_false (planar_profile_is_busy (lazy));
  g_assert_true (planar_profile_is_loaded (lazy));
  g_assert_cmpuint (planar_profile_get_n_pending (lazy), ==, 0);
  g_assert_cmpfloat (planar_profile_get_fraction (lazy), ==, 1.0);

  /* The same events at the same times as the eager load. */
  g_assert_cmpuint (planar_profile_get_n_events (lazy), ==, planar_profile_get_n_events (eager));
  for (guint i = 0; i < 9; i++)
    {
      const PlanarPlane *a = planar_trace_get_plane (planar_profile_get_trace (eager, i), 1);
      const PlanarPlane *b = planar_trace_get_plane (planar_profile_get_trace (lazy, i), 1);

      g_assert_cmpint (a->tracks[0].events[0].start_ps, ==, b->tracks[0].events[0].start_ps);
      g_assert_cmpint (b->tracks[0].events[0].start_ps, ==, (gint64) (10 + i) * 1000 + (gint64) i * 1000000000);
    }
}

/* A host that fails to decode on demand says so, and stays failed. */
static void
test_lazy_host_error (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(PlanarProfile) lazy = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  guint which = 3;

  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *name = g_strdup_printf ("host%u.xplane.pb", i);

      g_ptr_array_add (paths, write_host (f, f->dir, name, 100 + i, 10, 0));
    }
  g_ptr_array_add (paths, NULL);
  lazy = planar_profile_new ((const char * const *) paths->pdata);
  planar_profile_set_lazy_hosts (lazy, PLANAR_PROFILE_LAZY_HOSTS);
  g_assert_true (planar_profile_load (lazy, NULL, &error));
  g_cancellable_cancel (cancellable);
  g_assert_false (planar_profile_load_traces (lazy, &which, 1, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (planar_profile_get_trace_state (lazy, 3), ==, PLANAR_PROFILE_TRACE_FAILED);
  g_clear_error (&error);
  /* The others still load; the profile never counts as whole. */
  g_assert_true (planar_profile_load_traces (lazy, NULL, 0, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (planar_profile_get_trace_state (lazy, 7), ==, PLANAR_PROFILE_TRACE_LOADED);
  g_assert_cmpuint (planar_profile_get_n_pending (lazy), ==, 1);
  g_assert_false (planar_profile_is_loaded (lazy));
  g_assert_false (planar_profile_is_busy (lazy));
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
  XSpace *space = planar_test_space_new ();
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  char *hostnames[] = { planar_test_keep_str ("tw003"), planar_test_keep_str ("other") };
  char *errors[] = { planar_test_keep_str ("CUPTI needs root") };
  const char * const *got;

  space->hostnames = g_memdup2 (hostnames, sizeof hostnames);
  space->n_hostnames = G_N_ELEMENTS (hostnames);
  space->errors = g_memdup2 (errors, sizeof errors);
  space->n_errors = G_N_ELEMENTS (errors);
  planar_test_space_add_plane (space, 0, "/host:CPU");
  path = planar_test_write_space (space, f->dir, "tw003.xplane.pb");
  trace = planar_test_load_ok (path);
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

/* An XSpace whose first plane is exactly @plane_size bytes long (91 or 123:
 * the file starts "\n[" or "\n{", like JSON after a newline). */
static char *
write_space_with_first_plane (const char *dir,
                              const char *name,
                              gsize       plane_size)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 1, "/device:GPU:0");
  XLine *line;
  gsize size = 0;

  planar_test_plane_add_event_metadata (plane, 1, "kernel", NULL);
  line = planar_test_plane_add_line (plane, 1, "Stream #1", 0);
  planar_test_line_add_event (line, 1, 1000, 2000);
  /* The plane's name pads it to the size wanted. */
  for (gsize n = 1; n < 200; n++)
    {
      g_autofree char *padded = g_strnfill (n, 'g');

      plane->name = planar_test_keep_str (padded);
      size = tensorflow__profiler__xplane__get_packed_size (plane);
      if (size >= plane_size)
        break;
    }
  g_assert_cmpuint (size, ==, plane_size);
  planar_test_add_task_environment (space, 1000);
  return planar_test_write_space (space, dir, name);
}

/* The name decides the format first; a name that says nothing tries the
 * XSpace structure before JSON, so an XSpace that starts like JSON loads. */
static void
test_format_from_name (Fixture       *f,
                       gconstpointer  data)
{
  static const gsize sizes[] = { 91, 123 };
  static const char * const names[] = { "h.xplane.pb", "profile-without-suffix" };
  g_autofree char *json = g_build_filename (f->dir, "trace.dat", NULL);
  g_autoptr(PlanarTrace) json_trace = NULL;
  g_autoptr(GError) error = NULL;

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint n = 0; n < G_N_ELEMENTS (names); n++)
      {
        g_autofree char *path = write_space_with_first_plane (f->dir, names[n], sizes[s]);
        g_autofree char *bytes = NULL;
        g_autoptr(PlanarTrace) trace = NULL;
        gsize len;

        g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
        g_assert_cmpint (bytes[0], ==, '\n');
        g_assert_cmpint (bytes[1], ==, sizes[s] == 91 ? '[' : '{');
        trace = planar_trace_load (path, NULL, &error);
        g_assert_no_error (error);
        g_assert_null (planar_trace_get_import_report (trace));
        g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 1);
        g_assert_nonnull (planar_trace_find_plane (trace, "Task Environment"));
        g_unlink (path);
      }

  /* JSON under a name that says nothing is still read as JSON. */
  g_file_set_contents (json, "{\"traceEvents\":[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":2,"
                       "\"pid\":1,\"tid\":1}]}", -1, NULL);
  json_trace = planar_trace_load (json, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (planar_trace_get_import_report (json_trace));
  g_assert_cmpuint (planar_trace_get_n_events (json_trace), >=, 1);
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

  PLANAR_TEST_ADD ("/trace/depth-and-overlap", test_depth_and_overlap);
  PLANAR_TEST_ADD ("/trace/overlap-leaves-open", test_overlap_leaves_open);
  g_test_add_func ("/trace/decimal-text", test_decimal_text);
  PLANAR_TEST_ADD ("/trace/stats", test_stats);
  PLANAR_TEST_ADD ("/trace/ref-value", test_ref_value);
  PLANAR_TEST_ADD ("/trace/time-base", test_time_base);
  PLANAR_TEST_ADD ("/trace/time-without-task-environment", test_time_without_task_environment);
  PLANAR_TEST_ADD ("/trace/time-overflow", test_time_overflow);
  PLANAR_TEST_ADD ("/trace/lines-tracks-rows", test_lines_tracks_rows);
  PLANAR_TEST_ADD ("/trace/multi-host", test_multi_host);
  PLANAR_TEST_ADD ("/trace/async-and-cancel", test_async_and_cancel);
  PLANAR_TEST_ADD ("/trace/lazy-hosts", test_lazy_hosts);
  PLANAR_TEST_ADD ("/trace/lazy-host-error", test_lazy_host_error);
  PLANAR_TEST_ADD ("/trace/cancelled-decode", test_cancelled_decode);
  PLANAR_TEST_ADD ("/trace/open-errors", test_open_errors);
  PLANAR_TEST_ADD ("/trace/space-fields", test_space_fields);
  PLANAR_TEST_ADD ("/trace/cut-file", test_cut_file);
  PLANAR_TEST_ADD ("/profile/host-alignment", test_host_alignment);
  PLANAR_TEST_ADD ("/profile/unreadable-host", test_unreadable_host);
  PLANAR_TEST_ADD ("/trace/format-from-name", test_format_from_name);
  g_test_add_func ("/units/format-duration", test_format_duration);

  return g_test_run ();
}
