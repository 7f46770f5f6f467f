/* test-search.c: the whole-profile search, checked against a brute-force
 * scan that reads every event's stats the slow, obvious way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>

#define TF_SAMPLE "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb"
#define EXIT_BAD_INPUT 2

/* ------------------------------------------------------------------------ */
/* The samples */

/* A profile for the cases that work on any: the first sample, or one of
 * planar-gen in a clone without the samples. */
#define ANY_SAMPLE "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb"

static PlanarProfile *
load_profile (const char *path)
{
  const char *paths[] = { path, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(GError) error = NULL;

  planar_profile_load (profile, NULL, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&profile);
}

static PlanarSearch *
search_profile (PlanarProfile     *profile,
                const char        *pattern,
                PlanarSearchFlags  flags)
{
  g_autoptr(PlanarSearch) search = NULL;
  g_autoptr(GError) error = NULL;

  search = planar_search_new (profile, pattern, flags, &error);
  g_assert_no_error (error);
  g_assert_nonnull (search);
  planar_search_run (search, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (planar_search_is_completed (search));
  g_assert_cmpfloat (planar_search_get_fraction (search), ==, 1.0);
  return g_steal_pointer (&search);
}

/* ------------------------------------------------------------------------ */
/* The brute force: every event's full stat list from the model's public
 * reader, and the pattern tried on each text with plain code. */

typedef struct
{
  gboolean  regex_mode;
  gboolean  case_sensitive;
  GRegex   *regex;
  /* For text that is not UTF-8, which GRegex may only see in byte mode. */
  GRegex   *raw_regex;
  char     *needle;
} Reference;

static void
reference_init (Reference         *ref,
                const char        *pattern,
                PlanarSearchFlags  flags)
{
  memset (ref, 0, sizeof *ref);
  ref->regex_mode = (flags & PLANAR_SEARCH_REGEX) != 0;
  ref->case_sensitive = (flags & PLANAR_SEARCH_CASE_SENSITIVE) != 0;
  if (ref->regex_mode)
    {
      GRegexCompileFlags compile = ref->case_sensitive ? G_REGEX_DEFAULT : G_REGEX_CASELESS;
      g_autoptr(GError) error = NULL;

      ref->regex = g_regex_new (pattern, compile, G_REGEX_MATCH_DEFAULT, &error);
      g_assert_no_error (error);
      ref->raw_regex = g_regex_new (pattern, compile | G_REGEX_RAW, G_REGEX_MATCH_DEFAULT, &error);
      g_assert_no_error (error);
    }
  else
    ref->needle = ref->case_sensitive ? g_strdup (pattern) : g_ascii_strdown (pattern, -1);
}

static void
reference_clear (Reference *ref)
{
  g_clear_pointer (&ref->regex, g_regex_unref);
  g_clear_pointer (&ref->raw_regex, g_regex_unref);
  g_clear_pointer (&ref->needle, g_free);
}

static gboolean
reference_match (const Reference *ref,
                 const char      *text,
                 gsize            len)
{
  g_autofree char *copy = NULL;
  gsize n;

  if (ref->regex_mode)
    {
      GRegex *regex = g_utf8_validate_len (text, len, NULL) ? ref->regex : ref->raw_regex;

      return g_regex_match_full (regex, text, (gssize) len, 0, 0, NULL, NULL);
    }

  copy = g_memdup2 (text, len);
  if (!ref->case_sensitive)
    for (gsize i = 0; i < len; i++)
      copy[i] = g_ascii_tolower (copy[i]);
  n = strlen (ref->needle);
  for (gsize i = 0; i + n <= len; i++)
    if (memcmp (copy + i, ref->needle, n) == 0)
      return TRUE;
  return FALSE;
}

typedef struct
{
  gint64  start_ps;
  guint   trace;
  guint   plane;
  guint   track;
  guint64 event;
} Expected;

static int
compare_expected (gconstpointer a,
                  gconstpointer b)
{
  const Expected *x = a, *y = b;

  if (x->start_ps != y->start_ps)
    return x->start_ps < y->start_ps ? -1 : 1;
  if (x->trace != y->trace)
    return x->trace < y->trace ? -1 : 1;
  if (x->plane != y->plane)
    return x->plane < y->plane ? -1 : 1;
  if (x->track != y->track)
    return x->track < y->track ? -1 : 1;
  return x->event < y->event ? -1 : x->event > y->event;
}

typedef struct
{
  /* Expected, in time order. */
  GArray     *hits;
  /* "t/p/k" -> count, as a pointer-sized integer. */
  GHashTable *per_track;
  /* Matches that came from stats alone, not from a name. */
  guint64     stat_only;
} BruteResult;

static void
brute_result_clear (BruteResult *r)
{
  g_clear_pointer (&r->hits, g_array_unref);
  g_clear_pointer (&r->per_track, g_hash_table_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (BruteResult, brute_result_clear)

static char *
track_key (guint t,
           guint p,
           guint k)
{
  return g_strdup_printf ("%u/%u/%u", t, p, k);
}

static void
brute_force (PlanarProfile     *profile,
             const char        *pattern,
             PlanarSearchFlags  flags,
             BruteResult       *result)
{
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  Reference ref;

  reference_init (&ref, pattern, flags);
  result->hits = g_array_new (FALSE, FALSE, sizeof (Expected));
  result->per_track = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  result->stat_only = 0;

  for (guint t = 0; t < planar_profile_get_n_traces (profile); t++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, t);

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);

          for (guint k = 0; k < plane->n_tracks; k++)
            {
              const PlanarTrack *track = &plane->tracks[k];
              guint64 count = 0;

              for (gsize e = 0; e < track->n_events; e++)
                {
                  const PlanarEvent *ev = &track->events[e];
                  const char *name = planar_plane_get_event_name (plane, ev, FALSE);
                  const char *display = planar_plane_get_event_name (plane, ev, TRUE);
                  gboolean by_name, by_stat = FALSE;
                  g_autoptr(GError) error = NULL;

                  by_name = reference_match (&ref, name, strlen (name)) ||
                            reference_match (&ref, display, strlen (display));
                  g_array_set_size (stats, 0);
                  planar_trace_get_event_stats (trace, plane, ev, stats, &error);
                  g_assert_no_error (error);
                  for (guint s = 0; s < stats->len && !by_stat; s++)
                    {
                      const PlanarStat *stat = &g_array_index (stats, PlanarStat, s);

                      if (stat->kind == PLANAR_STAT_STRING || stat->kind == PLANAR_STAT_REF)
                        by_stat = reference_match (&ref, stat->str.data, stat->str.len);
                    }
                  if (by_name || by_stat)
                    {
                      Expected x = { ev->start_ps, t, p, k, e };

                      g_array_append_val (result->hits, x);
                      count++;
                      if (!by_name)
                        result->stat_only++;
                    }
                }
              if (count > 0)
                g_hash_table_insert (result->per_track, track_key (t, p, k), GSIZE_TO_POINTER (count));
            }
        }
    }
  g_array_sort (result->hits, compare_expected);
  reference_clear (&ref);
}

/* The search's result equals the brute force's: total, every track's
 * count, and every hit in order. Returns the total. */
static guint64
assert_same_as_brute_force (PlanarProfile     *profile,
                            const char        *pattern,
                            PlanarSearchFlags  flags,
                            guint64           *stat_only)
{
  g_autoptr(PlanarSearch) search = search_profile (profile, pattern, flags);
  g_auto(BruteResult) brute = { 0 };
  guint64 n;

  brute_force (profile, pattern, flags, &brute);
  n = planar_search_get_n_hits (search);
  if (n != brute.hits->len)
    g_error ("pattern '%s' (flags %u): the search found %" G_GUINT64_FORMAT " events, the brute force %u",
             pattern, flags, n, brute.hits->len);

  for (guint t = 0; t < planar_profile_get_n_traces (profile); t++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, t);

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);

          for (guint k = 0; k < plane->n_tracks; k++)
            {
              g_autofree char *key = track_key (t, p, k);
              guint64 expected = GPOINTER_TO_SIZE (g_hash_table_lookup (brute.per_track, key));

              if (planar_search_get_track_count (search, t, p, k) != expected)
                g_error ("pattern '%s': track %s (%s) has %" G_GUINT64_FORMAT " hits, expected %" G_GUINT64_FORMAT,
                         pattern, key, plane->tracks[k].name,
                         planar_search_get_track_count (search, t, p, k), expected);
            }
          g_assert_cmpuint (planar_search_get_track_count (search, t, p, plane->n_tracks), ==, 0);
        }
    }

  for (guint64 i = 0; i < n; i++)
    {
      const PlanarSearchHit *hit = planar_search_get_hit (search, i);
      const Expected *x = &g_array_index (brute.hits, Expected, i);
      const PlanarEvent *ev;

      g_assert_cmpint (hit->start_ps, ==, x->start_ps);
      g_assert_cmpuint (hit->ref.trace, ==, x->trace);
      g_assert_cmpuint (hit->ref.plane, ==, x->plane);
      g_assert_cmpuint (hit->ref.track, ==, x->track);
      g_assert_cmpuint (hit->ref.index, ==, x->event);
      ev = planar_search_resolve_hit (search, hit, NULL, NULL, NULL);
      g_assert_cmpint (ev->start_ps, ==, hit->start_ps);
      if (i > 0)
        g_assert_cmpint (planar_search_get_hit (search, i - 1)->start_ps, <=, hit->start_ps);
    }

  if (stat_only != NULL)
    *stat_only = brute.stat_only;
  return n;
}

