/* test-counters.c: the counter series of `_counters_` lines
 * (model/derive/planar-counters.c), on hand-made XSpaces and on
 * planar-gen's output against a brute-force reading with protobuf-c.
 * (test-derive.c covers the column queries against a linear scan.)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-counters-private.h"
#include "planar-model.h"
#include "planar-test-xspace.h"

#include <math.h>
#include <string.h>

typedef PlanarTestFixture Fixture;

typedef PlanarTestPlane Plane;

/* A sample: an instant event named @name with one stat. */
static XEvent *
add_sample (Plane      *b,
            XLine      *line,
            const char *name,
            gint64      offset_ps,
            XStat      *stat)
{
  XEvent *ev = planar_test_line_add_event (line, planar_test_named_plane_event_id (b, name), offset_ps, 0);

  if (stat != NULL)
    PLANAR_TEST_APPEND (ev->stats, ev->n_stats, stat);
  return ev;
}

static PlanarTrace *
load (Fixture *f,
      XSpace  *space,
      Plane  **planes,
      guint    n_planes)
{
  g_autofree char *path = NULL;
  PlanarTrace *trace;

  for (guint i = 0; i < n_planes; i++)
    planar_test_named_plane_done (planes[i]);
  planar_test_add_task_environment (space, 1000);
  path = planar_test_write_space (space, f->dir, "counters.xplane.pb");
  trace = planar_test_load_ok (path);
  /* The series are told before the pass builds them (the timeline keeps
   * their rows). */
  planar_test_check_prediction (path, trace);
  return trace;
}

static guint
plane_index (PlanarTrace *trace,
             const char  *name)
{
  const PlanarPlane *plane = planar_trace_find_plane (trace, name);

  g_assert_nonnull (plane);
  return (guint) (plane - planar_trace_get_plane (trace, 0));
}

/* Series by plane, then track, then name; only numeric stats of
 * `_counters_` lines count. */
static void
test_series (Fixture       *f,
             gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  Plane *host = planar_test_named_plane_new (space, 0, "/host:CPU");
  Plane *planes[] = { gpu, host };
  XLine *gpu_counters = planar_test_plane_add_line (gpu->plane, G_MAXINT64, "_counters_", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  XLine *host_counters = planar_test_plane_add_line (host->plane, G_MAXINT64, "_counters_", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarCounterSet *set;
  const PlanarCounterSeries *s;
  XEvent *ev;
  guint gp, hp;

  add_sample (gpu, gpu_counters, "memory", 0, planar_test_stat_uint (planar_test_named_plane_stat_id (gpu, "memory_bytes"), 100));
  add_sample (gpu, gpu_counters, "util", 0, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "util"), 0.5));
  /* A string and a reference are not samples. */
  add_sample (gpu, gpu_counters, "label", 5, planar_test_stat_str (planar_test_named_plane_stat_id (gpu, "label"), "x"));
  add_sample (gpu, gpu_counters, "label", 6, planar_test_stat_ref (planar_test_named_plane_stat_id (gpu, "kind"),
                                                                   (guint64) planar_test_named_plane_stat_id (gpu, "memory_bytes")));
  /* Two stats on one sample: one sample in each series. */
  ev = add_sample (gpu, gpu_counters, "both", 10, planar_test_stat_uint (planar_test_named_plane_stat_id (gpu, "memory_bytes"), 300));
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "util"), 0.75));
  /* An instant event on a stream with a numeric stat: no series. */
  add_sample (gpu, stream, "kernel", 0, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "occupancy"), 1.0));
  add_sample (host, host_counters, "util", 3, planar_test_stat_int (planar_test_named_plane_stat_id (host, "util"), -2));
  trace = load (f, space, planes, G_N_ELEMENTS (planes));
  set = planar_trace_get_counters (trace);
  gp = plane_index (trace, "/device:GPU:0");
  hp = plane_index (trace, "/host:CPU");
  g_assert_cmpuint (gp, <, hp);

  g_assert_cmpuint (planar_counter_set_get_n_series (set), ==, 3);
  s = planar_counter_set_get_series (set, 0);
  g_assert_cmpstr (planar_counter_series_get_name (s), ==, "memory_bytes");
  g_assert_cmpuint (planar_counter_series_get_plane (s), ==, gp);
  g_assert_cmpuint (planar_counter_series_get_n_samples (s), ==, 2);
  g_assert_cmpfloat (planar_counter_series_get_value (s, 1), ==, 300.0);
  g_assert_cmpint (planar_counter_series_get_time (s, 1), ==, 10);
  s = planar_counter_set_get_series (set, 1);
  g_assert_cmpstr (planar_counter_series_get_name (s), ==, "util");
  g_assert_cmpuint (planar_counter_series_get_n_samples (s), ==, 2);
  g_assert_true (s == planar_counter_set_find_series (set, gp, "util"));
  s = planar_counter_set_get_series (set, 2);
  g_assert_cmpuint (planar_counter_series_get_plane (s), ==, hp);
  g_assert_cmpfloat (planar_counter_series_get_value (s, 0), ==, -2.0);
  g_assert_true (s == planar_counter_set_find_series (set, hp, "util"));
  g_assert_null (planar_counter_set_find_series (set, gp, "label"));
  g_assert_null (planar_counter_set_find_series (set, gp, "occupancy"));
  g_assert_null (planar_counter_set_find_series (set, hp, "memory_bytes"));
  /* Each sample names its event in the track. */
  s = planar_counter_set_find_series (set, gp, "memory_bytes");
  {
    const PlanarPlane *plane = planar_trace_get_plane (trace, gp);
    const PlanarTrack *track = &plane->tracks[planar_counter_series_get_track (s)];

    g_assert_cmpstr (track->name, ==, "_counters_");
    for (gsize i = 0; i < planar_counter_series_get_n_samples (s); i++)
      g_assert_cmpint (track->events[planar_counter_series_get_event (s, i)].start_ps, ==,
                       planar_counter_series_get_time (s, i));
  }
}

