/* planar-trace-hlo.c: the trace's HLO: the HloProtos of `/host:metadata`
 * read into a PlanarHloIndex once the file's tracks are shown (the
 * loader's "Reading HLO"), and an event resolved to its instruction
 * (planar-hlo.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hlo-private.h"
#include "planar-trace-private.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>

/* What XProf names the plane and the stat (docs/formats.md §4.7). */
#define METADATA_PLANE "/host:metadata"
#define HLO_PROTO_STAT "Hlo Proto"

gboolean
_planar_trace_read_hlo (PlanarTrace   *self,
                        GCancellable  *cancellable,
                        GError       **error)
{
  const PlanarPlane *plane;
  PlanarHloIndex *index;
  g_autoptr(GPtrArray) errors = NULL;

  if (self->hlo_read)
    return TRUE;
  plane = planar_trace_find_plane (self, METADATA_PLANE);
  index = planar_hlo_index_new ();
  errors = g_ptr_array_new_with_free_func (g_free);
  for (guint m = 0; plane != NULL && m < plane->n_metadata; m++)
    {
      const PlanarEventMetadata *md = &plane->metadata[m];
      /* The program id: the metadata's `program_id` stat where it has one
       * (JAX 0.11 numbers the metadata 1, 2, 3 and keeps the program id,
       * which the device events carry, only there and in the name),
       * else its id (older writers: XProf's HloProtoMap key). */
      guint64 program_id = (guint64) md->id;

      for (guint s = 0; s < md->n_stats; s++)
        if (strcmp (md->stats[s].name, "program_id") == 0 &&
            planar_hlo_stat_get_program_id (&md->stats[s], &program_id))
          break;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          planar_hlo_index_free (index);
          return FALSE;
        }
      for (guint s = 0; s < md->n_stats; s++)
        {
          const PlanarStat *stat = &md->stats[s];
          GError *local = NULL;

          if (strcmp (stat->name, HLO_PROTO_STAT) != 0 ||
              (stat->kind != PLANAR_STAT_BYTES && stat->kind != PLANAR_STAT_STRING))
            continue;
          if (!planar_hlo_index_add (index, program_id, (const guint8 *) stat->str.data, stat->str.len,
                                     &local))
            {
              g_ptr_array_add (errors, g_strdup (local->message));
              g_error_free (local);
            }
        }
    }
  g_ptr_array_add (errors, NULL);
  self->hlo_errors = (GStrv) g_ptr_array_free (g_steal_pointer (&errors), FALSE);
  self->hlo_read = TRUE;
  g_atomic_pointer_set (&self->hlo_index, index);
  return TRUE;
}

void
_planar_trace_clear_hlo (PlanarTrace *self)
{
  g_clear_pointer (&self->hlo_index, planar_hlo_index_free);
  g_clear_pointer (&self->hlo_errors, g_strfreev);
  self->hlo_read = FALSE;
}

const PlanarHloIndex *
planar_trace_get_hlo_index (PlanarTrace *trace)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (trace), NULL);
  return g_atomic_pointer_get (&trace->hlo_index);
}

const char * const *
planar_trace_get_hlo_errors (PlanarTrace *trace)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (PLANAR_IS_TRACE (trace), none);
  if (g_atomic_pointer_get (&trace->hlo_index) == NULL || trace->hlo_errors == NULL)
    return none;
  return (const char * const *) trace->hlo_errors;
}

gboolean
planar_hlo_stat_get_program_id (const PlanarStat *stat,
                                guint64          *out)
{
  switch (stat->kind)
    {
    case PLANAR_STAT_INT64:
      if (stat->v.i64 < 0)
        return FALSE;
      *out = (guint64) stat->v.i64;
      return TRUE;
    case PLANAR_STAT_UINT64:
      *out = stat->v.u64;
      return TRUE;
    case PLANAR_STAT_STRING:
    case PLANAR_STAT_REF:
      return _planar_decimal_text (stat->str.data, stat->str.len, FALSE, out);
    default:
      return FALSE;
    }
}

/* The last "::"-separated part of an hlo_op (XProf resolves the
 * innermost). */
void
planar_hlo_op_instruction_name (const char  *data,
                                gsize        len,
                                const char **part,
                                gsize       *part_len)
{
  gsize start = 0;

  for (gsize i = 0; i + 1 < len; i++)
    if (data[i] == ':' && data[i + 1] == ':' && i + 2 < len)
      start = i + 2;
  *part = data + start;
  *part_len = len - start;
}

gboolean
planar_trace_resolve_hlo (PlanarTrace         *trace,
                          const PlanarPlane   *plane,
                          const PlanarEvent   *event,
                          PlanarHloResolution *out)
{
  const PlanarHloIndex *index;
  g_autoptr(GArray) stats = NULL;
  const PlanarStat *hlo_op = NULL, *hlo_module = NULL;
  const PlanarHloModule *module = NULL;
  const char *name;
  gsize name_len;

  g_return_val_if_fail (PLANAR_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (plane != NULL && event != NULL && out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  index = planar_trace_get_hlo_index (trace);
  stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  planar_trace_get_event_stats (trace, plane, event, stats, NULL);
  for (guint i = 0; i < stats->len; i++)
    {
      const PlanarStat *stat = &g_array_index (stats, PlanarStat, i);

      /* Strings come as str_value or as a reference to a stat metadata's
       * name; both are text here. */
      gboolean text = stat->kind == PLANAR_STAT_STRING || stat->kind == PLANAR_STAT_REF;

      if (text && strcmp (stat->name, "hlo_op") == 0)
        hlo_op = stat;
      else if (text && strcmp (stat->name, "hlo_module") == 0)
        hlo_module = stat;
      else if (strcmp (stat->name, "program_id") == 0)
        out->has_program_id = planar_hlo_stat_get_program_id (stat, &out->program_id);
    }
  if (index == NULL || hlo_op == NULL || hlo_op->str.len == 0)
    return FALSE;

  if (out->has_program_id)
    module = planar_hlo_index_find_module (index, out->program_id);
  else if (hlo_module != NULL)
    {
      g_autofree char *module_name = g_strndup (hlo_module->str.data, hlo_module->str.len);

      module = planar_hlo_index_find_module_by_name (index, module_name);
    }
  if (module == NULL)
    return FALSE;
  planar_hlo_op_instruction_name (hlo_op->str.data, hlo_op->str.len, &name, &name_len);
  out->instruction = planar_hlo_module_find_instruction (module, name, (gssize) name_len);
  /* A kernel of a command buffer names the command buffer in hlo_op: its
   * own name says which instruction it ran. */
  if (out->instruction == NULL)
    out->instruction = planar_hlo_module_find_kernel_instruction (module, planar_plane_get_event_name (plane, event,
                                                                                                      FALSE), -1);
  if (out->instruction == NULL)
    return FALSE;
  out->module = module;
  return TRUE;
}
