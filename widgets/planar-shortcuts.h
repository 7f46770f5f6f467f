/* planar-shortcuts.h: every keyboard shortcut of Planar, in one table.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* One command's keys. The same table binds the keys and fills the
 * shortcuts window, so the two cannot drift apart. */
typedef struct
{
  /* A detailed action name: "timeline.zoom-in", "timeline.tool::pan". */
  const char *action;
  /* One or more accelerators in gtk_accelerator_parse() syntax, separated
   * by spaces (the format of GtkShortcutsShortcut:accelerator). */
  const char *accels;
  /* What the command does, for people; translatable. */
  const char *title;
  /* The group of the shortcuts window it belongs to; translatable. */
  const char *section;
} PlanarShortcut;

/* Returns: (transfer none): the table, @n_shortcuts entries long. */
const PlanarShortcut *planar_shortcuts_get_table        (gsize          *n_shortcuts);

/* Whether @accel (one accelerator) holds Control, Alt or Super. Those are
 * window-wide accelerators; keys without them are bound on the widget and
 * act while it has the focus, so that typing in an entry never fires them
 * (a window may hand them on: planar_shortcuts_activate_typed_key()). */
gboolean              planar_shortcuts_is_window_accel  (const char     *accel);

/* Binds, on @widget_class, the keys without a modifier of every entry
 * whose action starts with @prefix (e.g. "timeline."). Call from
 * class_init. */
void                  planar_shortcuts_bind_class       (GtkWidgetClass *widget_class,
                                                         const char     *prefix);

/* A shortcut controller, global in scope, with the window-wide keys of
 * every entry whose action starts with @prefix. Added to a widget, its
 * actions are activated on that widget wherever the focus is in the
 * window. Returns: (transfer full). */
GtkEventController   *planar_shortcuts_new_window_controller (const char *prefix);

/* Activates on @widget the action of the entry starting with @prefix
 * whose key without Control, Alt or Super types a character (w, 0, f, !)
 * and matches the key press @event: for a window that hands those keys to
 * its timeline while the focus is on a button or a menu of its header.
 * Keys that move the focus or a cursor (Tab, arrows, Escape) are never
 * handed on. Returns: whether an action was activated. */
gboolean              planar_shortcuts_activate_typed_key (GtkWidget  *widget,
                                                           const char *prefix,
                                                           GdkEvent   *event);

/* A shortcuts window listing the table: one group per section, in table
 * order. GTK 4.8 builds these windows only from GtkBuilder XML, so the
 * XML is written from the table. Returns: (transfer none): like any
 * toplevel, owned by GTK until gtk_window_destroy(). */
GtkShortcutsWindow   *planar_shortcuts_new_window       (void);

/* Sets the accelerators of the table's application and window entries
 * (actions starting with "app.", "win." or "window.") on @application. */
void                  planar_shortcuts_set_application_accels (GtkApplication *application);

G_END_DECLS
