/* planar-trace.c: one host's profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-private.h"

#include <glib/gi18n-lib.h>

#include "planar-mapping.h"
#include "planar-mapping-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string.h>

G_DEFINE_FINAL_TYPE (PlanarTrace, planar_trace, G_TYPE_OBJECT)

static const char * const empty_strv[] = { NULL };

static void set_mapping (PlanarTrace *self,
                         GMappedFile *mapped);

PlanarSpillMode
_planar_trace_wants_spill (guint64 size)
{
  static gsize env_read;
  static gint env_mode = -1;

  if (g_once_init_enter (&env_read))
    {
      const char *env = g_getenv ("PLANAR_SPILL");

      if (g_strcmp0 (env, "0") == 0)
        env_mode = PLANAR_SPILL_NEVER;
      else if (g_strcmp0 (env, "1") == 0)
        env_mode = PLANAR_SPILL_LARGE;
      else if (g_strcmp0 (env, "all") == 0)
        env_mode = PLANAR_SPILL_EVERY;
      else if (g_strcmp0 (env, "short") == 0)
        env_mode = PLANAR_SPILL_WHEN_SHORT;
      g_once_init_leave (&env_read, 1);
    }
  if (env_mode >= 0)
    return (PlanarSpillMode) env_mode;
  return size >= PLANAR_SPILL_FILE_MIN ? PLANAR_SPILL_LARGE : PLANAR_SPILL_NEVER;
}

void
_planar_track_clear_arrays (PlanarTrack *track)
{
  g_clear_pointer (&track->events, planar_spill_free);
  g_clear_pointer (&track->aggregated, planar_spill_free);
  g_clear_pointer (&track->depth_order, planar_spill_free);
  g_clear_pointer (&track->depth_offsets, g_free);
  g_clear_pointer (&track->depth_ends_sorted, g_free);
  g_clear_pointer (&track->depth_starts, planar_spill_free);
  g_clear_pointer (&track->depth_cells, planar_spill_free);
  g_clear_pointer (&track->children, planar_spill_free);
  track->n_children = 0;
}

void
_planar_trace_clear_plane (PlanarTrace *self,
                           guint        p)
{
  PlanarPlane *plane = &self->planes[p];
  PlanarPlanePrivate *ppriv = &self->planes_priv[p];

  for (guint t = 0; t < plane->n_tracks; t++)
    _planar_track_clear_arrays (&plane->tracks[t]);
  for (guint m = 0; m < plane->n_metadata; m++)
    g_free (plane->metadata[m].stats);
  g_free (plane->tracks);
  g_free (plane->metadata);
  g_free (plane->stats);
  g_free (plane->lines);
  g_free (ppriv->stat_metadata);
  g_free (ppriv->line_offsets);
  g_free (ppriv->line_sizes);
  g_free (ppriv->line_hashes);
  g_free (ppriv->line_timestamps);
  _planar_id_map_clear (&ppriv->stat_map);
  _planar_id_map_clear (&ppriv->event_map);
  if (self->track_ready != NULL)
    g_clear_pointer (&self->track_ready[p], g_free);
  memset (plane, 0, sizeof *plane);
  memset (ppriv, 0, sizeof *ppriv);
}

void
_planar_trace_replace_metadata (PlanarTrace         *self,
                                PlanarPlane         *plane,
                                PlanarEventMetadata *metadata,
                                guint                n_metadata)
{
  g_mutex_lock (&self->strings_lock);
  if (self->retired_metadata == NULL)
    self->retired_metadata = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->retired_metadata, plane->metadata);
  g_mutex_unlock (&self->strings_lock);
  g_atomic_pointer_set (&plane->metadata, metadata);
  __atomic_store_n (&plane->n_metadata, n_metadata, __ATOMIC_RELEASE);
}

void
_planar_trace_free_planes (PlanarTrace *self)
{
  for (guint p = 0; p < self->n_planes; p++)
    _planar_trace_clear_plane (self, p);
  g_clear_pointer (&self->track_ready, g_free);
  g_clear_pointer (&self->planes, g_free);
  g_clear_pointer (&self->planes_priv, g_free);
  self->n_planes = 0;
}

static void
planar_trace_finalize (GObject *object)
{
  PlanarTrace *self = (PlanarTrace *) object;

  _planar_trace_free_planes (self);
  if (self->derived != NULL)
    self->derived_vtable->free (g_steal_pointer (&self->derived));
  g_clear_pointer (&self->retired_metadata, g_ptr_array_unref);
  g_clear_pointer (&self->strings, planar_string_table_free);
  set_mapping (self, NULL);
  if (self->fd >= 0)
    close (self->fd);
  g_clear_pointer (&self->hostnames, g_strfreev);
  g_clear_pointer (&self->errors, g_strfreev);
  g_clear_pointer (&self->warnings, g_strfreev);
  _planar_trace_clear_hlo (self);
  if (self->import_report != NULL && self->import_report_free != NULL)
    self->import_report_free (self->import_report);
  self->import_report = NULL;
  g_clear_pointer (&self->damage, g_free);
  g_clear_pointer (&self->damage_detail, g_free);
  g_clear_pointer (&self->stat_damage, _planar_stat_damage_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->file_name, g_free);
  g_clear_pointer (&self->host_name, g_free);
  g_mutex_clear (&self->strings_lock);

  G_OBJECT_CLASS (planar_trace_parent_class)->finalize (object);
}

PlanarDerivedResults *
_planar_trace_get_derived (PlanarTrace *self)
{
  return g_atomic_pointer_get (&self->derived);
}

PlanarDerivedResults *
_planar_trace_attach_derived (PlanarTrace                      *self,
                              PlanarDerivedResults             *results,
                              const PlanarDerivedResultsVTable *vtable)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  g_return_val_if_fail (results != NULL && vtable != NULL, NULL);
  g_return_val_if_fail (self->derived_vtable == NULL || self->derived_vtable == vtable, NULL);

  /* The table first: whoever sees @results sees it. */
  g_atomic_pointer_set (&self->derived_vtable, vtable);
  if (!g_atomic_pointer_compare_and_exchange (&self->derived, NULL, results))
    vtable->free (results);
  return g_atomic_pointer_get (&self->derived);
}

