/* test-hlo-cost.c: FLOPs and bytes estimated from HLO (planar-hlo-cost.h),
 * checked against the formulas computed here from the shapes, and the
 * instructions' HLO text. The module is built in memory, as the index
 * holds it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hlo-cost.h"

#include <string.h>

/* Shapes */
enum
{
  S_LHS,      /* f32[8,16] */
  S_RHS,      /* f32[16,32] */
  S_OUT,      /* f32[8,32] */
  S_IMG,      /* f32[2,32,32,6]  b01f */
  S_KER,      /* f32[3,3,3,8]    01io, 2 groups of 3 input features */
  S_CONV,     /* f32[2,30,30,8]  b01f */
  S_SCALAR,   /* f32[] */
  S_ROW,      /* f32[8] */
  S_WS,       /* s8[1024] */
  S_GEMM,     /* (f32[8,32], s8[1024]) */
  S_CUDNN,    /* (f32[2,30,30,8], s8[1024]) */
  N_SHAPES
};

static const gint64 d_lhs[] = { 8, 16 }, d_rhs[] = { 16, 32 }, d_out[] = { 8, 32 };
static const gint64 d_img[] = { 2, 32, 32, 6 }, d_ker[] = { 3, 3, 3, 8 }, d_conv[] = { 2, 30, 30, 8 };
static const gint64 d_row[] = { 8 }, d_ws[] = { 1024 };
static const guint32 t_gemm[] = { S_OUT, S_WS }, t_cudnn[] = { S_CONV, S_WS };

static const PlanarHloShape shapes[N_SHAPES] = {
  [S_LHS] = { PLANAR_HLO_TYPE_F32, 2, d_lhs, 0, NULL, 0, "f32[8,16]{1,0}" },
  [S_RHS] = { PLANAR_HLO_TYPE_F32, 2, d_rhs, 0, NULL, 0, "f32[16,32]{1,0}" },
  [S_OUT] = { PLANAR_HLO_TYPE_F32, 2, d_out, 0, NULL, 0, "f32[8,32]{1,0}" },
  [S_IMG] = { PLANAR_HLO_TYPE_F32, 4, d_img, 0, NULL, 0, "f32[2,32,32,6]{3,2,1,0}" },
  [S_KER] = { PLANAR_HLO_TYPE_F32, 4, d_ker, 0, NULL, 0, "f32[3,3,3,8]{3,2,1,0}" },
  [S_CONV] = { PLANAR_HLO_TYPE_F32, 4, d_conv, 0, NULL, 0, "f32[2,30,30,8]{3,2,1,0}" },
  [S_SCALAR] = { PLANAR_HLO_TYPE_F32, 0, NULL, 0, NULL, 0, "f32[]" },
  [S_ROW] = { PLANAR_HLO_TYPE_F32, 1, d_row, 0, NULL, 0, "f32[8]{0}" },
  [S_WS] = { PLANAR_HLO_TYPE_S8, 1, d_ws, 0, NULL, 0, "s8[1024]{0}" },
  [S_GEMM] = { PLANAR_HLO_TYPE_TUPLE, 0, NULL, 2, t_gemm, 0, "(f32[8,32]{1,0}, s8[1024]{0})" },
  [S_CUDNN] = { PLANAR_HLO_TYPE_TUPLE, 0, NULL, 2, t_cudnn, 0, "(f32[2,30,30,8]{3,2,1,0}, s8[1024]{0})" },
};

/* Instructions: the fused computation (0-4), the reducer (5-7), the entry
 * (8-). */
enum
{
  F_P0, F_P1, F_MUL, F_EXP, F_ADD,
  R_X, R_Y, R_ADD,
  E_LHS, E_RHS, E_DOT, E_IMG, E_KER, E_CONV, E_FUSION, E_ZERO, E_REDUCE, E_GEMM, E_LT, E_TE, E_CUDNN, E_SORT,
  E_TUPLE,
  N_INS
};

enum { C_FUSED, C_REDUCER, C_ENTRY, N_COMPS };

enum { X_DOT, X_CONV, X_FUSION, X_REDUCE, X_GEMM, X_LT, X_TE, X_CUDNN, N_EXTRAS };

static const gint64 one[] = { 1 }, zero[] = { 0 };
static const gint64 img_spatial[] = { 1, 2 }, ker_spatial[] = { 0, 1 };

