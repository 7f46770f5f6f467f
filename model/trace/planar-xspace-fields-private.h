/* planar-xspace-fields-private.h: the XSpace reader's field numbers, read
 * once from the descriptors protoc-c generated from proto/xplane.proto, so
 * that the .proto file is the only place they are written (the XSpace
 * writer in io/ does the same for its tags).
 *
 * Each message the reader walks gets a small enum of the fields it reads
 * (0: a field it skips) and a table from field number to that enum, so
 * that the decoders still switch on constants: one load per field more
 * than a switch on the numbers themselves.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-wire.h"

#include <protobuf-c/protobuf-c.h>
#include <string.h>

G_BEGIN_DECLS

/* Field numbers below this map to a kind; xplane.proto uses 1 to 11. */
#define PLANAR_XFIELD_SLOTS 32

typedef struct
{
  /* Field number -> the message's kind (0: not read). */
  guint8         kind[PLANAR_XFIELD_SLOTS];
  /* Kind -> field number and the wire type its proto type is written as. */
  guint          number[PLANAR_XFIELD_SLOTS];
  PlanarWireType wire[PLANAR_XFIELD_SLOTS];
} PlanarXFields;

/* What a field number of the message is to the reader. */
static inline guint
planar_xfield_kind (const PlanarXFields *fields,
                    guint64              number)
{
  return number < PLANAR_XFIELD_SLOTS ? fields->kind[number] : 0;
}

/* Reads the field at *@p (before @end) of a message @fields describes, the
 * fast way, for the hot loops over every event and stat: its kind in
 * *@kind (0 for a field the reader skips), a varint's or a fixed field's
 * value in *@value, a length-delimited field's length in *@value and its
 * bytes at *@data; *@p moves past it. FALSE at anything but a well-formed
 * field of the wire type the descriptors give (the careful reader,
 * planar_wire_next(), then reads it again and says what is wrong). */
static inline gboolean
planar_xfield_read_fast (const PlanarXFields  *fields,
                         const guint8        **p,
                         const guint8         *end,
                         guint                *kind,
                         guint64              *value,
                         const guint8        **data)
{
  guint64 tag;
  guint wire_type;

  *value = 0;
  *data = NULL;
  if (!planar_wire_read_varint (p, end, &tag) || tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
    return FALSE;
  *kind = planar_xfield_kind (fields, tag >> 3);
  wire_type = (guint) (tag & 7);
  if (*kind != 0 && wire_type != (guint) fields->wire[*kind])
    return FALSE;
  switch (wire_type)
    {
    case PLANAR_WIRE_VARINT:
      return planar_wire_read_varint (p, end, value);
    case PLANAR_WIRE_LEN:
      if (!planar_wire_read_varint (p, end, value) || *value > (guint64) (end - *p))
        return FALSE;
      *data = *p;
      *p += *value;
      return TRUE;
    case PLANAR_WIRE_I64:
      if (end - *p < 8)
        return FALSE;
      memcpy (value, *p, 8);
      *value = GUINT64_FROM_LE (*value);
      *p += 8;
      return TRUE;
    case PLANAR_WIRE_I32:
      {
        guint32 v;

        if (end - *p < 4)
          return FALSE;
        memcpy (&v, *p, 4);
        *value = GUINT32_FROM_LE (v);
        *p += 4;
        return TRUE;
      }
    default:
      return FALSE;
    }
}

enum { PLANAR_XSPACE_PLANES = 1, PLANAR_XSPACE_ERRORS, PLANAR_XSPACE_WARNINGS, PLANAR_XSPACE_HOSTNAMES };
enum { PLANAR_XPLANE_ID = 1, PLANAR_XPLANE_NAME, PLANAR_XPLANE_LINES, PLANAR_XPLANE_EVENT_METADATA,
       PLANAR_XPLANE_STAT_METADATA, PLANAR_XPLANE_STATS };
enum { PLANAR_XLINE_ID = 1, PLANAR_XLINE_DISPLAY_ID, PLANAR_XLINE_NAME, PLANAR_XLINE_DISPLAY_NAME,
       PLANAR_XLINE_TIMESTAMP_NS, PLANAR_XLINE_DURATION_PS, PLANAR_XLINE_EVENTS };
enum { PLANAR_XEVENT_METADATA_ID = 1, PLANAR_XEVENT_OFFSET_PS, PLANAR_XEVENT_NUM_OCCURRENCES,
       PLANAR_XEVENT_DURATION_PS, PLANAR_XEVENT_STATS };
enum { PLANAR_XSTAT_METADATA_ID = 1, PLANAR_XSTAT_DOUBLE, PLANAR_XSTAT_UINT64, PLANAR_XSTAT_INT64,
       PLANAR_XSTAT_STR, PLANAR_XSTAT_BYTES, PLANAR_XSTAT_REF };
enum { PLANAR_XEVENT_MD_ID = 1, PLANAR_XEVENT_MD_NAME, PLANAR_XEVENT_MD_DISPLAY_NAME,
       PLANAR_XEVENT_MD_METADATA, PLANAR_XEVENT_MD_STATS };
enum { PLANAR_XSTAT_MD_ID = 1, PLANAR_XSTAT_MD_NAME, PLANAR_XSTAT_MD_DESCRIPTION };
/* Both metadata maps' entries. */
enum { PLANAR_XENTRY_KEY = 1, PLANAR_XENTRY_VALUE };

typedef struct
{
  PlanarXFields space;
  PlanarXFields plane;
  PlanarXFields line;
  PlanarXFields event;
  PlanarXFields stat;
  PlanarXFields event_metadata;
  PlanarXFields stat_metadata;
  PlanarXFields event_entry;
  PlanarXFields stat_entry;
} PlanarXSpaceFields;

/* The tables, filled at the first call (any thread). */
const PlanarXSpaceFields *_planar_xspace_fields (void);

/* The wire type a field of @field's proto type is written with (a
 * repeated scalar counts as unpacked). Shared with the XSpace writer. */
PlanarWireType            _planar_xfield_wire_type (const ProtobufCFieldDescriptor *field);

G_END_DECLS
