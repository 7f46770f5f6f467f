/* planar-timeline-draw.c: how the timeline draws a frame.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-private.h"

#include <glib/gi18n.h>
#include <math.h>

#include "planar-colors.h"
#include "planar-counters.h"
#include "planar-flows.h"
#include "planar-time-ticks.h"
#include "planar-units.h"

/* Selected events outlined one by one, at most; a larger selection shows
 * its range instead. */
#define MAX_OUTLINED_EVENTS 4096
/* Flows drawn at once when they are shown; zoomed out further, only the
 * selected events' flows are. */
#define MAX_FLOWS_PER_FRAME 2000

static const GdkRGBA accent = { 0.208f, 0.518f, 0.894f, 1.f };
static const GdkRGBA mark_color = { 0.965f, 0.827f, 0.176f, 1.f };

/* Colors of the chrome, from the theme's foreground: light text means a
 * dark theme. */
typedef PlanarTimelinePalette Palette;

static void
palette_init (Palette       *palette,
              const GdkRGBA *fg)
{
  gboolean dark = (0.2126 * fg->red + 0.7152 * fg->green + 0.0722 * fg->blue) > 0.5;

  palette->dark = dark;
  palette->fg = *fg;
  palette->fg.alpha = 1.f;
  palette->dim_fg = palette->fg;
  palette->dim_fg.alpha = 0.62f;
  if (dark)
    {
      palette->background = (GdkRGBA) { 0.141f, 0.141f, 0.153f, 1.f };
      palette->label_background = (GdkRGBA) { 0.169f, 0.169f, 0.180f, 1.f };
      palette->header_background = (GdkRGBA) { 0.208f, 0.208f, 0.224f, 1.f };
      palette->axis_background = (GdkRGBA) { 0.188f, 0.188f, 0.200f, 1.f };
      palette->separator = (GdkRGBA) { 1.f, 1.f, 1.f, 0.09f };
      palette->grid = (GdkRGBA) { 1.f, 1.f, 1.f, 0.10f };
    }
  else
    {
      palette->background = (GdkRGBA) { 0.988f, 0.988f, 0.992f, 1.f };
      palette->label_background = (GdkRGBA) { 0.957f, 0.957f, 0.965f, 1.f };
      palette->header_background = (GdkRGBA) { 0.902f, 0.906f, 0.918f, 1.f };
      palette->axis_background = (GdkRGBA) { 0.937f, 0.937f, 0.945f, 1.f };
      palette->separator = (GdkRGBA) { 0.f, 0.f, 0.f, 0.09f };
      palette->grid = (GdkRGBA) { 0.f, 0.f, 0.f, 0.10f };
    }
}

static void
get_foreground (PlanarTimeline *self,
                GdkRGBA        *fg)
{
  /* gtk_widget_get_color() is 4.10; in 4.8 the style context says it. */
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (self)), fg);
}

/* ------------------------------------------------------------------------
 * Drawing: the tracks layer
 * ------------------------------------------------------------------------ */

static void
append_text (GtkSnapshot   *snapshot,
             PangoLayout   *layout,
             const char    *text,
             double         x,
             double         y,
             double         max_width,
             const GdkRGBA *color)
{
  if (max_width < 8)
    return;
  pango_layout_set_text (layout, text, -1);
  pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) x, (float) y));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
}

/* Makes the spaces of @text (a quantity: "922.5 ms", in a buffer of
 * @size bytes) no-break spaces, in place, as far as they fit. */
static void
keep_together (char  *text,
               gsize  size)
{
  char buf[64];
  gsize n = 0;

  for (const char *c = text; *c != '\0' && n + 3 < MIN (size, sizeof buf); c++)
    {
      if (*c == ' ')
        {
          buf[n++] = (char) 0xc2;
          buf[n++] = (char) 0xa0;
        }
      else
        buf[n++] = *c;
    }
  buf[n] = '\0';
  g_strlcpy (text, buf, size);
}

static int
layout_height (PangoLayout *layout)
{
  int height;

  pango_layout_set_text (layout, "Xg", -1);
  pango_layout_get_pixel_size (layout, NULL, &height);
  return height;
}

static void
draw_header (PlanarTimeline *self,
             GtkSnapshot    *snapshot,
             const Palette  *palette,
             const char     *title,
             const char     *subtitle,
             gboolean        collapsed,
             const GdkRGBA  *background,
             double          y,
             double          width);

static void
draw_section_header (PlanarTimeline          *self,
                     GtkSnapshot             *snapshot,
                     const Palette           *palette,
                     const PlanarTimelineRow *row,
                     double                   y,
                     double                   width)
{
  const PlanarTimelineSection *section = planar_timeline_layout_get_section (self->layout, row->section);

  draw_header (self, snapshot, palette, section->title, section->subtitle, section->collapsed,
               &palette->header_background, y, width);
}

/* A host's header over its sections: the section's look, on the label
 * column's darker ground. */
static void
draw_host_header (PlanarTimeline          *self,
                  GtkSnapshot             *snapshot,
                  const Palette           *palette,
                  const PlanarTimelineRow *row,
                  double                   y,
                  double                   width)
{
  for (guint h = 0; h < planar_timeline_layout_get_n_hosts (self->layout); h++)
    {
      const PlanarTimelineHost *host = planar_timeline_layout_get_host (self->layout, h);

      if (host->trace == row->trace)
        {
          draw_header (self, snapshot, palette, host->title, host->subtitle, host->collapsed,
                       &palette->label_background, y, width);
          return;
        }
    }
}