static const PlanarHloConvDims conv_dims = {
  .input_batch = 0, .input_feature = 3, .kernel_input_feature = 2, .kernel_output_feature = 3,
  .output_batch = 0, .output_feature = 3,
  .input_spatial = img_spatial, .kernel_spatial = ker_spatial, .output_spatial = img_spatial,
  .n_input_spatial = 2, .n_kernel_spatial = 2, .n_output_spatial = 2,
};

static const PlanarHloDotDims dot_dims = {
  .lhs_contracting = one, .rhs_contracting = zero, .n_lhs_contracting = 1, .n_rhs_contracting = 1,
};

static const PlanarHloWindowDim window[] = {
  { 3, 1, 0, 0, 1, 1, FALSE },
  { 3, 1, 0, 0, 1, 1, FALSE },
};

static const char gemm_config[] =
  "{\"operation_queue_id\":\"0\",\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":0,"
  "\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],"
  "\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},\"precision_config\":{}}}";
/* Older XLA: the GemmBackendConfig itself, ints as numbers. */
static const char lt_config[] =
  "{\"alpha_real\":1,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[1],"
  "\"rhs_contracting_dimensions\":[0]}}";
static const char te_config[] = "#mlir<{is_training = true, scaling_factor = 1.250000e-01 : f32}>";
static const char cudnn_config[] = "{\"cudnn_conv_backend_config\":{\"activation_mode\":\"kNone\"}}";

static PlanarHloExtra extras[N_EXTRAS];
static PlanarHloInstruction ins[N_INS];
static PlanarHloComputation comps[N_COMPS];
static guint32 refs[64];
static guint n_refs;
static PlanarHloModule module;

static void
set (guint        i,
     const char  *name,
     const char  *opcode,
     guint32      shape,
     guint32      computation,
     guint32      extra,
     const guint *operands,
     guint        n_operands,
     gint         called)
{
  PlanarHloInstruction *in = &ins[i];

  *in = (PlanarHloInstruction) { .name = name, .opcode = opcode, .op_type = "", .op_name = "", .source_file = "",
                                 .fusion_kind = "",
                                 .computation = computation, .shape = shape, .extra = extra };
  in->operands = n_refs;
  in->n_operands = n_operands;
  for (guint k = 0; k < n_operands; k++)
    refs[n_refs++] = operands[k];
  in->called = n_refs;
  if (called >= 0)
    {
      refs[n_refs++] = (guint32) called;
      in->n_called = 1;
    }
}

static void
extra (guint       x,
       const char *target,
       const char *config)
{
  extras[x] = (PlanarHloExtra) { .custom_call_target = target,
                                 .backend_config = config, .backend_config_len = strlen (config) };
}

