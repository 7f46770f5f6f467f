/* planar-aggregate-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-aggregate-row.h"

#include <glib/gi18n.h>

#include "planar-stat-format.h"
#include "planar-units.h"

struct _PlanarAggregateRow
{
  GObject  parent_instance;
  char    *name;
  char    *display_name;
  char    *kind;
  guint    kind_order;
  guint64  count;
  gint64   total_ps;
  gint64   self_ps;
  gint64   average_ps;
  gint64   min_ps;
  gint64   max_ps;
  /* FLOP/s and bytes/s achieved (0: unknown), and whether the HLO
   * estimated them (planar_aggregator_set_costs()). */
  double   flop_rate;
  double   bandwidth;
  gboolean estimated;
};

G_DEFINE_FINAL_TYPE (PlanarAggregateRow, planar_aggregate_row, G_TYPE_OBJECT)

enum
{
  ROW_PROP_0,
  ROW_PROP_NAME,
  ROW_PROP_DISPLAY_NAME,
  ROW_PROP_KIND,
  ROW_PROP_KIND_ORDER,
  ROW_PROP_COUNT,
  ROW_PROP_TOTAL_PS,
  ROW_PROP_SELF_PS,
  ROW_PROP_AVERAGE_PS,
  ROW_PROP_MIN_PS,
  ROW_PROP_MAX_PS,
  ROW_PROP_FLOP_RATE,
  ROW_PROP_BANDWIDTH,
  ROW_N_PROPS
};

static void
planar_aggregate_row_finalize (GObject *object)
{
  PlanarAggregateRow *self = PLANAR_AGGREGATE_ROW (object);

  g_free (self->name);
  g_free (self->display_name);
  g_free (self->kind);
  G_OBJECT_CLASS (planar_aggregate_row_parent_class)->finalize (object);
}

