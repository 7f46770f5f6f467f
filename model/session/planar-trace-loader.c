/* planar-trace-loader.c: runs the load of one host file as steps, each in
 * its own layer (planar-trace-loader.h), and tells the main loop how far
 * it is.
 *
 * Progress is reported by the steps from whatever thread runs them, the
 * decode's workers included: each report stores what changed under the
 * loader's lock and, unless one is queued already, queues one idle in the
 * loader's main context, which notifies "fraction" and "message" and emits
 * "tracks-changed". However fast the workers report, the main loop sees
 * one notification per iteration (the pattern of sysprof's document
 * loader).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gi18n-lib.h>

#include "planar-trace-loader.h"
#include "planar-trace-loader-private.h"

#include "planar-cache-private.h"
#include "planar-derive.h"
#include "planar-derive-private.h"
#include "planar-import-private.h"
#include "planar-mapping-private.h"
#include "planar-parallel.h"
#include "planar-spill.h"
#include "planar-trace-private.h"

#include <glib/gstdio.h>
#include <unistd.h>

struct _PlanarTraceLoader
{
  GObject          parent_instance;

  char            *path;
  PlanarTrace     *trace;
  gboolean         derive;
  gboolean         use_cache;
  /* Carried to the trace's decoder (planar_trace_loader_set_count_stats()). */
  gboolean         count_stats;
  /* Carried to the trace's derive pass (planar-trace-private.h). */
  gint64           derive_budget;
  guint            derive_max_tracks_per_plane;
  /* For tests: carried to the trace (planar-trace-loader-private.h). */
  PlanarTraceTestOptions test_options;
  /* Where the notifications go: the thread-default context of the thread
   * that made the loader. */
  GMainContext    *context;

  /* Under @lock: the step under way, whether tracks were published since
   * the last notification, and the queued idle (NULL when none). */
  GMutex           lock;
  PlanarLoadPhase  phase;
  gboolean         finished;
  gboolean         tracks_changed;
  GSource         *notify_source;
  /* Under @lock: whether the derive step waits (planar_trace_loader_hold_derive())
   * and for how long at most, whether it was let go, and the condition a
   * waiting load sleeps on (woken by the release and by a cancellation). */
  gboolean         hold_derive;
  guint            hold_max_wait_ms;
  gboolean         derive_released;
  GCond            hold_cond;
};

G_DEFINE_FINAL_TYPE (PlanarTraceLoader, planar_trace_loader, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PATH,
  PROP_FRACTION,
  PROP_MESSAGE,
  PROP_DERIVE,
  PROP_USE_CACHE,
  PROP_DERIVE_BUDGET,
  PROP_DERIVE_MAX_TRACKS_PER_PLANE,
  N_PROPS
};

enum {
  TRACKS_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The words a load shows, one per step: the only list (the window shows
 * whichever the loader says). */
static const char *
phase_message (PlanarLoadPhase phase)
{
  switch (phase)
    {
    case PLANAR_LOAD_PHASE_READING_STRUCTURE:
      return _("Reading structure");
    case PLANAR_LOAD_PHASE_DECODING_LINES:
      return _("Decoding lines");
    case PLANAR_LOAD_PHASE_DERIVING_LINES:
      return _("Deriving lines");
    case PLANAR_LOAD_PHASE_LINKING_FLOWS:
      return _("Linking flows");
    case PLANAR_LOAD_PHASE_RESTORING_CACHE:
      return _("Restoring cached index");
    case PLANAR_LOAD_PHASE_READING_HLO:
      return _("Reading HLO");
    case PLANAR_LOAD_PHASE_NONE:
    default:
      return NULL;
    }
}

/* ------------------------------------------------------------------------
 * Progress, coalesced into one idle
 * ------------------------------------------------------------------------ */

typedef struct
{
  GWeakRef loader;
} NotifyData;

static void
notify_data_free (gpointer data)
{
  NotifyData *nd = data;

  g_weak_ref_clear (&nd->loader);
  g_free (nd);
}

static gboolean
notify_in_idle (gpointer data)
{
  NotifyData *nd = data;
  g_autoptr(PlanarTraceLoader) self = g_weak_ref_get (&nd->loader);
  gboolean tracks_changed;

  if (self == NULL)
    return G_SOURCE_REMOVE;

  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->notify_source, g_source_unref);
  tracks_changed = self->tracks_changed;
  self->tracks_changed = FALSE;
  g_mutex_unlock (&self->lock);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
  if (tracks_changed)
    g_signal_emit (self, signals[TRACKS_CHANGED], 0);
  return G_SOURCE_REMOVE;
}

