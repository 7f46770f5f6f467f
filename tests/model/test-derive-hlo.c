/* test-derive-hlo.c: what the model derives through the HLO of
 * `/host:metadata` on GPU planes (XProf's DeriveEventsFromAnnotations with
 * its symbol resolver): per stream Framework Name Scope, Framework Ops and
 * Source code from each XLA op's HLO instruction, asynchronous ops left
 * out, unresolved ones without; the event resolution of planar-hlo.h;
 * damaged HloProtos in Trace Health.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-test-hlo.h"
#include "planar-test-xspace.h"

#include <string.h>

#define derived_track planar_test_derived_track
#define add_ref planar_test_named_plane_add_ref

typedef PlanarTestFixture Fixture;
typedef PlanarTestPlane Builder;

static void
stat_add (XEvent *ev,
          XStat  *stat)
{
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, stat);
}

/* A kernel of XLA op @hlo_op of program @program_id, with JAX's
 * placeholder tf_op. */
static XEvent *
add_xla_kernel (Builder    *b,
                XLine      *line,
                gint64      offset_ps,
                gint64      duration_ps,
                gint64      program_id,
                const char *hlo_op)
{
  XEvent *ev = planar_test_line_add_event (line, planar_test_named_plane_event_id (b, "kernel.kd"), offset_ps,
                                           duration_ps);

  add_ref (b, ev, "kernel_details", "grid:1,1,1 block:64,1,1");
  add_ref (b, ev, "tf_op", "XlaModule:");
  add_ref (b, ev, "hlo_module", "jit_f");
  stat_add (ev, planar_test_stat_uint (planar_test_named_plane_stat_id (b, "program_id"), (guint64) program_id));
  add_ref (b, ev, "hlo_op", hlo_op);
  return ev;
}

static GByteArray *
module_f (void)
{
  static const PlanarTestHloIns ins[] = {
    { "fusion.1", "fusion", 1, 11, { 8 }, 1, NULL, 0, NULL, 0, "", "jit(f)/layer/add", "/src/train.py", 10 },
    { "dot.2", "dot", 2, 11, { 8 }, 1, NULL, 0, NULL, 0, "", "jit(f)/layer/dot_general", "/src/train.py", 11 },
    /* No source file: no Source code event (XProf shows none). */
    { "custom-call.3", "custom-call", 3, 11, { 8 }, 1, NULL, 0, NULL, 0, "", "jit(f)/attn", NULL, 0 },
    { "add.4", "add", 4, 11, { 8 }, 1, NULL, 0, NULL, 0, "", "jit(f)/layer/add", "/src/train.py", 10 },
  };

  return planar_test_hlo_simple ("jit_f", 3, ins, G_N_ELEMENTS (ins));
}

static const PlanarLine *
find_line (const PlanarPlane *plane,
           const char        *name)
{
  for (guint l = 0; l < plane->n_lines; l++)
    if (strcmp (plane->lines[l].name, name) == 0)
      return &plane->lines[l];
  return NULL;
}

static void
assert_event (const PlanarPlane *plane,
              const PlanarTrack *track,
              gsize              i,
              const char        *name,
              const char        *display,
              gint64             start_ps,
              gint64             end_ps)
{
  const PlanarEvent *ev;

  g_assert_cmpuint (i, <, track->n_events);
  ev = &track->events[i];
  g_assert_cmpstr (planar_plane_get_event_name (plane, ev, FALSE), ==, name);
  if (display != NULL)
    g_assert_cmpstr (planar_plane_get_event_name (plane, ev, TRUE), ==, display);
  g_assert_cmpint (ev->start_ps, ==, start_ps);
  g_assert_cmpint (ev->start_ps + ev->duration_ps, ==, end_ps);
}

