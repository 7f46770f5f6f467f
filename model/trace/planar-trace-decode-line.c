/* planar-trace-decode-line.c: one XLine read into its line job's event
 * arrays, whole or a piece of it at a time (planar-trace-split.c), then
 * finished: its names, its time base, the cached index's key. The decode
 * (planar-trace-decode.c) runs it on the model's worker pool.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-decode-private.h"
#include "planar-xspace-fields-private.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

G_STATIC_ASSERT (PLANAR_XLINE_EVENTS <= PLANAR_LINE_FIELD_KINDS);

/* Why the project's own reader and not protobuf-c for events, decided by
 * measurement (bench/planar-bench-load, table in bench/RESULTS.md): unpacking
 * with protobuf-c allocates an XEvent struct, a stats pointer array and an
 * XStat struct per stat, and copies every string, whether it unpacks the
 * whole XSpace or one XLine at a time (the work per event is the same). On
 * the 1e7-event generated profile (371 MB) that took 12.4 s and 3.45 GB,
 * while this reader has the whole index ready in 0.86 s with a 456 MB peak
 * (2 cores). It writes each event straight into its track's array as a
 * 32-byte record and leaves the stats in the mapped file until somebody asks
 * for them (planar-trace-stats.c). */

/* How often workers look at the cancellable and report progress. */
#define PLANAR_PROGRESS_EVENTS 65536

/* Files larger than this have the pages of decoded lines dropped from the
 * process (they stay in the page cache), so that peak memory is the index
 * plus what the workers are reading, not the index plus the whole file. */
#define PLANAR_DROP_PAGES_MIN_SIZE (G_GUINT64_CONSTANT (256) << 20)

static gboolean
grow_events (PlanarDecodeContext  *ctx,
             guint           p,
             PlanarEvent   **events,
             gsize          *cap,
             gsize           line_len,
             gsize           line_read)
{
  /* The first allocation follows the line's size (a real event takes more
   * than 8 bytes), so that many short lines do not each claim a page. */
  gsize new_cap = *cap ? *cap * 2 : MIN (256, line_len / 8 + 1);

  /* Full after a few thousand events, the bytes read so far tell how many
   * the line holds: one block of about that many (and a little more), not
   * a doubling that copies every event again (into new pages of a spill
   * file past 1 GiB) each time. A wrong guess only grows again. */
  if (*cap >= 4096 && line_read > 0 && line_read < line_len)
    {
      double expected = (double) *cap * (double) line_len / (double) line_read * 1.125 + 1024;

      if (expected > (double) new_cap && expected < (double) line_len)
        new_cap = (gsize) expected;
    }

  if (!_planar_decode_claim_memory (ctx, (new_cap - *cap) * sizeof (PlanarEvent)))
    return FALSE;
  /* Large heap blocks are mmap()ed by the allocator, so realloc() moves
   * pages instead of copying and does not double the peak. */
  *events = planar_spill_renew (*events, *cap * sizeof (PlanarEvent), new_cap * sizeof (PlanarEvent),
                                _planar_decode_spill_mode (ctx, p, (new_cap - *cap) * sizeof (PlanarEvent)));
  *cap = new_cap;
  return TRUE;
}

static void
drop_pages (PlanarTrace *self,
            guint64      offset,
            guint64      size)
{
  static gsize page_size;
  guint64 begin, end;

  if (self->size < PLANAR_DROP_PAGES_MIN_SIZE)
    return;
  if (page_size == 0)
    page_size = (gsize) sysconf (_SC_PAGESIZE);
  begin = (offset + page_size - 1) / page_size * page_size;
  end = (offset + size) / page_size * page_size;
  /* The mapping is private and read-only: dropping the pages only forgets
   * them, a later read faults them back in from the page cache. */
  if (end > begin)
    madvise ((void *) (self->data + begin), end - begin, MADV_DONTNEED);
}

