/* planar-import-records.c: the Chrome JSON import's records.
 *
 * Each trace event record, once its object ends, becomes what the XSpace
 * needs: an event on its thread's line (X, i/I, C), a mark to pair (B, E),
 * a flow record (s, t, f) or a process or thread name (M). Args are kept
 * in a compact encoding of the import's own (planar-importer-private.h),
 * turned into XStats only when the XSpace is written.
 *
 * The rules follow Perfetto's JSON importer where Perfetto has one
 * (docs/interop.md names its source and where Planar differs).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-importer-private.h"

#include <glib/gi18n-lib.h>

#include <inttypes.h>

#include <errno.h>
#include <string.h>

#include "planar-error.h"
#include "planar-flows.h"
#include "planar-wire.h"

/* ------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

guint32
_planar_importer_intern (GHashTable *table,
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
stat_id (PlanarImporter *imp,
         const char     *name,
         gsize           len)
{
  return _planar_importer_intern (imp->stat_names, imp->stat_name_list, name, len);
}

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

int
_planar_importer_fail (PlanarImporter *imp,
                       const char     *format,
                       ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (imp->error != NULL)
    return 0;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (&imp->error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, _("%s: trace event %" PRIu64 ": %s"),
               imp->file, imp->n_records, message);
  return 0;
}

/* ------------------------------------------------------------------------
 * Numbers
 * ------------------------------------------------------------------------ */

/* Exact when there is no exponent. */
gboolean
_planar_importer_parse_time (PlanarImporter *imp,
                             const char     *text,
                             gsize           len,
                             gboolean        is_duration,
                             gint64         *ps_out)
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
        return _planar_importer_fail (imp, "time %s is out of range", copy);
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
            return _planar_importer_fail (imp, "time %s is out of range", copy);
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
        return _planar_importer_fail (imp, "negative duration %s", copy);
      if (whole > G_GUINT64_CONSTANT (9000000000000))
        return _planar_importer_fail (imp, "duration %s is out of range", copy);
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
    if (rel_us > PLANAR_IMPORT_MAX_SPAN_PS / 1000000 - 1 || rel_us < -(PLANAR_IMPORT_MAX_SPAN_PS / 1000000 - 1))
      return _planar_importer_fail (imp, "time %s is too far from the first event (more than 100 days)", copy);
    *ps_out = rel_us * 1000000 + sub;
  }
  return TRUE;
}


/* ------------------------------------------------------------------------
 * Args
 * ------------------------------------------------------------------------ */

/* An arg's kind and name, in the compact encoding. */
static void
arg_header (PlanarImporter      *imp,
            PlanarImportArgKind  kind)
{
  guint8 k = (guint8) kind;

  g_byte_array_append (imp->cur_args, &k, 1);
  planar_wire_append_varint (imp->cur_args, stat_id (imp, imp->arg_key->str, imp->arg_key->len));
}

static void
arg_bytes (PlanarImporter *imp,
           const char     *text,
           gsize           len)
{
  planar_wire_append_varint (imp->cur_args, len);
  g_byte_array_append (imp->cur_args, (const guint8 *) text, (guint) len);
}

void
_planar_importer_arg_string (PlanarImporter *imp,
                             const char     *text,
                             gsize           len)
{
  arg_header (imp, PLANAR_IMPORT_ARG_STRING);
  if (g_utf8_validate (text, (gssize) len, NULL))
    arg_bytes (imp, text, len);
  else
    {
      g_autofree char *valid = g_utf8_make_valid (text, (gssize) len);

      arg_bytes (imp, valid, strlen (valid));
    }
}

static void
arg_double (PlanarImporter *imp,
            double          value)
{
  guint64 bits;

  arg_header (imp, PLANAR_IMPORT_ARG_DOUBLE);
  memcpy (&bits, &value, sizeof bits);
  bits = GUINT64_TO_LE (bits);
  g_byte_array_append (imp->cur_args, (const guint8 *) &bits, sizeof bits);
}

/* An integer that fits int64 is one, one that fits only uint64 is that,
 * anything else a double. */
void
_planar_importer_arg_number (PlanarImporter *imp,
                             const char     *text,
                             gsize           len)
{
  g_autofree char *copy = g_strndup (text, len);
  char *end = NULL;

  if (strpbrk (copy, ".eE") == NULL)
    {
      gint64 i;
      guint64 u;

      errno = 0;
      i = g_ascii_strtoll (copy, &end, 10);
      if (errno == 0 && *end == '\0')
        {
          _planar_importer_arg_int (imp, i);
          return;
        }
      errno = 0;
      u = g_ascii_strtoull (copy, &end, 10);
      if (errno == 0 && *end == '\0' && copy[0] != '-')
        {
          arg_header (imp, PLANAR_IMPORT_ARG_UINT64);
          planar_wire_append_varint (imp->cur_args, u);
          return;
        }
    }
  arg_double (imp, g_ascii_strtod (copy, NULL));
}

