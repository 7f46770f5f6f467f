/* planar-profile.h: the hosts of one session, loaded and aligned.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace.h"

G_BEGIN_DECLS

#define PLANAR_TYPE_PROFILE (planar_profile_get_type ())
G_DECLARE_FINAL_TYPE (PlanarProfile, planar_profile, PLANAR, PROFILE, GObject)

/* A profile of one or more host files. Hosts with a Task Environment are
 * placed by their profile_start_time (time 0 is the earliest start among
 * them) when their time windows overlap (see PlanarHostAlignment); a host
 * without one is placed with its earliest event at 0. A host that cannot
 * be opened is skipped (planar_profile_get_skipped_host()) and the others
 * open; the load fails only when none can. */

typedef enum
{
  /* Every host's window overlaps another host's: all share the earliest
   * profile_start_time as time 0 ("common_start"). */
  PLANAR_HOST_ALIGNMENT_COMMON_START,
  /* Some host's window overlaps no other host's (captures from different
   * runs, hosts months apart): each host's own start is its time 0
   * ("own_start"). */
  PLANAR_HOST_ALIGNMENT_OWN_START,
} PlanarHostAlignment;

/* "common_start" or "own_start", for JSON and scripts. */
const char    *planar_host_alignment_to_string  (PlanarHostAlignment  alignment);
/* The sentence a viewer shows for @alignment, or NULL when there is
 * nothing to say (common_start). */
const char    *planar_host_alignment_describe   (PlanarHostAlignment  alignment);

/* Returns: (transfer full): a profile of @paths, not loaded yet. */
PlanarProfile *planar_profile_new               (const char * const  *paths);

/* A session of many hosts opens without decoding them all: every host is
 * opened (its structure scanned, its place in time set), the first is
 * decoded, and the others wait for planar_profile_load_traces(). Set before
 * loading: a profile of at least @min_hosts hosts is lazy (0, the default,
 * never; the application uses PLANAR_PROFILE_LAZY_HOSTS). */
#define PLANAR_PROFILE_LAZY_HOSTS 8
void           planar_profile_set_lazy_hosts    (PlanarProfile       *self,
                                                 guint                min_hosts);
/* Holds every host's derive step until planar_profile_release_derive(),
 * or at most @max_wait_ms after that host's tracks were published
 * (planar_trace_loader_hold_derive()): a window holds it until it has
 * drawn the first tracks. The release is for every host, the hosts
 * decoded later included, so that with several hosts only the first one
 * can wait. Set before loading; release from any thread, any time. */
void           planar_profile_hold_derive       (PlanarProfile       *self,
                                                 guint                max_wait_ms);
void           planar_profile_release_derive    (PlanarProfile       *self);
/* planar_trace_loader_set_count_stats() for every host. Set before
 * loading. */
void           planar_profile_set_count_stats   (PlanarProfile       *self,
                                                 gboolean             count_stats);
/* Whether the load left hosts to decode on demand. */
gboolean       planar_profile_is_lazy           (PlanarProfile       *self);

typedef enum
{
  /* Opened, not decoded: its planes are known, no track is. */
  PLANAR_PROFILE_TRACE_PENDING,
  PLANAR_PROFILE_TRACE_LOADING,
  PLANAR_PROFILE_TRACE_LOADED,
  /* Its decode failed or was cancelled; it is not asked for again. It
   * keeps its place, its planes known and no track, and what works over
   * the whole profile (search, aggregates, exports) leaves it out, the
   * loss said by planar_profile_dup_losses(). */
  PLANAR_PROFILE_TRACE_FAILED,
} PlanarProfileTraceState;

/* Any thread. */
PlanarProfileTraceState planar_profile_get_trace_state (PlanarProfile *self,
                                                        guint          index);
/* Why host @index could not be decoded (FAILED, not cancelled), or NULL.
 * Returns: (transfer none) (nullable). Any thread, once the load returned. */
const GError  *planar_profile_get_trace_error   (PlanarProfile       *self,
                                                 guint                index);
/* Hosts not decoded yet: pending, loading, or cancelled; a host whose
 * decode failed (said by planar_profile_dup_losses()) waits no more. */
guint          planar_profile_get_n_pending     (PlanarProfile       *self);
/* Whether hosts are being decoded (the first load, or traces asked for). */
gboolean       planar_profile_is_busy           (PlanarProfile       *self);

