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
  /* The kernels that ran the instruction this time (see PlanarOpRun):
   * how many and their summed durations. planar_op_info_init() sets 1 and
   * the event's own duration; planar_op_info_find_kernels() finds the
   * others. The HLO's FLOPs and bytes are the whole instruction's: its
   * achieved rates are over @kernels_ps, and one kernel's share of them is
   * planar_op_info_get_share(). */
  guint                n_kernels;
  gint64               kernels_ps;
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

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PlanarOpInfo, planar_op_info_clear)

/* What Op Stats reads of an event, event after event: the values of
 * PlanarOpInfo that a table of costs uses, the same as
 * planar_op_info_init() gives, made cheaply by a PlanarOpCostReader. */
typedef enum
{
  PLANAR_OP_COSTS_DEFAULT      = 0,
  /* Fill PlanarOpCosts.framework_op. */
  PLANAR_OP_COSTS_FRAMEWORK_OP = 1 << 0,
  /* Fill PlanarOpCosts.source. */
  PLANAR_OP_COSTS_SOURCE       = 1 << 1,
} PlanarOpCostsFlags;

typedef struct
{
  /* As PlanarOpInfo's. */
  PlanarHloResolution  hlo;
  /* The strings only with their flag (NULL without it; the *_from fields
   * are set either way). Owned by the reader: valid until its next read. */
  const char          *framework_op;
  PlanarOpValueSource  framework_op_from;
  const char          *source;
  PlanarOpValueSource  source_from;
  double               flops;
  PlanarOpValueSource  flops_from;
  double               bytes;
  PlanarOpValueSource  bytes_from;
  guint64              transcendentals;
  gboolean             flops_unknown;
} PlanarOpCosts;

/* Reads the costs of many events of @trace: each event's stats once, its
 * HLO instruction through a small cache by event metadata (each entry
 * checked against the event's own hlo_op, program_id and hlo_module, which
 * may be the event's stats rather than its metadata's), the instruction's
 * estimate, op name and source once per instruction; no stack. One
 * thread at a time. */
typedef struct _PlanarOpCostReader PlanarOpCostReader;

PlanarOpCostReader *planar_op_cost_reader_new  (PlanarTrace        *trace,
                                                PlanarOpCostsFlags  flags);
void                planar_op_cost_reader_free (PlanarOpCostReader *reader);
/* Fills @out for @event of @plane as planar_op_info_init() would fill
 * the same fields (FALSE with @error as it). */
gboolean            planar_op_cost_reader_read (PlanarOpCostReader *reader,
                                                const PlanarPlane  *plane,
                                                const PlanarEvent  *event,
                                                PlanarOpCosts      *out,
                                                GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarOpCostReader, planar_op_cost_reader_free)

/* One execution of an instruction that ran as several kernels
 * (TransformerEngine's attention, a cuDNN call, a GEMM with a split-K
 * reduction): the kernels of one track (stream) in a row that resolve to
 * the same instruction, inside the same execution of its module (the XLA
 * Modules event around them on the stream's XLA Modules line, when there
 * is one).
 * A few events between them that resolve to no instruction do not break
 * the run; one of another instruction does, and so does a compute kernel
 * whose name is already in the run: the instruction ran again (a program
 * called in a loop runs its one GEMM kernel back to back; XProf's XLA
 * Ops line draws those as one op, but each did the whole work). A
 * runtime's buffer fill, memset or copy kernel may come more than once
 * (TransformerEngine's attention backward: two buffer fills and three
 * ck_tile kernels, one run). Only device planes have runs; derived events
 * (XLA Ops) and host events (a launch call) are runs of one. */
#define PLANAR_OP_RUN_MAX_NAMES 16
/* Events resolving to no instruction stepped over inside a run (a memset
 * between two kernels). */
#define PLANAR_OP_RUN_MAX_GAP 4

typedef struct
{
  const PlanarHloInstruction *instruction;
  /* The module execution's window (G_MININT64 .. G_MAXINT64 without an XLA
   * Modules line). */
  gint64                      from_ps;
  gint64                      to_ps;
  /* A run of one (a host's or a derived event). */
  gboolean                    single;
  /* The metadata of its compute kernels (not fills, memsets, copies). */
  guint32                     names[PLANAR_OP_RUN_MAX_NAMES];
  guint                       n_names;
  guint                       n_kernels;
  gint64                      duration_ps;
} PlanarOpRun;

/* Starts a run with @event of @track of @plane, resolved to
 * @resolution. */
void     planar_op_run_init    (PlanarOpRun               *run,
                                const PlanarPlane         *plane,
                                const PlanarTrack         *track,
                                const PlanarEvent         *event,
                                const PlanarHloResolution *resolution);
/* Whether @event (resolved to @resolution) continues @run. */
gboolean planar_op_run_accepts (const PlanarOpRun         *run,
                                const PlanarPlane         *plane,
                                const PlanarEvent         *event,
                                const PlanarHloResolution *resolution);
void     planar_op_run_add     (PlanarOpRun               *run,
                                const PlanarPlane         *plane,
                                const PlanarEvent         *event);
/* Sets @run to the run that event @index of @track (resolved to
 * @resolution) belongs to, with the kernels before it: as a pass over the
 * track from the first kernel of that instruction before it would find
 * it (reading back at most PLANAR_OP_RUN_MAX_BACK such kernels). */
void     planar_op_run_start_at (PlanarOpRun               *run,
                                 PlanarTrace               *trace,
                                 const PlanarPlane         *plane,
                                 const PlanarTrack         *track,
                                 gsize                      index,
                                 const PlanarHloResolution *resolution);
#define PLANAR_OP_RUN_MAX_BACK 256
/* Adds the kernels of @run on @track after event @index (its last),
 * stepping over at most PLANAR_OP_RUN_MAX_GAP events that resolve to
 * nothing between two of them. */
void     planar_op_run_extend  (PlanarOpRun               *run,
                                PlanarTrace               *trace,
                                const PlanarPlane         *plane,
                                const PlanarTrack         *track,
                                gsize                      index);

/* Fills @info->n_kernels and @info->kernels_ps with the run of kernels
 * around event @index of @track (the event @info was made for). */
void     planar_op_info_find_kernels (PlanarOpInfo      *info,
                                      PlanarTrace       *trace,
                                      const PlanarPlane *plane,
                                      const PlanarTrack *track,
                                      gsize              index);

/* The share of the instruction's FLOPs and bytes that a kernel of
 * @duration_ps accounts for: its part of the run's time (1 for a kernel
 * alone). A kernel's rate on its share is the run's rate. */
static inline double
planar_op_info_get_share (const PlanarOpInfo *info,
                          gint64              duration_ps)
{
  if (info->n_kernels <= 1 || info->kernels_ps <= 0)
    return 1.0;
  return (double) MAX (duration_ps, 0) / (double) info->kernels_ps;
}

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
