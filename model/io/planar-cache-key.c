/* planar-cache-key.c: the content key of the cached index.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache-format-private.h"

#include <sys/mman.h>
#include <unistd.h>

#include <xxhash.h>

#include "planar-parallel.h"

/* ------------------------------------------------------------------------
 * The content key
 *
 * A hash of every byte of the profile, made of one XXH3-128 per XLine
 * (taken by the decoder's worker right after decoding the line, while its
 * bytes are in memory: _planar_cache_hash_line()) and of the bytes between
 * the lines (the XSpace's and planes' own fields, which the structure scan
 * reads), combined in file order. The order of the workers does not
 * matter, so the hash is the same whatever the number of cores. A reopen
 * takes the same hashes of the file as it is now, in parallel, before any
 * of the cached index is used.
 * ------------------------------------------------------------------------ */

static void
hash_range (PlanarTrace     *self,
            const LineRange *range)
{
  PlanarPlanePrivate *ppriv = &self->planes_priv[range->plane];
  XXH128_hash_t h = XXH3_128bits (self->data + range->offset, (size_t) range->size);

  ppriv->line_hashes[2 * range->line] = h.low64;
  ppriv->line_hashes[2 * range->line + 1] = h.high64;
}

void
_planar_cache_hash_line (PlanarTrace *self,
                         guint        p,
                         guint        l)
{
  const PlanarPlanePrivate *ppriv = &self->planes_priv[p];
  LineRange range = { ppriv->line_offsets[l], ppriv->line_sizes[l], p, l };

  /* An import's XSpace is of its own making and never cached; with the
   * cache off nothing is hashed. */
  if (self->import_report != NULL || !planar_cache_get_enabled ())
    return;
  hash_range (self, &range);
}

static int
compare_range_offset (gconstpointer a,
                      gconstpointer b)
{
  const LineRange *x = a, *y = b;

  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The file's lines, in file order. Before the tracks are planned the
 * planes hold only those; after, the derived ones follow them. */
GArray *
_planar_cache_line_ranges (PlanarTrace *self,
             gboolean     planned)
{
  GArray *ranges = g_array_new (FALSE, FALSE, sizeof (LineRange));

  for (guint p = 0; p < self->n_planes; p++)
    {
      const PlanarPlanePrivate *ppriv = &self->planes_priv[p];
      guint n = planned ? ppriv->n_file_lines : self->planes[p].n_lines;

      for (guint l = 0; l < n; l++)
        {
          LineRange range = { ppriv->line_offsets[l], ppriv->line_sizes[l], p, l };

          g_array_append_val (ranges, range);
        }
    }
  g_array_sort (ranges, compare_range_offset);
  return ranges;
}

/* Combines the lines' hashes (@ranges, in file order) with the bytes
 * between them into @out. */
void
_planar_cache_content_hash (PlanarTrace *self,
              GArray      *ranges,
              guint8       out[16])
{
  XXH3_state_t *state = XXH3_createState ();
  guint64 at = 0, size = self->size;

  g_assert (state != NULL);
  XXH3_128bits_reset (state);
  XXH3_128bits_update (state, &size, sizeof size);
  for (guint i = 0; i < ranges->len; i++)
    {
      const LineRange *r = &g_array_index (ranges, LineRange, i);
      const guint64 *h = &self->planes_priv[r->plane].line_hashes[2 * r->line];
      guint64 record[4] = { r->offset, r->size, h[0], h[1] };

      if (r->offset > at)
        XXH3_128bits_update (state, self->data + at, (size_t) (r->offset - at));
      XXH3_128bits_update (state, record, sizeof record);
      at = MAX (at, r->offset + r->size);
    }
  if (at < size)
    XXH3_128bits_update (state, self->data + at, (size_t) (size - at));
  XXH128_canonicalFromHash ((XXH128_canonical_t *) (gpointer) out, XXH3_128bits_digest (state));
  XXH3_freeState (state);
}

typedef struct
{
  PlanarTrace     *self;
  const LineRange *ranges;
  gsize            page_size;
} HashJobs;

/* A PlanarParallelFunc: hashes line @i of @data's ranges. */
static gboolean
hash_job (guint          i,
          gpointer       data,
          GCancellable  *cancellable,
          GError       **error)
{
  HashJobs *jobs = data;
  PlanarTrace *self = jobs->self;
  const LineRange *r = &jobs->ranges[i];

  hash_range (self, r);
  /* As the decoder does for a large file: the pages stay in the page
   * cache, not in the process. */
  if (self->size >= PLANAR_CACHE_DROP_PAGES_MIN_SIZE)
    {
      guint64 begin = (r->offset + jobs->page_size - 1) / jobs->page_size * jobs->page_size;
      guint64 end = (r->offset + r->size) / jobs->page_size * jobs->page_size;

      if (end > begin)
        madvise ((void *) (self->data + begin), end - begin, MADV_DONTNEED);
    }
  return TRUE;
}

static int
compare_job_size_desc (gconstpointer a,
                       gconstpointer b,
                       gpointer      user_data)
{
  const LineRange *ranges = user_data;
  guint x = *(const guint *) a, y = *(const guint *) b;

  if (ranges[x].size != ranges[y].size)
    return ranges[x].size > ranges[y].size ? -1 : 1;
  return x < y ? -1 : x > y;
}

gboolean
_planar_cache_check_content (PlanarTrace    *self,
                             const gboolean *hashed,
                             GCancellable   *cancellable,
                             guint8          hash[16],
                             GError        **error)
{
  g_autoptr(GArray) ranges = _planar_cache_line_ranges (self, FALSE);
  g_autofree guint *order = g_new (guint, MAX (ranges->len, 1));
  HashJobs jobs = { self, (const LineRange *) (gconstpointer) ranges->data, (gsize) sysconf (_SC_PAGESIZE) };
  guint n = 0;

  /* Biggest first, so that no worker is left with a long one at the end;
   * the lines of the planes @hashed marks have their hashes already. */
  for (guint i = 0; i < ranges->len; i++)
    if (hashed == NULL || !hashed[jobs.ranges[i].plane])
      order[n++] = i;
  g_qsort_with_data (order, (gint) n, sizeof (guint), compare_job_size_desc, ranges->data);
  if (!planar_parallel_run (n, order, hash_job, &jobs, cancellable, error))
    return FALSE;
  _planar_cache_content_hash (self, ranges, hash);
  return TRUE;
}
