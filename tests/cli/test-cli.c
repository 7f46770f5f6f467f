/* test-cli.c: planar-cli as a user and a script see it: exit statuses,
 * what goes to stdout and stderr, and the events it selects.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-test-xspace.h"
#include "planar-test-samples.h"
#include "planar-test-pty.h"
#include "xplane.pb-c.h"
#include "perfetto_trace.pb-c.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TF_SAMPLE "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb"
/* The table of cli/planar-cli.h, as a script sees it. */
#define EXIT_OK 0
#define EXIT_FAILURE_ANSWER 1
#define EXIT_BAD_INPUT 2
#define EXIT_IO 3

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
  /* count: every event of the window; printed: those --limit let through. */
  g_assert_cmpint (member_int (doc, "printed"), ==, (gint64) json_array_get_length (events));
  g_assert_cmpint (member_int (doc, "count"), >=, member_int (doc, "printed"));
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
  /* Findings (a warning here) make the answer negative: status 1. */
  run_cli (json_args, &json);
  g_assert_cmpint (json.status, ==, EXIT_FAILURE_ANSWER);
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
  g_assert_cmpint (text.status, ==, EXIT_FAILURE_ANSWER);
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

/* A host file of one CPU line and event, started at @start_ns. */
static char *
write_session_host (const char *dir,
                    const char *name,
                    guint64     start_ns)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane;

  planar_test_add_task_environment (space, start_ns);
  plane = planar_test_space_add_plane (space, 1, "/host:CPU");
  planar_test_plane_add_event_metadata (plane, 1, "step", NULL);
  planar_test_line_add_event (planar_test_plane_add_line (plane, 1, "main", 10), 1, 0, 1000);
  return planar_test_write_space (space, dir, name);
}

/* Lines of @text that start with @prefix. */
static guint
count_prefixed_lines (const char *text,
                      const char *prefix)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    n += g_str_has_prefix (lines[i], prefix);
  return n;
}

/* A session whose hosts started 200 days apart (past what int64 ps can
 * align) opens, each host from its own start, and says so. */
static void
test_info_hosts_far_apart (void)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *session = g_build_filename (tmp, "plugins", "profile", "2026_01_01_00_00_00", NULL);
  const char *json_args[] = { "info", "--json", tmp, NULL };
  const char *text_args[] = { "info", tmp, NULL };
  g_auto(CliResult) json = { 0 };
  g_auto(CliResult) text = { 0 };
  g_autoptr(JsonNode) root = NULL;
  JsonObject *doc;
  JsonArray *hosts;

  planar_test_scratch_begin ();
  g_assert_cmpint (g_mkdir_with_parents (session, 0700), ==, 0);
  g_free (write_session_host (session, "worker0.xplane.pb", start + G_GUINT64_CONSTANT (200) * 86400 * 1000000000));
  g_free (write_session_host (session, "worker1.xplane.pb", start));

  run_cli (json_args, &json);
  if (json.status != 0)
    g_error ("planar-cli info --json exited %d: %s", json.status, json.err);
  g_assert_cmpstr (json.err, ==, "");
  root = parse_json (json.out);
  doc = json_node_get_object (root);
  g_assert_cmpstr (member_string (doc, "host_alignment"), ==, "own_start");
  hosts = member_array (doc, "hosts");
  g_assert_cmpuint (json_array_get_length (hosts), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *host = json_array_get_object_element (hosts, i);
      JsonArray *span = member_array (host, "span_ps");

      /* The per-host alignment keeps its meaning. */
      g_assert_cmpstr (member_string (host, "alignment"), ==, "profile_start_time");
      g_assert_cmpint (json_array_get_int_element (span, 0), ==, 10000);
    }

  run_cli (text_args, &text);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "Host alignment: own start"));

  planar_test_scratch_end ();
  remove_tree (tmp);
}

/* What a load loses is one warning line each on stderr, and the command
 * goes on with exit 0: a host that cannot be read, a file cut short. */
static void
test_info_losses (void)
{
  const guint64 start = G_GUINT64_CONSTANT (1767225600000000000);
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *session = g_build_filename (tmp, "plugins", "profile", "2026_01_01_00_00_00", NULL);
  g_autofree char *bad = g_build_filename (session, "worker1.xplane.pb", NULL);
  g_autofree char *cut = NULL;
  g_autofree char *contents = NULL;
  const char *info_args[] = { "info", "--json", tmp, NULL };
  const char *health_args[] = { "health", "--json", tmp, NULL };
  g_auto(CliResult) info = { 0 };
  g_auto(CliResult) health = { 0 };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) health_root = NULL;
  JsonArray *issues;
  gboolean saw_unreadable = FALSE, saw_cut = FALSE;
  gsize size;

  planar_test_scratch_begin ();
  g_assert_cmpint (g_mkdir_with_parents (session, 0700), ==, 0);
  g_free (write_session_host (session, "worker0.xplane.pb", start));
  g_assert_true (g_file_set_contents (bad, "\x0d\x01\x02\x03\x04 not a profile", -1, NULL));
  /* worker2: its Task Environment whole, its CPU plane cut 3 bytes short. */
  cut = write_session_host (session, "worker2.xplane.pb", start + 1000);
  g_assert_true (g_file_get_contents (cut, &contents, &size, NULL));
  g_assert_true (g_file_set_contents (cut, contents, (gssize) size - 3, NULL));

  run_cli (info_args, &info);
  if (info.status != 0)
    g_error ("planar-cli info --json exited %d: %s", info.status, info.err);
  g_assert_cmpuint (count_lines (info.err), ==, 2);
  g_assert_cmpuint (count_prefixed_lines (info.err, "planar-cli: warning: "), ==, 2);
  g_assert_nonnull (strstr (info.err, "planar-cli: warning: worker1.xplane.pb could not be read"));
  g_assert_nonnull (strstr (info.err, "planar-cli: warning: worker2.xplane.pb: the file ends early"));
  root = parse_json (info.out);
  g_assert_cmpuint (json_array_get_length (member_array (json_node_get_object (root), "hosts")), ==, 2);
  g_assert_cmpstr (member_string (json_node_get_object (root), "host_alignment"), ==, "common_start");

  run_cli (health_args, &health);
  g_assert_cmpuint (count_prefixed_lines (health.err, "planar-cli: warning: "), ==, 2);
  health_root = parse_json (health.out);
  issues = member_array (json_node_get_object (health_root), "issues");
  for (guint i = 0; i < json_array_get_length (issues); i++)
    {
      JsonObject *issue = json_array_get_object_element (issues, i);
      const char *kind = member_string (issue, "kind");

      saw_unreadable |= g_str_equal (kind, "unreadable-host") &&
                        strstr (member_string (issue, "message"), "worker1.xplane.pb") != NULL;
      saw_cut |= g_str_equal (kind, "file-cut-short") &&
                 strstr (member_string (issue, "message"), "at byte ") != NULL;
    }
  g_assert_true (saw_unreadable);
  g_assert_true (saw_cut);

  planar_test_scratch_end ();
  remove_tree (tmp);
}

/* A generated profile cut at several points: the commands read its whole
 * planes, print one warning line, and exit 0. */
static void
test_cut_generated (void)
{
  const char *gen = g_getenv ("PLANAR_GEN");
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *file = g_build_filename (tmp, "gen.xplane.pb", NULL);
  g_autofree char *cut = g_build_filename (tmp, "cut.xplane.pb", NULL);
  g_autofree char *contents = NULL;
  const char *gen_args[] = { "--events", "20000", "--seed", "1", "-o", file, NULL };
  static const guint percents[] = { 56, 80, 99 };
  g_auto(CliResult) g = { 0 };
  gsize size;

  g_assert_nonnull (gen);
  run_program (gen, gen_args, &g);
  if (g.status != 0)
    g_error ("planar-gen exited %d: %s", g.status, g.err);
  g_assert_true (g_file_get_contents (file, &contents, &size, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (percents); i++)
    {
      const char *info_args[] = { "info", "--json", cut, NULL };
      const char *summary_args[] = { "summary", cut, NULL };
      g_auto(CliResult) info = { 0 };
      g_auto(CliResult) summary = { 0 };
      g_autoptr(JsonNode) root = NULL;
      JsonArray *hosts;

      g_assert_true (g_file_set_contents (cut, contents, (gssize) (size * percents[i] / 100), NULL));
      run_cli (info_args, &info);
      if (info.status != 0)
        g_error ("planar-cli info on a file cut at %u%% exited %d: %s", percents[i], info.status, info.err);
      g_assert_cmpuint (count_lines (info.err), ==, 1);
      g_assert_true (g_str_has_prefix (info.err, "planar-cli: warning: cut.xplane.pb: the file ends early: read "));
      root = parse_json (info.out);
      hosts = member_array (json_node_get_object (root), "hosts");
      g_assert_cmpuint (json_array_get_length (hosts), ==, 1);
      g_assert_cmpuint (json_array_get_length (member_array (json_array_get_object_element (hosts, 0), "planes")),
                        >=, 1);

      run_cli (summary_args, &summary);
      g_assert_cmpint (summary.status, ==, 0);
      g_assert_cmpstr (summary.err, ==, info.err);
    }

  remove_tree (tmp);
}

/* ------------------------------------------------------------------------ */
/* Profiles made for these tests */

/* Runs planar-cli with standard output on @stdout_fd (taken), stderr
 * captured; stdout stays empty in @result. */
static void
run_cli_with_stdout (const char * const *args,
                     int                 stdout_fd,
                     CliResult          *result)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GBytes) err = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (char *) cli_path ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  g_subprocess_launcher_take_stdout_fd (launcher, stdout_fd);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate (process, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  if (!g_subprocess_get_if_exited (process))
    g_error ("planar-cli %s died; stderr: %.*s", args[0], (int) g_bytes_get_size (err),
             (const char *) g_bytes_get_data (err, NULL));
  result->status = g_subprocess_get_exit_status (process);
  result->out = g_strdup ("");
  result->err = g_strndup (g_bytes_get_data (err, NULL), g_bytes_get_size (err));
}

/* Runs planar-cli writing its standard output to /dev/full, where every
 * write fails with ENOSPC: a full disk without filling one. */
static void
run_cli_disk_full (const char * const *args,
                   CliResult          *result)
{
  int fd = open ("/dev/full", O_WRONLY | O_CLOEXEC);

  if (fd < 0)
    g_error ("cannot open /dev/full: %s", g_strerror (errno));
  run_cli_with_stdout (args, fd, result);
}

/* A profile with one damaged XStat inside a sound XEvent: line "main" of
 * /host:CPU holds three "work" events; the second has other=7 and
 * note="DAMAGE-ME", and that string's field is then given a wire type it
 * cannot have; the third has note="hello". Returns: (transfer full): its
 * path. */
static char *
write_damaged_profile (const char *dir)
{
  static const char field[] = "\x2a\x09" "DAMAGE-ME";
  XSpace *space;
  XPlane *plane;
  XLine *line;
  XEvent *ev;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  char *path;
  char *at;
  gsize len;

  planar_test_scratch_begin ();
  space = planar_test_space_new ();
  planar_test_add_task_environment (space, 1000);
  plane = planar_test_space_add_plane (space, 1, "/host:CPU");
  planar_test_plane_add_stat_metadata (plane, 1, "other");
  planar_test_plane_add_stat_metadata (plane, 2, "note");
  planar_test_plane_add_event_metadata (plane, 1, "work", NULL);
  line = planar_test_plane_add_line (plane, 1, "main", 1000);
  planar_test_line_add_event (line, 1, 0, 100000);
  ev = planar_test_line_add_event (line, 1, 200000, 100000);
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_uint (1, 7));
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_str (2, "DAMAGE-ME"));
  ev = planar_test_line_add_event (line, 1, 400000, 100000);
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_str (2, "hello"));
  path = planar_test_write_space (space, dir, "damaged.xplane.pb");
  planar_test_scratch_end ();

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  at = memmem (contents, len, field, sizeof field - 1);
  g_assert_nonnull (at);
  /* Field 5 (str_value) as a 64-bit number. */
  at[0] = 0x29;
  g_file_set_contents (path, contents, (gssize) len, &error);
  g_assert_no_error (error);
  return path;
}

