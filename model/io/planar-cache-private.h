/* planar-cache-private.h: what the loader, the tests and the benchmarks
 * call of the cached index; planar-cache.h is its public API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-cache.h"

G_BEGIN_DECLS

/* The loader's side. Restores @self from its cache file when it has a
 * sound one for the file's present content (*@restored set: the trace is
 * decoded); the planes a window shows first may be decoded from the file
 * first. Otherwise leaves @self as planar_trace_open() made it (a cache
 * file that is stale or damaged is removed; a cache path that is not a
 * regular file is not opened), or, when it had decoded planes already,
 * with every line decoded (*@lines_decoded set: the load goes on with
 * deriving). Returns FALSE with @error when the load must fail:
 * cancelled, the file changed while it was read, or tracks already
 * published and the index failing after them (the entry is then
 * removed). */
gboolean _planar_cache_try_restore   (PlanarTrace   *self,
                                      GCancellable  *cancellable,
                                      gboolean      *restored,
                                      gboolean      *lines_decoded,
                                      GError       **error);
/* Writes @self's index to its cache file later, in a GTask run in GLib's
 * thread pool (planar-cache.c says why). The
 * content key is taken first (the lines' hashes and what lies between). */
void     _planar_cache_store_later   (PlanarTrace   *self);
/* The decoder's hook: hashes line @l of plane @p (the bytes it has just
 * decoded) for the content key, when the cache is on. */
void     _planar_cache_hash_line     (PlanarTrace   *self,
                                      guint          p,
                                      guint          l);
/* The content key of the file as it is now, as a reopen checks it: every
 * line hashed in parallel, but those of the planes @hashed marks (NULL:
 * none), whose hashes the decoder took. FALSE only when cancelled. */
gboolean _planar_cache_check_content (PlanarTrace    *self,
                                      const gboolean *hashed,
                                      GCancellable   *cancellable,
                                      guint8          hash[16],
                                      GError        **error);
/* For tests: whether @self's index came from its cached index (a restore
 * done, in part or whole), rather than from decoding the file alone. */
gboolean _planar_cache_was_restored  (PlanarTrace   *self);
/* For the tests: a reopen gives back the pages of cache files from
 * @n_bytes up as it reads them (PLANAR_CACHE_DROP_PAGES_MIN_SIZE unless
 * set; G_MAXUINT64 goes back to it). */
void     _planar_cache_set_drop_pages_min (guint64 n_bytes);
/* The order in which a restore takes @self's file tracks (@derived FALSE)
 * or derived ones, as (plane, track) pairs: the planes in the timeline's
 * order, the largest tracks of each first, none of the planes @skip marks
 * (NULL: none; for the tests). */
GArray  *_planar_cache_restore_order (PlanarTrace    *self,
                                      gboolean        derived,
                                      const gboolean *skip);
/* For the tests: the planes a reopen of @self decodes from the file before
 * it uses the index (g_free() it), or NULL for none. */
gboolean *_planar_cache_first_view_planes (PlanarTrace *self);
/* For the tests: the bytes written into cache files (temporary ones
 * included) since the process started. */
guint64  _planar_cache_get_bytes_written (void);
/* A restore from bytes, for the tests and the fuzz harness, which skips
 * the key (content hash included) and header checksum (@check_key FALSE)
 * to reach what lies behind them. FALSE with @error when not restored:
 * @self is then left as planar_trace_open() made it (nothing else may
 * read it meanwhile), and decodes from the file. */
gboolean _planar_cache_restore_bytes (PlanarTrace   *self,
                                      const guint8  *data,
                                      gsize          len,
                                      gboolean       check_key,
                                      GError       **error);

G_END_DECLS