/* Under @lock. */
static void
queue_notify (PlanarTraceLoader *self)
{
  NotifyData *nd;

  if (self->notify_source != NULL)
    return;
  nd = g_new0 (NotifyData, 1);
  g_weak_ref_init (&nd->loader, self);
  self->notify_source = g_idle_source_new ();
  g_source_set_priority (self->notify_source, G_PRIORITY_LOW);
  g_source_set_callback (self->notify_source, notify_in_idle, nd, notify_data_free);
  g_source_set_static_name (self->notify_source, "[planar] trace loader progress");
  g_source_attach (self->notify_source, self->context);
}

static void
set_phase (PlanarTraceLoader *self,
           PlanarLoadPhase    phase,
           gboolean           tracks_changed)
{
  g_mutex_lock (&self->lock);
  if (phase != PLANAR_LOAD_PHASE_NONE)
    self->phase = phase;
  self->tracks_changed |= tracks_changed;
  queue_notify (self);
  g_mutex_unlock (&self->lock);
}

static void
set_finished (PlanarTraceLoader *self)
{
  g_mutex_lock (&self->lock);
  self->finished = TRUE;
  self->phase = PLANAR_LOAD_PHASE_NONE;
  queue_notify (self);
  g_mutex_unlock (&self->lock);
}

/* The trace's reports, from any thread. */
static void
trace_progress (PlanarTrace     *trace,
                PlanarLoadPhase  phase,
                gboolean         tracks_changed,
                gpointer         data)
{
  set_phase (data, phase, tracks_changed);
}

/* ------------------------------------------------------------------------
 * GObject
 * ------------------------------------------------------------------------ */

static void
planar_trace_loader_finalize (GObject *object)
{
  PlanarTraceLoader *self = (PlanarTraceLoader *) object;

  if (self->notify_source != NULL)
    {
      g_source_destroy (self->notify_source);
      g_clear_pointer (&self->notify_source, g_source_unref);
    }
  if (self->trace != NULL)
    _planar_trace_set_progress_func (self->trace, NULL, NULL);
  g_clear_object (&self->trace);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->path, g_free);
  g_cond_clear (&self->hold_cond);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (planar_trace_loader_parent_class)->finalize (object);
}