#define HOSTILE_EVENT "\x1b]0;owned\x07"
#define HOSTILE_EVENT_ESCAPED "\\x1b]0;owned\\x07"

/* A profile whose every name tries to drive the terminal: the file name,
 * the hostname, the profiler's error, a line name, event names (an OSC
 * sequence, a C1 CSI, a byte that is not UTF-8) and a string stat.
 * Returns: (transfer full): its path. */
static char *
write_hostile_profile (const char *dir)
{
  XSpace *space;
  XPlane *plane;
  XLine *line;
  XEvent *ev;
  char *path;

  planar_test_scratch_begin ();
  space = planar_test_space_new ();
  PLANAR_TEST_APPEND (space->hostnames, space->n_hostnames, planar_test_keep_str ("host\x1b[31m"));
  PLANAR_TEST_APPEND (space->errors, space->n_errors, planar_test_keep_str ("server said \x1b[2J"));
  planar_test_add_task_environment (space, 1000);
  plane = planar_test_space_add_plane (space, 1, "/host:CPU");
  planar_test_plane_add_stat_metadata (plane, 1, "note");
  planar_test_plane_add_event_metadata (plane, 1, HOSTILE_EVENT, NULL);
  planar_test_plane_add_event_metadata (plane, 2, "c1 \xc2\x9b" "31m and \xff byte", NULL);
  line = planar_test_plane_add_line (plane, 1, "main\x1b[5m", 1000);
  ev = planar_test_line_add_event (line, 1, 0, 100000);
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_str (1, "\x1b]2;title\x07"));
  planar_test_line_add_event (line, 2, 200000, 100000);
  path = planar_test_write_space (space, dir, "evil\x1b[1m.xplane.pb");
  planar_test_scratch_end ();
  return path;
}

/* summary's text shows display names; two rows of a plane with one
 * display name (a kernel named after its fusion, and the XLA op derived
 * from it, as in every JAX GPU profile) show their full names instead. */
static void
test_summary_shared_display (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = NULL;
  const char *summary[] = { "summary", NULL, NULL };
  g_auto(CliResult) r = { 0 };
  XSpace *space;
  XPlane *plane;
  XLine *line;

  planar_test_scratch_begin ();
  space = planar_test_space_new ();
  planar_test_add_task_environment (space, 1000);
  plane = planar_test_space_add_plane (space, 1, "/device:GPU:0");
  planar_test_plane_add_event_metadata (plane, 1, "7/wrapped_tanh", "wrapped_tanh");
  planar_test_plane_add_event_metadata (plane, 2, "wrapped_tanh", NULL);
  planar_test_plane_add_event_metadata (plane, 3, "other", NULL);
  line = planar_test_plane_add_line (plane, 1, "XLA Ops", 1000);
  planar_test_line_add_event (line, 1, 0, 100000);
  line = planar_test_plane_add_line (plane, 2, "Stream #7", 1000);
  planar_test_line_add_event (line, 2, 0, 100000);
  planar_test_line_add_event (line, 3, 200000, 100000);
  path = planar_test_write_space (space, tmp, "gpu.xplane.pb");
  planar_test_scratch_end ();

  summary[1] = path;
  run_cli (summary, &r);
  g_assert_cmpint (r.status, ==, EXIT_OK);
  g_assert_nonnull (strstr (r.out, "  7/wrapped_tanh\n"));
  g_assert_nonnull (strstr (r.out, "  wrapped_tanh\n"));
  /* A display name no other row has stays as it is. */
  g_assert_nonnull (strstr (r.out, "  other\n"));
  remove_tree (tmp);
}

/* summary counts a line of steps (a TPU's Steps line, the Steps and Launch
 * Stats derived for a GPU) in one row named after the line: the step
 * times, not one row a step. */
static void
test_summary_step_lines (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = NULL;
  const char *summary[] = { "summary", "--top", "0", NULL, NULL };
  g_auto(CliResult) r = { 0 };
  XSpace *space;
  XPlane *plane;
  XLine *line;

  planar_test_scratch_begin ();
  space = planar_test_space_new ();
  planar_test_add_task_environment (space, 1000);
  plane = planar_test_space_add_plane (space, 1, "/device:TPU:0");
  planar_test_plane_add_event_metadata (plane, 1, "7", NULL);
  planar_test_plane_add_event_metadata (plane, 2, "8", NULL);
  planar_test_plane_add_event_metadata (plane, 3, "fusion", NULL);
  line = planar_test_plane_add_line (plane, 1, "Steps", 1000);
  planar_test_line_add_event (line, 1, 0, 2000000);
  planar_test_line_add_event (line, 2, 2000000, 4000000);
  line = planar_test_plane_add_line (plane, 2, "XLA Ops", 1000);
  planar_test_line_add_event (line, 3, 0, 1000000);
  path = planar_test_write_space (space, tmp, "tpu.xplane.pb");
  planar_test_scratch_end ();

  summary[3] = path;
  run_cli (summary, &r);
  g_assert_cmpint (r.status, ==, EXIT_OK);
  g_assert_nonnull (strstr (r.out, "3 events, 2 names"));
  g_assert_nonnull (strstr (r.out, "6.000 us          2       3.000 us  Steps\n"));
  g_assert_null (strstr (r.out, "  7\n"));
  g_assert_null (strstr (r.out, "  8\n"));
  remove_tree (tmp);
}

/* No byte that a terminal would act on: C0 controls but newline and tab
 * (the layout's own), DEL, a C1 control in UTF-8, invalid UTF-8. */
static void
assert_terminal_safe (const char *what,
                      const char *text)
{
  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
      g_error ("%s holds the control byte 0x%02x at %" G_GSIZE_FORMAT ": %s", what, *p,
               (gsize) (p - (const guchar *) text), text);
  if (!g_utf8_validate (text, -1, NULL))
    g_error ("%s is not UTF-8: %s", what, text);
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (g_utf8_get_char (p) >= 0x80 && g_utf8_get_char (p) <= 0x9f)
      g_error ("%s holds a C1 control: %s", what, text);
}

/* ------------------------------------------------------------------------ */
/* §7: text output never carries raw terminal escapes */

static void
test_escape_text (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = write_hostile_profile (tmp);
  const char *info[] = { "info", path, NULL };
  const char *summary[] = { "summary", path, NULL };
  const char *events[] = { "events", "--plane", "/host:CPU", "--line", "main\x1b[5m", path, NULL };
  const char *find[] = { "find", path, "owned", NULL };
  const char *find_c1[] = { "find", path, "byte", NULL };
  const char *health[] = { "health", path, NULL };
  const char *missing[] = { "info", "/nonexistent/\x1b]0;x\x07.xplane.pb", NULL };
  const char *events_no_line[] = { "events", "--plane", "/host:CPU", "--line", "\x1b[2J", path, NULL };
  struct
  {
    const char * const *args;
    int                 status;
    const char         *expected;
  } cases[] = {
    { info, EXIT_OK, "host\\x1b[31m" },
    { summary, EXIT_OK, HOSTILE_EVENT_ESCAPED },
    { events, EXIT_OK, "note=\\x1b]2;title\\x07" },
    { find, EXIT_OK, HOSTILE_EVENT_ESCAPED },
    { find_c1, EXIT_OK, "c1 \\xc2\\x9b31m and \\xff byte" },
    /* The profiler's error is a finding. */
    { health, EXIT_FAILURE_ANSWER, "server said \\x1b[2J" },
    { missing, EXIT_BAD_INPUT, NULL },
    { events_no_line, EXIT_BAD_INPUT, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(CliResult) r = { 0 };

      g_test_message ("planar-cli %s", cases[i].args[0]);
      run_cli (cases[i].args, &r);
      if (r.status != cases[i].status)
        g_error ("planar-cli %s exited %d, not %d: %s", cases[i].args[0], r.status, cases[i].status, r.err);
      assert_terminal_safe ("stdout", r.out);
      assert_terminal_safe ("stderr", r.err);
      if (cases[i].expected != NULL && strstr (r.out, cases[i].expected) == NULL)
        g_error ("planar-cli %s does not print %s: %s", cases[i].args[0], cases[i].expected, r.out);
    }

  /* The file name too, where info prints it. */
  {
    g_auto(CliResult) r = { 0 };

    run_cli (info, &r);
    g_assert_nonnull (strstr (r.out, "evil\\x1b[1m.xplane.pb"));
    g_assert_nonnull (strstr (r.out, "main\\x1b[5m"));
    g_assert_nonnull (strstr (r.out, "Error:      server said \\x1b[2J"));
  }

  remove_tree (tmp);
}

/* A server's error details are printed escaped too. */
static void
test_escape_capture (void)
{
  const char *server_path = g_getenv ("PLANAR_TEST_PROFILER_SERVER");
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *xspace = write_hostile_profile (tmp);
  g_autofree char *xspace_arg = g_strdup_printf ("--xspace=%s", xspace);
  g_autofree char *line = NULL;
  g_autofree char *address = NULL;
  g_autoptr(GIOChannel) channel = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(CliResult) r = { 0 };
  const char *server_argv[] = { server_path, "--mode=hostile", xspace_arg, "--idle-ms=8000", NULL };
  GPid pid;
  int out = -1;
  int wait_status;

  g_assert_nonnull (server_path);
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) server_argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                           &pid, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  channel = g_io_channel_unix_new (out);
  g_io_channel_set_close_on_unref (channel, TRUE);
  g_assert_cmpint (g_io_channel_read_line (channel, &line, NULL, NULL, &error), ==, G_IO_STATUS_NORMAL);
  g_assert_true (g_str_has_prefix (line, "PORT "));
  address = g_strdup_printf ("127.0.0.1:%d", atoi (line + 5));

  {
    const char *args[] = { "capture", "--service", address, "--logdir", tmp, "--duration-ms", "100",
                           "--retries", "0", NULL };

    run_cli (args, &r);
  }
  kill (pid, SIGTERM);
  waitpid (pid, &wait_status, 0);
  g_spawn_close_pid (pid);

  /* The host failed: a negative answer. */
  g_assert_cmpint (r.status, ==, EXIT_FAILURE_ANSWER);
  assert_terminal_safe ("stdout", r.out);
  assert_terminal_safe ("stderr", r.err);
  if (strstr (r.err, "the profiler \\x1b]0;owned\\x07 broke \\x1b[2J") == NULL)
    g_error ("capture does not print the server's message escaped: %s", r.err);
  /* "No profile was captured:" and then a line per host, each printed as
   * a line of its own; the server's own newline stays escaped within its
   * host's line, so that its text cannot pass for a line of planar-cli. */
  {
    g_auto(GStrv) lines = g_strsplit (r.err, "\n", -1);
    guint i = 0;

    while (lines[i] != NULL && !g_str_has_prefix (lines[i], "planar-cli: No profile was captured:"))
      i++;
    if (lines[i] == NULL || strcmp (lines[i], "planar-cli: No profile was captured:") != 0 || lines[i + 1] == NULL)
      g_error ("the hosts' reasons are not lines of their own: %s", r.err);
    g_assert_true (g_str_has_prefix (lines[i + 1], "planar-cli:   127.0.0.1:"));
    g_assert_nonnull (strstr (lines[i + 1], "\\x0aplanar-cli: forged line"));
    for (guint k = 0; lines[k] != NULL; k++)
      g_assert_false (g_str_has_prefix (lines[k], "planar-cli: forged"));
  }

  remove_tree (tmp);
}

