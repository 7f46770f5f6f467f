/* planar-spill.c: the index's large arrays in file-backed memory.
 *
 * Each spilled block is its own unlinked file, reserved with fallocate() and
 * mapped shared (the mapping keeps the file alive, and unmapping it frees it
 * with its pages, dirty or not, so nothing is left on disk even after a
 * crash). The file's descriptor is kept with the block, up to a bound, so
 * that the block grows in place: the file grows and the mapping with it,
 * where a block in a new file would have its bytes copied and its new pages
 * zeroed again. Past the bound the descriptor is closed at once. Large
 * blocks that stay in memory are anonymous mappings of their own, aligned
 * for transparent huge pages. A table of the mapped blocks tells
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
/* Block -> its mapped length, with SPILL_ANONYMOUS set for a block in
 * memory (an anonymous mapping) rather than in a file. */
static GHashTable *spill_blocks;
static guint64     spill_bytes;

#define SPILL_ANONYMOUS ((gsize) 1)

/* Block -> its file's descriptor + 1, for the file blocks that keep it. */
static GHashTable *spill_fds;

static guint max_fds_for_test;

void
_planar_spill_set_max_fds (guint n)
{
  max_fds_for_test = n;
}

/* How many descriptors the spill keeps at most: a few hundred, never more
 * than a sixteenth of what the process may open. */
static guint
max_kept_fds (void)
{
  static gsize max = 0;

  if (max_fds_for_test > 0)
    return max_fds_for_test;
  if (g_once_init_enter (&max))
    {
      struct rlimit rl;
      gsize n = 256;

      if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        n = MIN (n, (gsize) rl.rlim_cur / 16);
      g_once_init_leave (&max, MAX (n, 1));
    }
  return (guint) max;
}

/* The size of a huge page on the machines Planar runs on (x86-64 and
 * arm64 with 4 kB pages); elsewhere the alignment is only wasted address
 * space. */
#define HUGE_PAGE ((gsize) 2 << 20)

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

/* Writes @n bytes of @data at the start of @fd. */
static gboolean
write_all (int           fd,
           const guint8 *data,
           gsize         n)
{
  off_t at = 0;

  while (n > 0)
    {
      ssize_t w = pwrite (fd, data, MIN (n, (gsize) 1 << 30), at);

      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return FALSE;
      data += w;
      n -= (gsize) w;
      at += w;
    }
  return TRUE;
}

/* A mapped block of at least @n_bytes whose first @n_data bytes are
 * @data's, or NULL. The bytes are written into the file before it is
 * mapped: a page the kernel fills from a write is neither zeroed first
 * nor faulted twice (read, then write), as a page first written through
 * the mapping is. */
static gpointer
map_block (gsize         n_bytes,
           gconstpointer data,
           gsize         n_data)
{
  gsize len = page_round (n_bytes);
  gpointer block;
  int fd;

  fd = open_spill_file ();
  if (fd < 0)
    return NULL;
  /* Reserved now, so that a page written later never finds the disk full
   * (which would be a SIGBUS, not an error). */
  if (posix_fallocate (fd, 0, (off_t) len) != 0 || !write_all (fd, data, MIN (n_data, n_bytes)))
    {
      close (fd);
      return NULL;
    }
  block = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (block == MAP_FAILED)
    {
      close (fd);
      return NULL;
    }
  /* A child process (a spawned recorder) must not share the index. */
  madvise (block, len, MADV_DONTFORK);

  g_mutex_lock (&spill_lock);
  if (spill_blocks == NULL)
    spill_blocks = g_hash_table_new (NULL, NULL);
  if (spill_fds == NULL)
    spill_fds = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (spill_blocks, block, GSIZE_TO_POINTER (len));
  spill_bytes += len;
  if (g_hash_table_size (spill_fds) < max_kept_fds ())
    {
      g_hash_table_insert (spill_fds, block, GINT_TO_POINTER (fd + 1));
      fd = -1;
    }
  g_mutex_unlock (&spill_lock);
  if (fd >= 0)
    close (fd);
  return block;
}

/* Grows the file block @block of @len mapped bytes to @n_bytes in place
 * when it kept its file's descriptor: the file is reserved further and
 * the mapping grows over it (it may move, its pages stay). NULL when it
 * cannot, the block unchanged. */