static void
planar_trace_class_init (PlanarTraceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = planar_trace_finalize;
}

static void
planar_trace_init (PlanarTrace *self)
{
  g_mutex_init (&self->strings_lock);
  self->fd = -1;
  self->strings = planar_string_table_new ();
  self->derive_budget = -1;
  self->derive_max_tracks_per_plane = G_MAXUINT;
  self->test_options.spill = -1;
}

static char *
host_name_from_file_name (const char *file_name)
{
  static const char * const suffixes[] = {
    ".xplane.pb", ".xplane.riegeli", ".pb", ".pt.trace.json.gz", ".pt.trace.json", ".trace.json.gz",
    ".trace.json", ".json.gz", ".json",
  };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (file_name, suffixes[i]) && strlen (file_name) > strlen (suffixes[i]))
      return g_strndup (file_name, strlen (file_name) - strlen (suffixes[i]));
  return g_strdup (file_name);
}

/* Replaces the trace's mapping (NULL: drops it), registering the new one
 * with the SIGBUS guard. */
static void
set_mapping (PlanarTrace *self,
             GMappedFile *mapped)
{
  g_clear_pointer (&self->guard, planar_mapping_unregister);
  g_clear_pointer (&self->mapped, g_mapped_file_unref);
  self->mapped = mapped;
  self->data = mapped != NULL ? (const guint8 *) g_mapped_file_get_contents (mapped) : NULL;
  self->size = mapped != NULL ? g_mapped_file_get_length (mapped) : 0;
  if (self->data != NULL)
    self->guard = planar_mapping_register (self->data, self->size, self->path);
}

gboolean
_planar_trace_check_changed (PlanarTrace  *self,
                             gboolean      check_file,
                             GError      **error)
{
  if (!planar_mapping_has_changed (self->guard) && !(check_file && planar_trace_has_changed (self)))
    return FALSE;
  if (error != NULL)
    {
      g_clear_error (error);
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED,
                   _("the file changed while it was read: %s; reload it"), self->path);
    }
  return TRUE;
}

/* Opens and maps @path: a regular file (a symbolic link to one is fine),
 * never waited on (O_NONBLOCK: a FIFO is refused, not read). */
static gboolean
map_file (PlanarTrace  *self,
          GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  GMappedFile *mapped;
  struct stat st;
  int saved_errno;

  self->fd = g_open (self->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (self->fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, PLANAR_TRACE_ERROR,
                   saved_errno == ENOENT || saved_errno == ENOTDIR ? PLANAR_TRACE_ERROR_NOT_FOUND
                                                                   : PLANAR_TRACE_ERROR_CORRUPT,
                   _("Cannot read %s: %s"), self->path, g_strerror (saved_errno));
      return FALSE;
    }
  if (fstat (self->fd, &st) != 0)
    {
      saved_errno = errno;
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, _("Cannot read %s: %s"), self->path,
                   g_strerror (saved_errno));
      return FALSE;
    }
  if (S_ISDIR (st.st_mode))
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_NOT_FOUND,
                   _("%s is a folder, not a profile file"), self->path);
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_UNSUPPORTED,
                   _("%s is not a regular file (%s); Planar reads profiles from regular files only"), self->path,
                   S_ISFIFO (st.st_mode) ? "a FIFO" : S_ISSOCK (st.st_mode) ? "a socket" : "a device");
      return FALSE;
    }
  self->file_size = (guint64) st.st_size;
  self->source_mtime_ns = (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
  if (st.st_size == 0)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_EMPTY,
                   _("%s is empty (0 bytes)"), self->file_name);
      return FALSE;
    }

  mapped = g_mapped_file_new_from_fd (self->fd, FALSE, &local_error);
  if (mapped == NULL)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, _("Cannot read %s: %s"), self->path,
                   local_error->message);
      return FALSE;
    }
  set_mapping (self, mapped);
  if (self->size == 0 || self->data == NULL)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_EMPTY,
                   _("%s is empty (0 bytes)"), self->file_name);
      return FALSE;
    }
  return TRUE;
}