/* What a decode that counts damaged stats (the trace's count_stats) needs
 * to check one: the stats field whose tag begins at @field is counted in
 * @job when its payload is not a well-formed XStat, as
 * planar_trace_count_damaged_stats() counts it. */
typedef struct
{
  PlanarTrace              *self;
  const PlanarPlanePrivate *ppriv;
  PlanarLineJob            *job;
} StatCheck;

static void
check_stat (const StatCheck *check,
            const guint8    *field,
            const guint8    *payload,
            gsize            len)
{
  PlanarWireReader er = { 0 };
  guint64 offset;

  if (_planar_trace_decode_stat (check->self, check->ppriv, &er, payload, len, NULL))
    return;
  offset = (guint64) (field - check->self->data);
  check->job->n_damaged_stats++;
  if (offset < check->job->first_damaged_stat)
    {
      check->job->first_damaged_stat = offset;
      check->job->first_damaged_reason = er.error_reason;
    }
}

/* The fast reading of one XEvent: its fields read inline, FALSE at
 * anything but well-formed fields of the wire types the descriptors give
 * (the careful reader, planar_wire_next(), then reads the event again and
 * says what is wrong). Most of a load's time is spent here. With @check,
 * each stat is checked as well (and counted again by the careful reader
 * when this returns FALSE: the caller takes back what this counted). */
static inline gboolean
read_event_fast (const PlanarXFields *fields,
                 const guint8        *p,
                 const guint8        *end,
                 gint64              *metadata_id,
                 gint64              *offset_ps,
                 gint64              *duration_ps,
                 gboolean            *aggregated,
                 const StatCheck     *check)
{
  while (p < end)
    {
      const guint8 *field = p, *data;
      guint64 value;
      guint kind;

      if (!planar_xfield_read_fast (fields, &p, end, &kind, &value, &data))
        return FALSE;
      if (G_UNLIKELY (check != NULL) && kind == PLANAR_XEVENT_STATS)
        check_stat (check, field, data, (gsize) value);
      switch (kind)
        {
        case PLANAR_XEVENT_METADATA_ID:
          *metadata_id = (gint64) value;
          break;
        case PLANAR_XEVENT_OFFSET_PS:
          *offset_ps = (gint64) value;
          *aggregated = FALSE;
          break;
        case PLANAR_XEVENT_DURATION_PS:
          *duration_ps = (gint64) value;
          break;
        case PLANAR_XEVENT_NUM_OCCURRENCES:
          /* num_occurrences shares a oneof with offset_ps; setting it
           * erases the offset. */
          *offset_ps = 0;
          *aggregated = TRUE;
          break;
        default:
          break;
        }
    }
  return TRUE;
}

/* The tag byte of XLine.events when it fits in one byte, else 0 (never a
 * tag): the fast path looks for it. */
static guint8
events_tag_byte (const PlanarXSpaceFields *xf)
{
  for (guint n = 1; n < PLANAR_XFIELD_SLOTS; n++)
    if (planar_xfield_kind (&xf->line, n) == PLANAR_XLINE_EVENTS)
      return (n << 3 | PLANAR_WIRE_LEN) < 0x80 ? (guint8) (n << 3 | PLANAR_WIRE_LEN) : 0;
  return 0;
}

/* A piece of a line (planar-trace-split.c) holds the events its line's scan
 * counted: one more means the scan and the decode disagree, which no input
 * should make them do. */
static gboolean
piece_overflow (PlanarDecodeContext *ctx,
                PlanarLineJob       *job)
{
  PlanarTrace *self = ctx->self;

  _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                                         "more events than counted in XLine at byte %" G_GUINT64_FORMAT " of %s",
                                         self->planes_priv[job->plane].line_offsets[job->line], self->file_name));
  return FALSE;
}

/* Puts one decoded event in @job's arrays; FALSE (recorded) when the
 * index's budget is spent. */
