/* planar-gen.c: writes realistic synthetic XSpace profiles (*.xplane.pb).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The profiles feed the benchmarks (1e5 to 1e8 events), the scale tests and
 * the demo, so three properties matter more than anything else:
 *
 *  - The encoder is our own and shares nothing with the loader (or with
 *    protobuf-c), so a bug in one cannot hide the same bug in the other.
 *    This is on purpose the one XSpace writer outside the model's
 *    PlanarXSpaceWriter (model/io/planar-xspace-writer.c): the generator is
 *    an independent oracle for the reader, so its field numbers are typed
 *    here and it must not be ported to the model's writer.
 *  - Output is streamed. An XPlane is length-prefixed, so its size must be
 *    known before its first byte is written; instead of building the plane in
 *    memory every line is generated twice from stateless, seed-keyed random
 *    draws: once to measure it and once to write it. Memory stays O(1) in
 *    the number of events.
 *  - The shape does not depend on the event count: the budget is spent in
 *    whole "training steps" of fixed composition, plus a small share of
 *    background host activity that absorbs the remainder, so stats per event
 *    stay constant and bytes per event nearly so (only the varints of
 *    offsets and ids widen as a longer profile needs bigger numbers).
 *
 * The content follows what XLA writes for a JAX program on two GPUs (host
 * TraceMe nesting, CUPTI kernels and memcpys correlated with their launches,
 * power counters), plus a TPU-like plane with native Steps / XLA Modules /
 * XLA Ops lines and a Task Environment plane.
 */

#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_BAD_ARGUMENTS 2
#define EXIT_IO_FAILURE    1

/* The session start of every generated profile is 2026-01-01 00:00:00 UTC
 * plus a seed-derived offset, in wall-clock nanoseconds. */
#define EPOCH_BASE_NS G_GUINT64_CONSTANT (1767225600000000000)

#define STEP_PERIOD_NS         G_GINT64_CONSTANT (4000000)
#define N_GPUS                 2
#define N_GPU_STREAMS          4
#define COUNTER_SAMPLES_PER_STEP 2
#define FILLER_EVENTS_PER_STEP 12
#define MAX_LINES              8
#define MAX_EVENT_STATS        7
#define MAX_EVENT_SIZE         1024
#define SINK_BUFFER_SIZE       (1 << 20)
#define MAX_EVENTS             G_GUINT64_CONSTANT (100000000000)

#define DEMO_SEED      42
#define DEMO_EVENTS    100000
#define DEMO_HOSTS     2
#define DEMO_SESSION   "2026_01_01_00_00_00"

#define HLO_MODULE     "jit_train_step"
#define PROGRAM_ID     42

/* --hlo: a /host:metadata plane with the HloProto of PROGRAM_ID, and a
 * program_id on every GPU kernel; --hlo-instructions: that many more
 * instructions in the module (for scale). Off by default, so that the
 * default outputs stay the bytes tests and benchmarks compare. */
static gboolean gen_hlo;
static guint64  gen_hlo_padding;
/* --no-group-ids: the GPUs' events carry no group_id, as in the profiles
 * JAX writes, whose steps only the host's root events (`_r`, step_num)
 * mark. Off by default, as --hlo. */
static gboolean gen_no_group_ids;
/* --hlo-programs N: the module compiled N times (programs PROGRAM_ID ..
 * PROGRAM_ID + N - 1, as a jitted function recompiled for new shapes is),
 * step s's kernels running program PROGRAM_ID + s % N. */
static guint64  gen_hlo_programs = 1;

/* Wire types, docs/formats.md §1.2. */
enum
{
  WIRE_VARINT = 0,
  WIRE_I64 = 1,
  WIRE_LEN = 2,
};

/* ------------------------------------------------------------------------
 * The workload
 * ------------------------------------------------------------------------ */

typedef enum
{
  OP_KERNEL,
  OP_MEMCPY_H2D,
  OP_MEMCPY_D2H,
} GpuOpKind;

typedef struct
{
  gint64      id;
  const char *name;
} GpuStream;

/* Stream ids as CUPTI hands them out to XLA: the compute stream, a stream for
 * the asynchronous collectives, and one stream per copy direction. */
static const GpuStream gpu_streams[N_GPU_STREAMS] = {
  { 7, "Stream #7(Compute)" },
  { 13, "Stream #13(Compute)" },
  { 14, "Stream #14(MemcpyH2D)" },
  { 15, "Stream #15(MemcpyD2H)" },
};

typedef struct
{
  GpuOpKind   kind;
  guint       stream;      /* index into gpu_streams */
  gint64      base_ns;     /* typical duration on the device */
  const char *name;        /* demangled kernel name, or the memcpy type */
  const char *hlo_op;      /* NULL for memcpys */
  const char *details;     /* kernel_details text; NULL for memcpys */
  guint64     bytes;       /* memcpy size */
} GpuOp;

/* One training step of "jit_train_step" on one GPU, in launch order. The
 * compute stream's work (about 1.7 ms) fits well inside a step period, so
 * consecutive steps never overlap on a stream and each step can be laid out
 * without knowing the previous one. */
static const GpuOp gpu_program[] = {
  { OP_MEMCPY_H2D, 2, 170000, "MemcpyH2D", NULL, NULL, 8388608 },
  { OP_KERNEL, 0, 45000, "input_concatenate_fusion", "input_concatenate_fusion",
    "regs:26 static_shared:0 dynamic_shared:0 grid:1024,1,1 block:256,1,1 occ_pct:100", 0 },
  { OP_KERNEL, 0, 30000, "loop_convert_fusion_2", "loop_convert_fusion.2",
    "regs:16 static_shared:0 dynamic_shared:0 grid:2048,1,1 block:128,1,1 occ_pct:100", 0 },
  { OP_KERNEL, 0, 210000, "gemm_fusion_dot_3", "gemm_fusion_dot.3",
    "regs:168 static_shared:0 dynamic_shared:98304 grid:132,1,1 block:384,1,1 occ_pct:18.75", 0 },
  { OP_KERNEL, 0, 260000,
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
    "custom-call.4",
    "regs:168 static_shared:0 dynamic_shared:213248 grid:132,1,1 block:384,1,1 occ_pct:18.75", 0 },
  { OP_KERNEL, 0, 40000, "loop_fusion_12", "loop_fusion.12",
    "regs:32 static_shared:0 dynamic_shared:49152 grid:132,1,1 block:384,1,1 occ_pct:50", 0 },
  { OP_KERNEL, 0, 320000,
    "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, false, true, false, false, true, true, false, false>(Flash_fwd_params)",
    "custom-call.6",
    "regs:255 static_shared:0 dynamic_shared:81920 grid:8,16,4 block:128,1,1 occ_pct:12.5", 0 },
  { OP_KERNEL, 0, 55000, "triton_softmax_3", "triton_softmax.3",
    "regs:40 static_shared:0 dynamic_shared:16384 grid:4096,1,1 block:128,1,1 occ_pct:75", 0 },
  { OP_KERNEL, 1, 120000, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "all-gather-start.1",
    "regs:94 static_shared:0 dynamic_shared:0 grid:2,1,1 block:512,1,1 occ_pct:25", 0 },
  { OP_KERNEL, 0, 35000, "input_reduce_fusion_1", "input_reduce_fusion.1",
    "regs:30 static_shared:1024 dynamic_shared:0 grid:528,1,1 block:256,1,1 occ_pct:100", 0 },
  { OP_KERNEL, 0, 240000,
    "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8::Params)",
    "custom-call.10",
    "regs:230 static_shared:0 dynamic_shared:73728 grid:64,2,1 block:256,1,1 occ_pct:12.5", 0 },
  { OP_KERNEL, 0, 28000, "loop_multiply_fusion_4", "loop_multiply_fusion.4",
    "regs:18 static_shared:0 dynamic_shared:0 grid:1056,1,1 block:256,1,1 occ_pct:100", 0 },
  { OP_KERNEL, 0, 33000, "transpose_fusion_6", "transpose_fusion.6",
    "regs:28 static_shared:4224 dynamic_shared:0 grid:512,4,1 block:32,8,1 occ_pct:87.5", 0 },
  { OP_KERNEL, 1, 140000,
    "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "reduce-scatter.2",
    "regs:96 static_shared:0 dynamic_shared:0 grid:2,1,1 block:512,1,1 occ_pct:25", 0 },
  { OP_KERNEL, 0, 190000, "gemm_fusion_dot_21", "gemm_fusion_dot.21",
    "regs:168 static_shared:0 dynamic_shared:98304 grid:264,1,1 block:384,1,1 occ_pct:18.75", 0 },
  { OP_KERNEL, 0, 22000, "loop_select_fusion_1", "loop_select_fusion.1",
    "regs:20 static_shared:0 dynamic_shared:0 grid:528,1,1 block:256,1,1 occ_pct:100", 0 },
  { OP_KERNEL, 0, 60000, "input_scatter_fusion_3", "input_scatter_fusion.3",
    "regs:38 static_shared:0 dynamic_shared:0 grid:1320,1,1 block:128,1,1 occ_pct:87.5", 0 },
  { OP_KERNEL, 0, 12000, "wrapped_slice", "wrapped_slice",
    "regs:16 static_shared:0 dynamic_shared:0 grid:64,1,1 block:128,1,1 occ_pct:100", 0 },
  { OP_KERNEL, 1, 150000,
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "all-reduce-start.3",
    "regs:96 static_shared:0 dynamic_shared:0 grid:2,1,1 block:512,1,1 occ_pct:25", 0 },
  { OP_KERNEL, 0, 48000, "loop_add_fusion_17", "loop_add_fusion.17",
    "regs:24 static_shared:0 dynamic_shared:0 grid:1056,1,1 block:256,1,1 occ_pct:100", 0 },
  { OP_KERNEL, 0, 26000, "dynamic_update_slice_fusion_2", "dynamic_update_slice_fusion.2",
    "regs:22 static_shared:0 dynamic_shared:0 grid:256,1,1 block:256,1,1 occ_pct:100", 0 },
  { OP_KERNEL, 0, 15000, "loop_broadcast_fusion", "loop_broadcast_fusion",
    "regs:12 static_shared:0 dynamic_shared:0 grid:132,1,1 block:1024,1,1 occ_pct:100", 0 },
  { OP_KERNEL, 1, 90000,
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "all-reduce-start.4",
    "regs:96 static_shared:0 dynamic_shared:0 grid:2,1,1 block:512,1,1 occ_pct:25", 0 },
  { OP_MEMCPY_D2H, 3, 35000, "MemcpyD2H", NULL, NULL, 65536 },
};

#define N_GPU_OPS G_N_ELEMENTS (gpu_program)

typedef struct
{
  const char *name;
  guint       depth;       /* nesting level on the XLA Ops line */
  gint64      base_ns;     /* duration of a leaf; parents span their children */
  const char *category;
  const char *tf_op;
  gint64      flops;
  gint64      bytes_accessed;
} TpuOp;

/* The same step as the TPU runtime shows it: ops in pre-order, with a while
 * loop and a call nesting the ops of their bodies. */
static const TpuOp tpu_program[] = {
  { "fusion.1", 0, 60000, "loop fusion", "jit(train_step)/jit(main)/convert_element_type", 4194304, 25165824 },
  { "convolution.2", 0, 220000, "convolution", "jit(train_step)/jit(main)/conv_general_dilated", 412316860416, 201326592 },
  { "fusion.3", 0, 180000, "convolution fusion", "jit(train_step)/jit(main)/dense/dot_general", 274877906944, 167772160 },
  { "while.4", 0, 0, "control flow", "jit(train_step)/jit(main)/while", 0, 0 },
  { "fusion.5", 1, 40000, "loop fusion", "jit(train_step)/jit(main)/while/body/add", 8388608, 50331648 },
  { "call.6", 1, 0, "control flow", "jit(train_step)/jit(main)/while/body/remat", 0, 0 },
  { "fusion.7", 2, 90000, "convolution fusion", "jit(train_step)/jit(main)/while/body/remat/dot_general", 68719476736, 83886080 },
  { "copy.8", 2, 20000, "data formatting", "jit(train_step)/jit(main)/while/body/remat/transpose", 0, 33554432 },
  { "fusion.9", 1, 70000, "output fusion", "jit(train_step)/jit(main)/while/body/mul", 16777216, 67108864 },
  { "all-reduce.10", 0, 150000, "all-reduce", "jit(train_step)/jit(main)/psum", 33554432, 134217728 },
  { "fusion.11", 0, 35000, "loop fusion", "jit(train_step)/jit(main)/optimizer/sub", 8388608, 100663296 },
  { "reduce.12", 0, 25000, "non-fusion elementwise", "jit(train_step)/jit(main)/reduce_sum", 2097152, 8388608 },
  { "copy-start.13", 0, 10000, "data formatting", "jit(train_step)/jit(main)/device_put", 0, 16777216 },
  { "copy-done.14", 0, 12000, "data formatting", "jit(train_step)/jit(main)/device_put", 0, 16777216 },
  { "fusion.15", 0, 45000, "loop fusion", "jit(train_step)/jit(main)/optimizer/mul", 8388608, 100663296 },
  { "transpose.16", 0, 30000, "data formatting", "jit(train_step)/jit(main)/transpose", 0, 33554432 },
};

#define N_TPU_OPS G_N_ELEMENTS (tpu_program)
#define TPU_MAX_DEPTH 3

typedef struct
{
  const char *parent;
  const char *children[3];
  const char *parent_stat;   /* int64 stat on the parent, or NULL */
  const char *child_tf_op;   /* tf_op string on the children, or NULL */
} FillerKind;

/* Background activity of the threads that do not drive the GPUs. */
static const FillerKind filler_kinds[] = {
  { "TransferH2DRequest", { "cuMemcpyHtoDAsync_v2", "cuEventRecord", "cuStreamWaitEvent" },
    "bytes_transferred", NULL },
  { "ThreadpoolListener::Region", { "fusion.3", "dot.7", "copy.12" },
    NULL, "jit(preprocess)/jit(main)/dot_general" },
  { "IteratorGetNextOp::DoCompute", { "Iterator::Prefetch::Generator", "Iterator::Map", "Iterator::Batch" },
    "element_id", NULL },
  { "$data.py:88 __next__", { "$collate.py:41 collate", "$builtins isinstance", "$numpy.core.multiarray concatenate" },
    NULL, NULL },
};

