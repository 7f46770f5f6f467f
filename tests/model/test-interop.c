/* test-interop.c: Chrome JSON and Perfetto export, Chrome JSON import.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>

#include "perfetto_trace.pb-c.h"
#include "planar-model.h"
#include "planar-export-private.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"

/* The sample @name (NULL, the case skipped, in a clone without them). */
static char *
sample (const char *name)
{
  return planar_test_sample_path (name);
}

static PlanarProfile *
load_profile (const char *path)
{
  const char *paths[] = { path, NULL };
  g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
  g_autoptr(GError) error = NULL;

  if (!planar_profile_load (profile, NULL, &error))
    g_error ("cannot load %s: %s", path, error->message);
  return g_steal_pointer (&profile);
}

/* The bytes of a sample, gunzipped when needed. */
static GBytes *
read_json (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &data, &len, &error));
  if (len >= 2 && (guchar) data[0] == 0x1f && (guchar) data[1] == 0x8b)
    {
      g_autoptr(GZlibDecompressor) gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
      g_autoptr(GInputStream) raw = g_memory_input_stream_new_from_data (g_steal_pointer (&data), (gssize) len, g_free);
      g_autoptr(GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (gunzip));
      g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

      g_assert_cmpint (g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error), >=, 0);
      g_assert_no_error (error);
      return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
    }
  return g_bytes_new_take (g_steal_pointer (&data), len);
}

/* Phase counts of a JSON trace, from a tree parser (json-glib), to check
 * the streaming importer against. */
static GHashTable *
count_phases (const char *path)
{
  g_autoptr(GBytes) bytes = read_json (path);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  GHashTable *counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonNode *root;
  JsonArray *events;

  g_assert_true (json_parser_load_from_data (parser, g_bytes_get_data (bytes, NULL),
                                             (gssize) g_bytes_get_size (bytes), &error));
  root = json_parser_get_root (parser);
  events = JSON_NODE_HOLDS_ARRAY (root) ? json_node_get_array (root)
                                        : json_object_get_array_member (json_node_get_object (root), "traceEvents");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *event = json_array_get_object_element (events, i);
      const char *ph;

      if (!json_object_has_member (event, "ph"))
        continue;
      ph = json_object_get_string_member (event, "ph");
      g_hash_table_insert (counts, g_strdup (ph),
                           GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (counts, ph)) + 1));
    }
  return counts;
}

static guint64
phase (GHashTable *counts,
       const char *ph)
{
  return GPOINTER_TO_SIZE (g_hash_table_lookup (counts, ph));
}

static guint64
sum_counts (GHashTable *counts)
{
  GHashTableIter iter;
  gpointer key, value;
  guint64 total = 0;

  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    total += GPOINTER_TO_SIZE (value);
  return total;
}

typedef struct
{
  const char *file;
  guint64     events;
} JsonSample;

/* The JSON samples import with the counts the issue gives:
 * events, flows, counters, and every skipped phase counted. */
static void
test_import_samples (void)
{
  static const JsonSample samples[] = {
    { "kineto_resnet50_num_workers_0_worker0.pt.trace.json.gz", 63167 },
    { "hta_with_gpu_user_annotation_step_based_trace_2543932.json.gz", 986 },
    /* 2265 before "R" (navigation timing marks) were read as instants,
     * as Perfetto reads them. */
    { "speedscope_Chrome_70_worker.json", 2280 },
  };

  if (!planar_test_need_samples ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      g_autofree char *path = sample (samples[i].file);
      g_autoptr(PlanarProfile) profile = load_profile (path);
      g_autoptr(GHashTable) counts = count_phases (path);
      PlanarTrace *trace = planar_profile_get_trace (profile, 0);
      const PlanarImportReport *report = planar_trace_get_import_report (trace);
      guint64 ignored = 0;
      GHashTableIter iter;
      gpointer key, value;

      g_assert_nonnull (report);
      g_assert_cmpuint (planar_trace_get_n_events (trace), ==, samples[i].events);
      g_assert_cmpuint (report->n_events, ==, samples[i].events);
      g_assert_cmpuint (report->n_complete, ==, phase (counts, "X"));
      g_assert_cmpuint (report->n_instant, ==, phase (counts, "i") + phase (counts, "I") + phase (counts, "R"));
      g_assert_cmpuint (report->n_begin_end + report->n_unmatched_end, ==, phase (counts, "E"));
      g_assert_cmpuint (report->n_begin_end + report->n_unmatched_begin, ==, phase (counts, "B"));
      g_assert_cmpuint (report->n_counters, ==, phase (counts, "C"));
      g_assert_cmpuint (report->n_metadata, ==, phase (counts, "M"));
      g_assert_cmpuint (report->n_flows, >=, phase (counts, "s") + phase (counts, "t") + phase (counts, "f"));
      g_hash_table_iter_init (&iter, report->ignored);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          g_assert_cmpuint (GPOINTER_TO_SIZE (value), ==, phase (counts, key));
          ignored += GPOINTER_TO_SIZE (value);
        }
      /* Every record is accounted for somewhere. */
      g_assert_cmpuint (report->n_complete + report->n_instant + 2 * report->n_begin_end + report->n_unmatched_begin
                        + report->n_unmatched_end + report->n_counters + report->n_metadata + ignored
                        + phase (counts, "s") + phase (counts, "t") + phase (counts, "f"), ==, sum_counts (counts));
    }
}

/* Kineto's launch -> kernel flows ("s" on the launch, "f" with bp "e" on
 * the kernel, thread ids written as numbers and as strings) become arrows
 * in the model. */
static void
test_import_flows (void)
{
  g_autofree char *path = sample ("kineto_resnet50_num_workers_0_worker0.pt.trace.json.gz");
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GHashTable) counts = NULL;
  PlanarTrace *trace;
  const PlanarFlowIndex *flows;

  if (path == NULL)
    return;
  profile = load_profile (path);
  counts = count_phases (path);
  trace = planar_profile_get_trace (profile, 0);
  flows = planar_trace_get_flows (trace);
  g_assert_cmpuint (phase (counts, "s"), ==, 9162);
  g_assert_cmpuint (phase (counts, "f"), ==, 9927);
  g_assert_nonnull (flows);
  /* Every "s" finds its launch; the arrows with both ends are at most as
   * many as the starts, and most starts have their kernel. */
  g_assert_cmpuint (planar_trace_get_import_report (trace)->n_unbound_flows, ==, 0);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_ALL), <=, 9162);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_ALL), >, 9000);
}

