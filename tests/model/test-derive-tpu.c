/* test-derive-tpu.c: what the model derives on TPU planes beyond the
 * Framework lines of test-derive.c: XProf's merge rules (the gap rule of
 * planes without step groups, and the scope ranges it compares, which
 * only GPU planes carry), and the Host Offload rows
 * (planar-derive-offload.c), on hand-made XSpaces.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive.h"
#include "planar-model.h"
#include "planar-trace-private.h"
#include "planar-test-xspace.h"

#include <string.h>

#define count_derived planar_test_count_derived
#define derived_track planar_test_derived_track

typedef PlanarTestFixture Fixture;
typedef PlanarTestPlane Builder;

/* ------------------------------------------------------------------------ */
/* Building */

static XEvent *
add_event (Builder    *b,
           XLine      *line,
           const char *name,
           gint64      offset_ps,
           gint64      duration_ps)
{
  return planar_test_line_add_event (line, planar_test_named_plane_event_id (b, name), offset_ps,
                                     duration_ps);
}

static void
event_add_stat (XEvent *ev,
                XStat  *stat)
{
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, stat);
}

static void
metadata_add_stat (XEventMetadata *md,
                   XStat          *stat)
{
  PLANAR_TEST_APPEND (md->stats, md->n_stats, stat);
}

/* The metadata named @name, with @display_name, made here. */
static XEventMetadata *
add_metadata (Builder    *b,
              const char *name,
              const char *display_name)
{
  return planar_test_plane_add_event_metadata (b->plane, b->next_id++, name, display_name);
}

/* An op of XLA's host offloading: the metadata names it by its HLO text
 * (whose shapes say where the buffers live) and displays its name. */
static XEventMetadata *
add_offload_op (Builder    *b,
                const char *display_name,
                gboolean    to_host,
                const char *shape,
                gint64      raw_bytes)
{
  g_autofree char *text = g_strdup_printf ("%%%s = (f32[1024]{0}, f32[1024]{0%s}, u32[]) op(f32[1024]{0} %%p)",
                                           display_name, to_host ? ":S(5)" : "");
  XEventMetadata *md = add_metadata (b, text, display_name);

  if (shape != NULL)
    metadata_add_stat (md, planar_test_stat_str (planar_test_named_plane_stat_id (b, "shape_with_layout"),
                                                 shape));
  if (raw_bytes >= 0)
    metadata_add_stat (md, planar_test_stat_int (planar_test_named_plane_stat_id (b, "raw_bytes_accessed"),
                                                 raw_bytes));
  return md;
}

static XEvent *
add_op (XLine          *line,
        XEventMetadata *md,
        gint64          offset_ps,
        gint64          duration_ps)
{
  return planar_test_line_add_event (line, md->id, offset_ps, duration_ps);
}

/* ------------------------------------------------------------------------ */
/* Reading */

static const char *
event_name (const PlanarPlane *plane,
            const PlanarTrack *track,
            gsize              i)
{
  return planar_plane_get_event_name (plane, &track->events[i], FALSE);
}

/* Asserts event @i of @track spans [@start_ps, @end_ps] and is named @name
 * (unless NULL). */
static void
assert_event (const PlanarPlane *plane,
              const PlanarTrack *track,
              gsize              i,
              const char        *name,
              gint64             start_ps,
              gint64             end_ps)
{
  g_assert_cmpuint (i, <, track->n_events);
  if (name != NULL)
    g_assert_cmpstr (event_name (plane, track, i), ==, name);
  g_assert_cmpint (track->events[i].start_ps, ==, start_ps);
  g_assert_cmpint (track->events[i].start_ps + track->events[i].duration_ps, ==, end_ps);
}

static const PlanarStat *
find_stat (PlanarTrace       *trace,
           const PlanarPlane *plane,
           const PlanarEvent *event,
           GArray            *stats,
           const char        *name)
{
  g_autoptr(GError) error = NULL;

  g_array_set_size (stats, 0);
  planar_trace_get_event_stats (trace, plane, event, stats, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < stats->len; i++)
    if (strcmp (g_array_index (stats, PlanarStat, i).name, name) == 0)
      return &g_array_index (stats, PlanarStat, i);
  return NULL;
}

