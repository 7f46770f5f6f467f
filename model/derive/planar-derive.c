/* planar-derive.c: the lines and indices the model derives from the file's.
 *
 * A saved `.xplane.pb` holds what the profiler recorded; XProf computes more
 * when it loads one (FORMATS.md §2.8, `xprof/utils/derived_timeline.cc`):
 *
 *  - on each `/device:GPU:N` plane, per stream, the lines `XLA Modules`,
 *    `XLA Ops`, `Framework Ops` and `Framework Name Scope` built from the
 *    annotations on the kernels, a `Steps` line from the events' group ids,
 *    and a `Launch Stats` line from the host's launch calls;
 *  - on each `/device:TPU:N` plane, `Framework Ops`, `Framework Name Scope`
 *    and `Source code` from the ops' `tf_op` and `source` stats.
 *
 * This file does the same once every file track is in place, in one pass
 * over the events' stats per plane (the stats decoded lazily from the
 * mapped file, as planar_trace_get_event_stats() does for anybody), and in
 * that pass also collects the ends of flows for planar-flows.c. The passes
 * of the planes (and of the host's tracks) run in parallel; what needs the
 * host's results (step names, Launch Stats) and the flow index follow in a
 * second round. Counter series come from planar-counters.c.
 *
 * Where the lines go: each derived line is appended to its plane's lines
 * and tracks, in the room the loader reserved (PLANAR_DERIVED_TRACKS_MAX),
 * so that no array a reader holds moves. Each gets a row of its own after
 * the file's rows, in XProf's display order (per stream: the stream's
 * lines in id order; then Steps and Launch Stats), and
 * PlanarTrack.source_track names its stream so that a viewer can show it
 * right under it. GPU lines carry XProf's display_id (the 1-based position
 * in [stream, its derived lines, next stream, ...]); the file's lines keep
 * the display ids the file gave them. A plane that already has lines of a
 * kind (the TensorFlow profiler saves `TensorFlow Ops`, `TensorFlow Name
 * Scope` and `Steps`; TPU planes come with `XLA Modules`, `XLA Ops` and
 * `Steps`) gets no derived lines of that kind.
 *
 * Left out, as the issue scopes it: framework ops and source lines resolved
 * through the HloProto in `/host:metadata` (so a kernel with an `hlo_op`
 * gets no Framework lines: XProf takes them from the HLO instruction, not
 * from the kernel's `tf_op`); XProf's full step grouping for profiles
 * without `group_id` (only the group names are recovered, from the host's
 * root events); the `Host Offload Ops` lines of TPU planes; the XLA:CPU
 * lines derived on host planes; and the stacks of identical spans XProf
 * shortens by 1 ns per level (here the loader nests them by creation order
 * instead, which is as stable and keeps the times exact). Also left out:
 * the conversion of older TraceMe stats to producer/consumer form XProf
 * makes first (PreprocessXPlane); more than one `flow` stat on an event
 * (an event's stats keep the last value of a name); the CUDA graph ids XProf
 * copies onto XLA op events; aggregated events (num_occurrences), which
 * have no time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-private.h"

#include "planar-counters.h"
#include "planar-derive.h"
#include "planar-flows.h"

#include <string.h>

/* How often the passes look at the cancellable. */
#define CHECK_EVERY 4096

/* What a derived event costs: the event, its entry in the table of
 * sources, and a share of the indices the loader builds over the track. */
#define DERIVED_EVENT_COST (sizeof (PlanarEvent) + 24 + 8)

/* Nesting levels kept per derived line: an `hlo_op` or a name scope with
 * more parts than this is cut (a real one has a handful; a damaged one
 * could otherwise make every kernel cost as much as its text). */
#define MAX_LEVELS 128

static guint max_tracks_per_plane = G_MAXUINT;
static gint64 budget_for_tests = -1;

void
_planar_derive_set_max_tracks_per_plane (guint n)
{
  max_tracks_per_plane = n;
}

void
_planar_derive_set_budget (gint64 bytes)
{
  budget_for_tests = bytes;
}

/* What PlanarEvent.source of a derived event points at: entry
 * (source & SOURCE_INDEX_MASK) of the table of plane (source >> 40), each
 * plane having its own so that planes derive in parallel. */
typedef struct
{
  PlanarEventRef ref;
  guint32        has_group_id;
  gint64         group_id;
} DerivedSource;

G_STATIC_ASSERT (sizeof (DerivedSource) == 24);

#define SOURCE_PLANE_SHIFT 40
#define SOURCE_INDEX_MASK  ((G_GUINT64_CONSTANT (1) << SOURCE_PLANE_SHIFT) - 1)

/* ------------------------------------------------------------------------ */
/* Reading what matters from an event's stats */

/* The interned stat names the passes compare against (by address); NULL
 * when the trace has no such name at all. */
typedef struct
{
  const char *kernel_details;
  const char *cuda_graph_exec_id;
  const char *hlo_op;
  const char *hlo_module;
  const char *program_id;
  const char *tf_op;
  const char *group_id;
  const char *scope_range_id;
  const char *correlation_id;
  const char *device_id;
  const char *flow;
  const char *producer_type;
  const char *producer_id;
  const char *consumer_type;
  const char *consumer_id;
  const char *is_root;
  const char *is_async;
  const char *source;
  const char *graph_type;
  const char *iter_num;
  const char *step_num;
} StatNames;

typedef struct
{
  const char *data;
  gsize       len;
} Text;

typedef struct
{
  gboolean kernel;
  gboolean graph_exec;
  gboolean is_root;
  gboolean is_async;
  Text     hlo_op;
  Text     hlo_module;
  Text     tf_op;
  Text     source;
  Text     graph_type;
  gboolean has_program_id;
  guint64  program_id;
  gboolean has_group_id;
  gint64   group_id;
  gboolean has_scope_range_id;
  gint64   scope_range_id;
  gboolean has_correlation_id;
  guint64  correlation_id;
  gboolean has_device_id;
  guint64  device_id;
  gboolean has_flow;
  guint64  flow;
  gboolean has_producer_type;
  guint64  producer_type;
  gboolean has_producer_id;
  guint64  producer_id;
  gboolean has_consumer_type;
  guint64  consumer_type;
  gboolean has_consumer_id;
  guint64  consumer_id;
  gboolean has_iter_num;
  gint64   iter_num;
  gboolean has_step_num;
  gint64   step_num;
} EventFacts;

/* XLA's StrOrRefValue(): the text of a string or reference stat. */
static gboolean
stat_text (const PlanarStat *stat,
           Text             *text)
{
  if (stat->kind != PLANAR_STAT_STRING && stat->kind != PLANAR_STAT_REF)
    return FALSE;
  text->data = stat->str.data;
  text->len = stat->str.len;
  return TRUE;
}

/* XLA's IntOrUintValue(). */
static gboolean
stat_int (const PlanarStat *stat,
          guint64          *value)
{
  if (stat->kind == PLANAR_STAT_INT64)
    *value = (guint64) stat->v.i64;
  else if (stat->kind == PLANAR_STAT_UINT64)
    *value = stat->v.u64;
  else
    return FALSE;
  return TRUE;
}

