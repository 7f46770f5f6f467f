/* planar-counters.c: counter series and their per-column queries.
 *
 * A series keeps, per sample, the index of its event in the `_counters_`
 * track, its time and its value. The times are a copy, side by side, so
 * that a query reads 8 bytes a sample instead of an index and then the
 * event's record far away in the track (at 10^8 events, in a spill
 * mapping); they follow the trace when it is shifted to align hosts by
 * the first sample's event, whose time the copy is compared with.
 *
 * For min/max over a run of samples it keeps a sparse table over blocks
 * of BLOCK samples: level k holds the min and max of 2^k consecutive
 * blocks, so any run of whole blocks is two lookups, and the partial
 * blocks at its ends are at most 2 × BLOCK values to scan. That costs n / BLOCK × log2 (n / BLOCK) pairs of doubles, a small
 * fraction of the samples themselves.
 *
 * A column's samples are found through a directory by time, as the span
 * index finds a column's events: the series' time from its first sample
 * cut into cells of CELL_SAMPLES samples on average, each with the number
 * of samples before it, so that a column's end is looked for among the few
 * samples of one cell. Galloping from the previous column instead read
 * O(log samples per column) sample times, each through the sample's event
 * record (which at 10^8 events lives in a spill mapping): a zoomed-out
 * frame's counters grew with the file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-private.h"

#include "planar-counters-private.h"
#include "planar-derived-results-private.h"

#include <string.h>

#define BLOCK 32

/* Samples per directory cell, on average. */
#define CELL_SAMPLES 16

struct _PlanarCounterSeries
{
  /* Interned. */
  const char        *name;
  guint              plane;
  guint              track;
  const PlanarTrack *events_track;
  guint32           *events;
  /* The samples' times when the series was built: the event's time less
   * how far the trace has moved since (series_shift()). */
  gint64            *times;
  double            *values;
  gsize              n;
  double             min;
  double             max;
  /* Sparse table over blocks: level k, block b at [k * n_blocks + b]. */
  gsize              n_blocks;
  guint              n_levels;
  double            *block_min;
  double            *block_max;
  /* The directory by time: @n_cells cells of @cell_ps ps from the first
   * sample's time, with @n_cells + 1 ranks (the samples that come before
   * each); NULL when the series has none (no samples, or times that go
   * back). */
  guint32           *cells;
  gsize              n_cells;
  guint64            cell_ps;
};

struct _PlanarCounterSet
{
  GPtrArray *series;
};

static void
series_free (PlanarCounterSeries *s)
{
  g_free (s->events);
  g_free (s->times);
  g_free (s->values);
  g_free (s->block_min);
  g_free (s->block_max);
  g_free (s->cells);
  g_free (s);
}

void
_planar_counter_set_free (PlanarCounterSet *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->series);
  g_free (self);
}

/* Samples gathered for one stat name of one track. */
typedef struct
{
  const char *name;
  GArray     *events;
  GArray     *values;
} Gathered;

static void
gathered_free (gpointer data)
{
  Gathered *g = data;

  g_clear_pointer (&g->events, g_array_unref);
  g_clear_pointer (&g->values, g_array_unref);
  g_free (g);
}

static int
compare_gathered (gconstpointer a,
                  gconstpointer b)
{
  const Gathered *x = *(Gathered * const *) a, *y = *(Gathered * const *) b;

  return strcmp (x->name, y->name);
}

static int
compare_names (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* How far the trace's events moved since @self was built: its first
 * sample's event against the time copied then (one record, which stays in
 * the cache for the rest of a query). */
static inline gint64
series_shift (const PlanarCounterSeries *self)
{
  return self->events_track->events[self->events[0]].start_ps - self->times[0];
}

static inline gint64
sample_time (const PlanarCounterSeries *self,
             gsize                      i)
{
  return self->times[i] + series_shift (self);
}