static void
draw_header (PlanarTimeline *self,
             GtkSnapshot    *snapshot,
             const Palette  *palette,
             const char     *title,
             const char     *subtitle,
             gboolean        collapsed,
             const GdkRGBA  *background,
             double          y,
             double          width)
{
  double text_y;
  int title_width;
  PangoLayout *layout = self->small_layout;
  int height = layout_height (self->label_layout);
  /* The text ends before the tool palette where it floats over the
   * header. */
  double text_end = _planar_timeline_header_text_end (self, y);

  gtk_snapshot_append_color (snapshot, background,
                             &GRAPHENE_RECT_INIT (0, (float) y, (float) width, PLANAR_TIMELINE_SECTION_HEIGHT));
  gtk_snapshot_append_color (snapshot, &palette->separator,
                             &GRAPHENE_RECT_INIT (0, (float) (y + PLANAR_TIMELINE_SECTION_HEIGHT - 1), (float) width, 1));

  /* The expander: a triangle pointing right when collapsed, down when
   * open. */
  {
    cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (6, (float) y, 16, PLANAR_TIMELINE_SECTION_HEIGHT));
    double cx = 13, cy = y + PLANAR_TIMELINE_SECTION_HEIGHT / 2.0;

    gdk_cairo_set_source_rgba (cr, &palette->dim_fg);
    if (collapsed)
      {
        cairo_move_to (cr, cx - 3, cy - 5);
        cairo_line_to (cr, cx + 3, cy);
        cairo_line_to (cr, cx - 3, cy + 5);
      }
    else
      {
        cairo_move_to (cr, cx - 5, cy - 3);
        cairo_line_to (cr, cx + 5, cy - 3);
        cairo_line_to (cr, cx, cy + 3);
      }
    cairo_close_path (cr);
    cairo_fill (cr);
    cairo_destroy (cr);
  }

  text_y = y + floor ((PLANAR_TIMELINE_SECTION_HEIGHT - height) / 2.0);
  pango_layout_set_text (self->title_layout, title, -1);
  pango_layout_set_width (self->title_layout, -1);
  pango_layout_get_pixel_size (self->title_layout, &title_width, NULL);
  if (title_width > text_end - PLANAR_TIMELINE_TITLE_X)
    {
      pango_layout_set_width (self->title_layout, (int) (MAX (text_end - PLANAR_TIMELINE_TITLE_X, 1) * PANGO_SCALE));
      pango_layout_get_pixel_size (self->title_layout, &title_width, NULL);
    }
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (PLANAR_TIMELINE_TITLE_X, (float) text_y));
  gtk_snapshot_append_layout (snapshot, self->title_layout, &palette->fg);
  gtk_snapshot_restore (snapshot);
  if (subtitle != NULL && subtitle[0] != '\0')
    append_text (snapshot, layout, subtitle, PLANAR_TIMELINE_TITLE_X + title_width + 12,
                 y + floor ((PLANAR_TIMELINE_SECTION_HEIGHT - layout_height (layout)) / 2.0),
                 text_end - (PLANAR_TIMELINE_TITLE_X + title_width + 12), &palette->dim_fg);
}

/* A counter as an area chart: per pixel column, the range of the samples
 * in it (or the value in force there), scaled between the series' smallest
 * and largest values so that its variation shows. Drawn into the tracks'
 * image: a path through every column would cost the renderer far more. */
static void
draw_counter (PlanarTimeline          *self,
              const PlanarTimelineRow *row,
              double                   y)
{
  const PlanarCounterSet *counters = planar_trace_get_counters (planar_profile_get_trace (self->profile, row->trace));
  const PlanarCounterSeries *series;
  double lo, hi, pad;
  GdkRGBA color;

  if (counters == NULL || row->track >= planar_counter_set_get_n_series (counters))
    return;
  series = planar_counter_set_get_series (counters, row->track);
  if (!planar_counter_series_get_range (series, &lo, &hi))
    return;
  pad = hi > lo ? (hi - lo) * 0.08 : MAX (fabs (hi) * 0.5, 1.0);
  lo -= pad;
  hi += pad;

  planar_color_for_name (planar_counter_series_get_name (series), &color);
  planar_track_renderer_add_counter (self->renderer, series, lo, hi, (float) y + 4, (float) (y + row->height - 3), &color);
}

/* The counter's name, and its range below it. */
static void
draw_counter_label (PlanarTimeline          *self,
                    GtkSnapshot             *snapshot,
                    const Palette           *palette,
                    const PlanarTimelineRow *row,
                    double                   y,
                    double                   width)
{
  const PlanarCounterSet *counters = planar_trace_get_counters (planar_profile_get_trace (self->profile, row->trace));
  const PlanarCounterSeries *series;
  double lo, hi;
  char text[96];

  if (counters == NULL || row->track >= planar_counter_set_get_n_series (counters))
    return;
  series = planar_counter_set_get_series (counters, row->track);
  append_text (snapshot, self->label_layout, planar_counter_series_get_name (series), 14, y + 4, width - 22, &palette->fg);
  if (planar_counter_series_get_range (series, &lo, &hi))
    {
      g_snprintf (text, sizeof text, "%.6g – %.6g", lo, hi);
      append_text (snapshot, self->small_layout, text, 14, y + 4 + layout_height (self->label_layout), width - 22,
                   &palette->dim_fg);
    }
}

/* Every flow with an end in the window, unless there are too many to
 * tell apart at this zoom. */
static void
draw_flows (PlanarTimeline *self,
            GtkSnapshot    *snapshot,
            const Palette  *palette,
            GArray         *flows,
            guint           trace,
            guint64         hidden_categories,
            double          width,
            double          height);

