/* test-derive.c: the lines, flows and counters the model derives from a
 * trace (docs/formats.md §3, §4), on hand-made XSpaces and on the real
 * samples, whose expectations are worked out here by brute force from an
 * independent protobuf-c decode.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-private.h"
#include "planar-model.h"
#include "planar-trace-private.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"

#include <glib/gstdio.h>
#include <string.h>

#define count_derived planar_test_count_derived
#define derived_track planar_test_derived_track
#define add_ref planar_test_named_plane_add_ref
#define add_str planar_test_named_plane_add_str
#define add_int planar_test_named_plane_add_int
#define add_uint planar_test_named_plane_add_uint

#define STREAM_BASE(k) (PLANAR_LINE_ID_DEVICE_DERIVED_MIN + (k) * PLANAR_DERIVED_LINES_PER_STREAM)

typedef PlanarTestFixture Fixture;

/* ------------------------------------------------------------------------ */
/* Hand-made planes: metadata handed out by name */

typedef PlanarTestPlane Builder;

#define builder_new planar_test_named_plane_new
#define builder_done planar_test_named_plane_done
#define stat_id planar_test_named_plane_stat_id
#define event_id planar_test_named_plane_event_id

static XEvent *
add_event (Builder    *b,
           XLine      *line,
           const char *name,
           gint64      offset_ps,
           gint64      duration_ps)
{
  return planar_test_line_add_event (line, event_id (b, name), offset_ps, duration_ps);
}

static void
stat_add (XEvent *ev,
          XStat  *stat)
{
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, stat);
}

/* A kernel: non-empty kernel_details, and the annotations given. */
static XEvent *
add_kernel (Builder    *b,
            XLine      *line,
            gint64      offset_ps,
            gint64      duration_ps,
            const char *module,
            gint64      program_id,
            const char *hlo_op,
            gint64      group_id)
{
  XEvent *ev = add_event (b, line, "kernel", offset_ps, duration_ps);

  add_ref (b, ev, "kernel_details", "regs:32 grid:1,1,1 block:128,1,1");
  if (module != NULL)
    add_ref (b, ev, "hlo_module", module);
  if (program_id >= 0)
    add_uint (b, ev, "program_id", (guint64) program_id);
  if (hlo_op != NULL)
    add_ref (b, ev, "hlo_op", hlo_op);
  if (group_id >= 0)
    add_int (b, ev, "group_id", group_id);
  return ev;
}

/* ------------------------------------------------------------------------ */
/* Reading the model */

static guint
plane_index (PlanarTrace       *trace,
             const PlanarPlane *plane)
{
  return (guint) (plane - planar_trace_get_plane (trace, 0));
}

static const char *
event_name (const PlanarPlane *plane,
            const PlanarTrack *track,
            gsize              i)
{
  return planar_plane_get_event_name (plane, &track->events[i], FALSE);
}

static const char *
event_display_name (const PlanarPlane *plane,
                    const PlanarTrack *track,
                    gsize              i)
{
  return planar_plane_get_event_name (plane, &track->events[i], TRUE);
}

/* The stat @name of @event, or NULL; @stats is reused. */
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

static gboolean
stat_int_value (const PlanarStat *stat,
                gint64           *value)
{
  if (stat == NULL)
    return FALSE;
  if (stat->kind == PLANAR_STAT_INT64)
    *value = stat->v.i64;
  else if (stat->kind == PLANAR_STAT_UINT64)
    *value = (gint64) stat->v.u64;
  else
    return FALSE;
  return TRUE;
}

static char *
stat_text (const PlanarStat *stat)
{
  return stat != NULL ? planar_stat_format_value (stat) : NULL;
}

/* Every derived track is a well-formed published track: ready, counted in
 * the plane's rows, a line of its own, events flagged and sorted. */
static void
check_derived_tracks (PlanarTrace *trace)
{
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);
      guint64 file_events = 0;
      guint n_derived_lines = 0;

      for (guint l = 0; l < plane->n_lines; l++)
        {
          const PlanarLine *line = &plane->lines[l];
          const PlanarTrack *track = &plane->tracks[line->track];

          g_assert_cmpint (track->id, ==, line->id);
          if (!line->derived)
            {
              file_events += line->n_events;
              continue;
            }
          n_derived_lines++;
          g_assert_true (track->derived);
          g_assert_cmpuint (line->n_events, ==, track->n_events);
          g_assert_cmpuint (line->offset, ==, 0);
          g_assert_cmpuint (line->size, ==, 0);
          g_assert_cmpstr (line->name, ==, track->name);
        }
      /* Derived lines are not the file's events. */
      g_assert_cmpuint (plane->n_events, ==, file_events);
      g_assert_cmpuint (n_derived_lines, ==, count_derived (plane));

      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          g_assert_true (planar_trace_is_track_ready (trace, p, t));
          g_assert_cmpuint (track->row, <, plane->n_rows);
          if (!track->derived)
            continue;
          g_assert_cmpuint (track->n_events, >, 0);
          g_assert_cmpuint (track->n_aggregated, ==, 0);
          g_assert_true (track->source_track == G_MAXUINT || track->source_track < t);
          for (guint u = 0; u < plane->n_tracks; u++)
            g_assert_true (u == t || plane->tracks[u].row != track->row);
          for (gsize i = 0; i < track->n_events; i++)
            {
              const PlanarEvent *ev = &track->events[i];
              PlanarEventRef source;

              g_assert_true (ev->flags & PLANAR_EVENT_DERIVED);
              g_assert_cmpuint (ev->metadata, <, plane->n_metadata);
              if (i > 0)
                g_assert_cmpint (ev->start_ps, >=, track->events[i - 1].start_ps);
              g_assert_true (planar_trace_get_derived_source (trace, ev, &source));
              g_assert_cmpuint (source.plane, <, planar_trace_get_n_planes (trace));
              {
                const PlanarPlane *sp = planar_trace_get_plane (trace, source.plane);
                const PlanarTrack *st;

                g_assert_cmpuint (source.track, <, sp->n_tracks);
                st = &sp->tracks[source.track];
                g_assert_false (st->derived);
                g_assert_cmpuint (source.index, <, st->n_events);
                /* The first event it was built from starts it, except for
                 * Launch Stats, which come from the host. */
                if (source.plane == p)
                  g_assert_cmpint (st->events[source.index].start_ps, ==, ev->start_ps);
              }
            }
        }
    }
}

/* Writes @space as @name in @dir and loads it, the prediction of its
 * derived lines and the lines themselves checked. */
static PlanarTrace *
load_checked (XSpace     *space,
              const char *dir,
              const char *name)
{
  g_autofree char *path = planar_test_write_space (space, dir, name);
  PlanarTrace *trace = planar_test_load_ok (path);

  planar_test_check_prediction (path, trace);
  check_derived_tracks (trace);
  return trace;
}

/* ------------------------------------------------------------------------ */
/* The merge rules, by hand */

static void
test_xla_lines (Fixture       *f,
                gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  XLine *copies = planar_test_plane_add_line (gpu->plane, 9, "Stream #9(MemcpyH2D)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  const PlanarPlane *plane;
  const PlanarTrack *ops, *modules, *stream_track;
  const PlanarStat *stat;
  PlanarEventRef source;
  g_autofree char *text = NULL;
  gint64 v = 0;

  planar_test_add_task_environment (space, 1000);
  /* Same op, same group: one event over both (the gap does not matter on
   * a GPU). */
  add_kernel (gpu, stream, 0, 10, "jit_f", 42, "fusion.1", 1);
  add_kernel (gpu, stream, 1000, 10, "jit_f", 42, "fusion.1", 1);
  /* Same op, another group: a new event. */
  add_kernel (gpu, stream, 2000, 10, "jit_f", 42, "fusion.1", 2);
  /* Another op, same group: a new event. */
  add_kernel (gpu, stream, 3000, 10, "jit_f", 42, "fusion.2", 2);
  /* Two levels; the outer one continues across the next kernel, whose
   * inner op differs. */
  add_kernel (gpu, stream, 4000, 10, "jit_f", 42, "while.3::body.4", 2);
  add_kernel (gpu, stream, 4100, 10, "jit_f", 42, "while.3::body.5", 2);
  /* Not kernels: a copy, and an event without kernel_details. */
  {
    XEvent *copy = add_event (gpu, copies, "MemcpyH2D", 5000, 10);

    add_ref (gpu, copy, "memcpy_details", "kind_src:pinned size:4");
    add_ref (gpu, copy, "hlo_op", "copy.9");
    add_ref (gpu, add_event (gpu, stream, "annotated", 6000, 10), "hlo_op", "fusion.9");
  }
  /* A module without a program id; an op then takes the module's name as
   * its prefix. */
  add_kernel (gpu, stream, 7000, 10, "jit_g", -1, "dot.1", -1);
  builder_done (gpu);

  trace = load_checked (space, f->dir, "xla.xplane.pb");
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_nonnull (plane);
  stream_track = planar_plane_find_track (plane, "Stream #7(Compute)");

  /* The compute stream comes first (k = 0) though it was written first
   * anyway; the copy stream has no kernels and gets nothing. */
  ops = derived_track (plane, "XLA Ops - from #7");
  modules = derived_track (plane, "XLA Modules - from #7");
  g_assert_nonnull (ops);
  g_assert_nonnull (modules);
  g_assert_null (derived_track (plane, "XLA Ops - from #9"));
  g_assert_null (derived_track (plane, "Framework Ops - from #7"));
  g_assert_cmpint (ops->id, ==, STREAM_BASE (0) + PLANAR_DERIVED_OFFSET_XLA_OPS);
  g_assert_cmpint (modules->id, ==, STREAM_BASE (0) + PLANAR_DERIVED_OFFSET_XLA_MODULES);
  g_assert_cmpint (ops->id, ==, -559038444);
  /* XProf's display order: the stream at 1, its lines at 2 + offset. */
  g_assert_cmpint (modules->display_id, ==, 4);
  g_assert_cmpint (ops->display_id, ==, 5);
  g_assert_cmpuint (ops->source_track, ==, (guint) (stream_track - plane->tracks));
  /* The file's lines keep their display ids. */
  g_assert_cmpint (stream_track->display_id, ==, 7);

  /* fusion.1 (g1) | fusion.1 (g2) | fusion.2 | while.3 > body.4, body.5 | dot.1 */
  g_assert_cmpuint (ops->n_events, ==, 7);
  g_assert_cmpuint (ops->max_depth, ==, 1);
  g_assert_cmpstr (event_name (plane, ops, 0), ==, "42/fusion.1");
  g_assert_cmpstr (event_display_name (plane, ops, 0), ==, "fusion.1");
  g_assert_cmpint (ops->events[0].start_ps, ==, stream_track->events[0].start_ps);
  g_assert_cmpint (ops->events[0].duration_ps, ==, 1010);
  g_assert_cmpstr (event_name (plane, ops, 1), ==, "42/fusion.1");
  g_assert_cmpint (ops->events[1].start_ps - ops->events[0].start_ps, ==, 2000);
  g_assert_cmpint (ops->events[1].duration_ps, ==, 10);
  g_assert_cmpstr (event_name (plane, ops, 2), ==, "42/fusion.2");
  g_assert_cmpstr (event_name (plane, ops, 3), ==, "42/while.3");
  g_assert_cmpint (ops->events[3].duration_ps, ==, 110);
  g_assert_cmpuint (ops->events[3].depth, ==, 0);
  g_assert_cmpstr (event_name (plane, ops, 4), ==, "42/body.4");
  g_assert_cmpstr (event_display_name (plane, ops, 4), ==, "body.4");
  g_assert_cmpuint (ops->events[4].depth, ==, 1);
  g_assert_cmpstr (event_name (plane, ops, 5), ==, "42/body.5");
  g_assert_cmpuint (ops->events[5].depth, ==, 1);
  g_assert_cmpstr (event_name (plane, ops, 6), ==, "jit_g/dot.1");

  /* jit_f(42) splits with the group; jit_g has no program id. */
  g_assert_cmpuint (modules->n_events, ==, 3);
  g_assert_cmpstr (event_name (plane, modules, 0), ==, "jit_f(42)");
  g_assert_cmpint (modules->events[0].duration_ps, ==, 1010);
  g_assert_cmpstr (event_name (plane, modules, 1), ==, "jit_f(42)");
  g_assert_cmpint (modules->events[1].duration_ps, ==, 2110);
  g_assert_cmpstr (event_name (plane, modules, 2), ==, "jit_g");

  /* A derived event's stats come from the model, not the file. */
  stat = find_stat (trace, plane, &ops->events[2], stats, "hlo_op");
  text = stat_text (stat);
  g_assert_cmpstr (text, ==, "fusion.2");
  g_clear_pointer (&text, g_free);
  stat = find_stat (trace, plane, &ops->events[2], stats, "hlo_module");
  text = stat_text (stat);
  g_assert_cmpstr (text, ==, "jit_f");
  g_assert_true (stat_int_value (find_stat (trace, plane, &ops->events[2], stats, "program_id"),
                                 &v));
  g_assert_cmpint (v, ==, 42);
  g_assert_true (stat_int_value (find_stat (trace, plane, &ops->events[2], stats, "group_id"), &v));
  g_assert_cmpint (v, ==, 2);
  /* A kernel without a group takes the latest group before it, as XProf
   * does on GPU planes. */
  g_assert_true (stat_int_value (find_stat (trace, plane, &ops->events[6], stats, "group_id"), &v));
  g_assert_cmpint (v, ==, 2);
  g_assert_true (planar_trace_get_derived_source (trace, &ops->events[2], &source));
  g_assert_cmpuint (source.plane, ==, plane_index (trace, plane));
  g_assert_cmpuint (source.track, ==, (guint) (stream_track - plane->tracks));
  g_assert_cmpuint (source.index, ==, 3);
  g_assert_false (planar_trace_get_derived_source (trace, &stream_track->events[0], &source));

  /* Steps from the group ids (1, then 2), no Launch Stats without a host. */
  g_assert_nonnull (derived_track (plane, "Steps"));
  g_assert_null (derived_track (plane, "Launch Stats"));
  g_assert_cmpuint (count_derived (plane), ==, 3);
  g_assert_cmpuint (planar_trace_get_n_dropped_derived_lines (trace), ==, 0);

  /* Derived events count nowhere. */
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 9);
  g_assert_cmpuint (plane->n_events, ==, 9);
}