static void
build_module (void)
{
  static const guint f_mul[] = { F_P0, F_P1 }, f_exp[] = { F_MUL }, f_add[] = { F_MUL, F_EXP };
  static const guint r_add[] = { R_X, R_Y };
  static const guint e_dot[] = { E_LHS, E_RHS }, e_conv[] = { E_IMG, E_KER }, e_fusion[] = { E_DOT, E_DOT };
  static const guint e_reduce[] = { E_FUSION, E_ZERO }, e_sort[] = { E_ZERO }, e_tuple[] = { E_REDUCE };
  const guint none = PLANAR_HLO_NONE;

  n_refs = 0;
  for (guint x = 0; x < N_EXTRAS; x++)
    extra (x, "", "");
  extras[X_DOT].dot = &dot_dims;
  extras[X_CONV].conv = &conv_dims;
  extras[X_CONV].window = window;
  extras[X_CONV].n_window = 2;
  extras[X_CONV].feature_group_count = 2;
  extras[X_REDUCE].dimensions = one;
  extras[X_REDUCE].n_dimensions = 1;
  extra (X_GEMM, "__cublas$gemm", gemm_config);
  extra (X_LT, "__cublas$lt$matmul", lt_config);
  extra (X_TE, "te_fused_attn_forward", te_config);
  extra (X_CUDNN, "__cudnn$convForward", cudnn_config);
  extras[X_CUDNN].conv = &conv_dims;
  extras[X_CUDNN].window = window;
  extras[X_CUDNN].n_window = 2;
  extras[X_CUDNN].feature_group_count = 2;

  set (F_P0, "param_0", "parameter", S_OUT, C_FUSED, none, NULL, 0, -1);
  set (F_P1, "param_1", "parameter", S_OUT, C_FUSED, none, NULL, 0, -1);
  ins[F_P1].parameter_number = 1;
  set (F_MUL, "multiply.1", "multiply", S_OUT, C_FUSED, none, f_mul, 2, -1);
  set (F_EXP, "exponential.1", "exponential", S_OUT, C_FUSED, none, f_exp, 1, -1);
  set (F_ADD, "add.1", "add", S_OUT, C_FUSED, none, f_add, 2, -1);
  set (R_X, "x", "parameter", S_SCALAR, C_REDUCER, none, NULL, 0, -1);
  set (R_Y, "y", "parameter", S_SCALAR, C_REDUCER, none, NULL, 0, -1);
  set (R_ADD, "add.2", "add", S_SCALAR, C_REDUCER, none, r_add, 2, -1);
  set (E_LHS, "lhs", "parameter", S_LHS, C_ENTRY, none, NULL, 0, -1);
  set (E_RHS, "rhs", "parameter", S_RHS, C_ENTRY, none, NULL, 0, -1);
  set (E_DOT, "dot.3", "dot", S_OUT, C_ENTRY, X_DOT, e_dot, 2, -1);
  set (E_IMG, "img", "parameter", S_IMG, C_ENTRY, none, NULL, 0, -1);
  set (E_KER, "ker", "parameter", S_KER, C_ENTRY, none, NULL, 0, -1);
  set (E_CONV, "convolution.4", "convolution", S_CONV, C_ENTRY, X_CONV, e_conv, 2, -1);
  set (E_FUSION, "fusion.5", "fusion", S_OUT, C_ENTRY, X_FUSION, e_fusion, 2, C_FUSED);
  ins[E_FUSION].fusion_kind = "kLoop";
  set (E_ZERO, "constant.6", "constant", S_SCALAR, C_ENTRY, none, NULL, 0, -1);
  set (E_REDUCE, "reduce.7", "reduce", S_ROW, C_ENTRY, X_REDUCE, e_reduce, 2, C_REDUCER);
  set (E_GEMM, "custom-call.8", "custom-call", S_GEMM, C_ENTRY, X_GEMM, e_dot, 2, -1);
  set (E_LT, "custom-call.9", "custom-call", S_GEMM, C_ENTRY, X_LT, e_dot, 2, -1);
  set (E_TE, "custom-call.10", "custom-call", S_GEMM, C_ENTRY, X_TE, e_dot, 2, -1);
  set (E_CUDNN, "custom-call.11", "custom-call", S_CUDNN, C_ENTRY, X_CUDNN, e_conv, 2, -1);
  set (E_SORT, "sort.12", "sort", S_SCALAR, C_ENTRY, none, e_sort, 1, -1);
  set (E_TUPLE, "tuple.13", "tuple", S_ROW, C_ENTRY, none, e_tuple, 1, -1);
  g_assert_cmpuint (n_refs, <=, G_N_ELEMENTS (refs));

  comps[C_FUSED] = (PlanarHloComputation) { "fused_computation.5", 100, F_P0, 5, F_ADD, E_FUSION, TRUE };
  comps[C_REDUCER] = (PlanarHloComputation) { "region_0.1", 101, R_X, 3, R_ADD, E_REDUCE, FALSE };
  comps[C_ENTRY] = (PlanarHloComputation) { "main.14", 102, E_LHS, N_INS - E_LHS, E_TUPLE, PLANAR_HLO_NONE, FALSE };

  module = (PlanarHloModule) {
    .name = "jit_cost", .id = 1, .program_id = 1, .entry = C_ENTRY,
    .n_computations = N_COMPS, .computations = comps, .n_instructions = N_INS, .instructions = ins,
    .n_shapes = N_SHAPES, .shapes = shapes, .n_extras = N_EXTRAS, .extras = extras, .refs = refs,
  };
}

static guint64
elements (guint32 s)
{
  guint64 n = 1;

  for (guint i = 0; i < shapes[s].n_dims; i++)
    n *= (guint64) shapes[s].dims[i];
  return n;
}

static PlanarHloCost
cost (guint i,
      gboolean known)
{
  PlanarHloCost c;

  g_assert_cmpint (planar_hlo_instruction_estimate_cost (&module, &ins[i], &c), ==, known);
  g_assert_cmpint (c.flops_known, ==, known);
  return c;
}