static void
planar_trace_loader_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  PlanarTraceLoader *self = PLANAR_TRACE_LOADER (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case PROP_FRACTION:
      g_value_set_double (value, planar_trace_loader_get_fraction (self));
      break;
    case PROP_MESSAGE:
      g_value_take_string (value, planar_trace_loader_dup_message (self));
      break;
    case PROP_DERIVE:
      g_value_set_boolean (value, self->derive);
      break;
    case PROP_USE_CACHE:
      g_value_set_boolean (value, self->use_cache);
      break;
    case PROP_DERIVE_BUDGET:
      g_value_set_int64 (value, self->derive_budget);
      break;
    case PROP_DERIVE_MAX_TRACKS_PER_PLANE:
      g_value_set_uint (value, self->derive_max_tracks_per_plane);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_trace_loader_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  PlanarTraceLoader *self = PLANAR_TRACE_LOADER (object);

  switch (prop_id)
    {
    case PROP_PATH:
      self->path = g_value_dup_string (value);
      break;
    case PROP_DERIVE:
      planar_trace_loader_set_derive (self, g_value_get_boolean (value));
      break;
    case PROP_USE_CACHE:
      planar_trace_loader_set_use_cache (self, g_value_get_boolean (value));
      break;
    case PROP_DERIVE_BUDGET:
      self->derive_budget = g_value_get_int64 (value);
      break;
    case PROP_DERIVE_MAX_TRACKS_PER_PLANE:
      self->derive_max_tracks_per_plane = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_trace_loader_class_init (PlanarTraceLoaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = planar_trace_loader_finalize;
  object_class->get_property = planar_trace_loader_get_property;
  object_class->set_property = planar_trace_loader_set_property;

  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* Notified from the idle only (see the top of this file). */
  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, 0.0, 1.0, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DERIVE] =
    g_param_spec_boolean ("derive", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_USE_CACHE] =
    g_param_spec_boolean ("use-cache", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Limits of the derive pass, to exercise running out in tests: the
   * bytes derived events may take (-1: as the file's size allows), and
   * the derived tracks a plane may get (G_MAXUINT: as many as fit). Set
   * before the load. */
  properties[PROP_DERIVE_BUDGET] =
    g_param_spec_int64 ("derive-budget", NULL, NULL, -1, G_MAXINT64, -1,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DERIVE_MAX_TRACKS_PER_PLANE] =
    g_param_spec_uint ("derive-max-tracks-per-plane", NULL, NULL, 0, G_MAXUINT, G_MAXUINT,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Tracks were published (the file's as they are decoded, then the
   * derived ones, or all at once from the cache): a view lays out again. */
  signals[TRACKS_CHANGED] =
    g_signal_new ("tracks-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
planar_trace_loader_init (PlanarTraceLoader *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->hold_cond);
  self->test_options.spill = -1;
  self->derive = TRUE;
  self->use_cache = TRUE;
  self->derive_budget = -1;
  self->derive_max_tracks_per_plane = G_MAXUINT;
  self->context = g_main_context_ref_thread_default ();
}

PlanarTraceLoader *
planar_trace_loader_new (const char *path)
{
  g_return_val_if_fail (path != NULL, NULL);
  return g_object_new (PLANAR_TYPE_TRACE_LOADER, "path", path, NULL);
}

const char *
planar_trace_loader_get_path (PlanarTraceLoader *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE_LOADER (self), NULL);
  return self->path;
}

PlanarTrace *
planar_trace_loader_get_trace (PlanarTraceLoader *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE_LOADER (self), NULL);
  return self->trace;
}

void
planar_trace_loader_set_derive (PlanarTraceLoader *self,
                                gboolean           derive)
{
  g_return_if_fail (PLANAR_IS_TRACE_LOADER (self));
  derive = !!derive;
  if (self->derive == derive)
    return;
  self->derive = derive;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DERIVE]);
}

void
planar_trace_loader_set_count_stats (PlanarTraceLoader *self,
                                     gboolean           count_stats)
{
  g_return_if_fail (PLANAR_IS_TRACE_LOADER (self));
  self->count_stats = !!count_stats;
}

void
planar_trace_loader_set_use_cache (PlanarTraceLoader *self,
                                   gboolean           use_cache)
{
  g_return_if_fail (PLANAR_IS_TRACE_LOADER (self));
  use_cache = !!use_cache;
  if (self->use_cache == use_cache)
    return;
  self->use_cache = use_cache;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_USE_CACHE]);
}

void
planar_trace_loader_hold_derive (PlanarTraceLoader *self,
                                 guint              max_wait_ms)
{
  g_return_if_fail (PLANAR_IS_TRACE_LOADER (self));

  g_mutex_lock (&self->lock);
  self->hold_derive = TRUE;
  self->hold_max_wait_ms = max_wait_ms;
  g_mutex_unlock (&self->lock);
}

void
planar_trace_loader_release_derive (PlanarTraceLoader *self)
{
  g_return_if_fail (PLANAR_IS_TRACE_LOADER (self));

  g_mutex_lock (&self->lock);
  self->derive_released = TRUE;
  g_cond_broadcast (&self->hold_cond);
  g_mutex_unlock (&self->lock);
}

/* A cancellation wakes a held load (on the cancelling thread, or on the
 * waiting one when it was cancelled already). */
static void
hold_cancelled (GCancellable      *cancellable,
                PlanarTraceLoader *self)
{
  g_mutex_lock (&self->lock);
  g_cond_broadcast (&self->hold_cond);
  g_mutex_unlock (&self->lock);
}

