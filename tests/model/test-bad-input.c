/* test-bad-input.c: a corpus of damaged profiles, made here from valid ones.
 *
 * Every case is loaded with planar_trace_load(): it must either fail with a
 * PLANAR_TRACE_ERROR that names the file (and says "at byte N" for decoding
 * errors) or give a trace whose index is consistent. A subset also goes
 * through `planar-cli info`, which must refuse it in one line. Last come
 * inputs whose cost in work and memory must stay in proportion to their
 * size, and a valid one the memory budget must not refuse.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"
#include "planar-trace-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef Tensorflow__Profiler__XSpace XSpace;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XLine XLine;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XStat XStat;
typedef Tensorflow__Profiler__XEventMetadata XEventMetadata;
typedef Tensorflow__Profiler__XStatMetadata XStatMetadata;
typedef Tensorflow__Profiler__XPlane__EventMetadataEntry EventMetadataEntry;
typedef Tensorflow__Profiler__XPlane__StatMetadataEntry StatMetadataEntry;

/* The smallest of the real samples. */
#define SMALL_SAMPLE "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb"

#define PROFILE_START_NS G_GUINT64_CONSTANT (1767225600000000000)

/* One case in this many also goes through planar-cli. */
#define CLI_EVERY 23
/* Stats are decoded for at most this many events per case. */
#define MAX_STATS_EVENTS 512

/* ------------------------------------------------------------------------ */
/* Bytes */

/* xorshift64*: the same sequence everywhere, so a failing case can be found
 * again by its number. */
static guint64
prng_next (guint64 *state)
{
  guint64 x = *state;

  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * G_GUINT64_CONSTANT (0x2545F4914F6CDD1D);
}

static void
put_varint (GByteArray *b,
            guint64     v)
{
  guint8 byte;

  while (v >= 0x80)
    {
      byte = (guint8) (v | 0x80);
      g_byte_array_append (b, &byte, 1);
      v >>= 7;
    }
  byte = (guint8) v;
  g_byte_array_append (b, &byte, 1);
}

/* @v in exactly ten bytes (valid protobuf, though not the shortest form). */
static void
put_varint10 (GByteArray *b,
              guint64     v)
{
  for (guint i = 0; i < 9; i++)
    {
      guint8 byte = (guint8) ((v & 0x7f) | 0x80);

      g_byte_array_append (b, &byte, 1);
      v >>= 7;
    }
  {
    guint8 last = (guint8) (v & 0x01);

    g_byte_array_append (b, &last, 1);
  }
}

static void
put_tag (GByteArray *b,
         guint32     number,
         guint       wire_type)
{
  put_varint (b, ((guint64) number << 3) | wire_type);
}

static void
put_len_field (GByteArray   *b,
               guint32       number,
               const guint8 *data,
               gsize         len)
{
  put_tag (b, number, 2);
  put_varint (b, len);
  g_byte_array_append (b, data, (guint) len);
}

static void
put_varint_field (GByteArray *b,
                  guint32     number,
                  guint64     v)
{
  put_tag (b, number, 0);
  put_varint (b, v);
}

static gboolean
read_varint (const guint8 **p,
             const guint8  *end,
             guint64       *out)
{
  guint64 v = 0;

  for (guint shift = 0; shift < 70 && *p < end; shift += 7)
    {
      guint8 b = *(*p)++;

      if (shift < 64)
        v |= (guint64) (b & 0x7f) << shift;
      if (b < 0x80)
        {
          *out = v;
          return TRUE;
        }
    }
  return FALSE;
}

static GBytes *
bytes_from_array (GByteArray *b)
{
  return g_byte_array_free_to_bytes (b);
}

/* ------------------------------------------------------------------------ */
/* A rich, valid XSpace built with protobuf-c */

static GPtrArray *scratch;

static gpointer
keep (gpointer p)
{
  g_ptr_array_add (scratch, p);
  return p;
}

/* A copy of @old (@n elements of @size bytes) with room for one more. The
 * old block stays on the scratch list. */
static gpointer
grown (gconstpointer old,
       gsize         size,
       gsize         n)
{
  gpointer p = keep (g_malloc (size * (n + 1)));

  if (n > 0)
    memcpy (p, old, size * n);
  return p;
}

#define APPEND(array, n, item) \
  G_STMT_START { \
    (array) = grown ((array), sizeof (*(array)), (n)); \
    (array)[(n)++] = (item); \
  } G_STMT_END

static char *
str (const char *s)
{
  return keep (g_strdup (s));
}

static XPlane *
add_plane (XSpace     *space,
           gint64      id,
           const char *name)
{
  XPlane *plane = keep (g_new0 (XPlane, 1));

  tensorflow__profiler__xplane__init (plane);
  plane->id = id;
  plane->name = str (name);
  APPEND (space->planes, space->n_planes, plane);
  return plane;
}

static void
add_stat_metadata (XPlane     *plane,
                   gint64      id,
                   const char *name)
{
  StatMetadataEntry *entry = keep (g_new0 (StatMetadataEntry, 1));
  XStatMetadata *md = keep (g_new0 (XStatMetadata, 1));

  tensorflow__profiler__xplane__stat_metadata_entry__init (entry);
  tensorflow__profiler__xstat_metadata__init (md);
  md->id = id;
  md->name = str (name);
  entry->key = id;
  entry->value = md;
  APPEND (plane->stat_metadata, plane->n_stat_metadata, entry);
}

static XEventMetadata *
add_event_metadata (XPlane     *plane,
                    gint64      id,
                    const char *name,
                    const char *display_name)
{
  EventMetadataEntry *entry = keep (g_new0 (EventMetadataEntry, 1));
  XEventMetadata *md = keep (g_new0 (XEventMetadata, 1));

  tensorflow__profiler__xplane__event_metadata_entry__init (entry);
  tensorflow__profiler__xevent_metadata__init (md);
  md->id = id;
  md->name = str (name);
  if (display_name != NULL)
    md->display_name = str (display_name);
  entry->key = id;
  entry->value = md;
  APPEND (plane->event_metadata, plane->n_event_metadata, entry);
  return md;
}

static XLine *
add_line (XPlane     *plane,
          gint64      id,
          const char *name,
          const char *display_name,
          gint64      timestamp_ns)
{
  XLine *line = keep (g_new0 (XLine, 1));

  tensorflow__profiler__xline__init (line);
  line->id = id;
  line->name = str (name);
  if (display_name != NULL)
    line->display_name = str (display_name);
  line->timestamp_ns = timestamp_ns;
  line->duration_ps = 5000000000;
  APPEND (plane->lines, plane->n_lines, line);
  return line;
}

static XEvent *
add_event (XLine  *line,
           gint64  metadata_id,
           gint64  offset_ps,
           gint64  duration_ps)
{
  XEvent *event = keep (g_new0 (XEvent, 1));

  tensorflow__profiler__xevent__init (event);
  event->metadata_id = metadata_id;
  event->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
  event->offset_ps = offset_ps;
  event->duration_ps = duration_ps;
  APPEND (line->events, line->n_events, event);
  return event;
}

static XEvent *
add_aggregated_event (XLine  *line,
                      gint64  metadata_id,
                      gint64  occurrences,
                      gint64  duration_ps)
{
  XEvent *event = add_event (line, metadata_id, 0, duration_ps);

  event->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
  event->num_occurrences = occurrences;
  return event;
}

static XStat *
new_stat (gint64                              metadata_id,
          Tensorflow__Profiler__XStat__ValueCase kind)
{
  XStat *stat = keep (g_new0 (XStat, 1));

  tensorflow__profiler__xstat__init (stat);
  stat->metadata_id = metadata_id;
  stat->value_case = kind;
  return stat;
}

static XStat *
stat_int (gint64 metadata_id,
          gint64 value)
{
  XStat *stat = new_stat (metadata_id, TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE);

  stat->int64_value = value;
  return stat;
}

static XStat *
stat_uint (gint64  metadata_id,
           guint64 value)
{
  XStat *stat = new_stat (metadata_id, TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE);

  stat->uint64_value = value;
  return stat;
}

static XStat *
stat_double (gint64 metadata_id,
             double value)
{
  XStat *stat = new_stat (metadata_id, TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE);

  stat->double_value = value;
  return stat;
}

static XStat *
stat_str (gint64      metadata_id,
          const char *value)
{
  XStat *stat = new_stat (metadata_id, TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE);

  stat->str_value = str (value);
  return stat;
}

static XStat *
stat_bytes (gint64        metadata_id,
            const guint8 *value,
            gsize         len)
{
  XStat *stat = new_stat (metadata_id, TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE);

  stat->bytes_value.data = keep (g_memdup2 (value, len));
  stat->bytes_value.len = len;
  return stat;
}

