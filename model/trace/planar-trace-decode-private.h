/* planar-trace-decode-private.h: what the structure scan
 * (planar-trace-scan.c), the line decoder (planar-trace-decode.c) and the
 * track index (planar-trace-index.c) share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace-private.h"

G_BEGIN_DECLS

/* Line timestamps at or past this are wall-clock nanoseconds (after
 * 1970-01-12) rather than nanoseconds since the profile start; no profile
 * is that long. */
#define PLANAR_EPOCH_THRESHOLD_NS G_GINT64_CONSTANT (1000000000000000)

/* One XLine being decoded. */
typedef struct
{
  guint        plane;
  guint        line;
  PlanarEvent *events;
  gsize        n_events;
  gsize        cap_events;
  PlanarEvent *aggregated;
  gsize        n_aggregated;
  gsize        cap_aggregated;
  /* Whether @events came out in (start, longer first) order. */
  gboolean     sorted;
  /* With the trace's count_stats: the damaged stats of the line, and the
   * first of them (its offset, G_MAXUINT64 while none, and why). */
  guint64      n_damaged_stats;
  guint64      first_damaged_stat;
  const char  *first_damaged_reason;
  /* A piece of a line decoded in pieces: @events is its part of the
   * line's array, sized by the line's scan, and never grows. */
  gboolean     fixed;
  /* The events are on the time base already (a line decoded in pieces:
   * each piece moved its own). */
  gboolean     rebased;
} PlanarLineJob;

/* The XLine's own fields (not its events) as read, by kind (PLANAR_XLINE_*
 * of planar-xspace-fields-private.h, below PLANAR_XLINE_EVENTS): a
 * varint's value, or a string's bytes; the last of each kind wins, as
 * protobuf has it, and @seen has a bit (1 << kind) for each kind read. */
#define PLANAR_LINE_FIELD_KINDS 7

typedef struct
{
  guint         seen;
  guint64       value[PLANAR_LINE_FIELD_KINDS];
  const guint8 *data[PLANAR_LINE_FIELD_KINDS];
  gsize         len[PLANAR_LINE_FIELD_KINDS];
} PlanarLineFields;

typedef struct _PlanarSplitLine PlanarSplitLine;
typedef struct _PlanarSplitJob  PlanarSplitJob;

/* One track being built from its lines. */
typedef struct
{
  guint        plane;
  guint        track;
  /* Indices into the jobs array of the lines merged into this track. */
  guint       *lines;
  guint        n_lines;
  /* Room in @lines (doubled as lines of one id come). */
  guint        lines_capacity;
} PlanarTrackJob;

typedef struct
{
  PlanarTrace    *self;
  GCancellable   *cancellable;
  PlanarLineJob  *line_jobs;
  guint           n_line_jobs;
  PlanarTrackJob *track_jobs;
  guint           n_track_jobs;
  /* Bytes the index has claimed so far against @budget (atomic). */
  gint64          allocated;
  guint64         budget;
  /* While the index spills: which planes may keep theirs in memory (the
   * first in the timeline's order, NULL: none) and what is left of the
   * trace's first_heap for them (atomic). */
  gboolean       *plane_heap;
  gint64          heap_left;
  GMutex          lock;
  /* The first failure, under @lock; @failed says there is one (atomic). */
  GError         *error;
  gint            failed;
  /* Planes streamed in the timeline's order (a file with a profile start,
   * planar-trace-decode.c), NULL otherwise: per plane its first line job
   * and the lines left to decode (atomic), whether its tracks are built
   * (under @lock), the planes in the timeline's order and how many of them
   * are published (under @lock). */
  const guint    *first_job;
  gint           *plane_left;
  gboolean       *plane_built;
  const guint    *plane_order;
  /* The planes of @plane_order: those this decode builds. */
  guint           n_order;
  guint           n_published;
  /* Lines decoded in pieces (planar-trace-split.c): decode jobs from
   * @n_line_jobs on are @split_jobs[job - n_line_jobs]; a piece waits on
   * @split_cond (with @lock) for its line's scan. */
  PlanarSplitLine *splits;
  guint            n_splits;
  PlanarSplitJob  *split_jobs;
  guint            n_split_jobs;
  GCond            split_cond;
} PlanarDecodeContext;

