/* planar-import.c: Chrome Trace Event JSON to XSpace.
 *
 * The document is read with yajl's event parser, fed in chunks (through a
 * gzip decompressor when it is compressed), so that a gigabyte of JSON
 * never becomes a tree: each event record is reduced as it ends to a
 * 48-byte entry and its args to pre-encoded XStat bytes. Once everything
 * is read, flow v1 records are bound to their slices, and the XSpace is
 * written plane by plane (one process each, one line per thread) to a file
 * the loader then maps like any other profile (FORMATS.md §6.3).
 *
 * Nothing here recurses on the input: nesting is a counter, and nested
 * args values are turned back into JSON text with an explicit stack.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-import.h"

#include <errno.h>
#include <gio/gio.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

#include "planar-error.h"
#include "planar-flows.h"
#include "planar-wire.h"

/* Times are kept relative to the first one read, in ps; this is how far
 * from it an event may be (about 106 days). */
#define MAX_SPAN_PS G_GINT64_CONSTANT (9000000000000000000)
#define CHUNK (256 * 1024)

typedef struct
{
  gint64  ts_ps;
  gint64  dur_ps;
  guint32 name;
  guint32 line;
  guint64 args_at;
  guint32 args_len;
  /* The record that opened the event (a "B"'s for a B/E pair): events
   * that start together and last as long nest in file order. */
  guint32 seq;
} ImportEvent;

G_STATIC_ASSERT (sizeof (ImportEvent) == 40);

/* A flow stat to add to an event when it is written. */
typedef struct
{
  guint32 event;
  guint32 pad;
  guint64 value;
} FlowStat;

/* A flow v1 record, bound to a slice once every event is known. */
typedef struct
{
  guint64 id;
  gint64  ts_ps;
  guint32 line;
  /* 1 in, 2 out, 3 both. */
  guint8  direction;
  /* Bound to the enclosing slice (else the next one to start). */
  guint8  enclosing;
  guint8  category;
} FlowRecord;

/* An open "B". */
typedef struct
{
  gint64  ts_ps;
  guint32 name;
  guint64 args_at;
  guint32 args_len;
  guint32 seq;
} OpenBegin;

typedef struct
{
  char   *key;
  char   *name;
  /* process_labels ("GPU 0" from Kineto). */
  char   *labels;
  gint64  sort_index;
  gboolean has_sort_index;
  guint   first_seen;
} Process;

typedef struct
{
  char    *key;
  guint    process;
  char    *tid;
  char    *name;
  gint64   sort_index;
  gboolean has_sort_index;
  /* The `_counters_` line or the global instants: named by the importer,
   * drawn after the threads. */
  gboolean special;
  GArray  *open;
} Thread;

typedef enum
{
  FIELD_NONE,
  FIELD_PH,
  FIELD_NAME,
  FIELD_CAT,
  FIELD_PID,
  FIELD_TID,
  FIELD_TS,
  FIELD_DUR,
  FIELD_ID,
  FIELD_BIND_ID,
  FIELD_FLOW_IN,
  FIELD_FLOW_OUT,
  FIELD_BP,
  FIELD_SCOPE,
  FIELD_ARGS,
  FIELD_OTHER,
} Field;

/* What the event being read has said so far. */
typedef struct
{
  char     ph[8];
  GString *name;
  GString *cat;
  GString *pid;
  GString *tid;
  GString *id;
  GString *bind_id;
  gboolean has_ph, has_ts, has_dur, has_name, has_pid, has_tid, has_id, has_bind_id;
  gboolean flow_in, flow_out, bp_enclosing;
  /* "s": "g", an instant of the whole trace. */
  gboolean global_scope;
  /* The numeric args, for a "C" record: keys (NUL-separated) and values. */
  GString *number_keys;
  GArray  *number_values;
  gint64   ts_ps;
  gint64   dur_ps;
  GString *meta_name;
  GString *meta_labels;
  gint64   meta_sort_index;
  gboolean has_meta_name, has_meta_labels, has_meta_sort_index;
  guint    n_keys;
} Record;

typedef struct
{
  const char         *file;
  PlanarImportReport *report;
  GError             *error;

  /* Container depth, and where the events array is (-1 until known). */
  int                 depth;
  int                 events_depth;
  gboolean            root_seen;
  gboolean            root_is_object;
  gboolean            next_is_events;
  /* Set while a value of no interest is skipped: its depth. */
  int                 skip_depth;
  guint64             n_records;

  /* The event record being read (at events_depth + 1). */
  gboolean            in_record;
  Field               field;
  gboolean            in_args;
  /* Inside args: the key of the arg, and a nested value being written
   * back as JSON text with its depth and, per level, whether a comma is
   * due. */
  GString            *arg_key;
  GString            *nested;
  int                 nested_depth;
  GByteArray         *nested_comma;
  gboolean            nested_after_key;
  Record              r;

  gboolean            have_base;
  gint64              base_us;

  GHashTable         *names;
  GPtrArray          *name_list;
  GHashTable         *stat_names;
  GPtrArray          *stat_name_list;
  GHashTable         *process_index;
  GPtrArray          *processes;
  GHashTable         *thread_index;
  GPtrArray          *threads;

  GArray             *events;
  GByteArray         *args;
  GByteArray         *cur_args;
  GArray             *flow_stats;
  GArray             *flow_records;
} Importer;

/* ------------------------------------------------------------------------
 * Wire encoding
 * ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

/* @text need not be NUL-terminated. */
static guint32
intern (GHashTable *table,
        GPtrArray  *list,
        const char *text,
        gsize       len)
{
  char small[256];
  g_autofree char *copy = NULL;
  const char *key;
  gpointer id;

  /* The common case, a short valid name, costs no allocation. */
  if (len < sizeof small && g_utf8_validate (text, (gssize) len, NULL))
    {
      memcpy (small, text, len);
      small[len] = '\0';
      key = small;
    }
  else
    key = copy = g_utf8_make_valid (text, (gssize) len);
  if (g_hash_table_lookup_extended (table, key, NULL, &id))
    return GPOINTER_TO_UINT (id);
  {
    char *stored = copy != NULL ? g_steal_pointer (&copy) : g_strdup (key);

    g_ptr_array_add (list, stored);
    /* Ids start at 1: 0 is "no metadata" in an XEvent. */
    g_hash_table_insert (table, stored, GUINT_TO_POINTER (list->len));
  }
  return list->len;
}

static guint32
stat_id (Importer   *imp,
         const char *name,
         gsize       len)
{
  return intern (imp->stat_names, imp->stat_name_list, name, len);
}

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

