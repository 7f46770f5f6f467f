/* planar-find-results.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-find-results.h"

#include <glib/gi18n.h>

#include "planar-model.h"

struct _PlanarFindResults
{
  GtkWidget      parent_instance;

  GtkWidget     *scrolled;
  GtkListView   *list_view;
  PlanarFindBar *find_bar;
  gulong         hits_handler;
};

G_DEFINE_FINAL_TYPE (PlanarFindResults, planar_find_results, GTK_TYPE_WIDGET)

static void
row_setup (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *where = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (where), 0);
  gtk_label_set_ellipsize (GTK_LABEL (where), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (where, "dim-label");
  gtk_widget_add_css_class (where, "caption");
  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), where);
  gtk_list_item_set_child (item, box);
}

static void
row_bind (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          gpointer                  user_data)
{
  PlanarSearchHitItem *hit = gtk_list_item_get_item (item);
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *name = gtk_widget_get_first_child (box);
  GtkWidget *where = gtk_widget_get_next_sibling (name);
  g_autofree char *place = planar_search_hit_dup_where (hit);
  g_autofree char *ascii = planar_format_duration (planar_search_hit_get_hit (hit)->start_ps);
  g_autofree char *start = planar_stat_micro_sign (ascii);
  g_autofree char *text = g_strdup_printf ("%s · %s", start, place);

  gtk_label_set_text (GTK_LABEL (name), planar_search_hit_get_name (hit));
  gtk_label_set_text (GTK_LABEL (where), text);
}

static void
hits_changed (PlanarFindResults *self)
{
  g_autoptr(GtkSingleSelection) selection = NULL;
  GListModel *hits = self->find_bar != NULL ? planar_find_bar_get_hits (self->find_bar) : NULL;

  if (hits == NULL)
    {
      gtk_list_view_set_model (self->list_view, NULL);
      return;
    }
  selection = gtk_single_selection_new (g_object_ref (hits));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));
}

static void
row_activated (GtkListView       *view,
               guint              position,
               PlanarFindResults *self)
{
  if (self->find_bar != NULL)
    planar_find_bar_select_hit (self->find_bar, position);
}

/* Escape in the list closes it and gives the keys back to the entry. */
static gboolean
key_pressed (GtkEventControllerKey *controller,
             guint                  keyval,
             guint                  keycode,
             GdkModifierType        state,
             PlanarFindResults     *self)
{
  if (keyval != GDK_KEY_Escape || self->find_bar == NULL
      || (state & gtk_accelerator_get_default_mod_mask ()) != 0)
    return FALSE;
  g_object_set (self->find_bar, "show-results", FALSE, NULL);
  planar_find_bar_open (self->find_bar);
  return TRUE;
}

static void
planar_find_results_dispose (GObject *object)
{
  PlanarFindResults *self = PLANAR_FIND_RESULTS (object);

  planar_find_results_set_find_bar (self, NULL);
  self->list_view = NULL;
  g_clear_pointer (&self->scrolled, gtk_widget_unparent);
  G_OBJECT_CLASS (planar_find_results_parent_class)->dispose (object);
}

static void
planar_find_results_class_init (PlanarFindResultsClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = planar_find_results_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "planar-find-results");
}

static void
planar_find_results_init (PlanarFindResults *self)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkWidget *scrolled = self->scrolled = gtk_scrolled_window_new ();
  GtkEventController *keys;

  g_signal_connect (factory, "setup", G_CALLBACK (row_setup), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (row_bind), NULL);
  self->list_view = GTK_LIST_VIEW (gtk_list_view_new (NULL, factory));
  gtk_list_view_set_single_click_activate (self->list_view, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list_view), "navigation-sidebar");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list_view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Find results"), -1);
  g_signal_connect (self->list_view, "activate", G_CALLBACK (row_activated), self);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->list_view));
  gtk_widget_set_parent (scrolled, GTK_WIDGET (self));
  gtk_widget_set_size_request (GTK_WIDGET (self), 240, -1);

  keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

GtkWidget *
planar_find_results_new (void)
{
  return g_object_new (PLANAR_TYPE_FIND_RESULTS, NULL);
}

void
planar_find_results_set_find_bar (PlanarFindResults *self,
                                  PlanarFindBar     *find_bar)
{
  g_return_if_fail (PLANAR_IS_FIND_RESULTS (self));

  if (self->find_bar != NULL)
    {
      g_clear_signal_handler (&self->hits_handler, self->find_bar);
      g_clear_object (&self->find_bar);
    }
  if (find_bar != NULL)
    {
      self->find_bar = g_object_ref (find_bar);
      self->hits_handler = g_signal_connect_swapped (find_bar, "notify::hits", G_CALLBACK (hits_changed), self);
    }
  if (self->list_view != NULL)
    hits_changed (self);
}