static void
test_gpu_lines (Fixture       *f,
                gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(GByteArray) proto = module_f ();
  const gint64 ids[] = { 3 };
  GByteArray *protos[] = { proto };
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *ops, *scopes, *source, *kernels;
  PlanarHloResolution res;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  add_xla_kernel (gpu, stream, 0, 10, 3, "fusion.1");
  /* Another instruction of the same framework op and line: merged. */
  add_xla_kernel (gpu, stream, 20, 10, 3, "add.4");
  add_xla_kernel (gpu, stream, 40, 10, 3, "dot.2");
  /* An asynchronous op (`_a` on its metadata): left out of both lines. */
  ev = add_xla_kernel (gpu, stream, 60, 10, 3, "custom-call.3");
  stat_add (ev, planar_test_stat_int (planar_test_named_plane_stat_id (gpu, "_a"), 1));
  add_xla_kernel (gpu, stream, 80, 10, 3, "custom-call.3");
  /* `_a` on the event's metadata: left out too. */
  {
    XEventMetadata *md = planar_test_plane_add_event_metadata (gpu->plane, 500, "async.kd", NULL);
    XEvent *async;

    PLANAR_TEST_APPEND (md->stats, md->n_stats,
                        planar_test_stat_int (planar_test_named_plane_stat_id (gpu, "_a"), 1));
    async = planar_test_line_add_event (stream, 500, 92, 4);
    add_ref (gpu, async, "kernel_details", "grid:1,1,1 block:64,1,1");
    add_ref (gpu, async, "hlo_module", "jit_f");
    stat_add (async, planar_test_stat_uint (planar_test_named_plane_stat_id (gpu, "program_id"), 3));
    add_ref (gpu, async, "hlo_op", "dot.2");
  }
  /* Unknown instruction, unknown program: nothing (XProf falls back to
   * no tf_op for an XLA op). */
  add_xla_kernel (gpu, stream, 100, 10, 3, "fusion.9");
  add_xla_kernel (gpu, stream, 120, 10, 4, "fusion.1");
  /* Nested levels: the innermost names the instruction. */
  add_xla_kernel (gpu, stream, 140, 10, 3, "while.1::dot.2");
  planar_test_named_plane_done (gpu);
  planar_test_hlo_add_metadata_plane (space, ids, protos, 1);

  path = planar_test_write_space (space, f->dir, "hlo.xplane.pb");
  trace = planar_test_load_ok (path);
  g_assert_nonnull (planar_trace_get_hlo_index (trace));
  g_assert_null (planar_trace_get_hlo_errors (trace)[0]);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");

  ops = derived_track (plane, "Framework Ops - from #7");
  scopes = derived_track (plane, "Framework Name Scope - from #7");
  source = derived_track (plane, "Source code - from #7");
  g_assert_nonnull (ops);
  g_assert_nonnull (scopes);
  g_assert_nonnull (source);
  g_assert_cmpint (source->id, ==, PLANAR_LINE_ID_DEVICE_DERIVED_MIN + PLANAR_DERIVED_OFFSET_SOURCE_CODE);
  /* XProf's display order: the stream, then its five lines in id order,
   * numbered one after the other. */
  g_assert_cmpint (find_line (plane, "Framework Name Scope - from #7")->display_id, ==, 2);
  g_assert_cmpint (find_line (plane, "Framework Ops - from #7")->display_id, ==, 3);
  g_assert_cmpint (find_line (plane, "XLA Modules - from #7")->display_id, ==, 4);
  g_assert_cmpint (find_line (plane, "XLA Ops - from #7")->display_id, ==, 5);
  g_assert_cmpint (find_line (plane, "Source code - from #7")->display_id, ==, 6);

  /* op_full_name "op_name:op_type" (JAX: empty type), shown by its op. */
  g_assert_cmpuint (ops->n_events, ==, 4);
  assert_event (plane, ops, 0, "jit(f)/layer/add:", "add", 0, 30);
  assert_event (plane, ops, 1, "jit(f)/layer/dot_general:", "dot_general", 40, 50);
  assert_event (plane, ops, 2, "jit(f)/attn:", "attn", 80, 90);
  assert_event (plane, ops, 3, "jit(f)/layer/dot_general:", "dot_general", 140, 150);

  /* jit(f) over the ops resolved, layer under it where ops have it; the
   * kernel of program 4 is another XLA module, which closes them (XProf's
   * dependent lines), so the last op opens them again. */
  g_assert_cmpuint (scopes->n_events, ==, 4);
  assert_event (plane, scopes, 0, "jit(f)", NULL, 0, 90);
  assert_event (plane, scopes, 1, "layer", NULL, 0, 50);
  g_assert_cmpuint (scopes->events[1].depth, ==, 1);
  assert_event (plane, scopes, 2, "jit(f)", NULL, 140, 150);
  assert_event (plane, scopes, 3, "layer", NULL, 140, 150);

  /* Source code depends on no other line: the ops between without a
   * source (attn) or of another module do not close train.py:11, as in
   * XProf. */
  g_assert_cmpuint (source->n_events, ==, 2);
  assert_event (plane, source, 0, "train.py:10", NULL, 0, 30);
  assert_event (plane, source, 1, "train.py:11", NULL, 40, 150);

  /* The model's resolution of one event. */
  kernels = &plane->tracks[0];
  g_assert_cmpuint (kernels->n_events, ==, 9);
  g_assert_true (planar_trace_resolve_hlo (trace, plane, &kernels->events[2], &res));
  g_assert_cmpstr (res.instruction->name, ==, "dot.2");
  g_assert_cmpstr (res.module->name, ==, "jit_f");
  g_assert_true (res.has_program_id);
  g_assert_cmpuint (res.program_id, ==, 3);
  /* (The async kernel of event metadata 500 is event 5; it resolves.) */
  g_assert_true (planar_trace_resolve_hlo (trace, plane, &kernels->events[5], &res));
  g_assert_cmpstr (res.instruction->name, ==, "dot.2");
  g_assert_false (planar_trace_resolve_hlo (trace, plane, &kernels->events[6], &res));
  g_assert_false (planar_trace_resolve_hlo (trace, plane, &kernels->events[7], &res));
  g_assert_true (planar_trace_resolve_hlo (trace, plane, &kernels->events[8], &res));
  g_assert_cmpstr (res.instruction->name, ==, "dot.2");
  /* A derived XLA Ops event resolves through its metadata's stats. */
  {
    const PlanarTrack *xla = derived_track (plane, "XLA Ops - from #7");

    g_assert_true (planar_trace_resolve_hlo (trace, plane, &xla->events[0], &res));
    g_assert_cmpstr (res.instruction->name, ==, "fusion.1");
  }
}

