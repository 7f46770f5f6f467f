/* planar-sandbox.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-sandbox.h"

#include <string.h>

#define HOST_PATH_ATTRIBUTE "xattr::document-portal.host-path"

static const char *
info_path (void)
{
  const char *env = g_getenv (PLANAR_SANDBOX_INFO_ENV);

  return env != NULL ? env : "/.flatpak-info";
}

gboolean
planar_sandbox_is_flatpak (void)
{
  const char *path = info_path ();

  return path[0] != '\0' && g_file_test (path, G_FILE_TEST_EXISTS);
}

char *
planar_sandbox_dup_flatpak_version (void)
{
  g_autoptr(GKeyFile) info = NULL;

  if (!planar_sandbox_is_flatpak ())
    return NULL;
  info = g_key_file_new ();
  if (!g_key_file_load_from_file (info, info_path (), G_KEY_FILE_NONE, NULL))
    return NULL;
  return g_key_file_get_string (info, "Instance", "flatpak-version", NULL);
}

/* Whether dotted version @version is @major.@minor or later. */
static gboolean
version_at_least (const char *version,
                  guint       major,
                  guint       minor)
{
  g_auto(GStrv) parts = g_strsplit (version, ".", 3);
  guint64 have_major = 0, have_minor = 0;

  if (parts[0] == NULL || !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT, &have_major, NULL))
    return FALSE;
  if (parts[1] != NULL && !g_ascii_string_to_unsigned (parts[1], 10, 0, G_MAXUINT, &have_minor, NULL))
    return FALSE;
  return have_major > major || (have_major == major && have_minor >= minor);
}

gboolean
planar_sandbox_can_forward_folders (void)
{
  g_autofree char *version = NULL;

  if (!planar_sandbox_is_flatpak ())
    return TRUE;
  version = planar_sandbox_dup_flatpak_version ();
  return version != NULL && version_at_least (version, 1, 18);
}

char *
planar_sandbox_dup_default_capture_folder (void)
{
  if (planar_sandbox_is_flatpak ())
    return g_build_filename (g_get_user_data_dir (), "planar", "captures", NULL);
  return g_build_filename (g_get_home_dir (), "planar-logs", NULL);
}

static char *
portal_dir (void)
{
  const char *env = g_getenv (PLANAR_SANDBOX_PORTAL_ENV);

  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  return g_build_filename (g_get_user_runtime_dir (), "doc", NULL);
}

gboolean
planar_sandbox_is_portal_path (const char *path)
{
  g_autofree char *dir = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFile) file = NULL;

  g_return_val_if_fail (path != NULL, FALSE);

  if (!planar_sandbox_is_flatpak ())
    return FALSE;
  dir = portal_dir ();
  folder = g_file_new_for_path (dir);
  file = g_file_new_for_path (path);
  return g_file_has_prefix (file, folder);
}

char *
planar_sandbox_dup_host_path (GFile *file)
{
  g_autoptr(GFileInfo) info = NULL;
  const char *host;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  info = g_file_query_info (file, HOST_PATH_ATTRIBUTE, G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info == NULL)
    return NULL;
  host = g_file_info_get_attribute_string (info, HOST_PATH_ATTRIBUTE);
  return host != NULL && g_path_is_absolute (host) ? g_strdup (host) : NULL;
}

/* .../plugins/profile/SESSION/HOST.xplane.pb */
static gboolean
in_session_layout (const char *path)
{
  g_autofree char *session = g_path_get_dirname (path);
  g_autofree char *profile = g_path_get_dirname (session);
  g_autofree char *plugins = g_path_get_dirname (profile);
  g_autofree char *profile_name = g_path_get_basename (profile);
  g_autofree char *plugins_name = g_path_get_basename (plugins);

  return g_str_has_suffix (path, ".xplane.pb")
         && strcmp (profile_name, "profile") == 0
         && strcmp (plugins_name, "plugins") == 0;
}

gboolean
planar_sandbox_is_session_file (const char *path)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *host = NULL;

  g_return_val_if_fail (path != NULL, FALSE);

  if (!g_str_has_suffix (path, ".xplane.pb"))
    return FALSE;
  if (!planar_sandbox_is_portal_path (path))
    return in_session_layout (path);
  file = g_file_new_for_path (path);
  host = planar_sandbox_dup_host_path (file);
  return host == NULL || in_session_layout (host);
}