enum
{
  FILLER_TRANSFER,
  FILLER_EIGEN,
  FILLER_DATA,
  FILLER_PYTHON,
  N_FILLER_KINDS,
  THREAD_MAIN = -1,
};

typedef struct
{
  gint64      tid;
  const char *name;
  int         kind;   /* FILLER_* or THREAD_MAIN */
} HostThread;

/* Sorted by name, as XLA's post-processing leaves the host lines. */
static const HostThread host_threads[] = {
  { 4257, "pjrt_thread", FILLER_TRANSFER },
  { 4242, "python3", THREAD_MAIN },
  { 4281, "python3", FILLER_PYTHON },
  { 4261, "tf_XLAEigen/4261", FILLER_EIGEN },
  { 4262, "tf_XLAEigen/4262", FILLER_EIGEN },
  { 4263, "tf_XLAEigen/4263", FILLER_EIGEN },
  { 4264, "tf_XLAEigen/4264", FILLER_EIGEN },
  { 4270, "tf_data_private_threadpool", FILLER_DATA },
};

#define N_HOST_THREADS   G_N_ELEMENTS (host_threads)
#define N_FILLER_THREADS (N_HOST_THREADS - 1)

G_STATIC_ASSERT (N_HOST_THREADS <= MAX_LINES);
G_STATIC_ASSERT (N_GPU_STREAMS + 1 <= MAX_LINES);

/* Events of one step, all planes together; the filler share comes on top. */
#define HOST_MAIN_EVENTS_PER_STEP (3 + N_GPUS * (2 + N_GPU_OPS))
#define FIXED_EVENTS_PER_STEP \
  (HOST_MAIN_EVENTS_PER_STEP + N_GPUS * N_GPU_OPS \
   + N_GPUS * COUNTER_SAMPLES_PER_STEP + 2 + N_TPU_OPS)

/* ------------------------------------------------------------------------
 * One host's profile, and its deterministic randomness
 * ------------------------------------------------------------------------ */

typedef struct
{
  guint64  seed;              /* mixed from --seed and the host index */
  guint    host_index;
  guint64  n_events;
  guint64  n_steps;
  guint64  filler_events[N_FILLER_THREADS];
  gint64   span_ns;           /* time covered by the steps */
  guint64  start_time_ns;     /* profile_start_time, wall clock */
  guint64  stop_time_ns;
  gint64   gpu_line_ts_ns;    /* relative to the profile start */
  gboolean epoch_timestamps;
  gboolean task_environment;
  gboolean host_offload;      /* the TPU's copies go to the host's memory */
} Profile;

/* What a random draw decides; part of its key so that draws are independent. */
typedef enum
{
  DRAW_HOST_START = 1,
  DRAW_GPU_LINE_TS,
  DRAW_STEP_START,
  DRAW_PJIT_START,
  DRAW_EXEC_START,
  DRAW_MODULE_START,
  DRAW_THUNK_START,
  DRAW_LAUNCH,
  DRAW_THUNK_END,
  DRAW_MODULE_END,
  DRAW_EXEC_END,
  DRAW_PJIT_END,
  DRAW_STEP_END,
  DRAW_DURATION,
  DRAW_POWER_TIME,
  DRAW_POWER_VALUE,
  DRAW_TPU_STEP,
  DRAW_TPU_OP,
  DRAW_FILLER_SIZE,
  DRAW_FILLER_TIME,
  DRAW_FILLER_STAT,
} DrawPurpose;

