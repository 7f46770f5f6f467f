/* planar-cache-restore.c: reading a cache file back into a trace (the
 * layout is described at the top of planar-cache.c). Every track is
 * restored in the model's worker pool.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache-format-private.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <zstd.h>

#include "planar-counters-private.h"
#include "planar-derive-private.h"
#include "planar-flows-private.h"
#include "planar-mapping.h"
#include "planar-mapping-private.h"
#include "planar-parallel.h"
#include "planar-string-table.h"


/* Bytes in */

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
 * Reading
 * ------------------------------------------------------------------------ */

typedef struct
{
  const guint8  *frames;
  gsize          frames_len;
  const Section *sections;
  guint          n_sections;
  /* A large cache file, mapped: each frame's pages are given back once it
   * is read (drop_frame()). */
  gboolean       drop_pages;
} Table;

static guint64 drop_pages_min = G_MAXUINT64;

void
_planar_cache_set_drop_pages_min (guint64 n_bytes)
{
  drop_pages_min = n_bytes;
}

/* Gives the pages of @s's frame back to the page cache once it is read,
 * as the decoder does with the profile's: a reopen of a 10^8-event profile
 * otherwise keeps the whole cache file (2.7 GB) resident beside the index
 * it restores. Only pages wholly inside the frame go; a page the kernel
 * drops is read again from the page cache if anything touches it. */
static void
drop_frame (const Table   *table,
            const Section *s)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  guintptr begin, end;

  if (!table->drop_pages)
    return;
  begin = ((guintptr) (table->frames + s->offset) + page - 1) / page * page;
  end = (guintptr) (table->frames + s->offset + s->size) / page * page;
  if (end > begin)
    madvise ((void *) begin, end - begin, MADV_DONTNEED);
}

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

/* The decompressor of a thread: its window is allocated once. */
static void
free_dctx (gpointer dctx)
{
  ZSTD_freeDCtx (dctx);
}

static GPrivate thread_dctx = G_PRIVATE_INIT (free_dctx);

/* Our frames are written at a fast level (a window of 2^19 bytes); a damaged
 * header asking for more than this is refused, not allocated. */
#define MAX_WINDOW_LOG 24

static ZSTD_DCtx *
get_dctx (void)
{
  ZSTD_DCtx *dctx = g_private_get (&thread_dctx);

  if (dctx == NULL)
    {
      dctx = ZSTD_createDCtx ();
      ZSTD_DCtx_setParameter (dctx, ZSTD_d_windowLogMax, MAX_WINDOW_LOG);
      g_private_set (&thread_dctx, dctx);
    }
  ZSTD_DCtx_reset (dctx, ZSTD_reset_session_only);
  return dctx;
}

/* A section read a piece at a time, each piece decompressed straight into
 * the memory it fills: a large one (the flows, a plane's derived sources)
 * is never held whole beside the arrays it fills. */
typedef struct
{
  const Table   *table;
  const Section *section;
  ZSTD_DCtx     *dctx;
  ZSTD_inBuffer  in;
  /* The section's bytes, and those read. */
  guint64        size;
  guint64        pos;
  /* The frame's end (and its checksum) has been read. */
  gboolean       ended;
  gboolean       ok;
} SectionReader;

/* Starts reading @s (none: FALSE), of at most @max_raw bytes. */
static gboolean
section_reader_open (SectionReader *r,
                     const Table   *table,
                     const Section *s,
                     guint64        max_raw)
{
  unsigned long long content;

  memset (r, 0, sizeof *r);
  if (s == NULL || s->offset > table->frames_len || s->size > table->frames_len - s->offset || s->raw_size > max_raw)
    return FALSE;
  /* Streamed frames do not say their size; the table does. */
  content = ZSTD_getFrameContentSize (table->frames + s->offset, (gsize) s->size);
  if (content != s->raw_size && content != ZSTD_CONTENTSIZE_UNKNOWN)
    return FALSE;
  r->table = table;
  r->section = s;
  r->dctx = get_dctx ();
  r->in.src = table->frames + s->offset;
  r->in.size = (gsize) s->size;
  r->size = s->raw_size;
  r->ok = TRUE;
  return TRUE;
}

