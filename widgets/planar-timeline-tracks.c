/* planar-timeline-tracks.c: which tracks and sections the timeline shows,
 * in which order, and the commands that change it: the track and section
 * menu, Go to Time, and their "timeline." actions.
 *
 * What is hidden, collapsed and moved lives in a PlanarViewState that the
 * layout reads; the application remembers it per profile. Actions that
 * name a track or section take its id ("host|plane" or "host|plane|track",
 * see planar-timeline-layout.c); the empty string means the one of the
 * first selected event, so that keys work on what the user is looking at.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-private.h"

#include <glib/gi18n.h>
#include <string.h>

#include "planar-stat-format.h"
#include "planar-time-ticks.h"
#include "planar-units.h"

/* ------------------------------------------------------------------------
 * The view state
 * ------------------------------------------------------------------------ */

/* Selected events on tracks that are no longer shown leave the selection:
 * the keys that step through events must not land where nothing is drawn. */
static void
drop_hidden_selection (PlanarTimeline *self)
{
  g_autoptr(GArray) kept = NULL;
  g_autoptr(PlanarSelection) selection = NULL;
  const PlanarEventRef *refs;
  gint64 start, end;
  gboolean has_range;
  gsize n;

  if (planar_timeline_view_get_selection (self->view) == NULL)
    return;
  refs = planar_selection_get_events (planar_timeline_view_get_selection (self->view), &n);
  kept = g_array_sized_new (FALSE, FALSE, sizeof (PlanarEventRef), (guint) n);
  for (gsize i = 0; i < n; i++)
    if (planar_timeline_layout_find_track (self->layout, refs[i].trace, refs[i].plane, refs[i].track) >= 0)
      g_array_append_val (kept, refs[i]);
    else
      {
        /* A collapsed section's tracks are only folded away: keep them. */
        for (guint s = 0; s < planar_timeline_layout_get_n_sections (self->layout); s++)
          {
            const PlanarTimelineSection *section = planar_timeline_layout_get_section (self->layout, s);

            if (section->trace == refs[i].trace && section->plane == refs[i].plane &&
                section->collapsed && section->row != G_MAXUINT)
              {
                g_array_append_val (kept, refs[i]);
                break;
              }
          }
      }
  if (kept->len == n)
    return;
  has_range = planar_selection_get_range (planar_timeline_view_get_selection (self->view), &start, &end);
  selection = planar_selection_new (self->profile, (const PlanarEventRef *) (gpointer) kept->data, kept->len,
                                    has_range, start, end);
  planar_timeline_set_selection (self, selection);
}

static void
view_state_changed (PlanarTimeline  *self,
                    PlanarViewState *state)
{
  int label_width = planar_view_state_get_label_width (state);

  _planar_timeline_set_label_width (self, label_width > 0 ? label_width : PLANAR_TIMELINE_LABEL_WIDTH, FALSE);
  _planar_timeline_refresh_layout (self);
  _planar_timeline_invalidate_tracks (self);
  drop_hidden_selection (self);
  _planar_timeline_update_actions (self);
}

void
_planar_timeline_watch_view_state (PlanarTimeline  *self,
                                   PlanarViewState *old_state)
{
  if (old_state != NULL)
    g_signal_handlers_disconnect_by_func (old_state, view_state_changed, self);
  planar_timeline_layout_set_view_state (self->layout, self->view_state);
  g_signal_connect_object (self->view_state, "changed", G_CALLBACK (view_state_changed), self, G_CONNECT_SWAPPED);
  if (old_state != NULL)
    view_state_changed (self, self->view_state);
}

/* The section of the first selected event, or -1. */
static int
selected_section (PlanarTimeline *self)
{
  const PlanarEventRef *refs;
  gsize n;

  if (planar_timeline_view_get_selection (self->view) == NULL)
    return -1;
  refs = planar_selection_get_events (planar_timeline_view_get_selection (self->view), &n);
  if (n == 0)
    return -1;
  for (guint s = 0; s < planar_timeline_layout_get_n_sections (self->layout); s++)
    {
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (self->layout, s);

      if (section->trace == refs[0].trace && section->plane == refs[0].plane)
        return (int) s;
    }
  return -1;
}