/* Samples at one time keep their order; lookups find the last of them. */
static void
test_same_time (Fixture       *f,
                gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *line = planar_test_plane_add_line (gpu->plane, G_MAXINT64, "_counters_", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarCounterSeries *s;
  PlanarCounterColumn columns[3];
  double min, max;
  gsize index;

  add_sample (gpu, line, "v", 100, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "v"), 1.0));
  add_sample (gpu, line, "v", 100, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "v"), 5.0));
  add_sample (gpu, line, "v", 100, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "v"), 3.0));
  add_sample (gpu, line, "v", 200, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "v"), -4.0));
  trace = load (f, space, &gpu, 1);
  s = planar_counter_set_find_series (planar_trace_get_counters (trace), 0, "v");
  g_assert_nonnull (s);
  g_assert_cmpuint (planar_counter_series_get_n_samples (s), ==, 4);
  g_assert_true (planar_counter_series_lookup (s, 100, &index));
  g_assert_cmpint (planar_counter_series_get_time (s, index), ==, 100);
  g_assert_cmpuint (index, ==, 2);
  g_assert_true (planar_counter_series_lookup (s, 199, &index));
  g_assert_cmpuint (index, ==, 2);
  g_assert_true (planar_counter_series_lookup (s, G_MAXINT64, &index));
  g_assert_cmpuint (index, ==, 3);
  g_assert_false (planar_counter_series_lookup (s, 99, &index));
  g_assert_true (planar_counter_series_get_range (s, &min, &max));
  g_assert_cmpfloat (min, ==, -4.0);
  g_assert_cmpfloat (max, ==, 5.0);

  /* [0,100) nothing yet; [100,200) the three; [200,300) the last. */
  planar_counter_series_query_columns (s, 0, 100, 3, columns);
  g_assert_false (columns[0].has_value);
  g_assert_cmpuint (columns[1].n_samples, ==, 3);
  g_assert_cmpfloat (columns[1].min, ==, 1.0);
  g_assert_cmpfloat (columns[1].max, ==, 5.0);
  g_assert_cmpfloat (columns[1].last, ==, 3.0);
  g_assert_cmpuint (columns[2].n_samples, ==, 1);
  g_assert_cmpfloat (columns[2].last, ==, -4.0);
}

/* A `_counters_` line without numbers, and a trace without counters: an
 * empty set, not none. */
static void
test_empty (Fixture       *f,
            gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *line = planar_test_plane_add_line (gpu->plane, G_MAXINT64, "_counters_", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarCounterSet *set;

  add_sample (gpu, line, "nothing", 0, NULL);
  add_sample (gpu, line, "text", 10, planar_test_stat_str (planar_test_named_plane_stat_id (gpu, "text"), "1.5"));
  trace = load (f, space, &gpu, 1);
  set = planar_trace_get_counters (trace);
  g_assert_nonnull (set);
  g_assert_cmpuint (planar_counter_set_get_n_series (set), ==, 0);
  g_assert_null (planar_counter_set_find_series (set, 0, "text"));
}

/* Extreme values stay what they were. */
static void
test_values (Fixture       *f,
             gconstpointer  data)
{
  XSpace *space = planar_test_space_new ();
  Plane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *line = planar_test_plane_add_line (gpu->plane, G_MAXINT64, "_counters_", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarCounterSeries *s;
  double min, max;

  add_sample (gpu, line, "v", 0, planar_test_stat_uint (planar_test_named_plane_stat_id (gpu, "v"), G_MAXUINT64));
  add_sample (gpu, line, "v", 1, planar_test_stat_int (planar_test_named_plane_stat_id (gpu, "v"), G_MININT64));
  add_sample (gpu, line, "v", 2, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "v"), INFINITY));
  add_sample (gpu, line, "v", 3, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "v"), -0.0));
  trace = load (f, space, &gpu, 1);
  s = planar_counter_set_find_series (planar_trace_get_counters (trace), 0, "v");
  g_assert_cmpuint (planar_counter_series_get_n_samples (s), ==, 4);
  g_assert_cmpfloat (planar_counter_series_get_value (s, 0), ==, (double) G_MAXUINT64);
  g_assert_cmpfloat (planar_counter_series_get_value (s, 1), ==, (double) G_MININT64);
  g_assert_true (isinf (planar_counter_series_get_value (s, 2)));
  g_assert_true (planar_counter_series_get_range (s, &min, &max));
  g_assert_cmpfloat (min, ==, (double) G_MININT64);
  g_assert_true (isinf (max));
}

