/* planar-derive-facts.c: reading what the derive pass needs from events:
 * the stats that matter (EventFacts), the ends of flows they carry, a
 * plane's events in time order, and the planes read for flows only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"
#include "planar-heap-private.h"
#include "planar-xspace-fields-private.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* XLA's StrOrRefValue(): the text of a string or reference stat. */
static gboolean
stat_text (const PlanarStat *stat,
           Text             *text)
{
  if (stat->kind != PLANAR_STAT_STRING && stat->kind != PLANAR_STAT_REF)
    return FALSE;
  text->data = stat->str.data;
  text->len = stat->str.len;
  return TRUE;
}

/* XLA's IntOrUintValue(), and a string stat that holds a decimal number:
 * XProf's trace viewer JSON (JAX's `*.trace.json.gz`) writes every arg as
 * text, the ids the passes group and split by (scope_range_id, group_id,
 * correlation_id) included. */
gboolean
_planar_derive_stat_int (const PlanarStat *stat,
                         guint64          *value)
{
  if (stat->kind == PLANAR_STAT_INT64)
    *value = (guint64) stat->v.i64;
  else if (stat->kind == PLANAR_STAT_UINT64)
    *value = stat->v.u64;
  else if (stat->kind == PLANAR_STAT_STRING)
    return _planar_decimal_text (stat->str.data, stat->str.len, TRUE, value);
  else
    return FALSE;
  return TRUE;
}

/* What a stat gives the facts: each stat name the passes look at is one of
 * these, found once per name (fact_of_name()) and, for the stats read
 * from the file, once per stat metadata of a plane (plane_facts()). */
typedef enum
{
  FACT_NONE,
  FACT_KERNEL,
  FACT_GRAPH_EXEC,
  FACT_HLO_OP,
  FACT_HLO_MODULE,
  FACT_TF_OP,
  FACT_SOURCE,
  FACT_GRAPH_TYPE,
  FACT_PROGRAM_ID,
  FACT_GROUP_ID,
  FACT_SCOPE_RANGE_ID,
  FACT_CORRELATION_ID,
  FACT_DEVICE_ID,
  FACT_FLOW,
  FACT_PRODUCER_TYPE,
  FACT_PRODUCER_ID,
  FACT_CONSUMER_TYPE,
  FACT_CONSUMER_ID,
  FACT_IS_ROOT,
  FACT_IS_ASYNC,
  FACT_ITER_NUM,
  FACT_STEP_NUM,
} Fact;

static Fact
fact_of_name (const StatNames *names,
              const char      *name)
{
  if (name == NULL || name[0] == '\0')
    return FACT_NONE;
  if (name == names->kernel_details)
    return FACT_KERNEL;
  if (name == names->cuda_graph_exec_id)
    return FACT_GRAPH_EXEC;
  if (name == names->hlo_op)
    return FACT_HLO_OP;
  if (name == names->hlo_module)
    return FACT_HLO_MODULE;
  if (name == names->tf_op)
    return FACT_TF_OP;
  if (name == names->source)
    return FACT_SOURCE;
  if (name == names->graph_type)
    return FACT_GRAPH_TYPE;
  if (name == names->program_id)
    return FACT_PROGRAM_ID;
  if (name == names->group_id)
    return FACT_GROUP_ID;
  if (name == names->scope_range_id)
    return FACT_SCOPE_RANGE_ID;
  if (name == names->correlation_id)
    return FACT_CORRELATION_ID;
  if (name == names->device_id)
    return FACT_DEVICE_ID;
  if (name == names->flow)
    return FACT_FLOW;
  if (name == names->producer_type)
    return FACT_PRODUCER_TYPE;
  if (name == names->producer_id)
    return FACT_PRODUCER_ID;
  if (name == names->consumer_type)
    return FACT_CONSUMER_TYPE;
  if (name == names->consumer_id)
    return FACT_CONSUMER_ID;
  if (name == names->is_root)
    return FACT_IS_ROOT;
  if (name == names->is_async)
    return FACT_IS_ASYNC;
  if (name == names->iter_num)
    return FACT_ITER_NUM;
  if (name == names->step_num)
    return FACT_STEP_NUM;
  return FACT_NONE;
}