static gpointer
grow_file_block (gpointer block,
                 gsize    len,
                 gsize    n_bytes)
{
  gsize new_len = page_round (n_bytes);
  gpointer fd_entry = NULL, moved;

  g_mutex_lock (&spill_lock);
  if (spill_fds != NULL)
    fd_entry = g_hash_table_lookup (spill_fds, block);
  g_mutex_unlock (&spill_lock);
  if (fd_entry == NULL || posix_fallocate (GPOINTER_TO_INT (fd_entry) - 1, 0, (off_t) new_len) != 0)
    return NULL;

  /* Forgotten before the old place may be given back, as in
   * remap_anonymous(). */
  g_mutex_lock (&spill_lock);
  g_hash_table_remove (spill_blocks, block);
  g_hash_table_remove (spill_fds, block);
  g_mutex_unlock (&spill_lock);
  moved = mremap (block, len, new_len, MREMAP_MAYMOVE);
  g_mutex_lock (&spill_lock);
  if (moved == MAP_FAILED)
    {
      /* Still mapped where it was: as it was. */
      g_hash_table_insert (spill_blocks, block, GSIZE_TO_POINTER (len));
      g_hash_table_insert (spill_fds, block, fd_entry);
      g_mutex_unlock (&spill_lock);
      return NULL;
    }
  g_hash_table_insert (spill_blocks, moved, GSIZE_TO_POINTER (new_len));
  g_hash_table_insert (spill_fds, moved, fd_entry);
  spill_bytes += new_len - len;
  g_mutex_unlock (&spill_lock);
  madvise (moved, new_len, MADV_DONTFORK);
  return moved;
}

/* @len bytes of anonymous memory at a huge page's boundary, marked for
 * transparent huge pages, or NULL. Where the kernel gives huge pages to
 * regions that ask (`madvise` in /sys/kernel/mm/transparent_hugepage/
 * enabled, the default of most distributions), a fresh 2 MiB of the index
 * costs one page fault instead of 512: on a virtual machine, where each
 * fault is dear, the larger part of the time the decoder spends writing new
 * events (docs/loader.md, "The first frame"). */
static gpointer
map_anonymous_aligned (gsize len)
{
  guint8 *region, *block;
  gsize head, tail;

  region = mmap (NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED)
    return NULL;
  block = (guint8 *) (((guintptr) region + HUGE_PAGE - 1) & ~(guintptr) (HUGE_PAGE - 1));
  head = (gsize) (block - region);
  tail = HUGE_PAGE - head;
  if (head > 0)
    munmap (region, head);
  if (tail > 0)
    munmap (block + len, tail);
#ifdef MADV_HUGEPAGE
  /* Refused where the kernel has no such pages: 4 kB pages, as before. */
  madvise (block, len, MADV_HUGEPAGE);
#endif
  madvise (block, len, MADV_DONTFORK);
  return block;
}

/* A block of at least @n_bytes in anonymous memory of its own, or NULL. */
static gpointer
map_anonymous (gsize n_bytes)
{
  gsize len = page_round (n_bytes);
  gpointer block = map_anonymous_aligned (len);

  if (block == NULL)
    return NULL;
  g_mutex_lock (&spill_lock);
  if (spill_blocks == NULL)
    spill_blocks = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (spill_blocks, block, GSIZE_TO_POINTER (len | SPILL_ANONYMOUS));
  g_mutex_unlock (&spill_lock);
  return block;
}

/* Blocks in memory freed while a load runs (planar_spill_reuse_begin()),
 * kept for the blocks it asks for next. A fresh page costs its zeroing,
 * and on a virtual machine whose freed memory goes back to the host a
 * fault in the host as well (docs/loader.md, "Profiles larger than
 * memory"): at 10^8 events a load's scratch arrays took about 3 GB of
 * fresh pages beyond its peak, freed and asked for again from one step
 * to the next. A kept block's pages are marked free to the kernel (MADV_FREE),
 * which may still take them under pressure; the block then reads zeros,
 * and it is uninitialized memory either way. Oldest first. */
typedef struct
{
  guint8 *block;
  gsize   len;
} KeptBlock;

static gpointer remap_anonymous (gpointer block,
                                 gsize    len,
                                 gsize    used_bytes,
                                 gsize    n_bytes);

static GArray *kept_blocks;
static gsize   kept_bytes;
static gint    n_reusers;
static guint   n_reused;
static gsize   kept_limit_for_test;

void
_planar_spill_set_kept_limit (gsize n_bytes)
{
  kept_limit_for_test = n_bytes;
}

guint
_planar_spill_get_n_reused (void)
{
  return n_reused;
}

gsize
_planar_spill_get_kept_bytes (void)
{
  return kept_bytes;
}

/* The most bytes kept at a time: a sixteenth of the machine's memory, at
 * most 1 GiB. */
