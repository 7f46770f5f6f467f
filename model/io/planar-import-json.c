/* planar-import-json.c: the Chrome JSON import's yajl callbacks.
 *
 * The document is read with yajl's event parser, fed in chunks (through a
 * gzip decompressor when it is compressed), so that a gigabyte of JSON
 * never becomes a tree. The callbacks follow the nesting to the events
 * array and gather each trace event's fields into imp->r; the record's
 * args are encoded as they come (planar-import-records.c) and the record
 * is handed over when its object ends.
 *
 * Nothing here recurses on the input: nesting is a counter, and nested
 * args values are turned back into JSON text with an explicit stack.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-importer-private.h"

#include <glib/gi18n-lib.h>

#include <inttypes.h>

#include <errno.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "planar-error.h"

#define CHUNK (256 * 1024)

/* ------------------------------------------------------------------------
 * Nested args values, written back as JSON text
 * ------------------------------------------------------------------------ */

static void
nested_begin_value (PlanarImporter *imp)
{
  if (imp->nested_after_key)
    {
      imp->nested_after_key = FALSE;
      return;
    }
  if (imp->nested_comma->len > 0)
    {
      if (imp->nested_comma->data[imp->nested_comma->len - 1])
        g_string_append_c (imp->nested, ',');
      imp->nested_comma->data[imp->nested_comma->len - 1] = 1;
    }
}

static void
nested_append_string (PlanarImporter *imp,
                      const char     *text,
                      gsize           len)
{
  g_string_append_c (imp->nested, '"');
  for (gsize i = 0; i < len; i++)
    {
      guchar c = (guchar) text[i];

      if (c == '"' || c == '\\')
        {
          g_string_append_c (imp->nested, '\\');
          g_string_append_c (imp->nested, (char) c);
        }
      else if (c < 0x20)
        g_string_append_printf (imp->nested, "\\u%04x", c);
      else
        g_string_append_c (imp->nested, (char) c);
    }
  g_string_append_c (imp->nested, '"');
}

static void
nested_open (PlanarImporter *imp,
             char            bracket)
{
  if (imp->nested_depth == 0)
    {
      g_string_truncate (imp->nested, 0);
      g_byte_array_set_size (imp->nested_comma, 0);
      imp->nested_after_key = FALSE;
    }
  else
    nested_begin_value (imp);
  g_string_append_c (imp->nested, bracket);
  g_byte_array_append (imp->nested_comma, (const guint8 *) "\0", 1);
  imp->nested_depth++;
}

static void
nested_close (PlanarImporter *imp,
              char            bracket)
{
  g_string_append_c (imp->nested, bracket);
  g_byte_array_set_size (imp->nested_comma, imp->nested_comma->len - 1);
  imp->nested_depth--;
  if (imp->nested_depth == 0)
    _planar_importer_arg_string (imp, imp->nested->str, imp->nested->len);
}


/* ------------------------------------------------------------------------
 * yajl callbacks
 * ------------------------------------------------------------------------ */

/* Whether @text is a JSON number, nothing else. */
static gboolean
is_json_number (const char *text,
                gsize       len)
{
  gsize i = 0;
  gsize digits;

  if (i < len && text[i] == '-')
    i++;
  for (digits = i; i < len && g_ascii_isdigit (text[i]); i++)
    ;
  if (i == digits)
    return FALSE;
  if (i < len && text[i] == '.')
    {
      for (digits = ++i; i < len && g_ascii_isdigit (text[i]); i++)
        ;
      if (i == digits)
        return FALSE;
    }
  if (i < len && (text[i] == 'e' || text[i] == 'E'))
    {
      i++;
      if (i < len && (text[i] == '+' || text[i] == '-'))
        i++;
      for (digits = i; i < len && g_ascii_isdigit (text[i]); i++)
        ;
      if (i == digits)
        return FALSE;
    }
  return i == len;
}

/* Where a value that is not a container lands. */
typedef enum
{
  VALUE_STRING,
  VALUE_NUMBER,
  VALUE_BOOL,
  VALUE_NULL,
} ValueKind;

