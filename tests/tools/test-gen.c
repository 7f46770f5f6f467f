/* test-gen.c: checks planar-gen's profiles with an independent decoder.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * planar-gen has its own encoder; these tests decode its output with
 * protobuf-c, so that neither the generator nor Planar's loader vouches for
 * itself.
 */
#include <glib.h>
#include <glib/gstdio.h>

#include <math.h>

#include <stdarg.h>
#include <string.h>

#include "planar-model.h"
#include "planar-test-xspace.h"
#include "xplane.pb-c.h"

typedef Tensorflow__Profiler__XSpace XSpace;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XLine XLine;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XStat XStat;

#define EPOCH_2026_NS G_GINT64_CONSTANT (1767225600000000000)

static void
xspace_free (XSpace *space)
{
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (XSpace, xspace_free)

/* --- Running planar-gen --------------------------------------------------- */

static const char *
gen_path (void)
{
  static char *path;

  if (path == NULL)
    {
      const char *env = g_getenv ("PLANAR_GEN");

      /* meson sets PLANAR_GEN; running the test binary by hand from the
       * build tree finds the tool next door. */
      if (env != NULL && env[0] != '\0')
        path = g_strdup (env);
      else
        path = g_test_build_filename (G_TEST_BUILT, "..", "tools", "planar-gen", NULL);
    }
  return path;
}

/* Runs planar-gen with the NULL-terminated arguments and returns its exit
 * status; its stdout and stderr go to @out and @err when not NULL. */
static int
run_gen (char       **out,
         char       **err,
         const char  *first_arg,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out_text = NULL;
  g_autofree char *err_text = NULL;
  const char *arg;
  int wait_status = 0;
  int exit_status;
  va_list ap;

  g_ptr_array_add (argv, (char *) gen_path ());
  va_start (ap, first_arg);
  for (arg = first_arg; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &out_text, &err_text, &wait_status, &error);
  g_assert_no_error (error);

  if (g_spawn_check_wait_status (wait_status, &error))
    exit_status = 0;
  else
    {
      /* A crash is never an acceptable answer, whatever the arguments. */
      g_assert_true (g_error_matches (error, G_SPAWN_EXIT_ERROR, error->code));
      exit_status = error->code;
    }

  if (exit_status != 0 && err == NULL)
    g_test_message ("planar-gen exited with %d: %s", exit_status, err_text);
  if (out != NULL)
    *out = g_steal_pointer (&out_text);
  if (err != NULL)
    *err = g_steal_pointer (&err_text);
  return exit_status;
}

static guint64
file_size (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return (guint64) st.st_size;
}

/* Writes a single-file profile and checks the line planar-gen prints. */
static void
generate (const char *path,
          guint64     n_events,
          const char *extra_arg,
          const char *extra_arg2)
{
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, n_events);
  g_autofree char *out = NULL;
  g_autofree char *expected = NULL;

  g_assert_cmpint (run_gen (&out, NULL, "--events", count, "-o", path,
                            extra_arg, extra_arg2, NULL), ==, 0);
  expected = g_strdup_printf ("wrote %" G_GUINT64_FORMAT " events (%" G_GUINT64_FORMAT " bytes) to %s\n",
                              n_events, file_size (path), path);
  g_assert_cmpstr (out, ==, expected);
}

static guint
count_dir_entries (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  g_dir_close (dir);
  return n;
}

/* --- Looking things up in a decoded XSpace -------------------------------- */

static const XPlane *
find_plane (const XSpace *space,
            const char   *name)
{
  for (size_t i = 0; i < space->n_planes; i++)
    if (g_strcmp0 (space->planes[i]->name, name) == 0)
      return space->planes[i];
  return NULL;
}

static const XLine *
find_line (const XPlane *plane,
           const char   *name)
{
  for (size_t i = 0; i < plane->n_lines; i++)
    if (g_strcmp0 (plane->lines[i]->name, name) == 0)
      return plane->lines[i];
  return NULL;
}

/* Names of a plane's metadata, by id. */
typedef struct
{
  GHashTable *stat_names;
  GHashTable *event_names;
  GHashTable *event_metadata;
} PlaneIndex;

static void
plane_index_init (PlaneIndex   *index,
                  const XPlane *plane)
{
  index->stat_names = g_hash_table_new (g_int64_hash, g_int64_equal);
  index->event_names = g_hash_table_new (g_int64_hash, g_int64_equal);
  index->event_metadata = g_hash_table_new (g_int64_hash, g_int64_equal);

  for (size_t i = 0; i < plane->n_stat_metadata; i++)
    {
      const Tensorflow__Profiler__XPlane__StatMetadataEntry *entry = plane->stat_metadata[i];

      g_assert_nonnull (entry->value);
      g_assert_cmpint (entry->key, ==, entry->value->id);
      g_hash_table_insert (index->stat_names, &entry->value->id, entry->value->name);
    }
  for (size_t i = 0; i < plane->n_event_metadata; i++)
    {
      const Tensorflow__Profiler__XPlane__EventMetadataEntry *entry = plane->event_metadata[i];

      g_assert_nonnull (entry->value);
      g_assert_cmpint (entry->key, ==, entry->value->id);
      g_hash_table_insert (index->event_names, &entry->value->id, entry->value->name);
      g_hash_table_insert (index->event_metadata, &entry->value->id, entry->value);
    }
}

static void
plane_index_clear (PlaneIndex *index)
{
  g_clear_pointer (&index->stat_names, g_hash_table_unref);
  g_clear_pointer (&index->event_names, g_hash_table_unref);
  g_clear_pointer (&index->event_metadata, g_hash_table_unref);
}

