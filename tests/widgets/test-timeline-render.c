/* test-timeline-render.c: what the timeline draws. Frames are rendered
 * offscreen through the widget's own snapshot and the cairo renderer, then
 * read pixel by pixel; a few are saved as PNG screenshots in
 * $PLANAR_TEST_OUTPUT for people to look at.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planar-colors.h"
#include "planar-counters.h"
#include "planar-flows.h"
#include "planar-span-index.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"
#include "planar-timeline-private.h"
#include "planar-track-renderer-private.h"

#define SAMPLE_GPU "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb"

#define WIDTH  1600
#define HEIGHT 1000

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

static char *
sample_path (const char *name)
{
  return planar_test_sample_path (name);
}

static PlanarProfile *
load_profile (const char *path)
{
  const char *paths[] = { path, NULL };
  g_autoptr(GError) error = NULL;
  PlanarProfile *profile = planar_profile_new (paths);

  planar_profile_load (profile, NULL, &error);
  g_assert_no_error (error);
  return profile;
}

static const char *
output_dir (void)
{
  const char *dir = g_getenv ("PLANAR_TEST_OUTPUT");

  if (dir == NULL)
    dir = g_get_tmp_dir ();
  g_mkdir_with_parents (dir, 0755);
  return dir;
}

static void
wait_until_drawn (GtkWidget *widget,
                  int        width)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!gtk_widget_get_mapped (widget) || gtk_widget_get_width (widget) < width)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static gboolean
count_frame (GtkWidget     *widget,
             GdkFrameClock *clock,
             gpointer       data)
{
  (*(int *) data)++;
  return G_SOURCE_CONTINUE;
}

/* Lets the frame clock paint the window twice, so that what the widget
 * queued is drawn. */
static void
wait_for_frames (GtkWidget *widget)
{
  int frames = 0;
  guint id = gtk_widget_add_tick_callback (widget, count_frame, &frames, NULL);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (frames < 2)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  gtk_widget_remove_tick_callback (widget, id);
}

typedef struct
{
  GtkWidget      *window;
  PlanarTimeline *timeline;
} Fixture;

/* A window with the timeline alone, @width wide (the label column
 * included). */
static void
fixture_init (Fixture       *fixture,
              PlanarProfile *profile,
              int            width,
              int            height)
{
  fixture->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (fixture->window), width, height);
  gtk_window_set_decorated (GTK_WINDOW (fixture->window), FALSE);
  fixture->timeline = PLANAR_TIMELINE (planar_timeline_new ());
  g_object_ref (fixture->timeline);
  gtk_window_set_child (GTK_WINDOW (fixture->window), GTK_WIDGET (fixture->timeline));
  planar_timeline_set_profile (fixture->timeline, profile);
  gtk_window_present (GTK_WINDOW (fixture->window));
  wait_until_drawn (GTK_WIDGET (fixture->timeline), width);
}

static void
fixture_clear (Fixture *fixture)
{
  gtk_window_destroy (GTK_WINDOW (fixture->window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (fixture->timeline);
}

/* The widget's snapshot, rendered by a cairo GskRenderer at the widget's
 * scale (device pixels). */
static GdkTexture *
render (GtkWidget *widget)
{
  int scale = gtk_widget_get_scale_factor (widget);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GskRenderer) renderer = gsk_cairo_renderer_new ();
  g_autoptr(GError) error = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  GdkTexture *texture;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  wait_for_frames (widget);
  gsk_renderer_realize (renderer, NULL, &error);
  g_assert_no_error (error);
  gtk_snapshot_scale (snapshot, scale, scale);
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width * scale, height * scale));
  gsk_render_node_unref (node);
  gsk_renderer_unrealize (renderer);
  return texture;
}

typedef struct
{
  guchar *data;
  int     width;
  int     height;
  gsize   stride;
} Pixels;

static void
pixels_init (Pixels     *pixels,
             GdkTexture *texture)
{
  pixels->width = gdk_texture_get_width (texture);
  pixels->height = gdk_texture_get_height (texture);
  pixels->stride = (gsize) pixels->width * 4;
  pixels->data = g_malloc (pixels->stride * pixels->height);
  gdk_texture_download (texture, pixels->data, pixels->stride);
}

/* The color at (@x, @y), 0-255 per channel (gdk_texture_download writes
 * premultiplied BGRA on little endian; the frame is opaque). */
static void
pixels_get (const Pixels *pixels,
            int           x,
            int           y,
            int          *r,
            int          *g,
            int          *b)
{
  const guchar *p = pixels->data + (gsize) y * pixels->stride + (gsize) x * 4;

  *b = p[0];
  *g = p[1];
  *r = p[2];
}

static gboolean
color_matches (const Pixels  *pixels,
               int            x,
               int            y,
               const GdkRGBA *expected)
{
  int r, g, b;

  pixels_get (pixels, x, y, &r, &g, &b);
  return abs (r - (int) lround (expected->red * 255)) <= 2 &&
         abs (g - (int) lround (expected->green * 255)) <= 2 &&
         abs (b - (int) lround (expected->blue * 255)) <= 2;
}

static void
save_screenshot (GtkWidget  *widget,
                 const char *name)
{
  g_autoptr(GdkTexture) texture = render (widget);
  g_autofree char *path = g_build_filename (output_dir (), name, NULL);

  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}

/* The pixels of a frame of @widget. */
static void
render_pixels (GtkWidget *widget,
               Pixels    *pixels)
{
  g_autoptr(GdkTexture) texture = render (widget);

  pixels_init (pixels, texture);
}

static void
pixels_clear (Pixels *pixels)
{
  g_clear_pointer (&pixels->data, g_free);
}

/* The background of the tracks, as the light theme draws it. */
static gboolean
is_background (const Pixels *pixels,
               int           x,
               int           y)
{
  int r, g, b;

  pixels_get (pixels, x, y, &r, &g, &b);
  return r >= 248 && g >= 248 && b >= 248;
}

static gboolean
inside_tool_selector (Fixture *f,
                      int      x,
                      int      y)
{
  graphene_rect_t bounds;

  if (!gtk_widget_compute_bounds (f->timeline->tool_selector, GTK_WIDGET (f->timeline), &bounds))
    return FALSE;
  return x >= bounds.origin.x - 2 && x <= bounds.origin.x + bounds.size.width + 2 &&
         y >= bounds.origin.y - 2 && y <= bounds.origin.y + bounds.size.height + 2;
}