static int
scalar (PlanarImporter *imp,
        ValueKind       kind,
        const char     *text,
        gsize           len,
        gboolean        boolean)
{
  PlanarImportRecord *r = &imp->r;

  if (imp->skip_depth >= 0)
    return 1;
  if (!imp->root_seen)
    return _planar_importer_fail (imp, "the document is neither an object nor an array of trace events");
  if (imp->next_is_events)
    return _planar_importer_fail (imp, "\"traceEvents\" is not an array");
  if (imp->events_depth >= 0 && imp->depth == imp->events_depth)
    return _planar_importer_fail (imp, "a trace event is not an object");
  if (!imp->in_record)
    return 1;

  if (imp->in_args)
    {
      if (imp->nested_depth > 0)
        {
          nested_begin_value (imp);
          if (kind == VALUE_STRING)
            nested_append_string (imp, text, len);
          else if (kind == VALUE_NUMBER)
            g_string_append_len (imp->nested, text, (gssize) len);
          else if (kind == VALUE_BOOL)
            g_string_append (imp->nested, boolean ? "true" : "false");
          else
            g_string_append (imp->nested, "null");
          return 1;
        }
      /* "M" records keep their name and sort index aside. */
      if (g_strcmp0 (imp->arg_key->str, "name") == 0 && kind == VALUE_STRING)
        {
          g_string_assign (r->meta_name, "");
          g_string_append_len (r->meta_name, text, (gssize) len);
          r->has_meta_name = TRUE;
        }
      if (g_strcmp0 (imp->arg_key->str, "labels") == 0 && kind == VALUE_STRING)
        {
          g_string_assign (r->meta_labels, "");
          g_string_append_len (r->meta_labels, text, (gssize) len);
          r->has_meta_labels = TRUE;
        }
      if (g_strcmp0 (imp->arg_key->str, "sort_index") == 0 && kind == VALUE_NUMBER)
        {
          r->meta_sort_index = g_ascii_strtoll (text, NULL, 10);
          r->has_meta_sort_index = TRUE;
        }
      if (kind == VALUE_STRING)
        _planar_importer_arg_string (imp, text, len);
      else if (kind == VALUE_NUMBER)
        {
          g_autofree char *copy = g_strndup (text, len);
          double value = g_ascii_strtod (copy, NULL);

          _planar_importer_arg_number (imp, text, len);
          g_string_append_len (r->number_keys, imp->arg_key->str, (gssize) imp->arg_key->len);
          g_string_append_c (r->number_keys, '\0');
          g_array_append_val (r->number_values, value);
        }
      else if (kind == VALUE_BOOL)
        _planar_importer_arg_int (imp, boolean ? 1 : 0);
      return 1;
    }

  if (imp->depth != imp->events_depth + 1)
    return 1;

  switch (imp->field)
    {
    case PLANAR_IMPORT_FIELD_PH:
      if (kind != VALUE_STRING || len == 0 || len >= sizeof r->ph)
        return _planar_importer_fail (imp, "\"ph\" is not a phase letter");
      memcpy (r->ph, text, len);
      r->ph[len] = '\0';
      r->has_ph = TRUE;
      break;
    case PLANAR_IMPORT_FIELD_NAME:
      if (kind == VALUE_STRING || kind == VALUE_NUMBER)
        {
          g_string_append_len (r->name, text, (gssize) len);
          r->has_name = TRUE;
        }
      break;
    case PLANAR_IMPORT_FIELD_CAT:
      if (kind == VALUE_STRING)
        g_string_append_len (r->cat, text, (gssize) len);
      break;
    case PLANAR_IMPORT_FIELD_PID:
    case PLANAR_IMPORT_FIELD_TID:
      {
        GString *target = imp->field == PLANAR_IMPORT_FIELD_PID ? r->pid : r->tid;
        gboolean digits = len > 0;

        /* "1234" and 1234 are one thread to Chrome and Perfetto (Kineto
         * writes both); other strings are names. */
        for (gsize i = 0; i < len && digits; i++)
          digits = g_ascii_isdigit (text[i]) || (i == 0 && text[i] == '-' && len > 1);
        if (kind == VALUE_STRING && !digits)
          g_string_append_c (target, '"');
        if (kind == VALUE_NUMBER || digits)
          {
            /* One spelling per number: -7 and "-7", 0 and -0, 1000 and
             * 1e3 are one thread, printed as a signed decimal as Chrome's
             * tools print ids. */
            g_autofree char *copy = g_strndup (text, len);
            char *end = NULL;
            gint64 value;

            errno = 0;
            value = g_ascii_strtoll (copy, &end, 10);
            if (errno == 0 && end != copy && *end == '\0')
              {
                g_string_append_printf (target, "%" G_GINT64_FORMAT, value);
                break;
              }
            {
              double d = g_ascii_strtod (copy, &end);

              /* The range first: casting a double beyond gint64 is undefined. */
              if (end != copy && *end == '\0' && d > -9.2e18 && d < 9.2e18 && d == (double) (gint64) d)
                {
                  g_string_append_printf (target, "%" G_GINT64_FORMAT, (gint64) d);
                  break;
                }
            }
          }
        if (kind == VALUE_STRING || kind == VALUE_NUMBER)
          g_string_append_len (target, text, (gssize) len);
      }
      break;
    case PLANAR_IMPORT_FIELD_TS:
    case PLANAR_IMPORT_FIELD_DUR:
      /* A number, or a string holding one ("ts": "12.5"), which Perfetto
       * reads too (json_trace_tokenizer.cc, CoerceToTs). */
      if (kind != VALUE_NUMBER && !(kind == VALUE_STRING && is_json_number (text, len)))
        return _planar_importer_fail (imp, "\"%s\" is not a number",
                                      imp->field == PLANAR_IMPORT_FIELD_TS ? "ts" : "dur");
      if (imp->field == PLANAR_IMPORT_FIELD_TS)
        {
          if (!_planar_importer_parse_time (imp, text, len, FALSE, &r->ts_ps))
            return 0;
          r->has_ts = TRUE;
        }
      else
        {
          if (!_planar_importer_parse_time (imp, text, len, TRUE, &r->dur_ps))
            return 0;
          r->has_dur = TRUE;
        }
      break;
    case PLANAR_IMPORT_FIELD_ID:
    case PLANAR_IMPORT_FIELD_BIND_ID:
      if (kind == VALUE_STRING || kind == VALUE_NUMBER)
        {
          GString *target = imp->field == PLANAR_IMPORT_FIELD_ID ? r->id : r->bind_id;

          g_string_append_len (target, text, (gssize) len);
          if (imp->field == PLANAR_IMPORT_FIELD_ID)
            r->has_id = TRUE;
          else
            r->has_bind_id = TRUE;
        }
      break;
    case PLANAR_IMPORT_FIELD_FLOW_IN:
      r->flow_in = kind == VALUE_BOOL && boolean;
      break;
    case PLANAR_IMPORT_FIELD_FLOW_OUT:
      r->flow_out = kind == VALUE_BOOL && boolean;
      break;
    case PLANAR_IMPORT_FIELD_BP:
      r->bp_enclosing = kind == VALUE_STRING && len == 1 && text[0] == 'e';
      break;
    case PLANAR_IMPORT_FIELD_SCOPE:
      r->scope = kind == VALUE_STRING && len == 1 ? text[0] : 0;
      break;
    case PLANAR_IMPORT_FIELD_ARGS:
    case PLANAR_IMPORT_FIELD_OTHER:
    case PLANAR_IMPORT_FIELD_NONE:
    default:
      break;
    }
  return 1;
}