/* The entries a query of @columns columns over the whole span reads in a
 * series of @n samples, one every 1000 ps, interleaved with another's
 * (one every 4000 ps). */
static guint64
count_visits (Fixture *f,
              guint    n,
              guint    columns)
{
  XSpace *space = planar_test_space_new ();
  Plane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  XLine *line = planar_test_plane_add_line (gpu->plane, G_MAXINT64, "_counters_", 0);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autofree PlanarCounterColumn *out = g_new0 (PlanarCounterColumn, columns);
  const PlanarCounterSeries *s;
  guint64 visited = 0, n_samples = 0;
  gint64 t0, span;

  for (guint i = 0; i < n; i++)
    {
      add_sample (gpu, line, "v", (gint64) i * 1000, planar_test_stat_double (planar_test_named_plane_stat_id (gpu, "v"), i % 17));
      if (i % 4 == 0)
        add_sample (gpu, line, "w", (gint64) i * 1000 + 500, planar_test_stat_int (planar_test_named_plane_stat_id (gpu, "w"), i % 5));
    }
  trace = load (f, space, &gpu, 1);
  s = planar_counter_set_find_series (planar_trace_get_counters (trace), 0, "v");
  g_assert_cmpuint (planar_counter_series_get_n_samples (s), ==, n);
  t0 = planar_counter_series_get_time (s, 0);
  span = planar_counter_series_get_time (s, n - 1) - t0 + 1;
  _planar_counter_series_query_columns_counted (s, t0, (span + columns - 1) / columns, columns, out, &visited);
  for (guint c = 0; c < columns; c++)
    n_samples += out[c].n_samples;
  g_assert_cmpuint (n_samples, ==, n);
  g_test_message ("%u samples in %u columns: %" G_GUINT64_FORMAT " entries read", n, columns, visited);
  return visited;
}

/* What a zoomed-out column reads follows the columns, not the samples in
 * them: ten times the samples in the same columns reads about as much. A
 * gallop from the previous column reads O(log samples per column) sample
 * times, each through an event record, so that the frame grew with the
 * file. */
static void
test_visits_per_column (Fixture       *f,
                        gconstpointer  data)
{
  /* 100 and 1000 samples a column (small enough for the ASan build). */
  guint64 small = count_visits (f, 1000, 10);
  guint64 large = count_visits (f, 10000, 10);

  g_assert_cmpuint (large, <=, small + small / 4);
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

typedef struct
{
  gint64 time_ps;
  double value;
} Sample;

static int
compare_samples (gconstpointer a,
                 gconstpointer b)
{
  const Sample *x = a, *y = b;

  if (x->time_ps != y->time_ps)
    return x->time_ps < y->time_ps ? -1 : 1;
  return x->value < y->value ? -1 : x->value > y->value;
}

static void
free_samples (gpointer data)
{
  g_array_unref (data);
}

/* "plane name\nstat name" -> GArray of Sample (absolute times), from the
 * numeric event stats of every `_counters_` line. */
static GHashTable *
raw_series (const XSpace *space)
{
  GHashTable *series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, free_samples);

  for (gsize p = 0; p < space->n_planes; p++)
    {
      const XPlane *plane = space->planes[p];

      for (gsize l = 0; l < plane->n_lines; l++)
        {
          const XLine *line = plane->lines[l];

          if (g_strcmp0 (line->name, "_counters_") != 0)
            continue;
          for (gsize e = 0; e < line->n_events; e++)
            for (gsize s = 0; s < line->events[e]->n_stats; s++)
              {
                const XStat *stat = line->events[e]->stats[s];
                const char *name = planar_test_stat_name (plane, stat->metadata_id);
                g_autofree char *key = NULL;
                GArray *samples;
                Sample sample;

                if (stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE)
                  sample.value = stat->double_value;
                else if (stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE)
                  sample.value = (double) stat->int64_value;
                else if (stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE)
                  sample.value = (double) stat->uint64_value;
                else
                  continue;
                g_assert_nonnull (name);
                sample.time_ps = line->timestamp_ns * 1000 + line->events[e]->offset_ps;
                key = g_strconcat (plane->name, "\n", name, NULL);
                samples = g_hash_table_lookup (series, key);
                if (samples == NULL)
                  {
                    samples = g_array_new (FALSE, FALSE, sizeof (Sample));
                    g_hash_table_insert (series, g_steal_pointer (&key), samples);
                  }
                g_array_append_val (samples, sample);
              }
        }
    }
  return series;
}

