/* planar-cli-record.c: `planar-cli record`, local GPU capture of a command
 * through CUPTI (capture/cupti/).
 *
 * Runs the command with libplanar-cupti.so as its CUDA injection library,
 * every CUDA process it starts writes a part into a private folder, and
 * the parts are merged into one XSpace in a new session folder. The
 * command's exit status is ours; signals sent to us reach it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib/gstdio.h>

#include "planar-cupti-merge.h"
#include "planar-cupti-part.h"
#ifdef PLANAR_HAVE_CUPTI
#include "planar-cupti-locate.h"
#endif

/* Set by tests (and documented as such): skips the check for a CUDA
 * driver and a GPU, so that a stand-in libcupti can be recorded. */
#define SKIP_GPU_CHECK_ENV "PLANAR_RECORD_SKIP_GPU_CHECK"
/* For the tests: milliseconds planar-cli waits once the command is
 * started, before it hands signals on, so that a signal sent then is
 * sure to come before (it must be handed on all the same). */
#define FORK_DELAY_ENV "PLANAR_RECORD_TEST_FORK_DELAY_MS"

static void
print_summary (const PlanarCuptiMergeStats *stats)
{
  g_autofree char *kernels = g_strdup_printf (ngettext ("%" PRIu64 " kernel", "%" PRIu64 " kernels",
                                                       stats->n_kernels), stats->n_kernels);
  g_autofree char *copies = g_strdup_printf (ngettext ("%" PRIu64 " copy", "%" PRIu64 " copies",
                                                      stats->n_copies), stats->n_copies);
  g_autofree char *memsets = g_strdup_printf (ngettext ("%" PRIu64 " memset", "%" PRIu64 " memsets",
                                                       stats->n_memsets), stats->n_memsets);
  g_autofree char *calls = g_strdup_printf (ngettext ("%" PRIu64 " API call", "%" PRIu64 " API calls",
                                                     stats->n_api_calls), stats->n_api_calls);
  g_autofree char *gpus = g_strdup_printf (ngettext ("%u GPU", "%u GPUs", stats->n_devices), stats->n_devices);
  g_autofree char *processes = g_strdup_printf (ngettext ("%u process", "%u processes", stats->n_parts),
                                                stats->n_parts);

  /* TRANSLATORS: "recorded 12 kernels, 3 copies, 1 memset and 40 API
   * calls on 1 GPU from 2 processes". */
  g_printerr (_("planar-cli: recorded %s, %s, %s and %s on %s from %s"), kernels, copies, memsets, calls, gpus,
              processes);
  if (stats->n_nvtx_ranges > 0)
    g_printerr (ngettext (", %" PRIu64 " NVTX range", ", %" PRIu64 " NVTX ranges", stats->n_nvtx_ranges),
                stats->n_nvtx_ranges);
  if (stats->n_dropped > 0)
    g_printerr (ngettext ("; %" PRIu64 " event dropped (see 'planar-cli health')",
                          "; %" PRIu64 " events dropped (see 'planar-cli health')", stats->n_dropped),
                stats->n_dropped);
  g_printerr ("\n");
}

/* Merges @part_dir into a session of @logdir and prints the file. */
static gboolean
merge_parts (const char *part_dir,
             const char *logdir)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  PlanarCuptiMergeStats stats = { 0 };

  path = planar_cupti_merge_write_session (part_dir, logdir, &stats, &error);
  if (path == NULL)
    {
      planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);
      return FALSE;
    }
  print_summary (&stats);
  printf ("%s\n", planar_cli_text (path));
  fflush (stdout);
  if (stats.n_errors > 0 && stats.n_api_calls + stats.n_kernels + stats.n_copies + stats.n_memsets == 0)
    {
      /* Kept, for its errors, but a failure. */
      planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, _("nothing was recorded: %s"), stats.first_error);
      return FALSE;
    }
  if (stats.n_errors > 0)
    g_printerr (_("planar-cli: the recording has errors (see 'planar-cli health %s')\n"), planar_cli_text (path));
  return TRUE;
}

#ifdef PLANAR_HAVE_CUPTI

static volatile sig_atomic_t child_pid;

/* Signals someone sent us go on to the command. Those the terminal sent
 * (Ctrl+C) reached the command already: it is in our process group. */
static void
forward_signal (int        sig,
                siginfo_t *info,
                void      *context)
{
  if (child_pid > 0 && (info == NULL || info->si_code <= 0))
    kill (child_pid, sig);
}

