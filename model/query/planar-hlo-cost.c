/* planar-hlo-cost.c: FLOPs and bytes of an HLO instruction, estimated as
 * XLA's cost analysis counts them (planar-hlo-cost.h says what is counted).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hlo-cost.h"

#include <string.h>
#include <yajl/yajl_tree.h>

/* Calls nest; a damaged module cannot loop (the index refuses call
 * cycles), this only bounds the stack. */
#define MAX_DEPTH 64

static guint64
mul_sat (guint64 a,
         guint64 b)
{
  if (a != 0 && b > G_MAXUINT64 / a)
    return G_MAXUINT64;
  return a * b;
}

static guint64
add_sat (guint64 a,
         guint64 b)
{
  return b > G_MAXUINT64 - a ? G_MAXUINT64 : a + b;
}

static gboolean
opcode_in (const char         *opcode,
           const char * const *list)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (strcmp (opcode, list[i]) == 0)
      return TRUE;
  return FALSE;
}

/* One FLOP per output element (XLA's HandleElementwiseOp). */
static const char * const elementwise_ops[] = {
  "abs", "add", "and", "atan2", "ceil", "clamp", "compare", "complex", "convert", "divide", "floor", "imag",
  "is-finite", "maximum", "minimum", "multiply", "negate", "not", "or", "popcnt", "real", "remainder",
  "round-nearest-afz", "round-nearest-even", "select", "shift-left", "shift-right-arithmetic",
  "shift-right-logical", "sign", "subtract", "xor", "clz", "reduce-precision", "stochastic-convert", NULL
};

/* One transcendental per output element, no FLOPs. */
static const char * const transcendental_ops[] = {
  "cbrt", "cosine", "erf", "exponential", "exponential-minus-one", "log", "log-plus-one", "logistic", "power",
  "rsqrt", "sine", "sqrt", "tan", "tanh", NULL
};

/* No arithmetic: data movement and bookkeeping. */
static const char * const free_ops[] = {
  "after-all", "all-gather", "all-gather-done", "all-gather-start", "all-to-all", "add-dependency", "bitcast",
  "bitcast-convert", "broadcast", "collective-permute", "collective-permute-done", "collective-permute-start",
  "concatenate", "constant", "copy", "copy-done", "copy-start", "domain", "dynamic-reshape", "dynamic-slice",
  "dynamic-update-slice", "gather", "get-dimension-size", "get-tuple-element", "infeed", "iota", "opt-barrier",
  "outfeed", "pad", "parameter", "partition-id", "recv", "recv-done", "replica-id", "reshape", "reverse", "send",
  "send-done", "set-dimension-size", "slice", "transpose", "tuple", NULL
};

static gboolean cost_of (const PlanarHloModule *module, const PlanarHloInstruction *in, guint depth,
                         PlanarHloCost *out);

/* The FLOPs and transcendentals of every instruction of @computation
 * (parameters and bookkeeping count 0). */
static gboolean
computation_cost (const PlanarHloModule      *module,
                  const PlanarHloComputation *computation,
                  guint                       depth,
                  PlanarHloCost              *out)
{
  gboolean known = TRUE;

  for (guint32 i = 0; i < computation->n_instructions; i++)
    {
      PlanarHloCost part;

      if (!cost_of (module, &module->instructions[computation->first + i], depth + 1, &part))
        known = FALSE;
      out->flops = add_sat (out->flops, part.flops);
      out->transcendentals = add_sat (out->transcendentals, part.transcendentals);
    }
  return known;
}

static const PlanarHloShape *
operand_shape (const PlanarHloModule      *module,
               const PlanarHloInstruction *in,
               guint                       i)
{
  return planar_hlo_instruction_get_shape (module, planar_hlo_instruction_get_operand (module, in, i));
}

/* The array shape an op writes: a GEMM or cuDNN custom call returns
 * (result, workspace); its result is the first element. */
static const PlanarHloShape *
result_shape (const PlanarHloModule *module,
              const PlanarHloShape  *shape)
{
  if (shape->element_type == PLANAR_HLO_TYPE_TUPLE && shape->n_tuple > 0)
    return &module->shapes[shape->tuple[0]];
  return shape;
}

