/* planar-capture-response.h: reading a tensorflow.ProfileResponse, the
 * answer of a profiler server (docs/formats.md §6.2), without unpacking the
 * XSpace in it: its bytes are kept to be written verbatim.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  /* The name up to its first NUL; @name_data and @name_len are all of its
   * bytes as they came (pointing into the bytes parsed). */
  char         *name;
  const guint8 *name_data;
  gsize         name_len;
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

/* Checks that @data is a serialized XSpace as far as its planes (the wire
 * format well formed, the known fields of XSpace and XPlane of their
 * types, at least one of them present), without decoding any event, so
 * that bytes that are something else are never saved as a profile. On
 * failure @error (%PLANAR_CAPTURE_ERROR_FAILED) says what and where. */
gboolean planar_capture_response_check_xspace (const guint8  *data,
                                               gsize          len,
                                               GError       **error);

G_END_DECLS
