/* planar-derive-gpu.c: the pass over a `/device:GPU:N` plane: per
 * stream, XLA Modules, XLA Ops, Framework Ops, Framework Name Scope and
 * Source code from the kernels' annotations, an XLA op's framework op and
 * source resolved through its HLO instruction (planar-hlo.h); Steps from
 * their group ids; Launch Stats from the host's launches (XProf's
 * derived_timeline.cc).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include "planar-hlo.h"

#include <string.h>

/* The lines derived from one stream. */
typedef struct
{
  LineBuilder name_scope;
  LineBuilder framework_ops;
  LineBuilder modules;
  LineBuilder xla_ops;
  LineBuilder source;
} StreamLines;

/* What an XLA op's HLO instruction gives its kernels: XProf's
 * op_full_name and source_info, interned (NULL when empty). */
typedef struct
{
  const char *full;
  const char *source;
} HloSymbol;

/* A GPU plane's pass: read while the host is read too, finished once the
 * host's launches and step names are known. */
struct _GpuPass
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
  /* Where the last kernel's launch was found in @dc->launch_groups. */
  gsize         group_cursor;
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
  /* The trace's HLO (NULL without one), the symbols of the instructions
   * met so far (PlanarHloInstruction * -> HloSymbol), and the module of
   * the last kernel: kernels come in runs of one module. */
  const PlanarHloIndex  *hlo;
  GHashTable            *hlo_symbols;
  const PlanarHloModule *last_hlo_module;
  gboolean               last_hlo_has_pid;
  guint64                last_hlo_pid;
  Text                   last_hlo_module_name;
};

typedef struct
{
  guint32 metadata;
  gint64  group_id;
} StepGroup;

/* The XLA Modules metadata of a kernel's module. */
static guint32
resolve_module (PlaneContext     *ctx,
                const EventFacts *facts)
{
  gboolean created;
  guint32 md;

  if (ctx->last_module.data != NULL && _planar_derive_text_equal (ctx->last_module, facts->hlo_module) &&
      ctx->last_module_has_pid == facts->has_program_id &&
      (!facts->has_program_id || ctx->last_module_pid == facts->program_id))
    return ctx->last_module_md;

  g_string_truncate (ctx->scratch, 0);
  g_string_append_len (ctx->scratch, facts->hlo_module.data, facts->hlo_module.len);
  if (facts->has_program_id)
    g_string_append_printf (ctx->scratch, "(%" G_GUINT64_FORMAT ")", facts->program_id);
  md = _planar_plane_context_find_metadata (ctx, KIND_MODULE, ctx->scratch->str, ctx->scratch->len, &created);
  if (created)
    {
      PlanarEventMetadata *m = _planar_plane_context_get_metadata (ctx, md);

      _planar_derive_metadata_add_text (ctx, m, "hlo_module", facts->hlo_module.data, facts->hlo_module.len);
      if (facts->has_program_id)
        _planar_derive_metadata_add_uint (ctx, m, "program_id", facts->program_id);
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
          md = _planar_plane_context_find_metadata (ctx, KIND_HLO_OP, ctx->scratch->str,
                                                    ctx->scratch->len, &created);
          if (created)
            {
              PlanarEventMetadata *m = _planar_plane_context_get_metadata (ctx, md);

              m->display_name = _planar_derive_intern_len (ctx->self, part, sep - part);
              _planar_derive_metadata_add_text (ctx, m, "hlo_op", part, sep - part);
              if (facts->hlo_module.len > 0)
                _planar_derive_metadata_add_text (ctx, m, "hlo_module", facts->hlo_module.data,
                                                  facts->hlo_module.len);
              if (facts->has_program_id)
                _planar_derive_metadata_add_uint (ctx, m, "program_id", facts->program_id);
            }
          g_array_append_val (ctx->pool, md);
          value.n++;
        }
      part = sep + 2;
    }
  _planar_plane_context_cache_insert (ctx->hlo_cache, &key, &value);
  return g_hash_table_lookup (ctx->hlo_cache, &key);
}

const PlanarHloModule *
_planar_derive_find_hlo_module (const PlanarHloIndex *hlo,
                                const EventFacts     *facts)
{
  g_autofree char *name = NULL;

  if (hlo == NULL)
    return NULL;
  if (facts->has_program_id)
    return planar_hlo_index_find_module (hlo, facts->program_id);
  if (facts->hlo_module.len == 0)
    return NULL;
  name = g_strndup (facts->hlo_module.data, facts->hlo_module.len);
  return planar_hlo_index_find_module_by_name (hlo, name);
}

