/* planar-trace.h: one host's profile (one `.xplane.pb`), indexed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "planar-error.h"
#include "planar-string-table.h"

G_BEGIN_DECLS

/* All times in the model are signed 64-bit picoseconds since the start of the
 * profile (the `Task Environment` plane's profile_start_time), or, for a
 * file without one, since its earliest event. Durations are picoseconds. */

typedef enum
{
  /* The event started inside an open event of the track and ended after
   * it. It is drawn under the innermost open event that holds it whole, at
   * the depth of the outermost one it outlives (those deeper stay open
   * above it until they end), instead of nested in the one it started in,
   * and counted for the trace health report. */
  PLANAR_EVENT_OVERLAP = 1 << 0,
  /* The event's depth was clamped to G_MAXUINT16. */
  PLANAR_EVENT_DEPTH_CLAMPED = 1 << 1,
  /* Other events are nested directly inside it. */
  PLANAR_EVENT_HAS_CHILDREN = 1 << 2,
  /* Made by the model (a derived line's event, planar-derive.h): it has no
   * bytes in the file, and @source indexes the trace's table of derived
   * events instead of the file. */
  PLANAR_EVENT_DERIVED = 1 << 3,
} PlanarEventFlags;

/* One XEvent. Kept in flat per-track arrays; no object per event.
 * Its stats stay in the mapped file and are decoded on demand with
 * planar_trace_get_event_stats(). */
typedef struct
{
  gint64  start_ps;
  gint64  duration_ps;
  /* Index into the plane's metadata array. */
  guint32 metadata;
  guint16 depth;
  guint16 flags;
  /* Byte offset in the file of the XEvent's length prefix. */
  guint64 source;
} PlanarEvent;

G_STATIC_ASSERT (sizeof (PlanarEvent) == 32);

typedef enum
{
  PLANAR_STAT_NONE,
  PLANAR_STAT_INT64,
  PLANAR_STAT_UINT64,
  PLANAR_STAT_DOUBLE,
  /* str_value: v.str points into the mapped file, not NUL-terminated. */
  PLANAR_STAT_STRING,
  /* bytes_value: v.str points into the mapped file. */
  PLANAR_STAT_BYTES,
  /* ref_value, resolved: v.str is the interned (NUL-terminated) name of the
   * referenced stat metadata; v.ref keeps the raw reference. */
  PLANAR_STAT_REF,
} PlanarStatKind;

typedef struct
{
  /* Interned stat name; "" when the plane has no metadata for it (show
   * "#<metadata_id>" then). */
  const char     *name;
  gint64          metadata_id;
  PlanarStatKind  kind;
  /* Set when the value came from the event's metadata (a default). */
  gboolean        from_metadata;
  union {
    gint64  i64;
    guint64 u64;
    double  f64;
  } v;
  struct {
    const char *data;
    gsize       len;
  } str;
} PlanarStat;

typedef struct
{
  gint64      id;
  /* Interned. */
  const char *name;
  /* Interned: the XEventMetadata's display_name if set, else @name. */
  const char *display_name;
  /* Default stats for every event using this metadata, resolved. */
  PlanarStat *stats;
  guint       n_stats;
  /* One of XProf's internal events (MemoryAllocation, PrefetchProduce, ...,
   * docs/formats.md §2.4), which its trace viewer hides. Set once decoded. */
  gboolean    internal;
} PlanarEventMetadata;

/* One XLine exactly as in the file. */
typedef struct
{
  gint64      id;
  /* The file's display_id, or @id when unset. */
  gint64      display_id;
  /* Interned. */
  const char *name;
  /* Interned: display_name if set, else @name. */
  const char *display_name;
  gint64      timestamp_ns;
  gint64      duration_ps;
  /* XEvents in the line, aggregated ones included. */
  guint64     n_events;
  /* Index of the track holding its events in the plane. */
  guint       track;
  /* Added by the model (not in the file); not counted in totals. */
  gboolean    derived;
  /* Byte range of the XLine message in the file. */
  guint64     offset;
  guint64     size;
} PlanarLine;

