/* planar-capture-response.c: reading a tensorflow.ProfileResponse.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-capture-response.h"

#include "planar-capture.h"
#include "planar-wire.h"

static void
tool_data_clear (PlanarCaptureToolData *t)
{
  g_free (t->name);
}

gboolean
planar_capture_response_parse (const guint8           *data,
                               gsize                   len,
                               PlanarCaptureResponse  *out,
                               GError                **error)
{
  PlanarWireReader r;
  PlanarWireField f;
  const char *reason = NULL;
  const char *where = "ProfileResponse";
  const guint8 *at = NULL;
  int rc;

  out->empty_trace = FALSE;
  out->has_xspace = FALSE;
  out->xspace = NULL;
  out->xspace_len = 0;
  out->tools = g_array_new (FALSE, TRUE, sizeof (PlanarCaptureToolData));
  g_array_set_clear_func (out->tools, (GDestroyNotify) tool_data_clear);
  planar_wire_reader_init (&r, data, data, len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      if (f.number == 7 && f.wire_type == PLANAR_WIRE_VARINT)
        out->empty_trace = f.value != 0;
      else if (f.number == 8 && f.wire_type == PLANAR_WIRE_LEN)
        {
          out->has_xspace = TRUE;
          out->xspace = f.data;
          out->xspace_len = f.len;
        }
      else if (f.number == 6 && f.wire_type == PLANAR_WIRE_LEN)
        {
          PlanarWireReader t;
          PlanarWireField tf;
          PlanarCaptureToolData tool = { NULL, NULL, 0 };

          planar_wire_reader_init (&t, data, f.data, f.len);
          while ((rc = planar_wire_next (&t, &tf)) > 0)
            {
              if (tf.number == 1 && tf.wire_type == PLANAR_WIRE_LEN)
                {
                  g_free (tool.name);
                  tool.name = g_strndup ((const char *) tf.data, tf.len);
                }
              else if (tf.number == 2 && tf.wire_type == PLANAR_WIRE_LEN)
                {
                  tool.data = tf.data;
                  tool.len = tf.len;
                }
            }
          if (rc < 0)
            {
              reason = t.error_reason;
              at = t.error_at;
              where = "a tool_data entry";
              g_free (tool.name);
              break;
            }
          g_array_append_val (out->tools, tool);
        }
      else if (f.number == 6 || f.number == 8)
        {
          /* tool_data or xspace that is not a message. */
          reason = "a length-delimited field has another wire type";
          where = f.number == 6 ? "tool_data" : "xspace";
          at = f.start;
          rc = -1;
          break;
        }
    }
  if (rc < 0)
    {
      if (reason == NULL)
        {
          reason = r.error_reason;
          at = r.error_at;
        }
      g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
                   "The server's answer is not a ProfileResponse (%s in %s at byte %" G_GSIZE_FORMAT ")",
                   reason != NULL ? reason : "malformed", where,
                   at != NULL && at >= data ? (gsize) (at - data) : (gsize) 0);
      g_clear_pointer (&out->tools, g_array_unref);
      return FALSE;
    }
  return TRUE;
}

void
planar_capture_response_clear (PlanarCaptureResponse *response)
{
  g_clear_pointer (&response->tools, g_array_unref);
}