static int
on_null (void *ctx)
{
  return scalar (ctx, VALUE_NULL, NULL, 0, FALSE);
}

static int
on_boolean (void *ctx,
            int   value)
{
  return scalar (ctx, VALUE_BOOL, NULL, 0, value != 0);
}

static int
on_number (void       *ctx,
           const char *text,
           size_t      len)
{
  return scalar (ctx, VALUE_NUMBER, text, len, FALSE);
}

static int
on_string (void                *ctx,
           const unsigned char *text,
           size_t               len)
{
  return scalar (ctx, VALUE_STRING, (const char *) text, len, FALSE);
}

static int
open_container (PlanarImporter *imp,
                gboolean        is_map)
{
  imp->depth++;
  if (imp->skip_depth >= 0)
    return 1;

  if (!imp->root_seen)
    {
      imp->root_seen = TRUE;
      imp->root_is_object = is_map;
      if (!is_map)
        imp->events_depth = 1;
      return 1;
    }
  if (imp->next_is_events)
    {
      imp->next_is_events = FALSE;
      if (is_map)
        return _planar_importer_fail (imp, "\"traceEvents\" is not an array");
      imp->events_depth = imp->depth;
      return 1;
    }
  if (imp->events_depth >= 0 && imp->depth == imp->events_depth + 1)
    {
      if (!is_map)
        return _planar_importer_fail (imp, "a trace event is not an object");
      imp->in_record = TRUE;
      imp->field = PLANAR_IMPORT_FIELD_NONE;
      _planar_importer_reset_record (imp);
      return 1;
    }
  if (imp->in_record && imp->depth == imp->events_depth + 2)
    {
      if (imp->field == PLANAR_IMPORT_FIELD_ARGS && is_map)
        {
          imp->in_args = TRUE;
          return 1;
        }
      /* Another object or array field (stack frames, ...): skipped. */
      imp->skip_depth = imp->depth;
      return 1;
    }
  if (imp->in_args)
    {
      nested_open (imp, is_map ? '{' : '[');
      return 1;
    }
  /* Anything else outside the events (metadata, stack frames): skipped. */
  imp->skip_depth = imp->depth;
  return 1;
}

