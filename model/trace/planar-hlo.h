/* planar-hlo.h: the compiler's HLO of a profile's programs, decoded into a
 * compact read-only index.
 *
 * XProf's profiler stores one serialized `xla.HloProto` per compiled
 * program on the `/host:metadata` plane: the event metadata's id is the
 * program id, its stat "Hlo Proto" holds the bytes (docs/formats.md §4.7).
 * A GPU kernel or XLA op names its instruction with the stats `hlo_op` and
 * `program_id` (or `hlo_module`); XProf resolves the pair to the
 * instruction to show its framework op, source line and stack.
 *
 * A PlanarHloIndex holds the modules of those HloProtos. Each module is
 * decoded straight off the wire (model/proto/hlo.proto names the fields
 * read) into flat arrays with interned strings, all of a module's arrays in
 * one block; no protobuf object is kept, and the index costs at most about
 * twice the serialized bytes, small modules (a few hundred bytes) too
 * (planar_hlo_index_get_memory()). A damaged HloProto (truncated, a field of
 * the wrong wire type, an operand or called computation that does not
 * exist, computations that call each other in a cycle, a stack frame id
 * out of range) is refused whole with a GError; the others still go in.
 *
 * Threads: planar_hlo_index_add() is for the one thread that builds the
 * index. Once built and handed out (planar_trace_get_hlo_index()), an index
 * is never changed again and any thread may read it.
 *
 * Everything refers to other things by index within its module: an
 * instruction's operands and users are indices into module->instructions,
 * its computation and called computations indices into
 * module->computations, its shape an index into module->shapes.
 * PLANAR_HLO_NONE stands for "none".
 *
 * Example: the framework op and source of a kernel
 *
 *   const PlanarHloModule *m;
 *   const PlanarHloInstruction *in =
 *     planar_hlo_index_lookup (index, program_id, "fusion.3", &m);
 *   if (in != NULL)
 *     {
 *       g_autofree char *op = planar_hlo_instruction_dup_op_full_name (in);
 *       g_autofree char *src = planar_hlo_instruction_dup_source (in);
 *       const PlanarHloStackFrame *frames[64];
 *       guint n = planar_hlo_module_get_stack (m, in, frames, 64);
 *       ...
 *     }
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace.h"

G_BEGIN_DECLS

#define PLANAR_HLO_NONE G_MAXUINT32

/* XLA's PrimitiveType numbers (xla_data.proto) that the code names; any
 * other number is kept as it is (see planar_hlo_element_type_name()). */
typedef enum
{
  PLANAR_HLO_TYPE_INVALID = 0,
  PLANAR_HLO_TYPE_PRED = 1,
  PLANAR_HLO_TYPE_S8 = 2,
  PLANAR_HLO_TYPE_S16 = 3,
  PLANAR_HLO_TYPE_S32 = 4,
  PLANAR_HLO_TYPE_S64 = 5,
  PLANAR_HLO_TYPE_U8 = 6,
  PLANAR_HLO_TYPE_U16 = 7,
  PLANAR_HLO_TYPE_U32 = 8,
  PLANAR_HLO_TYPE_U64 = 9,
  PLANAR_HLO_TYPE_F16 = 10,
  PLANAR_HLO_TYPE_F32 = 11,
  PLANAR_HLO_TYPE_F64 = 12,
  PLANAR_HLO_TYPE_TUPLE = 13,
  PLANAR_HLO_TYPE_OPAQUE = 14,
  PLANAR_HLO_TYPE_C64 = 15,
  PLANAR_HLO_TYPE_BF16 = 16,
  PLANAR_HLO_TYPE_TOKEN = 17,
  PLANAR_HLO_TYPE_C128 = 18,
} PlanarHloElementType;

