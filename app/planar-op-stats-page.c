/* planar-op-stats-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-op-stats-page.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <string.h>

#include "planar-aggregate-row.h"
#include "planar-model.h"

typedef struct
{
  guint trace;
  guint plane;
} PlaneEntry;

struct _PlanarOpStatsPage
{
  GtkWidget         parent_instance;

  GtkDropDown      *plane_drop_down;
  GtkStringList    *plane_names;
  GtkDropDown      *track_drop_down;
  GtkStringList    *track_names;
  GtkLabel         *summary_label;
  GtkDropDown      *group_drop_down;
  GtkColumnView    *table_view;

  PlanarProfile    *profile;
  /* The planes of the drop-down, in its order. */
  GArray           *planes;
  GListStore       *rows;
  GtkSortListModel *sorted_rows;
  gboolean          updating;
};

G_DEFINE_FINAL_TYPE (PlanarOpStatsPage, planar_op_stats_page, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_HIGHLIGHT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const PlanarPlane *
current_plane (PlanarOpStatsPage *self,
               PlanarTrace      **trace_out)
{
  guint position = gtk_drop_down_get_selected (self->plane_drop_down);
  const PlaneEntry *entry;
  PlanarTrace *trace;

  if (self->profile == NULL || position == GTK_INVALID_LIST_POSITION || position >= self->planes->len)
    return NULL;
  entry = &g_array_index (self->planes, PlaneEntry, position);
  trace = planar_profile_get_trace (self->profile, entry->trace);
  if (trace_out != NULL)
    *trace_out = trace;
  return planar_trace_get_plane (trace, entry->plane);
}

/* -1 for every line of the file, else a track index. */
static int
current_track (PlanarOpStatsPage *self)
{
  guint position = gtk_drop_down_get_selected (self->track_drop_down);

  return position == GTK_INVALID_LIST_POSITION || position == 0 ? -1 : (int) position - 1;
}

static gboolean
track_in_scope (const PlanarTrack *track,
                guint              index,
                int                scope)
{
  return scope < 0 ? !track->derived : (guint) scope == index;
}

/* Reading each event's costs reads its stats from the file: for a device
 * plane's table by name, only up to this many events (grouping by framework
 * op or source line always reads them). */
#define MAX_COST_EVENTS 2000000

static void
update_table (PlanarOpStatsPage *self)
{
  PlanarTrace *trace = NULL;
  const PlanarPlane *plane = current_plane (self, &trace);
  g_autoptr(PlanarAggregator) aggregator = planar_aggregator_new ();
  /* The drop-down's items are PlanarAggregateKey's, in order. */
  guint group = gtk_drop_down_get_selected (self->group_drop_down);
  g_autofree char *summary = NULL;
  g_autofree char *names = NULL;
  g_autofree char *events = NULL;
  int scope = current_track (self);
  guint n_names;
  guint64 n_events;

  /* FLOPs and bytes (read event by event, through the HLO) for the
   * devices' tables, and whenever rows are framework ops or source lines. */
  if (plane != NULL && (group != PLANAR_AGGREGATE_KEY_NAME
                        || (g_str_has_prefix (plane->name, "/device:") && plane->n_events <= MAX_COST_EVENTS)))
    planar_aggregator_set_costs (aggregator, trace,
                                 group <= PLANAR_AGGREGATE_KEY_SOURCE ? (PlanarAggregateKey) group
                                                                      : PLANAR_AGGREGATE_KEY_NAME);
  if (plane != NULL)
    for (guint t = 0; t < plane->n_tracks; t++)
      if (track_in_scope (&plane->tracks[t], t, scope))
        planar_aggregator_add_track (aggregator, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
  planar_aggregate_rows_fill (self->rows, aggregator);
  n_names = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  n_events = planar_aggregator_get_n_events (aggregator);
  names = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u name", "%u names", n_names), n_names);
  events = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " event", "%" PRIu64 " events", n_events),
                            n_events);
  /* Translators: "12 names, 3400 events": the two counts above the table. */
  summary = g_strdup_printf (_("%s, %s"), names, events);
  gtk_label_set_text (self->summary_label, summary);
}

