/* planar-window-export.c: exporting the loaded profile to Chrome JSON or
 * Perfetto (File > Export Profile…), in a worker thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-window-private.h"

#include <glib/gi18n.h>

typedef struct
{
  PlanarProfile      *profile;
  GFile              *file;
  PlanarExportFormat  format;
} ExportJob;

static void
export_job_free (ExportJob *job)
{
  g_clear_object (&job->profile);
  g_clear_object (&job->file);
  g_free (job);
}

static void
export_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ExportJob *job = task_data;
  GError *error = NULL;

  /* The user already agreed to replace an existing file in the chooser. */
  if (planar_export_to_file (job->profile, job->format, g_file_peek_path (job->file), TRUE, NULL, NULL, cancellable,
                             &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
_planar_window_export_profile_async (PlanarWindow        *self,
                                     GFile               *file,
                                     PlanarExportFormat   format,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, callback, user_data);
  ExportJob *job;

  g_return_if_fail (PLANAR_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  if (self->profile == NULL || !planar_profile_is_loaded (self->profile) || g_file_peek_path (file) == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, "%s",
                               _("There is no loaded profile to export"));
      return;
    }
  job = g_new0 (ExportJob, 1);
  job->profile = g_object_ref (self->profile);
  job->file = g_object_ref (file);
  job->format = format;
  g_task_set_task_data (task, job, (GDestroyNotify) export_job_free);
  g_task_run_in_thread (task, export_thread);
}

gboolean
_planar_window_export_profile_finish (PlanarWindow  *self,
                                      GAsyncResult  *result,
                                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
export_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (source);
  g_autoptr(GFile) file = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *title = NULL;
  AdwToast *toast;

  if (!_planar_window_export_profile_finish (self, result, &error))
    {
      _planar_window_show_error (self, _("Could Not Export the Profile"), g_file_peek_path (file), error);
      return;
    }
  /* Translators: %s is a file name. */
  title = g_strdup_printf (_("Profile exported to %s"), name);
  toast = adw_toast_new (title);
  adw_toast_set_timeout (toast, 6);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
export_response (GtkNativeDialog *dialog,
                 int              response,
                 PlanarWindow    *self)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  AdwToast *toast;
  g_autofree char *title = NULL;
  g_autofree char *name = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->profile_export_chooser);
  if (file == NULL || g_file_peek_path (file) == NULL)
    return;

  name = g_file_get_basename (file);
  /* Translators: %s is a file name. */
  title = g_strdup_printf (_("Exporting the profile to %s…"), name);
  toast = adw_toast_new (title);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  path = g_file_get_path (file);
  _planar_window_export_profile_async (self, file, planar_export_format_for_path (path), export_done,
                                       g_object_ref (file));
}

static void
export_profile_activated (GSimpleAction *action,
                          GVariant      *parameter,
                          gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);
  g_autoptr(GtkFileFilter) json = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) perfetto = gtk_file_filter_new ();
  g_autofree char *last_folder = NULL;
  g_autofree char *name = NULL;
  GtkFileChooser *chooser;

  if (self->profile_export_chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->profile_export_chooser));
      g_clear_object (&self->profile_export_chooser);
    }
  self->profile_export_chooser = gtk_file_chooser_native_new (_("Export Profile"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                                                              _("_Cancel"));
  chooser = GTK_FILE_CHOOSER (self->profile_export_chooser);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->profile_export_chooser), TRUE);
  gtk_file_filter_set_name (json, _("Chrome Trace JSON (chrome://tracing, Perfetto, XProf)"));
  gtk_file_filter_add_suffix (json, "json");
  gtk_file_filter_add_suffix (json, "json.gz");
  gtk_file_filter_set_name (perfetto, _("Perfetto Trace (ui.perfetto.dev)"));
  gtk_file_filter_add_suffix (perfetto, "pftrace");
  gtk_file_filter_add_suffix (perfetto, "perfetto-trace");
  gtk_file_chooser_add_filter (chooser, json);
  gtk_file_chooser_add_filter (chooser, perfetto);
  /* Translators: the file name offered; %s is the session's name. */
  name = g_strdup_printf (_("%s.json.gz"), self->session != NULL ? self->session : "profile");
  g_strdelimit (name, "/", '-');
  gtk_file_chooser_set_current_name (chooser, name);
  last_folder = g_settings_get_string (self->settings, "last-folder");
  if (last_folder[0] != '\0' && g_file_test (last_folder, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GFile) folder = g_file_new_for_path (last_folder);

      gtk_file_chooser_set_current_folder (chooser, folder, NULL);
    }
  g_signal_connect (self->profile_export_chooser, "response", G_CALLBACK (export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->profile_export_chooser));
}

static const GActionEntry export_entries[] = {
  { .name = "export-profile", .activate = export_profile_activated },
};

void
_planar_window_init_export_actions (PlanarWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), export_entries, G_N_ELEMENTS (export_entries), self);
}
