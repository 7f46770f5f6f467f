/* test-xspace-writer.c: the model's XSpace writer, read back by protobuf-c
 * and by the model's own reader.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-test-xspace.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static const guint8 some_bytes[] = { 0x00, 0xff, 0x10, 0x80 };

/* Two planes: the first with plane stats, two lines, every stat type (a
 * long string past 16 KiB, so that messages need 3-byte lengths), the
 * second reusing names (its ids start again at 1). */
static void
write_sample (PlanarXSpaceWriter *w)
{
  g_autofree char *long_text = g_strnfill (20000, 'x');
  guint64 kernel, copy, s_int, s_uint, s_double, s_str, s_bytes, s_ref, ref_value, s_device;

  planar_xspace_writer_begin_plane (w, 1, "/device:GPU:0");
  s_device = planar_xspace_writer_stat_metadata (w, "device_name");
  planar_xspace_writer_add_stat_string (w, s_device, "Test GPU", -1);
  kernel = planar_xspace_writer_event_metadata (w, "kernel");
  copy = planar_xspace_writer_event_metadata (w, "copy");
  g_assert_cmpuint (planar_xspace_writer_event_metadata (w, "kernel"), ==, kernel);
  s_int = planar_xspace_writer_stat_metadata (w, "int");
  s_uint = planar_xspace_writer_stat_metadata (w, "uint");
  s_double = planar_xspace_writer_stat_metadata (w, "double");
  s_str = planar_xspace_writer_stat_metadata (w, "str");
  s_bytes = planar_xspace_writer_stat_metadata (w, "bytes");
  s_ref = planar_xspace_writer_stat_metadata (w, "ref");
  ref_value = planar_xspace_writer_stat_metadata (w, "a shared string");
  g_assert_cmpuint (s_device, ==, 1);
  g_assert_cmpuint (ref_value, ==, 8);

  planar_xspace_writer_add_line (w, 7, "Stream #7", 1000);
  planar_xspace_writer_set_line_display_id (w, 3);
  planar_xspace_writer_add_event (w, kernel, 5000, 2000);
  planar_xspace_writer_add_stat_int64 (w, s_int, -42);
  planar_xspace_writer_add_stat_uint64 (w, s_uint, G_MAXUINT64);
  planar_xspace_writer_add_stat_double (w, s_double, 0.25);
  planar_xspace_writer_add_stat_string (w, s_str, "hello", 5);
  planar_xspace_writer_add_stat_bytes (w, s_bytes, some_bytes, sizeof some_bytes);
  planar_xspace_writer_add_stat_ref (w, s_ref, ref_value);
  planar_xspace_writer_add_event (w, copy, 9000, 0);
  planar_xspace_writer_add_stat_string (w, s_str, long_text, -1);
  planar_xspace_writer_add_line (w, 8, "Stream #8", 1000);
  /* The first at offset 0, which a oneof member still writes. */
  for (guint i = 0; i < 1000; i++)
    planar_xspace_writer_add_event (w, i % 2 == 0 ? kernel : copy, (gint64) i * 10000, 5000);

  planar_xspace_writer_begin_plane (w, 2, "/host:CPU");
  g_assert_cmpuint (planar_xspace_writer_event_metadata (w, "copy"), ==, 1);
  g_assert_cmpuint (planar_xspace_writer_stat_metadata (w, "uint"), ==, 1);
  planar_xspace_writer_add_line (w, 1, "thread", 1000);
  planar_xspace_writer_add_event (w, 1, 3000, 1000);
  planar_xspace_writer_add_stat_uint64 (w, 1, 7);

  planar_xspace_writer_add_error (w, "an error");
  planar_xspace_writer_add_warning (w, "a warning");
  planar_xspace_writer_add_hostname (w, "host0");
}

static const Tensorflow__Profiler__XStat *
find_stat (const XPlane *plane,
           Tensorflow__Profiler__XStat **stats,
           gsize n_stats,
           const char *name)
{
  for (gsize i = 0; i < n_stats; i++)
    if (g_strcmp0 (planar_test_stat_name (plane, stats[i]->metadata_id), name) == 0)
      return stats[i];
  return NULL;
}

