/* planar-message-bar.h: one line per thing the user should know about the
 * profile shown (a filter in force, a file changed on disk, hosts shown
 * from their own start, a file cut short), stacked above the tracks.
 *
 * libadwaita 1.2 has no AdwBanner (1.3), and a banner holds one message:
 * this bar holds any number, each under a key, so that the parts of the
 * window that know a fact add, replace and remove their own line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PLANAR_TYPE_MESSAGE_BAR (planar_message_bar_get_type ())
G_DECLARE_FINAL_TYPE (PlanarMessageBar, planar_message_bar, PLANAR, MESSAGE_BAR, GtkWidget)

/* How a line looks: a fact about the view, something the user may want
 * to act on, or something that went wrong. */
typedef enum
{
  PLANAR_MESSAGE_INFO,
  PLANAR_MESSAGE_WARNING,
  PLANAR_MESSAGE_ERROR,
} PlanarMessageType;

GtkWidget  *planar_message_bar_new         (void);

/* Shows @text (one line, plain text; ellipsized when too long, the whole
 * of it in a tooltip) under @key, replacing the line of that key if there
 * is one (in place) or adding it at the bottom. With @button_label and
 * @action_name, the line has a button that activates that action (a
 * detailed action name, "win.reload", found from the bar up as any
 * GtkActionable's); with @closable, a close button that removes the line
 * and emits ::closed. */
void        planar_message_bar_set         (PlanarMessageBar  *self,
                                            const char        *key,
                                            PlanarMessageType  type,
                                            const char        *text,
                                            const char        *button_label,
                                            const char        *action_name,
                                            gboolean           closable);
/* Removes the line of @key, if there is one. */
void        planar_message_bar_remove      (PlanarMessageBar  *self,
                                            const char        *key);
void        planar_message_bar_remove_all  (PlanarMessageBar  *self);

/* Returns: (nullable): the text of the line of @key. */
const char *planar_message_bar_get_text    (PlanarMessageBar  *self,
                                            const char        *key);
/* Returns: (nullable) (transfer none): the action button of @key's line. */
GtkWidget  *planar_message_bar_get_button  (PlanarMessageBar  *self,
                                            const char        *key);
guint       planar_message_bar_get_n_lines (PlanarMessageBar  *self);

G_END_DECLS