static void
update_tracks (PlanarOpStatsPage *self)
{
  const PlanarPlane *plane = current_plane (self, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  g_ptr_array_add (names, (gpointer) _("Every line of the file"));
  for (guint t = 0; plane != NULL && t < plane->n_tracks; t++)
    g_ptr_array_add (names, (gpointer) plane->tracks[t].display_name);
  g_ptr_array_add (names, NULL);
  self->updating = TRUE;
  gtk_string_list_splice (self->track_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->track_names)),
                          (const char * const *) names->pdata);
  gtk_drop_down_set_selected (self->track_drop_down, 0);
  self->updating = FALSE;
}

static void
plane_selected (PlanarOpStatsPage *self)
{
  if (self->updating)
    return;
  update_tracks (self);
  update_table (self);
}

static void
track_selected (PlanarOpStatsPage *self)
{
  if (!self->updating)
    update_table (self);
}

static void
row_activated (GtkColumnView     *view,
               guint              position,
               PlanarOpStatsPage *self)
{
  planar_op_stats_page_activate_row (self, position);
}

static void
planar_op_stats_page_dispose (GObject *object)
{
  GtkWidget *child;
  PlanarOpStatsPage *self = PLANAR_OP_STATS_PAGE (object);

  g_clear_object (&self->profile);
  gtk_widget_dispose_template (GTK_WIDGET (self), PLANAR_TYPE_OP_STATS_PAGE);
  /* The template's root is not a bound child: dispose_template() leaves
   * it. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->sorted_rows);
  g_clear_object (&self->rows);
  G_OBJECT_CLASS (planar_op_stats_page_parent_class)->dispose (object);
}

static void
planar_op_stats_page_finalize (GObject *object)
{
  g_array_unref (PLANAR_OP_STATS_PAGE (object)->planes);
  G_OBJECT_CLASS (planar_op_stats_page_parent_class)->finalize (object);
}

static void
planar_op_stats_page_class_init (PlanarOpStatsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_op_stats_page_dispose;
  object_class->finalize = planar_op_stats_page_finalize;

  /* Asks to show these events on the timeline. */
  signals[SIGNAL_HIGHLIGHT] = g_signal_new ("highlight", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                            NULL, NULL, G_TYPE_NONE, 1, PLANAR_TYPE_SELECTION);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "planar-op-stats");
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/planar/Planar/planar-op-stats-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, plane_drop_down);
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, plane_names);
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, track_drop_down);
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, track_names);
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, summary_label);
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, group_drop_down);
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, table_view);
}

static void
planar_op_stats_page_init (PlanarOpStatsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->planes = g_array_new (FALSE, FALSE, sizeof (PlaneEntry));
  self->rows = g_list_store_new (PLANAR_TYPE_AGGREGATE_ROW);
  self->sorted_rows = planar_aggregate_view_setup_with_costs (self->table_view, self->rows);
  g_signal_connect (self->table_view, "activate", G_CALLBACK (row_activated), self);
  g_signal_connect_swapped (self->plane_drop_down, "notify::selected", G_CALLBACK (plane_selected), self);
  g_signal_connect_swapped (self->track_drop_down, "notify::selected", G_CALLBACK (track_selected), self);
  g_signal_connect_swapped (self->group_drop_down, "notify::selected", G_CALLBACK (track_selected), self);
}

GtkWidget *
planar_op_stats_page_new (void)
{
  return g_object_new (PLANAR_TYPE_OP_STATS_PAGE, NULL);
}

/* Devices first: their time is what Op Stats is for. */
static void
add_planes (PlanarOpStatsPage *self,
            GPtrArray         *labels,
            gboolean           devices)
{
  guint n_traces = planar_profile_get_n_traces (self->profile);

  for (guint h = 0; h < n_traces; h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (self->profile, h);

      /* A host whose decode failed is left out (the message bar says so). */
      for (guint p = 0; p < planar_trace_get_n_planes (trace) && planar_trace_is_decoded (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);
          PlaneEntry entry = { h, p };

          if (plane->n_tracks == 0 || g_str_has_prefix (plane->name, "/device:") != devices)
            continue;
          g_array_append_val (self->planes, entry);
          if (n_traces > 1)
            g_ptr_array_add (labels, g_strdup_printf ("%s · %s", planar_trace_get_host_name (trace), plane->name));
          else
            g_ptr_array_add (labels, g_strdup (plane->name));
        }
    }
}

