/* planar-cupti-merge.c: the parts of a recorded run into one XSpace.
 *
 * Lays the events out the way XLA's CUPTI collector does (docs/formats.md
 * §9.7, §9.11), so that XProf and Planar derive the same views from it:
 *  - `/host:CPU`: a line per thread (id = tid) with the driver API calls,
 *    which carry `correlation_id`, `device_id` and `context_id`, so that
 *    each launch gets a flow to its kernel; NVTX ranges on a line of their
 *    own per thread; CUPTI's overhead on the thread's line.
 *  - `/device:GPU:<N>` (plane id N): a line per stream (id = stream id,
 *    "Stream #<id>(Compute,...)"; a line per process, with its pid, for a
 *    stream number several processes used), kernels with `kernel_details`, copies
 *    with `memcpy_details`, memsets with `Memset_details`; the device's
 *    name, SMs, clock and memory as plane stats.
 *  - `Task Environment` with the profile's start and stop times.
 * Device times are moved onto the wall clock with the offset each process
 * measured when tracing began. Correlation ids are made unique across
 * processes (the part's index in the high 32 bits) so flows never cross.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cupti-merge.h"

#include <glib/gi18n-lib.h>

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "planar-capture.h"
#include "planar-cupti-names.h"
#include "planar-cupti-part.h"
#include "planar-hash-private.h"
#include "planar-xspace-writer.h"

#define HOST_PLANE_ID 49
#define TASK_ENV_PLANE_ID 80
/* Line ids past any thread or stream id. */
#define NVTX_LINE_BASE (G_GINT64_CONSTANT (1) << 32)
#define OVERHEAD_LINE_ID (G_GINT64_CONSTANT (1) << 33)

typedef enum
{
  STAT_UINT,
  STAT_INT,
  STAT_DOUBLE,
  STAT_STR,
  STAT_REF,
} StatType;

typedef struct
{
  guint32  metadata_id;
  StatType type;
  union
  {
    guint64 u;
    gint64  i;
    double  d;
    /* STAT_STR: index in Plane.strings; STAT_REF: a stat metadata id. */
    guint32 index;
  };
} Stat;

typedef struct
{
  gint64  start_ns;
  gint64  end_ns;
  guint32 name;
  guint32 first_stat;
  guint32 n_stats;
} Event;

typedef struct
{
  gint64  id;
  char   *name;
  GArray *events;
  /* Stream lines (keyed by process and stream: a stream is one process's
   * own, and another process may have one of the same number): the
   * stream and the process, the id and name written, and what ran on
   * them, for the name. */
  gboolean is_stream;
  guint32  stream_id;
  guint32  pid;
  gint64   write_id;
  gboolean has_kernels;
  guint    copy_kinds;
  gboolean has_memsets;
} Line;

typedef struct
{
  gint64      id;
  char       *name;
  GHashTable *lines;
  GPtrArray  *line_list;
  /* Event metadata: names, id = index + 1. */
  GHashTable *event_ids;
  GPtrArray  *event_names;
  /* Stat metadata: stat names and ref values, id = index + 1. */
  GHashTable *stat_ids;
  GPtrArray  *stat_names;
  GPtrArray  *strings;
  GArray     *stats;
  GArray     *plane_stats;
} Plane;

struct _PlanarCuptiMerge
{
  char       *hostname;
  Plane      *host;
  /* Device planes by the GPU's key (its UUID in hex, or "#N" for a GPU
   * no part described), and by their number. */
  GHashTable *devices;
  GHashTable *devices_by_number;
  GPtrArray  *errors;
  GPtrArray  *warnings;
  GHashTable *thread_names;
  GHashTable *demangled;
  GHashTable *pids;
  gint64      start_ns;
  gint64      stop_ns;
  PlanarCuptiMergeStats stats;
};

/* ------------------------------------------------------------------------
 * Building
 * ------------------------------------------------------------------------ */

static void
line_free (gpointer data)
{
  Line *line = data;

  g_free (line->name);
  g_array_unref (line->events);
  g_free (line);
}

static Plane *
plane_new (gint64      id,
           const char *name)
{
  Plane *plane = g_new0 (Plane, 1);

  plane->id = id;
  plane->name = g_strdup (name);
  plane->lines = g_hash_table_new (g_int64_hash, g_int64_equal);
  plane->line_list = g_ptr_array_new_with_free_func (line_free);
  plane->event_ids = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  plane->event_names = g_ptr_array_new_with_free_func (g_free);
  plane->stat_ids = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  plane->stat_names = g_ptr_array_new_with_free_func (g_free);
  plane->strings = g_ptr_array_new_with_free_func (g_free);
  plane->stats = g_array_new (FALSE, FALSE, sizeof (Stat));
  plane->plane_stats = g_array_new (FALSE, FALSE, sizeof (Stat));
  return plane;
}

static void
plane_free (gpointer data)
{
  Plane *plane = data;

  g_free (plane->name);
  g_hash_table_unref (plane->lines);
  g_ptr_array_unref (plane->line_list);
  g_hash_table_unref (plane->event_ids);
  g_ptr_array_unref (plane->event_names);
  g_hash_table_unref (plane->stat_ids);
  g_ptr_array_unref (plane->stat_names);
  g_ptr_array_unref (plane->strings);
  g_array_unref (plane->stats);
  g_array_unref (plane->plane_stats);
  g_free (plane);
}