static void
read_facts (const StatNames *names,
            GArray          *stats,
            EventFacts      *facts)
{
  memset (facts, 0, sizeof *facts);
  for (guint i = 0; i < stats->len; i++)
    {
      const PlanarStat *stat = &g_array_index (stats, PlanarStat, i);
      const char *name = stat->name;
      Text text;
      guint64 v = 0;

      if (name == NULL || name[0] == '\0')
        continue;
      if (name == names->kernel_details)
        facts->kernel = stat_text (stat, &text) && text.len > 0;
      else if (name == names->cuda_graph_exec_id)
        facts->graph_exec = TRUE;
      else if (name == names->hlo_op)
        {
          if (!stat_text (stat, &facts->hlo_op))
            facts->hlo_op.len = 0;
        }
      else if (name == names->hlo_module)
        {
          if (!stat_text (stat, &facts->hlo_module))
            facts->hlo_module.len = 0;
        }
      else if (name == names->tf_op)
        {
          if (!stat_text (stat, &facts->tf_op))
            facts->tf_op.len = 0;
        }
      else if (name == names->source)
        {
          if (!stat_text (stat, &facts->source))
            facts->source.len = 0;
        }
      else if (name == names->graph_type)
        {
          if (!stat_text (stat, &facts->graph_type))
            facts->graph_type.len = 0;
        }
      else if (name == names->program_id)
        facts->has_program_id = stat_int (stat, &facts->program_id);
      else if (name == names->group_id)
        {
          facts->has_group_id = stat_int (stat, &v);
          facts->group_id = (gint64) v;
        }
      else if (name == names->scope_range_id)
        {
          facts->has_scope_range_id = stat_int (stat, &v);
          facts->scope_range_id = (gint64) v;
        }
      else if (name == names->correlation_id)
        facts->has_correlation_id = stat_int (stat, &facts->correlation_id);
      else if (name == names->device_id)
        facts->has_device_id = stat_int (stat, &facts->device_id);
      else if (name == names->flow)
        facts->has_flow = stat_int (stat, &facts->flow);
      else if (name == names->producer_type)
        facts->has_producer_type = stat_int (stat, &facts->producer_type);
      else if (name == names->producer_id)
        facts->has_producer_id = stat_int (stat, &facts->producer_id);
      else if (name == names->consumer_type)
        facts->has_consumer_type = stat_int (stat, &facts->consumer_type);
      else if (name == names->consumer_id)
        facts->has_consumer_id = stat_int (stat, &facts->consumer_id);
      else if (name == names->is_root)
        facts->is_root = TRUE;
      else if (name == names->is_async)
        facts->is_async = stat_int (stat, &v) && v != 0;
      else if (name == names->iter_num)
        {
          facts->has_iter_num = stat_int (stat, &v);
          facts->iter_num = (gint64) v;
        }
      else if (name == names->step_num)
        {
          facts->has_step_num = stat_int (stat, &v);
          facts->step_num = (gint64) v;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Framework op names (XLA's `tf_op_utils.cc`, rewritten without RE2) */

typedef enum
{
  TF_OP_UNKNOWN,
  TF_OP_TENSORFLOW,
  TF_OP_JAX,
  TF_OP_TF_DATA,
  TF_OP_MEMCPY,
} TfOpCategory;

typedef struct
{
  TfOpCategory category;
  Text         name;
  Text         type;
} TfOp;

static gboolean
is_upper (char c)
{
  return c >= 'A' && c <= 'Z';
}

static gboolean
is_lower (char c)
{
  return c >= 'a' && c <= 'z';
}

static gboolean
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

/* [A-Za-z0-9.][A-Za-z0-9_.\/>-]* */
static gboolean
is_tf_op_name (Text t)
{
  if (t.len == 0)
    return FALSE;
  if (!is_upper (t.data[0]) && !is_lower (t.data[0]) && !is_digit (t.data[0]) && t.data[0] != '.')
    return FALSE;
  for (gsize i = 1; i < t.len; i++)
    {
      char c = t.data[i];

      if (!is_upper (c) && !is_lower (c) && !is_digit (c) && strchr ("_./>-", c) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* [A-Z_][a-zA-Z0-9_]* */
static gboolean
is_tf_op_type (Text t)
{
  if (t.len == 0 || (!is_upper (t.data[0]) && t.data[0] != '_'))
    return FALSE;
  for (gsize i = 1; i < t.len; i++)
    if (!is_upper (t.data[i]) && !is_lower (t.data[i]) && !is_digit (t.data[i]) && t.data[i] != '_')
      return FALSE;
  return TRUE;
}

/* [a-z_][a-z0-9_]*(\[.*\])? */
static gboolean
is_jax_op_type (Text t)
{
  gsize i = 1;

  if (t.len == 0 || (!is_lower (t.data[0]) && t.data[0] != '_'))
    return FALSE;
  while (i < t.len && (is_lower (t.data[i]) || is_digit (t.data[i]) || t.data[i] == '_'))
    i++;
  if (i == t.len)
    return TRUE;
  if (t.data[i] != '[' || t.data[t.len - 1] != ']' || t.len - i < 2)
    return FALSE;
  return memchr (t.data + i, '\n', t.len - i) == NULL;
}

/* An optional sign and decimal digits, as absl::SimpleAtoi takes them. */
static gboolean
is_integer (Text t)
{
  gsize i = 0;

  if (t.len > 0 && (t.data[0] == '-' || t.data[0] == '+'))
    i = 1;
  if (i == t.len)
    return FALSE;
  for (; i < t.len; i++)
    if (!is_digit (t.data[i]))
      return FALSE;
  return TRUE;
}

/* The op name less its name scopes and its numeric suffix:
 * "model/layer/MatMul_1" -> "MatMul". */
static Text
derive_op_type (Text full)
{
  Text op = full;
  const char *slash = NULL, *underscore = NULL;

  for (gsize i = 0; i < full.len; i++)
    if (full.data[i] == '/')
      slash = full.data + i;
  if (slash != NULL)
    {
      op.data = slash + 1;
      op.len = full.data + full.len - op.data;
    }
  for (gsize i = 0; i < op.len; i++)
    if (op.data[i] == '_')
      underscore = op.data + i;
  if (underscore != NULL)
    {
      Text suffix = { underscore + 1, op.data + op.len - (underscore + 1) };

      if (is_integer (suffix))
        op.len = underscore - op.data;
    }
  return op;
}

static gboolean
text_has_prefix_ci (Text        t,
                    const char *prefix)
{
  gsize n = strlen (prefix);

  return t.len >= n && g_ascii_strncasecmp (t.data, prefix, n) == 0;
}

static TfOp
parse_tf_op (Text full)
{
  static const struct { const char *prefix; const char *type; } memcpy_ops[] = {
    { "MEMCPYHToD", "MemcpyHToD" },
    { "MEMCPYDToH", "MemcpyDToH" },
    { "MEMCPYDToD", "MemcpyDToD" },
    { "MEMCPYHToH", "MemcpyHToH" },
  };
  TfOp op = { TF_OP_UNKNOWN, full, { "", 0 } };
  const char *colon = memchr (full.data, ':', full.len);
  Text part0, part1, type;

  if (colon == NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (memcpy_ops); i++)
        if (text_has_prefix_ci (full, memcpy_ops[i].prefix))
          {
            op.category = TF_OP_MEMCPY;
            op.type.data = memcpy_ops[i].type;
            op.type.len = strlen (memcpy_ops[i].type);
          }
      return op;
    }

  part0.data = full.data;
  part0.len = colon - full.data;
  part1.data = colon + 1;
  part1.len = full.data + full.len - part1.data;

  if (part0.len == strlen ("Iterator") && memcmp (part0.data, "Iterator", part0.len) == 0)
    {
      op.category = TF_OP_TF_DATA;
      op.type.data = "Dataset";
      op.type.len = strlen ("Dataset");
      return op;
    }
  if (is_tf_op_name (part0) && is_tf_op_type (part1))
    {
      op.category = TF_OP_TENSORFLOW;
      op.name = part0;
      op.type = part1;
      return op;
    }
  type = part1.len == 0 ? derive_op_type (part0) : part1;
  if (is_jax_op_type (type))
    {
      const char *bracket = memchr (type.data, '[', type.len);

      op.category = TF_OP_JAX;
      op.name = part0;
      op.type = type;
      if (bracket != NULL)
        op.type.len = bracket - type.data;
      return op;
    }
  if (part1.len == 0)
    {
      op.category = TF_OP_TENSORFLOW;
      op.name = part0;
      op.type = type;
    }
  return op;
}

/* XLA's TfOpEventName(): what a framework-op event shows. */
static void
tf_op_display_name (const TfOp *op,
                    GString    *out)
{
  g_string_truncate (out, 0);
  if (op->category == TF_OP_UNKNOWN)
    {
      gsize len = op->name.len;

      while (len > 0 && g_ascii_isspace (op->name.data[len - 1]))
        len--;
      g_string_append_len (out, op->name.data, len);
    }
  else if (op->category == TF_OP_TF_DATA)
    {
      /* "Iterator::" and the last "::" part of the name. */
      Text last = op->name;

      for (gsize i = 0; i + 1 < op->name.len; i++)
        if (op->name.data[i] == ':' && op->name.data[i + 1] == ':')
          {
            last.data = op->name.data + i + 2;
            last.len = op->name.data + op->name.len - last.data;
          }
      g_string_append (out, "Iterator::");
      g_string_append_len (out, last.data, last.len);
    }
  else
    g_string_append_len (out, op->type.data, op->type.len);
}

/* ------------------------------------------------------------------------ */
/* Building a plane's derived lines */

typedef enum
{
  KIND_MODULE,
  KIND_HLO_OP,
  KIND_TF_OP,
  KIND_NAME_SCOPE,
  KIND_SOURCE,
  KIND_STEP,
  N_KINDS
} MetadataKind;

typedef struct
{
  PlanarTrace  *self;
  guint         p;
  PlanarPlane  *plane;
  /* The plane's table of derived sources. */
  PlanarSpillArray *sources;
  /* The derived events this plane may still add (its share of the trace's
   * budget, by its number of events, so that which plane gets what does
   * not depend on threads), and whether it ran out. */
  guint64       quota;
  gboolean      over_budget;
  /* New PlanarEventMetadata, installed at plane->metadata[first_metadata]
   * once the plane is done. */
  GArray       *metadata;
  guint         first_metadata;
  /* Per kind: interned name -> index + 1 in the plane's metadata. */
  GHashTable   *by_name[N_KINDS];
  GString      *scratch;
  GString      *scratch2;
  /* What an `hlo_op` (with its module) or a `tf_op` resolves to: a
   * CacheKey -> CacheValue, whose metadata lists live in @pool. Kernels
   * repeat the same few hundred ops, so most resolve with one lookup. */
  GHashTable   *hlo_cache;
  GHashTable   *tf_cache;
  GArray       *pool;
  /* The last module and step seen: kernels come in runs of one. */
  Text          last_module;
  gboolean      last_module_has_pid;
  guint64       last_module_pid;
  guint32       last_module_md;
  gboolean      has_last_step;
  gint64        last_step;
  guint32       last_step_md;
} PlaneContext;

typedef struct
{
  Text     a;
  Text     b;
  gboolean has_num;
  guint64  num;
} CacheKey;

typedef struct
{
  guint32 offset;
  guint32 n;
  guint32 md;
} CacheValue;

static guint
cache_key_hash (gconstpointer p)
{
  const CacheKey *k = p;
  guint32 h = 2166136261u;

  for (gsize i = 0; i < k->a.len; i++)
    h = (h ^ (guchar) k->a.data[i]) * 16777619u;
  for (gsize i = 0; i < k->b.len; i++)
    h = (h ^ (guchar) k->b.data[i]) * 16777619u;
  return h ^ (guint32) k->num ^ (guint32) (k->num >> 32) ^ (guint32) k->has_num;
}

static gboolean
text_equal (Text x,
            Text y)
{
  return x.len == y.len && (x.data == y.data || memcmp (x.data, y.data, x.len) == 0);
}

static gboolean
cache_key_equal (gconstpointer pa,
                 gconstpointer pb)
{
  const CacheKey *a = pa, *b = pb;

  return a->has_num == b->has_num && a->num == b->num &&
         text_equal (a->a, b->a) && text_equal (a->b, b->b);
}

static const char *
intern_len (PlanarTrace *self,
            const char  *s,
            gsize        len)
{
  const char *ret;

  g_mutex_lock (&self->strings_lock);
  ret = planar_string_table_intern_len (self->strings, s, len);
  g_mutex_unlock (&self->strings_lock);
  return ret;
}

static const char *
intern (PlanarTrace *self,
        const char  *s)
{
  return intern_len (self, s, strlen (s));
}

static void
plane_context_init (PlaneContext *ctx,
                    PlanarTrace  *self,
                    guint         p,
                    PlanarSpillArray *sources,
                    guint64       quota)
{
  memset (ctx, 0, sizeof *ctx);
  ctx->self = self;
  ctx->p = p;
  ctx->sources = sources;
  ctx->quota = quota;
  ctx->plane = &self->planes[p];
  ctx->metadata = g_array_new (FALSE, TRUE, sizeof (PlanarEventMetadata));
  ctx->first_metadata = ctx->plane->n_metadata;
  for (guint k = 0; k < N_KINDS; k++)
    ctx->by_name[k] = g_hash_table_new (g_str_hash, g_str_equal);
  ctx->scratch = g_string_new (NULL);
  ctx->scratch2 = g_string_new (NULL);
  ctx->hlo_cache = g_hash_table_new_full (cache_key_hash, cache_key_equal, g_free, g_free);
  ctx->tf_cache = g_hash_table_new_full (cache_key_hash, cache_key_equal, g_free, g_free);
  ctx->pool = g_array_new (FALSE, FALSE, sizeof (guint32));
}

static void
plane_context_clear (PlaneContext *ctx)
{
  /* Metadata not installed in the plane is freed here. */
  if (ctx->metadata != NULL)
    {
      for (guint i = 0; i < ctx->metadata->len; i++)
        g_free (g_array_index (ctx->metadata, PlanarEventMetadata, i).stats);
      g_array_unref (ctx->metadata);
    }
  for (guint k = 0; k < N_KINDS; k++)
    g_clear_pointer (&ctx->by_name[k], g_hash_table_unref);
  g_string_free (ctx->scratch, TRUE);
  g_string_free (ctx->scratch2, TRUE);
  g_hash_table_unref (ctx->hlo_cache);
  g_hash_table_unref (ctx->tf_cache);
  g_array_unref (ctx->pool);
}

static void
cache_insert (GHashTable       *cache,
              const CacheKey   *key,
              const CacheValue *value)
{
  g_hash_table_insert (cache, g_memdup2 (key, sizeof *key), g_memdup2 (value, sizeof *value));
}

/* Appends a new metadata entry named @name (interned). Returns its index
 * in the plane. */
static guint32
add_metadata (PlaneContext *ctx,
              const char   *name,
              const char   *display_name)
{
  PlanarEventMetadata md = { 0 };

  /* Negative ids never collide with the file's, which XProf hands out
   * from 1. */
  md.id = -1 - (gint64) ctx->metadata->len;
  md.name = name;
  md.display_name = display_name;
  g_array_append_val (ctx->metadata, md);
  return ctx->first_metadata + ctx->metadata->len - 1;
}

static PlanarEventMetadata *
get_metadata (PlaneContext *ctx,
              guint32       index)
{
  g_assert (index >= ctx->first_metadata);
  return &g_array_index (ctx->metadata, PlanarEventMetadata, index - ctx->first_metadata);
}

/* The metadata of @kind named @name, made on first use (then *@created is
 * set and the caller gives it its display name and stats). */
static guint32
find_metadata (PlaneContext *ctx,
               MetadataKind  kind,
               const char   *name,
               gsize         len,
               gboolean     *created)
{
  const char *interned;
  gpointer found;
  guint32 index;

  *created = FALSE;
  g_string_assign (ctx->scratch2, "");
  g_string_append_len (ctx->scratch2, name, len);
  found = g_hash_table_lookup (ctx->by_name[kind], ctx->scratch2->str);
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;

  interned = intern_len (ctx->self, name, len);
  index = add_metadata (ctx, interned, interned);
  g_hash_table_insert (ctx->by_name[kind], (gpointer) interned, GUINT_TO_POINTER (index + 1));
  *created = TRUE;
  return index;
}

static PlanarStat *
metadata_add_stat (PlaneContext        *ctx,
                   PlanarEventMetadata *md,
                   const char          *name,
                   PlanarStatKind       kind)
{
  PlanarStat *stat;

  md->stats = g_renew (PlanarStat, md->stats, md->n_stats + 1);
  stat = &md->stats[md->n_stats++];
  memset (stat, 0, sizeof *stat);
  stat->name = intern (ctx->self, name);
  /* Not from the file: no stat metadata id. */
  stat->metadata_id = -1;
  stat->kind = kind;
  stat->from_metadata = TRUE;
  return stat;
}

static void
metadata_add_text (PlaneContext        *ctx,
                   PlanarEventMetadata *md,
                   const char          *name,
                   const char          *value,
                   gsize                len)
{
  PlanarStat *stat = metadata_add_stat (ctx, md, name, PLANAR_STAT_STRING);

  stat->str.data = intern_len (ctx->self, value, len);
  stat->str.len = len;
}

static void
metadata_add_int (PlaneContext        *ctx,
                  PlanarEventMetadata *md,
                  const char          *name,
                  gint64               value)
{
  metadata_add_stat (ctx, md, name, PLANAR_STAT_INT64)->v.i64 = value;
}

static void
metadata_add_uint (PlaneContext        *ctx,
                   PlanarEventMetadata *md,
                   const char          *name,
                   guint64              value)
{
  metadata_add_stat (ctx, md, name, PLANAR_STAT_UINT64)->v.u64 = value;
}

static void
metadata_add_double (PlaneContext        *ctx,
                     PlanarEventMetadata *md,
                     const char          *name,
                     double               value)
{
  metadata_add_stat (ctx, md, name, PLANAR_STAT_DOUBLE)->v.f64 = value;
}

/* The group an event belongs to, if any. */
typedef struct
{
  gboolean has;
  gint64   id;
} Group;

/* An optional scope_range_id, which XProf also compares before merging. */
typedef struct
{
  gboolean has;
  gint64   id;
} Scope;

typedef struct
{
  /* Index in the builder's events; -1 when the level has no open event. */
  gssize  event;
  guint32 metadata;
  Group   group;
  Scope   scope;
} LevelState;

typedef struct _LineBuilder LineBuilder;

/* One derived line being built: XProf's DerivedXLineBuilder. */
struct _LineBuilder
{
  gint64       id;
  gint64       display_id;
  const char  *name;
  /* The stream it is derived from, or G_MAXUINT. */
  guint        source_track;
  /* Off GPU planes, events without a group merge only across small gaps. */
  gboolean     gap_check;
  PlanarSpillArray *events;
  GArray      *levels;
  /* Lines whose open events end when this line's outermost one does. */
  LineBuilder *dependents[2];
  guint        n_dependents;
};

static void
line_builder_init (LineBuilder *b,
                   PlanarTrace *self,
                   gint64       id,
                   const char  *name,
                   guint        source_track,
                   gboolean     gap_check)
{
  memset (b, 0, sizeof *b);
  b->id = id;
  b->display_id = id;
  b->name = name;
  b->source_track = source_track;
  b->gap_check = gap_check;
  b->events = planar_spill_array_new (sizeof (PlanarEvent), self->spill);
  b->levels = g_array_new (FALSE, FALSE, sizeof (LevelState));
}

static void
line_builder_clear (LineBuilder *b)
{
  g_clear_pointer (&b->events, planar_spill_array_free);
  g_clear_pointer (&b->levels, g_array_unref);
}

static void
line_builder_add_dependent (LineBuilder *b,
                            LineBuilder *dependent)
{
  g_assert (b->n_dependents < G_N_ELEMENTS (b->dependents));
  b->dependents[b->n_dependents++] = dependent;
}

/* Closes the open events at @level and deeper; closing the outermost one
 * closes the dependents' too (a new module starts new ops). */
static void
line_builder_reset (LineBuilder *b,
                    guint        level)
{
  for (guint i = level; i < b->levels->len; i++)
    g_array_index (b->levels, LevelState, i).event = -1;
  if (level == 0)
    for (guint i = 0; i < b->n_dependents; i++)
      line_builder_reset (b->dependents[i], 0);
}

/* Appends a derived event to @events, and its entry in the plane's table
 * of sources. Returns its index, or -1 when the trace's memory budget is
 * spent: a file can ask for many derived events per byte (each kernel
 * opening a hundred nested ops), and is then shown without them rather
 * than exhausting memory. */
static gssize
add_derived_event (PlaneContext         *ctx,
                   PlanarSpillArray     *events,
                   gint64                start_ps,
                   gint64                end_ps,
                   guint32               metadata,
                   Group                 group,
                   const PlanarEventRef *ref)
{
  PlanarEvent ev = { 0 };
  DerivedSource src = { 0 };

  if (ctx->quota == 0)
    {
      ctx->over_budget = TRUE;
      return -1;
    }
  ctx->quota--;
  src.ref = *ref;
  src.has_group_id = group.has;
  src.group_id = group.id;
  ev.start_ps = start_ps;
  ev.duration_ps = end_ps - start_ps;
  ev.metadata = metadata;
  ev.flags = PLANAR_EVENT_DERIVED;
  ev.source = (guint64) ctx->p << SOURCE_PLANE_SHIFT | ctx->sources->len;
  planar_spill_array_append (ctx->sources, &src, 1);
  planar_spill_array_append (events, &ev, 1);
  return (gssize) events->len - 1;
}

/* XProf's merge rule: a kernel extends the open event of its level when it
 * has the same metadata and group (and a compatible scope range); on
 * planes other than GPUs an event without a group must also start within
 * twice the open event's duration of its end. Otherwise the level and
 * everything below it start over. */
static void
line_builder_expand_or_add (PlaneContext         *ctx,
                            LineBuilder          *b,
                            guint                 level,
                            guint32               metadata,
                            gint64                start_ps,
                            gint64                end_ps,
                            Group                 group,
                            Scope                 scope,
                            const PlanarEventRef *ref)
{
  LevelState *ls;

  while (b->levels->len <= level)
    {
      LevelState empty = { -1, 0, { FALSE, 0 }, { FALSE, 0 } };

      g_array_append_val (b->levels, empty);
    }
  ls = &g_array_index (b->levels, LevelState, level);
  if (ls->event >= 0 && ls->metadata == metadata &&
      ls->group.has == group.has && (!group.has || ls->group.id == group.id) &&
      (!scope.has || !ls->scope.has || ls->scope.id == scope.id))
    {
      PlanarEvent *ev = &planar_spill_array_index (b->events, PlanarEvent, ls->event);
      gint64 ev_end = ev->start_ps + ev->duration_ps;
      gint64 reach;

      if (!b->gap_check || group.has ||
          __builtin_add_overflow (ev_end, 2 * ev->duration_ps, &reach) || reach >= start_ps)
        {
          if (end_ps > ev_end)
            ev->duration_ps = end_ps - ev->start_ps;
          return;
        }
    }

  line_builder_reset (b, level);
  ls = &g_array_index (b->levels, LevelState, level);
  ls->event = add_derived_event (ctx, b->events, start_ps, end_ps, metadata, group, ref);
  ls->metadata = metadata;
  ls->group = group;
  ls->scope = scope;
}

/* One event per level, then the levels below the last are closed. */
static void
line_builder_expand_or_add_levels (PlaneContext         *ctx,
                                   LineBuilder          *b,
                                   const guint32        *metadata,
                                   guint                 n_levels,
                                   gint64                start_ps,
                                   gint64                end_ps,
                                   Group                 group,
                                   const Scope          *scopes,
                                   const PlanarEventRef *ref)
{
  static const Scope no_scope = { FALSE, 0 };

  if (n_levels == 0)
    return;
  for (guint level = 0; level < n_levels; level++)
    line_builder_expand_or_add (ctx, b, level, metadata[level], start_ps, end_ps, group,
                                scopes != NULL ? scopes[level] : no_scope, ref);
  line_builder_reset (b, n_levels);
}

/* ------------------------------------------------------------------------ */
/* The whole pass */

typedef struct
{
  gint64         start_ps;
  gint64         end_ps;
  PlanarEventRef first;
  guint64        count;
  gint64         max_ps;
  /* An integer, so that adding up per-thread partial sums in any order
   * gives the same average. */
  gint64         sum_ps;
} LaunchGroup;

typedef struct
{
  gint64         start_ps;
  PlanarEventRef ref;
  /* Interned. */
  const char    *name;
} GroupRoot;

/* What a pass over one plane works with. The shared parts are read-only
 * while planes derive in parallel; each plane's pass has its own copy of
 * the rest. */
typedef struct
{
  PlanarTrace       *self;
  GCancellable      *cancellable;
  StatNames          names;
  guint64            host_id;
  /* The `/device:GPU:` planes in file order: XProf's device index. */
  GArray            *gpu_planes;
  /* group_id -> GroupRoot of the group's earliest root event. */
  GHashTable        *group_roots;
  /* Per GPU (by index in @gpu_planes): group_id -> LaunchGroup. */
  GHashTable       **launches;
  /* scope_range_id -> parent, from `/host:__ScopeRangeCallStack__`. */
  GHashTable        *scope_parents;
  /* The bytes derived events may take, shared out among the planes by
   * their number of events. */
  gint64             budget;
  guint64            budget_weight;

  /* Per pass: the plane, its table of derived sources, the reused stats
   * array, the flow ends found and the events seen. */
  guint              p;
  PlanarSpillArray  *sources;
  GArray            *stats;
  PlanarFlowBuilder *flows;
  guint64            n_seen;
} DeriveContext;

/* Plane @p's share of the budget, in derived events. */
static guint64
plane_quota (const DeriveContext *dc,
             guint                p)
{
  double share = (double) (dc->self->planes[p].n_events + 1) / (double) MAX (dc->budget_weight, 1);

  return (guint64) ((double) dc->budget * MIN (share, 1.0)) / DERIVED_EVENT_COST;
}

static gboolean
check_cancelled (DeriveContext  *dc,
                 GError        **error)
{
  if (++dc->n_seen % CHECK_EVERY != 0)
    return FALSE;
  return g_cancellable_set_error_if_cancelled (dc->cancellable, error);
}

/* Decodes the stats of plane @p's @event into @facts. Stats that cannot be
 * decoded (a damaged event) count as none: deriving never fails a load that
 * would succeed without it. */
static void
event_facts (DeriveContext     *dc,
             const PlanarPlane *plane,
             const PlanarEvent *event,
             EventFacts        *facts)
{
  g_array_set_size (dc->stats, 0);
  if (planar_trace_get_event_stats (dc->self, plane, event, dc->stats, NULL) == 0)
    g_array_set_size (dc->stats, 0);
  read_facts (&dc->names, dc->stats, facts);
}

static gboolean
plane_has_stat (PlanarTrace *self,
                guint        p,
                const char  *name)
{
  const PlanarPlanePrivate *ppriv = &self->planes_priv[p];

  if (name == NULL)
    return FALSE;
  for (guint i = 0; i < ppriv->n_stat_metadata; i++)
    if (ppriv->stat_metadata[i].name == name)
      return TRUE;
  return FALSE;
}

static guint64
host_id_of (PlanarTrace *self)
{
  const char *host = self->hostnames != NULL ? self->hostnames[0] : NULL;
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);

  /* XProf uses a 32-bit fingerprint of the first hostname, 0 without one;
   * any stable hash keeps flow ids of different hosts apart. */
  if (host == NULL)
    return 0;
  for (const char *c = host; *c != '\0'; c++)
    {
      h ^= (guchar) *c;
      h *= G_GUINT64_CONSTANT (0x100000001b3);
    }
  return (h ^ (h >> 32)) & G_MAXUINT32;
}

/* The flow ends an event carries (§2.7). */
static void
collect_flow_ends (DeriveContext        *dc,
                   const EventFacts     *facts,
                   gboolean              is_host,
                   gboolean              is_gpu,
                   const PlanarEventRef *ref,
                   gint64                start_ps)
{
  gboolean explicit_launch = FALSE;

  if (facts->has_flow)
    {
      guint direction = (guint) (facts->flow & 3);
      guint64 id = (facts->flow >> 2) & ((G_GUINT64_CONSTANT (1) << 56) - 1);
      guint category = (guint) (facts->flow >> 58);

      if (category >= PLANAR_FLOW_N_KNOWN_CATEGORIES)
        category = PLANAR_FLOW_CATEGORY_GENERIC;
      if (direction != 0)
        _planar_flow_builder_add (dc->flows, category, id, (PlanarFlowDirection) direction, ref,
                                  start_ps);
      explicit_launch = category == PLANAR_FLOW_CATEGORY_GPU_LAUNCH;
    }

  /* A file XProf already processed carries the launch flows it made; they
   * are not made twice. */
  if (facts->has_correlation_id && !explicit_launch && (is_host || is_gpu))
    _planar_flow_builder_add_launch (dc->flows, facts->correlation_id, is_host, ref, start_ps);

  if (facts->has_producer_type && facts->has_producer_id)
    {
      guint category = facts->producer_type < PLANAR_FLOW_N_KNOWN_CATEGORIES
        ? (guint) facts->producer_type : PLANAR_FLOW_CATEGORY_GENERIC;

      _planar_flow_builder_add (dc->flows, category,
                                _planar_flow_make_id (dc->host_id, facts->producer_id,
                                                      facts->producer_type),
                                PLANAR_FLOW_DIRECTION_OUT, ref, start_ps);
    }
  if (facts->has_consumer_type && facts->has_consumer_id)
    {
      guint category = facts->consumer_type < PLANAR_FLOW_N_KNOWN_CATEGORIES
        ? (guint) facts->consumer_type : PLANAR_FLOW_CATEGORY_GENERIC;

      _planar_flow_builder_add (dc->flows, category,
                                _planar_flow_make_id (dc->host_id, facts->consumer_id,
                                                      facts->consumer_type),
                                PLANAR_FLOW_DIRECTION_IN, ref, start_ps);
    }
}

static gboolean
plane_wants_flows (DeriveContext *dc,
                   guint          p)
{
  return plane_has_stat (dc->self, p, dc->names.correlation_id) ||
         plane_has_stat (dc->self, p, dc->names.flow) ||
         plane_has_stat (dc->self, p, dc->names.producer_id) ||
         plane_has_stat (dc->self, p, dc->names.consumer_id);
}

/* ------------------------------------------------------------------------ */
/* Visiting a plane's events in time order */

typedef struct
{
  const PlanarTrack *track;
  guint              t;
  gsize              next;
} Cursor;

static gboolean
cursor_before (const Cursor *a,
               const Cursor *b)
{
  const PlanarEvent *x = &a->track->events[a->next];
  const PlanarEvent *y = &b->track->events[b->next];

  if (x->start_ps != y->start_ps)
    return x->start_ps < y->start_ps;
  if (x->duration_ps != y->duration_ps)
    return x->duration_ps > y->duration_ps;
  if (a->t != b->t)
    return a->t < b->t;
  return a->next < b->next;
}

static void
heap_sift_down (Cursor *heap,
                gsize   n,
                gsize   i)
{
  for (;;)
    {
      gsize l = 2 * i + 1, r = l + 1, m = i;
      Cursor tmp;

      if (l < n && cursor_before (&heap[l], &heap[m]))
        m = l;
      if (r < n && cursor_before (&heap[r], &heap[m]))
        m = r;
      if (m == i)
        return;
      tmp = heap[i];
      heap[i] = heap[m];
      heap[m] = tmp;
      i = m;
    }
}

typedef gboolean (*EventVisitor) (DeriveContext        *dc,
                                  const PlanarEventRef *ref,
                                  const PlanarEvent    *event,
                                  gpointer              user_data,
                                  GError              **error);

/* Calls @visit for the events of the tracks @use marks, merged in time
 * order (start, then longer first, then track and index: XProf's
 * GetSortedEvents with a deterministic tie-break). */
static gboolean
visit_sorted (DeriveContext   *dc,
              guint            p,
              const gboolean  *use,
              guint            n_tracks,
              EventVisitor     visit,
              gpointer         user_data,
              GError         **error)
{
  const PlanarPlane *plane = &dc->self->planes[p];
  g_autofree Cursor *heap = g_new (Cursor, MAX (n_tracks, 1));
  gsize n = 0;

  for (guint t = 0; t < n_tracks; t++)
    if (use[t] && plane->tracks[t].n_events > 0)
      {
        heap[n].track = &plane->tracks[t];
        heap[n].t = t;
        heap[n].next = 0;
        n++;
      }
  for (gsize i = n; i-- > 0;)
    heap_sift_down (heap, n, i);

  while (n > 0)
    {
      Cursor *top = &heap[0];
      PlanarEventRef ref = { p, 0, top->t, (guint32) top->next };

      if (check_cancelled (dc, error))
        return FALSE;
      if (!visit (dc, &ref, &top->track->events[top->next], user_data, error))
        return FALSE;
      if (++top->next == top->track->n_events)
        heap[0] = heap[--n];
      heap_sift_down (heap, n, 0);
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Host planes: launches, group names, flows */

static gboolean
is_implicit_root (const char *name)
{
  return strcmp (name, "FunctionRun") == 0 || strcmp (name, "SessionRun") == 0 ||
         strcmp (name, "RunGraph") == 0 || strcmp (name, "ExecutorState::Process") == 0;
}

/* What a host plane is read for: whether any of its events can carry a
 * flow end, a launch or a step group root. */
static gboolean
host_plane_wanted (DeriveContext *dc,
                   guint          p)
{
  return plane_wants_flows (dc, p) || plane_has_stat (dc->self, p, dc->names.group_id);
}

/* Merges the launch figures of @src into @dst (per GPU, group_id ->
 * LaunchGroup); @src comes from a later track, so it wins no tie. */
static void
merge_launches (GHashTable **dst,
                GHashTable **src,
                guint        n_gpus)
{
  for (guint d = 0; d < n_gpus; d++)
    {
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, src[d]);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          LaunchGroup *from = value, *to = g_hash_table_lookup (dst[d], key);

          if (to == NULL)
            {
              g_hash_table_insert (dst[d], g_memdup2 (key, sizeof (gint64)),
                                   g_memdup2 (from, sizeof *from));
              continue;
            }
          if (from->start_ps < to->start_ps)
            {
              to->start_ps = from->start_ps;
              to->first = from->first;
            }
          to->end_ps = MAX (to->end_ps, from->end_ps);
          to->count += from->count;
          to->max_ps = MAX (to->max_ps, from->max_ps);
          to->sum_ps += from->sum_ps;
        }
    }
}

/* The same for group roots: the earliest names the group. */
static void
merge_group_roots (GHashTable *dst,
                   GHashTable *src)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, src);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GroupRoot *from = value, *to = g_hash_table_lookup (dst, key);

      if (to == NULL)
        g_hash_table_insert (dst, g_memdup2 (key, sizeof (gint64)), g_memdup2 (from, sizeof *from));
      else if (from->start_ps < to->start_ps)
        *to = *from;
    }
}

static void
add_launch (DeriveContext        *dc,
            const EventFacts     *facts,
            const PlanarEvent    *ev,
            const PlanarEventRef *ref)
{
  GHashTable *groups = dc->launches[facts->device_id];
  LaunchGroup *lg = g_hash_table_lookup (groups, &facts->group_id);

  if (lg == NULL)
    {
      lg = g_new0 (LaunchGroup, 1);
      lg->start_ps = ev->start_ps;
      lg->end_ps = ev->start_ps + ev->duration_ps;
      lg->first = *ref;
      g_hash_table_insert (groups, g_memdup2 (&facts->group_id, sizeof (gint64)), lg);
    }
  if (ev->start_ps < lg->start_ps)
    {
      lg->start_ps = ev->start_ps;
      lg->first = *ref;
    }
  lg->end_ps = MAX (lg->end_ps, ev->start_ps + ev->duration_ps);
  lg->count++;
  lg->max_ps = MAX (lg->max_ps, ev->duration_ps);
  lg->sum_ps += ev->duration_ps;
}

static void
add_group_root (DeriveContext        *dc,
                const EventFacts     *facts,
                const char           *name,
                const PlanarEvent    *ev,
                const PlanarEventRef *ref)
{
  GroupRoot *root = g_hash_table_lookup (dc->group_roots, &facts->group_id);
  g_autoptr(GString) gname = NULL;

  if (root != NULL && ev->start_ps >= root->start_ps)
    return;
  if (root == NULL)
    {
      root = g_new0 (GroupRoot, 1);
      g_hash_table_insert (dc->group_roots, g_memdup2 (&facts->group_id, sizeof (gint64)), root);
    }
  /* XLA's group name: the graph type or root name, then the iteration,
   * step or group number. */
  gname = g_string_new (NULL);
  if (facts->graph_type.len > 0)
    g_string_append_len (gname, facts->graph_type.data, facts->graph_type.len);
  else
    g_string_append (gname, name);
  g_string_append_printf (gname, " %" G_GINT64_FORMAT,
                          facts->has_iter_num ? facts->iter_num
                          : facts->has_step_num ? facts->step_num : facts->group_id);
  root->start_ps = ev->start_ps;
  root->ref = *ref;
  root->name = intern (dc->self, gname->str);
}

/* Reads one track of the host plane: flow ends, launches per GPU and step
 * group, and the root events that name step groups, into @dc's own tables
 * (merged in track order afterwards). */
static gboolean
scan_host_track (DeriveContext  *dc,
                 guint           p,
                 guint           t,
                 GError        **error)
{
  const PlanarPlane *plane = &dc->self->planes[p];
  const PlanarTrack *track = &plane->tracks[t];
  EventFacts facts;

  for (gsize i = 0; i < track->n_events; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      const char *name = plane->metadata[ev->metadata].name;
      PlanarEventRef ref = { p, 0, t, (guint32) i };

      if (check_cancelled (dc, error))
        return FALSE;
      event_facts (dc, plane, ev, &facts);
      collect_flow_ends (dc, &facts, TRUE, FALSE, &ref, ev->start_ps);

      /* XProf leaves out the driver calls (cuEventRecord, ...) that carry
       * the same stats as launches. */
      if (facts.has_device_id && facts.has_correlation_id && facts.has_group_id &&
          !g_str_has_prefix (name, "cu") && facts.device_id < dc->gpu_planes->len)
        add_launch (dc, &facts, ev, &ref);
      if (facts.has_group_id && (facts.is_root || is_implicit_root (name)))
        add_group_root (dc, &facts, name, ev, &ref);
    }
  return TRUE;
}

/* The name of group @group_id for step names, if a root event named it. */
static const char *
group_name (DeriveContext *dc,
            gint64         group_id)
{
  GroupRoot *root = g_hash_table_lookup (dc->group_roots, &group_id);

  return root != NULL ? root->name : NULL;
}

/* ------------------------------------------------------------------------ */
/* Publishing derived tracks */

static gint64
plane_start_ns (const PlanarPlane *plane,
                guint              n_file_lines)
{
  gint64 start = 0;

  /* XLA's GetStartTimestampNs(): the earliest line timestamp. */
  for (guint l = 0; l < n_file_lines; l++)
    if (l == 0 || plane->lines[l].timestamp_ns < start)
      start = plane->lines[l].timestamp_ns;
  return start;
}

/* Moves plane @ctx's new metadata into the plane. The file's tracks are
 * published already, and their readers may hold the metadata array: it is
 * copied into a bigger one, published in one store, and the old one kept
 * until the trace goes. */
static void
install_metadata (PlaneContext *ctx)
{
  PlanarTrace *self = ctx->self;
  PlanarPlane *plane = ctx->plane;
  guint n = ctx->metadata->len;
  PlanarEventMetadata *grown;

  if (n == 0)
    return;
  grown = g_new (PlanarEventMetadata, plane->n_metadata + n);
  memcpy (grown, plane->metadata, plane->n_metadata * sizeof (PlanarEventMetadata));
  memcpy (grown + plane->n_metadata, ctx->metadata->data, n * sizeof (PlanarEventMetadata));
  g_mutex_lock (&self->strings_lock);
  if (self->retired_metadata == NULL)
    self->retired_metadata = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->retired_metadata, plane->metadata);
  g_mutex_unlock (&self->strings_lock);
  g_atomic_pointer_set (&plane->metadata, grown);
  __atomic_store_n (&plane->n_metadata, plane->n_metadata + n, __ATOMIC_RELEASE);
  g_array_set_size (ctx->metadata, 0);
}

/* Appends @b's events as a new track and line of the plane, in the room the
 * loader left (never moving the arrays readers may hold), and publishes it. */
static gboolean
publish_line (PlanarTrace  *self,
              guint         p,
              LineBuilder  *b,
              gint64        timestamp_ns,
              GError      **error)
{
  PlanarPlane *plane = &self->planes[p];
  guint t = plane->n_tracks, l = plane->n_lines;
  PlanarTrack *track = &plane->tracks[t];
  PlanarLine *line = &plane->lines[l];

  g_assert (t < self->planes_priv[p].tracks_capacity && l < self->planes_priv[p].lines_capacity);

  memset (track, 0, sizeof *track);
  track->id = b->id;
  track->display_id = b->display_id;
  track->name = track->display_name = b->name;
  /* Each derived line gets a row of its own after the file's rows; the
   * viewer places it after its stream through source_track. */
  track->row = plane->n_rows;
  track->derived = TRUE;
  track->source_track = b->source_track;
  track->n_events = b->events->len;
  track->events = planar_spill_array_steal (b->events);
  if (!_planar_trace_finish_track (self, track, error))
    {
      _planar_track_clear_arrays (track);
      memset (track, 0, sizeof *track);
      return FALSE;
    }

  memset (line, 0, sizeof *line);
  line->id = track->id;
  line->display_id = track->display_id;
  line->name = line->display_name = track->name;
  line->timestamp_ns = timestamp_ns;
  line->n_events = track->n_events;
  line->track = t;
  line->derived = TRUE;

  __atomic_store_n (&plane->n_lines, l + 1, __ATOMIC_RELEASE);
  g_atomic_int_set (&self->track_ready[p][t], 1);
  plane->n_rows++;
  __atomic_store_n (&plane->n_tracks, t + 1, __ATOMIC_RELEASE);
  return TRUE;
}

/* Publishes the non-empty @builders in order while there is room. */
static gboolean
publish_lines (DeriveContext  *dc,
               PlaneContext   *ctx,
               LineBuilder   **builders,
               guint           n_builders,
               gint64         *timestamps_ns,
               GError        **error)
{
  PlanarTrace *self = dc->self;
  PlanarPlane *plane = ctx->plane;
  const PlanarPlanePrivate *ppriv = &self->planes_priv[ctx->p];
  guint room = MIN (ppriv->tracks_capacity - plane->n_tracks,
                    ppriv->lines_capacity - plane->n_lines);
  guint published = 0;

  room = MIN (room, max_tracks_per_plane);
  /* Lines cut short by the memory budget would mislead: none is shown. */
  if (ctx->over_budget)
    room = 0;
  install_metadata (ctx);
  for (guint i = 0; i < n_builders; i++)
    {
      if (builders[i]->events->len == 0)
        continue;
      /* No room left: the plane gets no more derived lines, and the trace
       * says how many it lost. */
      if (published == room)
        {
          g_atomic_int_inc (&self->n_dropped_derived_lines);
          continue;
        }
      if (!publish_line (self, ctx->p, builders[i], timestamps_ns[i], error))
        return FALSE;
      published++;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* GPU planes */

/* What a plane already has, so that lines XProf (or the profiler) wrote
 * into the file are not derived a second time: the TensorFlow profiler
 * saves `TensorFlow Ops`, `TensorFlow Name Scope` and `Steps`, TPU planes
 * come with native `XLA Modules`, `XLA Ops` and `Steps`. */
typedef struct
{
  gboolean steps;
  gboolean launch_stats;
  gboolean framework;
  gboolean xla;
  gboolean source;
  gboolean device_derived;
} NativeLines;

static gboolean
name_is (const char *name,
         const char *base)
{
  gsize n = strlen (base);

  /* "XLA Ops" and XProf's per-stream "XLA Ops - from #7". */
  return strncmp (name, base, n) == 0 &&
         (name[n] == '\0' || g_str_has_prefix (name + n, " - from #"));
}

static void
find_native_lines (const PlanarPlane *plane,
                   guint              n_file_tracks,
                   NativeLines       *native)
{
  memset (native, 0, sizeof *native);
  for (guint t = 0; t < n_file_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];
      gint64 id = track->id;

      if (id == PLANAR_LINE_ID_STEPS || name_is (track->name, "Steps"))
        native->steps = TRUE;
      if (id == PLANAR_LINE_ID_LAUNCH_STATS || name_is (track->name, "Launch Stats"))
        native->launch_stats = TRUE;
      if (id == PLANAR_LINE_ID_FRAMEWORK_OPS || id == PLANAR_LINE_ID_FRAMEWORK_NAME_SCOPE ||
          name_is (track->name, "Framework Ops") || name_is (track->name, "Framework Name Scope") ||
          name_is (track->name, "TensorFlow Ops") || name_is (track->name, "TensorFlow Name Scope"))
        native->framework = TRUE;
      if (id == PLANAR_LINE_ID_XLA_OPS || id == PLANAR_LINE_ID_XLA_MODULES ||
          name_is (track->name, "XLA Ops") || name_is (track->name, "XLA Modules"))
        native->xla = TRUE;
      if (id == PLANAR_LINE_ID_SOURCE_CODE || name_is (track->name, "Source code"))
        native->source = TRUE;
      if (id >= PLANAR_LINE_ID_DEVICE_DERIVED_MIN && id <= PLANAR_LINE_ID_DEVICE_DERIVED_MAX)
        native->device_derived = TRUE;
    }
}

/* The lines derived from one stream. */
typedef struct
{
  LineBuilder name_scope;
  LineBuilder framework_ops;
  LineBuilder modules;
  LineBuilder xla_ops;
} StreamLines;

/* A GPU plane's pass: read while the host is read too, finished once the
 * host's launches and step names are known. */
typedef struct
{
  PlaneContext  ctx;
  guint         device;
  NativeLines   native;
  gint64        start_ns;
  guint         n_file_tracks;
  /* Which file tracks to read: those without a derived id. */
  gboolean     *use;
  gboolean      any_use;
  gboolean      annotations;
  gboolean      steps_wanted;
  gboolean      flows_wanted;
  gboolean      propagate_groups;
  Group         last_group;
  /* Per file track: its position in XProf's stream order if its lines are
   * derived, else -1. */
  gint         *slot;
  StreamLines  *streams;
  guint         n_streams;
  LineBuilder   steps;
  LineBuilder   launch_stats;
  /* (metadata, group_id) of each Steps metadata, named once the host is
   * read. */
  GArray       *step_groups;
  GArray       *level_scopes;
  GArray       *scope_chain;
} GpuPass;

typedef struct
{
  guint32 metadata;
  gint64  group_id;
} StepGroup;

/* The name-scope metadata (in ctx->pool at value->offset) and the op
 * metadata of framework op @full (XProf's ProcessTfOpEvent). */
static const CacheValue *
resolve_framework_op (PlaneContext *ctx,
                      Text          full)
{
  CacheKey key = { full, { "", 0 }, FALSE, 0 };
  CacheValue value = { 0 };
  const CacheValue *found = g_hash_table_lookup (ctx->tf_cache, &key);
  TfOp op;
  gboolean created;

  if (found != NULL)
    return found;

  op = parse_tf_op (full);
  value.offset = ctx->pool->len;
  /* Every "/"-separated part of a TensorFlow or JAX op name but the last is
   * a name scope, one level each; other ops have none. */
  if (op.category == TF_OP_TENSORFLOW || op.category == TF_OP_JAX)
    {
      const char *part = op.name.data;
      const char *end = op.name.data + op.name.len;

      for (const char *c = part; c < end && value.n < MAX_LEVELS; c++)
        if (*c == '/')
          {
            if (c > part)
              {
                guint32 scope = find_metadata (ctx, KIND_NAME_SCOPE, part, c - part, &created);

                g_array_append_val (ctx->pool, scope);
                value.n++;
              }
            part = c + 1;
          }
    }

  value.md = find_metadata (ctx, KIND_TF_OP, full.data, full.len, &created);
  if (created)
    {
      PlanarEventMetadata *m = get_metadata (ctx, value.md);

      /* The op type as the display name, so ops of one type share a color. */
      tf_op_display_name (&op, ctx->scratch);
      m->display_name = intern_len (ctx->self, ctx->scratch->str, ctx->scratch->len);
      metadata_add_text (ctx, m, "tf_op", full.data, full.len);
    }
  cache_insert (ctx->tf_cache, &key, &value);
  return g_hash_table_lookup (ctx->tf_cache, &key);
}

/* Feeds a framework op (`tf_op`) to the name-scope and op lines. */
static void
add_framework_op (PlaneContext         *ctx,
                  LineBuilder          *name_scope,
                  LineBuilder          *framework_ops,
                  Text                  full,
                  gint64                start_ps,
                  gint64                end_ps,
                  Group                 group,
                  const PlanarEventRef *ref)
{
  static const Scope no_scope = { FALSE, 0 };
  const CacheValue *value = resolve_framework_op (ctx, full);

  /* An op without name scopes leaves the scope line as it is. */
  line_builder_expand_or_add_levels (ctx, name_scope,
                                     &g_array_index (ctx->pool, guint32, value->offset),
                                     value->n, start_ps, end_ps, group, NULL, ref);
  line_builder_expand_or_add (ctx, framework_ops, 0, value->md, start_ps, end_ps, group, no_scope,
                              ref);
}

/* The XLA Modules metadata of a kernel's module. */
static guint32
resolve_module (PlaneContext     *ctx,
                const EventFacts *facts)
{
  gboolean created;
  guint32 md;

  if (ctx->last_module.data != NULL && text_equal (ctx->last_module, facts->hlo_module) &&
      ctx->last_module_has_pid == facts->has_program_id &&
      (!facts->has_program_id || ctx->last_module_pid == facts->program_id))
    return ctx->last_module_md;

  g_string_truncate (ctx->scratch, 0);
  g_string_append_len (ctx->scratch, facts->hlo_module.data, facts->hlo_module.len);
  if (facts->has_program_id)
    g_string_append_printf (ctx->scratch, "(%" G_GUINT64_FORMAT ")", facts->program_id);
  md = find_metadata (ctx, KIND_MODULE, ctx->scratch->str, ctx->scratch->len, &created);
  if (created)
    {
      PlanarEventMetadata *m = get_metadata (ctx, md);

      metadata_add_text (ctx, m, "hlo_module", facts->hlo_module.data, facts->hlo_module.len);
      if (facts->has_program_id)
        metadata_add_uint (ctx, m, "program_id", facts->program_id);
    }
  ctx->last_module = facts->hlo_module;
  ctx->last_module_has_pid = facts->has_program_id;
  ctx->last_module_pid = facts->program_id;
  ctx->last_module_md = md;
  return md;
}

/* The XLA Ops metadata of each "::"-separated level of a kernel's hlo_op
 * (in ctx->pool at value->offset). */
static const CacheValue *
resolve_hlo_op (PlaneContext     *ctx,
                const EventFacts *facts)
{
  CacheKey key = { facts->hlo_op, { "", 0 }, facts->has_program_id, facts->program_id };
  CacheValue value = { 0 };
  const CacheValue *found;
  const char *part = facts->hlo_op.data;
  const char *end = facts->hlo_op.data + facts->hlo_op.len;
  gsize prefix_len;

  /* Without a program id the module tells ops of different modules apart. */
  if (!facts->has_program_id)
    key.b = facts->hlo_module;
  found = g_hash_table_lookup (ctx->hlo_cache, &key);
  if (found != NULL)
    return found;

  /* The module's id first, so that ops of the same name in different
   * modules stay apart. */
  g_string_truncate (ctx->scratch, 0);
  if (facts->has_program_id)
    g_string_append_printf (ctx->scratch, "%" G_GUINT64_FORMAT "/", facts->program_id);
  else
    {
      g_string_append_len (ctx->scratch, facts->hlo_module.data, facts->hlo_module.len);
      g_string_append_c (ctx->scratch, '/');
    }
  prefix_len = ctx->scratch->len;

  value.offset = ctx->pool->len;
  while (part <= end && value.n < MAX_LEVELS)
    {
      const char *sep = part;

      while (sep + 1 < end && !(sep[0] == ':' && sep[1] == ':'))
        sep++;
      if (sep + 1 >= end)
        sep = end;
      /* Empty parts ("a::::b") are not levels. */
      if (sep > part)
        {
          gboolean created;
          guint32 md;

          g_string_truncate (ctx->scratch, prefix_len);
          g_string_append_len (ctx->scratch, part, sep - part);
          md = find_metadata (ctx, KIND_HLO_OP, ctx->scratch->str, ctx->scratch->len, &created);
          if (created)
            {
              PlanarEventMetadata *m = get_metadata (ctx, md);

              m->display_name = intern_len (ctx->self, part, sep - part);
              metadata_add_text (ctx, m, "hlo_op", part, sep - part);
              if (facts->hlo_module.len > 0)
                metadata_add_text (ctx, m, "hlo_module", facts->hlo_module.data,
                                   facts->hlo_module.len);
              if (facts->has_program_id)
                metadata_add_uint (ctx, m, "program_id", facts->program_id);
            }
          g_array_append_val (ctx->pool, md);
          value.n++;
        }
      part = sep + 2;
    }
  cache_insert (ctx->hlo_cache, &key, &value);
  return g_hash_table_lookup (ctx->hlo_cache, &key);
}

/* XLA Modules and XLA Ops of one kernel (XProf's
 * DeriveEventsFromAnnotationsForLines). */
static void
add_kernel (DeriveContext        *dc,
            GpuPass              *gp,
            StreamLines          *sl,
            const EventFacts     *facts,
            const PlanarEventRef *ref,
            gint64                start_ps,
            gint64                end_ps,
            Group                 group)
{
  PlaneContext *ctx = &gp->ctx;
  gboolean is_xla_op = FALSE;
  Scope module_scope = { FALSE, 0 };

  /* The kernel's scope range and its ancestors, innermost first. */
  g_array_set_size (gp->scope_chain, 0);
  if (facts->has_scope_range_id && (facts->hlo_module.len > 0 || facts->hlo_op.len > 0))
    {
      gint64 id = facts->scope_range_id;

      g_array_append_val (gp->scope_chain, id);
      while (gp->scope_chain->len < MAX_LEVELS)
        {
          gpointer parent;
          gboolean cycle = FALSE;

          if (dc->scope_parents == NULL ||
              !g_hash_table_lookup_extended (dc->scope_parents, &id, NULL, &parent))
            break;
          id = *(gint64 *) parent;
          for (guint i = 0; i < gp->scope_chain->len; i++)
            cycle = cycle || g_array_index (gp->scope_chain, gint64, i) == id;
          if (cycle)
            break;
          g_array_append_val (gp->scope_chain, id);
        }
      module_scope.has = TRUE;
      module_scope.id = g_array_index (gp->scope_chain, gint64, gp->scope_chain->len - 1);
    }

  if (facts->hlo_module.len > 0)
    line_builder_expand_or_add (ctx, &sl->modules, 0, resolve_module (ctx, facts), start_ps, end_ps,
                                group, module_scope, ref);

  if (facts->hlo_op.len > 0)
    {
      const CacheValue *levels = resolve_hlo_op (ctx, facts);

      if (levels->n > 0)
        {
          const Scope *scopes = NULL;

          is_xla_op = TRUE;
          /* The scope ranges apply level by level when there is one per
           * level, outermost first. */
          if (gp->scope_chain->len == levels->n)
            {
              g_array_set_size (gp->level_scopes, gp->scope_chain->len);
              for (guint i = 0; i < gp->scope_chain->len; i++)
                {
                  Scope *sc = &g_array_index (gp->level_scopes, Scope, i);

                  sc->has = TRUE;
                  sc->id = g_array_index (gp->scope_chain, gint64, gp->scope_chain->len - 1 - i);
                }
              scopes = (const Scope *) (gpointer) gp->level_scopes->data;
            }
          line_builder_expand_or_add_levels (ctx, &sl->xla_ops,
                                             &g_array_index (ctx->pool, guint32, levels->offset),
                                             levels->n, start_ps, end_ps, group, scopes, ref);
        }
    }

  /* An XLA op's framework op would come from its HLO instruction (not
   * resolved here, see the top of the file); other kernels have theirs in
   * tf_op. */
  if (!is_xla_op && facts->tf_op.len > 0)
    add_framework_op (ctx, &sl->name_scope, &sl->framework_ops, facts->tf_op, start_ps, end_ps,
                      group, ref);
}

static gboolean
visit_gpu_event (DeriveContext        *dc,
                 const PlanarEventRef *ref,
                 const PlanarEvent    *event,
                 gpointer              user_data,
                 GError              **error)
{
  GpuPass *gp = user_data;
  const PlanarPlane *plane = gp->ctx.plane;
  gint64 start_ps = event->start_ps, end_ps = event->start_ps + event->duration_ps;
  static const Scope no_scope = { FALSE, 0 };
  EventFacts facts;
  Group group;
  gint slot;

  event_facts (dc, plane, event, &facts);
  if (gp->flows_wanted)
    collect_flow_ends (dc, &facts, FALSE, TRUE, ref, start_ps);

  /* XProf first gives events without a group the latest group seen
   * before them (ProcessUngroupedEvents). */
  if (facts.has_group_id)
    {
      gp->last_group.has = TRUE;
      gp->last_group.id = facts.group_id;
    }
  else if (gp->propagate_groups && gp->last_group.has)
    {
      facts.has_group_id = TRUE;
      facts.group_id = gp->last_group.id;
    }
  group.has = facts.has_group_id;
  group.id = facts.group_id;

  if (gp->steps_wanted && group.has)
    {
      PlaneContext *ctx = &gp->ctx;
      guint32 md = ctx->last_step_md;

      if (!ctx->has_last_step || ctx->last_step != group.id)
        {
          char buf[32];
          gboolean created;

          g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, group.id);
          md = find_metadata (ctx, KIND_STEP, buf, strlen (buf), &created);
          if (created)
            {
              StepGroup sg = { md, group.id };

              metadata_add_int (ctx, get_metadata (ctx, md), "group_id", group.id);
              g_array_append_val (gp->step_groups, sg);
            }
          ctx->has_last_step = TRUE;
          ctx->last_step = group.id;
          ctx->last_step_md = md;
        }
      line_builder_expand_or_add (&gp->ctx, &gp->steps, 0, md, start_ps, end_ps, group, no_scope,
                                  ref);
    }

  slot = gp->slot[ref->track];
  if (gp->annotations && slot >= 0 && (facts.kernel || facts.graph_exec))
    add_kernel (dc, gp, &gp->streams[slot], &facts, ref, start_ps, end_ps, group);
  return TRUE;
}

typedef struct
{
  guint  t;
  guint64 n;
  gboolean compute;
} StreamOrder;

static int
compare_streams (gconstpointer a,
                 gconstpointer b)
{
  const StreamOrder *x = a, *y = b;

  /* Compute streams first, then the busiest; file order breaks ties. */
  if (x->compute != y->compute)
    return x->compute ? -1 : 1;
  if (x->n != y->n)
    return x->n > y->n ? -1 : 1;
  return x->t < y->t ? -1 : x->t > y->t;
}

static int
compare_launch_groups (gconstpointer a,
                       gconstpointer b)
{
  gint64 x = **(gint64 * const *) a, y = **(gint64 * const *) b;

  return x < y ? -1 : x > y;
}

/* Launch Stats of GPU @device (XProf's DeriveEventsFromHostTrace). */
static void
build_launch_stats (DeriveContext *dc,
                    PlaneContext  *ctx,
                    guint          device,
                    LineBuilder   *b)
{
  GHashTable *groups = dc->launches[device];
  g_autofree gpointer *keys = NULL;
  guint n = 0;

  keys = g_hash_table_get_keys_as_array (groups, &n);
  qsort (keys, n, sizeof (gpointer), compare_launch_groups);
  for (guint i = 0; i < n; i++)
    {
      gint64 group_id = *(gint64 *) keys[i];
      const LaunchGroup *lg = g_hash_table_lookup (groups, keys[i]);
      const char *gname = group_name (dc, group_id);
      PlanarEventMetadata *m;
      Group group = { TRUE, group_id };
      g_autofree char *name = NULL;
      guint32 md;

      /* XProf names the event after the step group; without a root event
       * naming the group, its number stands in. */
      if (gname != NULL)
        name = g_strdup_printf ("Launch Stats for %s", gname);
      else
        name = g_strdup_printf ("Launch Stats for %" G_GINT64_FORMAT, group_id);
      /* One metadata per event: the figures are per group. */
      md = add_metadata (ctx, intern (dc->self, name), NULL);
      m = get_metadata (ctx, md);
      m->display_name = m->name;
      metadata_add_int (ctx, m, "group_id", group_id);
      metadata_add_uint (ctx, m, "num_launches", lg->count);
      metadata_add_double (ctx, m, "max_launch_time_us", (double) lg->max_ps / 1e6);
      metadata_add_double (ctx, m, "avg_launch_time_us",
                           (double) lg->sum_ps / (double) lg->count / 1e6);
      add_derived_event (ctx, b->events, lg->start_ps, lg->end_ps, md, group, &lg->first);
    }
}

static void
gpu_pass_free (GpuPass *gp)
{
  for (guint k = 0; k < gp->n_streams; k++)
    {
      line_builder_clear (&gp->streams[k].name_scope);
      line_builder_clear (&gp->streams[k].framework_ops);
      line_builder_clear (&gp->streams[k].modules);
      line_builder_clear (&gp->streams[k].xla_ops);
    }
  line_builder_clear (&gp->steps);
  line_builder_clear (&gp->launch_stats);
  g_free (gp->streams);
  g_free (gp->slot);
  g_free (gp->use);
  g_array_unref (gp->step_groups);
  g_array_unref (gp->level_scopes);
  g_array_unref (gp->scope_chain);
  plane_context_clear (&gp->ctx);
  g_free (gp);
}

/* Sets up the pass over GPU plane @p: which lines to derive, and for
 * which streams. */
static GpuPass *
gpu_pass_new (DeriveContext *dc,
              guint          p,
              guint          device)
{
  PlanarTrace *self = dc->self;
  PlanarPlane *plane = &self->planes[p];
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (StreamOrder));
  GpuPass *gp = g_new0 (GpuPass, 1);

  plane_context_init (&gp->ctx, self, p, dc->sources, plane_quota (dc, p));
  gp->device = device;
  gp->n_file_tracks = plane->n_tracks;
  gp->start_ns = plane_start_ns (plane, plane->n_lines);
  find_native_lines (plane, gp->n_file_tracks, &gp->native);
  gp->annotations = !gp->native.framework && !gp->native.xla && !gp->native.source &&
                    !gp->native.device_derived &&
                    (plane_has_stat (self, p, dc->names.kernel_details) ||
                     plane_has_stat (self, p, dc->names.cuda_graph_exec_id));
  gp->steps_wanted = !gp->native.steps && plane_has_stat (self, p, dc->names.group_id);
  gp->propagate_groups = plane_has_stat (self, p, dc->names.group_id);
  gp->flows_wanted = plane_wants_flows (dc, p);
  gp->use = g_new0 (gboolean, MAX (gp->n_file_tracks, 1));
  gp->slot = g_new (gint, MAX (gp->n_file_tracks, 1));
  gp->step_groups = g_array_new (FALSE, FALSE, sizeof (StepGroup));
  gp->level_scopes = g_array_new (FALSE, FALSE, sizeof (Scope));
  gp->scope_chain = g_array_new (FALSE, FALSE, sizeof (gint64));
  line_builder_init (&gp->steps, self, PLANAR_LINE_ID_STEPS, intern (self, "Steps"), G_MAXUINT, FALSE);
  line_builder_init (&gp->launch_stats, self, PLANAR_LINE_ID_LAUNCH_STATS, intern (self, "Launch Stats"),
                     G_MAXUINT, FALSE);

  /* XProf's streams are the plane's lines without a derived id, compute
   * streams first, then by number of events; at most 16 get lines. */
  for (guint t = 0; t < gp->n_file_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      gp->slot[t] = -1;
      if (planar_line_id_is_derived (track->id))
        continue;
      gp->use[t] = TRUE;
      gp->any_use = gp->any_use || track->n_events > 0;
      if (gp->annotations)
        {
          StreamOrder so = { 0 };

          so.t = t;
          so.n = track->n_events + track->n_aggregated;
          so.compute = strstr (track->name, "Compute") != NULL;

          g_array_append_val (order, so);
        }
    }
  g_array_sort (order, compare_streams);
  gp->n_streams = MIN (order->len, PLANAR_DERIVED_MAX_STREAMS);
  gp->streams = g_new0 (StreamLines, MAX (gp->n_streams, 1));
  for (guint k = 0; k < gp->n_streams; k++)
    {
      const StreamOrder *so = &g_array_index (order, StreamOrder, k);
      const PlanarTrack *stream = &plane->tracks[so->t];
      StreamLines *sl = &gp->streams[k];
      gint64 base = PLANAR_LINE_ID_DEVICE_DERIVED_MIN +
                    (gint64) k * PLANAR_DERIVED_LINES_PER_STREAM;
      /* XProf's display order: each stream, then its lines in id order,
       * numbered from 1 (only the derived lines take these numbers here;
       * the file's lines keep their own). */
      gint64 position = 1 + (gint64) k * PLANAR_DERIVED_LINES_PER_STREAM;
      g_autofree char *suffix = g_strdup_printf (" - from #%" G_GINT64_FORMAT, stream->id);
      g_autofree char *n_scope = g_strconcat ("Framework Name Scope", suffix, NULL);
      g_autofree char *n_ops = g_strconcat ("Framework Ops", suffix, NULL);
      g_autofree char *n_modules = g_strconcat ("XLA Modules", suffix, NULL);
      g_autofree char *n_xla = g_strconcat ("XLA Ops", suffix, NULL);

      gp->slot[so->t] = (gint) k;
      line_builder_init (&sl->name_scope, self, base + PLANAR_DERIVED_OFFSET_FRAMEWORK_NAME_SCOPE,
                         intern (self, n_scope), so->t, FALSE);
      line_builder_init (&sl->framework_ops, self, base + PLANAR_DERIVED_OFFSET_FRAMEWORK_OPS,
                         intern (self, n_ops), so->t, FALSE);
      line_builder_init (&sl->modules, self, base + PLANAR_DERIVED_OFFSET_XLA_MODULES,
                         intern (self, n_modules), so->t, FALSE);
      line_builder_init (&sl->xla_ops, self, base + PLANAR_DERIVED_OFFSET_XLA_OPS,
                         intern (self, n_xla), so->t, FALSE);
      sl->name_scope.display_id = position + 1 + PLANAR_DERIVED_OFFSET_FRAMEWORK_NAME_SCOPE;
      sl->framework_ops.display_id = position + 1 + PLANAR_DERIVED_OFFSET_FRAMEWORK_OPS;
      sl->modules.display_id = position + 1 + PLANAR_DERIVED_OFFSET_XLA_MODULES;
      sl->xla_ops.display_id = position + 1 + PLANAR_DERIVED_OFFSET_XLA_OPS;
      line_builder_add_dependent (&sl->name_scope, &sl->framework_ops);
      line_builder_add_dependent (&sl->modules, &sl->name_scope);
      line_builder_add_dependent (&sl->modules, &sl->xla_ops);
    }
  return gp;
}

