/* test-aggregate.c: the per-name statistics of the selection table and the
 * op tables (model/query/planar-aggregate.c): count, wall, self, min and
 * max per row, the range rule, grouping by kind, the sort orders, the
 * rules the total row under the table relies on, and the costs read for
 * the op tables (PlanarOpCostReader) against planar_op_info_init().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-aggregate-private.h"
#include "planar-counters.h"
#include "planar-op-info.h"
#include "planar-test-hlo.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"

#include <string.h>

/* Picoseconds from the line's start. On the "XLA Ops" line:
 *   a  [0, 100)   holding b [10, 40) and c [50, 60)
 *   a  [200, 230)
 *   d  [300, 300) an instant
 * On the stream line: b [0, 20) and b [20, 25), a kernel named as the op. */
static PlanarTrace *
load_sample (const char *dir)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 1, "/device:GPU:0");
  XLine *ops = planar_test_plane_add_line (plane, 1, "XLA Ops", 0);
  XLine *stream = planar_test_plane_add_line (plane, 2, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;

  planar_test_add_task_environment (space, 0);
  planar_test_plane_add_event_metadata (plane, 1, "a", "A");
  planar_test_plane_add_event_metadata (plane, 2, "b", "B");
  planar_test_plane_add_event_metadata (plane, 3, "c", "C");
  planar_test_plane_add_event_metadata (plane, 4, "d", "D");
  planar_test_line_add_event (ops, 1, 0, 100);
  planar_test_line_add_event (ops, 2, 10, 30);
  planar_test_line_add_event (ops, 3, 50, 10);
  planar_test_line_add_event (ops, 1, 200, 30);
  planar_test_line_add_event (ops, 4, 300, 0);
  planar_test_line_add_event (stream, 2, 0, 20);
  planar_test_line_add_event (stream, 2, 20, 5);
  path = planar_test_write_space (space, dir, "h.xplane.pb");
  return planar_test_load_ok (path);
}

static const PlanarTrack *
find_track (const PlanarPlane *plane,
            const char        *name)
{
  for (guint t = 0; t < plane->n_tracks; t++)
    if (g_strcmp0 (plane->tracks[t].name, name) == 0)
      return &plane->tracks[t];
  g_error ("no track %s", name);
}

static const PlanarAggregate *
find_row (GArray     *rows,
          const char *kind,
          const char *name)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const PlanarAggregate *row = &g_array_index (rows, PlanarAggregate, i);

      if (strcmp (row->name, name) == 0 && g_strcmp0 (row->kind, kind) == 0)
        return row;
    }
  return NULL;
}

static void
assert_row (GArray     *rows,
            const char *kind,
            const char *name,
            guint64     count,
            gint64      total_ps,
            gint64      self_ps,
            gint64      min_ps,
            gint64      max_ps)
{
  const PlanarAggregate *row = find_row (rows, kind, name);

  g_assert_nonnull (row);
  g_assert_cmpuint (row->count, ==, count);
  g_assert_cmpint (row->total_ps, ==, total_ps);
  g_assert_cmpint (row->self_ps, ==, self_ps);
  g_assert_cmpint (row->min_ps, ==, min_ps);
  g_assert_cmpint (row->max_ps, ==, max_ps);
}

/* The total row: its count is the aggregator's event count and the sum of
 * the rows' counts; its wall and self times, the sums of theirs. */
static void
assert_totals (PlanarAggregator *agg,
               GArray           *rows,
               guint64           n_events,
               gint64            wall_ps,
               gint64            self_ps)
{
  guint64 count = 0;
  gint64 wall = 0, self_time = 0;

  for (guint i = 0; i < rows->len; i++)
    {
      const PlanarAggregate *row = &g_array_index (rows, PlanarAggregate, i);

      count += row->count;
      wall += row->total_ps;
      self_time += row->self_ps;
      g_assert_cmpint (row->self_ps, <=, row->total_ps);
      g_assert_cmpint (row->min_ps, <=, row->max_ps);
    }
  g_assert_cmpuint (planar_aggregator_get_n_events (agg), ==, n_events);
  g_assert_cmpuint (count, ==, n_events);
  g_assert_cmpint (wall, ==, wall_ps);
  g_assert_cmpint (self_time, ==, self_ps);
}

static void
test_whole_tracks (PlanarTestFixture *f,
                   gconstpointer      data)
{
  g_autoptr(PlanarTrace) trace = load_sample (f->dir);
  const PlanarPlane *plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
  g_autoptr(GArray) rows = NULL;

  planar_aggregator_add_track (agg, plane, find_track (plane, "XLA Ops"), G_MININT64, G_MAXINT64);
  planar_aggregator_add_track (agg, plane, find_track (plane, "Stream #7(Compute)"), G_MININT64, G_MAXINT64);
  rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_SELF);
  g_assert_cmpuint (rows->len, ==, 4);
  /* Self is the wall time less the direct children's: a's first call
   * holds b and c. */
  assert_row (rows, NULL, "a", 2, 130, 60 + 30, 30, 100);
  /* Ungrouped, the op and the kernel of one name are one row. */
  assert_row (rows, NULL, "b", 3, 55, 55, 5, 30);
  assert_row (rows, NULL, "c", 1, 10, 10, 10, 10);
  assert_row (rows, NULL, "d", 1, 0, 0, 0, 0);
  g_assert_cmpstr (find_row (rows, NULL, "a")->display_name, ==, "A");
  g_assert_null (find_row (rows, NULL, "a")->kind);
  /* Wall counts nested time twice; self does not. */
  assert_totals (agg, rows, 7, 130 + 55 + 10, 90 + 55 + 10);
}

/* An event meeting the range counts whole (never clipped); one outside it
 * does not count at all. */
