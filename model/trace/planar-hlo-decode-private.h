/* planar-hlo-decode-private.h: what the two files of the HloProto decoder
 * (planar-hlo.c, planar-hlo-resolve.c) share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-hlo-private.h"
#include "planar-wire.h"

G_BEGIN_DECLS

#define SLOTS 64

typedef struct
{
  guint8         kind[SLOTS];
  PlanarWireType wire[SLOTS];
  /* Whether the kind is a repeated scalar (packed or not). */
  gboolean       repeated[SLOTS];
} Fields;

typedef struct
{
  const char *name;
  guint       kind;
} FieldName;

enum { PROTO_MODULE = 1 };
enum { MOD_NAME = 1, MOD_ENTRY_NAME, MOD_COMPUTATIONS, MOD_ID, MOD_ENTRY_ID, MOD_FRAMES };
enum { COMP_NAME = 1, COMP_INSTRUCTIONS, COMP_ID, COMP_ROOT_ID, COMP_IS_FUSION };
enum { INS_NAME = 1, INS_OPCODE, INS_SHAPE, INS_METADATA, INS_FUSION_KIND, INS_DIMENSIONS, INS_WINDOW,
       INS_CONV, INS_CUSTOM_CALL_TARGET, INS_DOT, INS_ID, INS_OPERAND_IDS, INS_CALLED_IDS,
       INS_BACKEND_CONFIG, INS_FEATURE_GROUPS, INS_BATCH_GROUPS, INS_PARAMETER_NUMBER };
enum { SHAPE_ELEMENT_TYPE = 1, SHAPE_DIMS, SHAPE_TUPLE, SHAPE_LAYOUT, SHAPE_DYNAMIC };
enum { LAYOUT_MINOR_TO_MAJOR = 1, LAYOUT_MEMORY_SPACE };
enum { MD_OP_TYPE = 1, MD_OP_NAME, MD_SOURCE_FILE, MD_SOURCE_LINE, MD_STACK_FRAME_ID };
enum { WIN_DIMS = 1 };
enum { WDIM_SIZE = 1, WDIM_STRIDE, WDIM_PAD_LOW, WDIM_PAD_HIGH, WDIM_WINDOW_DILATION, WDIM_BASE_DILATION,
       WDIM_REVERSAL };
enum { DOT_LHS_CONTRACTING = 1, DOT_RHS_CONTRACTING, DOT_LHS_BATCH, DOT_RHS_BATCH };
enum { CONV_IN_BATCH = 1, CONV_IN_FEATURE, CONV_IN_SPATIAL, CONV_K_IN_FEATURE, CONV_K_OUT_FEATURE,
       CONV_K_SPATIAL, CONV_OUT_BATCH, CONV_OUT_FEATURE, CONV_OUT_SPATIAL };
enum { SFI_FILES = 1, SFI_FUNCTIONS, SFI_LOCATIONS, SFI_FRAMES };
enum { LOC_FILE = 1, LOC_FUNCTION, LOC_LINE, LOC_COLUMN };
enum { FRAME_LOCATION = 1, FRAME_PARENT };

typedef struct
{
  Fields proto, module, computation, instruction, shape, layout, metadata, window, window_dim, dot, conv,
         frame_index, location, frame;
} HloFields;

/* Shapes nest (tuples of tuples); a real one has a few levels. */
#define MAX_SHAPE_DEPTH 32

typedef struct
{
  PlanarHloIndex *index;
  const HloFields *f;
  const guint8   *base;
  char           *what;
  GError        **error;
  gboolean        failed;

  HloModuleEntry *m;
  GArray         *computations;  /* PlanarHloComputation */
  GArray         *instructions;  /* PlanarHloInstruction */
  GArray         *shapes;        /* PlanarHloShape, pointers as pool offsets */
  GArray         *extras;        /* PlanarHloExtra, pointers as pool offsets */
  GArray         *dots;          /* PlanarHloDotDims, pointers as pool offsets */
  GArray         *convs;         /* PlanarHloConvDims, pointers as pool offsets */
  GArray         *ids;           /* gint64: each instruction's id */
  /* The instructions' names while decoding; finish() moves them into the
   * module's block (they are unique in a module: no table to share them
   * through). */
  GStringChunk   *names;
  GArray         *windows;       /* PlanarHloWindowDim */
  GArray         *refs;          /* guint32 */
  GArray         *ints;          /* gint64 */
  /* The raw ids of each instruction's operands and called computations,
   * at instruction->operands / ->called, resolved at the end. */
  GArray         *raw_operands;  /* gint64 */
  GArray         *raw_called;    /* gint64 */
  GHashTable     *shape_by_text; /* interned text -> index + 1 */
  GArray         *root_ids;      /* gint64 per computation, or -1 */
  GString        *scratch;
  gint64          entry_id;
  gboolean        has_entry_id;
  const char     *entry_name;
} Decoder;

#define OFFSET_PTR(type, off) ((type) GSIZE_TO_POINTER ((gsize) (off)))
#define PTR_OFFSET(p)         ((gsize) GPOINTER_TO_SIZE (p))

/* Reads a message's fields, calling @visit for each that @fields reads. */
typedef gboolean (*FieldVisitor) (Decoder *d, int kind, const PlanarWireField *f, gpointer data);

/* The field tables, filled at the first call (any thread). */
const HloFields *_planar_hlo_fields          (void);
/* Refuses the module with "the HloProto of program N: DETAIL" (the first
 * error only). Returns FALSE. */
gboolean    _planar_hlo_fail                 (Decoder               *d,
                                              const char            *format,
                                              ...) G_GNUC_PRINTF (2, 3);
gboolean    _planar_hlo_read_message         (Decoder               *d,
                                              const guint8          *data,
                                              gsize                  len,
                                              const Fields          *fields,
                                              const char            *message,
                                              FieldVisitor           visit,
                                              gpointer               user_data);
const char *_planar_hlo_intern_field         (Decoder               *d,
                                              const PlanarWireField *f);
/* planar-hlo-resolve.c */
gboolean    _planar_hlo_read_frames          (Decoder               *d,
                                              const guint8          *data,
                                              gsize                  len);
gboolean    _planar_hlo_check_frame_ids      (Decoder               *d);
gboolean    _planar_hlo_resolve              (Decoder               *d);

G_END_DECLS
