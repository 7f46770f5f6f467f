/* planar-find-bar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-find-bar.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "planar-model.h"

struct _PlanarFindBar
{
  GtkWidget         parent_instance;

  GtkRevealer      *revealer;
  GtkSearchEntry   *entry;
  GtkToggleButton  *regex_button;
  GtkToggleButton  *case_button;
  GtkLabel         *count_label;
  GtkToggleButton  *results_button;
  GtkButton        *zoom_button;

  PlanarTimeline   *timeline;

  /* The search that runs, and the last one that completed (whose hits
   * are shown). */
  PlanarSearch     *running;
  GCancellable     *cancellable;
  PlanarSearch     *search;
  PlanarSearchHits *hits;
  /* The same hits by track, for the timeline to highlight, built in a
   * worker once the search has completed. */
  PlanarSearchHitIndex *hit_index;
  GCancellable     *index_cancellable;
  gint64            current;
  /* The timeline's view, followed for the selection. */
  PlanarTimelineView *view;
  gulong            selection_handler;
  /* Set when a search is asked for while the profile still loads. */
  gboolean          pending;
  /* A step asked for (Enter) while the search was running or waited for
   * the profile: 1, -1 or 0; and whether the view zooms to the hit then
   * (Alt+Enter). */
  int               pending_step;
  gboolean          pending_zoom;
  /* What the last search was started with (NULL: none yet), so that
   * Enter right after typing searches what is typed, and the entry's
   * delayed search-changed that follows does not start it again. */
  char             *searched_text;
  PlanarSearchFlags searched_flags;
};

G_DEFINE_FINAL_TYPE (PlanarFindBar, planar_find_bar, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_HITS,
  PROP_SHOW_RESULTS,
  PROP_OPEN,
  N_PROPS
};

enum
{
  SIGNAL_CLOSED,
  SIGNAL_SEARCH_DONE,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void step (PlanarFindBar *self,
                  int            direction);
static void zoom_to_hit (PlanarFindBar *self);

static PlanarSearchFlags
current_flags (PlanarFindBar *self)
{
  PlanarSearchFlags flags = PLANAR_SEARCH_DEFAULT;

  if (gtk_toggle_button_get_active (self->regex_button))
    flags |= PLANAR_SEARCH_REGEX;
  if (gtk_toggle_button_get_active (self->case_button))
    flags |= PLANAR_SEARCH_CASE_SENSITIVE;
  return flags;
}

static void
set_error_state (PlanarFindBar *self,
                 gboolean       error)
{
  if (error)
    gtk_widget_add_css_class (GTK_WIDGET (self->entry), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->entry), "error");
}

static void
update_count (PlanarFindBar *self)
{
  g_autofree char *text = NULL;
  guint64 n;

  if (self->search == NULL)
    return;
  n = planar_search_get_n_hits (self->search);
  if (n == 0)
    text = g_strdup (_("No results"));
  else if (self->current < 0)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " result",
                                         "%" PRIu64 " results", n), n);
  else
    /* Translators: "3 of 1250", the hit selected and how many there are. */
    text = g_strdup_printf (_("%" PRId64 " of %" PRIu64), (gint64) self->current + 1, n);
  gtk_label_set_text (self->count_label, text);
  set_error_state (self, n == 0);
}

/* The timeline highlights the hits while the bar is open. */
static void
update_highlight (PlanarFindBar *self)
{
  if (self->timeline == NULL)
    return;
  planar_timeline_set_search_hits (self->timeline,
                                   planar_find_bar_get_open (self) ? self->hit_index : NULL);
}

static void
hit_index_built (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(PlanarFindBar) self = user_data;
  g_autoptr(PlanarSearchHitIndex) index = planar_search_hit_index_new_finish (result, NULL);

  /* Cancelled, or the hits of a search replaced since. */
  if (index == NULL || planar_search_hit_index_get_search (index) != self->search)
    return;
  g_clear_object (&self->index_cancellable);
  self->hit_index = g_steal_pointer (&index);
  update_highlight (self);
}

static void
set_search (PlanarFindBar *self,
            PlanarSearch  *search)
{
  g_set_object (&self->search, search);
  g_clear_object (&self->hits);
  self->hits = planar_search_hits_new (search);
  g_clear_pointer (&self->hit_index, planar_search_hit_index_unref);
  if (self->index_cancellable != NULL)
    g_cancellable_cancel (self->index_cancellable);
  g_clear_object (&self->index_cancellable);
  if (search != NULL && planar_search_get_n_hits (search) > 0)
    {
      self->index_cancellable = g_cancellable_new ();
      planar_search_hit_index_new_async (search, self->index_cancellable, hit_index_built, g_object_ref (self));
    }
  update_highlight (self);
  self->current = -1;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HITS]);
  update_count (self);
}