static guint64
contracted_size (const PlanarHloShape *lhs,
                 const gint64         *dims,
                 guint32               n,
                 gboolean             *ok)
{
  guint64 size = 1;

  for (guint32 i = 0; i < n; i++)
    {
      if (dims[i] < 0 || (guint64) dims[i] >= lhs->n_dims)
        {
          *ok = FALSE;
          return 0;
        }
      size = mul_sat (size, (guint64) MAX (lhs->dims[dims[i]], 0));
    }
  return size;
}

static gboolean
dot_flops (const PlanarHloModule      *module,
           const PlanarHloInstruction *in,
           const PlanarHloDotDims     *dot,
           PlanarHloCost              *out)
{
  const PlanarHloShape *output = result_shape (module, planar_hlo_instruction_get_shape (module, in));
  gboolean ok = TRUE;
  guint64 k;

  if (in->n_operands < 2)
    return FALSE;
  k = contracted_size (operand_shape (module, in, 0), dot->lhs_contracting, dot->n_lhs_contracting, &ok);
  if (!ok)
    return FALSE;
  out->flops = mul_sat (mul_sat (2, planar_hlo_shape_get_elements (output)), k);
  return TRUE;
}

static gboolean
conv_flops (const PlanarHloModule      *module,
            const PlanarHloInstruction *in,
            const PlanarHloExtra       *extra,
            PlanarHloCost              *out)
{
  const PlanarHloShape *output = result_shape (module, planar_hlo_instruction_get_shape (module, in));
  const PlanarHloShape *kernel;
  const PlanarHloConvDims *conv = extra->conv;
  guint64 spatial = 1;

  if (conv == NULL || in->n_operands < 2)
    return FALSE;
  kernel = operand_shape (module, in, 1);
  if (conv->kernel_input_feature < 0 || (guint64) conv->kernel_input_feature >= kernel->n_dims)
    return FALSE;
  for (guint32 i = 0; i < conv->n_kernel_spatial; i++)
    {
      gint64 d = conv->kernel_spatial[i];

      if (d < 0 || (guint64) d >= kernel->n_dims)
        return FALSE;
      spatial = mul_sat (spatial, (guint64) MAX (kernel->dims[d], 0));
    }
  /* The kernel's input feature dimension is already per group. */
  out->flops = mul_sat (mul_sat (mul_sat (2, planar_hlo_shape_get_elements (output)), spatial),
                        (guint64) MAX (kernel->dims[conv->kernel_input_feature], 0));
  return TRUE;
}

/* An int64 of a proto's JSON: a number or, as proto3 writes int64, a
 * string of digits. */
static gboolean
json_int (yajl_val  v,
          gint64   *out)
{
  char *end = NULL;

  if (YAJL_IS_INTEGER (v))
    {
      *out = YAJL_GET_INTEGER (v);
      return TRUE;
    }
  if (YAJL_IS_STRING (v) && YAJL_GET_STRING (v)[0] != '\0')
    {
      *out = g_ascii_strtoll (YAJL_GET_STRING (v), &end, 10);
      return *end == '\0';
    }
  return FALSE;
}

/* Reads "name": [ints] of @object into @dims (at most 16). */
static gboolean
json_dims (yajl_val    object,
           const char *name,
           gint64     *dims,
           guint32    *n)
{
  const char *path[] = { name, NULL };
  yajl_val array = yajl_tree_get (object, path, yajl_t_array);

  *n = 0;
  if (array == NULL)
    return TRUE; /* proto3 JSON leaves empty lists out */
  if (YAJL_GET_ARRAY (array)->len > 16)
    return FALSE;
  for (size_t i = 0; i < YAJL_GET_ARRAY (array)->len; i++)
    if (!json_int (YAJL_GET_ARRAY (array)->values[i], &dims[(*n)++]))
      return FALSE;
  return TRUE;
}