/* One line on why this machine cannot record, or NULL. */
static char *
check_gpu (void)
{
  typedef int (*InitFunc) (unsigned);
  typedef int (*CountFunc) (int *);
  void *cuda;
  InitFunc init;
  CountFunc count;
  int n = 0;
  int rc;

  if (g_strcmp0 (g_getenv (SKIP_GPU_CHECK_ENV), "1") == 0)
    return NULL;
  cuda = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == NULL)
    return g_strdup (_("no NVIDIA driver found (libcuda.so.1 cannot be loaded); record needs an NVIDIA GPU and its driver"));
  init = (InitFunc) dlsym (cuda, "cuInit");
  count = (CountFunc) dlsym (cuda, "cuDeviceGetCount");
  if (init == NULL || count == NULL)
    return g_strdup (_("libcuda.so.1 is not a CUDA driver"));
  rc = init (0);
  if (rc == 100 /* CUDA_ERROR_NO_DEVICE */ || (rc == 0 && count (&n) == 0 && n == 0))
    return g_strdup (_("no NVIDIA GPU found; record needs one"));
  if (rc != 0)
    return g_strdup_printf (_("the CUDA driver does not start (cuInit error %d); record needs a working NVIDIA GPU"), rc);
  return NULL;
}

/* libplanar-cupti.so: $PLANAR_CUPTI_INJECTION, beside an uninstalled
 * planar-cli in the build tree, or where it is installed. */
static char *
find_injection_library (void)
{
  const char *env = g_getenv ("PLANAR_CUPTI_INJECTION");
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  if (exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (exe);
      char *built = g_build_filename (dir, "..", "capture", "cupti", "libplanar-cupti.so", NULL);

      if (g_file_test (built, G_FILE_TEST_IS_REGULAR))
        {
          char *canonical = g_canonicalize_filename (built, NULL);

          g_free (built);
          return canonical;
        }
      g_free (built);
    }
  return g_strdup (PLANAR_CUPTI_INJECTION_INSTALLED);
}

/* Runs @command with the recording environment; returns its wait status,
 * or -1 when it could not start (the reason printed). */
static int
run_command (char       **command,
             const char  *injection,
             const char  *cupti_path,
             const char  *part_dir,
             int          duration_ms,
             gboolean     nvtx)
{
  struct sigaction sa = { 0 };
  static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
  struct sigaction saved[G_N_ELEMENTS (forwarded)];
  sigset_t block, unblocked;
  const char *delay = g_getenv (FORK_DELAY_ENV);
  int exec_pipe[2];
  int exec_errno = 0;
  int status = 0;
  pid_t pid;
  ssize_t n;

  if (!g_unix_open_pipe (exec_pipe, FD_CLOEXEC, NULL))
    return -1;
  /* The signals to hand on are held from before the command starts until
   * they are handed on: one sent in between (the command may be recording
   * by then) would otherwise end planar-cli and leave the command alone. */
  sigemptyset (&block);
  for (guint i = 0; i < G_N_ELEMENTS (forwarded); i++)
    sigaddset (&block, forwarded[i]);
  sigprocmask (SIG_BLOCK, &block, &unblocked);
  pid = fork ();
  if (pid < 0)
    {
      sigprocmask (SIG_SETMASK, &unblocked, NULL);
      planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, _("cannot start %s: %s"), command[0], g_strerror (errno));
      close (exec_pipe[0]);
      close (exec_pipe[1]);
      return -1;
    }
  if (pid == 0)
    {
      char duration[32];

      /* The command gets the signals as planar-cli had them. */
      sigprocmask (SIG_SETMASK, &unblocked, NULL);
      close (exec_pipe[0]);
      setenv ("CUDA_INJECTION64_PATH", injection, 1);
      setenv (PLANAR_CUPTI_ENV_LIBRARY, cupti_path, 1);
      setenv (PLANAR_CUPTI_ENV_PART_DIR, part_dir, 1);
      if (duration_ms > 0)
        {
          snprintf (duration, sizeof duration, "%d", duration_ms);
          setenv (PLANAR_CUPTI_ENV_DURATION_MS, duration, 1);
        }
      if (nvtx)
        {
          /* NVTX hands its calls to the library this names: the
           * injection library, which starts recording at the first NVTX
           * call (it may come before CUDA starts) and hands them on to
           * CUPTI. */
          setenv ("NVTX_INJECTION64_PATH", injection, 1);
          setenv (PLANAR_CUPTI_ENV_NVTX, "1", 1);
        }
      execvp (command[0], command);
      exec_errno = errno;
      if (write (exec_pipe[1], &exec_errno, sizeof exec_errno) < 0)
        _exit (127);
      _exit (127);
    }
  close (exec_pipe[1]);
  if (delay != NULL)
    g_usleep ((gulong) g_ascii_strtoull (delay, NULL, 10) * 1000);
  child_pid = pid;
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (forwarded); i++)
    sigaction (forwarded[i], &sa, &saved[i]);
  /* Those that came meanwhile are handed on now. */
  sigprocmask (SIG_SETMASK, &unblocked, NULL);

  do
    n = read (exec_pipe[0], &exec_errno, sizeof exec_errno);
  while (n < 0 && errno == EINTR);
  close (exec_pipe[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  child_pid = 0;
  for (guint i = 0; i < G_N_ELEMENTS (forwarded); i++)
    sigaction (forwarded[i], &saved[i], NULL);
  if (n == sizeof exec_errno)
    {
      planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, _("cannot run %s: %s"), command[0], g_strerror (exec_errno));
      return -1;
    }
  return status;
}

