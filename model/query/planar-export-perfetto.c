/* planar-export-perfetto.c: a profile as Perfetto's protobuf trace.
 *
 * The file is a perfetto.protos.Trace written one packet at a time (field 1,
 * length, TracePacket), so nothing but the packet being written is in
 * memory. Each plane is a process track, each of the file's tracks a thread
 * track under it; events become SLICE_BEGIN/SLICE_END pairs (INSTANT for
 * events without duration) in the track's order, which nests them as the
 * model does. An event that starts inside another and ends after it (a
 * partial overlap, which Perfetto's slices cannot hold on one track) goes to
 * a second track beside its own. Flows leave on the producer's BEGIN
 * (flow_ids) and end on the consumer's (terminating_flow_ids). A counter
 * line (`_counters_`) becomes one counter track per series under its
 * plane's process, with a TYPE_COUNTER event per sample.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-export-private.h"

#include <string.h>

#include "perfetto_trace.pb-c.h"
#include "planar-counters.h"
#include "planar-flows.h"
#include "planar-wire.h"

#define CHECK_EVERY 16384
#define SEQUENCE_ID 1
/* Packets are gathered and written in blocks of about this size. */
#define FLUSH_AT (1 << 20)

typedef struct
{
  GOutputStream        *stream;
  const PlanarExportFilter *filter;
  GCancellable         *cancellable;
  PlanarExportProgress  progress;
  gpointer              user_data;
  GByteArray           *buffer;
  GHashTable           *name_iids;
  guint64               next_uuid;
  gboolean              first_event;
  gint64                base_ps;
  guint64               total;
  guint64               done;
  GArray                *stats;
  GArray                *flows;
  GArray                *flow_ids;
  GArray                *terminating;
  GPtrArray             *annotations;
  GPtrArray             *strings;
} PerfettoExport;

/* An open slice on a track: when it ends. */
typedef struct
{
  gint64 end_ps;
} Open;

static void
append_varint (GByteArray *out,
               guint64     value)
{
  planar_wire_append_varint (out, value);
}

static gboolean
flush (PerfettoExport  *pe,
       GError         **error)
{
  if (pe->buffer->len == 0)
    return TRUE;
  if (!g_output_stream_write_all (pe->stream, pe->buffer->data, pe->buffer->len, NULL, pe->cancellable, error))
    return FALSE;
  g_byte_array_set_size (pe->buffer, 0);
  return TRUE;
}

static gboolean
write_packet (PerfettoExport               *pe,
              Perfetto__Protos__TracePacket *packet,
              GError                      **error)
{
  gsize size;
  guint at;

  packet->has_trusted_packet_sequence_id = TRUE;
  packet->trusted_packet_sequence_id = SEQUENCE_ID;
  size = perfetto__protos__trace_packet__get_packed_size (packet);
  /* Trace.packet, length-delimited; its number from the generated
   * descriptor, not typed here. */
  planar_wire_append_tag (pe->buffer,
                          protobuf_c_message_descriptor_get_field_by_name (&perfetto__protos__trace__descriptor,
                                                                           "packet")->id,
                          PLANAR_WIRE_LEN);
  append_varint (pe->buffer, size);
  at = pe->buffer->len;
  g_byte_array_set_size (pe->buffer, at + size);
  perfetto__protos__trace_packet__pack (packet, pe->buffer->data + at);
  return pe->buffer->len < FLUSH_AT || flush (pe, error);
}

static gboolean
write_track (PerfettoExport  *pe,
             guint64          uuid,
             guint64          parent,
             int              pid,
             gint64           tid,
             const char      *name,
             GError         **error)
{
  Perfetto__Protos__TracePacket packet = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  Perfetto__Protos__TrackDescriptor track = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
  Perfetto__Protos__ProcessDescriptor process = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
  Perfetto__Protos__ThreadDescriptor thread = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

  track.has_uuid = TRUE;
  track.uuid = uuid;
  if (parent == 0)
    {
      process.has_pid = TRUE;
      process.pid = pid;
      process.process_name = (char *) name;
      track.process = &process;
    }
  else
    {
      track.has_parent_uuid = TRUE;
      track.parent_uuid = parent;
      thread.has_pid = TRUE;
      thread.pid = pid;
      thread.has_tid = TRUE;
      thread.tid = tid;
      thread.thread_name = (char *) name;
      track.thread = &thread;
    }
  packet.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
  packet.track_descriptor = &track;
  return write_packet (pe, &packet, error);
}

