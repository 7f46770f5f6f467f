/* planar-derive.h: the lines the model derives from a trace's own, the way
 * XProf's trace viewer shows them (docs/formats.md §4).
 *
 * Derived lines are appended to their plane's lines and tracks once every
 * track of the file is decoded (PlanarLine.derived, PlanarTrack.derived).
 * Their events carry PLANAR_EVENT_DERIVED; such an event has no bytes in
 * the file: planar_trace_get_event_stats() returns the stats the model gave
 * it, and planar_trace_get_derived_source() the file event it was built
 * from. Derived events are counted nowhere (planar_trace_get_n_events(),
 * PlanarPlane.n_events and the span ignore them).
 *
 * Rows: each derived track has a row of its own, numbered after the file's
 * rows in XProf's display order; PlanarTrack.source_track names the stream
 * a per-stream line comes from, so a viewer can place it right under that
 * stream. GPU derived lines carry XProf's display_id (their 1-based position
 * in [stream, its derived lines, next stream, ...]); the file's lines keep
 * the display_id the file gave them, so display ids of the two kinds are
 * not comparable.
 *
 * Times: derived events live in the tracks, so planar_trace_shift_time()
 * moves them with the rest. Stats strings of derived events are interned
 * (NUL-terminated); their stat metadata_id is -1.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace.h"

G_BEGIN_DECLS

/* XProf's derived line ids (`trace_utils.h`), as stored in XLine.id: the
 * C++ constants are ints initialised from 0xdeadbeef, hence negative. */
#define PLANAR_LINE_ID_STEPS                 G_GINT64_CONSTANT (-559038737)
#define PLANAR_LINE_ID_LAUNCH_STATS          G_GINT64_CONSTANT (-559038736)
#define PLANAR_LINE_ID_FRAMEWORK_NAME_SCOPE  G_GINT64_CONSTANT (-559038735)
#define PLANAR_LINE_ID_FRAMEWORK_OPS         G_GINT64_CONSTANT (-559038734)
#define PLANAR_LINE_ID_XLA_MODULES           G_GINT64_CONSTANT (-559038733)
#define PLANAR_LINE_ID_XLA_OPS               G_GINT64_CONSTANT (-559038732)
#define PLANAR_LINE_ID_SOURCE_CODE           G_GINT64_CONSTANT (-559038730)
/* TPU planes: Host Offload row N (0-based) has id
 * PLANAR_LINE_ID_HOST_OFFLOAD_MIN + N. */
#define PLANAR_LINE_ID_HOST_OFFLOAD_MIN      G_GINT64_CONSTANT (-559038729)
#define PLANAR_LINE_ID_HOST_OFFLOAD_MAX      G_GINT64_CONSTANT (-559038689)
/* `/host:CPU` planes: the XLA:CPU lines of the thread on line k (0-based,
 * in file order) have ids PLANAR_LINE_ID_HOST_XLA_MIN + 3k plus the
 * PLANAR_HOST_XLA_OFFSET_* of their kind. */
#define PLANAR_LINE_ID_HOST_XLA_MIN          G_GINT64_CONSTANT (-559038688)
#define PLANAR_LINE_ID_HOST_XLA_MAX          G_GINT64_CONSTANT (-559038448)
/* GPU planes: stream k (0-based, in XProf's stream order) owns the six ids
 * from PLANAR_LINE_ID_DEVICE_DERIVED_MIN + 6k; add the
 * PLANAR_DERIVED_OFFSET_* of a line kind. */
#define PLANAR_LINE_ID_DEVICE_DERIVED_MIN    G_GINT64_CONSTANT (-559038447)
#define PLANAR_LINE_ID_DEVICE_DERIVED_MAX    G_GINT64_CONSTANT (-559038348)
/* Every id XProf reserves for derived lines lies in [MIN, MAX]. */
#define PLANAR_LINE_ID_DERIVED_MIN           PLANAR_LINE_ID_STEPS
#define PLANAR_LINE_ID_DERIVED_MAX           PLANAR_LINE_ID_DEVICE_DERIVED_MAX

#define PLANAR_DERIVED_OFFSET_FRAMEWORK_NAME_SCOPE 0
#define PLANAR_DERIVED_OFFSET_FRAMEWORK_OPS        1
#define PLANAR_DERIVED_OFFSET_XLA_MODULES          2
#define PLANAR_DERIVED_OFFSET_XLA_OPS              3
#define PLANAR_DERIVED_OFFSET_SOURCE_CODE          5
#define PLANAR_DERIVED_LINES_PER_STREAM            6
#define PLANAR_HOST_XLA_OFFSET_FRAMEWORK_OPS        0
#define PLANAR_HOST_XLA_OFFSET_FRAMEWORK_NAME_SCOPE 1
#define PLANAR_HOST_XLA_OFFSET_XLA_MODULES          2
#define PLANAR_HOST_XLA_LINES_PER_THREAD            3
/* XProf derives the lines of at most this many streams per GPU. */
#define PLANAR_DERIVED_MAX_STREAMS                 16