static int G_GNUC_PRINTF (2, 3)
fail (Importer   *imp,
      const char *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (imp->error != NULL)
    return 0;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (&imp->error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, "%s: trace event %" G_GUINT64_FORMAT ": %s",
               imp->file, imp->n_records, message);
  return 0;
}

/* ------------------------------------------------------------------------
 * Numbers
 * ------------------------------------------------------------------------ */

/* Microseconds written as decimal text to picoseconds relative to the
 * first time read, exactly when there is no exponent. */
static gboolean
parse_time (Importer   *imp,
            const char *text,
            gsize       len,
            gboolean    is_duration,
            gint64     *ps_out)
{
  g_autofree char *copy = g_strndup (text, len);
  const char *p = copy;
  gboolean negative = FALSE;
  guint64 whole = 0;
  gint64 frac = 0;
  int digits = 0;

  if (strpbrk (copy, "eE") != NULL)
    {
      double us = g_ascii_strtod (copy, NULL);

      if (!(us > -9.0e12 && us < 9.0e12))
        return fail (imp, "time %s is out of range", copy);
      whole = (guint64) (us < 0 ? -us : us);
      negative = us < 0;
      frac = (gint64) ((((us < 0 ? -us : us) - (double) whole) * 1e6) + 0.5);
    }
  else
    {
      if (*p == '-')
        {
          negative = TRUE;
          p++;
        }
      for (; g_ascii_isdigit (*p); p++)
        {
          if (whole > G_GUINT64_CONSTANT (1000000000000000))
            return fail (imp, "time %s is out of range", copy);
          whole = whole * 10 + (guint64) (*p - '0');
        }
      if (*p == '.')
        for (p++; g_ascii_isdigit (*p); p++)
          if (digits < 6)
            {
              frac = frac * 10 + (*p - '0');
              digits++;
            }
      for (; digits < 6; digits++)
        frac *= 10;
    }

  if (is_duration)
    {
      if (negative)
        return fail (imp, "negative duration %s", copy);
      if (whole > G_GUINT64_CONSTANT (9000000000000))
        return fail (imp, "duration %s is out of range", copy);
      *ps_out = (gint64) whole * 1000000 + frac;
      return TRUE;
    }

  {
    gint64 us = negative ? -(gint64) whole : (gint64) whole;
    gint64 sub = negative ? -frac : frac;
    gint64 rel_us;

    if (!imp->have_base)
      {
        imp->base_us = us;
        imp->have_base = TRUE;
      }
    rel_us = us - imp->base_us;
    if (rel_us > MAX_SPAN_PS / 1000000 - 1 || rel_us < -(MAX_SPAN_PS / 1000000 - 1))
      return fail (imp, "time %s is too far from the first event (more than 100 days)", copy);
    *ps_out = rel_us * 1000000 + sub;
  }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Args
 * ------------------------------------------------------------------------ */

static void
add_stat_header (Importer   *imp,
                 GByteArray *stat)
{
  planar_wire_append_tag (stat, 1, 0);
  planar_wire_append_varint (stat, stat_id (imp, imp->arg_key->str, imp->arg_key->len));
}

static void
finish_stat (Importer   *imp,
             GByteArray *stat)
{
  /* XEvent.stats: field 4. */
  planar_wire_append_bytes_field (imp->cur_args, 4, stat->data, stat->len);
}

static void
arg_string (Importer   *imp,
            const char *text,
            gsize       len)
{
  g_autoptr(GByteArray) stat = g_byte_array_new ();

  add_stat_header (imp, stat);
  if (g_utf8_validate (text, (gssize) len, NULL))
    planar_wire_append_bytes_field (stat, 5, (const guint8 *) text, len);
  else
    {
      g_autofree char *valid = g_utf8_make_valid (text, (gssize) len);

      planar_wire_append_string_field (stat, 5, valid);
    }
  finish_stat (imp, stat);
}

static void
arg_number (Importer   *imp,
            const char *text,
            gsize       len)
{
  g_autoptr(GByteArray) stat = g_byte_array_new ();
  g_autofree char *copy = g_strndup (text, len);
  char *end = NULL;

  add_stat_header (imp, stat);
  if (strpbrk (copy, ".eE") == NULL)
    {
      gint64 i;
      guint64 u;

      errno = 0;
      i = g_ascii_strtoll (copy, &end, 10);
      if (errno == 0 && *end == '\0')
        {
          planar_wire_append_tag (stat, 4, 0);
          planar_wire_append_varint (stat, (guint64) i);
          finish_stat (imp, stat);
          return;
        }
      errno = 0;
      u = g_ascii_strtoull (copy, &end, 10);
      if (errno == 0 && *end == '\0' && copy[0] != '-')
        {
          planar_wire_append_tag (stat, 3, 0);
          planar_wire_append_varint (stat, u);
          finish_stat (imp, stat);
          return;
        }
    }
  {
    double d = g_ascii_strtod (copy, NULL);
    guint64 bits;

    memcpy (&bits, &d, sizeof bits);
    planar_wire_append_tag (stat, 2, 1);
    bits = GUINT64_TO_LE (bits);
    g_byte_array_append (stat, (const guint8 *) &bits, 8);
  }
  finish_stat (imp, stat);
}

static void
arg_int (Importer *imp,
         gint64    value)
{
  g_autoptr(GByteArray) stat = g_byte_array_new ();

  add_stat_header (imp, stat);
  planar_wire_append_tag (stat, 4, 0);
  planar_wire_append_varint (stat, (guint64) value);
  finish_stat (imp, stat);
}

/* Nested values inside args are written back as JSON text. */
static void
nested_begin_value (Importer *imp)
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
nested_append_string (Importer   *imp,
                      const char *text,
                      gsize       len)
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
nested_open (Importer *imp,
             char      bracket)
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
nested_close (Importer *imp,
              char      bracket)
{
  g_string_append_c (imp->nested, bracket);
  g_byte_array_set_size (imp->nested_comma, imp->nested_comma->len - 1);
  imp->nested_depth--;
  if (imp->nested_depth == 0)
    arg_string (imp, imp->nested->str, imp->nested->len);
}

/* ------------------------------------------------------------------------
 * Processes, threads, events
 * ------------------------------------------------------------------------ */

static guint
process_for (Importer   *imp,
             const char *key)
{
  gpointer index;
  Process *p;

  if (g_hash_table_lookup_extended (imp->process_index, key, NULL, &index))
    return GPOINTER_TO_UINT (index);
  p = g_new0 (Process, 1);
  p->key = g_strdup (key);
  p->first_seen = imp->processes->len;
  g_ptr_array_add (imp->processes, p);
  g_hash_table_insert (imp->process_index, p->key, GUINT_TO_POINTER (imp->processes->len - 1));
  return imp->processes->len - 1;
}

static guint
thread_for (Importer   *imp,
            const char *pid,
            const char *tid)
{
  g_autofree char *key = g_strconcat (pid, "\x1f", tid, NULL);
  gpointer index;
  Thread *t;

  if (g_hash_table_lookup_extended (imp->thread_index, key, NULL, &index))
    return GPOINTER_TO_UINT (index);
  t = g_new0 (Thread, 1);
  t->key = g_steal_pointer (&key);
  t->process = process_for (imp, pid);
  t->tid = g_strdup (tid);
  t->open = g_array_new (FALSE, FALSE, sizeof (OpenBegin));
  g_ptr_array_add (imp->threads, t);
  g_hash_table_insert (imp->thread_index, t->key, GUINT_TO_POINTER (imp->threads->len - 1));
  return imp->threads->len - 1;
}

static void
thread_free (Thread *t)
{
  g_free (t->key);
  g_free (t->tid);
  g_free (t->name);
  g_array_unref (t->open);
  g_free (t);
}

static void
process_free (Process *p)
{
  g_free (p->key);
  g_free (p->name);
  g_free (p->labels);
  g_free (p);
}

static guint64
stash_args (Importer *imp,
            guint32  *len)
{
  guint64 at = imp->args->len;

  g_byte_array_append (imp->args, imp->cur_args->data, imp->cur_args->len);
  *len = imp->cur_args->len;
  return at;
}

static void
add_event (Importer *imp,
           guint32   line,
           guint32   name,
           gint64    ts_ps,
           gint64    dur_ps,
           guint64   args_at,
           guint32   args_len,
           guint32   seq)
{
  ImportEvent ev = { ts_ps, dur_ps, name, line, args_at, args_len, seq };

  if (imp->events->len >= G_MAXUINT32 - 1)
    {
      fail (imp, "more than 4 billion events");
      return;
    }
  g_array_append_val (imp->events, ev);
  imp->report->n_events++;
}

static guint64
flow_hash (const char *kind,
           const char *a,
           const char *b,
           const char *c)
{
  guint64 h = G_GUINT64_CONSTANT (1469598103934665603);
  const char *parts[] = { kind, a, b, c };

  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      for (const char *p = parts[i] ? parts[i] : ""; *p != '\0'; p++)
        h = (h ^ (guchar) *p) * G_GUINT64_CONSTANT (1099511628211);
      h = (h ^ 0xff) * G_GUINT64_CONSTANT (1099511628211);
    }
  return h & ((G_GUINT64_CONSTANT (1) << 56) - 1);
}

