/* test-hlo.c: the HLO index (model/trace/planar-hlo.h): HloProtos written
 * here with their field numbers spelled out (XLA's hlo.proto and
 * xla_data.proto), decoded and looked up; damaged ones refused with an
 * error and no crash; a module of 10^6 instructions within the memory
 * budget.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hlo.h"
#include "planar-hlo-cost.h"
#include "planar-error.h"
#include "planar-test-hlo.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"

#include <string.h>

static const gint64 fused_ops[] = { 10, 11 };
static const gint64 fusion_ops[] = { 1, 2 };
static const gint64 fusion_calls[] = { 100 };
static const gint64 dot_ops[] = { 3, 2 };
static const gint64 tuple_ops[] = { 4 };

/* StackFrameIndexProto: file_names 1, function_names 2, file_locations 3
 * (file_name_id 1, function_name_id 2, line 3, column 4), stack_frames 4
 * (file_location_id 1, parent_frame_id 2). Frame 2 (train.py:23 in loss)
 * is called from frame 1 (main.py:7 in main). */
static GByteArray *
frames (gint bad_parent)
{
  GByteArray *b = g_byte_array_new ();
  GByteArray *loc1 = g_byte_array_new (), *loc2 = g_byte_array_new ();
  GByteArray *f1 = g_byte_array_new (), *f2 = g_byte_array_new ();

  planar_test_hlo_put_str (b, 1, "/src/main.py");
  planar_test_hlo_put_str (b, 1, "/src/model/train.py");
  planar_test_hlo_put_str (b, 2, "main");
  planar_test_hlo_put_str (b, 2, "loss");
  planar_test_hlo_put_int (loc1, 1, 1);
  planar_test_hlo_put_int (loc1, 2, 1);
  planar_test_hlo_put_int (loc1, 3, 7);
  planar_test_hlo_put_int (loc2, 1, 2);
  planar_test_hlo_put_int (loc2, 2, 2);
  planar_test_hlo_put_int (loc2, 3, 23);
  planar_test_hlo_put_msg (b, 3, loc1);
  planar_test_hlo_put_msg (b, 3, loc2);
  planar_test_hlo_put_int (f1, 1, 1);
  if (bad_parent != 0)
    planar_test_hlo_put_int (f1, 2, bad_parent);
  planar_test_hlo_put_int (f2, 1, 2);
  planar_test_hlo_put_int (f2, 2, 1);
  planar_test_hlo_put_msg (b, 4, f1);
  planar_test_hlo_put_msg (b, 4, f2);
  return b;
}

typedef enum
{
  DAMAGE_NONE,
  DAMAGE_CYCLE,
  DAMAGE_FRAME_ID,
  DAMAGE_FRAME_CYCLE,
  DAMAGE_OPERAND,
} Damage;

/* A module: the fused planar_test_hlo_computation (id 100: two parameters, an add), and
 * the entry (id 200: two parameters, the fusion, a dot, a tuple). */
static GByteArray *
make_module (Damage damage)
{
  static const gint64 cycle_calls[] = { 200 };
  PlanarTestHloIns fused[] = {
    { "param_0.1", "parameter", 10, 11, { 8, 128 }, 2 },
    { "param_1.1", "parameter", 11, 11, { 8, 128 }, 2, .parameter_number = 1 },
    { "add.1", "add", 12, 11, { 8, 128 }, 2, fused_ops, 2, NULL, 0, "", "jit(f)/add", "/src/model/train.py", 24 },
  };
  PlanarTestHloIns entry[] = {
    { "p0", "parameter", 1, 11, { 8, 128 }, 2 },
    { "p1", "parameter", 2, 11, { 8, 128 }, 2, .parameter_number = 1 },
    { "fusion.3", "fusion", 3, 11, { 8, 128 }, 2, fusion_ops, 2, fusion_calls, 1, NULL, "jit(f)/add", NULL, 0, 0 },
    { "dot.4", "dot", 4, 16, { 8, 8 }, 2, dot_ops, 2, NULL, 0, NULL, "jit(f)/dot_general", "/src/model/train.py", 23, 2 },
    { "tuple.5", "tuple", 5, 13, { 0 }, 0, tuple_ops, 1 },
  };
  GByteArray *m = g_byte_array_new ();

  if (damage == DAMAGE_CYCLE)
    {
      /* The fused computation calls the entry back. */
      fused[2].called = cycle_calls;
      fused[2].n_called = 1;
    }
  if (damage == DAMAGE_FRAME_ID)
    entry[3].stack_frame_id = 3;
  if (damage == DAMAGE_OPERAND)
    entry[3].operands = fused_ops;
  planar_test_hlo_put_str (m, 1, "jit_f");
  planar_test_hlo_put_str (m, 2, "main.6");
  planar_test_hlo_put_msg (m, 3, planar_test_hlo_computation ("fused_computation.3", 100, fused, G_N_ELEMENTS (fused), 12));
  planar_test_hlo_put_msg (m, 3, planar_test_hlo_computation ("main.6", 200, entry, G_N_ELEMENTS (entry), 5));
  planar_test_hlo_put_int (m, 5, 7);
  planar_test_hlo_put_int (m, 6, 200);
  planar_test_hlo_put_msg (m, 17, frames (damage == DAMAGE_FRAME_CYCLE ? 2 : 0));
  return planar_test_hlo_wrap_module (m);
}

