/* test-op-name.c: framework op names (model/derive/planar-op-name.c), a
 * table of names as TensorFlow, JAX and the profilers write them in `tf_op`
 * stats, with damaged and hostile ones.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-op-name.h"

#include <string.h>

#define U PLANAR_OP_CATEGORY_UNKNOWN
#define TF PLANAR_OP_CATEGORY_TENSORFLOW
#define JAX PLANAR_OP_CATEGORY_JAX
#define DATA PLANAR_OP_CATEGORY_TF_DATA
#define COPY PLANAR_OP_CATEGORY_MEMCPY

typedef struct
{
  const char      *text;
  PlanarOpCategory category;
  const char      *name;     /* what the parse calls the op's name */
  const char      *type;
  const char      *display;  /* what a Framework Ops event shows */
} Case;

static const Case cases[] = {
  /* TensorFlow: name scopes, the op's name, ':' and its type. */
  { "model/dense/MatMul:MatMul", TF, "model/dense/MatMul", "MatMul", "MatMul" },
  { "MatMul:MatMul", TF, "MatMul", "MatMul", "MatMul" },
  { "gradient_tape/model/dense/MatMul_1:MatMul", TF, "gradient_tape/model/dense/MatMul_1", "MatMul", "MatMul" },
  { "while/body/_1/Adam/update_3/ResourceApplyAdam:ResourceApplyAdam", TF,
    "while/body/_1/Adam/update_3/ResourceApplyAdam", "ResourceApplyAdam", "ResourceApplyAdam" },
  { "sequential/conv2d/Conv2D:Conv2D", TF, "sequential/conv2d/Conv2D", "Conv2D", "Conv2D" },
  { "model/layer:_Send", TF, "model/layer", "_Send", "_Send" },
  { "1.x/scope-a/op>b:Identity", TF, "1.x/scope-a/op>b", "Identity", "Identity" },
  { ".hidden/Op:Op", TF, ".hidden/Op", "Op", "Op" },
  /* No type after the colon: the name's last part, less a numeric suffix. */
  { "model/MatMul:", TF, "model/MatMul", "MatMul", "MatMul" },
  { "model/MatMul_12:", TF, "model/MatMul_12", "MatMul", "MatMul" },
  { "model/MatMul_x:", TF, "model/MatMul_x", "MatMul_x", "MatMul_x" },
  { "model/AddV2_-3:", TF, "model/AddV2_-3", "AddV2", "AddV2" },
  /* ... which makes a lower-case last part a JAX primitive. */
  { "model/relu_1:", JAX, "model/relu_1", "relu", "relu" },
  /* A first part TensorFlow does not allow, and a type JAX does not. */
  { "_SOURCE:NoOp", U, "_SOURCE:NoOp", "", "_SOURCE:NoOp" },
  { "model dense/MatMul:MatMul", U, "model dense/MatMul:MatMul", "", "model dense/MatMul:MatMul" },

  /* JAX: transformations and name scopes, then the primitive. */
  { "jit(train_step)/jit(main)/dot_general:dot_general", JAX, "jit(train_step)/jit(main)/dot_general",
    "dot_general", "dot_general" },
  { "jit(f)/jvp(g)/mul:mul", JAX, "jit(f)/jvp(g)/mul", "mul", "mul" },
  { "jit(f)/transpose(jvp(g))/mul:", JAX, "jit(f)/transpose(jvp(g))/mul", "mul", "mul" },
  { "jit(train_step)/jit(main)/transpose(jvp(Model))/Dense_0/dot_general:", JAX,
    "jit(train_step)/jit(main)/transpose(jvp(Model))/Dense_0/dot_general", "dot_general", "dot_general" },
  { "pmap(train_step)/jit(main)/psum:psum", JAX, "pmap(train_step)/jit(main)/psum", "psum", "psum" },
  { "xmap(f)/while/body/add:add", JAX, "xmap(f)/while/body/add", "add", "add" },
  { "jit(f)/_where:_where", JAX, "jit(f)/_where", "_where", "_where" },
  { "jit(f)/reduce_max2:", JAX, "jit(f)/reduce_max2", "reduce_max2", "reduce_max2" },
  /* Parameters in brackets, even with a colon or a slash-free scope. */
  { "pmap(step)/reduce_sum[axes=(0,)]:reduce_sum[axes=(0,)]", JAX, "pmap(step)/reduce_sum[axes=(0,)]",
    "reduce_sum", "reduce_sum" },
  { "jit(f)/convert_element_type[new_dtype=float32 weak_type=False]:", JAX,
    "jit(f)/convert_element_type[new_dtype=float32 weak_type=False]", "convert_element_type",
    "convert_element_type" },
  { "jit(f)/cond[linear=(False, False)]/branch_1_fun/mul:mul", JAX,
    "jit(f)/cond[linear=(False, False)]/branch_1_fun/mul", "mul", "mul" },
  { "jit(f)/gather[dimension_numbers=GatherDimensionNumbers(offset_dims=(), start_index_map=(0,))]:", JAX,
    "jit(f)/gather[dimension_numbers=GatherDimensionNumbers(offset_dims=(), start_index_map=(0,))]",
    "gather", "gather" },
  /* Brackets that do not close, or hold a line break: not a JAX type. */
  { "jit(f)/scan[length=3:scan[length=3", U, "jit(f)/scan[length=3:scan[length=3", "",
    "jit(f)/scan[length=3:scan[length=3" },
  { "jit(f)/op[a\nb]:", TF, "jit(f)/op[a\nb]", "op[a\nb]", "op[a\nb]" },
  { "jit(f)/op[]:", JAX, "jit(f)/op[]", "op", "op" },

  /* tf.data: "Iterator::" and the iterator's last part. */
  { "Iterator::Model::MapAndBatch", DATA, "Iterator::Model::MapAndBatch", "Dataset", "Iterator::MapAndBatch" },
  { "Iterator::Root", DATA, "Iterator::Root", "Dataset", "Iterator::Root" },
  { "Iterator::Model::ParallelMapV2::TFRecord", DATA, "Iterator::Model::ParallelMapV2::TFRecord", "Dataset",
    "Iterator::TFRecord" },
  { "Iterator:", DATA, "Iterator:", "Dataset", "Iterator::Iterator:" },
  { "Iterators::Root", U, "Iterators::Root", "", "Iterators::Root" },

  /* Copies, any case, any suffix; only without a colon. */
  { "MEMCPYHToD", COPY, "MEMCPYHToD", "MemcpyHToD", "MemcpyHToD" },
  { "MEMCPYDToH", COPY, "MEMCPYDToH", "MemcpyDToH", "MemcpyDToH" },
  { "MemcpyDToD_async", COPY, "MemcpyDToD_async", "MemcpyDToD", "MemcpyDToD" },
  { "memcpyhtoh", COPY, "memcpyhtoh", "MemcpyHToH", "MemcpyHToH" },
  { "MEMCPYHToD:Copy", TF, "MEMCPYHToD", "Copy", "Copy" },
  { "MEMCPY", U, "MEMCPY", "", "MEMCPY" },

  /* Anything else is shown as it is, less trailing white space. */
  { "Thunk", U, "Thunk", "", "Thunk" },
  { "ncclAllReduce  \t\n", U, "ncclAllReduce  \t\n", "", "ncclAllReduce" },
  { "void cutlass::Kernel<Gemm>(Params)", U, "void cutlass::Kernel<Gemm>(Params)", "",
    "void cutlass::Kernel<Gemm>(Params)" },
  { "  leading", U, "  leading", "", "  leading" },

  /* Empty and degenerate. */
  { "", U, "", "", "" },
  { " ", U, " ", "", "" },
  { ":", TF, "", "", "" },
  { "::", U, "::", "", "::" },
  { ":MatMul", U, ":MatMul", "", ":MatMul" },
  { ":relu", JAX, "", "relu", "relu" },
  { "a:b:c", U, "a:b:c", "", "a:b:c" },
  { "/:", TF, "/", "", "" },
  { "a/b/:", TF, "a/b/", "", "" },
  { "\xff\xfe:Op", U, "\xff\xfe:Op", "", "\xff\xfe:Op" },
  { "scope/\xc3\xa9t\xc3\xa9:MatMul", U, "scope/\xc3\xa9t\xc3\xa9:MatMul", "", "scope/\xc3\xa9t\xc3\xa9:MatMul" },
};