/* A GEMM custom call: the dot dimension numbers of its backend_config,
 * GpuBackendConfig's gemm_backend_config (older XLA: the GemmBackendConfig
 * itself at the top). */
static gboolean
gemm_flops (const PlanarHloModule      *module,
            const PlanarHloInstruction *in,
            const PlanarHloExtra       *extra,
            PlanarHloCost              *out)
{
  const char *nested[] = { "gemm_backend_config", "dot_dimension_numbers", NULL };
  const char *top[] = { "dot_dimension_numbers", NULL };
  gint64 lhs_contracting[16], rhs_contracting[16];
  PlanarHloDotDims dot = { 0 };
  yajl_val root, dims;
  gboolean ok = FALSE;

  if (extra->backend_config == NULL || extra->backend_config_len == 0
      || strlen (extra->backend_config) != extra->backend_config_len)
    return FALSE;
  root = yajl_tree_parse (extra->backend_config, NULL, 0);
  if (root == NULL)
    return FALSE;
  dims = yajl_tree_get (root, nested, yajl_t_object);
  if (dims == NULL)
    dims = yajl_tree_get (root, top, yajl_t_object);
  if (dims != NULL
      && json_dims (dims, "lhs_contracting_dimensions", lhs_contracting, &dot.n_lhs_contracting)
      && json_dims (dims, "rhs_contracting_dimensions", rhs_contracting, &dot.n_rhs_contracting)
      && dot.n_lhs_contracting > 0)
    {
      dot.lhs_contracting = lhs_contracting;
      dot.rhs_contracting = rhs_contracting;
      ok = dot_flops (module, in, &dot, out);
    }
  yajl_tree_free (root);
  return ok;
}

/* XLA's JSON backend_config: the text is an object. */
static gboolean
is_json_object (const PlanarHloExtra *extra)
{
  const char *p = extra->backend_config;

  if (p == NULL)
    return FALSE;
  while (g_ascii_isspace (*p))
    p++;
  return *p == '{';
}

static gboolean
custom_call_flops (const PlanarHloModule      *module,
                   const PlanarHloInstruction *in,
                   const PlanarHloExtra       *extra,
                   PlanarHloCost              *out)
{
  const char *target = extra->custom_call_target;

  if (g_str_has_prefix (target, "__cublas$gemm") || g_str_has_prefix (target, "__cublas$lt$matmul"))
    return is_json_object (extra) && gemm_flops (module, in, extra, out);
  if (g_str_has_prefix (target, "__cudnn$conv"))
    return is_json_object (extra) && conv_flops (module, in, extra, out);
  return FALSE;
}

static gboolean
reduce_flops (const PlanarHloModule      *module,
              const PlanarHloInstruction *in,
              guint                       depth,
              PlanarHloCost              *out)
{
  const PlanarHloShape *output = planar_hlo_instruction_get_shape (module, in);
  PlanarHloCost reducer = { 0 };
  guint64 in_elements = 0, out_elements = 0, applications;
  guint n_inputs = in->n_operands / 2;

  if (in->n_called < 1 || n_inputs == 0)
    return FALSE;
  if (!computation_cost (module, planar_hlo_instruction_get_called (module, in, 0), depth, &reducer))
    return FALSE;
  /* A variadic reduce: its inputs come first, then as many inits. */
  in_elements = planar_hlo_shape_get_elements (operand_shape (module, in, 0));
  out_elements = planar_hlo_shape_get_elements (output->element_type == PLANAR_HLO_TYPE_TUPLE && output->n_tuple > 0
                                                ? &module->shapes[output->tuple[0]] : output);
  applications = in_elements > out_elements ? in_elements - out_elements : 0;
  out->flops = mul_sat (applications, reducer.flops);
  out->transcendentals = mul_sat (applications, reducer.transcendentals);
  return TRUE;
}