/* On the load's thread, the file's tracks published: waits while the
 * load is held (see planar_trace_loader_hold_derive()). @self may be
 * NULL: planar_trace_load() never holds. */
static void
wait_for_release (PlanarTraceLoader *self,
                  PlanarTrace       *trace,
                  GCancellable      *cancellable)
{
  gulong handler = 0;
  gint64 deadline;

  if (self == NULL)
    return;
  g_mutex_lock (&self->lock);
  if (!self->hold_derive || self->derive_released)
    {
      g_mutex_unlock (&self->lock);
      return;
    }
  deadline = g_get_monotonic_time () + (gint64) self->hold_max_wait_ms * G_TIME_SPAN_MILLISECOND;
  g_mutex_unlock (&self->lock);

  /* For tests only (planar-mapping-private.h). */
  _planar_trace_test_point (trace, "derive-held", trace->path);
  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (hold_cancelled), self, NULL);
  g_mutex_lock (&self->lock);
  /* The cancellation's handler takes the lock before it wakes us: it
   * cannot slip between the check and the wait. */
  while (!self->derive_released && !g_cancellable_is_cancelled (cancellable))
    if (!g_cond_wait_until (&self->hold_cond, &self->lock, deadline))
      break;
  /* Past the deadline the hold is over for good. */
  self->derive_released = TRUE;
  g_mutex_unlock (&self->lock);
  g_cancellable_disconnect (cancellable, handler);
}

double
planar_trace_loader_get_fraction (PlanarTraceLoader *self)
{
  PlanarLoadPhase phase;
  gboolean finished;

  g_return_val_if_fail (PLANAR_IS_TRACE_LOADER (self), 0.0);

  g_mutex_lock (&self->lock);
  phase = self->phase;
  finished = self->finished;
  g_mutex_unlock (&self->lock);

  if (finished)
    return 1.0;
  /* The decode reads the bytes and takes most of the time; deriving and
   * linking take the rest. The structure scan and a restore from the cache
   * say no number (0: a bar that pulses). */
  switch (phase)
    {
    case PLANAR_LOAD_PHASE_DECODING_LINES:
      return 0.8 * planar_trace_get_fraction (self->trace);
    case PLANAR_LOAD_PHASE_READING_HLO:
      return 0.78;
    case PLANAR_LOAD_PHASE_DERIVING_LINES:
      return 0.8;
    case PLANAR_LOAD_PHASE_LINKING_FLOWS:
      return 0.9;
    case PLANAR_LOAD_PHASE_NONE:
    case PLANAR_LOAD_PHASE_READING_STRUCTURE:
    case PLANAR_LOAD_PHASE_RESTORING_CACHE:
    default:
      return 0.0;
    }
}

char *
planar_trace_loader_dup_message (PlanarTraceLoader *self)
{
  PlanarLoadPhase phase;

  g_return_val_if_fail (PLANAR_IS_TRACE_LOADER (self), NULL);

  g_mutex_lock (&self->lock);
  phase = self->phase;
  g_mutex_unlock (&self->lock);
  return g_strdup (phase_message (phase));
}

/* ------------------------------------------------------------------------
 * The open step: map, tell the format, import, scan
 * ------------------------------------------------------------------------ */

typedef enum
{
  /* The name says nothing: the bytes decide. */
  FORMAT_SNIFF,
  FORMAT_XSPACE,
  FORMAT_JSON,
} TraceFormat;

/* The name decides first: a `.xplane.pb` is an XSpace whatever its first
 * bytes (one whose first plane is 91 or 123 bytes long starts with "\n[" or
 * "\n{"), a `.json` or `.json.gz` is Chrome JSON. */
static TraceFormat
format_from_name (const char *file_name)
{
  if (g_str_has_suffix (file_name, ".xplane.pb") || g_str_has_suffix (file_name, ".xplane.riegeli"))
    return FORMAT_XSPACE;
  if (g_str_has_suffix (file_name, ".json") || g_str_has_suffix (file_name, ".json.gz"))
    return FORMAT_JSON;
  return FORMAT_SNIFF;
}

/* Chrome JSON: converted by a streaming parser into an XSpace in an
 * unlinked temporary file, which replaces the trace's mapping; everything
 * after reads it like any xplane, under the JSON file's name. */
