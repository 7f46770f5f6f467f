/* planar-timeline-layout-view.c: what a view of a laid-out timeline
 * shows, from the layout's rows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-layout.h"

gboolean
planar_timeline_layout_sections_in_view (PlanarTimelineLayout *self,
                                         int                   height,
                                         GArray               *sections)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (sections != NULL, FALSE);

  for (guint s = 0; s < planar_timeline_layout_get_n_sections (self); s++)
    {
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (self, s);
      const PlanarTimelineRow *header;

      if (section->row == G_MAXUINT || section->pending || section->collapsed)
        continue;
      /* Its tracks follow its header. */
      header = planar_timeline_layout_get_row (self, section->row);
      if (header->y + header->height >= height)
        break;
      g_array_append_val (sections, s);
    }
  return planar_timeline_layout_get_height (self) + PLANAR_TIMELINE_SECTION_HEIGHT >= height;
}
