/* test-cupti.c: CUPTI recording without a GPU.
 *
 *  - CUPTI activity records built with the CUDA 13 layouts through the
 *    decoder (capture/cupti/planar-cupti-decode.c) and the merge;
 *  - libplanar-cupti.so, run by `planar-cli record` inside a stand-in CUDA
 *    program (cupti/fake-cuda-app.c) against a stand-in libcupti
 *    (cupti/fake-cupti.c): the calls it makes, buffers, the flush at exit,
 *    several threads and processes, the time limit, caps, signals, exit
 *    statuses and failures.
 *
 * Built where the CUDA toolkit's headers are (the CI machines among them).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include "planar-cupti-decode.h"
#include "planar-cupti-merge.h"
#include "planar-flows.h"
#include "planar-test-xspace.h"

/* ------------------------------------------------------------------------
 * XSpace helpers
 * ------------------------------------------------------------------------ */

/* The text of string stat @name of @event. */
static const char *
event_text (XPlane     *plane,
            XEvent     *event,
            const char *name)
{
  for (gsize i = 0; i < event->n_stats; i++)
    if (g_strcmp0 (planar_test_stat_name (plane, event->stats[i]->metadata_id), name) == 0)
      return event->stats[i]->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE
               ? planar_test_stat_name (plane, (gint64) event->stats[i]->ref_value)
               : event->stats[i]->str_value;
  return NULL;
}

/* Events on all lines of @plane whose name starts with @prefix. */
static guint
count_events (XPlane     *plane,
              const char *prefix)
{
  guint n = 0;

  if (plane == NULL)
    return 0;
  for (gsize l = 0; l < plane->n_lines; l++)
    for (gsize e = 0; e < plane->lines[l]->n_events; e++)
      if (g_str_has_prefix (planar_test_event_name (plane, plane->lines[l]->events[e]), prefix))
        n++;
  return n;
}

static XEvent *
first_event (XPlane     *plane,
             const char *prefix)
{
  for (gsize l = 0; l < plane->n_lines; l++)
    for (gsize e = 0; e < plane->lines[l]->n_events; e++)
      if (g_str_has_prefix (planar_test_event_name (plane, plane->lines[l]->events[e]), prefix))
        return plane->lines[l]->events[e];
  return NULL;
}

/* ------------------------------------------------------------------------
 * The decoder, on CUDA 13 records
 * ------------------------------------------------------------------------ */

#define T0 G_GUINT64_CONSTANT (1000000000)

static void
decode (PlanarCuptiBuf *buf,
        const void     *record,
        int             expected)
{
  g_assert_cmpint (planar_cupti_decode_activity (buf, record), ==, expected);
}

