/* planar-file-util.h: how the application names files to people.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The folder @file is in, as people write it: "~/logs/train" for
 * /home/me/logs/train/x, "/data/logs" elsewhere. Returns: (transfer full). */
char *planar_file_describe_location (GFile *file);

G_END_DECLS
