/* planar-bench-frame.c: how long the timeline takes to produce a frame.
 *
 * Profiles of 1e6, 1e7 and 1e8 events written by planar-gen --seed 1 (made
 * once in PLANAR_BENCH_DIR, default $XDG_CACHE_HOME/planar-bench, as
 * bench/open's: gen-seed1-1e8.xplane.pb) are shown in a 1600x1000
 * timeline at windows of the whole span times 1, 1e-2, 1e-4 and 1e-6
 * around its middle. A frame is the widget's snapshot (the tracks layer
 * rebuilt: the view changed) rendered by the cairo renderer into a
 * texture. The level of detail should make a frame's cost follow the
 * pixels, not the events: the table gives the ratio of each profile's
 * frame to the first (smallest) one's at each zoom.
 *
 * Each profile is loaded as the application loads it (in a worker, with
 * planar_parallel_set_background() on, the timeline following the tracks
 * as they are published); while the load is still under way, frames are
 * drawn one after another at the zooms in turn (around the middle of the
 * time window the file's structure tells) and timed apart: the "while
 * loading" columns, from the first frame that draws a track to the end of
 * the load, ten a second at most. Then the frames of the loaded profile
 * are timed. No cached index is read or written.
 *
 * With --find PATTERN, the profiles are searched for PATTERN (a regular
 * expression: "." matches every event) and every hit is highlighted, as
 * the find bar does: the frames then include the hits' marks, and the
 * time to lay the hits out for the timeline is printed.
 *
 * With --memory-beside MIB, the loaded profile is drawn in turn once more
 * while a thread (as low as a load's beside a window) writes MIB MiB over
 * and over: whether a frame slows with memory traffic alone, without a load.
 *
 * With PLANAR_BENCH_PERF_CTL set to the control FIFO of a
 * `perf record -D -1 --control fifo:FIFO`, perf records only the frames of
 * the loaded profiles (it is enabled before them and disabled after); with
 * PLANAR_BENCH_PERF_PHASE=loading as well, only the frames drawn while the
 * profiles load (enabled around each of them).
 *
 * The main thread's CPU time per frame and the times it was preempted
 * are printed for both phases: a frame drawn while the load runs whose
 * wall time is well above its CPU time waited for a core (or for the
 * renderer's helper thread). The page faults the main thread took in its
 * frames, per frame, are printed for both phases too: at 1e8 events the index lives in file-backed
 * spill mappings, and a frame that touches pages that were written back
 * and dropped waits for the disk.
 *
 * Prints figures; asserts nothing. Needs a display: run it under xvfb-run,
 *   xvfb-run -a -s '-screen 0 1920x1200x24' build/bench/planar-bench-frame [--events-small N] [--events-large N] [--runs N]
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "planar-cache.h"
#include "planar-parallel.h"
#include "planar-timeline-private.h"

#ifndef PLANAR_GEN_PATH
#define PLANAR_GEN_PATH "planar-gen"
#endif

#define WIDTH  1600
#define HEIGHT 1000

static const double zooms[] = { 1, 1e-2, 1e-4, 1e-6 };
/* --zoom: measure only this index of zooms[] (for profiling), or -1. */
static int only_zoom = -1;
/* --memory-beside: MiB a thread writes over and over beside the loaded
 * profile's frames drawn in turn once more (0: not done). */
static int memory_beside_mib = 0;

typedef struct
{
  gint   stop;  /* atomic */
  gsize  size;
  guint8 *bytes;
} MemoryStream;

/* Writes its buffer from end to end until told to stop: the memory traffic
 * of a load's passes without the load. */
static gpointer
memory_stream_thread (gpointer data)
{
  MemoryStream *stream = data;
  guint8 value = 0;

#ifdef __linux__
  /* As low as a load's threads beside a window. */
  (void) setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid),
                      MIN (getpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid)) + PLANAR_PARALLEL_BACKGROUND_NICE, 19));
#endif
  while (!g_atomic_int_get (&stream->stop))
    memset (stream->bytes, value++, stream->size);
  return NULL;
}

/* --find: the pattern whose hits are highlighted, or NULL. */
static char *find_pattern = NULL;