static void
test_stream_order (Fixture       *f,
                   gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *busy = planar_test_plane_add_line (gpu->plane, 3, "Stream #3(Kernel)", 0);
  XLine *quiet = planar_test_plane_add_line (gpu->plane, 5, "Stream #5(Kernel)", 0);
  XLine *compute = planar_test_plane_add_line (gpu->plane, 8, "Stream #8(Compute)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *t;

  planar_test_add_task_environment (space, 1000);
  for (int i = 0; i < 3; i++)
    add_kernel (gpu, busy, i * 100, 10, "m", 1, "a", -1);
  add_kernel (gpu, quiet, 0, 10, "m", 1, "a", -1);
  add_kernel (gpu, compute, 0, 10, "m", 1, "a", -1);
  builder_done (gpu);

  trace = load_checked (space, f->dir, "order.xplane.pb");
  plane = planar_trace_find_plane (trace, "/device:GPU:0");

  /* Compute first, then by number of events: #8, #3, #5. */
  t = derived_track (plane, "XLA Ops - from #8");
  g_assert_nonnull (t);
  g_assert_cmpint (t->id, ==, STREAM_BASE (0) + PLANAR_DERIVED_OFFSET_XLA_OPS);
  g_assert_cmpint (t->display_id, ==, 1 + 1 + PLANAR_DERIVED_OFFSET_XLA_OPS);
  t = derived_track (plane, "XLA Ops - from #3");
  g_assert_nonnull (t);
  g_assert_cmpint (t->id, ==, STREAM_BASE (1) + PLANAR_DERIVED_OFFSET_XLA_OPS);
  g_assert_cmpint (t->display_id, ==, 7 + 1 + PLANAR_DERIVED_OFFSET_XLA_OPS);
  g_assert_cmpuint (t->n_events, ==, 1);
  g_assert_cmpint (t->events[0].duration_ps, ==, 210);
  t = derived_track (plane, "XLA Modules - from #5");
  g_assert_nonnull (t);
  g_assert_cmpint (t->id, ==, STREAM_BASE (2) + PLANAR_DERIVED_OFFSET_XLA_MODULES);
  g_assert_cmpint (t->display_id, ==, 13 + 1 + PLANAR_DERIVED_OFFSET_XLA_MODULES);
  g_assert_cmpuint (count_derived (plane), ==, 6);
  /* Published in display order: each stream's lines in id order. */
  g_assert_cmpstr (plane->tracks[3].name, ==, "XLA Modules - from #8");
  g_assert_cmpstr (plane->tracks[4].name, ==, "XLA Ops - from #8");
  g_assert_cmpstr (plane->tracks[5].name, ==, "XLA Modules - from #3");
}

static void
test_framework_lines (Fixture       *f,
                      gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  const PlanarPlane *plane;
  const PlanarTrack *scopes, *ops;
  g_autofree char *text = NULL;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  /* TensorFlow ops: name scopes are levels, the type is the display name. */
  ev = add_kernel (gpu, stream, 0, 10, NULL, -1, NULL, -1);
  add_ref (gpu, ev, "tf_op", "model/dense/MatMul:MatMul");
  ev = add_kernel (gpu, stream, 100, 10, NULL, -1, NULL, -1);
  add_ref (gpu, ev, "tf_op", "model/dense/MatMul:MatMul");
  ev = add_kernel (gpu, stream, 200, 10, NULL, -1, NULL, -1);
  add_str (gpu, ev, "tf_op", "model/dense/BiasAdd:BiasAdd");
  /* A JAX op name: "name:type", type in lowercase, brackets dropped. */
  ev = add_kernel (gpu, stream, 300, 10, NULL, -1, NULL, -1);
  add_str (gpu, ev, "tf_op", "jit(f)/mul:mul[shape=(2,)]");
  /* An XLA kernel's tf_op is not used (its framework op would come from
   * the HLO instruction). */
  ev = add_kernel (gpu, stream, 400, 10, "m", 3, "fusion", -1);
  add_str (gpu, ev, "tf_op", "XlaModule:");
  builder_done (gpu);

  trace = load_checked (space, f->dir, "tf.xplane.pb");
  plane = planar_trace_find_plane (trace, "/device:GPU:0");

  scopes = derived_track (plane, "Framework Name Scope - from #7");
  ops = derived_track (plane, "Framework Ops - from #7");
  g_assert_nonnull (scopes);
  g_assert_nonnull (ops);
  g_assert_cmpint (scopes->id, ==, STREAM_BASE (0) + PLANAR_DERIVED_OFFSET_FRAMEWORK_NAME_SCOPE);
  g_assert_cmpint (ops->id, ==, STREAM_BASE (0) + PLANAR_DERIVED_OFFSET_FRAMEWORK_OPS);

  /* MatMul, MatMul merge; BiasAdd; mul. */
  g_assert_cmpuint (ops->n_events, ==, 3);
  g_assert_cmpstr (event_name (plane, ops, 0), ==, "model/dense/MatMul:MatMul");
  g_assert_cmpstr (event_display_name (plane, ops, 0), ==, "MatMul");
  g_assert_cmpint (ops->events[0].duration_ps, ==, 110);
  g_assert_cmpstr (event_display_name (plane, ops, 1), ==, "BiasAdd");
  g_assert_cmpstr (event_name (plane, ops, 2), ==, "jit(f)/mul:mul[shape=(2,)]");
  g_assert_cmpstr (event_display_name (plane, ops, 2), ==, "mul");
  text = stat_text (find_stat (trace, plane, &ops->events[1], stats, "tf_op"));
  g_assert_cmpstr (text, ==, "model/dense/BiasAdd:BiasAdd");

  /* model > dense over the three TF ops, then jit(f) for the JAX one. */
  g_assert_cmpuint (scopes->n_events, ==, 3);
  g_assert_cmpstr (event_name (plane, scopes, 0), ==, "model");
  g_assert_cmpuint (scopes->events[0].depth, ==, 0);
  g_assert_cmpint (scopes->events[0].duration_ps, ==, 210);
  g_assert_cmpstr (event_name (plane, scopes, 1), ==, "dense");
  g_assert_cmpuint (scopes->events[1].depth, ==, 1);
  g_assert_cmpint (scopes->events[1].duration_ps, ==, 210);
  g_assert_cmpstr (event_name (plane, scopes, 2), ==, "jit(f)");

  g_assert_nonnull (derived_track (plane, "XLA Ops - from #7"));
  g_assert_cmpuint (count_derived (plane), ==, 4);
}

/* A new module closes the open ops and name scopes (XProf's dependent
 * lines), even where they would merge on their own. */
static void
test_dependent_lines (Fixture       *f,
                      gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *t;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  /* One module and op, but two scope ranges: the module splits (its scope
   * range differs), and so do the ops, which have no scope of their own
   * here (one range for two levels). */
  ev = add_kernel (gpu, stream, 0, 10, "m", 1, "a::b", -1);
  add_int (gpu, ev, "scope_range_id", 10);
  ev = add_kernel (gpu, stream, 100, 10, "m", 1, "a::b", -1);
  add_int (gpu, ev, "scope_range_id", 20);
  /* Framework ops under two modules. */
  ev = add_kernel (gpu, stream, 200, 10, "n", 2, NULL, -1);
  add_ref (gpu, ev, "tf_op", "s/x:X");
  ev = add_kernel (gpu, stream, 300, 10, "o", 3, NULL, -1);
  add_ref (gpu, ev, "tf_op", "s/x:X");
  /* The same module and scope range again: all merge. */
  ev = add_kernel (gpu, stream, 400, 10, "p", 4, "c", -1);
  add_int (gpu, ev, "scope_range_id", 30);
  ev = add_kernel (gpu, stream, 500, 10, "p", 4, "c", -1);
  add_int (gpu, ev, "scope_range_id", 30);
  builder_done (gpu);

  trace = load_checked (space, f->dir, "dependent.xplane.pb");
  plane = planar_trace_find_plane (trace, "/device:GPU:0");

  t = derived_track (plane, "XLA Modules - from #7");
  g_assert_nonnull (t);
  g_assert_cmpuint (t->n_events, ==, 5);
  g_assert_cmpint (t->events[4].duration_ps, ==, 110);
  t = derived_track (plane, "XLA Ops - from #7");
  g_assert_nonnull (t);
  g_assert_cmpuint (t->n_events, ==, 5);
  g_assert_cmpstr (event_name (plane, t, 2), ==, "1/a");
  g_assert_cmpstr (event_name (plane, t, 4), ==, "4/c");
  g_assert_cmpint (t->events[4].duration_ps, ==, 110);
  t = derived_track (plane, "Framework Name Scope - from #7");
  g_assert_nonnull (t);
  g_assert_cmpuint (t->n_events, ==, 2);
  t = derived_track (plane, "Framework Ops - from #7");
  g_assert_nonnull (t);
  g_assert_cmpuint (t->n_events, ==, 2);
  g_assert_cmpint (t->events[0].duration_ps, ==, 10);
}

/* A host whose root event names step group 1 "train 5", and launches on
 * GPU 0 in that group. */
static void
test_steps_and_launch_stats (Fixture       *f,
                             gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *host = builder_new (space, 0, "/host:CPU");
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *thread = planar_test_plane_add_line (host->plane, 100, "python", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  XLine *copies = planar_test_plane_add_line (gpu->plane, 8, "Stream #8(MemcpyD2H)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  const PlanarPlane *plane, *host_plane;
  const PlanarTrack *steps, *launch, *host_track;
  g_autofree char *text = NULL;
  PlanarEventRef source;
  gint64 v = 0;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  ev = add_event (host, thread, "train", 0, 1000000);
  add_int (host, ev, "_r", 1);
  add_int (host, ev, "group_id", 1);
  add_int (host, ev, "iter_num", 5);
  /* Launches of 1, 2 and 3 us; a driver call and a launch without a group
   * are left out. */
  for (int i = 0; i < 3; i++)
    {
      ev = add_event (host, thread, "LaunchKernel", 1000 + i * 100000, (i + 1) * 1000000);
      add_uint (host, ev, "device_id", 0);
      add_uint (host, ev, "correlation_id", 10 + (guint64) i);
      add_int (host, ev, "group_id", 1);
    }
  ev = add_event (host, thread, "cuLaunchKernel", 500000, 9000000);
  add_uint (host, ev, "device_id", 0);
  add_uint (host, ev, "correlation_id", 20);
  add_int (host, ev, "group_id", 1);
  ev = add_event (host, thread, "LaunchKernel", 900000, 9000000);
  add_uint (host, ev, "device_id", 0);
  add_uint (host, ev, "correlation_id", 21);
  builder_done (host);

  /* Steps: events with group ids 1, 1 (another stream), 2, then one
   * without a group, which takes the group before it. */
  add_kernel (gpu, stream, 0, 10, NULL, -1, NULL, 1);
  add_int (gpu, add_event (gpu, copies, "MemcpyD2H", 20, 10), "group_id", 1);
  add_kernel (gpu, stream, 100, 10, NULL, -1, NULL, 2);
  add_kernel (gpu, stream, 200, 10, NULL, -1, NULL, -1);
  builder_done (gpu);

  trace = load_checked (space, f->dir, "steps.xplane.pb");
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  host_plane = planar_trace_find_plane (trace, "/host:CPU");
  host_track = planar_plane_find_track (host_plane, "python");

  steps = derived_track (plane, "Steps");
  g_assert_nonnull (steps);
  g_assert_cmpint (steps->id, ==, PLANAR_LINE_ID_STEPS);
  g_assert_cmpint (steps->display_id, ==, -559038737);
  g_assert_cmpuint (steps->source_track, ==, G_MAXUINT);
  g_assert_cmpuint (steps->n_events, ==, 2);
  g_assert_cmpstr (event_name (plane, steps, 0), ==, "1");
  g_assert_cmpint (steps->events[0].duration_ps, ==, 30);
  g_assert_cmpstr (event_name (plane, steps, 1), ==, "2");
  g_assert_cmpint (steps->events[1].duration_ps, ==, 110);
  /* Shown by its step name, as XProf's trace viewer does; a group no
   * root names keeps its number. */
  g_assert_cmpstr (event_display_name (plane, steps, 0), ==, "train 5");
  g_assert_cmpstr (event_display_name (plane, steps, 1), ==, "2");
  text = stat_text (find_stat (trace, plane, &steps->events[0], stats, "step_name"));
  g_assert_cmpstr (text, ==, "train 5");
  g_clear_pointer (&text, g_free);
  g_assert_null (find_stat (trace, plane, &steps->events[1], stats, "step_name"));
  g_assert_true (stat_int_value (find_stat (trace, plane, &steps->events[1], stats, "group_id"),
                                 &v));
  g_assert_cmpint (v, ==, 2);

  launch = derived_track (plane, "Launch Stats");
  g_assert_nonnull (launch);
  g_assert_cmpint (launch->id, ==, PLANAR_LINE_ID_LAUNCH_STATS);
  g_assert_cmpuint (launch->n_events, ==, 1);
  g_assert_cmpstr (event_name (plane, launch, 0), ==, "Launch Stats for train 5");
  g_assert_cmpint (launch->events[0].start_ps, ==, host_track->events[1].start_ps);
  g_assert_cmpint (launch->events[0].duration_ps, ==, 200000 + 3000000);
  g_assert_true (stat_int_value (find_stat (trace, plane, &launch->events[0], stats,
                                            "num_launches"), &v));
  g_assert_cmpint (v, ==, 3);
  g_assert_cmpfloat (find_stat (trace, plane, &launch->events[0], stats,
                                "max_launch_time_us")->v.f64, ==, 3.0);
  g_assert_cmpfloat (find_stat (trace, plane, &launch->events[0], stats,
                                "avg_launch_time_us")->v.f64, ==, 2.0);
  g_assert_true (stat_int_value (find_stat (trace, plane, &launch->events[0], stats, "group_id"),
                                 &v));
  g_assert_cmpint (v, ==, 1);
  g_assert_true (planar_trace_get_derived_source (trace, &launch->events[0], &source));
  g_assert_cmpuint (source.plane, ==, plane_index (trace, host_plane));
  g_assert_cmpuint (source.index, ==, 1);

  /* No annotations on these kernels: no XLA or Framework lines. */
  g_assert_cmpuint (count_derived (plane), ==, 2);
  g_assert_cmpuint (count_derived (host_plane), ==, 0);
}

/* A launch of kernel @correlation on GPU 0. */
static XEvent *
add_launch (Builder    *b,
            XLine      *line,
            const char *name,
            gint64      offset_ps,
            gint64      duration_ps,
            guint64     correlation)
{
  XEvent *ev = add_event (b, line, name, offset_ps, duration_ps);

  add_uint (b, ev, "device_id", 0);
  add_uint (b, ev, "correlation_id", correlation);
  return ev;
}

/* Kernel @correlation's run on the GPU, without annotations. */
static void
add_launched_kernel (Builder *b,
                     XLine   *line,
                     gint64   offset_ps,
                     gint64   duration_ps,
                     guint64  correlation)
{
  add_uint (b, add_kernel (b, line, offset_ps, duration_ps, NULL, -1, NULL, -1), "correlation_id", correlation);
}

/* A file without group ids whose host marks its steps with root events,
 * as JAX's StepTraceAnnotation does: the groups are worked out as XProf
 * does (planar-derive-groups.c), and give the GPU its Steps and Launch
 * Stats. */
static void
test_steps_from_root_events (Fixture       *f,
                             gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *host = builder_new (space, 0, "/host:CPU");
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *python = planar_test_plane_add_line (host->plane, 100, "python", 0);
  XLine *pjrt = planar_test_plane_add_line (host->plane, 200, "pjrt", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  static const struct { guint64 correlation; gint64 start, duration; } kernels[] = {
    { 1, 250000, 10000 }, { 2, 330000, 10000 }, { 4, 700000, 50000 },
    { 5, 1200000, 10000 }, { 3, 2150000, 10000 }, { 6, 2250000, 20000 },
  };
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  const PlanarPlane *plane;
  const PlanarTrack *steps, *launch, *kernel_track;
  g_autofree char *text = NULL;
  PlanarEventRef source;
  gint64 v = 0;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  /* Step 7: two launches inside it, one of them under a root of the same
   * level (which makes no group of its own), and through the context its
   * "Execute" produces, a launch on another thread. */
  ev = add_event (host, python, "train", 0, 1000000);
  add_int (host, ev, "_r", 1);
  add_int (host, ev, "step_num", 7);
  add_event (host, python, "PjitFunction", 10, 900000);
  ev = add_event (host, python, "Execute", 20, 100000);
  add_int (host, ev, "_pt", 14);
  add_uint (host, ev, "_p", 99);
  add_launch (host, python, "LaunchKernel", 200000, 10000, 1);
  ev = add_event (host, python, "inner", 300000, 100000);
  add_int (host, ev, "_r", 1);
  add_launch (host, python, "LaunchKernel", 310000, 10000, 2);
  /* A launch of no step. */
  add_launch (host, python, "LaunchKernel", 1100000, 10000, 5);
  /* Step 8: a launch, and a driver call that Launch Stats leave out. */
  ev = add_event (host, python, "train", 2000000, 1000000);
  add_int (host, ev, "_r", 1);
  add_int (host, ev, "step_num", 8);
  add_launch (host, python, "LaunchKernel", 2100000, 5000, 3);
  add_launch (host, python, "cuLaunchKernel", 2200000, 1000, 6);
  ev = add_event (host, pjrt, "ExecuteHelper", 500000, 1000000);
  add_int (host, ev, "_ct", 14);
  add_uint (host, ev, "_c", 99);
  add_launch (host, pjrt, "LaunchKernel", 600000, 10000, 4);
  builder_done (host);

  for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
    add_launched_kernel (gpu, stream, kernels[i].start, kernels[i].duration, kernels[i].correlation);
  builder_done (gpu);

  trace = load_checked (space, f->dir, "jax-steps.xplane.pb");
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  kernel_track = planar_plane_find_track (plane, "Stream #7(Compute)");

  /* Group 0 is step 7 (its kernels 1, 2 and 4), group 1 step 8 (3 and
   * 6). Kernel 5, launched in no step, takes the group of the device
   * events before it, as a file's ungrouped events do: it ends step 7. */
  steps = derived_track (plane, "Steps");
  g_assert_nonnull (steps);
  g_assert_cmpint (steps->id, ==, PLANAR_LINE_ID_STEPS);
  g_assert_cmpuint (steps->n_events, ==, 2);
  g_assert_cmpstr (event_name (plane, steps, 0), ==, "0");
  g_assert_cmpint (steps->events[0].start_ps, ==, kernel_track->events[0].start_ps);
  g_assert_cmpint (steps->events[0].duration_ps, ==, 1210000 - 250000);
  g_assert_cmpstr (event_display_name (plane, steps, 0), ==, "train 7");
  text = stat_text (find_stat (trace, plane, &steps->events[0], stats, "step_name"));
  g_assert_cmpstr (text, ==, "train 7");
  g_clear_pointer (&text, g_free);
  g_assert_true (planar_trace_get_derived_source (trace, &steps->events[0], &source));
  g_assert_cmpuint (source.plane, ==, plane_index (trace, plane));
  g_assert_cmpuint (source.index, ==, 0);
  g_assert_cmpstr (event_name (plane, steps, 1), ==, "1");
  g_assert_cmpint (steps->events[1].duration_ps, ==, 2270000 - 2150000);
  text = stat_text (find_stat (trace, plane, &steps->events[1], stats, "step_name"));
  g_assert_cmpstr (text, ==, "train 8");
  g_clear_pointer (&text, g_free);
  g_assert_true (stat_int_value (find_stat (trace, plane, &steps->events[1], stats, "group_id"), &v));
  g_assert_cmpint (v, ==, 1);

  launch = derived_track (plane, "Launch Stats");
  g_assert_nonnull (launch);
  g_assert_cmpuint (launch->n_events, ==, 2);
  g_assert_cmpstr (event_name (plane, launch, 0), ==, "Launch Stats for train 7");
  g_assert_cmpint (launch->events[0].duration_ps, ==, 610000 - 200000);
  g_assert_true (stat_int_value (find_stat (trace, plane, &launch->events[0], stats, "num_launches"), &v));
  g_assert_cmpint (v, ==, 3);
  g_assert_cmpstr (event_name (plane, launch, 1), ==, "Launch Stats for train 8");
  g_assert_true (stat_int_value (find_stat (trace, plane, &launch->events[1], stats, "num_launches"), &v));
  g_assert_cmpint (v, ==, 1);
  g_assert_cmpuint (count_derived (plane), ==, 2);
}

/* Contexts as XProf links them: not one that 64 producers and 64
 * consumers share (an id reused everywhere), a consumer that produces its
 * own context again ends no walk, and a launch that is a consumer has its
 * context's group. */
static void
test_steps_from_root_events_contexts (Fixture       *f,
                                      gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *host = builder_new (space, 0, "/host:CPU");
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *python = planar_test_plane_add_line (host->plane, 100, "python", 0);
  XLine *worker = planar_test_plane_add_line (host->plane, 200, "worker", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  const PlanarPlane *plane;
  const PlanarTrack *steps, *launch, *kernel_track;
  gint64 v = 0;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  ev = add_event (host, python, "train", 0, 10000000);
  add_int (host, ev, "_r", 1);
  add_int (host, ev, "step_num", 3);
  for (int i = 0; i < 64; i++)
    {
      ev = add_event (host, python, "Produce", 1000 + i * 1000, 500);
      add_int (host, ev, "_pt", 14);
      add_uint (host, ev, "_p", 5);
    }
  ev = add_event (host, python, "Enqueue", 100000, 500);
  add_int (host, ev, "_pt", 14);
  add_uint (host, ev, "_p", 6);
  for (int i = 0; i < 64; i++)
    {
      ev = add_event (host, worker, "Consume", 200000 + i * 100000, 50000);
      add_int (host, ev, "_ct", 14);
      add_uint (host, ev, "_c", 5);
      if (i == 0)
        add_launch (host, worker, "LaunchKernel", 210000, 1000, 1);
    }
  ev = add_event (host, worker, "Run", 7000000, 100000);
  add_int (host, ev, "_ct", 14);
  add_uint (host, ev, "_c", 6);
  add_int (host, ev, "_pt", 14);
  add_uint (host, ev, "_p", 6);
  add_launch (host, worker, "LaunchKernel", 7010000, 1000, 2);
  /* A launch that is a consumer of the step's context itself. */
  ev = add_launch (host, worker, "ExecuteLaunch", 8000000, 1000, 3);
  add_int (host, ev, "_ct", 14);
  add_uint (host, ev, "_c", 6);
  builder_done (host);

  /* Kernel 1, of no step, comes before step 3's only kernel. */
  add_launched_kernel (gpu, stream, 300000, 1000, 1);
  add_launched_kernel (gpu, stream, 7100000, 2000, 2);
  add_launched_kernel (gpu, stream, 8100000, 1000, 3);
  builder_done (gpu);

  trace = load_checked (space, f->dir, "contexts.xplane.pb");
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  kernel_track = planar_plane_find_track (plane, "Stream #7(Compute)");

  steps = derived_track (plane, "Steps");
  g_assert_nonnull (steps);
  g_assert_cmpuint (steps->n_events, ==, 1);
  g_assert_cmpint (steps->events[0].start_ps, ==, kernel_track->events[1].start_ps);
  g_assert_cmpint (steps->events[0].duration_ps, ==, 8101000 - 7100000);
  g_assert_cmpstr (event_display_name (plane, steps, 0), ==, "train 3");
  launch = derived_track (plane, "Launch Stats");
  g_assert_nonnull (launch);
  g_assert_cmpuint (launch->n_events, ==, 1);
  g_assert_true (stat_int_value (find_stat (trace, plane, &launch->events[0], stats, "num_launches"), &v));
  g_assert_cmpint (v, ==, 2);
}

/* Loads @n host events nested in one another, each a root of a level of
 * its own, the innermost holding a kernel's launch; returns the steps the
 * load took. */
static guint64
count_nested_roots_steps (const char *dir,
                          guint       n)
{
  XSpace *space = planar_test_space_new ();
  Builder *host = builder_new (space, 0, "/host:CPU");
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *python = planar_test_plane_add_line (host->plane, 100, "python", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarTrack *steps;

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < n; i++)
    add_int (host, add_event (host, python, "root", 1000 * (gint64) i, 1000 * (2 * (gint64) (n - i) + 2)),
             "_r", i + 1);
  add_launch (host, python, "LaunchKernel", 1000 * (gint64) n, 500, 1);
  builder_done (host);
  add_launched_kernel (gpu, stream, 1000 * (gint64) n + 600, 100, 1);
  builder_done (gpu);
  path = planar_test_write_space (space, dir, "nested-roots.xplane.pb");
  trace = planar_test_load_ok (path);
  /* The innermost root, of the highest level, comes first: group 0. */
  steps = derived_track (planar_trace_find_plane (trace, "/device:GPU:0"), "Steps");
  g_assert_nonnull (steps);
  g_assert_cmpuint (steps->n_events, ==, 1);
  g_assert_cmpstr (event_display_name (planar_trace_find_plane (trace, "/device:GPU:0"), steps, 0), ==,
                   "root 0");
  return _planar_trace_get_steps (trace);
}

/* Roots nested as deep as a file likes, each of another level: the search
 * of each one's ancestors of its level must not cost roots x depth. */
static void
test_steps_from_root_events_deep (Fixture       *f,
                                  gconstpointer  data)
{
  const guint n = 2500;
  guint64 small = count_nested_roots_steps (f->dir, n);
  guint64 large = count_nested_roots_steps (f->dir, 4 * n);

  g_test_message ("nested roots: %u took %" G_GUINT64_FORMAT " steps, %u took %" G_GUINT64_FORMAT, n, small, 4 * n, large);
  planar_test_check_linear (n, small, large, "working out the groups of nested roots");
}

/* Loads a GPU line of @n events of as many step groups, their ids
 * ordinary (0, 1, 2...) or chosen to collide in a multiplicative hash
 * (Fibonacci's, the same upper half for all), and returns the load's
 * steps. */
static guint64
count_group_ids_steps (const char *dir,
                       guint       n,
                       gboolean    colliding)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  const guint64 golden = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  guint64 inverse = golden;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;

  /* The inverse of the odd constant modulo 2^64 (Newton's iteration). */
  for (int i = 0; i < 6; i++)
    inverse *= 2 - golden * inverse;
  g_assert_cmphex (golden * inverse, ==, 1);
  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < n; i++)
    {
      guint64 id = colliding ? ((G_GUINT64_CONSTANT (7) << 32) + i) * inverse : i;

      add_int (gpu, add_event (gpu, stream, "kernel", 100 * (gint64) i, 50), "group_id", (gint64) id);
    }
  builder_done (gpu);
  path = planar_test_write_space (space, dir, "group-ids.xplane.pb");
  trace = planar_test_load_ok (path);
  g_assert_cmpuint (derived_track (planar_trace_find_plane (trace, "/device:GPU:0"), "Steps")->n_events, ==, n);
  return _planar_trace_get_steps (trace);
}

/* A file's step group ids are its own to choose: its derived lines' table
 * of them must not take work in proportion to their number's square when
 * they are chosen to collide. */
static void
test_colliding_group_ids (Fixture       *f,
                          gconstpointer  data)
{
  const guint n = 2500;
  guint64 small = count_group_ids_steps (f->dir, n, TRUE);
  guint64 large = count_group_ids_steps (f->dir, 4 * n, TRUE);
  guint64 ordinary = count_group_ids_steps (f->dir, 4 * n, FALSE);

  g_test_message ("group ids: %u colliding took %" G_GUINT64_FORMAT " steps, %u %" G_GUINT64_FORMAT
                  ", %u ordinary %" G_GUINT64_FORMAT, n, small, 4 * n, large, 4 * n, ordinary);
  planar_test_check_linear (n, small, large, "the derived sources' table of colliding group ids");
  planar_test_check_like (4 * n, ordinary, large, "the derived sources' table of group ids");
}

/* Lines the file already has are not derived again. */
static void
test_native_lines (Fixture       *f,
                   gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  Builder *gpu1 = builder_new (space, 1, "/device:GPU:1");
  Builder *tpu = builder_new (space, 0, "/device:TPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  XLine *native = planar_test_plane_add_line (gpu->plane, PLANAR_LINE_ID_FRAMEWORK_OPS,
                                              "TensorFlow Ops", 0);
  XLine *stream1 = planar_test_plane_add_line (gpu1->plane, 7, "Stream #7(Compute)", 0);
  XLine *steps1 = planar_test_plane_add_line (gpu1->plane, 12, "Steps", 0);
  XLine *tpu_ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  XLine *tpu_fw = planar_test_plane_add_line (tpu->plane, 4, "Framework Ops", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  ev = add_kernel (gpu, stream, 0, 10, "m", 1, "op", 1);
  add_ref (gpu, ev, "tf_op", "a/b:B");
  add_event (gpu, native, "a/b:B", 0, 10);
  builder_done (gpu);
  add_kernel (gpu1, stream1, 0, 10, "m", 1, "op", 1);
  add_event (gpu1, steps1, "1", 0, 10);
  builder_done (gpu1);
  ev = add_event (tpu, tpu_ops, "fusion", 0, 10);
  add_ref (tpu, ev, "tf_op", "a/b:B");
  add_event (tpu, tpu_fw, "B", 0, 10);
  builder_done (tpu);

  trace = load_checked (space, f->dir, "native.xplane.pb");
  /* A native framework line stops the per-stream lines, but not Steps. */
  g_assert_cmpuint (count_derived (planar_trace_find_plane (trace, "/device:GPU:0")), ==, 1);
  g_assert_nonnull (derived_track (planar_trace_find_plane (trace, "/device:GPU:0"), "Steps"));
  /* A native Steps line stops Steps, but not the stream's lines. */
  g_assert_null (derived_track (planar_trace_find_plane (trace, "/device:GPU:1"), "Steps"));
  g_assert_nonnull (derived_track (planar_trace_find_plane (trace, "/device:GPU:1"),
                                   "XLA Ops - from #7"));
  g_assert_cmpuint (count_derived (planar_trace_find_plane (trace, "/device:GPU:1")), ==, 2);
  g_assert_cmpuint (count_derived (planar_trace_find_plane (trace, "/device:TPU:0")), ==, 0);
}

static void
test_tpu_lines (Fixture       *f,
                gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *tpu = builder_new (space, 0, "/device:TPU:0");
  XLine *ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  XLine *modules = planar_test_plane_add_line (tpu->plane, 2, "XLA Modules", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *fw, *scopes, *source;
  XEventMetadata *md;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  add_event (tpu, modules, "jit_f(1)", 0, 100000);
  /* tf_op on the op's metadata, as TPU profiles have it. */
  event_id (tpu, "fusion.1");
  md = tpu->plane->event_metadata[tpu->plane->n_event_metadata - 1]->value;
  PLANAR_TEST_APPEND (md->stats, md->n_stats,
                      planar_test_stat_ref (stat_id (tpu, "tf_op"),
                                            (guint64) stat_id (tpu, "jit(f)/dot:dot_general")));
  /* Without a group, a gap of up to twice the last event's duration still
   * merges (100 + 2 x 100 >= 300), a longer one does not. */
  add_event (tpu, ops, "fusion.1", 0, 100);
  add_event (tpu, ops, "fusion.1", 300, 100);
  add_event (tpu, ops, "fusion.1", 5000, 100);
  /* An async op is left out; an event stat overrides the metadata's. */
  ev = add_event (tpu, ops, "fusion.1", 6000, 100);
  add_int (tpu, ev, "_a", 1);
  ev = add_event (tpu, ops, "fusion.1", 7000, 100);
  add_str (tpu, ev, "tf_op", "jit(f)/add:add");
  add_str (tpu, ev, "source", "model.py:12");
  builder_done (tpu);

  trace = load_checked (space, f->dir, "tpu.xplane.pb");
  plane = planar_trace_find_plane (trace, "/device:TPU:0");

  fw = derived_track (plane, "Framework Ops");
  scopes = derived_track (plane, "Framework Name Scope");
  source = derived_track (plane, "Source code");
  g_assert_nonnull (fw);
  g_assert_nonnull (scopes);
  g_assert_nonnull (source);
  g_assert_cmpint (fw->id, ==, PLANAR_LINE_ID_FRAMEWORK_OPS);
  g_assert_cmpint (scopes->id, ==, PLANAR_LINE_ID_FRAMEWORK_NAME_SCOPE);
  g_assert_cmpint (source->id, ==, PLANAR_LINE_ID_SOURCE_CODE);
  g_assert_cmpuint (fw->n_events, ==, 3);
  g_assert_cmpint (fw->events[0].duration_ps, ==, 400);
  g_assert_cmpint (fw->events[1].duration_ps, ==, 100);
  g_assert_cmpstr (event_name (plane, fw, 2), ==, "jit(f)/add:add");
  g_assert_cmpstr (event_display_name (plane, fw, 0), ==, "dot_general");
  /* jit(f) spans the first two ops (merged), then the next two each. */
  g_assert_cmpuint (scopes->n_events, ==, 3);
  g_assert_cmpstr (event_name (plane, scopes, 0), ==, "jit(f)");
  g_assert_cmpuint (source->n_events, ==, 1);
  g_assert_cmpstr (event_name (plane, source, 0), ==, "model.py:12");
  g_assert_cmpuint (count_derived (plane), ==, 3);
}

/* Loads @path with the loader's derive limits (planar-trace-loader.c). */
static PlanarTrace *
load_limited (const char *path,
              gint64      budget,
              guint       max_tracks_per_plane)
{
  g_autoptr(PlanarTraceLoader) loader = NULL;
  g_autoptr(GError) error = NULL;

  loader = g_object_new (PLANAR_TYPE_TRACE_LOADER,
                         "path", path,
                         "derive-budget", budget,
                         "derive-max-tracks-per-plane", max_tracks_per_plane,
                         NULL);
  g_assert_true (planar_trace_loader_open (loader, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (planar_trace_loader_decode (loader, NULL, &error));
  g_assert_no_error (error);
  return g_object_ref (planar_trace_loader_get_trace (loader));
}

static void
test_capacity (Fixture       *f,
               gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(PlanarTrace) full = NULL;
  const PlanarPlane *plane;

  planar_test_add_task_environment (space, 1000);
  add_kernel (gpu, stream, 0, 10, "m", 1, "op", 1);
  builder_done (gpu);
  path = planar_test_write_space (space, f->dir, "room.xplane.pb");

  /* XLA Modules, XLA Ops and Steps, with room for two. */
  trace = load_limited (path, -1, 2);
  check_derived_tracks (trace);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_cmpuint (count_derived (plane), ==, 2);
  g_assert_cmpuint (plane->n_tracks, ==, 3);
  g_assert_cmpuint (plane->n_lines, ==, 3);
  g_assert_cmpuint (planar_trace_get_n_dropped_derived_lines (trace), ==, 1);
  g_assert_nonnull (derived_track (plane, "XLA Modules - from #7"));
  g_assert_nonnull (derived_track (plane, "XLA Ops - from #7"));

  full = planar_test_load_ok (path);
  g_assert_cmpuint (count_derived (planar_trace_find_plane (full, "/device:GPU:0")), ==, 3);
  g_assert_cmpuint (planar_trace_get_n_dropped_derived_lines (full), ==, 0);
}

/* A file asking for more derived events than its memory budget allows is
 * shown without them, and says so. */
static void
test_budget (Fixture       *f,
             gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  Builder *gpu1 = builder_new (space, 1, "/device:GPU:1");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  XLine *stream1 = planar_test_plane_add_line (gpu1->plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;

  planar_test_add_task_environment (space, 1000);
  /* Each kernel opens four levels: 5000 x 4 derived events. */
  for (int i = 0; i < 5000; i++)
    add_kernel (gpu, stream, i * 100, 10, "m", 1, i % 2 ? "a::b::c::d" : "e::f::g::h", -1);
  builder_done (gpu);
  /* A small plane still fits. */
  add_kernel (gpu1, stream1, 0, 10, "m", 1, "a", -1);
  builder_done (gpu1);
  path = planar_test_write_space (space, f->dir, "budget.xplane.pb");

  /* Room for 8192 events, shared by number of events: GPU 0 gets nearly
   * all, too few; GPU 1 its 2. */
  trace = load_limited (path, (gint64) (2 * 4096 * (sizeof (PlanarEvent) + 24 + 8)), G_MAXUINT);
  check_derived_tracks (trace);
  g_assert_cmpuint (count_derived (planar_trace_find_plane (trace, "/device:GPU:0")), ==, 0);
  g_assert_cmpuint (count_derived (planar_trace_find_plane (trace, "/device:GPU:1")), ==, 2);
  /* XLA Modules and XLA Ops of GPU 0. */
  g_assert_cmpuint (planar_trace_get_n_dropped_derived_lines (trace), ==, 2);
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 5001);
}

/* ------------------------------------------------------------------------ */
/* Flows, by hand */

static gsize
flows_of (const PlanarFlowIndex *flows,
          guint                  plane,
          guint                  track,
          guint32                index,
          GArray                *out)
{
  PlanarEventRef ref = { plane, 0, track, index };

  g_array_set_size (out, 0);
  return planar_flow_index_query_event (flows, &ref, out);
}

static gboolean
same_ref (const PlanarEventRef *a,
          guint                 plane,
          guint                 track,
          guint32               index)
{
  return a->plane == plane && a->track == track && a->index == index;
}

static void
test_flows (Fixture       *f,
            gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *host = builder_new (space, 0, "/host:CPU");
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *thread = planar_test_plane_add_line (host->plane, 100, "python", 0);
  XLine *other = planar_test_plane_add_line (host->plane, 101, "worker", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) out = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  const PlanarFlowIndex *flows;
  const PlanarFlow *fl;
  guint hp, gp;
  XEvent *ev;

  planar_test_space_add_plane (space, 1, "/host:metadata");
  PLANAR_TEST_APPEND (space->hostnames, space->n_hostnames, planar_test_keep_str ("host-a"));
  planar_test_add_task_environment (space, 1000);
  /* python: launch 5 (t 0), launch 6 (t 100, nothing ran), producer (t 200),
   * a PjRt flow out (t 300). worker: consumer (t 1000), PjRt in (t 1100). */
  ev = add_event (host, thread, "LaunchKernel", 0, 50);
  add_uint (host, ev, "correlation_id", 5);
  add_uint (host, ev, "device_id", 0);
  ev = add_event (host, thread, "LaunchKernel", 100, 50);
  add_uint (host, ev, "correlation_id", 6);
  ev = add_event (host, thread, "Produce", 200, 50);
  add_int (host, ev, "_pt", 2);
  add_uint (host, ev, "_p", 77);
  ev = add_event (host, thread, "Send", 300, 50);
  add_uint (host, ev, "flow",
            2 | (G_GUINT64_CONSTANT (1234) << 2) | (G_GUINT64_CONSTANT (5) << 58));
  ev = add_event (host, other, "Consume", 1000, 50);
  add_int (host, ev, "_ct", 2);
  add_uint (host, ev, "_c", 77);
  ev = add_event (host, other, "Receive", 1100, 50);
  add_uint (host, ev, "flow",
            1 | (G_GUINT64_CONSTANT (1234) << 2) | (G_GUINT64_CONSTANT (5) << 58));
  builder_done (host);
  /* The kernel of launch 5 (t 500); a kernel of launch 7, whose host call
   * was not captured (t 600). */
  ev = add_kernel (gpu, stream, 500, 10, NULL, -1, NULL, -1);
  add_uint (gpu, ev, "correlation_id", 5);
  ev = add_kernel (gpu, stream, 600, 10, NULL, -1, NULL, -1);
  add_uint (gpu, ev, "correlation_id", 7);
  builder_done (gpu);

  path = planar_test_write_space (space, f->dir, "flows.xplane.pb");
  trace = planar_test_load_ok (path);
  flows = planar_trace_get_flows (trace);
  g_assert_nonnull (flows);
  hp = plane_index (trace, planar_trace_find_plane (trace, "/host:CPU"));
  gp = plane_index (trace, planar_trace_find_plane (trace, "/device:GPU:0"));

  /* Launch 5, the producer's and the PjRt flow have both ends; launch 6
   * and kernel 7 one. */
  g_assert_cmpuint (planar_flow_index_get_n_flows (flows), ==, 5);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 3);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 2);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==,
                    1);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==,
                    2);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_TF_EXECUTOR), ==,
                    1);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_PJRT), ==, 1);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_PJRT), ==, 0);
  g_assert_cmpstr (planar_flow_category_get_name (PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==,
                   "gpu_launch");
  g_assert_cmpstr (planar_flow_category_get_name (PLANAR_FLOW_CATEGORY_TF_EXECUTOR), ==, "tf_exec");
  g_assert_cmpstr (planar_flow_category_get_name (PLANAR_FLOW_CATEGORY_SC_OFFLOAD), ==,
                   "sparsecore_offload");
  g_assert_cmpstr (planar_flow_category_get_name (1), ==, "");
  g_assert_cmpstr (planar_flow_category_get_name (40), ==, "");

  /* Launch 5 -> its kernel. */
  g_assert_cmpuint (flows_of (flows, hp, 0, 0, out), ==, 1);
  fl = &g_array_index (out, PlanarFlow, 0);
  g_assert_cmpuint (fl->category, ==, PLANAR_FLOW_CATEGORY_GPU_LAUNCH);
  g_assert_true (same_ref (&fl->from, hp, 0, 0));
  g_assert_true (same_ref (&fl->to, gp, 0, 0));
  g_assert_cmpint (fl->from_ps, ==, 0);
  g_assert_cmpint (fl->to_ps, ==, 500);
  g_assert_cmpuint (fl->id, <, G_GUINT64_CONSTANT (1) << 56);
  g_assert_cmpuint (flows_of (flows, gp, 0, 0, out), ==, 1);
  /* Launch 6 and kernel 7: one end each. */
  g_assert_cmpuint (flows_of (flows, hp, 0, 1, out), ==, 1);
  fl = &g_array_index (out, PlanarFlow, 0);
  g_assert_true (planar_event_ref_is_none (&fl->to));
  g_assert_cmpint (fl->to_ps, ==, fl->from_ps);
  g_assert_cmpuint (flows_of (flows, gp, 0, 1, out), ==, 1);
  g_assert_true (planar_event_ref_is_none (&g_array_index (out, PlanarFlow, 0).from));
  /* Producer -> consumer across threads; XFlow out -> in. */
  g_assert_cmpuint (flows_of (flows, hp, 0, 2, out), ==, 1);
  fl = &g_array_index (out, PlanarFlow, 0);
  g_assert_cmpuint (fl->category, ==, PLANAR_FLOW_CATEGORY_TF_EXECUTOR);
  g_assert_true (same_ref (&fl->to, hp, 1, 0));
  g_assert_cmpuint (flows_of (flows, hp, 1, 1, out), ==, 1);
  fl = &g_array_index (out, PlanarFlow, 0);
  g_assert_cmpuint (fl->category, ==, PLANAR_FLOW_CATEGORY_PJRT);
  g_assert_cmpuint (fl->id, ==, 1234);
  g_assert_true (same_ref (&fl->from, hp, 0, 3));
  /* An event without flows. */
  g_assert_cmpuint (flows_of (flows, hp, 0, 9, out), ==, 0);

  /* By time: flows whose span meets the window. */
  g_array_set_size (out, 0);
  g_assert_cmpuint (planar_flow_index_query_range (flows, PLANAR_FLOW_CATEGORY_ALL, 520, 550, out),
                    ==, 2);
  g_assert_cmpuint (g_array_index (out, PlanarFlow, 0).category, ==,
                    PLANAR_FLOW_CATEGORY_TF_EXECUTOR);
  g_assert_cmpuint (g_array_index (out, PlanarFlow, 1).category, ==, PLANAR_FLOW_CATEGORY_PJRT);
  g_array_set_size (out, 0);
  g_assert_cmpuint (planar_flow_index_query_range (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH, 0, 600,
                                                   out), ==, 3);
  g_array_set_size (out, 0);
  g_assert_cmpuint (planar_flow_index_query_range (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH, 501, 599,
                                                   out), ==, 0);
  g_array_set_size (out, 0);
  g_assert_cmpuint (planar_flow_index_query_range (flows, PLANAR_FLOW_CATEGORY_BATCHER, 0, 10000,
                                                   out), ==, 0);

  /* Moving the trace moves the flows. */
  g_assert_true (planar_trace_shift_time (trace, 1000000, NULL));
  g_assert_cmpuint (flows_of (flows, hp, 0, 0, out), ==, 1);
  g_assert_cmpint (g_array_index (out, PlanarFlow, 0).to_ps, ==, 1000500);
  g_array_set_size (out, 0);
  g_assert_cmpuint (planar_flow_index_query_range (flows, PLANAR_FLOW_CATEGORY_ALL, 1000520,
                                                   1000550, out), ==, 2);
  g_array_set_size (out, 0);
  g_assert_cmpuint (planar_flow_index_query_range (flows, PLANAR_FLOW_CATEGORY_ALL, 520, 550, out),
                    ==, 0);
}

