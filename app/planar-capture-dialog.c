/* planar-capture-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-capture-dialog.h"

#include <glib/gi18n.h>

#define MAX_RECENT 10

struct _PlanarCaptureDialog
{
  AdwWindow             parent_instance;

  AdwToastOverlay      *toast_overlay;
  GtkButton            *cancel_button;
  GtkButton            *capture_button;
  GtkButton            *stop_button;
  GtkStack             *stack;
  AdwPreferencesGroup  *servers_group;
  AdwEntryRow          *addresses_row;
  GtkMenuButton        *recent_button;
  AdwActionRow         *logdir_row;
  GtkSpinButton        *duration_spin;
  AdwComboRow          *host_level_row;
  AdwComboRow          *device_level_row;
  AdwComboRow          *python_level_row;
  GtkSpinButton        *retries_spin;
  GtkSpinButton        *delay_spin;
  AdwPreferencesGroup  *advanced_group;
  GtkSwitch            *raise_switch;
  AdwPreferencesGroup  *hosts_group;

  PlanarCaptureOptions *options;
  GSettings            *settings;
  char                 *problem;
  /* One row per advanced option: key entry, type drop-down, value entry. */
  GPtrArray            *option_rows;
  AdwActionRow         *warning_row;
  PlanarCaptureSession *session;
  GPtrArray            *host_rows;
  /* The state icon of each host row. */
  GPtrArray            *host_icons;
  guint                 tick_id;
  gboolean              running;
  /* The application is held from a cancel until the capture has wound
   * down (its servers told to stop), even when the window is gone. */
  GApplication         *held;
  GtkFileChooserNative *chooser;
};

G_DEFINE_FINAL_TYPE (PlanarCaptureDialog, planar_capture_dialog, ADW_TYPE_WINDOW)

enum
{
  SIGNAL_CAPTURED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  AdwActionRow *row;
  GtkEditable  *key;
  GtkDropDown  *type;
  GtkEditable  *value;
} OptionRow;

static void
option_row_free (OptionRow *r)
{
  g_free (r);
}

/* ------------------------------------------------------------------------
 * Keeping the options and the form in step
 * ------------------------------------------------------------------------ */

static void
update_problem (PlanarCaptureDialog *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *warning = NULL;
  gboolean ok = planar_capture_options_validate (self->options, &error);

  g_free (self->problem);
  self->problem = g_strdup (ok ? "" : error->message);
  if (ok)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->addresses_row), "error");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->addresses_row), NULL);
    }
  else
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->addresses_row), "error");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->addresses_row), error->message);
    }
  adw_preferences_group_set_description (self->servers_group, ok ? _("Programs that called jax.profiler.start_server(port), or the TensorFlow or PyTorch/XLA equivalent")
                                                                : error->message);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "capture.start", ok && !self->running);

  warning = planar_capture_options_dup_warning (self->options);
  gtk_widget_set_visible (GTK_WIDGET (self->warning_row), warning != NULL);
  if (warning != NULL)
    adw_action_row_set_subtitle (self->warning_row, warning);
}

static void
sync_options_from_rows (PlanarCaptureDialog *self)
{
  planar_capture_options_clear_options (self->options);
  for (guint i = 0; i < self->option_rows->len; i++)
    {
      OptionRow *r = g_ptr_array_index (self->option_rows, i);
      const char *key = gtk_editable_get_text (r->key);

      if (key[0] == '\0')
        continue;
      planar_capture_options_set_option (self->options, key,
                                         (PlanarCaptureValueType) gtk_drop_down_get_selected (r->type),
                                         gtk_editable_get_text (r->value));
    }
  update_problem (self);
}

static void
remove_option_clicked (GtkButton           *button,
                       PlanarCaptureDialog *self)
{
  for (guint i = 0; i < self->option_rows->len; i++)
    {
      OptionRow *r = g_ptr_array_index (self->option_rows, i);

      if (gtk_widget_is_ancestor (GTK_WIDGET (button), GTK_WIDGET (r->row)))
        {
          adw_preferences_group_remove (self->advanced_group, GTK_WIDGET (r->row));
          g_ptr_array_remove_index (self->option_rows, i);
          break;
        }
    }
  sync_options_from_rows (self);
}