/* A shape, shared by every instruction with the same text. */
typedef struct
{
  /* An XLA PrimitiveType number (PlanarHloElementType). */
  gint32        element_type;
  guint32       n_dims;
  const gint64 *dims;
  /* A tuple's element shapes (indices into module->shapes). */
  guint32       n_tuple;
  const guint32 *tuple;
  /* The layout's memory space (XLA's S(n)); 0 = default. */
  gint64        memory_space;
  /* As XLA prints it, layout included: "f32[8,128]{1,0}", "bf16[]",
   * "(f32[8]{0}, s32[])". Interned. */
  const char   *text;
} PlanarHloShape;

typedef struct
{
  const gint64 *lhs_contracting;
  const gint64 *rhs_contracting;
  const gint64 *lhs_batch;
  const gint64 *rhs_batch;
  guint32       n_lhs_contracting;
  guint32       n_rhs_contracting;
  guint32       n_lhs_batch;
  guint32       n_rhs_batch;
} PlanarHloDotDims;

typedef struct
{
  gint64        input_batch;
  gint64        input_feature;
  gint64        kernel_input_feature;
  gint64        kernel_output_feature;
  gint64        output_batch;
  gint64        output_feature;
  const gint64 *input_spatial;
  const gint64 *kernel_spatial;
  const gint64 *output_spatial;
  guint32       n_input_spatial;
  guint32       n_kernel_spatial;
  guint32       n_output_spatial;
} PlanarHloConvDims;

typedef struct
{
  gint64   size;
  gint64   stride;
  gint64   padding_low;
  gint64   padding_high;
  gint64   window_dilation;
  gint64   base_dilation;
  gboolean window_reversal;
} PlanarHloWindowDim;

/* What only some instructions have (dots, convolutions, custom calls,
 * reductions; a fusion's kind is in the instruction). */
typedef struct
{
  /* Interned; "" when unset. */
  const char              *custom_call_target;
  /* The backend_config as text (JSON for XLA's GPU backends),
   * NUL-terminated, and its length; a binary config is cut at its first
   * NUL byte (it is not text to show). */
  const char              *backend_config;
  gsize                    backend_config_len;
  /* The instruction's `dimensions` (reduce, broadcast, transpose, ...). */
  const gint64            *dimensions;
  guint32                  n_dimensions;
  guint32                  n_window;
  const PlanarHloWindowDim *window;
  /* A dot's and a convolution's dimension numbers; NULL when it has
   * none. */
  const PlanarHloDotDims  *dot;
  const PlanarHloConvDims *conv;
  /* As in the proto: 0 when unset (XLA reads that as 1). */
  gint64                   feature_group_count;
  gint64                   batch_group_count;
} PlanarHloExtra;

typedef struct
{
  /* Interned: the instruction's name ("fusion.3") and opcode ("fusion"). */
  const char *name;
  const char *opcode;
  /* Its OpMetadata, interned, "" when unset. JAX leaves op_type empty. */
  const char *op_type;
  const char *op_name;
  const char *source_file;
  /* A fusion's kind ("kLoop"), interned; "" for other instructions. Not
   * an extra: most fusions have nothing else. */
  const char *fusion_kind;
  gint32      source_line;
  /* 1-based into module->frames; 0 when it has none. Checked to be in
   * range at decode. */
  gint32      stack_frame_id;
  guint32     computation;
  guint32     shape;
  /* module->extras index, or PLANAR_HLO_NONE. */
  guint32     extra;
  /* Where its operands (instruction indices, in operand order), users
   * (instruction indices, each once, in instruction order) and called
   * computations (computation indices) start in module->refs. Read them
   * with the planar_hlo_instruction_get_*() helpers below. */
  guint32     operands;
  guint32     n_operands;
  guint32     users;
  guint32     n_users;
  guint32     called;
  guint32     n_called;
  /* A parameter's number (XLA's parameter_number; 0 when unset, as in the
   * proto), -1 when out of range. (The instruction's id is only needed
   * while decoding, and not kept.) */
  gint32      parameter_number;
} PlanarHloInstruction;