static guint8
flow_category (const char *cat)
{
  for (guint c = 2; c < PLANAR_FLOW_N_KNOWN_CATEGORIES; c++)
    if (g_strcmp0 (cat, planar_flow_category_get_name (c)) == 0)
      return (guint8) c;
  return 0;
}

static guint64
flow_value (guint64 id,
            guint   direction,
            guint   category)
{
  return ((guint64) category << 58) | (id << 2) | direction;
}

static void
count_ignored (Importer   *imp,
               const char *ph)
{
  gpointer count = g_hash_table_lookup (imp->report->ignored, ph);

  if (count == NULL)
    g_hash_table_insert (imp->report->ignored, g_strdup (ph), GSIZE_TO_POINTER (1));
  else
    g_hash_table_insert (imp->report->ignored, g_strdup (ph), GSIZE_TO_POINTER (GPOINTER_TO_SIZE (count) + 1));
}

/* Keys no pid or tid read from the file can have (those are numbers or
 * start with '"'). */
#define COUNTERS_KEY "\001counters"
#define GLOBAL_KEY "\001global"

static const char *
thread_key (GString *value)
{
  return value->len > 0 ? value->str : "0";
}

/* A "C" record: one sample on its process's `_counters_` line, its
 * numeric args as stats named "<name> <arg>", as Perfetto names the
 * series. */
static void
add_counter (Importer *imp)
{
  Record *r = &imp->r;
  g_autoptr(GByteArray) stats = NULL;
  const char *key;
  guint32 line;
  guint32 name;
  Thread *t;
  guint64 at;

  if (!r->has_ts)
    {
      fail (imp, "a \"C\" event without a numeric \"ts\"");
      return;
    }
  if (r->number_values->len == 0)
    {
      count_ignored (imp, "C");
      return;
    }
  line = thread_for (imp, thread_key (r->pid), COUNTERS_KEY);
  t = g_ptr_array_index (imp->threads, line);
  if (t->name == NULL)
    t->name = g_strdup ("_counters_");
  t->special = TRUE;
  name = intern (imp->names, imp->name_list, r->has_name ? r->name->str : "", r->has_name ? r->name->len : 0);
  stats = g_byte_array_new ();
  key = r->number_keys->str;
  for (guint i = 0; i < r->number_values->len; i++)
    {
      g_autoptr(GByteArray) stat = g_byte_array_new ();
      g_autofree char *series = r->has_name && r->name->len > 0 ? g_strdup_printf ("%s %s", r->name->str, key)
                                                                : g_strdup (key);
      double value = g_array_index (r->number_values, double, i);
      guint64 bits;

      memcpy (&bits, &value, sizeof bits);
      bits = GUINT64_TO_LE (bits);
      planar_wire_append_tag (stat, 1, 0);
      planar_wire_append_varint (stat, stat_id (imp, series, strlen (series)));
      planar_wire_append_tag (stat, 2, 1);
      g_byte_array_append (stat, (const guint8 *) &bits, 8);
      planar_wire_append_bytes_field (stats, 4, stat->data, stat->len);
      key += strlen (key) + 1;
    }
  at = imp->args->len;
  g_byte_array_append (imp->args, stats->data, stats->len);
  add_event (imp, line, name, r->ts_ps, 0, at, stats->len, (guint32) imp->n_records);
  imp->report->n_counters++;
}

