/* planar-hlo-query.c: lookups in the HLO index and the texts XProf makes
 * of an instruction (planar-hlo.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hlo-private.h"

#include <string.h>

guint
planar_hlo_index_get_n_modules (const PlanarHloIndex *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->modules->len;
}

const PlanarHloModule *
planar_hlo_index_get_module (const PlanarHloIndex *self,
                             guint                 i)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (i < self->modules->len, NULL);
  return &((const HloModuleEntry *) g_ptr_array_index (self->modules, i))->pub;
}

const PlanarHloModule *
planar_hlo_index_find_module (const PlanarHloIndex *self,
                              guint64               program_id)
{
  guint lo = 0, hi;

  if (self == NULL)
    return NULL;
  hi = self->modules->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const HloModuleEntry *m = g_ptr_array_index (self->modules, mid);

      if (m->pub.program_id == program_id)
        return &m->pub;
      if (m->pub.program_id < program_id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

const PlanarHloModule *
planar_hlo_index_find_module_by_name (const PlanarHloIndex *self,
                                      const char           *name)
{
  if (self == NULL || name == NULL)
    return NULL;
  for (guint i = 0; i < self->modules->len; i++)
    {
      const HloModuleEntry *m = g_ptr_array_index (self->modules, i);

      if (strcmp (m->pub.name, name) == 0)
        return &m->pub;
    }
  return NULL;
}

/* strcmp of @a against the @len bytes at @b. */
static int
compare_name (const char *a,
              const char *b,
              gsize       len)
{
  gsize alen = strlen (a);
  int c = memcmp (a, b, MIN (alen, len));

  if (c != 0)
    return c;
  return alen < len ? -1 : alen > len;
}

const PlanarHloInstruction *
planar_hlo_module_find_instruction (const PlanarHloModule *module,
                                    const char            *name,
                                    gssize                 len)
{
  const HloModuleEntry *m = (const HloModuleEntry *) module;
  gsize lo = 0, hi;

  if (module == NULL || name == NULL)
    return NULL;
  if (len < 0)
    len = (gssize) strlen (name);
  hi = module->n_instructions;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (compare_name (module->instructions[m->by_name[mid]].name, name, (gsize) len) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < module->n_instructions &&
      compare_name (module->instructions[m->by_name[lo]].name, name, (gsize) len) == 0)
    return &module->instructions[m->by_name[lo]];
  return NULL;
}

int
_planar_hlo_compare_kernel_names (const char *a,
                                  const char *b,
                                  gsize       len)
{
  gsize i;

  for (i = 0; a[i] != '\0' && i < len; i++)
    {
      guchar x = _planar_hlo_kernel_char ((guchar) a[i]), y = _planar_hlo_kernel_char ((guchar) b[i]);

      if (x != y)
        return x < y ? -1 : 1;
    }
  if (a[i] != '\0')
    return 1;
  return i < len ? -1 : 0;
}

const PlanarHloInstruction *
planar_hlo_module_find_kernel_instruction (const PlanarHloModule *module,
                                           const char            *kernel,
                                           gssize                 len)
{
  const HloModuleEntry *m = (const HloModuleEntry *) module;
  gsize lo = 0, hi;

  if (module == NULL || kernel == NULL)
    return NULL;
  if (len < 0)
    len = (gssize) strlen (kernel);
  if (len == 0)
    return NULL;
  hi = module->n_instructions;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (_planar_hlo_compare_kernel_names (module->instructions[m->by_kernel[mid]].name, kernel, (gsize) len) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo >= module->n_instructions
      || _planar_hlo_compare_kernel_names (module->instructions[m->by_kernel[lo]].name, kernel, (gsize) len) != 0)
    return NULL;
  /* Two instructions with that kernel name: neither is known to be it. */
  if (lo + 1 < module->n_instructions
      && _planar_hlo_compare_kernel_names (module->instructions[m->by_kernel[lo + 1]].name, kernel, (gsize) len) == 0)
    return NULL;
  return &module->instructions[m->by_kernel[lo]];
}

