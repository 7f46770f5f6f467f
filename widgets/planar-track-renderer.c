/* planar-track-renderer.c
 *
 * A frame asks the span index for the rectangles of the visible window at
 * the resolution of a device pixel; the index folds runs of events too
 * narrow to tell apart into blocks, so the work follows the pixels, not the
 * events (Tracy's approach). Tracks are queried on several threads (the
 * index is read-only). The rectangles are filled into an image of the
 * tracks area, whose cost is bounded by its pixels, and the image becomes
 * a single render node. Labels are text nodes drawn with one reused
 * PangoLayout.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-track-renderer-private.h"

#include "planar-colors.h"
#include "planar-span-index.h"
#include "planar-timeline-layout.h"

#include <math.h>
#include <string.h>

/* The narrowest event, in logical pixels, that gets a label: room for
 * three or four characters, less would be only an ellipsis. */
#define LABEL_MIN_WIDTH 40.0f
#define LABEL_PADDING   4.0f

/* One track or counter of a frame: what to draw, and, for a track, the
 * spans the index gave for it, kept for the labels. */
typedef struct
{
  /* A counter's series, or NULL for a track. */
  const PlanarCounterSeries *series;
  /* A counter's columns (one per device pixel), its range at the bottom
   * and top of its band, and its colors as pixels. */
  GArray            *columns;
  double             lo;
  double             hi;
  guint32            line;
  guint32            area;
  /* What the job is guessed to cost, for the order they are taken in. */
  double             cost;
  /* A track's depth band, one row of device pixels wide (@row_len), drawn
   * here before it is copied to each of the band's rows of the image. */
  guint32           *row;
  gsize              row_len;
  /* The spans (indices in @spans) of single events wide enough for a
   * label, found while the rectangles are drawn. */
  GArray            *labels;
  const PlanarPlane *plane;
  const PlanarTrack *track;
  const guint8      *colors;
  /* Entries in @colors: the plane's metadata when the table was made (a
   * plane may gain derived metadata while it loads). */
  guint              n_colors;
  float              y;
  guint              min_depth;
  guint              max_depth;
  float              clip_top;
  float              clip_bottom;
  GArray            *spans;
} Job;

/* A palette index per metadata entry of a plane. Tables that a plane has
 * outgrown stay (in @older) until the renderer is reset: jobs of the frame
 * being drawn may still read them. */
typedef struct
{
  guint   n;
  guint8 *colors;
  GSList *older;
} ColorTable;

static void
color_table_free (gpointer data)
{
  ColorTable *table = data;

  g_free (table->colors);
  g_slist_free_full (table->older, g_free);
  g_free (table);
}

struct _PlanarTrackRenderer
{
  PangoLayout *layout;
  int          label_height;
  /* Labels kept from frame to frame, so that a label shown again costs no
   * shaping: each name's natural width (pango units), and the text nodes
   * of the labels drawn (by "width:shade:name", the width -1 where the
   * name fits), both for the layout's context as of @labels_serial. */
  GHashTable  *label_widths;
  GHashTable  *label_nodes;
  guint        labels_serial;
  /* PlanarPlane * -> ColorTable. */
  GHashTable  *plane_colors;
  /* The palette as premultiplied B8G8R8A8 pixels. */
  guint32      pixels[PLANAR_N_EVENT_COLORS];

  /* The frame's image: @width x @height device pixels of premultiplied
   * native-endian ARGB (rows @stride pixels apart), covering the logical
   * rectangle @bounds. */
  cairo_surface_t *surface;
  guint32     *image;
  int          width;
  int          height;
  int          stride;
  graphene_rect_t bounds;
  int          scale;
  PlanarTrackView view;
  /* Leave out single events whose metadata is internal. */
  gboolean     hide_internal;

  /* The frame's tracks and counters (Job), the first @n_jobs of them in
   * use; their arrays are reused from frame to frame. @order: the jobs'
   * indices, the costliest first, the order the threads take them in. */
  GArray      *jobs;
  guint        n_jobs;
  guint       *order;
  gint         next_job;
  /* Threads that draw tracks beside the main one, and how many of them
   * are still at it. */
  GThreadPool *pool;
  guint        n_helpers;
  guint        helpers_running;
  GMutex       lock;
  GCond        cond;
};

