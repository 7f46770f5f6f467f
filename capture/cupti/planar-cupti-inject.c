/* planar-cupti-inject.c: libplanar-cupti.so, loaded by the CUDA driver into
 * each process `planar-cli record` starts (CUDA_INJECTION64_PATH).
 *
 * The driver calls InitializeInjection() from cuInit. With NVTX recorded,
 * NVTX calls InitializeInjectionNvtx2() at the program's first NVTX call,
 * which may come before any CUDA call: recording starts there, and the
 * call is then handed to CUPTI's own entry. InitializeInjection loads libcupti,
 * subscribes to the driver API calls XLA records, enables the activity
 * kinds XLA enables, and appends what comes back, decoded, to a part file
 * in $PLANAR_OUTPUT_DIR. Tracing stops at exit, or after
 * $PLANAR_RECORD_DURATION_MS; then the part is completed and renamed into
 * place (`<pid>-<start>.planar-part`), for `planar-cli record` to merge.
 *
 * It runs inside someone else's program: libc, libdl and libpthread only,
 * no GLib, nothing printed unless something went wrong, and a failure
 * never stops the program; it is written into the part instead.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <cupti.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "planar-cupti-decode.h"
#include "planar-cupti-locate.h"

#define EXPORT __attribute__ ((visibility ("default")))

int InitializeInjection (void) EXPORT;
/* NVTX's injection entry (NVTX_INJECTION64_PATH); its argument is NVTX's
 * NvtxGetExportTableFunc_t. */
int InitializeInjectionNvtx2 (const void *(*get_export_table) (uint32_t)) EXPORT;

/* CUPTI's entry points, looked up in the library it was loaded from. */
#define CUPTI_FUNCTIONS(X) \
  X (cuptiSubscribe) \
  X (cuptiUnsubscribe) \
  X (cuptiEnableCallback) \
  X (cuptiEnableDomain) \
  X (cuptiActivityEnable) \
  X (cuptiActivityDisable) \
  X (cuptiActivityRegisterCallbacks) \
  X (cuptiActivityFlushAll) \
  X (cuptiActivityGetNextRecord) \
  X (cuptiActivityGetNumDroppedRecords) \
  X (cuptiGetTimestamp) \
  X (cuptiGetDeviceId) \
  X (cuptiSetThreadIdType) \
  X (cuptiFinalize) \
  X (cuptiGetResultString)

#define DECLARE(name) static __typeof__ (&name) p_##name;
CUPTI_FUNCTIONS (DECLARE)
#undef DECLARE

/* Write the buffer out once it holds this much. */
#define FLUSH_AT (1u << 20)
/* Size of the activity buffers handed to CUPTI. */
#define ACTIVITY_BUFFER_SIZE (1u << 20)

enum
{
  STATE_OFF,
  STATE_TRACING,
  STATE_STOPPING,
  STATE_DONE,
};

/* Recursive: CUPTI may call back (on_callback, on_buffer_completed) from
 * inside a call made with it held. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static int state = STATE_OFF;
static pid_t owner_pid;
static int part_fd = -1;
static char part_dir[4000];
static char temp_path[sizeof part_dir + 64];
static PlanarCuptiBuf buf;
static PlanarCuptiPartHeader header;
static uint64_t max_events = PLANAR_CUPTI_DEFAULT_MAX_EVENTS;
static uint64_t n_api;
static uint64_t n_activity;
static CUpti_SubscriberHandle subscriber;
static int activities_enabled;
static int nvtx_enabled;
static __thread pid_t thread_named;

/* The driver API calls XLA subscribes to (CUDA 13 cupti_driver_cbid.h):
 * launches, copies, memsets, allocations and graph launches. Not the
 * runtime API: runtime calls reach the driver, and both would put each
 * launch on the host line twice. */
static const CUpti_CallbackId driver_callbacks[] = {
  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
  CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
  CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice,
  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoH_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoHAsync_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoA_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoA_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoAAsync_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync,
  CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
  CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
  CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
  CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2,
  CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
  CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
  CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
  CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
  CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
  CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,
};

static const CUpti_ActivityKind activity_kinds[] = {
  CUPTI_ACTIVITY_KIND_DEVICE,
  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
  CUPTI_ACTIVITY_KIND_MEMCPY,
  CUPTI_ACTIVITY_KIND_MEMCPY2,
  CUPTI_ACTIVITY_KIND_MEMSET,
  CUPTI_ACTIVITY_KIND_OVERHEAD,
};

static const CUpti_ActivityKind nvtx_kinds[] = {
  CUPTI_ACTIVITY_KIND_MARKER,
  CUPTI_ACTIVITY_KIND_MARKER_DATA,
};

