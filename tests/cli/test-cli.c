/* test-cli.c: planar-cli as a user and a script see it: exit statuses,
 * what goes to stdout and stderr, and the events it selects.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-test-xspace.h"
#include "planar-test-samples.h"
#include "xplane.pb-c.h"

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
  master = posix_openpt (O_RDWR | O_NOCTTY);
  g_assert_cmpint (master, >=, 0);
  g_assert_cmpint (grantpt (master), ==, 0);
  g_assert_cmpint (unlockpt (master), ==, 0);
  slave = open (ptsname (master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  g_assert_cmpint (slave, >=, 0);
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
      { "summary --json: disk full", EXIT_IO, TRUE, { "summary", "--json", good } },
      { "events", EXIT_OK, FALSE, { "events", "--plane", "/host:CPU", "--line", "python3", good } },
      { "events: no such line", EXIT_BAD_INPUT, FALSE, { "events", "--plane", "/host:CPU", "--line", "nope", good } },
      { "events: disk full", EXIT_IO, TRUE, { "events", "--plane", "/host:CPU", "--line", "python3", good } },
      { "find", EXIT_OK, FALSE, { "find", good, "a" } },
      { "find: no match", EXIT_FAILURE_ANSWER, FALSE, { "find", good, "no event is named like this" } },
      { "find: a bad pattern", EXIT_BAD_INPUT, FALSE, { "find", "--regex", good, "(" } },
      { "find: not a profile", EXIT_BAD_INPUT, FALSE, { "find", not_profile, "a" } },
      { "find: disk full", EXIT_IO, TRUE, { "find", "--limit", "0", good, "a" } },
      { "find --json: disk full", EXIT_IO, TRUE, { "find", "--json", "--limit", "0", good, "a" } },
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

  return g_test_run ();
}