static gboolean
gpu_pass_scan (DeriveContext  *dc,
               GpuPass        *gp,
               GError        **error)
{
  if (!gp->any_use || !(gp->annotations || gp->steps_wanted || gp->flows_wanted))
    return TRUE;
  return visit_sorted (dc, gp->ctx.p, gp->use, gp->n_file_tracks, visit_gpu_event, gp, error);
}

/* Names the steps, adds the Launch Stats and publishes the lines, once
 * @dc holds the host's group names and launches. */
static gboolean
gpu_pass_finish (DeriveContext  *dc,
                 GpuPass        *gp,
                 gint64          host_start_ns,
                 gboolean        has_host,
                 GError        **error)
{
  g_autoptr(GPtrArray) builders = g_ptr_array_new ();
  g_autoptr(GArray) timestamps = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint i = 0; i < gp->step_groups->len; i++)
    {
      const StepGroup *sg = &g_array_index (gp->step_groups, StepGroup, i);
      const char *gname = group_name (dc, sg->group_id);

      if (gname != NULL)
        metadata_add_text (&gp->ctx, get_metadata (&gp->ctx, sg->metadata), "step_name", gname,
                           strlen (gname));
    }

  for (guint k = 0; k < gp->n_streams; k++)
    {
      StreamLines *sl = &gp->streams[k];
      LineBuilder *lines[] = { &sl->name_scope, &sl->framework_ops, &sl->modules, &sl->xla_ops };

      for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
        {
          g_ptr_array_add (builders, lines[i]);
          g_array_append_val (timestamps, gp->start_ns);
        }
    }
  g_ptr_array_add (builders, &gp->steps);
  g_array_append_val (timestamps, gp->start_ns);

  if (has_host && !gp->native.launch_stats && g_hash_table_size (dc->launches[gp->device]) > 0)
    {
      gint64 launch_start_ns = MIN (gp->start_ns, host_start_ns);

      build_launch_stats (dc, &gp->ctx, gp->device, &gp->launch_stats);
      g_ptr_array_add (builders, &gp->launch_stats);
      g_array_append_val (timestamps, launch_start_ns);
    }

  return publish_lines (dc, &gp->ctx, (LineBuilder **) builders->pdata, builders->len,
                        (gint64 *) (gpointer) timestamps->data, error);
}