static XStat *
stat_ref (gint64  metadata_id,
          guint64 ref)
{
  XStat *stat = new_stat (metadata_id, TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE);

  stat->ref_value = ref;
  return stat;
}

#define ADD_STAT(owner, stat) APPEND ((owner)->stats, (owner)->n_stats, (stat))

enum
{
  SM_INT = 1,
  SM_UINT,
  SM_DOUBLE,
  SM_STR,
  SM_BYTES,
  SM_REF,
  SM_VALUE_A,
  SM_VALUE_B,
  SM_TF_OP,
};

/* Three planes (a Task Environment, a host and a GPU), lines merged by id,
 * a wall-clock and a relative line, nested and overlapping events, an
 * instant, aggregated events, a counter line, stats of every value kind on
 * events, metadata and planes, ref values, a missing metadata id, packed
 * child ids. */
static GBytes *
build_rich_space (void)
{
  XSpace space = TENSORFLOW__PROFILER__XSPACE__INIT;
  XPlane *env, *cpu, *gpu;
  XEventMetadata *md;
  XLine *line;
  XEvent *ev;
  gsize len;
  guint8 *buf;
  static const guint8 blob[] = { 0x08, 0x01, 0x12, 0x03, 'a', 'b', 'c', 0x00, 0xff };
  static const gint64 children[] = { 2, 3 };

  APPEND (space.hostnames, space.n_hostnames, str ("host-a"));
  APPEND (space.hostnames, space.n_hostnames, str ("host-b"));
  APPEND (space.errors, space.n_errors, str ("CUPTI needs root"));
  APPEND (space.warnings, space.n_warnings, str ("dropped 3 events"));

  env = add_plane (&space, 0, "Task Environment");
  add_stat_metadata (env, 1, "profile_start_time");
  add_stat_metadata (env, 2, "profile_stop_time");
  add_stat_metadata (env, 3, "profile_options");
  ADD_STAT (env, stat_uint (1, PROFILE_START_NS));
  ADD_STAT (env, stat_uint (2, PROFILE_START_NS + 2000000000));
  ADD_STAT (env, stat_bytes (3, blob, 2));

  cpu = add_plane (&space, 0, "/host:CPU");
  add_stat_metadata (cpu, SM_INT, "int_stat");
  add_stat_metadata (cpu, SM_UINT, "uint_stat");
  add_stat_metadata (cpu, SM_DOUBLE, "double_stat");
  add_stat_metadata (cpu, SM_STR, "str_stat");
  add_stat_metadata (cpu, SM_BYTES, "bytes_stat");
  add_stat_metadata (cpu, SM_REF, "ref_stat");
  add_stat_metadata (cpu, SM_VALUE_A, "interned value A");
  add_stat_metadata (cpu, SM_VALUE_B, "interned value B");
  add_stat_metadata (cpu, SM_TF_OP, "tf_op");
  ADD_STAT (cpu, stat_str (SM_STR, "cpu plane"));
  ADD_STAT (cpu, stat_int (SM_INT, 42));
  md = add_event_metadata (cpu, 1, "outer", "Outer");
  md->child_id = keep (g_memdup2 (children, sizeof children));
  md->n_child_id = G_N_ELEMENTS (children);
  ADD_STAT (md, stat_int (SM_INT, -5));
  ADD_STAT (md, stat_ref (SM_TF_OP, SM_VALUE_A));
  ADD_STAT (md, stat_double (SM_DOUBLE, 0.25));
  md = add_event_metadata (cpu, 2, "middle", NULL);
  ADD_STAT (md, stat_uint (SM_UINT, G_MAXUINT64));
  add_event_metadata (cpu, 3, "inner", "");
  add_event_metadata (cpu, 4, "aggregated op", NULL);

  /* A wall-clock line, rebased on the profile start. */
  line = add_line (cpu, 10, "python3", NULL, (gint64) PROFILE_START_NS + 1000);
  ev = add_event (line, 1, 0, 1000000);
  ADD_STAT (ev, stat_int (SM_INT, G_MININT64));
  ADD_STAT (ev, stat_uint (SM_UINT, 7));
  ADD_STAT (ev, stat_double (SM_DOUBLE, -1.5e300));
  ADD_STAT (ev, stat_str (SM_STR, "héllo"));
  ADD_STAT (ev, stat_bytes (SM_BYTES, blob, sizeof blob));
  ADD_STAT (ev, stat_ref (SM_REF, SM_VALUE_B));
  ADD_STAT (ev, stat_ref (SM_TF_OP, SM_VALUE_B));
  ADD_STAT (ev, stat_int (99, 1));
  ADD_STAT (ev, stat_ref (SM_REF, 12345));
  ev = add_event (line, 2, 100, 500000);
  ADD_STAT (ev, stat_str (SM_STR, ""));
  add_event (line, 3, 200, 1000);
  add_event (line, 3, 2000, 3000);
  add_event (line, 3, 2000, 0);
  add_event (line, 2, 600000, 300000);
  add_event (line, 77, 700000, 10);

  /* A relative line, shown in the python3 row. */
  line = add_line (cpu, 11, "worker", "Worker 1", 5000);
  line->display_id = 10;
  add_event (line, 1, 0, 100);
  add_event (line, 2, 50, 100);
  add_event (line, 3, 400, 100);
  add_event (line, 3, 300, 300);

  /* The same timeline again: merged with the first line. */
  line = add_line (cpu, 10, "python3", NULL, (gint64) PROFILE_START_NS + 5000000);
  add_event (line, 1, 0, 20000);
  ev = add_event (line, 2, 10, 100);
  ADD_STAT (ev, stat_double (SM_DOUBLE, 3.0));

  line = add_line (cpu, 12, "aggregated", NULL, 0);
  add_aggregated_event (line, 4, 12, 3400);
  add_aggregated_event (line, 1, 1, 100);

  gpu = add_plane (&space, 0, "/device:GPU:0");
  add_stat_metadata (gpu, 1, "kernel_details");
  add_stat_metadata (gpu, 2, "correlation_id");
  add_stat_metadata (gpu, 3, "regs:32 static_shared:0 grid:1,1,1 block:128,1,1");
  add_stat_metadata (gpu, 4, "sm_clock_mhz");
  md = add_event_metadata (gpu, 1, "kernel_a", NULL);
  ADD_STAT (md, stat_ref (1, 3));
  add_event_metadata (gpu, 2, "sm_clock_mhz", NULL);
  ADD_STAT (gpu, stat_str (4, "Nvidia"));
  line = add_line (gpu, 1, "Stream #1(Compute)", "", (gint64) PROFILE_START_NS + 30000);
  for (gint64 i = 0; i < 6; i++)
    {
      ev = add_event (line, 1, i * 10000, 5000);
      ADD_STAT (ev, stat_uint (2, (guint64) (1000 + i)));
    }
  line = add_line (gpu, G_MAXINT64, "_counters_", NULL, 0);
  for (gint64 i = 0; i < 4; i++)
    {
      ev = add_event (line, 2, i * 1000000, 0);
      ADD_STAT (ev, stat_double (4, 1400.0 + (double) i));
    }

  len = tensorflow__profiler__xspace__get_packed_size (&space);
  buf = g_malloc (len);
  g_assert_cmpuint (tensorflow__profiler__xspace__pack (&space, buf), ==, len);
  return g_bytes_new_take (buf, len);
}

/* ------------------------------------------------------------------------ */
/* A field tree over the valid bytes, to damage one field at a known nesting
 * level while every enclosing length stays right. */

typedef enum
{
  MSG_NONE,
  MSG_SPACE,
  MSG_PLANE,
  MSG_LINE,
  MSG_EVENT,
  MSG_STAT,
  MSG_EVENT_METADATA_ENTRY,
  MSG_EVENT_METADATA,
  MSG_STAT_METADATA_ENTRY,
  MSG_STAT_METADATA,
} MessageType;

static MessageType
child_message (MessageType parent,
               guint32     number)
{
  switch (parent)
    {
    case MSG_SPACE:
      return number == 1 ? MSG_PLANE : MSG_NONE;
    case MSG_PLANE:
      return number == 3 ? MSG_LINE :
             number == 4 ? MSG_EVENT_METADATA_ENTRY :
             number == 5 ? MSG_STAT_METADATA_ENTRY :
             number == 6 ? MSG_STAT : MSG_NONE;
    case MSG_LINE:
      return number == 4 ? MSG_EVENT : MSG_NONE;
    case MSG_EVENT:
      return number == 4 ? MSG_STAT : MSG_NONE;
    case MSG_EVENT_METADATA_ENTRY:
      return number == 2 ? MSG_EVENT_METADATA : MSG_NONE;
    case MSG_EVENT_METADATA:
      return number == 5 ? MSG_STAT : MSG_NONE;
    case MSG_STAT_METADATA_ENTRY:
      return number == 2 ? MSG_STAT_METADATA : MSG_NONE;
    case MSG_NONE:
    case MSG_STAT:
    case MSG_STAT_METADATA:
    default:
      return MSG_NONE;
    }
}

