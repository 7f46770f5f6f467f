/* planar-timeline-actions.c: the timeline's commands.
 *
 * Every command is a "timeline." action: the keys (planar-shortcuts.c),
 * the tool selector's buttons, the application's menus and the tests all
 * go through them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-private.h"

#include "planar-flows.h"
#include "planar-shortcuts.h"

/* "/" on the timeline: the window's find bar (win.find), reached through
 * the action muxer so that the widget does not know the window. */
static void
find (GtkWidget  *widget,
      const char *action_name,
      GVariant   *parameter)
{
  gtk_widget_activate_action (widget, "win.find", NULL);
}

static void
zoom_in (GtkWidget  *widget,
         const char *action_name,
         GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);

  _planar_timeline_zoom (self, PLANAR_TIMELINE_ZOOM_STEP, _planar_timeline_key_anchor (self));
}

static void
zoom_in_fast (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);

  _planar_timeline_zoom (self, PLANAR_TIMELINE_ZOOM_STEP_FAST, _planar_timeline_key_anchor (self));
}

static void
zoom_out (GtkWidget  *widget,
          const char *action_name,
          GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);

  _planar_timeline_zoom (self, 1 / PLANAR_TIMELINE_ZOOM_STEP, _planar_timeline_key_anchor (self));
}

static void
zoom_out_fast (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);

  _planar_timeline_zoom (self, 1 / PLANAR_TIMELINE_ZOOM_STEP_FAST, _planar_timeline_key_anchor (self));
}

static void
pan_left (GtkWidget  *widget,
          const char *action_name,
          GVariant   *parameter)
{
  _planar_timeline_pan (PLANAR_TIMELINE (widget), -PLANAR_TIMELINE_PAN_STEP);
}

static void
pan_left_fast (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  _planar_timeline_pan (PLANAR_TIMELINE (widget), -PLANAR_TIMELINE_PAN_STEP_FAST);
}

static void
pan_right (GtkWidget  *widget,
           const char *action_name,
           GVariant   *parameter)
{
  _planar_timeline_pan (PLANAR_TIMELINE (widget), PLANAR_TIMELINE_PAN_STEP);
}

static void
pan_right_fast (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  _planar_timeline_pan (PLANAR_TIMELINE (widget), PLANAR_TIMELINE_PAN_STEP_FAST);
}

static void
show_all (GtkWidget  *widget,
          const char *action_name,
          GVariant   *parameter)
{
  _planar_timeline_show_all (PLANAR_TIMELINE (widget));
}

static void
zoom_to_selection (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  _planar_timeline_zoom_to_selection (PLANAR_TIMELINE (widget));
}

static void
next_event (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  _planar_timeline_step_selection (PLANAR_TIMELINE (widget), 1);
}

static void
previous_event (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  _planar_timeline_step_selection (PLANAR_TIMELINE (widget), -1);
}

static void
select_parent (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  _planar_timeline_step_selection (PLANAR_TIMELINE (widget), 2);
}

static void
select_child (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  _planar_timeline_step_selection (PLANAR_TIMELINE (widget), -2);
}

static void
clear_selection (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  planar_timeline_set_selection (PLANAR_TIMELINE (widget), NULL);
}

static void
mark (GtkWidget  *widget,
      const char *action_name,
      GVariant   *parameter)
{
  _planar_timeline_mark (PLANAR_TIMELINE (widget));
}

static void
clear_marks (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  _planar_timeline_clear_marks (PLANAR_TIMELINE (widget));
}

static void
toggle_flow_category (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PlanarTimeline *self = PLANAR_TIMELINE (widget);
  guint category = g_variant_get_uint32 (parameter);

  if (category >= PLANAR_FLOW_N_CATEGORIES)
    return;
  planar_timeline_set_flow_category_visible (self, category,
                                             !planar_timeline_get_flow_category_visible (self, category));
}

void
_planar_timeline_class_add_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "timeline.find", NULL, find);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-in", NULL, zoom_in);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-in-fast", NULL, zoom_in_fast);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-out", NULL, zoom_out);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-out-fast", NULL, zoom_out_fast);
  gtk_widget_class_install_action (widget_class, "timeline.pan-left", NULL, pan_left);
  gtk_widget_class_install_action (widget_class, "timeline.pan-left-fast", NULL, pan_left_fast);
  gtk_widget_class_install_action (widget_class, "timeline.pan-right", NULL, pan_right);
  gtk_widget_class_install_action (widget_class, "timeline.pan-right-fast", NULL, pan_right_fast);
  gtk_widget_class_install_action (widget_class, "timeline.show-all", NULL, show_all);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-to-selection", NULL, zoom_to_selection);
  gtk_widget_class_install_action (widget_class, "timeline.next-event", NULL, next_event);
  gtk_widget_class_install_action (widget_class, "timeline.previous-event", NULL, previous_event);
  gtk_widget_class_install_action (widget_class, "timeline.select-parent", NULL, select_parent);
  gtk_widget_class_install_action (widget_class, "timeline.select-child", NULL, select_child);
  gtk_widget_class_install_action (widget_class, "timeline.clear-selection", NULL, clear_selection);
  gtk_widget_class_install_action (widget_class, "timeline.mark", NULL, mark);
  gtk_widget_class_install_action (widget_class, "timeline.clear-marks", NULL, clear_marks);
  /* Parameter: a flow category (PlanarFlowCategory) to show or hide. */
  gtk_widget_class_install_action (widget_class, "timeline.toggle-flow-category", "u", toggle_flow_category);

  /* Stateful: their state is the property, so toggle buttons and check
   * menu items show it. */
  gtk_widget_class_install_property_action (widget_class, "timeline.tool", "tool");
  gtk_widget_class_install_property_action (widget_class, "timeline.toggle-grid", "show-grid");
  gtk_widget_class_install_property_action (widget_class, "timeline.show-flows", "show-flows");

  planar_shortcuts_bind_class (widget_class, "timeline.");
}

void
_planar_timeline_update_actions (PlanarTimeline *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  PlanarSelection *selection = planar_timeline_get_selection (self);
  gboolean has_profile = planar_timeline_get_profile (self) != NULL;
  gboolean has_selection = selection != NULL;
  gboolean has_events = has_selection && planar_selection_get_n_events (selection) > 0;

  gtk_widget_action_set_enabled (widget, "timeline.zoom-to-selection", has_selection);
  gtk_widget_action_set_enabled (widget, "timeline.mark", has_selection);
  gtk_widget_action_set_enabled (widget, "timeline.clear-marks", planar_timeline_get_n_marks (self) > 0);
  gtk_widget_action_set_enabled (widget, "timeline.clear-selection", has_selection);
  gtk_widget_action_set_enabled (widget, "timeline.next-event", has_events);
  gtk_widget_action_set_enabled (widget, "timeline.previous-event", has_events);
  gtk_widget_action_set_enabled (widget, "timeline.select-parent", has_events);
  gtk_widget_action_set_enabled (widget, "timeline.select-child", has_events);
  gtk_widget_action_set_enabled (widget, "timeline.show-all", has_profile);
  gtk_widget_action_set_enabled (widget, "timeline.go-to-time", has_profile);
  gtk_widget_action_set_enabled (widget, "timeline.show-track-menu", has_profile);
  gtk_widget_action_set_enabled (widget, "timeline.collapse-all", has_profile);
  gtk_widget_action_set_enabled (widget, "timeline.expand-all", has_profile);
}