/* ------------------------------------------------------------------------ */

/* The source as JAX 0.11 writes it: only a stack (no source_file), and
 * XProf's rule that the stack's innermost frame wins over source_file. */
static void
test_source_from_stack (void)
{
  PlanarTestHloIns entry[] = {
    { "p0", "parameter", 1, 11, { 8 }, 1 },
    /* Stack only: train.py:23, frame 2's. */
    { "tanh.2", "tanh", 2, 11, { 8 }, 1, fusion_ops, 1, NULL, 0, NULL, "jit(step)/tanh", NULL, 0, 2 },
    /* Both: the stack (main.py:7, frame 1) wins. */
    { "exp.3", "exponential", 3, 11, { 8 }, 1, fusion_ops, 1, NULL, 0, NULL, "jit(step)/exp", "/src/old.py", 99, 1 },
    /* Only source_file, as older writers: that. */
    { "neg.4", "negate", 4, 11, { 8 }, 1, fusion_ops, 1, NULL, 0, NULL, "jit(step)/neg", "/src/old.py", 98 },
    /* Neither: none. */
    { "abs.5", "abs", 5, 11, { 8 }, 1, fusion_ops, 1, NULL, 0, NULL, "jit(step)/abs", NULL, 0 },
  };
  const char *want[] = { NULL, "train.py:23", "main.py:7", "old.py:98", NULL };
  GByteArray *m = g_byte_array_new ();
  g_autoptr(GByteArray) bytes = NULL;
  PlanarHloIndex *index = planar_hlo_index_new ();
  const PlanarHloModule *module;
  g_autoptr(GError) error = NULL;

  planar_test_hlo_put_str (m, 1, "jit_step");
  planar_test_hlo_put_str (m, 2, "main.6");
  planar_test_hlo_put_msg (m, 3, planar_test_hlo_computation ("main.6", 200, entry, G_N_ELEMENTS (entry), 5));
  planar_test_hlo_put_int (m, 5, 7);
  planar_test_hlo_put_int (m, 6, 200);
  planar_test_hlo_put_msg (m, 17, frames (0));
  bytes = planar_test_hlo_wrap_module (m);
  g_assert_true (planar_hlo_index_add (index, 2653, bytes->data, bytes->len, &error));
  g_assert_no_error (error);
  module = planar_hlo_index_get_module (index, 0);
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      const PlanarHloInstruction *in = planar_hlo_module_find_instruction (module, entry[i].name,
                                                                          strlen (entry[i].name));
      g_autofree char *source = planar_hlo_instruction_dup_source (module, in);
      g_autofree char *alone = planar_hlo_instruction_dup_source (NULL, in);

      g_assert_cmpstr (source, ==, want[i]);
      /* Without the module, only source_file is there to read. */
      g_assert_cmpstr (alone, ==, i == 2 || i == 3 ? (i == 2 ? "old.py:99" : "old.py:98") : NULL);
    }
  planar_hlo_index_free (index);
}