static guint32
intern (GHashTable *ids,
        GPtrArray  *names,
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
stat_id (Plane      *plane,
         const char *name)
{
  return intern (plane->stat_ids, plane->stat_names, name);
}

static Line *
plane_line (Plane      *plane,
            gint64      id,
            const char *name)
{
  Line *line = g_hash_table_lookup (plane->lines, &id);

  if (line == NULL)
    {
      line = g_new0 (Line, 1);
      line->id = id;
      line->name = g_strdup (name);
      line->events = g_array_new (FALSE, FALSE, sizeof (Event));
      g_ptr_array_add (plane->line_list, line);
      g_hash_table_insert (plane->lines, &line->id, line);
    }
  return line;
}

/* The line of @stream_id of this part's process on device @plane. */
static Line *
stream_line (const PlanarCuptiPartHeader *header,
             Plane                       *plane,
             guint32                      stream_id)
{
  Line *line = plane_line (plane, ((gint64) header->pid << 32) | stream_id, "");

  line->is_stream = TRUE;
  line->stream_id = stream_id;
  line->pid = header->pid;
  return line;
}

static Event *
line_add_event (Plane      *plane,
                Line       *line,
                const char *name,
                gint64      start_ns,
                gint64      end_ns)
{
  Event e = { start_ns, end_ns, intern (plane->event_ids, plane->event_names, name), plane->stats->len, 0 };

  g_array_append_val (line->events, e);
  return &g_array_index (line->events, Event, line->events->len - 1);
}

static void
add_stat (Plane      *plane,
          GArray     *into,
          Event      *event,
          const char *name,
          StatType    type,
          guint64     u)
{
  Stat s = { stat_id (plane, name), type, { .u = u } };

  g_array_append_val (into, s);
  if (event != NULL)
    event->n_stats++;
}

static void
add_stat_str (Plane      *plane,
              GArray     *into,
              Event      *event,
              const char *name,
              const char *value)
{
  g_ptr_array_add (plane->strings, g_strdup (value));
  add_stat (plane, into, event, name, STAT_STR, plane->strings->len - 1);
}

/* A string shared by many events, stored once as stat metadata. */
static void
add_stat_ref (Plane      *plane,
              Event      *event,
              const char *name,
              const char *value)
{
  add_stat (plane, plane->stats, event, name, STAT_REF, stat_id (plane, value));
}

/* A new device plane numbered @number, under @key. */
static Plane *
device_plane_new (PlanarCuptiMerge *self,
                  const char       *key,
                  guint32           number)
{
  g_autofree char *name = g_strdup_printf ("/device:GPU:%u", number);
  Plane *plane = plane_new (number, name);

  g_hash_table_insert (self->devices, g_strdup (key), plane);
  g_hash_table_insert (self->devices_by_number, GUINT_TO_POINTER (number), plane);
  return plane;
}

/* Kernel names arrive mangled; the C++ runtime of this machine reads
 * them, when there is one. */
static const char *
demangle (PlanarCuptiMerge *self,
          const char       *name)
{
  typedef char *(*DemangleFunc) (const char *, char *, size_t *, int *);
  static DemangleFunc func;
  static gsize once;
  const char *known;
  char *out = NULL;
  int status = -1;

  if (name[0] != '_' || name[1] != 'Z')
    return name;
  known = g_hash_table_lookup (self->demangled, name);
  if (known != NULL)
    return known;
  if (g_once_init_enter (&once))
    {
      void *cxx = dlopen ("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);

      func = cxx != NULL ? (DemangleFunc) dlsym (cxx, "__cxa_demangle") : NULL;
      g_once_init_leave (&once, 1);
    }
  if (func != NULL)
    out = func (name, NULL, NULL, &status);
  if (out == NULL || status != 0)
    {
      free (out);
      out = strdup (name);
    }
  g_hash_table_insert (self->demangled, g_strdup (name), g_strdup (out));
  free (out);
  return g_hash_table_lookup (self->demangled, name);
}

PlanarCuptiMerge *
planar_cupti_merge_new (const char *hostname)
{
  PlanarCuptiMerge *self = g_new0 (PlanarCuptiMerge, 1);

  self->hostname = g_strdup (hostname != NULL ? hostname : g_get_host_name ());
  self->host = plane_new (HOST_PLANE_ID, "/host:CPU");
  self->devices = g_hash_table_new_full (_planar_str_hash, _planar_str_equal, g_free, plane_free);
  self->devices_by_number = g_hash_table_new (NULL, NULL);
  self->errors = g_ptr_array_new_with_free_func (g_free);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  self->thread_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->demangled = g_hash_table_new_full (_planar_str_hash, _planar_str_equal, g_free, g_free);
  self->pids = g_hash_table_new (NULL, NULL);
  self->start_ns = G_MAXINT64;
  self->stop_ns = G_MININT64;
  return self;
}

void
planar_cupti_merge_free (PlanarCuptiMerge *self)
{
  if (self == NULL)
    return;
  g_free (self->hostname);
  plane_free (self->host);
  g_hash_table_unref (self->devices);
  g_hash_table_unref (self->devices_by_number);
  g_ptr_array_unref (self->errors);
  g_ptr_array_unref (self->warnings);
  g_hash_table_unref (self->thread_names);
  g_hash_table_unref (self->demangled);
  g_hash_table_unref (self->pids);
  g_free (self);
}

/* ------------------------------------------------------------------------
 * Reading a part
 * ------------------------------------------------------------------------ */

/* The fixed part of each record type, and how many strings follow. */
static const struct
{
  gsize fixed;
  guint n_strings;
} record_shapes[PLANAR_CUPTI_REC_LAST] = {
  [PLANAR_CUPTI_REC_API] = { sizeof (PlanarCuptiApi), 1 },
  [PLANAR_CUPTI_REC_KERNEL] = { sizeof (PlanarCuptiKernel), 1 },
  [PLANAR_CUPTI_REC_MEMCPY] = { sizeof (PlanarCuptiMemcpy), 0 },
  [PLANAR_CUPTI_REC_MEMSET] = { sizeof (PlanarCuptiMemset), 0 },
  [PLANAR_CUPTI_REC_MARKER] = { sizeof (PlanarCuptiMarker), 2 },
  [PLANAR_CUPTI_REC_MARKER_DATA] = { sizeof (PlanarCuptiMarkerData), 1 },
  [PLANAR_CUPTI_REC_OVERHEAD] = { sizeof (PlanarCuptiOverhead), 1 },
  [PLANAR_CUPTI_REC_DEVICE] = { sizeof (PlanarCuptiDevice), 1 },
  [PLANAR_CUPTI_REC_THREAD] = { sizeof (PlanarCuptiThread), 1 },
  [PLANAR_CUPTI_REC_MESSAGE] = { sizeof (PlanarCuptiMessage), 1 },
};

/* One record, its fixed struct copied out (parts need not be aligned
 * in memory) and its strings. */
typedef struct
{
  guint32 type;
  union
  {
    PlanarCuptiApi        api;
    PlanarCuptiKernel     kernel;
    PlanarCuptiMemcpy     memcpy;
    PlanarCuptiMemset     memset;
    PlanarCuptiMarker     marker;
    PlanarCuptiMarkerData marker_data;
    PlanarCuptiOverhead   overhead;
    PlanarCuptiDevice     device;
    PlanarCuptiThread     thread;
    PlanarCuptiMessage    message;
  };
  char *strings[2];
} Record;

/* The lengths the fixed struct gives for its strings, in order. */
static void
string_lengths (const Record *r,
                guint32       lens[2])
{
  lens[0] = lens[1] = 0;
  switch (r->type)
    {
    case PLANAR_CUPTI_REC_API: lens[0] = r->api.name_len; break;
    case PLANAR_CUPTI_REC_KERNEL: lens[0] = r->kernel.name_len; break;
    case PLANAR_CUPTI_REC_MARKER: lens[0] = r->marker.name_len; lens[1] = r->marker.domain_len; break;
    case PLANAR_CUPTI_REC_MARKER_DATA: lens[0] = r->marker_data.payload_len; break;
    case PLANAR_CUPTI_REC_OVERHEAD: lens[0] = r->overhead.name_len; break;
    case PLANAR_CUPTI_REC_DEVICE: lens[0] = r->device.name_len; break;
    case PLANAR_CUPTI_REC_THREAD: lens[0] = r->thread.name_len; break;
    case PLANAR_CUPTI_REC_MESSAGE: lens[0] = r->message.text_len; break;
    default: break;
    }
}

/* Reads the record at *offset. Returns 1 and advances, 0 at the end, -1
 * with @error set when the bytes are not a record. */
static int
next_record (const guint8  *data,
             gsize          len,
             gsize         *offset,
             Record        *r,
             const char    *name,
             GError       **error)
{
  PlanarCuptiRecordHeader h;
  guint32 lens[2];
  gsize at = *offset;
  gsize body;
  gsize used;

  for (guint i = 0; i < G_N_ELEMENTS (r->strings); i++)
    g_clear_pointer (&r->strings[i], g_free);
  if (at == len)
    return 0;
  if (len - at < sizeof h)
    goto bad;
  memcpy (&h, data + at, sizeof h);
  if (h.size < sizeof h || h.size % 8 != 0 || h.size > len - at || h.type == 0 || h.type >= PLANAR_CUPTI_REC_LAST)
    goto bad;
  body = h.size - sizeof h;
  if (record_shapes[h.type].fixed > body)
    goto bad;
  r->type = h.type;
  memcpy (&r->api, data + at + sizeof h, record_shapes[h.type].fixed);
  string_lengths (r, lens);
  used = record_shapes[h.type].fixed;
  for (guint i = 0; i < record_shapes[h.type].n_strings; i++)
    {
      if (lens[i] > body - used)
        goto bad;
      r->strings[i] = g_strndup ((const char *) data + at + sizeof h + used, lens[i]);
      used += lens[i];
    }
  *offset = at + h.size;
  return 1;

bad:
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: malformed record at byte %zu"), name, at);
  return -1;
}

typedef struct
{
  PlanarCuptiMerge            *self;
  const PlanarCuptiPartHeader *header;
  guint64                      correlation_base;
  GHashTable                  *open_markers;
  GHashTable                  *payloads;
  /* This process's device numbers -> the keys of the GPUs it described
   * (their UUIDs), and -> their planes once found. */
  GHashTable                  *device_keys;
  GHashTable                  *device_planes;
} PartContext;

/* The plane of the GPU this part's process numbers @device. A GPU the
 * process described is known by its UUID, so that processes that number
 * GPUs differently (each its own CUDA_VISIBLE_DEVICES, each seeing its GPU
 * as device 0) get a plane each, and processes on one GPU share its plane;
 * its plane takes the process's number for it when no other GPU has that
 * number, else the lowest free one. A GPU not described is the plane of
 * its number. */
static Plane *
find_device_plane (PartContext *ctx,
                   guint32      device)
{
  PlanarCuptiMerge *self = ctx->self;
  const char *key = g_hash_table_lookup (ctx->device_keys, GUINT_TO_POINTER (device));
  Plane *plane;
  guint32 number = device;

  if (key == NULL)
    {
      g_autofree char *by_number = NULL;

      plane = g_hash_table_lookup (self->devices_by_number, GUINT_TO_POINTER (device));
      if (plane != NULL)
        return plane;
      by_number = g_strdup_printf ("#%u", device);
      return device_plane_new (self, by_number, device);
    }
  plane = g_hash_table_lookup (self->devices, key);
  if (plane != NULL)
    return plane;
  if (g_hash_table_contains (self->devices_by_number, GUINT_TO_POINTER (number)))
    for (number = 0; g_hash_table_contains (self->devices_by_number, GUINT_TO_POINTER (number)); number++)
      ;
  return device_plane_new (self, key, number);
}

/* find_device_plane(), once a part and device number (each of the part's
 * records asks). */
static Plane *
device_plane (PartContext *ctx,
              guint32      device)
{
  Plane *plane = g_hash_table_lookup (ctx->device_planes, GUINT_TO_POINTER (device));

  if (plane == NULL)
    {
      plane = find_device_plane (ctx, device);
      g_hash_table_insert (ctx->device_planes, GUINT_TO_POINTER (device), plane);
    }
  return plane;
}

typedef struct
{
  guint64 timestamp_ns;
  guint32 tid;
  char   *name;
} OpenMarker;

static void
open_marker_free (gpointer data)
{
  OpenMarker *m = data;

  g_free (m->name);
  g_free (m);
}

/* The wall-clock time of a CUPTI timestamp; FALSE for an event outside
 * the traced time (XLA drops those too). */
static gboolean
to_wall (PartContext *ctx,
         guint64      start,
         guint64      end,
         gint64      *start_out,
         gint64      *end_out)
{
  const PlanarCuptiPartHeader *h = ctx->header;

  if (end < start || start < h->start_cupti_ns || (h->stop_cupti_ns != 0 && end > h->stop_cupti_ns))
    {
      ctx->self->stats.n_dropped++;
      return FALSE;
    }
  *start_out = (gint64) (start - h->start_cupti_ns + h->start_walltime_ns);
  *end_out = (gint64) (end - h->start_cupti_ns + h->start_walltime_ns);
  return TRUE;
}

static const char *
thread_name (PlanarCuptiMerge *self,
             guint32           tid)
{
  return g_hash_table_lookup (self->thread_names, GUINT_TO_POINTER (tid));
}

/* Thread @tid's line (its NVTX line with @nvtx) of process @pid. */
static Line *
host_line (PlanarCuptiMerge *self,
           guint32           pid,
           guint32           tid,
           gboolean          nvtx)
{
  Line *line;
  const char *name = thread_name (self, tid);
  g_autofree char *fallback = NULL;
  g_autofree char *nvtx_name = NULL;

  if (name == NULL || name[0] == '\0')
    name = fallback = g_strdup_printf ("Thread %u", tid);
  if (nvtx)
    {
      nvtx_name = g_strdup_printf ("%s NVTX", name);
      line = plane_line (self->host, NVTX_LINE_BASE + tid, nvtx_name);
    }
  else
    line = plane_line (self->host, tid, name);
  line->pid = pid;
  return line;
}

static void
add_context_stat (Plane   *plane,
                  Event   *event,
                  guint32  context)
{
  g_autofree char *text = g_strdup_printf ("$$%u", context);

  add_stat_str (plane, plane->stats, event, "context_id", text);
}

static void
apply_api (PartContext          *ctx,
           const PlanarCuptiApi *api,
           const char           *name)
{
  PlanarCuptiMerge *self = ctx->self;
  gint64 start, end;
  Event *e;
  g_autofree char *fallback = NULL;

  if (!to_wall (ctx, api->start_ns, api->end_ns, &start, &end))
    return;
  if (name[0] == '\0')
    name = fallback = g_strdup_printf ("CUDA driver call %u", api->cbid);
  e = line_add_event (self->host, host_line (self, ctx->header->pid, api->tid, FALSE), demangle (self, name), start, end);
  add_stat (self->host, self->host->stats, e, "correlation_id", STAT_UINT, ctx->correlation_base + api->correlation_id);
  add_stat (self->host, self->host->stats, e, "device_id", STAT_UINT, api->device_id);
  add_context_stat (self->host, e, api->context_id);
  self->stats.n_api_calls++;
}

static void
add_graph_stats (Plane   *plane,
                 Event   *e,
                 guint32  graph_id,
                 guint64  node_id)
{
  if (graph_id != 0)
    add_stat (plane, plane->stats, e, "cuda_graph_id", STAT_UINT, graph_id);
  if (node_id != 0)
    add_stat (plane, plane->stats, e, "cuda_graph_node_id", STAT_UINT, node_id);
}

static void
apply_kernel (PartContext             *ctx,
              const PlanarCuptiKernel *k,
              const char              *name)
{
  PlanarCuptiMerge *self = ctx->self;
  Plane *plane;
  Line *line;
  Event *e;
  gint64 start, end;
  g_autofree char *details = NULL;

  if (!to_wall (ctx, k->start_ns, k->end_ns, &start, &end))
    return;
  plane = device_plane (ctx, k->device_id);
  line = stream_line (ctx->header, plane, k->stream_id);
  line->has_kernels = TRUE;
  e = line_add_event (plane, line, name[0] != '\0' ? demangle (self, name) : "kernel", start, end);
  add_stat (plane, plane->stats, e, "correlation_id", STAT_UINT, ctx->correlation_base + k->correlation_id);
  add_context_stat (plane, e, k->context_id);
  details = g_strdup_printf ("regs:%u static_shared:%d dynamic_shared:%d grid:%d,%d,%d block:%d,%d,%d",
                             k->registers, k->static_shared, k->dynamic_shared, k->grid[0], k->grid[1], k->grid[2],
                             k->block[0], k->block[1], k->block[2]);
  add_stat_ref (plane, e, "kernel_details", details);
  add_graph_stats (plane, e, k->graph_id, k->graph_node_id);
  self->stats.n_kernels++;
}

static const char *
copy_event_name (guint kind)
{
  switch (kind)
    {
    case 1: return "MemcpyH2D";
    case 2: return "MemcpyD2H";
    case 8: return "MemcpyD2D";
    case 10: return "MemcpyP2P";
    default: return "MemcpyOther";
    }
}

static void
apply_memcpy (PartContext             *ctx,
              const PlanarCuptiMemcpy *m)
{
  PlanarCuptiMerge *self = ctx->self;
  Plane *plane;
  Line *line;
  Event *e;
  gint64 start, end;
  g_autofree char *details = NULL;

  if (!to_wall (ctx, m->start_ns, m->end_ns, &start, &end))
    return;
  plane = device_plane (ctx, m->device_id);
  line = stream_line (ctx->header, plane, m->stream_id);
  line->copy_kinds |= 1u << MIN (m->copy_kind, 31u);
  e = line_add_event (plane, line, copy_event_name (m->copy_kind), start, end);
  add_stat (plane, plane->stats, e, "correlation_id", STAT_UINT, ctx->correlation_base + m->correlation_id);
  add_context_stat (plane, e, m->context_id);
  details = g_strdup_printf ("kind_src:%s kind_dst:%s size:%" G_GUINT64_FORMAT " dest:%u async:%d",
                             planar_cupti_memory_kind_name (m->src_kind), planar_cupti_memory_kind_name (m->dst_kind),
                             (guint64) m->bytes, m->dst_device_id, (m->flags & 1) != 0);
  add_stat_ref (plane, e, "memcpy_details", details);
  add_graph_stats (plane, e, m->graph_id, 0);
  self->stats.n_copies++;
}

static void
apply_memset (PartContext             *ctx,
              const PlanarCuptiMemset *m)
{
  PlanarCuptiMerge *self = ctx->self;
  const char *kind = planar_cupti_memory_kind_name (m->memory_kind);
  g_autofree char *name = g_strdup_printf ("Memset %s", kind);
  g_autofree char *details = NULL;
  Plane *plane;
  Line *line;
  Event *e;
  gint64 start, end;

  if (!to_wall (ctx, m->start_ns, m->end_ns, &start, &end))
    return;
  plane = device_plane (ctx, m->device_id);
  line = stream_line (ctx->header, plane, m->stream_id);
  line->has_memsets = TRUE;
  /* At least a nanosecond, as XLA makes them. */
  e = line_add_event (plane, line, name, start, MAX (end, start + 1));
  add_stat (plane, plane->stats, e, "correlation_id", STAT_UINT, ctx->correlation_base + m->correlation_id);
  add_context_stat (plane, e, m->context_id);
  details = g_strdup_printf ("kind:%s num_bytes:%" G_GUINT64_FORMAT " async:%d", kind, (guint64) m->bytes,
                             (m->flags & 1) != 0);
  add_stat_ref (plane, e, "Memset_details", details);
  add_graph_stats (plane, e, m->graph_id, 0);
  self->stats.n_memsets++;
}

static void
apply_overhead (PartContext               *ctx,
                const PlanarCuptiOverhead *o,
                const char                *name)
{
  PlanarCuptiMerge *self = ctx->self;
  gint64 start, end;
  Plane *plane;
  Line *line;

  if (!to_wall (ctx, o->start_ns, o->end_ns, &start, &end))
    return;
  /* CUPTI_ACTIVITY_OBJECT_PROCESS 1, THREAD 2: the thread's line; else
   * the device's. */
  if (o->object_kind == 1 || o->object_kind == 2)
    {
      plane = self->host;
      line = host_line (self, ctx->header->pid, o->object_id, FALSE);
    }
  else
    {
      plane = device_plane (ctx, o->object_id);
      line = plane_line (plane, OVERHEAD_LINE_ID, "CUPTI overhead");
    }
  line_add_event (plane, line, name, start, end);
}

static void
add_nvtx_range (PartContext *ctx,
                guint32      tid,
                const char  *name,
                guint32      id,
                guint64      start_cupti,
                guint64      end_cupti)
{
  PlanarCuptiMerge *self = ctx->self;
  const char *payload = g_hash_table_lookup (ctx->payloads, GUINT_TO_POINTER (id));
  gint64 start, end;
  Event *e;

  if (!to_wall (ctx, start_cupti, end_cupti, &start, &end))
    return;
  e = line_add_event (self->host, host_line (self, ctx->header->pid, tid, TRUE), name, start, end);
  if (payload != NULL)
    add_stat_str (self->host, self->host->stats, e, "marker_payload", payload);
  self->stats.n_nvtx_ranges++;
}

/* CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS 1, START 2, END 4. */
static void
apply_marker (PartContext             *ctx,
              const PlanarCuptiMarker *m,
              const char              *name,
              const char              *domain)
{
  g_autofree char *full = NULL;

  if ((m->flags & 4) != 0)
    {
      OpenMarker *open = g_hash_table_lookup (ctx->open_markers, GUINT_TO_POINTER (m->id));

      if (open == NULL)
        {
          ctx->self->stats.n_dropped++;
          return;
        }
      add_nvtx_range (ctx, open->tid, open->name, m->id, open->timestamp_ns, m->timestamp_ns);
      g_hash_table_remove (ctx->open_markers, GUINT_TO_POINTER (m->id));
      return;
    }
  full = domain[0] != '\0' ? g_strdup_printf ("NVTX:%s:%s", domain, name) : g_strdup_printf ("NVTX:%s", name);
  if ((m->flags & 2) != 0)
    {
      OpenMarker *open = g_new0 (OpenMarker, 1);

      open->timestamp_ns = m->timestamp_ns;
      open->tid = m->tid;
      open->name = g_steal_pointer (&full);
      g_hash_table_replace (ctx->open_markers, GUINT_TO_POINTER (m->id), open);
    }
  else
    add_nvtx_range (ctx, m->tid, full, m->id, m->timestamp_ns, m->timestamp_ns);
}

static void
apply_device (PartContext             *ctx,
              const PlanarCuptiDevice *d,
              const char              *name)
{
  static const guint8 unknown[sizeof d->uuid] = { 0 };
  Plane *plane;
  GArray *s;

  if (memcmp (d->uuid, unknown, sizeof d->uuid) != 0)
    {
      GString *key = g_string_new (NULL);

      for (guint i = 0; i < sizeof d->uuid; i++)
        g_string_append_printf (key, "%02x", d->uuid[i]);
      g_hash_table_replace (ctx->device_keys, GUINT_TO_POINTER (d->id), g_string_free (key, FALSE));
    }
  plane = device_plane (ctx, d->id);
  s = plane->plane_stats;

  if (s->len > 0)
    return;
  add_stat_str (plane, s, NULL, "device_vendor", "Nvidia");
  add_stat_str (plane, s, NULL, "gpu_device_name", name);
  add_stat (plane, s, NULL, "core_count", STAT_INT, d->sm_count);
  add_stat (plane, s, NULL, "clock_rate", STAT_INT, d->core_clock_khz);
  add_stat (plane, s, NULL, "memory_bandwidth", STAT_UINT, d->global_memory_bandwidth);
  add_stat (plane, s, NULL, "memory_size", STAT_UINT, d->global_memory_size);
  add_stat (plane, s, NULL, "compute_cap_major", STAT_INT, d->compute_major);
  add_stat (plane, s, NULL, "compute_cap_minor", STAT_INT, d->compute_minor);
}

static gboolean
read_header (const guint8           *data,
             gsize                   len,
             const char             *name,
             PlanarCuptiPartHeader  *h,
             GError                **error)
{
  if (len < sizeof *h)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: too short to be a recording part"), name);
      return FALSE;
    }
  memcpy (h, data, sizeof *h);
  if (memcmp (h->magic, PLANAR_CUPTI_PART_MAGIC, sizeof h->magic) != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: not a recording part"), name);
      return FALSE;
    }
  if (h->version != PLANAR_CUPTI_PART_VERSION || h->bom != PLANAR_CUPTI_PART_BOM || h->header_size != sizeof *h)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s: a recording part of another version of Planar (%u)"), name, h->version);
      return FALSE;
    }
  if (!h->complete)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: the recording was cut short"), name);
      return FALSE;
    }
  return TRUE;
}