typedef struct
{
  const char *name;
  gint64      id;
  /* Its instructions are module->instructions[first .. first + n). */
  guint32     first;
  guint32     n_instructions;
  /* Instruction index of its root (root_id, else its last instruction). */
  guint32     root;
  /* The first instruction that calls it (a fusion for a fused
   * computation), or PLANAR_HLO_NONE for the entry and unused ones. */
  guint32     caller;
  gboolean    is_fusion;
} PlanarHloComputation;

/* One frame of the Python (or other) stack an instruction came from. */
typedef struct
{
  /* Interned; "" when unset. */
  const char *file;
  const char *function;
  gint32      line;
  gint32      column;
  /* Index into module->frames of the calling frame, or PLANAR_HLO_NONE. */
  guint32     parent;
} PlanarHloStackFrame;

typedef struct
{
  /* The HloModuleProto's name ("jit_matmul") and id; the program id is
   * the one the profile filed it under (the metadata event's id). */
  const char                 *name;
  gint64                      id;
  guint64                     program_id;
  /* Index of the entry computation, or PLANAR_HLO_NONE. */
  guint32                     entry;
  guint32                     n_computations;
  const PlanarHloComputation *computations;
  guint32                     n_instructions;
  const PlanarHloInstruction *instructions;
  guint32                     n_shapes;
  const PlanarHloShape       *shapes;
  guint32                     n_extras;
  const PlanarHloExtra       *extras;
  guint32                     n_frames;
  const PlanarHloStackFrame  *frames;
  const guint32              *refs;
  /* The HloProto's bytes in the file. */
  gsize                       serialized_bytes;
} PlanarHloModule;

typedef struct _PlanarHloIndex PlanarHloIndex;

PlanarHloIndex             *planar_hlo_index_new            (void);
void                        planar_hlo_index_free           (PlanarHloIndex   *self);
/* Decodes one serialized xla.HloProto (@data, @len: the "Hlo Proto" stat's
 * bytes) filed under @program_id and adds its module. A damaged one is not
 * added: FALSE with @error (PLANAR_TRACE_ERROR_CORRUPT, a sentence naming
 * the program and what is wrong). A second module of the same program id
 * is ignored, as XProf does (TRUE). @data need not outlive the call. */
gboolean                    planar_hlo_index_add            (PlanarHloIndex   *self,
                                                             guint64           program_id,
                                                             const guint8     *data,
                                                             gsize             len,
                                                             GError          **error);
/* Modules in program id order. */
guint                       planar_hlo_index_get_n_modules  (const PlanarHloIndex *self);
const PlanarHloModule      *planar_hlo_index_get_module     (const PlanarHloIndex *self,
                                                             guint             i);
const PlanarHloModule      *planar_hlo_index_find_module    (const PlanarHloIndex *self,
                                                             guint64           program_id);
/* The module of that name with the lowest program id. */
const PlanarHloModule      *planar_hlo_index_find_module_by_name (const PlanarHloIndex *self,
                                                                  const char       *name);
/* The instruction of @module named @name (@len bytes, or -1 for
 * NUL-terminated), or NULL. */
const PlanarHloInstruction *planar_hlo_module_find_instruction (const PlanarHloModule *module,
                                                                const char       *name,
                                                                gssize            len);
/* The instruction of @module that kernel @kernel (@len bytes, or -1) ran,
 * by the name XLA gives a fusion's kernel: the instruction's name with
 * every byte but letters, digits, '_' and '$' made '_' ("fusion.3" runs
 * as "fusion_3"). For kernels whose hlo_op names no instruction: a kernel
 * of a command buffer (a CUDA graph) carries the command buffer's name
 * there ("command_buffer_1"). NULL when no instruction, or more than one,
 * has that kernel name. */
const PlanarHloInstruction *planar_hlo_module_find_kernel_instruction (const PlanarHloModule *module,
                                                                       const char       *kernel,
                                                                       gssize            len);
