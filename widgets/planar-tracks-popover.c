/* planar-tracks-popover.c
 *
 * The list is a GtkListBox of check buttons, made when the popover opens
 * and when the filter changes: a profile has tens to a few thousand tracks,
 * and the list is not kept in step while it is closed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-tracks-popover.h"

#include <glib/gi18n.h>

#include "planar-timeline-private.h"

/* The list shows at most this many tracks; the filter finds the others. */
#define MAX_LISTED_TRACKS 2000

struct _PlanarTracksPopover
{
  GtkPopover      parent_instance;

  PlanarTimeline *timeline;
  GtkWidget      *search_entry;
  GtkWidget      *list;
  GtkWidget      *more_label;
};

G_DEFINE_FINAL_TYPE (PlanarTracksPopover, planar_tracks_popover, GTK_TYPE_POPOVER)

enum {
  PROP_0,
  PROP_TIMELINE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* What a check button stands for: a section or a track, by id. */
typedef struct
{
  PlanarTracksPopover *self;
  char                *id;
  gboolean             section;
} CheckTarget;

static void
check_target_free (gpointer  data,
                   GClosure *closure)
{
  CheckTarget *target = data;

  g_free (target->id);
  g_free (target);
}

static void
check_toggled (GtkCheckButton *check,
               CheckTarget    *target)
{
  PlanarViewState *state;
  gboolean hidden = !gtk_check_button_get_active (check);

  if (target->self->timeline == NULL)
    return;
  state = planar_timeline_get_view_state (target->self->timeline);
  if (target->section)
    {
      GtkWidget *row = gtk_widget_get_parent (GTK_WIDGET (check));

      planar_view_state_set_section_hidden (state, target->id, hidden);
      /* A hidden section's tracks cannot be shown: their checks follow. */
      for (row = gtk_widget_get_next_sibling (row); row != NULL; row = gtk_widget_get_next_sibling (row))
        {
          GtkWidget *child = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));

          if (gtk_widget_has_css_class (child, "planar-tracks-section"))
            break;
          gtk_widget_set_sensitive (child, !hidden);
        }
    }
  else
    planar_view_state_set_track_hidden (state, target->id, hidden);
}

static GtkWidget *
check_new (PlanarTracksPopover *self,
           const char          *label,
           const char          *id,
           gboolean             section,
           gboolean             active)
{
  GtkWidget *check = gtk_check_button_new_with_label (label);
  CheckTarget *target = g_new0 (CheckTarget, 1);

  target->self = self;
  target->id = g_strdup (id);
  target->section = section;
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), active);
  /* Toggled by the user only: the state is set before connecting. */
  g_signal_connect_data (check, "toggled", G_CALLBACK (check_toggled), target,
                         check_target_free, 0);
  return check;
}

static void
rebuild (PlanarTracksPopover *self)
{
  PlanarTimelineLayout *layout;
  GtkWidget *child;
  guint n_listed = 0, n_left = 0;

  while ((child = gtk_widget_get_first_child (self->list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->list), child);
  if (self->timeline == NULL)
    return;

  layout = self->timeline->layout;
  for (guint s = 0; s < planar_timeline_layout_get_n_sections (layout); s++)
    {
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (layout, s);
      GtkWidget *check;
      gboolean any = FALSE;

      for (guint e = section->first_entry; e < section->first_entry + section->n_entries; e++)
        any |= planar_timeline_layout_get_entry (layout, e)->matches;
      if (!any)
        continue;

      check = check_new (self, section->title, section->id, TRUE, !section->hidden);
      gtk_widget_add_css_class (gtk_widget_get_last_child (check), "heading");
      gtk_widget_add_css_class (check, "planar-tracks-section");
      gtk_list_box_append (GTK_LIST_BOX (self->list), check);
      for (guint e = section->first_entry; e < section->first_entry + section->n_entries; e++)
        {
          const PlanarTimelineEntry *entry = planar_timeline_layout_get_entry (layout, e);

          if (!entry->matches)
            continue;
          if (n_listed >= MAX_LISTED_TRACKS)
            {
              n_left++;
              continue;
            }
          check = check_new (self, entry->name, entry->id, FALSE, !entry->hidden);
          gtk_widget_set_margin_start (check, 18);
          gtk_widget_set_sensitive (check, !section->hidden);
          gtk_list_box_append (GTK_LIST_BOX (self->list), check);
          n_listed++;
        }
    }

  if (n_left > 0)
    {
      g_autofree char *count = g_strdup_printf ("%u", n_left);
      g_autofree char *text = g_strdup_printf (ngettext ("%s more track: type to find it",
                                                         "%s more tracks: type to find them",
                                                         n_left),
                                               count);

      gtk_label_set_text (GTK_LABEL (self->more_label), text);
    }
  gtk_widget_set_visible (self->more_label, n_left > 0);
}

static void
search_changed (PlanarTracksPopover *self)
{
  if (self->timeline == NULL)
    return;
  planar_timeline_set_track_filter (self->timeline, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
  rebuild (self);
}

static void
activate_on_timeline (PlanarTracksPopover *self,
                      const char          *action)
{
  if (self->timeline != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self->timeline), action, NULL);
  rebuild (self);
}

static void
show_all_clicked (PlanarTracksPopover *self)
{
  /* Showing all clears the filter too. */
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  activate_on_timeline (self, "timeline.show-all-tracks");
}

static void
collapse_all_clicked (PlanarTracksPopover *self)
{
  activate_on_timeline (self, "timeline.collapse-all");
}

static void
expand_all_clicked (PlanarTracksPopover *self)
{
  activate_on_timeline (self, "timeline.expand-all");
}

static void
planar_tracks_popover_show (GtkWidget *widget)
{
  PlanarTracksPopover *self = PLANAR_TRACKS_POPOVER (widget);

  if (self->timeline != NULL)
    {
      /* A copy: the timeline's own string goes when its filter changes, and
       * setting the text empties the entry first, which the search entry
       * reports at once. The timeline's filter is already this text: the
       * entry is told without telling the timeline back. */
      g_autofree char *filter = g_strdup (planar_timeline_get_track_filter (self->timeline));

      if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->search_entry)), filter) != 0)
        {
          g_signal_handlers_block_by_func (self->search_entry, search_changed, self);
          gtk_editable_set_text (GTK_EDITABLE (self->search_entry), filter);
          g_signal_handlers_unblock_by_func (self->search_entry, search_changed, self);
        }
    }
  rebuild (self);
  GTK_WIDGET_CLASS (planar_tracks_popover_parent_class)->show (widget);
  gtk_widget_grab_focus (self->search_entry);
}