static char *
export_to (PlanarProfile      *profile,
           PlanarExportFormat  format,
           const char         *dir,
           const char         *name)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);

  if (!planar_export_to_file (profile, format, path, FALSE, NULL, NULL, NULL, &error))
    g_error ("export to %s failed: %s", path, error->message);
  return path;
}

/* Aggregated events have no time: the exports leave them out. */
static guint64
count_aggregated (PlanarTrace *trace)
{
  guint64 n = 0;

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    for (guint t = 0; t < planar_trace_get_plane (trace, p)->n_tracks; t++)
      n += planar_trace_get_plane (trace, p)->tracks[t].n_aggregated;
  return n;
}

static gint64
first_start (PlanarTrace *trace)
{
  gint64 first = 0, last = 0;

  planar_trace_get_span (trace, &first, &last);
  return first;
}

/* Round trip: each xplane sample (profiles of planar-gen in a clone
 * without the samples) -> Chrome JSON -> import has the same tracks with
 * the same events (times within 1 us, relative to the first event) and the
 * same flows. */
static void
test_round_trip_chrome (PlanarTestFixture *f,
                        gconstpointer      data)
{
  static const char * const samples[] = {
    "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb",
    "tracelens_mi300_jax08_attention_tw003.xplane.pb",
    "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb",
  };

  for (guint s = 0; s < G_N_ELEMENTS (samples); s++)
    {
      g_autofree char *path = planar_test_samples_dir () != NULL
                              ? sample (samples[s]) : g_strdup (planar_test_generated_profile (s + 1));
      g_autoptr(PlanarProfile) original = load_profile (path);
      g_autofree char *name = g_strdup_printf ("round-%u.json%s", s, s == 1 ? ".gz" : "");
      g_autofree char *json = export_to (original, PLANAR_EXPORT_CHROME_JSON, f->dir, name);
      g_autoptr(PlanarProfile) imported = load_profile (json);
      PlanarTrace *a = planar_profile_get_trace (original, 0);
      PlanarTrace *b = planar_profile_get_trace (imported, 0);
      gint64 a0 = first_start (a), b0 = first_start (b);
      guint bp = 0;
      const PlanarFlowIndex *fa = planar_trace_get_flows (a);
      const PlanarFlowIndex *fb = planar_trace_get_flows (b);

      g_assert_cmpuint (planar_trace_get_n_events (b), ==, planar_trace_get_n_events (a) - count_aggregated (a));
      for (guint p = 0; p < planar_trace_get_n_planes (a); p++)
        {
          const PlanarPlane *pa = planar_trace_get_plane (a, p);
          const PlanarPlane *pb;
          guint tb = 0;
          gboolean has_events = FALSE;

          for (guint t = 0; t < pa->n_tracks; t++)
            has_events = has_events || (!pa->tracks[t].derived && pa->tracks[t].n_events > 0);
          if (!has_events)
            continue;
          g_assert_cmpuint (bp, <, planar_trace_get_n_planes (b));
          pb = planar_trace_get_plane (b, bp++);
          g_assert_cmpstr (pb->name, ==, pa->name);
          for (guint t = 0; t < pa->n_tracks; t++)
            {
              const PlanarTrack *ta = &pa->tracks[t];
              const PlanarTrack *track_b;

              if (ta->derived || ta->n_events == 0)
                continue;
              while (tb < pb->n_tracks && pb->tracks[tb].derived)
                tb++;
              g_assert_cmpuint (tb, <, pb->n_tracks);
              track_b = &pb->tracks[tb++];
              g_assert_cmpstr (track_b->name, ==, ta->display_name);
              g_assert_cmpuint (track_b->n_events, ==, ta->n_events);
              for (gsize i = 0; i < ta->n_events; i++)
                {
                  gint64 da = ta->events[i].start_ps - a0, db = track_b->events[i].start_ps - b0;

                  g_assert_cmpint (ABS (da - db), <=, 1000000);
                  g_assert_cmpint (ABS (ta->events[i].duration_ps - track_b->events[i].duration_ps), <=, 1000000);
                  g_assert_cmpstr (planar_plane_get_event_name (pb, &track_b->events[i], FALSE), ==,
                                   planar_plane_get_event_name (pa, &ta->events[i], TRUE));
                }
            }
        }
      g_assert_cmpuint (planar_flow_index_get_n_flows (fb), ==, planar_flow_index_get_n_flows (fa));
      g_assert_cmpuint (planar_flow_index_get_n_complete (fb, PLANAR_FLOW_CATEGORY_ALL), ==,
                        planar_flow_index_get_n_complete (fa, PLANAR_FLOW_CATEGORY_ALL));
    }
}

/* Perfetto: the trace decodes with the project's proto into a process
 * track per plane with events, a thread track per file track, as many
 * slices and instants as events, properly nested, and flows with both
 * ends. */
