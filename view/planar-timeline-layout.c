/* planar-timeline-layout.c
 *
 * The order follows XProf's trace viewer: device planes first by id, then
 * host planes by name; GPU streams by display id, TPU lines in file order,
 * host threads by name. One change: the lines the model derives (XLA Ops,
 * Steps, ...) come after the file's lines of their plane (in XProf they
 * follow their stream), because they arrive after the first frame and
 * must not push rows already on screen. Empty planes and tracks take no
 * space.
 *
 * A PlanarViewState then hides tracks and sections, collapses sections and
 * puts the sections it names first, in its order; the filter keeps the
 * tracks whose name matches. Hidden and filtered tracks take no space
 * either, so drawing, picking and keys never meet them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-layout.h"

#include "planar-counters.h"
#include "planar-derive.h"
#include "planar-hlo.h"
#include "planar-hash-private.h"

#include <glib/gi18n.h>
#include <stdlib.h>
#include <string.h>

struct _PlanarTimelineLayout
{
  GArray          *rows;
  GArray          *sections;
  GArray          *entries;
  GArray          *hosts;
  PlanarViewState *state;
  /* Case-folded; NULL without a filter. */
  char            *filter;
  /* (trace, plane, track) -> row + 1; _planar_id_hash(), as g_int64_hash()
   * keeps the track's index alone: the same on each of a file's planes. */
  GHashTable      *track_rows;
  int              height;
  /* Whether the view state's entries keyed by in-file hostnames were moved
   * to the host files of this profile (see rekey_hosts()). */
  gboolean         rekeyed;
  /* Predicted: the derived lines of planes whose derive pass has not run
   * yet (see reserved_lines()). */
  GPtrArray       *predictions;
  /* Rows kept as they were by planar_timeline_layout_update_still(). */
  guint            n_held;
};

/* What planar_timeline_layout_update_still() keeps still: the rows of the
 * previous layout (by id: "s:" section, "h:" host, "e:" entry) and the
 * part of it on screen. */
typedef struct
{
  int         top;
  int         bottom;
  GHashTable *old;
  /* New y - old y of the last row placed that was there before. */
  int         delta;
  /* The first row on screen before, where it was and where it is. */
  gboolean    anchored;
  int         anchor_old_y;
  int         anchor_new_y;
} Still;

typedef struct
{
  int y;
  int height;
} OldRow;

typedef struct
{
  PlanarTrace *trace;
  guint        plane;
  /* Whether the trace's HLO was read when it was made: the lines of
   * framework ops and source code come from it. */
  gboolean     with_hlo;
  /* PlanarDerivedLinePrediction. */
  GArray      *lines;
} Prediction;

static void
prediction_free (gpointer data)
{
  Prediction *pr = data;

  g_object_unref (pr->trace);
  g_array_unref (pr->lines);
  g_free (pr);
}

typedef enum
{
  PLANE_GPU,
  PLANE_TPU,
  PLANE_OTHER_DEVICE,
  PLANE_CUSTOM,
  PLANE_HOST,
  PLANE_OTHER,
} PlaneKind;

static PlaneKind
plane_kind (const char *name)
{
  if (g_str_has_prefix (name, "/device:GPU:"))
    return PLANE_GPU;
  if (g_str_has_prefix (name, "/device:TPU:"))
    return PLANE_TPU;
  if (g_str_has_prefix (name, "/device:CUSTOM:") || g_str_has_prefix (name, "/custom:"))
    return PLANE_CUSTOM;
  if (g_str_has_prefix (name, "/device:") || g_str_has_prefix (name, "#Chip"))
    return PLANE_OTHER_DEVICE;
  if (g_str_has_prefix (name, "/host:") || strcmp (name, "Host CPUs") == 0 || strcmp (name, "Syscalls") == 0)
    return PLANE_HOST;
  return PLANE_OTHER;
}

static guint64
track_key (guint trace,
           guint plane,
           guint track)
{
  return ((guint64) trace << 48) | ((guint64) plane << 32) | track;
}

static void
clear_section (gpointer data)
{
  PlanarTimelineSection *section = data;

  g_clear_pointer (&section->id, g_free);
  g_clear_pointer (&section->title, g_free);
  g_clear_pointer (&section->subtitle, g_free);
}

static void
clear_host (gpointer data)
{
  PlanarTimelineHost *host = data;

  g_clear_pointer (&host->id, g_free);
  g_clear_pointer (&host->title, g_free);
  g_clear_pointer (&host->subtitle, g_free);
}

static void
clear_entry (gpointer data)
{
  PlanarTimelineEntry *entry = data;

  g_clear_pointer (&entry->id, g_free);
}

PlanarTimelineLayout *
planar_timeline_layout_new (void)
{
  PlanarTimelineLayout *self = g_new0 (PlanarTimelineLayout, 1);

  self->rows = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineRow));
  self->sections = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineSection));
  g_array_set_clear_func (self->sections, clear_section);
  self->entries = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineEntry));
  g_array_set_clear_func (self->entries, clear_entry);
  self->hosts = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineHost));
  g_array_set_clear_func (self->hosts, clear_host);
  self->state = planar_view_state_new ();
  self->track_rows = g_hash_table_new_full (_planar_id_hash, _planar_id_equal, g_free, NULL);
  self->predictions = g_ptr_array_new_with_free_func (prediction_free);
  return self;
}

void
planar_timeline_layout_free (PlanarTimelineLayout *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->rows);
  g_array_unref (self->sections);
  g_array_unref (self->entries);
  g_array_unref (self->hosts);
  g_clear_object (&self->state);
  g_free (self->filter);
  g_hash_table_unref (self->track_rows);
  g_ptr_array_unref (self->predictions);
  g_free (self);
}

void
planar_timeline_layout_reset (PlanarTimelineLayout *self)
{
  g_return_if_fail (self != NULL);

  g_hash_table_remove_all (self->track_rows);
  g_array_set_size (self->rows, 0);
  g_array_set_size (self->sections, 0);
  g_array_set_size (self->entries, 0);
  g_array_set_size (self->hosts, 0);
  self->height = 0;
  self->rekeyed = FALSE;
  g_ptr_array_set_size (self->predictions, 0);
}

void
planar_timeline_layout_set_view_state (PlanarTimelineLayout *self,
                                       PlanarViewState      *state)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (PLANAR_IS_VIEW_STATE (state));

  if (g_set_object (&self->state, state))
    self->rekeyed = FALSE;
}