/* Whether @fact is read from the stat's text (a reference's text is the
 * name of the stat metadata it points at). */
static inline gboolean
fact_wants_text (Fact fact)
{
  return fact >= FACT_KERNEL && fact <= FACT_GRAPH_TYPE && fact != FACT_GRAPH_EXEC;
}

/* Sets @fact from @stat: a stat read later overrides the same stat read
 * before, as the event's own stats override its metadata's. */
static void
apply_fact (Fact              fact,
            const PlanarStat *stat,
            EventFacts       *facts)
{
  Text text;
  guint64 v = 0;

  switch (fact)
    {
    case FACT_NONE:
      break;
    case FACT_KERNEL:
      facts->kernel = stat_text (stat, &text) && text.len > 0;
      break;
    case FACT_GRAPH_EXEC:
      facts->graph_exec = TRUE;
      break;
    case FACT_HLO_OP:
      if (!stat_text (stat, &facts->hlo_op))
        facts->hlo_op.len = 0;
      break;
    case FACT_HLO_MODULE:
      if (!stat_text (stat, &facts->hlo_module))
        facts->hlo_module.len = 0;
      break;
    case FACT_TF_OP:
      if (!stat_text (stat, &facts->tf_op))
        facts->tf_op.len = 0;
      break;
    case FACT_SOURCE:
      if (!stat_text (stat, &facts->source))
        facts->source.len = 0;
      break;
    case FACT_GRAPH_TYPE:
      if (!stat_text (stat, &facts->graph_type))
        facts->graph_type.len = 0;
      break;
    case FACT_PROGRAM_ID:
      facts->has_program_id = _planar_derive_stat_int (stat, &facts->program_id);
      break;
    case FACT_GROUP_ID:
      facts->has_group_id = _planar_derive_stat_int (stat, &v);
      facts->group_id = (gint64) v;
      break;
    case FACT_SCOPE_RANGE_ID:
      facts->has_scope_range_id = _planar_derive_stat_int (stat, &v);
      facts->scope_range_id = (gint64) v;
      break;
    case FACT_CORRELATION_ID:
      facts->has_correlation_id = _planar_derive_stat_int (stat, &facts->correlation_id);
      break;
    case FACT_DEVICE_ID:
      facts->has_device_id = _planar_derive_stat_int (stat, &facts->device_id);
      break;
    case FACT_FLOW:
      facts->has_flow = _planar_derive_stat_int (stat, &facts->flow);
      break;
    case FACT_PRODUCER_TYPE:
      facts->has_producer_type = _planar_derive_stat_int (stat, &facts->producer_type);
      break;
    case FACT_PRODUCER_ID:
      facts->has_producer_id = _planar_derive_stat_int (stat, &facts->producer_id);
      break;
    case FACT_CONSUMER_TYPE:
      facts->has_consumer_type = _planar_derive_stat_int (stat, &facts->consumer_type);
      break;
    case FACT_CONSUMER_ID:
      facts->has_consumer_id = _planar_derive_stat_int (stat, &facts->consumer_id);
      break;
    case FACT_IS_ROOT:
      facts->is_root = TRUE;
      facts->root_level = _planar_derive_stat_int (stat, &v) ? (gint64) v : 0;
      break;
    case FACT_IS_ASYNC:
      facts->is_async = _planar_derive_stat_int (stat, &v) && v != 0;
      break;
    case FACT_ITER_NUM:
      facts->has_iter_num = _planar_derive_stat_int (stat, &v);
      facts->iter_num = (gint64) v;
      break;
    case FACT_STEP_NUM:
      facts->has_step_num = _planar_derive_stat_int (stat, &v);
      facts->step_num = (gint64) v;
      break;
    default:
      break;
    }
}

static void
apply_stat (const StatNames  *names,
            const PlanarStat *stat,
            EventFacts       *facts)
{
  apply_fact (fact_of_name (names, stat->name), stat, facts);
}

static void
read_facts (const StatNames *names,
            GArray          *stats,
            EventFacts      *facts)
{
  memset (facts, 0, sizeof *facts);
  for (guint i = 0; i < stats->len; i++)
    apply_stat (names, &g_array_index (stats, PlanarStat, i), facts);
}

