/* planar-hlo.c: decoding HloProtos into the compact index of planar-hlo.h.
 *
 * One pass over the module's bytes with the checked wire reader, the field
 * numbers taken from the descriptors protoc-c generated from
 * model/proto/hlo.proto. Instructions go into one flat array per module
 * (computations are ranges of it), shapes are shared by text, strings are
 * interned in the index's table, and the lists (operands, users, called
 * computations, dims) live in two pools. Ids are resolved once every
 * computation is read; what cannot be resolved refuses the module.
 *
 * The lookups and text helpers are in planar-hlo-query.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hlo-decode-private.h"

#include "planar-error.h"
#include "planar-wire.h"
#include "planar-xspace-fields-private.h"

#include "hlo.pb-c.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Field numbers, from the descriptors (the wire types as the XSpace
 * reader takes them, planar-xspace-fields.c) */

static void
fill (Fields                           *out,
      const ProtobufCMessageDescriptor *message,
      const FieldName                  *names,
      gsize                             n_names)
{
  for (gsize i = 0; i < n_names; i++)
    {
      const ProtobufCFieldDescriptor *field =
        protobuf_c_message_descriptor_get_field_by_name (message, names[i].name);

      /* hlo.proto and this table are built together. */
      if (field == NULL || field->id >= SLOTS)
        g_error ("%s.%s: not a field the HLO reader can table", message->name, names[i].name);
      out->kind[field->id] = (guint8) names[i].kind;
      out->wire[field->id] = _planar_xfield_wire_type (field);
      out->repeated[field->id] = field->label == PROTOBUF_C_LABEL_REPEATED &&
                                 out->wire[field->id] != PLANAR_WIRE_LEN;
    }
}

#define FILL(out, descriptor, ...) G_STMT_START {                        \
    static const FieldName names_[] = { __VA_ARGS__ };                   \
    fill (out, &descriptor, names_, G_N_ELEMENTS (names_));              \
  } G_STMT_END

const HloFields *
_planar_hlo_fields (void)
{
  static HloFields f;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      FILL (&f.proto, planar__hlo__hlo_proto__descriptor, { "hlo_module", PROTO_MODULE });
      FILL (&f.module, planar__hlo__hlo_module_proto__descriptor,
            { "name", MOD_NAME }, { "entry_computation_name", MOD_ENTRY_NAME },
            { "computations", MOD_COMPUTATIONS }, { "id", MOD_ID },
            { "entry_computation_id", MOD_ENTRY_ID }, { "stack_frame_index", MOD_FRAMES });
      FILL (&f.computation, planar__hlo__hlo_computation_proto__descriptor,
            { "name", COMP_NAME }, { "instructions", COMP_INSTRUCTIONS }, { "id", COMP_ID },
            { "root_id", COMP_ROOT_ID }, { "is_fusion_computation", COMP_IS_FUSION });
      FILL (&f.instruction, planar__hlo__hlo_instruction_proto__descriptor,
            { "name", INS_NAME }, { "opcode", INS_OPCODE }, { "shape", INS_SHAPE },
            { "metadata", INS_METADATA }, { "fusion_kind", INS_FUSION_KIND },
            { "dimensions", INS_DIMENSIONS }, { "window", INS_WINDOW },
            { "convolution_dimension_numbers", INS_CONV },
            { "custom_call_target", INS_CUSTOM_CALL_TARGET },
            { "dot_dimension_numbers", INS_DOT }, { "id", INS_ID }, { "operand_ids", INS_OPERAND_IDS },
            { "called_computation_ids", INS_CALLED_IDS }, { "backend_config", INS_BACKEND_CONFIG },
            { "feature_group_count", INS_FEATURE_GROUPS }, { "batch_group_count", INS_BATCH_GROUPS },
            { "parameter_number", INS_PARAMETER_NUMBER });
      FILL (&f.shape, planar__hlo__shape_proto__descriptor,
            { "element_type", SHAPE_ELEMENT_TYPE }, { "dimensions", SHAPE_DIMS },
            { "tuple_shapes", SHAPE_TUPLE }, { "layout", SHAPE_LAYOUT },
            { "is_dynamic_dimension", SHAPE_DYNAMIC });
      FILL (&f.layout, planar__hlo__layout_proto__descriptor,
            { "minor_to_major", LAYOUT_MINOR_TO_MAJOR }, { "memory_space", LAYOUT_MEMORY_SPACE });
      FILL (&f.metadata, planar__hlo__op_metadata__descriptor,
            { "op_type", MD_OP_TYPE }, { "op_name", MD_OP_NAME }, { "source_file", MD_SOURCE_FILE },
            { "source_line", MD_SOURCE_LINE }, { "stack_frame_id", MD_STACK_FRAME_ID });
      FILL (&f.window, planar__hlo__window__descriptor, { "dimensions", WIN_DIMS });
      FILL (&f.window_dim, planar__hlo__window_dimension__descriptor,
            { "size", WDIM_SIZE }, { "stride", WDIM_STRIDE }, { "padding_low", WDIM_PAD_LOW },
            { "padding_high", WDIM_PAD_HIGH }, { "window_dilation", WDIM_WINDOW_DILATION },
            { "base_dilation", WDIM_BASE_DILATION }, { "window_reversal", WDIM_REVERSAL });
      FILL (&f.dot, planar__hlo__dot_dimension_numbers__descriptor,
            { "lhs_contracting_dimensions", DOT_LHS_CONTRACTING },
            { "rhs_contracting_dimensions", DOT_RHS_CONTRACTING },
            { "lhs_batch_dimensions", DOT_LHS_BATCH }, { "rhs_batch_dimensions", DOT_RHS_BATCH });
      FILL (&f.conv, planar__hlo__convolution_dimension_numbers__descriptor,
            { "input_batch_dimension", CONV_IN_BATCH }, { "input_feature_dimension", CONV_IN_FEATURE },
            { "input_spatial_dimensions", CONV_IN_SPATIAL },
            { "kernel_input_feature_dimension", CONV_K_IN_FEATURE },
            { "kernel_output_feature_dimension", CONV_K_OUT_FEATURE },
            { "kernel_spatial_dimensions", CONV_K_SPATIAL },
            { "output_batch_dimension", CONV_OUT_BATCH }, { "output_feature_dimension", CONV_OUT_FEATURE },
            { "output_spatial_dimensions", CONV_OUT_SPATIAL });
      FILL (&f.frame_index, planar__hlo__stack_frame_index_proto__descriptor,
            { "file_names", SFI_FILES }, { "function_names", SFI_FUNCTIONS },
            { "file_locations", SFI_LOCATIONS }, { "stack_frames", SFI_FRAMES });
      FILL (&f.location, planar__hlo__stack_frame_index_proto__file_location__descriptor,
            { "file_name_id", LOC_FILE }, { "function_name_id", LOC_FUNCTION }, { "line", LOC_LINE },
            { "column", LOC_COLUMN });
      FILL (&f.frame, planar__hlo__stack_frame_index_proto__stack_frame__descriptor,
            { "file_location_id", FRAME_LOCATION }, { "parent_frame_id", FRAME_PARENT });
      g_once_init_leave (&once, 1);
    }
  return &f;
}

