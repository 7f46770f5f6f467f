/* planar-counters.h: the counter series of a trace's `_counters_` lines.
 *
 * A `_counters_` line (docs/formats.md §1.9) holds samples: instant events whose
 * value is a stat on the event (the event's metadata name is usually the
 * metric name as well). Each stat name of each `_counters_` track becomes a
 * series of (time, value) samples in time order, with an index that
 * answers "what to draw in each pixel column" without visiting every
 * sample.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace.h"

G_BEGIN_DECLS

typedef struct _PlanarCounterSet    PlanarCounterSet;
typedef struct _PlanarCounterSeries PlanarCounterSeries;

/* What one pixel column of a counter shows. */
typedef struct
{
  /* Samples whose time falls in the column. */
  guint64  n_samples;
  /* Smallest, largest and last of those samples. In a column without
   * samples all three are the value in force there: the last sample
   * before it. */
  double   min;
  double   max;
  double   last;
  /* FALSE for columns before the first sample: nothing to draw. */
  gboolean has_value;
} PlanarCounterColumn;

/* Whether @track is a file's counter line (`_counters_`): its events are
 * samples of values, drawn as counters, not work to add up or show as
 * spans. */
gboolean                   planar_track_is_counter_line       (const PlanarTrack         *track);

/* Returns: (transfer none) (nullable): the counter series of @self, built
 * by planar_trace_decode(); NULL before. Owned by the trace; read-only, so
 * any number of threads may query it. */
const PlanarCounterSet    *planar_trace_get_counters          (PlanarTrace               *self);

/* Series are ordered by plane, then track, then name. */
guint                      planar_counter_set_get_n_series    (const PlanarCounterSet    *self);
/* Returns: (transfer none). */
const PlanarCounterSeries *planar_counter_set_get_series      (const PlanarCounterSet    *self,
                                                               guint                      i);
/* The series of stat @name on plane @plane, or NULL. Returns: (transfer none). */
const PlanarCounterSeries *planar_counter_set_find_series     (const PlanarCounterSet    *self,
                                                               guint                      plane,
                                                               const char                *name);

/* The stat name. Interned. */
const char                *planar_counter_series_get_name     (const PlanarCounterSeries *self);
/* Where the samples are: the plane's index in the trace and the
 * `_counters_` track's index in the plane. */
guint                      planar_counter_series_get_plane    (const PlanarCounterSeries *self);
guint                      planar_counter_series_get_track    (const PlanarCounterSeries *self);
gsize                      planar_counter_series_get_n_samples (const PlanarCounterSeries *self);
/* Sample @i's time, in ps since the profile start (nondecreasing in @i),
 * its value, and the index of its event in the track. */
gint64                     planar_counter_series_get_time     (const PlanarCounterSeries *self,
                                                               gsize                      i);
double                     planar_counter_series_get_value    (const PlanarCounterSeries *self,
                                                               gsize                      i);
gsize                      planar_counter_series_get_event    (const PlanarCounterSeries *self,
                                                               gsize                      i);
/* The smallest and largest value of all samples; FALSE when there are none. */
gboolean                   planar_counter_series_get_range    (const PlanarCounterSeries *self,
                                                               double                    *min,
                                                               double                    *max);
/* The index of the last sample at or before @t_ps; FALSE when every
 * sample is later. */
gboolean                   planar_counter_series_lookup       (const PlanarCounterSeries *self,
                                                               gint64                     t_ps,
                                                               gsize                     *index);
/* Fills @columns[0 .. @n_columns - 1]: column c covers
 * [@t0_ps + c × @ps_per_px, @t0_ps + (c + 1) × @ps_per_px), @ps_per_px > 0.
 * Costs O(log n) once, then per column O(log k) to find its k samples
 * (galloping from the previous column) and O(1) for their min and max (a
 * sparse table over blocks of samples), so a frame costs about its number
 * of columns however many samples lie behind them. */
void planar_counter_series_query_columns (const PlanarCounterSeries *self,
                                          gint64                     t0_ps,
                                          gint64                     ps_per_px,
                                          guint                      n_columns,
                                          PlanarCounterColumn       *columns);

G_END_DECLS