gboolean
planar_cupti_merge_add_part (PlanarCuptiMerge  *self,
                             const guint8      *data,
                             gsize              len,
                             const char        *name,
                             GError           **error)
{
  PlanarCuptiPartHeader h;
  PartContext ctx;
  Record r = { 0 };
  gsize offset;
  int rc;
  guint64 dropped;

  if (!read_header (data, len, name, &h, error))
    return FALSE;
  /* A first pass checks every record, so that a bad part adds nothing. */
  offset = sizeof h;
  while ((rc = next_record (data, len, &offset, &r, name, error)) > 0)
    ;
  if (rc < 0)
    return FALSE;

  ctx.self = self;
  ctx.header = &h;
  ctx.correlation_base = (guint64) self->stats.n_parts << 32;
  ctx.open_markers = g_hash_table_new_full (NULL, NULL, NULL, open_marker_free);
  ctx.payloads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ctx.device_keys = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ctx.device_planes = g_hash_table_new (NULL, NULL);
  /* Names and payloads first: they may come after what they describe. */
  offset = sizeof h;
  while (next_record (data, len, &offset, &r, name, NULL) > 0)
    {
      if (r.type == PLANAR_CUPTI_REC_THREAD)
        g_hash_table_replace (self->thread_names, GUINT_TO_POINTER (r.thread.tid), g_strdup (r.strings[0]));
      else if (r.type == PLANAR_CUPTI_REC_MARKER_DATA)
        g_hash_table_replace (ctx.payloads, GUINT_TO_POINTER (r.marker_data.id), g_strdup (r.strings[0]));
      else if (r.type == PLANAR_CUPTI_REC_DEVICE)
        apply_device (&ctx, &r.device, r.strings[0]);
    }
  offset = sizeof h;
  while (next_record (data, len, &offset, &r, name, NULL) > 0)
    {
      switch (r.type)
        {
        case PLANAR_CUPTI_REC_API: apply_api (&ctx, &r.api, r.strings[0]); break;
        case PLANAR_CUPTI_REC_KERNEL: apply_kernel (&ctx, &r.kernel, r.strings[0]); break;
        case PLANAR_CUPTI_REC_MEMCPY: apply_memcpy (&ctx, &r.memcpy); break;
        case PLANAR_CUPTI_REC_MEMSET: apply_memset (&ctx, &r.memset); break;
        case PLANAR_CUPTI_REC_MARKER: apply_marker (&ctx, &r.marker, r.strings[0], r.strings[1]); break;
        case PLANAR_CUPTI_REC_OVERHEAD: apply_overhead (&ctx, &r.overhead, r.strings[0]); break;
        case PLANAR_CUPTI_REC_MESSAGE:
          g_ptr_array_add (r.message.level == PLANAR_CUPTI_MESSAGE_ERROR ? self->errors : self->warnings,
                           g_strdup_printf ("Process %u: %s", h.pid, r.strings[0]));
          if (r.message.level == PLANAR_CUPTI_MESSAGE_ERROR && self->stats.n_errors++ == 0)
            g_strlcpy (self->stats.first_error, r.strings[0], sizeof self->stats.first_error);
          break;
        default: break;
        }
    }
  /* Ranges still open when tracing stopped are left out, as in XLA. */
  self->stats.n_dropped += g_hash_table_size (ctx.open_markers);
  g_hash_table_unref (ctx.open_markers);
  g_hash_table_unref (ctx.payloads);
  g_hash_table_unref (ctx.device_keys);
  g_hash_table_unref (ctx.device_planes);

  dropped = h.dropped_api + h.dropped_activity + h.dropped_by_cupti;
  if (dropped > 0)
    g_ptr_array_add (self->warnings,
                     g_strdup_printf ("Detected GPU events dropped on %s: process %u dropped %" G_GUINT64_FORMAT
                                      " API calls and %" G_GUINT64_FORMAT " device events over the limit, CUPTI dropped %"
                                      G_GUINT64_FORMAT " records",
                                      self->hostname, h.pid, (guint64) h.dropped_api, (guint64) h.dropped_activity,
                                      (guint64) h.dropped_by_cupti));
  self->stats.n_dropped += dropped;
  if (h.start_cupti_ns != 0 || h.start_walltime_ns != 0)
    {
      gint64 stop_wall = (gint64) (MAX (h.stop_cupti_ns, h.start_cupti_ns) - h.start_cupti_ns + h.start_walltime_ns);

      self->start_ns = MIN (self->start_ns, (gint64) h.start_walltime_ns);
      self->stop_ns = MAX (self->stop_ns, stop_wall);
    }
  g_hash_table_add (self->pids, GUINT_TO_POINTER (h.pid));
  self->stats.n_parts++;
  return TRUE;
}

