/* planar-test-hlo.h: writes HloProtos for tests (planar-test-hlo.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "planar-test-xspace.h"

G_BEGIN_DECLS

/* An HloInstructionProto: a shape of @type (XLA's PrimitiveType number)
 * and @dims (a default layout), metadata when any of its fields is set. */
typedef struct
{
  const char   *name;
  const char   *opcode;
  gint64        id;
  gint          type;
  gint64        dims[4];
  guint         n_dims;
  const gint64 *operands;
  guint         n_operands;
  const gint64 *called;
  guint         n_called;
  const char   *op_type;
  const char   *op_name;
  const char   *source_file;
  gint          source_line;
  gint          stack_frame_id;
  /* parameter_number (9), written when not 0. */
  gint64        parameter_number;
} PlanarTestHloIns;

void        planar_test_hlo_put_varint  (GByteArray *b, guint64 v);
void        planar_test_hlo_put_int     (GByteArray *b, guint field, gint64 v);
void        planar_test_hlo_put_bytes   (GByteArray *b, guint field, const void *data, gsize len);
void        planar_test_hlo_put_str     (GByteArray *b, guint field, const char *s);
/* Appends @msg as field @field and frees it. */
void        planar_test_hlo_put_msg     (GByteArray *b, guint field, GByteArray *msg);
void        planar_test_hlo_put_packed  (GByteArray *b, guint field, const gint64 *v, guint n);
/* A ShapeProto with a default layout. Returns: (transfer full). */
GByteArray *planar_test_hlo_shape       (gint type, const gint64 *dims, guint n);
GByteArray *planar_test_hlo_instruction (const PlanarTestHloIns *in);
/* An HloComputationProto of @n instructions. */
GByteArray *planar_test_hlo_computation (const char *name, gint64 id, const PlanarTestHloIns *ins, guint n,
                                         gint64 root_id);
/* HloProto { hlo_module = @module } (freed). */
GByteArray *planar_test_hlo_wrap_module (GByteArray *module);
/* A whole HloProto: module @name (id @id) of one computation, the entry,
 * holding @ins. Returns: (transfer full). */
GByteArray *planar_test_hlo_simple      (const char *name, gint64 id, const PlanarTestHloIns *ins, guint n);
/* `/host:metadata` with one event metadata per program: id = program id,
 * stat "Hlo Proto" = the bytes of @protos[i]. */
void        planar_test_hlo_add_metadata_plane (XSpace            *space,
                                                const gint64      *program_ids,
                                                GByteArray *const *protos,
                                                guint              n);

G_END_DECLS
