/* planar-json-writer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-json-writer.h"

#include <math.h>
#include <string.h>

#define FLUSH_SIZE (64 * 1024)

struct _PlanarJsonWriter
{
  GOutputStream *stream;
  GString       *buffer;
  GError        *error;
  /* One entry per open container: whether it has a member yet. */
  GArray        *has_member;
  gboolean       after_key;
  gboolean       pretty;
};

PlanarJsonWriter *
planar_json_writer_new (GOutputStream *stream,
                        gboolean       pretty)
{
  PlanarJsonWriter *self;

  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), NULL);

  self = g_new0 (PlanarJsonWriter, 1);
  self->stream = g_object_ref (stream);
  self->buffer = g_string_sized_new (FLUSH_SIZE * 2);
  self->has_member = g_array_new (FALSE, FALSE, sizeof (gboolean));
  self->pretty = pretty;
  return self;
}

static void
flush (PlanarJsonWriter *self)
{
  if (self->error == NULL && self->buffer->len > 0)
    g_output_stream_write_all (self->stream, self->buffer->str, self->buffer->len,
                               NULL, NULL, &self->error);
  g_string_truncate (self->buffer, 0);
}

void
planar_json_writer_free (PlanarJsonWriter *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->stream);
  g_string_free (self->buffer, TRUE);
  g_array_unref (self->has_member);
  g_clear_error (&self->error);
  g_free (self);
}

gboolean
planar_json_writer_finish (PlanarJsonWriter  *self,
                           GError           **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->pretty)
    g_string_append_c (self->buffer, '\n');
  flush (self);
  if (self->error == NULL)
    g_output_stream_flush (self->stream, NULL, &self->error);
  if (self->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->error));
      return FALSE;
    }
  return TRUE;
}

static void
newline (PlanarJsonWriter *self)
{
  g_string_append_c (self->buffer, '\n');
  for (guint i = 0; i < self->has_member->len; i++)
    g_string_append (self->buffer, "  ");
}

/* Puts the separator a new value needs. */
static void
before_value (PlanarJsonWriter *self)
{
  if (self->after_key)
    {
      self->after_key = FALSE;
      return;
    }
  if (self->has_member->len > 0)
    {
      gboolean *has = &g_array_index (self->has_member, gboolean, self->has_member->len - 1);

      if (*has)
        g_string_append_c (self->buffer, ',');
      *has = TRUE;
      if (self->pretty)
        newline (self);
    }
}

static void
after_value (PlanarJsonWriter *self)
{
  if (self->buffer->len >= FLUSH_SIZE)
    flush (self);
}

static void
open_container (PlanarJsonWriter *self,
                char              c)
{
  gboolean no = FALSE;

  before_value (self);
  g_string_append_c (self->buffer, c);
  g_array_append_val (self->has_member, no);
}

static void
close_container (PlanarJsonWriter *self,
                 char              c)
{
  gboolean had;

  g_return_if_fail (self->has_member->len > 0);
  had = g_array_index (self->has_member, gboolean, self->has_member->len - 1);
  g_array_set_size (self->has_member, self->has_member->len - 1);
  if (self->pretty && had)
    newline (self);
  g_string_append_c (self->buffer, c);
  after_value (self);
}

void
planar_json_writer_begin_object (PlanarJsonWriter *self)
{
  open_container (self, '{');
}

void
planar_json_writer_end_object (PlanarJsonWriter *self)
{
  close_container (self, '}');
}

void
planar_json_writer_begin_array (PlanarJsonWriter *self)
{
  open_container (self, '[');
}

void
planar_json_writer_end_array (PlanarJsonWriter *self)
{
  close_container (self, ']');
}

static void
append_escaped (GString    *out,
                const char *str,
                gsize       len)
{
  const char *p = str;
  const char *end = str + len;

  g_string_append_c (out, '"');
  while (p < end)
    {
      guchar c = (guchar) *p;

      if (c < 0x80)
        {
          switch (c)
            {
            case '"':
              g_string_append (out, "\\\"");
              break;
            case '\\':
              g_string_append (out, "\\\\");
              break;
            case '\n':
              g_string_append (out, "\\n");
              break;
            case '\r':
              g_string_append (out, "\\r");
              break;
            case '\t':
              g_string_append (out, "\\t");
              break;
            default:
              if (c < 0x20 || c == 0x7f)
                g_string_append_printf (out, "\\u%04x", c);
              else
                g_string_append_c (out, (char) c);
            }
          p++;
        }
      else
        {
          const char *next;
          gunichar ch = g_utf8_get_char_validated (p, end - p);

          if (ch == (gunichar) -1 || ch == (gunichar) -2)
            {
              /* Names in profiles are bytes; one bad byte must not make the
               * whole document invalid. */
              g_string_append (out, "\xef\xbf\xbd");
              p++;
              continue;
            }
          next = g_utf8_next_char (p);
          /* C1 controls (CSI, OSC, ...) drive many terminals as ESC does,
           * and JSON output is read on terminals too. */
          if (ch <= 0x9f)
            g_string_append_printf (out, "\\u%04x", ch);
          else
            g_string_append_len (out, p, next - p);
          p = next;
        }
    }
  g_string_append_c (out, '"');
}

void
planar_json_writer_key (PlanarJsonWriter *self,
                        const char       *key)
{
  g_return_if_fail (key != NULL);
  g_return_if_fail (!self->after_key);

  before_value (self);
  append_escaped (self->buffer, key, strlen (key));
  g_string_append (self->buffer, self->pretty ? ": " : ":");
  self->after_key = TRUE;
}

void
planar_json_writer_string_len (PlanarJsonWriter *self,
                               const char       *str,
                               gsize             len)
{
  before_value (self);
  append_escaped (self->buffer, str ? str : "", str ? len : 0);
  after_value (self);
}

void
planar_json_writer_string (PlanarJsonWriter *self,
                           const char       *str)
{
  planar_json_writer_string_len (self, str, str ? strlen (str) : 0);
}

void
planar_json_writer_int (PlanarJsonWriter *self,
                        gint64            value)
{
  before_value (self);
  g_string_append_printf (self->buffer, "%" G_GINT64_FORMAT, value);
  after_value (self);
}

void
planar_json_writer_uint (PlanarJsonWriter *self,
                         guint64           value)
{
  before_value (self);
  g_string_append_printf (self->buffer, "%" G_GUINT64_FORMAT, value);
  after_value (self);
}

void
planar_json_writer_double (PlanarJsonWriter *self,
                           double            value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  before_value (self);
  if (isfinite (value))
    g_string_append (self->buffer, g_ascii_dtostr (buf, sizeof buf, value));
  else
    g_string_append (self->buffer, "null");
  after_value (self);
}

void
planar_json_writer_boolean (PlanarJsonWriter *self,
                            gboolean          value)
{
  before_value (self);
  g_string_append (self->buffer, value ? "true" : "false");
  after_value (self);
}

void
planar_json_writer_null (PlanarJsonWriter *self)
{
  before_value (self);
  g_string_append (self->buffer, "null");
  after_value (self);
}

void
planar_json_writer_raw (PlanarJsonWriter *self,
                        const char       *json)
{
  before_value (self);
  g_string_append (self->buffer, json);
  after_value (self);
}