/* Part names are <pid>-<start>.planar-part (planar-cupti-inject.c): by
 * start time, then pid, then name. */
static int
compare_part_names (gconstpointer a,
                    gconstpointer b)
{
  const char *x = *(const char * const *) a, *y = *(const char * const *) b;
  const char *xs = strchr (x, '-'), *ys = strchr (y, '-');
  guint64 x_start = xs != NULL ? g_ascii_strtoull (xs + 1, NULL, 10) : 0;
  guint64 y_start = ys != NULL ? g_ascii_strtoull (ys + 1, NULL, 10) : 0;
  guint64 x_pid = g_ascii_strtoull (x, NULL, 10), y_pid = g_ascii_strtoull (y, NULL, 10);

  if (x_start != y_start)
    return x_start < y_start ? -1 : 1;
  if (x_pid != y_pid)
    return x_pid < y_pid ? -1 : 1;
  return strcmp (x, y);
}

gboolean
planar_cupti_merge_add_dir (PlanarCuptiMerge  *self,
                            const char        *dir,
                            GError           **error)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, error);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *entry;
  guint unfinished = 0;
  guint read = 0;

  if (d == NULL)
    return FALSE;
  while ((entry = g_dir_read_name (d)) != NULL)
    {
      if (entry[0] == '.' && strstr (entry, ".planar-part.") != NULL)
        unfinished++;
      else if (entry[0] != '.' && g_str_has_suffix (entry, PLANAR_CUPTI_PART_SUFFIX))
        g_ptr_array_add (names, g_strdup (entry));
    }
  /* In the order the processes started. */
  g_ptr_array_sort (names, compare_part_names);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, names->pdata[i], NULL);
      g_autoptr(GMappedFile) file = NULL;
      g_autoptr(GError) local = NULL;

      file = g_mapped_file_new (path, FALSE, &local);
      if (file != NULL
          && planar_cupti_merge_add_part (self, (const guint8 *) g_mapped_file_get_contents (file),
                                          g_mapped_file_get_length (file), names->pdata[i], &local))
        read++;
      else
        {
          g_ptr_array_add (self->errors, g_strdup (local->message));
          if (self->stats.n_errors++ == 0)
            g_strlcpy (self->stats.first_error, local->message, sizeof self->stats.first_error);
        }
    }
  if (unfinished > 0)
    g_ptr_array_add (self->warnings,
                     g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                   "%u process ended before its recording was written (killed?)",
                                                   "%u processes ended before their recordings were written (killed?)",
                                                   unfinished),
                                      unfinished));
  if (read == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s",
                   self->errors->len > 0 ? (const char *) self->errors->pdata[0]
                   : unfinished > 0 ? (const char *) self->warnings->pdata[self->warnings->len - 1]
                   : "nothing was recorded: no process made CUDA calls with the recording library loaded");
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Writing the XSpace
 * ------------------------------------------------------------------------ */

