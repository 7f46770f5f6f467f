/* planar-op-name.h: what a framework op name says (XLA's `tf_op_utils.cc`).
 *
 * The `tf_op` stat of a kernel or TPU op names the TensorFlow or JAX op it
 * ran for: "model/dense/MatMul:MatMul" (TensorFlow: name scopes, the op's
 * name, a colon and its type), "jit(train_step)/jit(main)/dot_general"
 * (JAX: transformations and name scopes, the primitive last),
 * "Iterator::Model::Map" (tf.data), "MEMCPYHToD" (copies). The parser is a
 * pure function of the text: it reads no trace, allocates nothing and
 * returns pointers into the text it was given (or to static strings), so
 * it runs on any thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PLANAR_OP_CATEGORY_UNKNOWN,
  PLANAR_OP_CATEGORY_TENSORFLOW,
  PLANAR_OP_CATEGORY_JAX,
  PLANAR_OP_CATEGORY_TF_DATA,
  PLANAR_OP_CATEGORY_MEMCPY,
} PlanarOpCategory;

/* A parsed op name. @name is the part before the type (the whole text for
 * unknown, tf.data and copy ops); @type the op type ("MatMul",
 * "dot_general", "Dataset", "MemcpyHToD"), empty when unknown. Neither is
 * NUL-terminated. */
typedef struct
{
  PlanarOpCategory category;
  const char      *name;
  gsize            name_len;
  const char      *type;
  gsize            type_len;
} PlanarOpName;

/* Parses the @len bytes at @text (any bytes; NULL when @len is 0) as XLA's
 * ParseTfOpFullname() does, without regular expressions. */
void planar_op_name_parse          (const char         *text,
                                    gsize               len,
                                    PlanarOpName       *op);
/* Sets @out to what a framework-op event shows for @op (XLA's
 * TfOpEventName()): the type of TensorFlow, JAX and copy ops,
 * "Iterator::" and the last "::" part for tf.data, else the name less its
 * trailing white space. */
void planar_op_name_display        (const PlanarOpName *op,
                                    GString            *out);
/* The op type that @name implies when the text gives none: its last
 * "/"-separated part less a numeric "_N" suffix ("model/layer/MatMul_1" ->
 * "MatMul"). Stores it in @type, @type_len (pointing into @name). */
void planar_op_name_derive_type    (const char         *name,
                                    gsize               len,
                                    const char        **type,
                                    gsize              *type_len);

G_END_DECLS
