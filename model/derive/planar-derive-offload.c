/* planar-derive-offload.c: the Host Offload rows of a `/device:TPU:N`
 * plane, as XProf's HostOffloadEventProcessor (`host_offload_utils.cc`)
 * draws them.
 *
 * An op that moves a tensor between the device and the host's memory is
 * an asynchronous pair: a `copy-start` and its `copy-done` (or
 * `dynamic-slice-start/-done`, `dynamic-update-slice-start/-done`), the
 * host's buffers marked with XLA's host memory space `S(5)` in the op's
 * shape. XProf recognises them by their event metadata: the display name
 * holds one of those op kinds and the name (the op's HLO text, with its
 * shapes) holds `S(5)`. It pairs each done with the oldest start of the
 * same instruction still open (instructions told apart by the text before
 * "-start"/"-done" and the number after the last '.', so `copy-start.3`
 * and `copy-done.3` make one `offload-copy.3`), in the time order the TPU
 * pass visits events, and draws one event per pair from the start's begin
 * to the done's end. A done with no open start and a start never done draw
 * nothing.
 *
 * Rows: each pair goes on the row, among those whose last event ended by
 * the pair's begin, that has been free the longest (of rows free since the
 * same time, the last: XProf compares with <=), so not necessarily the
 * first free one; a new row "Host Offload Ops row N" (N from 0) when no
 * row is free, up to XProf's 41 line ids; past that the last row takes it.
 * How many rows there will be is told before the pass by running the same
 * pairing and choice over the plane's file events without building
 * anything (_planar_offload_predict_n_rows(), for the timeline to keep
 * their room): only the few ops that are host offload ops cost more than
 * a look at their metadata index.
 *
 * Each event carries XProf's stats: `_a` (asynchronous) 1, the done's
 * `raw_bytes_accessed` and the start's `shape_with_layout`, as metadata
 * stats of the derived event.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include <string.h>

/* XLA's Layout::kHostMemorySpace, as the shape text writes it. */
#define HOST_MEMORY_LABEL "S(5)"

typedef enum
{
  ROLE_NONE,
  ROLE_START,
  ROLE_DONE,
} Role;

/* What a file metadata entry is to this pass. */
typedef struct
{
  /* Index + 1 in the pass's instructions; 0 when not a host offload op. */
  guint32 instruction;
  guint32 role;
} OpKind;

/* A start still waiting for its done. */
typedef struct
{
  PlanarEventRef ref;
  gint64         start_ps;
  guint32        metadata;
} OpenStart;

/* One offloaded instruction: its interned display name and its open
 * starts, oldest first. */
typedef struct
{
  const char *name;
  GQueue      open;
} Instruction;

struct _OffloadPass
{
  /* NULL when only counting the rows (_planar_offload_predict_n_rows()). */
  PlaneContext *ctx;
  PlanarTrace  *self;
  const PlanarPlane *plane;
  /* Per file metadata entry. */
  OpKind       *kinds;
  guint         n_kinds;
  /* Instruction, by index; name -> index + 1. */
  GArray       *instructions;
  GHashTable   *by_name;
  /* (start metadata << 32 | done metadata) -> derived metadata + 1. */
  GHashTable   *metadata;
  /* The rows (LineBuilder *, none when counting) and the end of each
   * one's last event. */
  GPtrArray    *rows;
  GArray       *row_ends;
};

