/* planar-capture-response.c: reading a tensorflow.ProfileResponse.
 *
 * The field numbers and wire types come from the descriptors protoc-c
 * generated from proto/profiler_service.proto and proto/xplane.proto (the
 * XSpace's through the reader's own tables, planar-xspace-fields-private.h),
 * so that the .proto files are the only place they are written. The names
 * in the errors (ProfileResponse, XPlane, tool_data…) are the descriptors'
 * too: proto names, the same in every language.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-capture-response.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "planar-capture.h"
#include "planar-wire.h"
#include "planar-xspace-fields-private.h"
#include "profiler_service.pb-c.h"
#include "xplane.pb-c.h"

/* A field the parser reads: its number and the wire type its proto type
 * is written with. */
typedef struct
{
  guint          number;
  PlanarWireType wire;
  const char    *name;
} Field;

typedef struct
{
  /* ProfileResponse */
  Field tool_data;
  Field empty_trace;
  Field xspace;
  /* ProfileToolData */
  Field tool_name;
  Field tool_bytes;
} ResponseFields;

static Field
field_of (const ProtobufCMessageDescriptor *message,
          const char                       *name)
{
  const ProtobufCFieldDescriptor *field = protobuf_c_message_descriptor_get_field_by_name (message, name);
  Field out;

  /* The .proto file and this code are built together. */
  if (field == NULL)
    g_error ("%s has no field %s", message->name, name);
  out.number = field->id;
  out.wire = _planar_xfield_wire_type (field);
  out.name = field->name;
  return out;
}

static const ResponseFields *
response_fields (void)
{
  static ResponseFields fields;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      fields.tool_data = field_of (&tensorflow__profile_response__descriptor, "tool_data");
      fields.empty_trace = field_of (&tensorflow__profile_response__descriptor, "empty_trace");
      fields.xspace = field_of (&tensorflow__profile_response__descriptor, "xspace");
      fields.tool_name = field_of (&tensorflow__profile_tool_data__descriptor, "name");
      fields.tool_bytes = field_of (&tensorflow__profile_tool_data__descriptor, "data");
      g_once_init_leave (&once, 1);
    }
  return &fields;
}

/* ------------------------------------------------------------------------
 * Errors: one whole clause per problem the wire reader reports
 * ------------------------------------------------------------------------ */

/* "@where has PROBLEM at byte @offset": @reason as the wire reader gives
 * it (planar-wire.c). Returns: (transfer full). */
static char *
describe_wire_error (const char *reason,
                     const char *where,
                     gsize       offset)
{
  if (g_strcmp0 (reason, "truncated") == 0)
    /* TRANSLATORS: %s is a protobuf message's name, such as XPlane. */
    return g_strdup_printf (_("%s is cut short at byte %zu"), where, offset);
  if (g_strcmp0 (reason, "invalid field number in") == 0)
    /* TRANSLATORS: %s is a protobuf message's name, such as XPlane. */
    return g_strdup_printf (_("%s has an invalid field number at byte %zu"), where, offset);
  if (g_strcmp0 (reason, "malformed varint in") == 0)
    /* TRANSLATORS: %s is a protobuf message's name, such as XPlane. */
    return g_strdup_printf (_("%s has a malformed varint at byte %zu"), where, offset);
  if (g_strcmp0 (reason, "malformed length in") == 0)
    /* TRANSLATORS: %s is a protobuf message's name, such as XPlane. */
    return g_strdup_printf (_("%s has a malformed length at byte %zu"), where, offset);
  if (g_strcmp0 (reason, "length past the end of") == 0)
    /* TRANSLATORS: %s is a protobuf message's name, such as XPlane. */
    return g_strdup_printf (_("%s has a length at byte %zu that runs past its end"), where, offset);
  if (g_strcmp0 (reason, "unsupported wire type in") == 0)
    /* TRANSLATORS: %s is a protobuf message's name, such as XPlane. */
    return g_strdup_printf (_("%s has an unsupported wire type at byte %zu"), where, offset);
  /* TRANSLATORS: %s is a protobuf message's name, such as XPlane. */
  return g_strdup_printf (_("%s is malformed at byte %zu"), where, offset);
}

static gsize
offset_in (const guint8 *base,
           const guint8 *at)
{
  return at != NULL && at >= base ? (gsize) (at - base) : 0;
}

static void
set_not_a_response (GError **error,
                    char    *detail)
{
  g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
               /* TRANSLATORS: %s says what is wrong and where, for example
                * "ProfileToolData has a malformed varint at byte 12". */
               _("The server's answer is not a ProfileResponse: %s"), detail);
  g_free (detail);
}

