/* test-cache.c: the cached index (model/io/planar-cache.c).
 *
 * A profile restored from its cache must be the profile decoded: every
 * plane, line, metadata entry (derived ones with their stats), track with
 * all its index arrays, flow, derived source, counter and event stat is
 * compared. A cache that is stale (the profile changed, even with the same
 * size and modification time, or its time offset in a session), truncated
 * or damaged anywhere is not used, and the load gives the decoded profile;
 * one that fails after its first tracks are out never aborts the process.
 * A cache path that is not a regular file (a FIFO, a symbolic link) is
 * neither waited on nor followed. The folder's cap evicts the least recently
 * used files. An index in file-backed memory (planar-spill.c) is the same
 * index, and its files go with the trace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <glib/gstdio.h>

#include "planar-cache-private.h"
#include "planar-flows-index-private.h"
#include "planar-model.h"
#include "planar-spill.h"
#include "planar-spill-private.h"
#include "planar-trace-loader-private.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"

/* ------------------------------------------------------------------------
 * Comparing two traces
 * ------------------------------------------------------------------------ */

static void
compare_stats (GArray *a,
               GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const PlanarStat *x = &g_array_index (a, PlanarStat, i), *y = &g_array_index (b, PlanarStat, i);
      g_autofree char *vx = planar_stat_format_value (x);
      g_autofree char *vy = planar_stat_format_value (y);

      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpint (x->kind, ==, y->kind);
      g_assert_cmpstr (vx, ==, vy);
    }
}

static void
compare_metadata (const PlanarEventMetadata *a,
                  const PlanarEventMetadata *b)
{
  g_assert_cmpint (a->id, ==, b->id);
  g_assert_cmpstr (a->name, ==, b->name);
  g_assert_cmpstr (a->display_name, ==, b->display_name);
  g_assert_cmpint (a->internal, ==, b->internal);
  g_assert_cmpuint (a->n_stats, ==, b->n_stats);
  for (guint s = 0; s < a->n_stats; s++)
    {
      g_autofree char *va = planar_stat_format_value (&a->stats[s]);
      g_autofree char *vb = planar_stat_format_value (&b->stats[s]);

      g_assert_cmpstr (a->stats[s].name, ==, b->stats[s].name);
      g_assert_cmpint (a->stats[s].kind, ==, b->stats[s].kind);
      g_assert_cmpstr (va, ==, vb);
    }
}

static void
compare_arrays (const void *a,
                const void *b,
                gsize       len)
{
  if (len == 0)
    return;
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_true (memcmp (a, b, len) == 0);
}

static void
compare_tracks (const PlanarTrack *a,
                const PlanarTrack *b)
{
  guint n_depths = a->max_depth + 1;

  g_assert_cmpint (a->id, ==, b->id);
  g_assert_cmpint (a->display_id, ==, b->display_id);
  g_assert_cmpstr (a->name, ==, b->name);
  g_assert_cmpstr (a->display_name, ==, b->display_name);
  g_assert_cmpuint (a->row, ==, b->row);
  g_assert_cmpuint (a->n_events, ==, b->n_events);
  g_assert_cmpuint (a->n_aggregated, ==, b->n_aggregated);
  g_assert_cmpuint (a->max_depth, ==, b->max_depth);
  g_assert_cmpuint (a->n_overlaps, ==, b->n_overlaps);
  g_assert_cmpint (a->start_ps, ==, b->start_ps);
  g_assert_cmpint (a->end_ps, ==, b->end_ps);
  g_assert_cmpint (a->derived, ==, b->derived);
  g_assert_cmpuint (a->n_children, ==, b->n_children);
  if (a->derived)
    g_assert_cmpuint (a->source_track, ==, b->source_track);
  compare_arrays (a->events, b->events, a->n_events * sizeof (PlanarEvent));
  compare_arrays (a->aggregated, b->aggregated, a->n_aggregated * sizeof (PlanarEvent));
  compare_arrays (a->children, b->children, a->n_children * 2 * sizeof (guint64));
  g_assert_true ((a->depth_order == NULL) == (b->depth_order == NULL));
  if (a->depth_order != NULL)
    compare_arrays (a->depth_order, b->depth_order, a->n_events * sizeof (guint32));
  compare_arrays (a->depth_offsets, b->depth_offsets, (n_depths + 1) * sizeof (gsize));
  compare_arrays (a->depth_ends_sorted, b->depth_ends_sorted, n_depths * sizeof (gboolean));
  compare_arrays (a->depth_starts, b->depth_starts, a->n_events * sizeof (gint64));
}

static void
compare_traces (PlanarTrace *a,
                PlanarTrace *b)
{
  const PlanarFlowIndex *fa = planar_trace_get_flows (a), *fb = planar_trace_get_flows (b);
  const PlanarCounterSet *ca = planar_trace_get_counters (a), *cb = planar_trace_get_counters (b);
  g_autoptr(GArray) sa = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autoptr(GArray) sb = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  gint64 a0 = 0, a1 = 0, b0 = 0, b1 = 0;

  g_assert_true (planar_trace_is_decoded (a));
  g_assert_true (planar_trace_is_decoded (b));
  g_assert_cmpuint (planar_trace_get_n_planes (a), ==, planar_trace_get_n_planes (b));
  g_assert_cmpuint (planar_trace_get_n_events (a), ==, planar_trace_get_n_events (b));
  g_assert_cmpuint (planar_trace_get_n_overlaps (a), ==, planar_trace_get_n_overlaps (b));
  g_assert_cmpint (planar_trace_get_span (a, &a0, &a1), ==, planar_trace_get_span (b, &b0, &b1));
  g_assert_cmpint (a0, ==, b0);
  g_assert_cmpint (a1, ==, b1);
  g_assert_cmpint (planar_trace_is_aligned_at_earliest_event (a), ==, planar_trace_is_aligned_at_earliest_event (b));
  g_assert_cmpuint (planar_trace_get_n_dropped_derived_lines (a), ==, planar_trace_get_n_dropped_derived_lines (b));

  for (guint p = 0; p < planar_trace_get_n_planes (a); p++)
    {
      const PlanarPlane *pa = planar_trace_get_plane (a, p), *pb = planar_trace_get_plane (b, p);

      g_assert_cmpstr (pa->name, ==, pb->name);
      g_assert_cmpuint (pa->n_events, ==, pb->n_events);
      g_assert_cmpuint (pa->n_rows, ==, pb->n_rows);
      g_assert_cmpuint (pa->n_lines, ==, pb->n_lines);
      for (guint l = 0; l < pa->n_lines; l++)
        {
          const PlanarLine *la = &pa->lines[l], *lb = &pb->lines[l];

          g_assert_cmpint (la->id, ==, lb->id);
          g_assert_cmpint (la->display_id, ==, lb->display_id);
          g_assert_cmpstr (la->name, ==, lb->name);
          g_assert_cmpstr (la->display_name, ==, lb->display_name);
          g_assert_cmpint (la->timestamp_ns, ==, lb->timestamp_ns);
          g_assert_cmpint (la->duration_ps, ==, lb->duration_ps);
          g_assert_cmpuint (la->n_events, ==, lb->n_events);
          g_assert_cmpuint (la->track, ==, lb->track);
          g_assert_cmpint (la->derived, ==, lb->derived);
        }
      g_assert_cmpuint (pa->n_metadata, ==, pb->n_metadata);
      for (guint m = 0; m < pa->n_metadata; m++)
        compare_metadata (&pa->metadata[m], &pb->metadata[m]);
      g_assert_cmpuint (pa->n_tracks, ==, pb->n_tracks);
      for (guint t = 0; t < pa->n_tracks; t++)
        {
          const PlanarTrack *ta = &pa->tracks[t], *tb = &pb->tracks[t];

          g_assert_true (planar_trace_is_track_ready (b, p, t));
          compare_tracks (ta, tb);
          /* Every event's stats (derived ones from the derived sources),
           * for the first and last few events of each track. */
          for (gsize i = 0; i < ta->n_events; i = i < 16 || i + 16 >= ta->n_events ? i + 1 : ta->n_events - 16)
            {
              PlanarEventRef ra, rb;
              gboolean ha = planar_trace_get_derived_source (a, &ta->events[i], &ra);
              gboolean hb = planar_trace_get_derived_source (b, &tb->events[i], &rb);

              g_assert_cmpint (ha, ==, hb);
              if (ha)
                g_assert_true (memcmp (&ra, &rb, sizeof ra) == 0);
              g_array_set_size (sa, 0);
              g_array_set_size (sb, 0);
              planar_trace_get_event_stats (a, pa, &ta->events[i], sa, NULL);
              planar_trace_get_event_stats (b, pb, &tb->events[i], sb, NULL);
              compare_stats (sa, sb);
            }
        }
    }

  g_assert_true ((fa == NULL) == (fb == NULL));
  if (fa != NULL)
    {
      g_assert_cmpuint (planar_flow_index_get_n_flows (fa), ==, planar_flow_index_get_n_flows (fb));
      g_assert_cmpuint (planar_flow_index_get_n_complete (fa, PLANAR_FLOW_CATEGORY_ALL), ==,
                        planar_flow_index_get_n_complete (fb, PLANAR_FLOW_CATEGORY_ALL));
      g_assert_cmpuint (planar_flow_index_get_n_dangling (fa, PLANAR_FLOW_CATEGORY_ALL), ==,
                        planar_flow_index_get_n_dangling (fb, PLANAR_FLOW_CATEGORY_ALL));
      for (gsize i = 0; i < planar_flow_index_get_n_flows (fa); i++)
        {
          PlanarFlow x, y;

          planar_flow_index_get_flow (fa, i, &x);
          planar_flow_index_get_flow (fb, i, &y);
          g_assert_cmpuint (x.id, ==, y.id);
          g_assert_cmpuint (x.category, ==, y.category);
          g_assert_cmpint (x.from_ps, ==, y.from_ps);
          g_assert_cmpint (x.to_ps, ==, y.to_ps);
          g_assert_true (memcmp (&x.from, &y.from, sizeof x.from) == 0);
          g_assert_true (memcmp (&x.to, &y.to, sizeof x.to) == 0);
        }
    }
  g_assert_true ((ca == NULL) == (cb == NULL));
  if (ca != NULL)
    {
      g_assert_cmpuint (planar_counter_set_get_n_series (ca), ==, planar_counter_set_get_n_series (cb));
      for (guint i = 0; i < planar_counter_set_get_n_series (ca); i++)
        g_assert_cmpstr (planar_counter_series_get_name (planar_counter_set_get_series (ca, i)), ==,
                         planar_counter_series_get_name (planar_counter_set_get_series (cb, i)));
    }
}

/* ------------------------------------------------------------------------
 * Profiles
 * ------------------------------------------------------------------------ */

static char *
generate_full (const char *dir,
               const char *events,
               const char *seed,
               gboolean    task_env)
{
  g_autofree char *name = g_strdup_printf ("gen-%s-%s%s.xplane.pb", events, seed, task_env ? "" : "-no-env");
  char *path = g_build_filename (dir, name, NULL);
  const char *argv[] = { g_getenv ("PLANAR_GEN"), "--events", events, "--seed", seed, "-o", path,
                         task_env ? NULL : "--no-task-env", NULL };
  g_autoptr(GError) error = NULL;
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return path;
}

static char *
generate (const char *dir,
          const char *events,
          const char *seed)
{
  return generate_full (dir, events, seed, TRUE);
}

/* A load of @path whose index spills as @spill says (-1: as its size
 * says), keeping @first_heap bytes of it in memory, through a loader of
 * its own. */
static PlanarTrace *
load_spilled_first_heap (const char *path,
                         gint        spill,
                         gint64      first_heap)
{
  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
  PlanarTraceTestOptions options = { NULL, NULL, spill, first_heap };
  g_autoptr(GError) error = NULL;

  _planar_trace_loader_set_test_options (loader, &options);
  g_assert_true (planar_trace_loader_open (loader, NULL, &error));
  g_assert_true (planar_trace_loader_decode (loader, NULL, &error));
  g_assert_no_error (error);
  return g_object_ref (planar_trace_loader_get_trace (loader));
}

/* A load of @path whose index spills as @spill says (-1: as its size
 * says), through a loader of its own. */
static PlanarTrace *
load_spilled (const char *path,
              gint        spill)
{
  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
  PlanarTraceTestOptions options = { NULL, NULL, spill };
  g_autoptr(GError) error = NULL;

  _planar_trace_loader_set_test_options (loader, &options);
  g_assert_true (planar_trace_loader_open (loader, NULL, &error));
  g_assert_true (planar_trace_loader_decode (loader, NULL, &error));
  g_assert_no_error (error);
  return g_object_ref (planar_trace_loader_get_trace (loader));
}

static PlanarTrace *
load_cold_spilled (const char *path,
                   gint        spill)
{
  PlanarTrace *trace;

  planar_cache_set_enabled (FALSE);
  trace = load_spilled (path, spill);
  planar_cache_set_enabled (TRUE);
  g_assert_false (_planar_cache_was_restored (trace));
  return trace;
}

static PlanarTrace *
load_cold (const char *path)
{
  return load_cold_spilled (path, -1);
}

/* The profile through the cache folder: loaded once (writing its cache),
 * then again (from the cache). Returns the second. */