/* Launch ids too sparse for the table, or repeated, take the sorting
 * path; the results must be the same kind. */
static void
test_flows_sparse_ids (Fixture       *f,
                       gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *host = builder_new (space, 0, "/host:CPU");
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *thread = planar_test_plane_add_line (host->plane, 100, "python", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  const guint64 ids[] = { 1, G_GUINT64_CONSTANT (1) << 40, G_GUINT64_CONSTANT (1) << 50 };
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) out = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  const PlanarFlowIndex *flows;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      ev = add_event (host, thread, "Launch", i * 100, 10);
      add_uint (host, ev, "correlation_id", ids[i]);
      ev = add_kernel (gpu, stream, 50 + i * 100, 10, NULL, -1, NULL, -1);
      add_uint (gpu, ev, "correlation_id", ids[i]);
    }
  /* One more kernel for the first launch: two flows from it. */
  ev = add_kernel (gpu, stream, 400, 10, NULL, -1, NULL, -1);
  add_uint (gpu, ev, "correlation_id", ids[0]);
  builder_done (host);
  builder_done (gpu);

  path = planar_test_write_space (space, f->dir, "sparse.xplane.pb");
  trace = planar_test_load_ok (path);
  flows = planar_trace_get_flows (trace);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), ==,
                    4);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 0);
  g_assert_cmpuint (flows_of (flows, 0, 0, 0, out), ==, 2);
  g_assert_cmpuint (flows_of (flows, 0, 0, 2, out), ==, 1);
  g_assert_cmpint (g_array_index (out, PlanarFlow, 0).to_ps, ==, 250);
}

