/* test-loader.c: PlanarTraceLoader's steps and notifications, and a
 * session whose host opens but cannot be decoded.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache.h"
#include "planar-model.h"
#include "planar-parallel.h"
#include "planar-test-xspace.h"
#include "planar-trace-loader-private.h"

#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include "planar-test-threads.h"
#endif

typedef PlanarTestFixture Fixture;

/* A host of two lines, starting at @start_ns. */
static char *
write_host (Fixture    *f,
            const char *name,
            guint64     start_ns)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane;
  XLine *line;

  planar_test_add_task_environment (space, start_ns);
  plane = planar_test_space_add_plane (space, 0, "/host:CPU");
  planar_test_plane_add_event_metadata (plane, 1, "step", NULL);
  planar_test_plane_add_event_metadata (plane, 2, "matmul", NULL);
  line = planar_test_plane_add_line (plane, 1, "worker", 0);
  planar_test_line_add_event (line, 1, 0, 1000000);
  planar_test_line_add_event (line, 2, 1000, 5000);
  line = planar_test_plane_add_line (plane, 2, "other", 0);
  planar_test_line_add_event (line, 2, 2000, 3000);
  return planar_test_write_space (space, f->dir, name);
}

/* A host whose structure opens but whose events do not decode: a line
 * 9.3e15 ns past the start does not fit in int64 picoseconds. */
static char *
write_undecodable_host (Fixture    *f,
                        const char *name,
                        guint64     start_ns)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane;

  planar_test_add_task_environment (space, start_ns);
  plane = planar_test_space_add_plane (space, 0, "/host:CPU");
  planar_test_plane_add_event_metadata (plane, 1, "matmul", NULL);
  planar_test_line_add_event (planar_test_plane_add_line (plane, 1, "t", G_GINT64_CONSTANT (9300000000000000)), 1,
                              0, 1);
  return planar_test_write_space (space, f->dir, name);
}

typedef struct
{
  GThread   *main_thread;
  guint      n_fraction;
  guint      n_message;
  guint      n_tracks;
  gboolean   off_thread;
  GPtrArray *messages;
} Watch;

static void
on_notify (GObject    *object,
           GParamSpec *pspec,
           gpointer    user_data)
{
  Watch *w = user_data;

  w->off_thread |= g_thread_self () != w->main_thread;
  if (strcmp (pspec->name, "fraction") == 0)
    w->n_fraction++;
  else
    {
      g_autofree char *message = NULL;

      w->n_message++;
      g_object_get (object, "message", &message, NULL);
      if (message != NULL)
        g_ptr_array_add (w->messages, g_steal_pointer (&message));
    }
}

static void
on_tracks_changed (PlanarTraceLoader *loader,
                   gpointer           user_data)
{
  Watch *w = user_data;

  w->off_thread |= g_thread_self () != w->main_thread;
  w->n_tracks++;
}

static void
watch_loader (Watch             *w,
              PlanarTraceLoader *loader)
{
  w->main_thread = g_thread_self ();
  w->messages = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (loader, "notify::fraction", G_CALLBACK (on_notify), w);
  g_signal_connect (loader, "notify::message", G_CALLBACK (on_notify), w);
  g_signal_connect (loader, "tracks-changed", G_CALLBACK (on_tracks_changed), w);
}