static void
draw_all_flows (PlanarTimeline *self,
                GtkSnapshot    *snapshot,
                const Palette  *palette,
                double          width,
                double          height)
{
  guint n_traces = planar_profile_get_n_traces (self->profile);

  for (guint tr = 0; tr < n_traces; tr++)
    {
      PlanarTrace *trace = planar_profile_get_trace (self->profile, tr);
      const PlanarFlowIndex *flows = planar_trace_get_flows (trace);
      gint64 first, last;
      double expected;

      if (flows == NULL || planar_flow_index_get_n_flows (flows) == 0)
        continue;
      /* The index answers in O(output): estimate the output from the
       * flows' density before asking, and leave a window too crowded to
       * read to the selected event's arrows. */
      if (!planar_trace_get_span (trace, &first, &last) || last <= first)
        continue;
      expected = (double) planar_flow_index_get_n_flows (flows) *
                 (double) (planar_timeline_view_get_end_ps (self->view) - planar_timeline_view_get_start_ps (self->view)) / (double) (last - first);
      if (expected > MAX_FLOWS_PER_FRAME)
        continue;
      g_array_set_size (self->flows, 0);
      planar_flow_index_query_range (flows, PLANAR_FLOW_CATEGORY_ALL, planar_timeline_view_get_start_ps (self->view), planar_timeline_view_get_end_ps (self->view), self->flows);
      if (self->flows->len > MAX_FLOWS_PER_FRAME)
        continue;
      draw_flows (self, snapshot, palette, self->flows, tr, planar_timeline_view_get_hidden_flow_categories (self->view), width, height);
    }
}

static gboolean
flow_end_point (PlanarTimeline       *self,
                guint                 trace,
                const PlanarEventRef *ref,
                gboolean              leaving,
                gint64                toward_ps,
                double               *x,
                double               *y)
{
  PlanarEventRef pref;
  const PlanarEvent *ev;
  gint64 t;
  int r;

  if (planar_event_ref_is_none (ref))
    return FALSE;
  pref = *ref;
  pref.trace = trace;
  r = planar_timeline_layout_find_track (self->layout, trace, ref->plane, ref->track);
  if (r < 0)
    return FALSE;
  ev = planar_event_ref_resolve (&pref, self->profile, NULL, NULL, NULL);
  if (ev == NULL)
    return FALSE;
  /* An arrow leaves its event where the other end begins (or at its end)
   * and enters the other at its start. */
  if (leaving)
    t = CLAMP (toward_ps, ev->start_ps, ev->start_ps + ev->duration_ps);
  else
    t = ev->start_ps;
  *x = _planar_timeline_x_for_time (self, t);
  *y = _planar_timeline_widget_y (self, planar_timeline_row_depth_y (planar_timeline_layout_get_row (self->layout, (guint) r), ev->depth)
                       + PLANAR_TIMELINE_EVENT_HEIGHT / 2.0);
  return TRUE;
}

static void
draw_flows (PlanarTimeline *self,
            GtkSnapshot    *snapshot,
            const Palette  *palette,
            GArray         *flows,
            guint           trace,
            guint64         hidden_categories,
            double          width,
            double          height)
{
  cairo_t *cr = NULL;
  double left = self->label_width;

  for (guint i = 0; i < flows->len; i++)
    {
      const PlanarFlow *flow = &g_array_index (flows, PlanarFlow, i);
      double x0, y0, x1, y1;
      GdkRGBA color;

      if (flow->category < PLANAR_FLOW_N_CATEGORIES &&
          (hidden_categories & (G_GUINT64_CONSTANT (1) << flow->category)) != 0)
        continue;
      if (!flow_end_point (self, trace, &flow->from, TRUE, flow->to_ps, &x0, &y0) ||
          !flow_end_point (self, trace, &flow->to, FALSE, 0, &x1, &y1))
        continue;
      if ((y0 < PLANAR_TIMELINE_AXIS_HEIGHT && y1 < PLANAR_TIMELINE_AXIS_HEIGHT) || (y0 > height && y1 > height) ||
          (x0 < left && x1 < left) || (x0 > width && x1 > width))
        continue;
      if (cr == NULL)
        cr = gtk_snapshot_append_cairo (snapshot,
                                        &GRAPHENE_RECT_INIT ((float) left, PLANAR_TIMELINE_AXIS_HEIGHT,
                                                             (float) (width - left), (float) (height - PLANAR_TIMELINE_AXIS_HEIGHT)));
      planar_flow_layer_get_color (flow->category, palette->dark, &color);
      planar_flow_layer_draw_arrow (cr, x0, y0, x1, y1, &color, 1.25);
    }
  g_clear_pointer (&cr, cairo_destroy);
}