/* JAX 0.11's metadata plane: the event metadata numbered 1, 2, 3, the
 * program id only in its `program_id` stat (and in its name), as a real
 * H100 profile has it. The kernels of program 2653 still resolve. */
static void
test_program_id_stat (Fixture       *f,
                      gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 14, "Stream #14(Compute)", 0);
  g_autoptr(GByteArray) proto = module_f ();
  g_autoptr(GByteArray) other = module_f ();
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *ops;
  PlanarHloResolution res;
  XPlane *metadata;
  XEventMetadata *md;

  planar_test_add_task_environment (space, 1000);
  add_xla_kernel (gpu, stream, 0, 10, 2653, "dot.2");
  add_xla_kernel (gpu, stream, 20, 10, 2653, "fusion.1");
  planar_test_named_plane_done (gpu);
  metadata = planar_test_space_add_plane (space, 99, "/host:metadata");
  planar_test_plane_add_stat_metadata (metadata, 9, "Hlo Proto");
  planar_test_plane_add_stat_metadata (metadata, 10, "program_id");
  /* Metadata 1 is another program (1325); metadata 2653, which the old
   * reading would have taken for program 2653, is none. */
  md = planar_test_plane_add_event_metadata (metadata, 1, "jit_g(1325)", NULL);
  PLANAR_TEST_APPEND (md->stats, md->n_stats, planar_test_stat_bytes (9, other->data, other->len));
  PLANAR_TEST_APPEND (md->stats, md->n_stats, planar_test_stat_uint (10, 1325));
  md = planar_test_plane_add_event_metadata (metadata, 5, "jit_f(2653)", NULL);
  PLANAR_TEST_APPEND (md->stats, md->n_stats, planar_test_stat_bytes (9, proto->data, proto->len));
  PLANAR_TEST_APPEND (md->stats, md->n_stats, planar_test_stat_uint (10, 2653));

  path = planar_test_write_space (space, f->dir, "jax011.xplane.pb");
  trace = planar_test_load_ok (path);
  g_assert_cmpuint (planar_hlo_index_get_n_modules (planar_trace_get_hlo_index (trace)), ==, 2);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_true (planar_trace_resolve_hlo (trace, plane, &plane->tracks[0].events[0], &res));
  g_assert_cmpstr (res.instruction->name, ==, "dot.2");
  g_assert_cmpuint (res.program_id, ==, 2653);
  ops = derived_track (plane, "Framework Ops - from #14");
  g_assert_nonnull (ops);
  g_assert_cmpuint (ops->n_events, ==, 2);
  assert_event (plane, ops, 0, "jit(f)/layer/dot_general:", "dot_general", 0, 10);
  g_assert_nonnull (derived_track (plane, "Source code - from #14"));
}

