/* planar-window-first-frame.c: the moment bench/open measures. With
 * PLANAR_BENCH_FIRST_FRAME set in the environment, the first window that
 * loads a profile prints "first-frame USEC" on stdout (USEC from
 * g_get_monotonic_time(), a clock the benchmark shares) when the frame is
 * painted in which the timeline draws every track of the file that its
 * first view shows (scrolled to the top) from its complete index, and the
 * process ends there. Set to "verbose", it also
 * prints on stderr when each step of the way to that frame was reached
 * (_planar_window_bench_mark()). Set to "all", the frame measured is the
 * first that draws every track of the file, in the first view or below.
 *
 * The tracks in the frame are those the timeline's layout took from the
 * profile when it was given the profile and on each tracks-changed since;
 * this watch looks at the model at the same moments just before the
 * timeline does, so that a track published after its look is never counted
 * as drawn. A look taken before the timeline has a height (the profile of
 * an early load, given to a window not shown yet) is kept, and judged
 * when the first frame is painted. The lines the model derives (XLA Ops,
 * Steps, ...) arrive after the first frame and are not waited for, nor is
 * a section whose header alone reaches into the view (its tracks start
 * below it): planar_timeline_layout_sections_in_view().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-window-private.h"

#include "planar-timeline-layout.h"

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

/* Whether plane @p of @trace has every track of the file in place: its
 * tracks planned (a plane with lines has one at least) and each ready. */
static gboolean
plane_complete (PlanarTrace *trace,
                guint        p)
{
  const PlanarPlane *plane = planar_trace_get_plane (trace, p);

  if (plane->n_lines > 0 && plane->n_tracks == 0)
    return FALSE;
  for (guint t = 0; t < plane->n_tracks; t++)
    if (!plane->tracks[t].derived && !planar_trace_is_track_ready (trace, p, t))
      return FALSE;
  return TRUE;
}

/* What the model held when the timeline took its tracks: the planes
 * complete then, and whether every track of the file was there. */
typedef struct
{
  GHashTable *complete;
  gboolean    file_ready;
} Look;

static gpointer
plane_key (guint trace,
           guint plane)
{
  return GUINT_TO_POINTER ((trace << 16 | plane) + 1);
}

static void
look_free (Look *look)
{
  g_hash_table_unref (look->complete);
  g_free (look);
}

/* Whether plane @p of host @tr was complete when @look was taken (now, when
 * @look is NULL). */
static gboolean
plane_ready (PlanarProfile *profile,
             Look          *look,
             guint          tr,
             guint          p)
{
  if (look != NULL)
    return g_hash_table_contains (look->complete, plane_key (tr, p));
  return plane_complete (planar_profile_get_trace (profile, tr), p);
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
      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          if (!plane_complete (trace, p))
            return FALSE;
          any = any || planar_trace_get_plane (trace, p)->n_tracks > 0;
        }
    }
  return any;
}

static Look *
look_take (PlanarProfile *profile)
{
  Look *look = g_new0 (Look, 1);

  look->complete = g_hash_table_new (NULL, NULL);
  look->file_ready = file_tracks_ready (profile);
  for (guint tr = 0; tr < planar_profile_get_n_traces (profile); tr++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, tr);

      if (planar_profile_get_trace_state (profile, tr) == PLANAR_PROFILE_TRACE_PENDING)
        continue;
      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        if (plane_complete (trace, p))
          g_hash_table_add (look->complete, plane_key (tr, p));
    }
  return look;
}

/* Whether every track of the file that the timeline shows in its first
 * view (scrolled to the top, the window's size) is in place. The model
 * decodes a host's planes in the order of the timeline's sections and
 * publishes each whole before reading the next (docs/loader.md), so the
 * sections laid out now are the top of the final layout: when those that
 * reach into the view are complete and fill it, nothing the view shows
 * is missing. With several hosts, or sections moved by the user, that
 * order says less: every track is waited for there. */
