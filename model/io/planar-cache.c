/* planar-cache.c: the cached index of a profile.
 *
 * One file per profile in the cache folder, named for the profile's path:
 *
 *   header     magic, version, the size of PlanarEvent, the key (the
 *              profile's size, a hash of all its bytes and its time offset
 *              in its session) and a SHA-256 of the header and section table
 *   sections   a table of (kind, plane, track, offset, size, raw size)
 *   frames     one zstd frame per section, each with its own checksum:
 *              META (planes, lines, derived metadata, track headers), one
 *              TRACK per track (events, aggregated events, children
 *              times), SOURCES per plane with derived events, FLOWS
 *
 * Reading checks the profile's bytes against the key's hash first, then
 * all of the cache file and every index in it against the trace the file
 * scan made; anything that does not fit means the file is not used (and
 * is removed), and the profile is decoded as if there were none. A cache
 * path that is not a regular file is neither read nor followed.
 * Writing goes through a hidden temporary file and a rename. Past the
 * size cap the least recently used files go (a file's modification time
 * is renewed each time it is used).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include <glib/gstdio.h>
#include <xxhash.h>
#include <zstd.h>

#include "planar-counters.h"
#include "planar-derive.h"
#include "planar-derive-private.h"
#include "planar-flows.h"
#include "planar-mapping.h"
#include "planar-mapping-private.h"
#include "planar-string-table.h"
#include "planar-trace-private.h"

#define MAGIC "PLNRIDX1"
/* 2: the key holds the content hash. */
#define VERSION 2
#define SUFFIX ".planar-index"
#define DEFAULT_LIMIT (G_GUINT64_CONSTANT (2) << 30)
#define ZSTD_LEVEL 1
/* As the decoder: past this, pages read are dropped from the process. */
#define PLANAR_CACHE_DROP_PAGES_MIN_SIZE (G_GUINT64_CONSTANT (256) << 20)

enum
{
  SECTION_META = 1,
  SECTION_TRACK,
  SECTION_SOURCES,
  SECTION_FLOWS,
};

typedef struct
{
  char    magic[8];
  guint32 version;
  guint32 header_size;
  guint32 event_size;
  guint32 n_sections;
  guint64 source_size;
  /* Kept for information: the content decides, not the time. */
  gint64  source_mtime_ns;
  gint64  time_offset_ps;
  /* XXH3-128 of the profile's bytes (content_hash ()), canonical form. */
  guint8  content_hash[16];
  guint8  digest[32];
} Header;

typedef struct
{
  guint32 kind;
  guint32 plane;
  guint32 track;
  guint32 reserved;
  guint64 offset;
  guint64 size;
  guint64 raw_size;
} Section;

typedef struct
{
  guint64 index;
  gint64  children_ps;
} ChildTime;

static GMutex config_lock;
static char *config_dir;
static gint config_enabled = -1;
static guint64 config_limit = DEFAULT_LIMIT;
static GPtrArray *writers;
static gint n_restored;
/* Set while planar_cache_cancel() stops the writers. */
static gint cancel_writes;

/* ------------------------------------------------------------------------
 * Settings
 * ------------------------------------------------------------------------ */

void
planar_cache_set_dir (const char *dir)
{
  g_mutex_lock (&config_lock);
  g_free (config_dir);
  config_dir = g_strdup (dir);
  g_mutex_unlock (&config_lock);
}

char *
planar_cache_get_dir (void)
{
  char *dir;

  g_mutex_lock (&config_lock);
  if (config_dir != NULL)
    dir = g_strdup (config_dir);
  else if (g_getenv ("PLANAR_CACHE_DIR") != NULL && g_getenv ("PLANAR_CACHE_DIR")[0] != '\0')
    dir = g_strdup (g_getenv ("PLANAR_CACHE_DIR"));
  else
    dir = g_build_filename (g_get_user_cache_dir (), "planar", NULL);
  g_mutex_unlock (&config_lock);
  return dir;
}

void
planar_cache_set_enabled (gboolean enabled)
{
  g_atomic_int_set (&config_enabled, enabled ? 1 : 0);
}

gboolean
planar_cache_get_enabled (void)
{
  gint v = g_atomic_int_get (&config_enabled);

  if (v < 0)
    return g_strcmp0 (g_getenv ("PLANAR_CACHE"), "0") != 0;
  return v != 0;
}

void
planar_cache_set_limit (guint64 bytes)
{
  g_mutex_lock (&config_lock);
  config_limit = bytes;
  g_mutex_unlock (&config_lock);
}

guint64
planar_cache_get_limit (void)
{
  guint64 limit;

  g_mutex_lock (&config_lock);
  limit = config_limit;
  g_mutex_unlock (&config_lock);
  return limit;
}

char *
planar_cache_get_path (const char *source_path)
{
  g_autofree char *absolute = g_canonicalize_filename (source_path, NULL);
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, absolute, -1);
  g_autofree char *dir = planar_cache_get_dir ();
  g_autofree char *name = NULL;

  digest[32] = '\0';
  name = g_strconcat (digest, SUFFIX, NULL);
  return g_build_filename (dir, name, NULL);
}

/* ------------------------------------------------------------------------
 * Bytes in and out
 * ------------------------------------------------------------------------ */

static void
put (GByteArray *out,
     const void *data,
     gsize       len)
{
  g_byte_array_append (out, data, (guint) len);
}

static void
put_u32 (GByteArray *out,
         guint32     v)
{
  put (out, &v, sizeof v);
}

static void
put_u64 (GByteArray *out,
         guint64     v)
{
  put (out, &v, sizeof v);
}

static void
put_str (GByteArray *out,
         const char *s,
         gsize       len)
{
  put_u64 (out, len);
  if (len > 0)
    put (out, s, len);
}

typedef struct
{
  const guint8 *p;
  const guint8 *end;
  gboolean      ok;
  PlanarTrace  *trace;
} Reader;

static gboolean
get (Reader *r,
     void   *out,
     gsize   len)
{
  if (!r->ok || (gsize) (r->end - r->p) < len)
    {
      r->ok = FALSE;
      memset (out, 0, len);
      return FALSE;
    }
  memcpy (out, r->p, len);
  r->p += len;
  return TRUE;
}

static guint32
get_u32 (Reader *r)
{
  guint32 v;

  get (r, &v, sizeof v);
  return v;
}

static guint64
get_u64 (Reader *r)
{
  guint64 v;

  get (r, &v, sizeof v);
  return v;
}

static gint64
get_i64 (Reader *r)
{
  return (gint64) get_u64 (r);
}