/* A PlanarByteSource: the next @len bytes of the section into @dest. */
static gboolean
section_reader_read (gpointer  data,
                     void     *dest,
                     gsize     len)
{
  SectionReader *r = data;
  ZSTD_outBuffer out = { dest, len, 0 };

  if (!r->ok || len > r->size - r->pos)
    return r->ok = FALSE;
  while (out.pos < out.size)
    {
      gsize in_before = r->in.pos, out_before = out.pos;
      gsize ret;

      if (r->ended)
        return r->ok = FALSE;
      ret = ZSTD_decompressStream (r->dctx, &out, &r->in);
      if (ZSTD_isError (ret) || (r->in.pos == in_before && out.pos == out_before))
        return r->ok = FALSE;
      r->ended = ret == 0;
    }
  r->pos += len;
  return TRUE;
}

/* TRUE when the whole section was read and its frame ended there, its
 * checksum sound. Gives the frame's pages back either way. */
static gboolean
section_reader_close (SectionReader *r)
{
  gboolean ok = r->ok && r->pos == r->size;

  if (ok && !r->ended)
    {
      guint8 extra;
      ZSTD_outBuffer out = { &extra, 1, 0 };
      gsize ret = ZSTD_decompressStream (r->dctx, &out, &r->in);

      ok = !ZSTD_isError (ret) && ret == 0 && out.pos == 0;
    }
  ok = ok && r->in.pos == r->in.size;
  if (r->section != NULL)
    drop_frame (r->table, r->section);
  return ok;
}

static void
set_section_error (GError  **error,
                   guint32   kind,
                   guint32   plane,
                   guint32   track,
                   gboolean  absent)
{
  if (absent)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("section %u of plane %u track %u is missing"), kind,
                 plane, track);
  else
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("section %u of plane %u track %u is damaged"), kind,
                 plane, track);
}

/* Starts reading section (kind, plane, track), FALSE with @error when it
 * is not there or does not fit (@absent set when it is not there). */
static gboolean
open_section (SectionReader  *r,
              const Table    *table,
              guint32         kind,
              guint32         plane,
              guint32         track,
              guint64         max_raw,
              gboolean       *absent,
              GError        **error)
{
  const Section *s = find_section (table, kind, plane, track);

  if (absent != NULL)
    *absent = s == NULL;
  if (section_reader_open (r, table, s, max_raw))
    return TRUE;
  set_section_error (error, kind, plane, track, s == NULL);
  return FALSE;
}

/* Ends reading section (kind, plane, track), FALSE with @error when it
 * did not end where expected or its checksum is wrong; also after a read
 * that failed (@ok FALSE), to free the reader. */
static gboolean
close_section (SectionReader  *r,
               gboolean        ok,
               GError        **error)
{
  const Section *s = r->section;

  if (section_reader_close (r) && ok)
    return TRUE;
  if (error != NULL && *error != NULL)
    return FALSE;
  set_section_error (error, s->kind, s->plane, s->track, FALSE);
  return FALSE;
}

/* The small section (kind, plane, track) whole (the META). */
static GBytes *
read_section (const Table  *table,
              guint32       kind,
              guint32       plane,
              guint32       track,
              guint64       max_raw,
              GError      **error)
{
  SectionReader r;
  guint8 *raw;

  if (!open_section (&r, table, kind, plane, track, max_raw, NULL, error))
    return NULL;
  raw = g_malloc (MAX ((gsize) r.size, 1));
  if (!close_section (&r, section_reader_read (&r, raw, (gsize) r.size), error))
    {
      g_free (raw);
      return NULL;
    }
  return g_bytes_new_take (raw, (gsize) r.size);
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
  const ChildTime *children;

  /* Sizes from META are checked against the section's and the budget
   * before anything is allocated for them. */
  if (section == NULL || section->raw_size != events_len + aggregated_len + children_len
      || section->raw_size > self->memory_budget)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("track %u of plane %u does not fit"), t, p);
      return FALSE;
    }
  /* Each array is decompressed straight into its own memory. */
  track->events = planar_spill_alloc (MAX (events_len, sizeof (PlanarEvent)), self->spill);
  if (track->n_aggregated > 0)
    track->aggregated = planar_spill_alloc (aggregated_len, self->spill);
  if (track->n_children > 0)
    track->children = planar_spill_alloc (children_len, self->spill);
  {
    SectionReader reader;
    gboolean ok;

    if (!section_reader_open (&reader, table, section, section->raw_size))
      goto bad;
    ok = section_reader_read (&reader, track->events, events_len)
         && section_reader_read (&reader, track->aggregated, aggregated_len)
         && section_reader_read (&reader, track->children, children_len);
    if (!section_reader_close (&reader) || !ok)
      goto bad;
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
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("track %u of plane %u does not fit"), t, p);
  return FALSE;
}

