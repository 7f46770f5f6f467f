/* planar-capture-dialog.h: Capture Profile: a profile from the profiler
 * servers of running programs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "planar-capture.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_CAPTURE_DIALOG (planar_capture_dialog_get_type ())
G_DECLARE_FINAL_TYPE (PlanarCaptureDialog, planar_capture_dialog, PLANAR, CAPTURE_DIALOG, AdwWindow)

/* The dialog is a view of its PlanarCaptureOptions: addresses (checked as
 * they are typed), log directory, duration, tracer levels, retries, delay,
 * typed advanced options (with the GPU option pitfall explained) and the
 * recent servers. While it captures it shows a row per host (connecting,
 * profiling with the time left, receiving, saved, or the error) with Stop
 * Now and Cancel; ::captured gives the new session folder. Its commands
 * are "capture." actions: start, stop-now, cancel, choose-logdir,
 * add-option, use-recent(s). */

PlanarCaptureDialog  *planar_capture_dialog_new         (GtkWindow           *parent,
                                                         GSettings           *settings);
/* Returns: (transfer none). */
PlanarCaptureOptions *planar_capture_dialog_get_options (PlanarCaptureDialog *self);
/* Returns: (transfer none) (nullable): the capture running or last run. */
PlanarCaptureSession *planar_capture_dialog_get_session (PlanarCaptureDialog *self);
/* The message under the addresses, "" when they are fine. */
const char           *planar_capture_dialog_get_problem (PlanarCaptureDialog *self);
/* The text of host @index's row. Returns: (transfer full) (nullable). */
char                 *planar_capture_dialog_dup_host_text (PlanarCaptureDialog *self,
                                                           guint                index);

G_END_DECLS