static const char *
stat_name (const PlaneIndex *index,
           gint64            id)
{
  return g_hash_table_lookup (index->stat_names, &id);
}

static const char *
event_name (const PlaneIndex *index,
            const XEvent     *event)
{
  const char *name = g_hash_table_lookup (index->event_names, &event->metadata_id);

  g_assert_nonnull (name);
  return name;
}

static const XStat *
find_stat (XStat * const    *stats,
           size_t            n_stats,
           const PlaneIndex *index,
           const char       *name)
{
  for (size_t i = 0; i < n_stats; i++)
    if (g_strcmp0 (stat_name (index, stats[i]->metadata_id), name) == 0)
      return stats[i];
  return NULL;
}

static const XStat *
event_stat (const XEvent     *event,
            const PlaneIndex *index,
            const char       *name)
{
  return find_stat (event->stats, event->n_stats, index, name);
}

static const char *
ref_text (const XStat      *stat,
          const PlaneIndex *index)
{
  g_assert_nonnull (stat);
  g_assert_cmpint (stat->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE);
  return stat_name (index, (gint64) stat->ref_value);
}

static guint64
plane_uint_stat (const XPlane *plane,
                 const char   *name)
{
  PlaneIndex index;
  const XStat *stat;
  guint64 value;

  plane_index_init (&index, plane);
  stat = find_stat (plane->stats, plane->n_stats, &index, name);
  g_assert_nonnull (stat);
  g_assert_cmpint (stat->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE);
  value = stat->uint64_value;
  plane_index_clear (&index);
  return value;
}

/* Start of an event in ps since @base_ns. Epoch line timestamps times 1000
 * overflow an int64, so times are always taken relative to a base. */
static gint64
event_start_ps (const XLine  *line,
                const XEvent *event,
                gint64        base_ns)
{
  return (line->timestamp_ns - base_ns) * 1000 + event->offset_ps;
}

/* --- Checks on a whole profile -------------------------------------------- */

static guint64
count_events (const XSpace *space)
{
  guint64 n = 0;

  for (size_t p = 0; p < space->n_planes; p++)
    for (size_t l = 0; l < space->planes[p]->n_lines; l++)
      n += space->planes[p]->lines[l]->n_events;
  return n;
}

/* Events sorted by start, longer first on ties; every event has an offset. */
static void
check_sorted (const XLine *line)
{
  for (size_t e = 0; e < line->n_events; e++)
    {
      const XEvent *cur = line->events[e];

      g_assert_cmpint (cur->data_case, ==, TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS);
      g_assert_cmpint (cur->offset_ps, >=, 0);
      g_assert_cmpint (cur->duration_ps, >=, 0);
      if (e > 0)
        {
          const XEvent *prev = line->events[e - 1];

          g_assert_cmpint (prev->offset_ps, <=, cur->offset_ps);
          if (prev->offset_ps == cur->offset_ps)
            g_assert_cmpint (prev->duration_ps, >=, cur->duration_ps);
        }
    }
}

/* Rebuilds the nesting with a stack, checking that children lie strictly
 * inside their parents. Returns the deepest level (1 = nothing nested). */
static guint
check_nesting (const XLine *line)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (const XEvent *));
  guint max_depth = 0;

  for (size_t e = 0; e < line->n_events; e++)
    {
      const XEvent *event = line->events[e];
      gint64 start = event->offset_ps;
      gint64 end = start + event->duration_ps;

      while (stack->len > 0)
        {
          const XEvent *top = g_array_index (stack, const XEvent *, stack->len - 1);

          if (top->offset_ps + top->duration_ps > start)
            break;
          g_array_set_size (stack, stack->len - 1);
        }
      if (stack->len > 0)
        {
          const XEvent *parent = g_array_index (stack, const XEvent *, stack->len - 1);

          /* Overlapping without being contained is a partial overlap. */
          g_assert_cmpint (start, >, parent->offset_ps);
          g_assert_cmpint (end, <, parent->offset_ps + parent->duration_ps);
        }
      g_array_append_val (stack, event);
      max_depth = MAX (max_depth, stack->len);
    }
  return max_depth;
}

typedef struct
{
  guint64 correlation_id;   /* the key */
  guint   count;
  gint64  start_ps;
  guint64 device_id;
} Launch;

/* Host launches by correlation id; checks the host plane on the way and
 * returns the deepest nesting on any thread. */
static guint
collect_launches (const XPlane *plane,
                  gint64        base_ns,
                  GHashTable   *launches)
{
  PlaneIndex index;
  guint max_depth = 0;

  plane_index_init (&index, plane);
  g_assert_cmpuint (plane->n_lines, >=, 4);
  g_assert_nonnull (find_line (plane, "python3"));

  for (size_t l = 0; l < plane->n_lines; l++)
    {
      const XLine *line = plane->lines[l];

      g_assert_cmpint (line->id, >, 0);
      max_depth = MAX (max_depth, check_nesting (line));

      for (size_t e = 0; e < line->n_events; e++)
        {
          const XEvent *event = line->events[e];
          const XStat *correlation = event_stat (event, &index, "correlation_id");
          const XStat *device = event_stat (event, &index, "device_id");
          Launch *launch;

          /* XProf's definition of a launch (gpu_event_stats.cc). */
          if (correlation == NULL || device == NULL)
            continue;
          g_assert_cmpint (correlation->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE);
          g_assert_cmpint (device->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE);

          launch = g_hash_table_lookup (launches, &correlation->uint64_value);
          if (launch == NULL)
            {
              launch = g_new0 (Launch, 1);
              launch->correlation_id = correlation->uint64_value;
              g_hash_table_insert (launches, &launch->correlation_id, launch);
            }
          launch->count++;
          launch->start_ps = event_start_ps (line, event, base_ns);
          launch->device_id = device->uint64_value;
        }
    }

  plane_index_clear (&index);
  return max_depth;
}

