/* planar-derive-tpu.c: the pass over a `/device:TPU:N` plane:
 * Framework Name Scope, Framework Ops and Source code from the ops'
 * `tf_op` and `source` stats, and the Host Offload rows
 * (planar-derive-offload.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include <string.h>

typedef struct
{
  PlaneContext ctx;
  LineBuilder  name_scope;
  LineBuilder  framework_ops;
  LineBuilder  source;
  gboolean     framework;
  gboolean     source_wanted;
  gboolean     flows_wanted;
  OffloadPass *offload;
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

  _planar_derive_event_facts (dc, tp->ctx.plane, event, &facts);
  /* Flows come from the profiler's own lines, as in XProf. */
  if (tp->flows_wanted && !planar_line_id_is_derived (tp->ctx.plane->tracks[ref->track].id))
    _planar_derive_collect_flow_ends (dc, &facts, FALSE, FALSE, ref, start_ps);
  /* Asynchronous ops overlap the others; XProf leaves them out. */
  if (facts.is_async)
    return TRUE;
  group.has = facts.has_group_id;
  group.id = facts.group_id;
  if (tp->framework && facts.tf_op.len > 0)
    _planar_derive_add_framework_op (&tp->ctx, &tp->name_scope, &tp->framework_ops, facts.tf_op,
                                     start_ps, end_ps, group, ref);
  if (tp->source_wanted && facts.source.len > 0)
    {
      gboolean created;
      guint32 md = _planar_plane_context_find_metadata (&tp->ctx, KIND_SOURCE, facts.source.data,
                                                        facts.source.len, &created);

      _planar_line_builder_expand_or_add (&tp->ctx, &tp->source, 0, md, start_ps, end_ps, group, no_scope,
                                          ref);
    }
  if (tp->offload != NULL)
    _planar_offload_pass_add (tp->offload, ref, event);
  return TRUE;
}

gboolean
_planar_derive_is_tensor_core_plane (const char *name)
{
  const char *rest;

  if (!g_str_has_prefix (name, "/device:TPU:"))
    return FALSE;
  for (rest = name + strlen ("/device:TPU:"); *rest != '\0'; rest++)
    if (!g_ascii_isdigit (*rest))
      return FALSE;
  return TRUE;
}

gboolean
_planar_derive_tpu_plane (DeriveContext  *dc,
                          guint           p,
                          GError        **error)
{
  PlanarTrace *self = dc->self;
  PlanarPlane *plane = &self->planes[p];
  guint n_file_tracks = plane->n_tracks;
  g_autofree gboolean *use = g_new (gboolean, MAX (n_file_tracks, 1));
  gint64 start_ns = _planar_derive_plane_start_ns (plane, plane->n_lines);
  g_autofree gint64 *timestamps = NULL;
  g_autofree LineBuilder **builders = NULL;
  guint n_builders;
  NativeLines native;
  TpuPass tp;
  gboolean ok = FALSE;

  memset (&tp, 0, sizeof tp);
  _planar_plane_context_init (&tp.ctx, self, p, dc->sources, _planar_derive_plane_quota (dc, p));
  _planar_derive_find_native_lines (plane, n_file_tracks, &native);
  tp.framework = !native.framework && _planar_derive_plane_has_stat (self, p, dc->names.tf_op);
  tp.source_wanted = !native.source && _planar_derive_plane_has_stat (self, p, dc->names.source);
  tp.flows_wanted = _planar_derive_plane_wants_flows (dc, p);
  if (!native.host_offload)
    tp.offload = _planar_offload_pass_new (&tp.ctx);
  _planar_line_builder_init (&tp.name_scope, self, PLANAR_LINE_ID_FRAMEWORK_NAME_SCOPE,
                             _planar_derive_intern (self, "Framework Name Scope"), G_MAXUINT, TRUE);
  _planar_line_builder_init (&tp.framework_ops, self, PLANAR_LINE_ID_FRAMEWORK_OPS,
                             _planar_derive_intern (self, "Framework Ops"), G_MAXUINT, TRUE);
  _planar_line_builder_init (&tp.source, self, PLANAR_LINE_ID_SOURCE_CODE,
                             _planar_derive_intern (self, "Source code"), G_MAXUINT, TRUE);
  _planar_line_builder_add_dependent (&tp.name_scope, &tp.framework_ops);

  /* Every line counts here, XLA's own (with derived ids) included: the
   * ops that carry tf_op are on the native `XLA Ops` line. */
  for (guint t = 0; t < n_file_tracks; t++)
    use[t] = TRUE;
  if (tp.framework || tp.source_wanted || tp.flows_wanted || tp.offload != NULL)
    if (!_planar_derive_visit_sorted (dc, p, use, n_file_tracks, visit_tpu_event, &tp, error))
      goto out;

  /* XProf's line order: the three above, then the Host Offload rows. */
  n_builders = 3 + _planar_offload_pass_get_n_rows (tp.offload);
  builders = g_new (LineBuilder *, n_builders);
  timestamps = g_new (gint64, n_builders);
  builders[0] = &tp.name_scope;
  builders[1] = &tp.framework_ops;
  builders[2] = &tp.source;
  for (guint i = 3; i < n_builders; i++)
    builders[i] = _planar_offload_pass_get_row (tp.offload, i - 3);
  for (guint i = 0; i < n_builders; i++)
    timestamps[i] = start_ns;
  ok = _planar_derive_publish_lines (dc, &tp.ctx, builders, n_builders, timestamps, error);

out:
  _planar_line_builder_clear (&tp.name_scope);
  _planar_line_builder_clear (&tp.framework_ops);
  _planar_line_builder_clear (&tp.source);
  g_clear_pointer (&tp.offload, _planar_offload_pass_free);
  _planar_plane_context_clear (&tp.ctx);
  return ok;
}
