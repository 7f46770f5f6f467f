/* test-flows.c: the flow index (model/derive/planar-flows.c and the flow
 * ends model/derive/planar-derive-facts.c collects), on hand-made XSpaces
 * for each pairing rule and on planar-gen's output against a brute-force
 * count from protobuf-c. (test-derive.c covers queries by event and time,
 * sparse launch ids and the producer/consumer stats.)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-flows-private.h"
#include "planar-test-xspace.h"

#include <string.h>

typedef PlanarTestFixture Fixture;

/* XProf's XFlow directions, as a file's `flow` stat holds them. */
enum
{
  FLOW_IN = 1,
  FLOW_OUT = 2,
  FLOW_INOUT = 3,
};

typedef PlanarTestPlane Plane;

static XEvent *
add_event (Plane      *b,
           XLine      *line,
           const char *name,
           gint64      offset_ps)
{
  return planar_test_line_add_event (line, planar_test_named_plane_event_id (b, name), offset_ps, 10);
}

static void
add_uint (Plane      *b,
          XEvent     *ev,
          const char *name,
          guint64     value)
{
  XStat *stat = planar_test_stat_uint (planar_test_named_plane_stat_id (b, name), value);

  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, stat);
}

/* An XFlow stat: direction in the low 2 bits, the id, the category on top. */
static void
add_flow (Plane   *b,
          XEvent  *ev,
          guint64  id,
          guint    direction,
          guint    category)
{
  add_uint (b, ev, "flow", direction | id << 2 | (guint64) category << 58);
}

static PlanarTrace *
load (Fixture *f,
      XSpace  *space,
      Plane  **planes,
      guint    n_planes)
{
  g_autofree char *path = NULL;

  for (guint i = 0; i < n_planes; i++)
    planar_test_named_plane_done (planes[i]);
  planar_test_add_task_environment (space, 1000);
  path = planar_test_write_space (space, f->dir, "flows.xplane.pb");
  return planar_test_load_ok (path);
}

static guint
plane_index (PlanarTrace *trace,
             const char  *name)
{
  const PlanarPlane *plane = planar_trace_find_plane (trace, name);

  g_assert_nonnull (plane);
  return (guint) (plane - planar_trace_get_plane (trace, 0));
}

static guint
track_index (PlanarTrace *trace,
             guint        plane,
             const char  *name)
{
  const PlanarPlane *p = planar_trace_get_plane (trace, plane);
  const PlanarTrack *track = planar_plane_find_track (p, name);

  g_assert_nonnull (track);
  return (guint) (track - p->tracks);
}

/* The flows of @flows in index order, as "from>to" with each end written
 * "track.index" (or "-" for none), comma-separated. */
static char *
describe (const PlanarFlowIndex *flows)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < planar_flow_index_get_n_flows (flows); i++)
    {
      PlanarFlow fl;

      planar_flow_index_get_flow (flows, i, &fl);
      if (s->len > 0)
        g_string_append_c (s, ',');
      if (planar_event_ref_is_none (&fl.from))
        g_string_append (s, "-");
      else
        g_string_append_printf (s, "%u.%u", fl.from.track, fl.from.index);
      g_string_append_c (s, '>');
      if (planar_event_ref_is_none (&fl.to))
        g_string_append (s, "-");
      else
        g_string_append_printf (s, "%u.%u", fl.to.track, fl.to.index);
    }
  return g_string_free (s, FALSE);
}

/* The flows leaving or entering one event. */
static gsize
n_flows_of (const PlanarFlowIndex *flows,
            guint                  plane,
            guint                  track,
            guint32                index)
{
  g_autoptr(GArray) out = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  PlanarEventRef ref = { plane, 0, track, index };

  return planar_flow_index_query_event (flows, &ref, out);
}

