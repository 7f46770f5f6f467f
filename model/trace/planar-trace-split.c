/* planar-trace-split.c: the longest lines decoded in pieces.
 *
 * The decode gives each worker a line at a time. A profile's longest line
 * can hold a large share of its events (the host's Python thread, 40 % of
 * a `planar-gen` profile's), and a worker that takes it near the end
 * decodes it alone while the others have nothing left to do: at 10^8
 * events one core idled for 14 of the decode's 24 seconds.
 *
 * So a line of at least PLANAR_SPLIT_MIN bytes and at least a (2 x
 * workers)th of the file's lines is cut into pieces that workers decode
 * side by side. A scan first walks the line's fields, hopping over each
 * by its length without reading the events: it finds, for each piece, the
 * first field that begins at or after the piece's share of the bytes, and
 * counts the events before it. The line's event array is then allocated
 * once, at its exact size, and each piece writes its events into its own
 * part of it. Fields of the line itself (its id, names and timestamp) may
 * come anywhere: each piece keeps those it read, and the last of each
 * kind wins, as a serial read has it. The scan runs a little before the
 * pieces in the decode's order, while the other workers decode lines that
 * come before them; a piece taken before its scan ended waits for it.
 *
 * The index is the same as a serial decode's (test-cache compares them).
 * A scan that meets anything but well-formed fields leaves the line to be
 * read whole by its first piece, which then says what is wrong exactly as
 * before.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-decode-private.h"
#include "planar-xspace-fields-private.h"

#include <string.h>

#include "planar-parallel.h"

/* Pieces of one line at most. */
#define PIECES_MAX 16

/* How long a piece waits for its scan before it looks at the cancellable
 * again. */
#define SCAN_WAIT_US (50 * G_TIME_SPAN_MILLISECOND)

enum
{
  SCAN_PENDING,
  /* The pieces' bounds are known and the line's array is allocated. */
  SCAN_READY,
  /* The line is read whole by its first piece. */
  SCAN_WHOLE,
  /* The decode stopped (a failure elsewhere, a cancel, the budget). */
  SCAN_FAILED,
};

struct _PlanarSplitLine
{
  /* The line job this line's pieces stand for. */
  guint            job;
  guint            n_pieces;
  /* SCAN_*, under the context's lock. */
  gint             state;
  /* Piece k reads the fields from bounds[k] to bounds[k + 1], and writes
   * its events from before[k] on in the line's array. */
  const guint8    *bounds[PIECES_MAX + 1];
  /* The line's timestamp, as the scan read it (the last one wins): each
   * piece moves its own events to the time base. */
  gint64           timestamp_ns;
  gsize            before[PIECES_MAX + 1];
  PlanarLineJob    pieces[PIECES_MAX];
  PlanarLineFields fields[PIECES_MAX];
  /* Pieces not done yet (atomic): the last one joins them. */
  gint             pieces_left;
};

struct _PlanarSplitJob
{
  guint split;
  /* The piece, or -1 for the line's scan. */
  gint  piece;
};

static guint64
job_size (PlanarDecodeContext *ctx,
          guint                job)
{
  const PlanarLineJob *lj = &ctx->line_jobs[job];

  return ctx->self->planes_priv[lj->plane].line_sizes[lj->line];
}

guint *
_planar_decode_plan_splits (PlanarDecodeContext *ctx,
                            const guint         *jobs,
                            guint                n_jobs,
                            guint               *n_order)
{
  guint workers = planar_parallel_max_threads ();
  guint n_pieces = MIN (PIECES_MAX, MAX (4, 2 * workers));
  /* A test's split_min cuts every line that long, whatever the workers. */
  gboolean forced = ctx->self->test_options.split_min > 0;
  guint64 total = 0, min;
  g_autofree guint *scan_at = NULL;
  g_autofree gint *split_of = NULL;
  guint *order;
  guint n = 0, at = 0;

  for (guint i = 0; i < n_jobs; i++)
    total += job_size (ctx, jobs[i]);
  min = forced ? ctx->self->split_min : MAX (ctx->self->split_min, total / (2 * workers));
  split_of = g_new (gint, MAX (n_jobs, 1));
  for (guint i = 0; i < n_jobs; i++)
    {
      split_of[i] = (forced || workers >= 2) && job_size (ctx, jobs[i]) >= min ? (gint) n : -1;
      n += split_of[i] >= 0;
    }
  *n_order = n_jobs - n + n * (n_pieces + 1);
  order = g_new (guint, MAX (*n_order, 1));
  if (n == 0)
    {
      memcpy (order, jobs, n_jobs * sizeof (guint));
      return order;
    }

  ctx->splits = g_new0 (PlanarSplitLine, n);
  ctx->n_splits = n;
  ctx->split_jobs = g_new0 (PlanarSplitJob, n * (n_pieces + 1));
  scan_at = g_new (guint, n);
  for (guint i = 0; i < n_jobs; i++)
    if (split_of[i] >= 0)
      {
        PlanarSplitLine *split = &ctx->splits[split_of[i]];
        guint64 size = job_size (ctx, jobs[i]), ahead = 0;
        guint j = i;

        split->job = jobs[i];
        split->n_pieces = n_pieces;
        split->pieces_left = (gint) n_pieces;
        /* Its scan, which reads a few bytes of each event, goes before
         * lines with about a quarter of its bytes, for the other workers
         * to decode meanwhile. */
        while (j > 0 && ahead < size / 4)
          ahead += job_size (ctx, jobs[--j]);
        scan_at[split_of[i]] = j;
      }

  for (guint i = 0; i < n_jobs; i++)
    {
      for (guint s = 0; s < n; s++)
        if (scan_at[s] == i)
          {
            ctx->split_jobs[ctx->n_split_jobs] = (PlanarSplitJob) { s, -1 };
            order[at++] = ctx->n_line_jobs + ctx->n_split_jobs++;
          }
      if (split_of[i] < 0)
        order[at++] = jobs[i];
      else
        for (guint k = 0; k < n_pieces; k++)
          {
            ctx->split_jobs[ctx->n_split_jobs] = (PlanarSplitJob) { (guint) split_of[i], (gint) k };
            order[at++] = ctx->n_line_jobs + ctx->n_split_jobs++;
          }
    }
  g_assert (at == *n_order);
  return order;
}