/* Builds @s's directory by time. O(samples). */
static void
series_cells (PlanarCounterSeries *s)
{
  gint64 first;
  guint64 span;
  gsize k = 0;

  if (s->n == 0 || s->n > G_MAXUINT32)
    return;
  first = sample_time (s, 0);
  for (gsize i = 1; i < s->n; i++)
    if (sample_time (s, i) < sample_time (s, i - 1))
      return;
  span = (guint64) sample_time (s, s->n - 1) - (guint64) first;
  s->cell_ps = span / MAX (s->n / CELL_SAMPLES, 1) + 1;
  s->n_cells = (gsize) (span / s->cell_ps) + 1;
  s->cells = g_new (guint32, s->n_cells + 1);
  s->cells[0] = 0;
  for (gsize c = 1; c < s->n_cells; c++)
    {
      guint64 limit = (guint64) c * s->cell_ps;

      while (k < s->n && (guint64) sample_time (s, k) - (guint64) first < limit)
        k++;
      s->cells[c] = (guint32) k;
    }
  s->cells[s->n_cells] = (guint32) s->n;
}

static void
series_index (PlanarCounterSeries *s)
{
  series_cells (s);

  s->min = s->max = s->n > 0 ? s->values[0] : 0.0;
  for (gsize i = 1; i < s->n; i++)
    {
      s->min = MIN (s->min, s->values[i]);
      s->max = MAX (s->max, s->values[i]);
    }

  s->n_blocks = (s->n + BLOCK - 1) / BLOCK;
  if (s->n_blocks == 0)
    return;
  s->n_levels = 1;
  while (((gsize) 1 << s->n_levels) <= s->n_blocks)
    s->n_levels++;
  s->block_min = g_new (double, s->n_blocks * s->n_levels);
  s->block_max = g_new (double, s->n_blocks * s->n_levels);
  for (gsize b = 0; b < s->n_blocks; b++)
    {
      gsize end = MIN ((b + 1) * BLOCK, s->n);
      double lo = s->values[b * BLOCK], hi = lo;

      for (gsize i = b * BLOCK + 1; i < end; i++)
        {
          lo = MIN (lo, s->values[i]);
          hi = MAX (hi, s->values[i]);
        }
      s->block_min[b] = lo;
      s->block_max[b] = hi;
    }
  for (guint k = 1; k < s->n_levels; k++)
    {
      gsize half = (gsize) 1 << (k - 1);
      double *min_k = s->block_min + k * s->n_blocks, *min_prev = min_k - s->n_blocks;
      double *max_k = s->block_max + k * s->n_blocks, *max_prev = max_k - s->n_blocks;

      for (gsize b = 0; b + ((gsize) 1 << k) <= s->n_blocks; b++)
        {
          min_k[b] = MIN (min_prev[b], min_prev[b + half]);
          max_k[b] = MAX (max_prev[b], max_prev[b + half]);
        }
    }
}

/* The value of @stat as a sample, when it is one: a number with a name. */
static gboolean
sample_value (const PlanarStat *stat,
              double           *value)
{
  if (stat->kind == PLANAR_STAT_DOUBLE)
    *value = stat->v.f64;
  else if (stat->kind == PLANAR_STAT_INT64)
    *value = (double) stat->v.i64;
  else if (stat->kind == PLANAR_STAT_UINT64)
    *value = (double) stat->v.u64;
  else
    return FALSE;
  return stat->name[0] != '\0';
}

gboolean
planar_track_is_counter_line (const PlanarTrack *track)
{
  g_return_val_if_fail (track != NULL, FALSE);
  return !track->derived && g_strcmp0 (track->name, "_counters_") == 0;
}

/* How many samples of a track the prediction reads whole; past them, only
 * a sample of a kind (event metadata) not seen yet, as a counter's
 * samples are of one kind and carry the same stats. */
#define PREDICT_SAMPLES 65536