gboolean
_planar_derive_check_cancelled (DeriveContext  *dc,
                                GError        **error)
{
  if (++dc->n_seen % CHECK_EVERY != 0)
    return FALSE;
  return g_cancellable_set_error_if_cancelled (dc->cancellable, error);
}

/* Files from this size on have the pages the passes read dropped behind
 * them, as the decoder drops the pages of the lines it decoded; and every
 * this many events read. */
#define DROP_PAGES_MIN_SIZE (G_GUINT64_CONSTANT (256) << 20)
#define DROP_PAGES_EVERY    65536

void
_planar_derive_drop_read_pages (DeriveContext *dc)
{
  PlanarTrace *self = dc->self;
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  guint64 begin = (dc->read_lo + page - 1) / page * page;
  /* The last event's own bytes run past its offset: its page stays. */
  guint64 end = dc->read_hi / page * page;

  if (dc->n_read > 0 && end > begin && end <= self->size)
    madvise ((void *) (self->data + begin), end - begin, MADV_DONTNEED);
  dc->n_read = 0;
}

static void
note_read (DeriveContext     *dc,
           const PlanarEvent *event)
{
  if (dc->self->size < DROP_PAGES_MIN_SIZE || (event->flags & PLANAR_EVENT_DERIVED))
    return;
  if (dc->n_read == 0)
    dc->read_lo = dc->read_hi = event->source;
  dc->read_lo = MIN (dc->read_lo, event->source);
  dc->read_hi = MAX (dc->read_hi, event->source);
  if (++dc->n_read == DROP_PAGES_EVERY)
    _planar_derive_drop_read_pages (dc);
}

void
_planar_derive_clear_facts (DeriveContext *dc)
{
  g_clear_pointer (&dc->facts_of_stat, g_free);
  g_clear_pointer (&dc->stat_name_lens, g_free);
}

/* @dc's table of what plane @p's stat metadata give the facts, made for
 * that plane if it is not. */
static const guint8 *
plane_facts (DeriveContext *dc,
             guint          p)
{
  const PlanarPlanePrivate *ppriv = &dc->self->planes_priv[p];

  if (dc->facts_of_stat != NULL && dc->facts_plane == p)
    return dc->facts_of_stat;
  _planar_derive_clear_facts (dc);
  dc->facts_plane = p;
  dc->facts_of_stat = g_new (guint8, MAX (ppriv->n_stat_metadata, 1));
  dc->stat_name_lens = g_new (guint32, MAX (ppriv->n_stat_metadata, 1));
  for (guint i = 0; i < ppriv->n_stat_metadata; i++)
    {
      const char *name = ppriv->stat_metadata[i].name;

      dc->facts_of_stat[i] = (guint8) fact_of_name (&dc->names, name);
      dc->stat_name_lens[i] = (guint32) MIN (strlen (name), G_MAXUINT32);
    }
  return dc->facts_of_stat;
}

/* apply_stat() of one XStat's payload [@p, @end) of plane @ppriv, read in
 * place: only a stat whose metadata gives a fact is resolved, and a
 * reference's text only for a fact read from text. FALSE, with nothing
 * set, for anything _planar_trace_decode_stat() would not read as a
 * well-formed stat (the careful reader then reads the event again). */