static inline guint64
mix64 (guint64 x)
{
  /* The splitmix64 finalizer: cheap, and good enough to decorrelate keys. */
  x ^= x >> 30;
  x *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= G_GUINT64_CONSTANT (0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

/* Every random decision is a pure function of the seed and of what it
 * decides, never of a PRNG's position, so a line can be regenerated in any
 * order and a GPU stream agrees with the host thread that launched it. */
static inline guint64
draw (const Profile *profile,
      DrawPurpose    purpose,
      guint64        a,
      guint64        b)
{
  return mix64 (profile->seed
                ^ mix64 ((guint64) purpose * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)
                         + a * G_GUINT64_CONSTANT (0xd1b54a32d192ed03)
                         + b * G_GUINT64_CONSTANT (0x8cb92ba72f3d8dd7)));
}

static inline gint64
draw_range (const Profile *profile,
            DrawPurpose    purpose,
            guint64        a,
            guint64        b,
            gint64         span)
{
  return (gint64) (draw (profile, purpose, a, b) % (guint64) span);
}

static void
profile_init (Profile  *profile,
              guint64   seed,
              guint     host_index,
              guint64   n_events,
              gboolean  epoch_timestamps,
              gboolean  task_environment)
{
  guint64 filler;
  guint64 session_ms;

  memset (profile, 0, sizeof *profile);
  profile->seed = mix64 (seed ^ mix64 (host_index + G_GUINT64_CONSTANT (0x5851f42d4c957f2d)));
  profile->host_index = host_index;
  profile->n_events = n_events;
  profile->epoch_timestamps = epoch_timestamps;
  profile->task_environment = task_environment;

  profile->n_steps = n_events / (FIXED_EVENTS_PER_STEP + FILLER_EVENTS_PER_STEP);
  filler = n_events - profile->n_steps * FIXED_EVENTS_PER_STEP;
  for (guint i = 0; i < N_FILLER_THREADS; i++)
    profile->filler_events[i] = filler / N_FILLER_THREADS + (i < filler % N_FILLER_THREADS);
  profile->span_ns = (gint64) MAX (profile->n_steps, 1) * STEP_PERIOD_NS;

  /* Hosts of one session share the session start (which depends on the
   * seed only) and start tracing a few milliseconds apart. */
  session_ms = mix64 (seed + 1) % 1000;
  profile->start_time_ns = EPOCH_BASE_NS + session_ms * 1000000
                           + host_index * G_GUINT64_CONSTANT (4000000)
                           + (guint64) draw_range (profile, DRAW_HOST_START, 0, 0, 1000000);
  profile->stop_time_ns = profile->start_time_ns + (guint64) profile->span_ns + 1000000;
  profile->gpu_line_ts_ns = 2000 + draw_range (profile, DRAW_GPU_LINE_TS, 0, 0, 8000);
}

/* ------------------------------------------------------------------------
 * Timing of one step
 * ------------------------------------------------------------------------ */

typedef struct
{
  gint64 step_start;
  gint64 pjit_start;
  gint64 exec_start;
} StepHead;

typedef struct
{
  gint64 launch_start, launch_end;
  gint64 start, end;
} OpTimes;

typedef struct
{
  gint64  module_start, module_end;
  gint64  thunk_start, thunk_end;
  OpTimes ops[N_GPU_OPS];
} GpuStep;

/* Launches are spaced wider than their longest duration, so they never
 * overlap; each GPU's block of launches is wider than the launches it holds. */
#define LAUNCH_SPACING_NS 12000
#define GPU_BLOCK_NS      (N_GPU_OPS * LAUNCH_SPACING_NS + 22000)

static void
schedule_step_head (const Profile *profile,
                    guint64        step,
                    StepHead      *head)
{
  head->step_start = (gint64) step * STEP_PERIOD_NS + 20000
                     + draw_range (profile, DRAW_STEP_START, step, 0, 10000);
  head->pjit_start = head->step_start + 3000
                     + draw_range (profile, DRAW_PJIT_START, step, 0, 2000);
  head->exec_start = head->pjit_start + 8000
                     + draw_range (profile, DRAW_EXEC_START, step, 0, 4000);
}

static guint64
correlation_id (guint64 step,
                guint   gpu,
                guint   op)
{
  return 1 + (step * N_GPUS + gpu) * N_GPU_OPS + op;
}

/* A 12-bit slice of a draw: one draw carries the jitter of several
 * quantities, which keeps the per-op cost low (spans must not exceed 4096). */
static inline gint64
draw_slice (guint64 bits,
            guint   slice,
            gint64  span)
{
  return (gint64) ((bits >> (12 * slice)) & 0xfff) % span;
}

/* Indices into gpu_streams. */
#define COMPUTE_STREAM 0
#define D2H_STREAM     3

/* Lays out one step of one GPU. Only the device times of ops on @streams
 * (a bit mask of gpu_streams indices) are computed, and the host side
 * (all launches, thunk and module ends) only with @with_host; the rest of
 * @out is left unset. Each line asks for what it writes, since this runs for
 * every line in both passes. */
static void
schedule_gpu_step (const Profile  *profile,
                   guint64         step,
                   guint           gpu,
                   const StepHead *head,
                   guint           streams,
                   gboolean        with_host,
                   GpuStep        *out)
{
  gint64 stream_free[N_GPU_STREAMS] = { 0 };
  gint64 compute_end = 0;
  guint64 key = (guint64) gpu << 16;

  /* The copy back waits for the compute stream, as a step's result does. */
  if (streams & (1u << D2H_STREAM))
    streams |= 1u << COMPUTE_STREAM;

  out->module_start = head->exec_start + 4000 + (gint64) gpu * GPU_BLOCK_NS
                      + draw_range (profile, DRAW_MODULE_START, step, key, 1000);
  out->thunk_start = out->module_start + 2000
                     + draw_range (profile, DRAW_THUNK_START, step, key, 1000);

  for (guint j = 0; j < N_GPU_OPS; j++)
    {
      const GpuOp *op = &gpu_program[j];
      OpTimes *t = &out->ops[j];
      guint64 bits;
      gint64 ready;

      if (!with_host && (streams & (1u << op->stream)) == 0)
        continue;

      bits = draw (profile, DRAW_LAUNCH, step, key | j);
      t->launch_start = out->thunk_start + 3000 + (gint64) j * LAUNCH_SPACING_NS
                        + draw_slice (bits, 0, 4000);
      t->launch_end = t->launch_start + 3000 + draw_slice (bits, 1, 4000);
      if ((streams & (1u << op->stream)) == 0)
        continue;

      /* The device picks the work up a few microseconds after the API call
       * started, or when the stream is free. */
      ready = t->launch_start + 4000 + draw_slice (bits, 2, 4000);
      if (op->kind == OP_MEMCPY_D2H)
        ready = MAX (ready, compute_end + 2000);
      t->start = MAX (ready, stream_free[op->stream] + 1000 + draw_slice (bits, 3, 2000));
      t->end = t->start + op->base_ns * (85 + draw_slice (bits, 4, 31)) / 100;
      stream_free[op->stream] = t->end;
      if (op->stream == COMPUTE_STREAM)
        compute_end = t->end;
    }

  if (with_host)
    {
      out->thunk_end = out->ops[N_GPU_OPS - 1].launch_end + 1500
                       + draw_range (profile, DRAW_THUNK_END, step, key, 1000);
      out->module_end = out->thunk_end + 1000
                        + draw_range (profile, DRAW_MODULE_END, step, key, 1000);
    }
}

typedef struct
{
  gint64 step_start, step_end;
  gint64 module_start, module_end;
  gint64 op_start[N_TPU_OPS], op_end[N_TPU_OPS];
} TpuStep;

static void
schedule_tpu_step (const Profile *profile,
                   guint64        step,
                   TpuStep       *out)
{
  guint stack[TPU_MAX_DEPTH];
  guint depth = 0;
  gint64 cursor;

  out->step_start = (gint64) step * STEP_PERIOD_NS + 100000
                    + draw_range (profile, DRAW_TPU_STEP, step, 0, 10000);
  out->module_start = out->step_start + 5000
                      + draw_range (profile, DRAW_TPU_STEP, step, 1, 3000);

  /* Lay the ops out in pre-order; a parent closes shortly after its last
   * child, so children lie strictly inside their parents. */
  cursor = out->module_start + 2000;
  for (guint i = 0; i <= N_TPU_OPS; i++)
    {
      guint level = i < N_TPU_OPS ? tpu_program[i].depth : 0;

      while (depth > 0 && tpu_program[stack[depth - 1]].depth >= level)
        {
          guint k = stack[--depth];

          out->op_end[k] = cursor + 500;
          cursor = out->op_end[k] + 1000 + draw_range (profile, DRAW_TPU_OP, step, k, 2000);
        }
      if (i == N_TPU_OPS)
        break;

      out->op_start[i] = cursor;
      if (i + 1 < N_TPU_OPS && tpu_program[i + 1].depth > level)
        {
          g_assert (depth < TPU_MAX_DEPTH);
          stack[depth++] = i;
          cursor = out->op_start[i] + 700;
        }
      else
        {
          out->op_end[i] = out->op_start[i] + tpu_program[i].base_ns
                           * (90 + draw_range (profile, DRAW_DURATION, step, 0x10000 | i, 21)) / 100;
          cursor = out->op_end[i] + 1000 + draw_range (profile, DRAW_TPU_OP, step, i, 2000);
        }
    }

  out->module_end = cursor + 1000;
  out->step_end = out->module_end + 4000 + draw_range (profile, DRAW_TPU_STEP, step, 2, 2000);
}

/* ------------------------------------------------------------------------
 * Wire encoding
 * ------------------------------------------------------------------------ */

/* Bytes of a varint by the number of significant bits of its value. */
static const guint8 varint_sizes[65] = {
  1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3,
  4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6,
  7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10,
};

static inline guint
varint_size (guint64 v)
{
  /* This runs for every field of every event, twice. */
#if defined(__GNUC__)
  return varint_sizes[64 - __builtin_clzll (v | 1)];
#else
  guint bits = 1;

  while (v >>= 1)
    bits++;
  return varint_sizes[bits];
#endif
}

static inline guint8 *
put_varint (guint8  *p,
            guint64  v)
{
  while (v >= 0x80)
    {
      *p++ = (guint8) (v | 0x80);
      v >>= 7;
    }
  *p++ = (guint8) v;
  return p;
}

static inline guint8 *
put_tag (guint8 *p,
         guint   field,
         guint   wire_type)
{
  return put_varint (p, (field << 3) | wire_type);
}

/* The size of a length-delimited field with a one-byte tag (every field
 * number in xplane.proto is below 16). */
static inline guint64
len_field_size (guint64 len)
{
  return 1 + varint_size (len) + len;
}

typedef enum
{
  STAT_DOUBLE = 2,
  STAT_UINT64 = 3,
  STAT_INT64 = 4,
  STAT_STR = 5,
  STAT_REF = 7,
} StatKind;   /* the values are XStat's field numbers */

typedef struct
{
  guint32  metadata_id;
  StatKind kind;
  union
  {
    double      d;
    guint64     u;
    gint64      i;
    const char *s;
  } v;
} Stat;

typedef struct
{
  guint32 metadata_id;
  guint   n_stats;
  gint64  start_ns;     /* relative to the profile start */
  gint64  duration_ns;
  Stat    stats[MAX_EVENT_STATS];
} Event;

static inline Stat
stat_int (guint32 id,
          gint64  value)
{
  return (Stat) { .metadata_id = id, .kind = STAT_INT64, .v.i = value };
}

static inline Stat
stat_uint (guint32 id,
           guint64 value)
{
  return (Stat) { .metadata_id = id, .kind = STAT_UINT64, .v.u = value };
}

static inline Stat
stat_double (guint32 id,
             double  value)
{
  return (Stat) { .metadata_id = id, .kind = STAT_DOUBLE, .v.d = value };
}

static inline Stat
stat_str (guint32     id,
          const char *value)
{
  return (Stat) { .metadata_id = id, .kind = STAT_STR, .v.s = value };
}

static inline Stat
stat_ref (guint32 id,
          guint32 value_id)
{
  return (Stat) { .metadata_id = id, .kind = STAT_REF, .v.u = value_id };
}

/* Size of an XStat message body. The value is a oneof member, so it is
 * written even when it is zero. */
static inline gsize
stat_body_size (const Stat *stat)
{
  gsize size = 1 + varint_size (stat->metadata_id) + 1;

  switch (stat->kind)
    {
    case STAT_DOUBLE:
      return size + 8;
    case STAT_UINT64:
    case STAT_REF:
      return size + varint_size (stat->v.u);
    case STAT_INT64:
      return size + varint_size ((guint64) stat->v.i);
    case STAT_STR:
      {
        gsize len = strlen (stat->v.s);

        return size + varint_size (len) + len;
      }
    default:
      g_assert_not_reached ();
    }
}

static inline guint8 *
put_stat_body (guint8     *p,
               const Stat *stat)
{
  p = put_tag (p, 1, WIRE_VARINT);
  p = put_varint (p, stat->metadata_id);

  switch (stat->kind)
    {
    case STAT_DOUBLE:
      {
        guint64 bits;

        memcpy (&bits, &stat->v.d, sizeof bits);
        bits = GUINT64_TO_LE (bits);
        p = put_tag (p, STAT_DOUBLE, WIRE_I64);
        memcpy (p, &bits, sizeof bits);
        return p + sizeof bits;
      }
    case STAT_UINT64:
    case STAT_REF:
      p = put_tag (p, stat->kind, WIRE_VARINT);
      return put_varint (p, stat->v.u);
    case STAT_INT64:
      p = put_tag (p, stat->kind, WIRE_VARINT);
      return put_varint (p, (guint64) stat->v.i);
    case STAT_STR:
      {
        gsize len = strlen (stat->v.s);

        p = put_tag (p, stat->kind, WIRE_LEN);
        p = put_varint (p, len);
        memcpy (p, stat->v.s, len);
        return p + len;
      }
    default:
      g_assert_not_reached ();
    }
}

/* Size of an XEvent body: metadata_id, offset_ps (a oneof member, so present
 * even at 0), duration_ps (omitted at 0, as proto3 does), stats. */
static inline gsize
event_body_size (const Event *event,
                 guint64      offset_ps,
                 gsize        stat_sizes[MAX_EVENT_STATS])
{
  gsize size = 1 + varint_size (event->metadata_id) + 1 + varint_size (offset_ps);

  if (event->duration_ns != 0)
    size += 1 + varint_size ((guint64) event->duration_ns * 1000);
  for (guint i = 0; i < event->n_stats; i++)
    {
      stat_sizes[i] = stat_body_size (&event->stats[i]);
      size += len_field_size (stat_sizes[i]);
    }
  return size;
}

static inline guint8 *
put_event_body (guint8      *p,
                const Event *event,
                guint64      offset_ps,
                const gsize  stat_sizes[MAX_EVENT_STATS])
{
  p = put_tag (p, 1, WIRE_VARINT);
  p = put_varint (p, event->metadata_id);
  p = put_tag (p, 2, WIRE_VARINT);
  p = put_varint (p, offset_ps);
  if (event->duration_ns != 0)
    {
      p = put_tag (p, 3, WIRE_VARINT);
      p = put_varint (p, (guint64) event->duration_ns * 1000);
    }
  for (guint i = 0; i < event->n_stats; i++)
    {
      p = put_tag (p, 4, WIRE_LEN);
      p = put_varint (p, stat_sizes[i]);
      p = put_stat_body (p, &event->stats[i]);
    }
  return p;
}

/* Small messages (headers, metadata, plane stats) are built in memory. */

static void
bytes_varint (GByteArray *bytes,
              guint64     v)
{
  guint8 buf[10];

  g_byte_array_append (bytes, buf, put_varint (buf, v) - buf);
}

static void
bytes_varint_field (GByteArray *bytes,
                    guint       field,
                    guint64     v)
{
  bytes_varint (bytes, (field << 3) | WIRE_VARINT);
  bytes_varint (bytes, v);
}

static void
bytes_len_field (GByteArray *bytes,
                 guint       field,
                 const void *data,
                 gsize       len)
{
  bytes_varint (bytes, (field << 3) | WIRE_LEN);
  bytes_varint (bytes, len);
  g_byte_array_append (bytes, data, len);
}

static void
bytes_string_field (GByteArray *bytes,
                    guint       field,
                    const char *s)
{
  bytes_len_field (bytes, field, s, strlen (s));
}

static void
bytes_stat_field (GByteArray *bytes,
                  guint       field,
                  const Stat *stat)
{
  gsize size = stat_body_size (stat);
  guint offset;

  bytes_varint (bytes, (field << 3) | WIRE_LEN);
  bytes_varint (bytes, size);
  offset = bytes->len;
  g_byte_array_set_size (bytes, offset + size);
  put_stat_body (bytes->data + offset, stat);
}

/* ------------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------------ */

typedef struct
{
  int      fd;
  guint8  *buffer;
  gsize    fill;
  guint64  written;   /* bytes handed to the sink so far */
  int      saved_errno;
} Sink;

static void
sink_flush (Sink *sink)
{
  const guint8 *p = sink->buffer;
  gsize left = sink->fill;

  while (left > 0 && sink->saved_errno == 0)
    {
      ssize_t n = write (sink->fd, p, left);

      if (n < 0)
        {
          if (errno != EINTR)
            sink->saved_errno = errno;
          continue;
        }
      p += n;
      left -= (gsize) n;
    }
  sink->fill = 0;
}

static inline guint8 *
sink_reserve (Sink  *sink,
              gsize  n)
{
  g_assert (n <= SINK_BUFFER_SIZE);

  if (sink->fill + n > SINK_BUFFER_SIZE)
    sink_flush (sink);
  return sink->buffer + sink->fill;
}

static inline void
sink_commit (Sink  *sink,
             gsize  n)
{
  sink->fill += n;
  sink->written += n;
}

static void
sink_put (Sink       *sink,
          const void *data,
          gsize       len)
{
  const guint8 *p = data;

  while (len > 0)
    {
      gsize chunk = MIN (len, (gsize) SINK_BUFFER_SIZE);

      memcpy (sink_reserve (sink, chunk), p, chunk);
      sink_commit (sink, chunk);
      p += chunk;
      len -= chunk;
    }
}

static void
sink_put_len_prefix (Sink    *sink,
                     guint    field,
                     guint64  len)
{
  guint8 *start = sink_reserve (sink, 16);
  guint8 *p = put_tag (start, field, WIRE_LEN);

  p = put_varint (p, len);
  sink_commit (sink, p - start);
}

/* Receives the events of one line, in order. Without a sink it only
 * measures them. */
typedef struct
{
  Sink    *sink;
  gint64   line_ts_ns;      /* relative to the profile start */
  guint64  size;
  guint64  n_events;
  gint64   last_start_ns;
  gint64   last_duration_ns;
} EventWriter;

static inline void
event_writer_emit (EventWriter *writer,
                   const Event *event)
{
  gsize stat_sizes[MAX_EVENT_STATS];
  guint64 offset_ps;
  gsize body;
  gsize total;

  /* Lines must be sorted by start, longer events first on ties. */
  g_assert (event->start_ns >= writer->line_ts_ns);
  g_assert (writer->n_events == 0
            || event->start_ns > writer->last_start_ns
            || (event->start_ns == writer->last_start_ns
                && event->duration_ns <= writer->last_duration_ns));

  offset_ps = (guint64) (event->start_ns - writer->line_ts_ns) * 1000;
  body = event_body_size (event, offset_ps, stat_sizes);
  total = len_field_size (body);
  g_assert (total <= MAX_EVENT_SIZE);

  if (writer->sink != NULL)
    {
      guint8 *start = sink_reserve (writer->sink, total);
      guint8 *p = put_tag (start, 4, WIRE_LEN);

      p = put_varint (p, body);
      p = put_event_body (p, event, offset_ps, stat_sizes);
      g_assert ((gsize) (p - start) == total);
      sink_commit (writer->sink, total);
    }

  writer->size += total;
  writer->n_events++;
  writer->last_start_ns = event->start_ns;
  writer->last_duration_ns = event->duration_ns;
}

/* ------------------------------------------------------------------------
 * Planes
 * ------------------------------------------------------------------------ */

/* Event and stat metadata of one plane, with ids 1, 2, 3... in the order the
 * names were first asked for. */
typedef struct
{
  GPtrArray  *event_names;
  GPtrArray  *event_display_names;   /* or NULL */
  GPtrArray  *event_stats;   /* encoded XEventMetadata.stats, or NULL */
  GPtrArray  *stat_names;
  GHashTable *event_ids;
  GHashTable *stat_ids;
} Metadata;

static void
byte_array_unref0 (gpointer data)
{
  if (data != NULL)
    g_byte_array_unref (data);
}

static void
metadata_init (Metadata *meta)
{
  meta->event_names = g_ptr_array_new_with_free_func (g_free);
  meta->event_display_names = g_ptr_array_new_with_free_func (g_free);
  meta->event_stats = g_ptr_array_new_with_free_func (byte_array_unref0);
  meta->stat_names = g_ptr_array_new_with_free_func (g_free);
  meta->event_ids = g_hash_table_new (g_str_hash, g_str_equal);
  meta->stat_ids = g_hash_table_new (g_str_hash, g_str_equal);
}

static void
metadata_clear (Metadata *meta)
{
  g_clear_pointer (&meta->event_ids, g_hash_table_unref);
  g_clear_pointer (&meta->stat_ids, g_hash_table_unref);
  g_clear_pointer (&meta->event_names, g_ptr_array_unref);
  g_clear_pointer (&meta->event_display_names, g_ptr_array_unref);
  g_clear_pointer (&meta->event_stats, g_ptr_array_unref);
  g_clear_pointer (&meta->stat_names, g_ptr_array_unref);
}

static guint32
intern (GPtrArray  *names,
        GHashTable *ids,
        const char *name)
{
  gpointer id;
  char *copy;

  if (g_hash_table_lookup_extended (ids, name, NULL, &id))
    return GPOINTER_TO_UINT (id);

  copy = g_strdup (name);
  g_ptr_array_add (names, copy);
  g_hash_table_insert (ids, copy, GUINT_TO_POINTER (names->len));
  return names->len;
}

static guint32
metadata_event (Metadata   *meta,
                const char *name)
{
  guint32 id = intern (meta->event_names, meta->event_ids, name);

  if (meta->event_stats->len < id)
    {
      g_ptr_array_add (meta->event_stats, NULL);
      g_ptr_array_add (meta->event_display_names, NULL);
    }
  return id;
}

/* The name tools show for an event whose name is long (XEventMetadata.display_name). */
static void
metadata_set_display_name (Metadata   *meta,
                           guint32     event_id,
                           const char *display_name)
{
  g_free (meta->event_display_names->pdata[event_id - 1]);
  meta->event_display_names->pdata[event_id - 1] = g_strdup (display_name);
}

static guint32
metadata_stat (Metadata   *meta,
               const char *name)
{
  return intern (meta->stat_names, meta->stat_ids, name);
}

/* Stats that hold for every event of this metadata (XEventMetadata.stats). */
static void
metadata_add_event_stat (Metadata *meta,
                         guint32   event_id,
                         Stat      stat)
{
  GByteArray *stats = g_ptr_array_index (meta->event_stats, event_id - 1);

  if (stats == NULL)
    {
      stats = g_byte_array_new ();
      meta->event_stats->pdata[event_id - 1] = stats;
    }
  bytes_stat_field (stats, 5, &stat);
}

/* Appends the event_metadata (#4) and stat_metadata (#5) map entries, keys
 * ascending, as a deterministic proto3 serializer writes them. */
static void
metadata_encode (const Metadata *meta,
                 GByteArray     *out)
{
  g_autoptr(GByteArray) value = g_byte_array_new ();
  g_autoptr(GByteArray) entry = g_byte_array_new ();

  for (guint i = 0; i < meta->event_names->len; i++)
    {
      GByteArray *stats = g_ptr_array_index (meta->event_stats, i);
      const char *display_name = g_ptr_array_index (meta->event_display_names, i);

      g_byte_array_set_size (value, 0);
      bytes_varint_field (value, 1, i + 1);
      bytes_string_field (value, 2, g_ptr_array_index (meta->event_names, i));
      if (display_name != NULL)
        bytes_string_field (value, 4, display_name);
      if (stats != NULL)
        g_byte_array_append (value, stats->data, stats->len);

      g_byte_array_set_size (entry, 0);
      bytes_varint_field (entry, 1, i + 1);
      bytes_len_field (entry, 2, value->data, value->len);
      bytes_len_field (out, 4, entry->data, entry->len);
    }

  for (guint i = 0; i < meta->stat_names->len; i++)
    {
      g_byte_array_set_size (value, 0);
      bytes_varint_field (value, 1, i + 1);
      bytes_string_field (value, 2, g_ptr_array_index (meta->stat_names, i));

      g_byte_array_set_size (entry, 0);
      bytes_varint_field (entry, 1, i + 1);
      bytes_len_field (entry, 2, value->data, value->len);
      bytes_len_field (out, 5, entry->data, entry->len);
    }
}

typedef struct
{
  gint64      id;
  const char *name;
  gint64      timestamp_ns;   /* relative to the profile start */
  gint64      duration_ps;
} LineHeader;

typedef struct _Plane Plane;

typedef void (*LineGenerator) (const Plane *plane,
                               guint        line,
                               EventWriter *writer);

/* The specific planes below embed this as their first member. */
struct _Plane
{
  gint64         id;
  const char    *name;
  const Profile *profile;
  Metadata       meta;
  GByteArray    *stats;    /* encoded XPlane.stats fields */
  guint          n_lines;
  LineHeader     lines[MAX_LINES];
  LineGenerator  generate;
  /* Encoded event_metadata entries written after @meta's (NULL: none):
   * for metadata whose id the plane chooses (/host:metadata). */
  GByteArray    *raw_metadata;
};

static gpointer
plane_new (gsize          size,
           gint64         id,
           const char    *name,
           const Profile *profile)
{
  Plane *plane = g_malloc0 (size);

  plane->id = id;
  plane->name = name;
  plane->profile = profile;
  plane->stats = g_byte_array_new ();
  metadata_init (&plane->meta);
  return plane;
}

static void
plane_free (Plane *plane)
{
  metadata_clear (&plane->meta);
  g_clear_pointer (&plane->stats, g_byte_array_unref);
  g_clear_pointer (&plane->raw_metadata, g_byte_array_unref);
  g_free (plane);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Plane, plane_free)

static void
plane_add_stat (Plane      *plane,
                const char *name,
                Stat        stat)
{
  stat.metadata_id = metadata_stat (&plane->meta, name);
  bytes_stat_field (plane->stats, 6, &stat);
}

static void
plane_add_line (Plane      *plane,
                gint64      id,
                const char *name,
                gint64      timestamp_ns,
                gint64      duration_ps)
{
  g_assert (plane->n_lines < MAX_LINES);
  plane->lines[plane->n_lines++] = (LineHeader) { id, name, timestamp_ns, duration_ps };
}

/* The XLine fields before the events: id, name, timestamp_ns. */
static void
line_head_encode (const Plane      *plane,
                  const LineHeader *line,
                  GByteArray       *out)
{
  gint64 ts = line->timestamp_ns;

  if (plane->profile->epoch_timestamps)
    ts += (gint64) plane->profile->start_time_ns;
  if (line->id != 0)
    bytes_varint_field (out, 1, (guint64) line->id);
  if (line->name[0] != '\0')
    bytes_string_field (out, 2, line->name);
  if (ts != 0)
    bytes_varint_field (out, 3, (guint64) ts);
}

/* Writes one XPlane as field #1 of the XSpace: each line is generated once to
 * measure it and once more to write it. */
static void
write_plane (Sink        *sink,
             const Plane *plane,
             guint64     *n_events)
{
  g_autoptr(GByteArray) head = g_byte_array_new ();
  g_autoptr(GByteArray) tail = g_byte_array_new ();
  g_autoptr(GByteArray) line_head = g_byte_array_new ();
  guint64 line_events[MAX_LINES];
  guint64 line_size[MAX_LINES];
  guint64 plane_size;
  guint64 written_before;

  if (plane->id != 0)
    bytes_varint_field (head, 1, (guint64) plane->id);
  bytes_string_field (head, 2, plane->name);
  metadata_encode (&plane->meta, tail);
  if (plane->raw_metadata != NULL)
    g_byte_array_append (tail, plane->raw_metadata->data, plane->raw_metadata->len);
  g_byte_array_append (tail, plane->stats->data, plane->stats->len);

  plane_size = head->len + tail->len;
  for (guint i = 0; i < plane->n_lines; i++)
    {
      const LineHeader *line = &plane->lines[i];
      EventWriter measure = { .line_ts_ns = line->timestamp_ns };

      plane->generate (plane, i, &measure);
      g_byte_array_set_size (line_head, 0);
      line_head_encode (plane, line, line_head);
      line_size[i] = line_head->len + measure.size;
      if (line->duration_ps != 0)
        line_size[i] += 1 + varint_size ((guint64) line->duration_ps);
      line_events[i] = measure.n_events;
      plane_size += len_field_size (line_size[i]);
    }

  sink_put_len_prefix (sink, 1, plane_size);
  written_before = sink->written;
  sink_put (sink, head->data, head->len);

  for (guint i = 0; i < plane->n_lines; i++)
    {
      const LineHeader *line = &plane->lines[i];
      EventWriter writer = { .sink = sink, .line_ts_ns = line->timestamp_ns };
      guint8 trailer[16];
      guint8 *p = trailer;

      sink_put_len_prefix (sink, 3, line_size[i]);
      g_byte_array_set_size (line_head, 0);
      line_head_encode (plane, line, line_head);
      sink_put (sink, line_head->data, line_head->len);

      plane->generate (plane, i, &writer);
      /* Both passes draw from the same keys; a difference is a bug here. */
      g_assert (writer.n_events == line_events[i]);
      g_assert (line_head->len + writer.size
                == line_size[i] - (line->duration_ps != 0
                                   ? 1 + varint_size ((guint64) line->duration_ps) : 0));

      /* duration_ps is field 9, so proto3 writes it after the events. */
      if (line->duration_ps != 0)
        {
          p = put_tag (p, 9, WIRE_VARINT);
          p = put_varint (p, (guint64) line->duration_ps);
        }
      sink_put (sink, trailer, p - trailer);
      *n_events += writer.n_events;
    }

  sink_put (sink, tail->data, tail->len);
  g_assert (sink->written - written_before == plane_size);
}

/* --- /host:CPU ------------------------------------------------------------ */

typedef struct
{
  Plane   plane;
  guint32 ev_train_step, ev_pjit, ev_execute, ev_module, ev_thunk;
  guint32 ev_launch[N_GPU_OPS];
  guint32 ev_filler_parent[N_FILLER_KINDS];
  guint32 ev_filler_child[N_FILLER_KINDS][3];
  guint32 st_step_num, st_root, st_device_id, st_correlation_id, st_tf_op;
  guint32 st_filler_parent[N_FILLER_KINDS];
} HostPlane;

static void
generate_host_main (const HostPlane *host,
                    EventWriter     *writer)
{
  const Profile *profile = host->plane.profile;

  for (guint64 step = 0; step < profile->n_steps; step++)
    {
      GpuStep gpu[N_GPUS];
      StepHead head;
      gint64 exec_end, pjit_end, step_end;
      Event ev;

      schedule_step_head (profile, step, &head);
      for (guint g = 0; g < N_GPUS; g++)
        schedule_gpu_step (profile, step, g, &head, 0, TRUE, &gpu[g]);
      exec_end = gpu[N_GPUS - 1].module_end + 3000
                 + draw_range (profile, DRAW_EXEC_END, step, 0, 2000);
      pjit_end = exec_end + 6000 + draw_range (profile, DRAW_PJIT_END, step, 0, 3000);
      step_end = pjit_end + 15000 + draw_range (profile, DRAW_STEP_END, step, 0, 10000);

      ev = (Event) {
        .metadata_id = host->ev_train_step,
        .start_ns = head.step_start,
        .duration_ns = step_end - head.step_start,
        .n_stats = 2,
        .stats = { stat_int (host->st_step_num, (gint64) step), stat_int (host->st_root, 1) },
      };
      event_writer_emit (writer, &ev);

      ev = (Event) {
        .metadata_id = host->ev_pjit,
        .start_ns = head.pjit_start,
        .duration_ns = pjit_end - head.pjit_start,
      };
      event_writer_emit (writer, &ev);
      ev = (Event) {
        .metadata_id = host->ev_execute,
        .start_ns = head.exec_start,
        .duration_ns = exec_end - head.exec_start,
      };
      event_writer_emit (writer, &ev);

      for (guint g = 0; g < N_GPUS; g++)
        {
          const GpuStep *gs = &gpu[g];

          ev = (Event) {
            .metadata_id = host->ev_module,
            .start_ns = gs->module_start,
            .duration_ns = gs->module_end - gs->module_start,
          };
          event_writer_emit (writer, &ev);
          ev = (Event) {
            .metadata_id = host->ev_thunk,
            .start_ns = gs->thunk_start,
            .duration_ns = gs->thunk_end - gs->thunk_start,
          };
          event_writer_emit (writer, &ev);

          for (guint j = 0; j < N_GPU_OPS; j++)
            {
              const OpTimes *t = &gs->ops[j];

              ev = (Event) {
                .metadata_id = host->ev_launch[j],
                .start_ns = t->launch_start,
                .duration_ns = t->launch_end - t->launch_start,
                .n_stats = 2,
                .stats = {
                  stat_uint (host->st_device_id, g),
                  stat_uint (host->st_correlation_id, correlation_id (step, g, j)),
                },
              };
              event_writer_emit (writer, &ev);
            }
        }
    }
}

static guint
filler_index (guint thread)
{
  guint filler = 0;

  for (guint i = 0; i < thread; i++)
    if (host_threads[i].kind != THREAD_MAIN)
      filler++;
  return filler;
}

static guint64
filler_group_size (const Profile *profile,
                   guint          thread,
                   guint64        group)
{
  return 2 + draw (profile, DRAW_FILLER_SIZE, thread, group) % 3;
}

/* Background work comes in groups of a parent and one to three children,
 * one group per slot of the profile's span. */
static gint64
filler_slot (const Profile *profile,
             guint          thread,
             guint64        count,
             guint64       *n_groups)
{
  guint64 remaining;
  gint64 slot;

  *n_groups = 0;
  for (remaining = count; remaining > 0; (*n_groups)++)
    remaining -= MIN (remaining, filler_group_size (profile, thread, *n_groups));

  slot = profile->span_ns / (gint64) MAX (*n_groups, 1);
  g_assert (slot >= 10000);
  return slot;
}

static gint64
filler_group_start (const Profile *profile,
                    guint          thread,
                    guint64        group,
                    gint64         slot)
{
  return (gint64) group * slot + slot / 16
         + draw_range (profile, DRAW_FILLER_TIME, thread, group << 3, slot / 16);
}

static void
generate_host_filler (const HostPlane *host,
                      guint            thread,
                      EventWriter     *writer)
{
  const Profile *profile = host->plane.profile;
  int kind = host_threads[thread].kind;
  const FillerKind *fk = &filler_kinds[kind];
  guint64 remaining = profile->filler_events[filler_index (thread)];
  guint64 n_groups;
  gint64 slot = filler_slot (profile, thread, remaining, &n_groups);

  for (guint64 g = 0; g < n_groups; g++)
    {
      guint64 size = MIN (remaining, filler_group_size (profile, thread, g));
      guint n_children = (guint) size - 1;
      gint64 parent_start = filler_group_start (profile, thread, g, slot);
      gint64 child_slot = slot / 2 / MAX (n_children, 1);
      gint64 end = parent_start + slot / 4;
      Event ev = { .metadata_id = host->ev_filler_parent[kind], .start_ns = parent_start };
      Event children[3];

      remaining -= size;

      /* The parent's duration depends on its children, so lay them out
       * first and emit afterwards; a group is at most four events. */
      for (guint c = 0; c < n_children; c++)
        {
          gint64 start = parent_start + 200 + (gint64) c * child_slot;

          children[c] = (Event) {
            .metadata_id = host->ev_filler_child[kind][c],
            .start_ns = start,
            .duration_ns = child_slot / 2
                           + draw_range (profile, DRAW_FILLER_TIME, thread, (g << 3) | (c + 1),
                                         child_slot / 4),
          };
          if (fk->child_tf_op != NULL)
            {
              children[c].stats[0] = stat_str (host->st_tf_op, fk->child_tf_op);
              children[c].n_stats = 1;
            }
          end = start + children[c].duration_ns;
        }

      ev.duration_ns = end + 300 + draw_range (profile, DRAW_FILLER_TIME, thread, (g << 3) | 7, 300)
                       - parent_start;
      if (fk->parent_stat != NULL)
        {
          ev.stats[0] = stat_int (host->st_filler_parent[kind],
                                  (gint64) (draw (profile, DRAW_FILLER_STAT, thread, g) % 65536) * 256);
          ev.n_stats = 1;
        }
      event_writer_emit (writer, &ev);
      for (guint c = 0; c < n_children; c++)
        event_writer_emit (writer, &children[c]);
    }
}

static void
generate_host_line (const Plane *plane,
                    guint        line,
                    EventWriter *writer)
{
  const HostPlane *host = (const HostPlane *) plane;

  if (host_threads[line].kind == THREAD_MAIN)
    generate_host_main (host, writer);
  else
    generate_host_filler (host, line, writer);
}

/* Host lines start at their first event, so that event sits at offset 0
 * (which must still be written, offset_ps being a oneof member) and lines of
 * one plane have different timestamps, as merged host planes do. */
static gint64
host_line_start (const Profile *profile,
                 guint          thread)
{
  guint64 count;
  guint64 n_groups;

  if (host_threads[thread].kind == THREAD_MAIN)
    {
      StepHead head;

      if (profile->n_steps == 0)
        return 0;
      schedule_step_head (profile, 0, &head);
      return head.step_start;
    }

  count = profile->filler_events[filler_index (thread)];
  if (count == 0)
    return 0;
  return filler_group_start (profile, thread, 0, filler_slot (profile, thread, count, &n_groups));
}

static Plane *
host_plane_new (const Profile *profile)
{
  HostPlane *host = plane_new (sizeof (HostPlane), 0, "/host:CPU", profile);
  Metadata *meta = &host->plane.meta;

  plane_add_stat (&host->plane, "process_id", stat_int (0, host_threads[1].tid));

  host->ev_train_step = metadata_event (meta, "train_step");
  host->ev_pjit = metadata_event (meta, "PjitFunction(train_step)");
  host->ev_execute = metadata_event (meta, "PjRtStreamExecutorLoadedExecutable::Execute");
  host->ev_module = metadata_event (meta, "XlaModule:#hlo_module=" HLO_MODULE ",program_id=" G_STRINGIFY (PROGRAM_ID) "#");
  host->ev_thunk = metadata_event (meta, "ThunkExecutor::Execute");
  /* CUPTI names a launch after the kernel it launches. */
  for (guint j = 0; j < N_GPU_OPS; j++)
    host->ev_launch[j] = metadata_event (meta, gpu_program[j].name);
  for (guint k = 0; k < N_FILLER_KINDS; k++)
    {
      host->ev_filler_parent[k] = metadata_event (meta, filler_kinds[k].parent);
      for (guint c = 0; c < 3; c++)
        host->ev_filler_child[k][c] = metadata_event (meta, filler_kinds[k].children[c]);
    }

  host->st_step_num = metadata_stat (meta, "step_num");
  host->st_root = metadata_stat (meta, "_r");
  host->st_device_id = metadata_stat (meta, "device_id");
  host->st_correlation_id = metadata_stat (meta, "correlation_id");
  host->st_tf_op = metadata_stat (meta, "tf_op");
  for (guint k = 0; k < N_FILLER_KINDS; k++)
    if (filler_kinds[k].parent_stat != NULL)
      host->st_filler_parent[k] = metadata_stat (meta, filler_kinds[k].parent_stat);

  for (guint i = 0; i < N_HOST_THREADS; i++)
    plane_add_line (&host->plane, host_threads[i].tid, host_threads[i].name,
                    host_line_start (profile, i), 0);
  host->plane.generate = generate_host_line;
  return &host->plane;
}

/* --- /device:GPU:<N> ------------------------------------------------------ */

typedef struct
{
  Plane   plane;
  guint   ordinal;
  guint32 ev_op[N_GPU_OPS];
  guint32 ev_power;
  guint32 st_correlation_id, st_kernel_details, st_memcpy_details, st_hlo_op;
  guint32 st_hlo_module, st_context_id, st_group_id, st_power_mw, st_program_id;
  guint32 ref_details[N_GPU_OPS];
  guint32 ref_hlo_op[N_GPU_OPS];
  guint32 ref_module;
} GpuPlane;

#define COUNTER_LINE (N_GPU_STREAMS)

static void
generate_gpu_stream (const GpuPlane *gpu,
                     guint           stream,
                     EventWriter    *writer)
{
  const Profile *profile = gpu->plane.profile;
  gint64 stream_end = 0;

  for (guint64 step = 0; step < profile->n_steps; step++)
    {
      StepHead head;
      GpuStep gs;

      schedule_step_head (profile, step, &head);
      schedule_gpu_step (profile, step, gpu->ordinal, &head, 1u << stream, FALSE, &gs);

      for (guint j = 0; j < N_GPU_OPS; j++)
        {
          const GpuOp *op = &gpu_program[j];
          const OpTimes *t = &gs.ops[j];
          Event ev;

          if (op->stream != stream)
            continue;

          /* The layout guarantees this; the loader's tests rely on it. */
          g_assert (t->start >= stream_end);
          stream_end = t->end;

          ev = (Event) {
            .metadata_id = gpu->ev_op[j],
            .start_ns = t->start,
            .duration_ns = t->end - t->start,
          };
          ev.stats[ev.n_stats++] = stat_uint (gpu->st_correlation_id, correlation_id (step, gpu->ordinal, j));
          if (op->kind == OP_KERNEL)
            {
              ev.stats[ev.n_stats++] = stat_ref (gpu->st_kernel_details, gpu->ref_details[j]);
              ev.stats[ev.n_stats++] = stat_ref (gpu->st_hlo_op, gpu->ref_hlo_op[j]);
              ev.stats[ev.n_stats++] = stat_ref (gpu->st_hlo_module, gpu->ref_module);
              /* With --hlo: the program the kernel's HLO is filed under. */
              if (gen_hlo)
                ev.stats[ev.n_stats++] = stat_int (gpu->st_program_id,
                                                   PROGRAM_ID + (gint64) ((guint64) step % gen_hlo_programs));
            }
          else
            {
              ev.stats[ev.n_stats++] = stat_ref (gpu->st_memcpy_details, gpu->ref_details[j]);
            }
          ev.stats[ev.n_stats++] = stat_str (gpu->st_context_id, "$$1");
          /* As XProf's grouping leaves device events: the step they belong to. */
          if (!gen_no_group_ids)
            ev.stats[ev.n_stats++] = stat_int (gpu->st_group_id, (gint64) step);
          G_STATIC_ASSERT (MAX_EVENT_STATS >= 7);
          event_writer_emit (writer, &ev);
        }
    }
}

static void
generate_gpu_line (const Plane *plane,
                   guint        line,
                   EventWriter *writer)
{
  const GpuPlane *gpu = (const GpuPlane *) plane;
  const Profile *profile = plane->profile;
  guint64 n_samples = profile->n_steps * COUNTER_SAMPLES_PER_STEP;
  gint64 interval = STEP_PERIOD_NS / COUNTER_SAMPLES_PER_STEP;

  if (line != COUNTER_LINE)
    {
      generate_gpu_stream (gpu, line, writer);
      return;
    }

  for (guint64 k = 0; k < n_samples; k++)
    {
      guint64 key = ((guint64) gpu->ordinal << 48) | k;
      Event ev = {
        .metadata_id = gpu->ev_power,
        .start_ns = (gint64) k * interval + 50000
                    + draw_range (profile, DRAW_POWER_TIME, key, 0, interval / 4),
        .n_stats = 1,
        .stats = {
          stat_double (gpu->st_power_mw,
                       250000.0 + (double) (draw (profile, DRAW_POWER_VALUE, key, 0) % 4500000) / 10.0),
        },
      };
      event_writer_emit (writer, &ev);
    }
}

static Plane *
gpu_plane_new (const Profile *profile,
               guint          ordinal,
               const char    *name)
{
  GpuPlane *gpu = plane_new (sizeof (GpuPlane), ordinal, name, profile);
  Plane *plane = &gpu->plane;
  Metadata *meta = &plane->meta;
  gint64 duration_ps = (gint64) (profile->stop_time_ns - profile->start_time_ns) * 1000;

  gpu->ordinal = ordinal;

  /* What XLA's CUPTI collector records for an H100 SXM. */
  plane_add_stat (plane, "device_vendor", stat_str (0, "Nvidia"));
  plane_add_stat (plane, "gpu_device_name", stat_str (0, "NVIDIA H100 80GB HBM3"));
  plane_add_stat (plane, "clock_rate", stat_int (0, 1980000));
  plane_add_stat (plane, "core_count", stat_int (0, 132));
  plane_add_stat (plane, "memory_bandwidth", stat_uint (0, G_GUINT64_CONSTANT (3352320000000)));
  plane_add_stat (plane, "memory_size", stat_uint (0, G_GUINT64_CONSTANT (85520809984)));
  plane_add_stat (plane, "compute_cap_major", stat_int (0, 9));
  plane_add_stat (plane, "compute_cap_minor", stat_int (0, 0));

  for (guint j = 0; j < N_GPU_OPS; j++)
    gpu->ev_op[j] = metadata_event (meta, gpu_program[j].name);
  gpu->ev_power = metadata_event (meta, "power_mw");

  gpu->st_correlation_id = metadata_stat (meta, "correlation_id");
  gpu->st_kernel_details = metadata_stat (meta, "kernel_details");
  gpu->st_memcpy_details = metadata_stat (meta, "memcpy_details");
  gpu->st_hlo_op = metadata_stat (meta, "hlo_op");
  gpu->st_hlo_module = metadata_stat (meta, "hlo_module");
  gpu->st_context_id = metadata_stat (meta, "context_id");
  if (!gen_no_group_ids)
    gpu->st_group_id = metadata_stat (meta, "group_id");
  gpu->st_power_mw = metadata_stat (meta, "power_mw");
  if (gen_hlo)
    gpu->st_program_id = metadata_stat (meta, "program_id");

  /* Interned values of the ref stats live in the same table. */
  gpu->ref_module = metadata_stat (meta, HLO_MODULE);
  for (guint j = 0; j < N_GPU_OPS; j++)
    {
      const GpuOp *op = &gpu_program[j];

      if (op->kind == OP_KERNEL)
        {
          gpu->ref_details[j] = metadata_stat (meta, op->details);
          gpu->ref_hlo_op[j] = metadata_stat (meta, op->hlo_op);
        }
      else
        {
          g_autofree char *details =
            g_strdup_printf ("kind_src:%s kind_dst:%s size:%" G_GUINT64_FORMAT " dest:%u async:1",
                             op->kind == OP_MEMCPY_H2D ? "pinned" : "device",
                             op->kind == OP_MEMCPY_H2D ? "device" : "pinned",
                             op->bytes, ordinal);
          gpu->ref_details[j] = metadata_stat (meta, details);
        }
    }

  for (guint s = 0; s < N_GPU_STREAMS; s++)
    plane_add_line (plane, gpu_streams[s].id, gpu_streams[s].name,
                    profile->gpu_line_ts_ns, duration_ps - profile->gpu_line_ts_ns * 1000);
  /* XLA creates the counter line with timestamp 0. */
  plane_add_line (plane, G_MAXINT64, "_counters_", 0, duration_ps);
  plane->generate = generate_gpu_line;
  return plane;
}

/* --- /device:TPU:0 -------------------------------------------------------- */

typedef struct
{
  Plane   plane;
  guint32 ev_step, ev_module;
  guint32 ev_op[N_TPU_OPS];
  guint32 st_step_num, st_run_id;
} TpuPlane;

enum
{
  TPU_LINE_STEPS,
  TPU_LINE_MODULES,
  TPU_LINE_OPS,
};

static void
generate_tpu_line (const Plane *plane,
                   guint        line,
                   EventWriter *writer)
{
  const TpuPlane *tpu = (const TpuPlane *) plane;
  const Profile *profile = plane->profile;

  for (guint64 step = 0; step < profile->n_steps; step++)
    {
      TpuStep ts;
      Event ev;

      schedule_tpu_step (profile, step, &ts);
      switch (line)
        {
        case TPU_LINE_STEPS:
          ev = (Event) {
            .metadata_id = tpu->ev_step,
            .start_ns = ts.step_start,
            .duration_ns = ts.step_end - ts.step_start,
            .n_stats = 1,
            .stats = { stat_int (tpu->st_step_num, (gint64) step) },
          };
          event_writer_emit (writer, &ev);
          break;

        case TPU_LINE_MODULES:
          ev = (Event) {
            .metadata_id = tpu->ev_module,
            .start_ns = ts.module_start,
            .duration_ns = ts.module_end - ts.module_start,
            .n_stats = 1,
            .stats = { stat_int (tpu->st_run_id, (gint64) step + 1) },
          };
          event_writer_emit (writer, &ev);
          break;

        case TPU_LINE_OPS:
          /* Op costs are properties of the op, so they sit on the metadata. */
          for (guint i = 0; i < N_TPU_OPS; i++)
            {
              ev = (Event) {
                .metadata_id = tpu->ev_op[i],
                .start_ns = ts.op_start[i],
                .duration_ns = ts.op_end[i] - ts.op_start[i],
              };
              event_writer_emit (writer, &ev);
            }
          break;

        default:
          g_assert_not_reached ();
        }
    }
}

/* With --host-offload, the step's copy-start and copy-done move a buffer
 * to the host's memory, as XLA's host offloading does: the ops are named
 * by their HLO text, whose shape carries the host memory space S(5), and
 * display their instruction name, the pair sharing the start's number.
 * Returns the metadata id of op @i. */
static guint32
tpu_op_metadata (TpuPlane *tpu,
                 guint     i)
{
  Metadata *meta = &tpu->plane.meta;
  const char *name = tpu_program[i].name;
  const char *kind = g_str_has_prefix (name, "copy-start") ? "copy-start"
                     : g_str_has_prefix (name, "copy-done") ? "copy-done" : NULL;
  g_autofree char *display_name = NULL;
  g_autofree char *text = NULL;
  guint number = 0;
  guint32 id;

  if (!tpu->plane.profile->host_offload || kind == NULL)
    return metadata_event (meta, name);
  for (guint k = 0; k < N_TPU_OPS; k++)
    if (g_str_has_prefix (tpu_program[k].name, "copy-start."))
      number = (guint) g_ascii_strtoull (tpu_program[k].name + strlen ("copy-start."), NULL, 10);
  display_name = g_strdup_printf ("%s.%u", kind, number);
  text = g_strdup_printf ("%%%s = f32[2048,1024]{1,0:S(5)} %s(f32[2048,1024]{1,0} %%fusion.1)",
                          display_name, kind);
  id = metadata_event (meta, text);
  metadata_set_display_name (meta, id, display_name);
  return id;
}

static Plane *
tpu_plane_new (const Profile *profile)
{
  TpuPlane *tpu = plane_new (sizeof (TpuPlane), 0, "/device:TPU:0", profile);
  Plane *plane = &tpu->plane;
  Metadata *meta = &plane->meta;
  gint64 duration_ps = (gint64) (profile->stop_time_ns - profile->start_time_ns) * 1000;
  guint32 st_flops, st_bytes, st_tf_op, st_category, st_program_id;

  plane_add_stat (plane, "peak_teraflops_per_second", stat_double (0, 459.0));
  plane_add_stat (plane, "peak_hbm_bw_gigabytes_per_second", stat_double (0, 2765.0));

  tpu->ev_step = metadata_event (meta, "train_step");
  tpu->ev_module = metadata_event (meta, HLO_MODULE "(" G_STRINGIFY (PROGRAM_ID) ")");
  for (guint i = 0; i < N_TPU_OPS; i++)
    tpu->ev_op[i] = tpu_op_metadata (tpu, i);

  tpu->st_step_num = metadata_stat (meta, "step_num");
  tpu->st_run_id = metadata_stat (meta, "run_id");
  st_program_id = metadata_stat (meta, "program_id");
  st_flops = metadata_stat (meta, "flops");
  st_bytes = metadata_stat (meta, "bytes_accessed");
  st_tf_op = metadata_stat (meta, "tf_op");
  st_category = metadata_stat (meta, "hlo_category");

  metadata_add_event_stat (meta, tpu->ev_module, stat_int (st_program_id, PROGRAM_ID));
  for (guint i = 0; i < N_TPU_OPS; i++)
    {
      const TpuOp *op = &tpu_program[i];

      metadata_add_event_stat (meta, tpu->ev_op[i], stat_int (st_flops, op->flops));
      metadata_add_event_stat (meta, tpu->ev_op[i], stat_int (st_bytes, op->bytes_accessed));
      metadata_add_event_stat (meta, tpu->ev_op[i], stat_str (st_tf_op, op->tf_op));
      metadata_add_event_stat (meta, tpu->ev_op[i], stat_str (st_category, op->category));
    }

  plane_add_line (plane, 1, "Steps", 0, duration_ps);
  plane_add_line (plane, 2, "XLA Modules", 0, duration_ps);
  plane_add_line (plane, 3, "XLA Ops", 0, duration_ps);
  plane->generate = generate_tpu_line;
  return plane;
}

/* --- Task Environment ----------------------------------------------------- */

static Plane *
task_environment_plane_new (const Profile *profile)
{
  Plane *plane = plane_new (sizeof (Plane), 0, "Task Environment", profile);

  plane_add_stat (plane, "profile_start_time", stat_uint (0, profile->start_time_ns));
  plane_add_stat (plane, "profile_stop_time", stat_uint (0, profile->stop_time_ns));
  return plane;
}


/* ------------------------------------------------------------------------
 * /host:metadata: the HloProto of the program (--hlo)
 *
 * Written with field numbers from XLA's hlo.proto and xla_data.proto by
 * this file's own encoder, as the rest of the XSpace is.
 * ------------------------------------------------------------------------ */

static void
hlo_varint (GByteArray *b,
            guint       field,
            guint64     value)
{
  guint8 buf[32];
  guint8 *p = put_tag (buf, field, WIRE_VARINT);

  p = put_varint (p, value);
  g_byte_array_append (b, buf, (guint) (p - buf));
}

static void
hlo_bytes (GByteArray *b,
           guint       field,
           const void *data,
           gsize       len)
{
  guint8 buf[32];
  guint8 *p = put_tag (buf, field, WIRE_LEN);

  p = put_varint (p, len);
  g_byte_array_append (b, buf, (guint) (p - buf));
  g_byte_array_append (b, data, (guint) len);
}

static void
hlo_string (GByteArray *b,
            guint       field,
            const char *s)
{
  hlo_bytes (b, field, s, strlen (s));
}

/* Appends @msg as field @field and frees it. */
static void
hlo_message (GByteArray *b,
             guint       field,
             GByteArray *msg)
{
  hlo_bytes (b, field, msg->data, msg->len);
  g_byte_array_unref (msg);
}

static void
hlo_packed (GByteArray   *b,
            guint         field,
            const gint64 *values,
            guint         n)
{
  GByteArray *p = g_byte_array_new ();

  for (guint i = 0; i < n; i++)
    {
      guint8 buf[16];

      g_byte_array_append (p, buf, (guint) (put_varint (buf, (guint64) values[i]) - buf));
    }
  hlo_message (b, field, p);
}

enum { T_F32 = 11, T_BF16 = 16, T_TUPLE = 13 };

/* ShapeProto: element_type 2, dimensions 3 (packed), layout 5 with
 * minor_to_major 1 (the default, major to minor). */
static GByteArray *
hlo_shape (gint          type,
           const gint64 *dims,
           guint         n)
{
  GByteArray *shape = g_byte_array_new ();
  GByteArray *layout = g_byte_array_new ();
  gint64 m2m[8];

  hlo_varint (shape, 2, (guint64) type);
  if (n > 0)
    {
      hlo_packed (shape, 3, dims, n);
      for (guint i = 0; i < n; i++)
        m2m[i] = n - 1 - i;
      hlo_packed (layout, 1, m2m, n);
    }
  hlo_message (shape, 5, layout);
  return shape;
}

typedef struct
{
  const char *name;
  const char *opcode;
  gint64      id;
  gint        type;
  gint64      dims[4];
  guint       n_dims;
  gint64      operands[3];
  guint       n_operands;
  gint64      called;       /* a computation id, 0: none */
  const char *op_name;      /* after "jit(train_step)/jit(main)/" */
  gint        line;         /* in train.py; 0: no metadata */
  gint        frame;        /* stack_frame_id */
  const char *fusion_kind;
  const char *target;       /* custom_call_target */
  const char *config;       /* backend_config */
  gboolean    dot;          /* dot dimension numbers: contract 1 with 0 */
  gboolean    conv;         /* NHWC x HWIO convolution, 3x3 window */
} HloIns;

/* HloInstructionProto: name 1, opcode 2, shape 3, metadata 7 (OpMetadata:
 * op_type 1, op_name 2, source_file 3, source_line 4, stack_frame_id 15),
 * fusion_kind 11, window 15, convolution_dimension_numbers 16,
 * custom_call_target 28, dot_dimension_numbers 30, id 35, operand_ids 36,
 * called_computation_ids 38, backend_config 43, feature_group_count 50,
 * batch_group_count 58. */
static GByteArray *
hlo_instruction (const HloIns *in)
{
  GByteArray *b = g_byte_array_new ();

  hlo_string (b, 1, in->name);
  hlo_string (b, 2, in->opcode);
  hlo_message (b, 3, hlo_shape (in->type, in->dims, in->n_dims));
  if (in->line > 0)
    {
      GByteArray *md = g_byte_array_new ();
      g_autofree char *op_name = g_strconcat ("jit(train_step)/jit(main)/", in->op_name, NULL);

      hlo_string (md, 2, op_name);
      hlo_string (md, 3, "/home/user/model/train.py");
      hlo_varint (md, 4, (guint64) in->line);
      if (in->frame > 0)
        hlo_varint (md, 15, (guint64) in->frame);
      hlo_message (b, 7, md);
    }
  if (in->fusion_kind != NULL)
    hlo_string (b, 11, in->fusion_kind);
  if (in->conv)
    {
      static const gint64 spatial[] = { 1, 2 }, kernel_spatial[] = { 0, 1 };
      GByteArray *window = g_byte_array_new ();
      GByteArray *dims = g_byte_array_new ();

      for (guint i = 0; i < 2; i++)
        {
          GByteArray *wd = g_byte_array_new ();

          hlo_varint (wd, 1, 3);
          hlo_varint (wd, 2, 1);
          hlo_varint (wd, 3, 1);
          hlo_varint (wd, 4, 1);
          hlo_varint (wd, 5, 1);
          hlo_varint (wd, 6, 1);
          hlo_message (window, 1, wd);
        }
      hlo_message (b, 15, window);
      hlo_varint (dims, 7, 0);
      hlo_varint (dims, 8, 3);
      hlo_packed (dims, 11, spatial, 2);
      hlo_varint (dims, 3, 2);
      hlo_varint (dims, 4, 3);
      hlo_packed (dims, 6, kernel_spatial, 2);
      hlo_varint (dims, 9, 0);
      hlo_varint (dims, 10, 3);
      hlo_packed (dims, 12, spatial, 2);
      hlo_message (b, 16, dims);
      hlo_varint (b, 50, 1);
      hlo_varint (b, 58, 1);
    }
  if (in->target != NULL)
    hlo_string (b, 28, in->target);
  if (in->dot)
    {
      static const gint64 one = 1, zero = 0;
      GByteArray *dims = g_byte_array_new ();

      hlo_packed (dims, 1, &one, 1);
      hlo_packed (dims, 2, &zero, 1);
      hlo_message (b, 30, dims);
    }
  hlo_varint (b, 35, (guint64) in->id);
  if (in->n_operands > 0)
    hlo_packed (b, 36, in->operands, in->n_operands);
  if (in->called != 0)
    hlo_packed (b, 38, &in->called, 1);
  if (in->config != NULL)
    hlo_string (b, 43, in->config);
  return b;
}

/* HloComputationProto: name 1, instructions 2, id 5, root_id 6,
 * is_fusion_computation 7. */
static GByteArray *
hlo_computation (const char   *name,
                 gint64        id,
                 const HloIns *ins,
                 guint         n,
                 gboolean      fusion)
{
  GByteArray *b = g_byte_array_new ();

  hlo_string (b, 1, name);
  for (guint i = 0; i < n; i++)
    hlo_message (b, 2, hlo_instruction (&ins[i]));
  hlo_varint (b, 5, (guint64) id);
  hlo_varint (b, 6, (guint64) ins[n - 1].id);
  if (fusion)
    hlo_varint (b, 7, 1);
  return b;
}

#define A2(a, b) { a, b }, 2
#define A4(a, b, c, d) { a, b, c, d }, 4

/* The entry's instructions: every XLA op of the GPU kernels and of the TPU
 * ops, named as they are, on parameters 1-4. */
static const HloIns hlo_entry[] = {
  { "p0", "parameter", 1, T_BF16, A2 (8192, 1024) },
  { "p1", "parameter", 2, T_BF16, A2 (1024, 4096) },
  { "image", "parameter", 3, T_F32, A4 (32, 64, 64, 128) },
  { "filter", "parameter", 4, T_F32, A4 (3, 3, 128, 128) },
  { "input_concatenate_fusion", "fusion", 10, T_BF16, A2 (8192, 1024), { 1, 1 }, 2, 101, "concatenate", 21, 2,
    "kInput" },
  { "loop_convert_fusion.2", "fusion", 11, T_F32, A2 (8192, 1024), { 10 }, 1, 102, "convert_element_type", 22, 2,
    "kLoop" },
  { "gemm_fusion_dot.3", "fusion", 12, T_BF16, A2 (8192, 4096), { 1, 2 }, 2, 103, "dense/dot_general", 30, 4,
    "kCustom" },
  { "custom-call.4", "custom-call", 13, T_BF16, A2 (8192, 4096), { 1, 2 }, 2, 0, "dense_1/dot_general", 31, 4, NULL,
    "__cublas$lt$matmul",
    "{\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":0,\"dot_dimension_numbers\":"
    "{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],"
    "\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]}}}" },
  { "loop_fusion.12", "fusion", 14, T_BF16, A2 (8192, 4096), { 13 }, 1, 104, "dense_1/gelu", 32, 4, "kLoop" },
  { "custom-call.6", "custom-call", 15, T_BF16, A2 (8192, 4096), { 14, 12 }, 2, 0, "attention/flash_attention", 40, 5,
    NULL, "__cudnn$fmhaSoftmax", "{\"cudnn_fmha_backend_config\":{}}" },
  { "triton_softmax.3", "fusion", 16, T_BF16, A2 (8192, 4096), { 15 }, 1, 105, "attention/softmax", 41, 5, "kCustom" },
  { "fusion.1", "fusion", 20, T_F32, A2 (8192, 1024), { 1 }, 1, 102, "convert_element_type", 22, 2, "kLoop" },
  { "convolution.2", "convolution", 21, T_F32, A4 (32, 64, 64, 128), { 3, 4 }, 2, 0, "conv_general_dilated", 25, 3,
    NULL, NULL, NULL, FALSE, TRUE },
  { "fusion.3", "fusion", 22, T_BF16, A2 (8192, 4096), { 1, 2 }, 2, 103, "dense/dot_general", 30, 4, "kOutput" },
  { "while.4", "while", 23, T_F32, A2 (8192, 1024), { 20 }, 1, 110, "while", 50, 2 },
  { "all-reduce.10", "all-reduce", 24, T_F32, A2 (8192, 1024), { 23 }, 1, 106, "psum", 60, 2 },
  { "fusion.11", "fusion", 25, T_F32, A2 (8192, 1024), { 24, 20 }, 2, 104, "optimizer/sub", 70, 6, "kLoop" },
  { "reduce.12", "reduce", 26, T_F32, { 8192 }, 1, { 25 }, 1, 106, "reduce_sum", 71, 6 },
  { "copy-start.13", "copy-start", 27, T_F32, A2 (8192, 1024), { 25 }, 1, 0, "device_put", 72, 6 },
  { "copy-done.14", "copy-done", 28, T_F32, A2 (8192, 1024), { 27 }, 1, 0, "device_put", 72, 6 },
  { "fusion.15", "fusion", 29, T_F32, A2 (8192, 1024), { 28, 25 }, 2, 104, "optimizer/mul", 73, 6, "kLoop" },
  { "transpose.16", "transpose", 30, T_F32, A2 (1024, 8192), { 29 }, 1, 0, "transpose", 74, 6 },
  { "tuple.17", "tuple", 31, T_TUPLE, { 0 }, 0, { 30, 26, 16 }, 3 },
};

/* The while body: the TPU ops inside the loop. */
static const HloIns hlo_body[] = {
  { "body.param", "parameter", 40, T_F32, A2 (8192, 1024) },
  { "fusion.5", "fusion", 41, T_F32, A2 (8192, 1024), { 40 }, 1, 104, "while/body/add", 51, 7, "kLoop" },
  { "call.6", "call", 42, T_F32, A2 (8192, 1024), { 41 }, 1, 111, "while/body/remat", 52, 7 },
  { "fusion.9", "fusion", 43, T_F32, A2 (8192, 1024), { 42 }, 1, 104, "while/body/mul", 53, 7, "kOutput" },
};

static const HloIns hlo_remat[] = {
  { "remat.param", "parameter", 50, T_F32, A2 (8192, 1024) },
  { "fusion.7", "fusion", 51, T_BF16, A2 (8192, 1024), { 50, 50 }, 2, 103, "while/body/remat/dot_general", 54, 7,
    "kOutput" },
  { "copy.8", "copy", 52, T_F32, A2 (1024, 8192), { 51 }, 1, 0, "while/body/remat/transpose", 55, 7 },
};

/* Fused computations: a concatenate, a convert, a dot, an elementwise
 * pair, a reduction with exp (softmax). */
static const HloIns hlo_fused_concat[] = {
  { "fc.p0", "parameter", 60, T_BF16, A2 (4096, 1024) },
  { "fc.p1", "parameter", 61, T_BF16, A2 (4096, 1024) },
  { "concatenate.1", "concatenate", 62, T_BF16, A2 (8192, 1024), { 60, 61 }, 2, 0, "concatenate", 21, 2 },
};
static const HloIns hlo_fused_convert[] = {
  { "fv.p0", "parameter", 63, T_BF16, A2 (8192, 1024) },
  { "convert.1", "convert", 64, T_F32, A2 (8192, 1024), { 63 }, 1, 0, "convert_element_type", 22, 2 },
};
static const HloIns hlo_fused_dot[] = {
  { "fd.p0", "parameter", 65, T_BF16, A2 (8192, 1024) },
  { "fd.p1", "parameter", 66, T_BF16, A2 (1024, 4096) },
  { "dot.1", "dot", 67, T_BF16, A2 (8192, 4096), { 65, 66 }, 2, 0, "dense/dot_general", 30, 4, NULL, NULL, NULL,
    TRUE },
};
static const HloIns hlo_fused_elementwise[] = {
  { "fe.p0", "parameter", 68, T_BF16, A2 (8192, 4096) },
  { "multiply.1", "multiply", 69, T_BF16, A2 (8192, 4096), { 68, 68 }, 2, 0, "dense_1/mul", 32, 4 },
  { "add.1", "add", 70, T_BF16, A2 (8192, 4096), { 69, 68 }, 2, 0, "dense_1/add", 32, 4 },
};
static const HloIns hlo_fused_softmax[] = {
  { "fs.p0", "parameter", 71, T_BF16, A2 (8192, 4096) },
  { "exponential.1", "exponential", 72, T_BF16, A2 (8192, 4096), { 71 }, 1, 0, "attention/exp", 41, 5 },
  { "reduce.1", "reduce", 73, T_BF16, { 8192 }, 1, { 72 }, 1, 0, "attention/reduce_sum", 41, 5 },
};

/* StackFrameIndexProto: file_names 1, function_names 2, file_locations 3
 * (file_name_id 1, function_name_id 2, line 3), stack_frames 4
 * (file_location_id 1, parent_frame_id 2): main() calls train_step(),
 * which calls the layers. Frame ids 1-7. */
static GByteArray *
hlo_frames (void)
{
  static const char * const files[] = { "/home/user/model/main.py", "/home/user/model/train.py",
                                        "/home/user/model/layers.py" };
  static const char * const functions[] = { "main", "train_step", "preprocess", "conv_block", "dense",
                                            "attention", "update" };
  /* file, function, line; frame: location, parent */
  static const gint64 locations[][3] = { { 1, 1, 12 }, { 2, 2, 20 }, { 2, 3, 22 }, { 3, 4, 25 },
                                         { 3, 5, 30 }, { 3, 6, 40 }, { 2, 7, 70 } };
  static const gint64 frames[][2] = { { 1, 0 }, { 2, 1 }, { 3, 2 }, { 4, 2 }, { 5, 2 }, { 6, 2 }, { 7, 2 } };
  GByteArray *b = g_byte_array_new ();

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    hlo_string (b, 1, files[i]);
  for (guint i = 0; i < G_N_ELEMENTS (functions); i++)
    hlo_string (b, 2, functions[i]);
  for (guint i = 0; i < G_N_ELEMENTS (locations); i++)
    {
      GByteArray *loc = g_byte_array_new ();

      hlo_varint (loc, 1, (guint64) locations[i][0]);
      hlo_varint (loc, 2, (guint64) locations[i][1]);
      hlo_varint (loc, 3, (guint64) locations[i][2]);
      hlo_message (b, 3, loc);
    }
  for (guint i = 0; i < G_N_ELEMENTS (frames); i++)
    {
      GByteArray *frame = g_byte_array_new ();

      hlo_varint (frame, 1, (guint64) frames[i][0]);
      if (frames[i][1] != 0)
        hlo_varint (frame, 2, (guint64) frames[i][1]);
      hlo_message (b, 4, frame);
    }
  return b;
}

/* --hlo-instructions N: a computation of N elementwise instructions, each
 * on the one before, with op names of 1000 layers. */
static GByteArray *
hlo_padding (guint64 n)
{
  GByteArray *b = g_byte_array_new ();

  hlo_string (b, 1, "padding");
  for (guint64 i = 0; i < n; i++)
    {
      char name[32], op_name[64];
      HloIns in = { name, i == 0 ? "parameter" : "add", 1000 + (gint64) i, T_F32, A2 (8192, 1024),
                    { 1000 + (gint64) i - 1, 1000 + (gint64) i - 1 }, i == 0 ? 0 : 2, 0, op_name,
                    (gint) (100 + i % 900), (gint) (2 + i % 6) };

      g_snprintf (name, sizeof name, "%s.%" G_GUINT64_FORMAT, in.opcode, 100 + i);
      g_snprintf (op_name, sizeof op_name, "layer_%" G_GUINT64_FORMAT "/add", i % 1000);
      hlo_message (b, 2, hlo_instruction (&in));
    }
  hlo_varint (b, 5, 120);
  hlo_varint (b, 6, 1000 + n - 1);
  return b;
}

/* The entry: hlo_entry, then an instruction for each GPU kernel's op not
 * in it, its opcode from its name ("loop_select_fusion.1": a fusion,
 * "all-gather-start.1": all-gather-start), on the first parameter. */
static GByteArray *
hlo_entry_computation (void)
{
  g_autoptr(GArray) ins = g_array_new (FALSE, FALSE, sizeof (HloIns));
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const HloIns *tuple = &hlo_entry[G_N_ELEMENTS (hlo_entry) - 1];

  g_array_append_vals (ins, hlo_entry, G_N_ELEMENTS (hlo_entry) - 1);
  for (guint j = 0; j < N_GPU_OPS; j++)
    {
      const char *op = gpu_program[j].hlo_op;
      gboolean known = op == NULL;
      HloIns in = { 0 };
      char *opcode, *dot;

      for (guint i = 0; i < ins->len && !known; i++)
        known = strcmp (g_array_index (ins, HloIns, i).name, op) == 0;
      if (known)
        continue;
      opcode = g_strdup (op);
      if ((dot = strchr (opcode, '.')) != NULL)
        *dot = '\0';
      if (strstr (opcode, "fusion") != NULL || g_str_has_prefix (opcode, "wrapped_"))
        strcpy (opcode, "fusion");
      g_ptr_array_add (names, opcode);
      in = (HloIns) { op, opcode, 200 + j, T_BF16, A2 (8192, 1024), { 1 }, 1, 0, opcode, (gint) (80 + j),
                      (gint) (2 + j % 6) };
      if (strcmp (opcode, "fusion") == 0)
        {
          in.called = 104;
          in.fusion_kind = "kLoop";
        }
      g_array_append_val (ins, in);
    }
  g_array_append_vals (ins, tuple, 1);
  return hlo_computation ("main.1", 100, (const HloIns *) (gconstpointer) ins->data, ins->len, FALSE);
}

/* HloProto { hlo_module 1: HloModuleProto { name 1,
 * entry_computation_name 2, computations 3 (callees first), id 5,
 * entry_computation_id 6, stack_frame_index 17 } }. */
static GByteArray *
hlo_proto (gint64 program_id)
{
  GByteArray *module = g_byte_array_new ();
  GByteArray *proto = g_byte_array_new ();

  hlo_string (module, 1, HLO_MODULE);
  hlo_string (module, 2, "main.1");
  hlo_message (module, 3, hlo_computation ("fused_concatenate", 101, hlo_fused_concat,
                                           G_N_ELEMENTS (hlo_fused_concat), TRUE));
  hlo_message (module, 3, hlo_computation ("fused_convert", 102, hlo_fused_convert,
                                           G_N_ELEMENTS (hlo_fused_convert), TRUE));
  hlo_message (module, 3, hlo_computation ("fused_dot", 103, hlo_fused_dot, G_N_ELEMENTS (hlo_fused_dot), TRUE));
  hlo_message (module, 3, hlo_computation ("fused_elementwise", 104, hlo_fused_elementwise,
                                           G_N_ELEMENTS (hlo_fused_elementwise), TRUE));
  hlo_message (module, 3, hlo_computation ("fused_softmax", 105, hlo_fused_softmax,
                                           G_N_ELEMENTS (hlo_fused_softmax), TRUE));
  hlo_message (module, 3, hlo_computation ("add_reducer", 106, hlo_fused_elementwise, 1, FALSE));
  hlo_message (module, 3, hlo_computation ("remat", 111, hlo_remat, G_N_ELEMENTS (hlo_remat), FALSE));
  hlo_message (module, 3, hlo_computation ("while_body", 110, hlo_body, G_N_ELEMENTS (hlo_body), FALSE));
  if (gen_hlo_padding > 0)
    hlo_message (module, 3, hlo_padding (gen_hlo_padding));
  hlo_message (module, 3, hlo_entry_computation ());
  hlo_varint (module, 5, (guint64) program_id);
  hlo_varint (module, 6, 100);
  hlo_message (module, 17, hlo_frames ());
  hlo_message (proto, 1, module);
  return proto;
}

/* XProf's /host:metadata: one event metadata per program, its id the
 * program id, its stats "Hlo Proto" (bytes) and "program_id". */
static Plane *
metadata_plane_new (const Profile *profile)
{
  Plane *plane = plane_new (sizeof (Plane), 0, "/host:metadata", profile);
  guint32 st_proto = metadata_stat (&plane->meta, "Hlo Proto");
  guint32 st_program = metadata_stat (&plane->meta, "program_id");

  plane->raw_metadata = g_byte_array_new ();
  for (guint64 k = 0; k < gen_hlo_programs; k++)
    {
      gint64 program_id = PROGRAM_ID + (gint64) k;
      g_autoptr(GByteArray) proto = hlo_proto (program_id);
      g_autoptr(GByteArray) md = g_byte_array_new ();
      g_autoptr(GByteArray) stat = g_byte_array_new ();
      g_autoptr(GByteArray) entry = g_byte_array_new ();
      g_autofree char *name = g_strdup_printf (HLO_MODULE "(%" G_GINT64_FORMAT ")", program_id);
      Stat pid = stat_int (st_program, program_id);

      hlo_varint (stat, 1, st_proto);
      hlo_bytes (stat, 6, proto->data, proto->len);
      hlo_varint (md, 1, (guint64) program_id);
      hlo_string (md, 2, name);
      hlo_bytes (md, 5, stat->data, stat->len);
      bytes_stat_field (md, 5, &pid);
      hlo_varint (entry, 1, (guint64) program_id);
      hlo_bytes (entry, 2, md->data, md->len);
      hlo_bytes (plane->raw_metadata, 4, entry->data, entry->len);
    }
  return plane;
}

/* ------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------ */

static const char * const gpu_plane_names[N_GPUS] = {
  "/device:GPU:0",
  "/device:GPU:1",
};

enum
{
  PLANE_HOST,
  PLANE_GPU_FIRST,
  PLANE_TPU = PLANE_GPU_FIRST + N_GPUS,
  PLANE_TASK_ENVIRONMENT,
  PLANE_METADATA,
  N_PLANE_SLOTS,
};

static gboolean
write_space (const Profile  *profile,
             int             fd,
             guint64        *n_bytes,
             GError        **error)
{
  g_autofree guint8 *buffer = g_malloc (SINK_BUFFER_SIZE);
  g_autofree char *hostname = g_strdup_printf ("host%u", profile->host_index);
  Sink sink = { .fd = fd, .buffer = buffer };
  guint64 n_events = 0;

  /* Only one plane's metadata is in memory at a time. */
  for (guint slot = 0; slot < N_PLANE_SLOTS; slot++)
    {
      g_autoptr(Plane) plane = NULL;

      if (slot == PLANE_HOST)
        plane = host_plane_new (profile);
      else if (slot < PLANE_TPU)
        plane = gpu_plane_new (profile, slot - PLANE_GPU_FIRST,
                               gpu_plane_names[slot - PLANE_GPU_FIRST]);
      else if (slot == PLANE_TPU)
        plane = tpu_plane_new (profile);
      else if (slot == PLANE_TASK_ENVIRONMENT && profile->task_environment)
        plane = task_environment_plane_new (profile);
      else if (slot == PLANE_METADATA && gen_hlo)
        plane = metadata_plane_new (profile);

      if (plane != NULL)
        write_plane (&sink, plane, &n_events);
    }

  sink_put_len_prefix (&sink, 4, strlen (hostname));
  sink_put (&sink, hostname, strlen (hostname));
  sink_flush (&sink);

  if (sink.saved_errno != 0)
    {
      g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (sink.saved_errno),
                           g_strerror (sink.saved_errno));
      return FALSE;
    }

  /* The exact count is what the benchmarks and tests rely on. */
  if (n_events != profile->n_events)
    g_error ("generated %" G_GUINT64_FORMAT " events instead of %" G_GUINT64_FORMAT,
             n_events, profile->n_events);

  *n_bytes = sink.written;
  return TRUE;
}