/* An interned copy of the next string; @len_out its length. */
static const char *
get_str (Reader *r,
         gsize  *len_out)
{
  guint64 len = get_u64 (r);
  const char *s;

  if (!r->ok || len > (guint64) (r->end - r->p))
    {
      r->ok = FALSE;
      return "";
    }
  g_mutex_lock (&r->trace->strings_lock);
  s = planar_string_table_intern_len (r->trace->strings, (const char *) r->p, (gsize) len);
  g_mutex_unlock (&r->trace->strings_lock);
  r->p += len;
  if (len_out != NULL)
    *len_out = (gsize) len;
  return s;
}

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

typedef struct
{
  guint64 offset;
  guint64 size;
  guint   plane;
  guint   line;
} LineRange;

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

static int
compare_range_size_desc (gconstpointer a,
                         gconstpointer b)
{
  const LineRange *x = a, *y = b;

  return x->size > y->size ? -1 : x->size < y->size;
}

/* The file's lines, in file order. Before the tracks are planned the
 * planes hold only those; after, the derived ones follow them. */
static GArray *
line_ranges (PlanarTrace *self,
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
static void
content_hash (PlanarTrace *self,
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
  guint            n_ranges;
  gint             next;
  GCancellable    *cancellable;
  gint             cancelled;
} HashJobs;

static gpointer
hash_worker (gpointer data)
{
  HashJobs *jobs = data;
  PlanarTrace *self = jobs->self;
  gsize page_size = (gsize) sysconf (_SC_PAGESIZE);

  for (;;)
    {
      gint i = g_atomic_int_add (&jobs->next, 1);
      const LineRange *r;

      if ((guint) i >= jobs->n_ranges || g_atomic_int_get (&jobs->cancelled))
        break;
      if (g_cancellable_is_cancelled (jobs->cancellable))
        {
          g_atomic_int_set (&jobs->cancelled, 1);
          break;
        }
      r = &jobs->ranges[i];
      hash_range (self, r);
      /* As the decoder does for a large file: the pages stay in the page
       * cache, not in the process. */
      if (self->size >= PLANAR_CACHE_DROP_PAGES_MIN_SIZE)
        {
          guint64 begin = (r->offset + page_size - 1) / page_size * page_size;
          guint64 end = (r->offset + r->size) / page_size * page_size;

          if (end > begin)
            madvise ((void *) (self->data + begin), end - begin, MADV_DONTNEED);
        }
    }
  return NULL;
}

gboolean
_planar_cache_check_content (PlanarTrace   *self,
                             GCancellable  *cancellable,
                             guint8         hash[16],
                             GError       **error)
{
  g_autoptr(GArray) ranges = line_ranges (self, FALSE);
  g_autoptr(GArray) by_size = g_array_copy (ranges);
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  HashJobs jobs = { self, NULL, by_size->len, 0, cancellable, 0 };
  guint n_threads = MIN (MIN (g_get_num_processors (), 8), MAX (by_size->len, 1));

  /* Biggest first, so that no worker is left with a long one at the end. */
  g_array_sort (by_size, compare_range_size_desc);
  jobs.ranges = (const LineRange *) (gconstpointer) by_size->data;
  for (guint i = 1; i < n_threads; i++)
    {
      GThread *thread = g_thread_try_new ("planar-cache-hash", hash_worker, &jobs, NULL);

      if (thread != NULL)
        g_ptr_array_add (threads, thread);
    }
  hash_worker (&jobs);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (threads->pdata[i]);
  if (jobs.cancelled)
    return !g_cancellable_set_error_if_cancelled (cancellable, error);
  content_hash (self, ranges, hash);
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------ */

/* Streams zstd frames into the file being written, one section each. */
typedef struct
{
  int        fd;
  /* Where the frames start, and where the next byte goes. */
  guint64    frames_start;
  guint64    at;
  ZSTD_CCtx *cctx;
  GArray    *sections;
  Section    current;
  guint8    *out;
  gsize      out_size;
  int        errsv;
} Writer;

static void
writer_emit (Writer     *w,
             const void *data,
             gsize       len)
{
  const guint8 *p = data;

  while (len > 0 && w->errsv == 0)
    {
      ssize_t n = pwrite (w->fd, p, len, (off_t) w->at);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          w->errsv = n < 0 ? errno : ENOSPC;
          return;
        }
      p += n;
      len -= (gsize) n;
      w->at += (guint64) n;
    }
}

static void
writer_compress (Writer          *w,
                 const void      *data,
                 gsize            len,
                 ZSTD_EndDirective mode)
{
  ZSTD_inBuffer in = { data, len, 0 };
  gboolean done = FALSE;

  while (!done && w->errsv == 0)
    {
      ZSTD_outBuffer out = { w->out, w->out_size, 0 };

      if (g_atomic_int_get (&cancel_writes))
        {
          w->errsv = ECANCELED;
          return;
        }
      gsize left = ZSTD_compressStream2 (w->cctx, &out, &in, mode);

      if (ZSTD_isError (left))
        {
          w->errsv = EIO;
          return;
        }
      writer_emit (w, w->out, out.pos);
      done = mode == ZSTD_e_end ? left == 0 : in.pos == in.size;
    }
}

static void
frame_begin (Writer  *w,
             guint32  kind,
             guint32  plane,
             guint32  track)
{
  Section s = { kind, plane, track, 0, w->at - w->frames_start, 0, 0 };

  w->current = s;
  ZSTD_CCtx_reset (w->cctx, ZSTD_reset_session_only);
}

/* A PlanarByteSink. */
static void
frame_add (gpointer    data,
           const void *bytes,
           gsize       len)
{
  Writer *w = data;

  if (len == 0)
    return;
  w->current.raw_size += len;
  writer_compress (w, bytes, len, ZSTD_e_continue);
}

static void
frame_end (Writer *w)
{
  writer_compress (w, "", 0, ZSTD_e_end);
  w->current.size = w->at - w->frames_start - w->current.offset;
  g_array_append_val (w->sections, w->current);
}

static void
put_stat (GByteArray       *out,
          const PlanarStat *st)
{
  guint64 bits;

  put_str (out, st->name, strlen (st->name));
  put_u64 (out, (guint64) st->metadata_id);
  put_u32 (out, st->kind);
  put_u32 (out, st->from_metadata);
  memcpy (&bits, &st->v, sizeof bits);
  put_u64 (out, bits);
  if (st->kind == PLANAR_STAT_STRING || st->kind == PLANAR_STAT_BYTES || st->kind == PLANAR_STAT_REF)
    put_str (out, st->str.data, st->str.data != NULL ? st->str.len : 0);
  else
    put_str (out, NULL, 0);
}

static void
serialize_meta (PlanarTrace *self,
                GByteArray  *meta)
{
  put_str (meta, self->path, strlen (self->path));
  put_u32 (meta, self->n_planes);
  put_u32 (meta, self->aligned_at_earliest_event);
  put_u32 (meta, (guint32) g_atomic_int_get (&self->n_dropped_derived_lines));
  put_u32 (meta, self->flows != NULL);
  for (guint p = 0; p < self->n_planes; p++)
    {
      const PlanarPlane *plane = &self->planes[p];
      guint n_file_metadata = self->planes_priv[p].n_file_metadata;

      put_u32 (meta, plane->n_lines);
      put_u32 (meta, plane->n_tracks);
      put_u32 (meta, plane->n_metadata);
      put_u32 (meta, n_file_metadata);
      put_u32 (meta, plane->n_rows);
      for (guint l = 0; l < plane->n_lines; l++)
        {
          const PlanarLine *line = &plane->lines[l];

          put_u64 (meta, (guint64) line->id);
          put_u64 (meta, (guint64) line->display_id);
          put_str (meta, line->name, strlen (line->name));
          put_str (meta, line->display_name, strlen (line->display_name));
          put_u64 (meta, (guint64) line->timestamp_ns);
          put_u64 (meta, (guint64) line->duration_ps);
          put_u64 (meta, line->n_events);
          put_u32 (meta, line->track);
          put_u32 (meta, line->derived);
        }
      for (guint m = n_file_metadata; m < plane->n_metadata; m++)
        {
          const PlanarEventMetadata *md = &plane->metadata[m];

          put_u64 (meta, (guint64) md->id);
          put_str (meta, md->name, strlen (md->name));
          put_str (meta, md->display_name, strlen (md->display_name));
          put_u32 (meta, md->internal);
          put_u32 (meta, md->n_stats);
          for (guint s = 0; s < md->n_stats; s++)
            put_stat (meta, &md->stats[s]);
        }
      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          put_u64 (meta, (guint64) track->id);
          put_u64 (meta, (guint64) track->display_id);
          put_str (meta, track->name, strlen (track->name));
          put_str (meta, track->display_name, strlen (track->display_name));
          put_u32 (meta, track->row);
          put_u32 (meta, track->derived);
          put_u32 (meta, track->source_track);
          put_u32 (meta, track->max_depth);
          put_u64 (meta, track->n_events);
          put_u64 (meta, track->n_aggregated);
          put_u64 (meta, track->n_overlaps);
          put_u64 (meta, track->n_children);
        }
    }
}