static gsize
kept_limit (void)
{
  static gsize limit = 0;

  if (kept_limit_for_test > 0)
    return kept_limit_for_test;
  if (g_once_init_enter (&limit))
    {
      long pages = sysconf (_SC_PHYS_PAGES), size = sysconf (_SC_PAGESIZE);
      gsize total = pages > 0 && size > 0 ? (gsize) pages * (gsize) size : 0;

      g_once_init_leave (&limit, MAX (MIN (total / 16, (gsize) 1 << 30), 1));
    }
  return limit;
}

/* Takes the @n oldest kept blocks, to be given back with unmap_kept()
 * once spill_lock, held here, is let go. */
static GArray *
take_oldest_kept (guint n)
{
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (KeptBlock), n);

  g_array_append_vals (out, kept_blocks->data, n);
  for (guint i = 0; i < n; i++)
    kept_bytes -= g_array_index (kept_blocks, KeptBlock, i).len;
  g_array_remove_range (kept_blocks, 0, n);
  return out;
}

/* Gives back @blocks (NULL: none). */
static void
unmap_kept (GArray *blocks)
{
  for (guint i = 0; blocks != NULL && i < blocks->len; i++)
    munmap (g_array_index (blocks, KeptBlock, i).block, g_array_index (blocks, KeptBlock, i).len);
}

/* Keeps the freed block @block of @len bytes in memory for reuse while a
 * load runs: all of it, or its first kept_limit() bytes (the rest is
 * given back). FALSE when nothing runs that reuses blocks (the caller
 * frees it); TRUE when it was kept or given back here. */
static gboolean
keep_freed (guint8 *block,
            gsize   len)
{
  g_autoptr(GArray) evicted = NULL;
  gsize limit = kept_limit (), keep = len;
  KeptBlock kb;
  guint n_old = 0;

  if (len < PLANAR_SPILL_HUGE_MIN || limit < PLANAR_SPILL_HUGE_MIN || g_atomic_int_get (&n_reusers) == 0)
    return FALSE;
  if (keep > limit)
    keep = limit / HUGE_PAGE * HUGE_PAGE;
  /* Before another thread can take it: pages marked free after it wrote
   * them could be dropped with what it wrote. */
  if (keep < len)
    munmap (block + keep, len - keep);
#ifdef MADV_FREE
  madvise (block, keep, MADV_FREE);
#endif
  g_mutex_lock (&spill_lock);
  if (n_reusers == 0)
    {
      /* The last load ended meanwhile. */
      g_mutex_unlock (&spill_lock);
      munmap (block, keep);
      return TRUE;
    }
  kb.block = block;
  kb.len = keep;
  if (kept_blocks == NULL)
    kept_blocks = g_array_new (FALSE, FALSE, sizeof (KeptBlock));
  g_array_append_val (kept_blocks, kb);
  kept_bytes += keep;
  /* The oldest go back until the rest fits (the new one always does). */
  for (gsize dropped = 0; kept_bytes - dropped > limit; n_old++)
    dropped += g_array_index (kept_blocks, KeptBlock, n_old).len;
  if (n_old > 0)
    evicted = take_oldest_kept (n_old);
  g_mutex_unlock (&spill_lock);
  unmap_kept (evicted);
  return TRUE;
}

/* A kept block for @n_bytes: the smallest that holds them, cut to them
 * (a tail of PLANAR_SPILL_HUGE_MIN bytes or more is kept), or else the
 * largest, grown; NULL when none is kept. */