static void
test_decode (void)
{
  g_autoptr(GByteArray) bytes = make_module (DAMAGE_NONE);
  PlanarHloIndex *index = planar_hlo_index_new ();
  const PlanarHloModule *m, *m2;
  const PlanarHloInstruction *dot, *fusion, *add, *tuple;
  const PlanarHloStackFrame *stack[8];
  const PlanarHloComputation *fused;
  g_autoptr(GError) error = NULL;
  g_autofree char *op = NULL, *src = NULL, *stack_text = NULL, *fusion_op = NULL, *fusion_src = NULL;
  g_autofree char *p1_text = NULL;

  g_assert_true (planar_hlo_index_add (index, 19, bytes->data, bytes->len, &error));
  g_assert_no_error (error);
  /* The same program again is ignored, as XProf's map does. */
  g_assert_true (planar_hlo_index_add (index, 19, bytes->data, bytes->len, &error));
  g_assert_cmpuint (planar_hlo_index_get_n_modules (index), ==, 1);
  g_assert_cmpuint (planar_hlo_index_get_serialized_bytes (index), ==, bytes->len);

  m = planar_hlo_index_find_module (index, 19);
  g_assert_nonnull (m);
  g_assert_null (planar_hlo_index_find_module (index, 20));
  g_assert_cmpstr (m->name, ==, "jit_f");
  g_assert_cmpint (m->id, ==, 7);
  g_assert_cmpuint (m->n_computations, ==, 2);
  g_assert_cmpuint (m->n_instructions, ==, 8);
  g_assert_cmpuint (m->entry, ==, 1);
  g_assert_cmpstr (m->computations[m->entry].name, ==, "main.6");
  g_assert_true (planar_hlo_index_find_module_by_name (index, "jit_f") == m);

  dot = planar_hlo_index_lookup (index, 19, "dot.4", &m2);
  g_assert_nonnull (dot);
  g_assert_true (m2 == m);
  g_assert_null (planar_hlo_index_lookup (index, 19, "dot.40", NULL));
  g_assert_null (planar_hlo_index_lookup (index, 18, "dot.4", NULL));
  g_assert_true (planar_hlo_index_lookup_by_module_name (index, "jit_f", "dot.4", NULL) == dot);
  g_assert_true (planar_hlo_module_find_instruction (m, "dot.4xyz", 5) == dot);
  g_assert_cmpstr (dot->opcode, ==, "dot");
  g_assert_cmpstr (planar_hlo_instruction_get_shape (m, dot)->text, ==, "bf16[8,8]{1,0}");

  /* JAX leaves op_type empty: op_full_name ends in ':'. */
  op = planar_hlo_instruction_dup_op_full_name (dot);
  g_assert_cmpstr (op, ==, "jit(f)/dot_general:");
  src = planar_hlo_instruction_dup_source (m, dot);
  g_assert_cmpstr (src, ==, "train.py:23");
  g_assert_cmpuint (planar_hlo_module_get_stack (m, dot, stack, G_N_ELEMENTS (stack)), ==, 2);
  g_assert_cmpstr (stack[0]->file, ==, "/src/model/train.py");
  g_assert_cmpstr (stack[0]->function, ==, "loss");
  g_assert_cmpint (stack[0]->line, ==, 23);
  g_assert_cmpstr (stack[1]->function, ==, "main");
  stack_text = planar_hlo_module_format_stack (m, dot);
  g_assert_cmpstr (stack_text, ==, "/src/model/train.py:23 loss\n/src/main.py:7 main");

  /* Without a source file: no source, op name still. */
  fusion = planar_hlo_index_lookup (index, 19, "fusion.3", NULL);
  fusion_src = planar_hlo_instruction_dup_source (m, fusion);
  g_assert_null (fusion_src);
  fusion_op = planar_hlo_instruction_dup_op_full_name (fusion);
  g_assert_cmpstr (fusion_op, ==, "jit(f)/add:");
  g_assert_null (planar_hlo_module_format_stack (m, fusion));

  /* Operands, users, called computations, callers. */
  g_assert_cmpuint (fusion->n_operands, ==, 2);
  g_assert_cmpstr (planar_hlo_instruction_get_operand (m, fusion, 0)->name, ==, "p0");
  g_assert_cmpstr (planar_hlo_instruction_get_operand (m, fusion, 1)->name, ==, "p1");
  g_assert_cmpuint (fusion->n_users, ==, 1);
  g_assert_true (planar_hlo_instruction_get_user (m, fusion, 0) == dot);
  g_assert_cmpuint (dot->n_operands, ==, 2);
  g_assert_cmpuint (dot->n_users, ==, 1);
  tuple = planar_hlo_instruction_get_user (m, dot, 0);
  g_assert_cmpstr (tuple->name, ==, "tuple.5");
  g_assert_cmpstr (planar_hlo_instruction_get_shape (m, tuple)->text, ==, "()");
  g_assert_cmpuint (planar_hlo_index_lookup (index, 19, "p1", NULL)->n_users, ==, 2);
  g_assert_cmpuint (fusion->n_called, ==, 1);
  fused = planar_hlo_instruction_get_called (m, fusion, 0);
  g_assert_cmpstr (fused->name, ==, "fused_computation.3");
  g_assert_cmpuint (fused->caller, ==, planar_hlo_module_instruction_index (m, fusion));
  g_assert_cmpuint (fused->n_instructions, ==, 3);
  add = &m->instructions[fused->root];
  g_assert_cmpstr (add->name, ==, "add.1");
  g_assert_cmpstr (planar_hlo_instruction_get_operand (m, add, 1)->name, ==, "param_1.1");
  g_assert_cmpstr (planar_hlo_instruction_get_shape (m, add)->text, ==, "f32[8,128]{1,0}");
  /* Shapes of the same text are shared. */
  g_assert_cmpuint (add->shape, ==, fusion->shape);
  g_assert_cmpuint (planar_hlo_shape_get_elements (planar_hlo_instruction_get_shape (m, add)), ==, 1024);
  g_assert_cmpuint (planar_hlo_shape_get_bytes (m, planar_hlo_instruction_get_shape (m, add)), ==, 4096);
  g_assert_cmpuint (planar_hlo_shape_get_bytes (m, planar_hlo_instruction_get_shape (m, dot)), ==, 128);
  g_assert_cmpstr (planar_hlo_element_type_name (16), ==, "bf16");
  /* Parameters keep their numbers (0 is the proto's default, not
   * written). */
  g_assert_cmpint (planar_hlo_index_lookup (index, 19, "p0", NULL)->parameter_number, ==, 0);
  g_assert_cmpint (planar_hlo_index_lookup (index, 19, "p1", NULL)->parameter_number, ==, 1);
  g_assert_cmpint (planar_hlo_index_lookup (index, 19, "param_1.1", NULL)->parameter_number, ==, 1);
  p1_text = planar_hlo_instruction_format (m, planar_hlo_index_lookup (index, 19, "p1", NULL), PLANAR_HLO_TEXT_DEFAULT);
  g_assert_cmpstr (p1_text, ==, "%p1 = f32[8,128]{1,0} parameter(1)");

  planar_hlo_index_free (index);
}