/* Every derived track is published whole: a line of its own, its events
 * flagged, in order, and traced back to a file event on the plane that
 * starts them. */
static void
check_derived_tracks (PlanarTrace       *trace,
                      const PlanarPlane *plane)
{
  for (guint t = 0; t < plane->n_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      if (!track->derived)
        continue;
      g_assert_cmpuint (track->n_events, >, 0);
      for (guint u = 0; u < plane->n_tracks; u++)
        g_assert_true (u == t || plane->tracks[u].row != track->row);
      for (gsize i = 0; i < track->n_events; i++)
        {
          const PlanarEvent *ev = &track->events[i];
          PlanarEventRef source;

          g_assert_true (ev->flags & PLANAR_EVENT_DERIVED);
          if (i > 0)
            g_assert_cmpint (ev->start_ps, >=, track->events[i - 1].start_ps);
          g_assert_true (planar_trace_get_derived_source (trace, ev, &source));
          g_assert_false (planar_trace_get_plane (trace, source.plane)->tracks[source.track].derived);
          g_assert_cmpint (planar_trace_get_plane (trace, source.plane)->tracks[source.track]
                             .events[source.index].start_ps, ==, ev->start_ps);
        }
    }
  g_assert_cmpuint (planar_trace_get_n_dropped_derived_lines (trace), ==, 0);
}

/* ------------------------------------------------------------------------ */
/* The merge rule */

/* XProf merges an op into the open event of its line only when, without a
 * step group, it starts within twice that event's duration of its end (a
 * rule GPU planes do not have). */
