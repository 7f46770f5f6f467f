/* planar-details-pane.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-details-pane-private.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "planar-aggregate-row.h"
#include "planar-model.h"

/* ------------------------------------------------------------------------
 * PlanarDetailsPane
 * ------------------------------------------------------------------------ */

struct _PlanarDetailsPane
{
  GtkWidget           parent_instance;

  GtkStack           *stack;
  GtkLabel           *title_label;
  GtkLabel           *table_total_label;
  GtkGrid            *fields_grid;
  GtkLabel           *flows_heading;
  GtkBox             *flows_box;
  GtkLabel           *hlo_heading;
  GtkBox             *hlo_box;
  GtkLabel           *table_label;
  GtkColumnView      *table_view;

  PlanarTimeline     *timeline;
  gulong              selection_handler;
  /* The selection shown, so that a notification without a change does not
   * rebuild the pane. */
  PlanarSelection    *shown;
  /* The HLO index of the shown event's trace when it was shown: the pane
   * is built again when the index lands later (tracks-changed). */
  gconstpointer       shown_hlo;
  gulong              profile_handler;
  gulong              timeline_profile_handler;
  PlanarProfile      *watched_profile;

  GListStore         *rows;
  GtkSortListModel   *sorted_rows;
  /* The worker summing the table shown, when it is large; the most
   * events a table made on the main thread sums. */
  GCancellable       *table_cancellable;
  guint64             async_min;

  /* The event shown, as text to copy, and where its flows and its HLO
   * operands and users lead (details.follow-flow selects either). */
  GString            *text;
  guint               n_fields;
  GArray             *flow_targets;
};

G_DEFINE_FINAL_TYPE (PlanarDetailsPane, planar_details_pane, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_TIMELINE,
  N_PROPS
};

enum
{
  SIGNAL_SEARCH,
  SIGNAL_FILE_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
clear_box (GtkWidget *box)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (box)) != NULL)
    {
      if (GTK_IS_BOX (box))
        gtk_box_remove (GTK_BOX (box), child);
      else
        gtk_grid_remove (GTK_GRID (box), child);
    }
}

/* Adds "@label  @value" to the fields, and to the text to copy. */
static void
add_field (PlanarDetailsPane *self,
           const char        *label,
           const char        *value,
           gboolean           monospace)
{
  /* One spelling of microseconds in the GUI: µs. */
  g_autofree char *shown = planar_stat_micro_sign (value);
  GtkWidget *key = gtk_label_new (label);
  GtkWidget *text = gtk_label_new (shown);

  gtk_label_set_xalign (GTK_LABEL (key), 0);
  gtk_label_set_yalign (GTK_LABEL (key), 0);
  gtk_widget_add_css_class (key, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (text), 0);
  gtk_label_set_wrap (GTK_LABEL (text), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (text), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (text), TRUE);
  gtk_widget_set_hexpand (text, TRUE);
  if (monospace)
    gtk_widget_add_css_class (text, "monospace");
  gtk_grid_attach (self->fields_grid, key, 0, (int) self->n_fields, 1, 1);
  gtk_grid_attach (self->fields_grid, text, 1, (int) self->n_fields, 1, 1);
  self->n_fields++;
  g_string_append_printf (self->text, "%s: %s\n", label, shown);
}

/* Times to the nanosecond, so that adjacent events read apart. */
static void
add_duration_field (PlanarDetailsPane *self,
                    const char        *label,
                    gint64             ps)
{
  g_autofree char *value = planar_format_time_exact (ps);

  add_field (self, label, value, FALSE);
}

