/* planar-catalog.c: finds the runs, sessions and hosts under a path.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-catalog.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "planar-error.h"

/* How many folders below the root a log directory is searched. XProf walks
 * without a bound, but a viewer pointed at a home folder by mistake must
 * answer quickly, and TensorBoard runs are rarely nested more than a few
 * levels deep. The root is depth 0; a `profile` folder is still recognised at
 * this depth, so a run may sit up to MAX_DEPTH - 2 levels below the root. */
#define MAX_DEPTH 10

#define LIST_ATTRIBUTES \
  G_FILE_ATTRIBUTE_STANDARD_NAME "," \
  G_FILE_ATTRIBUTE_STANDARD_TYPE "," \
  G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK "," \
  G_FILE_ATTRIBUTE_STANDARD_SIZE

/* The host files XProf recognises (SessionSnapshot::GetHostnameByPath). */
static const struct
{
  const char *suffix;
  gboolean    supported;
} host_suffixes[] = {
  { ".xplane.pb", TRUE },
  /* Listed so that the user learns why a session looks empty; reading it
   * needs a Riegeli reader and brotli. */
  { ".xplane.riegeli", FALSE },
  /* Chrome Trace Event JSON (planar-import.h): PyTorch/Kineto's
   * *.pt.trace.json(.gz), the TSL export JAX writes beside its xplanes,
   * any other trace. Longer suffixes first: the rest is the host name. */
  { ".pt.trace.json.gz", TRUE },
  { ".pt.trace.json", TRUE },
  { ".trace.json.gz", TRUE },
  { ".trace.json", TRUE },
  { ".json.gz", TRUE },
  { ".json", TRUE },
};

static gboolean
is_json_name (const char *name)
{
  return g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz");
}

static void
host_free (PlanarCatalogHost *host)
{
  if (host == NULL)
    return;
  g_free (host->name);
  g_free (host->path);
  g_free (host);
}

static void
session_free (PlanarCatalogSession *session)
{
  if (session == NULL)
    return;
  g_free (session->name);
  g_free (session->path);
  g_clear_pointer (&session->hosts, g_ptr_array_unref);
  g_free (session);
}

static void
run_free (PlanarCatalogRun *run)
{
  if (run == NULL)
    return;
  g_free (run->name);
  g_free (run->path);
  g_clear_pointer (&run->sessions, g_ptr_array_unref);
  g_free (run);
}

static int
compare_hosts (gconstpointer a,
               gconstpointer b)
{
  const PlanarCatalogHost *host_a = *(PlanarCatalogHost * const *) a;
  const PlanarCatalogHost *host_b = *(PlanarCatalogHost * const *) b;
  int cmp = strcmp (host_a->name, host_b->name);

  /* "h.xplane.pb" and "h.xplane.riegeli" share a name; keep their order
   * independent of the order the folder was listed in. */
  return cmp != 0 ? cmp : strcmp (host_a->path, host_b->path);
}

/* Newest first: session names are timestamps, so the greatest is the latest. */
static int
compare_sessions_newest_first (gconstpointer a,
                               gconstpointer b)
{
  const PlanarCatalogSession *session_a = *(PlanarCatalogSession * const *) a;
  const PlanarCatalogSession *session_b = *(PlanarCatalogSession * const *) b;

  return strcmp (session_b->name, session_a->name);
}

static int
compare_runs (gconstpointer a,
              gconstpointer b)
{
  const PlanarCatalogRun *run_a = *(PlanarCatalogRun * const *) a;
  const PlanarCatalogRun *run_b = *(PlanarCatalogRun * const *) b;

  return strcmp (run_a->name, run_b->name);
}

/* Temp files of an interrupted write (".host.xplane.pb.XXXXXX" from
 * g_file_set_contents, ".name.XXXXXX" from others) and tool folders such as
 * .git are never XProf's output, and a half-written file must not be
 * offered as a profile. */
static gboolean
is_hidden_name (const char *name)
{
  return name[0] == '.';
}

static gboolean
file_has_name (GFile      *file,
               const char *name)
{
  g_autofree char *basename = NULL;

  if (file == NULL)
    return FALSE;
  basename = g_file_get_basename (file);
  return g_strcmp0 (basename, name) == 0;
}