void
_planar_importer_arg_int (PlanarImporter *imp,
                          gint64          value)
{
  arg_header (imp, PLANAR_IMPORT_ARG_INT64);
  planar_wire_append_varint (imp->cur_args, (guint64) value);
}

/* ------------------------------------------------------------------------
 * Processes, threads, events
 * ------------------------------------------------------------------------ */

static guint
process_for (PlanarImporter *imp,
             const char     *key)
{
  gpointer index;
  PlanarImportProcess *p;

  if (g_hash_table_lookup_extended (imp->process_index, key, NULL, &index))
    return GPOINTER_TO_UINT (index);
  p = g_new0 (PlanarImportProcess, 1);
  p->key = g_strdup (key);
  p->first_seen = imp->processes->len;
  g_ptr_array_add (imp->processes, p);
  g_hash_table_insert (imp->process_index, p->key, GUINT_TO_POINTER (imp->processes->len - 1));
  return imp->processes->len - 1;
}

static guint
thread_for (PlanarImporter *imp,
            const char     *pid,
            const char     *tid)
{
  g_autofree char *key = g_strconcat (pid, "\x1f", tid, NULL);
  gpointer index;
  PlanarImportThread *t;

  if (g_hash_table_lookup_extended (imp->thread_index, key, NULL, &index))
    return GPOINTER_TO_UINT (index);
  t = g_new0 (PlanarImportThread, 1);
  t->key = g_steal_pointer (&key);
  t->process = process_for (imp, pid);
  t->tid = g_strdup (tid);
  g_ptr_array_add (imp->threads, t);
  g_hash_table_insert (imp->thread_index, t->key, GUINT_TO_POINTER (imp->threads->len - 1));
  return imp->threads->len - 1;
}

static guint64
stash_args (PlanarImporter *imp,
            guint32        *len)
{
  guint64 at = imp->args->len;

  g_byte_array_append (imp->args, imp->cur_args->data, imp->cur_args->len);
  *len = imp->cur_args->len;
  return at;
}