/* JSON output escapes control characters itself, and stays JSON. */
static void
test_escape_json (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = write_hostile_profile (tmp);
  const char *info[] = { "info", "--json", path, NULL };
  const char *events[] = { "events", "--json", "--plane", "/host:CPU", "--line", "main\x1b[5m", path, NULL };
  const char *find[] = { "find", "--json", path, "owned", NULL };
  const char * const *cases[] = { info, events, find };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(CliResult) r = { 0 };
      g_autoptr(JsonNode) root = NULL;

      run_cli (cases[i], &r);
      g_assert_cmpint (r.status, ==, EXIT_OK);
      assert_terminal_safe ("JSON", r.out);
      root = parse_json (r.out);
      if (i > 0)
        {
          JsonArray *list = member_array (json_node_get_object (root), "events");

          g_assert_cmpstr (member_string (json_array_get_object_element (list, 0), "name"), ==, HOSTILE_EVENT);
        }
    }
  remove_tree (tmp);
}

/* ------------------------------------------------------------------------ */
/* §8: one damaged XStat costs that stat only */

static guint
count_warnings (const char *err)
{
  g_auto(GStrv) lines = g_strsplit (err, "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "planar-cli: warning: "))
      n++;
  return n;
}

/* The one warning line a profile read with losses gives. */
static void
assert_one_loss (const char      *command,
                 const CliResult *r)
{
  if (r->status != EXIT_OK)
    g_error ("planar-cli %s exited %d: %s", command, r->status, r->err);
  if (count_warnings (r->err) != 1 || strstr (r->err, "1 damaged event stat skipped") == NULL)
    g_error ("planar-cli %s: expected one warning about the damaged stat, got: %s", command, r->err);
  g_assert_nonnull (strstr (r->err, "damaged.xplane.pb"));
}

static void
test_damaged_stat (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = write_damaged_profile (tmp);
  g_autofree char *out = g_build_filename (tmp, "out.json", NULL);
  const char *export_args[] = { "export", "-o", out, path, NULL };
  /* A pattern no name matches: the search reads every string stat. */
  const char *find_args[] = { "find", path, "hello", NULL };
  const char *events_args[] = { "events", "--plane", "/host:CPU", "--line", "main", path, NULL };
  const char *info_args[] = { "info", path, NULL };
  const char *info_json_args[] = { "info", "--json", path, NULL };
  const char *health_args[] = { "health", "--json", path, NULL };
  g_auto(CliResult) exported = { 0 };
  g_auto(CliResult) found = { 0 };
  g_auto(CliResult) events = { 0 };
  g_auto(CliResult) info = { 0 };
  g_auto(CliResult) info_json = { 0 };
  g_auto(CliResult) health = { 0 };
  g_autoptr(JsonNode) doc = NULL;
  g_autoptr(JsonNode) info_doc = NULL;
  g_autoptr(JsonNode) health_doc = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *trace_events;
  JsonArray *issues;
  guint n_work = 0;
  gboolean found_issue = FALSE;

  /* export: every event, the damaged one with its sound stat. */
  run_cli (export_args, &exported);
  assert_one_loss ("export", &exported);
  g_file_get_contents (out, &contents, NULL, &error);
  g_assert_no_error (error);
  doc = parse_json (contents);
  trace_events = member_array (json_node_get_object (doc), "traceEvents");
  for (guint i = 0; i < json_array_get_length (trace_events); i++)
    {
      JsonObject *ev = json_array_get_object_element (trace_events, i);

      if (g_strcmp0 (member_string (ev, "ph"), "X") != 0)
        continue;
      n_work++;
      if (n_work == 2)
        {
          JsonObject *args = json_node_get_object (member (ev, "args"));

          g_assert_cmpint (member_int (args, "other"), ==, 7);
          g_assert_false (json_object_has_member (args, "note"));
        }
    }
  g_assert_cmpuint (n_work, ==, 3);

  /* find: the match past the damaged stat. */
  run_cli (find_args, &found);
  assert_one_loss ("find", &found);
  g_assert_nonnull (strstr (found.out, "# 1 match\n"));

  /* events: the sound stat of the damaged event is still printed. */
  run_cli (events_args, &events);
  assert_one_loss ("events", &events);
  g_assert_nonnull (strstr (events.out, "other=7"));
  g_assert_cmpuint (count_lines (events.out), ==, 4);

  /* info says it, in text and in JSON. */
  run_cli (info_args, &info);
  assert_one_loss ("info", &info);
  g_assert_nonnull (strstr (info.out, "Damaged:    1 event stat cannot be read"));
  run_cli (info_json_args, &info_json);
  assert_one_loss ("info --json", &info_json);
  info_doc = parse_json (info_json.out);
  g_assert_cmpint (member_int (json_array_get_object_element (member_array (json_node_get_object (info_doc),
                                                                            "hosts"), 0),
                               "damaged_stats"), ==, 1);

  /* health: a finding, so status 1. */
  run_cli (health_args, &health);
  g_assert_cmpint (health.status, ==, EXIT_FAILURE_ANSWER);
  health_doc = parse_json (health.out);
  issues = member_array (json_node_get_object (health_doc), "issues");
  for (guint i = 0; i < json_array_get_length (issues); i++)
    {
      JsonObject *issue = json_array_get_object_element (issues, i);

      if (g_str_equal (member_string (issue, "kind"), "damaged-stats"))
        {
          found_issue = TRUE;
          g_assert_cmpstr (member_string (issue, "severity"), ==, "warning");
          g_assert_cmpint (member_int (issue, "count"), ==, 1);
          g_assert_nonnull (strstr (member_string (issue, "message"), "at byte"));
        }
    }
  g_assert_true (found_issue);

  remove_tree (tmp);
}

/* ------------------------------------------------------------------------ */
/* §6: where an export may write */

static gboolean
is_chr_device (const char *path)
{
  struct stat st;

  return lstat (path, &st) == 0 && S_ISCHR (st.st_mode);
}

static void
test_export_targets (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = write_damaged_profile (tmp);
  g_autofree char *fifo = g_build_filename (tmp, "fifo.json", NULL);
  g_autofree char *target = g_build_filename (tmp, "target.json", NULL);
  g_autofree char *link = g_build_filename (tmp, "link.json", NULL);
  g_autofree char *regular = g_build_filename (tmp, "regular.json", NULL);
  g_autofree char *folder = g_build_filename (tmp, "folder.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  struct stat st;
  const char *refused[] = { fifo, link, "/dev/null", folder };

  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  g_file_set_contents (target, "keep", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (symlink (target, link), ==, 0);
  g_file_set_contents (regular, "old", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (folder, 0755), ==, 0);
  g_assert_true (is_chr_device ("/dev/null"));

  /* --force replaces regular files only; anything else is refused, and
   * left as it was. */
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      const char *args[] = { "export", "--force", "-o", refused[i], path, NULL };
      g_auto(CliResult) r = { 0 };

      g_test_message ("export --force -o %s", refused[i]);
      run_cli (args, &r);
      assert_bad_input (&r);
      g_assert_nonnull (strstr (r.err, "regular files only"));
    }
  g_assert_cmpint (lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  g_assert_cmpint (lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  g_file_get_contents (target, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, "keep");
  g_clear_pointer (&contents, g_free);
  g_assert_true (is_chr_device ("/dev/null"));
  g_assert_true (g_file_test (folder, G_FILE_TEST_IS_DIR));

  /* A regular file: refused without --force, replaced with it. */
  {
    const char *args[] = { "export", "-o", regular, path, NULL };
    const char *forced[] = { "export", "--force", "-o", regular, path, NULL };
    g_auto(CliResult) r = { 0 };
    g_auto(CliResult) f = { 0 };

    run_cli (args, &r);
    assert_bad_input (&r);
    run_cli (forced, &f);
    g_assert_cmpint (f.status, ==, EXIT_OK);
    g_assert_true (g_str_has_prefix (f.out, "wrote "));
    g_file_get_contents (regular, &contents, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (g_str_has_prefix (contents, "{"));
    g_clear_pointer (&contents, g_free);
  }

  remove_tree (tmp);
}

/* -o -: the document on stdout (Chrome JSON unless told, never gzip), the
 * report on stderr; a Perfetto trace is not written to a terminal. */
static void
test_export_stdout (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = write_damaged_profile (tmp);
  const char *json_args[] = { "export", "-o", "-", path, NULL };
  const char *perfetto_args[] = { "export", "-o", "-", "--format", "perfetto", path, NULL };
  g_auto(CliResult) json = { 0 };
  g_auto(CliResult) perfetto = { 0 };
  g_auto(CliResult) full = { 0 };
  g_auto(CliResult) tty = { 0 };
  g_autoptr(JsonNode) doc = NULL;
  int master, slave;

  run_cli (json_args, &json);
  g_assert_cmpint (json.status, ==, EXIT_OK);
  doc = parse_json (json.out);
  g_assert_cmpuint (json_array_get_length (member_array (json_node_get_object (doc), "traceEvents")), >, 3);
  g_assert_nonnull (strstr (json.err, "wrote standard output (chrome-json, 3 events)"));
  /* The damaged stat's warning, and no file named "-" anywhere. */
  g_assert_cmpuint (count_warnings (json.err), ==, 1);
  g_assert_false (g_file_test ("-", G_FILE_TEST_EXISTS));

  run_cli (perfetto_args, &perfetto);
  g_assert_cmpint (perfetto.status, ==, EXIT_OK);
  g_assert_nonnull (strstr (perfetto.err, "wrote standard output (perfetto, 3 events)"));
  /* A protobuf: it begins with field 1 (TracePacket), length-delimited. */
  g_assert_cmpint ((guchar) perfetto.out[0], ==, 0x0a);

  /* A full disk is an I/O failure. */
  run_cli_disk_full (json_args, &full);
  g_assert_cmpint (full.status, ==, EXIT_IO);
  g_assert_nonnull (strstr (full.err, "cannot write the output"));

  /* A terminal gets no binary trace. */
  slave = planar_test_open_pty (&master);
  run_cli_with_stdout (perfetto_args, slave, &tty);
  close (master);
  g_assert_cmpint (tty.status, ==, EXIT_BAD_INPUT);
  g_assert_nonnull (strstr (tty.err, "terminal"));

  remove_tree (tmp);
}

/* ------------------------------------------------------------------------ */
/* §10: one exit-status table, every command */

typedef struct
{
  const char *what;
  int         status;
  /* Where stdout goes: captured, or /dev/full. */
  gboolean    disk_full;
  const char *args[12];
} StatusCase;

static void
test_exit_statuses (void)
{
  const char *gen = g_getenv ("PLANAR_GEN");
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *good = g_build_filename (tmp, "gen.xplane.pb", NULL);
  g_autofree char *damaged = write_damaged_profile (tmp);
  g_autofree char *not_profile = g_build_filename (tmp, "notes.xplane.pb", NULL);
  g_autofree char *exists = g_build_filename (tmp, "exists.json", NULL);
  g_autofree char *new_out = g_build_filename (tmp, "new.json", NULL);
  g_autofree char *no_dir = g_build_filename (tmp, "no", "such", "folder", "out.json", NULL);
  const char *gen_args[] = { "--events", "500", "--seed", "3", "-o", good, NULL };
  g_auto(CliResult) g = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (gen);
  run_program (gen, gen_args, &g);
  g_assert_cmpint (g.status, ==, 0);
  g_file_set_contents (not_profile, "these are notes, not a profile\n", -1, &error);
  g_assert_no_error (error);
  g_file_set_contents (exists, "{}", -1, &error);
  g_assert_no_error (error);

  {
    const StatusCase cases[] = {
      { "info", EXIT_OK, FALSE, { "info", good } },
      { "info: a profile read with losses", EXIT_OK, FALSE, { "info", damaged } },
      { "info: a missing PATH", EXIT_BAD_INPUT, FALSE, { "info", "/nonexistent/planar" } },
      { "info: not a profile", EXIT_BAD_INPUT, FALSE, { "info", not_profile } },
      { "info: a bad option", EXIT_BAD_INPUT, FALSE, { "info", "--bogus", good } },
      { "info: disk full", EXIT_IO, TRUE, { "info", good } },
      { "info --json: disk full", EXIT_IO, TRUE, { "info", "--json", good } },
      { "summary", EXIT_OK, FALSE, { "summary", good } },
      { "summary: a missing PATH", EXIT_BAD_INPUT, FALSE, { "summary", "/nonexistent/planar" } },
      { "summary: disk full", EXIT_IO, TRUE, { "summary", good } },
      { "summary: an unknown --format", EXIT_BAD_INPUT, FALSE, { "summary", "--format", "xml", good } },
      { "summary: --top below 0", EXIT_BAD_INPUT, FALSE, { "summary", "--top", "-1", good } },
      { "summary --format csv: disk full", EXIT_IO, TRUE, { "summary", "--format", "csv", good } },
      { "summary --json: disk full", EXIT_IO, TRUE, { "summary", "--json", good } },
      { "events", EXIT_OK, FALSE, { "events", "--plane", "/host:CPU", "--line", "python3", good } },
      { "events: no such line", EXIT_BAD_INPUT, FALSE, { "events", "--plane", "/host:CPU", "--line", "nope", good } },
      { "events: disk full", EXIT_IO, TRUE, { "events", "--plane", "/host:CPU", "--line", "python3", good } },
      { "events: a time without a unit", EXIT_BAD_INPUT, FALSE,
        { "events", "--plane", "/host:CPU", "--line", "python3", "--from", "5", good } },
      { "events: --from after --to", EXIT_BAD_INPUT, FALSE,
        { "events", "--plane", "/host:CPU", "--line", "python3", "--from", "2ms", "--to", "1ms", good } },
      { "events: --limit below 0", EXIT_BAD_INPUT, FALSE,
        { "events", "--plane", "/host:CPU", "--line", "python3", "--limit", "-1", good } },
      { "events --format tsv: disk full", EXIT_IO, TRUE,
        { "events", "--plane", "/host:CPU", "--line", "python3", "--format", "tsv", good } },
      { "find", EXIT_OK, FALSE, { "find", good, "a" } },
      { "find: no match", EXIT_FAILURE_ANSWER, FALSE, { "find", good, "no event is named like this" } },
      { "find: a bad pattern", EXIT_BAD_INPUT, FALSE, { "find", "--regex", good, "(" } },
      { "find: not a profile", EXIT_BAD_INPUT, FALSE, { "find", not_profile, "a" } },
      { "find: disk full", EXIT_IO, TRUE, { "find", "--limit", "0", good, "a" } },
      { "find --json: disk full", EXIT_IO, TRUE, { "find", "--json", "--limit", "0", good, "a" } },
      { "find: an unknown --format", EXIT_BAD_INPUT, FALSE, { "find", "--format", "yaml", good, "a" } },
      { "find --format csv: no match", EXIT_FAILURE_ANSWER, FALSE,
        { "find", "--format", "csv", good, "no event is named like this" } },
      { "health: nothing to report", EXIT_OK, FALSE, { "health", good } },
      { "health: findings", EXIT_FAILURE_ANSWER, FALSE, { "health", damaged } },
      { "health: a missing PATH", EXIT_BAD_INPUT, FALSE, { "health", "/nonexistent/planar" } },
      { "health: disk full", EXIT_IO, TRUE, { "health", good } },
      { "export", EXIT_OK, FALSE, { "export", "-o", new_out, good } },
      { "export: OUT exists", EXIT_BAD_INPUT, FALSE, { "export", "-o", exists, good } },
      { "export: an unknown format", EXIT_BAD_INPUT, FALSE, { "export", "--format", "svg", "-o", "-", good } },
      { "export: not a profile", EXIT_BAD_INPUT, FALSE, { "export", "-o", "-", not_profile } },
      { "export: a folder that is not there", EXIT_IO, FALSE, { "export", "-o", no_dir, good } },
      { "export -o -: disk full", EXIT_IO, TRUE, { "export", "-o", "-", good } },
      { "export: a time without a unit", EXIT_BAD_INPUT, FALSE, { "export", "-o", "-", "--from", "3", good } },
      { "export: a filter that matches nothing", EXIT_BAD_INPUT, FALSE,
        { "export", "-o", "-", "--plane", "/no/such/plane", good } },
      { "export: filtered", EXIT_OK, FALSE, { "export", "-o", "-", "--plane", "/host:CPU", "--to", "1ms", good } },
      { "capture: no --service", EXIT_BAD_INPUT, FALSE, { "capture", "--logdir", tmp } },
      { "snapshot: an unknown verb", EXIT_BAD_INPUT, FALSE, { "snapshot", "pause", "--service", "127.0.0.1:1" } },
      { "record: no command", EXIT_BAD_INPUT, FALSE, { "record", "--logdir", tmp } },
      { "an unknown command", EXIT_BAD_INPUT, FALSE, { "frobnicate" } },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_auto(CliResult) r = { 0 };

        g_test_message ("%s", cases[i].what);
        if (cases[i].disk_full)
          run_cli_disk_full (cases[i].args, &r);
        else
          run_cli (cases[i].args, &r);
        if (r.status != cases[i].status)
          g_error ("%s: exited %d, not %d; stderr: %s", cases[i].what, r.status, cases[i].status, r.err);
        if (r.status == EXIT_BAD_INPUT || r.status == EXIT_IO)
          {
            g_assert_true (g_str_has_prefix (r.err, "planar-cli: "));
            if (count_lines (r.err) != 1)
              g_error ("%s: expected one line on stderr, got: %s", cases[i].what, r.err);
          }
      }
  }

  remove_tree (tmp);
}


/* ------------------------------------------------------------------------ */
/* Issue 22 §3: a command line scripts can rely on */

/* A generated profile of @n events in @dir. Returns: (transfer full). */
static char *
generate_profile (const char *dir,
                  const char *name,
                  const char *n)
{
  const char *gen = g_getenv ("PLANAR_GEN");
  char *path = g_build_filename (dir, name, NULL);
  const char *args[] = { "--events", n, "--seed", "3", "-o", path, NULL };
  g_auto(CliResult) g = { 0 };

  g_assert_nonnull (gen);
  run_program (gen, args, &g);
  g_assert_cmpint (g.status, ==, 0);
  return path;
}

static const char *
source_dir (void)
{
  const char *dir = g_getenv ("PLANAR_SOURCE_DIR");

  g_assert_nonnull (dir);
  return dir;
}

/* Every command's help starts with its own usage line, on stdout. */
static void
test_help_usage (void)
{
  static const char * const commands[] = {
    "info", "events", "summary", "find", "capture", "snapshot", "record", "export", "health", "hlo", NULL,
  };

  for (guint i = 0; commands[i] != NULL; i++)
    {
      const char *args[] = { commands[i], "--help", NULL };
      g_auto(CliResult) r = { 0 };
      g_autofree char *prefix = g_strdup_printf ("Usage: planar-cli %s [OPTION…] ", commands[i]);

      run_cli (args, &r);
      g_assert_cmpint (r.status, ==, EXIT_OK);
      g_assert_cmpstr (r.err, ==, "");
      if (!g_str_has_prefix (r.out, prefix))
        g_error ("planar-cli %s --help starts:\n%.80s", commands[i], r.out);
    }
}

static void
test_version (void)
{
  const char *args[] = { "--version", NULL };
  g_auto(CliResult) r = { 0 };
  const char *app = g_getenv ("PLANAR_APP");

  run_cli (args, &r);
  g_assert_cmpint (r.status, ==, EXIT_OK);
  g_assert_true (g_str_has_prefix (r.out, "planar-cli "));
  /* The application answers the same way, without a display. */
  if (app != NULL)
    {
      g_auto(CliResult) a = { 0 };
      g_autofree char *expected = g_strdup_printf ("planar %s", r.out + strlen ("planar-cli "));

      run_program (app, args, &a);
      g_assert_cmpint (a.status, ==, EXIT_OK);
      g_assert_cmpstr (a.out, ==, expected);
    }
}

static JsonObject *
run_json (const char * const *args,
          int                 status,
          JsonNode          **root)
{
  g_auto(CliResult) r = { 0 };
  g_autofree char *joined = g_strjoinv (" ", (char **) args);

  run_cli (args, &r);
  if (r.status != status)
    g_error ("planar-cli %s exited %d, not %d: %s", joined, r.status, status, r.err);
  *root = parse_json (r.out);
  return json_node_get_object (*root);
}

/* planar-cli hlo on a JAX GPU profile with HloProtos: the list of modules,
 * a module's HLO text, one instruction with what it stands for; events
 * --json with the framework op, source, stack and estimated FLOPs of a
 * kernel whose tf_op is only XProf's "XlaModule:" placeholder; exit
 * statuses. */
static void
test_hlo (void)
{
  g_autofree char *path = sample_path ("tracelens_mi300_jax08_attention_tw003.xplane.pb");
  g_autofree char *te = sample_path ("tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb");
  g_autofree char *tmp = NULL, *plain = NULL;
  const char *list[] = { "hlo", path, NULL };
  const char *module[] = { "hlo", "--program-id", "19", path, NULL };
  const char *by_name[] = { "hlo", "--module", "jit__reduce_max", path, NULL };
  const char *op[] = { "hlo", "--program-id", "19", "--op", "custom-call.1", path, NULL };
  const char *op_by_kernel[] = { "hlo", "--program-id", "19", "--op", "custom_call_1", path, NULL };
  const char *events[] = { "events", "--plane", "/device:GPU:0", "--line", "Stream #16(Kernel)", "--limit", "1",
                           "--json", path, NULL };
  const char *te_find[] = { "find", "--json", te, "te_fused_attn_forward_ffi.10", NULL };
  const char *bad[][8] = {
    { "hlo", "--program-id", "19", "--op", "no-such-op.1", path, NULL },
    { "hlo", "--program-id", "999", path, NULL },
    { "hlo", "--module", "jit_nothing", path, NULL },
    { "hlo", "--program-id", "19", "--module", "jit_matmul", path, NULL },
    { "hlo", "--program-id", "-5", path, NULL },
  };
  /* 2 x output elements (8192 x 1024) x the contracted size (1024). */
  const double gemm_flops = 2.0 * 8192 * 1024 * 1024;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *ev;

  if (path == NULL || te == NULL)
    return;

  {
    g_auto(CliResult) r = { 0 };

    run_cli (list, &r);
    g_assert_cmpint (r.status, ==, EXIT_OK);
    g_assert_true (g_str_has_prefix (r.out, "# program_id\tinstructions\tmodule\n"));
    g_assert_nonnull (strstr (r.out, "\n19\t6\tjit_matmul\n"));
    g_assert_nonnull (strstr (r.out, "\n49\t18\tjit__reduce_max\n"));
  }
  {
    g_auto(CliResult) r = { 0 };

    run_cli (module, &r);
    g_assert_cmpint (r.status, ==, EXIT_OK);
    g_assert_nonnull (strstr (r.out, "HloModule jit_matmul\n\nENTRY %main.1 {\n"));
    g_assert_nonnull (strstr (r.out, "\n  %custom-call.1 = (bf16[8192,1024]{1,0}, s8[18874368]{0}) "
                                     "custom-call(%bitcast.4.0, %b.1), custom_call_target=\"__cublas$gemm\""));
    g_assert_nonnull (strstr (r.out, "\n  ROOT %bitcast.5.0 = bf16[4,2048,1024]{2,1,0} bitcast(%get-tuple-element.1)"));
  }
  {
    g_auto(CliResult) r = { 0 };

    /* A fusion prints with its fused computation. */
    run_cli (by_name, &r);
    g_assert_cmpint (r.status, ==, EXIT_OK);
    g_assert_nonnull (strstr (r.out, "\n  %input_reduce_fusion = f32[4,2048]{1,0} fusion(%a.1), kind=kInput, "
                                     "calls=%fused_reduce, metadata={op_name=\"jit(_reduce_max)/reduce_max\""));
    g_assert_nonnull (strstr (r.out, "\n%fused_reduce {\n"));
  }
  {
    g_auto(CliResult) r = { 0 };

    run_cli (op, &r);
    g_assert_cmpint (r.status, ==, EXIT_OK);
    g_assert_cmpstr (r.err, ==, "");
    g_assert_true (g_str_has_prefix (r.out, "%custom-call.1 = (bf16[8192,1024]{1,0}, s8[18874368]{0}) custom-call("));
    g_assert_nonnull (strstr (r.out, "\n# module: jit_matmul (program 19)\n"));
    g_assert_nonnull (strstr (r.out, "\n# framework op: jit(matmul)/dot_general:\n"));
    g_assert_nonnull (strstr (r.out, "\n# source: generate_attention_trace.py:31\n"));
    g_assert_nonnull (strstr (r.out, "\n# stack: /workspace/traces/generate_attention_trace.py:31 transformer_block\n"));
    g_assert_nonnull (strstr (r.out, "\n# flops (estimated): 17179869184\n"));
  }
  {
    /* By the name of its kernel, as XLA names it: the same. */
    g_auto(CliResult) r = { 0 };
    g_auto(CliResult) by_name_r = { 0 };

    run_cli (op, &by_name_r);
    run_cli (op_by_kernel, &r);
    g_assert_cmpint (r.status, ==, EXIT_OK);
    g_assert_cmpstr (r.out, ==, by_name_r.out);
  }

  ev = json_array_get_object_element (json_object_get_array_member (run_json (events, EXIT_OK, &root), "events"), 0);
  /* The kernel's tf_op is "XlaModule:": the HLO's op name is used. */
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (ev, "stats"), "tf_op"), ==,
                   "XlaModule:");
  g_assert_cmpstr (json_object_get_string_member (ev, "framework_op"), ==, "jit(matmul)/dot_general:");
  g_assert_cmpstr (json_object_get_string_member (ev, "source"), ==, "generate_attention_trace.py:31");
  g_assert_cmpstr (json_object_get_string_member (ev, "hlo_module"), ==, "jit_matmul");
  g_assert_cmpstr (json_object_get_string_member (ev, "hlo_instruction"), ==, "custom-call.1");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (ev, "stack")), ==, 3);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (ev, "stack"), 0), ==,
                   "/workspace/traces/generate_attention_trace.py:31 transformer_block");
  g_assert_cmpfloat (json_object_get_double_member (ev, "flops"), ==, gemm_flops);
  g_assert_true (json_object_get_boolean_member (ev, "flops_estimated"));
  /* Operands and result, not the 18 MB workspace. */
  g_assert_cmpfloat (json_object_get_double_member (ev, "bytes_accessed"), ==, 2.0 * (8192 * 1024 * 2 + 1024 * 1024));
  g_assert_true (json_object_get_boolean_member (ev, "bytes_estimated"));
  g_clear_pointer (&root, json_node_unref);

  /* TransformerEngine's attention: no estimate, never a guess; no source
   * file in its metadata: the source is its stack's innermost frame. */
  {
    JsonArray *hits = json_object_get_array_member (run_json (te_find, EXIT_OK, &root), "events");
    guint n_gpu = 0;

    for (guint i = 0; i < json_array_get_length (hits); i++)
      {
        JsonObject *hit = json_array_get_object_element (hits, i);

        if (!g_str_has_prefix (json_object_get_string_member (hit, "plane"), "/device:GPU:"))
          continue;
        n_gpu++;
        g_assert_cmpstr (json_object_get_string_member (hit, "hlo_instruction"), ==, "te_fused_attn_forward_ffi.10");
        g_assert_true (json_object_has_member (hit, "flops"));
        g_assert_true (json_object_get_null_member (hit, "flops"));
        g_assert_cmpstr (json_object_get_string_member (hit, "source"), ==, "attention.py:2680");
        g_assert_cmpuint (json_array_get_length (json_object_get_array_member (hit, "stack")), >, 0);
      }
    g_assert_cmpuint (n_gpu, >, 0);
  }

  /* find matches kernels by their source line and framework op, which
   * only their HLO holds. */
  {
    const char *by_source[] = { "find", "--json", "--limit", "0", path, "generate_attention_trace.py:31", NULL };
    const char *by_op[] = { "find", "--json", "--limit", "0", path, "jit(matmul)/dot_general:", NULL };
    const char * const *finds[] = { by_source, by_op };

    for (guint f = 0; f < G_N_ELEMENTS (finds); f++)
      {
        JsonArray *hits;
        guint n_kernels = 0;

        g_clear_pointer (&root, json_node_unref);
        hits = json_object_get_array_member (run_json (finds[f], EXIT_OK, &root), "events");
        for (guint i = 0; i < json_array_get_length (hits); i++)
          {
            JsonObject *hit = json_array_get_object_element (hits, i);

            if (g_strcmp0 (json_object_get_string_member (hit, "line"), "Stream #16(Kernel)") != 0)
              continue;
            g_assert_cmpstr (json_object_get_string_member (hit, "hlo_module"), ==, "jit_matmul");
            g_assert_cmpstr (json_object_get_string_member (hit, "framework_op"), ==, "jit(matmul)/dot_general:");
            n_kernels++;
          }
        g_assert_cmpuint (n_kernels, >, 0);
      }
  }

  /* summary by framework op: the GEMMs' row with its FLOP rate, over the
   * kernels alone (not again as the derived XLA Ops). */
  {
    const char *summary[] = { "summary", "--json", "--by", "framework-op", "--top", "0", path, NULL };
    JsonArray *hosts, *planes, *top;
    gboolean found = FALSE;

    g_clear_pointer (&root, json_node_unref);
    hosts = json_object_get_array_member (run_json (summary, EXIT_OK, &root), "hosts");
    planes = json_object_get_array_member (json_array_get_object_element (hosts, 0), "planes");
    g_assert_cmpuint (json_array_get_length (planes), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (planes, 0), "name"), ==,
                     "/device:GPU:0");
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (planes, 0), "events"), ==, 105);
    top = json_object_get_array_member (json_array_get_object_element (planes, 0), "top");
    for (guint i = 0; i < json_array_get_length (top); i++)
      {
        JsonObject *row = json_array_get_object_element (top, i);

        if (g_strcmp0 (json_object_get_string_member (row, "name"), "jit(matmul)/dot_general:") != 0)
          continue;
        found = TRUE;
        g_assert_cmpfloat (json_object_get_double_member (row, "flops"), >=, 6 * 2.0 * 8192 * 1024 * 1024);
        g_assert_cmpfloat (json_object_get_double_member (row, "flop_rate"), >, 1e12);
        g_assert_true (json_object_get_boolean_member (row, "estimated"));
      }
    g_assert_true (found);
  }
  {
    const char *bad_by[] = { "summary", "--by", "shape", path, NULL };
    g_auto(CliResult) r = { 0 };

    run_cli (bad_by, &r);
    assert_refused (&r, EXIT_BAD_INPUT);
  }

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_auto(CliResult) r = { 0 };

      run_cli (bad[i], &r);
      assert_refused (&r, EXIT_BAD_INPUT);
    }

  /* A profile without HloProtos: the answer is no. */
  tmp = make_tmp_dir ();
  plain = generate_profile (tmp, "gen.xplane.pb", "300");
  {
    const char *none[] = { "hlo", plain, NULL };
    g_auto(CliResult) r = { 0 };

    run_cli (none, &r);
    g_assert_cmpint (r.status, ==, EXIT_FAILURE_ANSWER);
    g_assert_cmpstr (r.out, ==, "");
    g_assert_nonnull (strstr (r.err, "holds no HLO"));
  }
  remove_tree (tmp);
}

