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

/* Labels: a header's title runs to the widget's end after its expander; a
 * track's or counter's name stays in the label column. */

static const char *
section_label (PlanarTimeline          *self,
               const PlanarTimelineRow *row)
{
  return planar_timeline_layout_get_section (self->layout, row->section)->title;
}

static const char *
host_label (PlanarTimeline          *self,
            const PlanarTimelineRow *row)
{
  for (guint h = 0; h < planar_timeline_layout_get_n_hosts (self->layout); h++)
    if (planar_timeline_layout_get_host (self->layout, h)->trace == row->trace)
      return planar_timeline_layout_get_host (self->layout, h)->title;
  return NULL;
}

static double
header_label_room (PlanarTimeline          *self,
                   const PlanarTimelineRow *row)
{
  return gtk_widget_get_width (GTK_WIDGET (self)) - PLANAR_TIMELINE_TITLE_X - 8;
}

static const char *
entry_label (PlanarTimeline          *self,
             const PlanarTimelineRow *row)
{
  int e = planar_timeline_layout_find_entry (self->layout, row);

  return e >= 0 ? planar_timeline_layout_get_entry (self->layout, (guint) e)->name : NULL;
}

/* As wide as the drawing lets a name be (see the draw functions). */
static double
entry_label_room (PlanarTimeline          *self,
                  const PlanarTimelineRow *row)
{
  return self->label_width - 22;
}

static const PlanarTimelineRowClass row_classes[] = {
  [PLANAR_TIMELINE_ROW_SECTION] = {
    .draw = _planar_timeline_draw_section_row,
    .label = section_label,
    .label_room = header_label_room,
    .activate = _planar_timeline_activate_section_row,
    .context_menu = _planar_timeline_section_menu,
  },
  [PLANAR_TIMELINE_ROW_TRACK] = {
    .draw = _planar_timeline_draw_track_row,
    .pick = _planar_timeline_pick_track_row,
    .label = entry_label,
    .label_room = entry_label_room,
    .context_menu = _planar_timeline_track_menu,
  },
  [PLANAR_TIMELINE_ROW_COUNTER] = {
    .draw = _planar_timeline_draw_counter_row,
    .label = entry_label,
    .label_room = entry_label_room,
    .context_menu = _planar_timeline_track_menu,
  },
  [PLANAR_TIMELINE_ROW_RESERVED] = {
    .draw = _planar_timeline_draw_reserved_row,
    .label = entry_label,
    .label_room = entry_label_room,
    .context_menu = _planar_timeline_track_menu,
  },
  [PLANAR_TIMELINE_ROW_HOST] = {
    .draw = _planar_timeline_draw_host_row,
    .label = host_label,
    .label_room = header_label_room,
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