static void
put_stat (PlanarXSpaceWriter *w,
          const Plane        *plane,
          const Stat         *s)
{
  switch (s->type)
    {
    case STAT_UINT: planar_xspace_writer_add_stat_uint64 (w, s->metadata_id, s->u); break;
    case STAT_INT: planar_xspace_writer_add_stat_int64 (w, s->metadata_id, s->i); break;
    case STAT_REF: planar_xspace_writer_add_stat_ref (w, s->metadata_id, s->index); break;
    case STAT_STR: planar_xspace_writer_add_stat_string (w, s->metadata_id, plane->strings->pdata[s->index], -1); break;
    case STAT_DOUBLE: planar_xspace_writer_add_stat_double (w, s->metadata_id, s->d); break;
    default: g_assert_not_reached ();
    }
}

static int
compare_events (gconstpointer a,
                gconstpointer b)
{
  const Event *x = a, *y = b;

  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  /* The enclosing one first. */
  if (x->end_ns != y->end_ns)
    return x->end_ns > y->end_ns ? -1 : 1;
  return 0;
}

static int
compare_lines (gconstpointer a,
               gconstpointer b)
{
  const Line *x = *(Line * const *) a, *y = *(Line * const *) b;

  return x->id < y->id ? -1 : x->id > y->id;
}