static void
assert_int_stat (const XStat *stat,
                 gint64       expected)
{
  g_assert_nonnull (stat);
  g_assert_cmpint (stat->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE);
  g_assert_cmpint (stat->int64_value, ==, expected);
}

/* Returns the number of kernels and memcpys on the plane. */
static guint
check_gpu_plane (const XPlane *plane,
                 guint         ordinal,
                 gint64        base_ns,
                 GHashTable   *launches)
{
  PlaneIndex index;
  const XLine *counters;
  const XStat *stat;
  guint n_ops = 0;

  plane_index_init (&index, plane);
  g_assert_cmpint (plane->id, ==, ordinal);

  stat = find_stat (plane->stats, plane->n_stats, &index, "device_vendor");
  g_assert_nonnull (stat);
  g_assert_cmpint (stat->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE);
  g_assert_cmpstr (stat->str_value, ==, "Nvidia");
  assert_int_stat (find_stat (plane->stats, plane->n_stats, &index, "core_count"), 132);
  assert_int_stat (find_stat (plane->stats, plane->n_stats, &index, "compute_cap_major"), 9);
  assert_int_stat (find_stat (plane->stats, plane->n_stats, &index, "compute_cap_minor"), 0);

  for (size_t l = 0; l < plane->n_lines; l++)
    {
      const XLine *line = plane->lines[l];
      g_autofree char *prefix = NULL;
      gint64 previous_end = G_MININT64;

      if (!g_str_has_prefix (line->name, "Stream #"))
        continue;
      prefix = g_strdup_printf ("Stream #%" G_GINT64_FORMAT "(", line->id);
      g_assert_true (g_str_has_prefix (line->name, prefix));

      for (size_t e = 0; e < line->n_events; e++)
        {
          const XEvent *event = line->events[e];
          gint64 start = event_start_ps (line, event, base_ns);
          const XStat *correlation = event_stat (event, &index, "correlation_id");
          const XStat *kernel = event_stat (event, &index, "kernel_details");
          const XStat *memcpy_details = event_stat (event, &index, "memcpy_details");
          const Launch *launch;

          /* One stream runs one thing at a time. */
          g_assert_cmpint (start, >=, previous_end);
          previous_end = start + event->duration_ps;

          g_assert_true ((kernel != NULL) != (memcpy_details != NULL));
          if (kernel != NULL)
            {
              g_assert_true (g_str_has_prefix (ref_text (kernel, &index), "regs:"));
              g_assert_nonnull (ref_text (event_stat (event, &index, "hlo_op"), &index));
              g_assert_cmpstr (ref_text (event_stat (event, &index, "hlo_module"), &index), ==, "jit_train_step");
              stat = event_stat (event, &index, "context_id");
              g_assert_nonnull (stat);
              g_assert_cmpint (stat->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE);
              g_assert_cmpstr (stat->str_value, ==, "$$1");
              stat = event_stat (event, &index, "group_id");
              g_assert_nonnull (stat);
              g_assert_cmpint (stat->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE);
            }
          else
            {
              g_assert_true (g_str_has_prefix (event_name (&index, event), "Memcpy"));
              g_assert_true (g_str_has_prefix (ref_text (memcpy_details, &index), "kind_src:"));
            }

          g_assert_nonnull (correlation);
          g_assert_cmpint (correlation->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE);
          launch = g_hash_table_lookup (launches, &correlation->uint64_value);
          g_assert_nonnull (launch);
          g_assert_cmpuint (launch->count, ==, 1);
          g_assert_cmpuint (launch->device_id, ==, ordinal);
          g_assert_cmpint (launch->start_ps, <, start);
          n_ops++;
        }
    }

  counters = find_line (plane, "_counters_");
  g_assert_nonnull (counters);
  g_assert_cmpint (counters->id, ==, G_MAXINT64);
  for (size_t e = 0; e < counters->n_events; e++)
    {
      const XEvent *event = counters->events[e];

      g_assert_cmpint (event->duration_ps, ==, 0);
      g_assert_cmpstr (event_name (&index, event), ==, "power_mw");
      stat = event_stat (event, &index, "power_mw");
      g_assert_nonnull (stat);
      g_assert_cmpint (stat->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE);
      g_assert_cmpfloat (stat->double_value, >, 0.0);
    }

  plane_index_clear (&index);
  return n_ops;
}

/* Returns the nesting depth of the XLA Ops line. */
static guint
check_tpu_plane (const XPlane *plane)
{
  PlaneIndex index;
  const XLine *ops;
  guint depth;

  plane_index_init (&index, plane);
  g_assert_nonnull (find_line (plane, "Steps"));
  g_assert_nonnull (find_line (plane, "XLA Modules"));
  ops = find_line (plane, "XLA Ops");
  g_assert_nonnull (ops);

  depth = check_nesting (ops);
  for (size_t e = 0; e < ops->n_events; e++)
    {
      const XEvent *event = ops->events[e];
      const Tensorflow__Profiler__XEventMetadata *meta =
        g_hash_table_lookup (index.event_metadata, &event->metadata_id);

      /* Op costs are on the metadata, not repeated on every event. */
      g_assert_cmpuint (event->n_stats, ==, 0);
      g_assert_nonnull (meta);
      g_assert_nonnull (find_stat (meta->stats, meta->n_stats, &index, "flops"));
      g_assert_nonnull (find_stat (meta->stats, meta->n_stats, &index, "hlo_category"));
    }

  plane_index_clear (&index);
  return depth;
}

