/* planar-json-writer.h: a streaming JSON writer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Writes JSON to a stream as it goes, through a small buffer, so that a
 * document of any size never sits in memory. Commas and nesting are tracked
 * by the writer; strings are escaped (invalid UTF-8 bytes become U+FFFD).
 * The first write error is kept and returned by planar_json_writer_finish(). */
typedef struct _PlanarJsonWriter PlanarJsonWriter;

/* Returns: (transfer full). @stream is referenced. */
PlanarJsonWriter *planar_json_writer_new          (GOutputStream    *stream,
                                                   gboolean          pretty);
void              planar_json_writer_free         (PlanarJsonWriter *self);
/* Flushes and reports the first error. */
gboolean          planar_json_writer_finish       (PlanarJsonWriter *self,
                                                   GError          **error);

void planar_json_writer_begin_object (PlanarJsonWriter *self);
void planar_json_writer_end_object   (PlanarJsonWriter *self);
void planar_json_writer_begin_array  (PlanarJsonWriter *self);
void planar_json_writer_end_array    (PlanarJsonWriter *self);
/* The key of the next member of the current object. */
void planar_json_writer_key          (PlanarJsonWriter *self,
                                      const char       *key);
void planar_json_writer_string       (PlanarJsonWriter *self,
                                      const char       *str);
void planar_json_writer_string_len   (PlanarJsonWriter *self,
                                      const char       *str,
                                      gsize             len);
void planar_json_writer_int          (PlanarJsonWriter *self,
                                      gint64            value);
void planar_json_writer_uint         (PlanarJsonWriter *self,
                                      guint64           value);
/* Non-finite values are written as null, which JSON requires. */
void planar_json_writer_double       (PlanarJsonWriter *self,
                                      double            value);
void planar_json_writer_boolean      (PlanarJsonWriter *self,
                                      gboolean          value);
void planar_json_writer_null         (PlanarJsonWriter *self);
/* Text written as it is (already valid JSON), e.g. a preformatted number. */
void planar_json_writer_raw          (PlanarJsonWriter *self,
                                      const char       *json);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarJsonWriter, planar_json_writer_free)

G_END_DECLS