static const PlanarPlane *
find_plane (PlanarProfile *profile,
            const char    *name,
            guint         *index)
{
  PlanarTrace *trace = planar_profile_get_trace (profile, 0);

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    if (strcmp (planar_trace_get_plane (trace, p)->name, name) == 0)
      {
        *index = p;
        return planar_trace_get_plane (trace, p);
      }
  g_error ("no plane %s", name);
}

static guint
find_track (const PlanarPlane *plane,
            const char        *name)
{
  for (guint t = 0; t < plane->n_tracks; t++)
    if (strcmp (plane->tracks[t].name, name) == 0)
      return t;
  g_error ("no track %s", name);
}

static PlanarProfile *sample;

/* The GPU 4 step of the sample, the busiest stretch. */
static const PlanarEvent *
gpu4_step (void)
{
  guint p;
  const PlanarPlane *plane = find_plane (sample, "/device:GPU:4", &p);

  return &plane->tracks[find_track (plane, "Steps")].events[0];
}

/* ------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------ */

/* Known events are drawn at their place in the color of their name. */
static void
test_event_colors (void)
{
  static const char * const tracks[] = { "TensorFlow Name Scope", "TensorFlow Ops", "Stream #134(Compute)", "Steps" };
  const PlanarEvent *step = gpu4_step ();
  guint p;
  const PlanarPlane *plane = find_plane (sample, "/device:GPU:4", &p);
  guint checked = 0;
  Fixture f;
  Pixels pixels;

  fixture_init (&f, sample, WIDTH, HEIGHT);
  planar_timeline_set_view (f.timeline, step->start_ps, step->start_ps + step->duration_ps / 8);
  render_pixels (GTK_WIDGET (f.timeline), &pixels);

  for (guint k = 0; k < G_N_ELEMENTS (tracks); k++)
    {
      guint t = find_track (plane, tracks[k]);
      const PlanarTrack *track = &plane->tracks[t];

      for (guint32 i = 0; i < track->n_events; i++)
        {
          const PlanarEvent *ev = &track->events[i];
          double x0 = _planar_timeline_x_for_time (f.timeline, ev->start_ps);
          double x1 = _planar_timeline_x_for_time (f.timeline, ev->start_ps + ev->duration_ps);
          double y;
          GdkRGBA expected;
          int px, py;

          /* Events at least 8 px wide, whose left end is in view. */
          if (x0 < PLANAR_TIMELINE_LABEL_WIDTH || x0 > WIDTH - 10 || x1 - x0 < 8)
            continue;
          g_assert_true (_planar_timeline_get_track_y (f.timeline, 0, p, t, ev->depth, &y));
          if (y < PLANAR_TIMELINE_AXIS_HEIGHT || y + PLANAR_TIMELINE_EVENT_HEIGHT > HEIGHT)
            continue;
          /* Left of the label, whose text starts 4 px in. */
          px = (int) ceil (x0) + 1;
          py = (int) y + 2;
          if (inside_tool_selector (&f, px, py))
            continue;
          planar_color_for_name (planar_plane_get_event_name (plane, ev, FALSE), &expected);
          if (!color_matches (&pixels, px, py, &expected))
            {
              int r, g, b;

              pixels_get (&pixels, px, py, &r, &g, &b);
              g_error ("%s event %u (%s) at (%d, %d) is %d,%d,%d, not %.0f,%.0f,%.0f", tracks[k], i,
                       planar_plane_get_event_name (plane, ev, FALSE), px, py, r, g, b,
                       expected.red * 255, expected.green * 255, expected.blue * 255);
            }
          checked++;
        }
    }
  g_test_message ("%u events checked", checked);
  g_assert_cmpuint (checked, >=, 100);

  /* Between two events of a stream is the background. */
  pixels_clear (&pixels);
  planar_timeline_set_view (f.timeline, step->start_ps + step->duration_ps / 3,
                            step->start_ps + step->duration_ps / 3 + step->duration_ps / 40);
  render_pixels (GTK_WIDGET (f.timeline), &pixels);
  {
    const PlanarTrack *compute = &plane->tracks[find_track (plane, "Stream #134(Compute)")];
    guint gaps = 0;

    for (guint32 i = 0; i + 1 < compute->n_events && gaps < 10; i++)
      {
        double end = _planar_timeline_x_for_time (f.timeline, compute->events[i].start_ps + compute->events[i].duration_ps);
        double next = _planar_timeline_x_for_time (f.timeline, compute->events[i + 1].start_ps);
        double y;

        if (end < PLANAR_TIMELINE_LABEL_WIDTH || next > WIDTH - 200 || next - end < 4)
          continue;
        g_assert_true (_planar_timeline_get_track_y (f.timeline, 0, p, find_track (plane, "Stream #134(Compute)"), 0, &y));
        g_assert_true (is_background (&pixels, (int) ((end + next) / 2), (int) y + 8));
        gaps++;
      }
    g_assert_cmpuint (gaps, >=, 3);
  }

  pixels_clear (&pixels);
  fixture_clear (&f);
}

/* At any zoom, every event leaves a mark where it starts: the level of
 * detail folds events, it never drops them. */
static void
test_lod_coverage (void)
{
  static const char * const tracks[] = { "Stream #134(Compute)", "TensorFlow Ops", "Stream #135(MemcpyH2D)" };
  const PlanarEvent *step = gpu4_step ();
  guint p;
  const PlanarPlane *plane = find_plane (sample, "/device:GPU:4", &p);
  gint64 first, last;
  Fixture f;

  planar_profile_get_span (sample, &first, &last);
  fixture_init (&f, sample, WIDTH, HEIGHT);
  for (guint zoom = 0; zoom < 3; zoom++)
    {
      Pixels pixels;
      guint checked = 0;

      if (zoom == 0)
        planar_timeline_set_view (f.timeline, first, last);
      else if (zoom == 1)
        planar_timeline_set_view (f.timeline, step->start_ps, step->start_ps + step->duration_ps);
      else
        planar_timeline_set_view (f.timeline, step->start_ps, step->start_ps + step->duration_ps / 5);
      render_pixels (GTK_WIDGET (f.timeline), &pixels);

      for (guint k = 0; k < G_N_ELEMENTS (tracks); k++)
        {
          guint t = find_track (plane, tracks[k]);
          const PlanarTrack *track = &plane->tracks[t];
          double y;

          g_assert_true (_planar_timeline_get_track_y (f.timeline, 0, p, t, 0, &y));
          for (guint32 i = 0; i < track->n_events; i++)
            {
              const PlanarEvent *ev = &track->events[i];
              int x = (int) floor (_planar_timeline_x_for_time (f.timeline, ev->start_ps));

              if (ev->start_ps < planar_timeline_get_start_ps (f.timeline) ||
                  ev->start_ps >= planar_timeline_get_end_ps (f.timeline) || x >= WIDTH ||
                  inside_tool_selector (&f, x, (int) y + 8))
                continue;
              if (is_background (&pixels, x, (int) y + 8))
                g_error ("zoom %u: %s event %u at x %d left no mark", zoom, tracks[k], i, x);
              checked++;
            }
        }
      g_assert_cmpuint (checked, >, 0);
      pixels_clear (&pixels);
    }
  fixture_clear (&f);
}