/* The key of a frame's image on the recording that paints it. */
static const cairo_user_data_key_t image_key;

static void helper_thread (gpointer data,
                           gpointer user_data);

gint64
planar_track_view_ps_per_column (const PlanarTrackView *view)
{
  double ps = (double) (view->t1_ps - view->t0_ps) / ((double) MAX (view->width, 1.0f) * MAX (view->scale, 1));

  return MAX ((gint64) ps, 1);
}

PlanarTrackRenderer *
planar_track_renderer_new (void)
{
  PlanarTrackRenderer *self = g_new0 (PlanarTrackRenderer, 1);

  self->jobs = g_array_new (FALSE, TRUE, sizeof (Job));
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  /* The span index may be queried from any number of threads. Tracks are
   * shared out to the processors (one is this thread), so that a frame of
   * a zoomed-out profile, where the index does the most work, takes a
   * fraction of the time. */
  self->n_helpers = MIN (g_get_num_processors (), 8) - 1;
  if (self->n_helpers > 0)
    self->pool = g_thread_pool_new (helper_thread, NULL, (int) self->n_helpers, FALSE, NULL);
  self->plane_colors = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, color_table_free);
  self->label_widths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->label_nodes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) gsk_render_node_unref);
  for (guint i = 0; i < PLANAR_N_EVENT_COLORS; i++)
    {
      const GdkRGBA *c = planar_color_get_event_color (i);

      /* Opaque, so premultiplying changes nothing. */
      self->pixels[i] = 0xff000000u |
                        (guint32) lroundf (c->red * 255) << 16 |
                        (guint32) lroundf (c->green * 255) << 8 |
                        (guint32) lroundf (c->blue * 255);
    }
  return self;
}

void
planar_track_renderer_free (PlanarTrackRenderer *self)
{
  if (self == NULL)
    return;
  if (self->pool != NULL)
    g_thread_pool_free (self->pool, FALSE, TRUE);
  for (guint j = 0; j < self->jobs->len; j++)
    {
      g_array_unref (g_array_index (self->jobs, Job, j).spans);
      g_array_unref (g_array_index (self->jobs, Job, j).columns);
      g_free (g_array_index (self->jobs, Job, j).row);
      g_array_unref (g_array_index (self->jobs, Job, j).labels);
    }
  g_array_unref (self->jobs);
  g_free (self->order);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_clear_pointer (&self->surface, cairo_surface_destroy);
  g_clear_object (&self->layout);
  g_hash_table_unref (self->plane_colors);
  g_hash_table_unref (self->label_widths);
  g_hash_table_unref (self->label_nodes);
  g_free (self);
}

void
planar_track_renderer_reset (PlanarTrackRenderer *self)
{
  g_return_if_fail (self != NULL);
  g_hash_table_remove_all (self->plane_colors);
  g_hash_table_remove_all (self->label_widths);
  g_hash_table_remove_all (self->label_nodes);
}

void
planar_track_renderer_set_layout (PlanarTrackRenderer *self,
                                  PangoLayout         *layout)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (PANGO_IS_LAYOUT (layout));

  if (g_set_object (&self->layout, layout))
    {
      g_hash_table_remove_all (self->label_widths);
      g_hash_table_remove_all (self->label_nodes);
      self->labels_serial = pango_context_get_serial (pango_layout_get_context (layout));
      pango_layout_set_text (layout, "Xg", -1);
      pango_layout_get_pixel_size (layout, NULL, &self->label_height);
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
      pango_layout_set_single_paragraph_mode (layout, TRUE);
    }
}

static const guint8 *
plane_color_table (PlanarTrackRenderer *self,
                   const PlanarPlane   *plane,
                   guint               *n_colors)
{
  ColorTable *table = g_hash_table_lookup (self->plane_colors, plane);
  guint n = __atomic_load_n (&plane->n_metadata, __ATOMIC_ACQUIRE);
  /* Read after the count: the loader stores a grown array before its
   * count. */
  const PlanarEventMetadata *metadata = plane->metadata;

  if (table == NULL)
    {
      table = g_new0 (ColorTable, 1);
      g_hash_table_insert (self->plane_colors, (gpointer) plane, table);
    }
  if (table->colors == NULL || table->n < n)
    {
      /* One hash per event name and plane, once (and again for names a
       * loading plane gains): a frame then looks colors up by index. */
      guint8 *colors = g_new (guint8, MAX (n, 1));

      for (guint m = 0; m < n; m++)
        colors[m] = (guint8) planar_color_index_for_name (metadata[m].name);
      if (table->colors != NULL)
        table->older = g_slist_prepend (table->older, table->colors);
      table->colors = colors;
      table->n = n;
    }
  *n_colors = table->n;
  return table->colors;
}

