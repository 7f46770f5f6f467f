/* planar-record-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-record-dialog.h"

#include <glib/gi18n.h>
#include <signal.h>
#include <string.h>

#include "planar-sandbox.h"

struct _PlanarRecordDialog
{
  AdwWindow             parent_instance;

  AdwToastOverlay      *toast_overlay;
  GtkButton            *close_button;
  GtkButton            *record_button;
  GtkButton            *stop_button;
  GtkStack             *stack;
  AdwEntryRow          *command_row;
  AdwActionRow         *folder_row;
  AdwEntryRow          *environment_row;
  AdwActionRow         *logdir_row;
  GtkSpinButton        *duration_spin;
  GtkSwitch            *nvtx_switch;
  GtkSpinner           *spinner;
  GtkLabel             *status_label;
  GtkTextView          *output_view;

  PlanarRecordOptions  *options;
  char                 *cli;
  GSubprocess          *process;
  GCancellable         *cancellable;
  /* Output streams still being read, and whether the process has ended:
   * the result is reported once all three are done. */
  guint                 open_streams;
  gboolean              exited;
  int                   exit_status;
  char                 *recorded_path;
  char                 *last_error_line;
  GtkFileChooserNative *chooser;
  /* The option the folder chooser sets. */
  const char           *chooser_property;
};

G_DEFINE_FINAL_TYPE (PlanarRecordDialog, planar_record_dialog, ADW_TYPE_WINDOW)

enum
{
  SIGNAL_RECORDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

gboolean
planar_record_dialog_is_supported (void)
{
  return !planar_sandbox_is_flatpak ();
}

static void
set_running (PlanarRecordDialog *self,
             gboolean            running)
{
  gtk_widget_set_visible (GTK_WIDGET (self->record_button), !running);
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->close_button), !running);
  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "record.start", !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "record.stop", running);
}

static void
append_output (PlanarRecordDialog *self,
               const char         *line)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->output_view);
  GtkTextIter end;

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, line, -1);
  gtk_text_buffer_insert (buffer, &end, "\n", 1);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_view_scroll_to_iter (self->output_view, &end, 0.0, FALSE, 0.0, 1.0);
}

static void
finish (PlanarRecordDialog *self)
{
  g_autofree char *status = NULL;

  if (self->open_streams > 0 || !self->exited)
    return;
  set_running (self, FALSE);
  g_clear_object (&self->process);
  if (self->exit_status == 0 && self->recorded_path != NULL)
    {
      /* Translators: %s is the path of the profile written. */
      status = g_strdup_printf (_("Recorded %s"), self->recorded_path);
      gtk_label_set_text (self->status_label, status);
      g_signal_emit (self, signals[SIGNAL_RECORDED], 0, self->recorded_path);
      return;
    }
  if (self->last_error_line != NULL)
    status = g_strdup_printf (_("Recording failed: %s"), self->last_error_line);
  else if (self->exit_status == 0)
    status = g_strdup (_("Recording failed: the recorder wrote no profile"));
  else
    status = g_strdup_printf (_("Recording failed: the recorder exited with status %d"), self->exit_status);
  gtk_label_set_text (self->status_label, status);
  gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
}

static void read_next_line (PlanarRecordDialog *self,
                            GDataInputStream   *stream,
                            gboolean            is_stdout);

typedef struct
{
  PlanarRecordDialog *self;
  gboolean            is_stdout;
} LineRead;

static void
line_read (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  LineRead *read = user_data;
  PlanarRecordDialog *self = read->self;
  gboolean is_stdout = read->is_stdout;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result, NULL,
                                                                    &error);

  g_free (read);
  if (line == NULL)
    {
      /* End of the stream, or the dialog went away (cancelled). */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          self->open_streams--;
          finish (self);
        }
      g_object_unref (self);
      return;
    }
  append_output (self, line);
  if (is_stdout && g_str_has_suffix (g_strstrip (line), ".xplane.pb"))
    {
      g_free (self->recorded_path);
      self->recorded_path = g_strdup (line);
    }
  else if (!is_stdout && line[0] != '\0')
    {
      g_free (self->last_error_line);
      self->last_error_line = g_strdup (g_str_has_prefix (line, "planar-cli: ") ? line + strlen ("planar-cli: ")
                                                                                : line);
    }
  read_next_line (self, G_DATA_INPUT_STREAM (source), is_stdout);
  g_object_unref (self);
}