static void
test_decode (PlanarTestFixture *f,
             gconstpointer      data)
{
  PlanarCuptiBuf buf = { 0 };
  PlanarCuptiPartHeader header = { 0 };
  CUpti_ActivityKernel10 k = { 0 };
  CUpti_ActivityMemcpy6 m = { 0 };
  CUpti_ActivityMemcpyPtoP4 p = { 0 };
  CUpti_ActivityMemset4 s = { 0 };
  CUpti_ActivityMarker2 start = { 0 }, end = { 0 }, other = { 0 };
  CUpti_ActivityMarkerData2 payload = { 0 };
  CUpti_ActivityOverhead3 o = { 0 };
  CUpti_ActivityDevice5 d = { 0 };
  CUpti_ActivityAPI api = { 0 };
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  PlanarCuptiMerge *merge;
  PlanarCuptiMergeStats stats;
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  XSpace *space;
  XPlane *gpu0, *gpu1, *host;
  XEvent *e;

  /* The offsets docs/formats.md §9.10 measured, which the decoder relies on. */
  g_assert_cmpuint (sizeof (CUpti_ActivityKernel10), ==, 216);
  g_assert_cmpuint (G_STRUCT_OFFSET (CUpti_ActivityKernel10, correlationId), ==, 92);
  g_assert_cmpuint (G_STRUCT_OFFSET (CUpti_ActivityKernel10, name), ==, 104);
  g_assert_cmpuint (sizeof (CUpti_ActivityMemcpy6), ==, 96);
  g_assert_cmpuint (sizeof (CUpti_ActivityMemset4), ==, 88);
  g_assert_cmpuint (sizeof (CUpti_ActivityMarker2), ==, 56);

  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.name = "Test GPU";
  d.numMultiprocessors = 108;
  d.globalMemorySize = G_GUINT64_CONSTANT (42949672960);
  d.globalMemoryBandwidth = 1555000000;
  d.computeCapabilityMajor = 8;
  decode (&buf, &d, 0);

  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = T0 + 1000;
  k.end = T0 + 3000;
  k.deviceId = 0;
  k.contextId = 4;
  k.streamId = 17;
  k.correlationId = 99;
  k.gridX = 2, k.gridY = 3, k.gridZ = 4;
  k.blockX = 32, k.blockY = 8, k.blockZ = 1;
  k.registersPerThread = 64;
  k.staticSharedMemory = 48;
  k.dynamicSharedMemory = 16;
  k.graphId = 5;
  k.graphNodeId = 6;
  k.name = "_Z3addPfS_";
  decode (&buf, &k, 1);

  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.flags = 0;
  m.bytes = 777;
  m.start = T0 + 4000;
  m.end = T0 + 4500;
  m.streamId = 17;
  m.correlationId = 100;
  decode (&buf, &m, 1);

  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcKind = p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.bytes = 4096;
  p.start = T0 + 5000;
  p.end = T0 + 5100;
  p.deviceId = 1;
  p.srcDeviceId = 1;
  p.dstDeviceId = 0;
  p.streamId = 3;
  p.correlationId = 101;
  decode (&buf, &p, 1);

  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 64;
  s.start = s.end = T0 + 6000;
  s.streamId = 17;
  s.flags = 0;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  s.correlationId = 102;
  decode (&buf, &s, 1);

  start.kind = end.kind = other.kind = CUPTI_ACTIVITY_KIND_MARKER;
  start.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  start.timestamp = T0 + 500;
  start.id = 8;
  start.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  start.objectId.pt.threadId = 321;
  start.name = "epoch";
  start.domain = "trainer";
  end = start;
  end.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  end.timestamp = T0 + 7000;
  end.name = NULL;
  end.domain = NULL;
  /* A marker of a process, not a thread: XLA leaves those out. */
  other = start;
  other.objectKind = CUPTI_ACTIVITY_OBJECT_PROCESS;
  decode (&buf, &start, 1);
  decode (&buf, &other, 0);
  payload.kind = CUPTI_ACTIVITY_KIND_MARKER_DATA;
  payload.id = 8;
  payload.payloadKind = CUPTI_METRIC_VALUE_KIND_DOUBLE;
  payload.payload.metricValueDouble = 0.5;
  decode (&buf, &payload, 0);
  decode (&buf, &end, 0);

  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_DEVICE;
  o.objectId.dcs.deviceId = 0;
  o.start = T0 + 100;
  o.end = T0 + 200;
  decode (&buf, &o, 1);
  o.objectKind = CUPTI_ACTIVITY_OBJECT_UNKNOWN;
  decode (&buf, &o, 0);

  /* Kinds Planar does not keep. */
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  decode (&buf, &api, 0);
  g_assert_false (buf.failed);

  memcpy (header.magic, PLANAR_CUPTI_PART_MAGIC, sizeof header.magic);
  header.version = PLANAR_CUPTI_PART_VERSION;
  header.bom = PLANAR_CUPTI_PART_BOM;
  header.header_size = sizeof header;
  header.pid = 5;
  header.start_cupti_ns = T0;
  header.start_walltime_ns = G_GUINT64_CONSTANT (1763800000000000000);
  header.stop_cupti_ns = T0 + 10000;
  header.complete = 1;
  g_byte_array_append (bytes, (const guint8 *) &header, sizeof header);
  g_byte_array_append (bytes, buf.data, (guint) buf.len);
  planar_cupti_buf_clear (&buf);

  merge = planar_cupti_merge_new ("decoded");
  g_assert_true (planar_cupti_merge_add_part (merge, bytes->data, bytes->len, "decoded", &error));
  g_assert_no_error (error);
  out = planar_cupti_merge_finish (merge, &stats);
  planar_cupti_merge_free (merge);
  g_assert_cmpuint (stats.n_kernels, ==, 1);
  g_assert_cmpuint (stats.n_copies, ==, 2);
  g_assert_cmpuint (stats.n_memsets, ==, 1);
  g_assert_cmpuint (stats.n_nvtx_ranges, ==, 1);
  g_assert_cmpuint (stats.n_devices, ==, 2);

  path = g_build_filename (f->dir, "decoded.xplane.pb", NULL);
  g_file_set_contents (path, g_bytes_get_data (out, NULL), (gssize) g_bytes_get_size (out), &error);
  g_assert_no_error (error);
  space = planar_test_read_space (path);
  gpu0 = planar_test_find_plane (space, "/device:GPU:0");
  gpu1 = planar_test_find_plane (space, "/device:GPU:1");
  host = planar_test_find_plane (space, "/host:CPU");
  g_assert_nonnull (gpu0);
  g_assert_nonnull (gpu1);

  e = first_event (gpu0, "add(");
  g_assert_nonnull (e);
  g_assert_cmpstr (event_text (gpu0, e, "kernel_details"), ==,
                   "regs:64 static_shared:48 dynamic_shared:16 grid:2,3,4 block:32,8,1");
  g_assert_cmpstr (event_text (gpu0, e, "context_id"), ==, "$$4");
  g_assert_cmpint (e->duration_ps, ==, 2000 * 1000);
  g_assert_nonnull (first_event (gpu0, "MemcpyD2H"));
  g_assert_cmpstr (event_text (gpu0, first_event (gpu0, "MemcpyD2H"), "memcpy_details"), ==,
                   "kind_src:device kind_dst:pageable size:777 dest:0 async:0");
  /* A peer copy lies on its source device and names its destination. */
  g_assert_cmpstr (event_text (gpu1, first_event (gpu1, "MemcpyP2P"), "memcpy_details"), ==,
                   "kind_src:device kind_dst:device size:4096 dest:0 async:0");
  g_assert_nonnull (first_event (gpu0, "Memset managed"));
  g_assert_nonnull (first_event (gpu0, "Driver compiler"));
  g_assert_cmpuint (count_events (host, "NVTX:trainer:epoch"), ==, 1);
  g_assert_cmpstr (event_text (host, first_event (host, "NVTX:"), "marker_payload"), ==, "0.5");
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
}

