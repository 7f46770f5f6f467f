/* planar-search-hits.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-search-hits.h"

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