typedef struct
{
  PlanarTrace  *self;
  const Table  *table;
  /* (plane, track) pairs. */
  guint        *jobs;
  /* Publish each track once restored; decode from the file one that
   * cannot be restored. */
  gboolean      progressive;
  /* Tracks decoded from the file instead (atomic). */
  gint          n_fallbacks;
  /* Job 0 restores the flows first, when set (restore_flows_job ()). */
  PlanarParallelFunc first_job;
  gpointer           first_job_data;
} RestoreJobs;

/* A PlanarParallelFunc: restores track @i of @data's. */
static gboolean
restore_job (guint          i,
             gpointer       data,
             GCancellable  *cancellable,
             GError       **error)
{
  RestoreJobs *jobs = data;
  guint p, t;
  g_autoptr(GError) local_error = NULL;

  if (jobs->first_job != NULL)
    {
      if (i == 0)
        return jobs->first_job (0, jobs->first_job_data, cancellable, error);
      i--;
    }
  p = jobs->jobs[2 * i];
  t = jobs->jobs[2 * i + 1];

  if (restore_track (jobs->self, jobs->table, p, t, &local_error))
    ;
  else if (!jobs->progressive)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  else
    {
      g_debug ("Cached track %u of plane %u of %s not used: %s", t, p, jobs->self->file_name,
               local_error->message);
      g_atomic_int_inc (&jobs->n_fallbacks);
      if (!_planar_trace_decode_track (jobs->self, p, t, error))
        return FALSE;
    }
  if (jobs->progressive)
    {
      /* Drawable now, and the viewer told so: a window shows the tracks
       * of its first view as they come, not once the whole index is in. */
      g_atomic_int_set (&jobs->self->track_ready[p][t], 1);
      _planar_trace_report_progress (jobs->self, PLANAR_LOAD_PHASE_RESTORING_CACHE, TRUE);
    }
  return TRUE;
}

typedef struct
{
  const PlanarTrace *self;
  const guint       *rank;
} TrackOrder;

