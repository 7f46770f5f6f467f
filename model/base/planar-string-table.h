/* planar-string-table.h: interned strings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A set of interned, NUL-terminated strings. Interning the same bytes twice
 * returns the same pointer, so interned strings compare by address. Strings
 * live as long as the table. Not thread-safe for writers; readers may use the
 * returned pointers from any thread once interning is over.
 */
typedef struct _PlanarStringTable PlanarStringTable;

PlanarStringTable *planar_string_table_new       (void);
void               planar_string_table_free      (PlanarStringTable *self);
/* Returns: (transfer none): the interned copy of the @len bytes at @str. */
const char        *planar_string_table_intern_len (PlanarStringTable *self,
                                                   const char        *str,
                                                   gsize              len);
const char        *planar_string_table_intern    (PlanarStringTable *self,
                                                   const char        *str);
/* Returns: (transfer none) (nullable): the interned copy, or %NULL. */
const char        *planar_string_table_lookup    (PlanarStringTable *self,
                                                   const char        *str);
guint              planar_string_table_size      (PlanarStringTable *self);
/* Calls @func for every interned string, in no particular order. */
void               planar_string_table_foreach   (PlanarStringTable *self,
                                                   GFunc              func,
                                                   gpointer           user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarStringTable, planar_string_table_free)

G_END_DECLS