static void
assert_same_hit (const PlanarSearchHit *a,
                 const PlanarSearchHit *b)
{
  g_assert_cmpint (a->start_ps, ==, b->start_ps);
  g_assert_cmpuint (a->ref.trace, ==, b->ref.trace);
  g_assert_cmpuint (a->ref.plane, ==, b->ref.plane);
  g_assert_cmpuint (a->ref.track, ==, b->ref.track);
  g_assert_cmpuint (a->ref.index, ==, b->ref.index);
}

static const char * const text_stats[] = {
  "hlo_op", "kernel_details", "tf_op", "hlo_module", "memcpy_details", "annotation", "source", NULL,
};

/* A fragment of a string stat of kind @kind (named in text_stats, or any
 * name if none is) that does not occur in the event's names, so that only
 * the stat can make the event match. NULL when the sample has none. */
static char *
find_stat_only_value (PlanarProfile  *profile,
                      PlanarStatKind  kind)
{
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  char *fallback = NULL;

  for (guint t = 0; t < planar_profile_get_n_traces (profile); t++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, t);

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);

          for (guint k = 0; k < plane->n_tracks; k++)
            for (gsize e = 0; e < plane->tracks[k].n_events; e++)
              {
                const PlanarEvent *ev = &plane->tracks[k].events[e];
                g_autofree char *name = g_ascii_strdown (planar_plane_get_event_name (plane, ev, FALSE), -1);
                g_autofree char *display = g_ascii_strdown (planar_plane_get_event_name (plane, ev, TRUE), -1);

                g_array_set_size (stats, 0);
                planar_trace_get_event_stats (trace, plane, ev, stats, NULL);
                for (guint s = 0; s < stats->len; s++)
                  {
                    const PlanarStat *stat = &g_array_index (stats, PlanarStat, s);
                    g_autofree char *value = NULL;
                    g_autofree char *lower = NULL;

                    if (stat->kind != kind || stat->str.len < 4)
                      continue;
                    value = g_strndup (stat->str.data, MIN (stat->str.len, 40));
                    lower = g_ascii_strdown (value, -1);
                    if (strlen (value) < 4 || !g_utf8_validate (value, -1, NULL) ||
                        strstr (name, lower) != NULL || strstr (display, lower) != NULL)
                      continue;
                    if (g_strv_contains (text_stats, stat->name))
                      {
                        g_free (fallback);
                        return g_steal_pointer (&value);
                      }
                    if (fallback == NULL)
                      fallback = g_steal_pointer (&value);
                  }
              }
        }
    }
  return fallback;
}