static int
compare_restore_jobs (gconstpointer a,
                      gconstpointer b,
                      gpointer      user_data)
{
  const TrackOrder *o = user_data;
  const guint *x = a, *y = b;
  guint64 nx, ny;

  if (o->rank[x[0]] != o->rank[y[0]])
    return o->rank[x[0]] < o->rank[y[0]] ? -1 : 1;
  nx = o->self->planes[x[0]].tracks[x[1]].n_events;
  ny = o->self->planes[y[0]].tracks[y[1]].n_events;
  if (nx != ny)
    return nx > ny ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

GArray *
_planar_cache_restore_order (PlanarTrace    *self,
                             gboolean        derived,
                             const gboolean *skip)
{
  GArray *pairs = g_array_new (FALSE, FALSE, sizeof (guint) * 2);
  g_autofree guint *order = _planar_trace_display_order (self);
  g_autofree guint *rank = g_new (guint, MAX (self->n_planes, 1));
  TrackOrder o = { self, rank };

  for (guint i = 0; i < self->n_planes; i++)
    rank[order[i]] = i;
  for (guint p = 0; p < self->n_planes; p++)
    {
      guint n_file = self->planes_priv[p].n_file_tracks;
      guint first = derived ? n_file : 0, last = derived ? self->planes[p].n_tracks : n_file;

      if (skip != NULL && skip[p])
        continue;

      for (guint t = first; t < last; t++)
        {
          guint pair[2] = { p, t };

          g_array_append_val (pairs, pair);
        }
    }
  g_array_sort_with_data (pairs, compare_restore_jobs, &o);
  return pairs;
}

/* Restores the file's tracks (@derived FALSE) or the derived ones in the
 * model's worker pool, in the order of _planar_cache_restore_order(), after
 * @first_job (0 of @first_job_data) when there is one. */
static gboolean
restore_tracks (PlanarTrace        *self,
                const Table        *table,
                gboolean            derived,
                gboolean            progressive,
                const gboolean     *skip,
                PlanarParallelFunc  first_job,
                gpointer            first_job_data,
                gboolean           *repaired,
                GCancellable       *cancellable,
                GError            **error)
{
  RestoreJobs jobs = { self, table, NULL, progressive, 0, first_job, first_job_data };
  g_autoptr(GArray) pairs = _planar_cache_restore_order (self, derived, skip);
  gboolean ok;

  jobs.jobs = (guint *) (gpointer) pairs->data;
  ok = planar_parallel_run (pairs->len + (first_job != NULL), NULL, restore_job, &jobs, cancellable, error);
  if (jobs.n_fallbacks > 0)
    *repaired = TRUE;
  return ok;
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

/* Whether @a, a file line as META has it, is @b as the decoder made it. */
static gboolean
same_line (const PlanarLine *a,
           const PlanarLine *b)
{
  return a->id == b->id && a->display_id == b->display_id && a->name == b->name &&
         a->display_name == b->display_name && a->timestamp_ns == b->timestamp_ns &&
         a->duration_ps == b->duration_ps && a->n_events == b->n_events && a->track == b->track;
}

/* Plane @p from META: the file's lines, then (after planning the tracks
 * as the decoder does) derived metadata, track headers and derived lines.
 * Sets *n_tracks_out to the plane's final number of tracks. A plane the
 * decoder built already (@decoded: published, readers may hold it) has
 * its lines and tracks checked against META instead, and gets its derived
 * metadata in a new array, the old one kept, as the derive pass does. */
static gboolean
restore_plane_meta (PlanarTrace *self,
                    Reader      *r,
                    guint        p,
                    gboolean     decoded,
                    guint       *n_lines_out,
                    guint       *n_tracks_out)
{
  PlanarPlane *plane = &self->planes[p];
  guint n_lines = get_u32 (r), n_tracks = get_u32 (r), n_metadata = get_u32 (r);
  guint n_file_metadata = get_u32 (r), n_rows = get_u32 (r);
  guint n_file_lines = 0;
  PlanarEventMetadata *metadata;

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
          if (decoded && !same_line (&line, &plane->lines[l]))
            return FALSE;
          /* Where the scan found it stays. */
          line.offset = plane->lines[l].offset;
          line.size = plane->lines[l].size;
          if (!decoded)
            plane->lines[l] = line;
          n_file_lines++;
        }
      else
        {
          /* Derived lines come back once the room for them exists. */
          if (l == plane->n_lines && !decoded)
            _planar_trace_plan_tracks_plane (self, p);
          if (l >= self->planes_priv[p].lines_capacity || line.track >= n_tracks)
            return FALSE;
          plane->lines[l] = line;
        }
    }
  if (n_file_lines == n_lines && !decoded)
    _planar_trace_plan_tracks_plane (self, p);
  if (n_tracks > self->planes_priv[p].tracks_capacity || n_tracks < plane->n_tracks)
    return FALSE;

  /* Derived metadata after the file's (each takes 40 bytes at least). */
  if (n_metadata - n_file_metadata > (gsize) (r->end - r->p) / 40)
    return FALSE;
  if (decoded)
    {
      metadata = g_new0 (PlanarEventMetadata, MAX (n_metadata, 1));
      memcpy (metadata, plane->metadata, n_file_metadata * sizeof (PlanarEventMetadata));
    }
  else
    metadata = plane->metadata = g_renew (PlanarEventMetadata, plane->metadata, MAX (n_metadata, 1));
  for (guint m = n_file_metadata; m < n_metadata && r->ok; m++)
    {
      PlanarEventMetadata *md = &metadata[m];

      memset (md, 0, sizeof *md);
      if (!decoded)
        plane->n_metadata = m + 1;
      md->id = get_i64 (r);
      md->name = get_str (r, NULL);
      md->display_name = get_str (r, NULL);
      md->internal = get_u32 (r) != 0;
      md->n_stats = get_u32 (r);
      if (!r->ok || md->n_stats > (guint) (r->end - r->p))
        {
          md->n_stats = 0;
          r->ok = FALSE;
          break;
        }
      md->stats = g_new0 (PlanarStat, MAX (md->n_stats, 1));
      for (guint s = 0; s < md->n_stats && r->ok; s++)
        r->ok = read_stat (r, &md->stats[s]);
    }
  if (decoded)
    {
      if (!r->ok)
        {
          for (guint m = n_file_metadata; m < n_metadata; m++)
            g_free (metadata[m].stats);
          g_free (metadata);
          return FALSE;
        }
      /* As the derive pass installs its own. */
      _planar_trace_replace_metadata (self, plane, metadata, n_metadata);
    }
  else if (!r->ok)
    return FALSE;

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
          /* And a track it built, everything else. */
          if (decoded)
            {
              guint source_track = get_u32 (r), max_depth = get_u32 (r);
              guint64 n_events = get_u64 (r), n_aggregated = get_u64 (r);
              guint64 n_overlaps = get_u64 (r), n_children = get_u64 (r);

              if (!r->ok || track->source_track != source_track || track->max_depth != max_depth ||
                  track->n_events != n_events || track->n_aggregated != n_aggregated ||
                  track->n_overlaps != n_overlaps || track->n_children != n_children)
                return FALSE;
              continue;
            }
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
  _planar_derived_results_clear (_planar_derived_results_get (self));
}

