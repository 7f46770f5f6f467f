/* planar-window.c: a window's state: what it opened, the session and hosts
 * it shows, loading them, and keeping the Sessions menu current. The
 * commands are in planar-window-actions.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-window-private.h"

#include "planar-tracks-popover.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "planar-application.h"
#include "planar-file-util.h"
#include "planar-sandbox.h"

G_DEFINE_FINAL_TYPE (PlanarWindow, planar_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_LOADING,
  PROP_PROFILE,
  PROP_SESSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void load (PlanarWindow *self);

/* ------------------------------------------------------------------------
 * Names shown to people
 * ------------------------------------------------------------------------ */

char *
_planar_window_format_session (const char *session)
{
  const char *slash = strrchr (session, '/');
  const char *name = slash != NULL ? slash + 1 : session;
  int year, month, day, hour, minute, second;
  int end = 0;
  g_autofree char *when = NULL;

  /* XProf names sessions by their local start time, YYYY_MM_DD_HH_MM_SS. */
  if (sscanf (name, "%4d_%2d_%2d_%2d_%2d_%2d%n", &year, &month, &day, &hour, &minute, &second, &end) == 6 &&
      name[end] == '\0')
    when = g_strdup_printf ("%04d-%02d-%02d %02d:%02d:%02d", year, month, day, hour, minute, second);
  else
    when = g_strdup (name);

  if (slash == NULL)
    return g_steal_pointer (&when);
  /* Translators: a session of a TensorBoard run: "train · 2026-01-01 10:00:00". */
  return g_strdup_printf (_("%.*s · %s"), (int) (slash - session), session, when);
}

static char *
session_label_for_item (GtkStringObject *item,
                        gpointer         user_data)
{
  if (item == NULL)
    return NULL;
  return _planar_window_format_session (gtk_string_object_get_string (item));
}

/* "host0", "host0 and host1", "3 hosts". */
static char *
describe_hosts (const char * const *hosts)
{
  guint n = hosts != NULL ? g_strv_length ((GStrv) hosts) : 0;

  if (n == 0)
    return g_strdup ("");
  if (n == 1)
    return g_strdup (hosts[0]);
  if (n == 2)
    /* Translators: two host names. */
    return g_strdup_printf (_("%s and %s"), hosts[0], hosts[1]);
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u host", "%u hosts", n), n);
}

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

void
_planar_window_show_error (PlanarWindow *self,
                           const char   *heading,
                           const char   *path,
                           const GError *error)
{
  GtkWidget *dialog;

  g_assert (PLANAR_IS_WINDOW (self));
  g_assert (error != NULL);

  dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("Planar could not read “%s”.\n\n%s"),
                                  path, error->message);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The page shown instead of the timeline when nothing could be loaded. */
static void
show_message (PlanarWindow *self,
              const char   *icon_name,
              const char   *title,
              const char   *description)
{
  g_autofree char *markup = g_markup_escape_text (description, -1);

  adw_status_page_set_icon_name (self->message_page, icon_name);
  adw_status_page_set_title (self->message_page, title);
  adw_status_page_set_description (self->message_page, markup);
  gtk_stack_set_visible_child_name (self->stack, "message");
}

/* ------------------------------------------------------------------------
 * Host files that change on disk
 *
 * The profile reads its files while it is open (lazy stats, hosts decoded
 * on demand); another program may cut or rewrite them meanwhile (a
 * profiler writing over the file, a copy). The model turns reads of what
 * is gone into PLANAR_TRACE_ERROR_CHANGED, never a crash; the window says
 * so in the message bar, with Reload, when such a read fails and whenever
 * it regains the focus, the moment a user has been elsewhere (perhaps
 * writing the file).
 * ------------------------------------------------------------------------ */

static void
show_file_changed (PlanarWindow *self,
                   const GError *error)
{
  planar_message_bar_set (self->message_bar, MESSAGE_FILE_CHANGED, PLANAR_MESSAGE_WARNING, error->message,
                          _("_Reload"), "win.reload", TRUE);
}

/* Returns: whether every host file is as it was opened. */
static gboolean
check_files (PlanarWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (self->profile == NULL || planar_profile_check_files (self->profile, &error))
    return TRUE;
  show_file_changed (self, error);
  return FALSE;
}

static void
is_active_changed (PlanarWindow *self,
                   GParamSpec   *pspec,
                   gpointer      user_data)
{
  if (gtk_window_is_active (GTK_WINDOW (self)))
    check_files (self);
}

/* Reading an event's stats for the details pane found its file changed. */
static void
details_file_changed (PlanarWindow *self)
{
  check_files (self);
}

/* ------------------------------------------------------------------------
 * State shown in the header bar
 * ------------------------------------------------------------------------ */

PlanarCatalogSession *
_planar_window_current_session (PlanarWindow *self)
{
  if (self->catalog == NULL || self->session == NULL)
    return NULL;
  return planar_catalog_find_session (self->catalog, self->session);
}

void
_planar_window_set_loading (PlanarWindow *self,
                            gboolean      loading)
{
  loading = !!loading;
  if (self->loading == loading)
    return;
  self->loading = loading;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

/* The title names what was opened and where it is, as a document
 * editor's does; the Sessions and Hosts menus say what of it is shown. */
static void
update_title (PlanarWindow *self)
{
  g_autofree char *name = NULL;
  g_autofree char *location = NULL;
  g_autofree char *window_title = NULL;

  if (self->file == NULL)
    {
      adw_window_title_set_title (self->window_title, "Planar");
      adw_window_title_set_subtitle (self->window_title, "");
      gtk_window_set_title (GTK_WINDOW (self), "Planar");
      return;
    }

  name = g_file_get_basename (self->file);
  location = planar_file_describe_location (self->file);
  adw_window_title_set_title (self->window_title, name);
  adw_window_title_set_subtitle (self->window_title, location);
  /* Translators: the window title: what was opened, then the application. */
  window_title = g_strdup_printf (_("%s — Planar"), name);
  gtk_window_set_title (GTK_WINDOW (self), window_title);
}

/* The labels inside @widget end in "…" when there is no room. */
static void
ellipsize_labels (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LABEL (child))
        {
          gtk_label_set_ellipsize (GTK_LABEL (child), PANGO_ELLIPSIZE_END);
        }
      ellipsize_labels (child);
    }
}