/* Writes the cache file of @self to @fd: frames first, streamed, then the
 * header and section table in the room left before them. */
static gboolean
write_cache (PlanarTrace  *self,
             const guint8  content[16],
             int           fd,
             GError      **error)
{
  g_autoptr(GByteArray) meta = g_byte_array_new ();
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  Writer w = { 0 };
  Header h = { 0 };
  gsize digest_len = sizeof h.digest;
  guint n_sections = 1 + self->n_planes + (self->flows != NULL);

  for (guint p = 0; p < self->n_planes; p++)
    n_sections += self->planes[p].n_tracks;
  w.fd = fd;
  w.frames_start = w.at = sizeof h + (guint64) n_sections * sizeof (Section);
  w.sections = g_array_sized_new (FALSE, FALSE, sizeof (Section), n_sections);
  w.cctx = ZSTD_createCCtx ();
  w.out_size = ZSTD_CStreamOutSize ();
  w.out = g_malloc (w.out_size);
  ZSTD_CCtx_setParameter (w.cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL);
  ZSTD_CCtx_setParameter (w.cctx, ZSTD_c_checksumFlag, 1);

  serialize_meta (self, meta);
  frame_begin (&w, SECTION_META, 0, 0);
  frame_add (&w, meta->data, meta->len);
  frame_end (&w);
  for (guint p = 0; p < self->n_planes; p++)
    {
      const PlanarPlane *plane = &self->planes[p];

      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          frame_begin (&w, SECTION_TRACK, p, t);
          frame_add (&w, track->events, track->n_events * sizeof (PlanarEvent));
          frame_add (&w, track->aggregated, track->n_aggregated * sizeof (PlanarEvent));
          frame_add (&w, track->children, track->n_children * sizeof (ChildTime));
          frame_end (&w);
        }
      frame_begin (&w, SECTION_SOURCES, p, 0);
      _planar_trace_serialize_derived_sources (self, p, frame_add, &w);
      frame_end (&w);
    }
  if (self->flows != NULL)
    {
      frame_begin (&w, SECTION_FLOWS, 0, 0);
      _planar_flow_index_serialize (self->flows, frame_add, &w);
      frame_end (&w);
    }
  ZSTD_freeCCtx (w.cctx);
  g_free (w.out);
  g_assert (w.errsv != 0 || w.sections->len == n_sections);

  memcpy (h.magic, MAGIC, sizeof h.magic);
  h.version = VERSION;
  h.header_size = sizeof h;
  h.event_size = sizeof (PlanarEvent);
  h.n_sections = n_sections;
  h.source_size = self->file_size;
  h.source_mtime_ns = self->source_mtime_ns;
  h.time_offset_ps = self->time_offset_ps;
  memcpy (h.content_hash, content, sizeof h.content_hash);
  g_checksum_update (checksum, (const guint8 *) &h, sizeof h);
  g_checksum_update (checksum, (const guint8 *) w.sections->data, w.sections->len * sizeof (Section));
  g_checksum_get_digest (checksum, h.digest, &digest_len);
  w.at = 0;
  writer_emit (&w, &h, sizeof h);
  writer_emit (&w, w.sections->data, w.sections->len * sizeof (Section));
  g_array_unref (w.sections);
  if (w.errsv != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (w.errsv), "%s", g_strerror (w.errsv));
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  char   *path;
  guint64 size;
  gint64  mtime;
} CacheFile;

static int
compare_by_age (gconstpointer a,
                gconstpointer b)
{
  const CacheFile *x = a, *y = b;

  return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* Removes the least recently used files until the folder fits the cap. */
static void
evict (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GArray) files = g_array_new (FALSE, FALSE, sizeof (CacheFile));
  guint64 total = 0, limit = planar_cache_get_limit ();
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      CacheFile f;
      GStatBuf st;

      /* What a writer killed on the way left, after an hour. */
      if (name[0] == '.' && strstr (name, SUFFIX ".") != NULL)
        {
          g_autofree char *tmp = g_build_filename (dir, name, NULL);

          if (g_stat (tmp, &st) == 0 && st.st_mtime + 3600 < time (NULL))
            g_unlink (tmp);
          continue;
        }
      if (!g_str_has_suffix (name, SUFFIX))
        continue;
      f.path = g_build_filename (dir, name, NULL);
      if (g_stat (f.path, &st) != 0)
        {
          g_free (f.path);
          continue;
        }
      f.size = (guint64) st.st_size;
      f.mtime = (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
      total += f.size;
      g_array_append_val (files, f);
    }
  g_array_sort (files, compare_by_age);
  for (guint i = 0; i < files->len; i++)
    {
      CacheFile *f = &g_array_index (files, CacheFile, i);

      if (total > limit && g_unlink (f->path) == 0)
        total -= f->size;
      g_free (f->path);
    }
}