static void
test_samples_match_brute_force (void)
{
  g_autoptr(GPtrArray) samples = planar_test_list_samples (".xplane.pb");
  static const struct
  {
    const char        *pattern;
    PlanarSearchFlags  flags;
  } patterns[] = {
    { "fusion", PLANAR_SEARCH_DEFAULT },
    { "Memcpy", PLANAR_SEARCH_DEFAULT },
    { "Memcpy", PLANAR_SEARCH_CASE_SENSITIVE },
    { "memcpy", PLANAR_SEARCH_CASE_SENSITIVE },
    { "kernel", PLANAR_SEARCH_DEFAULT },
    { "^Stream|cu[A-Z]", PLANAR_SEARCH_REGEX },
    { "^Stream|cu[A-Z]", PLANAR_SEARCH_REGEX | PLANAR_SEARCH_CASE_SENSITIVE },
    { "grid:[0-9]+,1,1", PLANAR_SEARCH_REGEX },
    { "jit_|XlaModule|random", PLANAR_SEARCH_REGEX },
    { "no such event, nowhere", PLANAR_SEARCH_DEFAULT },
  };
  guint64 all_hits = 0;
  guint n_ref_patterns = 0;

  if (samples == NULL)
    return;
  for (guint i = 0; i < samples->len; i++)
    {
      const char *path = g_ptr_array_index (samples, i);
      g_autoptr(PlanarProfile) profile = load_profile (path);
      g_autofree char *string_value = find_stat_only_value (profile, PLANAR_STAT_STRING);
      g_autofree char *ref_value = find_stat_only_value (profile, PLANAR_STAT_REF);
      const char *stat_value = string_value ? string_value : ref_value;
      guint64 n, stat_only = 0;

      g_test_message ("%s", path);
      for (guint p = 0; p < G_N_ELEMENTS (patterns); p++)
        {
          n = assert_same_as_brute_force (profile, patterns[p].pattern, patterns[p].flags, NULL);
          g_test_message ("  '%s' (flags %u): %" G_GUINT64_FORMAT " hits", patterns[p].pattern,
                          patterns[p].flags, n);
          all_hits += n;
          if (g_str_has_prefix (patterns[p].pattern, "no such"))
            g_assert_cmpuint (n, ==, 0);
        }

      /* Every sample has stats with text of their own. */
      if (stat_value == NULL)
        g_error ("%s: no string stat whose value is not in its event's name", path);
      n = assert_same_as_brute_force (profile, stat_value, PLANAR_SEARCH_DEFAULT, &stat_only);
      g_test_message ("  stat value '%s': %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT " from stats only",
                      stat_value, n, stat_only);
      g_assert_cmpuint (stat_only, >, 0);
      if (ref_value != NULL)
        {
          n = assert_same_as_brute_force (profile, ref_value, PLANAR_SEARCH_DEFAULT, &stat_only);
          g_test_message ("  ref value '%s': %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT " from stats only",
                          ref_value, n, stat_only);
          g_assert_cmpuint (stat_only, >, 0);
          n_ref_patterns++;
        }
    }
  /* Otherwise the comparisons above could all be 0 == 0. */
  g_assert_cmpuint (all_hits, >, 0);
  g_assert_cmpuint (n_ref_patterns, >, 0);
}

/* A session of two generated hosts big enough that tracks are cut into
 * several jobs and every worker thread gets some. */
static PlanarProfile *
load_generated_session (char **dir_out)
{
  const char *gen = g_getenv ("PLANAR_GEN");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("planar-test-search-XXXXXX", &error);
  g_autofree char *session = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *host0 = NULL;
  g_autofree char *host1 = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  const char *paths[3];
  int status;

  g_assert_no_error (error);
  g_assert_nonnull (gen);
  session = g_build_filename (dir, "session", NULL);
  {
    const char *argv[] = { gen, "--events", "200000", "--hosts", "2", "-o", session, NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
    g_assert_no_error (error);
    if (!g_spawn_check_wait_status (status, NULL))
      g_error ("planar-gen failed: %s", err);
  }
  host0 = g_build_filename (session, "host0.xplane.pb", NULL);
  host1 = g_build_filename (session, "host1.xplane.pb", NULL);
  paths[0] = host0;
  paths[1] = host1;
  paths[2] = NULL;
  profile = planar_profile_new (paths);
  planar_profile_load (profile, NULL, &error);
  g_assert_no_error (error);
  *dir_out = g_steal_pointer (&dir);
  return g_steal_pointer (&profile);
}

static void
test_generated_session (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(PlanarProfile) profile = load_generated_session (&dir);
  g_autoptr(PlanarSearch) first = NULL;
  g_autoptr(PlanarSearch) again = NULL;
  gboolean has_big_track = FALSE;
  guint64 n, stat_only;

  /* Some track must span several jobs, or the split is not exercised. */
  for (guint t = 0; t < planar_profile_get_n_traces (profile); t++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, t);

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        for (guint k = 0; k < planar_trace_get_plane (trace, p)->n_tracks; k++)
          has_big_track |= planar_trace_get_plane (trace, p)->tracks[k].n_events > 65536;
    }
  g_assert_true (has_big_track);

  n = assert_same_as_brute_force (profile, "FUSION", PLANAR_SEARCH_DEFAULT, NULL);
  g_assert_cmpuint (n, >, 50000);
  /* The XLA op names in hlo_op have dots where kernel names have '_'. */
  n = assert_same_as_brute_force (profile, "fusion\\.[0-9]+$", PLANAR_SEARCH_REGEX, &stat_only);
  g_assert_cmpuint (stat_only, >, 0);
  n = assert_same_as_brute_force (profile, "occ_pct:18", PLANAR_SEARCH_CASE_SENSITIVE, &stat_only);
  g_assert_cmpuint (stat_only, >, 0);
  n = assert_same_as_brute_force (profile, "no such event, nowhere", PLANAR_SEARCH_DEFAULT, NULL);
  g_assert_cmpuint (n, ==, 0);

  /* The same result whichever thread searched what. */
  first = search_profile (profile, "e", PLANAR_SEARCH_DEFAULT);
  again = search_profile (profile, "e", PLANAR_SEARCH_DEFAULT);
  g_assert_cmpuint (planar_search_get_n_hits (first), >, 0);
  g_assert_cmpuint (planar_search_get_n_hits (first), ==, planar_search_get_n_hits (again));
  for (guint64 i = 0; i < planar_search_get_n_hits (first); i++)
    assert_same_hit (planar_search_get_hit (first, i), planar_search_get_hit (again, i));

  g_clear_object (&profile);
  planar_test_remove_tree (dir);
}

/* ------------------------------------------------------------------------ */
/* The hits laid out for the timeline */

/* The hits of @search on one track at @depth that meet [t0, t1], counted
 * the slow way. */
static guint64
count_hits_in_window (PlanarSearch *search,
                      guint         trace,
                      guint         plane,
                      guint         track,
                      guint         depth,
                      gint64        t0,
                      gint64        t1)
{
  guint64 n = 0;

  for (guint64 i = 0; i < planar_search_get_n_hits (search); i++)
    {
      const PlanarSearchHit *hit = planar_search_get_hit (search, i);
      const PlanarEvent *event;

      if (hit->ref.trace != trace || hit->ref.plane != plane || hit->ref.track != track)
        continue;
      event = planar_search_resolve_hit (search, hit, NULL, NULL, NULL);
      if (event->depth == depth && event->start_ps <= t1 && event->start_ps + event->duration_ps >= t0)
        n++;
    }
  return n;
}

