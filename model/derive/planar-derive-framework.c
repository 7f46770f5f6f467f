/* planar-derive-framework.c: the Framework Name Scope and Framework Ops
 * lines of a framework op (`tf_op`), as XProf's ProcessTfOpEvent builds
 * them on GPU and TPU planes. The op name itself is parsed by
 * planar-op-name.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include "planar-op-name.h"
#include <string.h>

/* The name-scope metadata (in ctx->pool at value->offset) and the op
 * metadata of framework op @full (XProf's ProcessTfOpEvent). */
static const CacheValue *
resolve_framework_op (PlaneContext *ctx,
                      Text          full)
{
  CacheKey key = { full, { "", 0 }, FALSE, 0 };
  CacheValue value = { 0 };
  const CacheValue *found = g_hash_table_lookup (ctx->tf_cache, &key);
  PlanarOpName op;
  gboolean created;

  if (found != NULL)
    return found;

  planar_op_name_parse (full.data, full.len, &op);
  value.offset = ctx->pool->len;
  /* Every "/"-separated part of a TensorFlow or JAX op name but the last is
   * a name scope, one level each; other ops have none. */
  if (op.category == PLANAR_OP_CATEGORY_TENSORFLOW || op.category == PLANAR_OP_CATEGORY_JAX)
    {
      const char *part = op.name;
      const char *end = op.name + op.name_len;

      for (const char *c = part; c < end && value.n < MAX_LEVELS; c++)
        if (*c == '/')
          {
            if (c > part)
              {
                guint32 scope = _planar_plane_context_find_metadata (ctx, KIND_NAME_SCOPE, part,
                                                                     c - part, &created);

                g_array_append_val (ctx->pool, scope);
                value.n++;
              }
            part = c + 1;
          }
    }

  value.md = _planar_plane_context_find_metadata (ctx, KIND_TF_OP, full.data, full.len, &created);
  if (created)
    {
      PlanarEventMetadata *m = _planar_plane_context_get_metadata (ctx, value.md);

      /* The op type as the display name, so ops of one type share a color. */
      planar_op_name_display (&op, ctx->scratch);
      m->display_name = _planar_derive_intern_len (ctx->self, ctx->scratch->str, ctx->scratch->len);
      _planar_derive_metadata_add_text (ctx, m, "tf_op", full.data, full.len);
    }
  _planar_plane_context_cache_insert (ctx->tf_cache, &key, &value);
  return g_hash_table_lookup (ctx->tf_cache, &key);
}

guint
_planar_derive_op_n_scopes (const char *full,
                            gsize       len)
{
  PlanarOpName op;
  const char *part, *end;
  guint n = 0;

  planar_op_name_parse (full, len, &op);
  if (op.category != PLANAR_OP_CATEGORY_TENSORFLOW && op.category != PLANAR_OP_CATEGORY_JAX)
    return 0;
  part = op.name;
  end = op.name + op.name_len;
  /* As resolve_framework_op(): each non-empty part before a "/". */
  for (const char *c = part; c < end && n < MAX_LEVELS; c++)
    if (*c == '/')
      {
        if (c > part)
          n++;
        part = c + 1;
      }
  return n;
}

/* Feeds a framework op (`tf_op`) to the name-scope and op lines. */
void
_planar_derive_add_framework_op (PlaneContext         *ctx,
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
  /* The pool is empty (its data NULL) until an op with name scopes. */
  const guint32 *levels = value->n > 0 ? &g_array_index (ctx->pool, guint32, value->offset) : NULL;

  /* An op without name scopes leaves the scope line as it is. */
  _planar_line_builder_expand_or_add_levels (ctx, name_scope, levels, value->n, start_ps, end_ps, group, NULL,
                                             ref);
  _planar_line_builder_expand_or_add (ctx, framework_ops, 0, value->md, start_ps, end_ps, group, no_scope,
                                      ref);
}