static void
test_merge_gap (Fixture       *f,
                gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *tpu = planar_test_named_plane_new (space, 0, "/device:TPU:0");
  XLine *modules = planar_test_plane_add_line (tpu->plane, 2, "XLA Modules", 0);
  XLine *ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  gint64 group_id = planar_test_named_plane_stat_id (tpu, "group_id");
  gint64 program_id = planar_test_named_plane_stat_id (tpu, "program_id");
  XEventMetadata *add = add_metadata (tpu, "add.1", NULL);
  XEventMetadata *mul = add_metadata (tpu, "multiply.2", NULL);
  XEventMetadata *sub = add_metadata (tpu, "subtract.3", NULL);
  /* Offset, duration, metadata, group (-1: none). */
  static const struct { gint64 at, dur; guint op; gint64 group; } events[] = {
    /* Two adds of one program 201 ps apart, more than twice the first's
     * 100 ps: two events. */
    { 0, 100, 0, -1 }, { 301, 100, 0, -1 },
    /* XProf's own case: 100 ps apart merge into [1000, 1500]; 1501 ps
     * after that, more than twice its 500 ps, a new one; exactly twice
     * its duration (600 after 300) still merges. */
    { 1000, 100, 1, -1 }, { 1200, 300, 1, -1 }, { 3001, 300, 1, -1 }, { 3901, 100, 1, -1 },
    /* With a step group, any gap merges. */
    { 5000, 100, 2, 1 }, { 9000, 100, 2, 1 },
  };
  XEventMetadata *mds[] = { add, mul, sub };
  const char *tf_ops[] = { "jit(f)/add:add", "jit(f)/mul:mul", "jit(f)/sub:sub" };
  const char *sources[] = { "f.py:3", "f.py:4", "f.py:5" };
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *fw, *scopes, *source;

  planar_test_add_task_environment (space, 1000);
  add_event (tpu, modules, "jit_f(1)", 0, 10000);
  /* tf_op and source on the op's metadata, as TPU profiles have them. */
  for (guint i = 0; i < G_N_ELEMENTS (mds); i++)
    {
      metadata_add_stat (mds[i], planar_test_stat_str (planar_test_named_plane_stat_id (tpu, "tf_op"), tf_ops[i]));
      metadata_add_stat (mds[i], planar_test_stat_str (planar_test_named_plane_stat_id (tpu, "source"),
                                                       sources[i]));
    }
  for (guint i = 0; i < G_N_ELEMENTS (events); i++)
    {
      XEvent *ev = add_op (ops, mds[events[i].op], events[i].at, events[i].dur);

      event_add_stat (ev, planar_test_stat_uint (program_id, 1));
      if (events[i].group >= 0)
        event_add_stat (ev, planar_test_stat_int (group_id, events[i].group));
    }
  planar_test_named_plane_done (tpu);

  path = planar_test_write_space (space, f->dir, "merge.xplane.pb");
  trace = planar_test_load_ok (path);
  planar_test_check_prediction (path, trace);
  plane = planar_trace_find_plane (trace, "/device:TPU:0");
  check_derived_tracks (trace, plane);
  fw = derived_track (plane, "Framework Ops");
  scopes = derived_track (plane, "Framework Name Scope");
  source = derived_track (plane, "Source code");
  g_assert_nonnull (fw);
  g_assert_nonnull (scopes);
  g_assert_nonnull (source);

  g_assert_cmpuint (fw->n_events, ==, 5);
  assert_event (plane, fw, 0, "jit(f)/add:add", 0, 100);
  assert_event (plane, fw, 1, "jit(f)/add:add", 301, 401);
  assert_event (plane, fw, 2, "jit(f)/mul:mul", 1000, 1500);
  assert_event (plane, fw, 3, "jit(f)/mul:mul", 3001, 4001);
  assert_event (plane, fw, 4, "jit(f)/sub:sub", 5000, 9100);
  /* The name scope jit(f) follows the same rule across ops. */
  g_assert_cmpuint (scopes->n_events, ==, 5);
  assert_event (plane, scopes, 0, "jit(f)", 0, 100);
  assert_event (plane, scopes, 1, "jit(f)", 301, 401);
  assert_event (plane, scopes, 2, "jit(f)", 1000, 1500);
  assert_event (plane, scopes, 3, "jit(f)", 3001, 4001);
  assert_event (plane, scopes, 4, "jit(f)", 5000, 9100);
  g_assert_cmpuint (source->n_events, ==, 5);
  assert_event (plane, source, 0, "f.py:3", 0, 100);
  assert_event (plane, source, 1, "f.py:3", 301, 401);
  assert_event (plane, source, 3, "f.py:4", 3001, 4001);
  g_assert_cmpuint (count_derived (plane), ==, 3);
}

/* A GPU kernel: non-empty kernel_details, a module, an op and a scope
 * range. */
static void
add_scoped_kernel (Builder    *b,
                   XLine      *line,
                   gint64      offset_ps,
                   const char *module,
                   guint64     program_id,
                   const char *hlo_op,
                   gint64      scope_range_id)
{
  XEvent *ev = add_event (b, line, "kernel", offset_ps, 10);
  gint64 details = planar_test_named_plane_stat_id (b, "regs:32 grid:1,1,1 block:128,1,1");

  event_add_stat (ev, planar_test_stat_ref (planar_test_named_plane_stat_id (b, "kernel_details"),
                                            (guint64) details));
  event_add_stat (ev, planar_test_stat_str (planar_test_named_plane_stat_id (b, "hlo_module"), module));
  event_add_stat (ev, planar_test_stat_uint (planar_test_named_plane_stat_id (b, "program_id"), program_id));
  event_add_stat (ev, planar_test_stat_str (planar_test_named_plane_stat_id (b, "hlo_op"), hlo_op));
  event_add_stat (ev, planar_test_stat_int (planar_test_named_plane_stat_id (b, "scope_range_id"),
                                            scope_range_id));
}

/* XProf follows a kernel's scope range up its parents: the root keeps
 * apart the runs of a module, the rest the levels of an op when there is
 * one range per level. A cycle in the tree ends the walk at the first
 * parent seen twice, the kernel's own range counting only once it has
 * been reached as a parent. */