static PlanarTrace *
load_twice_spilled (const char *path,
                    gint        spill)
{
  g_autoptr(PlanarTrace) first = NULL;
  g_autofree char *cache = planar_cache_get_path (path);
  PlanarTrace *second;

  g_unlink (cache);
  first = load_spilled (path, spill);
  g_assert_false (_planar_cache_was_restored (first));
  planar_cache_wait ();
  g_assert_true (g_file_test (cache, G_FILE_TEST_IS_REGULAR));
  second = load_spilled (path, spill);
  g_assert_true (_planar_cache_was_restored (second));
  return second;
}

static PlanarTrace *
load_twice (const char *path)
{
  return load_twice_spilled (path, -1);
}

static GPtrArray *
sample_profiles (const char *dir)
{
  GPtrArray *paths = NULL;

  /* The samples when they are there (without them, the generated profiles
   * only: the case does not skip). */
  if (planar_test_samples_dir () != NULL)
    paths = planar_test_list_samples (".xplane.pb");
  else
    paths = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (paths, generate (dir, "20000", "1"));
  g_ptr_array_add (paths, generate (dir, "3000", "7"));
  /* Without a profile start: aligned at the earliest event, restored all
   * or nothing. */
  g_ptr_array_add (paths, generate_full (dir, "3000", "8", FALSE));
  return paths;
}

static void
use_cache_dir (PlanarTestFixture *f)
{
  g_autofree char *cache = g_build_filename (f->dir, "cache", NULL);

  planar_cache_set_dir (cache);
  planar_cache_set_enabled (TRUE);
  planar_cache_set_limit (G_GUINT64_CONSTANT (1) << 30);
}

/* ------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------ */

/* Every flow of @trace joins events of the file's own tracks: a restore
 * checks the flows while the derived tracks are still being filled, and
 * takes a flow that names a derived event for damage. */
static void
assert_flows_on_file_tracks (PlanarTrace *trace)
{
  const PlanarFlowIndex *flows = planar_trace_get_flows (trace);
  gsize n = flows != NULL ? planar_flow_index_get_n_flows (flows) : 0;

  for (gsize i = 0; i < n; i++)
    {
      PlanarFlow flow;
      const PlanarEventRef *ends[2] = { &flow.from, &flow.to };

      planar_flow_index_get_flow (flows, i, &flow);
      for (guint e = 0; e < 2; e++)
        if (!planar_event_ref_is_none (ends[e]))
          g_assert_false (planar_trace_get_plane (trace, ends[e]->plane)->tracks[ends[e]->track].derived);
    }
}

static void
test_same_profile (PlanarTestFixture *f,
                   gconstpointer      data)
{
  g_autoptr(GPtrArray) paths = NULL;
  gsize n_flows = 0;

  use_cache_dir (f);
  paths = sample_profiles (f->dir);
  for (guint i = 0; i < paths->len; i++)
    {
      g_autoptr(PlanarTrace) cold = load_cold (paths->pdata[i]);
      g_autoptr(PlanarTrace) cached = load_twice (paths->pdata[i]);

      g_test_message ("%s", (const char *) paths->pdata[i]);
      compare_traces (cold, cached);
      assert_flows_on_file_tracks (cold);
      if (planar_trace_get_flows (cold) != NULL)
        n_flows += planar_flow_index_get_n_flows (planar_trace_get_flows (cold));
    }
  g_assert_cmpuint (n_flows, >, 0);
}

/* An index written in an older format (version 4 had 40-byte flows with
 * their two times beside them, 24-byte derived sources): not used, never
 * misread; the profile is decoded and its index written again in the
 * current format. */
static void
test_old_version (PlanarTestFixture *f,
                  gconstpointer      data)
{
  g_autofree char *path = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *good = NULL;
  g_autoptr(PlanarTrace) cold = NULL;
  guint32 version;
  gsize len;

  use_cache_dir (f);
  path = generate (f->dir, "5000", "5");
  cache = planar_cache_get_path (path);
  cold = load_cold (path);
  g_assert_nonnull (planar_trace_get_flows (cold));
  g_assert_cmpuint (planar_flow_index_get_n_flows (planar_trace_get_flows (cold)), >, 0);
  g_object_unref (load_twice (path));
  planar_cache_wait ();
  g_assert_true (g_file_get_contents (cache, &good, &len, NULL));
  /* The header: an 8-byte magic, then the version. */
  g_assert_cmpuint (len, >, 12);
  memcpy (&version, good + 8, sizeof version);
  g_assert_cmpuint (version, >=, 6);

  for (guint32 old = 1; old < version; old++)
    {
      g_autofree char *bad = g_memdup2 (good, len);
      g_autofree char *rewritten = NULL;
      g_autoptr(PlanarTrace) loaded = NULL;
      gsize rewritten_len;

      memcpy (bad + 8, &old, sizeof old);
      g_assert_true (g_file_set_contents (cache, bad, (gssize) len, NULL));
      loaded = planar_test_load_ok (path);
      g_assert_false (_planar_cache_was_restored (loaded));
      compare_traces (cold, loaded);
      planar_cache_wait ();
      g_assert_true (g_file_get_contents (cache, &rewritten, &rewritten_len, NULL));
      g_assert_cmpuint (rewritten_len, ==, len);
      g_assert_true (memcmp (rewritten, good, len) == 0);
    }
}

/* A reopen that gives back the cache file's pages as it reads them (as
 * one of a large profile does) restores the same profile. */
static void
test_drop_pages (PlanarTestFixture *f,
                 gconstpointer      data)
{
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) cold = NULL;
  g_autoptr(PlanarTrace) cached = NULL;

  use_cache_dir (f);
  path = generate (f->dir, "200000", "7");
  cold = load_cold (path);
  _planar_cache_set_drop_pages_min (0);
  cached = load_twice (path);
  _planar_cache_set_drop_pages_min (G_MAXUINT64);
  g_assert_true (_planar_cache_was_restored (cached));
  compare_traces (cold, cached);
}

/* A changed profile, or the same one at another place in its session:
 * its cache is stale and is not used. */
static void
test_stale (PlanarTestFixture *f,
            gconstpointer      data)
{
  g_autofree char *path = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *other = NULL;
  g_autofree char *contents = NULL;
  gsize len;

  use_cache_dir (f);
  path = generate (f->dir, "5000", "3");
  cache = planar_cache_get_path (path);
  g_object_unref (load_twice (path));

  /* Another profile at the same path (another seed: the same size). */
  other = generate (f->dir, "5000", "4");
  g_assert_true (g_file_get_contents (other, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path, contents, (gssize) len, NULL));
  {
    g_autoptr(PlanarTrace) cold = load_cold (path);
    g_autoptr(PlanarTrace) loaded = planar_test_load_ok (path);

    g_assert_false (_planar_cache_was_restored (loaded));
    compare_traces (cold, loaded);
  }

  /* The same file at another time offset. */
  planar_cache_wait ();
  {
    g_autoptr(PlanarTrace) cold = NULL;
    g_autoptr(PlanarTrace) shifted = NULL;
    g_autoptr(GError) error = NULL;

    planar_cache_set_enabled (FALSE);
    cold = planar_trace_open (path, &error);
    g_assert_no_error (error);
    planar_trace_set_time_offset (cold, 5000000);
    g_assert_true (planar_trace_decode (cold, NULL, &error));
    planar_cache_set_enabled (TRUE);
    g_assert_true (g_file_test (cache, G_FILE_TEST_IS_REGULAR));
    shifted = planar_trace_open (path, &error);
    planar_trace_set_time_offset (shifted, 5000000);
    g_assert_true (planar_trace_decode (shifted, NULL, &error));
    g_assert_false (_planar_cache_was_restored (shifted));
    g_assert_no_error (error);
    compare_traces (cold, shifted);
  }
}

typedef struct
{
  guint32 kind, plane, track, reserved;
  guint64 offset, size, raw_size;
} TestSection;

/* The offset in the cache file @index (of @trace) of the middle of the
 * section of a file track on a plane that a reopen decodes from the file
 * (@decoded_plane) or restores, or 0 when there is none. */
static gsize
track_section_middle (const char  *index,
                      PlanarTrace *trace,
                      gboolean     decoded_plane)
{
  g_autofree gboolean *decoded = _planar_cache_first_view_planes (trace);
  guint32 header_size, n_sections;
  gsize frames;

  memcpy (&header_size, index + 12, sizeof header_size);
  memcpy (&n_sections, index + 20, sizeof n_sections);
  frames = header_size + (gsize) n_sections * sizeof (TestSection);
  for (guint i = 0; i < n_sections; i++)
    {
      TestSection s;

      memcpy (&s, index + header_size + i * sizeof s, sizeof s);
      if (s.kind == 2 && s.size > 16 && !planar_trace_get_plane (trace, s.plane)->tracks[s.track].derived &&
          (decoded != NULL && decoded[s.plane]) == decoded_plane)
        return frames + s.offset + s.size / 2;
    }
  return 0;
}

/* Damage anywhere (a flipped byte, a cut): never used, never a crash; the
 * load gives the decoded profile. */
static void
test_damaged (PlanarTestFixture *f,
              gconstpointer      data)
{
  gboolean task_env = GPOINTER_TO_INT (data);
  g_autofree char *path = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *good = NULL;
  g_autoptr(PlanarTrace) cold = NULL;
  gsize len;
  guint n_cases = 0;

  use_cache_dir (f);
  path = generate_full (f->dir, "4000", "5", task_env);
  cache = planar_cache_get_path (path);
  cold = load_cold (path);
  g_object_unref (load_twice (path));
  g_assert_true (g_file_get_contents (cache, &good, &len, NULL));

  for (gsize at = 0; at < len; at += at < 512 ? 7 : len / 37)
    for (guint cut = 0; cut < 2; cut++)
      {
        g_autofree char *bad = g_memdup2 (good, len);
        g_autoptr(PlanarTrace) loaded = NULL;
        g_autoptr(GError) error = NULL;
        PlanarTrace *trace;

        if (cut)
          g_assert_true (g_file_set_contents (cache, bad, (gssize) at, NULL));
        else
          {
            bad[at] ^= 0x5a;
            g_assert_true (g_file_set_contents (cache, bad, (gssize) len, NULL));
          }
        /* Restored from what is left, or decoded: the same profile. */
        trace = planar_trace_open (path, &error);
        g_assert_no_error (error);
        if (_planar_cache_restore_bytes (trace, (const guint8 *) bad, cut ? at : len, TRUE, &error))
          loaded = trace;
        else
          {
            g_assert_nonnull (error);
            g_clear_error (&error);
            g_assert_true (planar_trace_decode (trace, NULL, &error));
            loaded = trace;
          }
        compare_traces (cold, loaded);
        planar_cache_wait ();
        n_cases++;
      }
  g_assert_cmpuint (n_cases, >, 100);

  /* Through the folder: a damaged file is not used (a damaged header) or
   * used in part (a damaged track, decoded from the profile instead), and
   * is written again, sound, either way. The track is one the reopen
   * restores: with a profile start, the planes at the top of the view are
   * decoded from the file, and their sections are not read (below). */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *bad = g_memdup2 (good, len);
      g_autoptr(PlanarTrace) loaded = NULL;
      g_autofree char *rewritten = NULL;
      gsize rewritten_len, at = i == 0 ? 20 : track_section_middle (good, cold, FALSE);

      g_assert_cmpuint (at, >, 0);
      bad[at] ^= 0xff;
      g_assert_true (g_file_set_contents (cache, bad, (gssize) len, NULL));
      loaded = planar_test_load_ok (path);
      /* In part only where tracks are published as they come: with a
       * profile start. */
      g_assert_cmpint (_planar_cache_was_restored (loaded), ==, task_env && i == 1);
      compare_traces (cold, loaded);
      planar_cache_wait ();
      g_assert_true (g_file_get_contents (cache, &rewritten, &rewritten_len, NULL));
      g_assert_cmpuint (rewritten_len, ==, len);
      g_assert_true (memcmp (rewritten, good, len) == 0);
    }

  /* A damaged track of a plane the reopen decodes from the file: not read,
   * the rest restored, the profile the same. */
  if (task_env)
    {
      g_autofree char *bad = g_memdup2 (good, len);
      g_autoptr(PlanarTrace) loaded = NULL;
      gsize at = track_section_middle (good, cold, TRUE);

      g_assert_cmpuint (at, >, 0);
      bad[at] ^= 0xff;
      g_assert_true (g_file_set_contents (cache, bad, (gssize) len, NULL));
      loaded = planar_test_load_ok (path);
      g_assert_true (_planar_cache_was_restored (loaded));
      compare_traces (cold, loaded);
      planar_cache_wait ();
    }
}

/* ------------------------------------------------------------------------
 * Rewritten files and odd cache paths
 * ------------------------------------------------------------------------ */

/* Makes @contents @target bytes long with an unknown XSpace field at the
 * end (the loader skips it), as two captures of equal size would be. */
static char *
pad_profile (const char *contents,
             gsize       len,
             gsize       target)
{
  gsize diff = target - len, n;
  char *out = g_malloc (target);
  gsize at = len;

  g_assert_cmpuint (target, >=, len);
  memcpy (out, contents, len);
  if (diff == 0)
    return out;
  /* Field 15, length-delimited: tag, a varint length, the bytes. */
  g_assert_cmpuint (diff, >=, 2);
  out[at++] = (char) ((15 << 3) | 2);
  if (diff - 2 < 128)
    {
      n = diff - 2;
      out[at++] = (char) n;
    }
  else
    {
      n = diff - 3;
      g_assert_cmpuint (n, <, 16384);
      out[at++] = (char) (0x80 | (n & 0x7f));
      out[at++] = (char) (n >> 7);
    }
  memset (out + at, 'p', n);
  g_assert_cmpuint (at + n, ==, target);
  return out;
}