/* ------------------------------------------------------------------------ */
/* Counters and internal events */

static void
test_counters (Fixture       *f,
               gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *counters = planar_test_plane_add_line (gpu->plane, G_MAXINT64, "_counters_", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarCounterSet *set;
  const PlanarCounterSeries *power, *clock;
  PlanarCounterColumn columns[5];
  double min, max;
  gsize index;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  /* power_mw at 0, 10, 20, ... 90 ps: 100, 80, 120, ...; sm_clock_mhz at
   * 5 and 95 (ints). Written out of order. */
  for (int i = 9; i >= 0; i--)
    {
      ev = add_event (gpu, counters, "power_mw", i * 10, 0);
      stat_add (ev, planar_test_stat_double (stat_id (gpu, "power_mw"),
                                             100.0 + (i % 3 == 1 ? -20.0 : 20.0 * (i % 3))));
    }
  ev = add_event (gpu, counters, "sm_clock_mhz", 95, 0);
  add_uint (gpu, ev, "sm_clock_mhz", 1400);
  ev = add_event (gpu, counters, "sm_clock_mhz", 5, 0);
  add_int (gpu, ev, "sm_clock_mhz", 1200);
  builder_done (gpu);

  path = planar_test_write_space (space, f->dir, "counters.xplane.pb");
  trace = planar_test_load_ok (path);
  planar_test_check_prediction (path, trace);
  set = planar_trace_get_counters (trace);
  g_assert_nonnull (set);
  g_assert_cmpuint (planar_counter_set_get_n_series (set), ==, 2);
  /* By name within a track. */
  power = planar_counter_set_get_series (set, 0);
  clock = planar_counter_set_get_series (set, 1);
  g_assert_cmpstr (planar_counter_series_get_name (power), ==, "power_mw");
  g_assert_cmpstr (planar_counter_series_get_name (clock), ==, "sm_clock_mhz");
  g_assert_true (planar_counter_set_find_series (set, 0, "sm_clock_mhz") == clock);
  g_assert_null (planar_counter_set_find_series (set, 1, "sm_clock_mhz"));
  g_assert_cmpuint (planar_counter_series_get_plane (power), ==, 0);

  g_assert_cmpuint (planar_counter_series_get_n_samples (power), ==, 10);
  for (gsize i = 0; i < 10; i++)
    {
      g_assert_cmpint (planar_counter_series_get_time (power, i), ==, (gint64) i * 10);
      g_assert_cmpfloat (planar_counter_series_get_value (power, i), ==,
                         100.0 + (i % 3 == 1 ? -20.0 : 20.0 * (double) (i % 3)));
    }
  g_assert_cmpuint (planar_counter_series_get_n_samples (clock), ==, 2);
  g_assert_cmpint (planar_counter_series_get_time (clock, 0), ==, 5);
  g_assert_cmpfloat (planar_counter_series_get_value (clock, 0), ==, 1200.0);
  g_assert_cmpfloat (planar_counter_series_get_value (clock, 1), ==, 1400.0);
  g_assert_true (planar_counter_series_get_range (power, &min, &max));
  g_assert_cmpfloat (min, ==, 80.0);
  g_assert_cmpfloat (max, ==, 140.0);
  g_assert_true (planar_counter_series_lookup (power, 25, &index));
  g_assert_cmpuint (index, ==, 2);
  g_assert_false (planar_counter_series_lookup (clock, 4, &index));

  /* Columns of 30 ps from -15: [-15,15) holds 0 and 10, [15,45) 20..40,
   * [45,75) 50..70, [75,105) 80 and 90, [105,135) nothing (carries 90's). */
  planar_counter_series_query_columns (power, -15, 30, 5, columns);
  g_assert_cmpuint (columns[0].n_samples, ==, 2);
  g_assert_cmpfloat (columns[0].min, ==, 80.0);
  g_assert_cmpfloat (columns[0].max, ==, 100.0);
  g_assert_cmpfloat (columns[0].last, ==, 80.0);
  g_assert_cmpuint (columns[1].n_samples, ==, 3);
  g_assert_cmpfloat (columns[1].min, ==, 80.0);
  g_assert_cmpfloat (columns[1].max, ==, 140.0);
  g_assert_cmpfloat (columns[1].last, ==, 80.0);
  g_assert_cmpuint (columns[3].n_samples, ==, 2);
  g_assert_cmpuint (columns[4].n_samples, ==, 0);
  g_assert_true (columns[4].has_value);
  g_assert_cmpfloat (columns[4].last, ==, 100.0);
  /* Before the first sample there is nothing to draw. */
  planar_counter_series_query_columns (clock, 0, 4, 3, columns);
  g_assert_false (columns[0].has_value);
  g_assert_cmpuint (columns[1].n_samples, ==, 1);
  g_assert_true (columns[2].has_value);
  g_assert_cmpfloat (columns[2].min, ==, 1200.0);

  /* Times follow the trace when it moves. */
  g_assert_true (planar_trace_shift_time (trace, 1000, NULL));
  g_assert_cmpint (planar_counter_series_get_time (power, 3), ==, 1030);
  g_assert_true (planar_counter_series_lookup (power, 1025, &index));
  g_assert_cmpuint (index, ==, 2);
  g_assert_false (planar_counter_series_lookup (power, 999, &index));
  /* The same columns, 1000 ps later. */
  planar_counter_series_query_columns (power, 985, 30, 5, columns);
  g_assert_cmpuint (columns[0].n_samples, ==, 2);
  g_assert_cmpuint (columns[1].n_samples, ==, 3);
  g_assert_cmpfloat (columns[1].max, ==, 140.0);
  g_assert_cmpuint (columns[3].n_samples, ==, 2);
  g_assert_cmpuint (columns[4].n_samples, ==, 0);
  /* A counter line is still a line of the plane, and nothing is derived
   * from it. */
  g_assert_cmpuint (count_derived (planar_trace_find_plane (trace, "/device:GPU:0")), ==, 0);
}

/* Columns over a series against a linear scan. */
static void
check_columns (const PlanarCounterSeries *series,
               gint64                     t0,
               gint64                     width,
               guint                      n_columns)
{
  g_autofree PlanarCounterColumn *columns = g_new (PlanarCounterColumn, n_columns);
  gsize n = planar_counter_series_get_n_samples (series), at = 0;
  gboolean has = FALSE;
  double carry = 0;

  planar_counter_series_query_columns (series, t0, width, n_columns, columns);
  for (guint c = 0; c < n_columns; c++)
    {
      gint64 offset, c0, c1;
      double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE, lastv = 0;
      guint64 k = 0;

      /* Columns far past the samples saturate, as the model's do. */
      if (__builtin_mul_overflow ((gint64) c, width, &offset) ||
          __builtin_add_overflow (t0, offset, &c0))
        c0 = G_MAXINT64;
      if (__builtin_add_overflow (c0, width, &c1))
        c1 = G_MAXINT64;

      while (at < n && planar_counter_series_get_time (series, at) < c0)
        {
          has = TRUE;
          carry = planar_counter_series_get_value (series, at++);
        }
      while (at < n && planar_counter_series_get_time (series, at) < c1)
        {
          double v = planar_counter_series_get_value (series, at++);

          lo = MIN (lo, v);
          hi = MAX (hi, v);
          lastv = carry = v;
          has = TRUE;
          k++;
        }
      g_assert_cmpuint (columns[c].n_samples, ==, k);
      g_assert_cmpint (columns[c].has_value, ==, has);
      if (k > 0)
        {
          g_assert_cmpfloat (columns[c].min, ==, lo);
          g_assert_cmpfloat (columns[c].max, ==, hi);
          g_assert_cmpfloat (columns[c].last, ==, lastv);
        }
      else if (has)
        g_assert_cmpfloat (columns[c].last, ==, carry);
    }
}

/* Random values, so that a column's extremes can be anywhere in it. */
static void
test_counter_columns (Fixture       *f,
                      gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *counters = planar_test_plane_add_line (gpu->plane, G_MAXINT64, "_counters_", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarCounterSeries *series;
  GRand *rand = g_rand_new_with_seed (11);
  gint64 t = 0;

  planar_test_add_task_environment (space, 1000);
  for (int i = 0; i < 6000; i++)
    {
      XEvent *ev;

      /* Bursts and gaps: some columns hold hundreds of samples, some none. */
      if (g_rand_int_range (rand, 0, 3) == 0)
        t += g_rand_int_range (rand, 1, 5000);
      else
        t += g_rand_int_range (rand, 0, 3);
      ev = add_event (gpu, counters, "gpu_temp_c", t, 0);
      stat_add (ev, planar_test_stat_double (stat_id (gpu, "gpu_temp_c"),
                                             g_rand_double_range (rand, -50, 50)));
    }
  g_rand_free (rand);
  builder_done (gpu);

  path = planar_test_write_space (space, f->dir, "columns.xplane.pb");
  trace = planar_test_load_ok (path);
  series = planar_counter_set_find_series (planar_trace_get_counters (trace), 0, "gpu_temp_c");
  g_assert_nonnull (series);
  g_assert_cmpuint (planar_counter_series_get_n_samples (series), ==, 6000);
  for (gint64 width = 1; width < t; width = width * 3 + 1)
    for (gint64 t0 = -width * 2; t0 < t; t0 += t / 5 + 1)
      check_columns (series, t0, width, 400);
  check_columns (series, 0, t + 1, 1);
  check_columns (series, 0, G_MAXINT64 / 2, 3);
}

static void
test_internal_events (Fixture       *f,
                      gconstpointer  data)
{
  static const struct { const char *name; gboolean internal; } names[] = {
    { "MemoryAllocation", TRUE },
    { "MemoryDeallocation", TRUE },
    { "PrefetchProduce", TRUE },
    { "PrefetchConsume", TRUE },
    { "ParallelInterleaveProduce", TRUE },
    { "ParallelInterleaveInitializedInput", TRUE },
    { "ParallelMapConsume", TRUE },
    { "MapAndBatchProduce", TRUE },
    { "ParseExampleConsume", TRUE },
    { "Iterator::Prefetch::Generator", FALSE },
    { "ParallelBatchProduce", FALSE },
    { "SessionRun", FALSE },
    { "MemoryAllocationX", FALSE },
  };
  XSpace *space = planar_test_space_new ();
  Builder *host = builder_new (space, 0, "/host:CPU");
  XLine *thread = planar_test_plane_add_line (host->plane, 1, "main", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    add_event (host, thread, names[i].name, i * 10, 5);
  builder_done (host);

  path = planar_test_write_space (space, f->dir, "internal.xplane.pb");
  trace = planar_test_load_ok (path);
  plane = planar_trace_find_plane (trace, "/host:CPU");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      gboolean found = FALSE;

      for (guint m = 0; m < plane->n_metadata; m++)
        if (strcmp (plane->metadata[m].name, names[i].name) == 0)
          {
            found = TRUE;
            if (plane->metadata[m].internal != names[i].internal)
              g_error ("%s: internal is %d", names[i].name, plane->metadata[m].internal);
          }
      g_assert_true (found);
    }
}

/* ------------------------------------------------------------------------ */
/* The real samples */

/* One event of a protobuf-c plane, with its stats resolved by name:
 * metadata stats first, then the event's, later ones winning. */
typedef struct
{
  gint64      start_ps;
  gint64      duration_ps;
  GHashTable *stats;
} RawEvent;

typedef struct
{
  gint64  id;
  char   *name;
  GArray *events;
  guint64 n_xevents;
} RawLine;

static void
raw_line_free (RawLine *line)
{
  for (guint i = 0; i < line->events->len; i++)
    g_hash_table_unref (g_array_index (line->events, RawEvent, i).stats);
  g_array_unref (line->events);
  g_free (line->name);
  g_free (line);
}

static const char *
raw_stat (const RawEvent *ev,
          const char     *name)
{
  return g_hash_table_lookup (ev->stats, name);
}

static int
compare_raw_events (gconstpointer pa,
                    gconstpointer pb)
{
  const RawEvent *a = pa, *b = pb;

  if (a->start_ps != b->start_ps)
    return a->start_ps < b->start_ps ? -1 : 1;
  if (a->duration_ps != b->duration_ps)
    return a->duration_ps > b->duration_ps ? -1 : 1;
  return 0;
}

static char *
raw_stat_value (const XPlane *plane,
                const XStat  *stat)
{
  switch (stat->value_case)
    {
    case TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE:
      return g_strdup (stat->str_value);
    case TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE:
      for (gsize i = 0; i < plane->n_stat_metadata; i++)
        if (plane->stat_metadata[i]->key == (gint64) stat->ref_value &&
            plane->stat_metadata[i]->value != NULL)
          return g_strdup (plane->stat_metadata[i]->value->name);
      return g_strdup ("");
    case TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE:
      return g_strdup_printf ("%" G_GINT64_FORMAT, stat->int64_value);
    case TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, stat->uint64_value);
    default:
      return g_strdup ("?");
    }
}

static const char *
raw_stat_name (const XPlane *plane,
               gint64        id)
{
  for (gsize i = 0; i < plane->n_stat_metadata; i++)
    if (plane->stat_metadata[i]->key == id && plane->stat_metadata[i]->value != NULL)
      return plane->stat_metadata[i]->value->name;
  return "";
}

static void
raw_add_stats (const XPlane *plane,
               XStat       **stats,
               gsize         n_stats,
               GHashTable   *out)
{
  for (gsize i = 0; i < n_stats; i++)
    g_hash_table_replace (out, g_strdup (raw_stat_name (plane, stats[i]->metadata_id)),
                          raw_stat_value (plane, stats[i]));
}

/* The lines of @plane merged by id, events sorted, times shifted so that
 * each line's first event matches the model (only relative times are
 * compared). */
static GPtrArray *
raw_lines (const XPlane *plane)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func ((GDestroyNotify) raw_line_free);

  for (gsize l = 0; l < plane->n_lines; l++)
    {
      const XLine *xl = plane->lines[l];
      RawLine *line = NULL;

      for (guint i = 0; i < lines->len && line == NULL; i++)
        if (((RawLine *) g_ptr_array_index (lines, i))->id == xl->id)
          line = g_ptr_array_index (lines, i);
      if (line == NULL)
        {
          line = g_new0 (RawLine, 1);
          line->id = xl->id;
          line->name = g_strdup (xl->name);
          line->events = g_array_new (FALSE, FALSE, sizeof (RawEvent));
          g_ptr_array_add (lines, line);
        }
      line->n_xevents += xl->n_events;
      for (gsize e = 0; e < xl->n_events; e++)
        {
          const XEvent *xe = xl->events[e];
          RawEvent ev = { xl->timestamp_ns * 1000 + xe->offset_ps, MAX (xe->duration_ps, 0), NULL };

          if (xe->data_case == TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES)
            continue;
          ev.stats = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
          for (gsize m = 0; m < plane->n_event_metadata; m++)
            if (plane->event_metadata[m]->key == xe->metadata_id &&
                plane->event_metadata[m]->value != NULL)
              raw_add_stats (plane, plane->event_metadata[m]->value->stats,
                             plane->event_metadata[m]->value->n_stats, ev.stats);
          raw_add_stats (plane, xe->stats, xe->n_stats, ev.stats);
          g_array_append_val (line->events, ev);
        }
      g_array_sort (line->events, compare_raw_events);
    }
  return lines;
}

