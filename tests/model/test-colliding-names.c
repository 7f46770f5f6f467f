/* test-colliding-names.c: names a file chooses to collide in a weak string
 * hash do not make its load quadratic.
 *
 * GLib's g_str_hash() is djb2 (h = h * 33 + c). The two-byte blocks "Ez"
 * and "FY" hash alike (69 * 33 + 122 = 70 * 33 + 89), from any state, so
 * that the 2^k strings of k such blocks all hash alike, whatever comes
 * before or after them: a file of n such names (events, stats, lines,
 * threads, processes, categories, args) put every name in one bucket of a
 * table of names, and n of them cost n^2 comparisons. The model's tables
 * of names hash with a keyed hash (_planar_str_hash(),
 * planar-hash-private.h) instead.
 *
 * The cases count the steps the model takes (a key hashed or compared:
 * _planar_trace_steps), never the time: n colliding names must take at
 * most twice the steps of n ordinary names of the same length, and 4n of
 * them at most 4.5 times those of n (planar_test_check_linear()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hash-private.h"
#include "planar-import-private.h"
#include "planar-model.h"
#include "planar-test-scratch.h"
#include "planar-test-xspace.h"
#include "planar-trace-private.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* Bits of the names' index: the names of the larger runs (4n) and of the
 * smaller (n) are as long (2 * NAME_BITS bytes). */
#define NAME_BITS 14

/* The @i-th name: colliding (the blocks "Ez" and "FY" spelling @i's bits)
 * or ordinary ("n" and @i's digits), 2 * NAME_BITS bytes either way. */
static char *
make_name (guint    i,
           gboolean colliding)
{
  GString *s = g_string_new (NULL);

  if (!colliding)
    {
      g_string_printf (s, "n%0*u", 2 * NAME_BITS - 1, i);
      return g_string_free (s, FALSE);
    }
  for (guint b = 0; b < NAME_BITS; b++)
    g_string_append (s, (i >> b) & 1 ? "FY" : "Ez");
  return g_string_free (s, FALSE);
}

static const char *
kind_name (gboolean colliding)
{
  return colliding ? "colliding" : "ordinary";
}

/* SipHash-2-4 as its authors publish it (key 00 01 .. 0f, messages
 * 00 01 02 ..), so that the keyed hash is the algorithm it says it is;
 * and the names the cases use: one value under g_str_hash(), as many
 * values as names (a few equal at most, by chance) under the keyed hash. */
static void
test_hash (void)
{
  guint8 key[16], msg[64];
  const guint n = 1u << 12;
  g_autoptr(GHashTable) values = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint djb2 = 0;

  for (guint i = 0; i < 16; i++)
    key[i] = (guint8) i;
  for (guint i = 0; i < sizeof msg; i++)
    msg[i] = (guint8) i;
  g_assert_cmphex (_planar_siphash (key, 2, 4, msg, 0), ==, G_GUINT64_CONSTANT (0x726fdb47dd0e0e31));
  g_assert_cmphex (_planar_siphash (key, 2, 4, msg, 15), ==, G_GUINT64_CONSTANT (0xa129ca6149be45e5));

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = make_name (i, TRUE);
      g_autofree char *same = g_strdup (name);

      if (i == 0)
        djb2 = g_str_hash (name);
      g_assert_cmpuint (g_str_hash (name), ==, djb2);
      g_assert_cmpuint (_planar_str_hash (name), ==, _planar_str_hash (same));
      g_assert_true (_planar_str_equal (name, same));
      g_hash_table_add (values, GUINT_TO_POINTER (_planar_str_hash (name)));
    }
  g_test_message ("%u colliding names: 1 value of g_str_hash(), %u of the keyed hash", n,
                  g_hash_table_size (values));
  g_assert_cmpuint (g_hash_table_size (values), >=, n - 8);
  g_assert_false (_planar_str_equal ("EzFY", "FYEz"));
  /* Keys of several parts: the seed counts. */
  g_assert_cmphex (_planar_hash_bytes ("ab", 2, 1), !=, _planar_hash_bytes ("ab", 2, 2));
  g_assert_cmphex (_planar_hash_bytes ("ab", 2, 1), ==, _planar_hash_bytes ("abc", 2, 1));
}

/* ------------------------------------------------------------------------
 * An XSpace of names
 * ------------------------------------------------------------------------ */

/* A plane of @n event metadata, @n stat metadata and @n lines with the
 * names make_name() gives, one event of each metadata on each line, with
 * one stat of each stat metadata. */
static char *
write_named_space (const char *dir,
                   guint       n,
                   gboolean    colliding)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane = planar_test_space_add_plane (space, 1, "/host:CPU");

  for (guint i = 0; i < n; i++)
    {
      const char *name = planar_test_keep (make_name (i, colliding));
      XLine *line;
      XEvent *event;

      planar_test_plane_add_event_metadata (plane, i + 1, name, NULL);
      planar_test_plane_add_stat_metadata (plane, i + 1, name);
      line = planar_test_plane_add_line (plane, i + 1, name, 1000);
      event = planar_test_line_add_event (line, i + 1, 0, 1000);
      PLANAR_TEST_APPEND (event->stats, event->n_stats, planar_test_stat_uint (i + 1, i));
    }
  return planar_test_write_space (space, dir, "names.xplane.pb");
}

/* Loads the plane of @n names and returns the steps its load and its op
 * stats took; checks that every name came through. */