void
planar_track_renderer_begin (PlanarTrackRenderer   *self,
                             const PlanarTrackView *view,
                             float                  top,
                             float                  height)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (view != NULL);

  g_clear_pointer (&self->surface, cairo_surface_destroy);
  self->view = *view;
  self->n_jobs = 0;
  self->scale = MAX (view->scale, 1);
  self->width = MAX ((int) ceilf (view->width * self->scale), 1);
  self->height = MAX ((int) ceilf (height * self->scale), 1);
  graphene_rect_init (&self->bounds, view->x, top,
                      (float) self->width / self->scale, (float) self->height / self->scale);
  /* One image per frame, cleared by cairo; the frame's render node keeps
   * it. */
  self->surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, self->width, self->height);
  cairo_surface_set_device_scale (self->surface, self->scale, self->scale);
  self->image = (guint32 *) (gpointer) cairo_image_surface_get_data (self->surface);
  self->stride = cairo_image_surface_get_stride (self->surface) / (int) sizeof (guint32);
}

void
planar_track_renderer_end (PlanarTrackRenderer *self,
                           GtkSnapshot         *snapshot)
{
  cairo_t *cr;

  g_return_if_fail (self != NULL);
  g_return_if_fail (self->surface != NULL);

  /* A cairo node painting the image, rather than a texture node: GTK 4.8's
   * cairo renderer converts a texture pixel by pixel on every frame, while
   * an image surface in the node's recording is composited as it is. */
  cairo_surface_mark_dirty (self->surface);
  cr = gtk_snapshot_append_cairo (snapshot, &self->bounds);
  cairo_set_source_surface (cr, self->surface, self->bounds.origin.x, self->bounds.origin.y);
  cairo_paint (cr);
  /* The node's recording refers to the image without copying it; were the
   * image freed now, cairo would copy all of it (megabytes, every frame)
   * for the recording to keep. The recording holds it instead, and frees
   * it after its own reference is gone, when the node is freed. */
  if (cairo_surface_set_user_data (cairo_get_target (cr), &image_key, self->surface,
                                   (cairo_destroy_func_t) cairo_surface_destroy) == CAIRO_STATUS_SUCCESS)
    self->surface = NULL;
  cairo_destroy (cr);
  g_clear_pointer (&self->surface, cairo_surface_destroy);
  self->image = NULL;
}

/* Fills device pixels [@x0, @x1) x [@y0, @y1) of the image. */
static void
fill_rect (PlanarTrackRenderer *self,
           gint64               x0,
           gint64               x1,
           gint64               y0,
           gint64               y1,
           guint32              pixel)
{
  x0 = MAX (x0, 0);
  x1 = MIN (x1, self->width);
  y0 = MAX (y0, 0);
  y1 = MIN (y1, self->height);
  for (gint64 y = y0; y < y1; y++)
    {
      guint32 *row = self->image + y * self->stride;

      for (gint64 x = x0; x < x1; x++)
        row[x] = pixel;
    }
}

static inline guint32
premultiply (const GdkRGBA *color,
             float          alpha)
{
  float a = color->alpha * alpha;

  return (guint32) lroundf (a * 255) << 24 |
         (guint32) lroundf (color->red * a * 255) << 16 |
         (guint32) lroundf (color->green * a * 255) << 8 |
         (guint32) lroundf (color->blue * a * 255);
}

/* Queries a counter's columns and draws them as an area chart into its
 * band of the image. Runs on any thread, as run_job() does: the series is
 * read-only, and the job writes the image rows of its own band only. */