/* --limit 0 is "all" in every command; count is every match, printed
 * what the limit let through. */
static void
test_limit_zero (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = generate_profile (tmp, "gen.xplane.pb", "2000");
  const char *events_all[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--json", path, NULL };
  const char *events_zero[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--json", "--limit", "0",
                                path, NULL };
  const char *events_two[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--json", "--limit", "2",
                               path, NULL };
  const char *find_zero[] = { "find", "--json", "--limit", "0", path, "a", NULL };
  const char *find_two[] = { "find", "--json", "--limit", "2", path, "a", NULL };
  const char *summary_zero[] = { "summary", "--json", "--top", "0", path, NULL };
  const char *summary_one[] = { "summary", "--json", "--top", "1", path, NULL };
  const char *events_negative[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--limit", "-1", path,
                                    NULL };
  g_autoptr(JsonNode) a = NULL, z = NULL, t = NULL, fz = NULL, ft = NULL, sz = NULL, so = NULL;
  JsonObject *all, *zero, *two, *f0, *f2, *s0, *s1;
  gint64 n;

  all = run_json (events_all, EXIT_OK, &a);
  zero = run_json (events_zero, EXIT_OK, &z);
  two = run_json (events_two, EXIT_OK, &t);
  n = member_int (all, "count");
  g_assert_cmpint (n, >, 2);
  g_assert_cmpint (member_int (all, "printed"), ==, n);
  g_assert_cmpint (member_int (zero, "count"), ==, n);
  g_assert_cmpint (member_int (zero, "printed"), ==, n);
  g_assert_cmpuint (json_array_get_length (member_array (zero, "events")), ==, n);
  g_assert_cmpint (member_int (two, "count"), ==, n);
  g_assert_cmpint (member_int (two, "printed"), ==, 2);
  g_assert_cmpuint (json_array_get_length (member_array (two, "events")), ==, 2);

  f0 = run_json (find_zero, EXIT_OK, &fz);
  f2 = run_json (find_two, EXIT_OK, &ft);
  g_assert_cmpint (member_int (f0, "count"), >, 2);
  g_assert_cmpint (member_int (f0, "printed"), ==, member_int (f0, "count"));
  g_assert_cmpint (member_int (f2, "count"), ==, member_int (f0, "count"));
  g_assert_cmpint (member_int (f2, "printed"), ==, 2);

  s0 = run_json (summary_zero, EXIT_OK, &sz);
  s1 = run_json (summary_one, EXIT_OK, &so);
  {
    JsonObject *plane0 = json_array_get_object_element (
      member_array (json_array_get_object_element (member_array (s0, "hosts"), 0), "planes"), 0);
    JsonObject *plane1 = json_array_get_object_element (
      member_array (json_array_get_object_element (member_array (s1, "hosts"), 0), "planes"), 0);

    g_assert_cmpint (member_int (plane0, "count"), >, 1);
    g_assert_cmpint (member_int (plane0, "printed"), ==, member_int (plane0, "count"));
    g_assert_cmpint (member_int (plane1, "count"), ==, member_int (plane0, "count"));
    g_assert_cmpint (member_int (plane1, "printed"), ==, 1);
    g_assert_cmpuint (json_array_get_length (member_array (plane1, "top")), ==, 1);
  }

  {
    g_auto(CliResult) r = { 0 };

    run_cli (events_negative, &r);
    assert_bad_input (&r);
  }
  remove_tree (tmp);
}

/* Every JSON document: format_version 1 (summary's 2, since a line of
 * steps became one row), the session, one line unless --pretty. */
static void
test_json_common (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = generate_profile (tmp, "gen.xplane.pb", "300");
  const char *info[] = { "info", "--json", path, NULL };
  const char *events[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--json", path, NULL };
  const char *events_format[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--format", "json", path,
                                  NULL };
  const char *summary[] = { "summary", "--json", path, NULL };
  const char *find[] = { "find", "--json", path, "a", NULL };
  const char *health[] = { "health", "--json", path, NULL };
  const char * const *cases[] = { info, events, events_format, summary, find, health };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) pretty_args = g_ptr_array_new ();
      g_auto(CliResult) compact = { 0 };
      g_auto(CliResult) pretty = { 0 };
      g_autoptr(JsonNode) root = NULL;
      g_autoptr(JsonNode) pretty_root = NULL;
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autofree char *a = NULL, *b = NULL;
      JsonObject *doc;

      g_test_message ("planar-cli %s", cases[i][0]);
      run_cli (cases[i], &compact);
      g_assert_cmpint (compact.status, <=, EXIT_FAILURE_ANSWER);
      g_assert_cmpuint (count_lines (compact.out), ==, 1);
      root = parse_json (compact.out);
      doc = json_node_get_object (root);
      g_assert_cmpint (member_int (doc, "format_version"), ==, cases[i] == summary ? 2 : 1);
      /* A lone file: its folder names the session. */
      g_assert_cmpstr (member_string (doc, "session"), ==, strrchr (tmp, '/') + 1);
      /* The first keys, in this order. */
      {
        g_autoptr(GList) keys = json_object_get_members (doc);

        g_assert_cmpstr (keys->data, ==, "format_version");
        g_assert_cmpstr (keys->next->data, ==, "session");
      }

      for (guint k = 0; cases[i][k] != NULL; k++)
        g_ptr_array_add (pretty_args, (char *) cases[i][k]);
      g_ptr_array_insert (pretty_args, 1, (char *) "--pretty");
      g_ptr_array_add (pretty_args, NULL);
      run_cli ((const char * const *) pretty_args->pdata, &pretty);
      g_assert_cmpint (pretty.status, ==, compact.status);
      g_assert_cmpuint (count_lines (pretty.out), >, 3);
      pretty_root = parse_json (pretty.out);
      json_generator_set_root (generator, root);
      a = json_generator_to_data (generator, NULL);
      json_generator_set_root (generator, pretty_root);
      b = json_generator_to_data (generator, NULL);
      g_assert_cmpstr (a, ==, b);
    }
  remove_tree (tmp);
}

