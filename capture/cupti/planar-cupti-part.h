/* planar-cupti-part.h: the file each recorded process leaves behind.
 *
 * The injection library (libplanar-cupti.so) runs inside the user's
 * program, where it may use libc only. It decodes CUPTI's records into the
 * plain structs below and appends them to a "part" file, one per process;
 * `planar-cli record` merges the parts of a run into one XSpace
 * (planar-cupti-merge.c). Both sides are built from this header in the
 * same build, so the layout is native; the header's magic, version, byte
 * order mark and sizes let the reader refuse anything else.
 *
 * A part is a PlanarCuptiPartHeader followed by records. A record is a
 * PlanarCuptiRecordHeader, a fixed struct for its type, then the strings
 * whose lengths the struct gives, in order, each without a terminator, the
 * whole padded with zeros to a multiple of 8 bytes (the header's size).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define PLANAR_CUPTI_PART_MAGIC "PLNRCUP1"
/* 2: a device's record holds its UUID. */
#define PLANAR_CUPTI_PART_VERSION 2
#define PLANAR_CUPTI_PART_BOM 0x01020304u
#define PLANAR_CUPTI_PART_SUFFIX ".planar-part"

/* Environment shared by the library and `planar-cli record`. */
#define PLANAR_CUPTI_ENV_PART_DIR    "PLANAR_OUTPUT_DIR"
#define PLANAR_CUPTI_ENV_LIBRARY     "PLANAR_CUPTI_LIBRARY"
#define PLANAR_CUPTI_ENV_DURATION_MS "PLANAR_RECORD_DURATION_MS"
#define PLANAR_CUPTI_ENV_NVTX        "PLANAR_RECORD_NVTX"
#define PLANAR_CUPTI_ENV_MAX_EVENTS  "PLANAR_RECORD_MAX_EVENTS"

/* XLA's default caps: at most this many callback and activity events. */
#define PLANAR_CUPTI_DEFAULT_MAX_EVENTS 2097152u

typedef struct
{
  char     magic[8];
  uint32_t version;
  uint32_t bom;
  uint32_t header_size;
  uint32_t pid;
  /* The CUPTI clock and the wall clock (CLOCK_REALTIME) read together
   * when tracing started; device and API times are moved onto the wall
   * clock by their difference. */
  uint64_t start_cupti_ns;
  uint64_t start_walltime_ns;
  uint64_t stop_cupti_ns;
  /* Events over the caps, and records CUPTI itself dropped. */
  uint64_t dropped_api;
  uint64_t dropped_activity;
  uint64_t dropped_by_cupti;
  /* Set when the library wrote the part completely (at exit, or when the
   * time limit stopped tracing). A part without it was cut short. */
  uint32_t complete;
  uint32_t reserved;
} PlanarCuptiPartHeader;

typedef enum
{
  PLANAR_CUPTI_REC_API = 1,
  PLANAR_CUPTI_REC_KERNEL,
  PLANAR_CUPTI_REC_MEMCPY,
  PLANAR_CUPTI_REC_MEMSET,
  PLANAR_CUPTI_REC_MARKER,
  PLANAR_CUPTI_REC_MARKER_DATA,
  PLANAR_CUPTI_REC_OVERHEAD,
  PLANAR_CUPTI_REC_DEVICE,
  PLANAR_CUPTI_REC_THREAD,
  PLANAR_CUPTI_REC_MESSAGE,
  PLANAR_CUPTI_REC_LAST
} PlanarCuptiRecordType;

typedef struct
{
  uint32_t type;
  /* Of the whole record, this header included; a multiple of 8. */
  uint32_t size;
} PlanarCuptiRecordHeader;

/* A driver API call seen through CUPTI's callbacks. */
typedef struct
{
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t tid;
  uint32_t cbid;
  uint32_t correlation_id;
  uint32_t device_id;
  uint32_t context_id;
  /* 1 when the call is a kernel launch (the name is the kernel's). */
  uint32_t is_launch;
  uint32_t name_len;
  uint32_t pad;
  /* name */
} PlanarCuptiApi;

typedef struct
{
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t graph_node_id;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  int32_t  grid[3];
  int32_t  block[3];
  int32_t  static_shared;
  int32_t  dynamic_shared;
  uint32_t registers;
  uint32_t graph_id;
  uint32_t channel_id;
  uint32_t name_len;
  /* name */
} PlanarCuptiKernel;

typedef struct
{
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t bytes;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  /* The other device of a peer copy (the destination), else device_id. */
  uint32_t dst_device_id;
  uint8_t  copy_kind;
  uint8_t  src_kind;
  uint8_t  dst_kind;
  uint8_t  flags;
  uint32_t graph_id;
  uint32_t pad;
} PlanarCuptiMemcpy;

typedef struct
{
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t bytes;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  uint32_t value;
  uint16_t flags;
  uint16_t memory_kind;
  uint32_t graph_id;
  uint32_t pad;
} PlanarCuptiMemset;

/* One NVTX marker record (start, end or instantaneous); the merge pairs
 * start and end by id. */
typedef struct
{
  uint64_t timestamp_ns;
  uint32_t id;
  uint32_t flags;
  uint32_t object_kind;
  uint32_t tid;
  uint32_t name_len;
  uint32_t domain_len;
  /* name, domain */
} PlanarCuptiMarker;

typedef struct
{
  uint32_t id;
  uint32_t payload_len;
  /* payload, as text */
} PlanarCuptiMarkerData;

typedef struct
{
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t overhead_kind;
  uint32_t object_kind;
  /* A thread's id, or a device's id. */
  uint32_t object_id;
  uint32_t name_len;
  /* name (the kind, spelled out) */
} PlanarCuptiOverhead;

typedef struct
{
  uint64_t global_memory_size;
  /* Bytes per second. */
  uint64_t global_memory_bandwidth;
  uint32_t id;
  uint32_t sm_count;
  /* kHz */
  uint32_t core_clock_khz;
  uint32_t compute_major;
  uint32_t compute_minor;
  /* The device's UUID (all zero: unknown): the same GPU in every process,
   * whatever number each gives it (CUDA_VISIBLE_DEVICES). */
  uint8_t  uuid[16];
  uint32_t name_len;
  /* name */
} PlanarCuptiDevice;

typedef struct
{
  uint32_t tid;
  uint32_t name_len;
  /* name */
} PlanarCuptiThread;

typedef enum
{
  PLANAR_CUPTI_MESSAGE_WARNING = 1,
  PLANAR_CUPTI_MESSAGE_ERROR = 2,
} PlanarCuptiMessageLevel;

typedef struct
{
  uint32_t level;
  uint32_t text_len;
  /* text */
} PlanarCuptiMessage;

/* A growable byte buffer (malloc); `failed` is set once an allocation
 * failed, after which appends are dropped. */
typedef struct
{
  uint8_t *data;
  size_t   len;
  size_t   cap;
  int      failed;
} PlanarCuptiBuf;

void planar_cupti_buf_clear  (PlanarCuptiBuf *buf);

/* Appends one record: @fixed (@fixed_len bytes) then @n_strings strings
 * (NULL counts as empty), padded to 8 bytes. The string lengths must have
 * been stored in @fixed by the caller; planar_cupti_str_len() gives them
 * capped the way the record stores them. */
void planar_cupti_buf_append (PlanarCuptiBuf *buf,
                              uint32_t        type,
                              const void     *fixed,
                              size_t          fixed_len,
                              int             n_strings,
                              ...);

uint32_t planar_cupti_str_len (const char *s);
