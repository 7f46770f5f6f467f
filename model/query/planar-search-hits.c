/* planar-search-hits.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-search-hits.h"

#include <math.h>

struct _PlanarSearchHitItem
{
  GObject       parent_instance;
  PlanarSearch *search;
  guint64       index;
};

G_DEFINE_FINAL_TYPE (PlanarSearchHitItem, planar_search_hit, G_TYPE_OBJECT)

static void
planar_search_hit_finalize (GObject *object)
{
  PlanarSearchHitItem *self = PLANAR_SEARCH_HIT (object);

  g_clear_object (&self->search);
  G_OBJECT_CLASS (planar_search_hit_parent_class)->finalize (object);
}

static void
planar_search_hit_class_init (PlanarSearchHitItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = planar_search_hit_finalize;
}

static void
planar_search_hit_init (PlanarSearchHitItem *self)
{
}

guint64
planar_search_hit_get_index (PlanarSearchHitItem *self)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH_HIT (self), 0);
  return self->index;
}

const PlanarSearchHit *
planar_search_hit_get_hit (PlanarSearchHitItem *self)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH_HIT (self), NULL);
  return planar_search_get_hit (self->search, self->index);
}

const char *
planar_search_hit_get_name (PlanarSearchHitItem *self)
{
  const PlanarPlane *plane;
  const PlanarEvent *event;

  g_return_val_if_fail (PLANAR_IS_SEARCH_HIT (self), NULL);
  event = planar_search_resolve_hit (self->search, planar_search_get_hit (self->search, self->index), NULL,
                                     &plane, NULL);
  return planar_plane_get_event_name (plane, event, TRUE);
}

char *
planar_search_hit_dup_where (PlanarSearchHitItem *self)
{
  PlanarTrace *trace;
  const PlanarPlane *plane;
  const PlanarTrack *track;

  g_return_val_if_fail (PLANAR_IS_SEARCH_HIT (self), NULL);
  planar_search_resolve_hit (self->search, planar_search_get_hit (self->search, self->index), &trace, &plane,
                             &track);
  if (planar_search_get_n_traces (self->search) > 1)
    return g_strdup_printf ("%s · %s / %s", planar_trace_get_host_name (trace), plane->name, track->display_name);
  return g_strdup_printf ("%s / %s", plane->name, track->display_name);
}

struct _PlanarSearchHits
{
  GObject       parent_instance;
  PlanarSearch *search;
};

static void planar_search_hits_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PlanarSearchHits, planar_search_hits, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, planar_search_hits_list_model_init))

static GType
get_item_type (GListModel *model)
{
  return PLANAR_TYPE_SEARCH_HIT;
}

static guint
get_n_items (GListModel *model)
{
  PlanarSearchHits *self = PLANAR_SEARCH_HITS (model);

  if (self->search == NULL)
    return 0;
  return (guint) MIN (planar_search_get_n_hits (self->search), (guint64) G_MAXUINT);
}

static gpointer
get_item (GListModel *model,
          guint       position)
{
  PlanarSearchHits *self = PLANAR_SEARCH_HITS (model);
  PlanarSearchHitItem *item;

  if (position >= get_n_items (model))
    return NULL;
  item = g_object_new (PLANAR_TYPE_SEARCH_HIT, NULL);
  item->search = g_object_ref (self->search);
  item->index = position;
  return item;
}

static void
planar_search_hits_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static void
planar_search_hits_finalize (GObject *object)
{
  g_clear_object (&PLANAR_SEARCH_HITS (object)->search);
  G_OBJECT_CLASS (planar_search_hits_parent_class)->finalize (object);
}

static void
planar_search_hits_class_init (PlanarSearchHitsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = planar_search_hits_finalize;
}

static void
planar_search_hits_init (PlanarSearchHits *self)
{
}

PlanarSearchHits *
planar_search_hits_new (PlanarSearch *search)
{
  PlanarSearchHits *self;

  g_return_val_if_fail (search == NULL || planar_search_is_completed (search), NULL);

  self = g_object_new (PLANAR_TYPE_SEARCH_HITS, NULL);
  if (search != NULL)
    self->search = g_object_ref (search);
  return self;
}

PlanarSearch *
planar_search_hits_get_search (PlanarSearchHits *self)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH_HITS (self), NULL);
  return self->search;
}

/* ------------------------------------------------------------------------
 * PlanarSearchHitIndex
 * ------------------------------------------------------------------------ */

typedef struct
{
  gint64  start_ps;
  gint64  end_ps;
  /* The largest end of this hit and the ones before it at its depth:
   * non-decreasing, so that the first hit that can meet a window is found
   * by binary search even when hits of one depth overlap. */
  gint64  max_end_ps;
  guint64 event;
} IndexedHit;

G_STATIC_ASSERT (sizeof (IndexedHit) == 32);

/* One track's hits: those at depth d are hits[depth_start[d]] to
 * hits[depth_start[d + 1] - 1], in time order. */