typedef enum
{
  CHECK_DEFAULT = 0,
  CHECK_NO_TASK_ENV = 1 << 0,
  CHECK_EPOCH = 1 << 1,
} CheckFlags;

static void
check_profile (const char *path,
               guint64     n_events,
               const char *hostname,
               CheckFlags  flags)
{
  g_autoptr(XSpace) space = planar_test_read_space (path);
  g_autoptr(GHashTable) launches = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  const XPlane *task_env = find_plane (space, "Task Environment");
  const XPlane *host = find_plane (space, "/host:CPU");
  const XPlane *tpu = find_plane (space, "/device:TPU:0");
  gint64 base_ns = 0;
  gint64 span_ps = G_MAXINT64;
  guint host_depth;
  guint tpu_depth;
  guint n_device_ops = 0;

  g_assert_cmpuint (count_events (space), ==, n_events);
  g_assert_cmpuint (space->n_hostnames, ==, 1);
  g_assert_cmpstr (space->hostnames[0], ==, hostname);

  g_assert_nonnull (host);
  g_assert_nonnull (tpu);
  g_assert_nonnull (find_plane (space, "/device:GPU:0"));
  g_assert_nonnull (find_plane (space, "/device:GPU:1"));

  if (flags & CHECK_NO_TASK_ENV)
    {
      g_assert_null (task_env);
    }
  else
    {
      guint64 start, stop;

      g_assert_nonnull (task_env);
      start = plane_uint_stat (task_env, "profile_start_time");
      stop = plane_uint_stat (task_env, "profile_stop_time");
      g_assert_cmpuint (start, >=, EPOCH_2026_NS);
      g_assert_cmpuint (stop, >, start);
      span_ps = (gint64) (stop - start) * 1000;
      if (flags & CHECK_EPOCH)
        base_ns = (gint64) start;
    }

  for (size_t p = 0; p < space->n_planes; p++)
    for (size_t l = 0; l < space->planes[p]->n_lines; l++)
      {
        const XLine *line = space->planes[p]->lines[l];

        check_sorted (line);
        /* Saved files hold times since the profile start, unless asked for
         * epoch timestamps; either way every event lies in the session. */
        g_assert_cmpint (line->timestamp_ns, >=, base_ns);
        if (line->n_events > 0)
          {
            const XEvent *last = line->events[line->n_events - 1];

            g_assert_cmpint (event_start_ps (line, last, base_ns) + last->duration_ps, <=, span_ps);
          }
      }

  /* A line may start at its first event; offset_ps = 0 is then on the wire,
   * and protobuf-c sees the oneof set. */
  if (n_events > 0)
    {
      guint n_at_zero = 0;

      for (size_t l = 0; l < host->n_lines; l++)
        for (size_t e = 0; e < host->lines[l]->n_events; e++)
          n_at_zero += host->lines[l]->events[e]->offset_ps == 0;
      g_assert_cmpuint (n_at_zero, >, 0);
    }

  host_depth = collect_launches (host, base_ns, launches);
  for (guint g = 0; g < 2; g++)
    {
      g_autofree char *name = g_strdup_printf ("/device:GPU:%u", g);

      n_device_ops += check_gpu_plane (find_plane (space, name), g, base_ns, launches);
    }
  /* Every launch has its kernel or memcpy, and the other way round. */
  g_assert_cmpuint (n_device_ops, ==, g_hash_table_size (launches));
  tpu_depth = check_tpu_plane (tpu);

  /* From a thousand events up every part of the workload is present. */
  if (n_events >= 1000)
    {
      g_assert_cmpuint (host_depth, >=, 5);
      g_assert_cmpuint (tpu_depth, >=, 2);
      g_assert_cmpuint (n_device_ops, >, 0);
    }
}

/* --- Tests ---------------------------------------------------------------- */

static void
test_gen_counts (PlanarTestFixture *f,
                 gconstpointer      data)
{
  static const guint64 sizes[] = { 0, 1, 136, 137, 1000, 54321 };
  const char *dir = f->dir;

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree char *name = g_strdup_printf ("n%" G_GUINT64_FORMAT ".xplane.pb", sizes[i]);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      generate (path, sizes[i], NULL, NULL);
      check_profile (path, sizes[i], "host0", CHECK_DEFAULT);
    }

  /* Nothing but the outputs: the temporary files were renamed away. */
  g_assert_cmpuint (count_dir_entries (dir), ==, G_N_ELEMENTS (sizes));
}

/* The encoding is canonical: protobuf-c, which writes fields in number order
 * and a oneof member even when zero, re-encodes the file byte for byte. */
static void
test_gen_canonical (PlanarTestFixture *f,
                    gconstpointer      user_data)
{
  const char *dir = f->dir;
  g_autofree char *path = g_build_filename (dir, "p.xplane.pb", NULL);
  g_autofree char *data = NULL;
  g_autofree guint8 *packed = NULL;
  g_autoptr(XSpace) space = NULL;
  gsize len = 0;
  gsize packed_len;

  generate (path, 5000, NULL, NULL);
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  space = planar_test_read_space (path);

  packed_len = tensorflow__profiler__xspace__get_packed_size (space);
  g_assert_cmpuint (packed_len, ==, len);
  packed = g_malloc (packed_len);
  tensorflow__profiler__xspace__pack (space, packed);
  g_assert_cmpmem (packed, packed_len, data, len);
}

