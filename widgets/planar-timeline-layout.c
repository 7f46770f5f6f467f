/* planar-timeline-layout.c
 *
 * The order follows XProf's trace viewer: device planes first by id, then
 * host planes by name; within a GPU plane each stream is followed by the
 * lines derived from it, TPU lines stay in file order, and host threads are
 * sorted by name. Empty planes and tracks take no space.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-layout.h"

#include "planar-counters.h"

#include <stdlib.h>
#include <string.h>

struct _PlanarTimelineLayout
{
  GArray     *rows;
  GArray     *sections;
  /* (trace << 16 | plane) of collapsed planes; survives relayouts. */
  GHashTable *collapsed;
  /* (trace, plane, track) -> row + 1. */
  GHashTable *track_rows;
  int         height;
};

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

static guint
plane_key (guint trace,
           guint plane)
{
  return (trace << 16) | (plane & 0xffff);
}

static void
clear_section (gpointer data)
{
  PlanarTimelineSection *section = data;

  g_clear_pointer (&section->title, g_free);
  g_clear_pointer (&section->subtitle, g_free);
}

PlanarTimelineLayout *
planar_timeline_layout_new (void)
{
  PlanarTimelineLayout *self = g_new0 (PlanarTimelineLayout, 1);

  self->rows = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineRow));
  self->sections = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineSection));
  g_array_set_clear_func (self->sections, clear_section);
  self->collapsed = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->track_rows = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return self;
}

void
planar_timeline_layout_free (PlanarTimelineLayout *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->rows);
  g_array_unref (self->sections);
  g_hash_table_unref (self->collapsed);
  g_hash_table_unref (self->track_rows);
  g_free (self);
}