/* Without an HLO the XLA ops get no framework op, as before. */
static void
test_no_hlo (Fixture       *f,
             gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;

  planar_test_add_task_environment (space, 1000);
  add_xla_kernel (gpu, stream, 0, 10, 3, "fusion.1");
  planar_test_named_plane_done (gpu);
  path = planar_test_write_space (space, f->dir, "nohlo.xplane.pb");
  trace = planar_test_load_ok (path);
  g_assert_cmpuint (planar_hlo_index_get_n_modules (planar_trace_get_hlo_index (trace)), ==, 0);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_null (derived_track (plane, "Framework Ops - from #7"));
  g_assert_null (derived_track (plane, "Source code - from #7"));
  g_assert_nonnull (derived_track (plane, "XLA Ops - from #7"));
}

/* A damaged HloProto beside a good one: the good one is used, the damaged
 * one named in Trace Health; the load succeeds. */
static void
test_damaged_hlo (Fixture       *f,
                  gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Builder *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(GByteArray) good = module_f ();
  g_autoptr(GByteArray) cut = module_f ();
  const gint64 ids[] = { 3, 5 };
  GByteArray *protos[] = { good, cut };
  g_autofree char *path = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GPtrArray) issues = NULL;
  g_autoptr(GError) error = NULL;
  const char *paths[2] = { NULL, NULL };
  const char * const *errors;
  PlanarTrace *trace;
  gboolean found = FALSE;

  g_byte_array_set_size (cut, cut->len - 7);
  planar_test_add_task_environment (space, 1000);
  add_xla_kernel (gpu, stream, 0, 10, 3, "fusion.1");
  add_xla_kernel (gpu, stream, 20, 10, 5, "fusion.1");
  planar_test_named_plane_done (gpu);
  planar_test_hlo_add_metadata_plane (space, ids, protos, 2);
  path = planar_test_write_space (space, f->dir, "damaged.xplane.pb");

  paths[0] = path;
  profile = planar_profile_new (paths);
  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  trace = planar_profile_get_trace (profile, 0);
  errors = planar_trace_get_hlo_errors (trace);
  g_assert_nonnull (errors[0]);
  g_assert_null (errors[1]);
  g_assert_nonnull (strstr (errors[0], "program 5"));
  g_assert_nonnull (planar_hlo_index_find_module (planar_trace_get_hlo_index (trace), 3));
  g_assert_null (planar_hlo_index_find_module (planar_trace_get_hlo_index (trace), 5));
  g_assert_nonnull (derived_track (planar_trace_find_plane (trace, "/device:GPU:0"), "Framework Ops - from #7"));

  issues = planar_health_check (profile, NULL);
  for (guint i = 0; i < issues->len; i++)
    {
      const PlanarHealthIssue *issue = g_ptr_array_index (issues, i);

      if (g_strcmp0 (issue->kind, "damaged-hlo") == 0)
        {
          g_assert_cmpint (issue->severity, ==, PLANAR_HEALTH_WARNING);
          g_assert_nonnull (strstr (issue->message, "program 5"));
          found = TRUE;
        }
    }
  g_assert_true (found);
}

/* A kernel named @name of @hlo_op in program 3. */
static void
add_named_kernel (Builder    *b,
                  XLine      *line,
                  const char *name,
                  gint64      offset_ps,
                  gint64      duration_ps,
                  const char *hlo_op)
{
  XEvent *ev = planar_test_line_add_event (line, planar_test_named_plane_event_id (b, name), offset_ps,
                                           duration_ps);

  add_ref (b, ev, "kernel_details", "grid:1,1,1 block:64,1,1");
  add_ref (b, ev, "tf_op", "XlaModule:");
  add_ref (b, ev, "hlo_module", "jit_f");
  stat_add (ev, planar_test_stat_uint (planar_test_named_plane_stat_id (b, "program_id"), 3));
  add_ref (b, ev, "hlo_op", hlo_op);
}

/* Ends @gpu's plane, adds program 3 of @ins on /host:metadata, writes
 * @space as @file in the fixture's folder (@path receives where) and loads
 * it. */
static PlanarTrace *
load_with_module (Fixture                *f,
                  XSpace                 *space,
                  Builder                *gpu,
                  const PlanarTestHloIns *ins,
                  gsize                   n_ins,
                  const char             *file,
                  char                  **path)
{
  g_autoptr(GByteArray) proto = planar_test_hlo_simple ("jit_f", 3, ins, n_ins);
  const gint64 ids[] = { 3 };
  GByteArray *protos[] = { proto };

  planar_test_named_plane_done (gpu);
  planar_test_hlo_add_metadata_plane (space, ids, protos, 1);
  *path = planar_test_write_space (space, f->dir, file);
  return planar_test_load_ok (*path);
}

