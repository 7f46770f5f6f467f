/* planar-window-views.c: the window's part in arranging the timeline: the
 * Tracks menu, remembering each profile's arrangement, and exporting the
 * view as an image.
 *
 * The Tracks filter's line in the message bar, and the timeline's keys
 * handed on from the rest of the window, are here too.
 *
 * What is hidden, collapsed and moved is kept per profile, named by the
 * session folder (or file) it was loaded from, in
 * $XDG_STATE_HOME/planar/views.ini (see PlanarViewState). It is read when
 * the profile is loaded, again on Reload, and written at each change.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-window-private.h"

#include <glib/gi18n.h>

#include "planar-shortcuts.h"

/* ------------------------------------------------------------------------
 * Remembering the arrangement
 * ------------------------------------------------------------------------ */

static void
show_toast (PlanarWindow *self,
            const char   *title)
{
  AdwToast *toast = adw_toast_new (title);

  adw_toast_set_timeout (toast, 6);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
view_state_changed (PlanarWindow    *self,
                    PlanarViewState *state)
{
  g_autofree char *store = NULL;
  g_autoptr(GError) error = NULL;

  /* Only the state the timeline shows, for the profile it belongs to. */
  if (self->view_key == NULL || state != planar_timeline_get_view_state (self->timeline))
    return;
  store = planar_view_state_get_default_store ();
  if (!planar_view_state_save (state, store, self->view_key, &error))
    {
      /* Translators: %s says why, e.g. "Permission denied". */
      g_autofree char *title = g_strdup_printf (_("Could not remember the tracks shown: %s"), error->message);

      show_toast (self, title);
    }
}

void
_planar_window_restore_view (PlanarWindow *self)
{
  PlanarCatalogSession *session = NULL;
  g_autofree char *store = planar_view_state_get_default_store ();
  g_autoptr(PlanarViewState) state = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (PLANAR_IS_WINDOW (self));

  if (self->catalog != NULL && self->session != NULL)
    session = planar_catalog_find_session (self->catalog, self->session);
  g_clear_pointer (&self->view_key, g_free);
  if (session == NULL)
    return;
  self->view_key = g_strdup (session->path);

  state = planar_view_state_load (store, self->view_key, &error);
  if (state == NULL)
    {
      /* Translators: %s says why, e.g. "Key file contains line “x” which is not a key-value pair". */
      g_autofree char *title = g_strdup_printf (_("Could not read the tracks shown last time: %s"), error->message);

      show_toast (self, title);
      state = planar_view_state_new ();
    }
  g_signal_connect_object (state, "changed", G_CALLBACK (view_state_changed), self, G_CONNECT_SWAPPED);
  planar_timeline_set_view_state (self->timeline, state);
}

/* ------------------------------------------------------------------------
 * Export
 * ------------------------------------------------------------------------ */

static void
export_response (GtkNativeDialog *dialog,
                 int              response,
                 PlanarWindow    *self)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *basename = NULL;
  PlanarTimelineExportFormat format = PLANAR_TIMELINE_EXPORT_PNG;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->export_chooser);
  if (file == NULL)
    return;

  basename = g_file_get_basename (file);
  if (g_str_has_suffix (basename, ".svg") || g_str_has_suffix (basename, ".SVG"))
    format = PLANAR_TIMELINE_EXPORT_SVG;
  else if (!g_str_has_suffix (basename, ".png") && !g_str_has_suffix (basename, ".PNG"))
    {
      /* No extension: a PNG, named so. */
      g_autofree char *png = g_strconcat (basename, ".png", NULL);
      g_autoptr(GFile) parent = g_file_get_parent (file);
      g_autoptr(GFile) named = g_file_get_child (parent, png);

      g_set_object (&file, named);
    }
  _planar_window_export_view (self, file, format, &error);
}

gboolean
_planar_window_export_view (PlanarWindow               *self,
                            GFile                      *file,
                            PlanarTimelineExportFormat  format,
                            GError                    **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;

  g_return_val_if_fail (PLANAR_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  name = g_file_get_basename (file);
  if (!planar_timeline_export (self->timeline, file, format, &local_error))
    {
      /* Translators: %s says why. */
      title = g_strdup_printf (_("Could not export the view: %s"), local_error->message);
      show_toast (self, title);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  /* Translators: %s is a file name. */
  title = g_strdup_printf (_("View exported to %s"), name);
  show_toast (self, title);
  return TRUE;
}

static void
export_view_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);
  g_autoptr(GtkFileFilter) png = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) svg = gtk_file_filter_new ();
  g_autoptr(GFile) folder = NULL;
  g_autofree char *last_folder = NULL;
  GtkFileChooser *chooser;

  if (self->export_chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_chooser));
      g_clear_object (&self->export_chooser);
    }
  self->export_chooser = gtk_file_chooser_native_new (_("Export View"), GTK_WINDOW (self),
                                                      GTK_FILE_CHOOSER_ACTION_SAVE,
                                                      _("_Export"), _("_Cancel"));
  chooser = GTK_FILE_CHOOSER (self->export_chooser);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->export_chooser), TRUE);
  gtk_file_filter_set_name (png, _("PNG Image"));
  gtk_file_filter_add_mime_type (png, "image/png");
  gtk_file_filter_add_suffix (png, "png");
  gtk_file_filter_set_name (svg, _("SVG Image"));
  gtk_file_filter_add_mime_type (svg, "image/svg+xml");
  gtk_file_filter_add_suffix (svg, "svg");
  gtk_file_chooser_add_filter (chooser, png);
  gtk_file_chooser_add_filter (chooser, svg);
  /* Translators: the file name the export offers; keep the .png. */
  gtk_file_chooser_set_current_name (chooser, _("timeline.png"));
  last_folder = g_settings_get_string (self->settings, "last-folder");
  if (last_folder[0] != '\0' && g_file_test (last_folder, G_FILE_TEST_IS_DIR))
    {
      folder = g_file_new_for_path (last_folder);
      gtk_file_chooser_set_current_folder (chooser, folder, NULL);
    }
  g_signal_connect (self->export_chooser, "response", G_CALLBACK (export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->export_chooser));
}

