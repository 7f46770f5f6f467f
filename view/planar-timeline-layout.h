/* planar-timeline-layout.h: which rows the timeline shows, in which order
 * and at which height.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-profile.h"
#include "planar-view-state.h"

G_BEGIN_DECLS

/* Heights in logical pixels. */
#define PLANAR_TIMELINE_SECTION_HEIGHT 30
#define PLANAR_TIMELINE_TRACK_PADDING  3
#define PLANAR_TIMELINE_DEPTH_PITCH    18
#define PLANAR_TIMELINE_EVENT_HEIGHT   16
#define PLANAR_TIMELINE_COUNTER_HEIGHT 44

typedef enum
{
  /* A plane's header, naming the device and its host. */
  PLANAR_TIMELINE_ROW_SECTION,
  /* A track's events, one band per nesting depth. */
  PLANAR_TIMELINE_ROW_TRACK,
  /* A counter line, drawn as a line chart. */
  PLANAR_TIMELINE_ROW_COUNTER,
  /* A host's header, above its sections, when the session shows more
   * than one host: @trace is the host, @section its first section. */
  PLANAR_TIMELINE_ROW_HOST,
  /* Room kept for a derived line the model predicts and has not added
   * yet (planar_trace_predict_derived_lines()): @track is the index it
   * will have. Only while the trace's derive pass runs. */
  PLANAR_TIMELINE_ROW_RESERVED,
} PlanarTimelineRowKind;

typedef struct
{
  PlanarTimelineRowKind kind;
  guint                 section;
  guint                 trace;
  guint                 plane;
  /* The track's index in the plane; for a counter, the series' index in
   * the trace's PlanarCounterSet. */
  guint                 track;
  /* Top and height in content coordinates (0 is the top of the first
   * section, scrolling not applied). */
  int                   y;
  int                   height;
  /* Depth bands of a track (0 for the other rows). Tracks appear in the
   * layout once their events are in place. */
  guint                 n_depths;
  /* A track's or counter's entry (see planar_timeline_layout_get_entry). */
  guint                 entry;
} PlanarTimelineRow;

/* A plane with something to show. The layout lists every one, hidden or
 * not, in display order; a hidden one, or one the filter leaves empty, has
 * no rows. */
typedef struct
{
  guint     trace;
  guint     plane;
  /* "host|plane name": what PlanarViewState calls it. Owned by the layout. */
  char     *id;
  /* "GPU 4", "Host CPU", "TPU 0"; with the host first when the profile has
   * several. Owned by the layout. */
  char     *title;
  /* The device ("NVIDIA H100 80GB HBM3 · 132 SMs · 79.6 GiB") and host. */
  char     *subtitle;
  gboolean  collapsed;
  gboolean  hidden;
  /* A host of a lazy profile not decoded yet (planar_profile_is_lazy()):
   * one header for the whole host, with no tracks, @plane G_MAXUINT and
   * @collapsed set; expanding it asks for the host. */
  gboolean  pending;
  /* Its header row (G_MAXUINT when it has none), and how many track rows
   * follow when expanded. */
  guint     row;
  guint     n_tracks;
  /* Its tracks and counters, shown or not: entries first_entry to
   * first_entry + n_entries - 1. */
  guint     first_entry;
  guint     n_entries;
} PlanarTimelineSection;

/* A host of a session of several, the group of its sections (which
 * follow one another). A pending host has no group: its one header is the
 * host's. */
typedef struct
{
  guint     trace;
  /* "host|*": what PlanarViewState calls it (collapsed or not). Owned by
   * the layout. */
  char     *id;
  /* The host file's name, with the in-file hostname when it differs;
   * and how many sections it has. Owned by the layout. */
  char     *title;
  char     *subtitle;
  /* Collapsed, its sections have no rows. */
  gboolean  collapsed;
  /* Its header row. */
  guint     row;
  guint     first_section;
  guint     n_sections;
} PlanarTimelineHost;

/* A track or counter of a section, shown or not. */
typedef struct
{
  /* PLANAR_TIMELINE_ROW_TRACK, PLANAR_TIMELINE_ROW_COUNTER or
   * PLANAR_TIMELINE_ROW_RESERVED (a derived line to come). */
  PlanarTimelineRowKind kind;
  guint                 section;
  guint                 trace;
  guint                 plane;
  guint                 track;
  /* The track's display name or the counter's name. Owned by the
   * profile. */
  const char           *name;
  /* "host|plane name|index" or "host|plane name|counter:name". Owned by
   * the layout. */
  char                 *id;
  gboolean              hidden;
  /* Whether it matches the filter (always, without one). */
  gboolean              matches;
  /* PLANAR_TIMELINE_ROW_RESERVED: the depths the line is expected to
   * have, which its row keeps room for; 0 for a counter series to come
   * (as tall as a counter, @track its `_counters_` track). */
  guint                 n_depths;
} PlanarTimelineEntry;

typedef struct _PlanarTimelineLayout PlanarTimelineLayout;

PlanarTimelineLayout        *planar_timeline_layout_new           (void);
void                         planar_timeline_layout_free          (PlanarTimelineLayout *self);

/* Lays @profile (nullable, possibly still loading) out again. Returns
 * whether anything changed. */
gboolean                     planar_timeline_layout_update        (PlanarTimelineLayout *self,
                                                                   PlanarProfile        *profile);