/* The section @id names ("": the selected event's), or -1. */
static int
resolve_section (PlanarTimeline *self,
                 const char     *id)
{
  if (id[0] == '\0')
    return selected_section (self);
  return planar_timeline_layout_find_section (self->layout, id);
}

/* The id of the track @id names ("": the selected event's), or NULL. */
static const char *
resolve_track (PlanarTimeline *self,
               const char     *id)
{
  const PlanarEventRef *refs;
  gsize n;
  int r;

  if (id[0] != '\0')
    return id;
  if (planar_timeline_view_get_selection (self->view) == NULL)
    return NULL;
  refs = planar_selection_get_events (planar_timeline_view_get_selection (self->view), &n);
  if (n == 0)
    return NULL;
  r = planar_timeline_layout_find_track (self->layout, refs[0].trace, refs[0].plane, refs[0].track);
  if (r < 0)
    return NULL;
  r = planar_timeline_layout_find_entry (self->layout, planar_timeline_layout_get_row (self->layout, (guint) r));
  return r >= 0 ? planar_timeline_layout_get_entry (self->layout, (guint) r)->id : NULL;
}

/* The ids of every section, in display order. */
static GStrv
dup_section_order (PlanarTimeline *self)
{
  guint n = planar_timeline_layout_get_n_sections (self->layout);
  GStrv order = g_new0 (char *, n + 1);

  for (guint s = 0; s < n; s++)
    order[s] = g_strdup (planar_timeline_layout_get_section (self->layout, s)->id);
  return order;
}

void
_planar_timeline_move_section (PlanarTimeline *self,
                               guint           section,
                               guint           before)
{
  g_auto(GStrv) order = dup_section_order (self);
  guint n = g_strv_length (order);
  char *moved;

  g_return_if_fail (section < n);
  g_return_if_fail (before <= n);

  if (before == section || before == section + 1)
    return;
  moved = order[section];
  if (before > section)
    {
      memmove (&order[section], &order[section + 1], (before - section - 1) * sizeof (char *));
      order[before - 1] = moved;
    }
  else
    {
      memmove (&order[before + 1], &order[before], (section - before) * sizeof (char *));
      order[before] = moved;
    }
  planar_view_state_set_section_order (self->view_state, (const char * const *) order);
}

/* Moves @section past the next shown section in @direction (-1: up). */
static void
step_section (PlanarTimeline *self,
              guint           section,
              int             direction)
{
  guint n = planar_timeline_layout_get_n_sections (self->layout);

  for (int s = (int) section + direction; s >= 0 && s < (int) n; s += direction)
    if (planar_timeline_layout_get_section (self->layout, (guint) s)->row != G_MAXUINT)
      {
        _planar_timeline_move_section (self, section, direction < 0 ? (guint) s : (guint) s + 1);
        return;
      }
}

guint
_planar_timeline_drop_target (PlanarTimeline *self,
                              double          y)
{
  guint n = planar_timeline_layout_get_n_sections (self->layout);
  double cy = y - PLANAR_TIMELINE_AXIS_HEIGHT + _planar_timeline_vscroll (self);

  /* Before the first shown section whose middle is below the pointer. */
  for (guint s = 0; s < n; s++)
    {
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (self->layout, s);
      const PlanarTimelineRow *header;
      guint next_row = G_MAXUINT;
      double top, bottom;

      if (section->row == G_MAXUINT)
        continue;
      header = planar_timeline_layout_get_row (self->layout, section->row);
      for (guint k = s + 1; k < n && next_row == G_MAXUINT; k++)
        next_row = planar_timeline_layout_get_section (self->layout, k)->row;
      top = header->y;
      bottom = next_row != G_MAXUINT ? planar_timeline_layout_get_row (self->layout, next_row)->y
                                     : planar_timeline_layout_get_height (self->layout);
      if (cy < (top + bottom) / 2)
        return s;
    }
  return n;
}

/* ------------------------------------------------------------------------
 * Actions
 * ------------------------------------------------------------------------ */

static void
hide_track (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  const char *id = resolve_track (self, g_variant_get_string (parameter, NULL));

  if (id != NULL)
    {
      g_autofree char *owned = g_strdup (id);

      planar_view_state_set_track_hidden (self->view_state, owned, TRUE);
    }
}