/* Returns TRUE when @file_name names an XPlane file; the host part is its
 * first @host_len bytes. */
static gboolean
parse_host_file_name (const char *file_name,
                      gsize      *host_len,
                      gboolean   *supported)
{
  gsize len = strlen (file_name);

  for (guint i = 0; i < G_N_ELEMENTS (host_suffixes); i++)
    {
      gsize suffix_len = strlen (host_suffixes[i].suffix);

      if (len > suffix_len && g_str_has_suffix (file_name, host_suffixes[i].suffix))
        {
          *host_len = len - suffix_len;
          *supported = host_suffixes[i].supported;
          return TRUE;
        }
    }
  return FALSE;
}

static PlanarCatalogHost *
host_new (char     *name,
          GFile    *file,
          gboolean  supported,
          guint64   size)
{
  PlanarCatalogHost *host = g_new0 (PlanarCatalogHost, 1);

  host->name = name;
  host->path = g_file_get_path (file);
  host->supported = supported;
  host->size = size;
  return host;
}

static PlanarCatalogSession *
session_new (GFile     *folder,
             GPtrArray *hosts)
{
  PlanarCatalogSession *session = g_new0 (PlanarCatalogSession, 1);

  g_ptr_array_sort (hosts, compare_hosts);
  session->name = g_file_get_basename (folder);
  session->path = g_file_get_path (folder);
  session->hosts = g_ptr_array_ref (hosts);
  return session;
}

/* The TensorBoard run is the grandparent of `plugins/profile`; sessions kept
 * anywhere else (XProf's run_path and session_path inputs) belong to the
 * folder that holds them. Returns: (transfer full). */
static GFile *
run_folder_for (GFile *sessions_parent)
{
  g_autoptr(GFile) plugins = g_file_get_parent (sessions_parent);

  if (file_has_name (sessions_parent, "profile") && file_has_name (plugins, "plugins"))
    {
      GFile *run = g_file_get_parent (plugins);

      if (run != NULL)
        return run;
    }
  return g_object_ref (sessions_parent);
}

/* The run's name as XProf's run list gives it: its path relative to the
 * root, or "." for the root itself and for a run the root lies inside (the
 * user opened its `plugins/profile` folder or one session). */
static char *
run_name_for (GFile *root,
              GFile *run_folder)
{
  char *relative = g_file_get_relative_path (root, run_folder);

  return relative != NULL ? relative : g_strdup (".");
}

static void
add_run (GPtrArray *runs,
         char      *name,
         GFile     *run_folder,
         GPtrArray *sessions)
{
  PlanarCatalogRun *run;

  if (sessions->len == 0)
    {
      g_free (name);
      return;
    }

  g_ptr_array_sort (sessions, compare_sessions_newest_first);
  run = g_new0 (PlanarCatalogRun, 1);
  run->name = name;
  run->path = g_file_get_path (run_folder);
  run->sessions = g_ptr_array_ref (sessions);
  g_ptr_array_add (runs, run);
}

/* Returns: (transfer full): the folder's entries as GFileInfo, following
 * symbolic links (G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK still says which
 * entries are links). */
static GPtrArray *
list_folder (GFile         *folder,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autoptr(GFileEnumerator) enumerator = NULL;
  g_autoptr(GPtrArray) infos = g_ptr_array_new_with_free_func (g_object_unref);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  enumerator = g_file_enumerate_children (folder, LIST_ATTRIBUTES, G_FILE_QUERY_INFO_NONE,
                                          cancellable, error);
  if (enumerator == NULL)
    return NULL;

  for (;;)
    {
      g_autoptr(GError) local_error = NULL;
      GFileInfo *info = g_file_enumerator_next_file (enumerator, cancellable, &local_error);

      if (info == NULL)
        {
          if (local_error != NULL)
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              return NULL;
            }
          break;
        }
      g_ptr_array_add (infos, info);
    }

  return g_steal_pointer (&infos);
}

/* Lists a folder below the root. A log directory may hold folders Planar may
 * not read, or that vanish while it is searched (a capture renaming its temp
 * folder); the profile is not in those, so they are passed over (*@infos is
 * %NULL and %TRUE is returned) rather than failing the whole search. */
