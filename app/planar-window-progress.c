/* planar-window-progress.c: what a window says of a load under way (the
 * progress bar, bound to the profile's loaders through the profile's
 * "fraction" and "message") and of what the load lost (the message bar).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-window-private.h"

#include <glib/gi18n.h>

char *
_planar_window_progress_text (double    fraction,
                              gboolean  finished,
                              double   *shown)
{
  /* Nothing read yet, or a cached index being restored (it reads no
   * bytes): how far is not known, so the bar pulses without a number
   * rather than say 0 %. */
  if (!finished && fraction <= 0.0)
    {
      *shown = 0.0;
      return NULL;
    }
  /* Every byte read, but the tracks, the derived lines and the indices
   * are still being built: never 100 % while work continues. */
  if (!finished && fraction >= 0.995)
    {
      *shown = 0.995;
      return g_strdup (_("Finishing…"));
    }
  *shown = finished ? 1.0 : CLAMP (fraction, 0.0, 0.99);
  /* Translators: a progress bar's text; %d is a percentage. */
  return g_strdup_printf (_("%d %%"), finished ? 100 : MIN ((int) (fraction * 100.0), 99));
}

/* Called when the profile notifies (from the loaders' idle, never on a
 * worker): no timer reads it. */
static void
update_progress (PlanarWindow *self)
{
  g_autofree char *text = NULL;
  g_autofree char *message = NULL;
  double shown = 0.0;

  if (self->progress_profile == NULL)
    return;
  text = _planar_window_progress_text (planar_profile_get_fraction (self->progress_profile),
                                       planar_profile_is_loaded (self->progress_profile), &shown);
  g_object_get (self->progress_profile, "message", &message, NULL);
  if (message != NULL && text != NULL)
    {
      /* Translators: a progress bar's text: the step under way ("Decoding
       * lines") and how far the load is ("42 %"). */
      g_autofree char *both = g_strdup_printf (_("%s · %s"), message, text);

      g_free (text);
      text = g_steal_pointer (&both);
    }
  else if (text == NULL && message != NULL)
    text = g_steal_pointer (&message);
  gtk_progress_bar_set_show_text (self->progress_bar, text != NULL);
  gtk_progress_bar_set_text (self->progress_bar, text);
  if (shown <= 0.0)
    gtk_progress_bar_pulse (self->progress_bar);
  else
    gtk_progress_bar_set_fraction (self->progress_bar, shown);
}

static void
unbind_progress (PlanarWindow *self)
{
  if (self->progress_profile == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (self->progress_handlers); i++)
    g_clear_signal_handler (&self->progress_handlers[i], self->progress_profile);
  g_clear_object (&self->progress_profile);
}

void
_planar_window_start_progress (PlanarWindow *self,
                               const char   *label)
{
  gtk_label_set_label (self->progress_label, label);
  gtk_progress_bar_set_show_text (self->progress_bar, FALSE);
  gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
  unbind_progress (self);
  if (self->profile != NULL && !planar_profile_is_loaded (self->profile))
    {
      self->progress_profile = g_object_ref (self->profile);
      self->progress_handlers[0] = g_signal_connect_object (self->profile, "notify::fraction",
                                                            G_CALLBACK (update_progress), self,
                                                            G_CONNECT_SWAPPED);
      self->progress_handlers[1] = g_signal_connect_object (self->profile, "notify::message",
                                                            G_CALLBACK (update_progress), self,
                                                            G_CONNECT_SWAPPED);
    }
  gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
  _planar_window_set_loading (self, TRUE);
}

void
_planar_window_stop_progress (PlanarWindow *self)
{
  unbind_progress (self);
  gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
  _planar_window_set_loading (self, self->open_cancellable != NULL || self->load_cancellable != NULL);
  _planar_window_update_actions (self);
}

/* What the load placed or lost that the timeline cannot show by itself:
 * hosts shown from their own starts, files cut short, hosts left out. One
 * line each in the message bar; Trace Health has the detail. */
void
_planar_window_show_load_notes (PlanarWindow  *self,
                                PlanarProfile *profile)
{
  g_auto(GStrv) losses = planar_profile_dup_losses (profile);
  guint n_losses = losses != NULL ? g_strv_length (losses) : 0;

  if (planar_profile_get_host_alignment (profile) == PLANAR_HOST_ALIGNMENT_OWN_START)
    planar_message_bar_set (self->message_bar, MESSAGE_HOST_ALIGNMENT, PLANAR_MESSAGE_INFO,
                            _("The hosts do not overlap in time: each is shown from its own start"),
                            NULL, NULL, TRUE);
  else
    planar_message_bar_remove (self->message_bar, MESSAGE_HOST_ALIGNMENT);

  if (n_losses == 0)
    {
      planar_message_bar_remove (self->message_bar, MESSAGE_FILE_CUT);
      return;
    }
  if (n_losses == 1)
    planar_message_bar_set (self->message_bar, MESSAGE_FILE_CUT, PLANAR_MESSAGE_WARNING, losses[0],
                            _("_Details"), "win.tool::trace-health", TRUE);
  else
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s (and %u more loss)", "%s (and %u more losses)",
                                                            n_losses - 1),
                                               losses[0], n_losses - 1);

      planar_message_bar_set (self->message_bar, MESSAGE_FILE_CUT, PLANAR_MESSAGE_WARNING, text,
                              _("_Details"), "win.tool::trace-health", TRUE);
    }
}