static void
test_perfetto (PlanarTestFixture *f,
               gconstpointer      data)
{
  g_autofree char *path = planar_test_sample_or_generated ("xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb");
  g_autoptr(PlanarProfile) profile = load_profile (path);
  g_autofree char *out = export_to (profile, PLANAR_EXPORT_PERFETTO, f->dir, "trace.pftrace");
  g_autofree char *bytes = NULL;
  gsize len = 0;
  Perfetto__Protos__Trace *trace_pb;
  PlanarTrace *trace = planar_profile_get_trace (profile, 0);
  g_autoptr(GHashTable) open = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint n_process = 0, n_thread = 0, n_events = 0, n_terminating = 0, n_names = 0;
  guint n_counter_tracks = 0, n_counter_samples = 0;
  guint expected_process = 0, expected_thread = 0, expected_counter_lines = 0;
  guint64 counter_line_events = 0;
  const PlanarFlowIndex *flows = planar_trace_get_flows (trace);

  g_assert_true (g_file_get_contents (out, &bytes, &len, NULL));
  trace_pb = perfetto__protos__trace__unpack (NULL, len, (const guint8 *) bytes);
  g_assert_nonnull (trace_pb);

  for (gsize i = 0; i < trace_pb->n_packet; i++)
    {
      Perfetto__Protos__TracePacket *packet = trace_pb->packet[i];

      g_assert_true (packet->has_trusted_packet_sequence_id);
      if (packet->interned_data != NULL)
        n_names += packet->interned_data->n_event_names;
      if (packet->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR)
        {
          if (packet->track_descriptor->process != NULL)
            n_process++;
          if (packet->track_descriptor->thread != NULL)
            n_thread++;
          if (packet->track_descriptor->counter != NULL)
            n_counter_tracks++;
        }
      else if (packet->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT)
        {
          Perfetto__Protos__TrackEvent *ev = packet->track_event;
          gint64 key = (gint64) ev->track_uuid;
          gsize depth = GPOINTER_TO_SIZE (g_hash_table_lookup (open, &key));

          g_assert_true (packet->has_timestamp);
          if (ev->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END)
            {
              /* Nesting: an END closes an open BEGIN of its track. */
              g_assert_cmpuint (depth, >, 0);
              g_hash_table_insert (open, g_memdup2 (&key, sizeof key), GSIZE_TO_POINTER (depth - 1));
              continue;
            }
          if (ev->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER)
            {
              /* A sample of a counter track: a value, no name. */
              g_assert_true (ev->has_double_counter_value || ev->has_counter_value);
              n_counter_samples++;
              continue;
            }
          g_assert_true (ev->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID);
          g_assert_cmpuint (ev->name_iid, >=, 1);
          g_assert_cmpuint (ev->name_iid, <=, n_names);
          n_events++;
          if (ev->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN)
            g_hash_table_insert (open, g_memdup2 (&key, sizeof key), GSIZE_TO_POINTER (depth + 1));
          for (gsize k = 0; k < ev->n_flow_ids; k++)
            g_array_append_val (ids, ev->flow_ids[k]);
          n_terminating += ev->n_terminating_flow_ids;
        }
    }

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      expected_process++;
      for (guint t = 0; t < plane->n_tracks; t++)
        if (planar_track_is_counter_line (&plane->tracks[t]))
          {
            expected_counter_lines++;
            counter_line_events += plane->tracks[t].n_events;
          }
        else if (!plane->tracks[t].derived)
          expected_thread++;
    }
  g_assert_cmpuint (n_process, ==, expected_process);
  /* One per file track, and one more per track with partial overlaps. */
  g_assert_cmpuint (n_thread, >=, expected_thread);
  /* Counter lines are counter tracks (a series each), not slices. */
  g_assert_cmpuint (n_counter_tracks, >=, expected_counter_lines);
  g_assert_true ((n_counter_samples > 0) == (counter_line_events > 0));
  g_assert_cmpuint (n_events, ==, planar_export_count_events (profile) - counter_line_events);
  /* Every slice ended. */
  {
    GHashTableIter iter;
    gpointer k, v;

    g_hash_table_iter_init (&iter, open);
    while (g_hash_table_iter_next (&iter, &k, &v))
      g_assert_cmpuint (GPOINTER_TO_SIZE (v), ==, 0);
  }
  /* Each flow leaves from its producer and ends at its consumer, for the
   * ends it has. */
  {
    guint n_from = 0, n_to = 0;

    for (gsize i = 0; i < planar_flow_index_get_n_flows (flows); i++)
      {
        PlanarFlow flow;

        planar_flow_index_get_flow (flows, i, &flow);
        n_from += !planar_event_ref_is_none (&flow.from);
        n_to += !planar_event_ref_is_none (&flow.to);
      }
    g_assert_cmpuint (ids->len, ==, n_from);
    g_assert_cmpuint (n_terminating, ==, n_to);
    g_assert_cmpuint (n_from, >, 0);
  }
  perfetto__protos__trace__free_unpacked (trace_pb, NULL);
}

static void
write_text (const char *path,
            const char *text,
            gssize      len)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, len, &error));
}

static void
expect_import_error (const char *dir,
                     const char *name,
                     const char *text,
                     gssize      len,
                     const char *message_part)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarTrace) trace = NULL;

  write_text (path, text, len);
  trace = planar_trace_load (path, NULL, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);
  g_test_message ("%s: %s", name, error->message);
  g_assert_true (error->domain == PLANAR_TRACE_ERROR);
  if (message_part != NULL && strstr (error->message, message_part) == NULL)
    g_error ("%s: expected \"%s\" in \"%s\"", name, message_part, error->message);
}