/* Hover, selection and marks are an overlay: they do not rebuild the
 * tracks, while a new view does. */
static void
test_overlay_keeps_tracks (void)
{
  const PlanarEvent *step = gpu4_step ();
  g_autoptr(PlanarSelection) selection = NULL;
  PlanarEventRef ref;
  GskRenderNode *node;
  double y;
  guint p;
  const PlanarPlane *plane = find_plane (sample, "/device:GPU:4", &p);
  guint t = find_track (plane, "Stream #134(Compute)");
  Fixture f;
  Pixels pixels;

  fixture_init (&f, sample, WIDTH, HEIGHT);
  planar_timeline_set_view (f.timeline, step->start_ps, step->start_ps + step->duration_ps / 8);
  render_pixels (GTK_WIDGET (f.timeline), &pixels);
  pixels_clear (&pixels);
  node = f.timeline->tracks_node;
  g_assert_nonnull (node);

  g_assert_true (_planar_timeline_get_track_y (f.timeline, 0, p, t, 0, &y));
  g_assert_true (_planar_timeline_pick (f.timeline, PLANAR_TIMELINE_LABEL_WIDTH + 200, y + 8, &ref) ||
                 _planar_timeline_pick (f.timeline, PLANAR_TIMELINE_LABEL_WIDTH + 230, y + 8, &ref));
  selection = planar_selection_new_for_event (sample, &ref);
  planar_timeline_set_selection (f.timeline, selection);
  gtk_widget_activate_action (GTK_WIDGET (f.timeline), "timeline.mark", NULL);
  /* The pointer over another event. */
  {
    PlanarEventRef other;

    if (_planar_timeline_pick (f.timeline, PLANAR_TIMELINE_LABEL_WIDTH + 900, y + 8, &other) &&
        !planar_event_ref_equal (&other, &ref))
      {
        f.timeline->input->has_hover = TRUE;
        f.timeline->input->hover = other;
        f.timeline->input->hover_count = 1;
      }
  }
  render_pixels (GTK_WIDGET (f.timeline), &pixels);
  g_assert_true (f.timeline->tracks_node == node);
  {
    /* The selected event has the accent outline. */
    const PlanarEvent *ev = planar_event_ref_resolve (&ref, sample, NULL, NULL, NULL);
    int x = (int) floor (_planar_timeline_x_for_time (f.timeline, ev->start_ps));
    int r, g, b;

    pixels_get (&pixels, x, (int) y - 1, &r, &g, &b);
    g_assert_cmpint (abs (r - 53), <=, 30);
    g_assert_cmpint (abs (g - 132), <=, 30);
    g_assert_cmpint (abs (b - 228), <=, 30);
  }
  pixels_clear (&pixels);

  planar_timeline_set_view (f.timeline, step->start_ps, step->start_ps + step->duration_ps / 4);
  render_pixels (GTK_WIDGET (f.timeline), &pixels);
  g_assert_true (f.timeline->tracks_node != node);
  pixels_clear (&pixels);
  fixture_clear (&f);
}

static void
test_screenshots_sample (void)
{
  const PlanarEvent *step = gpu4_step ();
  gint64 d = step->duration_ps;
  guint p;
  const PlanarPlane *plane = find_plane (sample, "/device:GPU:4", &p);
  guint t = find_track (plane, "TensorFlow Name Scope");
  g_autoptr(PlanarSelection) selection = NULL;
  PlanarEventRef ref;
  double y;
  Fixture f;

  fixture_init (&f, sample, WIDTH, HEIGHT);
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-sample-all.png");

  planar_timeline_set_view (f.timeline, step->start_ps - d / 20, step->start_ps + d + d / 20);
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-sample-step.png");

  /* Zoomed in, with the grid, a selected event and its range marked, and
   * the pointer over another event. */
  planar_timeline_set_view (f.timeline, step->start_ps + d / 3, step->start_ps + d / 3 + d / 40);
  planar_timeline_set_show_grid (f.timeline, TRUE);
  g_assert_true (_planar_timeline_get_track_y (f.timeline, 0, p, t, 4, &y));
  if (_planar_timeline_pick (f.timeline, PLANAR_TIMELINE_LABEL_WIDTH + 400, y + 8, &ref))
    {
      selection = planar_selection_new_for_event (sample, &ref);
      planar_timeline_set_selection (f.timeline, selection);
      gtk_widget_activate_action (GTK_WIDGET (f.timeline), "timeline.mark", NULL);
    }
  if (_planar_timeline_pick (f.timeline, PLANAR_TIMELINE_LABEL_WIDTH + 700, y + 8 + PLANAR_TIMELINE_DEPTH_PITCH, &ref))
    {
      f.timeline->input->has_hover = TRUE;
      f.timeline->input->hover = ref;
      f.timeline->input->hover_count = 1;
      gtk_widget_queue_draw (GTK_WIDGET (f.timeline));
    }
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-sample-zoom.png");

  /* A box being dragged, and the timing tool's interval. */
  f.timeline->input->has_hover = FALSE;
  f.timeline->input->drag = DRAG_BOX;
  f.timeline->input->drag_x0 = PLANAR_TIMELINE_LABEL_WIDTH + 300;
  f.timeline->input->drag_y0 = y - 20;
  f.timeline->input->drag_x1 = PLANAR_TIMELINE_LABEL_WIDTH + 800;
  f.timeline->input->drag_y1 = y + 60;
  gtk_widget_queue_draw (GTK_WIDGET (f.timeline));
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-sample-box.png");
  f.timeline->input->drag = DRAG_NONE;

  fixture_clear (&f);
}

