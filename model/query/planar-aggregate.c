/* planar-aggregate.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-aggregate-private.h"
#include "planar-counters.h"
#include "planar-hash-private.h"
#include "planar-op-info.h"
#include "planar-span-index.h"
#include "planar-string-table.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <string.h>

struct _PlanarAggregator
{
  /* PlanarAggregate, one per name. */
  GArray           *rows;
  /* Names in @names -> index + 1 in @rows (names from the file: a keyed
   * hash). */
  GHashTable       *by_name;
  /* The plane whose metadata @slots maps, and the map: metadata index ->
   * row index + 1 (0 = not seen yet). Saves a hash lookup per event. */
  const PlanarPlane *slots_plane;
  guint            *slots;
  PlanarStringTable *names;
  guint64           n_events;
  gboolean          by_kind;
  /* With @by_kind: the kind of the track being added, and the slots are
   * per (metadata, track) of the current track. */
  const PlanarTrack *slots_track;
  const char       *kind;
  guint             kind_order;
  /* With planar_aggregator_set_step_lines_as_one(): the track whose row
   * name @line_row is, the line's name when it is a line of steps, else
   * NULL. */
  gboolean          step_lines_as_one;
  const PlanarTrack *line_track;
  const char       *line_row;
  /* With planar_aggregator_set_costs(). */
  PlanarTrace       *trace;
  PlanarAggregateKey key;
  /* Reads each event's costs (planar-op-info.h); with @full_op_info,
   * planar_op_info_init() does instead (the reference a test compares
   * the reader with). */
  PlanarOpCostReader *reader;
  gboolean           full_op_info;
  /* The first stats read that failed (with costs). */
  GError            *error;
  /* With planar_aggregator_collect_events(): the name of the row whose
   * events are collected, its index + 1 in @rows once it exists (0
   * before), where they go and the refs' plane and host. */
  char              *collect_name;
  guint              collect_row;
  GArray            *collect_refs;
  guint16            collect_plane;
  guint16            collect_trace;
  /* Checked between blocks of events (planar_aggregator_add_plane_async()). */
  GCancellable      *cancellable;
  /* The HLO's estimates count once per execution of an instruction: the
   * run of kernels being added (planar-op-info.h's PlanarOpRun), its
   * estimate, and each kernel's row and duration (RunPart), shared out by
   * duration when the run ends (flush_run()). */
  PlanarOpRun        run;
  gboolean           in_run;
  const PlanarPlane *run_plane;
  const PlanarTrack *run_track;
  gsize              run_last;
  guint              run_gap;
  double             run_flops;
  double             run_bytes;
  GArray            *run_parts;
  /* The event that follows the last one added, to tell a run cut by a
   * range or a jump (extended from the track) from one that ended. */
  const PlanarTrack *next_track;
  gsize              next_index;
};

typedef struct
{
  guint  row;
  gint64 duration_ps;
  guint  flops : 1;
  guint  bytes : 1;
} RunPart;

/* How many events are added between two looks at the cancellable. */
#define CANCEL_BLOCK 4096

PlanarAggregator *
planar_aggregator_new (void)
{
  PlanarAggregator *self = g_new0 (PlanarAggregator, 1);

  self->rows = g_array_new (FALSE, TRUE, sizeof (PlanarAggregate));
  self->by_name = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  self->names = planar_string_table_new ();
  self->run_parts = g_array_new (FALSE, FALSE, sizeof (RunPart));
  return self;
}

void
planar_aggregator_free (PlanarAggregator *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->rows);
  g_hash_table_unref (self->by_name);
  planar_string_table_free (self->names);
  g_array_unref (self->run_parts);
  g_free (self->slots);
  g_clear_object (&self->trace);
  g_clear_pointer (&self->reader, planar_op_cost_reader_free);
  g_clear_error (&self->error);
  g_free (self->collect_name);
  g_clear_pointer (&self->collect_refs, g_array_unref);
  g_clear_object (&self->cancellable);
  g_free (self);
}

static gboolean
has_prefix_word (const char *name,
                 const char *prefix)
{
  return name != NULL && g_str_has_prefix (name, prefix);
}