static void
read_next_line (PlanarRecordDialog *self,
                GDataInputStream   *stream,
                gboolean            is_stdout)
{
  LineRead *read = g_new (LineRead, 1);

  read->self = g_object_ref (self);
  read->is_stdout = is_stdout;
  g_data_input_stream_read_line_async (stream, G_PRIORITY_DEFAULT, self->cancellable, line_read, read);
}

static void
watch_stream (PlanarRecordDialog *self,
              GInputStream       *stream,
              gboolean            is_stdout)
{
  g_autoptr(GDataInputStream) data = g_data_input_stream_new (stream);

  self->open_streams++;
  read_next_line (self, data, is_stdout);
}

static void
process_exited (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(PlanarRecordDialog) self = user_data;
  GSubprocess *process = G_SUBPROCESS (source);
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_wait_finish (process, result, &error))
    return;
  self->exited = TRUE;
  if (g_subprocess_get_if_exited (process))
    self->exit_status = g_subprocess_get_exit_status (process);
  else
    self->exit_status = 128 + g_subprocess_get_term_sig (process);
  finish (self);
}

static void
show_error (PlanarRecordDialog *self,
            const char         *message)
{
  AdwToast *toast = adw_toast_new (message);

  adw_toast_set_timeout (toast, 0);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
start_activated (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PlanarRecordDialog *self = PLANAR_RECORD_DIALOG (widget);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) environment = NULL;
  g_auto(GStrv) argv = planar_record_options_build_argv (self->options, self->cli, &environment, &error);
  g_autofree char *folder = NULL;
  g_autofree char *command = NULL;
  g_autofree char *status = NULL;

  if (argv == NULL)
    {
      show_error (self, error->message);
      return;
    }

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_object_get (self->options, "working-folder", &folder, "command", &command, NULL);
  if (folder != NULL && folder[0] != '\0')
    g_subprocess_launcher_set_cwd (launcher, folder);
  for (guint i = 0; environment[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (environment[i], strcspn (environment[i], "="));

      g_subprocess_launcher_setenv (launcher, name, environment[i] + strlen (name) + 1, TRUE);
    }

  g_clear_pointer (&self->recorded_path, g_free);
  g_clear_pointer (&self->last_error_line, g_free);
  self->exited = FALSE;
  self->exit_status = 0;
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->output_view), "", 0);
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");

  self->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, &error);
  if (self->process == NULL)
    {
      show_error (self, error->message);
      return;
    }
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  watch_stream (self, g_subprocess_get_stdout_pipe (self->process), TRUE);
  watch_stream (self, g_subprocess_get_stderr_pipe (self->process), FALSE);
  g_subprocess_wait_async (self->process, self->cancellable, process_exited, g_object_ref (self));

  /* Translators: %s is the command line being recorded. */
  status = g_strdup_printf (_("Recording %s…"), command);
  gtk_label_set_text (self->status_label, status);
  gtk_stack_set_visible_child_name (self->stack, "running");
  set_running (self, TRUE);
}

static void
stop_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  PlanarRecordDialog *self = PLANAR_RECORD_DIALOG (widget);

  /* The recorder forwards the signal to the command and keeps what it
   * recorded. */
  if (self->process != NULL)
    g_subprocess_send_signal (self->process, SIGINT);
}

static void
chooser_response (GtkNativeDialog    *dialog,
                  int                 response,
                  PlanarRecordDialog *self)
{
  const char *property = self->chooser_property;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL && g_file_peek_path (file) != NULL)
        g_object_set (self->options, property, g_file_peek_path (file), NULL);
    }
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->chooser);
}

static void
choose_folder (PlanarRecordDialog *self,
               const char         *title,
               const char         *property)
{
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
  self->chooser_property = property;
  self->chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                               _("_Select"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
choose_folder_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  choose_folder (PLANAR_RECORD_DIALOG (widget), _("Working Folder"), "working-folder");
}

static void
choose_logdir_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  choose_folder (PLANAR_RECORD_DIALOG (widget), _("Log Directory"), "logdir");
}

static gboolean
close_request (GtkWindow *window)
{
  PlanarRecordDialog *self = PLANAR_RECORD_DIALOG (window);

  /* Closing would leave the command running unseen: stop it first. */
  if (self->process != NULL)
    {
      show_error (self, _("Stop the recording before closing"));
      return TRUE;
    }
  return GTK_WINDOW_CLASS (planar_record_dialog_parent_class)->close_request (window);
}