typedef struct
{
  PlanarTrace          *self;
  const Table          *table;
  PlanarDerivedResults *results;
  guint64               max_raw;
} SectionJobs;

/* A PlanarParallelFunc: the flows. They join file events only (the derive
 * passes take their ends from the file's lines, and a flow naming a
 * derived event is damage), so that they are restored and checked beside
 * the derived tracks, the largest job first. */
static gboolean
restore_flows_job (guint          i,
                   gpointer       data,
                   GCancellable  *cancellable,
                   GError       **error)
{
  SectionJobs *jobs = data;
  SectionReader reader;
  PlanarFlowIndex *index;

  if (!open_section (&reader, jobs->table, SECTION_FLOWS, 0, 0, jobs->max_raw, NULL, error))
    return FALSE;
  index = _planar_flow_index_deserialize (jobs->self, (gsize) reader.size, section_reader_read, &reader, error);
  if (!close_section (&reader, index != NULL, error))
    {
      _planar_flow_index_free (index);
      return FALSE;
    }
  _planar_derived_results_set_flows (jobs->results, index);
  return TRUE;
}

/* A PlanarParallelFunc: plane @p's derived sources, once the derived
 * tracks are restored. */
static gboolean
restore_sources_job (guint          p,
                     gpointer       data,
                     GCancellable  *cancellable,
                     GError       **error)
{
  SectionJobs *jobs = data;
  SectionReader reader;
  gboolean absent = FALSE;

  if (!open_section (&reader, jobs->table, SECTION_SOURCES, p, 0, jobs->max_raw, &absent, error))
    {
      if (!absent)
        return FALSE;
      g_clear_error (error);
      return TRUE;
    }
  return close_section (&reader,
                        _planar_trace_restore_derived_sources (jobs->self, p, (gsize) reader.size,
                                                               section_reader_read, &reader, error),
                        error);
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
  PlanarDerivedResults *results = _planar_derive_attach (self);
  SectionJobs jobs = { self, table, results, max_raw };
  PlanarCounterSet *counters;

  _planar_derived_results_set_n_planes (results, self->n_planes);
  if (!restore_tracks (self, table, TRUE, FALSE, NULL, has_flows ? restore_flows_job : NULL, &jobs, &unused,
                       cancellable, error))
    return FALSE;
  /* The derived lines, once their tracks are there. */
  for (guint p = 0; p < self->n_planes; p++)
    self->planes[p].n_lines = g_array_index (sizes, guint, 2 * p);
  planar_spill_debug_memory ("the restore's derived tracks and flows");
  if (!planar_parallel_run (self->n_planes, NULL, restore_sources_job, &jobs, cancellable, error))
    return FALSE;
  planar_spill_debug_memory ("the restore's derived sources");
  counters = _planar_counter_set_build (self, cancellable, error);
  if (counters == NULL)
    return FALSE;
  _planar_derived_results_set_counters (results, counters);
  planar_spill_debug_memory ("the restore's counters");
  return TRUE;
}

