/* planar-application.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-application.h"
#include "planar-application-private.h"

#include <glib/gi18n.h>
/* g_settings_backend_get_default(), g_memory_settings_backend_new(). */
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>
#include <stdlib.h>

#include "planar-cache.h"
#include "planar-early-load-private.h"
#include "planar-parallel.h"
#include "planar-preferences.h"
#include "planar-sandbox.h"
#include "planar-shortcuts.h"
#include "planar-window-private.h"

struct _PlanarApplication
{
  AdwApplication  parent_instance;

  GSettings      *settings;
  /* `planar PATH`'s load, started before GTK (planar_application_start_early_load()),
   * until the application ends; claimed by the window that opens PATH. */
  PlanarEarlyLoad *early_load;
  gboolean         early_load_claimed;
};

G_DEFINE_FINAL_TYPE (PlanarApplication, planar_application, ADW_TYPE_APPLICATION)

/* Whether @backend can store what is written to it. dconf writes through
 * its D-Bus service: without a session bus each write fails after the fact
 * and dconf puts the old value back, so a switch flipped in the app would
 * silently flip back. */
static gboolean
backend_can_store (GSettingsBackend *backend)
{
  g_autoptr(GDBusConnection) bus = NULL;

  if (g_strcmp0 (G_OBJECT_TYPE_NAME (backend), "DConfSettingsBackend") != 0)
    return TRUE;
  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  return bus != NULL;
}

/* Settings on the default backend or, where that cannot store anything, on
 * a memory backend that starts from the stored values: changes then apply
 * until the app quits instead of reverting. */
static GSettings *
settings_new_keeping_changes (GSettingsSchema *schema)
{
  g_autoptr(GSettingsBackend) backend = g_settings_backend_get_default ();
  g_autoptr(GSettingsBackend) memory = NULL;
  g_autoptr(GSettings) stored = NULL;
  g_auto(GStrv) keys = NULL;
  GSettings *settings;

  if (backend_can_store (backend))
    return g_settings_new_full (schema, backend, NULL);

  g_message ("Settings cannot be stored (no D-Bus session bus for dconf): "
             "changes apply until Planar quits");
  stored = g_settings_new_full (schema, backend, NULL);
  memory = g_memory_settings_backend_new ();
  settings = g_settings_new_full (schema, memory, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autoptr(GVariant) value = g_settings_get_user_value (stored, keys[i]);

      if (value != NULL)
        g_settings_set_value (settings, keys[i], value);
    }
  return settings;
}

char *
_planar_application_dup_build_dir (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = NULL;
  g_autofree char *build = NULL;
  g_autofree char *marker = NULL;

  if (exe == NULL)
    return NULL;
  dir = g_path_get_dirname (exe);
  build = g_path_get_dirname (dir);
  marker = g_build_filename (build, "meson-private", NULL);
  return g_file_test (marker, G_FILE_TEST_IS_DIR) ? g_steal_pointer (&build) : NULL;
}

/* The installed schema, or the one compiled in the build folder when Planar
 * runs from there (./dev run), where nothing is installed yet. */
static GSettings *
settings_new (void)
{
  GSettingsSchemaSource *installed = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchemaSource) build = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;

  if (installed != NULL)
    schema = g_settings_schema_source_lookup (installed, APPLICATION_ID, TRUE);
  if (schema == NULL)
    {
      g_autofree char *build_dir = _planar_application_dup_build_dir ();
      g_autofree char *schema_dir = build_dir != NULL ? g_build_filename (build_dir, "data", NULL) : NULL;

      if (schema_dir != NULL)
        build = g_settings_schema_source_new_from_directory (schema_dir, installed, FALSE, NULL);
      if (build != NULL)
        schema = g_settings_schema_source_lookup (build, APPLICATION_ID, FALSE);
    }
  /* A broken installation, not a bug: said plainly, without a core dump. */
  if (schema == NULL)
    {
      g_printerr ("planar: the settings schema %s is not installed: install Planar, or point "
                  "GSETTINGS_SCHEMA_DIR at a folder where it is compiled\n", APPLICATION_ID);
      exit (EXIT_FAILURE);
    }
  return settings_new_keeping_changes (schema);
}

static PlanarWindow *
find_empty_window (PlanarApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (PLANAR_IS_WINDOW (l->data) && planar_window_is_empty (l->data))
      return l->data;
  return NULL;
}

static void
new_window_activated (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  PlanarApplication *self = user_data;

  gtk_window_present (GTK_WINDOW (planar_application_new_window (self)));
}

