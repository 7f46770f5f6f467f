/* planar-spill.c: the index's large arrays in file-backed memory.
 *
 * Each spilled block is its own unlinked file, reserved with fallocate() and
 * mapped shared; the descriptor is closed at once (the mapping keeps the file
 * alive, and unmapping it frees it with its pages, dirty or not, so nothing
 * is left on disk even after a crash). A table of the mapped blocks tells
 * planar_spill_free() which are which.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-spill.h"
#include "planar-spill-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

static GMutex      spill_lock;
/* Block -> its mapped length. */
static GHashTable *spill_blocks;
static guint64     spill_bytes;
/* Large heap blocks: anonymous mappings of their own (block -> length). */
static GHashTable *huge_blocks;

/* An unlinked file in the spill folder, or -1. The folder is looked at
 * each time (it may have been removed with the rest of the cache); one on
 * a tmpfs does not count, as its pages would stay in memory (as shared
 * memory, which only swap relieves). */
static int
open_spill_file (void)
{
  const char *env = g_getenv ("PLANAR_SPILL_DIR");
  g_autofree char *dir = env != NULL && env[0] != '\0'
    ? g_strdup (env) : g_build_filename (g_get_user_cache_dir (), "planar", "spill", NULL);
  g_autofree char *path = NULL;
  struct statfs fs;
  int fd;

  if (g_mkdir_with_parents (dir, 0700) != 0 || statfs (dir, &fs) != 0 || fs.f_type == TMPFS_MAGIC)
    return -1;
#ifdef O_TMPFILE
  fd = open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    return fd;
#endif
  path = g_build_filename (dir, "spill-XXXXXX", NULL);
  fd = g_mkstemp_full (path, O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    g_unlink (path);
  return fd;
}

static gsize
page_round (gsize n_bytes)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);

  return (MAX (n_bytes, 1) + page - 1) / page * page;
}

/* A mapped block of at least @n_bytes, or NULL. */
static gpointer
map_block (gsize n_bytes)
{
  gsize len = page_round (n_bytes);
  gpointer block;
  int fd;

  fd = open_spill_file ();
  if (fd < 0)
    return NULL;
  /* Reserved now, so that a page written later never finds the disk full
   * (which would be a SIGBUS, not an error). */
  if (posix_fallocate (fd, 0, (off_t) len) != 0)
    {
      close (fd);
      return NULL;
    }
  block = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close (fd);
  if (block == MAP_FAILED)
    return NULL;
  /* A child process (a spawned recorder) must not share the index. */
  madvise (block, len, MADV_DONTFORK);

  g_mutex_lock (&spill_lock);
  if (spill_blocks == NULL)
    spill_blocks = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (spill_blocks, block, GSIZE_TO_POINTER (len));
  spill_bytes += len;
  g_mutex_unlock (&spill_lock);
  return block;
}

/* The mapped length of @block, or 0 when it is not mapped here. */
static gsize
mapped_length (gconstpointer block)
{
  gsize len = 0;

  if (block == NULL)
    return 0;
  g_mutex_lock (&spill_lock);
  if (spill_blocks != NULL)
    len = GPOINTER_TO_SIZE (g_hash_table_lookup (spill_blocks, block));
  g_mutex_unlock (&spill_lock);
  return len;
}

/* Large heap blocks are anonymous mappings of their own, with transparent
 * huge pages asked for (MADV_HUGEPAGE: the system's setting is often
 * "madvise"). An array of several hundred megabytes in 4 KiB pages costs a
 * page fault every 4 KiB on first touch and a page walk that misses the
 * caches on most random accesses; in 2 MiB pages, 512 times fewer of both.
 * Below HUGE_MIN, the allocator's own. */
#define HUGE_MIN  ((gsize) 8 << 20)
#define HUGE_PAGE ((gsize) 2 << 20)

