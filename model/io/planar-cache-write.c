/* planar-cache-write.c: writing a cache file (the layout is described at
 * the top of planar-cache.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache-format-private.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include <glib/gstdio.h>
#include <zstd.h>

#include "planar-derive-private.h"
#include "planar-flows-private.h"

/* ------------------------------------------------------------------------
 * Bytes out
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

/* ------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------ */

/* The bytes written into cache files so far (for the tests). */
static gsize n_bytes_written;

guint64
_planar_cache_get_bytes_written (void)
{
  return (guint64) g_atomic_pointer_get ((gpointer *) &n_bytes_written);
}

/* Streams zstd frames into the file being written, one section each. */
typedef struct
{
  int        fd;
  /* Where the frames start, and where the next byte goes. */
  guint64    frames_start;
  guint64    at;
  /* The folder's cap: a file that would grow past it is given up as soon
   * as it does (EFBIG), not written whole and dropped. */
  guint64    limit;
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

  if (w->errsv == 0 && len > 0 && (w->at > w->limit || len > w->limit - w->at))
    w->errsv = EFBIG;
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
      g_atomic_pointer_add ((gpointer *) &n_bytes_written, (gssize) n);
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

      if (_planar_cache_writes_cancelled ())
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
  put_u32 (meta, _planar_derived_results_get_n_dropped (_planar_derived_results_get (self)));
  put_u32 (meta, _planar_derived_results_get_flows (_planar_derived_results_get (self)) != NULL);
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
 * header and section table in the room left before them. *@too_large is
 * set when it would not fit in @limit bytes (it fails as soon as it
 * would not). */
static gboolean
write_cache (PlanarTrace  *self,
             const guint8  content[16],
             int           fd,
             guint64       limit,
             gboolean     *too_large,
             GError      **error)
{
  g_autoptr(GByteArray) meta = g_byte_array_new ();
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  Writer w = { 0 };
  Header h = { 0 };
  gsize digest_len = sizeof h.digest;
  const PlanarFlowIndex *flows = _planar_derived_results_get_flows (_planar_derived_results_get (self));
  guint n_sections = 1 + self->n_planes + (flows != NULL);

  for (guint p = 0; p < self->n_planes; p++)
    n_sections += self->planes[p].n_tracks;
  w.fd = fd;
  w.limit = limit;
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
  if (flows != NULL)
    {
      frame_begin (&w, SECTION_FLOWS, 0, 0);
      _planar_flow_index_serialize (flows, frame_add, &w);
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
  *too_large = w.errsv == EFBIG;
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

/* The marker beside @path's cache file that says its index did not fit. */
static char *
too_large_marker_path (const char *index_path)
{
  return g_strconcat (index_path, TOO_LARGE_TAIL, NULL);
}

/* Whether the marker at @marker says that @self's index, as the profile
 * is now, did not fit under a cap of @limit bytes or more. */
static gboolean
known_too_large (PlanarTrace *self,
                 const char  *marker,
                 guint64      limit)
{
  g_autofree char *text = NULL;
  guint64 size, marked_limit;
  gint64 mtime_ns;

  if (!g_file_get_contents (marker, &text, NULL, NULL) ||
      sscanf (text, "%" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT, &size, &mtime_ns,
              &marked_limit) != 3)
    return FALSE;
  return size == self->file_size && mtime_ns == self->source_mtime_ns && limit <= marked_limit;
}

gboolean
_planar_cache_store_file (PlanarTrace   *self,
                          const guint8   content[16],
                          GError       **error)
{
  g_autofree char *path = planar_cache_get_path (self->path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *marker = too_large_marker_path (path);
  g_autofree char *tmp = NULL;
  guint64 limit = planar_cache_get_limit ();
  gboolean too_large = FALSE;
  int fd;

  /* A profile whose index did not fit last time, unchanged since, under a
   * cap no larger: it would not fit now. */
  if (known_too_large (self, marker, limit))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC,
                   _("its index did not fit under the cache's size limit (%" PRIu64 " MB) before"),
                   limit >> 20);
      return FALSE;
    }
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                   _("Cannot make %s: %s"), dir, g_strerror (errno));
      return FALSE;
    }
  tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, strrchr (path, '/') + 1);
  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), _("Cannot write in %s: %s"), dir,
                   g_strerror (errno));
      return FALSE;
    }
  if (!write_cache (self, content, fd, limit, &too_large, error))
    {
      close (fd);
      g_unlink (tmp);
      if (too_large)
        {
          g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
                                                   self->file_size, self->source_mtime_ns, limit);

          g_clear_error (error);
          /* Best effort: without it, the next load tries again. */
          g_file_set_contents (marker, text, -1, NULL);
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC,
                       _("its index is larger than the cache's size limit (%" PRIu64 " MB)"), limit >> 20);
          return FALSE;
        }
      g_prefix_error (error, _("Cannot write %s: "), tmp);
      return FALSE;
    }
  if (close (fd) != 0 || g_rename (tmp, path) != 0)
    {
      int saved = errno;

      g_unlink (tmp);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), _("Cannot write %s: %s"), path,
                   g_strerror (saved));
      return FALSE;
    }
  g_unlink (marker);
  evict (dir);
  return TRUE;
}
