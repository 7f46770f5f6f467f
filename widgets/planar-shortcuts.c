/* planar-shortcuts.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-shortcuts.h"

#include <glib/gi18n.h>
#include <string.h>

#define SECTION_GENERAL    N_("General")
#define SECTION_NAVIGATION N_("Navigation")
#define SECTION_SELECTION  N_("Events and Selection")
#define SECTION_TOOLS      N_("Tools")
#define SECTION_VIEW       N_("View")
#define SECTION_TRACKS     N_("Tracks and Sections")

/* The application's keys (app., win., window.) all hold Control or are
 * function keys: application accelerators run before the focused widget
 * sees a key, so a bare letter would fire while the user types. The
 * timeline's keys follow XProf's trace viewer (W/A/S/D, 1-4 and !@#$ for
 * the tools, f, m, g, 0); its Control keys are the usual zoom
 * accelerators. */
static const PlanarShortcut shortcuts[] = {
  { "win.open-file", "<Control>o", N_("Open a profile file"), SECTION_GENERAL },
  { "win.open-folder", "<Control><Shift>o", N_("Open a log directory, run or session folder"), SECTION_GENERAL },
  { "app.new-window", "<Control>n", N_("New window"), SECTION_GENERAL },
  { "win.capture", "<Control><Shift>c", N_("Capture a profile from running programs"), SECTION_GENERAL },
  { "win.record", "<Control><Shift>r", N_("Record a CUDA command with CUPTI"), SECTION_GENERAL },
  { "win.reload", "<Control>r F5", N_("Load the session again"), SECTION_GENERAL },
  { "win.show-sessions", "<Control><Shift>s", N_("Choose a session"), SECTION_GENERAL },
  { "win.show-hosts", "<Control><Shift>h", N_("Choose the hosts to show"), SECTION_GENERAL },
  { "win.show-tracks", "<Control>t", N_("Choose the tracks to show"), SECTION_GENERAL },
  { "win.export-view", "<Control>e", N_("Export the view as a PNG or SVG image"), SECTION_GENERAL },
  { "win.export-profile", "<Control><Shift>e", N_("Export the profile as Chrome Trace JSON or a Perfetto trace"), SECTION_GENERAL },
  { "win.show-menu", "F10", N_("Open the main menu"), SECTION_GENERAL },
  { "app.preferences", "<Control>comma", N_("Preferences"), SECTION_GENERAL },
  { "app.shortcuts", "<Control>question", N_("Show the keyboard shortcuts"), SECTION_GENERAL },
  { "window.close", "<Control>w", N_("Close the window"), SECTION_GENERAL },
  { "app.quit", "<Control>q", N_("Quit"), SECTION_GENERAL },

  { "win.find", "<Control>f", N_("Find events in the whole profile"), SECTION_SELECTION },
  { "timeline.find", "slash KP_Divide", N_("Find events (from the timeline)"), SECTION_SELECTION },
  { "win.find-next", "F3", N_("Next find result"), SECTION_SELECTION },
  { "win.find-previous", "<Shift>F3", N_("Previous find result"), SECTION_SELECTION },

  { "timeline.zoom-in", "w <Control>plus <Control>equal <Control>KP_Add", N_("Zoom in around the pointer"), SECTION_NAVIGATION },
  { "timeline.zoom-in-fast", "<Shift>w", N_("Zoom in faster"), SECTION_NAVIGATION },
  { "timeline.zoom-out", "s <Control>minus <Control>KP_Subtract", N_("Zoom out around the pointer"), SECTION_NAVIGATION },
  { "timeline.zoom-out-fast", "<Shift>s", N_("Zoom out faster"), SECTION_NAVIGATION },
  { "timeline.pan-left", "a", N_("Pan left"), SECTION_NAVIGATION },
  { "timeline.pan-left-fast", "<Shift>a", N_("Pan left faster"), SECTION_NAVIGATION },
  { "timeline.pan-right", "d", N_("Pan right"), SECTION_NAVIGATION },
  { "timeline.pan-right-fast", "<Shift>d", N_("Pan right faster"), SECTION_NAVIGATION },
  { "timeline.show-all", "0 KP_0 <Control>0", N_("Show the whole profile"), SECTION_NAVIGATION },
  { "timeline.zoom-to-selection", "f", N_("Zoom to the selection"), SECTION_NAVIGATION },
  { "timeline.go-to-time", "<Control>g", N_("Go to a time"), SECTION_NAVIGATION },

  { "timeline.next-event", "Right Tab", N_("Next event on the selected track"), SECTION_SELECTION },
  { "timeline.previous-event", "Left <Shift>Tab <Shift>ISO_Left_Tab", N_("Previous event on the selected track"), SECTION_SELECTION },
  { "timeline.select-parent", "Up", N_("Select the enclosing event"), SECTION_SELECTION },
  { "timeline.select-child", "Down", N_("Select the first nested event"), SECTION_SELECTION },
  { "timeline.clear-selection", "Escape", N_("Clear the selection"), SECTION_SELECTION },
  { "timeline.mark", "m", N_("Mark the selection's time range"), SECTION_SELECTION },
  { "timeline.clear-marks", "<Shift>m", N_("Remove every mark"), SECTION_SELECTION },

  { "timeline.tool::select", "1 exclam", N_("Select tool: click and drag to select events"), SECTION_TOOLS },
  { "timeline.tool::pan", "2 at", N_("Pan tool: drag to move the view"), SECTION_TOOLS },
  { "timeline.tool::zoom", "3 numbersign", N_("Zoom tool: drag a range to zoom into"), SECTION_TOOLS },
  { "timeline.tool::timing", "4 dollar", N_("Timing tool: drag to measure an interval"), SECTION_TOOLS },

  { "timeline.toggle-grid", "g", N_("Show or hide the grid"), SECTION_VIEW },
  { "timeline.show-flows", "<Shift>f", N_("Show or hide flow arrows"), SECTION_VIEW },

  { "timeline.show-track-menu", "<Shift>F10 Menu", N_("Open the menu of the selected event’s track"), SECTION_TRACKS },
  { "timeline.hide-track('')", "h", N_("Hide the selected event’s track"), SECTION_TRACKS },
  { "timeline.show-all-tracks", "<Shift>h", N_("Show every hidden track and section"), SECTION_TRACKS },
  { "timeline.toggle-section('')", "c", N_("Collapse or expand the selected event’s section"), SECTION_TRACKS },
  { "timeline.collapse-all", "bracketleft", N_("Collapse every section"), SECTION_TRACKS },
  { "timeline.expand-all", "bracketright", N_("Expand every section"), SECTION_TRACKS },
  { "timeline.move-section-up('')", "<Alt>Up", N_("Move the selected event’s section up"), SECTION_TRACKS },
  { "timeline.move-section-down('')", "<Alt>Down", N_("Move the selected event’s section down"), SECTION_TRACKS },
};