static char *
generate_profile (guint64 events)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("planar-timeline-XXXXXX", &error);
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, events);
  char *path;
  const char *gen = g_getenv ("PLANAR_GEN");
  int status = 0;

  g_assert_no_error (error);
  g_assert_nonnull (gen);
  path = g_build_filename (dir, "gen.xplane.pb", NULL);
  g_spawn_sync (NULL, (char *[]) { (char *) gen, (char *) "--events", count, (char *) "--seed", (char *) "1",
                                   (char *) "-o", path, NULL },
                NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return path;
}

static void
remove_profile (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_remove (path);
  g_rmdir (dir);
}

/* A synthetic profile with derived lines, counters and flows. */
static void
test_screenshots_generated (void)
{
  g_autofree char *path = generate_profile (200000);
  g_autoptr(PlanarProfile) profile = load_profile (path);
  guint p;
  const PlanarPlane *plane = find_plane (profile, "/device:GPU:0", &p);
  const PlanarTrack *steps = &plane->tracks[find_track (plane, "Steps")];
  const PlanarEvent *step = &steps->events[steps->n_events / 2];
  const PlanarTrack *compute = &plane->tracks[find_track (plane, "Stream #7(Compute)")];
  g_autoptr(PlanarSelection) selection = NULL;
  Fixture f;

  fixture_init (&f, profile, WIDTH, HEIGHT);
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-gen-all.png");

  /* The order in a GPU section: the counters, the file's streams, then
   * the lines derived from each stream (below the file's, so that they do
   * not push rows already shown when they arrive), then the others. */
  {
    static const char * const expected[] = {
      "Stream #7(Compute)", "Stream #13(Compute)", "Stream #14(MemcpyH2D)", "Stream #15(MemcpyD2H)",
      "XLA Modules - from #7", "XLA Ops - from #7", "XLA Modules - from #13", "XLA Ops - from #13",
      "Steps",
    };
    PlanarTimelineLayout *layout = f.timeline->layout;
    const PlanarTimelineSection *gpu0 = planar_timeline_layout_get_section (layout, 0);
    guint r = gpu0->row + 1, k = 0;

    g_assert_cmpstr (gpu0->title, ==, "GPU 0");
    /* g_format_size() puts a no-break space before the unit. */
    g_assert_true (g_str_has_prefix (gpu0->subtitle, "NVIDIA H100 80GB HBM3 · 132 SMs · 79.6"));
    g_assert_true (g_str_has_suffix (gpu0->subtitle, "GiB · host0"));
    g_assert_cmpint (planar_timeline_layout_get_row (layout, r)->kind, ==, PLANAR_TIMELINE_ROW_COUNTER);
    while (planar_timeline_layout_get_row (layout, r)->kind == PLANAR_TIMELINE_ROW_COUNTER)
      r++;
    for (; k < G_N_ELEMENTS (expected); k++, r++)
      {
        const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout, r);

        g_assert_cmpint (row->kind, ==, PLANAR_TIMELINE_ROW_TRACK);
        g_assert_cmpuint (row->plane, ==, p);
        g_assert_cmpstr (plane->tracks[row->track].name, ==, expected[k]);
      }
    g_assert_cmpint (planar_timeline_layout_get_row (layout, r)->kind, ==, PLANAR_TIMELINE_ROW_SECTION);
  }

  planar_timeline_set_view (f.timeline, step->start_ps, step->start_ps + step->duration_ps);
  planar_timeline_set_show_flows (f.timeline, TRUE);
  /* A kernel of the step, selected: its launch arrow is drawn. */
  for (guint32 i = 0; i < compute->n_events; i++)
    if (compute->events[i].start_ps > step->start_ps + step->duration_ps / 2)
      {
        PlanarEventRef ref = { p, 0, find_track (plane, "Stream #7(Compute)"), i };

        selection = planar_selection_new_for_event (profile, &ref);
        planar_timeline_set_selection (f.timeline, selection);
        break;
      }
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-gen-step-flows.png");

  /* The same in the dark style. */
  g_object_set (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", TRUE, NULL);
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-gen-step-dark.png");
  g_object_set (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", FALSE, NULL);

  fixture_clear (&f);
  g_clear_object (&profile);
  remove_profile (path);
}

/* Whether column @x of rows [@y0, @y1) has a pixel that is not the
 * background. */
static gboolean
marked_between (const Pixels *pixels,
                int           x,
                int           y0,
                int           y1)
{
  for (int y = y0; y < y1; y++)
    if (!is_background (pixels, x, y))
      return TRUE;
  return FALSE;
}

/* On a generated profile, whatever the sample has: at the whole span and
 * at a step, every event of a stream and of every depth of the nested
 * host thread leaves a mark where it starts, and so does every sample of
 * the counters in view (the tracks' and counters' jobs share the frame's
 * threads, a depth's rectangles drawn into one row and copied down). */
static void
test_coverage_generated (void)
{
  g_autofree char *path = generate_profile (100000);
  g_autoptr(PlanarProfile) profile = load_profile (path);
  PlanarTrace *trace = planar_profile_get_trace (profile, 0);
  const PlanarCounterSet *counters = planar_trace_get_counters (trace);
  guint gpu, host;
  const PlanarPlane *gpu_plane = find_plane (profile, "/device:GPU:0", &gpu);
  const PlanarPlane *host_plane = find_plane (profile, "/host:CPU", &host);
  const PlanarTrack *steps = &gpu_plane->tracks[find_track (gpu_plane, "Steps")];
  const PlanarEvent *step = &steps->events[steps->n_events / 2];
  struct { guint plane; guint track; } tracks[2];
  gint64 first, last;
  Fixture f;

  tracks[0].plane = gpu;
  tracks[0].track = find_track (gpu_plane, "Stream #7(Compute)");
  tracks[1].plane = host;
  tracks[1].track = G_MAXUINT;
  for (guint t = 0; t < host_plane->n_tracks; t++)
    if (host_plane->tracks[t].max_depth > 0)
      {
        tracks[1].track = t;
        break;
      }
  g_assert_cmpuint (tracks[1].track, !=, G_MAXUINT);

  planar_profile_get_span (profile, &first, &last);
  fixture_init (&f, profile, WIDTH, HEIGHT);
  for (guint zoom = 0; zoom < 2; zoom++)
    {
      PlanarTimelineLayout *layout = f.timeline->layout;
      gint64 t0, t1;
      guint checked = 0, counter_checked = 0;
      Pixels pixels;

      if (zoom == 0)
        planar_timeline_set_view (f.timeline, first, last);
      else
        planar_timeline_set_view (f.timeline, step->start_ps, step->start_ps + step->duration_ps);
      render_pixels (GTK_WIDGET (f.timeline), &pixels);
      t0 = planar_timeline_get_start_ps (f.timeline);
      t1 = planar_timeline_get_end_ps (f.timeline);

      for (guint k = 0; k < G_N_ELEMENTS (tracks); k++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, tracks[k].plane);
          const PlanarTrack *track = &plane->tracks[tracks[k].track];

          for (guint32 i = 0; i < track->n_events; i++)
            {
              const PlanarEvent *ev = &track->events[i];
              int x = (int) floor (_planar_timeline_x_for_time (f.timeline, ev->start_ps));
              double y;

              if (ev->start_ps < t0 || ev->start_ps >= t1 || x >= WIDTH ||
                  !_planar_timeline_get_track_y (f.timeline, 0, tracks[k].plane, tracks[k].track, ev->depth, &y) ||
                  y < PLANAR_TIMELINE_AXIS_HEIGHT || y + 16 >= HEIGHT || inside_tool_selector (&f, x, (int) y + 8))
                continue;
              if (is_background (&pixels, x, (int) y + 8))
                g_error ("zoom %u: %s event %u (depth %u) at x %d left no mark", zoom, track->name, i,
                         ev->depth, x);
              checked++;
            }
        }
      g_assert_cmpuint (checked, >, 0);

      for (guint r = 0; r < planar_timeline_layout_get_n_rows (layout); r++)
        {
          const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout, r);
          const PlanarCounterSeries *series;
          double y;

          if (row->kind != PLANAR_TIMELINE_ROW_COUNTER)
            continue;
          y = _planar_timeline_widget_y (f.timeline, row->y);
          if (y < PLANAR_TIMELINE_AXIS_HEIGHT || y + row->height >= HEIGHT)
            continue;
          series = planar_counter_set_get_series (counters, row->track);
          for (gsize i = 0; i < planar_counter_series_get_n_samples (series); i++)
            {
              gint64 t = planar_counter_series_get_time (series, i);
              int x = (int) floor (_planar_timeline_x_for_time (f.timeline, t));

              if (t < t0 || t >= t1 || x >= WIDTH || inside_tool_selector (&f, x, (int) y + row->height / 2))
                continue;
              if (!marked_between (&pixels, x, (int) y + 4, (int) (y + row->height - 3)))
                g_error ("zoom %u: sample %" G_GSIZE_FORMAT " of counter %s at x %d left no mark", zoom, i,
                         planar_counter_series_get_name (series), x);
              counter_checked++;
            }
        }
      g_assert_cmpuint (counter_checked, >, 0);
      pixels_clear (&pixels);
    }
  fixture_clear (&f);
  g_clear_object (&profile);
  remove_profile (path);
}