/* ------------------------------------------------------------------------
 * The injection library, through planar-cli record
 * ------------------------------------------------------------------------ */

typedef struct
{
  int    status;
  char  *out;
  char  *err;
  char  *path;
  char  *log;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
  g_free (r->path);
  g_free (r->log);
}

static char **
record_env (PlanarTestFixture  *f,
            const char * const *extra)
{
  char **env = g_get_environ ();
  g_autofree char *log = g_build_filename (f->dir, "cupti.log", NULL);

  env = g_environ_setenv (env, "PLANAR_CUPTI_LIBRARY", g_getenv ("PLANAR_FAKE_CUPTI"), TRUE);
  env = g_environ_setenv (env, "PLANAR_RECORD_SKIP_GPU_CHECK", "1", TRUE);
  env = g_environ_setenv (env, "FAKE_CUPTI_LOG", log, TRUE);
  /* The build tree's library is found beside planar-cli, as installed. */
  env = g_environ_unsetenv (env, "PLANAR_CUPTI_INJECTION");
  env = g_environ_unsetenv (env, "CUDA_INJECTION64_PATH");
  for (guint i = 0; extra != NULL && extra[i] != NULL; i += 2)
    env = extra[i + 1] != NULL ? g_environ_setenv (env, extra[i], extra[i + 1], TRUE)
                               : g_environ_unsetenv (env, extra[i]);
  return env;
}

static char **
record_argv (PlanarTestFixture  *f,
             const char * const *record_args,
             const char * const *app_args)
{
  GPtrArray *argv = g_ptr_array_new ();
  g_autofree char *logdir = g_build_filename (f->dir, "logs", NULL);

  g_ptr_array_add (argv, g_strdup (g_getenv ("PLANAR_CLI")));
  g_ptr_array_add (argv, g_strdup ("record"));
  g_ptr_array_add (argv, g_strdup ("--logdir"));
  g_ptr_array_add (argv, g_strdup (logdir));
  for (guint i = 0; record_args != NULL && record_args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (record_args[i]));
  g_ptr_array_add (argv, g_strdup ("--"));
  g_ptr_array_add (argv, g_strdup (g_getenv ("PLANAR_FAKE_CUDA_APP")));
  for (guint i = 0; app_args != NULL && app_args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (app_args[i]));
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

/* The last line of standard output that names an xplane. */
static char *
printed_path (const char *out)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  char *path = NULL;

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_suffix (lines[i], ".xplane.pb"))
      {
        g_free (path);
        path = g_strdup (lines[i]);
      }
  return path;
}