static void
test_gen_no_task_env (PlanarTestFixture *f,
                      gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *path = g_build_filename (dir, "p.xplane.pb", NULL);

  generate (path, 3000, "--no-task-env", NULL);
  check_profile (path, 3000, "host0", CHECK_NO_TASK_ENV);
}

static void
test_gen_epoch_timestamps (PlanarTestFixture *f,
                           gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *relative = g_build_filename (dir, "relative.xplane.pb", NULL);
  g_autofree char *epoch = g_build_filename (dir, "epoch.xplane.pb", NULL);
  g_autoptr(XSpace) space = NULL;
  guint64 start;

  generate (epoch, 3000, "--epoch-timestamps", NULL);
  check_profile (epoch, 3000, "host0", CHECK_EPOCH);

  space = planar_test_read_space (epoch);
  start = plane_uint_stat (find_plane (space, "Task Environment"), "profile_start_time");
  for (size_t p = 0; p < space->n_planes; p++)
    for (size_t l = 0; l < space->planes[p]->n_lines; l++)
      g_assert_cmpint (space->planes[p]->lines[l]->timestamp_ns, >=, (gint64) start);
  g_clear_pointer (&space, xspace_free);

  /* Without the option the same profile has small, relative timestamps. */
  generate (relative, 3000, NULL, NULL);
  space = planar_test_read_space (relative);
  for (size_t p = 0; p < space->n_planes; p++)
    for (size_t l = 0; l < space->planes[p]->n_lines; l++)
      g_assert_cmpint (space->planes[p]->lines[l]->timestamp_ns, <, (gint64) start / 2);
}

/* With --host-offload, the TPU's copies name their host memory (S(5)) in
 * their HLO text and display one instruction's names, so that a viewer
 * can pair them as XProf does: as many starts as dones, one per step. */
static void
test_gen_host_offload (PlanarTestFixture *f,
                       gconstpointer      data)
{
  g_autofree char *path = g_build_filename (f->dir, "offload.xplane.pb", NULL);
  g_autoptr(XSpace) space = NULL;
  const XPlane *tpu;
  const XLine *ops, *modules;
  guint n_start = 0, n_done = 0;

  generate (path, 3000, "--host-offload", NULL);
  check_profile (path, 3000, "host0", 0);
  space = planar_test_read_space (path);
  tpu = find_plane (space, "/device:TPU:0");
  g_assert_nonnull (tpu);
  ops = find_line (tpu, "XLA Ops");
  modules = find_line (tpu, "XLA Modules");
  g_assert_nonnull (ops);
  g_assert_nonnull (modules);
  for (size_t i = 0; i < ops->n_events; i++)
    for (size_t m = 0; m < tpu->n_event_metadata; m++)
      {
        const Tensorflow__Profiler__XEventMetadata *md = tpu->event_metadata[m]->value;

        if (md->id != ops->events[i]->metadata_id || md->display_name == NULL || md->display_name[0] == '\0')
          continue;
        g_assert_nonnull (strstr (md->name, "{1,0:S(5)}"));
        g_assert_true (g_str_has_prefix (md->name, "%"));
        if (strcmp (md->display_name, "copy-start.13") == 0)
          n_start++;
        else if (strcmp (md->display_name, "copy-done.13") == 0)
          n_done++;
        else
          g_assert_not_reached ();
      }
  g_assert_cmpuint (n_start, >, 0);
  g_assert_cmpuint (n_start, ==, n_done);
  g_assert_cmpuint (n_start, ==, modules->n_events);
}

static gboolean
files_equal (const char *a,
             const char *b)
{
  g_autofree char *data_a = NULL;
  g_autofree char *data_b = NULL;
  gsize len_a = 0, len_b = 0;

  g_assert_true (g_file_get_contents (a, &data_a, &len_a, NULL));
  g_assert_true (g_file_get_contents (b, &data_b, &len_b, NULL));
  return len_a == len_b && memcmp (data_a, data_b, len_a) == 0;
}

static void
test_gen_deterministic (PlanarTestFixture *f,
                        gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *a = g_build_filename (dir, "a.xplane.pb", NULL);
  g_autofree char *b = g_build_filename (dir, "b.xplane.pb", NULL);
  g_autofree char *c = g_build_filename (dir, "c.xplane.pb", NULL);

  generate (a, 20000, "--seed", "7");
  generate (b, 20000, "--seed", "7");
  generate (c, 20000, "--seed", "8");

  g_assert_true (files_equal (a, b));
  g_assert_false (files_equal (a, c));
  check_profile (c, 20000, "host0", CHECK_DEFAULT);
}