const char *
planar_aggregate_kind_for_track (const PlanarPlane *plane,
                                 const PlanarTrack *track,
                                 guint             *order)
{
  /* Track names as XProf and the derived lines spell them; per-stream
   * copies end in " - from #7" and the like. */
  static const struct { const char *prefix; const char *kind; guint order; } by_track[] = {
    { "Steps", "Steps", 0 },
    /* One event a step too: the step's launches. */
    { "Launch Stats", "Steps", 0 },
    { "XLA Modules", "XLA Modules", 1 },
    { "XLA Ops", "XLA Ops", 2 },
    { "Framework Ops", "Framework ops", 3 },
    { "Framework Name Scope", "Framework ops", 3 },
  };
  const char *track_name = track->display_name != NULL ? track->display_name : track->name;
  guint o = 0;
  const char *kind = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (by_track) && kind == NULL; i++)
    if (has_prefix_word (track_name, by_track[i].prefix) || has_prefix_word (track->name, by_track[i].prefix))
      {
        kind = by_track[i].kind;
        o = by_track[i].order;
      }
  if (kind == NULL && has_prefix_word (plane->name, "/device:"))
    {
      kind = "Device kernels";
      o = 4;
    }
  if (kind == NULL && g_strcmp0 (plane->name, "/host:CPU") == 0)
    {
      kind = "Host threads";
      o = 5;
    }
  if (kind == NULL)
    {
      kind = plane->name;
      o = 6;
    }
  if (order != NULL)
    *order = o;
  return kind;
}

void
planar_aggregator_set_group_by_kind (PlanarAggregator *self,
                                     gboolean          group)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->rows->len == 0);

  self->by_kind = group;
}

void
planar_aggregator_set_step_lines_as_one (PlanarAggregator *self,
                                         gboolean          one)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->rows->len == 0);

  self->step_lines_as_one = one;
}

/* Whether @track's events are one a step, each named after it: the Steps
 * lines (the derived ones and a TPU's) and Launch Stats. */
static gboolean
is_step_line (const PlanarPlane *plane,
              const PlanarTrack *track)
{
  return strcmp (planar_aggregate_kind_for_track (plane, track, NULL), "Steps") == 0;
}

/* Appends @row and returns its index + 1, noting the row whose events are
 * collected. */
static guint
append_row (PlanarAggregator      *self,
            const PlanarAggregate *row)
{
  g_array_append_vals (self->rows, row, 1);
  if (self->collect_name != NULL && self->collect_row == 0 && strcmp (row->name, self->collect_name) == 0)
    self->collect_row = self->rows->len;
  return self->rows->len;
}

static void
use_plane (PlanarAggregator  *self,
           const PlanarPlane *plane,
           const PlanarTrack *track)
{
  if (self->by_kind && self->slots_track != track)
    {
      /* The same metadata may be a different kind on another track. */
      self->slots_plane = NULL;
      self->slots_track = track;
      self->kind = planar_aggregate_kind_for_track (plane, track, &self->kind_order);
    }
  if (self->step_lines_as_one && self->line_track != track)
    {
      self->line_track = track;
      self->line_row = NULL;
      if (is_step_line (plane, track))
        self->line_row = track->display_name != NULL ? track->display_name : track->name;
    }
  if (self->slots_plane == plane)
    return;
  g_free (self->slots);
  self->slots = g_new0 (guint, MAX (plane->n_metadata, 1));
  self->slots_plane = plane;
}

static PlanarAggregate *
row_for (PlanarAggregator  *self,
         const PlanarPlane *plane,
         guint32            metadata)
{
  guint slot = self->slots[metadata];

  if (G_UNLIKELY (slot == 0))
    {
      const PlanarEventMetadata *md = &plane->metadata[metadata];
      gpointer found;
      g_autofree char *grouped = NULL;
      const char *key = md->name;

      /* Grouped: one row per kind and display name. The key joins them
       * with a separator no name holds. */
      if (self->by_kind)
        key = grouped = g_strconcat (self->kind, "\x1f", md->display_name, NULL);
      if (!g_hash_table_lookup_extended (self->by_name, key, NULL, &found))
        {
          PlanarAggregate row = { 0 };

          row.name = planar_string_table_intern (self->names, md->name);
          row.display_name = planar_string_table_intern (self->names, md->display_name);
          row.min_ps = G_MAXINT64;
          row.max_ps = G_MININT64;
          if (self->by_kind)
            {
              row.kind = planar_string_table_intern (self->names, self->kind);
              row.kind_order = self->kind_order;
            }
          found = GUINT_TO_POINTER (append_row (self, &row));
          g_hash_table_insert (self->by_name, (gpointer) planar_string_table_intern (self->names, key), found);
        }
      slot = self->slots[metadata] = GPOINTER_TO_UINT (found);
    }
  return &g_array_index (self->rows, PlanarAggregate, slot - 1);
}

