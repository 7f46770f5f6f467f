/* planar-cupti-decode.c: CUPTI records into part records (libc only).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cupti-decode.h"
#include "planar-cupti-names.h"

#include <stdio.h>
#include <string.h>

static int
decode_kernel (PlanarCuptiBuf                 *buf,
               const CUpti_ActivityKernel9    *k)
{
  PlanarCuptiKernel out;

  memset (&out, 0, sizeof out);
  out.start_ns = k->start;
  out.end_ns = k->end;
  out.graph_node_id = k->graphNodeId;
  out.device_id = k->deviceId;
  out.context_id = k->contextId;
  out.stream_id = k->streamId;
  out.correlation_id = k->correlationId;
  out.grid[0] = k->gridX;
  out.grid[1] = k->gridY;
  out.grid[2] = k->gridZ;
  out.block[0] = k->blockX;
  out.block[1] = k->blockY;
  out.block[2] = k->blockZ;
  out.static_shared = k->staticSharedMemory;
  out.dynamic_shared = k->dynamicSharedMemory;
  out.registers = k->registersPerThread;
  out.graph_id = k->graphId;
  out.channel_id = k->channelID;
  out.name_len = planar_cupti_str_len (k->name);
  planar_cupti_buf_append (buf, PLANAR_CUPTI_REC_KERNEL, &out, sizeof out, 1, k->name);
  return 1;
}

static int
decode_memcpy (PlanarCuptiBuf              *buf,
               const CUpti_ActivityMemcpy5 *m)
{
  PlanarCuptiMemcpy out;

  memset (&out, 0, sizeof out);
  out.start_ns = m->start;
  out.end_ns = m->end;
  out.bytes = m->bytes;
  out.device_id = m->deviceId;
  out.dst_device_id = m->deviceId;
  out.context_id = m->contextId;
  out.stream_id = m->streamId;
  out.correlation_id = m->correlationId;
  out.copy_kind = m->copyKind;
  out.src_kind = m->srcKind;
  out.dst_kind = m->dstKind;
  out.flags = m->flags;
  out.graph_id = m->graphId;
  planar_cupti_buf_append (buf, PLANAR_CUPTI_REC_MEMCPY, &out, sizeof out, 0);
  return 1;
}

static int
decode_peer_copy (PlanarCuptiBuf                 *buf,
                  const CUpti_ActivityMemcpyPtoP4 *m)
{
  PlanarCuptiMemcpy out;

  memset (&out, 0, sizeof out);
  out.start_ns = m->start;
  out.end_ns = m->end;
  out.bytes = m->bytes;
  /* On the plane of the source device, as XLA places it. */
  out.device_id = m->srcDeviceId;
  out.dst_device_id = m->dstDeviceId;
  out.context_id = m->srcContextId;
  out.stream_id = m->streamId;
  out.correlation_id = m->correlationId;
  out.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  out.src_kind = m->srcKind;
  out.dst_kind = m->dstKind;
  out.flags = m->flags;
  out.graph_id = m->graphId;
  planar_cupti_buf_append (buf, PLANAR_CUPTI_REC_MEMCPY, &out, sizeof out, 0);
  return 1;
}

static int
decode_memset (PlanarCuptiBuf              *buf,
               const CUpti_ActivityMemset4 *m)
{
  PlanarCuptiMemset out;

  memset (&out, 0, sizeof out);
  out.start_ns = m->start;
  out.end_ns = m->end;
  out.bytes = m->bytes;
  out.device_id = m->deviceId;
  out.context_id = m->contextId;
  out.stream_id = m->streamId;
  out.correlation_id = m->correlationId;
  out.value = m->value;
  out.flags = m->flags;
  out.memory_kind = m->memoryKind;
  out.graph_id = m->graphId;
  planar_cupti_buf_append (buf, PLANAR_CUPTI_REC_MEMSET, &out, sizeof out, 0);
  return 1;
}

static int
decode_marker (PlanarCuptiBuf              *buf,
               const CUpti_ActivityMarker2 *m)
{
  PlanarCuptiMarker out;

  /* Only ranges and marks of a thread, as XLA keeps them. */
  if (m->objectKind != CUPTI_ACTIVITY_OBJECT_THREAD)
    return 0;
  memset (&out, 0, sizeof out);
  out.timestamp_ns = m->timestamp;
  out.id = m->id;
  out.flags = m->flags;
  out.object_kind = m->objectKind;
  out.tid = m->objectId.pt.threadId;
  out.name_len = planar_cupti_str_len (m->name);
  out.domain_len = planar_cupti_str_len (m->domain);
  planar_cupti_buf_append (buf, PLANAR_CUPTI_REC_MARKER, &out, sizeof out, 2, m->name, m->domain);
  /* An end or a start is half an event; the start counts. */
  return (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) == 0;
}