/* ------------------------------------------------------------------------ */
/* TPU planes */

typedef struct
{
  PlaneContext ctx;
  LineBuilder  name_scope;
  LineBuilder  framework_ops;
  LineBuilder  source;
  gboolean     framework;
  gboolean     source_wanted;
  gboolean     flows_wanted;
} TpuPass;

static gboolean
visit_tpu_event (DeriveContext        *dc,
                 const PlanarEventRef *ref,
                 const PlanarEvent    *event,
                 gpointer              user_data,
                 GError              **error)
{
  TpuPass *tp = user_data;
  gint64 start_ps = event->start_ps, end_ps = event->start_ps + event->duration_ps;
  static const Scope no_scope = { FALSE, 0 };
  EventFacts facts;
  Group group;

  event_facts (dc, tp->ctx.plane, event, &facts);
  /* Flows come from the profiler's own lines, as in XProf. */
  if (tp->flows_wanted && !planar_line_id_is_derived (tp->ctx.plane->tracks[ref->track].id))
    collect_flow_ends (dc, &facts, FALSE, FALSE, ref, start_ps);
  /* Asynchronous ops overlap the others; XProf leaves them out. */
  if (facts.is_async)
    return TRUE;
  group.has = facts.has_group_id;
  group.id = facts.group_id;
  if (tp->framework && facts.tf_op.len > 0)
    add_framework_op (&tp->ctx, &tp->name_scope, &tp->framework_ops, facts.tf_op, start_ps, end_ps,
                      group, ref);
  if (tp->source_wanted && facts.source.len > 0)
    {
      gboolean created;
      guint32 md = find_metadata (&tp->ctx, KIND_SOURCE, facts.source.data, facts.source.len,
                                  &created);

      line_builder_expand_or_add (&tp->ctx, &tp->source, 0, md, start_ps, end_ps, group, no_scope,
                                  ref);
    }
  return TRUE;
}