/* ------------------------------------------------------------------------ */
/* The decoder */

static gboolean
fail_wire (Decoder          *d,
           PlanarWireReader *r,
           const char       *message)
{
  if (!d->failed)
    planar_wire_set_error (d->error, PLANAR_TRACE_ERROR_CORRUPT, d->what, message,
                           (guint64) (r->error_at - d->base), r->error_reason);
  d->failed = TRUE;
  return FALSE;
}

gboolean
_planar_hlo_fail (Decoder    *d,
      const char *format,
      ...)
{
  va_list args;
  g_autofree char *detail = NULL;

  if (d->failed)
    return FALSE;
  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);
  /* TRANSLATORS: "the HloProto of program 19: operand 7 of add.3 is not
   * in its computation" */
  g_set_error (d->error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, _("%s: %s"), d->what, detail);
  d->failed = TRUE;
  return FALSE;
}

/* Checks @f's wire type against the proto's; a repeated scalar may also
 * come packed. */
static gboolean
check_wire (Decoder               *d,
            const Fields          *fields,
            const PlanarWireField *f,
            const char            *message)
{
  if (f->wire_type == fields->wire[f->number] ||
      (fields->repeated[f->number] && f->wire_type == PLANAR_WIRE_LEN))
    return TRUE;
  return _planar_hlo_fail (d, _("field %u of %s has the wrong wire type"), f->number, message);
}

/* The kind of @f in @fields, 0 for a field not read; -1 after an error. */
static int
field_kind (Decoder               *d,
            const Fields          *fields,
            const PlanarWireField *f,
            const char            *message)
{
  guint kind = f->number < SLOTS ? fields->kind[f->number] : 0;

  if (kind == 0)
    return 0;
  if (!check_wire (d, fields, f, message))
    return -1;
  return (int) kind;
}

/* Appends the values of a repeated integer field (one value, or a packed
 * run) to @out. */
static gboolean
append_ints (Decoder               *d,
             const PlanarWireField *f,
             GArray                *out,
             const char            *message)
{
  if (f->wire_type == PLANAR_WIRE_VARINT)
    {
      gint64 v = (gint64) f->value;

      g_array_append_val (out, v);
      return TRUE;
    }
  for (const guint8 *p = f->data, *end = f->data + f->len; p < end;)
    {
      guint64 v;

      if (!planar_wire_read_varint (&p, end, &v))
        return _planar_hlo_fail (d, _("a packed list in %s is malformed"), message);
      g_array_append_val (out, v);
    }
  return TRUE;
}

const char *
_planar_hlo_intern_field (Decoder               *d,
        const PlanarWireField *f)
{
  return _planar_hlo_index_intern (d->index, (const char *) f->data, f->len);
}

gboolean
_planar_hlo_read_message (Decoder       *d,
              const guint8  *data,
              gsize          len,
              const Fields  *fields,
              const char    *message,
              FieldVisitor   visit,
              gpointer       user_data)
{
  PlanarWireReader r;
  PlanarWireField f;
  int rc;

  planar_wire_reader_init (&r, d->base, data, len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      int kind = field_kind (d, fields, &f, message);

      if (kind < 0)
        return FALSE;
      if (kind > 0 && !visit (d, kind, &f, user_data))
        return FALSE;
    }
  if (rc < 0)
    return fail_wire (d, &r, message);
  return TRUE;
}

/* Shapes */

typedef struct
{
  gint32  element_type;
  GArray *dims;
  GArray *tuple;          /* guint32 shape indices */
  GArray *minor_to_major;
  GArray *dynamic;
  gboolean has_layout;
  gint64  memory_space;
  guint   depth;
} ShapeReader;

static gboolean
visit_layout (Decoder               *d,
              int                    kind,
              const PlanarWireField *f,
              gpointer               data)
{
  ShapeReader *s = data;

  if (kind == LAYOUT_MINOR_TO_MAJOR)
    return append_ints (d, f, s->minor_to_major, "LayoutProto");
  s->memory_space = (gint64) f->value;
  return TRUE;
}