static OptionRow *
add_option_row (PlanarCaptureDialog     *self,
                const char              *key,
                PlanarCaptureValueType   type,
                const char              *value)
{
  static const char * const types[] = { N_("String"), N_("Boolean"), N_("Integer"), NULL };
  OptionRow *r = g_new0 (OptionRow, 1);
  GtkWidget *key_entry = gtk_entry_new ();
  GtkWidget *value_entry = gtk_entry_new ();
  GtkWidget *type_drop;
  GtkWidget *remove = gtk_button_new_from_icon_name ("list-remove-symbolic");
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);

  for (guint i = 0; types[i] != NULL; i++)
    gtk_string_list_append (names, _(types[i]));
  type_drop = gtk_drop_down_new (G_LIST_MODEL (g_object_ref (names)), NULL);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (type_drop), type);
  gtk_editable_set_text (GTK_EDITABLE (key_entry), key);
  gtk_editable_set_text (GTK_EDITABLE (value_entry), value);
  gtk_entry_set_placeholder_text (GTK_ENTRY (key_entry), _("gpu_max_activity_api_events"));
  gtk_entry_set_placeholder_text (GTK_ENTRY (value_entry), _("Value"));
  gtk_widget_set_hexpand (key_entry, TRUE);
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (remove, "flat");
  gtk_widget_set_tooltip_text (remove, _("Remove This Option"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (key_entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Option key"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (value_entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Option value"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (type_drop), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Option type"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Remove this option"), -1);
  gtk_box_append (GTK_BOX (box), key_entry);
  gtk_box_append (GTK_BOX (box), type_drop);
  gtk_box_append (GTK_BOX (box), value_entry);
  gtk_box_append (GTK_BOX (box), remove);

  r->row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_action_row_add_prefix (r->row, box);
  r->key = GTK_EDITABLE (key_entry);
  r->type = GTK_DROP_DOWN (type_drop);
  r->value = GTK_EDITABLE (value_entry);
  g_signal_connect_swapped (key_entry, "changed", G_CALLBACK (sync_options_from_rows), self);
  g_signal_connect_swapped (value_entry, "changed", G_CALLBACK (sync_options_from_rows), self);
  g_signal_connect_swapped (type_drop, "notify::selected", G_CALLBACK (sync_options_from_rows), self);
  g_signal_connect (remove, "clicked", G_CALLBACK (remove_option_clicked), self);
  adw_preferences_group_add (self->advanced_group, GTK_WIDGET (r->row));
  g_ptr_array_add (self->option_rows, r);
  return r;
}

static void
add_option_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PlanarCaptureDialog *self = PLANAR_CAPTURE_DIALOG (widget);
  OptionRow *r = add_option_row (self, "", PLANAR_CAPTURE_VALUE_STRING, "");

  gtk_widget_grab_focus (GTK_WIDGET (r->key));
}

/* The delay: -1 ("as XLA does") shows as 0 with the default explained. */
static gboolean
delay_to_spin (GBinding     *binding,
               const GValue *from,
               GValue       *to,
               gpointer      user_data)
{
  g_value_set_double (to, MAX (g_value_get_int (from), 0));
  return TRUE;
}

static gboolean
delay_from_spin (GBinding     *binding,
                 const GValue *from,
                 GValue       *to,
                 gpointer      user_data)
{
  g_value_set_int (to, (int) g_value_get_double (from));
  return TRUE;
}

static gboolean
logdir_to_subtitle (GBinding     *binding,
                    const GValue *from,
                    GValue       *to,
                    gpointer      user_data)
{
  const char *path = g_value_get_string (from);

  g_value_set_string (to, path != NULL && path[0] != '\0' ? path : _("Not chosen"));
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Recent servers
 * ------------------------------------------------------------------------ */

static void
rebuild_recent_menu (PlanarCaptureDialog *self)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  g_auto(GStrv) recent = self->settings != NULL ? g_settings_get_strv (self->settings, "recent-capture-targets")
                                                : g_new0 (char *, 1);

  for (guint i = 0; recent[i] != NULL; i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (recent[i], NULL);

      g_menu_item_set_action_and_target_value (item, "capture.use-recent", g_variant_new_string (recent[i]));
      g_menu_append_item (menu, item);
    }
  gtk_menu_button_set_menu_model (self->recent_button, G_MENU_MODEL (menu));
  gtk_widget_set_sensitive (GTK_WIDGET (self->recent_button), recent[0] != NULL);
}