typedef struct
{
  /* Milliseconds, medians over the runs. */
  double snapshot_ms;
  double frame_ms;
  guint  nodes;
  /* The rectangles of events the frame drew. */
  guint  spans;
  /* While the profile was loading: the median frame and how many. */
  double streaming_ms;
  guint  n_streaming;
  /* The main thread's page faults per frame, major and minor, while
   * loading and after. */
  double streaming_major;
  double streaming_minor;
  double major;
  double minor;
  /* The main thread's CPU time per frame (median, ms) and the times it
   * was preempted per frame (mean), while loading and after: a frame
   * whose CPU time is far below its wall time waited (for a core, or for
   * the renderer's helper). */
  double streaming_cpu_ms;
  double streaming_preempted;
  double cpu_ms;
  double preempted;
  /* Loaded, the zooms in turn as while loading: the median frame and its
   * CPU time on the main thread. */
  double turns_ms;
  double turns_cpu_ms;
  /* The same with --memory-beside. */
  double beside_ms;
  double beside_cpu_ms;
} Figures;

/* The frames drawn while loading, by the load's step (its message) at
 * the time: wall and main-thread CPU milliseconds, per zoom. */
typedef struct
{
  char   *message;
  GArray *ms[4];
  GArray *cpu[4];
} StepFrames;
G_STATIC_ASSERT (G_N_ELEMENTS (zooms) == 4);

static void
step_frames_free (gpointer data)
{
  StepFrames *step = data;

  g_free (step->message);
  for (guint z = 0; z < 4; z++)
    {
      g_array_unref (step->ms[z]);
      g_array_unref (step->cpu[z]);
    }
  g_free (step);
}

static StepFrames *
step_frames_get (GPtrArray  *steps,
                 const char *message)
{
  StepFrames *step;

  for (guint i = 0; i < steps->len; i++)
    if (g_strcmp0 (((StepFrames *) g_ptr_array_index (steps, i))->message, message) == 0)
      return g_ptr_array_index (steps, i);
  step = g_new0 (StepFrames, 1);
  step->message = g_strdup (message != NULL ? message : "(none)");
  for (guint z = 0; z < 4; z++)
    {
      step->ms[z] = g_array_new (FALSE, FALSE, sizeof (double));
      step->cpu[z] = g_array_new (FALSE, FALSE, sizeof (double));
    }
  g_ptr_array_add (steps, step);
  return step;
}

/* With --find: the hits, and the time to index them. */
typedef struct
{
  guint64 n_hits;
  double  index_ms;
} FindFigures;