static gboolean
is_tensor_core_plane (const char *name)
{
  const char *rest;

  if (!g_str_has_prefix (name, "/device:TPU:"))
    return FALSE;
  for (rest = name + strlen ("/device:TPU:"); *rest != '\0'; rest++)
    if (!is_digit (*rest))
      return FALSE;
  return TRUE;
}

static gboolean
derive_tpu_plane (DeriveContext  *dc,
                  guint           p,
                  GError        **error)
{
  PlanarTrace *self = dc->self;
  PlanarPlane *plane = &self->planes[p];
  guint n_file_tracks = plane->n_tracks;
  g_autofree gboolean *use = g_new (gboolean, MAX (n_file_tracks, 1));
  gint64 start_ns = plane_start_ns (plane, plane->n_lines);
  gint64 timestamps[3] = { start_ns, start_ns, start_ns };
  LineBuilder *builders[3];
  NativeLines native;
  TpuPass tp;
  gboolean ok = FALSE;

  memset (&tp, 0, sizeof tp);
  plane_context_init (&tp.ctx, self, p, dc->sources, plane_quota (dc, p));
  find_native_lines (plane, n_file_tracks, &native);
  tp.framework = !native.framework && plane_has_stat (self, p, dc->names.tf_op);
  tp.source_wanted = !native.source && plane_has_stat (self, p, dc->names.source);
  tp.flows_wanted = plane_wants_flows (dc, p);
  line_builder_init (&tp.name_scope, self, PLANAR_LINE_ID_FRAMEWORK_NAME_SCOPE,
                     intern (self, "Framework Name Scope"), G_MAXUINT, TRUE);
  line_builder_init (&tp.framework_ops, self, PLANAR_LINE_ID_FRAMEWORK_OPS,
                     intern (self, "Framework Ops"), G_MAXUINT, TRUE);
  line_builder_init (&tp.source, self, PLANAR_LINE_ID_SOURCE_CODE, intern (self, "Source code"),
                     G_MAXUINT, TRUE);
  line_builder_add_dependent (&tp.name_scope, &tp.framework_ops);

  /* Every line counts here, XLA's own (with derived ids) included: the
   * ops that carry tf_op are on the native `XLA Ops` line. */
  for (guint t = 0; t < n_file_tracks; t++)
    use[t] = TRUE;
  if (tp.framework || tp.source_wanted || tp.flows_wanted)
    if (!visit_sorted (dc, p, use, n_file_tracks, visit_tpu_event, &tp, error))
      goto out;

  builders[0] = &tp.name_scope;
  builders[1] = &tp.framework_ops;
  builders[2] = &tp.source;
  ok = publish_lines (dc, &tp.ctx, builders, G_N_ELEMENTS (builders), timestamps, error);

out:
  line_builder_clear (&tp.name_scope);
  line_builder_clear (&tp.framework_ops);
  line_builder_clear (&tp.source);
  plane_context_clear (&tp.ctx);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Other planes: flows only */

static gboolean
scan_flows_only (DeriveContext  *dc,
                 guint           p,
                 GError        **error)
{
  const PlanarPlane *plane = &dc->self->planes[p];
  gboolean is_gpu = g_str_has_prefix (plane->name, "/device:GPU:");
  EventFacts facts;

  for (guint t = 0; t < plane->n_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      if (track->derived || planar_line_id_is_derived (track->id))
        continue;
      for (gsize i = 0; i < track->n_events; i++)
        {
          PlanarEventRef ref = { p, 0, t, (guint32) i };

          if (check_cancelled (dc, error))
            return FALSE;
          event_facts (dc, plane, &track->events[i], &facts);
          collect_flow_ends (dc, &facts, FALSE, is_gpu, &ref, track->events[i].start_ps);
        }
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* XProf's internal events (§2.5) */

void
_planar_trace_flag_internal_events (PlanarTrace *self)
{
  /* XLA's IsInternalEvent(): memory bookkeeping and the tf.data
   * producer/consumer markers, which the trace viewer hides. */
  static const char * const internal[] = {
    "MemoryAllocation", "MemoryDeallocation",
    "PrefetchProduce", "PrefetchConsume",
    "ParallelInterleaveProduce", "ParallelInterleaveConsume", "ParallelInterleaveInitializedInput",
    "ParallelMapProduce", "ParallelMapConsume",
    "MapAndBatchProduce", "MapAndBatchConsume",
    "ParseExampleProduce", "ParseExampleConsume",
  };
  const char *interned[G_N_ELEMENTS (internal)];

  g_mutex_lock (&self->strings_lock);
  for (guint i = 0; i < G_N_ELEMENTS (internal); i++)
    interned[i] = planar_string_table_lookup (self->strings, internal[i]);
  g_mutex_unlock (&self->strings_lock);

  for (guint p = 0; p < self->n_planes; p++)
    {
      PlanarPlane *plane = &self->planes[p];

      for (guint m = 0; m < plane->n_metadata; m++)
        for (guint i = 0; i < G_N_ELEMENTS (internal); i++)
          if (interned[i] != NULL && plane->metadata[m].name == interned[i])
            plane->metadata[m].internal = TRUE;
    }
}

/* ------------------------------------------------------------------------ */

static void
lookup_stat_names (PlanarTrace *self,
                   StatNames   *names)
{
  PlanarStringTable *strings = self->strings;

  g_mutex_lock (&self->strings_lock);
  names->kernel_details = planar_string_table_lookup (strings, "kernel_details");
  names->cuda_graph_exec_id = planar_string_table_lookup (strings, "cuda_graph_exec_id");
  names->hlo_op = planar_string_table_lookup (strings, "hlo_op");
  names->hlo_module = planar_string_table_lookup (strings, "hlo_module");
  names->program_id = planar_string_table_lookup (strings, "program_id");
  names->tf_op = planar_string_table_lookup (strings, "tf_op");
  names->group_id = planar_string_table_lookup (strings, "group_id");
  names->scope_range_id = planar_string_table_lookup (strings, "scope_range_id");
  names->correlation_id = planar_string_table_lookup (strings, "correlation_id");
  names->device_id = planar_string_table_lookup (strings, "device_id");
  names->flow = planar_string_table_lookup (strings, "flow");
  names->producer_type = planar_string_table_lookup (strings, "_pt");
  names->producer_id = planar_string_table_lookup (strings, "_p");
  names->consumer_type = planar_string_table_lookup (strings, "_ct");
  names->consumer_id = planar_string_table_lookup (strings, "_c");
  names->is_root = planar_string_table_lookup (strings, "_r");
  names->is_async = planar_string_table_lookup (strings, "_a");
  names->source = planar_string_table_lookup (strings, "source");
  names->graph_type = planar_string_table_lookup (strings, "graph_type");
  names->iter_num = planar_string_table_lookup (strings, "iter_num");
  names->step_num = planar_string_table_lookup (strings, "step_num");
  g_mutex_unlock (&self->strings_lock);
}

/* The scope-range tree: `/host:__ScopeRangeCallStack__` keeps each child
 * id -> parent id as a plane stat keyed by the raw child id. */
static GHashTable *
read_scope_parents (PlanarTrace *self)
{
  const PlanarPlane *plane = planar_trace_find_plane (self, "/host:__ScopeRangeCallStack__");
  GHashTable *parents;

  if (plane == NULL || plane->n_stats == 0)
    return NULL;
  parents = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  for (guint i = 0; i < plane->n_stats; i++)
    {
      guint64 parent;

      if (stat_int (&plane->stats[i], &parent))
        g_hash_table_replace (parents, g_memdup2 (&plane->stats[i].metadata_id, sizeof (gint64)),
                              g_memdup2 (&parent, sizeof (gint64)));
    }
  return parents;
}

/* The passes run in two rounds on a few threads: first every plane's (the
 * host's track by track), then what needs the host's results (the GPUs'
 * Steps names and Launch Stats) together with the flow index. Jobs share
 * nothing they write but the string table (locked) and the count of
 * dropped lines (atomic), and their results are merged in plane and track
 * order, so the outcome does not depend on which thread ran what. */
typedef enum
{
  JOB_HOST_TRACK,
  JOB_GPU,
  JOB_TPU,
  JOB_FLOWS,
  JOB_GPU_FINISH,
  JOB_FLOW_INDEX,
} JobKind;

typedef struct
{
  JobKind            kind;
  guint              p;
  /* JOB_HOST_TRACK: the track. */
  guint              t;
  guint64            n_events;
  GpuPass           *gpu;
  PlanarFlowBuilder *flows;
  /* JOB_HOST_TRACK: per GPU, group_id -> LaunchGroup; group_id ->
   * GroupRoot. */
  GHashTable       **launches;
  GHashTable        *group_roots;
  GError            *error;
} Job;

typedef struct
{
  DeriveContext *shared;
  GArray        *jobs;
  guint         *order;
  gint           next;
  gint64         host_start_ns;
  gboolean       has_host;
} JobQueue;

static GHashTable **
launch_tables_new (guint n_gpus)
{
  GHashTable **tables = g_new (GHashTable *, MAX (n_gpus, 1));

  for (guint i = 0; i < n_gpus; i++)
    tables[i] = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  return tables;
}

static void
launch_tables_free (GHashTable **tables,
                    guint        n_gpus)
{
  if (tables == NULL)
    return;
  for (guint i = 0; i < n_gpus; i++)
    g_hash_table_unref (tables[i]);
  g_free (tables);
}

static void
job_clear (Job   *job,
           guint  n_gpus)
{
  g_clear_pointer (&job->gpu, gpu_pass_free);
  g_clear_pointer (&job->flows, _planar_flow_builder_free);
  launch_tables_free (g_steal_pointer (&job->launches), n_gpus);
  g_clear_pointer (&job->group_roots, g_hash_table_unref);
  g_clear_error (&job->error);
}

/* Moves the jobs' flow ends into one builder, in plane then track order. */
static PlanarFlowBuilder *
gather_flows (PlanarTrace *self,
              GArray      *jobs)
{
  PlanarFlowBuilder *flows = _planar_flow_builder_new (self->spill);

  for (guint i = 0; i < jobs->len; i++)
    {
      Job *job = &g_array_index (jobs, Job, i);

      if (job->flows != NULL)
        _planar_flow_builder_take (flows, g_steal_pointer (&job->flows));
    }
  return flows;
}

static void
run_job (JobQueue *q,
         Job      *job)
{
  DeriveContext dc = *q->shared;
  PlanarTrace *self = dc.self;
  gboolean ok = FALSE;

  dc.p = job->p;
  /* The flow index job of a space without planes has no plane's table. */
  dc.sources = job->p < self->derived_sources->len ? g_ptr_array_index (self->derived_sources, job->p) : NULL;
  dc.stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  dc.flows = NULL;
  if (job->kind != JOB_GPU_FINISH && job->kind != JOB_FLOW_INDEX)
    dc.flows = _planar_flow_builder_new (self->spill);
  dc.n_seen = 0;
  switch (job->kind)
    {
    case JOB_HOST_TRACK:
      job->launches = dc.launches = launch_tables_new (dc.gpu_planes->len);
      job->group_roots = dc.group_roots = g_hash_table_new_full (g_int64_hash, g_int64_equal,
                                                                 g_free, g_free);
      ok = scan_host_track (&dc, job->p, job->t, &job->error);
      break;
    case JOB_GPU:
      ok = gpu_pass_scan (&dc, job->gpu, &job->error);
      break;
    case JOB_TPU:
      ok = derive_tpu_plane (&dc, job->p, &job->error);
      break;
    case JOB_FLOWS:
      ok = scan_flows_only (&dc, job->p, &job->error);
      break;
    case JOB_GPU_FINISH:
      ok = gpu_pass_finish (&dc, job->gpu, q->host_start_ns, q->has_host, &job->error);
      break;
    case JOB_FLOW_INDEX:
      /* Readers may be drawing the file's tracks: one store publishes it. */
      g_atomic_pointer_set (&self->flows,
                            _planar_flow_builder_finish (g_steal_pointer (&job->flows), self, dc.host_id));
      ok = TRUE;
      break;
    default:
      g_assert_not_reached ();
    }
  g_array_unref (dc.stats);
  if (dc.flows != NULL)
    {
      /* In parallel here, so that the index is built without sorting them. */
      _planar_flow_builder_sort_launches (dc.flows);
      job->flows = dc.flows;
    }
  g_assert (ok || job->error != NULL);
}

static gpointer
job_worker (gpointer data)
{
  JobQueue *q = data;

  for (;;)
    {
      gint i = g_atomic_int_add (&q->next, 1);

      if ((guint) i >= q->jobs->len)
        break;
      run_job (q, &g_array_index (q->jobs, Job, q->order[i]));
    }
  return NULL;
}

static int
compare_jobs_by_size (gconstpointer a,
                      gconstpointer b,
                      gpointer      user_data)
{
  GArray *jobs = user_data;
  const Job *x = &g_array_index (jobs, Job, *(const guint *) a);
  const Job *y = &g_array_index (jobs, Job, *(const guint *) b);

  if (x->n_events != y->n_events)
    return x->n_events > y->n_events ? -1 : 1;
  return *(const guint *) a < *(const guint *) b ? -1 : *(const guint *) a > *(const guint *) b;
}

/* Runs @jobs on up to 8 threads, the biggest first, and returns the first
 * error in job order (the same whatever the threads did). */
static gboolean
run_jobs (JobQueue  *q,
          GArray    *jobs,
          GError   **error)
{
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  guint n_threads = MIN (MIN (g_get_num_processors (), 8), MAX (jobs->len, 1));

  q->jobs = jobs;
  q->next = 0;
  q->order = g_new (guint, MAX (jobs->len, 1));
  for (guint i = 0; i < jobs->len; i++)
    q->order[i] = i;
  g_qsort_with_data (q->order, (gint) jobs->len, sizeof (guint), compare_jobs_by_size, jobs);

  /* The calling thread is one of the workers. */
  for (guint i = 1; i < n_threads; i++)
    {
      GThread *thread = g_thread_try_new ("planar-derive", job_worker, q, NULL);

      if (thread != NULL)
        g_ptr_array_add (threads, thread);
    }
  job_worker (q);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));
  g_clear_pointer (&q->order, g_free);

  for (guint i = 0; i < jobs->len; i++)
    {
      Job *job = &g_array_index (jobs, Job, i);

      if (job->error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&job->error));
          return FALSE;
        }
    }
  return TRUE;
}

