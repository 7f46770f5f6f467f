/* planar-import-private.h: the Chrome JSON import, for the model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-import.h"

G_BEGIN_DECLS

/* Parses @data (plain or gzip) with a streaming parser, never as a
 * document tree, and writes the XSpace it describes to @fd. @name is the
 * file's name, for messages. */
gboolean                   _planar_import_chrome_json   (const guint8         *data,
                                                         gsize                 size,
                                                         const char           *name,
                                                         int                   fd,
                                                         PlanarImportReport  **report,
                                                         GError              **error);
void                       _planar_import_report_free   (PlanarImportReport   *report);

G_END_DECLS