static void
test_scope_ranges (Fixture       *f,
                   gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  XPlane *tree = planar_test_space_add_plane (space, 1, "/host:__ScopeRangeCallStack__");
  Builder *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  /* child -> parent: a cycle 10 <-> 20 that 30 leads into, and 40, 41
   * under 50. */
  static const gint64 parents[][2] = { { 10, 20 }, { 20, 10 }, { 30, 10 }, { 40, 50 }, { 41, 50 } };
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *modules, *ops;

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < G_N_ELEMENTS (parents); i++)
    {
      g_autofree char *name = g_strdup_printf ("%" G_GINT64_FORMAT, parents[i][0]);

      planar_test_plane_add_stat_metadata (tree, parents[i][0], name);
      PLANAR_TEST_APPEND (tree->stats, tree->n_stats, planar_test_stat_int (parents[i][0], parents[i][1]));
    }
  /* 10 walks 10, 20, 10 (root 10); 30 walks 30, 10, 20 (root 20): two
   * runs of m. */
  add_scoped_kernel (gpu, stream, 0, "m", 1, "x", 10);
  add_scoped_kernel (gpu, stream, 20, "m", 1, "x", 30);
  /* 40 and 41 share the root 50: one run of n, whose op y::z has one range
   * per level: y (50) goes on, z (40, then 41) does not. */
  add_scoped_kernel (gpu, stream, 100, "n", 2, "y::z", 40);
  add_scoped_kernel (gpu, stream, 120, "n", 2, "y::z", 41);
  planar_test_named_plane_done (gpu);

  path = planar_test_write_space (space, f->dir, "scopes.xplane.pb");
  trace = planar_test_load_ok (path);
  planar_test_check_prediction (path, trace);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  check_derived_tracks (trace, plane);
  modules = derived_track (plane, "XLA Modules - from #7");
  ops = derived_track (plane, "XLA Ops - from #7");
  g_assert_nonnull (modules);
  g_assert_nonnull (ops);
  g_assert_cmpuint (modules->n_events, ==, 3);
  assert_event (plane, modules, 0, NULL, 0, 10);
  assert_event (plane, modules, 1, NULL, 20, 30);
  assert_event (plane, modules, 2, NULL, 100, 130);
  g_assert_cmpuint (ops->n_events, ==, 5);
  assert_event (plane, ops, 0, "1/x", 0, 10);
  assert_event (plane, ops, 1, "1/x", 20, 30);
  assert_event (plane, ops, 2, "2/y", 100, 130);
  assert_event (plane, ops, 3, "2/z", 100, 110);
  assert_event (plane, ops, 4, "2/z", 120, 130);
}

/* ------------------------------------------------------------------------ */
/* Host Offload rows */