static gboolean
store (PlanarTrace   *self,
       const guint8   content[16],
       GError       **error)
{
  g_autofree char *path = planar_cache_get_path (self->path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *tmp = NULL;
  GStatBuf st;
  int fd;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "Cannot make %s: %s", dir, g_strerror (errno));
      return FALSE;
    }
  tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, strrchr (path, '/') + 1);
  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "Cannot write in %s: %s", dir,
                   g_strerror (errno));
      return FALSE;
    }
  if (!write_cache (self, content, fd, error))
    {
      close (fd);
      g_unlink (tmp);
      g_prefix_error (error, "Cannot write %s: ", tmp);
      return FALSE;
    }
  /* Nothing is worth keeping that would not fit at all. */
  if (fstat (fd, &st) != 0 || (guint64) st.st_size > planar_cache_get_limit ())
    {
      close (fd);
      g_unlink (tmp);
      return TRUE;
    }
  if (close (fd) != 0 || g_rename (tmp, path) != 0)
    {
      int saved = errno;

      g_unlink (tmp);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "Cannot write %s: %s", path,
                   g_strerror (saved));
      return FALSE;
    }
  evict (dir);
  return TRUE;
}

typedef struct
{
  PlanarTrace *self;
  guint8       content[16];
} StoreJob;

static gpointer
store_thread (gpointer data)
{
  StoreJob *job = data;
  g_autoptr(GError) error = NULL;

  if (!store (job->self, job->content, &error))
    g_debug ("Not caching %s: %s", job->self->file_name, error->message);
  g_object_unref (job->self);
  g_free (job);
  return NULL;
}

void
_planar_cache_store_later (PlanarTrace *self)
{
  StoreJob *job;

  /* An import's index is of a file of its own making, gone with it. */
  if (!planar_cache_get_enabled () || self->import_report != NULL || self->path == NULL)
    return;
  /* The lines were hashed as they were decoded (or checked); what lies
   * between them is read here, before the load returns. (A cache turned
   * on during the decode gives a key that matches nothing: the entry is
   * dropped at the next open and written again.) */
  job = g_new0 (StoreJob, 1);
  job->self = g_object_ref (self);
  {
    g_autoptr(GArray) ranges = line_ranges (self, TRUE);

    content_hash (self, ranges, job->content);
  }
  g_mutex_lock (&config_lock);
  if (writers == NULL)
    writers = g_ptr_array_new ();
  g_ptr_array_add (writers, g_thread_new ("planar-cache", store_thread, job));
  g_mutex_unlock (&config_lock);
}

void
planar_cache_cancel (void)
{
  g_atomic_int_set (&cancel_writes, 1);
  planar_cache_wait ();
  g_atomic_int_set (&cancel_writes, 0);
}

void
planar_cache_wait (void)
{
  for (;;)
    {
      GThread *thread = NULL;

      g_mutex_lock (&config_lock);
      if (writers != NULL && writers->len > 0)
        thread = g_ptr_array_steal_index (writers, writers->len - 1);
      g_mutex_unlock (&config_lock);
      if (thread == NULL)
        return;
      g_thread_join (thread);
    }
}

/* ------------------------------------------------------------------------
 * Reading
 * ------------------------------------------------------------------------ */

typedef struct
{
  const guint8  *frames;
  gsize          frames_len;
  const Section *sections;
  guint          n_sections;
} Table;

/* The decompressed section (kind, plane, track), or NULL (with @error
 * when it is there but damaged; @absent set when it is not there). */
static const Section *
find_section (const Table *table,
              guint32      kind,
              guint32      plane,
              guint32      track)
{
  for (guint i = 0; i < table->n_sections; i++)
    if (table->sections[i].kind == kind && table->sections[i].plane == plane && table->sections[i].track == track)
      return &table->sections[i];
  return NULL;
}

/* Decompresses @s, which must hold exactly @len bytes, into @dest. */
static gboolean
decompress_into (const Table   *table,
                 const Section *s,
                 void          *dest,
                 gsize          len)
{
  gsize n;

  unsigned long long content;

  if (s->offset > table->frames_len || s->size > table->frames_len - s->offset || s->raw_size != len)
    return FALSE;
  /* Streamed frames do not say their size; the table does. */
  content = ZSTD_getFrameContentSize (table->frames + s->offset, (gsize) s->size);
  if (content != len && content != ZSTD_CONTENTSIZE_UNKNOWN)
    return FALSE;
  n = ZSTD_decompress (dest, len, table->frames + s->offset, (gsize) s->size);
  return !ZSTD_isError (n) && n == len;
}

static GBytes *
read_section (const Table  *table,
              guint32       kind,
              guint32       plane,
              guint32       track,
              guint64       max_raw,
              gboolean     *absent,
              GError      **error)
{
  const Section *s = NULL;
  unsigned long long content;
  guint8 *raw;
  gsize n;

  if (absent != NULL)
    *absent = FALSE;
  for (guint i = 0; i < table->n_sections && s == NULL; i++)
    if (table->sections[i].kind == kind && table->sections[i].plane == plane && table->sections[i].track == track)
      s = &table->sections[i];
  if (s == NULL)
    {
      if (absent != NULL)
        *absent = TRUE;
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "section %u of plane %u track %u is missing", kind,
                   plane, track);
      return NULL;
    }
  if (s->offset > table->frames_len || s->size > table->frames_len - s->offset || s->raw_size > max_raw)
    goto bad;
  content = ZSTD_getFrameContentSize (table->frames + s->offset, (gsize) s->size);
  if (content != s->raw_size && content != ZSTD_CONTENTSIZE_UNKNOWN)
    goto bad;
  raw = g_malloc (MAX ((gsize) s->raw_size, 1));
  n = ZSTD_decompress (raw, (gsize) s->raw_size, table->frames + s->offset, (gsize) s->size);
  if (ZSTD_isError (n) || n != s->raw_size)
    {
      g_free (raw);
      goto bad;
    }
  return g_bytes_new_take (raw, (gsize) s->raw_size);

bad:
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "section %u of plane %u track %u is damaged", kind, plane,
               track);
  return NULL;
}

/* Checks a track's events: known metadata, depths within its depth, sorted
 * by (start, longer first), ends that do not overflow, file offsets inside
 * the file, derived events only on derived tracks. */
