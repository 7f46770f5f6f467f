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

/* The hits of a completed search laid out for a timeline that highlights
 * them: per track and nesting depth, in time order, so that the hits in a
 * window are found by binary search and folded per pixel column, at a cost
 * that follows the columns drawn and not the number of hits. */
typedef struct _PlanarSearchHitIndex PlanarSearchHitIndex;

/* A run of hits a query reports: one hit (@n_hits 1), or several narrow
 * ones that start in the same column, [@start_ps, @end_ps] covering them
 * all. @event is the event index of its first hit. */
typedef struct
{
  gint64  start_ps;
  gint64  end_ps;
  guint64 event;
  guint64 n_hits;
} PlanarSearchHitSpan;

/* @search must have completed. Costs O(hits), in time and memory (32 bytes
 * a hit). Returns: (transfer full). */
PlanarSearchHitIndex *planar_search_hit_index_new          (PlanarSearch               *search);
/* The same in a worker thread, for a main loop that must not wait: a
 * million hits take a fraction of a second. Fails only with
 * %G_IO_ERROR_CANCELLED. */
void                  planar_search_hit_index_new_async    (PlanarSearch               *search,
                                                            GCancellable               *cancellable,
                                                            GAsyncReadyCallback         callback,
                                                            gpointer                    user_data);
/* Returns: (transfer full) (nullable). */
PlanarSearchHitIndex *planar_search_hit_index_new_finish   (GAsyncResult               *result,
                                                            GError                    **error);
PlanarSearchHitIndex *planar_search_hit_index_ref          (PlanarSearchHitIndex       *self);
void                  planar_search_hit_index_unref        (PlanarSearchHitIndex       *self);
/* Returns: (transfer none). */
PlanarSearch         *planar_search_hit_index_get_search   (PlanarSearchHitIndex       *self);
/* The number of depths with hits on a track (its deepest hit's depth plus
 * one), 0 when it has none. */
guint                 planar_search_hit_index_get_n_depths (PlanarSearchHitIndex       *self,
                                                            guint                       trace,
                                                            guint                       plane,
                                                            guint                       track);
/* Appends to @spans (of PlanarSearchHitSpan) the hits of a track at
 * @depth that meet [@t0_ps, @t1_ps], in time order. Hits narrower than
 * @ps_per_column that start in the same column of @ps_per_column
 * picoseconds from @t0_ps are folded into one span, so that at most two
 * spans start in a column. Returns the number of spans appended. */
guint                 planar_search_hit_index_query        (PlanarSearchHitIndex       *self,
                                                            guint                       trace,
                                                            guint                       plane,
                                                            guint                       track,
                                                            guint                       depth,
                                                            gint64                      t0_ps,
                                                            gint64                      t1_ps,
                                                            double                      ps_per_column,
                                                            GArray                     *spans);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarSearchHitIndex, planar_search_hit_index_unref)

G_END_DECLS