void
planar_aggregator_set_costs (PlanarAggregator  *self,
                             PlanarTrace       *trace,
                             PlanarAggregateKey key)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (PLANAR_IS_TRACE (trace));
  g_return_if_fail (self->rows->len == 0);

  g_set_object (&self->trace, trace);
  self->key = key;
  g_clear_pointer (&self->reader, planar_op_cost_reader_free);
  self->reader = planar_op_cost_reader_new (trace, key == PLANAR_AGGREGATE_KEY_FRAMEWORK_OP ? PLANAR_OP_COSTS_FRAMEWORK_OP
                                                   : key == PLANAR_AGGREGATE_KEY_SOURCE     ? PLANAR_OP_COSTS_SOURCE
                                                                                            : PLANAR_OP_COSTS_DEFAULT);
}

void
_planar_aggregator_set_full_op_info (PlanarAggregator *self,
                                     gboolean          full)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->rows->len == 0);

  self->full_op_info = full;
}

void
planar_aggregator_collect_events (PlanarAggregator *self,
                                  const char       *name,
                                  guint             trace_index,
                                  guint             plane_index,
                                  GArray           *refs)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL && refs != NULL);
  g_return_if_fail (g_array_get_element_size (refs) == sizeof (PlanarEventRef));
  g_return_if_fail (!self->by_kind);
  g_return_if_fail (self->rows->len == 0 && self->collect_name == NULL);
  g_return_if_fail (trace_index < PLANAR_EVENT_REF_NONE && plane_index < PLANAR_EVENT_REF_NONE);

  self->collect_name = g_strdup (name);
  self->collect_refs = g_array_ref (refs);
  self->collect_trace = (guint16) trace_index;
  self->collect_plane = (guint16) plane_index;
}

/* The row of @value (a framework op or source; NULL: none). */
static PlanarAggregate *
row_for_value (PlanarAggregator *self,
               const char       *value)
{
  g_autofree char *grouped = NULL;
  const char *name = value != NULL ? value : _("(none)");
  const char *key = name;
  gpointer found;

  if (self->by_kind)
    key = grouped = g_strconcat (self->kind, "\x1f", name, NULL);
  if (!g_hash_table_lookup_extended (self->by_name, key, NULL, &found))
    {
      PlanarAggregate row = { 0 };

      row.name = planar_string_table_intern (self->names, name);
      row.display_name = row.name;
      row.min_ps = G_MAXINT64;
      row.max_ps = G_MININT64;
      if (self->by_kind)
        {
          row.kind = planar_string_table_intern (self->names, self->kind);
          row.kind_order = self->kind_order;
        }
      found = GUINT_TO_POINTER (append_row (self, &row));
      g_hash_table_insert (self->by_name, (gpointer) planar_string_table_intern (self->names, key), found);
    }
  return &g_array_index (self->rows, PlanarAggregate, GPOINTER_TO_UINT (found) - 1);
}

/* Shares the run's estimate out to its kernels' rows by duration: each
 * execution of the instruction counts once. A run cut where the events
 * added stop is first extended over the track. */
static void
flush_run (PlanarAggregator *self,
           gboolean          cut)
{
  gint64 total;

  if (!self->in_run)
    return;
  if (cut)
    planar_op_run_extend (&self->run, self->trace, self->run_plane, self->run_track, self->run_last);
  total = self->run.duration_ps;
  for (guint i = 0; i < self->run_parts->len; i++)
    {
      const RunPart *part = &g_array_index (self->run_parts, RunPart, i);
      PlanarAggregate *row = &g_array_index (self->rows, PlanarAggregate, part->row);
      double share = total > 0 ? (double) part->duration_ps / (double) total : 1.0 / self->run_parts->len;

      if (part->flops)
        row->flops += self->run_flops * share;
      if (part->bytes)
        row->bytes += self->run_bytes * share;
    }
  g_array_set_size (self->run_parts, 0);
  self->in_run = FALSE;
}