/* Fills the annotations of @event from its stats. The strings they point
 * to live in pe->strings until the packet is written. */
static void
annotate (PerfettoExport               *pe,
          Perfetto__Protos__TrackEvent *track_event)
{
  g_ptr_array_set_size (pe->annotations, 0);
  g_ptr_array_set_size (pe->strings, 0);
  for (guint s = 0; s < pe->stats->len; s++)
    {
      const PlanarStat *stat = &g_array_index (pe->stats, PlanarStat, s);
      Perfetto__Protos__DebugAnnotation *a;
      static const Perfetto__Protos__DebugAnnotation init = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;

      if (_planar_export_skip_stat (stat->name) || stat->kind == PLANAR_STAT_BYTES || stat->kind == PLANAR_STAT_NONE)
        continue;
      a = g_new (Perfetto__Protos__DebugAnnotation, 1);
      *a = init;
      a->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME;
      a->name = (char *) stat->name;
      switch (stat->kind)
        {
        case PLANAR_STAT_INT64:
          a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
          a->int_value = stat->v.i64;
          break;
        case PLANAR_STAT_UINT64:
          a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
          a->uint_value = stat->v.u64;
          break;
        case PLANAR_STAT_DOUBLE:
          a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
          a->double_value = stat->v.f64;
          break;
        default:
          {
            char *text = g_strndup (stat->str.data, stat->str.len);

            g_ptr_array_add (pe->strings, text);
            a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
            a->string_value = text;
          }
          break;
        }
      g_ptr_array_add (pe->annotations, a);
    }
  track_event->n_debug_annotations = pe->annotations->len;
  track_event->debug_annotations = (Perfetto__Protos__DebugAnnotation **) pe->annotations->pdata;
}

static gboolean
write_end (PerfettoExport  *pe,
           guint64          track_uuid,
           gint64           end_ps,
           GError         **error)
{
  Perfetto__Protos__TracePacket packet = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  Perfetto__Protos__TrackEvent event = PERFETTO__PROTOS__TRACK_EVENT__INIT;

  packet.has_timestamp = TRUE;
  packet.timestamp = (guint64) (end_ps - pe->base_ps) / 1000;
  packet.has_sequence_flags = TRUE;
  packet.sequence_flags = 2;
  event.has_type = TRUE;
  event.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
  event.has_track_uuid = TRUE;
  event.track_uuid = track_uuid;
  packet.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
  packet.track_event = &event;
  return write_packet (pe, &packet, error);
}

