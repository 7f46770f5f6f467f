/* test-scratch.c: the scratch folders of the tests themselves
 * (tests/lib/planar-test-scratch.c), since every other test trusts them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-test-scratch.h"

#include <glib/gstdio.h>
#include <unistd.h>

/* The case's folder exists and is its own; the tree removal takes links,
 * never what they point to, and opens up folders made unreadable. */
static void
test_remove_tree (PlanarTestFixture *f,
                  gconstpointer      data)
{
  g_autofree char *tree = g_build_filename (f->dir, "tree", NULL);
  g_autofree char *locked = g_build_filename (tree, "locked", NULL);
  g_autofree char *locked_file = g_build_filename (locked, "f", NULL);
  g_autofree char *outside = g_build_filename (f->dir, "outside", NULL);
  g_autofree char *outside_file = g_build_filename (outside, "keep", NULL);
  g_autofree char *link_dir = g_build_filename (tree, "link-to-folder", NULL);
  g_autofree char *link_file = g_build_filename (tree, "link-to-file", NULL);

  g_assert_true (g_file_test (f->dir, G_FILE_TEST_IS_DIR));
  g_assert_no_errno (g_mkdir_with_parents (locked, 0700));
  g_assert_no_errno (g_mkdir_with_parents (outside, 0700));
  g_assert_true (g_file_set_contents (locked_file, "x", -1, NULL));
  g_assert_true (g_file_set_contents (outside_file, "x", -1, NULL));
  g_assert_no_errno (symlink (outside, link_dir));
  g_assert_no_errno (symlink (outside_file, link_file));
  g_assert_no_errno (g_chmod (locked, 0));

  planar_test_remove_tree (tree);
  g_assert_false (g_file_test (tree, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (outside_file, G_FILE_TEST_IS_REGULAR));

  /* Nothing there is no error. */
  planar_test_remove_tree (tree);
}

static void
test_keep (PlanarTestFixture *f,
           gconstpointer      data)
{
  char *kept = planar_test_keep_str ("freed by the tear-down");

  g_assert_cmpstr (kept, ==, "freed by the tear-down");
  g_assert_nonnull (planar_test_keep (g_new0 (int, 4)));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  PLANAR_TEST_ADD ("/scratch/remove-tree", test_remove_tree);
  PLANAR_TEST_ADD ("/scratch/keep", test_keep);
  return g_test_run ();
}
