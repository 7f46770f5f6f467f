/* planar-export.h: a profile in the formats other tools read: Chrome Trace
 * Event JSON (chrome://tracing, Perfetto, XProf's trace viewer) and
 * Perfetto's protobuf trace (ui.perfetto.dev).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-profile.h"

G_BEGIN_DECLS

typedef enum
{
  /* docs/formats.md §7.1: a process per plane, a thread per line, one "X" event
   * per event of the file's lines (ts and dur in microseconds, fractions
   * kept), args from stats, flows as flow v2 (bind_id, flow_in, flow_out). */
  PLANAR_EXPORT_CHROME_JSON,
  /* docs/formats.md §8: a process track per plane, a thread track per line,
   * nested slices, flows, interned names. */
  PLANAR_EXPORT_PERFETTO,
} PlanarExportFormat;

/* What an export keeps: the events of the lines of @host, @plane and
 * @line (each %NULL for any; @line is a line's name or display name) that
 * overlap [@from_ps, @to_ps] (ends included, as `planar-cli events`
 * selects them). PLANAR_EXPORT_FILTER_INIT keeps everything. With @line
 * set, a plane with no line of that name is left out. */
typedef struct
{
  const char *host;
  const char *plane;
  const char *line;
  gint64      from_ps;
  gint64      to_ps;
} PlanarExportFilter;

#define PLANAR_EXPORT_FILTER_INIT { NULL, NULL, NULL, G_MININT64, G_MAXINT64 }

/* Whether @filter keeps @track of @plane of @trace (its events aside). */
gboolean    planar_export_filter_keeps_track (const PlanarExportFilter *filter,
                                              PlanarTrace              *trace,
                                              const PlanarPlane        *plane,
                                              const PlanarTrack        *track);
/* Whether @filter keeps @plane of @trace (as a process, even without lines). */
gboolean    planar_export_filter_keeps_plane (const PlanarExportFilter *filter,
                                              PlanarTrace              *trace,
                                              const PlanarPlane        *plane);
/* Whether @filter's window holds @event. */
gboolean    planar_export_filter_keeps_event (const PlanarExportFilter *filter,
                                              const PlanarEvent        *event);
/* The events an export with @filter (%NULL: none) writes. */
guint64     planar_export_count_filtered     (PlanarProfile            *profile,
                                              const PlanarExportFilter *filter);

/* Called now and then with the share of events written, 0 to 1. */
typedef void (*PlanarExportProgress) (double   fraction,
                                      gpointer user_data);

/* "chrome-json" or "perfetto". */
gboolean    planar_export_format_from_string (const char          *name,
                                              PlanarExportFormat  *format);
const char *planar_export_format_to_string   (PlanarExportFormat   format);
/* What a file name asks for: .pftrace, .perfetto-trace (also .gz) are
 * Perfetto, anything else Chrome JSON. */
PlanarExportFormat planar_export_format_for_path (const char      *path);

/* Streams the decoded @profile to @stream, never holding the whole
 * document: fails with %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, or with the stream's error. Any thread. */
gboolean    planar_export_to_stream          (PlanarProfile        *profile,
                                              PlanarExportFormat    format,
                                              GOutputStream        *stream,
                                              PlanarExportProgress  progress,
                                              gpointer              user_data,
                                              GCancellable         *cancellable,
                                              GError              **error);

/* planar_export_to_stream() of what @filter (%NULL: everything) keeps. */
gboolean    planar_export_to_stream_filtered (PlanarProfile            *profile,
                                              PlanarExportFormat        format,
                                              const PlanarExportFilter *filter,
                                              GOutputStream            *stream,
                                              PlanarExportProgress      progress,
                                              gpointer                  user_data,
                                              GCancellable             *cancellable,
                                              GError                  **error);

/* Whether an export may write @path: when nothing is there, or a regular
 * file and @overwrite. Anything else is refused, @overwrite or not: a
 * symbolic link, a FIFO, a device, a folder or a socket with
 * %G_IO_ERROR_NOT_REGULAR_FILE, a regular file without @overwrite with
 * %G_IO_ERROR_EXISTS. */
gboolean    planar_export_check_target       (const char           *path,
                                              gboolean              overwrite,
                                              GError              **error);

/* planar_export_to_stream() into @path, gzip-compressed when it ends in ".gz", written to a
 * hidden temporary file beside it and renamed into place once complete, so
 * that a failure or a cancellation leaves nothing behind. An existing
 * @path is replaced only when it is a regular file and @overwrite (see
 * planar_export_check_target()). */
gboolean    planar_export_to_file            (PlanarProfile        *profile,
                                              PlanarExportFormat    format,
                                              const char           *path,
                                              gboolean              overwrite,
                                              PlanarExportProgress  progress,
                                              gpointer              user_data,
                                              GCancellable         *cancellable,
                                              GError              **error);

/* planar_export_to_file() of what @filter (%NULL: everything) keeps. */
gboolean    planar_export_to_file_filtered   (PlanarProfile            *profile,
                                              PlanarExportFormat        format,
                                              const PlanarExportFilter *filter,
                                              const char               *path,
                                              gboolean                  overwrite,
                                              PlanarExportProgress      progress,
                                              gpointer                  user_data,
                                              GCancellable             *cancellable,
                                              GError                  **error);

/* The profile's events of the file's lines: what an export writes, for
 * progress and reports. */
guint64     planar_export_count_events       (PlanarProfile       *profile);

G_END_DECLS
