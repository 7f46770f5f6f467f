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
