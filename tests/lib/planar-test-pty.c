/* planar-test-pty.c: see planar-test-pty.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _XOPEN_SOURCE 700
#include "planar-test-pty.h"

#include <gio/gio.h>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int
planar_test_open_pty (int *master)
{
  int slave;

  *master = posix_openpt (O_RDWR | O_NOCTTY);
  g_assert_cmpint (*master, >=, 0);
  g_assert_cmpint (grantpt (*master), ==, 0);
  g_assert_cmpint (unlockpt (*master), ==, 0);
  slave = open (ptsname (*master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  g_assert_cmpint (slave, >=, 0);
  return slave;
}

int
planar_test_spawn_stderr_tty (const char * const *argv,
                              char              **out,
                              char              **err)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GBytes) out_bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  int master, slave;
  char buffer[4096];
  ssize_t n;

  slave = planar_test_open_pty (&master);
  g_subprocess_launcher_take_stderr_fd (launcher, slave);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_subprocess_communicate (process, NULL, NULL, &out_bytes, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (fcntl (master, F_SETFL, O_NONBLOCK), ==, 0);
  while ((n = read (master, buffer, sizeof buffer)) > 0)
    g_string_append_len (text, buffer, n);
  close (master);
  *out = g_bytes_get_size (out_bytes) > 0 ? g_strndup (g_bytes_get_data (out_bytes, NULL), g_bytes_get_size (out_bytes))
                                           : g_strdup ("");
  *err = g_strdup (text->str);
  return g_subprocess_get_exit_status (process);
}