static char *
stream_line_name (const Line *line)
{
  static const struct { guint kind; const char *word; } copies[] = {
    { 1, "MemcpyH2D" }, { 2, "MemcpyD2H" }, { 8, "MemcpyD2D" }, { 10, "MemcpyP2P" },
  };
  GString *s = g_string_new (NULL);
  guint other = line->copy_kinds;

  g_string_printf (s, "Stream #%u(", line->stream_id);
  if (line->has_kernels)
    g_string_append (s, "Compute,");
  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    if ((line->copy_kinds & (1u << copies[i].kind)) != 0)
      {
        g_string_append_printf (s, "%s,", copies[i].word);
        other &= ~(1u << copies[i].kind);
      }
  if (other != 0)
    g_string_append (s, "MemcpyOther,");
  if (line->has_memsets)
    g_string_append (s, "Memset,");
  if (s->str[s->len - 1] == ',')
    g_string_truncate (s, s->len - 1);
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/* A device's stream lines by stream, then process; its other lines (CUPTI's
 * overhead) after them. */
static int
compare_stream_lines (gconstpointer a,
                      gconstpointer b)
{
  const Line *x = *(Line * const *) a, *y = *(Line * const *) b;

  if (x->is_stream != y->is_stream)
    return x->is_stream ? -1 : 1;
  if (!x->is_stream)
    return x->id < y->id ? -1 : x->id > y->id;
  if (x->stream_id != y->stream_id)
    return x->stream_id < y->stream_id ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Names the stream lines of a device plane now that their events are
 * known. A stream number that one process used keeps it as the line's id,
 * as XLA writes it; one that several processes used gets a line per
 * process, its id the key (process << 32 | stream) and the process in its
 * name. */
static void
name_stream_lines (Plane *plane)
{
  g_autoptr(GHashTable) users = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < plane->line_list->len; i++)
    {
      const Line *line = plane->line_list->pdata[i];
      gpointer key = GUINT_TO_POINTER (line->stream_id);

      if (!line->is_stream)
        continue;
      g_hash_table_insert (users, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (users, key)) + 1));
    }
  for (guint i = 0; i < plane->line_list->len; i++)
    {
      Line *line = plane->line_list->pdata[i];
      gboolean shared;
      char *name;

      if (!line->is_stream)
        {
          line->write_id = line->id;
          continue;
        }
      shared = GPOINTER_TO_UINT (g_hash_table_lookup (users, GUINT_TO_POINTER (line->stream_id))) > 1;
      name = stream_line_name (line);
      g_free (line->name);
      line->write_id = shared ? line->id : (gint64) line->stream_id;
      line->name = shared ? g_strdup_printf ("%s pid %u", name, line->pid) : g_strdup (name);
      g_free (name);
    }
  g_ptr_array_sort (plane->line_list, compare_stream_lines);
}