/* A timeline: every line of a plane with the same id, merged. */
typedef struct
{
  gint64       id;
  gint64       display_id;
  /* Interned, from the first line with this id. */
  const char  *name;
  const char  *display_name;
  /* Tracks of a plane sharing a display_id share a row; rows are numbered
   * from 0 in the order their first line appears in the file. */
  guint        row;
  /* Sorted by (start, longer first). */
  PlanarEvent *events;
  gsize        n_events;
  /* Events with num_occurrences instead of an offset; not on the timeline. */
  PlanarEvent *aggregated;
  gsize        n_aggregated;
  guint        max_depth;
  guint64      n_overlaps;
  /* Span of @events; start > end when empty. */
  gint64       start_ps;
  gint64       end_ps;
  gboolean     derived;
  /* Built at load for planar_track_query_spans() and friends: the events'
   * indices grouped by depth (NULL when every event is at depth 0), each
   * group in start order, and where each depth's group begins. */
  guint32     *depth_order;
  gsize       *depth_offsets;
  /* Per depth: whether the group's ends never decrease (what a binary
   * search by end needs); FALSE only for damaged or clamped nestings. */
  gboolean    *depth_ends_sorted;
  /* The start of each event in @depth_order's order (the track's order
   * when that is NULL), contiguous, so that galloping over a pixel
   * column's events touches 8 bytes an event, not a 32-byte record
   * through an index. */
  gint64      *depth_starts;
  /* Each depth group's directory by time (built and read by
   * planar-span-index.c): the ranks of evenly spaced times, so that a
   * query finds a pixel column's last event among a few neighbours
   * instead of searching the group. NULL until the track is indexed. */
  gpointer     depth_cells;
  /* (index, ps of direct children) for each event with children, by index. */
  struct {
    guint64 index;
    gint64  children_ps;
  }           *children;
  gsize        n_children;
  /* For a derived track: the index in the plane of the stream track its
   * events come from (the viewer shows it right after that one), or
   * G_MAXUINT when it comes from the whole plane (Steps, Launch Stats, TPU
   * lines). Unused for the file's tracks. */
  guint        source_track;
} PlanarTrack;

typedef struct
{
  gint64               id;
  /* Interned. */
  const char          *name;
  PlanarLine          *lines;
  guint                n_lines;
  PlanarTrack         *tracks;
  guint                n_tracks;
  /* Entry 0 stands for metadata ids the plane does not define. */
  PlanarEventMetadata *metadata;
  guint                n_metadata;
  /* Plane-level stats, resolved. */
  PlanarStat          *stats;
  guint                n_stats;
  /* XEvents of the plane's own lines, aggregated ones included. */
  guint64              n_events;
  guint                n_rows;
} PlanarPlane;

/* One event by position, the one reference to an event everywhere (the
 * derived sources, flows, a find's hits, the selection): event @index of
 * the events of track @track of plane @plane (never an aggregated event),
 * on host @trace of a profile. A trace's own functions leave @trace 0 and
 * ignore it; a profile's (and the view's) set it to the host's index.
 * Twelve bytes, as the derived sources and flows store (and cache) one per
 * event: a trace has fewer than PLANAR_EVENT_REF_NONE planes (its reader
 * refuses more), a profile fewer hosts. */
typedef struct
{
  guint16 plane;
  guint16 trace;
  guint32 track;
  guint32 index;
} PlanarEventRef;

G_STATIC_ASSERT (sizeof (PlanarEventRef) == 12);

/* PlanarEventRef.plane of "no event". */
#define PLANAR_EVENT_REF_NONE G_MAXUINT16

static inline gboolean
planar_event_ref_is_none (const PlanarEventRef *ref)
{
  return ref->plane == PLANAR_EVENT_REF_NONE;
}

/* Orders refs by host, plane, track, then event index (which is start
 * order within a track). */