typedef struct
{
  guint       n_depths;
  guint64    *depth_start;
  IndexedHit *hits;
  /* While building: how many hits were placed. */
  guint64     n_hits;
} TrackHits;

struct _PlanarSearchHitIndex
{
  gatomicrefcount  ref_count;
  PlanarSearch    *search;
  /* TrackKey to TrackHits. */
  GHashTable      *tracks;
};

typedef struct
{
  guint trace;
  guint plane;
  guint track;
} TrackKey;

static guint
track_key_hash (gconstpointer key)
{
  const TrackKey *k = key;

  return (k->trace * 1000003u) ^ (k->plane * 8191u) ^ k->track;
}

static gboolean
track_key_equal (gconstpointer a,
                 gconstpointer b)
{
  const TrackKey *ka = a, *kb = b;

  return ka->trace == kb->trace && ka->plane == kb->plane && ka->track == kb->track;
}

static void
track_hits_free (gpointer data)
{
  TrackHits *hits = data;

  g_free (hits->depth_start);
  g_free (hits->hits);
  g_free (hits);
}

static TrackHits *
lookup_track (PlanarSearchHitIndex *self,
              guint                 trace,
              guint                 plane,
              guint                 track)
{
  TrackKey key = { trace, plane, track };

  return g_hash_table_lookup (self->tracks, &key);
}

PlanarSearchHitIndex *
planar_search_hit_index_new (PlanarSearch *search)
{
  PlanarSearchHitIndex *self;
  guint64 n;
  g_autofree TrackHits **owners = NULL;
  g_autofree guint32 *depths = NULL;

  g_return_val_if_fail (PLANAR_IS_SEARCH (search), NULL);
  g_return_val_if_fail (planar_search_is_completed (search), NULL);

  self = g_new0 (PlanarSearchHitIndex, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->search = g_object_ref (search);
  self->tracks = g_hash_table_new_full (track_key_hash, track_key_equal, g_free, track_hits_free);
  n = planar_search_get_n_hits (search);
  /* Each hit's track and depth, found once. */
  owners = g_new (TrackHits *, n);
  depths = g_new (guint32, n);

  /* First pass: the depths of each track, counted per depth in
   * depth_start[d + 1]. */
  for (guint64 i = 0; i < n; i++)
    {
      const PlanarSearchHit *hit = planar_search_get_hit (search, i);
      const PlanarEvent *event = planar_search_resolve_hit (search, hit, NULL, NULL, NULL);
      TrackHits *hits = lookup_track (self, hit->ref.trace, hit->ref.plane, hit->ref.track);

      if (hits == NULL)
        {
          TrackKey *key = g_new (TrackKey, 1);

          *key = (TrackKey) { hit->ref.trace, hit->ref.plane, hit->ref.track };
          hits = g_new0 (TrackHits, 1);
          g_hash_table_insert (self->tracks, key, hits);
        }
      if (event->depth >= hits->n_depths)
        {
          hits->depth_start = g_renew (guint64, hits->depth_start, (gsize) event->depth + 2);
          for (guint d = hits->n_depths; d <= event->depth; d++)
            hits->depth_start[d + 1] = 0;
          hits->depth_start[0] = 0;
          hits->n_depths = event->depth + 1;
        }
      hits->depth_start[event->depth + 1]++;
      owners[i] = hits;
      depths[i] = event->depth;
    }

  /* The counts become where each depth starts. */
  {
    GHashTableIter iter;
    TrackHits *hits;

    g_hash_table_iter_init (&iter, self->tracks);
    while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &hits))
      {
        for (guint d = 0; d < hits->n_depths; d++)
          hits->depth_start[d + 1] += hits->depth_start[d];
        hits->hits = g_new (IndexedHit, hits->depth_start[hits->n_depths]);
      }
  }

  /* Second pass: the hits come in time order, so each depth's run is in
   * time order too. depth_start[d] counts up as its run fills and is set
   * back below. */
  for (guint64 i = 0; i < n; i++)
    {
      const PlanarSearchHit *hit = planar_search_get_hit (search, i);
      const PlanarEvent *event = planar_search_resolve_hit (search, hit, NULL, NULL, NULL);
      IndexedHit *slot = &owners[i]->hits[owners[i]->depth_start[depths[i]]++];

      slot->start_ps = event->start_ps;
      slot->end_ps = event->start_ps + event->duration_ps;
      slot->event = hit->ref.index;
    }

  {
    GHashTableIter iter;
    TrackHits *hits;

    g_hash_table_iter_init (&iter, self->tracks);
    while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &hits))
      {
        /* Each depth_start[d] is now where depth d ends: shift them back. */
        for (guint d = hits->n_depths; d > 0; d--)
          hits->depth_start[d] = hits->depth_start[d - 1];
        hits->depth_start[0] = 0;
        for (guint d = 0; d < hits->n_depths; d++)
          {
            gint64 max_end = G_MININT64;

            for (guint64 k = hits->depth_start[d]; k < hits->depth_start[d + 1]; k++)
              {
                max_end = MAX (max_end, hits->hits[k].end_ps);
                hits->hits[k].max_end_ps = max_end;
              }
          }
      }
  }
  return self;
}

