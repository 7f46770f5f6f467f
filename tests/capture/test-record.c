/* test-record.c: recorded parts into an XSpace (capture/cupti/planar-cupti-merge.c)
 * and `planar-cli record`'s checks. Needs no CUDA: the parts are written
 * here the way libplanar-cupti.so writes them (test-cupti.c drives the
 * library itself).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include <glib/gstdio.h>

#include "planar-cupti-merge.h"
#include "planar-cupti-part.h"
#include "planar-flows.h"
#include "planar-test-xspace.h"

#define START_CUPTI G_GUINT64_CONSTANT (5000000000)
#define START_WALL G_GUINT64_CONSTANT (1763800000000000000)
#define TID 4242

/* ------------------------------------------------------------------------
 * Writing parts
 * ------------------------------------------------------------------------ */

typedef struct
{
  PlanarCuptiPartHeader header;
  PlanarCuptiBuf        buf;
} Part;

static void
part_init (Part    *part,
           guint32  pid)
{
  memset (part, 0, sizeof *part);
  memcpy (part->header.magic, PLANAR_CUPTI_PART_MAGIC, sizeof part->header.magic);
  part->header.version = PLANAR_CUPTI_PART_VERSION;
  part->header.bom = PLANAR_CUPTI_PART_BOM;
  part->header.header_size = sizeof part->header;
  part->header.pid = pid;
  part->header.start_cupti_ns = START_CUPTI;
  part->header.start_walltime_ns = START_WALL;
  part->header.stop_cupti_ns = START_CUPTI + 1000000000;
  part->header.complete = 1;
}

static GBytes *
part_bytes (Part *part)
{
  GByteArray *bytes = g_byte_array_new ();

  g_byte_array_append (bytes, (const guint8 *) &part->header, sizeof part->header);
  g_byte_array_append (bytes, part->buf.data, (guint) part->buf.len);
  planar_cupti_buf_clear (&part->buf);
  return g_byte_array_free_to_bytes (bytes);
}

static void
write_part (const char *dir,
            const char *name,
            Part       *part)
{
  g_autoptr(GBytes) bytes = part_bytes (part);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes), &error);
  g_assert_no_error (error);
}

static void
add_thread (Part       *part,
            guint32     tid,
            const char *name)
{
  PlanarCuptiThread t = { tid, planar_cupti_str_len (name) };

  planar_cupti_buf_append (&part->buf, PLANAR_CUPTI_REC_THREAD, &t, sizeof t, 1, name);
}

static void
add_api (Part       *part,
         guint32     tid,
         const char *name,
         guint32     correlation,
         guint64     start,
         guint64     end)
{
  PlanarCuptiApi a = { 0 };

  a.start_ns = START_CUPTI + start;
  a.end_ns = START_CUPTI + end;
  a.tid = tid;
  a.cbid = 307;
  a.correlation_id = correlation;
  a.device_id = 0;
  a.context_id = 1;
  a.is_launch = name[0] == '_';
  a.name_len = planar_cupti_str_len (name);
  planar_cupti_buf_append (&part->buf, PLANAR_CUPTI_REC_API, &a, sizeof a, 1, name);
}

static void
add_kernel_on (Part       *part,
               guint32     device,
               const char *name,
               guint32     stream,
               guint32     correlation,
               guint64     start,
               guint64     end)
{
  PlanarCuptiKernel k = { 0 };

  k.start_ns = START_CUPTI + start;
  k.end_ns = START_CUPTI + end;
  k.device_id = device;
  k.context_id = 1;
  k.stream_id = stream;
  k.correlation_id = correlation;
  k.grid[0] = 80, k.grid[1] = 1, k.grid[2] = 1;
  k.block[0] = 128, k.block[1] = 2, k.block[2] = 1;
  k.static_shared = 256;
  k.dynamic_shared = 512;
  k.registers = 40;
  k.name_len = planar_cupti_str_len (name);
  planar_cupti_buf_append (&part->buf, PLANAR_CUPTI_REC_KERNEL, &k, sizeof k, 1, name);
}

static void
add_kernel (Part       *part,
            const char *name,
            guint32     stream,
            guint32     correlation,
            guint64     start,
            guint64     end)
{
  add_kernel_on (part, 0, name, stream, correlation, start, end);
}