/* Operand ids may come packed or one field each. */
static void
test_unpacked (void)
{
  GByteArray *m = g_byte_array_new ();
  GByteArray *c = g_byte_array_new ();
  GByteArray *a = g_byte_array_new (), *b = g_byte_array_new ();
  g_autoptr(GByteArray) bytes = NULL;
  PlanarHloIndex *index = planar_hlo_index_new ();
  const PlanarHloModule *mod;
  const PlanarHloInstruction *add;
  g_autoptr(GError) error = NULL;

  planar_test_hlo_put_str (a, 1, "x");
  planar_test_hlo_put_str (a, 2, "parameter");
  planar_test_hlo_put_int (a, 35, 1);
  planar_test_hlo_put_str (b, 1, "add");
  planar_test_hlo_put_str (b, 2, "add");
  planar_test_hlo_put_int (b, 35, 2);
  planar_test_hlo_put_int (b, 36, 1);
  planar_test_hlo_put_int (b, 36, 1);
  planar_test_hlo_put_str (c, 1, "main");
  planar_test_hlo_put_msg (c, 2, a);
  planar_test_hlo_put_msg (c, 2, b);
  planar_test_hlo_put_int (c, 5, 1);
  planar_test_hlo_put_str (m, 1, "m");
  planar_test_hlo_put_msg (m, 3, c);
  bytes = planar_test_hlo_wrap_module (m);
  g_assert_true (planar_hlo_index_add (index, 1, bytes->data, bytes->len, &error));
  g_assert_no_error (error);
  add = planar_hlo_index_lookup (index, 1, "add", &mod);
  g_assert_cmpuint (add->n_operands, ==, 2);
  /* x is used twice by one instruction: one user. */
  g_assert_cmpuint (planar_hlo_index_lookup (index, 1, "x", NULL)->n_users, ==, 1);
  /* Without a shape: an empty tuple. */
  g_assert_cmpstr (planar_hlo_instruction_get_shape (mod, add)->text, ==, "()");
  /* Without entry fields, the last computation is the entry. */
  g_assert_cmpuint (mod->entry, ==, 0);
  planar_hlo_index_free (index);
}

