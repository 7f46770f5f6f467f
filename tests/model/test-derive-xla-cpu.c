/* test-derive-xla-cpu.c: the XLA:CPU lines the model derives on the
 * host's threads (planar-derive-xla-cpu.c), on hand-made XSpaces.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive.h"
#include "planar-model.h"
#include "planar-test-xspace.h"

#include <string.h>

#define count_derived planar_test_count_derived
#define derived_track planar_test_derived_track

typedef PlanarTestFixture Fixture;
typedef PlanarTestPlane Builder;

/* An op XLA:CPU ran on @line: @module in its hlo_module stat, @tf_op (if
 * any) in tf_op, both as references as the profiler writes them. */
static XEvent *
add_op (Builder    *b,
        XLine      *line,
        const char *name,
        gint64      offset_ps,
        gint64      duration_ps,
        const char *module,
        const char *tf_op)
{
  XEvent *ev = planar_test_line_add_event (line, planar_test_named_plane_event_id (b, name), offset_ps,
                                           duration_ps);

  if (module != NULL)
    PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                        planar_test_stat_ref (planar_test_named_plane_stat_id (b, "hlo_module"),
                                              (guint64) planar_test_named_plane_stat_id (b, module)));
  if (tf_op != NULL)
    PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                        planar_test_stat_str (planar_test_named_plane_stat_id (b, "tf_op"), tf_op));
  return ev;
}

static const PlanarLine *
line_of (const PlanarPlane *plane,
         const PlanarTrack *track)
{
  for (guint l = 0; l < plane->n_lines; l++)
    if (&plane->tracks[plane->lines[l].track] == track)
      return &plane->lines[l];
  g_assert_not_reached ();
  return NULL;
}

static void
assert_event (const PlanarPlane *plane,
              const PlanarTrack *track,
              gsize              i,
              const char        *name,
              gint64             start_ps,
              gint64             end_ps)
{
  g_assert_cmpuint (i, <, track->n_events);
  g_assert_cmpstr (planar_plane_get_event_name (plane, &track->events[i], FALSE), ==, name);
  g_assert_cmpint (track->events[i].start_ps, ==, start_ps);
  g_assert_cmpint (track->events[i].start_ps + track->events[i].duration_ps, ==, end_ps);
}

