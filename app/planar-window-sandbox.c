/* planar-window-sandbox.c: what the window does differently inside the
 * Flatpak sandbox (planar-sandbox.h): a line offering the whole session
 * folder of a host file the document portal passed alone, and words for a
 * folder "Open With" could not pass.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include <glib/gi18n.h>

#include "planar-sandbox.h"
#include "planar-window-private.h"

void
_planar_window_offer_session_folder (PlanarWindow *self,
                                     GFile        *file)
{
  const char *path = g_file_peek_path (file);

  if (path == NULL || !planar_sandbox_is_portal_path (path) || !planar_sandbox_is_session_file (path))
    {
      planar_message_bar_remove (self->message_bar, MESSAGE_SESSION_FOLDER);
      return;
    }
  planar_message_bar_set (self->message_bar, MESSAGE_SESSION_FOLDER, PLANAR_MESSAGE_INFO,
                          _("Only this host file was shared with Planar: the other hosts of its session are not visible"),
                          _("Open the Whole Session _Folder…"), "win.open-session-folder", TRUE);
}

/* The folder the chooser starts in: the one the portal says the file is
 * in on the host, else the last folder opened. Returns: (transfer full) (nullable). */
static GFile *
session_folder_guess (PlanarWindow *self)
{
  g_autofree char *host = NULL;
  g_autofree char *last_folder = NULL;

  if (self->file != NULL)
    host = planar_sandbox_dup_host_path (self->file);
  if (host != NULL)
    {
      g_autofree char *parent = g_path_get_dirname (host);

      return g_file_new_for_path (parent);
    }
  last_folder = g_settings_get_string (self->settings, "last-folder");
  if (last_folder[0] != '\0')
    return g_file_new_for_path (last_folder);
  return NULL;
}

static void
session_folder_response (GtkNativeDialog *dialog,
                         int              response,
                         PlanarWindow    *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      /* The session replaces its one file, here. */
      if (folder != NULL)
        planar_window_open (self, folder);
    }
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->file_chooser);
}

void
_planar_window_choose_session_folder (PlanarWindow *self)
{
  g_autoptr(GFile) start = session_folder_guess (self);

  if (self->file_chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->file_chooser));
      g_clear_object (&self->file_chooser);
    }
  self->file_chooser = gtk_file_chooser_native_new (_("Open the Whole Session Folder"), GTK_WINDOW (self),
                                                    GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                    _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->file_chooser), TRUE);
  /* Through the portal the folder is the host's, which the sandbox may
   * not see: it is passed on as it is. */
  if (start != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (self->file_chooser), start, NULL);
  g_signal_connect (self->file_chooser, "response", G_CALLBACK (session_folder_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->file_chooser));
}

gboolean
_planar_window_explain_unreachable (PlanarWindow *self,
                                    GFile        *file)
{
  const char *path = g_file_peek_path (file);
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;

  if (path == NULL || !planar_sandbox_is_flatpak () || g_file_query_exists (file, NULL))
    return FALSE;

  name = g_file_get_parse_name (file);
  if (!planar_sandbox_can_forward_folders ())
    /* Translators: %s is a folder or file path. */
    text = g_strdup_printf (_("“%s” could not be passed to Planar: opening folders from the file manager needs "
                              "Flatpak 1.18 or later with xdg-desktop-portal 1.7 or later. Choose it with Open Folder… instead"),
                            name);
  else
    /* Translators: %s is a folder or file path. */
    text = g_strdup_printf (_("Planar cannot see “%s” from inside its sandbox. Choose it with Open Folder… to share it"),
                            name);
  planar_message_bar_set (self->message_bar, MESSAGE_SESSION_FOLDER, PLANAR_MESSAGE_WARNING, text,
                          _("Open _Folder…"), "win.open-folder", TRUE);
  return TRUE;
}
