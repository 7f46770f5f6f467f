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
  GtkSpinner       *costs_spinner;
  GtkDropDown      *group_drop_down;
  GtkColumnView    *table_view;

  PlanarProfile    *profile;
  /* The planes of the drop-down, in its order. */
  GArray           *planes;
  /* The track (guint index) of each line of the track drop-down after its
   * first: the plane's tracks but its counter lines. */
  GArray           *tracks;
  GListStore       *rows;
  GtkSortListModel *sorted_rows;
  gboolean          updating;
  /* The table with FLOPs and bytes (and, by framework op or source line,
   * its rows at all) is made on a worker: cancelled when the table is
   * made again or the page goes. */
  GCancellable     *table_cancellable;
  /* The table still wants its worker (the page was not shown yet). */
  gboolean          table_pending;
  /* The events of a row activated by framework op or source line are
   * found on a worker too; @activated receives them. */
  GCancellable     *activate_cancellable;
  GArray           *activated;
};

G_DEFINE_FINAL_TYPE (PlanarOpStatsPage, planar_op_stats_page, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_HIGHLIGHT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The plane the table is of, its trace and its entry (host and plane
 * index); NULL when there is none. */
static const PlanarPlane *
current_plane (PlanarOpStatsPage *self,
               PlanarTrace      **trace_out,
               PlaneEntry        *entry_out)
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
  if (entry_out != NULL)
    *entry_out = *entry;
  return planar_trace_get_plane (trace, entry->plane);
}

static PlanarAggregateKey
current_key (PlanarOpStatsPage *self)
{
  /* The drop-down's items are PlanarAggregateKey's, in order. */
  guint group = gtk_drop_down_get_selected (self->group_drop_down);

  return group <= PLANAR_AGGREGATE_KEY_SOURCE ? (PlanarAggregateKey) group : PLANAR_AGGREGATE_KEY_NAME;
}

/* -1 for every line of the file, else a track index. */
static int
current_track (PlanarOpStatsPage *self)
{
  guint position = gtk_drop_down_get_selected (self->track_drop_down);

  if (position == GTK_INVALID_LIST_POSITION || position == 0 || position > self->tracks->len)
    return -1;
  return (int) g_array_index (self->tracks, guint, position - 1);
}

static gboolean
track_in_scope (const PlanarTrack *track,
                guint              index,
                int                scope)
{
  return scope < 0 ? !track->derived : (guint) scope == index;
}

/* The spinner turns while a worker reads for the page. */
static void
update_busy (PlanarOpStatsPage *self)
{
  gboolean busy = planar_op_stats_page_get_busy (self);

  if (gtk_spinner_get_spinning (self->costs_spinner) == busy)
    return;
  gtk_spinner_set_spinning (self->costs_spinner, busy);
  gtk_widget_set_visible (GTK_WIDGET (self->costs_spinner), busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
show_summary (PlanarOpStatsPage *self,
              PlanarAggregator  *aggregator)
{
  g_autofree char *summary = NULL;
  g_autofree char *names = NULL;
  g_autofree char *events = NULL;
  guint n_names = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  guint64 n_events = planar_aggregator_get_n_events (aggregator);

  names = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u name", "%u names", n_names), n_names);
  events = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " event", "%" PRIu64 " events", n_events),
                            n_events);
  /* Translators: "12 names, 3400 events": the two counts above the table. */
  summary = g_strdup_printf (_("%s, %s"), names, events);
  gtk_label_set_text (self->summary_label, summary);
}

/* Fills the table, keeping the row the user had selected selected. */
static void
fill_rows (PlanarOpStatsPage *self,
           PlanarAggregator  *aggregator)
{
  GtkSingleSelection *selection = GTK_SINGLE_SELECTION (gtk_column_view_get_model (self->table_view));
  g_autoptr(PlanarAggregateRow) selected = gtk_single_selection_get_selected_item (selection) != NULL
                                           ? g_object_ref (gtk_single_selection_get_selected_item (selection))
                                           : NULL;
  GListModel *rows = G_LIST_MODEL (self->sorted_rows);

  planar_aggregate_rows_fill (self->rows, aggregator);
  for (guint i = 0; selected != NULL && i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(PlanarAggregateRow) row = g_list_model_get_item (rows, i);

      if (g_strcmp0 (planar_aggregate_row_get_name (row), planar_aggregate_row_get_name (selected)) == 0)
        {
          gtk_single_selection_set_selected (selection, i);
          break;
        }
    }
}

/* The worker's table with costs: FLOP rate and bandwidth for the rows by
 * name shown already, or the rows by framework op or source line. */