void
planar_timeline_layout_set_filter (PlanarTimelineLayout *self,
                                   const char           *filter)
{
  g_return_if_fail (self != NULL);

  g_clear_pointer (&self->filter, g_free);
  if (filter != NULL && filter[0] != '\0')
    self->filter = g_utf8_casefold (filter, -1);
}

static gboolean
matches_filter (PlanarTimelineLayout *self,
                const char           *name)
{
  g_autofree char *folded = NULL;

  if (self->filter == NULL)
    return TRUE;
  folded = g_utf8_casefold (name, -1);
  return strstr (folded, self->filter) != NULL;
}

/* Plane-level stats the header shows. */
static const PlanarStat *
find_plane_stat (const PlanarPlane *plane,
                 const char        *name)
{
  for (guint i = 0; i < plane->n_stats; i++)
    if (strcmp (plane->stats[i].name, name) == 0)
      return &plane->stats[i];
  return NULL;
}

static gboolean
stat_get_int (const PlanarStat *stat,
              gint64           *value)
{
  if (stat == NULL)
    return FALSE;
  switch (stat->kind)
    {
    case PLANAR_STAT_INT64:
      *value = stat->v.i64;
      return TRUE;
    case PLANAR_STAT_UINT64:
      *value = (gint64) MIN (stat->v.u64, (guint64) G_MAXINT64);
      return TRUE;
    case PLANAR_STAT_DOUBLE:
      *value = (gint64) stat->v.f64;
      return TRUE;
    case PLANAR_STAT_STRING:
      {
        g_autofree char *text = g_strndup (stat->str.data, stat->str.len);
        char *end = NULL;

        *value = g_ascii_strtoll (text, &end, 10);
        return end != text;
      }
    case PLANAR_STAT_NONE:
    case PLANAR_STAT_BYTES:
    case PLANAR_STAT_REF:
    default:
      return FALSE;
    }
}

static char *
stat_get_string (const PlanarStat *stat)
{
  if (stat == NULL)
    return NULL;
  if (stat->kind == PLANAR_STAT_STRING && stat->str.len > 0)
    return g_strndup (stat->str.data, stat->str.len);
  if (stat->kind == PLANAR_STAT_REF && stat->str.data != NULL)
    return g_strdup (stat->str.data);
  return NULL;
}

/* The host as the session shows it: its file's name ("worker0"). Two
 * files of a session never share it, where two hosts may share an in-file
 * hostname ("localhost"); ids and titles use it. */
static const char *
trace_host (PlanarTrace *trace)
{
  return planar_trace_get_host_name (trace);
}

/* The hostname the file itself records, or NULL when it records none. */
static const char *
trace_hostname (PlanarTrace *trace)
{
  const char * const *hostnames = planar_trace_get_hostnames (trace);

  return hostnames != NULL && hostnames[0] != NULL && hostnames[0][0] != '\0' ? hostnames[0] : NULL;
}

/* The in-file hostname when it says something the file name does not. */
static const char *
trace_hostname_detail (PlanarTrace *trace)
{
  const char *hostname = trace_hostname (trace);

  return hostname != NULL && strcmp (hostname, trace_host (trace)) != 0 ? hostname : NULL;
}

static char *
plane_title (const PlanarPlane *plane)
{
  const char *name = plane->name;

  if (g_str_has_prefix (name, "/device:GPU:"))
    return g_strdup_printf ("GPU %s", name + strlen ("/device:GPU:"));
  if (g_str_has_prefix (name, "/device:TPU:"))
    return g_strdup_printf ("TPU %s", name + strlen ("/device:TPU:"));
  if (g_str_has_prefix (name, "/device:CUSTOM:"))
    return g_strdup (name + strlen ("/device:CUSTOM:"));
  if (g_str_has_prefix (name, "/device:"))
    return g_strdup (name + strlen ("/device:"));
  if (strcmp (name, "/host:CPU") == 0)
    return g_strdup ("Host CPU");
  if (g_str_has_prefix (name, "/host:"))
    return g_strdup_printf ("Host %s", name + strlen ("/host:"));
  return g_strdup (name);
}

static char *
plane_subtitle (PlanarTrace       *trace,
                const PlanarPlane *plane,
                gboolean           with_host)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *device = stat_get_string (find_plane_stat (plane, "gpu_device_name"));
  g_autofree char *vendor = stat_get_string (find_plane_stat (plane, "device_vendor"));
  gint64 cores, memory;

  if (device != NULL)
    g_ptr_array_add (parts, g_steal_pointer (&device));
  if (stat_get_int (find_plane_stat (plane, "core_count"), &cores) && cores > 0)
    {
      /* NVIDIA counts streaming multiprocessors, which is what its
       * core_count holds. */
      gboolean sms = vendor != NULL && g_ascii_strcasecmp (vendor, "Nvidia") == 0;

      gulong n = (gulong) MIN (cores, (gint64) G_MAXLONG);

      g_ptr_array_add (parts, sms ? g_strdup_printf (ngettext ("%lu SM", "%lu SMs", n), n)
                                  : g_strdup_printf (ngettext ("%lu core", "%lu cores", n), n));
    }
  if (stat_get_int (find_plane_stat (plane, "memory_size"), &memory) && memory > 0)
    g_ptr_array_add (parts, g_format_size_full ((guint64) memory, G_FORMAT_SIZE_IEC_UNITS));
  if (with_host)
    g_ptr_array_add (parts, g_strdup (trace_hostname (trace) != NULL ? trace_hostname (trace) : trace_host (trace)));
  else if (trace_hostname_detail (trace) != NULL)
    /* Translators: the hostname a profile file records, when the file is
     * named otherwise. */
    g_ptr_array_add (parts, g_strdup_printf (_("hostname %s"), trace_hostname_detail (trace)));
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (" · ", (char **) parts->pdata);
}

typedef struct
{
  guint       index;
  PlaneKind   kind;
  gint64      id;
  const char *name;
} PlaneOrder;

static int
compare_planes (const void *a,
                const void *b)
{
  const PlaneOrder *pa = a, *pb = b;

  if (pa->kind != pb->kind)
    return pa->kind < pb->kind ? -1 : 1;
  if (pa->kind != PLANE_HOST && pa->kind != PLANE_OTHER && pa->id != pb->id)
    return pa->id < pb->id ? -1 : 1;
  return strcmp (pa->name, pb->name);
}