static gboolean
list_subfolder (GFile         *folder,
                GPtrArray    **infos,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(GError) local_error = NULL;

  *infos = list_folder (folder, cancellable, &local_error);
  if (*infos != NULL)
    return TRUE;

  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
      g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED) ||
      g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY))
    return TRUE;

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/* Returns: (transfer full) (nullable): the session in @folder, whose entries
 * are @infos, or %NULL when it holds no host file. */
static PlanarCatalogSession *
session_new_from_listing (GFile     *folder,
                          GPtrArray *infos)
{
  g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func ((GDestroyNotify) host_free);

  for (guint i = 0; i < infos->len; i++)
    {
      GFileInfo *info = g_ptr_array_index (infos, i);
      const char *name = g_file_info_get_name (info);
      g_autoptr(GFile) child = NULL;
      gsize host_len;
      gboolean supported;

      if (is_hidden_name (name) || g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
        continue;
      if (!parse_host_file_name (name, &host_len, &supported))
        continue;

      child = g_file_get_child (folder, name);
      g_ptr_array_add (hosts, host_new (g_strndup (name, host_len), child, supported,
                                        (guint64) g_file_info_get_size (info)));
    }

  /* JAX writes <host>.trace.json.gz beside <host>.xplane.pb: the same
   * events, fewer of them. A session with xplanes shows those only. */
  for (guint i = 0; i < hosts->len; i++)
    if (!is_json_name (((PlanarCatalogHost *) g_ptr_array_index (hosts, i))->path))
      {
        for (guint j = hosts->len; j-- > 0;)
          if (is_json_name (((PlanarCatalogHost *) g_ptr_array_index (hosts, j))->path))
            g_ptr_array_remove_index (hosts, j);
        break;
      }

  if (hosts->len == 0)
    return NULL;
  return session_new (folder, hosts);
}

/* Adds to @sessions every sub-folder of @folder (entries @infos) that holds
 * host files. */
static gboolean
scan_sessions (GFile         *folder,
               GPtrArray     *infos,
               GPtrArray     *sessions,
               GCancellable  *cancellable,
               GError       **error)
{
  for (guint i = 0; i < infos->len; i++)
    {
      GFileInfo *info = g_ptr_array_index (infos, i);
      const char *name = g_file_info_get_name (info);
      g_autoptr(GFile) child = NULL;
      g_autoptr(GPtrArray) child_infos = NULL;
      PlanarCatalogSession *session;

      if (is_hidden_name (name) || g_file_info_get_file_type (info) != G_FILE_TYPE_DIRECTORY)
        continue;

      child = g_file_get_child (folder, name);
      if (!list_subfolder (child, &child_infos, cancellable, error))
        return FALSE;
      if (child_infos == NULL)
        continue;

      session = session_new_from_listing (child, child_infos);
      if (session != NULL)
        g_ptr_array_add (sessions, session);
    }

  return TRUE;
}

/* XProf's generate_runs: every folder named `profile` whose parent is named
 * `plugins` makes its grandparent a run. Symbolic links to folders are not
 * followed, as in XProf's walk, so that a link back up the tree cannot loop. */
static gboolean
walk_log_directory (GFile         *root,
                    GFile         *folder,
                    GPtrArray     *infos,
                    const char    *parent_name,
                    guint          depth,
                    GPtrArray     *runs,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autofree char *name = g_file_get_basename (folder);

  if (g_strcmp0 (name, "profile") == 0 && g_strcmp0 (parent_name, "plugins") == 0)
    {
      g_autoptr(GPtrArray) sessions = NULL;
      g_autoptr(GFile) run_folder = run_folder_for (folder);

      sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) session_free);

      if (!scan_sessions (folder, infos, sessions, cancellable, error))
        return FALSE;
      add_run (runs, run_name_for (root, run_folder), run_folder, sessions);
      /* Below this folder are sessions and host files, not further runs. */
      return TRUE;
    }

  if (depth >= MAX_DEPTH)
    return TRUE;

  for (guint i = 0; i < infos->len; i++)
    {
      GFileInfo *info = g_ptr_array_index (infos, i);
      const char *child_name = g_file_info_get_name (info);
      g_autoptr(GFile) child = NULL;
      g_autoptr(GPtrArray) child_infos = NULL;

      if (is_hidden_name (child_name) ||
          g_file_info_get_file_type (info) != G_FILE_TYPE_DIRECTORY ||
          g_file_info_get_is_symlink (info))
        continue;
      /* On the last level only a `plugins/profile` folder is worth reading. */
      if (depth + 1 == MAX_DEPTH &&
          (strcmp (name, "plugins") != 0 || strcmp (child_name, "profile") != 0))
        continue;

      child = g_file_get_child (folder, child_name);
      if (!list_subfolder (child, &child_infos, cancellable, error))
        return FALSE;
      if (child_infos == NULL)
        continue;

      if (!walk_log_directory (root, child, child_infos, name, depth + 1, runs,
                               cancellable, error))
        return FALSE;
    }

  return TRUE;
}