const PlanarHloInstruction *
planar_hlo_index_lookup (const PlanarHloIndex   *self,
                         guint64                 program_id,
                         const char             *name,
                         const PlanarHloModule **module)
{
  const PlanarHloModule *m = planar_hlo_index_find_module (self, program_id);
  const PlanarHloInstruction *in = planar_hlo_module_find_instruction (m, name, -1);

  if (module != NULL)
    *module = in != NULL ? m : NULL;
  return in;
}

const PlanarHloInstruction *
planar_hlo_index_lookup_by_module_name (const PlanarHloIndex   *self,
                                        const char             *module_name,
                                        const char             *name,
                                        const PlanarHloModule **module)
{
  const PlanarHloModule *m = planar_hlo_index_find_module_by_name (self, module_name);
  const PlanarHloInstruction *in = planar_hlo_module_find_instruction (m, name, -1);

  if (module != NULL)
    *module = in != NULL ? m : NULL;
  return in;
}

guint64
planar_hlo_index_get_serialized_bytes (const PlanarHloIndex *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->serialized_bytes;
}

guint64
planar_hlo_index_get_memory (const PlanarHloIndex *self)
{
  guint64 total;

  g_return_val_if_fail (self != NULL, 0);
  total = sizeof (PlanarHloIndex) + self->string_bytes + self->module_bytes + self->modules->len * sizeof (gpointer);
  return total;
}

char *
planar_hlo_instruction_dup_op_full_name (const PlanarHloInstruction *instruction)
{
  g_return_val_if_fail (instruction != NULL, NULL);
  /* Always both parts: XProf's ":" for an instruction without metadata
   * names a Framework Ops event too. */
  return g_strconcat (instruction->op_name, ":", instruction->op_type, NULL);
}

static char *
dup_file_line (const char *file,
               gint32      line)
{
  const char *base = strrchr (file, '/');

  return g_strdup_printf ("%s:%d", base != NULL ? base + 1 : file, line);
}

/* XProf (hlo_module_utils.cc, GetSourceInfo) takes the stack's first
 * frame when it names a file and a line, else the metadata's file. */
static const PlanarHloStackFrame *
source_frame (const PlanarHloModule      *module,
              const PlanarHloInstruction *instruction)
{
  const PlanarHloStackFrame *innermost = NULL;

  if (module != NULL && planar_hlo_module_get_stack (module, instruction, &innermost, 1) == 1 &&
      innermost->file[0] != '\0' && innermost->line != 0)
    return innermost;
  return NULL;
}

gboolean
planar_hlo_instruction_has_source (const PlanarHloModule      *module,
                                   const PlanarHloInstruction *instruction)
{
  g_return_val_if_fail (instruction != NULL, FALSE);
  return source_frame (module, instruction) != NULL || instruction->source_file[0] != '\0';
}

char *
planar_hlo_instruction_dup_source (const PlanarHloModule      *module,
                                   const PlanarHloInstruction *instruction)
{
  const PlanarHloStackFrame *innermost;

  g_return_val_if_fail (instruction != NULL, NULL);
  innermost = source_frame (module, instruction);
  if (innermost != NULL)
    return dup_file_line (innermost->file, innermost->line);
  if (instruction->source_file[0] == '\0')
    return NULL;
  return dup_file_line (instruction->source_file, instruction->source_line);
}

guint
planar_hlo_module_get_stack (const PlanarHloModule      *module,
                             const PlanarHloInstruction *instruction,
                             const PlanarHloStackFrame **frames,
                             guint                       max)
{
  guint n = 0;
  guint32 f;

  g_return_val_if_fail (module != NULL && instruction != NULL, 0);
  if (instruction->stack_frame_id <= 0 || (guint) instruction->stack_frame_id > module->n_frames)
    return 0;
  /* The decoder refused cycles, so the walk ends; @max bounds it too. */
  for (f = (guint32) instruction->stack_frame_id - 1; f != PLANAR_HLO_NONE && n < max; f = module->frames[f].parent)
    frames[n++] = &module->frames[f];
  return n;
}