static PlanarTrace *
import_ok (const char *dir,
           const char *name,
           const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  PlanarTrace *trace;

  write_text (path, text, -1);
  trace = planar_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

/* Shapes of valid documents, and B/E matching. */
static void
test_import_shapes (PlanarTestFixture *f,
                    gconstpointer      data)
{
  g_autoptr(PlanarTrace) bare = import_ok (f->dir, "bare.json",
    "[{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1.5,\"dur\":2,\"name\":\"a\",\"args\":{\"n\":3,\"s\":\"x\",\"nested\":{\"k\":[1,{\"z\":null}]}}},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1.75,\"dur\":0.5,\"name\":\"b\"}, {}]");
  g_autoptr(PlanarTrace) object = import_ok (f->dir, "object.json",
    "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"a\":[1,2,{\"b\":3}]},\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":8,\"args\":{\"name\":\"worker\"}},"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{\"name\":\"proc\"}},"
    "{\"ph\":\"B\",\"pid\":7,\"tid\":8,\"ts\":10,\"name\":\"outer\"},"
    "{\"ph\":\"B\",\"pid\":7,\"tid\":8,\"ts\":11,\"name\":\"inner\"},"
    "{\"ph\":\"E\",\"pid\":7,\"tid\":8,\"ts\":12},"
    "{\"ph\":\"E\",\"pid\":7,\"tid\":8,\"ts\":20},"
    "{\"ph\":\"E\",\"pid\":7,\"tid\":8,\"ts\":21},"
    "{\"ph\":\"B\",\"pid\":7,\"tid\":8,\"ts\":30,\"name\":\"open\"},"
    "{\"ph\":\"i\",\"pid\":7,\"tid\":8,\"ts\":15,\"name\":\"mark\",\"s\":\"t\"},"
    "{\"ph\":\"C\",\"pid\":7,\"ts\":15,\"name\":\"mem\",\"args\":{\"v\":1}},"
    "{\"ph\":\"b\",\"pid\":7,\"id\":1,\"ts\":15,\"name\":\"async\",\"cat\":\"c\"}"
    "],\"stackFrames\":{}}");
  const PlanarImportReport *report = planar_trace_get_import_report (object);
  const PlanarPlane *plane;
  const PlanarTrack *track;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  gboolean saw_nested = FALSE;

  g_assert_cmpuint (planar_trace_get_n_events (bare), ==, 2);
  plane = planar_trace_get_plane (bare, 0);
  g_assert_cmpstr (plane->name, ==, "Process 1");
  g_assert_cmpstr (plane->tracks[0].name, ==, "Thread 2");
  /* Exact microseconds: 1.5 us and 2 us, b nested in a. */
  track = &plane->tracks[0];
  g_assert_cmpint (track->events[0].duration_ps, ==, 2000000);
  g_assert_cmpint (track->events[1].start_ps - track->events[0].start_ps, ==, 250000);
  g_assert_cmpuint (track->events[1].depth, ==, 1);
  planar_trace_get_event_stats (bare, plane, &track->events[0], stats, NULL);
  for (guint i = 0; i < stats->len; i++)
    {
      const PlanarStat *stat = &g_array_index (stats, PlanarStat, i);

      if (g_str_equal (stat->name, "n"))
        g_assert_cmpint (stat->v.i64, ==, 3);
      if (g_str_equal (stat->name, "nested"))
        {
          g_autofree char *text = g_strndup (stat->str.data, stat->str.len);

          g_assert_cmpstr (text, ==, "{\"k\":[1,{\"z\":null}]}");
          saw_nested = TRUE;
        }
    }
  g_assert_true (saw_nested);

  plane = planar_trace_get_plane (object, 0);
  g_assert_cmpstr (plane->name, ==, "proc");
  g_assert_cmpstr (plane->tracks[0].name, ==, "worker");
  g_assert_cmpuint (report->n_begin_end, ==, 2);
  g_assert_cmpuint (report->n_unmatched_end, ==, 1);
  g_assert_cmpuint (report->n_unmatched_begin, ==, 1);
  g_assert_cmpuint (report->n_instant, ==, 1);
  g_assert_cmpuint (report->n_counters, ==, 1);
  g_assert_cmpuint (report->n_metadata, ==, 2);
  g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (report->ignored, "b")), ==, 1);
  /* Two slices, the instant and the counter sample. */
  g_assert_cmpuint (planar_trace_get_n_events (object), ==, 4);
}

static const PlanarTrack *
find_track (const PlanarPlane *plane,
            const char        *name)
{
  for (guint t = 0; t < plane->n_tracks; t++)
    if (g_strcmp0 (plane->tracks[t].name, name) == 0)
      return &plane->tracks[t];
  return NULL;
}

static const PlanarPlane *
find_plane (PlanarTrace *trace,
            const char  *name)
{
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    if (g_strcmp0 (planar_trace_get_plane (trace, p)->name, name) == 0)
      return planar_trace_get_plane (trace, p);
  return NULL;
}

static const char *
event_name (PlanarTrace       *trace,
            const PlanarPlane *plane,
            const PlanarEvent *event)
{
  (void) trace;
  return planar_plane_get_event_name (plane, event, FALSE);
}

/* Counters ("C") become `_counters_` samples the timeline draws, one
 * series per arg named "<name> <arg>" as Perfetto names them. */
static void
test_import_counters (PlanarTestFixture *f,
                      gconstpointer      data)
{
  g_autoptr(PlanarTrace) trace = import_ok (f->dir, "counters.json",
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"work\"},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":1,\"name\":\"mem\",\"args\":{\"used\":10,\"free\":2.5}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":3,\"name\":\"mem\",\"args\":{\"used\":30,\"free\":0.5}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":2,\"name\":\"cpu\",\"args\":{\"used\":7,\"note\":\"text\"}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":4,\"name\":\"empty\",\"args\":{}}"
    "]}");
  const PlanarImportReport *report = planar_trace_get_import_report (trace);
  const PlanarCounterSet *counters = planar_trace_get_counters (trace);
  const PlanarCounterSeries *used, *freed, *cpu;
  const PlanarPlane *plane = planar_trace_get_plane (trace, 0);
  const PlanarTrack *track = find_track (plane, "_counters_");
  double lo, hi;

  g_assert_cmpuint (report->n_counters, ==, 3);
  g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (report->ignored, "C")), ==, 1);
  g_assert_nonnull (track);
  /* After the threads. */
  g_assert_true (track == &plane->tracks[plane->n_tracks - 1]);
  g_assert_cmpuint (track->n_events, ==, 3);
  g_assert_nonnull (counters);
  g_assert_cmpuint (planar_counter_set_get_n_series (counters), ==, 3);
  used = planar_counter_set_find_series (counters, 0, "mem used");
  freed = planar_counter_set_find_series (counters, 0, "mem free");
  cpu = planar_counter_set_find_series (counters, 0, "cpu used");
  g_assert_nonnull (used);
  g_assert_nonnull (freed);
  g_assert_nonnull (cpu);
  g_assert_cmpuint (planar_counter_series_get_n_samples (used), ==, 2);
  g_assert_cmpint (planar_counter_series_get_time (used, 0), ==, 1000000);
  g_assert_cmpint (planar_counter_series_get_time (used, 1), ==, 3000000);
  g_assert_cmpfloat (planar_counter_series_get_value (used, 1), ==, 30.0);
  g_assert_true (planar_counter_series_get_range (freed, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 0.5);
  g_assert_cmpfloat (hi, ==, 2.5);
  g_assert_cmpfloat (planar_counter_series_get_value (cpu, 0), ==, 7.0);
}

/* Slices that start together and last as long nest in file order (the
 * first opened is the parent), a B/E pair as an X; longer ones hold
 * shorter ones whatever the order. */