static const char *
key_stat_label (const char *name)
{
  static const struct { const char *name; const char *label; } labels[] = {
    { "hlo_module", N_("HLO module") },
    { "hlo_op", N_("HLO op") },
    { "tf_op", N_("Framework op") },
    { "tf_op_name", N_("Framework op name") },
    { "long_name", N_("Long name") },
    { "source", N_("Source") },
    { "source_stack", N_("Stack") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (g_strcmp0 (name, labels[i].name) == 0)
      return _(labels[i].label);
  return name;
}

static char *
stat_label (const PlanarStat *stat)
{
  if (stat->name == NULL || stat->name[0] == '\0')
    return g_strdup_printf ("#%" G_GINT64_FORMAT, stat->metadata_id);
  return g_strdup (stat->name);
}

/* A numeric stat's value; 0 for the others. */
static double
stat_number (const PlanarStat *stat)
{
  switch (stat->kind)
    {
    case PLANAR_STAT_INT64:
      return (double) stat->v.i64;
    case PLANAR_STAT_UINT64:
      return (double) stat->v.u64;
    case PLANAR_STAT_DOUBLE:
      return stat->v.f64;
    default:
      return 0;
    }
}

static void
add_stats (PlanarDetailsPane *self,
           PlanarTrace       *trace,
           const PlanarPlane *plane,
           const PlanarEvent *event)
{
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autoptr(GError) error = NULL;
  g_autofree char *flops_rate = NULL;
  g_autofree char *bytes_rate = NULL;
  double flops = 0, bytes = 0;

  planar_trace_get_event_stats (trace, plane, event, stats, &error);
  /* The stats are read from the file: it may have changed since it was
   * opened (the read then fails, or reads what is no longer the event's). */
  if (g_error_matches (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED) || planar_trace_has_changed (trace))
    g_signal_emit (self, signals[SIGNAL_FILE_CHANGED], 0);
  if (error != NULL)
    {
      add_field (self, _("Stats"), error->message, FALSE);
      return;
    }

  /* What the user most often copies comes first. */
  for (guint i = 0; i < stats->len; i++)
    {
      const PlanarStat *stat = &g_array_index (stats, PlanarStat, i);

      /* XProf's module placeholder ("XlaModule:") is no framework op: the
       * HLO's is shown instead (add_hlo()). */
      if (g_strcmp0 (stat->name, "tf_op") == 0 && (stat->kind == PLANAR_STAT_STRING || stat->kind == PLANAR_STAT_REF)
          && planar_op_info_is_placeholder (stat->str.data, stat->str.len))
        continue;
      if (planar_stat_is_key_stat (stat->name))
        {
          g_autofree char *value = planar_stat_format_display (stat);

          add_field (self, key_stat_label (stat->name), value, g_str_equal (stat->name, "source_stack"));
        }
    }
  for (guint i = 0; i < stats->len; i++)
    {
      const PlanarStat *stat = &g_array_index (stats, PlanarStat, i);
      g_autofree char *label = NULL;
      g_autofree char *value = NULL;

      if (planar_stat_is_key_stat (stat->name) || planar_stat_is_internal (stat->name))
        continue;
      if (g_strcmp0 (stat->name, "flops") == 0)
        flops = stat_number (stat);
      else if (g_strcmp0 (stat->name, "bytes_accessed") == 0)
        bytes = stat_number (stat);
      label = stat_label (stat);
      value = planar_stat_format_display (stat);
      add_field (self, label, value, g_str_has_suffix (label, "_details"));
    }

  /* With the work done and the time it took: the rates achieved. */
  if (planar_format_achieved_rates (flops, bytes, event->duration_ps, &flops_rate, &bytes_rate))
    {
      if (flops_rate != NULL)
        add_field (self, _("Achieved FLOP rate"), flops_rate, FALSE);
      if (bytes_rate != NULL)
        add_field (self, _("Achieved bandwidth"), bytes_rate, FALSE);
    }
}

static void
add_flows (PlanarDetailsPane    *self,
           PlanarTrace          *trace,
           const PlanarEventRef *ref)
{
  const PlanarFlowIndex *index = planar_trace_get_flows (trace);
  g_autoptr(GArray) flows = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  PlanarEventRef event = *ref;

  if (index != NULL)
    planar_flow_index_query_event (index, &event, flows);
  gtk_widget_set_visible (GTK_WIDGET (self->flows_heading), flows->len > 0);

  for (guint i = 0; i < flows->len; i++)
    {
      const PlanarFlow *flow = &g_array_index (flows, PlanarFlow, i);
      gboolean outgoing = flow->from.plane == event.plane && flow->from.track == event.track
                          && flow->from.index == event.index;
      const PlanarEventRef *other = outgoing ? &flow->to : &flow->from;
      const char *category = planar_flow_category_get_name (flow->category);
      g_autofree char *text = NULL;
      GtkWidget *widget;

      if (planar_event_ref_is_none (other))
        {
          text = g_strdup_printf (outgoing ? _("→ (the other end was not captured) %s") : _("← (the other end was not captured) %s"),
                                  category);
          widget = gtk_label_new (text);
          gtk_label_set_xalign (GTK_LABEL (widget), 0);
          gtk_widget_add_css_class (widget, "dim-label");
        }
      else
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, other->plane);
          const PlanarTrack *track = &plane->tracks[other->track];
          const PlanarEvent *ev = &track->events[other->index];
          PlanarEventRef target = { other->plane, ref->trace, other->track, other->index };
          GtkWidget *label;

          text = g_strdup_printf ("%s %s · %s / %s %s", outgoing ? "→" : "←",
                                  planar_plane_get_event_name (plane, ev, TRUE), plane->name,
                                  track->display_name, category);
          label = gtk_label_new (text);
          gtk_label_set_xalign (GTK_LABEL (label), 0);
          gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
          widget = gtk_button_new ();
          gtk_button_set_child (GTK_BUTTON (widget), label);
          gtk_widget_add_css_class (widget, "flat");
          gtk_widget_set_tooltip_text (widget, _("Select the other end of this flow"));
          g_array_append_val (self->flow_targets, target);
          gtk_actionable_set_action_name (GTK_ACTIONABLE (widget), "details.follow-flow");
          gtk_actionable_set_action_target (GTK_ACTIONABLE (widget), "u", self->flow_targets->len - 1);
        }
      g_string_append_printf (self->text, "%s: %s\n", _("Flow"), text);
      gtk_box_append (self->flows_box, widget);
    }
}

/* A link that selects @target (details.follow-flow), or a dim line saying
 * why there is none. */