static void
hide_section (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  int s = resolve_section (self, g_variant_get_string (parameter, NULL));

  if (s >= 0)
    {
      g_autofree char *id = g_strdup (planar_timeline_layout_get_section (self->layout, (guint) s)->id);

      planar_view_state_set_section_hidden (self->view_state, id, TRUE);
    }
}

static void
show_only_section (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  int s = resolve_section (self, g_variant_get_string (parameter, NULL));
  g_auto(GStrv) ids = NULL;

  if (s < 0)
    return;
  ids = dup_section_order (self);
  /* One change for the lot: one relayout, one write to the store. */
  planar_view_state_freeze_changes (self->view_state);
  for (guint k = 0; ids[k] != NULL; k++)
    planar_view_state_set_section_hidden (self->view_state, ids[k], k != (guint) s);
  planar_view_state_set_section_collapsed (self->view_state, ids[s], FALSE);
  planar_view_state_thaw_changes (self->view_state);
}

static void
show_all_tracks (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);

  planar_timeline_set_track_filter (self, NULL);
  planar_view_state_show_all (self->view_state);
}

static void
set_all_collapsed (PlanarTimeline *self,
                   gboolean        collapsed)
{
  g_auto(GStrv) ids = dup_section_order (self);

  planar_view_state_freeze_changes (self->view_state);
  for (guint k = 0; ids[k] != NULL; k++)
    planar_view_state_set_section_collapsed (self->view_state, ids[k], collapsed);
  planar_view_state_thaw_changes (self->view_state);
}

static void
collapse_all (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  set_all_collapsed (PLANAR_TIMELINE (widget), TRUE);
}

static void
expand_all (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  set_all_collapsed (PLANAR_TIMELINE (widget), FALSE);
}

static void
toggle_host (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  const char *id = g_variant_get_string (parameter, NULL);

  for (guint h = 0; h < planar_timeline_layout_get_n_hosts (self->layout); h++)
    {
      const PlanarTimelineHost *host = planar_timeline_layout_get_host (self->layout, h);

      /* The change lays the tracks out again at once: @host goes. */
      if (strcmp (host->id, id) == 0)
        {
          planar_timeline_layout_set_host_collapsed (self->layout, h, !host->collapsed);
          return;
        }
    }
}

static void
toggle_section (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  int s = resolve_section (self, g_variant_get_string (parameter, NULL));

  if (s >= 0 && planar_timeline_layout_get_section (self->layout, (guint) s)->pending)
    _planar_timeline_request_host (self, (guint) s);
  else if (s >= 0)
    planar_timeline_layout_set_collapsed (self->layout, (guint) s,
                                          !planar_timeline_layout_get_section (self->layout, (guint) s)->collapsed);
}

static void
move_section_up (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  int s = resolve_section (self, g_variant_get_string (parameter, NULL));

  if (s >= 0)
    step_section (self, (guint) s, -1);
}

static void
move_section_down (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  int s = resolve_section (self, g_variant_get_string (parameter, NULL));

  if (s >= 0)
    step_section (self, (guint) s, 1);
}

static void
reset_section_order (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  planar_view_state_set_section_order (PLANAR_TIMELINE (widget)->view_state, NULL);
}

static void
go_to_time (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  g_autofree char *ascii = planar_format_duration ((planar_timeline_view_get_start_ps (self->view) + planar_timeline_view_get_end_ps (self->view)) / 2);
  g_autofree char *now = planar_stat_micro_sign (ascii);
  int middle = self->label_width + (int) _planar_timeline_time_area_width (self) / 2;

  /* The popover points at the middle of the axis, where the time lands. */
  gtk_popover_set_pointing_to (GTK_POPOVER (self->go_to_popover),
                               &(GdkRectangle) { middle, 0, 1, PLANAR_TIMELINE_AXIS_HEIGHT });
  /* The entry starts with the time in the middle of the view, selected,
   * so that typing replaces it. */
  gtk_editable_set_text (GTK_EDITABLE (self->go_to_entry), now);
  gtk_popover_popup (GTK_POPOVER (self->go_to_popover));
}

/* The entry takes the focus once the popover is on screen (it cannot
 * before), with its text selected. */
static void
go_to_mapped (PlanarTimeline *self)
{
  gtk_widget_grab_focus (self->go_to_entry);
  gtk_editable_select_region (GTK_EDITABLE (self->go_to_entry), 0, -1);
}

/* The track and section menu from the keyboard: at the selected event's
 * track, or the first row in view. */