/* The profile of @events events in @dir, written once by planar-gen. */
static char *
ensure_profile (const char *dir,
                const char *events)
{
  g_autofree char *name = g_strdup_printf ("gen-seed1-%s.xplane.pb", events);
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  const char *gen = g_getenv ("PLANAR_GEN") != NULL ? g_getenv ("PLANAR_GEN") : PLANAR_GEN_PATH;
  int status = 0;

  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return path;
  g_printerr ("planar-bench-frame: writing %s (once)\n", path);
  g_spawn_sync (NULL, (char *[]) { (char *) gen, (char *) "--events", (char *) events, (char *) "--seed", (char *) "1",
                                   (char *) "-o", path, NULL },
                NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  if (error != NULL || !g_spawn_check_wait_status (status, NULL))
    g_error ("planar-gen failed: %s", error != NULL ? error->message : "exit status");
  return path;
}

/* Sends @command ("enable", "disable") to perf's control FIFO, if any,
 * when @phase is the one PLANAR_BENCH_PERF_PHASE asks for ("loaded" when
 * unset). */
static void
perf_control (const char *phase,
              const char *command)
{
  const char *fifo = g_getenv ("PLANAR_BENCH_PERF_CTL");
  const char *wanted = g_getenv ("PLANAR_BENCH_PERF_PHASE");
  FILE *f;

  if (g_strcmp0 (phase, wanted != NULL ? wanted : "loaded") != 0)
    return;
  if (fifo == NULL || (f = fopen (fifo, "w")) == NULL)
    return;
  fprintf (f, "%s\n", command);
  fclose (f);
}

/* The calling thread's page faults so far, major and minor, its CPU time
 * (ms) and the times it was preempted. */
typedef struct
{
  double major;
  double minor;
  double cpu_ms;
  double preempted;
} ThreadUsage;

static void
thread_usage (ThreadUsage *out)
{
  struct rusage usage;

  memset (out, 0, sizeof *out);
#ifdef RUSAGE_THREAD
  if (getrusage (RUSAGE_THREAD, &usage) == 0)
    {
      out->major = (double) usage.ru_majflt;
      out->minor = (double) usage.ru_minflt;
      out->cpu_ms = (double) (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000.0 +
                    (double) (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000.0;
      out->preempted = (double) usage.ru_nivcsw;
    }
#endif
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *values,
        guint   n)
{
  qsort (values, n, sizeof (double), compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static guint
count_nodes (GskRenderNode *node)
{
  guint n = 1;

  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        n += count_nodes (gsk_container_node_get_child (node, i));
      break;
    case GSK_CLIP_NODE:
      n += count_nodes (gsk_clip_node_get_child (node));
      break;
    case GSK_ROUNDED_CLIP_NODE:
      n += count_nodes (gsk_rounded_clip_node_get_child (node));
      break;
    case GSK_TRANSFORM_NODE:
      n += count_nodes (gsk_transform_node_get_child (node));
      break;
    default:
      break;
    }
  return n;
}

static void
wait_until_allocated (GtkWidget *widget)
{
  while (!gtk_widget_get_mapped (widget) || gtk_widget_get_width (widget) < WIDTH)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Draws one frame of @timeline; returns its milliseconds (snapshot in
 * @snapshot_ms) and, when @nodes is given, counts its render nodes. */
static double
draw_frame (PlanarTimeline *timeline,
            GskRenderer    *renderer,
            double         *snapshot_ms,
            guint          *nodes)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  GdkTexture *texture;
  gint64 a, b, c;

  _planar_timeline_invalidate_tracks (timeline);
  a = g_get_monotonic_time ();
  GTK_WIDGET_GET_CLASS (timeline)->snapshot (GTK_WIDGET (timeline), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  b = g_get_monotonic_time ();
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, WIDTH, HEIGHT));
  c = g_get_monotonic_time ();
  if (nodes != NULL)
    *nodes = count_nodes (node);
  g_object_unref (texture);
  gsk_render_node_unref (node);
  if (snapshot_ms != NULL)
    *snapshot_ms = (double) (b - a) / 1000.0;
  return (double) (c - a) / 1000.0;
}

/* @runs rounds of one frame at each zoom in turn over [@first, @last],
 * each the first at its zoom after another; the medians of zoom @z's
 * frame time and main-thread CPU. */
static void
draw_zooms_in_turn (PlanarTimeline *timeline,
                    GskRenderer    *renderer,
                    gint64          first,
                    gint64          last,
                    guint           runs,
                    guint           z,
                    double         *frame_ms,
                    double         *cpu_ms)
{
  g_autofree double *turn_ms = g_new (double, runs);
  g_autofree double *turn_cpu = g_new (double, runs);

  for (guint r = 0; r < runs; r++)
    for (guint k = 0; k < G_N_ELEMENTS (zooms); k++)
      {
        gint64 span = last - first;
        gint64 width = MAX ((gint64) ((double) span * zooms[k]), 1);
        gint64 middle = first + span / 2;
        ThreadUsage before, after;
        double ms;

        planar_timeline_set_view (timeline, middle - width / 2, middle - width / 2 + width);
        thread_usage (&before);
        ms = draw_frame (timeline, renderer, NULL, NULL);
        thread_usage (&after);
        if (k == z)
          {
            turn_ms[r] = ms;
            turn_cpu[r] = after.cpu_ms - before.cpu_ms;
          }
      }
  *frame_ms = median (turn_ms, runs);
  *cpu_ms = median (turn_cpu, runs);
}

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  if (!planar_profile_load_finish (PLANAR_PROFILE (object), result, &error))
    g_error ("%s", error->message);
  *done = TRUE;
}

/* Whether @timeline draws a track of the file. */
static gboolean
draws_a_track (PlanarTimeline *timeline)
{
  for (guint r = 0; r < planar_timeline_layout_get_n_rows (timeline->layout); r++)
    if (planar_timeline_layout_get_row (timeline->layout, r)->kind == PLANAR_TIMELINE_ROW_TRACK)
      return TRUE;
  return FALSE;
}

/* Median frame at each zoom of the profile at @path, while it loads and
 * after. */
static void
measure (const char  *path,
         guint        runs,
         Figures     *figures,
         double      *load_s,
         FindFigures *find)
{
  const char *paths[] = { path, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(GError) error = NULL;
  g_autoptr(GskRenderer) renderer = gsk_cairo_renderer_new ();
  GArray *streaming[G_N_ELEMENTS (zooms)] = { NULL };
  g_autoptr(GPtrArray) steps = g_ptr_array_new_with_free_func (step_frames_free);
  GtkWidget *window;
  PlanarTimeline *timeline;
  gint64 first, last, t0;
  g_autofree double *snapshot_ms = g_new (double, runs);
  g_autofree double *frame_ms = g_new (double, runs);
  gboolean done = FALSE;
  guint turn = 0;
  double streaming_major[G_N_ELEMENTS (zooms)] = { 0 }, streaming_minor[G_N_ELEMENTS (zooms)] = { 0 };
  double streaming_preempted[G_N_ELEMENTS (zooms)] = { 0 };
  GArray *streaming_cpu[G_N_ELEMENTS (zooms)] = { NULL };
  g_autofree double *cpu_ms = g_new (double, runs);

  if (!gsk_renderer_realize (renderer, NULL, &error))
    g_error ("%s", error->message);

  window = gtk_window_new ();
  gtk_window_set_decorated (GTK_WINDOW (window), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, HEIGHT);
  timeline = PLANAR_TIMELINE (planar_timeline_new ());
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (timeline));
  planar_timeline_set_profile (timeline, profile);
  gtk_window_present (GTK_WINDOW (window));
  wait_until_allocated (GTK_WIDGET (timeline));

  /* As the application loads: in a worker, its pool at a lower priority. */
  planar_parallel_set_background (TRUE);
  t0 = g_get_monotonic_time ();
  planar_profile_load_async (profile, NULL, load_done, &done);
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      streaming[z] = g_array_new (FALSE, FALSE, sizeof (double));
      streaming_cpu[z] = g_array_new (FALSE, FALSE, sizeof (double));
    }
  while (!done)
    {
      PlanarTrace *trace;
      guint64 start_ns, end_ns;

      g_main_context_iteration (NULL, FALSE);
      /* A track drawn: the host is open and its structure read. */
      trace = !done && draws_a_track (timeline) ? planar_profile_get_trace (profile, 0) : NULL;
      if (trace == NULL || !planar_trace_get_time_window (trace, &start_ns, &end_ns))
        {
          if (!done)
            g_usleep (1000);
          continue;
        }
      /* The window the structure tells, in the timeline's picoseconds. */
      first = 0;
      last = (gint64) (end_ns - start_ns) * 1000;
      {
        guint z = only_zoom >= 0 ? (guint) only_zoom : turn++ % G_N_ELEMENTS (zooms);
        gint64 width = MAX ((gint64) ((double) (last - first) * zooms[z]), 1);
        gint64 middle = first + (last - first) / 2;
        ThreadUsage u0, u1;
        double ms, cpu;
        g_autofree char *message = NULL;

        planar_timeline_set_view (timeline, middle - width / 2, middle - width / 2 + width);
        g_object_get (profile, "message", &message, NULL);
        perf_control ("loading", "enable");
        thread_usage (&u0);
        ms = draw_frame (timeline, renderer, NULL, NULL);
        thread_usage (&u1);
        perf_control ("loading", "disable");
        if (!done)
          {
            cpu = u1.cpu_ms - u0.cpu_ms;
            g_array_append_val (streaming[z], ms);
            g_array_append_val (streaming_cpu[z], cpu);
            {
              StepFrames *step = step_frames_get (steps, message);

              g_array_append_val (step->ms[z], ms);
              g_array_append_val (step->cpu[z], cpu);
            }
            streaming_major[z] += u1.major - u0.major;
            streaming_minor[z] += u1.minor - u0.minor;
            streaming_preempted[z] += u1.preempted - u0.preempted;
          }
        /* Ten frames a second, as a person panning: the load keeps the
         * rest of the machine. */
        while (!done && ms < 100)
          {
            g_main_context_iteration (NULL, FALSE);
            g_usleep (5000);
            ms += 5;
          }
      }
    }
  *load_s = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
  planar_parallel_set_background (FALSE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      figures[z].n_streaming = streaming[z]->len;
      figures[z].streaming_major = streaming[z]->len > 0 ? streaming_major[z] / streaming[z]->len : 0;
      figures[z].streaming_minor = streaming[z]->len > 0 ? streaming_minor[z] / streaming[z]->len : 0;
      figures[z].streaming_ms = streaming[z]->len > 0 ? median ((double *) (gpointer) streaming[z]->data, streaming[z]->len) : 0;
      figures[z].streaming_cpu_ms = streaming_cpu[z]->len > 0 ? median ((double *) (gpointer) streaming_cpu[z]->data, streaming_cpu[z]->len) : 0;
      figures[z].streaming_preempted = streaming[z]->len > 0 ? streaming_preempted[z] / streaming[z]->len : 0;
      g_array_unref (streaming[z]);
      g_array_unref (streaming_cpu[z]);
    }
  /* By step, for the larger profiles (the small ones load in a frame or two). */
  if (steps->len > 0 && figures[0].n_streaming + figures[1].n_streaming + figures[2].n_streaming + figures[3].n_streaming > 16)
    {
      g_print ("%s, frames while loading by the load's step (frames, median frame / main thread's CPU):\n\n"
               "| step | 1 | 0.01 | 0.0001 | 1e-06 |\n|---|---|---|---|---|\n", path);
      for (guint i = 0; i < steps->len; i++)
        {
          StepFrames *step = g_ptr_array_index (steps, i);

          g_print ("| %s |", step->message);
          for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
            if (step->ms[z]->len > 0)
              g_print (" %u, %.2f / %.2f ms |", step->ms[z]->len,
                       median ((double *) (gpointer) step->ms[z]->data, step->ms[z]->len),
                       median ((double *) (gpointer) step->cpu[z]->data, step->cpu[z]->len));
            else
              g_print (" – |");
          g_print ("\n");
        }
      g_print ("\n");
    }
  planar_profile_get_span (profile, &first, &last);

  if (find_pattern != NULL)
    {
      g_autoptr(PlanarSearch) search = planar_search_new (profile, find_pattern, PLANAR_SEARCH_REGEX, &error);
      g_autoptr(PlanarSearchHitIndex) index = NULL;

      if (search == NULL || !planar_search_run (search, NULL, &error))
        g_error ("%s", error->message);
      t0 = g_get_monotonic_time ();
      index = planar_search_hit_index_new (search);
      find->index_ms = (double) (g_get_monotonic_time () - t0) / 1000.0;
      find->n_hits = planar_search_get_n_hits (search);
      planar_timeline_set_search_hits (timeline, index);
    }

  perf_control ("loaded", "enable");
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      gint64 span = last - first;
      gint64 width = MAX ((gint64) ((double) span * zooms[z]), 1);
      gint64 middle = first + span / 2;
      ThreadUsage u0 = { 0 }, u1, before, after;

      if (only_zoom >= 0 && (guint) only_zoom != z)
        continue;
      planar_timeline_set_view (timeline, middle - width / 2, middle - width / 2 + width);
      /* One frame to warm the caches (glyphs, colors) that every later
       * frame reuses, as on screen. */
      for (guint r = 0; r < runs + 1; r++)
        {
          double snap, ms;

          thread_usage (&before);
          if (r == 1)
            u0 = before;
          ms = draw_frame (timeline, renderer, &snap, r == 0 ? &figures[z].nodes : NULL);
          thread_usage (&after);
          figures[z].spans = timeline->n_spans_drawn;
          if (r > 0)
            {
              snapshot_ms[r - 1] = snap;
              frame_ms[r - 1] = ms;
              cpu_ms[r - 1] = after.cpu_ms - before.cpu_ms;
            }
        }
      thread_usage (&u1);
      figures[z].major = (u1.major - u0.major) / runs;
      figures[z].minor = (u1.minor - u0.minor) / runs;
      figures[z].preempted = (u1.preempted - u0.preempted) / runs;
      figures[z].cpu_ms = median (cpu_ms, runs);
      figures[z].snapshot_ms = median (snapshot_ms, runs);
      figures[z].frame_ms = median (frame_ms, runs);
    }
  perf_control ("loaded", "disable");

  /* The loaded profile drawn as the frames while loading were: the zooms
   * in turn, each frame the first at its zoom after another (nothing of
   * the last frame's in the caches), so that the loading figures can be
   * told apart from the cost of a changed view. */
  if (only_zoom < 0)
    for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
      draw_zooms_in_turn (timeline, renderer, first, last, runs, z, &figures[z].turns_ms, &figures[z].turns_cpu_ms);

  /* The same, with a thread writing memory beside the frames. */
  if (only_zoom < 0 && memory_beside_mib > 0)
    {
      MemoryStream stream = { 0, (gsize) memory_beside_mib << 20, NULL };
      GThread *thread;

      stream.bytes = g_malloc (stream.size);
      thread = g_thread_new ("memory-beside", memory_stream_thread, &stream);
      for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
        draw_zooms_in_turn (timeline, renderer, first, last, runs, z, &figures[z].beside_ms,
                            &figures[z].beside_cpu_ms);
      g_atomic_int_set (&stream.stop, 1);
      g_thread_join (thread);
      g_free (stream.bytes);
    }

  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  gsk_renderer_unrealize (renderer);
}

