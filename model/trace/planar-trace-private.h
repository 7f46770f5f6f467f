/* planar-trace-private.h: what the loader, the stat decoder and the trace
 * object share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-hash-private.h"
#include "planar-mapping-private.h"
#include "planar-spill.h"
#include "planar-trace.h"
#include "planar-wire.h"

G_BEGIN_DECLS

/* The loader's view of a load, phase by phase (each one a word the
 * loader shows: session/planar-trace-loader.c). */
typedef enum
{
  PLANAR_LOAD_PHASE_NONE,
  PLANAR_LOAD_PHASE_READING_STRUCTURE,
  PLANAR_LOAD_PHASE_DECODING_LINES,
  PLANAR_LOAD_PHASE_DERIVING_LINES,
  PLANAR_LOAD_PHASE_LINKING_FLOWS,
  PLANAR_LOAD_PHASE_RESTORING_CACHE,
  PLANAR_LOAD_PHASE_READING_HLO,
} PlanarLoadPhase;

/* Told, on any thread, that the load is in @phase (PLANAR_LOAD_PHASE_NONE:
 * the same as before) and, with @tracks_changed, that tracks were
 * published. It must be quick: workers call it as they go. */
typedef void (*PlanarTraceProgressFunc) (PlanarTrace     *trace,
                                         PlanarLoadPhase  phase,
                                         gboolean         tracks_changed,
                                         gpointer         data);

/* Maps the 64-bit ids a plane hands out to dense indices. Builders number
 * metadata 1, 2, 3…, so a direct table is the common case; a hash table
 * takes over when the ids are sparse. */
typedef struct
{
  /* Direct table: index + 1 for id, 0 when absent. */
  guint32    *direct;
  gsize       n_direct;
  /* Fallback: id -> index + 1. */
  GHashTable *sparse;
} PlanarIdMap;

/* Maps ids[i] to first_index + i; a later duplicate id wins. */
void     _planar_id_map_init    (PlanarIdMap  *map,
                                 const gint64 *ids,
                                 guint         n_ids,
                                 guint         first_index);
void     _planar_id_map_clear   (PlanarIdMap  *map);

/* _planar_trace_steps, _planar_id_hash() and _planar_id_equal() are in
 * planar-hash-private.h (model/base); the structure scan and the planning
 * of tracks add the steps they took to their trace, once a plane, and the
 * derive pass once a job (_planar_trace_get_steps()). */

/* Returns the index of @id, or -1. */
static inline gint64
_planar_id_map_lookup (const PlanarIdMap *map,
                       gint64             id)
{
  if (id >= 0 && (guint64) id < map->n_direct)
    return (gint64) map->direct[id] - 1;
  if (map->sparse != NULL)
    {
      gpointer v = g_hash_table_lookup (map->sparse, &id);
      return v ? (gint64) GPOINTER_TO_SIZE (v) - 1 : -1;
    }
  return -1;
}

typedef struct
{
  gint64      id;
  /* Interned. */
  const char *name;
} PlanarStatMetadata;

typedef struct
{
  PlanarStatMetadata *stat_metadata;
  guint               n_stat_metadata;
  PlanarIdMap         stat_map;
  PlanarIdMap         event_map;
  /* Byte ranges of the plane's XLine payloads, in file order. */
  guint64            *line_offsets;
  guint64            *line_sizes;
  /* planar-cache.c: XXH3-128 of each XLine's bytes (two words a line),
   * set as the line is decoded or its cached index checked. */
  guint64            *line_hashes;
  /* Line timestamps read by the structure scan, used to pick the time base. */
  gint64             *line_timestamps;
  /* Room allocated in the plane's tracks and lines arrays (derived ones are
   * appended there, see PLANAR_DERIVED_TRACKS_MAX). */
  guint               tracks_capacity;
  guint               lines_capacity;
  /* The plane's own metadata, lines, tracks and rows; the derived ones
   * follow them. Set when the tracks are planned. */
  guint               n_file_metadata;
  guint               n_file_lines;
  guint               n_file_tracks;
  guint               n_file_rows;
} PlanarPlanePrivate;