static void
add_event (PlanarImporter *imp,
           guint32         line,
           guint32         name,
           gint64          ts_ps,
           gint64          dur_ps,
           guint64         args_at,
           guint32         args_len,
           guint32         seq)
{
  PlanarImportEvent ev = { ts_ps, dur_ps, name, line, args_at, args_len, seq };

  if (imp->events->len >= G_MAXUINT32 - 1)
    {
      _planar_importer_fail (imp, "more than 4 billion events");
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

static void
count_ignored (PlanarImporter *imp,
               const char     *ph)
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
#define PROCESS_INSTANTS_KEY "\001process"

static const char *
thread_key (GString *value)
{
  return value->len > 0 ? value->str : "0";
}

/* An event without a tid is on its process's main thread, whose tid is
 * the pid, as Perfetto reads it (Perfetto does the same for a tid of 0,
 * which Planar keeps as a thread of its own). */
static const char *
tid_key (PlanarImportRecord *r)
{
  if (r->tid->len == 0 && r->pid->len > 0 && r->pid->str[0] != '"')
    return r->pid->str;
  return thread_key (r->tid);
}

/* A "C" record: one sample on its process's `_counters_` line, its
 * numeric args as stats named "<name> <arg>", as Perfetto names the
 * series. */
static void
add_counter (PlanarImporter *imp)
{
  PlanarImportRecord *r = &imp->r;
  const char *key;
  guint32 len;
  guint32 line;
  guint32 name;
  PlanarImportThread *t;
  guint64 at;

  if (!r->has_ts)
    {
      _planar_importer_fail (imp, "a \"C\" event without a numeric \"ts\"");
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
  name = _planar_importer_intern (imp->names, imp->name_list, r->has_name ? r->name->str : "",
                                  r->has_name ? r->name->len : 0);
  /* The record's args were its series: they are replaced. */
  g_byte_array_set_size (imp->cur_args, 0);
  key = r->number_keys->str;
  for (guint i = 0; i < r->number_values->len; i++)
    {
      g_autofree char *series = r->has_name && r->name->len > 0 ? g_strdup_printf ("%s %s", r->name->str, key)
                                                                : g_strdup (key);

      g_string_assign (imp->arg_key, series);
      arg_double (imp, g_array_index (r->number_values, double, i));
      key += strlen (key) + 1;
    }
  at = stash_args (imp, &len);
  add_event (imp, line, name, r->ts_ps, 0, at, len, (guint32) imp->n_records);
  imp->report->n_counters++;
}

void
_planar_importer_finish_record (PlanarImporter *imp)
{
  PlanarImportRecord *r = &imp->r;
  const char *ph = r->ph;
  guint32 line;
  guint32 name;

  if (imp->n_records++ >= PLANAR_IMPORT_MAX_RECORDS)
    {
      _planar_importer_fail (imp, "more than 2 billion trace events");
      return;
    }
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
          PlanarImportProcess *p = g_ptr_array_index (imp->processes, index);

          g_free (p->name);
          p->name = g_strdup (r->meta_name->str);
        }
      else if (g_strcmp0 (r->name->str, "process_labels") == 0 && r->has_meta_labels)
        {
          guint index = process_for (imp, thread_key (r->pid));
          PlanarImportProcess *p = g_ptr_array_index (imp->processes, index);

          g_free (p->labels);
          p->labels = g_strdup (r->meta_labels->str);
        }
      else if (g_strcmp0 (r->name->str, "process_sort_index") == 0 && r->has_meta_sort_index)
        {
          guint index = process_for (imp, thread_key (r->pid));
          PlanarImportProcess *p = g_ptr_array_index (imp->processes, index);

          p->sort_index = r->meta_sort_index;
          p->has_sort_index = TRUE;
        }
      else if (g_strcmp0 (r->name->str, "thread_name") == 0 && r->has_meta_name)
        {
          guint index = thread_for (imp, thread_key (r->pid), tid_key (r));
          PlanarImportThread *t = g_ptr_array_index (imp->threads, index);

          g_free (t->name);
          t->name = g_strdup (r->meta_name->str);
        }
      else if (g_strcmp0 (r->name->str, "thread_sort_index") == 0 && r->has_meta_sort_index)
        {
          guint index = thread_for (imp, thread_key (r->pid), tid_key (r));
          PlanarImportThread *t = g_ptr_array_index (imp->threads, index);

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

  /* "R" (a mark of the navigation timing API) is an instant to Perfetto
   * too. */
  if (ph[1] != '\0' || strchr ("XBEiIRstf", ph[0]) == NULL)
    {
      count_ignored (imp, ph);
      return;
    }
  if (!r->has_ts)
    {
      _planar_importer_fail (imp, "a \"%s\" event without a numeric \"ts\"", ph);
      return;
    }

  /* Instants of the whole trace ("s": "g") have a section of their own,
   * whatever pid they carry (Kineto's have an empty one); those of a
   * process ("s": "p") a line of its own in it, as Perfetto gives both a
   * track of their own. */
  if ((ph[0] == 'i' || ph[0] == 'I' || ph[0] == 'R') && r->scope == 'g')
    {
      line = thread_for (imp, GLOBAL_KEY, GLOBAL_KEY);
      ((PlanarImportThread *) g_ptr_array_index (imp->threads, line))->special = TRUE;
    }
  else if ((ph[0] == 'i' || ph[0] == 'I' || ph[0] == 'R') && r->scope == 'p')
    {
      PlanarImportThread *t;

      line = thread_for (imp, thread_key (r->pid), PROCESS_INSTANTS_KEY);
      t = g_ptr_array_index (imp->threads, line);
      t->special = TRUE;
      if (t->name == NULL)
        t->name = g_strdup ("Process instants");
    }
  else
    line = thread_for (imp, thread_key (r->pid), tid_key (r));
  name = _planar_importer_intern (imp->names, imp->name_list, r->has_name ? r->name->str : "",
                                  r->has_name ? r->name->len : 0);

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
            guint direction = (r->flow_in ? 1 : 0) | (r->flow_out ? 2 : 0);
            PlanarImportFlowStat fs = { imp->events->len - 1, 0,
                                        _planar_importer_flow_value (flow_hash ("v2", r->bind_id->str, NULL, NULL),
                                                                     direction, flow_category (r->cat->str)) };

            g_array_append_val (imp->flow_stats, fs);
            imp->report->n_flows++;
          }
      }
      break;
    case 'B':
    case 'E':
      {
        PlanarImportMark m = { r->ts_ps, 0, 0, (guint32) imp->n_records, line, name, 0, ph[0] == 'E' };

        /* An "E" names what it ends only when it says so. */
        if (m.is_end && (!r->has_name || r->name->len == 0))
          m.name = 0;
        if (r->cat->len > 0)
          m.cat = _planar_importer_intern (imp->names, imp->name_list, r->cat->str, r->cat->len);
        m.args_at = stash_args (imp, &m.args_len);
        g_array_append_val (imp->marks, m);
      }
      break;
    case 'i':
    case 'I':
    case 'R':
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
        PlanarImportFlowRecord fr = { 0 };

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

void
_planar_importer_reset_record (PlanarImporter *imp)
{
  PlanarImportRecord *r = &imp->r;

  memset (r->ph, 0, sizeof r->ph);
  g_string_truncate (r->name, 0);
  g_string_truncate (r->cat, 0);
  g_string_truncate (r->pid, 0);
  g_string_truncate (r->tid, 0);
  g_string_truncate (r->id, 0);
  g_string_truncate (r->bind_id, 0);
  g_string_truncate (r->meta_name, 0);
  r->has_ph = r->has_ts = r->has_dur = r->has_name = r->has_pid = r->has_tid = FALSE;
  r->has_id = r->has_bind_id = r->flow_in = r->flow_out = r->bp_enclosing = FALSE;
  r->scope = 0;
  g_string_truncate (r->number_keys, 0);
  g_array_set_size (r->number_values, 0);
  r->has_meta_name = r->has_meta_labels = r->has_meta_sort_index = FALSE;
  g_string_truncate (r->meta_labels, 0);
  r->n_keys = 0;
  r->ts_ps = r->dur_ps = 0;
  g_byte_array_set_size (imp->cur_args, 0);
}


/* ------------------------------------------------------------------------
 * Pairing "B" and "E"
 * ------------------------------------------------------------------------ */

/* Each line's marks in time order, file order within a time: Perfetto
 * sorts a JSON trace by time before it pairs "B" with "E", so a file
 * whose records are out of order pairs the same. Within one time Perfetto
 * keeps file order too, until the trace's first "X"; after it, its sorter
 * moves the time's "E" records before its "B" records (trace_sorter.h,
 * SlowOperatorLess), which ends a zero-length pair's parent instead of the
 * pair. Planar keeps file order there (docs/interop.md). */
static int
compare_marks (gconstpointer a,
               gconstpointer b)
{
  const PlanarImportMark *x = a, *y = b;

  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->ts_ps != y->ts_ps)
    return x->ts_ps < y->ts_ps ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : 0;
}

/* @begin as an event ending at @end_ps, with its args and @end's. */
static void
add_pair (PlanarImporter         *imp,
          const PlanarImportMark *begin,
          const PlanarImportMark *end,
          gint64                  end_ps)
{
  guint64 at = imp->args->len;
  guint32 len = begin->args_len + (end != NULL ? end->args_len : 0);

  /* Grown first: appending from itself would read freed memory. With no
   * args at all the array may hold no buffer (NULL data). */
  g_byte_array_set_size (imp->args, (guint) (at + len));
  if (begin->args_len > 0)
    memcpy (imp->args->data + at, imp->args->data + begin->args_at, begin->args_len);
  if (end != NULL && end->args_len > 0)
    memcpy (imp->args->data + at + begin->args_len, imp->args->data + end->args_at, end->args_len);
  add_event (imp, begin->line, begin->name, begin->ts_ps, MAX (end_ps - begin->ts_ps, 0), at, len,
             begin->seq | PLANAR_IMPORT_SEQ_PAIR);
  imp->report->n_begin_end++;
}

void
_planar_importer_pair_marks (PlanarImporter *imp)
{
  g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (guint));
  const PlanarImportMark *marks;
  guint n = imp->marks->len;

  g_array_sort (imp->marks, compare_marks);
  marks = (const PlanarImportMark *) (gpointer) imp->marks->data;
  for (guint i = 0; i < n && imp->error == NULL; i++)
    {
      const PlanarImportMark *m = &marks[i];
      gint k;

      if (i > 0 && marks[i - 1].line != m->line)
        {
          imp->report->n_unmatched_begin += open->len;
          g_array_set_size (open, 0);
        }
      if (!m->is_end)
        {
          g_array_append_val (open, i);
          continue;
        }
      /* The innermost open slice, or, when the "E" gives a name or a
       * category, the innermost of that name and category (Perfetto's
       * SliceTracker::MatchingIncompleteSliceIndex). */
      for (k = (gint) open->len - 1; k >= 0; k--)
        {
          const PlanarImportMark *b = &marks[g_array_index (open, guint, k)];

          if ((m->cat == 0 || b->cat == m->cat) && (m->name == 0 || b->name == m->name))
            break;
        }
      if (k < 0)
        {
          imp->report->n_unmatched_end++;
          continue;
        }
      /* Slices opened inside it and still open end with it, as Perfetto
       * truncates them to their parent's end. */
      for (gint j = (gint) open->len - 1; j > k; j--)
        add_pair (imp, &marks[g_array_index (open, guint, j)], NULL, m->ts_ps);
      add_pair (imp, &marks[g_array_index (open, guint, k)], m, m->ts_ps);
      g_array_set_size (open, (guint) k);
    }
  imp->report->n_unmatched_begin += open->len;
  g_array_set_size (imp->marks, 0);
}