static void
show_track_menu (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  PlanarSelection *selection = planar_timeline_view_get_selection (self->view);
  const PlanarEventRef *refs = NULL;
  gsize n = 0;
  double y = -1;

  if (selection != NULL)
    refs = planar_selection_get_events (selection, &n);
  if (n > 0)
    {
      int r = planar_timeline_layout_find_track (self->layout, refs[0].trace, refs[0].plane, refs[0].track);

      if (r >= 0)
        y = _planar_timeline_widget_y (self, planar_timeline_layout_get_row (self->layout, (guint) r)->y + 4);
    }
  if (y < PLANAR_TIMELINE_AXIS_HEIGHT || y > gtk_widget_get_height (widget))
    {
      guint r = planar_timeline_layout_first_row_below (self->layout, (int) _planar_timeline_vscroll (self));

      if (r >= planar_timeline_layout_get_n_rows (self->layout))
        return;
      y = MAX (_planar_timeline_widget_y (self, planar_timeline_layout_get_row (self->layout, r)->y + 4),
               PLANAR_TIMELINE_AXIS_HEIGHT + 4);
    }
  _planar_timeline_popup_context_menu (self, 40, y);
}

void
_planar_timeline_class_add_track_actions (GtkWidgetClass *widget_class)
{
  /* Parameter: a track's id, or "" for the selected event's track. */
  gtk_widget_class_install_action (widget_class, "timeline.hide-track", "s", hide_track);
  /* Parameter: a section's id, or "" for the selected event's section. */
  gtk_widget_class_install_action (widget_class, "timeline.hide-section", "s", hide_section);
  gtk_widget_class_install_action (widget_class, "timeline.show-only-section", "s", show_only_section);
  gtk_widget_class_install_action (widget_class, "timeline.toggle-section", "s", toggle_section);
  /* Parameter: a host's id ("host|*"). */
  gtk_widget_class_install_action (widget_class, "timeline.toggle-host", "s", toggle_host);
  gtk_widget_class_install_action (widget_class, "timeline.move-section-up", "s", move_section_up);
  gtk_widget_class_install_action (widget_class, "timeline.move-section-down", "s", move_section_down);
  gtk_widget_class_install_action (widget_class, "timeline.reset-section-order", NULL, reset_section_order);
  gtk_widget_class_install_action (widget_class, "timeline.show-all-tracks", NULL, show_all_tracks);
  gtk_widget_class_install_action (widget_class, "timeline.collapse-all", NULL, collapse_all);
  gtk_widget_class_install_action (widget_class, "timeline.expand-all", NULL, expand_all);
  gtk_widget_class_install_action (widget_class, "timeline.go-to-time", NULL, go_to_time);
  gtk_widget_class_install_action (widget_class, "timeline.show-track-menu", NULL, show_track_menu);
}

/* ------------------------------------------------------------------------
 * The track and section menu
 * ------------------------------------------------------------------------ */

static void
append_item (GMenu      *menu,
             const char *label,
             const char *action,
             const char *id)
{
  g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

  if (id != NULL)
    g_menu_item_set_action_and_target_value (item, action, g_variant_new_string (id));
  else
    g_menu_item_set_detailed_action (item, action);
  g_menu_append_item (menu, item);
}

void
_planar_timeline_section_menu (PlanarTimeline          *self,
                               const PlanarTimelineRow *row,
                               GMenu                   *menu)
{
  const PlanarTimelineSection *section = planar_timeline_layout_get_section (self->layout, row->section);
  g_autoptr(GMenu) part = g_menu_new ();

  append_item (part, section->pending ? _("_Load Host") : section->collapsed ? _("_Expand Section") : _("_Collapse Section"),
               "timeline.toggle-section", section->id);
  append_item (part, _("Hide _Section"), "timeline.hide-section", section->id);
  append_item (part, _("Show _Only This Section"), "timeline.show-only-section", section->id);
  append_item (part, _("Move Section _Up"), "timeline.move-section-up", section->id);
  append_item (part, _("Move Section _Down"), "timeline.move-section-down", section->id);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (part));
}