static int
is_launch (CUpti_CallbackId cbid)
{
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel
    || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel
    || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice
    || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx;
}

static uint64_t
wall_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static uint64_t
cupti_ns (void)
{
  uint64_t t = 0;

  if (p_cuptiGetTimestamp == NULL || p_cuptiGetTimestamp (&t) != CUPTI_SUCCESS)
    return wall_ns ();
  return t;
}

static int
write_all (int         fd,
           const void *data,
           size_t      len,
           off_t       offset)
{
  const uint8_t *p = data;

  while (len > 0)
    {
      ssize_t n = offset >= 0 ? pwrite (fd, p, len, offset) : write (fd, p, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return 0;
      p += n;
      len -= (size_t) n;
      if (offset >= 0)
        offset += n;
    }
  return 1;
}

/* Called with the lock held. */
static void
flush_buffer_locked (void)
{
  if (part_fd >= 0 && buf.len > 0)
    {
      if (!write_all (part_fd, buf.data, buf.len, -1))
        {
          close (part_fd);
          part_fd = -1;
        }
    }
  buf.len = 0;
}

/* Called with the lock held. */
static void
message_locked (PlanarCuptiMessageLevel  level,
                const char              *format,
                ...)
{
  PlanarCuptiMessage m;
  char text[1024];
  va_list args;

  va_start (args, format);
  vsnprintf (text, sizeof text, format, args);
  va_end (args);
  m.level = level;
  m.text_len = planar_cupti_str_len (text);
  planar_cupti_buf_append (&buf, PLANAR_CUPTI_REC_MESSAGE, &m, sizeof m, 1, text);
}

static const char *
result_string (CUptiResult result)
{
  const char *s = NULL;

  if (p_cuptiGetResultString == NULL || p_cuptiGetResultString (result, &s) != CUPTI_SUCCESS || s == NULL)
    return "unknown CUPTI error";
  return s;
}

/* Names each thread once, the first time one of its calls is recorded.
 * Called with the lock held. */
static void
name_thread_locked (pid_t tid)
{
  PlanarCuptiThread t;
  char name[17] = "";

  if (thread_named == tid)
    return;
  thread_named = tid;
  prctl (PR_GET_NAME, name, 0, 0, 0);
  name[16] = '\0';
  t.tid = (uint32_t) tid;
  t.name_len = planar_cupti_str_len (name);
  planar_cupti_buf_append (&buf, PLANAR_CUPTI_REC_THREAD, &t, sizeof t, 1, name);
}

static void CUPTIAPI
on_callback (void                *userdata,
             CUpti_CallbackDomain domain,
             CUpti_CallbackId     cbid,
             const void          *data)
{
  const CUpti_CallbackData *cb = data;
  PlanarCuptiApi api;
  const char *name;
  uint32_t device = 0;
  pid_t tid;

  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || cb == NULL)
    return;
  if (cb->callbackSite == CUPTI_API_ENTER)
    {
      if (cb->correlationData != NULL)
        *cb->correlationData = cupti_ns ();
      return;
    }
  if (cb->correlationData == NULL || *cb->correlationData == 0)
    return;
  memset (&api, 0, sizeof api);
  api.start_ns = *cb->correlationData;
  api.end_ns = cupti_ns ();
  tid = gettid ();
  if (cb->context != NULL && p_cuptiGetDeviceId (cb->context, &device) != CUPTI_SUCCESS)
    device = 0;
  api.tid = (uint32_t) tid;
  api.cbid = cbid;
  api.correlation_id = cb->correlationId;
  api.device_id = device;
  api.context_id = cb->contextUid;
  api.is_launch = is_launch (cbid) && cb->symbolName != NULL;
  name = api.is_launch ? cb->symbolName : cb->functionName;
  api.name_len = planar_cupti_str_len (name);

  pthread_mutex_lock (&lock);
  if (state == STATE_TRACING && getpid () == owner_pid)
    {
      if (n_api >= max_events)
        header.dropped_api++;
      else
        {
          n_api++;
          name_thread_locked (tid);
          planar_cupti_buf_append (&buf, PLANAR_CUPTI_REC_API, &api, sizeof api, 1, name);
          if (buf.len >= FLUSH_AT)
            flush_buffer_locked ();
        }
    }
  pthread_mutex_unlock (&lock);
}

static void CUPTIAPI
on_buffer_requested (uint8_t **buffer,
                     size_t   *size,
                     size_t   *max_records)
{
  /* NULL makes CUPTI drop records, which it then counts. */
  *buffer = aligned_alloc (8, ACTIVITY_BUFFER_SIZE);
  *size = *buffer != NULL ? ACTIVITY_BUFFER_SIZE : 0;
  *max_records = 0;
}