typedef struct
{
  guint       index;
  guint64     group;
  guint64     order;
  const char *name;
  gboolean    by_name;
  /* A derived line predicted, not there yet: its index in the prediction
   * (G_MAXUINT for a track), and its depths. */
  guint       reserved;
  guint       n_depths;
} TrackOrder;

static int
compare_tracks (const void *a,
                const void *b)
{
  const TrackOrder *ta = a, *tb = b;

  if (ta->by_name)
    {
      int c = strcmp (ta->name, tb->name);

      if (c != 0)
        return c;
    }
  else
    {
      if (ta->group != tb->group)
        return ta->group < tb->group ? -1 : 1;
      if (ta->order != tb->order)
        return ta->order < tb->order ? -1 : 1;
    }
  return ta->index < tb->index ? -1 : ta->index > tb->index ? 1 : 0;
}

/* The stream a derived GPU line comes from: XProf names them
 * "XLA Ops - from #7", 7 being the stream line's id. */
static gboolean
derived_from_stream (const PlanarTrack *track,
                     gint64            *stream_id)
{
  const char *from = strstr (track->name, " - from #");
  char *end = NULL;

  if (from == NULL)
    return FALSE;
  from += strlen (" - from #");
  *stream_id = g_ascii_strtoll (from, &end, 10);
  return end != from && *end == '\0';
}

static gboolean
is_counter_track (const PlanarTrack *track)
{
  return strcmp (track->name, "_counters_") == 0;
}

/* Groups of a GPU plane's derived lines, below every line of the file. */
#define DERIVED_STREAM_GROUP (G_GUINT64_CONSTANT (1) << 32)
#define DERIVED_OTHER_GROUP  (G_GUINT64_CONSTANT (2) << 32)

/* The file's tracks of @plane come first; the derived ones follow. */
static guint
n_file_tracks (const PlanarPlane *plane)
{
  guint n = 0;

  while (n < plane->n_tracks && !plane->tracks[n].derived)
    n++;
  return n;
}

/* The derived lines @plane will get and has not got yet: room is kept for
 * them while the trace's derive pass runs, so that no row below moves when
 * they arrive (planar_trace_predict_derived_lines()). Predicted once every
 * file track of the plane is in place; NULL once the pass is done (the
 * trace decoded), or before. */
static const GArray *
reserved_lines (PlanarTimelineLayout *self,
                PlanarTrace          *trace,
                guint                 plane_index,
                const PlanarPlane    *plane)
{
  Prediction *pr;
  guint n_file = n_file_tracks (plane);
  gboolean with_hlo = planar_trace_get_hlo_index (trace) != NULL;

  if (self == NULL || planar_trace_is_decoded (trace) || n_file == 0)
    return NULL;
  for (guint i = 0; i < self->predictions->len; i++)
    {
      pr = g_ptr_array_index (self->predictions, i);
      if (pr->trace != trace || pr->plane != plane_index)
        continue;
      /* Made before the HLO was read (the file's tracks were shown
       * first): made again, with the lines the HLO adds. Their room comes
       * at once, early in the load, where the derived lines would be
       * held as lines not predicted are (still_hold()). */
      if (with_hlo && !pr->with_hlo)
        {
          g_array_unref (pr->lines);
          pr->lines = planar_trace_predict_derived_lines (trace, plane_index);
          pr->with_hlo = TRUE;
        }
      return pr->lines;
    }
  for (guint t = 0; t < n_file; t++)
    if (!planar_trace_is_track_ready (trace, plane_index, t))
      return NULL;
  pr = g_new0 (Prediction, 1);
  pr->trace = g_object_ref (trace);
  pr->plane = plane_index;
  pr->with_hlo = with_hlo;
  pr->lines = planar_trace_predict_derived_lines (trace, plane_index);
  g_ptr_array_add (self->predictions, pr);
  return pr->lines;
}

/* Whether the derived line @line is in place on @plane already. */
static gboolean
prediction_arrived (PlanarTrace                       *trace,
                    guint                              plane_index,
                    const PlanarPlane                 *plane,
                    const PlanarDerivedLinePrediction *line)
{
  for (guint t = n_file_tracks (plane); t < plane->n_tracks; t++)
    if (plane->tracks[t].id == line->id && planar_trace_is_track_ready (trace, plane_index, t))
      return TRUE;
  return FALSE;
}

/* Appends the tracks of one plane to show, in display order, with the
 * derived lines of @reserved (nullable) not there yet where they will
 * be. */
