/* planar-hlo-private.h: what planar-hlo.c and planar-hlo-query.c share
 * (the index's layout), and what the trace and the tests call.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-hlo.h"
#include "planar-string-table.h"

G_BEGIN_DECLS

/* A module and what the index keeps beside it. Every array of the module
 * (the public pointers, the pools they point into, @by_name) lives in one
 * block that starts at pub.computations. */
typedef struct
{
  PlanarHloModule     pub;
  /* Instruction indices sorted by name (strcmp), for lookups by name, and
   * by the name of the kernel XLA makes of each (_planar_hlo_kernel_char()
   * on every byte), for planar_hlo_module_find_kernel_instruction(). */
  const guint32      *by_name;
  const guint32      *by_kernel;
} HloModuleEntry;

/* A byte of an instruction's name as XLA writes it in the name of the
 * kernel it emits for it (llvm_ir::SanitizeFunctionName: what is not a
 * letter, a digit, '_' or '$' becomes '_'; "fusion.3" runs as
 * "fusion_3"). */
static inline guchar
_planar_hlo_kernel_char (guchar c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$' ? c : '_';
}

/* strcmp() of @a and @len bytes of @b, both read through
 * _planar_hlo_kernel_char(). */
int _planar_hlo_compare_kernel_names (const char *a,
                                      const char *b,
                                      gsize       len);

struct _PlanarHloIndex
{
  PlanarStringTable *strings;
  /* HloModuleEntry *, by program id. */
  GPtrArray         *modules;
  guint64            serialized_bytes;
  /* What the strings take (each once, with its share of the table). */
  guint64            string_bytes;
  /* What the modules take: their entries and blocks. */
  guint64            module_bytes;
};

/* Interns @len bytes of @s (not NUL-terminated) in the index's table,
 * counting what a new string costs. */
const char *_planar_hlo_index_intern (PlanarHloIndex *self,
                                      const char     *s,
                                      gsize           len);

G_END_DECLS