static void CUPTIAPI
on_buffer_completed (CUcontext ctx,
                     uint32_t  stream_id,
                     uint8_t  *buffer,
                     size_t    size,
                     size_t    valid_size)
{
  CUpti_Activity *record = NULL;
  size_t dropped = 0;

  pthread_mutex_lock (&lock);
  if ((state == STATE_TRACING || state == STATE_STOPPING) && getpid () == owner_pid)
    {
      while (valid_size > 0 && p_cuptiActivityGetNextRecord (buffer, valid_size, &record) == CUPTI_SUCCESS)
        {
          if (n_activity >= max_events)
            {
              /* Only events count against the cap; a device's
               * description always gets through. */
              if (record->kind != CUPTI_ACTIVITY_KIND_DEVICE && record->kind != CUPTI_ACTIVITY_KIND_MARKER_DATA)
                {
                  header.dropped_activity++;
                  continue;
                }
            }
          n_activity += (uint64_t) planar_cupti_decode_activity (&buf, record);
          if (buf.len >= FLUSH_AT)
            flush_buffer_locked ();
        }
      if (p_cuptiActivityGetNumDroppedRecords (ctx, stream_id, &dropped) == CUPTI_SUCCESS)
        header.dropped_by_cupti += dropped;
    }
  pthread_mutex_unlock (&lock);
  free (buffer);
}

/* Completes the part: the records still buffered, then the header with
 * the final counts, then the rename that makes it visible. Called with
 * the lock held. */
static void
finish_part_locked (void)
{
  char final_path[sizeof part_dir + 96];

  flush_buffer_locked ();
  planar_cupti_buf_clear (&buf);
  if (part_fd < 0)
    return;
  header.complete = 1;
  if (!write_all (part_fd, &header, sizeof header, 0))
    header.complete = 0;
  close (part_fd);
  part_fd = -1;
  snprintf (final_path, sizeof final_path, "%s/%ld-%llu%s", part_dir, (long) owner_pid,
            (unsigned long long) header.start_walltime_ns, PLANAR_CUPTI_PART_SUFFIX);
  if (!header.complete || rename (temp_path, final_path) != 0)
    unlink (temp_path);
}