/* Whether rows [@y0, @y1) of @a and @b, from column @x0 on, are the same. */
static gboolean
same_rows (const Pixels *a,
           const Pixels *b,
           int           x0,
           int           y0,
           int           y1)
{
  for (int y = MAX (y0, 0); y < MIN (y1, a->height); y++)
    if (memcmp (a->data + (gsize) y * a->stride + (gsize) x0 * 4, b->data + (gsize) y * b->stride + (gsize) x0 * 4,
                (gsize) (a->width - x0) * 4) != 0)
      return FALSE;
  return TRUE;
}

/* The pixels of @ev's band (depth 0 at @y) over @width columns from its
 * start that differ from its color: its label's. */
static guint
label_pixels (const Pixels         *pixels,
              PlanarTimeline       *timeline,
              const PlanarEvent    *ev,
              double                y,
              int                   width)
{
  int x = (int) ceil (_planar_timeline_x_for_time (timeline, ev->start_ps)) + 8;
  guint shades = 0;
  int r0, g0, b0;

  pixels_get (pixels, x - 4, (int) y + 2, &r0, &g0, &b0);
  for (int dx = 0; dx < width; dx++)
    for (int dy = 2; dy < PLANAR_TIMELINE_EVENT_HEIGHT - 2; dy++)
      {
        int r, g, b;

        pixels_get (pixels, x + dx, (int) y + dy, &r, &g, &b);
        if (abs (r - r0) + abs (g - g0) + abs (b - b0) > 60)
          shades++;
      }
  return shades;
}

/* Once the settings just changed reach @f's timeline, whether the band of
 * depth 0 of track @t of plane @p, right of the names, differs from
 * @before's. */
static gboolean
band_redrawn (Fixture      *f,
              const Pixels *before,
              guint         p,
              guint         t)
{
  Pixels after;
  gboolean differs;
  double y;

  wait_for_frames (f->window);
  g_assert_true (_planar_timeline_get_track_y (f->timeline, 0, p, t, 0, &y));
  _planar_timeline_invalidate_tracks (f->timeline);
  render_pixels (GTK_WIDGET (f->timeline), &after);
  differs = !same_rows (before, &after, (int) f->timeline->label_width, (int) y,
                        (int) y + PLANAR_TIMELINE_EVENT_HEIGHT);
  pixels_clear (&after);
  return differs;
}

/* Event labels are kept from frame to frame: a frame drawn again from
 * them is the frame drawn the first time, and larger text or another font
 * is not drawn with the shapes kept for the old ones. */