static void
store_result (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Every hit in a window is reported once, folded so that a frame draws
 * O(columns) spans however many hits there are. */
static void
test_hit_index (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(PlanarProfile) profile = load_generated_session (&dir);
  g_autoptr(PlanarSearch) search = search_profile (profile, "a|e", PLANAR_SEARCH_REGEX);
  g_autoptr(PlanarSearchHitIndex) index = planar_search_hit_index_new (search);
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (PlanarSearchHitSpan));
  guint64 total = 0, n = planar_search_get_n_hits (search);
  gint64 first = G_MAXINT64, last = G_MININT64;
  guint checked = 0;

  g_assert_cmpuint (n, >, 100000);
  g_assert_true (planar_search_hit_index_get_search (index) == search);
  for (guint64 i = 0; i < n; i++)
    {
      const PlanarEvent *event = planar_search_resolve_hit (search, planar_search_get_hit (search, i), NULL, NULL, NULL);

      first = MIN (first, event->start_ps);
      last = MAX (last, event->start_ps + event->duration_ps);
    }

  for (guint t = 0; t < planar_profile_get_n_traces (profile); t++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, t);

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        for (guint k = 0; k < planar_trace_get_plane (trace, p)->n_tracks; k++)
          {
            guint n_depths = planar_search_hit_index_get_n_depths (index, t, p, k);
            guint64 on_track = 0;

            if (planar_search_get_track_count (search, t, p, k) == 0)
              {
                g_assert_cmpuint (n_depths, ==, 0);
                continue;
              }
            g_assert_cmpuint (n_depths, >, 0);
            for (guint d = 0; d < n_depths + 1; d++)
              {
                /* The whole profile, one picosecond a column: nothing
                 * folded, every hit once, in time order. */
                g_array_set_size (spans, 0);
                planar_search_hit_index_query (index, t, p, k, d, first, last, 1, spans);
                for (guint i = 0; i < spans->len; i++)
                  {
                    const PlanarSearchHitSpan *span = &g_array_index (spans, PlanarSearchHitSpan, i);

                    on_track += span->n_hits;
                    if (i > 0)
                      g_assert_cmpint (span->start_ps, >=, g_array_index (spans, PlanarSearchHitSpan, i - 1).start_ps);
                  }

                /* A window of a thousand columns over a part of the
                 * profile: the same hits, in at most two spans a column. */
                if (d < n_depths && checked < 40)
                  {
                    gint64 t0 = first + (last - first) / 3, t1 = first + (last - first) / 3 * 2;
                    guint64 folded = 0;

                    g_array_set_size (spans, 0);
                    planar_search_hit_index_query (index, t, p, k, d, t0, t1, (double) (t1 - t0) / 1000, spans);
                    g_assert_cmpuint (spans->len, <=, 2 * 1001);
                    for (guint i = 0; i < spans->len; i++)
                      folded += g_array_index (spans, PlanarSearchHitSpan, i).n_hits;
                    g_assert_cmpuint (folded, ==, count_hits_in_window (search, t, p, k, d, t0, t1));
                    checked++;
                  }
              }
            g_assert_cmpuint (on_track, ==, planar_search_get_track_count (search, t, p, k));
            total += on_track;
          }
    }
  g_assert_cmpuint (total, ==, n);
  g_assert_cmpuint (checked, >, 3);

  /* Built in a worker, the same; cancelled, nothing. */
  {
    g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(PlanarSearchHitIndex) built = NULL;
    g_autoptr(GError) error = NULL;

    planar_search_hit_index_new_async (search, NULL, store_result, &result);
    while (result == NULL)
      g_main_context_iteration (context, TRUE);
    built = planar_search_hit_index_new_finish (result, &error);
    g_assert_no_error (error);
    g_assert_true (planar_search_hit_index_get_search (built) == search);
    g_array_set_size (spans, 0);
    planar_search_hit_index_query (built, 0, 0, 0, 0, first, last, 1, spans);
    g_assert_cmpuint (spans->len, ==, planar_search_hit_index_query (index, 0, 0, 0, 0, first, last, 1, spans));
    g_clear_object (&result);

    g_cancellable_cancel (cancellable);
    planar_search_hit_index_new_async (search, cancellable, store_result, &result);
    while (result == NULL)
      g_main_context_iteration (context, TRUE);
    g_assert_null (planar_search_hit_index_new_finish (result, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  }

  /* Nothing on a track without hits, or out of range. */
  g_array_set_size (spans, 0);
  g_assert_cmpuint (planar_search_hit_index_query (index, 99, 0, 0, 0, first, last, 1, spans), ==, 0);
  g_assert_cmpuint (planar_search_hit_index_get_n_depths (index, 99, 0, 0), ==, 0);

  g_clear_pointer (&index, planar_search_hit_index_unref);
  g_clear_object (&search);
  g_clear_object (&profile);
  planar_test_remove_tree (dir);
}

/* A million hits on one track at one depth, a column of them per pixel:
 * a query of the whole reports at most two spans a column. */
static void
test_hit_index_million (PlanarTestFixture *f,
                        gconstpointer      data)
{
  g_autoptr(GError) error = NULL;
  const char *dir = f->dir;
  g_autofree char *path = NULL;
  const char *gen = g_getenv ("PLANAR_GEN");
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(PlanarSearch) search = NULL;
  g_autoptr(PlanarSearchHitIndex) index = NULL;
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (PlanarSearchHitSpan));
  const PlanarSearchHit *busiest = NULL;
  guint64 most = 0, folded = 0;
  gint64 first, last;
  int status;

  path = g_build_filename (dir, "big.xplane.pb", NULL);
  {
    const char *argv[] = { gen, "--events", "2000000", "-o", path, NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  profile = load_profile (path);
  /* Every event has a name with a letter in it. */
  search = search_profile (profile, ".", PLANAR_SEARCH_REGEX);
  g_assert_cmpuint (planar_search_get_n_hits (search), >=, 1000000);
  index = planar_search_hit_index_new (search);

  for (guint64 i = 0; i < planar_search_get_n_hits (search); i += 997)
    {
      const PlanarSearchHit *hit = planar_search_get_hit (search, i);
      guint64 count = planar_search_get_track_count (search, hit->ref.trace, hit->ref.plane, hit->ref.track);

      if (count > most)
        {
          most = count;
          busiest = hit;
        }
    }
  g_assert_nonnull (busiest);
  g_assert_true (planar_profile_get_span (profile, &first, &last));
  for (guint d = 0; d < planar_search_hit_index_get_n_depths (index, busiest->ref.trace, busiest->ref.plane, busiest->ref.track); d++)
    {
      g_array_set_size (spans, 0);
      planar_search_hit_index_query (index, busiest->ref.trace, busiest->ref.plane, busiest->ref.track, d, first, last,
                                     (double) (last - first) / 1500, spans);
      g_assert_cmpuint (spans->len, <=, 2 * 1501);
      for (guint i = 0; i < spans->len; i++)
        folded += g_array_index (spans, PlanarSearchHitSpan, i).n_hits;
    }
  g_assert_cmpuint (folded, ==, most);

  g_clear_pointer (&index, planar_search_hit_index_unref);
  g_clear_object (&search);
  g_clear_object (&profile);
}

/* ------------------------------------------------------------------------ */
/* A hand-made profile where each way to match is tried alone */

enum
{
  SM_HLO_OP = 1,
  SM_TF_OP = 2,
  SM_KERNEL_DETAILS = 3,
  SM_NEEDLE_TARGET = 4,
  SM_OTHER_TARGET = 5,
  SM_CORRELATION_ID = 6,
  SM_BLOB = 7,
};

enum
{
  EM_PLAIN = 1,
  EM_DEFAULT_NEEDLE = 2,
  EM_DISPLAY_NEEDLE = 3,
  EM_NAME_NEEDLE = 4,
};

/* Offsets (ps) of the events that must match "needle", and of those that
 * must not; each event has its own offset so that hits name it. */
enum
{
  AT_FIRST = 0,              /* plain, numbers only: no */
  AT_OWN_STRING = 1000,      /* own hlo_op str_value "fusion.NEEDLE.3": yes */
  AT_OWN_REF = 2000,         /* own tf_op ref to "ref_needle_target": yes */
  AT_DEFAULT = 3000,         /* metadata default hlo_op "has_needle_inside": yes */
  AT_DEFAULT_HIDDEN = 4000,  /* same metadata, own hlo_op "other" hides it: no */
  AT_DISPLAY = 5000,         /* display name "Needle display": yes */
  AT_BYTES = 6000,           /* bytes_value "needle": no */
  AT_REPLACED = 7000,        /* hlo_op "needle" then hlo_op "other": no */
  AT_REF_OTHER = 8000,       /* ref to "other_target": no */
  AT_NOT_UTF8 = 9000,        /* str_value "\xff\xfeneedle": yes */
  AT_NAME = 10000,           /* event name "the_needle_op" on line 2: yes */
  AT_HOST_REF = 11000,       /* host plane, ref id 4 names "unrelated" there: no */
};

static XEvent *
add_event (XLine  *line,
           gint64  metadata_id,
           gint64  offset_ps)
{
  return planar_test_line_add_event (line, metadata_id, offset_ps, 500);
}

static void
add_stat (XEvent *event,
          XStat  *stat)
{
  PLANAR_TEST_APPEND (event->stats, event->n_stats, stat);
}

static char *
write_hand_made (const char *dir)
{
  XSpace *space = planar_test_space_new ();
  XPlane *gpu = planar_test_space_add_plane (space, 0, "/device:GPU:0");
  XPlane *host = planar_test_space_add_plane (space, 0, "/host:CPU");
  XEventMetadata *md;
  XLine *line, *line2, *host_line;
  XEvent *ev;
  XStat *blob;

  planar_test_plane_add_stat_metadata (gpu, SM_HLO_OP, "hlo_op");
  planar_test_plane_add_stat_metadata (gpu, SM_TF_OP, "tf_op");
  planar_test_plane_add_stat_metadata (gpu, SM_KERNEL_DETAILS, "kernel_details");
  planar_test_plane_add_stat_metadata (gpu, SM_NEEDLE_TARGET, "ref_needle_target");
  planar_test_plane_add_stat_metadata (gpu, SM_OTHER_TARGET, "other_target");
  planar_test_plane_add_stat_metadata (gpu, SM_CORRELATION_ID, "correlation_id");
  planar_test_plane_add_stat_metadata (gpu, SM_BLOB, "blob");

  planar_test_plane_add_event_metadata (gpu, EM_PLAIN, "plain_kernel", NULL);
  md = planar_test_plane_add_event_metadata (gpu, EM_DEFAULT_NEEDLE, "kernel_two", NULL);
  PLANAR_TEST_APPEND (md->stats, md->n_stats, planar_test_stat_str (SM_HLO_OP, "has_needle_inside"));
  planar_test_plane_add_event_metadata (gpu, EM_DISPLAY_NEEDLE, "ugly_mangled_name", "Needle display");
  planar_test_plane_add_event_metadata (gpu, EM_NAME_NEEDLE, "the_needle_op", NULL);

  line = planar_test_plane_add_line (gpu, 1, "Stream #1", 0);
  line2 = planar_test_plane_add_line (gpu, 2, "Stream #2", 0);

  ev = add_event (line, EM_PLAIN, AT_FIRST);
  add_stat (ev, planar_test_stat_uint (SM_CORRELATION_ID, 7));
  add_stat (ev, planar_test_stat_str (SM_KERNEL_DETAILS, "grid:1,1,1"));

  ev = add_event (line, EM_PLAIN, AT_OWN_STRING);
  add_stat (ev, planar_test_stat_str (SM_HLO_OP, "fusion.NEEDLE.3"));

  ev = add_event (line, EM_PLAIN, AT_OWN_REF);
  add_stat (ev, planar_test_stat_ref (SM_TF_OP, SM_NEEDLE_TARGET));

  add_event (line, EM_DEFAULT_NEEDLE, AT_DEFAULT);

  ev = add_event (line, EM_DEFAULT_NEEDLE, AT_DEFAULT_HIDDEN);
  add_stat (ev, planar_test_stat_str (SM_HLO_OP, "other"));

  add_event (line, EM_DISPLAY_NEEDLE, AT_DISPLAY);

  ev = add_event (line, EM_PLAIN, AT_BYTES);
  blob = planar_test_stat_uint (SM_BLOB, 0);
  blob->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE;
  blob->bytes_value.data = (guint8 *) planar_test_keep_str ("needle");
  blob->bytes_value.len = strlen ("needle");
  add_stat (ev, blob);

  ev = add_event (line, EM_PLAIN, AT_REPLACED);
  add_stat (ev, planar_test_stat_str (SM_HLO_OP, "needle"));
  add_stat (ev, planar_test_stat_str (SM_HLO_OP, "other"));

  ev = add_event (line, EM_PLAIN, AT_REF_OTHER);
  add_stat (ev, planar_test_stat_ref (SM_TF_OP, SM_OTHER_TARGET));

  ev = add_event (line, EM_PLAIN, AT_NOT_UTF8);
  add_stat (ev, planar_test_stat_str (SM_HLO_OP, "\xff\xfeneedle"));

  /* An aggregated event is not on the timeline, whatever its name. */
  ev = add_event (line, EM_NAME_NEEDLE, 0);
  ev->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
  ev->num_occurrences = 3;

  add_event (line2, EM_NAME_NEEDLE, AT_NAME);
  /* Starts with the display-name match on line 1: ties go by track. */
  add_event (line2, EM_NAME_NEEDLE, AT_DISPLAY);

  /* The same ids mean other things on another plane. */
  planar_test_plane_add_stat_metadata (host, SM_TF_OP, "tf_op");
  planar_test_plane_add_stat_metadata (host, SM_NEEDLE_TARGET, "unrelated");
  planar_test_plane_add_event_metadata (host, EM_PLAIN, "python", NULL);
  host_line = planar_test_plane_add_line (host, 100, "python3", 0);
  ev = add_event (host_line, EM_PLAIN, AT_HOST_REF);
  add_stat (ev, planar_test_stat_ref (SM_TF_OP, SM_NEEDLE_TARGET));

  return planar_test_write_space (space, dir, "hand.xplane.pb");
}

static PlanarSearch *
search_traces (PlanarTrace       *trace,
               const char        *pattern,
               PlanarSearchFlags  flags)
{
  g_autoptr(PlanarSearch) search = NULL;
  g_autoptr(GError) error = NULL;

  search = planar_search_new_for_traces (&trace, 1, pattern, flags, &error);
  g_assert_no_error (error);
  planar_search_run (search, NULL, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&search);
}

/* The offsets of the hits, as "track:offset" words in hit order. */
static char *
describe_hits (PlanarSearch *search)
{
  GString *s = g_string_new (NULL);

  for (guint64 i = 0; i < planar_search_get_n_hits (search); i++)
    {
      const PlanarSearchHit *hit = planar_search_get_hit (search, i);
      const PlanarTrack *track;

      planar_search_resolve_hit (search, hit, NULL, NULL, &track);
      g_string_append_printf (s, "%s%s:%" G_GINT64_FORMAT, s->len ? " " : "", track->name, hit->start_ps);
    }
  return g_string_free (s, FALSE);
}

static void
test_hand_made (PlanarTestFixture *f,
                gconstpointer      data)
{
  g_autoptr(GError) error = NULL;
  const char *dir = f->dir;
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(PlanarSearch) search = NULL;
  g_autofree char *hits = NULL;
  const PlanarPlane *gpu;

  path = write_hand_made (dir);
  trace = planar_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  /* Times are from the earliest event, which is at offset 0. */
  g_assert_true (planar_trace_is_aligned_at_earliest_event (trace));

  search = search_traces (trace, "needle", PLANAR_SEARCH_DEFAULT);
  hits = describe_hits (search);
  g_assert_cmpstr (hits, ==,
                   "Stream #1:1000 Stream #1:2000 Stream #1:3000 Stream #1:5000 "
                   "Stream #2:5000 Stream #1:9000 Stream #2:10000");
  g_assert_cmpuint (planar_search_get_n_hits (search), ==, 7);
  gpu = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_nonnull (gpu);
  {
    guint p = (guint) (gpu - planar_trace_get_plane (trace, 0));
    guint k1 = (guint) (planar_plane_find_track (gpu, "Stream #1") - gpu->tracks);
    guint k2 = (guint) (planar_plane_find_track (gpu, "Stream #2") - gpu->tracks);

    g_assert_cmpuint (planar_search_get_track_count (search, 0, p, k1), ==, 5);
    g_assert_cmpuint (planar_search_get_track_count (search, 0, p, k2), ==, 2);
    g_assert_cmpuint (planar_search_get_track_count (search, 1, p, k1), ==, 0);
    g_assert_cmpuint (planar_search_get_track_count (search, 0, 99, k1), ==, 0);
  }
  g_clear_object (&search);
  g_clear_pointer (&hits, g_free);

  /* Case: only the display name and the name spell it "Needle"/"needle". */
  search = search_traces (trace, "Needle", PLANAR_SEARCH_CASE_SENSITIVE);
  hits = describe_hits (search);
  g_assert_cmpstr (hits, ==, "Stream #1:5000");
  g_clear_object (&search);
  g_clear_pointer (&hits, g_free);

  /* A regex, run on bytes that are not UTF-8 too. */
  search = search_traces (trace, "ne+dle$", PLANAR_SEARCH_REGEX);
  hits = describe_hits (search);
  g_assert_cmpstr (hits, ==, "Stream #1:9000");
  g_clear_object (&search);
  g_clear_pointer (&hits, g_free);

  /* Byte mode for bytes that are not UTF-8: each dot is one byte there. */
  search = search_traces (trace, "^..needle$", PLANAR_SEARCH_REGEX);
  hits = describe_hits (search);
  g_assert_cmpstr (hits, ==, "Stream #1:9000");
  g_clear_object (&search);
  g_clear_pointer (&hits, g_free);

  /* A ref value is found by the referenced name only. */
  search = search_traces (trace, "^ref_needle_target$", PLANAR_SEARCH_REGEX);
  hits = describe_hits (search);
  g_assert_cmpstr (hits, ==, "Stream #1:2000");
  g_clear_object (&search);
  g_clear_pointer (&hits, g_free);

  /* A numeric stat is not text, not even its stat name. */
  search = search_traces (trace, "correlation", PLANAR_SEARCH_DEFAULT);
  g_assert_cmpuint (planar_search_get_n_hits (search), ==, 0);
  g_clear_object (&search);

  /* A default that an event's own stat of the same name hides. */
  search = search_traces (trace, "other", PLANAR_SEARCH_DEFAULT);
  hits = describe_hits (search);
  g_assert_cmpstr (hits, ==, "Stream #1:4000 Stream #1:7000 Stream #1:8000");
  g_clear_object (&search);
  g_clear_pointer (&hits, g_free);

  /* "unrelated" is a ref value on the host plane only. */
  search = search_traces (trace, "UNRELATED", PLANAR_SEARCH_DEFAULT);
  hits = describe_hits (search);
  g_assert_cmpstr (hits, ==, "python3:11000");
  g_clear_object (&search);
  g_clear_pointer (&hits, g_free);

  g_clear_object (&trace);
}

static void
test_bad_patterns (void)
{
  g_autofree char *path = planar_test_sample_or_generated (ANY_SAMPLE);
  g_autoptr(PlanarProfile) profile = load_profile (path);
  g_autoptr(PlanarSearch) search = NULL;
  g_autoptr(GError) error = NULL;

  search = planar_search_new (profile, "(unclosed", PLANAR_SEARCH_REGEX, &error);
  g_assert_error (error, G_REGEX_ERROR, G_REGEX_ERROR_UNMATCHED_PARENTHESIS);
  g_assert_null (search);
  g_clear_error (&error);

  g_assert_false (planar_search_check_pattern ("a[", PLANAR_SEARCH_REGEX, &error));
  g_assert_true (error != NULL && error->domain == G_REGEX_ERROR);
  g_clear_error (&error);

  /* Not a regex: the same text is a plain substring. */
  g_assert_true (planar_search_check_pattern ("(unclosed", PLANAR_SEARCH_DEFAULT, &error));
  g_assert_no_error (error);

  search = planar_search_new (profile, "", PLANAR_SEARCH_DEFAULT, &error);
  g_assert_error (error, PLANAR_SEARCH_ERROR, PLANAR_SEARCH_ERROR_EMPTY_PATTERN);
  g_assert_null (search);
  g_clear_error (&error);

  g_assert_false (planar_search_check_pattern ("", PLANAR_SEARCH_REGEX, &error));
  g_assert_error (error, PLANAR_SEARCH_ERROR, PLANAR_SEARCH_ERROR_EMPTY_PATTERN);
}

/* ------------------------------------------------------------------------ */
/* Cancellation and the async pair */

static void
test_cancelled (void)
{
  g_autofree char *path = planar_test_sample_or_generated (ANY_SAMPLE);
  g_autoptr(PlanarProfile) profile = load_profile (path);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(PlanarSearch) search = NULL;
  g_autoptr(GError) error = NULL;

  search = planar_search_new (profile, "e", PLANAR_SEARCH_DEFAULT, &error);
  g_assert_no_error (error);
  g_cancellable_cancel (cancellable);
  g_assert_false (planar_search_run (search, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (planar_search_is_completed (search));
  g_assert_cmpuint (planar_search_get_n_hits (search), ==, 0);
  g_assert_cmpuint (planar_search_get_track_count (search, 0, 0, 0), ==, 0);
}

typedef struct
{
  GMainLoop *loop;
  gboolean   ok;
  GError    *error;
  guint      completed_notifies;
} AsyncState;

static void
on_search_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  AsyncState *state = user_data;

  state->ok = planar_search_run_finish (PLANAR_SEARCH (source), result, &state->error);
  g_main_loop_quit (state->loop);
}

static void
on_completed (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  AsyncState *state = user_data;

  state->completed_notifies++;
}

static void
test_async (void)
{
  g_autofree char *path = planar_test_sample_or_generated (ANY_SAMPLE);
  g_autoptr(PlanarProfile) profile = load_profile (path);
  g_autoptr(PlanarSearch) reference = search_profile (profile, "e", PLANAR_SEARCH_DEFAULT);
  g_autoptr(PlanarSearch) search = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  AsyncState state = { 0 };

  g_assert_cmpuint (planar_search_get_n_hits (reference), >, 0);

  state.loop = g_main_loop_new (NULL, FALSE);
  search = planar_search_new (profile, "e", PLANAR_SEARCH_DEFAULT, &error);
  g_assert_no_error (error);
  g_signal_connect (search, "notify::completed", G_CALLBACK (on_completed), &state);
  g_assert_cmpfloat (planar_search_get_fraction (search), ==, 0.0);
  planar_search_run_async (search, NULL, on_search_done, &state);
  g_main_loop_run (state.loop);
  g_assert_no_error (state.error);
  g_assert_true (state.ok);
  g_assert_cmpuint (state.completed_notifies, ==, 1);
  g_assert_cmpfloat (planar_search_get_fraction (search), ==, 1.0);
  g_assert_cmpuint (planar_search_get_n_hits (search), ==, planar_search_get_n_hits (reference));
  for (guint64 i = 0; i < planar_search_get_n_hits (search); i++)
    assert_same_hit (planar_search_get_hit (search, i), planar_search_get_hit (reference, i));
  g_clear_object (&search);

  /* Cancelled: the callback still comes, with the error. */
  search = planar_search_new (profile, "e", PLANAR_SEARCH_DEFAULT, &error);
  g_assert_no_error (error);
  g_cancellable_cancel (cancellable);
  planar_search_run_async (search, cancellable, on_search_done, &state);
  g_main_loop_run (state.loop);
  g_assert_false (state.ok);
  g_assert_error (state.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&state.error);
  g_assert_false (planar_search_is_completed (search));

  g_main_loop_unref (state.loop);
}

typedef struct
{
  PlanarSearch *search;
  double        last;
  guint         polls;
} ProgressPoll;

static gboolean
poll_fraction (gpointer user_data)
{
  ProgressPoll *poll = user_data;
  double f = planar_search_get_fraction (poll->search);

  g_assert_cmpfloat (f, >=, poll->last);
  g_assert_cmpfloat (f, <=, 1.0);
  poll->last = f;
  poll->polls++;
  return G_SOURCE_CONTINUE;
}

/* On a profile large enough to take a while: progress only grows while
 * the main loop runs, and a cancellation while the workers run wins. */
static void
test_async_generated (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(PlanarProfile) profile = load_generated_session (&dir);
  g_autoptr(PlanarSearch) search = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  AsyncState state = { 0 };
  ProgressPoll poll = { 0 };
  guint source;

  state.loop = g_main_loop_new (NULL, FALSE);
  search = planar_search_new (profile, "a|e", PLANAR_SEARCH_REGEX, &error);
  g_assert_no_error (error);
  poll.search = search;
  source = g_timeout_add (1, poll_fraction, &poll);
  planar_search_run_async (search, NULL, on_search_done, &state);
  g_main_loop_run (state.loop);
  g_source_remove (source);
  g_assert_no_error (state.error);
  g_assert_true (state.ok);
  g_assert_cmpfloat (planar_search_get_fraction (search), ==, 1.0);
  g_assert_cmpuint (planar_search_get_n_hits (search), >, 0);
  g_clear_object (&search);

  search = planar_search_new (profile, "a|e", PLANAR_SEARCH_REGEX, &error);
  g_assert_no_error (error);
  planar_search_run_async (search, cancellable, on_search_done, &state);
  g_cancellable_cancel (cancellable);
  g_main_loop_run (state.loop);
  g_assert_false (state.ok);
  g_assert_error (state.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&state.error);
  g_assert_false (planar_search_is_completed (search));
  g_assert_cmpuint (planar_search_get_n_hits (search), ==, 0);
  g_clear_object (&search);

  g_main_loop_unref (state.loop);
  g_clear_object (&profile);
  planar_test_remove_tree (dir);
}

/* ------------------------------------------------------------------------ */
/* planar-cli find */

typedef struct
{
  int   status;
  char *out;
  char *err;
} CliResult;

static void
cli_result_clear (CliResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliResult, cli_result_clear)

static void
run_cli (const char * const *args,
         CliResult          *result)
{
  const char *cli = g_getenv ("PLANAR_CLI");
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (char *) cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &result->out, &result->err, &wait_status, &error);
  g_assert_no_error (error);
  if (!WIFEXITED (wait_status))
    g_error ("planar-cli %s died (wait status %d); stderr: %s", args[0], wait_status, result->err);
  result->status = WEXITSTATUS (wait_status);
}

static guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p++)
    n += *p == '\n';
  return n;
}