static gboolean
events_sound (PlanarTrace       *self,
              const PlanarPlane *plane,
              const PlanarTrack *track,
              const PlanarEvent *events,
              gsize              n,
              gboolean           timeline)
{
  for (gsize i = 0; i < n; i++)
    {
      const PlanarEvent *ev = &events[i];
      gint64 end;

      if (ev->metadata >= plane->n_metadata || ev->duration_ps < 0
          || __builtin_add_overflow (ev->start_ps, ev->duration_ps, &end))
        return FALSE;
      if ((ev->flags & PLANAR_EVENT_DERIVED) ? !track->derived : ev->source >= self->size)
        return FALSE;
      if (!timeline)
        continue;
      if (ev->depth > track->max_depth)
        return FALSE;
      if (i > 0 && (events[i - 1].start_ps > ev->start_ps
                    || (events[i - 1].start_ps == ev->start_ps && events[i - 1].duration_ps < ev->duration_ps)))
        return FALSE;
    }
  return TRUE;
}

/* Fills plane @p's track @t from its TRACK section and indexes it. The
 * frame is decompressed straight into the events array (the aggregated
 * events and children times after them are copied out). */
static gboolean
restore_track (PlanarTrace  *self,
               const Table  *table,
               guint         p,
               guint         t,
               GError      **error)
{
  PlanarPlane *plane = &self->planes[p];
  PlanarTrack *track = &plane->tracks[t];
  gsize events_len = track->n_events * sizeof (PlanarEvent);
  gsize aggregated_len = track->n_aggregated * sizeof (PlanarEvent);
  gsize children_len = track->n_children * sizeof (ChildTime);
  const Section *section = find_section (table, SECTION_TRACK, p, t);
  guint8 *raw;
  const ChildTime *children;

  /* Sizes from META are checked against the section's and the budget
   * before anything is allocated for them. */
  if (section == NULL || section->raw_size != events_len + aggregated_len + children_len
      || section->raw_size > self->memory_budget)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "track %u of plane %u does not fit", t, p);
      return FALSE;
    }
  raw = planar_spill_alloc (MAX (events_len + aggregated_len + children_len, sizeof (PlanarEvent)), self->spill);
  track->events = (PlanarEvent *) (gpointer) raw;
  if (section == NULL || !decompress_into (table, section, raw, events_len + aggregated_len + children_len))
    goto bad;
  if (track->n_aggregated > 0)
    {
      track->aggregated = planar_spill_alloc (aggregated_len, self->spill);
      memcpy (track->aggregated, raw + events_len, aggregated_len);
    }
  if (track->n_children > 0)
    {
      track->children = planar_spill_alloc (children_len, self->spill);
      memcpy (track->children, raw + events_len + aggregated_len, children_len);
    }
  children = (const ChildTime *) track->children;
  for (gsize i = 0; i < track->n_children; i++)
    if (children[i].index >= track->n_events || (i > 0 && children[i - 1].index >= children[i].index))
      goto bad;
  if (!events_sound (self, plane, track, track->events, track->n_events, TRUE)
      || !events_sound (self, plane, track, track->aggregated, track->n_aggregated, FALSE))
    goto bad;
  return _planar_trace_index_track (self, track, error);

bad:
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "track %u of plane %u does not fit", t, p);
  return FALSE;
}

typedef struct
{
  PlanarTrace  *self;
  const Table  *table;
  /* (plane, track) pairs. */
  guint        *jobs;
  guint         n_jobs;
  gint          next;
  GCancellable *cancellable;
  /* Publish each track once restored; decode from the file one that
   * cannot be restored. */
  gboolean      progressive;
  /* Tracks decoded from the file instead (atomic). */
  gint          n_fallbacks;
  GMutex        lock;
  GError       *error;
} RestoreJobs;

static gpointer
restore_worker (gpointer data)
{
  RestoreJobs *jobs = data;

  for (;;)
    {
      gint i = g_atomic_int_add (&jobs->next, 1);
      GError *error = NULL;
      gboolean failed;

      g_mutex_lock (&jobs->lock);
      failed = jobs->error != NULL;
      g_mutex_unlock (&jobs->lock);
      if ((guint) i >= jobs->n_jobs || failed)
        break;
      guint p = jobs->jobs[2 * i], t = jobs->jobs[2 * i + 1];
      gboolean ok = !g_cancellable_set_error_if_cancelled (jobs->cancellable, &error);

      if (ok && !restore_track (jobs->self, jobs->table, p, t, &error))
        {
          ok = FALSE;
          if (jobs->progressive)
            {
              g_debug ("Cached track %u of plane %u of %s not used: %s", t, p, jobs->self->file_name, error->message);
              g_clear_error (&error);
              ok = _planar_trace_decode_track (jobs->self, p, t, &error);
              g_atomic_int_inc (&jobs->n_fallbacks);
            }
        }
      if (ok && jobs->progressive)
        g_atomic_int_set (&jobs->self->track_ready[p][t], 1);
      if (!ok)
        {
          g_mutex_lock (&jobs->lock);
          if (jobs->error == NULL)
            jobs->error = error;
          else
            g_error_free (error);
          g_mutex_unlock (&jobs->lock);
          break;
        }
    }
  return NULL;
}

/* Restores the file's tracks (@derived FALSE) or the derived ones, in
 * plane order (the timeline's top first), on a worker per core. */