static void
draw_axis (PlanarTimeline *self,
           GtkSnapshot    *snapshot,
           const Palette  *palette,
           double          width,
           double          height)
{
  PlanarTimeTicks ticks;
  double left = self->label_width;
  double area = _planar_timeline_time_area_width (self);
  int text_height = layout_height (self->small_layout);
  char label[96];
  gint64 view_start, view_end;

  /* The axis follows the view's visible range. */
  planar_timeline_view_get_visible_range (self->view, &view_start, &view_end);

  gtk_snapshot_append_color (snapshot, &palette->axis_background,
                             &GRAPHENE_RECT_INIT (0, 0, (float) width, PLANAR_TIMELINE_AXIS_HEIGHT));
  gtk_snapshot_append_color (snapshot, &palette->separator,
                             &GRAPHENE_RECT_INIT (0, PLANAR_TIMELINE_AXIS_HEIGHT - 1, (float) width, 1));

  planar_time_ticks_compute (&ticks, view_start, view_end, area, 110);

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT ((float) left, 0, (float) area, PLANAR_TIMELINE_AXIS_HEIGHT));
  /* Minor ticks, then labelled ones. */
  if (ticks.minor_step_ps > 0 && ticks.minor_step_ps < ticks.step_ps)
    {
      gint64 t = ticks.first_ps - ticks.step_ps;

      for (; t <= view_end; t += ticks.minor_step_ps)
        {
          double x = _planar_timeline_x_for_time (self, t);

          if (x < left - 1)
            continue;
          gtk_snapshot_append_color (snapshot, &palette->separator,
                                     &GRAPHENE_RECT_INIT ((float) floor (x), PLANAR_TIMELINE_AXIS_HEIGHT - 5, 1, 4));
        }
    }
  for (gint64 t = ticks.first_ps; t <= view_end; t += ticks.step_ps)
    {
      double x = floor (_planar_timeline_x_for_time (self, t));

      gtk_snapshot_append_color (snapshot, &palette->dim_fg,
                                 &GRAPHENE_RECT_INIT ((float) x, PLANAR_TIMELINE_AXIS_HEIGHT - 9, 1, 8));
      planar_time_ticks_format (&ticks, t, label, sizeof label);
      append_text (snapshot, self->small_layout, label, x + 4,
                   floor ((PLANAR_TIMELINE_AXIS_HEIGHT - 6 - text_height) / 2.0), 200, &palette->fg);
    }
  gtk_snapshot_pop (snapshot);

  /* The corner says what the window is: its width, and the base of
   * relative labels. Too long for one line (a long base, deep in), it
   * takes two, broken between the quantities, each kept whole. */
  {
    char window[64];
    int label_px;

    planar_time_format_duration (view_end - view_start, window, sizeof window);
    keep_together (window, sizeof window);
    if (ticks.relative)
      {
        char base[64];

        planar_time_ticks_format_base (&ticks, base, sizeof base);
        keep_together (base, sizeof base);
        g_snprintf (label, sizeof label, _("%s from %s"), window, base);
      }
    else
      g_snprintf (label, sizeof label, _("%s window"), window);
    pango_layout_set_text (self->small_layout, label, -1);
    pango_layout_set_width (self->small_layout, -1);
    pango_layout_get_pixel_size (self->small_layout, &label_px, NULL);
    if (label_px <= left - 16)
      append_text (snapshot, self->small_layout, label, 10,
                   floor ((PLANAR_TIMELINE_AXIS_HEIGHT - text_height) / 2.0), left - 16, &palette->dim_fg);
    else
      {
        /* The lines a little closer than the font's, to fit the row. */
        pango_layout_set_wrap (self->small_layout, PANGO_WRAP_WORD);
        pango_layout_set_height (self->small_layout, -2);
        pango_layout_set_line_spacing (self->small_layout, 0.8f);
        append_text (snapshot, self->small_layout, label, 10,
                     MAX (floor ((PLANAR_TIMELINE_AXIS_HEIGHT - 1.8 * text_height) / 2.0), 0), left - 16,
                     &palette->dim_fg);
        pango_layout_set_line_spacing (self->small_layout, 0.0f);
        pango_layout_set_height (self->small_layout, -1);
      }
  }
}

/* The rows' draw functions (see planar-timeline-rows.c). */

void
_planar_timeline_draw_section_row (PlanarTimeline            *self,
                                   const PlanarTimelineFrame *frame,
                                   const PlanarTimelineRow   *row,
                                   double                     y)
{
  draw_section_header (self, frame->snapshot, frame->palette, row, y, frame->width);
}

void
_planar_timeline_draw_host_row (PlanarTimeline            *self,
                                const PlanarTimelineFrame *frame,
                                const PlanarTimelineRow   *row,
                                double                     y)
{
  draw_host_header (self, frame->snapshot, frame->palette, row, y, frame->width);
}

/* The track's name in the label column; its events go to the renderer,
 * only the depths in view. */
void
_planar_timeline_draw_track_row (PlanarTimeline            *self,
                                 const PlanarTimelineFrame *frame,
                                 const PlanarTimelineRow   *row,
                                 double                     y)
{
  const Palette *palette = frame->palette;
  const PlanarPlane *plane;
  const PlanarTrack *track = _planar_timeline_row_track (self, row, &plane);
  double band0 = planar_timeline_row_depth_y (row, 0);
  int min_depth = (int) floor ((frame->top - band0) / PLANAR_TIMELINE_DEPTH_PITCH);
  int max_depth = (int) floor ((frame->bottom - band0) / PLANAR_TIMELINE_DEPTH_PITCH);

  append_text (frame->snapshot, self->label_layout, track->display_name, 14,
               y + PLANAR_TIMELINE_TRACK_PADDING + floor ((PLANAR_TIMELINE_EVENT_HEIGHT - frame->name_height) / 2.0),
               frame->left - 22, track->derived ? &palette->dim_fg : &palette->fg);
  planar_track_renderer_add_track (self->renderer, plane, track,
                                   (float) _planar_timeline_widget_y (self, band0),
                                   (guint) MAX (min_depth, 0), (guint) MAX (max_depth, 0),
                                   (float) MAX (y, PLANAR_TIMELINE_AXIS_HEIGHT),
                                   (float) MIN (y + row->height, frame->height));
  gtk_snapshot_append_color (frame->snapshot, &palette->separator,
                             &GRAPHENE_RECT_INIT (0, (float) (y + row->height - 1), (float) frame->width, 1));
}