/* Writes @contents over @path in place (same size, same inode) and puts
 * its times back as they were in @before. */
static void
rewrite_keeping_times (const char     *path,
                       const char     *contents,
                       gsize           len,
                       const struct stat *before)
{
  struct timespec times[2] = { before->st_atim, before->st_mtim };
  struct stat after;
  int fd = open (path, O_WRONLY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpuint ((gsize) before->st_size, ==, len);
  g_assert_cmpint (pwrite (fd, contents, len, 0), ==, (gssize) len);
  g_assert_cmpint (close (fd), ==, 0);
  g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
  g_assert_cmpint (stat (path, &after), ==, 0);
  g_assert_cmpint (after.st_size, ==, before->st_size);
  g_assert_cmpint (after.st_mtim.tv_sec, ==, before->st_mtim.tv_sec);
  g_assert_cmpint (after.st_mtim.tv_nsec, ==, before->st_mtim.tv_nsec);
}

static guint64
read_varint (const guint8 **p)
{
  guint64 v = 0;

  for (guint shift = 0; shift < 64; shift += 7)
    {
      guint8 b = *(*p)++;

      v |= (guint64) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        break;
    }
  return v;
}

/* The byte of @trace's file that holds the lowest bits of an event's
 * duration (field 3 of an XEvent) on plane @plane_name (any: NULL), and
 * (@tag_at) where that event's first field starts. */
static gsize
find_duration_byte (PlanarTrace  *trace,
                    const guint8 *data,
                    const char   *plane_name,
                    gsize        *tag_at)
{
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      if (plane_name != NULL && g_strcmp0 (plane->name, plane_name) != 0)
        continue;

      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          for (gsize i = 0; !track->derived && i < MIN (track->n_events, 64); i++)
            {
              const guint8 *q = data + track->events[i].source;
              guint64 len = read_varint (&q);
              const guint8 *end = q + len;

              *tag_at = (gsize) (q - data);
              while (q < end)
                {
                  guint64 tag = read_varint (&q);

                  if (tag == ((3 << 3) | 0))
                    return (gsize) (q - data);
                  if ((tag & 7) == 0)
                    read_varint (&q);
                  else if ((tag & 7) == 2)
                    q += read_varint (&q);
                  else
                    break;
                }
            }
        }
    }
  g_assert_not_reached ();
}

/* A profile rewritten with the same size and modification time (times
 * copied over, or within the file system's granularity) is another
 * profile: its old cache is not used, and the load gives the new one. */
static void
test_same_size_and_time (PlanarTestFixture *f,
                         gconstpointer      data)
{
  g_autofree char *path = NULL;
  g_autofree char *other = NULL;
  g_autofree char *a = NULL, *b = NULL, *a_padded = NULL, *b_padded = NULL;
  gsize a_len, b_len, len;
  struct stat st;

  use_cache_dir (f);
  path = generate (f->dir, "5000", "3");
  other = generate (f->dir, "5000", "4");
  g_assert_true (g_file_get_contents (path, &a, &a_len, NULL));
  g_assert_true (g_file_get_contents (other, &b, &b_len, NULL));
  len = MAX (a_len, b_len);
  a_padded = pad_profile (a, a_len, len);
  b_padded = pad_profile (b, b_len, len);
  g_assert_true (g_file_set_contents (path, a_padded, (gssize) len, NULL));

  /* Another capture of the same size, times kept. */
  g_object_unref (load_twice (path));
  g_assert_cmpint (stat (path, &st), ==, 0);
  rewrite_keeping_times (path, b_padded, len, &st);
  {
    g_autoptr(PlanarTrace) cold = load_cold (path);
    g_autoptr(PlanarTrace) loaded = planar_test_load_ok (path);

    g_assert_false (_planar_cache_was_restored (loaded));
    compare_traces (cold, loaded);
    /* Its own index is written, and used next time. */
    planar_cache_wait ();
    g_object_unref (g_steal_pointer (&loaded));
    loaded = planar_test_load_ok (path);
    g_assert_true (_planar_cache_was_restored (loaded));
    compare_traces (cold, loaded);
  }

  /* One event's duration changed in place, times kept: the smallest
   * change there is, anywhere in the file. */
  {
    g_autoptr(PlanarTrace) before = load_cold (path);
    g_autofree char *bytes = NULL;
    gsize n, tag_at, at;

    g_assert_true (g_file_get_contents (path, &bytes, &n, NULL));
    at = find_duration_byte (before, (const guint8 *) bytes, NULL, &tag_at);
    bytes[at] ^= 0x01;
    g_assert_cmpint (stat (path, &st), ==, 0);
    rewrite_keeping_times (path, bytes, n, &st);
    {
      g_autoptr(PlanarTrace) cold = load_cold (path);
      g_autoptr(PlanarTrace) loaded = planar_test_load_ok (path);

      g_assert_false (_planar_cache_was_restored (loaded));
      compare_traces (cold, loaded);
    }
  }
  planar_cache_wait ();
}

/* The bytes the cached index gives each flow and each derived source, as
 * they are in memory: a flow 32 (no times: they are read from its events),
 * its places in the two orders by end 4 each; a derived source 16, after
 * the plane's distinct group ids (8 each). */
static void
test_format_sizes (PlanarTestFixture *f,
                   gconstpointer      data)
{
  g_autofree char *path = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *index = NULL;
  g_autoptr(PlanarTrace) cold = NULL;
  const PlanarFlowIndex *flows;
  gsize index_len, n_flows, n_ends;
  guint32 header_size, n_sections;
  guint n_sources_sections = 0;
  gboolean seen_flows = FALSE;

  use_cache_dir (f);
  path = generate (f->dir, "4000", "5");
  cache = planar_cache_get_path (path);
  cold = load_cold (path);
  flows = planar_trace_get_flows (cold);
  g_assert_nonnull (flows);
  n_flows = planar_flow_index_get_n_flows (flows);
  g_assert_cmpuint (n_flows, >, 0);
  /* A complete flow is in both orders, a dangling one in one. */
  n_ends = 2 * planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_ALL)
           + planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_ALL);
  g_object_unref (load_twice (path));
  planar_cache_wait ();
  g_assert_true (g_file_get_contents (cache, &index, &index_len, NULL));
  memcpy (&header_size, index + 12, sizeof header_size);
  memcpy (&n_sections, index + 20, sizeof n_sections);
  for (guint i = 0; i < n_sections; i++)
    {
      TestSection s;

      memcpy (&s, index + header_size + i * sizeof s, sizeof s);
      if (s.kind == 4)
        {
          /* The three counts, the flows, the orders. */
          g_assert_cmpuint (s.raw_size, ==, 3 * 8 + 32 * n_flows + 4 * n_ends);
          seen_flows = TRUE;
        }
      else if (s.kind == 3 && s.raw_size > 0)
        {
          const PlanarPlane *plane = planar_trace_get_plane (cold, s.plane);
          guint64 n_derived = 0, rest;

          for (guint t = 0; t < plane->n_tracks; t++)
            if (plane->tracks[t].derived)
              n_derived += plane->tracks[t].n_events;
          g_assert_cmpuint (n_derived, >, 0);
          g_assert_cmpuint (s.raw_size, >=, 8 + 16 * n_derived);
          rest = s.raw_size - 8 - 16 * n_derived;
          /* Group ids: 8 bytes each, at most one per derived event. */
          g_assert_cmpuint (rest % 8, ==, 0);
          g_assert_cmpuint (rest / 8, <=, n_derived);
          n_sources_sections++;
        }
    }
  g_assert_true (seen_flows);
  g_assert_cmpuint (n_sources_sections, >, 0);
}

/* A cached index that fails once tracks are out (a track's frame damaged,
 * and the profile's line behind it no longer decoding) does not abort the
 * process: the restore returns an error, and the trace, left as opened,
 * decodes from the file (here, to the file's own error). Run in a child,
 * so that an abort is a failure of this test alone. */
static void
test_restore_failed (PlanarTestFixture *f,
                     gconstpointer      data)
{
  g_autofree char *path = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *index = NULL;
  g_autofree char *profile = NULL;
  g_autoptr(PlanarTrace) cold = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  gsize index_len, profile_len, frames, tag_at;
  guint32 header_size, n_sections;
  gboolean damaged = FALSE;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }

  use_cache_dir (f);
  path = generate (f->dir, "4000", "5");
  cache = planar_cache_get_path (path);
  cold = load_cold (path);
  g_object_unref (load_twice (path));
  g_assert_true (g_file_get_contents (cache, &index, &index_len, NULL));
  g_assert_true (g_file_get_contents (path, &profile, &profile_len, NULL));

  /* The frame of the track that holds the event found below, damaged. */
  find_duration_byte (cold, (const guint8 *) profile, NULL, &tag_at);
  memcpy (&header_size, index + 12, sizeof header_size);
  memcpy (&n_sections, index + 20, sizeof n_sections);
  frames = header_size + (gsize) n_sections * sizeof (TestSection);
  for (guint i = 0; i < n_sections; i++)
    {
      TestSection s;
      const PlanarTrack *track;

      memcpy (&s, index + header_size + i * sizeof s, sizeof s);
      if (s.kind != 2)
        continue;
      track = &planar_trace_get_plane (cold, s.plane)->tracks[s.track];
      for (gsize e = 0; e < track->n_events && !track->derived; e++)
        if (track->events[e].source < tag_at && tag_at < track->events[e].source + 16)
          {
            index[frames + s.offset + s.size / 2] ^= 0xff;
            damaged = TRUE;
            break;
          }
    }
  g_assert_true (damaged);
  /* That event's first field gets a wire type that does not exist. */
  profile[tag_at] = (char) ((1 << 3) | 7);
  g_assert_true (g_file_set_contents (path, profile, (gssize) profile_len, NULL));

  trace = planar_trace_open (path, &error);
  g_assert_no_error (error);
  g_assert_false (_planar_cache_restore_bytes (trace, (const guint8 *) index, index_len, FALSE, &error));
  g_assert_nonnull (error);
  g_test_message ("restore: %s", error->message);
  g_clear_error (&error);
  planar_cache_set_enabled (FALSE);
  g_assert_false (planar_trace_decode (trace, NULL, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "XEvent"));
  planar_cache_set_enabled (TRUE);
}

/* A FIFO or a symbolic link where the cache file would be: the load
 * neither waits on it nor follows it, and decodes the profile; the index
 * written afterwards replaces the entry, not what a link points at. A FIFO
 * would block the open until the test's own timeout: no clock here. */
static void
test_not_regular (PlanarTestFixture *f,
                  gconstpointer      data)
{
  g_autofree char *path = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *elsewhere = NULL;
  g_autofree char *fifo = NULL;
  g_autofree char *sound = NULL;
  g_autoptr(PlanarTrace) cold = NULL;
  gsize sound_len;
  struct stat st, target_before;

  use_cache_dir (f);
  path = generate (f->dir, "3000", "9");
  cache = planar_cache_get_path (path);
  elsewhere = g_build_filename (f->dir, "elsewhere.index", NULL);
  fifo = g_build_filename (f->dir, "fifo", NULL);
  cold = load_cold (path);
  /* A sound cache file of this very profile, moved out of the way. */
  g_object_unref (load_twice (path));
  g_assert_cmpint (g_rename (cache, elsewhere), ==, 0);
  g_assert_true (g_file_get_contents (elsewhere, &sound, &sound_len, NULL));
  g_assert_cmpint (stat (elsewhere, &target_before), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(PlanarTrace) loaded = NULL;

      g_unlink (cache);
      if (i == 0)
        g_assert_cmpint (mkfifo (cache, 0600), ==, 0);
      else
        g_assert_cmpint (symlink (i == 1 ? elsewhere : fifo, cache), ==, 0);
      loaded = planar_test_load_ok (path);
      g_assert_false (_planar_cache_was_restored (loaded));
      compare_traces (cold, loaded);
      planar_cache_wait ();
      g_assert_cmpint (lstat (cache, &st), ==, 0);
      g_assert_true (S_ISREG (st.st_mode));
    }

  /* What the link pointed at is as it was. */
  {
    g_autofree char *now = NULL;
    gsize now_len;
    struct stat target_after;

    g_assert_true (g_file_get_contents (elsewhere, &now, &now_len, NULL));
    g_assert_cmpuint (now_len, ==, sound_len);
    g_assert_true (memcmp (now, sound, sound_len) == 0);
    g_assert_cmpint (stat (elsewhere, &target_after), ==, 0);
    g_assert_cmpint (target_after.st_mtim.tv_sec, ==, target_before.st_mtim.tv_sec);
    g_assert_cmpint (target_after.st_mtim.tv_nsec, ==, target_before.st_mtim.tv_nsec);
    g_assert_cmpint (lstat (fifo, &st), ==, 0);
    g_assert_true (S_ISFIFO (st.st_mode));
  }
}

