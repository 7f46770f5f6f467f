/* planar-string-table.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-string-table.h"

#include "planar-hash-private.h"

#include <string.h>

struct _PlanarStringTable
{
  GStringChunk *chunk;
  /* Keys and values both point into @chunk. Names come from the file:
   * hashed with a keyed hash, that no file can make collide. */
  GHashTable *set;
};

PlanarStringTable *
planar_string_table_new (void)
{
  PlanarStringTable *self = g_new0 (PlanarStringTable, 1);

  self->chunk = g_string_chunk_new (64 * 1024);
  self->set = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  /* The empty string is always present so that absent names have one address. */
  planar_string_table_intern (self, "");
  return self;
}

void
planar_string_table_free (PlanarStringTable *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->set);
  g_string_chunk_free (self->chunk);
  g_free (self);
}

const char *
planar_string_table_intern (PlanarStringTable *self,
                            const char        *str)
{
  const char *found;
  char *copy;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (str != NULL, NULL);

  found = g_hash_table_lookup (self->set, str);
  if (found != NULL)
    return found;
  copy = g_string_chunk_insert (self->chunk, str);
  g_hash_table_add (self->set, copy);
  return copy;
}

const char *
planar_string_table_intern_len (PlanarStringTable *self,
                                const char        *str,
                                gsize              len)
{
  char stack_buf[256];
  g_autofree char *heap_buf = NULL;
  char *tmp;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (str != NULL || len == 0, NULL);

  /* Names inside the file are not NUL-terminated; the lookup needs a
   * terminated copy, which for short names stays on the stack. Embedded NUL
   * bytes end the name, as they would for any C consumer. */
  if (len < sizeof stack_buf)
    tmp = stack_buf;
  else
    tmp = heap_buf = g_malloc (len + 1);
  if (len > 0)
    memcpy (tmp, str, len);
  tmp[len] = '\0';
  return planar_string_table_intern (self, tmp);
}

const char *
planar_string_table_lookup (PlanarStringTable *self,
                            const char        *str)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_hash_table_lookup (self->set, str);
}

guint
planar_string_table_size (PlanarStringTable *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return g_hash_table_size (self->set);
}

void
planar_string_table_foreach (PlanarStringTable *self,
                             GFunc              func,
                             gpointer           user_data)
{
  GHashTableIter iter;
  gpointer key;

  g_return_if_fail (self != NULL);
  g_hash_table_iter_init (&iter, self->set);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    func (key, user_data);
}
