/* planar-derive-host.c: the host plane's share of the pass: flow
 * ends, the launches per GPU and step group (for Launch Stats), the root
 * events that name step groups and, in a file without group ids, the
 * events that make them (planar-derive-groups.c), read track by track in
 * parallel and merged in track order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include <string.h>

GHashTable **
_planar_derive_launch_tables_new (guint n_gpus)
{
  GHashTable **tables = g_new (GHashTable *, MAX (n_gpus, 1));

  for (guint i = 0; i < n_gpus; i++)
    tables[i] = g_hash_table_new_full (_planar_id_hash, _planar_id_equal, g_free, g_free);
  return tables;
}

void
_planar_derive_launch_tables_free (GHashTable **tables,
                                   guint        n_gpus)
{
  if (tables == NULL)
    return;
  for (guint i = 0; i < n_gpus; i++)
    g_hash_table_unref (tables[i]);
  g_free (tables);
}

static gboolean
is_implicit_root (const char *name)
{
  return strcmp (name, "FunctionRun") == 0 || strcmp (name, "SessionRun") == 0 ||
         strcmp (name, "RunGraph") == 0 || strcmp (name, "ExecutorState::Process") == 0;
}

/* What a host plane is read for: whether any of its events can carry a
 * flow end, a launch or a step group root. */
gboolean
_planar_derive_host_plane_wanted (DeriveContext *dc,
                                  guint          p)
{
  return _planar_derive_plane_wants_flows (dc, p) ||
         _planar_derive_plane_has_stat (dc->self, p, dc->names.group_id);
}

/* Merges the launch figures of @src into @dst (per GPU, group_id ->
 * LaunchGroup); @src comes from a later track, so it wins no tie. */
void
_planar_derive_merge_launches (GHashTable **dst,
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
void
_planar_derive_merge_group_roots (GHashTable *dst,
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

LaunchGroup *
_planar_derive_add_launch (DeriveContext        *dc,
                           guint                 device,
                           gint64                group_id,
                           LaunchGroup          *lg,
                           const PlanarEvent    *ev,
                           const PlanarEventRef *ref)
{
  if (lg == NULL)
    lg = g_hash_table_lookup (dc->launches[device], &group_id);
  if (lg == NULL)
    {
      lg = g_new0 (LaunchGroup, 1);
      lg->start_ps = ev->start_ps;
      lg->end_ps = ev->start_ps + ev->duration_ps;
      lg->first = *ref;
      g_hash_table_insert (dc->launches[device], g_memdup2 (&group_id, sizeof (gint64)), lg);
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
  return lg;
}

gboolean
_planar_derive_is_driver_call (const char *name)
{
  return g_str_has_prefix (name, "cu");
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
  root->name = _planar_derive_intern (dc->self, gname->str);
}

/* Reads one track of the host plane: flow ends, launches per GPU and step
 * group, and the root events that name step groups, into @dc's own tables
 * (merged in track order afterwards). */
gboolean
_planar_derive_scan_host_track (DeriveContext  *dc,
                                guint           p,
                                guint           t,
                                GError        **error)
{
  const PlanarPlane *plane = &dc->self->planes[p];
  const PlanarTrack *track = &plane->tracks[t];
  g_autoptr(GArray) group_stack = NULL;
  EventFacts facts;

  if (dc->group_nodes != NULL)
    group_stack = _planar_derive_group_track_begin (dc->group_nodes, p, t);
  for (gsize i = 0; i < track->n_events; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      const char *name = plane->metadata[ev->metadata].name;
      PlanarEventRef ref = { p, 0, t, (guint32) i };

      if (_planar_derive_check_cancelled (dc, error))
        return FALSE;
      _planar_derive_event_facts (dc, plane, ev, &facts);
      _planar_derive_collect_flow_ends (dc, &facts, TRUE, FALSE, &ref, ev->start_ps);

      /* XProf leaves out the driver calls (cuEventRecord, ...) that carry
       * the same stats as launches. */
      if (facts.has_device_id && facts.has_correlation_id && facts.has_group_id &&
          !_planar_derive_is_driver_call (name) && facts.device_id < dc->gpu_planes->len)
        _planar_derive_add_launch (dc, (guint) facts.device_id, facts.group_id, NULL, ev, &ref);
      if (facts.has_group_id && (facts.is_root || is_implicit_root (name)))
        add_group_root (dc, &facts, name, ev, &ref);
      if (group_stack != NULL)
        _planar_derive_group_node_add (dc, group_stack, &facts, name, ev, &ref);
    }
  return TRUE;
}

/* The name of group @group_id for step names, if a root event named it. */
const char *
_planar_derive_group_name (DeriveContext *dc,
                           gint64         group_id)
{
  GroupRoot *root = g_hash_table_lookup (dc->group_roots, &group_id);

  return root != NULL ? root->name : NULL;
}
