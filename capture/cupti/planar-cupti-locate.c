/* planar-cupti-locate.c: finding libcupti.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cupti-locate.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies @src into @dst of @dst_len bytes, cut short if need be. */
static void
copy_string (char       *dst,
             size_t      dst_len,
             const char *src)
{
  size_t n = strlen (src);

  if (dst_len == 0)
    return;
  n = n < dst_len - 1 ? n : dst_len - 1;
  memcpy (dst, src, n);
  dst[n] = '\0';
}

static void *
try_open (const char *file,
          char       *path,
          size_t      path_len,
          char       *error,
          size_t      error_len)
{
  void *handle = dlopen (file, RTLD_NOW | RTLD_LOCAL);
  struct link_map *map = NULL;

  if (handle == NULL)
    {
      const char *why = dlerror ();

      copy_string (error, error_len, why != NULL ? why : file);
      return NULL;
    }
  /* The loader's own answer for where it came from. */
  if (dlinfo (handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL
      && map->l_name[0] != '\0')
    copy_string (path, path_len, map->l_name);
  else
    copy_string (path, path_len, file);
  return handle;
}

void *
planar_cupti_open (char   *path,
                   size_t  path_len,
                   char   *error,
                   size_t  error_len)
{
  static const char *const roots_env[] = { "CUDA_HOME", "CUDA_PATH" };
  static const char *const roots[] = { "/usr/local/cuda", "/opt/cuda" };
  static const char *const subdirs[] = {
    "extras/CUPTI/lib64", "lib64", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib",
  };
  static const char *const names[] = { "libcupti.so.13", "libcupti.so.12", "libcupti.so" };
  const char *explicit_file = getenv ("PLANAR_CUPTI_LIBRARY");
  const char *candidates[6];
  size_t n = 0;
  char last[512] = "";
  void *handle;

  if (explicit_file != NULL && explicit_file[0] != '\0')
    {
      handle = try_open (explicit_file, path, path_len, last, sizeof last);
      if (handle == NULL)
        snprintf (error, error_len, "PLANAR_CUPTI_LIBRARY=%s cannot be loaded: %s", explicit_file, last);
      return handle;
    }
  for (size_t i = 0; i < sizeof roots_env / sizeof roots_env[0]; i++)
    {
      const char *root = getenv (roots_env[i]);

      if (root != NULL && root[0] != '\0')
        candidates[n++] = root;
    }
  for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
    candidates[n++] = roots[i];
  for (size_t r = 0; r < n; r++)
    for (size_t s = 0; s < sizeof subdirs / sizeof subdirs[0]; s++)
      for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        {
          char file[1024];

          snprintf (file, sizeof file, "%s/%s/%s", candidates[r], subdirs[s], names[k]);
          handle = try_open (file, path, path_len, last, sizeof last);
          if (handle != NULL)
            return handle;
        }
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    {
      handle = try_open (names[k], path, path_len, last, sizeof last);
      if (handle != NULL)
        return handle;
    }
  snprintf (error, error_len,
            "no CUPTI library found (looked in $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, /opt/cuda and the "
            "loader path); set PLANAR_CUPTI_LIBRARY to libcupti.so");
  return NULL;
}