/* The text of the About window's Troubleshooting page. Returns: a static string. */
static const char *
about_debug_info (void)
{
  static char *text;

  if (text == NULL)
    text = g_strdup_printf (_("To report a problem, follow the section “Reporting problems” of the file "
                              "CONTRIBUTING.md in Planar’s source code: it says what to include and where to "
                              "send it.\n\nPlanar %s\nGTK %u.%u.%u\nlibadwaita %u.%u.%u\n"),
                            PACKAGE_VERSION, gtk_get_major_version (), gtk_get_minor_version (),
                            gtk_get_micro_version (), adw_get_major_version (), adw_get_minor_version (),
                            adw_get_micro_version ());
  return text;
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  PlanarApplication *self = user_data;
  GtkWindow *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", gtk_application_get_active_window (GTK_APPLICATION (self)),
                        "modal", TRUE,
                        "application-name", "Planar",
                        "application-icon", APPLICATION_ID,
                        "version", PACKAGE_VERSION,
                        "developer-name", _("The Planar developers"),
                        "comments", _("View XProf profiles of GPU and TPU programs"),
                        "copyright", _("© 2026 The Planar developers"),
                        "license-type", GTK_LICENSE_GPL_3_0,
                        /* No web address is invented: how to report a problem is a section of the
                         * repository's CONTRIBUTING.md, and the Troubleshooting page says so. */
                        "debug-info", about_debug_info (),
                        /* Translators: your name, and your e-mail address if you like, one translator a line. */
                        "translator-credits", _("translator-credits"),
                        NULL);
  gtk_window_present (about);
}

static void
shortcuts_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  PlanarApplication *self = user_data;
  GtkWindow *window = GTK_WINDOW (planar_shortcuts_new_window ());

  gtk_window_set_transient_for (window, gtk_application_get_active_window (GTK_APPLICATION (self)));
  gtk_window_present (window);
}

static void
preferences_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  PlanarApplication *self = user_data;
  GtkWindow *window = planar_preferences_window_new (self->settings);

  gtk_window_set_transient_for (window, gtk_application_get_active_window (GTK_APPLICATION (self)));
  gtk_window_set_modal (window, TRUE);
  gtk_window_present (window);
}

/* The cached indexes as the settings want them (PLANAR_CACHE=0 wins). */
static void
apply_cache_settings (GSettings  *settings,
                      const char *key,
                      gpointer    user_data)
{
  planar_cache_set_enabled (g_settings_get_boolean (settings, "cache-enabled")
                            && g_strcmp0 (g_getenv ("PLANAR_CACHE"), "0") != 0);
  planar_cache_set_limit ((guint64) g_settings_get_uint (settings, "cache-size-mb") << 20);
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  PlanarApplication *self = user_data;
  g_autoptr(GList) windows = NULL;

  /* Closing, not destroying, lets each window save its size; the
   * application ends with its last window. */
  windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (self)));
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
}

/* Renders @window as it would draw now into a PNG file at @path, with its
 * own renderer, at the screen's pixels (twice the logical size under
 * GDK_SCALE=2, as a person with that screen sees it). */
static gboolean
save_screenshot (GtkWindow   *window,
                 const char  *path,
                 GError     **error)
{
  GtkWidget *widget = GTK_WIDGET (window);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  int scale = MAX (gtk_widget_get_scale_factor (widget), 1);
  GtkSnapshot *snapshot;

  if (!gtk_widget_get_realized (widget) || width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("The window is not shown"));
      return FALSE;
    }

  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("The window drew nothing"));
      return FALSE;
    }
  /* The texture has one pixel per unit of the viewport: scaling the
   * drawing up gives one per device pixel. */
  if (scale > 1)
    {
      g_autoptr(GskTransform) transform = gsk_transform_scale (NULL, scale, scale);
      GskRenderNode *scaled = gsk_transform_node_new (node, transform);

      gsk_render_node_unref (node);
      node = scaled;
    }
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width * scale, height * scale));
  if (!gdk_texture_save_to_png (texture, path))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write %s"), path);
      return FALSE;
    }
  return TRUE;
}

/* The newest window shown: what a person looks at, a dialog over its
 * window included, whatever has the focus (a virtual X server has no
 * window manager to give it). */
static void
debug_screenshot_activated (GSimpleAction *action,
                            GVariant      *parameter,
                            gpointer       user_data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  g_autoptr(GtkWindow) newest = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = g_list_model_get_n_items (toplevels); i > 0 && newest == NULL; i--)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i - 1);

      if (gtk_widget_get_visible (GTK_WIDGET (window)))
        newest = g_steal_pointer (&window);
    }
  if (newest == NULL)
    return;
  if (!save_screenshot (newest, g_variant_get_string (parameter, NULL), &error))
    g_message ("Could not save a screenshot: %s", error->message);
}

