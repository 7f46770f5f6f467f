/* planar-window-catalog.c: what a window finds under the path it opened:
 * the catalog of sessions (read in a worker), the session keys of its
 * Sessions menu, and the run folders it watches for new sessions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-window-private.h"

#include "planar-application.h"
#include "planar-application-private.h"

#include <string.h>

/* How long a run folder must be quiet before it is read again, ms: a
 * capture writes a session folder and its files in a burst. */
#define RESCAN_DELAY_MS 300

/* ------------------------------------------------------------------------
 * Session keys
 * ------------------------------------------------------------------------ */

typedef struct
{
  const char *session_name;
  char       *key;
} SessionEntry;

static int
compare_entries_newest_first (gconstpointer a,
                              gconstpointer b)
{
  const SessionEntry *entry_a = a;
  const SessionEntry *entry_b = b;
  int cmp = strcmp (entry_b->session_name, entry_a->session_name);

  return cmp != 0 ? cmp : strcmp (entry_a->key, entry_b->key);
}

GStrv
_planar_window_dup_session_keys (PlanarCatalog *catalog)
{
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (SessionEntry));
  GStrv keys;

  for (guint r = 0; r < catalog->runs->len; r++)
    {
      PlanarCatalogRun *run = g_ptr_array_index (catalog->runs, r);

      for (guint s = 0; s < run->sessions->len; s++)
        {
          PlanarCatalogSession *session = g_ptr_array_index (run->sessions, s);
          SessionEntry entry = { session->name, planar_catalog_dup_session_key (run, session) };

          g_array_append_val (entries, entry);
        }
    }
  g_array_sort (entries, compare_entries_newest_first);

  keys = g_new0 (char *, entries->len + 1);
  for (guint i = 0; i < entries->len; i++)
    keys[i] = g_array_index (entries, SessionEntry, i).key;
  return keys;
}

/* ------------------------------------------------------------------------
 * The hosts to load
 * ------------------------------------------------------------------------ */

GStrv
_planar_window_choose_hosts (PlanarCatalogSession *session,
                             const char * const   *hosts)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < session->hosts->len; i++)
    {
      PlanarCatalogHost *host = g_ptr_array_index (session->hosts, i);

      if (host->supported && (hosts == NULL || hosts[0] == NULL || g_strv_contains (hosts, host->name)))
        g_strv_builder_add (builder, host->name);
    }
  return g_strv_builder_end (builder);
}

GStrv
_planar_window_dup_host_paths (PlanarCatalogSession *session,
                               const char * const   *chosen)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; chosen[i] != NULL; i++)
    for (guint h = 0; h < session->hosts->len; h++)
      {
        PlanarCatalogHost *host = g_ptr_array_index (session->hosts, h);

        if (host->supported && strcmp (host->name, chosen[i]) == 0)
          g_strv_builder_add (builder, host->path);
      }
  return g_strv_builder_end (builder);
}

guint
_planar_window_lazy_hosts_threshold (void)
{
  const char *env = g_getenv ("PLANAR_LAZY_HOSTS");

  return env != NULL ? (guint) g_ascii_strtoull (env, NULL, 10) : PLANAR_PROFILE_LAZY_HOSTS;
}

/* ------------------------------------------------------------------------
 * Finding the sessions under a path
 * ------------------------------------------------------------------------ */

typedef struct
{
  char            *path;
  PlanarEarlyLoad *early_load;
} Discovery;

static void
discovery_free (gpointer data)
{
  Discovery *discovery = data;

  g_free (discovery->path);
  g_clear_pointer (&discovery->early_load, _planar_early_load_unref);
  g_free (discovery);
}

static void
discover_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  Discovery *discovery = task_data;
  GError *error = NULL;
  PlanarCatalogResolution *result = NULL;

  /* What the early load found; when it found nothing, the path is read
   * again here and its error said as always. */
  if (discovery->early_load != NULL)
    result = _planar_early_load_take_resolution (discovery->early_load, cancellable);
  if (result == NULL)
    result = planar_catalog_resolve (discovery->path, cancellable, &error);

  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) planar_catalog_resolution_free);
}

void
_planar_window_discover_async (PlanarWindow        *self,
                               const char          *path,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback)
{
  g_autoptr(GTask) task = NULL;
  GtkApplication *application = gtk_window_get_application (GTK_WINDOW (self));
  Discovery *discovery = g_new0 (Discovery, 1);

  discovery->path = g_strdup (path);
  g_clear_pointer (&self->early_load, _planar_early_load_drop);
  if (application != NULL)
    self->early_load = _planar_application_claim_early_load (PLANAR_APPLICATION (application), path);
  if (self->early_load != NULL)
    discovery->early_load = _planar_early_load_ref (self->early_load);

  task = g_task_new (self, cancellable, callback, NULL);
  g_task_set_source_tag (task, _planar_window_discover_async);
  g_task_set_task_data (task, discovery, discovery_free);
  g_task_run_in_thread (task, discover_thread);
}