static void
decode_marker_data (PlanarCuptiBuf                  *buf,
                    const CUpti_ActivityMarkerData2 *m)
{
  PlanarCuptiMarkerData out;
  char text[64];

  text[0] = '\0';
  switch (m->payloadKind)
    {
    case CUPTI_METRIC_VALUE_KIND_DOUBLE:
    case CUPTI_METRIC_VALUE_KIND_PERCENT:
      snprintf (text, sizeof text, "%.17g", m->payload.metricValueDouble);
      break;
    case CUPTI_METRIC_VALUE_KIND_INT64:
      snprintf (text, sizeof text, "%lld", (long long) m->payload.metricValueInt64);
      break;
    case CUPTI_METRIC_VALUE_KIND_UINT64:
    case CUPTI_METRIC_VALUE_KIND_THROUGHPUT:
      snprintf (text, sizeof text, "%llu", (unsigned long long) m->payload.metricValueUint64);
      break;
    default:
      return;
    }
  memset (&out, 0, sizeof out);
  out.id = m->id;
  out.payload_len = planar_cupti_str_len (text);
  planar_cupti_buf_append (buf, PLANAR_CUPTI_REC_MARKER_DATA, &out, sizeof out, 1, text);
}

static int
decode_overhead (PlanarCuptiBuf                *buf,
                 const CUpti_ActivityOverhead3 *o)
{
  PlanarCuptiOverhead out;
  const char *name = planar_cupti_overhead_kind_name (o->overheadKind);

  memset (&out, 0, sizeof out);
  out.start_ns = o->start;
  out.end_ns = o->end;
  out.overhead_kind = o->overheadKind;
  out.object_kind = o->objectKind;
  switch (o->objectKind)
    {
    case CUPTI_ACTIVITY_OBJECT_THREAD:
    case CUPTI_ACTIVITY_OBJECT_PROCESS:
      out.object_id = o->objectId.pt.threadId;
      break;
    case CUPTI_ACTIVITY_OBJECT_DEVICE:
    case CUPTI_ACTIVITY_OBJECT_CONTEXT:
    case CUPTI_ACTIVITY_OBJECT_STREAM:
      out.object_id = o->objectId.dcs.deviceId;
      break;
    default:
      /* XLA drops overhead of an unknown object too. */
      return 0;
    }
  out.name_len = planar_cupti_str_len (name);
  planar_cupti_buf_append (buf, PLANAR_CUPTI_REC_OVERHEAD, &out, sizeof out, 1, name);
  return 1;
}

static void
decode_device (PlanarCuptiBuf              *buf,
               const CUpti_ActivityDevice5 *d)
{
  PlanarCuptiDevice out;

  memset (&out, 0, sizeof out);
  out.id = d->id;
  out.global_memory_size = d->globalMemorySize;
  /* CUPTI gives KB/s. */
  out.global_memory_bandwidth = d->globalMemoryBandwidth * 1000u;
  out.sm_count = d->numMultiprocessors;
  out.core_clock_khz = d->coreClockRate;
  out.compute_major = d->computeCapabilityMajor;
  out.compute_minor = d->computeCapabilityMinor;
  memcpy (out.uuid, d->uuid.bytes, sizeof out.uuid);
  out.name_len = planar_cupti_str_len (d->name);
  planar_cupti_buf_append (buf, PLANAR_CUPTI_REC_DEVICE, &out, sizeof out, 1, d->name);
}

int
planar_cupti_decode_activity (PlanarCuptiBuf       *buf,
                              const CUpti_Activity *record)
{
  switch (record->kind)
    {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return decode_kernel (buf, (const CUpti_ActivityKernel9 *) record);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return decode_memcpy (buf, (const CUpti_ActivityMemcpy5 *) record);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return decode_peer_copy (buf, (const CUpti_ActivityMemcpyPtoP4 *) record);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return decode_memset (buf, (const CUpti_ActivityMemset4 *) record);
    case CUPTI_ACTIVITY_KIND_MARKER:
      return decode_marker (buf, (const CUpti_ActivityMarker2 *) record);
    case CUPTI_ACTIVITY_KIND_MARKER_DATA:
      decode_marker_data (buf, (const CUpti_ActivityMarkerData2 *) record);
      return 0;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return decode_overhead (buf, (const CUpti_ActivityOverhead3 *) record);
    case CUPTI_ACTIVITY_KIND_DEVICE:
      decode_device (buf, (const CUpti_ActivityDevice5 *) record);
      return 0;
    default:
      return 0;
    }
}
