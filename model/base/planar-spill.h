/* planar-spill.h: the index's large arrays in file-backed memory.
 *
 * The index of a profile of several gigabytes (tracks, depth groups, self
 * times, derived lines, flows) is larger than the file it comes from. Kept in
 * anonymous memory it can only stay in RAM or go to swap; kept in an
 * unlinked file under the user's cache folder, the kernel writes it back and
 * drops the pages it needs for something else, like the mapped profile
 * itself. A trace decides when that is worth it (planar_trace_open() does for
 * large files); the arrays it then allocates here are mapped from such files,
 * and any of them that cannot be (no such folder, a tmpfs, a full disk: the
 * room is reserved before the mapping, so a write never faults) falls back
 * to the heap. Whatever it holds, a block from here is freed with
 * planar_spill_free().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Blocks smaller than this stay on the heap even when a trace spills. */
#define PLANAR_SPILL_MIN_BLOCK ((gsize) 1 << 20)
/* Blocks in memory from this size up are anonymous mappings of their own,
 * aligned and marked for transparent huge pages (still "in memory" to
 * planar_spill_is_mapped() and planar_spill_get_usage()). */
#define PLANAR_SPILL_HUGE_MIN ((gsize) 8 << 20)

/* What may go to a file: the @spill argument below. FALSE and TRUE are
 * the first two. */
typedef enum
{
  PLANAR_SPILL_NEVER = 0,
  /* Blocks of PLANAR_SPILL_MIN_BLOCK bytes or more. */
  PLANAR_SPILL_LARGE = 1,
  /* Every block, however small (for the tests: a small profile spilled
   * through and through). */
  PLANAR_SPILL_EVERY = 2,
  /* Blocks of PLANAR_SPILL_MIN_BLOCK bytes or more while the system is
   * short of memory (planar_spill_memory_is_short()), the heap while it
   * is not. */
  PLANAR_SPILL_WHEN_SHORT = 3,
} PlanarSpillMode;

/* Returns a block of @n_bytes (uninitialized), file-backed when @spill
 * wants a block of that size, else in memory. */
gpointer planar_spill_alloc  (gsize           n_bytes,
                              PlanarSpillMode spill);
/* Resizes @block (NULL, from the heap or from here) whose first @used_bytes
 * matter to @n_bytes, moving it to a file when it grows past the threshold. */
gpointer planar_spill_renew  (gpointer        block,
                              gsize           used_bytes,
                              gsize           n_bytes,
                              PlanarSpillMode spill);
/* A file-backed copy of the @n_bytes of the heap block @heap_block (one
 * from g_malloc() or an anonymous block from here) when @spill wants a
 * file for that size, or NULL (then nothing is copied); @heap_block stays
 * as it is, so that other threads may read it while it is copied. */
gpointer planar_spill_copy_to_file (gconstpointer   heap_block,
                                    gsize           n_bytes,
                                    PlanarSpillMode spill);
/* Moves a heap block (g_malloc()) of @n_bytes to a file when @spill and it
 * is large enough, freeing the heap copy; returns the block to use. */
gpointer planar_spill_take   (gpointer        heap_block,
                              gsize           n_bytes,
                              PlanarSpillMode spill);
/* Frees a block from any of the above, or from g_malloc(). */
void     planar_spill_free   (gpointer block);
/* Gives back to the system the whole pages of bytes [@offset, @offset +
 * @n_bytes) of @block, which no longer matter: a block in memory that is
 * a mapping of its own (PLANAR_SPILL_HUGE_MIN bytes and up) reads zeros
 * there afterwards; other blocks keep their pages and bytes. */
void     planar_spill_discard (gpointer       block,
                               gsize          offset,
                               gsize          n_bytes);
/* Whether @block is one of the heap's large blocks, an anonymous mapping
 * of its own with huge pages asked for: the blocks whose pages
 * planar_spill_discard() gives back. */
gboolean planar_spill_can_discard (gconstpointer block);
/* Whether @block is file-backed. */
gboolean planar_spill_is_mapped (gconstpointer block);
/* Whether taking @n_bytes more from the heap would leave the system less
 * than it keeps in reserve (an eighth of its memory, at least 1 GiB), by
 * /proc/meminfo's MemAvailable (what can be had without swapping: free
 * memory and page cache that can be dropped). TRUE when that is not
 * known. */
gboolean planar_spill_memory_is_short (gsize n_bytes);
/* Between these two calls (they nest, and may come from several loads at
 * once) the blocks in memory of PLANAR_SPILL_HUGE_MIN bytes or more that
 * are freed are kept, up to a bound, for the blocks asked for next, which
 * then need no fresh pages; the last end gives them back. */
void     planar_spill_reuse_begin (void);
void     planar_spill_reuse_end   (void);
/* Bytes and blocks file-backed right now, process-wide. */
void     planar_spill_get_usage (guint64 *n_bytes,
                                 guint   *n_blocks);

/* With PLANAR_DEBUG containing "memory" (read once per process), prints
 * to standard error the process's resident memory now (anonymous, file
 * pages, file-backed index) and its peak since the previous call, naming
 * @where, then starts a new peak (/proc/self/clear_refs): each line says
 * how much the step before it needed at most. Does nothing otherwise. */
void     planar_spill_debug_memory (const char *where);

/* A growable array whose storage comes from the functions above. */
typedef struct
{
  gpointer data;
  gsize    len;
  gsize    capacity;
  guint    element_size;
  PlanarSpillMode spill;
} PlanarSpillArray;

void     planar_spill_array_init    (PlanarSpillArray *array,
                                     guint             element_size,
                                     PlanarSpillMode   spill);
/* The same on the heap; freed with planar_spill_array_free() (NULL is
 * fine). */
PlanarSpillArray *planar_spill_array_new (guint           element_size,
                                          PlanarSpillMode spill);
void     planar_spill_array_free    (PlanarSpillArray *array);
/* Room for @n more elements. */
void     planar_spill_array_reserve (PlanarSpillArray *array,
                                     gsize             n);
/* Appends @n elements from @elements. */
void     planar_spill_array_append  (PlanarSpillArray *array,
                                     gconstpointer     elements,
                                     gsize             n);
/* Returns the storage (a planar_spill_free() block, NULL when empty) and
 * leaves @array empty. */
gpointer planar_spill_array_steal   (PlanarSpillArray *array);
void     planar_spill_array_clear   (PlanarSpillArray *array);

#define planar_spill_array_index(a, T, i) (((T *) (a)->data)[(i)])

G_END_DECLS
