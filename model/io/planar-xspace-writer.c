/* planar-xspace-writer.c: an XSpace written plane by plane, line by line,
 * event by event, without a message tree in memory.
 *
 * Why a streaming encoder and not protobuf-c's structs: an import of 1e7
 * events would need a struct per event and per stat, then the packed copy
 * of them all, twice the memory of the file at the peak. Here each message
 * is encoded into one growing buffer where it is added: a nested message
 * gets one byte for its length, and when it ends and is longer than 127
 * bytes its body moves right by the length's extra bytes (a memmove, once
 * per message, of bytes already in the cache for an event). The output is
 * the canonical encoding, fields in number order, byte for byte what
 * protobuf's own serializer writes for the same messages (the metadata
 * maps in id order).
 *
 * The field numbers are not typed here: they are read once from the
 * descriptors protoc-c generated from proto/xplane.proto, so that the
 * .proto file is the only place they are written.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-xspace-writer.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "planar-hash-private.h"
#include "planar-wire.h"
#include "planar-xspace-fields-private.h"
#include "xplane.pb-c.h"

/* The tags (field number and wire type, as the varint that starts the
 * field) the writer uses. */
typedef struct
{
  guint32 space_planes, space_errors, space_warnings, space_hostnames;
  guint32 plane_id, plane_name, plane_lines, plane_event_metadata, plane_stat_metadata, plane_stats;
  guint32 event_entry_key, event_entry_value, stat_entry_key, stat_entry_value;
  guint32 line_id, line_display_id, line_name, line_timestamp_ns, line_events;
  guint32 event_metadata_id, event_offset_ps, event_duration_ps, event_stats;
  guint32 stat_metadata_id, stat_double, stat_uint64, stat_int64, stat_str, stat_bytes, stat_ref;
  guint32 event_md_id, event_md_name;
  guint32 stat_md_id, stat_md_name;
} Tags;

static Tags tags;

static guint32
tag_of (const ProtobufCMessageDescriptor *message,
        const char                       *name)
{
  const ProtobufCFieldDescriptor *field = protobuf_c_message_descriptor_get_field_by_name (message, name);
  PlanarWireType type;

  g_assert (field != NULL);
  /* Sint types would need zigzag values: the writer uses none. */
  g_assert (field->type != PROTOBUF_C_TYPE_SINT32 && field->type != PROTOBUF_C_TYPE_SINT64);
  type = _planar_xfield_wire_type (field);
  return (field->id << 3) | type;
}

static void
init_tags (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      const ProtobufCMessageDescriptor *space = &tensorflow__profiler__xspace__descriptor;
      const ProtobufCMessageDescriptor *plane = &tensorflow__profiler__xplane__descriptor;
      const ProtobufCMessageDescriptor *event_entry = &tensorflow__profiler__xplane__event_metadata_entry__descriptor;
      const ProtobufCMessageDescriptor *stat_entry = &tensorflow__profiler__xplane__stat_metadata_entry__descriptor;
      const ProtobufCMessageDescriptor *line = &tensorflow__profiler__xline__descriptor;
      const ProtobufCMessageDescriptor *event = &tensorflow__profiler__xevent__descriptor;
      const ProtobufCMessageDescriptor *stat = &tensorflow__profiler__xstat__descriptor;
      const ProtobufCMessageDescriptor *event_md = &tensorflow__profiler__xevent_metadata__descriptor;
      const ProtobufCMessageDescriptor *stat_md = &tensorflow__profiler__xstat_metadata__descriptor;

      tags.space_planes = tag_of (space, "planes");
      tags.space_errors = tag_of (space, "errors");
      tags.space_warnings = tag_of (space, "warnings");
      tags.space_hostnames = tag_of (space, "hostnames");
      tags.plane_id = tag_of (plane, "id");
      tags.plane_name = tag_of (plane, "name");
      tags.plane_lines = tag_of (plane, "lines");
      tags.plane_event_metadata = tag_of (plane, "event_metadata");
      tags.plane_stat_metadata = tag_of (plane, "stat_metadata");
      tags.plane_stats = tag_of (plane, "stats");
      tags.event_entry_key = tag_of (event_entry, "key");
      tags.event_entry_value = tag_of (event_entry, "value");
      tags.stat_entry_key = tag_of (stat_entry, "key");
      tags.stat_entry_value = tag_of (stat_entry, "value");
      tags.line_id = tag_of (line, "id");
      tags.line_display_id = tag_of (line, "display_id");
      tags.line_name = tag_of (line, "name");
      tags.line_timestamp_ns = tag_of (line, "timestamp_ns");
      tags.line_events = tag_of (line, "events");
      tags.event_metadata_id = tag_of (event, "metadata_id");
      tags.event_offset_ps = tag_of (event, "offset_ps");
      tags.event_duration_ps = tag_of (event, "duration_ps");
      tags.event_stats = tag_of (event, "stats");
      tags.stat_metadata_id = tag_of (stat, "metadata_id");
      tags.stat_double = tag_of (stat, "double_value");
      tags.stat_uint64 = tag_of (stat, "uint64_value");
      tags.stat_int64 = tag_of (stat, "int64_value");
      tags.stat_str = tag_of (stat, "str_value");
      tags.stat_bytes = tag_of (stat, "bytes_value");
      tags.stat_ref = tag_of (stat, "ref_value");
      tags.event_md_id = tag_of (event_md, "id");
      tags.event_md_name = tag_of (event_md, "name");
      tags.stat_md_id = tag_of (stat_md, "id");
      tags.stat_md_name = tag_of (stat_md, "name");
      g_once_init_leave (&once, 1);
    }
}

