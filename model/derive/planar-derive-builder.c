/* planar-derive-builder.c: building a plane's derived lines: the new
 * metadata of a plane (PlaneContext) and one derived line being built
 * (XProf's DerivedXLineBuilder, with its merge rule).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include <string.h>

/* Keyed (planar-hash-private.h): the names are the file's. */
static guint
cache_key_hash (gconstpointer p)
{
  const CacheKey *k = p;
  guint64 h = _planar_hash_bytes (k->a.data, k->a.len, k->num);

  h = _planar_hash_bytes (k->b.data, k->b.len, h ^ (guint64) k->has_num);
  return (guint) (h ^ (h >> 32));
}

gboolean
_planar_derive_text_equal (Text x,
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
         _planar_derive_text_equal (a->a, b->a) && _planar_derive_text_equal (a->b, b->b);
}

const char *
_planar_derive_intern_len (PlanarTrace *self,
                           const char  *s,
                           gsize        len)
{
  const char *ret;

  g_mutex_lock (&self->strings_lock);
  ret = planar_string_table_intern_len (self->strings, s, len);
  g_mutex_unlock (&self->strings_lock);
  return ret;
}

const char *
_planar_derive_intern (PlanarTrace *self,
                       const char  *s)
{
  return _planar_derive_intern_len (self, s, strlen (s));
}

void
_planar_plane_context_init (PlaneContext *ctx,
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
    ctx->by_name[k] = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  ctx->scratch = g_string_new (NULL);
  ctx->scratch2 = g_string_new (NULL);
  ctx->hlo_cache = g_hash_table_new_full (cache_key_hash, cache_key_equal, g_free, g_free);
  ctx->tf_cache = g_hash_table_new_full (cache_key_hash, cache_key_equal, g_free, g_free);
  ctx->pool = g_array_new (FALSE, FALSE, sizeof (guint32));
}

void
_planar_plane_context_clear (PlaneContext *ctx)
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

void
_planar_plane_context_cache_insert (GHashTable       *cache,
                                    const CacheKey   *key,
                                    const CacheValue *value)
{
  g_hash_table_insert (cache, g_memdup2 (key, sizeof *key), g_memdup2 (value, sizeof *value));
}

/* Appends a new metadata entry named @name (interned). Returns its index
 * in the plane. */
guint32
_planar_plane_context_add_metadata (PlaneContext *ctx,
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

PlanarEventMetadata *
_planar_plane_context_get_metadata (PlaneContext *ctx,
                                    guint32       index)
{
  g_assert (index >= ctx->first_metadata);
  return &g_array_index (ctx->metadata, PlanarEventMetadata, index - ctx->first_metadata);
}

/* The metadata of @kind named @name, made on first use (then *@created is
 * set and the caller gives it its display name and stats). */
guint32
_planar_plane_context_find_metadata (PlaneContext *ctx,
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

  interned = _planar_derive_intern_len (ctx->self, name, len);
  index = _planar_plane_context_add_metadata (ctx, interned, interned);
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
  stat->name = _planar_derive_intern (ctx->self, name);
  /* Not from the file: no stat metadata id. */
  stat->metadata_id = -1;
  stat->kind = kind;
  stat->from_metadata = TRUE;
  return stat;
}

void
_planar_derive_metadata_add_text (PlaneContext        *ctx,
                                  PlanarEventMetadata *md,
                                  const char          *name,
                                  const char          *value,
                                  gsize                len)
{
  PlanarStat *stat = metadata_add_stat (ctx, md, name, PLANAR_STAT_STRING);

  stat->str.data = _planar_derive_intern_len (ctx->self, value, len);
  stat->str.len = len;
}

void
_planar_derive_metadata_add_int (PlaneContext        *ctx,
                                 PlanarEventMetadata *md,
                                 const char          *name,
                                 gint64               value)
{
  metadata_add_stat (ctx, md, name, PLANAR_STAT_INT64)->v.i64 = value;
}

void
_planar_derive_metadata_add_uint (PlaneContext        *ctx,
                                  PlanarEventMetadata *md,
                                  const char          *name,
                                  guint64              value)
{
  metadata_add_stat (ctx, md, name, PLANAR_STAT_UINT64)->v.u64 = value;
}

void
_planar_derive_metadata_add_double (PlaneContext        *ctx,
                                    PlanarEventMetadata *md,
                                    const char          *name,
                                    double               value)
{
  metadata_add_stat (ctx, md, name, PLANAR_STAT_DOUBLE)->v.f64 = value;
}

void
_planar_line_builder_init (LineBuilder *b,
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

void
_planar_line_builder_clear (LineBuilder *b)
{
  g_clear_pointer (&b->events, planar_spill_array_free);
  g_clear_pointer (&b->levels, g_array_unref);
}

void
_planar_line_builder_add_dependent (LineBuilder *b,
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
gssize
_planar_plane_context_add_event (PlaneContext         *ctx,
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
  src.plane = ref->plane;
  src.track = ref->track;
  src.index = ref->index;
  src.group = group.has ? _planar_derive_sources_intern_group (ctx->sources, group.id) : NO_GROUP;
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
void
_planar_line_builder_expand_or_add (PlaneContext         *ctx,
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
      LevelState empty = { -1, -1, 0, { FALSE, 0 }, { FALSE, 0 } };

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
  /* The events last made at this level and below that this one starts
   * inside and outlives (the kernels behind them ran at once: a CUDA
   * graph's branches, streams that overlap) end where it starts: so that
   * levels nest in time as they do in names, and each level stays one
   * row. Left to overlap, each overlap sent the new event beside the
   * innermost open one, and a GPU's name scopes went 70 rows deep. An
   * event inside the last one (the ops a TPU's while holds) nests. */
  for (guint i = level; i < b->levels->len; i++)
    {
      gssize last = g_array_index (b->levels, LevelState, i).last;

      if (last >= 0)
        {
          PlanarEvent *ev = &planar_spill_array_index (b->events, PlanarEvent, last);

          if (ev->start_ps < start_ps && ev->start_ps + ev->duration_ps > start_ps
              && ev->start_ps + ev->duration_ps < end_ps)
            ev->duration_ps = start_ps - ev->start_ps;
        }
    }
  ls = &g_array_index (b->levels, LevelState, level);
  ls->event = _planar_plane_context_add_event (ctx, b->events, start_ps, end_ps, metadata, group, ref);
  ls->last = ls->event;
  ls->metadata = metadata;
  ls->group = group;
  ls->scope = scope;
}

/* One event per level, then the levels below the last are closed. */
void
_planar_line_builder_expand_or_add_levels (PlaneContext         *ctx,
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
    _planar_line_builder_expand_or_add (ctx, b, level, metadata[level], start_ps, end_ps, group,
                                        scopes != NULL ? scopes[level] : no_scope, ref);
  line_builder_reset (b, n_levels);
}