/* Whether @line_id is one of the ids XProf reserves for derived lines. */
static inline gboolean
planar_line_id_is_derived (gint64 line_id)
{
  return line_id >= PLANAR_LINE_ID_DERIVED_MIN && line_id <= PLANAR_LINE_ID_DERIVED_MAX;
}

/* For a derived event (PLANAR_EVENT_DERIVED) of @self: stores in @source
 * the first file event it was built from (the first kernel of an XLA op,
 * the first launch of a Launch Stats event, ...) and returns TRUE. Returns
 * FALSE for a file event, or a derived one built from nothing in
 * particular. */
gboolean planar_trace_get_derived_source           (PlanarTrace       *self,
                                                    const PlanarEvent *event,
                                                    PlanarEventRef    *source);
/* The kinds of line the model derives. New kinds go at the end. */
typedef enum
{
  PLANAR_DERIVED_LINE_FRAMEWORK_NAME_SCOPE,
  PLANAR_DERIVED_LINE_FRAMEWORK_OPS,
  PLANAR_DERIVED_LINE_XLA_MODULES,
  PLANAR_DERIVED_LINE_XLA_OPS,
  PLANAR_DERIVED_LINE_SOURCE_CODE,
  PLANAR_DERIVED_LINE_STEPS,
  PLANAR_DERIVED_LINE_LAUNCH_STATS,
  /* A TPU's "Host Offload Ops row N". */
  PLANAR_DERIVED_LINE_HOST_OFFLOAD,
  /* A counter series of a `_counters_` track (planar_trace_get_counters()),
   * not a track: @name is the series' name, @source_track its
   * `_counters_` track, @id and @display_id 0. They come after the
   * plane's lines, in the set's order. */
  PLANAR_DERIVED_LINE_COUNTER,
} PlanarDerivedLineKind;

/* A line the model expects to derive on a plane. */
typedef struct
{
  PlanarDerivedLineKind kind;
  /* The XLine id and display id the line will carry (PlanarTrack.id and
   * .display_id once it is there). */
  gint64                id;
  gint64                display_id;
  /* The file track it is derived from (a GPU stream), or G_MAXUINT for a
   * line of the whole plane (PlanarTrack.source_track once it is there). */
  guint                 source_track;
  /* Interned: the name it will have ("XLA Ops - from #7"). */
  const char           *name;
  /* The nesting depths it is expected to have (at least 1): the most
   * levels (name scopes, "::"-separated HLO ops) an event read has. */
  guint                 n_depths;
} PlanarDerivedLinePrediction;

/* The lines the derive pass will add to plane @plane, in the order it
 * adds them, from what is read before it runs: the plane's file lines
 * (which exist already, and in which order XProf takes its streams), the
 * stat names the planes define, and the stats of the first events of each
 * stream. Lets a viewer keep room for them while the file's tracks are
 * shown, so that nothing moves when they arrive.
 *
 * The lines are exact but for what a sample tells: a stream's lines and
 * depths come from its first 256 events (and on to its first annotated
 * one, within its first 16384), so a line whose events all turn out to
 * lack what it is built from is not added, one first annotated later is
 * not told, and a depth may be low (a viewer keeps what the user sees
 * still for those). The TPU's Host Offload rows are counted by pairing
 * every copy as the pass does (reading only the few ops that are host
 * offload ops), and the counter series (PLANAR_DERIVED_LINE_COUNTER) from
 * the stats of a track's first 65536 samples and of each kind of sample
 * after them. Every file track of the plane must be ready
 * (planar_trace_is_track_ready()); derived tracks already there are
 * ignored. Costs a few hundred events' stats per stream, a look at every
 * event of a TPU plane with host offload ops and at every counter sample:
 * about 1 % of the plane's decode; any thread.
 *
 * Returns: (transfer full): an array of PlanarDerivedLinePrediction, empty
 * for a plane that gets nothing (a host plane, a plane whose lines XProf
 * saved already). */
GArray  *planar_trace_predict_derived_lines        (PlanarTrace       *self,
                                                    guint              plane);
/* The number of derived lines the model would have added but had no room
 * for (planes reserve room for PLANAR_DERIVED_TRACKS_MAX). 0 normally. */
guint    planar_trace_get_n_dropped_derived_lines  (PlanarTrace       *self);

G_END_DECLS