static void
test_labels_kept (void)
{
  g_autofree char *path = generate_profile (100000);
  g_autoptr(PlanarProfile) profile = load_profile (path);
  int dpi;
  guint p;
  const PlanarPlane *plane = find_plane (profile, "/device:GPU:0", &p);
  guint t = find_track (plane, "XLA Modules - from #7");
  const PlanarTrack *modules = &plane->tracks[t];
  const PlanarEvent *module = &modules->events[modules->n_events / 2];
  Pixels first, again;
  g_autofree char *font = NULL;
  double y;
  Fixture f;

  g_object_get (gtk_settings_get_default (), "gtk-xft-dpi", &dpi, "gtk-font-name", &font, NULL);
  fixture_init (&f, profile, WIDTH, HEIGHT);
  /* The module and its neighbours, wide enough for their names. */
  planar_timeline_set_view (f.timeline, module->start_ps - module->duration_ps,
                            module->start_ps + 2 * module->duration_ps);
  _planar_timeline_invalidate_tracks (f.timeline);
  render_pixels (GTK_WIDGET (f.timeline), &first);
  _planar_timeline_invalidate_tracks (f.timeline);
  render_pixels (GTK_WIDGET (f.timeline), &again);
  g_assert_true (same_rows (&first, &again, 0, 0, first.height));

  /* The module's band holds a label. */
  g_assert_true (_planar_timeline_get_track_y (f.timeline, 0, p, t, 0, &y));
  g_assert_cmpuint (label_pixels (&first, f.timeline, module, y, 60), >, 10);

  /* Larger text, as a larger text scale in the desktop's settings makes. */
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", 144 * 1024, NULL);
  g_assert_true (band_redrawn (&f, &first, p, t));
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, NULL);

  /* Another font: the labels are drawn in it (they kept the font the
   * timeline was first drawn with). */
  g_object_set (gtk_settings_get_default (), "gtk-font-name", "Serif 16", NULL);
  g_assert_true (band_redrawn (&f, &first, p, t));
  g_object_set (gtk_settings_get_default (), "gtk-font-name", font, NULL);

  pixels_clear (&first);
  pixels_clear (&again);
  fixture_clear (&f);
  g_clear_object (&profile);
  remove_profile (path);
}

/* An event whose name is huge gets its label, ellipsized, and the labels
 * kept from frame to frame do not keep such names: a profile's names
 * cannot make them grow without bound. */
static void
test_long_names (void)
{
  g_autofree char *dir = g_dir_make_tmp ("planar-long-names-XXXXXX", NULL);
  g_autofree char *huge = g_strnfill (100000, 'x');
  XSpace *space;
  XPlane *xplane;
  XLine *line;
  g_autofree char *path = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  const PlanarPlane *plane;
  guint p;
  double y;
  Fixture f;

  planar_test_scratch_begin ();
  space = planar_test_space_new ();
  xplane = planar_test_space_add_plane (space, 1, "/host:CPU");
  line = planar_test_plane_add_line (xplane, 1, "worker", 1000);
  planar_test_plane_add_event_metadata (xplane, 1, huge, NULL);
  planar_test_plane_add_event_metadata (xplane, 2, "short", NULL);
  planar_test_line_add_event (line, 1, 0, 1000000);
  planar_test_line_add_event (line, 2, 2000000, 1000000);
  path = planar_test_write_space (space, dir, "host.xplane.pb");
  planar_test_scratch_end ();
  profile = load_profile (path);
  plane = find_plane (profile, "/host:CPU", &p);

  fixture_init (&f, profile, WIDTH, HEIGHT);
  planar_timeline_set_view (f.timeline, plane->tracks[0].start_ps, plane->tracks[0].end_ps);
  {
    Pixels pixels;

    _planar_timeline_invalidate_tracks (f.timeline);
    render_pixels (GTK_WIDGET (f.timeline), &pixels);
    g_assert_true (_planar_timeline_get_track_y (f.timeline, 0, p, 0, 0, &y));
    g_assert_cmpuint (label_pixels (&pixels, f.timeline, &plane->tracks[0].events[0], y, 200), >, 10);
    pixels_clear (&pixels);
  }
  g_assert_cmpuint (_planar_track_renderer_get_kept_bytes (f.timeline->renderer), <, 4096);

  fixture_clear (&f);
  g_clear_object (&profile);
  planar_test_remove_tree (dir);
}

/* Two events of one line where the second starts inside the first and
 * ends after it (a GPU's kernel launched before the one before it ends)
 * are drawn at one depth, the second over the first. The first's label
 * stopped only at its own end, over the second's (two names drawn over
 * each other, seen on an H100's JAX profile), and a click on what is seen
 * of the second picked the first. */
static void
test_overlap_at_one_depth (void)
{
  g_autofree char *dir = g_dir_make_tmp ("planar-overlap-XXXXXX", NULL);
  XSpace *space;
  XPlane *xplane;
  XLine *line;
  g_autofree char *path = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *track;
  const PlanarEvent *first, *second;
  PlanarEventRef ref;
  GdkRGBA color;
  Pixels pixels;
  double y, x_second, x_first_end, x_second_end;
  guint p, checked = 0;
  Fixture f;

  planar_test_scratch_begin ();
  space = planar_test_space_new ();
  xplane = planar_test_space_add_plane (space, 1, "/host:CPU");
  line = planar_test_plane_add_line (xplane, 1, "stream", 1000);
  planar_test_plane_add_event_metadata (xplane, 1,
                                        "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32_warpgroupsize2x1x1_"
                                        "execute_segment_k_off_kernel", NULL);
  /* A name without ink: whatever is drawn over its rectangle is the
   * first event's label. */
  planar_test_plane_add_event_metadata (xplane, 2, " ", NULL);
  planar_test_line_add_event (line, 1, 0, 1000000);
  planar_test_line_add_event (line, 2, 500000, 1000000);
  path = planar_test_write_space (space, dir, "host.xplane.pb");
  planar_test_scratch_end ();
  profile = load_profile (path);
  plane = find_plane (profile, "/host:CPU", &p);
  track = &plane->tracks[0];
  g_assert_cmpuint (track->n_events, ==, 2);
  first = &track->events[0];
  second = &track->events[1];
  g_assert_cmpuint (first->depth, ==, 0);
  g_assert_cmpuint (second->depth, ==, 0);

  fixture_init (&f, profile, WIDTH, HEIGHT);
  planar_timeline_set_view (f.timeline, first->start_ps, first->start_ps + 3000000);
  _planar_timeline_invalidate_tracks (f.timeline);
  render_pixels (GTK_WIDGET (f.timeline), &pixels);
  g_assert_true (_planar_timeline_get_track_y (f.timeline, 0, p, 0, 0, &y));
  x_second = _planar_timeline_x_for_time (f.timeline, second->start_ps);
  x_first_end = _planar_timeline_x_for_time (f.timeline, first->start_ps + first->duration_ps);
  x_second_end = _planar_timeline_x_for_time (f.timeline, second->start_ps + second->duration_ps);
  g_test_message ("first's label from %.0f, second from %.0f to %.0f", x_second, x_first_end, x_second_end);

  /* The first's label is there, left of the second. */
  g_assert_cmpuint (label_pixels (&pixels, f.timeline, first, y, (int) (x_second - _planar_timeline_x_for_time (f.timeline, first->start_ps)) - 16), >, 10);
  /* What is seen of the second is its color alone. */
  planar_color_for_name (planar_plane_get_event_name (plane, second, FALSE), &color);
  for (int x = (int) ceil (x_second) + 1; x < (int) floor (x_second_end) - 2; x++)
    for (int dy = 2; dy < PLANAR_TIMELINE_EVENT_HEIGHT - 2; dy++)
      {
        if (inside_tool_selector (&f, x, (int) y + dy))
          continue;
        if (!color_matches (&pixels, x, (int) y + dy, &color))
          g_error ("pixel (%d, %d) over the second event is not its color: the first's label", x, (int) y + dy);
        checked++;
      }
  g_assert_cmpuint (checked, >, 1000);
  pixels_clear (&pixels);
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-overlap-one-depth.png");

  /* A click where both are, on the second: the second. Left of it: the
   * first. */
  g_assert_true (_planar_timeline_pick (f.timeline, (x_second + x_first_end) / 2, y + 8, &ref));
  g_assert_cmpuint (ref.index, ==, 1);
  g_assert_true (_planar_timeline_pick (f.timeline, x_second - 20, y + 8, &ref));
  g_assert_cmpuint (ref.index, ==, 0);

  fixture_clear (&f);
  g_clear_object (&profile);
  planar_test_remove_tree (dir);
}