static void
record (PlanarTestFixture  *f,
        const char * const *record_args,
        const char * const *app_args,
        const char * const *extra_env,
        Run                *r)
{
  g_auto(GStrv) argv = record_argv (f, record_args, app_args);
  g_auto(GStrv) env = record_env (f, extra_env);
  g_autofree char *log = g_build_filename (f->dir, "cupti.log", NULL);
  g_autoptr(GError) error = NULL;
  int status = 0;

  memset (r, 0, sizeof *r);
  g_unlink (log);
  g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, &r->out, &r->err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  r->status = WEXITSTATUS (status);
  r->path = printed_path (r->out);
  g_file_get_contents (log, &r->log, NULL, NULL);
  if (r->log == NULL)
    r->log = g_strdup ("");
  if (g_test_verbose ())
    g_printerr ("status %d\nout: %s\nerr: %s\nlog:\n%s\n", r->status, r->out, r->err, r->log);
}

/* Index of the first log line (after its pid) equal to @call, or -1. */
static int
log_index (const char *log,
           const char *call)
{
  g_auto(GStrv) lines = g_strsplit (log, "\n", -1);

  for (int i = 0; lines[i] != NULL; i++)
    {
      const char *space = strchr (lines[i], ' ');

      if (space != NULL && strcmp (space + 1, call) == 0)
        return i;
    }
  return -1;
}

static void
test_record_basic (PlanarTestFixture *f,
                   gconstpointer      data)
{
  const char *app[] = { "--kernels", "3", "--threads", "2", NULL };
  Run r;
  XSpace *space;
  XPlane *host, *gpu, *env;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarFlowIndex *flows;
  guint64 start = 0;
  gint64 now_ns = g_get_real_time () * 1000;

  record (f, NULL, app, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (r.path);
  g_assert_true (g_file_test (r.path, G_FILE_TEST_IS_REGULAR));
  g_assert_nonnull (strstr (r.err, "recorded 9 kernels, 6 copies, 3 memsets and 18 API calls on 1 GPU from 1 "
                                   "process"));

  /* The CUPTI calls, in XLA's order: subscribe, the driver callbacks (and
   * no runtime ones), system thread ids, buffers, activity kinds; at
   * exit: callbacks off, kinds off, a forced flush, unsubscribe, finalize. */
  g_assert_cmpint (log_index (r.log, "subscribe"), ==, 0);
  g_assert_cmpint (log_index (r.log, "enable_callback 1 1 307"), >, 0);
  g_assert_cmpint (log_index (r.log, "enable_callback 1 1 652"), >, 0);
  g_assert_cmpint (log_index (r.log, "enable_callback 1 1 277"), >, 0);
  g_assert_null (strstr (r.log, "enable_callback 1 2 "));
  g_assert_cmpint (log_index (r.log, "set_thread_id_type 1"), >, log_index (r.log, "enable_callback 1 1 307"));
  g_assert_cmpint (log_index (r.log, "register_callbacks"), >, log_index (r.log, "set_thread_id_type 1"));
  for (guint i = 0; i < 5; i++)
    {
      static const int kinds[] = { 10, 1, 22, 2, 17 };
      g_autofree char *call = g_strdup_printf ("activity_enable %d", kinds[i]);

      g_assert_cmpint (log_index (r.log, call), >, log_index (r.log, "register_callbacks"));
    }
  g_assert_cmpint (log_index (r.log, "activity_enable 12"), ==, -1);
  g_assert_cmpint (log_index (r.log, "enable_domain 0 1"), >, log_index (r.log, "activity_enable 17"));
  g_assert_cmpint (log_index (r.log, "activity_disable 10"), >, log_index (r.log, "enable_domain 0 1"));
  g_assert_cmpint (log_index (r.log, "flush_all 1"), >, log_index (r.log, "activity_disable 10"));
  g_assert_cmpint (log_index (r.log, "unsubscribe"), >, log_index (r.log, "flush_all 1"));
  g_assert_cmpint (log_index (r.log, "finalize"), >, log_index (r.log, "unsubscribe"));
  g_assert_null (strstr (r.log, "nvtx_injection"));

  space = planar_test_read_space (r.path);
  host = planar_test_find_plane (space, "/host:CPU");
  gpu = planar_test_find_plane (space, "/device:GPU:0");
  env = planar_test_find_plane (space, "Task Environment");
  g_assert_nonnull (host);
  g_assert_nonnull (gpu);
  g_assert_nonnull (env);
  g_assert_cmpuint (space->n_errors, ==, 0);
  /* Three threads, each with its name. */
  g_assert_cmpuint (host->n_lines, ==, 3);
  for (gsize l = 0; l < host->n_lines; l++)
    g_assert_true (g_str_equal (host->lines[l]->name, "fake-main") || g_str_has_prefix (host->lines[l]->name, "worker-"));
  g_assert_cmpuint (count_events (gpu, "matmul("), ==, 6);
  g_assert_cmpuint (count_events (gpu, "relu("), ==, 3);
  g_assert_cmpuint (count_events (host, "matmul("), ==, 6);
  g_assert_cmpuint (count_events (host, "cuMemcpyHtoDAsync_v2"), ==, 3);
  g_assert_cmpuint (count_events (gpu, "MemcpyH2D"), ==, 3);
  g_assert_cmpuint (count_events (gpu, "MemcpyD2H"), ==, 3);
  g_assert_cmpuint (count_events (host, "CUPTI buffer flush"), ==, 3);
  /* Nothing recorded without --nvtx. */
  g_assert_cmpuint (count_events (host, "NVTX:"), ==, 0);
  for (gsize i = 0; i < gpu->n_stats; i++)
    if (g_strcmp0 (planar_test_stat_name (gpu, gpu->stats[i]->metadata_id), "gpu_device_name") == 0)
      g_assert_cmpstr (gpu->stats[i]->str_value, ==, "Fake GPU H1");
  /* The stand-in's clock is a day off the wall clock; the profile is on
   * the wall clock, now. */
  for (gsize i = 0; i < env->n_stats; i++)
    if (g_strcmp0 (planar_test_stat_name (env, env->stats[i]->metadata_id), "profile_start_time") == 0)
      start = env->stats[i]->uint64_value;
  g_assert_cmpint (llabs ((gint64) start - now_ns), <, G_GINT64_CONSTANT (120000000000));
  tensorflow__profiler__xspace__free_unpacked (space, NULL);

  trace = planar_test_load_ok (r.path);
  flows = planar_trace_get_flows (trace);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 9 + 6 + 3);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 0);
  run_clear (&r);
}

