/* planar-selection.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-selection.h"

#include <stdlib.h>

struct _PlanarSelection
{
  GObject         parent_instance;
  PlanarProfile  *profile;
  PlanarEventRef *events;
  gsize           n_events;
  gboolean        has_range;
  gint64          range_start_ps;
  gint64          range_end_ps;
  gboolean        has_bounds;
  gint64          bounds_start_ps;
  gint64          bounds_end_ps;
};

G_DEFINE_FINAL_TYPE (PlanarSelection, planar_selection, G_TYPE_OBJECT)

static int
compare_refs (const void *a,
              const void *b)
{
  return planar_event_ref_compare (a, b);
}

const PlanarEvent *
planar_event_ref_resolve (const PlanarEventRef *ref,
                          PlanarProfile        *profile,
                          PlanarTrace         **trace,
                          const PlanarPlane   **plane,
                          const PlanarTrack   **track)
{
  PlanarTrace *t;
  const PlanarPlane *p;
  const PlanarTrack *tr;

  g_return_val_if_fail (ref != NULL, NULL);
  g_return_val_if_fail (PLANAR_IS_PROFILE (profile), NULL);

  if (ref->trace >= planar_profile_get_n_traces (profile))
    return NULL;
  t = planar_profile_get_trace (profile, ref->trace);
  if (ref->plane >= planar_trace_get_n_planes (t))
    return NULL;
  p = planar_trace_get_plane (t, ref->plane);
  if (ref->track >= p->n_tracks || !planar_trace_is_track_ready (t, ref->plane, ref->track))
    return NULL;
  tr = &p->tracks[ref->track];
  if (ref->index >= tr->n_events)
    return NULL;
  if (trace != NULL)
    *trace = t;
  if (plane != NULL)
    *plane = p;
  if (track != NULL)
    *track = tr;
  return &tr->events[ref->index];
}

static void
planar_selection_finalize (GObject *object)
{
  PlanarSelection *self = (PlanarSelection *) object;

  g_clear_object (&self->profile);
  g_clear_pointer (&self->events, g_free);

  G_OBJECT_CLASS (planar_selection_parent_class)->finalize (object);
}

static void
planar_selection_class_init (PlanarSelectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = planar_selection_finalize;
}

static void
planar_selection_init (PlanarSelection *self)
{
}

static void
extend_bounds (PlanarSelection *self,
               gint64           start_ps,
               gint64           end_ps)
{
  if (!self->has_bounds || start_ps < self->bounds_start_ps)
    self->bounds_start_ps = start_ps;
  if (!self->has_bounds || end_ps > self->bounds_end_ps)
    self->bounds_end_ps = end_ps;
  self->has_bounds = TRUE;
}

PlanarSelection *
planar_selection_new (PlanarProfile        *profile,
                      const PlanarEventRef *events,
                      gsize                 n_events,
                      gboolean              has_range,
                      gint64                start_ps,
                      gint64                end_ps)
{
  PlanarSelection *self;
  gsize n = 0;

  g_return_val_if_fail (profile == NULL || PLANAR_IS_PROFILE (profile), NULL);
  g_return_val_if_fail (events != NULL || n_events == 0, NULL);
  g_return_val_if_fail (n_events == 0 || profile != NULL, NULL);

  self = g_object_new (PLANAR_TYPE_SELECTION, NULL);
  g_set_object (&self->profile, profile);

  if (n_events > 0)
    {
      self->events = g_memdup2 (events, n_events * sizeof (PlanarEventRef));
      qsort (self->events, n_events, sizeof (PlanarEventRef), compare_refs);
      for (gsize i = 0; i < n_events; i++)
        if (n == 0 || !planar_event_ref_equal (&self->events[n - 1], &self->events[i]))
          self->events[n++] = self->events[i];
      self->n_events = n;
    }

  if (has_range)
    {
      self->has_range = TRUE;
      self->range_start_ps = MIN (start_ps, end_ps);
      self->range_end_ps = MAX (start_ps, end_ps);
      extend_bounds (self, self->range_start_ps, self->range_end_ps);
    }
  for (gsize i = 0; i < self->n_events; i++)
    {
      const PlanarEvent *ev = planar_event_ref_resolve (&self->events[i], profile, NULL, NULL, NULL);

      if (ev != NULL)
        extend_bounds (self, ev->start_ps, ev->start_ps + ev->duration_ps);
    }
  return self;
}

PlanarSelection *
planar_selection_new_for_event (PlanarProfile        *profile,
                                const PlanarEventRef *event)
{
  g_return_val_if_fail (PLANAR_IS_PROFILE (profile), NULL);
  g_return_val_if_fail (event != NULL, NULL);

  return planar_selection_new (profile, event, 1, FALSE, 0, 0);
}

PlanarSelection *
planar_selection_new_for_range (PlanarProfile *profile,
                                gint64         start_ps,
                                gint64         end_ps)
{
  return planar_selection_new (profile, NULL, 0, TRUE, start_ps, end_ps);
}

PlanarProfile *
planar_selection_get_profile (PlanarSelection *self)
{
  g_return_val_if_fail (PLANAR_IS_SELECTION (self), NULL);
  return self->profile;
}

gboolean
planar_selection_is_empty (PlanarSelection *self)
{
  g_return_val_if_fail (PLANAR_IS_SELECTION (self), TRUE);
  return self->n_events == 0 && !self->has_range;
}

gsize
planar_selection_get_n_events (PlanarSelection *self)
{
  g_return_val_if_fail (PLANAR_IS_SELECTION (self), 0);
  return self->n_events;
}

const PlanarEventRef *
planar_selection_get_events (PlanarSelection *self,
                             gsize           *n_events)
{
  g_return_val_if_fail (PLANAR_IS_SELECTION (self), NULL);
  if (n_events != NULL)
    *n_events = self->n_events;
  return self->events;
}

gboolean
planar_selection_contains (PlanarSelection      *self,
                           const PlanarEventRef *event)
{
  g_return_val_if_fail (PLANAR_IS_SELECTION (self), FALSE);
  g_return_val_if_fail (event != NULL, FALSE);

  return self->n_events > 0 &&
         bsearch (event, self->events, self->n_events, sizeof (PlanarEventRef), compare_refs) != NULL;
}

gboolean
planar_selection_get_range (PlanarSelection *self,
                            gint64          *start_ps,
                            gint64          *end_ps)
{
  g_return_val_if_fail (PLANAR_IS_SELECTION (self), FALSE);
  if (start_ps != NULL)
    *start_ps = self->range_start_ps;
  if (end_ps != NULL)
    *end_ps = self->range_end_ps;
  return self->has_range;
}

gboolean
planar_selection_get_bounds (PlanarSelection *self,
                             gint64          *start_ps,
                             gint64          *end_ps)
{
  g_return_val_if_fail (PLANAR_IS_SELECTION (self), FALSE);
  if (start_ps != NULL)
    *start_ps = self->bounds_start_ps;
  if (end_ps != NULL)
    *end_ps = self->bounds_end_ps;
  return self->has_bounds;
}

const PlanarEvent *
planar_selection_resolve (PlanarSelection    *self,
                          gsize               index,
                          PlanarTrace       **trace,
                          const PlanarPlane **plane,
                          const PlanarTrack **track)
{
  g_return_val_if_fail (PLANAR_IS_SELECTION (self), NULL);
  g_return_val_if_fail (index < self->n_events, NULL);

  return planar_event_ref_resolve (&self->events[index], self->profile, trace, plane, track);
}