/* A derived event as the brute force expects it. */
typedef struct
{
  gint64  start_ps;
  gint64  end_ps;
  char   *name;
  guint   depth;
} Expected;

static void
expected_clear (gpointer p)
{
  g_free (((Expected *) p)->name);
}

typedef struct
{
  gssize  event;
  /* The last event opened at this level (-1: none). */
  gssize  last;
  char   *name;
  char   *group;
} Open;

/* Opens or extends the event of @level: the merge rule, written out
 * plainly. A new event ends the last ones of its level and below where it
 * starts when it starts inside them and outlives them (concurrent
 * kernels). */
static void
expect_level (GArray     *events,
              GArray     *open,
              guint       level,
              const char *name,
              const char *group,
              gint64      start_ps,
              gint64      end_ps)
{
  Open *o;

  while (open->len <= level)
    {
      Open none = { -1, -1, NULL, NULL };

      g_array_append_val (open, none);
    }
  o = &g_array_index (open, Open, level);
  if (o->event >= 0 && strcmp (o->name, name) == 0 && g_strcmp0 (o->group, group) == 0)
    {
      Expected *e = &g_array_index (events, Expected, o->event);

      e->end_ps = MAX (e->end_ps, end_ps);
      return;
    }
  for (guint i = level; i < open->len; i++)
    {
      Open *c = &g_array_index (open, Open, i);

      c->event = -1;
      g_clear_pointer (&c->name, g_free);
      g_clear_pointer (&c->group, g_free);
      if (c->last >= 0)
        {
          Expected *before = &g_array_index (events, Expected, c->last);

          if (before->start_ps < start_ps && start_ps < before->end_ps && before->end_ps < end_ps)
            before->end_ps = start_ps;
        }
    }
  {
    Expected e = { start_ps, end_ps, g_strdup (name), level };

    g_array_append_val (events, e);
  }
  o = &g_array_index (open, Open, level);
  o->event = events->len - 1;
  o->last = o->event;
  o->name = g_strdup (name);
  o->group = g_strdup (group);
}