/* Renames @from to @to; without @replace an existing @to is an error
 * (G_FILE_ERROR_EXIST), checked atomically where the file system can. */
static gboolean
move_into_place (const char  *from,
                 const char  *to,
                 gboolean     replace,
                 GError     **error)
{
  int r;
  int saved_errno;

  if (replace)
    {
      r = rename (from, to);
    }
  else
    {
      r = renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
      if (r != 0 && (errno == EINVAL || errno == ENOSYS))
        {
          /* Some file systems cannot rename without replacing. */
          if (g_file_test (to, G_FILE_TEST_EXISTS))
            {
              errno = EEXIST;
              r = -1;
            }
          else
            {
              r = rename (from, to);
            }
        }
    }

  if (r == 0)
    return TRUE;

  saved_errno = errno;
  if (saved_errno == EEXIST || saved_errno == ENOTEMPTY)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                 "%s exists already (use --force to replace it)", to);
  else
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                 "Could not rename %s to %s: %s", from, to, g_strerror (saved_errno));
  return FALSE;
}

/* Writes one XSpace to @path through a hidden temporary file in the same
 * folder, so that readers never see a partial profile. */
static gboolean
write_profile_file (const Profile  *profile,
                    const char     *path,
                    gboolean        replace,
                    guint64        *n_bytes,
                    GError        **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmp_name = g_strdup_printf (".%s.XXXXXX", base);
  g_autofree char *tmp_path = g_build_filename (dir, tmp_name, NULL);
  g_autoptr(GError) local_error = NULL;
  int fd;

  fd = g_mkstemp_full (tmp_path, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Could not create a temporary file in %s: %s", dir, g_strerror (saved_errno));
      return FALSE;
    }

  if (!write_space (profile, fd, n_bytes, &local_error))
    {
      close (fd);
      g_unlink (tmp_path);
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "Could not write %s: ", path);
      return FALSE;
    }

  if (close (fd) != 0)
    {
      int saved_errno = errno;

      g_unlink (tmp_path);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Could not write %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }

  if (!move_into_place (tmp_path, path, replace, error))
    {
      g_unlink (tmp_path);
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  guint64  seed;
  guint64  n_events;
  guint    n_hosts;
  gboolean epoch_timestamps;
  gboolean task_environment;
  gboolean host_offload;
  gboolean force;
} GenOptions;