static gboolean
is_offload_kind (const char *display_name)
{
  static const char * const kinds[] = {
    "copy-start", "copy-done",
    "dynamic-slice-start", "dynamic-slice-done",
    "dynamic-update-slice-start", "dynamic-update-slice-done",
  };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (strstr (display_name, kinds[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* XProf's name of the instruction an op belongs to:
 * "offload-<text before -start or -done>.<text after the last '.'>", the
 * number being 0 without a '.'. */
static void
instruction_name (const char *display_name,
                  GString    *out)
{
  const char *dot = strrchr (display_name, '.');
  const char *cut = strstr (display_name, "-start");

  if (cut == NULL)
    cut = strstr (display_name, "-done");
  if (cut == NULL)
    cut = display_name + strlen (display_name);
  g_string_assign (out, "offload-");
  g_string_append_len (out, display_name, cut - display_name);
  g_string_append_c (out, '.');
  g_string_append (out, dot != NULL ? dot + 1 : "0");
}

static void
open_start_free (gpointer data)
{
  g_free (data);
}

void
_planar_offload_pass_free (OffloadPass *op)
{
  if (op == NULL)
    return;
  for (guint i = 0; i < op->instructions->len; i++)
    g_queue_clear_full (&g_array_index (op->instructions, Instruction, i).open, open_start_free);
  g_array_unref (op->instructions);
  g_hash_table_unref (op->by_name);
  g_hash_table_unref (op->metadata);
  for (guint i = 0; i < op->rows->len; i++)
    {
      LineBuilder *row = g_ptr_array_index (op->rows, i);

      _planar_line_builder_clear (row);
      g_free (row);
    }
  g_ptr_array_unref (op->rows);
  g_array_unref (op->row_ends);
  g_free (op->kinds);
  g_free (op);
}

/* The pass over @plane of @self (its first @n_metadata metadata entries
 * being the file's), or NULL when none of its ops is a host offload op
 * (the common case: the plane is read no further for it). */
static OffloadPass *
offload_pass_new (PlanarTrace       *self,
                  const PlanarPlane *plane,
                  guint              n_metadata)
{
  g_autoptr(GString) name = g_string_new (NULL);
  OffloadPass *op = g_new0 (OffloadPass, 1);

  op->self = self;
  op->plane = plane;
  /* The file's metadata only: the events visited are the file's. */
  op->n_kinds = n_metadata;
  op->kinds = g_new0 (OpKind, MAX (op->n_kinds, 1));
  op->instructions = g_array_new (FALSE, TRUE, sizeof (Instruction));
  op->by_name = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  /* Keyed by start << 32 | done: a hash of the low half alone would put
   * every start the file pairs with one done in one bucket. */
  op->metadata = g_hash_table_new_full (_planar_id_hash, _planar_id_equal, g_free, NULL);
  op->rows = g_ptr_array_new ();
  op->row_ends = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint m = 0; m < op->n_kinds; m++)
    {
      const PlanarEventMetadata *md = &plane->metadata[m];
      const char *interned;
      gpointer found;

      if (md->name == NULL || md->display_name == NULL ||
          strstr (md->name, HOST_MEMORY_LABEL) == NULL || !is_offload_kind (md->display_name))
        continue;
      instruction_name (md->display_name, name);
      interned = _planar_derive_intern_len (self, name->str, name->len);
      found = g_hash_table_lookup (op->by_name, interned);
      if (found == NULL)
        {
          Instruction ins = { interned, G_QUEUE_INIT };

          g_array_append_val (op->instructions, ins);
          found = GUINT_TO_POINTER (op->instructions->len);
          g_hash_table_insert (op->by_name, (gpointer) interned, found);
        }
      op->kinds[m].instruction = GPOINTER_TO_UINT (found);
      /* Every kind above holds one of the two. */
      op->kinds[m].role = strstr (md->display_name, "-start") != NULL ? ROLE_START : ROLE_DONE;
    }

  if (op->instructions->len == 0)
    {
      _planar_offload_pass_free (op);
      return NULL;
    }
  return op;
}

/* The pass of plane @ctx, or NULL when it has no host offload op. */
OffloadPass *
_planar_offload_pass_new (PlaneContext *ctx)
{
  OffloadPass *op = offload_pass_new (ctx->self, ctx->plane, ctx->first_metadata);

  if (op != NULL)
    op->ctx = ctx;
  return op;
}

static const PlanarStat *
find_metadata_stat (const PlanarEventMetadata *md,
                    const char                *name)
{
  for (guint i = 0; i < md->n_stats; i++)
    if (md->stats[i].name != NULL && strcmp (md->stats[i].name, name) == 0)
      return &md->stats[i];
  return NULL;
}

/* The derived metadata of a pair of @start and @done (file metadata
 * indices): named after the instruction, with XProf's stats. */
static guint32
pair_metadata (OffloadPass *op,
               const char  *name,
               guint32      start,
               guint32      done)
{
  PlaneContext *ctx = op->ctx;
  const PlanarEventMetadata *start_md = &ctx->plane->metadata[start];
  const PlanarEventMetadata *done_md = &ctx->plane->metadata[done];
  gint64 key = (gint64) ((guint64) start << 32 | done);
  gpointer found = g_hash_table_lookup (op->metadata, &key);
  const PlanarStat *stat;
  PlanarEventMetadata *md;
  guint32 index;
  guint64 bytes;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  index = _planar_plane_context_add_metadata (ctx, name, name);
  md = _planar_plane_context_get_metadata (ctx, index);
  /* XProf marks them asynchronous, so that the trace viewer draws them
   * apart from the ops. */
  _planar_derive_metadata_add_int (ctx, md, "_a", 1);
  stat = find_metadata_stat (done_md, "raw_bytes_accessed");
  if (stat != NULL && _planar_derive_stat_int (stat, &bytes))
    _planar_derive_metadata_add_int (ctx, md, "raw_bytes_accessed", (gint64) bytes);
  /* The start's shape holds the done's too. */
  stat = find_metadata_stat (start_md, "shape_with_layout");
  if (stat != NULL && (stat->kind == PLANAR_STAT_STRING || stat->kind == PLANAR_STAT_REF))
    _planar_derive_metadata_add_text (ctx, md, "shape_with_layout", stat->str.data, stat->str.len);
  g_hash_table_insert (op->metadata, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (index + 1));
  return index;
}

/* The row pair [@start_ps, @end_ps] goes on (XProf's choice, see the top). */
static guint
choose_row (OffloadPass *op,
            gint64       start_ps,
            gint64       end_ps)
{
  gssize chosen = -1;
  gint64 frontier = start_ps;
  gint64 *end;

  for (guint i = 0; i < op->row_ends->len; i++)
    if (g_array_index (op->row_ends, gint64, i) <= frontier)
      {
        chosen = i;
        frontier = g_array_index (op->row_ends, gint64, i);
      }
  if (chosen < 0)
    {
      if (op->row_ends->len < PLANAR_HOST_OFFLOAD_ROWS_MAX)
        {
          if (op->ctx != NULL)
            {
              LineBuilder *row = g_new0 (LineBuilder, 1);

              _planar_line_builder_init (row, op->self, PLANAR_LINE_ID_HOST_OFFLOAD_MIN + op->row_ends->len,
                                         _planar_offload_row_name (op->self, op->row_ends->len), G_MAXUINT, FALSE);
              g_ptr_array_add (op->rows, row);
            }
          g_array_append_val (op->row_ends, end_ps);
        }
      chosen = op->row_ends->len - 1;
    }
  end = &g_array_index (op->row_ends, gint64, chosen);
  *end = MAX (*end, end_ps);
  return (guint) chosen;
}

const char *
_planar_offload_row_name (PlanarTrace *self,
                          guint        row)
{
  g_autofree char *name = g_strdup_printf ("Host Offload Ops row %u", row);

  return _planar_derive_intern (self, name);
}

/* Feeds one event of the plane (in the TPU pass's time order, asynchronous
 * ones left out as XProf does). */
void
_planar_offload_pass_add (OffloadPass          *op,
                          const PlanarEventRef *ref,
                          const PlanarEvent    *event)
{
  static const Group no_group = { FALSE, 0 };
  const OpKind *kind;
  Instruction *ins;
  OpenStart *start;
  gint64 end_ps;
  guint row;

  if (event->metadata >= op->n_kinds)
    return;
  kind = &op->kinds[event->metadata];
  if (kind->instruction == 0)
    return;
  ins = &g_array_index (op->instructions, Instruction, kind->instruction - 1);
  if (kind->role == ROLE_START)
    {
      start = g_new (OpenStart, 1);
      start->ref = *ref;
      start->start_ps = event->start_ps;
      start->metadata = event->metadata;
      g_queue_push_tail (&ins->open, start);
      return;
    }

  /* Not every start is traced: a done without one draws nothing. */
  start = g_queue_pop_head (&ins->open);
  if (start == NULL)
    return;
  end_ps = MAX (event->start_ps + event->duration_ps, start->start_ps);
  row = choose_row (op, start->start_ps, end_ps);
  if (op->ctx != NULL)
    _planar_plane_context_add_event (op->ctx, ((LineBuilder *) g_ptr_array_index (op->rows, row))->events,
                                     start->start_ps, end_ps,
                                     pair_metadata (op, ins->name, start->metadata, event->metadata),
                                     no_group, &start->ref);
  g_free (start);
}

guint
_planar_offload_pass_get_n_rows (OffloadPass *op)
{
  return op != NULL ? op->row_ends->len : 0;
}

/* A file event of the plane, in the TPU pass's order: as visit_tpu_event()
 * feeds the pass (asynchronous ops left out), reading the stats of host
 * offload ops only. */
static gboolean
count_event (DeriveContext        *dc,
             const PlanarEventRef *ref,
             const PlanarEvent    *event,
             gpointer              user_data,
             GError              **error)
{
  OffloadPass *op = user_data;
  EventFacts facts;

  if (event->metadata >= op->n_kinds || op->kinds[event->metadata].instruction == 0)
    return TRUE;
  _planar_derive_event_facts (dc, op->plane, event, &facts);
  if (!facts.is_async)
    _planar_offload_pass_add (op, ref, event);
  return TRUE;
}

guint
_planar_offload_predict_n_rows (DeriveContext *dc,
                                guint          p)
{
  const PlanarPlane *plane = &dc->self->planes[p];
  guint n_file_tracks = 0, n_rows;
  g_autofree gboolean *use = NULL;
  OffloadPass *op;

  while (n_file_tracks < plane->n_tracks && !plane->tracks[n_file_tracks].derived)
    n_file_tracks++;
  /* Derived metadata, if any, follow the file's. */
  op = offload_pass_new (dc->self, plane, plane->n_metadata);
  if (op == NULL)
    return 0;
  use = g_new (gboolean, MAX (n_file_tracks, 1));
  for (guint t = 0; t < n_file_tracks; t++)
    use[t] = TRUE;
  _planar_derive_visit_sorted (dc, p, use, n_file_tracks, count_event, op, NULL);
  n_rows = _planar_offload_pass_get_n_rows (op);
  _planar_offload_pass_free (op);
  return n_rows;
}

LineBuilder *
_planar_offload_pass_get_row (OffloadPass *op,
                              guint        i)
{
  g_assert (i < op->rows->len);
  return g_ptr_array_index (op->rows, i);
}