static void
finish_record (Importer *imp)
{
  Record *r = &imp->r;
  const char *ph = r->ph;
  guint32 line;
  guint32 name;

  imp->n_records++;
  if (!r->has_ph)
    {
      /* JAX ends its array with {} to avoid a trailing comma. */
      if (r->n_keys == 0)
        return;
      count_ignored (imp, "(none)");
      return;
    }

  if (strcmp (ph, "M") == 0)
    {
      imp->report->n_metadata++;
      if (g_strcmp0 (r->name->str, "process_name") == 0 && r->has_meta_name)
        {
          guint index = process_for (imp, thread_key (r->pid));
          Process *p = g_ptr_array_index (imp->processes, index);

          g_free (p->name);
          p->name = g_strdup (r->meta_name->str);
        }
      else if (g_strcmp0 (r->name->str, "process_labels") == 0 && r->has_meta_labels)
        {
          guint index = process_for (imp, thread_key (r->pid));
          Process *p = g_ptr_array_index (imp->processes, index);

          g_free (p->labels);
          p->labels = g_strdup (r->meta_labels->str);
        }
      else if (g_strcmp0 (r->name->str, "process_sort_index") == 0 && r->has_meta_sort_index)
        {
          guint index = process_for (imp, thread_key (r->pid));
          Process *p = g_ptr_array_index (imp->processes, index);

          p->sort_index = r->meta_sort_index;
          p->has_sort_index = TRUE;
        }
      else if (g_strcmp0 (r->name->str, "thread_name") == 0 && r->has_meta_name)
        {
          guint index = thread_for (imp, thread_key (r->pid), thread_key (r->tid));
          Thread *t = g_ptr_array_index (imp->threads, index);

          g_free (t->name);
          t->name = g_strdup (r->meta_name->str);
        }
      else if (g_strcmp0 (r->name->str, "thread_sort_index") == 0 && r->has_meta_sort_index)
        {
          guint index = thread_for (imp, thread_key (r->pid), thread_key (r->tid));
          Thread *t = g_ptr_array_index (imp->threads, index);

          t->sort_index = r->meta_sort_index;
          t->has_sort_index = TRUE;
        }
      return;
    }
  if (strcmp (ph, "C") == 0)
    {
      add_counter (imp);
      return;
    }

  if (strcmp (ph, "X") != 0 && strcmp (ph, "B") != 0 && strcmp (ph, "E") != 0 && strcmp (ph, "i") != 0
      && strcmp (ph, "I") != 0 && strcmp (ph, "s") != 0 && strcmp (ph, "t") != 0 && strcmp (ph, "f") != 0)
    {
      count_ignored (imp, ph);
      return;
    }
  if (!r->has_ts)
    {
      fail (imp, "a \"%s\" event without a numeric \"ts\"", ph);
      return;
    }

  /* Instants of the whole trace ("s": "g") have a section of their own,
   * whatever pid they carry (Kineto's have an empty one). */
  if ((ph[0] == 'i' || ph[0] == 'I') && r->global_scope)
    {
      line = thread_for (imp, GLOBAL_KEY, GLOBAL_KEY);
      ((Thread *) g_ptr_array_index (imp->threads, line))->special = TRUE;
    }
  else
    line = thread_for (imp, thread_key (r->pid), thread_key (r->tid));
  name = intern (imp->names, imp->name_list, r->has_name ? r->name->str : "", r->has_name ? r->name->len : 0);

  switch (ph[0])
    {
    case 'X':
      {
        guint32 len;
        guint64 at = stash_args (imp, &len);

        add_event (imp, line, name, r->ts_ps, r->has_dur ? r->dur_ps : 0, at, len, (guint32) imp->n_records);
        imp->report->n_complete++;
        if (r->has_bind_id && (r->flow_in || r->flow_out))
          {
            FlowStat fs = { imp->events->len - 1, 0,
                            flow_value (flow_hash ("v2", r->bind_id->str, NULL, NULL),
                                        (r->flow_in ? 1 : 0) | (r->flow_out ? 2 : 0), flow_category (r->cat->str)) };

            g_array_append_val (imp->flow_stats, fs);
            imp->report->n_flows++;
          }
      }
      break;
    case 'B':
      {
        Thread *t = g_ptr_array_index (imp->threads, line);
        OpenBegin b = { r->ts_ps, name, 0, 0, (guint32) imp->n_records };

        b.args_at = stash_args (imp, &b.args_len);
        g_array_append_val (t->open, b);
      }
      break;
    case 'E':
      {
        Thread *t = g_ptr_array_index (imp->threads, line);
        OpenBegin b;
        guint64 at;
        guint32 len;

        if (t->open->len == 0)
          {
            imp->report->n_unmatched_end++;
            return;
          }
        b = g_array_index (t->open, OpenBegin, t->open->len - 1);
        g_array_set_size (t->open, t->open->len - 1);
        /* The begin's args, then the end's. */
        at = imp->args->len;
        /* Grown first: appending from itself would read freed memory. */
        if (b.args_len > 0)
          {
            g_byte_array_set_size (imp->args, (guint) (at + b.args_len));
            memcpy (imp->args->data + at, imp->args->data + b.args_at, b.args_len);
          }
        g_byte_array_append (imp->args, imp->cur_args->data, imp->cur_args->len);
        len = b.args_len + imp->cur_args->len;
        add_event (imp, line, b.name, b.ts_ps, MAX (r->ts_ps - b.ts_ps, 0), at, len, b.seq);
        imp->report->n_begin_end++;
      }
      break;
    case 'i':
    case 'I':
      {
        guint32 len;
        guint64 at = stash_args (imp, &len);

        add_event (imp, line, name, r->ts_ps, 0, at, len, (guint32) imp->n_records);
        imp->report->n_instant++;
      }
      break;
    case 's':
    case 't':
    case 'f':
      {
        FlowRecord fr = { 0 };

        /* Catapult and Perfetto match the hops of a flow by id, category
         * and name. */
        fr.id = flow_hash ("v1", r->has_id ? r->id->str : "", r->cat->str, r->name->str);
        fr.ts_ps = r->ts_ps;
        fr.line = line;
        fr.direction = ph[0] == 's' ? 2 : ph[0] == 'f' ? 1 : 3;
        fr.enclosing = ph[0] != 'f' || r->bp_enclosing;
        fr.category = flow_category (r->cat->str);
        g_array_append_val (imp->flow_records, fr);
        imp->report->n_flows++;
      }
      break;
    default:
      break;
    }
}

