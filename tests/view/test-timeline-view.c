/* test-timeline-view.c: the state a timeline shares with the axis, the
 * details pane and the find bar, and what it notifies.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-view.h"

typedef struct
{
  guint range;
  guint selection;
  guint tool;
  guint show_flows;
  guint categories;
  guint marks;
} Notified;

static void
count_notify (PlanarTimelineView *view,
              GParamSpec         *pspec,
              Notified           *n)
{
  const char *name = g_param_spec_get_name (pspec);

  if (g_str_equal (name, "visible-range"))
    n->range++;
  else if (g_str_equal (name, "selection"))
    n->selection++;
  else if (g_str_equal (name, "tool"))
    n->tool++;
  else if (g_str_equal (name, "show-flows"))
    n->show_flows++;
  else if (g_str_equal (name, "hidden-flow-categories"))
    n->categories++;
  else if (g_str_equal (name, "n-marks"))
    n->marks++;
  else
    g_assert_not_reached ();
}

/* Each setter notifies once per change and never when nothing changes. */
static void
test_range (void)
{
  g_autoptr(PlanarTimelineView) view = planar_timeline_view_new ();
  Notified n = { 0 };
  PlanarTimeRange *boxed = NULL;
  gint64 start, end;

  g_signal_connect (view, "notify", G_CALLBACK (count_notify), &n);
  g_assert_true (planar_timeline_view_set_visible_range (view, 100, 900));
  g_assert_false (planar_timeline_view_set_visible_range (view, 100, 900));
  g_assert_cmpuint (n.range, ==, 1);
  planar_timeline_view_get_visible_range (view, &start, &end);
  g_assert_cmpint (start, ==, 100);
  g_assert_cmpint (end, ==, 900);

  /* Backwards, it is swapped. */
  g_assert_true (planar_timeline_view_set_visible_range (view, 50, 10));
  g_assert_cmpint (planar_timeline_view_get_start_ps (view), ==, 10);
  g_assert_cmpint (planar_timeline_view_get_end_ps (view), ==, 50);
  g_assert_cmpuint (n.range, ==, 2);

  /* The same through the property, as a binding sees it. */
  g_object_get (view, "visible-range", &boxed, NULL);
  g_assert_nonnull (boxed);
  g_assert_cmpint (boxed->start_ps, ==, 10);
  g_assert_cmpint (boxed->end_ps, ==, 50);
  boxed->end_ps = 70;
  g_object_set (view, "visible-range", boxed, NULL);
  g_assert_cmpint (planar_timeline_view_get_end_ps (view), ==, 70);
  g_assert_cmpuint (n.range, ==, 3);
  g_boxed_free (PLANAR_TYPE_TIME_RANGE, boxed);
  g_assert_cmpuint (n.selection + n.tool + n.show_flows + n.categories + n.marks, ==, 0);
}

static void
test_tool_and_flows (void)
{
  g_autoptr(PlanarTimelineView) view = planar_timeline_view_new ();
  Notified n = { 0 };
  PlanarTimelineTool tool;
  gboolean show;
  guint64 hidden;

  g_signal_connect (view, "notify", G_CALLBACK (count_notify), &n);
  g_assert_cmpint (planar_timeline_view_get_tool (view), ==, PLANAR_TIMELINE_TOOL_SELECT);
  g_assert_true (planar_timeline_view_set_tool (view, PLANAR_TIMELINE_TOOL_ZOOM));
  g_assert_false (planar_timeline_view_set_tool (view, PLANAR_TIMELINE_TOOL_ZOOM));
  g_object_set (view, "tool", PLANAR_TIMELINE_TOOL_TIMING, NULL);
  g_object_get (view, "tool", &tool, NULL);
  g_assert_cmpint (tool, ==, PLANAR_TIMELINE_TOOL_TIMING);
  g_assert_cmpuint (n.tool, ==, 2);

  g_assert_false (planar_timeline_view_get_show_flows (view));
  g_assert_true (planar_timeline_view_set_show_flows (view, 42));
  g_assert_false (planar_timeline_view_set_show_flows (view, TRUE));
  g_object_get (view, "show-flows", &show, NULL);
  g_assert_true (show);
  g_assert_cmpuint (n.show_flows, ==, 1);

  g_assert_true (planar_timeline_view_get_flow_category_visible (view, 63));
  g_assert_true (planar_timeline_view_set_flow_category_visible (view, 63, FALSE));
  g_assert_false (planar_timeline_view_set_flow_category_visible (view, 63, FALSE));
  g_assert_true (planar_timeline_view_set_flow_category_visible (view, 2, FALSE));
  g_assert_false (planar_timeline_view_get_flow_category_visible (view, 63));
  g_assert_true (planar_timeline_view_get_flow_category_visible (view, 1));
  g_object_get (view, "hidden-flow-categories", &hidden, NULL);
  g_assert_cmpuint (hidden, ==, (G_GUINT64_CONSTANT (1) << 63) | (1 << 2));
  g_assert_true (planar_timeline_view_set_flow_category_visible (view, 63, TRUE));
  g_assert_cmpuint (planar_timeline_view_get_hidden_flow_categories (view), ==, 1 << 2);
  g_assert_cmpuint (n.categories, ==, 3);
  g_assert_cmpuint (n.range + n.selection + n.marks, ==, 0);
}

