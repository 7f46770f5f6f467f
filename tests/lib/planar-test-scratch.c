/* planar-test-scratch.c: a scratch folder per test case.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-test-scratch.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

static GPtrArray *scratch;

void
planar_test_scratch_begin (void)
{
  g_assert_null (scratch);
  scratch = g_ptr_array_new_with_free_func (g_free);
}

void
planar_test_scratch_end (void)
{
  g_clear_pointer (&scratch, g_ptr_array_unref);
}

gpointer
planar_test_keep (gpointer p)
{
  g_assert_nonnull (scratch);
  g_ptr_array_add (scratch, p);
  return p;
}

char *
planar_test_keep_str (const char *s)
{
  return planar_test_keep (g_strdup (s));
}

guint
planar_test_count_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

void
planar_test_remove_tree (const char *path)
{
  GStatBuf st;

  /* lstat: a link is removed, never what it points to. */
  if (g_lstat (path, &st) != 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      if (dir == NULL && g_chmod (path, 0700) == 0)
        dir = g_dir_open (path, 0, NULL);
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          planar_test_remove_tree (child);
        }
    }
  if (g_remove (path) != 0)
    g_error ("Cannot remove %s: %s", path, g_strerror (errno));
}

void
planar_test_fixture_setup (PlanarTestFixture *f,
                           gconstpointer      data)
{
  g_autoptr(GError) error = NULL;

  planar_test_scratch_begin ();
  f->dir = g_dir_make_tmp ("planar-test-XXXXXX", &error);
  g_assert_no_error (error);
}

void
planar_test_fixture_teardown (PlanarTestFixture *f,
                              gconstpointer      data)
{
  planar_test_remove_tree (f->dir);
  g_clear_pointer (&f->dir, g_free);
  planar_test_scratch_end ();
}