static void
add_memcpy (Part    *part,
            guint32  stream,
            guint32  correlation,
            guint64  start,
            guint64  end)
{
  PlanarCuptiMemcpy m = { 0 };

  m.start_ns = START_CUPTI + start;
  m.end_ns = START_CUPTI + end;
  m.bytes = 1048576;
  m.device_id = 0;
  m.dst_device_id = 0;
  m.context_id = 1;
  m.stream_id = stream;
  m.correlation_id = correlation;
  m.copy_kind = 1;
  m.src_kind = 2;
  m.dst_kind = 3;
  m.flags = 1;
  planar_cupti_buf_append (&part->buf, PLANAR_CUPTI_REC_MEMCPY, &m, sizeof m, 0);
}

static void
add_marker (Part       *part,
            guint32     id,
            guint32     flags,
            const char *name,
            guint64     at)
{
  PlanarCuptiMarker m = { 0 };

  m.timestamp_ns = START_CUPTI + at;
  m.id = id;
  m.flags = flags;
  m.object_kind = 2;
  m.tid = TID;
  m.name_len = planar_cupti_str_len (name);
  m.domain_len = 0;
  planar_cupti_buf_append (&part->buf, PLANAR_CUPTI_REC_MARKER, &m, sizeof m, 2, name, "");
}

static void
add_device_full (Part    *part,
                 guint32  id,
                 guint8   uuid_tag)
{
  PlanarCuptiDevice d = { 0 };

  d.id = id;
  /* A UUID of all @uuid_tag bytes; 0: none. */
  memset (d.uuid, uuid_tag, sizeof d.uuid);
  d.global_memory_size = G_GUINT64_CONSTANT (85899345920);
  d.global_memory_bandwidth = G_GUINT64_CONSTANT (3352000000000);
  d.sm_count = 132;
  d.core_clock_khz = 1980000;
  d.compute_major = 9;
  d.compute_minor = 0;
  d.name_len = planar_cupti_str_len ("NVIDIA H100 80GB HBM3");
  planar_cupti_buf_append (&part->buf, PLANAR_CUPTI_REC_DEVICE, &d, sizeof d, 1, "NVIDIA H100 80GB HBM3");
}

static void
add_device (Part *part)
{
  add_device_full (part, 0, 0);
}

/* One process's training step: a copy in, two kernels, an NVTX range,
 * a memset, a device description and a thread name. */
static void
fill_step (Part *part)
{
  PlanarCuptiMarkerData payload = { 1, 2 };
  PlanarCuptiMemset ms = { 0 };
  PlanarCuptiOverhead o = { 0 };

  add_thread (part, TID, "trainer");
  add_device (part);
  add_marker (part, 1, 2, "train_step", 500);
  add_api (part, TID, "cuMemcpyHtoDAsync_v2", 10, 1000, 1500);
  add_memcpy (part, 7, 10, 2000, 4000);
  add_api (part, TID, "_Z6matmulPfS_S_i", 11, 1600, 1700);
  add_kernel (part, "_Z6matmulPfS_S_i", 7, 11, 4000, 9000);
  add_api (part, TID, "_Z4reluPfi", 12, 1800, 1900);
  add_kernel (part, "_Z4reluPfi", 13, 12, 9000, 9500);
  add_api (part, TID, "cuMemsetD32Async", 13, 1950, 1990);
  ms.start_ns = ms.end_ns = START_CUPTI + 9600;
  ms.bytes = 4096;
  ms.stream_id = 13;
  ms.correlation_id = 13;
  ms.flags = 1;
  ms.memory_kind = 3;
  planar_cupti_buf_append (&part->buf, PLANAR_CUPTI_REC_MEMSET, &ms, sizeof ms, 0);
  o.start_ns = START_CUPTI + 100;
  o.end_ns = START_CUPTI + 300;
  o.object_kind = 2;
  o.object_id = TID;
  o.name_len = planar_cupti_str_len ("CUPTI buffer flush");
  planar_cupti_buf_append (&part->buf, PLANAR_CUPTI_REC_OVERHEAD, &o, sizeof o, 1, "CUPTI buffer flush");
  add_marker (part, 1, 4, NULL, 10000);
  planar_cupti_buf_append (&part->buf, PLANAR_CUPTI_REC_MARKER_DATA, &payload, sizeof payload, 1, "42");
}

/* ------------------------------------------------------------------------
 * Reading the XSpace
 * ------------------------------------------------------------------------ */

static XStat *
find_stat (XPlane      *plane,
           XStat      **stats,
           gsize        n_stats,
           const char  *name)
{
  for (gsize i = 0; i < n_stats; i++)
    if (g_strcmp0 (planar_test_stat_name (plane, stats[i]->metadata_id), name) == 0)
      return stats[i];
  return NULL;
}

