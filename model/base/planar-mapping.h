/* planar-mapping.h: mapped files that may be cut under the process.
 *
 * A file mapped with mmap() raises SIGBUS when a page past its current end
 * is touched: another process truncated or rewrote it in place after it was
 * mapped. Planar registers every mapping it reads (the profiles, the cached
 * index files) here. One process-wide SIGBUS handler, installed on the first
 * registration, looks the faulting address up in a fixed table of the
 * registered ranges (atomics only, no lock, no allocation); when it is in
 * one, it maps zero pages over that mapping from the faulting page to its
 * end, marks the mapping changed and returns, so the read is retried and
 * sees zeros. The checked decoders report zeros as damage, and the callers
 * turn the mark into PLANAR_TRACE_ERROR_CHANGED. A fault anywhere else goes
 * to the handler that was there before (a sanitizer's), or kills the process
 * as it would have without this one: real bugs still crash.
 * docs/loader.md says why this and not a sigsetjmp() guard per read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PlanarMapping PlanarMapping;

/* Registers the @len bytes mapped at @start, read from the file @path (for
 * messages). Returns: (transfer full): the registration, to pass to
 * planar_mapping_unregister() before the bytes are unmapped. When the table
 * is full (PLANAR_MAPPING_MAX mappings at once) the mapping is not guarded
 * but the handle still works (it never reads as changed by a fault). */
PlanarMapping *planar_mapping_register      (const void    *start,
                                             gsize          len,
                                             const char    *path);
/* Forgets @mapping (NULL is allowed) and frees it; waits for a handler
 * running on another thread to finish first. */
void           planar_mapping_unregister    (PlanarMapping *mapping);
/* Whether a read of @mapping faulted past the file's end (atomic). */
gboolean       planar_mapping_has_changed   (PlanarMapping *mapping);
/* Whether @mapping is in the table (FALSE when it was full). */
gboolean       planar_mapping_is_guarded    (PlanarMapping *mapping);
/* The path of the first mapping of this process found cut, registered or
 * not any more, or NULL. Returns: (transfer full). */
char          *planar_mapping_dup_changed_path (void);

#define PLANAR_MAPPING_MAX 1024

G_END_DECLS