void
_planar_timeline_draw_counter_row (PlanarTimeline            *self,
                                   const PlanarTimelineFrame *frame,
                                   const PlanarTimelineRow   *row,
                                   double                     y)
{
  draw_counter_label (self, frame->snapshot, frame->palette, row, y, frame->left);
  draw_counter (self, row, y);
  gtk_snapshot_append_color (frame->snapshot, &frame->palette->separator,
                             &GRAPHENE_RECT_INIT (0, (float) (y + row->height - 1), (float) frame->width, 1));
}

void
_planar_timeline_draw_reserved_row (PlanarTimeline            *self,
                                    const PlanarTimelineFrame *frame,
                                    const PlanarTimelineRow   *row,
                                    double                     y)
{
  int e = planar_timeline_layout_find_entry (self->layout, row);

  /* Named as the line will be, dimmed as derived lines are; its events
   * come when the model has derived them. */
  if (e >= 0)
    append_text (frame->snapshot, self->label_layout, planar_timeline_layout_get_entry (self->layout, (guint) e)->name,
                 14, y + PLANAR_TIMELINE_TRACK_PADDING + floor ((PLANAR_TIMELINE_EVENT_HEIGHT - frame->name_height) / 2.0),
                 frame->left - 22, &frame->palette->dim_fg);
  gtk_snapshot_append_color (frame->snapshot, &frame->palette->separator,
                             &GRAPHENE_RECT_INIT (0, (float) (y + row->height - 1), (float) frame->width, 1));
}

static void
draw_tracks_layer (PlanarTimeline *self,
                   GtkSnapshot    *snapshot,
                   const Palette  *palette,
                   double          width,
                   double          height)
{
  PlanarTrackView view;
  double top = _planar_timeline_vscroll (self);
  double bottom = top + _planar_timeline_content_height (self);
  double left = self->label_width;
  guint n_rows = planar_timeline_layout_get_n_rows (self->layout);
  int name_height = layout_height (self->label_layout);
  GtkSnapshot *labels;
  GskRenderNode *labels_node;
  PlanarTimelineFrame frame = { snapshot, palette, width, height, top, bottom, left, name_height };

  _planar_timeline_get_track_view (self, &view);
  view.dark = palette->dark;

  gtk_snapshot_append_color (snapshot, &palette->background, &GRAPHENE_RECT_INIT (0, 0, (float) width, (float) height));
  gtk_snapshot_append_color (snapshot, &palette->label_background,
                             &GRAPHENE_RECT_INIT (0, PLANAR_TIMELINE_AXIS_HEIGHT, (float) left,
                                                  (float) (height - PLANAR_TIMELINE_AXIS_HEIGHT)));

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, PLANAR_TIMELINE_AXIS_HEIGHT, (float) width,
                                                         (float) MAX (height - PLANAR_TIMELINE_AXIS_HEIGHT, 0)));

  /* The grid lies under the events. */
  if (self->show_grid)
    {
      PlanarTimeTicks ticks;

      planar_time_ticks_compute (&ticks, planar_timeline_view_get_start_ps (self->view), planar_timeline_view_get_end_ps (self->view), _planar_timeline_time_area_width (self), 110);
      for (gint64 t = ticks.first_ps; t <= planar_timeline_view_get_end_ps (self->view); t += ticks.step_ps)
        gtk_snapshot_append_color (snapshot, &palette->grid,
                                   &GRAPHENE_RECT_INIT ((float) floor (_planar_timeline_x_for_time (self, t)),
                                                        PLANAR_TIMELINE_AXIS_HEIGHT, 1,
                                                        (float) (height - PLANAR_TIMELINE_AXIS_HEIGHT)));
    }

  planar_track_renderer_set_hide_internal (self->renderer, self->hide_internal_events);
  planar_track_renderer_begin (self->renderer, &view, PLANAR_TIMELINE_AXIS_HEIGHT,
                               (float) MAX (height - PLANAR_TIMELINE_AXIS_HEIGHT, 1));
  labels = gtk_snapshot_new ();

  for (guint r = planar_timeline_layout_first_row_below (self->layout, (int) floor (top)); r < n_rows; r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (self->layout, r);
      double y = _planar_timeline_widget_y (self, row->y);

      if (row->y > bottom)
        break;

      _planar_timeline_row_class (row)->draw (self, &frame, row, y);
    }

  /* The events' rectangles, then their labels over them. */
  self->n_spans_drawn = planar_track_renderer_flush (self->renderer, labels);
  planar_track_renderer_end (self->renderer, snapshot);
  labels_node = gtk_snapshot_free_to_node (labels);
  if (labels_node != NULL)
    {
      gtk_snapshot_append_node (snapshot, labels_node);
      gsk_render_node_unref (labels_node);
    }
  _planar_timeline_draw_hits (self, snapshot, width);

  if (planar_timeline_view_get_show_flows (self->view) && self->profile != NULL)
    draw_all_flows (self, snapshot, palette, width, height);

  /* The header of the section whose tracks fill the top stays there, over
   * them, so that the device in view is always named. */
  {
    int header_y;
    int sticky = planar_timeline_layout_sticky_section (self->layout, (int) floor (top), &header_y);

    if (sticky >= 0)
      {
        PlanarTimelineRow pinned = { PLANAR_TIMELINE_ROW_SECTION, (guint) sticky };

        draw_section_header (self, snapshot, palette, &pinned, _planar_timeline_widget_y (self, header_y), width);
      }
  }

  gtk_snapshot_pop (snapshot);

  /* The column of labels ends with a line. */
  gtk_snapshot_append_color (snapshot, &palette->separator,
                             &GRAPHENE_RECT_INIT ((float) left - 1, PLANAR_TIMELINE_AXIS_HEIGHT, 1,
                                                  (float) (height - PLANAR_TIMELINE_AXIS_HEIGHT)));

  draw_axis (self, snapshot, palette, width, height);

  if (self->profile == NULL || planar_timeline_layout_get_n_rows (self->layout) == 0)
    {
      const char *text = self->profile == NULL ? _("No profile")
                         : planar_profile_is_loaded (self->profile) ? _("This profile has no events")
                         : _("Loading…");
      int tw, th;

      pango_layout_set_text (self->title_layout, text, -1);
      pango_layout_set_width (self->title_layout, -1);
      pango_layout_get_pixel_size (self->title_layout, &tw, &th);
      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) floor (left + (width - left - tw) / 2),
                                                              (float) floor ((height - th) / 2)));
      gtk_snapshot_append_layout (snapshot, self->title_layout, &palette->dim_fg);
      gtk_snapshot_restore (snapshot);
    }
}

