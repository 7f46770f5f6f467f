/* test-health.c: stat values for people and the trace health report.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>

#include "planar-model.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"

static char *
format_stat (const char     *name,
             PlanarStatKind  kind,
             double          number,
             const char     *text)
{
  PlanarStat stat = { .name = name, .kind = kind };

  if (kind == PLANAR_STAT_INT64)
    stat.v.i64 = (gint64) number;
  else if (kind == PLANAR_STAT_UINT64)
    stat.v.u64 = (guint64) number;
  else if (kind == PLANAR_STAT_DOUBLE)
    stat.v.f64 = number;
  else
    {
      stat.str.data = text;
      stat.str.len = strlen (text);
    }
  return planar_stat_format_display (&stat);
}

#define CHECK_FORMAT(name, kind, number, text, expected) \
  G_STMT_START { \
    g_autofree char *got = format_stat (name, kind, number, text); \
    g_assert_cmpstr (got, ==, expected); \
  } G_STMT_END

static void
test_units (void)
{
  g_assert_cmpint (planar_stat_unit_for_name ("bytes_accessed"), ==, PLANAR_STAT_UNIT_BYTES);
  g_assert_cmpint (planar_stat_unit_for_name ("peak_bytes_in_use"), ==, PLANAR_STAT_UNIT_BYTES);
  g_assert_cmpint (planar_stat_unit_for_name ("flops"), ==, PLANAR_STAT_UNIT_FLOPS);
  g_assert_cmpint (planar_stat_unit_for_name ("self_duration_ps"), ==, PLANAR_STAT_UNIT_PICOSECONDS);
  g_assert_cmpint (planar_stat_unit_for_name ("duration_us"), ==, PLANAR_STAT_UNIT_MICROSECONDS);
  g_assert_cmpint (planar_stat_unit_for_name ("peak_hbm_bw_gigabytes_per_second"), ==,
                   PLANAR_STAT_UNIT_GIGABYTES_PER_SECOND);
  g_assert_cmpint (planar_stat_unit_for_name ("theoretical_occupancy_pct"), ==, PLANAR_STAT_UNIT_PERCENT);
  g_assert_cmpint (planar_stat_unit_for_name ("profile_start_time"), ==, PLANAR_STAT_UNIT_EPOCH_NANOSECONDS);
  /* Consumer ids and correlation ids are plain numbers. */
  g_assert_cmpint (planar_stat_unit_for_name ("_c"), ==, PLANAR_STAT_UNIT_NONE);
  g_assert_cmpint (planar_stat_unit_for_name ("correlation_id"), ==, PLANAR_STAT_UNIT_NONE);
  g_assert_cmpint (planar_stat_unit_for_name (""), ==, PLANAR_STAT_UNIT_NONE);
  g_assert_cmpint (planar_stat_unit_for_name (NULL), ==, PLANAR_STAT_UNIT_NONE);
}

static void
test_format (void)
{
  CHECK_FORMAT ("bytes_accessed", PLANAR_STAT_INT64, 1572864, NULL, "1.50 MiB (1,572,864 bytes)");
  CHECK_FORMAT ("bytes_accessed", PLANAR_STAT_UINT64, 512, NULL, "512 bytes");
  CHECK_FORMAT ("num_bytes", PLANAR_STAT_UINT64, 1, NULL, "1 byte");
  CHECK_FORMAT ("flops", PLANAR_STAT_UINT64, 2350000000.0, NULL, "2.35 GFLOP");
  CHECK_FORMAT ("model_flops", PLANAR_STAT_DOUBLE, 12, NULL, "12 FLOP");
  CHECK_FORMAT ("self_duration_ps", PLANAR_STAT_INT64, 1500000000, NULL, "1.500 ms");
  CHECK_FORMAT ("duration_us", PLANAR_STAT_DOUBLE, 2.5, NULL, "2.500 us");
  CHECK_FORMAT ("peak_teraflops_per_second", PLANAR_STAT_DOUBLE, 989.5, NULL, "989.50 TFLOP/s");
  CHECK_FORMAT ("peak_hbm_bw_gigabytes_per_second", PLANAR_STAT_DOUBLE, 3350, NULL, "3.35 TB/s");
  CHECK_FORMAT ("theoretical_occupancy_pct", PLANAR_STAT_DOUBLE, 62.5, NULL, "62.5 %");
  CHECK_FORMAT ("profile_start_time", PLANAR_STAT_UINT64, 1767225600123456789.0, NULL,
                "2026-01-01 00:00:00.123456768 UTC");
  /* Numbers without a unit, and strings, stay as the file has them. */
  CHECK_FORMAT ("correlation_id", PLANAR_STAT_UINT64, 1234567, NULL, "1234567");
  CHECK_FORMAT ("hlo_op", PLANAR_STAT_STRING, 0, "fusion.12", "fusion.12");
  CHECK_FORMAT ("context_id", PLANAR_STAT_STRING, 0, "$$17", "17");
  CHECK_FORMAT ("note", PLANAR_STAT_STRING, 0, "$$abc", "$$abc");
  CHECK_FORMAT ("kernel_details", PLANAR_STAT_REF, 0,
                "regs:32 static_shared:0 dynamic_shared:1024 grid:8,1,1 block:256,1,1 occ_pct:50",
                "regs: 32\nstatic_shared: 0\ndynamic_shared: 1024\ngrid: 8,1,1\nblock: 256,1,1\nocc_pct: 50");
  /* A details string that is not key:value pairs is shown as it is. */
  CHECK_FORMAT ("memcpy_details", PLANAR_STAT_STRING, 0, "odd text", "odd text");
  g_assert_true (planar_stat_is_key_stat ("hlo_module"));
  g_assert_true (planar_stat_is_key_stat ("source_stack"));
  g_assert_false (planar_stat_is_key_stat ("flops"));
}

