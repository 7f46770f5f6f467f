/* planar-test-scratch.h: a scratch folder per test case, and the scratch
 * list that frees what a case built.
 *
 * A case that writes files registers with PLANAR_TEST_ADD(): its set-up
 * makes a new temporary folder (PlanarTestFixture.dir) and opens the
 * scratch list, its tear-down removes the folder with everything in it
 * and frees the list, so that no case sees another's files and none is
 * left behind. Tests whose fixture holds more than a folder keep their
 * own g_test_add() and may call planar_test_fixture_setup() from theirs.
 *
 * Only GLib: the GTK tests use it too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Everything built is kept in a scratch list freed by planar_test_scratch_end(). */
void            planar_test_scratch_begin      (void);
void            planar_test_scratch_end        (void);
gpointer        planar_test_keep               (gpointer p);
char           *planar_test_keep_str           (const char *s);

/* Removes @path and, for a folder, everything in it. Symbolic links are
 * removed, never followed; folders a test made unreadable are opened up
 * first. Fails the test when something stays. */
void            planar_test_remove_tree        (const char *path);

/* How many entries folder @dir holds; 0 when it cannot be opened. */
guint           planar_test_count_entries      (const char *dir);

/* A test case's scratch list and temporary folder. */
typedef struct
{
  char *dir;
} PlanarTestFixture;

void            planar_test_fixture_setup      (PlanarTestFixture *f,
                                                gconstpointer      data);
void            planar_test_fixture_teardown   (PlanarTestFixture *f,
                                                gconstpointer      data);

/* Adds test @func (void (*) (PlanarTestFixture *, gconstpointer)) at
 * @path, with a scratch folder of its own. */
#define PLANAR_TEST_ADD(path, func) \
  g_test_add ((path), PlanarTestFixture, NULL, planar_test_fixture_setup, (func), planar_test_fixture_teardown)

G_END_DECLS