/* A file given directly is one host even when it is not named *.xplane.pb:
 * users rename profiles they pass around. */
static void
discover_file (PlanarCatalog *self,
               GFile         *file,
               GFileInfo     *info)
{
  g_autofree char *basename = g_file_get_basename (file);
  g_autoptr(GFile) folder = g_file_get_parent (file);
  g_autoptr(GFile) sessions_parent = NULL;
  g_autoptr(GFile) run_folder = NULL;
  g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func ((GDestroyNotify) host_free);
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) session_free);
  gsize host_len = strlen (basename);
  gboolean supported = TRUE;

  /* A regular file always has a parent folder. */
  g_assert (folder != NULL);

  parse_host_file_name (basename, &host_len, &supported);
  g_ptr_array_add (hosts, host_new (g_strndup (basename, host_len), file, supported,
                                    (guint64) g_file_info_get_size (info)));
  g_ptr_array_add (sessions, session_new (folder, hosts));

  sessions_parent = g_file_get_parent (folder);
  run_folder = run_folder_for (sessions_parent != NULL ? sessions_parent : folder);
  add_run (self->runs, g_strdup ("."), run_folder, sessions);
}

static gboolean
discover_folder (PlanarCatalog  *self,
                 GFile          *folder,
                 GCancellable   *cancellable,
                 GError        **error)
{
  g_autoptr(GPtrArray) infos = NULL;
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) session_free);
  g_autoptr(GFile) parent = g_file_get_parent (folder);
  g_autoptr(GFile) run_folder = NULL;
  g_autofree char *parent_name = NULL;
  PlanarCatalogSession *session;

  infos = list_folder (folder, cancellable, error);
  if (infos == NULL)
    return FALSE;

  /* A session folder (XProf's session_path): host files right here. */
  session = session_new_from_listing (folder, infos);
  if (session != NULL)
    {
      g_ptr_array_add (sessions, session);
      run_folder = run_folder_for (parent != NULL ? parent : folder);
      add_run (self->runs, g_strdup ("."), run_folder, sessions);
      return TRUE;
    }

  /* A log directory, a run or a `plugins/profile` folder. */
  if (parent != NULL)
    parent_name = g_file_get_basename (parent);
  if (!walk_log_directory (folder, folder, infos, parent_name, 0, self->runs,
                           cancellable, error))
    return FALSE;
  if (self->runs->len > 0)
    return TRUE;

  /* XProf's run_path: sub-folders holding host files are the sessions. */
  if (!scan_sessions (folder, infos, sessions, cancellable, error))
    return FALSE;
  run_folder = run_folder_for (folder);
  add_run (self->runs, g_strdup ("."), run_folder, sessions);
  return TRUE;
}

/**
 * planar_catalog_discover:
 * @path: a log directory, run, `plugins/profile` folder, session folder or
 *   host file
 * @cancellable: (nullable): checked between folder reads
 * @error: return location for a #GError
 *
 * Lists the profiles under @path without reading them. Folders below @path
 * that cannot be read are passed over; @path itself must be readable.
 */
PlanarCatalog *
planar_catalog_discover (const char    *path,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(PlanarCatalog) self = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  file = g_file_new_for_path (path);
  info = g_file_query_info (file,
                            G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, cancellable, &local_error);
  if (info == NULL)
    {
      /* One error code for "nothing to open here", whatever the reason. */
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND,
                     _("No such file or folder: %s"), path);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  self = g_new0 (PlanarCatalog, 1);
  self->root = g_file_get_path (file);
  self->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) run_free);

  switch (g_file_info_get_file_type (info))
    {
    case G_FILE_TYPE_REGULAR:
      discover_file (self, file, info);
      break;

    case G_FILE_TYPE_DIRECTORY:
      if (!discover_folder (self, file, cancellable, error))
        return NULL;
      break;

    default:
      /* A device, pipe or dangling link holds no profile. */
      break;
    }

  if (self->runs->len == 0)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND,
                   _("No profile (*.xplane.pb) found under %s"), path);
      return NULL;
    }

  g_ptr_array_sort (self->runs, compare_runs);
  return g_steal_pointer (&self);
}