/* Past the cap, the least recently used go; a restore counts as a use. */
static void
test_eviction (PlanarTestFixture *f,
               gconstpointer      data)
{
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  g_autofree char *ca = NULL, *cb = NULL, *cc = NULL;
  GStatBuf st;
  struct utimbuf old = { 1000000000, 1000000000 };

  use_cache_dir (f);
  a = generate (f->dir, "3000", "11");
  b = generate (f->dir, "3000", "12");
  c = generate (f->dir, "3000", "13");
  ca = planar_cache_get_path (a);
  cb = planar_cache_get_path (b);
  cc = planar_cache_get_path (c);
  g_object_unref (load_twice (a));
  g_assert_cmpint (g_stat (ca, &st), ==, 0);
  /* Room for about two. */
  planar_cache_set_limit ((guint64) st.st_size * 5 / 2);
  g_object_unref (load_twice (b));
  g_assert_true (g_file_test (ca, G_FILE_TEST_EXISTS));
  /* a is older; b was used after a. */
  g_assert_cmpint (g_utime (ca, &old), ==, 0);
  g_object_unref (load_twice (c));
  g_assert_false (g_file_test (ca, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (cb, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (cc, G_FILE_TEST_EXISTS));

  /* A write given up leaves nothing behind, half-written or not. */
  {
    g_autofree char *d = g_path_get_dirname (cc);
    g_autoptr(GDir) dir = NULL;
    const char *name;

    g_unlink (cc);
    g_object_unref (planar_test_load_ok (c));
    planar_cache_cancel ();
    dir = g_dir_open (d, 0, NULL);
    g_assert_nonnull (dir);
    while ((name = g_dir_read_name (dir)) != NULL)
      g_assert_false (name[0] == '.');
    /* And writes go on afterwards. */
    g_unlink (cc);
    g_object_unref (planar_test_load_ok (c));
    planar_cache_wait ();
    g_assert_true (g_file_test (cc, G_FILE_TEST_EXISTS));
  }

  /* Off: nothing read or written. */
  planar_cache_set_enabled (FALSE);
  g_unlink (cb);
  g_object_unref (planar_test_load_ok (b));
  planar_cache_wait ();
  g_assert_false (g_file_test (cb, G_FILE_TEST_EXISTS));
  planar_cache_set_enabled (TRUE);
}

/* The index of @trace's plane named @name. */
static guint
plane_index (PlanarTrace *trace,
             const char  *name)
{
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    if (g_strcmp0 (planar_trace_get_plane (trace, p)->name, name) == 0)
      return p;
  g_error ("no plane %s", name);
}

typedef struct
{
  guint n_tracks_changed;
  guint n_file_tracks;
  /* Tracks told of by the decoder, and of those, how many after the
   * restore's first. */
  guint n_decoded_changed;
  guint n_decoded_after_restored;
} RestoreWatch;

static void
count_tracks_changed (PlanarTrace     *trace,
                      PlanarLoadPhase  phase,
                      gboolean         tracks_changed,
                      gpointer         data)
{
  RestoreWatch *w = data;

  if (tracks_changed && phase == PLANAR_LOAD_PHASE_RESTORING_CACHE)
    w->n_tracks_changed++;
  if (tracks_changed && phase == PLANAR_LOAD_PHASE_DECODING_LINES)
    {
      w->n_decoded_changed++;
      w->n_decoded_after_restored += w->n_tracks_changed > 0;
    }
}

/* A reopen restores the tracks the timeline shows first first (the planes
 * in its order, the largest tracks of each first, so that the workers end
 * together) and tells the viewer of each as it is restored: before, it
 * took the planes in file order (a host's python3 thread, 40 % of a
 * planar-gen profile's events, before the GPUs at the top of the view)
 * and told nothing until the whole index was in, so that a window showed
 * a 10^8-event profile's first tracks 14 s after it opened, against 2 s
 * for a decode without the cache. The planes at the top of the view are
 * decoded from the file first, as a cold load does, and told of by the
 * decoder before anything is restored; the others are restored, each
 * track told of. */
static void
test_restore_first_view_first (PlanarTestFixture *f,
                               gconstpointer      data)
{
  static const char *const display_order[] = { "/device:GPU:0", "/device:GPU:1", "/device:TPU:0", "/host:CPU" };
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) order = NULL;
  RestoreWatch w = { 0, 0, 0, 0 };
  g_autofree gboolean *decoded = NULL;
  guint rank = 0, n_restored = 0;

  use_cache_dir (f);
  path = generate (f->dir, "20000", "23");
  g_object_unref (load_twice (path));

  trace = planar_trace_open (path, &error);
  g_assert_no_error (error);
  _planar_trace_set_progress_func (trace, count_tracks_changed, &w);
  g_assert_true (planar_trace_decode (trace, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (_planar_cache_was_restored (trace));

  order = _planar_cache_restore_order (trace, FALSE, NULL);
  for (guint i = 0; i < order->len; i++)
    {
      const guint *pair = &g_array_index (order, guint, 2 * i);
      const PlanarPlane *plane = planar_trace_get_plane (trace, pair[0]);

      g_assert_false (plane->tracks[pair[1]].derived);
      while (rank < G_N_ELEMENTS (display_order) && strcmp (plane->name, display_order[rank]) != 0)
        rank++;
      /* The planes in the timeline's order, each one's tracks together. */
      g_assert_cmpuint (rank, <, G_N_ELEMENTS (display_order));
      if (i > 0 && pair[0] == g_array_index (order, guint, 2 * (i - 1)))
        g_assert_cmpuint (plane->tracks[pair[1]].n_events, <=,
                          plane->tracks[g_array_index (order, guint, 2 * (i - 1) + 1)].n_events);
    }
  decoded = _planar_cache_first_view_planes (trace);
  g_assert_nonnull (decoded);
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    for (guint t = 0; t < planar_trace_get_plane (trace, p)->n_tracks; t++)
      {
        gboolean file = !planar_trace_get_plane (trace, p)->tracks[t].derived;

        w.n_file_tracks += file;
        n_restored += file && !decoded[p];
      }
  g_assert_cmpuint (order->len, ==, w.n_file_tracks);
  g_assert_cmpuint (w.n_file_tracks, >, 4);
  /* The top of the view's planes (the GPUs), told of by the decoder before
   * any track is restored; one for each other file track, as it came. */
  g_assert_true (decoded[plane_index (trace, "/device:GPU:0")]);
  g_assert_false (decoded[plane_index (trace, "/host:CPU")]);
  g_assert_cmpuint (w.n_decoded_changed, >, 0);
  g_assert_cmpuint (w.n_decoded_after_restored, ==, 0);
  g_assert_cmpuint (n_restored, >, 0);
  g_assert_cmpuint (w.n_tracks_changed, ==, n_restored);
}

/* A reopen decodes the planes at the top of the view from the file before
 * it checks the rest against the index's key. Changed in place (times
 * kept) in one of those planes or in another, the profile is decoded
 * whole (the planes published stay, the others are decoded too, every
 * derived line made again), equal to a cold load, and its index written
 * again; the next reopen restores it. */
static void
test_reopen_changed_after_first_view (PlanarTestFixture *f,
                                      gconstpointer      data)
{
  static const char *const planes[] = { "/device:GPU:0", "/host:CPU" };
  g_autofree char *path = NULL;

  use_cache_dir (f);
  path = generate (f->dir, "20000", "23");
  g_object_unref (load_twice (path));
  for (guint i = 0; i < G_N_ELEMENTS (planes); i++)
    {
      g_autoptr(PlanarTrace) before = load_cold (path);
      g_autoptr(PlanarTrace) cold = NULL;
      g_autoptr(PlanarTrace) loaded = NULL;
      g_autoptr(PlanarTrace) again = NULL;
      g_autofree gboolean *decoded = _planar_cache_first_view_planes (before);
      g_autofree char *bytes = NULL;
      gsize n, tag_at, at;
      struct stat st;
      RestoreWatch w = { 0, 0, 0, 0 };
      g_autoptr(GError) error = NULL;

      /* The GPU is among the planes decoded first, the host not. */
      g_assert_nonnull (decoded);
      g_assert_cmpint (decoded[plane_index (before, planes[i])], ==, i == 0);
      g_assert_true (g_file_get_contents (path, &bytes, &n, NULL));
      at = find_duration_byte (before, (const guint8 *) bytes, planes[i], &tag_at);
      bytes[at] ^= 0x01;
      g_assert_cmpint (stat (path, &st), ==, 0);
      rewrite_keeping_times (path, bytes, n, &st);

      cold = load_cold (path);
      loaded = planar_trace_open (path, &error);
      g_assert_no_error (error);
      _planar_trace_set_progress_func (loaded, count_tracks_changed, &w);
      g_assert_true (planar_trace_decode (loaded, NULL, &error));
      g_assert_no_error (error);
      g_assert_false (_planar_cache_was_restored (loaded));
      /* Nothing was restored; the first planes were decoded. */
      g_assert_cmpuint (w.n_tracks_changed, ==, 0);
      g_assert_cmpuint (w.n_decoded_changed, >, 0);
      compare_traces (cold, loaded);
      planar_cache_wait ();

      again = planar_test_load_ok (path);
      g_assert_true (_planar_cache_was_restored (again));
      compare_traces (cold, again);
      planar_cache_wait ();
    }
}

/* The temporary files left in @dir (a write given up removes its own). */
static guint
count_hidden_files (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    n += name[0] == '.';
  return n;
}

/* An index larger than the cap is given up as soon as it outgrows it, not
 * written whole and then dropped (a 10^8-event profile compressed 2.7 GB
 * after every load for nothing under the default 2 GiB); a marker keeps
 * the next loads of the unchanged profile from trying again under a cap no
 * larger, and a larger cap, or a changed profile, tries again. */
static void
test_too_large (PlanarTestFixture *f,
                gconstpointer      data)
{
  g_autofree char *path = NULL, *index = NULL, *marker = NULL, *dir = NULL;
  const guint64 limit = 64 << 10;
  guint64 before, written;
  GStatBuf st;
  struct utimbuf old = { 1000000000, 1000000000 };

  use_cache_dir (f);
  path = generate (f->dir, "200000", "21");
  index = planar_cache_get_path (path);
  marker = g_strconcat (index, "-too-large", NULL);
  dir = g_path_get_dirname (index);

  planar_cache_set_limit (limit);
  before = _planar_cache_get_bytes_written ();
  g_object_unref (planar_test_load_ok (path));
  planar_cache_wait ();
  written = _planar_cache_get_bytes_written () - before;
  g_assert_false (g_file_test (index, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_hidden_files (dir), ==, 0);
  /* At most the cap: the whole index is megabytes. */
  g_assert_cmpuint (written, >, 0);
  g_assert_cmpuint (written, <=, limit);
  g_assert_true (g_file_test (marker, G_FILE_TEST_IS_REGULAR));

  /* Unchanged, under the same cap or a smaller one: not tried again. */
  before = _planar_cache_get_bytes_written ();
  g_object_unref (planar_test_load_ok (path));
  planar_cache_set_limit (limit / 2);
  g_object_unref (planar_test_load_ok (path));
  planar_cache_wait ();
  g_assert_cmpuint (_planar_cache_get_bytes_written (), ==, before);
  g_assert_false (g_file_test (index, G_FILE_TEST_EXISTS));

  /* The profile changed (its time): tried again, and given up again. */
  planar_cache_set_limit (limit);
  g_assert_cmpint (g_utime (path, &old), ==, 0);
  before = _planar_cache_get_bytes_written ();
  g_object_unref (planar_test_load_ok (path));
  planar_cache_wait ();
  g_assert_cmpuint (_planar_cache_get_bytes_written (), >, before);
  g_assert_false (g_file_test (index, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (marker, G_FILE_TEST_IS_REGULAR));

  /* A larger cap: written, kept and used; the marker goes. */
  planar_cache_set_limit (G_GUINT64_CONSTANT (1) << 30);
  g_object_unref (planar_test_load_ok (path));
  planar_cache_wait ();
  g_assert_cmpint (g_stat (index, &st), ==, 0);
  g_assert_cmpuint ((guint64) st.st_size, >, limit);
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
  {
    g_autoptr(PlanarTrace) again = planar_test_load_ok (path);

    g_assert_true (_planar_cache_was_restored (again));
  }
}

/* The spill primitives: blocks move between the heap and files with their
 * contents, and every kind is freed by planar_spill_free(). */
static void
test_spill_blocks (PlanarTestFixture *f,
                   gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  guint64 bytes0, bytes;
  guint blocks0, blocks;
  guint8 *block;
  PlanarSpillArray array;

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  planar_spill_get_usage (&bytes0, &blocks0);

  /* Small or unwanted: the heap. */
  block = planar_spill_alloc (64, TRUE);
  g_assert_false (planar_spill_is_mapped (block));
  planar_spill_free (block);
  block = planar_spill_alloc (PLANAR_SPILL_MIN_BLOCK, FALSE);
  g_assert_false (planar_spill_is_mapped (block));

  /* Grown past the threshold: a file, with the bytes it had. */
  memset (block, 0x5a, PLANAR_SPILL_MIN_BLOCK);
  block = planar_spill_renew (block, PLANAR_SPILL_MIN_BLOCK, 3 * PLANAR_SPILL_MIN_BLOCK, TRUE);
  g_assert_true (planar_spill_is_mapped (block));
  g_assert_cmpint (block[0], ==, 0x5a);
  g_assert_cmpint (block[PLANAR_SPILL_MIN_BLOCK - 1], ==, 0x5a);
  memset (block + PLANAR_SPILL_MIN_BLOCK, 0xa5, 2 * PLANAR_SPILL_MIN_BLOCK);
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0 + 1);
  g_assert_cmpuint (bytes, >=, bytes0 + 3 * PLANAR_SPILL_MIN_BLOCK);
  /* Nothing is left in the folder: the file has no name. */
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);

    g_assert_nonnull (d);
    g_assert_null (g_dir_read_name (d));
  }
  /* Grown again: the same bytes. */
  block = planar_spill_renew (block, 3 * PLANAR_SPILL_MIN_BLOCK, 5 * PLANAR_SPILL_MIN_BLOCK, TRUE);
  g_assert_cmpint (block[0], ==, 0x5a);
  g_assert_cmpint (block[3 * PLANAR_SPILL_MIN_BLOCK - 1], ==, (guint8) 0xa5);
  planar_spill_free (block);
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
  g_assert_cmpuint (bytes, ==, bytes0);

  /* A heap block taken into a file. */
  block = g_malloc (PLANAR_SPILL_MIN_BLOCK);
  memset (block, 7, PLANAR_SPILL_MIN_BLOCK);
  block = planar_spill_take (block, PLANAR_SPILL_MIN_BLOCK, TRUE);
  g_assert_true (planar_spill_is_mapped (block));
  g_assert_cmpint (block[PLANAR_SPILL_MIN_BLOCK / 2], ==, 7);
  planar_spill_free (block);

  /* An array appended past the threshold keeps every element. */
  planar_spill_array_init (&array, sizeof (guint64), TRUE);
  for (guint64 i = 0; i < PLANAR_SPILL_MIN_BLOCK / 4; i++)
    planar_spill_array_append (&array, &i, 1);
  g_assert_true (planar_spill_is_mapped (array.data));
  for (guint64 i = 0; i < array.len; i += 4099)
    g_assert_cmpuint (planar_spill_array_index (&array, guint64, i), ==, i);
  block = planar_spill_array_steal (&array);
  g_assert_cmpuint (array.len, ==, 0);
  planar_spill_free (block);
  planar_spill_array_clear (&array);
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
}

/* Large blocks in memory are anonymous mappings of their own, aligned for
 * huge pages: they keep their bytes when they grow (their pages move),
 * shrink or go to a file, and count nowhere as file-backed. */
static void
test_spill_memory_blocks (PlanarTestFixture *f,
                          gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  const gsize huge_page = (gsize) 2 << 20;
  guint64 bytes0, bytes;
  guint blocks0, blocks;
  guint8 *block, *small;

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  planar_spill_get_usage (&bytes0, &blocks0);

  block = planar_spill_alloc (PLANAR_SPILL_HUGE_MIN, PLANAR_SPILL_NEVER);
  g_assert_false (planar_spill_is_mapped (block));
  /* Before, a block from the heap: never at a huge page's boundary. */
  g_assert_cmpuint ((guintptr) block % huge_page, ==, 0);
  memset (block, 0x3c, PLANAR_SPILL_HUGE_MIN);

  /* Grown: the same bytes at another aligned place. */
  block = planar_spill_renew (block, PLANAR_SPILL_HUGE_MIN, 3 * PLANAR_SPILL_HUGE_MIN + 4096 + 17,
                              PLANAR_SPILL_NEVER);
  g_assert_false (planar_spill_is_mapped (block));
  g_assert_cmpuint ((guintptr) block % huge_page, ==, 0);
  for (gsize i = 0; i < PLANAR_SPILL_HUGE_MIN; i += 4093)
    g_assert_cmpint (block[i], ==, 0x3c);
  g_assert_cmpint (block[PLANAR_SPILL_HUGE_MIN - 1], ==, 0x3c);
  memset (block + PLANAR_SPILL_HUGE_MIN, 0xc3, 2 * PLANAR_SPILL_HUGE_MIN + 4096 + 17);
  /* Again: a block grown once grows like any other. */
  block = planar_spill_renew (block, 3 * PLANAR_SPILL_HUGE_MIN + 4096 + 17, 7 * PLANAR_SPILL_HUGE_MIN,
                              PLANAR_SPILL_NEVER);
  g_assert_cmpuint ((guintptr) block % huge_page, ==, 0);
  g_assert_cmpint (block[PLANAR_SPILL_HUGE_MIN - 1], ==, 0x3c);
  g_assert_cmpint (block[3 * PLANAR_SPILL_HUGE_MIN + 4096 + 16], ==, (guint8) 0xc3);

  /* Shrunk in place. */
  block = planar_spill_renew (block, 3 * PLANAR_SPILL_HUGE_MIN, 2 * PLANAR_SPILL_HUGE_MIN + 1, PLANAR_SPILL_NEVER);
  g_assert_cmpint (block[0], ==, 0x3c);
  g_assert_cmpint (block[2 * PLANAR_SPILL_HUGE_MIN], ==, (guint8) 0xc3);
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
  g_assert_cmpuint (bytes, ==, bytes0);

  /* Bytes given back: the whole pages among them read zeros, the rest of
   * the block is as it was. */
  planar_spill_discard (block, 100, PLANAR_SPILL_HUGE_MIN);
  g_assert_cmpint (block[99], ==, 0x3c);
  g_assert_cmpint (block[100], ==, 0x3c);
  g_assert_cmpint (block[4095], ==, 0x3c);
  for (gsize i = 4096; i < PLANAR_SPILL_HUGE_MIN; i += 4093)
    g_assert_cmpint (block[i], ==, 0);
  g_assert_cmpint (block[PLANAR_SPILL_HUGE_MIN - 1], ==, 0);
  g_assert_cmpint (block[PLANAR_SPILL_HUGE_MIN], ==, (guint8) 0xc3);
  g_assert_cmpint (block[PLANAR_SPILL_HUGE_MIN + 99], ==, (guint8) 0xc3);
  memset (block + 4096, 0x3c, PLANAR_SPILL_HUGE_MIN - 4096);

  /* Into a file when a spilling index grows it. */
  block = planar_spill_renew (block, 2 * PLANAR_SPILL_HUGE_MIN + 1, 4 * PLANAR_SPILL_HUGE_MIN, PLANAR_SPILL_LARGE);
  g_assert_true (planar_spill_is_mapped (block));
  g_assert_cmpint (block[17], ==, 0x3c);
  g_assert_cmpint (block[2 * PLANAR_SPILL_HUGE_MIN], ==, (guint8) 0xc3);
  planar_spill_free (block);

  /* A heap block grown past the size moves to a mapping of its own. */
  small = planar_spill_alloc (4096, PLANAR_SPILL_NEVER);
  memset (small, 0x11, 4096);
  /* A heap block keeps its bytes. */
  planar_spill_discard (small, 0, 4096);
  g_assert_cmpint (small[0], ==, 0x11);
  g_assert_cmpint (small[4095], ==, 0x11);
  small = planar_spill_renew (small, 4096, 2 * PLANAR_SPILL_HUGE_MIN, PLANAR_SPILL_NEVER);
  g_assert_cmpuint ((guintptr) small % huge_page, ==, 0);
  g_assert_cmpint (small[4095], ==, 0x11);
  /* ...and taken into a file with its bytes. */
  small = planar_spill_take (small, 2 * PLANAR_SPILL_HUGE_MIN, PLANAR_SPILL_LARGE);
  g_assert_true (planar_spill_is_mapped (small));
  g_assert_cmpint (small[4095], ==, 0x11);
  planar_spill_free (small);

  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
  g_assert_cmpuint (bytes, ==, bytes0);
}

/* A spilling index keeps in memory the first planes in the timeline's
 * order that its first_heap holds (the GPUs of a planar-gen profile, at
 * the top of the timeline), the others in files, and is the same index. */
static void
test_spilled_first_planes (PlanarTestFixture *f,
                           gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) heap = NULL;
  guint64 gpu_bytes = 0, next_bytes = G_MAXUINT64;
  guint n_in_memory = 0, n_in_files = 0;

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  path = generate (f->dir, "20000", "3");
  heap = load_cold_spilled (path, PLANAR_SPILL_NEVER);
  /* The GPUs' lines come first; then the TPU's. */
  for (guint p = 0; p < heap->n_planes; p++)
    {
      guint64 bytes = 0;

      for (guint l = 0; l < heap->planes_priv[p].n_file_lines; l++)
        bytes += heap->planes_priv[p].line_sizes[l];
      if (g_str_has_prefix (heap->planes[p].name, "/device:GPU:"))
        gpu_bytes += bytes;
      else if (g_str_has_prefix (heap->planes[p].name, "/device:TPU:"))
        next_bytes = MIN (next_bytes, bytes);
    }
  g_assert_cmpuint (gpu_bytes, >, 0);
  g_assert_cmpuint (next_bytes, <, G_MAXUINT64);

  {
    g_autoptr(PlanarTrace) cold = NULL;

    planar_cache_set_enabled (FALSE);
    cold = load_spilled_first_heap (path, PLANAR_SPILL_EVERY, (gint64) (gpu_bytes + next_bytes / 2));
    planar_cache_set_enabled (TRUE);
    for (guint p = 0; p < cold->n_planes; p++)
      for (guint t = 0; t < cold->planes_priv[p].n_file_tracks; t++)
        {
          const PlanarTrack *track = &cold->planes[p].tracks[t];

          if (track->n_events == 0)
            continue;
          if (!g_str_has_prefix (cold->planes[p].name, "/device:GPU:"))
            {
              /* Past the first planes: files, as every block of an index
               * spilled through and through. */
              g_assert_true (planar_spill_is_mapped (track->events));
              g_assert_true (planar_spill_is_mapped (track->depth_starts));
              n_in_files++;
            }
          else if (!planar_spill_is_mapped (track->events))
            n_in_memory++;
        }
    g_assert_cmpuint (n_in_memory, >, 0);
    g_assert_cmpuint (n_in_files, >, 0);
    compare_traces (heap, cold);
  }
  {
    g_autoptr(PlanarTrace) cold = NULL;

    /* Room for every plane: nothing in files. */
    planar_cache_set_enabled (FALSE);
    cold = load_spilled_first_heap (path, PLANAR_SPILL_EVERY, G_MAXINT64);
    planar_cache_set_enabled (TRUE);
    for (guint p = 0; p < cold->n_planes; p++)
      for (guint t = 0; t < cold->planes_priv[p].n_file_tracks; t++)
        if (cold->planes[p].tracks[t].n_events > 0)
          g_assert_false (planar_spill_is_mapped (cold->planes[p].tracks[t].events));
    compare_traces (heap, cold);
  }
}

/* Makes @line's bytes end, after its events, with a timestamp_ns field of
 * @ts_ns (its one unknown field to protobuf-c, packed after the known
 * ones; kept in the scratch list). */
static void
add_timestamp_after_events (XLine  *line,
                            gint64  ts_ns)
{
  ProtobufCMessageUnknownField *field = planar_test_keep (g_new0 (ProtobufCMessageUnknownField, 1));
  guint8 *data = planar_test_keep (g_malloc (10));
  guint64 v = (guint64) ts_ns;
  gsize n = 0;

  do
    {
      data[n++] = (guint8) ((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
      v >>= 7;
    }
  while (v != 0);
  field->tag = 3;
  field->wire_type = PROTOBUF_C_WIRE_TYPE_VARINT;
  field->len = n;
  field->data = data;
  g_assert_cmpuint (line->base.n_unknown_fields, ==, 0);
  line->base.unknown_fields = field;
  line->base.n_unknown_fields = 1;
}

/* A load of @path through a loader of its own that decodes in pieces every
 * line of at least @split_min bytes (G_MAXINT64: none), its index spilling
 * as @spill says; NULL with @error when the load fails. */
static PlanarTrace *
load_split (const char  *path,
            gint         spill,
            gint64       split_min,
            GError     **error)
{
  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
  PlanarTraceTestOptions options = { NULL, NULL, spill, 0, split_min };
  gboolean ok;

  _planar_trace_loader_set_test_options (loader, &options);
  planar_cache_set_enabled (FALSE);
  ok = planar_trace_loader_open (loader, NULL, error) && planar_trace_loader_decode (loader, NULL, error);
  planar_cache_set_enabled (TRUE);
  return ok ? g_object_ref (planar_trace_loader_get_trace (loader)) : NULL;
}

/* @path decoded with its lines in pieces ends as decoded whole: the same
 * index, or the same error. Returns how many lines were cut. */
static guint
assert_split_same (const char *path,
                   gint        spill,
                   gint64      split_min)
{
  g_autoptr(GError) whole_error = NULL;
  g_autoptr(GError) split_error = NULL;
  g_autoptr(PlanarTrace) whole = load_split (path, PLANAR_SPILL_NEVER, G_MAXINT64, &whole_error);
  g_autoptr(PlanarTrace) split = load_split (path, spill, split_min, &split_error);

  if (whole == NULL)
    {
      g_assert_null (split);
      g_assert_nonnull (split_error);
      g_assert_cmpstr (split_error->message, ==, whole_error->message);
      return 0;
    }
  g_assert_no_error (split_error);
  g_assert_cmpuint (_planar_trace_get_n_split_lines (whole), ==, 0);
  compare_traces (whole, split);
  return _planar_trace_get_n_split_lines (split);
}

/* Lines decoded in pieces by several workers make the index a decode of
 * whole lines makes, in memory and spilled. */
static void
test_split_lines (PlanarTestFixture *f,
                  gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  g_autofree char *path = generate (f->dir, "20000", "3");

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  g_assert_cmpuint (assert_split_same (path, PLANAR_SPILL_NEVER, 4096), >, 5);
  g_assert_cmpuint (assert_split_same (path, PLANAR_SPILL_EVERY, 4096), >, 5);
  /* Pieces of a few events, many of them empty. */
  g_assert_cmpuint (assert_split_same (path, PLANAR_SPILL_NEVER, 64), >, 20);
}

/* Builds the depth index of a track of the @n @events (nested as their
 * depths say) in @n_parts parts (1: one pass), into @track. */
static void
index_track_in_parts (PlanarTrace       *trace,
                      const PlanarEvent *events,
                      gsize              n,
                      guint              n_parts,
                      PlanarTrack       *track)
{
  g_autoptr(GError) error = NULL;
  guint n_parted = _planar_trace_get_n_parted_depth_indices ();

  memset (track, 0, sizeof *track);
  track->name = "track";
  track->events = g_memdup2 (events, n * sizeof (PlanarEvent));
  track->n_events = n;
  for (gsize i = 0; i < n; i++)
    track->max_depth = MAX (track->max_depth, events[i].depth);
  _planar_trace_set_depth_index_parts (n_parts > 1 ? 1 : G_MAXSIZE, n_parts);
  g_assert_true (_planar_trace_index_track (trace, track, &error));
  g_assert_no_error (error);
  _planar_trace_set_depth_index_parts (0, 0);
  g_assert_cmpuint (_planar_trace_get_n_parted_depth_indices (), ==, n_parted + (n_parts > 1));
}

/* A track's depth index built in parts side by side (as from 2^20 events)
 * is the one built in one pass: the groups' orders and starts, which
 * groups' ends go back (the span queries search those linearly): within
 * a part, only at the seam between two parts (each part's ends in order),
 * or across a part with no event of that depth; and the track's span, to
 * its latest end. Tracks whose depths come from elsewhere (derived lines,
 * a cached index) are indexed as they are; the decoder's nesting keeps a
 * depth's ends in order. The loads of a generated profile in parts are
 * the same as in one pass too. */
static void
test_depth_index_parts (PlanarTestFixture *f,
                        gconstpointer      data)
{
  g_autofree char *gen = generate (f->dir, "20000", "3");
  g_autoptr(PlanarTrace) whole = load_cold_spilled (gen, PLANAR_SPILL_NEVER);
  /* Each case: 3,000 events, 1,000 ps apart, 500 ps long at depth 1 but
   * for those below; cut in 3, parts of 1,000. */
  enum { CLEAN, SEAM, GAP, INSIDE, N_CASES };
  const gsize n = 3000;
  g_autofree PlanarEvent *events = g_new0 (PlanarEvent, n);

  for (guint c = 0; c < N_CASES; c++)
    {
      PlanarTrack one;

      for (gsize i = 0; i < n; i++)
        {
          events[i].start_ps = (gint64) i * 1000;
          events[i].duration_ps = 500;
          events[i].depth = i % 10 == 0 ? 0 : 1;
        }
      if (c == SEAM)
        /* The last of the second part's ends after the third's first. */
        events[1999].duration_ps = 5000;
      else if (c == GAP)
        {
          /* No depth 1 in the second part; the first's last ends after
           * the third's first. */
          for (gsize i = 1000; i < 2000; i++)
            events[i].depth = 0;
          events[999].duration_ps = 15000000;
        }
      else if (c == INSIDE)
        events[1501].duration_ps = 5000;
      index_track_in_parts (whole, events, n, 1, &one);
      g_assert_cmpint (one.start_ps, ==, 0);
      /* The span ends with the latest end, not the last event's. */
      g_assert_cmpint (one.end_ps, ==, c == GAP ? 999000 + 15000000 : 2999500);
      g_assert_true (one.depth_ends_sorted[0]);
      g_assert_true (one.depth_ends_sorted[1] == (c == CLEAN));
      for (guint n_parts = 2; n_parts <= 7; n_parts++)
        {
          PlanarTrack parts;

          index_track_in_parts (whole, events, n, n_parts, &parts);
          compare_tracks (&one, &parts);
          _planar_track_clear_arrays (&parts);
        }
      _planar_track_clear_arrays (&one);
    }

  for (guint n_parts = 2; n_parts <= 7; n_parts += 5)
    {
      guint n_parted = _planar_trace_get_n_parted_depth_indices ();
      g_autoptr(PlanarTrace) parts = NULL;
      g_autoptr(PlanarTrace) spilled = NULL;

      _planar_trace_set_depth_index_parts (1, n_parts);
      parts = load_cold_spilled (gen, PLANAR_SPILL_NEVER);
      spilled = load_cold_spilled (gen, PLANAR_SPILL_EVERY);
      _planar_trace_set_depth_index_parts (0, 0);
      g_assert_cmpuint (_planar_trace_get_n_parted_depth_indices (), >, n_parted + 10);
      compare_traces (whole, parts);
      compare_traces (whole, spilled);
    }
}

/* Adds to @line, after its events on the wire, the unknown field @number
 * (a varint, or bytes when @text is given): the fields a writer may put
 * anywhere in an XLine. */
static void
add_field_after_events (XLine      *line,
                        guint32     number,
                        guint64     value,
                        const char *text)
{
  ProtobufCMessageUnknownField *fields = g_new0 (ProtobufCMessageUnknownField, line->base.n_unknown_fields + 1);
  ProtobufCMessageUnknownField *field = &fields[line->base.n_unknown_fields];
  gsize n = 0;

  if (line->base.n_unknown_fields > 0)
    memcpy (fields, line->base.unknown_fields, line->base.n_unknown_fields * sizeof *fields);
  line->base.unknown_fields = planar_test_keep (fields);
  line->base.n_unknown_fields++;
  field->tag = number;
  /* An unknown field is kept as its bytes after the tag: a length
   * prefix, then the text. */
  field->data = planar_test_keep (g_malloc (1 + (text != NULL ? strlen (text) : 10)));
  if (text != NULL)
    {
      g_assert_cmpuint (strlen (text), <, 0x80);
      field->wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
      field->data[0] = (guint8) strlen (text);
      memcpy (field->data + 1, text, strlen (text));
      field->len = 1 + strlen (text);
      return;
    }
  do
    {
      field->data[n++] = (guint8) ((value & 0x7f) | (value >= 0x80 ? 0x80 : 0));
      value >>= 7;
    }
  while (value != 0);
  field->wire_type = PROTOBUF_C_WIRE_TYPE_VARINT;
  field->len = n;
}

/* The pieces of a line are joined as one read of it would have left it:
 * its name, display name and timestamp written after its events (the last
 * of each kind wins), aggregated events among the others, events out of
 * order, nested and overlapping. A damaged event in a middle piece fails
 * the load with the message a whole read gives. */
static void
test_split_line_fields (PlanarTestFixture *f,
                        gconstpointer      data)
{
  const gint64 start_ns = 1767225600000000000ll;
  XSpace *space = planar_test_space_new ();
  XPlane *cpu = planar_test_space_add_plane (space, 1, "/host:CPU");
  XLine *line = planar_test_plane_add_line (cpu, 7, "first name", start_ns + 1000);
  g_autofree char *path = NULL;
  g_autofree gchar *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarTrack *track;
  gsize length, found = 0;

  planar_test_add_task_environment (space, (guint64) start_ns);
  planar_test_plane_add_event_metadata (cpu, 1, "step", NULL);
  planar_test_plane_add_event_metadata (cpu, 2, "inner", NULL);
  for (guint i = 0; i < 3000; i++)
    {
      /* Two out of order, one overlapping its neighbour. */
      gint64 at = i == 1000 ? 1001 * 10000 : i == 1001 ? 1000 * 10000 : (gint64) i * 10000;

      planar_test_line_add_event (line, 1, at, i == 2000 ? 15000 : 9000);
      planar_test_line_add_event (line, 2, at + 1000, 2000);
      if (i % 700 == 350)
        {
          XEvent *aggregated = planar_test_line_add_event (line, 1, 0, 0);

          aggregated->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
          aggregated->num_occurrences = i;
        }
    }
  /* The metadata id 77 marks the event damaged below. */
  planar_test_line_add_event (line, 77, 5, 1);
  for (guint i = 0; i < 3000; i++)
    planar_test_line_add_event (line, 1, 30000000 + (gint64) i * 10000, 9000);
  add_field_after_events (line, 2, 0, "last name");
  add_field_after_events (line, 11, 0, "shown name");
  add_field_after_events (line, 3, (guint64) (start_ns + 2000), NULL);
  path = planar_test_write_space (space, f->dir, "pieces.xplane.pb");

  g_assert_cmpuint (assert_split_same (path, PLANAR_SPILL_NEVER, 1024), ==, 1);
  g_assert_cmpuint (assert_split_same (path, PLANAR_SPILL_EVERY, 1024), ==, 1);
  trace = load_split (path, PLANAR_SPILL_NEVER, 1024, &error);
  g_assert_no_error (error);
  track = planar_plane_find_track (planar_trace_find_plane (trace, "/host:CPU"), "last name");
  g_assert_nonnull (track);
  g_assert_cmpstr (track->display_name, ==, "shown name");
  g_assert_cmpuint (track->n_aggregated, ==, 4);
  g_assert_cmpuint (track->n_events, ==, 9001);
  g_assert_cmpuint (track->n_overlaps, >, 0);
  /* The timestamp after the events, not the one before. */
  g_assert_cmpint (track->events[0].start_ps, ==, 2000 * 1000);

  /* metadata_id 77 (tag 0x08, value 0x4d) as a fixed 64-bit field, which
   * runs past its event, in the line's middle. */
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  for (gsize i = 0; i + 1 < length; i++)
    if ((guint8) contents[i] == 0x08 && (guint8) contents[i + 1] == 0x4d)
      {
        found++;
        contents[i] = 0x09;
      }
  g_assert_cmpuint (found, ==, 1);
  g_assert_true (g_file_set_contents (path, contents, (gssize) length, NULL));
  {
    g_autoptr(GError) split_error = NULL;
    g_autoptr(PlanarTrace) split = load_split (path, PLANAR_SPILL_NEVER, 1024, &split_error);

    g_assert_null (split);
    g_assert_error (split_error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT);
    g_assert_nonnull (strstr (split_error->message, "XEvent at byte"));
  }
  assert_split_same (path, PLANAR_SPILL_NEVER, 1024);
}

/* A spilled index's events are those of the index in memory, also for
 * lines whose timestamp comes after their events, or twice (before them,
 * then another after them: the last counts), and their times are the
 * timestamp's. (Lines of more events than a chunk of 2,048: a decoder
 * that wrote a file-backed line's events in chunks, rebased as it went,
 * was tried, docs/loader.md.) */
static void
test_spilled_staged_events (PlanarTestFixture *f,
                            gconstpointer      data)
{
  const gint64 start_ns = 1767225600000000000ll;
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  XSpace *space = planar_test_space_new ();
  XPlane *cpu = planar_test_space_add_plane (space, 1, "/host:CPU");
  XLine *before = planar_test_plane_add_line (cpu, 1, "before", start_ns + 1000);
  XLine *after = planar_test_plane_add_line (cpu, 2, "after", 0);
  XLine *twice = planar_test_plane_add_line (cpu, 3, "twice", start_ns + 5000);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) heap = NULL;
  g_autoptr(PlanarTrace) spilled = NULL;
  const struct { const char *name; gint64 ts_ns; } lines[] = {
    { "before", start_ns + 1000 }, { "after", start_ns + 2000 }, { "twice", start_ns + 3000 },
  };

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  planar_test_add_task_environment (space, (guint64) start_ns);
  planar_test_plane_add_event_metadata (cpu, 1, "step", NULL);
  /* More events than one staged chunk. */
  planar_test_line_set_events (before, 5000, 1, 1000, 500);
  planar_test_line_set_events (after, 5000, 1, 1000, 500);
  planar_test_line_set_events (twice, 5000, 1, 1000, 500);
  add_timestamp_after_events (after, start_ns + 2000);
  add_timestamp_after_events (twice, start_ns + 3000);
  path = planar_test_write_space (space, f->dir, "staged.xplane.pb");

  heap = load_cold_spilled (path, PLANAR_SPILL_NEVER);
  spilled = load_cold_spilled (path, PLANAR_SPILL_EVERY);
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      const PlanarPlane *plane = planar_trace_find_plane (spilled, "/host:CPU");
      const PlanarTrack *track = planar_plane_find_track (plane, lines[i].name);

      g_assert_nonnull (track);
      g_assert_true (planar_spill_is_mapped (track->events));
      g_assert_cmpuint (track->n_events, ==, 5000);
      g_assert_cmpint (track->events[0].start_ps, ==, (lines[i].ts_ns - start_ns) * 1000);
      g_assert_cmpint (track->events[4999].start_ps, ==, (lines[i].ts_ns - start_ns) * 1000 + 4999 * 1000);
    }
  compare_traces (heap, spilled);
}

/* A trace whose every block is file-backed is the trace on the heap, cold
 * and restored from its cache, and its files go with it. */
static void
test_spilled_index (PlanarTestFixture *f,
                    gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) heap = NULL;
  guint64 bytes0, bytes;
  guint blocks0, blocks;

  use_cache_dir (f);
  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  path = generate (f->dir, "20000", "3");
  heap = load_cold_spilled (path, PLANAR_SPILL_NEVER);
  planar_spill_get_usage (&bytes0, &blocks0);
  {
    g_autoptr(PlanarTrace) cold = load_cold_spilled (path, PLANAR_SPILL_EVERY);
    guint n_tracks = 0;

    for (guint p = 0; p < planar_trace_get_n_planes (cold); p++)
      {
        const PlanarPlane *plane = planar_trace_get_plane (cold, p);

        for (guint t = 0; t < plane->n_tracks; t++)
          if (plane->tracks[t].n_events > 0)
            {
              g_assert_true (planar_spill_is_mapped (plane->tracks[t].events));
              g_assert_true (planar_spill_is_mapped (plane->tracks[t].depth_starts));
              g_assert_false (planar_spill_is_mapped (planar_trace_get_plane (heap, p)->tracks[t].events));
              n_tracks++;
            }
      }
    planar_spill_get_usage (&bytes, &blocks);
    g_assert_cmpuint (n_tracks, >, 10);
    g_assert_cmpuint (blocks, >, blocks0 + n_tracks);
    compare_traces (heap, cold);
  }
  {
    g_autoptr(PlanarTrace) cached = load_twice_spilled (path, PLANAR_SPILL_EVERY);

    compare_traces (heap, cached);
  }
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
  g_assert_cmpuint (bytes, ==, bytes0);
}