static void
table_ready (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarAggregator) aggregator = planar_aggregator_add_plane_finish (result, &error);
  PlanarOpStatsPage *self;

  /* Cancelled: the page may be gone, and is not touched. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = PLANAR_OP_STATS_PAGE (user_data);
  g_clear_object (&self->table_cancellable);
  update_busy (self);
  if (aggregator == NULL)
    {
      g_autofree char *text = NULL;

      /* Translators: the reason follows, e.g. "the file changed while it was read". */
      text = g_strdup_printf (_("FLOPs and bytes could not be read: %s"), error->message);
      gtk_label_set_text (self->summary_label, text);
      return;
    }
  fill_rows (self, aggregator);
  show_summary (self, aggregator);
}

static void
cancel_activation (PlanarOpStatsPage *self)
{
  g_cancellable_cancel (self->activate_cancellable);
  g_clear_object (&self->activate_cancellable);
  g_clear_pointer (&self->activated, g_array_unref);
}

/* Reads every event's FLOPs and bytes through the HLO, at any size (and,
 * by framework op or source line, the rows themselves), on a worker. */
static void
start_table_worker (PlanarOpStatsPage *self)
{
  PlanarTrace *trace = NULL;
  PlaneEntry entry;
  const PlanarPlane *plane = current_plane (self, &trace, &entry);
  PlanarAggregator *costs;

  self->table_pending = FALSE;
  if (plane != NULL)
    {
      costs = planar_aggregator_new ();
      planar_aggregator_set_costs (costs, trace, current_key (self));
      self->table_cancellable = g_cancellable_new ();
      planar_aggregator_add_plane_async (costs, trace, entry.plane, current_track (self), self->table_cancellable,
                                         table_ready, self);
    }
  update_busy (self);
}