/* Reads the header of the cache file @data into *@h: FALSE, with @error,
 * when it is not an index of this version, or (@check_key) not one of
 * this file's size and time offset or its header and table were changed. */
static gboolean
read_header (PlanarTrace   *self,
             const guint8  *data,
             gsize          len,
             gboolean       check_key,
             Header        *h,
             GError       **error)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 digest[32];
  gsize digest_len = sizeof digest;
  Header unsigned_h;

  if (len < sizeof *h)
    goto bad_file;
  memcpy (h, data, sizeof *h);
  if (memcmp (h->magic, MAGIC, sizeof h->magic) != 0 || h->version != VERSION || h->header_size != sizeof *h
      || h->event_size != sizeof (PlanarEvent) || h->n_sections > (len - sizeof *h) / sizeof (Section))
    goto bad_file;
  if (check_key && (h->source_size != self->file_size || h->time_offset_ps != self->time_offset_ps))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("stale (the profile changed)"));
      return FALSE;
    }
  unsigned_h = *h;
  memset (unsigned_h.digest, 0, sizeof unsigned_h.digest);
  g_checksum_update (checksum, (const guint8 *) &unsigned_h, sizeof unsigned_h);
  g_checksum_update (checksum, data + sizeof *h, h->n_sections * sizeof (Section));
  g_checksum_get_digest (checksum, digest, &digest_len);
  if (check_key && memcmp (digest, h->digest, sizeof digest) != 0)
    goto bad_file;
  return TRUE;

bad_file:
  g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("not a cached index of this version"));
  return FALSE;
}

/* *@repaired is set when parts of the cache were not used (and the
 * trace made up for them from the file): the file should be written
 * again. */
