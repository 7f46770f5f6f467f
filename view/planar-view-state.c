/* planar-view-state.c
 *
 * The store is a key file with one group per profile, named by its path
 * (or by a checksum of it when the path holds characters a group name
 * cannot), four string lists and the label column's width when it was
 * changed:
 *
 *   [/data/runs/train/plugins/profile/2026_01_01_00_00_00]
 *   hidden-tracks=host0|/device:GPU:0|3;
 *   hidden-sections=host0|/host:CPU;
 *   collapsed-sections=
 *   section-order=host0|/device:GPU:1;host0|/device:GPU:0;
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-view-state.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

struct _PlanarViewState
{
  GObject     parent_instance;

  GHashTable *hidden_tracks;
  GHashTable *hidden_sections;
  GHashTable *collapsed_sections;
  GStrv       section_order;
  /* 0: the usual width. */
  int         label_width;
  /* planar_view_state_freeze_changes() depth, and whether a change came
   * while frozen. */
  guint       freeze;
  gboolean    pending;
};

G_DEFINE_FINAL_TYPE (PlanarViewState, planar_view_state, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
planar_view_state_finalize (GObject *object)
{
  PlanarViewState *self = (PlanarViewState *) object;

  g_clear_pointer (&self->hidden_tracks, g_hash_table_unref);
  g_clear_pointer (&self->hidden_sections, g_hash_table_unref);
  g_clear_pointer (&self->collapsed_sections, g_hash_table_unref);
  g_clear_pointer (&self->section_order, g_strfreev);

  G_OBJECT_CLASS (planar_view_state_parent_class)->finalize (object);
}

static void
planar_view_state_class_init (PlanarViewStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = planar_view_state_finalize;

  /* Something was hidden, shown, collapsed, expanded or moved. */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
planar_view_state_init (PlanarViewState *self)
{
  self->hidden_tracks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->hidden_sections = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->collapsed_sections = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->section_order = g_new0 (char *, 1);
}

PlanarViewState *
planar_view_state_new (void)
{
  return g_object_new (PLANAR_TYPE_VIEW_STATE, NULL);
}

static void
emit_changed (PlanarViewState *self)
{
  if (self->freeze > 0)
    self->pending = TRUE;
  else
    g_signal_emit (self, signals[CHANGED], 0);
}

void
planar_view_state_freeze_changes (PlanarViewState *self)
{
  g_return_if_fail (PLANAR_IS_VIEW_STATE (self));

  self->freeze++;
}

void
planar_view_state_thaw_changes (PlanarViewState *self)
{
  g_return_if_fail (PLANAR_IS_VIEW_STATE (self));
  g_return_if_fail (self->freeze > 0);

  if (--self->freeze == 0 && self->pending)
    {
      self->pending = FALSE;
      g_signal_emit (self, signals[CHANGED], 0);
    }
}

static gboolean
set_member (PlanarViewState *self,
            GHashTable      *set,
            const char      *id,
            gboolean         member)
{
  gboolean changed;

  if (member)
    changed = g_hash_table_add (set, g_strdup (id));
  else
    changed = g_hash_table_remove (set, id);
  if (changed)
    emit_changed (self);
  return changed;
}

gboolean
planar_view_state_get_track_hidden (PlanarViewState *self,
                                    const char      *track_id)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);
  g_return_val_if_fail (track_id != NULL, FALSE);

  return g_hash_table_contains (self->hidden_tracks, track_id);
}

gboolean
planar_view_state_set_track_hidden (PlanarViewState *self,
                                    const char      *track_id,
                                    gboolean         hidden)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);
  g_return_val_if_fail (track_id != NULL, FALSE);

  return set_member (self, self->hidden_tracks, track_id, hidden);
}

gboolean
planar_view_state_get_section_hidden (PlanarViewState *self,
                                      const char      *section_id)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);
  g_return_val_if_fail (section_id != NULL, FALSE);

  return g_hash_table_contains (self->hidden_sections, section_id);
}

