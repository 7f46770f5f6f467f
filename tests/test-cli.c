/* test-cli.c: planar-cli as a user and a script see it: exit statuses,
 * what goes to stdout and stderr, and the events it selects.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-test-samples.h"
#include "xplane.pb-c.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>

#define TF_SAMPLE "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb"
#define EXIT_BAD_INPUT 2

typedef struct
{
  int   status;
  char *out;
  char *err;
} CliResult;

static void
cli_result_clear (CliResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliResult, cli_result_clear)

/* Runs @program with @args (no shell). A death by signal fails the test:
 * every input must end in an exit status. */
static void
run_program (const char         *program,
             const char * const *args,
             CliResult          *result)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, (char *) program);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &result->out, &result->err, &wait_status, &error);
  g_assert_no_error (error);
  if (!WIFEXITED (wait_status))
    g_error ("%s %s died (wait status %d); stderr: %s", program, args[0] ? args[0] : "",
             wait_status, result->err);
  result->status = WEXITSTATUS (wait_status);
}

static const char *
cli_path (void)
{
  const char *cli = g_getenv ("PLANAR_CLI");

  g_assert_nonnull (cli);
  return cli;
}

static void
run_cli (const char * const *args,
         CliResult          *result)
{
  run_program (cli_path (), args, result);
}

/* The sample @name; NULL, the case skipped, in a clone without the
 * samples. */
static char *
sample_path (const char *name)
{
  return planar_test_sample_path (name);
}

static guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p++)
    if (*p == '\n')
      n++;
  return n;
}

/* A refusal: the given status, nothing on stdout, one line on stderr. */
static void
assert_refused (const CliResult *r,
                int              status)
{
  g_assert_cmpint (r->status, ==, status);
  g_assert_cmpstr (r->out, ==, "");
  g_assert_cmpuint (strlen (r->err), >, 1);
  g_assert_true (g_str_has_suffix (r->err, "\n"));
  if (count_lines (r->err) != 1)
    g_error ("expected one line on stderr, got %u:\n%s", count_lines (r->err), r->err);
}

/* A refusal of an input: also says "planar-cli: ". */
static void
assert_bad_input (const CliResult *r)
{
  assert_refused (r, EXIT_BAD_INPUT);
  g_assert_true (g_str_has_prefix (r->err, "planar-cli: "));
}

static char *
make_tmp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("planar-test-cli-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_tree (const char *path)
{
  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return node;
}

static JsonNode *
member (JsonObject *object,
        const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL)
    g_error ("no member '%s' in the JSON object", name);
  return node;
}

static gint64
member_int (JsonObject *object,
            const char *name)
{
  JsonNode *node = member (object, name);

  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_INT64);
  return json_node_get_int (node);
}

static const char *
member_string (JsonObject *object,
               const char *name)
{
  JsonNode *node = member (object, name);

  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_STRING);
  return json_node_get_string (node);
}

static JsonArray *
member_array (JsonObject *object,
              const char *name)
{
  JsonNode *node = member (object, name);

  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_node_get_array (node);
}

/* ------------------------------------------------------------------------ */

static void
test_help (void)
{
  const char *args[] = { "--help", NULL };
  const char *info_args[] = { "info", "--help", NULL };
  g_auto(CliResult) r = { 0 };
  g_auto(CliResult) info = { 0 };

  run_cli (args, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "info"));
  g_assert_nonnull (strstr (r.out, "events"));
  g_assert_cmpstr (r.err, ==, "");

  run_cli (info_args, &info);
  g_assert_cmpint (info.status, ==, 0);
  g_assert_nonnull (strstr (info.out, "--json"));
}

static void
test_usage_errors (void)
{
  /* Any profile: the usage is wrong before the file is read. */
  g_autofree char *sample = planar_test_sample_or_generated (TF_SAMPLE);
  const char *unknown_command[] = { "frobnicate", sample, NULL };
  const char *info_no_path[] = { "info", NULL };
  const char *info_two_paths[] = { "info", sample, sample, NULL };
  const char *events_no_path[] = { "events", "--plane", "/host:CPU", "--line", "python3", NULL };
  const char *events_no_line[] = { "events", "--plane", "/host:CPU", sample, NULL };
  const char *info_unknown_option[] = { "info", "--bogus", sample, NULL };
  const char *events_unknown_option[] = { "events", "--plane", "/host:CPU", "--line", "python3",
                                          "--bogus", sample, NULL };
  const char *events_bad_number[] = { "events", "--plane", "/host:CPU", "--line", "python3",
                                      "--limit", "many", sample, NULL };
  const char *events_reversed[] = { "events", "--plane", "/host:CPU", "--line", "python3",
                                    "--from-ps", "10", "--to-ps", "5", sample, NULL };
  const char * const *cases[] = {
    unknown_command, info_no_path, info_two_paths, events_no_path, events_no_line,
    info_unknown_option, events_unknown_option, events_bad_number, events_reversed,
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(CliResult) r = { 0 };
      g_autofree char *joined = g_strjoinv (" ", (char **) cases[i]);

      g_test_message ("planar-cli %s", joined);
      run_cli (cases[i], &r);
      assert_refused (&r, EXIT_BAD_INPUT);
    }
}