/* The keys docs/cli.md marks *optional*, of the command last read by
 * documented_keys(). */
static GHashTable *optional_keys;

/* docs/cli.md's tables: "| `path` | type | ..." under "### JSON of `COMMAND`". */
static GHashTable *
documented_keys (const char *command)
{
  g_autofree char *path = g_build_filename (source_dir (), "docs", "cli.md", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *heading = g_strdup_printf ("### JSON of `%s`", command);
  GHashTable *keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) lines = NULL;
  gboolean inside = FALSE;

  g_clear_pointer (&optional_keys, g_hash_table_unref);
  optional_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) cells = NULL;
      char *key;

      if (g_str_has_prefix (lines[i], "#"))
        {
          inside = strcmp (lines[i], heading) == 0;
          continue;
        }
      if (!inside || !g_str_has_prefix (lines[i], "| `"))
        continue;
      cells = g_strsplit (lines[i], "|", -1);
      g_assert_cmpuint (g_strv_length (cells), >=, 4);
      key = g_strstrip (cells[1]);
      g_assert_true (key[0] == '`' && key[strlen (key) - 1] == '`');
      key[strlen (key) - 1] = '\0';
      g_hash_table_insert (keys, g_strdup (key + 1), g_strdup (g_strstrip (cells[2])));
      if (g_strv_length (cells) >= 5 && g_str_has_prefix (g_strstrip (cells[4]), "*optional*"))
        g_hash_table_add (optional_keys, g_strdup (key + 1));
    }
  if (g_hash_table_size (keys) == 0)
    g_error ("docs/cli.md documents no JSON for %s", command);
  return keys;
}