gboolean
planar_view_state_set_section_hidden (PlanarViewState *self,
                                      const char      *section_id,
                                      gboolean         hidden)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);
  g_return_val_if_fail (section_id != NULL, FALSE);

  return set_member (self, self->hidden_sections, section_id, hidden);
}

gboolean
planar_view_state_get_section_collapsed (PlanarViewState *self,
                                         const char      *section_id)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);
  g_return_val_if_fail (section_id != NULL, FALSE);

  return g_hash_table_contains (self->collapsed_sections, section_id);
}

gboolean
planar_view_state_set_section_collapsed (PlanarViewState *self,
                                         const char      *section_id,
                                         gboolean         collapsed)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);
  g_return_val_if_fail (section_id != NULL, FALSE);

  return set_member (self, self->collapsed_sections, section_id, collapsed);
}

gboolean
planar_view_state_show_all (PlanarViewState *self)
{
  gboolean changed;

  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);

  changed = g_hash_table_size (self->hidden_tracks) > 0 || g_hash_table_size (self->hidden_sections) > 0;
  g_hash_table_remove_all (self->hidden_tracks);
  g_hash_table_remove_all (self->hidden_sections);
  if (changed)
    emit_changed (self);
  return changed;
}

const char * const *
planar_view_state_get_section_order (PlanarViewState *self)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), NULL);

  return (const char * const *) self->section_order;
}

gboolean
planar_view_state_set_section_order (PlanarViewState    *self,
                                     const char * const *order)
{
  static const char * const empty[] = { NULL };

  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);

  if (order == NULL)
    order = empty;
  if (g_strv_equal ((const char * const *) self->section_order, order))
    return FALSE;
  g_strfreev (self->section_order);
  self->section_order = g_strdupv ((char **) order);
  emit_changed (self);
  return TRUE;
}

/* Whether @id's host (the part before the first '|') is @host. */
static gboolean
id_has_host (const char *id,
             const char *host)
{
  size_t n = strlen (host);

  return strncmp (id, host, n) == 0 && id[n] == '|';
}

/* The ids @id becomes: itself when its host is not being moved, else one
 * per new host of its old host. */
static void
rekey_id (const char         *id,
          const char * const *old_hosts,
          const char * const *new_hosts,
          GPtrArray          *out)
{
  gboolean moved = FALSE;

  for (guint i = 0; old_hosts[i] != NULL && new_hosts[i] != NULL; i++)
    if (id_has_host (id, old_hosts[i]))
      {
        g_ptr_array_add (out, g_strconcat (new_hosts[i], id + strlen (old_hosts[i]), NULL));
        moved = TRUE;
      }
  /* A host that is also a host file keeps its own entries. */
  for (guint i = 0; moved && new_hosts[i] != NULL; i++)
    if (id_has_host (id, new_hosts[i]))
      moved = FALSE;
  if (!moved)
    g_ptr_array_add (out, g_strdup (id));
}

static gboolean
rekey_set (GHashTable         *set,
           const char * const *old_hosts,
           const char * const *new_hosts)
{
  g_autofree const char **ids = (const char **) g_hash_table_get_keys_as_array (set, NULL);
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) rekeyed = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean changed;

  for (guint i = 0; ids[i] != NULL; i++)
    rekey_id (ids[i], old_hosts, new_hosts, out);
  for (guint i = 0; i < out->len; i++)
    g_hash_table_add (rekeyed, out->pdata[i]);
  changed = g_hash_table_size (rekeyed) != g_hash_table_size (set);
  for (guint i = 0; !changed && i < out->len; i++)
    changed = !g_hash_table_contains (set, out->pdata[i]);
  if (!changed)
    return FALSE;
  g_hash_table_remove_all (set);
  for (guint i = 0; i < out->len; i++)
    g_hash_table_add (set, g_strdup (out->pdata[i]));
  return TRUE;
}

