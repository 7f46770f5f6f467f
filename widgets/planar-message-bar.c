/* planar-message-bar.c
 *
 * The lines are the bar's children, in a vertical box layout, in the order
 * they were first set; a table finds a line by its key. The bar hides
 * itself when it has no line, so that it takes no room.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-message-bar.h"

#include <glib/gi18n.h>

struct _PlanarMessageBar
{
  GtkWidget   parent_instance;

  /* key -> its line (a child of the bar, owned by it). */
  GHashTable *lines;
};

G_DEFINE_FINAL_TYPE (PlanarMessageBar, planar_message_bar, GTK_TYPE_WIDGET)

enum {
  CLOSED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* What a line keeps, as object data on it. */
#define LINE_KEY    "planar-message-key"
#define LINE_TEXT   "planar-message-text"
#define LINE_BUTTON "planar-message-button"

static const char *
type_css_class (PlanarMessageType type)
{
  switch (type)
    {
    case PLANAR_MESSAGE_WARNING:
      return "warning";
    case PLANAR_MESSAGE_ERROR:
      return "error";
    case PLANAR_MESSAGE_INFO:
    default:
      return "info";
    }
}

static const char *
type_icon_name (PlanarMessageType type)
{
  switch (type)
    {
    case PLANAR_MESSAGE_WARNING:
      return "dialog-warning-symbolic";
    case PLANAR_MESSAGE_ERROR:
      return "dialog-error-symbolic";
    case PLANAR_MESSAGE_INFO:
    default:
      return "dialog-information-symbolic";
    }
}

static void
update_visible (PlanarMessageBar *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self), g_hash_table_size (self->lines) > 0);
}

static void
remove_line (PlanarMessageBar *self,
             GtkWidget        *line)
{
  const char *key = g_object_get_data (G_OBJECT (line), LINE_KEY);

  /* The table's key is the line's own string: remove the entry first. */
  g_hash_table_remove (self->lines, key);
  gtk_widget_unparent (line);
}

static void
close_clicked (GtkButton *button,
               GtkWidget *line)
{
  PlanarMessageBar *self = PLANAR_MESSAGE_BAR (gtk_widget_get_parent (line));
  g_autofree char *key = g_strdup (g_object_get_data (G_OBJECT (line), LINE_KEY));

  remove_line (self, line);
  update_visible (self);
  g_signal_emit (self, signals[CLOSED], g_quark_from_string (key), key);
}

