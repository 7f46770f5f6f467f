/* planar-test-threads.h: what the tests of the load's threads ask of a
 * thread (Linux only, where a thread has a nice value of its own).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#ifdef __linux__

#include <errno.h>
#include <glib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The calling thread's nice value (asserts that it could be read). */
static inline int
planar_test_thread_nice (void)
{
  int nice;

  errno = 0;
  nice = getpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid));
  g_assert_cmpint (errno, ==, 0);
  return nice;
}

#endif