static const PlanarAggregate *
row_named (GArray     *rows,
           const char *name)
{
  for (guint i = 0; i < rows->len; i++)
    if (strcmp (g_array_index (rows, PlanarAggregate, i).name, name) == 0)
      return &g_array_index (rows, PlanarAggregate, i);
  return NULL;
}

/* An instruction that ran as three kernels (as TransformerEngine's
 * attention does): its FLOPs and bytes are the instruction's, once per
 * execution; the rate is over the three kernels' summed time, in the
 * details (PlanarOpInfo) as in Op Stats. The same instruction after
 * another one, or its same kernel again (a loop), is another execution. */
static void
test_kernels_of_one_instruction (Fixture       *f,
                                 gconstpointer  data)
{
  static const gint64 add_ops[] = { 1, 2 }, mul_ops[] = { 3, 2 };
  static const PlanarTestHloIns ins[] = {
    { "p0", "parameter", 1, 11, { 1024 }, 1 },
    { "p1", "parameter", 2, 11, { 1024 }, 1, .parameter_number = 1 },
    { "add.3", "add", 3, 11, { 1024 }, 1, add_ops, 2, NULL, 0, "", "jit(f)/attn", "/src/train.py", 10 },
    { "multiply.4", "multiply", 4, 11, { 1024 }, 1, mul_ops, 2, NULL, 0, "", "jit(f)/scale", "/src/train.py", 11 },
  };
  XSpace *space = planar_test_space_new ();
  Builder *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  /* Per kernel: the run's kernels and time. */
  static const struct { guint n; gint64 ps; } expect[] = {
    { 3, 60 }, { 3, 60 }, { 3, 60 }, { 1, 10 }, { 1, 40 }, { 1, 10 }, { 2, 30 }, { 2, 30 }, { 1, 10 },
  };
  const double flops = 1024, bytes = 3 * 4096;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *track;
  double flops_sum = 0;

  planar_test_add_task_environment (space, 1000);
  add_named_kernel (gpu, stream, "attn_fill.kd", 0, 10, "add.3");
  add_named_kernel (gpu, stream, "attn_fwd.kd", 10, 20, "add.3");
  add_named_kernel (gpu, stream, "attn_post.kd", 40, 30, "add.3");
  add_named_kernel (gpu, stream, "scale.kd", 80, 10, "multiply.4");
  /* After another instruction: another execution. */
  add_named_kernel (gpu, stream, "attn_fwd.kd", 100, 40, "add.3");
  add_named_kernel (gpu, stream, "scale.kd", 150, 10, "multiply.4");
  /* A loop: the same kernel again is the instruction again; the buffer
   * fill before each is part of it. */
  add_named_kernel (gpu, stream, "__amd_rocclr_fillBufferAligned.kd", 200, 10, "add.3");
  add_named_kernel (gpu, stream, "loop.kd", 210, 20, "add.3");
  add_named_kernel (gpu, stream, "loop.kd", 240, 10, "add.3");
  trace = load_with_module (f, space, gpu, ins, G_N_ELEMENTS (ins), "kernels.xplane.pb", &path);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  track = planar_plane_find_track (plane, "Stream #7(Compute)");
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_events, ==, G_N_ELEMENTS (expect));

  for (gsize i = 0; i < track->n_events; i++)
    {
      PlanarOpInfo info;

      g_assert_true (planar_op_info_init (&info, trace, plane, &track->events[i], NULL));
      g_assert_nonnull (info.hlo.instruction);
      g_assert_true (info.flops_from == PLANAR_OP_VALUE_HLO);
      /* Alone until the kernels are looked for. */
      g_assert_cmpuint (info.n_kernels, ==, 1);
      planar_op_info_find_kernels (&info, trace, plane, track, i);
      g_test_message ("kernel %" G_GSIZE_FORMAT ": %u kernels, %" G_GINT64_FORMAT " ps", i, info.n_kernels, info.kernels_ps);
      g_assert_cmpuint (info.n_kernels, ==, expect[i].n);
      g_assert_cmpint (info.kernels_ps, ==, expect[i].ps);
      g_assert_cmpfloat (info.flops, ==, flops);
      g_assert_cmpfloat (info.bytes, ==, bytes);
      flops_sum += info.flops * planar_op_info_get_share (&info, track->events[i].duration_ps);
      planar_op_info_clear (&info);
    }
  /* Once per execution: 4 of add.3, 2 of multiply.4. */
  g_assert_cmpfloat_with_epsilon (flops_sum, 6 * flops, 1e-6);

  /* Op Stats by framework op: the instruction's row counts it once per
   * execution, over the time of all its kernels. */
  {
    g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
    g_autoptr(GArray) rows = NULL;
    const PlanarAggregate *attn;

    planar_aggregator_set_costs (agg, trace, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP);
    planar_aggregator_add_track (agg, plane, track, G_MININT64, G_MAXINT64);
    rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_NAME);
    attn = row_named (rows, "jit(f)/attn:");
    g_assert_nonnull (attn);
    g_assert_cmpuint (attn->count, ==, 7);
    g_assert_cmpfloat_with_epsilon (attn->flops, 4 * flops, 1e-6);
    g_assert_cmpfloat_with_epsilon (attn->bytes, 4 * bytes, 1e-6);
    g_assert_cmpint (attn->flops_ps, ==, 60 + 40 + 30 + 10);
    g_assert_cmpfloat_with_epsilon (row_named (rows, "jit(f)/scale:")->flops, 2 * flops, 1e-6);
  }

  /* By kernel name: each kernel its share by duration, so that a row's
   * rate is the instruction's (flops / 60 ps for the first run). */
  {
    g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
    g_autoptr(GArray) rows = NULL;
    const PlanarAggregate *post;

    planar_aggregator_set_costs (agg, trace, PLANAR_AGGREGATE_KEY_NAME);
    planar_aggregator_add_track (agg, plane, track, G_MININT64, G_MAXINT64);
    rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_NAME);
    post = row_named (rows, "attn_post.kd");
    g_assert_nonnull (post);
    g_assert_cmpfloat_with_epsilon (post->flops, flops * 30 / 60, 1e-6);
    g_assert_cmpfloat_with_epsilon (post->flops / (double) post->flops_ps, flops / 60, 1e-9);
  }

  /* A range holding only the middle kernel: its share of the whole run,
   * the kernels outside the range read from the track. */
  {
    g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
    g_autoptr(GArray) rows = NULL;
    const PlanarAggregate *attn;

    planar_aggregator_set_costs (agg, trace, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP);
    planar_aggregator_add_track (agg, plane, track, 12, 35);
    rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_NAME);
    attn = row_named (rows, "jit(f)/attn:");
    g_assert_nonnull (attn);
    g_assert_cmpuint (attn->count, ==, 1);
    g_assert_cmpfloat_with_epsilon (attn->flops, flops * 20 / 60, 1e-6);
  }
}