static const PlanarHealthIssue *
find_issue (GPtrArray  *issues,
            const char *kind,
            const char *plane)
{
  for (guint i = 0; i < issues->len; i++)
    {
      const PlanarHealthIssue *issue = g_ptr_array_index (issues, i);

      if (g_strcmp0 (issue->kind, kind) == 0 && (plane == NULL || g_strcmp0 (issue->plane, plane) == 0))
        return issue;
    }
  return NULL;
}

static PlanarProfile *
load_profile (const char *path)
{
  const char *paths[] = { path, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(GError) error = NULL;

  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&profile);
}

static void
test_health_findings (PlanarTestFixture *f,
                      gconstpointer      data)
{
  XSpace *space = planar_test_space_new ();
  XPlane *gpu = planar_test_space_add_plane (space, 1, "/device:GPU:0");
  XLine *line;
  XEvent *ev;
  XStat *dropped;
  g_autofree char *session = g_build_filename (f->dir, "plugins", "profile", "2026_01_01_00_00_00", NULL);
  g_autofree char *path = NULL;
  g_autofree char *riegeli = g_build_filename (session, "other.xplane.riegeli", NULL);
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(PlanarCatalog) catalog = NULL;
  g_autoptr(GPtrArray) issues = NULL;
  g_autoptr(GError) error = NULL;
  const PlanarHealthIssue *issue;
  char *errors[] = { planar_test_keep_str ("CUPTI needs root") };
  char *warnings[] = { planar_test_keep_str ("Dropped 12 activity events"),
                       planar_test_keep_str ("Clock skew seen") };

  space->errors = g_memdup2 (errors, sizeof errors);
  space->n_errors = G_N_ELEMENTS (errors);
  space->warnings = g_memdup2 (warnings, sizeof warnings);
  space->n_warnings = G_N_ELEMENTS (warnings);

  planar_test_plane_add_event_metadata (gpu, 1, "kernel", NULL);
  planar_test_plane_add_stat_metadata (gpu, 50, "dropped_traces");
  dropped = planar_test_stat_uint (50, 5);
  PLANAR_TEST_APPEND (gpu->stats, gpu->n_stats, dropped);
  line = planar_test_plane_add_line (gpu, 7, "Stream #7(Compute)", 0);
  planar_test_line_add_event (line, 1, 0, 1000);
  /* Starts inside the first and ends after it: a partial overlap. */
  planar_test_line_add_event (line, 1, 500, 1000);
  ev = planar_test_line_add_event (line, 1, 0, 0);
  ev->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
  ev->num_occurrences = 3;

  planar_test_space_add_plane (space, 2, "/device:GPU:1");
  /* A metadata plane is empty by nature, and not reported. */
  planar_test_space_add_plane (space, 3, "/host:metadata");

  g_assert_cmpint (g_mkdir_with_parents (session, 0755), ==, 0);
  path = planar_test_write_space (space, session, "worker.xplane.pb");
  g_assert_true (g_file_set_contents (riegeli, "x", 1, NULL));

  catalog = planar_catalog_discover (f->dir, NULL, &error);
  g_assert_no_error (error);
  profile = load_profile (path);
  issues = planar_health_check (profile, planar_catalog_find_session (catalog, NULL));

  issue = find_issue (issues, "xspace-error", NULL);
  g_assert_nonnull (issue);
  g_assert_cmpint (issue->severity, ==, PLANAR_HEALTH_ERROR);
  g_assert_nonnull (strstr (issue->message, "CUPTI needs root"));
  g_assert_cmpstr (issue->host, ==, "worker");

  issue = find_issue (issues, "dropped-events", NULL);
  g_assert_nonnull (issue);
  g_assert_nonnull (strstr (issue->message, "Dropped 12"));
  issue = find_issue (issues, "dropped-events", "/device:GPU:0");
  g_assert_nonnull (issue);
  g_assert_cmpuint (issue->count, ==, 5);

  issue = find_issue (issues, "xspace-warning", NULL);
  g_assert_nonnull (issue);
  g_assert_nonnull (strstr (issue->message, "Clock skew"));

  g_assert_nonnull (find_issue (issues, "no-task-environment", NULL));

  issue = find_issue (issues, "partial-overlaps", "/device:GPU:0");
  g_assert_nonnull (issue);
  g_assert_cmpuint (issue->count, ==, 1);
  g_assert_cmpstr (issue->line, ==, "Stream #7(Compute)");

  issue = find_issue (issues, "aggregated-events", "/device:GPU:0");
  g_assert_nonnull (issue);
  g_assert_cmpuint (issue->count, ==, 1);

  g_assert_nonnull (find_issue (issues, "empty-plane", "/device:GPU:1"));
  g_assert_null (find_issue (issues, "empty-plane", "/host:metadata"));
  g_assert_null (find_issue (issues, "empty-plane", "/device:GPU:0"));

  issue = find_issue (issues, "unsupported-file", NULL);
  g_assert_nonnull (issue);
  g_assert_nonnull (strstr (issue->message, "other.xplane.riegeli"));

  /* Errors first, then warnings, then notes. */
  for (guint i = 1; i < issues->len; i++)
    {
      const PlanarHealthIssue *a = g_ptr_array_index (issues, i - 1);
      const PlanarHealthIssue *b = g_ptr_array_index (issues, i);

      g_assert_cmpint (a->severity, >=, b->severity);
    }
}