static GtkWidget *
line_new (const char        *key,
          PlanarMessageType  type,
          const char        *text,
          const char        *button_label,
          const char        *action_name,
          gboolean           closable)
{
  GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *icon = gtk_image_new_from_icon_name (type_icon_name (type));
  GtkWidget *label = gtk_label_new (text);

  gtk_widget_add_css_class (line, "message-line");
  gtk_widget_add_css_class (line, type_css_class (type));
  g_object_set_data_full (G_OBJECT (line), LINE_KEY, g_strdup (key), g_free);
  g_object_set_data_full (G_OBJECT (line), LINE_TEXT, g_strdup (text), g_free);

  gtk_widget_set_valign (icon, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (line), icon);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_tooltip_text (label, text);
  gtk_box_append (GTK_BOX (line), label);

  if (button_label != NULL && action_name != NULL)
    {
      GtkWidget *button = gtk_button_new_with_mnemonic (button_label);

      gtk_actionable_set_detailed_action_name (GTK_ACTIONABLE (button), action_name);
      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      gtk_box_append (GTK_BOX (line), button);
      g_object_set_data (G_OBJECT (line), LINE_BUTTON, button);
    }

  if (closable)
    {
      GtkWidget *close = gtk_button_new_from_icon_name ("window-close-symbolic");

      gtk_widget_add_css_class (close, "flat");
      gtk_widget_add_css_class (close, "circular");
      gtk_widget_set_valign (close, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (close, _("Close"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (close),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("Close the message"),
                                      -1);
      g_signal_connect (close, "clicked", G_CALLBACK (close_clicked), line);
      gtk_box_append (GTK_BOX (line), close);
    }
  return line;
}

void
planar_message_bar_set (PlanarMessageBar  *self,
                        const char        *key,
                        PlanarMessageType  type,
                        const char        *text,
                        const char        *button_label,
                        const char        *action_name,
                        gboolean           closable)
{
  GtkWidget *old, *line;

  g_return_if_fail (PLANAR_IS_MESSAGE_BAR (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (text != NULL);

  old = g_hash_table_lookup (self->lines, key);
  line = line_new (key, type, text, button_label, action_name, closable);
  /* In place of the old line, or below the others. */
  gtk_widget_insert_before (line, GTK_WIDGET (self), old);
  if (old != NULL)
    remove_line (self, old);
  g_hash_table_insert (self->lines, g_object_get_data (G_OBJECT (line), LINE_KEY), line);
  update_visible (self);
}

void
planar_message_bar_remove (PlanarMessageBar *self,
                           const char       *key)
{
  GtkWidget *line;

  g_return_if_fail (PLANAR_IS_MESSAGE_BAR (self));
  g_return_if_fail (key != NULL);

  line = g_hash_table_lookup (self->lines, key);
  if (line == NULL)
    return;
  remove_line (self, line);
  update_visible (self);
}

void
planar_message_bar_remove_all (PlanarMessageBar *self)
{
  GtkWidget *child;

  g_return_if_fail (PLANAR_IS_MESSAGE_BAR (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    remove_line (self, child);
  update_visible (self);
}

const char *
planar_message_bar_get_text (PlanarMessageBar *self,
                             const char       *key)
{
  GtkWidget *line;

  g_return_val_if_fail (PLANAR_IS_MESSAGE_BAR (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  line = g_hash_table_lookup (self->lines, key);
  return line != NULL ? g_object_get_data (G_OBJECT (line), LINE_TEXT) : NULL;
}

GtkWidget *
planar_message_bar_get_button (PlanarMessageBar *self,
                               const char       *key)
{
  GtkWidget *line;

  g_return_val_if_fail (PLANAR_IS_MESSAGE_BAR (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  line = g_hash_table_lookup (self->lines, key);
  return line != NULL ? g_object_get_data (G_OBJECT (line), LINE_BUTTON) : NULL;
}

guint
planar_message_bar_get_n_lines (PlanarMessageBar *self)
{
  g_return_val_if_fail (PLANAR_IS_MESSAGE_BAR (self), 0);

  return g_hash_table_size (self->lines);
}

static void
planar_message_bar_dispose (GObject *object)
{
  PlanarMessageBar *self = PLANAR_MESSAGE_BAR (object);
  GtkWidget *child;

  /* The keys belong to the lines: empty the table first. */
  g_hash_table_remove_all (self->lines);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (planar_message_bar_parent_class)->dispose (object);
}

static void
planar_message_bar_finalize (GObject *object)
{
  PlanarMessageBar *self = PLANAR_MESSAGE_BAR (object);

  g_hash_table_unref (self->lines);

  G_OBJECT_CLASS (planar_message_bar_parent_class)->finalize (object);
}

static void
planar_message_bar_class_init (PlanarMessageBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_message_bar_dispose;
  object_class->finalize = planar_message_bar_finalize;

  /**
   * PlanarMessageBar::closed:
   * @key: the key of the line the user closed
   *
   * The user closed a line with its close button (detailed by the key).
   */
  signals[CLOSED] =
    g_signal_new ("closed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_css_name (widget_class, "messagebar");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
planar_message_bar_init (PlanarMessageBar *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  /* Keys are owned by their lines (LINE_KEY). */
  self->lines = g_hash_table_new (g_str_hash, g_str_equal);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
planar_message_bar_new (void)
{
  return g_object_new (PLANAR_TYPE_MESSAGE_BAR, NULL);
}