/* Kernels of a command buffer (a CUDA graph XLA made of a run of thunks)
 * carry the command buffer's name in hlo_op ("command_buffer_1", no
 * instruction), as JAX 0.11 on an H100 wrote them: each resolves by its
 * own name, the instruction's with '.' made '_' (XLA's kernel names), for
 * the derived lines, the details and Op Stats alike. A kernel name that
 * two instructions would give, or none, resolves to nothing; an hlo_op
 * that names an instruction wins over the kernel's name. */
static void
test_command_buffer (Fixture       *f,
                     gconstpointer  data)
{
  static const gint64 add_ops[] = { 1, 2 }, mul_ops[] = { 3, 2 };
  static const PlanarTestHloIns ins[] = {
    { "p0", "parameter", 1, 11, { 1024 }, 1 },
    { "p1", "parameter", 2, 11, { 1024 }, 1, .parameter_number = 1 },
    { "add.3", "add", 3, 11, { 1024 }, 1, add_ops, 2, NULL, 0, "", "jit(f)/attn", "/src/train.py", 10 },
    { "multiply.4", "multiply", 4, 11, { 1024 }, 1, mul_ops, 2, NULL, 0, "", "jit(f)/scale", "/src/train.py", 11 },
    { "copy.5", "copy", 5, 11, { 1024 }, 1, add_ops, 1, NULL, 0, "", "jit(f)/copy", "/src/train.py", 12 },
    { "copy_5", "copy", 6, 11, { 1024 }, 1, add_ops, 1, NULL, 0, "", "jit(f)/copy_again", "/src/train.py", 13 },
  };
  static const struct { const char *instruction; const char *framework_op; } expect[] = {
    { "add.3", "jit(f)/attn:" }, { "multiply.4", "jit(f)/scale:" }, { NULL, NULL }, { NULL, NULL },
    { "multiply.4", "jit(f)/scale:" }, { "add.3", "jit(f)/attn:" },
  };
  XSpace *space = planar_test_space_new ();
  Builder *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *track, *ops, *source;
  g_autoptr(PlanarOpCostReader) reader = NULL;

  planar_test_add_task_environment (space, 1000);
  add_named_kernel (gpu, stream, "add_3", 0, 10, "command_buffer_1");
  add_named_kernel (gpu, stream, "multiply_4", 20, 10, "command_buffer_1");
  add_named_kernel (gpu, stream, "memcpy32_post", 40, 10, "command_buffer_1");
  add_named_kernel (gpu, stream, "copy_5", 60, 10, "command_buffer_1");
  /* The hlo_op names an instruction: that one, whatever the name. */
  add_named_kernel (gpu, stream, "add_3", 80, 10, "multiply.4");
  add_named_kernel (gpu, stream, "add_3", 100, 10, "command_buffer_2");
  trace = load_with_module (f, space, gpu, ins, G_N_ELEMENTS (ins), "command-buffer.xplane.pb", &path);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  track = planar_plane_find_track (plane, "Stream #7(Compute)");
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_events, ==, G_N_ELEMENTS (expect));
  reader = planar_op_cost_reader_new (trace, PLANAR_OP_COSTS_FRAMEWORK_OP | PLANAR_OP_COSTS_SOURCE);

  for (gsize i = 0; i < track->n_events; i++)
    {
      PlanarHloResolution res;
      g_auto(PlanarOpInfo) info = { 0 };
      PlanarOpCosts costs;
      gboolean resolved = planar_trace_resolve_hlo (trace, plane, &track->events[i], &res);

      g_test_message ("kernel %" G_GSIZE_FORMAT ": %s", i, resolved ? res.instruction->name : "(none)");
      g_assert_true (planar_op_info_init (&info, trace, plane, &track->events[i], NULL));
      g_assert_true (planar_op_cost_reader_read (reader, plane, &track->events[i], &costs, NULL));
      if (expect[i].instruction == NULL)
        {
          g_assert_false (resolved);
          g_assert_null (info.hlo.instruction);
          g_assert_null (costs.hlo.instruction);
          g_assert_true (costs.framework_op_from == PLANAR_OP_VALUE_NONE);
          continue;
        }
      g_assert_true (resolved);
      g_assert_cmpstr (res.instruction->name, ==, expect[i].instruction);
      g_assert_cmpstr (info.hlo.instruction->name, ==, expect[i].instruction);
      g_assert_cmpstr (info.framework_op, ==, expect[i].framework_op);
      g_assert_true (info.flops_from == PLANAR_OP_VALUE_HLO);
      g_assert_cmpstr (costs.hlo.instruction->name, ==, expect[i].instruction);
      g_assert_cmpstr (costs.framework_op, ==, expect[i].framework_op);
      g_assert_true (costs.flops_from == PLANAR_OP_VALUE_HLO);
      g_assert_cmpfloat (costs.flops, ==, info.flops);
    }

  /* The derived lines: an op and a source for each resolved kernel; the
   * kernels that resolve to nothing add nothing and close nothing, so
   * the two of multiply.4 make one event (XProf's merge). */
  ops = derived_track (plane, "Framework Ops - from #7");
  source = derived_track (plane, "Source code - from #7");
  g_assert_nonnull (ops);
  g_assert_nonnull (source);
  g_assert_cmpuint (ops->n_events, ==, 3);
  assert_event (plane, ops, 0, "jit(f)/attn:", "attn", 0, 10);
  assert_event (plane, ops, 1, "jit(f)/scale:", "scale", 20, 90);
  assert_event (plane, ops, 2, "jit(f)/attn:", "attn", 100, 110);
  g_assert_cmpuint (source->n_events, ==, 3);
  assert_event (plane, source, 0, "train.py:10", NULL, 0, 10);
  assert_event (plane, source, 1, "train.py:11", NULL, 20, 90);
  assert_event (plane, source, 2, "train.py:10", NULL, 100, 110);

  /* Op Stats by framework op: the kernels that resolve by name are in
   * their op's row; the others in none. */
  {
    g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
    g_autoptr(GArray) rows = NULL;

    planar_aggregator_set_costs (agg, trace, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP);
    planar_aggregator_add_track (agg, plane, track, G_MININT64, G_MAXINT64);
    rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_NAME);
    g_assert_nonnull (row_named (rows, "jit(f)/attn:"));
    g_assert_cmpuint (row_named (rows, "jit(f)/attn:")->count, ==, 2);
    g_assert_cmpuint (row_named (rows, "jit(f)/scale:")->count, ==, 2);
    g_assert_null (row_named (rows, "jit(f)/copy:"));
    g_assert_null (row_named (rows, "jit(f)/copy_again:"));
  }
  /* The rows kept for the derived lines before they come: these too. */
  planar_test_check_prediction (path, trace);
}