/* Without a command, a script gets the same one-line refusal as for any
 * other bad usage, not a page of help on stderr. */
static void
test_no_arguments (void)
{
  const char *no_args[] = { NULL };
  g_auto(CliResult) r = { 0 };

  run_cli (no_args, &r);
  assert_refused (&r, EXIT_BAD_INPUT);
}

static void
test_info_text (void)
{
  g_autofree char *sample = sample_path (TF_SAMPLE);
  const char *args[] = { "info", sample, NULL };
  g_auto(CliResult) r = { 0 };
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  Tensorflow__Profiler__XSpace *space;
  gsize size;

  if (sample == NULL)
    return;
  run_cli (args, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");

  g_file_get_contents (sample, &contents, &size, &error);
  g_assert_no_error (error);
  space = tensorflow__profiler__xspace__unpack (NULL, size, (const uint8_t *) contents);
  g_assert_nonnull (space);
  g_assert_cmpuint (space->n_planes, >, 0);
  for (gsize p = 0; p < space->n_planes; p++)
    if (strstr (r.out, space->planes[p]->name) == NULL)
      g_error ("plane %s missing from:\n%s", space->planes[p]->name, r.out);
  g_assert_nonnull (strstr (r.out, "23128"));
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
}

typedef struct
{
  gint64 start_ps;
  gint64 duration_ps;
} Span;

/* Runs `events` on the TF sample's python3 thread with @extra options and
 * checks the document's shape. Returns: (transfer full): the events. */
static GArray *
run_events (const char * const *extra,
            guint64             expected_count)
{
  g_autofree char *sample = sample_path (TF_SAMPLE);
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_auto(CliResult) r = { 0 };
  g_autoptr(JsonNode) root = NULL;
  GArray *spans = g_array_new (FALSE, FALSE, sizeof (Span));
  JsonObject *doc;
  JsonArray *events;

  g_assert_nonnull (sample);
  g_ptr_array_add (args, (char *) "events");
  g_ptr_array_add (args, (char *) "--plane");
  g_ptr_array_add (args, (char *) "/host:CPU");
  g_ptr_array_add (args, (char *) "--line");
  g_ptr_array_add (args, (char *) "python3");
  g_ptr_array_add (args, (char *) "--json");
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (args, (char *) extra[i]);
  g_ptr_array_add (args, sample);
  g_ptr_array_add (args, NULL);

  run_cli ((const char * const *) args->pdata, &r);
  if (r.status != 0)
    g_error ("planar-cli events exited %d: %s", r.status, r.err);
  g_assert_cmpstr (r.err, ==, "");
  root = parse_json (r.out);
  doc = json_node_get_object (root);
  g_assert_cmpstr (member_string (doc, "plane"), ==, "/host:CPU");
  g_assert_cmpstr (member_string (doc, "line"), ==, "python3");
  events = member_array (doc, "events");
  g_assert_cmpint (member_int (doc, "count"), ==, (gint64) json_array_get_length (events));
  if (expected_count != G_MAXUINT64)
    g_assert_cmpuint (json_array_get_length (events), ==, expected_count);

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonNode *node = json_array_get_element (events, i);
      JsonObject *event;
      Span span;

      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      event = json_node_get_object (node);
      g_assert_nonnull (member_string (event, "name"));
      span.start_ps = member_int (event, "start_ps");
      span.duration_ps = member_int (event, "duration_ps");
      g_assert_cmpint (span.duration_ps, >=, 0);
      g_assert_cmpint (member_int (event, "depth"), >=, 0);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (member (event, "stats")));
      if (spans->len > 0)
        {
          const Span *prev = &g_array_index (spans, Span, spans->len - 1);

          g_assert_cmpint (prev->start_ps, <=, span.start_ps);
          if (prev->start_ps == span.start_ps)
            g_assert_cmpint (prev->duration_ps, >=, span.duration_ps);
        }
      g_array_append_val (spans, span);
    }
  return spans;
}

