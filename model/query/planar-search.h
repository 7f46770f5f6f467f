/* planar-search.h: finding events by text across a whole profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-profile.h"

G_BEGIN_DECLS

#define PLANAR_SEARCH_ERROR (planar_search_error_quark ())

/**
 * PlanarSearchError:
 * @PLANAR_SEARCH_ERROR_EMPTY_PATTERN: the pattern is empty; it would match
 *   every event, which is never what a search is for.
 *
 * An invalid regular expression is reported in the %G_REGEX_ERROR domain.
 */
typedef enum
{
  PLANAR_SEARCH_ERROR_EMPTY_PATTERN,
} PlanarSearchError;

GQuark planar_search_error_quark (void);

/**
 * PlanarSearchFlags:
 * @PLANAR_SEARCH_DEFAULT: the pattern is a substring, compared without
 *   regard to the case of ASCII letters (other characters compare exactly).
 * @PLANAR_SEARCH_CASE_SENSITIVE: compare letters exactly.
 * @PLANAR_SEARCH_REGEX: the pattern is a Perl-compatible regular expression
 *   (GRegex), unanchored, caseless unless @PLANAR_SEARCH_CASE_SENSITIVE.
 */
typedef enum
{
  PLANAR_SEARCH_DEFAULT        = 0,
  PLANAR_SEARCH_CASE_SENSITIVE = 1 << 0,
  PLANAR_SEARCH_REGEX          = 1 << 1,
} PlanarSearchFlags;

/* One matching event, and when it started. */
typedef struct
{
  /* The event's start when the search ran, ps since the profile start. */
  gint64         start_ps;
  /* The event, with the index of its host in the search's profile. */
  PlanarEventRef ref;
} PlanarSearchHit;

G_STATIC_ASSERT (sizeof (PlanarSearchHit) == 24);

#define PLANAR_TYPE_SEARCH (planar_search_get_type ())
G_DECLARE_FINAL_TYPE (PlanarSearch, planar_search, PLANAR, SEARCH, GObject)

/* A search of every event of every track (derived ones included) of every
 * plane of every host for @pattern. An event matches when the pattern
 * matches its name, its display name, or the text of any of its string
 * stats (str_value, and ref_value read as the name of the stat metadata it
 * refers to), the stats of its event metadata included, exactly as
 * planar_trace_get_event_stats() lists them: an event stat hides the
 * metadata stat of the same name. Bytes and numeric stats are not text.
 * An event of a `/device:` plane also matches when the instruction it
 * resolves to in the trace's HLO (planar_trace_resolve_hlo()) has a
 * framework op (op_full_name) or source line ("train.py:23") that
 * matches; only events that match no other way are resolved, and only on
 * hosts where some instruction matches.
 *
 * The object holds the query and, once planar_search_run() or the async
 * pair has completed, the result: the hits in time order (start, then
 * host, plane, track and event index), the total and the count per track.
 * A search runs once. */

/* Checks @pattern under @flags without a profile, for a find bar that
 * validates as the user types. Fails with %PLANAR_SEARCH_ERROR_EMPTY_PATTERN
 * or a %G_REGEX_ERROR. */
gboolean               planar_search_check_pattern  (const char          *pattern,
                                                     PlanarSearchFlags    flags,
                                                     GError             **error);

/* @profile must be loaded; it is referenced. Returns: (transfer full)
 * (nullable): a search not run yet, or %NULL when @pattern is empty or not
 * a valid regular expression. */
PlanarSearch          *planar_search_new            (PlanarProfile       *profile,
                                                     const char          *pattern,
                                                     PlanarSearchFlags    flags,
                                                     GError             **error);
/* The same over @n_traces traces (each referenced); one not decoded (a
 * host whose decode failed) is left out. Hits name a trace by its index in
 * @traces. Returns: (transfer full) (nullable). */
PlanarSearch          *planar_search_new_for_traces (PlanarTrace * const *traces,
                                                     guint                n_traces,
                                                     const char          *pattern,
                                                     PlanarSearchFlags    flags,
                                                     GError             **error);

/* Runs the search, blocking, on a few worker threads. Fails with
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled (checked every few
 * thousand events), or %PLANAR_TRACE_ERROR_CORRUPT when an event's stats
 * cannot be decoded; the result is then empty. */
gboolean               planar_search_run            (PlanarSearch        *self,
                                                     GCancellable        *cancellable,
                                                     GError             **error);
/* The same in a worker thread; planar_search_get_fraction() can be polled
 * from the main thread meanwhile. */
void                   planar_search_run_async      (PlanarSearch        *self,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gboolean               planar_search_run_finish     (PlanarSearch        *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

/* Returns: (transfer none). */
const char            *planar_search_get_pattern    (PlanarSearch        *self);
PlanarSearchFlags      planar_search_get_flags      (PlanarSearch        *self);
guint                  planar_search_get_n_traces   (PlanarSearch        *self);
/* Returns: (transfer none). */
PlanarTrace           *planar_search_get_trace      (PlanarSearch        *self,
                                                     guint                index);
/* Share of the events examined so far, 0 to 1. Any thread. */
double                 planar_search_get_fraction   (PlanarSearch        *self);
/* Whether a run succeeded and the result below is in place. Any thread. */
gboolean               planar_search_is_completed   (PlanarSearch        *self);

/* The result; empty until the search has completed. The number of hits is
 * the total number of matching events. */
guint64                planar_search_get_n_hits     (PlanarSearch        *self);
/* Returns: (transfer none): the @index-th hit in time order, valid while
 * @self lives. */
const PlanarSearchHit *planar_search_get_hit        (PlanarSearch        *self,
                                                     guint64              index);
/* The number of hits on one track; 0 for indices out of range. */
guint64                planar_search_get_track_count (PlanarSearch       *self,
                                                      guint               trace,
                                                      guint               plane,
                                                      guint               track);
/* The event @hit stands for, and where it is. Every out argument is
 * optional. Returns: (transfer none). */
const PlanarEvent     *planar_search_resolve_hit    (PlanarSearch           *self,
                                                     const PlanarSearchHit  *hit,
                                                     PlanarTrace           **trace,
                                                     const PlanarPlane     **plane,
                                                     const PlanarTrack     **track);

G_END_DECLS