static void
test_import_nesting (PlanarTestFixture *f,
                     gconstpointer      data)
{
  g_autoptr(PlanarTrace) trace = import_ok (f->dir, "nesting.json",
    "[{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":0,\"name\":\"be-outer\"},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"x-inner\"},"
    " {\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":10},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"name\":\"x-outer\"},"
    " {\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":20,\"name\":\"be-inner\"},"
    " {\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":25},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":1,\"name\":\"short\"},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":4,\"name\":\"long\"}]");
  const PlanarPlane *plane = planar_trace_get_plane (trace, 0);
  const PlanarTrack *track = &plane->tracks[0];
  /* An "X" holds a B/E pair that starts with it and lasts as long
   * (Perfetto's sorter hands it over first), whatever the file order. */
  static const struct { const char *name; guint depth; } want[] = {
    { "x-inner", 0 }, { "be-outer", 1 }, { "x-outer", 0 }, { "be-inner", 1 }, { "long", 0 }, { "short", 1 },
  };

  g_assert_cmpuint (track->n_events, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_assert_cmpstr (event_name (trace, plane, &track->events[i]), ==, want[i].name);
      g_assert_cmpuint (track->events[i].depth, ==, want[i].depth);
    }
}

/* Kineto's global instants ("s": "g", pid "") have a named section of
 * their own, never an empty "Process"; numeric ids have one spelling
 * each, negative ones printed signed and sorted first. */
static void
test_import_ids (PlanarTestFixture *f,
                 gconstpointer      data)
{
  g_autoptr(PlanarTrace) trace = import_ok (f->dir, "ids.json",
    "[{\"ph\":\"X\",\"pid\":1,\"tid\":5,\"ts\":0,\"dur\":1,\"name\":\"a\"},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":-7,\"ts\":0,\"dur\":1,\"name\":\"b\"},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":\"-7\",\"ts\":2,\"dur\":1,\"name\":\"c\"},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":-0,\"ts\":0,\"dur\":1,\"name\":\"d\"},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":2,\"dur\":1,\"name\":\"e\"},"
    " {\"ph\":\"X\",\"pid\":-2,\"tid\":1e1,\"ts\":0,\"dur\":1,\"name\":\"f\"},"
    /* Beyond any 64-bit id: kept as written, never cast (a fuzzer find). */
    " {\"ph\":\"X\",\"pid\":7.7e78,\"tid\":-1e300,\"ts\":0,\"dur\":1,\"name\":\"huge\"},"
    " {\"ph\":\"i\",\"pid\":\"\",\"tid\":\"\",\"ts\":3,\"s\":\"g\",\"name\":\"Record Window End\"},"
    " {\"ph\":\"i\",\"pid\":1,\"tid\":5,\"ts\":1,\"s\":\"g\",\"name\":\"Iteration Start\"},"
    " {\"ph\":\"X\",\"pid\":\"\",\"tid\":\"\",\"ts\":0,\"dur\":1,\"name\":\"nameless\"}]");
  const PlanarPlane *one = find_plane (trace, "Process 1");
  const PlanarPlane *minus_two = find_plane (trace, "Process -2");
  const PlanarPlane *global = find_plane (trace, "Global");
  const PlanarPlane *nameless = find_plane (trace, "Process (no pid)");
  const PlanarPlane *huge = find_plane (trace, "Process 7.7e78");

  g_assert_nonnull (one);
  g_assert_cmpuint (one->n_tracks, ==, 3);
  g_assert_cmpstr (one->tracks[0].name, ==, "Thread -7");
  g_assert_cmpuint (one->tracks[0].n_events, ==, 2);
  g_assert_cmpstr (one->tracks[1].name, ==, "Thread 0");
  g_assert_cmpuint (one->tracks[1].n_events, ==, 2);
  g_assert_cmpstr (one->tracks[2].name, ==, "Thread 5");
  g_assert_cmpuint (one->tracks[2].n_events, ==, 1);
  g_assert_nonnull (minus_two);
  g_assert_cmpstr (minus_two->tracks[0].name, ==, "Thread 10");
  g_assert_nonnull (global);
  g_assert_cmpuint (global->n_tracks, ==, 1);
  g_assert_cmpstr (global->tracks[0].name, ==, "Global instants");
  g_assert_cmpuint (global->tracks[0].n_events, ==, 2);
  g_assert_nonnull (nameless);
  g_assert_cmpstr (nameless->tracks[0].name, ==, "Thread (no tid)");
  g_assert_nonnull (huge);
  g_assert_cmpstr (huge->tracks[0].name, ==, "Thread -1e300");
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      g_assert_cmpstr (plane->name, !=, "Process ");
      for (guint t = 0; t < plane->n_tracks; t++)
        g_assert_cmpstr (plane->tracks[t].name, !=, "");
    }
}

static const PlanarEvent *
find_event (const PlanarPlane *plane,
            const PlanarTrack *track,
            const char        *name)
{
  for (gsize i = 0; track != NULL && i < track->n_events; i++)
    if (g_strcmp0 (planar_plane_get_event_name (plane, &track->events[i], FALSE), name) == 0)
      return &track->events[i];
  return NULL;
}

/* The rules of Perfetto's JSON importer (docs/interop.md names the
 * source): B and E paired in time order, an E that names its slice ends
 * that one and what is open inside it, "R" and process-scoped instants, an
 * absent tid, a time written as a string. */