/* Adds @ev's HLO estimate (@info) for @row to the run it belongs to. */
static void
add_to_run (PlanarAggregator    *self,
            const PlanarPlane   *plane,
            const PlanarTrack   *track,
            gsize                index,
            const PlanarOpCosts *info,
            PlanarAggregate     *row)
{
  const PlanarEvent *ev = &track->events[index];
  gboolean contiguous = track == self->next_track && index == self->next_index;
  RunPart part = { (guint) (row - (PlanarAggregate *) (gpointer) self->rows->data), MAX (ev->duration_ps, 0),
                   info->flops_from == PLANAR_OP_VALUE_HLO, info->bytes_from == PLANAR_OP_VALUE_HLO };

  if (self->in_run && contiguous && planar_op_run_accepts (&self->run, plane, ev, &info->hlo))
    planar_op_run_add (&self->run, plane, ev);
  else
    {
      flush_run (self, !contiguous);
      /* Started where the events added start: kernels before it may be
       * of the same run. */
      if (!contiguous)
        planar_op_run_start_at (&self->run, self->trace, plane, track, index, &info->hlo);
      else
        planar_op_run_init (&self->run, plane, track, ev, &info->hlo);
      self->in_run = TRUE;
      self->run_plane = plane;
      self->run_track = track;
      self->run_flops = info->flops_from == PLANAR_OP_VALUE_HLO ? info->flops : 0;
      self->run_bytes = info->bytes_from == PLANAR_OP_VALUE_HLO ? info->bytes : 0;
    }
  self->run_last = index;
  self->run_gap = 0;
  g_array_append_val (self->run_parts, part);
}

/* @ev's costs through planar_op_info_init() (@full, released by the
 * caller), the reference for the reader's. */
static gboolean
read_full_op_info (PlanarAggregator  *self,
                   const PlanarPlane *plane,
                   const PlanarEvent *ev,
                   PlanarOpInfo      *full,
                   PlanarOpCosts     *info)
{
  if (!planar_op_info_init (full, self->trace, plane, ev, self->error == NULL ? &self->error : NULL))
    return FALSE;
  *info = (PlanarOpCosts) {
    full->hlo, full->framework_op, full->framework_op_from, full->source, full->source_from, full->flops,
    full->flops_from, full->bytes, full->bytes_from, full->transcendentals, full->flops_unknown,
  };
  return TRUE;
}

/* The row of event @index of @track with its costs added, through the
 * HLO. */
static PlanarAggregate *
row_with_costs (PlanarAggregator  *self,
                const PlanarPlane *plane,
                const PlanarTrack *track,
                gsize              index)
{
  const PlanarEvent *ev = &track->events[index];
  PlanarAggregate *row;
  PlanarOpCosts info;
  g_auto(PlanarOpInfo) full = { 0 };

  if (self->full_op_info ? !read_full_op_info (self, plane, ev, &full, &info)
                         : !planar_op_cost_reader_read (self->reader, plane, ev, &info,
                                                        self->error == NULL ? &self->error : NULL))
    return self->key == PLANAR_AGGREGATE_KEY_NAME ? row_for (self, plane, ev->metadata) : row_for_value (self, NULL);
  switch (self->key)
    {
    case PLANAR_AGGREGATE_KEY_FRAMEWORK_OP:
      row = row_for_value (self, info.framework_op);
      break;
    case PLANAR_AGGREGATE_KEY_SOURCE:
      row = row_for_value (self, info.source);
      break;
    case PLANAR_AGGREGATE_KEY_NAME:
    default:
      row = row_for (self, plane, ev->metadata);
      break;
    }
  /* The profile's own values are per event; the HLO's estimates go
   * through the run (add_to_run()). */
  if (info.flops_from != PLANAR_OP_VALUE_NONE)
    {
      if (info.flops_from == PLANAR_OP_VALUE_PROFILE)
        row->flops += info.flops;
      row->flops_ps += ev->duration_ps;
      row->estimated |= info.flops_from == PLANAR_OP_VALUE_HLO;
    }
  if (info.bytes_from != PLANAR_OP_VALUE_NONE)
    {
      if (info.bytes_from == PLANAR_OP_VALUE_PROFILE)
        row->bytes += info.bytes;
      row->bytes_ps += ev->duration_ps;
      row->estimated |= info.bytes_from == PLANAR_OP_VALUE_HLO;
    }
  if (info.flops_from == PLANAR_OP_VALUE_HLO || info.bytes_from == PLANAR_OP_VALUE_HLO)
    add_to_run (self, plane, track, index, &info, row);
  else if (self->in_run && info.hlo.instruction == NULL && track == self->next_track && index == self->next_index
           && ++self->run_gap <= PLANAR_OP_RUN_MAX_GAP)
    ; /* Between two kernels of a run (planar_op_run_extend()'s rule). */
  else if (self->in_run)
    flush_run (self, !(track == self->next_track && index == self->next_index));
  return row;
}

