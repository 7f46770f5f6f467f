/* planar-window-first-frame.c: the moment bench/open measures. With
 * PLANAR_BENCH_FIRST_FRAME set in the environment, the first window that
 * loads a profile prints "first-frame USEC" on stdout (USEC from
 * g_get_monotonic_time(), a clock the benchmark shares) when the frame is
 * painted in which the timeline draws every track of the file from its
 * complete index, and the process ends there. Set to "verbose", it also
 * prints on stderr when each step of the way to that frame was reached
 * (_planar_window_bench_mark()).
 *
 * The tracks in the frame are those the timeline's layout took from the
 * profile on its tracks-changed; this watch looks at the model on the same
 * signal just before the timeline does, so that a track published after
 * its look is never counted as drawn. The lines the model derives (XLA
 * Ops, Steps, ...) arrive after the first frame and are not waited for.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-window-private.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static gboolean
watching (void)
{
  return g_getenv ("PLANAR_BENCH_FIRST_FRAME") != NULL;
}

/* On the main thread: the wall-clock time since the last mark, and the
 * CPU time this thread spent in it (on a busy machine the two differ). */
void
_planar_window_bench_mark (const char *what)
{
  static gint64 previous, previous_cpu;
  struct timespec ts;
  gint64 now, cpu;

  if (g_strcmp0 (g_getenv ("PLANAR_BENCH_FIRST_FRAME"), "verbose") != 0)
    return;
  now = g_get_monotonic_time ();
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  cpu = (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
  g_printerr ("planar: %" G_GINT64_FORMAT " us: +%6" G_GINT64_FORMAT " us wall, +%6" G_GINT64_FORMAT
              " us main-thread CPU: %s\n", now, previous != 0 ? now - previous : 0, cpu - previous_cpu, what);
  previous = now;
  previous_cpu = cpu;
}

/* Whether every track of the file is in place in each host decoded or
 * being decoded (the hosts of a lazy profile not asked for aside). */
static gboolean
file_tracks_ready (PlanarProfile *profile)
{
  gboolean any = FALSE;

  for (guint tr = 0; tr < planar_profile_get_n_traces (profile); tr++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, tr);

      if (planar_profile_get_trace_state (profile, tr) == PLANAR_PROFILE_TRACE_PENDING)
        continue;
      /* The tracks of every plane are planned at once, before the first
       * is published: one ready track means none is missing from the
       * planes' counts. */
      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);

          for (guint t = 0; t < plane->n_tracks; t++)
            {
              if (plane->tracks[t].derived)
                continue;
              if (!planar_trace_is_track_ready (trace, p, t))
                return FALSE;
              any = TRUE;
            }
        }
    }
  return any;
}

static void
after_paint (GdkFrameClock *clock,
             PlanarWindow  *self)
{
  if (!self->first_frame_painted)
    {
      _planar_window_bench_mark ("the window's first frame painted");
      self->first_frame_painted = TRUE;
    }
  self->n_frames_painted++;
  if (!self->first_frame_armed || !gtk_widget_get_mapped (GTK_WIDGET (self->timeline)))
    return;
  if (g_strcmp0 (g_getenv ("PLANAR_BENCH_FIRST_FRAME"), "verbose") == 0)
    g_printerr ("planar: %u frames painted since the load started\n", self->n_frames_painted);
  _planar_window_bench_mark ("first frame with every track of the file painted");
  printf ("first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  fflush (stdout);
  /* A benchmark's run: the load still going on is not waited for. */
  _exit (0);
}

static void
watch_frames (PlanarWindow *self)
{
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (self)), "after-paint",
                    G_CALLBACK (after_paint), self);
}

static void
tracks_changed (PlanarWindow  *self,
                PlanarProfile *profile)
{
  if (profile != self->profile || self->first_frame_armed)
    return;
  if (!self->first_frame_marked)
    {
      _planar_window_bench_mark ("first tracks published");
      self->first_frame_marked = TRUE;
    }
  if (!file_tracks_ready (profile))
    return;
  _planar_window_bench_mark ("every track of the file published");
  /* The timeline, next on this signal, lays them out and queues its draw;
   * the frame after is the one. */
  self->first_frame_armed = TRUE;
}

void
_planar_window_watch_first_frame (PlanarWindow *self)
{
  if (!watching () || self->first_frame_watched)
    return;
  self->first_frame_watched = TRUE;
  _planar_window_bench_mark ("load started");
  if (gtk_widget_get_realized (GTK_WIDGET (self)))
    watch_frames (self);
  else
    g_signal_connect (self, "realize", G_CALLBACK (watch_frames), NULL);
  /* Before the timeline's own handler (planar_timeline_set_profile()). */
  g_signal_connect_object (self->profile, "tracks-changed", G_CALLBACK (tracks_changed), self,
                           G_CONNECT_SWAPPED);
}