static void
remember_recent (PlanarCaptureDialog *self,
                 const char          *addresses)
{
  g_auto(GStrv) recent = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) updated = NULL;
  guint n = 1;

  if (self->settings == NULL)
    return;
  recent = g_settings_get_strv (self->settings, "recent-capture-targets");
  g_strv_builder_add (builder, addresses);
  for (guint i = 0; recent[i] != NULL && n < MAX_RECENT; i++)
    if (g_strcmp0 (recent[i], addresses) != 0)
      {
        g_strv_builder_add (builder, recent[i]);
        n++;
      }
  updated = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "recent-capture-targets", (const char * const *) updated);
  rebuild_recent_menu (self);
}

static void
use_recent_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PlanarCaptureDialog *self = PLANAR_CAPTURE_DIALOG (widget);

  g_object_set (self->options, "addresses", g_variant_get_string (parameter, NULL), NULL);
}

/* ------------------------------------------------------------------------
 * Capturing
 * ------------------------------------------------------------------------ */

static char *
host_text (const PlanarCaptureHost *host)
{
  switch (host->state)
    {
    case PLANAR_CAPTURE_HOST_WAITING:
      return g_strdup (_("Waiting"));
    case PLANAR_CAPTURE_HOST_CONNECTING:
      if (host->message != NULL)
        return g_strdup (host->message);
      return g_strdup (_("Connecting…"));
    case PLANAR_CAPTURE_HOST_PROFILING:
      {
        gint64 left_ms = MAX ((host->end_time - g_get_real_time ()) / 1000, 0);

        if (left_ms == 0)
          return g_strdup (_("Profiling, waiting for the profile…"));
        /* Translators: %.1f is seconds. */
        return g_strdup_printf (_("Profiling, %.1f s left"), (double) left_ms / 1000.0);
      }
    case PLANAR_CAPTURE_HOST_RECEIVING:
      {
        g_autofree char *size = g_format_size (host->bytes);

        /* Translators: %s is a size such as "12.5 MB". */
        return g_strdup_printf (_("Receiving %s…"), size);
      }
    case PLANAR_CAPTURE_HOST_SAVED:
      {
        g_autofree char *size = g_format_size (host->bytes);

        /* Translators: the first %s is a size, the second a path. */
        g_autofree char *saved = g_strdup_printf (_("Saved %s as %s"), size, host->path);

        /* What became of its tool data (renamed, skipped), when told. */
        if (host->message != NULL)
          return g_strconcat (saved, "\n", host->message, NULL);
        return g_steal_pointer (&saved);
      }
    case PLANAR_CAPTURE_HOST_SAVED_REMOTELY:
    case PLANAR_CAPTURE_HOST_FAILED:
      return g_strdup (host->message != NULL ? host->message : _("Failed"));
    case PLANAR_CAPTURE_HOST_CANCELLED:
    default:
      return g_strdup (_("Cancelled"));
    }
}

static const char *
host_icon (PlanarCaptureHostState state)
{
  switch (state)
    {
    case PLANAR_CAPTURE_HOST_SAVED:
      return "emblem-ok-symbolic";
    case PLANAR_CAPTURE_HOST_FAILED:
    case PLANAR_CAPTURE_HOST_SAVED_REMOTELY:
      return "dialog-error-symbolic";
    case PLANAR_CAPTURE_HOST_CANCELLED:
      return "process-stop-symbolic";
    default:
      return "media-record-symbolic";
    }
}