static void
test_marks (void)
{
  g_autoptr(PlanarTimelineView) view = planar_timeline_view_new ();
  Notified n = { 0 };
  gint64 start, end;
  guint n_marks;

  g_signal_connect (view, "notify", G_CALLBACK (count_notify), &n);
  planar_timeline_view_clear_marks (view);
  g_assert_cmpuint (n.marks, ==, 0);
  g_assert_true (planar_timeline_view_toggle_mark (view, 10, 20));
  /* Given backwards, the same range. */
  g_assert_true (planar_timeline_view_toggle_mark (view, 40, 30));
  g_assert_cmpuint (planar_timeline_view_get_n_marks (view), ==, 2);
  planar_timeline_view_get_mark (view, 1, &start, &end);
  g_assert_cmpint (start, ==, 30);
  g_assert_cmpint (end, ==, 40);
  /* Marking a marked range takes its mark away. */
  g_assert_false (planar_timeline_view_toggle_mark (view, 10, 20));
  g_object_get (view, "n-marks", &n_marks, NULL);
  g_assert_cmpuint (n_marks, ==, 1);
  planar_timeline_view_get_mark (view, 0, &start, NULL);
  g_assert_cmpint (start, ==, 30);
  planar_timeline_view_clear_marks (view);
  g_assert_cmpuint (planar_timeline_view_get_n_marks (view), ==, 0);
  g_assert_cmpuint (n.marks, ==, 4);
}

/* An empty selection is no selection; the same one twice is one change. */
static void
test_selection (void)
{
  g_autoptr(PlanarTimelineView) view = planar_timeline_view_new ();
  g_autoptr(PlanarSelection) empty = planar_selection_new (NULL, NULL, 0, FALSE, 0, 0);
  g_autoptr(PlanarSelection) range = planar_selection_new (NULL, NULL, 0, TRUE, 5, 50);
  PlanarSelection *got = NULL;
  Notified n = { 0 };

  g_signal_connect (view, "notify", G_CALLBACK (count_notify), &n);
  g_assert_false (planar_timeline_view_set_selection (view, empty));
  g_assert_null (planar_timeline_view_get_selection (view));
  g_assert_true (planar_timeline_view_set_selection (view, range));
  g_assert_false (planar_timeline_view_set_selection (view, range));
  g_object_get (view, "selection", &got, NULL);
  g_assert_true (got == range);
  g_object_unref (got);
  g_assert_true (planar_timeline_view_set_selection (view, empty));
  g_assert_null (planar_timeline_view_get_selection (view));
  g_assert_cmpuint (n.selection, ==, 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/timeline-view/range", test_range);
  g_test_add_func ("/timeline-view/tool-and-flows", test_tool_and_flows);
  g_test_add_func ("/timeline-view/marks", test_marks);
  g_test_add_func ("/timeline-view/selection", test_selection);

  return g_test_run ();
}