/* A string stat's text, whether stored as str or as ref. */
static const char *
stat_text (XPlane *plane,
           XStat  *stat)
{
  g_assert_nonnull (stat);
  if (stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE)
    return planar_test_stat_name (plane, (gint64) stat->ref_value);
  g_assert_cmpint (stat->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE);
  return stat->str_value;
}

static char *
merge_dir (const char             *dir,
           const char             *logdir,
           PlanarCuptiMergeStats  *stats)
{
  g_autoptr(GError) error = NULL;
  char *path = planar_cupti_merge_write_session (dir, logdir, stats, &error);

  g_assert_no_error (error);
  g_assert_nonnull (path);
  return path;
}

/* ------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------ */

static void
test_layout (PlanarTestFixture *f,
             gconstpointer      data)
{
  g_autofree char *parts = g_build_filename (f->dir, "parts", NULL);
  g_autofree char *logdir = g_build_filename (f->dir, "logs", NULL);
  g_autofree char *path = NULL;
  g_autofree char *host_dir = NULL;
  g_autofree char *expected_name = NULL;
  PlanarCuptiMergeStats stats;
  Part part;
  XSpace *space;
  XPlane *host, *gpu, *env;
  XLine *thread, *stream7, *stream13, *nvtx;
  XEvent *kernel = NULL;
  XEvent *launch = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarFlowIndex *flows;

  g_mkdir (parts, 0755);
  part_init (&part, 777);
  fill_step (&part);
  write_part (parts, "777-1.planar-part", &part);
  path = merge_dir (parts, logdir, &stats);

  /* <logdir>/plugins/profile/<session>/<host>.xplane.pb */
  host_dir = g_path_get_dirname (path);
  {
    g_autofree char *profile_dir = g_path_get_dirname (host_dir);
    g_autofree char *expected_dir = g_build_filename (logdir, "plugins", "profile", NULL);

    g_assert_cmpstr (profile_dir, ==, expected_dir);
  }
  g_assert_true (g_str_has_suffix (path, ".xplane.pb"));
  g_assert_cmpuint (stats.n_parts, ==, 1);
  g_assert_cmpuint (stats.n_kernels, ==, 2);
  g_assert_cmpuint (stats.n_copies, ==, 1);
  g_assert_cmpuint (stats.n_memsets, ==, 1);
  g_assert_cmpuint (stats.n_api_calls, ==, 4);
  g_assert_cmpuint (stats.n_nvtx_ranges, ==, 1);
  g_assert_cmpuint (stats.n_devices, ==, 1);
  g_assert_cmpuint (stats.n_dropped, ==, 0);

  space = planar_test_read_space (path);
  g_assert_cmpuint (space->n_hostnames, ==, 1);
  g_assert_cmpuint (space->n_errors, ==, 0);
  host = planar_test_find_plane (space, "/host:CPU");
  gpu = planar_test_find_plane (space, "/device:GPU:0");
  env = planar_test_find_plane (space, "Task Environment");
  g_assert_nonnull (host);
  g_assert_nonnull (gpu);
  g_assert_nonnull (env);
  g_assert_cmpint (gpu->id, ==, 0);

  /* The device, as XProf's GPU planes describe it. */
  g_assert_cmpstr (stat_text (gpu, find_stat (gpu, gpu->stats, gpu->n_stats, "gpu_device_name")), ==,
                   "NVIDIA H100 80GB HBM3");
  g_assert_cmpstr (stat_text (gpu, find_stat (gpu, gpu->stats, gpu->n_stats, "device_vendor")), ==, "Nvidia");
  g_assert_cmpint (find_stat (gpu, gpu->stats, gpu->n_stats, "core_count")->int64_value, ==, 132);
  g_assert_cmpint (find_stat (gpu, gpu->stats, gpu->n_stats, "compute_cap_major")->int64_value, ==, 9);
  g_assert_cmpuint (find_stat (gpu, gpu->stats, gpu->n_stats, "memory_size")->uint64_value, ==,
                    G_GUINT64_CONSTANT (85899345920));

  /* Streams: the line id is the stream, and the name says what ran. */
  stream7 = planar_test_find_line (gpu, 7);
  stream13 = planar_test_find_line (gpu, 13);
  g_assert_nonnull (stream7);
  g_assert_nonnull (stream13);
  g_assert_cmpstr (stream7->name, ==, "Stream #7(Compute,MemcpyH2D)");
  g_assert_cmpstr (stream13->name, ==, "Stream #13(Compute,Memset)");
  g_assert_cmpuint (stream7->n_events, ==, 2);
  for (gsize i = 0; i < stream7->n_events; i++)
    if (g_str_has_prefix (planar_test_event_name (gpu, stream7->events[i]), "matmul"))
      kernel = stream7->events[i];
  g_assert_nonnull (kernel);
  /* Demangled, as XLA shows kernels. */
  g_assert_cmpstr (planar_test_event_name (gpu, kernel), ==, "matmul(float*, float*, float*, int)");
  /* Moved onto the wall clock: line start + offset = wall start + (t - CUPTI start). */
  g_assert_cmpint (stream7->timestamp_ns + kernel->offset_ps / 1000, ==, (gint64) (START_WALL + 4000));
  g_assert_cmpint (kernel->duration_ps, ==, 5000 * 1000);
  g_assert_cmpuint (find_stat (gpu, kernel->stats, kernel->n_stats, "correlation_id")->uint64_value, ==, 11);
  g_assert_cmpstr (stat_text (gpu, find_stat (gpu, kernel->stats, kernel->n_stats, "kernel_details")), ==,
                   "regs:40 static_shared:256 dynamic_shared:512 grid:80,1,1 block:128,2,1");
  g_assert_cmpstr (stat_text (gpu, find_stat (gpu, kernel->stats, kernel->n_stats, "context_id")), ==, "$$1");
  {
    XEvent *copy = stream7->events[0];

    g_assert_cmpstr (planar_test_event_name (gpu, copy), ==, "MemcpyH2D");
    g_assert_cmpstr (stat_text (gpu, find_stat (gpu, copy->stats, copy->n_stats, "memcpy_details")), ==,
                     "kind_src:pinned kind_dst:device size:1048576 dest:0 async:1");
  }
  {
    XEvent *ms = stream13->events[1];

    g_assert_cmpstr (planar_test_event_name (gpu, ms), ==, "Memset device");
    /* At least a nanosecond long. */
    g_assert_cmpint (ms->duration_ps, ==, 1000);
    g_assert_cmpstr (stat_text (gpu, find_stat (gpu, ms->stats, ms->n_stats, "Memset_details")), ==,
                     "kind:device num_bytes:4096 async:1");
  }

  /* The thread's line: API calls with device and correlation ids, the
   * overhead too. */
  thread = planar_test_find_line (host, TID);
  g_assert_nonnull (thread);
  g_assert_cmpstr (thread->name, ==, "trainer");
  g_assert_cmpuint (thread->n_events, ==, 5);
  for (gsize i = 0; i < thread->n_events; i++)
    if (g_str_has_prefix (planar_test_event_name (host, thread->events[i]), "matmul"))
      launch = thread->events[i];
  g_assert_nonnull (launch);
  g_assert_cmpuint (find_stat (host, launch->stats, launch->n_stats, "correlation_id")->uint64_value, ==, 11);
  g_assert_cmpuint (find_stat (host, launch->stats, launch->n_stats, "device_id")->uint64_value, ==, 0);
  g_assert_cmpstr (planar_test_event_name (host, thread->events[0]), ==, "CUPTI buffer flush");

  /* NVTX: the range, start to end, with its payload. */
  nvtx = planar_test_find_line (host, (G_GINT64_CONSTANT (1) << 32) + TID);
  g_assert_nonnull (nvtx);
  g_assert_cmpstr (nvtx->name, ==, "trainer NVTX");
  g_assert_cmpuint (nvtx->n_events, ==, 1);
  g_assert_cmpstr (planar_test_event_name (host, nvtx->events[0]), ==, "NVTX:train_step");
  g_assert_cmpint (nvtx->events[0]->duration_ps, ==, 9500 * 1000);
  g_assert_cmpstr (stat_text (host, find_stat (host, nvtx->events[0]->stats, nvtx->events[0]->n_stats,
                                               "marker_payload")), ==, "42");

  g_assert_cmpuint (find_stat (env, env->stats, env->n_stats, "profile_start_time")->uint64_value, ==, START_WALL);
  g_assert_cmpuint (find_stat (env, env->stats, env->n_stats, "profile_stop_time")->uint64_value, ==,
                    START_WALL + 1000000000);
  g_assert_cmpint (find_stat (host, host->stats, host->n_stats, "process_id")->int64_value, ==, 777);
  tensorflow__profiler__xspace__free_unpacked (space, NULL);

  /* Planar itself reads it: launch -> kernel and copy flows, all complete. */
  trace = planar_test_load_ok (path);
  flows = planar_trace_get_flows (trace);
  g_assert_nonnull (flows);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 4);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 0);
  g_assert_cmpuint (planar_trace_get_n_events (trace), >=, 8);

  /* A second merge never overwrites the first session. */
  {
    g_autofree char *again = NULL;

    part_init (&part, 778);
    fill_step (&part);
    write_part (parts, "777-1.planar-part", &part);
    again = merge_dir (parts, logdir, NULL);
    g_assert_cmpstr (again, !=, path);
    g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  }
}

