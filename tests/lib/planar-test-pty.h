/* planar-test-pty.h: running a program with a terminal for its stderr,
 * as a person at a terminal would (progress lines are drawn there only).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Opens a pseudo-terminal: returns its other end (the one a program
 * writes to) and sets *@master to the end the test reads. */
int planar_test_open_pty (int *master);

/* Runs @argv (NULL-terminated) to its end with stdout a pipe and stderr a
 * pseudo-terminal; @out and @err receive what each got (what the terminal
 * got is small: a line rewritten a few times fits the terminal's buffer
 * until the program ends). Returns the exit status. */
int planar_test_spawn_stderr_tty (const char * const *argv,
                                  char              **out,
                                  char              **err);

G_END_DECLS
