/* planar-aggregate.h: exact per-name statistics over tracks and time ranges.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "planar-trace.h"

G_BEGIN_DECLS

/* Totals for one event name. Times in picoseconds. */
typedef struct
{
  /* The event name (full, not the display name); owned by the aggregator's
   * result. */
  const char *name;
  /* The display name of the first event seen with this name. */
  const char *display_name;
  guint64     count;
  /* Wall time: the sum of the events' durations. */
  gint64      total_ps;
  /* Wall time less the time of each event's direct children. */
  gint64      self_ps;
  gint64      min_ps;
  gint64      max_ps;
  /* With planar_aggregator_set_group_by_kind(): the kind of track the row
   * counts (planar_aggregate_kind_for_track()) and its place among the
   * kinds; NULL and 0 otherwise. */
  const char *kind;
  guint       kind_order;
  /* With planar_aggregator_set_costs(): the FLOPs and bytes accessed of
   * the row's events that have them (the profile's `flops` and
   * `bytes_accessed`, else estimated from the program's HLO), and the wall
   * time of those events, so that flops / flops_ps is the FLOP rate
   * achieved, bytes / bytes_ps the bandwidth. @estimated is TRUE when any
   * of them came from the HLO. */
  double      flops;
  gint64      flops_ps;
  double      bytes;
  gint64      bytes_ps;
  gboolean    estimated;
} PlanarAggregate;

/* What a row of an aggregator with costs stands for. */
typedef enum
{
  /* The event's name (the default). */
  PLANAR_AGGREGATE_KEY_NAME,
  /* Its framework op (planar-op-info.h: the profile's tf_op, else the
   * HLO's op_full_name, "jit(f)/dot_general:"). */
  PLANAR_AGGREGATE_KEY_FRAMEWORK_OP,
  /* Its source line ("train.py:23"). */
  PLANAR_AGGREGATE_KEY_SOURCE,
} PlanarAggregateKey;

typedef enum
{
  PLANAR_AGGREGATE_SORT_SELF,
  PLANAR_AGGREGATE_SORT_TOTAL,
  PLANAR_AGGREGATE_SORT_COUNT,
  PLANAR_AGGREGATE_SORT_NAME,
} PlanarAggregateSort;

/* Accumulates every event of the tracks it is given that meets a time
 * range, computed from the index (never from what is drawn), so the result
 * is exact at any zoom. Aggregated events (num_occurrences) are left out. */
typedef struct _PlanarAggregator PlanarAggregator;

PlanarAggregator *planar_aggregator_new       (void);
void              planar_aggregator_free      (PlanarAggregator  *self);
/* What kind of track @track is, for tables grouped by kind: "Steps" (Steps
 * and Launch Stats), "XLA Modules", "XLA Ops", "Framework ops" (Framework
 * Ops and Name Scope), "Device kernels" (the other tracks of a /device:
 * plane), "Host threads" (tracks of /host:CPU), else the plane's name.
 * Sets *@order (when not NULL) to the kind's place in that list. Returns:
 * (transfer none): a string that lives as long as @plane. */
const char       *planar_aggregate_kind_for_track (const PlanarPlane *plane,
                                                   const PlanarTrack *track,
                                                   guint             *order);
/* Makes the aggregator keep one row per kind of track and display name
 * (instead of one per full name): the same op on several devices' XLA Ops
 * tracks is one row, and a kernel and an op of the same name are two.
 * Call before adding events. */
void              planar_aggregator_set_group_by_kind (PlanarAggregator *self,
                                                       gboolean          group);
/* Makes the aggregator count the events of a line of steps (a Steps line,
 * Launch Stats: one event a step, each named after its step) in one row
 * named after the line: a plane's summary then has one row of step times
 * instead of one row a step. Call before adding events. */
void              planar_aggregator_set_step_lines_as_one (PlanarAggregator *self,
                                                           gboolean          one);
/* Makes the aggregator read each event's FLOPs and bytes through @trace
 * (the trace of every plane added; planar-op-info.h), and keep one row per
 * @key: events without a framework op or source then make one row named
 * "(none)". Reads every event's stats from the file: for a table, not for
 * a frame. Call before adding events. */
void              planar_aggregator_set_costs (PlanarAggregator  *self,
                                               PlanarTrace       *trace,
                                               PlanarAggregateKey key);
/* planar_aggregator_add_track() stops early once @cancellable is cancelled
 * (for a worker whose table is no longer wanted); the sums are then
 * partial. */
void              planar_aggregator_set_cancellable (PlanarAggregator *self,
                                                     GCancellable     *cancellable);
/* Adds the events of @track (a track of @plane) meeting [@t0_ps, @t1_ps];
 * none of a counter line (planar_track_is_counter_line()). */
void              planar_aggregator_add_track (PlanarAggregator  *self,
                                               const PlanarPlane *plane,
                                               const PlanarTrack *track,
                                               gint64             t0_ps,
                                               gint64             t1_ps);
/* Adds one event. */
void              planar_aggregator_add_event (PlanarAggregator  *self,
                                               const PlanarPlane *plane,
                                               const PlanarTrack *track,
                                               gsize              index);
/* Makes the aggregator append to @refs (a GArray of PlanarEventRef, their
 * plane @plane_index and host @trace_index) every event it counts in the
 * row named @name (a PlanarAggregate's name), whatever the rows stand for:
 * the events of one row of a table, found as the table found them. Not
 * with planar_aggregator_set_group_by_kind(). Call before adding events. */
void              planar_aggregator_collect_events (PlanarAggregator *self,
                                                    const char       *name,
                                                    guint             trace_index,
                                                    guint             plane_index,
                                                    GArray           *refs);
/* Adds, on a worker thread, every event of plane @plane of @trace that a
 * table of that plane counts: the events of every track the file holds
 * (not the derived lines) when @track is -1, else those of track @track.
 * What a table with costs reads from the file (every event's stats) takes
 * seconds at 10^7 events; this keeps it off the main loop. @self
 * (transfer full) belongs to the task from here on. Cancelling
 * @cancellable stops the worker within a few thousand events. */
void              planar_aggregator_add_plane_async  (PlanarAggregator    *self,
                                                      PlanarTrace         *trace,
                                                      guint                plane,
                                                      int                  track,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
/* Returns: (transfer full): the aggregator given to
 * planar_aggregator_add_plane_async() with the events added; NULL with
 * G_IO_ERROR_CANCELLED, or PLANAR_TRACE_ERROR_CHANGED when the file
 * changed on disk while its stats were read. */
PlanarAggregator *planar_aggregator_add_plane_finish (GAsyncResult       *result,
                                                      GError            **error);
/* Returns: (transfer full): a GArray of PlanarAggregate, sorted (by kind
 * when grouped, then largest first for numbers, then by name). Names stay valid while the aggregator
 * lives. */
GArray           *planar_aggregator_get_results (PlanarAggregator  *self,
                                                 PlanarAggregateSort sort);
guint64           planar_aggregator_get_n_events (PlanarAggregator *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarAggregator, planar_aggregator_free)

G_END_DECLS
