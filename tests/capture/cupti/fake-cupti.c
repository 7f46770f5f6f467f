/* fake-cupti.c: a stand-in for libcupti, for testing libplanar-cupti.so on
 * machines without a GPU.
 *
 * It exports the CUPTI entry points the injection library uses, with
 * CUPTI's behaviour as far as the library can see it: one subscriber,
 * callbacks only for enabled driver calls, activity records (CUDA 13
 * layouts) only for enabled kinds, delivered in buffers the library hands
 * out, on flush or when a buffer fills. Its own clock runs apart from the
 * wall clock, as a real GPU's may.
 *
 * The stand-in "program" (fake-cuda-app.c) drives it through the
 * fake_cupti_* functions, and every CUPTI call the library makes is
 * logged, one line each, to $FAKE_CUPTI_LOG for the tests to check.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <cupti.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__ ((visibility ("default")))

/* Our clock: monotonic time plus a day, far from the wall clock. */
#define CLOCK_SHIFT_NS (86400ull * 1000000000ull)
/* Records kept before a buffer is asked for. */
#define PENDING_MAX 64

static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static CUpti_CallbackFunc callback;
static void *callback_userdata;
static int subscribed;
static unsigned char driver_enabled[CUPTI_DRIVER_TRACE_CBID_SIZE];
static unsigned char kind_enabled[64];
static CUpti_BuffersCallbackRequestFunc request_buffer;
static CUpti_BuffersCallbackCompleteFunc complete_buffer;
static uint32_t next_correlation = 1;
static uint8_t pending[PENDING_MAX][256];
static size_t pending_size[PENDING_MAX];
static int n_pending;
static size_t dropped;
static int devices_described;

static void
log_call (const char *format,
          ...)
{
  const char *path = getenv ("FAKE_CUPTI_LOG");
  char line[512];
  int n;
  va_list args;
  int fd;

  if (path == NULL)
    return;
  n = snprintf (line, sizeof line, "%ld ", (long) getpid ());
  va_start (args, format);
  n += vsnprintf (line + n, sizeof line - (size_t) n - 1, format, args);
  va_end (args);
  line[n++] = '\n';
  fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0)
    {
      if (write (fd, line, (size_t) n) < 0)
        perror ("fake-cupti");
      close (fd);
    }
}

static uint64_t
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec + CLOCK_SHIFT_NS;
}

/* Hands the pending records to the library in one of its buffers. */
static void
deliver (void)
{
  uint8_t *buffer = NULL;
  size_t size = 0, max_records = 0, used = 0;

  if (n_pending == 0 || request_buffer == NULL || complete_buffer == NULL)
    return;
  request_buffer (&buffer, &size, &max_records);
  if (buffer == NULL)
    {
      dropped += (size_t) n_pending;
      n_pending = 0;
      return;
    }
  for (int i = 0; i < n_pending && used + pending_size[i] <= size; i++)
    {
      memcpy (buffer + used, pending[i], pending_size[i]);
      used += pending_size[i];
    }
  n_pending = 0;
  complete_buffer (NULL, 0, buffer, size, used);
}

static void
queue (const void *record,
       size_t      size)
{
  CUpti_ActivityKind kind = *(const CUpti_ActivityKind *) record;

  if ((size_t) kind >= sizeof kind_enabled || !kind_enabled[kind])
    return;
  if (n_pending == PENDING_MAX)
    deliver ();
  memcpy (pending[n_pending], record, size);
  pending_size[n_pending] = (size + 7) & ~(size_t) 7;
  n_pending++;
}

/* ------------------------------------------------------------------------
 * CUPTI's entry points
 * ------------------------------------------------------------------------ */

/* NVTX's injection entry, which the real libcupti has too. */
EXPORT int InitializeInjectionNvtx2 (const void *(*get_export_table) (uint32_t));

EXPORT int
InitializeInjectionNvtx2 (const void *(*get_export_table) (uint32_t))
{
  (void) get_export_table;
  log_call ("nvtx_init");
  return 1;
}