static gpointer
load_steps (gpointer data)
{
  PlanarTraceLoader *loader = data;
  g_autoptr(GError) error = NULL;

  g_assert_true (planar_trace_loader_open (loader, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (planar_trace_loader_decode (loader, NULL, &error));
  g_assert_no_error (error);
  return NULL;
}

/* Whatever thread runs the steps and however often they report, the main
 * loop hears of it from one idle: here every step ran on a worker before
 * the main loop turned once, and it sees one notification of each kind,
 * on its own thread, saying the load is done. */
static void
test_progress_in_one_idle (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *path = write_host (f, "host0.xplane.pb", 1000);
  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
  Watch w = { 0 };
  GThread *thread;

  watch_loader (&w, loader);
  g_assert_null (planar_trace_loader_get_trace (loader));
  g_assert_cmpfloat (planar_trace_loader_get_fraction (loader), ==, 0.0);

  thread = g_thread_new ("load", load_steps, loader);
  g_thread_join (thread);
  g_assert_cmpuint (w.n_fraction, ==, 0);
  g_assert_cmpuint (w.n_tracks, ==, 0);

  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_false (w.off_thread);
  g_assert_cmpuint (w.n_fraction, ==, 1);
  g_assert_cmpuint (w.n_message, ==, 1);
  g_assert_cmpuint (w.n_tracks, ==, 1);
  g_assert_cmpfloat (planar_trace_loader_get_fraction (loader), ==, 1.0);
  g_assert_null (planar_trace_loader_dup_message (loader));
  g_assert_true (planar_trace_is_decoded (planar_trace_loader_get_trace (loader)));
  g_assert_cmpuint (planar_trace_get_n_events (planar_trace_loader_get_trace (loader)), ==, 3);
  g_ptr_array_unref (w.messages);
}

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  PlanarTrace **trace = user_data;
  g_autoptr(GError) error = NULL;

  *trace = planar_trace_loader_load_finish (PLANAR_TRACE_LOADER (object), result, &error);
  g_assert_no_error (error);
}

/* The async load: its notifications come on the main thread, in the
 * loader's words only, and the tracks are announced. */
static void
test_load_async (Fixture       *f,
                 gconstpointer  data)
{
  static const char * const words[] = {
    "Reading structure", "Decoding lines", "Reading HLO", "Deriving lines", "Linking flows", "Restoring cached index",
    NULL,
  };
  g_autofree char *path = write_host (f, "host0.xplane.pb", 1000);
  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
  g_autoptr(PlanarTrace) trace = NULL;
  Watch w = { 0 };

  watch_loader (&w, loader);
  planar_trace_loader_load_async (loader, NULL, load_done, &trace);
  while (trace == NULL)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_true (trace == planar_trace_loader_get_trace (loader));
  g_assert_false (w.off_thread);
  g_assert_cmpuint (w.n_fraction, >=, 1);
  g_assert_cmpuint (w.n_tracks, >=, 1);
  for (guint i = 0; i < w.messages->len; i++)
    g_assert_true (g_strv_contains (words, g_ptr_array_index (w.messages, i)));
  g_assert_cmpfloat (planar_trace_loader_get_fraction (loader), ==, 1.0);
  g_ptr_array_unref (w.messages);
}

/* Chrome JSON is the loader's open step's business: planar_trace_open()
 * reads XSpaces only, the loader imports first. */
static void
test_open_json (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *json = g_build_filename (f->dir, "trace.json", NULL);
  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (json);
  g_autoptr(PlanarTrace) direct = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (json, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":2,"
                                            "\"ts\":1,\"dur\":2}]}", -1, NULL));
  direct = planar_trace_open (json, &error);
  g_assert_null (direct);
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_assert_true (planar_trace_loader_open (loader, NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (planar_trace_get_import_report (planar_trace_loader_get_trace (loader)));
  g_assert_true (planar_trace_loader_decode (loader, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (planar_trace_get_n_events (planar_trace_loader_get_trace (loader)), ==, 1);
}

/* Issue 18 §7: a host whose structure opens but whose events do not decode
 * no longer fails a session that is not lazy: it stays in place as FAILED,
 * the loss is said, and search and exports leave it out. */
static void
test_failed_host (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *good = write_host (f, "good.xplane.pb", 1000);
  g_autofree char *bad = write_undecodable_host (f, "bad.xplane.pb", 1000);
  const char *paths[] = { good, bad, NULL };
  const char *only_bad[] = { bad, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(PlanarProfile) none = planar_profile_new (only_bad);
  g_autoptr(PlanarSearch) search = NULL;
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) losses = NULL;

  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (planar_profile_get_n_traces (profile), ==, 2);
  g_assert_cmpint (planar_profile_get_trace_state (profile, 0), ==, PLANAR_PROFILE_TRACE_LOADED);
  g_assert_cmpint (planar_profile_get_trace_state (profile, 1), ==, PLANAR_PROFILE_TRACE_FAILED);
  g_assert_cmpuint (planar_profile_get_n_pending (profile), ==, 0);
  g_assert_true (planar_profile_is_loaded (profile));
  losses = planar_profile_dup_losses (profile);
  g_assert_cmpuint (g_strv_length (losses), ==, 1);
  g_assert_true (g_str_has_prefix (losses[0], "bad.xplane.pb could not be decoded and is left out: "));
  g_assert_nonnull (strstr (losses[0], "overflow"));

  /* The failed host's matmul is not found. */
  search = planar_search_new (profile, "matmul", 0, &error);
  g_assert_no_error (error);
  g_assert_true (planar_search_run (search, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (planar_search_get_n_hits (search), ==, 2);

  out = g_memory_output_stream_new_resizable ();
  g_assert_true (planar_export_to_stream (profile, PLANAR_EXPORT_CHROME_JSON, out, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  {
    g_autofree char *text = g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                                       g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));
    guint n = 0;

    for (const char *p = strstr (text, "\"matmul\""); p != NULL; p = strstr (p + 1, "\"matmul\""))
      n++;
    g_assert_cmpuint (n, ==, 2);
  }

  /* Trace Health names it, and looks at the other host only. */
  {
    g_autoptr(GPtrArray) issues = planar_health_check (profile, NULL);
    guint n = 0;

    for (guint i = 0; i < issues->len; i++)
      {
        const PlanarHealthIssue *issue = g_ptr_array_index (issues, i);

        if (strcmp (issue->kind, "undecodable-host") == 0)
          {
            g_assert_cmpstr (issue->host, ==, "bad");
            n++;
          }
        else
          g_assert_cmpstr (issue->host, !=, "bad");
      }
    g_assert_cmpuint (n, ==, 1);
  }
  g_assert_null (planar_profile_get_trace_error (profile, 0));
  g_assert_error (planar_profile_get_trace_error (profile, 1), PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW);

  /* No host decoded: the load fails with the host's reason. */
  g_assert_false (planar_profile_load (none, NULL, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW);
}

/* The same through planar-cli: the command answers, exit 0, with one
 * warning line for the host left out. */
static void
test_failed_host_cli (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *good = write_host (f, "good.xplane.pb", 1000);
  g_autofree char *bad = write_undecodable_host (f, "bad.xplane.pb", 1000);
  const char *cli = g_getenv ("PLANAR_CLI");
  const char *verbs[] = { "info", "summary" };

  if (cli == NULL)
    {
      g_test_skip ("PLANAR_CLI not set");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (verbs); i++)
    {
      const char *argv[] = { cli, verbs[i], f->dir, NULL };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autoptr(GError) error = NULL;
      int wait_status = 0;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                                   &wait_status, &error));
      g_assert_no_error (error);
      g_assert_true (WIFEXITED (wait_status));
      if (WEXITSTATUS (wait_status) != 0)
        g_error ("planar-cli %s exited %d: %s", verbs[i], WEXITSTATUS (wait_status), err);
      g_assert_nonnull (strstr (err, "bad.xplane.pb could not be decoded and is left out"));
      g_assert_nonnull (strstr (out, "good"));
    }
}

/* The derive limits are the load's own (construct-only properties, unset
 * by default), and a load with limits leaves the cached index alone: it
 * holds what an unlimited derive pass makes. */
static void
test_derive_limits (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *path = write_host (f, "limits.xplane.pb", 1000);
  g_autofree char *cache_dir = g_build_filename (f->dir, "cache", NULL);
  g_autofree char *cache_path = NULL;
  g_autoptr(PlanarTraceLoader) plain = planar_trace_loader_new (path);
  g_autoptr(PlanarTraceLoader) limited = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  gint64 budget = 0;
  guint max_tracks = 0;

  g_object_get (plain, "derive-budget", &budget, "derive-max-tracks-per-plane", &max_tracks, NULL);
  g_assert_cmpint (budget, ==, -1);
  g_assert_cmpuint (max_tracks, ==, G_MAXUINT);

  planar_cache_set_dir (cache_dir);
  planar_cache_set_enabled (TRUE);
  cache_path = planar_cache_get_path (path);

  limited = g_object_new (PLANAR_TYPE_TRACE_LOADER, "path", path, "derive-max-tracks-per-plane", 0u, NULL);
  g_object_get (limited, "derive-max-tracks-per-plane", &max_tracks, NULL);
  g_assert_cmpuint (max_tracks, ==, 0);
  g_assert_true (planar_trace_loader_open (limited, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (planar_trace_loader_decode (limited, NULL, &error));
  g_assert_no_error (error);
  planar_cache_wait ();
  g_assert_false (g_file_test (cache_path, G_FILE_TEST_EXISTS));

  /* Without limits, the same file's index is stored. */
  trace = planar_test_load_ok (path);
  planar_cache_wait ();
  g_assert_true (g_file_test (cache_path, G_FILE_TEST_EXISTS));
  planar_cache_set_enabled (FALSE);
}

/* A profile whose planes come in the file in another order than the
 * timeline's (host, GPU 1, GPU 0, TPU 0; shown GPU 0, GPU 1, TPU 0, host),
 * with a Task Environment (last, so that every other byte lies where it
 * does without it) or without one. */
static char *
write_planes (Fixture    *f,
              const char *name,
              gboolean    task_environment)
{
  static const struct { gint64 id; const char *name; } planes[] = {
    { 0, "/host:CPU" }, { 1, "/device:GPU:1" }, { 0, "/device:GPU:0" }, { 0, "/device:TPU:0" },
  };
  XSpace *space = planar_test_space_new ();

  for (guint p = 0; p < G_N_ELEMENTS (planes); p++)
    {
      XPlane *plane = planar_test_space_add_plane (space, planes[p].id, planes[p].name);

      planar_test_plane_add_event_metadata (plane, 1, "op", NULL);
      planar_test_plane_add_event_metadata (plane, 2, "kernel", NULL);
      for (gint64 l = 1; l <= 3; l++)
        {
          XLine *line = planar_test_plane_add_line (plane, l, l == 1 ? "main" : "worker", (gint64) p * 10);

          /* Nested and out of order, so that every track is sorted and
           * nested by the index. */
          for (gint64 e = 0; e < 50; e++)
            {
              planar_test_line_add_event (line, 2, (49 - e) * 10000 + 100 * l, 5000);
              planar_test_line_add_event (line, 1, (49 - e) * 10000, 9000);
            }
        }
    }
  /* The earliest event at 0 either way: a file without a start aligns on it. */
  if (task_environment)
    planar_test_add_task_environment (space, 1000000);
  return planar_test_write_space (space, f->dir, name);
}

static const char *const display_order[] = { "/device:GPU:0", "/device:GPU:1", "/device:TPU:0", "/host:CPU" };

typedef struct
{
  PlanarTraceLoader *loader;
  GCancellable      *cancel_at_first;
  guint              n_published;
} PlaneWatch;

static guint
plane_named (PlanarTrace *trace,
             const char  *name)
{
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    if (strcmp (planar_trace_get_plane (trace, p)->name, name) == 0)
      return p;
  g_assert_not_reached ();
}

/* At each plane published: the planes above it on the timeline are ready,
 * every track of them, and no track of those below is. */
static void
on_plane_published (const char *point,
                    const char *path,
                    gpointer    data)
{
  PlaneWatch *w = data;
  PlanarTrace *trace;

  if (strcmp (point, "plane-published") != 0)
    return;
  trace = planar_trace_loader_get_trace (w->loader);
  w->n_published++;
  for (guint k = 0; k < G_N_ELEMENTS (display_order); k++)
    {
      guint p = plane_named (trace, display_order[k]);
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      if (k < w->n_published)
        {
          g_assert_cmpuint (plane->n_tracks, ==, 3);
          for (guint t = 0; t < plane->n_tracks; t++)
            g_assert_true (planar_trace_is_track_ready (trace, p, t));
        }
      else
        {
          /* Being read or built, maybe, but not shown. */
          for (guint t = 0; t < MAX (plane->n_tracks, 1); t++)
            g_assert_false (planar_trace_is_track_ready (trace, p, t));
        }
    }
  if (w->cancel_at_first != NULL)
    g_cancellable_cancel (w->cancel_at_first);
}

/* The decode publishes the planes in the timeline's order, each whole;
 * what it ends with is what a decode of every line at once makes (a file
 * without a profile start is decoded so). */
static void
test_top_planes_first (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *path = write_planes (f, "streamed.xplane.pb", TRUE);
  g_autofree char *whole_path = write_planes (f, "whole.xplane.pb", FALSE);
  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
  g_autoptr(PlanarTraceLoader) whole_loader = planar_trace_loader_new (whole_path);
  PlanarTraceTestOptions options = { on_plane_published, NULL, -1 };
  PlaneWatch w = { loader, NULL, 0 };
  g_autoptr(GError) error = NULL;
  PlanarTrace *trace, *whole;

  options.test_hook_data = &w;
  _planar_trace_loader_set_test_options (loader, &options);
  planar_trace_loader_set_derive (loader, FALSE);
  planar_trace_loader_set_derive (whole_loader, FALSE);
  planar_trace_loader_set_use_cache (loader, FALSE);
  planar_trace_loader_set_use_cache (whole_loader, FALSE);
  g_assert_true (planar_trace_loader_open (loader, NULL, &error) && planar_trace_loader_decode (loader, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (w.n_published, ==, G_N_ELEMENTS (display_order));
  g_assert_true (planar_trace_loader_open (whole_loader, NULL, &error) &&
                 planar_trace_loader_decode (whole_loader, NULL, &error));
  g_assert_no_error (error);

  trace = planar_trace_loader_get_trace (loader);
  whole = planar_trace_loader_get_trace (whole_loader);
  g_assert_true (planar_trace_is_aligned_at_earliest_event (whole));
  g_assert_false (planar_trace_is_aligned_at_earliest_event (trace));
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, planar_trace_get_n_events (whole));
  for (guint k = 0; k < G_N_ELEMENTS (display_order); k++)
    {
      const PlanarPlane *a = planar_trace_get_plane (trace, plane_named (trace, display_order[k]));
      const PlanarPlane *b = planar_trace_get_plane (whole, plane_named (whole, display_order[k]));

      g_assert_cmpuint (a->n_tracks, ==, b->n_tracks);
      for (guint t = 0; t < a->n_tracks; t++)
        {
          const PlanarTrack *ta = &a->tracks[t], *tb = &b->tracks[t];

          g_assert_cmpint (ta->id, ==, tb->id);
          g_assert_cmpstr (ta->name, ==, tb->name);
          g_assert_cmpuint (ta->n_events, ==, 100);
          g_assert_cmpuint (ta->n_events, ==, tb->n_events);
          g_assert_cmpuint (ta->max_depth, ==, tb->max_depth);
          g_assert_cmpint (ta->start_ps, ==, tb->start_ps);
          g_assert_cmpint (ta->end_ps, ==, tb->end_ps);
          g_assert_cmpmem (ta->events, ta->n_events * sizeof (PlanarEvent),
                           tb->events, tb->n_events * sizeof (PlanarEvent));
        }
    }
}

/* Cancelled after the first plane is published: the load fails as
 * cancelled and takes back what it had published. */
static void
test_top_planes_cancel (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *path = write_planes (f, "streamed.xplane.pb", TRUE);
  g_autoptr(PlanarTraceLoader) loader = planar_trace_loader_new (path);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  PlanarTraceTestOptions options = { on_plane_published, NULL, -1 };
  PlaneWatch w = { loader, cancellable, 0 };
  g_autoptr(GError) error = NULL;
  PlanarTrace *trace;

  options.test_hook_data = &w;
  _planar_trace_loader_set_test_options (loader, &options);
  planar_trace_loader_set_use_cache (loader, FALSE);
  g_assert_true (planar_trace_loader_open (loader, NULL, &error));
  g_assert_false (planar_trace_loader_decode (loader, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (w.n_published, ==, 1);
  trace = planar_trace_loader_get_trace (loader);
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    for (guint t = 0; t < planar_trace_get_plane (trace, p)->n_tracks; t++)
      g_assert_false (planar_trace_is_track_ready (trace, p, t));
  g_assert_false (planar_trace_is_decoded (trace));
}

/* A load held by planar_trace_loader_hold_derive(): what the test hook
 * saw, told from the load's thread. */
typedef struct
{
  GMutex   lock;
  GCond    cond;
  gboolean held;
  gboolean deriving;
  /* Set by the test just before it releases the load. */
  gboolean released;
  /* Whether the derive pass began while the test had not released it. */
  gboolean derived_before_release;
  GCancellable *cancel_when_held;
} HoldWatch;

static void
on_hold_point (const char *point,
               const char *path,
               gpointer    data)
{
  HoldWatch *w = data;

  g_mutex_lock (&w->lock);
  if (strcmp (point, "derive-held") == 0)
    w->held = TRUE;
  else if (strcmp (point, "trace-deriving") == 0)
    {
      w->deriving = TRUE;
      w->derived_before_release |= !w->released;
    }
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  if (w->cancel_when_held != NULL && strcmp (point, "derive-held") == 0)
    g_cancellable_cancel (w->cancel_when_held);
}

static PlanarTraceLoader *
held_loader (Fixture    *f,
             HoldWatch  *w,
             guint       max_wait_ms)
{
  g_autofree char *path = write_host (f, "host0.xplane.pb", 1000);
  PlanarTraceLoader *loader = planar_trace_loader_new (path);
  PlanarTraceTestOptions options = { on_hold_point, NULL, -1 };

  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  options.test_hook_data = w;
  _planar_trace_loader_set_test_options (loader, &options);
  planar_trace_loader_set_use_cache (loader, FALSE);
  planar_trace_loader_hold_derive (loader, max_wait_ms);
  return loader;
}

static void
hold_watch_clear (HoldWatch *w)
{
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
}

typedef struct
{
  PlanarTraceLoader *loader;
  GCancellable      *cancellable;
  gboolean           ok;
  GError            *error;
} HeldLoad;

static gpointer
held_load_thread (gpointer data)
{
  HeldLoad *load = data;

  load->ok = planar_trace_loader_open (load->loader, NULL, &load->error) &&
             planar_trace_loader_decode (load->loader, load->cancellable, &load->error);
  return NULL;
}

/* A held load publishes the file's tracks and waits, its derive pass not
 * begun, until it is released; a release after the load is harmless. The
 * wait has no deadline that could end it in this test (an hour). */
static void
test_hold_derive (Fixture       *f,
                  gconstpointer  data)
{
  HoldWatch w = { 0 };
  g_autoptr(PlanarTraceLoader) loader = held_loader (f, &w, 3600 * 1000);
  HeldLoad load = { loader, NULL, FALSE, NULL };
  g_autofree char *message = NULL;
  PlanarTrace *trace;
  GThread *thread;
  guint cpu;

  thread = g_thread_new ("held-load", held_load_thread, &load);
  g_mutex_lock (&w.lock);
  /* A load that did not hold derives without waiting: that fails here. */
  while (!w.held && !w.deriving)
    g_cond_wait (&w.cond, &w.lock);
  g_assert_true (w.held);
  g_assert_false (w.deriving);
  g_mutex_unlock (&w.lock);

  /* Held: the file's tracks are there, the load is not done. */
  trace = planar_trace_loader_get_trace (loader);
  g_assert_nonnull (trace);
  g_assert_false (planar_trace_is_decoded (trace));
  cpu = plane_named (trace, "/host:CPU");
  g_assert_cmpuint (planar_trace_get_plane (trace, cpu)->n_tracks, >=, 2);
  for (guint t = 0; t < planar_trace_get_plane (trace, cpu)->n_tracks; t++)
    if (!planar_trace_get_plane (trace, cpu)->tracks[t].derived)
      g_assert_true (planar_trace_is_track_ready (trace, cpu, t));
  /* The HLO is read before the hold (a viewer predicts the derived lines
   * from it); the derive pass is not begun. */
  message = planar_trace_loader_dup_message (loader);
  g_assert_cmpstr (message, ==, "Reading HLO");

  g_mutex_lock (&w.lock);
  w.released = TRUE;
  g_mutex_unlock (&w.lock);
  planar_trace_loader_release_derive (loader);
  g_thread_join (thread);
  g_assert_no_error (load.error);
  g_assert_true (load.ok);
  g_assert_true (w.deriving);
  g_assert_false (w.derived_before_release);
  g_assert_true (planar_trace_is_decoded (trace));
  /* Again, after the load: nothing happens. */
  planar_trace_loader_release_derive (loader);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  hold_watch_clear (&w);
}

/* A held load that nobody releases derives once its deadline passes. */
static void
test_hold_derive_deadline (Fixture       *f,
                           gconstpointer  data)
{
  HoldWatch w = { 0 };
  g_autoptr(PlanarTraceLoader) loader = held_loader (f, &w, 20);
  g_autoptr(GError) error = NULL;

  g_assert_true (planar_trace_loader_open (loader, NULL, &error));
  g_assert_true (planar_trace_loader_decode (loader, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (w.held);
  g_assert_true (w.deriving);
  g_assert_true (planar_trace_is_decoded (planar_trace_loader_get_trace (loader)));
  /* A release after the deadline did it: nothing happens. */
  planar_trace_loader_release_derive (loader);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  hold_watch_clear (&w);
}

/* A held load cancelled while it waits ends at once as cancelled (no
 * deadline would end it in this test), never derives, and a release
 * after that is safe. */
static void
test_hold_derive_cancel (Fixture       *f,
                         gconstpointer  data)
{
  HoldWatch w = { 0 };
  g_autoptr(PlanarTraceLoader) loader = held_loader (f, &w, 3600 * 1000);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  HeldLoad load = { loader, cancellable, FALSE, NULL };
  GThread *thread;

  w.cancel_when_held = cancellable;
  thread = g_thread_new ("held-load", held_load_thread, &load);
  g_thread_join (thread);
  g_assert_false (load.ok);
  g_assert_error (load.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&load.error);
  g_assert_true (w.held);
  g_assert_false (w.deriving);
  g_assert_false (planar_trace_is_decoded (planar_trace_loader_get_trace (loader)));
  planar_trace_loader_release_derive (loader);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  hold_watch_clear (&w);
}

/* Released before the load reaches the hold, and never held by
 * planar_trace_load(): neither waits (an hour's deadline would hang the
 * test). A profile's release reaches each host's loader. */
static void
test_hold_derive_released_early (Fixture       *f,
                                 gconstpointer  data)
{
  HoldWatch w = { 0 };
  g_autoptr(PlanarTraceLoader) loader = held_loader (f, &w, 3600 * 1000);
  g_autofree char *path = write_host (f, "host1.xplane.pb", 2000);
  const char *paths[] = { path, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;

  planar_trace_loader_release_derive (loader);
  g_assert_true (planar_trace_loader_open (loader, NULL, &error));
  g_assert_true (planar_trace_loader_decode (loader, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (w.held);
  g_assert_true (w.deriving);

  trace = planar_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (planar_trace_is_decoded (trace));

  planar_profile_hold_derive (profile, 3600 * 1000);
  planar_profile_release_derive (profile);
  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (planar_profile_is_loaded (profile));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  hold_watch_clear (&w);
}

#ifdef __linux__
/* The nice value of this process's thread named @name, polled until it
 * is @nice (the thread lowers itself as it starts) for ten seconds at
 * most; G_MININT when no such thread was found, else its last value. */
static int
named_thread_nice (const char *name,
                   int         nice)
{
  int found = G_MININT;

  for (guint attempt = 0; attempt < 1000 && found != nice; attempt++)
    {
      g_autoptr(GDir) dir = g_dir_open ("/proc/self/task", 0, NULL);
      const char *tid;

      g_assert_nonnull (dir);
      while ((tid = g_dir_read_name (dir)) != NULL && found != nice)
        {
          g_autofree char *comm_path = g_build_filename ("/proc/self/task", tid, "comm", NULL);
          g_autofree char *comm = NULL;

          if (!g_file_get_contents (comm_path, &comm, NULL, NULL) || strcmp (g_strchomp (comm), name) != 0)
            continue;
          errno = 0;
          found = getpriority (PRIO_PROCESS, (id_t) g_ascii_strtoull (tid, NULL, 10));
          if (errno != 0)
            found = G_MININT;
        }
      if (found != nice)
        g_usleep (10000);
    }
  return found;
}

static void
profile_load_done (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (planar_profile_load_finish (PLANAR_PROFILE (object), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

typedef struct
{
  int nice;
} StoreWatch;

/* On the thread that stores the cached index. */
static void
on_cache_storing (const char *point,
                  const char *path,
                  gpointer    data)
{
  StoreWatch *w = data;

  if (strcmp (point, "cache-storing") == 0)
    w->nice = planar_test_thread_nice ();
}

static void
nice_in_task (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  g_task_return_int (task, planar_test_thread_nice ());
}

/* The nice value of a thread of GTask's pool. */
static int
pool_thread_nice (void)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, NULL, NULL);
  g_autoptr(GError) error = NULL;
  gssize nice;

  g_task_run_in_thread_sync (task, nice_in_task);
  nice = g_task_propagate_int (task, &error);
  g_assert_no_error (error);
  return (int) nice;
}

/* With the background on (a window draws), a profile's load runs on a
 * thread of its own ("planar-load") at the pool's lowered priority, not
 * on GTask's pool at the drawing thread's: the load leaves that thread a
 * core; so does the cached index's store after the load. Without it
 * (planar-cli) the load keeps the caller's priority. GTask's pool, used
 * again by other tasks, is never lowered. The load is
 * held before its derive step so that its thread is there to be seen. */
static void
test_background_thread (Fixture       *f,
                        gconstpointer  data)
{
  int own = planar_test_thread_nice ();
  /* A load's own thread is lowered less than the pool's helpers. */
  int lowered = MIN (own + PLANAR_PARALLEL_TASK_NICE, 19);
  gboolean cache_enabled = planar_cache_get_enabled ();

  /* With PLANAR_PARALLEL_TASK_NICE 0 the load's thread keeps the caller's
   * priority in both modes, which is checked all the same. */
  if (PLANAR_PARALLEL_TASK_NICE > 0 && lowered == own)
    {
      g_test_skip ("already at the lowest priority: nothing to lower");
      return;
    }
  planar_cache_set_enabled (TRUE);
  for (guint background = 0; background < 2; background++)
    {
      g_autofree char *path = write_host (f, background ? "host1.xplane.pb" : "host0.xplane.pb", 1000);
      g_autofree char *loader_path = write_host (f, background ? "loader1.xplane.pb" : "loader0.xplane.pb", 1000);
      const char *paths[] = { path, NULL };
      g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
      g_autoptr(PlanarTraceLoader) loader = NULL;
      g_autoptr(PlanarTrace) trace = NULL;
      PlanarTraceTestOptions options = { on_cache_storing, NULL, -1 };
      StoreWatch store = { G_MININT };
      gboolean done = FALSE;

      options.test_hook_data = &store;
      planar_parallel_set_background (background);
      planar_profile_hold_derive (profile, 3600 * 1000);
      planar_profile_load_async (profile, NULL, profile_load_done, &done);
      g_assert_cmpint (named_thread_nice ("planar-load", background ? lowered : own), ==, background ? lowered : own);
      planar_profile_release_derive (profile);
      while (!done)
        g_main_context_iteration (NULL, TRUE);
      g_assert_true (planar_profile_is_loaded (profile));

      /* A single host's loader, the same, and the cached index it
       * stores after. */
      loader = planar_trace_loader_new (loader_path);
      _planar_trace_loader_set_test_options (loader, &options);
      planar_trace_loader_hold_derive (loader, 3600 * 1000);
      planar_trace_loader_load_async (loader, NULL, load_done, &trace);
      g_assert_cmpint (named_thread_nice ("planar-load", background ? lowered : own), ==, background ? lowered : own);
      planar_trace_loader_release_derive (loader);
      while (trace == NULL)
        g_main_context_iteration (NULL, TRUE);
      g_assert_true (planar_trace_is_decoded (trace));

      planar_parallel_set_background (FALSE);
      planar_cache_wait ();
      g_assert_cmpint (store.nice, ==, background ? lowered : own);
      g_assert_cmpint (pool_thread_nice (), ==, own);
      g_assert_cmpint (planar_test_thread_nice (), ==, own);
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }
  planar_cache_set_enabled (cache_enabled);
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, planar_test_fixture_setup, func, planar_test_fixture_teardown)
  ADD ("/loader/progress-in-one-idle", test_progress_in_one_idle);
  ADD ("/loader/load-async", test_load_async);
  ADD ("/loader/open-json", test_open_json);
  ADD ("/loader/failed-host", test_failed_host);
  ADD ("/loader/failed-host-cli", test_failed_host_cli);
  ADD ("/loader/derive-limits", test_derive_limits);
  ADD ("/loader/top-planes-first", test_top_planes_first);
  ADD ("/loader/top-planes-cancel", test_top_planes_cancel);
  ADD ("/loader/hold-derive", test_hold_derive);
  ADD ("/loader/hold-derive-deadline", test_hold_derive_deadline);
  ADD ("/loader/hold-derive-cancel", test_hold_derive_cancel);
  ADD ("/loader/hold-derive-released-early", test_hold_derive_released_early);
#ifdef __linux__
  ADD ("/loader/background-thread", test_background_thread);
#endif
#undef ADD

  return g_test_run ();
}