/* What the model derives from the file's events (derived event sources,
 * dropped-line count, flow index, counter series): the derive layer
 * defines it (derive/planar-derived-results-private.h) and the trace, which
 * cannot see that layer, holds it through this table. */
typedef struct _PlanarDerivedResults PlanarDerivedResults;
typedef struct
{
  /* Frees @results with the trace. */
  void (*free)            (PlanarDerivedResults *results);
  /* Appends the stats the model recorded for the derived @event of
   * @trace (planar_trace_get_event_stats()) to @out, replacing those of
   * the same name at or after @first. Any thread. */
  void (*add_event_stats) (PlanarDerivedResults *results,
                           PlanarTrace          *trace,
                           const PlanarEvent    *event,
                           GArray               *out,
                           guint                 first);
} PlanarDerivedResultsVTable;

/* Lines of at least this many bytes, and at least a (2 x workers)th of the
 * file's lines, are decoded in pieces (planar-trace-split.c). */
#define PLANAR_SPLIT_MIN (G_GUINT64_CONSTANT (16) << 20)

/* For tests: what one load does differently from the others, which the
 * loader carries to its trace (_planar_trace_loader_set_test_options(),
 * planar-trace-loader-private.h). Nothing process-wide. */
typedef struct
{
  /* Called at the fixed points of planar-mapping-private.h, instead of
   * what PLANAR_TEST_CHANGE_AT says; NULL: that. */
  PlanarMappingTestHook test_hook;
  gpointer              test_hook_data;
  /* A PlanarSpillMode, or -1: as the file's size (and PLANAR_SPILL) say. */
  gint                  spill;
  /* Bytes of the index that stay in memory when it spills (the first
   * planes' in the timeline's order); 0 or -1: none, as in every load that
   * sets no test options (docs/loader.md, "The first frame", says why).
   * Only with @spill set. */
  gint64                first_heap;
  /* Bytes from which every line is decoded in pieces, whatever its share
   * of the file and the workers (planar-trace-split.c), and every plane's
   * tracks built side by side (planar-trace-decode.c); 0 or less: as the
   * file says, from PLANAR_SPLIT_MIN. */
  gint64                split_min;
} PlanarTraceTestOptions;

/* Derived lines a device plane can receive: XProf derives at most 16
 * streams x 6 lines plus Steps and Launch Stats; TPU planes fewer (three,
 * and up to PLANAR_HOST_OFFLOAD_ROWS_MAX Host Offload rows). */
#define PLANAR_DERIVED_TRACKS_MAX 128
/* The Host Offload rows of a TPU plane: XProf's 41 line ids. */
#define PLANAR_HOST_OFFLOAD_ROWS_MAX 41
/* Derived lines a `/host:CPU` plane can receive: three XLA:CPU lines per
 * thread, in XProf's room of 240 line ids. */
#define PLANAR_DERIVED_HOST_TRACKS_MAX 240

struct _PlanarTrace
{
  GObject             parent_instance;

  char               *path;
  char               *file_name;
  char               *host_name;
  GMappedFile        *mapped;
  /* @mapped's registration with the SIGBUS guard (planar-mapping.h): it
   * says whether a read found the file cut. */
  struct _PlanarMapping *guard;
  /* The file, open while the trace lives: planar_trace_has_changed()
   * compares its size and mtime with those seen at the open. */
  int                 fd;
  const guint8       *data;
  gsize               size;
  /* The file's own size: @size is that of the XSpace read, which an import
   * made from the file. */
  guint64             file_size;
  /* The file's modification time when it was opened (ns since the epoch),
   * part of its cached index's key. */
  gint64              source_mtime_ns;

  PlanarStringTable  *strings;
  /* Guards @strings while workers intern line names. */
  GMutex              strings_lock;

