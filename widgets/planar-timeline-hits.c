/* planar-timeline-hits.c: the hits of a find on the timeline, and bringing
 * one of them into view.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-private.h"

#include <math.h>

/* Hits are outlined in this color; one too narrow to outline gets a bar
 * of it, at least PLANAR_TIMELINE_HIT_TICK_WIDTH wide, so that every hit
 * in view shows at any zoom. */
static const GdkRGBA hit_color = { 1.f, 0.471f, 0.f, 1.f };
/* A thin line of this color inside the outline keeps it apart from events
 * of a similar hue. */
static const GdkRGBA hit_inner_color = { 0.f, 0.f, 0.f, 0.55f };

void
planar_timeline_set_search_hits (PlanarTimeline       *self,
                                 PlanarSearchHitIndex *hits)
{
  g_return_if_fail (PLANAR_IS_TIMELINE (self));

  if (self->search_hits == hits)
    return;
  if (hits != NULL)
    planar_search_hit_index_ref (hits);
  g_clear_pointer (&self->search_hits, planar_search_hit_index_unref);
  self->search_hits = hits;
  _planar_timeline_invalidate_tracks (self);
}

PlanarSearchHitIndex *
planar_timeline_get_search_hits (PlanarTimeline *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), NULL);
  return self->search_hits;
}

void
planar_timeline_show_event (PlanarTimeline       *self,
                            const PlanarEventRef *ref)
{
  const PlanarEvent *ev;
  double area, window, width_px;
  gint64 start, end;
  gint64 view_start, view_end;

  g_return_if_fail (PLANAR_IS_TIMELINE (self));
  g_return_if_fail (ref != NULL);

  planar_timeline_view_get_visible_range (self->view, &view_start, &view_end);
  if (self->profile == NULL)
    return;
  ev = planar_event_ref_resolve (ref, self->profile, NULL, NULL, NULL);
  if (ev == NULL)
    return;
  start = ev->start_ps;
  end = ev->start_ps + ev->duration_ps;
  area = _planar_timeline_time_area_width (self);
  window = (double) (view_end - view_start);
  width_px = (double) ev->duration_ps * area / MAX (window, 1.0);

  if (ev->duration_ps > 0 && width_px < PLANAR_TIMELINE_SHOW_MIN_PX)
    {
      /* Too narrow to see: zoom in until it is a tenth of the view (and at
       * least the minimum), centred. */
      double target_px = MAX (area / 10.0, PLANAR_TIMELINE_SHOW_MIN_PX);
      double new_window = MAX ((double) ev->duration_ps * area / target_px, (double) PLANAR_TIMELINE_MIN_WINDOW_PS);
      gint64 middle = start + ev->duration_ps / 2;
      gint64 half = (gint64) llround (new_window / 2);

      planar_timeline_set_view (self, middle - half, middle + half);
    }
  else if (end < view_start || start > view_end
           || ((start < view_start || end > view_end) && (double) ev->duration_ps <= window))
    {
      /* Outside the view, or cut by its edge: centred, at the same zoom. */
      gint64 width = view_end - view_start;
      gint64 middle = start + ev->duration_ps / 2;

      planar_timeline_set_view (self, middle - width / 2, middle - width / 2 + width);
    }
  /* Its row scrolled into view; the window now holds it. */
  planar_timeline_reveal_event (self, ref);
}

static void
append_hit_outline (GtkSnapshot *snapshot,
                    double       x0,
                    double       x1,
                    double       y)
{
  GskRoundedRect outline;
  const float widths[4] = { 2, 2, 2, 2 };
  const GdkRGBA colors[4] = { hit_color, hit_color, hit_color, hit_color };
  const float inner_widths[4] = { 1, 1, 1, 1 };
  const GdkRGBA inner_colors[4] = { hit_inner_color, hit_inner_color, hit_inner_color, hit_inner_color };

  gsk_rounded_rect_init_from_rect (&outline, &GRAPHENE_RECT_INIT ((float) x0 - 1, (float) y - 1, (float) (x1 - x0) + 2,
                                                                  PLANAR_TIMELINE_EVENT_HEIGHT + 2), 0);
  gtk_snapshot_append_border (snapshot, &outline, widths, colors);
  gsk_rounded_rect_init_from_rect (&outline, &GRAPHENE_RECT_INIT ((float) x0 + 1, (float) y + 1, (float) (x1 - x0) - 2,
                                                                  PLANAR_TIMELINE_EVENT_HEIGHT - 2), 0);
  gtk_snapshot_append_border (snapshot, &outline, inner_widths, inner_colors);
}