static void
test_host_offload (Fixture       *f,
                   gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *tpu = planar_test_named_plane_new (space, 0, "/device:TPU:0");
  XLine *ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  XLine *async_ops = planar_test_plane_add_line (tpu->plane, 4, "Async XLA Ops", 0);
  XEventMetadata *cs1 = add_offload_op (tpu, "copy-start.1", TRUE, "f32[1024]{0:S(5)}", 1);
  XEventMetadata *cd1 = add_offload_op (tpu, "copy-done.1", TRUE, "f32[1024]{0}", 4096);
  XEventMetadata *cs2 = add_offload_op (tpu, "copy-start.2", TRUE, NULL, -1);
  XEventMetadata *cd2 = add_offload_op (tpu, "copy-done.2", TRUE, NULL, -1);
  XEventMetadata *dss3 = add_offload_op (tpu, "dynamic-slice-start.3", TRUE, NULL, -1);
  XEventMetadata *dsd3 = add_offload_op (tpu, "dynamic-slice-done.3", TRUE, NULL, -1);
  XEventMetadata *cs4 = add_offload_op (tpu, "copy-start.4", TRUE, NULL, -1);
  XEventMetadata *cd4 = add_offload_op (tpu, "copy-done.4", TRUE, NULL, -1);
  XEventMetadata *duss5 = add_offload_op (tpu, "dynamic-update-slice-start.5", TRUE, NULL, -1);
  XEventMetadata *cd6 = add_offload_op (tpu, "copy-done.6", TRUE, NULL, -1);
  XEventMetadata *cs7 = add_offload_op (tpu, "copy-start.7", FALSE, NULL, -1);
  XEventMetadata *cd7 = add_offload_op (tpu, "copy-done.7", FALSE, NULL, -1);
  XEventMetadata *cs8 = add_offload_op (tpu, "copy-start.8", TRUE, NULL, -1);
  XEventMetadata *cd8 = add_offload_op (tpu, "copy-done.8", TRUE, NULL, -1);
  XEventMetadata *duss9 = add_offload_op (tpu, "dynamic-update-slice-start.9", TRUE, NULL, -1);
  XEventMetadata *dusd9 = add_offload_op (tpu, "dynamic-update-slice-done.9", TRUE, NULL, -1);
  XEventMetadata *cs10 = add_offload_op (tpu, "copy-start.10", TRUE, NULL, -1);
  XEventMetadata *cd10 = add_offload_op (tpu, "copy-done.10", TRUE, NULL, -1);
  XEventMetadata *cs11 = add_offload_op (tpu, "copy-start.11", TRUE, NULL, -1);
  XEventMetadata *cd11 = add_offload_op (tpu, "copy-done.11", TRUE, NULL, -1);
  XEventMetadata *cs12 = add_offload_op (tpu, "copy-start.12", TRUE, NULL, -1);
  XEventMetadata *cd12 = add_offload_op (tpu, "copy-done.12", TRUE, NULL, -1);
  XEventMetadata *cs13 = add_offload_op (tpu, "copy-start.13", TRUE, NULL, -1);
  XEventMetadata *cd13 = add_offload_op (tpu, "copy-done.13", TRUE, NULL, -1);
  XEventMetadata *cs = add_offload_op (tpu, "copy-start", TRUE, NULL, -1);
  XEventMetadata *cd = add_offload_op (tpu, "copy-done", TRUE, NULL, -1);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  const PlanarPlane *plane;
  const PlanarTrack *row0, *row1, *row2;
  const PlanarStat *stat;
  PlanarEventRef source;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  /* Overlapping: 1 and 2 open together, so 2 takes a second row. */
  add_op (ops, cs1, 0, 10);
  add_op (async_ops, cs2, 20, 10);
  add_op (ops, cd1, 100, 10);
  add_op (ops, cd2, 150, 10);
  /* Nested: 4 inside 3. Pair 4 (done first) takes row 0, free since 110;
   * pair 3 row 1, free since 160. */
  add_op (ops, dss3, 200, 10);
  add_op (ops, cs4, 210, 5);
  add_op (ops, cd4, 250, 5);
  add_op (ops, dsd3, 300, 10);
  /* A start never done, a done never started: nothing. */
  add_op (ops, duss5, 400, 10);
  add_op (ops, cd6, 450, 10);
  /* Not in the host's memory: nothing. */
  add_op (ops, cs7, 500, 10);
  add_op (ops, cd7, 520, 10);
  /* An asynchronous start is left out, so its done has none. */
  ev = add_op (ops, cs8, 550, 10);
  event_add_stat (ev, planar_test_stat_int (planar_test_named_plane_stat_id (tpu, "_a"), 1));
  add_op (ops, cd8, 600, 10);
  /* One instruction twice: each done closes its own start. Of the free
   * rows, XProf takes the one free the longest: row 0 (since 255), then
   * row 1 (since 310). */
  add_op (ops, duss9, 700, 10);
  add_op (ops, dusd9, 720, 10);
  add_op (ops, duss9, 800, 10);
  add_op (ops, dusd9, 820, 10);
  /* Two open starts of one instruction: the oldest is closed first. */
  add_op (ops, cs10, 900, 5);
  add_op (ops, cs10, 910, 5);
  add_op (ops, cd10, 950, 5);
  add_op (ops, cd10, 960, 5);
  /* Two rows free since the same time (2100): the last one is taken. */
  add_op (ops, cs11, 2000, 5);
  add_op (ops, cs12, 2010, 5);
  add_op (ops, cd11, 2095, 5);
  add_op (ops, cd12, 2096, 4);
  add_op (ops, cs13, 2200, 5);
  add_op (ops, cd13, 2250, 5);
  /* No number after the name: instruction 0; begun before either row was
   * free, it opens a third. */
  add_op (ops, cs, 2050, 5);
  add_op (ops, cd, 2300, 5);
  planar_test_named_plane_done (tpu);

  path = planar_test_write_space (space, f->dir, "offload.xplane.pb");
  trace = planar_test_load_ok (path);
  /* The three rows are told before the pass (the timeline keeps their
   * room): the pairing runs on the file's ops alone. */
  planar_test_check_prediction (path, trace);
  plane = planar_trace_find_plane (trace, "/device:TPU:0");
  check_derived_tracks (trace, plane);
  g_assert_cmpuint (count_derived (plane), ==, 3);
  row0 = derived_track (plane, "Host Offload Ops row 0");
  row1 = derived_track (plane, "Host Offload Ops row 1");
  row2 = derived_track (plane, "Host Offload Ops row 2");
  g_assert_nonnull (row0);
  g_assert_nonnull (row1);
  g_assert_nonnull (row2);
  g_assert_cmpint (row0->id, ==, PLANAR_LINE_ID_HOST_OFFLOAD_MIN);
  g_assert_cmpint (row1->id, ==, PLANAR_LINE_ID_HOST_OFFLOAD_MIN + 1);
  g_assert_cmpint (row2->id, ==, PLANAR_LINE_ID_HOST_OFFLOAD_MIN + 2);
  /* In XProf's order, after the file's rows. */
  g_assert_cmpuint (row0->row, <, row1->row);
  g_assert_cmpuint (row1->row, <, row2->row);
  g_assert_cmpuint (row0->row, >=, 2);

  g_assert_cmpuint (row0->n_events, ==, 5);
  assert_event (plane, row0, 0, "offload-copy.1", 0, 110);
  assert_event (plane, row0, 1, "offload-copy.4", 210, 255);
  assert_event (plane, row0, 2, "offload-dynamic-update-slice.9", 700, 730);
  assert_event (plane, row0, 3, "offload-copy.10", 900, 955);
  assert_event (plane, row0, 4, "offload-copy.11", 2000, 2100);
  g_assert_cmpuint (row1->n_events, ==, 6);
  assert_event (plane, row1, 0, "offload-copy.2", 20, 160);
  assert_event (plane, row1, 1, "offload-dynamic-slice.3", 200, 310);
  assert_event (plane, row1, 2, "offload-dynamic-update-slice.9", 800, 830);
  assert_event (plane, row1, 3, "offload-copy.10", 910, 965);
  assert_event (plane, row1, 4, "offload-copy.12", 2010, 2100);
  assert_event (plane, row1, 5, "offload-copy.13", 2200, 2255);
  g_assert_cmpuint (row2->n_events, ==, 1);
  assert_event (plane, row2, 0, "offload-copy.0", 2050, 2305);

  /* XProf's stats: asynchronous, the done's bytes, the start's shape. */
  stat = find_stat (trace, plane, &row0->events[0], stats, "_a");
  g_assert_nonnull (stat);
  g_assert_cmpint (stat->v.i64, ==, 1);
  stat = find_stat (trace, plane, &row0->events[0], stats, "raw_bytes_accessed");
  g_assert_nonnull (stat);
  g_assert_cmpint (stat->v.i64, ==, 4096);
  stat = find_stat (trace, plane, &row0->events[0], stats, "shape_with_layout");
  g_assert_nonnull (stat);
  g_assert_cmpstr (stat->str.data, ==, "f32[1024]{0:S(5)}");
  g_assert_null (find_stat (trace, plane, &row0->events[1], stats, "raw_bytes_accessed"));
  /* Built from the start. */
  g_assert_true (planar_trace_get_derived_source (trace, &row1->events[0], &source));
  g_assert_cmpstr (plane->tracks[source.track].name, ==, "Async XLA Ops");
  g_assert_cmpint (plane->tracks[source.track].events[source.index].start_ps, ==, 20);
}

