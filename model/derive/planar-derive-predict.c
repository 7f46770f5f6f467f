/* planar-derive-predict.c: which lines the derive pass will add to a
 * plane, told before it runs (planar_trace_predict_derived_lines()).
 *
 * A viewer shows the file's tracks as soon as they are decoded and the
 * derived lines only after the pass; keeping room for the lines predicted
 * here keeps every row below them still when they arrive. The rules are
 * the passes' own (planar-derive-gpu.c, planar-derive-tpu.c), read from
 * what is known before the pass: the file's lines, the stat names the
 * planes define, and the stats of the first events of each stream.
 *
 * One table: a predictor per kind of plane. A pass that derives a new kind
 * of line adds its rule to its plane's predictor (or a new row to the
 * table), beside the pass. The TPU's Host Offload rows are counted by
 * the offload pairing itself (planar-derive-offload.c), the counter
 * series by planar-counters.c's own rules; both read more than a sample,
 * but only the events they are made of.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include "planar-counters-private.h"

#include <string.h>

/* How many events of a stream are read for the annotations its lines come
 * from: kernels of one stream are annotated alike, so the first few tell.
 * A stream whose first few carry none (a warm-up before the annotated
 * program) is read on to its first annotated event, and as many after it,
 * when the plane defines the stats the annotations use, up to its
 * SAMPLE_REACH-th event: the timeline predicts on the main thread, and a
 * stream that carries none at all is not read whole. */
#define SAMPLE_EVENTS 256
#define SAMPLE_REACH  (64 * SAMPLE_EVENTS)

typedef struct
{
  DeriveContext dc;
  guint         p;
  GArray       *out;
} Prediction;

static void
add_line (Prediction            *pr,
          PlanarDerivedLineKind  kind,
          gint64                 id,
          gint64                 display_id,
          guint                  source_track,
          const char            *name,
          guint                  n_depths)
{
  PlanarDerivedLinePrediction line = { 0 };

  line.n_depths = MAX (n_depths, 1);

  line.kind = kind;
  line.id = id;
  line.display_id = display_id;
  line.source_track = source_track;
  line.name = _planar_derive_intern (pr->dc.self, name);
  g_array_append_val (pr->out, line);
}

/* What the kernels of a stream carry, from its first events. */
typedef struct
{
  gboolean module;
  gboolean xla_op;
  gboolean framework;
  gboolean name_scope;
  gboolean source;
  gboolean group;
  /* The most levels seen: "::"-separated parts of an hlo_op, name scopes
   * of a framework op. */
  guint    hlo_levels;
  guint    scope_levels;
  /* TPU: the most nesting depths of a track whose ops carry framework
   * ops (the Framework Ops line nests as they do). */
  guint    framework_depths;
} StreamFacts;

/* As resolve_hlo_op() in planar-derive-gpu.c: the non-empty
 * "::"-separated parts. */
static guint
count_hlo_levels (Text hlo_op)
{
  const char *part = hlo_op.data, *end = hlo_op.data + hlo_op.len;
  guint n = 0;

  while (part <= end && n < MAX_LEVELS)
    {
      const char *sep = part;

      while (sep + 1 < end && !(sep[0] == ':' && sep[1] == ':'))
        sep++;
      if (sep + 1 >= end)
        sep = end;
      if (sep > part)
        n++;
      part = sep + 2;
    }
  return n;
}

/* A framework op @full (XProf's "op_name:op_type") seen on a stream. */
static void
note_framework_op (StreamFacts *sf,
                   const char  *full,
                   gsize        len)
{
  guint scopes = _planar_derive_op_n_scopes (full, len);

  sf->framework = TRUE;
  sf->name_scope = sf->name_scope || scopes > 0;
  sf->scope_levels = MAX (sf->scope_levels, scopes);
}

/* Whether an event of plane @p may carry an annotation the derived lines
 * come from: whether the plane defines one of their stats. */
static gboolean
may_annotate (Prediction *pr)
{
  const StatNames *names = &pr->dc.names;

  return _planar_derive_plane_has_stat (pr->dc.self, pr->p, names->hlo_op) ||
         _planar_derive_plane_has_stat (pr->dc.self, pr->p, names->hlo_module) ||
         _planar_derive_plane_has_stat (pr->dc.self, pr->p, names->tf_op) ||
         _planar_derive_plane_has_stat (pr->dc.self, pr->p, names->source) ||
         _planar_derive_plane_has_stat (pr->dc.self, pr->p, names->group_id);
}

/* Adds to @sf what the first events of @track carry: on a GPU (@gpu) its
 * kernels' annotations, on a TPU its ops' (async ones left out). */