static JsonObject *
parse_object (const char *text,
              JsonParser *parser)
{
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_node_get_object (root);
}

/* The keys docs/cli.md marks optional on an event of find: what the event
 * stands for through the profile's stats and its HLO. */
static const char * const op_info_keys[] = {
  "hlo_module", "hlo_instruction", "framework_op", "source", "stack", "flops", "flops_estimated", "bytes_accessed",
  "bytes_estimated", NULL,
};

static void
assert_keys (JsonObject          *object,
             const char * const  *expected)
{
  g_autoptr(GList) members = json_object_get_members (object);
  guint n_optional = 0;

  for (guint i = 0; op_info_keys[i] != NULL; i++)
    n_optional += json_object_has_member (object, op_info_keys[i]) && !g_strv_contains (expected, op_info_keys[i]);
  g_assert_cmpuint (g_list_length (members), ==, g_strv_length ((char **) expected) + n_optional);
  for (guint i = 0; expected[i] != NULL; i++)
    if (!json_object_has_member (object, expected[i]))
      g_error ("no key '%s'", expected[i]);
}

static void
test_cli (void)
{
  g_autofree char *path = planar_test_sample_path (TF_SAMPLE);
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(PlanarSearch) search = NULL;
  /* docs/cli.md: count is every match, printed what --limit let through. */
  static const char * const top_keys[] = { "format_version", "session", "count", "printed", "events", NULL };
  static const char * const event_keys[] = {
    "host", "plane", "line", "name", "display_name", "start_ps", "duration_ps", "depth", NULL,
  };
  const char *pattern = "random_uniform";
  guint64 total;

  if (path == NULL)
    return;
  profile = load_profile (path);
  search = search_profile (profile, pattern, PLANAR_SEARCH_DEFAULT);
  total = planar_search_get_n_hits (search);
  /* More than the default limit, so that the limits below cut. */
  g_assert_cmpuint (total, >, 100);

  {
    g_auto(CliResult) r = { 0 };
    g_autoptr(JsonParser) parser = json_parser_new ();
    const char *args[] = { "find", path, pattern, "--json", "--limit", "0", NULL };
    JsonObject *root;
    JsonArray *events;

    run_cli (args, &r);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpstr (r.err, ==, "");
    root = parse_object (r.out, parser);
    assert_keys (root, top_keys);
    g_assert_cmpint (json_object_get_int_member (root, "count"), ==, (gint64) total);
    events = json_object_get_array_member (root, "events");
    g_assert_cmpuint (json_array_get_length (events), ==, total);
    for (guint i = 0; i < json_array_get_length (events); i++)
      {
        JsonObject *ev = json_array_get_object_element (events, i);
        const PlanarSearchHit *hit = planar_search_get_hit (search, i);
        PlanarTrace *trace;
        const PlanarPlane *plane;
        const PlanarTrack *track;
        const PlanarEvent *model = planar_search_resolve_hit (search, hit, &trace, &plane, &track);

        assert_keys (ev, event_keys);
        g_assert_cmpint (json_object_get_int_member (ev, "start_ps"), ==, model->start_ps);
        g_assert_cmpint (json_object_get_int_member (ev, "duration_ps"), ==, model->duration_ps);
        g_assert_cmpint (json_object_get_int_member (ev, "depth"), ==, model->depth);
        g_assert_cmpstr (json_object_get_string_member (ev, "host"), ==, planar_trace_get_host_name (trace));
        g_assert_cmpstr (json_object_get_string_member (ev, "plane"), ==, plane->name);
        g_assert_cmpstr (json_object_get_string_member (ev, "line"), ==, track->name);
        g_assert_cmpstr (json_object_get_string_member (ev, "name"), ==,
                         planar_plane_get_event_name (plane, model, FALSE));
        g_assert_cmpstr (json_object_get_string_member (ev, "display_name"), ==,
                         planar_plane_get_event_name (plane, model, TRUE));
      }
  }

  {
    g_auto(CliResult) r = { 0 };
    g_autoptr(JsonParser) parser = json_parser_new ();
    const char *args[] = { "find", path, pattern, "--json", "--limit", "3", NULL };
    JsonObject *root;

    run_cli (args, &r);
    g_assert_cmpint (r.status, ==, 0);
    root = parse_object (r.out, parser);
    assert_keys (root, top_keys);
    g_assert_cmpint (json_object_get_int_member (root, "count"), ==, (gint64) total);
    g_assert_cmpint (json_object_get_int_member (root, "printed"), ==, 3);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "events")), ==, 3);
  }

  /* Text: the default limit of 100, then the total. */
  {
    g_auto(CliResult) r = { 0 };
    const char *args[] = { "find", path, "RANDOM_UNIFORM", NULL };
    g_autofree char *total_line = g_strdup_printf ("# %" G_GUINT64_FORMAT " matches", total);
    g_auto(GStrv) lines = NULL;
    g_auto(GStrv) fields = NULL;

    run_cli (args, &r);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpuint (count_lines (r.out), ==, 101);
    lines = g_strsplit (r.out, "\n", -1);
    fields = g_strsplit (lines[0], "\t", -1);
    g_assert_cmpuint (g_strv_length (fields), ==, 6);
    g_assert_true (g_str_has_prefix (lines[100], total_line));
  }

  /* Case-sensitive: the capitals match nothing, a negative answer (status
   * 1, docs/cli.md) that still prints its count. */
  {
    g_auto(CliResult) r = { 0 };
    g_autoptr(JsonParser) parser = json_parser_new ();
    const char *args[] = { "find", path, "RANDOM_UNIFORM", "--case-sensitive", "--json", NULL };

    run_cli (args, &r);
    g_assert_cmpint (r.status, ==, 1);
    g_assert_cmpint (json_object_get_int_member (parse_object (r.out, parser), "count"), ==, 0);
  }

  /* A bad regex: refused before loading, one line on stderr. */
  {
    g_auto(CliResult) r = { 0 };
    const char *args[] = { "find", path, "random_(", "--regex", NULL };

    run_cli (args, &r);
    g_assert_cmpint (r.status, ==, EXIT_BAD_INPUT);
    g_assert_cmpstr (r.out, ==, "");
    g_assert_cmpuint (count_lines (r.err), ==, 1);
    g_assert_true (g_str_has_prefix (r.err, "planar-cli: "));
  }

  /* An empty pattern and a negative limit are refused too. */
  {
    g_auto(CliResult) r = { 0 };
    const char *args[] = { "find", path, "", NULL };

    run_cli (args, &r);
    g_assert_cmpint (r.status, ==, EXIT_BAD_INPUT);
    g_assert_cmpstr (r.out, ==, "");
    g_assert_cmpuint (count_lines (r.err), ==, 1);
  }
  {
    g_auto(CliResult) r = { 0 };
    const char *args[] = { "find", path, pattern, "--limit", "-1", NULL };

    run_cli (args, &r);
    g_assert_cmpint (r.status, ==, EXIT_BAD_INPUT);
    g_assert_cmpstr (r.out, ==, "");
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/search/samples-match-brute-force", test_samples_match_brute_force);
  g_test_add_func ("/search/generated-session", test_generated_session);
  PLANAR_TEST_ADD ("/search/hand-made", test_hand_made);
  g_test_add_func ("/search/hit-index", test_hit_index);
  PLANAR_TEST_ADD ("/search/hit-index-million", test_hit_index_million);
  g_test_add_func ("/search/bad-patterns", test_bad_patterns);
  g_test_add_func ("/search/cancelled", test_cancelled);
  g_test_add_func ("/search/async", test_async);
  g_test_add_func ("/search/async-generated", test_async_generated);
  g_test_add_func ("/search/cli", test_cli);

  return g_test_run ();
}