static inline int
planar_event_ref_compare (const PlanarEventRef *a,
                          const PlanarEventRef *b)
{
  if (a->trace != b->trace)
    return a->trace < b->trace ? -1 : 1;
  if (a->plane != b->plane)
    return a->plane < b->plane ? -1 : 1;
  if (a->track != b->track)
    return a->track < b->track ? -1 : 1;
  if (a->index != b->index)
    return a->index < b->index ? -1 : 1;
  return 0;
}

static inline gboolean
planar_event_ref_equal (const PlanarEventRef *a,
                        const PlanarEventRef *b)
{
  return planar_event_ref_compare (a, b) == 0;
}

#define PLANAR_TYPE_TRACE (planar_trace_get_type ())
G_DECLARE_FINAL_TYPE (PlanarTrace, planar_trace, PLANAR, TRACE, GObject)

/* Maps @path, an XSpace (`.xplane.pb`), and scans its structure (planes,
 * metadata, line ranges, the Task Environment) without decoding events.
 * Cheap: a profile opens every host this way first to align them. Chrome
 * JSON and the decode steps (lines, derived lines, the cached index) are
 * the loader's (planar-trace-loader.h: planar_trace_load()). Returns:
 * (transfer full). */
PlanarTrace         *planar_trace_open                  (const char     *path,
                                                         GError        **error);
/* Places the host in its session: @offset_ps is added to every time while
 * decoding (ignored for a file without a profile start, which is placed
 * with its earliest event at 0). Call before the trace is decoded. */
gboolean             planar_trace_set_time_offset       (PlanarTrace    *self,
                                                         gint64          offset_ps);
/* Adds @delta_ps to every event time of a decoded trace. Not safe while
 * other threads read the trace. */
gboolean             planar_trace_shift_time            (PlanarTrace    *self,
                                                         gint64          delta_ps,
                                                         GError        **error);

const char          *planar_trace_get_path              (PlanarTrace    *self);
/* The file's base name, e.g. "host0.xplane.pb". */
const char          *planar_trace_get_file_name         (PlanarTrace    *self);
/* The host as the file names it (base name less ".xplane.pb"). */
const char          *planar_trace_get_host_name         (PlanarTrace    *self);
guint64              planar_trace_get_file_size         (PlanarTrace    *self);
/* XSpace.hostnames, errors and warnings. Returns: (transfer none). */
const char * const  *planar_trace_get_hostnames         (PlanarTrace    *self);
const char * const  *planar_trace_get_errors            (PlanarTrace    *self);
const char * const  *planar_trace_get_warnings          (PlanarTrace    *self);
/* The Task Environment's profile_start_time, in wall-clock nanoseconds. */
gboolean             planar_trace_get_profile_start_time (PlanarTrace   *self,
                                                          guint64       *start_ns);
/* The wall-clock window (ns) the file covers as far as its structure
 * tells, known once it is opened: its Task Environment's start to stop
 * time, widened to its lines' timestamps. FALSE without a start time. */
gboolean             planar_trace_get_time_window       (PlanarTrace   *self,
                                                         guint64       *start_ns,
                                                         guint64       *end_ns);
/* A file cut short (a crashed capture, an interrupted copy) opens with the
 * planes and lines that are whole before the cut. Returns: (nullable): one
 * sentence for people saying what was lost ("the file ends early: ..."),
 * or NULL when the file was read whole; @detail (optional) receives the
 * technical detail ("length past the end of XSpace at byte N of F"). */
const char          *planar_trace_get_damage            (PlanarTrace   *self,
                                                         const char   **detail);
/* TRUE when the file has no profile_start_time and its time 0 is its
 * earliest event instead. */
gboolean             planar_trace_is_aligned_at_earliest_event (PlanarTrace *self);

guint                planar_trace_get_n_planes          (PlanarTrace    *self);
/* Returns: (transfer none). */
const PlanarPlane   *planar_trace_get_plane             (PlanarTrace    *self,
                                                         guint           index);
const PlanarPlane   *planar_trace_find_plane            (PlanarTrace    *self,
                                                         const char     *name);
