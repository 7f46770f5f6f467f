/* test-health.c: stat values for people and the trace health report.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <string.h>

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

/* Bytes stats (serialized protobufs like memory_access_breakdown) read as
 * hex, never "<N bytes>"; XProf's internal stats are known; the achieved
 * rates; the GUI's one spelling of microseconds. */
static void
test_details_rules (void)
{
  static const char breakdown[] = { 0x0a, 0x06, 0x08, 0x01, 0x10, 0x01, 0x18, 0x40 };
  PlanarStat stat = { .name = "memory_access_breakdown", .kind = PLANAR_STAT_BYTES };
  g_autofree char *hex = NULL;
  g_autofree char *long_hex = NULL;
  g_autofree char *empty = NULL;
  g_autofree char *long_bytes = g_malloc0 (100);
  char *flops_rate = NULL, *bytes_rate = NULL;

  stat.str.data = breakdown;
  stat.str.len = sizeof breakdown;
  hex = planar_stat_format_display (&stat);
  g_assert_cmpstr (hex, ==, "0a 06 08 01 10 01 18 40 (8 bytes)");
  stat.str.data = long_bytes;
  stat.str.len = 100;
  long_hex = planar_stat_format_display (&stat);
  g_assert_true (g_str_has_suffix (long_hex, "00 \xe2\x80\xa6 (100 bytes)"));
  stat.str.len = 0;
  empty = planar_stat_format_display (&stat);
  g_assert_cmpstr (empty, ==, "(0 bytes)");

  for (guint i = 0; i < 6; i++)
    g_assert_true (planar_stat_is_internal ((const char *[]) { "_pt", "_p", "_ct", "_c", "_r", "_a" }[i]));
  g_assert_false (planar_stat_is_internal ("flops"));
  g_assert_false (planar_stat_is_internal ("_cx"));
  g_assert_false (planar_stat_is_internal ("correlation_id"));
  g_assert_false (planar_stat_is_internal (NULL));

  /* 2 GFLOP and 1 GB in 1 ms. */
  g_assert_true (planar_format_achieved_rates (2e9, 1e9, 1000000000, &flops_rate, &bytes_rate));
  g_assert_cmpstr (flops_rate, ==, "2.00 TFLOP/s");
  g_assert_cmpstr (bytes_rate, ==, "1.00 TB/s");
  g_clear_pointer (&flops_rate, g_free);
  g_clear_pointer (&bytes_rate, g_free);
  g_assert_true (planar_format_achieved_rates (0, 5e8, 1000000000000, &flops_rate, &bytes_rate));
  g_assert_null (flops_rate);
  g_assert_cmpstr (bytes_rate, ==, "500.00 MB/s");
  g_clear_pointer (&bytes_rate, g_free);
  g_assert_false (planar_format_achieved_rates (1, 1, 0, &flops_rate, &bytes_rate));
  g_assert_null (flops_rate);
  g_assert_null (bytes_rate);

  {
    g_autofree char *a = planar_stat_micro_sign ("12 events in 2.500 us from 1.000 s");
    g_autofree char *b = planar_stat_micro_sign ("status: 3 users");
    g_autofree char *c = planar_stat_micro_sign ("us 5 us");

    g_assert_cmpstr (a, ==, "12 events in 2.500 \xc2\xb5s from 1.000 s");
    g_assert_cmpstr (b, ==, "status: 3 users");
    g_assert_cmpstr (c, ==, "us 5 \xc2\xb5s");
  }
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
  {
    /* On a host thread the same overlap is a note too (JAX's host
     * threads have them on every step), under its own name. */
    XPlane *cpu = planar_test_space_add_plane (space, 4, "/host:CPU");
    XLine *thread;

    planar_test_plane_add_event_metadata (cpu, 1, "work", NULL);
    thread = planar_test_plane_add_line (cpu, 9, "python3", 0);
    planar_test_line_add_event (thread, 1, 0, 1000);
    planar_test_line_add_event (thread, 1, 500, 1000);
  }
  /* A metadata plane is empty by nature, and not reported; so is JAX
   * 0.11's plane of scope range parents. */
  planar_test_space_add_plane (space, 3, "/host:metadata");
  planar_test_space_add_plane (space, 5, "/host:__ScopeRangeCallStack__");

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

  /* On a GPU stream an overlap is a note (a kernel started early, as on
   * an H100), not a warning. */
  g_assert_null (find_issue (issues, "partial-overlaps", "/device:GPU:0"));
  issue = find_issue (issues, "stream-overlaps", "/device:GPU:0");
  g_assert_nonnull (issue);
  g_assert_cmpint (issue->severity, ==, PLANAR_HEALTH_INFO);
  g_assert_cmpuint (issue->count, ==, 1);
  g_assert_cmpstr (issue->line, ==, "Stream #7(Compute)");
  issue = find_issue (issues, "partial-overlaps", "/host:CPU");
  g_assert_nonnull (issue);
  g_assert_cmpint (issue->severity, ==, PLANAR_HEALTH_INFO);
  g_assert_cmpuint (issue->count, ==, 1);
  g_assert_cmpstr (issue->line, ==, "python3");

  issue = find_issue (issues, "aggregated-events", "/device:GPU:0");
  g_assert_nonnull (issue);
  g_assert_cmpuint (issue->count, ==, 1);

  g_assert_nonnull (find_issue (issues, "empty-plane", "/device:GPU:1"));
  g_assert_null (find_issue (issues, "empty-plane", "/host:metadata"));
  g_assert_null (find_issue (issues, "empty-plane", "/host:__ScopeRangeCallStack__"));
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

static char *
write_cpu_host (const char *dir,
                const char *name,
                guint64     start_ns)
{
  XSpace *space = planar_test_space_new ();
  XPlane *cpu;

  planar_test_add_task_environment (space, start_ns);
  cpu = planar_test_space_add_plane (space, 1, "/host:CPU");
  planar_test_plane_add_event_metadata (cpu, 1, "step", NULL);
  planar_test_line_add_event (planar_test_plane_add_line (cpu, 1, "main", 0), 1, 0, 1000);
  return planar_test_write_space (space, dir, name);
}

/* What a load lost or decided is in the report: a host left out, hosts
 * shown from their own starts, a file cut short (with the technical
 * detail). */
static void
test_health_losses (PlanarTestFixture *f,
                    gconstpointer      data)
{
  const guint64 start = 1767225600000000000ull;
  g_autofree char *a = write_cpu_host (f->dir, "a.xplane.pb", start);
  g_autofree char *far = write_cpu_host (f->dir, "far.xplane.pb", start + 200ull * 86400 * 1000000000);
  g_autofree char *bad = g_build_filename (f->dir, "bad.xplane.pb", NULL);
  g_autofree char *cut = write_cpu_host (f->dir, "cut.xplane.pb", start + 5000);
  g_autofree char *contents = NULL;
  const char *paths[] = { a, bad, far, cut, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(GPtrArray) issues = NULL;
  g_autoptr(GError) error = NULL;
  const PlanarHealthIssue *issue;
  gsize size;

  g_assert_true (g_file_set_contents (bad, "\x0d\x01\x02\x03\x04 not a profile", -1, NULL));
  g_assert_true (g_file_get_contents (cut, &contents, &size, NULL));
  g_assert_true (g_file_set_contents (cut, contents, (gssize) size - 3, NULL));

  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  issues = planar_health_check (profile, NULL);

  issue = find_issue (issues, "unreadable-host", NULL);
  g_assert_nonnull (issue);
  g_assert_cmpint (issue->severity, ==, PLANAR_HEALTH_WARNING);
  g_assert_cmpstr (issue->host, ==, "bad");
  g_assert_nonnull (strstr (issue->message, bad));

  issue = find_issue (issues, "hosts-not-overlapping", NULL);
  g_assert_nonnull (issue);
  g_assert_null (issue->host);
  g_assert_nonnull (strstr (issue->message, "each is shown from its own start"));

  issue = find_issue (issues, "file-cut-short", NULL);
  g_assert_nonnull (issue);
  g_assert_cmpint (issue->severity, ==, PLANAR_HEALTH_WARNING);
  g_assert_cmpstr (issue->host, ==, "cut");
  g_assert_nonnull (strstr (issue->message, "The file ends early"));
  g_assert_nonnull (strstr (issue->message, "at byte "));
}

/* One damaged XStat inside a sound XEvent: the event's other stats are
 * still read, the damaged one is counted, and health reports it. */
static void
test_health_damaged_stat (PlanarTestFixture *f,
                          gconstpointer      data)
{
  static const char field[] = "\x2a\x05" "BROKE";
  XSpace *space = planar_test_space_new ();
  XPlane *cpu = planar_test_space_add_plane (space, 1, "/host:CPU");
  XLine *line = planar_test_plane_add_line (cpu, 1, "main", 0);
  XEvent *ev;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *first = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GPtrArray) issues = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autoptr(GError) error = NULL;
  const PlanarHealthIssue *issue;
  PlanarTrace *trace;
  const PlanarPlane *plane;
  char *at;
  gsize len;

  planar_test_add_task_environment (space, 1767225600000000000ull);
  planar_test_plane_add_stat_metadata (cpu, 1, "before");
  planar_test_plane_add_stat_metadata (cpu, 2, "broken");
  planar_test_plane_add_stat_metadata (cpu, 3, "after");
  planar_test_plane_add_event_metadata (cpu, 1, "step", NULL);
  ev = planar_test_line_add_event (line, 1, 0, 1000);
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_uint (1, 11));
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_str (2, "BROKE"));
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_uint (3, 33));
  planar_test_line_add_event (line, 1, 2000, 1000);
  path = planar_test_write_space (space, f->dir, "damaged.xplane.pb");

  /* The string's field gets a wire type str_value cannot have. */
  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  at = memmem (contents, len, field, sizeof field - 1);
  g_assert_nonnull (at);
  at[0] = 0x29;
  g_file_set_contents (path, contents, (gssize) len, &error);
  g_assert_no_error (error);

  profile = load_profile (path);
  trace = planar_profile_get_trace (profile, 0);
  plane = planar_trace_find_plane (trace, "/host:CPU");
  g_assert_nonnull (plane);

  /* The stats around it are read. */
  g_assert_cmpuint (planar_trace_get_event_stats (trace, plane, &plane->tracks[0].events[0], stats, &error), ==, 2);
  g_assert_no_error (error);
  g_assert_cmpstr (g_array_index (stats, PlanarStat, 0).name, ==, "before");
  g_assert_cmpuint (g_array_index (stats, PlanarStat, 0).v.u64, ==, 11);
  g_assert_cmpstr (g_array_index (stats, PlanarStat, 1).name, ==, "after");
  g_assert_cmpuint (g_array_index (stats, PlanarStat, 1).v.u64, ==, 33);

  /* Met once or twice, it is one damaged stat. */
  g_array_set_size (stats, 0);
  planar_trace_get_event_stats (trace, plane, &plane->tracks[0].events[0], stats, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (planar_trace_get_n_damaged_stats (trace, &first), ==, 1);
  g_assert_nonnull (strstr (first, "XStat at byte "));
  g_assert_nonnull (strstr (first, "damaged.xplane.pb"));
  g_clear_pointer (&first, g_free);
  g_assert_cmpuint (planar_trace_count_damaged_stats (trace, &first), ==, 1);

  issues = planar_health_check (profile, NULL);
  issue = find_issue (issues, "damaged-stats", NULL);
  g_assert_nonnull (issue);
  g_assert_cmpint (issue->severity, ==, PLANAR_HEALTH_WARNING);
  g_assert_cmpuint (issue->count, ==, 1);
  g_assert_cmpstr (issue->host, ==, "damaged");
  g_assert_nonnull (strstr (issue->message, first));
}

