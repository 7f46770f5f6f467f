/* planar-window-actions.c: the window's commands, the "win." actions.
 *
 * The header bar, the menus, the welcome page, the keys
 * (widgets/planar-shortcuts.c) and the tests all go through them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-window-private.h"

#include <glib/gi18n.h>

#include "planar-application.h"
#include "planar-application-private.h"
#include "planar-capture-dialog.h"
#include "planar-record-dialog.h"
#include "planar-sandbox.h"

static void
file_chooser_response (GtkNativeDialog *dialog,
                       int              response,
                       PlanarWindow    *self)
{
  g_autoptr(GListModel) files = NULL;
  GtkApplication *application = gtk_window_get_application (GTK_WINDOW (self));

  if (response == GTK_RESPONSE_ACCEPT && application != NULL)
    {
      files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);

          /* The first opens here if this window is empty, the others each
           * in a window of its own. */
          gtk_window_present (GTK_WINDOW (planar_application_open_file (PLANAR_APPLICATION (application),
                                                                        file, self)));
        }
    }

  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->file_chooser);
}

static void
choose (PlanarWindow         *self,
        GtkFileChooserAction  action)
{
  g_autofree char *last_folder = g_settings_get_string (self->settings, "last-folder");
  GtkFileChooser *chooser;

  if (self->file_chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->file_chooser));
      g_clear_object (&self->file_chooser);
    }

  if (action == GTK_FILE_CHOOSER_ACTION_OPEN)
    self->file_chooser = gtk_file_chooser_native_new (_("Open Profile"), GTK_WINDOW (self), action,
                                                      _("_Open"), _("_Cancel"));
  else
    self->file_chooser = gtk_file_chooser_native_new (_("Open Folder"), GTK_WINDOW (self), action,
                                                      _("_Open"), _("_Cancel"));
  chooser = GTK_FILE_CHOOSER (self->file_chooser);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->file_chooser), TRUE);
  gtk_file_chooser_set_select_multiple (chooser, TRUE);

  if (action == GTK_FILE_CHOOSER_ACTION_OPEN)
    {
      g_autoptr(GtkFileFilter) profiles = gtk_file_filter_new ();
      g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

      gtk_file_filter_set_name (profiles, _("Profiles (XProf, Chrome Trace JSON)"));
      gtk_file_filter_add_mime_type (profiles, PLANAR_PROFILE_MIME_TYPE);
      gtk_file_filter_add_suffix (profiles, "xplane.pb");
      gtk_file_filter_add_suffix (profiles, "json");
      gtk_file_filter_add_suffix (profiles, "json.gz");
      gtk_file_filter_set_name (all, _("All Files"));
      gtk_file_filter_add_pattern (all, "*");
      gtk_file_chooser_add_filter (chooser, profiles);
      gtk_file_chooser_add_filter (chooser, all);
    }

  if (last_folder[0] != '\0' && g_file_test (last_folder, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GFile) folder = g_file_new_for_path (last_folder);

      gtk_file_chooser_set_current_folder (chooser, folder, NULL);
    }

  g_signal_connect (self->file_chooser, "response", G_CALLBACK (file_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->file_chooser));
}

static void
open_file_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  choose (PLANAR_WINDOW (user_data), GTK_FILE_CHOOSER_ACTION_OPEN);
}

static void
open_folder_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  choose (PLANAR_WINDOW (user_data), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER);
}

static void
open_uri_activated (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);
  GtkApplication *application = gtk_window_get_application (GTK_WINDOW (self));
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  if (application == NULL)
    return;
  gtk_window_present (GTK_WINDOW (planar_application_open_file (PLANAR_APPLICATION (application), file, self)));
}

static void
session_activated (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  _planar_window_select_session (PLANAR_WINDOW (user_data), g_variant_get_string (parameter, NULL), NULL);
}

static void
hosts_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  g_autofree const char **hosts = g_variant_get_strv (parameter, NULL);

  _planar_window_select_hosts (PLANAR_WINDOW (user_data), hosts);
}

static void
tool_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  _planar_window_select_tool (PLANAR_WINDOW (user_data), g_variant_get_string (parameter, NULL));
}

static void
reload_activated (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  _planar_window_reload (PLANAR_WINDOW (user_data));
}