static gboolean
write_begin (PerfettoExport    *pe,
             guint              h,
             PlanarTrace       *trace,
             guint              p,
             const PlanarPlane *plane,
             guint              t,
             gsize              i,
             guint64            track_uuid,
             GError           **error)
{
  const PlanarEvent *ev = &plane->tracks[t].events[i];
  const char *name = planar_plane_get_event_name (plane, ev, TRUE);
  const PlanarFlowIndex *index = planar_trace_get_flows (trace);
  PlanarEventRef ref = { p, 0, t, (guint32) i };
  Perfetto__Protos__TracePacket packet = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  Perfetto__Protos__TrackEvent event = PERFETTO__PROTOS__TRACK_EVENT__INIT;
  Perfetto__Protos__InternedData interned = PERFETTO__PROTOS__INTERNED_DATA__INIT;
  Perfetto__Protos__EventName event_name = PERFETTO__PROTOS__EVENT_NAME__INIT;
  Perfetto__Protos__EventName *names[1] = { &event_name };
  guint64 iid = GPOINTER_TO_SIZE (g_hash_table_lookup (pe->name_iids, name));

  g_array_set_size (pe->stats, 0);
  if (planar_trace_get_event_stats (trace, plane, ev, pe->stats, error) == 0 && error != NULL && *error != NULL)
    return FALSE;

  /* Names are interned: the packet that first uses one defines it. */
  if (iid == 0)
    {
      iid = g_hash_table_size (pe->name_iids) + 1;
      g_hash_table_insert (pe->name_iids, (gpointer) name, GSIZE_TO_POINTER (iid));
      event_name.has_iid = TRUE;
      event_name.iid = iid;
      event_name.name = (char *) name;
      interned.n_event_names = 1;
      interned.event_names = names;
      packet.interned_data = &interned;
    }
  event.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
  event.name_iid = iid;

  packet.has_timestamp = TRUE;
  packet.timestamp = (guint64) (ev->start_ps - pe->base_ps) / 1000;
  packet.has_sequence_flags = TRUE;
  /* The first event clears the interning state; the rest depend on it. */
  packet.sequence_flags = pe->first_event ? 3 : 2;
  pe->first_event = FALSE;
  event.has_type = TRUE;
  event.type = ev->duration_ps > 0 ? PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
                                   : PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT;
  event.has_track_uuid = TRUE;
  event.track_uuid = track_uuid;

  g_array_set_size (pe->flows, 0);
  g_array_set_size (pe->flow_ids, 0);
  g_array_set_size (pe->terminating, 0);
  if (index != NULL)
    planar_flow_index_query_event (index, &ref, pe->flows);
  for (guint f = 0; f < pe->flows->len; f++)
    {
      const PlanarFlow *flow = &g_array_index (pe->flows, PlanarFlow, f);
      guint64 id = _planar_export_flow_id (h, flow->id);

      if (flow->from.plane == p && flow->from.track == t && flow->from.index == i)
        g_array_append_val (pe->flow_ids, id);
      else
        g_array_append_val (pe->terminating, id);
    }
  event.n_flow_ids = pe->flow_ids->len;
  event.flow_ids = (uint64_t *) (gpointer) pe->flow_ids->data;
  event.n_terminating_flow_ids = pe->terminating->len;
  event.terminating_flow_ids = (uint64_t *) (gpointer) pe->terminating->data;
  annotate (pe, &event);

  packet.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
  packet.track_event = &event;
  return write_packet (pe, &packet, error);
}

/* Ends every open slice that ends at or before @until_ps (all of them for
 * G_MAXINT64), innermost first. */
static gboolean
close_until (PerfettoExport  *pe,
             GArray          *open,
             guint64          track_uuid,
             gint64           until_ps,
             GError         **error)
{
  while (open->len > 0)
    {
      gint64 end = g_array_index (open, Open, open->len - 1).end_ps;

      if (until_ps != G_MAXINT64 && end > until_ps)
        break;
      if (!write_end (pe, track_uuid, end, error))
        return FALSE;
      g_array_set_size (open, open->len - 1);
    }
  return TRUE;
}

/* The series of counter line @t of plane @p, each a counter track under
 * @process_uuid with one TYPE_COUNTER event per sample in the window. */