static gsize
huge_round (gsize n_bytes)
{
  return (n_bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

static void
huge_advise (gpointer block,
             gsize    len)
{
#ifdef MADV_HUGEPAGE
  madvise (block, len, MADV_HUGEPAGE);
#endif
  madvise (block, len, MADV_DONTFORK);
}

/* An anonymous mapping of at least @n_bytes, 2 MiB aligned, or NULL. */
static gpointer
map_huge (gsize n_bytes)
{
  gsize len = huge_round (n_bytes);
  guint8 *at, *block;
  gsize head;

  at = mmap (NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED)
    return NULL;
  /* Aligned, so that every 2 MiB of it can be one huge page. */
  head = (HUGE_PAGE - (guintptr) at % HUGE_PAGE) % HUGE_PAGE;
  block = at + head;
  if (head > 0)
    munmap (at, head);
  munmap (block + len, HUGE_PAGE - head);
  huge_advise (block, len);

  g_mutex_lock (&spill_lock);
  if (huge_blocks == NULL)
    huge_blocks = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (huge_blocks, block, GSIZE_TO_POINTER (len));
  g_mutex_unlock (&spill_lock);
  return block;
}

/* The length of @block when map_huge() made it, else 0. */
static gsize
huge_length (gconstpointer block)
{
  gsize len = 0;

  if (block == NULL)
    return 0;
  g_mutex_lock (&spill_lock);
  if (huge_blocks != NULL)
    len = GPOINTER_TO_SIZE (g_hash_table_lookup (huge_blocks, block));
  g_mutex_unlock (&spill_lock);
  return len;
}

gboolean
_planar_spill_is_huge (gconstpointer block)
{
  return huge_length (block) > 0;
}

/* @block (from map_huge(), @len bytes) grown to @n_bytes: moved by the
 * kernel, pages and all, not copied. NULL when it cannot be. */
static gpointer
huge_grow (gpointer block,
           gsize    len,
           gsize    n_bytes)
{
  gsize new_len = huge_round (n_bytes);
  gpointer moved = mremap (block, len, new_len, MREMAP_MAYMOVE);

  if (moved == MAP_FAILED)
    return NULL;
  g_mutex_lock (&spill_lock);
  g_hash_table_remove (huge_blocks, block);
  g_hash_table_insert (huge_blocks, moved, GSIZE_TO_POINTER (new_len));
  g_mutex_unlock (&spill_lock);
  huge_advise (moved, new_len);
  return moved;
}

/* A heap block of @n_bytes: a map_huge() one when large, else g_malloc(). */
static gpointer
heap_alloc (gsize n_bytes)
{
  gpointer block = n_bytes >= HUGE_MIN ? map_huge (n_bytes) : NULL;

  return block != NULL ? block : g_malloc (MAX (n_bytes, 1));
}

static guint64 status_kb (const char *text,
                          const char *key);

/* What the tests say is available, or G_MAXUINT64: the system's. */
static guint64 available_for_test = G_MAXUINT64;

void
_planar_spill_set_available_memory (guint64 n_bytes)
{
  available_for_test = n_bytes;
}

gboolean
planar_spill_memory_is_short (gsize n_bytes)
{
  g_autofree char *meminfo = NULL;
  guint64 available, total, reserve;

  if (available_for_test != G_MAXUINT64)
    {
      available = available_for_test;
      total = available_for_test;
    }
  else if (g_file_get_contents ("/proc/meminfo", &meminfo, NULL, NULL)
           && strstr (meminfo, "MemAvailable:") != NULL)
    {
      available = status_kb (meminfo, "MemAvailable:") << 10;
      total = status_kb (meminfo, "MemTotal:") << 10;
    }
  else
    return TRUE;
  reserve = MAX (total / 8, (guint64) 1 << 30);
  return available < reserve || available - reserve < n_bytes;
}

static gboolean
wants_file (gsize           n_bytes,
            PlanarSpillMode spill)
{
  switch (spill)
    {
    case PLANAR_SPILL_NEVER:
      return FALSE;
    case PLANAR_SPILL_EVERY:
      return TRUE;
    case PLANAR_SPILL_WHEN_SHORT:
      return n_bytes >= PLANAR_SPILL_MIN_BLOCK && planar_spill_memory_is_short (n_bytes);
    case PLANAR_SPILL_LARGE:
    default:
      return n_bytes >= PLANAR_SPILL_MIN_BLOCK;
    }
}

gpointer
planar_spill_alloc (gsize           n_bytes,
                    PlanarSpillMode spill)
{
  gpointer block = wants_file (n_bytes, spill) ? map_block (n_bytes) : NULL;

  return block != NULL ? block : heap_alloc (n_bytes);
}

gpointer
planar_spill_renew (gpointer        block,
                    gsize           used_bytes,
                    gsize           n_bytes,
                    PlanarSpillMode spill)
{
  gsize len = mapped_length (block);
  gsize huge = len == 0 ? huge_length (block) : 0;
  gpointer moved = NULL;

  if (len > 0)
    {
      if (n_bytes <= len)
        return block;
      /* A block in a file stays in one. */
      moved = wants_file (n_bytes, spill == PLANAR_SPILL_EVERY ? spill : PLANAR_SPILL_LARGE)
        ? map_block (n_bytes) : NULL;
    }
  else if (wants_file (n_bytes, spill))
    moved = map_block (n_bytes);
  else if (huge > 0)
    {
      if (n_bytes <= huge)
        return block;
      if ((moved = huge_grow (block, huge, n_bytes)) != NULL)
        return moved;
    }
  else if (block == NULL || n_bytes < HUGE_MIN)
    return block == NULL ? heap_alloc (n_bytes) : g_realloc (block, MAX (n_bytes, 1));

  if (moved == NULL)
    moved = heap_alloc (n_bytes);
  if (block != NULL)
    memcpy (moved, block, MIN (used_bytes, n_bytes));
  planar_spill_free (block);
  return moved;
}

gpointer
planar_spill_take (gpointer        heap_block,
                   gsize           n_bytes,
                   PlanarSpillMode spill)
{
  gpointer block;

  if (heap_block == NULL || !wants_file (n_bytes, spill) || mapped_length (heap_block) > 0)
    return heap_block;
  block = map_block (n_bytes);
  if (block == NULL)
    return heap_block;
  memcpy (block, heap_block, n_bytes);
  planar_spill_free (heap_block);
  return block;
}

void
planar_spill_free (gpointer block)
{
  gsize len = 0;

  if (block == NULL)
    return;
  g_mutex_lock (&spill_lock);
  if (spill_blocks != NULL && g_hash_table_steal_extended (spill_blocks, block, NULL, (gpointer *) &len))
    spill_bytes -= len;
  else if (huge_blocks != NULL)
    g_hash_table_steal_extended (huge_blocks, block, NULL, (gpointer *) &len);
  g_mutex_unlock (&spill_lock);
  if (len > 0)
    munmap (block, len);
  else
    g_free (block);
}

gboolean
planar_spill_is_mapped (gconstpointer block)
{
  return mapped_length (block) > 0;
}

void
planar_spill_get_usage (guint64 *n_bytes,
                        guint   *n_blocks)
{
  g_mutex_lock (&spill_lock);
  if (n_bytes != NULL)
    *n_bytes = spill_bytes;
  if (n_blocks != NULL)
    *n_blocks = spill_blocks != NULL ? g_hash_table_size (spill_blocks) : 0;
  g_mutex_unlock (&spill_lock);
}

/* The kB of @key in /proc/self/status's @text, or 0. */
static guint64
status_kb (const char *text,
           const char *key)
{
  const char *at = strstr (text, key);

  return at != NULL ? g_ascii_strtoull (at + strlen (key), NULL, 10) : 0;
}

/* Seconds since the process started (/proc/self/stat's start time against
 * /proc/uptime), or 0. */
static double
process_seconds (void)
{
  g_autofree char *stat = NULL;
  g_autofree char *uptime = NULL;
  const char *after_name;
  g_auto(GStrv) fields = NULL;

  if (!g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL) ||
      !g_file_get_contents ("/proc/uptime", &uptime, NULL, NULL) ||
      (after_name = strrchr (stat, ')')) == NULL)
    return 0;
  fields = g_strsplit (after_name + 2, " ", 0);
  /* Field 22, the start time in clock ticks, is the 20th after the name. */
  if (g_strv_length (fields) < 20)
    return 0;
  return g_ascii_strtod (uptime, NULL) -
         (double) g_ascii_strtoull (fields[19], NULL, 10) / (double) sysconf (_SC_CLK_TCK);
}

void
planar_spill_debug_memory (const char *where)
{
  static gsize wanted;
  g_autofree char *status = NULL;
  struct rusage usage;
  guint64 spilled = 0;
  int fd;

  if (g_once_init_enter (&wanted))
    {
      const char *env = g_getenv ("PLANAR_DEBUG");

      g_once_init_leave (&wanted, env != NULL && strstr (env, "memory") != NULL ? 2 : 1);
    }
  if (wanted != 2 || !g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return;
  planar_spill_get_usage (&spilled, NULL);
  getrusage (RUSAGE_SELF, &usage);
  g_printerr ("planar: memory at %s (%.2f s, CPU %.2f s): rss %" G_GUINT64_FORMAT " MB (anon %"
              G_GUINT64_FORMAT ", file %" G_GUINT64_FORMAT ", shared %" G_GUINT64_FORMAT
              "), peak since the last %" G_GUINT64_FORMAT " MB, file-backed index %"
              G_GUINT64_FORMAT " MB\n",
              where, process_seconds (),
              (double) (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
              (double) (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6,
              status_kb (status, "VmRSS:") / 1024, status_kb (status, "RssAnon:") / 1024,
              status_kb (status, "RssFile:") / 1024, status_kb (status, "RssShmem:") / 1024,
              status_kb (status, "VmHWM:") / 1024, spilled >> 20);
  /* "5" resets the peak (VmHWM) to the current RSS. */
  fd = open ("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      if (write (fd, "5", 1) < 0)
        {
          /* An older kernel: the peak stays the process's. */
        }
      close (fd);
    }
}

void
planar_spill_array_init (PlanarSpillArray *array,
                         guint             element_size,
                         PlanarSpillMode   spill)
{
  memset (array, 0, sizeof *array);
  array->element_size = element_size;
  array->spill = spill;
}

PlanarSpillArray *
planar_spill_array_new (guint           element_size,
                        PlanarSpillMode spill)
{
  PlanarSpillArray *array = g_new (PlanarSpillArray, 1);

  planar_spill_array_init (array, element_size, spill);
  return array;
}

void
planar_spill_array_free (PlanarSpillArray *array)
{
  if (array == NULL)
    return;
  planar_spill_array_clear (array);
  g_free (array);
}

void
planar_spill_array_reserve (PlanarSpillArray *array,
                            gsize             n)
{
  gsize want = array->len + n, cap;

  if (want <= array->capacity)
    return;
  cap = MAX (array->capacity * 2, 64);
  while (cap < want)
    cap *= 2;
  array->data = planar_spill_renew (array->data, array->len * array->element_size,
                                    cap * array->element_size, array->spill);
  array->capacity = cap;
}

void
planar_spill_array_append (PlanarSpillArray *array,
                           gconstpointer     elements,
                           gsize             n)
{
  if (n == 0)
    return;
  planar_spill_array_reserve (array, n);
  memcpy ((guint8 *) array->data + array->len * array->element_size, elements, n * array->element_size);
  array->len += n;
}

gpointer
planar_spill_array_steal (PlanarSpillArray *array)
{
  gpointer data = array->len > 0 ? array->data : NULL;

  if (data == NULL)
    planar_spill_free (array->data);
  array->data = NULL;
  array->len = array->capacity = 0;
  return data;
}

void
planar_spill_array_clear (PlanarSpillArray *array)
{
  planar_spill_free (array->data);
  array->data = NULL;
  array->len = array->capacity = 0;
}