static void
update_host_row (PlanarCaptureDialog *self,
                 guint                index)
{
  const PlanarCaptureHost *host;
  AdwActionRow *row;
  g_autofree char *text = NULL;
  g_autofree char *markup = NULL;
  GtkWidget *icon;

  if (self->session == NULL || index >= self->host_rows->len)
    return;
  host = planar_capture_session_get_host (self->session, index);
  row = g_ptr_array_index (self->host_rows, index);
  text = host_text (host);
  markup = g_markup_escape_text (text, -1);
  adw_action_row_set_subtitle (row, markup);
  icon = g_ptr_array_index (self->host_icons, index);
  gtk_image_set_from_icon_name (GTK_IMAGE (icon), host_icon (host->state));
}

static void
host_changed (PlanarCaptureSession *session,
              guint                 index,
              PlanarCaptureDialog  *self)
{
  update_host_row (self, index);
}

static gboolean
tick (gpointer data)
{
  PlanarCaptureDialog *self = data;

  for (guint i = 0; self->session != NULL && i < self->host_rows->len; i++)
    update_host_row (self, i);
  return G_SOURCE_CONTINUE;
}

static void
set_running (PlanarCaptureDialog *self,
             gboolean             running)
{
  self->running = running;
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), running);
  gtk_widget_set_visible (GTK_WIDGET (self->capture_button), !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "capture.stop-now", running);
  if (!running)
    g_clear_handle_id (&self->tick_id, g_source_remove);
  update_problem (self);
}

/* Cancels the capture running; the application stays until it ends: a
 * cancelled capture tells its servers to stop profiling (up to 2 s), else
 * they stay busy for the rest of the duration. */
static void
cancel_capture (PlanarCaptureDialog *self)
{
  planar_capture_session_cancel (self->session);
  if (self->held == NULL && (self->held = g_application_get_default ()) != NULL)
    g_application_hold (g_object_ref (self->held));
}

static void
capture_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(PlanarCaptureDialog) self = user_data;
  PlanarCaptureSession *session = PLANAR_CAPTURE_SESSION (source);
  g_autoptr(GError) error = NULL;
  gboolean ok = planar_capture_session_run_finish (session, result, &error);

  if (self->held != NULL)
    {
      g_application_release (self->held);
      g_clear_object (&self->held);
    }
  if (session != self->session)
    return;
  tick (self);
  set_running (self, FALSE);
  if (ok)
    {
      g_signal_emit (self, signals[SIGNAL_CAPTURED], 0, planar_capture_session_get_folder (session));
      return;
    }
  gtk_button_set_label (self->capture_button, _("_Try Again"));
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (_("No profile was captured")));
  else
    {
      guint kept = 0;

      /* Cancel removed what was half-written and kept the hosts saved
       * before: say which it was. */
      for (guint i = 0; i < planar_capture_session_get_n_hosts (session); i++)
        if (planar_capture_session_get_host (session, i)->state == PLANAR_CAPTURE_HOST_SAVED)
          kept++;
      if (kept == 0)
        adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (_("Cancelled: nothing was kept")));
      else
        {
          /* Translators: %u is a number of hosts, %s a folder. */
          g_autofree char *text = g_strdup_printf (ngettext ("Cancelled: %u host saved before is kept in %s",
                                                             "Cancelled: %u hosts saved before are kept in %s", kept),
                                                   kept, planar_capture_session_get_folder (session));
          g_autofree char *markup = g_markup_escape_text (text, -1);
          AdwToast *toast = adw_toast_new (markup);

          adw_toast_overlay_add_toast (self->toast_overlay, toast);
        }
    }
}