/* A bar over the band at @y from @x0 to @x1, edged with the inner color
 * so that it stands out from events of its hue. */
static void
append_hit_bar (GtkSnapshot *snapshot,
                double       x0,
                double       x1,
                double       y)
{
  gtk_snapshot_append_color (snapshot, &hit_inner_color,
                             &GRAPHENE_RECT_INIT ((float) x0 - 1, (float) y - 2, (float) (x1 - x0) + 2,
                                                  PLANAR_TIMELINE_EVENT_HEIGHT + 4));
  gtk_snapshot_append_color (snapshot, &hit_color,
                             &GRAPHENE_RECT_INIT ((float) x0, (float) y - 1, (float) (x1 - x0),
                                                  PLANAR_TIMELINE_EVENT_HEIGHT + 2));
}

void
_planar_timeline_draw_hits (PlanarTimeline *self,
                            GtkSnapshot    *snapshot,
                            double          width)
{
  double top = _planar_timeline_vscroll (self);
  double bottom = top + _planar_timeline_content_height (self);
  double left = self->label_width;
  double ps_per_px = (double) (planar_timeline_view_get_end_ps (self->view) - planar_timeline_view_get_start_ps (self->view)) / _planar_timeline_time_area_width (self);
  guint n_rows = planar_timeline_layout_get_n_rows (self->layout);

  if (self->search_hits == NULL || self->profile == NULL)
    return;

  for (guint r = planar_timeline_layout_first_row_below (self->layout, (int) floor (top)); r < n_rows; r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (self->layout, r);
      double band0;
      guint n_depths;
      int min_depth, max_depth;

      if (row->y > bottom)
        break;
      if (row->kind != PLANAR_TIMELINE_ROW_TRACK)
        continue;
      n_depths = MIN (planar_search_hit_index_get_n_depths (self->search_hits, row->trace, row->plane, row->track),
                      row->n_depths);
      if (n_depths == 0)
        continue;
      band0 = planar_timeline_row_depth_y (row, 0);
      min_depth = MAX ((int) floor ((top - band0) / PLANAR_TIMELINE_DEPTH_PITCH), 0);
      max_depth = MIN ((int) floor ((bottom - band0) / PLANAR_TIMELINE_DEPTH_PITCH), (int) n_depths - 1);

      for (int d = min_depth; d <= max_depth; d++)
        {
          double y = _planar_timeline_widget_y (self, planar_timeline_row_depth_y (row, (guint) d));
          /* Bars that touch are drawn as one: a dense run of hits costs a
           * node, not one a column. */
          double run_x0 = 0, run_x1 = -1;

          g_array_set_size (self->hit_spans, 0);
          planar_search_hit_index_query (self->search_hits, row->trace, row->plane, row->track, (guint) d,
                                         planar_timeline_view_get_start_ps (self->view), planar_timeline_view_get_end_ps (self->view), ps_per_px, self->hit_spans);
          for (guint i = 0; i <= self->hit_spans->len; i++)
            {
              const PlanarSearchHitSpan *span = NULL;
              double x0 = 0, x1 = 0, bar_x0 = 0, bar_x1 = -1;

              if (i < self->hit_spans->len)
                {
                  span = &g_array_index (self->hit_spans, PlanarSearchHitSpan, i);
                  x0 = MAX (_planar_timeline_x_for_time (self, span->start_ps), left - 4);
                  x1 = MIN (_planar_timeline_x_for_time (self, span->end_ps), width + 4);
                  if (span->n_hits > 1 || x1 - x0 < PLANAR_TIMELINE_HIT_TICK_WIDTH + 2)
                    {
                      /* Too narrow to outline: a bar across its band. */
                      double w = MAX (x1 - x0, PLANAR_TIMELINE_HIT_TICK_WIDTH);

                      bar_x0 = floor ((x0 + x1) / 2 - w / 2);
                      bar_x1 = bar_x0 + ceil (w);
                      if (run_x1 >= run_x0 && bar_x0 <= run_x1)
                        {
                          run_x1 = MAX (run_x1, bar_x1);
                          continue;
                        }
                    }
                }
              if (run_x1 >= run_x0)
                append_hit_bar (snapshot, run_x0, run_x1, y);
              run_x0 = bar_x0;
              run_x1 = bar_x1;
              if (span != NULL && bar_x1 < bar_x0)
                append_hit_outline (snapshot, x0, x1, y);
            }
        }
    }
}