static void
test_gen_refuse_overwrite (PlanarTestFixture *f,
                           gconstpointer      user_data)
{
  const char *dir = f->dir;
  g_autofree char *path = g_build_filename (dir, "p.xplane.pb", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy.xplane.pb", NULL);
  g_autofree char *err = NULL;
  g_autofree char *out = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;

  generate (path, 1000, NULL, NULL);
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_true (g_file_set_contents (copy, data, len, NULL));

  g_assert_cmpint (run_gen (&out, &err, "--events", "2000", "-o", path, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "exists"));
  g_assert_cmpstr (out, ==, "");
  g_assert_true (files_equal (path, copy));

  generate (path, 2000, "--force", NULL);
  check_profile (path, 2000, "host0", CHECK_DEFAULT);
  g_assert_cmpuint (count_dir_entries (dir), ==, 2);
}

static void
test_gen_bad_arguments (PlanarTestFixture *f,
                        gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *path = g_build_filename (dir, "p.xplane.pb", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", "p.xplane.pb", NULL);

  g_assert_cmpint (run_gen (NULL, NULL, "-o", path, NULL), ==, 2);
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "1000", NULL), ==, 2);
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "many", "-o", path, NULL), ==, 2);
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "-5", "-o", path, NULL), ==, 2);
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "10", "--hosts", "0", "-o", path, NULL), ==, 2);
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "10", "--seed", "x", "-o", path, NULL), ==, 2);
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "10", "--bogus", "-o", path, NULL), ==, 2);
  g_assert_cmpint (run_gen (NULL, NULL, "--demo", dir, "--events", "10", NULL), ==, 2);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* A folder that does not exist is an I/O failure, not a usage error. */
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "10", "-o", missing, NULL), ==, 1);
  g_assert_cmpuint (count_dir_entries (dir), ==, 0);

  /* Benchmarks spell sizes in scientific notation. */
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "2e3", "-o", path, NULL), ==, 0);
  check_profile (path, 2000, "host0", CHECK_DEFAULT);
}

static void
test_gen_hosts (PlanarTestFixture *f,
                gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *session = g_build_filename (dir, "session", NULL);
  g_autofree char *host1 = NULL;
  g_autofree char *out = NULL;
  g_autofree char *expected = NULL;
  guint64 previous_start = 0;
  guint64 total_bytes = 0;

  g_assert_cmpint (run_gen (&out, NULL, "--events", "4000", "--hosts", "3", "-o", session, NULL), ==, 0);
  g_assert_cmpuint (count_dir_entries (session), ==, 3);
  /* The session folder appeared whole, under its own name only. */
  g_assert_cmpuint (count_dir_entries (dir), ==, 1);

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("host%u.xplane.pb", i);
      g_autofree char *hostname = g_strdup_printf ("host%u", i);
      g_autofree char *path = g_build_filename (session, name, NULL);
      g_autoptr(XSpace) space = NULL;
      guint64 start;

      check_profile (path, 4000, hostname, CHECK_DEFAULT);
      total_bytes += file_size (path);

      space = planar_test_read_space (path);
      start = plane_uint_stat (find_plane (space, "Task Environment"), "profile_start_time");
      /* The hosts started tracing a few milliseconds apart. */
      if (i > 0)
        {
          g_assert_cmpuint (start, >, previous_start + 1000000);
          g_assert_cmpuint (start, <, previous_start + 20000000);
        }
      previous_start = start;
    }

  expected = g_strdup_printf ("wrote 12000 events (%" G_GUINT64_FORMAT " bytes) to %s\n",
                              total_bytes, session);
  g_assert_cmpstr (out, ==, expected);

  /* An existing session is kept unless --force. */
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "10", "--hosts", "2", "-o", session, NULL), ==, 2);
  g_assert_cmpuint (count_dir_entries (session), ==, 3);
  g_assert_cmpuint (count_dir_entries (dir), ==, 1);
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "10", "--hosts", "2", "--force", "-o", session, NULL), ==, 0);
  host1 = g_build_filename (session, "host1.xplane.pb", NULL);
  check_profile (host1, 10, "host1", CHECK_DEFAULT);
}

static void
test_gen_demo (PlanarTestFixture *f,
               gconstpointer      user_data)
{
  const char *dir = f->dir;
  g_autofree char *session = g_build_filename (dir, "plugins", "profile", "2026_01_01_00_00_00", NULL);
  g_autofree char *host0 = g_build_filename (session, "host0.xplane.pb", NULL);
  g_autofree char *host1 = g_build_filename (session, "host1.xplane.pb", NULL);
  g_autofree char *marker = g_build_filename (session, "marker", NULL);
  g_autofree char *copy = g_build_filename (dir, "host0.copy", NULL);
  g_autofree char *data = NULL;
  gsize len = 0;
  GStatBuf before, after;

  g_assert_cmpint (run_gen (NULL, NULL, "--demo", dir, NULL), ==, 0);
  g_assert_cmpuint (count_dir_entries (session), ==, 2);
  check_profile (host0, 100000, "host0", CHECK_DEFAULT);
  check_profile (host1, 100000, "host1", CHECK_DEFAULT);

  /* A second run reuses the session and touches nothing in it: a rewrite
   * would give the files new inodes. */
  g_assert_true (g_file_get_contents (host0, &data, &len, NULL));
  g_assert_true (g_file_set_contents (copy, data, len, NULL));
  g_assert_true (g_file_set_contents (marker, "", 0, NULL));
  g_assert_cmpint (g_stat (host1, &before), ==, 0);
  g_assert_cmpint (run_gen (NULL, NULL, "--demo", dir, NULL), ==, 0);
  g_assert_cmpint (g_stat (host1, &after), ==, 0);
  g_assert_cmpuint (before.st_ino, ==, after.st_ino);
  g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
  g_assert_true (files_equal (host0, copy));
  g_assert_cmpuint (count_dir_entries (session), ==, 3);
}

/* Benchmarks divide by the event count, so the cost of an event must not
 * depend on how many there are. */