static void
add_hlo_link (PlanarDetailsPane          *self,
              const PlanarHloModule      *module,
              const PlanarHloInstruction *in,
              const char                 *role,
              const PlanarEventRef       *target,
              guint                       host)
{
  const PlanarHloShape *shape = planar_hlo_instruction_get_shape (module, in);
  g_autofree char *text = NULL;
  GtkWidget *widget;

  if (planar_event_ref_is_none (target))
    {
      /* Translators: an HLO operand or user without an event of its own:
       * "Operand %p0 (parameter) f32[8]{0}: no event in this execution
       * of the module (a parameter, a constant, or fused into another
       * kernel)". */
      text = g_strdup_printf (_("%s %%%s (%s) %s: no event in this execution of the module (a parameter, a constant, "
                                "or fused into another kernel)"),
                              role, in->name, in->opcode, shape->text);
      widget = gtk_label_new (text);
      gtk_label_set_xalign (GTK_LABEL (widget), 0);
      gtk_label_set_wrap (GTK_LABEL (widget), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (widget), PANGO_WRAP_WORD_CHAR);
      gtk_widget_add_css_class (widget, "dim-label");
    }
  else
    {
      PlanarEventRef ref = *target;
      GtkWidget *label;

      ref.trace = (guint16) host;
      text = g_strdup_printf ("%s %%%s (%s) %s", role, in->name, in->opcode, shape->text);
      label = gtk_label_new (text);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
      widget = gtk_button_new ();
      gtk_button_set_child (GTK_BUTTON (widget), label);
      gtk_widget_add_css_class (widget, "flat");
      gtk_widget_set_tooltip_text (widget, _("Select its event in this execution of the module on this device"));
      g_array_append_val (self->flow_targets, ref);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (widget), "details.follow-flow");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (widget), "u", self->flow_targets->len - 1);
    }
  g_string_append_printf (self->text, "%s\n", text);
  gtk_box_append (self->hlo_box, widget);
}

/* @value (taken), with "for N kernels of this instruction" when the
 * instruction ran as several. Returns: (transfer full). */
static char *
for_kernels (const PlanarOpInfo *info,
             char               *value)
{
  char *text;

  if (info->n_kernels <= 1)
    return value;
  /* Translators: an estimate of the whole HLO instruction, e.g. "12.3
   * GFLOP for 3 kernels of this instruction". */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s for %u kernel of this instruction",
                                       "%s for %u kernels of this instruction", info->n_kernels),
                          value, info->n_kernels);
  g_free (value);
  return text;
}

/* Events read, at most, to find the operands' and users' events. */
#define MAX_LINK_EVENTS 200000

/* What the event stands for through the program's HLO: framework op,
 * source and stack where the profile has none, the instruction as HLO
 * text (a fusion with its fused computation), shapes, estimated FLOPs and
 * bytes with the rates achieved, and its operands and users as links. */
