/* planar-capture-response.c: reading a tensorflow.ProfileResponse.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-capture-response.h"

#include <glib/gi18n-lib.h>

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
          PlanarCaptureToolData tool = { NULL, NULL, 0, NULL, 0 };

          planar_wire_reader_init (&t, data, f.data, f.len);
          while ((rc = planar_wire_next (&t, &tf)) > 0)
            {
              if (tf.number == 1 && tf.wire_type == PLANAR_WIRE_LEN)
                {
                  g_free (tool.name);
                  tool.name = g_strndup ((const char *) tf.data, tf.len);
                  tool.name_data = tf.data;
                  tool.name_len = tf.len;
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
                   _("The server's answer is not a ProfileResponse (%s in %s at byte %zu)"),
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

/* Each field of [@data, @data + @len) read; fields 1..@n_known must have
 * the wire types of @known (index = field number). Returns the number of
 * known fields seen, or -1 with @error set. */
static int
scan_message (const guint8          *base,
              const guint8          *data,
              gsize                  len,
              const PlanarWireType  *known,
              guint                  n_known,
              const char            *what,
              gboolean               planes,
              GError               **error)
{
  PlanarWireReader r;
  PlanarWireField f;
  int rc, seen = 0;

  planar_wire_reader_init (&r, base, data, len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      if (f.number == 0 || f.number > n_known)
        continue;
      if (f.wire_type != known[f.number])
        {
          g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
                       _("field %u of %s at byte %zu has the wrong wire type"), f.number, what,
                       (gsize) (f.start - base));
          return -1;
        }
      seen++;
      if (planes && f.number == 1)
        {
          static const PlanarWireType plane[] = {
            0, PLANAR_WIRE_VARINT, PLANAR_WIRE_LEN, PLANAR_WIRE_LEN, PLANAR_WIRE_LEN, PLANAR_WIRE_LEN, PLANAR_WIRE_LEN,
          };

          if (scan_message (base, f.data, f.len, plane, G_N_ELEMENTS (plane) - 1, "an XPlane", FALSE, error) < 0)
            return -1;
        }
    }
  if (rc < 0)
    {
      const char *reason = r.error_reason != NULL ? r.error_reason : "malformed";

      /* The wire reader's reasons may end in their preposition ("malformed
       * varint in"). */
      g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED, _("%s%s %s at byte %zu"),
                   reason, g_str_has_suffix (reason, " in") || g_str_has_suffix (reason, " of") ? "" : " in", what,
                   r.error_at != NULL && r.error_at >= base ? (gsize) (r.error_at - base) : (gsize) 0);
      return -1;
    }
  return seen;
}

gboolean
planar_capture_response_check_xspace (const guint8  *data,
                                      gsize          len,
                                      GError       **error)
{
  /* planes, errors, warnings, hostnames: all length-delimited. */
  static const PlanarWireType space[] = {
    0, PLANAR_WIRE_LEN, PLANAR_WIRE_LEN, PLANAR_WIRE_LEN, PLANAR_WIRE_LEN,
  };
  g_autoptr(GError) local = NULL;
  int seen;

  if (len == 0)
    {
      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED, _("it is empty"));
      return FALSE;
    }
  seen = scan_message (data, data, len, space, G_N_ELEMENTS (space) - 1, "the XSpace", TRUE, &local);
  if (seen < 0)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (seen == 0)
    {
      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
                           _("it holds no planes, host names, errors or warnings"));
      return FALSE;
    }
  return TRUE;
}
