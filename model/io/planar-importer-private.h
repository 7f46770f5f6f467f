/* planar-importer-private.h: what the Chrome JSON importer's parts share.
 *
 * The import runs in three parts, one file each:
 *  - planar-import-json.c: yajl's callbacks, which follow the document's
 *    nesting and gather each trace event's fields into a PlanarImportRecord;
 *  - planar-import-records.c: each record, as it ends, becomes entries
 *    (events, B/E marks, flow records, process and thread names) with its
 *    args in a compact encoding of their own; B/E marks are paired once
 *    everything is read;
 *  - planar-import-encode.c: the events in order, flows bound to them,
 *    written with the model's XSpace writer plane by plane.
 * planar-import.c holds the entry points and the importer's life.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "planar-import-private.h"

G_BEGIN_DECLS

/* Times are kept relative to the first one read, in ps; this is how far
 * from it an event may be (about 106 days). */
#define PLANAR_IMPORT_MAX_SPAN_PS G_GINT64_CONSTANT (9000000000000000000)

/* One event of the XSpace to write. */
typedef struct
{
  gint64  ts_ps;
  gint64  dur_ps;
  guint32 name;
  guint32 line;
  guint64 args_at;
  guint32 args_len;
  /* The record that opened the event (a "B"'s for a B/E pair), with
   * PLANAR_IMPORT_SEQ_PAIR set for a B/E pair: events that start together
   * and last as long nest "X" first, then in file order. */
  guint32 seq;
} PlanarImportEvent;

#define PLANAR_IMPORT_SEQ_PAIR (1u << 31)
/* Records past this are refused: their number would reach the bit. */
#define PLANAR_IMPORT_MAX_RECORDS ((guint64) PLANAR_IMPORT_SEQ_PAIR - 1)

G_STATIC_ASSERT (sizeof (PlanarImportEvent) == 40);

/* A "B" or an "E", paired once every record is read (Perfetto pairs them
 * in time order, not file order). */
typedef struct
{
  gint64  ts_ps;
  guint64 args_at;
  guint32 args_len;
  guint32 seq;
  guint32 line;
  /* Interned in the names table; 0 when an "E" gave none. */
  guint32 name;
  guint32 cat;
  gboolean is_end;
} PlanarImportMark;

/* A flow stat to add to an event when it is written. */
typedef struct
{
  guint32 event;
  guint32 pad;
  guint64 value;
} PlanarImportFlowStat;

/* A flow v1 record, bound to a slice once every event is known. */
typedef struct
{
  guint64 id;
  gint64  ts_ps;
  guint32 line;
  /* 1 in, 2 out, 3 both. */
  guint8  direction;
  /* Bound to the enclosing slice (else the next one to start). */
  guint8  enclosing;
  guint8  category;
} PlanarImportFlowRecord;

typedef struct
{
  char     *key;
  char     *name;
  /* process_labels ("GPU 0" from Kineto). */
  char     *labels;
  gint64    sort_index;
  gboolean  has_sort_index;
  guint     first_seen;
} PlanarImportProcess;

typedef struct
{
  char     *key;
  guint     process;
  char     *tid;
  char     *name;
  gint64    sort_index;
  gboolean  has_sort_index;
  /* The `_counters_` line or the global instants: named by the importer,
   * drawn after the threads. */
  gboolean  special;
} PlanarImportThread;

/* The fields of a trace event the importer reads. */
typedef enum
{
  PLANAR_IMPORT_FIELD_NONE,
  PLANAR_IMPORT_FIELD_PH,
  PLANAR_IMPORT_FIELD_NAME,
  PLANAR_IMPORT_FIELD_CAT,
  PLANAR_IMPORT_FIELD_PID,
  PLANAR_IMPORT_FIELD_TID,
  PLANAR_IMPORT_FIELD_TS,
  PLANAR_IMPORT_FIELD_DUR,
  PLANAR_IMPORT_FIELD_ID,
  PLANAR_IMPORT_FIELD_BIND_ID,
  PLANAR_IMPORT_FIELD_FLOW_IN,
  PLANAR_IMPORT_FIELD_FLOW_OUT,
  PLANAR_IMPORT_FIELD_BP,
  PLANAR_IMPORT_FIELD_SCOPE,
  PLANAR_IMPORT_FIELD_ARGS,
  PLANAR_IMPORT_FIELD_OTHER,
} PlanarImportField;