static void
put_plane (PlanarXSpaceWriter *w,
           Plane              *plane,
           gint64              origin_ns,
           gboolean            device,
           gboolean            several_processes)
{
  /* Name a device's stream lines (this adds nothing to the tables
   * below). */
  if (device)
    name_stream_lines (plane);
  else
    {
      /* Threads of several processes often have the same name (python3):
       * each says its process. */
      for (guint i = 0; i < plane->line_list->len; i++)
        {
          Line *line = plane->line_list->pdata[i];

          line->write_id = line->id;
          if (several_processes && line->pid != 0)
            {
              char *name = g_strdup_printf ("%s pid %u", line->name, line->pid);

              g_free (line->name);
              line->name = name;
            }
        }
      g_ptr_array_sort (plane->line_list, compare_lines);
    }

  planar_xspace_writer_begin_plane (w, plane->id, plane->name);
  /* The writer numbers metadata from 1 in the order it is asked for, as
   * the plane's tables were numbered. */
  for (guint i = 0; i < plane->event_names->len; i++)
    {
      guint64 id G_GNUC_UNUSED = planar_xspace_writer_event_metadata (w, plane->event_names->pdata[i]);

      g_assert (id == i + 1);
    }
  for (guint i = 0; i < plane->stat_names->len; i++)
    {
      guint64 id G_GNUC_UNUSED = planar_xspace_writer_stat_metadata (w, plane->stat_names->pdata[i]);

      g_assert (id == i + 1);
    }
  for (guint i = 0; i < plane->plane_stats->len; i++)
    put_stat (w, plane, &g_array_index (plane->plane_stats, Stat, i));
  for (guint i = 0; i < plane->line_list->len; i++)
    {
      Line *line = plane->line_list->pdata[i];

      g_array_sort (line->events, compare_events);
      planar_xspace_writer_add_line (w, line->write_id, line->name, origin_ns);
      planar_xspace_writer_set_line_display_id (w, line->write_id);
      for (guint e = 0; e < line->events->len; e++)
        {
          const Event *ev = &g_array_index (line->events, Event, e);

          planar_xspace_writer_add_event (w, ev->name, (ev->start_ns - origin_ns) * 1000,
                                          (ev->end_ns - ev->start_ns) * 1000);
          for (guint k = 0; k < ev->n_stats; k++)
            put_stat (w, plane, &g_array_index (plane->stats, Stat, ev->first_stat + k));
        }
    }
}