static void
run_counter_job (PlanarTrackRenderer *self,
                 Job                 *job)
{
  const PlanarCounterColumn *columns;
  guint n_columns = (guint) self->width;
  double y0 = ((double) job->clip_top - self->bounds.origin.y) * self->scale;
  double y1 = ((double) job->clip_bottom - self->bounds.origin.y) * self->scale;
  double scale_y = (y1 - y0) / MAX (job->hi - job->lo, 1e-300);
  gint64 base = (gint64) floor (y1);
  gint64 previous = -1;

  g_array_set_size (job->columns, n_columns);
  columns = (const PlanarCounterColumn *) (gpointer) job->columns->data;
  planar_counter_series_query_columns (job->series, self->view.t0_ps, planar_track_view_ps_per_column (&self->view),
                                       n_columns, (PlanarCounterColumn *) (gpointer) job->columns->data);

  /* Per column: the area up to the largest value, and the line from the
   * smallest to the largest, joined to the previous column's last value
   * so that steps read as a line. */
  for (guint c = 0; c < n_columns; c++)
    {
      const PlanarCounterColumn *col = &columns[c];
      gint64 ymax, ymin, ylast, from, to;

      if (!col->has_value)
        {
          previous = -1;
          continue;
        }
      ymax = (gint64) floor (y1 - (col->max - job->lo) * scale_y);
      ymin = (gint64) floor (y1 - (col->min - job->lo) * scale_y);
      ylast = (gint64) floor (y1 - (col->last - job->lo) * scale_y);
      fill_rect (self, c, c + 1, ymax, base, job->area);
      from = ymax;
      to = ymin;
      if (previous >= 0)
        {
          from = MIN (from, previous);
          to = MAX (to, previous);
        }
      fill_rect (self, c, c + 1, from, to + 1, job->line);
      previous = ylast;
    }
}

/* Device pixel of @t, clamped a little outside the view so that far-away
 * times do not overflow. */
static inline gint64
device_x (const PlanarTrackView *view,
          double                 device_px_per_ps,
          gint64                 t)
{
  double dx = ((double) (t - view->t0_ps)) * device_px_per_ps;
  double lo = 0.0, hi = (double) view->width * view->scale + 2.0;

  dx = CLAMP (dx, lo, hi);
  /* Not negative: the conversion is the floor (without a call to libm,
   * for each of the frame's tens of thousands of rectangles). */
  return (gint64) dx;
}

/* Measures the labels' height, and forgets the labels kept, where the
 * layout's fonts or their options changed since the last frame: the shapes
 * kept are not theirs. */
static void
check_labels (PlanarTrackRenderer *self)
{
  guint serial = pango_context_get_serial (pango_layout_get_context (self->layout));

  if (serial == self->labels_serial)
    return;
  g_hash_table_remove_all (self->label_widths);
  g_hash_table_remove_all (self->label_nodes);
  pango_layout_set_text (self->layout, "Xg", -1);
  pango_layout_set_width (self->layout, -1);
  pango_layout_get_pixel_size (self->layout, NULL, &self->label_height);
  self->labels_serial = serial;
}

/* The most labels kept; past it the cache starts again (a frame draws a
 * few hundred at most). Longer names are shaped anew for each frame, so
 * that what is kept stays within a few megabytes whatever names a profile
 * has. */
#define MAX_LABELS      4096
#define MAX_KEPT_LENGTH 256

/* Appends @name, @width pango units wide at most, ellipsized, in @color
 * (one of two shades): the text node made for it the last time, or made
 * now and kept. A name that fits is kept once for every width it fits. */