static void
close_levels (GArray *open,
              guint   level)
{
  for (guint i = level; i < open->len; i++)
    {
      Open *c = &g_array_index (open, Open, i);

      c->event = -1;
      g_clear_pointer (&c->name, g_free);
      g_clear_pointer (&c->group, g_free);
    }
}

static int
compare_stream_lines (gconstpointer pa,
                      gconstpointer pb)
{
  const RawLine *a = *(RawLine * const *) pa, *b = *(RawLine * const *) pb;
  gboolean ca = strstr (a->name, "Compute") != NULL, cb = strstr (b->name, "Compute") != NULL;

  if (ca != cb)
    return ca ? -1 : 1;
  if (a->n_xevents != b->n_xevents)
    return a->n_xevents > b->n_xevents ? -1 : 1;
  return 0;
}

static void
compare_line (const PlanarPlane *plane,
              const PlanarTrack *track,
              GArray            *expected,
              gint64             shift_ps)
{
  g_assert_cmpuint (track->n_events, ==, expected->len);
  for (guint i = 0; i < expected->len; i++)
    {
      const Expected *e = &g_array_index (expected, Expected, i);

      g_assert_cmpstr (event_name (plane, track, i), ==, e->name);
      g_assert_cmpint (track->events[i].start_ps, ==, e->start_ps + shift_ps);
      g_assert_cmpint (track->events[i].duration_ps, ==, e->end_ps - e->start_ps);
      g_assert_cmpuint (track->events[i].depth, ==, e->depth);
    }
}

/* The XLA lines of every GPU plane of a sample, worked out from the
 * kernels of an independent decode and compared with the model. */