static void
sample_track (Prediction        *pr,
              const PlanarPlane *plane,
              const PlanarTrack *track,
              gboolean           gpu,
              StreamFacts       *sf)
{
  gsize n = MIN (track->n_events, (gsize) SAMPLE_EVENTS);
  const PlanarHloIndex *hlo = gpu ? g_atomic_pointer_get (&pr->dc.self->hlo_index) : NULL;
  gboolean annotated = FALSE, may = may_annotate (pr);

  for (gsize i = 0; i < n; i++)
    {
      EventFacts facts;

      /* Nothing annotated yet: one more (see SAMPLE_EVENTS). */
      if (i + 1 == n && !annotated && may && n < track->n_events && n < SAMPLE_REACH)
        n++;
      _planar_derive_event_facts (&pr->dc, plane, &track->events[i], &facts);
      sf->group = sf->group || facts.has_group_id;
      if (!annotated && (facts.hlo_op.len > 0 || facts.hlo_module.len > 0 || facts.tf_op.len > 0 ||
                         facts.source.len > 0 || facts.has_group_id))
        {
          annotated = TRUE;
          n = MIN (track->n_events, MAX (n, i + SAMPLE_EVENTS));
        }
      if (gpu && !facts.kernel && !facts.graph_exec)
        continue;
      if (!gpu && facts.is_async)
        continue;
      if (!gpu && facts.tf_op.len > 0)
        sf->framework_depths = MAX (sf->framework_depths, track->max_depth + 1);
      sf->module = sf->module || (gpu && facts.hlo_module.len > 0);
      if (gpu && facts.hlo_op.len > 0)
        {
          guint levels = count_hlo_levels (facts.hlo_op);

          sf->xla_op = sf->xla_op || levels > 0;
          sf->hlo_levels = MAX (sf->hlo_levels, levels);
        }
      sf->source = sf->source || (!gpu && facts.source.len > 0);
      /* As the GPU pass: a kernel of an XLA op takes its framework op and
       * source from its HLO instruction (when the HLO has been read and the
       * op is not asynchronous), never from its tf_op. */
      if (gpu && facts.hlo_op.len > 0)
        {
          const PlanarHloModule *module = NULL;
          const PlanarHloInstruction *in = NULL;

          if (!facts.is_async)
            {
              module = _planar_derive_find_hlo_module (hlo, &facts);
              in = _planar_derive_find_hlo_instruction (module, &facts,
                                                        planar_plane_get_event_name (plane, &track->events[i], FALSE));
            }
          if (in != NULL)
            {
              g_autofree char *full = planar_hlo_instruction_dup_op_full_name (in);
              g_autofree char *source = planar_hlo_instruction_dup_source (module, in);

              note_framework_op (sf, full, strlen (full));
              sf->source = sf->source || source != NULL;
            }
          continue;
        }
      if (facts.tf_op.len > 0)
        note_framework_op (sf, facts.tf_op.data, facts.tf_op.len);
    }
}

static gboolean
is_gpu_plane (const char *name)
{
  return g_str_has_prefix (name, "/device:GPU:");
}