/* Counting reads every event: a damaged stat nobody asked for is found. */
/* A load that counts stats as it decodes (planar_profile_set_count_stats()):
 * @n_damaged is the count after the load, before any pass over the file,
 * @first what it says of the first (NULL when the load failed). */
static PlanarProfile *
load_counting (const char  *path,
               gboolean     count_stats,
               guint64     *n_damaged,
               char       **first)
{
  const char *paths[] = { path, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  PlanarTrace *trace;

  planar_profile_set_count_stats (profile, count_stats);
  if (!planar_profile_load (profile, NULL, NULL))
    {
      *n_damaged = 0;
      *first = NULL;
      return NULL;
    }
  trace = planar_profile_get_trace (profile, 0);
  *n_damaged = count_stats ? planar_trace_get_n_damaged_stats (trace, first)
                           : planar_trace_count_damaged_stats (trace, first);
  return g_steal_pointer (&profile);
}

static void
test_health_damaged_count (PlanarTestFixture *f,
                           gconstpointer      data)
{
  static const char field[] = "\x2a\x04" "GONE";
  XSpace *space = planar_test_space_new ();
  XPlane *cpu = planar_test_space_add_plane (space, 1, "/host:CPU");
  XLine *line = planar_test_plane_add_line (cpu, 1, "main", 0);
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GPtrArray) issues = NULL;
  g_autoptr(GError) error = NULL;
  PlanarTrace *trace;
  gsize len;
  guint n_damaged = 0;

  planar_test_add_task_environment (space, 1767225600000000000ull);
  planar_test_plane_add_stat_metadata (cpu, 1, "note");
  planar_test_plane_add_event_metadata (cpu, 1, "step", NULL);
  for (int i = 0; i < 5; i++)
    {
      XEvent *ev = planar_test_line_add_event (line, 1, i * 2000, 1000);

      PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_str (1, i % 2 ? "GONE" : "kept"));
    }
  path = planar_test_write_space (space, f->dir, "two.xplane.pb");
  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  for (char *at = contents; (at = memmem (at, len - (gsize) (at - contents), field, sizeof field - 1)) != NULL; at++)
    {
      at[0] = 0x29;
      n_damaged++;
    }
  g_assert_cmpuint (n_damaged, ==, 2);
  g_file_set_contents (path, contents, (gssize) len, &error);
  g_assert_no_error (error);

  profile = load_profile (path);
  trace = planar_profile_get_trace (profile, 0);
  g_assert_cmpuint (planar_trace_get_n_damaged_stats (trace, NULL), ==, 0);
  g_assert_cmpuint (planar_trace_count_damaged_stats (trace, NULL), ==, 2);
  g_assert_cmpuint (planar_trace_get_n_damaged_stats (trace, NULL), ==, 2);
  issues = planar_health_check (profile, NULL);
  g_assert_cmpuint (find_issue (issues, "damaged-stats", NULL)->count, ==, 2);

  /* A load that checks the stats as it decodes knows the count at once,
   * and what it says of the first is what the pass over the file says. */
  {
    g_autofree char *first = NULL, *first_counted = NULL;
    g_autoptr(PlanarProfile) counting = NULL;
    guint64 n = 0;

    planar_trace_get_n_damaged_stats (trace, &first);
    counting = load_counting (path, TRUE, &n, &first_counted);
    g_assert_nonnull (counting);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpstr (first_counted, ==, first);
    g_assert_cmpuint (planar_trace_count_damaged_stats (planar_profile_get_trace (counting, 0), NULL), ==, 2);
  }
}

