/* planar-op-name.c: framework op names, parsed as XLA's `tf_op_utils.cc`
 * does with RE2, here by hand (each pattern quoted above its matcher).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-op-name.h"

#include <string.h>

typedef struct
{
  const char *data;
  gsize       len;
} Text;

typedef struct
{
  PlanarOpCategory category;
  Text             name;
  Text             type;
} TfOp;

static gboolean
is_upper (char c)
{
  return c >= 'A' && c <= 'Z';
}

static gboolean
is_lower (char c)
{
  return c >= 'a' && c <= 'z';
}

static gboolean
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

/* [A-Za-z0-9.][A-Za-z0-9_.\/>-]* */
static gboolean
is_tf_op_name (Text t)
{
  if (t.len == 0)
    return FALSE;
  if (!is_upper (t.data[0]) && !is_lower (t.data[0]) && !is_digit (t.data[0]) && t.data[0] != '.')
    return FALSE;
  for (gsize i = 1; i < t.len; i++)
    {
      char c = t.data[i];

      /* Not strchr(), which finds a NUL too. */
      if (!is_upper (c) && !is_lower (c) && !is_digit (c) &&
          c != '_' && c != '.' && c != '/' && c != '>' && c != '-')
        return FALSE;
    }
  return TRUE;
}

/* [A-Z_][a-zA-Z0-9_]* */
static gboolean
is_tf_op_type (Text t)
{
  if (t.len == 0 || (!is_upper (t.data[0]) && t.data[0] != '_'))
    return FALSE;
  for (gsize i = 1; i < t.len; i++)
    if (!is_upper (t.data[i]) && !is_lower (t.data[i]) && !is_digit (t.data[i]) && t.data[i] != '_')
      return FALSE;
  return TRUE;
}

/* [a-z_][a-z0-9_]*(\[.*\])? */
static gboolean
is_jax_op_type (Text t)
{
  gsize i = 1;

  if (t.len == 0 || (!is_lower (t.data[0]) && t.data[0] != '_'))
    return FALSE;
  while (i < t.len && (is_lower (t.data[i]) || is_digit (t.data[i]) || t.data[i] == '_'))
    i++;
  if (i == t.len)
    return TRUE;
  if (t.data[i] != '[' || t.data[t.len - 1] != ']' || t.len - i < 2)
    return FALSE;
  return memchr (t.data + i, '\n', t.len - i) == NULL;
}

/* An optional sign and decimal digits, as absl::SimpleAtoi takes them. */
static gboolean
is_integer (Text t)
{
  gsize i = 0;

  if (t.len > 0 && (t.data[0] == '-' || t.data[0] == '+'))
    i = 1;
  if (i == t.len)
    return FALSE;
  for (; i < t.len; i++)
    if (!is_digit (t.data[i]))
      return FALSE;
  return TRUE;
}

/* The op name less its name scopes and its numeric suffix:
 * "model/layer/MatMul_1" -> "MatMul". */
static Text
derive_op_type (Text full)
{
  Text op = full;
  const char *slash = NULL, *underscore = NULL;

  for (gsize i = 0; i < full.len; i++)
    if (full.data[i] == '/')
      slash = full.data + i;
  if (slash != NULL)
    {
      op.data = slash + 1;
      op.len = full.data + full.len - op.data;
    }
  for (gsize i = 0; i < op.len; i++)
    if (op.data[i] == '_')
      underscore = op.data + i;
  if (underscore != NULL)
    {
      Text suffix = { underscore + 1, op.data + op.len - (underscore + 1) };

      if (is_integer (suffix))
        op.len = underscore - op.data;
    }
  return op;
}

static gboolean
text_has_prefix_ci (Text        t,
                    const char *prefix)
{
  gsize n = strlen (prefix);

  return t.len >= n && g_ascii_strncasecmp (t.data, prefix, n) == 0;
}