static RestoreResult
restore (PlanarTrace    *self,
         const guint8   *data,
         gsize           len,
         gboolean        mapped,
         gboolean        check_key,
         const gboolean *decoded,
         gboolean       *repaired,
         GCancellable   *cancellable,
         GError        **error)
{
  g_autoptr(GError) derived_error = NULL;
  gboolean progressive, published = FALSE;
  Header h;
  Table table;
  g_autoptr(GBytes) meta = NULL;
  g_autoptr(GArray) sizes = NULL;
  Reader r;
  guint n_planes, has_flows, dropped, aligned;
  gsize meta_len;
  const char *path;
  /* Nothing in an index is bigger than the budget the decoder allows. */
  guint64 max_raw = self->memory_budget + G_GUINT64_CONSTANT (64) * 1024 * 1024;

  if (!read_header (self, data, len, check_key, &h, error))
    return RESTORE_NOT_USED;
  /* The same size and time say nothing of the bytes (a file rewritten in
   * place, times copied over): they are hashed, before anything is used. */
  if (check_key)
    {
      guint8 content[16];

      if (!_planar_cache_check_content (self, decoded, cancellable, content, error))
        return RESTORE_NOT_USED;
      if (memcmp (content, h.content_hash, sizeof content) != 0)
        {
          g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("stale (the profile's content changed)"));
          return RESTORE_NOT_USED;
        }
      planar_spill_debug_memory ("the restore's content check");
    }
  table.sections = g_new (Section, MAX (h.n_sections, 1));
  memcpy ((gpointer) table.sections, data + sizeof h, h.n_sections * sizeof (Section));
  table.n_sections = h.n_sections;
  table.frames = data + sizeof h + h.n_sections * sizeof (Section);
  table.frames_len = len - sizeof h - h.n_sections * sizeof (Section);
  table.drop_pages = mapped && len >= (drop_pages_min != G_MAXUINT64 ? drop_pages_min
                                                                     : PLANAR_CACHE_DROP_PAGES_MIN_SIZE);

  meta = read_section (&table, SECTION_META, 0, 0, max_raw, error);
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

  /* From here on the planes decoded before (published) are changed: a
   * failure is the load's. Up to here the load goes on as a cold one. */
  published = decoded != NULL;
  /* Those planes have their tracks' flags already. */
  if (g_atomic_pointer_get (&self->track_ready) == NULL)
    g_atomic_pointer_set (&self->track_ready, g_new0 (gint *, MAX (self->n_planes, 1)));
  _planar_trace_flag_internal_events (self);
  sizes = g_array_new (FALSE, FALSE, sizeof (guint) * 2);
  for (guint p = 0; p < n_planes; p++)
    {
      guint n[2] = { 0, 0 };

      if (!restore_plane_meta (self, &r, p, decoded != NULL && decoded[p], &n[0], &n[1]))
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
    __atomic_store_n (&self->planes[p].n_tracks, g_array_index (sizes, guint, 2 * p + 1), __ATOMIC_RELEASE);
  progressive = self->has_start_time;
  published = published || progressive;
  if (!restore_tracks (self, &table, FALSE, progressive, decoded, NULL, NULL, repaired, cancellable, error))
    goto fail;
  planar_spill_debug_memory ("the restore's file tracks");

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
    _planar_derived_results_set_n_dropped (_planar_derive_attach (self), dropped);
  self->aligned_at_earliest_event = aligned != 0;
  g_free ((gpointer) table.sections);

  for (guint p = 0; p < self->n_planes; p++)
    for (guint t = 0; t < self->planes[p].n_tracks; t++)
      g_atomic_int_set (&self->track_ready[p][t], 1);
  _planar_trace_finish_decode (self);
  self->restored = TRUE;
  return RESTORE_DONE;

failed_published:
  g_free ((gpointer) table.sections);
  return RESTORE_FAILED;

bad_meta:
  g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("does not fit the profile"));
fail:
  g_free ((gpointer) table.sections);
  return published ? RESTORE_FAILED : RESTORE_NOT_USED;
}

/* Puts @self back as planar_trace_open() left it. FALSE (with @error) when
 * the file no longer scans as it did a moment ago: it changed on disk. */