static void
add_hlo (PlanarDetailsPane    *self,
         PlanarTrace          *trace,
         const PlanarPlane    *plane,
         const PlanarEvent    *event,
         const PlanarEventRef *ref)
{
  PlanarOpInfo info;
  const PlanarHloModule *module;
  const PlanarHloInstruction *in;
  g_autofree char *hlo = NULL;
  g_autofree const PlanarHloInstruction **related = NULL;
  g_autofree PlanarEventRef *targets = NULL;
  g_autoptr(GString) operand_shapes = g_string_new (NULL);
  guint n_related;

  gtk_widget_set_visible (GTK_WIDGET (self->hlo_heading), FALSE);
  if (!planar_op_info_init (&info, trace, plane, event, NULL))
    return;
  if (ref->track < plane->n_tracks && ref->index < plane->tracks[ref->track].n_events)
    planar_op_info_find_kernels (&info, trace, plane, &plane->tracks[ref->track], ref->index);
  if (info.framework_op_from == PLANAR_OP_VALUE_HLO)
    add_field (self, _("Framework op (HLO)"), info.framework_op, FALSE);
  if (info.source_from == PLANAR_OP_VALUE_HLO)
    add_field (self, _("Source (HLO)"), info.source, FALSE);
  if (info.stack_from == PLANAR_OP_VALUE_HLO)
    add_field (self, _("Stack (HLO)"), info.stack, TRUE);

  module = info.hlo.module;
  in = info.hlo.instruction;
  if (in != NULL)
    {
      hlo = planar_hlo_instruction_format (module, in, PLANAR_HLO_TEXT_DEFAULT);
      add_field (self, _("HLO instruction"), hlo, TRUE);
      for (guint i = 0; i < in->n_called && g_strcmp0 (in->opcode, "fusion") == 0; i++)
        {
          const PlanarHloComputation *called = planar_hlo_instruction_get_called (module, in, i);
          g_autofree char *text = planar_hlo_computation_format (module, (guint32) (called - module->computations),
                                                                 PLANAR_HLO_TEXT_DEFAULT);

          add_field (self, _("Fused computation"), text, TRUE);
        }
      add_field (self, _("Output shape"), planar_hlo_instruction_get_shape (module, in)->text, TRUE);
      for (guint i = 0; i < in->n_operands; i++)
        g_string_append_printf (operand_shapes, "%s%s", i ? "\n" : "",
                                planar_hlo_instruction_get_shape (module,
                                                                  planar_hlo_instruction_get_operand (module, in, i))->text);
      if (in->n_operands > 0)
        add_field (self, _("Operand shapes"), operand_shapes->str, TRUE);
    }

  /* The HLO's estimates, labelled so; the profile's own values are among
   * its stats above. They are the whole instruction's: when it ran as
   * several kernels, the pane says so and the rates are over their
   * summed time, never this kernel's alone. */
  if (info.flops_from == PLANAR_OP_VALUE_HLO || info.flops_unknown)
    {
      g_autofree char *value = info.flops_unknown ? g_strdup (_("unknown (the HLO does not tell)"))
                                                  : for_kernels (&info, planar_format_quantity (info.flops,
                                                                                                PLANAR_STAT_UNIT_FLOPS));

      add_field (self, _("FLOPs (estimated)"), value, FALSE);
    }
  if (info.bytes_from == PLANAR_OP_VALUE_HLO)
    {
      g_autofree char *value = for_kernels (&info, planar_format_quantity (info.bytes, PLANAR_STAT_UNIT_BYTES));

      add_field (self, _("Bytes accessed (estimated)"), value, FALSE);
    }
  /* Rates on a device: a host's event (the launch call) did not do the
   * work. */
  if ((info.flops_from == PLANAR_OP_VALUE_HLO || info.bytes_from == PLANAR_OP_VALUE_HLO)
      && g_str_has_prefix (plane->name, "/device:"))
    {
      g_autofree char *flops_rate = NULL;
      g_autofree char *bytes_rate = NULL;

      if (info.n_kernels > 1)
        {
          g_autofree char *time = planar_format_duration (info.kernels_ps);
          g_autofree char *share = g_strdup_printf ("%.0f%%", 100.0 * planar_op_info_get_share (&info, event->duration_ps));
          g_autofree char *text = NULL;
          g_autofree char *shown = NULL;

          /* Translators: the kernels one HLO instruction ran as, e.g. "3
           * kernels, 1.2 ms in all; this one 40% of that time". */
          text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u kernel, %s in all; this one %s of that time",
                                               "%u kernels, %s in all; this one %s of that time", info.n_kernels),
                                  info.n_kernels, time, share);
          shown = planar_stat_micro_sign (text);
          add_field (self, _("Kernels of this instruction"), shown, FALSE);
        }
      if (planar_format_achieved_rates (info.flops_from == PLANAR_OP_VALUE_HLO ? info.flops : 0,
                                        info.bytes_from == PLANAR_OP_VALUE_HLO ? info.bytes : 0,
                                        info.kernels_ps, &flops_rate, &bytes_rate))
        {
          if (flops_rate != NULL)
            add_field (self, info.n_kernels > 1 ? _("Achieved FLOP rate (estimated, over the instruction's kernels)")
                                                : _("Achieved FLOP rate (estimated)"), flops_rate, FALSE);
          if (bytes_rate != NULL)
            add_field (self, info.n_kernels > 1 ? _("Achieved bandwidth (estimated, over the instruction's kernels)")
                                                : _("Achieved bandwidth (estimated)"), bytes_rate, FALSE);
        }
    }

  /* Operands, then users, each found in the same execution of the module
   * on this device. */
  n_related = in != NULL ? in->n_operands + in->n_users : 0;
  if (n_related > 0)
    {
      related = g_new (const PlanarHloInstruction *, n_related);
      targets = g_new (PlanarEventRef, n_related);
      for (guint i = 0; i < in->n_operands; i++)
        related[i] = planar_hlo_instruction_get_operand (module, in, i);
      for (guint i = 0; i < in->n_users; i++)
        related[in->n_operands + i] = planar_hlo_instruction_get_user (module, in, i);
      planar_op_info_find_events (trace, ref->plane, event, module, related, n_related, MAX_LINK_EVENTS, targets);
      gtk_widget_set_visible (GTK_WIDGET (self->hlo_heading), TRUE);
      for (guint i = 0; i < n_related; i++)
        add_hlo_link (self, module, related[i], i < in->n_operands ? _("Operand") : _("User"), &targets[i],
                      ref->trace);
    }
  planar_op_info_clear (&info);
}