static PlanarSpillArray *
sources_new (PlanarTrace *self)
{
  return planar_spill_array_new (sizeof (DerivedSource), self->spill);
}

static void
free_sources (gpointer data)
{
  planar_spill_array_free (data);
}

gboolean
_planar_trace_derive (PlanarTrace   *self,
                      GCancellable  *cancellable,
                      GError       **error)
{
  DeriveContext dc;
  g_autoptr(GArray) scans = g_array_new (FALSE, TRUE, sizeof (Job));
  g_autoptr(GArray) finishes = g_array_new (FALSE, TRUE, sizeof (Job));
  JobQueue queue;
  gboolean ok = FALSE;
  guint n_gpus;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);

  memset (&dc, 0, sizeof dc);
  memset (&queue, 0, sizeof queue);
  dc.self = self;
  dc.cancellable = cancellable;
  dc.host_id = host_id_of (self);
  dc.gpu_planes = g_array_new (FALSE, FALSE, sizeof (guint));
  dc.group_roots = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  dc.scope_parents = read_scope_parents (self);
  /* Derived events may take as much as the loader allows the index (a fixed
   * allowance and six times the file), on top of it. */
  dc.budget = budget_for_tests >= 0 ? budget_for_tests
                                    : (gint64) 64 * 1024 * 1024 +
                                      (gint64) MIN (self->size, G_MAXINT64 / 8) * 6;
  for (guint p = 0; p < self->n_planes; p++)
    if (g_str_has_prefix (self->planes[p].name, "/device:GPU:") ||
        is_tensor_core_plane (self->planes[p].name))
      dc.budget_weight += self->planes[p].n_events + 1;
  lookup_stat_names (self, &dc.names);
  if (self->derived_sources == NULL)
    {
      self->derived_sources = g_ptr_array_new_full (self->n_planes, free_sources);
      g_ptr_array_set_size (self->derived_sources, self->n_planes);
    }
  for (guint p = 0; p < self->n_planes; p++)
    if (g_str_has_prefix (self->planes[p].name, "/device:GPU:"))
      g_array_append_val (dc.gpu_planes, p);
  n_gpus = dc.gpu_planes->len;
  dc.launches = launch_tables_new (n_gpus);
  queue.shared = &dc;

  /* Round one, in plane order. XProf reads the one plane named exactly
   * /host:CPU for launches. */
  for (guint p = 0; p < self->n_planes; p++)
    {
      const PlanarPlane *plane = &self->planes[p];
      Job job = { 0 };

      job.p = p;
      job.n_events = plane->n_events;
      if (strcmp (plane->name, "/host:CPU") == 0)
        {
          if (!queue.has_host)
            queue.host_start_ns = plane_start_ns (plane, plane->n_lines);
          queue.has_host = TRUE;
          if (!host_plane_wanted (&dc, p))
            continue;
          job.kind = JOB_HOST_TRACK;
          for (guint t = 0; t < plane->n_tracks; t++)
            {
              /* Derived lines (XProf's) carry copies, not launches. */
              if (plane->tracks[t].derived || planar_line_id_is_derived (plane->tracks[t].id))
                continue;
              job.t = t;
              job.n_events = plane->tracks[t].n_events;
              g_array_append_val (scans, job);
            }
          continue;
        }
      if (g_str_has_prefix (plane->name, "/device:GPU:"))
        {
          guint device = 0;

          while (g_array_index (dc.gpu_planes, guint, device) != p)
            device++;
          g_ptr_array_index (self->derived_sources, p) = sources_new (self);
          dc.sources = g_ptr_array_index (self->derived_sources, p);
          job.kind = JOB_GPU;
          job.gpu = gpu_pass_new (&dc, p, device);
        }
      else if (is_tensor_core_plane (plane->name))
        {
          g_ptr_array_index (self->derived_sources, p) = sources_new (self);
          job.kind = JOB_TPU;
        }
      else if (plane_wants_flows (&dc, p))
        job.kind = JOB_FLOWS;
      else
        continue;
      g_array_append_val (scans, job);
    }
  dc.sources = NULL;
  if (!run_jobs (&queue, scans, error))
    goto out;

  /* The host's figures, in track order. */
  for (guint i = 0; i < scans->len; i++)
    {
      Job *job = &g_array_index (scans, Job, i);

      if (job->kind != JOB_HOST_TRACK)
        continue;
      merge_launches (dc.launches, job->launches, n_gpus);
      merge_group_roots (dc.group_roots, job->group_roots);
    }

  /* Round two: the GPUs' last lines, and the flow index. */
  {
    Job index_job = { 0 };

    index_job.kind = JOB_FLOW_INDEX;
    index_job.flows = gather_flows (self, scans);
    index_job.n_events = G_MAXUINT64;
    g_array_append_val (finishes, index_job);
  }
  for (guint i = 0; i < scans->len; i++)
    {
      Job *job = &g_array_index (scans, Job, i);

      if (job->kind == JOB_GPU)
        {
          Job finish = *job;

          finish.kind = JOB_GPU_FINISH;
          finish.flows = NULL;
          job->gpu = NULL;
          g_array_append_val (finishes, finish);
        }
    }
  if (!run_jobs (&queue, finishes, error))
    goto out;

  g_atomic_pointer_set (&self->counters, _planar_counter_set_build (self, cancellable, error));
  ok = self->counters != NULL;

