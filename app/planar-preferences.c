/* planar-preferences.c: the Preferences window: the cached indexes (on or
 * off, their folder's size limit, what it holds now, and clearing it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-preferences.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "planar-cache.h"

#define INDEX_SUFFIX ".planar-index"

/* Calls @func on each cached index file; returns their total size. */
static guint64
for_each_index (void (*func) (const char *path),
                guint *n_files)
{
  g_autofree char *dir = planar_cache_get_dir ();
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint64 total = 0;

  *n_files = 0;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      GStatBuf st;

      if (!g_str_has_suffix (name, INDEX_SUFFIX))
        continue;
      path = g_build_filename (dir, name, NULL);
      if (g_stat (path, &st) != 0)
        continue;
      total += (guint64) st.st_size;
      (*n_files)++;
      if (func != NULL)
        func (path);
    }
  return total;
}

char *
planar_preferences_describe_cache (void)
{
  guint n = 0;
  guint64 total = for_each_index (NULL, &n);
  g_autofree char *size = g_format_size (total);

  if (n == 0)
    return g_strdup (_("Empty"));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s in %u file", "%s in %u files", n), size, n);
}

static void
remove_file (const char *path)
{
  g_unlink (path);
}

guint
planar_preferences_clear_cache (void)
{
  guint n = 0;

  planar_cache_wait ();
  for_each_index (remove_file, &n);
  return n;
}

static void
update_usage (AdwActionRow *row)
{
  g_autofree char *dir = planar_cache_get_dir ();
  g_autofree char *usage = planar_preferences_describe_cache ();
  g_autofree char *subtitle = g_strdup_printf ("%s\n%s", usage, dir);

  adw_action_row_set_subtitle (row, subtitle);
}

static void
clear_clicked (GtkButton    *button,
               AdwActionRow *row)
{
  planar_preferences_clear_cache ();
  update_usage (row);
}

static gboolean
mb_to_adjustment (GValue   *value,
                  GVariant *variant,
                  gpointer  user_data)
{
  g_value_set_double (value, (double) g_variant_get_uint32 (variant));
  return TRUE;
}

static GVariant *
adjustment_to_mb (const GValue       *value,
                  const GVariantType *type,
                  gpointer            user_data)
{
  return g_variant_new_uint32 ((guint32) g_value_get_double (value));
}

GtkWindow *
planar_preferences_window_new (GSettings *settings)
{
  AdwPreferencesWindow *window = ADW_PREFERENCES_WINDOW (adw_preferences_window_new ());
  AdwPreferencesPage *page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  AdwActionRow *keep = ADW_ACTION_ROW (adw_action_row_new ());
  AdwActionRow *limit = ADW_ACTION_ROW (adw_action_row_new ());
  AdwActionRow *usage = ADW_ACTION_ROW (adw_action_row_new ());
  GtkWidget *toggle = gtk_switch_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (64, 1048576, 64);
  GtkWidget *clear = gtk_button_new_with_mnemonic (_("C_lear"));

  gtk_window_set_title (GTK_WINDOW (window), _("Preferences"));
  adw_preferences_window_set_search_enabled (window, FALSE);
  adw_preferences_page_set_title (page, _("General"));
  adw_preferences_page_set_icon_name (page, "preferences-system-symbolic");
  adw_preferences_group_set_title (group, _("Cached Indexes"));
  adw_preferences_group_set_description (group, _("After a profile is opened, its index is kept on disk, so that it "
                                                  "opens much faster the next time"));

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (keep), _("_Keep Cached Indexes"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (keep), TRUE);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (keep, toggle);
  adw_action_row_set_activatable_widget (keep, toggle);
  g_settings_bind (settings, "cache-enabled", toggle, "active", G_SETTINGS_BIND_DEFAULT);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (limit), _("Size _Limit (MB)"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (limit), TRUE);
  adw_action_row_set_subtitle (limit, _("Past it, the least recently used indexes are removed"));
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (limit, spin);
  adw_action_row_set_activatable_widget (limit, spin);
  g_settings_bind_with_mapping (settings, "cache-size-mb", gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (spin)),
                                "value", G_SETTINGS_BIND_DEFAULT, mb_to_adjustment, adjustment_to_mb, NULL, NULL);
  g_object_bind_property (toggle, "active", limit, "sensitive", G_BINDING_SYNC_CREATE);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (usage), _("In Use"));
  gtk_widget_set_valign (clear, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (clear, _("Remove every cached index"));
  adw_action_row_add_suffix (usage, clear);
  g_signal_connect (clear, "clicked", G_CALLBACK (clear_clicked), usage);
  update_usage (usage);

  adw_preferences_group_add (group, GTK_WIDGET (keep));
  adw_preferences_group_add (group, GTK_WIDGET (limit));
  adw_preferences_group_add (group, GTK_WIDGET (usage));
  adw_preferences_page_add (page, group);
  adw_preferences_window_add (window, page);
  return GTK_WINDOW (window);
}
