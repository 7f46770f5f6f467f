/* planar-catalog.h: finds the runs, sessions and hosts under a path.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The layout read is XProf's:
 *   <logdir>/[<run>/…/]plugins/profile/<session>/<host>.xplane.pb
 * A path may name a log directory, a run, a `plugins/profile` folder, a
 * session folder or one `.xplane.pb` file. */

typedef struct
{
  /* The file's base name less ".xplane.pb" (or ".xplane.riegeli"). */
  char     *name;
  char     *path;
  /* FALSE for formats Planar lists but cannot read yet (.xplane.riegeli). */
  gboolean  supported;
  guint64   size;
} PlanarCatalogHost;

typedef struct
{
  /* The session folder's name, usually a YYYY_MM_DD_HH_MM_SS timestamp. */
  char      *name;
  char      *path;
  /* PlanarCatalogHost, sorted by name; supported and unsupported alike. */
  GPtrArray *hosts;
} PlanarCatalogSession;

typedef struct
{
  /* Relative path of the run from the root ("." for the root itself). */
  char      *name;
  char      *path;
  /* PlanarCatalogSession, newest (greatest name) first. */
  GPtrArray *sessions;
} PlanarCatalogRun;

typedef struct
{
  char      *root;
  /* PlanarCatalogRun, sorted by name. */
  GPtrArray *runs;
} PlanarCatalog;

/* Returns: (transfer full): the catalog, or %NULL with @error set
 * (PLANAR_TRACE_ERROR_NOT_FOUND when the path holds no profile). */
PlanarCatalog        *planar_catalog_discover     (const char     *path,
                                                   GCancellable   *cancellable,
                                                   GError        **error);
void                  planar_catalog_free         (PlanarCatalog  *self);
/* The session named @name ("<run>/<session>" or "<session>"), or the newest
 * of all runs when @name is %NULL. Returns: (transfer none) (nullable). */
PlanarCatalogSession *planar_catalog_find_session (PlanarCatalog  *self,
                                                   const char     *name);
/* Number of sessions over all runs. */
guint                 planar_catalog_get_n_sessions (PlanarCatalog *self);
/* The paths of the session's supported hosts. Returns: (transfer full). */
GStrv                 planar_catalog_session_dup_paths (PlanarCatalogSession *session);
/* The key planar_catalog_find_session() finds @session of @run by:
 * "<session>" in the root run ".", "<run>/<session>" elsewhere.
 * Returns: (transfer full). */
char                 *planar_catalog_dup_session_key (const PlanarCatalogRun     *run,
                                                      const PlanarCatalogSession *session);

/* What opening a path shows (planar_catalog_resolve()). */
typedef struct
{
  /* The sessions to list: those under the path, or those of the run it
   * lies in. */
  PlanarCatalog  *catalog;
  /* The folder @catalog was read from, to read again and watch: the path
   * opened, or the run's `plugins/profile` folder above it. */
  char           *root;
  /* The session to select first: its planar_catalog_find_session() key. */
  char           *session;
  /* The hosts of @session to open (PlanarCatalogHost.name), or %NULL for
   * all of them: a host file opened alone shows its host alone. */
  GStrv           hosts;
} PlanarCatalogResolution;

/* Resolves any path a user opens into what to list and what to select:
 * - a log directory, a run, a folder of sessions or a `plugins/profile`
 *   folder: the sessions under it, the newest selected;
 * - a session folder, or a file in one, that lies in a run's
 *   `<run>/plugins/profile` folder: every session of that run, this one
 *   selected (and, for a file, its host alone);
 * - a session folder elsewhere: that session; any other file: that file
 *   alone, as one host (users rename profiles they pass around).
 * A path is taken where it is: a symbolic link is followed for what it
 * holds, not for where it points. Blocks on the file system (run it in a
 * worker); any thread. Returns: (transfer full): %NULL with @error set:
 * %PLANAR_TRACE_ERROR_NOT_FOUND when @path names nothing or holds no
 * profile, the %G_IO_ERROR of a folder that cannot be read,
 * %G_IO_ERROR_CANCELLED. */
PlanarCatalogResolution *planar_catalog_resolve          (const char               *path,
                                                          GCancellable             *cancellable,
                                                          GError                  **error);
void                     planar_catalog_resolution_free  (PlanarCatalogResolution  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarCatalog, planar_catalog_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarCatalogResolution, planar_catalog_resolution_free)

G_END_DECLS