static void
stop_tracing (void)
{
  pthread_mutex_lock (&lock);
  if (state != STATE_TRACING || getpid () != owner_pid)
    {
      pthread_mutex_unlock (&lock);
      return;
    }
  state = STATE_STOPPING;
  header.stop_cupti_ns = cupti_ns ();
  pthread_mutex_unlock (&lock);

  /* Outside the lock: flushing calls on_buffer_completed. */
  if (subscriber != NULL)
    p_cuptiEnableDomain (0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  if (activities_enabled)
    {
      for (size_t i = 0; i < sizeof activity_kinds / sizeof activity_kinds[0]; i++)
        p_cuptiActivityDisable (activity_kinds[i]);
      if (nvtx_enabled)
        for (size_t i = 0; i < sizeof nvtx_kinds / sizeof nvtx_kinds[0]; i++)
          p_cuptiActivityDisable (nvtx_kinds[i]);
      p_cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
  if (subscriber != NULL)
    p_cuptiUnsubscribe (subscriber);
  subscriber = NULL;
  p_cuptiFinalize ();

  pthread_mutex_lock (&lock);
  if (header.dropped_api > 0 || header.dropped_activity > 0)
    message_locked (PLANAR_CUPTI_MESSAGE_WARNING,
                    "more than %llu events: %llu API calls and %llu device events were dropped "
                    "(PLANAR_RECORD_MAX_EVENTS raises the limit)",
                    (unsigned long long) max_events, (unsigned long long) header.dropped_api,
                    (unsigned long long) header.dropped_activity);
  finish_part_locked ();
  state = STATE_DONE;
  pthread_mutex_unlock (&lock);
}

static void
at_exit (void)
{
  stop_tracing ();
}

/* A fork that does not exec shares our part file: the child keeps out. */
static void
after_fork_in_child (void)
{
  pthread_mutexattr_t attr;

  pthread_mutexattr_init (&attr);
  pthread_mutexattr_settype (&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init (&lock, &attr);
  pthread_mutexattr_destroy (&attr);
  if (part_fd >= 0)
    close (part_fd);
  part_fd = -1;
  buf.data = NULL;
  buf.len = buf.cap = 0;
  state = STATE_DONE;
}

static void *
stop_later (void *data)
{
  uint64_t ms = (uint64_t) (uintptr_t) data;
  struct timespec ts = { (time_t) (ms / 1000), (long) (ms % 1000) * 1000000L };

  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
  stop_tracing ();
  return NULL;
}

static uint64_t
env_u64 (const char *name,
         uint64_t    fallback)
{
  const char *v = getenv (name);
  char *end = NULL;
  unsigned long long n;

  if (v == NULL || v[0] == '\0')
    return fallback;
  errno = 0;
  n = strtoull (v, &end, 10);
  if (errno != 0 || end == v || *end != '\0')
    return fallback;
  return n;
}

static int
open_part (void)
{
  const char *dir = getenv (PLANAR_CUPTI_ENV_PART_DIR);

  if (dir == NULL || dir[0] == '\0')
    {
      fprintf (stderr, "libplanar-cupti: %s is not set; nothing will be recorded\n", PLANAR_CUPTI_ENV_PART_DIR);
      return 0;
    }
  if (strlen (dir) >= sizeof part_dir)
    {
      fprintf (stderr, "libplanar-cupti: %s is too long; nothing will be recorded\n", PLANAR_CUPTI_ENV_PART_DIR);
      return 0;
    }
  memcpy (part_dir, dir, strlen (dir) + 1);
  snprintf (temp_path, sizeof temp_path, "%s/.%ld.planar-part.XXXXXX", part_dir, (long) getpid ());
  part_fd = mkostemp (temp_path, O_CLOEXEC);
  if (part_fd < 0)
    {
      fprintf (stderr, "libplanar-cupti: cannot write in %s: %s\n", part_dir, strerror (errno));
      return 0;
    }
  memset (&header, 0, sizeof header);
  memcpy (header.magic, PLANAR_CUPTI_PART_MAGIC, sizeof header.magic);
  header.version = PLANAR_CUPTI_PART_VERSION;
  header.bom = PLANAR_CUPTI_PART_BOM;
  header.header_size = sizeof header;
  header.pid = (uint32_t) getpid ();
  /* Incomplete until finish_part_locked() writes it again. */
  if (!write_all (part_fd, &header, sizeof header, -1))
    {
      close (part_fd);
      unlink (temp_path);
      part_fd = -1;
      return 0;
    }
  return 1;
}

/* The libcupti loaded, for InitializeInjectionNvtx2 to hand on to. */
static void *cupti_handle;
/* Set while InitializeInjection runs on this thread: CUPTI may start CUDA
 * from inside it (when NVTX came first), and cuInit then calls
 * InitializeInjection again, which must not wait for itself. */
static __thread int initializing;

static int
load_cupti (void)
{
  char path[4096];
  char error[1024];
  void *handle = planar_cupti_open (path, sizeof path, error, sizeof error);

  if (handle == NULL)
    {
      message_locked (PLANAR_CUPTI_MESSAGE_ERROR, "%s", error);
      return 0;
    }
#define RESOLVE(name) \
  p_##name = (__typeof__ (p_##name)) dlsym (handle, #name); \
  if (p_##name == NULL) \
    { \
      message_locked (PLANAR_CUPTI_MESSAGE_ERROR, "%s lacks %s; is it libcupti?", path, #name); \
      return 0; \
    }
  CUPTI_FUNCTIONS (RESOLVE)
#undef RESOLVE
  cupti_handle = handle;
  return 1;
}

static int
start_tracing (void)
{
  CUptiResult r;

  r = p_cuptiSubscribe (&subscriber, on_callback, NULL);
  if (r != CUPTI_SUCCESS)
    {
      subscriber = NULL;
      if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        message_locked (PLANAR_CUPTI_MESSAGE_ERROR,
                        "CUPTI needs the right to read GPU performance counters "
                        "(NVreg_RestrictProfilingToAdminUsers=0, or run as root): %s", result_string (r));
      else if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        message_locked (PLANAR_CUPTI_MESSAGE_ERROR,
                        "another CUPTI client is active in this process (another profiler, or Nsight): %s",
                        result_string (r));
      else
        message_locked (PLANAR_CUPTI_MESSAGE_ERROR, "cuptiSubscribe failed: %s", result_string (r));
      return 0;
    }
  for (size_t i = 0; i < sizeof driver_callbacks / sizeof driver_callbacks[0]; i++)
    {
      r = p_cuptiEnableCallback (1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, driver_callbacks[i]);
      if (r != CUPTI_SUCCESS)
        message_locked (PLANAR_CUPTI_MESSAGE_WARNING, "cannot trace driver call %u: %s",
                        (unsigned) driver_callbacks[i], result_string (r));
    }
  /* Thread ids as the system knows them: gettid(), the host lines' ids. */
  p_cuptiSetThreadIdType (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  r = p_cuptiActivityRegisterCallbacks (on_buffer_requested, on_buffer_completed);
  if (r != CUPTI_SUCCESS)
    {
      message_locked (PLANAR_CUPTI_MESSAGE_ERROR, "cuptiActivityRegisterCallbacks failed: %s", result_string (r));
      return 1;
    }
  for (size_t i = 0; i < sizeof activity_kinds / sizeof activity_kinds[0]; i++)
    {
      r = p_cuptiActivityEnable (activity_kinds[i]);
      if (r != CUPTI_SUCCESS)
        message_locked (PLANAR_CUPTI_MESSAGE_WARNING, "cannot record activity kind %d: %s",
                        (int) activity_kinds[i], result_string (r));
    }
  if (nvtx_enabled)
    for (size_t i = 0; i < sizeof nvtx_kinds / sizeof nvtx_kinds[0]; i++)
      {
        r = p_cuptiActivityEnable (nvtx_kinds[i]);
        if (r != CUPTI_SUCCESS)
          message_locked (PLANAR_CUPTI_MESSAGE_WARNING, "cannot record NVTX ranges: %s", result_string (r));
      }
  activities_enabled = 1;
  return 1;
}

static int initialize (void);

int
InitializeInjection (void)
{
  int r;

  if (initializing)
    return 1;
  initializing = 1;
  r = initialize ();
  initializing = 0;
  return r;
}

int
InitializeInjectionNvtx2 (const void *(*get_export_table) (uint32_t))
{
  int (*cupti_entry) (const void *(*) (uint32_t));

  /* Recording starts at the first NVTX call, so that a range opened
   * before the program's first CUDA call is kept; then CUPTI, which
   * turns NVTX calls into the records decoded here, gets the call. */
  InitializeInjection ();
  if (cupti_handle == NULL)
    return 0;
  cupti_entry = (__typeof__ (cupti_entry)) dlsym (cupti_handle, "InitializeInjectionNvtx2");
  if (cupti_entry == NULL)
    {
      pthread_mutex_lock (&lock);
      message_locked (PLANAR_CUPTI_MESSAGE_WARNING, "libcupti lacks InitializeInjectionNvtx2; no NVTX ranges");
      pthread_mutex_unlock (&lock);
      return 0;
    }
  return cupti_entry (get_export_table);
}

static int
initialize (void)
{
  uint64_t duration_ms;

  pthread_mutex_lock (&lock);
  if (state != STATE_OFF)
    {
      pthread_mutex_unlock (&lock);
      return 1;
    }
  state = STATE_DONE;
  owner_pid = getpid ();
  if (!open_part ())
    {
      pthread_mutex_unlock (&lock);
      return 1;
    }
  max_events = env_u64 (PLANAR_CUPTI_ENV_MAX_EVENTS, PLANAR_CUPTI_DEFAULT_MAX_EVENTS);
  nvtx_enabled = env_u64 (PLANAR_CUPTI_ENV_NVTX, 0) != 0;
  duration_ms = env_u64 (PLANAR_CUPTI_ENV_DURATION_MS, 0);
  pthread_atfork (NULL, NULL, after_fork_in_child);
  if (!load_cupti ())
    {
      /* The part says why; the program goes on untraced. */
      finish_part_locked ();
      pthread_mutex_unlock (&lock);
      return 1;
    }
  header.start_cupti_ns = cupti_ns ();
  header.start_walltime_ns = wall_ns ();
  /* CUPTI calls back from inside these: on_callback takes the lock. */
  state = STATE_TRACING;
  pthread_mutex_unlock (&lock);

  pthread_mutex_lock (&lock);
  if (!start_tracing ())
    {
      state = STATE_DONE;
      header.stop_cupti_ns = header.start_cupti_ns;
      finish_part_locked ();
      pthread_mutex_unlock (&lock);
      return 1;
    }
  pthread_mutex_unlock (&lock);
  atexit (at_exit);
  if (duration_ms > 0)
    {
      pthread_t thread;
      pthread_attr_t attr;

      pthread_attr_init (&attr);
      pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
      if (pthread_create (&thread, &attr, stop_later, (void *) (uintptr_t) duration_ms) != 0)
        {
          pthread_mutex_lock (&lock);
          message_locked (PLANAR_CUPTI_MESSAGE_WARNING, "cannot start the time limit's thread; tracing until exit");
          pthread_mutex_unlock (&lock);
        }
      pthread_attr_destroy (&attr);
    }
  return 1;
}