void
planar_catalog_free (PlanarCatalog *self)
{
  if (self == NULL)
    return;
  g_free (self->root);
  g_clear_pointer (&self->runs, g_ptr_array_unref);
  g_free (self);
}

static PlanarCatalogRun *
find_run (PlanarCatalog *self,
          const char    *name)
{
  for (guint i = 0; i < self->runs->len; i++)
    {
      PlanarCatalogRun *run = g_ptr_array_index (self->runs, i);

      if (strcmp (run->name, name) == 0)
        return run;
    }
  return NULL;
}

static PlanarCatalogSession *
find_session_in_run (PlanarCatalogRun *run,
                     const char       *name)
{
  if (run == NULL)
    return NULL;

  for (guint i = 0; i < run->sessions->len; i++)
    {
      PlanarCatalogSession *session = g_ptr_array_index (run->sessions, i);

      if (strcmp (session->name, name) == 0)
        return session;
    }
  return NULL;
}

/**
 * planar_catalog_find_session:
 *
 * With @name %NULL, ties between runs holding sessions of the same (newest)
 * name go to the run whose name sorts first, so the root run "." wins. A bare
 * session name matches the root run's session, or else the one session of
 * that name in any run; when several runs have it, nothing matches.
 */
PlanarCatalogSession *
planar_catalog_find_session (PlanarCatalog *self,
                             const char    *name)
{
  PlanarCatalogSession *found = NULL;
  const char *slash;

  g_return_val_if_fail (self != NULL, NULL);

  if (name == NULL)
    {
      for (guint i = 0; i < self->runs->len; i++)
        {
          PlanarCatalogRun *run = g_ptr_array_index (self->runs, i);
          PlanarCatalogSession *newest;

          if (run->sessions->len == 0)
            continue;
          newest = g_ptr_array_index (run->sessions, 0);
          if (found == NULL || strcmp (newest->name, found->name) > 0)
            found = newest;
        }
      return found;
    }

  /* Session names never hold a '/', run names may ("eval/deep"). */
  slash = strrchr (name, '/');
  if (slash != NULL)
    {
      g_autofree char *run_name = g_strndup (name, (gsize) (slash - name));

      return find_session_in_run (find_run (self, run_name), slash + 1);
    }

  /* XProf lists the root run's sessions by their bare name. */
  found = find_session_in_run (find_run (self, "."), name);
  if (found != NULL)
    return found;

  for (guint i = 0; i < self->runs->len; i++)
    {
      PlanarCatalogSession *session = find_session_in_run (g_ptr_array_index (self->runs, i),
                                                           name);

      if (session == NULL)
        continue;
      if (found != NULL)
        return NULL;
      found = session;
    }
  return found;
}

guint
planar_catalog_get_n_sessions (PlanarCatalog *self)
{
  guint n_sessions = 0;

  g_return_val_if_fail (self != NULL, 0);

  for (guint i = 0; i < self->runs->len; i++)
    {
      PlanarCatalogRun *run = g_ptr_array_index (self->runs, i);

      n_sessions += run->sessions->len;
    }
  return n_sessions;
}

GStrv
planar_catalog_session_dup_paths (PlanarCatalogSession *session)
{
  g_autoptr(GStrvBuilder) builder = NULL;

  g_return_val_if_fail (session != NULL, NULL);

  builder = g_strv_builder_new ();
  for (guint i = 0; i < session->hosts->len; i++)
    {
      PlanarCatalogHost *host = g_ptr_array_index (session->hosts, i);

      if (host->supported)
        g_strv_builder_add (builder, host->path);
    }
  return g_strv_builder_end (builder);
}