/* ------------------------------------------------------------------------
 * Drawing: the overlay
 * ------------------------------------------------------------------------ */

static gboolean
event_rect (PlanarTimeline       *self,
            const PlanarEventRef *ref,
            graphene_rect_t      *rect)
{
  const PlanarEvent *ev = planar_event_ref_resolve (ref, self->profile, NULL, NULL, NULL);
  double x0, x1, y;

  if (ev == NULL || !_planar_timeline_get_track_y (self, ref->trace, ref->plane, ref->track, ev->depth, &y))
    return FALSE;
  x0 = _planar_timeline_x_for_time (self, ev->start_ps);
  x1 = _planar_timeline_x_for_time (self, ev->start_ps + ev->duration_ps);
  x0 = MAX (x0, self->label_width - 2);
  x1 = MIN (x1, gtk_widget_get_width (GTK_WIDGET (self)) + 2);
  if (x1 < x0 + 1)
    x1 = x0 + 1;
  graphene_rect_init (rect, (float) x0, (float) y, (float) (x1 - x0), PLANAR_TIMELINE_EVENT_HEIGHT);
  return x1 >= self->label_width && x0 <= gtk_widget_get_width (GTK_WIDGET (self));
}

static void
append_outline (GtkSnapshot           *snapshot,
                const graphene_rect_t *rect,
                float                  width,
                const GdkRGBA         *color)
{
  GskRoundedRect outline;
  const float widths[4] = { width, width, width, width };
  const GdkRGBA colors[4] = { *color, *color, *color, *color };
  graphene_rect_t outer;

  graphene_rect_inset_r (rect, -width / 2, -width / 2, &outer);
  gsk_rounded_rect_init_from_rect (&outline, &outer, 0);
  gtk_snapshot_append_border (snapshot, &outline, widths, colors);
}

/* @text in a pill of @color over the axis, centred on @x and kept inside
 * the time area. */
static void
draw_axis_pill (PlanarTimeline *self,
                GtkSnapshot    *snapshot,
                const GdkRGBA  *color,
                const char     *text,
                double          x)
{
  int tw, th;
  double lx;
  GskRoundedRect pill;

  pango_layout_set_text (self->small_layout, text, -1);
  pango_layout_set_width (self->small_layout, -1);
  pango_layout_get_pixel_size (self->small_layout, &tw, &th);
  lx = CLAMP (x - tw / 2.0, self->label_width + 2, gtk_widget_get_width (GTK_WIDGET (self)) - tw - 8);
  gsk_rounded_rect_init_from_rect (&pill, &GRAPHENE_RECT_INIT ((float) lx - 6, (PLANAR_TIMELINE_AXIS_HEIGHT - th) / 2.0f - 2,
                                                                (float) tw + 12, (float) th + 4), (th + 4) / 2.0f);
  gtk_snapshot_push_rounded_clip (snapshot, &pill);
  gtk_snapshot_append_color (snapshot, color, &pill.bounds);
  gtk_snapshot_pop (snapshot);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) lx, (PLANAR_TIMELINE_AXIS_HEIGHT - th) / 2.0f));
  gtk_snapshot_append_layout (snapshot, self->small_layout,
                              planar_color_wants_light_text (color) ? &(GdkRGBA) { 1, 1, 1, 1 } : &(GdkRGBA) { 0, 0, 0, 0.87f });
  gtk_snapshot_restore (snapshot);
}

/* A band over the tracks from @t0 to @t1 with its duration in the axis. */
static void
draw_range (PlanarTimeline *self,
            GtkSnapshot    *snapshot,
            gint64          t0,
            gint64          t1,
            const GdkRGBA  *color,
            float           fill_alpha,
            double          height)
{
  double x0 = MAX (_planar_timeline_x_for_time (self, MIN (t0, t1)), self->label_width);
  double x1 = MIN (_planar_timeline_x_for_time (self, MAX (t0, t1)), gtk_widget_get_width (GTK_WIDGET (self)));
  GdkRGBA fill = *color;
  char duration[64];

  if (x1 < self->label_width || x0 > gtk_widget_get_width (GTK_WIDGET (self)))
    return;
  x1 = MAX (x1, x0 + 1);
  fill.alpha = fill_alpha;
  gtk_snapshot_append_color (snapshot, &fill,
                             &GRAPHENE_RECT_INIT ((float) x0, PLANAR_TIMELINE_AXIS_HEIGHT, (float) (x1 - x0),
                                                  (float) (height - PLANAR_TIMELINE_AXIS_HEIGHT)));
  gtk_snapshot_append_color (snapshot, color,
                             &GRAPHENE_RECT_INIT ((float) x0, PLANAR_TIMELINE_AXIS_HEIGHT, 1, (float) (height - PLANAR_TIMELINE_AXIS_HEIGHT)));
  gtk_snapshot_append_color (snapshot, color,
                             &GRAPHENE_RECT_INIT ((float) x1 - 1, PLANAR_TIMELINE_AXIS_HEIGHT, 1, (float) (height - PLANAR_TIMELINE_AXIS_HEIGHT)));

  /* The duration in a pill over the axis, centred on the range. */
  planar_time_format_duration (MAX (t0, t1) - MIN (t0, t1), duration, sizeof duration);
  draw_axis_pill (self, snapshot, color, duration, (x0 + x1) / 2.0);
}