typedef struct _WireNode WireNode;

struct _WireNode
{
  guint32      number;
  guint        wire_type;
  guint        depth;
  guint        index;
  MessageType  message;
  /* Offsets in the valid bytes: the tag, the value (a length prefix for
   * LEN fields) and the LEN payload. */
  gsize        tag_at;
  gsize        value_at;
  gsize        payload_at;
  gsize        end_at;
  /* WireNode, when the field is a message. */
  GPtrArray   *children;
};

static void
wire_node_free (WireNode *node)
{
  g_clear_pointer (&node->children, g_ptr_array_unref);
  g_free (node);
}

/* Parses the message in [from, to) of @data into @parent's children, and
 * lists every node in @all (pre-order). */
static void
wire_parse (const guint8 *data,
            gsize         from,
            gsize         to,
            WireNode     *parent,
            GPtrArray    *all)
{
  const guint8 *p = data + from;
  const guint8 *end = data + to;

  parent->children = g_ptr_array_new_with_free_func ((GDestroyNotify) wire_node_free);
  while (p < end)
    {
      WireNode *node = g_new0 (WireNode, 1);
      guint64 tag = 0, v = 0;
      gboolean ok;

      node->tag_at = (gsize) (p - data);
      ok = read_varint (&p, end, &tag);
      g_assert_true (ok);
      node->number = (guint32) (tag >> 3);
      node->wire_type = (guint) (tag & 7);
      node->depth = parent->depth + 1;
      node->index = all->len;
      node->value_at = (gsize) (p - data);
      g_ptr_array_add (parent->children, node);
      g_ptr_array_add (all, node);
      switch (node->wire_type)
        {
        case 0:
          ok = read_varint (&p, end, &v);
          g_assert_true (ok);
          break;
        case 1:
          p += 8;
          break;
        case 5:
          p += 4;
          break;
        case 2:
          ok = read_varint (&p, end, &v);
          g_assert_true (ok);
          node->payload_at = (gsize) (p - data);
          p += v;
          g_assert_true (p <= end);
          node->message = child_message (parent->message, node->number);
          if (node->message != MSG_NONE)
            wire_parse (data, node->payload_at, node->payload_at + v, node, all);
          break;
        default:
          g_assert_not_reached ();
        }
      node->end_at = (gsize) (p - data);
    }
}

typedef enum
{
  MUT_NONE,
  /* LEN fields. */
  MUT_LEN_PLUS_ONE,
  MUT_LEN_2G,
  MUT_LEN_4G,
  MUT_LEN_MAX,
  MUT_LEN_PADDED,
  /* Any field: a well-formed field of another wire type, or a group. */
  MUT_AS_VARINT,
  MUT_AS_I64,
  MUT_AS_I32,
  MUT_AS_LEN,
  MUT_AS_GROUP,
  /* VARINT fields. */
  MUT_VARINT_PADDED,
  MUT_VARINT_MINUS_ONE,
  MUT_VARINT_ELEVEN,
  MUT_VARINT_OVERFLOW,
  N_MUTATIONS
} Mutation;

static const char * const mutation_names[N_MUTATIONS] = {
  "none", "len+1", "len 2^31+5", "len 2^32-1", "len 2^64-1", "len padded to 10 bytes",
  "as varint", "as i64", "as i32", "as len", "as group",
  "varint in 10 bytes", "varint -1", "11-byte varint", "varint past 64 bits",
};

static gboolean
mutation_applies (const WireNode *node,
                  Mutation        mutation)
{
  switch (mutation)
    {
    case MUT_LEN_PLUS_ONE:
    case MUT_LEN_2G:
    case MUT_LEN_4G:
    case MUT_LEN_MAX:
    case MUT_LEN_PADDED:
      return node->wire_type == 2;
    case MUT_AS_VARINT:
      return node->wire_type != 0;
    case MUT_AS_I64:
      return node->wire_type != 1;
    case MUT_AS_I32:
      return TRUE;
    case MUT_AS_LEN:
      return node->wire_type != 2;
    case MUT_AS_GROUP:
      return TRUE;
    case MUT_VARINT_PADDED:
    case MUT_VARINT_MINUS_ONE:
    case MUT_VARINT_ELEVEN:
    case MUT_VARINT_OVERFLOW:
      return node->wire_type == 0;
    case MUT_NONE:
    case N_MUTATIONS:
    default:
      return FALSE;
    }
}

/* Writes @node (its tag, value and, for messages, its children) into @out,
 * applying @mutation if @node is @target. */