void
planar_op_stats_page_set_profile (PlanarOpStatsPage *self,
                                  PlanarProfile     *profile)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);

  g_return_if_fail (PLANAR_IS_OP_STATS_PAGE (self));
  g_return_if_fail (profile == NULL || PLANAR_IS_PROFILE (profile));

  g_set_object (&self->profile, profile);
  g_array_set_size (self->planes, 0);
  if (profile != NULL && planar_profile_is_loaded (profile))
    {
      add_planes (self, labels, TRUE);
      add_planes (self, labels, FALSE);
    }
  g_ptr_array_add (labels, NULL);
  self->updating = TRUE;
  gtk_string_list_splice (self->plane_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->plane_names)),
                          (const char * const *) labels->pdata);
  gtk_drop_down_set_selected (self->plane_drop_down, 0);
  self->updating = FALSE;
  update_tracks (self);
  update_table (self);
}

gboolean
planar_op_stats_page_select (PlanarOpStatsPage *self,
                             guint              trace,
                             guint              plane,
                             int                track)
{
  g_return_val_if_fail (PLANAR_IS_OP_STATS_PAGE (self), FALSE);

  for (guint i = 0; i < self->planes->len; i++)
    {
      const PlaneEntry *entry = &g_array_index (self->planes, PlaneEntry, i);

      if (entry->trace == trace && entry->plane == plane)
        {
          gtk_drop_down_set_selected (self->plane_drop_down, i);
          gtk_drop_down_set_selected (self->track_drop_down, track < 0 ? 0 : (guint) track + 1);
          return TRUE;
        }
    }
  return FALSE;
}

GListModel *
planar_op_stats_page_get_rows (PlanarOpStatsPage *self)
{
  g_return_val_if_fail (PLANAR_IS_OP_STATS_PAGE (self), NULL);
  return G_LIST_MODEL (self->sorted_rows);
}

void
planar_op_stats_page_activate_row (PlanarOpStatsPage *self,
                                   guint              position)
{
  g_autoptr(PlanarAggregateRow) row = NULL;
  g_autoptr(GArray) refs = NULL;
  g_autoptr(PlanarSelection) selection = NULL;
  const PlanarPlane *plane;
  const char *name;
  guint position_plane = gtk_drop_down_get_selected (self->plane_drop_down);
  const PlaneEntry *entry;
  int scope = current_track (self);

  g_return_if_fail (PLANAR_IS_OP_STATS_PAGE (self));

  row = g_list_model_get_item (G_LIST_MODEL (self->sorted_rows), position);
  plane = current_plane (self, NULL);
  if (row == NULL || plane == NULL)
    return;
  entry = &g_array_index (self->planes, PlaneEntry, position_plane);
  name = planar_aggregate_row_get_name (row);
  refs = g_array_new (FALSE, FALSE, sizeof (PlanarEventRef));
  for (guint t = 0; t < plane->n_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      if (!track_in_scope (track, t, scope))
        continue;
      for (gsize i = 0; i < track->n_events; i++)
        if (strcmp (planar_plane_get_event_name (plane, &track->events[i], FALSE), name) == 0)
          {
            PlanarEventRef ref = { entry->plane, entry->trace, t, (guint32) i };

            g_array_append_val (refs, ref);
          }
    }
  if (refs->len == 0)
    return;
  selection = planar_selection_new (self->profile, (const PlanarEventRef *) (gpointer) refs->data,
                                    refs->len, FALSE, 0, 0);
  g_signal_emit (self, signals[SIGNAL_HIGHLIGHT], 0, selection);
}

void
planar_op_stats_page_set_key (PlanarOpStatsPage  *self,
                              PlanarAggregateKey  key)
{
  g_return_if_fail (PLANAR_IS_OP_STATS_PAGE (self));
  g_return_if_fail (key <= PLANAR_AGGREGATE_KEY_SOURCE);

  gtk_drop_down_set_selected (self->group_drop_down, (guint) key);
}