static gboolean
write_counters (PerfettoExport    *pe,
                PlanarTrace       *trace,
                guint              p,
                const PlanarPlane *plane,
                guint              t,
                guint64            process_uuid,
                GError           **error)
{
  const PlanarCounterSet *set = planar_trace_get_counters (trace);
  const PlanarTrack *track = &plane->tracks[t];

  for (guint k = 0; set != NULL && k < planar_counter_set_get_n_series (set); k++)
    {
      const PlanarCounterSeries *series = planar_counter_set_get_series (set, k);
      Perfetto__Protos__TracePacket packet = PERFETTO__PROTOS__TRACE_PACKET__INIT;
      Perfetto__Protos__TrackDescriptor descriptor = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
      Perfetto__Protos__CounterDescriptor counter = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
      guint64 uuid;

      if (planar_counter_series_get_plane (series) != p || planar_counter_series_get_track (series) != t)
        continue;
      uuid = pe->next_uuid++;
      descriptor.has_uuid = TRUE;
      descriptor.uuid = uuid;
      descriptor.has_parent_uuid = TRUE;
      descriptor.parent_uuid = process_uuid;
      descriptor.name = (char *) planar_counter_series_get_name (series);
      descriptor.counter = &counter;
      packet.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
      packet.track_descriptor = &descriptor;
      if (!write_packet (pe, &packet, error))
        return FALSE;

      for (gsize i = 0; i < planar_counter_series_get_n_samples (series); i++)
        {
          Perfetto__Protos__TracePacket sample = PERFETTO__PROTOS__TRACE_PACKET__INIT;
          Perfetto__Protos__TrackEvent event = PERFETTO__PROTOS__TRACK_EVENT__INIT;
          gsize index = planar_counter_series_get_event (series, i);
          gint64 time = planar_counter_series_get_time (series, i);

          if (time > pe->filter->to_ps)
            break;
          if (index < track->n_events && !planar_export_filter_keeps_event (pe->filter, &track->events[index]))
            continue;
          sample.has_timestamp = TRUE;
          sample.timestamp = (guint64) (time - pe->base_ps) / 1000;
          /* No interned name: a sample needs no incremental state (and
           * must not wait for it, before the first slice clears it). */
          event.has_type = TRUE;
          event.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER;
          event.has_track_uuid = TRUE;
          event.track_uuid = uuid;
          event.has_double_counter_value = TRUE;
          event.double_counter_value = planar_counter_series_get_value (series, i);
          sample.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
          sample.track_event = &event;
          if (!write_packet (pe, &sample, error))
            return FALSE;
        }
    }
  /* Progress counts the line's events, as the total does. */
  for (gsize i = 0; i < track->n_events && track->events[i].start_ps <= pe->filter->to_ps; i++)
    if (planar_export_filter_keeps_event (pe->filter, &track->events[i]) && ++pe->done % CHECK_EVERY == 0)
      {
        if (g_cancellable_set_error_if_cancelled (pe->cancellable, error))
          return FALSE;
        if (pe->progress != NULL)
          pe->progress ((double) pe->done / (double) MAX (pe->total, 1), pe->user_data);
      }
  return TRUE;
}

static gboolean
write_events (PerfettoExport    *pe,
              guint              h,
              PlanarTrace       *trace,
              guint              p,
              const PlanarPlane *plane,
              guint              t,
              int                pid,
              guint64            process_uuid,
              guint64            track_uuid,
              GError           **error)
{
  const PlanarTrack *track = &plane->tracks[t];
  g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (Open));
  g_autoptr(GArray) open_overlaps = g_array_new (FALSE, FALSE, sizeof (Open));
  guint64 overlap_uuid = 0;

  for (gsize i = 0; i < track->n_events; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      gint64 end = ev->start_ps + ev->duration_ps;
      gboolean overlaps;

      if (ev->start_ps > pe->filter->to_ps)
        break;
      if (!planar_export_filter_keeps_event (pe->filter, ev))
        continue;

      if (!close_until (pe, open, track_uuid, ev->start_ps, error))
        return FALSE;
      overlaps = open->len > 0 && end > g_array_index (open, Open, open->len - 1).end_ps;
      if (overlaps)
        {
          g_autofree char *name = NULL;

          /* A slice here would break the nesting: it goes beside. */
          if (overlap_uuid == 0)
            {
              overlap_uuid = pe->next_uuid++;
              name = g_strdup_printf ("%s (overlapping)", track->display_name);
              if (!write_track (pe, overlap_uuid, process_uuid, pid, (gint64) t + 1 + 1000000, name, error))
                return FALSE;
            }
          if (!close_until (pe, open_overlaps, overlap_uuid, ev->start_ps, error))
            return FALSE;
          if (!write_begin (pe, h, trace, p, plane, t, i, overlap_uuid, error))
            return FALSE;
          if (ev->duration_ps > 0)
            {
              Open o = { end };

              /* Overlaps among themselves are ended right away. */
              if (open_overlaps->len > 0 && end > g_array_index (open_overlaps, Open, open_overlaps->len - 1).end_ps)
                {
                  if (!write_end (pe, overlap_uuid, MAX (ev->start_ps, g_array_index (open_overlaps, Open,
                                                                                          open_overlaps->len - 1).end_ps),
                                  error))
                    return FALSE;
                }
              else
                g_array_append_val (open_overlaps, o);
            }
        }
      else
        {
          if (!write_begin (pe, h, trace, p, plane, t, i, track_uuid, error))
            return FALSE;
          if (ev->duration_ps > 0)
            {
              Open o = { end };

              g_array_append_val (open, o);
            }
        }

      if (++pe->done % CHECK_EVERY == 0)
        {
          if (g_cancellable_set_error_if_cancelled (pe->cancellable, error))
            return FALSE;
          if (pe->progress != NULL)
            pe->progress ((double) pe->done / (double) MAX (pe->total, 1), pe->user_data);
        }
    }
  return close_until (pe, open, track_uuid, G_MAXINT64, error)
         && (overlap_uuid == 0 || close_until (pe, open_overlaps, overlap_uuid, G_MAXINT64, error));
}

