/* planar-record-dialog.h: "Record a Command": runs a CUDA program under
 * Planar's CUPTI recorder and opens what it recorded.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "planar-record-options.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_RECORD_DIALOG (planar_record_dialog_get_type ())
G_DECLARE_FINAL_TYPE (PlanarRecordDialog, planar_record_dialog, PLANAR, RECORD_DIALOG, AdwWindow)

/* The dialog is a view of its PlanarRecordOptions. Recording runs
 * `planar-cli record` (PlanarRecordDialog:cli) in a subprocess, shows its
 * output as it comes, and emits ::recorded with the written profile's path
 * when it succeeds; a failure is shown with the recorder's own message.
 * Its commands are "record." actions (start, stop, choose-folder,
 * choose-logdir). */

PlanarRecordDialog  *planar_record_dialog_new         (GtkWindow          *parent,
                                                       const char         *cli);
/* Returns: (transfer none). */
PlanarRecordOptions *planar_record_dialog_get_options (PlanarRecordDialog *self);
/* Whether the command is running. */
gboolean             planar_record_dialog_get_running (PlanarRecordDialog *self);
/* The status line shown while and after it runs. Returns: (transfer none). */
const char          *planar_record_dialog_get_status  (PlanarRecordDialog *self);

/* Whether this build may record (not inside the Flatpak sandbox, which
 * cannot start host programs without escaping it). */
gboolean             planar_record_dialog_is_supported (void);

G_END_DECLS