/* Two more processes started by the first: three parts, one XSpace,
 * flows within each process although their correlation ids repeat. */
static void
test_record_children (PlanarTestFixture *f,
                      gconstpointer      data)
{
  const char *app[] = { "--kernels", "2", "--children", "2", NULL };
  Run r;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarFlowIndex *flows;
  XSpace *space;
  g_autoptr(GHashTable) pids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) lines = NULL;

  record (f, NULL, app, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "recorded 6 kernels, 6 copies, 3 memsets and 15 API calls on 1 GPU from 3 "
                                   "processes"));
  lines = g_strsplit (r.log, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_suffix (lines[i], " subscribe"))
      g_hash_table_add (pids, g_strndup (lines[i], strcspn (lines[i], " ")));
  g_assert_cmpuint (g_hash_table_size (pids), ==, 3);
  space = planar_test_read_space (r.path);
  g_assert_cmpuint (planar_test_find_plane (space, "/host:CPU")->n_lines, ==, 3);
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
  trace = planar_test_load_ok (r.path);
  flows = planar_trace_get_flows (trace);
  g_assert_cmpuint (planar_flow_index_get_n_complete (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 15);
  g_assert_cmpuint (planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_ALL), ==, 0);
  run_clear (&r);
}

/* The same, each child seeing another GPU as its device 0 (a
 * CUDA_VISIBLE_DEVICES of its own): the GPUs are told apart by their UUID,
 * a plane each, numbered 0, 1 and 2 in the order the processes started. */