void
_planar_trace_test_point (PlanarTrace *self,
                          const char  *point,
                          const char  *path)
{
  if (self->test_options.test_hook != NULL)
    self->test_options.test_hook (point, path, self->test_options.test_hook_data);
  else
    _planar_mapping_test_point (point, path);
}

PlanarTrace *
_planar_trace_new_mapped (const char                   *path,
                          const PlanarTraceTestOptions *test_options,
                          GError                      **error)
{
  g_autoptr(PlanarTrace) self = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PLANAR_TYPE_TRACE, NULL);
  self->path = g_strdup (path);
  self->file_name = g_path_get_basename (path);
  self->host_name = host_name_from_file_name (self->file_name);
  if (test_options != NULL)
    self->test_options = *test_options;

  if (!map_file (self, error))
    return NULL;
  /* For tests only (planar-mapping-private.h). */
  _planar_trace_test_point (self, "trace-mapped", self->path);
  return g_steal_pointer (&self);
}

void
_planar_trace_take_import (PlanarTrace    *self,
                           GMappedFile    *mapped,
                           gpointer        report,
                           GDestroyNotify  report_free)
{
  g_return_if_fail (PLANAR_IS_TRACE (self));
  g_return_if_fail (self->n_planes == 0);

  set_mapping (self, mapped);
  if (self->import_report != NULL && self->import_report_free != NULL)
    self->import_report_free (self->import_report);
  self->import_report = report;
  self->import_report_free = report_free;
}

gboolean
_planar_trace_open_mapped (PlanarTrace  *self,
                           GError      **error)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);

  _planar_trace_report_progress (self, PLANAR_LOAD_PHASE_READING_STRUCTURE, FALSE);
  if (!_planar_trace_scan (self, error))
    {
      _planar_trace_check_changed (self, FALSE, error);
      return FALSE;
    }
  return !_planar_trace_check_changed (self, FALSE, error);
}

PlanarTrace *
planar_trace_open (const char  *path,
                   GError     **error)
{
  return _planar_trace_open_with (path, NULL, error);
}

PlanarTrace *
_planar_trace_open_with (const char                   *path,
                         const PlanarTraceTestOptions *test_options,
                         GError                      **error)
{
  g_autoptr(PlanarTrace) self = NULL;
  g_autofree char *file_name = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  file_name = g_path_get_basename (path);
  if (g_str_has_suffix (file_name, ".xplane.riegeli"))
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_UNSUPPORTED,
                   _("%s is a chunked .xplane.riegeli profile, which Planar cannot read yet"),
                   file_name);
      return NULL;
    }
  self = _planar_trace_new_mapped (path, test_options, error);
  if (self == NULL || !_planar_trace_open_mapped (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

const PlanarImportReport *
planar_trace_get_import_report (PlanarTrace *trace)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (trace), NULL);
  return trace->import_report;
}

void
_planar_trace_set_progress_func (PlanarTrace             *self,
                                 PlanarTraceProgressFunc  func,
                                 gpointer                 data)
{
  g_return_if_fail (PLANAR_IS_TRACE (self));
  self->progress_func = func;
  self->progress_data = data;
}

void
_planar_trace_report_progress (PlanarTrace     *self,
                               PlanarLoadPhase  phase,
                               gboolean         tracks_changed)
{
  if (self->progress_func != NULL)
    self->progress_func (self, phase, tracks_changed, self->progress_data);
}

const char *
planar_trace_get_path (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return self->path;
}

const char *
planar_trace_get_file_name (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return self->file_name;
}

const char *
planar_trace_get_host_name (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return self->host_name;
}

guint64
planar_trace_get_file_size (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);
  return self->file_size;
}

const char * const *
planar_trace_get_hostnames (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return self->hostnames ? (const char * const *) self->hostnames : empty_strv;
}

const char * const *
planar_trace_get_errors (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return self->errors ? (const char * const *) self->errors : empty_strv;
}

const char * const *
planar_trace_get_warnings (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return self->warnings ? (const char * const *) self->warnings : empty_strv;
}