/* A folder row shows its path; an empty one means the home folder. */
static gboolean
path_to_subtitle (GBinding     *binding,
                  const GValue *from,
                  GValue       *to,
                  gpointer      user_data)
{
  const char *path = g_value_get_string (from);

  g_value_set_string (to, path != NULL && path[0] != '\0' ? path : _("Home folder"));
  return TRUE;
}

static void
planar_record_dialog_dispose (GObject *object)
{
  PlanarRecordDialog *self = PLANAR_RECORD_DIALOG (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
  g_clear_object (&self->process);
  g_clear_object (&self->options);
  gtk_widget_dispose_template (GTK_WIDGET (self), PLANAR_TYPE_RECORD_DIALOG);
  G_OBJECT_CLASS (planar_record_dialog_parent_class)->dispose (object);
}

static void
planar_record_dialog_finalize (GObject *object)
{
  PlanarRecordDialog *self = PLANAR_RECORD_DIALOG (object);

  g_free (self->cli);
  g_free (self->recorded_path);
  g_free (self->last_error_line);
  G_OBJECT_CLASS (planar_record_dialog_parent_class)->finalize (object);
}

static void
planar_record_dialog_class_init (PlanarRecordDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_record_dialog_dispose;
  object_class->finalize = planar_record_dialog_finalize;
  GTK_WINDOW_CLASS (klass)->close_request = close_request;

  /* The recording succeeded: the path of the profile written. */
  signals[SIGNAL_RECORDED] = g_signal_new ("recorded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                           NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "record.start", NULL, start_activated);
  gtk_widget_class_install_action (widget_class, "record.stop", NULL, stop_activated);
  gtk_widget_class_install_action (widget_class, "record.choose-folder", NULL, choose_folder_activated);
  gtk_widget_class_install_action (widget_class, "record.choose-logdir", NULL, choose_logdir_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/planar/Planar/planar-record-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, close_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, record_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, stop_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, command_row);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, folder_row);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, environment_row);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, logdir_row);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, duration_spin);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, nvtx_switch);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, spinner);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, status_label);
  gtk_widget_class_bind_template_child (widget_class, PlanarRecordDialog, output_view);
}

static void
planar_record_dialog_init (PlanarRecordDialog *self)
{
  const GBindingFlags flags = G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->options = planar_record_options_new ();
  g_object_bind_property (self->options, "command", self->command_row, "text", flags);
  g_object_bind_property (self->options, "environment", self->environment_row, "text", flags);
  g_object_bind_property (self->options, "duration-ms", self->duration_spin, "value", flags);
  g_object_bind_property (self->options, "nvtx", self->nvtx_switch, "active", flags);
  g_object_bind_property_full (self->options, "working-folder", self->folder_row, "subtitle", G_BINDING_SYNC_CREATE,
                               path_to_subtitle, NULL, NULL, NULL);
  g_object_bind_property_full (self->options, "logdir", self->logdir_row, "subtitle", G_BINDING_SYNC_CREATE,
                               path_to_subtitle, NULL, NULL, NULL);
  set_running (self, FALSE);
}

PlanarRecordDialog *
planar_record_dialog_new (GtkWindow  *parent,
                          const char *cli)
{
  PlanarRecordDialog *self;

  g_return_val_if_fail (cli != NULL, NULL);

  self = g_object_new (PLANAR_TYPE_RECORD_DIALOG, "transient-for", parent, NULL);
  self->cli = g_strdup (cli);
  return self;
}

PlanarRecordOptions *
planar_record_dialog_get_options (PlanarRecordDialog *self)
{
  g_return_val_if_fail (PLANAR_IS_RECORD_DIALOG (self), NULL);
  return self->options;
}

gboolean
planar_record_dialog_get_running (PlanarRecordDialog *self)
{
  g_return_val_if_fail (PLANAR_IS_RECORD_DIALOG (self), FALSE);
  return self->process != NULL;
}

const char *
planar_record_dialog_get_status (PlanarRecordDialog *self)
{
  g_return_val_if_fail (PLANAR_IS_RECORD_DIALOG (self), NULL);
  return gtk_label_get_text (self->status_label);
}