  PlanarPlane        *planes;
  PlanarPlanePrivate *planes_priv;
  guint               n_planes;

  GStrv               hostnames;
  GStrv               errors;
  GStrv               warnings;

  gboolean            has_start_time;
  guint64             profile_start_ns;
  /* The wall-clock window the file covers as its structure tells: from the
   * profile start to its stop time, widened to the lines' timestamps. Set
   * with @has_start_time (planar_trace_get_time_window()). */
  guint64             window_start_ns;
  guint64             window_end_ns;
  /* A file cut short or damaged past some point: what was lost, for people
   * and in technical terms (planar_trace_get_damage()); NULL when whole. */
  char               *damage;
  char               *damage_detail;
  /* Lines at or past this many ns are wall-clock and rebased by this. */
  gboolean            has_epoch_base;
  gint64              epoch_base_ns;
  gboolean            aligned_at_earliest_event;
  /* Added to every time while decoding: the host's place in its session. */
  gint64              time_offset_ps;

  /* Whether the index's large arrays go to file-backed memory
   * (planar-spill.h): set for large files by the structure scan, unless
   * @test_options say otherwise. Even then the decoder keeps the first
   * @first_heap bytes of the index in memory, those of the planes the
   * timeline shows first: 0 but for a test's or a benchmark's load
   * (docs/loader.md, "The first frame"). */
  PlanarSpillMode     spill;
  guint64             first_heap;
  /* Lines of at least this many bytes may be decoded in pieces
   * (planar-trace-split.c), and how many were (atomic; for tests). */
  guint64             split_min;
  guint               n_split_lines;
  /* When the index spills: bytes of the tracks' depth index (the starts
   * and the order by depth, which a frame reads for every pixel column)
   * that may still stay in memory (atomic; half the file where @spill is
   * PLANAR_SPILL_LARGE, else 0; docs/loader.md "Profiles larger than
   * memory"). */
  gint64              depth_heap_left;

  /* Memory the index may take, and what the structure has claimed of it. */
  guint64             memory_budget;
  guint64             memory_claimed;

  guint64             line_bytes_total;
  /* Bytes of lines decoded so far (atomic). */
  gint64              line_bytes_done;
  /* Per plane, per track: 1 once the track is in place (atomic). */
  gint              **track_ready;
  gint                decoded;

  guint64             n_events;
  guint64             n_overlaps;
  gboolean            has_span;
  gint64              first_ps;
  gint64              last_ps;

  /* What the model derives from the file's events, owned by the trace
   * and reached only through @derived_vtable (see PlanarDerivedResults);
   * NULL until the derive layer attaches it (atomic). */
  PlanarDerivedResults             *derived;
  const PlanarDerivedResultsVTable *derived_vtable;

  /* Metadata arrays replaced by bigger ones while readers may hold them
   * (planar-derive.c adds derived metadata to planes whose file tracks are
   * already published); freed with the trace. */
  GPtrArray                *retired_metadata;

  /* What an import of Chrome JSON found (NULL for an xplane), and how it
   * is freed: set by the loader's open step (_planar_trace_take_import()). */
  struct _PlanarImportReport *import_report;
  GDestroyNotify              import_report_free;

  /* Set by the loader: the decoder hashes each line it reads into
   * PlanarPlanePrivate.line_hashes (the cached index's key). */
  gboolean                    hash_lines;
  /* Set by the loader (planar_trace_loader_set_count_stats()): the decoder
   * checks every event stat as it reads the events, and a decode that
   * succeeds leaves the count planar_trace_count_damaged_stats() would
   * make. */
  gboolean                    count_stats;

  /* Set by the loader (its derive-budget and derive-max-tracks-per-plane
   * properties), read by the derive pass: the bytes derived events may
   * take (-1: as the file's size allows) and the derived tracks a plane
   * may get (G_MAXUINT: as many as it has room for). */
  gint64                      derive_budget;
  guint                       derive_max_tracks_per_plane;