/* More pairs at once than XProf has rows for: the last row takes the
 * rest. */
static void
test_host_offload_rows_max (Fixture       *f,
                            gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *tpu = planar_test_named_plane_new (space, 0, "/device:TPU:0");
  XLine *ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *last;

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < 45; i++)
    {
      g_autofree char *start = g_strdup_printf ("copy-start.%u", i);
      g_autofree char *done = g_strdup_printf ("copy-done.%u", i);

      add_op (ops, add_offload_op (tpu, start, TRUE, NULL, -1), 1000 + i, 1);
      add_op (ops, add_offload_op (tpu, done, TRUE, NULL, -1), 5000 + i, 1);
    }
  planar_test_named_plane_done (tpu);

  path = planar_test_write_space (space, f->dir, "offload-max.xplane.pb");
  trace = planar_test_load_ok (path);
  planar_test_check_prediction (path, trace);
  plane = planar_trace_find_plane (trace, "/device:TPU:0");
  check_derived_tracks (trace, plane);
  g_assert_cmpuint (count_derived (plane), ==, 41);
  g_assert_null (derived_track (plane, "Host Offload Ops row 41"));
  last = derived_track (plane, "Host Offload Ops row 40");
  g_assert_nonnull (last);
  g_assert_cmpint (last->id, ==, PLANAR_LINE_ID_HOST_OFFLOAD_MAX);
  g_assert_cmpuint (last->n_events, ==, 5);
  assert_event (plane, last, 0, "offload-copy.40", 1040, 5041);
  assert_event (plane, last, 4, "offload-copy.44", 1044, 5045);
}

