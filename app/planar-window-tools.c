/* planar-window-tools.c: the window's tools, one page each of its stack:
 * the Trace Viewer, Op Stats and Trace Health, and choosing among them.
 *
 * Op Stats and Trace Health look at the whole profile. They are made the
 * first time they are chosen: a window that never shows them neither builds
 * them before its first frame nor has them work on each profile it loads
 * (Trace Health reads every event's stats to count the damaged ones).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-window-private.h"

#include <string.h>

const char * const _planar_window_tools[] = { "trace-viewer", "op-stats", "trace-health", NULL };

/* Op Stats asks to see a name's events: select them all on the timeline
 * and show the first. */
static void
op_stats_highlight (PlanarWindow    *self,
                    PlanarSelection *selection)
{
  const PlanarEventRef *refs;
  gsize n;

  _planar_window_select_tool (self, "trace-viewer");
  planar_timeline_set_selection (self->timeline, selection);
  refs = planar_selection_get_events (selection, &n);
  if (n > 0)
    planar_timeline_reveal_event (self->timeline, &refs[0]);
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

static void
give_health_page (PlanarWindow  *self,
                  PlanarProfile *profile)
{
  planar_health_page_set_profile (self->health_page, profile,
                                  profile != NULL ? _planar_window_current_session (self) : NULL);
}

/* The page of @tool, made if it is Op Stats or Trace Health and is not
 * yet, with the window's profile: each page shows a profile once it is
 * whole (planar_profile_is_loaded()), nothing before. */
static void
ensure_tool_page (PlanarWindow *self,
                  const char   *tool)
{
  if (strcmp (tool, "op-stats") == 0 && self->op_stats_page == NULL)
    {
      self->op_stats_page = PLANAR_OP_STATS_PAGE (planar_op_stats_page_new ());
      g_signal_connect_swapped (self->op_stats_page, "highlight", G_CALLBACK (op_stats_highlight), self);
      gtk_stack_add_named (self->stack, GTK_WIDGET (self->op_stats_page), tool);
      planar_op_stats_page_set_profile (self->op_stats_page, self->profile);
    }
  else if (strcmp (tool, "trace-health") == 0 && self->health_page == NULL)
    {
      self->health_page = PLANAR_HEALTH_PAGE (planar_health_page_new ());
      gtk_stack_add_named (self->stack, GTK_WIDGET (self->health_page), tool);
      give_health_page (self, self->profile);
    }
}

void
_planar_window_give_tools_profile (PlanarWindow  *self,
                                   PlanarProfile *profile)
{
  if (self->op_stats_page != NULL)
    planar_op_stats_page_set_profile (self->op_stats_page, profile);
  if (self->health_page != NULL)
    give_health_page (self, profile);
}

void
_planar_window_select_tool (PlanarWindow *self,
                            const char   *tool)
{
  GVariant *state;
  guint position = 0;

  g_return_if_fail (PLANAR_IS_WINDOW (self));

  /* NULL shows the tool chosen before. */
  if (tool == NULL)
    {
      state = g_action_group_get_action_state (G_ACTION_GROUP (self), "tool");
      tool = _planar_window_tools[0];
      for (guint i = 0; state != NULL && _planar_window_tools[i] != NULL; i++)
        if (g_strcmp0 (g_variant_get_string (state, NULL), _planar_window_tools[i]) == 0)
          tool = _planar_window_tools[i];
      g_clear_pointer (&state, g_variant_unref);
    }
  if (!g_strv_contains (_planar_window_tools, tool))
    return;
  for (guint i = 0; _planar_window_tools[i] != NULL; i++)
    if (strcmp (_planar_window_tools[i], tool) == 0)
      position = i;

  _planar_window_set_action_state (self, "tool", g_variant_new_string (tool));
  self->updating_controls = TRUE;
  gtk_drop_down_set_selected (self->tool_drop_down, position);
  self->updating_controls = FALSE;
  ensure_tool_page (self, tool);
  if (self->profile != NULL)
    gtk_stack_set_visible_child_name (self->stack, tool);
  /* The other tools look at every host. */
  if (strcmp (tool, "trace-viewer") != 0)
    _planar_window_load_all_hosts (self);
}