const PlanarShortcut *
planar_shortcuts_get_table (gsize *n_shortcuts)
{
  g_return_val_if_fail (n_shortcuts != NULL, NULL);

  *n_shortcuts = G_N_ELEMENTS (shortcuts);
  return shortcuts;
}

gboolean
planar_shortcuts_is_window_accel (const char *accel)
{
  guint key = 0;
  GdkModifierType mods = 0;

  g_return_val_if_fail (accel != NULL, FALSE);

  if (!gtk_accelerator_parse (accel, &key, &mods))
    return FALSE;
  return (mods & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)) != 0;
}

/* A GtkShortcut activating @entry's action on the widget that owns the
 * controller, with the entry's target as the argument. */
static GtkShortcut *
shortcut_new (const PlanarShortcut *entry,
              const char           *accel)
{
  g_autofree char *name = NULL;
  g_autoptr(GVariant) target = NULL;
  g_autoptr(GError) error = NULL;
  GtkShortcutTrigger *trigger;
  GtkShortcut *shortcut;

  if (!g_action_parse_detailed_name (entry->action, &name, &target, &error))
    g_error ("Bad action name %s in the shortcuts table: %s", entry->action, error->message);
  trigger = gtk_shortcut_trigger_parse_string (accel);
  if (trigger == NULL)
    g_error ("Bad accelerator %s in the shortcuts table", accel);
  shortcut = gtk_shortcut_new (trigger, gtk_named_action_new (name));
  if (target != NULL)
    gtk_shortcut_set_arguments (shortcut, target);
  return shortcut;
}