/* Two processes with the same correlation ids: each launch finds its own
 * kernel. Both ran kernels on a stream numbered 7, each its own: a line
 * each, named with the process; a stream number only one of them used
 * keeps it as its line's id. Thread lines name their process too. */
static void
test_two_processes (PlanarTestFixture *f,
                    gconstpointer      data)
{
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  PlanarCuptiMergeStats stats;
  const PlanarFlowIndex *flows;
  Part part;
  XSpace *space;
  XPlane *host, *device;
  XLine *line;

  for (guint p = 0; p < 2; p++)
    {
      g_autofree char *name = g_strdup_printf ("%u-1.planar-part", 100 + p);

      part_init (&part, 100 + p);
      add_thread (&part, TID + p, p == 0 ? "first" : "second");
      add_api (&part, TID + p, "_Z4stepv", 1, 100 + p * 10, 200 + p * 10);
      add_kernel (&part, "_Z4stepv", 7, 1, 300 + p * 1000, 400 + p * 1000);
      if (p == 1)
        {
          PlanarCuptiOverhead o = { 0 };

          add_api (&part, TID + p, "_Z4tailv", 2, 500, 600);
          add_kernel (&part, "_Z4tailv", 13, 2, 1500, 1600);
          /* CUPTI's overhead on the device (object kind 3): a line of
           * its own, after the streams. */
          o.start_ns = START_CUPTI + 1700;
          o.end_ns = START_CUPTI + 1800;
          o.object_kind = 3;
          o.object_id = 0;
          o.name_len = planar_cupti_str_len ("CUPTI instrumentation");
          planar_cupti_buf_append (&part.buf, PLANAR_CUPTI_REC_OVERHEAD, &o, sizeof o, 1, "CUPTI instrumentation");
        }
      write_part (f->dir, name, &part);
    }
  path = merge_dir (f->dir, f->dir, &stats);
  g_assert_cmpuint (stats.n_parts, ==, 2);
  g_assert_cmpuint (stats.n_kernels, ==, 3);
  space = planar_test_read_space (path);
  device = planar_test_find_plane (space, "/device:GPU:0");
  g_assert_cmpuint (device->n_lines, ==, 4);
  line = planar_test_find_line (device, (G_GINT64_CONSTANT (100) << 32) | 7);
  g_assert_nonnull (line);
  g_assert_cmpstr (line->name, ==, "Stream #7(Compute) pid 100");
  g_assert_cmpuint (line->n_events, ==, 1);
  g_assert_cmpint (line->events[0]->offset_ps, ==, 300 * 1000);
  line = planar_test_find_line (device, (G_GINT64_CONSTANT (101) << 32) | 7);
  g_assert_nonnull (line);
  g_assert_cmpstr (line->name, ==, "Stream #7(Compute) pid 101");
  g_assert_cmpuint (line->n_events, ==, 1);
  g_assert_cmpint (line->events[0]->offset_ps, ==, 1300 * 1000);
  line = planar_test_find_line (device, 13);
  g_assert_nonnull (line);
  g_assert_cmpstr (line->name, ==, "Stream #13(Compute)");
  /* In the order of the streams, then of the processes. */
  g_assert_cmpint (device->lines[0]->id, ==, (G_GINT64_CONSTANT (100) << 32) | 7);
  g_assert_cmpint (device->lines[1]->id, ==, (G_GINT64_CONSTANT (101) << 32) | 7);
  g_assert_cmpint (device->lines[2]->id, ==, 13);
  g_assert_cmpstr (device->lines[3]->name, ==, "CUPTI overhead");
  g_assert_cmpuint (device->lines[3]->n_events, ==, 1);
  host = planar_test_find_plane (space, "/host:CPU");
  g_assert_cmpuint (host->n_lines, ==, 2);
  /* Each thread says its process: threads of several processes often
   * have one name. */
  g_assert_cmpstr (planar_test_find_line (host, TID)->name, ==, "first pid 100");
  g_assert_cmpstr (planar_test_find_line (host, TID + 1)->name, ==, "second pid 101");
  /* No single process: no process_id. */
  g_assert_null (find_stat (host, host->stats, host->n_stats, "process_id"));
  tensorflow__profiler__xspace__free_unpacked (space, NULL);

  trace = planar_test_load_ok (path);
  flows = planar_trace_get_flows (trace);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 3);
  for (gsize i = 0; i < 3; i++)
    {
      PlanarFlow flow;

      planar_flow_index_get_flow (flows, i, &flow);
      /* Each launch to its own kernel, not the other process's (which
       * shares its correlation id): 100 -> 300 ns and 110 -> 1300 ns. */
      if (flow.from_ps == 100 * 1000)
        g_assert_cmpint (flow.to_ps, ==, 300 * 1000);
      else if (flow.from_ps == 500 * 1000)
        g_assert_cmpint (flow.to_ps, ==, 1500 * 1000);
      else
        {
          g_assert_cmpint (flow.from_ps, ==, 110 * 1000);
          g_assert_cmpint (flow.to_ps, ==, 1300 * 1000);
        }
    }
}

