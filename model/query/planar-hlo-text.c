/* planar-hlo-text.c: HLO instructions, computations and modules as text,
 * in XLA's short form (operands by name).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hlo-cost.h"

#include <string.h>

/* backend_config longer than this is cut with "…" (a cuDNN config runs to
 * kilobytes; the text is for reading). */
#define MAX_BACKEND_CONFIG 400

static void
append_ints (GString      *s,
             const gint64 *v,
             guint32       n)
{
  g_string_append_c (s, '{');
  for (guint32 i = 0; i < n; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "," : "", v[i]);
  g_string_append_c (s, '}');
}

static void
append_quoted (GString    *s,
               const char *text,
               gsize       len)
{
  g_string_append_c (s, '"');
  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];

      if (c == '"' || c == '\\')
        g_string_append_c (s, '\\');
      if (c == '\n')
        g_string_append (s, "\\n");
      else if ((guchar) c < 0x20)
        g_string_append_printf (s, "\\x%02x", (guchar) c);
      else
        g_string_append_c (s, c);
    }
  g_string_append_c (s, '"');
}

/* XLA's dim_labels: "b01f_01io->b01f". */
static void
append_dim_labels (GString                 *s,
                   const PlanarHloConvDims *c)
{
  guint32 n = c->n_input_spatial + 2;
  char in[34], ker[34], out[34];

  if (n > 32 || c->n_kernel_spatial + 2 > 32 || c->n_output_spatial + 2 > 32)
    return;
  memset (in, '?', n);
  in[n] = '\0';
  memset (ker, '?', c->n_kernel_spatial + 2);
  ker[c->n_kernel_spatial + 2] = '\0';
  memset (out, '?', c->n_output_spatial + 2);
  out[c->n_output_spatial + 2] = '\0';
#define PUT(buf, len, dim, ch) \
  if ((dim) >= 0 && (dim) < (gint64) (len)) (buf)[(dim)] = (ch)
  PUT (in, n, c->input_batch, 'b');
  PUT (in, n, c->input_feature, 'f');
  PUT (ker, c->n_kernel_spatial + 2, c->kernel_input_feature, 'i');
  PUT (ker, c->n_kernel_spatial + 2, c->kernel_output_feature, 'o');
  PUT (out, c->n_output_spatial + 2, c->output_batch, 'b');
  PUT (out, c->n_output_spatial + 2, c->output_feature, 'f');
  for (guint32 i = 0; i < c->n_input_spatial && i < 10; i++)
    PUT (in, n, c->input_spatial[i], (char) ('0' + i));
  for (guint32 i = 0; i < c->n_kernel_spatial && i < 10; i++)
    PUT (ker, c->n_kernel_spatial + 2, c->kernel_spatial[i], (char) ('0' + i));
  for (guint32 i = 0; i < c->n_output_spatial && i < 10; i++)
    PUT (out, c->n_output_spatial + 2, c->output_spatial[i], (char) ('0' + i));
#undef PUT
  g_string_append_printf (s, ", dim_labels=%s_%s->%s", in, ker, out);
}

static void
append_window (GString              *s,
               const PlanarHloExtra *e)
{
  gboolean stride = FALSE, pad = FALSE, lhs = FALSE, rhs = FALSE;

  for (guint32 i = 0; i < e->n_window; i++)
    {
      stride |= e->window[i].stride != 1 && e->window[i].stride != 0;
      pad |= e->window[i].padding_low != 0 || e->window[i].padding_high != 0;
      lhs |= e->window[i].base_dilation > 1;
      rhs |= e->window[i].window_dilation > 1;
    }
  g_string_append (s, ", window={size=");
  for (guint32 i = 0; i < e->n_window; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "x" : "", e->window[i].size);
  if (stride)
    {
      g_string_append (s, " stride=");
      for (guint32 i = 0; i < e->n_window; i++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "x" : "", MAX (e->window[i].stride, 1));
    }
  if (pad)
    {
      g_string_append (s, " pad=");
      for (guint32 i = 0; i < e->n_window; i++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT "_%" G_GINT64_FORMAT, i ? "x" : "",
                                e->window[i].padding_low, e->window[i].padding_high);
    }
  if (lhs)
    {
      g_string_append (s, " lhs_dilate=");
      for (guint32 i = 0; i < e->n_window; i++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "x" : "", MAX (e->window[i].base_dilation, 1));
    }
  if (rhs)
    {
      g_string_append (s, " rhs_dilate=");
      for (guint32 i = 0; i < e->n_window; i++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "x" : "", MAX (e->window[i].window_dilation, 1));
    }
  g_string_append_c (s, '}');
}

static void
append_extra (GString                    *s,
              const PlanarHloModule      *module,
              const PlanarHloInstruction *in,
              const PlanarHloExtra       *e)
{
  if (e->n_window > 0)
    append_window (s, e);
  if (e->conv != NULL)
    append_dim_labels (s, e->conv);
  if (e->feature_group_count > 1)
    g_string_append_printf (s, ", feature_group_count=%" G_GINT64_FORMAT, e->feature_group_count);
  if (e->batch_group_count > 1)
    g_string_append_printf (s, ", batch_group_count=%" G_GINT64_FORMAT, e->batch_group_count);
  if (e->n_dimensions > 0)
    {
      g_string_append (s, ", dimensions=");
      append_ints (s, e->dimensions, e->n_dimensions);
    }
  if (e->dot != NULL)
    {
      if (e->dot->n_lhs_batch > 0)
        {
          g_string_append (s, ", lhs_batch_dims=");
          append_ints (s, e->dot->lhs_batch, e->dot->n_lhs_batch);
        }
      g_string_append (s, ", lhs_contracting_dims=");
      append_ints (s, e->dot->lhs_contracting, e->dot->n_lhs_contracting);
      if (e->dot->n_rhs_batch > 0)
        {
          g_string_append (s, ", rhs_batch_dims=");
          append_ints (s, e->dot->rhs_batch, e->dot->n_rhs_batch);
        }
      g_string_append (s, ", rhs_contracting_dims=");
      append_ints (s, e->dot->rhs_contracting, e->dot->n_rhs_contracting);
    }
  if (e->custom_call_target[0] != '\0')
    {
      g_string_append (s, ", custom_call_target=");
      append_quoted (s, e->custom_call_target, strlen (e->custom_call_target));
    }
  if (e->backend_config_len > 0)
    {
      g_string_append (s, ", backend_config=");
      append_quoted (s, e->backend_config, MIN (e->backend_config_len, MAX_BACKEND_CONFIG));
      if (e->backend_config_len > MAX_BACKEND_CONFIG)
        g_string_append (s, "…");
    }
  (void) module;
  (void) in;
}