static void
check_unpacked (GBytes *bytes)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  XSpace *space = tensorflow__profiler__xspace__unpack (NULL, len, data);
  XPlane *gpu, *host;
  XLine *line;
  XEvent *ev;
  const Tensorflow__Profiler__XStat *s;

  g_assert_nonnull (space);
  g_assert_cmpuint (space->n_planes, ==, 2);
  g_assert_cmpuint (space->n_errors, ==, 1);
  g_assert_cmpstr (space->errors[0], ==, "an error");
  g_assert_cmpstr (space->warnings[0], ==, "a warning");
  g_assert_cmpstr (space->hostnames[0], ==, "host0");

  gpu = planar_test_find_plane (space, "/device:GPU:0");
  g_assert_nonnull (gpu);
  g_assert_cmpint (gpu->id, ==, 1);
  /* Metadata for exactly the names asked for. */
  g_assert_cmpuint (gpu->n_event_metadata, ==, 2);
  g_assert_cmpuint (gpu->n_stat_metadata, ==, 8);
  g_assert_cmpuint (gpu->n_stats, ==, 1);
  g_assert_cmpstr (planar_test_stat_name (gpu, gpu->stats[0]->metadata_id), ==, "device_name");
  g_assert_cmpstr (gpu->stats[0]->str_value, ==, "Test GPU");
  g_assert_cmpuint (gpu->n_lines, ==, 2);
  line = planar_test_find_line (gpu, 7);
  g_assert_cmpstr (line->name, ==, "Stream #7");
  g_assert_cmpint (line->display_id, ==, 3);
  g_assert_cmpint (line->timestamp_ns, ==, 1000);
  g_assert_cmpuint (line->n_events, ==, 2);
  ev = line->events[0];
  g_assert_cmpstr (planar_test_event_name (gpu, ev), ==, "kernel");
  g_assert_cmpint (ev->offset_ps, ==, 5000);
  g_assert_cmpint (ev->duration_ps, ==, 2000);
  g_assert_cmpuint (ev->n_stats, ==, 6);
  s = find_stat (gpu, ev->stats, ev->n_stats, "int");
  g_assert_cmpint (s->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE);
  g_assert_cmpint (s->int64_value, ==, -42);
  s = find_stat (gpu, ev->stats, ev->n_stats, "uint");
  g_assert_cmpint (s->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE);
  g_assert_cmpuint (s->uint64_value, ==, G_MAXUINT64);
  s = find_stat (gpu, ev->stats, ev->n_stats, "double");
  g_assert_cmpint (s->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE);
  g_assert_cmpfloat (s->double_value, ==, 0.25);
  s = find_stat (gpu, ev->stats, ev->n_stats, "str");
  g_assert_cmpint (s->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE);
  g_assert_cmpstr (s->str_value, ==, "hello");
  s = find_stat (gpu, ev->stats, ev->n_stats, "bytes");
  g_assert_cmpint (s->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE);
  g_assert_cmpmem (s->bytes_value.data, s->bytes_value.len, some_bytes, sizeof some_bytes);
  s = find_stat (gpu, ev->stats, ev->n_stats, "ref");
  g_assert_cmpint (s->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE);
  g_assert_cmpstr (planar_test_stat_name (gpu, (gint64) s->ref_value), ==, "a shared string");
  ev = line->events[1];
  g_assert_cmpstr (planar_test_event_name (gpu, ev), ==, "copy");
  g_assert_cmpint (ev->duration_ps, ==, 0);
  g_assert_cmpuint (strlen (ev->stats[0]->str_value), ==, 20000);
  g_assert_cmpuint (planar_test_find_line (gpu, 8)->n_events, ==, 1000);

  host = planar_test_find_plane (space, "/host:CPU");
  g_assert_cmpuint (host->n_event_metadata, ==, 1);
  g_assert_cmpint (host->event_metadata[0]->key, ==, 1);
  g_assert_cmpstr (host->event_metadata[0]->value->name, ==, "copy");
  g_assert_cmpuint (host->n_stat_metadata, ==, 1);
  g_assert_cmpstr (host->stat_metadata[0]->value->name, ==, "uint");
  g_assert_cmpuint (host->n_stats, ==, 0);
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
}

/* The bytes are what protobuf-c packs for the same messages: the
 * canonical encoding, fields in number order. */