static inline gboolean
add_event (PlanarDecodeContext *ctx,
           PlanarPlanePrivate  *ppriv,
           PlanarLineJob       *job,
           gsize                line_len,
           gsize                line_read,
           gint64               metadata_id,
           gint64               offset_ps,
           gint64               duration_ps,
           gboolean             aggregated,
           guint64              source)
{
  gint64 index;
  PlanarEvent *ev;

  /* A negative duration cannot be drawn or nested; it counts as an
   * instant. */
  if (duration_ps < 0)
    duration_ps = 0;
  index = _planar_id_map_lookup (&ppriv->event_map, metadata_id);
  if (aggregated)
    {
      if (job->n_aggregated == job->cap_aggregated &&
          !grow_events (ctx, job->plane, &job->aggregated, &job->cap_aggregated, line_len, line_read))
        return FALSE;
      ev = &job->aggregated[job->n_aggregated++];
    }
  else
    {
      if (G_UNLIKELY (job->n_events == job->cap_events) &&
          (job->fixed ? !piece_overflow (ctx, job) : !grow_events (ctx, job->plane, &job->events, &job->cap_events,
                                                                   line_len, line_read)))
        return FALSE;
      ev = &job->events[job->n_events++];
    }
  /* Offsets stay relative to the line until its timestamp is known for
   * sure (a writer may put it after the events). */
  ev->start_ps = offset_ps;
  ev->duration_ps = duration_ps;
  ev->metadata = index < 0 ? 0 : (guint32) index;
  ev->depth = 0;
  ev->flags = 0;
  ev->source = source;
  if (!aggregated && job->n_events > 1 && !_planar_event_before (ev - 1, ev))
    job->sorted = FALSE;
  return TRUE;
}

/* Every PLANAR_PROGRESS_EVENTS events: the bytes read so far, progress,
 * and whether to stop. */
static gboolean
check_progress (PlanarDecodeContext *ctx,
                PlanarWireReader    *r,
                const guint8       **last_progress,
                guint64             *n_since_check)
{
  PlanarTrace *self = ctx->self;

  *n_since_check = 0;
  __atomic_add_fetch (&self->line_bytes_done, (gint64) (r->p - *last_progress), __ATOMIC_RELAXED);
  *last_progress = r->p;
  _planar_trace_report_progress (self, PLANAR_LOAD_PHASE_DECODING_LINES, FALSE);
  return !_planar_decode_stopped (ctx);
}

/* Reads the fields of line job @job's XLine from @from to @to (the whole
 * line, or a piece of it that begins and ends at field boundaries): its
 * events into @job's arrays, its own fields into @fields. FALSE (recorded)
 * on malformed input, a spent budget or a stop. */