/* Large heap blocks are anonymous mappings of their own (huge pages asked
 * for): they keep their bytes when they grow (moved by the kernel), when
 * they move to a file, and are freed as any other block. */
static void
test_spill_huge_blocks (PlanarTestFixture *f,
                        gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  const gsize mb = (gsize) 1 << 20;
  guint64 bytes0, bytes;
  guint blocks0, blocks;
  guint8 *block;
  PlanarSpillArray array;

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  planar_spill_get_usage (&bytes0, &blocks0);

  /* Small: the allocator's. */
  block = planar_spill_alloc (mb, PLANAR_SPILL_NEVER);
  g_assert_false (planar_spill_can_discard (block));
  memset (block, 1, mb);
  /* Grown past 8 MiB: a mapping of its own, with the bytes it had. */
  block = planar_spill_renew (block, mb, 9 * mb, PLANAR_SPILL_NEVER);
  g_assert_true (planar_spill_can_discard (block));
  g_assert_false (planar_spill_is_mapped (block));
  g_assert_cmpuint ((guintptr) block % (2 * mb), ==, 0);
  g_assert_cmpint (block[0], ==, 1);
  g_assert_cmpint (block[mb - 1], ==, 1);
  memset (block + mb, 2, 8 * mb);
  /* Grown again, then shrunk: the same bytes. */
  block = planar_spill_renew (block, 9 * mb, 68 * mb + 3, PLANAR_SPILL_NEVER);
  g_assert_true (planar_spill_can_discard (block));
  g_assert_cmpint (block[mb - 1], ==, 1);
  g_assert_cmpint (block[9 * mb - 1], ==, 2);
  block[68 * mb + 2] = 3;
  block = planar_spill_renew (block, 68 * mb + 3, 9 * mb, PLANAR_SPILL_NEVER);
  g_assert_cmpint (block[0], ==, 1);
  g_assert_cmpint (block[9 * mb - 1], ==, 2);
  /* Into a file when the trace spills, bytes and all. */
  block = planar_spill_renew (block, 9 * mb, 10 * mb, PLANAR_SPILL_LARGE);
  g_assert_true (planar_spill_is_mapped (block));
  g_assert_false (planar_spill_can_discard (block));
  g_assert_cmpint (block[mb - 1], ==, 1);
  g_assert_cmpint (block[9 * mb - 1], ==, 2);
  planar_spill_free (block);

  /* Allocated large at once; taken into a file. */
  block = planar_spill_alloc (12 * mb, PLANAR_SPILL_NEVER);
  g_assert_true (planar_spill_can_discard (block));
  memset (block, 9, 12 * mb);
  block = planar_spill_take (block, 12 * mb, PLANAR_SPILL_LARGE);
  g_assert_true (planar_spill_is_mapped (block));
  g_assert_cmpint (block[12 * mb - 1], ==, 9);
  planar_spill_free (block);

  /* An array appended past 8 MiB on the heap keeps every element. */
  planar_spill_array_init (&array, sizeof (guint64), PLANAR_SPILL_NEVER);
  for (guint64 i = 0; i < 3 * mb; i++)
    planar_spill_array_append (&array, &i, 1);
  g_assert_true (planar_spill_can_discard (array.data));
  for (guint64 i = 0; i < array.len; i += 4099)
    g_assert_cmpuint (planar_spill_array_index (&array, guint64, i), ==, i);
  planar_spill_array_clear (&array);

  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
  g_assert_cmpuint (bytes, ==, bytes0);
}