/* As planar_timeline_layout_update(), for a change the user did not make
 * (a load publishing tracks), while content rows [@top, @bottom) of the
 * layout as it was are on screen: what the user sees does not move. A
 * derived line or counter series that arrives there in a section shown
 * before (or arrives taller or shorter than the room kept for it) is kept
 * as it was, a reserved row of
 * its old height or no row, until a later update finds its place off
 * screen, or a planar_timeline_layout_update() (the user's own change)
 * lays everything out. In @new_top, the top that keeps the first row on
 * screen where it was (rows above it came or went). */
gboolean                     planar_timeline_layout_update_still  (PlanarTimelineLayout *self,
                                                                   PlanarProfile        *profile,
                                                                   int                   top,
                                                                   int                   bottom,
                                                                   int                  *new_top);
/* How many rows the last update kept as they were (0 after
 * planar_timeline_layout_update()). */
guint                        planar_timeline_layout_get_n_held    (PlanarTimelineLayout *self);
/* Forgets the rows (a new profile). */
void                         planar_timeline_layout_reset         (PlanarTimelineLayout *self);
/* What is hidden, collapsed and moved: read at every update. @state is
 * referenced. */
void                         planar_timeline_layout_set_view_state (PlanarTimelineLayout *self,
                                                                    PlanarViewState      *state);
/* Shows only the tracks whose name holds @filter (any case), and every
 * track of a section whose title does; NULL or "" shows all. */
void                         planar_timeline_layout_set_filter    (PlanarTimelineLayout *self,
                                                                   const char           *filter);

int                          planar_timeline_layout_get_height    (PlanarTimelineLayout *self);
guint                        planar_timeline_layout_get_n_rows    (PlanarTimelineLayout *self);
/* Returns: (transfer none). */
const PlanarTimelineRow     *planar_timeline_layout_get_row       (PlanarTimelineLayout *self,
                                                                   guint                 index);
guint                        planar_timeline_layout_get_n_sections (PlanarTimelineLayout *self);
/* Returns: (transfer none). */
const PlanarTimelineSection *planar_timeline_layout_get_section   (PlanarTimelineLayout *self,
                                                                   guint                 index);
guint                        planar_timeline_layout_get_n_entries (PlanarTimelineLayout *self);
/* Returns: (transfer none). */
const PlanarTimelineEntry   *planar_timeline_layout_get_entry     (PlanarTimelineLayout *self,
                                                                   guint                 index);
/* The entry of a row showing a track or counter, or -1. */
int                          planar_timeline_layout_find_entry    (PlanarTimelineLayout *self,
                                                                   const PlanarTimelineRow *row);
/* The section called @id, or -1. */
int                          planar_timeline_layout_find_section  (PlanarTimelineLayout *self,
                                                                   const char           *id);
/* The sections whose tracks and counters (those laid out, and those to
 * come) would be in the top @height pixels of the layout (scrolled to the
 * top): their indices appended to @sections (guint), in order. Not a
 * collapsed one, nor one whose header reaches the bottom of those pixels.
 * FALSE when the rows end more than a section header's height above the
 * bottom: the rest would hold more than the header of a section laid out
 * later. */
gboolean                     planar_timeline_layout_sections_in_view (PlanarTimelineLayout *self,
                                                                      int                   height,
                                                                      GArray               *sections);
/* The row at content @y, or -1. */
int                          planar_timeline_layout_find_row_at   (PlanarTimelineLayout *self,
                                                                   int                   y);
/* The first row whose bottom is below content @y (for drawing from the
 * top of the viewport). */
guint                        planar_timeline_layout_first_row_below (PlanarTimelineLayout *self,
                                                                     int                   y);
/* The row showing a track, or -1 (collapsed, empty, or not a track). */
int                          planar_timeline_layout_find_track    (PlanarTimelineLayout *self,
                                                                   guint                 trace,
                                                                   guint                 plane,
                                                                   guint                 track);
/* The section whose header stays pinned at the top of a viewport whose
 * top is at content @top: the one whose tracks are there while its own
 * header has scrolled above. Returns its index, or -1 when no header needs
 * pinning, and in @header_y the content y to draw it at: @top, or higher
 * while the next section's header pushes it out. */
int                          planar_timeline_layout_sticky_section (PlanarTimelineLayout *self,
                                                                    int                   top,
                                                                    int                  *header_y);
/* The hosts grouped (none unless the profile has several hosts). */
guint                        planar_timeline_layout_get_n_hosts   (PlanarTimelineLayout *self);
/* Returns: (transfer none). */
const PlanarTimelineHost    *planar_timeline_layout_get_host      (PlanarTimelineLayout *self,
                                                                   guint                 index);
/* Collapses or expands host group @host in the view state (remembered
 * per host file); takes effect at the next update. */
void                         planar_timeline_layout_set_host_collapsed (PlanarTimelineLayout *self,
                                                                        guint                 host,
                                                                        gboolean              collapsed);
/* Collapses or expands @section in the view state; takes effect at the
 * next update. */
void                         planar_timeline_layout_set_collapsed (PlanarTimelineLayout *self,
                                                                   guint                 section,
                                                                   gboolean              collapsed);

/* The content y of the top of depth @depth's band in @row. */
static inline int
planar_timeline_row_depth_y (const PlanarTimelineRow *row,
                             guint                    depth)
{
  return row->y + PLANAR_TIMELINE_TRACK_PADDING + (int) depth * PLANAR_TIMELINE_DEPTH_PITCH;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarTimelineLayout, planar_timeline_layout_free)

G_END_DECLS