/* Three processes on two GPUs (their UUIDs): the first and the third to
 * start on one, which they number 0 and 1, the second on another it
 * numbers 0 (its own CUDA_VISIBLE_DEVICES). A plane per GPU, whatever each
 * process calls it: the parts are read in the order the processes started
 * (the start in their names; not the order of their pids, nor of the
 * folder), the first GPU keeps its number, the other takes the lowest free
 * one. */
static void
test_devices_by_uuid (PlanarTestFixture *f,
                      gconstpointer      data)
{
  static const struct { guint32 pid, device; guint8 uuid; guint64 start; } parts[] = {
    { 300, 0, 0xa1, 1000 }, { 101, 0, 0xb2, 2000 }, { 102, 1, 0xa1, 3000 },
  };
  g_autofree char *path = NULL;
  PlanarCuptiMergeStats stats;
  Part part;
  XSpace *space;
  XPlane *gpu0, *gpu1;

  for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
    {
      g_autofree char *name = g_strdup_printf ("%u-%" G_GUINT64_FORMAT ".planar-part", parts[p].pid, parts[p].start);

      part_init (&part, parts[p].pid);
      add_device_full (&part, parts[p].device, parts[p].uuid);
      add_api (&part, TID + p, "_Z4stepv", 1, 100 + p * 10, 200 + p * 10);
      add_kernel_on (&part, parts[p].device, "_Z4stepv", 7, 1, 300 + p * 1000, 400 + p * 1000);
      write_part (f->dir, name, &part);
    }
  path = merge_dir (f->dir, f->dir, &stats);
  g_assert_cmpuint (stats.n_kernels, ==, 3);
  space = planar_test_read_space (path);
  gpu0 = planar_test_find_plane (space, "/device:GPU:0");
  gpu1 = planar_test_find_plane (space, "/device:GPU:1");
  g_assert_nonnull (gpu0);
  g_assert_nonnull (gpu1);
  g_assert_null (planar_test_find_plane (space, "/device:GPU:2"));
  /* GPU a1: processes 300 and 102, each its stream 7. */
  g_assert_cmpuint (gpu0->n_lines, ==, 2);
  g_assert_nonnull (planar_test_find_line (gpu0, (G_GINT64_CONSTANT (300) << 32) | 7));
  g_assert_nonnull (planar_test_find_line (gpu0, (G_GINT64_CONSTANT (102) << 32) | 7));
  g_assert_cmpint (planar_test_find_line (gpu0, (G_GINT64_CONSTANT (102) << 32) | 7)->events[0]->offset_ps, ==,
                   2300 * 1000);
  /* GPU b2: process 101 alone, its stream keeps its number. */
  g_assert_cmpuint (gpu1->n_lines, ==, 1);
  g_assert_cmpint (gpu1->lines[0]->id, ==, 7);
  g_assert_cmpint (gpu1->lines[0]->events[0]->offset_ps, ==, 1300 * 1000);
  /* Both described. */
  g_assert_nonnull (find_stat (gpu0, gpu0->stats, gpu0->n_stats, "gpu_device_name"));
  g_assert_nonnull (find_stat (gpu1, gpu1->stats, gpu1->n_stats, "gpu_device_name"));
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
}