static void
update_table (PlanarOpStatsPage *self)
{
  const PlanarPlane *plane = current_plane (self, NULL, NULL);
  PlanarAggregateKey key = current_key (self);
  int scope = current_track (self);
  g_autoptr(PlanarAggregator) aggregator = planar_aggregator_new ();

  g_cancellable_cancel (self->table_cancellable);
  g_clear_object (&self->table_cancellable);
  cancel_activation (self);

  /* Rows by name need no stat read: shown at once, their FLOPs and bytes
   * when the worker has read them. */
  if (plane != NULL && key == PLANAR_AGGREGATE_KEY_NAME)
    for (guint t = 0; t < plane->n_tracks; t++)
      if (track_in_scope (&plane->tracks[t], t, scope))
        planar_aggregator_add_track (aggregator, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
  planar_aggregate_rows_fill (self->rows, aggregator);
  show_summary (self, aggregator);
  if (plane != NULL && key != PLANAR_AGGREGATE_KEY_NAME)
    gtk_label_set_text (self->summary_label, key == PLANAR_AGGREGATE_KEY_FRAMEWORK_OP
                                             ? _("Reading the framework ops…")
                                             : _("Reading the source lines…"));
  /* A page that is not shown (a profile just loaded, another tool in
   * front) leaves the machine to what is: the worker starts when the page
   * is shown. */
  self->table_pending = plane != NULL;
  if (self->table_pending && gtk_widget_get_mapped (GTK_WIDGET (self)))
    start_table_worker (self);
  else
    update_busy (self);
}

static void
update_tracks (PlanarOpStatsPage *self)
{
  const PlanarPlane *plane = current_plane (self, NULL, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  g_ptr_array_add (names, (gpointer) _("Every line of the file"));
  g_array_set_size (self->tracks, 0);
  for (guint t = 0; plane != NULL && t < plane->n_tracks; t++)
    if (!planar_track_is_counter_line (&plane->tracks[t]))
      {
        g_ptr_array_add (names, (gpointer) plane->tracks[t].display_name);
        g_array_append_val (self->tracks, t);
      }
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

  /* The workers' callbacks see the cancellation and leave the page be. */
  g_cancellable_cancel (self->table_cancellable);
  g_clear_object (&self->table_cancellable);
  cancel_activation (self);
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
  g_array_unref (PLANAR_OP_STATS_PAGE (object)->tracks);
  G_OBJECT_CLASS (planar_op_stats_page_parent_class)->finalize (object);
}

static void
planar_op_stats_page_map (GtkWidget *widget)
{
  PlanarOpStatsPage *self = PLANAR_OP_STATS_PAGE (widget);

  GTK_WIDGET_CLASS (planar_op_stats_page_parent_class)->map (widget);
  if (self->table_pending)
    start_table_worker (self);
}

static void
planar_op_stats_page_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  PlanarOpStatsPage *self = PLANAR_OP_STATS_PAGE (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, planar_op_stats_page_get_busy (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_op_stats_page_class_init (PlanarOpStatsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_op_stats_page_dispose;
  object_class->finalize = planar_op_stats_page_finalize;
  object_class->get_property = planar_op_stats_page_get_property;
  widget_class->map = planar_op_stats_page_map;

  /* Whether the page waits for a worker (planar_op_stats_page_get_busy()). */
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

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
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, costs_spinner);
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, group_drop_down);
  gtk_widget_class_bind_template_child (widget_class, PlanarOpStatsPage, table_view);
}

static void
planar_op_stats_page_init (PlanarOpStatsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->planes = g_array_new (FALSE, FALSE, sizeof (PlaneEntry));
  self->tracks = g_array_new (FALSE, FALSE, sizeof (guint));
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

static void
highlight (PlanarOpStatsPage *self,
           GArray            *refs)
{
  g_autoptr(PlanarSelection) selection = NULL;

  if (refs->len == 0)
    return;
  selection = planar_selection_new (self->profile, (const PlanarEventRef *) (gpointer) refs->data, refs->len,
                                    FALSE, 0, 0);
  g_signal_emit (self, signals[SIGNAL_HIGHLIGHT], 0, selection);
}

static void
activation_ready (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlanarAggregator) aggregator = planar_aggregator_add_plane_finish (result, &error);
  g_autoptr(GArray) refs = NULL;
  PlanarOpStatsPage *self;

  /* Cancelled: the page may be gone, and is not touched. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = PLANAR_OP_STATS_PAGE (user_data);
  refs = g_steal_pointer (&self->activated);
  g_clear_object (&self->activate_cancellable);
  update_busy (self);
  if (aggregator == NULL)
    {
      g_autofree char *text = NULL;

      /* Translators: the reason follows, e.g. "the file changed while it was read". */
      text = g_strdup_printf (_("The events of the row could not be read: %s"), error->message);
      gtk_label_set_text (self->summary_label, text);
      return;
    }
  highlight (self, refs);
}

void
planar_op_stats_page_activate_row (PlanarOpStatsPage *self,
                                   guint              position)
{
  g_autoptr(PlanarAggregateRow) row = NULL;
  g_autoptr(GArray) refs = NULL;
  PlanarTrace *trace = NULL;
  const PlanarPlane *plane;
  PlaneEntry entry;
  PlanarAggregateKey key;
  PlanarAggregator *aggregator;
  int scope;

  g_return_if_fail (PLANAR_IS_OP_STATS_PAGE (self));

  row = g_list_model_get_item (G_LIST_MODEL (self->sorted_rows), position);
  plane = current_plane (self, &trace, &entry);
  if (row == NULL || plane == NULL)
    return;
  cancel_activation (self);
  key = current_key (self);
  scope = current_track (self);
  refs = g_array_new (FALSE, FALSE, sizeof (PlanarEventRef));
  /* The events the row counts, found as the table found them. */
  aggregator = planar_aggregator_new ();
  planar_aggregator_collect_events (aggregator, planar_aggregate_row_get_name (row), entry.trace, entry.plane, refs);
  if (key == PLANAR_AGGREGATE_KEY_NAME)
    {
      /* By name: no stat to read, at once. */
      for (guint t = 0; t < plane->n_tracks; t++)
        if (track_in_scope (&plane->tracks[t], t, scope))
          planar_aggregator_add_track (aggregator, plane, &plane->tracks[t], G_MININT64, G_MAXINT64);
      planar_aggregator_free (aggregator);
      update_busy (self);
      highlight (self, refs);
      return;
    }
  /* A framework op's or source line's events: each event's is read from
   * the file, on a worker. */
  planar_aggregator_set_costs (aggregator, trace, key);
  self->activated = g_steal_pointer (&refs);
  self->activate_cancellable = g_cancellable_new ();
  update_busy (self);
  planar_aggregator_add_plane_async (aggregator, trace, entry.plane, scope, self->activate_cancellable,
                                     activation_ready, self);
}

gboolean
planar_op_stats_page_get_busy (PlanarOpStatsPage *self)
{
  g_return_val_if_fail (PLANAR_IS_OP_STATS_PAGE (self), FALSE);
  return self->table_pending || self->table_cancellable != NULL || self->activate_cancellable != NULL;
}

void
planar_op_stats_page_set_key (PlanarOpStatsPage  *self,
                              PlanarAggregateKey  key)
{
  g_return_if_fail (PLANAR_IS_OP_STATS_PAGE (self));
  g_return_if_fail (key <= PLANAR_AGGREGATE_KEY_SOURCE);

  gtk_drop_down_set_selected (self->group_drop_down, (guint) key);
}