/* ------------------------------------------------------------------------
 * The buffer
 * ------------------------------------------------------------------------ */

/* Sizes are gsize: a plane may pass the 4 GiB a GByteArray holds. */
typedef struct
{
  guint8 *data;
  gsize   len;
  gsize   cap;
} Buf;

static void
buf_grow (Buf  *b,
          gsize extra)
{
  gsize cap = MAX (b->cap, 4096);

  while (cap - b->len < extra)
    cap *= 2;
  b->data = g_realloc (b->data, cap);
  b->cap = cap;
}

static inline void
buf_reserve (Buf  *b,
             gsize extra)
{
  if (G_UNLIKELY (b->cap - b->len < extra))
    buf_grow (b, extra);
}

static inline void
buf_append (Buf        *b,
            const void *data,
            gsize       len)
{
  if (len == 0)
    return;
  buf_reserve (b, len);
  memcpy (b->data + b->len, data, len);
  b->len += len;
}

static inline guint
varint_size (guint64 value)
{
  guint n = 1;

  while (value >= 0x80)
    {
      value >>= 7;
      n++;
    }
  return n;
}

static inline void
put_varint_at (guint8  *p,
               guint64  value)
{
  while (value >= 0x80)
    {
      *p++ = (guint8) (value | 0x80);
      value >>= 7;
    }
  *p = (guint8) value;
}

static inline void
buf_varint (Buf     *b,
            guint64  value)
{
  buf_reserve (b, 10);
  put_varint_at (b->data + b->len, value);
  b->len += varint_size (value);
}

static inline void
buf_varint_field (Buf     *b,
                  guint32  tag,
                  guint64  value)
{
  buf_varint (b, tag);
  buf_varint (b, value);
}

static inline void
buf_double_field (Buf     *b,
                  guint32  tag,
                  double   value)
{
  guint64 bits;

  memcpy (&bits, &value, sizeof bits);
  bits = GUINT64_TO_LE (bits);
  buf_varint (b, tag);
  buf_append (b, &bits, sizeof bits);
}

static void
buf_bytes_field (Buf          *b,
                 guint32       tag,
                 const guint8 *data,
                 gsize         len)
{
  buf_varint (b, tag);
  buf_varint (b, len);
  buf_append (b, data, len);
}

/* A string field, made valid UTF-8 when it is not. */
static void
buf_string_field (Buf        *b,
                  guint32     tag,
                  const char *text,
                  gssize      len)
{
  gsize n = len < 0 ? strlen (text) : (gsize) len;

  if (G_LIKELY (g_utf8_validate_len (text, n, NULL)))
    buf_bytes_field (b, tag, (const guint8 *) text, n);
  else
    {
      g_autofree char *valid = g_utf8_make_valid (text, (gssize) n);

      buf_bytes_field (b, tag, (const guint8 *) valid, strlen (valid));
    }
}