/* The instruction the innermost hlo_op level of @facts names, or else the
 * one kernel @kernel (the event's name, may be NULL) ran: a kernel of a
 * command buffer names the command buffer in hlo_op. */
const PlanarHloInstruction *
_planar_derive_find_hlo_instruction (const PlanarHloModule *module,
                                     const EventFacts      *facts,
                                     const char            *kernel)
{
  const char *name = facts->hlo_op.data;
  gsize len = facts->hlo_op.len;
  const PlanarHloInstruction *in;

  if (module == NULL)
    return NULL;
  for (gsize i = 0; i + 2 < facts->hlo_op.len; i++)
    if (facts->hlo_op.data[i] == ':' && facts->hlo_op.data[i + 1] == ':')
      {
        name = facts->hlo_op.data + i + 2;
        len = facts->hlo_op.len - i - 2;
      }
  in = planar_hlo_module_find_instruction (module, name, (gssize) len);
  if (in == NULL && kernel != NULL)
    in = planar_hlo_module_find_kernel_instruction (module, kernel, -1);
  return in;
}

/* _planar_derive_find_hlo_module(), remembering the last answer: a
 * stream's kernels come from a few programs in long runs. */
static const PlanarHloModule *
find_hlo_module (GpuPass          *gp,
                 const EventFacts *facts)
{
  if (gp->last_hlo_module != NULL && gp->last_hlo_has_pid == facts->has_program_id &&
      (facts->has_program_id ? gp->last_hlo_pid == facts->program_id
                             : _planar_derive_text_equal (gp->last_hlo_module_name, facts->hlo_module)))
    return gp->last_hlo_module;
  gp->last_hlo_module = _planar_derive_find_hlo_module (gp->hlo, facts);
  gp->last_hlo_has_pid = facts->has_program_id;
  gp->last_hlo_pid = facts->program_id;
  gp->last_hlo_module_name = facts->hlo_module;
  return gp->last_hlo_module;
}

/* XProf's symbol resolver: the framework op and source of the instruction
 * an XLA op's innermost hlo_op level names; NULL when it does not
 * resolve. */
static const HloSymbol *
resolve_symbol (DeriveContext    *dc,
                GpuPass          *gp,
                const EventFacts *facts,
                const char       *kernel)
{
  const PlanarHloModule *module;
  const PlanarHloInstruction *in;
  HloSymbol *symbol;

  if (gp->hlo == NULL)
    return NULL;
  module = find_hlo_module (gp, facts);
  in = _planar_derive_find_hlo_instruction (module, facts, kernel);
  if (in == NULL)
    return NULL;
  symbol = g_hash_table_lookup (gp->hlo_symbols, in);
  if (symbol == NULL)
    {
      g_autofree char *full = planar_hlo_instruction_dup_op_full_name (in);
      g_autofree char *source = planar_hlo_instruction_dup_source (module, in);

      symbol = g_new0 (HloSymbol, 1);
      symbol->full = full != NULL ? _planar_derive_intern (dc->self, full) : NULL;
      symbol->source = source != NULL ? _planar_derive_intern (dc->self, source) : NULL;
      g_hash_table_insert (gp->hlo_symbols, (gpointer) in, symbol);
    }
  return symbol;
}

/* XLA Modules and XLA Ops of one kernel (XProf's
 * DeriveEventsFromAnnotationsForLines). */