/* The tool palette floats in the right end of the header row under the
 * axis (a section's or host's, or the one pinned there once scrolled),
 * and hides no track. Over the top right of the tracks, it hid the end of
 * the first track, a GPU's stream in most profiles, and in a short
 * program's recording every kernel (they run last). */
static void
test_palette_clear_of_tracks (void)
{
  g_autofree char *dir = g_dir_make_tmp ("planar-palette-XXXXXX", NULL);
  XSpace *space;
  XPlane *xplane;
  XLine *line;
  g_autofree char *path = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  graphene_rect_t palette;
  guint n_tracks = 0;
  Fixture f;

  planar_test_scratch_begin ();
  space = planar_test_space_new ();
  xplane = planar_test_space_add_plane (space, 1, "/device:GPU:0");
  line = planar_test_plane_add_line (xplane, 7, "Stream #7(Compute)", 1000);
  planar_test_plane_add_event_metadata (xplane, 1, "saxpy", NULL);
  /* The kernels at the end, as a program's recording has them. */
  planar_test_line_add_event (line, 1, 9000000, 1000000);
  xplane = planar_test_space_add_plane (space, 2, "/host:CPU");
  line = planar_test_plane_add_line (xplane, 1, "saxpy", 1000);
  planar_test_plane_add_event_metadata (xplane, 1, "cuMemHostAlloc", NULL);
  planar_test_line_add_event (line, 1, 0, 9000000);
  path = planar_test_write_space (space, dir, "host.xplane.pb");
  planar_test_scratch_end ();
  profile = load_profile (path);

  fixture_init (&f, profile, 900, 500);
  wait_for_frames (f.window);
  g_assert_true (gtk_widget_compute_bounds (f.timeline->tool_selector, GTK_WIDGET (f.timeline), &palette));
  g_test_message ("palette at (%g, %g), %g x %g", palette.origin.x, palette.origin.y, palette.size.width,
                  palette.size.height);
  /* At the right, within the band of the top header row. */
  g_assert_cmpfloat (palette.origin.x + palette.size.width, >, 900 - 24);
  g_assert_cmpfloat (palette.origin.y, >=, PLANAR_TIMELINE_AXIS_HEIGHT);
  g_assert_cmpfloat (palette.origin.y + palette.size.height, <=, PLANAR_TIMELINE_AXIS_HEIGHT + PLANAR_TIMELINE_SECTION_HEIGHT);
  g_assert_cmpint (planar_timeline_layout_get_row (f.timeline->layout, 0)->kind, ==, PLANAR_TIMELINE_ROW_SECTION);
  /* No track's row meets it. */
  for (guint r = 0; r < planar_timeline_layout_get_n_rows (f.timeline->layout); r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (f.timeline->layout, r);
      double y = _planar_timeline_widget_y (f.timeline, row->y);

      if (row->kind == PLANAR_TIMELINE_ROW_SECTION || row->kind == PLANAR_TIMELINE_ROW_HOST)
        continue;
      n_tracks++;
      g_assert_true (y >= palette.origin.y + palette.size.height || y + row->height <= palette.origin.y);
    }
  g_assert_cmpuint (n_tracks, ==, 2);
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-palette.png");

  fixture_clear (&f);
  g_clear_object (&profile);
  planar_test_remove_tree (dir);
}

/* The rows [@y0, @y1) of the time axis's corner (left of the axis, over
 * the names) with ink in them: *@first and *@last. FALSE when none. */
static gboolean
corner_ink_rows (const Pixels *pixels,
                 int           x1,
                 int          *first,
                 int          *last)
{
  int r0, g0, b0;

  *first = -1;
  *last = -1;
  pixels_get (pixels, 2, 2, &r0, &g0, &b0);
  for (int y = 0; y < PLANAR_TIMELINE_AXIS_HEIGHT - 1; y++)
    for (int x = 4; x < x1; x++)
      {
        int r, g, b;

        pixels_get (pixels, x, y, &r, &g, &b);
        if (abs (r - r0) + abs (g - g0) + abs (b - b0) > 90)
          {
            if (*first < 0)
              *first = y;
            *last = y;
            break;
          }
      }
  return *first >= 0;
}

/* Deep in a profile, the corner's "WIDTH from BASE" is too long for the
 * names' column: it takes two lines, each quantity whole, where it was
 * cut short ("138.764 µs from 922.5 …", seen on an H100's JAX profile). */
