/* fake-cuda-app.c: a stand-in CUDA program for the recording tests.
 *
 * It plays the CUDA driver's part (loads $CUDA_INJECTION64_PATH and calls
 * its InitializeInjection, as cuInit does) and the program's (launches,
 * copies and NVTX ranges, through the stand-in libcupti's fake_cupti_*
 * functions).
 *
 *   fake-cuda-app [--kernels N] [--threads T] [--children K [--children-own-gpus]]
 *                 [--devices D] [--later-kernels N --sleep-ms MS] [--wait-signal]
 *                 [--exit-code C] [--no-cuda] [--nvtx-first]
 *
 * --children starts K copies of itself (fork + exec) and waits for them;
 * with --children-own-gpus each sees another GPU as its device 0 (as
 * with a CUDA_VISIBLE_DEVICES of its own: FAKE_CUPTI_UUID_BASE);
 * --later-kernels launches N more kernels after sleeping MS ms (for the
 * time limit); --wait-signal waits, at most 20 s, for SIGTERM or SIGINT,
 * then exits normally; --no-cuda never "initializes CUDA"; --nvtx-first
 * makes an NVTX range (through $NVTX_INJECTION64_PATH) before CUDA.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void (*LaunchFunc) (uint32_t, uint32_t, const char *);
typedef void (*MemcpyFunc) (uint32_t, uint32_t, uint64_t, int);
typedef void (*PeerFunc) (uint32_t, uint32_t, uint32_t, uint64_t);
typedef void (*MemsetFunc) (uint32_t, uint32_t, uint64_t);
typedef void (*NvtxFunc) (uint32_t, const char *, int64_t, uint64_t);
typedef uint64_t (*NowFunc) (void);
typedef void (*OverheadFunc) (uint32_t);

static LaunchFunc launch;
static MemcpyFunc copy;
static PeerFunc peer_copy;
static MemsetFunc mem_set;
static NvtxFunc nvtx_range;
static NowFunc fake_now;
static OverheadFunc overhead;
static int n_kernels = 4;
static int n_devices = 1;
static volatile sig_atomic_t got_signal;

static void *
symbol (void       *handle,
        const char *name)
{
  void *p = dlsym (handle, name);

  if (p == NULL)
    {
      fprintf (stderr, "fake-cuda-app: %s missing\n", name);
      exit (99);
    }
  return p;
}

/* A program whose first NVTX call comes before CUDA starts: NVTX loads
 * the library NVTX_INJECTION64_PATH names and calls its entry; then a
 * range "before_cuda" is opened and closed, all before cuInit. */