void
planar_shortcuts_bind_class (GtkWidgetClass *widget_class,
                             const char     *prefix)
{
  g_return_if_fail (GTK_IS_WIDGET_CLASS (widget_class));
  g_return_if_fail (prefix != NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (shortcuts); i++)
    {
      g_auto(GStrv) accels = NULL;

      if (!g_str_has_prefix (shortcuts[i].action, prefix))
        continue;
      accels = g_strsplit (shortcuts[i].accels, " ", -1);
      for (guint a = 0; accels[a] != NULL; a++)
        {
          g_autoptr(GtkShortcut) shortcut = NULL;

          if (accels[a][0] == '\0' || planar_shortcuts_is_window_accel (accels[a]))
            continue;
          shortcut = shortcut_new (&shortcuts[i], accels[a]);
          gtk_widget_class_add_shortcut (widget_class, shortcut);
        }
    }
}

/* Whether @accel is a bare key that types a character (w, 0, !, [), not
 * one that moves the focus or the cursor (Tab, arrows, Escape). */
static gboolean
accel_types_character (const char *accel)
{
  guint key = 0;
  GdkModifierType mods = 0;

  if (accel[0] == '\0' || planar_shortcuts_is_window_accel (accel))
    return FALSE;
  if (!gtk_accelerator_parse (accel, &key, &mods))
    return FALSE;
  return g_unichar_isgraph (gdk_keyval_to_unicode (key));
}

gboolean
planar_shortcuts_activate_typed_key (GtkWidget  *widget,
                                     const char *prefix,
                                     GdkEvent   *event)
{
  g_return_val_if_fail (GTK_IS_WIDGET (widget), FALSE);
  g_return_val_if_fail (prefix != NULL, FALSE);
  g_return_val_if_fail (event != NULL, FALSE);

  if (gdk_event_get_event_type (event) != GDK_KEY_PRESS)
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (shortcuts); i++)
    {
      g_auto(GStrv) accels = NULL;

      if (!g_str_has_prefix (shortcuts[i].action, prefix))
        continue;
      accels = g_strsplit (shortcuts[i].accels, " ", -1);
      for (guint a = 0; accels[a] != NULL; a++)
        {
          g_autoptr(GtkShortcut) shortcut = NULL;

          if (!accel_types_character (accels[a]))
            continue;
          shortcut = shortcut_new (&shortcuts[i], accels[a]);
          if (gtk_shortcut_trigger_trigger (gtk_shortcut_get_trigger (shortcut), event, FALSE) != GDK_KEY_MATCH_EXACT)
            continue;
          return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), GTK_SHORTCUT_ACTION_EXCLUSIVE,
                                               widget, gtk_shortcut_get_arguments (shortcut));
        }
    }
  return FALSE;
}

GtkEventController *
planar_shortcuts_new_window_controller (const char *prefix)
{
  GtkEventController *controller;

  g_return_val_if_fail (prefix != NULL, NULL);

  controller = gtk_shortcut_controller_new ();
  gtk_event_controller_set_name (controller, "planar-window-shortcuts");
  /* Global: the window runs these wherever the focus is. They all hold
   * Control, which an entry does not turn into text. */
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (controller), GTK_SHORTCUT_SCOPE_GLOBAL);
  for (gsize i = 0; i < G_N_ELEMENTS (shortcuts); i++)
    {
      g_auto(GStrv) accels = NULL;

      if (!g_str_has_prefix (shortcuts[i].action, prefix))
        continue;
      accels = g_strsplit (shortcuts[i].accels, " ", -1);
      for (guint a = 0; accels[a] != NULL; a++)
        if (accels[a][0] != '\0' && planar_shortcuts_is_window_accel (accels[a]))
          gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                                shortcut_new (&shortcuts[i], accels[a]));
    }
  return controller;
}

/* @accels as the shortcuts window shows them: the keyval some keyboards
 * send for Shift+Tab (ISO_Left_Tab) is bound too, but reads as Shift+Tab,
 * once. */