/* Out of the traced time, ending before starting, over the caps: left out
 * and counted, and the XSpace says so. */
static void
test_dropped (PlanarTestFixture *f,
              gconstpointer      data)
{
  g_autofree char *path = NULL;
  PlanarCuptiMergeStats stats;
  Part part;
  XSpace *space;
  gboolean warned = FALSE;

  part_init (&part, 9);
  part.header.dropped_activity = 5;
  part.header.dropped_api = 2;
  add_kernel (&part, "ok", 1, 1, 100, 200);
  /* Before tracing started (the unsigned offset wraps). */
  add_kernel (&part, "early", 1, 2, (guint64) -50, 10);
  add_kernel (&part, "backwards", 1, 3, 300, 250);
  add_kernel (&part, "late", 1, 4, 999999000, 1000000500);
  /* An end without a start. */
  add_marker (&part, 77, 4, NULL, 10);
  write_part (f->dir, "9-1.planar-part", &part);
  path = merge_dir (f->dir, f->dir, &stats);
  g_assert_cmpuint (stats.n_kernels, ==, 1);
  g_assert_cmpuint (stats.n_dropped, ==, 3 + 1 + 7);
  space = planar_test_read_space (path);
  for (gsize i = 0; i < space->n_warnings; i++)
    if (strstr (space->warnings[i], "Detected GPU events dropped on") != NULL
        && strstr (space->warnings[i], "2 API calls and 5 device events") != NULL)
      warned = TRUE;
  g_assert_true (warned);
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
}

