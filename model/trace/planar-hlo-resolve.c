/* planar-hlo-resolve.c: the second half of an HloProto's decode: the
 * module's stack frames, and turning ids into indices (operands, users,
 * called computations, roots), with the checks that refuse a damaged
 * module (planar-hlo.c reads the rest).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hlo-decode-private.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

/* Stack frames */

typedef struct
{
  GArray *files;      /* const char * */
  GArray *functions;  /* const char * */
  GArray *locations;  /* gint32[4] */
  GArray *frames;     /* gint32[2] */
} FrameIndexReader;

static gboolean
visit_location (Decoder               *d,
                int                    kind,
                const PlanarWireField *f,
                gpointer               data)
{
  gint32 *loc = data;

  (void) d;
  loc[kind - 1] = (gint32) f->value;
  return TRUE;
}

static gboolean
visit_frame (Decoder               *d,
             int                    kind,
             const PlanarWireField *f,
             gpointer               data)
{
  gint32 *frame = data;

  (void) d;
  frame[kind - 1] = (gint32) f->value;
  return TRUE;
}

static gboolean
visit_frame_index (Decoder               *d,
                   int                    kind,
                   const PlanarWireField *f,
                   gpointer               data)
{
  FrameIndexReader *fr = data;

  switch (kind)
    {
    case SFI_FILES:
    case SFI_FUNCTIONS:
      {
        const char *s = _planar_hlo_intern_field (d, f);

        g_array_append_val (kind == SFI_FILES ? fr->files : fr->functions, s);
        return TRUE;
      }
    case SFI_LOCATIONS:
      {
        gint32 loc[4] = { 0 };

        if (!_planar_hlo_read_message (d, f->data, f->len, &d->f->location, "FileLocation", visit_location, loc))
          return FALSE;
        g_array_append_vals (fr->locations, loc, 1);
        return TRUE;
      }
    case SFI_FRAMES:
      {
        gint32 frame[2] = { 0 };

        if (!_planar_hlo_read_message (d, f->data, f->len, &d->f->frame, "StackFrame", visit_frame, frame))
          return FALSE;
        g_array_append_vals (fr->frames, frame, 1);
        return TRUE;
      }
    default:
      return TRUE;
    }
}

/* Decodes the module's StackFrameIndexProto into module frames, checking
 * every id (1-based; 0 = unset) and that no frame is its own ancestor. */
gboolean
_planar_hlo_read_frames (Decoder      *d,
             const guint8 *data,
             gsize         len)
{
  FrameIndexReader fr;
  PlanarHloStackFrame *frames = NULL;
  g_autofree guint8 *state = NULL;
  const char *empty = _planar_hlo_index_intern (d->index, "", 0);
  gboolean ok = FALSE;
  guint n;

  fr.files = g_array_new (FALSE, FALSE, sizeof (const char *));
  fr.functions = g_array_new (FALSE, FALSE, sizeof (const char *));
  fr.locations = g_array_new (FALSE, FALSE, 4 * sizeof (gint32));
  fr.frames = g_array_new (FALSE, FALSE, 2 * sizeof (gint32));
  if (!_planar_hlo_read_message (d, data, len, &d->f->frame_index, "StackFrameIndexProto", visit_frame_index, &fr))
    goto out;

  n = fr.frames->len;
  frames = g_new0 (PlanarHloStackFrame, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const gint32 *frame = &g_array_index (fr.frames, gint32, 2 * i);
      PlanarHloStackFrame *out = &frames[i];

      out->file = out->function = empty;
      out->parent = PLANAR_HLO_NONE;
      if (frame[0] < 0 || (guint) frame[0] > fr.locations->len)
        {
          _planar_hlo_fail (d, _("stack frame %u refers to file location %d of %u"), i + 1, frame[0], fr.locations->len);
          goto out;
        }
      if (frame[1] < 0 || (guint) frame[1] > n)
        {
          _planar_hlo_fail (d, _("stack frame %u refers to parent frame %d of %u"), i + 1, frame[1], n);
          goto out;
        }
      if (frame[1] > 0)
        out->parent = (guint32) frame[1] - 1;
      if (frame[0] > 0)
        {
          const gint32 *loc = &g_array_index (fr.locations, gint32, 4 * (frame[0] - 1));

          if (loc[0] < 0 || (guint) loc[0] > fr.files->len || loc[1] < 0 || (guint) loc[1] > fr.functions->len)
            {
              _planar_hlo_fail (d, _("file location %d refers to a file or function name that does not exist"), frame[0]);
              goto out;
            }
          if (loc[0] > 0)
            out->file = g_array_index (fr.files, const char *, loc[0] - 1);
          if (loc[1] > 0)
            out->function = g_array_index (fr.functions, const char *, loc[1] - 1);
          out->line = loc[2];
          out->column = loc[3];
        }
    }

  /* No cycles among parents: 0 unvisited, 1 on the current walk, 2 done. */
  state = g_new0 (guint8, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      guint32 j = i;

      while (j != PLANAR_HLO_NONE && state[j] == 0)
        {
          state[j] = 1;
          j = frames[j].parent;
        }
      if (j != PLANAR_HLO_NONE && state[j] == 1)
        {
          _planar_hlo_fail (d, _("stack frame %u is its own ancestor"), j + 1);
          goto out;
        }
      for (guint32 k = i; k != PLANAR_HLO_NONE && state[k] == 1; k = frames[k].parent)
        state[k] = 2;
    }

  g_free ((gpointer) d->m->pub.frames);
  d->m->pub.frames = frames;
  d->m->pub.n_frames = n;
  frames = NULL;
  ok = TRUE;

out:
  g_free (frames);
  g_array_unref (fr.files);
  g_array_unref (fr.functions);
  g_array_unref (fr.locations);
  g_array_unref (fr.frames);
  return ok;
}