static void
test_round_trip_bytes (void)
{
  PlanarXSpaceWriter *w = planar_xspace_writer_new ();
  g_autoptr(GBytes) bytes = NULL;
  XSpace *space;
  gsize len;
  const guint8 *data;
  g_autofree guint8 *packed = NULL;
  gsize packed_len;

  write_sample (w);
  bytes = planar_xspace_writer_finish_bytes (w);
  check_unpacked (bytes);

  data = g_bytes_get_data (bytes, &len);
  space = tensorflow__profiler__xspace__unpack (NULL, len, data);
  packed_len = tensorflow__profiler__xspace__get_packed_size (space);
  packed = g_malloc (packed_len);
  tensorflow__profiler__xspace__pack (space, packed);
  g_assert_cmpmem (data, len, packed, packed_len);
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
}

/* Read by the model's reader: events, stats of every kind, plane stats. */
static void
test_round_trip_reader (PlanarTestFixture *f,
                        gconstpointer      data)
{
  g_autofree char *path = g_build_filename (f->dir, "host0.xplane.pb", NULL);
  g_autoptr(GError) error = NULL;
  PlanarXSpaceWriter *w = planar_xspace_writer_new_for_file (path, &error);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  const PlanarPlane *gpu;
  const PlanarTrack *track = NULL;
  gboolean seen[PLANAR_STAT_REF + 1] = { FALSE };

  g_assert_no_error (error);
  write_sample (w);
  g_assert_true (planar_xspace_writer_finish (w, &error));
  g_assert_no_error (error);

  trace = planar_test_load_ok (path);
  g_assert_cmpuint (planar_trace_get_n_events (trace), >=, 1003);
  gpu = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_nonnull (gpu);
  for (guint t = 0; t < gpu->n_tracks && track == NULL; t++)
    if (gpu->tracks[t].id == 7)
      track = &gpu->tracks[t];
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_events, ==, 2);
  /* 1000 ns of line timestamp plus 5000 ps. */
  g_assert_cmpstr (planar_plane_get_event_name (gpu, &track->events[0], FALSE), ==, "kernel");
  g_assert_cmpuint (planar_trace_get_event_stats (trace, gpu, &track->events[0], stats, &error), ==, 6);
  g_assert_no_error (error);
  for (guint i = 0; i < stats->len; i++)
    {
      const PlanarStat *s = &g_array_index (stats, PlanarStat, i);

      seen[s->kind] = TRUE;
      if (s->kind == PLANAR_STAT_INT64)
        g_assert_cmpint (s->v.i64, ==, -42);
      else if (s->kind == PLANAR_STAT_UINT64)
        g_assert_cmpuint (s->v.u64, ==, G_MAXUINT64);
      else if (s->kind == PLANAR_STAT_DOUBLE)
        g_assert_cmpfloat (s->v.f64, ==, 0.25);
      else if (s->kind == PLANAR_STAT_STRING)
        g_assert_cmpmem (s->str.data, s->str.len, "hello", 5);
      else if (s->kind == PLANAR_STAT_BYTES)
        g_assert_cmpmem (s->str.data, s->str.len, some_bytes, sizeof some_bytes);
      else if (s->kind == PLANAR_STAT_REF)
        g_assert_cmpstr (s->str.data, ==, "a shared string");
    }
  for (guint k = PLANAR_STAT_INT64; k <= PLANAR_STAT_REF; k++)
    g_assert_true (seen[k]);
}

/* Names that are not UTF-8 are made valid, and asking again with the
 * same bytes finds the same id. */