/* Bytes changed at random in a profile whose events carry every kind of
 * stat: each file that loads has the same count of damaged stats, and the
 * same first one, whether the decode counted them or the pass over the
 * file did; a file that does not load fails both ways. */
static void
test_health_damaged_count_decoding (PlanarTestFixture *f,
                                    gconstpointer      data)
{
  static const guint8 blob[] = { 1, 2, 3, 4 };
  XSpace *space = planar_test_space_new ();
  XPlane *cpu = planar_test_space_add_plane (space, 1, "/host:CPU");
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (21);
  guint n_loaded = 0, n_damaged_files = 0;
  gsize len;

  planar_test_add_task_environment (space, 1767225600000000000ull);
  planar_test_plane_add_stat_metadata (cpu, 1, "count");
  planar_test_plane_add_stat_metadata (cpu, 2, "note");
  planar_test_plane_add_stat_metadata (cpu, 3, "kind");
  planar_test_plane_add_stat_metadata (cpu, 4, "ratio");
  planar_test_plane_add_stat_metadata (cpu, 5, "blob");
  planar_test_plane_add_event_metadata (cpu, 1, "step", NULL);
  for (int l = 0; l < 2; l++)
    {
      XLine *line = planar_test_plane_add_line (cpu, l + 1, l == 0 ? "main" : "worker", 0);

      for (int i = 0; i < 24; i++)
        {
          XEvent *ev = planar_test_line_add_event (line, 1, i * 2000, 1000);

          PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_uint (1, (guint64) i));
          PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_str (2, "text"));
          PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_ref (3, 2));
          PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_double (4, 0.5));
          PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_bytes (5, blob, sizeof blob));
        }
    }
  path = planar_test_write_space (space, f->dir, "stats.xplane.pb");
  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);

  for (guint round = 0; round < 300; round++)
    {
      g_autofree char *copy = g_memdup2 (contents, len);
      g_autofree char *name = g_strdup_printf ("changed-%u.xplane.pb", round);
      g_autofree char *changed = g_build_filename (f->dir, name, NULL);
      g_autofree char *first_decoded = NULL, *first_counted = NULL;
      g_autoptr(PlanarProfile) decoded = NULL, counted = NULL;
      guint64 n_decoded = 0, n_counted = 0;

      /* Past the Task Environment, in the events. */
      for (guint k = 0; k < 1 + round % 3; k++)
        copy[g_rand_int_range (rand, (gint32) (len / 8), (gint32) len)] = (char) g_rand_int_range (rand, 0, 256);
      g_file_set_contents (changed, copy, (gssize) len, &error);
      g_assert_no_error (error);

      decoded = load_counting (changed, TRUE, &n_decoded, &first_decoded);
      counted = load_counting (changed, FALSE, &n_counted, &first_counted);
      g_assert_true ((decoded == NULL) == (counted == NULL));
      g_assert_cmpuint (n_decoded, ==, n_counted);
      g_assert_cmpstr (first_decoded, ==, first_counted);
      n_loaded += decoded != NULL;
      n_damaged_files += n_decoded > 0;
    }
  /* The rounds met both. */
  g_assert_cmpuint (n_loaded, >=, 30);
  g_assert_cmpuint (n_damaged_files, >=, 10);
}