gboolean
planar_view_state_rekey_hosts (PlanarViewState    *self,
                               const char * const *old_hosts,
                               const char * const *new_hosts)
{
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func (g_free);
  gboolean changed = FALSE;

  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);
  g_return_val_if_fail (old_hosts != NULL && new_hosts != NULL, FALSE);
  g_return_val_if_fail (g_strv_length ((char **) old_hosts) == g_strv_length ((char **) new_hosts), FALSE);

  changed |= rekey_set (self->hidden_tracks, old_hosts, new_hosts);
  changed |= rekey_set (self->hidden_sections, old_hosts, new_hosts);
  changed |= rekey_set (self->collapsed_sections, old_hosts, new_hosts);
  /* The order keeps its place: the new ids stand where the old one stood. */
  for (guint i = 0; self->section_order[i] != NULL; i++)
    {
      g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);

      rekey_id (self->section_order[i], old_hosts, new_hosts, ids);
      for (guint k = 0; k < ids->len; k++)
        {
          gboolean seen = FALSE;

          for (guint j = 0; j < order->len && !seen; j++)
            seen = strcmp (order->pdata[j], ids->pdata[k]) == 0;
          if (!seen)
            g_ptr_array_add (order, g_strdup (ids->pdata[k]));
        }
    }
  g_ptr_array_add (order, NULL);
  if (!g_strv_equal ((const char * const *) self->section_order, (const char * const *) order->pdata))
    {
      g_strfreev (self->section_order);
      self->section_order = (char **) g_ptr_array_steal (order, NULL);
      changed = TRUE;
    }
  if (changed)
    emit_changed (self);
  return changed;
}

int
planar_view_state_get_label_width (PlanarViewState *self)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), 0);

  return self->label_width;
}

gboolean
planar_view_state_set_label_width (PlanarViewState *self,
                                   int              width)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);

  width = MAX (width, 0);
  if (self->label_width == width)
    return FALSE;
  self->label_width = width;
  emit_changed (self);
  return TRUE;
}

gboolean
planar_view_state_is_default (PlanarViewState *self)
{
  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), TRUE);

  return g_hash_table_size (self->hidden_tracks) == 0 &&
         g_hash_table_size (self->hidden_sections) == 0 &&
         g_hash_table_size (self->collapsed_sections) == 0 &&
         self->section_order[0] == NULL &&
         self->label_width == 0;
}

/* ------------------------------------------------------------------------
 * The store
 * ------------------------------------------------------------------------ */

char *
planar_view_state_get_default_store (void)
{
  return g_build_filename (g_get_user_state_dir (), "planar", "views.ini", NULL);
}

/* A key file group name may not hold '[', ']' or control characters. */
static char *
group_for_key (const char *profile_key)
{
  gboolean plain = g_utf8_validate (profile_key, -1, NULL) && profile_key[0] != '\0';

  for (const char *p = profile_key; plain && *p != '\0'; p++)
    if (*p == '[' || *p == ']' || g_ascii_iscntrl (*p))
      plain = FALSE;
  if (plain)
    return g_strdup (profile_key);
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, profile_key, -1);
}

static GKeyFile *
read_store (const char  *store_path,
            GError     **error)
{
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autoptr(GError) local_error = NULL;

  if (!g_key_file_load_from_file (keyfile, store_path, G_KEY_FILE_KEEP_COMMENTS, &local_error) &&
      !g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", store_path);
      return NULL;
    }
  return g_steal_pointer (&keyfile);
}

static void
read_set (GKeyFile   *keyfile,
          const char *group,
          const char *key,
          GHashTable *set)
{
  g_auto(GStrv) ids = g_key_file_get_string_list (keyfile, group, key, NULL, NULL);

  for (guint i = 0; ids != NULL && ids[i] != NULL; i++)
    if (ids[i][0] != '\0')
      g_hash_table_add (set, g_strdup (ids[i]));
}