static const GActionEntry app_entries[] = {
  { .name = "new-window", .activate = new_window_activated },
  { .name = "about", .activate = about_activated },
  { .name = "shortcuts", .activate = shortcuts_activated },
  { .name = "preferences", .activate = preferences_activated },
  { .name = "quit", .activate = quit_activated },
};

/* Only with PLANAR_DEBUG_ACTIONS set: the end-to-end test, which drives the
 * real binary with real keys, takes its screenshots through it over D-Bus
 * (org.gtk.Actions), so that it needs no screen-grabbing tool. */
static const GActionEntry debug_entries[] = {
  { .name = "debug-screenshot", .activate = debug_screenshot_activated, .parameter_type = "s" },
};

/* What every load of the application's depends on, set once: before GTK
 * starts for an early load, else at startup. */
static void
prepare_loads (PlanarApplication *self)
{
  if (self->settings != NULL)
    return;
  /* Loads leave the main thread a core: it draws their tracks as they come. */
  planar_parallel_set_background (TRUE);
  self->settings = settings_new ();
  apply_cache_settings (self->settings, NULL, NULL);
  g_signal_connect (self->settings, "changed::cache-enabled", G_CALLBACK (apply_cache_settings), NULL);
  g_signal_connect (self->settings, "changed::cache-size-mb", G_CALLBACK (apply_cache_settings), NULL);
}

static void
planar_application_startup (GApplication *application)
{
  PlanarApplication *self = PLANAR_APPLICATION (application);
  static const char * const settings_actions[] = { "show-flows", "hide-internal-events", "show-details" };

  _planar_window_bench_mark ("startup");
  G_APPLICATION_CLASS (planar_application_parent_class)->startup (application);
  _planar_window_bench_mark ("GTK and libadwaita started");

  prepare_loads (self);
  g_action_map_add_action_entries (G_ACTION_MAP (self), app_entries, G_N_ELEMENTS (app_entries), self);
  if (g_getenv ("PLANAR_DEBUG_ACTIONS") != NULL)
    g_action_map_add_action_entries (G_ACTION_MAP (self), debug_entries, G_N_ELEMENTS (debug_entries), self);
  for (guint i = 0; i < G_N_ELEMENTS (settings_actions); i++)
    {
      g_autoptr(GAction) action = g_settings_create_action (self->settings, settings_actions[i]);

      g_action_map_add_action (G_ACTION_MAP (self), action);
    }

  planar_shortcuts_set_application_accels (GTK_APPLICATION (self));
  gtk_window_set_default_icon_name (APPLICATION_ID);
  _planar_window_bench_mark ("settings and actions");
}

/* No window opened the early load's path: nothing may run on unseen. */
static void
drop_unclaimed_early_load (PlanarApplication *self)
{
  if (self->early_load != NULL && !self->early_load_claimed)
    {
      self->early_load_claimed = TRUE;
      _planar_early_load_cancel (self->early_load);
    }
}

static void
planar_application_activate (GApplication *application)
{
  PlanarApplication *self = PLANAR_APPLICATION (application);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    window = GTK_WINDOW (planar_application_new_window (self));
  gtk_window_present (window);
  drop_unclaimed_early_load (self);
}

static void
planar_application_open (GApplication  *application,
                         GFile        **files,
                         int            n_files,
                         const char    *hint)
{
  PlanarApplication *self = PLANAR_APPLICATION (application);

  _planar_window_bench_mark ("open");
  for (int i = 0; i < n_files; i++)
    {
      PlanarWindow *window;

      /* Inside the sandbox a folder the document portal could not pass
       * arrives as a path Planar cannot see: say so, in a window. */
      if (planar_sandbox_is_flatpak () && !g_file_query_exists (files[i], NULL))
        {
          window = find_empty_window (self);
          if (window == NULL)
            window = planar_application_new_window (self);
          _planar_window_explain_unreachable (window, files[i]);
        }
      else
        window = planar_application_open_file (self, files[i], NULL);
      _planar_window_bench_mark ("window made, discovery started");
      gtk_window_present (GTK_WINDOW (window));
      _planar_window_bench_mark ("window presented");
    }
  drop_unclaimed_early_load (self);
}

static void
planar_application_shutdown (GApplication *application)
{
  /* A cached index still being written is given up: quitting does not
   * wait minutes for a big one (it is written again next time). */
  planar_cache_cancel ();
  G_APPLICATION_CLASS (planar_application_parent_class)->shutdown (application);
}