/* A drop-down's button shows the selected item in a label that shortens
 * to fit ("Trace Vi…"); its list keeps the whole names. */
static void
drop_down_label_setup (GtkSignalListItemFactory *factory,
                       GtkListItem              *item,
                       gpointer                  ellipsize)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
  if (GPOINTER_TO_INT (ellipsize))
    {
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    }
  gtk_list_item_set_child (item, label);
}

static void
drop_down_label_bind (GtkSignalListItemFactory *factory,
                      GtkListItem              *item,
                      gpointer                  drop_down)
{
  GtkExpression *expression = gtk_drop_down_get_expression (drop_down);
  gpointer object = gtk_list_item_get_item (item);
  g_auto(GValue) value = G_VALUE_INIT;
  const char *text = NULL;

  if (expression != NULL && gtk_expression_evaluate (expression, object, &value))
    text = g_value_get_string (&value);
  else if (GTK_IS_STRING_OBJECT (object))
    text = gtk_string_object_get_string (object);
  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)), text != NULL ? text : "");
}

/* Below this width the header bar drops its title (the window's title
 * still names the profile), leaving the room to the drop-downs. */
#define NARROW_WIDTH 800

static gboolean
title_wanted (PlanarWindow *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));

  return width <= 0 || width >= NARROW_WIDTH;
}

static gboolean
update_title_visible (gpointer data)
{
  PlanarWindow *self = data;

  self->title_source = 0;
  gtk_widget_set_visible (GTK_WIDGET (self->window_title), title_wanted (self));
  return G_SOURCE_REMOVE;
}

/* Not while the window is being laid out: on the next turn of the loop. */
static void
planar_window_size_allocate (GtkWidget *widget,
                             int        width,
                             int        height,
                             int        baseline)
{
  PlanarWindow *self = PLANAR_WINDOW (widget);

  GTK_WIDGET_CLASS (planar_window_parent_class)->size_allocate (widget, width, height, baseline);
  if (self->title_source == 0
      && gtk_widget_get_visible (GTK_WIDGET (self->window_title)) != title_wanted (self))
    self->title_source = g_idle_add (update_title_visible, self);
}

static void
set_drop_down_factories (GtkDropDown *drop_down)
{
  g_autoptr(GtkListItemFactory) button = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkListItemFactory) list = gtk_signal_list_item_factory_new ();

  g_signal_connect (button, "setup", G_CALLBACK (drop_down_label_setup), GINT_TO_POINTER (TRUE));
  g_signal_connect (button, "bind", G_CALLBACK (drop_down_label_bind), drop_down);
  g_signal_connect (list, "setup", G_CALLBACK (drop_down_label_setup), GINT_TO_POINTER (FALSE));
  g_signal_connect (list, "bind", G_CALLBACK (drop_down_label_bind), drop_down);
  gtk_drop_down_set_factory (drop_down, button);
  gtk_drop_down_set_list_factory (drop_down, list);
}

static void
update_hosts_button (PlanarWindow *self)
{
  PlanarCatalogSession *session = _planar_window_current_session (self);
  guint n_supported = 0, n_shown = self->hosts != NULL ? g_strv_length (self->hosts) : 0;
  g_autofree char *label = NULL;

  if (session == NULL)
    return;
  for (guint i = 0; i < session->hosts->len; i++)
    n_supported += ((PlanarCatalogHost *) g_ptr_array_index (session->hosts, i))->supported;

  if (n_shown == 1)
    label = g_strdup (self->hosts[0]);
  else if (n_shown == n_supported)
    label = g_strdup (_("All Hosts"));
  else
    /* Translators: the hosts shown of the hosts in the session. */
    label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u Host", "%u of %u Hosts", n_supported),
                             n_shown, n_supported);
  gtk_menu_button_set_label (self->hosts_button, label);
  /* A long host name shortens to fit a narrow window; the whole is in the
   * tooltip. */
  ellipsize_labels (GTK_WIDGET (self->hosts_button));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->hosts_button), label);
  gtk_widget_set_sensitive (GTK_WIDGET (self->hosts_button), n_supported > 1);

  /* The check buttons follow the hosts shown. */
  self->updating_controls = TRUE;
  if (self->all_hosts_check != NULL)
    gtk_check_button_set_active (self->all_hosts_check, n_shown == n_supported);
  for (guint i = 0; self->host_checks != NULL && i < self->host_checks->len; i++)
    {
      PlanarCatalogHost *host = g_ptr_array_index (session->hosts, i);

      gtk_check_button_set_active (g_ptr_array_index (self->host_checks, i),
                                   self->hosts != NULL && g_strv_contains ((const char * const *) self->hosts, host->name));
    }
  self->updating_controls = FALSE;
}

static void
update_controls (PlanarWindow *self)
{
  gboolean have_catalog = self->catalog != NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->session_drop_down), have_catalog);
  gtk_widget_set_visible (GTK_WIDGET (self->hosts_button), have_catalog);
  gtk_widget_set_visible (GTK_WIDGET (self->tool_drop_down), have_catalog);
  update_title (self);
  update_hosts_button (self);
  _planar_window_update_actions (self);
}

/* ------------------------------------------------------------------------
 * The Hosts menu
 * ------------------------------------------------------------------------ */