static gboolean
type_matches (const char *documented,
              JsonNode   *node)
{
  g_autofree char *type = g_strdup (documented);
  gboolean nullable = g_str_has_suffix (type, " or null");

  if (nullable)
    type[strlen (type) - strlen (" or null")] = '\0';
  if (JSON_NODE_HOLDS_NULL (node))
    return nullable;
  if (JSON_NODE_HOLDS_OBJECT (node))
    return strcmp (type, "object") == 0 || g_str_has_prefix (type, "map");
  if (JSON_NODE_HOLDS_ARRAY (node))
    return strcmp (type, "array") == 0;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return strcmp (type, "integer") == 0 || strcmp (type, "number") == 0;
    case G_TYPE_DOUBLE:
      return strcmp (type, "number") == 0;
    case G_TYPE_BOOLEAN:
      return strcmp (type, "boolean") == 0;
    case G_TYPE_STRING:
      return strcmp (type, "string") == 0;
    default:
      return FALSE;
    }
}

/* Checks @node at @path and everything under it against @keys, adding
 * each path met to @seen. */
static void
check_documented (GHashTable *keys,
                  GHashTable *seen,
                  const char *command,
                  const char *path,
                  JsonNode   *node)
{
  const char *type = path[0] != '\0' ? g_hash_table_lookup (keys, path) : "object";

  /* The elements of an array of objects need no row of their own: their
   * keys have one each. */
  if (type == NULL && g_str_has_suffix (path, "[]") && JSON_NODE_HOLDS_OBJECT (node))
    type = "object";
  if (type == NULL)
    g_error ("%s --json: key %s is not in docs/cli.md", command, path);
  if (!type_matches (type, node))
    g_error ("%s --json: %s is not of the documented type %s", command, path, type);
  g_hash_table_add (seen, g_strdup (path));
  if (g_str_has_prefix (type, "map"))
    {
      /* Data as keys: "map of integer" says what each value is. */
      if (g_str_has_prefix (type, "map of "))
        {
          g_autoptr(GList) members = json_object_get_members (json_node_get_object (node));

          for (GList *l = members; l != NULL; l = l->next)
            g_assert_true (type_matches (type + strlen ("map of "),
                                         json_object_get_member (json_node_get_object (node), l->data)));
        }
      return;
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autoptr(GList) members = json_object_get_members (json_node_get_object (node));

      for (GList *l = members; l != NULL; l = l->next)
        {
          g_autofree char *child = path[0] != '\0' ? g_strdup_printf ("%s.%s", path, (char *) l->data)
                                                   : g_strdup (l->data);

          check_documented (keys, seen, command, child, json_object_get_member (json_node_get_object (node), l->data));
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      g_autofree char *child = g_strdup_printf ("%s[]", path);

      for (guint i = 0; i < json_array_get_length (array); i++)
        check_documented (keys, seen, command, child, json_array_get_element (array, i));
    }
}

/* Each command's JSON, key by key, as docs/cli.md documents it, and no
 * documented key that is never there (but those marked optional). */
static void
test_json_documented (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = generate_profile (tmp, "gen.xplane.pb", "300");
  g_autofree char *hostile = write_hostile_profile (tmp);
  const char *info[] = { "info", "--json", path, NULL };
  const char *events[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--json", path, NULL };
  const char *summary[] = { "summary", "--json", path, NULL };
  const char *find[] = { "find", "--json", path, "a", NULL };
  const char *health[] = { "health", "--json", path, NULL };
  const char *health_findings[] = { "health", "--json", hostile, NULL };
  const char *jax = g_getenv ("PLANAR_SAMPLES_DIR");
  g_autofree char *jax_path = jax != NULL ? g_build_filename (jax, "tracelens_mi300_jax08_attention_tw003.xplane.pb", NULL)
                                          : NULL;
  gboolean have_jax = jax_path != NULL && g_file_test (jax_path, G_FILE_TEST_EXISTS);
  const char *gpu_events[] = { "events", "--plane", "/device:GPU:0", "--line", "Stream #16(Kernel)", "--json",
                               jax_path, NULL };
  const char *gpu_find[] = { "find", "--json", jax_path, "dot_general", NULL };
  const char *gpu_summary[] = { "summary", "--json", "--by", "framework-op", jax_path, NULL };
  struct
  {
    const char         *command;
    const char * const *args;
    int                 status;
  } cases[] = {
    { "info", info, EXIT_OK },
    { "events", events, EXIT_OK },
    { "summary", summary, EXIT_OK },
    { "find", find, EXIT_OK },
    { "health", health, EXIT_OK },
    { "health", health_findings, EXIT_FAILURE_ANSWER },
    /* A JAX GPU profile with HloProtos: the HLO's keys (skipped below
     * without the samples). */
    { "events", gpu_events, EXIT_OK },
    { "find", gpu_find, EXIT_OK },
    { "summary", gpu_summary, EXIT_OK },
  };
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GHashTable) keys = NULL;
      g_autoptr(JsonNode) root = NULL;
      GHashTableIter iter;
      gpointer key;

      if ((cases[i].args == gpu_events || cases[i].args == gpu_find || cases[i].args == gpu_summary) && !have_jax)
        continue;
      keys = documented_keys (cases[i].command);

      run_json (cases[i].args, cases[i].status, &root);
      if (i == 0 || strcmp (cases[i].command, cases[i - 1].command) != 0)
        g_hash_table_remove_all (seen);
      check_documented (keys, seen, cases[i].command, "", root);
      /* Documented keys that the profiles above do not make (an import's
       * report, a derived line's flag) are marked optional. */
      if (i + 1 < G_N_ELEMENTS (cases) && strcmp (cases[i].command, cases[i + 1].command) == 0)
        continue;
      g_hash_table_iter_init (&iter, keys);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        {
          g_autofree char *row = NULL;

          if (g_hash_table_contains (seen, key))
            continue;
          if (g_str_has_prefix (key, "hosts[].import") || strcmp (key, "hosts[].planes[].lines[].derived") == 0)
            continue;
          /* What only some events carry (the HLO's keys) is marked
           * optional, and checked on the samples when they are there. */
          if (g_hash_table_contains (optional_keys, key))
            continue;
          g_error ("%s --json: docs/cli.md documents %s, which the output does not have", cases[i].command,
                   (char *) key);
        }
    }
  remove_tree (tmp);
}

/* --format csv|tsv|json|text for summary, events and find; --json is json. */
static void
test_formats (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = generate_profile (tmp, "gen.xplane.pb", "300");
  static const char * const formats[] = { "text", "tsv", "csv", "json", NULL };

  for (guint f = 0; formats[f] != NULL; f++)
    {
      const char *summary[] = { "summary", "--format", formats[f], path, NULL };
      const char *events[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--format", formats[f], path,
                               NULL };
      const char *find[] = { "find", "--format", formats[f], path, "a", NULL };
      const char * const *cases[] = { summary, events, find };

      for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
        {
          g_auto(CliResult) r = { 0 };
          g_auto(GStrv) lines = NULL;

          g_test_message ("planar-cli %s --format %s", cases[i][0], formats[f]);
          run_cli (cases[i], &r);
          g_assert_cmpint (r.status, ==, EXIT_OK);
          g_assert_cmpstr (r.err, ==, "");
          lines = g_strsplit (r.out, "\n", -1);
          if (strcmp (formats[f], "json") == 0)
            {
              g_autoptr(JsonNode) root = parse_json (r.out);
            }
          else if (strcmp (formats[f], "tsv") == 0 || strcmp (formats[f], "csv") == 0)
            {
              const char *sep = strcmp (formats[f], "tsv") == 0 ? "\t" : ",";
              g_auto(GStrv) header = g_strsplit (lines[0], sep, -1);

              /* A header of names, then rows as wide as it. */
              g_assert_cmpuint (g_strv_length (header), >=, 5);
              g_assert_nonnull (strstr (lines[0], "start_ps") != NULL ? lines[0] : strstr (lines[0], "self_ps"));
              g_assert_cmpuint (count_lines (r.out), >, 1);
              for (guint l = 1; lines[l] != NULL && lines[l][0] != '\0'; l++)
                if (strcmp (sep, "\t") == 0)
                  {
                    g_auto(GStrv) fields = g_strsplit (lines[l], sep, -1);

                    g_assert_cmpuint (g_strv_length (fields), ==, g_strv_length (header));
                  }
            }
        }
    }

  {
    const char *bad[] = { "summary", "--format", "xml", path, NULL };
    const char *contradiction[] = { "find", "--json", "--format", "csv", path, "a", NULL };
    g_auto(CliResult) r = { 0 };
    g_auto(CliResult) c = { 0 };

    run_cli (bad, &r);
    assert_bad_input (&r);
    run_cli (contradiction, &c);
    assert_bad_input (&c);
  }
  remove_tree (tmp);
}