static TfOp
parse (Text full)
{
  static const struct { const char *prefix; const char *type; } memcpy_ops[] = {
    { "MEMCPYHToD", "MemcpyHToD" },
    { "MEMCPYDToH", "MemcpyDToH" },
    { "MEMCPYDToD", "MemcpyDToD" },
    { "MEMCPYHToH", "MemcpyHToH" },
  };
  TfOp op = { PLANAR_OP_CATEGORY_UNKNOWN, full, { "", 0 } };
  const char *colon = memchr (full.data, ':', full.len);
  Text part0, part1, type;

  if (colon == NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (memcpy_ops); i++)
        if (text_has_prefix_ci (full, memcpy_ops[i].prefix))
          {
            op.category = PLANAR_OP_CATEGORY_MEMCPY;
            op.type.data = memcpy_ops[i].type;
            op.type.len = strlen (memcpy_ops[i].type);
          }
      return op;
    }

  part0.data = full.data;
  part0.len = colon - full.data;
  part1.data = colon + 1;
  part1.len = full.data + full.len - part1.data;

  if (part0.len == strlen ("Iterator") && memcmp (part0.data, "Iterator", part0.len) == 0)
    {
      op.category = PLANAR_OP_CATEGORY_TF_DATA;
      op.type.data = "Dataset";
      op.type.len = strlen ("Dataset");
      return op;
    }
  if (is_tf_op_name (part0) && is_tf_op_type (part1))
    {
      op.category = PLANAR_OP_CATEGORY_TENSORFLOW;
      op.name = part0;
      op.type = part1;
      return op;
    }
  type = part1.len == 0 ? derive_op_type (part0) : part1;
  if (is_jax_op_type (type))
    {
      const char *bracket = memchr (type.data, '[', type.len);

      op.category = PLANAR_OP_CATEGORY_JAX;
      op.name = part0;
      op.type = type;
      if (bracket != NULL)
        op.type.len = bracket - type.data;
      return op;
    }
  if (part1.len == 0)
    {
      op.category = PLANAR_OP_CATEGORY_TENSORFLOW;
      op.name = part0;
      op.type = type;
    }
  return op;
}

void
planar_op_name_parse (const char   *text,
                      gsize         len,
                      PlanarOpName *op)
{
  Text full = { text != NULL ? text : "", text != NULL ? len : 0 };
  TfOp parsed;

  g_return_if_fail (op != NULL);
  g_return_if_fail (text != NULL || len == 0);

  parsed = parse (full);
  op->category = parsed.category;
  op->name = parsed.name.data;
  op->name_len = parsed.name.len;
  op->type = parsed.type.data;
  op->type_len = parsed.type.len;
}

void
planar_op_name_derive_type (const char  *name,
                            gsize        len,
                            const char **type,
                            gsize       *type_len)
{
  Text full = { name != NULL ? name : "", name != NULL ? len : 0 };
  Text derived;

  g_return_if_fail (type != NULL && type_len != NULL);

  derived = derive_op_type (full);
  *type = derived.data;
  *type_len = derived.len;
}

void
planar_op_name_display (const PlanarOpName *op,
                        GString            *out)
{
  g_return_if_fail (op != NULL);
  g_return_if_fail (out != NULL);

  g_string_truncate (out, 0);
  if (op->category == PLANAR_OP_CATEGORY_UNKNOWN)
    {
      gsize len = op->name_len;

      while (len > 0 && g_ascii_isspace (op->name[len - 1]))
        len--;
      g_string_append_len (out, op->name, len);
    }
  else if (op->category == PLANAR_OP_CATEGORY_TF_DATA)
    {
      /* "Iterator::" and the last "::" part of the name. */
      Text last = { op->name, op->name_len };

      for (gsize i = 0; i + 1 < op->name_len; i++)
        if (op->name[i] == ':' && op->name[i + 1] == ':')
          {
            last.data = op->name + i + 2;
            last.len = op->name + op->name_len - last.data;
          }
      g_string_append (out, "Iterator::");
      g_string_append_len (out, last.data, last.len);
    }
  else
    g_string_append_len (out, op->type, op->type_len);
}