/* Begins a nested message: its tag, and one byte kept for its length.
 * Returns where that byte is. */
static inline gsize
buf_open (Buf     *b,
          guint32  tag)
{
  buf_varint (b, tag);
  buf_reserve (b, 1);
  b->data[b->len] = 0;
  return b->len++;
}

/* Ends the nested message whose length byte is at @at. */
static inline void
buf_close (Buf   *b,
           gsize  at)
{
  gsize body = b->len - at - 1;
  guint n = varint_size (body);

  if (G_UNLIKELY (n > 1))
    {
      buf_reserve (b, n - 1);
      memmove (b->data + at + n, b->data + at + 1, body);
      b->len += n - 1;
    }
  put_varint_at (b->data + at, body);
}

/* ------------------------------------------------------------------------
 * The writer
 * ------------------------------------------------------------------------ */

typedef struct
{
  GHashTable *ids;
  GPtrArray  *names;
} Interned;

struct _PlanarXSpaceWriter
{
  /* -1 in memory. */
  int         fd;
  /* A file writer's target and temporary file. */
  char       *path;
  char       *tmp_path;
  GError     *error;

  Buf         buf;
  gboolean    in_plane;
  gboolean    in_line;
  gboolean    in_event;
  gboolean    plane_has_lines;
  gsize       plane_at;
  gsize       line_at;
  gsize       event_at;
  gint64      line_display_id;
  gboolean    has_line_display_id;

  Interned    event_md;
  Interned    stat_md;
  /* The plane's own stats, encoded as XPlane.stats fields. */
  Buf         plane_stats;

  GPtrArray  *errors;
  GPtrArray  *warnings;
  GPtrArray  *hostnames;
};

static void
interned_init (Interned *in)
{
  in->ids = g_hash_table_new_full (_planar_str_hash, _planar_str_equal, g_free, NULL);
  in->names = g_ptr_array_new_with_free_func (g_free);
}

static void
interned_clear (Interned *in)
{
  g_hash_table_remove_all (in->ids);
  g_ptr_array_set_size (in->names, 0);
}

static void
interned_free (Interned *in)
{
  g_clear_pointer (&in->ids, g_hash_table_unref);
  g_clear_pointer (&in->names, g_ptr_array_unref);
}

static guint64
intern (Interned   *in,
        const char *name)
{
  gpointer id;

  if (g_hash_table_lookup_extended (in->ids, name, NULL, &id))
    return GPOINTER_TO_SIZE (id);
  g_ptr_array_add (in->names, g_utf8_validate (name, -1, NULL) ? g_strdup (name) : g_utf8_make_valid (name, -1));
  /* Keyed by the name asked for, so that an invalid one is found again. */
  g_hash_table_insert (in->ids, g_strdup (name), GSIZE_TO_POINTER (in->names->len));
  return in->names->len;
}

static PlanarXSpaceWriter *
writer_new (int fd)
{
  PlanarXSpaceWriter *self = g_new0 (PlanarXSpaceWriter, 1);

  init_tags ();
  self->fd = fd;
  interned_init (&self->event_md);
  interned_init (&self->stat_md);
  self->errors = g_ptr_array_new_with_free_func (g_free);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  self->hostnames = g_ptr_array_new_with_free_func (g_free);
  return self;
}

PlanarXSpaceWriter *
planar_xspace_writer_new (void)
{
  return writer_new (-1);
}

PlanarXSpaceWriter *
planar_xspace_writer_new_for_fd (int fd)
{
  g_return_val_if_fail (fd >= 0, NULL);

  return writer_new (fd);
}

PlanarXSpaceWriter *
planar_xspace_writer_new_for_file (const char  *path,
                                   GError     **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp_path = NULL;
  PlanarXSpaceWriter *self;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmp_path = g_strdup_printf ("%s%s.%s.XXXXXX", dir, G_DIR_SEPARATOR_S, base);
  fd = g_mkstemp_full (tmp_path, O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      int saved = errno;
      g_autofree char *shown = g_filename_display_name (path);

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"), shown,
                   g_strerror (saved));
      return NULL;
    }
  self = writer_new (fd);
  self->path = g_strdup (path);
  self->tmp_path = g_steal_pointer (&tmp_path);
  return self;
}