static void
assert_refused (const GByteArray *bytes,
                const char       *what)
{
  PlanarHloIndex *index = planar_hlo_index_new ();
  g_autoptr(GError) error = NULL;

  g_assert_false (planar_hlo_index_add (index, 5, bytes->data, bytes->len, &error));
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "program 5"));
  if (what != NULL)
    g_assert_nonnull (strstr (error->message, what));
  g_assert_cmpuint (planar_hlo_index_get_n_modules (index), ==, 0);
  planar_hlo_index_free (index);
}

static void
test_damaged (void)
{
  g_autoptr(GByteArray) cycle = make_module (DAMAGE_CYCLE);
  g_autoptr(GByteArray) frame_id = make_module (DAMAGE_FRAME_ID);
  g_autoptr(GByteArray) frame_cycle = make_module (DAMAGE_FRAME_CYCLE);
  g_autoptr(GByteArray) operand = make_module (DAMAGE_OPERAND);
  g_autoptr(GByteArray) good = make_module (DAMAGE_NONE);
  g_autoptr(GByteArray) wrong = g_byte_array_new ();
  g_autoptr(GByteArray) empty = g_byte_array_new ();
  GByteArray *module = g_byte_array_new ();

  assert_refused (cycle, "calls itself");
  assert_refused (frame_id, "stack frame 3 of instruction dot.4");
  assert_refused (frame_cycle, "own ancestor");
  assert_refused (operand, "operand 10 of instruction dot.4");
  assert_refused (empty, "no module");

  /* The module's name as a number: the wrong wire type. */
  planar_test_hlo_put_int (module, 1, 5);
  planar_test_hlo_put_msg (wrong, 1, module);
  assert_refused (wrong, "wrong wire type");

  /* Every cut of a good module: refused or read, never a crash. */
  for (guint len = 0; len < good->len; len++)
    {
      PlanarHloIndex *index = planar_hlo_index_new ();
      GError *error = NULL;

      if (!planar_hlo_index_add (index, 1, good->data, len, &error))
        {
          g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT);
          g_clear_error (&error);
        }
      planar_hlo_index_free (index);
    }

  /* Every byte flipped: the same. */
  for (guint i = 0; i < good->len; i++)
    {
      g_autofree guint8 *copy = g_memdup2 (good->data, good->len);
      PlanarHloIndex *index = planar_hlo_index_new ();
      GError *error = NULL;

      copy[i] ^= 0xff;
      if (!planar_hlo_index_add (index, 1, copy, good->len, &error))
        g_clear_error (&error);
      planar_hlo_index_free (index);
    }
}

/* A module given twice: the last one is read (and the first's field not
 * leaked: tests/fuzz/crashers/hlo/ keeps the input fuzz-hlo found). */