static void
wire_write (const guint8   *data,
            const WireNode *node,
            guint           target,
            Mutation        mutation,
            GByteArray     *out)
{
  static const guint8 zeros[8] = { 0 };
  static const guint8 eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
  static const guint8 overflow[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
  Mutation m = node->index == target ? mutation : MUT_NONE;
  g_autoptr(GByteArray) payload = NULL;
  const guint8 *p;
  guint64 value = 0;

  switch (m)
    {
    case MUT_AS_VARINT:
      put_varint_field (out, node->number, 1);
      return;
    case MUT_AS_I64:
      put_tag (out, node->number, 1);
      g_byte_array_append (out, zeros, 8);
      return;
    case MUT_AS_I32:
      put_tag (out, node->number, 5);
      g_byte_array_append (out, zeros, 4);
      return;
    case MUT_AS_LEN:
      put_len_field (out, node->number, zeros, 1);
      return;
    case MUT_AS_GROUP:
      put_tag (out, node->number, 3);
      put_varint_field (out, 1, 1);
      put_tag (out, node->number, 4);
      return;
    case MUT_NONE:
    case MUT_LEN_PLUS_ONE:
    case MUT_LEN_2G:
    case MUT_LEN_4G:
    case MUT_LEN_MAX:
    case MUT_LEN_PADDED:
    case MUT_VARINT_PADDED:
    case MUT_VARINT_MINUS_ONE:
    case MUT_VARINT_ELEVEN:
    case MUT_VARINT_OVERFLOW:
    case N_MUTATIONS:
    default:
      break;
    }

  put_tag (out, node->number, node->wire_type);
  if (node->wire_type != 2)
    {
      if (node->wire_type == 0)
        {
          p = data + node->value_at;
          read_varint (&p, data + node->end_at, &value);
        }
      if (m == MUT_VARINT_PADDED)
        put_varint10 (out, value);
      else if (m == MUT_VARINT_MINUS_ONE)
        put_varint10 (out, G_MAXUINT64);
      else if (m == MUT_VARINT_ELEVEN)
        g_byte_array_append (out, eleven, sizeof eleven);
      else if (m == MUT_VARINT_OVERFLOW)
        g_byte_array_append (out, overflow, sizeof overflow);
      else
        g_byte_array_append (out, data + node->value_at, (guint) (node->end_at - node->value_at));
      return;
    }

  payload = g_byte_array_new ();
  if (node->children != NULL)
    for (guint i = 0; i < node->children->len; i++)
      wire_write (data, g_ptr_array_index (node->children, i), target, mutation, payload);
  else
    g_byte_array_append (payload, data + node->payload_at, (guint) (node->end_at - node->payload_at));

  switch (m)
    {
    case MUT_LEN_PLUS_ONE:
      put_varint (out, payload->len + 1);
      break;
    case MUT_LEN_2G:
      put_varint (out, (G_GUINT64_CONSTANT (1) << 31) + 5);
      break;
    case MUT_LEN_4G:
      put_varint (out, G_MAXUINT32);
      break;
    case MUT_LEN_MAX:
      put_varint (out, G_MAXUINT64);
      break;
    case MUT_LEN_PADDED:
      put_varint10 (out, payload->len);
      break;
    case MUT_NONE:
    case MUT_AS_VARINT:
    case MUT_AS_I64:
    case MUT_AS_I32:
    case MUT_AS_LEN:
    case MUT_AS_GROUP:
    case MUT_VARINT_PADDED:
    case MUT_VARINT_MINUS_ONE:
    case MUT_VARINT_ELEVEN:
    case MUT_VARINT_OVERFLOW:
    case N_MUTATIONS:
    default:
      put_varint (out, payload->len);
      break;
    }
  g_byte_array_append (out, payload->data, payload->len);
}

static GBytes *
wire_write_space (const guint8   *data,
                  const WireNode *root,
                  guint           target,
                  Mutation        mutation)
{
  GByteArray *out = g_byte_array_new ();

  for (guint i = 0; i < root->children->len; i++)
    wire_write (data, g_ptr_array_index (root->children, i), target, mutation, out);
  return bytes_from_array (out);
}

/* ------------------------------------------------------------------------ */
/* The corpus */

typedef struct
{
  char     *label;
  GBytes   *bytes;
  /* Also run through planar-cli, whatever its number. */
  gboolean  with_cli;
} Case;

static void
case_free (Case *c)
{
  g_free (c->label);
  g_bytes_unref (c->bytes);
  g_free (c);
}

static void
add_case (GPtrArray  *cases,
          GBytes     *bytes,
          const char *format,
          ...) G_GNUC_PRINTF (3, 4);

static void
add_case (GPtrArray  *cases,
          GBytes     *bytes,
          const char *format,
          ...)
{
  Case *c = g_new0 (Case, 1);
  va_list args;

  va_start (args, format);
  c->label = g_strdup_vprintf (format, args);
  va_end (args);
  c->bytes = bytes;
  g_ptr_array_add (cases, c);
}

static GBytes *
truncated (GBytes *valid,
           gsize   len)
{
  return g_bytes_new_from_bytes (valid, 0, len);
}

static GBytes *
concat (const guint8 *a,
        gsize         a_len,
        const guint8 *b,
        gsize         b_len)
{
  GByteArray *out = g_byte_array_sized_new ((guint) (a_len + b_len));

  g_byte_array_append (out, a, (guint) a_len);
  g_byte_array_append (out, b, (guint) b_len);
  return bytes_from_array (out);
}

/* Truncations, flipped bytes and damaged fields of @valid. */
static void
add_corpus_of (GPtrArray  *cases,
               const char *what,
               GBytes     *valid,
               guint       n_spread,
               guint       n_flips,
               guint       n_fields,
               guint64     seed)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (valid, &size);
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  g_autoptr(GArray) pairs = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GBytes) rewritten = NULL;
  WireNode root = { 0 };
  guint64 state = seed;
  guint max_depth = 0;

  /* Truncations: every offset of the first 256 bytes, then a spread. */
  for (gsize len = 0; len < MIN (size, 256); len++)
    add_case (cases, truncated (valid, len), "%s cut at %" G_GSIZE_FORMAT, what, len);
  for (guint i = 0; i < n_spread && size > 256; i++)
    {
      gsize len = 256 + (size - 256) * i / n_spread;

      add_case (cases, truncated (valid, len), "%s cut at %" G_GSIZE_FORMAT, what, len);
    }
  add_case (cases, truncated (valid, size - 1), "%s less its last byte", what);

  /* Single flipped bytes. */
  for (guint i = 0; i < n_flips; i++)
    {
      gsize at = (gsize) (prng_next (&state) % size);
      guint8 mask = (guint8) (prng_next (&state) % 255 + 1);
      guint8 *copy = g_memdup2 (data, size);

      copy[at] ^= mask;
      add_case (cases, g_bytes_new_take (copy, size), "%s byte %" G_GSIZE_FORMAT " ^ 0x%02x", what, at, mask);
    }

  /* Damaged fields at every nesting level. */
  root.message = MSG_SPACE;
  wire_parse (data, 0, size, &root, all);
  rewritten = wire_write_space (data, &root, G_MAXUINT, MUT_NONE);
  g_assert_true (g_bytes_equal (rewritten, valid));

  for (guint i = 0; i < all->len; i++)
    {
      const WireNode *node = g_ptr_array_index (all, i);

      max_depth = MAX (max_depth, node->depth);
      for (guint m = MUT_NONE + 1; m < N_MUTATIONS; m++)
        if (mutation_applies (node, (Mutation) m))
          {
            guint64 pair = ((guint64) i << 8) | m;

            g_array_append_val (pairs, pair);
          }
    }
  /* A lying length at each level first, then a deterministic sample of the
   * rest. */
  for (guint depth = 1; depth <= max_depth; depth++)
    {
      guint n = 0;

      for (guint i = 0; i < all->len && n < 3; i++)
        {
          const WireNode *node = g_ptr_array_index (all, i);

          if (node->depth != depth || node->wire_type != 2)
            continue;
          /* The level's first LEN field, then two further on. */
          if (n > 0 && i % 7 != 0)
            continue;
          add_case (cases, wire_write_space (data, &root, i, MUT_LEN_PLUS_ONE),
                    "%s field %u (#%u, depth %u) %s", what, i, node->number, depth,
                    mutation_names[MUT_LEN_PLUS_ONE]);
          n++;
        }
    }
  for (guint k = 0; k < pairs->len; k++)
    {
      guint j = (guint) (prng_next (&state) % (pairs->len - k)) + k;
      guint64 tmp = g_array_index (pairs, guint64, k);

      g_array_index (pairs, guint64, k) = g_array_index (pairs, guint64, j);
      g_array_index (pairs, guint64, j) = tmp;
    }
  for (guint k = 0; k < MIN (n_fields, pairs->len); k++)
    {
      guint64 pair = g_array_index (pairs, guint64, k);
      guint i = (guint) (pair >> 8);
      Mutation m = (Mutation) (pair & 0xff);
      const WireNode *node = g_ptr_array_index (all, i);

      add_case (cases, wire_write_space (data, &root, i, m),
                "%s field %u (#%u, depth %u) %s", what, i, node->number, node->depth,
                mutation_names[m]);
    }

  /* A varint whose continuation bit runs to the end of the file, in a tag,
   * a value and a length at several levels. */
  for (guint i = 0; i < all->len; i += MAX (all->len / 12, 1))
    {
      const WireNode *node = g_ptr_array_index (all, i);
      static const guint8 run[] = { 0x80, 0x80, 0x80 };
      static const guint8 run_long[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

      add_case (cases, concat (data, node->value_at, run, sizeof run),
                "%s field %u (depth %u) value runs to EOF", what, i, node->depth);
      add_case (cases, concat (data, node->tag_at, run_long, sizeof run_long),
                "%s field %u (depth %u) tag runs to EOF", what, i, node->depth);
    }
  {
    static const guint8 unknown_varint[] = { 0x78, 0x80, 0x80 };
    static const guint8 unknown_len[] = { 0x7a, 0x05, 0x01 };

    add_case (cases, concat (data, size, unknown_varint, sizeof unknown_varint),
              "%s + unknown varint running to EOF", what);
    add_case (cases, concat (data, size, unknown_len, sizeof unknown_len),
              "%s + unknown field with a lying length", what);
  }

  g_clear_pointer (&root.children, g_ptr_array_unref);
}

static GBytes *
filled (guint8 byte,
        gsize  size)
{
  guint8 *data = g_malloc (size);

  memset (data, byte, size);
  return g_bytes_new_take (data, size);
}

static GBytes *
from_literal (const void *data,
              gsize       size)
{
  return g_bytes_new (data, size);
}

