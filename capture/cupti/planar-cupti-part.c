/* planar-cupti-part.c: writing part records (libc only).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cupti-part.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Names longer than this are cut (a mangled C++ kernel name can be long,
 * but not this long). */
#define MAX_STRING 65535u

uint32_t
planar_cupti_str_len (const char *s)
{
  size_t n = s != NULL ? strlen (s) : 0;

  return n > MAX_STRING ? MAX_STRING : (uint32_t) n;
}

void
planar_cupti_buf_clear (PlanarCuptiBuf *buf)
{
  free (buf->data);
  buf->data = NULL;
  buf->len = buf->cap = 0;
  buf->failed = 0;
}

static int
reserve (PlanarCuptiBuf *buf,
         size_t          more)
{
  size_t cap;
  uint8_t *data;

  if (buf->failed)
    return 0;
  if (buf->len + more <= buf->cap)
    return 1;
  cap = buf->cap != 0 ? buf->cap : 4096;
  while (cap < buf->len + more)
    cap *= 2;
  data = realloc (buf->data, cap);
  if (data == NULL)
    {
      buf->failed = 1;
      return 0;
    }
  buf->data = data;
  buf->cap = cap;
  return 1;
}

void
planar_cupti_buf_append (PlanarCuptiBuf *buf,
                         uint32_t        type,
                         const void     *fixed,
                         size_t          fixed_len,
                         int             n_strings,
                         ...)
{
  const char *strings[4];
  uint32_t lens[4];
  size_t size = sizeof (PlanarCuptiRecordHeader) + fixed_len;
  PlanarCuptiRecordHeader header;
  va_list args;
  uint8_t *p;

  if (n_strings > 4)
    n_strings = 4;
  va_start (args, n_strings);
  for (int i = 0; i < n_strings; i++)
    {
      strings[i] = va_arg (args, const char *);
      lens[i] = planar_cupti_str_len (strings[i]);
      size += lens[i];
    }
  va_end (args);
  size = (size + 7) & ~(size_t) 7;
  if (!reserve (buf, size))
    return;
  header.type = type;
  header.size = (uint32_t) size;
  p = buf->data + buf->len;
  memset (p, 0, size);
  memcpy (p, &header, sizeof header);
  p += sizeof header;
  memcpy (p, fixed, fixed_len);
  p += fixed_len;
  for (int i = 0; i < n_strings; i++)
    {
      if (lens[i] > 0)
        memcpy (p, strings[i], lens[i]);
      p += lens[i];
    }
  buf->len += size;
}
