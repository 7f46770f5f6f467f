/* planar-tool-selector.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-tool-selector.h"

#include <glib/gi18n.h>

#include "planar-widgets-resources.h"

struct _PlanarToolSelector
{
  GtkWidget  parent_instance;
  GtkWidget *box;
};

G_DEFINE_FINAL_TYPE (PlanarToolSelector, planar_tool_selector, GTK_TYPE_WIDGET)

static const struct
{
  const char *tool;
  const char *icon;
  const char *tooltip;
} tools[] = {
  { "select", "planar-tool-select-symbolic", N_("Select (1): click an event, drag a box; Control adds") },
  { "pan", "planar-tool-pan-symbolic", N_("Pan (2): drag to move the view") },
  { "zoom", "planar-tool-zoom-symbolic", N_("Zoom (3): drag a range to zoom into it") },
  { "timing", "planar-tool-timing-symbolic", N_("Timing (4): drag to measure an interval") },
};

static void
planar_tool_selector_dispose (GObject *object)
{
  PlanarToolSelector *self = (PlanarToolSelector *) object;

  g_clear_pointer (&self->box, gtk_widget_unparent);

  G_OBJECT_CLASS (planar_tool_selector_parent_class)->dispose (object);
}

static void
planar_tool_selector_class_init (PlanarToolSelectorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_tool_selector_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "planartoolselector");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_TOOLBAR);
}

#define ICONS_RESOURCE_PATH "/org/gnome/Planar/widgets/icons"

/* Makes the icon theme of @display find the tool icons, once. */
static void
add_icons (GdkDisplay *display)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (display);
  g_auto(GStrv) paths = gtk_icon_theme_get_resource_path (theme);

  /* The resources register themselves when their object is linked in;
   * from a static library it is linked only if something refers to it. */
  (void) planar_widgets_get_resource ();
  if (paths != NULL && g_strv_contains ((const char * const *) paths, ICONS_RESOURCE_PATH))
    return;
  gtk_icon_theme_add_resource_path (theme, ICONS_RESOURCE_PATH);
}

/* Gives the palettes of @display their compact style, once. */
static void
add_style (GdkDisplay *display)
{
  g_autoptr(GtkCssProvider) provider = NULL;

  if (g_object_get_data (G_OBJECT (display), "planar-tool-selector-style") != NULL)
    return;
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/org/gnome/Planar/widgets/planar-tool-selector.css");
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_set_data_full (G_OBJECT (display), "planar-tool-selector-style", g_steal_pointer (&provider),
                          g_object_unref);
}

static void
planar_tool_selector_init (PlanarToolSelector *self)
{
  add_icons (gtk_widget_get_display (GTK_WIDGET (self)));
  add_style (gtk_widget_get_display (GTK_WIDGET (self)));
  self->box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (self->box, "linked");
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  /* The OSD style gives it the floating, translucent look of video
   * controls, readable over any track. */
  gtk_widget_add_css_class (GTK_WIDGET (self), "osd");
  gtk_widget_add_css_class (GTK_WIDGET (self), "toolbar");

  for (guint i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      GtkWidget *button = gtk_toggle_button_new ();

      gtk_button_set_icon_name (GTK_BUTTON (button), tools[i].icon);
      gtk_widget_set_tooltip_text (button, _(tools[i].tooltip));
      gtk_widget_set_focusable (button, FALSE);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "timeline.tool");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", tools[i].tool);
      gtk_box_append (GTK_BOX (self->box), button);
    }
}

GtkWidget *
planar_tool_selector_new (void)
{
  return g_object_new (PLANAR_TYPE_TOOL_SELECTOR, NULL);
}