static void
planar_aggregate_row_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  PlanarAggregateRow *self = PLANAR_AGGREGATE_ROW (object);

  switch (prop_id)
    {
    case ROW_PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case ROW_PROP_DISPLAY_NAME:
      g_value_set_string (value, self->display_name);
      break;
    case ROW_PROP_KIND:
      g_value_set_string (value, self->kind);
      break;
    case ROW_PROP_KIND_ORDER:
      g_value_set_uint (value, self->kind_order);
      break;
    case ROW_PROP_COUNT:
      g_value_set_uint64 (value, self->count);
      break;
    case ROW_PROP_TOTAL_PS:
      g_value_set_int64 (value, self->total_ps);
      break;
    case ROW_PROP_SELF_PS:
      g_value_set_int64 (value, self->self_ps);
      break;
    case ROW_PROP_AVERAGE_PS:
      g_value_set_int64 (value, self->average_ps);
      break;
    case ROW_PROP_MIN_PS:
      g_value_set_int64 (value, self->min_ps);
      break;
    case ROW_PROP_MAX_PS:
      g_value_set_int64 (value, self->max_ps);
      break;
    case ROW_PROP_FLOP_RATE:
      g_value_set_double (value, self->flop_rate);
      break;
    case ROW_PROP_BANDWIDTH:
      g_value_set_double (value, self->bandwidth);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_aggregate_row_class_init (PlanarAggregateRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamSpec *props[ROW_N_PROPS] = { NULL };
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = planar_aggregate_row_finalize;
  object_class->get_property = planar_aggregate_row_get_property;

  props[ROW_PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  props[ROW_PROP_DISPLAY_NAME] = g_param_spec_string ("display-name", NULL, NULL, NULL, flags);
  props[ROW_PROP_KIND] = g_param_spec_string ("kind", NULL, NULL, NULL, flags);
  props[ROW_PROP_KIND_ORDER] = g_param_spec_uint ("kind-order", NULL, NULL, 0, G_MAXUINT, 0, flags);
  props[ROW_PROP_COUNT] = g_param_spec_uint64 ("count", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  props[ROW_PROP_TOTAL_PS] = g_param_spec_int64 ("total-ps", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);
  props[ROW_PROP_SELF_PS] = g_param_spec_int64 ("self-ps", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);
  props[ROW_PROP_AVERAGE_PS] = g_param_spec_int64 ("average-ps", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);
  props[ROW_PROP_MIN_PS] = g_param_spec_int64 ("min-ps", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);
  props[ROW_PROP_MAX_PS] = g_param_spec_int64 ("max-ps", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);
  props[ROW_PROP_FLOP_RATE] = g_param_spec_double ("flop-rate", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  props[ROW_PROP_BANDWIDTH] = g_param_spec_double ("bandwidth", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  g_object_class_install_properties (object_class, ROW_N_PROPS, props);
}

static void
planar_aggregate_row_init (PlanarAggregateRow *self)
{
}

PlanarAggregateRow *
planar_aggregate_row_new (const PlanarAggregate *aggregate)
{
  PlanarAggregateRow *self = g_object_new (PLANAR_TYPE_AGGREGATE_ROW, NULL);

  self->name = g_strdup (aggregate->name);
  self->display_name = g_strdup (aggregate->display_name);
  self->kind = g_strdup (aggregate->kind);
  self->kind_order = aggregate->kind_order;
  self->count = aggregate->count;
  self->total_ps = aggregate->total_ps;
  self->self_ps = aggregate->self_ps;
  self->average_ps = aggregate->count > 0 ? aggregate->total_ps / (gint64) aggregate->count : 0;
  self->min_ps = aggregate->min_ps;
  self->max_ps = aggregate->max_ps;
  self->flop_rate = aggregate->flops_ps > 0 ? aggregate->flops / ((double) aggregate->flops_ps * 1e-12) : 0;
  self->bandwidth = aggregate->bytes_ps > 0 ? aggregate->bytes / ((double) aggregate->bytes_ps * 1e-12) : 0;
  self->estimated = aggregate->estimated;
  return self;
}

const char *
planar_aggregate_row_get_name (PlanarAggregateRow *self)
{
  g_return_val_if_fail (PLANAR_IS_AGGREGATE_ROW (self), NULL);
  return self->name;
}

guint64
planar_aggregate_row_get_count (PlanarAggregateRow *self)
{
  g_return_val_if_fail (PLANAR_IS_AGGREGATE_ROW (self), 0);
  return self->count;
}

gint64
planar_aggregate_row_get_total_ps (PlanarAggregateRow *self)
{
  g_return_val_if_fail (PLANAR_IS_AGGREGATE_ROW (self), 0);
  return self->total_ps;
}

gint64
planar_aggregate_row_get_self_ps (PlanarAggregateRow *self)
{
  g_return_val_if_fail (PLANAR_IS_AGGREGATE_ROW (self), 0);
  return self->self_ps;
}

void
planar_aggregate_rows_fill (GListStore       *rows,
                            PlanarAggregator *aggregator)
{
  g_autoptr(GArray) results = planar_aggregator_get_results (aggregator, PLANAR_AGGREGATE_SORT_SELF);
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < results->len; i++)
    g_ptr_array_add (items, planar_aggregate_row_new (&g_array_index (results, PlanarAggregate, i)));
  g_list_store_splice (rows, 0, g_list_model_get_n_items (G_LIST_MODEL (rows)), items->pdata, items->len);
}

/* Columns: each cell is a label bound to the row's property. */

static void
cell_setup (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  gboolean numeric = !g_str_equal ((const char *) user_data, "display-name")
                     && !g_str_equal ((const char *) user_data, "kind");
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0f : 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (label), numeric ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  const char *property = user_data;
  PlanarAggregateRow *row = gtk_list_item_get_item (item);
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  g_autofree char *text = NULL;

  if (g_str_equal (property, "display-name"))
    {
      gtk_label_set_text (label, row->display_name);
      gtk_widget_set_tooltip_text (GTK_WIDGET (label), row->name);
      return;
    }
  if (g_str_equal (property, "kind"))
    {
      gtk_label_set_text (label, row->kind != NULL ? row->kind : "");
      return;
    }
  if (g_str_equal (property, "flop-rate") || g_str_equal (property, "bandwidth"))
    {
      gboolean flops = g_str_equal (property, "flop-rate");
      double rate = flops ? row->flop_rate : row->bandwidth;
      g_autofree char *flop_rate = NULL;
      g_autofree char *bandwidth = NULL;

      /* One second of work at @rate: the rate itself, in its unit. */
      if (rate > 0 && planar_format_achieved_rates (flops ? rate : 0, flops ? 0 : rate, 1000000000000, &flop_rate,
                                                    &bandwidth))
        /* Translators: an achieved rate estimated from the HLO, "≈ 12.3 GFLOP/s". */
        text = row->estimated ? g_strdup_printf (_("≈ %s"), flops ? flop_rate : bandwidth)
                              : g_strdup (flops ? flop_rate : bandwidth);
      gtk_label_set_text (label, text != NULL ? text : "");
      gtk_widget_set_tooltip_text (GTK_WIDGET (label), row->estimated ? _("Estimated from the program's HLO") : NULL);
      return;
    }
  if (g_str_equal (property, "count"))
    text = g_strdup_printf ("%" G_GUINT64_FORMAT, row->count);
  else
    {
      gint64 value = 0;

      g_autofree char *ascii = NULL;

      g_object_get (row, property, &value, NULL);
      ascii = planar_format_duration (value);
      text = planar_stat_micro_sign (ascii);
    }
  gtk_label_set_text (label, text);
}

static GtkColumnViewColumn *
add_column (GtkColumnView *view,
            const char    *title,
            const char    *property,
            gboolean       numeric)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;
  GtkExpression *expression = gtk_property_expression_new (PLANAR_TYPE_AGGREGATE_ROW, NULL, property);
  GtkSorter *sorter;

  /* @property is a static string: the cells' handlers take it as their
   * data. */
  g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), (gpointer) property);
  g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), (gpointer) property);
  column = gtk_column_view_column_new (title, factory);
  if (numeric)
    sorter = GTK_SORTER (gtk_numeric_sorter_new (expression));
  else
    {
      sorter = GTK_SORTER (gtk_string_sorter_new (expression));
      gtk_column_view_column_set_expand (column, TRUE);
    }
  gtk_column_view_column_set_sorter (column, sorter);
  gtk_column_view_column_set_resizable (column, TRUE);
  gtk_column_view_append_column (view, column);
  g_object_unref (sorter);
  g_object_unref (column);
  return column;
}