static void
test_record_children_own_gpus (PlanarTestFixture *f,
                               gconstpointer      data)
{
  const char *app[] = { "--kernels", "2", "--children", "2", "--children-own-gpus", NULL };
  Run r;
  XSpace *space;

  record (f, NULL, app, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "recorded 6 kernels, 6 copies, 3 memsets and 15 API calls on 3 GPUs from 3 "
                                   "processes"));
  space = planar_test_read_space (r.path);
  for (guint d = 0; d < 3; d++)
    {
      g_autofree char *name = g_strdup_printf ("/device:GPU:%u", d);
      XPlane *gpu = planar_test_find_plane (space, name);

      g_assert_nonnull (gpu);
      /* Each GPU ran one process's two kernels, on its stream alone. */
      g_assert_cmpuint (count_events (gpu, ""), ==, 2 + 2 + 1);
    }
  g_assert_null (planar_test_find_plane (space, "/device:GPU:3"));
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
  run_clear (&r);
}

static void
test_record_nvtx (PlanarTestFixture *f,
                  gconstpointer      data)
{
  const char *args[] = { "--nvtx", NULL };
  const char *app[] = { "--kernels", "1", NULL };
  Run r;
  XSpace *space;
  XPlane *host;
  g_autofree char *injection = NULL;

  record (f, args, app, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (log_index (r.log, "activity_enable 12"), >, 0);
  g_assert_cmpint (log_index (r.log, "activity_enable 13"), >, 0);
  /* NVTX is pointed at the injection library, which hands it on to
   * CUPTI. */
  injection = g_strdup_printf ("nvtx_injection %s", g_getenv ("PLANAR_CUPTI_INJECTION_BUILT"));
  g_assert_nonnull (strstr (r.log, injection));
  g_assert_nonnull (strstr (r.err, ", 1 NVTX range"));
  g_assert_null (strstr (r.err, "1 NVTX ranges"));
  space = planar_test_read_space (r.path);
  host = planar_test_find_plane (space, "/host:CPU");
  g_assert_cmpuint (count_events (host, "NVTX:train_step"), ==, 1);
  g_assert_cmpstr (event_text (host, first_event (host, "NVTX:"), "marker_payload"), ==, "1");
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
  run_clear (&r);
}

/* A range opened and closed before the program's first CUDA call (a
 * PyTorch program's outer range, on the H100) is recorded: NVTX's first
 * call starts the recording, then reaches CUPTI's own entry. */
static void
test_record_nvtx_before_cuda (PlanarTestFixture *f,
                              gconstpointer      data)
{
  const char *args[] = { "--nvtx", NULL };
  const char *app[] = { "--nvtx-first", "--kernels", "1", NULL };
  Run r;
  XSpace *space;
  XPlane *host;

  record (f, args, app, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  /* Recording started first, then CUPTI's NVTX entry was called. */
  g_assert_cmpint (log_index (r.log, "subscribe"), <, log_index (r.log, "nvtx_init"));
  g_assert_cmpint (log_index (r.log, "activity_enable 12"), <, log_index (r.log, "nvtx_init"));
  g_assert_nonnull (strstr (r.err, ", 2 NVTX ranges"));
  space = planar_test_read_space (r.path);
  host = planar_test_find_plane (space, "/host:CPU");
  g_assert_cmpuint (count_events (host, "NVTX:before_cuda"), ==, 1);
  g_assert_cmpuint (count_events (host, "NVTX:train_step"), ==, 1);
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
  run_clear (&r);
}

/* --duration-ms stops tracing, not the program: what it launches later is
 * not recorded, and it runs to its end. */
static void
test_record_duration (PlanarTestFixture *f,
                      gconstpointer      data)
{
  const char *args[] = { "--duration-ms", "300", NULL };
  const char *app[] = { "--kernels", "2", "--later-kernels", "5", "--sleep-ms", "1200", "--exit-code", "0", NULL };
  Run r;

  record (f, args, app, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "recorded 2 kernels"));
  /* Stopped once, before the program's end. */
  g_assert_cmpint (log_index (r.log, "finalize"), >, 0);
  g_assert_cmpint (log_index (r.log, "flush_all 1"), >, 0);
  run_clear (&r);
}

/* The command's exit status is planar-cli's, and its profile is kept. */
static void
test_record_exit_status (PlanarTestFixture *f,
                         gconstpointer      data)
{
  const char *app[] = { "--kernels", "1", "--exit-code", "3", NULL };
  Run r;

  record (f, NULL, app, NULL, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (r.path);
  g_assert_true (g_file_test (r.path, G_FILE_TEST_IS_REGULAR));
  run_clear (&r);
}

/* SIGTERM to planar-cli, once the command records, reaches the command,
 * which exits on its own, and its part is merged; @extra_env as
 * record_env()'s. */
static void
record_signal (PlanarTestFixture  *f,
               const char * const *extra_env)
{
  const char *app[] = { "--kernels", "1", "--wait-signal", NULL };
  g_auto(GStrv) argv = record_argv (f, NULL, app);
  g_auto(GStrv) env = record_env (f, extra_env);
  g_autofree char *log_path = g_build_filename (f->dir, "cupti.log", NULL);
  g_autoptr(GError) error = NULL;
  GPid pid;
  int out_fd;
  int status;
  gboolean started = FALSE;
  GString *out = g_string_new (NULL);
  char chunk[4096];
  ssize_t n;
  g_autofree char *path = NULL;

  g_unlink (log_path);
  g_spawn_async_with_pipes (NULL, argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd, NULL,
                            &error);
  g_assert_no_error (error);
  /* Wait (10 s at most) until tracing runs in the command. */
  for (guint i = 0; i < 1000 && !started; i++)
    {
      g_autofree char *log = NULL;

      g_usleep (10000);
      if (g_file_get_contents (log_path, &log, NULL, NULL) && strstr (log, "activity_enable 17") != NULL)
        started = TRUE;
    }
  g_assert_true (started);
  g_assert_cmpint (kill (pid, SIGTERM), ==, 0);
  while ((n = read (out_fd, chunk, sizeof chunk)) > 0)
    g_string_append_len (out, chunk, n);
  close (out_fd);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  /* The command saw SIGTERM and exited 42; the recording was kept. */
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 42);
  g_assert_nonnull (strstr (out->str, "fake-cuda-app: signal 15"));
  path = printed_path (out->str);
  g_assert_nonnull (path);
  g_string_free (out, TRUE);
}

static void
test_record_signal (PlanarTestFixture *f,
                    gconstpointer      data)
{
  record_signal (f, NULL);
}

/* The same SIGTERM while planar-cli has started the command but not yet
 * set itself to hand signals on (held there 3 s by the test's variable):
 * it is handed on once planar-cli is ready, instead of ending planar-cli
 * with the command left recording alone. */
static void
test_record_signal_early (PlanarTestFixture *f,
                          gconstpointer      data)
{
  const char *env[] = { "PLANAR_RECORD_TEST_FORK_DELAY_MS", "3000", NULL };

  record_signal (f, env);
}

/* Over PLANAR_RECORD_MAX_EVENTS: the rest is dropped and counted, and the
 * XSpace warns as XLA's does. */
static void
test_record_caps (PlanarTestFixture *f,
                  gconstpointer      data)
{
  const char *app[] = { "--kernels", "20", NULL };
  const char *env[] = { "PLANAR_RECORD_MAX_EVENTS", "5", NULL };
  Run r;
  XSpace *space;
  gboolean warned = FALSE;

  record (f, NULL, app, env, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "events dropped"));
  space = planar_test_read_space (r.path);
  g_assert_cmpuint (count_events (planar_test_find_plane (space, "/device:GPU:0"), ""), <=, 5 + 1);
  g_assert_cmpuint (count_events (planar_test_find_plane (space, "/host:CPU"), "cu"), <=, 5);
  for (gsize i = 0; i < space->n_warnings; i++)
    if (strstr (space->warnings[i], "Detected GPU events dropped on") != NULL)
      warned = TRUE;
  g_assert_true (warned);
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
  run_clear (&r);
}