gboolean
_planar_decode_line_fields (PlanarDecodeContext *ctx,
                            PlanarLineJob       *job,
                            const guint8        *from,
                            const guint8        *to,
                            PlanarLineFields    *fields)
{
  PlanarTrace *self = ctx->self;
  PlanarPlanePrivate *ppriv = &self->planes_priv[job->plane];
  const guint8 *start = self->data + ppriv->line_offsets[job->line];
  gsize len = ppriv->line_sizes[job->line];
  const guint8 *last_progress = from;
  PlanarWireReader r;
  PlanarWireField f;
  guint64 n_since_check = 0;
  const char *what = "XLine";
  const PlanarXSpaceFields *xf = _planar_xspace_fields ();
  const guint8 events_tag = events_tag_byte (xf);
  int rc = 0;
  StatCheck stat_check;
  const StatCheck *check = NULL;

  if (self->count_stats)
    {
      stat_check = (StatCheck) { self, ppriv, job };
      check = &stat_check;
    }
  planar_wire_reader_init (&r, self->data, from, (gsize) (to - from));
  for (;;)
    {
      guint kind;

      /* An event, read the fast way. */
      if (G_LIKELY (events_tag != 0 && r.p < r.end && r.p[0] == events_tag))
        {
          const guint8 *q = r.p + 1;
          guint64 event_len;
          gint64 metadata_id = 0, offset_ps = 0, duration_ps = 0;
          gboolean aggregated = FALSE;
          guint64 n_damaged = 0, first_damaged = 0;
          const char *first_reason = NULL;

          /* What a fast read that gives up has counted is taken back. */
          if (G_UNLIKELY (check != NULL))
            {
              n_damaged = job->n_damaged_stats;
              first_damaged = job->first_damaged_stat;
              first_reason = job->first_damaged_reason;
            }

          if (planar_wire_read_varint (&q, r.end, &event_len) && event_len <= (guint64) (r.end - q) &&
              read_event_fast (&xf->event, q, q + event_len, &metadata_id, &offset_ps, &duration_ps, &aggregated,
                               check))
            {
              /* The stats decoder starts again at the length prefix. */
              if (!add_event (ctx, ppriv, job, len, (gsize) (r.p - start), metadata_id, offset_ps, duration_ps,
                              aggregated, (guint64) (r.p + 1 - self->data)))
                return FALSE;
              r.p = q + event_len;
              if (G_UNLIKELY (++n_since_check >= PLANAR_PROGRESS_EVENTS) && !check_progress (ctx, &r, &last_progress, &n_since_check))
                return FALSE;
              continue;
            }
          /* The careful reader counts this event's stats. */
          if (G_UNLIKELY (check != NULL))
            {
              job->n_damaged_stats = n_damaged;
              job->first_damaged_stat = first_damaged;
              job->first_damaged_reason = first_reason;
            }
        }
      if ((rc = planar_wire_next (&r, &f)) <= 0)
        break;
      kind = planar_xfield_kind (&xf->line, f.number);
      if (G_UNLIKELY (kind != 0 && f.wire_type != xf->line.wire[kind]))
        goto bad_type;
      switch (kind)
        {
        case PLANAR_XLINE_EVENTS:
          {
            PlanarWireReader er;
            PlanarWireField ef;
            gint64 metadata_id = 0, offset_ps = 0, duration_ps = 0;
            gboolean aggregated = FALSE;
            guint64 source;
            int erc;

            planar_wire_reader_init (&er, self->data, f.data, f.len);
            while ((erc = planar_wire_next (&er, &ef)) > 0)
              {
                guint ekind = planar_xfield_kind (&xf->event, ef.number);

                if (G_UNLIKELY (ekind != 0 && ef.wire_type != xf->event.wire[ekind]))
                  {
                    f = ef;
                    what = "XEvent";
                    goto bad_type;
                  }
                switch (ekind)
                  {
                  case PLANAR_XEVENT_METADATA_ID:
                    metadata_id = (gint64) ef.value;
                    break;
                  case PLANAR_XEVENT_OFFSET_PS:
                    offset_ps = (gint64) ef.value;
                    aggregated = FALSE;
                    break;
                  case PLANAR_XEVENT_DURATION_PS:
                    duration_ps = (gint64) ef.value;
                    break;
                  case PLANAR_XEVENT_STATS:
                    if (check != NULL)
                      check_stat (check, ef.start, ef.data, ef.len);
                    break;
                  case PLANAR_XEVENT_NUM_OCCURRENCES:
                    /* num_occurrences shares a oneof with offset_ps; setting
                     * it erases the offset. */
                    offset_ps = 0;
                    aggregated = TRUE;
                    break;
                  default:
                    break;
                  }
              }
            if (G_UNLIKELY (erc < 0))
              {
                _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                                               "%s XEvent at byte %" G_GUINT64_FORMAT " of %s",
                                               er.error_reason,
                                               (guint64) (er.error_at - self->data),
                                               self->file_name));
                return FALSE;
              }

            {
              /* The length prefix sits right before the payload; its
               * offset is where the stats decoder starts again: skip the
               * tag to point at it. */
              const guint8 *q = f.start;
              guint64 tag;

              planar_wire_read_varint (&q, f.data, &tag);
              source = (guint64) (q - self->data);
            }
            if (!add_event (ctx, ppriv, job, len, (gsize) (r.p - start), metadata_id, offset_ps, duration_ps,
                            aggregated, source))
              return FALSE;
            if (G_UNLIKELY (++n_since_check >= PLANAR_PROGRESS_EVENTS) && !check_progress (ctx, &r, &last_progress, &n_since_check))
              return FALSE;
          }
          break;

        default:
          /* The line's own fields, kept by kind for its finish. */
          if (kind != 0)
            {
              fields->value[kind] = f.value;
              fields->data[kind] = f.data;
              fields->len[kind] = f.len;
              fields->seen |= 1u << kind;
            }
          break;
        }
    }
  if (rc < 0)
    {
      _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                                     "%s XLine at byte %" G_GUINT64_FORMAT " of %s",
                                     r.error_reason, (guint64) (r.error_at - self->data),
                                     self->file_name));
      return FALSE;
    }

  __atomic_add_fetch (&self->line_bytes_done, (gint64) (r.p - last_progress), __ATOMIC_RELAXED);
  _planar_trace_report_progress (self, PLANAR_LOAD_PHASE_DECODING_LINES, FALSE);
  return TRUE;

