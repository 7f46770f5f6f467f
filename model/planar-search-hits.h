/* planar-search-hits.h: a finished search's hits as a list model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "planar-search.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_SEARCH_HIT (planar_search_hit_get_type ())
G_DECLARE_FINAL_TYPE (PlanarSearchHitItem, planar_search_hit, PLANAR, SEARCH_HIT, GObject)

/* One hit, made when a list asks for it. */
guint64                planar_search_hit_get_index  (PlanarSearchHitItem *self);
/* Returns: (transfer none). */
const PlanarSearchHit *planar_search_hit_get_hit    (PlanarSearchHitItem *self);
/* The event's display name. Returns: (transfer none). */
const char            *planar_search_hit_get_name   (PlanarSearchHitItem *self);
/* "host · plane / track", the host only for a session of several.
 * Returns: (transfer full). */
char                  *planar_search_hit_dup_where  (PlanarSearchHitItem *self);

#define PLANAR_TYPE_SEARCH_HITS (planar_search_hits_get_type ())
G_DECLARE_FINAL_TYPE (PlanarSearchHits, planar_search_hits, PLANAR, SEARCH_HITS, GObject)

/* A GListModel of PlanarSearchHitItem over @search's hits in time order
 * (at most G_MAXUINT of them), creating each item on demand: a search with
 * millions of hits costs nothing until rows are shown. @search may be NULL
 * (an empty list) and must have completed otherwise. Returns: (transfer
 * full). */
PlanarSearchHits *planar_search_hits_new        (PlanarSearch     *search);
/* Returns: (transfer none) (nullable). */
PlanarSearch     *planar_search_hits_get_search (PlanarSearchHits *self);

G_END_DECLS