static void
test_corner_label_two_lines (void)
{
  g_autofree char *dir = g_dir_make_tmp ("planar-corner-XXXXXX", NULL);
  XSpace *space;
  XPlane *xplane;
  XLine *line;
  g_autofree char *path = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  const PlanarPlane *plane;
  Pixels pixels;
  int first, last, short_first, short_last;
  guint p;
  Fixture f;

  planar_test_scratch_begin ();
  space = planar_test_space_new ();
  xplane = planar_test_space_add_plane (space, 1, "/host:CPU");
  line = planar_test_plane_add_line (xplane, 1, "python3", 1000);
  planar_test_plane_add_event_metadata (xplane, 1, "step", NULL);
  planar_test_line_add_event (line, 1, 0, G_GINT64_CONSTANT (2000000000000));
  planar_test_line_add_event (line, 1, G_GINT64_CONSTANT (922512345678), 1000000);
  path = planar_test_write_space (space, dir, "host.xplane.pb");
  planar_test_scratch_end ();
  profile = load_profile (path);
  plane = find_plane (profile, "/host:CPU", &p);

  fixture_init (&f, profile, 1000, 400);
  /* The whole profile: "2 s window", one line. */
  _planar_timeline_invalidate_tracks (f.timeline);
  render_pixels (GTK_WIDGET (f.timeline), &pixels);
  g_assert_true (corner_ink_rows (&pixels, (int) f.timeline->label_width - 4, &short_first, &short_last));
  pixels_clear (&pixels);

  /* 1.2 µs from 922.5123 ms. */
  planar_timeline_set_view (f.timeline, plane->tracks[0].events[1].start_ps - 100000,
                            plane->tracks[0].events[1].start_ps + 1134567);
  _planar_timeline_invalidate_tracks (f.timeline);
  render_pixels (GTK_WIDGET (f.timeline), &pixels);
  g_assert_true (corner_ink_rows (&pixels, (int) f.timeline->label_width - 4, &first, &last));
  g_test_message ("one line: rows %d to %d; the long label: rows %d to %d", short_first, short_last, first, last);
  g_assert_cmpint (last - first, >, (short_last - short_first) * 3 / 2);
  pixels_clear (&pixels);
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-corner-two-lines.png");

  fixture_clear (&f);
  g_clear_object (&profile);
  planar_test_remove_tree (dir);
}

/* On a HiDPI screen (run with GDK_SCALE=2) events are drawn at device
 * resolution: an edge is sharp, not smeared over two pixels. */
static void
test_hidpi (void)
{
  const PlanarEvent *step = gpu4_step ();
  guint p;
  const PlanarPlane *plane = find_plane (sample, "/device:GPU:4", &p);
  guint t = find_track (plane, "Stream #134(Compute)");
  const PlanarTrack *track = &plane->tracks[t];
  int scale;
  guint checked = 0;
  Fixture f;
  Pixels pixels;

  fixture_init (&f, sample, WIDTH / 2, HEIGHT / 2);
  scale = gtk_widget_get_scale_factor (GTK_WIDGET (f.timeline));
  g_test_message ("scale %d", scale);
  planar_timeline_set_view (f.timeline, step->start_ps + step->duration_ps / 3,
                            step->start_ps + step->duration_ps / 3 + step->duration_ps / 40);
  render_pixels (GTK_WIDGET (f.timeline), &pixels);
  g_assert_cmpint (pixels.width, ==, gtk_widget_get_width (GTK_WIDGET (f.timeline)) * scale);

  for (guint32 i = 0; i < track->n_events && checked < 10; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      double x0 = _planar_timeline_x_for_time (f.timeline, ev->start_ps);
      double x1 = _planar_timeline_x_for_time (f.timeline, ev->start_ps + ev->duration_ps);
      double y;
      GdkRGBA expected;
      int dx, dy;

      if (x0 < PLANAR_TIMELINE_LABEL_WIDTH + 4 || x1 > WIDTH / 2 - 4 || x1 - x0 < 6)
        continue;
      /* The previous event must end well before this one starts. */
      if (i > 0 && _planar_timeline_x_for_time (f.timeline, track->events[i - 1].start_ps + track->events[i - 1].duration_ps) > x0 - 3)
        continue;
      g_assert_true (_planar_timeline_get_track_y (f.timeline, 0, p, t, 0, &y));
      planar_color_for_name (planar_plane_get_event_name (plane, ev, FALSE), &expected);
      /* The first device pixel of the event is its color, the one before
       * it the background. */
      dx = (int) floor (x0 * scale - (PLANAR_TIMELINE_LABEL_WIDTH * scale)) + PLANAR_TIMELINE_LABEL_WIDTH * scale;
      dy = (int) (y * scale) + 2;
      if (!color_matches (&pixels, dx, dy, &expected))
        g_error ("event %u: device pixel %d is not the event's color", i, dx);
      g_assert_true (is_background (&pixels, dx - 1, dy));
      checked++;
    }
  g_assert_cmpuint (checked, ==, 10);
  pixels_clear (&pixels);
  if (scale > 1)
    save_screenshot (GTK_WIDGET (f.timeline), "timeline-hidpi.png");
  fixture_clear (&f);
}

static void
test_screenshot_empty (void)
{
  Fixture f;

  fixture_init (&f, NULL, 900, 400);
  save_screenshot (GTK_WIDGET (f.timeline), "timeline-no-profile.png");
  fixture_clear (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *path = NULL;
  int status;

  gtk_test_init (&argc, &argv, NULL);

  /* The cases on the GPU sample only skip in a clone without the samples. */
  if (planar_test_samples_dir () != NULL)
    {
      path = sample_path (SAMPLE_GPU);
      sample = load_profile (path);
    }
  planar_test_add_func_with_samples ("/timeline-render/event-colors", test_event_colors);
  planar_test_add_func_with_samples ("/timeline-render/lod-coverage", test_lod_coverage);
  planar_test_add_func_with_samples ("/timeline-render/overlay-keeps-tracks", test_overlay_keeps_tracks);
  planar_test_add_func_with_samples ("/timeline-render/screenshots/sample", test_screenshots_sample);
  g_test_add_func ("/timeline-render/screenshots/generated", test_screenshots_generated);
  g_test_add_func ("/timeline-render/screenshots/no-profile", test_screenshot_empty);
  g_test_add_func ("/timeline-render/coverage-generated", test_coverage_generated);
  g_test_add_func ("/timeline-render/labels-kept", test_labels_kept);
  g_test_add_func ("/timeline-render/long-names", test_long_names);
  g_test_add_func ("/timeline-render/overlap-at-one-depth", test_overlap_at_one_depth);
  g_test_add_func ("/timeline-render/palette-clear-of-tracks", test_palette_clear_of_tracks);
  g_test_add_func ("/timeline-render/corner-label-two-lines", test_corner_label_two_lines);
  planar_test_add_func_with_samples ("/timeline-render/hidpi", test_hidpi);

  status = g_test_run ();
  g_clear_object (&sample);
  return status;
}