static gboolean
restore_tracks (PlanarTrace   *self,
                const Table   *table,
                gboolean       derived,
                gboolean       progressive,
                gboolean      *repaired,
                GCancellable  *cancellable,
                GError       **error)
{
  RestoreJobs jobs = { self, table, NULL, 0, 0, cancellable, progressive, 0, { 0 }, NULL };
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  guint n_threads;

  jobs.jobs = g_new (guint, 2);
  for (guint p = 0; p < self->n_planes; p++)
    {
      guint n_file = self->planes_priv[p].n_file_tracks;
      guint first = derived ? n_file : 0, last = derived ? self->planes[p].n_tracks : n_file;

      for (guint t = first; t < last; t++)
        {
          jobs.jobs = g_renew (guint, jobs.jobs, 2 * (jobs.n_jobs + 1));
          jobs.jobs[2 * jobs.n_jobs] = p;
          jobs.jobs[2 * jobs.n_jobs + 1] = t;
          jobs.n_jobs++;
        }
    }
  g_mutex_init (&jobs.lock);
  n_threads = MIN (MIN (g_get_num_processors (), 8), MAX (jobs.n_jobs, 1));
  for (guint i = 1; i < n_threads; i++)
    g_ptr_array_add (threads, g_thread_new ("planar-cache", restore_worker, &jobs));
  restore_worker (&jobs);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (threads->pdata[i]);
  g_mutex_clear (&jobs.lock);
  g_free (jobs.jobs);
  if (jobs.n_fallbacks > 0)
    *repaired = TRUE;
  if (jobs.error != NULL)
    {
      g_propagate_error (error, jobs.error);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_stat (Reader     *r,
           PlanarStat *st)
{
  guint64 bits;
  gsize len = 0;
  const char *s;

  memset (st, 0, sizeof *st);
  st->name = get_str (r, NULL);
  st->metadata_id = get_i64 (r);
  st->kind = get_u32 (r);
  st->from_metadata = get_u32 (r) != 0;
  bits = get_u64 (r);
  memcpy (&st->v, &bits, sizeof bits);
  s = get_str (r, &len);
  if (st->kind > PLANAR_STAT_REF)
    r->ok = FALSE;
  if (st->kind == PLANAR_STAT_STRING || st->kind == PLANAR_STAT_BYTES || st->kind == PLANAR_STAT_REF)
    {
      st->str.data = s;
      st->str.len = len;
    }
  return r->ok;
}

/* Plane @p from META: the file's lines, then (after planning the tracks
 * as the decoder does) derived metadata, track headers and derived lines.
 * Sets *n_tracks_out to the plane's final number of tracks. */
static gboolean
restore_plane_meta (PlanarTrace *self,
                    Reader      *r,
                    guint        p,
                    guint       *n_lines_out,
                    guint       *n_tracks_out)
{
  PlanarPlane *plane = &self->planes[p];
  guint n_lines = get_u32 (r), n_tracks = get_u32 (r), n_metadata = get_u32 (r);
  guint n_file_metadata = get_u32 (r), n_rows = get_u32 (r);
  guint n_file_lines = 0;

  if (!r->ok || n_file_metadata != plane->n_metadata || n_metadata < n_file_metadata || n_lines < plane->n_lines)
    return FALSE;
  for (guint l = 0; l < n_lines; l++)
    {
      PlanarLine line = { 0 };

      line.id = get_i64 (r);
      line.display_id = get_i64 (r);
      line.name = get_str (r, NULL);
      line.display_name = get_str (r, NULL);
      line.timestamp_ns = get_i64 (r);
      line.duration_ps = get_i64 (r);
      line.n_events = get_u64 (r);
      line.track = get_u32 (r);
      line.derived = get_u32 (r) != 0;
      if (!r->ok || (l < plane->n_lines) == line.derived)
        return FALSE;
      if (!line.derived)
        {
          /* Where the scan found it stays. */
          line.offset = plane->lines[l].offset;
          line.size = plane->lines[l].size;
          plane->lines[l] = line;
          n_file_lines++;
        }
      else
        {
          /* Derived lines come back once the room for them exists. */
          if (l == plane->n_lines)
            _planar_trace_plan_tracks_plane (self, p);
          if (l >= self->planes_priv[p].lines_capacity || line.track >= n_tracks)
            return FALSE;
          plane->lines[l] = line;
        }
    }
  if (n_file_lines == n_lines)
    _planar_trace_plan_tracks_plane (self, p);
  if (n_tracks > self->planes_priv[p].tracks_capacity || n_tracks < plane->n_tracks)
    return FALSE;

  /* Derived metadata after the file's (each takes 40 bytes at least). */
  if (n_metadata - n_file_metadata > (gsize) (r->end - r->p) / 40)
    return FALSE;
  plane->metadata = g_renew (PlanarEventMetadata, plane->metadata, MAX (n_metadata, 1));
  for (guint m = n_file_metadata; m < n_metadata; m++)
    {
      PlanarEventMetadata *md = &plane->metadata[m];

      memset (md, 0, sizeof *md);
      plane->n_metadata = m + 1;
      md->id = get_i64 (r);
      md->name = get_str (r, NULL);
      md->display_name = get_str (r, NULL);
      md->internal = get_u32 (r) != 0;
      md->n_stats = get_u32 (r);
      if (!r->ok || md->n_stats > (guint) (r->end - r->p))
        {
          md->n_stats = 0;
          return FALSE;
        }
      md->stats = g_new0 (PlanarStat, MAX (md->n_stats, 1));
      for (guint s = 0; s < md->n_stats; s++)
        if (!read_stat (r, &md->stats[s]))
          return FALSE;
    }

  for (guint t = 0; t < n_tracks; t++)
    {
      PlanarTrack *track = &plane->tracks[t];
      gint64 id = get_i64 (r), display_id = get_i64 (r);
      const char *name = get_str (r, NULL), *display_name = get_str (r, NULL);
      guint row = get_u32 (r);
      gboolean derived = get_u32 (r) != 0;

      if (!r->ok)
        return FALSE;
      if (t < plane->n_tracks)
        {
          /* The decoder's grouping must have come out the same. */
          if (derived || track->id != id || track->display_id != display_id || track->name != name
              || track->row != row)
            return FALSE;
        }
      else
        {
          if (!derived)
            return FALSE;
          memset (track, 0, sizeof *track);
          track->id = id;
          track->display_id = display_id;
          track->name = name;
          track->display_name = display_name;
          track->row = row;
          track->derived = TRUE;
        }
      track->source_track = get_u32 (r);
      track->max_depth = get_u32 (r);
      track->n_events = get_u64 (r);
      track->n_aggregated = get_u64 (r);
      track->n_overlaps = get_u64 (r);
      track->n_children = get_u64 (r);
      if (!r->ok || track->max_depth > G_MAXUINT16 || track->n_events > G_MAXUINT32
          || track->n_aggregated > G_MAXUINT32 || track->n_children > track->n_events
          || (derived && track->source_track != G_MAXUINT && track->source_track >= n_tracks))
        {
          track->n_events = track->n_aggregated = track->n_children = 0;
          return FALSE;
        }
    }
  plane->n_rows = n_rows;
  *n_lines_out = n_lines;
  *n_tracks_out = n_tracks;
  return r->ok;
}

typedef enum
{
  /* The trace is decoded. */
  RESTORE_DONE,
  /* Nothing was published: the trace can be put back as opened. */
  RESTORE_NOT_USED,
  /* Tracks were published, then something failed that a decode from the
   * file could not make up for: the load fails. */
  RESTORE_FAILED,
} RestoreResult;

/* Frees the derived tracks, lines and tables restored so far, leaving the
 * file's tracks (published) as they are. */
static void
discard_derived (PlanarTrace *self)
{
  for (guint p = 0; p < self->n_planes; p++)
    {
      PlanarPlane *plane = &self->planes[p];
      PlanarPlanePrivate *ppriv = &self->planes_priv[p];

      for (guint t = ppriv->n_file_tracks; t < plane->n_tracks; t++)
        {
          PlanarTrack *track = &plane->tracks[t];

          _planar_track_clear_arrays (track);
          memset (track, 0, sizeof *track);
        }
      __atomic_store_n (&plane->n_tracks, ppriv->n_file_tracks, __ATOMIC_RELEASE);
      __atomic_store_n (&plane->n_lines, ppriv->n_file_lines, __ATOMIC_RELEASE);
      plane->n_rows = ppriv->n_file_rows;
      /* The derived metadata: no published event names it. */
      for (guint m = ppriv->n_file_metadata; m < plane->n_metadata; m++)
        g_clear_pointer (&plane->metadata[m].stats, g_free);
      __atomic_store_n (&plane->n_metadata, ppriv->n_file_metadata, __ATOMIC_RELEASE);
    }
  _planar_trace_clear_derived (self);
  g_atomic_int_set (&self->n_dropped_derived_lines, 0);
}

/* The derived tracks, their lines, the derived sources, the flows and the
 * counters, none published. */
static gboolean
restore_derived (PlanarTrace   *self,
                 const Table   *table,
                 GArray        *sizes,
                 guint          has_flows,
                 guint64        max_raw,
                 GCancellable  *cancellable,
                 GError       **error)
{
  gboolean unused = FALSE;

  _planar_derive_attach (self);
  if (!restore_tracks (self, table, TRUE, FALSE, &unused, cancellable, error))
    return FALSE;
  for (guint p = 0; p < self->n_planes; p++)
    {
      g_autoptr(GBytes) sources = NULL;
      gboolean absent = FALSE;

      self->planes[p].n_lines = g_array_index (sizes, guint, 2 * p);
      sources = read_section (table, SECTION_SOURCES, p, 0, max_raw, &absent, error);
      if (sources == NULL && !absent)
        return FALSE;
      g_clear_error (error);
      if (sources != NULL
          && !_planar_trace_restore_derived_sources (self, p, g_bytes_get_data (sources, NULL),
                                                     g_bytes_get_size (sources), error))
        return FALSE;
    }
  if (has_flows)
    {
      g_autoptr(GBytes) flows = read_section (table, SECTION_FLOWS, 0, 0, max_raw, NULL, error);
      PlanarFlowIndex *index;

      if (flows == NULL)
        return FALSE;
      index = _planar_flow_index_deserialize (self, g_bytes_get_data (flows, NULL), g_bytes_get_size (flows), error);
      if (index == NULL)
        return FALSE;
      g_atomic_pointer_set (&self->flows, index);
    }
  g_atomic_pointer_set (&self->counters, _planar_counter_set_build (self, cancellable, error));
  return self->counters != NULL;
}

/* *@repaired is set when parts of the cache were not used (and the
 * trace made up for them from the file): the file should be written
 * again. */
static RestoreResult
restore (PlanarTrace   *self,
         const guint8  *data,
         gsize          len,
         gboolean       check_key,
         gboolean      *repaired,
         GCancellable  *cancellable,
         GError       **error)
{
  g_autoptr(GError) derived_error = NULL;
  gboolean progressive, published = FALSE;
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 digest[32];
  gsize digest_len = sizeof digest;
  Header h, unsigned_h;
  Table table;
  g_autoptr(GBytes) meta = NULL;
  g_autoptr(GArray) sizes = NULL;
  Reader r;
  guint n_planes, has_flows, dropped, aligned;
  gsize meta_len;
  const char *path;
  /* Nothing in an index is bigger than the budget the decoder allows. */
  guint64 max_raw = self->memory_budget + G_GUINT64_CONSTANT (64) * 1024 * 1024;

  if (len < sizeof h)
    goto bad_file;
  memcpy (&h, data, sizeof h);
  if (memcmp (h.magic, MAGIC, sizeof h.magic) != 0 || h.version != VERSION || h.header_size != sizeof h
      || h.event_size != sizeof (PlanarEvent) || h.n_sections > (len - sizeof h) / sizeof (Section))
    goto bad_file;
  if (check_key && (h.source_size != self->file_size || h.time_offset_ps != self->time_offset_ps))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "stale (the profile changed)");
      return RESTORE_NOT_USED;
    }
  unsigned_h = h;
  memset (unsigned_h.digest, 0, sizeof unsigned_h.digest);
  g_checksum_update (checksum, (const guint8 *) &unsigned_h, sizeof unsigned_h);
  g_checksum_update (checksum, data + sizeof h, h.n_sections * sizeof (Section));
  g_checksum_get_digest (checksum, digest, &digest_len);
  if (check_key && memcmp (digest, h.digest, sizeof digest) != 0)
    goto bad_file;
  /* The same size and time say nothing of the bytes (a file rewritten in
   * place, times copied over): they are hashed, before anything is used. */
  if (check_key)
    {
      guint8 content[16];

      if (!_planar_cache_check_content (self, cancellable, content, error))
        return RESTORE_NOT_USED;
      if (memcmp (content, h.content_hash, sizeof content) != 0)
        {
          g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "stale (the profile's content changed)");
          return RESTORE_NOT_USED;
        }
    }
  table.sections = g_new (Section, MAX (h.n_sections, 1));
  memcpy ((gpointer) table.sections, data + sizeof h, h.n_sections * sizeof (Section));
  table.n_sections = h.n_sections;
  table.frames = data + sizeof h + h.n_sections * sizeof (Section);
  table.frames_len = len - sizeof h - h.n_sections * sizeof (Section);

  meta = read_section (&table, SECTION_META, 0, 0, max_raw, NULL, error);
  if (meta == NULL)
    goto fail;
  r.p = g_bytes_get_data (meta, &meta_len);
  r.end = r.p + meta_len;
  r.ok = TRUE;
  r.trace = self;
  path = get_str (&r, NULL);
  n_planes = get_u32 (&r);
  aligned = get_u32 (&r);
  dropped = get_u32 (&r);
  has_flows = get_u32 (&r);
  if (!r.ok || (check_key && g_strcmp0 (path, self->path) != 0) || n_planes != self->n_planes)
    goto bad_meta;

  g_atomic_pointer_set (&self->track_ready, g_new0 (gint *, MAX (self->n_planes, 1)));
  _planar_trace_flag_internal_events (self);
  sizes = g_array_new (FALSE, FALSE, sizeof (guint) * 2);
  for (guint p = 0; p < n_planes; p++)
    {
      guint n[2] = { 0, 0 };

      if (!restore_plane_meta (self, &r, p, &n[0], &n[1]))
        goto bad_meta;
      g_array_append_val (sizes, n);
    }
  if (r.p != r.end)
    goto bad_meta;

  /* The file's tracks first (the planes count every track, so that a
   * failure frees whatever was filled). With a profile start time, each is
   * published as it comes, and one that cannot be restored is decoded from
   * the file instead: the first frame need not wait for the rest. Without
   * one, nothing is published before everything is checked, and any
   * failure means a decode from scratch. */
  for (guint p = 0; p < n_planes; p++)
    self->planes[p].n_tracks = g_array_index (sizes, guint, 2 * p + 1);
  progressive = self->has_start_time;
  published = progressive;
  if (!restore_tracks (self, &table, FALSE, progressive, repaired, cancellable, error))
    goto fail;

  /* Then the derived tracks and the tables that point at events. */
  if (!restore_derived (self, &table, sizes, has_flows, max_raw, cancellable, &derived_error))
    {
      if (!published || g_error_matches (derived_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_propagate_error (error, g_steal_pointer (&derived_error));
          goto fail;
        }
      /* Derived again from the restored tracks. */
      g_debug ("Cached derived lines of %s not used: %s", self->file_name, derived_error->message);
      *repaired = TRUE;
      discard_derived (self);
      if (!_planar_trace_derive (self, cancellable, error))
        goto failed_published;
    }
  else
    g_atomic_int_set (&self->n_dropped_derived_lines, (gint) dropped);
  self->aligned_at_earliest_event = aligned != 0;
  g_free ((gpointer) table.sections);

  for (guint p = 0; p < self->n_planes; p++)
    for (guint t = 0; t < self->planes[p].n_tracks; t++)
      g_atomic_int_set (&self->track_ready[p][t], 1);
  _planar_trace_finish_decode (self);
  g_atomic_int_inc (&n_restored);
  return RESTORE_DONE;

failed_published:
  g_free ((gpointer) table.sections);
  return RESTORE_FAILED;

bad_meta:
  g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "does not fit the profile");