static gboolean
is_root (const PlanarHloModule      *module,
         const PlanarHloInstruction *in)
{
  return in->computation < module->n_computations
         && module->computations[in->computation].root == planar_hlo_module_instruction_index (module, in);
}

char *
planar_hlo_instruction_format (const PlanarHloModule      *module,
                               const PlanarHloInstruction *instruction,
                               PlanarHloTextFlags          flags)
{
  const PlanarHloExtra *extra;
  GString *s;

  g_return_val_if_fail (module != NULL, NULL);
  g_return_val_if_fail (instruction != NULL, NULL);

  extra = planar_hlo_instruction_get_extra (module, instruction);
  s = g_string_new (NULL);
  g_string_append_printf (s, "%s%%%s = %s %s(", is_root (module, instruction) ? "ROOT " : "", instruction->name,
                          planar_hlo_instruction_get_shape (module, instruction)->text, instruction->opcode);
  for (guint i = 0; i < instruction->n_operands; i++)
    g_string_append_printf (s, "%s%%%s", i ? ", " : "", planar_hlo_instruction_get_operand (module, instruction, i)->name);
  /* XLA prints a parameter's number where others have operands. */
  if (strcmp (instruction->opcode, "parameter") == 0 && instruction->parameter_number >= 0)
    g_string_append_printf (s, "%d", instruction->parameter_number);
  g_string_append_c (s, ')');
  if (instruction->fusion_kind[0] != '\0')
    g_string_append_printf (s, ", kind=%s", instruction->fusion_kind);
  if (extra != NULL)
    append_extra (s, module, instruction, extra);
  if (instruction->n_called > 0)
    {
      gboolean applies = strcmp (instruction->opcode, "fusion") != 0 && strcmp (instruction->opcode, "call") != 0;

      g_string_append (s, applies && instruction->n_called == 1 ? ", to_apply=" : ", calls=");
      for (guint i = 0; i < instruction->n_called; i++)
        g_string_append_printf (s, "%s%%%s", i ? ", " : "",
                                planar_hlo_instruction_get_called (module, instruction, i)->name);
    }
  if ((flags & PLANAR_HLO_TEXT_METADATA) && (instruction->op_name[0] != '\0' || instruction->op_type[0] != '\0'
                                             || instruction->source_file[0] != '\0'))
    {
      const char *sep = "";

      g_string_append (s, ", metadata={");
      if (instruction->op_type[0] != '\0')
        {
          g_string_append (s, "op_type=");
          append_quoted (s, instruction->op_type, strlen (instruction->op_type));
          sep = " ";
        }
      if (instruction->op_name[0] != '\0')
        {
          g_string_append_printf (s, "%sop_name=", sep);
          append_quoted (s, instruction->op_name, strlen (instruction->op_name));
          sep = " ";
        }
      if (instruction->source_file[0] != '\0')
        {
          g_string_append_printf (s, "%ssource_file=", sep);
          append_quoted (s, instruction->source_file, strlen (instruction->source_file));
          g_string_append_printf (s, " source_line=%d", instruction->source_line);
        }
      g_string_append_c (s, '}');
    }
  return g_string_free (s, FALSE);
}

char *
planar_hlo_computation_format (const PlanarHloModule *module,
                               guint32                computation,
                               PlanarHloTextFlags     flags)
{
  const PlanarHloComputation *c;
  GString *s;

  g_return_val_if_fail (module != NULL, NULL);
  g_return_val_if_fail (computation < module->n_computations, NULL);

  c = &module->computations[computation];
  s = g_string_new (NULL);
  g_string_append_printf (s, "%s%%%s {\n", computation == module->entry ? "ENTRY " : "", c->name);
  for (guint32 i = 0; i < c->n_instructions; i++)
    {
      g_autofree char *line = planar_hlo_instruction_format (module, &module->instructions[c->first + i], flags);

      g_string_append_printf (s, "  %s\n", line);
    }
  g_string_append (s, "}\n");
  return g_string_free (s, FALSE);
}

char *
planar_hlo_module_format (const PlanarHloModule *module,
                          PlanarHloTextFlags     flags)
{
  GString *s;

  g_return_val_if_fail (module != NULL, NULL);

  s = g_string_new (NULL);
  g_string_append_printf (s, "HloModule %s\n", module->name);
  for (guint32 i = 0; i <= module->n_computations; i++)
    {
      /* The entry last, as XLA prints it. */
      guint32 c = i < module->n_computations ? i : module->entry;
      g_autofree char *text = NULL;

      if ((i < module->n_computations && i == module->entry) || c >= module->n_computations)
        continue;
      text = planar_hlo_computation_format (module, c, flags);
      g_string_append_printf (s, "\n%s", text);
    }
  return g_string_free (s, FALSE);
}