static void
add_fixed_cases (GPtrArray *cases)
{
  guint first = cases->len;
  /* A 10-byte tag for planes, then a valid empty plane. */
  static const guint8 padded_tag[] = { 0x8a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00 };
  static const guint8 eleven_tag[] = { 0x8a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00 };
  static const guint8 field_zero[] = { 0x02, 0x00 };
  static const guint8 huge_field[] = { 0xfa, 0xff, 0xff, 0xff, 0x7f, 0x00 };
  static const guint8 end_group[] = { 0x0c };
  static const guint8 wire_type_7[] = { 0x0f, 0x00 };
  /* XSpace { planes { lines { events { offset_ps: -1, duration: 2^63-1 } } } } */
  static const guint8 overflowing_event[] = {
    0x0a, 0x1e,
      0x1a, 0x1c,
        0x22, 0x1a,
          0x08, 0x01,
          0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
          0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
  };
  /* A line whose timestamp_ns is INT64_MAX: ps do not fit in 64 bits. */
  static const guint8 overflowing_line[] = {
    0x0a, 0x12,
      0x1a, 0x10,
        0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
        0x22, 0x04, 0x08, 0x01, 0x10, 0x05,
  };

  add_case (cases, g_bytes_new (NULL, 0), "empty file");
  add_case (cases, filled (0xff, 4096), "4096 bytes of 0xff");
  add_case (cases, filled (0x00, 4096), "4096 bytes of 0x00");
  add_case (cases, filled (0x0a, 4096), "4096 bytes of 0x0a (nested plane tags)");
  add_case (cases, from_literal (padded_tag, sizeof padded_tag), "10-byte plane tag");
  add_case (cases, from_literal (eleven_tag, sizeof eleven_tag), "11-byte plane tag");
  add_case (cases, from_literal (field_zero, sizeof field_zero), "field number 0");
  add_case (cases, from_literal (huge_field, sizeof huge_field), "field number 2^29-1");
  add_case (cases, from_literal (end_group, sizeof end_group), "end group");
  add_case (cases, from_literal (wire_type_7, sizeof wire_type_7), "wire type 7");
  add_case (cases, from_literal (overflowing_event, sizeof overflowing_event), "event offset -1, duration INT64_MAX");
  add_case (cases, from_literal (overflowing_line, sizeof overflowing_line), "line timestamp INT64_MAX");
  add_case (cases, from_literal ("\x0a\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 12), "plane length as an 11-byte varint");

  for (guint i = first; i < cases->len; i++)
    ((Case *) g_ptr_array_index (cases, i))->with_cli = TRUE;
}

/* ------------------------------------------------------------------------ */
/* What every load must satisfy */


/* Stats either decode or fail cleanly, leaving @out as it was. */
static void
check_stats_of (PlanarTrace       *trace,
                const PlanarPlane *plane,
                const PlanarEvent *ev,
                GArray            *out)
{
  g_autoptr(GError) error = NULL;
  guint n;

  g_array_set_size (out, 0);
  n = planar_trace_get_event_stats (trace, plane, ev, out, &error);
  if (error != NULL)
    {
      g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT);
      g_assert_nonnull (strstr (error->message, planar_trace_get_file_name (trace)));
      g_assert_nonnull (strstr (error->message, "at byte "));
      g_assert_cmpuint (n, ==, 0);
      g_assert_cmpuint (out->len, ==, 0);
      return;
    }
  g_assert_cmpuint (n, ==, out->len);
  for (guint i = 0; i < out->len; i++)
    {
      const PlanarStat *stat = &g_array_index (out, PlanarStat, i);
      g_autofree char *text = NULL;

      g_assert_nonnull (stat->name);
      g_assert_cmpint (stat->kind, >=, PLANAR_STAT_NONE);
      g_assert_cmpint (stat->kind, <=, PLANAR_STAT_REF);
      /* Touches every byte of a string value. */
      text = planar_stat_format_value (stat);
      g_assert_nonnull (text);
    }
}

static void
check_trace (PlanarTrace *trace)
{
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  guint64 n_events = 0, n_overlaps = 0;
  guint n_stats_events = 0;
  gboolean has_span, any_event = FALSE;
  gint64 first = 0, last = 0, min_start = G_MAXINT64, max_end = G_MININT64;

  g_assert_true (planar_trace_is_decoded (trace));
  g_assert_cmpfloat (planar_trace_get_fraction (trace), ==, 1.0);
  g_assert_nonnull (planar_trace_get_hostnames (trace));
  g_assert_nonnull (planar_trace_get_errors (trace));
  g_assert_nonnull (planar_trace_get_warnings (trace));
  has_span = planar_trace_get_span (trace, &first, &last);

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);
      guint64 line_events = 0, track_events = 0;

      g_assert_nonnull (plane->name);
      g_assert_cmpuint (plane->n_metadata, >=, 1);
      for (guint m = 0; m < plane->n_metadata; m++)
        {
          g_assert_nonnull (plane->metadata[m].name);
          g_assert_nonnull (plane->metadata[m].display_name);
        }
      for (guint s = 0; s < plane->n_stats; s++)
        g_free (planar_stat_format_value (&plane->stats[s]));
      for (guint l = 0; l < plane->n_lines; l++)
        {
          const PlanarLine *line = &plane->lines[l];

          g_assert_nonnull (line->name);
          g_assert_nonnull (line->display_name);
          g_assert_cmpuint (line->track, <, plane->n_tracks);
          g_assert_cmpint (plane->tracks[line->track].id, ==, line->id);
          g_assert_cmpuint (line->offset + line->size, <=, planar_trace_get_file_size (trace));
          if (!line->derived)
            line_events += line->n_events;
        }
      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          g_assert_true (planar_trace_is_track_ready (trace, p, t));
          g_assert_cmpuint (track->row, <, MAX (plane->n_rows, 1));
          /* Derived tracks repeat the file's events: they count in no
           * total and set no bound. */
          planar_test_check_track (plane, track, first, last, !track->derived);
          if (!track->derived)
            {
              track_events += track->n_events + track->n_aggregated;
              n_overlaps += track->n_overlaps;
              if (track->n_events > 0)
                {
                  any_event = TRUE;
                  min_start = MIN (min_start, track->start_ps);
                  max_end = MAX (max_end, track->end_ps);
                }
            }
          for (gsize i = 0; i < track->n_events && n_stats_events < MAX_STATS_EVENTS; i++, n_stats_events++)
            {
              g_assert_nonnull (planar_plane_get_event_name (plane, &track->events[i], TRUE));
              check_stats_of (trace, plane, &track->events[i], stats);
            }
          for (gsize i = 0; i < track->n_aggregated && n_stats_events < MAX_STATS_EVENTS; i++, n_stats_events++)
            check_stats_of (trace, plane, &track->aggregated[i], stats);
        }
      g_assert_cmpuint (plane->n_events, ==, line_events);
      g_assert_cmpuint (plane->n_events, ==, track_events);
      n_events += plane->n_events;
    }
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, n_events);
  g_assert_cmpuint (planar_trace_get_n_overlaps (trace), ==, n_overlaps);
  g_assert_cmpint (has_span, ==, any_event);
  if (has_span)
    {
      g_assert_cmpint (first, ==, min_start);
      g_assert_cmpint (last, ==, max_end);
      g_assert_cmpint (first, <=, last);
      if (planar_trace_is_aligned_at_earliest_event (trace))
        g_assert_cmpint (first, ==, 0);
    }
  g_assert_cmpint (planar_trace_is_aligned_at_earliest_event (trace), ==,
                   !planar_trace_get_profile_start_time (trace, NULL));
}

/* A refusal names the file, and a decoding error says where. */
static void
check_error (const GError *error,
             const char   *file_name,
             gsize         size)
{
  const char *at;

  g_assert_nonnull (error);
  if (error->domain != PLANAR_TRACE_ERROR)
    g_error ("error outside PLANAR_TRACE_ERROR: %s", error->message);
  if (strstr (error->message, file_name) == NULL)
    g_error ("error does not name %s: %s", file_name, error->message);
  switch (error->code)
    {
    case PLANAR_TRACE_ERROR_CORRUPT:
      at = strstr (error->message, "at byte ");
      if (at == NULL)
        g_error ("decoding error without \"at byte N\": %s", error->message);
      else
        {
          char *end = NULL;
          guint64 offset = g_ascii_strtoull (at + strlen ("at byte "), &end, 10);

          g_assert_true (end != at + strlen ("at byte "));
          g_assert_cmpuint (offset, <=, size);
        }
      break;
    case PLANAR_TRACE_ERROR_EMPTY:
      g_assert_cmpuint (size, ==, 0);
      break;
    case PLANAR_TRACE_ERROR_TOO_LARGE:
    case PLANAR_TRACE_ERROR_OVERFLOW:
      break;
    case PLANAR_TRACE_ERROR_NOT_FOUND:
    case PLANAR_TRACE_ERROR_UNSUPPORTED:
    default:
      g_error ("unexpected error code %d: %s", error->code, error->message);
    }
}

static void
write_file (const char *path,
            GBytes     *bytes)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  g_assert_cmpint (fd, >=, 0);
  while (size > 0)
    {
      ssize_t n = write (fd, data, size);

      if (n < 0 && errno == EINTR)
        continue;
      g_assert_cmpint (n, >, 0);
      data += n;
      size -= (gsize) n;
    }
  g_assert_cmpint (close (fd), ==, 0);
}

typedef struct
{
  int   status;
  char *out;
  char *err;
} CliResult;

static void
cli_result_clear (CliResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliResult, cli_result_clear)

static void
run_cli_info (const char *path,
              CliResult  *result)
{
  const char *cli = g_getenv ("PLANAR_CLI");
  const char *argv[] = { cli, "info", path, NULL };
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_assert_nonnull (cli);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &result->out, &result->err, &wait_status, &error);
  g_assert_no_error (error);
  if (!WIFEXITED (wait_status))
    g_error ("planar-cli info %s died (wait status %d); stderr: %s", path, wait_status, result->err);
  result->status = WEXITSTATUS (wait_status);
}

/* Loads one case; on failure, planar-cli must say the same in one line. */
static gboolean
run_case (const char *dir,
          const Case *c,
          guint       number,
          gboolean    with_cli)
{
  g_autofree char *path = g_build_filename (dir, "bad.xplane.pb", NULL);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  gsize size = g_bytes_get_size (c->bytes);

  if (g_test_verbose ())
    g_test_message ("case %u: %s (%" G_GSIZE_FORMAT " bytes)", number, c->label, size);
  write_file (path, c->bytes);
  trace = planar_trace_load (path, NULL, &error);
  if (trace == NULL)
    {
      if (error == NULL)
        g_error ("case %u (%s): NULL without an error", number, c->label);
      check_error (error, "bad.xplane.pb", size);
    }
  else
    {
      g_assert_no_error (error);
      check_trace (trace);
    }

  if (with_cli)
    {
      g_auto(CliResult) r = { 0 };

      run_cli_info (path, &r);
      if (trace == NULL)
        {
          if (r.status != 2 || r.out[0] != '\0' || !g_str_has_prefix (r.err, "planar-cli: ") ||
              strchr (r.err, '\n') != r.err + strlen (r.err) - 1 || strstr (r.err, "bad.xplane.pb") == NULL)
            g_error ("case %u (%s): planar-cli info exited %d, stdout %" G_GSIZE_FORMAT
                     " bytes, stderr: %s", number, c->label, r.status, strlen (r.out), r.err);
        }
      else if (r.status != 0)
        g_error ("case %u (%s) loads, but planar-cli info exited %d: %s", number, c->label, r.status, r.err);
    }
  return trace != NULL;
}