static inline gboolean
read_stat_fast (DeriveContext            *dc,
                const PlanarPlanePrivate *ppriv,
                const guint8             *facts_of,
                const PlanarXFields      *xs,
                const guint8             *p,
                const guint8             *end,
                EventFacts               *facts)
{
  PlanarStat stat;
  gint64 metadata_id = 0, index;
  Fact fact;

  stat.kind = PLANAR_STAT_NONE;
  while (p < end)
    {
      const guint8 *data;
      guint64 value;
      guint kind;

      if (!planar_xfield_read_fast (xs, &p, end, &kind, &value, &data))
        return FALSE;
      switch (kind)
        {
        case PLANAR_XSTAT_METADATA_ID:
          metadata_id = (gint64) value;
          break;
        case PLANAR_XSTAT_DOUBLE:
          stat.kind = PLANAR_STAT_DOUBLE;
          memcpy (&stat.v.f64, &value, sizeof (double));
          break;
        case PLANAR_XSTAT_UINT64:
          stat.kind = PLANAR_STAT_UINT64;
          stat.v.u64 = value;
          break;
        case PLANAR_XSTAT_INT64:
          stat.kind = PLANAR_STAT_INT64;
          stat.v.i64 = (gint64) value;
          break;
        case PLANAR_XSTAT_STR:
        case PLANAR_XSTAT_BYTES:
          stat.kind = kind == PLANAR_XSTAT_STR ? PLANAR_STAT_STRING : PLANAR_STAT_BYTES;
          stat.str.data = (const char *) data;
          stat.str.len = (gsize) value;
          break;
        case PLANAR_XSTAT_REF:
          stat.kind = PLANAR_STAT_REF;
          stat.v.u64 = value;
          break;
        default:
          break;
        }
    }

  index = _planar_id_map_lookup (&ppriv->stat_map, metadata_id);
  _planar_trace_steps++;
  fact = index >= 0 ? (Fact) facts_of[index] : FACT_NONE;
  if (fact == FACT_NONE)
    return TRUE;
  if (stat.kind == PLANAR_STAT_REF && fact_wants_text (fact))
    {
      /* The value of a reference is the name of the stat metadata it
       * points at; an unknown reference reads as an empty string. */
      gint64 ref = _planar_id_map_lookup (&ppriv->stat_map, (gint64) stat.v.u64);

      _planar_trace_steps++;
      stat.str.data = ref >= 0 ? ppriv->stat_metadata[ref].name : "";
      stat.str.len = ref >= 0 ? dc->stat_name_lens[ref] : 0;
    }
  apply_fact (fact, &stat, facts);
  return TRUE;
}

/* read_facts() of @event's stats read straight from the file: its
 * metadata's stats, then each of its own in turn, the later overriding
 * the earlier as planar_trace_get_event_stats() merges them, with no array
 * of stats built and merged by name.
 * FALSE, with @facts unset, for anything that is not well-formed (a
 * damaged stat, an event the file does not frame): the careful reader
 * then reads the event again, and notes what is damaged. */
static gboolean
read_facts_fast (DeriveContext     *dc,
                 const PlanarPlane *plane,
                 const PlanarEvent *event,
                 EventFacts        *facts)
{
  PlanarTrace *self = dc->self;
  guint p = (guint) (plane - self->planes);
  const PlanarPlanePrivate *ppriv = &self->planes_priv[p];
  const PlanarEventMetadata *md = &plane->metadata[event->metadata];
  const PlanarXSpaceFields *xf = _planar_xspace_fields ();
  const PlanarXFields *xs = &xf->stat;
  guint stats_field = xf->event.number[PLANAR_XEVENT_STATS];
  const guint8 *q, *end = self->data + self->size;
  const guint8 *facts_of;
  PlanarWireReader r;
  PlanarWireField f;
  guint64 len;
  int rc;

  if ((event->flags & PLANAR_EVENT_DERIVED) || event->source >= self->size)
    return FALSE;
  q = self->data + event->source;
  if (!planar_wire_read_varint (&q, end, &len) || len > (guint64) (end - q))
    return FALSE;

  facts_of = plane_facts (dc, p);
  memset (facts, 0, sizeof *facts);
  for (guint i = 0; i < md->n_stats; i++)
    apply_stat (&dc->names, &md->stats[i], facts);
  planar_wire_reader_init (&r, self->data, q, (gsize) len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      if (f.number != stats_field)
        continue;
      if (f.wire_type != PLANAR_WIRE_LEN || !read_stat_fast (dc, ppriv, facts_of, xs, f.data, f.data + f.len, facts))
        return FALSE;
    }
  if (rc < 0)
    return FALSE;
  /* The file cut under this read: its bytes read as zeros. */
  if (_planar_trace_check_changed (self, FALSE, NULL))
    memset (facts, 0, sizeof *facts);
  return TRUE;
}

/* Decodes the stats of plane @p's @event into @facts. Stats that cannot be
 * decoded (a damaged event) count as none: deriving never fails a load that
 * would succeed without it. */