static void
test_module_twice (void)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  GByteArray *first = g_byte_array_new (), *second = g_byte_array_new ();
  PlanarHloIndex *index = planar_hlo_index_new ();
  g_autoptr(GError) error = NULL;

  planar_test_hlo_put_str (first, 1, "first");
  planar_test_hlo_put_str (second, 1, "second");
  planar_test_hlo_put_msg (bytes, 1, first);
  planar_test_hlo_put_msg (bytes, 1, second);
  g_assert_true (planar_hlo_index_add (index, 1, bytes->data, bytes->len, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (planar_hlo_index_find_module (index, 1)->name, ==, "second");
  planar_hlo_index_free (index);
}

/* A backend_config with a NUL byte (a binary config): the text stops
 * there, and so does its length. */
static void
test_binary_backend_config (void)
{
  static const char config[] = { '{', '}', '\0', 'x', 'y' };
  GByteArray *ins = g_byte_array_new (), *c = g_byte_array_new (), *m = g_byte_array_new ();
  g_autoptr(GByteArray) bytes = NULL;
  PlanarHloIndex *index = planar_hlo_index_new ();
  const PlanarHloModule *mod;
  const PlanarHloExtra *extra;
  g_autoptr(GError) error = NULL;

  planar_test_hlo_put_str (ins, 1, "cc");
  planar_test_hlo_put_str (ins, 2, "custom-call");
  planar_test_hlo_put_bytes (ins, 43, config, sizeof config);
  planar_test_hlo_put_msg (c, 2, ins);
  planar_test_hlo_put_msg (m, 3, c);
  bytes = planar_test_hlo_wrap_module (m);
  g_assert_true (planar_hlo_index_add (index, 1, bytes->data, bytes->len, &error));
  mod = planar_hlo_index_find_module (index, 1);
  extra = planar_hlo_instruction_get_extra (mod, planar_hlo_module_find_instruction (mod, "cc", -1));
  g_assert_cmpstr (extra->backend_config, ==, "{}");
  g_assert_cmpuint (extra->backend_config_len, ==, 2);
  planar_hlo_index_free (index);
}

/* Tuples nested past any real shape are refused, not recursed into. */
static void
test_deep_shape (void)
{
  GByteArray *s = planar_test_hlo_shape (11, NULL, 0);
  GByteArray *ins = g_byte_array_new (), *c = g_byte_array_new (), *m = g_byte_array_new ();
  g_autoptr(GByteArray) bytes = NULL;

  for (guint i = 0; i < 100; i++)
    {
      GByteArray *outer = g_byte_array_new ();

      planar_test_hlo_put_int (outer, 2, 13);
      planar_test_hlo_put_msg (outer, 4, s);
      s = outer;
    }
  planar_test_hlo_put_str (ins, 1, "deep");
  planar_test_hlo_put_msg (ins, 3, s);
  planar_test_hlo_put_msg (c, 2, ins);
  planar_test_hlo_put_msg (m, 3, c);
  bytes = planar_test_hlo_wrap_module (m);
  assert_refused (bytes, "deeper");
}

/* A module of 10^6 instructions: each a realistic size (names, a shape
 * with layout, metadata with an op name and a source line, operands). The
 * index stays within twice its serialized bytes. */
static void
test_memory_budget (void)
{
  const guint n = 1000000;
  GByteArray *c = g_byte_array_new ();
  GByteArray *m = g_byte_array_new ();
  g_autoptr(GByteArray) bytes = NULL;
  PlanarHloIndex *index = planar_hlo_index_new ();
  g_autoptr(GError) error = NULL;
  guint64 memory, serialized;

  for (guint i = 0; i < n; i++)
    {
      char name[32], op_name[96];
      gint64 ops[2] = { i > 0 ? i : 0, i > 1 ? i - 1 : 0 };
      PlanarTestHloIns in = { name, i % 3 == 0 ? "fusion" : "add", i + 1, i % 2 ? 11 : 16, { 32, 128 + i % 4 }, 2,
                 ops, i > 1 ? 2 : 0, NULL, 0, "", op_name, "/src/model/layers.py", (gint) (i % 500) };

      g_snprintf (name, sizeof name, "%s.%u", in.opcode, i);
      g_snprintf (op_name, sizeof op_name, "jit(train_step)/jit(main)/layer_%u/add", i % 1000);
      planar_test_hlo_put_msg (c, 2, planar_test_hlo_instruction (&in));
    }
  planar_test_hlo_put_str (c, 1, "main");
  planar_test_hlo_put_int (c, 5, 1);
  planar_test_hlo_put_str (m, 1, "jit_big");
  planar_test_hlo_put_msg (m, 3, c);
  bytes = planar_test_hlo_wrap_module (m);

  g_assert_true (planar_hlo_index_add (index, 1, bytes->data, bytes->len, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (planar_hlo_index_find_module (index, 1)->n_instructions, ==, n);
  g_assert_nonnull (planar_hlo_index_lookup (index, 1, "add.999998", NULL));
  memory = planar_hlo_index_get_memory (index);
  serialized = planar_hlo_index_get_serialized_bytes (index);
  g_test_message ("10^6 instructions: %" G_GUINT64_FORMAT " bytes serialized, %" G_GUINT64_FORMAT
                  " bytes indexed (%.2fx)", serialized, memory, (double) memory / (double) serialized);
  g_assert_cmpuint (memory, <=, 2 * serialized);
  planar_hlo_index_free (index);
}

/* The index of one module of @bytes: memory / serialized bytes. */
static double
module_ratio (const guint8 *data,
              gsize         len)
{
  PlanarHloIndex *index = planar_hlo_index_new ();
  g_autoptr(GError) error = NULL;
  double ratio;

  g_assert_true (planar_hlo_index_add (index, 1, data, len, &error));
  g_assert_no_error (error);
  ratio = (double) planar_hlo_index_get_memory (index) / (double) planar_hlo_index_get_serialized_bytes (index);
  planar_hlo_index_free (index);
  return ratio;
}

/* A small module (7 KB, as a jitted function of a few ops makes): fixed
 * costs per module and per instruction must not take it past the budget
 * either. Parameters, fusions with their fused computations, a reduce,
 * broadcasts with dimensions, a GEMM custom call with a backend_config,
 * metadata with op names and source lines. */
static void
test_memory_small (void)
{
  GByteArray *m = g_byte_array_new ();
  g_autoptr(GByteArray) bytes = NULL;
  gint64 next_id = 1;
  double ratio;

  planar_test_hlo_put_str (m, 1, "jit_small");
  for (guint c = 0; c < 9; c++)
    {
      GByteArray *comp = g_byte_array_new ();
      g_autofree char *comp_name = g_strdup_printf ("fused_computation.%u", c);
      gint64 first = next_id;

      for (guint i = 0; i < 6; i++)
        {
          char name[32], op_name[96];
          gint64 ops[2] = { first, first + 1 };
          const char *opcode = i < 2 ? "parameter" : (i == 5 ? "broadcast" : (i % 2 ? "multiply" : "add"));
          PlanarTestHloIns in = { name, opcode, next_id++, i % 2 ? 11 : 16, { 128, 256 }, 2,
                                  ops, i < 2 ? 0 : 2, NULL, 0, NULL, op_name, "/src/model/layers.py",
                                  (gint) (20 + i), 0, i == 1 };
          GByteArray *ib;

          g_snprintf (name, sizeof name, "%s.%u.%u", opcode, c, i);
          g_snprintf (op_name, sizeof op_name, "jit(train_step)/jit(main)/block_%u/%s", c, opcode);
          ib = planar_test_hlo_instruction (&in);
          if (i == 5)
            {
              const gint64 dims[] = { 0, 1 };

              planar_test_hlo_put_packed (ib, 14, dims, 2);
            }
          planar_test_hlo_put_msg (comp, 2, ib);
        }
      planar_test_hlo_put_str (comp, 1, comp_name);
      planar_test_hlo_put_int (comp, 5, 100 + c);
      planar_test_hlo_put_int (comp, 6, next_id - 1);
      planar_test_hlo_put_int (comp, 7, 1);
      planar_test_hlo_put_msg (m, 3, comp);
    }
  /* The entry: a fusion per fused computation, and a GEMM. */
  {
    GByteArray *comp = g_byte_array_new ();
    gint64 p0 = next_id;

    for (guint c = 0; c < 10; c++)
      {
        char name[32];
        gint64 ops[2] = { p0, c > 0 ? next_id - 1 : p0 };
        gint64 called[1] = { 100 + c };
        PlanarTestHloIns in = { name, c == 0 ? "parameter" : "fusion", next_id++, 16, { 128, 256 }, 2,
                                ops, c == 0 ? 0 : 2, called, c == 0 ? 0 : 1, NULL, "jit(train_step)/jit(main)/fused",
                                "/src/model/train.py", 40 };
        GByteArray *ib;

        g_snprintf (name, sizeof name, c == 0 ? "param.%u" : "fusion.%u", c);
        /* Only 9 fused computations: the tenth calls the first again. */
        if (c == 9)
          called[0] = 100;
        ib = planar_test_hlo_instruction (&in);
        if (c > 0)
          planar_test_hlo_put_str (ib, 11, "kLoop");
        planar_test_hlo_put_msg (comp, 2, ib);
      }
    {
      gint64 ops[2] = { next_id - 1, p0 };
      PlanarTestHloIns in = { "custom-call.1", "custom-call", next_id++, 16, { 128, 128 }, 2, ops, 2, NULL, 0,
                              NULL, "jit(train_step)/jit(main)/dot_general", "/src/model/train.py", 41 };
      GByteArray *ib = planar_test_hlo_instruction (&in);

      planar_test_hlo_put_str (ib, 28, "__cublas$lt$matmul");
      planar_test_hlo_put_str (ib, 43, "{\"gemm_backend_config\":{\"alpha_real\":1,\"dot_dimension_numbers\":"
                                       "{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"1\"]}}}");
      planar_test_hlo_put_msg (comp, 2, ib);
    }
    planar_test_hlo_put_str (comp, 1, "main");
    planar_test_hlo_put_int (comp, 5, 1);
    planar_test_hlo_put_int (comp, 6, next_id - 1);
    planar_test_hlo_put_msg (m, 3, comp);
  }
  planar_test_hlo_put_int (m, 6, 1);
  bytes = planar_test_hlo_wrap_module (m);

  ratio = module_ratio (bytes->data, bytes->len);
  g_test_message ("a module of %u bytes: %.2fx", bytes->len, ratio);
  g_assert_cmpuint (bytes->len, >=, 5000);
  g_assert_cmpuint (bytes->len, <=, 9000);
  g_assert_cmpfloat (ratio, <=, 2.0);
}

/* Each module of the samples that hold HloProtos, indexed alone, and all
 * of a sample's together, within the budget. */
static void
test_memory_samples (void)
{
  static const char * const names[] = { "tracelens_mi300_jax08_attention_tw003.xplane.pb",
                                        "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb" };

  if (!planar_test_need_samples ())
    return;
  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    {
      g_autofree char *path = planar_test_sample_path (names[n]);
      g_autoptr(PlanarTrace) trace = planar_test_load_ok (path);
      const PlanarPlane *plane = planar_trace_find_plane (trace, "/host:metadata");
      const PlanarHloIndex *all = planar_trace_get_hlo_index (trace);
      guint modules = 0;
      double worst = 0;

      g_assert_nonnull (plane);
      g_assert_nonnull (all);
      for (guint m = 0; m < plane->n_metadata; m++)
        for (guint s = 0; s < plane->metadata[m].n_stats; s++)
          {
            const PlanarStat *stat = &plane->metadata[m].stats[s];
            double ratio;

            if (strcmp (stat->name, "Hlo Proto") != 0)
              continue;
            ratio = module_ratio ((const guint8 *) stat->str.data, stat->str.len);
            g_test_message ("%s: module %" G_GINT64_FORMAT " of %" G_GSIZE_FORMAT " bytes: %.2fx", names[n],
                            plane->metadata[m].id, stat->str.len, ratio);
            worst = MAX (worst, ratio);
            modules++;
          }
      g_assert_cmpuint (modules, >, 0);
      g_test_message ("%s: %u modules, the worst %.2fx, all together %.2fx", names[n], modules, worst,
                      (double) planar_hlo_index_get_memory (all) / (double) planar_hlo_index_get_serialized_bytes (all));
      g_assert_cmpfloat (worst, <=, 2.0);
      g_assert_cmpuint (planar_hlo_index_get_memory (all), <=, 2 * planar_hlo_index_get_serialized_bytes (all));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hlo/decode", test_decode);
  g_test_add_func ("/hlo/source-from-stack", test_source_from_stack);
  g_test_add_func ("/hlo/unpacked", test_unpacked);
  g_test_add_func ("/hlo/damaged", test_damaged);
  g_test_add_func ("/hlo/deep-shape", test_deep_shape);
  g_test_add_func ("/hlo/module-twice", test_module_twice);
  g_test_add_func ("/hlo/binary-backend-config", test_binary_backend_config);
  g_test_add_func ("/hlo/memory-budget", test_memory_budget);
  g_test_add_func ("/hlo/memory-small", test_memory_small);
  g_test_add_func ("/hlo/memory-samples", test_memory_samples);
  return g_test_run ();
}