static int
close_container (PlanarImporter *imp,
                 gboolean        is_map)
{
  int depth = imp->depth--;

  if (imp->skip_depth >= 0)
    {
      if (depth == imp->skip_depth)
        imp->skip_depth = -1;
      return 1;
    }
  if (imp->in_args && imp->nested_depth > 0)
    {
      nested_close (imp, is_map ? '}' : ']');
      return 1;
    }
  if (imp->in_args && depth == imp->events_depth + 2)
    {
      imp->in_args = FALSE;
      return 1;
    }
  if (imp->in_record && depth == imp->events_depth + 1)
    {
      imp->in_record = FALSE;
      _planar_importer_finish_record (imp);
      return imp->error == NULL;
    }
  if (depth == imp->events_depth)
    imp->events_depth = -2;
  return 1;
}

static int
on_start_map (void *ctx)
{
  return open_container (ctx, TRUE);
}

static int
on_end_map (void *ctx)
{
  return close_container (ctx, TRUE);
}

static int
on_start_array (void *ctx)
{
  return open_container (ctx, FALSE);
}

static int
on_end_array (void *ctx)
{
  return close_container (ctx, FALSE);
}

static PlanarImportField
field_for (const char *key,
           gsize       len)
{
  static const struct { const char *name; PlanarImportField field; } fields[] = {
    { "ph", PLANAR_IMPORT_FIELD_PH },
    { "name", PLANAR_IMPORT_FIELD_NAME },
    { "cat", PLANAR_IMPORT_FIELD_CAT },
    { "pid", PLANAR_IMPORT_FIELD_PID },
    { "tid", PLANAR_IMPORT_FIELD_TID },
    { "ts", PLANAR_IMPORT_FIELD_TS },
    { "dur", PLANAR_IMPORT_FIELD_DUR },
    { "id", PLANAR_IMPORT_FIELD_ID },
    { "bind_id", PLANAR_IMPORT_FIELD_BIND_ID },
    { "flow_in", PLANAR_IMPORT_FIELD_FLOW_IN },
    { "flow_out", PLANAR_IMPORT_FIELD_FLOW_OUT },
    { "bp", PLANAR_IMPORT_FIELD_BP },
    { "s", PLANAR_IMPORT_FIELD_SCOPE },
    { "args", PLANAR_IMPORT_FIELD_ARGS },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if (strlen (fields[i].name) == len && memcmp (fields[i].name, key, len) == 0)
      return fields[i].field;
  return PLANAR_IMPORT_FIELD_OTHER;
}

static int
on_map_key (void                *ctx,
            const unsigned char *key,
            size_t               len)
{
  PlanarImporter *imp = ctx;

  if (imp->skip_depth >= 0)
    return 1;
  if (imp->in_args)
    {
      if (imp->nested_depth > 0)
        {
          nested_begin_value (imp);
          nested_append_string (imp, (const char *) key, len);
          g_string_append_c (imp->nested, ':');
          imp->nested_after_key = TRUE;
          return 1;
        }
      g_string_truncate (imp->arg_key, 0);
      g_string_append_len (imp->arg_key, (const char *) key, (gssize) len);
      return 1;
    }
  if (imp->in_record && imp->depth == imp->events_depth + 1)
    {
      imp->field = field_for ((const char *) key, len);
      imp->r.n_keys++;
      return 1;
    }
  if (imp->root_is_object && imp->depth == 1 && imp->events_depth == -1)
    {
      imp->next_is_events = len == strlen ("traceEvents") && memcmp (key, "traceEvents", len) == 0;
      if (!imp->next_is_events)
        {
          /* The value of another top-level key is skipped: scalars pass
           * through scalar(), containers set skip_depth. */
        }
    }
  return 1;
}

static const yajl_callbacks callbacks = {
  on_null, on_boolean, NULL, NULL, on_number, on_string,
  on_start_map, on_map_key, on_end_map, on_start_array, on_end_array,
};


/* ------------------------------------------------------------------------
 * Feeding the parser
 * ------------------------------------------------------------------------ */

static gboolean
feed (PlanarImporter  *imp,
      yajl_handle      parser,
      const guint8    *data,
      gsize            len,
      guint64          offset,
      GError         **error)
{
  yajl_status status = yajl_parse (parser, data, len);

  if (status == yajl_status_ok)
    return TRUE;
  if (imp->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&imp->error));
      return FALSE;
    }
  {
    unsigned char *message = yajl_get_error (parser, 0, data, len);
    g_autofree char *text = g_strstrip (g_strdup ((const char *) message));

    yajl_free_error (parser, message);
    g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, _("%s is not valid JSON at byte %" PRIu64
                 ": %s"), imp->file, offset + yajl_get_bytes_consumed (parser), text);
  }
  return FALSE;
}