/* As _planar_gpu_pass_new() and _planar_gpu_pass_finish(). */
static void
predict_gpu (Prediction *pr)
{
  PlanarTrace *self = pr->dc.self;
  const PlanarPlane *plane = &self->planes[pr->p];
  const StatNames *names = &pr->dc.names;
  g_autoptr(GArray) streams = g_array_new (FALSE, FALSE, sizeof (guint));
  const PlanarPlane *host = planar_trace_find_plane (self, "/host:CPU");
  NativeLines native;
  guint n_file_tracks = 0;
  gboolean any_use = FALSE, annotations, grouped;

  /* The file's tracks come first; derived ones (already there in part
   * while the pass publishes) follow them. */
  while (n_file_tracks < plane->n_tracks && !plane->tracks[n_file_tracks].derived)
    n_file_tracks++;
  for (guint t = 0; t < n_file_tracks; t++)
    any_use = any_use || (!planar_line_id_is_derived (plane->tracks[t].id) && plane->tracks[t].n_events > 0);
  if (!any_use)
    return;
  _planar_derive_find_native_lines (plane, n_file_tracks, &native);
  annotations = !native.framework && !native.xla && !native.source && !native.device_derived &&
                (_planar_derive_plane_has_stat (self, pr->p, names->kernel_details) ||
                 _planar_derive_plane_has_stat (self, pr->p, names->cuda_graph_exec_id));
  if (annotations)
    _planar_derive_gpu_streams (plane, n_file_tracks, streams);

  for (guint k = 0; k < streams->len; k++)
    {
      guint t = g_array_index (streams, guint, k);
      const PlanarTrack *stream = &plane->tracks[t];
      gint64 base = PLANAR_LINE_ID_DEVICE_DERIVED_MIN + (gint64) k * PLANAR_DERIVED_LINES_PER_STREAM;
      gint64 position = 1 + (gint64) k * PLANAR_DERIVED_LINES_PER_STREAM;
      /* The display ids as the GPU pass gives them: Source code comes
       * right after XLA Ops. */
      static const struct
      {
        PlanarDerivedLineKind kind;
        gint64                offset;
        gint64                display_offset;
        const char           *name;
      } kinds[] = {
        { PLANAR_DERIVED_LINE_FRAMEWORK_NAME_SCOPE, PLANAR_DERIVED_OFFSET_FRAMEWORK_NAME_SCOPE,
          PLANAR_DERIVED_OFFSET_FRAMEWORK_NAME_SCOPE, "Framework Name Scope" },
        { PLANAR_DERIVED_LINE_FRAMEWORK_OPS, PLANAR_DERIVED_OFFSET_FRAMEWORK_OPS,
          PLANAR_DERIVED_OFFSET_FRAMEWORK_OPS, "Framework Ops" },
        { PLANAR_DERIVED_LINE_XLA_MODULES, PLANAR_DERIVED_OFFSET_XLA_MODULES,
          PLANAR_DERIVED_OFFSET_XLA_MODULES, "XLA Modules" },
        { PLANAR_DERIVED_LINE_XLA_OPS, PLANAR_DERIVED_OFFSET_XLA_OPS,
          PLANAR_DERIVED_OFFSET_XLA_OPS, "XLA Ops" },
        { PLANAR_DERIVED_LINE_SOURCE_CODE, PLANAR_DERIVED_OFFSET_SOURCE_CODE,
          PLANAR_DERIVED_OFFSET_XLA_OPS + 1, "Source code" },
      };
      StreamFacts sf = { 0 };

      sample_track (pr, plane, stream, TRUE, &sf);
      for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
        {
          g_autofree char *name = NULL;
          gboolean wanted;
          guint n_depths = 1;

          switch (kinds[i].kind)
            {
            case PLANAR_DERIVED_LINE_FRAMEWORK_NAME_SCOPE:
              wanted = sf.name_scope;
              n_depths = sf.scope_levels;
              break;
            case PLANAR_DERIVED_LINE_FRAMEWORK_OPS:
              wanted = sf.framework;
              break;
            case PLANAR_DERIVED_LINE_XLA_MODULES:
              wanted = sf.module;
              break;
            case PLANAR_DERIVED_LINE_XLA_OPS:
              wanted = sf.xla_op;
              n_depths = sf.hlo_levels;
              break;
            case PLANAR_DERIVED_LINE_SOURCE_CODE:
              wanted = sf.source;
              break;
            case PLANAR_DERIVED_LINE_STEPS:
            case PLANAR_DERIVED_LINE_LAUNCH_STATS:
            default:
              wanted = FALSE;
              break;
            }
          if (!wanted)
            continue;
          name = g_strdup_printf ("%s - from #%" G_GINT64_FORMAT, kinds[i].name, stream->id);
          add_line (pr, kinds[i].kind, base + kinds[i].offset, position + 1 + kinds[i].display_offset, t, name,
                    n_depths);
        }
    }

  /* Steps: any event of a stream with a group; in a file without group
   * ids whose host has root events, kernels a launch can reach
   * (planar-derive-groups.c). */
  grouped = _planar_derive_groups_wanted (self, names);
  if (!native.steps && grouped && host != NULL &&
      _planar_derive_plane_has_stat (self, pr->p, names->correlation_id) &&
      _planar_derive_plane_has_stat (self, (guint) (host - self->planes), names->correlation_id))
    add_line (pr, PLANAR_DERIVED_LINE_STEPS, PLANAR_LINE_ID_STEPS, PLANAR_LINE_ID_STEPS, G_MAXUINT, "Steps", 1);
  else if (!native.steps && _planar_derive_plane_has_stat (self, pr->p, names->group_id))
    {
      StreamFacts sf = { 0 };

      for (guint t = 0; t < n_file_tracks && !sf.group; t++)
        if (!planar_line_id_is_derived (plane->tracks[t].id))
          sample_track (pr, plane, &plane->tracks[t], TRUE, &sf);
      if (sf.group)
        add_line (pr, PLANAR_DERIVED_LINE_STEPS, PLANAR_LINE_ID_STEPS, PLANAR_LINE_ID_STEPS, G_MAXUINT, "Steps", 1);
    }

  /* Launches are host events with a device, a correlation and a group. */
  if (!native.launch_stats && host != NULL)
    {
      guint h = (guint) (host - self->planes);

      if (_planar_derive_plane_has_stat (self, h, names->device_id) &&
          _planar_derive_plane_has_stat (self, h, names->correlation_id) &&
          (grouped || _planar_derive_plane_has_stat (self, h, names->group_id)))
        add_line (pr, PLANAR_DERIVED_LINE_LAUNCH_STATS, PLANAR_LINE_ID_LAUNCH_STATS,
                  PLANAR_LINE_ID_LAUNCH_STATS, G_MAXUINT, "Launch Stats", 1);
    }
}