static gboolean
write_single (const GenOptions  *options,
              const char        *path,
              guint64           *n_bytes,
              GError           **error)
{
  Profile profile;

  profile_init (&profile, options->seed, 0, options->n_events,
                options->epoch_timestamps, options->task_environment);
  profile.host_offload = options->host_offload;
  return write_profile_file (&profile, path, options->force, n_bytes, error);
}

static void
remove_session_files (const char *dir,
                      guint       n_hosts)
{
  for (guint i = 0; i < n_hosts; i++)
    {
      g_autofree char *name = g_strdup_printf ("host%u.xplane.pb", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

/* Writes a session folder with one file per host. A new folder is filled
 * under a hidden name and renamed into place, so that a half-written session
 * is never visible (the demo relies on that to be reusable). */
static gboolean
write_session (const GenOptions  *options,
               const char        *dir,
               guint64           *n_bytes,
               GError           **error)
{
  g_autofree char *parent = g_path_get_dirname (dir);
  g_autofree char *base = g_path_get_basename (dir);
  g_autofree char *tmp_dir = NULL;
  gboolean exists = g_file_test (dir, G_FILE_TEST_EXISTS);
  const char *target = dir;

  if (exists && !options->force)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                   "%s exists already (use --force to replace it)", dir);
      return FALSE;
    }
  if (exists && !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                   "%s exists and is not a folder", dir);
      return FALSE;
    }

  if (!exists)
    {
      g_autofree char *tmp_name = g_strdup_printf (".%s.XXXXXX", base);

      tmp_dir = g_build_filename (parent, tmp_name, NULL);
      if (g_mkdtemp_full (tmp_dir, 0755) == NULL)
        {
          int saved_errno = errno;

          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                       "Could not create a folder in %s: %s", parent, g_strerror (saved_errno));
          return FALSE;
        }
      target = tmp_dir;
    }

  *n_bytes = 0;
  for (guint i = 0; i < options->n_hosts; i++)
    {
      g_autofree char *name = g_strdup_printf ("host%u.xplane.pb", i);
      g_autofree char *path = g_build_filename (target, name, NULL);
      Profile profile;
      guint64 bytes = 0;

      profile_init (&profile, options->seed, i, options->n_events,
                    options->epoch_timestamps, options->task_environment);
      profile.host_offload = options->host_offload;
      if (!write_profile_file (&profile, path, TRUE, &bytes, error))
        {
          if (tmp_dir != NULL)
            remove_session_files (tmp_dir, i);
          return FALSE;
        }
      *n_bytes += bytes;
    }

  if (tmp_dir != NULL && !move_into_place (tmp_dir, dir, FALSE, error))
    {
      remove_session_files (tmp_dir, options->n_hosts);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Command line
 * ------------------------------------------------------------------------ */

/* Accepts "1000000" as well as "1e6", which is how benchmarks spell sizes. */
static gboolean
parse_count (const char *text,
             guint64    *out)
{
  const char *e = strpbrk (text, "eE");
  g_autofree char *mantissa_text = NULL;
  guint64 mantissa;
  guint64 exponent;

  if (e == NULL)
    return g_ascii_string_to_unsigned (text, 10, 0, MAX_EVENTS, out, NULL);

  mantissa_text = g_strndup (text, e - text);
  if (!g_ascii_string_to_unsigned (mantissa_text, 10, 0, MAX_EVENTS, &mantissa, NULL)
      || !g_ascii_string_to_unsigned (e + 1, 10, 0, 11, &exponent, NULL))
    return FALSE;
  for (; exponent > 0; exponent--)
    {
      if (mantissa > MAX_EVENTS / 10)
        return FALSE;
      mantissa *= 10;
    }
  *out = mantissa;
  return TRUE;
}

static int
usage_error (const char *message)
{
  g_printerr ("planar-gen: %s\nTry \"planar-gen --help\" for more information.\n", message);
  return EXIT_BAD_ARGUMENTS;
}

static int
report_error (const GError *error)
{
  g_printerr ("planar-gen: %s\n", error->message);
  /* Refusing to overwrite is a usage problem, not an I/O failure. */
  if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_EXIST))
    return EXIT_BAD_ARGUMENTS;
  return EXIT_IO_FAILURE;
}