static gboolean
visible_tracks_ready (PlanarWindow  *self,
                      PlanarProfile *profile,
                      Look          *look)
{
  g_autoptr(PlanarTimelineLayout) layout = NULL;
  g_autoptr(GArray) in_view = g_array_new (FALSE, FALSE, sizeof (guint));
  PlanarViewState *state = planar_timeline_get_view_state (self->timeline);
  int height = gtk_widget_get_height (GTK_WIDGET (self->timeline));
  guint n_decoding = 0;

  if (look != NULL ? look->file_ready : file_tracks_ready (profile))
    return TRUE;
  /* "all": the frame with every track of the file, in view or not. */
  if (g_strcmp0 (g_getenv ("PLANAR_BENCH_FIRST_FRAME"), "all") == 0)
    return FALSE;
  for (guint tr = 0; tr < planar_profile_get_n_traces (profile); tr++)
    if (planar_profile_get_trace_state (profile, tr) != PLANAR_PROFILE_TRACE_PENDING)
      n_decoding++;
  if (n_decoding != 1 || height <= 0 || state == NULL ||
      planar_view_state_get_section_order (state)[0] != NULL)
    return FALSE;

  layout = planar_timeline_layout_new ();
  planar_timeline_layout_set_view_state (layout, state);
  planar_timeline_layout_update (layout, profile);
  /* The sections laid out fill the view, or leave below them only the
   * header of a section to come: its tracks, like those of a section
   * whose header alone reaches into the view, are not in it. */
  if (!planar_timeline_layout_sections_in_view (layout, height, in_view))
    return FALSE;
  for (guint i = 0; i < in_view->len; i++)
    {
      const PlanarTimelineSection *section =
        planar_timeline_layout_get_section (layout, g_array_index (in_view, guint, i));

      if (!plane_ready (profile, look, section->trace, section->plane))
        return FALSE;
    }
  if (g_strcmp0 (g_getenv ("PLANAR_BENCH_FIRST_FRAME"), "verbose") == 0)
    for (guint s = 0; s < planar_timeline_layout_get_n_sections (layout); s++)
      {
        const PlanarTimelineSection *section = planar_timeline_layout_get_section (layout, s);

        if (section->row != G_MAXUINT && planar_timeline_layout_get_row (layout, section->row)->y < height)
          g_printerr ("planar: in the first view (%d px): %s from y %d%s\n", height, section->title,
                      planar_timeline_layout_get_row (layout, section->row)->y,
                      planar_timeline_layout_get_row (layout, section->row)->y + PLANAR_TIMELINE_SECTION_HEIGHT >= height
                      ? " (its header only)" : "");
      }
  return TRUE;
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
  /* A look taken before the timeline had a height: judged now that this
   * frame drew what it took. */
  if (!self->first_frame_armed && gtk_widget_get_mapped (GTK_WIDGET (self->timeline)))
    {
      Look *look = g_object_steal_data (G_OBJECT (self), "planar-first-frame-look");

      if (look != NULL && self->profile != NULL && visible_tracks_ready (self, self->profile, look))
        {
          _planar_window_bench_mark ("every track of the file in the first view was there when the "
                                     "timeline took them");
          self->first_frame_armed = TRUE;
        }
      g_clear_pointer (&look, look_free);
    }
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

/* The timeline is about to take the profile's tracks. */
static void
tracks_changed (PlanarWindow  *self,
                PlanarProfile *profile)
{
  if (profile != self->profile || self->first_frame_armed)
    return;
  if (!self->first_frame_marked && planar_profile_get_n_traces (profile) > 0)
    {
      _planar_window_bench_mark ("first tracks published");
      self->first_frame_marked = TRUE;
    }
  /* Not laid out yet: what the timeline takes now is judged at the first
   * frame, when the view's height is known. */
  if (gtk_widget_get_height (GTK_WIDGET (self->timeline)) <= 0)
    {
      Look *look = look_take (profile);

      if (g_strcmp0 (g_getenv ("PLANAR_BENCH_FIRST_FRAME"), "verbose") == 0)
        {
          g_autofree char *what = g_strdup_printf ("tracks taken before the first layout: %u planes complete%s",
                                                   g_hash_table_size (look->complete),
                                                   look->file_ready ? ", every track of the file" : "");

          _planar_window_bench_mark (what);
        }
      g_object_set_data_full (G_OBJECT (self), "planar-first-frame-look", look, (GDestroyNotify) look_free);
      return;
    }
  if (!visible_tracks_ready (self, profile, NULL))
    return;
  _planar_window_bench_mark ("every track of the file in the first view published");
  /* The timeline, next on this signal, lays them out and queues its draw;
   * the frame after is the one. */
  self->first_frame_armed = TRUE;
}

/* Verbose: when each load step begins, to tell whether the derived lines
 * started before the measured frame. */
static void
message_changed (PlanarWindow  *self,
                 GParamSpec    *pspec,
                 PlanarProfile *profile)
{
  g_autofree char *message = NULL;
  g_autofree char *what = NULL;

  if (profile != self->profile)
    return;
  g_object_get (profile, "message", &message, NULL);
  what = g_strdup_printf ("load step: %s", message != NULL ? message : "(none)");
  _planar_window_bench_mark (what);
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
  /* The timeline is given the profile next, and takes the tracks an early
   * load may have published already. */
  tracks_changed (self, self->profile);
  if (g_strcmp0 (g_getenv ("PLANAR_BENCH_FIRST_FRAME"), "verbose") == 0)
    g_signal_connect_object (self->profile, "notify::message", G_CALLBACK (message_changed), self,
                             G_CONNECT_SWAPPED);
}

/* ------------------------------------------------------------------------
 * The derive step held until the file's tracks are painted
 * ------------------------------------------------------------------------ */

/* How long a load waits at most for the window to paint its tracks before
 * it derives anyway (a window that is hidden or gets no frames). */
#define DERIVE_HOLD_MAX_MS 300

static void
release_after_paint (GdkFrameClock *clock,
                     PlanarWindow  *self)
{
  g_signal_handlers_disconnect_by_func (clock, release_after_paint, self);
  if (!self->derive_release_armed)
    return;
  self->derive_release_armed = FALSE;
  _planar_window_bench_mark ("the file's tracks painted: derive released");
  planar_profile_release_derive (self->profile);
}

/* Before the timeline's own handler: when every track of the file is in
 * place, the frame the timeline queues now draws them all; once it is
 * painted the derived lines may take the cores. A window without a frame
 * clock draws nothing: it lets the load go at once. */
static void
hold_tracks_changed (PlanarWindow  *self,
                     PlanarProfile *profile)
{
  GdkFrameClock *clock;

  if (profile != self->profile || self->derive_release_armed || !file_tracks_ready (profile))
    return;
  g_signal_handlers_disconnect_by_func (profile, hold_tracks_changed, self);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  if (clock == NULL)
    {
      planar_profile_release_derive (profile);
      return;
    }
  self->derive_release_armed = TRUE;
  g_signal_connect_object (clock, "after-paint", G_CALLBACK (release_after_paint), self, 0);
}

void
_planar_window_hold_derive (PlanarWindow *self,
                            gboolean      held)
{
  self->derive_release_armed = FALSE;
  if (!held)
    planar_profile_hold_derive (self->profile, DERIVE_HOLD_MAX_MS);
  g_signal_connect_object (self->profile, "tracks-changed", G_CALLBACK (hold_tracks_changed), self,
                           G_CONNECT_SWAPPED);
  /* An early load's tracks may all be in place already. */
  hold_tracks_changed (self, self->profile);
}