static void
test_import_perfetto_rules (PlanarTestFixture *f,
                            gconstpointer      data)
{
  g_autoptr(PlanarTrace) trace = import_ok (f->dir, "perfetto-rules.json",
    "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"name\":\"first\"},"
    /* Out of order in the file: the E comes first. */
    " {\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":20},"
    " {\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":10,\"name\":\"late-begin\"},"
    /* An E naming the outer slice ends it and the one open inside it; the
     * last E has nothing left to end. */
    " {\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":0,\"name\":\"outer\"},"
    " {\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":5,\"name\":\"inner\"},"
    " {\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":10,\"name\":\"outer\"},"
    " {\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":12},"
    /* A zero-length pair inside a slice, at one time in file order. */
    " {\"ph\":\"B\",\"pid\":1,\"tid\":3,\"ts\":0,\"name\":\"parent\"},"
    " {\"ph\":\"B\",\"pid\":1,\"tid\":3,\"ts\":4,\"name\":\"blink\"},"
    " {\"ph\":\"E\",\"pid\":1,\"tid\":3,\"ts\":4},"
    " {\"ph\":\"E\",\"pid\":1,\"tid\":3,\"ts\":8},"
    /* A B/E pair longer than an X of its time holds it (Perfetto would
     * cut the pair at the X's end). */
    " {\"ph\":\"B\",\"pid\":1,\"tid\":4,\"ts\":0,\"name\":\"long-pair\"},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":4,\"ts\":0,\"dur\":2,\"name\":\"short-x\"},"
    " {\"ph\":\"E\",\"pid\":1,\"tid\":4,\"ts\":6},"
    /* Instants: "R", and one of the process. */
    " {\"ph\":\"R\",\"pid\":1,\"tid\":1,\"ts\":3,\"name\":\"navigationStart\"},"
    " {\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":3,\"s\":\"p\",\"name\":\"process-mark\"},"
    /* No tid: the thread whose tid is the pid, named by a record without a
     * tid too. */
    " {\"ph\":\"M\",\"pid\":9,\"name\":\"thread_name\",\"args\":{\"name\":\"main\"}},"
    " {\"ph\":\"X\",\"pid\":9,\"ts\":1,\"dur\":1,\"name\":\"no-tid\"},"
    " {\"ph\":\"X\",\"pid\":9,\"tid\":9,\"ts\":3,\"dur\":1,\"name\":\"tid-is-pid\"},"
    /* Times written as strings. */
    " {\"ph\":\"X\",\"pid\":1,\"tid\":5,\"ts\":40.5,\"dur\":2,\"name\":\"number\"},"
    " {\"ph\":\"X\",\"pid\":1,\"tid\":6,\"ts\":\"40.5\",\"dur\":\"2\",\"name\":\"string\"}]");
  const PlanarImportReport *report = planar_trace_get_import_report (trace);
  const PlanarPlane *one = find_plane (trace, "Process 1");
  const PlanarPlane *nine = find_plane (trace, "Process 9");
  const PlanarTrack *track;
  const PlanarEvent *ev, *other;

  g_assert_nonnull (one);
  track = find_track (one, "Thread 1");
  ev = find_event (one, track, "late-begin");
  g_assert_nonnull (ev);
  g_assert_cmpint (ev->duration_ps, ==, 10 * 1000000);

  track = find_track (one, "Thread 2");
  ev = find_event (one, track, "outer");
  other = find_event (one, track, "inner");
  g_assert_nonnull (ev);
  g_assert_nonnull (other);
  g_assert_cmpint (ev->duration_ps, ==, 10 * 1000000);
  g_assert_cmpint (other->duration_ps, ==, 5 * 1000000);
  g_assert_cmpuint (other->depth, ==, 1);
  g_assert_cmpuint (report->n_unmatched_end, ==, 1);
  g_assert_cmpuint (report->n_unmatched_begin, ==, 0);

  track = find_track (one, "Thread 3");
  ev = find_event (one, track, "parent");
  other = find_event (one, track, "blink");
  g_assert_cmpint (ev->duration_ps, ==, 8 * 1000000);
  g_assert_cmpint (other->duration_ps, ==, 0);
  g_assert_cmpuint (other->depth, ==, 1);

  track = find_track (one, "Thread 4");
  ev = find_event (one, track, "long-pair");
  other = find_event (one, track, "short-x");
  g_assert_cmpuint (ev->depth, ==, 0);
  g_assert_cmpint (ev->duration_ps, ==, 6 * 1000000);
  g_assert_cmpuint (other->depth, ==, 1);

  g_assert_nonnull (find_event (one, find_track (one, "Thread 1"), "navigationStart"));
  track = find_track (one, "Process instants");
  g_assert_nonnull (track);
  g_assert_nonnull (find_event (one, track, "process-mark"));
  g_assert_cmpuint (report->n_instant, ==, 2);

  g_assert_nonnull (nine);
  g_assert_cmpuint (nine->n_tracks, ==, 1);
  g_assert_cmpstr (nine->tracks[0].name, ==, "main");
  g_assert_cmpuint (nine->tracks[0].n_events, ==, 2);

  ev = find_event (one, find_track (one, "Thread 5"), "number");
  other = find_event (one, find_track (one, "Thread 6"), "string");
  g_assert_nonnull (ev);
  g_assert_nonnull (other);
  g_assert_cmpint (other->start_ps, ==, ev->start_ps);
  g_assert_cmpint (other->duration_ps, ==, ev->duration_ps);
}

/* XProf's trace viewer JSON (JAX's `*.trace.json.gz`) writes every arg as
 * text, ids too. The kernels of two runs of one module, a scope range
 * each, make two XLA Modules events, not one across the gap between them.
 * A third run's "-12" is an id too; the last two kernels' "12 " and a
 * number past 64 bits are not, so they extend the third run's event, as a
 * kernel without a scope range extends any (4 events if "12 " were read as
 * 12, 2 if "-12" were not read; 1 when no text was read as a number). */
static void
test_import_text_ids (PlanarTestFixture *f,
                      gconstpointer      data)
{
  g_autoptr(PlanarTrace) trace = import_ok (f->dir, "xprof-export.json",
    "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"traceEvents\":["
    "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"}},"
    "{\"ph\":\"M\",\"pid\":1,\"tid\":14,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream #14(Compute)\"}},"
#define KERNEL(ts, op, scope) \
    "{\"ph\":\"X\",\"pid\":1,\"tid\":14,\"ts\":" ts ",\"dur\":2,\"name\":\"" op "\",\"args\":{" \
    "\"correlation_id\":\"1\",\"hlo_module\":\"jit_f\",\"hlo_op\":\"" op "\"," \
    "\"kernel_details\":\"regs:31\",\"scope_range_id\":\"" scope "\",\"tf_op\":\"XlaModule:\"}}"
    KERNEL ("10", "fusion_1", "281474976710658") "," KERNEL ("13", "fusion_2", "281474976710658") ","
    KERNEL ("500", "fusion_1", "281474976710660") "," KERNEL ("503", "fusion_2", "281474976710660") ","
    KERNEL ("900", "fusion_1", "-12") "," KERNEL ("903", "fusion_2", "-12") ","
    KERNEL ("1200", "fusion_1", "12 ") "," KERNEL ("1203", "fusion_2", "99999999999999999999") "]}");