static void
cancel_running (PlanarFindBar *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->running);
}

static void
search_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(PlanarFindBar) self = user_data;
  PlanarSearch *search = PLANAR_SEARCH (source);
  g_autoptr(GError) error = NULL;

  if (!planar_search_run_finish (search, result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && self->running == search)
        {
          g_clear_object (&self->running);
          g_clear_object (&self->cancellable);
          gtk_label_set_text (self->count_label, error->message);
          set_error_state (self, TRUE);
        }
      return;
    }
  if (self->running != search)
    return;
  g_clear_object (&self->cancellable);
  set_search (self, search);
  g_clear_object (&self->running);
  g_signal_emit (self, signals[SIGNAL_SEARCH_DONE], 0);
  if (self->pending_step != 0)
    {
      int direction = self->pending_step;
      gboolean zoom = self->pending_zoom;

      self->pending_step = 0;
      self->pending_zoom = FALSE;
      step (self, direction);
      if (zoom)
        zoom_to_hit (self);
    }
}

static void
start_search (PlanarFindBar *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->entry));
  PlanarProfile *profile = self->timeline != NULL ? planar_timeline_get_profile (self->timeline) : NULL;
  g_autoptr(GError) error = NULL;
  PlanarSearchFlags flags = current_flags (self);

  cancel_running (self);
  self->pending = FALSE;
  self->pending_step = 0;
  self->pending_zoom = FALSE;
  g_free (self->searched_text);
  self->searched_text = g_strdup (text);
  self->searched_flags = flags;
  /* The old hits answer another pattern. */
  set_search (self, NULL);

  if (text[0] == '\0')
    {
      gtk_label_set_text (self->count_label, "");
      set_error_state (self, FALSE);
      return;
    }
  if (!planar_search_check_pattern (text, flags, &error))
    {
      gtk_label_set_text (self->count_label, error->message);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->count_label), error->message);
      set_error_state (self, TRUE);
      return;
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->count_label), NULL);
  set_error_state (self, FALSE);
  if (profile == NULL || !planar_profile_is_loaded (profile))
    {
      /* Searched again by planar_find_bar_refresh() once loaded. */
      self->pending = TRUE;
      gtk_label_set_text (self->count_label, profile == NULL ? "" : _("Waiting for the profile…"));
      return;
    }

  self->running = planar_search_new (profile, text, flags, &error);
  if (self->running == NULL)
    {
      gtk_label_set_text (self->count_label, error->message);
      set_error_state (self, TRUE);
      return;
    }
  self->cancellable = g_cancellable_new ();
  gtk_label_set_text (self->count_label, _("Searching…"));
  planar_search_run_async (self->running, self->cancellable, search_done, g_object_ref (self));
}

/* Whether the last search started is of what the entry and the buttons
 * say now. */
static gboolean
search_is_current (PlanarFindBar *self)
{
  return self->searched_text != NULL
         && strcmp (self->searched_text, gtk_editable_get_text (GTK_EDITABLE (self->entry))) == 0
         && self->searched_flags == current_flags (self);
}

/* Before a step: the entry reports a change only after a delay, so Enter
 * typed right after the pattern would step the last pattern's hits, or
 * none, and the search started after it would forget it. What is typed is
 * searched now instead (the step waits for it), and the delayed report
 * that follows finds it current. */
static void
search_now (PlanarFindBar *self)
{
  if (!search_is_current (self))
    start_search (self);
}

/* The first hit at or after the start of the view, so that Enter after a
 * new search goes to what the user is looking at. */
static guint64
first_hit_in_view (PlanarFindBar *self)
{
  guint64 lo = 0, hi = planar_search_get_n_hits (self->search);
  gint64 start = planar_timeline_view_get_start_ps (self->view);

  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;

      if (planar_search_get_hit (self->search, mid)->start_ps < start)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < planar_search_get_n_hits (self->search) ? lo : 0;
}

