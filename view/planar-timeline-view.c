/* planar-timeline-view.c: the state a timeline and its companions share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-view.h"

struct _PlanarTimelineView
{
  GObject             parent_instance;

  PlanarTimeRange     range;
  PlanarSelection    *selection;
  PlanarTimelineTool  tool;
  gboolean            show_flows;
  guint64             hidden_flow_categories;
  /* PlanarTimeRange */
  GArray             *marks;
};

enum
{
  PROP_0,
  PROP_VISIBLE_RANGE,
  PROP_SELECTION,
  PROP_TOOL,
  PROP_SHOW_FLOWS,
  PROP_HIDDEN_FLOW_CATEGORIES,
  PROP_N_MARKS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_ENUM_TYPE (PlanarTimelineTool, planar_timeline_tool,
                    G_DEFINE_ENUM_VALUE (PLANAR_TIMELINE_TOOL_SELECT, "select"),
                    G_DEFINE_ENUM_VALUE (PLANAR_TIMELINE_TOOL_PAN, "pan"),
                    G_DEFINE_ENUM_VALUE (PLANAR_TIMELINE_TOOL_ZOOM, "zoom"),
                    G_DEFINE_ENUM_VALUE (PLANAR_TIMELINE_TOOL_TIMING, "timing"))

static PlanarTimeRange *
time_range_copy (const PlanarTimeRange *range)
{
  return g_memdup2 (range, sizeof *range);
}

G_DEFINE_BOXED_TYPE (PlanarTimeRange, planar_time_range, time_range_copy, g_free)

G_DEFINE_FINAL_TYPE (PlanarTimelineView, planar_timeline_view, G_TYPE_OBJECT)

static void
planar_timeline_view_dispose (GObject *object)
{
  PlanarTimelineView *self = PLANAR_TIMELINE_VIEW (object);

  g_clear_object (&self->selection);

  G_OBJECT_CLASS (planar_timeline_view_parent_class)->dispose (object);
}

static void
planar_timeline_view_finalize (GObject *object)
{
  PlanarTimelineView *self = PLANAR_TIMELINE_VIEW (object);

  g_array_unref (self->marks);

  G_OBJECT_CLASS (planar_timeline_view_parent_class)->finalize (object);
}

static void
planar_timeline_view_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  PlanarTimelineView *self = PLANAR_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_VISIBLE_RANGE:
      g_value_set_boxed (value, &self->range);
      break;
    case PROP_SELECTION:
      g_value_set_object (value, self->selection);
      break;
    case PROP_TOOL:
      g_value_set_enum (value, self->tool);
      break;
    case PROP_SHOW_FLOWS:
      g_value_set_boolean (value, self->show_flows);
      break;
    case PROP_HIDDEN_FLOW_CATEGORIES:
      g_value_set_uint64 (value, self->hidden_flow_categories);
      break;
    case PROP_N_MARKS:
      g_value_set_uint (value, self->marks->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_timeline_view_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  PlanarTimelineView *self = PLANAR_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_VISIBLE_RANGE:
      {
        const PlanarTimeRange *range = g_value_get_boxed (value);

        if (range != NULL)
          planar_timeline_view_set_visible_range (self, range->start_ps, range->end_ps);
      }
      break;
    case PROP_SELECTION:
      planar_timeline_view_set_selection (self, g_value_get_object (value));
      break;
    case PROP_TOOL:
      planar_timeline_view_set_tool (self, g_value_get_enum (value));
      break;
    case PROP_SHOW_FLOWS:
      planar_timeline_view_set_show_flows (self, g_value_get_boolean (value));
      break;
    case PROP_HIDDEN_FLOW_CATEGORIES:
      if (self->hidden_flow_categories != g_value_get_uint64 (value))
        {
          self->hidden_flow_categories = g_value_get_uint64 (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_timeline_view_class_init (PlanarTimelineViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = planar_timeline_view_dispose;
  object_class->finalize = planar_timeline_view_finalize;
  object_class->get_property = planar_timeline_view_get_property;
  object_class->set_property = planar_timeline_view_set_property;

  properties[PROP_VISIBLE_RANGE] =
    g_param_spec_boxed ("visible-range", NULL, NULL, PLANAR_TYPE_TIME_RANGE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTION] =
    g_param_spec_object ("selection", NULL, NULL, PLANAR_TYPE_SELECTION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TOOL] =
    g_param_spec_enum ("tool", NULL, NULL, PLANAR_TYPE_TIMELINE_TOOL, PLANAR_TIMELINE_TOOL_SELECT,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_FLOWS] =
    g_param_spec_boolean ("show-flows", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HIDDEN_FLOW_CATEGORIES] =
    g_param_spec_uint64 ("hidden-flow-categories", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_MARKS] =
    g_param_spec_uint ("n-marks", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
planar_timeline_view_init (PlanarTimelineView *self)
{
  self->marks = g_array_new (FALSE, FALSE, sizeof (PlanarTimeRange));
}

PlanarTimelineView *
planar_timeline_view_new (void)
{
  return g_object_new (PLANAR_TYPE_TIMELINE_VIEW, NULL);
}

void
planar_timeline_view_get_visible_range (PlanarTimelineView *self,
                                        gint64             *start_ps,
                                        gint64             *end_ps)
{
  g_return_if_fail (PLANAR_IS_TIMELINE_VIEW (self));

  if (start_ps != NULL)
    *start_ps = self->range.start_ps;
  if (end_ps != NULL)
    *end_ps = self->range.end_ps;
}

gint64
planar_timeline_view_get_start_ps (PlanarTimelineView *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), 0);
  return self->range.start_ps;
}

gint64
planar_timeline_view_get_end_ps (PlanarTimelineView *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), 0);
  return self->range.end_ps;
}

gboolean
planar_timeline_view_set_visible_range (PlanarTimelineView *self,
                                        gint64              start_ps,
                                        gint64              end_ps)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), FALSE);

  if (end_ps < start_ps)
    {
      gint64 tmp = start_ps;

      start_ps = end_ps;
      end_ps = tmp;
    }
  if (self->range.start_ps == start_ps && self->range.end_ps == end_ps)
    return FALSE;
  self->range.start_ps = start_ps;
  self->range.end_ps = end_ps;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE_RANGE]);
  return TRUE;
}