char *
planar_hlo_module_format_stack (const PlanarHloModule      *module,
                                const PlanarHloInstruction *instruction)
{
  const PlanarHloStackFrame *frames[256];
  guint n = planar_hlo_module_get_stack (module, instruction, frames, G_N_ELEMENTS (frames));
  GString *out;

  if (n == 0)
    return NULL;
  out = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, '\n');
      g_string_append_printf (out, "%s:%d", frames[i]->file, frames[i]->line);
      if (frames[i]->function[0] != '\0')
        g_string_append_printf (out, " %s", frames[i]->function);
    }
  return g_string_free (out, FALSE);
}

typedef struct
{
  gint32      type;
  const char *name;
  guint       bits;
} TypeInfo;

/* XLA's PrimitiveType numbers (xla_data.proto), names and widths. */
static const TypeInfo types[] = {
  { 1, "pred", 8 }, { 2, "s8", 8 }, { 3, "s16", 16 }, { 4, "s32", 32 }, { 5, "s64", 64 },
  { 6, "u8", 8 }, { 7, "u16", 16 }, { 8, "u32", 32 }, { 9, "u64", 64 }, { 10, "f16", 16 },
  { 11, "f32", 32 }, { 12, "f64", 64 }, { 13, "tuple", 0 }, { 14, "opaque", 0 }, { 15, "c64", 64 },
  { 16, "bf16", 16 }, { 17, "token", 0 }, { 18, "c128", 128 }, { 19, "f8e5m2", 8 }, { 20, "f8e4m3fn", 8 },
  { 21, "s4", 4 }, { 22, "u4", 4 }, { 23, "f8e4m3b11fnuz", 8 }, { 24, "f8e5m2fnuz", 8 },
  { 25, "f8e4m3fnuz", 8 }, { 26, "s2", 2 }, { 27, "u2", 2 }, { 28, "f8e4m3", 8 }, { 29, "f8e3m4", 8 },
  { 30, "s1", 1 }, { 31, "u1", 1 }, { 32, "f4e2m1fn", 4 }, { 33, "f8e8m0fnu", 8 },
};

const char *
planar_hlo_element_type_name (gint32 element_type)
{
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (types[i].type == element_type)
      return types[i].name;
  return NULL;
}

guint
planar_hlo_element_type_bits (gint32 element_type)
{
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (types[i].type == element_type)
      return types[i].bits;
  return 0;
}

guint64
planar_hlo_shape_get_elements (const PlanarHloShape *shape)
{
  guint64 n = 1;

  g_return_val_if_fail (shape != NULL, 0);
  if (shape->element_type == PLANAR_HLO_TYPE_TUPLE)
    return 0;
  for (guint i = 0; i < shape->n_dims; i++)
    {
      guint64 d = (guint64) shape->dims[i];

      /* Saturate rather than wrap on absurd dims. */
      if (d != 0 && n > G_MAXUINT64 / d)
        return G_MAXUINT64;
      n *= d;
    }
  return n;
}

static guint64
shape_bytes (const PlanarHloModule *module,
             const PlanarHloShape  *shape,
             guint                  depth)
{
  guint64 total = 0;

  if (shape->element_type != PLANAR_HLO_TYPE_TUPLE)
    {
      guint64 n = planar_hlo_shape_get_elements (shape);
      guint bits = planar_hlo_element_type_bits (shape->element_type);

      if (n > G_MAXUINT64 / 128)
        return G_MAXUINT64;
      return (n * bits + 7) / 8;
    }
  /* The decoder bounds the nesting; this only guards the recursion. */
  if (depth > 64)
    return 0;
  for (guint i = 0; i < shape->n_tuple; i++)
    {
      guint64 b = shape_bytes (module, &module->shapes[shape->tuple[i]], depth + 1);

      total = b > G_MAXUINT64 - total ? G_MAXUINT64 : total + b;
    }
  return total;
}

guint64
planar_hlo_shape_get_bytes (const PlanarHloModule *module,
                            const PlanarHloShape  *shape)
{
  g_return_val_if_fail (module != NULL && shape != NULL, 0);
  return shape_bytes (module, shape, 0);
}