static int
compare_planes (gconstpointer a,
                gconstpointer b)
{
  const Plane *x = *(Plane * const *) a, *y = *(Plane * const *) b;

  return x->id < y->id ? -1 : x->id > y->id;
}

GBytes *
planar_cupti_merge_finish (PlanarCuptiMerge      *self,
                           PlanarCuptiMergeStats *stats)
{
  PlanarXSpaceWriter *w = planar_xspace_writer_new ();
  g_autoptr(GPtrArray) devices = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;
  Plane *env;
  gint64 origin;

  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (devices, value);
  if (self->start_ns == G_MAXINT64)
    self->start_ns = self->stop_ns = g_get_real_time () * 1000;
  origin = self->start_ns;
  /* The plane stat XLA adds: the profiled process, when there was one. */
  if (g_hash_table_size (self->pids) == 1)
    {
      GList *pids = g_hash_table_get_keys (self->pids);

      add_stat (self->host, self->host->plane_stats, NULL, "process_id", STAT_INT, GPOINTER_TO_UINT (pids->data));
      g_list_free (pids);
    }
  put_plane (w, self->host, origin, FALSE, g_hash_table_size (self->pids) > 1);
  g_ptr_array_sort (devices, compare_planes);
  for (guint i = 0; i < devices->len; i++)
    put_plane (w, devices->pdata[i], origin, TRUE, FALSE);

  env = plane_new (TASK_ENV_PLANE_ID, "Task Environment");
  add_stat (env, env->plane_stats, NULL, "profile_start_time", STAT_UINT, (guint64) self->start_ns);
  add_stat (env, env->plane_stats, NULL, "profile_stop_time", STAT_UINT, (guint64) MAX (self->stop_ns, self->start_ns));
  put_plane (w, env, origin, FALSE, FALSE);
  plane_free (env);

  for (guint i = 0; i < self->errors->len; i++)
    planar_xspace_writer_add_error (w, self->errors->pdata[i]);
  for (guint i = 0; i < self->warnings->len; i++)
    planar_xspace_writer_add_warning (w, self->warnings->pdata[i]);
  planar_xspace_writer_add_hostname (w, self->hostname);

  self->stats.n_devices = devices->len;
  if (stats != NULL)
    *stats = self->stats;
  return planar_xspace_writer_finish_bytes (w);
}

/* A host name that is a safe file name. */
static char *
host_file_name (void)
{
  char *name = g_strdup (g_get_host_name ());

  g_strdelimit (name, "/\\:", '_');
  if (name[0] == '\0' || name[0] == '.')
    {
      g_free (name);
      name = g_strdup ("localhost");
    }
  return name;
}

char *
planar_cupti_merge_write_session (const char             *part_dir,
                                  const char             *logdir,
                                  PlanarCuptiMergeStats  *stats,
                                  GError                **error)
{
  g_autofree char *host = host_file_name ();
  PlanarCuptiMerge *merge = planar_cupti_merge_new (g_get_host_name ());
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *root = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *name = NULL;
  char *path = NULL;
  gsize len;
  const guint8 *data;

  if (!planar_cupti_merge_add_dir (merge, part_dir, error))
    {
      planar_cupti_merge_free (merge);
      return NULL;
    }
  bytes = planar_cupti_merge_finish (merge, stats);
  planar_cupti_merge_free (merge);
  root = g_build_filename (logdir, "plugins", "profile", NULL);
  folder = planar_capture_make_session_folder (root, &session_id, error);
  if (folder == NULL)
    return NULL;
  name = g_strconcat (host, ".xplane.pb", NULL);
  data = g_bytes_get_data (bytes, &len);
  if (!planar_capture_write_new_file (folder, name, data, len, &path, error))
    {
      g_rmdir (folder);
      return NULL;
    }
  return path;
}