static guint32 read_shape (Decoder *d, const guint8 *data, gsize len, guint depth);

static gboolean
visit_shape (Decoder               *d,
             int                    kind,
             const PlanarWireField *f,
             gpointer               data)
{
  ShapeReader *s = data;

  switch (kind)
    {
    case SHAPE_ELEMENT_TYPE:
      s->element_type = (gint32) f->value;
      return TRUE;
    case SHAPE_DIMS:
      return append_ints (d, f, s->dims, "ShapeProto");
    case SHAPE_DYNAMIC:
      return append_ints (d, f, s->dynamic, "ShapeProto");
    case SHAPE_TUPLE:
      {
        guint32 sub = read_shape (d, f->data, f->len, s->depth + 1);

        if (sub == PLANAR_HLO_NONE)
          return FALSE;
        g_array_append_val (s->tuple, sub);
        return TRUE;
      }
    case SHAPE_LAYOUT:
      s->has_layout = TRUE;
      return _planar_hlo_read_message (d, f->data, f->len, &d->f->layout, "LayoutProto", visit_layout, s);
    default:
      return TRUE;
    }
}

static void
format_shape (Decoder           *d,
              const ShapeReader *s,
              GString           *out)
{
  const char *type = planar_hlo_element_type_name (s->element_type);

  if (s->element_type == PLANAR_HLO_TYPE_TUPLE)
    {
      g_string_append_c (out, '(');
      for (guint i = 0; i < s->tuple->len; i++)
        {
          const PlanarHloShape *sub = &g_array_index (d->shapes, PlanarHloShape, g_array_index (s->tuple, guint32, i));

          if (i > 0)
            g_string_append (out, ", ");
          g_string_append (out, sub->text);
        }
      g_string_append_c (out, ')');
      return;
    }
  if (type != NULL)
    g_string_append (out, type);
  else
    g_string_append_printf (out, "type%d", s->element_type);
  if (s->element_type == PLANAR_HLO_TYPE_TOKEN || s->element_type == PLANAR_HLO_TYPE_OPAQUE)
    return;
  g_string_append_c (out, '[');
  for (guint i = 0; i < s->dims->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      if (i < s->dynamic->len && g_array_index (s->dynamic, gint64, i) != 0)
        g_string_append (out, "<=");
      g_string_append_printf (out, "%" G_GINT64_FORMAT, g_array_index (s->dims, gint64, i));
    }
  g_string_append_c (out, ']');
  /* XLA prints no layout for scalars. */
  if (s->has_layout && s->dims->len > 0)
    {
      g_string_append_c (out, '{');
      for (guint i = 0; i < s->minor_to_major->len; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          g_string_append_printf (out, "%" G_GINT64_FORMAT, g_array_index (s->minor_to_major, gint64, i));
        }
      if (s->memory_space != 0)
        g_string_append_printf (out, ":S(%" G_GINT64_FORMAT ")", s->memory_space);
      g_string_append_c (out, '}');
    }
}

/* Reads a ShapeProto; returns its index in d->shapes (an existing one of
 * the same text), or PLANAR_HLO_NONE on error. */
static guint32
read_shape (Decoder      *d,
            const guint8 *data,
            gsize         len,
            guint         depth)
{
  ShapeReader s = { 0 };
  g_autoptr(GString) text = NULL;
  const char *interned;
  gpointer found;
  PlanarHloShape shape = { 0 };
  guint32 result = PLANAR_HLO_NONE;

  if (depth > MAX_SHAPE_DEPTH)
    {
      _planar_hlo_fail (d, _("a shape nests deeper than %u levels"), MAX_SHAPE_DEPTH);
      return PLANAR_HLO_NONE;
    }
  s.depth = depth;
  /* No shape at all (read_instruction() passes none): an empty tuple. */
  if (data == NULL)
    s.element_type = PLANAR_HLO_TYPE_TUPLE;
  s.dims = g_array_new (FALSE, FALSE, sizeof (gint64));
  s.tuple = g_array_new (FALSE, FALSE, sizeof (guint32));
  s.minor_to_major = g_array_new (FALSE, FALSE, sizeof (gint64));
  s.dynamic = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (!_planar_hlo_read_message (d, data, len, &d->f->shape, "ShapeProto", visit_shape, &s))
    goto out;
  if (s.element_type == PLANAR_HLO_TYPE_TUPLE && s.dims->len > 0)
    {
      _planar_hlo_fail (d, _("a tuple shape has dimensions"));
      goto out;
    }
  for (guint i = 0; i < s.dims->len; i++)
    if (g_array_index (s.dims, gint64, i) < 0)
      {
        _planar_hlo_fail (d, _("a shape has a negative dimension"));
        goto out;
      }

  text = g_string_new (NULL);
  format_shape (d, &s, text);
  interned = _planar_hlo_index_intern (d->index, text->str, text->len);
  found = g_hash_table_lookup (d->shape_by_text, interned);
  if (found != NULL)
    {
      result = GPOINTER_TO_UINT (found) - 1;
      goto out;
    }

  shape.element_type = s.element_type;
  shape.n_dims = s.dims->len;
  shape.dims = OFFSET_PTR (const gint64 *, d->ints->len);
  g_array_append_vals (d->ints, s.dims->data, s.dims->len);
  shape.n_tuple = s.tuple->len;
  shape.tuple = OFFSET_PTR (const guint32 *, d->refs->len);
  g_array_append_vals (d->refs, s.tuple->data, s.tuple->len);
  shape.memory_space = s.memory_space;
  shape.text = interned;
  result = d->shapes->len;
  g_array_append_val (d->shapes, shape);
  g_hash_table_insert (d->shape_by_text, (gpointer) interned, GUINT_TO_POINTER (result + 1));

out:
  g_array_unref (s.dims);
  g_array_unref (s.tuple);
  g_array_unref (s.minor_to_major);
  g_array_unref (s.dynamic);
  return result;
}

