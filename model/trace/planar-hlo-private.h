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
  /* Instruction indices sorted by name (strcmp), for lookups by name. */
  const guint32      *by_name;
} HloModuleEntry;

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