static char *
printable (const char *s,
           gsize       len)
{
  g_autofree char *copy = g_strndup (s, len);

  return g_strescape (copy, NULL);
}

static void
check_case (const char *text,
            gsize       len,
            const Case *c)
{
  PlanarOpName op;
  g_autoptr(GString) display = g_string_new ("junk");
  g_autofree char *shown = printable (text, len);

  planar_op_name_parse (text, len, &op);
  if (op.category != c->category || op.name_len != strlen (c->name) ||
      memcmp (op.name, c->name, op.name_len) != 0 || op.type_len != strlen (c->type) ||
      memcmp (op.type, c->type, op.type_len) != 0)
    {
      g_autofree char *name = printable (op.name, op.name_len);
      g_autofree char *type = printable (op.type, op.type_len);

      g_error ("\"%s\": category %d, name \"%s\", type \"%s\"; expected %d, \"%s\", \"%s\"", shown,
               op.category, name, type, c->category, c->name, c->type);
    }
  /* The name is the text's own bytes, never a copy. */
  if (op.name_len > 0)
    g_assert_true (op.name >= text && op.name + op.name_len <= text + len);
  planar_op_name_display (&op, display);
  if (strcmp (display->str, c->display) != 0)
    g_error ("\"%s\": shows \"%s\", expected \"%s\"", shown, display->str, c->display);
}

static void
test_table (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      /* A copy without its NUL: the parser must not read past @len. */
      gsize len = strlen (cases[i].text);
      g_autofree char *copy = g_memdup2 (cases[i].text, MAX (len, 1));

      check_case (copy, len, &cases[i]);
    }
}