static gboolean
reduce_window_flops (const PlanarHloModule      *module,
                     const PlanarHloInstruction *in,
                     const PlanarHloExtra       *extra,
                     guint                       depth,
                     PlanarHloCost              *out)
{
  PlanarHloCost reducer = { 0 };
  guint64 window = 1, applications;

  if (in->n_called < 1 || extra == NULL)
    return FALSE;
  if (!computation_cost (module, planar_hlo_instruction_get_called (module, in, 0), depth, &reducer))
    return FALSE;
  for (guint32 i = 0; i < extra->n_window; i++)
    window = mul_sat (window, (guint64) MAX (extra->window[i].size, 0));
  applications = mul_sat (planar_hlo_shape_get_elements (planar_hlo_instruction_get_shape (module, in)),
                          window > 0 ? window - 1 : 0);
  out->flops = mul_sat (applications, reducer.flops);
  out->transcendentals = mul_sat (applications, reducer.transcendentals);
  return TRUE;
}

static gboolean
cost_of (const PlanarHloModule      *module,
         const PlanarHloInstruction *in,
         guint                       depth,
         PlanarHloCost              *out)
{
  const PlanarHloExtra *extra = planar_hlo_instruction_get_extra (module, in);
  const PlanarHloShape *shape = planar_hlo_instruction_get_shape (module, in);
  const char *op = in->opcode;

  memset (out, 0, sizeof *out);
  if (depth > MAX_DEPTH)
    return FALSE;
  if (opcode_in (op, free_ops))
    return TRUE;
  if (opcode_in (op, elementwise_ops))
    {
      out->flops = planar_hlo_shape_get_elements (shape);
      return TRUE;
    }
  if (opcode_in (op, transcendental_ops))
    {
      out->transcendentals = planar_hlo_shape_get_elements (shape);
      return TRUE;
    }
  if (strcmp (op, "dot") == 0)
    return extra != NULL && extra->dot != NULL && dot_flops (module, in, extra->dot, out);
  if (strcmp (op, "convolution") == 0)
    return extra != NULL && conv_flops (module, in, extra, out);
  if (strcmp (op, "custom-call") == 0)
    return extra != NULL && custom_call_flops (module, in, extra, out);
  if (strcmp (op, "reduce") == 0)
    return reduce_flops (module, in, depth, out);
  if (strcmp (op, "reduce-window") == 0)
    return reduce_window_flops (module, in, extra, depth, out);
  if (strcmp (op, "fusion") == 0 || strcmp (op, "call") == 0)
    {
      gboolean known = in->n_called > 0;

      for (guint i = 0; i < in->n_called; i++)
        if (!computation_cost (module, planar_hlo_instruction_get_called (module, in, i), depth, out))
          known = FALSE;
      return known;
    }
  return FALSE;
}

/* What an instruction writes: a GEMM's or cuDNN call's result without
 * the scratch workspace XLA returns beside it. */
static const PlanarHloShape *
output_of (const PlanarHloModule      *module,
           const PlanarHloInstruction *in)
{
  const PlanarHloExtra *extra = planar_hlo_instruction_get_extra (module, in);
  const PlanarHloShape *shape = planar_hlo_instruction_get_shape (module, in);

  if (extra != NULL && strcmp (in->opcode, "custom-call") == 0
      && (g_str_has_prefix (extra->custom_call_target, "__cublas$")
          || g_str_has_prefix (extra->custom_call_target, "__cudnn$")))
    return result_shape (module, shape);
  return shape;
}

gboolean
planar_hlo_instruction_estimate_cost (const PlanarHloModule      *module,
                                      const PlanarHloInstruction *instruction,
                                      PlanarHloCost              *out)
{
  g_return_val_if_fail (module != NULL, FALSE);
  g_return_val_if_fail (instruction != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  out->flops_known = cost_of (module, instruction, 0, out);
  if (!out->flops_known)
    {
      out->flops = 0;
      out->transcendentals = 0;
    }
  /* What the kernel reads and writes: for a fusion, its parameters (the
   * fusion's operands) and outputs, the same sum. */
  out->bytes = planar_hlo_shape_get_bytes (module, output_of (module, instruction));
  for (guint i = 0; i < instruction->n_operands; i++)
    out->bytes = add_sat (out->bytes, planar_hlo_shape_get_bytes (module, operand_shape (module, instruction, i)));
  return out->flops_known;
}