static char *
accels_for_display (const char *accels)
{
  g_auto(GStrv) list = g_strsplit (accels, " ", -1);
  g_autoptr(GPtrArray) shown = g_ptr_array_new_with_free_func (g_free);

  for (guint a = 0; list[a] != NULL; a++)
    {
      guint key = 0;
      GdkModifierType mods = 0;
      char *name;

      if (list[a][0] == '\0')
        continue;
      if (gtk_accelerator_parse (list[a], &key, &mods) && key == GDK_KEY_ISO_Left_Tab)
        name = gtk_accelerator_name (GDK_KEY_Tab, mods | GDK_SHIFT_MASK);
      else
        name = g_strdup (list[a]);
      if (g_ptr_array_find_with_equal_func (shown, name, g_str_equal, NULL))
        g_free (name);
      else
        g_ptr_array_add (shown, name);
    }
  g_ptr_array_add (shown, NULL);
  return g_strjoinv (" ", (char **) shown->pdata);
}

GtkShortcutsWindow *
planar_shortcuts_new_window (void)
{
  g_autoptr(GString) xml = g_string_new (NULL);
  g_autoptr(GtkBuilder) builder = gtk_builder_new ();
  g_autoptr(GError) error = NULL;
  const char *current = NULL;
  GObject *window;

  g_string_append (xml,
                   "<interface>\n"
                   "  <object class=\"GtkShortcutsWindow\" id=\"window\">\n"
                   "    <property name=\"modal\">1</property>\n"
                   "    <child>\n"
                   "      <object class=\"GtkShortcutsSection\">\n"
                   "        <property name=\"section-name\">shortcuts</property>\n"
                   "        <property name=\"max-height\">12</property>\n");
  for (gsize i = 0; i < G_N_ELEMENTS (shortcuts); i++)
    {
      g_autofree char *title = g_markup_escape_text (_(shortcuts[i].title), -1);
      g_autofree char *shown = accels_for_display (shortcuts[i].accels);
      g_autofree char *accels = g_markup_escape_text (shown, -1);

      if (current == NULL || strcmp (current, shortcuts[i].section) != 0)
        {
          g_autofree char *section = g_markup_escape_text (_(shortcuts[i].section), -1);

          if (current != NULL)
            g_string_append (xml, "          </object></child>\n");
          current = shortcuts[i].section;
          g_string_append_printf (xml,
                                  "          <child><object class=\"GtkShortcutsGroup\">\n"
                                  "            <property name=\"title\">%s</property>\n",
                                  section);
        }
      g_string_append_printf (xml,
                              "            <child><object class=\"GtkShortcutsShortcut\">\n"
                              "              <property name=\"title\">%s</property>\n"
                              "              <property name=\"accelerator\">%s</property>\n"
                              "            </object></child>\n",
                              title, accels);
    }
  if (current != NULL)
    g_string_append (xml, "          </object></child>\n");
  g_string_append (xml,
                   "      </object>\n"
                   "    </child>\n"
                   "  </object>\n"
                   "</interface>\n");

  if (!gtk_builder_add_from_string (builder, xml->str, (gssize) xml->len, &error))
    g_error ("The shortcuts table does not make a shortcuts window: %s", error->message);
  window = gtk_builder_get_object (builder, "window");
  /* GTK's list of toplevels keeps the window alive past the builder. */
  return GTK_SHORTCUTS_WINDOW (window);
}

void
planar_shortcuts_set_application_accels (GtkApplication *application)
{
  static const char * const prefixes[] = { "app.", "win.", "window." };

  g_return_if_fail (GTK_IS_APPLICATION (application));

  for (gsize i = 0; i < G_N_ELEMENTS (shortcuts); i++)
    for (guint p = 0; p < G_N_ELEMENTS (prefixes); p++)
      if (g_str_has_prefix (shortcuts[i].action, prefixes[p]))
        {
          g_auto(GStrv) accels = g_strsplit (shortcuts[i].accels, " ", -1);

          gtk_application_set_accels_for_action (application, shortcuts[i].action,
                                                 (const char * const *) accels);
        }
}
