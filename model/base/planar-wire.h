/* planar-wire.h: a bounds-checked reader of the protobuf wire format.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PLANAR_WIRE_VARINT = 0,
  PLANAR_WIRE_I64 = 1,
  PLANAR_WIRE_LEN = 2,
  PLANAR_WIRE_I32 = 5,
} PlanarWireType;

/* One field as read off the wire. For %PLANAR_WIRE_LEN fields @data and @len
 * describe the payload (already checked to lie inside the buffer); for the
 * other types @value holds the number (fixed-width values bit for bit). */
typedef struct
{
  guint32        number;
  PlanarWireType wire_type;
  guint64        value;
  const guint8  *data;
  gsize          len;
  /* Where the tag of this field starts. */
  const guint8  *start;
} PlanarWireField;

/* Reads fields from [p, end). @base is the first byte of the whole buffer
 * (the mapped file), so that offsets in messages are offsets in the file. */
typedef struct
{
  const guint8 *base;
  const guint8 *p;
  const guint8 *end;
  /* Set when a read fails: where, and why. */
  const guint8 *error_at;
  const char   *error_reason;
} PlanarWireReader;

static inline void
planar_wire_reader_init (PlanarWireReader *r,
                         const guint8     *base,
                         const guint8     *p,
                         gsize             len)
{
  r->base = base;
  r->p = p;
  /* An absent field is (NULL, 0), and NULL + 0 is undefined in C. */
  r->end = len > 0 ? p + len : p;
  r->error_at = NULL;
  r->error_reason = NULL;
}

/* Reads a varint at *p. Returns FALSE when it runs past @end or is longer
 * than ten bytes (or sets bits past 64 in the tenth). */
static inline gboolean
planar_wire_read_varint (const guint8 **p,
                         const guint8  *end,
                         guint64       *out)
{
  const guint8 *q = *p;
  guint64 v = 0;
  guint shift;

  if (G_LIKELY (q < end && q[0] < 0x80))
    {
      *out = q[0];
      *p = q + 1;
      return TRUE;
    }
  for (shift = 0; shift < 64; shift += 7)
    {
      guint8 b;

      if (G_UNLIKELY (q >= end))
        return FALSE;
      b = *q++;
      /* The tenth byte may only carry the top bit of a 64-bit value. */
      if (G_UNLIKELY (shift == 63 && b > 1))
        return FALSE;
      v |= (guint64) (b & 0x7f) << shift;
      if (b < 0x80)
        {
          *out = v;
          *p = q;
          return TRUE;
        }
    }
  return FALSE;
}

/* The writers' half: @value as a varint; a field's tag. */
void planar_wire_append_varint        (GByteArray     *out,
                                       guint64         value);
void planar_wire_append_tag           (GByteArray     *out,
                                       guint           field,
                                       PlanarWireType  type);

/* Starts @f as the field whose tag @tag begins at @start. */
static inline void
planar_wire_field_begin (PlanarWireField *f,
                         const guint8    *start,
                         guint64          tag)
{
  f->start = start;
  f->number = (guint32) (tag >> 3);
  f->wire_type = (PlanarWireType) (tag & 7);
  f->data = NULL;
  f->len = 0;
  f->value = 0;
}

/* planar_wire_next() whole, out of line: it also says why a field is
 * malformed. */
int  planar_wire_next_checked (PlanarWireReader *r,
                               PlanarWireField  *f);

/* Returns 1 and fills @f when a field was read, 0 at the end of the buffer,
 * -1 on malformed input (see r->error_at and r->error_reason). Inline, as
 * it runs for every field of every event: a well-formed varint or
 * length-delimited field (every field of an XEvent and an XStat but a
 * double) is read here, anything else by planar_wire_next_checked(),
 * which also finds what is wrong. */
static inline int
planar_wire_next (PlanarWireReader *r,
                  PlanarWireField  *f)
{
  const guint8 *q = r->p, *start = q;
  guint64 tag, len;

  if (q >= r->end)
    return 0;
  if (!planar_wire_read_varint (&q, r->end, &tag) || tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
    return planar_wire_next_checked (r, f);
  planar_wire_field_begin (f, start, tag);
  switch ((int) f->wire_type)
    {
    case PLANAR_WIRE_VARINT:
      if (!planar_wire_read_varint (&q, r->end, &f->value))
        return planar_wire_next_checked (r, f);
      break;
    case PLANAR_WIRE_LEN:
      if (!planar_wire_read_varint (&q, r->end, &len) || len > (guint64) (r->end - q))
        return planar_wire_next_checked (r, f);
      f->data = q;
      f->len = (gsize) len;
      q += len;
      break;
    default:
      return planar_wire_next_checked (r, f);
    }
  r->p = q;
  return 1;
}

/* Fills @error with "REASON WHAT at byte OFFSET of FILE", the project's form
 * for decoding errors, for example "truncated XLine at byte 1048576 of
 * host0.xplane.pb". */
void planar_wire_set_error (GError     **error,
                            int          code,
                            const char  *file_name,
                            const char  *what,
                            guint64      offset,
                            const char  *reason);

G_END_DECLS