/* CSV fields are quoted as RFC 4180 says; TSV fields have control
 * characters, tab and newline escaped. */
static void
test_format_escaping (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = NULL;
  XSpace *space;
  XPlane *plane;
  XLine *line;

  planar_test_scratch_begin ();
  space = planar_test_space_new ();
  planar_test_add_task_environment (space, 1000);
  plane = planar_test_space_add_plane (space, 1, "/host:CPU");
  planar_test_plane_add_event_metadata (plane, 1, "say \"hi\", then\nleave\tnow", NULL);
  line = planar_test_plane_add_line (plane, 1, "main", 1000);
  planar_test_line_add_event (line, 1, 0, 100000);
  path = planar_test_write_space (space, tmp, "quotes.xplane.pb");
  planar_test_scratch_end ();

  {
    const char *csv[] = { "find", "--format", "csv", path, "say", NULL };
    const char *tsv[] = { "find", "--format", "tsv", path, "say", NULL };
    g_auto(CliResult) c = { 0 };
    g_auto(CliResult) t = { 0 };

    run_cli (csv, &c);
    g_assert_cmpint (c.status, ==, EXIT_OK);
    g_assert_nonnull (strstr (c.out, ",\"say \"\"hi\"\", then\nleave\tnow\","));
    run_cli (tsv, &t);
    g_assert_cmpint (t.status, ==, EXIT_OK);
    g_assert_nonnull (strstr (t.out, "\tsay \"hi\", then\\x0aleave\\x09now\t"));
    /* A header and one row. */
    g_assert_cmpuint (count_lines (t.out), ==, 2);
  }
  remove_tree (tmp);
}

/* --from/--to take a unit, as Go to Time reads it; a bare number is
 * refused with a hint. */
static void
test_time_units (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = generate_profile (tmp, "gen.xplane.pb", "2000");
  const char *bare[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--from", "5", path, NULL };
  const char *export_bare[] = { "export", "-o", "-", "--to", "12", path, NULL };
  const char *units[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--json", "--from", "1.5ms",
                          "--to", "0:00.004", path, NULL };
  const char *ps[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--json", "--from-ps", "1500000000",
                       "--to-ps", "4000000000", path, NULL };
  const char *both[] = { "events", "--plane", "/host:CPU", "--line", "python3", "--from", "1ms", "--from-ps", "1",
                         path, NULL };
  g_auto(CliResult) r = { 0 };
  g_auto(CliResult) e = { 0 };
  g_auto(CliResult) b = { 0 };
  g_autoptr(JsonNode) a = NULL;
  g_autoptr(JsonNode) p = NULL;

  run_cli (bare, &r);
  assert_bad_input (&r);
  g_assert_nonnull (strstr (r.err, "unit"));
  g_assert_nonnull (strstr (r.err, "5ms"));
  run_cli (export_bare, &e);
  assert_bad_input (&e);
  g_assert_nonnull (strstr (e.err, "unit"));
  run_cli (both, &b);
  assert_bad_input (&b);

  g_assert_cmpint (member_int (run_json (units, EXIT_OK, &a), "count"), ==,
                   member_int (run_json (ps, EXIT_OK, &p), "count"));
  remove_tree (tmp);
}

static JsonArray *
chrome_events (const char *text,
               JsonNode  **root)
{
  *root = parse_json (text);
  return member_array (json_node_get_object (*root), "traceEvents");
}

/* export --host/--plane/--line and --from/--to keep what they name. */
static void
test_export_filters (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = generate_profile (tmp, "gen.xplane.pb", "3000");
  const char *all[] = { "export", "-o", "-", path, NULL };
  const char *line[] = { "export", "-o", "-", "--plane", "/host:CPU", "--line", "pjrt_thread", path, NULL };
  const char *window[] = { "export", "-o", "-", "--plane", "/host:CPU", "--line", "pjrt_thread", "--from", "10ms",
                           "--to", "30ms", path, NULL };
  const char *events_window[] = { "events", "--plane", "/host:CPU", "--line", "pjrt_thread", "--json", "--from",
                                  "10ms", "--to", "30ms", path, NULL };
  /* Two lines of /host:CPU are named python3: --line keeps both. */
  const char *both[] = { "export", "-o", "-", "--plane", "/host:CPU", "--line", "python3", path, NULL };
  const char *host[] = { "export", "-o", "-", "--host", "gen", path, NULL };
  const char *no_host[] = { "export", "-o", "-", "--host", "elsewhere", path, NULL };
  const char *no_line[] = { "export", "-o", "-", "--line", "no such line", path, NULL };
  g_auto(CliResult) ra = { 0 }, rl = { 0 }, rw = { 0 }, rh = { 0 }, rn = { 0 }, rnl = { 0 };
  g_autoptr(JsonNode) na = NULL, nl = NULL, nw = NULL, nh = NULL, ne = NULL;
  JsonArray *ea, *el, *ew, *eh;
  guint x_all = 0, x_line = 0, x_window = 0, x_host = 0, processes = 0;

  run_cli (all, &ra);
  run_cli (line, &rl);
  run_cli (window, &rw);
  run_cli (host, &rh);
  g_assert_cmpint (ra.status, ==, EXIT_OK);
  g_assert_cmpint (rl.status, ==, EXIT_OK);
  g_assert_cmpint (rw.status, ==, EXIT_OK);
  g_assert_cmpint (rh.status, ==, EXIT_OK);
  ea = chrome_events (ra.out, &na);
  el = chrome_events (rl.out, &nl);
  ew = chrome_events (rw.out, &nw);
  eh = chrome_events (rh.out, &nh);
  for (guint i = 0; i < json_array_get_length (ea); i++)
    x_all += g_strcmp0 (json_object_get_string_member (json_array_get_object_element (ea, i), "ph"), "X") == 0;
  for (guint i = 0; i < json_array_get_length (eh); i++)
    x_host += g_strcmp0 (json_object_get_string_member (json_array_get_object_element (eh, i), "ph"), "X") == 0;
  for (guint i = 0; i < json_array_get_length (el); i++)
    {
      JsonObject *ev = json_array_get_object_element (el, i);
      const char *ph = json_object_get_string_member (ev, "ph");

      if (strcmp (ph, "X") == 0)
        {
          x_line++;
          g_assert_cmpint (json_object_get_int_member (ev, "tid"), ==,
                           json_object_get_int_member (json_array_get_object_element (el, 3), "tid"));
        }
      else if (strcmp (ph, "M") == 0 && strcmp (json_object_get_string_member (ev, "name"), "process_name") == 0)
        {
          processes++;
          g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (ev, "args"), "name"), ==,
                           "/host:CPU");
        }
    }
  for (guint i = 0; i < json_array_get_length (ew); i++)
    {
      JsonObject *ev = json_array_get_object_element (ew, i);

      if (strcmp (json_object_get_string_member (ev, "ph"), "X") == 0)
        {
          double ts = json_object_get_double_member (ev, "ts");
          double dur = json_object_get_double_member (ev, "dur");

          x_window++;
          /* Overlaps [10 ms, 30 ms], in microseconds. */
          g_assert_cmpfloat (ts, <=, 30000.0);
          g_assert_cmpfloat (ts + dur, >=, 10000.0);
        }
    }
  g_assert_cmpuint (processes, ==, 1);
  g_assert_cmpuint (x_line, >, 0);
  g_assert_cmpuint (x_line, <, x_all);
  g_assert_cmpuint (x_window, >, 0);
  g_assert_cmpuint (x_window, <, x_line);
  g_assert_cmpuint (x_host, ==, x_all);
  /* The same events as `events` selects in that window. */
  g_assert_cmpint (x_window, ==, member_int (run_json (events_window, EXIT_OK, &ne), "count"));
  {
    g_autofree char *wrote = g_strdup_printf ("wrote standard output (chrome-json, %u events)", x_window);

    g_assert_nonnull (strstr (rw.err, wrote));
  }

  {
    g_auto(CliResult) rb = { 0 };
    g_autoptr(JsonNode) nb = NULL;
    g_autoptr(GHashTable) tids = g_hash_table_new (g_direct_hash, g_direct_equal);
    JsonArray *eb;

    run_cli (both, &rb);
    g_assert_cmpint (rb.status, ==, EXIT_OK);
    eb = chrome_events (rb.out, &nb);
    for (guint i = 0; i < json_array_get_length (eb); i++)
      {
        JsonObject *ev = json_array_get_object_element (eb, i);

        if (strcmp (json_object_get_string_member (ev, "ph"), "X") == 0)
          g_hash_table_add (tids, GINT_TO_POINTER ((int) json_object_get_int_member (ev, "tid")));
      }
    g_assert_cmpuint (g_hash_table_size (tids), ==, 2);
  }

  run_cli (no_host, &rn);
  assert_bad_input (&rn);
  run_cli (no_line, &rnl);
  assert_bad_input (&rnl);
  remove_tree (tmp);
}

/* A counter line exports as counters: Chrome "C" events, Perfetto counter
 * tracks with TYPE_COUNTER samples; not as slices. */
static void
test_export_counters (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *source = g_build_filename (tmp, "counters.json", NULL);
  g_autofree char *pftrace = g_build_filename (tmp, "out.pftrace", NULL);
  g_autoptr(GError) error = NULL;
  const char *chrome[] = { "export", "-o", "-", source, NULL };
  const char *perfetto[] = { "export", "-o", pftrace, source, NULL };
  g_auto(CliResult) rc = { 0 };
  g_auto(CliResult) rp = { 0 };
  g_autoptr(JsonNode) root = NULL;
  JsonArray *events;
  guint n_c = 0, n_x = 0;

  g_file_set_contents (source,
                       "{\"traceEvents\":["
                       "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"work\"},"
                       "{\"ph\":\"C\",\"pid\":1,\"ts\":1,\"name\":\"mem\",\"args\":{\"used\":10,\"free\":2.5}},"
                       "{\"ph\":\"C\",\"pid\":1,\"ts\":3,\"name\":\"mem\",\"args\":{\"used\":30,\"free\":0.5}}"
                       "]}", -1, &error);
  g_assert_no_error (error);

  run_cli (chrome, &rc);
  g_assert_cmpint (rc.status, ==, EXIT_OK);
  events = chrome_events (rc.out, &root);
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member (ev, "ph");

      if (strcmp (ph, "C") == 0)
        {
          JsonObject *args = json_object_get_object_member (ev, "args");

          n_c++;
          g_assert_cmpuint (json_object_get_size (args), >=, 1);
        }
      else if (strcmp (ph, "X") == 0)
        {
          n_x++;
          g_assert_cmpstr (json_object_get_string_member (ev, "name"), ==, "work");
        }
    }
  g_assert_cmpuint (n_c, ==, 2);
  g_assert_cmpuint (n_x, ==, 1);

  run_cli (perfetto, &rp);
  g_assert_cmpint (rp.status, ==, EXIT_OK);
  {
    g_autofree char *contents = NULL;
    gsize len = 0, at = 0;
    guint counter_tracks = 0, samples = 0, slices = 0;

    g_file_get_contents (pftrace, &contents, &len, &error);
    g_assert_no_error (error);
    /* Trace: repeated field 1, each a TracePacket. */
    while (at < len)
      {
        guint64 size = 0;
        guint shift = 0;
        Perfetto__Protos__TracePacket *packet;

        g_assert_cmpint ((guchar) contents[at], ==, 0x0a);
        at++;
        while (at < len && (contents[at] & 0x80))
          size |= (guint64) (contents[at++] & 0x7f) << shift, shift += 7;
        size |= (guint64) (contents[at++] & 0x7f) << shift;
        packet = perfetto__protos__trace_packet__unpack (NULL, size, (const uint8_t *) contents + at);
        g_assert_nonnull (packet);
        at += size;
        if (packet->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR &&
            packet->track_descriptor->counter != NULL)
          counter_tracks++;
        if (packet->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT)
          {
            if (packet->track_event->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER)
              {
                samples++;
                g_assert_true (packet->track_event->has_double_counter_value);
              }
            else if (packet->track_event->type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END)
              slices++;
          }
        perfetto__protos__trace_packet__free_unpacked (packet, NULL);
      }
    /* "mem used" and "mem free", two samples each; the one slice. */
    g_assert_cmpuint (counter_tracks, ==, 2);
    g_assert_cmpuint (samples, ==, 4);
    g_assert_cmpuint (slices, ==, 1);
  }
  remove_tree (tmp);
}