static void
test_events_limit (void)
{
  const char *extra[] = { "--limit", "5", NULL };
  g_autofree char *sample = sample_path (TF_SAMPLE);
  g_autoptr(GArray) spans = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *track;

  if (sample == NULL)
    return;
  spans = run_events (extra, 5);
  /* The first five of the line, as the model has them. */
  trace = planar_trace_load (sample, NULL, &error);
  g_assert_no_error (error);
  plane = planar_trace_find_plane (trace, "/host:CPU");
  g_assert_nonnull (plane);
  track = planar_plane_find_track (plane, "python3");
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_events, >=, 5);
  for (guint i = 0; i < 5; i++)
    {
      g_assert_cmpint (g_array_index (spans, Span, i).start_ps, ==, track->events[i].start_ps);
      g_assert_cmpint (g_array_index (spans, Span, i).duration_ps, ==, track->events[i].duration_ps);
    }
}

static gboolean
overlaps_open (const Span *s,
               gint64      from,
               gint64      to)
{
  gint64 end = s->start_ps + s->duration_ps;

  if (s->duration_ps == 0)
    return s->start_ps > from && s->start_ps < to;
  return s->start_ps < to && end > from;
}

static gboolean
overlaps_closed (const Span *s,
                 gint64      from,
                 gint64      to)
{
  return s->start_ps <= to && s->start_ps + s->duration_ps >= from;
}

static gboolean
on_an_edge (const GArray *all,
            gint64        t)
{
  for (guint i = 0; i < all->len; i++)
    {
      const Span *s = &g_array_index (all, Span, i);

      if (s->start_ps == t || s->start_ps + s->duration_ps == t)
        return TRUE;
    }
  return FALSE;
}

static void
check_window (const GArray *all,
              gint64        from,
              gint64        to,
              gboolean      exact)
{
  g_autofree char *from_text = g_strdup_printf ("%" G_GINT64_FORMAT, from);
  g_autofree char *to_text = g_strdup_printf ("%" G_GINT64_FORMAT, to);
  const char *extra[] = { "--from-ps", from_text, "--to-ps", to_text, NULL };
  g_autoptr(GArray) got = run_events (extra, G_MAXUINT64);
  guint n_open = 0, n_closed = 0;

  for (guint i = 0; i < all->len; i++)
    {
      n_open += overlaps_open (&g_array_index (all, Span, i), from, to);
      n_closed += overlaps_closed (&g_array_index (all, Span, i), from, to);
    }
  for (guint i = 0; i < got->len; i++)
    g_assert_true (overlaps_closed (&g_array_index (got, Span, i), from, to));

  g_test_message ("window [%s, %s]: %u events (brute force %u to %u)", from_text, to_text,
                  got->len, n_open, n_closed);
  /* Away from event edges, "overlaps" has one meaning; on an edge, the
   * window may count as open or closed there. */
  if (exact)
    {
      g_assert_cmpuint (n_open, ==, n_closed);
      g_assert_cmpuint (got->len, ==, n_open);
    }
  else
    {
      g_assert_cmpuint (got->len, >=, n_open);
      g_assert_cmpuint (got->len, <=, n_closed);
    }
}

static void
test_events_window (void)
{
  const char *none[] = { NULL };
  g_autoptr(GArray) all = NULL;
  const Span *a, *b;
  gint64 from, to;

  if (!planar_test_need_samples ())
    return;
  all = run_events (none, G_MAXUINT64);
  g_assert_cmpuint (all->len, >, 100);

  /* A window in the middle of the line, its edges on no event's edge. */
  a = &g_array_index (all, Span, all->len / 3);
  b = &g_array_index (all, Span, 2 * all->len / 3);
  from = a->start_ps + 1;
  to = b->start_ps + 1;
  while (on_an_edge (all, from))
    from++;
  while (on_an_edge (all, to))
    to++;
  check_window (all, from, to, TRUE);

  /* A narrow one inside the longest event: it and whatever else is open
   * there. */
  a = &g_array_index (all, Span, 0);
  for (guint i = 1; i < all->len; i++)
    if (g_array_index (all, Span, i).duration_ps > a->duration_ps)
      a = &g_array_index (all, Span, i);
  g_assert_cmpint (a->duration_ps, >, 1000);
  from = a->start_ps + a->duration_ps / 3;
  to = from + 1;
  while (on_an_edge (all, from) || on_an_edge (all, to))
    {
      from++;
      to++;
    }
  check_window (all, from, to, TRUE);

  /* Edges exactly on event boundaries. */
  a = &g_array_index (all, Span, all->len / 4);
  b = &g_array_index (all, Span, all->len / 2);
  check_window (all, a->start_ps + a->duration_ps, b->start_ps, FALSE);

  /* Before everything, and after everything. */
  check_window (all, G_MININT64 / 2, g_array_index (all, Span, 0).start_ps - 1, TRUE);
  check_window (all, G_MAXINT64 / 2, G_MAXINT64 / 2 + 10, TRUE);
}