/* The instruction @name of program @program_id / of the module named
 * @module_name; @module (optional) receives its module. NULL when either
 * is unknown. */
const PlanarHloInstruction *planar_hlo_index_lookup         (const PlanarHloIndex *self,
                                                             guint64           program_id,
                                                             const char       *name,
                                                             const PlanarHloModule **module);
const PlanarHloInstruction *planar_hlo_index_lookup_by_module_name (const PlanarHloIndex *self,
                                                                    const char       *module_name,
                                                                    const char       *name,
                                                                    const PlanarHloModule **module);
/* The serialized bytes of every module added, and what the index takes in
 * memory (its arrays, strings and tables), in bytes. */
guint64                     planar_hlo_index_get_serialized_bytes (const PlanarHloIndex *self);
guint64                     planar_hlo_index_get_memory     (const PlanarHloIndex *self);

/* The index of @instruction in @module->instructions. */
static inline guint32
planar_hlo_module_instruction_index (const PlanarHloModule      *module,
                                     const PlanarHloInstruction *instruction)
{
  return (guint32) (instruction - module->instructions);
}

/* Operand @i (0-based) of @instruction, as an instruction of @module. */
static inline const PlanarHloInstruction *
planar_hlo_instruction_get_operand (const PlanarHloModule      *module,
                                    const PlanarHloInstruction *instruction,
                                    guint                       i)
{
  g_return_val_if_fail (i < instruction->n_operands, NULL);
  return &module->instructions[module->refs[instruction->operands + i]];
}

static inline const PlanarHloInstruction *
planar_hlo_instruction_get_user (const PlanarHloModule      *module,
                                 const PlanarHloInstruction *instruction,
                                 guint                       i)
{
  g_return_val_if_fail (i < instruction->n_users, NULL);
  return &module->instructions[module->refs[instruction->users + i]];
}

static inline const PlanarHloComputation *
planar_hlo_instruction_get_called (const PlanarHloModule      *module,
                                   const PlanarHloInstruction *instruction,
                                   guint                       i)
{
  g_return_val_if_fail (i < instruction->n_called, NULL);
  return &module->computations[module->refs[instruction->called + i]];
}

static inline const PlanarHloShape *
planar_hlo_instruction_get_shape (const PlanarHloModule      *module,
                                  const PlanarHloInstruction *instruction)
{
  return &module->shapes[instruction->shape];
}

/* NULL when the instruction has none of PlanarHloExtra's fields. */
static inline const PlanarHloExtra *
planar_hlo_instruction_get_extra (const PlanarHloModule      *module,
                                  const PlanarHloInstruction *instruction)
{
  return instruction->extra == PLANAR_HLO_NONE ? NULL : &module->extras[instruction->extra];
}

/* The HLO of @trace's `/host:metadata` plane: NULL until the loader's
 * "Reading HLO" step has read it (after the file's tracks are shown; the
 * loader emits "tracks-changed" then), an index without modules when the
 * profile has no HloProtos. Read-only; lives as long as @trace. Any
 * thread. */
const PlanarHloIndex       *planar_trace_get_hlo_index      (PlanarTrace *trace);
/* One sentence per HloProto found damaged and left out, e.g. "the HloProto
 * of program 19: stack frame 9 of instruction dot.4 is out of range (the
 * module has 4)"; empty until the index is read. Returns: (transfer none). */
const char * const         *planar_trace_get_hlo_errors     (PlanarTrace *trace);

/* What an event resolves to through the HLO. */
typedef struct
{
  /* NULL when the event does not resolve (no hlo_op, an unknown program
   * or module, no such instruction, or the index not read yet). */
  const PlanarHloModule      *module;
  const PlanarHloInstruction *instruction;
  /* The event's program_id stat, when it has one. */
  gboolean                    has_program_id;
  guint64                     program_id;
} PlanarHloResolution;