static void
test_range (PlanarTestFixture *f,
            gconstpointer      data)
{
  g_autoptr(PlanarTrace) trace = load_sample (f->dir);
  const PlanarPlane *plane = planar_trace_find_plane (trace, "/device:GPU:0");
  const PlanarTrack *ops = find_track (plane, "XLA Ops");
  gint64 origin = ops->start_ps;
  g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
  g_autoptr(PlanarAggregator) none = planar_aggregator_new ();
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GArray) no_rows = NULL;

  planar_aggregator_add_track (agg, plane, ops, origin + 45, origin + 210);
  rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_TOTAL);
  g_assert_cmpuint (rows->len, ==, 2);
  assert_row (rows, NULL, "a", 2, 130, 90, 30, 100);
  assert_row (rows, NULL, "c", 1, 10, 10, 10, 10);
  g_assert_null (find_row (rows, NULL, "b"));
  assert_totals (agg, rows, 3, 140, 100);

  planar_aggregator_add_track (none, plane, ops, origin + 400, origin + 500);
  no_rows = planar_aggregator_get_results (none, PLANAR_AGGREGATE_SORT_SELF);
  g_assert_cmpuint (no_rows->len, ==, 0);
  assert_totals (none, no_rows, 0, 0, 0);
}

/* One event at a time adds up to the same rows as the whole track. */
static void
test_events (PlanarTestFixture *f,
             gconstpointer      data)
{
  g_autoptr(PlanarTrace) trace = load_sample (f->dir);
  const PlanarPlane *plane = planar_trace_find_plane (trace, "/device:GPU:0");
  const PlanarTrack *ops = find_track (plane, "XLA Ops");
  g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
  g_autoptr(GArray) rows = NULL;

  for (gsize i = 0; i < ops->n_events; i++)
    planar_aggregator_add_event (agg, plane, ops, i);
  rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_NAME);
  g_assert_cmpuint (rows->len, ==, 4);
  assert_row (rows, NULL, "a", 2, 130, 90, 30, 100);
  assert_row (rows, NULL, "b", 1, 30, 30, 30, 30);
  assert_totals (agg, rows, 5, 170, 130);
}

/* Grouped by kind: one row per kind and display name, the kinds in their
 * order (XLA Ops before Device kernels); the totals are the same. */
static void
test_by_kind (PlanarTestFixture *f,
              gconstpointer      data)
{
  g_autoptr(PlanarTrace) trace = load_sample (f->dir);
  const PlanarPlane *plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
  g_autoptr(GArray) rows = NULL;
  const PlanarAggregate *first, *last;

  planar_aggregator_set_group_by_kind (agg, TRUE);
  planar_aggregator_add_track (agg, plane, find_track (plane, "Stream #7(Compute)"), G_MININT64, G_MAXINT64);
  planar_aggregator_add_track (agg, plane, find_track (plane, "XLA Ops"), G_MININT64, G_MAXINT64);
  rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_SELF);
  g_assert_cmpuint (rows->len, ==, 5);
  assert_row (rows, "XLA Ops", "b", 1, 30, 30, 30, 30);
  assert_row (rows, "Device kernels", "b", 2, 25, 25, 5, 20);
  assert_row (rows, "XLA Ops", "a", 2, 130, 90, 30, 100);
  first = &g_array_index (rows, PlanarAggregate, 0);
  last = &g_array_index (rows, PlanarAggregate, rows->len - 1);
  g_assert_cmpstr (first->kind, ==, "XLA Ops");
  g_assert_cmpstr (first->name, ==, "a");
  g_assert_cmpstr (last->kind, ==, "Device kernels");
  g_assert_cmpuint (first->kind_order, <, last->kind_order);
  assert_totals (agg, rows, 7, 195, 155);
}

/* Each sort: largest first, ties by name; by name alone for NAME. */
static void
test_sorts (PlanarTestFixture *f,
            gconstpointer      data)
{
  static const struct
  {
    PlanarAggregateSort sort;
    const char *names[5];
  } cases[] = {
    { PLANAR_AGGREGATE_SORT_SELF, { "a", "b", "c", "d", NULL } },
    { PLANAR_AGGREGATE_SORT_TOTAL, { "a", "b", "c", "d", NULL } },
    { PLANAR_AGGREGATE_SORT_COUNT, { "b", "a", "c", "d", NULL } },
    { PLANAR_AGGREGATE_SORT_NAME, { "a", "b", "c", "d", NULL } },
  };
  g_autoptr(PlanarTrace) trace = load_sample (f->dir);
  const PlanarPlane *plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();

  planar_aggregator_add_track (agg, plane, find_track (plane, "XLA Ops"), G_MININT64, G_MAXINT64);
  planar_aggregator_add_track (agg, plane, find_track (plane, "Stream #7(Compute)"), G_MININT64, G_MAXINT64);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GArray) rows = planar_aggregator_get_results (agg, cases[i].sort);

      g_assert_cmpuint (rows->len, ==, 4);
      for (guint r = 0; r < rows->len; r++)
        g_assert_cmpstr (g_array_index (rows, PlanarAggregate, r).name, ==, cases[i].names[r]);
    }
}

static void
test_free_null (void)
{
  planar_aggregator_free (NULL);
}

/* Op stats with costs on a JAX GPU profile: rows per framework op and per
 * source line; each row's FLOPs and bytes are the sums of its events'
 * (the profile's or the HLO's estimates), over the time of those events;
 * the GEMM's row holds 2 x 8192 x 1024 x 1024 FLOPs per run. */