void
_planar_decode_free_splits (PlanarDecodeContext *ctx)
{
  /* The pieces' events are the line's; their aggregated events are
   * their own until joined. */
  for (guint s = 0; s < ctx->n_splits; s++)
    for (guint k = 0; k < ctx->splits[s].n_pieces; k++)
      g_clear_pointer (&ctx->splits[s].pieces[k].aggregated, planar_spill_free);
  g_clear_pointer (&ctx->splits, g_free);
  g_clear_pointer (&ctx->split_jobs, g_free);
  ctx->n_splits = 0;
  ctx->n_split_jobs = 0;
}

static void
set_state (PlanarDecodeContext *ctx,
           PlanarSplitLine     *split,
           gint                 state)
{
  g_mutex_lock (&ctx->lock);
  split->state = state;
  g_cond_broadcast (&ctx->split_cond);
  g_mutex_unlock (&ctx->lock);
}

/* Finds the pieces' bounds and allocates the line's array. */
static gboolean
scan_line (PlanarDecodeContext *ctx,
           PlanarSplitLine     *split)
{
  PlanarTrace *self = ctx->self;
  PlanarLineJob *job = &ctx->line_jobs[split->job];
  const PlanarXSpaceFields *xf = _planar_xspace_fields ();
  const guint8 *start = self->data + self->planes_priv[job->plane].line_offsets[job->line];
  guint64 len = self->planes_priv[job->plane].line_sizes[job->line];
  const guint8 *p = start, *end = start + len;
  const guint8 *next = start + len / split->n_pieces;
  gsize count = 0, bytes;
  guint k = 1;
  guint32 n_fields = 0;

  split->bounds[0] = start;
  split->before[0] = 0;
  while (p < end)
    {
      guint kind;
      guint64 value;
      const guint8 *data;

      while (k < split->n_pieces && p >= next)
        {
          split->bounds[k] = p;
          split->before[k] = count;
          k++;
          next = start + len * k / split->n_pieces;
        }
      if (G_UNLIKELY (++n_fields == 0x10000))
        {
          n_fields = 0;
          if (_planar_decode_stopped (ctx))
            {
              set_state (ctx, split, SCAN_FAILED);
              return FALSE;
            }
        }
      if (!planar_xfield_read_fast (&xf->line, &p, end, &kind, &value, &data))
        {
          set_state (ctx, split, SCAN_WHOLE);
          return TRUE;
        }
      count += kind == PLANAR_XLINE_EVENTS;
      if (kind == PLANAR_XLINE_TIMESTAMP_NS)
        split->timestamp_ns = (gint64) value;
    }
  for (; k <= split->n_pieces; k++)
    {
      split->bounds[k] = end;
      split->before[k] = count;
    }

  bytes = MAX (count, 1) * sizeof (PlanarEvent);
  if (!_planar_decode_claim_memory (ctx, bytes))
    {
      set_state (ctx, split, SCAN_FAILED);
      return FALSE;
    }
  job->events = planar_spill_alloc (bytes, _planar_decode_spill_mode (ctx, job->plane, bytes));
  job->cap_events = count;
  job->n_events = 0;
  for (k = 0; k < split->n_pieces; k++)
    split->pieces[k] = (PlanarLineJob) {
      .plane = job->plane,
      .line = job->line,
      .events = job->events + split->before[k],
      .cap_events = split->before[k + 1] - split->before[k],
      .sorted = TRUE,
      .first_damaged_stat = G_MAXUINT64,
      .fixed = TRUE,
    };
  __atomic_add_fetch (&self->n_split_lines, 1, __ATOMIC_RELAXED);
  set_state (ctx, split, SCAN_READY);
  return TRUE;
}