/* Records @error (taken) as the decode's failure unless one is recorded
 * already. Any worker. */
void     _planar_decode_fail          (PlanarDecodeContext  *ctx,
                                       GError               *error);
/* Whether the decode failed or was cancelled (recording the cancellation). */
gboolean _planar_decode_stopped       (PlanarDecodeContext  *ctx);
/* For a pool job that stops: FALSE, with a copy of the recorded failure. */
gboolean _planar_decode_take_failure  (PlanarDecodeContext  *ctx,
                                       GError              **error);
/* Charges @bytes against the index's budget; FALSE (recorded) past it. */
gboolean _planar_decode_claim_memory  (PlanarDecodeContext  *ctx,
                                       gsize                 bytes);

/* Where @bytes more of plane @p's index go: in memory (PLANAR_SPILL_NEVER)
 * when the plane may stay there and @ctx's heap_left lasts, claiming them,
 * else where the trace's index goes. @p may be G_MAXUINT: no plane. */
PlanarSpillMode _planar_decode_spill_mode (PlanarDecodeContext *ctx,
                                           guint                p,
                                           gsize                bytes);

/* The same for @bytes of a track's depth index (its starts and its order
 * by depth): in memory while the trace's depth_heap_left lasts. */
PlanarSpillMode _planar_decode_depth_spill_mode (PlanarDecodeContext *ctx,
                                                 guint                p,
                                                 gsize                bytes);

/* planar-trace-decode-line.c: one XLine read, whole or a piece at a
 * time, and finished; planar-trace-decode.c: a line job decoded. */
gboolean _planar_decode_line          (PlanarDecodeContext  *ctx,
                                       PlanarLineJob        *job);
gboolean _planar_decode_line_fields   (PlanarDecodeContext  *ctx,
                                       PlanarLineJob        *job,
                                       const guint8         *from,
                                       const guint8         *to,
                                       PlanarLineFields     *fields);
gboolean _planar_decode_finish_line   (PlanarDecodeContext  *ctx,
                                       PlanarLineJob        *job,
                                       const PlanarLineFields *fields);
gboolean _planar_decode_rebase        (PlanarDecodeContext  *ctx,
                                       const PlanarLineJob  *job,
                                       PlanarEvent          *events,
                                       gsize                 n,
                                       gint64                ts_ns);
gboolean _planar_decode_line_done     (PlanarDecodeContext  *ctx,
                                       guint                 job);

/* planar-trace-split.c: the longest lines in pieces. */
guint   *_planar_decode_plan_splits   (PlanarDecodeContext  *ctx,
                                       const guint          *jobs,
                                       guint                 n_jobs,
                                       guint                *n_order);
gboolean _planar_decode_split_job     (PlanarDecodeContext  *ctx,
                                       guint                 job);
void     _planar_decode_free_splits   (PlanarDecodeContext  *ctx);

/* planar-trace-index.c: sorts a track's events unless @sorted, nests them
 * and builds its depth index and span; @p is its plane (for
 * _planar_decode_spill_mode()). */
gboolean _planar_decode_finish_track  (PlanarDecodeContext  *ctx,
                                       guint                 p,
                                       PlanarTrack          *track,
                                       gboolean              sorted);

/* Events in (start, longer first, file order) order. */
static inline gboolean
_planar_event_before (const PlanarEvent *a,
                      const PlanarEvent *b)
{
  if (a->start_ps != b->start_ps)
    return a->start_ps < b->start_ps;
  if (a->duration_ps != b->duration_ps)
    return a->duration_ps > b->duration_ps;
  return a->source < b->source;
}

G_END_DECLS