static void
test_events_missing (void)
{
  /* Any profile with a /host:CPU plane. */
  g_autofree char *sample = planar_test_sample_or_generated (TF_SAMPLE);
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *missing = g_build_filename (tmp, "nothing-here.xplane.pb", NULL);
  const char *no_plane[] = { "events", "--plane", "/device:NOPE:0", "--line", "python3", sample, NULL };
  const char *no_line[] = { "events", "--plane", "/host:CPU", "--line", "no-such-thread", sample, NULL };
  const char *no_file[] = { "events", "--plane", "/host:CPU", "--line", "python3", missing, NULL };
  const char *info_no_file[] = { "info", missing, NULL };
  g_auto(CliResult) r1 = { 0 };
  g_auto(CliResult) r2 = { 0 };
  g_auto(CliResult) r3 = { 0 };
  g_auto(CliResult) r4 = { 0 };

  run_cli (no_plane, &r1);
  assert_bad_input (&r1);
  g_assert_nonnull (strstr (r1.err, "/device:NOPE:0"));

  run_cli (no_line, &r2);
  assert_bad_input (&r2);
  g_assert_nonnull (strstr (r2.err, "no-such-thread"));

  run_cli (no_file, &r3);
  assert_bad_input (&r3);
  g_assert_nonnull (strstr (r3.err, "nothing-here.xplane.pb"));

  run_cli (info_no_file, &r4);
  assert_bad_input (&r4);
  g_assert_nonnull (strstr (r4.err, "nothing-here.xplane.pb"));

  remove_tree (tmp);
}

static void
test_no_profile (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *notes = g_build_filename (tmp, "notes.txt", NULL);
  g_autofree char *session = g_build_filename (tmp, "plugins", "profile", "2026_01_01_00_00_00", NULL);
  const char *args[] = { "info", tmp, NULL };
  g_auto(CliResult) empty = { 0 };
  g_auto(CliResult) other = { 0 };
  g_auto(CliResult) empty_session = { 0 };
  g_autoptr(GError) error = NULL;

  /* An empty folder. */
  run_cli (args, &empty);
  assert_bad_input (&empty);

  /* A folder of other files, and an empty session folder. */
  g_file_set_contents (notes, "not a profile\n", -1, &error);
  g_assert_no_error (error);
  run_cli (args, &other);
  assert_bad_input (&other);

  g_assert_cmpint (g_mkdir_with_parents (session, 0700), ==, 0);
  run_cli (args, &empty_session);
  assert_bad_input (&empty_session);

  remove_tree (tmp);
}

static void
test_riegeli_only (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *session = g_build_filename (tmp, "plugins", "profile", "2026_01_01_00_00_00", NULL);
  g_autofree char *riegeli = g_build_filename (session, "host0.xplane.riegeli", NULL);
  const char *session_args[] = { "info", tmp, NULL };
  const char *file_args[] = { "info", riegeli, NULL };
  const char *events_args[] = { "events", "--plane", "/host:CPU", "--line", "python3", session, NULL };
  g_auto(CliResult) r1 = { 0 };
  g_auto(CliResult) r2 = { 0 };
  g_auto(CliResult) r3 = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (session, 0700), ==, 0);
  /* Riegeli's file signature chunk would follow; the content is not read. */
  g_file_set_contents (riegeli, "\x83\xaf\x70\xd1\x0d\x88\x4a\x3f", 8, &error);
  g_assert_no_error (error);

  run_cli (session_args, &r1);
  assert_bad_input (&r1);
  g_assert_nonnull (strstr (r1.err, "riegeli"));

  run_cli (file_args, &r2);
  assert_bad_input (&r2);
  g_assert_nonnull (strstr (r2.err, "riegeli"));

  run_cli (events_args, &r3);
  assert_bad_input (&r3);
  g_assert_nonnull (strstr (r3.err, "riegeli"));

  remove_tree (tmp);
}

