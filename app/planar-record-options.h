/* planar-record-options.h: what "Record a Command" runs, as a plain
 * object the dialog edits.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PLANAR_TYPE_RECORD_OPTIONS (planar_record_options_get_type ())
G_DECLARE_FINAL_TYPE (PlanarRecordOptions, planar_record_options, PLANAR, RECORD_OPTIONS, GObject)

/* Properties, one per option: "command" (a command line, split like a
 * shell would but run without one), "working-folder", "environment"
 * ("NAME=value" words), "logdir" (where the session folder goes),
 * "duration-ms" (0: trace until the command ends) and "nvtx". */

PlanarRecordOptions *planar_record_options_new        (void);

/* Checks the options and makes the `planar-cli record` command line that
 * carries them out (@cli is the planar-cli to run) and the environment
 * entries to add. Fails with G_IO_ERROR_INVALID_ARGUMENT and a message
 * for people when the command is empty or cannot be split, an environment
 * word is not NAME=value, or a folder does not exist.
 * Returns: (transfer full) (nullable): the argv. */
GStrv                planar_record_options_build_argv (PlanarRecordOptions  *self,
                                                       const char           *cli,
                                                       GStrv                *environment,
                                                       GError              **error);

G_END_DECLS