/* As _planar_derive_tpu_plane(): every line of the plane counts. */
static void
predict_tpu (Prediction *pr)
{
  PlanarTrace *self = pr->dc.self;
  const PlanarPlane *plane = &self->planes[pr->p];
  NativeLines native;
  StreamFacts sf = { 0 };
  guint n_file_tracks = 0;
  gboolean framework, source;

  while (n_file_tracks < plane->n_tracks && !plane->tracks[n_file_tracks].derived)
    n_file_tracks++;
  _planar_derive_find_native_lines (plane, n_file_tracks, &native);
  framework = !native.framework && _planar_derive_plane_has_stat (self, pr->p, pr->dc.names.tf_op);
  source = !native.source && _planar_derive_plane_has_stat (self, pr->p, pr->dc.names.source);
  if (framework || source)
    for (guint t = 0; t < n_file_tracks; t++)
      sample_track (pr, plane, &plane->tracks[t], FALSE, &sf);
  if (framework && sf.name_scope)
    add_line (pr, PLANAR_DERIVED_LINE_FRAMEWORK_NAME_SCOPE, PLANAR_LINE_ID_FRAMEWORK_NAME_SCOPE,
              PLANAR_LINE_ID_FRAMEWORK_NAME_SCOPE, G_MAXUINT, "Framework Name Scope", sf.scope_levels);
  /* Framework ops nest as the ops they come from. */
  if (framework && sf.framework)
    add_line (pr, PLANAR_DERIVED_LINE_FRAMEWORK_OPS, PLANAR_LINE_ID_FRAMEWORK_OPS,
              PLANAR_LINE_ID_FRAMEWORK_OPS, G_MAXUINT, "Framework Ops", sf.framework_depths);
  if (source && sf.source)
    add_line (pr, PLANAR_DERIVED_LINE_SOURCE_CODE, PLANAR_LINE_ID_SOURCE_CODE, PLANAR_LINE_ID_SOURCE_CODE,
              G_MAXUINT, "Source code", 1);
  /* The Host Offload rows, after those (planar-derive-tpu.c). */
  if (!native.host_offload)
    {
      guint n_rows = _planar_offload_predict_n_rows (&pr->dc, pr->p);

      for (guint i = 0; i < n_rows; i++)
        {
          PlanarDerivedLinePrediction line = { 0 };

          line.kind = PLANAR_DERIVED_LINE_HOST_OFFLOAD;
          line.id = line.display_id = PLANAR_LINE_ID_HOST_OFFLOAD_MIN + i;
          line.source_track = G_MAXUINT;
          line.name = _planar_offload_row_name (self, i);
          line.n_depths = 1;
          g_array_append_val (pr->out, line);
        }
    }
}

/* As _planar_counter_set_build(): the series of the plane's `_counters_`
 * tracks, after its lines. */
static void
predict_counters (Prediction *pr)
{
  g_autoptr(GArray) tracks = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  _planar_counter_predict_series (pr->dc.self, pr->p, tracks, names);
  for (guint i = 0; i < names->len; i++)
    {
      PlanarDerivedLinePrediction line = { 0 };

      line.kind = PLANAR_DERIVED_LINE_COUNTER;
      line.source_track = g_array_index (tracks, guint, i);
      line.name = g_ptr_array_index (names, i);
      line.n_depths = 1;
      g_array_append_val (pr->out, line);
    }
}

static gboolean
is_host_plane (const char *name)
{
  return g_str_has_prefix (name, "/host:CPU");
}

/* As _planar_derive_xla_cpu_plane(): per thread whose events carry their
 * own hlo_module (runtime calls, with a correlation_id, left out), its
 * Framework Ops, Framework Name Scope and XLA Modules lines. */