static void
order_tracks (PlanarTrace       *trace,
              guint              plane_index,
              const PlanarPlane *plane,
              PlaneKind          kind,
              const GArray      *reserved,
              GArray            *out)
{
  guint n_tracks = plane->n_tracks;

  g_array_set_size (out, 0);
  for (guint k = 0; reserved != NULL && k < reserved->len; k++)
    {
      const PlanarDerivedLinePrediction *line = &g_array_index (reserved, PlanarDerivedLinePrediction, k);
      /* The index it will have, after the file's and those there. */
      TrackOrder order = { n_file_tracks (plane) + k, 0, 0, line->name, FALSE, k, line->n_depths };

      /* Counter series are rows of their own (the last predicted). */
      if (line->kind == PLANAR_DERIVED_LINE_COUNTER)
        break;
      if (prediction_arrived (trace, plane_index, plane, line))
        continue;
      switch (kind)
        {
        case PLANE_HOST:
          /* Under its thread, as a derived track's below. */
          order.by_name = TRUE;
          if (line->source_track < n_tracks)
            order.name = plane->tracks[line->source_track].display_name;
          break;
        case PLANE_GPU:
          /* As a derived track's below. */
          order.group = DERIVED_OTHER_GROUP | (guint32) line->display_id;
          if (line->source_track < n_tracks)
            {
              order.group = DERIVED_STREAM_GROUP | (guint32) plane->tracks[line->source_track].display_id;
              order.order = (guint32) line->display_id;
            }
          break;
        case PLANE_TPU:
        case PLANE_OTHER_DEVICE:
        case PLANE_CUSTOM:
        case PLANE_OTHER:
        default:
          /* After the file's tracks and the derived ones there, in the
           * pass's order. */
          order.group = (guint64) n_tracks + k;
          break;
        }
      g_array_append_val (out, order);
    }
  for (guint t = 0; t < n_tracks; t++)
    {
      const PlanarTrack *track;
      TrackOrder order = { t, 0, 0, NULL, FALSE, G_MAXUINT, 0 };
      gint64 stream_id;

      /* A track still being built is left out until it is ready; tracks
       * appear as the loader finishes them. */
      if (!planar_trace_is_track_ready (trace, plane_index, t))
        continue;
      track = &plane->tracks[t];
      if (track->n_events == 0 || is_counter_track (track))
        continue;
      order.name = track->display_name;
      switch (kind)
        {
        case PLANE_HOST:
          /* Threads by name; a thread's derived lines (XLA:CPU) right
           * under it, in XProf's order (theirs, as published). */
          order.by_name = TRUE;
          if (track->derived && track->source_track < n_tracks)
            order.name = plane->tracks[track->source_track].display_name;
          break;
        case PLANE_GPU:
          /* The file's lines by display id (as the trace viewer's rows).
           * The model derives its lines after the file's are shown: they
           * go below them, so that no row already on screen moves when
           * they arrive; those of a stream in its order, then the others
           * (Steps, Launch Stats) by display id. */
          order.group = (guint32) track->display_id;
          if (track->derived)
            {
              order.group = DERIVED_OTHER_GROUP | (guint32) track->display_id;
              if (derived_from_stream (track, &stream_id))
                for (guint s = 0; s < n_tracks; s++)
                  if (!plane->tracks[s].derived && plane->tracks[s].id == stream_id)
                    {
                      order.group = DERIVED_STREAM_GROUP | (guint32) plane->tracks[s].display_id;
                      order.order = (guint32) track->display_id;
                      break;
                    }
            }
          break;
        case PLANE_TPU:
        case PLANE_OTHER_DEVICE:
        case PLANE_CUSTOM:
        case PLANE_OTHER:
        default:
          /* As in the file. */
          order.group = t;
          break;
        }
      g_array_append_val (out, order);
    }
  if (out->len > 1)
    qsort (out->data, out->len, sizeof (TrackOrder), compare_tracks);
}

static int
append_row (PlanarTimelineLayout    *self,
            const PlanarTimelineRow *row)
{
  g_array_append_vals (self->rows, row, 1);
  return row->y + row->height;
}

/* A section before it is placed: its plane, names and entries in their
 * usual order. */
typedef struct
{
  guint   trace;
  guint   plane;
  char   *id;
  char   *title;
  char   *subtitle;
  GArray *entries;
  gboolean pending;
  guint   natural;
  /* Its place in the view state's order, or G_MAXUINT. */
  guint   chosen;
} Candidate;

static void
clear_candidate (gpointer data)
{
  Candidate *c = data;

  g_free (c->id);
  g_free (c->title);
  g_free (c->subtitle);
  g_clear_pointer (&c->entries, g_array_unref);
}

static int
compare_candidates (const void *a,
                    const void *b)
{
  const Candidate *ca = a, *cb = b;

  if (ca->chosen != cb->chosen)
    return ca->chosen < cb->chosen ? -1 : 1;
  return ca->natural < cb->natural ? -1 : ca->natural > cb->natural ? 1 : 0;
}

/* What a pending host's header says: its devices and size, and what
 * expanding it does; or how far its decode is. */
static char *
pending_subtitle (PlanarProfile *profile,
                  guint          index)
{
  PlanarTrace *trace = planar_profile_get_trace (profile, index);
  guint n_devices = 0;
  g_autofree char *size = g_format_size (planar_trace_get_file_size (trace));

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    if (g_str_has_prefix (planar_trace_get_plane (trace, p)->name, "/device:"))
      n_devices++;
  switch (planar_profile_get_trace_state (profile, index))
    {
    case PLANAR_PROFILE_TRACE_LOADING:
      /* Translators: %d is a percentage. */
      return g_strdup_printf (_("Loading… %d %%"), (int) (100 * planar_trace_get_fraction (trace)));
    case PLANAR_PROFILE_TRACE_FAILED:
      return g_strdup (_("Could not be loaded"));
    case PLANAR_PROFILE_TRACE_PENDING:
    case PLANAR_PROFILE_TRACE_LOADED:
    default:
      {
        /* Translators: a number of devices of a host. */
        g_autofree char *devices = g_strdup_printf (ngettext ("%u device", "%u devices", n_devices),
                                                    n_devices);

        /* Translators: the first %s is a number of devices ("2 devices"),
         * the second a file size. */
        return g_strdup_printf (_("Not loaded · %s · %s · expand to load"), devices, size);
      }
    }
}

