/* test-wire.c: the protobuf wire reader.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-wire.h"
#include "planar-error.h"

#include <string.h>

static gboolean
varint (const guint8 *bytes,
        gsize         len,
        guint64      *value,
        gsize        *used)
{
  const guint8 *p = bytes;
  gboolean ok = planar_wire_read_varint (&p, bytes + len, value);

  *used = (gsize) (p - bytes);
  return ok;
}

static void
test_varints (void)
{
  static const guint8 one[] = { 0x01 };
  static const guint8 v300[] = { 0xac, 0x02 };
  static const guint8 max64[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
  static const guint8 minus_one[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
  static const guint8 too_big[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
  static const guint8 eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
  static const guint8 padded[] = { 0x81, 0x80, 0x80, 0x00 };
  static const guint8 unterminated[] = { 0x80, 0x80 };
  guint64 v;
  gsize used;

  g_assert_true (varint (one, sizeof one, &v, &used));
  g_assert_cmpuint (v, ==, 1);
  g_assert_cmpuint (used, ==, 1);
  g_assert_true (varint (v300, sizeof v300, &v, &used));
  g_assert_cmpuint (v, ==, 300);
  g_assert_cmpuint (used, ==, 2);
  g_assert_true (varint (max64, sizeof max64, &v, &used));
  g_assert_cmpuint (v, ==, G_MAXUINT64);
  g_assert_cmpuint (used, ==, 10);
  g_assert_true (varint (minus_one, sizeof minus_one, &v, &used));
  g_assert_cmpint ((gint64) v, ==, -1);
  /* Non-minimal encodings are valid protobuf. */
  g_assert_true (varint (padded, sizeof padded, &v, &used));
  g_assert_cmpuint (v, ==, 1);
  g_assert_cmpuint (used, ==, 4);

  g_assert_false (varint (too_big, sizeof too_big, &v, &used));
  g_assert_false (varint (eleven, sizeof eleven, &v, &used));
  g_assert_false (varint (unterminated, sizeof unterminated, &v, &used));
  g_assert_false (varint (one, 0, &v, &used));
}

static void
test_fields (void)
{
  /* field 1 varint 150; field 2 "abc"; field 3 fixed64; field 4 fixed32. */
  static const guint8 msg[] = {
    0x08, 0x96, 0x01,
    0x12, 0x03, 'a', 'b', 'c',
    0x19, 1, 2, 3, 4, 5, 6, 7, 8,
    0x25, 9, 8, 7, 6,
  };
  PlanarWireReader r;
  PlanarWireField f;

  planar_wire_reader_init (&r, msg, msg, sizeof msg);
  g_assert_cmpint (planar_wire_next (&r, &f), ==, 1);
  g_assert_cmpuint (f.number, ==, 1);
  g_assert_cmpint (f.wire_type, ==, PLANAR_WIRE_VARINT);
  g_assert_cmpuint (f.value, ==, 150);
  g_assert_cmpint (planar_wire_next (&r, &f), ==, 1);
  g_assert_cmpuint (f.number, ==, 2);
  g_assert_cmpint (f.wire_type, ==, PLANAR_WIRE_LEN);
  g_assert_cmpmem (f.data, f.len, "abc", 3);
  g_assert_true (f.start == msg + 3);
  g_assert_cmpint (planar_wire_next (&r, &f), ==, 1);
  g_assert_cmpint (f.wire_type, ==, PLANAR_WIRE_I64);
  g_assert_cmpuint (f.value, ==, G_GUINT64_CONSTANT (0x0807060504030201));
  g_assert_cmpint (planar_wire_next (&r, &f), ==, 1);
  g_assert_cmpint (f.wire_type, ==, PLANAR_WIRE_I32);
  g_assert_cmpuint (f.value, ==, 0x06070809);
  g_assert_cmpint (planar_wire_next (&r, &f), ==, 0);
}

static void
expect_error (const guint8 *msg,
              gsize         len,
              gsize         at,
              const char   *reason)
{
  PlanarWireReader r;
  PlanarWireField f;
  int rc;

  planar_wire_reader_init (&r, msg, msg, len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    ;
  g_assert_cmpint (rc, ==, -1);
  g_assert_cmpuint ((gsize) (r.error_at - msg), ==, at);
  g_assert_cmpstr (r.error_reason, ==, reason);
}

static void
test_malformed (void)
{
  static const guint8 length_past_end[] = { 0x08, 0x01, 0x12, 0x05, 'a' };
  static const guint8 truncated_fixed[] = { 0x19, 1, 2, 3 };
  static const guint8 group[] = { 0x0b };
  static const guint8 field_zero[] = { 0x00, 0x01 };
  static const guint8 bad_varint[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
  static const guint8 huge_length[] = { 0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
  g_autoptr(GError) error = NULL;

  expect_error (length_past_end, sizeof length_past_end, 3, "length past the end of");
  expect_error (truncated_fixed, sizeof truncated_fixed, 1, "truncated");
  expect_error (group, sizeof group, 0, "unsupported wire type in");
  expect_error (field_zero, sizeof field_zero, 0, "invalid field number in");
  expect_error (bad_varint, sizeof bad_varint, 1, "malformed varint in");
  expect_error (huge_length, sizeof huge_length, 1, "length past the end of");

  planar_wire_set_error (&error, PLANAR_TRACE_ERROR_CORRUPT, "host0.xplane.pb", "XLine",
                         G_GUINT64_CONSTANT (3000000000), "truncated");
  g_assert_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT);
  g_assert_cmpstr (error->message, ==, "truncated XLine at byte 3000000000 of host0.xplane.pb");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/wire/varints", test_varints);
  g_test_add_func ("/wire/fields", test_fields);
  g_test_add_func ("/wire/malformed", test_malformed);
  return g_test_run ();
}