/* The sample @name, or a profile of planar-gen in a clone without the
 * samples: every case here works on either. */
static char *
sample_path (const char *name)
{
  return planar_test_sample_or_generated (name);
}

static char *
make_tmp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("planar-test-bad-input-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
run_corpus (GPtrArray *cases)
{
  g_autofree char *dir = make_tmp_dir ();
  guint n_loaded = 0, n_cli = 0;

  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = g_ptr_array_index (cases, i);
      gboolean with_cli = c->with_cli || i % CLI_EVERY == 0;

      if (run_case (dir, c, i, with_cli))
        n_loaded++;
      n_cli += with_cli;
    }
  g_test_message ("%u cases: %u loaded, %u refused, %u also through planar-cli",
                  cases->len, n_loaded, cases->len - n_loaded, n_cli);
  remove_dir (dir);
}

/* ------------------------------------------------------------------------ */

static void
test_valid_inputs (PlanarTestFixture *f,
                   gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *sample = sample_path (SMALL_SAMPLE);
  g_autofree char *path = g_build_filename (dir, "bad.xplane.pb", NULL);
  g_autoptr(GBytes) rich = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(PlanarTrace) sample_trace = NULL;
  g_autoptr(GError) error = NULL;
  const PlanarPlane *cpu;
  const PlanarTrack *python;

  scratch = g_ptr_array_new_with_free_func (g_free);
  rich = build_rich_space ();
  g_clear_pointer (&scratch, g_ptr_array_unref);

  /* The starting points load, and the rich one is as rich as meant. */
  write_file (path, rich);
  trace = planar_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  check_trace (trace);
  g_assert_cmpuint (planar_trace_get_n_planes (trace), ==, 3);
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 25);
  g_assert_true (planar_trace_get_profile_start_time (trace, NULL));
  cpu = planar_trace_find_plane (trace, "/host:CPU");
  g_assert_nonnull (cpu);
  g_assert_cmpuint (cpu->n_lines, ==, 4);
  g_assert_cmpuint (cpu->n_tracks, ==, 3);
  python = planar_plane_find_track (cpu, "python3");
  g_assert_nonnull (python);
  g_assert_cmpuint (python->n_events, ==, 9);
  /* outer > middle > inner > an instant at the inner's start. */
  g_assert_cmpuint (python->max_depth, ==, 3);
  g_assert_cmpuint (planar_trace_get_n_overlaps (trace), >=, 1);

  sample_trace = planar_trace_load (sample, NULL, &error);
  g_assert_no_error (error);
  check_trace (sample_trace);
}

static void
test_rich_corpus (void)
{
  g_autoptr(GPtrArray) cases = g_ptr_array_new_with_free_func ((GDestroyNotify) case_free);
  g_autoptr(GBytes) rich = NULL;

  scratch = g_ptr_array_new_with_free_func (g_free);
  rich = build_rich_space ();
  g_clear_pointer (&scratch, g_ptr_array_unref);

  add_fixed_cases (cases);
  add_corpus_of (cases, "rich", rich, 200, 350, 450, 0x5eed0001);
  run_corpus (cases);
}

static void
test_sample_corpus (void)
{
  g_autoptr(GPtrArray) cases = g_ptr_array_new_with_free_func ((GDestroyNotify) case_free);
  g_autofree char *path = sample_path (SMALL_SAMPLE);
  g_autofree char *contents = NULL;
  g_autoptr(GBytes) sample = NULL;
  g_autoptr(GError) error = NULL;
  gsize size;

  g_file_get_contents (path, &contents, &size, &error);
  g_assert_no_error (error);
  sample = g_bytes_new_take (g_steal_pointer (&contents), size);

  add_corpus_of (cases, "sample", sample, 60, 150, 150, 0x5eed0002);
  run_corpus (cases);
}

/* 100,000 events on one line, each strictly inside the one before. */
static GBytes *
build_deep_space (guint    n,
                  gboolean innermost_first)
{
  g_autoptr(GByteArray) line = g_byte_array_new ();
  g_autoptr(GByteArray) event = g_byte_array_new ();
  g_autoptr(GByteArray) md_value = g_byte_array_new ();
  g_autoptr(GByteArray) md_entry = g_byte_array_new ();
  g_autoptr(GByteArray) plane = g_byte_array_new ();
  GByteArray *space = g_byte_array_new ();
  static const char name[] = "nested";

  put_varint_field (line, 1, 1);
  put_len_field (line, 2, (const guint8 *) "deep", 4);
  put_varint_field (line, 3, 1000);
  for (guint k = 0; k < n; k++)
    {
      guint i = innermost_first ? n - 1 - k : k;

      g_byte_array_set_size (event, 0);
      put_varint_field (event, 1, 1);
      put_varint_field (event, 2, i);
      put_varint_field (event, 3, 2 * (guint64) (n - i));
      put_len_field (line, 4, event->data, event->len);
    }

  put_varint_field (md_value, 1, 1);
  put_len_field (md_value, 2, (const guint8 *) name, strlen (name));
  put_varint_field (md_entry, 1, 1);
  put_len_field (md_entry, 2, md_value->data, md_value->len);

  put_varint_field (plane, 1, 7);
  put_len_field (plane, 2, (const guint8 *) "/host:CPU", 9);
  put_len_field (plane, 4, md_entry->data, md_entry->len);
  put_len_field (plane, 3, line->data, line->len);
  put_len_field (space, 1, plane->data, plane->len);
  return bytes_from_array (space);
}

static void
test_deep_nesting (PlanarTestFixture *f,
                   gconstpointer      data)
{
  const guint n = 100000;
  const char *dir = f->dir;
  g_autofree char *path = g_build_filename (dir, "deep.xplane.pb", NULL);

  for (guint order = 0; order < 2; order++)
    {
      g_autoptr(GBytes) bytes = build_deep_space (n, order == 1);
      g_autoptr(PlanarTrace) trace = NULL;
      g_autoptr(GError) error = NULL;
      const PlanarPlane *plane;
      const PlanarTrack *track;
      guint n_clamped = 0;
      gint64 first, last;

      write_file (path, bytes);
      trace = planar_trace_load (path, NULL, &error);
      g_assert_no_error (error);
      check_trace (trace);
      g_assert_cmpuint (planar_trace_get_n_events (trace), ==, n);
      plane = planar_trace_get_plane (trace, 0);
      g_assert_cmpuint (plane->n_tracks, ==, 1);
      track = &plane->tracks[0];
      g_assert_cmpuint (track->n_events, ==, n);
      g_assert_cmpuint (track->n_overlaps, ==, 0);
      for (guint i = 0; i < n; i++)
        {
          const PlanarEvent *ev = &track->events[i];

          /* Aligned at the earliest event: the outermost starts at 0. */
          g_assert_cmpint (ev->start_ps, ==, (gint64) i);
          g_assert_cmpint (ev->duration_ps, ==, 2 * (gint64) (n - i));
          if (ev->flags & PLANAR_EVENT_DEPTH_CLAMPED)
            {
              g_assert_cmpuint (ev->depth, ==, G_MAXUINT16);
              g_assert_cmpuint (i, >=, G_MAXUINT16);
              n_clamped++;
            }
          else
            g_assert_cmpuint (ev->depth, ==, i);
        }
      g_assert_cmpuint (track->max_depth, >=, MIN (n - 1, G_MAXUINT16));
      g_test_message ("%u of %u depths clamped", n_clamped, n);
      g_assert_true (planar_trace_get_span (trace, &first, &last));
      g_assert_cmpint (first, ==, 0);
      g_assert_cmpint (last, ==, 2 * (gint64) n);
    }
}

/* A valid plane past 2^31: an unknown field of 2.2 GB of holes comes
 * first. The file is sparse, so it takes a few KiB of disk. */