/* Broken parts: every prefix of a good one, wrong magic, version, an
 * unfinished part, records that lie about their sizes. Each is refused
 * with a message, adds nothing, and never crashes. */
static void
test_bad_parts (PlanarTestFixture *f,
                gconstpointer      data)
{
  g_autoptr(GBytes) good = NULL;
  const guint8 *bytes;
  gsize len;
  Part part;

  part_init (&part, 1);
  fill_step (&part);
  good = part_bytes (&part);
  bytes = g_bytes_get_data (good, &len);

  for (gsize cut = 0; cut < len; cut++)
    {
      PlanarCuptiMerge *merge = planar_cupti_merge_new ("h");
      g_autoptr(GError) error = NULL;
      PlanarCuptiMergeStats stats;
      g_autoptr(GBytes) out = NULL;
      gboolean ok = planar_cupti_merge_add_part (merge, bytes, cut, "cut.planar-part", &error);

      /* Cutting at a record boundary leaves a shorter, valid part. */
      if (ok)
        g_assert_no_error (error);
      else
        {
          g_assert_nonnull (error);
          g_assert_true (g_str_has_prefix (error->message, "cut.planar-part: "));
        }
      out = planar_cupti_merge_finish (merge, &stats);
      g_assert_cmpuint (stats.n_parts, ==, ok ? 1 : 0);
      if (!ok)
        g_assert_cmpuint (stats.n_kernels + stats.n_api_calls + stats.n_copies, ==, 0);
      planar_cupti_merge_free (merge);
    }

  {
    struct
    {
      gsize offset;
      guint32 value;
      const char *message;
    } cases[] = {
      { 0, 0x21212121, "not a recording part" },
      { G_STRUCT_OFFSET (PlanarCuptiPartHeader, version), 99, "another version" },
      { G_STRUCT_OFFSET (PlanarCuptiPartHeader, complete), 0, "cut short" },
      /* The first record's size: not a multiple of 8, then past the end. */
      { sizeof (PlanarCuptiPartHeader) + 4, 13, "malformed record" },
      { sizeof (PlanarCuptiPartHeader) + 4, 1u << 30, "malformed record" },
      /* Its type. */
      { sizeof (PlanarCuptiPartHeader), 1000, "malformed record" },
      /* The thread record's name length. */
      { sizeof (PlanarCuptiPartHeader) + 8 + 4, 100000, "malformed record" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autofree guint8 *copy = g_memdup2 (bytes, len);
        PlanarCuptiMerge *merge = planar_cupti_merge_new ("h");
        g_autoptr(GError) error = NULL;

        memcpy (copy + cases[i].offset, &cases[i].value, sizeof cases[i].value);
        g_assert_false (planar_cupti_merge_add_part (merge, copy, len, "bad", &error));
        g_assert_nonnull (error);
        if (strstr (error->message, cases[i].message) == NULL)
          g_error ("case %u: %s", i, error->message);
        planar_cupti_merge_free (merge);
      }
  }

  /* A folder with a bad part and a good one: the good one is merged and
   * the XSpace names the bad one; only bad ones: an error. */
  {
    g_autofree char *bad = g_build_filename (f->dir, "1-1.planar-part", NULL);
    g_autofree char *path = NULL;
    g_autofree char *only_bad = g_build_filename (f->dir, "only-bad", NULL);
    g_autofree char *bad2 = g_build_filename (only_bad, "2-2.planar-part", NULL);
    g_autoptr(GError) error = NULL;
    XSpace *space;

    g_file_set_contents (bad, "garbage", 7, NULL);
    part_init (&part, 2);
    fill_step (&part);
    write_part (f->dir, "2-2.planar-part", &part);
    path = merge_dir (f->dir, f->dir, NULL);
    space = planar_test_read_space (path);
    g_assert_cmpuint (space->n_errors, ==, 1);
    g_assert_nonnull (strstr (space->errors[0], "1-1.planar-part"));
    tensorflow__profiler__xspace__free_unpacked (space, NULL);

    g_mkdir (only_bad, 0755);
    g_file_set_contents (bad2, "garbage", 7, NULL);
    g_assert_null (planar_cupti_merge_write_session (only_bad, f->dir, NULL, &error));
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
    g_assert_nonnull (strstr (error->message, "too short"));
  }
}

static void
run_cli (const char * const *argv,
         int                 expected_status,
         char              **out,
         char              **err)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL) || expected_status != 0)
    {
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, expected_status);
    }
}