static void
start_activated (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PlanarCaptureDialog *self = PLANAR_CAPTURE_DIALOG (widget);
  g_autoptr(GError) error = NULL;
  g_autofree char *addresses = NULL;
  PlanarCaptureSession *session;
  GtkWidget *child;

  if (self->running)
    return;
  session = planar_capture_session_new (self->options, &error);
  if (session == NULL)
    {
      adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (error->message));
      return;
    }
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  self->session = session;
  g_object_get (self->options, "addresses", &addresses, NULL);
  remember_recent (self, addresses);

  /* One row per host. */
  for (guint i = 0; i < self->host_rows->len; i++)
    adw_preferences_group_remove (self->hosts_group, g_ptr_array_index (self->host_rows, i));
  g_ptr_array_set_size (self->host_rows, 0);
  g_ptr_array_set_size (self->host_icons, 0);
  for (guint i = 0; i < planar_capture_session_get_n_hosts (session); i++)
    {
      AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());

      child = gtk_image_new_from_icon_name ("media-record-symbolic");
      g_ptr_array_add (self->host_icons, child);
      adw_action_row_add_prefix (row, child);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), planar_capture_session_get_host (session, i)->address);
      adw_action_row_set_subtitle_lines (row, 4);
      adw_preferences_group_add (self->hosts_group, GTK_WIDGET (row));
      g_ptr_array_add (self->host_rows, row);
      update_host_row (self, i);
    }
  g_signal_connect (session, "host-changed", G_CALLBACK (host_changed), self);
  gtk_stack_set_visible_child_name (self->stack, "progress");
  set_running (self, TRUE);
  self->tick_id = g_timeout_add (250, tick, self);
  planar_capture_session_run_async (session, capture_done, g_object_ref (self));
}

static void
stop_now_activated (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  PlanarCaptureDialog *self = PLANAR_CAPTURE_DIALOG (widget);

  if (self->session != NULL && self->running)
    planar_capture_session_stop_now (self->session);
}

static void
cancel_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  PlanarCaptureDialog *self = PLANAR_CAPTURE_DIALOG (widget);

  /* Cancel stops a capture (keeping only the hosts saved already), else
   * closes. */
  if (self->session != NULL && self->running)
    cancel_capture (self);
  else if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "progress") == 0)
    gtk_stack_set_visible_child_name (self->stack, "form");
  else
    gtk_window_close (GTK_WINDOW (self));
}

static void
chooser_response (GtkNativeDialog     *dialog,
                  int                  response,
                  PlanarCaptureDialog *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL && g_file_peek_path (file) != NULL)
        g_object_set (self->options, "logdir", g_file_peek_path (file), NULL);
    }
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->chooser);
}

static void
choose_logdir_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  PlanarCaptureDialog *self = PLANAR_CAPTURE_DIALOG (widget);

  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
  self->chooser = gtk_file_chooser_native_new (_("Log Directory"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Select"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static gboolean
close_request (GtkWindow *window)
{
  PlanarCaptureDialog *self = PLANAR_CAPTURE_DIALOG (window);

  /* Closing while capturing cancels: nothing is left half-written. */
  if (self->session != NULL && self->running)
    cancel_capture (self);
  return GTK_WINDOW_CLASS (planar_capture_dialog_parent_class)->close_request (window);
}

/* ------------------------------------------------------------------------
 * The object
 * ------------------------------------------------------------------------ */

static void
planar_capture_dialog_dispose (GObject *object)
{
  PlanarCaptureDialog *self = PLANAR_CAPTURE_DIALOG (object);

  g_clear_handle_id (&self->tick_id, g_source_remove);
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      if (self->running)
        cancel_capture (self);
    }
  g_clear_object (&self->session);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
  g_clear_object (&self->settings);
  gtk_widget_dispose_template (GTK_WIDGET (self), PLANAR_TYPE_CAPTURE_DIALOG);
  g_clear_object (&self->options);
  G_OBJECT_CLASS (planar_capture_dialog_parent_class)->dispose (object);
}

static void
planar_capture_dialog_finalize (GObject *object)
{
  PlanarCaptureDialog *self = PLANAR_CAPTURE_DIALOG (object);

  g_free (self->problem);
  g_ptr_array_unref (self->option_rows);
  g_ptr_array_unref (self->host_rows);
  g_ptr_array_unref (self->host_icons);
  G_OBJECT_CLASS (planar_capture_dialog_parent_class)->finalize (object);
}

static void
planar_capture_dialog_class_init (PlanarCaptureDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_capture_dialog_dispose;
  object_class->finalize = planar_capture_dialog_finalize;
  GTK_WINDOW_CLASS (klass)->close_request = close_request;

  /* A capture succeeded: the new session folder. */
  signals[SIGNAL_CAPTURED] = g_signal_new ("captured", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                           NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "capture.start", NULL, start_activated);
  gtk_widget_class_install_action (widget_class, "capture.stop-now", NULL, stop_now_activated);
  gtk_widget_class_install_action (widget_class, "capture.cancel", NULL, cancel_activated);
  gtk_widget_class_install_action (widget_class, "capture.choose-logdir", NULL, choose_logdir_activated);
  gtk_widget_class_install_action (widget_class, "capture.add-option", NULL, add_option_activated);
  gtk_widget_class_install_action (widget_class, "capture.use-recent", "s", use_recent_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "capture.cancel", NULL);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/planar/Planar/planar-capture-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, capture_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, stop_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, servers_group);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, addresses_row);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, recent_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, logdir_row);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, duration_spin);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, host_level_row);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, device_level_row);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, python_level_row);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, retries_spin);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, delay_spin);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, advanced_group);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, raise_switch);
  gtk_widget_class_bind_template_child (widget_class, PlanarCaptureDialog, hosts_group);
}

