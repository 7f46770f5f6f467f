/* planar-test-xspace.h: builds XSpace files for tests with protobuf-c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "planar-test-scratch.h"
#include "planar-trace.h"
#include "xplane.pb-c.h"

G_BEGIN_DECLS

typedef Tensorflow__Profiler__XSpace XSpace;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XLine XLine;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XStat XStat;
typedef Tensorflow__Profiler__XEventMetadata XEventMetadata;
typedef Tensorflow__Profiler__XStatMetadata XStatMetadata;

/* Everything built is kept in the scratch list (planar-test-scratch.h). */

#define PLANAR_TEST_APPEND(array, n, item) \
  G_STMT_START { \
    (array) = g_realloc ((array), sizeof (*(array)) * ((n) + 1)); \
    (array)[(n)++] = (item); \
  } G_STMT_END

XSpace         *planar_test_space_new          (void);
XPlane         *planar_test_space_add_plane    (XSpace *space, gint64 id, const char *name);
void            planar_test_add_task_environment (XSpace *space, guint64 start_ns);
void            planar_test_plane_add_stat_metadata (XPlane *plane, gint64 id, const char *name);
XEventMetadata *planar_test_plane_add_event_metadata (XPlane *plane, gint64 id, const char *name,
                                                      const char *display_name);
XLine          *planar_test_plane_add_line     (XPlane *plane, gint64 id, const char *name, gint64 timestamp_ns);
XEvent         *planar_test_line_add_event     (XLine *line, gint64 metadata_id, gint64 offset_ps,
                                                gint64 duration_ps);
/* @n events of @metadata_id made at once for an empty @line, event i at
 * i * @step_ps (many events one at a time copy the array for each under
 * ASan, whose realloc always moves). */
void            planar_test_line_set_events    (XLine *line, guint n, gint64 metadata_id, gint64 step_ps,
                                                gint64 duration_ps);
XStat          *planar_test_stat_uint          (gint64 metadata_id, guint64 value);
XStat          *planar_test_stat_int           (gint64 metadata_id, gint64 value);
XStat          *planar_test_stat_ref           (gint64 metadata_id, guint64 ref);
XStat          *planar_test_stat_str           (gint64 metadata_id, const char *value);
XStat          *planar_test_stat_double        (gint64 metadata_id, double value);
XStat          *planar_test_stat_bytes         (gint64 metadata_id, const guint8 *data, gsize len);
/* Serializes @space into @dir/@name and frees it. Returns: (transfer full): the path. */
char           *planar_test_write_space        (XSpace *space, const char *dir, const char *name);
/* Reads and unpacks the XSpace at @path (free it with
 * tensorflow__profiler__xspace__free_unpacked()). */
XSpace         *planar_test_read_space         (const char *path);
/* Lookups in an unpacked XSpace: a plane by name, a line by id, the name
 * of an event's metadata, of a stat metadata id (NULL when absent). */
XPlane         *planar_test_find_plane         (const XSpace *space, const char *name);
XLine          *planar_test_find_line          (const XPlane *plane, gint64 id);
const char     *planar_test_event_name         (const XPlane *plane, const XEvent *event);
const char     *planar_test_stat_name          (const XPlane *plane, gint64 id);
/* planar_trace_load() that must succeed. Returns: (transfer full). */
PlanarTrace    *planar_test_load_ok            (const char *path);
/* Asserts that planar_trace_predict_derived_lines() on @path decoded
 * without the derive pass tells the derived lines @trace (@path loaded)
 * has: the same, in order, with their ids, names, streams, and no more
 * depths than they have. */
void            planar_test_check_prediction   (const char  *path,
                                                PlanarTrace *trace);

/* Asserts that @track of @plane is consistent: sorted by (start, longer
 * first), depths those of a stack of open events (overlaps and clamped
 * depths as the model flags them), HAS_CHILDREN, totals and span right;
 * when @in_span, its events lie in [@span_first, @span_last]. */
void            planar_test_check_track        (const PlanarPlane *plane,
                                                const PlanarTrack *track,
                                                gint64             span_first,
                                                gint64             span_last,
                                                gboolean           in_span);

/* Asserts that the span index found the events of each depth of @track
 * ending in order (no depth searched linearly). */
void            planar_test_check_depth_ends_sorted (const PlanarTrack *track);

/* A plane whose stat and event metadata are handed out by name: the first
 * use of a name adds its metadata with the next id (ids are shared by
 * stats and events, from 1). */
typedef struct
{
  XPlane     *plane;
  GHashTable *stat_ids;
  GHashTable *event_ids;
  gint64      next_id;
} PlanarTestPlane;

/* Kept in the scratch list. */
PlanarTestPlane *planar_test_named_plane_new      (XSpace          *space,
                                                   gint64           id,
                                                   const char      *name);
/* Done adding to the plane: frees the name tables. */
void             planar_test_named_plane_done     (PlanarTestPlane *b);
gint64           planar_test_named_plane_stat_id  (PlanarTestPlane *b,
                                                   const char      *name);
gint64           planar_test_named_plane_event_id (PlanarTestPlane *b,
                                                   const char      *name);
/* Stats on @ev named by @name through @b: a string kept by reference in
 * the plane's metadata, an inline string, a signed and an unsigned
 * integer. */
void             planar_test_named_plane_add_ref  (PlanarTestPlane *b,
                                                   XEvent          *ev,
                                                   const char      *name,
                                                   const char      *value);
void             planar_test_named_plane_add_str  (PlanarTestPlane *b,
                                                   XEvent          *ev,
                                                   const char      *name,
                                                   const char      *value);
void             planar_test_named_plane_add_int  (PlanarTestPlane *b,
                                                   XEvent          *ev,
                                                   const char      *name,
                                                   gint64           value);
void             planar_test_named_plane_add_uint (PlanarTestPlane *b,
                                                   XEvent          *ev,
                                                   const char      *name,
                                                   guint64          value);

/* Reading a derived plane: how many of its tracks are derived, and the
 * derived one named @name (NULL when none). */
guint              planar_test_count_derived (const PlanarPlane *plane);
const PlanarTrack *planar_test_derived_track (const PlanarPlane *plane,
                                              const char        *name);

/* Work that must grow with its input, not its square, counted (never
 * timed): @small steps for @n items and @large for 4 @n. Four times the
 * items may take at most four and a half times the steps; more fails the
 * test case (without stopping it), saying @what. */
void               planar_test_check_linear  (guint              n,
                                              guint64            small,
                                              guint64            large,
                                              const char        *what);
/* Input chosen to collide in a weak hash takes about the work of ordinary
 * input of the same size: @colliding steps at most twice @ordinary's for
 * @n items; more fails the test case (without stopping it), saying
 * @what. */
void               planar_test_check_like    (guint              n,
                                              guint64            ordinary,
                                              guint64            colliding,
                                              const char        *what);

G_END_DECLS