static void
test_gen (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *path = generate (f, "30000", "7");
  XSpace *space = planar_test_read_space (path);
  g_autoptr(GHashTable) raw = raw_series (space);
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarCounterSet *set;

  tensorflow__profiler__xspace__free_unpacked (space, NULL);
  g_assert_cmpuint (g_hash_table_size (raw), >, 0);

  trace = planar_test_load_ok (path);
  planar_test_check_prediction (path, trace);
  set = planar_trace_get_counters (trace);
  g_assert_cmpuint (planar_counter_set_get_n_series (set), ==, g_hash_table_size (raw));
  for (guint i = 0; i < planar_counter_set_get_n_series (set); i++)
    {
      const PlanarCounterSeries *s = planar_counter_set_get_series (set, i);
      const PlanarPlane *plane = planar_trace_get_plane (trace, planar_counter_series_get_plane (s));
      g_autofree char *key = g_strconcat (plane->name, "\n", planar_counter_series_get_name (s), NULL);
      GArray *expected = g_hash_table_lookup (raw, key);
      gsize n = planar_counter_series_get_n_samples (s);
      g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (Sample));
      PlanarCounterColumn column;
      double min = G_MAXDOUBLE, max = -G_MAXDOUBLE, range_min, range_max;

      g_assert_nonnull (expected);
      g_assert_cmpuint (n, ==, expected->len);
      if (i > 0)
        {
          const PlanarCounterSeries *prev = planar_counter_set_get_series (set, i - 1);

          /* Plane, then track, then name. */
          g_assert_true (planar_counter_series_get_plane (prev) < planar_counter_series_get_plane (s) ||
                         (planar_counter_series_get_plane (prev) == planar_counter_series_get_plane (s) &&
                          (planar_counter_series_get_track (prev) < planar_counter_series_get_track (s) ||
                           strcmp (planar_counter_series_get_name (prev), planar_counter_series_get_name (s)) < 0)));
        }
      for (gsize k = 0; k < n; k++)
        {
          Sample sample = { planar_counter_series_get_time (s, k), planar_counter_series_get_value (s, k) };

          if (k > 0)
            g_assert_cmpint (sample.time_ps, >=, planar_counter_series_get_time (s, k - 1));
          min = MIN (min, sample.value);
          max = MAX (max, sample.value);
          g_array_append_val (got, sample);
        }
      /* The same samples, the model's times relative to the profile's start. */
      g_array_sort (got, compare_samples);
      g_array_sort (expected, compare_samples);
      for (gsize k = 0; k < n; k++)
        {
          const Sample *a = &g_array_index (got, Sample, k);
          const Sample *b = &g_array_index (expected, Sample, k);

          g_assert_cmpfloat (a->value, ==, b->value);
          g_assert_cmpint (a->time_ps - g_array_index (got, Sample, 0).time_ps, ==,
                           b->time_ps - g_array_index (expected, Sample, 0).time_ps);
        }
      g_assert_true (planar_counter_series_get_range (s, &range_min, &range_max));
      g_assert_cmpfloat (range_min, ==, min);
      g_assert_cmpfloat (range_max, ==, max);
      /* One column over everything: every sample, the same extremes. */
      planar_counter_series_query_columns (s, planar_counter_series_get_time (s, 0),
                                           planar_counter_series_get_time (s, n - 1) -
                                           planar_counter_series_get_time (s, 0) + 1, 1, &column);
      g_assert_cmpuint (column.n_samples, ==, n);
      g_assert_cmpfloat (column.min, ==, min);
      g_assert_cmpfloat (column.max, ==, max);
      g_assert_cmpfloat (column.last, ==, planar_counter_series_get_value (s, n - 1));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  PLANAR_TEST_ADD ("/counters/series", test_series);
  PLANAR_TEST_ADD ("/counters/same-time", test_same_time);
  PLANAR_TEST_ADD ("/counters/empty", test_empty);
  PLANAR_TEST_ADD ("/counters/values", test_values);
  PLANAR_TEST_ADD ("/counters/gen", test_gen);
  PLANAR_TEST_ADD ("/counters/visits-per-column", test_visits_per_column);
  return g_test_run ();
}