EXPORT CUptiResult CUPTIAPI
cuptiSubscribe (CUpti_SubscriberHandle *subscriber,
                CUpti_CallbackFunc      func,
                void                   *userdata)
{
  log_call ("subscribe");
  if (getenv ("NVTX_INJECTION64_PATH") != NULL)
    log_call ("nvtx_injection %s", getenv ("NVTX_INJECTION64_PATH"));
  if (getenv ("FAKE_CUPTI_DENY") != NULL)
    return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  if (subscribed)
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  subscribed = 1;
  callback = func;
  callback_userdata = userdata;
  *subscriber = (CUpti_SubscriberHandle) &subscribed;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiUnsubscribe (CUpti_SubscriberHandle subscriber)
{
  log_call ("unsubscribe");
  subscribed = 0;
  callback = NULL;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiEnableCallback (uint32_t               enable,
                     CUpti_SubscriberHandle subscriber,
                     CUpti_CallbackDomain   domain,
                     CUpti_CallbackId       cbid)
{
  log_call ("enable_callback %u %u %u", enable, (unsigned) domain, (unsigned) cbid);
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || cbid >= CUPTI_DRIVER_TRACE_CBID_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  driver_enabled[cbid] = enable != 0;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiEnableDomain (uint32_t               enable,
                   CUpti_SubscriberHandle subscriber,
                   CUpti_CallbackDomain   domain)
{
  log_call ("enable_domain %u %u", enable, (unsigned) domain);
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    memset (driver_enabled, enable != 0, sizeof driver_enabled);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityEnable (CUpti_ActivityKind kind)
{
  log_call ("activity_enable %d", (int) kind);
  if ((size_t) kind >= sizeof kind_enabled)
    return CUPTI_ERROR_INVALID_KIND;
  kind_enabled[kind] = 1;
  /* CUPTI describes the devices once the kind is on. */
  if (kind == CUPTI_ACTIVITY_KIND_DEVICE && !devices_described)
    {
      int n = getenv ("FAKE_CUPTI_DEVICES") != NULL ? atoi (getenv ("FAKE_CUPTI_DEVICES")) : 1;

      devices_described = 1;
      for (int i = 0; i < n; i++)
        {
          CUpti_ActivityDevice5 d;

          memset (&d, 0, sizeof d);
          d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
          d.id = (uint32_t) i;
          d.name = "Fake GPU H1";
          d.numMultiprocessors = 132;
          d.coreClockRate = 1980000;
          d.globalMemorySize = 80ull << 30;
          d.globalMemoryBandwidth = 3350000000ull;
          d.computeCapabilityMajor = 9;
          d.computeCapabilityMinor = 0;
          /* Each device its UUID; FAKE_CUPTI_UUID_BASE shifts them, so
           * that two processes can see different GPUs as device 0. */
          memset (d.uuid.bytes, 0x5a, sizeof d.uuid.bytes);
          d.uuid.bytes[0] = (char) (i + (getenv ("FAKE_CUPTI_UUID_BASE") != NULL
                                         ? atoi (getenv ("FAKE_CUPTI_UUID_BASE")) : 0) + 1);
          pthread_mutex_lock (&lock);
          queue (&d, sizeof d);
          pthread_mutex_unlock (&lock);
        }
    }
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityDisable (CUpti_ActivityKind kind)
{
  log_call ("activity_disable %d", (int) kind);
  if ((size_t) kind < sizeof kind_enabled)
    kind_enabled[kind] = 0;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityRegisterCallbacks (CUpti_BuffersCallbackRequestFunc  request,
                                CUpti_BuffersCallbackCompleteFunc complete)
{
  log_call ("register_callbacks");
  request_buffer = request;
  complete_buffer = complete;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityFlushAll (uint32_t flag)
{
  log_call ("flush_all %u", flag);
  pthread_mutex_lock (&lock);
  deliver ();
  pthread_mutex_unlock (&lock);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityGetNextRecord (uint8_t         *buffer,
                            size_t           valid_size,
                            CUpti_Activity **record)
{
  size_t offset = 0;

  if (*record != NULL)
    {
      size_t size;

      switch ((*record)->kind)
        {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: size = sizeof (CUpti_ActivityKernel10); break;
        case CUPTI_ACTIVITY_KIND_MEMCPY: size = sizeof (CUpti_ActivityMemcpy6); break;
        case CUPTI_ACTIVITY_KIND_MEMCPY2: size = sizeof (CUpti_ActivityMemcpyPtoP4); break;
        case CUPTI_ACTIVITY_KIND_MEMSET: size = sizeof (CUpti_ActivityMemset4); break;
        case CUPTI_ACTIVITY_KIND_MARKER: size = sizeof (CUpti_ActivityMarker2); break;
        case CUPTI_ACTIVITY_KIND_MARKER_DATA: size = sizeof (CUpti_ActivityMarkerData2); break;
        case CUPTI_ACTIVITY_KIND_OVERHEAD: size = sizeof (CUpti_ActivityOverhead3); break;
        case CUPTI_ACTIVITY_KIND_DEVICE: size = sizeof (CUpti_ActivityDevice5); break;
        default: return CUPTI_ERROR_INVALID_KIND;
        }
      offset = (size_t) ((uint8_t *) *record - buffer) + ((size + 7) & ~(size_t) 7);
    }
  if (offset >= valid_size)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = (CUpti_Activity *) (buffer + offset);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityGetNumDroppedRecords (CUcontext context,
                                   uint32_t  stream_id,
                                   size_t   *n)
{
  *n = dropped;
  dropped = 0;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiGetTimestamp (uint64_t *timestamp)
{
  *timestamp = now ();
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiGetDeviceId (CUcontext  context,
                  uint32_t  *device)
{
  /* Our contexts are device ordinals plus one. */
  *device = (uint32_t) ((uintptr_t) context - 1);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiSetThreadIdType (CUpti_ActivityThreadIdType type)
{
  log_call ("set_thread_id_type %d", (int) type);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiFinalize (void)
{
  log_call ("finalize");
  memset (kind_enabled, 0, sizeof kind_enabled);
  memset (driver_enabled, 0, sizeof driver_enabled);
  request_buffer = NULL;
  complete_buffer = NULL;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiGetResultString (CUptiResult  result,
                      const char **str)
{
  *str = result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : "fake CUPTI error";
  return CUPTI_SUCCESS;
}

/* ------------------------------------------------------------------------
 * The program's side: what a driver call does
 * ------------------------------------------------------------------------ */

/* Calls the subscriber around a driver call, as CUPTI does. Returns the
 * call's correlation id, and when it began in @t: the call lasts 2 us, and
 * the device work it starts runs within that time (as if the call were
 * synchronous), so that nothing outlives a program that exits right away. */
static uint32_t
driver_call (CUpti_CallbackId  cbid,
             const char       *function,
             const char       *symbol,
             uint32_t          device,
             uint64_t         *t)
{
  CUpti_CallbackData data;
  uint64_t slot = 0;
  uint32_t correlation;

  pthread_mutex_lock (&lock);
  correlation = next_correlation++;
  pthread_mutex_unlock (&lock);
  *t = now ();
  if (callback == NULL || !driver_enabled[cbid])
    {
      while (now () - *t < 2000)
        ;
      return correlation;
    }
  memset (&data, 0, sizeof data);
  data.functionName = function;
  data.symbolName = symbol;
  data.context = (CUcontext) (uintptr_t) (device + 1);
  data.contextUid = device + 1;
  data.correlationData = &slot;
  data.correlationId = correlation;
  data.callbackSite = CUPTI_API_ENTER;
  callback (callback_userdata, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &data);
  while (now () - *t < 2000)
    ;
  data.callbackSite = CUPTI_API_EXIT;
  if (callback != NULL)
    callback (callback_userdata, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &data);
  return correlation;
}

EXPORT void fake_cupti_launch (uint32_t device, uint32_t stream, const char *mangled_name);
EXPORT void fake_cupti_memcpy (uint32_t device, uint32_t stream, uint64_t bytes, int copy_kind);
EXPORT void fake_cupti_peer_copy (uint32_t src, uint32_t dst, uint32_t stream, uint64_t bytes);
EXPORT void fake_cupti_memset (uint32_t device, uint32_t stream, uint64_t bytes);
EXPORT void fake_cupti_nvtx_range (uint32_t tid, const char *name, int64_t payload, uint64_t since);
EXPORT uint64_t fake_cupti_now (void);
EXPORT void fake_cupti_overhead (uint32_t tid);

EXPORT void
fake_cupti_launch (uint32_t    device,
                   uint32_t    stream,
                   const char *mangled_name)
{
  uint64_t t;
  uint32_t correlation = driver_call (CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", mangled_name, device,
                                      &t);
  CUpti_ActivityKernel10 k;

  memset (&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = t + 500;
  k.end = t + 1800;
  k.deviceId = device;
  k.contextId = device + 1;
  k.streamId = stream;
  k.correlationId = correlation;
  k.gridX = 128;
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 32;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 0;
  /* CUPTI owns the name for as long as the record is alive. */
  k.name = mangled_name;
  pthread_mutex_lock (&lock);
  queue (&k, sizeof k);
  pthread_mutex_unlock (&lock);
}

EXPORT void
fake_cupti_memcpy (uint32_t device,
                   uint32_t stream,
                   uint64_t bytes,
                   int      copy_kind)
{
  CUpti_CallbackId cbid = copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2
                          : CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2;
  uint64_t t;
  uint32_t correlation = driver_call (cbid, copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? "cuMemcpyHtoDAsync_v2"
                                      : "cuMemcpyDtoHAsync_v2", NULL, device, &t);
  CUpti_ActivityMemcpy6 m;

  memset (&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = (uint8_t) copy_kind;
  m.srcKind = copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? CUPTI_ACTIVITY_MEMORY_KIND_PINNED
              : CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? CUPTI_ACTIVITY_MEMORY_KIND_DEVICE
              : CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  m.bytes = bytes;
  m.start = t + 500;
  m.end = t + 1500;
  m.deviceId = device;
  m.contextId = device + 1;
  m.streamId = stream;
  m.correlationId = correlation;
  pthread_mutex_lock (&lock);
  queue (&m, sizeof m);
  pthread_mutex_unlock (&lock);
}

EXPORT void
fake_cupti_peer_copy (uint32_t src,
                      uint32_t dst,
                      uint32_t stream,
                      uint64_t bytes)
{
  uint64_t t;
  uint32_t correlation = driver_call (CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync, "cuMemcpyPeerAsync", NULL, src, &t);
  CUpti_ActivityMemcpyPtoP4 m;

  memset (&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = bytes;
  m.start = t + 500;
  m.end = t + 1500;
  m.deviceId = src;
  m.srcDeviceId = src;
  m.dstDeviceId = dst;
  m.srcContextId = src + 1;
  m.dstContextId = dst + 1;
  m.contextId = src + 1;
  m.streamId = stream;
  m.correlationId = correlation;
  pthread_mutex_lock (&lock);
  queue (&m, sizeof m);
  pthread_mutex_unlock (&lock);
}

EXPORT void
fake_cupti_memset (uint32_t device,
                   uint32_t stream,
                   uint64_t bytes)
{
  uint64_t t;
  uint32_t correlation = driver_call (CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async, "cuMemsetD32Async", NULL, device,
                                      &t);
  CUpti_ActivityMemset4 m;

  memset (&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.value = 0;
  m.bytes = bytes;
  m.start = t + 200;
  m.end = t + 200;
  m.deviceId = device;
  m.contextId = device + 1;
  m.streamId = stream;
  m.correlationId = correlation;
  m.flags = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  pthread_mutex_lock (&lock);
  queue (&m, sizeof m);
  pthread_mutex_unlock (&lock);
}

EXPORT uint64_t
fake_cupti_now (void)
{
  return now ();
}

/* A range from @since (fake_cupti_now()) to now. */
EXPORT void
fake_cupti_nvtx_range (uint32_t    tid,
                       const char *name,
                       int64_t     payload,
                       uint64_t    since)
{
  static uint32_t next_id = 1;
  CUpti_ActivityMarker2 start, end;
  CUpti_ActivityMarkerData2 data;
  uint32_t id;

  pthread_mutex_lock (&lock);
  id = next_id++;
  memset (&start, 0, sizeof start);
  start.kind = CUPTI_ACTIVITY_KIND_MARKER;
  start.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  start.timestamp = since;
  start.id = id;
  start.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  start.objectId.pt.processId = (uint32_t) getpid ();
  start.objectId.pt.threadId = tid;
  start.name = name;
  start.domain = "";
  end = start;
  end.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  end.timestamp = now ();
  end.name = NULL;
  memset (&data, 0, sizeof data);
  data.kind = CUPTI_ACTIVITY_KIND_MARKER_DATA;
  data.id = id;
  data.payloadKind = CUPTI_METRIC_VALUE_KIND_INT64;
  data.payload.metricValueInt64 = payload;
  queue (&start, sizeof start);
  queue (&data, sizeof data);
  queue (&end, sizeof end);
  pthread_mutex_unlock (&lock);
}

EXPORT void
fake_cupti_overhead (uint32_t tid)
{
  CUpti_ActivityOverhead3 o;
  uint64_t t = now ();

  memset (&o, 0, sizeof o);
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  o.objectId.pt.processId = (uint32_t) getpid ();
  o.objectId.pt.threadId = tid;
  o.start = t - 1500;
  o.end = t - 100;
  pthread_mutex_lock (&lock);
  queue (&o, sizeof o);
  pthread_mutex_unlock (&lock);
}