static void
step (PlanarFindBar *self,
      int            direction)
{
  guint64 n;
  guint64 next;

  if (self->running != NULL || self->pending)
    {
      self->pending_step = direction;
      return;
    }
  if (self->search == NULL || self->timeline == NULL)
    return;
  n = planar_search_get_n_hits (self->search);
  if (n == 0)
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  if (self->current < 0)
    {
      next = first_hit_in_view (self);
      if (direction < 0)
        next = next == 0 ? n - 1 : next - 1;
    }
  else if (direction > 0)
    next = (guint64) self->current + 1 >= n ? 0 : (guint64) self->current + 1;
  else
    next = self->current == 0 ? n - 1 : (guint64) self->current - 1;
  planar_find_bar_select_hit (self, next);
}

/* What f does on the timeline, for the hit selected (the first in view
 * when none is yet). */
static void
zoom_to_hit (PlanarFindBar *self)
{
  search_now (self);
  if (self->running != NULL || self->pending)
    {
      if (self->pending_step == 0)
        self->pending_step = 1;
      self->pending_zoom = TRUE;
      return;
    }
  if (self->search == NULL || self->timeline == NULL || planar_search_get_n_hits (self->search) == 0)
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  if (self->current < 0)
    step (self, 1);
  gtk_widget_activate_action (GTK_WIDGET (self->timeline), "timeline.zoom-to-selection", NULL);
}

static void
zoom_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  zoom_to_hit (PLANAR_FIND_BAR (widget));
}

static void
next_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  step (PLANAR_FIND_BAR (widget), 1);
}

static void
previous_activated (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  step (PLANAR_FIND_BAR (widget), -1);
}

static void
close_activated (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  planar_find_bar_close (PLANAR_FIND_BAR (widget));
}

static void
entry_changed (PlanarFindBar *self)
{
  /* Started already, by an Enter that came before this report. */
  if (search_is_current (self))
    return;
  start_search (self);
}

static void
entry_activated (PlanarFindBar *self)
{
  /* Enter before the search ends steps once it has. */
  search_now (self);
  step (self, 1);
}

/* Escape closes the hit list when it is open, otherwise the bar. */
static void
entry_stopped (PlanarFindBar *self)
{
  if (gtk_toggle_button_get_active (self->results_button))
    gtk_toggle_button_set_active (self->results_button, FALSE);
  else
    planar_find_bar_close (self);
}

/* Shift+Enter goes back; GtkSearchEntry activates on both. Alt+Enter zooms
 * to the hit. */
static gboolean
entry_key_pressed (GtkEventControllerKey *controller,
                   guint                  keyval,
                   guint                  keycode,
                   GdkModifierType        state,
                   PlanarFindBar         *self)
{
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter)
      && (state & GDK_SHIFT_MASK) != 0)
    {
      search_now (self);
      step (self, -1);
      return TRUE;
    }
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter)
      && (state & GDK_ALT_MASK) != 0)
    {
      zoom_to_hit (self);
      return TRUE;
    }
  return FALSE;
}

/* Escape on the bar's buttons does what it does in the entry. */
static gboolean
bar_key_pressed (GtkEventControllerKey *controller,
                 guint                  keyval,
                 guint                  keycode,
                 GdkModifierType        state,
                 PlanarFindBar         *self)
{
  if (keyval != GDK_KEY_Escape || (state & gtk_accelerator_get_default_mod_mask ()) != 0)
    return FALSE;
  entry_stopped (self);
  return TRUE;
}

static void
search_mode_changed (PlanarFindBar *self)
{
  if (!gtk_revealer_get_reveal_child (self->revealer))
    {
      cancel_running (self);
      /* Closing the bar closes its list. */
      gtk_toggle_button_set_active (self->results_button, FALSE);
      g_signal_emit (self, signals[SIGNAL_CLOSED], 0);
    }
  update_highlight (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPEN]);
}

static void
planar_find_bar_dispose (GObject *object)
{
  PlanarFindBar *self = PLANAR_FIND_BAR (object);

  cancel_running (self);
  if (self->view != NULL)
    g_clear_signal_handler (&self->selection_handler, self->view);
  g_clear_object (&self->view);
  g_clear_object (&self->timeline);
  g_clear_object (&self->search);
  g_clear_object (&self->hits);
  g_clear_pointer (&self->hit_index, planar_search_hit_index_unref);
  if (self->index_cancellable != NULL)
    g_cancellable_cancel (self->index_cancellable);
  g_clear_object (&self->index_cancellable);
  g_clear_pointer (&self->searched_text, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), PLANAR_TYPE_FIND_BAR);
  G_OBJECT_CLASS (planar_find_bar_parent_class)->dispose (object);
}