PlanarSelection *
planar_timeline_view_get_selection (PlanarTimelineView *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), NULL);
  return self->selection;
}

gboolean
planar_timeline_view_set_selection (PlanarTimelineView *self,
                                    PlanarSelection    *selection)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), FALSE);
  g_return_val_if_fail (selection == NULL || PLANAR_IS_SELECTION (selection), FALSE);

  if (selection != NULL && planar_selection_is_empty (selection))
    selection = NULL;
  if (!g_set_object (&self->selection, selection))
    return FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTION]);
  return TRUE;
}

PlanarTimelineTool
planar_timeline_view_get_tool (PlanarTimelineView *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), PLANAR_TIMELINE_TOOL_SELECT);
  return self->tool;
}

gboolean
planar_timeline_view_set_tool (PlanarTimelineView *self,
                               PlanarTimelineTool  tool)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), FALSE);
  g_return_val_if_fail (tool <= PLANAR_TIMELINE_TOOL_TIMING, FALSE);

  if (self->tool == tool)
    return FALSE;
  self->tool = tool;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOOL]);
  return TRUE;
}

gboolean
planar_timeline_view_get_show_flows (PlanarTimelineView *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), FALSE);
  return self->show_flows;
}

gboolean
planar_timeline_view_set_show_flows (PlanarTimelineView *self,
                                     gboolean            show_flows)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), FALSE);

  show_flows = !!show_flows;
  if (self->show_flows == show_flows)
    return FALSE;
  self->show_flows = show_flows;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_FLOWS]);
  return TRUE;
}

guint64
planar_timeline_view_get_hidden_flow_categories (PlanarTimelineView *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), 0);
  return self->hidden_flow_categories;
}

gboolean
planar_timeline_view_get_flow_category_visible (PlanarTimelineView *self,
                                                guint               category)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), FALSE);
  g_return_val_if_fail (category < PLANAR_FLOW_N_CATEGORIES, FALSE);
  return (self->hidden_flow_categories & (G_GUINT64_CONSTANT (1) << category)) == 0;
}

gboolean
planar_timeline_view_set_flow_category_visible (PlanarTimelineView *self,
                                                guint               category,
                                                gboolean            visible)
{
  guint64 hidden;

  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), FALSE);
  g_return_val_if_fail (category < PLANAR_FLOW_N_CATEGORIES, FALSE);

  hidden = self->hidden_flow_categories;
  if (visible)
    hidden &= ~(G_GUINT64_CONSTANT (1) << category);
  else
    hidden |= G_GUINT64_CONSTANT (1) << category;
  if (hidden == self->hidden_flow_categories)
    return FALSE;
  self->hidden_flow_categories = hidden;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIDDEN_FLOW_CATEGORIES]);
  return TRUE;
}

gboolean
planar_timeline_view_toggle_mark (PlanarTimelineView *self,
                                  gint64              start_ps,
                                  gint64              end_ps)
{
  PlanarTimeRange range = { MIN (start_ps, end_ps), MAX (start_ps, end_ps) };
  gboolean marked = TRUE;
  guint i;

  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), FALSE);

  for (i = 0; i < self->marks->len; i++)
    {
      const PlanarTimeRange *m = &g_array_index (self->marks, PlanarTimeRange, i);

      if (m->start_ps == range.start_ps && m->end_ps == range.end_ps)
        break;
    }
  if (i < self->marks->len)
    {
      g_array_remove_index (self->marks, i);
      marked = FALSE;
    }
  else
    g_array_append_val (self->marks, range);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_MARKS]);
  return marked;
}

void
planar_timeline_view_clear_marks (PlanarTimelineView *self)
{
  g_return_if_fail (PLANAR_IS_TIMELINE_VIEW (self));

  if (self->marks->len == 0)
    return;
  g_array_set_size (self->marks, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_MARKS]);
}

guint
planar_timeline_view_get_n_marks (PlanarTimelineView *self)
{
  g_return_val_if_fail (PLANAR_IS_TIMELINE_VIEW (self), 0);
  return self->marks->len;
}

void
planar_timeline_view_get_mark (PlanarTimelineView *self,
                               guint               index,
                               gint64             *start_ps,
                               gint64             *end_ps)
{
  const PlanarTimeRange *m;

  g_return_if_fail (PLANAR_IS_TIMELINE_VIEW (self));
  g_return_if_fail (index < self->marks->len);

  m = &g_array_index (self->marks, PlanarTimeRange, index);
  if (start_ps != NULL)
    *start_ps = m->start_ps;
  if (end_ps != NULL)
    *end_ps = m->end_ps;
}
