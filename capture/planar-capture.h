/* planar-capture.h: capturing a profile from running programs, over
 * gRPC, the way XProf's capture button does, but with the profile coming
 * back to the caller (docs/formats.md §6, §5).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-capture-options.h"

G_BEGIN_DECLS

#define PLANAR_CAPTURE_ERROR (planar_capture_error_quark ())

/* What the capture's own domain says. A cancelled capture fails with
 * %G_IO_ERROR_CANCELLED (the message says what was kept: the hosts saved
 * before, see planar_capture_session_cancel()), and a session folder or
 * file that cannot be made or written with the %G_IO_ERROR code of its
 * errno, as everywhere in Planar. */
typedef enum
{
  /* No host produced a profile here; the message says why, per host. */
  PLANAR_CAPTURE_ERROR_FAILED,
} PlanarCaptureError;

GQuark planar_capture_error_quark (void);

/* Writes @data to @dir/@name through a hidden temporary file in @dir and a
 * link into place: atomic, and never replaces an existing file
 * (%G_IO_ERROR_EXISTS; other failures with their %G_IO_ERROR code). */
gboolean planar_capture_write_new_file      (const char    *dir,
                                             const char    *name,
                                             const guint8  *data,
                                             gsize          len,
                                             char         **path_out,
                                             GError       **error);

/* Makes a new session folder under @repository_root
 * (`<logdir>/plugins/profile`), named for now (or the next free second).
 * Returns its path and sets @session_id to its name; %NULL with a
 * %G_IO_ERROR when it cannot be made. */
char    *planar_capture_make_session_folder (const char    *repository_root,
                                             char         **session_id,
                                             GError       **error);

typedef enum
{
  PLANAR_CAPTURE_HOST_WAITING,
  /* Asking the server to start (and retrying while it is unavailable). */
  PLANAR_CAPTURE_HOST_CONNECTING,
  /* The server is recording until PlanarCaptureHost.end_time. */
  PLANAR_CAPTURE_HOST_PROFILING,
  /* The answer arrived; the profile is being written. */
  PLANAR_CAPTURE_HOST_RECEIVING,
  /* Written to PlanarCaptureHost.path. */
  PLANAR_CAPTURE_HOST_SAVED,
  /* An older server wrote the profile on its own machine, at
   * PlanarCaptureHost.path there; nothing came back. */
  PLANAR_CAPTURE_HOST_SAVED_REMOTELY,
  PLANAR_CAPTURE_HOST_FAILED,
  PLANAR_CAPTURE_HOST_CANCELLED,
} PlanarCaptureHostState;

/* Where one host is. Owned by the session; read on the thread that runs
 * the main context the session reports to. */
typedef struct
{
  char                   *address;
  PlanarCaptureHostState  state;
  /* 1 for the first try. */
  guint                   attempt;
  /* PROFILING: when the capture should end, g_get_real_time() units. */
  gint64                  end_time;
  /* RECEIVING and SAVED: the profile's size. */
  guint64                 bytes;
  char                   *path;
  /* FAILED: why, for people; also a note on SAVED (tool data not saved). */
  char                   *message;
} PlanarCaptureHost;

#define PLANAR_TYPE_CAPTURE_SESSION (planar_capture_session_get_type ())
G_DECLARE_FINAL_TYPE (PlanarCaptureSession, planar_capture_session, PLANAR, CAPTURE_SESSION, GObject)

/* A capture of every address of @options (checked; a copy is taken) into
 * one new session folder <logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/,
 * one file <host_port>.xplane.pb per host, each written under a hidden
 * temporary name and renamed; an existing session is never touched.
 * Hosts run in parallel, each retried on UNAVAILABLE, ALREADY_EXISTS and
 * UNKNOWN "Stream removed" only (within "retries"), and asked again while
 * it is busy with another profiling session (within "busy-wait-ms").
 * ::host-changed (guint index) is emitted
 * on the main context run_async() was called from. Returns: (transfer
 * full) (nullable). */
PlanarCaptureSession    *planar_capture_session_new        (PlanarCaptureOptions  *options,
                                                            GError               **error);
guint                    planar_capture_session_get_n_hosts (PlanarCaptureSession *self);
/* Returns: (transfer none). */
const PlanarCaptureHost *planar_capture_session_get_host   (PlanarCaptureSession *self,
                                                            guint                 index);
/* The session folder, once the capture has started. Returns: (transfer
 * none) (nullable). */
const char              *planar_capture_session_get_folder (PlanarCaptureSession *self);

/* Captures, blocking. First removes what captures killed on the way left
 * under <logdir>/plugins/profile (hidden temporaries untouched for an
 * hour). TRUE when at least one host's profile was saved here; otherwise
 * %PLANAR_CAPTURE_ERROR_FAILED with every host's reason, and no folder or
 * file left. A host's XSpace is checked (planar_capture_response_check_xspace())
 * and saved first; its tool data after, under safe unique names, never
 * failing the host (PlanarCaptureHost.message tells what was renamed or
 * skipped). */
gboolean                 planar_capture_session_run        (PlanarCaptureSession *self,
                                                            GError              **error);
void                     planar_capture_session_run_async  (PlanarCaptureSession *self,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
gboolean                 planar_capture_session_run_finish (PlanarCaptureSession *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
/* Asks every server still recording to stop now (Terminate), in the
 * background; what they recorded comes back and is kept. Any thread; the
 * session is held until the requests end, and let go on the caller's
 * thread-default main context. */
void                     planar_capture_session_stop_now   (PlanarCaptureSession *self);
/* Cancels every call still running and every file being written (its
 * temporary is removed); hosts already saved are kept, and the session
 * folder is removed when none was. run() then fails with
 * %G_IO_ERROR_CANCELLED. Any thread. */
void                     planar_capture_session_cancel     (PlanarCaptureSession *self);

/* Continuous profiling (servers from 2026): start it on @address with
 * @options' tracer settings; take a snapshot, saved as a new session
 * (returns the file's path); stop. The upstream method names are tried
 * first, then the older spellings on UNIMPLEMENTED. */
gboolean planar_capture_continuous_start    (PlanarCaptureOptions  *options,
                                             const char            *address,
                                             GError               **error);
char    *planar_capture_continuous_snapshot (PlanarCaptureOptions  *options,
                                             const char            *address,
                                             GError               **error);
gboolean planar_capture_continuous_stop     (PlanarCaptureOptions  *options,
                                             const char            *address,
                                             GError               **error);

G_END_DECLS
