/* planar-bench-frame.c: how long the timeline takes to produce a frame.
 *
 * Profiles of 1e6 and 1e7 events written by planar-gen are shown in a
 * 1600x1000 timeline at windows of the whole span times 1, 1e-2, 1e-4 and
 * 1e-6 around its middle. A frame is the widget's snapshot (the tracks
 * layer rebuilt: the view changed) rendered by the cairo renderer into a
 * texture. The level of detail should make a frame's cost follow the
 * pixels, not the events: the table ends with the ratio of the 1e7 frame
 * to the 1e6 one at each zoom.
 *
 * With --find PATTERN, the profiles are searched for PATTERN (a regular
 * expression: "." matches every event) and every hit is highlighted, as
 * the find bar does: the frames then include the hits' marks, and the
 * time to lay the hits out for the timeline is printed.
 *
 * Prints figures; asserts nothing. Needs a display: run it under xvfb-run,
 *   xvfb-run -a -s '-screen 0 1920x1200x24' build/bench/planar-bench-frame [--events-small N] [--events-large N] [--runs N]
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <stdlib.h>

#include "planar-timeline-private.h"

#ifndef PLANAR_GEN_PATH
#define PLANAR_GEN_PATH "planar-gen"
#endif

#define WIDTH  1600
#define HEIGHT 1000

static const double zooms[] = { 1, 1e-2, 1e-4, 1e-6 };
/* --zoom: measure only this index of zooms[] (for profiling), or -1. */
static int only_zoom = -1;
/* --find: the pattern whose hits are highlighted, or NULL. */
static char *find_pattern = NULL;

typedef struct
{
  /* Milliseconds, medians over the runs. */
  double snapshot_ms;
  double frame_ms;
  guint  nodes;
} Figures;

/* With --find: the hits, and the time to index them. */
typedef struct
{
  guint64 n_hits;
  double  index_ms;
} FindFigures;

static char *
generate (const char *dir,
          guint64     events)
{
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, events);
  g_autofree char *name = g_strdup_printf ("gen-%s.xplane.pb", count);
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  const char *gen = g_getenv ("PLANAR_GEN") != NULL ? g_getenv ("PLANAR_GEN") : PLANAR_GEN_PATH;
  int status = 0;

  g_spawn_sync (NULL, (char *[]) { (char *) gen, (char *) "--events", count, (char *) "--seed", (char *) "1",
                                   (char *) "-o", path, NULL },
                NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  if (error != NULL || !g_spawn_check_wait_status (status, NULL))
    g_error ("planar-gen failed: %s", error != NULL ? error->message : "exit status");
  return path;
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

/* Median frame at each zoom of the profile at @path. */
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
  GtkWidget *window;
  PlanarTimeline *timeline;
  gint64 first, last, t0;
  g_autofree double *snapshot_ms = g_new (double, runs);
  g_autofree double *frame_ms = g_new (double, runs);

  t0 = g_get_monotonic_time ();
  if (!planar_profile_load (profile, NULL, &error))
    g_error ("%s", error->message);
  *load_s = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
  planar_profile_get_span (profile, &first, &last);

  if (!gsk_renderer_realize (renderer, NULL, &error))
    g_error ("%s", error->message);

  window = gtk_window_new ();
  gtk_window_set_decorated (GTK_WINDOW (window), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, HEIGHT);
  timeline = PLANAR_TIMELINE (planar_timeline_new ());
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (timeline));
  planar_timeline_set_profile (timeline, profile);
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
  gtk_window_present (GTK_WINDOW (window));
  wait_until_allocated (GTK_WIDGET (timeline));

  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      gint64 span = last - first;
      gint64 width = MAX ((gint64) ((double) span * zooms[z]), 1);
      gint64 middle = first + span / 2;

      if (only_zoom >= 0 && (guint) only_zoom != z)
        continue;
      planar_timeline_set_view (timeline, middle - width / 2, middle - width / 2 + width);
      /* One frame to warm the caches (glyphs, colors) that every later
       * frame reuses, as on screen. */
      for (guint r = 0; r < runs + 1; r++)
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
          if (r > 0)
            {
              snapshot_ms[r - 1] = (double) (b - a) / 1000.0;
              frame_ms[r - 1] = (double) (c - a) / 1000.0;
            }
          else
            figures[z].nodes = count_nodes (node);
          g_object_unref (texture);
          gsk_render_node_unref (node);
        }
      figures[z].snapshot_ms = median (snapshot_ms, runs);
      figures[z].frame_ms = median (frame_ms, runs);
    }

  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  gsk_renderer_unrealize (renderer);
}

int
main (int   argc,
      char *argv[])
{
  gint64 small = 1000000, large = 10000000;
  int runs = 9;
  GOptionEntry entries[] = {
    { "events-small", 0, 0, G_OPTION_ARG_INT64, &small, "Events in the smaller profile (1e6)", "N" },
    { "events-large", 0, 0, G_OPTION_ARG_INT64, &large, "Events in the larger profile (1e7)", "N" },
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "Frames measured per zoom (9)", "N" },
    { "zoom", 0, 0, G_OPTION_ARG_INT, &only_zoom, "Measure only the zoom of this index (0 to 3), to profile it", "I" },
    { "find", 0, 0, G_OPTION_ARG_STRING, &find_pattern, "Highlight the hits of this regular expression", "PATTERN" },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- time the timeline's frames");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *small_path = NULL;
  g_autofree char *large_path = NULL;
  Figures small_figures[G_N_ELEMENTS (zooms)] = { 0 };
  Figures large_figures[G_N_ELEMENTS (zooms)] = { 0 };
  double small_load, large_load;
  FindFigures small_find = { 0 }, large_find = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (runs < 1 || small < 1 || large < 1)
    {
      g_printerr ("runs and event counts must be positive\n");
      return 2;
    }
  gtk_init ();

  dir = g_dir_make_tmp ("planar-bench-frame-XXXXXX", &error);
  if (dir == NULL)
    g_error ("%s", error->message);
  small_path = generate (dir, (guint64) small);
  large_path = generate (dir, (guint64) large);

  measure (small_path, (guint) runs, small_figures, &small_load, &small_find);
  measure (large_path, (guint) runs, large_figures, &large_load, &large_find);

  g_print ("Frame of a %dx%d timeline (snapshot + cairo render), median of %d; profiles from planar-gen --seed 1\n"
           "(loaded in %.2f s and %.2f s).\n\n",
           WIDTH, HEIGHT, runs, small_load, large_load);
  if (find_pattern != NULL)
    g_print ("Every hit of the regular expression \"%s\" highlighted: %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT
             " hits, laid out for the timeline in %.0f ms and %.0f ms.\n\n",
             find_pattern, small_find.n_hits, large_find.n_hits, small_find.index_ms, large_find.index_ms);
  g_print ("| window (x span) | %" G_GINT64_FORMAT " events: snapshot / frame | nodes "
           "| %" G_GINT64_FORMAT " events: snapshot / frame | nodes | frame ratio |\n", small, large);
  g_print ("|---|---|---|---|---|---|\n");
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    g_print ("| %g | %.2f / %.2f ms | %u | %.2f / %.2f ms | %u | %.2fx |\n",
             zooms[z],
             small_figures[z].snapshot_ms, small_figures[z].frame_ms, small_figures[z].nodes,
             large_figures[z].snapshot_ms, large_figures[z].frame_ms, large_figures[z].nodes,
             large_figures[z].frame_ms / small_figures[z].frame_ms);

  g_remove (small_path);
  g_remove (large_path);
  g_rmdir (dir);
  g_free (find_pattern);
  return 0;
}
