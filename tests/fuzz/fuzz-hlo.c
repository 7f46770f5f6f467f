/* fuzz-hlo.c: the HloProto decoder (model/trace/planar-hlo.h) on any
 * bytes, and every lookup and text a viewer takes from what it decoded.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-fuzz.h"
#include "planar-model.h"

#include <string.h>

static void
exercise_module (const PlanarHloModule *m)
{
  for (guint i = 0; i < m->n_instructions; i++)
    {
      const PlanarHloInstruction *in = &m->instructions[i];
      const PlanarHloStackFrame *frames[16];
      g_autofree char *full = planar_hlo_instruction_dup_op_full_name (in);
      g_autofree char *source = planar_hlo_instruction_dup_source (m, in);
      g_autofree char *stack = planar_hlo_module_format_stack (m, in);
      const PlanarHloShape *shape = planar_hlo_instruction_get_shape (m, in);
      const PlanarHloExtra *extra = planar_hlo_instruction_get_extra (m, in);

      g_assert (full != NULL && (source == NULL || strchr (source, ':') != NULL));
      g_assert (stack == NULL || in->stack_frame_id > 0);
      g_assert (planar_hlo_module_find_instruction (m, in->name, -1) != NULL);
      g_assert (in->computation < m->n_computations);
      planar_hlo_module_get_stack (m, in, frames, G_N_ELEMENTS (frames));
      (void) planar_hlo_shape_get_bytes (m, shape);
      (void) planar_hlo_shape_get_elements (shape);
      g_assert (strlen (shape->text) > 0);
      for (guint k = 0; k < in->n_operands; k++)
        g_assert (planar_hlo_instruction_get_operand (m, in, k)->computation == in->computation);
      for (guint k = 0; k < in->n_users; k++)
        g_assert (planar_hlo_instruction_get_user (m, in, k) != NULL);
      for (guint k = 0; k < in->n_called; k++)
        g_assert (planar_hlo_instruction_get_called (m, in, k) != NULL);
      if (extra != NULL)
        {
          gint64 sum = 0;

          for (guint k = 0; k < extra->n_dimensions; k++)
            sum += extra->dimensions[k];
          for (guint k = 0; k < extra->n_window; k++)
            sum += extra->window[k].size;
          for (guint k = 0; extra->dot != NULL && k < extra->dot->n_lhs_contracting; k++)
            sum += extra->dot->lhs_contracting[k];
          for (guint k = 0; extra->conv != NULL && k < extra->conv->n_output_spatial; k++)
            sum += extra->conv->output_spatial[k];
          (void) sum;
          g_assert (strlen (extra->backend_config) == extra->backend_config_len);
        }
    }
  for (guint c = 0; c < m->n_computations; c++)
    g_assert (m->computations[c].n_instructions == 0 || m->computations[c].root < m->n_instructions);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  PlanarHloIndex *index = planar_hlo_index_new ();
  g_autoptr(GError) error = NULL;
  gboolean ok = planar_hlo_index_add (index, 7, data, size, &error);

  g_assert (ok == (error == NULL));
  g_assert (planar_hlo_index_get_n_modules (index) == (ok ? 1u : 0u));
  if (ok)
    {
      const PlanarHloModule *m = planar_hlo_index_find_module (index, 7);

      exercise_module (m);
      g_assert (planar_hlo_index_get_memory (index) > 0);
    }
  planar_hlo_index_free (index);
  return 0;
}