void
planar_timeline_layout_reset (PlanarTimelineLayout *self)
{
  g_return_if_fail (self != NULL);

  g_hash_table_remove_all (self->collapsed);
  g_hash_table_remove_all (self->track_rows);
  g_array_set_size (self->rows, 0);
  g_array_set_size (self->sections, 0);
  self->height = 0;
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

static const char *
trace_host (PlanarTrace *trace)
{
  const char * const *hostnames = planar_trace_get_hostnames (trace);

  return hostnames[0] != NULL && hostnames[0][0] != '\0' ? hostnames[0] : planar_trace_get_host_name (trace);
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

      g_ptr_array_add (parts, g_strdup_printf (sms ? "%" G_GINT64_FORMAT " SMs" : "%" G_GINT64_FORMAT " cores", cores));
    }
  if (stat_get_int (find_plane_stat (plane, "memory_size"), &memory) && memory > 0)
    g_ptr_array_add (parts, g_format_size_full ((guint64) memory, G_FORMAT_SIZE_IEC_UNITS));
  if (with_host)
    g_ptr_array_add (parts, g_strdup (trace_host (trace)));
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

/* Appends the tracks of one plane to show, in display order. */
static void
order_tracks (PlanarTrace       *trace,
              guint              plane_index,
              const PlanarPlane *plane,
              PlaneKind          kind,
              GArray            *out)
{
  guint n_tracks = plane->n_tracks;

  g_array_set_size (out, 0);
  for (guint t = 0; t < n_tracks; t++)
    {
      const PlanarTrack *track;
      TrackOrder order = { t, 0, 0, NULL, FALSE };
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
          order.by_name = TRUE;
          break;
        case PLANE_GPU:
          /* By display id (as the trace viewer's rows), each derived line
           * right after its stream. */
          order.group = (guint32) track->display_id;
          if (track->derived && derived_from_stream (track, &stream_id))
            {
              for (guint s = 0; s < n_tracks; s++)
                if (!plane->tracks[s].derived && plane->tracks[s].id == stream_id)
                  {
                    order.group = (guint32) plane->tracks[s].display_id;
                    order.order = 1 + (guint64) (guint32) track->display_id;
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

gboolean
planar_timeline_layout_update (PlanarTimelineLayout *self,
                               PlanarProfile        *profile)
{
  g_autoptr(GArray) old_rows = NULL;
  g_autoptr(GArray) planes = g_array_new (FALSE, FALSE, sizeof (PlaneOrder));
  g_autoptr(GArray) tracks = g_array_new (FALSE, FALSE, sizeof (TrackOrder));
  guint n_traces;
  gboolean changed;
  int y = 0;

  g_return_val_if_fail (self != NULL, FALSE);

  old_rows = g_steal_pointer (&self->rows);
  self->rows = g_array_new (FALSE, TRUE, sizeof (PlanarTimelineRow));
  g_array_set_size (self->sections, 0);
  g_hash_table_remove_all (self->track_rows);

  n_traces = profile != NULL ? planar_profile_get_n_traces (profile) : 0;
  for (guint tr = 0; tr < n_traces; tr++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, tr);
      guint n_planes = planar_trace_get_n_planes (trace);

      g_array_set_size (planes, 0);
      for (guint p = 0; p < n_planes; p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);
          PlaneOrder order = { p, plane_kind (plane->name), plane->id, plane->name };

          g_array_append_val (planes, order);
        }
      qsort (planes->data, planes->len, sizeof (PlaneOrder), compare_planes);

      for (guint i = 0; i < planes->len; i++)
        {
          const PlaneOrder *po = &g_array_index (planes, PlaneOrder, i);
          const PlanarPlane *plane = planar_trace_get_plane (trace, po->index);
          PlanarTimelineSection section = { 0 };
          PlanarTimelineRow header = { 0 };
          g_autofree char *title = NULL;

          const PlanarCounterSet *counters = planar_trace_get_counters (trace);
          guint n_counters = 0;

          order_tracks (trace, po->index, plane, po->kind, tracks);
          if (counters != NULL)
            for (guint c = 0; c < planar_counter_set_get_n_series (counters); c++)
              if (planar_counter_series_get_plane (planar_counter_set_get_series (counters, c)) == po->index)
                n_counters++;
          /* Empty planes take no space. */
          if (tracks->len == 0 && n_counters == 0)
            continue;

          title = plane_title (plane);
          section.trace = tr;
          section.plane = po->index;
          section.title = n_traces > 1 ? g_strdup_printf ("%s · %s", trace_host (trace), title) : g_steal_pointer (&title);
          section.subtitle = plane_subtitle (trace, plane, n_traces == 1);
          section.collapsed = g_hash_table_contains (self->collapsed, GUINT_TO_POINTER (plane_key (tr, po->index)));
          section.row = self->rows->len;
          section.n_tracks = tracks->len + n_counters;

          header.kind = PLANAR_TIMELINE_ROW_SECTION;
          header.section = self->sections->len;
          header.trace = tr;
          header.plane = po->index;
          header.y = y;
          header.height = PLANAR_TIMELINE_SECTION_HEIGHT;
          y = append_row (self, &header);
          g_array_append_val (self->sections, section);

          if (section.collapsed)
            continue;
          /* Counters first, as the trace viewer puts a process's counters
           * above its threads. */
          for (guint c = 0; n_counters > 0 && c < planar_counter_set_get_n_series (counters); c++)
            {
              const PlanarCounterSeries *series = planar_counter_set_get_series (counters, c);
              PlanarTimelineRow row = { 0 };

              if (planar_counter_series_get_plane (series) != po->index)
                continue;
              row.kind = PLANAR_TIMELINE_ROW_COUNTER;
              row.section = header.section;
              row.trace = tr;
              row.plane = po->index;
              row.track = c;
              row.y = y;
              row.height = PLANAR_TIMELINE_COUNTER_HEIGHT;
              row.n_depths = 0;
              y = append_row (self, &row);
            }
          for (guint k = 0; k < tracks->len; k++)
            {
              guint t = g_array_index (tracks, TrackOrder, k).index;
              const PlanarTrack *track = &plane->tracks[t];
              PlanarTimelineRow row = { 0 };

              row.kind = PLANAR_TIMELINE_ROW_TRACK;
              row.section = header.section;
              row.trace = tr;
              row.plane = po->index;
              row.track = t;
              row.y = y;
              row.n_depths = track->max_depth + 1;
              row.height = 2 * PLANAR_TIMELINE_TRACK_PADDING + (int) row.n_depths * PLANAR_TIMELINE_DEPTH_PITCH;
              g_hash_table_insert (self->track_rows,
                                   g_memdup2 (&(gint64) { (gint64) track_key (tr, po->index, t) }, sizeof (gint64)),
                                   GUINT_TO_POINTER (self->rows->len + 1));
              y = append_row (self, &row);
            }
        }
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
  gpointer key;

  g_return_if_fail (self != NULL);
  g_return_if_fail (section < self->sections->len);

  s = &g_array_index (self->sections, PlanarTimelineSection, section);
  key = GUINT_TO_POINTER (plane_key (s->trace, s->plane));
  if (collapsed)
    g_hash_table_add (self->collapsed, key);
  else
    g_hash_table_remove (self->collapsed, key);
}