static void
test_lines (Fixture       *f,
            gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  XLine *main_line = planar_test_plane_add_line (host->plane, 11, "main", 0);
  XLine *idle = planar_test_plane_add_line (host->plane, 12, "idle", 5);
  XLine *worker = planar_test_plane_add_line (host->plane, 13, "worker", 7);
  XLine *launcher = planar_test_plane_add_line (host->plane, 14, "launcher", 0);
  XEventMetadata *md;
  XEvent *ev;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *modules, *ops, *scopes, *main_track = NULL;
  PlanarEventRef source;

  planar_test_add_task_environment (space, 1000);
  /* XProf's case: two modules one after the other, two events. */
  add_op (host, main_line, "multiply.1", 0, 100, "Module1", "jit(f)/mul:mul");
  add_op (host, main_line, "add.2", 200, 400, "Module2", "jit(f)/add:add");
  /* Right after: the same module and op go on. */
  add_op (host, main_line, "add.2", 600, 100, "Module2", "jit(f)/add:add");
  /* Too far after (more than twice the 500 ps so far): a new event. */
  add_op (host, main_line, "add.2", 1701, 100, "Module2", NULL);
  /* The hlo_module of an event's metadata does not count (XProf reads the
   * event's own stats). */
  planar_test_line_add_event (main_line, planar_test_named_plane_event_id (host, "tagged"), 3000, 10);
  md = host->plane->event_metadata[host->plane->n_event_metadata - 1]->value;
  PLANAR_TEST_APPEND (md->stats, md->n_stats,
                      planar_test_stat_str (planar_test_named_plane_stat_id (host, "hlo_module"), "Module3"));
  /* A thread without XLA ops gets no lines. */
  planar_test_line_add_event (idle, planar_test_named_plane_event_id (host, "sleep"), 0, 10);
  /* An op name that is not TensorFlow's or JAX's has no name scope. */
  add_op (host, worker, "dot.3", 50, 20, "Module1", "Dot");
  /* A GPU runtime call carries its kernel's module, but is no XLA:CPU op. */
  ev = add_op (host, launcher, "cuLaunchKernel", 0, 10, "Module1", "jit(f)/mul:mul");
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                      planar_test_stat_uint (planar_test_named_plane_stat_id (host, "correlation_id"), 7));
  planar_test_named_plane_done (host);

  path = planar_test_write_space (space, f->dir, "xla-cpu.xplane.pb");
  trace = planar_test_load_ok (path);
  planar_test_check_prediction (path, trace);
  plane = planar_trace_find_plane (trace, "/host:CPU");
  g_assert_cmpuint (planar_trace_get_n_dropped_derived_lines (trace), ==, 0);
  g_assert_cmpuint (count_derived (plane), ==, 5);
  for (guint t = 0; t < plane->n_tracks; t++)
    if (strcmp (plane->tracks[t].name, "main") == 0)
      main_track = &plane->tracks[t];
  g_assert_nonnull (main_track);

  modules = derived_track (plane, "main-XLA Modules");
  ops = derived_track (plane, "main-Framework Ops");
  scopes = derived_track (plane, "main-Framework Name Scope");
  g_assert_nonnull (modules);
  g_assert_nonnull (ops);
  g_assert_nonnull (scopes);
  /* XProf's ids: three per line of the plane, in file order. */
  g_assert_cmpint (ops->id, ==, PLANAR_LINE_ID_HOST_XLA_MIN + PLANAR_HOST_XLA_OFFSET_FRAMEWORK_OPS);
  g_assert_cmpint (scopes->id, ==, PLANAR_LINE_ID_HOST_XLA_MIN + PLANAR_HOST_XLA_OFFSET_FRAMEWORK_NAME_SCOPE);
  g_assert_cmpint (modules->id, ==, PLANAR_LINE_ID_HOST_XLA_MIN + PLANAR_HOST_XLA_OFFSET_XLA_MODULES);
  /* Under their thread, in that order. */
  g_assert_true (&plane->tracks[ops->source_track] == main_track);
  g_assert_true (&plane->tracks[modules->source_track] == main_track);
  g_assert_cmpuint (ops->row, <, scopes->row);
  g_assert_cmpuint (scopes->row, <, modules->row);

  g_assert_cmpuint (modules->n_events, ==, 3);
  assert_event (plane, modules, 0, "Module1", 0, 100);
  assert_event (plane, modules, 1, "Module2", 200, 700);
  assert_event (plane, modules, 2, "Module2", 1701, 1801);
  g_assert_true (planar_trace_get_derived_source (trace, &modules->events[1], &source));
  g_assert_true (&plane->tracks[source.track] == main_track);
  g_assert_cmpint (main_track->events[source.index].start_ps, ==, 200);
  g_assert_cmpuint (ops->n_events, ==, 2);
  assert_event (plane, ops, 0, "jit(f)/mul:mul", 0, 100);
  assert_event (plane, ops, 1, "jit(f)/add:add", 200, 700);
  g_assert_cmpstr (planar_plane_get_event_name (plane, &ops->events[1], TRUE), ==, "add");
  g_assert_cmpuint (scopes->n_events, ==, 1);
  assert_event (plane, scopes, 0, "jit(f)", 0, 700);

  g_assert_null (derived_track (plane, "idle-XLA Modules"));
  g_assert_null (derived_track (plane, "launcher-XLA Modules"));
  g_assert_null (derived_track (plane, "worker-Framework Name Scope"));
  modules = derived_track (plane, "worker-XLA Modules");
  ops = derived_track (plane, "worker-Framework Ops");
  g_assert_nonnull (modules);
  g_assert_nonnull (ops);
  /* The third line of the plane, which starts 7 ns in. */
  g_assert_cmpint (modules->id, ==, PLANAR_LINE_ID_HOST_XLA_MIN + 2 * PLANAR_HOST_XLA_LINES_PER_THREAD +
                                    PLANAR_HOST_XLA_OFFSET_XLA_MODULES);
  g_assert_cmpint (line_of (plane, modules)->timestamp_ns, ==, 7);
  assert_event (plane, modules, 0, "Module1", 7050, 7070);
  assert_event (plane, ops, 0, "Dot", 7050, 7070);
}

/* A host plane that has the lines already gets none again; other host
 * planes get none. */
static void
test_native (Fixture       *f,
             gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  Builder *other = planar_test_named_plane_new (space, 1, "/host:metadata");
  XLine *main_line = planar_test_plane_add_line (host->plane, 11, "main", 0);
  XLine *native = planar_test_plane_add_line (host->plane, PLANAR_LINE_ID_HOST_XLA_MIN + 2, "main-XLA Modules", 0);
  XLine *other_line = planar_test_plane_add_line (other->plane, 1, "main", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;

  planar_test_add_task_environment (space, 1000);
  add_op (host, main_line, "add.1", 0, 100, "Module1", "jit(f)/add:add");
  planar_test_line_add_event (native, planar_test_named_plane_event_id (host, "Module1"), 0, 100);
  planar_test_named_plane_done (host);
  add_op (other, other_line, "add.1", 0, 100, "Module1", "jit(f)/add:add");
  planar_test_named_plane_done (other);

  path = planar_test_write_space (space, f->dir, "xla-cpu-native.xplane.pb");
  trace = planar_test_load_ok (path);
  planar_test_check_prediction (path, trace);
  g_assert_cmpuint (count_derived (planar_trace_find_plane (trace, "/host:CPU")), ==, 0);
  g_assert_cmpuint (count_derived (planar_trace_find_plane (trace, "/host:metadata")), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  PLANAR_TEST_ADD ("/derive-xla-cpu/lines", test_lines);
  PLANAR_TEST_ADD ("/derive-xla-cpu/native", test_native);

  return g_test_run ();
}