static void
test_gen_bytes_per_event (PlanarTestFixture *f,
                          gconstpointer      data)
{
  const char *dir = f->dir;
  g_autofree char *small = g_build_filename (dir, "small.xplane.pb", NULL);
  g_autofree char *large = g_build_filename (dir, "large.xplane.pb", NULL);
  double small_bpe, large_bpe;

  generate (small, 100000, NULL, NULL);
  generate (large, 1000000, NULL, NULL);
  small_bpe = (double) file_size (small) / 100000.0;
  large_bpe = (double) file_size (large) / 1000000.0;
  g_test_message ("bytes per event: %.2f at 1e5, %.2f at 1e6", small_bpe, large_bpe);

  g_assert_cmpfloat (small_bpe, >, 10.0);
  g_assert_cmpfloat (ABS (small_bpe - large_bpe) / large_bpe, <, 0.10);
}

/* --hlo: the program's HloProto on /host:metadata (padded with
 * --hlo-instructions), every GPU kernel with a program_id that resolves to
 * an instruction of it; without --hlo, no such plane. */
static void
test_gen_hlo (PlanarTestFixture *f,
              gconstpointer      data)
{
  g_autofree char *path = g_build_filename (f->dir, "hlo.xplane.pb", NULL);
  g_autofree char *plain = g_build_filename (f->dir, "plain.xplane.pb", NULL);
  g_autofree char *err = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(PlanarTrace) plain_trace = NULL;
  const PlanarHloIndex *index;
  const PlanarHloModule *module;
  const PlanarPlane *gpu;
  guint n_resolved = 0, n_kernels = 0;

  generate (path, 20000, "--hlo", "--hlo-instructions=1000");
  trace = planar_test_load_ok (path);
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 20000);
  index = planar_trace_get_hlo_index (trace);
  g_assert_null (planar_trace_get_hlo_errors (trace)[0]);
  g_assert_cmpuint (planar_hlo_index_get_n_modules (index), ==, 1);
  module = planar_hlo_index_find_module (index, 42);
  g_assert_nonnull (module);
  g_assert_cmpstr (module->name, ==, "jit_train_step");
  g_assert_cmpuint (module->n_instructions, >, 1000);
  g_assert_cmpuint (module->n_frames, >, 0);
  /* A dot, a convolution and a fusion are among them. */
  g_assert_nonnull (planar_hlo_instruction_get_extra (module, planar_hlo_module_find_instruction (module, "dot.1", -1)));
  g_assert_true (planar_hlo_instruction_get_extra (module,
                   planar_hlo_module_find_instruction (module, "convolution.2", -1))->conv != NULL);
  g_assert_cmpuint (planar_hlo_module_find_instruction (module, "gemm_fusion_dot.3", -1)->n_called, ==, 1);

  gpu = planar_trace_find_plane (trace, "/device:GPU:0");
  for (guint t = 0; t < gpu->n_tracks; t++)
    for (gsize i = 0; i < gpu->tracks[t].n_events && !gpu->tracks[t].derived; i++)
      {
        PlanarHloResolution res;

        if (g_str_has_prefix (gpu->tracks[t].name, "Stream") && strstr (gpu->tracks[t].name, "Memcpy") == NULL)
          {
            n_kernels++;
            n_resolved += planar_trace_resolve_hlo (trace, gpu, &gpu->tracks[t].events[i], &res);
          }
      }
  g_assert_cmpuint (n_kernels, >, 0);
  g_assert_cmpuint (n_resolved, ==, n_kernels);
  g_assert_nonnull (planar_plane_find_track (gpu, "Source code - from #7"));
  g_assert_nonnull (planar_plane_find_track (gpu, "Framework Ops - from #7"));

  generate (plain, 20000, NULL, NULL);
  plain_trace = planar_test_load_ok (plain);
  g_assert_null (planar_trace_find_plane (plain_trace, "/host:metadata"));

  g_assert_cmpint (run_gen (NULL, &err, "--events", "100", "-o", plain, "--force", "--hlo-instructions=5", NULL),
                   ==, 2);
}

/* The HLO paths on a generated profile of several programs, large enough
 * for the multi-module paths and quick enough for every run (2e5 events,
 * three programs, two GPUs): every kernel with a program id resolves, to
 * its step's program; each compute stream has its Framework Ops and
 * Source code lines; the costs (per kernel, per run of kernels, per Op
 * Stats row) are finite. The 1e7 figures are bench/load --hlo's. */