static void
test_costs (void)
{
  g_autofree char *path = planar_test_sample_path ("tracelens_mi300_jax08_attention_tw003.xplane.pb");
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *track;
  static const PlanarAggregateKey keys[] = { PLANAR_AGGREGATE_KEY_NAME, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP,
                                             PLANAR_AGGREGATE_KEY_SOURCE };

  if (path == NULL)
    return;
  trace = planar_test_load_ok (path);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_nonnull (plane);
  track = find_track (plane, "Stream #16(Kernel)");

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      g_autoptr(PlanarAggregator) aggregator = planar_aggregator_new ();
      g_autoptr(GHashTable) flops = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_autoptr(GArray) rows = NULL;
      double total = 0, row_total = 0;
      guint64 count = 0, gemms = 0;

      planar_aggregator_set_costs (aggregator, trace, keys[k]);
      planar_aggregator_add_track (aggregator, plane, track, G_MININT64, G_MAXINT64);
      rows = planar_aggregator_get_results (aggregator, PLANAR_AGGREGATE_SORT_SELF);
      /* The expected sums, event by event. */
      for (gsize i = 0; i < track->n_events; i++)
        {
          const PlanarEvent *ev = &track->events[i];
          PlanarOpInfo info;
          const char *key;
          double *sum;

          g_assert_true (planar_op_info_init (&info, trace, plane, ev, NULL));
          key = keys[k] == PLANAR_AGGREGATE_KEY_FRAMEWORK_OP ? info.framework_op
                : keys[k] == PLANAR_AGGREGATE_KEY_SOURCE ? info.source
                : planar_plane_get_event_name (plane, ev, FALSE);
          key = key != NULL ? key : "(none)";
          sum = g_hash_table_lookup (flops, key);
          if (sum == NULL)
            {
              sum = g_new0 (double, 1);
              g_hash_table_insert (flops, g_strdup (key), sum);
            }
          *sum += info.flops;
          total += info.flops;
          if (info.hlo.instruction != NULL && info.hlo.program_id == 19
              && g_strcmp0 (info.hlo.instruction->name, "custom-call.1") == 0)
            {
              g_assert_cmpfloat (info.flops, ==, 2.0 * 8192 * 1024 * 1024);
              g_assert_true (info.flops_from == PLANAR_OP_VALUE_HLO);
              gemms++;
            }
          planar_op_info_clear (&info);
        }
      g_assert_cmpuint (gemms, >, 0);
      g_assert_cmpuint (rows->len, ==, g_hash_table_size (flops));
      for (guint i = 0; i < rows->len; i++)
        {
          const PlanarAggregate *row = &g_array_index (rows, PlanarAggregate, i);
          double *sum = g_hash_table_lookup (flops, row->name);

          g_assert_nonnull (sum);
          g_assert_cmpfloat (row->flops, ==, *sum);
          g_assert_cmpint (row->flops_ps, <=, row->total_ps);
          g_assert_cmpint (row->bytes_ps, <=, row->total_ps);
          row_total += row->flops;
          count += row->count;
        }
      g_assert_cmpfloat (row_total, ==, total);
      g_assert_cmpuint (count, ==, track->n_events);
      if (keys[k] == PLANAR_AGGREGATE_KEY_FRAMEWORK_OP)
        {
          const PlanarAggregate *row = find_row (rows, NULL, "jit(matmul)/dot_general:");

          g_assert_true (row->estimated);
          g_assert_cmpfloat (row->flops, >=, (double) gemms * 2.0 * 8192 * 1024 * 1024);
          g_assert_cmpint (row->flops_ps, >, 0);
          g_assert_cmpfloat (row->bytes, >, 0);
        }
      if (keys[k] == PLANAR_AGGREGATE_KEY_SOURCE)
        g_assert_nonnull (find_row (rows, NULL, "generate_attention_trace.py:31"));
    }
}

/* A GPU plane whose kernels carry the profile's own framework op and
 * source: "fusion.1" twice (jit(f)/add, f.py:1), "fusion.2" (jit(f)/add,
 * f.py:2), "gemm" (jit(f)/dot, f.py:1), and "memcpy" with neither, on two
 * streams. Returns the plane's index in *@plane_index. */
static PlanarTrace *
load_framework_ops (const char *dir,
                    guint      *plane_index)
{
  XSpace *space = planar_test_space_new ();
  PlanarTestPlane *b = planar_test_named_plane_new (space, 1, "/device:GPU:0");
  XLine *s7 = planar_test_plane_add_line (b->plane, 1, "Stream #7(Compute)", 0);
  XLine *s8 = planar_test_plane_add_line (b->plane, 2, "Stream #8(Compute)", 0);
  static const struct { int stream; const char *name; const char *op; const char *source; gint64 at; } kernels[] = {
    { 7, "fusion.1", "jit(f)/add", "f.py:1", 0 },
    { 7, "gemm", "jit(f)/dot", "f.py:1", 100 },
    { 8, "fusion.2", "jit(f)/add", "f.py:2", 150 },
    { 7, "memcpy", NULL, NULL, 200 },
    { 8, "fusion.1", "jit(f)/add", "f.py:1", 300 },
  };
  g_autofree char *path = NULL;
  PlanarTrace *trace;

  planar_test_add_task_environment (space, 0);
  for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      XEvent *ev = planar_test_line_add_event (kernels[i].stream == 7 ? s7 : s8,
                                               planar_test_named_plane_event_id (b, kernels[i].name),
                                               kernels[i].at, 40);

      if (kernels[i].op != NULL)
        planar_test_named_plane_add_str (b, ev, "tf_op", kernels[i].op);
      if (kernels[i].source != NULL)
        planar_test_named_plane_add_str (b, ev, "source", kernels[i].source);
    }
  planar_test_named_plane_done (b);
  path = planar_test_write_space (space, dir, "ops.xplane.pb");
  trace = planar_test_load_ok (path);
  for (*plane_index = 0; *plane_index < planar_trace_get_n_planes (trace); (*plane_index)++)
    if (g_strcmp0 (planar_trace_get_plane (trace, *plane_index)->name, "/device:GPU:0") == 0)
      return trace;
  g_assert_not_reached ();
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The kernel names of @refs (their plane @plane), sorted, joined by " ". */
static char *
ref_names (const PlanarPlane *plane,
           GArray            *refs)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < refs->len; i++)
    {
      const PlanarEventRef *ref = &g_array_index (refs, PlanarEventRef, i);

      g_assert_cmpuint (ref->trace, ==, 3);
      g_ptr_array_add (names, (gpointer) planar_plane_get_event_name (plane, &plane->tracks[ref->track].events[ref->index],
                                                                      FALSE));
    }
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* The events of one row, whatever the rows stand for: a row by framework
 * op or source line holds kernels of several names (an Op Stats row
 * activated in those modes selects them, not events named like the row). */