static void
cancel_load_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  _planar_window_cancel (PLANAR_WINDOW (user_data));
}

/* The timeline takes Tab for its own commands, so the header bar's menus
 * have keys of their own: keyboard-only use needs a way in. */
static void
show_sessions_activated (GSimpleAction *action,
                         GVariant      *parameter,
                         gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);

  gtk_widget_grab_focus (GTK_WIDGET (self->session_drop_down));
  /* GtkDropDown::activate pops its list up (GTK 4.6). */
  g_signal_emit_by_name (self->session_drop_down, "activate");
}

static void
show_hosts_activated (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);

  if (gtk_widget_is_sensitive (GTK_WIDGET (self->hosts_button)))
    gtk_menu_button_popup (self->hosts_button);
}

static void
show_menu_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  gtk_menu_button_popup (PLANAR_WINDOW (user_data)->menu_button);
}

static void
find_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  _planar_window_find (PLANAR_WINDOW (user_data));
}

static void
find_next_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);

  gtk_widget_activate_action (GTK_WIDGET (self->find_bar),
                              g_str_equal (g_action_get_name (G_ACTION (action)), "find-next") ? "find.next" : "find.previous",
                              NULL);
}

/* The planar-cli that records: $PLANAR_CLI, the one installed beside the
 * app, the build tree's, or the first on the PATH. */
