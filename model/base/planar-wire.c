/* planar-wire.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-wire.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "planar-error.h"

#include <string.h>

int
planar_wire_next_checked (PlanarWireReader *r,
                          PlanarWireField  *f)
{
  const guint8 *q = r->p;
  guint64 tag;
  guint64 len;

  if (q >= r->end)
    return 0;

  if (!planar_wire_read_varint (&q, r->end, &tag))
    {
      r->error_at = r->p;
      r->error_reason = N_("truncated");
      return -1;
    }
  if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
    {
      r->error_at = r->p;
      r->error_reason = N_("invalid field number in");
      return -1;
    }
  planar_wire_field_begin (f, r->p, tag);

  switch ((int) f->wire_type)
    {
    case PLANAR_WIRE_VARINT:
      if (!planar_wire_read_varint (&q, r->end, &f->value))
        {
          r->error_at = q;
          r->error_reason = N_("malformed varint in");
          return -1;
        }
      break;

    case PLANAR_WIRE_I64:
      if ((gsize) (r->end - q) < 8)
        {
          r->error_at = q;
          r->error_reason = N_("truncated");
          return -1;
        }
      {
        guint64 v64;

        memcpy (&v64, q, 8);
        f->value = GUINT64_FROM_LE (v64);
      }
      q += 8;
      break;

    case PLANAR_WIRE_I32:
      if ((gsize) (r->end - q) < 4)
        {
          r->error_at = q;
          r->error_reason = N_("truncated");
          return -1;
        }
      {
        guint32 v32;

        memcpy (&v32, q, 4);
        f->value = GUINT32_FROM_LE (v32);
      }
      q += 4;
      break;

    case PLANAR_WIRE_LEN:
      {
        /* Errors point at the length prefix, the byte that lies. */
        const guint8 *prefix = q;

        if (!planar_wire_read_varint (&q, r->end, &len))
          {
            r->error_at = prefix;
            r->error_reason = N_("malformed length in");
            return -1;
          }
        if (len > (guint64) (r->end - q))
          {
            r->error_at = prefix;
            r->error_reason = N_("length past the end of");
            return -1;
          }
        f->data = q;
        f->len = (gsize) len;
        q += len;
      }
      break;

    default:
      /* Groups (3, 4) are obsolete and never written by XLA; 6 and 7 do not
       * exist. Either way the bytes cannot be skipped safely. */
      r->error_at = f->start;
      r->error_reason = N_("unsupported wire type in");
      return -1;
    }

  r->p = q;
  return 1;
}

void
planar_wire_set_error (GError     **error,
                       int          code,
                       const char  *file_name,
                       const char  *what,
                       guint64      offset,
                       const char  *reason)
{
  g_set_error (error, PLANAR_TRACE_ERROR, code,
               _("%s %s at byte %" PRIu64 " of %s"),
               _(reason), what, offset, file_name);
}

void
planar_wire_append_varint (GByteArray *out,
                           guint64     value)
{
  guint8 bytes[10];
  guint n = 0;

  do
    {
      bytes[n] = value & 0x7f;
      value >>= 7;
      if (value != 0)
        bytes[n] |= 0x80;
      n++;
    }
  while (value != 0);
  g_byte_array_append (out, bytes, n);
}

void
planar_wire_append_tag (GByteArray     *out,
                        guint           field,
                        PlanarWireType  type)
{
  planar_wire_append_varint (out, ((guint64) field << 3) | type);
}