out:
  for (guint i = 0; i < scans->len; i++)
    job_clear (&g_array_index (scans, Job, i), n_gpus);
  for (guint i = 0; i < finishes->len; i++)
    job_clear (&g_array_index (finishes, Job, i), n_gpus);
  launch_tables_free (dc.launches, n_gpus);
  g_array_unref (dc.gpu_planes);
  g_hash_table_unref (dc.group_roots);
  g_clear_pointer (&dc.scope_parents, g_hash_table_unref);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Queries */

static const DerivedSource *
find_source (PlanarTrace       *self,
             const PlanarEvent *event)
{
  guint64 p = event->source >> SOURCE_PLANE_SHIFT;
  guint64 i = event->source & SOURCE_INDEX_MASK;
  PlanarSpillArray *sources;

  if (!(event->flags & PLANAR_EVENT_DERIVED) || self->derived_sources == NULL ||
      p >= self->derived_sources->len)
    return NULL;
  sources = g_ptr_array_index (self->derived_sources, p);
  if (sources == NULL || i >= sources->len)
    return NULL;
  return &planar_spill_array_index (sources, DerivedSource, i);
}

void
_planar_trace_add_derived_stats (PlanarTrace       *self,
                                 const PlanarEvent *event,
                                 GArray            *out,
                                 guint              first)
{
  const DerivedSource *src = find_source (self, event);
  g_autoptr(GHashTable) seen = NULL;
  PlanarStat stat = { 0 };

  if (src == NULL || !src->has_group_id)
    return;
  g_mutex_lock (&self->strings_lock);
  stat.name = planar_string_table_intern (self->strings, "group_id");
  g_mutex_unlock (&self->strings_lock);
  stat.metadata_id = -1;
  stat.kind = PLANAR_STAT_INT64;
  stat.v.i64 = src->group_id;
  _planar_stats_add (out, first, &stat, &seen);
}