/* ------------------------------------------------------------------------
 * ProfileResponse
 * ------------------------------------------------------------------------ */

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
  const ResponseFields *fields = response_fields ();
  PlanarWireReader r;
  PlanarWireField f;
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
      const Field *known = NULL;

      if (f.number == fields->empty_trace.number)
        known = &fields->empty_trace;
      else if (f.number == fields->xspace.number)
        known = &fields->xspace;
      else if (f.number == fields->tool_data.number)
        known = &fields->tool_data;
      if (known == NULL)
        continue;
      if (f.wire_type != known->wire)
        {
          /* A bool that is no varint is skipped, as before; a message that
           * is not length-delimited cannot be one. */
          if (known->wire != PLANAR_WIRE_LEN)
            continue;
          set_not_a_response (error, g_strdup_printf (
            /* TRANSLATORS: the first %s is a protobuf message's name, the
             * second one of its fields (ProfileResponse, xspace). */
            _("the field %s of %s at byte %zu is not length-delimited"), known->name,
            tensorflow__profile_response__descriptor.short_name, offset_in (data, f.start)));
          g_clear_pointer (&out->tools, g_array_unref);
          return FALSE;
        }
      if (known == &fields->empty_trace)
        out->empty_trace = f.value != 0;
      else if (known == &fields->xspace)
        {
          out->has_xspace = TRUE;
          out->xspace = f.data;
          out->xspace_len = f.len;
        }
      else
        {
          PlanarWireReader t;
          PlanarWireField tf;
          PlanarCaptureToolData tool = { NULL, NULL, 0, NULL, 0 };

          planar_wire_reader_init (&t, data, f.data, f.len);
          while ((rc = planar_wire_next (&t, &tf)) > 0)
            {
              if (tf.number == fields->tool_name.number && tf.wire_type == fields->tool_name.wire)
                {
                  g_free (tool.name);
                  tool.name = g_strndup ((const char *) tf.data, tf.len);
                  tool.name_data = tf.data;
                  tool.name_len = tf.len;
                }
              else if (tf.number == fields->tool_bytes.number && tf.wire_type == fields->tool_bytes.wire)
                {
                  tool.data = tf.data;
                  tool.len = tf.len;
                }
            }
          if (rc < 0)
            {
              g_free (tool.name);
              set_not_a_response (error, describe_wire_error (
                t.error_reason, tensorflow__profile_tool_data__descriptor.short_name,
                offset_in (data, t.error_at)));
              g_clear_pointer (&out->tools, g_array_unref);
              return FALSE;
            }
          g_array_append_val (out->tools, tool);
        }
    }
  if (rc < 0)
    {
      set_not_a_response (error, describe_wire_error (
        r.error_reason, tensorflow__profile_response__descriptor.short_name, offset_in (data, r.error_at)));
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

/* ------------------------------------------------------------------------
 * XSpace
 * ------------------------------------------------------------------------ */

/* Each field of [@data, @data + @len) read; the fields @fields knows must
 * have their wire types, and with @planes (an XSpace) each plane is
 * checked as an XPlane. Returns the number of known fields seen, or -1
 * with @error set. */
static int
scan_message (const guint8                     *base,
              const guint8                     *data,
              gsize                             len,
              const PlanarXFields              *fields,
              const ProtobufCMessageDescriptor *message,
              gboolean                          planes,
              GError                          **error)
{
  PlanarWireReader r;
  PlanarWireField f;
  int rc, seen = 0;

  planar_wire_reader_init (&r, base, data, len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      guint kind = planar_xfield_kind (fields, f.number);

      if (kind == 0)
        continue;
      if (f.wire_type != fields->wire[kind])
        {
          const ProtobufCFieldDescriptor *field = protobuf_c_message_descriptor_get_field (message, f.number);

          g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
                       /* TRANSLATORS: the first %s is a field's name, the
                        * second its protobuf message's (planes, XSpace). */
                       _("the field %s of %s at byte %zu has the wrong wire type"),
                       field != NULL ? field->name : "?", message->short_name, (gsize) (f.start - base));
          return -1;
        }
      seen++;
      if (planes && kind == PLANAR_XSPACE_PLANES
          && scan_message (base, f.data, f.len, &_planar_xspace_fields ()->plane,
                           &tensorflow__profiler__xplane__descriptor, FALSE, error) < 0)
        return -1;
    }
  if (rc < 0)
    {
      g_autofree char *detail = describe_wire_error (r.error_reason, message->short_name,
                                                     offset_in (base, r.error_at));

      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED, detail);
      return -1;
    }
  return seen;
}

gboolean
planar_capture_response_check_xspace (const guint8  *data,
                                      gsize          len,
                                      GError       **error)
{
  g_autoptr(GError) local = NULL;
  int seen;

  if (len == 0)
    {
      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED, _("it is empty"));
      return FALSE;
    }
  /* Planes, errors, warnings, host names: the fields the reader reads. */
  seen = scan_message (data, data, len, &_planar_xspace_fields ()->space,
                       &tensorflow__profiler__xspace__descriptor, TRUE, &local);
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
