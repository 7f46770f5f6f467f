/* planar-test-samples.c: the real profiles of ../shared/samples for the
 * tests, skipped when a clone has none (planar-test-samples.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-test-samples.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *
planar_test_samples_dir (void)
{
  const char *dir = g_getenv ("PLANAR_SAMPLES_DIR");

  if (dir == NULL || *dir == '\0' || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    return NULL;
  return dir;
}

gboolean
planar_test_need_samples (void)
{
  if (planar_test_samples_dir () != NULL)
    return TRUE;
  g_test_skip (PLANAR_TEST_NO_SAMPLES);
  return FALSE;
}

char *
planar_test_sample_path (const char *name)
{
  const char *dir = planar_test_samples_dir ();
  char *path;

  g_return_val_if_fail (name != NULL, NULL);

  if (!planar_test_need_samples ())
    return NULL;
  path = g_build_filename (dir, name, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    g_error ("the sample %s is not in %s", name, dir);
  return path;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GPtrArray *
planar_test_list_samples (const char *suffix)
{
  const char *dir = planar_test_samples_dir ();
  g_autoptr(GPtrArray) paths = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) folder = NULL;
  const char *name;

  g_return_val_if_fail (suffix != NULL, NULL);

  if (!planar_test_need_samples ())
    return NULL;
  folder = g_dir_open (dir, 0, &error);
  if (folder == NULL)
    g_error ("cannot list the samples: %s", error->message);
  paths = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (folder)) != NULL)
    if (g_str_has_suffix (name, suffix))
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
  if (paths->len == 0)
    g_error ("no *%s in %s", suffix, dir);
  g_ptr_array_sort (paths, compare_strings);
  return g_steal_pointer (&paths);
}

/* The profiles planar_test_generated_profile() writes, and their folder. */
static char *generated_dir;
static GPtrArray *generated_paths;
static pid_t generated_by;

static void
remove_generated (void)
{
  /* Not from a forked child that exits: the profiles are its parent's. */
  if (getpid () != generated_by)
    return;
  for (guint i = 0; generated_paths != NULL && i < generated_paths->len; i++)
    g_unlink (g_ptr_array_index (generated_paths, i));
  if (generated_dir != NULL)
    g_rmdir (generated_dir);
  g_clear_pointer (&generated_paths, g_ptr_array_unref);
  g_clear_pointer (&generated_dir, g_free);
}

const char *
planar_test_generated_profile (guint seed)
{
  const char *gen = g_getenv ("PLANAR_GEN");
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_strdup_printf ("generated-%u.xplane.pb", seed);
  g_autofree char *path = NULL;
  g_autofree char *seed_arg = g_strdup_printf ("%u", seed);
  g_autofree char *err = NULL;
  int status = 0;

  if (generated_dir != NULL)
    for (guint i = 0; i < generated_paths->len; i++)
      {
        const char *known = g_ptr_array_index (generated_paths, i);

        if (g_str_has_suffix (known, name))
          return known;
      }
  if (gen == NULL)
    g_error ("PLANAR_GEN must be set (meson test sets it)");
  if (generated_dir == NULL)
    {
      generated_dir = g_dir_make_tmp ("planar-test-profile-XXXXXX", &error);
      if (generated_dir == NULL)
        g_error ("cannot make a folder for generated profiles: %s", error->message);
      generated_paths = g_ptr_array_new_with_free_func (g_free);
      generated_by = getpid ();
      atexit (remove_generated);
    }
  path = g_build_filename (generated_dir, name, NULL);
  {
    const char *argv[] = { gen, "--events", "5000", "--seed", seed_arg, "-o", path, NULL };

    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                       &status, &error))
      g_error ("cannot run %s: %s", gen, error->message);
  }
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("%s failed: %s\n%s", gen, error->message, err);
  g_ptr_array_add (generated_paths, g_steal_pointer (&path));
  return g_ptr_array_index (generated_paths, generated_paths->len - 1);
}

char *
planar_test_sample_or_generated (const char *name)
{
  const char *dir = planar_test_samples_dir ();
  char *path;

  g_return_val_if_fail (name != NULL, NULL);

  if (dir == NULL)
    return g_strdup (planar_test_generated_profile (1));
  path = g_build_filename (dir, name, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    g_error ("the sample %s is not in %s", name, dir);
  return path;
}

static void
skip_without_samples (void)
{
  g_test_skip (PLANAR_TEST_NO_SAMPLES);
}

void
planar_test_add_skipped (const char *path)
{
  g_test_add_func (path, skip_without_samples);
}

void
planar_test_add_func_with_samples (const char *path,
                                   GTestFunc   func)
{
  if (planar_test_samples_dir () != NULL)
    g_test_add_func (path, func);
  else
    planar_test_add_skipped (path);
}