static void
planar_capture_dialog_init (PlanarCaptureDialog *self)
{
  const GBindingFlags flags = G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->options = planar_capture_options_new ();
  self->option_rows = g_ptr_array_new_with_free_func ((GDestroyNotify) option_row_free);
  self->host_rows = g_ptr_array_new ();
  self->host_icons = g_ptr_array_new ();
  self->problem = g_strdup ("");

  self->warning_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->warning_row), _("These options may lose the GPU trace"));
  adw_action_row_set_subtitle_lines (self->warning_row, 0);
  adw_action_row_add_prefix (self->warning_row, gtk_image_new_from_icon_name ("dialog-warning-symbolic"));
  gtk_widget_set_visible (GTK_WIDGET (self->warning_row), FALSE);
  adw_preferences_group_add (self->advanced_group, GTK_WIDGET (self->warning_row));

  g_object_bind_property (self->options, "addresses", self->addresses_row, "text", flags);
  g_object_bind_property (self->options, "duration-ms", self->duration_spin, "value", flags);
  g_object_bind_property (self->options, "host-tracer-level", self->host_level_row, "selected", flags);
  g_object_bind_property (self->options, "device-tracer-level", self->device_level_row, "selected", flags);
  g_object_bind_property (self->options, "python-tracer-level", self->python_level_row, "selected", flags);
  g_object_bind_property (self->options, "retries", self->retries_spin, "value", flags);
  g_object_bind_property_full (self->options, "delay-ms", self->delay_spin, "value", flags, delay_to_spin,
                               delay_from_spin, NULL, NULL);
  g_object_bind_property (self->options, "raise-error-on-start-failure", self->raise_switch, "active", flags);
  g_object_bind_property_full (self->options, "logdir", self->logdir_row, "subtitle", G_BINDING_SYNC_CREATE,
                               logdir_to_subtitle, NULL, NULL, NULL);
  g_signal_connect_swapped (self->options, "notify", G_CALLBACK (update_problem), self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "capture.stop-now", FALSE);
  update_problem (self);
}

PlanarCaptureDialog *
planar_capture_dialog_new (GtkWindow *parent,
                           GSettings *settings)
{
  PlanarCaptureDialog *self = g_object_new (PLANAR_TYPE_CAPTURE_DIALOG, "transient-for", parent, NULL);

  if (settings != NULL)
    self->settings = g_object_ref (settings);
  rebuild_recent_menu (self);
  return self;
}

PlanarCaptureOptions *
planar_capture_dialog_get_options (PlanarCaptureDialog *self)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_DIALOG (self), NULL);
  return self->options;
}

PlanarCaptureSession *
planar_capture_dialog_get_session (PlanarCaptureDialog *self)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_DIALOG (self), NULL);
  return self->session;
}

const char *
planar_capture_dialog_get_problem (PlanarCaptureDialog *self)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_DIALOG (self), NULL);
  return self->problem;
}

char *
planar_capture_dialog_dup_host_text (PlanarCaptureDialog *self,
                                     guint                index)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_DIALOG (self), NULL);

  if (self->session == NULL || index >= planar_capture_session_get_n_hosts (self->session))
    return NULL;
  return host_text (planar_capture_session_get_host (self->session, index));
}
