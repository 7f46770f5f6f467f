/* planar-spill-private.h: for the tests of planar-spill.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-spill.h"

G_BEGIN_DECLS

/* Makes planar_spill_memory_is_short() take @n_bytes as both the
 * system's memory and what is available of it; G_MAXUINT64 goes back to
 * /proc/meminfo. */
void _planar_spill_set_available_memory (guint64 n_bytes);

/* Makes the spill keep at most @n file descriptors (0: the default). */
void _planar_spill_set_max_fds (guint n);

/* Makes the spill keep at most @n_bytes of freed blocks for reuse (0: the
 * default, planar_spill_reuse_begin()). */
void  _planar_spill_set_kept_limit (gsize n_bytes);
/* How many blocks were taken from the kept ones so far, and how many
 * bytes are kept now. */
guint _planar_spill_get_n_reused   (void);
gsize _planar_spill_get_kept_bytes (void);

G_END_DECLS