static void
label_node (PlanarTrackRenderer *self,
            GtkSnapshot         *snapshot,
            const char          *name,
            int                  width,
            const GdkRGBA       *color)
{
  gpointer natural;
  GskRenderNode *node;
  gboolean shaped = FALSE;
  char *key;

  if (strnlen (name, MAX_KEPT_LENGTH + 1) > MAX_KEPT_LENGTH)
    {
      pango_layout_set_text (self->layout, name, -1);
      pango_layout_set_width (self->layout, width);
      gtk_snapshot_append_layout (snapshot, self->layout, color);
      return;
    }
  if (!g_hash_table_lookup_extended (self->label_widths, name, NULL, &natural))
    {
      int w;

      pango_layout_set_text (self->layout, name, -1);
      pango_layout_set_width (self->layout, -1);
      pango_layout_get_size (self->layout, &w, NULL);
      natural = GINT_TO_POINTER (w);
      shaped = TRUE;
      if (g_hash_table_size (self->label_widths) >= MAX_LABELS)
        g_hash_table_remove_all (self->label_widths);
      g_hash_table_insert (self->label_widths, g_strdup (name), natural);
    }
  if (GPOINTER_TO_INT (natural) <= width)
    width = -1;

  key = g_strdup_printf ("%d:%c:%s", width, color->red > 0.5f ? 'l' : 'd', name);
  node = g_hash_table_lookup (self->label_nodes, key);
  if (node == NULL)
    {
      GtkSnapshot *text = gtk_snapshot_new ();

      /* The layout still holds the name at its natural width when it was
       * just measured. */
      if (!shaped || width != -1)
        {
          pango_layout_set_text (self->layout, name, -1);
          pango_layout_set_width (self->layout, width);
        }
      gtk_snapshot_append_layout (text, self->layout, color);
      node = gtk_snapshot_free_to_node (text);
      if (node == NULL)
        {
          g_free (key);
          return;
        }
      if (g_hash_table_size (self->label_nodes) >= MAX_LABELS)
        g_hash_table_remove_all (self->label_nodes);
      g_hash_table_insert (self->label_nodes, key, node);
    }
  else
    g_free (key);
  gtk_snapshot_append_node (snapshot, node);
}

/* Where @t is drawn, in logical pixels, held within the window. */
static inline float
logical_x (const PlanarTrackView *view,
           gint64                 t)
{
  t = CLAMP (t, view->t0_ps, view->t1_ps);
  return view->x + (float) ((double) (t - view->t0_ps) * planar_track_view_px_per_ps (view));
}

static void
draw_label (PlanarTrackRenderer   *self,
            GtkSnapshot           *snapshot,
            const PlanarTrackView *view,
            const PlanarPlane     *plane,
            const PlanarEvent     *ev,
            const GdkRGBA         *background,
            float                  x0,
            float                  x1,
            float                  y)
{
  static const GdkRGBA dark_text = { 0.07f, 0.07f, 0.09f, 0.92f };
  static const GdkRGBA light_text = { 1.f, 1.f, 1.f, 0.95f };
  const char *name;
  float left = MAX (x0, view->x) + LABEL_PADDING;
  float right = MIN (x1, view->x + view->width) - LABEL_PADDING;

  if (right - left < LABEL_MIN_WIDTH - 2 * LABEL_PADDING)
    return;
  name = planar_plane_get_event_name (plane, ev, TRUE);
  if (name == NULL || name[0] == '\0')
    return;

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot,
                          &GRAPHENE_POINT_INIT (left,
                                                y + floorf ((PLANAR_TIMELINE_EVENT_HEIGHT - self->label_height) / 2.0f)));
  label_node (self, snapshot, name, (int) ((right - left) * PANGO_SCALE),
              planar_color_wants_light_text (background) ? &light_text : &dark_text);
  gtk_snapshot_restore (snapshot);
}

/* Copies columns [@x0, @x1) of @row to rows [@y0, @y1) of the image, and
 * clears them in @row. */
static void
copy_row (PlanarTrackRenderer *self,
          guint32             *row,
          gint64               x0,
          gint64               x1,
          gint64               y0,
          gint64               y1)
{
  y0 = MAX (y0, 0);
  y1 = MIN (y1, self->height);
  for (gint64 y = y0; y < y1; y++)
    memcpy (self->image + y * self->stride + x0, row + x0, (gsize) (x1 - x0) * sizeof (guint32));
  memset (row + x0, 0, (gsize) (x1 - x0) * sizeof (guint32));
}

/* Whether @span of @job's track is left out of the frame: an internal
 * event while those are hidden. */
static inline gboolean
span_hidden (const PlanarTrackRenderer *self,
             const Job                 *job,
             const PlanarSpan          *span)
{
  return self->hide_internal && span->count == 1 && span->metadata < job->plane->n_metadata &&
         job->plane->metadata[span->metadata].internal;
}