  /* Set by the loader, before the structure scan (all -1/NULL: none). */
  PlanarTraceTestOptions      test_options;
  /* Set when the index came from the cached one (planar-cache-private.h). */
  gboolean                    restored;

  /* For tests: the steps (_planar_trace_steps) the structure scan, the
   * planning of tracks and the derive pass took (_planar_trace_get_steps();
   * atomic). */
  guint64                     steps;

  /* Set by the loader: told of progress from any thread. */
  PlanarTraceProgressFunc     progress_func;
  gpointer                    progress_data;

  /* planar-trace-stats.c: the event stats found damaged and skipped (NULL
   * while none), under that file's lock. */
  struct _PlanarStatDamage   *stat_damage;

  /* planar-trace-hlo.c: the HLO of `/host:metadata` (NULL until read;
   * set once, atomically, then read-only), the sentences saying which
   * HloProtos were damaged and left out, and whether they were read. */
  struct _PlanarHloIndex     *hlo_index;
  GStrv                       hlo_errors;
  gboolean                    hlo_read;
};

/* Records @n as the count of every damaged stat of the file's lines, the
 * first of them at byte @first_offset for @first_reason (when @n > 0), as
 * planar_trace_count_damaged_stats() does once it has counted. Any thread. */
void _planar_trace_set_damaged_count (PlanarTrace *self,
                                      guint64      n,
                                      guint64      first_offset,
                                      const char  *first_reason);

/* Decodes one XStat payload into @stat, resolving its name and ref value
 * through @ppriv. Returns FALSE on malformed input, with @r's error fields
 * saying where and why. With @stat NULL, only checks the payload. */
gboolean _planar_trace_decode_stat (PlanarTrace              *self,
                                    const PlanarPlanePrivate *ppriv,
                                    PlanarWireReader         *r,
                                    const guint8             *payload,
                                    gsize                     len,
                                    PlanarStat               *stat);

/* When a read of the mapping found the file cut, or (@check_file) the
 * file's size or mtime differ from those at the open: sets
 * PLANAR_TRACE_ERROR_CHANGED (replacing an error already in @error, which a
 * cut file explains) and returns TRUE. */
gboolean _planar_trace_check_changed (PlanarTrace  *self,
                                      gboolean      check_file,
                                      GError      **error);

/* Records that the XStat at byte @offset of the file could not be decoded
 * (@reason: static, as PlanarWireReader gives it) and was skipped. Any
 * thread. */
void     _planar_trace_note_damaged_stat (PlanarTrace  *self,
                                          guint64       offset,
                                          const char   *reason);
typedef struct _PlanarStatDamage PlanarStatDamage;
void     _planar_stat_damage_free        (PlanarStatDamage *damage);

/* Reads the XSpace's structure (see planar_trace_open()). */
gboolean _planar_trace_scan        (PlanarTrace  *self,
                                    GError      **error);
/* For tests: the steps (_planar_trace_steps) the load of @self took to
 * map its planes' ids, to decode and dedupe the stats of its planes and
 * event metadata (the structure scan), to group its lines into tracks
 * by their ids and to derive lines from the ids its stats carry (group
 * ids, scope ranges): the work a file of many stats or ids makes, which must
 * grow with their number, not its square. */
guint64  _planar_trace_get_steps   (PlanarTrace *self);
void     _planar_trace_free_planes (PlanarTrace  *self);
/* Makes @metadata (@n_metadata entries, the plane's own first) the
 * metadata of @plane, a plane readers may be drawing: the array and then
 * its count in one store each, the old array kept until the trace goes
 * (its entries' stats stay, the new array's). */
void     _planar_trace_replace_metadata (PlanarTrace         *self,
                                         PlanarPlane         *plane,
                                         PlanarEventMetadata *metadata,
                                         guint                n_metadata);
/* Frees what plane @p holds and zeroes it (the planes array stays). */
void     _planar_trace_clear_plane (PlanarTrace  *self,
                                    guint         p);