/* Failures: each one clear line and a non-zero exit. */
static void
test_record_failures (PlanarTestFixture *f,
                      gconstpointer      data)
{
  const char *app[] = { "--kernels", "1", NULL };
  const char *no_cuda[] = { "--no-cuda", NULL };
  const char *denied[] = { "FAKE_CUPTI_DENY", "1", NULL };
  const char *missing[] = { "PLANAR_CUPTI_LIBRARY", "/nonexistent/libcupti.so", NULL };
  Run r;

  /* CUPTI refuses (no profiling permission): the reason, from inside the
   * program, and the session kept for it. */
  record (f, NULL, app, denied, &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "planar-cli: nothing was recorded: CUPTI needs the right"));
  g_assert_nonnull (r.path);
  run_clear (&r);

  record (f, NULL, app, missing, &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.err, ==, "planar-cli: PLANAR_CUPTI_LIBRARY=/nonexistent/libcupti.so cannot be loaded: "
                              "/nonexistent/libcupti.so: cannot open shared object file: No such file or directory\n");
  run_clear (&r);

  record (f, NULL, no_cuda, NULL, &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "planar-cli: nothing was recorded"));
  g_assert_null (r.path);
  run_clear (&r);

  {
    const char *argv[] = { g_getenv ("PLANAR_CLI"), "record", "--logdir", f->dir, "--", "/nonexistent/program", NULL };
    g_auto(GStrv) env = record_env (f, NULL);
    g_autofree char *err = NULL;
    g_autoptr(GError) error = NULL;
    int status;

    g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error);
    g_assert_no_error (error);
    g_assert_cmpint (WEXITSTATUS (status), ==, 127);
    g_assert_cmpstr (err, ==, "planar-cli: cannot run /nonexistent/program: No such file or directory\n");
  }
}