static void
add_kernel (DeriveContext        *dc,
            GpuPass              *gp,
            StreamLines          *sl,
            const EventFacts     *facts,
            const char           *kernel,
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
          /* XProf stops at the first parent it has seen as a parent: the
           * kernel's own range may come back once, as on a cycle 10 -> 20
           * -> 10 it walks 10, 20, 10 (the root being 10, not 20). */
          for (guint i = 1; i < gp->scope_chain->len; i++)
            cycle = cycle || g_array_index (gp->scope_chain, gint64, i) == id;
          if (cycle)
            break;
          g_array_append_val (gp->scope_chain, id);
        }
      module_scope.has = TRUE;
      module_scope.id = g_array_index (gp->scope_chain, gint64, gp->scope_chain->len - 1);
    }

  if (facts->hlo_module.len > 0)
    _planar_line_builder_expand_or_add (ctx, &sl->modules, 0, resolve_module (ctx, facts), start_ps, end_ps,
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
          _planar_line_builder_expand_or_add_levels (ctx, &sl->xla_ops,
                                                     &g_array_index (ctx->pool, guint32, levels->offset),
                                                     levels->n, start_ps, end_ps, group, scopes, ref);
        }
    }

  /* An XLA op's framework op and source come from its HLO instruction
   * (its tf_op is at most XProf's "XlaModule:" placeholder); other
   * kernels have theirs in tf_op. Asynchronous XLA ops (`_a`) overlap
   * the others and are left out of these two lines, as the TPU pass
   * does. */
  if (is_xla_op)
    {
      const HloSymbol *symbol = facts->is_async ? NULL : resolve_symbol (dc, gp, facts, kernel);
      static const Scope no_scope = { FALSE, 0 };

      if (symbol != NULL && symbol->full != NULL)
        {
          Text full = { symbol->full, strlen (symbol->full) };

          _planar_derive_add_framework_op (ctx, &sl->name_scope, &sl->framework_ops, full, start_ps, end_ps,
                                           group, ref);
        }
      if (symbol != NULL && symbol->source != NULL)
        {
          gboolean created;
          guint32 md = _planar_plane_context_find_metadata (ctx, KIND_SOURCE, symbol->source,
                                                            strlen (symbol->source), &created);

          _planar_line_builder_expand_or_add (ctx, &sl->source, 0, md, start_ps, end_ps, group, no_scope, ref);
        }
    }
  else if (facts->tf_op.len > 0)
    _planar_derive_add_framework_op (ctx, &sl->name_scope, &sl->framework_ops, facts->tf_op, start_ps, end_ps,
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

  _planar_derive_event_facts (dc, plane, event, &facts);
  if (gp->flows_wanted)
    _planar_derive_collect_flow_ends (dc, &facts, FALSE, TRUE, ref, start_ps);

  /* In a file without group ids, a kernel's group is its launch's, worked
   * out from the host's root events (planar-derive-groups.c). */
  if (!facts.has_group_id && facts.has_correlation_id && dc->launch_groups != NULL)
    facts.has_group_id = _planar_derive_groups_lookup (dc->launch_groups, facts.correlation_id,
                                                       &gp->group_cursor, &facts.group_id);
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
          md = _planar_plane_context_find_metadata (ctx, KIND_STEP, buf, strlen (buf), &created);
          if (created)
            {
              StepGroup sg = { md, group.id };

              _planar_derive_metadata_add_int (ctx, _planar_plane_context_get_metadata (ctx, md),
                                               "group_id", group.id);
              g_array_append_val (gp->step_groups, sg);
            }
          ctx->has_last_step = TRUE;
          ctx->last_step = group.id;
          ctx->last_step_md = md;
        }
      _planar_line_builder_expand_or_add (&gp->ctx, &gp->steps, 0, md, start_ps, end_ps, group, no_scope,
                                          ref);
    }

  slot = gp->slot[ref->track];
  if (gp->annotations && slot >= 0 && (facts.kernel || facts.graph_exec))
    add_kernel (dc, gp, &gp->streams[slot], &facts, planar_plane_get_event_name (plane, event, FALSE), ref, start_ps,
                end_ps, group);
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

