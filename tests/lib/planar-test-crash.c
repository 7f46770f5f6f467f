/* planar-test-crash.c: a test program that dies of a fault says where.
 *
 * Built into every test program (tests/meson.build). As the program
 * starts, it installs a handler for SIGSEGV, SIGBUS, SIGILL and SIGFPE
 * that writes the signal, the address it names and the call stack to
 * standard error, then lets the program die of the same signal, as it
 * would have without the handler. The stack's lines are "binary(+offset)"
 * (resolve them with `addr2line -f -e BINARY OFFSET` on a build of the
 * same commit). CI may show no more than a failed test's last lines, which
 * `./dev test` prints: they then say where it crashed.
 *
 * A handler the model installs later (planar-mapping.c's, for SIGBUS)
 * hands the faults that are not its own on to this one. Under
 * AddressSanitizer nothing is installed: its own report says more.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define PLANAR_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PLANAR_TEST_ASAN 1
#endif
#endif

#ifndef PLANAR_TEST_ASAN

static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };

/* Only async-signal-safe calls from here on, backtrace() aside (loaded
 * and warmed up before any fault, below). */
static void
write_text (const char *text)
{
  ssize_t unused = write (STDERR_FILENO, text, strlen (text));

  (void) unused;
}

static void
write_hex (uintptr_t value)
{
  char digits[2 + 2 * sizeof value + 1];
  int at = sizeof digits - 1;

  digits[at] = '\0';
  do
    {
      digits[--at] = "0123456789abcdef"[value & 0xf];
      value >>= 4;
    }
  while (value != 0 && at > 2);
  digits[--at] = 'x';
  digits[--at] = '0';
  write_text (digits + at);
}

static void
on_fault (int        sig,
          siginfo_t *info,
          void      *context)
{
  void *frames[64];
  int n;
  struct sigaction dfl;

  (void) context;
  write_text ("\n# planar-test-crash: ");
  write_text (sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGILL ? "SIGILL" : "SIGFPE");
  write_text (" at address ");
  write_hex ((uintptr_t) info->si_addr);
  write_text (", the stack:\n");
  n = backtrace (frames, (int) (sizeof frames / sizeof frames[0]));
  backtrace_symbols_fd (frames, n, STDERR_FILENO);

  /* Dies of it: the signal stays blocked until this returns, and then
   * comes with its default action. */
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  sigaction (sig, &dfl, NULL);
  raise (sig);
}

__attribute__ ((constructor)) static void
install (void)
{
  static char alternate[64 * 1024];
  stack_t stack = { .ss_sp = alternate, .ss_size = sizeof alternate, .ss_flags = 0 };
  struct sigaction action;
  void *warm[1];

  /* backtrace() loads libgcc on its first call, which a handler must not
   * be the one to do. */
  backtrace (warm, 1);
  /* A stack overflow is reported too (on the main thread). */
  sigaltstack (&stack, NULL);
  memset (&action, 0, sizeof action);
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset (&action.sa_mask);
  for (size_t i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
    sigaction (fault_signals[i], &action, NULL);
}

#else

/* Under AddressSanitizer: nothing (a unit of C must declare something). */
typedef int planar_test_crash_under_asan;

#endif