static void
build_in_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  g_task_return_pointer (task, planar_search_hit_index_new (task_data),
                         (GDestroyNotify) planar_search_hit_index_unref);
}

void
planar_search_hit_index_new_async (PlanarSearch        *search,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PLANAR_IS_SEARCH (search));
  g_return_if_fail (planar_search_is_completed (search));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, planar_search_hit_index_new_async);
  g_task_set_task_data (task, g_object_ref (search), g_object_unref);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, build_in_thread);
}

PlanarSearchHitIndex *
planar_search_hit_index_new_finish (GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == planar_search_hit_index_new_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

PlanarSearchHitIndex *
planar_search_hit_index_ref (PlanarSearchHitIndex *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
planar_search_hit_index_unref (PlanarSearchHitIndex *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_hash_table_unref (self->tracks);
  g_object_unref (self->search);
  g_free (self);
}

PlanarSearch *
planar_search_hit_index_get_search (PlanarSearchHitIndex *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->search;
}

guint
planar_search_hit_index_get_n_depths (PlanarSearchHitIndex *self,
                                      guint                 trace,
                                      guint                 plane,
                                      guint                 track)
{
  TrackHits *hits;

  g_return_val_if_fail (self != NULL, 0);

  hits = lookup_track (self, trace, plane, track);
  return hits != NULL ? hits->n_depths : 0;
}

/* The first of hits[lo, hi) whose max_end_ps is at least @t. */
static guint64
first_ending_at_or_after (const IndexedHit *hits,
                          guint64           lo,
                          guint64           hi,
                          gint64            t)
{
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;

      if (hits[mid].max_end_ps < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The first of hits[lo, hi) that starts at or after @t. */
static guint64
first_starting_at_or_after (const IndexedHit *hits,
                            guint64           lo,
                            guint64           hi,
                            gint64            t)
{
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;

      if (hits[mid].start_ps < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static void
append_span (GArray           *spans,
             const IndexedHit *first,
             gint64            end_ps,
             guint64           n_hits)
{
  PlanarSearchHitSpan span = { first->start_ps, end_ps, first->event, n_hits };

  g_array_append_val (spans, span);
}

guint
planar_search_hit_index_query (PlanarSearchHitIndex *self,
                               guint                 trace,
                               guint                 plane,
                               guint                 track,
                               guint                 depth,
                               gint64                t0_ps,
                               gint64                t1_ps,
                               double                ps_per_column,
                               GArray               *spans)
{
  TrackHits *track_hits;
  const IndexedHit *hits;
  guint64 i, end;
  guint before;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (spans != NULL, 0);
  g_return_val_if_fail (g_array_get_element_size (spans) == sizeof (PlanarSearchHitSpan), 0);

  track_hits = lookup_track (self, trace, plane, track);
  if (track_hits == NULL || depth >= track_hits->n_depths || t1_ps < t0_ps)
    return 0;
  if (!(ps_per_column >= 1.0))
    ps_per_column = 1.0;
  before = spans->len;
  hits = track_hits->hits;
  end = track_hits->depth_start[depth + 1];
  i = first_ending_at_or_after (hits, track_hits->depth_start[depth], end, t0_ps);

  while (i < end && hits[i].start_ps <= t1_ps)
    {
      double column;
      gint64 next_column_ps;
      guint64 j;

      if (hits[i].end_ps < t0_ps)
        {
          /* Overlapped by a longer hit before it, but ends before the
           * window. */
          i++;
          continue;
        }
      if ((double) (hits[i].end_ps - hits[i].start_ps) >= ps_per_column)
        {
          append_span (spans, &hits[i], hits[i].end_ps, 1);
          i++;
          continue;
        }

      /* A narrow hit: every hit that starts in its column goes with it,
       * but the last of them, which may be wide. */
      column = floor ((double) (MAX (hits[i].start_ps, t0_ps) - t0_ps) / ps_per_column);
      next_column_ps = t0_ps + (gint64) ceil ((column + 1) * ps_per_column);
      /* Hits after the window are not its. */
      if (next_column_ps > t1_ps || next_column_ps <= t0_ps)
        next_column_ps = t1_ps == G_MAXINT64 ? t1_ps : t1_ps + 1;
      j = first_starting_at_or_after (hits, i + 1, end, next_column_ps);
      if (j - 1 > i && (double) (hits[j - 1].end_ps - hits[j - 1].start_ps) >= ps_per_column)
        {
          append_span (spans, &hits[i], MAX (hits[i].end_ps, hits[j - 2].end_ps), j - 1 - i);
          append_span (spans, &hits[j - 1], hits[j - 1].end_ps, 1);
        }
      else
        append_span (spans, &hits[i], MAX (hits[i].end_ps, hits[j - 1].end_ps), j - i);
      i = j;
    }
  return spans->len - before;
}
