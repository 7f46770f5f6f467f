/* planar-file-util.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-file-util.h"

char *
planar_file_describe_location (GFile *file)
{
  g_autoptr(GFile) parent = NULL;
  g_autoptr(GFile) home = NULL;
  g_autofree char *relative = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  parent = g_file_get_parent (file);
  if (parent == NULL)
    return g_file_get_parse_name (file);
  home = g_file_new_for_path (g_get_home_dir ());
  if (g_file_equal (parent, home))
    return g_strdup ("~");
  relative = g_file_get_relative_path (home, parent);
  if (relative != NULL)
    return g_build_filename ("~", relative, NULL);
  return g_file_get_parse_name (parent);
}
