/* planar-test-hlo.c: writes HloProtos for tests, the field numbers spelled
 * out from XLA's hlo.proto and xla_data.proto (not Planar's generated
 * code, so that the tests check the reader against XLA's numbers).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-test-hlo.h"

#include <string.h>

void
planar_test_hlo_put_varint (GByteArray *b,
                            guint64     v)
{
  while (v >= 0x80)
    {
      guint8 c = (guint8) (v | 0x80);

      g_byte_array_append (b, &c, 1);
      v >>= 7;
    }
  {
    guint8 c = (guint8) v;

    g_byte_array_append (b, &c, 1);
  }
}

void
planar_test_hlo_put_int (GByteArray *b,
                         guint       field,
                         gint64      v)
{
  planar_test_hlo_put_varint (b, (guint64) field << 3);
  planar_test_hlo_put_varint (b, (guint64) v);
}

void
planar_test_hlo_put_bytes (GByteArray *b,
                           guint       field,
                           const void *data,
                           gsize       len)
{
  planar_test_hlo_put_varint (b, ((guint64) field << 3) | 2);
  planar_test_hlo_put_varint (b, len);
  g_byte_array_append (b, data, (guint) len);
}

void
planar_test_hlo_put_str (GByteArray *b,
                         guint       field,
                         const char *s)
{
  planar_test_hlo_put_bytes (b, field, s, strlen (s));
}

/* Appends @msg as field @field and frees it. */
void
planar_test_hlo_put_msg (GByteArray *b,
                         guint       field,
                         GByteArray *msg)
{
  planar_test_hlo_put_bytes (b, field, msg->data, msg->len);
  g_byte_array_unref (msg);
}

void
planar_test_hlo_put_packed (GByteArray   *b,
                            guint         field,
                            const gint64 *v,
                            guint         n)
{
  GByteArray *p = g_byte_array_new ();

  for (guint i = 0; i < n; i++)
    planar_test_hlo_put_varint (p, (guint64) v[i]);
  planar_test_hlo_put_msg (b, field, p);
}

/* ShapeProto: element_type 2, dimensions 3, layout 5 (minor_to_major 1). */
GByteArray *
planar_test_hlo_shape (gint type,
                       const gint64 *dims,
                       guint n)
{
  GByteArray *s = g_byte_array_new ();
  GByteArray *layout = g_byte_array_new ();
  gint64 m2m[8];

  planar_test_hlo_put_int (s, 2, type);
  if (n > 0)
    planar_test_hlo_put_packed (s, 3, dims, n);
  for (guint i = 0; i < n; i++)
    m2m[i] = n - 1 - i;
  if (n > 0)
    planar_test_hlo_put_packed (layout, 1, m2m, n);
  planar_test_hlo_put_msg (s, 5, layout);
  return s;
}

/* HloInstructionProto: name 1, opcode 2, shape 3, metadata 7 (op_type 1,
 * op_name 2, source_file 3, source_line 4, stack_frame_id 15),
 * parameter_number 9, id 35,
 * operand_ids 36, called_computation_ids 38. */
GByteArray *
planar_test_hlo_instruction (const PlanarTestHloIns *in)
{
  GByteArray *b = g_byte_array_new ();

  planar_test_hlo_put_str (b, 1, in->name);
  planar_test_hlo_put_str (b, 2, in->opcode);
  planar_test_hlo_put_msg (b, 3, planar_test_hlo_shape (in->type, in->dims, in->n_dims));
  if (in->op_name != NULL || in->source_file != NULL || in->stack_frame_id != 0)
    {
      GByteArray *md = g_byte_array_new ();

      if (in->op_type != NULL)
        planar_test_hlo_put_str (md, 1, in->op_type);
      if (in->op_name != NULL)
        planar_test_hlo_put_str (md, 2, in->op_name);
      if (in->source_file != NULL)
        planar_test_hlo_put_str (md, 3, in->source_file);
      if (in->source_line != 0)
        planar_test_hlo_put_int (md, 4, in->source_line);
      if (in->stack_frame_id != 0)
        planar_test_hlo_put_int (md, 15, in->stack_frame_id);
      planar_test_hlo_put_msg (b, 7, md);
    }
  if (in->parameter_number != 0)
    planar_test_hlo_put_int (b, 9, in->parameter_number);
  planar_test_hlo_put_int (b, 35, in->id);
  if (in->n_operands > 0)
    planar_test_hlo_put_packed (b, 36, in->operands, in->n_operands);
  if (in->n_called > 0)
    planar_test_hlo_put_packed (b, 38, in->called, in->n_called);
  return b;
}

/* HloComputationProto: name 1, instructions 2, id 5, root_id 6. */
GByteArray *
planar_test_hlo_computation (const char *name,
                             gint64      id,
                             const PlanarTestHloIns *ins,
                             guint       n,
                             gint64      root_id)
{
  GByteArray *b = g_byte_array_new ();

  planar_test_hlo_put_str (b, 1, name);
  for (guint i = 0; i < n; i++)
    planar_test_hlo_put_msg (b, 2, planar_test_hlo_instruction (&ins[i]));
  planar_test_hlo_put_int (b, 5, id);
  planar_test_hlo_put_int (b, 6, root_id);
  return b;
}

/* HloProto { hlo_module 1 } around HloModuleProto: name 1,
 * entry_computation_name 2, computations 3, id 5, entry_computation_id 6,
 * stack_frame_index 17. */
GByteArray *
planar_test_hlo_wrap_module (GByteArray *module)
{
  GByteArray *b = g_byte_array_new ();

  planar_test_hlo_put_msg (b, 1, module);
  return b;
}


GByteArray *
planar_test_hlo_simple (const char             *name,
                        gint64                  id,
                        const PlanarTestHloIns *ins,
                        guint                   n)
{
  GByteArray *m = g_byte_array_new ();

  planar_test_hlo_put_str (m, 1, name);
  planar_test_hlo_put_msg (m, 3, planar_test_hlo_computation ("main", 1, ins, n, n > 0 ? ins[n - 1].id : 0));
  planar_test_hlo_put_int (m, 5, id);
  planar_test_hlo_put_int (m, 6, 1);
  return planar_test_hlo_wrap_module (m);
}

void
planar_test_hlo_add_metadata_plane (XSpace            *space,
                                    const gint64      *program_ids,
                                    GByteArray *const *protos,
                                    guint              n)
{
  XPlane *plane = planar_test_space_add_plane (space, 99, "/host:metadata");

  planar_test_plane_add_stat_metadata (plane, 1, "Hlo Proto");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("jit_f(%" G_GINT64_FORMAT ")", program_ids[i]);
      XEventMetadata *md = planar_test_plane_add_event_metadata (plane, program_ids[i], name, NULL);

      PLANAR_TEST_APPEND (md->stats, md->n_stats, planar_test_stat_bytes (1, protos[i]->data, protos[i]->len));
    }
}