void
_planar_counter_predict_series (PlanarTrace       *trace,
                                guint              plane,
                                GArray            *tracks,
                                GPtrArray         *names)
{
  const PlanarPlane *pl = planar_trace_get_plane (trace, plane);
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));

  for (guint t = 0; t < pl->n_tracks; t++)
    {
      const PlanarTrack *track = &pl->tracks[t];
      g_autoptr(GHashTable) seen = NULL;
      g_autoptr(GHashTable) kinds = NULL;
      guint first = names->len;

      if (!planar_track_is_counter_line (track))
        continue;
      seen = g_hash_table_new (g_direct_hash, g_direct_equal);
      kinds = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (gsize i = 0; i < track->n_events; i++)
        {
          gboolean new_kind = g_hash_table_add (kinds, GUINT_TO_POINTER (track->events[i].metadata));

          if (i >= PREDICT_SAMPLES && !new_kind)
            continue;
          g_array_set_size (stats, 0);
          if (planar_trace_get_event_stats (trace, pl, &track->events[i], stats, NULL) == 0)
            continue;
          for (guint s = 0; s < stats->len; s++)
            {
              const PlanarStat *stat = &g_array_index (stats, PlanarStat, s);
              double value;

              if (sample_value (stat, &value) && g_hash_table_add (seen, (gpointer) stat->name))
                g_ptr_array_add (names, (gpointer) stat->name);
            }
        }
      /* As the series are built: by name within a track. */
      g_qsort_with_data (names->pdata + first, names->len - first, sizeof (gpointer),
                         (GCompareDataFunc) compare_names, NULL);
      for (guint k = first; k < names->len; k++)
        g_array_append_val (tracks, t);
    }
}

PlanarCounterSet *
_planar_counter_set_build (PlanarTrace   *trace,
                           GCancellable  *cancellable,
                           GError       **error)
{
  PlanarCounterSet *self = g_new0 (PlanarCounterSet, 1);
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  guint64 n_seen = 0;

  self->series = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];
          g_autoptr(GHashTable) by_name = NULL;
          g_autoptr(GPtrArray) gathered = NULL;

          if (!planar_track_is_counter_line (track))
            continue;
          by_name = g_hash_table_new (g_direct_hash, g_direct_equal);
          gathered = g_ptr_array_new_with_free_func (gathered_free);
          for (gsize i = 0; i < track->n_events; i++)
            {
              if (++n_seen % 4096 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
                {
                  _planar_counter_set_free (self);
                  return NULL;
                }
              g_array_set_size (stats, 0);
              /* A sample whose stats are damaged is left out. */
              if (planar_trace_get_event_stats (trace, plane, &track->events[i], stats, NULL) == 0)
                continue;
              for (guint s = 0; s < stats->len; s++)
                {
                  const PlanarStat *stat = &g_array_index (stats, PlanarStat, s);
                  guint32 index = (guint32) i;
                  Gathered *g;
                  double value;

                  if (!sample_value (stat, &value))
                    continue;
                  g = g_hash_table_lookup (by_name, stat->name);
                  if (g == NULL)
                    {
                      g = g_new0 (Gathered, 1);
                      g->name = stat->name;
                      g->events = g_array_new (FALSE, FALSE, sizeof (guint32));
                      g->values = g_array_new (FALSE, FALSE, sizeof (double));
                      g_hash_table_insert (by_name, (gpointer) stat->name, g);
                      g_ptr_array_add (gathered, g);
                    }
                  g_array_append_val (g->events, index);
                  g_array_append_val (g->values, value);
                }
            }

          g_ptr_array_sort (gathered, compare_gathered);
          for (guint k = 0; k < gathered->len; k++)
            {
              Gathered *g = g_ptr_array_index (gathered, k);
              PlanarCounterSeries *s = g_new0 (PlanarCounterSeries, 1);

              s->name = g->name;
              s->plane = p;
              s->track = t;
              s->events_track = track;
              s->n = g->events->len;
              s->events = (guint32 *) (gpointer) g_array_free (g_steal_pointer (&g->events), FALSE);
              s->values = (double *) (gpointer) g_array_free (g_steal_pointer (&g->values), FALSE);
              s->times = g_new (gint64, MAX (s->n, 1));
              for (gsize i = 0; i < s->n; i++)
                s->times[i] = track->events[s->events[i]].start_ps;
              series_index (s);
              g_ptr_array_add (self->series, s);
            }
        }
    }
  return self;
}