static gboolean
import_json (PlanarTrace  *trace,
             GError      **error)
{
  g_autofree char *tmp_path = NULL;
  g_autoptr(GError) local_error = NULL;
  PlanarImportReport *report = NULL;
  GMappedFile *mapped;
  int fd;

  fd = g_file_open_tmp ("planar-import-XXXXXX.xplane.pb", &tmp_path, &local_error);
  if (fd < 0)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, _("Cannot import %s: %s"), trace->file_name,
                   local_error->message);
      return FALSE;
    }
  /* Gone from the folder at once; the mapping keeps the bytes. */
  g_unlink (tmp_path);
  if (!_planar_import_chrome_json (trace->data, trace->size, trace->file_name, fd, &report, error))
    {
      close (fd);
      _planar_trace_check_changed (trace, FALSE, error);
      return FALSE;
    }
  if (_planar_trace_check_changed (trace, FALSE, error))
    {
      close (fd);
      _planar_import_report_free (report);
      return FALSE;
    }
  mapped = g_mapped_file_new_from_fd (fd, FALSE, &local_error);
  close (fd);
  if (mapped == NULL)
    {
      _planar_import_report_free (report);
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, _("Cannot import %s: %s"), trace->file_name,
                   local_error->message);
      return FALSE;
    }
  _planar_trace_take_import (trace, mapped, report, (GDestroyNotify) _planar_import_report_free);
  return TRUE;
}

static PlanarTrace *
open_json (const char                   *path,
           const PlanarTraceTestOptions *test_options,
           GError                      **error)
{
  g_autoptr(PlanarTrace) trace = _planar_trace_new_mapped (path, test_options, error);

  if (trace == NULL || !import_json (trace, error) || !_planar_trace_open_mapped (trace, error))
    return NULL;
  return g_steal_pointer (&trace);
}

/* An XSpace goes to planar_trace_open(); JSON is imported first; a name
 * that says nothing is JSON when gzip, else an XSpace, else JSON when its
 * bytes could be. */
static PlanarTrace *
open_any (const char                   *path,
          const PlanarTraceTestOptions *test_options,
          GError                      **error)
{
  g_autofree char *file_name = g_path_get_basename (path);
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GError) scan_error = NULL;
  gboolean looks_json;

  switch (format_from_name (file_name))
    {
    case FORMAT_XSPACE:
      return _planar_trace_open_with (path, test_options, error);
    case FORMAT_JSON:
      return open_json (path, test_options, error);
    case FORMAT_SNIFF:
    default:
      break;
    }

  trace = _planar_trace_new_mapped (path, test_options, error);
  if (trace == NULL)
    return NULL;
  if (trace->size >= 2 && trace->data[0] == 0x1f && trace->data[1] == 0x8b)
    {
      g_clear_object (&trace);
      return open_json (path, test_options, error);
    }
  if (_planar_trace_open_mapped (trace, &scan_error))
    return g_steal_pointer (&trace);
  looks_json = planar_import_is_json (trace->data, trace->size);
  if (g_error_matches (scan_error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CHANGED) || !looks_json)
    {
      g_propagate_error (error, g_steal_pointer (&scan_error));
      return NULL;
    }
  /* Bytes that are no XSpace but could be JSON. */
  g_clear_object (&trace);
  return open_json (path, test_options, error);
}

void
_planar_trace_loader_set_test_options (PlanarTraceLoader            *self,
                                       const PlanarTraceTestOptions *options)
{
  g_return_if_fail (PLANAR_IS_TRACE_LOADER (self));
  g_return_if_fail (options != NULL);
  g_return_if_fail (self->trace == NULL);

  self->test_options = *options;
}

gboolean
planar_trace_loader_open (PlanarTraceLoader  *self,
                          GCancellable       *cancellable,
                          GError            **error)
{
  PlanarTrace *trace;

  g_return_val_if_fail (PLANAR_IS_TRACE_LOADER (self), FALSE);
  g_return_val_if_fail (self->trace == NULL, FALSE);

  set_phase (self, PLANAR_LOAD_PHASE_READING_STRUCTURE, FALSE);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  trace = open_any (self->path, &self->test_options, error);
  if (trace == NULL)
    {
      set_finished (self);
      return FALSE;
    }
  _planar_derive_attach (trace);
  trace->derive_budget = self->derive_budget;
  trace->derive_max_tracks_per_plane = self->derive_max_tracks_per_plane;
  _planar_trace_set_progress_func (trace, trace_progress, self);
  self->trace = trace;
  return TRUE;
}