char *
planar_catalog_dup_session_key (const PlanarCatalogRun     *run,
                                const PlanarCatalogSession *session)
{
  g_return_val_if_fail (run != NULL, NULL);
  g_return_val_if_fail (session != NULL, NULL);

  if (strcmp (run->name, ".") == 0)
    return g_strdup (session->name);
  return g_strdup_printf ("%s/%s", run->name, session->name);
}

/* ------------------------------------------------------------------------
 * Resolving what a user opened
 * ------------------------------------------------------------------------ */

void
planar_catalog_resolution_free (PlanarCatalogResolution *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->catalog, planar_catalog_free);
  g_free (self->root);
  g_free (self->session);
  g_strfreev (self->hosts);
  g_free (self);
}

/* A session folder, or a file in one, opened from a run's `plugins/profile`
 * folder is shown with the other sessions of the run. Returns TRUE and
 * fills @result from the run's catalog when that works; FALSE leaves it as
 * it was (and is no error: the path is then shown alone). */
static gboolean
widen_to_run (const char              *path,
              gboolean                 is_file,
              PlanarCatalogResolution *result,
              GCancellable            *cancellable)
{
  PlanarCatalogSession *session = planar_catalog_find_session (result->catalog, NULL);
  g_autoptr(GFile) opened = g_file_new_for_path (path);
  g_autoptr(GFile) session_folder = NULL;
  g_autoptr(GFile) profile = NULL;
  g_autoptr(GFile) plugins = NULL;
  g_autoptr(PlanarCatalog) run = NULL;
  g_autofree char *run_root = NULL;
  PlanarCatalogSession *same;
  const char *host_name = NULL;

  if (session == NULL || planar_catalog_get_n_sessions (result->catalog) != 1)
    return FALSE;
  session_folder = g_file_new_for_path (session->path);
  profile = g_file_get_parent (session_folder);
  plugins = profile != NULL ? g_file_get_parent (profile) : NULL;
  if (!file_has_name (profile, "profile") || !file_has_name (plugins, "plugins"))
    return FALSE;

  run_root = g_file_get_path (profile);
  run = planar_catalog_discover (run_root, cancellable, NULL);
  if (run == NULL)
    return FALSE;
  same = planar_catalog_find_session (run, session->name);
  if (same == NULL || g_strcmp0 (same->path, session->path) != 0)
    return FALSE;

  /* A file opened alone shows its host alone; the others are a tick away. */
  if (is_file)
    {
      for (guint i = 0; i < same->hosts->len && host_name == NULL; i++)
        {
          PlanarCatalogHost *host = g_ptr_array_index (same->hosts, i);
          g_autoptr(GFile) host_file = g_file_new_for_path (host->path);

          if (host->supported && g_file_equal (host_file, opened))
            host_name = host->name;
        }
      /* A file the run does not list (a renamed profile) is opened alone. */
      if (host_name == NULL)
        return FALSE;
      result->hosts = g_strdupv ((GStrv) (const char * const[]) { host_name, NULL });
    }

  result->session = g_strdup (same->name);
  g_clear_pointer (&result->catalog, planar_catalog_free);
  result->catalog = g_steal_pointer (&run);
  g_free (result->root);
  result->root = g_steal_pointer (&run_root);
  return TRUE;
}

PlanarCatalogResolution *
planar_catalog_resolve (const char    *path,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(PlanarCatalogResolution) result = NULL;
  PlanarCatalogSession *newest;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  result = g_new0 (PlanarCatalogResolution, 1);
  result->catalog = planar_catalog_discover (path, cancellable, error);
  if (result->catalog == NULL)
    return NULL;
  result->root = g_strdup (result->catalog->root);
  if (widen_to_run (path, g_file_test (path, G_FILE_TEST_IS_REGULAR), result, cancellable))
    return g_steal_pointer (&result);
  /* The run's read may have met the cancel: no half answer then. */
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  newest = planar_catalog_find_session (result->catalog, NULL);
  for (guint r = 0; r < result->catalog->runs->len && result->session == NULL; r++)
    {
      PlanarCatalogRun *run = g_ptr_array_index (result->catalog->runs, r);

      for (guint s = 0; s < run->sessions->len; s++)
        if (g_ptr_array_index (run->sessions, s) == newest)
          {
            result->session = planar_catalog_dup_session_key (run, newest);
            break;
          }
    }
  return g_steal_pointer (&result);
}