PlanarViewState *
planar_view_state_load (const char  *store_path,
                        const char  *profile_key,
                        GError     **error)
{
  g_autoptr(PlanarViewState) self = NULL;
  g_autoptr(GKeyFile) keyfile = NULL;
  g_autofree char *group = NULL;
  g_auto(GStrv) order = NULL;

  g_return_val_if_fail (store_path != NULL, NULL);
  g_return_val_if_fail (profile_key != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  keyfile = read_store (store_path, error);
  if (keyfile == NULL)
    return NULL;
  self = planar_view_state_new ();
  group = group_for_key (profile_key);
  if (!g_key_file_has_group (keyfile, group))
    return g_steal_pointer (&self);

  read_set (keyfile, group, "hidden-tracks", self->hidden_tracks);
  read_set (keyfile, group, "hidden-sections", self->hidden_sections);
  read_set (keyfile, group, "collapsed-sections", self->collapsed_sections);
  /* A width that is not a number, or not a sensible one, is ignored. */
  self->label_width = CLAMP (g_key_file_get_integer (keyfile, group, "label-width", NULL), 0, 10000);
  order = g_key_file_get_string_list (keyfile, group, "section-order", NULL, NULL);
  if (order != NULL)
    {
      g_strfreev (self->section_order);
      self->section_order = g_steal_pointer (&order);
    }
  return g_steal_pointer (&self);
}

static int
compare_ids (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The members of @set, sorted so that the file does not churn. */
static void
write_set (GKeyFile   *keyfile,
           const char *group,
           const char *key,
           GHashTable *set)
{
  g_autofree const char **ids = (const char **) g_hash_table_get_keys_as_array (set, NULL);
  guint n = g_hash_table_size (set);

  if (n == 0)
    {
      g_key_file_remove_key (keyfile, group, key, NULL);
      return;
    }
  g_qsort_with_data (ids, (gint) n, sizeof (char *), compare_ids, NULL);
  g_key_file_set_string_list (keyfile, group, key, ids, n);
}

gboolean
planar_view_state_save (PlanarViewState  *self,
                        const char       *store_path,
                        const char       *profile_key,
                        GError          **error)
{
  g_autoptr(GKeyFile) keyfile = NULL;
  g_autofree char *group = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *data = NULL;
  gsize length;

  g_return_val_if_fail (PLANAR_IS_VIEW_STATE (self), FALSE);
  g_return_val_if_fail (store_path != NULL, FALSE);
  g_return_val_if_fail (profile_key != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  keyfile = read_store (store_path, error);
  if (keyfile == NULL)
    return FALSE;
  group = group_for_key (profile_key);
  if (planar_view_state_is_default (self))
    {
      if (!g_key_file_has_group (keyfile, group))
        return TRUE;
      g_key_file_remove_group (keyfile, group, NULL);
    }
  else
    {
      write_set (keyfile, group, "hidden-tracks", self->hidden_tracks);
      write_set (keyfile, group, "hidden-sections", self->hidden_sections);
      write_set (keyfile, group, "collapsed-sections", self->collapsed_sections);
      if (self->section_order[0] != NULL)
        g_key_file_set_string_list (keyfile, group, "section-order",
                                    (const char * const *) self->section_order,
                                    g_strv_length (self->section_order));
      else
        g_key_file_remove_key (keyfile, group, "section-order", NULL);
      if (self->label_width > 0)
        g_key_file_set_integer (keyfile, group, "label-width", self->label_width);
      else
        g_key_file_remove_key (keyfile, group, "label-width", NULL);
    }

  folder = g_path_get_dirname (store_path);
  if (g_mkdir_with_parents (folder, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("cannot create %s: %s"), folder, g_strerror (saved_errno));
      return FALSE;
    }
  data = g_key_file_to_data (keyfile, &length, NULL);
  /* g_file_set_contents() writes a temporary file and renames it over the
   * old one, so a crash leaves either state whole. */
  return g_file_set_contents (store_path, data, (gssize) length, error);
}