void
_planar_timeline_track_menu (PlanarTimeline          *self,
                             const PlanarTimelineRow *row,
                             GMenu                   *menu)
{
  g_autoptr(GMenu) part = g_menu_new ();
  int e = planar_timeline_layout_find_entry (self->layout, row);

  if (e >= 0)
    {
      append_item (part, _("_Hide Track"), "timeline.hide-track",
                   planar_timeline_layout_get_entry (self->layout, (guint) e)->id);
      g_menu_append_section (menu, NULL, G_MENU_MODEL (part));
    }
  _planar_timeline_section_menu (self, row, menu);
}

void
_planar_timeline_host_menu (PlanarTimeline          *self,
                            const PlanarTimelineRow *row,
                            GMenu                   *menu)
{
  g_autoptr(GMenu) part = g_menu_new ();

  for (guint h = 0; h < planar_timeline_layout_get_n_hosts (self->layout); h++)
    {
      const PlanarTimelineHost *host = planar_timeline_layout_get_host (self->layout, h);

      if (host->trace != row->trace)
        continue;
      append_item (part, host->collapsed ? _("_Expand Host") : _("_Collapse Host"), "timeline.toggle-host", host->id);
      g_menu_append_section (menu, NULL, G_MENU_MODEL (part));
      return;
    }
}

gboolean
_planar_timeline_popup_context_menu (PlanarTimeline *self,
                                     double          x,
                                     double          y)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) all_part = g_menu_new ();
  const PlanarTimelineRowClass *klass;
  const PlanarTimelineRow *row;
  int r;

  if (self->profile == NULL || y < PLANAR_TIMELINE_AXIS_HEIGHT)
    return FALSE;
  r = planar_timeline_layout_find_row_at (self->layout,
                                          (int) (y - PLANAR_TIMELINE_AXIS_HEIGHT + _planar_timeline_vscroll (self)));
  if (r < 0)
    return FALSE;
  row = planar_timeline_layout_get_row (self->layout, (guint) r);
  klass = _planar_timeline_row_class (row);
  if (klass->context_menu != NULL)
    klass->context_menu (self, row, menu);
  append_item (all_part, _("Show _All Tracks"), "timeline.show-all-tracks", NULL);
  append_item (all_part, _("Co_llapse All"), "timeline.collapse-all", NULL);
  append_item (all_part, _("E_xpand All"), "timeline.expand-all", NULL);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (all_part));

  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->context_menu), G_MENU_MODEL (menu));
  gtk_popover_set_pointing_to (GTK_POPOVER (self->context_menu), &(GdkRectangle) { (int) x, (int) y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->context_menu));
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Go to Time
 * ------------------------------------------------------------------------ */

/* Reads the entry: TRUE with the time, or FALSE with a message for
 * people. */
static gboolean
parse_go_to (PlanarTimeline  *self,
             gint64          *t_ps,
             char           **message)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->go_to_entry));
  g_autoptr(GError) error = NULL;
  gint64 first = 0, last = 0;

  if (!planar_parse_duration (text, PLANAR_PS_PER_MS, t_ps, &error))
    {
      if (g_error_matches (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_EMPTY))
        *message = g_strdup (_("Type a time since the start of the profile"));
      else if (g_error_matches (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_UNKNOWN_UNIT))
        *message = g_strdup (_("Units are ps, ns, µs (us), ms and s"));
      else if (g_error_matches (error, PLANAR_UNITS_ERROR, PLANAR_UNITS_ERROR_OUT_OF_RANGE))
        *message = g_strdup (_("That time is out of range"));
      else
        *message = g_strdup (_("Type a number and a unit, such as 1.5 ms"));
      return FALSE;
    }
  if (self->profile != NULL && planar_profile_get_span (self->profile, &first, &last) && *t_ps > last)
    {
      g_autofree char *ascii = planar_format_duration (last);
      g_autofree char *length = planar_stat_micro_sign (ascii);

      /* Translators: %s is a duration, such as "12.500 ms". */
      *message = g_strdup_printf (_("The profile ends at %s"), length);
      return FALSE;
    }
  return TRUE;
}