#undef KERNEL
  const PlanarPlane *plane = find_plane (trace, "/device:GPU:0");
  const PlanarTrack *modules = NULL;
  static const gint64 starts_us[] = { 10, 500, 900 };
  static const gint64 ends_us[] = { 15, 505, 1205 };

  g_assert_nonnull (plane);
  for (guint t = 0; t < plane->n_tracks; t++)
    if (g_str_has_prefix (plane->tracks[t].name, "XLA Modules"))
      modules = &plane->tracks[t];
  g_assert_nonnull (modules);
  g_assert_cmpuint (modules->n_events, ==, G_N_ELEMENTS (starts_us));
  for (guint i = 0; i < modules->n_events; i++)
    {
      g_assert_cmpstr (event_name (trace, plane, &modules->events[i]), ==, "jit_f");
      g_assert_cmpint (modules->events[i].start_ps - modules->events[0].start_ps, ==,
                       (starts_us[i] - starts_us[0]) * 1000000);
      g_assert_cmpint (modules->events[i].start_ps + modules->events[i].duration_ps - modules->events[0].start_ps, ==,
                       (ends_us[i] - starts_us[0]) * 1000000);
    }
}

/* PyTorch's profiler (2.11, an H100): each `ProfilerStep#N` begins inside
 * the Python calls of `profiler.step()` (step > __enter__ > __call__ >
 * _record_function_enter_new), which return after it begins, and the next
 * `step()` begins inside it. Every step goes under <module>, at depth 1,
 * its `train_step_N` at depth 2; before, each step sat three rows below
 * the one before it (depths 4, 7, 10, ... 31). */
static void
test_import_overlap_depths (PlanarTestFixture *f,
                            gconstpointer      data)
{
  g_autoptr(GString) json = g_string_new ("{\"traceEvents\":[");
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *thread;
  guint n_steps = 0;

#define SLICE(ts, dur, name) \
  g_string_append_printf (json, "{\"ph\":\"X\",\"cat\":\"python_function\",\"pid\":629,\"tid\":629," \
                          "\"ts\":%d,\"dur\":%d,\"name\":\"%s\"},", (ts), (dur), (name))
  SLICE (0, 100000, "torch_prof.py(41): <module>");
  for (int i = 0; i < 10; i++)
    {
      int t = 100 + 1000 * i;
      g_autofree char *step = g_strdup_printf ("ProfilerStep#%d", i);
      g_autofree char *train = g_strdup_printf ("train_step_%d", i);

      SLICE (t, 440, "torch/profiler/profiler.py(894): step");
      SLICE (t + 320, 119, "torch/autograd/profiler.py(854): __enter__");
      SLICE (t + 325, 113, "torch/_ops.py(1257): __call__");
      SLICE (t + 330, 106, "<built-in method _record_function_enter_new>");
      /* Begins inside the calls above and ends inside the next step(). */
      SLICE (t + 416, 1000, step);
      SLICE (t + 470, 500, train);
    }
#undef SLICE
  g_string_append (json, "{}]}");
  trace = import_ok (f->dir, "kineto-steps.json", json->str);
  plane = planar_trace_get_plane (trace, 0);
  thread = find_track (plane, "Thread 629");
  g_assert_nonnull (thread);
  planar_test_check_track (plane, thread, 0, G_MAXINT64, FALSE);
  for (gsize i = 0; i < thread->n_events; i++)
    {
      const char *name = event_name (trace, plane, &thread->events[i]);

      if (g_str_has_prefix (name, "ProfilerStep#"))
        {
          g_assert_cmpuint (thread->events[i].depth, ==, 1);
          g_assert_true (thread->events[i].flags & PLANAR_EVENT_OVERLAP);
          n_steps++;
        }
      else if (g_str_has_prefix (name, "train_step_"))
        g_assert_cmpuint (thread->events[i].depth, ==, 2);
    }
  g_assert_cmpuint (n_steps, ==, 10);
  g_assert_cmpuint (thread->max_depth, ==, 4);
  planar_test_check_depth_ends_sorted (thread);
}

/* The real Kineto sample: no empty section, the global instant on its
 * own. */
static void
test_import_kineto_sections (void)
{
  g_autofree char *path = sample ("hta_with_gpu_user_annotation_step_based_trace_2543932.json.gz");
  g_autoptr(PlanarProfile) profile = NULL;
  PlanarTrace *trace;

  /* sample() skipped the case in a clone without the samples. */
  if (path == NULL)
    return;
  profile = load_profile (path);
  trace = planar_profile_get_trace (profile, 0);
  g_assert_nonnull (find_plane (trace, "Global"));
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      g_assert_false (g_str_has_prefix (plane->name, "Process"));
      for (guint t = 0; t < plane->n_tracks; t++)
        g_assert_cmpstr (plane->tracks[t].name, !=, "");
    }
}