static void
report_written (guint64     n_events,
                guint64     n_bytes,
                const char *path)
{
  g_print ("wrote %" G_GUINT64_FORMAT " events (%" G_GUINT64_FORMAT " bytes) to %s\n",
           n_events, n_bytes, path);
}

static int
run_demo (const char *dir)
{
  g_autofree char *profile_dir = g_build_filename (dir, "plugins", "profile", NULL);
  g_autofree char *session = g_build_filename (profile_dir, DEMO_SESSION, NULL);
  g_autoptr(GError) error = NULL;
  GenOptions options = {
    .seed = DEMO_SEED,
    .n_events = DEMO_EVENTS,
    .n_hosts = DEMO_HOSTS,
    .task_environment = TRUE,
  };
  guint64 n_bytes = 0;

  /* The demo is the same every time, so an existing one is reused. */
  if (g_file_test (session, G_FILE_TEST_EXISTS))
    {
      g_print ("reusing the demo session in %s\n", session);
      return EXIT_SUCCESS;
    }

  if (g_mkdir_with_parents (profile_dir, 0755) != 0)
    {
      int saved_errno = errno;

      g_printerr ("planar-gen: Could not create %s: %s\n", profile_dir, g_strerror (saved_errno));
      return EXIT_IO_FAILURE;
    }

  if (!write_session (&options, session, &n_bytes, &error))
    {
      /* Another planar-gen finished the same demo first. */
      if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_EXIST)
          && g_file_test (session, G_FILE_TEST_IS_DIR))
        {
          g_print ("reusing the demo session in %s\n", session);
          return EXIT_SUCCESS;
        }
      return report_error (error);
    }

  report_written (options.n_events * options.n_hosts, n_bytes, session);
  return EXIT_SUCCESS;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *events_text = NULL;
  g_autofree char *seed_text = NULL;
  g_autofree char *output = NULL;
  g_autofree char *demo = NULL;
  g_autofree char *hlo_padding_text = NULL;
  g_autofree char *hlo_programs_text = NULL;
  int n_hosts = -1;   /* -1: not given */
  gboolean no_task_env = FALSE;
  gboolean epoch_timestamps = FALSE;
  gboolean host_offload = FALSE;
  gboolean force = FALSE;
  GenOptions options = { .seed = 1, .n_hosts = 1, .task_environment = TRUE };
  guint64 n_bytes = 0;
  GOptionEntry entries[] = {
    { "events", 'n', 0, G_OPTION_ARG_STRING, &events_text,
      "Number of XEvents in each file, all lines together (e.g. 100000 or 1e7)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_STRING, &seed_text,
      "Seed of the content (default 1); the same arguments give the same bytes", "S" },
    { "hosts", 0, 0, G_OPTION_ARG_INT, &n_hosts,
      "Write a session folder with H files host<i>.xplane.pb", "H" },
    { "no-task-env", 0, 0, G_OPTION_ARG_NONE, &no_task_env,
      "Leave out the Task Environment plane", NULL },
    { "epoch-timestamps", 0, 0, G_OPTION_ARG_NONE, &epoch_timestamps,
      "Write line timestamps as wall-clock nanoseconds instead of relative to the profile start", NULL },
    { "host-offload", 0, 0, G_OPTION_ARG_NONE, &host_offload,
      "Make the TPU's copy-start/copy-done copies to the host's memory (XLA host offloading)", NULL },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force,
      "Replace an existing output", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "The file to write, or the session folder to create with --hosts", "PATH" },
    { "hlo", 0, 0, G_OPTION_ARG_NONE, &gen_hlo,
      "Add the program's HloProto on /host:metadata and a program_id to the GPU kernels", NULL },
    { "hlo-instructions", 0, 0, G_OPTION_ARG_STRING, &hlo_padding_text,
      "With --hlo: N more instructions in the module (e.g. 1e6)", "N" },
    { "hlo-programs", 0, 0, G_OPTION_ARG_STRING, &hlo_programs_text,
      "With --hlo: the module as N programs (1 to 64, default 1), the steps' kernels running them in turn", "N" },
    { "no-group-ids", 0, 0, G_OPTION_ARG_NONE, &gen_no_group_ids,
      "Leave the group_id out of the GPU events, as JAX's profiles do (the host's step roots mark the steps)", NULL },
    { "demo", 0, 0, G_OPTION_ARG_FILENAME, &demo,
      "Write the demo log directory DIR/plugins/profile/" DEMO_SESSION " (kept if present)", "DIR" },
    G_OPTION_ENTRY_NULL
  };

  g_set_prgname ("planar-gen");
  context = g_option_context_new ("- write synthetic XProf profiles");
  g_option_context_set_summary (context,
    "Writes an XSpace (*.xplane.pb) with exactly N events: two GPUs, a TPU and a host\n"
    "with correlated launches, in the same proportions at every N.\n"
    "Prints \"wrote N events (B bytes) to PATH\".");
  g_option_context_add_main_entries (context, entries, NULL);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (error->message);
  if (argc > 1)
    {
      g_autofree char *message = g_strdup_printf ("unexpected argument \"%s\"", argv[1]);

      return usage_error (message);
    }

  if (demo != NULL)
    {
      if (events_text != NULL || seed_text != NULL || output != NULL || n_hosts != -1
          || no_task_env || epoch_timestamps || host_offload || force)
        return usage_error ("--demo takes no other option");
      return run_demo (demo);
    }

  if (events_text == NULL)
    return usage_error ("--events is required");
  if (!parse_count (events_text, &options.n_events))
    {
      g_autofree char *message =
        g_strdup_printf ("--events must be a whole number from 0 to %" G_GUINT64_FORMAT ", not \"%s\"",
                         MAX_EVENTS, events_text);

      return usage_error (message);
    }
  if (seed_text != NULL)
    {
      gint64 seed;

      if (!g_ascii_string_to_signed (seed_text, 10, G_MININT64, G_MAXINT64, &seed, NULL))
        return usage_error ("--seed must be an integer");
      options.seed = (guint64) seed;
    }
  if (hlo_padding_text != NULL &&
      (!gen_hlo || !parse_count (hlo_padding_text, &gen_hlo_padding) || gen_hlo_padding > 100000000))
    return usage_error ("--hlo-instructions takes a count up to 1e8, with --hlo");
  if (hlo_programs_text != NULL &&
      (!gen_hlo || !parse_count (hlo_programs_text, &gen_hlo_programs) || gen_hlo_programs < 1 || gen_hlo_programs > 64))
    return usage_error ("--hlo-programs takes a count from 1 to 64, with --hlo");
  if (n_hosts != -1 && (n_hosts < 1 || n_hosts > 1024))
    return usage_error ("--hosts must be between 1 and 1024");
  if (output == NULL || output[0] == '\0')
    return usage_error ("-o PATH is required");

  options.epoch_timestamps = epoch_timestamps;
  options.task_environment = !no_task_env;
  options.host_offload = host_offload;
  options.force = force;

  if (n_hosts > 1)
    {
      options.n_hosts = (guint) n_hosts;
      if (!write_session (&options, output, &n_bytes, &error))
        return report_error (error);
      report_written (options.n_events * options.n_hosts, n_bytes, output);
      return EXIT_SUCCESS;
    }

  /* Fail before spending minutes on a large profile that cannot be kept. */
  if (!force && g_file_test (output, G_FILE_TEST_EXISTS))
    {
      g_printerr ("planar-gen: %s exists already (use --force to replace it)\n", output);
      return EXIT_BAD_ARGUMENTS;
    }
  if (!write_single (&options, output, &n_bytes, &error))
    return report_error (error);
  report_written (options.n_events, n_bytes, output);
  return EXIT_SUCCESS;
}