static void
test_health_clean (PlanarTestFixture *f,
                   gconstpointer      data)
{
  XSpace *space = planar_test_space_new ();
  XPlane *cpu = planar_test_space_add_plane (space, 1, "/host:CPU");
  XLine *line = planar_test_plane_add_line (cpu, 1, "main", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GPtrArray) issues = NULL;

  planar_test_add_task_environment (space, 1767225600000000000ull);
  planar_test_plane_add_event_metadata (cpu, 1, "step", NULL);
  planar_test_line_add_event (line, 1, 0, 1000);
  planar_test_line_add_event (line, 1, 100, 200);
  path = planar_test_write_space (space, f->dir, "clean.xplane.pb");
  profile = load_profile (path);
  issues = planar_health_check (profile, NULL);
  for (guint i = 0; i < issues->len; i++)
    g_test_message ("unexpected: %s", ((PlanarHealthIssue *) g_ptr_array_index (issues, i))->message);
  g_assert_cmpuint (issues->len, ==, 0);
}

/* On the real samples: every empty plane other than the metadata ones is
 * listed, and the overlaps reported are the model's count. */
static void
test_health_samples (void)
{
  const char *dir = planar_test_samples_dir ();
  g_autoptr(GDir) folder = NULL;
  const char *name;
  guint n = 0;

  if (!planar_test_need_samples ())
    return;
  folder = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (folder);
  while ((name = g_dir_read_name (folder)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autoptr(PlanarProfile) profile = NULL;
      g_autoptr(GPtrArray) issues = NULL;
      PlanarTrace *trace;
      guint64 overlaps = 0;

      if (!g_str_has_suffix (name, ".xplane.pb"))
        continue;
      path = g_build_filename (dir, name, NULL);
      profile = load_profile (path);
      issues = planar_health_check (profile, NULL);
      trace = planar_profile_get_trace (profile, 0);
      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);
          gboolean metadata = g_str_equal (plane->name, "Task Environment")
                              || g_str_equal (plane->name, "/host:metadata");

          g_assert_true ((find_issue (issues, "empty-plane", plane->name) != NULL)
                         == (plane->n_events == 0 && !metadata));
        }
      for (guint i = 0; i < issues->len; i++)
        {
          const PlanarHealthIssue *issue = g_ptr_array_index (issues, i);

          if (g_str_equal (issue->kind, "partial-overlaps"))
            overlaps += issue->count;
        }
      g_assert_cmpuint (overlaps, ==, planar_trace_get_n_overlaps (trace));
      n++;
    }
  g_assert_cmpuint (n, >=, 3);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stat-format/units", test_units);
  g_test_add_func ("/stat-format/format", test_format);
  g_test_add ("/health/findings", PlanarTestFixture, NULL, planar_test_fixture_setup, test_health_findings,
              planar_test_fixture_teardown);
  g_test_add ("/health/clean", PlanarTestFixture, NULL, planar_test_fixture_setup, test_health_clean,
              planar_test_fixture_teardown);
  g_test_add_func ("/health/samples", test_health_samples);
  return g_test_run ();
}