/* out -> in/out -> in with one id: two arrows, the middle event at both. */
static void
test_chain (Fixture       *f,
            gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  XLine *line = planar_test_plane_add_line (host->plane, 1, "main", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarFlowIndex *flows;
  g_autofree char *shape = NULL;
  guint hp;

  add_flow (host, add_event (host, line, "Send", 0), 77, FLOW_OUT, PLANAR_FLOW_CATEGORY_PJRT);
  add_flow (host, add_event (host, line, "Relay", 100), 77, FLOW_INOUT,
            PLANAR_FLOW_CATEGORY_PJRT);
  add_flow (host, add_event (host, line, "Receive", 200), 77, FLOW_IN,
            PLANAR_FLOW_CATEGORY_PJRT);
  trace = load (f, space, &host, 1);
  flows = planar_trace_get_flows (trace);
  hp = plane_index (trace, "/host:CPU");

  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_PJRT), ==, 2);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 0);
  shape = describe (flows);
  g_assert_nonnull (strstr (shape, "0.0>0.1"));
  g_assert_nonnull (strstr (shape, "0.1>0.2"));
  g_assert_cmpuint (n_flows_of (flows, hp, 0, 1), ==, 2);
  for (gsize i = 0; i < 2; i++)
    {
      PlanarFlow fl;

      planar_flow_index_get_flow (flows, i, &fl);
      g_assert_cmpuint (fl.id, ==, 77);
      g_assert_cmpuint (fl.category, ==, PLANAR_FLOW_CATEGORY_PJRT);
    }
}

/* An end flowing in takes the latest end flowing out at or before it; the
 * out end before that one feeds nothing. When every out end is later (the
 * clocks of two threads disagree), the earliest. */
static void
test_pairing_by_time (Fixture       *f,
                      gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  XLine *a = planar_test_plane_add_line (host->plane, 1, "a", 0);
  XLine *b = planar_test_plane_add_line (host->plane, 2, "b", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarFlowIndex *flows;
  g_autofree char *shape = NULL;

  /* Id 5: out at 0 and 50 on a, in at 100 on b. */
  add_flow (host, add_event (host, a, "Out", 0), 5, FLOW_OUT, PLANAR_FLOW_CATEGORY_GENERIC);
  add_flow (host, add_event (host, a, "Out", 50), 5, FLOW_OUT, PLANAR_FLOW_CATEGORY_GENERIC);
  add_flow (host, add_event (host, b, "In", 100), 5, FLOW_IN, PLANAR_FLOW_CATEGORY_GENERIC);
  /* Id 6: in at 200 on b, out only at 300 and 400 on a. */
  add_flow (host, add_event (host, b, "In", 200), 6, FLOW_IN, PLANAR_FLOW_CATEGORY_GENERIC);
  add_flow (host, add_event (host, a, "Out", 300), 6, FLOW_OUT, PLANAR_FLOW_CATEGORY_GENERIC);
  add_flow (host, add_event (host, a, "Out", 400), 6, FLOW_OUT, PLANAR_FLOW_CATEGORY_GENERIC);
  trace = load (f, space, &host, 1);
  flows = planar_trace_get_flows (trace);

  /* Complete: 0.1 -> 1.0 (id 5), 0.2 -> 1.1 (id 6); dangling: 0.0, 0.3. */
  g_assert_cmpuint (planar_flow_index_get_n_flows (flows), ==, 4);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 2);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 2);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GENERIC), ==, 2);
  shape = describe (flows);
  g_assert_nonnull (strstr (shape, "0.1>1.0"));
  g_assert_nonnull (strstr (shape, "0.2>1.1"));
  g_assert_nonnull (strstr (shape, "0.0>-"));
  g_assert_nonnull (strstr (shape, "0.3>-"));
}

/* One launch, several kernels (dense correlation ids, the table's path):
 * one arrow per kernel; the host end lists them all. */