static char *
find_cli (void)
{
  const char *env = g_getenv ("PLANAR_CLI");
  g_autofree char *installed = g_build_filename (PLANAR_BINDIR, "planar-cli", NULL);
  g_autofree char *build_dir = NULL;

  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  if (g_file_test (installed, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&installed);
  build_dir = _planar_application_dup_build_dir ();
  if (build_dir != NULL)
    {
      g_autofree char *built = g_build_filename (build_dir, "cli", "planar-cli", NULL);

      if (g_file_test (built, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&built);
    }
  return g_strdup ("planar-cli");
}

/* The folder captures and recordings go to: the setting, or ~/planar-logs
 * ($XDG_DATA_HOME/planar/captures inside the Flatpak sandbox). */
char *
_planar_window_dup_capture_logdir (PlanarWindow *self)
{
  g_autofree char *logdir = g_settings_get_string (self->settings, "capture-logdir");

  if (logdir[0] != '\0')
    return g_steal_pointer (&logdir);
  return planar_sandbox_dup_default_capture_folder ();
}

/* A recording succeeded: show its session here. */
static void
recorded (PlanarRecordDialog *dialog,
          const char         *path,
          PlanarWindow       *self)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) session = g_file_get_parent (file);

  planar_window_open (self, session != NULL ? session : file);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* A capture succeeded: show the new session here. */
static void
captured (PlanarCaptureDialog *dialog,
          const char          *folder,
          PlanarWindow        *self)
{
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  g_autoptr(GFile) home = g_file_new_for_path (g_get_home_dir ());
  g_autofree char *relative = g_file_get_relative_path (home, file);
  g_autofree char *where = relative != NULL ? g_build_filename ("~", relative, NULL) : g_file_get_parse_name (file);
  /* Translators: %s is the folder the new session was written to. */
  g_autofree char *text = g_strdup_printf (_("Captured into %s"), where);
  g_autofree char *markup = g_markup_escape_text (text, -1);

  planar_window_open (self, file);
  /* Said in the window, the dialog closes: inside the sandbox the folder
   * is one the user did not choose. */
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (markup));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
capture_activated (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);
  g_autofree char *logdir = _planar_window_dup_capture_logdir (self);
  PlanarCaptureDialog *dialog = planar_capture_dialog_new (GTK_WINDOW (self), self->settings);
  PlanarCaptureOptions *options = planar_capture_dialog_get_options (dialog);
  g_auto(GStrv) recent = g_settings_get_strv (self->settings, "recent-capture-targets");

  g_object_set (options, "logdir", logdir, NULL);
  if (recent[0] != NULL)
    g_object_set (options, "addresses", recent[0], NULL);
  g_settings_bind (self->settings, "capture-logdir", options, "logdir", G_SETTINGS_BIND_SET);
  g_signal_connect_object (dialog, "captured", G_CALLBACK (captured), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
record_activated (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (user_data);
  g_autofree char *cli = find_cli ();
  g_autofree char *logdir = _planar_window_dup_capture_logdir (self);
  PlanarRecordDialog *dialog = planar_record_dialog_new (GTK_WINDOW (self), cli);
  PlanarRecordOptions *options = planar_record_dialog_get_options (dialog);

  g_object_set (options, "logdir", logdir, NULL);
  g_settings_bind (self->settings, "record-command", options, "command", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "record-working-folder", options, "working-folder", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "record-environment", options, "environment", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "record-duration-ms", options, "duration-ms", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "record-nvtx", options, "nvtx", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (dialog, "recorded", G_CALLBACK (recorded), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
load_all_hosts_activated (GSimpleAction *action,
                          GVariant      *parameter,
                          gpointer       user_data)
{
  _planar_window_load_all_hosts (PLANAR_WINDOW (user_data));
}

static void
open_session_folder_activated (GSimpleAction *action,
                               GVariant      *parameter,
                               gpointer       user_data)
{
  _planar_window_choose_session_folder (PLANAR_WINDOW (user_data));
}

static const GActionEntry win_entries[] = {
  { .name = "open-file", .activate = open_file_activated },
  { .name = "open-folder", .activate = open_folder_activated },
  { .name = "open-uri", .activate = open_uri_activated, .parameter_type = "s" },
  { .name = "open-session-folder", .activate = open_session_folder_activated },
  { .name = "session", .activate = session_activated, .parameter_type = "s", .state = "''" },
  { .name = "hosts", .activate = hosts_activated, .parameter_type = "as", .state = "@as []" },
  { .name = "tool", .activate = tool_activated, .parameter_type = "s", .state = "'trace-viewer'" },
  { .name = "reload", .activate = reload_activated },
  { .name = "cancel-load", .activate = cancel_load_activated },
  { .name = "load-all-hosts", .activate = load_all_hosts_activated },
  { .name = "show-sessions", .activate = show_sessions_activated },
  { .name = "show-hosts", .activate = show_hosts_activated },
  { .name = "show-menu", .activate = show_menu_activated },
  { .name = "find", .activate = find_activated },
  { .name = "record", .activate = record_activated },
  { .name = "capture", .activate = capture_activated },
  { .name = "find-next", .activate = find_next_activated },
  { .name = "find-previous", .activate = find_next_activated },
};

void
_planar_window_init_actions (PlanarWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_entries, G_N_ELEMENTS (win_entries), self);
}

static void
set_enabled (PlanarWindow *self,
             const char   *name,
             gboolean      enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  g_assert (G_IS_SIMPLE_ACTION (action));
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

void
_planar_window_update_actions (PlanarWindow *self)
{
  gboolean have_catalog = self->catalog != NULL;
  gboolean have_session = have_catalog && self->session != NULL;

  set_enabled (self, "session", have_catalog);
  set_enabled (self, "hosts", have_session);
  set_enabled (self, "tool", have_session);
  set_enabled (self, "reload", have_session && self->hosts != NULL);
  set_enabled (self, "cancel-load", self->open_cancellable != NULL || self->load_cancellable != NULL
                                    || (self->loading_all_hosts && !self->stopping_all_hosts));
  set_enabled (self, "show-sessions", have_catalog);
  set_enabled (self, "show-hosts", have_session);
  set_enabled (self, "find", self->profile != NULL);
  set_enabled (self, "record", planar_record_dialog_is_supported ());
  set_enabled (self, "export-profile", self->profile != NULL && planar_profile_is_loaded (self->profile));
  /* A lazy profile's hosts left for later. */
  set_enabled (self, "load-all-hosts", self->profile != NULL && planar_profile_is_open (self->profile)
                                       && !planar_profile_is_loaded (self->profile) && !self->loading_all_hosts);
  set_enabled (self, "find-next", self->profile != NULL);
  set_enabled (self, "find-previous", self->profile != NULL);
}

void
_planar_window_set_action_state (PlanarWindow *self,
                                 const char   *name,
                                 GVariant     *state)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  g_assert (G_IS_SIMPLE_ACTION (action));
  g_simple_action_set_state (G_SIMPLE_ACTION (action), state);
}