void
planar_xspace_writer_free (PlanarXSpaceWriter *self)
{
  if (self == NULL)
    return;
  if (self->tmp_path != NULL)
    {
      close (self->fd);
      g_unlink (self->tmp_path);
    }
  g_free (self->path);
  g_free (self->tmp_path);
  g_clear_error (&self->error);
  g_free (self->buf.data);
  g_free (self->plane_stats.data);
  interned_free (&self->event_md);
  interned_free (&self->stat_md);
  g_ptr_array_unref (self->errors);
  g_ptr_array_unref (self->warnings);
  g_ptr_array_unref (self->hostnames);
  g_free (self);
}

/* Writes out what the buffer holds, for a descriptor or file writer; after
 * a failure only drops it. */
static void
flush (PlanarXSpaceWriter *self)
{
  const guint8 *p = self->buf.data;
  gsize left = self->buf.len;

  if (self->fd < 0)
    return;
  while (self->error == NULL && left > 0)
    {
      ssize_t n = write (self->fd, p, MIN (left, (gsize) G_MAXSSIZE));

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = n < 0 ? errno : ENOSPC;
          g_autofree char *shown = self->path != NULL ? g_filename_display_name (self->path) : g_strdup ("the XSpace");

          g_set_error (&self->error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"), shown,
                       g_strerror (saved));
          break;
        }
      p += n;
      left -= (gsize) n;
    }
  self->buf.len = 0;
}

static void
end_event (PlanarXSpaceWriter *self)
{
  if (!self->in_event)
    return;
  buf_close (&self->buf, self->event_at);
  self->in_event = FALSE;
}

static void
end_line (PlanarXSpaceWriter *self)
{
  end_event (self);
  if (!self->in_line)
    return;
  if (self->has_line_display_id)
    buf_varint_field (&self->buf, tags.line_display_id, (guint64) self->line_display_id);
  buf_close (&self->buf, self->line_at);
  self->in_line = FALSE;
}

static void
end_plane (PlanarXSpaceWriter *self)
{
  end_line (self);
  if (!self->in_plane)
    return;
  for (guint i = 0; i < self->event_md.names->len; i++)
    {
      gsize entry = buf_open (&self->buf, tags.plane_event_metadata);
      gsize value;

      buf_varint_field (&self->buf, tags.event_entry_key, i + 1);
      value = buf_open (&self->buf, tags.event_entry_value);
      buf_varint_field (&self->buf, tags.event_md_id, i + 1);
      buf_string_field (&self->buf, tags.event_md_name, self->event_md.names->pdata[i], -1);
      buf_close (&self->buf, value);
      buf_close (&self->buf, entry);
    }
  for (guint i = 0; i < self->stat_md.names->len; i++)
    {
      gsize entry = buf_open (&self->buf, tags.plane_stat_metadata);
      gsize value;

      buf_varint_field (&self->buf, tags.stat_entry_key, i + 1);
      value = buf_open (&self->buf, tags.stat_entry_value);
      buf_varint_field (&self->buf, tags.stat_md_id, i + 1);
      buf_string_field (&self->buf, tags.stat_md_name, self->stat_md.names->pdata[i], -1);
      buf_close (&self->buf, value);
      buf_close (&self->buf, entry);
    }
  buf_append (&self->buf, self->plane_stats.data, self->plane_stats.len);
  self->plane_stats.len = 0;
  buf_close (&self->buf, self->plane_at);
  self->in_plane = FALSE;
  interned_clear (&self->event_md);
  interned_clear (&self->stat_md);
  flush (self);
}

void
planar_xspace_writer_begin_plane (PlanarXSpaceWriter *self,
                                  gint64              id,
                                  const char         *name)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);

  end_plane (self);
  self->plane_at = buf_open (&self->buf, tags.space_planes);
  if (id != 0)
    buf_varint_field (&self->buf, tags.plane_id, (guint64) id);
  if (name[0] != '\0')
    buf_string_field (&self->buf, tags.plane_name, name, -1);
  self->in_plane = TRUE;
  self->plane_has_lines = FALSE;
}

guint64
planar_xspace_writer_event_metadata (PlanarXSpaceWriter *self,
                                     const char         *name)
{
  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (self->in_plane, 0);
  g_return_val_if_fail (name != NULL, 0);

  return intern (&self->event_md, name);
}