/* Queries a track's spans and fills them into the image. Runs on any
 * thread: the span index is read-only, the color table was made on the
 * main thread, and each job writes the image rows of its own track only. */
static void
run_job (PlanarTrackRenderer *self,
         Job                 *job)
{
  const PlanarTrackView *view = &self->view;
  double device_px_per_ps = planar_track_view_px_per_ps (view) * self->scale;
  double origin = ((double) job->y - self->bounds.origin.y) * self->scale;
  gint64 band_height = (gint64) (PLANAR_TIMELINE_EVENT_HEIGHT * self->scale);
  gint64 clip0 = (gint64) floor (((double) job->clip_top - self->bounds.origin.y) * self->scale);
  gint64 clip1 = (gint64) ceil (((double) job->clip_bottom - self->bounds.origin.y) * self->scale);

  guint top_depth = G_MAXUINT;
  gint64 top = 0;
  /* The columns of the depth band being drawn that @row has pixels in. */
  gint64 drawn_lo = self->width, drawn_hi = 0;

  if (job->row_len < (gsize) self->width)
    {
      g_free (job->row);
      job->row = g_new0 (guint32, self->width);
      job->row_len = (gsize) self->width;
    }

  g_array_set_size (job->spans, 0);
  planar_track_query_spans (job->track, view->t0_ps, view->t1_ps, planar_track_view_ps_per_column (view),
                            job->min_depth, job->max_depth, job->spans);

  /* Every rectangle of a depth covers the same rows: each is drawn once,
   * into one row, and the row is copied to the band's rows when the
   * depth is done. A zoomed-out band of a pixel-wide rectangle per column
   * costs a store per column, not one per column and row. */
  for (guint i = 0; i <= job->spans->len; i++)
    {
      const PlanarSpan *span = i < job->spans->len ? &g_array_index (job->spans, PlanarSpan, i) : NULL;
      gint64 x0, x1;
      guint32 md, pixel;

      /* The spans come a depth after another. */
      if (span == NULL || span->depth != top_depth)
        {
          if (drawn_hi > drawn_lo)
            copy_row (self, job->row, drawn_lo, drawn_hi, MAX (top, clip0), MIN (top + band_height, clip1));
          drawn_lo = self->width;
          drawn_hi = 0;
          if (span == NULL)
            break;
          top_depth = span->depth;
          top = (gint64) floor (origin + (double) span->depth * PLANAR_TIMELINE_DEPTH_PITCH * self->scale);
        }

      md = span->metadata;
      if (span->count == 1)
        {
          float lx0, lx1, band_y;

          if (span_hidden (self, job, span))
            continue;
          /* Wide enough for a label, and its band whole within the clip:
           * the main thread draws it. */
          lx0 = logical_x (view, span->start_ps);
          lx1 = logical_x (view, span->end_ps);
          band_y = job->y + (float) span->depth * PLANAR_TIMELINE_DEPTH_PITCH;
          if (lx1 - lx0 >= LABEL_MIN_WIDTH && band_y >= job->clip_top &&
              band_y + PLANAR_TIMELINE_EVENT_HEIGHT <= job->clip_bottom)
            g_array_append_val (job->labels, i);
        }

      /* Anything at all is at least a device pixel wide; wide events keep
       * a pixel's gap from their neighbour. A folded block takes its first
       * event's color: the overview keeps the colors of what is there. */
      x0 = device_x (view, device_px_per_ps, span->start_ps);
      x1 = MIN (device_x (view, device_px_per_ps, span->end_ps), self->width);
      if (x1 - x0 >= 4)
        x1 -= 1;
      else if (x1 <= x0)
        x1 = x0 + 1;
      x1 = MIN (x1, self->width);
      if (x0 >= x1)
        continue;
      pixel = self->pixels[md < job->n_colors ? job->colors[md] : 0];
      for (gint64 x = x0; x < x1; x++)
        job->row[x] = pixel;
      drawn_lo = MIN (drawn_lo, x0);
      drawn_hi = MAX (drawn_hi, x1);
    }
}

static void
run_jobs (PlanarTrackRenderer *self)
{
  guint i;

  while ((i = (guint) g_atomic_int_add (&self->next_job, 1)) < self->n_jobs)
    {
      Job *job = &g_array_index (self->jobs, Job, self->order[i]);

      if (job->series != NULL)
        run_counter_job (self, job);
      else
        run_job (self, job);
    }
}