const PlanarCounterSet *
planar_trace_get_counters (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return _planar_derived_results_get_counters (_planar_derived_results_get (self));
}

guint
planar_counter_set_get_n_series (const PlanarCounterSet *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->series->len;
}

const PlanarCounterSeries *
planar_counter_set_get_series (const PlanarCounterSet *self,
                               guint                   i)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (i < self->series->len, NULL);
  return g_ptr_array_index (self->series, i);
}

const PlanarCounterSeries *
planar_counter_set_find_series (const PlanarCounterSet *self,
                                guint                   plane,
                                const char             *name)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < self->series->len; i++)
    {
      const PlanarCounterSeries *s = g_ptr_array_index (self->series, i);

      if (s->plane == plane && strcmp (s->name, name) == 0)
        return s;
    }
  return NULL;
}

const char *
planar_counter_series_get_name (const PlanarCounterSeries *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->name;
}

guint
planar_counter_series_get_plane (const PlanarCounterSeries *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->plane;
}

guint
planar_counter_series_get_track (const PlanarCounterSeries *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->track;
}

gsize
planar_counter_series_get_n_samples (const PlanarCounterSeries *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n;
}

gint64
planar_counter_series_get_time (const PlanarCounterSeries *self,
                                gsize                      i)
{
  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (i < self->n, 0);
  return sample_time (self, i);
}

double
planar_counter_series_get_value (const PlanarCounterSeries *self,
                                 gsize                      i)
{
  g_return_val_if_fail (self != NULL, 0.0);
  g_return_val_if_fail (i < self->n, 0.0);
  return self->values[i];
}

gsize
planar_counter_series_get_event (const PlanarCounterSeries *self,
                                 gsize                      i)
{
  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (i < self->n, 0);
  return self->events[i];
}

gboolean
planar_counter_series_get_range (const PlanarCounterSeries *self,
                                 double                    *min,
                                 double                    *max)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (min != NULL)
    *min = self->min;
  if (max != NULL)
    *max = self->max;
  return self->n > 0;
}

/* Counts @n entries read, for the tests. */
static inline void
visit (guint64 *visited,
       guint64  n)
{
  if (visited != NULL)
    *visited += n;
}

/* The first sample in [@lo, @hi) whose time is >= @t (@hi when none):
 * a binary search, the samples being in time order. */