guint64
planar_xspace_writer_stat_metadata (PlanarXSpaceWriter *self,
                                    const char         *name)
{
  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (self->in_plane, 0);
  g_return_val_if_fail (name != NULL, 0);

  return intern (&self->stat_md, name);
}

void
planar_xspace_writer_add_line (PlanarXSpaceWriter *self,
                               gint64              id,
                               const char         *name,
                               gint64              timestamp_ns)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->in_plane);
  g_return_if_fail (name != NULL);

  end_line (self);
  self->line_at = buf_open (&self->buf, tags.plane_lines);
  if (id != 0)
    buf_varint_field (&self->buf, tags.line_id, (guint64) id);
  if (name[0] != '\0')
    buf_string_field (&self->buf, tags.line_name, name, -1);
  if (timestamp_ns != 0)
    buf_varint_field (&self->buf, tags.line_timestamp_ns, (guint64) timestamp_ns);
  self->in_line = TRUE;
  self->plane_has_lines = TRUE;
  self->has_line_display_id = FALSE;
}

void
planar_xspace_writer_set_line_display_id (PlanarXSpaceWriter *self,
                                          gint64              display_id)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->in_line);

  self->line_display_id = display_id;
  self->has_line_display_id = display_id != 0;
}

void
planar_xspace_writer_add_event (PlanarXSpaceWriter *self,
                                guint64             metadata_id,
                                gint64              offset_ps,
                                gint64              duration_ps)
{
  Buf *b;

  g_return_if_fail (self != NULL);
  g_return_if_fail (self->in_line);

  end_event (self);
  b = &self->buf;
  self->event_at = buf_open (b, tags.line_events);
  if (metadata_id != 0)
    buf_varint_field (b, tags.event_metadata_id, metadata_id);
  /* A member of a oneof: written even when 0, which says it is set (an
   * event with a time, not an aggregate). */
  buf_varint_field (b, tags.event_offset_ps, (guint64) offset_ps);
  if (duration_ps != 0)
    buf_varint_field (b, tags.event_duration_ps, (guint64) duration_ps);
  self->in_event = TRUE;
}

/* Where a stat goes now, opened with its metadata id; NULL on misuse. */
static Buf *
open_stat (PlanarXSpaceWriter *self,
           guint64             stat_id,
           gsize              *at)
{
  Buf *b;

  if (self->in_event)
    {
      b = &self->buf;
      *at = buf_open (b, tags.event_stats);
    }
  else if (self->in_plane && !self->plane_has_lines)
    {
      b = &self->plane_stats;
      *at = buf_open (b, tags.plane_stats);
    }
  else
    {
      g_critical ("planar_xspace_writer: a stat with no event or plane to hold it");
      return NULL;
    }
  if (stat_id != 0)
    buf_varint_field (b, tags.stat_metadata_id, stat_id);
  return b;
}

void
planar_xspace_writer_add_stat_int64 (PlanarXSpaceWriter *self,
                                     guint64             stat_id,
                                     gint64              value)
{
  Buf *b;
  gsize at;

  g_return_if_fail (self != NULL);
  if ((b = open_stat (self, stat_id, &at)) == NULL)
    return;
  buf_varint_field (b, tags.stat_int64, (guint64) value);
  buf_close (b, at);
}

void
planar_xspace_writer_add_stat_uint64 (PlanarXSpaceWriter *self,
                                      guint64             stat_id,
                                      guint64             value)
{
  Buf *b;
  gsize at;

  g_return_if_fail (self != NULL);
  if ((b = open_stat (self, stat_id, &at)) == NULL)
    return;
  buf_varint_field (b, tags.stat_uint64, value);
  buf_close (b, at);
}

void
planar_xspace_writer_add_stat_double (PlanarXSpaceWriter *self,
                                      guint64             stat_id,
                                      double              value)
{
  Buf *b;
  gsize at;

  g_return_if_fail (self != NULL);
  if ((b = open_stat (self, stat_id, &at)) == NULL)
    return;
  buf_double_field (b, tags.stat_double, value);
  buf_close (b, at);
}