/* Instructions */

typedef struct
{
  PlanarHloInstruction in;
  gint64               id;
  PlanarHloExtra       extra;
  PlanarHloDotDims     dot;
  PlanarHloConvDims    conv;
  gboolean             has_extra;
  gboolean             has_shape;
  gboolean             has_dot;
  gboolean             has_conv;
  GArray              *tmp;
} InstructionReader;

static gboolean
visit_metadata (Decoder               *d,
                int                    kind,
                const PlanarWireField *f,
                gpointer               data)
{
  PlanarHloInstruction *in = data;

  switch (kind)
    {
    case MD_OP_TYPE:
      in->op_type = _planar_hlo_intern_field (d, f);
      break;
    case MD_OP_NAME:
      in->op_name = _planar_hlo_intern_field (d, f);
      break;
    case MD_SOURCE_FILE:
      in->source_file = _planar_hlo_intern_field (d, f);
      break;
    case MD_SOURCE_LINE:
      in->source_line = (gint32) f->value;
      break;
    case MD_STACK_FRAME_ID:
      in->stack_frame_id = (gint32) f->value;
      break;
    default:
      break;
    }
  return TRUE;
}

/* Appends a repeated int field's values to d->ints, recording the list's
 * start (as a pointer-sized offset) and length. */
static gboolean
append_list (Decoder               *d,
             const PlanarWireField *f,
             const gint64         **list,
             guint32               *n,
             GArray                *tmp,
             const char            *message)
{
  g_array_set_size (tmp, 0);
  if (!append_ints (d, f, tmp, message))
    return FALSE;
  /* A list may come as several fields; they must stay contiguous. */
  if (*n > 0 && PTR_OFFSET (*list) + *n != d->ints->len)
    {
      GArray *again = g_array_new (FALSE, FALSE, sizeof (gint64));

      g_array_append_vals (again, &g_array_index (d->ints, gint64, PTR_OFFSET (*list)), *n);
      g_array_append_vals (again, tmp->data, tmp->len);
      g_array_set_size (tmp, 0);
      g_array_append_vals (tmp, again->data, again->len);
      g_array_unref (again);
      *n = 0;
    }
  if (*n == 0)
    *list = OFFSET_PTR (const gint64 *, d->ints->len);
  g_array_append_vals (d->ints, tmp->data, tmp->len);
  *n += tmp->len;
  return TRUE;
}

static gboolean
visit_dot (Decoder               *d,
           int                    kind,
           const PlanarWireField *f,
           gpointer               data)
{
  InstructionReader *ir = data;
  PlanarHloDotDims *dot = &ir->dot;

  switch (kind)
    {
    case DOT_LHS_CONTRACTING:
      return append_list (d, f, &dot->lhs_contracting, &dot->n_lhs_contracting, ir->tmp, "DotDimensionNumbers");
    case DOT_RHS_CONTRACTING:
      return append_list (d, f, &dot->rhs_contracting, &dot->n_rhs_contracting, ir->tmp, "DotDimensionNumbers");
    case DOT_LHS_BATCH:
      return append_list (d, f, &dot->lhs_batch, &dot->n_lhs_batch, ir->tmp, "DotDimensionNumbers");
    case DOT_RHS_BATCH:
      return append_list (d, f, &dot->rhs_batch, &dot->n_rhs_batch, ir->tmp, "DotDimensionNumbers");
    default:
      return TRUE;
    }
}

static gboolean
visit_conv (Decoder               *d,
            int                    kind,
            const PlanarWireField *f,
            gpointer               data)
{
  InstructionReader *ir = data;
  PlanarHloConvDims *c = &ir->conv;
  const char *m = "ConvolutionDimensionNumbers";

  switch (kind)
    {
    case CONV_IN_BATCH: c->input_batch = (gint64) f->value; return TRUE;
    case CONV_IN_FEATURE: c->input_feature = (gint64) f->value; return TRUE;
    case CONV_K_IN_FEATURE: c->kernel_input_feature = (gint64) f->value; return TRUE;
    case CONV_K_OUT_FEATURE: c->kernel_output_feature = (gint64) f->value; return TRUE;
    case CONV_OUT_BATCH: c->output_batch = (gint64) f->value; return TRUE;
    case CONV_OUT_FEATURE: c->output_feature = (gint64) f->value; return TRUE;
    case CONV_IN_SPATIAL: return append_list (d, f, &c->input_spatial, &c->n_input_spatial, ir->tmp, m);
    case CONV_K_SPATIAL: return append_list (d, f, &c->kernel_spatial, &c->n_kernel_spatial, ir->tmp, m);
    case CONV_OUT_SPATIAL: return append_list (d, f, &c->output_spatial, &c->n_output_spatial, ir->tmp, m);
    default: return TRUE;
    }
}

static gboolean
visit_window_dim (Decoder               *d,
                  int                    kind,
                  const PlanarWireField *f,
                  gpointer               data)
{
  PlanarHloWindowDim *w = data;

  (void) d;
  switch (kind)
    {
    case WDIM_SIZE: w->size = (gint64) f->value; break;
    case WDIM_STRIDE: w->stride = (gint64) f->value; break;
    case WDIM_PAD_LOW: w->padding_low = (gint64) f->value; break;
    case WDIM_PAD_HIGH: w->padding_high = (gint64) f->value; break;
    case WDIM_WINDOW_DILATION: w->window_dilation = (gint64) f->value; break;
    case WDIM_BASE_DILATION: w->base_dilation = (gint64) f->value; break;
    case WDIM_REVERSAL: w->window_reversal = f->value != 0; break;
    default: break;
    }
  return TRUE;
}