static void
host_toggled (GtkCheckButton *check,
              PlanarWindow   *self)
{
  PlanarCatalogSession *session = _planar_window_current_session (self);
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) hosts = NULL;

  if (self->updating_controls || session == NULL)
    return;

  builder = g_strv_builder_new ();
  if (check == self->all_hosts_check)
    {
      /* "All Hosts" only adds; a session shows at least one host, so
       * unticking it puts it back. */
      if (!gtk_check_button_get_active (check))
        {
          update_hosts_button (self);
          return;
        }
    }
  else
    {
      for (guint i = 0; i < self->host_checks->len; i++)
        if (gtk_check_button_get_active (g_ptr_array_index (self->host_checks, i)))
          g_strv_builder_add (builder, ((PlanarCatalogHost *) g_ptr_array_index (session->hosts, i))->name);
    }
  hosts = g_strv_builder_end (builder);
  if (check != self->all_hosts_check && hosts[0] == NULL)
    {
      update_hosts_button (self);
      return;
    }
  /* An empty list asks for every host. */
  g_action_group_activate_action (G_ACTION_GROUP (self), "hosts",
                                  g_variant_new_strv ((const char * const *) hosts, -1));
}

static GtkCheckButton *
host_check_new (PlanarWindow *self,
                const char   *label,
                const char   *accessible_label)
{
  GtkWidget *check = gtk_check_button_new_with_label (label);

  gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);
  g_signal_connect (check, "toggled", G_CALLBACK (host_toggled), self);
  gtk_box_append (self->hosts_box, check);
  return GTK_CHECK_BUTTON (check);
}

static void
rebuild_hosts_menu (PlanarWindow *self)
{
  PlanarCatalogSession *session = _planar_window_current_session (self);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->hosts_box))) != NULL)
    gtk_box_remove (self->hosts_box, child);
  self->all_hosts_check = NULL;
  g_ptr_array_set_size (self->host_checks, 0);
  if (session == NULL)
    return;

  self->all_hosts_check = host_check_new (self, _("All Hosts"), _("Show all hosts"));
  gtk_box_append (self->hosts_box, gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  for (guint i = 0; i < session->hosts->len; i++)
    {
      PlanarCatalogHost *host = g_ptr_array_index (session->hosts, i);
      g_autofree char *accessible = g_strdup_printf (_("Show host %s"), host->name);
      g_autofree char *size = g_format_size (host->size);
      g_autofree char *tooltip = NULL;
      GtkCheckButton *check = host_check_new (self, host->name, accessible);

      if (host->supported)
        tooltip = g_strdup_printf ("%s (%s)", host->path, size);
      else
        tooltip = g_strdup_printf (_("Planar cannot read %s yet: only .xplane.pb files are supported"), host->path);
      gtk_widget_set_tooltip_text (GTK_WIDGET (check), tooltip);
      gtk_widget_set_sensitive (GTK_WIDGET (check), host->supported);
      g_ptr_array_add (self->host_checks, check);
    }
}

/* ------------------------------------------------------------------------
 * The Sessions menu
 * ------------------------------------------------------------------------ */

static void
select_session_in_menu (PlanarWindow *self)
{
  guint position = GTK_INVALID_LIST_POSITION;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));

  for (guint i = 0; self->session != NULL && i < n; i++)
    if (g_strcmp0 (gtk_string_list_get_string (self->sessions, i), self->session) == 0)
      {
        position = i;
        break;
      }
  self->updating_controls = TRUE;
  gtk_drop_down_set_selected (self->session_drop_down, position);
  self->updating_controls = FALSE;
}

static void
set_catalog (PlanarWindow  *self,
             PlanarCatalog *catalog,
             const char    *root)
{
  g_auto(GStrv) keys = _planar_window_dup_session_keys (catalog);

  g_clear_pointer (&self->catalog, planar_catalog_free);
  self->catalog = catalog;
  if (root != self->catalog_root)
    {
      g_free (self->catalog_root);
      self->catalog_root = g_strdup (root);
    }

  self->updating_controls = TRUE;
  gtk_string_list_splice (self->sessions, 0, g_list_model_get_n_items (G_LIST_MODEL (self->sessions)),
                          (const char * const *) keys);
  self->updating_controls = FALSE;
  select_session_in_menu (self);
  _planar_window_watch_runs (self);
}

void
_planar_window_replace_catalog (PlanarWindow  *self,
                                PlanarCatalog *catalog)
{
  g_auto(GStrv) before = _planar_window_dup_session_keys (self->catalog);
  const char *newest;

  set_catalog (self, catalog, self->catalog_root);
  rebuild_hosts_menu (self);
  update_controls (self);

  /* A capture just finished: offer its session, without leaving the one
   * shown. */
  newest = gtk_string_list_get_string (self->sessions, 0);
  if (newest != NULL && !g_strv_contains ((const char * const *) before, newest))
    {
      g_autofree char *label = _planar_window_format_session (newest);
      g_autofree char *escaped = g_markup_escape_text (label, -1);
      /* Translators: %s is when the session began, e.g. "2026-01-01 10:00:00". */
      g_autofree char *title = g_strdup_printf (_("New session %s"), escaped);
      AdwToast *toast = adw_toast_new (title);

      adw_toast_set_button_label (toast, _("_Show"));
      adw_toast_set_action_name (toast, "win.session");
      adw_toast_set_action_target_value (toast, g_variant_new_string (newest));
      adw_toast_set_timeout (toast, 10);
      adw_toast_overlay_add_toast (self->toast_overlay, toast);
    }
}

static void
session_selected (GtkDropDown  *drop_down,
                  GParamSpec   *pspec,
                  PlanarWindow *self)
{
  GtkStringObject *item;
  const char *key;

  if (self->updating_controls)
    return;
  item = gtk_drop_down_get_selected_item (drop_down);
  if (item == NULL)
    return;
  key = gtk_string_object_get_string (item);
  if (g_strcmp0 (key, self->session) != 0)
    g_action_group_activate_action (G_ACTION_GROUP (self), "session", g_variant_new_string (key));
}