static guint
check_sample_xla_lines (PlanarTrace  *trace,
                        const XSpace *space)
{
  guint n_checked = 0;

  for (gsize p = 0; p < space->n_planes; p++)
    {
      const XPlane *xp = space->planes[p];
      const PlanarPlane *plane = planar_trace_get_plane (trace, (guint) p);
      g_autoptr(GPtrArray) lines = NULL;
      g_autoptr(GPtrArray) streams = g_ptr_array_new ();
      gboolean native = FALSE;
      guint n_expected_lines = 0;

      if (!g_str_has_prefix (xp->name, "/device:GPU:"))
        {
          if (!g_str_has_prefix (xp->name, "/device:TPU:"))
            g_assert_cmpuint (count_derived (plane), ==, 0);
          continue;
        }
      lines = raw_lines (xp);
      for (guint i = 0; i < lines->len; i++)
        {
          RawLine *line = g_ptr_array_index (lines, i);

          if (planar_line_id_is_derived (line->id) ||
              strstr (line->name, "TensorFlow Ops") != NULL ||
              strstr (line->name, "TensorFlow Name Scope") != NULL)
            native = TRUE;
          if (!planar_line_id_is_derived (line->id))
            g_ptr_array_add (streams, line);
        }
      g_ptr_array_sort (streams, compare_stream_lines);

      for (guint k = 0; k < streams->len && k < PLANAR_DERIVED_MAX_STREAMS; k++)
        {
          RawLine *line = g_ptr_array_index (streams, k);
          g_autoptr(GArray) modules = g_array_new (FALSE, FALSE, sizeof (Expected));
          g_autoptr(GArray) ops = g_array_new (FALSE, FALSE, sizeof (Expected));
          g_autoptr(GArray) open_modules = g_array_new (FALSE, FALSE, sizeof (Open));
          g_autoptr(GArray) open_ops = g_array_new (FALSE, FALSE, sizeof (Open));
          g_autofree char *ops_name = g_strdup_printf ("XLA Ops - from #%" G_GINT64_FORMAT,
                                                       line->id);
          g_autofree char *modules_name = g_strdup_printf ("XLA Modules - from #%" G_GINT64_FORMAT,
                                                           line->id);
          const PlanarTrack *stream = NULL, *t;
          gint64 shift_ps;

          g_array_set_clear_func (modules, expected_clear);
          g_array_set_clear_func (ops, expected_clear);
          for (guint i = 0; i < line->events->len; i++)
            {
              const RawEvent *ev = &g_array_index (line->events, RawEvent, i);
              const char *details = raw_stat (ev, "kernel_details");
              const char *module = raw_stat (ev, "hlo_module");
              const char *program_id = raw_stat (ev, "program_id");
              const char *hlo_op = raw_stat (ev, "hlo_op");
              const char *group = raw_stat (ev, "group_id");
              gint64 end_ps = ev->start_ps + ev->duration_ps;

              g_assert_null (raw_stat (ev, "scope_range_id"));
              if ((details == NULL || details[0] == '\0') &&
                  raw_stat (ev, "cuda_graph_exec_id") == NULL)
                continue;
              if (module != NULL && module[0] != '\0')
                {
                  g_autofree char *name = NULL;
                  guint before = modules->len;

                  if (program_id != NULL)
                    name = g_strdup_printf ("%s(%s)", module, program_id);
                  else
                    name = g_strdup (module);
                  expect_level (modules, open_modules, 0, name, group, ev->start_ps, end_ps);
                  /* A new module closes the open ops. */
                  if (modules->len != before)
                    close_levels (open_ops, 0);
                }
              if (hlo_op != NULL && hlo_op[0] != '\0')
                {
                  g_auto(GStrv) parts = g_strsplit (hlo_op, "::", -1);
                  guint level = 0;

                  for (guint j = 0; parts[j] != NULL; j++)
                    {
                      g_autofree char *name = NULL;

                      if (parts[j][0] == '\0')
                        continue;
                      name = g_strdup_printf ("%s/%s", program_id ? program_id : module, parts[j]);
                      expect_level (ops, open_ops, level++, name, group, ev->start_ps, end_ps);
                    }
                  close_levels (open_ops, level);
                }
            }
          close_levels (open_modules, 0);
          close_levels (open_ops, 0);

          for (guint t2 = 0; t2 < plane->n_tracks; t2++)
            if (!plane->tracks[t2].derived && plane->tracks[t2].id == line->id)
              stream = &plane->tracks[t2];
          g_assert_nonnull (stream);
          shift_ps = line->events->len > 0 ? stream->events[0].start_ps -
                                             g_array_index (line->events, RawEvent, 0).start_ps : 0;

          t = derived_track (plane, ops_name);
          if (native || ops->len == 0)
            g_assert_null (t);
          else
            {
              g_assert_nonnull (t);
              g_assert_cmpint (t->id, ==, STREAM_BASE (k) + PLANAR_DERIVED_OFFSET_XLA_OPS);
              compare_line (plane, t, ops, shift_ps);
              n_expected_lines++;
              n_checked++;
            }
          t = derived_track (plane, modules_name);
          if (native || modules->len == 0)
            g_assert_null (t);
          else
            {
              g_assert_nonnull (t);
              g_assert_cmpint (t->id, ==, STREAM_BASE (k) + PLANAR_DERIVED_OFFSET_XLA_MODULES);
              compare_line (plane, t, modules, shift_ps);
              n_expected_lines++;
            }
        }

      /* A plane with lines the profiler derived gets none of its own (the
       * TensorFlow sample has TensorFlow Ops, Name Scope and Steps). */
      if (native)
        {
          for (guint t2 = 0; t2 < plane->n_tracks; t2++)
            if (plane->tracks[t2].derived)
              {
                g_assert_false (g_str_has_prefix (plane->tracks[t2].name, "XLA"));
                g_assert_false (g_str_has_prefix (plane->tracks[t2].name, "Framework"));
                g_assert_false (g_str_has_prefix (plane->tracks[t2].name, "Steps"));
              }
        }
      else
        {
          guint n_other = 0;

          /* Besides XLA lines: Framework lines from tf_op, Steps, Launch
           * Stats; none of those are in these samples. */
          for (guint t2 = 0; t2 < plane->n_tracks; t2++)
            if (plane->tracks[t2].derived && !g_str_has_prefix (plane->tracks[t2].name, "XLA "))
              n_other++;
          g_assert_cmpuint (count_derived (plane), ==, n_expected_lines + n_other);
        }
    }
  return n_checked;
}

/* Launch flows on a sample, worked out from the events' stats: each
 * correlation id with one host event and one device event is one complete
 * flow between them; any other host or device event with an id is an end
 * of some flow. */
static void
check_sample_flows (PlanarTrace *trace)
{
  const PlanarFlowIndex *flows = planar_trace_get_flows (trace);
  g_autoptr(GHashTable) host = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GHashTable) device = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                        g_free);
  g_autoptr(GHashTable) n_host = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) n_device = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                          NULL);
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autoptr(GArray) out = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  GHashTableIter iter;
  gpointer key, value;
  gsize n_pairs = 0, n_ends = 0, n_launch_flows;

  g_assert_nonnull (flows);
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);
      gboolean is_host = strcmp (plane->name, "/host:CPU") == 0;
      gboolean is_device = g_str_has_prefix (plane->name, "/device:GPU:");

      if (!is_host && !is_device)
        continue;
      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          if (track->derived || planar_line_id_is_derived (track->id))
            continue;
          for (gsize i = 0; i < track->n_events; i++)
            {
              gint64 corr;
              PlanarEventRef *ref;
              GHashTable *ends = is_host ? host : device;
              GHashTable *counts = is_host ? n_host : n_device;
              gsize n_seen;

              if (!stat_int_value (find_stat (trace, plane, &track->events[i], stats,
                                              "correlation_id"), &corr))
                continue;
              n_seen = GPOINTER_TO_SIZE (g_hash_table_lookup (counts, &corr));
              ref = g_new (PlanarEventRef, 1);
              ref->plane = p;
              ref->track = t;
              ref->index = (guint32) i;
              g_hash_table_replace (ends, g_memdup2 (&corr, sizeof corr), ref);
              g_hash_table_replace (counts, g_memdup2 (&corr, sizeof corr),
                                    GSIZE_TO_POINTER (n_seen + 1));
              n_ends++;
            }
        }
    }

  g_hash_table_iter_init (&iter, host);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const PlanarEventRef *h = value, *d = g_hash_table_lookup (device, key);

      if (GPOINTER_TO_SIZE (g_hash_table_lookup (n_host, key)) != 1 ||
          GPOINTER_TO_SIZE (g_hash_table_lookup (n_device, key)) != 1)
        continue;
      g_assert_nonnull (d);
      /* Exactly one launch flow leaves the launch, to its kernel (the
       * event may carry other flows too). */
      g_array_set_size (out, 0);
      planar_flow_index_query_event (flows, h, out);
      {
        guint n_launch = 0;

        for (guint k = 0; k < out->len; k++)
          {
            const PlanarFlow *fl = &g_array_index (out, PlanarFlow, k);

            if (fl->category != PLANAR_FLOW_CATEGORY_GPU_LAUNCH)
              continue;
            n_launch++;
            g_assert_cmpuint (fl->from.index, ==, h->index);
            g_assert_cmpuint (fl->to.plane, ==, d->plane);
            g_assert_cmpuint (fl->to.track, ==, d->track);
            g_assert_cmpuint (fl->to.index, ==, d->index);
          }
        g_assert_cmpuint (n_launch, ==, 1);
      }
      n_pairs++;
    }
  n_launch_flows = planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH) +
                   planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH);
  g_test_message ("%zu launch ends, %zu one-to-one pairs, %zu launch flows", n_ends, n_pairs,
                  n_launch_flows);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), >=,
                    n_pairs);
  /* Every end is in one flow at least, and a complete flow holds two. */
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH) * 2 +
                    planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH),
                    >=, n_ends);
  if (n_ends > 0)
    g_assert_cmpuint (n_pairs, >, 0);
}

/* Every window query returns exactly the flows a linear scan finds. */
static void
check_range_queries (const PlanarFlowIndex *flows,
                     guint                  category,
                     gint64                 t_min,
                     gint64                 t_max)
{
  g_autoptr(GArray) out = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  GRand *rand = g_rand_new_with_seed (7);
  gsize n = planar_flow_index_get_n_flows (flows);

  for (guint q = 0; q < 40; q++)
    {
      gint64 t0 = t_min + (gint64) (g_rand_double (rand) * (double) (t_max - t_min));
      double span = (double) (t_max - t_min) / (q % 4 == 0 ? 2 : 200);
      gint64 t1 = t0 + (gint64) (g_rand_double (rand) * span);
      gsize expected = 0;
      gint64 last_lo = G_MININT64;

      for (gsize i = 0; i < n; i++)
        {
          PlanarFlow fl;

          planar_flow_index_get_flow (flows, i, &fl);
          if (category != PLANAR_FLOW_CATEGORY_ALL && fl.category != category)
            continue;
          if (MIN (fl.from_ps, fl.to_ps) <= t1 && MAX (fl.from_ps, fl.to_ps) >= t0)
            expected++;
        }
      g_array_set_size (out, 0);
      g_assert_cmpuint (planar_flow_index_query_range (flows, category, t0, t1, out), ==, expected);
      for (guint i = 0; i < out->len; i++)
        {
          const PlanarFlow *fl = &g_array_index (out, PlanarFlow, i);

          g_assert_cmpint (MIN (fl->from_ps, fl->to_ps), >=, last_lo);
          last_lo = MIN (fl->from_ps, fl->to_ps);
        }
    }
  g_rand_free (rand);
}

static void
test_samples (void)
{
  g_autoptr(GPtrArray) paths = planar_test_list_samples (".xplane.pb");
  guint n_xla_lines = 0;

  if (paths == NULL)
    return;
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autofree char *contents = NULL;
      gsize size;
      g_autoptr(GError) error = NULL;
      g_autoptr(PlanarTrace) trace = NULL;
      g_autoptr(PlanarTrace) again = NULL;
      XSpace *space;
      guint64 n_events = 0;
      gint64 first, last;

      g_test_message ("%s", path);
      g_file_get_contents (path, &contents, &size, &error);
      g_assert_no_error (error);
      space = tensorflow__profiler__xspace__unpack (NULL, size, (const uint8_t *) contents);
      g_assert_nonnull (space);
      trace = planar_test_load_ok (path);
      planar_test_check_prediction (path, trace);
      g_assert_cmpuint (planar_trace_get_n_planes (trace), ==, space->n_planes);
      check_derived_tracks (trace);

      /* Derivation adds no event to any count. */
      for (gsize p = 0; p < space->n_planes; p++)
        {
          guint64 plane_events = 0;

          for (gsize l = 0; l < space->planes[p]->n_lines; l++)
            plane_events += space->planes[p]->lines[l]->n_events;
          g_assert_cmpuint (planar_trace_get_plane (trace, (guint) p)->n_events, ==, plane_events);
          n_events += plane_events;
        }
      g_assert_cmpuint (planar_trace_get_n_events (trace), ==, n_events);

      n_xla_lines += check_sample_xla_lines (trace, space);
      check_sample_flows (trace);
      if (planar_trace_get_span (trace, &first, &last))
        {
          check_range_queries (planar_trace_get_flows (trace), PLANAR_FLOW_CATEGORY_ALL, first,
                               last);
          check_range_queries (planar_trace_get_flows (trace), PLANAR_FLOW_CATEGORY_GPU_LAUNCH,
                               first, last);
        }
      g_assert_cmpuint (planar_trace_get_n_dropped_derived_lines (trace), ==, 0);

      /* Deterministic: a second load derives the same. */
      again = planar_test_load_ok (path);
      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *a = planar_trace_get_plane (trace, p);
          const PlanarPlane *b = planar_trace_get_plane (again, p);

          g_assert_cmpuint (a->n_tracks, ==, b->n_tracks);
          for (guint t = 0; t < a->n_tracks; t++)
            {
              g_assert_cmpstr (a->tracks[t].name, ==, b->tracks[t].name);
              g_assert_cmpuint (a->tracks[t].n_events, ==, b->tracks[t].n_events);
              for (gsize e = 0; e < a->tracks[t].n_events; e++)
                {
                  g_assert_cmpint (a->tracks[t].events[e].start_ps, ==,
                                   b->tracks[t].events[e].start_ps);
                  g_assert_cmpstr (event_name (a, &a->tracks[t], e), ==,
                                   event_name (b, &b->tracks[t], e));
                }
            }
        }
      g_assert_cmpuint (planar_flow_index_get_n_flows (planar_trace_get_flows (trace)), ==,
                        planar_flow_index_get_n_flows (planar_trace_get_flows (again)));
      for (gsize k = 0; k < planar_flow_index_get_n_flows (planar_trace_get_flows (trace)); k++)
        {
          PlanarFlow x, y;

          planar_flow_index_get_flow (planar_trace_get_flows (trace), k, &x);
          planar_flow_index_get_flow (planar_trace_get_flows (again), k, &y);
          g_assert_true (memcmp (&x.from, &y.from, sizeof x.from) == 0);
          g_assert_true (memcmp (&x.to, &y.to, sizeof x.to) == 0);
          g_assert_cmpuint (x.id, ==, y.id);
        }

      tensorflow__profiler__xspace__free_unpacked (space, NULL);
    }
  /* The JAX samples have XLA kernels: a test that checked none would pass
   * for nothing. */
  g_assert_cmpuint (n_xla_lines, >=, 2);
}