/* Runs planar-cli with standard error on a terminal (a pty) and standard
 * output captured; @result->err gets what the terminal showed. */
static void
run_cli_stderr_tty (const char * const *args,
                    CliResult          *result)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (char *) cli_path ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  result->status = planar_test_spawn_stderr_tty ((const char * const *) argv->pdata, &result->out, &result->err);
}

/* Progress on stderr when it is a terminal, nothing when it is not. */
static void
test_progress_tty (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *path = generate_profile (tmp, "gen.xplane.pb", "2000");
  g_autofree char *out = g_build_filename (tmp, "out.json", NULL);
  const char *info[] = { "info", path, NULL };
  const char *export[] = { "export", "-o", out, path, NULL };
  g_auto(CliResult) tty = { 0 };
  g_auto(CliResult) pipe = { 0 };
  g_auto(CliResult) export_tty = { 0 };

  run_cli_stderr_tty (info, &tty);
  g_assert_cmpint (tty.status, ==, EXIT_OK);
  g_assert_nonnull (strstr (tty.err, "loading"));
  /* The line is taken back: stdout alone holds the answer. */
  g_assert_nonnull (strstr (tty.out, "Host gen"));
  g_assert_null (strstr (tty.out, "loading"));

  run_cli (info, &pipe);
  g_assert_cmpint (pipe.status, ==, EXIT_OK);
  g_assert_cmpstr (pipe.err, ==, "");
  g_assert_cmpstr (pipe.out, ==, tty.out);

  run_cli_stderr_tty (export, &export_tty);
  g_assert_cmpint (export_tty.status, ==, EXIT_OK);
  g_assert_nonnull (strstr (export_tty.err, "loading"));
  remove_tree (tmp);
}

static guint
count_files_with_suffix (const char *dir,
                         const char *suffix)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    n += g_str_has_suffix (name, suffix);
  return n;
}

/* Runs planar-cli with @env; it must exit 0. */
static void
run_cli_env (const char * const *args,
             char              **env)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, (char *) cli_path ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &wait_status, &error);
  g_assert_no_error (error);
  if (!WIFEXITED (wait_status) || WEXITSTATUS (wait_status) != 0)
    g_error ("planar-cli %s failed: %s", args[0], err);
}

/* planar-cli writes the cached index only on a file's second read, and
 * --no-cache neither reads, writes nor marks one (docs/cli.md, "The cached
 * index"). */
static void
test_cache_rule (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *cache = g_build_filename (tmp, "cache", NULL);
  g_autofree char *path = generate_profile (tmp, "gen.xplane.pb", "2000");
  g_autofree char *other = generate_profile (tmp, "other.xplane.pb", "500");
  g_auto(GStrv) env = g_get_environ ();
  const char *info[] = { "info", path, NULL };
  const char *info_no_cache[] = { "info", "--no-cache", other, NULL };
  const char *info_other[] = { "info", other, NULL };
  g_autofree char *canonical = g_canonicalize_filename (other, NULL);
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical, -1);
  g_autofree char *other_index = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  static const char garbage[] = "not an index";

  env = g_environ_setenv (env, "PLANAR_CACHE", "1", TRUE);
  env = g_environ_setenv (env, "PLANAR_CACHE_DIR", cache, TRUE);

  /* First read: a marker and no index; second: the index, no marker. */
  run_cli_env (info, env);
  g_assert_cmpuint (count_files_with_suffix (cache, ".planar-index"), ==, 0);
  g_assert_cmpuint (count_files_with_suffix (cache, ".planar-cli-seen"), ==, 1);
  run_cli_env (info, env);
  g_assert_cmpuint (count_files_with_suffix (cache, ".planar-index"), ==, 1);
  g_assert_cmpuint (count_files_with_suffix (cache, ".planar-cli-seen"), ==, 0);

  /* --no-cache, twice: nothing written, nothing marked. */
  run_cli_env (info_no_cache, env);
  run_cli_env (info_no_cache, env);
  g_assert_cmpuint (count_files_with_suffix (cache, ".planar-index"), ==, 1);
  g_assert_cmpuint (count_files_with_suffix (cache, ".planar-cli-seen"), ==, 0);

  /* Nothing read either: a damaged index of the file stays as it is
   * with --no-cache; a plain read finds it, drops it and writes a sound
   * one (the file has an index: reading it again pays). */
  digest[32] = '\0';
  other_index = g_strdup_printf ("%s/%s.planar-index", cache, digest);
  g_file_set_contents (other_index, garbage, -1, &error);
  g_assert_no_error (error);
  run_cli_env (info_no_cache, env);
  g_file_get_contents (other_index, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, garbage);
  run_cli_env (info_other, env);
  g_clear_pointer (&contents, g_free);
  g_file_get_contents (other_index, &contents, NULL, NULL);
  g_assert_cmpstr (contents, !=, garbage);
  remove_tree (tmp);
}

/* Every command and option of --help is in planar-cli(1); planar(1) has
 * planar's options. */
static void
test_man_pages (void)
{
  g_autofree char *cli_page = g_build_filename (source_dir (), "docs", "man", "planar-cli.1", NULL);
  g_autofree char *app_page = g_build_filename (source_dir (), "docs", "man", "planar.1", NULL);
  g_autofree char *cli_text = NULL;
  g_autofree char *app_text = NULL;
  g_autoptr(GError) error = NULL;
  static const char * const commands[] = {
    "info", "events", "summary", "find", "capture", "snapshot", "record", "export", "health", NULL,
  };

  g_file_get_contents (cli_page, &cli_text, NULL, &error);
  g_assert_no_error (error);
  g_file_get_contents (app_page, &app_text, NULL, &error);
  g_assert_no_error (error);
  /* roff writes a minus as "\-". */
  {
    g_autoptr(GString) plain = g_string_new (cli_text);

    g_string_replace (plain, "\\-", "-", 0);
    g_free (cli_text);
    cli_text = g_string_free (g_steal_pointer (&plain), FALSE);
  }
  {
    g_autoptr(GString) plain = g_string_new (app_text);

    g_string_replace (plain, "\\-", "-", 0);
    g_free (app_text);
    app_text = g_string_free (g_steal_pointer (&plain), FALSE);
  }
  g_assert_nonnull (strstr (cli_text, "--version"));
  g_assert_nonnull (strstr (app_text, "--version"));

  for (guint i = 0; commands[i] != NULL; i++)
    {
      const char *args[] = { commands[i], "--help", NULL };
      g_auto(CliResult) r = { 0 };
      g_auto(GStrv) lines = NULL;
      g_autofree char *heading = g_strdup_printf ("\n.SS %s\n", commands[i]);
      const char *start = strstr (cli_text, heading);
      const char *next_ss, *next_sh;
      g_autofree char *section = NULL;

      /* The command's own section, up to the next one. */
      if (start == NULL)
        g_error ("planar-cli.1 has no section for %s", commands[i]);
      start += strlen (heading);
      next_ss = strstr (start, "\n.SS ");
      next_sh = strstr (start, "\n.SH ");
      if (next_ss == NULL || (next_sh != NULL && next_sh < next_ss))
        next_ss = next_sh;
      section = next_ss != NULL ? g_strndup (start, next_ss - start) : g_strdup (start);
      run_cli (args, &r);
      g_assert_cmpint (r.status, ==, EXIT_OK);
      lines = g_strsplit (r.out, "\n", -1);
      for (guint l = 0; lines[l] != NULL; l++)
        {
          const char *p = lines[l];
          const char *end;
          g_autofree char *option = NULL;

          while (*p == ' ')
            p++;
          if (g_str_has_prefix (p, "-") && !g_str_has_prefix (p, "--") && p[2] == ',')
            p += 4;
          if (!g_str_has_prefix (p, "--"))
            continue;
          for (end = p; *end != '\0' && *end != ' ' && *end != '='; end++)
            ;
          option = g_strndup (p, end - p);
          if (strcmp (option, "--help") == 0)
            continue;
          if (strstr (section, option) == NULL)
            g_error ("planar-cli.1 does not mention %s %s in its section", commands[i], option);
        }
    }
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
  g_test_add_func ("/cli/summary-shared-display", test_summary_shared_display);
  g_test_add_func ("/cli/summary-step-lines", test_summary_step_lines);
  g_test_add_func ("/cli/events-missing", test_events_missing);
  g_test_add_func ("/cli/no-profile", test_no_profile);
  g_test_add_func ("/cli/riegeli-only", test_riegeli_only);
  g_test_add_func ("/cli/generated", test_generated);
  g_test_add_func ("/cli/health", test_health);
  g_test_add_func ("/cli/no-arguments", test_no_arguments);
  g_test_add_func ("/cli/info-hosts-far-apart", test_info_hosts_far_apart);
  g_test_add_func ("/cli/info-losses", test_info_losses);
  g_test_add_func ("/cli/cut-generated", test_cut_generated);
  g_test_add_func ("/cli/escape-text", test_escape_text);
  g_test_add_func ("/cli/escape-json", test_escape_json);
  g_test_add_func ("/cli/escape-capture", test_escape_capture);
  g_test_add_func ("/cli/damaged-stat", test_damaged_stat);
  g_test_add_func ("/cli/export-targets", test_export_targets);
  g_test_add_func ("/cli/export-stdout", test_export_stdout);
  g_test_add_func ("/cli/exit-statuses", test_exit_statuses);
  g_test_add_func ("/cli/help-usage", test_help_usage);
  g_test_add_func ("/cli/version", test_version);
  g_test_add_func ("/cli/limit-zero", test_limit_zero);
  g_test_add_func ("/cli/json-common", test_json_common);
  g_test_add_func ("/cli/json-documented", test_json_documented);
  g_test_add_func ("/cli/formats", test_formats);
  g_test_add_func ("/cli/format-escaping", test_format_escaping);
  g_test_add_func ("/cli/time-units", test_time_units);
  g_test_add_func ("/cli/export-filters", test_export_filters);
  g_test_add_func ("/cli/export-counters", test_export_counters);
  g_test_add_func ("/cli/progress-tty", test_progress_tty);
  g_test_add_func ("/cli/cache-rule", test_cache_rule);
  g_test_add_func ("/cli/man-pages", test_man_pages);
  g_test_add_func ("/cli/hlo", test_hlo);

  return g_test_run ();
}
