/* test-selection.c: what is selected on a timeline, and the event
 * reference it is made of.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-selection.h"
#include "planar-test-xspace.h"

/* Two hosts of one GPU plane, one stream each: events at 0, 100 and 300 ps
 * (100, 50 and 10 long) on host 0; one at 1000 on host 1. */
static PlanarProfile *
load_profile (const char *dir)
{
  g_autofree char *path0 = NULL, *path1 = NULL;
  g_autoptr(GError) error = NULL;
  PlanarProfile *profile;

  for (guint h = 0; h < 2; h++)
    {
      XSpace *space = planar_test_space_new ();
      XPlane *plane = planar_test_space_add_plane (space, 0, "/device:GPU:0");
      XLine *line = planar_test_plane_add_line (plane, 7, "Stream #7(Compute)", 0);

      planar_test_add_task_environment (space, 1000);
      planar_test_plane_add_event_metadata (plane, 1, "kernel", NULL);
      if (h == 0)
        {
          planar_test_line_add_event (line, 1, 0, 100);
          planar_test_line_add_event (line, 1, 100, 50);
          planar_test_line_add_event (line, 1, 300, 10);
          path0 = planar_test_write_space (space, dir, "host0.xplane.pb");
        }
      else
        {
          planar_test_line_add_event (line, 1, 1000, 5);
          path1 = planar_test_write_space (space, dir, "host1.xplane.pb");
        }
    }
  {
    const char * const paths[] = { path0, path1, NULL };

    profile = planar_profile_new (paths);
  }
  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  return profile;
}

static PlanarEventRef
ref (guint trace,
     guint index)
{
  PlanarEventRef r = { .plane = 0, .trace = (guint16) trace, .track = 0, .index = index };

  return r;
}

/* Refs order by host, plane, track and index; the host counts. */
static void
test_event_ref (void)
{
  PlanarEventRef a = ref (0, 5), b = ref (1, 0), c = ref (0, 6);
  PlanarEventRef none = { .plane = PLANAR_EVENT_REF_NONE };

  g_assert_cmpint (planar_event_ref_compare (&a, &b), <, 0);
  g_assert_cmpint (planar_event_ref_compare (&b, &a), >, 0);
  g_assert_cmpint (planar_event_ref_compare (&a, &c), <, 0);
  g_assert_true (planar_event_ref_equal (&a, &a));
  g_assert_false (planar_event_ref_equal (&a, &b));
  g_assert_true (planar_event_ref_is_none (&none));
  g_assert_false (planar_event_ref_is_none (&a));
  /* What the derived sources and flows store (and cache), one per event. */
  g_assert_cmpuint (sizeof (PlanarEventRef), ==, 12);
}

static void
test_events (PlanarTestFixture *f,
             gconstpointer      data)
{
  g_autoptr(PlanarProfile) profile = load_profile (f->dir);
  PlanarEventRef refs[] = { ref (1, 0), ref (0, 2), ref (0, 0), ref (0, 2) };
  g_autoptr(PlanarSelection) selection = planar_selection_new (profile, refs, G_N_ELEMENTS (refs), FALSE, 0, 0);
  const PlanarEventRef *got;
  PlanarEventRef missing = ref (0, 1), nowhere = ref (0, 99), no_host = ref (2, 0);
  PlanarTrace *trace = NULL;
  const PlanarEvent *ev;
  gint64 start, end;
  gsize n;

  /* Sorted and unique. */
  g_assert_false (planar_selection_is_empty (selection));
  got = planar_selection_get_events (selection, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_true (planar_event_ref_equal (&got[0], &refs[2]));
  g_assert_true (planar_event_ref_equal (&got[1], &refs[1]));
  g_assert_true (planar_event_ref_equal (&got[2], &refs[0]));
  g_assert_true (planar_selection_contains (selection, &refs[1]));
  g_assert_false (planar_selection_contains (selection, &missing));
  g_assert_false (planar_selection_get_range (selection, &start, &end));

  /* The time every event covers. */
  g_assert_true (planar_selection_get_bounds (selection, &start, &end));
  ev = planar_selection_resolve (selection, 0, NULL, NULL, NULL);
  g_assert_nonnull (ev);
  g_assert_cmpint (start, ==, ev->start_ps);
  ev = planar_selection_resolve (selection, 2, &trace, NULL, NULL);
  g_assert_true (trace == planar_profile_get_trace (profile, 1));
  g_assert_cmpint (end, ==, ev->start_ps + ev->duration_ps);

  /* A ref that points nowhere resolves to nothing. */
  g_assert_null (planar_event_ref_resolve (&nowhere, profile, NULL, NULL, NULL));
  g_assert_null (planar_event_ref_resolve (&no_host, profile, NULL, NULL, NULL));
}

/* A box selection keeps the range it was drawn over, joined with its
 * events' spans for its bounds. */
static void
test_range (PlanarTestFixture *f,
            gconstpointer      data)
{
  g_autoptr(PlanarProfile) profile = load_profile (f->dir);
  PlanarEventRef last = ref (0, 2);
  g_autoptr(PlanarSelection) range = planar_selection_new_for_range (profile, 20, 40);
  g_autoptr(PlanarSelection) both = planar_selection_new (profile, &last, 1, TRUE, 20, 40);
  g_autoptr(PlanarSelection) event = planar_selection_new_for_event (profile, &last);
  const PlanarEvent *ev = planar_event_ref_resolve (&last, profile, NULL, NULL, NULL);
  gint64 start, end;

  g_assert_false (planar_selection_is_empty (range));
  g_assert_cmpuint (planar_selection_get_n_events (range), ==, 0);
  g_assert_true (planar_selection_get_range (range, &start, &end));
  g_assert_cmpint (start, ==, 20);
  g_assert_cmpint (end, ==, 40);
  g_assert_true (planar_selection_get_bounds (both, &start, &end));
  g_assert_cmpint (start, ==, 20);
  g_assert_cmpint (end, ==, ev->start_ps + ev->duration_ps);
  g_assert_cmpuint (planar_selection_get_n_events (event), ==, 1);
  g_assert_true (planar_selection_get_profile (event) == profile);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/selection/event-ref", test_event_ref);
  PLANAR_TEST_ADD ("/selection/events", test_events);
  PLANAR_TEST_ADD ("/selection/range", test_range);

  return g_test_run ();
}