void
_planar_derive_event_facts (DeriveContext     *dc,
                            const PlanarPlane *plane,
                            const PlanarEvent *event,
                            EventFacts        *facts)
{
  note_read (dc, event);
  if (read_facts_fast (dc, plane, event, facts))
    return;
  g_array_set_size (dc->stats, 0);
  if (planar_trace_get_event_stats (dc->self, plane, event, dc->stats, NULL) == 0)
    g_array_set_size (dc->stats, 0);
  read_facts (&dc->names, dc->stats, facts);
}

gboolean
_planar_derive_plane_has_stat (PlanarTrace *self,
                               guint        p,
                               const char  *name)
{
  const PlanarPlanePrivate *ppriv = &self->planes_priv[p];

  if (name == NULL)
    return FALSE;
  for (guint i = 0; i < ppriv->n_stat_metadata; i++)
    if (ppriv->stat_metadata[i].name == name)
      return TRUE;
  return FALSE;
}

/* The flow ends an event carries (docs/formats.md §3). */
void
_planar_derive_collect_flow_ends (DeriveContext        *dc,
                                  const EventFacts     *facts,
                                  gboolean              is_host,
                                  gboolean              is_gpu,
                                  const PlanarEventRef *ref,
                                  gint64                start_ps)
{
  gboolean explicit_launch = FALSE;

  if (facts->has_flow)
    {
      guint direction = (guint) (facts->flow & 3);
      guint64 id = (facts->flow >> 2) & ((G_GUINT64_CONSTANT (1) << 56) - 1);
      guint category = (guint) (facts->flow >> 58);

      if (category >= PLANAR_FLOW_N_KNOWN_CATEGORIES)
        category = PLANAR_FLOW_CATEGORY_GENERIC;
      if (direction != 0)
        _planar_flow_builder_add (dc->flows, category, id, (PlanarFlowDirection) direction, ref,
                                  start_ps);
      explicit_launch = category == PLANAR_FLOW_CATEGORY_GPU_LAUNCH;
    }

  /* A file XProf already processed carries the launch flows it made; they
   * are not made twice. */
  if (facts->has_correlation_id && !explicit_launch && (is_host || is_gpu))
    _planar_flow_builder_add_launch (dc->flows, facts->correlation_id, is_host, ref);

  if (facts->has_producer_type && facts->has_producer_id)
    {
      guint category = facts->producer_type < PLANAR_FLOW_N_KNOWN_CATEGORIES
        ? (guint) facts->producer_type : PLANAR_FLOW_CATEGORY_GENERIC;

      _planar_flow_builder_add (dc->flows, category,
                                _planar_flow_make_id (dc->host_id, facts->producer_id,
                                                      facts->producer_type),
                                PLANAR_FLOW_DIRECTION_OUT, ref, start_ps);
    }
  if (facts->has_consumer_type && facts->has_consumer_id)
    {
      guint category = facts->consumer_type < PLANAR_FLOW_N_KNOWN_CATEGORIES
        ? (guint) facts->consumer_type : PLANAR_FLOW_CATEGORY_GENERIC;

      _planar_flow_builder_add (dc->flows, category,
                                _planar_flow_make_id (dc->host_id, facts->consumer_id,
                                                      facts->consumer_type),
                                PLANAR_FLOW_DIRECTION_IN, ref, start_ps);
    }
}

gboolean
_planar_derive_plane_wants_flows (DeriveContext *dc,
                                  guint          p)
{
  return _planar_derive_plane_has_stat (dc->self, p, dc->names.correlation_id) ||
         _planar_derive_plane_has_stat (dc->self, p, dc->names.flow) ||
         _planar_derive_plane_has_stat (dc->self, p, dc->names.producer_id) ||
         _planar_derive_plane_has_stat (dc->self, p, dc->names.consumer_id);
}

/* ------------------------------------------------------------------------ */
/* Visiting a plane's events in time order */

typedef struct
{
  const PlanarTrack *track;
  guint              t;
  gsize              next;
} Cursor;

static gboolean
cursor_before (const Cursor *a,
               const Cursor *b)
{
  const PlanarEvent *x = &a->track->events[a->next];
  const PlanarEvent *y = &b->track->events[b->next];

  if (x->start_ps != y->start_ps)
    return x->start_ps < y->start_ps;
  if (x->duration_ps != y->duration_ps)
    return x->duration_ps > y->duration_ps;
  if (a->t != b->t)
    return a->t < b->t;
  return a->next < b->next;
}