/* The line Go to Time leaves at its time, labelled with it over the
 * axis. */
static void
draw_go_to_marker (PlanarTimeline *self,
                   GtkSnapshot    *snapshot,
                   const GdkRGBA  *color,
                   double          height)
{
  double x = _planar_timeline_x_for_time (self, self->go_to_marker_ps);
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  g_autofree char *label = NULL;

  if (x < self->label_width || x > width)
    return;
  gtk_snapshot_append_color (snapshot, color,
                             &GRAPHENE_RECT_INIT ((float) x - 1, PLANAR_TIMELINE_AXIS_HEIGHT, 2,
                                                  (float) (height - PLANAR_TIMELINE_AXIS_HEIGHT)));
  label = planar_format_time_exact (self->go_to_marker_ps);
  draw_axis_pill (self, snapshot, color, label, x);
}

static void
draw_overlay (PlanarTimeline *self,
              GtkSnapshot    *snapshot,
              const Palette  *palette,
              double          width,
              double          height)
{
  graphene_rect_t rect;

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (self->label_width, 0,
                                                         (float) MAX (width - self->label_width, 0), (float) height));

  for (guint i = 0; i < planar_timeline_view_get_n_marks (self->view); i++)
    {
      gint64 mark_start, mark_end;

      planar_timeline_view_get_mark (self->view, i, &mark_start, &mark_end);
      draw_range (self, snapshot, mark_start, mark_end, &mark_color, 0.16f, height);
    }

  if (self->has_go_to_marker)
    draw_go_to_marker (self, snapshot, &mark_color, height);

  if (planar_timeline_view_get_selection (self->view) != NULL && self->profile != NULL)
    {
      gsize n;
      const PlanarEventRef *refs = planar_selection_get_events (planar_timeline_view_get_selection (self->view), &n);
      gint64 t0, t1;

      if (planar_selection_get_range (planar_timeline_view_get_selection (self->view), &t0, &t1))
        draw_range (self, snapshot, t0, t1, &accent, 0.10f, height);

      gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, PLANAR_TIMELINE_AXIS_HEIGHT, (float) width,
                                                             (float) MAX (height - PLANAR_TIMELINE_AXIS_HEIGHT, 0)));
      if (n <= MAX_OUTLINED_EVENTS)
        for (gsize i = 0; i < n; i++)
          if (event_rect (self, &refs[i], &rect))
            append_outline (snapshot, &rect, 2, &accent);

      /* The selected events' flows are drawn whatever the flow settings. */
      if (n > 0 && n <= 16)
        {
          for (gsize i = 0; i < n; i++)
            {
              PlanarTrace *trace = planar_profile_get_trace (self->profile, refs[i].trace);
              const PlanarFlowIndex *flows = planar_trace_get_flows (trace);
              PlanarEventRef ref = refs[i];

              if (flows == NULL)
                continue;
              g_array_set_size (self->flows, 0);
              planar_flow_index_query_event (flows, &ref, self->flows);
              draw_flows (self, snapshot, palette, self->flows, refs[i].trace, 0, width, height);
            }
        }
      gtk_snapshot_pop (snapshot);
    }

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, PLANAR_TIMELINE_AXIS_HEIGHT, (float) width,
                                                         (float) MAX (height - PLANAR_TIMELINE_AXIS_HEIGHT, 0)));
  if (self->input->has_hover && self->profile != NULL)
    {
      if (self->input->hover_count == 1)
        {
          if (event_rect (self, &self->input->hover, &rect))
            append_outline (snapshot, &rect, 1, &palette->fg);
        }
      else
        {
          double y;
          const PlanarEvent *ev = planar_event_ref_resolve (&self->input->hover, self->profile, NULL, NULL, NULL);

          if (ev != NULL && _planar_timeline_get_track_y (self, self->input->hover.trace, self->input->hover.plane, self->input->hover.track, ev->depth, &y))
            {
              double x0 = _planar_timeline_x_for_time (self, self->input->hover_start_ps);
              double x1 = MAX (_planar_timeline_x_for_time (self, self->input->hover_end_ps), x0 + 1);

              append_outline (snapshot, &GRAPHENE_RECT_INIT ((float) x0, (float) y, (float) (x1 - x0), PLANAR_TIMELINE_EVENT_HEIGHT),
                              1, &palette->fg);
            }
        }
    }
  gtk_snapshot_pop (snapshot);

  switch (self->input->drag)
    {
    case DRAG_BOX:
      {
        double x0 = MIN (self->input->drag_x0, self->input->drag_x1), x1 = MAX (self->input->drag_x0, self->input->drag_x1);
        double y0 = MIN (self->input->drag_y0, self->input->drag_y1), y1 = MAX (self->input->drag_y0, self->input->drag_y1);
        GdkRGBA fill = accent;

        fill.alpha = 0.15f;
        rect = GRAPHENE_RECT_INIT ((float) x0, (float) y0, (float) (x1 - x0), (float) (y1 - y0));
        gtk_snapshot_append_color (snapshot, &fill, &rect);
        append_outline (snapshot, &rect, 1, &accent);
      }
      break;

    case DRAG_ZOOM:
      draw_range (self, snapshot,
                  _planar_timeline_time_for_x (self, self->input->drag_x0), _planar_timeline_time_for_x (self, self->input->drag_x1),
                  &accent, 0.18f, height);
      break;

    case DRAG_TIMING:
      draw_range (self, snapshot, self->input->timing_t0_ps, self->input->timing_t1_ps, &accent, 0.12f, height);
      break;

    case DRAG_SECTION:
    case DRAG_PAN:
    case DRAG_NONE:
    default:
      break;
    }

  gtk_snapshot_pop (snapshot);
}