/* Bytes past @len are not part of the name. */
static void
test_length_bounds (void)
{
  const char *text = "model/MatMul:MatMul trailing";
  PlanarOpName op;
  g_autoptr(GString) display = g_string_new (NULL);

  planar_op_name_parse (text, strlen ("model/MatMul:MatMul"), &op);
  g_assert_cmpint (op.category, ==, PLANAR_OP_CATEGORY_TENSORFLOW);
  g_assert_cmpuint (op.type_len, ==, strlen ("MatMul"));
  planar_op_name_parse (text, strlen ("model/MatMul"), &op);
  g_assert_cmpint (op.category, ==, PLANAR_OP_CATEGORY_UNKNOWN);
  planar_op_name_display (&op, display);
  g_assert_cmpstr (display->str, ==, "model/MatMul");

  planar_op_name_parse (NULL, 0, &op);
  g_assert_cmpint (op.category, ==, PLANAR_OP_CATEGORY_UNKNOWN);
  g_assert_cmpuint (op.name_len, ==, 0);
  g_assert_cmpuint (op.type_len, ==, 0);
  planar_op_name_display (&op, display);
  g_assert_cmpstr (display->str, ==, "");
}

/* A NUL inside the text is a byte like any other. */
static void
test_embedded_nul (void)
{
  static const char text[] = "a\0b:MatMul";
  static const char jax[] = "jit(f)/\0x/mul:mul";
  PlanarOpName op;
  g_autoptr(GString) display = g_string_new (NULL);

  planar_op_name_parse (text, sizeof text - 1, &op);
  g_assert_cmpint (op.category, ==, PLANAR_OP_CATEGORY_UNKNOWN);
  g_assert_cmpuint (op.name_len, ==, sizeof text - 1);
  planar_op_name_display (&op, display);
  g_assert_cmpuint (display->len, ==, sizeof text - 1);
  g_assert_cmpmem (display->str, display->len, text, sizeof text - 1);

  planar_op_name_parse (jax, sizeof jax - 1, &op);
  g_assert_cmpint (op.category, ==, PLANAR_OP_CATEGORY_JAX);
  g_assert_cmpmem (op.type, op.type_len, "mul", 3);
  g_assert_cmpuint (op.name_len, ==, sizeof jax - 1 - strlen (":mul"));
}

/* Long and repetitive names cost time linear in their length. */
static void
test_long (void)
{
  gsize n = 1 << 20;
  g_autofree char *scopes = g_malloc (n + 16);
  PlanarOpName op;
  g_autoptr(GString) display = g_string_new (NULL);

  for (gsize i = 0; i < n; i += 2)
    memcpy (scopes + i, "a/", 2);
  memcpy (scopes + n, "MatMul_7:", 9);
  planar_op_name_parse (scopes, n + 9, &op);
  g_assert_cmpint (op.category, ==, PLANAR_OP_CATEGORY_TENSORFLOW);
  g_assert_cmpmem (op.type, op.type_len, "MatMul", 6);
  g_assert_cmpuint (op.name_len, ==, n + 8);

  /* "::" repeated: tf.data's last part. */
  memcpy (scopes, "Iterator", 8);
  for (gsize i = 8; i + 2 <= n; i += 2)
    memcpy (scopes + i, "::", 2);
  memcpy (scopes + n, "Map", 3);
  planar_op_name_parse (scopes, n + 3, &op);
  g_assert_cmpint (op.category, ==, PLANAR_OP_CATEGORY_TF_DATA);
  planar_op_name_display (&op, display);
  g_assert_cmpstr (display->str, ==, "Iterator::Map");

  /* One huge bracket. */
  memcpy (scopes, "jit(f)/op[", 10);
  memset (scopes + 10, 'x', n - 10);
  memcpy (scopes + n, "]:", 2);
  planar_op_name_parse (scopes, n + 2, &op);
  g_assert_cmpint (op.category, ==, PLANAR_OP_CATEGORY_JAX);
  g_assert_cmpmem (op.type, op.type_len, "op", 2);
}

static void
test_derive_type (void)
{
  static const struct { const char *name; const char *type; } table[] = {
    { "model/layer/MatMul_1", "MatMul" },
    { "MatMul", "MatMul" },
    { "MatMul_", "MatMul_" },
    { "a/b_-1", "b" },
    { "a/b_+2", "b" },
    { "a/b_+", "b_+" },
    { "a/b_1_2", "b_1" },
    { "a/b_1x", "b_1x" },
    { "a/", "" },
    { "/", "" },
    { "", "" },
    { "_3", "" },
    { "jit(f)/transpose(jvp(g))/mul", "mul" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    {
      const char *type = NULL;
      gsize len = 0;

      planar_op_name_derive_type (table[i].name, strlen (table[i].name), &type, &len);
      g_assert_cmpmem (type, len, table[i].type, strlen (table[i].type));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/op-name/table", test_table);
  g_test_add_func ("/op-name/length-bounds", test_length_bounds);
  g_test_add_func ("/op-name/embedded-nul", test_embedded_nul);
  g_test_add_func ("/op-name/long", test_long);
  g_test_add_func ("/op-name/derive-type", test_derive_type);
  return g_test_run ();
}