static void
tool_selected (GtkDropDown  *drop_down,
               GParamSpec   *pspec,
               PlanarWindow *self)
{
  guint position = gtk_drop_down_get_selected (drop_down);

  if (self->updating_controls || position >= g_strv_length ((GStrv) _planar_window_tools))
    return;
  g_action_group_activate_action (G_ACTION_GROUP (self), "tool",
                                  g_variant_new_string (_planar_window_tools[position]));
}

/* ------------------------------------------------------------------------
 * Opening: finding the sessions under a path
 * ------------------------------------------------------------------------ */

static void
add_to_recent (PlanarWindow *self)
{
  g_autofree char *uri = g_file_get_uri (self->file);
  g_autofree char *name = g_file_get_basename (self->file);
  g_autoptr(GFile) parent = g_file_get_parent (self->file);
  gboolean folder = g_file_query_file_type (self->file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY;
  GtkRecentData data = {
    .display_name = name,
    .mime_type = (char *) (folder ? "inode/directory" : PLANAR_PROFILE_MIME_TYPE),
    .app_name = (char *) PLANAR_RECENT_APP_NAME,
    .app_exec = (char *) "planar %u",
  };

  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
  /* The file chooser starts where the last profile came from (not in the
   * document portal's folder of one file, inside the sandbox). */
  if (parent != NULL && g_file_peek_path (parent) != NULL && !planar_sandbox_is_portal_path (g_file_peek_path (parent)))
    g_settings_set_string (self->settings, "last-folder", g_file_peek_path (parent));
}

static void
open_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (source);
  g_autoptr(GError) error = NULL;
  PlanarCatalogResolution *opened = _planar_window_discover_finish (self, result, &error);
  g_autofree char *session = NULL;
  g_auto(GStrv) hosts = NULL;

  /* Superseded by another planar_window_open(), or the window closed. */
  if (g_task_get_cancellable (G_TASK (result)) != self->open_cancellable)
    {
      g_clear_pointer (&opened, planar_catalog_resolution_free);
      return;
    }
  g_clear_object (&self->open_cancellable);
  _planar_window_stop_progress (self);
  _planar_window_bench_mark ("catalog discovered");

  if (opened == NULL)
    {
      g_clear_pointer (&self->early_load, _planar_early_load_drop);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _planar_window_show_error (self, _("Could Not Open the Profile"),
                                   g_file_peek_path (self->file), error);
      /* The window is free for the next profile. */
      g_clear_object (&self->file);
      update_controls (self);
      return;
    }

  session = g_steal_pointer (&opened->session);
  hosts = g_steal_pointer (&opened->hosts);
  set_catalog (self, g_steal_pointer (&opened->catalog), opened->root);
  planar_catalog_resolution_free (opened);
  /* Recent Profiles gets it once a session of it has loaded (load_done()):
   * a file that fails to open is not offered again. */
  _planar_window_select_session (self, session, (const char * const *) hosts);
  /* Not adopted by its load (none started): nothing may run on unseen. */
  g_clear_pointer (&self->early_load, _planar_early_load_drop);
}

/* ------------------------------------------------------------------------
 * Loading the hosts of a session
 * ------------------------------------------------------------------------ */

/* The tools that need the whole profile get it once every host is in
 * (at once, or after the hosts of a lazy profile). */
static void
profile_ready (PlanarWindow *self)
{
  _planar_window_give_tools_profile (self, self->profile);
  planar_find_bar_refresh (self->find_bar);
  _planar_window_update_actions (self);
}

static gboolean
tool_is_trace_viewer (PlanarWindow *self)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (self), "tool");

  return state == NULL || g_strcmp0 (g_variant_get_string (state, NULL), "trace-viewer") == 0;
}

/* After a host asked for failed: says which, unless the profile was
 * dropped. */
static void
show_host_error (PlanarWindow *self,
                 const GError *error)
{
  const char *path = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (g_error_matches (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED))
    {
      show_file_changed (self, error);
      return;
    }
  /* The host that failed (the others may have loaded since). */
  for (guint i = 0; i < planar_profile_get_n_traces (self->profile) && path == NULL; i++)
    if (planar_profile_get_trace_state (self->profile, i) == PLANAR_PROFILE_TRACE_FAILED)
      path = planar_trace_get_path (planar_profile_get_trace (self->profile, i));
  _planar_window_show_error (self, _("Could Not Load the Host"), path != NULL ? path : "", error);
}

/* A host asked for from its timeline header. */
static void
host_loaded (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(PlanarWindow) self = user_data;
  PlanarProfile *profile = PLANAR_PROFILE (source);
  g_autoptr(GError) error = NULL;

  /* profile != self->profile: another profile since, or the window closed. */
  if (!planar_profile_load_traces_finish (profile, result, &error))
    {
      if (profile == self->profile)
        show_host_error (self, error);
      return;
    }
  if (profile == self->profile && planar_profile_is_loaded (profile))
    profile_ready (self);
}

static void
host_requested (PlanarWindow *self,
                guint         trace)
{
  if (self->profile == NULL || !planar_profile_is_open (self->profile))
    return;
  planar_profile_load_traces_async (self->profile, &trace, 1, self->hosts_cancellable, host_loaded,
                                    g_object_ref (self));
}

static void load_next_host (PlanarWindow *self);

static void
stop_loading_all_hosts (PlanarWindow *self)
{
  self->loading_all_hosts = FALSE;
  self->stopping_all_hosts = FALSE;
  _planar_window_stop_progress (self);
}

