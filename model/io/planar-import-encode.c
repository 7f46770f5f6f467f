/* planar-import-encode.c: the Chrome JSON import's XSpace.
 *
 * Once every record is read: each line's events in start order (longer
 * first, then file order), flow v1 records bound to the slices they point
 * at, and the XSpace written with the model's writer, a plane per process
 * (in process_sort_index order, then first seen) and a line per thread (in
 * thread_sort_index order, then by tid), the importer's own lines last.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-importer-private.h"

#include <string.h>

#include "planar-wire.h"
#include "planar-xspace-writer.h"

/* Keys no pid or tid read from the file can have (planar-import-records.c). */
#define GLOBAL_KEY "\001global"

static int
compare_event_order (gconstpointer a,
                     gconstpointer b,
                     gpointer      user_data)
{
  GArray *events = user_data;
  const PlanarImportEvent *x = &g_array_index (events, PlanarImportEvent, *(const guint32 *) a);
  const PlanarImportEvent *y = &g_array_index (events, PlanarImportEvent, *(const guint32 *) b);

  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->ts_ps != y->ts_ps)
    return x->ts_ps < y->ts_ps ? -1 : 1;
  if (x->dur_ps != y->dur_ps)
    return x->dur_ps > y->dur_ps ? -1 : 1;
  /* As Perfetto nests them (its sorter, trace_sorter.h, hands the "X"
   * records of one time to its parser longest first, before the "B"
   * records, which keep file order): an "X" holds a B/E pair as long,
   * and events as long of one kind nest in file order. Instants and
   * zero-length events keep file order whatever their kind. */
  if (x->dur_ps > 0 && (x->seq & PLANAR_IMPORT_SEQ_PAIR) != (y->seq & PLANAR_IMPORT_SEQ_PAIR))
    return (x->seq & PLANAR_IMPORT_SEQ_PAIR) == 0 ? -1 : 1;
  if ((x->seq & ~PLANAR_IMPORT_SEQ_PAIR) != (y->seq & ~PLANAR_IMPORT_SEQ_PAIR))
    return (x->seq & ~PLANAR_IMPORT_SEQ_PAIR) < (y->seq & ~PLANAR_IMPORT_SEQ_PAIR) ? -1 : 1;
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
bind_flows (PlanarImporter *imp,
            LineOrder      *lo)
{
  for (guint i = 0; i < imp->flow_records->len; i++)
    {
      const PlanarImportFlowRecord *fr = &g_array_index (imp->flow_records, PlanarImportFlowRecord, i);
      gsize lo_i = lo->line_start[fr->line], hi = lo->line_start[fr->line + 1];
      gsize first = lo_i, last = hi;
      gssize target = -1;

      /* First event of the line starting at or after the flow's time. */
      while (first < last)
        {
          gsize mid = first + (last - first) / 2;

          if (g_array_index (imp->events, PlanarImportEvent, lo->order[mid]).ts_ps < fr->ts_ps)
            first = mid + 1;
          else
            last = mid;
        }
      if (fr->enclosing)
        {
          /* The deepest slice holding the time: the latest-starting one
           * among those that start at or before it and end after it. */
          gsize k = first;

          while (k < hi && g_array_index (imp->events, PlanarImportEvent, lo->order[k]).ts_ps == fr->ts_ps)
            k++;
          for (gsize steps = 0; k > lo_i && steps < 4096; steps++)
            {
              const PlanarImportEvent *ev = &g_array_index (imp->events, PlanarImportEvent, lo->order[--k]);

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
        PlanarImportFlowStat fs = { (guint32) target, 0,
                                    _planar_importer_flow_value (fr->id, fr->direction, fr->category) };

        g_array_append_val (imp->flow_stats, fs);
      }
    }
}

static int
compare_flow_stats (gconstpointer a,
                    gconstpointer b)
{
  const PlanarImportFlowStat *x = a, *y = b;

  return x->event < y->event ? -1 : x->event > y->event ? 1 : 0;
}

static int
compare_process_order (gconstpointer a,
                       gconstpointer b)
{
  const PlanarImportProcess *x = *(PlanarImportProcess * const *) a, *y = *(PlanarImportProcess * const *) b;
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

/* Written as a JSON number (strings keep their opening quote), integer
 * or not: named "Process 7.5" as an integer id is named. */
static gboolean
number_key (const char *key)
{
  return key[0] != '"' && key[0] != '\0';
}

static char *
display_key (const char *key)
{
  return g_strdup (key[0] == '"' ? key + 1 : key);
}

/* The plane's metadata id of each name and stat name the import interned
 * (0: not asked for yet in this plane). */
typedef struct
{
  PlanarXSpaceWriter *writer;
  guint64            *names;
  guint64            *stats;
  guint64             flow;
} PlaneIds;

static guint64
plane_name_id (PlanarImporter *imp,
               PlaneIds       *ids,
               guint32         name)
{
  if (ids->names[name] == 0)
    ids->names[name] = planar_xspace_writer_event_metadata (ids->writer, g_ptr_array_index (imp->name_list, name - 1));
  return ids->names[name];
}

static guint64
plane_stat_id (PlanarImporter *imp,
               PlaneIds       *ids,
               guint64         stat)
{
  if (stat == 0 || stat > imp->stat_name_list->len)
    return 0;
  if (ids->stats[stat] == 0)
    ids->stats[stat] = planar_xspace_writer_stat_metadata (ids->writer,
                                                           g_ptr_array_index (imp->stat_name_list, stat - 1));
  return ids->stats[stat];
}

/* The args of an event, from their compact encoding
 * (planar-importer-private.h), which the import wrote itself. */
static void
write_args (PlanarImporter *imp,
            PlaneIds       *ids,
            const guint8   *p,
            const guint8   *end)
{
  while (p < end)
    {
      PlanarImportArgKind kind = (PlanarImportArgKind) *p++;
      guint64 stat = 0;
      guint64 value = 0;

      if (!planar_wire_read_varint (&p, end, &stat))
        g_assert_not_reached ();
      stat = plane_stat_id (imp, ids, stat);
      switch (kind)
        {
        case PLANAR_IMPORT_ARG_INT64:
        case PLANAR_IMPORT_ARG_UINT64:
          if (!planar_wire_read_varint (&p, end, &value))
            g_assert_not_reached ();
          if (kind == PLANAR_IMPORT_ARG_INT64)
            planar_xspace_writer_add_stat_int64 (ids->writer, stat, (gint64) value);
          else
            planar_xspace_writer_add_stat_uint64 (ids->writer, stat, value);
          break;
        case PLANAR_IMPORT_ARG_DOUBLE:
          {
            double d;

            g_assert ((gsize) (end - p) >= sizeof value);
            memcpy (&value, p, sizeof value);
            value = GUINT64_FROM_LE (value);
            memcpy (&d, &value, sizeof d);
            p += sizeof value;
            planar_xspace_writer_add_stat_double (ids->writer, stat, d);
          }
          break;
        case PLANAR_IMPORT_ARG_STRING:
          if (!planar_wire_read_varint (&p, end, &value) || value > (guint64) (end - p))
            g_assert_not_reached ();
          planar_xspace_writer_add_stat_string (ids->writer, stat, (const char *) p, (gssize) value);
          p += value;
          break;
        default:
          g_assert_not_reached ();
        }
    }
}

/* The plane of @proc, or nothing when none of its threads has events. */
static void
write_plane (PlanarImporter      *imp,
             LineOrder           *lo,
             PlaneIds            *ids,
             PlanarImportProcess *proc,
             guint                process_index,
             gint64               plane_id,
             gboolean            *written)
{
  const PlanarImportFlowStat *all_flows = (const PlanarImportFlowStat *) (gpointer) imp->flow_stats->data;
  g_autoptr(GArray) threads = g_array_new (FALSE, FALSE, sizeof (ThreadOrder));
  g_autofree char *plane_name = NULL;
  gboolean has_events = FALSE;

  *written = FALSE;
  for (guint t = 0; t < imp->threads->len; t++)
    {
      PlanarImportThread *thread = g_ptr_array_index (imp->threads, t);
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
      g_array_append_val (threads, order);
      has_events = has_events || lo->line_start[t] != lo->line_start[t + 1];
    }
  /* Processes that only named themselves are left out. */
  if (!has_events)
    return;
  g_array_sort (threads, compare_thread_order);

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

      plane_name = number_key (proc->key) ? g_strdup_printf ("Process %s", shown)
                   : shown[0] == '\0'             ? g_strdup ("Process (no pid)")
                                                  : g_strdup (shown);
    }

  planar_xspace_writer_begin_plane (ids->writer, plane_id, plane_name);
  memset (ids->names, 0, sizeof (guint64) * (imp->name_list->len + 1));
  memset (ids->stats, 0, sizeof (guint64) * (imp->stat_name_list->len + 1));
  ids->flow = 0;

  for (guint ti = 0; ti < threads->len; ti++)
    {
      guint t = g_array_index (threads, ThreadOrder, ti).thread;
      PlanarImportThread *thread = g_ptr_array_index (imp->threads, t);
      g_autofree char *line_name = NULL;

      if (lo->line_start[t] == lo->line_start[t + 1])
        continue;
      if (thread->name != NULL)
        line_name = g_strdup (thread->name);
      else if (strcmp (thread->tid, GLOBAL_KEY) == 0)
        line_name = g_strdup ("Global instants");
      else if (strcmp (thread->tid, "\"") == 0)
        line_name = g_strdup ("Thread (no tid)");
      else
        {
          g_autofree char *shown = display_key (thread->tid);

          line_name = number_key (thread->tid) ? g_strdup_printf ("Thread %s", shown) : g_strdup (shown);
        }
      planar_xspace_writer_add_line (ids->writer, ti + 1, line_name, 0);
      for (gsize k = lo->line_start[t]; k < lo->line_start[t + 1]; k++)
        {
          guint32 index = lo->order[k];
          const PlanarImportEvent *ev = &g_array_index (imp->events, PlanarImportEvent, index);

          planar_xspace_writer_add_event (ids->writer, plane_name_id (imp, ids, ev->name), ev->ts_ps, ev->dur_ps);
          if (ev->args_len > 0)
            write_args (imp, ids, imp->args->data + ev->args_at, imp->args->data + ev->args_at + ev->args_len);
          /* The flow stats are sorted by event: find this one's. */
          if (imp->flow_stats->len > 0)
            {
              gsize a = 0, b = imp->flow_stats->len;

              while (a < b)
                {
                  gsize mid = a + (b - a) / 2;

                  if (all_flows[mid].event < index)
                    a = mid + 1;
                  else
                    b = mid;
                }
              for (; a < imp->flow_stats->len && all_flows[a].event == index; a++)
                {
                  if (ids->flow == 0)
                    ids->flow = planar_xspace_writer_stat_metadata (ids->writer, "flow");
                  planar_xspace_writer_add_stat_uint64 (ids->writer, ids->flow, all_flows[a].value);
                }
            }
        }
    }
  *written = TRUE;
}

gboolean
_planar_importer_write (PlanarImporter  *imp,
                        int              fd,
                        GError         **error)
{
  g_autoptr(PlanarXSpaceWriter) writer = planar_xspace_writer_new_for_fd (fd);
  g_autoptr(GPtrArray) processes = g_ptr_array_new ();
  g_autofree guint64 *name_ids = g_new0 (guint64, imp->name_list->len + 1);
  g_autofree guint64 *stat_ids = g_new0 (guint64, imp->stat_name_list->len + 1);
  PlaneIds ids = { writer, name_ids, stat_ids, 0 };
  LineOrder lo = { 0 };
  gint64 n_planes = 0;

  lo.order = g_new (guint32, imp->events->len);
  lo.line_start = g_new0 (gsize, imp->threads->len + 1);
  for (guint i = 0; i < imp->events->len; i++)
    {
      lo.order[i] = i;
      lo.line_start[g_array_index (imp->events, PlanarImportEvent, i).line + 1]++;
    }
  for (guint t = 0; t < imp->threads->len; t++)
    lo.line_start[t + 1] += lo.line_start[t];
  g_qsort_with_data (lo.order, (gint) imp->events->len, sizeof (guint32), compare_event_order, imp->events);
  bind_flows (imp, &lo);
  g_array_sort (imp->flow_stats, compare_flow_stats);

  for (guint p = 0; p < imp->processes->len; p++)
    g_ptr_array_add (processes, g_ptr_array_index (imp->processes, p));
  g_ptr_array_sort (processes, compare_process_order);
  for (guint pi = 0; pi < processes->len; pi++)
    {
      PlanarImportProcess *proc = g_ptr_array_index (processes, pi);
      guint process_index = GPOINTER_TO_UINT (g_hash_table_lookup (imp->process_index, proc->key));
      gboolean written;

      write_plane (imp, &lo, &ids, proc, process_index, n_planes + 1, &written);
      if (written)
        n_planes++;
    }
  g_free (lo.order);
  g_free (lo.line_start);
  return planar_xspace_writer_finish (g_steal_pointer (&writer), error);
}
