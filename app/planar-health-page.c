/* planar-health-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-health-page.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "planar-model.h"

struct _PlanarHealthPage
{
  GtkWidget   parent_instance;

  GtkLabel   *findings_heading;
  GtkListBox *findings_list;
  GtkGrid    *counts_grid;

  GPtrArray  *issues;

  /* Counting the damaged stats of @profile, which reads every event. */
  PlanarProfile *profile;
  GCancellable  *counting;
};

G_DEFINE_FINAL_TYPE (PlanarHealthPage, planar_health_page, GTK_TYPE_WIDGET)

static const char *
severity_icon (PlanarHealthSeverity severity)
{
  switch (severity)
    {
    case PLANAR_HEALTH_ERROR:
      return "dialog-error-symbolic";
    case PLANAR_HEALTH_WARNING:
      return "dialog-warning-symbolic";
    case PLANAR_HEALTH_INFO:
    default:
      return "dialog-information-symbolic";
    }
}

static GtkWidget *
finding_row_new (const PlanarHealthIssue *issue)
{
  g_autoptr(GString) where = g_string_new (issue->host != NULL ? issue->host : _("Session"));
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  GtkWidget *icon = gtk_image_new_from_icon_name (severity_icon (issue->severity));
  g_autofree char *title = g_markup_escape_text (issue->message, -1);
  g_autofree char *subtitle = NULL;

  if (issue->plane != NULL)
    g_string_append_printf (where, " · %s", issue->plane);
  if (issue->line != NULL)
    g_string_append_printf (where, " / %s", issue->line);
  subtitle = g_markup_escape_text (where->str, -1);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (row, subtitle);
  adw_action_row_set_title_lines (row, 0);
  if (issue->severity == PLANAR_HEALTH_ERROR)
    gtk_widget_add_css_class (icon, "error");
  else if (issue->severity == PLANAR_HEALTH_WARNING)
    gtk_widget_add_css_class (icon, "warning");
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  planar_health_severity_to_string (issue->severity), -1);
  adw_action_row_add_prefix (row, icon);
  return GTK_WIDGET (row);
}

static void
clear (GtkWidget *container)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (container)) != NULL)
    {
      if (GTK_IS_LIST_BOX (container))
        gtk_list_box_remove (GTK_LIST_BOX (container), child);
      else
        gtk_grid_remove (GTK_GRID (container), child);
    }
}

static void
add_count (PlanarHealthPage *self,
           int               row,
           const char       *name,
           guint64           count,
           gboolean          heading)
{
  g_autofree char *number = g_strdup_printf ("%" G_GUINT64_FORMAT, count);
  GtkWidget *label = gtk_label_new (name);
  GtkWidget *value = gtk_label_new (number);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_label_set_xalign (GTK_LABEL (value), 1);
  gtk_widget_add_css_class (value, "numeric");
  if (heading)
    {
      gtk_widget_add_css_class (label, "heading");
      gtk_widget_set_margin_top (label, 8);
    }
  else
    gtk_widget_set_margin_start (label, 18);
  if (count == 0)
    gtk_widget_add_css_class (value, "dim-label");
  gtk_grid_attach (self->counts_grid, label, 0, row, 1, 1);
  gtk_grid_attach (self->counts_grid, value, 1, row, 1, 1);
}

static void
fill_counts (PlanarHealthPage *self,
             PlanarProfile    *profile)
{
  int row = 0;
  guint n_traces = planar_profile_get_n_traces (profile);

  for (guint h = 0; h < n_traces; h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);
          g_autofree char *name = n_traces > 1 ? g_strdup_printf ("%s · %s", planar_trace_get_host_name (trace),
                                                                  plane->name)
                                               : g_strdup (plane->name);

          add_count (self, row++, name, plane->n_events, TRUE);
          for (guint l = 0; l < plane->n_lines; l++)
            if (!plane->lines[l].derived)
              add_count (self, row++, plane->lines[l].display_name, plane->lines[l].n_events, FALSE);
        }
    }
}

static void
stop_counting (PlanarHealthPage *self)
{
  g_cancellable_cancel (self->counting);
  g_clear_object (&self->counting);
  g_clear_object (&self->profile);
}