static void
test_launch_fan_out (Fixture       *f,
                     gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  Plane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  Plane *planes[] = { host, gpu };
  XLine *thread = planar_test_plane_add_line (host->plane, 1, "python", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) out = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  const PlanarFlowIndex *flows;
  PlanarEventRef launch;
  guint hp, gp;

  for (guint64 cid = 1; cid <= 40; cid++)
    add_uint (host, add_event (host, thread, "cudaLaunchKernel", (gint64) cid * 10), "correlation_id", cid);
  /* Launch 1 starts three kernels; 2..40 one each, launch 40 none. */
  for (guint i = 0; i < 3; i++)
    add_uint (gpu, add_event (gpu, stream, "kernel", 1000 + i * 100), "correlation_id", 1);
  for (guint64 cid = 2; cid < 40; cid++)
    add_uint (gpu, add_event (gpu, stream, "kernel", 2000 + (gint64) cid * 100), "correlation_id", cid);
  trace = load (f, space, planes, G_N_ELEMENTS (planes));
  flows = planar_trace_get_flows (trace);
  hp = plane_index (trace, "/host:CPU");
  gp = plane_index (trace, "/device:GPU:0");

  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==, 3 + 38);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==, 1);
  launch = (PlanarEventRef) { hp, 0, 0, 0 };
  g_assert_cmpuint (planar_flow_index_query_event (flows, &launch, out), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      const PlanarFlow *fl = &g_array_index (out, PlanarFlow, i);

      g_assert_cmpuint (fl->to.plane, ==, gp);
      g_assert_cmpuint (fl->to.index, ==, i);
      g_assert_cmpint (fl->to_ps, ==, 1000 + i * 100);
      g_assert_cmpint (fl->from_ps, ==, 10);
    }
  /* Every kernel has its one flow in. */
  for (guint32 i = 0; i < 3 + 38; i++)
    g_assert_cmpuint (n_flows_of (flows, gp, 0, i), ==, 1);
  /* The last launch: one dangling flow. */
  g_array_set_size (out, 0);
  launch.index = 39;
  g_assert_cmpuint (planar_flow_index_query_event (flows, &launch, out), ==, 1);
  g_assert_true (planar_event_ref_is_none (&g_array_index (out, PlanarFlow, 0).to));
}

/* Launch flows beside other flows into the same kernels, an id on two
 * host ends (paired as other ends) and launches that start nothing: each
 * event finds its own flows, whichever way they were paired (the orders
 * by end merge the launch flows' with the others'). */
static void
test_launch_and_other_ends (Fixture       *f,
                            gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  Plane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  Plane *planes[] = { host, gpu };
  XLine *thread = planar_test_plane_add_line (host->plane, 1, "python", 0);
  XLine *other = planar_test_plane_add_line (host->plane, 2, "worker", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  XLine *copies = planar_test_plane_add_line (gpu->plane, 8, "Stream #8(Memcpy)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) out = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  const PlanarFlowIndex *flows;
  guint hp, gp, t_thread, t_other, t_stream, t_copies;
  PlanarEventRef ref;

  /* Launches 1..20 on the python thread; 21..24 on the worker; launch 5's
   * id again on the worker (both its host ends are then other ends). */
  for (guint64 cid = 1; cid <= 20; cid++)
    add_uint (host, add_event (host, thread, "cudaLaunchKernel", (gint64) cid * 10), "correlation_id", cid);
  for (guint64 cid = 21; cid <= 24; cid++)
    add_uint (host, add_event (host, other, "cudaMemcpyAsync", (gint64) cid * 10), "correlation_id", cid);
  add_uint (host, add_event (host, other, "cudaLaunchKernel", 300), "correlation_id", 5);
  /* A PjRt flow out of the worker's first event into kernels 3 and 9. */
  add_flow (host, add_event (host, other, "Send", 5), 600, FLOW_OUT, PLANAR_FLOW_CATEGORY_PJRT);
  /* Kernels for launches 1..18 (19 and 20 start none); copies for 21..24,
   * in time order across the two streams. */
  for (guint64 cid = 1; cid <= 18; cid++)
    {
      XEvent *ev = add_event (gpu, stream, "kernel", 1000 + (gint64) cid * 100);

      add_uint (gpu, ev, "correlation_id", cid);
      if (cid == 3 || cid == 9)
        add_flow (gpu, ev, 600, FLOW_IN, PLANAR_FLOW_CATEGORY_PJRT);
    }
  for (guint64 cid = 21; cid <= 24; cid++)
    add_uint (gpu, add_event (gpu, copies, "copy", 1050 + (gint64) (cid - 21) * 400), "correlation_id", cid);
  trace = load (f, space, planes, G_N_ELEMENTS (planes));
  flows = planar_trace_get_flows (trace);
  hp = plane_index (trace, "/host:CPU");
  gp = plane_index (trace, "/device:GPU:0");
  t_thread = track_index (trace, hp, "python");
  t_other = track_index (trace, hp, "worker");
  t_stream = track_index (trace, gp, "Stream #7(Compute)");
  t_copies = track_index (trace, gp, "Stream #8(Memcpy)");

  /* Launches 1..18 but 5 and 21..24 complete; 5's kernel pairs with the
   * worker's launch 5 (the latest out end at or before it); the python
   * thread's launch 5 feeds nothing; 19, 20 dangle; the PjRt flow makes
   * one arrow into kernel 3 and one into kernel 9. */
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==, 18 + 4);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==, 3);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_PJRT), ==, 2);
  for (guint32 i = 0; i < 18; i++)
    {
      guint cid = i + 1;

      g_assert_cmpuint (n_flows_of (flows, gp, t_stream, i), ==, cid == 3 || cid == 9 ? 2 : 1);
    }
  for (guint32 i = 0; i < 4; i++)
    g_assert_cmpuint (n_flows_of (flows, gp, t_copies, i), ==, 1);
  for (guint32 i = 0; i < 20; i++)
    g_assert_cmpuint (n_flows_of (flows, hp, t_thread, i), ==, 1);
  /* The worker: its copies' launches, its launch 5 and the PjRt send. */
  for (guint32 i = 0; i < 6; i++)
    g_assert_cmpuint (n_flows_of (flows, hp, t_other, i), ==, i == 0 ? 2 : 1);

  /* Kernel 3's two flows in: one from launch 3, one from the send. */
  ref = (PlanarEventRef) { gp, 0, t_stream, 2 };
  g_assert_cmpuint (planar_flow_index_query_event (flows, &ref, out), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      const PlanarFlow *fl = &g_array_index (out, PlanarFlow, i);

      g_assert_cmpuint (fl->to.index, ==, 2);
      g_assert_cmpuint (fl->from.plane, ==, hp);
      if (fl->category == PLANAR_FLOW_CATEGORY_PJRT)
        g_assert_cmpuint (fl->from.track, ==, t_other);
      else
        {
          g_assert_cmpuint (fl->category, ==, PLANAR_FLOW_CATEGORY_GPU_LAUNCH);
          g_assert_cmpuint (fl->from.track, ==, t_thread);
          g_assert_cmpuint (fl->from.index, ==, 2);
        }
    }
  /* Kernel 5's one flow, from the worker's launch. */
  g_array_set_size (out, 0);
  ref.index = 4;
  g_assert_cmpuint (planar_flow_index_query_event (flows, &ref, out), ==, 1);
  g_assert_cmpuint (g_array_index (out, PlanarFlow, 0).from.track, ==, t_other);
}