void
_planar_derive_gpu_streams (const PlanarPlane *plane,
                            guint              n_file_tracks,
                            GArray            *out)
{
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (StreamOrder));

  /* XProf's streams are the plane's lines without a derived id, compute
   * streams first, then by number of events; at most 16 get lines. */
  for (guint t = 0; t < n_file_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];
      StreamOrder so = { 0 };

      if (planar_line_id_is_derived (track->id) || track->derived)
        continue;
      so.t = t;
      so.n = track->n_events + track->n_aggregated;
      so.compute = strstr (track->name, "Compute") != NULL;
      g_array_append_val (order, so);
    }
  g_array_sort (order, compare_streams);
  g_array_set_size (out, 0);
  for (guint k = 0; k < MIN (order->len, PLANAR_DERIVED_MAX_STREAMS); k++)
    g_array_append_val (out, g_array_index (order, StreamOrder, k).t);
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
      const char *gname = _planar_derive_group_name (dc, group_id);
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
      md = _planar_plane_context_add_metadata (ctx, _planar_derive_intern (dc->self, name), NULL);
      m = _planar_plane_context_get_metadata (ctx, md);
      m->display_name = m->name;
      _planar_derive_metadata_add_int (ctx, m, "group_id", group_id);
      _planar_derive_metadata_add_uint (ctx, m, "num_launches", lg->count);
      _planar_derive_metadata_add_double (ctx, m, "max_launch_time_us", (double) lg->max_ps / 1e6);
      _planar_derive_metadata_add_double (ctx, m, "avg_launch_time_us",
                                          (double) lg->sum_ps / (double) lg->count / 1e6);
      _planar_plane_context_add_event (ctx, b->events, lg->start_ps, lg->end_ps, md, group, &lg->first);
    }
}

void
_planar_gpu_pass_free (GpuPass *gp)
{
  for (guint k = 0; k < gp->n_streams; k++)
    {
      _planar_line_builder_clear (&gp->streams[k].name_scope);
      _planar_line_builder_clear (&gp->streams[k].framework_ops);
      _planar_line_builder_clear (&gp->streams[k].modules);
      _planar_line_builder_clear (&gp->streams[k].xla_ops);
      _planar_line_builder_clear (&gp->streams[k].source);
    }
  g_clear_pointer (&gp->hlo_symbols, g_hash_table_unref);
  _planar_line_builder_clear (&gp->steps);
  _planar_line_builder_clear (&gp->launch_stats);
  g_free (gp->streams);
  g_free (gp->slot);
  g_free (gp->use);
  g_array_unref (gp->step_groups);
  g_array_unref (gp->level_scopes);
  g_array_unref (gp->scope_chain);
  _planar_plane_context_clear (&gp->ctx);
  g_free (gp);
}

/* Sets up the pass over GPU plane @p: which lines to derive, and for
 * which streams. */
