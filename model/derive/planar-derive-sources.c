/* planar-derive-sources.c: the table of derived sources (which file
 * event each derived event comes from, and its group): the queries on it,
 * and its bytes in the cached index.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include <glib/gi18n-lib.h>

#include "planar-derive-private.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* The table */

PlanarSpillArray *
_planar_derive_sources_new (PlanarTrace *self)
{
  DerivedSources *sources = g_new0 (DerivedSources, 1);

  planar_spill_array_init (&sources->entries, sizeof (DerivedSource), self->spill);
  sources->groups = g_array_new (FALSE, FALSE, sizeof (gint64));
  return &sources->entries;
}

void
_planar_derive_sources_free (gpointer data)
{
  DerivedSources *sources = data;

  if (sources == NULL)
    return;
  planar_spill_array_clear (&sources->entries);
  g_array_unref (sources->groups);
  g_free (sources->group_slots);
  g_free (sources);
}

/* The file chooses its group ids: keyed (planar-hash-private.h), so that
 * none can be chosen to collide, as a multiplicative hash's could. */
static inline gsize
group_slot (gint64 group_id,
            gsize  mask)
{
  return (gsize) _planar_id_hash (&group_id) & mask;
}

guint32
_planar_derive_sources_intern_group (PlanarSpillArray *table,
                                     gint64            group_id)
{
  DerivedSources *sources = (DerivedSources *) table;
  const gint64 *groups = (const gint64 *) (gpointer) sources->groups->data;
  gsize mask, at;

  /* Consecutive events mostly share their group. */
  if (sources->groups->len > 0 && groups[sources->groups->len - 1] == group_id)
    return sources->groups->len - 1;
  if ((sources->groups->len + 1) * 2 > sources->n_group_slots)
    {
      gsize n = MAX (sources->n_group_slots * 2, 64);

      g_free (sources->group_slots);
      sources->group_slots = g_new0 (guint32, n);
      sources->n_group_slots = n;
      for (guint i = 0; i < sources->groups->len; i++)
        {
          for (at = group_slot (groups[i], n - 1); sources->group_slots[at] != 0; at = (at + 1) & (n - 1))
            _planar_trace_steps++;
          sources->group_slots[at] = i + 1;
        }
    }
  mask = sources->n_group_slots - 1;
  /* Each probe is a step of the load (_planar_trace_get_steps()). */
  for (at = group_slot (group_id, mask); sources->group_slots[at] != 0; at = (at + 1) & mask)
    {
      _planar_trace_steps++;
      if (groups[sources->group_slots[at] - 1] == group_id)
        return sources->group_slots[at] - 1;
    }
  /* A table has fewer entries than NO_GROUP (SOURCE_INDEX_MASK bounds
   * it lower still only in bits, so check). */
  if (sources->groups->len >= NO_GROUP - 1)
    return NO_GROUP;
  g_array_append_val (sources->groups, group_id);
  sources->group_slots[at] = sources->groups->len;
  return sources->groups->len - 1;
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

  if (!(event->flags & PLANAR_EVENT_DERIVED) || p > G_MAXUINT)
    return NULL;
  sources = _planar_derived_results_get_sources (_planar_derived_results_get (self), (guint) p);
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
  const DerivedSources *sources;
  g_autoptr(GHashTable) seen = NULL;
  PlanarStat stat = { 0 };

  if (src == NULL || src->group == NO_GROUP)
    return;
  sources = (const DerivedSources *) _planar_derived_results_get_sources (_planar_derived_results_get (self),
                                                                          (guint) (event->source >> SOURCE_PLANE_SHIFT));
  g_mutex_lock (&self->strings_lock);
  stat.name = planar_string_table_intern (self->strings, "group_id");
  g_mutex_unlock (&self->strings_lock);
  stat.metadata_id = -1;
  stat.kind = PLANAR_STAT_INT64;
  stat.v.i64 = g_array_index (sources->groups, gint64, src->group);
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
  if (src == NULL || src->plane == PLANAR_EVENT_REF_NONE)
    return FALSE;
  if (source != NULL)
    {
      source->plane = src->plane;
      source->trace = 0;
      source->track = src->track;
      source->index = src->index;
    }
  return TRUE;
}

guint
planar_trace_get_n_dropped_derived_lines (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);
  return _planar_derived_results_get_n_dropped (_planar_derived_results_get (self));
}

/* ------------------------------------------------------------------------ */
/* The cached index (planar-cache.c) */

/* The number of group ids (8 bytes), the group ids, then the entries as
 * they are in memory; nothing for a plane without derived events. */
void
_planar_trace_serialize_derived_sources (PlanarTrace    *self,
                                         guint           p,
                                         PlanarByteSink  sink,
                                         gpointer        data)
{
  DerivedSources *sources = (DerivedSources *) _planar_derived_results_get_sources (_planar_derived_results_get (self), p);
  guint64 n_groups;

  if (sources == NULL || sources->entries.len == 0)
    return;
  n_groups = sources->groups->len;
  sink (data, &n_groups, sizeof n_groups);
  sink (data, sources->groups->data, (gsize) n_groups * sizeof (gint64));
  sink (data, sources->entries.data, (gsize) sources->entries.len * sizeof (DerivedSource));
}

gboolean
_planar_trace_restore_derived_sources (PlanarTrace      *self,
                                       guint             p,
                                       gsize             len,
                                       PlanarByteSource  source,
                                       gpointer          source_data,
                                       GError          **error)
{
  guint64 n_groups = 0;
  gsize n = 0;
  PlanarSpillArray *sources;
  GArray *groups;
  const PlanarPlane *plane = &self->planes[p];

  if (len > 0)
    {
      if (len < sizeof n_groups || !source (source_data, &n_groups, sizeof n_groups))
        goto bad;
      if (n_groups > (len - sizeof n_groups) / sizeof (gint64) || n_groups >= NO_GROUP)
        goto bad;
      len -= sizeof n_groups;
      n = (len - n_groups * sizeof (gint64)) / sizeof (DerivedSource);
      if ((len - n_groups * sizeof (gint64)) % sizeof (DerivedSource) != 0 || n > SOURCE_INDEX_MASK)
        goto bad;
    }
  sources = _planar_derive_sources_new (self);
  /* Both tables are read straight into their own memory. */
  groups = ((DerivedSources *) sources)->groups;
  g_array_set_size (groups, (guint) n_groups);
  planar_spill_array_reserve (sources, n);
  if (!source (source_data, groups->data, (gsize) n_groups * sizeof (gint64))
      || !source (source_data, sources->data, n * sizeof (DerivedSource)))
    {
      _planar_derive_sources_free (sources);
      goto bad;
    }
  sources->len = n;
  for (gsize i = 0; i < n; i++)
    {
      const DerivedSource *src = &planar_spill_array_index (sources, DerivedSource, i);

      if (src->plane >= self->n_planes || src->track >= self->planes[src->plane].n_tracks
          || src->index >= self->planes[src->plane].tracks[src->track].n_events
          || (src->group != NO_GROUP && src->group >= n_groups))
        {
          _planar_derive_sources_free (sources);
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
            _planar_derive_sources_free (sources);
            goto bad;
          }
      }
  if (n == 0)
    g_clear_pointer (&sources, _planar_derive_sources_free);
  _planar_derived_results_set_n_planes (_planar_derive_attach (self), self->n_planes);
  _planar_derived_results_set_sources (_planar_derive_attach (self), p, sources);
  return TRUE;

bad:
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("inconsistent derived events in plane %u"), p);
  return FALSE;
}