/* Every plane with something to show, in the usual order. */
static void
collect_candidates (PlanarTimelineLayout *self,
                    PlanarProfile        *profile,
                    GArray               *candidates)
{
  g_autoptr(GArray) planes = g_array_new (FALSE, FALSE, sizeof (PlaneOrder));
  g_autoptr(GArray) tracks = g_array_new (FALSE, FALSE, sizeof (TrackOrder));
  guint n_traces = profile != NULL ? planar_profile_get_n_traces (profile) : 0;

  for (guint tr = 0; tr < n_traces; tr++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, tr);
      const PlanarCounterSet *counters = planar_trace_get_counters (trace);
      guint n_planes = planar_trace_get_n_planes (trace);

      /* A host of a lazy profile not decoded yet: one header, where its
       * planes will be. */
      if ((planar_profile_is_lazy (profile)
           || planar_profile_get_trace_state (profile, tr) == PLANAR_PROFILE_TRACE_FAILED)
          && planar_profile_get_trace_state (profile, tr) != PLANAR_PROFILE_TRACE_LOADED)
        {
          Candidate c = { 0 };

          c.trace = tr;
          c.plane = G_MAXUINT;
          c.pending = TRUE;
          c.id = g_strdup_printf ("%s|*", trace_host (trace));
          c.title = trace_hostname_detail (trace) != NULL
            ? g_strdup_printf ("%s (%s)", trace_host (trace), trace_hostname_detail (trace))
            : g_strdup (trace_host (trace));
          c.subtitle = pending_subtitle (profile, tr);
          c.entries = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineEntry));
          c.natural = candidates->len;
          g_array_append_val (candidates, c);
        }

      g_array_set_size (planes, 0);
      for (guint p = 0; p < n_planes; p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);
          PlaneOrder order = { p, plane_kind (plane->name), plane->id, plane->name };

          g_array_append_val (planes, order);
        }
      if (planes->len > 1)
        qsort (planes->data, planes->len, sizeof (PlaneOrder), compare_planes);

      for (guint i = 0; i < planes->len; i++)
        {
          const PlaneOrder *po = &g_array_index (planes, PlaneOrder, i);
          const PlanarPlane *plane = planar_trace_get_plane (trace, po->index);
          Candidate c = { 0 };
          g_autofree char *title = NULL;
          const GArray *reserved = reserved_lines (self, trace, po->index, plane);

          order_tracks (trace, po->index, plane, po->kind, reserved, tracks);
          c.trace = tr;
          c.plane = po->index;
          c.id = g_strdup_printf ("%s|%s", trace_host (trace), plane->name);
          c.entries = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineEntry));
          /* Counters first, as the trace viewer puts a process's counters
           * above its threads. */
          for (guint k = 0; counters != NULL && k < planar_counter_set_get_n_series (counters); k++)
            {
              const PlanarCounterSeries *series = planar_counter_set_get_series (counters, k);
              PlanarTimelineEntry entry = { PLANAR_TIMELINE_ROW_COUNTER, 0, tr, po->index, k };

              if (planar_counter_series_get_plane (series) != po->index)
                continue;
              entry.name = planar_counter_series_get_name (series);
              entry.id = g_strdup_printf ("%s|counter:%s", c.id, entry.name);
              g_array_append_val (c.entries, entry);
            }
          /* Before the set is built, the room of the series predicted (a
           * reserved row of no depths is a counter's). */
          for (guint k = 0; counters == NULL && reserved != NULL && k < reserved->len; k++)
            {
              const PlanarDerivedLinePrediction *line = &g_array_index (reserved, PlanarDerivedLinePrediction, k);
              PlanarTimelineEntry entry = { PLANAR_TIMELINE_ROW_RESERVED, 0, tr, po->index, line->source_track };

              if (line->kind != PLANAR_DERIVED_LINE_COUNTER)
                continue;
              entry.name = line->name;
              entry.n_depths = 0;
              entry.id = g_strdup_printf ("%s|counter:%s", c.id, entry.name);
              g_array_append_val (c.entries, entry);
            }
          for (guint k = 0; k < tracks->len; k++)
            {
              const TrackOrder *to = &g_array_index (tracks, TrackOrder, k);
              guint t = to->index;
              PlanarTimelineEntry entry = { PLANAR_TIMELINE_ROW_TRACK, 0, tr, po->index, t };

              if (to->reserved != G_MAXUINT)
                {
                  /* The index the line will have, and so its id (hidden
                   * before it comes, it stays hidden). */
                  entry.kind = PLANAR_TIMELINE_ROW_RESERVED;
                  entry.track = t = n_file_tracks (plane) + to->reserved;
                  entry.name = to->name;
                  entry.n_depths = to->n_depths;
                }
              else
                entry.name = plane->tracks[t].display_name;
              entry.id = g_strdup_printf ("%s|%u", c.id, t);
              g_array_append_val (c.entries, entry);
            }
          /* Empty planes take no space, and are not listed. */
          if (c.entries->len == 0)
            {
              clear_candidate (&c);
              continue;
            }
          title = plane_title (plane);
          c.title = n_traces > 1 ? g_strdup_printf ("%s · %s", trace_host (trace), title) : g_steal_pointer (&title);
          c.subtitle = plane_subtitle (trace, plane, n_traces == 1);
          c.natural = candidates->len;
          g_array_append_val (candidates, c);
        }
    }
}

/* Ids were once made from the in-file hostname, so that two hosts with the
 * same one shared their state; they are now made from the host file. Once
 * every host of @profile is read, what the view state remembers under a
 * hostname moves to the host files that carry it (and is saved so). */
static void
rekey_hosts (PlanarTimelineLayout *self,
             PlanarProfile        *profile)
{
  guint n_traces = profile != NULL ? planar_profile_get_n_traces (profile) : 0;
  g_autoptr(GPtrArray) old_hosts = g_ptr_array_new ();
  g_autoptr(GPtrArray) new_hosts = g_ptr_array_new ();

  if (self->rekeyed || self->state == NULL || n_traces == 0)
    return;
  for (guint tr = 0; tr < n_traces; tr++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, tr);

      if (planar_profile_is_lazy (profile) &&
          planar_profile_get_trace_state (profile, tr) != PLANAR_PROFILE_TRACE_LOADED &&
          trace_hostname (trace) == NULL)
        return;
      g_ptr_array_add (old_hosts, (gpointer) (trace_hostname (trace) != NULL ? trace_hostname (trace) : trace_host (trace)));
      g_ptr_array_add (new_hosts, (gpointer) trace_host (trace));
    }
  g_ptr_array_add (old_hosts, NULL);
  g_ptr_array_add (new_hosts, NULL);
  /* Set first: the change this makes lays the view out again. */
  self->rekeyed = TRUE;
  planar_view_state_rekey_hosts (self->state, (const char * const *) old_hosts->pdata,
                                 (const char * const *) new_hosts->pdata);
}

/* Puts the sections of each host together, the hosts in the order of
 * their first section (so moving a section first moves its host first). */
static void
group_by_host (GArray *candidates,
               guint   n_traces)
{
  g_autoptr(GArray) grouped = g_array_sized_new (FALSE, TRUE, sizeof (Candidate), candidates->len);
  g_autofree gboolean *done = g_new0 (gboolean, n_traces);

  for (guint i = 0; i < candidates->len; i++)
    {
      guint trace = g_array_index (candidates, Candidate, i).trace;

      if (trace >= n_traces || done[trace])
        continue;
      done[trace] = TRUE;
      for (guint k = i; k < candidates->len; k++)
        if (g_array_index (candidates, Candidate, k).trace == trace)
          g_array_append_val (grouped, g_array_index (candidates, Candidate, k));
    }
  g_assert (grouped->len == candidates->len);
  /* The candidates' strings move with them. */
  memcpy (candidates->data, grouped->data, grouped->len * sizeof (Candidate));
}