static gboolean
reset (PlanarTrace  *self,
       GError      **error)
{
  g_autoptr(GError) scan_error = NULL;

  _planar_derived_results_clear (_planar_derived_results_get (self));
  _planar_trace_free_planes (self);
  g_clear_pointer (&self->hostnames, g_strfreev);
  g_clear_pointer (&self->errors, g_strfreev);
  g_clear_pointer (&self->warnings, g_strfreev);
  self->memory_claimed = 0;
  self->aligned_at_earliest_event = FALSE;
  if (!_planar_trace_scan (self, &scan_error))
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED,
                   _("the file changed while it was read: %s"), scan_error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
_planar_cache_was_restored (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  return self->restored;
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

  switch (restore (self, data, len, FALSE, check_key, NULL, &repaired, NULL, error))
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

/* Plane @p's lines in the file: all it has until its tracks are planned,
 * which counts them. */
static guint
file_line_count (PlanarTrace *self,
                 guint        p)
{
  return self->planes_priv[p].n_file_lines > 0 ? self->planes_priv[p].n_file_lines : self->planes[p].n_lines;
}

/* The planes a reopen decodes from the file rather than restores: the first
 * two with lines in the timeline's order, which a window shows first in
 * most profiles, while they hold at most three fifths of the file's line
 * bytes; NULL when the first alone holds more. Decoding them costs no more
 * than restoring them (0.96 s against 1.37 s for the two GPUs of a 10^8-
 * event planar-gen profile, 55 % of its bytes) and needs no hash of the
 * whole file first: their tracks come from their own bytes. */
static gboolean *
first_view_planes (PlanarTrace *self)
{
  g_autofree guint *order = _planar_trace_display_order (self);
  g_autofree gboolean *planes = g_new0 (gboolean, MAX (self->n_planes, 1));
  guint64 total = 0, taken = 0;
  guint n_taken = 0;

  for (guint p = 0; p < self->n_planes; p++)
    for (guint l = 0; l < file_line_count (self, p); l++)
      total += self->planes_priv[p].line_sizes[l];
  for (guint i = 0; i < self->n_planes && n_taken < 2; i++)
    {
      guint p = order[i];
      guint64 bytes = 0;

      for (guint l = 0; l < file_line_count (self, p); l++)
        bytes += self->planes_priv[p].line_sizes[l];
      if (taken + bytes > total / 5 * 3)
        break;
      planes[p] = TRUE;
      taken += bytes;
      n_taken += bytes > 0;
    }
  return n_taken > 0 ? g_steal_pointer (&planes) : NULL;
}

gboolean *
_planar_cache_first_view_planes (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return first_view_planes (self);
}

/* Decodes from the file the planes @decoded does not mark, after a restore
 * that decoded those it marks did not use the index. */
static gboolean
decode_others (PlanarTrace     *self,
               const gboolean  *decoded,
               GCancellable    *cancellable,
               GError         **error)
{
  g_autofree gboolean *others = g_new0 (gboolean, MAX (self->n_planes, 1));

  for (guint p = 0; p < self->n_planes; p++)
    others[p] = !decoded[p];
  return _planar_trace_decode_planes (self, others, cancellable, error);
}

gboolean
_planar_cache_try_restore (PlanarTrace   *self,
                           GCancellable  *cancellable,
                           gboolean      *restored,
                           gboolean      *lines_decoded,
                           GError       **error_out)
{
  g_autofree char *path = NULL;
  g_autoptr(GMappedFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree gboolean *decoded = NULL;
  const guint8 *data;
  gsize len;
  PlanarMapping *guard;
  gboolean repaired = FALSE;
  RestoreResult result;
  Header h;
  int fd = -1;

  *restored = FALSE;
  *lines_decoded = FALSE;
  if (!planar_cache_get_enabled () || self->import_report != NULL || self->path == NULL)
    return TRUE;
  path = planar_cache_get_path (self->path);
  file = open_cache_file (path, &fd);
  if (file == NULL)
    return TRUE;
  data = (const guint8 *) g_mapped_file_get_contents (file);
  len = g_mapped_file_get_length (file);
  /* Cut under the restore, the file reads as zeros past the cut instead of
   * faulting (planar-mapping.h): damage, which drops it. */
  guard = planar_mapping_register (g_mapped_file_get_contents (file), len, path);
  _planar_trace_test_point (self, "cache-mapped", path);
  /* The first view's planes from the file, published as a cold load does
   * (their lines hashed as they are read), while the index of the rest is
   * still to be checked; only then the index (docs/loader.md, "The
   * cached index"). */
  if (self->has_start_time && read_header (self, data, len, TRUE, &h, NULL) &&
      (decoded = first_view_planes (self)) != NULL)
    {
      self->hash_lines = TRUE;
      _planar_trace_flag_internal_events (self);
      if (!_planar_trace_decode_planes (self, decoded, cancellable, &error))
        {
          g_clear_pointer (&guard, planar_mapping_unregister);
          close (fd);
          g_propagate_error (error_out, g_steal_pointer (&error));
          return FALSE;
        }
    }
  result = restore (self, data, len, TRUE, TRUE, decoded, &repaired, cancellable, &error);
  /* Every section is checked against its checksum: a restore that is done
   * read no zeros of a cut. One that failed on them drops the file. */
  if (planar_mapping_has_changed (guard) && result == RESTORE_FAILED)
    {
      result = RESTORE_NOT_USED;
      g_clear_error (&error);
      g_set_error (&error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED, _("%s changed while it was read"), path);
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
  if (decoded != NULL)
    {
      /* Planes are published from the file: the others are decoded too,
       * and the load goes on as a cold one. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_unlink (path);
      else
        {
          g_propagate_error (error_out, g_steal_pointer (&error));
          return FALSE;
        }
      *lines_decoded = TRUE;
      return decode_others (self, decoded, cancellable, error_out);
    }
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