static void
show_event (PlanarDetailsPane *self,
            PlanarSelection   *selection)
{
  PlanarProfile *profile = planar_selection_get_profile (selection);
  const PlanarEventRef *refs = planar_selection_get_events (selection, NULL);
  PlanarTrace *trace = NULL;
  const PlanarPlane *plane = NULL;
  const PlanarTrack *track = NULL;
  const PlanarEvent *event = planar_selection_resolve (selection, 0, &trace, &plane, &track);
  const char *name;
  const char *display_name;

  if (event == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  self->shown_hlo = planar_trace_get_hlo_index (trace);
  name = planar_plane_get_event_name (plane, event, FALSE);
  display_name = planar_plane_get_event_name (plane, event, TRUE);
  gtk_label_set_text (self->title_label, display_name);
  g_string_append_printf (self->text, "%s\n", display_name);

  if (g_strcmp0 (name, display_name) != 0)
    add_field (self, _("Name"), name, FALSE);
  if (planar_profile_get_n_traces (profile) > 1)
    add_field (self, _("Host"), planar_trace_get_host_name (trace), FALSE);
  add_field (self, _("Plane"), plane->name, FALSE);
  add_field (self, _("Track"), track->display_name, FALSE);
  add_duration_field (self, _("Start"), event->start_ps);
  add_duration_field (self, _("Duration"), event->duration_ps);
  add_duration_field (self, _("Self time"), planar_track_get_self_time (track, refs[0].index));
  add_duration_field (self, _("End"), event->start_ps + event->duration_ps);
  if (event->flags & PLANAR_EVENT_DERIVED)
    {
      PlanarEventRef source;

      if (planar_trace_get_derived_source (trace, event, &source) && !planar_event_ref_is_none (&source))
        {
          const PlanarPlane *source_plane = planar_trace_get_plane (trace, source.plane);
          const PlanarTrack *source_track = &source_plane->tracks[source.track];
          g_autofree char *from = g_strdup_printf ("%s (%s)",
                                                   planar_plane_get_event_name (source_plane,
                                                                                &source_track->events[source.index],
                                                                                TRUE),
                                                   source_track->display_name);

          add_field (self, _("Derived from"), from, FALSE);
        }
    }
  if (event->flags & PLANAR_EVENT_OVERLAP)
    add_field (self, _("Note"), _("Starts inside the previous event and ends after it"), FALSE);
  add_stats (self, trace, plane, event);
  add_hlo (self, trace, plane, event, &refs[0]);
  add_flows (self, trace, &refs[0]);
  gtk_stack_set_visible_child_name (self->stack, "event");
}

/* The table's total row: count, wall and self time over every row, and
 * the span of the selection. */
static void
show_total (PlanarDetailsPane *self,
            PlanarAggregator  *aggregator,
            gint64             span_ps)
{
  g_autoptr(GArray) results = planar_aggregator_get_results (aggregator, PLANAR_AGGREGATE_SORT_NAME);
  gint64 wall = 0, self_time = 0;
  g_autofree char *wall_text = NULL;
  g_autofree char *self_text = NULL;
  g_autofree char *span_text = NULL;
  g_autofree char *text = NULL;
  g_autofree char *shown = NULL;

  for (guint i = 0; i < results->len; i++)
    {
      const PlanarAggregate *row = &g_array_index (results, PlanarAggregate, i);

      wall += row->total_ps;
      self_time += row->self_ps;
    }
  wall_text = planar_format_duration (wall);
  self_text = planar_format_duration (self_time);
  span_text = planar_format_duration (span_ps);
  /* Translators: the total row under the selection's table: a number of
   * events, then three durations. */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Total: %" PRIu64 " event · wall %s · self %s · span %s",
                                       "Total: %" PRIu64 " events · wall %s · self %s · span %s",
                                       planar_aggregator_get_n_events (aggregator)),
                          planar_aggregator_get_n_events (aggregator), wall_text, self_text, span_text);
  shown = planar_stat_micro_sign (text);
  gtk_label_set_text (self->table_total_label, shown);
}

/* What a table sums: the events of @selection, or every event of every
 * track meeting its range; in [*@first_ps, *@last_ps] the span of the
 * events. Any thread; it stops early when @cancellable is cancelled. */
static void
sum_selection (PlanarAggregator *aggregator,
               PlanarSelection  *selection,
               GCancellable     *cancellable,
               gint64           *first_ps,
               gint64           *last_ps)
{
  PlanarProfile *profile = planar_selection_get_profile (selection);
  gsize n_events = planar_selection_get_n_events (selection);
  gint64 t0, t1;

  *first_ps = G_MAXINT64;
  *last_ps = G_MININT64;
  /* One group per kind of track, one row per name inside it; a line of
   * steps is one row (a range over a thousand steps, one row of step times
   * at the table's top, not a thousand). */
  planar_aggregator_set_group_by_kind (aggregator, TRUE);
  planar_aggregator_set_step_lines_as_one (aggregator, TRUE);
  planar_aggregator_set_cancellable (aggregator, cancellable);
  if (n_events > 0)
    {
      const PlanarEventRef *refs = planar_selection_get_events (selection, NULL);

      for (gsize i = 0; i < n_events; i++)
        {
          const PlanarPlane *plane;
          const PlanarTrack *track;
          const PlanarEvent *ev;

          if (i % 65536 == 0 && g_cancellable_is_cancelled (cancellable))
            return;
          ev = planar_selection_resolve (selection, i, NULL, &plane, &track);
          if (ev != NULL)
            {
              planar_aggregator_add_event (aggregator, plane, track, refs[i].index);
              *first_ps = MIN (*first_ps, ev->start_ps);
              *last_ps = MAX (*last_ps, ev->start_ps + ev->duration_ps);
            }
        }
    }
  else if (planar_selection_get_range (selection, &t0, &t1))
    {
      /* A range alone: every event of every track that meets it. */
      for (guint h = 0; h < planar_profile_get_n_traces (profile); h++)
        {
          PlanarTrace *trace = planar_profile_get_trace (profile, h);

          for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
            {
              const PlanarPlane *plane = planar_trace_get_plane (trace, p);

              for (guint t = 0; t < plane->n_tracks && !g_cancellable_is_cancelled (cancellable); t++)
                if (planar_trace_is_track_ready (trace, p, t))
                  planar_aggregator_add_track (aggregator, plane, &plane->tracks[t], t0, t1);
            }
        }
    }
  if (planar_selection_get_range (selection, &t0, &t1))
    {
      *first_ps = t0;
      *last_ps = t1;
    }
}