static gboolean
visit_window (Decoder               *d,
              int                    kind,
              const PlanarWireField *f,
              gpointer               data)
{
  InstructionReader *ir = data;
  PlanarHloWindowDim w = { 0 };

  (void) kind;
  if (!_planar_hlo_read_message (d, f->data, f->len, &d->f->window_dim, "WindowDimension", visit_window_dim, &w))
    return FALSE;
  /* The window's dims stay contiguous: a Window message comes once. */
  if (ir->extra.n_window == 0)
    ir->extra.window = OFFSET_PTR (const PlanarHloWindowDim *, d->windows->len);
  else if (PTR_OFFSET (ir->extra.window) + ir->extra.n_window != d->windows->len)
    return _planar_hlo_fail (d, _("instruction %s has more than one window"), ir->in.name != NULL ? ir->in.name : "?");
  g_array_append_val (d->windows, w);
  ir->extra.n_window++;
  return TRUE;
}

static gboolean
visit_instruction (Decoder               *d,
                   int                    kind,
                   const PlanarWireField *f,
                   gpointer               data)
{
  InstructionReader *ir = data;
  PlanarHloInstruction *in = &ir->in;

  switch (kind)
    {
    case INS_NAME:
      in->name = g_string_chunk_insert_len (d->names, (const char *) f->data, (gssize) f->len);
      return TRUE;
    case INS_OPCODE:
      in->opcode = _planar_hlo_intern_field (d, f);
      return TRUE;
    case INS_FUSION_KIND:
      in->fusion_kind = _planar_hlo_intern_field (d, f);
      return TRUE;
    case INS_SHAPE:
      in->shape = read_shape (d, f->data, f->len, 0);
      ir->has_shape = TRUE;
      return in->shape != PLANAR_HLO_NONE;
    case INS_METADATA:
      return _planar_hlo_read_message (d, f->data, f->len, &d->f->metadata, "OpMetadata", visit_metadata, in);
    case INS_ID:
      ir->id = (gint64) f->value;
      return TRUE;
    case INS_PARAMETER_NUMBER:
      /* A computation has far fewer than 2^31 parameters; a number out of
       * that range is kept as -1 (printed as none). */
      in->parameter_number = (gint64) f->value >= 0 && (gint64) f->value <= G_MAXINT32 ? (gint32) f->value : -1;
      return TRUE;
    case INS_OPERAND_IDS:
      {
        guint before = d->raw_operands->len;

        if (!append_ints (d, f, d->raw_operands, "HloInstructionProto"))
          return FALSE;
        in->n_operands += d->raw_operands->len - before;
        return TRUE;
      }
    case INS_CALLED_IDS:
      {
        guint before = d->raw_called->len;

        if (!append_ints (d, f, d->raw_called, "HloInstructionProto"))
          return FALSE;
        in->n_called += d->raw_called->len - before;
        return TRUE;
      }
    default:
      break;
    }

  ir->has_extra = TRUE;
  switch (kind)
    {
    case INS_CUSTOM_CALL_TARGET:
      ir->extra.custom_call_target = _planar_hlo_intern_field (d, f);
      return TRUE;
    case INS_BACKEND_CONFIG:
      ir->extra.backend_config = _planar_hlo_index_intern (d->index, (const char *) f->data, f->len);
      ir->extra.backend_config_len = strlen (ir->extra.backend_config);
      return TRUE;
    case INS_DIMENSIONS:
      return append_list (d, f, &ir->extra.dimensions, &ir->extra.n_dimensions, ir->tmp,
                          "HloInstructionProto");
    case INS_WINDOW:
      return _planar_hlo_read_message (d, f->data, f->len, &d->f->window, "Window", visit_window, ir);
    case INS_DOT:
      ir->has_dot = TRUE;
      return _planar_hlo_read_message (d, f->data, f->len, &d->f->dot, "DotDimensionNumbers", visit_dot, ir);
    case INS_CONV:
      ir->has_conv = TRUE;
      return _planar_hlo_read_message (d, f->data, f->len, &d->f->conv, "ConvolutionDimensionNumbers", visit_conv, ir);
    case INS_FEATURE_GROUPS:
      ir->extra.feature_group_count = (gint64) f->value;
      return TRUE;
    case INS_BATCH_GROUPS:
      ir->extra.batch_group_count = (gint64) f->value;
      return TRUE;
    default:
      return TRUE;
    }
}

static gboolean
read_instruction (Decoder      *d,
                  const guint8 *data,
                  gsize         len,
                  guint32       computation,
                  GArray       *tmp)
{
  InstructionReader ir = { 0 };
  const char *empty = _planar_hlo_index_intern (d->index, "", 0);

  ir.tmp = tmp;
  ir.in.name = ir.in.opcode = ir.in.op_type = ir.in.op_name = ir.in.source_file = ir.in.fusion_kind = empty;
  ir.extra.custom_call_target = ir.extra.backend_config = empty;
  ir.in.computation = computation;
  ir.in.operands = d->raw_operands->len;
  ir.in.called = d->raw_called->len;
  ir.in.extra = PLANAR_HLO_NONE;
  if (!_planar_hlo_read_message (d, data, len, &d->f->instruction, "HloInstructionProto", visit_instruction, &ir))
    return FALSE;
  if (!ir.has_shape)
    {
      /* An instruction without a shape gets an empty tuple's. */
      ir.in.shape = read_shape (d, NULL, 0, 0);
      if (ir.in.shape == PLANAR_HLO_NONE)
        return FALSE;
    }
  if (ir.has_extra)
    {
      /* Dimension numbers as their index + 1 in their pool (0: none). */
      if (ir.has_dot)
        {
          g_array_append_val (d->dots, ir.dot);
          ir.extra.dot = OFFSET_PTR (const PlanarHloDotDims *, d->dots->len);
        }
      if (ir.has_conv)
        {
          g_array_append_val (d->convs, ir.conv);
          ir.extra.conv = OFFSET_PTR (const PlanarHloConvDims *, d->convs->len);
        }
      ir.in.extra = d->extras->len;
      g_array_append_val (d->extras, ir.extra);
    }
  if (d->instructions->len >= G_MAXUINT32 - 1)
    return _planar_hlo_fail (d, _("the module has too many instructions"));
  g_array_append_val (d->instructions, ir.in);
  g_array_append_val (d->ids, ir.id);
  return TRUE;
}