/* On the real samples: every empty plane other than the metadata ones is
 * listed, and the overlaps reported are the model's count. */
static void
test_health_samples (void)
{
  g_autoptr(GPtrArray) paths = planar_test_list_samples (".xplane.pb");
  guint n = 0;

  if (paths == NULL)
    return;
  for (guint s = 0; s < paths->len; s++)
    {
      const char *path = g_ptr_array_index (paths, s);
      g_autoptr(PlanarProfile) profile = NULL;
      g_autoptr(GPtrArray) issues = NULL;
      PlanarTrace *trace;
      guint64 overlaps = 0;

      profile = load_profile (path);
      issues = planar_health_check (profile, NULL);
      trace = planar_profile_get_trace (profile, 0);
      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);
          gboolean metadata = g_str_equal (plane->name, "Task Environment")
                              || g_str_equal (plane->name, "/host:metadata")
                              || g_str_equal (plane->name, "/host:__ScopeRangeCallStack__");

          g_assert_true ((find_issue (issues, "empty-plane", plane->name) != NULL)
                         == (plane->n_events == 0 && !metadata));
        }
      for (guint i = 0; i < issues->len; i++)
        {
          const PlanarHealthIssue *issue = g_ptr_array_index (issues, i);

          if (g_str_equal (issue->kind, "partial-overlaps") || g_str_equal (issue->kind, "stream-overlaps"))
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
  g_test_add_func ("/stat-format/details-rules", test_details_rules);
  PLANAR_TEST_ADD ("/health/findings", test_health_findings);
  PLANAR_TEST_ADD ("/health/clean", test_health_clean);
  g_test_add_func ("/health/samples", test_health_samples);
  PLANAR_TEST_ADD ("/health/losses", test_health_losses);
  PLANAR_TEST_ADD ("/health/damaged-stat", test_health_damaged_stat);
  PLANAR_TEST_ADD ("/health/damaged-count", test_health_damaged_count);
  PLANAR_TEST_ADD ("/health/damaged-count-decoding", test_health_damaged_count_decoding);
  return g_test_run ();
}