PLANAR_DEFINE_HEAP_SIFT_DOWN (heap_sift_down, Cursor, cursor_before)

/* Calls @visit for the events of the tracks @use marks, merged in time
 * order (start, then longer first, then track and index: XProf's
 * GetSortedEvents with a deterministic tie-break). */
gboolean
_planar_derive_visit_sorted (DeriveContext   *dc,
                             guint            p,
                             const gboolean  *use,
                             guint            n_tracks,
                             EventVisitor     visit,
                             gpointer         user_data,
                             GError         **error)
{
  const PlanarPlane *plane = &dc->self->planes[p];
  g_autofree Cursor *heap = g_new (Cursor, MAX (n_tracks, 1));
  gsize n = 0;

  for (guint t = 0; t < n_tracks; t++)
    if (use[t] && plane->tracks[t].n_events > 0)
      {
        heap[n].track = &plane->tracks[t];
        heap[n].t = t;
        heap[n].next = 0;
        n++;
      }
  for (gsize i = n; i-- > 0;)
    heap_sift_down (heap, n, i);

  while (n > 0)
    {
      Cursor *top = &heap[0];
      PlanarEventRef ref = { p, 0, top->t, (guint32) top->next };

      if (_planar_derive_check_cancelled (dc, error))
        return FALSE;
      if (!visit (dc, &ref, &top->track->events[top->next], user_data, error))
        return FALSE;
      if (++top->next == top->track->n_events)
        heap[0] = heap[--n];
      heap_sift_down (heap, n, 0);
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Other planes: flows only */

gboolean
_planar_derive_scan_flows_only (DeriveContext  *dc,
                                guint           p,
                                GError        **error)
{
  const PlanarPlane *plane = &dc->self->planes[p];
  gboolean is_gpu = g_str_has_prefix (plane->name, "/device:GPU:");
  EventFacts facts;

  for (guint t = 0; t < plane->n_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      if (track->derived || planar_line_id_is_derived (track->id))
        continue;
      for (gsize i = 0; i < track->n_events; i++)
        {
          PlanarEventRef ref = { p, 0, t, (guint32) i };

          if (_planar_derive_check_cancelled (dc, error))
            return FALSE;
          _planar_derive_event_facts (dc, plane, &track->events[i], &facts);
          _planar_derive_collect_flow_ends (dc, &facts, FALSE, is_gpu, &ref, track->events[i].start_ps);
        }
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The stat names the passes compare against */

void
_planar_derive_lookup_stat_names (PlanarTrace *self,
                                  StatNames   *names)
{
  PlanarStringTable *strings = self->strings;

  g_mutex_lock (&self->strings_lock);
  names->kernel_details = planar_string_table_lookup (strings, "kernel_details");
  names->cuda_graph_exec_id = planar_string_table_lookup (strings, "cuda_graph_exec_id");
  names->hlo_op = planar_string_table_lookup (strings, "hlo_op");
  names->hlo_module = planar_string_table_lookup (strings, "hlo_module");
  names->program_id = planar_string_table_lookup (strings, "program_id");
  names->tf_op = planar_string_table_lookup (strings, "tf_op");
  names->group_id = planar_string_table_lookup (strings, "group_id");
  names->scope_range_id = planar_string_table_lookup (strings, "scope_range_id");
  names->correlation_id = planar_string_table_lookup (strings, "correlation_id");
  names->device_id = planar_string_table_lookup (strings, "device_id");
  names->flow = planar_string_table_lookup (strings, "flow");
  names->producer_type = planar_string_table_lookup (strings, "_pt");
  names->producer_id = planar_string_table_lookup (strings, "_p");
  names->consumer_type = planar_string_table_lookup (strings, "_ct");
  names->consumer_id = planar_string_table_lookup (strings, "_c");
  names->is_root = planar_string_table_lookup (strings, "_r");
  names->is_async = planar_string_table_lookup (strings, "_a");
  names->source = planar_string_table_lookup (strings, "source");
  names->graph_type = planar_string_table_lookup (strings, "graph_type");
  names->iter_num = planar_string_table_lookup (strings, "iter_num");
  names->step_num = planar_string_table_lookup (strings, "step_num");
  g_mutex_unlock (&self->strings_lock);
}