GpuPass *
_planar_gpu_pass_new (DeriveContext *dc,
                      guint          p,
                      guint          device)
{
  PlanarTrace *self = dc->self;
  PlanarPlane *plane = &self->planes[p];
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (guint));
  GpuPass *gp = g_new0 (GpuPass, 1);

  _planar_plane_context_init (&gp->ctx, self, p, dc->sources, _planar_derive_plane_quota (dc, p));
  gp->device = device;
  gp->n_file_tracks = plane->n_tracks;
  gp->start_ns = _planar_derive_plane_start_ns (plane, plane->n_lines);
  _planar_derive_find_native_lines (plane, gp->n_file_tracks, &gp->native);
  gp->annotations = !gp->native.framework && !gp->native.xla && !gp->native.source &&
                    !gp->native.device_derived &&
                    (_planar_derive_plane_has_stat (self, p, dc->names.kernel_details) ||
                     _planar_derive_plane_has_stat (self, p, dc->names.cuda_graph_exec_id));
  /* Groups worked out from the host's root events count as the file's. */
  gp->propagate_groups = dc->infer_groups || _planar_derive_plane_has_stat (self, p, dc->names.group_id);
  gp->steps_wanted = !gp->native.steps && gp->propagate_groups;
  gp->flows_wanted = _planar_derive_plane_wants_flows (dc, p);
  gp->use = g_new0 (gboolean, MAX (gp->n_file_tracks, 1));
  gp->slot = g_new (gint, MAX (gp->n_file_tracks, 1));
  gp->step_groups = g_array_new (FALSE, FALSE, sizeof (StepGroup));
  gp->level_scopes = g_array_new (FALSE, FALSE, sizeof (Scope));
  gp->scope_chain = g_array_new (FALSE, FALSE, sizeof (gint64));
  gp->hlo = g_atomic_pointer_get (&self->hlo_index);
  gp->hlo_symbols = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  _planar_line_builder_init (&gp->steps, self, PLANAR_LINE_ID_STEPS,
                             _planar_derive_intern (self, "Steps"), G_MAXUINT, FALSE);
  _planar_line_builder_init (&gp->launch_stats, self, PLANAR_LINE_ID_LAUNCH_STATS,
                             _planar_derive_intern (self, "Launch Stats"), G_MAXUINT, FALSE);

  for (guint t = 0; t < gp->n_file_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      gp->slot[t] = -1;
      if (planar_line_id_is_derived (track->id))
        continue;
      gp->use[t] = TRUE;
      gp->any_use = gp->any_use || track->n_events > 0;
    }
  if (gp->annotations)
    _planar_derive_gpu_streams (plane, gp->n_file_tracks, order);
  gp->n_streams = order->len;
  gp->streams = g_new0 (StreamLines, MAX (gp->n_streams, 1));
  for (guint k = 0; k < gp->n_streams; k++)
    {
      guint t = g_array_index (order, guint, k);
      const PlanarTrack *stream = &plane->tracks[t];
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
      g_autofree char *n_source = g_strconcat ("Source code", suffix, NULL);

      gp->slot[t] = (gint) k;
      _planar_line_builder_init (&sl->name_scope, self, base + PLANAR_DERIVED_OFFSET_FRAMEWORK_NAME_SCOPE,
                                 _planar_derive_intern (self, n_scope), t, FALSE);
      _planar_line_builder_init (&sl->framework_ops, self, base + PLANAR_DERIVED_OFFSET_FRAMEWORK_OPS,
                                 _planar_derive_intern (self, n_ops), t, FALSE);
      _planar_line_builder_init (&sl->modules, self, base + PLANAR_DERIVED_OFFSET_XLA_MODULES,
                                 _planar_derive_intern (self, n_modules), t, FALSE);
      _planar_line_builder_init (&sl->xla_ops, self, base + PLANAR_DERIVED_OFFSET_XLA_OPS,
                                 _planar_derive_intern (self, n_xla), t, FALSE);
      _planar_line_builder_init (&sl->source, self, base + PLANAR_DERIVED_OFFSET_SOURCE_CODE,
                                 _planar_derive_intern (self, n_source), t, FALSE);
      sl->name_scope.display_id = position + 1 + PLANAR_DERIVED_OFFSET_FRAMEWORK_NAME_SCOPE;
      sl->framework_ops.display_id = position + 1 + PLANAR_DERIVED_OFFSET_FRAMEWORK_OPS;
      sl->modules.display_id = position + 1 + PLANAR_DERIVED_OFFSET_XLA_MODULES;
      sl->xla_ops.display_id = position + 1 + PLANAR_DERIVED_OFFSET_XLA_OPS;
      /* XProf numbers the lines a stream uses (the five above, in id
       * order) one after the other: Source code comes right after XLA
       * Ops, though its id leaves a gap. */
      sl->source.display_id = sl->xla_ops.display_id + 1;
      _planar_line_builder_add_dependent (&sl->name_scope, &sl->framework_ops);
      _planar_line_builder_add_dependent (&sl->modules, &sl->name_scope);
      _planar_line_builder_add_dependent (&sl->modules, &sl->xla_ops);
    }
  return gp;
}

gboolean
_planar_gpu_pass_scan (DeriveContext  *dc,
                       GpuPass        *gp,
                       GError        **error)
{
  if (!gp->any_use || !(gp->annotations || gp->steps_wanted || gp->flows_wanted))
    return TRUE;
  return _planar_derive_visit_sorted (dc, gp->ctx.p, gp->use, gp->n_file_tracks, visit_gpu_event, gp, error);
}

/* Names the steps, adds the Launch Stats and publishes the lines, once
 * @dc holds the host's group names and launches. */
gboolean
_planar_gpu_pass_finish (DeriveContext  *dc,
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
      const char *gname = _planar_derive_group_name (dc, sg->group_id);
      PlanarEventMetadata *m = _planar_plane_context_get_metadata (&gp->ctx, sg->metadata);

      /* XProf's trace viewer shows a step by its step_name. */
      if (gname != NULL)
        {
          _planar_derive_metadata_add_text (&gp->ctx, m, "step_name", gname, strlen (gname));
          m->display_name = gname;
        }
    }

  for (guint k = 0; k < gp->n_streams; k++)
    {
      StreamLines *sl = &gp->streams[k];
      LineBuilder *lines[] = { &sl->name_scope, &sl->framework_ops, &sl->modules, &sl->xla_ops, &sl->source };

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

  return _planar_derive_publish_lines (dc, &gp->ctx, (LineBuilder **) builders->pdata, builders->len,
                                       (gint64 *) (gpointer) timestamps->data, error);
}
