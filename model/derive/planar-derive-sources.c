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
  return planar_spill_array_new (sizeof (DerivedSource), self->spill);
}

void
_planar_derive_sources_free (gpointer data)
{
  planar_spill_array_free (data);
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
  return _planar_derived_results_get_n_dropped (_planar_derived_results_get (self));
}

/* ------------------------------------------------------------------------ */
/* The cached index (planar-cache.c) */

void
_planar_trace_serialize_derived_sources (PlanarTrace    *self,
                                         guint           p,
                                         PlanarByteSink  sink,
                                         gpointer        data)
{
  PlanarSpillArray *sources = _planar_derived_results_get_sources (_planar_derived_results_get (self), p);

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
  sources = _planar_derive_sources_new (self);
  planar_spill_array_append (sources, data, n);
  for (gsize i = 0; i < n; i++)
    {
      const PlanarEventRef *ref = &planar_spill_array_index (sources, DerivedSource, i).ref;

      if (ref->plane >= self->n_planes || ref->track >= self->planes[ref->plane].n_tracks
          || ref->index >= self->planes[ref->plane].tracks[ref->track].n_events)
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