static void
reset_record (Importer *imp)
{
  Record *r = &imp->r;

  memset (r->ph, 0, sizeof r->ph);
  g_string_truncate (r->name, 0);
  g_string_truncate (r->cat, 0);
  g_string_truncate (r->pid, 0);
  g_string_truncate (r->tid, 0);
  g_string_truncate (r->id, 0);
  g_string_truncate (r->bind_id, 0);
  g_string_truncate (r->meta_name, 0);
  r->has_ph = r->has_ts = r->has_dur = r->has_name = r->has_pid = r->has_tid = FALSE;
  r->has_id = r->has_bind_id = r->flow_in = r->flow_out = r->bp_enclosing = r->global_scope = FALSE;
  g_string_truncate (r->number_keys, 0);
  g_array_set_size (r->number_values, 0);
  r->has_meta_name = r->has_meta_labels = r->has_meta_sort_index = FALSE;
  g_string_truncate (r->meta_labels, 0);
  r->n_keys = 0;
  r->ts_ps = r->dur_ps = 0;
  g_byte_array_set_size (imp->cur_args, 0);
}

/* ------------------------------------------------------------------------
 * yajl callbacks
 * ------------------------------------------------------------------------ */

/* Where a value that is not a container lands. */
typedef enum
{
  VALUE_STRING,
  VALUE_NUMBER,
  VALUE_BOOL,
  VALUE_NULL,
} ValueKind;

