/* planar-error.h: error domains of the model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PLANAR_TRACE_ERROR (planar_trace_error_quark ())

/**
 * PlanarTraceError:
 * @PLANAR_TRACE_ERROR_CORRUPT: the bytes are not a valid XSpace (truncated,
 *   lengths past the end, malformed varints, wrong wire types).
 * @PLANAR_TRACE_ERROR_TOO_LARGE: a length, count or the memory the index
 *   would need is past what the file can justify.
 * @PLANAR_TRACE_ERROR_OVERFLOW: a timestamp does not fit in 64-bit
 *   picoseconds.
 * @PLANAR_TRACE_ERROR_NOT_FOUND: no profile at the given path.
 * @PLANAR_TRACE_ERROR_UNSUPPORTED: a recognised file Planar cannot read yet.
 * @PLANAR_TRACE_ERROR_EMPTY: the file is empty.
 * @PLANAR_TRACE_ERROR_CHANGED: the file changed on disk (truncated or
 *   rewritten) while Planar read it; reload it. The CLI exits 3 for it.
 */
typedef enum
{
  PLANAR_TRACE_ERROR_CORRUPT,
  PLANAR_TRACE_ERROR_TOO_LARGE,
  PLANAR_TRACE_ERROR_OVERFLOW,
  PLANAR_TRACE_ERROR_NOT_FOUND,
  PLANAR_TRACE_ERROR_UNSUPPORTED,
  PLANAR_TRACE_ERROR_EMPTY,
  PLANAR_TRACE_ERROR_CHANGED,
} PlanarTraceError;

GQuark planar_trace_error_quark (void);

G_END_DECLS