/* A file whose TPU plane has its rows already gets none again. */
static void
test_host_offload_native (Fixture       *f,
                          gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *tpu = planar_test_named_plane_new (space, 0, "/device:TPU:0");
  XLine *ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  XLine *rows = planar_test_plane_add_line (tpu->plane, PLANAR_LINE_ID_HOST_OFFLOAD_MIN,
                                            "Host Offload Ops row 0", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;

  planar_test_add_task_environment (space, 1000);
  add_op (ops, add_offload_op (tpu, "copy-start.1", TRUE, NULL, -1), 0, 10);
  add_op (ops, add_offload_op (tpu, "copy-done.1", TRUE, NULL, -1), 50, 10);
  add_event (tpu, rows, "offload-copy.1", 0, 60);
  planar_test_named_plane_done (tpu);

  path = planar_test_write_space (space, f->dir, "offload-native.xplane.pb");
  trace = planar_test_load_ok (path);
  planar_test_check_prediction (path, trace);
  g_assert_cmpuint (count_derived (planar_trace_find_plane (trace, "/device:TPU:0")), ==, 0);
}

/* Ops nested in ops (a fusion's ops inside it, a while loop's body):
 * their framework ops nest as deep, and the prediction keeps as many
 * depths for the line. */
static void
test_nested_framework_ops (Fixture       *f,
                           gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *tpu = planar_test_named_plane_new (space, 0, "/device:TPU:0");
  XLine *ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  const char *tf_ops[] = { "jit(f)/while:while", "jit(f)/body/add:add", "jit(f)/body/mul:mul" };
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *fw;

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < G_N_ELEMENTS (tf_ops); i++)
    {
      g_autofree char *name = g_strdup_printf ("op.%u", i);
      XEventMetadata *md = add_metadata (tpu, name, NULL);

      metadata_add_stat (md, planar_test_stat_str (planar_test_named_plane_stat_id (tpu, "tf_op"), tf_ops[i]));
    }
  /* while [0, 1000] holds add [100, 200] and mul [300, 400]. */
  planar_test_line_add_event (ops, 1, 0, 1000);
  planar_test_line_add_event (ops, 2, 100, 100);
  planar_test_line_add_event (ops, 3, 300, 100);
  planar_test_named_plane_done (tpu);

  path = planar_test_write_space (space, f->dir, "nested.xplane.pb");
  trace = planar_test_load_ok (path);
  plane = planar_trace_find_plane (trace, "/device:TPU:0");
  fw = derived_track (plane, "Framework Ops");
  g_assert_nonnull (fw);
  g_assert_cmpuint (fw->max_depth, ==, 1);
  planar_test_check_prediction (path, trace);
}

