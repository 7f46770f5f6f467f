/* planar-mapping.c: a SIGBUS guard for mapped files (planar-mapping.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-mapping.h"
#include "planar-mapping-private.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct _PlanarMapping
{
  guintptr   start;
  /* Rounded up to whole pages: the mapping's last page faults too. */
  gsize      len;
  char      *path;
  atomic_int changed;
  /* Index in the table, or -1 when it was full. */
  int        slot;
};

/* What the handler reads: atomics only. A slot holds a registration from
 * planar_mapping_register() until planar_mapping_unregister() clears it and
 * waits for @handlers_running to drop to zero before freeing it. */
static PlanarMapping * _Atomic slots[PLANAR_MAPPING_MAX];
static atomic_int handlers_running;
static gsize page_size;
static struct sigaction previous_action;

/* Guards writes to @slots and @first_changed_path; never taken by the
 * handler. */
static GMutex table_lock;
static char *first_changed_path;

static void
forward_fault (int        sig,
               siginfo_t *info,
               void      *context)
{
  struct sigaction dfl;

  if ((previous_action.sa_flags & SA_SIGINFO) && previous_action.sa_sigaction != NULL)
    {
      previous_action.sa_sigaction (sig, info, context);
      return;
    }
  if (!(previous_action.sa_flags & SA_SIGINFO) && previous_action.sa_handler != SIG_DFL &&
      previous_action.sa_handler != SIG_IGN)
    {
      previous_action.sa_handler (sig);
      return;
    }
  /* Nobody else wanted it: die of it as without this handler. The signal is
   * blocked while the handler runs; raised now, it is delivered with the
   * default action as soon as the handler returns (for a fault the
   * retried read would raise it again anyway). */
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  sigaction (sig, &dfl, NULL);
  raise (sig);
}

static void
on_sigbus (int        sig,
           siginfo_t *info,
           void      *context)
{
  int saved_errno = errno;
  guintptr addr = (guintptr) info->si_addr;
  gboolean handled = FALSE;

  atomic_fetch_add (&handlers_running, 1);
  /* si_code > 0: raised by the kernel for a fault, not sent by kill(). */
  if (info->si_code > 0)
    for (guint i = 0; i < PLANAR_MAPPING_MAX && !handled; i++)
      {
        PlanarMapping *m = atomic_load (&slots[i]);
        guintptr from;
        long p;

        if (m == NULL || addr - m->start >= m->len)
          continue;
        /* Zeros from the faulting page to the end of the mapping: the
         * retried read and every later one see them instead of faulting.
         * The raw system call: no sanitizer interceptor in a handler. */
        from = addr & ~(guintptr) (page_size - 1);
        p = syscall (SYS_mmap, (void *) from, (size_t) (m->start + m->len - from), PROT_READ,
                     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, (off_t) 0);
        if (p == (long) from)
          {
            atomic_store (&m->changed, 1);
            handled = TRUE;
          }
      }
  atomic_fetch_sub (&handlers_running, 1);
  errno = saved_errno;
  if (!handled)
    forward_fault (sig, info, context);
}

static void
install_handler (void)
{
  static gsize installed = 0;

  if (g_once_init_enter (&installed))
    {
      struct sigaction action;

      page_size = (gsize) sysconf (_SC_PAGESIZE);
      memset (&action, 0, sizeof action);
      action.sa_sigaction = on_sigbus;
      action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
      sigemptyset (&action.sa_mask);
      if (sigaction (SIGBUS, &action, &previous_action) != 0)
        g_warning ("Cannot install the SIGBUS handler: %s", g_strerror (errno));
      g_once_init_leave (&installed, 1);
    }
}

PlanarMapping *
planar_mapping_register (const void *start,
                         gsize       len,
                         const char *path)
{
  PlanarMapping *m;

  g_return_val_if_fail (start != NULL || len == 0, NULL);

  install_handler ();
  m = g_new0 (PlanarMapping, 1);
  m->start = (guintptr) start;
  m->len = (len + page_size - 1) & ~(page_size - 1);
  m->path = g_strdup (path != NULL ? path : "");
  m->slot = -1;
  if (len == 0)
    return m;

  g_mutex_lock (&table_lock);
  for (int i = 0; i < PLANAR_MAPPING_MAX; i++)
    if (atomic_load (&slots[i]) == NULL)
      {
        m->slot = i;
        atomic_store (&slots[i], m);
        break;
      }
  g_mutex_unlock (&table_lock);
  if (m->slot < 0)
    g_debug ("%d files mapped at once: %s is read unguarded", PLANAR_MAPPING_MAX, m->path);
  return m;
}

void
planar_mapping_unregister (PlanarMapping *mapping)
{
  if (mapping == NULL)
    return;
  g_mutex_lock (&table_lock);
  if (mapping->slot >= 0)
    atomic_store (&slots[mapping->slot], NULL);
  if (atomic_load (&mapping->changed) && first_changed_path == NULL)
    first_changed_path = g_strdup (mapping->path);
  g_mutex_unlock (&table_lock);
  /* A handler on another thread may still hold the pointer. */
  while (atomic_load (&handlers_running) > 0)
    g_thread_yield ();
  g_free (mapping->path);
  g_free (mapping);
}

gboolean
planar_mapping_has_changed (PlanarMapping *mapping)
{
  return mapping != NULL && atomic_load (&mapping->changed) != 0;
}

gboolean
planar_mapping_is_guarded (PlanarMapping *mapping)
{
  return mapping != NULL && mapping->slot >= 0;
}

char *
planar_mapping_dup_changed_path (void)
{
  char *path = NULL;

  g_mutex_lock (&table_lock);
  if (first_changed_path != NULL)
    path = g_strdup (first_changed_path);
  for (int i = 0; i < PLANAR_MAPPING_MAX && path == NULL; i++)
    {
      PlanarMapping *m = atomic_load (&slots[i]);

      if (m != NULL && atomic_load (&m->changed))
        path = g_strdup (m->path);
    }
  g_mutex_unlock (&table_lock);
  return path;
}

/* ------------------------------------------------------------------------
 * Test points (planar-mapping-private.h): for tests only.
 * ------------------------------------------------------------------------ */

void
_planar_mapping_test_point (const char *point,
                            const char *path)
{
  static gsize env_read = 0;
  static char *env_point;
  static gint64 env_size = -1;
  static gint env_fired;

  if (g_once_init_enter (&env_read))
    {
      const char *env = g_getenv ("PLANAR_TEST_CHANGE_AT");
      const char *colon = env != NULL ? strrchr (env, ':') : NULL;

      if (colon != NULL)
        {
          env_point = g_strndup (env, (gsize) (colon - env));
          env_size = g_ascii_strtoll (colon + 1, NULL, 10);
        }
      g_once_init_leave (&env_read, 1);
    }
  if (env_point == NULL || env_size < 0 || strcmp (point, env_point) != 0)
    return;
  if (!g_atomic_int_compare_and_exchange (&env_fired, 0, 1))
    return;
  if (truncate (path, (off_t) env_size) != 0)
    g_warning ("PLANAR_TEST_CHANGE_AT: cannot truncate %s: %s", path, g_strerror (errno));
}