static void
planar_tracks_popover_dispose (GObject *object)
{
  PlanarTracksPopover *self = PLANAR_TRACKS_POPOVER (object);

  g_clear_weak_pointer (&self->timeline);

  G_OBJECT_CLASS (planar_tracks_popover_parent_class)->dispose (object);
}

static void
planar_tracks_popover_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  PlanarTracksPopover *self = PLANAR_TRACKS_POPOVER (object);

  switch (prop_id)
    {
    case PROP_TIMELINE:
      g_value_set_object (value, self->timeline);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_tracks_popover_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  PlanarTracksPopover *self = PLANAR_TRACKS_POPOVER (object);

  switch (prop_id)
    {
    case PROP_TIMELINE:
      planar_tracks_popover_set_timeline (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_tracks_popover_class_init (PlanarTracksPopoverClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_tracks_popover_dispose;
  object_class->get_property = planar_tracks_popover_get_property;
  object_class->set_property = planar_tracks_popover_set_property;
  widget_class->show = planar_tracks_popover_show;

  /* The timeline whose tracks are listed; not referenced. */
  properties[PROP_TIMELINE] =
    g_param_spec_object ("timeline", NULL, NULL,
                         PLANAR_TYPE_TIMELINE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static GtkWidget *
button_new (PlanarTracksPopover *self,
            const char          *label,
            GCallback            callback)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_hexpand (button, TRUE);
  g_signal_connect_object (button, "clicked", callback, self, G_CONNECT_SWAPPED);
  return button;
}

static void
planar_tracks_popover_init (PlanarTracksPopover *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *title = gtk_label_new (_("Tracks to Show"));
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "heading");

  self->search_entry = gtk_search_entry_new ();
  g_object_set (self->search_entry, "placeholder-text", _("Filter tracks by name"), NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->search_entry),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Filter tracks by name"),
                                  -1);
  g_signal_connect_object (self->search_entry, "search-changed", G_CALLBACK (search_changed), self, G_CONNECT_SWAPPED);
  /* Escape in the entry closes the menu (the search entry takes Escape for
   * ::stop-search), rather than leaving it open to take the next key. */
  g_signal_connect_object (self->search_entry, "stop-search", G_CALLBACK (gtk_popover_popdown), self, G_CONNECT_SWAPPED);

  gtk_box_append (GTK_BOX (buttons), button_new (self, _("Show _All"), G_CALLBACK (show_all_clicked)));
  gtk_box_append (GTK_BOX (buttons), button_new (self, _("_Collapse All"), G_CALLBACK (collapse_all_clicked)));
  gtk_box_append (GTK_BOX (buttons), button_new (self, _("_Expand All"), G_CALLBACK (expand_all_clicked)));

  self->list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->list), GTK_SELECTION_NONE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Sections and tracks"),
                                  -1);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 420);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->list);

  self->more_label = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->more_label, "dim-label");
  gtk_widget_set_visible (self->more_label, FALSE);

  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), self->search_entry);
  gtk_box_append (GTK_BOX (box), buttons);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_box_append (GTK_BOX (box), self->more_label);
  gtk_widget_set_size_request (box, 320, -1);
  gtk_popover_set_child (GTK_POPOVER (self), box);
}

GtkWidget *
planar_tracks_popover_new (PlanarTimeline *timeline)
{
  g_return_val_if_fail (timeline == NULL || PLANAR_IS_TIMELINE (timeline), NULL);

  return g_object_new (PLANAR_TYPE_TRACKS_POPOVER, "timeline", timeline, NULL);
}

PlanarTimeline *
planar_tracks_popover_get_timeline (PlanarTracksPopover *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACKS_POPOVER (self), NULL);
  return self->timeline;
}

void
planar_tracks_popover_set_timeline (PlanarTracksPopover *self,
                                    PlanarTimeline      *timeline)
{
  g_return_if_fail (PLANAR_IS_TRACKS_POPOVER (self));
  g_return_if_fail (timeline == NULL || PLANAR_IS_TIMELINE (timeline));

  if (g_set_weak_pointer (&self->timeline, timeline))
    {
      if (gtk_widget_get_visible (GTK_WIDGET (self)))
        rebuild (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TIMELINE]);
    }
}