fail:
  g_free ((gpointer) table.sections);
  return published ? RESTORE_FAILED : RESTORE_NOT_USED;

bad_file:
  g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "not a cached index of this version");
  return RESTORE_NOT_USED;
}

/* Puts @self back as planar_trace_open() left it. FALSE (with @error) when
 * the file no longer scans as it did a moment ago: it changed on disk. */
static gboolean
reset (PlanarTrace  *self,
       GError      **error)
{
  g_autoptr(GError) scan_error = NULL;

  _planar_trace_clear_derived (self);
  _planar_trace_free_planes (self);
  g_clear_pointer (&self->hostnames, g_strfreev);
  g_clear_pointer (&self->errors, g_strfreev);
  g_clear_pointer (&self->warnings, g_strfreev);
  self->memory_claimed = 0;
  self->aligned_at_earliest_event = FALSE;
  g_atomic_int_set (&self->n_dropped_derived_lines, 0);
  if (!_planar_trace_scan (self, &scan_error))
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED,
                   "the file changed while it was read: %s", scan_error->message);
      return FALSE;
    }
  return TRUE;
}

guint
_planar_cache_get_n_restored (void)
{
  return (guint) g_atomic_int_get (&n_restored);
}

gboolean
_planar_cache_restore_bytes (PlanarTrace   *self,
                             const guint8  *data,
                             gsize          len,
                             gboolean       check_key,
                             GError       **error)
{
  gboolean repaired = FALSE;
  GError *reset_error = NULL;

  switch (restore (self, data, len, check_key, &repaired, NULL, error))
    {
    case RESTORE_DONE:
      return TRUE;
    case RESTORE_NOT_USED:
    case RESTORE_FAILED:
    default:
      /* Nothing else reads this trace (the tests' and the fuzz harness's
       * own), so even tracks already published can go: it is left as
       * opened, and decodes from the file. */
      if (!reset (self, &reset_error))
        {
          g_clear_error (error);
          g_propagate_error (error, reset_error);
        }
      return FALSE;
    }
}