/* Whether the index of an XSpace of @size bytes goes to file-backed
 * memory: its large blocks do from PLANAR_SPILL_FILE_MIN up (past it the
 * index, about three times the file, can be more than a workstation gives
 * a viewer, and a large profile's anonymous memory stays under the file's
 * size). Leaving it on the heap while the system's available memory holds
 * it (PLANAR_SPILL_WHEN_SHORT) loads a 10^8-event profile faster but with
 * about 2.3 times the file in anonymous memory; it is not the default.
 *
 * For tests: the environment variable PLANAR_SPILL, read once per process,
 * decides instead ("0" never, "1" the large blocks, "all" every block,
 * "short" the large blocks while memory is short): the
 * load benchmark sets it for the child processes it times, which nothing
 * else reaches. In-process tests set it per load instead (the loader's
 * _planar_trace_loader_set_spill(), planar-trace-loader-private.h). */
#define PLANAR_SPILL_FILE_MIN ((guint64) 1 << 30)
PlanarSpillMode _planar_trace_wants_spill (guint64 size);
/* Frees a track's events and indices (planar_spill_free() blocks), leaving
 * its header. */
void     _planar_track_clear_arrays (PlanarTrack *track);
/* The whole of the text [@s, @s + @len) as a decimal integer of at most
 * 64 bits, a "-" in front allowed when @negative (the value then as its
 * two's complement); FALSE for anything else, spaces and signs included.
 * Ids written as text: XProf's trace viewer JSON writes every arg so. */
gboolean _planar_decimal_text      (const char *s,
                                    gsize       len,
                                    gboolean    negative,
                                    guint64    *value);
/* Appends @stat to @out, or replaces the stat of the same name at or after
 * @first. @seen starts as NULL and is a table the caller frees. */
void     _planar_stats_add         (GArray            *out,
                                    guint              first,
                                    const PlanarStat  *stat,
                                    GHashTable       **seen);
/* Decodes every line on the model's worker pool and builds the file's
 * tracks, publishing each as it is built; nothing derived, nothing cached
 * (the loader's "Decoding lines" step). */
gboolean _planar_trace_decode_lines (PlanarTrace   *self,
                                     GCancellable  *cancellable,
                                     GError       **error);
/* The same for the planes @planes marks (NULL: every plane), published in
 * the timeline's order; a file with a profile start only. Called again for
 * the other planes, it keeps what the first call published. Decoding in
 * parts, count no damaged stats (PlanarTrace.count_stats): each call would
 * record its own part's count as the whole. */
gboolean _planar_trace_decode_planes (PlanarTrace    *self,
                                      const gboolean *planes,
                                      GCancellable   *cancellable,
                                      GError        **error);
/* Marks every track ready (derived ones included) and says so. */
void     _planar_trace_publish_tracks (PlanarTrace *self);
/* The end of a decode: totals, span, and the trace marked decoded. */
void     _planar_trace_finish_decode (PlanarTrace *self);
/* Groups plane @p's lines (their fields set) into tracks as the decoder
 * does, leaving room for derived ones; no events yet. The trace's
 * track_ready table must exist. */
void     _planar_trace_plan_tracks_plane (PlanarTrace *self,
                                          guint        p);
/* The planes' indices in the timeline's order of sections (what it shows
 * first, first). Returns: (transfer full): @self's n_planes of them. */
guint   *_planar_trace_display_order (PlanarTrace *self);
/* Decodes plane @p's file track @t again from the file, alone (the lines
 * planned, the trace with a profile start time). */
gboolean _planar_trace_decode_track  (PlanarTrace  *self,
                                      guint         p,
                                      guint         t,
                                      GError      **error);
/* Builds a track's depth index and span from its sorted, nested events. */
gboolean _planar_trace_index_track   (PlanarTrace  *self,
                                      PlanarTrack  *track,
                                      GError      **error);