static PlanarTimelineHost *
start_host (PlanarTimelineLayout *self,
            PlanarProfile        *profile,
            guint                 trace_index,
            guint                 first_section)
{
  PlanarTrace *trace = planar_profile_get_trace (profile, trace_index);
  PlanarTimelineHost host = { 0 };

  host.trace = trace_index;
  host.id = g_strdup_printf ("%s|*", trace_host (trace));
  host.title = trace_hostname_detail (trace) != NULL
    ? g_strdup_printf ("%s (%s)", trace_host (trace), trace_hostname_detail (trace))
    : g_strdup (trace_host (trace));
  host.collapsed = planar_view_state_get_section_collapsed (self->state, host.id);
  host.row = G_MAXUINT;
  host.first_section = first_section;
  g_array_append_val (self->hosts, host);
  return &g_array_index (self->hosts, PlanarTimelineHost, self->hosts->len - 1);
}

/* The id of @row in Still.old (newly allocated). */
static char *
row_key (PlanarTimelineLayout    *self,
         const PlanarTimelineRow *row)
{
  switch (row->kind)
    {
    case PLANAR_TIMELINE_ROW_SECTION:
      return g_strconcat ("s:", g_array_index (self->sections, PlanarTimelineSection, row->section).id, NULL);
    case PLANAR_TIMELINE_ROW_HOST:
      for (guint h = 0; h < self->hosts->len; h++)
        if (g_array_index (self->hosts, PlanarTimelineHost, h).trace == row->trace)
          return g_strconcat ("h:", g_array_index (self->hosts, PlanarTimelineHost, h).id, NULL);
      return NULL;
    case PLANAR_TIMELINE_ROW_TRACK:
    case PLANAR_TIMELINE_ROW_COUNTER:
    case PLANAR_TIMELINE_ROW_RESERVED:
    default:
      return g_strconcat ("e:", g_array_index (self->entries, PlanarTimelineEntry, row->entry).id, NULL);
    }
}

/* The rows as they are, by id, before they are laid out again. */
static GHashTable *
still_rows (PlanarTimelineLayout *self)
{
  GHashTable *old = g_hash_table_new_full (_planar_str_hash, _planar_str_equal, g_free, g_free);

  for (guint r = 0; r < self->rows->len; r++)
    {
      const PlanarTimelineRow *row = &g_array_index (self->rows, PlanarTimelineRow, r);
      char *key = row_key (self, row);
      OldRow *was = g_new (OldRow, 1);

      was->y = row->y;
      was->height = row->height;
      if (key != NULL)
        g_hash_table_replace (old, key, was);
      else
        g_free (was);
    }
  return old;
}

/* Row @key placed at @y: what it tells of the move of what was there. */
static const OldRow *
still_note (Still      *still,
            const char *prefix,
            const char *id,
            int         y)
{
  g_autofree char *key = NULL;
  const OldRow *was;

  if (still == NULL)
    return NULL;
  key = g_strconcat (prefix, id, NULL);
  was = g_hash_table_lookup (still->old, key);
  if (was == NULL)
    return NULL;
  still->delta = y - was->y;
  if (was->y + was->height > still->top && (!still->anchored || was->y < still->anchor_old_y))
    {
      still->anchored = TRUE;
      still->anchor_old_y = was->y;
      still->anchor_new_y = y;
    }
  return was;
}

/* Whether the derived line or counter series of @entry, about to be
 * placed at @y as @row, arrives (or changes height) where the user sees
 * it: then it is kept as it was, a reserved row of its old height or no
 * row at all (@row->height 0), and the rows below stay still. */
static gboolean
still_hold (PlanarTimelineLayout      *self,
            PlanarProfile             *profile,
            Still                     *still,
            const PlanarTimelineEntry *entry,
            PlanarTimelineRow         *row,
            int                        y)
{
  const OldRow *was = still_note (still, "e:", entry->id, y);
  int at = y - still->delta;

  if (entry->kind == PLANAR_TIMELINE_ROW_TRACK)
    {
      const PlanarPlane *plane = planar_trace_get_plane (planar_profile_get_trace (profile, entry->trace), entry->plane);

      if (!plane->tracks[entry->track].derived)
        return FALSE;
    }
  else if (entry->kind != PLANAR_TIMELINE_ROW_COUNTER)
    return FALSE;
  if (was != NULL && was->height == row->height)
    return FALSE;
  /* Only into a section the user saw (a cached index brings a plane's
   * lines all at once). */
  {
    g_autofree char *section = g_strconcat ("s:", g_array_index (self->sections, PlanarTimelineSection,
                                                                 entry->section).id, NULL);

    if (!g_hash_table_contains (still->old, section))
      return FALSE;
  }
  /* Where it goes in the rows as they were. */
  if (was != NULL)
    at = was->y;
  if (at < still->top || at >= still->bottom)
    return FALSE;
  self->n_held++;
  row->kind = PLANAR_TIMELINE_ROW_RESERVED;
  row->n_depths = 0;
  /* Placed as before (or not at all): what follows has not moved. */
  row->height = was != NULL ? was->height : 0;
  return TRUE;
}

static gboolean layout_update (PlanarTimelineLayout *self,
                               PlanarProfile        *profile,
                               Still                *still);

gboolean
planar_timeline_layout_update (PlanarTimelineLayout *self,
                               PlanarProfile        *profile)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return layout_update (self, profile, NULL);
}

gboolean
planar_timeline_layout_update_still (PlanarTimelineLayout *self,
                                     PlanarProfile        *profile,
                                     int                   top,
                                     int                   bottom,
                                     int                  *new_top)
{
  Still still = { top, bottom, NULL, 0, FALSE, 0, 0 };
  gboolean changed;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (new_top != NULL, FALSE);

  still.old = still_rows (self);
  changed = layout_update (self, profile, &still);
  *new_top = still.anchored ? top + still.anchor_new_y - still.anchor_old_y : top;
  g_hash_table_unref (still.old);
  return changed;
}

guint
planar_timeline_layout_get_n_held (PlanarTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_held;
}