static void
planar_health_page_dispose (GObject *object)
{
  GtkWidget *child;
  PlanarHealthPage *self = PLANAR_HEALTH_PAGE (object);

  stop_counting (self);
  g_clear_pointer (&self->issues, g_ptr_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PLANAR_TYPE_HEALTH_PAGE);
  /* The template's root is not a bound child: dispose_template() leaves
   * it. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (planar_health_page_parent_class)->dispose (object);
}

static void
planar_health_page_class_init (PlanarHealthPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = planar_health_page_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "planar-health");
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/planar/Planar/planar-health-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PlanarHealthPage, findings_heading);
  gtk_widget_class_bind_template_child (widget_class, PlanarHealthPage, findings_list);
  gtk_widget_class_bind_template_child (widget_class, PlanarHealthPage, counts_grid);
}

static void
planar_health_page_init (PlanarHealthPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
planar_health_page_new (void)
{
  return g_object_new (PLANAR_TYPE_HEALTH_PAGE, NULL);
}

/* The findings list and its heading, from self->issues. */
static void
show_issues (PlanarHealthPage *self)
{
  g_autofree char *heading = NULL;

  clear (GTK_WIDGET (self->findings_list));
  for (guint i = 0; i < self->issues->len; i++)
    gtk_list_box_append (self->findings_list, finding_row_new (g_ptr_array_index (self->issues, i)));
  if (self->issues->len == 0)
    {
      AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Nothing to report: no errors, drops or overlaps"));
      adw_action_row_add_prefix (row, gtk_image_new_from_icon_name ("emblem-ok-symbolic"));
      gtk_list_box_append (self->findings_list, GTK_WIDGET (row));
    }
  heading = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u Finding", "%u Findings", self->issues->len),
                             self->issues->len);
  gtk_label_set_text (self->findings_heading, heading);
}

static void
count_damaged_stats (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  PlanarProfile *profile = task_data;
  guint64 n = 0;

  for (guint i = 0; i < planar_profile_get_n_traces (profile) && !g_cancellable_is_cancelled (cancellable); i++)
    n += planar_trace_count_damaged_stats (planar_profile_get_trace (profile, i), NULL);
  g_task_return_int (task, (gssize) MIN (n, (guint64) G_MAXSSIZE));
}

static gboolean
is_damaged_stats (const PlanarHealthIssue *issue)
{
  return issue != NULL && g_strcmp0 (issue->kind, "damaged-stats") == 0;
}

/* Takes the issue at @i out of @issues, leaving NULL in its place. */
static PlanarHealthIssue *
steal_issue (GPtrArray *issues,
             guint      i)
{
  return g_steal_pointer (&g_ptr_array_index (issues, i));
}

/* Once every stat was read: the damaged-stats findings as counted replace
 * those of the stats read so far, among the warnings. */
static void
damaged_stats_counted (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  PlanarHealthPage *self = PLANAR_HEALTH_PAGE (source);
  PlanarProfile *profile = g_task_get_task_data (G_TASK (result));
  g_autoptr(GPtrArray) counted = NULL;
  g_autoptr(GPtrArray) issues = NULL;

  if (g_task_propagate_int (G_TASK (result), NULL) <= 0 || profile != self->profile || self->issues == NULL)
    return;

  counted = planar_health_check (profile, NULL);
  issues = g_ptr_array_new_with_free_func ((GDestroyNotify) planar_health_issue_free);
  /* Errors and warnings, the damaged stats as counted, then the notes. */
  for (guint i = 0; i < self->issues->len; i++)
    {
      PlanarHealthIssue *issue = g_ptr_array_index (self->issues, i);

      if (issue->severity >= PLANAR_HEALTH_WARNING && !is_damaged_stats (issue))
        g_ptr_array_add (issues, steal_issue (self->issues, i));
    }
  for (guint i = 0; i < counted->len; i++)
    if (is_damaged_stats (g_ptr_array_index (counted, i)))
      g_ptr_array_add (issues, steal_issue (counted, i));
  for (guint i = 0; i < self->issues->len; i++)
    {
      PlanarHealthIssue *issue = g_ptr_array_index (self->issues, i);

      if (issue != NULL && !is_damaged_stats (issue))
        g_ptr_array_add (issues, steal_issue (self->issues, i));
    }
  g_ptr_array_unref (self->issues);
  self->issues = g_steal_pointer (&issues);
  show_issues (self);
}

void
planar_health_page_set_profile (PlanarHealthPage           *self,
                                PlanarProfile              *profile,
                                const PlanarCatalogSession *session)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PLANAR_IS_HEALTH_PAGE (self));

  stop_counting (self);
  clear (GTK_WIDGET (self->findings_list));
  clear (GTK_WIDGET (self->counts_grid));
  g_clear_pointer (&self->issues, g_ptr_array_unref);
  if (profile == NULL || !planar_profile_is_loaded (profile))
    {
      gtk_label_set_text (self->findings_heading, "");
      return;
    }

  self->issues = planar_health_check (profile, session);
  show_issues (self);
  fill_counts (self, profile);

  /* Damaged stats are found by reading every event's stats: off the main
   * thread, and the list is updated if there are any. */
  self->profile = g_object_ref (profile);
  self->counting = g_cancellable_new ();
  task = g_task_new (self, self->counting, damaged_stats_counted, NULL);
  g_task_set_source_tag (task, planar_health_page_set_profile);
  g_task_set_task_data (task, g_object_ref (profile), g_object_unref);
  g_task_run_in_thread (task, count_damaged_stats);
}

GPtrArray *
planar_health_page_get_issues (PlanarHealthPage *self)
{
  g_return_val_if_fail (PLANAR_IS_HEALTH_PAGE (self), NULL);
  return self->issues;
}