static int
scalar (Importer    *imp,
        ValueKind    kind,
        const char  *text,
        gsize        len,
        gboolean     boolean)
{
  Record *r = &imp->r;

  if (imp->skip_depth >= 0)
    return 1;
  if (!imp->root_seen)
    return fail (imp, "the document is neither an object nor an array of trace events");
  if (imp->next_is_events)
    return fail (imp, "\"traceEvents\" is not an array");
  if (imp->events_depth >= 0 && imp->depth == imp->events_depth)
    return fail (imp, "a trace event is not an object");
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
        arg_string (imp, text, len);
      else if (kind == VALUE_NUMBER)
        {
          g_autofree char *copy = g_strndup (text, len);
          double value = g_ascii_strtod (copy, NULL);

          arg_number (imp, text, len);
          g_string_append_len (r->number_keys, imp->arg_key->str, (gssize) imp->arg_key->len);
          g_string_append_c (r->number_keys, '\0');
          g_array_append_val (r->number_values, value);
        }
      else if (kind == VALUE_BOOL)
        arg_int (imp, boolean ? 1 : 0);
      return 1;
    }

  if (imp->depth != imp->events_depth + 1)
    return 1;

  switch (imp->field)
    {
    case FIELD_PH:
      if (kind != VALUE_STRING || len == 0 || len >= sizeof r->ph)
        return fail (imp, "\"ph\" is not a phase letter");
      memcpy (r->ph, text, len);
      r->ph[len] = '\0';
      r->has_ph = TRUE;
      break;
    case FIELD_NAME:
      if (kind == VALUE_STRING || kind == VALUE_NUMBER)
        {
          g_string_append_len (r->name, text, (gssize) len);
          r->has_name = TRUE;
        }
      break;
    case FIELD_CAT:
      if (kind == VALUE_STRING)
        g_string_append_len (r->cat, text, (gssize) len);
      break;
    case FIELD_PID:
    case FIELD_TID:
      {
        GString *target = imp->field == FIELD_PID ? r->pid : r->tid;
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

              if (end != copy && *end == '\0' && d == (double) (gint64) d && d > -9.2e18 && d < 9.2e18)
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
    case FIELD_TS:
    case FIELD_DUR:
      if (kind != VALUE_NUMBER)
        return fail (imp, "\"%s\" is not a number", imp->field == FIELD_TS ? "ts" : "dur");
      if (imp->field == FIELD_TS)
        {
          if (!parse_time (imp, text, len, FALSE, &r->ts_ps))
            return 0;
          r->has_ts = TRUE;
        }
      else
        {
          if (!parse_time (imp, text, len, TRUE, &r->dur_ps))
            return 0;
          r->has_dur = TRUE;
        }
      break;
    case FIELD_ID:
    case FIELD_BIND_ID:
      if (kind == VALUE_STRING || kind == VALUE_NUMBER)
        {
          GString *target = imp->field == FIELD_ID ? r->id : r->bind_id;

          g_string_append_len (target, text, (gssize) len);
          if (imp->field == FIELD_ID)
            r->has_id = TRUE;
          else
            r->has_bind_id = TRUE;
        }
      break;
    case FIELD_FLOW_IN:
      r->flow_in = kind == VALUE_BOOL && boolean;
      break;
    case FIELD_FLOW_OUT:
      r->flow_out = kind == VALUE_BOOL && boolean;
      break;
    case FIELD_BP:
      r->bp_enclosing = kind == VALUE_STRING && len == 1 && text[0] == 'e';
      break;
    case FIELD_SCOPE:
      r->global_scope = kind == VALUE_STRING && len == 1 && text[0] == 'g';
      break;
    case FIELD_ARGS:
    case FIELD_OTHER:
    case FIELD_NONE:
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
open_container (Importer *imp,
                gboolean  is_map)
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
        return fail (imp, "\"traceEvents\" is not an array");
      imp->events_depth = imp->depth;
      return 1;
    }
  if (imp->events_depth >= 0 && imp->depth == imp->events_depth + 1)
    {
      if (!is_map)
        return fail (imp, "a trace event is not an object");
      imp->in_record = TRUE;
      imp->field = FIELD_NONE;
      reset_record (imp);
      return 1;
    }
  if (imp->in_record && imp->depth == imp->events_depth + 2)
    {
      if (imp->field == FIELD_ARGS && is_map)
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
close_container (Importer *imp,
                 gboolean  is_map)
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
      finish_record (imp);
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

static Field
field_for (const char *key,
           gsize       len)
{
  static const struct { const char *name; Field field; } fields[] = {
    { "ph", FIELD_PH }, { "name", FIELD_NAME }, { "cat", FIELD_CAT }, { "pid", FIELD_PID },
    { "tid", FIELD_TID }, { "ts", FIELD_TS }, { "dur", FIELD_DUR }, { "id", FIELD_ID },
    { "bind_id", FIELD_BIND_ID }, { "flow_in", FIELD_FLOW_IN }, { "flow_out", FIELD_FLOW_OUT },
    { "bp", FIELD_BP }, { "s", FIELD_SCOPE }, { "args", FIELD_ARGS },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if (strlen (fields[i].name) == len && memcmp (fields[i].name, key, len) == 0)
      return fields[i].field;
  return FIELD_OTHER;
}

static int
on_map_key (void                *ctx,
            const unsigned char *key,
            size_t               len)
{
  Importer *imp = ctx;

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
 * Binding flows and writing the XSpace
 * ------------------------------------------------------------------------ */

static int
compare_event_order (gconstpointer a,
                     gconstpointer b,
                     gpointer      user_data)
{
  GArray *events = user_data;
  const ImportEvent *x = &g_array_index (events, ImportEvent, *(const guint32 *) a);
  const ImportEvent *y = &g_array_index (events, ImportEvent, *(const guint32 *) b);

  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->ts_ps != y->ts_ps)
    return x->ts_ps < y->ts_ps ? -1 : 1;
  if (x->dur_ps != y->dur_ps)
    return x->dur_ps > y->dur_ps ? -1 : 1;
  /* As Perfetto nests them: what the file opened first is the parent. */
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return *(const guint32 *) a < *(const guint32 *) b ? -1 : 1;
}

/* The events of each line, in start order: @order holds event indices,
 * line l's from line_start[l] to line_start[l + 1]. */
typedef struct
{
  guint32 *order;
  gsize   *line_start;
} LineOrder;

static void
bind_flows (Importer  *imp,
            LineOrder *lo)
{
  for (guint i = 0; i < imp->flow_records->len; i++)
    {
      const FlowRecord *fr = &g_array_index (imp->flow_records, FlowRecord, i);
      gsize lo_i = lo->line_start[fr->line], hi = lo->line_start[fr->line + 1];
      gsize first = lo_i, last = hi;
      gssize target = -1;

      /* First event of the line starting at or after the flow's time. */
      while (first < last)
        {
          gsize mid = first + (last - first) / 2;

          if (g_array_index (imp->events, ImportEvent, lo->order[mid]).ts_ps < fr->ts_ps)
            first = mid + 1;
          else
            last = mid;
        }
      if (fr->enclosing)
        {
          /* The deepest slice holding the time: the latest-starting one
           * among those that start at or before it and end after it. */
          gsize k = first;

          while (k < hi && g_array_index (imp->events, ImportEvent, lo->order[k]).ts_ps == fr->ts_ps)
            k++;
          for (gsize steps = 0; k > lo_i && steps < 4096; steps++)
            {
              const ImportEvent *ev = &g_array_index (imp->events, ImportEvent, lo->order[--k]);

              if (ev->ts_ps + ev->dur_ps >= fr->ts_ps)
                {
                  target = (gssize) lo->order[k];
                  break;
                }
            }
        }
      else if (first < hi)
        target = (gssize) lo->order[first];

      if (target < 0)
        {
          imp->report->n_unbound_flows++;
          continue;
        }
      {
        FlowStat fs = { (guint32) target, 0, flow_value (fr->id, fr->direction, fr->category) };

        g_array_append_val (imp->flow_stats, fs);
      }
    }
}

static int
compare_flow_stats (gconstpointer a,
                    gconstpointer b)
{
  const FlowStat *x = a, *y = b;

  return x->event < y->event ? -1 : x->event > y->event ? 1 : 0;
}

static gboolean
write_all (int           fd,
           const guint8 *data,
           gsize         len,
           GError      **error)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot write the imported profile: %s",
                       g_strerror (saved));
          return FALSE;
        }
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

static int
compare_process_order (gconstpointer a,
                       gconstpointer b)
{
  const Process *x = *(Process * const *) a, *y = *(Process * const *) b;
  gint64 kx = x->has_sort_index ? x->sort_index : G_MAXINT64, ky = y->has_sort_index ? y->sort_index : G_MAXINT64;

  if (kx != ky)
    return kx < ky ? -1 : 1;
  return x->first_seen < y->first_seen ? -1 : x->first_seen > y->first_seen ? 1 : 0;
}

typedef struct
{
  guint   thread;
  gint64  sort;
} ThreadOrder;

static int
compare_thread_order (gconstpointer a,
                      gconstpointer b)
{
  const ThreadOrder *x = a, *y = b;

  if (x->sort != y->sort)
    return x->sort < y->sort ? -1 : 1;
  return x->thread < y->thread ? -1 : x->thread > y->thread ? 1 : 0;
}

/* "123" for a numeric key, NULL for a string one ("\"name"). */
static gboolean
numeric_key (const char *key,
             gint64     *value)
{
  char *end = NULL;

  if (key[0] == '"' || key[0] == '\0')
    return FALSE;
  *value = g_ascii_strtoll (key, &end, 10);
  return end != NULL && *end == '\0';
}

static char *
display_key (const char *key)
{
  return g_strdup (key[0] == '"' ? key + 1 : key);
}

static void
encode_event (Importer          *imp,
              GByteArray        *line_buf,
              guint32            index,
              guint64            flow_stat_id,
              const FlowStat   **flows,
              const FlowStat    *flows_end)
{
  const ImportEvent *ev = &g_array_index (imp->events, ImportEvent, index);
  g_autoptr(GByteArray) e = g_byte_array_new ();

  planar_wire_append_tag (e, 1, 0);
  planar_wire_append_varint (e, ev->name);
  planar_wire_append_tag (e, 2, 0);
  planar_wire_append_varint (e, (guint64) ev->ts_ps);
  if (ev->dur_ps != 0)
    {
      planar_wire_append_tag (e, 3, 0);
      planar_wire_append_varint (e, (guint64) ev->dur_ps);
    }
  if (ev->args_len > 0)
    g_byte_array_append (e, imp->args->data + ev->args_at, ev->args_len);
  while (*flows < flows_end && (*flows)->event == index)
    {
      g_autoptr(GByteArray) stat = g_byte_array_new ();

      planar_wire_append_tag (stat, 1, 0);
      planar_wire_append_varint (stat, flow_stat_id);
      planar_wire_append_tag (stat, 3, 0);
      planar_wire_append_varint (stat, (*flows)->value);
      planar_wire_append_bytes_field (e, 4, stat->data, stat->len);
      (*flows)++;
    }
  planar_wire_append_bytes_field (line_buf, 4, e->data, e->len);
}

static gboolean
write_space (Importer   *imp,
             LineOrder  *lo,
             int         fd,
             GError    **error)
{
  g_autoptr(GPtrArray) processes = g_ptr_array_new ();
  g_autoptr(GByteArray) plane = g_byte_array_new ();
  g_autoptr(GByteArray) header = g_byte_array_new ();
  const FlowStat *flows;
  const FlowStat *flows_end;
  guint n_planes = 0;
  /* Interned before any plane lists its stat names. */
  guint64 flow_stat_id = stat_id (imp, "flow", 4);

  g_array_sort (imp->flow_stats, compare_flow_stats);
  /* An empty array has no data: no pointer arithmetic on NULL. */
  flows_end = imp->flow_stats->len > 0 ? (const FlowStat *) (gpointer) imp->flow_stats->data + imp->flow_stats->len
                                       : NULL;

  for (guint p = 0; p < imp->processes->len; p++)
    g_ptr_array_add (processes, g_ptr_array_index (imp->processes, p));
  g_ptr_array_sort (processes, compare_process_order);

  for (guint pi = 0; pi < processes->len; pi++)
    {
      Process *proc = g_ptr_array_index (processes, pi);
      guint process_index = GPOINTER_TO_UINT (g_hash_table_lookup (imp->process_index, proc->key));
      g_autoptr(GArray) threads = g_array_new (FALSE, FALSE, sizeof (ThreadOrder));
      g_autofree gboolean *used_names = g_new0 (gboolean, imp->name_list->len + 1);
      g_autofree char *plane_name = NULL;
      gint64 pid;

      for (guint t = 0; t < imp->threads->len; t++)
        {
          Thread *thread = g_ptr_array_index (imp->threads, t);
          ThreadOrder order = { t, G_MAXINT64 - 1 };
          gint64 tid;

          if (thread->process != process_index)
            continue;
          if (thread->special)
            order.sort = G_MAXINT64;
          else if (thread->has_sort_index)
            order.sort = thread->sort_index;
          else if (numeric_key (thread->tid, &tid))
            order.sort = tid;
          else
            order.sort = G_MAXINT64 - 1;
          g_array_append_val (threads, order);
        }
      g_array_sort (threads, compare_thread_order);

      /* Processes that only named themselves are left out. */
      {
        gboolean has_events = FALSE;

        for (guint ti = 0; ti < threads->len && !has_events; ti++)
          {
            guint t = g_array_index (threads, ThreadOrder, ti).thread;

            has_events = lo->line_start[t] != lo->line_start[t + 1];
          }
        if (!has_events)
          continue;
      }
      if (proc->name != NULL && proc->name[0] == '\0')
        g_clear_pointer (&proc->name, g_free);
      if (proc->name != NULL && proc->labels != NULL)
        plane_name = g_strdup_printf ("%s (%s)", proc->name, proc->labels);
      else if (proc->name != NULL)
        plane_name = g_strdup (proc->name);
      else if (strcmp (proc->key, GLOBAL_KEY) == 0)
        plane_name = g_strdup ("Global");
      else
        {
          g_autofree char *shown = display_key (proc->key);

          plane_name = numeric_key (proc->key, &pid) ? g_strdup_printf ("Process %s", shown)
                       : shown[0] == '\0'             ? g_strdup ("Process (no pid)")
                                                      : g_strdup (shown);
        }

      g_byte_array_set_size (plane, 0);
      planar_wire_append_tag (plane, 1, 0);
      planar_wire_append_varint (plane, ++n_planes);
      planar_wire_append_string_field (plane, 2, plane_name);

      for (guint ti = 0; ti < threads->len; ti++)
        {
          guint t = g_array_index (threads, ThreadOrder, ti).thread;
          Thread *thread = g_ptr_array_index (imp->threads, t);
          g_autoptr(GByteArray) line = g_byte_array_new ();
          g_autofree char *line_name = NULL;
          gint64 tid;

          if (lo->line_start[t] == lo->line_start[t + 1])
            continue;
          planar_wire_append_tag (line, 1, 0);
          planar_wire_append_varint (line, ti + 1);
          if (thread->name != NULL)
            line_name = g_strdup (thread->name);
          else if (strcmp (thread->tid, GLOBAL_KEY) == 0)
            line_name = g_strdup ("Global instants");
          else if (strcmp (thread->tid, "\"") == 0)
            line_name = g_strdup ("Thread (no tid)");
          else
            {
              g_autofree char *shown = display_key (thread->tid);

              line_name = numeric_key (thread->tid, &tid) ? g_strdup_printf ("Thread %s", shown) : g_strdup (shown);
            }
          planar_wire_append_string_field (line, 2, line_name);
          for (gsize k = lo->line_start[t]; k < lo->line_start[t + 1]; k++)
            {
              guint32 index = lo->order[k];

              flows = NULL;
              /* The flow stats are sorted by event: find this one's. */
              if (flows_end != NULL)
                {
                  const FlowStat *all = (const FlowStat *) (gpointer) imp->flow_stats->data;
                  gsize a = 0, b = imp->flow_stats->len;

                  while (a < b)
                    {
                      gsize mid = a + (b - a) / 2;

                      if (all[mid].event < index)
                        a = mid + 1;
                      else
                        b = mid;
                    }
                  flows = all + a;
                }
              used_names[g_array_index (imp->events, ImportEvent, index).name] = TRUE;
              encode_event (imp, line, index, flow_stat_id, &flows, flows_end);
            }
          planar_wire_append_bytes_field (plane, 3, line->data, line->len);
        }

      /* Event metadata for the names used, stat metadata for all. */
      for (guint n = 1; n <= imp->name_list->len; n++)
        {
          g_autoptr(GByteArray) md = NULL;
          g_autoptr(GByteArray) entry = NULL;

          if (!used_names[n])
            continue;
          md = g_byte_array_new ();
          entry = g_byte_array_new ();
          planar_wire_append_tag (md, 1, 0);
          planar_wire_append_varint (md, n);
          planar_wire_append_string_field (md, 2, g_ptr_array_index (imp->name_list, n - 1));
          planar_wire_append_tag (entry, 1, 0);
          planar_wire_append_varint (entry, n);
          planar_wire_append_bytes_field (entry, 2, md->data, md->len);
          planar_wire_append_bytes_field (plane, 4, entry->data, entry->len);
        }
      for (guint n = 1; n <= imp->stat_name_list->len; n++)
        {
          g_autoptr(GByteArray) md = g_byte_array_new ();
          g_autoptr(GByteArray) entry = g_byte_array_new ();

          planar_wire_append_tag (md, 1, 0);
          planar_wire_append_varint (md, n);
          planar_wire_append_string_field (md, 2, g_ptr_array_index (imp->stat_name_list, n - 1));
          planar_wire_append_tag (entry, 1, 0);
          planar_wire_append_varint (entry, n);
          planar_wire_append_bytes_field (entry, 2, md->data, md->len);
          planar_wire_append_bytes_field (plane, 5, entry->data, entry->len);
        }

      g_byte_array_set_size (header, 0);
      planar_wire_append_tag (header, 1, 2);
      planar_wire_append_varint (header, plane->len);
      if (!write_all (fd, header->data, header->len, error) || !write_all (fd, plane->data, plane->len, error))
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------ */

gboolean
planar_import_is_json (const guint8 *data,
                       gsize         size)
{
  gsize i = 0;

  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
    return TRUE;
  /* A UTF-8 byte order mark, then blanks. */
  if (size >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
    i = 3;
  for (; i < size && i < 4096; i++)
    {
      if (data[i] == '{' || data[i] == '[')
        return TRUE;
      if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' && data[i] != '\r')
        return FALSE;
    }
  return FALSE;
}

void
_planar_import_report_free (PlanarImportReport *report)
{
  if (report == NULL)
    return;
  g_hash_table_unref (report->ignored);
  g_free (report);
}

static gboolean
feed (Importer      *imp,
      yajl_handle    parser,
      const guint8  *data,
      gsize          len,
      guint64        offset,
      GError       **error)
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
    g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, "%s is not valid JSON at byte %" G_GUINT64_FORMAT
                 ": %s", imp->file, offset + yajl_get_bytes_consumed (parser), text);
  }
  return FALSE;
}

static gboolean
parse (Importer      *imp,
       const guint8  *data,
       gsize          size,
       GError       **error)
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
            g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, "%s is not valid JSON: it ends too early",
                         imp->file);
          ok = FALSE;
        }
    }
  yajl_free (parser);
  if (ok && imp->events_depth == -1)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, "%s has no \"traceEvents\" array", imp->file);
      ok = FALSE;
    }
  return ok;
}