bad_type:
  _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                                 "unexpected wire type in %s at byte %" G_GUINT64_FORMAT " of %s",
                                 what,
                                 (guint64) (f.start - self->data), self->file_name));
  return FALSE;
}

/* The time base of a line whose timestamp is @ts_ns, in picoseconds:
 * wall-clock lines are rebased on the profile start (or, without one, on
 * the earliest wall-clock line); relative lines are already nanoseconds
 * since the start. FALSE when it overflows. */
static gboolean
line_base (PlanarTrace *self,
           gint64       ts_ns,
           gint64      *base_ps)
{
  gint64 base_ns = 0;

  if (self->has_start_time && ts_ns >= (gint64) self->profile_start_ns)
    base_ns = (gint64) self->profile_start_ns;
  else if (!self->has_start_time && self->has_epoch_base && ts_ns >= PLANAR_EPOCH_THRESHOLD_NS)
    base_ns = self->epoch_base_ns;
  return !__builtin_mul_overflow (ts_ns - base_ns, (gint64) 1000, base_ps);
}

/* Moves @n events' offsets from their line's start to the time base;
 * FALSE when one overflows. */
static gboolean
rebase_events (PlanarEvent *events,
               gsize        n,
               gint64       base_ps)
{
  for (gsize i = 0; i < n; i++)
    if (G_UNLIKELY (__builtin_add_overflow (events[i].start_ps, base_ps, &events[i].start_ps) ||
                    events[i].start_ps > G_MAXINT64 - events[i].duration_ps))
      return FALSE;
  return TRUE;
}

static void
fail_overflow (PlanarDecodeContext *ctx,
               const PlanarLineJob *job,
               gint64               ts_ns)
{
  PlanarTrace *self = ctx->self;

  _planar_decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                                         "timestamp overflow in XLine at byte %" G_GUINT64_FORMAT " of %s "
                                         "(timestamp_ns %" G_GINT64_FORMAT ")",
                                         self->planes_priv[job->plane].line_offsets[job->line], self->file_name,
                                         ts_ns));
}

/* Moves the @n events of a piece of line job @job's XLine (whose timestamp
 * is @ts_ns) to the time base; FALSE (recorded) on overflow. */
gboolean
_planar_decode_rebase (PlanarDecodeContext *ctx,
                       const PlanarLineJob *job,
                       PlanarEvent         *events,
                       gsize                n,
                       gint64               ts_ns)
{
  gint64 base_ps;

  if (line_base (ctx->self, ts_ns, &base_ps) && rebase_events (events, n, base_ps))
    return TRUE;
  fail_overflow (ctx, job, ts_ns);
  return FALSE;
}