/* Damaged input: a clear error, never a crash or a hang. */
static void
test_import_malformed (PlanarTestFixture *f,
                       gconstpointer      data)
{
  g_autoptr(GString) deep = g_string_new ("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":{\"a\":");
  g_autoptr(GString) deep_root = g_string_new (NULL);
  g_autoptr(GByteArray) gz = NULL;

  expect_import_error (f->dir, "truncated.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1", -1, "ends too early");
  expect_import_error (f->dir, "syntax.json", "{\"traceEvents\":[{\"ph\":\"X\" \"ts\":1}]}", -1, "not valid JSON");
  expect_import_error (f->dir, "events-not-array.json", "{\"traceEvents\":5}", -1, "not an array");
  expect_import_error (f->dir, "events-object.json", "{\"traceEvents\":{\"a\":1}}", -1, "not an array");
  expect_import_error (f->dir, "event-not-object.json", "[1,2,3]", -1, "not an object");
  /* A string holding a number is read as Perfetto reads it
   * (/interop/import-perfetto-rules); any other string is refused. */
  expect_import_error (f->dir, "ts-string.json", "[{\"ph\":\"X\",\"ts\":\"soon\",\"pid\":1}]", -1, "\"ts\" is not a number");
  expect_import_error (f->dir, "ts-string-trailing.json", "[{\"ph\":\"X\",\"ts\":\"12us\",\"pid\":1}]", -1,
                       "\"ts\" is not a number");
  expect_import_error (f->dir, "ph-number.json", "[{\"ph\":5,\"ts\":1}]", -1, "phase");
  expect_import_error (f->dir, "huge-ts.json", "[{\"ph\":\"X\",\"ts\":1e300}]", -1, "out of range");
  expect_import_error (f->dir, "huge-ts-digits.json", "[{\"ph\":\"X\",\"ts\":123456789012345678901234567890}]", -1,
                       "out of range");
  expect_import_error (f->dir, "far-apart.json", "[{\"ph\":\"X\",\"ts\":0},{\"ph\":\"X\",\"ts\":9000000000000}]", -1,
                       "too far");
  expect_import_error (f->dir, "negative-dur.json", "[{\"ph\":\"X\",\"ts\":1,\"dur\":-5}]", -1, "negative");
  expect_import_error (f->dir, "no-events.json", "{\"traceEvents\":[]}", -1, "no trace events");
  expect_import_error (f->dir, "no-key.json", "{\"other\":[1,2]}", -1, "traceEvents");
  expect_import_error (f->dir, "scalar.json", "[ 5 ", -1, NULL);
  expect_import_error (f->dir, "missing-ts.json", "[{\"ph\":\"X\",\"name\":\"a\"}]", -1, "ts");

  /* A million nested arrays: inside args, and as the document. */
  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (deep, ']');
  g_string_append (deep, "}}]}");
  {
    g_autoptr(PlanarTrace) trace = import_ok (f->dir, "deep-args.json", deep->str);

    g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 1);
  }
  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (deep_root, '[');
  expect_import_error (f->dir, "deep-root.json", deep_root->str, -1, NULL);

  /* gzip cut short. */
  {
    g_autoptr(GZlibCompressor) gzip = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
    const char *text = "[{\"ph\":\"X\",\"ts\":1,\"name\":\"a\"},{\"ph\":\"X\",\"ts\":2,\"name\":\"b\"}]";
    guint8 out[1024];
    gsize read = 0, written = 0;

    g_assert_cmpint (g_converter_convert (G_CONVERTER (gzip), text, strlen (text), out, sizeof out,
                                          G_CONVERTER_INPUT_AT_END, &read, &written, NULL), ==, G_CONVERTER_FINISHED);
    expect_import_error (f->dir, "cut.json.gz", (const char *) out, (gssize) written - 10, "cut short");
  }
}

/* planar-cli export: formats, .gz, and refusals. */
static void
test_cli_export (PlanarTestFixture *f,
                 gconstpointer      data)
{
  g_autofree char *path = planar_test_sample_or_generated ("tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb");
  g_autofree char *out = g_build_filename (f->dir, "out.json.gz", NULL);
  g_autofree char *pf = g_build_filename (f->dir, "out.pftrace", NULL);
  const char *cli = g_getenv ("PLANAR_CLI");
  g_autofree char *gz = NULL;
  gsize len = 0;
  int status = 0;
  char *argv_ok[] = { (char *) cli, "export", "-o", out, path, NULL };
  char *argv_exists[] = { (char *) cli, "export", "-o", out, path, NULL };
  char *argv_format[] = { (char *) cli, "export", "--format", "svg", "-o", pf, path, NULL };
  char *argv_pf[] = { (char *) cli, "export", "-o", pf, path, NULL };
  g_autofree char *err = NULL;

  g_assert_nonnull (cli);
  g_assert_true (g_spawn_sync (NULL, argv_ok, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL));
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_assert_true (g_file_get_contents (out, &gz, &len, NULL));
  g_assert_cmpuint (len, >, 2);
  g_assert_cmpuint ((guchar) gz[0], ==, 0x1f);
  g_assert_cmpuint ((guchar) gz[1], ==, 0x8b);
  {
    g_autoptr(PlanarProfile) again = load_profile (out);
    g_autoptr(PlanarProfile) original = load_profile (path);

    g_assert_cmpuint (planar_profile_get_n_events (again), ==, planar_export_count_events (original));
  }

  g_assert_true (g_spawn_sync (NULL, argv_exists, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status,
                               NULL));
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 2);
  g_assert_nonnull (strstr (err, "already exists"));
  g_clear_pointer (&err, g_free);

  g_assert_true (g_spawn_sync (NULL, argv_format, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status,
                               NULL));
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 2);
  g_assert_false (g_file_test (pf, G_FILE_TEST_EXISTS));

  g_assert_true (g_spawn_sync (NULL, argv_pf, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL));
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_assert_true (g_file_test (pf, G_FILE_TEST_EXISTS));
  /* Nothing but the two outputs: no temporary file left behind. */
  {
    g_autoptr(GDir) dir = g_dir_open (f->dir, 0, NULL);
    guint n = 0;

    while (g_dir_read_name (dir) != NULL)
      n++;
    g_assert_cmpuint (n, ==, 2);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/interop/import-samples", test_import_samples);
  g_test_add_func ("/interop/import-flows", test_import_flows);
  g_test_add ("/interop/import-shapes", PlanarTestFixture, NULL, planar_test_fixture_setup, test_import_shapes,
              planar_test_fixture_teardown);
  g_test_add ("/interop/import-counters", PlanarTestFixture, NULL, planar_test_fixture_setup, test_import_counters,
              planar_test_fixture_teardown);
  g_test_add ("/interop/import-nesting", PlanarTestFixture, NULL, planar_test_fixture_setup, test_import_nesting,
              planar_test_fixture_teardown);
  g_test_add ("/interop/import-ids", PlanarTestFixture, NULL, planar_test_fixture_setup, test_import_ids,
              planar_test_fixture_teardown);
  PLANAR_TEST_ADD ("/interop/import-perfetto-rules", test_import_perfetto_rules);
  g_test_add_func ("/interop/import-kineto-sections", test_import_kineto_sections);
  PLANAR_TEST_ADD ("/interop/import-text-ids", test_import_text_ids);
  PLANAR_TEST_ADD ("/interop/import-overlap-depths", test_import_overlap_depths);
  g_test_add ("/interop/import-malformed", PlanarTestFixture, NULL, planar_test_fixture_setup, test_import_malformed,
              planar_test_fixture_teardown);
  g_test_add ("/interop/round-trip-chrome", PlanarTestFixture, NULL, planar_test_fixture_setup,
              test_round_trip_chrome, planar_test_fixture_teardown);
  g_test_add ("/interop/perfetto", PlanarTestFixture, NULL, planar_test_fixture_setup, test_perfetto,
              planar_test_fixture_teardown);
  g_test_add ("/interop/cli-export", PlanarTestFixture, NULL, planar_test_fixture_setup, test_cli_export,
              planar_test_fixture_teardown);
  return g_test_run ();
}