gboolean
planar_trace_get_derived_source (PlanarTrace       *self,
                                 const PlanarEvent *event,
                                 PlanarEventRef    *source)
{
  const DerivedSource *src;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  g_return_val_if_fail (event != NULL, FALSE);

  src = find_source (self, event);
  if (src == NULL || planar_event_ref_is_none (&src->ref))
    return FALSE;
  if (source != NULL)
    *source = src->ref;
  return TRUE;
}

guint
planar_trace_get_n_dropped_derived_lines (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);
  return (guint) g_atomic_int_get (&self->n_dropped_derived_lines);
}

/* ------------------------------------------------------------------------ */
/* The cached index (planar-cache.c) */

void
_planar_trace_serialize_derived_sources (PlanarTrace    *self,
                                         guint           p,
                                         PlanarByteSink  sink,
                                         gpointer        data)
{
  PlanarSpillArray *sources = self->derived_sources != NULL && p < self->derived_sources->len
    ? g_ptr_array_index (self->derived_sources, p) : NULL;

  if (sources != NULL)
    sink (data, sources->data, (gsize) sources->len * sizeof (DerivedSource));
}

gboolean
_planar_trace_restore_derived_sources (PlanarTrace   *self,
                                       guint          p,
                                       const guint8  *data,
                                       gsize          len,
                                       GError       **error)
{
  gsize n = len / sizeof (DerivedSource);
  PlanarSpillArray *sources;
  const PlanarPlane *plane = &self->planes[p];

  if (len % sizeof (DerivedSource) != 0 || n > SOURCE_INDEX_MASK)
    goto bad;
  sources = sources_new (self);
  planar_spill_array_append (sources, data, n);
  for (gsize i = 0; i < n; i++)
    {
      const PlanarEventRef *ref = &planar_spill_array_index (sources, DerivedSource, i).ref;

      if (ref->plane >= self->n_planes || ref->track >= self->planes[ref->plane].n_tracks
          || ref->index >= self->planes[ref->plane].tracks[ref->track].n_events)
        {
          free_sources (sources);
          goto bad;
        }
    }
  /* Every derived event of the plane names an entry. */
  for (guint t = 0; t < plane->n_tracks; t++)
    for (gsize i = 0; i < plane->tracks[t].n_events; i++)
      {
        const PlanarEvent *ev = &plane->tracks[t].events[i];

        if ((ev->flags & PLANAR_EVENT_DERIVED)
            && ((ev->source >> SOURCE_PLANE_SHIFT) != p || (ev->source & SOURCE_INDEX_MASK) >= n))
          {
            free_sources (sources);
            goto bad;
          }
      }
  if (self->derived_sources == NULL)
    {
      self->derived_sources = g_ptr_array_new_full (self->n_planes, free_sources);
      g_ptr_array_set_size (self->derived_sources, self->n_planes);
    }
  free_sources (g_ptr_array_index (self->derived_sources, p));
  g_ptr_array_index (self->derived_sources, p) = n > 0 ? sources : (free_sources (sources), NULL);
  return TRUE;

bad:
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "inconsistent derived events in plane %u", p);
  return FALSE;
}

void
_planar_trace_clear_derived (PlanarTrace *self)
{
  g_clear_pointer (&self->derived_sources, g_ptr_array_unref);
  g_clear_pointer (&self->flows, _planar_flow_index_free);
  g_clear_pointer (&self->counters, _planar_counter_set_free);
}