gboolean
_planar_export_perfetto (PlanarProfile        *profile,
                         const PlanarExportFilter *filter,
                         GOutputStream        *stream,
                         PlanarExportProgress  progress,
                         gpointer              user_data,
                         GCancellable         *cancellable,
                         GError              **error)
{
  PerfettoExport pe = { 0 };
  guint n_traces = planar_profile_get_n_traces (profile);
  gint64 first = 0, last = 0;
  gboolean ok = TRUE;

  pe.stream = stream;
  pe.filter = filter;
  pe.cancellable = cancellable;
  pe.progress = progress;
  pe.user_data = user_data;
  pe.buffer = g_byte_array_new ();
  pe.name_iids = g_hash_table_new (g_direct_hash, g_direct_equal);
  pe.next_uuid = 1;
  pe.first_event = TRUE;
  pe.total = planar_export_count_filtered (profile, filter);
  pe.stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  pe.flows = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  pe.flow_ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  pe.terminating = g_array_new (FALSE, FALSE, sizeof (guint64));
  pe.annotations = g_ptr_array_new_with_free_func (g_free);
  pe.strings = g_ptr_array_new_with_free_func (g_free);
  /* Perfetto's timestamps are unsigned: events before the profile start
   * (rare, but allowed) move everything up. */
  if (planar_profile_get_span (profile, &first, &last) && first < 0)
    pe.base_ps = first;

  for (guint h = 0; h < n_traces && ok; h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);

      /* A host whose decode failed is left out (planar_profile_dup_losses()). */
      for (guint p = 0; p < planar_trace_get_n_planes (trace) && ok && planar_trace_is_decoded (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);
          int pid = (int) (1 + h * 1000 + p);
          guint64 process_uuid;
          g_autofree char *process = NULL;

          if (!planar_export_filter_keeps_plane (filter, trace, plane))
            continue;
          process_uuid = pe.next_uuid++;
          process = n_traces > 1 ? g_strdup_printf ("%s %s", planar_trace_get_host_name (trace), plane->name)
                                 : g_strdup (plane->name);
          ok = write_track (&pe, process_uuid, 0, pid, 0, process, error);
          for (guint t = 0; t < plane->n_tracks && ok; t++)
            {
              guint64 uuid;

              if (!planar_export_filter_keeps_track (filter, trace, plane, &plane->tracks[t]))
                continue;
              if (planar_track_is_counter_line (&plane->tracks[t]))
                {
                  ok = write_counters (&pe, trace, p, plane, t, process_uuid, error);
                  continue;
                }
              uuid = pe.next_uuid++;
              ok = write_track (&pe, uuid, process_uuid, pid, (gint64) t + 1, plane->tracks[t].display_name, error)
                   && write_events (&pe, h, trace, p, plane, t, pid, process_uuid, uuid, error);
            }
        }
    }
  ok = ok && flush (&pe, error);
  if (ok && progress != NULL)
    progress (1.0, user_data);

  g_byte_array_unref (pe.buffer);
  g_hash_table_unref (pe.name_iids);
  g_array_unref (pe.stats);
  g_array_unref (pe.flows);
  g_array_unref (pe.flow_ids);
  g_array_unref (pe.terminating);
  g_ptr_array_unref (pe.annotations);
  g_ptr_array_unref (pe.strings);
  return ok;
}