/* A table's first two lines: a column for the zoom, then for each size
 * " SIZE events" and @columns, which has @n_columns cells. */
static void
print_table_head (char       **sizes,
                  guint        n,
                  const char  *columns,
                  guint        n_columns)
{
  g_print ("| window (x span) |");
  for (guint i = 0; i < n; i++)
    g_print (" %s events%s", sizes[i], columns);
  g_print ("\n|---|");
  for (guint i = 0; i < n; i++)
    for (guint c = 0; c < n_columns; c++)
      g_print ("---|");
  g_print ("\n");
}

int
main (int   argc,
      char *argv[])
{
  int runs = 9;
  g_autofree char *sizes_arg = NULL;
  g_autofree char *dir = NULL;
  GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_arg, "Profile sizes in events (default 1e6,1e7,1e8)", "N,N..." },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "Where the profiles are made once (default $PLANAR_BENCH_DIR)", "DIR" },
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "Frames measured per zoom (9)", "N" },
    { "zoom", 0, 0, G_OPTION_ARG_INT, &only_zoom, "Measure only the zoom of this index (0 to 3), loading and loaded, to profile it", "I" },
    { "find", 0, 0, G_OPTION_ARG_STRING, &find_pattern, "Highlight the hits of this regular expression", "PATTERN" },
    { "memory-beside", 0, 0, G_OPTION_ARG_INT, &memory_beside_mib,
      "Draw the loaded profile in turn again while a thread writes this many MiB over and over (0: not)", "MIB" },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- time the timeline's frames");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) sizes = NULL;
  guint n;
  typedef Figures ZoomFigures[G_N_ELEMENTS (zooms)];
  ZoomFigures *figures;
  double *load_s;
  FindFigures *find;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  sizes = g_strsplit (sizes_arg != NULL ? sizes_arg : "1e6,1e7,1e8", ",", -1);
  n = g_strv_length (sizes);
  if (runs < 1 || n == 0)
    {
      g_printerr ("runs must be positive, and one size at least given\n");
      return 2;
    }
  for (guint i = 0; i < n; i++)
    if (g_ascii_strtod (sizes[i], NULL) < 1)
      {
        g_printerr ("not an event count: %s\n", sizes[i]);
        return 2;
      }
  if (dir == NULL)
    dir = g_strdup (g_getenv ("PLANAR_BENCH_DIR"));
  if (dir == NULL)
    dir = g_build_filename (g_get_user_cache_dir (), "planar-bench", NULL);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_printerr ("cannot make %s\n", dir);
      return 3;
    }
  gtk_init ();
  /* Cold loads, and no index written beside the frames timed. */
  planar_cache_set_enabled (FALSE);

  figures = g_new0 (ZoomFigures, n);
  load_s = g_new0 (double, n);
  find = g_new0 (FindFigures, n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = ensure_profile (dir, sizes[i]);

      measure (path, (guint) runs, figures[i], &load_s[i], &find[i]);
    }

  g_print ("Frame of a %dx%d timeline (snapshot + cairo render), median of %d; profiles from planar-gen --seed 1\n"
           "(loaded in", WIDTH, HEIGHT, runs);
  for (guint i = 0; i < n; i++)
    g_print ("%s %.2f s", i == 0 ? "" : ",", load_s[i]);
  g_print (").\n\n");
  if (find_pattern != NULL)
    {
      g_print ("Every hit of the regular expression \"%s\" highlighted:", find_pattern);
      for (guint i = 0; i < n; i++)
        g_print ("%s %" G_GUINT64_FORMAT " hits laid out in %.0f ms", i == 0 ? "" : ",", find[i].n_hits, find[i].index_ms);
      g_print (".\n\n");
    }
  g_print ("| window (x span) |");
  for (guint i = 0; i < n; i++)
    g_print (" %s events: snapshot / frame | nodes |%s", sizes[i], i > 0 ? " frame ratio |" : "");
  g_print ("\n|---|");
  for (guint i = 0; i < n; i++)
    g_print ("---|---|%s", i > 0 ? "---|" : "");
  g_print ("\n");
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      g_print ("| %g |", zooms[z]);
      for (guint i = 0; i < n; i++)
        {
          g_print (" %.2f / %.2f ms | %u |", figures[i][z].snapshot_ms, figures[i][z].frame_ms, figures[i][z].nodes);
          if (i > 0)
            g_print (" %.2fx |", figures[i][z].frame_ms / figures[0][z].frame_ms);
        }
      g_print ("\n");
    }

  g_print ("\nWhile loading (frames drawn one after another from the first track shown to the end of the load, "
           "the zooms in turn; ratio to the loaded %s profile's frame):\n\n", sizes[0]);
  print_table_head (sizes, n, ": frame while loading | frames | ratio |", 3);
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      g_print ("| %g |", zooms[z]);
      for (guint i = 0; i < n; i++)
        if (figures[i][z].n_streaming > 0)
          g_print (" %.2f ms | %u | %.2fx |", figures[i][z].streaming_ms, figures[i][z].n_streaming,
                   figures[i][z].streaming_ms / figures[0][z].frame_ms);
        else
          g_print (" – | 0 | – |");
      g_print ("\n");
    }

  g_print ("\nRectangles of events drawn per frame (the output: a wide window of a larger file has more columns "
           "with events in them):\n\n");
  print_table_head (sizes, n, " |", 1);
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      g_print ("| %g |", zooms[z]);
      for (guint i = 0; i < n; i++)
        g_print (" %u |", figures[i][z].spans);
      g_print ("\n");
    }

  g_print ("\nPage faults per frame on the main thread (which draws about half the tracks; the pool's helper the rest), "
           "major / minor, while loading and loaded:\n\n");
  print_table_head (sizes, n, ": loading | loaded |", 2);
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      g_print ("| %g |", zooms[z]);
      for (guint i = 0; i < n; i++)
        g_print (" %.1f / %.1f | %.1f / %.1f |", figures[i][z].streaming_major, figures[i][z].streaming_minor,
                 figures[i][z].major, figures[i][z].minor);
      g_print ("\n");
    }

  g_print ("\nThe main thread's CPU time per frame (median; the rest of the frame's wall time it waited, for a core "
           "or for the renderer's helper) and the times it was preempted per frame, while loading and loaded:\n\n");
  print_table_head (sizes, n, ": CPU loading | preempted | CPU loaded | preempted |", 4);
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      g_print ("| %g |", zooms[z]);
      for (guint i = 0; i < n; i++)
        g_print (" %.2f ms | %.1f | %.2f ms | %.1f |", figures[i][z].streaming_cpu_ms, figures[i][z].streaming_preempted,
                 figures[i][z].cpu_ms, figures[i][z].preempted);
      g_print ("\n");
    }

  g_print ("\nLoaded, the zooms in turn as while loading (each frame the first at its zoom after another): the median frame, "
           "the main thread's CPU in it, and the ratio of the frame while loading to it:\n\n");
  print_table_head (sizes, n, ": frame in turn | CPU | loading / in turn |", 3);
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      g_print ("| %g |", zooms[z]);
      for (guint i = 0; i < n; i++)
        if (figures[i][z].n_streaming > 0 && figures[i][z].turns_ms > 0)
          g_print (" %.2f ms | %.2f ms | %.2fx |", figures[i][z].turns_ms, figures[i][z].turns_cpu_ms,
                   figures[i][z].streaming_ms / figures[i][z].turns_ms);
        else
          g_print (" %.2f ms | %.2f ms | – |", figures[i][z].turns_ms, figures[i][z].turns_cpu_ms);
      g_print ("\n");
    }

  if (memory_beside_mib > 0)
    {
      g_print ("\nLoaded, the zooms in turn, while a thread writes %d MiB over and over beside the frames: the median "
               "frame and the main thread's CPU in it (against the same without, above):\n\n", memory_beside_mib);
      print_table_head (sizes, n, ": frame | CPU |", 2);
      for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
        {
          g_print ("| %g |", zooms[z]);
          for (guint i = 0; i < n; i++)
            g_print (" %.2f ms | %.2f ms |", figures[i][z].beside_ms, figures[i][z].beside_cpu_ms);
          g_print ("\n");
        }
    }

  g_free (figures);
  g_free (load_s);
  g_free (find);
  g_free (find_pattern);
  return 0;
}