static void
helper_thread (gpointer data,
               gpointer user_data)
{
  PlanarTrackRenderer *self = data;

  run_jobs (self);
  g_mutex_lock (&self->lock);
  self->helpers_running--;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* A new job of the frame, its arrays emptied. */
static Job *
next_job (PlanarTrackRenderer *self)
{
  Job *job;

  if (self->n_jobs == self->jobs->len)
    {
      Job empty = { 0 };

      empty.spans = g_array_new (FALSE, FALSE, sizeof (PlanarSpan));
      empty.columns = g_array_new (FALSE, FALSE, sizeof (PlanarCounterColumn));
      empty.labels = g_array_new (FALSE, FALSE, sizeof (guint));
      g_array_append_val (self->jobs, empty);
    }
  job = &g_array_index (self->jobs, Job, self->n_jobs++);
  g_array_set_size (job->spans, 0);
  g_array_set_size (job->labels, 0);
  job->series = NULL;
  return job;
}

/* The share of [@start, @end] that the frame's window covers. */
static double
share_in_view (const PlanarTrackRenderer *self,
               gint64                     start,
               gint64                     end)
{
  gint64 from = MAX (start, self->view.t0_ps), to = MIN (end, self->view.t1_ps);

  if (to < from)
    return 0.0;
  return ((double) to - (double) from + 1.0) / ((double) end - (double) start + 1.0);
}

void
planar_track_renderer_add_track (PlanarTrackRenderer *self,
                                 const PlanarPlane   *plane,
                                 const PlanarTrack   *track,
                                 float                y,
                                 guint                min_depth,
                                 guint                max_depth,
                                 float                clip_top,
                                 float                clip_bottom)
{
  Job *job;
  double share;

  g_return_if_fail (self != NULL);
  g_return_if_fail (plane != NULL && track != NULL);
  g_return_if_fail (self->surface != NULL);

  if (track->n_events == 0 || min_depth > track->max_depth || self->view.t1_ps <= self->view.t0_ps ||
      clip_bottom <= clip_top)
    return;

  job = next_job (self);
  job->plane = plane;
  job->track = track;
  /* Made here, on the main thread, for the workers to read. */
  job->colors = plane_color_table (self, plane, &job->n_colors);
  job->y = y;
  job->min_depth = min_depth;
  job->max_depth = max_depth;
  job->clip_top = clip_top;
  job->clip_bottom = clip_bottom;

  /* Each depth in view costs what its rectangles cost: about an event's
   * worth for each of its events in the window, at most a column's worth
   * for each column. Evenly spread events are a guess, good enough to
   * take the large tracks first. */
  share = share_in_view (self, track->start_ps, track->end_ps);
  job->cost = 1.0;
  for (guint d = min_depth; d <= MIN (max_depth, track->max_depth); d++)
    {
      double events = track->depth_offsets != NULL
                      ? (double) (track->depth_offsets[d + 1] - track->depth_offsets[d])
                      : (double) track->n_events;

      job->cost += MIN (events * share, (double) self->width);
    }
}

void
planar_track_renderer_add_counter (PlanarTrackRenderer       *self,
                                   const PlanarCounterSeries *series,
                                   double                     lo,
                                   double                     hi,
                                   float                      top,
                                   float                      bottom,
                                   const GdkRGBA             *color)
{
  gsize n;
  Job *job;

  g_return_if_fail (self != NULL);
  g_return_if_fail (series != NULL);
  g_return_if_fail (color != NULL);
  g_return_if_fail (self->surface != NULL);

  job = next_job (self);
  job->series = series;
  job->lo = lo;
  job->hi = hi;
  job->clip_top = top;
  job->clip_bottom = bottom;
  job->line = premultiply (color, 1.0f);
  job->area = premultiply (color, 0.3f);
  /* Every column is drawn; the samples in the window are searched for
   * at most once per column. */
  n = planar_counter_series_get_n_samples (series);
  job->cost = (double) self->width;
  if (n > 0)
    job->cost += MIN ((double) n * share_in_view (self, planar_counter_series_get_time (series, 0),
                                                  planar_counter_series_get_time (series, n - 1)),
                      (double) self->width);
}

/* Sorts job indices by cost, the costliest first. */
static int
compare_cost (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  const PlanarTrackRenderer *self = user_data;
  double ca = g_array_index (self->jobs, Job, *(const guint *) a).cost;
  double cb = g_array_index (self->jobs, Job, *(const guint *) b).cost;

  return ca > cb ? -1 : ca < cb ? 1 : (int) *(const guint *) a - (int) *(const guint *) b;
}

guint
planar_track_renderer_flush (PlanarTrackRenderer *self,
                             GtkSnapshot         *labels)
{
  const PlanarTrackView *view;
  guint helpers, n_spans = 0;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (GTK_IS_SNAPSHOT (labels), 0);
  g_return_val_if_fail (self->layout != NULL, 0);

  view = &self->view;

  /* The tracks and counters are shared out to the pool's threads and
   * this one; each takes the next job not taken yet, the costliest
   * first, so that no thread is left with a large one at the end while
   * the others wait. */
  self->order = g_renew (guint, self->order, MAX (self->jobs->len, 1));
  for (guint j = 0; j < self->n_jobs; j++)
    self->order[j] = j;
  g_qsort_with_data (self->order, (gint) self->n_jobs, sizeof (guint), compare_cost, self);
  self->next_job = 0;
  helpers = self->pool != NULL ? MIN (self->n_helpers, self->n_jobs > 0 ? self->n_jobs - 1 : 0) : 0;
  self->helpers_running = helpers;
  for (guint h = 0; h < helpers; h++)
    g_thread_pool_push (self->pool, self, NULL);
  run_jobs (self);
  g_mutex_lock (&self->lock);
  while (self->helpers_running > 0)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);

  /* Labels are text nodes, made on this thread, over the rectangles. */
  check_labels (self);
  for (guint j = 0; j < self->n_jobs; j++)
    {
      const Job *job = &g_array_index (self->jobs, Job, j);

      n_spans += job->spans->len;
      for (guint k = 0; k < job->labels->len; k++)
        {
          guint s = g_array_index (job->labels, guint, k), n = s + 1;
          const PlanarSpan *span = &g_array_index (job->spans, PlanarSpan, s);
          const PlanarEvent *ev = &job->track->events[span->first];
          float x0, x1;

          x0 = logical_x (view, span->start_ps);
          x1 = logical_x (view, span->end_ps);
          /* The next rectangle drawn in the band, after this one, covers
           * what of it they share (a GPU's kernel that starts before the
           * one before it ends, both at one depth): the label stops
           * where that one starts, not under its label. */
          while (n < job->spans->len && g_array_index (job->spans, PlanarSpan, n).depth == span->depth &&
                 span_hidden (self, job, &g_array_index (job->spans, PlanarSpan, n)))
            n++;
          if (n < job->spans->len && g_array_index (job->spans, PlanarSpan, n).depth == span->depth &&
              g_array_index (job->spans, PlanarSpan, n).start_ps < span->end_ps)
            x1 = MIN (x1, logical_x (view, g_array_index (job->spans, PlanarSpan, n).start_ps));
          draw_label (self, labels, view, job->plane, ev,
                      planar_color_get_event_color (ev->metadata < job->n_colors ? job->colors[ev->metadata] : 0),
                      x0, x1, job->y + (float) span->depth * PLANAR_TIMELINE_DEPTH_PITCH);
        }
    }
  self->n_jobs = 0;
  return n_spans;
}

gsize
_planar_track_renderer_get_kept_bytes (PlanarTrackRenderer *self)
{
  GHashTableIter iter;
  gpointer key;
  gsize bytes = 0;

  g_return_val_if_fail (self != NULL, 0);
  g_hash_table_iter_init (&iter, self->label_widths);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    bytes += strlen (key);
  g_hash_table_iter_init (&iter, self->label_nodes);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    bytes += strlen (key);
  return bytes;
}

void
planar_track_renderer_set_hide_internal (PlanarTrackRenderer *self,
                                         gboolean             hide_internal)
{
  g_return_if_fail (self != NULL);
  self->hide_internal = hide_internal;
}