/* A file XProf already processed carries its launch flows as XFlow stats
 * besides the correlation ids: they are not made twice. */
static void
test_explicit_launch_flow (Fixture       *f,
                           gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  Plane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  Plane *planes[] = { host, gpu };
  XLine *thread = planar_test_plane_add_line (host->plane, 1, "python", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarFlowIndex *flows;
  XEvent *ev;

  ev = add_event (host, thread, "cudaLaunchKernel", 0);
  add_uint (host, ev, "correlation_id", 3);
  add_flow (host, ev, 42, FLOW_OUT, PLANAR_FLOW_CATEGORY_GPU_LAUNCH);
  ev = add_event (gpu, stream, "kernel", 100);
  add_uint (gpu, ev, "correlation_id", 3);
  add_flow (gpu, ev, 42, FLOW_IN, PLANAR_FLOW_CATEGORY_GPU_LAUNCH);
  trace = load (f, space, planes, G_N_ELEMENTS (planes));
  flows = planar_trace_get_flows (trace);

  g_assert_cmpuint (planar_flow_index_get_n_flows (flows), ==, 1);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==, 1);
  {
    PlanarFlow fl;

    planar_flow_index_get_flow (flows, 0, &fl);
    g_assert_cmpuint (fl.id, ==, 42);
  }
}

/* Categories past the known ones are generic; so are producer types. */
static void
test_unknown_category (Fixture       *f,
                       gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  XLine *line = planar_test_plane_add_line (host->plane, 1, "main", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarFlowIndex *flows;
  XEvent *ev;

  add_flow (host, add_event (host, line, "Out", 0), 9, FLOW_OUT, 63);
  add_flow (host, add_event (host, line, "In", 100), 9, FLOW_IN, 63);
  ev = add_event (host, line, "Produce", 200);
  add_uint (host, ev, "_pt", 99);
  add_uint (host, ev, "_p", 1);
  ev = add_event (host, line, "Consume", 300);
  add_uint (host, ev, "_ct", 99);
  add_uint (host, ev, "_c", 1);
  /* Direction 0: no end at all. */
  add_flow (host, add_event (host, line, "Nothing", 400), 10, 0, PLANAR_FLOW_CATEGORY_PJRT);
  trace = load (f, space, &host, 1);
  flows = planar_trace_get_flows (trace);

  g_assert_cmpuint (planar_flow_index_get_n_flows (flows), ==, 2);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GENERIC), ==, 2);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, 63), ==, 0);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_PJRT), ==, 0);
}