static int
exit_status_of (int wait_status)
{
  if (WIFEXITED (wait_status))
    return WEXITSTATUS (wait_status);
  if (WIFSIGNALED (wait_status))
    return 128 + WTERMSIG (wait_status);
  return PLANAR_CLI_EXIT_FAILURE;
}

static int
record_command (char       **command,
                const char  *logdir,
                int          duration_ms,
                gboolean     nvtx)
{
  g_autofree char *why = check_gpu ();
  g_autofree char *injection = NULL;
  g_autofree char *part_dir = NULL;
  g_autoptr(GError) error = NULL;
  char cupti_path[4096];
  char cupti_error[1024];
  void *cupti;
  int wait_status;
  int status;
  gboolean merged;

  if (why != NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", why);
  cupti = planar_cupti_open (cupti_path, sizeof cupti_path, cupti_error, sizeof cupti_error);
  if (cupti == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", cupti_error);
  dlclose (cupti);
  injection = find_injection_library ();
  if (!g_file_test (injection, G_FILE_TEST_IS_REGULAR))
    return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, _("the recording library %s is missing; is Planar installed?"),
                            injection);
  part_dir = g_dir_make_tmp ("planar-record-XXXXXX", &error);
  if (part_dir == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE, "%s", error->message);

  wait_status = run_command (command, injection, cupti_path, part_dir, duration_ms, nvtx);
  if (wait_status < 0)
    {
      g_rmdir (part_dir);
      return 127;
    }
  status = exit_status_of (wait_status);
  /* The command had the terminal while it ran; the merge is ours. */
  planar_cli_progress (_("merging the recording"), -1);
  merged = merge_parts (part_dir, logdir);
  planar_cli_progress_end ();
  {
    g_autoptr(GDir) dir = g_dir_open (part_dir, 0, NULL);
    const char *entry;

    while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = g_build_filename (part_dir, entry, NULL);

        g_unlink (path);
      }
    g_rmdir (part_dir);
  }
  if (status != 0)
    return status;
  return merged ? PLANAR_CLI_EXIT_OK : PLANAR_CLI_EXIT_FAILURE;
}

#endif /* PLANAR_HAVE_CUPTI */

int
planar_cli_record (int    argc,
                   char **argv)
{
  g_autofree char *logdir = NULL;
  g_autofree char *merge_dir = NULL;
  gint duration_ms = 0;
  gboolean nvtx = FALSE;
  char **command = NULL;
  int status;
  GOptionEntry entries[] = {
    { "logdir", 0, 0, G_OPTION_ARG_FILENAME, &logdir, N_("Log directory; the session goes in plugins/profile"), "DIR" },
    { "duration-ms", 0, 0, G_OPTION_ARG_INT, &duration_ms, N_("Stop tracing after N ms (the command runs on)"), "N" },
    { "nvtx", 0, 0, G_OPTION_ARG_NONE, &nvtx, N_("Record NVTX ranges too"), NULL },
    { "merge", 0, 0, G_OPTION_ARG_FILENAME, &merge_dir,
      N_("Merge the parts that processes started with PLANAR_OUTPUT_DIR=DIR wrote (no COMMAND)"), "DIR" },
    { NULL }
  };

  /* What follows "--" is the command, untouched by option parsing. */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        command = argv + i + 1;
        argc = i;
        break;
      }
  if (!planar_cli_parse ("record", "--logdir DIR [--duration-ms N] [--nvtx] -- COMMAND [ARGS...]",
                         N_("Runs COMMAND and records its CUDA kernels, copies and API calls with CUPTI into a new\n"
                            "session folder. The command's exit status is planar-cli's."),
                         entries, PLANAR_CLI_OPTIONS_NONE, &argc, &argv, &status))
    return status;
  if (argc != 1)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("put the command after '--' (see 'planar-cli record --help')"));
  if (logdir == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("record needs --logdir"));
  if (duration_ms < 0)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("--duration-ms must not be negative"));
  if (merge_dir != NULL)
    {
      if (command != NULL && command[0] != NULL)
        return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("--merge takes no command"));
      return merge_parts (merge_dir, logdir) ? PLANAR_CLI_EXIT_OK : PLANAR_CLI_EXIT_FAILURE;
    }
  if (command == NULL || command[0] == NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("record needs a command after '--'"));
#ifdef PLANAR_HAVE_CUPTI
  return record_command (command, logdir, duration_ms, nvtx);
#else
  return planar_cli_fail (PLANAR_CLI_EXIT_FAILURE,
                          _("this planar-cli was built without CUPTI support (the CUDA toolkit's headers were not found)"));
#endif
}