/* The cache file at @path mapped, or NULL when there is none to read: not
 * there, or not a regular file (a FIFO would block the open, a symbolic
 * link would read whatever it points at: neither is opened or followed). */
static GMappedFile *
open_cache_file (const char *path,
                 int        *fd_out)
{
  g_autoptr(GError) error = NULL;
  GMappedFile *file;
  struct stat st;
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);

  *fd_out = -1;
  if (fd < 0)
    {
      if (errno != ENOENT)
        g_debug ("Cached index %s not used: %s", path, g_strerror (errno));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_debug ("Cached index %s not used: not a regular file", path);
      close (fd);
      return NULL;
    }
  file = g_mapped_file_new_from_fd (fd, FALSE, &error);
  if (file == NULL)
    {
      g_debug ("Cached index %s not used: %s", path, error->message);
      close (fd);
      return NULL;
    }
  *fd_out = fd;
  return file;
}

gboolean
_planar_cache_try_restore (PlanarTrace   *self,
                           GCancellable  *cancellable,
                           gboolean      *restored,
                           GError       **error_out)
{
  g_autofree char *path = NULL;
  g_autoptr(GMappedFile) file = NULL;
  g_autoptr(GError) error = NULL;
  PlanarMapping *guard;
  gboolean repaired = FALSE;
  RestoreResult result;
  int fd = -1;

  *restored = FALSE;
  if (!planar_cache_get_enabled () || self->import_report != NULL || self->path == NULL)
    return TRUE;
  path = planar_cache_get_path (self->path);
  file = open_cache_file (path, &fd);
  if (file == NULL)
    return TRUE;
  /* Cut under the restore, the file reads as zeros past the cut instead of
   * faulting (planar-mapping.h): damage, which drops it. */
  guard = planar_mapping_register (g_mapped_file_get_contents (file), g_mapped_file_get_length (file), path);
  _planar_mapping_test_point ("cache-mapped", path);
  result = restore (self, (const guint8 *) g_mapped_file_get_contents (file), g_mapped_file_get_length (file), TRUE,
                    &repaired, cancellable, &error);
  /* Every section is checked against its checksum: a restore that is done
   * read no zeros of a cut. One that failed on them drops the file. */
  if (planar_mapping_has_changed (guard) && result == RESTORE_FAILED)
    {
      result = RESTORE_NOT_USED;
      g_clear_error (&error);
      g_set_error (&error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED, "%s changed while it was read", path);
    }
  g_clear_pointer (&guard, planar_mapping_unregister);
  switch (result)
    {
    case RESTORE_DONE:
      *restored = TRUE;
      if (repaired)
        {
          /* Damaged in part: written again, whole. */
          g_unlink (path);
          _planar_cache_store_later (self);
        }
      else
        /* Recently used, for the eviction (the file itself, opened above). */
        futimens (fd, NULL);
      close (fd);
      return TRUE;
    case RESTORE_FAILED:
      /* Tracks were published (readers may hold them) before the file
       * failed to decode what the index could not give: the load fails,
       * and the entry goes, so that the next open decodes the file. */
      close (fd);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_unlink (path);
      g_propagate_error (error_out, g_steal_pointer (&error));
      return FALSE;
    case RESTORE_NOT_USED:
    default:
      break;
    }
  close (fd);
  g_debug ("Cached index of %s not used: %s", self->file_name, error->message);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      if (!reset (self, NULL))
        g_debug ("%s changed while its cached index was read", self->file_name);
      g_propagate_error (error_out, g_steal_pointer (&error));
      return FALSE;
    }
  g_unlink (path);
  return reset (self, error_out);
}
