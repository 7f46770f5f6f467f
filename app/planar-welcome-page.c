/* planar-welcome-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-welcome-page.h"

#include <glib/gi18n.h>

#include "planar-file-util.h"

struct _PlanarWelcomePage
{
  AdwBin            parent_instance;

  GtkBox           *recent_box;
  GtkListBox       *recent_list;

  GtkRecentManager *recent_manager;
  guint             n_recent;
};

G_DEFINE_FINAL_TYPE (PlanarWelcomePage, planar_welcome_page, ADW_TYPE_BIN)

enum {
  PROP_0,
  PROP_N_RECENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static int
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  GtkRecentInfo *info_a = (GtkRecentInfo *) a;
  GtkRecentInfo *info_b = (GtkRecentInfo *) b;

  return g_date_time_compare (gtk_recent_info_get_modified (info_b),
                              gtk_recent_info_get_modified (info_a));
}

static GtkWidget *
recent_row_new (GtkRecentInfo *info)
{
  const char *uri = gtk_recent_info_get_uri (info);
  g_autoptr(GFile) file = g_file_new_for_uri (uri);
  g_autofree char *location = planar_file_describe_location (file);
  g_autofree char *label = NULL;
  const char *name = gtk_recent_info_get_display_name (info);
  gboolean folder = g_strcmp0 (gtk_recent_info_get_mime_type (info), "inode/directory") == 0;
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), location);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row),
                             gtk_image_new_from_icon_name (folder ? "folder-symbolic" : "text-x-generic-symbolic"));
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (row), "win.open-uri");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (row), "s", uri);

  /* Translators: %s is a profile's name, %s its folder. */
  label = g_strdup_printf (_("Open %s in %s"), name, location);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  gtk_widget_set_tooltip_text (row, g_file_peek_path (file));
  return row;
}

static void
refresh (PlanarWelcomePage *self)
{
  g_autolist(GtkRecentInfo) items = NULL;
  GList *mine = NULL;
  GtkWidget *child;
  guint n = 0;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->recent_list))) != NULL)
    gtk_list_box_remove (self->recent_list, child);

  items = gtk_recent_manager_get_items (self->recent_manager);
  for (GList *l = items; l != NULL; l = l->next)
    if (gtk_recent_info_has_application (l->data, PLANAR_RECENT_APP_NAME) &&
        gtk_recent_info_exists (l->data))
      mine = g_list_prepend (mine, l->data);
  mine = g_list_sort (mine, compare_newest_first);

  for (GList *l = mine; l != NULL && n < PLANAR_WELCOME_PAGE_MAX_RECENT; l = l->next, n++)
    gtk_list_box_append (self->recent_list, recent_row_new (l->data));
  g_list_free (mine);

  gtk_widget_set_visible (GTK_WIDGET (self->recent_box), n > 0);
  if (n != self->n_recent)
    {
      self->n_recent = n;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_RECENT]);
    }
}

static void
planar_welcome_page_dispose (GObject *object)
{
  PlanarWelcomePage *self = (PlanarWelcomePage *) object;

  if (self->recent_manager != NULL)
    g_signal_handlers_disconnect_by_func (self->recent_manager, refresh, self);
  g_clear_object (&self->recent_manager);
  gtk_widget_dispose_template (GTK_WIDGET (self), PLANAR_TYPE_WELCOME_PAGE);

  G_OBJECT_CLASS (planar_welcome_page_parent_class)->dispose (object);
}

static void
planar_welcome_page_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  PlanarWelcomePage *self = PLANAR_WELCOME_PAGE (object);

  switch (prop_id)
    {
    case PROP_N_RECENT:
      g_value_set_uint (value, self->n_recent);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_welcome_page_class_init (PlanarWelcomePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_welcome_page_dispose;
  object_class->get_property = planar_welcome_page_get_property;

  /* How many recent profiles are listed. */
  properties[PROP_N_RECENT] =
    g_param_spec_uint ("n-recent", NULL, NULL,
                       0, PLANAR_WELCOME_PAGE_MAX_RECENT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/planar/Planar/planar-welcome-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlanarWelcomePage, recent_box);
  gtk_widget_class_bind_template_child (widget_class, PlanarWelcomePage, recent_list);
}

static void
planar_welcome_page_init (PlanarWelcomePage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->recent_manager = g_object_ref (gtk_recent_manager_get_default ());
  g_signal_connect_swapped (self->recent_manager, "changed", G_CALLBACK (refresh), self);
  refresh (self);
}

GtkWidget *
planar_welcome_page_new (void)
{
  return g_object_new (PLANAR_TYPE_WELCOME_PAGE, NULL);
}

guint
planar_welcome_page_get_n_recent (PlanarWelcomePage *self)
{
  g_return_val_if_fail (PLANAR_IS_WELCOME_PAGE (self), 0);

  return self->n_recent;
}