/* The inode of the file mapped at @addr (/proc/self/maps), or 0. */
static guint64
mapped_inode (gconstpointer addr)
{
  g_autofree char *maps = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 lo, hi, inode;
      char perms[8], dev[16];
      unsigned long long offset;

      if (sscanf (lines[i], "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %7s %llx %15s %" G_GUINT64_FORMAT,
                  &lo, &hi, perms, &offset, dev, &inode) == 6 &&
          (guintptr) addr >= lo && (guintptr) addr < hi)
        return inode;
    }
  return 0;
}

static guint
count_open_fds (void)
{
  /* Counted through /proc, which must be there: 0 would prove nothing. */
  g_assert_true (g_file_test ("/proc/self/fd", G_FILE_TEST_IS_DIR));
  return planar_test_count_entries ("/proc/self/fd");
}

/* A block in a file grows in place: its file grows and stays mapped, with
 * the bytes it had (before, each growth made a new file and copied the
 * block into it: at 10^8 events, about a sixth of the load's CPU time).
 * Blocks past the bound on kept descriptors close theirs at once and grow
 * into a new file as before; a freed block closes its descriptor. */
static void
test_spill_file_grows_in_place (PlanarTestFixture *f,
                                gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  const gsize mb = PLANAR_SPILL_MIN_BLOCK;
  guint64 bytes0, bytes;
  guint blocks0, blocks, fds0;
  guint8 *a, *b, *c;
  guint64 inode;

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  planar_spill_get_usage (&bytes0, &blocks0);
  fds0 = count_open_fds ();
  _planar_spill_set_max_fds (2);

  a = planar_spill_alloc (mb, PLANAR_SPILL_LARGE);
  b = planar_spill_alloc (mb, PLANAR_SPILL_LARGE);
  c = planar_spill_alloc (mb, PLANAR_SPILL_LARGE);
  g_assert_true (planar_spill_is_mapped (a) && planar_spill_is_mapped (b) && planar_spill_is_mapped (c));
  /* Two descriptors kept, the third closed. */
  g_assert_cmpuint (count_open_fds (), ==, fds0 + 2);
  memset (a, 0x11, mb);
  memset (c, 0x33, mb);

  inode = mapped_inode (a);
  g_assert_cmpuint (inode, !=, 0);
  for (guint k = 2; k <= 64; k *= 2)
    {
      a = planar_spill_renew (a, k / 2 * mb, k * mb, PLANAR_SPILL_LARGE);
      g_assert_true (planar_spill_is_mapped (a));
      g_assert_cmpuint (mapped_inode (a), ==, inode);
      g_assert_cmpuint (mapped_inode (a + k * mb - 1), ==, inode);
      g_assert_cmpint (a[0], ==, 0x11);
      g_assert_cmpint (a[k / 2 * mb - 1], ==, k == 2 ? 0x11 : 0x22);
      memset (a + k / 2 * mb, 0x22, k / 2 * mb);
    }
  g_assert_cmpuint (count_open_fds (), ==, fds0 + 2);
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0 + 3);
  g_assert_cmpuint (bytes, ==, bytes0 + 66 * mb);

  /* Without a descriptor: a new file, the same bytes. */
  inode = mapped_inode (c);
  c = planar_spill_renew (c, mb, 4 * mb, PLANAR_SPILL_LARGE);
  g_assert_true (planar_spill_is_mapped (c));
  g_assert_cmpuint (mapped_inode (c), !=, inode);
  g_assert_cmpint (c[0], ==, 0x33);
  g_assert_cmpint (c[mb - 1], ==, 0x33);

  planar_spill_free (a);
  planar_spill_free (b);
  planar_spill_free (c);
  _planar_spill_set_max_fds (0);
  g_assert_cmpuint (count_open_fds (), ==, fds0);
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
  g_assert_cmpuint (bytes, ==, bytes0);
}