/* Launches are read on /host:CPU and GPU planes only, and never from lines
 * with XProf's derived ids (which carry copies of launches). */
static void
test_launch_planes (Fixture       *f,
                    gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  Plane *other = planar_test_named_plane_new (space, 0, "/host:python");
  Plane *tpu = planar_test_named_plane_new (space, 0, "/device:TPU:0");
  Plane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  Plane *planes[] = { host, other, tpu, gpu };
  XLine *thread = planar_test_plane_add_line (host->plane, 1, "python", 0);
  XLine *copies = planar_test_plane_add_line (host->plane, PLANAR_LINE_ID_LAUNCH_STATS, "Launch Stats", 0);
  XLine *other_line = planar_test_plane_add_line (other->plane, 1, "thread", 0);
  XLine *tpu_line = planar_test_plane_add_line (tpu->plane, 1, "XLA Ops", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarFlowIndex *flows;
  guint hp, gp;

  /* Only the launch on the host's thread and the kernel pair up; the other
   * planes' and the derived line's correlation ids are not launches. */
  add_uint (host, add_event (host, thread, "cudaLaunchKernel", 0), "correlation_id", 1);
  add_uint (host, add_event (host, copies, "Launch Stats for 1", 0), "correlation_id", 2);
  add_uint (other, add_event (other, other_line, "cudaLaunchKernel", 0), "correlation_id", 3);
  add_uint (tpu, add_event (tpu, tpu_line, "fusion", 0), "correlation_id", 4);
  add_uint (gpu, add_event (gpu, stream, "kernel", 100), "correlation_id", 1);
  trace = load (f, space, planes, G_N_ELEMENTS (planes));
  flows = planar_trace_get_flows (trace);
  hp = plane_index (trace, "/host:CPU");
  gp = plane_index (trace, "/device:GPU:0");

  g_assert_cmpuint (planar_flow_index_get_n_flows (flows), ==, 1);
  {
    PlanarFlow fl;

    planar_flow_index_get_flow (flows, 0, &fl);
    g_assert_cmpuint (fl.from.plane, ==, hp);
    g_assert_cmpuint (fl.to.plane, ==, gp);
  }
}

/* A trace without any flow end has an empty index, not none. */
static void
test_none (Fixture       *f,
           gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  XLine *line = planar_test_plane_add_line (host->plane, 1, "main", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) out = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  const PlanarFlowIndex *flows;

  add_event (host, line, "Work", 0);
  trace = load (f, space, &host, 1);
  flows = planar_trace_get_flows (trace);
  g_assert_nonnull (flows);
  g_assert_cmpuint (planar_flow_index_get_n_flows (flows), ==, 0);
  g_assert_cmpuint (planar_flow_index_query_range (flows, PLANAR_FLOW_CATEGORY_ALL, G_MININT64, G_MAXINT64,
                                                   out), ==, 0);
}

/* ------------------------------------------------------------------------ */
/* planar-gen's profiles against protobuf-c */

static char *
generate (Fixture    *f,
          const char *events,
          const char *seed)
{
  char *path = g_build_filename (f->dir, "gen.xplane.pb", NULL);
  const char *argv[] = { g_getenv ("PLANAR_GEN"), "--events", events, "--seed", seed, "-o", path, NULL };
  g_autoptr(GError) error = NULL;
  gint status = 0;

  g_assert_nonnull (argv[0]);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status,
                &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return path;
}

/* Adds the correlation ids of the events of @plane's file lines to @ids
 * (id -> count). Returns how many events carry one. */
static guint64
collect_correlation_ids (const XPlane *plane,
                         GHashTable   *ids)
{
  guint64 n = 0;

  for (gsize l = 0; l < plane->n_lines; l++)
    {
      const XLine *line = plane->lines[l];

      if (planar_line_id_is_derived (line->id))
        continue;
      for (gsize e = 0; e < line->n_events; e++)
        for (gsize s = 0; s < line->events[e]->n_stats; s++)
          {
            const XStat *stat = line->events[e]->stats[s];
            guint64 cid;

            if (g_strcmp0 (planar_test_stat_name (plane, stat->metadata_id), "correlation_id") != 0)
              continue;
            cid = stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE
              ? (guint64) stat->int64_value : stat->uint64_value;
            g_hash_table_insert (ids, g_memdup2 (&cid, sizeof cid),
                                 GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (ids, &cid)) + 1));
            n++;
          }
    }
  return n;
}