/* About how many events a table of @selection sums: its events, or those
 * of the ready tracks that start in its range. */
static guint64
table_size (PlanarSelection *selection)
{
  PlanarProfile *profile = planar_selection_get_profile (selection);
  guint64 n = planar_selection_get_n_events (selection);
  gint64 t0, t1;

  if (n > 0 || !planar_selection_get_range (selection, &t0, &t1))
    return n;
  for (guint h = 0; h < planar_profile_get_n_traces (profile); h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);

          for (guint t = 0; t < plane->n_tracks; t++)
            if (planar_trace_is_track_ready (trace, p, t))
              n += planar_track_count_starting_in (&plane->tracks[t], t0, t1);
        }
    }
  return n;
}

/* The table's rows, total and heading from @aggregator's sums. */
static void
fill_table (PlanarDetailsPane *self,
            PlanarSelection   *selection,
            PlanarAggregator  *aggregator,
            gint64             first_ps,
            gint64             last_ps)
{
  g_autofree char *count = NULL;
  g_autofree char *label = NULL;
  gint64 t0, t1;

  planar_aggregate_rows_fill (self->rows, aggregator);
  show_total (self, aggregator, first_ps <= last_ps ? last_ps - first_ps : 0);

  count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " event", "%" PRIu64 " events",
                                        planar_aggregator_get_n_events (aggregator)),
                           planar_aggregator_get_n_events (aggregator));
  if (planar_selection_get_range (selection, &t0, &t1))
    {
      g_autofree char *width = planar_format_duration (t1 - t0);
      g_autofree char *start = planar_format_duration (t0);
      g_autofree char *text = NULL;

      /* Translators: "12 events in 1.500 ms from 3.000 ms". */
      text = g_strdup_printf (_("%s in %s from %s"), count, width, start);
      label = planar_stat_micro_sign (text);
    }
  else
    label = g_strdup_printf (_("%s selected"), count);
  gtk_label_set_text (self->table_label, label);
  gtk_stack_set_visible_child_name (self->stack, "table");
}

typedef struct
{
  PlanarSelection  *selection;
  PlanarAggregator *aggregator;
  gint64            first_ps;
  gint64            last_ps;
} TableJob;

static void
table_job_free (gpointer data)
{
  TableJob *job = data;

  g_object_unref (job->selection);
  g_clear_pointer (&job->aggregator, planar_aggregator_free);
  g_free (job);
}

static void
sum_in_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  TableJob *job = task_data;

  sum_selection (job->aggregator, job->selection, cancellable, &job->first_ps, &job->last_ps);
  planar_aggregator_set_cancellable (job->aggregator, NULL);
  if (!g_task_return_error_if_cancelled (task))
    g_task_return_boolean (task, TRUE);
}

static void
table_summed (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  PlanarDetailsPane *self = PLANAR_DETAILS_PANE (source);
  TableJob *job = g_task_get_task_data (G_TASK (result));

  /* Cancelled: another selection, or none, is shown by now. */
  if (!g_task_propagate_boolean (G_TASK (result), NULL) || job->selection != self->shown)
    return;
  g_clear_object (&self->table_cancellable);
  fill_table (self, job->selection, job->aggregator, job->first_ps, job->last_ps);
}

static void
cancel_table (PlanarDetailsPane *self)
{
  if (self->table_cancellable != NULL)
    g_cancellable_cancel (self->table_cancellable);
  g_clear_object (&self->table_cancellable);
}