static void
test_past_2gib (PlanarTestFixture *f,
                gconstpointer      data)
{
  const guint64 hole = G_GUINT64_CONSTANT (2200000000);
  const char *dir = f->dir;
  g_autofree char *path = g_build_filename (dir, "huge.xplane.pb", NULL);
  g_autoptr(GByteArray) head = g_byte_array_new ();
  g_autoptr(GByteArray) tail = g_byte_array_new ();
  g_autoptr(GBytes) rich = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(PlanarTrace) reference = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autofree char *rich_path = g_build_filename (dir, "rich.xplane.pb", NULL);
  guint64 total;
  struct stat st;
  gsize rich_size;
  const guint8 *rich_data;
  int fd;

  scratch = g_ptr_array_new_with_free_func (g_free);
  rich = build_rich_space ();
  g_clear_pointer (&scratch, g_ptr_array_unref);
  rich_data = g_bytes_get_data (rich, &rich_size);

  /* Field 15, length-delimited, 2.2 GB of zeros; then every field of the
   * rich space (its planes and hostnames) after it. */
  put_tag (head, 15, 2);
  put_varint (head, hole);
  g_byte_array_append (tail, rich_data, (guint) rich_size);
  total = head->len + hole + tail->len;

  fd = g_open (path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  g_assert_cmpint (fd, >=, 0);
  if (ftruncate (fd, (off_t) total) != 0 || fstat (fd, &st) != 0 ||
      (guint64) st.st_blocks * 512 > (G_GUINT64_CONSTANT (64) << 20))
    {
      close (fd);
      g_test_skip ("the temporary folder's filesystem does not make sparse files");
      return;
    }
  g_assert_cmpint (pwrite (fd, head->data, head->len, 0), ==, (ssize_t) head->len);
  g_assert_cmpint (pwrite (fd, tail->data, tail->len, (off_t) (head->len + hole)), ==, (ssize_t) tail->len);
  g_assert_cmpint (close (fd), ==, 0);

  write_file (rich_path, rich);
  reference = planar_trace_load (rich_path, NULL, &error);
  g_assert_no_error (error);

  trace = planar_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  check_trace (trace);
  g_assert_cmpuint (planar_trace_get_file_size (trace), ==, total);
  g_assert_cmpuint (planar_trace_get_n_planes (trace), ==, planar_trace_get_n_planes (reference));
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, planar_trace_get_n_events (reference));
  g_assert_cmpstr (planar_trace_get_hostnames (trace)[0], ==, "host-a");
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);
      const PlanarPlane *ref_plane = planar_trace_get_plane (reference, p);

      g_assert_cmpstr (plane->name, ==, ref_plane->name);
      g_assert_cmpuint (plane->n_lines, ==, ref_plane->n_lines);
      for (guint l = 0; l < plane->n_lines; l++)
        {
          g_assert_cmpuint (plane->lines[l].offset, >, G_GUINT64_CONSTANT (1) << 31);
          g_assert_cmpuint (plane->lines[l].offset, ==, ref_plane->lines[l].offset + head->len + hole);
          g_assert_cmpuint (plane->lines[l].n_events, ==, ref_plane->lines[l].n_events);
        }
      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];
          const PlanarTrack *ref_track = &ref_plane->tracks[t];

          g_assert_cmpuint (track->n_events, ==, ref_track->n_events);
          for (gsize i = 0; i < track->n_events; i++)
            {
              guint n, n_ref;

              g_assert_cmpint (track->events[i].start_ps, ==, ref_track->events[i].start_ps);
              g_assert_cmpuint (track->events[i].source, >, G_GUINT64_CONSTANT (1) << 31);
              /* Stats read from past 2^31 equal those of the small file. */
              g_array_set_size (stats, 0);
              n = planar_trace_get_event_stats (trace, plane, &track->events[i], stats, &error);
              g_assert_no_error (error);
              g_array_set_size (stats, 0);
              n_ref = planar_trace_get_event_stats (reference, ref_plane, &ref_track->events[i], stats, &error);
              g_assert_no_error (error);
              g_assert_cmpuint (n, ==, n_ref);
            }
        }
    }

  /* And through planar-cli. */
  {
    g_auto(CliResult) r = { 0 };

    run_cli_info (path, &r);
    if (r.status != 0)
      g_error ("planar-cli info on the 2.2 GB file exited %d: %s", r.status, r.err);
    g_assert_nonnull (strstr (r.out, "/device:GPU:0"));
  }

  g_clear_object (&trace);
}

/* Resident memory of this process, in bytes; 0 where /proc cannot say. */
static guint64
resident_bytes (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, "\nVmRSS:");
  if (line == NULL)
    return 0;
  return g_ascii_strtoull (line + strlen ("\nVmRSS:"), NULL, 10) * 1024;
}

#if defined(__SANITIZE_ADDRESS__)
# define UNDER_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define UNDER_ASAN 1
# endif
#endif

/* Records a failure of the amplification case and goes on, so that each
 * input is reported, saying why in the log and on the case's "not ok"
 * line. GLib ends a program whose case failed with "Bail out!" and
 * SIGABRT, saying nothing on stderr, and `meson test --print-errorlogs`
 * shows only the end of its output: a reason given by g_test_message()
 * alone, many lines above, was not seen there. */
static void G_GNUC_PRINTF (1, 2)
fail_saying (const char *format,
             ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_test_message ("%s", text);
  g_test_fail_printf ("%s", text);
}

/* Small files whose every few bytes make the index allocate: empty planes,
 * empty lines, lines of distinct ids. The model's decode budget is 64 MiB
 * plus six times the file size (model/trace/planar-trace-scan.c); such a file must be
 * refused with PLANAR_TRACE_ERROR_TOO_LARGE or fit in that budget, or a
 * few megabytes of junk take gigabytes. */
static GBytes *
build_amplifier (guint kind,
                 guint n)
{
  g_autoptr(GByteArray) plane = g_byte_array_new ();
  g_autoptr(GByteArray) line = g_byte_array_new ();
  GByteArray *space = g_byte_array_new ();

  if (kind == 0)
    {
      for (guint i = 0; i < n; i++)
        put_len_field (space, 1, NULL, 0);
      return bytes_from_array (space);
    }
  put_len_field (plane, 2, (const guint8 *) "p", 1);
  for (guint i = 0; i < n; i++)
    {
      g_byte_array_set_size (line, 0);
      if (kind == 2)
        put_varint_field (line, 1, i + 1);
      put_len_field (plane, 3, line->data, line->len);
    }
  put_len_field (space, 1, plane->data, plane->len);
  return bytes_from_array (space);
}

static void
check_memory_per_byte (void)
{
  static const struct
  {
    const char *what;
    guint       n;
  } kinds[] = {
    { "empty planes", 300000 },
    { "empty lines", 2000000 },
    { "lines with distinct ids", 1000000 },
  };
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "amplifier.xplane.pb", NULL);

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
#ifdef UNDER_ASAN
      /* Only whether they load: memory is not measured under ASan. */
      g_autoptr(GBytes) bytes = build_amplifier (k, kinds[k].n / 50);
#else
      g_autoptr(GBytes) bytes = build_amplifier (k, kinds[k].n);
#endif
      g_autoptr(PlanarTrace) trace = NULL;
      g_autoptr(GError) error = NULL;
      gsize size = g_bytes_get_size (bytes);
      guint64 budget = (G_GUINT64_CONSTANT (64) << 20) + 6 * (guint64) size;
      guint64 before, after;

      write_file (path, bytes);
      before = resident_bytes ();
      trace = planar_trace_load (path, NULL, &error);
      after = resident_bytes ();
      if (trace == NULL)
        {
          check_error (error, "amplifier.xplane.pb", size);
          g_test_message ("%s (%" G_GSIZE_FORMAT " bytes): refused: %s", kinds[k].what, size, error->message);
          continue;
        }
      check_trace (trace);
      g_test_message ("%s (%" G_GSIZE_FORMAT " bytes): loaded, resident memory grew by %" G_GUINT64_FORMAT
                      " MiB (budget %" G_GUINT64_FORMAT " MiB)", kinds[k].what, size,
                      (after - MIN (before, after)) >> 20, budget >> 20);
#ifndef UNDER_ASAN
      /* ASan's redzones and quarantine inflate every allocation. */
      if (before > 0 && after > before && after - before > budget)
        {
          fail_saying ("%s: a %" G_GSIZE_FORMAT "-byte file took %" G_GUINT64_FORMAT
                       " MiB, past the decode budget", kinds[k].what, size, (after - before) >> 20);
        }
#endif
    }
  remove_dir (dir);
}

/* How a file numbers its metadata and lines: 1, 2, 3... as writers do, or
 * as a hostile file could, to make the ids collide in a hash that keeps
 * some of their bits: k << 32 (the same low 32 bits) and k << 32 | k (the
 * same once their halves are xored). */
typedef enum
{
  IDS_DENSE,
  IDS_HIGH,
  IDS_FOLDED,
  N_ID_KINDS
} IdKind;

static const char * const id_kind_names[N_ID_KINDS] = { "1, 2, 3", "k << 32", "k << 32 | k" };