static gpointer
reuse_kept (gsize n_bytes)
{
  gsize len = page_round (n_bytes), cut;
  gpointer moved;
  KeptBlock kb;
  guint best = G_MAXUINT;

  g_mutex_lock (&spill_lock);
  for (guint i = 0; kept_blocks != NULL && i < kept_blocks->len; i++)
    {
      const KeptBlock *k = &g_array_index (kept_blocks, KeptBlock, i);

      if (best == G_MAXUINT)
        best = i;
      else
        {
          const KeptBlock *b = &g_array_index (kept_blocks, KeptBlock, best);
          gboolean k_holds = k->len >= len, b_holds = b->len >= len;

          if (k_holds != b_holds ? k_holds : (k_holds ? k->len < b->len : k->len > b->len))
            best = i;
        }
    }
  if (best == G_MAXUINT)
    {
      g_mutex_unlock (&spill_lock);
      return NULL;
    }
  kb = g_array_index (kept_blocks, KeptBlock, best);
  g_array_remove_index (kept_blocks, best);
  kept_bytes -= kb.len;
  cut = (len + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  if (kb.len >= cut + PLANAR_SPILL_HUGE_MIN)
    {
      KeptBlock tail = { kb.block + cut, kb.len - cut };

      g_array_append_val (kept_blocks, tail);
      kept_bytes += tail.len;
      kb.len = cut;
    }
  n_reused++;
  g_mutex_unlock (&spill_lock);
  /* Registered whole when it holds the bytes, else grown. */
  moved = remap_anonymous (kb.block, kb.len, 0, MAX (n_bytes, kb.len));
  if (moved == NULL)
    munmap (kb.block, kb.len);
  return moved;
}

void
planar_spill_reuse_begin (void)
{
  g_mutex_lock (&spill_lock);
  g_atomic_int_inc (&n_reusers);
  g_mutex_unlock (&spill_lock);
}

void
planar_spill_reuse_end (void)
{
  g_autoptr(GArray) evicted = NULL;

  g_mutex_lock (&spill_lock);
  if (n_reusers == 0)
    {
      g_mutex_unlock (&spill_lock);
      g_return_if_reached ();
    }
  if (g_atomic_int_dec_and_test (&n_reusers) && kept_blocks != NULL && kept_blocks->len > 0)
    evicted = take_oldest_kept (kept_blocks->len);
  g_mutex_unlock (&spill_lock);
  unmap_kept (evicted);
}

/* What the table says of @block: its mapped length with SPILL_ANONYMOUS
 * for one in memory, or 0 when it is from the heap (or NULL). */
static gsize
block_entry (gconstpointer block)
{
  gsize entry = 0;

  if (block == NULL)
    return 0;
  g_mutex_lock (&spill_lock);
  if (spill_blocks != NULL)
    entry = GPOINTER_TO_SIZE (g_hash_table_lookup (spill_blocks, block));
  g_mutex_unlock (&spill_lock);
  return entry;
}

/* The mapped length of @block, or 0 when it is not in a file. */
static gsize
mapped_length (gconstpointer block)
{
  gsize entry = block_entry (block);

  return (entry & SPILL_ANONYMOUS) ? 0 : entry;
}

/* Grows or shrinks the anonymous block @block of @len mapped bytes to
 * @n_bytes, its first @used_bytes kept: its pages move to a new aligned
 * place (no copy) when it grows. NULL when the address space is short. */
static gpointer
remap_anonymous (gpointer block,
                 gsize    len,
                 gsize    used_bytes,
                 gsize    n_bytes)
{
  gsize new_len = page_round (n_bytes);
  gpointer moved;

  if (new_len <= len)
    {
      /* Shrunk in place: the pages past the end go back. */
      if (new_len < len)
        munmap ((guint8 *) block + new_len, len - new_len);
      g_mutex_lock (&spill_lock);
      g_hash_table_insert (spill_blocks, block, GSIZE_TO_POINTER (new_len | SPILL_ANONYMOUS));
      g_mutex_unlock (&spill_lock);
      return block;
    }

  /* An aligned place for it; the old mapping, grown, replaces it there:
   * its pages move (huge ones whole, both places being aligned), and the
   * block stays one mapping, which the next mremap() needs. */
  moved = map_anonymous_aligned (new_len);
  if (moved == NULL)
    return NULL;
  /* The table forgets the old place before it is given back: another
   * thread may map a block of its own there the moment it is, and that
   * block's entry must not be the one removed. */
  g_mutex_lock (&spill_lock);
  g_hash_table_remove (spill_blocks, block);
  g_mutex_unlock (&spill_lock);
  if (mremap (block, len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, moved) == MAP_FAILED)
    {
      memcpy (moved, block, MIN (used_bytes, len));
      munmap (block, len);
    }
  g_mutex_lock (&spill_lock);
  g_hash_table_insert (spill_blocks, moved, GSIZE_TO_POINTER (new_len | SPILL_ANONYMOUS));
  g_mutex_unlock (&spill_lock);
  return moved;
}

gboolean
planar_spill_can_discard (gconstpointer block)
{
  return (block_entry (block) & SPILL_ANONYMOUS) != 0;
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

/* A block of @n_bytes in memory: an aligned mapping of its own from
 * PLANAR_SPILL_HUGE_MIN bytes, else (or when that fails) the heap's. */
static gpointer
alloc_memory (gsize n_bytes)
{
  gpointer block = NULL;

  if (n_bytes >= PLANAR_SPILL_HUGE_MIN && (block = reuse_kept (n_bytes)) == NULL)
    block = map_anonymous (n_bytes);

  return block != NULL ? block : g_malloc (MAX (n_bytes, 1));
}

gpointer
planar_spill_alloc (gsize           n_bytes,
                    PlanarSpillMode spill)
{
  gpointer block = wants_file (n_bytes, spill) ? map_block (n_bytes, NULL, 0) : NULL;

  return block != NULL ? block : alloc_memory (n_bytes);
}

gpointer
planar_spill_renew (gpointer        block,
                    gsize           used_bytes,
                    gsize           n_bytes,
                    PlanarSpillMode spill)
{
  gsize entry = block_entry (block);
  gsize len = (entry & SPILL_ANONYMOUS) ? 0 : entry;
  gpointer moved;

  if (len > 0 && n_bytes <= len)
    return block;
  if (len == 0 && !wants_file (n_bytes, spill))
    {
      if (entry & SPILL_ANONYMOUS)
        {
          moved = remap_anonymous (block, entry & ~SPILL_ANONYMOUS, used_bytes, n_bytes);
          if (moved != NULL)
            return moved;
        }
      else if (n_bytes < PLANAR_SPILL_HUGE_MIN)
        return g_realloc (block, MAX (n_bytes, 1));
      moved = alloc_memory (n_bytes);
    }
  else
    {
      /* A block in a file stays in one, grown in place where it can be. */
      if (len > 0 && (moved = grow_file_block (block, len, n_bytes)) != NULL)
        return moved;
      moved = wants_file (n_bytes, spill == PLANAR_SPILL_EVERY ? spill : PLANAR_SPILL_LARGE)
              ? map_block (n_bytes, block, block != NULL ? MIN (used_bytes, n_bytes) : 0) : NULL;
      if (moved != NULL)
        {
          planar_spill_free (block);
          return moved;
        }
      moved = alloc_memory (n_bytes);
    }
  if (block != NULL)
    memcpy (moved, block, MIN (used_bytes, n_bytes));
  planar_spill_free (block);
  return moved;
}

gpointer
planar_spill_copy_to_file (gconstpointer   heap_block,
                           gsize           n_bytes,
                           PlanarSpillMode spill)
{
  if (heap_block == NULL || !wants_file (n_bytes, spill) || mapped_length (heap_block) > 0)
    return NULL;
  return map_block (n_bytes, heap_block, n_bytes);
}

gpointer
planar_spill_take (gpointer        heap_block,
                   gsize           n_bytes,
                   PlanarSpillMode spill)
{
  gpointer block = planar_spill_copy_to_file (heap_block, n_bytes, spill);

  if (block == NULL)
    return heap_block;
  planar_spill_free (heap_block);
  return block;
}

void
planar_spill_free (gpointer block)
{
  gsize len = 0;
  gpointer fd_entry = NULL;

  if (block == NULL)
    return;
  g_mutex_lock (&spill_lock);
  if (spill_blocks != NULL && g_hash_table_steal_extended (spill_blocks, block, NULL, (gpointer *) &len) &&
      !(len & SPILL_ANONYMOUS))
    {
      spill_bytes -= len;
      g_hash_table_steal_extended (spill_fds, block, NULL, &fd_entry);
    }
  g_mutex_unlock (&spill_lock);
  if ((len & SPILL_ANONYMOUS) && keep_freed (block, len & ~SPILL_ANONYMOUS))
    return;
  if (len > 0)
    munmap (block, len & ~SPILL_ANONYMOUS);
  else
    g_free (block);
  if (fd_entry != NULL)
    close (GPOINTER_TO_INT (fd_entry) - 1);
}

void
planar_spill_discard (gpointer block,
                      gsize    offset,
                      gsize    n_bytes)
{
  gsize entry = block_entry (block);
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  gsize first, last;

  /* Only an anonymous mapping of its own reads zeros where its pages were
   * given back; a file's pages would stay in the page cache anyway. */
  if (!(entry & SPILL_ANONYMOUS) || n_bytes == 0)
    return;
  first = (offset + page - 1) / page * page;
  last = MIN (offset + n_bytes, entry & ~SPILL_ANONYMOUS) / page * page;
  if (last > first)
    madvise ((guint8 *) block + first, last - first, MADV_DONTNEED);
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
    {
      GHashTableIter iter;
      gpointer value;

      *n_blocks = 0;
      if (spill_blocks != NULL)
        {
          g_hash_table_iter_init (&iter, spill_blocks);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            if (!(GPOINTER_TO_SIZE (value) & SPILL_ANONYMOUS))
              (*n_blocks)++;
        }
    }
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