static void
test_interning (void)
{
  PlanarXSpaceWriter *w = planar_xspace_writer_new ();
  g_autoptr(GBytes) bytes = NULL;
  XSpace *space;
  gsize len;
  const guint8 *data;
  guint64 bad;

  planar_xspace_writer_begin_plane (w, 0, "p");
  bad = planar_xspace_writer_event_metadata (w, "a\xffz");
  g_assert_cmpuint (planar_xspace_writer_event_metadata (w, "b"), ==, 2);
  g_assert_cmpuint (planar_xspace_writer_event_metadata (w, "a\xffz"), ==, bad);
  planar_xspace_writer_add_line (w, 0, "line\xfe", 0);
  planar_xspace_writer_add_event (w, bad, 0, 1);
  planar_xspace_writer_add_stat_string (w, planar_xspace_writer_stat_metadata (w, "s"), "v\xff", -1);
  bytes = planar_xspace_writer_finish_bytes (w);
  data = g_bytes_get_data (bytes, &len);
  space = tensorflow__profiler__xspace__unpack (NULL, len, data);
  g_assert_nonnull (space);
  g_assert_cmpuint (space->planes[0]->n_event_metadata, ==, 2);
  g_assert_true (g_utf8_validate (space->planes[0]->event_metadata[0]->value->name, -1, NULL));
  g_assert_true (g_str_has_prefix (space->planes[0]->event_metadata[0]->value->name, "a"));
  g_assert_true (g_utf8_validate (space->planes[0]->lines[0]->name, -1, NULL));
  g_assert_true (g_utf8_validate (space->planes[0]->lines[0]->events[0]->stats[0]->str_value, -1, NULL));
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
}

static char *
read_file (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* A file writer leaves the old file in place until finish renames the new
 * one over it; abandoned, it leaves nothing behind. */
static void
test_atomic_file (PlanarTestFixture *f,
                  gconstpointer      data)
{
  g_autofree char *path = g_build_filename (f->dir, "out.xplane.pb", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  PlanarXSpaceWriter *w;

  g_assert_true (g_file_set_contents (path, "old", -1, NULL));

  w = planar_xspace_writer_new_for_file (path, &error);
  g_assert_no_error (error);
  write_sample (w);
  /* The first plane is written, into a hidden file beside the target. */
  planar_xspace_writer_begin_plane (w, 3, "more");
  g_assert_cmpuint (planar_test_count_entries (f->dir), ==, 2);
  before = read_file (path);
  g_assert_cmpstr (before, ==, "old");
  planar_xspace_writer_free (w);
  g_assert_cmpuint (planar_test_count_entries (f->dir), ==, 1);
  g_clear_pointer (&before, g_free);
  before = read_file (path);
  g_assert_cmpstr (before, ==, "old");

  w = planar_xspace_writer_new_for_file (path, &error);
  g_assert_no_error (error);
  write_sample (w);
  g_assert_true (planar_xspace_writer_finish (w, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (planar_test_count_entries (f->dir), ==, 1);
  {
    XSpace *space = planar_test_read_space (path);

    g_assert_cmpuint (space->n_planes, ==, 2);
    tensorflow__profiler__xspace__free_unpacked (space, NULL);
  }
}

/* A folder that is not there, a descriptor that cannot be written, a full
 * disk: a clear error from finish, nothing left behind. */
static void
test_errors (PlanarTestFixture *f,
             gconstpointer      data)
{
  g_autofree char *missing = g_build_filename (f->dir, "no", "such", "dir", "x.xplane.pb", NULL);
  g_autoptr(GError) error = NULL;
  PlanarXSpaceWriter *w;
  int fd;

  w = planar_xspace_writer_new_for_file (missing, &error);
  g_assert_null (w);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "x.xplane.pb"));
  g_clear_error (&error);

  fd = g_open ("/dev/null", O_RDONLY, 0);
  g_assert_cmpint (fd, >=, 0);
  w = planar_xspace_writer_new_for_fd (fd);
  write_sample (w);
  g_assert_false (planar_xspace_writer_finish (w, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == G_IO_ERROR);
  g_clear_error (&error);
  close (fd);

  fd = g_open ("/dev/full", O_WRONLY, 0);
  if (fd >= 0)
    {
      w = planar_xspace_writer_new_for_fd (fd);
      write_sample (w);
      g_assert_false (planar_xspace_writer_finish (w, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
      g_clear_error (&error);
      close (fd);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/xspace-writer/round-trip-bytes", test_round_trip_bytes);
  PLANAR_TEST_ADD ("/xspace-writer/round-trip-reader", test_round_trip_reader);
  g_test_add_func ("/xspace-writer/interning", test_interning);
  PLANAR_TEST_ADD ("/xspace-writer/atomic-file", test_atomic_file);
  PLANAR_TEST_ADD ("/xspace-writer/errors", test_errors);
  return g_test_run ();
}