/* Resolves @event (a GPU kernel, an XLA op, or a derived XLA Ops event:
 * anything with an `hlo_op` stat, its own or its metadata's) as XProf
 * does: the module of its `program_id` (by `hlo_module` name when it has
 * no program id), the instruction named by the last "::" part of
 * `hlo_op`. Then planar_hlo_instruction_dup_op_full_name(),
 * planar_hlo_instruction_dup_source() and planar_hlo_module_get_stack()
 * give its framework op, source and stack. Reads the event's stats from
 * the file. Any thread. Returns TRUE when @out->instruction is set. */
gboolean                    planar_trace_resolve_hlo        (PlanarTrace         *trace,
                                                             const PlanarPlane   *plane,
                                                             const PlanarEvent   *event,
                                                             PlanarHloResolution *out);

/* The two rules of that resolution, for readers that resolve many events
 * with a cache of their own: a `program_id` stat's value (an unsigned
 * integer, or a string of decimal digits), and the instruction name an
 * `hlo_op` names (its last "::"-separated part). */
gboolean                    planar_hlo_stat_get_program_id  (const PlanarStat    *stat,
                                                             guint64             *out);
void                        planar_hlo_op_instruction_name  (const char          *hlo_op,
                                                             gsize                len,
                                                             const char         **name,
                                                             gsize               *name_len);

/* XProf's op_full_name: "op_name:op_type" ("jit(f)/dot_general:" for JAX,
 * which leaves op_type empty; ":" for an instruction without metadata,
 * which XProf's Framework Ops line shows as it is). Returns: (transfer
 * full). */
char                       *planar_hlo_instruction_dup_op_full_name (const PlanarHloInstruction *instruction);
/* XProf's source, "train.py:23": the file (its basename) and line of the
 * innermost frame of the instruction's stack when it has both (JAX 0.11
 * writes only the stack), else basename(source_file) ":" source_line;
 * NULL when neither is there. @module: (nullable): the instruction's
 * module, whose stack frames are read. Returns: (transfer full)
 * (nullable). */
char                       *planar_hlo_instruction_dup_source (const PlanarHloModule      *module,
                                                               const PlanarHloInstruction *instruction);
/* Whether planar_hlo_instruction_dup_source() has one, without making it. */
gboolean                    planar_hlo_instruction_has_source (const PlanarHloModule      *module,
                                                               const PlanarHloInstruction *instruction);
/* Fills @frames with the instruction's stack, innermost (the frame that
 * made the op) first, at most @max; returns how many. 0 without a
 * stack. */
guint                       planar_hlo_module_get_stack     (const PlanarHloModule      *module,
                                                             const PlanarHloInstruction *instruction,
                                                             const PlanarHloStackFrame **frames,
                                                             guint                       max);
/* The stack as copyable text, one frame a line, innermost first:
 * "FILE:LINE FUNCTION" ("FILE:LINE" without a function). NULL without a
 * stack. Returns: (transfer full) (nullable). */
char                       *planar_hlo_module_format_stack  (const PlanarHloModule      *module,
                                                             const PlanarHloInstruction *instruction);
/* XLA's name of an element type ("f32", "bf16", "pred", "tuple"), or NULL
 * for a number XLA does not define. */
const char                 *planar_hlo_element_type_name    (gint32 element_type);
/* The bits one element takes (f32: 32, pred: 8, s4: 4), 0 for tuples,
 * tokens and unknown types. */
guint                       planar_hlo_element_type_bits    (gint32 element_type);
/* Elements of an array shape (product of its dims; 1 for a scalar), and
 * its bytes (elements * bits / 8, rounded up; a tuple's, the sum of its
 * elements'). */
guint64                     planar_hlo_shape_get_elements   (const PlanarHloShape *shape);
guint64                     planar_hlo_shape_get_bytes      (const PlanarHloModule *module,
                                                             const PlanarHloShape  *shape);

G_END_DECLS
