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
  /* FORMATS.md §6.1: a process per plane, a thread per line, one "X" event
   * per event of the file's lines (ts and dur in microseconds, fractions
   * kept), args from stats, flows as flow v2 (bind_id, flow_in, flow_out). */
  PLANAR_EXPORT_CHROME_JSON,
  /* FORMATS.md §6.4: a process track per plane, a thread track per line,
   * nested slices, flows, interned names. */
  PLANAR_EXPORT_PERFETTO,
} PlanarExportFormat;

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

/* The profile's events of the file's lines: what an export writes, for
 * progress and reports. */
guint64     planar_export_count_events       (PlanarProfile       *profile);

G_END_DECLS