/* One host of Load All Hosts: the next follows, unless the user stopped
 * them (the host under way finishes, the others stay to be loaded). */
static void
next_host_loaded (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PlanarWindow) self = user_data;
  PlanarProfile *profile = PLANAR_PROFILE (source);
  g_autoptr(GError) error = NULL;
  gboolean ok = planar_profile_load_traces_finish (profile, result, &error);

  if (profile != self->profile)
    return;
  if (!ok)
    {
      stop_loading_all_hosts (self);
      show_host_error (self, error);
      return;
    }
  if (self->stopping_all_hosts)
    stop_loading_all_hosts (self);
  else
    load_next_host (self);
}

static void
load_next_host (PlanarWindow *self)
{
  for (guint i = 0; i < planar_profile_get_n_traces (self->profile); i++)
    if (planar_profile_get_trace_state (self->profile, i) == PLANAR_PROFILE_TRACE_PENDING)
      {
        planar_profile_load_traces_async (self->profile, &i, 1, self->hosts_cancellable, next_host_loaded,
                                          g_object_ref (self));
        return;
      }
  /* None left (a host asked for from its header may still be on its way:
   * its own callback sees the profile whole). */
  stop_loading_all_hosts (self);
  if (planar_profile_is_loaded (self->profile))
    profile_ready (self);
}

void
_planar_window_load_all_hosts (PlanarWindow *self)
{
  g_autofree char *label = NULL;
  guint n;

  g_return_if_fail (PLANAR_IS_WINDOW (self));

  if (self->profile == NULL || !planar_profile_is_open (self->profile)
      || planar_profile_is_loaded (self->profile) || self->loading_all_hosts)
    return;
  n = planar_profile_get_n_pending (self->profile);
  /* Translators: %u is a number of hosts. */
  label = g_strdup_printf (ngettext ("Loading %u more host…", "Loading %u more hosts…", n), n);
  self->loading_all_hosts = TRUE;
  self->stopping_all_hosts = FALSE;
  _planar_window_start_progress (self, label);
  _planar_window_update_actions (self);
  load_next_host (self);
}

static void
load_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(PlanarWindow) self = user_data;
  PlanarProfile *profile = PLANAR_PROFILE (source);
  g_autoptr(GError) error = NULL;
  gboolean loaded = planar_profile_load_finish (profile, result, &error);
  PlanarCatalogSession *session;
  const char *path;

  /* Superseded by another session or hosts, or the window closed. */
  if (profile != self->profile)
    return;
  g_clear_object (&self->load_cancellable);
  _planar_window_stop_progress (self);

  if (loaded)
    {
      if (self->file != NULL)
        add_to_recent (self);
      profile_ready (self);
      _planar_window_show_load_notes (self, profile);
      gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
      /* A lazy profile: the tools over the whole profile need every host. */
      if (!planar_profile_is_loaded (profile) && (planar_find_bar_get_open (self->find_bar)
                                                  || !tool_is_trace_viewer (self)))
        _planar_window_load_all_hosts (self);
      return;
    }

  planar_timeline_set_profile (self->timeline, NULL);
  g_clear_object (&self->profile);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);
  _planar_window_update_actions (self);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      show_message (self, "process-stop-symbolic", _("Loading Stopped"),
                    _("Load the session again, or choose another session or other hosts."));
      return;
    }

  /* The error names the host file; the dialog names what it belongs to. */
  session = _planar_window_current_session (self);
  path = session != NULL ? session->path : g_file_peek_path (self->file);
  if (session != NULL && self->hosts != NULL && g_strv_length (self->hosts) == 1)
    for (guint i = 0; i < session->hosts->len; i++)
      {
        PlanarCatalogHost *host = g_ptr_array_index (session->hosts, i);

        if (strcmp (host->name, self->hosts[0]) == 0 && host->supported)
          path = host->path;
      }
  show_message (self, "dialog-error-symbolic", _("Could Not Load the Session"), error->message);
  /* A file that changed while it was read may read whole once it is
   * written: the page offers Load Again, and the message bar says why. */
  if (g_error_matches (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED))
    {
      show_file_changed (self, error);
      return;
    }
  _planar_window_show_error (self, _("Could Not Load the Profile"), path, error);
}

static void
load (PlanarWindow *self)
{
  PlanarCatalogSession *session = _planar_window_current_session (self);
  g_auto(GStrv) paths = NULL;
  g_autofree char *hosts = NULL;
  g_autofree char *label = NULL;
  guint lazy_hosts = _planar_window_lazy_hosts_threshold ();
  gboolean adopted;

  g_assert (session != NULL);
  g_assert (self->hosts != NULL && self->hosts[0] != NULL);

  /* The load in progress, if any, finishes on its own thread and is
   * ignored (load_done() compares profiles). */
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);

  paths = _planar_window_dup_host_paths (session, (const char * const *) self->hosts);
  g_assert (paths[0] != NULL);

  g_set_object (&self->profile, NULL);
  planar_message_bar_remove (self->message_bar, MESSAGE_FILE_CHANGED);
  planar_message_bar_remove (self->message_bar, MESSAGE_HOST_ALIGNMENT);
  planar_message_bar_remove (self->message_bar, MESSAGE_FILE_CUT);
  /* The load `planar PATH` started before the window existed, when it is
   * this one: adopted, its load_done() as this window's own. */
  if (self->early_load != NULL)
    self->profile = _planar_early_load_adopt (self->early_load, (const char * const *) paths, lazy_hosts,
                                              &self->load_cancellable, load_done, self);
  g_clear_pointer (&self->early_load, _planar_early_load_drop);
  adopted = self->profile != NULL;
  /* load_done() holds the window, as for a load of its own. */
  if (adopted)
    g_object_ref (self);
  else
    {
      self->profile = planar_profile_new ((const char * const *) paths);
      /* Many hosts: the first is shown at once, the others when asked for. */
      planar_profile_set_lazy_hosts (self->profile, lazy_hosts);
      self->load_cancellable = g_cancellable_new ();
    }
  g_cancellable_cancel (self->hosts_cancellable);
  g_clear_object (&self->hosts_cancellable);
  self->hosts_cancellable = g_cancellable_new ();
  self->loading_all_hosts = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);

  _planar_window_watch_first_frame (self);
  _planar_window_hold_derive (self, adopted);
  /* The timeline shows the tracks as they are decoded, arranged as they
   * were last time; the other tools wait for the whole profile. */
  planar_timeline_set_profile (self->timeline, self->profile);
  _planar_window_restore_view (self);
  _planar_window_give_tools_profile (self, NULL);
  planar_find_bar_refresh (self->find_bar);
  _planar_window_select_tool (self, NULL);

  hosts = describe_hosts ((const char * const *) self->hosts);
  /* Translators: %s is one or more host names, or a number of hosts. */
  label = g_strdup_printf (_("Loading %s…"), hosts);
  _planar_window_start_progress (self, label);
  update_controls (self);

  if (!adopted)
    planar_profile_load_async (self->profile, self->load_cancellable, load_done, g_object_ref (self));
}