static void
test_collect (PlanarTestFixture *f,
              gconstpointer      data)
{
  guint plane_index;
  g_autoptr(PlanarTrace) trace = load_framework_ops (f->dir, &plane_index);
  const PlanarPlane *plane = planar_trace_get_plane (trace, plane_index);
  static const struct { PlanarAggregateKey key; const char *row; const char *events; } cases[] = {
    { PLANAR_AGGREGATE_KEY_FRAMEWORK_OP, "jit(f)/add", "fusion.1 fusion.1 fusion.2" },
    { PLANAR_AGGREGATE_KEY_FRAMEWORK_OP, "jit(f)/dot", "gemm" },
    { PLANAR_AGGREGATE_KEY_SOURCE, "f.py:1", "fusion.1 fusion.1 gemm" },
    { PLANAR_AGGREGATE_KEY_SOURCE, "f.py:2", "fusion.2" },
    { PLANAR_AGGREGATE_KEY_NAME, "fusion.1", "fusion.1 fusion.1" },
    { PLANAR_AGGREGATE_KEY_FRAMEWORK_OP, "no such op", "" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
      g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (PlanarEventRef));
      g_autofree char *names = NULL;

      planar_aggregator_set_costs (agg, trace, cases[c].key);
      planar_aggregator_collect_events (agg, cases[c].row, 3, plane_index, refs);
      for (guint t = 0; t < plane->n_tracks; t++)
        if (!plane->tracks[t].derived)
          planar_aggregator_add_track (agg, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
      names = ref_names (plane, refs);
      g_assert_cmpstr (names, ==, cases[c].events);
      for (guint i = 0; i < refs->len; i++)
        g_assert_cmpuint (g_array_index (refs, PlanarEventRef, i).plane, ==, plane_index);
    }

  /* The row of the kernels with neither: "(none)", as the table names it. */
  {
    g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
    g_autoptr(PlanarAggregator) table = planar_aggregator_new ();
    g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (PlanarEventRef));
    g_autoptr(GArray) rows = NULL;
    const char *none = NULL;
    g_autofree char *names = NULL;

    planar_aggregator_set_costs (table, trace, PLANAR_AGGREGATE_KEY_SOURCE);
    for (guint t = 0; t < plane->n_tracks; t++)
      if (!plane->tracks[t].derived)
        planar_aggregator_add_track (table, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
    rows = planar_aggregator_get_results (table, PLANAR_AGGREGATE_SORT_SELF);
    for (guint i = 0; i < rows->len; i++)
      if (g_array_index (rows, PlanarAggregate, i).count == 1
          && g_strcmp0 (g_array_index (rows, PlanarAggregate, i).name, "f.py:2") != 0)
        none = g_array_index (rows, PlanarAggregate, i).name;
    g_assert_nonnull (none);
    planar_aggregator_set_costs (agg, trace, PLANAR_AGGREGATE_KEY_SOURCE);
    planar_aggregator_collect_events (agg, none, 3, plane_index, refs);
    for (guint t = 0; t < plane->n_tracks; t++)
      if (!plane->tracks[t].derived)
        planar_aggregator_add_track (agg, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
    names = ref_names (plane, refs);
    g_assert_cmpstr (names, ==, "memcpy");
  }
}

static void
add_plane_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static PlanarAggregator *
add_plane_sync (PlanarAggregator *agg,
                PlanarTrace      *trace,
                guint             plane,
                int               track,
                GCancellable     *cancellable,
                GError          **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  planar_aggregator_add_plane_async (agg, trace, plane, track, cancellable, add_plane_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return planar_aggregator_add_plane_finish (result, error);
}

/* A counter line's samples are values, not work: no rows, no events, in a
 * track added alone or in a plane's table on a worker. */
static void
test_counter_lines (PlanarTestFixture *f,
                    gconstpointer      data)
{
  XSpace *space = planar_test_space_new ();
  XPlane *xplane = planar_test_space_add_plane (space, 1, "/device:GPU:0");
  XLine *stream = planar_test_plane_add_line (xplane, 2, "Stream #7(Compute)", 0);
  XLine *counters = planar_test_plane_add_line (xplane, G_MAXINT64, "_counters_", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
  g_autoptr(PlanarAggregator) done = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  const PlanarPlane *plane;

  planar_test_add_task_environment (space, 0);
  planar_test_plane_add_event_metadata (xplane, 1, "b", NULL);
  planar_test_plane_add_event_metadata (xplane, 2, "power_mw", NULL);
  planar_test_line_add_event (stream, 1, 0, 20);
  planar_test_line_add_event (stream, 1, 30, 10);
  for (int i = 0; i < 3; i++)
    planar_test_line_add_event (counters, 2, i * 10, 0);
  path = planar_test_write_space (space, f->dir, "counters.xplane.pb");
  trace = planar_test_load_ok (path);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_true (planar_track_is_counter_line (find_track (plane, "_counters_")));
  g_assert_false (planar_track_is_counter_line (find_track (plane, "Stream #7(Compute)")));

  for (guint t = 0; t < plane->n_tracks; t++)
    if (!plane->tracks[t].derived)
      planar_aggregator_add_track (agg, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
  rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_SELF);
  g_assert_cmpuint (rows->len, ==, 1);
  g_assert_null (find_row (rows, NULL, "power_mw"));
  assert_totals (agg, rows, 2, 30, 30);

  done = add_plane_sync (planar_aggregator_new (), trace, (guint) (plane - planar_trace_get_plane (trace, 0)), -1,
                         NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (planar_aggregator_get_n_events (done), ==, 2);
}

/* A line of steps (Steps, Launch Stats: one event a step, each named
 * after its step) counts in one row named after the line when asked, as
 * `planar-cli summary` asks: one row of step times, not one a step. */
static void
test_step_lines_as_one (PlanarTestFixture *f,
                        gconstpointer      data)
{
  XSpace *space = planar_test_space_new ();
  XPlane *xplane = planar_test_space_add_plane (space, 1, "/device:TPU:0");
  XLine *steps = planar_test_plane_add_line (xplane, 1, "Steps", 0);
  XLine *launches = planar_test_plane_add_line (xplane, 2, "Launch Stats", 0);
  XLine *ops = planar_test_plane_add_line (xplane, 3, "XLA Ops", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;

  planar_test_add_task_environment (space, 0);
  planar_test_plane_add_event_metadata (xplane, 1, "7", NULL);
  planar_test_plane_add_event_metadata (xplane, 2, "8", NULL);
  planar_test_plane_add_event_metadata (xplane, 3, "9", NULL);
  planar_test_plane_add_event_metadata (xplane, 4, "Launch Stats for 7", NULL);
  planar_test_plane_add_event_metadata (xplane, 5, "Launch Stats for 8", NULL);
  planar_test_plane_add_event_metadata (xplane, 6, "fusion", NULL);
  planar_test_line_add_event (steps, 1, 0, 100);
  planar_test_line_add_event (steps, 2, 100, 120);
  planar_test_line_add_event (steps, 3, 220, 80);
  planar_test_line_add_event (launches, 4, 0, 10);
  planar_test_line_add_event (launches, 5, 100, 12);
  planar_test_line_add_event (ops, 6, 0, 50);
  planar_test_line_add_event (ops, 6, 100, 60);
  path = planar_test_write_space (space, f->dir, "steps.xplane.pb");
  trace = planar_test_load_ok (path);
  plane = planar_trace_find_plane (trace, "/device:TPU:0");

  for (int one = 0; one < 2; one++)
    for (int by_kind = 0; by_kind < 2; by_kind++)
      {
        g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
        g_autoptr(GArray) rows = NULL;
        const char *steps_kind = by_kind ? "Steps" : NULL;
        /* Launch Stats is of the steps' kind, not a device's kernels. */
        const char *launches_kind = by_kind ? "Steps" : NULL;

        planar_aggregator_set_step_lines_as_one (agg, one);
        planar_aggregator_set_group_by_kind (agg, by_kind);
        planar_aggregator_add_track (agg, plane, find_track (plane, "Steps"), G_MININT64, G_MAXINT64);
        planar_aggregator_add_track (agg, plane, find_track (plane, "Launch Stats"), G_MININT64, G_MAXINT64);
        planar_aggregator_add_track (agg, plane, find_track (plane, "XLA Ops"), G_MININT64, G_MAXINT64);
        rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_SELF);
        assert_totals (agg, rows, 7, 432, 432);
        assert_row (rows, by_kind ? "XLA Ops" : NULL, "fusion", 2, 110, 110, 50, 60);
        if (one)
          {
            g_assert_cmpuint (rows->len, ==, 3);
            assert_row (rows, steps_kind, "Steps", 3, 300, 300, 80, 120);
            assert_row (rows, launches_kind, "Launch Stats", 2, 22, 22, 10, 12);
          }
        else
          {
            g_assert_cmpuint (rows->len, ==, 6);
            assert_row (rows, steps_kind, "8", 1, 120, 120, 120, 120);
            assert_row (rows, launches_kind, "Launch Stats for 7", 1, 10, 10, 10, 10);
          }
      }
}

/* A plane's table on a worker: the same rows, costs and collected events
 * as on the caller's thread, for every track or one; cancelled, none. */
static void
test_add_plane_async (PlanarTestFixture *f,
                      gconstpointer      data)
{
  guint plane_index;
  g_autoptr(PlanarTrace) trace = load_framework_ops (f->dir, &plane_index);
  const PlanarPlane *plane = planar_trace_get_plane (trace, plane_index);
  g_autoptr(GError) error = NULL;

  for (int track = -1; track < (int) plane->n_tracks; track++)
    {
      g_autoptr(PlanarAggregator) sync = planar_aggregator_new ();
      PlanarAggregator *async = planar_aggregator_new ();
      g_autoptr(PlanarAggregator) done = NULL;
      g_autoptr(GArray) sync_refs = g_array_new (FALSE, FALSE, sizeof (PlanarEventRef));
      g_autoptr(GArray) async_refs = g_array_new (FALSE, FALSE, sizeof (PlanarEventRef));
      g_autoptr(GArray) a = NULL;
      g_autoptr(GArray) b = NULL;

      if (track >= 0 && plane->tracks[track].derived)
        continue;
      planar_aggregator_set_costs (sync, trace, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP);
      planar_aggregator_set_costs (async, trace, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP);
      planar_aggregator_collect_events (sync, "jit(f)/add", 0, plane_index, sync_refs);
      planar_aggregator_collect_events (async, "jit(f)/add", 0, plane_index, async_refs);
      for (guint t = 0; t < plane->n_tracks; t++)
        if (track < 0 ? !plane->tracks[t].derived : (guint) track == t)
          planar_aggregator_add_track (sync, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
      done = add_plane_sync (async, trace, plane_index, track, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (done);
      a = planar_aggregator_get_results (sync, PLANAR_AGGREGATE_SORT_SELF);
      b = planar_aggregator_get_results (done, PLANAR_AGGREGATE_SORT_SELF);
      g_assert_cmpuint (a->len, ==, b->len);
      g_assert_cmpuint (planar_aggregator_get_n_events (sync), ==, planar_aggregator_get_n_events (done));
      for (guint i = 0; i < a->len; i++)
        {
          const PlanarAggregate *x = &g_array_index (a, PlanarAggregate, i);
          const PlanarAggregate *y = &g_array_index (b, PlanarAggregate, i);

          g_assert_cmpstr (x->name, ==, y->name);
          g_assert_cmpuint (x->count, ==, y->count);
          g_assert_cmpint (x->self_ps, ==, y->self_ps);
          g_assert_cmpfloat (x->flops, ==, y->flops);
        }
      g_assert_cmpuint (sync_refs->len, ==, async_refs->len);
      g_assert_true (memcmp (sync_refs->data, async_refs->data, sync_refs->len * sizeof (PlanarEventRef)) == 0);
    }

  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    PlanarAggregator *agg = planar_aggregator_new ();

    g_cancellable_cancel (cancellable);
    planar_aggregator_set_costs (agg, trace, PLANAR_AGGREGATE_KEY_SOURCE);
    g_assert_null (add_plane_sync (agg, trace, plane_index, -1, cancellable, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  }
}

/* ------------------------------------------------------------------------
 * The costs reader against planar_op_info_init()
 * ------------------------------------------------------------------------ */

/* @ev's costs from @reader are planar_op_info_init()'s. */
static void
assert_reader_as_op_info (PlanarTrace        *trace,
                          const PlanarPlane  *plane,
                          const PlanarEvent  *ev,
                          PlanarOpCostReader *reader,
                          gboolean            strings)
{
  g_auto(PlanarOpInfo) info = { 0 };
  PlanarOpCosts costs;

  g_assert_true (planar_op_info_init (&info, trace, plane, ev, NULL));
  g_assert_true (planar_op_cost_reader_read (reader, plane, ev, &costs, NULL));
  g_assert_true (costs.hlo.module == info.hlo.module);
  g_assert_true (costs.hlo.instruction == info.hlo.instruction);
  g_assert_cmpint (costs.hlo.has_program_id, ==, info.hlo.has_program_id);
  g_assert_cmpuint (costs.hlo.program_id, ==, info.hlo.program_id);
  g_assert_cmpint (costs.framework_op_from, ==, info.framework_op_from);
  g_assert_cmpint (costs.source_from, ==, info.source_from);
  g_assert_cmpstr (costs.framework_op, ==, strings ? info.framework_op : NULL);
  g_assert_cmpstr (costs.source, ==, strings ? info.source : NULL);
  g_assert_cmpint (costs.flops_from, ==, info.flops_from);
  g_assert_cmpint (costs.bytes_from, ==, info.bytes_from);
  g_assert_cmpfloat (costs.flops, ==, info.flops);
  g_assert_cmpfloat (costs.bytes, ==, info.bytes);
  g_assert_cmpuint (costs.transcendentals, ==, info.transcendentals);
  g_assert_cmpint (costs.flops_unknown, ==, info.flops_unknown);
}

static int
compare_row_names (gconstpointer a,
                   gconstpointer b)
{
  const PlanarAggregate *x = a, *y = b;
  int c = g_strcmp0 (x->kind, y->kind);

  return c != 0 ? c : strcmp (x->name, y->name);
}

/* The table of @plane's tracks (@track, or every track not derived when
 * negative) over [@t0, @t1] by @key, through the reader or (@full)
 * planar_op_info_init(): the aggregator (its rows' names are its) and in
 * @rows the rows sorted by kind and name. */
static PlanarAggregator *
costs_table (GArray            **rows,
             PlanarTrace        *trace,
             const PlanarPlane  *plane,
             int                 track,
             PlanarAggregateKey  key,
             gboolean            by_kind,
             gint64              t0,
             gint64              t1,
             gboolean            full)
{
  PlanarAggregator *agg = planar_aggregator_new ();

  planar_aggregator_set_group_by_kind (agg, by_kind);
  planar_aggregator_set_costs (agg, trace, key);
  _planar_aggregator_set_full_op_info (agg, full);
  for (guint t = 0; t < plane->n_tracks; t++)
    if (track < 0 ? !plane->tracks[t].derived : (guint) track == t)
      planar_aggregator_add_track (agg, plane, &plane->tracks[t], t0, t1);
  *rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_NAME);
  g_array_sort (*rows, compare_row_names);
  return agg;
}

static void
assert_same_tables (PlanarTrace       *trace,
                    const PlanarPlane *plane,
                    int                track,
                    gint64             t0,
                    gint64             t1)
{
  static const PlanarAggregateKey keys[] = { PLANAR_AGGREGATE_KEY_NAME, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP,
                                             PLANAR_AGGREGATE_KEY_SOURCE };

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    for (int by_kind = 0; by_kind < 2; by_kind++)
      {
        g_autoptr(GArray) fast = NULL;
        g_autoptr(GArray) full = NULL;
        g_autoptr(PlanarAggregator) fast_agg = costs_table (&fast, trace, plane, track, keys[k], by_kind, t0, t1, FALSE);
        g_autoptr(PlanarAggregator) full_agg = costs_table (&full, trace, plane, track, keys[k], by_kind, t0, t1, TRUE);

        g_assert_cmpuint (fast->len, ==, full->len);
        for (guint i = 0; i < fast->len; i++)
          {
            const PlanarAggregate *x = &g_array_index (fast, PlanarAggregate, i);
            const PlanarAggregate *y = &g_array_index (full, PlanarAggregate, i);

            g_assert_cmpstr (x->kind, ==, y->kind);
            g_assert_cmpstr (x->name, ==, y->name);
            g_assert_cmpuint (x->count, ==, y->count);
            g_assert_cmpint (x->total_ps, ==, y->total_ps);
            g_assert_cmpfloat (x->flops, ==, y->flops);
            g_assert_cmpint (x->flops_ps, ==, y->flops_ps);
            g_assert_cmpfloat (x->bytes, ==, y->bytes);
            g_assert_cmpint (x->bytes_ps, ==, y->bytes_ps);
            g_assert_cmpint (x->estimated, ==, y->estimated);
          }
      }
}

/* Every event of @trace read by the reader as by planar_op_info_init(),
 * and each device plane's tables the same both ways: every track, each
 * track alone (derived ones too), the middle third of the plane's time.
 * Returns how many events resolved. */
static guint64
assert_reader_on_trace (PlanarTrace *trace)
{
  g_autoptr(PlanarOpCostReader) all = planar_op_cost_reader_new (trace, PLANAR_OP_COSTS_FRAMEWORK_OP | PLANAR_OP_COSTS_SOURCE);
  g_autoptr(PlanarOpCostReader) none = planar_op_cost_reader_new (trace, PLANAR_OP_COSTS_DEFAULT);
  guint64 resolved = 0;

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);
      gint64 first = G_MAXINT64, last = G_MININT64;

      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          for (gsize i = 0; i < track->n_events; i++)
            {
              PlanarOpCosts costs;

              assert_reader_as_op_info (trace, plane, &track->events[i], all, TRUE);
              assert_reader_as_op_info (trace, plane, &track->events[i], none, FALSE);
              g_assert_true (planar_op_cost_reader_read (all, plane, &track->events[i], &costs, NULL));
              resolved += costs.hlo.instruction != NULL;
            }
          if (track->n_events > 0)
            {
              first = MIN (first, track->start_ps);
              last = MAX (last, track->end_ps);
            }
        }
      if (!g_str_has_prefix (plane->name, "/device:") || first > last)
        continue;
      assert_same_tables (trace, plane, -1, G_MININT64, G_MAXINT64);
      assert_same_tables (trace, plane, -1, first + (last - first) / 3, last - (last - first) / 3);
      for (guint t = 0; t < plane->n_tracks; t++)
        assert_same_tables (trace, plane, (int) t, G_MININT64, G_MAXINT64);
    }
  return resolved;
}

/* A kernel of metadata @name on @line with @n stats "name=value" (a
 * value "#N" is an unsigned integer, "-N" a signed one, "~N" a double,
 * "'TEXT" an inline string, anything else a reference). */
static XEvent *
add_kernel (PlanarTestPlane    *b,
            XLine              *line,
            const char         *name,
            gint64              at,
            gint64              duration,
            const char * const *stats)
{
  XEvent *ev = planar_test_line_add_event (line, planar_test_named_plane_event_id (b, name), at, duration);

  for (guint i = 0; stats != NULL && stats[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (stats[i], "=", 2);

      if (kv[1][0] == '#')
        planar_test_named_plane_add_uint (b, ev, kv[0], g_ascii_strtoull (kv[1] + 1, NULL, 10));
      else if (kv[1][0] == '-')
        planar_test_named_plane_add_int (b, ev, kv[0], g_ascii_strtoll (kv[1], NULL, 10));
      else if (kv[1][0] == '~')
        PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                            planar_test_stat_double (planar_test_named_plane_stat_id (b, kv[0]),
                                                     g_ascii_strtod (kv[1] + 1, NULL)));
      else if (kv[1][0] == '\'')
        planar_test_named_plane_add_str (b, ev, kv[0], kv[1] + 1);
      else
        planar_test_named_plane_add_ref (b, ev, kv[0], kv[1]);
    }
  return ev;
}

/* The stats of @b's event metadata @name (made with the next id), as
 * add_kernel() writes them on an event. */
static void
set_metadata_stats (PlanarTestPlane    *b,
                    const char         *name,
                    const char * const *stats)
{
  gint64 id = planar_test_named_plane_event_id (b, name);
  XEventMetadata *md = NULL;
  XEvent scratch = TENSORFLOW__PROFILER__XEVENT__INIT;

  for (gsize i = 0; i < b->plane->n_event_metadata; i++)
    if (b->plane->event_metadata[i]->key == id)
      md = b->plane->event_metadata[i]->value;
  g_assert_nonnull (md);
  for (guint i = 0; stats[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (stats[i], "=", 2);

      if (kv[1][0] == '#')
        planar_test_named_plane_add_uint (b, &scratch, kv[0], g_ascii_strtoull (kv[1] + 1, NULL, 10));
      else if (kv[1][0] == '\'')
        planar_test_named_plane_add_str (b, &scratch, kv[0], kv[1] + 1);
      else
        planar_test_named_plane_add_ref (b, &scratch, kv[0], kv[1]);
    }
  for (gsize i = 0; i < scratch.n_stats; i++)
    PLANAR_TEST_APPEND (md->stats, md->n_stats, scratch.stats[i]);
  g_free (scratch.stats);
}

/* The reader (what Op Stats reads) gives what planar_op_info_init() does
 * for every event, and the tables made with it are the same, on a GPU
 * profile with two programs whose resolution stats are each event's own,
 * its metadata's, or the metadata's overridden by the event: the same
 * metadata resolving to different instructions, the same hlo_op in two
 * programs, by module name, program ids as text, "::" parts, unknown
 * programs and instructions, the profile's own values, a custom call with
 * unknown FLOPs, helper kernels and runs. */
static void
test_costs_reader (PlanarTestFixture *f,
                   gconstpointer      data)
{
  static const gint64 ops[] = { 1, 2 };
  static const PlanarTestHloIns ins_f[] = {
    { "p0", "parameter", 1, 11, { 256 }, 1 },
    { "p1", "parameter", 2, 11, { 256 }, 1, .parameter_number = 1 },
    { "add.3", "add", 3, 11, { 256 }, 1, ops, 2, NULL, 0, "", "jit(f)/add", "/src/f.py", 3 },
    { "multiply.4", "multiply", 4, 11, { 256 }, 1, ops, 2, NULL, 0, "Mul", "jit(f)/mul", NULL, 0 },
    { "custom-call.5", "custom-call", 5, 11, { 256 }, 1, ops, 2, NULL, 0, "", "jit(f)/attn", "/src/f.py", 5 },
  };
  static const PlanarTestHloIns ins_g[] = {
    { "q0", "parameter", 1, 11, { 64, 64 }, 2 },
    { "add.3", "add", 3, 11, { 64, 64 }, 2, ops, 2, NULL, 0, "", "jit(g)/add", "/src/g.py", 7 },
  };
  static const gint64 ops_g[] = { 1, 1 };
  XSpace *space = planar_test_space_new ();
  PlanarTestPlane *b = planar_test_named_plane_new (space, 1, "/device:GPU:0");
  XLine *s7 = planar_test_plane_add_line (b->plane, 7, "Stream #7(Compute)", 0);
  XLine *s8 = planar_test_plane_add_line (b->plane, 8, "Stream #8(Compute)", 0);
  XLine *mods = planar_test_plane_add_line (b->plane, 9, "XLA Modules", 0);
  g_autoptr(GByteArray) proto_f = planar_test_hlo_simple ("jit_f", 3, ins_f, G_N_ELEMENTS (ins_f));
  g_autoptr(GByteArray) proto_g = NULL;
  PlanarTestHloIns g_fixed[G_N_ELEMENTS (ins_g)];
  XPlane *meta;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  gint64 at = 0;
  static const char * const on_metadata[] = { "hlo_op=add.3", "program_id=#3", "tf_op=XlaModule:", NULL };
  static const char * const kernels[][6] = {
    /* Metadata "k.meta" resolves through its own stats... */
    { "k.meta", NULL },
    { "k.meta", NULL },
    /* ... and an event of it overrides them. */
    { "k.meta", "hlo_op=multiply.4", NULL },
    { "k.meta", "program_id=#5", NULL },
    { "k.meta", NULL },
    /* One metadata, each event its own instruction. */
    { "k.each", "hlo_op=add.3", "program_id=#3", NULL },
    { "k.each", "hlo_op=multiply.4", "program_id=#3", NULL },
    { "k.each", "hlo_op=add.3", "program_id=#5", NULL },
    { "k.each", "hlo_op='add.3", "program_id='5", NULL },
    { "k.each", "hlo_op=fusion.9::add.3", "program_id=-3", NULL },
    { "k.each", "hlo_op=add.3", "hlo_module=jit_g", NULL },
    { "k.each", "hlo_op=multiply.4", "hlo_module='jit_f", NULL },
    { "k.each", "hlo_op=add.3", "hlo_module=jit_h", NULL },
    { "k.each", "hlo_op=add.3", "program_id=#42", NULL },
    { "k.each", "hlo_op=nope.9", "program_id=#3", NULL },
    { "k.each", "hlo_op='", "program_id=#3", NULL },
    { "k.each", "hlo_op=add.3", "program_id=-7", "hlo_module=jit_g", NULL },
    { "k.each", "hlo_op=add.3", "program_id='x5", "hlo_module=jit_f", NULL },
    /* The profile's own values win. */
    { "k.own", "hlo_op=add.3", "program_id=#3", "tf_op='jit(f)/own", "source='own.py:1", NULL },
    { "k.own", "hlo_op=add.3", "program_id=#3", "flops=#1000", "bytes_accessed=~2.5e3", NULL },
    { "k.own", "hlo_op=multiply.4", "program_id=#3", "flops=#0", "tf_op='XlaModule: ", NULL },
    { "k.own", "flops=-5", "bytes_accessed=#7", "tf_op=jit(f)/loose", NULL },
    /* Unknown FLOPs; runs of kernels with helpers between. */
    { "attn_fill.kd", "hlo_op=custom-call.5", "program_id=#3", NULL },
    { "attn_fwd.kd", "hlo_op=custom-call.5", "program_id=#3", NULL },
    { "memset.kd", NULL },
    { "attn_fwd.kd", "hlo_op=custom-call.5", "program_id=#3", NULL },
    { "__amd_FillBuffer.kd", "hlo_op=add.3", "program_id=#3", NULL },
    { "loop.kd", "hlo_op=add.3", "program_id=#3", NULL },
    { "loop.kd", "hlo_op=add.3", "program_id=#3", NULL },
    { "bare.kd", NULL },
  };
  const gint64 ids[] = { 3, 5 };
  GByteArray *protos[2];

  memcpy (g_fixed, ins_g, sizeof ins_g);
  g_fixed[1].operands = ops_g;
  proto_g = planar_test_hlo_simple ("jit_g", 5, g_fixed, G_N_ELEMENTS (g_fixed));
  protos[0] = proto_f;
  protos[1] = proto_g;
  planar_test_add_task_environment (space, 1000);
  set_metadata_stats (b, "k.meta", on_metadata);
  for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      /* Both streams, the second later and shorter. */
      add_kernel (b, s7, kernels[i][0], at, 10 + (gint64) i, &kernels[i][1]);
      add_kernel (b, s8, kernels[i][0], at + 5, 3, &kernels[i][1]);
      at += 30;
    }
  add_kernel (b, mods, "jit_f", 0, at / 2, NULL);
  add_kernel (b, mods, "jit_f", at / 2 + 1, at / 2, NULL);
  planar_test_named_plane_done (b);

  meta = planar_test_space_add_plane (space, 99, "/host:metadata");
  planar_test_plane_add_stat_metadata (meta, 1, "Hlo Proto");
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *name = g_strdup_printf ("jit(%" G_GINT64_FORMAT ")", ids[i]);
      XEventMetadata *md = planar_test_plane_add_event_metadata (meta, ids[i], name, NULL);

      PLANAR_TEST_APPEND (md->stats, md->n_stats, planar_test_stat_bytes (1, protos[i]->data, protos[i]->len));
    }

  path = planar_test_write_space (space, f->dir, "reader.xplane.pb");
  trace = planar_test_load_ok (path);
  g_assert_nonnull (planar_trace_get_hlo_index (trace));
  g_assert_cmpuint (assert_reader_on_trace (trace), >, 20);
}

/* The same on the samples with HloProtos. */
static void
test_costs_reader_samples (void)
{
  static const char * const names[] = { "tracelens_mi300_jax08_attention_tw003.xplane.pb",
                                        "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = planar_test_sample_path (names[i]);
      g_autoptr(PlanarTrace) trace = NULL;

      if (path == NULL)
        return;
      trace = planar_test_load_ok (path);
      g_assert_cmpuint (assert_reader_on_trace (trace), >, 0);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  PLANAR_TEST_ADD ("/aggregate/whole-tracks", test_whole_tracks);
  PLANAR_TEST_ADD ("/aggregate/range", test_range);
  PLANAR_TEST_ADD ("/aggregate/events", test_events);
  PLANAR_TEST_ADD ("/aggregate/by-kind", test_by_kind);
  PLANAR_TEST_ADD ("/aggregate/sorts", test_sorts);
  g_test_add_func ("/aggregate/free-null", test_free_null);
  g_test_add_func ("/aggregate/costs", test_costs);
  PLANAR_TEST_ADD ("/aggregate/collect", test_collect);
  PLANAR_TEST_ADD ("/aggregate/add-plane-async", test_add_plane_async);
  PLANAR_TEST_ADD ("/aggregate/counter-lines", test_counter_lines);
  PLANAR_TEST_ADD ("/aggregate/step-lines-as-one", test_step_lines_as_one);
  PLANAR_TEST_ADD ("/aggregate/costs-reader", test_costs_reader);
  g_test_add_func ("/aggregate/costs-reader-samples", test_costs_reader_samples);
  return g_test_run ();
}