static void
test_dot_and_convolution (void)
{
  /* dot: 2 x output elements x the contracted size (lhs dim 1). */
  guint64 dot = 2 * elements (S_OUT) * (guint64) d_lhs[1];
  /* convolution: 2 x output elements x kernel spatial size x the input
   * features per group (the kernel's input feature dimension). */
  guint64 conv = 2 * elements (S_CONV) * (guint64) (d_ker[0] * d_ker[1]) * (guint64) d_ker[2];
  PlanarHloCost c;

  build_module ();
  c = cost (E_DOT, TRUE);
  g_assert_cmpuint (c.flops, ==, dot);
  g_assert_cmpuint (c.flops, ==, 8192);
  g_assert_cmpuint (c.bytes, ==, 4 * (elements (S_LHS) + elements (S_RHS) + elements (S_OUT)));
  c = cost (E_CONV, TRUE);
  g_assert_cmpuint (c.flops, ==, conv);
  g_assert_cmpuint (c.flops, ==, 777600);
  g_assert_cmpuint (c.bytes, ==, 4 * (elements (S_IMG) + elements (S_KER) + elements (S_CONV)));
}

static void
test_fusion_and_reduce (void)
{
  PlanarHloCost c, part;
  guint64 sum = 0, trans = 0;

  build_module ();
  /* A fusion's FLOPs are the sum of its fused instructions'. */
  for (guint i = F_P0; i <= F_ADD; i++)
    {
      part = cost (i, TRUE);
      sum += part.flops;
      trans += part.transcendentals;
    }
  c = cost (E_FUSION, TRUE);
  g_assert_cmpuint (c.flops, ==, sum);
  g_assert_cmpuint (c.flops, ==, 2 * elements (S_OUT));
  /* exp is a transcendental, counted apart. */
  g_assert_cmpuint (c.transcendentals, ==, trans);
  g_assert_cmpuint (c.transcendentals, ==, elements (S_OUT));
  /* Its bytes: its parameters (operands) and its output. */
  g_assert_cmpuint (c.bytes, ==, 3 * 4 * elements (S_OUT));

  /* reduce: one application of the reducer (1 FLOP) per input element
   * beyond the outputs. */
  c = cost (E_REDUCE, TRUE);
  g_assert_cmpuint (c.flops, ==, elements (S_OUT) - elements (S_ROW));
  g_assert_cmpuint (c.bytes, ==, 4 * (elements (S_OUT) + 1 + elements (S_ROW)));

  /* Data movement is free; sort is not estimated. */
  c = cost (E_TUPLE, TRUE);
  g_assert_cmpuint (c.flops, ==, 0);
  c = cost (E_SORT, FALSE);
  g_assert_cmpuint (c.flops, ==, 0);
}

static void
test_custom_calls (void)
{
  guint64 dot = 2 * elements (S_OUT) * (guint64) d_lhs[1];
  guint64 conv = 2 * elements (S_CONV) * (guint64) (d_ker[0] * d_ker[1]) * (guint64) d_ker[2];
  PlanarHloCost c;

  build_module ();
  /* cuBLAS (GpuBackendConfig, int64 as strings) and cuBLASLt (an older
   * config at the top, ints as numbers): the dot of their operands. */
  c = cost (E_GEMM, TRUE);
  g_assert_cmpuint (c.flops, ==, dot);
  /* Bytes: operands plus the result, not the scratch workspace. */
  g_assert_cmpuint (c.bytes, ==, 4 * (elements (S_LHS) + elements (S_RHS) + elements (S_OUT)));
  c = cost (E_LT, TRUE);
  g_assert_cmpuint (c.flops, ==, dot);
  /* cuDNN: the instruction's convolution dimension numbers. */
  c = cost (E_CUDNN, TRUE);
  g_assert_cmpuint (c.flops, ==, conv);
  g_assert_cmpuint (c.bytes, ==, 4 * (elements (S_IMG) + elements (S_KER) + elements (S_CONV)));
  /* TransformerEngine's MLIR attributes: unknown, never a guess; its
   * bytes are still its shapes'. */
  c = cost (E_TE, FALSE);
  g_assert_cmpuint (c.flops, ==, 0);
  g_assert_cmpuint (c.bytes, >, 0);

  /* A GEMM whose JSON is damaged or lacks the dimension numbers: unknown. */
  extra (X_GEMM, "__cublas$gemm", "{\"gemm_backend_config\":{\"alpha_real\":1}}");
  cost (E_GEMM, FALSE);
  extra (X_GEMM, "__cublas$gemm", "{\"gemm_backend_config\":");
  cost (E_GEMM, FALSE);
  extra (X_GEMM, "__cublas$gemm",
         "{\"gemm_backend_config\":{\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"7\"]}}}");
  cost (E_GEMM, FALSE);
  extra (X_GEMM, "__cublas$gemm", "");
  cost (E_GEMM, FALSE);
}