typedef struct
{
  PlanarHloComputation c;
  gint64               root_id;
  gboolean             has_root_id;
  GArray              *tmp;
} ComputationReader;

static gboolean
visit_computation (Decoder               *d,
                   int                    kind,
                   const PlanarWireField *f,
                   gpointer               data)
{
  ComputationReader *cr = data;

  switch (kind)
    {
    case COMP_NAME:
      cr->c.name = _planar_hlo_intern_field (d, f);
      return TRUE;
    case COMP_INSTRUCTIONS:
      return read_instruction (d, f->data, f->len, d->computations->len, cr->tmp);
    case COMP_ID:
      cr->c.id = (gint64) f->value;
      return TRUE;
    case COMP_ROOT_ID:
      cr->root_id = (gint64) f->value;
      cr->has_root_id = TRUE;
      return TRUE;
    case COMP_IS_FUSION:
      cr->c.is_fusion = f->value != 0;
      return TRUE;
    default:
      return TRUE;
    }
}

static gboolean
read_computation (Decoder      *d,
                  const guint8 *data,
                  gsize         len,
                  GArray       *tmp)
{
  ComputationReader cr = { 0 };
  gint64 root = -1;

  cr.tmp = tmp;
  cr.c.name = _planar_hlo_index_intern (d->index, "", 0);
  cr.c.first = d->instructions->len;
  cr.c.caller = PLANAR_HLO_NONE;
  cr.c.root = PLANAR_HLO_NONE;
  if (!_planar_hlo_read_message (d, data, len, &d->f->computation, "HloComputationProto", visit_computation, &cr))
    return FALSE;
  cr.c.n_instructions = d->instructions->len - cr.c.first;
  if (cr.has_root_id)
    root = cr.root_id;
  g_array_append_val (d->root_ids, root);
  g_array_append_val (d->computations, cr.c);
  return TRUE;
}

/* The module */

typedef struct
{
  GArray       *tmp;
  const guint8 *frames;
  gsize         frames_len;
  gboolean      has_frames;
} ModuleReader;

static gboolean
visit_module (Decoder               *d,
              int                    kind,
              const PlanarWireField *f,
              gpointer               data)
{
  ModuleReader *mr = data;

  switch (kind)
    {
    case MOD_NAME:
      d->m->pub.name = _planar_hlo_intern_field (d, f);
      return TRUE;
    case MOD_ENTRY_NAME:
      d->entry_name = _planar_hlo_intern_field (d, f);
      return TRUE;
    case MOD_COMPUTATIONS:
      return read_computation (d, f->data, f->len, mr->tmp);
    case MOD_ID:
      d->m->pub.id = (gint64) f->value;
      return TRUE;
    case MOD_ENTRY_ID:
      d->entry_id = (gint64) f->value;
      d->has_entry_id = TRUE;
      return TRUE;
    case MOD_FRAMES:
      /* Read once the instructions are, to check their frame ids. */
      mr->frames = f->data;
      mr->frames_len = f->len;
      mr->has_frames = TRUE;
      return TRUE;
    default:
      return TRUE;
    }
}

static int
compare_names (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  const PlanarHloInstruction *ins = user_data;
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  int c = strcmp (ins[x].name, ins[y].name);

  /* The first of a name wins, as in XProf's map. */
  return c != 0 ? c : (x < y ? -1 : x > y);
}

/* By kernel name, then by index: of two instructions whose kernels would
 * have one name, the lookup sees both and takes neither. */
static int
compare_kernel_names (gconstpointer a,
                      gconstpointer b,
                      gpointer      user_data)
{
  const PlanarHloInstruction *ins = user_data;
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  int c = _planar_hlo_compare_kernel_names (ins[x].name, ins[y].name, strlen (ins[y].name));

  return c != 0 ? c : (x < y ? -1 : x > y);
}

/* Places @n elements of @array (or of @data) at *@at in @block, 8-byte
 * aligned, and returns where. */
static gpointer
place (guint8        *block,
       gsize         *at,
       gconstpointer  data,
       gsize          n,
       gsize          element)
{
  gpointer out = block + *at;

  if (n > 0)
    memcpy (out, data, n * element);
  *at += (n * element + 7) & ~(gsize) 7;
  return out;
}

#define ARRAY_SIZE(a) (((gsize) (a)->len * g_array_get_element_size (a) + 7) & ~(gsize) 7)

/* Moves the arrays into the module's one block, turning the pool offsets
 * into pointers. One allocation a module, and no pointers kept beside the
 * public ones: a module of a few instructions costs little more than its
 * instructions. */