static gboolean
layout_update (PlanarTimelineLayout *self,
               PlanarProfile        *profile,
               Still                *still)
{
  g_autoptr(GArray) old_rows = NULL;
  g_autoptr(GArray) candidates = g_array_new (FALSE, TRUE, sizeof (Candidate));
  const char * const *order;
  gboolean changed;
  gboolean group = profile != NULL && planar_profile_get_n_traces (profile) > 1;
  PlanarTimelineHost *host = NULL;
  gboolean in_collapsed_host;
  int y = 0;

  self->n_held = 0;
  rekey_hosts (self, profile);
  old_rows = g_steal_pointer (&self->rows);
  self->rows = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineRow));
  g_array_set_size (self->sections, 0);
  g_array_set_size (self->entries, 0);
  g_array_set_size (self->hosts, 0);
  g_hash_table_remove_all (self->track_rows);

  g_array_set_clear_func (candidates, clear_candidate);
  collect_candidates (self, profile, candidates);
  /* The sections the user moved first, in the order chosen. */
  order = planar_view_state_get_section_order (self->state);
  for (guint i = 0; i < candidates->len; i++)
    {
      Candidate *c = &g_array_index (candidates, Candidate, i);

      c->chosen = G_MAXUINT;
      for (guint k = 0; order[k] != NULL; k++)
        if (strcmp (order[k], c->id) == 0)
          {
            c->chosen = k;
            break;
          }
    }
  if (candidates->len > 1)
    qsort (candidates->data, candidates->len, sizeof (Candidate), compare_candidates);
  if (profile != NULL && planar_profile_get_n_traces (profile) > 1)
    group_by_host (candidates, planar_profile_get_n_traces (profile));

  for (guint i = 0; i < candidates->len; i++)
    {
      Candidate *c = &g_array_index (candidates, Candidate, i);
      PlanarTimelineSection section = { 0 };
      PlanarTimelineRow header = { 0 };
      gboolean title_matches = matches_filter (self, c->title);
      guint section_index = self->sections->len;

      section.trace = c->trace;
      section.plane = c->plane;
      section.id = g_steal_pointer (&c->id);
      section.title = g_steal_pointer (&c->title);
      section.subtitle = g_steal_pointer (&c->subtitle);
      section.pending = c->pending;
      section.collapsed = planar_view_state_get_section_collapsed (self->state, section.id);
      section.hidden = planar_view_state_get_section_hidden (self->state, section.id);
      section.row = G_MAXUINT;
      section.first_entry = self->entries->len;
      /* A host's first section opens its group (a pending host is its own
       * header). */
      if (group && !c->pending && (self->hosts->len == 0 || host->trace != c->trace))
        {
          PlanarTimelineRow host_row = { 0 };

          host = start_host (self, profile, c->trace, section_index);
          host_row.kind = PLANAR_TIMELINE_ROW_HOST;
          host_row.section = section_index;
          host_row.trace = c->trace;
          host_row.plane = G_MAXUINT;
          host_row.y = y;
          host_row.height = PLANAR_TIMELINE_SECTION_HEIGHT;
          host->row = self->rows->len;
          still_note (still, "h:", host->id, y);
          y = append_row (self, &host_row);
        }
      in_collapsed_host = FALSE;
      if (group && !c->pending && host != NULL && host->trace == c->trace)
        {
          host->n_sections++;
          in_collapsed_host = host->collapsed;
        }
      section.n_entries = c->entries->len;
      for (guint k = 0; k < c->entries->len; k++)
        {
          PlanarTimelineEntry *entry = &g_array_index (c->entries, PlanarTimelineEntry, k);

          entry->section = section_index;
          entry->hidden = planar_view_state_get_track_hidden (self->state, entry->id);
          entry->matches = title_matches || matches_filter (self, entry->name);
          if (!entry->hidden && entry->matches)
            section.n_tracks++;
        }
      /* The entries' ids move to the layout's array. */
      g_array_append_vals (self->entries, c->entries->data, c->entries->len);
      g_array_set_size (c->entries, 0);

      if (section.pending)
        section.collapsed = TRUE;
      /* A section with nothing to show takes no space either (a pending
       * host's header shows that it is there). */
      if (section.hidden || (section.n_tracks == 0 && !section.pending) || in_collapsed_host)
        {
          g_array_append_val (self->sections, section);
          continue;
        }
      section.row = self->rows->len;
      header.kind = PLANAR_TIMELINE_ROW_SECTION;
      header.section = section_index;
      header.trace = section.trace;
      header.plane = section.plane;
      header.y = y;
      header.height = PLANAR_TIMELINE_SECTION_HEIGHT;
      still_note (still, "s:", section.id, y);
      y = append_row (self, &header);
      g_array_append_val (self->sections, section);
      if (section.collapsed)
        continue;

      for (guint k = section.first_entry; k < section.first_entry + section.n_entries; k++)
        {
          const PlanarTimelineEntry *entry = &g_array_index (self->entries, PlanarTimelineEntry, k);
          PlanarTimelineRow row = { 0 };

          if (entry->hidden || !entry->matches)
            continue;
          row.kind = entry->kind;
          row.section = section_index;
          row.trace = entry->trace;
          row.plane = entry->plane;
          row.track = entry->track;
          row.y = y;
          row.entry = k;
          if (entry->kind == PLANAR_TIMELINE_ROW_COUNTER)
            {
              row.height = PLANAR_TIMELINE_COUNTER_HEIGHT;
              row.n_depths = 0;
            }
          else if (entry->kind == PLANAR_TIMELINE_ROW_RESERVED)
            {
              /* As the track of the depths predicted, or a counter. */
              row.height = entry->n_depths == 0 ? PLANAR_TIMELINE_COUNTER_HEIGHT
                : 2 * PLANAR_TIMELINE_TRACK_PADDING + (int) entry->n_depths * PLANAR_TIMELINE_DEPTH_PITCH;
              row.n_depths = 0;
            }
          else
            {
              const PlanarPlane *plane = planar_trace_get_plane (planar_profile_get_trace (profile, entry->trace), entry->plane);

              row.n_depths = plane->tracks[entry->track].max_depth + 1;
              row.height = 2 * PLANAR_TIMELINE_TRACK_PADDING + (int) row.n_depths * PLANAR_TIMELINE_DEPTH_PITCH;
            }
          if (still != NULL && still_hold (self, profile, still, entry, &row, y))
            {
              if (row.height == 0)
                continue;
            }
          else if (entry->kind == PLANAR_TIMELINE_ROW_TRACK)
            g_hash_table_insert (self->track_rows,
                                 g_memdup2 (&(gint64) { (gint64) track_key (entry->trace, entry->plane, entry->track) }, sizeof (gint64)),
                                 GUINT_TO_POINTER (self->rows->len + 1));
          y = append_row (self, &row);
        }
    }

  for (guint h = 0; h < self->hosts->len; h++)
    {
      PlanarTimelineHost *hg = &g_array_index (self->hosts, PlanarTimelineHost, h);

      /* Translators: how many sections (devices and host planes) a host
       * of a session has. */
      hg->subtitle = g_strdup_printf (ngettext ("%u section", "%u sections", hg->n_sections), hg->n_sections);
    }

  self->height = y;
  changed = old_rows->len != self->rows->len ||
            (old_rows->len > 0 && memcmp (old_rows->data, self->rows->data, old_rows->len * sizeof (PlanarTimelineRow)) != 0);
  return changed;
}

