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

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarCatalog, planar_catalog_free)

G_END_DECLS