/* Kernels that run at once (a CUDA graph's branches), each overlapping
 * the one before it, of ops in different name scopes: a derived event
 * ends where the next one of its level starts, so that the name scopes
 * stay as deep as their names (four levels). Left to overlap, each new
 * scope went beside the innermost open one, and the line grew two rows
 * deeper with every kernel. */
static void
test_concurrent_kernels (Fixture       *f,
                         gconstpointer  data)
{
  static const gint64 add_ops[] = { 1, 2 }, mul_ops[] = { 3, 2 };
  static const PlanarTestHloIns ins[] = {
    { "p0", "parameter", 1, 11, { 1024 }, 1 },
    { "p1", "parameter", 2, 11, { 1024 }, 1, .parameter_number = 1 },
    { "add.3", "add", 3, 11, { 1024 }, 1, add_ops, 2, NULL, 0, "", "jit(f)/a/b/c/add", "/src/train.py", 10 },
    { "multiply.4", "multiply", 4, 11, { 1024 }, 1, mul_ops, 2, NULL, 0, "", "jit(f)/a/x/y/mul", "/src/train.py", 11 },
  };
  XSpace *space = planar_test_space_new ();
  Builder *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  const guint n = 20;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *scopes, *ops;

  planar_test_add_task_environment (space, 10000);
  /* Kernel i runs [100 i, 100 i + 130]: 30 ps into the next one. */
  for (guint i = 0; i < n; i++)
    add_named_kernel (gpu, stream, i % 2 == 0 ? "add_kernel" : "mul_kernel", 100 * i, 130,
                      i % 2 == 0 ? "add.3" : "multiply.4");
  trace = load_with_module (f, space, gpu, ins, G_N_ELEMENTS (ins), "concurrent.xplane.pb", &path);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  scopes = derived_track (plane, "Framework Name Scope - from #7");
  ops = derived_track (plane, "Framework Ops - from #7");
  g_assert_nonnull (scopes);
  g_assert_nonnull (ops);
  /* jit(f) and a over everything; b/c and x/y in turn below them. */
  g_assert_cmpuint (scopes->max_depth, ==, 3);
  g_assert_cmpuint (scopes->n_events, ==, 2 + 2 * n);
  assert_event (plane, scopes, 0, "jit(f)", NULL, 0, 100 * (n - 1) + 130);
  assert_event (plane, scopes, 1, "a", NULL, 0, 100 * (n - 1) + 130);
  for (guint i = 0; i < n; i++)
    {
      /* Each ends where the next kernel's starts; the last at its own
       * kernel's end. */
      gint64 end = i + 1 < n ? 100 * (i + 1) : 100 * i + 130;

      assert_event (plane, scopes, 2 + 2 * i, i % 2 == 0 ? "b" : "x", NULL, 100 * i, end);
      g_assert_cmpuint (scopes->events[2 + 2 * i].depth, ==, 2);
      assert_event (plane, scopes, 3 + 2 * i, i % 2 == 0 ? "c" : "y", NULL, 100 * i, end);
      g_assert_cmpuint (scopes->events[3 + 2 * i].depth, ==, 3);
      assert_event (plane, ops, i, i % 2 == 0 ? "jit(f)/a/b/c/add:" : "jit(f)/a/x/y/mul:", NULL, 100 * i, end);
      g_assert_cmpuint (ops->events[i].depth, ==, 0);
    }
  planar_test_check_prediction (path, trace);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  PLANAR_TEST_ADD ("/derive-hlo/gpu-lines", test_gpu_lines);
  PLANAR_TEST_ADD ("/derive-hlo/no-hlo", test_no_hlo);
  PLANAR_TEST_ADD ("/derive-hlo/program-id-stat", test_program_id_stat);
  PLANAR_TEST_ADD ("/derive-hlo/damaged", test_damaged_hlo);
  PLANAR_TEST_ADD ("/derive-hlo/kernels-of-one-instruction", test_kernels_of_one_instruction);
  PLANAR_TEST_ADD ("/derive-hlo/command-buffer", test_command_buffer);
  PLANAR_TEST_ADD ("/derive-hlo/concurrent-kernels", test_concurrent_kernels);
  return g_test_run ();
}