static void
finish (Decoder *d)
{
  HloModuleEntry *m = d->m;
  PlanarHloModule *pub = &m->pub;
  gsize n_frames = pub->n_frames;
  gsize size, at = 0;
  guint8 *block;
  PlanarHloShape *shapes;
  PlanarHloExtra *extras;
  PlanarHloDotDims *dots;
  PlanarHloConvDims *convs;
  PlanarHloWindowDim *windows;
  PlanarHloStackFrame *frames;
  gint64 *ints;
  guint32 *refs, *by_name, *by_kernel;

  gsize names = 0;
  char *name_pool;

  for (guint i = 0; i < d->instructions->len; i++)
    names += strlen (g_array_index (d->instructions, PlanarHloInstruction, i).name) + 1;
  size = names + ARRAY_SIZE (d->computations) + ARRAY_SIZE (d->instructions) + ARRAY_SIZE (d->shapes) +
         ARRAY_SIZE (d->extras) + ARRAY_SIZE (d->dots) + ARRAY_SIZE (d->convs) + ARRAY_SIZE (d->windows) +
         ((n_frames * sizeof (PlanarHloStackFrame) + 7) & ~(gsize) 7) + ARRAY_SIZE (d->ints) +
         ARRAY_SIZE (d->refs) + 2 * (((gsize) d->instructions->len * sizeof (guint32) + 7) & ~(gsize) 7);
  /* The computations come first: pub.computations is the block. */
  block = g_malloc (MAX (size, 1));
  pub->computations = place (block, &at, d->computations->data, d->computations->len, sizeof (PlanarHloComputation));
  pub->n_computations = d->computations->len;
  pub->instructions = place (block, &at, d->instructions->data, d->instructions->len, sizeof (PlanarHloInstruction));
  pub->n_instructions = d->instructions->len;
  shapes = place (block, &at, d->shapes->data, d->shapes->len, sizeof (PlanarHloShape));
  pub->n_shapes = d->shapes->len;
  extras = place (block, &at, d->extras->data, d->extras->len, sizeof (PlanarHloExtra));
  pub->n_extras = d->extras->len;
  dots = place (block, &at, d->dots->data, d->dots->len, sizeof (PlanarHloDotDims));
  convs = place (block, &at, d->convs->data, d->convs->len, sizeof (PlanarHloConvDims));
  windows = place (block, &at, d->windows->data, d->windows->len, sizeof (PlanarHloWindowDim));
  frames = place (block, &at, pub->frames, n_frames, sizeof (PlanarHloStackFrame));
  ints = place (block, &at, d->ints->data, d->ints->len, sizeof (gint64));
  refs = place (block, &at, d->refs->data, d->refs->len, sizeof (guint32));
  by_name = place (block, &at, NULL, 0, sizeof (guint32));
  at += ((gsize) d->instructions->len * sizeof (guint32) + 7) & ~(gsize) 7;
  by_kernel = place (block, &at, NULL, 0, sizeof (guint32));
  at += ((gsize) d->instructions->len * sizeof (guint32) + 7) & ~(gsize) 7;
  name_pool = (char *) block + at;
  g_assert (at + names == size);
  for (guint i = 0; i < pub->n_instructions; i++)
    {
      PlanarHloInstruction *in = (PlanarHloInstruction *) &pub->instructions[i];
      gsize len = strlen (in->name) + 1;

      memcpy (name_pool, in->name, len);
      in->name = name_pool;
      name_pool += len;
    }
  g_free ((gpointer) pub->frames);
  pub->frames = frames;
  pub->refs = refs;

  for (guint i = 0; i < pub->n_shapes; i++)
    {
      shapes[i].dims = ints + PTR_OFFSET (shapes[i].dims);
      shapes[i].tuple = refs + PTR_OFFSET (shapes[i].tuple);
    }
#define FIX(s, field) (s)->field = ints + PTR_OFFSET ((s)->field)
  for (guint i = 0; i < d->dots->len; i++)
    {
      FIX (&dots[i], lhs_contracting);
      FIX (&dots[i], rhs_contracting);
      FIX (&dots[i], lhs_batch);
      FIX (&dots[i], rhs_batch);
    }
  for (guint i = 0; i < d->convs->len; i++)
    {
      FIX (&convs[i], input_spatial);
      FIX (&convs[i], kernel_spatial);
      FIX (&convs[i], output_spatial);
    }
  for (guint i = 0; i < pub->n_extras; i++)
    {
      PlanarHloExtra *e = &extras[i];

      FIX (e, dimensions);
      e->window = windows + PTR_OFFSET (e->window);
      e->dot = PTR_OFFSET (e->dot) > 0 ? &dots[PTR_OFFSET (e->dot) - 1] : NULL;
      e->conv = PTR_OFFSET (e->conv) > 0 ? &convs[PTR_OFFSET (e->conv) - 1] : NULL;
    }
#undef FIX
  pub->shapes = shapes;
  pub->extras = extras;

  for (guint i = 0; i < pub->n_instructions; i++)
    by_name[i] = i;
  g_qsort_with_data (by_name, pub->n_instructions, sizeof (guint32), compare_names,
                     (gpointer) pub->instructions);
  m->by_name = by_name;
  for (guint i = 0; i < pub->n_instructions; i++)
    by_kernel[i] = i;
  g_qsort_with_data (by_kernel, pub->n_instructions, sizeof (guint32), compare_kernel_names,
                     (gpointer) pub->instructions);
  m->by_kernel = by_kernel;
  d->index->module_bytes += sizeof (HloModuleEntry) + size;
}