static void
planar_find_bar_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  PlanarFindBar *self = PLANAR_FIND_BAR (object);

  switch (prop_id)
    {
    case PROP_HITS:
      g_value_set_object (value, self->hits);
      break;
    case PROP_SHOW_RESULTS:
      g_value_set_boolean (value, gtk_toggle_button_get_active (self->results_button));
      break;
    case PROP_OPEN:
      g_value_set_boolean (value, planar_find_bar_get_open (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_find_bar_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  PlanarFindBar *self = PLANAR_FIND_BAR (object);

  switch (prop_id)
    {
    case PROP_SHOW_RESULTS:
      gtk_toggle_button_set_active (self->results_button, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
results_toggled (PlanarFindBar *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_RESULTS]);
}

static void
planar_find_bar_class_init (PlanarFindBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = planar_find_bar_dispose;
  object_class->get_property = planar_find_bar_get_property;
  object_class->set_property = planar_find_bar_set_property;

  properties[PROP_HITS] = g_param_spec_object ("hits", NULL, NULL, G_TYPE_LIST_MODEL,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_RESULTS] = g_param_spec_boolean ("show-results", NULL, NULL, FALSE,
                                                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                                        | G_PARAM_STATIC_STRINGS);
  properties[PROP_OPEN] = g_param_spec_boolean ("open", NULL, NULL, FALSE,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_CLOSED] = g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                         NULL, G_TYPE_NONE, 0);
  /* A search has completed and its hits are shown. */
  signals[SIGNAL_SEARCH_DONE] = g_signal_new ("search-done", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                              NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_install_action (widget_class, "find.next", NULL, next_activated);
  gtk_widget_class_install_action (widget_class, "find.previous", NULL, previous_activated);
  gtk_widget_class_install_action (widget_class, "find.close", NULL, close_activated);
  gtk_widget_class_install_action (widget_class, "find.zoom", NULL, zoom_activated);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "planar-find-bar");
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/planar/Planar/planar-find-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, PlanarFindBar, revealer);
  gtk_widget_class_bind_template_child (widget_class, PlanarFindBar, entry);
  gtk_widget_class_bind_template_child (widget_class, PlanarFindBar, regex_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarFindBar, case_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarFindBar, count_label);
  gtk_widget_class_bind_template_child (widget_class, PlanarFindBar, results_button);
  gtk_widget_class_bind_template_child (widget_class, PlanarFindBar, zoom_button);
}

static void
planar_find_bar_init (PlanarFindBar *self)
{
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->current = -1;
  self->hits = planar_search_hits_new (NULL);

  g_signal_connect_swapped (self->entry, "search-changed", G_CALLBACK (entry_changed), self);
  g_signal_connect_swapped (self->entry, "activate", G_CALLBACK (entry_activated), self);
  g_signal_connect_swapped (self->entry, "stop-search", G_CALLBACK (entry_stopped), self);
  g_signal_connect_swapped (self->entry, "next-match", G_CALLBACK (entry_activated), self);
  g_signal_connect_swapped (self->regex_button, "toggled", G_CALLBACK (entry_changed), self);
  g_signal_connect_swapped (self->case_button, "toggled", G_CALLBACK (entry_changed), self);
  g_signal_connect_swapped (self->results_button, "toggled", G_CALLBACK (results_toggled), self);
  g_signal_connect_swapped (self->revealer, "notify::reveal-child", G_CALLBACK (search_mode_changed), self);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (entry_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self->entry), keys);

  keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (bar_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

GtkWidget *
planar_find_bar_new (void)
{
  return g_object_new (PLANAR_TYPE_FIND_BAR, NULL);
}

/* The selection moved off the current hit (a click elsewhere): the count
 * stops naming it, and the next Enter starts from the view. */
static void
selection_changed (PlanarFindBar *self)
{
  PlanarSelection *selection = planar_timeline_view_get_selection (self->view);
  const PlanarEventRef *refs = NULL;
  gsize n = 0;

  if (self->search == NULL || self->current < 0 || (guint64) self->current >= planar_search_get_n_hits (self->search))
    return;
  if (selection != NULL)
    refs = planar_selection_get_events (selection, &n);
  if (n == 1 && planar_event_ref_equal (&refs[0], &planar_search_get_hit (self->search, (guint64) self->current)->ref))
    return;
  self->current = -1;
  update_count (self);
}

void
planar_find_bar_set_timeline (PlanarFindBar  *self,
                              PlanarTimeline *timeline)
{
  g_return_if_fail (PLANAR_IS_FIND_BAR (self));
  g_return_if_fail (timeline == NULL || PLANAR_IS_TIMELINE (timeline));

  if (self->timeline != NULL)
    planar_timeline_set_search_hits (self->timeline, NULL);
  if (self->view != NULL)
    g_clear_signal_handler (&self->selection_handler, self->view);
  g_clear_object (&self->view);
  g_set_object (&self->timeline, timeline);
  if (timeline != NULL)
    {
      self->view = g_object_ref (planar_timeline_get_timeline_view (timeline));
      self->selection_handler = g_signal_connect_swapped (self->view, "notify::selection",
                                                          G_CALLBACK (selection_changed), self);
    }
  planar_find_bar_refresh (self);
}

void
planar_find_bar_refresh (PlanarFindBar *self)
{
  g_return_if_fail (PLANAR_IS_FIND_BAR (self));

  /* The hits point into the old profile: drop them before anything else. */
  cancel_running (self);
  set_search (self, NULL);
  if (planar_find_bar_get_open (self) || self->pending)
    {
      /* Enter pressed while the search waited for the profile is kept for
       * the search that now runs. */
      int step_asked = self->pending && search_is_current (self) ? self->pending_step : 0;
      gboolean zoom_asked = step_asked != 0 && self->pending_zoom;

      start_search (self);
      if (self->running != NULL)
        {
          self->pending_step = step_asked;
          self->pending_zoom = zoom_asked;
        }
    }
}

gboolean
planar_find_bar_get_open (PlanarFindBar *self)
{
  g_return_val_if_fail (PLANAR_IS_FIND_BAR (self), FALSE);
  return gtk_revealer_get_reveal_child (self->revealer);
}

void
planar_find_bar_open (PlanarFindBar *self)
{
  g_return_if_fail (PLANAR_IS_FIND_BAR (self));

  gtk_revealer_set_reveal_child (self->revealer, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->entry));
  gtk_editable_select_region (GTK_EDITABLE (self->entry), 0, -1);
}

void
planar_find_bar_close (PlanarFindBar *self)
{
  g_return_if_fail (PLANAR_IS_FIND_BAR (self));

  gtk_revealer_set_reveal_child (self->revealer, FALSE);
}

void
planar_find_bar_set_text (PlanarFindBar *self,
                          const char    *text,
                          gboolean       regex)
{
  g_return_if_fail (PLANAR_IS_FIND_BAR (self));
  g_return_if_fail (text != NULL);

  g_signal_handlers_block_by_func (self->entry, entry_changed, self);
  g_signal_handlers_block_by_func (self->regex_button, entry_changed, self);
  gtk_toggle_button_set_active (self->regex_button, regex);
  gtk_editable_set_text (GTK_EDITABLE (self->entry), text);
  g_signal_handlers_unblock_by_func (self->regex_button, entry_changed, self);
  g_signal_handlers_unblock_by_func (self->entry, entry_changed, self);
  start_search (self);
}

PlanarSearch *
planar_find_bar_get_search (PlanarFindBar *self)
{
  g_return_val_if_fail (PLANAR_IS_FIND_BAR (self), NULL);
  return self->search;
}

GListModel *
planar_find_bar_get_hits (PlanarFindBar *self)
{
  g_return_val_if_fail (PLANAR_IS_FIND_BAR (self), NULL);
  return G_LIST_MODEL (self->hits);
}

gint64
planar_find_bar_get_current (PlanarFindBar *self)
{
  g_return_val_if_fail (PLANAR_IS_FIND_BAR (self), -1);
  return self->current;
}

void
planar_find_bar_select_hit (PlanarFindBar *self,
                            guint64        index)
{
  const PlanarSearchHit *hit;
  PlanarEventRef ref;
  g_autoptr(PlanarSelection) selection = NULL;
  PlanarProfile *profile;

  g_return_if_fail (PLANAR_IS_FIND_BAR (self));

  if (self->search == NULL || self->timeline == NULL || index >= planar_search_get_n_hits (self->search))
    return;
  profile = planar_timeline_get_profile (self->timeline);
  if (profile == NULL)
    return;
  hit = planar_search_get_hit (self->search, index);
  ref = hit->ref;
  self->current = (gint64) index;
  selection = planar_selection_new_for_event (profile, &ref);
  planar_timeline_set_selection (self->timeline, selection);
  planar_timeline_show_event (self->timeline, &ref);
  update_count (self);
}