/* Inside someone else's program: libc (libdl, libpthread) only, and one
 * exported function. */
static void
test_injection_library (PlanarTestFixture *f,
                        gconstpointer      data)
{
  const char *lib = g_getenv ("PLANAR_CUPTI_INJECTION_BUILT");
  g_autofree char *readelf = g_find_program_in_path ("readelf");
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  guint n_needed = 0;

  if (readelf == NULL)
    {
      g_test_skip ("readelf is not installed");
      return;
    }
  {
    const char *argv[] = { readelf, "-d", "-W", lib, NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, NULL, &error);
    g_assert_no_error (error);
  }
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *open = strstr (lines[i], "(NEEDED)");
      const char *name;

      if (open == NULL)
        continue;
      name = strchr (lines[i], '[');
      g_assert_nonnull (name);
      n_needed++;
      if (!(g_str_has_prefix (name, "[libc.so") || g_str_has_prefix (name, "[libdl.so")
            || g_str_has_prefix (name, "[libpthread.so") || g_str_has_prefix (name, "[ld-linux")
            /* The sanitizer builds add their runtimes. */
            || g_str_has_prefix (name, "[libasan.so") || g_str_has_prefix (name, "[libubsan.so")
            || g_str_has_prefix (name, "[libm.so")))
        g_error ("libplanar-cupti.so needs %s", name);
    }
  g_assert_cmpuint (n_needed, >, 0);

  g_clear_pointer (&out, g_free);
  {
    g_autofree char *nm = g_find_program_in_path ("nm");
    const char *argv[] = { nm, "-D", "--defined-only", lib, NULL };
    guint n_functions = 0;

    if (nm == NULL)
      return;
    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, NULL, &error);
    g_assert_no_error (error);
    g_strfreev (lines);
    lines = g_strsplit (out, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++)
      if (strstr (lines[i], " T ") != NULL)
        {
          /* The driver's entry and NVTX's, nothing else. */
          g_assert_true (g_str_has_suffix (lines[i], " T InitializeInjection") ||
                         g_str_has_suffix (lines[i], " T InitializeInjectionNvtx2"));
          n_functions++;
        }
    g_assert_cmpuint (n_functions, ==, 2);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  PLANAR_TEST_ADD ("/cupti/decode", test_decode);
  PLANAR_TEST_ADD ("/cupti/injection-library", test_injection_library);
  PLANAR_TEST_ADD ("/cupti/record/basic", test_record_basic);
  PLANAR_TEST_ADD ("/cupti/record/children", test_record_children);
  PLANAR_TEST_ADD ("/cupti/record/children-own-gpus", test_record_children_own_gpus);
  PLANAR_TEST_ADD ("/cupti/record/nvtx", test_record_nvtx);
  PLANAR_TEST_ADD ("/cupti/record/nvtx-before-cuda", test_record_nvtx_before_cuda);
  PLANAR_TEST_ADD ("/cupti/record/duration", test_record_duration);
  PLANAR_TEST_ADD ("/cupti/record/exit-status", test_record_exit_status);
  PLANAR_TEST_ADD ("/cupti/record/signal", test_record_signal);
  PLANAR_TEST_ADD ("/cupti/record/signal-early", test_record_signal_early);
  PLANAR_TEST_ADD ("/cupti/record/caps", test_record_caps);
  PLANAR_TEST_ADD ("/cupti/record/failures", test_record_failures);
  return g_test_run ();
}