static void
module_entry_free (gpointer data)
{
  HloModuleEntry *m = data;

  /* Before finish(), only the frames are the module's. */
  if (m->pub.computations != NULL)
    g_free ((gpointer) m->pub.computations);
  else
    g_free ((gpointer) m->pub.frames);
  g_free (m);
}

static void
decoder_clear (Decoder *d)
{
  GArray **arrays[] = { &d->computations, &d->instructions, &d->shapes, &d->extras, &d->dots, &d->convs,
                        &d->ids, &d->windows, &d->refs, &d->ints, &d->raw_operands, &d->raw_called,
                        &d->root_ids };

  for (guint i = 0; i < G_N_ELEMENTS (arrays); i++)
    g_clear_pointer (arrays[i], g_array_unref);
  g_clear_pointer (&d->shape_by_text, g_hash_table_unref);
  g_clear_pointer (&d->names, g_string_chunk_free);
  g_clear_pointer (&d->m, module_entry_free);
  g_free (d->what);
}

static gboolean
visit_proto (Decoder               *d,
             int                    kind,
             const PlanarWireField *f,
             gpointer               data)
{
  PlanarWireField **module = data;

  (void) d;
  (void) kind;
  /* A message field given twice merges; XProf's protos have one. The last
   * one is read. */
  g_free (*module);
  *module = g_memdup2 (f, sizeof *f);
  return TRUE;
}

static guint
find_program (const PlanarHloIndex *self,
              guint64               program_id)
{
  guint lo = 0, hi = self->modules->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const HloModuleEntry *m = g_ptr_array_index (self->modules, mid);

      if (m->pub.program_id < program_id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gboolean
planar_hlo_index_add (PlanarHloIndex  *self,
                      guint64          program_id,
                      const guint8    *data,
                      gsize            len,
                      GError         **error)
{
  Decoder d = { 0 };
  g_autofree PlanarWireField *module = NULL;
  ModuleReader mr = { 0 };
  g_autoptr(GArray) tmp = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint pos;
  gboolean ok = FALSE;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  pos = find_program (self, program_id);
  if (pos < self->modules->len &&
      ((HloModuleEntry *) g_ptr_array_index (self->modules, pos))->pub.program_id == program_id)
    return TRUE;

  d.index = self;
  d.f = _planar_hlo_fields ();
  d.base = data;
  d.error = error;
  d.what = g_strdup_printf (_("the HloProto of program %" PRIu64), program_id);
  d.m = g_new0 (HloModuleEntry, 1);
  d.m->pub.program_id = program_id;
  d.m->pub.name = _planar_hlo_index_intern (self, "", 0);
  d.m->pub.serialized_bytes = len;
  d.m->pub.entry = PLANAR_HLO_NONE;
  d.computations = g_array_new (FALSE, FALSE, sizeof (PlanarHloComputation));
  d.instructions = g_array_new (FALSE, FALSE, sizeof (PlanarHloInstruction));
  d.shapes = g_array_new (FALSE, FALSE, sizeof (PlanarHloShape));
  d.extras = g_array_new (FALSE, FALSE, sizeof (PlanarHloExtra));
  d.dots = g_array_new (FALSE, FALSE, sizeof (PlanarHloDotDims));
  d.convs = g_array_new (FALSE, FALSE, sizeof (PlanarHloConvDims));
  d.ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  d.names = g_string_chunk_new (4096);
  d.windows = g_array_new (FALSE, FALSE, sizeof (PlanarHloWindowDim));
  d.refs = g_array_new (FALSE, FALSE, sizeof (guint32));
  d.ints = g_array_new (FALSE, FALSE, sizeof (gint64));
  d.raw_operands = g_array_new (FALSE, FALSE, sizeof (gint64));
  d.raw_called = g_array_new (FALSE, FALSE, sizeof (gint64));
  d.root_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  d.shape_by_text = g_hash_table_new (NULL, NULL);
  mr.tmp = tmp;

  if (!_planar_hlo_read_message (&d, data, len, &d.f->proto, "HloProto", visit_proto, &module))
    goto out;
  if (module == NULL)
    {
      _planar_hlo_fail (&d, _("it holds no module"));
      goto out;
    }
  if (!_planar_hlo_read_message (&d, module->data, module->len, &d.f->module, "HloModuleProto", visit_module, &mr))
    goto out;
  if (mr.has_frames && !_planar_hlo_read_frames (&d, mr.frames, mr.frames_len))
    goto out;
  if (!_planar_hlo_check_frame_ids (&d) || !_planar_hlo_resolve (&d))
    goto out;

  finish (&d);
  g_ptr_array_insert (self->modules, (gint) pos, d.m);
  self->serialized_bytes += len;
  d.m = NULL;
  ok = TRUE;

out:
  decoder_clear (&d);
  return ok;
}

/* ------------------------------------------------------------------------ */

PlanarHloIndex *
planar_hlo_index_new (void)
{
  PlanarHloIndex *self = g_new0 (PlanarHloIndex, 1);

  self->strings = planar_string_table_new ();
  self->modules = g_ptr_array_new_with_free_func (module_entry_free);
  return self;
}

void
planar_hlo_index_free (PlanarHloIndex *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->modules);
  planar_string_table_free (self->strings);
  g_free (self);
}

const char *
_planar_hlo_index_intern (PlanarHloIndex *self,
                          const char     *s,
                          gsize           len)
{
  guint before = planar_string_table_size (self->strings);
  const char *interned = planar_string_table_intern_len (self->strings, s, len);

  /* A new string: its bytes and its entry in the table's hash set (a
   * hash, a key, at most half the slots used). */
  if (planar_string_table_size (self->strings) != before)
    self->string_bytes += len + 1 + 2 * (sizeof (guint) + sizeof (gpointer));
  return interned;
}