static inline void
accumulate (PlanarAggregator  *self,
            const PlanarPlane *plane,
            const PlanarTrack *track,
            gsize              index)
{
  const PlanarEvent *ev = &track->events[index];
  PlanarAggregate *row;

  if (G_UNLIKELY (self->line_row != NULL))
    {
      /* No costs of a step: a run of kernels before it ends as at any
       * event without HLO. */
      flush_run (self, !(track == self->next_track && index == self->next_index));
      row = row_for_value (self, self->line_row);
    }
  else if (self->trace != NULL)
    row = row_with_costs (self, plane, track, index);
  else
    row = row_for (self, plane, ev->metadata);

  row->count++;
  row->total_ps += ev->duration_ps;
  row->self_ps += planar_track_get_self_time (track, index);
  row->min_ps = MIN (row->min_ps, ev->duration_ps);
  row->max_ps = MAX (row->max_ps, ev->duration_ps);
  self->n_events++;
  self->next_track = track;
  self->next_index = index + 1;
  if (G_UNLIKELY (self->collect_row != 0)
      && row == &g_array_index (self->rows, PlanarAggregate, self->collect_row - 1))
    {
      PlanarEventRef ref = { self->collect_plane, self->collect_trace, (guint32) (track - plane->tracks),
                             (guint32) index };

      g_array_append_val (self->collect_refs, ref);
    }
}

void
planar_aggregator_add_event (PlanarAggregator  *self,
                             const PlanarPlane *plane,
                             const PlanarTrack *track,
                             gsize              index)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (plane != NULL && track != NULL);
  g_return_if_fail (index < track->n_events);

  use_plane (self, plane, track);
  accumulate (self, plane, track, index);
}

typedef struct
{
  PlanarAggregator  *self;
  const PlanarPlane *plane;
} AddClosure;

static gboolean
add_one (const PlanarTrack *track,
         gsize              index,
         gpointer           user_data)
{
  AddClosure *c = user_data;

  accumulate (c->self, c->plane, track, index);
  return (c->self->n_events % CANCEL_BLOCK) != 0 || !g_cancellable_is_cancelled (c->self->cancellable);
}

void
planar_aggregator_set_cancellable (PlanarAggregator *self,
                                   GCancellable     *cancellable)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  g_set_object (&self->cancellable, cancellable);
}

void
planar_aggregator_add_track (PlanarAggregator  *self,
                             const PlanarPlane *plane,
                             const PlanarTrack *track,
                             gint64             t0_ps,
                             gint64             t1_ps)
{
  AddClosure c = { self, plane };

  g_return_if_fail (self != NULL);
  g_return_if_fail (plane != NULL && track != NULL);

  /* A counter line's samples are values, drawn as counters: no events of
   * a table or a summary (XProf's op tables leave them out too). */
  if (planar_track_is_counter_line (track))
    return;
  use_plane (self, plane, track);
  if (t0_ps <= track->start_ps && t1_ps >= track->end_ps)
    {
      /* The whole track: no search, straight through. */
      for (gsize i = 0; i < track->n_events; i++)
        {
          if (i % CANCEL_BLOCK == 0 && g_cancellable_is_cancelled (self->cancellable))
            return;
          accumulate (self, plane, track, i);
        }
      return;
    }
  planar_track_foreach_in_range (track, t0_ps, t1_ps, add_one, &c);
}