/* Where a dragged section header would land: a line across the timeline
 * above the section it would go before. */
static void
draw_section_drop (PlanarTimeline *self,
                   GtkSnapshot    *snapshot,
                   double          width)
{
  guint n = planar_timeline_layout_get_n_sections (self->layout);
  double content_y = planar_timeline_layout_get_height (self->layout);
  const PlanarTimelineSection *dragged = self->input->drag_section < n
    ? planar_timeline_layout_get_section (self->layout, self->input->drag_section) : NULL;
  GdkRGBA tint = accent;
  double y;

  /* The header being moved is tinted. */
  tint.alpha = 0.18f;
  if (dragged != NULL && dragged->row != G_MAXUINT)
    gtk_snapshot_append_color (snapshot, &tint,
                               &GRAPHENE_RECT_INIT (0, (float) _planar_timeline_widget_y (self, planar_timeline_layout_get_row (self->layout, dragged->row)->y),
                                                    (float) width, PLANAR_TIMELINE_SECTION_HEIGHT));

  for (guint s = self->input->drop_before; s < n; s++)
    {
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (self->layout, s);

      if (section->row != G_MAXUINT)
        {
          content_y = planar_timeline_layout_get_row (self->layout, section->row)->y;
          break;
        }
    }
  y = MAX (_planar_timeline_widget_y (self, content_y), PLANAR_TIMELINE_AXIS_HEIGHT);
  gtk_snapshot_append_color (snapshot, &accent, &GRAPHENE_RECT_INIT (0, (float) y - 1, (float) width, 3));
}

void
_planar_timeline_ensure_layouts (PlanarTimeline *self)
{
  PangoFontDescription *font;
  int size;

  if (self->label_layout != NULL)
    return;

  self->label_layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  pango_layout_set_ellipsize (self->label_layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (self->label_layout, TRUE);

  /* Event labels and the axis use a smaller size than the theme's. */
  font = pango_font_description_copy (pango_context_get_font_description (pango_layout_get_context (self->label_layout)));
  size = pango_font_description_get_size (font);
  if (size <= 0)
    size = 10 * PANGO_SCALE;

  self->small_layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  pango_font_description_set_size (font, (int) (size * 0.84));
  pango_layout_set_font_description (self->small_layout, font);
  pango_layout_set_ellipsize (self->small_layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (self->small_layout, TRUE);

  self->event_layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  pango_layout_set_font_description (self->event_layout, font);
  planar_track_renderer_set_layout (self->renderer, self->event_layout);

  self->title_layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  pango_font_description_set_size (font, size);
  pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (self->title_layout, font);
  pango_layout_set_single_paragraph_mode (self->title_layout, TRUE);
  pango_layout_set_ellipsize (self->title_layout, PANGO_ELLIPSIZE_END);

  pango_font_description_free (font);
}

void
_planar_timeline_drop_layouts (PlanarTimeline *self)
{
  g_clear_object (&self->label_layout);
  g_clear_object (&self->small_layout);
  g_clear_object (&self->event_layout);
  g_clear_object (&self->title_layout);
}

void
_planar_timeline_draw_view (PlanarTimeline *self,
                            GtkSnapshot    *snapshot,
                            int             width,
                            int             height)
{
  GdkRGBA fg;
  Palette palette;

  _planar_timeline_ensure_layouts (self);
  get_foreground (self, &fg);
  palette_init (&palette, &fg);
  draw_tracks_layer (self, snapshot, &palette, width, height);
  draw_overlay (self, snapshot, &palette, width, height);
}

void
_planar_timeline_snapshot (GtkWidget   *widget,
                           GtkSnapshot *snapshot)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  int scale = gtk_widget_get_scale_factor (widget);
  GdkRGBA fg;
  Palette palette;

  _planar_timeline_ensure_layouts (self);
  get_foreground (self, &fg);
  palette_init (&palette, &fg);

  if (self->tracks_node == NULL || self->tracks_dirty ||
      width != self->cached_width || height != self->cached_height || scale != self->cached_scale ||
      !gdk_rgba_equal (&fg, &self->cached_fg))
    {
      GtkSnapshot *layer = gtk_snapshot_new ();

      draw_tracks_layer (self, layer, &palette, width, height);
      g_clear_pointer (&self->tracks_node, gsk_render_node_unref);
      self->tracks_node = gtk_snapshot_free_to_node (layer);
      self->tracks_dirty = FALSE;
      self->cached_width = width;
      self->cached_height = height;
      self->cached_scale = scale;
      self->cached_fg = fg;
    }
  if (self->tracks_node != NULL)
    gtk_snapshot_append_node (snapshot, self->tracks_node);

  draw_overlay (self, snapshot, &palette, width, height);
  if (self->input->drag == DRAG_SECTION)
    draw_section_drop (self, snapshot, width);
  gtk_widget_snapshot_child (widget, self->tool_selector, snapshot);
}