static guint64
event_correlation_id (PlanarTrace       *trace,
                      const PlanarEventRef *ref)
{
  const PlanarPlane *plane = planar_trace_get_plane (trace, ref->plane);
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));

  planar_trace_get_event_stats (trace, plane, &plane->tracks[ref->track].events[ref->index], stats, NULL);
  for (guint i = 0; i < stats->len; i++)
    {
      const PlanarStat *stat = &g_array_index (stats, PlanarStat, i);

      if (strcmp (stat->name, "correlation_id") == 0)
        return stat->kind == PLANAR_STAT_INT64 ? (guint64) stat->v.i64 : stat->v.u64;
    }
  g_error ("no correlation_id on event %u/%u/%u", ref->plane, ref->track, ref->index);
  return 0;
}

static void
test_gen (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *path = generate (f, "30000", "5");
  XSpace *space = planar_test_read_space (path);
  g_autoptr(GHashTable) host_ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) device_ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarFlowIndex *flows;
  guint64 n_device = 0, complete = 0, dangling = 0;
  gint64 last_lo = G_MININT64;
  GHashTableIter iter;
  gpointer key, value;

  for (gsize p = 0; p < space->n_planes; p++)
    {
      const XPlane *plane = space->planes[p];

      if (g_strcmp0 (plane->name, "/host:CPU") == 0)
        collect_correlation_ids (plane, host_ids);
      else if (g_str_has_prefix (plane->name, "/device:GPU:"))
        n_device += collect_correlation_ids (plane, device_ids);
    }
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
  g_assert_cmpuint (g_hash_table_size (host_ids), >, 0);
  g_assert_cmpuint (n_device, >, 0);

  /* Each device end with its one host end; device ends without one, and
   * host ends that fed nothing, dangle. (planar-gen numbers each launch
   * once.) */
  g_hash_table_iter_init (&iter, host_ids);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint n_kernels = GPOINTER_TO_UINT (g_hash_table_lookup (device_ids, key));

      g_assert_cmpuint (GPOINTER_TO_UINT (value), ==, 1);
      complete += n_kernels;
      dangling += n_kernels == 0;
    }
  g_hash_table_iter_init (&iter, device_ids);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (host_ids, key))
      dangling += GPOINTER_TO_UINT (value);

  trace = planar_test_load_ok (path);
  flows = planar_trace_get_flows (trace);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==, complete);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==, dangling);

  /* Every complete flow links a host launch to a kernel of the same id,
   * at their start times; the flows come sorted by the start of their
   * span (the index puts them in that order in place). */
  for (gsize i = 0; i < planar_flow_index_get_n_flows (flows); i++)
    {
      PlanarFlow fl;
      const PlanarPlane *from_plane, *to_plane;
      gint64 lo;

      planar_flow_index_get_flow (flows, i, &fl);
      lo = planar_event_ref_is_none (&fl.from) ? fl.to_ps
           : planar_event_ref_is_none (&fl.to) ? fl.from_ps : MIN (fl.from_ps, fl.to_ps);
      g_assert_cmpint (lo, >=, last_lo);
      last_lo = lo;
      if (fl.category != PLANAR_FLOW_CATEGORY_GPU_LAUNCH || planar_event_ref_is_none (&fl.from) ||
          planar_event_ref_is_none (&fl.to))
        continue;
      from_plane = planar_trace_get_plane (trace, fl.from.plane);
      to_plane = planar_trace_get_plane (trace, fl.to.plane);
      g_assert_cmpstr (from_plane->name, ==, "/host:CPU");
      g_assert_true (g_str_has_prefix (to_plane->name, "/device:GPU:"));
      g_assert_cmpuint (event_correlation_id (trace, &fl.from), ==, event_correlation_id (trace, &fl.to));
      g_assert_cmpint (fl.from_ps, ==, from_plane->tracks[fl.from.track].events[fl.from.index].start_ps);
      g_assert_cmpint (fl.to_ps, ==, to_plane->tracks[fl.to.track].events[fl.to.index].start_ps);
    }
}