/* ------------------------------------------------------------------------
 * The other steps: restore, or decode and derive; store later
 * ------------------------------------------------------------------------ */

static gboolean
restore_step (PlanarTrace   *trace,
              gboolean      *restored,
              gboolean      *lines_decoded,
              GCancellable  *cancellable,
              GError       **error)
{
  g_autofree char *cache_path = NULL;

  *restored = FALSE;
  *lines_decoded = FALSE;
  if (!planar_cache_get_enabled () || trace->import_report != NULL)
    return TRUE;
  cache_path = planar_cache_get_path (trace->path);
  if (g_file_test (cache_path, G_FILE_TEST_EXISTS))
    _planar_trace_report_progress (trace, PLANAR_LOAD_PHASE_RESTORING_CACHE, FALSE);
  if (!_planar_cache_try_restore (trace, cancellable, restored, lines_decoded, error))
    {
      _planar_trace_check_changed (trace, FALSE, error);
      return FALSE;
    }
  /* The restore read the file's structure again, and its bytes answer
   * every stat query after: cut, they cannot. */
  return !(*restored && _planar_trace_check_changed (trace, FALSE, error));
}

/* "Reading HLO": the HloProtos of `/host:metadata` into the trace's HLO
 * index (planar-hlo.h), damaged ones noted for Trace Health; it tells the
 * viewer (tracks-changed) when the index is there. */
static gboolean
hlo_step (PlanarTrace   *trace,
          GCancellable  *cancellable,
          GError       **error)
{
  _planar_trace_report_progress (trace, PLANAR_LOAD_PHASE_READING_HLO, FALSE);
  if (!_planar_trace_read_hlo (trace, cancellable, error))
    return FALSE;
  _planar_trace_report_progress (trace, PLANAR_LOAD_PHASE_NONE, TRUE);
  /* Its bytes came from the file. */
  return !_planar_trace_check_changed (trace, FALSE, error);
}

/* @loader (nullable): the load that may hold the derive step. */
static gboolean
decode_steps (PlanarTrace        *trace,
              PlanarTraceLoader  *loader,
              gboolean            derive,
              gboolean            use_cache,
              GCancellable       *cancellable,
              GError            **error)
{
  gboolean restored = FALSE, lines_decoded = FALSE;

  g_return_val_if_fail (!planar_trace_is_decoded (trace), FALSE);

  _planar_derive_attach (trace);
  /* For tests only (planar-mapping-private.h). */
  _planar_trace_test_point (trace, "trace-opened", trace->path);

  /* A cached index of this very file, when there is a sound one. */
  if (derive && use_cache && !restore_step (trace, &restored, &lines_decoded, cancellable, error))
    return FALSE;
  if (restored)
    {
      _planar_trace_report_progress (trace, PLANAR_LOAD_PHASE_NONE, TRUE);
      /* The cached index holds the lines derived from the HLO, not the
       * HLO itself, which the details of an op still want. */
      if (!hlo_step (trace, cancellable, error))
        return FALSE;
      _planar_trace_test_point (trace, "trace-decoded", trace->path);
      return TRUE;
    }

  /* The cached index's key is taken as the lines are read. */
  trace->hash_lines = planar_cache_get_enabled () && trace->import_report == NULL;
  trace->count_stats = loader != NULL && loader->count_stats;
  _planar_trace_flag_internal_events (trace);
  _planar_trace_report_progress (trace, PLANAR_LOAD_PHASE_DECODING_LINES, FALSE);
  planar_spill_debug_memory ("the decode's start (the open and structure scan before it)");
  /* A restore that decoded the first view's planes and then found its
   * index stale decoded the rest too: deriving follows. */
  if (!lines_decoded && !_planar_trace_decode_lines (trace, cancellable, error))
    return FALSE;
  planar_spill_debug_memory ("the lines' decode");

  /* The lines XProf derives (XLA Ops, Steps, ...) and the flow index need
   * every file track in place. */
  if (derive)
    {
      /* The GPU lines resolve kernels through the HLO, read once the
       * file's tracks are shown; a viewer predicts the lines to come from
       * it (planar_trace_predict_derived_lines()). */
      /* For tests only (planar-mapping-private.h). */
      _planar_trace_test_point (trace, "trace-reading-hlo", trace->path);
      if (!hlo_step (trace, cancellable, error))
        return FALSE;
      /* A held load waits here until a viewer has drawn the file's
       * tracks (planar_trace_loader_hold_derive()). */
      wait_for_release (loader, trace, cancellable);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      /* For tests only (planar-mapping-private.h). */
      _planar_trace_test_point (trace, "trace-deriving", trace->path);
      _planar_trace_report_progress (trace, PLANAR_LOAD_PHASE_DERIVING_LINES, FALSE);
      if (!_planar_trace_derive (trace, cancellable, error))
        {
          _planar_trace_check_changed (trace, TRUE, error);
          return FALSE;
        }
      /* Deriving read stats from the file. */
      if (_planar_trace_check_changed (trace, TRUE, error))
        return FALSE;
    }
  _planar_trace_publish_tracks (trace);
  _planar_trace_finish_decode (trace);
  if (derive && use_cache)
    _planar_cache_store_later (trace);
  /* For tests only (planar-mapping-private.h). */
  _planar_trace_test_point (trace, "trace-decoded", trace->path);
  return TRUE;
}