/* `health --json` on a real sample: the model's findings, the events of
 * every plane and line; text mode names them too; a bad path is refused. */
static void
test_health (void)
{
  g_autofree char *path = sample_path ("xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb");
  const char *json_args[] = { "health", "--json", path, NULL };
  const char *text_args[] = { "health", path, NULL };
  const char *missing_args[] = { "health", "/nonexistent/planar/profile", NULL };
  g_auto(CliResult) json = { 0 };
  g_auto(CliResult) text = { 0 };
  g_auto(CliResult) missing = { 0 };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *issues;
  JsonArray *planes;
  gboolean found_task_env = FALSE;

  if (path == NULL)
    return;
  run_cli (json_args, &json);
  g_assert_cmpint (json.status, ==, 0);
  root = parse_json (json.out);
  issues = member_array (json_node_get_object (root), "issues");
  for (guint i = 0; i < json_array_get_length (issues); i++)
    {
      JsonObject *issue = json_array_get_object_element (issues, i);

      g_assert_nonnull (member_string (issue, "severity"));
      g_assert_nonnull (member_string (issue, "message"));
      if (g_str_equal (member_string (issue, "kind"), "no-task-environment"))
        found_task_env = TRUE;
    }
  /* This sample has no Task Environment plane. */
  g_assert_true (found_task_env);

  trace = planar_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  planes = member_array (json_array_get_object_element (member_array (json_node_get_object (root), "hosts"), 0),
                         "planes");
  g_assert_cmpuint (json_array_get_length (planes), ==, planar_trace_get_n_planes (trace));
  for (guint p = 0; p < json_array_get_length (planes); p++)
    g_assert_cmpint (member_int (json_array_get_object_element (planes, p), "events"), ==,
                     (gint64) planar_trace_get_plane (trace, p)->n_events);

  run_cli (text_args, &text);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "Task Environment"));
  g_assert_nonnull (strstr (text.out, "Events per plane and line"));

  run_cli (missing_args, &missing);
  assert_bad_input (&missing);
}

static void
test_generated (void)
{
  const char *gen = g_getenv ("PLANAR_GEN");
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *file = g_build_filename (tmp, "gen.xplane.pb", NULL);
  const char *gen_args[] = { "--events", "2000", "--seed", "1", "-o", file, NULL };
  const char *info_args[] = { "info", "--json", file, NULL };
  g_auto(CliResult) g = { 0 };
  g_auto(CliResult) r = { 0 };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *doc;
  JsonArray *hosts;

  g_assert_nonnull (gen);
  run_program (gen, gen_args, &g);
  if (g.status != 0)
    g_error ("planar-gen exited %d: %s", g.status, g.err);
  g_assert_true (g_file_test (file, G_FILE_TEST_IS_REGULAR));

  run_cli (info_args, &r);
  if (r.status != 0)
    g_error ("planar-cli info --json exited %d: %s", r.status, r.err);
  root = parse_json (r.out);
  doc = json_node_get_object (root);
  g_assert_cmpint (member_int (doc, "events"), ==, 2000);
  hosts = member_array (doc, "hosts");
  g_assert_cmpuint (json_array_get_length (hosts), ==, 1);
  g_assert_cmpint (member_int (json_array_get_object_element (hosts, 0), "events"), ==, 2000);

  /* The model agrees with the CLI. */
  trace = planar_trace_load (file, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (planar_trace_get_n_events (trace), ==, 2000);

  remove_tree (tmp);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/help", test_help);
  g_test_add_func ("/cli/usage-errors", test_usage_errors);
  g_test_add_func ("/cli/info-text", test_info_text);
  g_test_add_func ("/cli/events-limit", test_events_limit);
  g_test_add_func ("/cli/events-window", test_events_window);
  g_test_add_func ("/cli/events-missing", test_events_missing);
  g_test_add_func ("/cli/no-profile", test_no_profile);
  g_test_add_func ("/cli/riegeli-only", test_riegeli_only);
  g_test_add_func ("/cli/generated", test_generated);
  g_test_add_func ("/cli/health", test_health);
  g_test_add_func ("/cli/no-arguments", test_no_arguments);

  return g_test_run ();
}