void
planar_xspace_writer_add_stat_string (PlanarXSpaceWriter *self,
                                      guint64             stat_id,
                                      const char         *value,
                                      gssize              len)
{
  Buf *b;
  gsize at;

  g_return_if_fail (self != NULL);
  g_return_if_fail (value != NULL || len == 0);
  if ((b = open_stat (self, stat_id, &at)) == NULL)
    return;
  buf_string_field (b, tags.stat_str, value != NULL ? value : "", len);
  buf_close (b, at);
}

void
planar_xspace_writer_add_stat_bytes (PlanarXSpaceWriter *self,
                                     guint64             stat_id,
                                     const guint8       *value,
                                     gsize               len)
{
  Buf *b;
  gsize at;

  g_return_if_fail (self != NULL);
  g_return_if_fail (value != NULL || len == 0);
  if ((b = open_stat (self, stat_id, &at)) == NULL)
    return;
  buf_bytes_field (b, tags.stat_bytes, value, len);
  buf_close (b, at);
}

void
planar_xspace_writer_add_stat_ref (PlanarXSpaceWriter *self,
                                   guint64             stat_id,
                                   guint64             ref_id)
{
  Buf *b;
  gsize at;

  g_return_if_fail (self != NULL);
  if ((b = open_stat (self, stat_id, &at)) == NULL)
    return;
  buf_varint_field (b, tags.stat_ref, ref_id);
  buf_close (b, at);
}

void
planar_xspace_writer_add_error (PlanarXSpaceWriter *self,
                                const char         *message)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (message != NULL);

  g_ptr_array_add (self->errors, g_strdup (message));
}

void
planar_xspace_writer_add_warning (PlanarXSpaceWriter *self,
                                  const char         *message)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (message != NULL);

  g_ptr_array_add (self->warnings, g_strdup (message));
}

void
planar_xspace_writer_add_hostname (PlanarXSpaceWriter *self,
                                   const char         *hostname)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (hostname != NULL);

  g_ptr_array_add (self->hostnames, g_strdup (hostname));
}

static void
end_space (PlanarXSpaceWriter *self)
{
  end_plane (self);
  for (guint i = 0; i < self->errors->len; i++)
    buf_string_field (&self->buf, tags.space_errors, self->errors->pdata[i], -1);
  for (guint i = 0; i < self->warnings->len; i++)
    buf_string_field (&self->buf, tags.space_warnings, self->warnings->pdata[i], -1);
  for (guint i = 0; i < self->hostnames->len; i++)
    buf_string_field (&self->buf, tags.space_hostnames, self->hostnames->pdata[i], -1);
  flush (self);
}

gboolean
planar_xspace_writer_finish (PlanarXSpaceWriter  *self,
                             GError             **error)
{
  /* Unrefs the writer on every return (clang calls it unused). */
  G_GNUC_UNUSED g_autoptr(PlanarXSpaceWriter) owned = self;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (self->fd >= 0, FALSE);

  end_space (self);
  if (self->error == NULL && self->tmp_path != NULL)
    {
      int fd = self->fd;
      g_autofree char *shown = g_filename_display_name (self->path);

      self->fd = -1;
      if (fsync (fd) != 0 || close (fd) != 0)
        {
          int saved = errno;

          g_set_error (&self->error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"), shown,
                       g_strerror (saved));
        }
      else if (g_rename (self->tmp_path, self->path) != 0)
        {
          int saved = errno;

          g_set_error (&self->error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"), shown,
                       g_strerror (saved));
        }
      else
        g_clear_pointer (&self->tmp_path, g_free);
      if (self->tmp_path != NULL)
        {
          g_unlink (self->tmp_path);
          g_clear_pointer (&self->tmp_path, g_free);
        }
    }
  if (self->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->error));
      return FALSE;
    }
  return TRUE;
}

GBytes *
planar_xspace_writer_finish_bytes (PlanarXSpaceWriter *self)
{
  /* Unrefs the writer on every return (clang calls it unused). */
  G_GNUC_UNUSED g_autoptr(PlanarXSpaceWriter) owned = self;
  GBytes *bytes;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (self->fd < 0, NULL);

  end_space (self);
  bytes = g_bytes_new_take (g_steal_pointer (&self->buf.data), self->buf.len);
  self->buf.len = self->buf.cap = 0;
  return bytes;
}
