/* planar-flows-private.h: how the derive pass builds the flow index and
 * the cached index stores it; planar-flows.h is the public API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-flows.h"
#include "planar-spill.h"
#include "planar-trace-private.h"

G_BEGIN_DECLS

typedef enum
{
  PLANAR_FLOW_DIRECTION_IN    = 1,
  PLANAR_FLOW_DIRECTION_OUT   = 2,
  PLANAR_FLOW_DIRECTION_INOUT = 3,
} PlanarFlowDirection;

typedef struct _PlanarFlowBuilder PlanarFlowBuilder;

PlanarFlowBuilder     *_planar_flow_builder_new              (PlanarSpillMode spill);
void                   _planar_flow_builder_free             (PlanarFlowBuilder     *self);
/* Records that @event, starting at @start_ps, is an end of flow
 * (@category, @id); the ends with one key are paired by
 * _planar_flow_builder_finish(). */
void                   _planar_flow_builder_add              (PlanarFlowBuilder     *self,
                                                              guint                  category,
                                                              guint64                id,
                                                              PlanarFlowDirection    direction,
                                                              const PlanarEventRef  *event,
                                                              gint64                 start_ps);
/* Records that @event, starting at @start_ps, is the host (@is_host) or
 * device end of launch @correlation_id. Launches are matched by a table,
 * without sorting, and their flows listed by from and to end without
 * sorting either when each builder's launches come in event order (see
 * _planar_flow_builder_sort_launches()). */
void                   _planar_flow_builder_add_launch       (PlanarFlowBuilder     *self,
                                                              guint64                correlation_id,
                                                              gboolean               is_host,
                                                              const PlanarEventRef  *event);
/* Puts the launches @self recorded in event order (plane, track, index). */
void                   _planar_flow_builder_sort_launches    (PlanarFlowBuilder     *self);
/* Moves the ends @other found into @self, after its own. Frees @other. */
void                   _planar_flow_builder_take             (PlanarFlowBuilder     *self,
                                                              PlanarFlowBuilder     *other);
/* Pairs the ends and builds the index over @trace's events; launch flows
 * get ids made from @host_id. Frees @self. Returns: (transfer full). */
PlanarFlowIndex       *_planar_flow_builder_finish           (PlanarFlowBuilder     *self,
                                                              PlanarTrace           *trace,
                                                              guint64                host_id);
void                   _planar_flow_index_free               (PlanarFlowIndex       *self);
/* The index as bytes for the cache, and back: the bytes are checked
 * against @trace (its tracks in place), NULL with @error when they do not
 * fit it. */
void                   _planar_flow_index_serialize          (const PlanarFlowIndex *self,
                                                              PlanarByteSink         sink,
                                                              gpointer               data);
PlanarFlowIndex       *_planar_flow_index_deserialize        (PlanarTrace           *trace,
                                                              gsize                  len,
                                                              PlanarByteSource       source,
                                                              gpointer               source_data,
                                                              GError               **error);
/* For tests: the most bytes a copy of the flows in time order may hold
 * beyond the flows' own memory (0: always in place; G_MAXSIZE: the
 * default), and how many flow indices were put in time order by a copy. */
void                   _planar_flow_index_set_copy_budget    (gsize                  n_bytes);
guint                  _planar_flow_index_get_n_copied       (void);
/* For tests: the most runs of flows already in time order that are put in
 * order by merging them (0: never; the default is 128), and how many flow
 * indices were. */
void                   _planar_flow_index_set_merge_runs_max (guint                  n_runs);
guint                  _planar_flow_index_get_n_merged       (void);
/* For tests: from how many flows a merge of runs is cut into parts merged
 * side by side (0: the default, 2^20), into how many (0: one per thread
 * of the pool), and how many were (their search for runs, too, is). */
void                   _planar_flow_index_set_merge_split    (gsize                  n_flows,
                                                              guint                  n_parts);
guint                  _planar_flow_index_get_n_split_merges (void);
/* A stable 56-bit flow id for the tuple (@host_id, @a, @b). */
guint64                _planar_flow_make_id                  (guint64                host_id,
                                                              guint64                a,
                                                              guint64                b);

G_END_DECLS
