/* planar-cache.h: the cached index of a profile.
 *
 * After a profile is decoded, its index (tracks with their events, depths
 * and self times, the derived lines and their metadata, the derived event
 * sources and the flow index) is written to the cache folder; the next
 * time the same file is opened it is read back instead of being decoded
 * and derived again. See docs/loader.md, "The cached index".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "planar-trace.h"

G_BEGIN_DECLS

/* The folder: @dir, or (NULL) $PLANAR_CACHE_DIR, else
 * $XDG_CACHE_HOME/planar. Returns: (transfer full). */
void     planar_cache_set_dir      (const char *dir);
char    *planar_cache_get_dir      (void);
/* Off with $PLANAR_CACHE=0, or this. */
void     planar_cache_set_enabled  (gboolean    enabled);
gboolean planar_cache_get_enabled  (void);
/* The folder's size cap: past it, the least recently used files go.
 * Default 8 GiB. An index that would not fit is not written. */
void     planar_cache_set_limit    (guint64     bytes);
guint64  planar_cache_get_limit    (void);
/* The cache file for a profile file (it may not exist). Returns: (transfer full). */
char    *planar_cache_get_path     (const char *source_path);
/* Waits until the cached indexes being written are written. */
void     planar_cache_wait         (void);
/* Stops the writes under way (nothing half-written is left) and waits
 * for them: quitting need not wait for a big index. */
void     planar_cache_cancel       (void);

G_END_DECLS