/* `planar-cli record --merge` (the container mode's second half) and the
 * clear one-line failures. */
static void
test_cli (PlanarTestFixture *f,
          gconstpointer      data)
{
  const char *cli = g_getenv ("PLANAR_CLI");
  g_autofree char *parts = g_build_filename (f->dir, "parts", NULL);
  g_autofree char *empty = g_build_filename (f->dir, "empty", NULL);
  g_autofree char *logdir = g_build_filename (f->dir, "logs", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) lines = NULL;
  Part part;

  g_assert_nonnull (cli);
  g_mkdir (parts, 0755);
  g_mkdir (empty, 0755);
  part_init (&part, 3);
  fill_step (&part);
  write_part (parts, "3-1.planar-part", &part);
  {
    const char *argv[] = { cli, "record", "--merge", parts, "--logdir", logdir, NULL };

    run_cli (argv, 0, &out, &err);
    lines = g_strsplit (g_strstrip (out), "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, 1);
    g_assert_true (g_str_has_suffix (lines[0], ".xplane.pb"));
    g_assert_true (g_file_test (lines[0], G_FILE_TEST_IS_REGULAR));
    g_assert_nonnull (strstr (err, "recorded 2 kernels, 1 copy, 1 memset and 4 API calls on 1 GPU"));
  }
  {
    const char *argv[] = { cli, "record", "--merge", empty, "--logdir", logdir, NULL };

    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    run_cli (argv, 1, &out, &err);
    g_assert_cmpstr (out, ==, "");
    g_assert_true (g_str_has_prefix (err, "planar-cli: nothing was recorded"));
    g_assert_cmpuint (strlen (err) - 1, ==, strcspn (err, "\n"));
  }
  {
    const char *argv[] = { cli, "record", "--", "true", NULL };

    g_clear_pointer (&err, g_free);
    run_cli (argv, 2, NULL, &err);
    g_assert_nonnull (strstr (err, "--logdir"));
  }
  {
    const char *argv[] = { cli, "record", "--logdir", logdir, NULL };

    g_clear_pointer (&err, g_free);
    run_cli (argv, 2, NULL, &err);
    g_assert_nonnull (strstr (err, "needs a command"));
  }
  /* Without a GPU (here; and the check is not skipped): one clear line. */
  if (g_getenv ("PLANAR_RECORD_SKIP_GPU_CHECK") == NULL && !g_file_test ("/dev/nvidiactl", G_FILE_TEST_EXISTS))
    {
      const char *argv[] = { cli, "record", "--logdir", logdir, "--", "true", NULL };

      g_clear_pointer (&err, g_free);
      run_cli (argv, 1, NULL, &err);
      g_assert_true (g_str_has_prefix (err, "planar-cli: "));
      g_assert_cmpuint (strlen (err) - 1, ==, strcspn (err, "\n"));
      g_assert_true (strstr (err, "GPU") != NULL || strstr (err, "CUPTI") != NULL);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  PLANAR_TEST_ADD ("/record/merge/layout", test_layout);
  PLANAR_TEST_ADD ("/record/merge/two-processes", test_two_processes);
  PLANAR_TEST_ADD ("/record/merge/devices-by-uuid", test_devices_by_uuid);
  PLANAR_TEST_ADD ("/record/merge/dropped", test_dropped);
  PLANAR_TEST_ADD ("/record/merge/bad-parts", test_bad_parts);
  PLANAR_TEST_ADD ("/record/cli", test_cli);
  return g_test_run ();
}