gboolean
planar_trace_loader_decode (PlanarTraceLoader  *self,
                            GCancellable       *cancellable,
                            GError            **error)
{
  gboolean ok, reuse;

  g_return_val_if_fail (PLANAR_IS_TRACE_LOADER (self), FALSE);
  g_return_val_if_fail (self->trace != NULL, FALSE);

  /* A profile whose index goes to files (past 1 GiB) has its steps'
   * scratch arrays, freed from one step to the next, reused rather than
   * faulted in again (planar-spill.h). A smaller one frees fewer and
   * smaller ones, and what is kept would add to its peak memory. */
  reuse = self->trace->spill != PLANAR_SPILL_NEVER;
  if (reuse)
    planar_spill_reuse_begin ();
  /* The cached index holds what an unlimited derive pass made: a load
   * with limits neither restores nor stores it. */
  ok = decode_steps (self->trace, self, self->derive,
                     self->use_cache && self->derive_budget < 0 &&
                     self->derive_max_tracks_per_plane == G_MAXUINT,
                     cancellable, error);
  if (reuse)
    planar_spill_reuse_end ();
  set_finished (self);
  return ok;
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  PlanarTraceLoader *self = source_object;
  GError *error = NULL;

  if (planar_trace_loader_open (self, cancellable, &error) &&
      planar_trace_loader_decode (self, cancellable, &error))
    g_task_return_pointer (task, g_object_ref (self->trace), g_object_unref);
  else
    g_task_return_error (task, error);
}

void
planar_trace_loader_load_async (PlanarTraceLoader   *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PLANAR_IS_TRACE_LOADER (self));
  g_return_if_fail (self->trace == NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, planar_trace_loader_load_async);
  g_task_set_return_on_cancel (task, FALSE);
  planar_parallel_run_task (task, load_thread);
}

PlanarTrace *
planar_trace_loader_load_finish (PlanarTraceLoader  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_return_val_if_fail (PLANAR_IS_TRACE_LOADER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

PlanarTrace *
planar_trace_load (const char    *path,
                   GCancellable  *cancellable,
                   GError       **error)
{
  g_autoptr(PlanarTrace) trace = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  trace = open_any (path, NULL, error);
  if (trace == NULL || !decode_steps (trace, NULL, TRUE, TRUE, cancellable, error))
    return NULL;
  return g_steal_pointer (&trace);
}

gboolean
planar_trace_decode (PlanarTrace   *trace,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (trace), FALSE);
  return decode_steps (trace, NULL, TRUE, TRUE, cancellable, error);
}
