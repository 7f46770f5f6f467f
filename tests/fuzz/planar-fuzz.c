/* planar-fuzz.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *scratch_dir;

static void
remove_scratch (void)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (scratch_dir == NULL)
    return;
  dir = g_dir_open (scratch_dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (scratch_dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (scratch_dir);
}

const char *
planar_fuzz_write_input (const uint8_t *data,
                         size_t         size,
                         const char    *suffix)
{
  static GHashTable *paths;
  char *path;
  int fd;

  if (scratch_dir == NULL)
    {
      scratch_dir = g_dir_make_tmp ("planar-fuzz-XXXXXX", NULL);
      g_assert (scratch_dir != NULL);
      paths = g_hash_table_new (g_str_hash, g_str_equal);
      atexit (remove_scratch);
    }
  path = g_hash_table_lookup (paths, suffix);
  if (path == NULL)
    {
      path = g_strdup_printf ("%s/input%s", scratch_dir, suffix);
      g_hash_table_insert (paths, g_strdup (suffix), path);
    }

  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  g_assert (fd >= 0);
  while (size > 0)
    {
      ssize_t n = write (fd, data, size);

      if (n < 0 && errno == EINTR)
        continue;
      g_assert (n > 0);
      data += n;
      size -= (size_t) n;
    }
  close (fd);
  return path;
}