/* What the event being read has said so far. */
typedef struct
{
  char      ph[8];
  GString  *name;
  GString  *cat;
  GString  *pid;
  GString  *tid;
  GString  *id;
  GString  *bind_id;
  gboolean  has_ph, has_ts, has_dur, has_name, has_pid, has_tid, has_id, has_bind_id;
  gboolean  flow_in, flow_out, bp_enclosing;
  /* An instant's "s": 'g' (the whole trace), 'p' (its process), 't' or 0
   * (its thread). */
  char      scope;
  /* The numeric args, for a "C" record: keys (NUL-separated) and values. */
  GString  *number_keys;
  GArray   *number_values;
  gint64    ts_ps;
  gint64    dur_ps;
  GString  *meta_name;
  GString  *meta_labels;
  gint64    meta_sort_index;
  gboolean  has_meta_name, has_meta_labels, has_meta_sort_index;
  guint     n_keys;
} PlanarImportRecord;

/* The compact encoding of an arg (not protobuf): a kind byte, the stat
 * name's id as a varint, then the value (a varint, 8 little-endian bytes
 * for a double, or a varint length and the bytes of a string). */
typedef enum
{
  PLANAR_IMPORT_ARG_INT64 = 'i',
  PLANAR_IMPORT_ARG_UINT64 = 'u',
  PLANAR_IMPORT_ARG_DOUBLE = 'd',
  PLANAR_IMPORT_ARG_STRING = 's',
} PlanarImportArgKind;

typedef struct
{
  const char         *file;
  PlanarImportReport *report;
  GError             *error;

  /* Container depth, and where the events array is (-1 until known). */
  int                 depth;
  int                 events_depth;
  gboolean            root_seen;
  gboolean            root_is_object;
  gboolean            next_is_events;
  /* Set while a value of no interest is skipped: its depth. */
  int                 skip_depth;
  guint64             n_records;

  /* The event record being read (at events_depth + 1). */
  gboolean            in_record;
  PlanarImportField   field;
  gboolean            in_args;
  /* Inside args: the key of the arg, and a nested value being written
   * back as JSON text with its depth and, per level, whether a comma is
   * due. */
  GString            *arg_key;
  GString            *nested;
  int                 nested_depth;
  GByteArray         *nested_comma;
  gboolean            nested_after_key;
  PlanarImportRecord  r;

  gboolean            have_base;
  gint64              base_us;

  /* Event names and categories (ids from 1), stat names (ids from 1). */
  GHashTable         *names;
  GPtrArray          *name_list;
  GHashTable         *stat_names;
  GPtrArray          *stat_name_list;
  GHashTable         *process_index;
  GPtrArray          *processes;
  GHashTable         *thread_index;
  GPtrArray          *threads;

  GArray             *events;
  GArray             *marks;
  /* Every record's args, in the compact encoding. */
  GByteArray         *args;
  GByteArray         *cur_args;
  GArray             *flow_stats;
  GArray             *flow_records;
} PlanarImporter;

/* A flow stat's value: planar-flows.h's encoding of id, direction (1 in,
 * 2 out, 3 both) and category. */
static inline guint64
_planar_importer_flow_value (guint64 id,
                             guint   direction,
                             guint   category)
{
  return ((guint64) category << 58) | (id << 2) | direction;
}

/* planar-import-json.c */

/* Feeds @data (plain or gzip) to yajl in chunks. */
gboolean  _planar_importer_parse           (PlanarImporter  *imp,
                                            const guint8    *data,
                                            gsize            size,
                                            GError         **error);

/* planar-import-records.c */

/* Sets the import's error (the first only). Returns 0, what a yajl
 * callback returns to stop. */
int       _planar_importer_fail            (PlanarImporter  *imp,
                                            const char      *format,
                                            ...) G_GNUC_PRINTF (2, 3);
/* @text need not be NUL-terminated. Ids start at 1. */
guint32   _planar_importer_intern          (GHashTable      *table,
                                            GPtrArray       *list,
                                            const char      *text,
                                            gsize            len);
/* Microseconds written as decimal text to picoseconds relative to the
 * first time read (@is_duration: as they are). */
gboolean  _planar_importer_parse_time      (PlanarImporter  *imp,
                                            const char      *text,
                                            gsize            len,
                                            gboolean         is_duration,
                                            gint64          *ps_out);
/* The current arg (named imp->arg_key) of the record being read. */
void      _planar_importer_arg_string      (PlanarImporter  *imp,
                                            const char      *text,
                                            gsize            len);
void      _planar_importer_arg_number      (PlanarImporter  *imp,
                                            const char      *text,
                                            gsize            len);
void      _planar_importer_arg_int         (PlanarImporter  *imp,
                                            gint64           value);
void      _planar_importer_reset_record    (PlanarImporter  *imp);
void      _planar_importer_finish_record   (PlanarImporter  *imp);
/* Once everything is read: the B/E marks paired into events. */
void      _planar_importer_pair_marks      (PlanarImporter  *imp);

/* planar-import-encode.c */

/* Orders the events, binds the flow v1 records to them and writes the
 * XSpace to @fd. */
gboolean  _planar_importer_write           (PlanarImporter  *imp,
                                            int              fd,
                                            GError         **error);

G_END_DECLS
