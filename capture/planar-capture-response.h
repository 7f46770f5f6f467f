/* planar-capture-response.h: reading a tensorflow.ProfileResponse, the
 * answer of a profiler server (FORMATS.md §3.4), without unpacking the
 * XSpace in it: its bytes are kept to be written verbatim.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char         *name;
  const guint8 *data;
  gsize         len;
} PlanarCaptureToolData;

typedef struct
{
  gboolean      empty_trace;
  /* Points into the bytes parsed. */
  const guint8 *xspace;
  gsize         xspace_len;
  gboolean      has_xspace;
  /* PlanarCaptureToolData: (name, data, len) of each tool_data entry. */
  GArray       *tools;
} PlanarCaptureResponse;

/* Reads @data; on failure @out holds nothing to clear and @error says why. */
gboolean planar_capture_response_parse (const guint8           *data,
                                        gsize                   len,
                                        PlanarCaptureResponse  *out,
                                        GError                **error);
void     planar_capture_response_clear (PlanarCaptureResponse  *response);

G_END_DECLS