/* A generated profile: counter columns and flow windows against linear
 * scans, on a few thousand samples and flows. */
static void
test_generated (Fixture       *f,
                gconstpointer  data)
{
  const char *gen = g_getenv ("PLANAR_GEN");
  g_autofree char *path = g_build_filename (f->dir, "gen.xplane.pb", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarCounterSet *counters;
  const PlanarFlowIndex *flows;
  int status;
  gint64 first, last;
  const char *argv[] = { gen, "-n", "60000", "-o", path, NULL };

  g_assert_nonnull (gen);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  trace = planar_test_load_ok (path);
  planar_test_check_prediction (path, trace);
  check_derived_tracks (trace);
  g_assert_true (planar_trace_get_span (trace, &first, &last));

  flows = planar_trace_get_flows (trace);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH), >,
                    1000);
  check_sample_flows (trace);
  check_range_queries (flows, PLANAR_FLOW_CATEGORY_ALL, first, last);

  counters = planar_trace_get_counters (trace);
  g_assert_cmpuint (planar_counter_set_get_n_series (counters), >, 0);
  for (guint s = 0; s < planar_counter_set_get_n_series (counters); s++)
    {
      const PlanarCounterSeries *series = planar_counter_set_get_series (counters, s);

      g_assert_cmpuint (planar_counter_series_get_n_samples (series), >, 100);
      for (guint q = 0; q < 6; q++)
        {
          /* From one sample per many columns to many samples per column. */
          gint64 width = MAX ((last - first) / (q == 0 ? 3 : q == 1 ? 30000 : 300 * q), 1);

          check_columns (series, first + (last - first) / 7 * q - width * 5, width, 300);
        }
    }
}

/* planar-gen's profile without group ids (as JAX writes them) has the
 * same Steps as the one whose GPU events carry them, from its host's step
 * roots alone, the same XLA lines (cut at each step), and Launch Stats
 * for each step. */
static void
test_generated_without_group_ids (Fixture       *f,
                                  gconstpointer  data)
{
  const char *gen = g_getenv ("PLANAR_GEN");
  g_autofree char *with_ids = g_build_filename (f->dir, "with.xplane.pb", NULL);
  g_autofree char *without_ids = g_build_filename (f->dir, "without.xplane.pb", NULL);
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autoptr(PlanarTrace) a = NULL;
  g_autoptr(PlanarTrace) b = NULL;
  const char *argv_with[] = { gen, "-n", "60000", "-o", with_ids, NULL };
  const char *argv_without[] = { gen, "-n", "60000", "--no-group-ids", "-o", without_ids, NULL };
  const char *const *argvs[] = { argv_with, argv_without };

  g_assert_nonnull (gen);
  for (guint i = 0; i < G_N_ELEMENTS (argvs); i++)
    {
      g_autoptr(GError) error = NULL;
      int status;

      g_spawn_sync (NULL, (char **) argvs[i], NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                    &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
    }
  a = planar_test_load_ok (with_ids);
  b = planar_test_load_ok (without_ids);
  planar_test_check_prediction (without_ids, b);
  check_derived_tracks (b);

  for (guint g = 0; g < 2; g++)
    {
      g_autofree char *name = g_strdup_printf ("/device:GPU:%u", g);
      const PlanarPlane *pa = planar_trace_find_plane (a, name);
      const PlanarPlane *pb = planar_trace_find_plane (b, name);
      const PlanarTrack *sa = derived_track (pa, "Steps");
      const PlanarTrack *sb = derived_track (pb, "Steps");
      const PlanarTrack *launch = derived_track (pb, "Launch Stats");

      g_assert_nonnull (sa);
      g_assert_nonnull (sb);
      g_assert_cmpuint (sb->n_events, ==, sa->n_events);
      g_assert_cmpuint (sb->n_events, >, 10);
      for (gsize i = 0; i < sb->n_events; i++)
        {
          g_autofree char *expected = g_strdup_printf ("train_step %" G_GSIZE_FORMAT, i);
          g_autofree char *text = NULL;

          g_assert_cmpint (sb->events[i].start_ps, ==, sa->events[i].start_ps);
          g_assert_cmpint (sb->events[i].duration_ps, ==, sa->events[i].duration_ps);
          g_assert_cmpstr (event_name (pb, sb, i), ==, event_name (pa, sa, i));
          g_assert_cmpstr (event_display_name (pb, sb, i), ==, expected);
          text = stat_text (find_stat (b, pb, &sb->events[i], stats, "step_name"));
          g_assert_cmpstr (text, ==, expected);
        }
      /* Every other derived line alike, event for event. */
      for (guint t = 0; t < pa->n_tracks; t++)
        {
          const PlanarTrack *ta = &pa->tracks[t];
          const PlanarTrack *tb = derived_track (pb, ta->name);

          if (!ta->derived)
            continue;
          g_assert_nonnull (tb);
          g_assert_cmpuint (tb->n_events, ==, ta->n_events);
          for (gsize i = 0; i < ta->n_events; i++)
            {
              g_assert_cmpint (tb->events[i].start_ps, ==, ta->events[i].start_ps);
              g_assert_cmpint (tb->events[i].duration_ps, ==, ta->events[i].duration_ps);
              g_assert_cmpstr (event_name (pb, tb, i), ==, event_name (pa, ta, i));
            }
        }
      /* The file's host launches carry no group: only the worked-out
       * groups give Launch Stats. */
      g_assert_null (derived_track (pa, "Launch Stats"));
      g_assert_nonnull (launch);
      g_assert_cmpuint (launch->n_events, ==, sb->n_events);
    }
}

/* A stream whose program starts late (a warm-up of 300 plain kernels
 * before the first annotated one): its XLA lines are told before the pass
 * all the same, with their depths. */
static void
test_late_annotations (Fixture       *f,
                       gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;

  planar_test_add_task_environment (space, 1000);
  for (gint64 i = 0; i < 300; i++)
    add_kernel (gpu, stream, i * 100, 10, NULL, -1, NULL, -1);
  add_kernel (gpu, stream, 40000, 10, "jit_f", 42, "fusion.1", -1);
  add_kernel (gpu, stream, 40100, 10, "jit_f", 42, "while.3::body.4", -1);
  builder_done (gpu);

  path = planar_test_write_space (space, f->dir, "late.xplane.pb");
  trace = planar_test_load_ok (path);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_nonnull (planar_plane_find_track (plane, "XLA Ops - from #7"));
  g_assert_cmpuint (planar_plane_find_track (plane, "XLA Ops - from #7")->max_depth, ==, 1);
  g_assert_nonnull (planar_plane_find_track (plane, "XLA Modules - from #7"));
  planar_test_check_prediction (path, trace);
}

/* ------------------------------------------------------------------------ */
/* Ids a file chooses to collide */

/* How a file numbers the group ids, correlation ids and scope ranges its
 * stats carry: 1, 2, 3... as writers do, or as a hostile file could, to
 * make them collide in a hash that keeps some of their bits: k << 32 (the
 * same low 32 bits) and k << 32 | k (the same once the halves are xored). */
static const char * const collide_kinds[] = { "1, 2, 3", "k << 32", "k << 32 | k" };

static gint64
collide_id (guint  kind,
            gint64 k)
{
  return kind == 1 ? k << 32 : kind == 2 ? k << 32 | k : k;
}

/* The shape of what a load of @n groups derived, for comparing loads. */
typedef struct
{
  guint64 steps;
  gsize   n_steps;
  gsize   n_launch_stats;
  guint   n_gpu_derived;
  gsize   n_flows;
  gsize   n_complete;
} DerivedShape;

/* A host of @n step groups (ids of @kind), each named by a root event
 * ("train" with _r) and holding one launch of a kernel on GPU 0 (the
 * kernel carries the group and the launch's correlation id), and a scope
 * range tree of @n ranges: loads it and returns what was derived and the
 * steps the load took (_planar_trace_get_steps()). */
static DerivedShape
load_colliding (const char *dir,
                guint       n,
                guint       kind)
{
  XSpace *space = planar_test_space_new ();
  Builder *host = builder_new (space, 0, "/host:CPU");
  Builder *gpu = builder_new (space, 0, "/device:GPU:0");
  XPlane *scopes = planar_test_space_add_plane (space, 9, "/host:__ScopeRangeCallStack__");
  XLine *thread = planar_test_plane_add_line (host->plane, 100, "python", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *name = g_strdup_printf ("ids-%u-%u.xplane.pb", kind, n);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarFlowIndex *flows;
  DerivedShape shape = { 0 };

  planar_test_add_task_environment (space, 1000);
  for (gint64 k = 1; k <= n; k++)
    {
      gint64 id = collide_id (kind, k);
      XEvent *ev;

      ev = add_event (host, thread, "train", k * 1000000, 100000);
      add_int (host, ev, "_r", 1);
      add_int (host, ev, "group_id", id);
      add_int (host, ev, "iter_num", k);
      ev = add_event (host, thread, "LaunchKernel", k * 1000000 + 1000, 10000);
      add_uint (host, ev, "device_id", 0);
      add_uint (host, ev, "correlation_id", (guint64) id);
      add_int (host, ev, "group_id", id);
      ev = add_kernel (gpu, stream, k * 1000000 + 50000, 10000, NULL, -1, NULL, id);
      add_uint (gpu, ev, "correlation_id", (guint64) id);
      PLANAR_TEST_APPEND (scopes->stats, scopes->n_stats,
                          planar_test_stat_uint (id, (guint64) collide_id (kind, k + n)));
    }
  builder_done (host);
  builder_done (gpu);

  path = planar_test_write_space (space, dir, name);
  trace = planar_test_load_ok (path);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  shape.steps = _planar_trace_get_steps (trace);
  shape.n_steps = derived_track (plane, "Steps") != NULL ? derived_track (plane, "Steps")->n_events : 0;
  shape.n_launch_stats = derived_track (plane, "Launch Stats") != NULL
                         ? derived_track (plane, "Launch Stats")->n_events : 0;
  shape.n_gpu_derived = count_derived (plane);
  flows = planar_trace_get_flows (trace);
  g_assert_nonnull (flows);
  shape.n_flows = planar_flow_index_get_n_flows (flows);
  shape.n_complete = planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_GPU_LAUNCH);
  g_test_message ("%u groups of ids %s: %" G_GUINT64_FORMAT " steps, %.1f each", n,
                  collide_kinds[kind], shape.steps, (double) shape.steps / n);
  return shape;
}

/* The derive's tables of ids a file chooses (step groups and their
 * launches per GPU, the scope range tree) take work in proportion to the
 * ids, however the file numbers them: ids chosen to collide in a weak hash
 * (g_int64_hash() keeps the low 32 bits) take about the steps of 1, 2,
 * 3..., not their square; and derive the same lines and flows. */
static void
test_colliding_ids (Fixture       *f,
                    gconstpointer  data)
{
  const guint n = 2000;
  DerivedShape dense = load_colliding (f->dir, n, 0);

  g_assert_cmpuint (dense.n_steps, ==, n);
  g_assert_cmpuint (dense.n_launch_stats, ==, n);
  g_assert_cmpuint (dense.n_flows, ==, n);
  g_assert_cmpuint (dense.n_complete, ==, n);
  g_assert_cmpuint (dense.steps, >=, n);
  for (guint kind = 1; kind < G_N_ELEMENTS (collide_kinds); kind++)
    {
      DerivedShape other = load_colliding (f->dir, n, kind);

      g_assert_cmpuint (other.n_steps, ==, dense.n_steps);
      g_assert_cmpuint (other.n_launch_stats, ==, dense.n_launch_stats);
      g_assert_cmpuint (other.n_gpu_derived, ==, dense.n_gpu_derived);
      g_assert_cmpuint (other.n_flows, ==, dense.n_flows);
      g_assert_cmpuint (other.n_complete, ==, dense.n_complete);
      {
        g_autofree char *what = g_strdup_printf ("deriving groups of ids %s against 1, 2, 3", collide_kinds[kind]);

        planar_test_check_like (n, dense.steps, other.steps, what);
      }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, planar_test_fixture_setup, func, planar_test_fixture_teardown)
  ADD ("/derive/xla-lines", test_xla_lines);
  ADD ("/derive/stream-order", test_stream_order);
  ADD ("/derive/framework-lines", test_framework_lines);
  ADD ("/derive/dependent-lines", test_dependent_lines);
  ADD ("/derive/steps-and-launch-stats", test_steps_and_launch_stats);
  ADD ("/derive/steps-from-root-events", test_steps_from_root_events);
  ADD ("/derive/steps-from-root-events-contexts", test_steps_from_root_events_contexts);
  ADD ("/derive/steps-from-root-events-deep", test_steps_from_root_events_deep);
  ADD ("/derive/native-lines", test_native_lines);
  ADD ("/derive/tpu-lines", test_tpu_lines);
  ADD ("/derive/capacity", test_capacity);
  ADD ("/derive/budget", test_budget);
  ADD ("/derive/flows", test_flows);
  ADD ("/derive/flows-sparse-ids", test_flows_sparse_ids);
  ADD ("/derive/counters", test_counters);
  ADD ("/derive/late-annotations", test_late_annotations);
  ADD ("/derive/counter-columns", test_counter_columns);
  ADD ("/derive/internal-events", test_internal_events);
  ADD ("/derive/generated", test_generated);
  ADD ("/derive/generated-without-group-ids", test_generated_without_group_ids);
  ADD ("/derive/colliding-ids", test_colliding_ids);
  ADD ("/derive/colliding-group-ids", test_colliding_group_ids);
#undef ADD
  g_test_add_func ("/derive/samples", test_samples);

  return g_test_run ();
}
