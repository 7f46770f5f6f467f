/* planar-xspace-writer.h: an XSpace written plane by plane, line by line,
 * event by event, without a message tree in memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The model's one XSpace writer (the Chrome JSON import and the CUPTI
 * merge use it). Calls follow the shape of the file:
 *
 *   begin_plane, [plane stats], { add_line, { add_event, [event stats] } },
 *   begin_plane, ..., finish
 *
 * Each event is encoded where it is added: the writer holds the encoded
 * bytes once (the current plane for a file or a descriptor, the whole
 * XSpace for bytes), never a message tree. Event and stat metadata are
 * interned per plane, ids from 1 in the order first asked for, and written
 * when the plane ends. Strings that are not valid UTF-8 are made valid
 * (XSpace's strings are proto3 strings).
 *
 * Misuse (a stat with nothing to hold it, an event outside a line) is a
 * programming error, reported with g_return_if_fail(). Write failures are
 * kept and returned by finish. Not thread-safe: one thread at a time. */
typedef struct _PlanarXSpaceWriter PlanarXSpaceWriter;

/* In memory: planar_xspace_writer_finish_bytes() returns the XSpace. */
PlanarXSpaceWriter *planar_xspace_writer_new             (void);
/* Into @fd (not closed, not owned), each plane written when it ends. */
PlanarXSpaceWriter *planar_xspace_writer_new_for_fd      (int                  fd);
/* Into a hidden temporary file beside @path, each plane written when it
 * ends, renamed to @path by planar_xspace_writer_finish(); freeing the
 * writer before removes the temporary file. Fails when the temporary file
 * cannot be made. */
PlanarXSpaceWriter *planar_xspace_writer_new_for_file    (const char          *path,
                                                          GError             **error);
/* Abandons what was not finished (a file writer's temporary file is
 * removed). */
void                planar_xspace_writer_free            (PlanarXSpaceWriter  *self);

/* Ends the plane, line and event in progress and begins plane @id. */
void                planar_xspace_writer_begin_plane     (PlanarXSpaceWriter  *self,
                                                          gint64               id,
                                                          const char          *name);
/* The id of @name's event metadata in the current plane, added when new. */
guint64             planar_xspace_writer_event_metadata  (PlanarXSpaceWriter  *self,
                                                          const char          *name);
/* The id of @name's stat metadata in the current plane, added when new
 * (ref stats use these ids as values too). */
guint64             planar_xspace_writer_stat_metadata   (PlanarXSpaceWriter  *self,
                                                          const char          *name);
/* Ends the line and event in progress and begins line @id of the current
 * plane; its events' offsets count from @timestamp_ns. */
void                planar_xspace_writer_add_line        (PlanarXSpaceWriter  *self,
                                                          gint64               id,
                                                          const char          *name,
                                                          gint64               timestamp_ns);
/* The current line's display id (XProf's, when it differs from the id). */
void                planar_xspace_writer_set_line_display_id (PlanarXSpaceWriter *self,
                                                              gint64              display_id);
/* Ends the event in progress and begins one on the current line:
 * @metadata_id from planar_xspace_writer_event_metadata(), @offset_ps from
 * the line's timestamp, @duration_ps (0 for an instant), both picoseconds. */
void                planar_xspace_writer_add_event       (PlanarXSpaceWriter  *self,
                                                          guint64              metadata_id,
                                                          gint64               offset_ps,
                                                          gint64               duration_ps);

/* A stat of the event in progress or, before the plane's first line, of
 * the plane. @stat_id is from planar_xspace_writer_stat_metadata(). */
void                planar_xspace_writer_add_stat_int64  (PlanarXSpaceWriter  *self,
                                                          guint64              stat_id,
                                                          gint64               value);
void                planar_xspace_writer_add_stat_uint64 (PlanarXSpaceWriter  *self,
                                                          guint64              stat_id,
                                                          guint64              value);
void                planar_xspace_writer_add_stat_double (PlanarXSpaceWriter  *self,
                                                          guint64              stat_id,
                                                          double               value);
/* @len -1: @value is NUL-terminated. */
void                planar_xspace_writer_add_stat_string (PlanarXSpaceWriter  *self,
                                                          guint64              stat_id,
                                                          const char          *value,
                                                          gssize               len);
void                planar_xspace_writer_add_stat_bytes  (PlanarXSpaceWriter  *self,
                                                          guint64              stat_id,
                                                          const guint8        *value,
                                                          gsize                len);
/* A string stored once as stat metadata: @ref_id is that metadata's id
 * (planar_xspace_writer_stat_metadata() of the string). */
void                planar_xspace_writer_add_stat_ref    (PlanarXSpaceWriter  *self,
                                                          guint64              stat_id,
                                                          guint64              ref_id);

/* The XSpace's own lists, written after the planes. */
void                planar_xspace_writer_add_error       (PlanarXSpaceWriter  *self,
                                                          const char          *message);
void                planar_xspace_writer_add_warning     (PlanarXSpaceWriter  *self,
                                                          const char          *message);
void                planar_xspace_writer_add_hostname    (PlanarXSpaceWriter  *self,
                                                          const char          *hostname);

/* Ends what is in progress and completes a descriptor or file writer: the
 * file is renamed into place only when every write succeeded. Returns
 * FALSE with the first write error. The writer is freed either way. */
gboolean            planar_xspace_writer_finish          (PlanarXSpaceWriter  *self,
                                                          GError             **error);
/* Ends what is in progress and returns the XSpace of a writer made with
 * planar_xspace_writer_new(), freeing the writer. Returns: (transfer full). */
GBytes             *planar_xspace_writer_finish_bytes    (PlanarXSpaceWriter  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarXSpaceWriter, planar_xspace_writer_free)

G_END_DECLS
