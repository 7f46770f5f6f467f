/* planar-cache.c: the cached index of a profile.
 *
 * One file per profile in the cache folder, named for the profile's path:
 *
 *   header     magic, version, the size of PlanarEvent, the key (the
 *              profile's size, a hash of all its bytes and its time offset
 *              in its session) and a SHA-256 of the header and section table
 *   sections   a table of (kind, plane, track, offset, size, raw size)
 *   frames     one zstd frame per section, each with its own checksum:
 *              META (planes, lines, derived metadata, track headers), one
 *              TRACK per track (events, aggregated events, children
 *              times), SOURCES per plane with derived events, FLOWS
 *
 * Reading checks the profile's bytes against the key's hash first, then
 * all of the cache file and every index in it against the trace the file
 * scan made; anything that does not fit means the file is not used (and
 * is removed), and the profile is decoded as if there were none. A cache
 * path that is not a regular file is neither read nor followed.
 * Writing goes through a hidden temporary file and a rename. Past the
 * size cap the least recently used files go (a file's modification time
 * is renewed each time it is used).
 *
 * This file holds the settings and the writes after a load; the content
 * key is in planar-cache-key.c, writing a file in planar-cache-write.c and
 * reading one back in planar-cache-restore.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache-format-private.h"
#include "planar-parallel.h"

static GMutex config_lock;
static char *config_dir;
static gint config_enabled = -1;
static guint64 config_limit = DEFAULT_LIMIT;

/* The writes queued and not done yet, under @writes_lock; @writes_done is
 * signalled each time one is done. */
static GMutex writes_lock;
static GCond writes_done;
static guint n_writes;
/* Set while planar_cache_cancel() stops the writes. */
static gint cancel_writes;

/* ------------------------------------------------------------------------
 * Settings
 * ------------------------------------------------------------------------ */

void
planar_cache_set_dir (const char *dir)
{
  g_mutex_lock (&config_lock);
  g_free (config_dir);
  config_dir = g_strdup (dir);
  g_mutex_unlock (&config_lock);
}

char *
planar_cache_get_dir (void)
{
  char *dir;

  g_mutex_lock (&config_lock);
  if (config_dir != NULL)
    dir = g_strdup (config_dir);
  else if (g_getenv ("PLANAR_CACHE_DIR") != NULL && g_getenv ("PLANAR_CACHE_DIR")[0] != '\0')
    dir = g_strdup (g_getenv ("PLANAR_CACHE_DIR"));
  else
    dir = g_build_filename (g_get_user_cache_dir (), "planar", NULL);
  g_mutex_unlock (&config_lock);
  return dir;
}

void
planar_cache_set_enabled (gboolean enabled)
{
  g_atomic_int_set (&config_enabled, enabled ? 1 : 0);
}

gboolean
planar_cache_get_enabled (void)
{
  gint v = g_atomic_int_get (&config_enabled);

  if (v < 0)
    return g_strcmp0 (g_getenv ("PLANAR_CACHE"), "0") != 0;
  return v != 0;
}

void
planar_cache_set_limit (guint64 bytes)
{
  g_mutex_lock (&config_lock);
  config_limit = bytes;
  g_mutex_unlock (&config_lock);
}

guint64
planar_cache_get_limit (void)
{
  guint64 limit;

  g_mutex_lock (&config_lock);
  limit = config_limit;
  g_mutex_unlock (&config_lock);
  return limit;
}

char *
planar_cache_get_path (const char *source_path)
{
  g_autofree char *absolute = g_canonicalize_filename (source_path, NULL);
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, absolute, -1);
  g_autofree char *dir = planar_cache_get_dir ();
  g_autofree char *name = NULL;

  digest[32] = '\0';
  name = g_strconcat (digest, SUFFIX, NULL);
  return g_build_filename (dir, name, NULL);
}

/* ------------------------------------------------------------------------
 * Writing later
 *
 * A cache file is written after the load, while the profile is shown: in
 * a GTask run in GLib's thread pool, not a thread of the model's own (the
 * model starts threads only in planar-parallel.c). The pool's threads are
 * shared with GIO and bounded; a write is one long blocking job, the kind
 * the pool is for. Completion is counted here rather than through the
 * task's callback, so that planar_cache_wait() works without a main loop
 * (the CLI and the tests have none running).
 * ------------------------------------------------------------------------ */

typedef struct
{
  PlanarTrace *self;
  guint8       content[16];
} StoreJob;

static void
store_job_free (gpointer data)
{
  StoreJob *job = data;

  g_object_unref (job->self);
  g_free (job);
}

static void
store_in_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  StoreJob *job = task_data;
  g_autoptr(GError) error = NULL;

  /* For tests only (planar-mapping-private.h). */
  _planar_trace_test_point (job->self, "cache-storing", job->self->path);
  if (!_planar_cache_store_file (job->self, job->content, &error))
    g_debug ("Not caching %s: %s", job->self->file_name, error->message);
  /* The trace goes now, not when the task's context next runs. */
  g_task_set_task_data (task, NULL, NULL);
  g_task_return_boolean (task, TRUE);

  g_mutex_lock (&writes_lock);
  n_writes--;
  g_cond_broadcast (&writes_done);
  g_mutex_unlock (&writes_lock);
}

void
_planar_cache_store_later (PlanarTrace *self)
{
  g_autoptr(GTask) task = NULL;
  StoreJob *job;

  /* An import's index is of a file of its own making, gone with it. */
  if (!planar_cache_get_enabled () || self->import_report != NULL || self->path == NULL)
    return;
  /* The lines were hashed as they were decoded (or checked); what lies
   * between them is read here, before the load returns. (A cache turned
   * on during the decode gives a key that matches nothing: the entry is
   * dropped at the next open and written again.) */
  job = g_new0 (StoreJob, 1);
  job->self = g_object_ref (self);
  {
    g_autoptr(GArray) ranges = _planar_cache_line_ranges (self, TRUE);

    _planar_cache_content_hash (self, ranges, job->content);
  }
  g_mutex_lock (&writes_lock);
  n_writes++;
  g_mutex_unlock (&writes_lock);
  task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_source_tag (task, _planar_cache_store_later);
  g_task_set_name (task, "planar-cache");
  g_task_set_task_data (task, job, store_job_free);
  /* Lowered with the load's threads while a window draws
   * (planar_parallel_set_background()): it runs after the load, beside
   * the frames of the loaded profile. */
  planar_parallel_run_task (task, store_in_thread);
}

gboolean
_planar_cache_writes_cancelled (void)
{
  return g_atomic_int_get (&cancel_writes) != 0;
}

void
planar_cache_cancel (void)
{
  g_atomic_int_set (&cancel_writes, 1);
  planar_cache_wait ();
  g_atomic_int_set (&cancel_writes, 0);
}

void
planar_cache_wait (void)
{
  g_mutex_lock (&writes_lock);
  while (n_writes > 0)
    g_cond_wait (&writes_done, &writes_lock);
  g_mutex_unlock (&writes_lock);
}
