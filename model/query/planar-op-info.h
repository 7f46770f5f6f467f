/* planar-op-info.h: what an XLA op or GPU kernel event stands for: its
 * framework op, source line, Python stack, HLO instruction, FLOPs and
 * bytes, from the profile's own stats where it carries them and from the
 * program's HLO (planar-hlo.h) where not.
 *
 * The profile's value wins: a TPU op's `tf_op`, `source`, `source_stack`,
 * `flops` and `bytes_accessed` stats are shown as the profile's. A `tf_op`
 * that is only XProf's module placeholder ("XlaModule:" and nothing after
 * it, as JAX GPU kernels carry) is no value: the HLO's op_full_name is
 * used. FLOPs and bytes from the HLO are estimates (planar-hlo-cost.h) and
 * flagged so.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-hlo-cost.h"

G_BEGIN_DECLS

/* Where a value came from. */
typedef enum
{
  PLANAR_OP_VALUE_NONE,
  /* The event's (or its metadata's) own stat. */
  PLANAR_OP_VALUE_PROFILE,
  /* The HLO instruction: its metadata, or (FLOPs, bytes) an estimate. */
  PLANAR_OP_VALUE_HLO,
} PlanarOpValueSource;

typedef struct
{
  /* The event's HLO instruction, when it resolves (module and instruction
   * NULL otherwise). */
  PlanarHloResolution  hlo;
  /* "jit(f)/dot_general:", NULL when neither has one. */
  char                *framework_op;
  PlanarOpValueSource  framework_op_from;
  /* "train.py:23". */
  char                *source;
  PlanarOpValueSource  source_from;
  /* One frame a line, innermost first ("FILE:LINE FUNCTION"). */
  char                *stack;
  PlanarOpValueSource  stack_from;
  /* FLOPs and bytes accessed; from HLO they are estimates. */
  double               flops;
  PlanarOpValueSource  flops_from;
  double               bytes;
  PlanarOpValueSource  bytes_from;
  /* Estimated transcendentals (HLO only). */
  guint64              transcendentals;
  /* The HLO could not estimate the FLOPs (an unknown custom call such as
   * te_fused_attn, a sort, a while loop): say 'unknown', never guess. */
  gboolean             flops_unknown;
} PlanarOpInfo;

/* Fills @info for @event of @plane. FALSE with @error when the event's
 * stats cannot be read (PLANAR_TRACE_ERROR_CHANGED when the file changed
 * on disk); TRUE otherwise, with whatever is known (possibly nothing).
 * Release with planar_op_info_clear(). Any thread. */
gboolean planar_op_info_init  (PlanarOpInfo      *info,
                               PlanarTrace       *trace,
                               const PlanarPlane *plane,
                               const PlanarEvent *event,
                               GError           **error);
void     planar_op_info_clear (PlanarOpInfo      *info);

/* TRUE when @tf_op (@len bytes) is XProf's module placeholder
 * ("XlaModule:" alone, as JAX GPU kernels carry): no framework op. */
gboolean planar_op_info_is_placeholder (const char *tf_op,
                                        gsize       len);

/* For each of @n instructions of @module, the first event of @plane that
 * resolves to it inside the same execution of the module as @event (the
 * XLA Modules event of @plane around @event's start; the whole plane when
 * it has no XLA Modules line): @refs[i] (a trace-level ref, its trace 0),
 * or none (planar_event_ref_is_none()) when there is none, e.g. an
 * instruction fused into another kernel or a parameter. At most @max_events
 * events are read. */
void     planar_op_info_find_events (PlanarTrace                       *trace,
                                     guint                              plane_index,
                                     const PlanarEvent                 *event,
                                     const PlanarHloModule             *module,
                                     const PlanarHloInstruction * const *instructions,
                                     guint                              n,
                                     guint64                            max_events,
                                     PlanarEventRef                    *refs);

G_END_DECLS