/* Blocks in memory grown, allocated and freed by several threads at once
 * (the decoder's and the derive's workers do): each stays known as a
 * mapping of its own. Before, a grown block's old place was given back
 * before the table of blocks forgot it, so a block another thread mapped
 * at that very place in between was forgotten in its stead, and freed as
 * the heap's: free() on a mapping, a crash (seen in /search/hit-index-million). */
typedef struct
{
  guint          seed;
  gint          *lost;
  gint64         deadline;
} SpillThread;

static gpointer
spill_thread_run (gpointer data)
{
  SpillThread *t = data;
  GRand *rand = g_rand_new_with_seed (t->seed);

  for (guint i = 0; i < 3000 && g_get_monotonic_time () < t->deadline; i++)
    {
      gsize n = PLANAR_SPILL_HUGE_MIN * (gsize) g_rand_int_range (rand, 1, 3);
      guint8 *block = planar_spill_alloc (n, PLANAR_SPILL_NEVER);

      block[0] = (guint8) t->seed;
      for (guint grow = 0; grow < 3; grow++)
        {
          gsize more = n + PLANAR_SPILL_HUGE_MIN * (gsize) g_rand_int_range (rand, 1, 3);

          if (!planar_spill_can_discard (block))
            g_atomic_int_inc (t->lost);
          block = planar_spill_renew (block, n, more, PLANAR_SPILL_NEVER);
          n = more;
          block[n - 1] = (guint8) t->seed;
        }
      if (!planar_spill_can_discard (block) || block[0] != (guint8) t->seed)
        g_atomic_int_inc (t->lost);
      planar_spill_free (block);
    }
  g_rand_free (rand);
  return NULL;
}

static void
test_spill_blocks_threads (PlanarTestFixture *f,
                           gconstpointer      data)
{
  SpillThread threads[4];
  GThread *thread[G_N_ELEMENTS (threads)];
  gint lost = 0;
  guint64 bytes0, bytes;
  guint blocks0, blocks;

  planar_spill_get_usage (&bytes0, &blocks0);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      threads[i] = (SpillThread) { .seed = i + 1, .lost = &lost,
                                   .deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC };
      thread[i] = g_thread_new ("spill", spill_thread_run, &threads[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (thread[i]);
  g_assert_cmpint (lost, ==, 0);
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
  g_assert_cmpuint (bytes, ==, bytes0);
}

/* The same while freed blocks are kept for reuse: a kept block goes to
 * one thread only, and stays a mapping of its own. */
static void
test_spill_blocks_threads_reused (PlanarTestFixture *f,
                                  gconstpointer      data)
{
  guint n_reused = _planar_spill_get_n_reused ();

  _planar_spill_set_kept_limit (6 * PLANAR_SPILL_HUGE_MIN);
  planar_spill_reuse_begin ();
  test_spill_blocks_threads (f, data);
  g_assert_cmpuint (_planar_spill_get_n_reused (), >, n_reused);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), <=, 6 * PLANAR_SPILL_HUGE_MIN);
  planar_spill_reuse_end ();
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 0);
  _planar_spill_set_kept_limit (0);
}

/* Blocks in memory freed while a load runs are kept, up to a bound, and
 * given to the next blocks asked for: the smallest that holds one, cut
 * to it, or else the largest, grown. */
