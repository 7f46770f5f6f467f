/* planar-flows.h: the arrows between events of one trace (docs/formats.md §3).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-derive.h"

G_BEGIN_DECLS

/* XProf's ContextType values, the category of a flow (6 bits in an XFlow). */
typedef enum
{
  PLANAR_FLOW_CATEGORY_GENERIC                = 0,
  PLANAR_FLOW_CATEGORY_LEGACY                 = 1,
  PLANAR_FLOW_CATEGORY_TF_EXECUTOR            = 2,
  PLANAR_FLOW_CATEGORY_TFRT_EXECUTOR          = 3,
  PLANAR_FLOW_CATEGORY_SHARED_BATCH_SCHEDULER = 4,
  PLANAR_FLOW_CATEGORY_PJRT                   = 5,
  PLANAR_FLOW_CATEGORY_ADAPTIVE_SHARED_BATCH_SCHEDULER = 6,
  PLANAR_FLOW_CATEGORY_TFRT_TPU_RUNTIME       = 7,
  PLANAR_FLOW_CATEGORY_TPU_EMBEDDING_ENGINE   = 8,
  PLANAR_FLOW_CATEGORY_GPU_LAUNCH             = 9,
  PLANAR_FLOW_CATEGORY_BATCHER                = 10,
  PLANAR_FLOW_CATEGORY_TPU_STREAM             = 11,
  PLANAR_FLOW_CATEGORY_TPU_LAUNCH             = 12,
  PLANAR_FLOW_CATEGORY_PATHWAYS_EXECUTOR      = 13,
  PLANAR_FLOW_CATEGORY_PJRT_LIBRARY_CALL      = 14,
  PLANAR_FLOW_CATEGORY_THREADPOOL_EVENT       = 15,
  PLANAR_FLOW_CATEGORY_JAX_SERVING_EXECUTOR   = 16,
  PLANAR_FLOW_CATEGORY_SC_OFFLOAD             = 17,
  PLANAR_FLOW_N_KNOWN_CATEGORIES,
} PlanarFlowCategory;

/* Categories are 6-bit numbers; counts are kept for each. */
#define PLANAR_FLOW_N_CATEGORIES 64
/* planar_flow_index_query_range() with every category. */
#define PLANAR_FLOW_CATEGORY_ALL G_MAXUINT

/* One arrow. A flow with one end only ("dangling": a launch whose kernel
 * was not captured, a consumer whose producer is on another host) has the
 * other end's plane set to PLANAR_EVENT_REF_NONE. */
typedef struct
{
  /* 56 bits: the file's XFlow id, or a hash of what matched the ends. */
  guint64        id;
  PlanarEventRef from;
  PlanarEventRef to;
  guint32        category;
  /* Starts of the two events, in ps since the profile start; for a
   * dangling flow both are the start of the end it has. */
  gint64         from_ps;
  gint64         to_ps;
} PlanarFlow;

typedef struct _PlanarFlowIndex PlanarFlowIndex;

/* Returns: (transfer none) (nullable): the flows of @self, built by
 * planar_trace_decode(); NULL before. Owned by the trace. Read-only, so
 * any number of threads may query it. */
const PlanarFlowIndex *planar_trace_get_flows                (PlanarTrace           *self);

/* "gpu_launch", "tf_exec", ...; "" for 0, 1 and unknown categories.
 * Returns: (transfer none). */
const char            *planar_flow_category_get_name         (guint                  category);

/* Every flow, dangling ones included. */
gsize                  planar_flow_index_get_n_flows         (const PlanarFlowIndex *self);
/* Flows of @category (PLANAR_FLOW_CATEGORY_ALL: any) with both ends, and
 * with one end only. */
gsize                  planar_flow_index_get_n_complete      (const PlanarFlowIndex *self,
                                                              guint                  category);
gsize                  planar_flow_index_get_n_dangling      (const PlanarFlowIndex *self,
                                                              guint                  category);
/* Copies flow @i (0 <= @i < n_flows) into @flow. */
void                   planar_flow_index_get_flow            (const PlanarFlowIndex *self,
                                                              gsize                  i,
                                                              PlanarFlow            *flow);
/* Appends to @out (a GArray of PlanarFlow) the flows leaving or entering
 * @event: first those it starts, then those it ends. O(log n + output).
 * Returns the number appended. */
gsize                  planar_flow_index_query_event         (const PlanarFlowIndex *self,
                                                              const PlanarEventRef  *event,
                                                              GArray                *out);
/* Appends to @out (a GArray of PlanarFlow) the flows of @category
 * (PLANAR_FLOW_CATEGORY_ALL: any) whose time span (from the earlier end's
 * start to the later end's start) meets [@t0_ps, @t1_ps], in order of that
 * span's start. O((1 + output) log n), whatever the flows outside the
 * window: meant to run every frame. Returns the number appended. */
gsize                  planar_flow_index_query_range         (const PlanarFlowIndex *self,
                                                              guint                  category,
                                                              gint64                 t0_ps,
                                                              gint64                 t1_ps,
                                                              GArray                *out);

G_END_DECLS
