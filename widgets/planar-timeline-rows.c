/* planar-timeline-rows.c: what each kind of row of the timeline does.
 *
 * One small table of functions per kind of row, as Tracy's TimelineItem
 * and Perfetto's slice and counter track classes are: the drawing, the
 * picking, the label's tooltip, a click on the label and the secondary
 * menu. The layout (view/planar-timeline-layout.c) gives each row its
 * place and height; the code that draws and reads input asks the row's
 * class instead of switching on its kind.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-private.h"

/* Labels: a header's title and subtitle run to the widget's end (or the
 * tool palette) after its expander; a track's or counter's name stays in
 * the label column. */

static int
natural_width (PangoLayout *layout,
               const char  *text)
{
  int width;

  pango_layout_set_text (layout, text, -1);
  pango_layout_set_width (layout, -1);
  pango_layout_get_pixel_size (layout, &width, NULL);
  return width;
}

/* As draw_header() lays them out. */
static char *
header_tooltip (PlanarTimeline *self,
                const char     *title,
                const char     *subtitle,
                double          y)
{
  double room = _planar_timeline_header_text_end (self, y) - PLANAR_TIMELINE_TITLE_X;
  int title_width;
  gboolean has_subtitle = subtitle != NULL && subtitle[0] != '\0';

  _planar_timeline_ensure_layouts (self);
  title_width = natural_width (self->title_layout, title);

  if (title_width > room)
    return has_subtitle ? g_strdup_printf ("%s\n%s", title, subtitle) : g_strdup (title);
  if (has_subtitle && title_width + 12 + natural_width (self->small_layout, subtitle) > room)
    return g_strdup_printf ("%s\n%s", title, subtitle);
  return NULL;
}

static char *
section_tooltip (PlanarTimeline          *self,
                 const PlanarTimelineRow *row,
                 double                   y)
{
  const PlanarTimelineSection *section = planar_timeline_layout_get_section (self->layout, row->section);

  return header_tooltip (self, section->title, section->subtitle, y);
}

static char *
host_tooltip (PlanarTimeline          *self,
              const PlanarTimelineRow *row,
              double                   y)
{
  for (guint h = 0; h < planar_timeline_layout_get_n_hosts (self->layout); h++)
    {
      const PlanarTimelineHost *host = planar_timeline_layout_get_host (self->layout, h);

      if (host->trace == row->trace)
        return header_tooltip (self, host->title, host->subtitle, y);
    }
  return NULL;
}

/* As wide as the drawing lets a name be (see the draw functions). */
static char *
entry_tooltip (PlanarTimeline          *self,
               const PlanarTimelineRow *row,
               double                   y)
{
  int e = planar_timeline_layout_find_entry (self->layout, row);
  const char *name;

  if (e < 0)
    return NULL;
  name = planar_timeline_layout_get_entry (self->layout, (guint) e)->name;
  _planar_timeline_ensure_layouts (self);
  return natural_width (self->label_layout, name) > self->label_width - 22 ? g_strdup (name) : NULL;
}

static const PlanarTimelineRowClass row_classes[] = {
  [PLANAR_TIMELINE_ROW_SECTION] = {
    .draw = _planar_timeline_draw_section_row,
    .tooltip = section_tooltip,
    .activate = _planar_timeline_activate_section_row,
    .context_menu = _planar_timeline_section_menu,
  },
  [PLANAR_TIMELINE_ROW_TRACK] = {
    .draw = _planar_timeline_draw_track_row,
    .pick = _planar_timeline_pick_track_row,
    .tooltip = entry_tooltip,
    .context_menu = _planar_timeline_track_menu,
  },
  [PLANAR_TIMELINE_ROW_COUNTER] = {
    .draw = _planar_timeline_draw_counter_row,
    .tooltip = entry_tooltip,
    .context_menu = _planar_timeline_track_menu,
  },
  [PLANAR_TIMELINE_ROW_RESERVED] = {
    .draw = _planar_timeline_draw_reserved_row,
    .tooltip = entry_tooltip,
    .context_menu = _planar_timeline_track_menu,
  },
  [PLANAR_TIMELINE_ROW_HOST] = {
    .draw = _planar_timeline_draw_host_row,
    .tooltip = host_tooltip,
    .activate = _planar_timeline_activate_host_row,
    .context_menu = _planar_timeline_host_menu,
  },
};

const PlanarTimelineRowClass *
_planar_timeline_row_class (const PlanarTimelineRow *row)
{
  g_assert (row->kind < G_N_ELEMENTS (row_classes));
  return &row_classes[row->kind];
}