/* Checks the instructions' stack frame ids against the module's frames. */
gboolean
_planar_hlo_check_frame_ids (Decoder *d)
{
  const PlanarHloInstruction *ins = (const PlanarHloInstruction *) (gconstpointer) d->instructions->data;

  for (guint i = 0; i < d->instructions->len; i++)
    if (ins[i].stack_frame_id < 0 || (guint) ins[i].stack_frame_id > d->m->pub.n_frames)
      return _planar_hlo_fail (d, _("stack frame %d of instruction %s is out of range (the module has %u)"),
                   ins[i].stack_frame_id, ins[i].name, d->m->pub.n_frames);
  return TRUE;
}

typedef struct
{
  gint64  id;
  guint32 computation;
  guint32 index;
} IdEntry;

static int
compare_id_entries (gconstpointer a,
                    gconstpointer b)
{
  const IdEntry *x = a, *y = b;

  if (x->computation != y->computation)
    return x->computation < y->computation ? -1 : 1;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static const IdEntry *
find_id (const IdEntry *entries,
         gsize          n,
         guint32        computation,
         gint64         id)
{
  IdEntry key = { id, computation, 0 };
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (compare_id_entries (&entries[mid], &key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < n && entries[lo].computation == computation && entries[lo].id == id)
    return &entries[lo];
  return NULL;
}

/* Resolves operand and called computation ids into indices, computes
 * users, roots and callers, and checks for call cycles. */
gboolean
_planar_hlo_resolve (Decoder *d)
{
  PlanarHloInstruction *ins = (PlanarHloInstruction *) (gpointer) d->instructions->data;
  PlanarHloComputation *comps = (PlanarHloComputation *) (gpointer) d->computations->data;
  guint n_ins = d->instructions->len, n_comps = d->computations->len;
  g_autofree IdEntry *by_id = g_new (IdEntry, MAX (n_ins, 1));
  g_autofree IdEntry *comp_by_id = g_new (IdEntry, MAX (n_comps, 1));
  g_autofree guint32 *n_users = g_new0 (guint32, MAX (n_ins, 1));
  g_autofree guint32 *stack = NULL;
  g_autofree guint8 *color = NULL;
  guint32 users_start;

  for (guint i = 0; i < n_ins; i++)
    by_id[i] = (IdEntry) { g_array_index (d->ids, gint64, i), ins[i].computation, i };
  qsort (by_id, n_ins, sizeof (IdEntry), compare_id_entries);
  for (guint c = 0; c < n_comps; c++)
    comp_by_id[c] = (IdEntry) { comps[c].id, 0, c };
  qsort (comp_by_id, n_comps, sizeof (IdEntry), compare_id_entries);
  for (guint c = 1; c < n_comps; c++)
    if (comp_by_id[c].id == comp_by_id[c - 1].id)
      return _planar_hlo_fail (d, _("two computations have the id %" PRId64), comp_by_id[c].id);

  /* Operands (in the instruction's computation), then called
   * computations, each into d->refs. */
  for (guint i = 0; i < n_ins; i++)
    {
      PlanarHloInstruction *in = &ins[i];
      guint32 start = d->refs->len;

      for (guint k = 0; k < in->n_operands; k++)
        {
          gint64 id = g_array_index (d->raw_operands, gint64, in->operands + k);
          const IdEntry *e = find_id (by_id, n_ins, in->computation, id);

          if (e == NULL)
            return _planar_hlo_fail (d, _("operand %" PRId64 " of instruction %s is not in its computation"), id,
                         in->name);
          g_array_append_val (d->refs, e->index);
          n_users[e->index]++;
        }
      in->operands = start;
      start = d->refs->len;
      for (guint k = 0; k < in->n_called; k++)
        {
          gint64 id = g_array_index (d->raw_called, gint64, in->called + k);
          const IdEntry *e = find_id (comp_by_id, n_comps, 0, id);

          if (e == NULL)
            return _planar_hlo_fail (d, _("instruction %s calls computation %" PRId64 ", which the module does not have"),
                         in->name, id);
          g_array_append_val (d->refs, e->index);
          if (comps[e->index].caller == PLANAR_HLO_NONE)
            comps[e->index].caller = i;
        }
      in->called = start;
    }

  /* Users: each user once, in instruction order. */
  users_start = d->refs->len;
  {
    guint32 offset = users_start;

    for (guint i = 0; i < n_ins; i++)
      {
        ins[i].users = offset;
        offset += n_users[i];
        n_users[i] = 0;
      }
    g_array_set_size (d->refs, offset);
  }
  for (guint i = 0; i < n_ins; i++)
    {
      const guint32 *ops;

      /* (No operand at all: the pool may be empty, its data NULL.) */
      if (ins[i].n_operands == 0)
        continue;
      ops = &g_array_index (d->refs, guint32, ins[i].operands);
      for (guint k = 0; k < ins[i].n_operands; k++)
        {
          PlanarHloInstruction *op = &ins[ops[k]];
          guint32 *users = &g_array_index (d->refs, guint32, op->users);

          /* An instruction using the same operand twice is one user. */
          if (op->n_users > 0 && users[op->n_users - 1] == i)
            continue;
          users[op->n_users++] = i;
        }
    }

  /* Roots, and the entry. */
  for (guint c = 0; c < n_comps; c++)
    {
      gint64 root_id = g_array_index (d->root_ids, gint64, c);
      const IdEntry *e = root_id >= 0 ? find_id (by_id, n_ins, c, root_id) : NULL;

      if (e != NULL)
        comps[c].root = e->index;
      else if (comps[c].n_instructions > 0)
        comps[c].root = comps[c].first + comps[c].n_instructions - 1;
    }
  d->m->pub.entry = PLANAR_HLO_NONE;
  for (guint c = 0; c < n_comps; c++)
    if ((d->has_entry_id && comps[c].id == d->entry_id) ||
        (!d->has_entry_id && d->entry_name != NULL && comps[c].name == d->entry_name))
      d->m->pub.entry = c;
  if (d->m->pub.entry == PLANAR_HLO_NONE && n_comps > 0 && !d->has_entry_id && d->entry_name == NULL)
    d->m->pub.entry = n_comps - 1;

  /* No computation calls itself, directly or not: a depth-first walk of
   * the call graph with an explicit stack (0 new, 1 on the walk, 2 done). */
  color = g_new0 (guint8, MAX (n_comps, 1));
  stack = g_new (guint32, 2 * MAX (n_comps, 1));
  for (guint c0 = 0; c0 < n_comps; c0++)
    {
      guint sp = 0;

      if (color[c0] != 0)
        continue;
      /* Each stack entry: a computation and the position of the next
       * edge to follow among its instructions' called lists. */
      stack[sp++] = c0;
      stack[sp++] = 0;
      color[c0] = 1;
      while (sp > 0)
        {
          guint32 c = stack[sp - 2];
          guint32 pos = stack[sp - 1];
          const PlanarHloComputation *comp = &comps[c];
          gboolean pushed = FALSE;

          /* pos walks every (instruction, called) pair of the computation
           * as one running count. */
          for (guint i = 0, seen = 0; i < comp->n_instructions && !pushed; i++)
            {
              const PlanarHloInstruction *in = &ins[comp->first + i];

              if (pos >= seen + in->n_called)
                {
                  seen += in->n_called;
                  continue;
                }
              for (guint k = pos - seen; k < in->n_called; k++)
                {
                  guint32 callee = g_array_index (d->refs, guint32, in->called + k);

                  pos++;
                  if (color[callee] == 1)
                    return _planar_hlo_fail (d, _("computation %s calls itself (through %s)"), comps[callee].name, in->name);
                  if (color[callee] == 0)
                    {
                      stack[sp - 1] = pos;
                      color[callee] = 1;
                      stack[sp++] = callee;
                      stack[sp++] = 0;
                      pushed = TRUE;
                      break;
                    }
                }
              seen += in->n_called;
            }
          if (!pushed)
            {
              color[c] = 2;
              sp -= 2;
            }
        }
    }
  return TRUE;
}