/* ------------------------------------------------------------------------
 * The Tracks filter
 *
 * The filter stays in force once the Tracks menu closes: it is there to
 * work on the matching tracks (select, zoom, measure), which needs the
 * menu closed. So that it is never a hidden state, the message bar says
 * which tracks are shown while it is set, with a button that clears it.
 * ------------------------------------------------------------------------ */

static void
track_filter_changed (PlanarWindow *self)
{
  const char *filter = planar_timeline_get_track_filter (self->timeline);
  g_autofree char *text = NULL;

  if (filter[0] == '\0')
    {
      planar_message_bar_remove (self->message_bar, MESSAGE_TRACK_FILTER);
      return;
    }
  /* Translators: %s is what the user typed in the Tracks menu's filter. */
  text = g_strdup_printf (_("Showing tracks matching “%s”"), filter);
  planar_message_bar_set (self->message_bar, MESSAGE_TRACK_FILTER, PLANAR_MESSAGE_INFO, text,
                          _("_Clear"), "win.clear-track-filter", FALSE);
}

static void
clear_track_filter_activated (GSimpleAction *action,
                              GVariant      *parameter,
                              gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);

  planar_timeline_set_track_filter (self->timeline, NULL);
}

/* ------------------------------------------------------------------------
 * The timeline's keys
 *
 * The timeline's bare keys (W/A/S/D, 0, 1-4, f, m, ...) are bound on it
 * and act while it has the focus. They also act while the focus is on
 * anything else of the window that takes no text (a button or drop-down
 * of the header bar, the find bar's hit list, the details pane), as in
 * XProf, where they work whenever no text field has the focus: the window
 * sees them after the focused widget left them (bubble phase) and hands
 * them to the timeline. Never from an entry (typing stays text), nor from
 * an open popover or menu (its keys stay with it).
 * ------------------------------------------------------------------------ */

static gboolean
focus_takes_keys (GtkWidget *focus,
                  GtkWidget *timeline)
{
  if (focus == NULL)
    return FALSE;
  return GTK_IS_EDITABLE (focus)
         || gtk_widget_get_ancestor (focus, GTK_TYPE_EDITABLE) != NULL
         || gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER) != NULL
         || focus == timeline
         || gtk_widget_is_ancestor (focus, timeline);
}

static gboolean
window_key_pressed (GtkEventControllerKey *controller,
                    guint                  keyval,
                    guint                  keycode,
                    GdkModifierType        state,
                    PlanarWindow          *self)
{
  GtkWidget *timeline = GTK_WIDGET (self->timeline);
  GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));

  if (event == NULL || planar_timeline_get_profile (self->timeline) == NULL || !gtk_widget_is_drawable (timeline))
    return FALSE;
  if (focus_takes_keys (gtk_root_get_focus (GTK_ROOT (self)), timeline))
    return FALSE;
  return planar_shortcuts_activate_typed_key (timeline, "timeline.", event);
}

/* ------------------------------------------------------------------------
 * Actions
 * ------------------------------------------------------------------------ */

static void
show_tracks_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);

  if (gtk_widget_get_visible (GTK_WIDGET (self->tracks_button)))
    gtk_menu_button_popup (self->tracks_button);
}

static const GActionEntry view_entries[] = {
  { .name = "show-tracks", .activate = show_tracks_activated },
  { .name = "export-view", .activate = export_view_activated },
  { .name = "clear-track-filter", .activate = clear_track_filter_activated },
};

static void
update_view_actions (PlanarWindow *self)
{
  gboolean have_profile = planar_timeline_get_profile (self->timeline) != NULL;
  GActionMap *map = G_ACTION_MAP (self);

  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "show-tracks")), have_profile);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "export-view")), have_profile);
  gtk_widget_set_sensitive (GTK_WIDGET (self->tracks_button), have_profile);
}

void
_planar_window_init_views (PlanarWindow *self)
{
  GtkEventController *keys;

  g_action_map_add_action_entries (G_ACTION_MAP (self), view_entries, G_N_ELEMENTS (view_entries), self);
  /* The Tracks button shows with the other controls of a session. */
  g_object_bind_property (self->tool_drop_down, "visible", self->tracks_button, "visible", G_BINDING_SYNC_CREATE);
  g_signal_connect_object (self->timeline, "notify::profile", G_CALLBACK (update_view_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "notify::track-filter", G_CALLBACK (track_filter_changed), self,
                           G_CONNECT_SWAPPED);
  update_view_actions (self);
  track_filter_changed (self);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_name (keys, "planar-timeline-keys");
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_BUBBLE);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (window_key_pressed), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

void
_planar_window_dispose_views (PlanarWindow *self)
{
  if (self->export_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_chooser));
  g_clear_object (&self->export_chooser);
  if (self->profile_export_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->profile_export_chooser));
  g_clear_object (&self->profile_export_chooser);
  g_clear_pointer (&self->view_key, g_free);
}