void
_planar_window_select_session (PlanarWindow       *self,
                               const char         *session_key,
                               const char * const *hosts)
{
  PlanarCatalogSession *session;

  g_return_if_fail (PLANAR_IS_WINDOW (self));
  g_return_if_fail (session_key != NULL);

  if (self->catalog == NULL)
    return;
  session = planar_catalog_find_session (self->catalog, session_key);
  if (session == NULL)
    {
      g_debug ("No session %s under %s", session_key, self->catalog_root);
      return;
    }

  g_free (self->session);
  self->session = g_strdup (session_key);
  g_clear_pointer (&self->hosts, g_strfreev);
  _planar_window_set_action_state (self, "session", g_variant_new_string (session_key));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
  select_session_in_menu (self);
  rebuild_hosts_menu (self);
  _planar_window_select_hosts (self, hosts);
}

void
_planar_window_select_hosts (PlanarWindow       *self,
                             const char * const *hosts)
{
  PlanarCatalogSession *session = _planar_window_current_session (self);
  g_auto(GStrv) chosen = NULL;

  g_return_if_fail (PLANAR_IS_WINDOW (self));

  if (session == NULL)
    return;

  chosen = _planar_window_choose_hosts (session, hosts);
  if (chosen[0] == NULL)
    {
      /* Only .xplane.riegeli files: listed, so that the user learns why. */
      g_autoptr(GError) error = g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_UNSUPPORTED,
                                             _("The session holds no .xplane.pb file Planar can read."));

      g_cancellable_cancel (self->load_cancellable);
      g_clear_object (&self->load_cancellable);
      planar_timeline_set_profile (self->timeline, NULL);
      g_clear_object (&self->profile);
      g_clear_pointer (&self->hosts, g_strfreev);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);
      _planar_window_stop_progress (self);
      show_message (self, "dialog-error-symbolic", _("Could Not Load the Session"), error->message);
      _planar_window_show_error (self, _("Could Not Load the Session"), session->path, error);
      update_controls (self);
      return;
    }

  /* The same hosts again: nothing to do unless the last load failed. */
  if (self->hosts != NULL && g_strv_equal ((const char * const *) self->hosts, (const char * const *) chosen) &&
      self->profile != NULL)
    return;

  g_strfreev (self->hosts);
  self->hosts = g_steal_pointer (&chosen);
  _planar_window_set_action_state (self, "hosts", g_variant_new_strv ((const char * const *) self->hosts, -1));
  load (self);
}

void
_planar_window_find (PlanarWindow *self)
{
  g_return_if_fail (PLANAR_IS_WINDOW (self));

  if (self->profile == NULL)
    return;
  _planar_window_select_tool (self, "trace-viewer");
  planar_find_bar_open (self->find_bar);
  /* The find bar searches every host. */
  _planar_window_load_all_hosts (self);
}

/* Escape in the find bar gives the keys back to the timeline. */
static void
find_bar_closed (PlanarWindow *self)
{
  if (self->profile != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

/* A row of the selection's table: find every event of that name. */
static void
details_search (PlanarWindow *self,
                const char   *name)
{
  g_autofree char *escaped = g_regex_escape_string (name, -1);
  g_autofree char *pattern = g_strdup_printf ("^%s$", escaped);

  _planar_window_find (self);
  planar_find_bar_set_text (self->find_bar, pattern, TRUE);
}

void
_planar_window_reload (PlanarWindow *self)
{
  g_return_if_fail (PLANAR_IS_WINDOW (self));

  if (_planar_window_current_session (self) == NULL || self->hosts == NULL)
    return;
  load (self);
  /* New sessions may have come while the folder was not watched. */
  _planar_window_rescan (self);
}

void
_planar_window_cancel (PlanarWindow *self)
{
  g_return_if_fail (PLANAR_IS_WINDOW (self));

  /* The callbacks see the cancellation and put the window in order. */
  g_cancellable_cancel (self->open_cancellable);
  g_cancellable_cancel (self->load_cancellable);
  /* Load All Hosts stops after the host under way, which it keeps. */
  if (self->loading_all_hosts && !self->stopping_all_hosts)
    {
      self->stopping_all_hosts = TRUE;
      gtk_label_set_label (self->progress_label, _("Stopping after this host…"));
      _planar_window_update_actions (self);
    }
}

/* ------------------------------------------------------------------------
 * Window
 * ------------------------------------------------------------------------ */

static gboolean
drop (GtkDropTarget *target,
      const GValue  *value,
      double         x,
      double         y,
      PlanarWindow  *self)
{
  GtkApplication *application = gtk_window_get_application (GTK_WINDOW (self));
  GSList *files = gdk_file_list_get_files (g_value_get_boxed (value));
  gboolean any = files != NULL;

  /* The first lands here if the window is empty, each other in a window
   * of its own. */
  for (GSList *l = files; l != NULL; l = l->next)
    gtk_window_present (GTK_WINDOW (planar_application_open_file (PLANAR_APPLICATION (application), l->data, self)));
  g_slist_free (files);
  return any;
}

static gboolean
planar_window_close_request (GtkWindow *window)
{
  PlanarWindow *self = PLANAR_WINDOW (window);
  int width, height;

  gtk_window_get_default_size (window, &width, &height);
  if (width > 0 && height > 0)
    {
      g_settings_set_int (self->settings, "window-width", CLAMP (width, 360, 32767));
      g_settings_set_int (self->settings, "window-height", CLAMP (height, 294, 32767));
    }
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));

  return GTK_WINDOW_CLASS (planar_window_parent_class)->close_request (window);
}