/* Line job @job's XLine read whole: its names, its times and the cached
 * index's key, from @fields and the events in @job. */
gboolean
_planar_decode_finish_line (PlanarDecodeContext    *ctx,
                            PlanarLineJob          *job,
                            const PlanarLineFields *fields)
{
  PlanarTrace *self = ctx->self;
  PlanarPlane *plane = &self->planes[job->plane];
  PlanarPlanePrivate *ppriv = &self->planes_priv[job->plane];
  PlanarLine *line = &plane->lines[job->line];
  const guint8 *start = self->data + ppriv->line_offsets[job->line];
  gsize len = ppriv->line_sizes[job->line];
  gint64 ts_ns = (gint64) fields->value[PLANAR_XLINE_TIMESTAMP_NS], line_base_ps;
  guint64 steps;

  if (fields->seen & (1u << PLANAR_XLINE_ID))
    line->id = (gint64) fields->value[PLANAR_XLINE_ID];
  if (fields->seen & (1u << PLANAR_XLINE_DURATION_PS))
    line->duration_ps = (gint64) fields->value[PLANAR_XLINE_DURATION_PS];
  line->timestamp_ns = ts_ns;
  line->n_events = job->n_events + job->n_aggregated;
  line->display_id = fields->value[PLANAR_XLINE_DISPLAY_ID] != 0 ? (gint64) fields->value[PLANAR_XLINE_DISPLAY_ID]
                                                                  : line->id;

  steps = _planar_trace_steps;
  g_mutex_lock (&self->strings_lock);
  line->name = fields->seen & (1u << PLANAR_XLINE_NAME)
    ? planar_string_table_intern_len (self->strings, (const char *) fields->data[PLANAR_XLINE_NAME],
                                      fields->len[PLANAR_XLINE_NAME])
    : planar_string_table_intern (self->strings, "");
  line->display_name = fields->len[PLANAR_XLINE_DISPLAY_NAME] > 0
    ? planar_string_table_intern_len (self->strings, (const char *) fields->data[PLANAR_XLINE_DISPLAY_NAME],
                                      fields->len[PLANAR_XLINE_DISPLAY_NAME])
    : line->name;
  g_mutex_unlock (&self->strings_lock);
  __atomic_add_fetch (&self->steps, _planar_trace_steps - steps, __ATOMIC_RELAXED);

  if (!line_base (self, ts_ns, &line_base_ps) ||
      (!job->rebased && !rebase_events (job->events, job->n_events, line_base_ps)))
    goto overflow;
  for (gsize i = 0; i < job->n_aggregated; i++)
    job->aggregated[i].start_ps = line_base_ps;

  /* The cached index's key, when the loader asks for it: the bytes just
   * read, while they are here. */
  if (self->hash_lines)
    {
      XXH128_hash_t h = XXH3_128bits (start, len);

      ppriv->line_hashes[2 * job->line] = h.low64;
      ppriv->line_hashes[2 * job->line + 1] = h.high64;
    }
  drop_pages (self, ppriv->line_offsets[job->line], len);
  return TRUE;

overflow:
  fail_overflow (ctx, job, ts_ns);
  return FALSE;
}

/* Line job @job's XLine, read whole by one worker. */
gboolean
_planar_decode_line (PlanarDecodeContext *ctx,
                     PlanarLineJob       *job)
{
  const PlanarPlanePrivate *ppriv = &ctx->self->planes_priv[job->plane];
  const guint8 *start = ctx->self->data + ppriv->line_offsets[job->line];
  PlanarLineFields fields = { 0 };

  job->sorted = TRUE;
  job->n_damaged_stats = 0;
  job->first_damaged_stat = G_MAXUINT64;
  job->first_damaged_reason = NULL;
  return _planar_decode_line_fields (ctx, job, start, start + ppriv->line_sizes[job->line], &fields) &&
         _planar_decode_finish_line (ctx, job, &fields);
}