gboolean
_planar_import_chrome_json (const guint8         *data,
                            gsize                 size,
                            const char           *name,
                            int                   fd,
                            PlanarImportReport  **report_out,
                            GError              **error)
{
  Importer imp = { 0 };
  LineOrder lo = { 0 };
  gboolean ok;

  imp.file = name;
  imp.report = g_new0 (PlanarImportReport, 1);
  imp.report->ignored = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  imp.events_depth = -1;
  imp.skip_depth = -1;
  imp.arg_key = g_string_new (NULL);
  imp.nested = g_string_new (NULL);
  imp.nested_comma = g_byte_array_new ();
  imp.r.name = g_string_new (NULL);
  imp.r.cat = g_string_new (NULL);
  imp.r.pid = g_string_new (NULL);
  imp.r.tid = g_string_new (NULL);
  imp.r.number_keys = g_string_new (NULL);
  imp.r.number_values = g_array_new (FALSE, FALSE, sizeof (double));
  imp.r.id = g_string_new (NULL);
  imp.r.bind_id = g_string_new (NULL);
  imp.r.meta_name = g_string_new (NULL);
  imp.r.meta_labels = g_string_new (NULL);
  imp.names = g_hash_table_new (g_str_hash, g_str_equal);
  imp.name_list = g_ptr_array_new_with_free_func (g_free);
  imp.stat_names = g_hash_table_new (g_str_hash, g_str_equal);
  imp.stat_name_list = g_ptr_array_new_with_free_func (g_free);
  imp.process_index = g_hash_table_new (g_str_hash, g_str_equal);
  imp.processes = g_ptr_array_new_with_free_func ((GDestroyNotify) process_free);
  imp.thread_index = g_hash_table_new (g_str_hash, g_str_equal);
  imp.threads = g_ptr_array_new_with_free_func ((GDestroyNotify) thread_free);
  imp.events = g_array_new (FALSE, FALSE, sizeof (ImportEvent));
  imp.args = g_byte_array_new ();
  imp.cur_args = g_byte_array_new ();
  imp.flow_stats = g_array_new (FALSE, FALSE, sizeof (FlowStat));
  imp.flow_records = g_array_new (FALSE, FALSE, sizeof (FlowRecord));

  ok = parse (&imp, data, size, error);
  if (ok)
    {
      for (guint t = 0; t < imp.threads->len; t++)
        imp.report->n_unmatched_begin += ((Thread *) g_ptr_array_index (imp.threads, t))->open->len;
      if (imp.events->len == 0)
        {
          g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_EMPTY,
                       "%s holds no trace events with a time (X, B/E or instant events)", name);
          ok = FALSE;
        }
    }
  if (ok)
    {
      lo.order = g_new (guint32, imp.events->len);
      lo.line_start = g_new0 (gsize, imp.threads->len + 1);
      for (guint i = 0; i < imp.events->len; i++)
        {
          lo.order[i] = i;
          lo.line_start[g_array_index (imp.events, ImportEvent, i).line + 1]++;
        }
      for (guint t = 0; t < imp.threads->len; t++)
        lo.line_start[t + 1] += lo.line_start[t];
      g_qsort_with_data (lo.order, (gint) imp.events->len, sizeof (guint32), compare_event_order, imp.events);
      bind_flows (&imp, &lo);
      ok = write_space (&imp, &lo, fd, error);
    }

  g_free (lo.order);
  g_free (lo.line_start);
  g_clear_error (&imp.error);
  g_string_free (imp.arg_key, TRUE);
  g_string_free (imp.nested, TRUE);
  g_byte_array_unref (imp.nested_comma);
  g_string_free (imp.r.name, TRUE);
  g_string_free (imp.r.cat, TRUE);
  g_string_free (imp.r.pid, TRUE);
  g_string_free (imp.r.tid, TRUE);
  g_string_free (imp.r.number_keys, TRUE);
  g_array_unref (imp.r.number_values);
  g_string_free (imp.r.id, TRUE);
  g_string_free (imp.r.bind_id, TRUE);
  g_string_free (imp.r.meta_name, TRUE);
  g_string_free (imp.r.meta_labels, TRUE);
  g_hash_table_unref (imp.names);
  g_ptr_array_unref (imp.name_list);
  g_hash_table_unref (imp.stat_names);
  g_ptr_array_unref (imp.stat_name_list);
  g_hash_table_unref (imp.process_index);
  g_ptr_array_unref (imp.processes);
  g_hash_table_unref (imp.thread_index);
  g_ptr_array_unref (imp.threads);
  g_array_unref (imp.events);
  g_byte_array_unref (imp.args);
  g_byte_array_unref (imp.cur_args);
  g_array_unref (imp.flow_stats);
  g_array_unref (imp.flow_records);

  if (!ok)
    {
      _planar_import_report_free (imp.report);
      return FALSE;
    }
  *report_out = imp.report;
  return TRUE;
}