static GtkSortListModel *
view_setup (GtkColumnView *view,
            GListStore    *rows,
            gboolean       min_max,
            gboolean       by_kind,
            gboolean       costs)
{
  GtkColumnViewColumn *self_column;
  GtkSortListModel *sorted;
  g_autoptr(GtkSingleSelection) model = NULL;

  if (by_kind)
    add_column (view, _("Kind"), "kind", FALSE);
  add_column (view, _("Name"), "display-name", FALSE);
  add_column (view, _("Count"), "count", TRUE);
  add_column (view, _("Wall"), "total-ps", TRUE);
  self_column = add_column (view, _("Self"), "self-ps", TRUE);
  add_column (view, _("Average"), "average-ps", TRUE);
  if (min_max)
    {
      add_column (view, _("Min"), "min-ps", TRUE);
      add_column (view, _("Max"), "max-ps", TRUE);
    }
  if (costs)
    {
      add_column (view, _("FLOP rate"), "flop-rate", TRUE);
      add_column (view, _("Bandwidth"), "bandwidth", TRUE);
    }
  if (by_kind)
    {
      /* Rows stay in their kind's group whichever column sorts them. */
      GtkMultiSorter *sorter = gtk_multi_sorter_new ();

      gtk_multi_sorter_append (sorter, GTK_SORTER (gtk_numeric_sorter_new (
        gtk_property_expression_new (PLANAR_TYPE_AGGREGATE_ROW, NULL, "kind-order"))));
      gtk_multi_sorter_append (sorter, GTK_SORTER (gtk_string_sorter_new (
        gtk_property_expression_new (PLANAR_TYPE_AGGREGATE_ROW, NULL, "kind"))));
      gtk_multi_sorter_append (sorter, g_object_ref (gtk_column_view_get_sorter (view)));
      sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (rows)), GTK_SORTER (sorter));
    }
  else
    sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (rows)),
                                      g_object_ref (gtk_column_view_get_sorter (view)));
  model = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (sorted)));
  gtk_single_selection_set_autoselect (model, FALSE);
  gtk_single_selection_set_can_unselect (model, TRUE);
  gtk_column_view_set_model (view, GTK_SELECTION_MODEL (model));
  /* Where the time goes: self time, largest first. */
  gtk_column_view_sort_by_column (view, self_column, GTK_SORT_DESCENDING);
  return sorted;
}

const char *
planar_aggregate_row_get_kind (PlanarAggregateRow *self)
{
  g_return_val_if_fail (PLANAR_IS_AGGREGATE_ROW (self), NULL);
  return self->kind;
}

const char *
planar_aggregate_row_get_display_name (PlanarAggregateRow *self)
{
  g_return_val_if_fail (PLANAR_IS_AGGREGATE_ROW (self), NULL);
  return self->display_name;
}

GtkSortListModel *
planar_aggregate_view_setup (GtkColumnView *view,
                             GListStore    *rows,
                             gboolean       min_max)
{
  return view_setup (view, rows, min_max, FALSE, FALSE);
}

GtkSortListModel *
planar_aggregate_view_setup_with_costs (GtkColumnView *view,
                                        GListStore    *rows)
{
  return view_setup (view, rows, TRUE, FALSE, TRUE);
}

GtkSortListModel *
planar_aggregate_view_setup_by_kind (GtkColumnView *view,
                                     GListStore    *rows,
                                     gboolean       min_max)
{
  return view_setup (view, rows, min_max, TRUE, FALSE);
}