/* Called once the window has its application: GtkWindow:application is not
 * a construct property, so it is still unset in constructed(). */
static void
bind_settings (PlanarWindow *self,
               GSettings    *settings)
{
  self->settings = g_object_ref (settings);
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  g_signal_connect_object (self->timeline, "host-requested", G_CALLBACK (host_requested), self,
                           G_CONNECT_SWAPPED);
  g_settings_bind (self->settings, "show-flows", self->timeline, "show-flows", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "show-details", self->details_pane, "visible", G_SETTINGS_BIND_GET);
  /* The timeline does not hide XProf's internal events yet; the setting
   * takes effect, and appears in the menu, once it has the property. */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (self->timeline), "hide-internal-events") != NULL)
    {
      GMenuModel *menu = gtk_menu_button_get_menu_model (self->menu_button);
      GMenuModel *view = g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION);

      g_settings_bind (self->settings, "hide-internal-events", self->timeline, "hide-internal-events",
                       G_SETTINGS_BIND_DEFAULT);
      if (G_IS_MENU (view))
        g_menu_append (G_MENU (view), _("_Hide Internal Events"), "app.hide-internal-events");
      g_clear_object (&view);
    }
}

static void
planar_window_dispose (GObject *object)
{
  PlanarWindow *self = (PlanarWindow *) object;

  g_cancellable_cancel (self->open_cancellable);
  g_cancellable_cancel (self->load_cancellable);
  g_cancellable_cancel (self->hosts_cancellable);
  g_cancellable_cancel (self->rescan_cancellable);
  g_clear_pointer (&self->early_load, _planar_early_load_drop);
  g_clear_object (&self->open_cancellable);
  g_clear_object (&self->load_cancellable);
  g_clear_object (&self->hosts_cancellable);
  g_clear_object (&self->rescan_cancellable);
  if (self->progress_profile != NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (self->progress_handlers); i++)
        g_clear_signal_handler (&self->progress_handlers[i], self->progress_profile);
      g_clear_object (&self->progress_profile);
    }
  g_clear_handle_id (&self->title_source, g_source_remove);
  g_clear_handle_id (&self->rescan_source, g_source_remove);
  g_clear_pointer (&self->run_monitors, g_hash_table_unref);
  g_clear_pointer (&self->pending_monitors, g_hash_table_unref);
  if (self->file_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->file_chooser));
  g_clear_object (&self->file_chooser);
  _planar_window_dispose_views (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), PLANAR_TYPE_WINDOW);

  g_clear_object (&self->profile);
  g_clear_object (&self->sessions);
  g_clear_object (&self->settings);
  g_clear_object (&self->file);
  g_clear_pointer (&self->host_checks, g_ptr_array_unref);
  self->all_hosts_check = NULL;

  G_OBJECT_CLASS (planar_window_parent_class)->dispose (object);
}

static void
planar_window_finalize (GObject *object)
{
  PlanarWindow *self = (PlanarWindow *) object;

  g_clear_pointer (&self->catalog, planar_catalog_free);
  g_free (self->catalog_root);
  g_free (self->session);
  g_strfreev (self->hosts);

  G_OBJECT_CLASS (planar_window_parent_class)->finalize (object);
}

static void
planar_window_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  PlanarWindow *self = PLANAR_WINDOW (object);

  switch (prop_id)
    {
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    case PROP_PROFILE:
      g_value_set_object (value, self->profile);
      break;
    case PROP_SESSION:
      g_value_set_string (value, self->session);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_window_class_init (PlanarWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = planar_window_dispose;
  object_class->finalize = planar_window_finalize;
  widget_class->size_allocate = planar_window_size_allocate;
  object_class->get_property = planar_window_get_property;

  window_class->close_request = planar_window_close_request;

  /* Whether sessions are being looked for or hosts loaded. */
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL,
                          FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The profile shown, loaded or loading. */
  properties[PROP_PROFILE] =
    g_param_spec_object ("profile", NULL, NULL,
                         PLANAR_TYPE_PROFILE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The key of the session shown. */
  properties[PROP_SESSION] =
    g_param_spec_string ("session", NULL, NULL,
                         NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PLANAR_TYPE_TIMELINE);
  g_type_ensure (PLANAR_TYPE_FIND_BAR);
  g_type_ensure (PLANAR_TYPE_FIND_RESULTS);
  g_type_ensure (PLANAR_TYPE_DETAILS_PANE);
  g_type_ensure (PLANAR_TYPE_TRACKS_POPOVER);
  g_type_ensure (PLANAR_TYPE_MESSAGE_BAR);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/planar/Planar/planar-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, session_drop_down);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, hosts_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, hosts_box);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, menu_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, tool_drop_down);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, progress_revealer);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, message_bar);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, welcome_bin);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, message_page);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, find_bar);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, find_results);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, details_paned);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, details_pane);
  gtk_widget_class_bind_template_child (widget_class, PlanarWindow, tracks_button);
}