static void
predict_host (Prediction *pr)
{
  PlanarTrace *self = pr->dc.self;
  const PlanarPlane *plane = &self->planes[pr->p];
  const StatNames *names = &pr->dc.names;
  guint n_file_tracks = 0;

  if (!_planar_derive_xla_cpu_wanted (&pr->dc, pr->p))
    return;
  while (n_file_tracks < plane->n_tracks && !plane->tracks[n_file_tracks].derived)
    n_file_tracks++;
  for (guint t = 0; t < n_file_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];
      gsize n = MIN (track->n_events, (gsize) SAMPLE_EVENTS);
      gboolean module = FALSE, framework = FALSE;
      guint scopes = 0, line = t;
      gint64 base;
      g_autofree char *ops = NULL, *scope = NULL, *modules = NULL;

      for (gsize i = 0; i < n; i++)
        {
          Text mod = { NULL, 0 }, tf_op = { NULL, 0 };
          gboolean launch = FALSE;

          g_array_set_size (pr->dc.stats, 0);
          if (planar_trace_get_event_stats (self, plane, &track->events[i], pr->dc.stats, NULL) == 0)
            continue;
          for (guint k = 0; k < pr->dc.stats->len; k++)
            {
              const PlanarStat *stat = &g_array_index (pr->dc.stats, PlanarStat, k);
              gboolean text = !stat->from_metadata &&
                              (stat->kind == PLANAR_STAT_STRING || stat->kind == PLANAR_STAT_REF);

              if (stat->name == names->hlo_module && text)
                mod = (Text) { stat->str.data, stat->str.len };
              else if (stat->name == names->tf_op && text)
                tf_op = (Text) { stat->str.data, stat->str.len };
              else if (stat->name == names->correlation_id)
                launch = TRUE;
            }
          if (mod.len == 0 || launch)
            continue;
          module = TRUE;
          if (tf_op.len > 0)
            {
              framework = TRUE;
              scopes = MAX (scopes, _planar_derive_op_n_scopes (tf_op.data, tf_op.len));
            }
        }
      if (!module)
        continue;
      /* The thread's first line numbers its ids. */
      for (guint l = 0; l < plane->n_lines; l++)
        if (!plane->lines[l].derived && plane->lines[l].track == t)
          {
            line = l;
            break;
          }
      base = PLANAR_LINE_ID_HOST_XLA_MIN + (gint64) line * PLANAR_HOST_XLA_LINES_PER_THREAD;
      ops = g_strconcat (track->name, "-Framework Ops", NULL);
      scope = g_strconcat (track->name, "-Framework Name Scope", NULL);
      modules = g_strconcat (track->name, "-XLA Modules", NULL);
      if (framework)
        add_line (pr, PLANAR_DERIVED_LINE_FRAMEWORK_OPS, base + PLANAR_HOST_XLA_OFFSET_FRAMEWORK_OPS,
                  base + PLANAR_HOST_XLA_OFFSET_FRAMEWORK_OPS, t, ops, 1);
      if (scopes > 0)
        add_line (pr, PLANAR_DERIVED_LINE_FRAMEWORK_NAME_SCOPE, base + PLANAR_HOST_XLA_OFFSET_FRAMEWORK_NAME_SCOPE,
                  base + PLANAR_HOST_XLA_OFFSET_FRAMEWORK_NAME_SCOPE, t, scope, scopes);
      add_line (pr, PLANAR_DERIVED_LINE_XLA_MODULES, base + PLANAR_HOST_XLA_OFFSET_XLA_MODULES,
                base + PLANAR_HOST_XLA_OFFSET_XLA_MODULES, t, modules, 1);
    }
}

/* The table: which planes get derived lines, and how to tell which. */
static const struct
{
  gboolean (*applies) (const char *plane_name);
  void     (*predict) (Prediction *pr);
} predictors[] = {
  { is_gpu_plane, predict_gpu },
  { _planar_derive_is_tensor_core_plane, predict_tpu },
  { is_host_plane, predict_host },
};

GArray *
planar_trace_predict_derived_lines (PlanarTrace *self,
                                    guint        plane)
{
  GArray *out;
  Prediction pr;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);

  out = g_array_new (FALSE, TRUE, sizeof (PlanarDerivedLinePrediction));
  g_return_val_if_fail (plane < self->n_planes, out);

  memset (&pr, 0, sizeof pr);
  pr.dc.self = self;
  pr.dc.stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  pr.p = plane;
  pr.out = out;
  _planar_derive_lookup_stat_names (self, &pr.dc.names);
  for (guint i = 0; i < G_N_ELEMENTS (predictors); i++)
    if (predictors[i].applies (self->planes[plane].name))
      {
        predictors[i].predict (&pr);
        break;
      }
  predict_counters (&pr);
  g_array_unref (pr.dc.stats);
  _planar_derive_clear_facts (&pr.dc);
  return out;
}