int
planar_timeline_layout_get_height (PlanarTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->height;
}

guint
planar_timeline_layout_get_n_rows (PlanarTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->rows->len;
}

const PlanarTimelineRow *
planar_timeline_layout_get_row (PlanarTimelineLayout *self,
                                guint                 index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->rows->len, NULL);
  return &g_array_index (self->rows, PlanarTimelineRow, index);
}

guint
planar_timeline_layout_get_n_sections (PlanarTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->sections->len;
}

const PlanarTimelineSection *
planar_timeline_layout_get_section (PlanarTimelineLayout *self,
                                    guint                 index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->sections->len, NULL);
  return &g_array_index (self->sections, PlanarTimelineSection, index);
}

guint
planar_timeline_layout_first_row_below (PlanarTimelineLayout *self,
                                        int                   y)
{
  guint lo = 0, hi;

  g_return_val_if_fail (self != NULL, 0);

  hi = self->rows->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const PlanarTimelineRow *row = &g_array_index (self->rows, PlanarTimelineRow, mid);

      if (row->y + row->height <= y)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

int
planar_timeline_layout_find_row_at (PlanarTimelineLayout *self,
                                    int                   y)
{
  guint i;
  const PlanarTimelineRow *row;

  g_return_val_if_fail (self != NULL, -1);

  if (y < 0)
    return -1;
  i = planar_timeline_layout_first_row_below (self, y);
  if (i >= self->rows->len)
    return -1;
  row = &g_array_index (self->rows, PlanarTimelineRow, i);
  return y >= row->y ? (int) i : -1;
}

int
planar_timeline_layout_find_track (PlanarTimelineLayout *self,
                                   guint                 trace,
                                   guint                 plane,
                                   guint                 track)
{
  gint64 key = (gint64) track_key (trace, plane, track);
  gpointer value;

  g_return_val_if_fail (self != NULL, -1);

  value = g_hash_table_lookup (self->track_rows, &key);
  return value != NULL ? (int) GPOINTER_TO_UINT (value) - 1 : -1;
}

void
planar_timeline_layout_set_collapsed (PlanarTimelineLayout *self,
                                      guint                 section,
                                      gboolean              collapsed)
{
  const PlanarTimelineSection *s;

  g_return_if_fail (self != NULL);
  g_return_if_fail (section < self->sections->len);

  s = &g_array_index (self->sections, PlanarTimelineSection, section);
  planar_view_state_set_section_collapsed (self->state, s->id, collapsed);
}

guint
planar_timeline_layout_get_n_entries (PlanarTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->entries->len;
}

const PlanarTimelineEntry *
planar_timeline_layout_get_entry (PlanarTimelineLayout *self,
                                  guint                 index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->entries->len, NULL);
  return &g_array_index (self->entries, PlanarTimelineEntry, index);
}

int
planar_timeline_layout_find_entry (PlanarTimelineLayout    *self,
                                   const PlanarTimelineRow *row)
{
  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (row != NULL, -1);

  if (row->kind == PLANAR_TIMELINE_ROW_SECTION || row->entry >= self->entries->len)
    return -1;
  return (int) row->entry;
}

int
planar_timeline_layout_find_section (PlanarTimelineLayout *self,
                                     const char           *id)
{
  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (id != NULL, -1);

  for (guint i = 0; i < self->sections->len; i++)
    if (strcmp (g_array_index (self->sections, PlanarTimelineSection, i).id, id) == 0)
      return (int) i;
  return -1;
}

int
planar_timeline_layout_sticky_section (PlanarTimelineLayout *self,
                                       int                   top,
                                       int                  *header_y)
{
  const PlanarTimelineSection *section;
  const PlanarTimelineRow *row, *header;
  guint r, next;

  g_return_val_if_fail (self != NULL, -1);

  r = planar_timeline_layout_first_row_below (self, top);
  if (r >= self->rows->len)
    return -1;
  row = &g_array_index (self->rows, PlanarTimelineRow, r);
  if (row->section >= self->sections->len)
    return -1;
  section = &g_array_index (self->sections, PlanarTimelineSection, row->section);
  if (section->row == G_MAXUINT || section->row >= self->rows->len)
    return -1;
  header = &g_array_index (self->rows, PlanarTimelineRow, section->row);
  /* Its header is in view (or it is the header itself). */
  if (header->y >= top)
    return -1;
  if (header_y != NULL)
    {
      *header_y = top;
      /* The next header rises into the pinned one's place. */
      for (next = r + 1; next < self->rows->len; next++)
        {
          const PlanarTimelineRow *n = &g_array_index (self->rows, PlanarTimelineRow, next);

          if (n->kind != PLANAR_TIMELINE_ROW_SECTION && n->kind != PLANAR_TIMELINE_ROW_HOST)
            continue;
          if (n->y < top + header->height)
            *header_y = n->y - header->height;
          break;
        }
    }
  return (int) row->section;
}

guint
planar_timeline_layout_get_n_hosts (PlanarTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->hosts->len;
}

const PlanarTimelineHost *
planar_timeline_layout_get_host (PlanarTimelineLayout *self,
                                 guint                 index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->hosts->len, NULL);
  return &g_array_index (self->hosts, PlanarTimelineHost, index);
}

void
planar_timeline_layout_set_host_collapsed (PlanarTimelineLayout *self,
                                           guint                 host,
                                           gboolean              collapsed)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (host < self->hosts->len);

  planar_view_state_set_section_collapsed (self->state, g_array_index (self->hosts, PlanarTimelineHost, host).id,
                                           collapsed);
}