PlanarCatalogResolution *
_planar_window_discover_finish (PlanarWindow  *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ------------------------------------------------------------------------
 * Watching the runs for new sessions
 * ------------------------------------------------------------------------ */

static gboolean
rescan_timeout (gpointer data)
{
  PlanarWindow *self = data;

  self->rescan_source = 0;
  _planar_window_rescan (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_rescan (PlanarWindow *self)
{
  g_clear_handle_id (&self->rescan_source, g_source_remove);
  self->rescan_source = g_timeout_add (RESCAN_DELAY_MS, rescan_timeout, self);
}

static void watch_folder (PlanarWindow *self,
                          GHashTable   *monitors,
                          const char   *path);

static gboolean
is_monitor (gpointer key,
            gpointer value,
            gpointer user_data)
{
  return value == user_data;
}

static void
folder_changed (GFileMonitor      *monitor,
                GFile             *file,
                GFile             *other_file,
                GFileMonitorEvent  event,
                PlanarWindow      *self)
{
  switch (event)
    {
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_RENAMED:
      /* A capture makes the session folder before it writes a host file
       * in it: the new folder is watched until it holds one. */
      if (g_hash_table_find (self->run_monitors, is_monitor, monitor) != NULL)
        {
          GFile *created = event == G_FILE_MONITOR_EVENT_RENAMED ? other_file : file;

          if (created != NULL &&
              g_file_query_file_type (created, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
            watch_folder (self, self->pending_monitors, g_file_peek_path (created));
        }
      schedule_rescan (self);
      break;

    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
      schedule_rescan (self);
      break;

    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
    case G_FILE_MONITOR_EVENT_MOVED:
    default:
      break;
    }
}

static void
monitor_free (gpointer data)
{
  GFileMonitor *monitor = data;

  g_file_monitor_cancel (monitor);
  g_object_unref (monitor);
}

static void
watch_folder (PlanarWindow *self,
              GHashTable   *monitors,
              const char   *path)
{
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GError) error = NULL;
  GFileMonitor *monitor;

  if (path == NULL || g_hash_table_contains (monitors, path))
    return;
  folder = g_file_new_for_path (path);
  monitor = g_file_monitor_directory (folder, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (monitor == NULL)
    {
      /* New sessions then appear on Reload only. */
      g_debug ("Not watching %s for new sessions: %s", path, error->message);
      return;
    }
  g_signal_connect (monitor, "changed", G_CALLBACK (folder_changed), self);
  g_hash_table_insert (monitors, g_strdup (path), monitor);
}

/* Only the folders under what was opened are watched: a session folder
 * opened from somewhere else has no run to watch, and its parent may be any
 * busy folder. */
void
_planar_window_watch_runs (PlanarWindow *self)
{
  g_autoptr(GFile) root = g_file_new_for_path (self->catalog_root);
  g_autoptr(GHashTable) wanted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer key;

  for (guint r = 0; r < self->catalog->runs->len; r++)
    {
      PlanarCatalogRun *run = g_ptr_array_index (self->catalog->runs, r);
      PlanarCatalogSession *session;
      g_autoptr(GFile) session_folder = NULL;
      g_autoptr(GFile) sessions_folder = NULL;

      if (run->sessions->len == 0)
        continue;
      session = g_ptr_array_index (run->sessions, 0);
      session_folder = g_file_new_for_path (session->path);
      sessions_folder = g_file_get_parent (session_folder);
      if (sessions_folder == NULL ||
          !(g_file_equal (sessions_folder, root) || g_file_has_prefix (sessions_folder, root)))
        continue;
      g_hash_table_add (wanted, g_file_get_path (sessions_folder));
    }

  g_hash_table_iter_init (&iter, self->run_monitors);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (wanted, key))
      g_hash_table_iter_remove (&iter);
  g_hash_table_iter_init (&iter, wanted);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    watch_folder (self, self->run_monitors, key);

  /* A new folder that now holds a host file is a session like the others. */
  g_hash_table_iter_init (&iter, self->pending_monitors);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    for (guint r = 0; r < self->catalog->runs->len; r++)
      {
        PlanarCatalogRun *run = g_ptr_array_index (self->catalog->runs, r);
        gboolean found = FALSE;

        for (guint s = 0; s < run->sessions->len && !found; s++)
          found = g_strcmp0 (((PlanarCatalogSession *) g_ptr_array_index (run->sessions, s))->path, key) == 0;
        if (found)
          {
            g_hash_table_iter_remove (&iter);
            break;
          }
      }
}

static void
rescan_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;
  PlanarCatalog *catalog = planar_catalog_discover (task_data, cancellable, &error);

  if (catalog == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, catalog, (GDestroyNotify) planar_catalog_free);
}

static void
rescan_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  PlanarWindow *self = PLANAR_WINDOW (source);
  g_autoptr(GError) error = NULL;
  PlanarCatalog *catalog = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_task_get_cancellable (G_TASK (result)) != self->rescan_cancellable || self->catalog == NULL)
    {
      g_clear_pointer (&catalog, planar_catalog_free);
      return;
    }
  g_clear_object (&self->rescan_cancellable);
  if (catalog == NULL)
    {
      /* The folder went away or cannot be read now; what is shown stays
       * as it is, and the next change tries again. */
      g_debug ("Could not read %s again: %s", self->catalog_root, error->message);
      return;
    }
  _planar_window_replace_catalog (self, catalog);
}

void
_planar_window_rescan (PlanarWindow *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->catalog_root == NULL)
    return;
  g_cancellable_cancel (self->rescan_cancellable);
  g_clear_object (&self->rescan_cancellable);
  self->rescan_cancellable = g_cancellable_new ();

  task = g_task_new (self, self->rescan_cancellable, rescan_done, NULL);
  g_task_set_source_tag (task, _planar_window_rescan);
  g_task_set_task_data (task, g_strdup (self->catalog_root), g_free);
  g_task_run_in_thread (task, rescan_thread);
}

GHashTable *
_planar_window_monitors_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, monitor_free);
}