/* Decodes the hosts @indices (@n_indices of them; all that are not
 * decoded when @indices is NULL) of a profile whose load returned; hosts
 * already decoded or being decoded are skipped. When every host is
 * decoded the profile is loaded ("loaded" is notified by the _finish()). */
gboolean       planar_profile_load_traces       (PlanarProfile       *self,
                                                 const guint         *indices,
                                                 guint                n_indices,
                                                 GCancellable        *cancellable,
                                                 GError             **error);
/* The same in a worker thread; "busy" is notified now (call from the main
 * thread) and again before @callback runs. */
void           planar_profile_load_traces_async (PlanarProfile       *self,
                                                 const guint         *indices,
                                                 guint                n_indices,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
gboolean       planar_profile_load_traces_finish (PlanarProfile      *self,
                                                  GAsyncResult       *result,
                                                  GError            **error);

/* Opens and decodes every host (the first only, when lazy); blocks. */
gboolean       planar_profile_load              (PlanarProfile       *self,
                                                 GCancellable        *cancellable,
                                                 GError             **error);
/* The same in a worker thread. Meanwhile, on the thread that made the
 * profile, "fraction" and "message" are notified and "tracks-changed" is
 * emitted as the hosts' loaders report (planar-trace-loader.h). A host
 * that opens but cannot be decoded is left out (FAILED), as when lazy; the
 * load fails when none is decoded, when cancelled, or when a file changed
 * while it was read. */
void           planar_profile_load_async        (PlanarProfile       *self,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
gboolean       planar_profile_load_finish       (PlanarProfile       *self,
                                                 GAsyncResult        *result,
                                                 GError             **error);

/* 0 to 1 over every host's steps, each weighing its file's size (a host
 * left to decode on demand counts as not done). Any thread. */
double         planar_profile_get_fraction      (PlanarProfile       *self);
/* Every host decoded. */
gboolean       planar_profile_is_loaded         (PlanarProfile       *self);
/* The load returned: every host opened and placed, lazy or not. */
gboolean       planar_profile_is_open           (PlanarProfile       *self);
guint          planar_profile_get_n_traces      (PlanarProfile       *self);
/* Returns: (transfer none). */
PlanarTrace   *planar_profile_get_trace         (PlanarProfile       *self,
                                                 guint                index);
/* Checks every host file against what was seen when it was opened: its
 * size and modification time (ns) on disk, and whether a read of its mapping
 * found it cut (planar_trace_has_changed()). Returns FALSE with
 * PLANAR_TRACE_ERROR_CHANGED naming the first file that differs ("host0.xplane.pb
 * changed on disk since it was opened"); hosts not opened yet are skipped.
 * For the app's focus-in and Reload. */
gboolean       planar_profile_check_files       (PlanarProfile       *self,
                                                 GError             **error);
guint64        planar_profile_get_n_events      (PlanarProfile       *self);
/* How the hosts were placed in time; set when the load opened them
 * (PLANAR_HOST_ALIGNMENT_COMMON_START before). A hosts's window is what its
 * structure tells (planar_trace_get_time_window()), known before any event
 * is decoded, so that times never move once shown. */
PlanarHostAlignment planar_profile_get_host_alignment (PlanarProfile *self);

/* Hosts of the session that could not be opened and were left out, set by
 * the load. Returns: (transfer none): the path of skipped host @index, and
 * in @error (optional) why. */
guint          planar_profile_get_n_skipped_hosts (PlanarProfile     *self);
const char    *planar_profile_get_skipped_host  (PlanarProfile       *self,
                                                 guint                index,
                                                 const GError       **error);

/* What the load lost, one line per loss, for a message bar or a
 * "warning:" line: each host skipped (its file name and why), each file
 * cut short (planar_trace_get_damage()). Returns: (transfer full): a
 * NULL-terminated array, empty when nothing was lost. */
GStrv          planar_profile_dup_losses        (PlanarProfile       *self);

/* First start and last end over all hosts, ps. FALSE when there is none. */
gboolean       planar_profile_get_span          (PlanarProfile       *self,
                                                 gint64              *first_ps,
                                                 gint64              *last_ps);

G_END_DECLS
