/* test-json-writer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-json-writer.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static char *
write_document (gboolean pretty)
{
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(PlanarJsonWriter) w = planar_json_writer_new (out, pretty);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) big = g_string_new (NULL);

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (big, 'a' + i % 26);

  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "text");
  planar_json_writer_string (w, "quote \" backslash \\ newline \n tab \t bell \a é");
  planar_json_writer_key (w, "bad utf8");
  planar_json_writer_string_len (w, "a\xff" "b", 3);
  planar_json_writer_key (w, "embedded nul");
  planar_json_writer_string_len (w, "x\0y", 3);
  planar_json_writer_key (w, "numbers");
  planar_json_writer_begin_array (w);
  planar_json_writer_int (w, G_MININT64);
  planar_json_writer_uint (w, G_MAXUINT64);
  planar_json_writer_double (w, 0.25);
  planar_json_writer_double (w, NAN);
  planar_json_writer_boolean (w, TRUE);
  planar_json_writer_null (w);
  planar_json_writer_end_array (w);
  planar_json_writer_key (w, "empty");
  planar_json_writer_begin_object (w);
  planar_json_writer_end_object (w);
  planar_json_writer_key (w, "empty array");
  planar_json_writer_begin_array (w);
  planar_json_writer_end_array (w);
  planar_json_writer_key (w, "big");
  planar_json_writer_string (w, big->str);
  planar_json_writer_end_object (w);
  g_assert_true (planar_json_writer_finish (w, &error));
  g_assert_no_error (error);
  g_output_stream_close (out, NULL, NULL);

  return g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                    g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));
}

static void
check_document (gboolean pretty)
{
  g_autofree char *text = write_document (pretty);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *numbers;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "text"), ==,
                   "quote \" backslash \\ newline \n tab \t bell \a é");
  g_assert_cmpstr (json_object_get_string_member (root, "bad utf8"), ==, "a\xef\xbf\xbd" "b");
  numbers = json_object_get_array_member (root, "numbers");
  g_assert_cmpuint (json_array_get_length (numbers), ==, 6);
  g_assert_cmpint (json_array_get_int_element (numbers, 0), ==, G_MININT64);
  g_assert_cmpfloat (json_array_get_double_element (numbers, 2), ==, 0.25);
  g_assert_true (json_node_is_null (json_array_get_element (numbers, 3)));
  g_assert_true (json_array_get_boolean_element (numbers, 4));
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (root, "empty")), ==, 0);
  g_assert_cmpuint (strlen (json_object_get_string_member (root, "big")), ==, 100000);
  g_assert_true (pretty == (strchr (text, '\n') != NULL && strstr (text, "\n  \"") != NULL));
}

static void
test_compact (void)
{
  check_document (FALSE);
}

static void
test_pretty (void)
{
  check_document (TRUE);
}

static void
test_write_error (void)
{
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(PlanarJsonWriter) w = NULL;
  g_autoptr(GError) error = NULL;

  /* A closed stream refuses writes: the error surfaces at finish. */
  g_output_stream_close (out, NULL, NULL);
  w = planar_json_writer_new (out, FALSE);
  planar_json_writer_begin_array (w);
  planar_json_writer_int (w, 1);
  planar_json_writer_end_array (w);
  g_assert_false (planar_json_writer_finish (w, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-writer/compact", test_compact);
  g_test_add_func ("/json-writer/pretty", test_pretty);
  g_test_add_func ("/json-writer/write-error", test_write_error);
  return g_test_run ();
}