static void
test_gen_hlo_programs (PlanarTestFixture *f,
                       gconstpointer      data)
{
  g_autofree char *path = g_build_filename (f->dir, "hlo-programs.xplane.pb", NULL);
  g_autofree char *out = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarHloIndex *index;
  guint64 per_program[3] = { 0 };
  guint64 n_kernels = 0;

  g_assert_cmpint (run_gen (&out, NULL, "--events", "2e5", "--hlo", "--hlo-programs", "3", "-o", path, NULL), ==, 0);
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "10", "--hlo-programs", "3", "-o", path, "--force", NULL), ==, 2);
  g_assert_cmpint (run_gen (NULL, NULL, "--events", "10", "--hlo", "--hlo-programs", "0", "-o", path, "--force", NULL),
                   ==, 2);
  trace = planar_test_load_ok (path);
  index = planar_trace_get_hlo_index (trace);
  g_assert_nonnull (index);
  g_assert_null (planar_trace_get_hlo_errors (trace)[0]);
  g_assert_cmpuint (planar_hlo_index_get_n_modules (index), ==, 3);

  for (guint g = 0; g < 2; g++)
    {
      g_autofree char *name = g_strdup_printf ("/device:GPU:%u", g);
      const PlanarPlane *gpu = planar_trace_find_plane (trace, name);
      g_autoptr(PlanarAggregator) agg = planar_aggregator_new ();
      g_autoptr(GArray) rows = NULL;
      double total = 0;

      g_assert_nonnull (gpu);
      g_assert_nonnull (planar_plane_find_track (gpu, "Framework Ops - from #7"));
      g_assert_nonnull (planar_plane_find_track (gpu, "Source code - from #7"));
      g_assert_nonnull (planar_plane_find_track (gpu, "Framework Ops - from #13"));
      g_assert_nonnull (planar_plane_find_track (gpu, "Source code - from #13"));
      planar_aggregator_set_costs (agg, trace, PLANAR_AGGREGATE_KEY_FRAMEWORK_OP);
      for (guint t = 0; t < gpu->n_tracks; t++)
        {
          const PlanarTrack *track = &gpu->tracks[t];

          if (track->derived || !g_str_has_prefix (track->name, "Stream") || strstr (track->name, "Memcpy") != NULL)
            continue;
          planar_aggregator_add_track (agg, gpu, track, G_MININT64, G_MAXINT64);
          for (gsize i = 0; i < track->n_events; i++)
            {
              PlanarOpInfo info;

              g_assert_true (planar_op_info_init (&info, trace, gpu, &track->events[i], NULL));
              g_assert_nonnull (info.hlo.instruction);
              g_assert_true (info.hlo.has_program_id);
              g_assert_cmpuint (info.hlo.program_id, >=, 42);
              g_assert_cmpuint (info.hlo.program_id, <, 45);
              g_assert_true (info.hlo.module->program_id == info.hlo.program_id);
              per_program[info.hlo.program_id - 42]++;
              g_assert_nonnull (info.framework_op);
              g_assert_true (info.flops_from != PLANAR_OP_VALUE_NONE || info.flops_unknown);
              g_assert_true (isfinite (info.flops) && info.flops >= 0);
              g_assert_true (isfinite (info.bytes) && info.bytes >= 0);
              /* The run of every 64th kernel. */
              if (i % 64 == 0)
                {
                  planar_op_info_find_kernels (&info, trace, gpu, track, i);
                  g_assert_cmpuint (info.n_kernels, >=, 1);
                  g_assert_cmpint (info.kernels_ps, >=, track->events[i].duration_ps);
                  g_assert_true (isfinite (planar_op_info_get_share (&info, track->events[i].duration_ps)));
                }
              planar_op_info_clear (&info);
              n_kernels++;
            }
        }
      rows = planar_aggregator_get_results (agg, PLANAR_AGGREGATE_SORT_SELF);
      g_assert_cmpuint (rows->len, >, 1);
      for (guint r = 0; r < rows->len; r++)
        {
          const PlanarAggregate *row = &g_array_index (rows, PlanarAggregate, r);

          g_assert_true (isfinite (row->flops) && row->flops >= 0);
          g_assert_true (isfinite (row->bytes) && row->bytes >= 0);
          total += row->flops;
        }
      g_assert_cmpfloat (total, >, 0);
    }
  g_assert_cmpuint (n_kernels, >, 10000);
  for (guint k = 0; k < 3; k++)
    g_assert_cmpuint (per_program[k], >, 0);

  /* The generator's module alone (7 KB) within the index's budget of
   * twice its bytes. */
  {
    g_autofree char *small = g_build_filename (f->dir, "hlo-small.xplane.pb", NULL);
    g_autoptr(PlanarTrace) one = NULL;
    const PlanarHloIndex *one_index;

    g_assert_cmpint (run_gen (NULL, NULL, "--events", "2000", "--hlo", "-o", small, NULL), ==, 0);
    one = planar_test_load_ok (small);
    one_index = planar_trace_get_hlo_index (one);
    g_assert_cmpuint (planar_hlo_index_get_n_modules (one_index), ==, 1);
    g_test_message ("the generator's module: %" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT " indexed",
                    planar_hlo_index_get_serialized_bytes (one_index), planar_hlo_index_get_memory (one_index));
    g_assert_cmpuint (planar_hlo_index_get_memory (one_index), <=, 2 * planar_hlo_index_get_serialized_bytes (one_index));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  PLANAR_TEST_ADD ("/gen/counts", test_gen_counts);
  PLANAR_TEST_ADD ("/gen/canonical", test_gen_canonical);
  PLANAR_TEST_ADD ("/gen/no-task-env", test_gen_no_task_env);
  PLANAR_TEST_ADD ("/gen/epoch-timestamps", test_gen_epoch_timestamps);
  PLANAR_TEST_ADD ("/gen/deterministic", test_gen_deterministic);
  PLANAR_TEST_ADD ("/gen/refuse-overwrite", test_gen_refuse_overwrite);
  PLANAR_TEST_ADD ("/gen/bad-arguments", test_gen_bad_arguments);
  PLANAR_TEST_ADD ("/gen/hosts", test_gen_hosts);
  PLANAR_TEST_ADD ("/gen/demo", test_gen_demo);
  PLANAR_TEST_ADD ("/gen/bytes-per-event", test_gen_bytes_per_event);
  PLANAR_TEST_ADD ("/gen/host-offload", test_gen_host_offload);
  PLANAR_TEST_ADD ("/gen/hlo", test_gen_hlo);
  PLANAR_TEST_ADD ("/gen/hlo-programs", test_gen_hlo_programs);

  return g_test_run ();
}