gboolean
planar_trace_get_profile_start_time (PlanarTrace *self,
                                     guint64     *start_ns)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  if (start_ns != NULL)
    *start_ns = self->has_start_time ? self->profile_start_ns : 0;
  return self->has_start_time;
}

gboolean
planar_trace_get_time_window (PlanarTrace *self,
                              guint64     *start_ns,
                              guint64     *end_ns)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  if (start_ns != NULL)
    *start_ns = self->has_start_time ? self->window_start_ns : 0;
  if (end_ns != NULL)
    *end_ns = self->has_start_time ? self->window_end_ns : 0;
  return self->has_start_time;
}

const char *
planar_trace_get_damage (PlanarTrace  *self,
                         const char  **detail)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  if (detail != NULL)
    *detail = self->damage_detail;
  return self->damage;
}

gboolean
planar_trace_is_aligned_at_earliest_event (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  return self->aligned_at_earliest_event;
}

guint
planar_trace_get_n_planes (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);
  return self->n_planes;
}

const PlanarPlane *
planar_trace_get_plane (PlanarTrace *self,
                        guint        index)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  g_return_val_if_fail (index < self->n_planes, NULL);
  return &self->planes[index];
}

const PlanarPlane *
planar_trace_find_plane (PlanarTrace *self,
                         const char  *name)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < self->n_planes; i++)
    if (strcmp (self->planes[i].name, name) == 0)
      return &self->planes[i];
  return NULL;
}

const PlanarTrack *
planar_plane_find_track (const PlanarPlane *plane,
                         const char        *name)
{
  g_return_val_if_fail (plane != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < plane->n_tracks; i++)
    if (strcmp (plane->tracks[i].name, name) == 0)
      return &plane->tracks[i];
  for (guint i = 0; i < plane->n_tracks; i++)
    if (strcmp (plane->tracks[i].display_name, name) == 0)
      return &plane->tracks[i];
  return NULL;
}

guint64
planar_trace_get_n_events (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);
  return self->n_events;
}

guint64
planar_trace_get_n_overlaps (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);
  return self->n_overlaps;
}

gboolean
planar_trace_get_span (PlanarTrace *self,
                       gint64      *first_ps,
                       gint64      *last_ps)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  if (first_ps != NULL)
    *first_ps = self->has_span ? self->first_ps : 0;
  if (last_ps != NULL)
    *last_ps = self->has_span ? self->last_ps : 0;
  return self->has_span;
}

double
planar_trace_get_fraction (PlanarTrace *self)
{
  gint64 done;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0.0);
  if (g_atomic_int_get (&self->decoded))
    return 1.0;
  if (self->line_bytes_total == 0)
    return 0.0;
  done = __atomic_load_n (&self->line_bytes_done, __ATOMIC_RELAXED);
  return CLAMP ((double) done / (double) self->line_bytes_total, 0.0, 1.0);
}

gboolean
planar_trace_is_track_ready (PlanarTrace *self,
                             guint        plane,
                             guint        track)
{
  gint **ready;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  g_return_val_if_fail (plane < self->n_planes, FALSE);

  ready = g_atomic_pointer_get (&self->track_ready);
  if (ready == NULL)
    return FALSE;
  if (g_atomic_pointer_get (&ready[plane]) == NULL || track >= self->planes[plane].n_tracks)
    return FALSE;
  return g_atomic_int_get (&ready[plane][track]) != 0;
}

gboolean
planar_trace_is_decoded (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  return g_atomic_int_get (&self->decoded) != 0;
}

static gboolean
stat_differs (PlanarTrace *self,
              struct stat *st)
{
  return (guint64) st->st_size != self->file_size ||
         (gint64) st->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_mtim.tv_nsec != self->source_mtime_ns;
}

gboolean
planar_trace_has_changed (PlanarTrace *self)
{
  struct stat st;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);

  if (planar_mapping_has_changed (self->guard))
    return TRUE;
  /* The file mapped, rewritten in place... */
  if (self->fd >= 0 && fstat (self->fd, &st) == 0 && stat_differs (self, &st))
    return TRUE;
  /* ...or another file in its place (a rename over it). A file removed
   * leaves the trace as it was: nothing to reload. */
  return self->path != NULL && stat (self->path, &st) == 0 && stat_differs (self, &st);
}

PlanarStringTable *
planar_trace_get_strings (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), NULL);
  return self->strings;
}

const char *
planar_plane_get_event_name (const PlanarPlane *plane,
                             const PlanarEvent *event,
                             gboolean           display)
{
  const PlanarEventMetadata *md;

  g_return_val_if_fail (plane != NULL, NULL);
  g_return_val_if_fail (event != NULL, NULL);
  g_return_val_if_fail (event->metadata < plane->n_metadata, "");

  md = &plane->metadata[event->metadata];
  return display ? md->display_name : md->name;
}