gboolean
_planar_importer_parse (PlanarImporter  *imp,
                        const guint8    *data,
                        gsize            size,
                        GError         **error)
{
  yajl_handle parser = yajl_alloc (&callbacks, NULL, imp);
  gboolean ok = TRUE;
  yajl_status status;

  /* Names are made valid UTF-8 where they are used. */
  yajl_config (parser, yajl_dont_validate_strings, 1);

  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
    {
      g_autoptr(GZlibDecompressor) gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
      g_autofree guint8 *out = g_malloc (CHUNK);
      gsize at = 0;
      guint64 produced = 0;

      while (ok)
        {
          gsize read = 0, written = 0;
          g_autoptr(GError) local_error = NULL;
          GConverterResult result = g_converter_convert (G_CONVERTER (gunzip), data + at, size - at, out, CHUNK,
                                                         G_CONVERTER_INPUT_AT_END, &read, &written, &local_error);

          if (result == G_CONVERTER_ERROR)
            {
              g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, "%s: %s", imp->file,
                           g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT)
                           ? "the gzip data is cut short" : local_error->message);
              ok = FALSE;
              break;
            }
          at += read;
          if (written > 0)
            ok = feed (imp, parser, out, written, produced, error);
          produced += written;
          if (result == G_CONVERTER_FINISHED)
            break;
        }
    }
  else
    for (gsize at = 0; ok && at < size; at += CHUNK)
      ok = feed (imp, parser, data + at, MIN (CHUNK, size - at), at, error);

  if (ok)
    {
      status = yajl_complete_parse (parser);
      if (status != yajl_status_ok)
        {
          if (imp->error != NULL)
            g_propagate_error (error, g_steal_pointer (&imp->error));
          else
            g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                         _("%s is not valid JSON: it ends too early"),
                         imp->file);
          ok = FALSE;
        }
    }
  yajl_free (parser);
  if (ok && imp->events_depth == -1)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                   _("%s has no \"traceEvents\" array"), imp->file);
      ok = FALSE;
    }
  return ok;
}