/* The @k-th id (from 1) of @kind. */
static guint64
make_id (IdKind  kind,
         guint64 k)
{
  switch (kind)
    {
    case IDS_HIGH:
      return k << 32;
    case IDS_FOLDED:
      return k << 32 | k;
    case IDS_DENSE:
    case N_ID_KINDS:
    default:
      return k;
    }
}

/* A plane with @n stats of distinct metadata ids of @kind, and @n event
 * metadata of such ids, the first of which has @n such stats too. */
static GBytes *
build_many_stats (guint  n,
                  IdKind kind)
{
  g_autoptr(GByteArray) plane = g_byte_array_new ();
  g_autoptr(GByteArray) stat = g_byte_array_new ();
  g_autoptr(GByteArray) md = g_byte_array_new ();
  GByteArray *space = g_byte_array_new ();

  put_len_field (plane, 2, (const guint8 *) "/host:CPU", 9);
  for (guint i = 0; i < n; i++)
    {
      g_byte_array_set_size (stat, 0);
      put_varint_field (stat, 1, make_id (kind, i + 1));
      put_varint_field (stat, 4, i);
      put_len_field (plane, 6, stat->data, stat->len);
    }
  for (guint m = 0; m < n; m++)
    {
      g_byte_array_set_size (md, 0);
      put_varint_field (md, 1, make_id (kind, m + 1));
      put_len_field (md, 2, (const guint8 *) "op", 2);
      for (guint i = 0; m == 0 && i < n; i++)
        {
          g_byte_array_set_size (stat, 0);
          put_varint_field (stat, 1, make_id (kind, i + 1));
          put_varint_field (stat, 3, i);
          put_len_field (md, 5, stat->data, stat->len);
        }
      g_byte_array_set_size (stat, 0);
      put_varint_field (stat, 1, make_id (kind, m + 1));
      put_len_field (stat, 2, md->data, md->len);
      put_len_field (plane, 4, stat->data, stat->len);
    }
  put_len_field (space, 1, plane->data, plane->len);
  return bytes_from_array (space);
}

/* A plane of @n lines of distinct ids of @kind, one event each. */
static GBytes *
build_many_lines (guint  n,
                  IdKind kind)
{
  g_autoptr(GByteArray) plane = g_byte_array_new ();
  g_autoptr(GByteArray) line = g_byte_array_new ();
  g_autoptr(GByteArray) event = g_byte_array_new ();
  g_autoptr(GByteArray) md = g_byte_array_new ();
  GByteArray *space = g_byte_array_new ();

  put_len_field (plane, 2, (const guint8 *) "lines", 5);
  put_varint_field (md, 1, 1);
  put_len_field (md, 2, (const guint8 *) "work", 4);
  put_varint_field (event, 1, 1);
  put_len_field (event, 2, md->data, md->len);
  put_len_field (plane, 4, event->data, event->len);
  for (guint i = 0; i < n; i++)
    {
      g_byte_array_set_size (line, 0);
      g_byte_array_set_size (event, 0);
      put_varint_field (event, 1, 1);
      put_varint_field (event, 2, i);
      put_varint_field (event, 3, 1000);
      put_varint_field (line, 1, make_id (kind, i + 1));
      put_varint_field (line, 3, 1000);
      put_len_field (line, 4, event->data, event->len);
      put_len_field (plane, 3, line->data, line->len);
    }
  put_len_field (space, 1, plane->data, plane->len);
  return bytes_from_array (space);
}

/* Loads @n stats (@lines FALSE) or lines of @kind and returns the steps
 * the load took (_planar_trace_get_steps()): the model's own count of its
 * work, which no other load on the machine changes. */
static guint64
count_steps (const char *path,
             gboolean    lines,
             guint       n,
             IdKind      kind)
{
  g_autoptr(GBytes) bytes = lines ? build_many_lines (n, kind) : build_many_stats (n, kind);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  const PlanarPlane *plane;
  guint64 steps;

  write_file (path, bytes);
  trace = planar_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  check_trace (trace);
  plane = planar_trace_get_plane (trace, 0);
  if (lines)
    {
      g_assert_cmpuint (plane->n_lines, ==, n);
      g_assert_cmpuint (plane->n_tracks, ==, n);
      g_assert_cmpuint (planar_trace_get_n_events (trace), ==, n);
    }
  else
    {
      g_assert_cmpuint (plane->n_stats, ==, n);
      g_assert_cmpuint (plane->n_metadata, ==, n + 1);
      g_assert_cmpuint (plane->metadata[1].n_stats, ==, n);
    }
  steps = _planar_trace_get_steps (trace);
  g_test_message ("%u %s of ids %s (%" G_GSIZE_FORMAT " bytes): %" G_GUINT64_FORMAT " steps, %.1f each",
                  n, lines ? "lines" : "stats and event metadata", id_kind_names[kind],
                  g_bytes_get_size (bytes), steps, (double) steps / n);
  return steps;
}

/* Many stats, event metadata or lines of distinct ids, numbered as
 * writers do or chosen to collide in a weak hash: loading them must take
 * work in proportion to their number, not its square. Four times as many
 * must take about four times the steps (at most four and a half), not
 * sixteen: a count, not a time, so that nothing else the machine runs can
 * fail it. */
static void
check_many_ids (void)
{
  const guint n = 2500;
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "ids.xplane.pb", NULL);

  for (guint lines = 0; lines < 2; lines++)
    for (IdKind kind = 0; kind < N_ID_KINDS; kind++)
      {
        guint64 small = count_steps (path, lines, n, kind);
        guint64 large = count_steps (path, lines, 4 * n, kind);
        g_autofree char *what = g_strdup_printf ("loading the %s of ids %s", lines ? "lines" : "stats",
                                                 id_kind_names[kind]);

        planar_test_check_linear (n, small, large, what);
      }
  remove_dir (dir);
}

/* The other side of the budget: a small, valid profile of many short lines
 * (a host with thousands of threads that each ran one event) is not
 * "past what its size justifies" and must load. */
static void
check_many_short_lines (void)
{
  const guint n = 10000;
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "threads.xplane.pb", NULL);
  g_autoptr(GByteArray) plane = g_byte_array_new ();
  g_autoptr(GByteArray) line = g_byte_array_new ();
  g_autoptr(GByteArray) event = g_byte_array_new ();
  g_autoptr(GByteArray) md = g_byte_array_new ();
  GByteArray *space = g_byte_array_new ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;

  put_len_field (plane, 2, (const guint8 *) "/host:CPU", 9);
  put_varint_field (md, 1, 1);
  put_len_field (md, 2, (const guint8 *) "work", 4);
  g_byte_array_set_size (event, 0);
  put_varint_field (event, 1, 1);
  put_len_field (event, 2, md->data, md->len);
  put_len_field (plane, 4, event->data, event->len);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("worker/%u", i);

      g_byte_array_set_size (line, 0);
      g_byte_array_set_size (event, 0);
      put_varint_field (event, 1, 1);
      put_varint_field (event, 2, i);
      put_varint_field (event, 3, 1000);
      put_varint_field (line, 1, i + 1);
      put_len_field (line, 2, (const guint8 *) name, strlen (name));
      put_varint_field (line, 3, 1000);
      put_len_field (line, 4, event->data, event->len);
      put_len_field (plane, 3, line->data, line->len);
    }
  put_len_field (space, 1, plane->data, plane->len);
  bytes = bytes_from_array (space);
  write_file (path, bytes);

  trace = planar_trace_load (path, NULL, &error);
  if (trace == NULL)
    {
      check_error (error, "threads.xplane.pb", g_bytes_get_size (bytes));
      fail_saying ("a valid %" G_GSIZE_FORMAT "-byte profile of %u lines of one event each was "
                   "refused: %s", g_bytes_get_size (bytes), n, error->message);
    }
  else
    {
      check_trace (trace);
      g_assert_cmpuint (planar_trace_get_n_events (trace), ==, n);
    }
  remove_dir (dir);
}

/* Inputs that cost far more than their size, and one that does not: they
 * are measured, and a failure is recorded without stopping, so that each
 * is reported. */
static void
test_amplification (void)
{
  check_many_ids ();
  check_memory_per_byte ();
  check_many_short_lines ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  PLANAR_TEST_ADD ("/bad-input/valid-inputs", test_valid_inputs);
  g_test_add_func ("/bad-input/rich-corpus", test_rich_corpus);
  g_test_add_func ("/bad-input/sample-corpus", test_sample_corpus);
  PLANAR_TEST_ADD ("/bad-input/deep-nesting", test_deep_nesting);
  PLANAR_TEST_ADD ("/bad-input/past-2gib", test_past_2gib);
  g_test_add_func ("/bad-input/amplification", test_amplification);

  return g_test_run ();
}