static void
show_table (PlanarDetailsPane *self,
            PlanarSelection   *selection)
{
  guint64 size = table_size (selection);

  /* A table a frame can wait for is made here; a larger one in a worker,
   * so that the window stays live: a range over a few rows of a 10^8-event
   * profile is millions of events, seconds of work. */
  if (size <= self->async_min)
    {
      g_autoptr(PlanarAggregator) aggregator = planar_aggregator_new ();
      gint64 first_ps, last_ps;

      sum_selection (aggregator, selection, NULL, &first_ps, &last_ps);
      fill_table (self, selection, aggregator, first_ps, last_ps);
    }
  else
    {
      g_autoptr(GTask) task = NULL;
      g_autofree char *text = NULL;
      TableJob *job = g_new0 (TableJob, 1);

      job->selection = g_object_ref (selection);
      job->aggregator = planar_aggregator_new ();
      self->table_cancellable = g_cancellable_new ();
      task = g_task_new (self, self->table_cancellable, table_summed, NULL);
      g_task_set_source_tag (task, show_table);
      g_task_set_name (task, "[planar] details table");
      g_task_set_task_data (task, job, table_job_free);
      g_task_run_in_thread (task, sum_in_thread);

      g_list_store_remove_all (self->rows);
      gtk_label_set_text (self->table_total_label, "");
      /* Translators: while the table of a large selection is made; about
       * how many events it sums. */
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Summing about %" PRIu64 " event…",
                                           "Summing about %" PRIu64 " events…", size), size);
      gtk_label_set_text (self->table_label, text);
      gtk_stack_set_visible_child_name (self->stack, "table");
    }
}

static void
update (PlanarDetailsPane *self)
{
  PlanarSelection *selection = self->timeline != NULL
                               ? planar_timeline_view_get_selection (planar_timeline_get_timeline_view (self->timeline)) : NULL;

  if (selection != NULL && selection == self->shown)
    return;
  g_set_object (&self->shown, selection);
  self->shown_hlo = NULL;
  cancel_table (self);

  clear_box (GTK_WIDGET (self->fields_grid));
  clear_box (GTK_WIDGET (self->flows_box));
  clear_box (GTK_WIDGET (self->hlo_box));
  gtk_widget_set_visible (GTK_WIDGET (self->hlo_heading), FALSE);
  g_string_truncate (self->text, 0);
  self->n_fields = 0;
  g_array_set_size (self->flow_targets, 0);

  if (selection == NULL || planar_selection_is_empty (selection) || planar_selection_get_profile (selection) == NULL)
    {
      g_list_store_remove_all (self->rows);
      gtk_stack_set_visible_child_name (self->stack, "empty");
    }
  else if (planar_selection_get_n_events (selection) == 1 && !planar_selection_get_range (selection, NULL, NULL))
    {
      g_list_store_remove_all (self->rows);
      show_event (self, selection);
    }
  else
    show_table (self, selection);
}

static void
selection_changed (PlanarDetailsPane *self)
{
  update (self);
}

/* The profile's tracks changed while an event is shown: when that is its
 * trace's HLO index landing, the pane shows what the HLO adds. */
static void
profile_tracks_changed (PlanarDetailsPane *self)
{
  PlanarTrace *trace = NULL;

  if (self->shown == NULL || planar_selection_get_n_events (self->shown) != 1 ||
      planar_selection_get_range (self->shown, NULL, NULL) ||
      planar_selection_resolve (self->shown, 0, &trace, NULL, NULL) == NULL ||
      planar_trace_get_hlo_index (trace) == self->shown_hlo)
    return;
  g_clear_object (&self->shown);
  update (self);
}

static void
watch_profile (PlanarDetailsPane *self)
{
  PlanarProfile *profile = self->timeline != NULL ? planar_timeline_get_profile (self->timeline) : NULL;

  if (profile == self->watched_profile)
    return;
  if (self->watched_profile != NULL)
    g_clear_signal_handler (&self->profile_handler, self->watched_profile);
  g_set_weak_pointer (&self->watched_profile, profile);
  if (profile != NULL)
    self->profile_handler = g_signal_connect_object (profile, "tracks-changed", G_CALLBACK (profile_tracks_changed),
                                                     self, G_CONNECT_SWAPPED);
}

static void
follow_flow (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  PlanarDetailsPane *self = PLANAR_DETAILS_PANE (widget);
  guint index = g_variant_get_uint32 (parameter);
  PlanarEventRef target;
  g_autoptr(PlanarSelection) selection = NULL;
  PlanarProfile *profile;

  if (self->timeline == NULL || index >= self->flow_targets->len)
    return;
  profile = planar_timeline_get_profile (self->timeline);
  if (profile == NULL)
    return;
  target = g_array_index (self->flow_targets, PlanarEventRef, index);
  selection = planar_selection_new_for_event (profile, &target);
  planar_timeline_set_selection (self->timeline, selection);
  planar_timeline_reveal_event (self->timeline, &target);
}

static void
row_activated (GtkColumnView     *view,
               guint              position,
               PlanarDetailsPane *self)
{
  planar_details_pane_activate_row (self, position);
}

static void
planar_details_pane_dispose (GObject *object)
{
  PlanarDetailsPane *self = PLANAR_DETAILS_PANE (object);

  planar_details_pane_set_timeline (self, NULL);
  cancel_table (self);
  g_clear_object (&self->shown);
  gtk_widget_dispose_template (GTK_WIDGET (self), PLANAR_TYPE_DETAILS_PANE);
  g_clear_object (&self->sorted_rows);
  g_clear_object (&self->rows);
  G_OBJECT_CLASS (planar_details_pane_parent_class)->dispose (object);
}

static void
planar_details_pane_finalize (GObject *object)
{
  PlanarDetailsPane *self = PLANAR_DETAILS_PANE (object);

  g_string_free (self->text, TRUE);
  g_array_unref (self->flow_targets);
  G_OBJECT_CLASS (planar_details_pane_parent_class)->finalize (object);
}