/* The flows of @a and @b are the same, one by one. */
static void
assert_same_flows (const PlanarFlowIndex *a,
                   const PlanarFlowIndex *b)
{
  gsize n = planar_flow_index_get_n_flows (a);

  g_assert_cmpuint (planar_flow_index_get_n_flows (b), ==, n);
  for (gsize i = 0; i < n; i++)
    {
      PlanarFlow x, y;

      planar_flow_index_get_flow (a, i, &x);
      planar_flow_index_get_flow (b, i, &y);
      g_assert_cmpuint (x.id, ==, y.id);
      g_assert_cmpuint (x.category, ==, y.category);
      g_assert_true (planar_event_ref_equal (&x.from, &y.from));
      g_assert_true (planar_event_ref_equal (&x.to, &y.to));
      g_assert_cmpint (x.from_ps, ==, y.from_ps);
      g_assert_cmpint (x.to_ps, ==, y.to_ps);
    }
}

/* Loads @path with merging runs of flows allowed (it must be used: the
 * count of merges grows by @merges) and with the radix sort only; the
 * flows come out the same. */
static void
assert_merge_as_radix (const char *path,
                       guint       merges)
{
  g_autoptr(PlanarTrace) merged = NULL;
  g_autoptr(PlanarTrace) radix = NULL;
  guint n_merged = _planar_flow_index_get_n_merged ();

  merged = planar_test_load_ok (path);
  g_assert_cmpuint (_planar_flow_index_get_n_merged (), ==, n_merged + merges);
  _planar_flow_index_set_merge_runs_max (0);
  radix = planar_test_load_ok (path);
  _planar_flow_index_set_merge_runs_max (128);
  g_assert_cmpuint (_planar_flow_index_get_n_merged (), ==, n_merged + merges);
  assert_same_flows (planar_trace_get_flows (merged), planar_trace_get_flows (radix));
}

/* Flows that come as a few runs in time order (as the pairing makes them,
 * a run per GPU) are put in order by merging the runs, and come out as the
 * radix sort puts them, ties included: each launch below starts a kernel
 * on two GPUs, two flows with the same start in two runs. Past the most
 * runs a merge takes, the radix sort; a planar-gen profile is merged. */