/* The scan's outcome, once there is one (SCAN_FAILED when the decode
 * stops meanwhile). */
static gint
wait_for_scan (PlanarDecodeContext *ctx,
               PlanarSplitLine     *split)
{
  for (;;)
    {
      gint state;

      g_mutex_lock (&ctx->lock);
      if (split->state == SCAN_PENDING)
        g_cond_wait_until (&ctx->split_cond, &ctx->lock, g_get_monotonic_time () + SCAN_WAIT_US);
      state = split->state;
      g_mutex_unlock (&ctx->lock);
      if (state != SCAN_PENDING)
        return state;
      /* Outside the lock: a cancel is recorded under it. */
      if (_planar_decode_stopped (ctx))
        return SCAN_FAILED;
    }
}

static void
take_fields (PlanarLineFields       *to,
             const PlanarLineFields *from)
{
  for (guint kind = 0; kind < PLANAR_LINE_FIELD_KINDS; kind++)
    if (from->seen & (1u << kind))
      {
        to->value[kind] = from->value[kind];
        to->data[kind] = from->data[kind];
        to->len[kind] = from->len[kind];
      }
  to->seen |= from->seen;
}

/* Every piece read: the line as one read would have left it, then
 * finished as any line. */
static gboolean
join_pieces (PlanarDecodeContext *ctx,
             PlanarSplitLine     *split)
{
  PlanarLineJob *job = &ctx->line_jobs[split->job];
  PlanarLineFields fields = { 0 };
  gsize n = 0, n_aggregated = 0;

  job->sorted = TRUE;
  job->n_damaged_stats = 0;
  job->first_damaged_stat = G_MAXUINT64;
  job->first_damaged_reason = NULL;
  for (guint k = 0; k < split->n_pieces; k++)
    {
      const PlanarLineJob *piece = &split->pieces[k];

      /* A piece with aggregated events wrote fewer than it counted: the
       * pieces after it move down. */
      if (piece->n_events > 0)
        {
          if (piece->events != job->events + n)
            memmove (job->events + n, piece->events, piece->n_events * sizeof (PlanarEvent));
          if (n > 0 && !_planar_event_before (&job->events[n - 1], &job->events[n]))
            job->sorted = FALSE;
          n += piece->n_events;
        }
      job->sorted = job->sorted && piece->sorted;
      n_aggregated += piece->n_aggregated;
      job->n_damaged_stats += piece->n_damaged_stats;
      if (piece->first_damaged_stat < job->first_damaged_stat)
        {
          job->first_damaged_stat = piece->first_damaged_stat;
          job->first_damaged_reason = piece->first_damaged_reason;
        }
      take_fields (&fields, &split->fields[k]);
    }
  job->n_events = n;
  job->rebased = TRUE;

  if (n_aggregated > 0)
    {
      gsize bytes = n_aggregated * sizeof (PlanarEvent);

      if (!_planar_decode_claim_memory (ctx, bytes))
        return FALSE;
      job->aggregated = planar_spill_alloc (bytes, _planar_decode_spill_mode (ctx, job->plane, bytes));
      for (guint k = 0; k < split->n_pieces; k++)
        {
          PlanarLineJob *piece = &split->pieces[k];

          if (piece->n_aggregated > 0)
            memcpy (job->aggregated + job->n_aggregated, piece->aggregated, piece->n_aggregated * sizeof (PlanarEvent));
          job->n_aggregated += piece->n_aggregated;
          g_clear_pointer (&piece->aggregated, planar_spill_free);
        }
      job->cap_aggregated = n_aggregated;
    }
  return _planar_decode_finish_line (ctx, job, &fields);
}

gboolean
_planar_decode_split_job (PlanarDecodeContext *ctx,
                          guint                i)
{
  const PlanarSplitJob *sj = &ctx->split_jobs[i];
  PlanarSplitLine *split = &ctx->splits[sj->split];
  guint k = (guint) sj->piece;
  gint state;

  if (sj->piece < 0)
    return scan_line (ctx, split);

  state = wait_for_scan (ctx, split);
  if (state == SCAN_FAILED)
    return FALSE;
  if (state == SCAN_WHOLE)
    {
      if (k == 0 && !_planar_decode_line (ctx, &ctx->line_jobs[split->job]))
        return FALSE;
    }
  else if (!_planar_decode_line_fields (ctx, &split->pieces[k], split->bounds[k], split->bounds[k + 1],
                                        &split->fields[k]) ||
           !_planar_decode_rebase (ctx, &split->pieces[k], split->pieces[k].events, split->pieces[k].n_events,
                                   split->timestamp_ns))
    return FALSE;

  if (!g_atomic_int_dec_and_test (&split->pieces_left))
    return TRUE;
  if (state == SCAN_READY && !join_pieces (ctx, split))
    return FALSE;
  return _planar_decode_line_done (ctx, split->job);
}

guint
_planar_trace_get_n_split_lines (PlanarTrace *self)
{
  return __atomic_load_n (&self->n_split_lines, __ATOMIC_RELAXED);
}