static gsize
first_in (const PlanarCounterSeries *self,
          gsize                      lo,
          gsize                      hi,
          gint64                     t,
          guint64                   *visited)
{
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      visit (visited, 1);
      if (sample_time (self, mid) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The first sample at or after @from whose time is >= @t: among the
 * samples of the directory's cell that holds @t, or, without one,
 * galloping from @from, so the cost follows the distance, not the
 * series' length. */
static gsize
first_at_or_after (const PlanarCounterSeries *self,
                   gsize                      from,
                   gint64                     t,
                   guint64                   *visited)
{
  gsize step = 1, lo, hi;

  visit (visited, 1);
  if (from >= self->n || sample_time (self, from) >= t)
    return from;
  if (self->cells != NULL)
    {
      /* t > time (from) >= time (0). Samples before cells[c] come before
       * cell c, so before @t; those from cells[c + 1] on, after it. */
      guint64 c = ((guint64) t - (guint64) sample_time (self, 0)) / self->cell_ps;

      visit (visited, 3);
      if (c >= self->n_cells)
        return self->n;
      lo = MAX (from + 1, (gsize) self->cells[c]);
      hi = MAX (lo, (gsize) self->cells[c + 1]);
      return first_in (self, lo, hi, t, visited);
    }
  lo = from;
  while (lo + step < self->n && sample_time (self, lo + step) < t)
    {
      visit (visited, 1);
      lo += step;
      step *= 2;
    }
  /* sample lo is < t; the answer is in (lo, min (lo + step, n)]. */
  hi = MIN (lo + step, self->n);
  return first_in (self, lo + 1, hi, t, visited);
}

gboolean
planar_counter_series_lookup (const PlanarCounterSeries *self,
                              gint64                     t_ps,
                              gsize                     *index)
{
  gsize lo = 0, hi;

  g_return_val_if_fail (self != NULL, FALSE);

  hi = self->n;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (sample_time (self, mid) <= t_ps)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return FALSE;
  if (index != NULL)
    *index = lo - 1;
  return TRUE;
}

/* Min and max of samples [@begin, @end), @begin < @end. */
static void
range_min_max (const PlanarCounterSeries *self,
               gsize                      begin,
               gsize                      end,
               double                    *min,
               double                    *max)
{
  gsize first_block = (begin + BLOCK - 1) / BLOCK, last_block = end / BLOCK;
  double lo = self->values[begin], hi = lo;

  if (end - begin <= 2 * BLOCK || first_block >= last_block)
    {
      for (gsize i = begin + 1; i < end; i++)
        {
          lo = MIN (lo, self->values[i]);
          hi = MAX (hi, self->values[i]);
        }
    }
  else
    {
      gsize n_blocks = last_block - first_block;
      guint k = 63 - (guint) __builtin_clzll ((unsigned long long) n_blocks);
      const double *min_k = self->block_min + k * self->n_blocks;
      const double *max_k = self->block_max + k * self->n_blocks;
      gsize second = last_block - ((gsize) 1 << k);

      for (gsize i = begin + 1; i < first_block * BLOCK; i++)
        {
          lo = MIN (lo, self->values[i]);
          hi = MAX (hi, self->values[i]);
        }
      for (gsize i = last_block * BLOCK; i < end; i++)
        {
          lo = MIN (lo, self->values[i]);
          hi = MAX (hi, self->values[i]);
        }
      lo = MIN (lo, MIN (min_k[first_block], min_k[second]));
      hi = MAX (hi, MAX (max_k[first_block], max_k[second]));
    }
  *min = lo;
  *max = hi;
}

void
planar_counter_series_query_columns (const PlanarCounterSeries *self,
                                     gint64                     t0_ps,
                                     gint64                     ps_per_px,
                                     guint                      n_columns,
                                     PlanarCounterColumn       *columns)
{
  _planar_counter_series_query_columns_counted (self, t0_ps, ps_per_px, n_columns, columns, NULL);
}

void
_planar_counter_series_query_columns_counted (const PlanarCounterSeries *self,
                                              gint64                     t0_ps,
                                              gint64                     ps_per_px,
                                              guint                      n_columns,
                                              PlanarCounterColumn       *columns,
                                              guint64                   *visited)
{
  gsize at;
  gboolean has_value = FALSE;
  double carry = 0.0;

  g_return_if_fail (self != NULL);
  g_return_if_fail (ps_per_px > 0);
  g_return_if_fail (n_columns == 0 || columns != NULL);

  at = first_at_or_after (self, 0, t0_ps, visited);
  if (at > 0)
    {
      has_value = TRUE;
      carry = self->values[at - 1];
    }

  for (guint c = 0; c < n_columns; c++)
    {
      PlanarCounterColumn *col = &columns[c];
      gint64 offset, end;
      gsize next;

      /* The column's end, saturating far past the last sample. */
      if (__builtin_mul_overflow ((gint64) c + 1, ps_per_px, &offset) ||
          __builtin_add_overflow (t0_ps, offset, &end))
        end = G_MAXINT64;
      next = end == G_MAXINT64 ? self->n : first_at_or_after (self, at, end, visited);

      col->n_samples = next - at;
      if (next > at)
        {
          range_min_max (self, at, next, &col->min, &col->max);
          col->last = self->values[next - 1];
          carry = col->last;
          has_value = TRUE;
        }
      else
        col->min = col->max = col->last = carry;
      col->has_value = has_value;
      at = next;
    }
}