/* The welcome page's place is shown: the page is made the first time. */
static void
show_welcome_page (PlanarWindow *self)
{
  if (self->welcome_page != NULL)
    return;
  self->welcome_page = PLANAR_WELCOME_PAGE (planar_welcome_page_new ());
  adw_bin_set_child (self->welcome_bin, GTK_WIDGET (self->welcome_page));
}

static void
planar_window_init (PlanarWindow *self)
{
  GtkExpression *expression;
  GtkDropTarget *target;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->host_checks = g_ptr_array_new ();
  self->run_monitors = _planar_window_monitors_new ();
  self->pending_monitors = _planar_window_monitors_new ();

  self->sessions = gtk_string_list_new (NULL);
  expression = gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 0, NULL,
                                            G_CALLBACK (session_label_for_item), NULL, NULL);
  gtk_drop_down_set_expression (self->session_drop_down, expression);
  gtk_expression_unref (expression);
  gtk_drop_down_set_model (self->session_drop_down, G_LIST_MODEL (self->sessions));
  set_drop_down_factories (self->session_drop_down);
  set_drop_down_factories (self->tool_drop_down);
  g_signal_connect (self->session_drop_down, "notify::selected", G_CALLBACK (session_selected), self);
  g_signal_connect (self->tool_drop_down, "notify::selected", G_CALLBACK (tool_selected), self);

  target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (target, "drop", G_CALLBACK (drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));

  planar_find_bar_set_timeline (self->find_bar, self->timeline);
  planar_find_results_set_find_bar (self->find_results, self->find_bar);
  planar_details_pane_set_timeline (self->details_pane, self->timeline);
  g_object_bind_property (self->find_bar, "show-results", self->find_results, "visible", G_BINDING_SYNC_CREATE);
  g_signal_connect_swapped (self->find_bar, "closed", G_CALLBACK (find_bar_closed), self);
  g_signal_connect_swapped (self->details_pane, "search", G_CALLBACK (details_search), self);
  g_signal_connect_swapped (self->details_pane, "file-changed", G_CALLBACK (details_file_changed), self);
  g_signal_connect (self, "notify::is-active", G_CALLBACK (is_active_changed), NULL);
  g_signal_connect_swapped (self->welcome_bin, "map", G_CALLBACK (show_welcome_page), self);

  _planar_window_init_actions (self);
  _planar_window_init_views (self);
  _planar_window_init_export_actions (self);
  update_controls (self);
}

PlanarWindow *
planar_window_new (GtkApplication *application)
{
  PlanarWindow *self;

  g_return_val_if_fail (PLANAR_IS_APPLICATION (application), NULL);

  self = g_object_new (PLANAR_TYPE_WINDOW,
                       "application", application,
                       NULL);
  bind_settings (self, planar_application_get_settings (PLANAR_APPLICATION (application)));
  return self;
}

void
planar_window_open (PlanarWindow *self,
                    GFile        *file)
{
  g_autofree char *name = NULL;
  g_autofree char *label = NULL;

  g_return_if_fail (PLANAR_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  /* What the window was opening or loading is dropped, unseen: the
   * callbacks find their cancellables replaced and do nothing. */
  g_cancellable_cancel (self->open_cancellable);
  g_clear_object (&self->open_cancellable);
  if (self->load_cancellable != NULL)
    {
      g_cancellable_cancel (self->load_cancellable);
      g_clear_object (&self->load_cancellable);
      planar_timeline_set_profile (self->timeline, NULL);
      g_clear_object (&self->profile);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);
    }
  planar_message_bar_remove (self->message_bar, MESSAGE_FILE_CHANGED);
  g_set_object (&self->file, file);

  if (g_file_peek_path (file) == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);
      g_autoptr(GError) error = g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                                             _("Planar opens profiles on this computer’s disks only."));

      _planar_window_show_error (self, _("Could Not Open the Profile"), uri, error);
      g_clear_object (&self->file);
      return;
    }

  /* A window made to open a path shows the profile's page from its first
   * frame: a welcome page would only be drawn to be cross-faded away. */
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    gtk_stack_set_visible_child_full (self->stack, "trace-viewer", GTK_STACK_TRANSITION_TYPE_NONE);

  self->open_cancellable = g_cancellable_new ();
  _planar_window_discover_async (self, g_file_peek_path (file), self->open_cancellable, open_done);
  _planar_window_offer_session_folder (self, file);

  name = g_file_get_basename (file);
  /* Translators: %s is a file or folder name. */
  label = g_strdup_printf (_("Looking for profiles in %s…"), name);
  _planar_window_start_progress (self, label);
  update_title (self);
  _planar_window_update_actions (self);
}

gboolean
planar_window_is_empty (PlanarWindow *self)
{
  g_return_val_if_fail (PLANAR_IS_WINDOW (self), FALSE);

  return self->file == NULL && self->catalog == NULL;
}

gboolean
planar_window_get_loading (PlanarWindow *self)
{
  g_return_val_if_fail (PLANAR_IS_WINDOW (self), FALSE);

  return self->loading;
}

PlanarProfile *
planar_window_get_profile (PlanarWindow *self)
{
  g_return_val_if_fail (PLANAR_IS_WINDOW (self), NULL);

  return self->profile;
}

const char *
planar_window_get_session (PlanarWindow *self)
{
  g_return_val_if_fail (PLANAR_IS_WINDOW (self), NULL);

  return self->session;
}

GListModel *
planar_window_get_sessions (PlanarWindow *self)
{
  g_return_val_if_fail (PLANAR_IS_WINDOW (self), NULL);

  return G_LIST_MODEL (self->sessions);
}