static void
go_to_changed (PlanarTimeline *self)
{
  g_autofree char *message = NULL;
  gint64 t;
  gboolean valid = parse_go_to (self, &t, &message);

  /* An empty entry is not an error yet: the user is about to type. */
  if (valid || gtk_editable_get_text (GTK_EDITABLE (self->go_to_entry))[0] == '\0')
    {
      gtk_widget_remove_css_class (self->go_to_entry, "error");
      gtk_label_set_text (GTK_LABEL (self->go_to_message), _("Examples: 1.5 ms, 250 µs, 3 s, 1:02.5"));
      gtk_widget_remove_css_class (self->go_to_message, "error");
      gtk_widget_add_css_class (self->go_to_message, "dim-label");
    }
  else
    {
      gtk_widget_add_css_class (self->go_to_entry, "error");
      gtk_label_set_text (GTK_LABEL (self->go_to_message), message);
      gtk_widget_add_css_class (self->go_to_message, "error");
      gtk_widget_remove_css_class (self->go_to_message, "dim-label");
    }
}

static void
go_to_activate (PlanarTimeline *self)
{
  g_autofree char *message = NULL;
  gint64 t;

  if (!parse_go_to (self, &t, &message))
    {
      gtk_widget_add_css_class (self->go_to_entry, "error");
      gtk_label_set_text (GTK_LABEL (self->go_to_message), message);
      gtk_widget_error_bell (self->go_to_entry);
      return;
    }
  planar_timeline_go_to_time (self, t);
  gtk_popover_popdown (GTK_POPOVER (self->go_to_popover));
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static GtkWidget *
go_to_popover_new (PlanarTimeline *self)
{
  GtkWidget *popover = gtk_popover_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *title = gtk_label_new (_("Go to Time"));
  GtkWidget *button = gtk_button_new_with_mnemonic (_("_Go"));

  gtk_widget_add_css_class (title, "heading");
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  self->go_to_entry = gtk_entry_new ();
  gtk_entry_set_activates_default (GTK_ENTRY (self->go_to_entry), FALSE);
  gtk_editable_set_width_chars (GTK_EDITABLE (self->go_to_entry), 18);
  gtk_widget_set_hexpand (self->go_to_entry, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->go_to_entry),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Time since the start of the profile"),
                                  -1);
  self->go_to_message = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->go_to_message), 0);
  gtk_label_set_wrap (GTK_LABEL (self->go_to_message), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (self->go_to_message), 30);
  gtk_widget_add_css_class (self->go_to_message, "caption");
  gtk_widget_add_css_class (self->go_to_message, "dim-label");
  gtk_widget_add_css_class (button, "suggested-action");

  gtk_box_append (GTK_BOX (row), self->go_to_entry);
  gtk_box_append (GTK_BOX (row), button);
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), row);
  gtk_box_append (GTK_BOX (box), self->go_to_message);
  gtk_popover_set_child (GTK_POPOVER (popover), box);
  gtk_popover_set_position (GTK_POPOVER (popover), GTK_POS_BOTTOM);

  g_signal_connect_object (self->go_to_entry, "changed", G_CALLBACK (go_to_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->go_to_entry, "activate", G_CALLBACK (go_to_activate), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (button, "clicked", G_CALLBACK (go_to_activate), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (popover, "map", G_CALLBACK (go_to_mapped), self, G_CONNECT_SWAPPED);
  return popover;
}

/* ------------------------------------------------------------------------
 * Life cycle
 * ------------------------------------------------------------------------ */

void
_planar_timeline_init_tracks (PlanarTimeline *self)
{
  self->context_menu = gtk_popover_menu_new_from_model (NULL);
  gtk_popover_set_has_arrow (GTK_POPOVER (self->context_menu), FALSE);
  gtk_widget_set_halign (self->context_menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->context_menu, GTK_WIDGET (self));

  self->go_to_popover = go_to_popover_new (self);
  gtk_widget_set_parent (self->go_to_popover, GTK_WIDGET (self));
}

void
_planar_timeline_dispose_tracks (PlanarTimeline *self)
{
  g_clear_pointer (&self->context_menu, gtk_widget_unparent);
  g_clear_pointer (&self->go_to_popover, gtk_widget_unparent);
  self->go_to_entry = NULL;
  self->go_to_message = NULL;
  if (self->view_state != NULL)
    g_signal_handlers_disconnect_by_func (self->view_state, view_state_changed, self);
  g_clear_object (&self->view_state);
}

void
_planar_timeline_allocate_popovers (PlanarTimeline *self)
{
  gtk_popover_present (GTK_POPOVER (self->go_to_popover));
  gtk_popover_present (GTK_POPOVER (self->context_menu));
}