static guint64
count_xspace_steps (const char *dir,
                    guint       n,
                    gboolean    colliding)
{
  g_autofree char *path = write_named_space (dir, n, colliding);
  g_autoptr(PlanarTrace) trace = planar_test_load_ok (path);
  const PlanarPlane *plane = planar_trace_get_plane (trace, 0);
  guint64 steps = _planar_trace_get_steps (trace);
  g_autoptr(GHashTable) names = g_hash_table_new (g_direct_hash, g_direct_equal);

  g_assert_cmpuint (plane->n_metadata, >=, n + 1);
  g_assert_cmpuint (plane->n_lines, >=, n);
  g_assert_cmpuint (planar_trace_get_n_events (trace), >=, n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = make_name (i, colliding);

      g_assert_cmpstr (plane->metadata[i + 1].name, ==, name);
      g_assert_cmpstr (plane->lines[i].name, ==, name);
      /* Interned: one copy of each name. */
      g_assert_true (plane->metadata[i + 1].name == plane->lines[i].name);
      g_hash_table_add (names, (gpointer) plane->lines[i].name);
    }
  g_assert_cmpuint (g_hash_table_size (names), ==, n);

  /* The op stats of the plane: a row per name, and per kind and name. */
  for (guint by_kind = 0; by_kind < 2; by_kind++)
    {
      g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
      g_autoptr(GArray) rows = NULL;
      guint64 before = _planar_trace_steps;

      planar_aggregator_set_group_by_kind (agg, by_kind);
      for (guint t = 0; t < plane->n_tracks; t++)
        planar_aggregator_add_track (agg, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
      rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_NAME);
      steps += _planar_trace_steps - before;
      g_assert_cmpuint (rows->len, >=, n);
    }
  g_test_message ("XSpace of %u %s names: %" G_GUINT64_FORMAT " steps, %.1f each", n, kind_name (colliding),
                  steps, (double) steps / n);
  return steps;
}

/* The XSpace's names (event metadata, stat metadata, lines) go through
 * the trace's string table, and the op stats' rows by name. */
static void
test_xspace (PlanarTestFixture *f,
             gconstpointer      data)
{
  const guint n = 1500;
  guint64 ordinary = count_xspace_steps (f->dir, n, FALSE);
  guint64 colliding = count_xspace_steps (f->dir, n, TRUE);
  guint64 colliding4 = count_xspace_steps (f->dir, 4 * n, TRUE);

  planar_test_check_like (n, ordinary, colliding, "loading an XSpace of names");
  planar_test_check_linear (n, colliding, colliding4, "loading an XSpace of colliding names");
}

/* ------------------------------------------------------------------------
 * Chrome JSON
 * ------------------------------------------------------------------------ */

/* @n complete events, the i-th named by the i-th name, of that category,
 * on that process and thread (a pid and a tid given as strings), with an
 * arg of that name. */
static GBytes *
build_json (guint    n,
            gboolean colliding)
{
  GString *s = g_string_new ("{\"traceEvents\":[\n");

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = make_name (i, colliding);

      g_string_append_printf (s, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"%s\",\"pid\":\"%s\",\"tid\":\"%s\","
                              "\"ts\":%u,\"dur\":1,\"args\":{\"%s\":%u}},\n", name, name, name, name, i, name, i);
    }
  g_string_append (s, "{\"ph\":\"X\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}\n]}\n");
  return g_string_free_to_bytes (s);
}

/* Imports @n events of names make_name() gives; returns the steps the
 * import took, and in @size_out the size of the XSpace written. */
static guint64
count_json_steps (guint    n,
                  gboolean colliding,
                  gsize   *size_out)
{
  g_autoptr(GBytes) json = build_json (n, colliding);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  PlanarImportReport *report = NULL;
  GStatBuf st;
  guint64 steps;
  gboolean ok;
  int fd;

  fd = g_file_open_tmp ("planar-names-XXXXXX.xplane.pb", &path, &error);
  g_assert_no_error (error);
  steps = _planar_trace_steps;
  ok = _planar_import_chrome_json (g_bytes_get_data (json, NULL), g_bytes_get_size (json), "names.json", fd,
                                   &report, &error);
  steps = _planar_trace_steps - steps;
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpint (close (fd), ==, 0);

  g_assert_cmpuint (report->n_events, ==, n + 1);
  g_assert_cmpuint (report->n_complete, ==, n + 1);
  _planar_import_report_free (report);

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  *size_out = (gsize) st.st_size;
  if (n <= 1000)
    {
      /* Each process a plane of its own. */
      g_autoptr(PlanarTrace) trace = planar_test_load_ok (path);

      g_assert_cmpuint (planar_trace_get_n_events (trace), ==, n + 1);
      g_assert_cmpuint (planar_trace_get_n_planes (trace), >=, n + 1);
    }
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_test_message ("Chrome JSON of %u %s names: %" G_GUINT64_FORMAT " steps, %.1f each", n, kind_name (colliding),
                  steps, (double) steps / n);
  return steps;
}

/* The importer's tables: event names and categories, arg keys, pids,
 * threads; and the writer's tables of metadata names. */
static void
test_chrome_json (void)
{
  const guint n = 1000;
  gsize ordinary_size, colliding_size, colliding4_size;
  guint64 ordinary = count_json_steps (n, FALSE, &ordinary_size);
  guint64 colliding = count_json_steps (n, TRUE, &colliding_size);
  guint64 colliding4 = count_json_steps (4 * n, TRUE, &colliding4_size);

  /* The same XSpace but for the names' bytes. */
  g_assert_cmpuint (colliding_size, ==, ordinary_size);
  planar_test_check_like (n, ordinary, colliding, "importing Chrome JSON of names");
  planar_test_check_linear (n, colliding, colliding4, "importing Chrome JSON of colliding names");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/colliding-names/hash", test_hash);
  PLANAR_TEST_ADD ("/colliding-names/xspace", test_xspace);
  g_test_add_func ("/colliding-names/chrome-json", test_chrome_json);

  return g_test_run ();
}