static void
nvtx_before_cuda (void)
{
  const char *nvtx = getenv ("NVTX_INJECTION64_PATH");
  const char *cupti_path = getenv ("PLANAR_CUPTI_LIBRARY");
  void *lib, *cupti;
  int (*init) (const void *(*) (uint32_t));
  NvtxFunc range;
  NowFunc clock;
  uint64_t since;

  if (nvtx == NULL || cupti_path == NULL)
    return;
  lib = dlopen (nvtx, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    {
      fprintf (stderr, "fake-cuda-app: %s\n", dlerror ());
      exit (98);
    }
  init = (int (*) (const void *(*) (uint32_t))) symbol (lib, "InitializeInjectionNvtx2");
  if (init (NULL) != 1)
    exit (94);
  cupti = dlopen (cupti_path, RTLD_NOW | RTLD_LOCAL);
  if (cupti == NULL)
    exit (96);
  range = (NvtxFunc) symbol (cupti, "fake_cupti_nvtx_range");
  clock = (NowFunc) symbol (cupti, "fake_cupti_now");
  since = clock ();
  range ((uint32_t) gettid (), "before_cuda", 0, since);
}

/* What cuInit does with an injection library. */
static void
initialize_cuda (void)
{
  const char *injection = getenv ("CUDA_INJECTION64_PATH");
  const char *cupti_path = getenv ("PLANAR_CUPTI_LIBRARY");
  void *cupti;

  if (injection != NULL && injection[0] != '\0')
    {
      void *lib = dlopen (injection, RTLD_NOW | RTLD_LOCAL);
      int (*init) (void);

      if (lib == NULL)
        {
          fprintf (stderr, "fake-cuda-app: %s\n", dlerror ());
          exit (98);
        }
      init = (int (*) (void)) symbol (lib, "InitializeInjection");
      if (init () != 1)
        exit (97);
    }
  /* The same library the injection loaded, when it did. */
  cupti = cupti_path != NULL ? dlopen (cupti_path, RTLD_NOW | RTLD_LOCAL) : NULL;
  if (cupti == NULL)
    {
      fprintf (stderr, "fake-cuda-app: no stand-in libcupti (PLANAR_CUPTI_LIBRARY)\n");
      exit (96);
    }
  launch = (LaunchFunc) symbol (cupti, "fake_cupti_launch");
  copy = (MemcpyFunc) symbol (cupti, "fake_cupti_memcpy");
  peer_copy = (PeerFunc) symbol (cupti, "fake_cupti_peer_copy");
  mem_set = (MemsetFunc) symbol (cupti, "fake_cupti_memset");
  nvtx_range = (NvtxFunc) symbol (cupti, "fake_cupti_nvtx_range");
  fake_now = (NowFunc) symbol (cupti, "fake_cupti_now");
  overhead = (OverheadFunc) symbol (cupti, "fake_cupti_overhead");
}

/* One step of a training loop: copy in, kernels, copy out. */
static void
work (int kernels)
{
  uint32_t tid = (uint32_t) gettid ();
  uint64_t since = fake_now ();

  for (int d = 0; d < n_devices; d++)
    {
      copy ((uint32_t) d, 7, 1u << 20, 1 /* HtoD */);
      mem_set ((uint32_t) d, 7, 4096);
      for (int i = 0; i < kernels; i++)
        launch ((uint32_t) d, i % 2 == 0 ? 7 : 13, i % 2 == 0 ? "_Z6matmulPfS_S_i" : "_Z4reluPfi");
      copy ((uint32_t) d, 7, 1u << 16, 2 /* DtoH */);
    }
  if (n_devices > 1)
    peer_copy (0, 1, 21, 1u << 12);
  overhead (tid);
  nvtx_range (tid, "train_step", kernels, since);
}

static void *
worker (void *data)
{
  char name[16];

  snprintf (name, sizeof name, "worker-%d", (int) (intptr_t) data);
  pthread_setname_np (pthread_self (), name);
  work (n_kernels);
  return NULL;
}

static void
on_signal (int sig)
{
  got_signal = sig;
}

int
main (int    argc,
      char **argv)
{
  int threads = 0, children = 0, later = 0, sleep_ms = 0, exit_code = 0;
  int wait_signal = 0, no_cuda = 0, nvtx_first = 0, own_gpus = 0;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : "0";

      if (strcmp (a, "--kernels") == 0) n_kernels = atoi (v), i++;
      else if (strcmp (a, "--threads") == 0) threads = atoi (v), i++;
      else if (strcmp (a, "--children") == 0) children = atoi (v), i++;
      else if (strcmp (a, "--devices") == 0) n_devices = atoi (v), i++;
      else if (strcmp (a, "--later-kernels") == 0) later = atoi (v), i++;
      else if (strcmp (a, "--sleep-ms") == 0) sleep_ms = atoi (v), i++;
      else if (strcmp (a, "--exit-code") == 0) exit_code = atoi (v), i++;
      else if (strcmp (a, "--wait-signal") == 0) wait_signal = 1;
      else if (strcmp (a, "--no-cuda") == 0) no_cuda = 1;
      else if (strcmp (a, "--nvtx-first") == 0) nvtx_first = 1;
      else if (strcmp (a, "--children-own-gpus") == 0) own_gpus = 1;
      else
        {
          fprintf (stderr, "fake-cuda-app: unknown argument %s\n", a);
          return 2;
        }
    }
  if (wait_signal)
    {
      signal (SIGTERM, on_signal);
      signal (SIGINT, on_signal);
    }
  if (no_cuda)
    return exit_code;

  if (nvtx_first)
    nvtx_before_cuda ();
  initialize_cuda ();
  pthread_setname_np (pthread_self (), "fake-main");
  work (n_kernels);
  for (int t = 0; t < threads; t++)
    {
      pthread_t thread;

      pthread_create (&thread, NULL, worker, (void *) (intptr_t) t);
      pthread_join (thread, NULL);
    }
  for (int c = 0; c < children; c++)
    {
      char kernels[16];
      pid_t pid;

      snprintf (kernels, sizeof kernels, "%d", n_kernels);
      pid = fork ();
      if (pid == 0)
        {
          if (own_gpus)
            {
              char base[16];

              snprintf (base, sizeof base, "%d", c + 1);
              setenv ("FAKE_CUPTI_UUID_BASE", base, 1);
            }
          execl ("/proc/self/exe", argv[0], "--kernels", kernels, (char *) NULL);
          _exit (95);
        }
      while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  if (later > 0)
    {
      struct timespec ts = { sleep_ms / 1000, (long) (sleep_ms % 1000) * 1000000L };

      nanosleep (&ts, NULL);
      work (later);
    }
  if (wait_signal)
    {
      /* Bounded: 20 s at most. */
      for (int i = 0; i < 2000 && !got_signal; i++)
        {
          struct timespec ts = { 0, 10000000L };

          nanosleep (&ts, NULL);
        }
      printf ("fake-cuda-app: signal %d\n", (int) got_signal);
      return got_signal != 0 ? 42 : 1;
    }
  return exit_code;
}