/* The track whose name or display name is @name. */
const PlanarTrack   *planar_plane_find_track            (const PlanarPlane *plane,
                                                         const char        *name);
/* Every XEvent of the file's lines, aggregated ones and counter samples
 * included. */
guint64              planar_trace_get_n_events          (PlanarTrace    *self);
guint64              planar_trace_get_n_overlaps        (PlanarTrace    *self);
/* First start and last end of all non-aggregated events, in ps. Returns
 * FALSE when the trace has none. */
gboolean             planar_trace_get_span              (PlanarTrace    *self,
                                                         gint64         *first_ps,
                                                         gint64         *last_ps);
/* Fraction of the line bytes decoded so far, 0 to 1. Any thread. */
double               planar_trace_get_fraction          (PlanarTrace    *self);
/* Whether the track's events are in place. Any thread. */
gboolean             planar_trace_is_track_ready        (PlanarTrace    *self,
                                                         guint           plane,
                                                         guint           track);
gboolean             planar_trace_is_decoded            (PlanarTrace    *self);
/* Whether the file changed on disk since it was opened: a read of the
 * mapping found it cut (the pages past its new end read as zeros instead of
 * crashing; see docs/loader.md), or its size or modification time is no
 * longer the one seen at the open. What the trace answers after that is not
 * to be trusted: reload the file. Cheap (an fstat() and a stat()); any
 * thread. */
gboolean             planar_trace_has_changed           (PlanarTrace    *self);
/* What an import of Chrome JSON found (planar-import.h); NULL for an
 * XSpace. */
typedef struct _PlanarImportReport PlanarImportReport;
const PlanarImportReport *planar_trace_get_import_report (PlanarTrace *trace);
/* Returns: (transfer none): the strings every name in the trace points to. */
PlanarStringTable   *planar_trace_get_strings           (PlanarTrace    *self);

/* Appends the event's stats to @out (a GArray of PlanarStat): its metadata's
 * stats first, then the event's own, an event stat replacing a metadata stat
 * of the same name. String values point into the mapped file, valid while
 * @self lives. A damaged stat is skipped and counted (see
 * planar_trace_get_n_damaged_stats()). Returns the number appended;
 * FALSE-like 0 with @error set if the event itself cannot be read, or
 * PLANAR_TRACE_ERROR_CHANGED when the file was found cut (by this read or
 * an earlier one: see planar_trace_has_changed()), which a caller that
 * skips damaged stats must not skip. */
guint                planar_trace_get_event_stats       (PlanarTrace       *self,
                                                         const PlanarPlane *plane,
                                                         const PlanarEvent *event,
                                                         GArray            *out,
                                                         GError           **error);
/* An event stat whose own bytes cannot be decoded (a damaged XStat inside
 * a sound XEvent) is skipped by planar_trace_get_event_stats() and by the
 * search, and counted here, so that a reader can say the profile was read
 * with losses.
 *
 * The number known without reading more: every damaged stat once
 * planar_trace_count_damaged_stats() ran, else the distinct ones the reads
 * so far have met. @first (optional) receives (transfer full) where the
 * first one is, a sentence like "malformed varint in XStat at byte 1234 of
 * host.xplane.pb", or %NULL when there is none. Any thread. */
guint64              planar_trace_get_n_damaged_stats   (PlanarTrace       *self,
                                                         char             **first);
/* Reads the stats of every event of the file, the first time only (it takes
 * about as long as reading the file's lines), and returns how many are
 * damaged, with @first as above. Any thread. */
guint64              planar_trace_count_damaged_stats   (PlanarTrace       *self,
                                                         char             **first);

/* The event's name (display name when @display is TRUE). Interned. */
const char          *planar_plane_get_event_name        (const PlanarPlane *plane,
                                                         const PlanarEvent *event,
                                                         gboolean           display);

/* Formats a stat value for people and JSON: numbers in decimal, strings as
 * they are, bytes as "<N bytes>". Returns: (transfer full). */
char                *planar_stat_format_value           (const PlanarStat  *stat);

G_END_DECLS