static void
test_text (void)
{
  g_autofree char *fusion = NULL, *conv = NULL, *dot = NULL, *root = NULL, *meta = NULL, *computation = NULL;
  g_autofree char *text = NULL;

  build_module ();
  fusion = planar_hlo_instruction_format (&module, &ins[E_FUSION], PLANAR_HLO_TEXT_DEFAULT);
  g_assert_cmpstr (fusion, ==, "%fusion.5 = f32[8,32]{1,0} fusion(%dot.3, %dot.3), kind=kLoop, calls=%fused_computation.5");
  dot = planar_hlo_instruction_format (&module, &ins[E_DOT], PLANAR_HLO_TEXT_DEFAULT);
  g_assert_cmpstr (dot, ==, "%dot.3 = f32[8,32]{1,0} dot(%lhs, %rhs), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  conv = planar_hlo_instruction_format (&module, &ins[E_CONV], PLANAR_HLO_TEXT_DEFAULT);
  g_assert_cmpstr (conv, ==, "%convolution.4 = f32[2,30,30,8]{3,2,1,0} convolution(%img, %ker), window={size=3x3}, "
                             "dim_labels=b01f_01io->b01f, feature_group_count=2");
  root = planar_hlo_instruction_format (&module, &ins[E_REDUCE], PLANAR_HLO_TEXT_DEFAULT);
  g_assert_cmpstr (root, ==, "%reduce.7 = f32[8]{0} reduce(%fusion.5, %constant.6), dimensions={1}, to_apply=%region_0.1");
  ins[E_DOT].op_name = "jit(f)/dot_general";
  ins[E_DOT].source_file = "/src/train.py";
  ins[E_DOT].source_line = 23;
  meta = planar_hlo_instruction_format (&module, &ins[E_DOT], PLANAR_HLO_TEXT_METADATA);
  g_assert_true (g_str_has_suffix (meta, ", metadata={op_name=\"jit(f)/dot_general\" source_file=\"/src/train.py\" "
                                         "source_line=23}"));
  computation = planar_hlo_computation_format (&module, C_FUSED, PLANAR_HLO_TEXT_DEFAULT);
  g_assert_cmpstr (computation, ==,
                   "%fused_computation.5 {\n"
                   "  %param_0 = f32[8,32]{1,0} parameter(0)\n"
                   "  %param_1 = f32[8,32]{1,0} parameter(1)\n"
                   "  %multiply.1 = f32[8,32]{1,0} multiply(%param_0, %param_1)\n"
                   "  %exponential.1 = f32[8,32]{1,0} exponential(%multiply.1)\n"
                   "  ROOT %add.1 = f32[8,32]{1,0} add(%multiply.1, %exponential.1)\n"
                   "}\n");
  text = planar_hlo_module_format (&module, PLANAR_HLO_TEXT_DEFAULT);
  g_assert_true (g_str_has_prefix (text, "HloModule jit_cost\n\n%fused_computation.5 {\n"));
  g_assert_nonnull (strstr (text, "\nENTRY %main.14 {\n"));
  g_assert_true (g_str_has_suffix (text, "  ROOT %tuple.13 = f32[8]{0} tuple(%reduce.7)\n}\n"));
  g_assert_true (strstr (text, "ENTRY") > strstr (text, "%region_0.1 {"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hlo-cost/dot-and-convolution", test_dot_and_convolution);
  g_test_add_func ("/hlo-cost/fusion-and-reduce", test_fusion_and_reduce);
  g_test_add_func ("/hlo-cost/custom-calls", test_custom_calls);
  g_test_add_func ("/hlo-cost/text", test_text);
  return g_test_run ();
}