/* A TPU plane of @n starts of host offload instruction copy.1, each its
 * own event metadata (their HLO texts differ), each closed by the one
 * done: @n pairs of metadata (start, done) that share the done. Returns
 * the steps the load took (_planar_trace_get_steps()). */
static guint64
count_offload_pairs (const char *dir,
                     guint       n)
{
  XSpace *space = planar_test_space_new ();
  Builder *tpu = planar_test_named_plane_new (space, 0, "/device:TPU:0");
  XLine *ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  XEventMetadata *done = add_offload_op (tpu, "copy-done.1", TRUE, NULL, -1);
  g_autofree char *name = g_strdup_printf ("pairs-%u.xplane.pb", n);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *row;
  guint64 steps;

  planar_test_add_task_environment (space, 1000);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *text = g_strdup_printf ("%%copy-start.1 = (f32[1024]{0}, f32[1024]{0:S(5)}, "
                                               "u32[]) copy-start(f32[1024]{0} %%p%u)", k);
      XEventMetadata *start = add_metadata (tpu, text, "copy-start.1");

      add_op (ops, start, k * 100, 10);
      add_op (ops, done, k * 100 + 50, 10);
    }
  planar_test_named_plane_done (tpu);

  path = planar_test_write_space (space, dir, name);
  trace = planar_test_load_ok (path);
  plane = planar_trace_find_plane (trace, "/device:TPU:0");
  row = derived_track (plane, "Host Offload Ops row 0");
  g_assert_nonnull (row);
  g_assert_cmpuint (row->n_events, ==, n);
  g_assert_null (derived_track (plane, "Host Offload Ops row 1"));
  steps = _planar_trace_get_steps (trace);
  g_test_message ("%u offload pairs of one done: %" G_GUINT64_FORMAT " steps, %.1f each", n, steps,
                  (double) steps / n);
  return steps;
}

/* The pass keeps one derived metadata per pair of start and done
 * metadata, in a table keyed by start << 32 | done: many starts of one
 * done must not share a bucket (g_int64_hash() keeps the done alone).
 * Four times the pairs take at most four and a half times the steps, not
 * sixteen. */
static void
test_host_offload_many_pairs (Fixture       *f,
                              gconstpointer  data)
{
  const guint n = 1000;
  guint64 small = count_offload_pairs (f->dir, n);
  guint64 large = count_offload_pairs (f->dir, 4 * n);

  planar_test_check_linear (n, small, large, "pairing the starts of one done");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  PLANAR_TEST_ADD ("/derive-tpu/merge-gap", test_merge_gap);
  PLANAR_TEST_ADD ("/derive-tpu/scope-ranges", test_scope_ranges);
  PLANAR_TEST_ADD ("/derive-tpu/host-offload", test_host_offload);
  PLANAR_TEST_ADD ("/derive-tpu/host-offload-rows-max", test_host_offload_rows_max);
  PLANAR_TEST_ADD ("/derive-tpu/host-offload-native", test_host_offload_native);
  PLANAR_TEST_ADD ("/derive-tpu/host-offload-many-pairs", test_host_offload_many_pairs);
  PLANAR_TEST_ADD ("/derive-tpu/nested-framework-ops", test_nested_framework_ops);

  return g_test_run ();
}