static void
test_time_order_merged (Fixture       *f,
                        gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  Plane *gpu0 = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  Plane *gpu1 = planar_test_named_plane_new (space, 0, "/device:GPU:1");
  Plane *planes[] = { host, gpu0, gpu1 };
  XLine *thread = planar_test_plane_add_line (host->plane, 1, "python", 0);
  XLine *stream0 = planar_test_plane_add_line (gpu0->plane, 7, "Stream #7(Compute)", 0);
  XLine *stream1 = planar_test_plane_add_line (gpu1->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autofree char *path = g_build_filename (f->dir, "flows.xplane.pb", NULL);
  g_autofree char *gen = NULL;
  const PlanarFlowIndex *flows;
  guint n_ties = 0, n_merged;
  gint64 last_lo = G_MININT64;

  for (guint64 cid = 1; cid <= 30; cid++)
    {
      add_uint (host, add_event (host, thread, "cudaLaunchKernel", (gint64) cid * 10), "correlation_id", cid);
      add_uint (gpu0, add_event (gpu0, stream0, "kernel", 1000 + (gint64) cid * 100), "correlation_id", cid);
      add_uint (gpu1, add_event (gpu1, stream1, "kernel", 1050 + (gint64) cid * 100), "correlation_id", cid);
    }
  n_merged = _planar_flow_index_get_n_merged ();
  trace = load (f, space, planes, G_N_ELEMENTS (planes));
  g_assert_cmpuint (_planar_flow_index_get_n_merged (), ==, n_merged + 1);
  flows = planar_trace_get_flows (trace);
  g_assert_cmpuint (planar_flow_index_get_n_flows (flows), ==, 60);
  for (gsize i = 0; i < planar_flow_index_get_n_flows (flows); i++)
    {
      PlanarFlow fl;
      gint64 lo;

      planar_flow_index_get_flow (flows, i, &fl);
      lo = MIN (fl.from_ps, fl.to_ps);
      g_assert_cmpint (lo, >=, last_lo);
      n_ties += lo == last_lo;
      last_lo = lo;
    }
  g_assert_cmpuint (n_ties, ==, 30);
  assert_merge_as_radix (path, 1);

  /* Two runs, one allowed: the radix sort. */
  _planar_flow_index_set_merge_runs_max (1);
  assert_merge_as_radix (path, 0);
  _planar_flow_index_set_merge_runs_max (128);

  gen = generate (f, "30000", "5");
  assert_merge_as_radix (gen, 1);

  /* Cut into parts merged side by side, as from 2^20 flows (the runs
   * found in parts too): the same order, the ties of two runs kept
   * together in one part. */
  for (guint n_parts = 2; n_parts <= 7; n_parts += 5)
    {
      guint n_split = _planar_flow_index_get_n_split_merges ();

      _planar_flow_index_set_merge_split (1, n_parts);
      assert_merge_as_radix (path, 1);
      assert_merge_as_radix (gen, 1);
      /* The runs found in parts are counted as a whole. */
      _planar_flow_index_set_merge_runs_max (1);
      assert_merge_as_radix (path, 0);
      _planar_flow_index_set_merge_runs_max (128);
      _planar_flow_index_set_merge_split (0, 0);
      /* The three loads that looked for runs; the radix sort's did not. */
      g_assert_cmpuint (_planar_flow_index_get_n_split_merges (), ==, n_split + 3);
    }
}

/* Enough flows for their array to be a mapping of its own: put in time
 * order by a copy that gives the old pages back as it goes, they are the
 * flows, in the order, that the permutation in place makes. */
static void
test_time_order_copied (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *path = generate (f, "1000000", "3");
  g_autoptr(PlanarTrace) copied = NULL;
  g_autoptr(PlanarTrace) in_place = NULL;
  const PlanarFlowIndex *a, *b;
  guint n_copied = _planar_flow_index_get_n_copied ();
  /* PLANAR_SPILL=all puts the flows in files, which are always copied,
   * into a file (gather_flows()). */
  guint copies = g_strcmp0 (g_getenv ("PLANAR_SPILL"), "all") == 0 ? 0 : 1;
  gsize n;

  copied = planar_test_load_ok (path);
  g_assert_cmpuint (_planar_flow_index_get_n_copied (), ==, n_copied + copies);
  _planar_flow_index_set_copy_budget (0);
  in_place = planar_test_load_ok (path);
  _planar_flow_index_set_copy_budget (G_MAXSIZE);
  g_assert_cmpuint (_planar_flow_index_get_n_copied (), ==, n_copied + copies);

  a = planar_trace_get_flows (copied);
  b = planar_trace_get_flows (in_place);
  n = planar_flow_index_get_n_flows (a);
  /* Enough flows for their array to be a mapping of its own. */
  g_assert_cmpuint (n * 32, >=, PLANAR_SPILL_HUGE_MIN);
  assert_same_flows (a, b);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  PLANAR_TEST_ADD ("/flows/chain", test_chain);
  PLANAR_TEST_ADD ("/flows/pairing-by-time", test_pairing_by_time);
  PLANAR_TEST_ADD ("/flows/launch-fan-out", test_launch_fan_out);
  PLANAR_TEST_ADD ("/flows/launch-and-other-ends", test_launch_and_other_ends);
  PLANAR_TEST_ADD ("/flows/explicit-launch-flow", test_explicit_launch_flow);
  PLANAR_TEST_ADD ("/flows/unknown-category", test_unknown_category);
  PLANAR_TEST_ADD ("/flows/launch-planes", test_launch_planes);
  PLANAR_TEST_ADD ("/flows/none", test_none);
  PLANAR_TEST_ADD ("/flows/gen", test_gen);
  PLANAR_TEST_ADD ("/flows/time-order-copied", test_time_order_copied);
  PLANAR_TEST_ADD ("/flows/time-order-merged", test_time_order_merged);
  return g_test_run ();
}