/* Where serialized bytes go (the cache writer's compressor). */
typedef void (*PlanarByteSink) (gpointer      data,
                                const void   *bytes,
                                gsize         len);
/* Where they come back from (the cache reader's decompressor): fills
 * @dest with the next @len bytes; FALSE when they are not there. */
typedef gboolean (*PlanarByteSource) (gpointer  data,
                                      void     *dest,
                                      gsize     len);

/* Sorts, nests and indexes a track built outside the decoder (a derived
 * one), setting its span. */
gboolean _planar_trace_finish_track (PlanarTrace  *self,
                                     PlanarTrack  *track,
                                     GError      **error);

/* The trace's derived results, or NULL while none is attached. Any
 * thread. */
PlanarDerivedResults *_planar_trace_get_derived (PlanarTrace *self);
/* Gives @self @results, freed with it through @vtable, unless it has some
 * already: returns those it holds afterwards (@results freed when they
 * lost). Any thread. */
PlanarDerivedResults *_planar_trace_attach_derived (PlanarTrace                      *self,
                                                    PlanarDerivedResults             *results,
                                                    const PlanarDerivedResultsVTable *vtable);

/* Set before the load starts; NULL removes it. */
void     _planar_trace_set_progress_func (PlanarTrace             *self,
                                          PlanarTraceProgressFunc  func,
                                          gpointer                 data);
/* Any thread. */
void     _planar_trace_report_progress   (PlanarTrace     *self,
                                          PlanarLoadPhase  phase,
                                          gboolean         tracks_changed);

/* The open, in steps, for the loader: a trace with @path mapped (a regular
 * file, never waited on), nothing read yet, with @test_options (NULL: none,
 * planar-trace-loader-private.h)... */
PlanarTrace *_planar_trace_new_mapped    (const char                   *path,
                                          const PlanarTraceTestOptions *test_options,
                                          GError                      **error);
/* ...whose bytes are replaced by the XSpace an import made (@mapped taken),
 * with what the import found (@report, freed with @report_free)... */
void     _planar_trace_take_import       (PlanarTrace    *self,
                                          GMappedFile    *mapped,
                                          gpointer        report,
                                          GDestroyNotify  report_free);
/* ...and whose structure is then scanned. FALSE with
 * PLANAR_TRACE_ERROR_CHANGED when the file changed meanwhile. */
gboolean _planar_trace_open_mapped       (PlanarTrace    *self,
                                          GError        **error);
/* planar_trace_open() with @test_options (NULL: none). */
PlanarTrace *_planar_trace_open_with     (const char                   *path,
                                          const PlanarTraceTestOptions *test_options,
                                          GError                      **error);

/* For tests: fixed point @point of a load of @self reached, about @path
 * (planar-mapping-private.h): the trace's test hook is told, or else
 * PLANAR_TEST_CHANGE_AT acts. Any thread. */
void     _planar_trace_test_point        (PlanarTrace    *self,
                                          const char     *point,
                                          const char     *path);
/* How many of the file's lines the decode read in pieces (for tests). */
guint    _planar_trace_get_n_split_lines (PlanarTrace    *self);
/* For tests: from how many events a track's depth index is built in parts
 * side by side (0: the default, 2^20), in how many (0: one per thread of
 * the pool), and how many tracks' were, in the process. */
void     _planar_trace_set_depth_index_parts     (gsize n_events,
                                                  guint n_parts);
guint    _planar_trace_get_n_parted_depth_indices (void);

/* planar-trace-hlo.c: decodes the HloProtos of `/host:metadata` into
 * @self's HLO index (the loader's "Reading HLO"), once; damaged ones are
 * noted in hlo_errors and skipped. FALSE only when cancelled. Frees it
 * with the trace: _planar_trace_clear_hlo(). */
gboolean _planar_trace_read_hlo  (PlanarTrace   *self,
                                  GCancellable  *cancellable,
                                  GError       **error);
void     _planar_trace_clear_hlo (PlanarTrace   *self);

G_END_DECLS