static int
compare_rows (gconstpointer pa,
              gconstpointer pb,
              gpointer      user_data)
{
  const PlanarAggregate *a = pa;
  const PlanarAggregate *b = pb;
  PlanarAggregateSort sort = GPOINTER_TO_INT (user_data);
  gint64 ka = 0, kb = 0;

  if (a->kind_order != b->kind_order)
    return a->kind_order < b->kind_order ? -1 : 1;
  if (g_strcmp0 (a->kind, b->kind) != 0)
    return g_strcmp0 (a->kind, b->kind);
  switch (sort)
    {
    case PLANAR_AGGREGATE_SORT_SELF:
      ka = a->self_ps;
      kb = b->self_ps;
      break;
    case PLANAR_AGGREGATE_SORT_TOTAL:
      ka = a->total_ps;
      kb = b->total_ps;
      break;
    case PLANAR_AGGREGATE_SORT_COUNT:
      ka = (gint64) MIN (a->count, (guint64) G_MAXINT64);
      kb = (gint64) MIN (b->count, (guint64) G_MAXINT64);
      break;
    case PLANAR_AGGREGATE_SORT_NAME:
    default:
      break;
    }
  if (ka != kb)
    return ka > kb ? -1 : 1;
  return strcmp (a->name, b->name);
}

GArray *
planar_aggregator_get_results (PlanarAggregator    *self,
                               PlanarAggregateSort  sort)
{
  GArray *out;

  g_return_val_if_fail (self != NULL, NULL);

  /* The last run may go on past the events added. */
  flush_run (self, TRUE);
  self->next_track = NULL;
  out = g_array_sized_new (FALSE, FALSE, sizeof (PlanarAggregate), self->rows->len);
  g_array_append_vals (out, self->rows->data, self->rows->len);
  g_array_sort_with_data (out, compare_rows, GINT_TO_POINTER (sort));
  return out;
}

guint64
planar_aggregator_get_n_events (PlanarAggregator *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_events;
}

/* ------------------------------------------------------------------------
 * A plane's table on a worker
 * ------------------------------------------------------------------------ */

typedef struct
{
  PlanarAggregator *aggregator;
  PlanarTrace      *trace;
  guint             plane;
  int               track;
} AddPlaneData;

static void
add_plane_data_free (gpointer data)
{
  AddPlaneData *d = data;

  planar_aggregator_free (d->aggregator);
  g_object_unref (d->trace);
  g_free (d);
}

static void
add_plane_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  AddPlaneData *d = task_data;
  PlanarAggregator *self = d->aggregator;
  const PlanarPlane *plane = planar_trace_get_plane (d->trace, d->plane);

  g_set_object (&self->cancellable, cancellable);
  for (guint t = 0; t < plane->n_tracks && !g_cancellable_is_cancelled (cancellable); t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      if (d->track < 0 ? !track->derived : (guint) d->track == t)
        planar_aggregator_add_track (self, plane, track, G_MININT64, G_MAXINT64);
    }
  /* The last run's estimate, shared out here: it may read the stats of
   * the kernels after it. */
  if (!g_cancellable_is_cancelled (cancellable))
    flush_run (self, TRUE);
  g_clear_object (&self->cancellable);
  if (g_task_return_error_if_cancelled (task))
    return;
  /* A file that changed on disk gives no table: its stats cannot be
   * trusted. Other failed reads count the event without costs. */
  if (self->error != NULL && g_error_matches (self->error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED))
    {
      g_task_return_error (task, g_steal_pointer (&self->error));
      return;
    }
  d->aggregator = NULL;
  g_task_return_pointer (task, self, (GDestroyNotify) planar_aggregator_free);
}

void
planar_aggregator_add_plane_async (PlanarAggregator    *self,
                                   PlanarTrace         *trace,
                                   guint                plane,
                                   int                  track,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  AddPlaneData *d;

  g_return_if_fail (self != NULL);
  g_return_if_fail (PLANAR_IS_TRACE (trace));
  g_return_if_fail (plane < planar_trace_get_n_planes (trace));
  g_return_if_fail (track < 0 || (guint) track < planar_trace_get_plane (trace, plane)->n_tracks);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  d = g_new0 (AddPlaneData, 1);
  d->aggregator = self;
  d->trace = g_object_ref (trace);
  d->plane = plane;
  d->track = track;
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, planar_aggregator_add_plane_async);
  g_task_set_name (task, "[planar] aggregate plane");
  g_task_set_task_data (task, d, add_plane_data_free);
  g_task_run_in_thread (task, add_plane_thread);
}

PlanarAggregator *
planar_aggregator_add_plane_finish (GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == planar_aggregator_add_plane_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