static void
planar_application_dispose (GObject *object)
{
  PlanarApplication *self = (PlanarApplication *) object;

  g_clear_object (&self->settings);
  if (self->early_load != NULL)
    _planar_early_load_cancel (self->early_load);
  g_clear_pointer (&self->early_load, _planar_early_load_unref);

  G_OBJECT_CLASS (planar_application_parent_class)->dispose (object);
}

/* `planar --version`, as `planar-cli --version` answers. */
static int
planar_application_handle_local_options (GApplication *application,
                                         GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("planar %s\n", PACKAGE_VERSION);
      return 0;
    }
  return -1;
}

static void
planar_application_class_init (PlanarApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *application_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = planar_application_dispose;

  application_class->startup = planar_application_startup;
  application_class->activate = planar_application_activate;
  application_class->shutdown = planar_application_shutdown;
  application_class->open = planar_application_open;
  application_class->handle_local_options = planar_application_handle_local_options;
}

static void
planar_application_init (PlanarApplication *self)
{
  g_application_add_main_option (G_APPLICATION (self), "version", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_NONE,
                                 _("Print the version and exit"), NULL);
}

PlanarApplication *
planar_application_new (void)
{
  return g_object_new (PLANAR_TYPE_APPLICATION,
                       "application-id", APPLICATION_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/dev/planar/Planar",
                       NULL);
}

GSettings *
planar_application_get_settings (PlanarApplication *self)
{
  g_return_val_if_fail (PLANAR_IS_APPLICATION (self), NULL);
  g_return_val_if_fail (self->settings != NULL, NULL);

  return self->settings;
}

PlanarWindow *
planar_application_new_window (PlanarApplication *self)
{
  g_return_val_if_fail (PLANAR_IS_APPLICATION (self), NULL);

  return planar_window_new (GTK_APPLICATION (self));
}

PlanarWindow *
planar_application_open_file (PlanarApplication *self,
                              GFile             *file,
                              PlanarWindow      *window)
{
  g_return_val_if_fail (PLANAR_IS_APPLICATION (self), NULL);
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (window == NULL || PLANAR_IS_WINDOW (window), NULL);

  if (window == NULL || !planar_window_is_empty (window))
    window = find_empty_window (self);
  if (window == NULL)
    window = planar_application_new_window (self);
  planar_window_open (window, file);
  return window;
}

gboolean
planar_application_start_early_load (PlanarApplication  *self,
                                     int                 argc,
                                     char              **argv)
{
  g_autoptr(GFile) file = NULL;

  g_return_val_if_fail (PLANAR_IS_APPLICATION (self), FALSE);
  g_return_val_if_fail (self->early_load == NULL, FALSE);

  /* One path and nothing else: an option may change what is done, and
   * several paths open several windows. */
  if (argc != 2 || argv[1][0] == '-' || g_strcmp0 (g_getenv ("PLANAR_EARLY_LOAD"), "0") == 0)
    return FALSE;
  /* The file GApplication passes to open() for the same argument. */
  file = g_file_new_for_commandline_arg (argv[1]);
  if (g_file_peek_path (file) == NULL)
    return FALSE;

  prepare_loads (self);
  self->early_load = _planar_early_load_start (g_file_peek_path (file));
  self->early_load_claimed = FALSE;
  _planar_window_bench_mark ("early load started");
  return TRUE;
}

void
planar_application_end_early_load (PlanarApplication *self)
{
  g_return_if_fail (PLANAR_IS_APPLICATION (self));

  if (self->early_load == NULL)
    return;
  /* Not claimed: the path went to the instance already running, or no
   * window opened it. */
  self->early_load_claimed = TRUE;
  _planar_early_load_cancel (self->early_load);
  _planar_early_load_wait (self->early_load);
  g_clear_pointer (&self->early_load, _planar_early_load_unref);
}

PlanarEarlyLoad *
_planar_application_claim_early_load (PlanarApplication *self,
                                      const char        *path)
{
  g_return_val_if_fail (PLANAR_IS_APPLICATION (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (self->early_load == NULL || self->early_load_claimed ||
      g_strcmp0 (_planar_early_load_get_path (self->early_load), path) != 0)
    return NULL;
  self->early_load_claimed = TRUE;
  return _planar_early_load_ref (self->early_load);
}

PlanarEarlyLoad *
_planar_application_get_early_load (PlanarApplication *self)
{
  g_return_val_if_fail (PLANAR_IS_APPLICATION (self), NULL);

  return self->early_load;
}
