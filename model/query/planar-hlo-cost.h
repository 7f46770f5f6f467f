/* planar-hlo-cost.h: FLOPs and bytes of an HLO instruction, estimated from
 * its shapes as XLA's cost analysis counts them, and its HLO text.
 *
 * The counts (planar-hlo-cost.c):
 *  - dot: 2 x output elements x the product of the lhs contracting
 *    dimensions (a multiply and an add per term);
 *  - convolution: 2 x output elements x the kernel's spatial size x the
 *    input features per group (the kernel's input feature dimension);
 *  - elementwise arithmetic: 1 per output element; transcendentals (exp,
 *    log, tanh, ...) are counted apart, not as FLOPs;
 *  - reduce: (input elements - output elements) x the reducer's FLOPs;
 *    reduce-window: output elements x (window size - 1) x the reducer's;
 *  - fusion and call: the sum of the called computation's instructions;
 *  - XLA's GEMM and convolution custom calls (`__cublas$gemm`,
 *    `__cublas$lt$matmul*`, `__cudnn$conv*`, used by hipBLASLt and MIOpen on
 *    ROCm too): a GEMM from its operand shapes and the dot dimension numbers
 *    of its JSON backend_config, a convolution from the instruction's
 *    convolution dimension numbers; a custom call with any other target, or
 *    a backend_config that is not XLA's JSON (TransformerEngine's
 *    `te_fused_attn_*` with MLIR attributes), has unknown FLOPs, never a
 *    guess;
 *  - data movement (parameter, constant, tuple, bitcast, reshape, copy,
 *    transpose, broadcast, slice, gather, ...): 0;
 *  - anything else (sort, while, rng, ...): unknown.
 * Bytes accessed are the operands' bytes plus the output's (a fusion's:
 * its parameters and outputs, as the kernel reads and writes them; a GEMM
 * or cuDNN call's result without the scratch workspace beside it).
 *
 * Everything here is an estimate: callers label it so, and a value the
 * profile carries (TPU's flops and bytes_accessed stats) wins over it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-hlo.h"

G_BEGIN_DECLS

typedef struct
{
  /* FALSE when FLOPs cannot be estimated (see above). */
  gboolean flops_known;
  guint64  flops;
  /* Transcendental operations (exp, log, tanh, ...), apart from flops. */
  guint64  transcendentals;
  /* Operand bytes + output bytes; always known for array shapes. */
  guint64  bytes;
} PlanarHloCost;

/* Estimates @instruction's cost. Returns @out->flops_known. */
gboolean planar_hlo_instruction_estimate_cost (const PlanarHloModule      *module,
                                               const PlanarHloInstruction *instruction,
                                               PlanarHloCost              *out);

/* Flags of planar_hlo_instruction_format(). */
typedef enum
{
  PLANAR_HLO_TEXT_DEFAULT = 0,
  /* Ends the line with XLA's metadata={op_name="..." source_file="..."
   * source_line=N}. */
  PLANAR_HLO_TEXT_METADATA = 1 << 0,
} PlanarHloTextFlags;

/* One instruction as HLO text, as XLA prints it with short operands:
 * "%fusion.3 = f32[8,128]{1,0} fusion(%p0, %p1), kind=kLoop,
 * calls=%fused_computation.3" (a root is prefixed "ROOT "); a parameter
 * as "%p = f32[8]{0} parameter(0)". Returns: (transfer full). */
char    *planar_hlo_instruction_format        (const PlanarHloModule      *module,
                                               const PlanarHloInstruction *instruction,
                                               PlanarHloTextFlags          flags);
/* Computation @computation (an index into @module->computations) as a
 * block: "%name (...) {\n  %a = ...\n  ROOT %b = ...\n}\n", "ENTRY" before
 * the entry's. Returns: (transfer full). */
char    *planar_hlo_computation_format        (const PlanarHloModule      *module,
                                               guint32                     computation,
                                               PlanarHloTextFlags          flags);
/* The whole module: "HloModule NAME\n\n", then each computation, the
 * entry last. Returns: (transfer full). */
char    *planar_hlo_module_format             (const PlanarHloModule      *module,
                                               PlanarHloTextFlags          flags);

G_END_DECLS