static void
test_spill_reuse (PlanarTestFixture *f,
                  gconstpointer      data)
{
  const gsize mb = (gsize) 1 << 20, big = PLANAR_SPILL_HUGE_MIN;
  guint n0 = _planar_spill_get_n_reused ();
  guint8 *a, *b, *c, *d;

  _planar_spill_set_kept_limit (64 * mb);

  /* Outside a load nothing is kept; small blocks never are. */
  a = planar_spill_alloc (2 * big, PLANAR_SPILL_NEVER);
  planar_spill_free (a);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 0);

  planar_spill_reuse_begin ();
  /* Nested, as two loads at once are. */
  planar_spill_reuse_begin ();
  a = planar_spill_alloc (big - 1, PLANAR_SPILL_NEVER);
  planar_spill_free (a);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 0);

  /* The smallest block that holds what is asked. */
  a = planar_spill_alloc (40 * mb, PLANAR_SPILL_NEVER);
  b = planar_spill_alloc (16 * mb, PLANAR_SPILL_NEVER);
  memset (a, 0x11, 40 * mb);
  memset (b, 0x22, 16 * mb);
  planar_spill_free (a);
  planar_spill_free (b);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 56 * mb);
  c = planar_spill_alloc (12 * mb, PLANAR_SPILL_NEVER);
  g_assert_true (c == b);
  g_assert_true (planar_spill_can_discard (c));
  g_assert_cmpuint (_planar_spill_get_n_reused (), ==, n0 + 1);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 40 * mb);
  memset (c, 0x33, 12 * mb);

  /* Cut to what is asked (in whole huge pages), the rest kept. */
  d = planar_spill_alloc (9 * mb + 1, PLANAR_SPILL_NEVER);
  g_assert_true (d == a);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 30 * mb);
  memset (d, 0x44, 9 * mb + 1);
  b = planar_spill_alloc (30 * mb, PLANAR_SPILL_NEVER);
  g_assert_true (b == a + 10 * mb);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 0);
  memset (b, 0x55, 30 * mb);
  g_assert_cmpint (d[9 * mb], ==, 0x44);
  g_assert_cmpint (c[12 * mb - 1], ==, 0x33);

  /* Too small for what is asked: the largest, grown, its pages moved. */
  planar_spill_free (c);
  a = planar_spill_alloc (20 * mb, PLANAR_SPILL_NEVER);
  g_assert_cmpuint (_planar_spill_get_n_reused (), ==, n0 + 4);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 0);
  g_assert_true (planar_spill_can_discard (a));
  memset (a, 0x66, 20 * mb);
  planar_spill_free (a);
  planar_spill_free (b);
  planar_spill_free (d);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), <=, 64 * mb);

  /* The bound: the oldest go back first, and a block larger than it is
   * kept in part. */
  planar_spill_reuse_end ();
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), >, 0);
  _planar_spill_set_kept_limit (32 * mb);
  a = planar_spill_alloc (16 * mb, PLANAR_SPILL_NEVER);
  b = planar_spill_alloc (16 * mb, PLANAR_SPILL_NEVER);
  c = planar_spill_alloc (16 * mb, PLANAR_SPILL_NEVER);
  planar_spill_free (a);
  planar_spill_free (b);
  planar_spill_free (c);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 32 * mb);
  d = planar_spill_alloc (16 * mb, PLANAR_SPILL_NEVER);
  g_assert_true (d == b || d == c);
  planar_spill_free (d);
  a = planar_spill_alloc (48 * mb, PLANAR_SPILL_NEVER);
  planar_spill_free (a);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 32 * mb);
  a = planar_spill_alloc (32 * mb, PLANAR_SPILL_NEVER);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 0);
  memset (a, 0x77, 32 * mb);
  planar_spill_free (a);

  /* The last end gives every kept block back. */
  planar_spill_reuse_end ();
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 0);
  a = planar_spill_alloc (16 * mb, PLANAR_SPILL_NEVER);
  planar_spill_free (a);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 0);
  _planar_spill_set_kept_limit (0);
}

/* PLANAR_SPILL_WHEN_SHORT: large blocks go to files only while the
 * system's available memory, less its reserve, would not hold them. */
static void
test_spill_when_short (PlanarTestFixture *f,
                       gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  const gsize mb = (gsize) 1 << 20;
  const guint64 gb = (guint64) 1 << 30;
  guint8 *block;

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  /* 64 GiB, 8 of them kept in reserve. */
  _planar_spill_set_available_memory (64 * gb);
  g_assert_false (planar_spill_memory_is_short (mb));
  g_assert_false (planar_spill_memory_is_short (55 * gb));
  g_assert_true (planar_spill_memory_is_short (57 * gb));
  block = planar_spill_alloc (2 * mb, PLANAR_SPILL_WHEN_SHORT);
  g_assert_false (planar_spill_is_mapped (block));
  memset (block, 4, 2 * mb);
  /* Short: a file, for a new block and for one that grows. */
  _planar_spill_set_available_memory (gb);
  g_assert_true (planar_spill_memory_is_short (mb));
  block = planar_spill_renew (block, 2 * mb, 3 * mb, PLANAR_SPILL_WHEN_SHORT);
  g_assert_true (planar_spill_is_mapped (block));
  g_assert_cmpint (block[2 * mb - 1], ==, 4);
  planar_spill_free (block);
  /* Below the smallest block that may spill: the heap still. */
  block = planar_spill_alloc (mb / 2, PLANAR_SPILL_WHEN_SHORT);
  g_assert_false (planar_spill_is_mapped (block));
  planar_spill_free (block);
  _planar_spill_set_available_memory (G_MAXUINT64);
}

/* A trace loaded while memory is short spills its large blocks and is the
 * trace on the heap, cold and restored; with memory to spare, the same
 * mode keeps it on the heap. */
static void
test_spilled_when_short (PlanarTestFixture *f,
                         gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) heap = NULL;
  guint64 bytes0, bytes;
  guint blocks0, blocks;

  use_cache_dir (f);
  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  path = generate (f->dir, "300000", "5");
  heap = load_cold_spilled (path, PLANAR_SPILL_NEVER);
  planar_spill_get_usage (&bytes0, &blocks0);
  {
    g_autoptr(PlanarTrace) plenty = load_cold_spilled (path, PLANAR_SPILL_WHEN_SHORT);

    planar_spill_get_usage (&bytes, &blocks);
    g_assert_cmpuint (blocks, ==, blocks0);
    compare_traces (heap, plenty);
  }
  _planar_spill_set_available_memory ((guint64) 1 << 30);
  {
    g_autoptr(PlanarTrace) cold = load_cold_spilled (path, PLANAR_SPILL_WHEN_SHORT);

    planar_spill_get_usage (&bytes, &blocks);
    g_assert_cmpuint (blocks, >, blocks0);
    compare_traces (heap, cold);
  }
  {
    g_autoptr(PlanarTrace) cached = load_twice_spilled (path, PLANAR_SPILL_WHEN_SHORT);

    compare_traces (heap, cached);
  }
  _planar_spill_set_available_memory (G_MAXUINT64);
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
  g_assert_cmpuint (bytes, ==, bytes0);
}

/* A profile of five lines of 160,000 events, each event as small as the
 * wire allows (about 12 bytes): each line's starts (8 bytes an event) take
 * more than a spill block, and all of them more than half the file. */
static char *
write_dense_lines (const char *dir)
{
  XSpace *space = planar_test_space_new ();
  PlanarTestPlane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  gint64 kernel = planar_test_named_plane_event_id (gpu, "k");

  for (guint l = 0; l < 5; l++)
    planar_test_line_set_events (planar_test_plane_add_line (gpu->plane, l + 1, "Stream", 0), 160000, kernel, 10, 5);
  planar_test_named_plane_done (gpu);
  return planar_test_write_space (space, dir, "dense.xplane.pb");
}

/* When the index spills as a large file's does, the tracks' depth index
 * (the starts, read for every pixel column of a frame) stays in memory up
 * to half the file's size, the rest in files, and the events in files:
 * the same index as on the heap. */
static void
test_spilled_depth_in_memory (PlanarTestFixture *f,
                              gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) heap = NULL;
  g_autoptr(PlanarTrace) cold = NULL;
  guint64 in_memory = 0, size;
  guint n_in_memory = 0, n_in_files = 0;
  GStatBuf st;

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  path = write_dense_lines (f->dir);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  size = (guint64) st.st_size;
  heap = load_cold_spilled (path, PLANAR_SPILL_NEVER);
  cold = load_cold_spilled (path, PLANAR_SPILL_LARGE);
  for (guint p = 0; p < cold->n_planes; p++)
    for (guint t = 0; t < cold->planes_priv[p].n_file_tracks; t++)
      {
        const PlanarTrack *track = &cold->planes[p].tracks[t];

        if (track->n_events < 160000)
          continue;
        g_assert_true (planar_spill_is_mapped (track->events));
        if (planar_spill_is_mapped (track->depth_starts))
          n_in_files++;
        else
          {
            n_in_memory++;
            in_memory += track->n_events * sizeof (gint64);
          }
      }
  g_assert_cmpuint (n_in_memory + n_in_files, ==, 5);
  g_assert_cmpuint (n_in_memory, >, 0);
  g_assert_cmpuint (n_in_files, >, 0);
  g_assert_cmpuint (in_memory, <=, size / 2);
  compare_traces (heap, cold);
}

/* A spilling trace builds its flow index in memory while the system has
 * the memory (the pairing and the sorts write out of order, which in files
 * took three times as long at 10^8 events), then keeps it in files like
 * its other large arrays: the same flows as a trace on the heap. */
static void
test_spilled_flows (PlanarTestFixture *f,
                    gconstpointer      data)
{
  g_autofree char *dir = g_build_filename (f->dir, "spill", NULL);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) heap = NULL;
  g_autoptr(PlanarTrace) cold = NULL;
  const PlanarFlowIndex *flows;
  guint64 bytes0, bytes;
  guint blocks0, blocks, n_reused;

  g_setenv ("PLANAR_SPILL_DIR", dir, TRUE);
  path = generate (f->dir, "1000000", "3");
  n_reused = _planar_spill_get_n_reused ();
  heap = load_cold_spilled (path, PLANAR_SPILL_NEVER);
  /* Blocks freed are kept for reuse only by a load that spills. */
  g_assert_cmpuint (_planar_spill_get_n_reused (), ==, n_reused);
  planar_spill_get_usage (&bytes0, &blocks0);
  cold = load_cold_spilled (path, PLANAR_SPILL_LARGE);
  g_assert_cmpuint (_planar_spill_get_n_reused (), >, n_reused);
  g_assert_cmpuint (_planar_spill_get_kept_bytes (), ==, 0);
  flows = planar_trace_get_flows (cold);
  g_assert_nonnull (flows);
  /* More than a file's worth of each. */
  g_assert_cmpuint (flows->n_flows * 32, >=, PLANAR_SPILL_MIN_BLOCK);
  g_assert_cmpuint (flows->n_by_from * 4, >=, PLANAR_SPILL_MIN_BLOCK);
  g_assert_cmpuint (flows->n_by_to * 4, >=, PLANAR_SPILL_MIN_BLOCK);
  g_assert_true (planar_spill_is_mapped (flows->flows));
  g_assert_true (planar_spill_is_mapped (flows->by_from));
  g_assert_true (planar_spill_is_mapped (flows->by_to));
  compare_traces (heap, cold);
  g_clear_object (&cold);
  planar_spill_get_usage (&bytes, &blocks);
  g_assert_cmpuint (blocks, ==, blocks0);
  g_assert_cmpuint (bytes, ==, bytes0);
}

/* Indexes are written in GLib's pool after a load returns: the scratch
 * folder goes once the last of them is written. */
static void
cache_teardown (PlanarTestFixture *f,
                gconstpointer      data)
{
  planar_cache_wait ();
  planar_test_fixture_teardown (f, data);
}

#define CACHE_TEST_ADD(path, func) \
  g_test_add ((path), PlanarTestFixture, NULL, planar_test_fixture_setup, (func), cache_teardown)

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  CACHE_TEST_ADD ("/cache/same-profile", test_same_profile);
  CACHE_TEST_ADD ("/cache/stale", test_stale);
  CACHE_TEST_ADD ("/cache/old-version", test_old_version);
  CACHE_TEST_ADD ("/cache/format-sizes", test_format_sizes);
  CACHE_TEST_ADD ("/cache/drop-pages", test_drop_pages);
  g_test_add ("/cache/damaged", PlanarTestFixture, GINT_TO_POINTER (TRUE), planar_test_fixture_setup, test_damaged,
              cache_teardown);
  g_test_add ("/cache/damaged-without-start-time", PlanarTestFixture, GINT_TO_POINTER (FALSE),
              planar_test_fixture_setup, test_damaged, cache_teardown);
  CACHE_TEST_ADD ("/cache/same-size-and-time", test_same_size_and_time);
  CACHE_TEST_ADD ("/cache/restore-failed", test_restore_failed);
  CACHE_TEST_ADD ("/cache/not-regular", test_not_regular);
  CACHE_TEST_ADD ("/cache/eviction", test_eviction);
  CACHE_TEST_ADD ("/cache/too-large", test_too_large);
  CACHE_TEST_ADD ("/cache/restore-first-view-first", test_restore_first_view_first);
  CACHE_TEST_ADD ("/cache/reopen-changed-after-first-view", test_reopen_changed_after_first_view);
  CACHE_TEST_ADD ("/cache/spill-blocks", test_spill_blocks);
  CACHE_TEST_ADD ("/cache/spilled-index", test_spilled_index);
  CACHE_TEST_ADD ("/cache/spilled-staged-events", test_spilled_staged_events);
  CACHE_TEST_ADD ("/cache/split-lines", test_split_lines);
  CACHE_TEST_ADD ("/cache/split-line-fields", test_split_line_fields);
  CACHE_TEST_ADD ("/cache/depth-index-parts", test_depth_index_parts);
  CACHE_TEST_ADD ("/cache/spill-memory-blocks", test_spill_memory_blocks);
  CACHE_TEST_ADD ("/cache/spilled-first-planes", test_spilled_first_planes);
  CACHE_TEST_ADD ("/cache/spill-huge-blocks", test_spill_huge_blocks);
  CACHE_TEST_ADD ("/cache/spill-blocks-threads", test_spill_blocks_threads);
  CACHE_TEST_ADD ("/cache/spill-blocks-threads-reused", test_spill_blocks_threads_reused);
  CACHE_TEST_ADD ("/cache/spill-reuse", test_spill_reuse);
  CACHE_TEST_ADD ("/cache/spill-file-grows-in-place", test_spill_file_grows_in_place);
  CACHE_TEST_ADD ("/cache/spill-when-short", test_spill_when_short);
  CACHE_TEST_ADD ("/cache/spilled-when-short", test_spilled_when_short);
  CACHE_TEST_ADD ("/cache/spilled-depth-in-memory", test_spilled_depth_in_memory);
  CACHE_TEST_ADD ("/cache/spilled-flows", test_spilled_flows);
  return g_test_run ();
}
