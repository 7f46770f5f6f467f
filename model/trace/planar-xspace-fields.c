/* planar-xspace-fields.c: the XSpace reader's field numbers, from the
 * generated descriptors (planar-xspace-fields-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-xspace-fields-private.h"

#include "xplane.pb-c.h"

typedef struct
{
  guint       kind;
  const char *name;
} FieldName;

PlanarWireType
_planar_xfield_wire_type (const ProtobufCFieldDescriptor *field)
{
  switch (field->type)
    {
    case PROTOBUF_C_TYPE_DOUBLE:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
      return PLANAR_WIRE_I64;
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32:
      return PLANAR_WIRE_I32;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
      return PLANAR_WIRE_LEN;
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_BOOL:
    case PROTOBUF_C_TYPE_ENUM:
    default:
      /* A repeated scalar may come packed (LEN): the reader reads none. */
      return PLANAR_WIRE_VARINT;
    }
}

static void
fill (PlanarXFields                    *out,
      const ProtobufCMessageDescriptor *message,
      const FieldName                  *names,
      gsize                             n_names)
{
  for (gsize i = 0; i < n_names; i++)
    {
      const ProtobufCFieldDescriptor *field =
        protobuf_c_message_descriptor_get_field_by_name (message, names[i].name);

      /* The .proto file and this table are built together. */
      if (field == NULL || field->id >= PLANAR_XFIELD_SLOTS || names[i].kind >= PLANAR_XFIELD_SLOTS)
        g_error ("%s.%s: not a field the XSpace reader can table", message->name, names[i].name);
      out->kind[field->id] = (guint8) names[i].kind;
      out->number[names[i].kind] = field->id;
      out->wire[names[i].kind] = _planar_xfield_wire_type (field);
    }
}

#define FILL(out, descriptor, ...) G_STMT_START {                        \
    static const FieldName names_[] = { __VA_ARGS__ };                   \
    fill (out, &descriptor, names_, G_N_ELEMENTS (names_));              \
  } G_STMT_END

static PlanarXSpaceFields fields;

const PlanarXSpaceFields *
_planar_xspace_fields (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      FILL (&fields.space, tensorflow__profiler__xspace__descriptor,
            { PLANAR_XSPACE_PLANES, "planes" }, { PLANAR_XSPACE_ERRORS, "errors" },
            { PLANAR_XSPACE_WARNINGS, "warnings" }, { PLANAR_XSPACE_HOSTNAMES, "hostnames" });
      FILL (&fields.plane, tensorflow__profiler__xplane__descriptor,
            { PLANAR_XPLANE_ID, "id" }, { PLANAR_XPLANE_NAME, "name" }, { PLANAR_XPLANE_LINES, "lines" },
            { PLANAR_XPLANE_EVENT_METADATA, "event_metadata" },
            { PLANAR_XPLANE_STAT_METADATA, "stat_metadata" }, { PLANAR_XPLANE_STATS, "stats" });
      FILL (&fields.line, tensorflow__profiler__xline__descriptor,
            { PLANAR_XLINE_ID, "id" }, { PLANAR_XLINE_DISPLAY_ID, "display_id" },
            { PLANAR_XLINE_NAME, "name" }, { PLANAR_XLINE_DISPLAY_NAME, "display_name" },
            { PLANAR_XLINE_TIMESTAMP_NS, "timestamp_ns" }, { PLANAR_XLINE_DURATION_PS, "duration_ps" },
            { PLANAR_XLINE_EVENTS, "events" });
      FILL (&fields.event, tensorflow__profiler__xevent__descriptor,
            { PLANAR_XEVENT_METADATA_ID, "metadata_id" }, { PLANAR_XEVENT_OFFSET_PS, "offset_ps" },
            { PLANAR_XEVENT_NUM_OCCURRENCES, "num_occurrences" },
            { PLANAR_XEVENT_DURATION_PS, "duration_ps" }, { PLANAR_XEVENT_STATS, "stats" });
      FILL (&fields.stat, tensorflow__profiler__xstat__descriptor,
            { PLANAR_XSTAT_METADATA_ID, "metadata_id" }, { PLANAR_XSTAT_DOUBLE, "double_value" },
            { PLANAR_XSTAT_UINT64, "uint64_value" }, { PLANAR_XSTAT_INT64, "int64_value" },
            { PLANAR_XSTAT_STR, "str_value" }, { PLANAR_XSTAT_BYTES, "bytes_value" },
            { PLANAR_XSTAT_REF, "ref_value" });
      FILL (&fields.event_metadata, tensorflow__profiler__xevent_metadata__descriptor,
            { PLANAR_XEVENT_MD_ID, "id" }, { PLANAR_XEVENT_MD_NAME, "name" },
            { PLANAR_XEVENT_MD_DISPLAY_NAME, "display_name" }, { PLANAR_XEVENT_MD_METADATA, "metadata" },
            { PLANAR_XEVENT_MD_STATS, "stats" });
      FILL (&fields.stat_metadata, tensorflow__profiler__xstat_metadata__descriptor,
            { PLANAR_XSTAT_MD_ID, "id" }, { PLANAR_XSTAT_MD_NAME, "name" },
            { PLANAR_XSTAT_MD_DESCRIPTION, "description" });
      FILL (&fields.event_entry, tensorflow__profiler__xplane__event_metadata_entry__descriptor,
            { PLANAR_XENTRY_KEY, "key" }, { PLANAR_XENTRY_VALUE, "value" });
      FILL (&fields.stat_entry, tensorflow__profiler__xplane__stat_metadata_entry__descriptor,
            { PLANAR_XENTRY_KEY, "key" }, { PLANAR_XENTRY_VALUE, "value" });
      g_once_init_leave (&once, 1);
    }
  return &fields;
}