static void
planar_details_pane_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  PlanarDetailsPane *self = PLANAR_DETAILS_PANE (object);

  switch (prop_id)
    {
    case PROP_TIMELINE:
      g_value_set_object (value, self->timeline);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_details_pane_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  PlanarDetailsPane *self = PLANAR_DETAILS_PANE (object);

  switch (prop_id)
    {
    case PROP_TIMELINE:
      planar_details_pane_set_timeline (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_details_pane_class_init (PlanarDetailsPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_details_pane_dispose;
  object_class->finalize = planar_details_pane_finalize;
  object_class->get_property = planar_details_pane_get_property;
  object_class->set_property = planar_details_pane_set_property;

  properties[PROP_TIMELINE] = g_param_spec_object ("timeline", NULL, NULL, PLANAR_TYPE_TIMELINE,
                                                   G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Asks for a search of the profile for events named @name. */
  signals[SIGNAL_SEARCH] = g_signal_new ("search", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                         NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* Reading an event's stats found its host file changed on disk. */
  signals[SIGNAL_FILE_CHANGED] = g_signal_new ("file-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_install_action (widget_class, "details.follow-flow", "u", follow_flow);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "planar-details");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/planar/Planar/planar-details-pane.ui");
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, stack);
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, title_label);
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, table_total_label);
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, fields_grid);
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, flows_heading);
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, flows_box);
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, hlo_heading);
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, hlo_box);
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, table_label);
  gtk_widget_class_bind_template_child (widget_class, PlanarDetailsPane, table_view);
}

static void
planar_details_pane_init (PlanarDetailsPane *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->text = g_string_new (NULL);
  self->flow_targets = g_array_new (FALSE, FALSE, sizeof (PlanarEventRef));
  self->async_min = PLANAR_DETAILS_PANE_ASYNC_MIN;

  self->rows = g_list_store_new (PLANAR_TYPE_AGGREGATE_ROW);
  self->sorted_rows = planar_aggregate_view_setup_by_kind (self->table_view, self->rows, TRUE);
  g_signal_connect (self->table_view, "activate", G_CALLBACK (row_activated), self);
  gtk_stack_set_visible_child_name (self->stack, "empty");
}

GtkWidget *
planar_details_pane_new (void)
{
  return g_object_new (PLANAR_TYPE_DETAILS_PANE, NULL);
}

PlanarTimeline *
planar_details_pane_get_timeline (PlanarDetailsPane *self)
{
  g_return_val_if_fail (PLANAR_IS_DETAILS_PANE (self), NULL);
  return self->timeline;
}

void
planar_details_pane_set_timeline (PlanarDetailsPane *self,
                                  PlanarTimeline    *timeline)
{
  g_return_if_fail (PLANAR_IS_DETAILS_PANE (self));
  g_return_if_fail (timeline == NULL || PLANAR_IS_TIMELINE (timeline));

  if (self->timeline == timeline)
    return;
  if (self->timeline != NULL)
    {
      g_clear_signal_handler (&self->selection_handler, planar_timeline_get_timeline_view (self->timeline));
      g_clear_signal_handler (&self->timeline_profile_handler, self->timeline);
      g_clear_object (&self->timeline);
    }
  if (timeline != NULL)
    {
      self->timeline = g_object_ref (timeline);
      self->selection_handler = g_signal_connect_swapped (planar_timeline_get_timeline_view (timeline), "notify::selection",
                                                          G_CALLBACK (selection_changed), self);
      self->timeline_profile_handler = g_signal_connect_swapped (timeline, "notify::profile",
                                                                 G_CALLBACK (watch_profile), self);
    }
  watch_profile (self);
  if (self->stack != NULL)
    update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TIMELINE]);
}

char *
planar_details_pane_dup_text (PlanarDetailsPane *self)
{
  g_return_val_if_fail (PLANAR_IS_DETAILS_PANE (self), NULL);

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "event") != 0)
    return NULL;
  return g_strdup (self->text->str);
}

void
_planar_details_pane_set_async_min (PlanarDetailsPane *self,
                                    guint64            n_events)
{
  g_return_if_fail (PLANAR_IS_DETAILS_PANE (self));

  self->async_min = n_events;
}

GListModel *
planar_details_pane_get_rows (PlanarDetailsPane *self)
{
  g_return_val_if_fail (PLANAR_IS_DETAILS_PANE (self), NULL);

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "table") != 0)
    return NULL;
  return G_LIST_MODEL (self->sorted_rows);
}

void
planar_details_pane_activate_row (PlanarDetailsPane *self,
                                  guint              position)
{
  g_autoptr(PlanarAggregateRow) row = NULL;

  g_return_if_fail (PLANAR_IS_DETAILS_PANE (self));

  row = g_list_model_get_item (G_LIST_MODEL (self->sorted_rows), position);
  if (row != NULL)
    g_signal_emit (self, signals[SIGNAL_SEARCH], 0, planar_aggregate_row_get_name (row));
}
