/* planar-export.c: the file side of both exports, and Chrome JSON.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-export-private.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planar-counters.h"
#include "planar-flows.h"
#include "planar-json-writer.h"
#include "planar-string-table.h"

/* How often the writers report progress and look at the cancellable. */
#define CHECK_EVERY 16384

gboolean
planar_export_format_from_string (const char         *name,
                                  PlanarExportFormat *format)
{
  if (g_strcmp0 (name, "chrome-json") == 0 || g_strcmp0 (name, "json") == 0)
    *format = PLANAR_EXPORT_CHROME_JSON;
  else if (g_strcmp0 (name, "perfetto") == 0)
    *format = PLANAR_EXPORT_PERFETTO;
  else
    return FALSE;
  return TRUE;
}

const char *
planar_export_format_to_string (PlanarExportFormat format)
{
  return format == PLANAR_EXPORT_PERFETTO ? "perfetto" : "chrome-json";
}

PlanarExportFormat
planar_export_format_for_path (const char *path)
{
  g_autofree char *name = g_path_get_basename (path);
  gsize len = strlen (name);

  if (g_str_has_suffix (name, ".gz"))
    name[len - 3] = '\0';
  if (g_str_has_suffix (name, ".pftrace") || g_str_has_suffix (name, ".perfetto-trace"))
    return PLANAR_EXPORT_PERFETTO;
  return PLANAR_EXPORT_CHROME_JSON;
}

gboolean
_planar_export_skip_stat (const char *name)
{
  static const char * const skipped[] = {
    "_pt", "_p", "_ct", "_c", "_r", "_a", "flops", "program_id", "symbol_id", "flow", NULL,
  };

  return name == NULL || name[0] == '\0' || g_strv_contains (skipped, name);
}

gboolean
planar_export_filter_keeps_track (const PlanarExportFilter *filter,
                                  PlanarTrace              *trace,
                                  const PlanarPlane        *plane,
                                  const PlanarTrack        *track)
{
  if (track->derived)
    return FALSE;
  if (filter == NULL)
    return TRUE;
  if (filter->host != NULL && g_strcmp0 (filter->host, planar_trace_get_host_name (trace)) != 0)
    return FALSE;
  if (filter->plane != NULL && g_strcmp0 (filter->plane, plane->name) != 0)
    return FALSE;
  if (filter->line != NULL && g_strcmp0 (filter->line, track->name) != 0
      && g_strcmp0 (filter->line, track->display_name) != 0)
    return FALSE;
  return TRUE;
}

gboolean
planar_export_filter_keeps_plane (const PlanarExportFilter *filter,
                                  PlanarTrace              *trace,
                                  const PlanarPlane        *plane)
{
  if (filter == NULL)
    return TRUE;
  if (filter->host != NULL && g_strcmp0 (filter->host, planar_trace_get_host_name (trace)) != 0)
    return FALSE;
  if (filter->plane != NULL && g_strcmp0 (filter->plane, plane->name) != 0)
    return FALSE;
  if (filter->line == NULL)
    return TRUE;
  for (guint t = 0; t < plane->n_tracks; t++)
    if (planar_export_filter_keeps_track (filter, trace, plane, &plane->tracks[t]))
      return TRUE;
  return FALSE;
}

gboolean
planar_export_filter_keeps_event (const PlanarExportFilter *filter,
                                  const PlanarEvent        *event)
{
  if (filter == NULL)
    return TRUE;
  return event->start_ps <= filter->to_ps && event->start_ps + event->duration_ps >= filter->from_ps;
}

/* Whether @filter has a window narrower than all time. */
static gboolean
has_window (const PlanarExportFilter *filter)
{
  return filter != NULL && (filter->from_ps != G_MININT64 || filter->to_ps != G_MAXINT64);
}

guint64
planar_export_count_filtered (PlanarProfile            *profile,
                              const PlanarExportFilter *filter)
{
  guint64 n = 0;

  for (guint h = 0; h < planar_profile_get_n_traces (profile); h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);

          for (guint t = 0; t < plane->n_tracks; t++)
            {
              const PlanarTrack *track = &plane->tracks[t];

              if (!planar_export_filter_keeps_track (filter, trace, plane, track))
                continue;
              if (!has_window (filter))
                n += track->n_events;
              else
                for (gsize i = 0; i < track->n_events && track->events[i].start_ps <= filter->to_ps; i++)
                  n += planar_export_filter_keeps_event (filter, &track->events[i]);
            }
        }
    }
  return n;
}

guint64
planar_export_count_events (PlanarProfile *profile)
{
  guint64 n = 0;

  g_return_val_if_fail (PLANAR_IS_PROFILE (profile), 0);

  for (guint h = 0; h < planar_profile_get_n_traces (profile); h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);

      /* A host whose decode failed is left out (planar_profile_dup_losses()). */
      for (guint p = 0; p < planar_trace_get_n_planes (trace) && planar_trace_is_decoded (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);

          for (guint t = 0; t < plane->n_tracks; t++)
            if (!plane->tracks[t].derived)
              n += plane->tracks[t].n_events;
        }
    }
  return n;
}

guint64
_planar_export_flow_id (guint   trace,
                        guint64 id)
{
  /* A multiplicative mix of the host keeps hosts apart; 53 bits, so that
   * JSON readers that hold numbers as doubles (Catapult) keep them exact. */
  return (id ^ ((guint64) trace * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15))) & ((G_GUINT64_CONSTANT (1) << 53) - 1);
}

/* @ps picoseconds as exact microseconds: "123.456789", "-0.000001". */
static void
write_us (PlanarJsonWriter *w,
          gint64            ps)
{
  guint64 mag = ps < 0 ? (guint64) 0 - (guint64) ps : (guint64) ps;
  char text[48];
  char frac[8];
  int n;

  g_snprintf (frac, sizeof frac, "%06" G_GUINT64_FORMAT, mag % 1000000);
  for (n = 6; n > 0 && frac[n - 1] == '0'; n--)
    frac[n - 1] = '\0';
  if (n > 0)
    g_snprintf (text, sizeof text, "%s%" G_GUINT64_FORMAT ".%s", ps < 0 ? "-" : "", mag / 1000000, frac);
  else
    g_snprintf (text, sizeof text, "%s%" G_GUINT64_FORMAT, ps < 0 ? "-" : "", mag / 1000000);
  planar_json_writer_raw (w, text);
}

static void
write_stat_value (PlanarJsonWriter *w,
                  const PlanarStat *stat)
{
  const gint64 exact = G_GINT64_CONSTANT (1) << 53;

  switch (stat->kind)
    {
    case PLANAR_STAT_INT64:
      if (stat->v.i64 > exact || stat->v.i64 < -exact)
        {
          g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, stat->v.i64);

          planar_json_writer_string (w, text);
        }
      else
        planar_json_writer_int (w, stat->v.i64);
      break;
    case PLANAR_STAT_UINT64:
      if (stat->v.u64 > (guint64) exact)
        {
          g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT, stat->v.u64);

          planar_json_writer_string (w, text);
        }
      else
        planar_json_writer_uint (w, stat->v.u64);
      break;
    case PLANAR_STAT_DOUBLE:
      if (isnan (stat->v.f64))
        planar_json_writer_string (w, "NaN");
      else if (isinf (stat->v.f64))
        planar_json_writer_string (w, stat->v.f64 > 0 ? "Infinity" : "-Infinity");
      else
        planar_json_writer_double (w, stat->v.f64);
      break;
    case PLANAR_STAT_STRING:
    case PLANAR_STAT_REF:
    default:
      planar_json_writer_string_len (w, stat->str.data, stat->str.len);
      break;
    }
}

typedef struct
{
  PlanarJsonWriter      *w;
  PlanarProfile         *profile;
  const PlanarExportFilter *filter;
  PlanarExportProgress   progress;
  gpointer               user_data;
  GCancellable          *cancellable;
  guint64                total;
  guint64                done;
  GArray                *stats;
  GArray                *flows;
} ChromeExport;

static void
write_metadata_event (PlanarJsonWriter *w,
                      const char       *name,
                      int               pid,
                      int               tid,
                      const char       *key,
                      const char       *text,
                      gint64            number)
{
  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "ph");
  planar_json_writer_string (w, "M");
  planar_json_writer_key (w, "name");
  planar_json_writer_string (w, name);
  planar_json_writer_key (w, "pid");
  planar_json_writer_int (w, pid);
  if (tid >= 0)
    {
      planar_json_writer_key (w, "tid");
      planar_json_writer_int (w, tid);
    }
  planar_json_writer_key (w, "args");
  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, key);
  if (text != NULL)
    planar_json_writer_string (w, text);
  else
    planar_json_writer_int (w, number);
  planar_json_writer_end_object (w);
  planar_json_writer_end_object (w);
}

/* One more flow of an event, as a flow v1 record ("s" or "f", bound to the
 * enclosing slice) after the event: v2 carries one id per event. */
static void
write_flow_record (PlanarJsonWriter *w,
                   int               pid,
                   int               tid,
                   gint64            ts_ps,
                   guint64           id,
                   gboolean          outgoing,
                   const char       *category)
{
  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "ph");
  planar_json_writer_string (w, outgoing ? "s" : "f");
  planar_json_writer_key (w, "id");
  planar_json_writer_uint (w, id);
  planar_json_writer_key (w, "pid");
  planar_json_writer_int (w, pid);
  planar_json_writer_key (w, "tid");
  planar_json_writer_int (w, tid);
  planar_json_writer_key (w, "ts");
  write_us (w, ts_ps);
  planar_json_writer_key (w, "name");
  planar_json_writer_string (w, "flow");
  planar_json_writer_key (w, "cat");
  planar_json_writer_string (w, category[0] != '\0' ? category : "flow");
  if (!outgoing)
    {
      planar_json_writer_key (w, "bp");
      planar_json_writer_string (w, "e");
    }
  planar_json_writer_end_object (w);
}

static gboolean
same_ref (const PlanarEventRef *a,
          const PlanarEventRef *b)
{
  return a->plane == b->plane && a->track == b->track && a->index == b->index;
}

static gboolean
write_event (ChromeExport      *ce,
             guint              h,
             PlanarTrace       *trace,
             guint              p,
             const PlanarPlane *plane,
             guint              t,
             gsize              i,
             int                pid,
             int                tid,
             GError           **error)
{
  PlanarJsonWriter *w = ce->w;
  const PlanarEvent *ev = &plane->tracks[t].events[i];
  const PlanarFlowIndex *index = planar_trace_get_flows (trace);
  const char *name = planar_plane_get_event_name (plane, ev, FALSE);
  const char *display = planar_plane_get_event_name (plane, ev, TRUE);
  PlanarEventRef ref = { p, 0, t, (guint32) i };
  guint first_flow = G_MAXUINT;

  g_array_set_size (ce->stats, 0);
  if (planar_trace_get_event_stats (trace, plane, ev, ce->stats, error) == 0 && error != NULL && *error != NULL)
    return FALSE;
  g_array_set_size (ce->flows, 0);
  if (index != NULL)
    planar_flow_index_query_event (index, &ref, ce->flows);

  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "ph");
  planar_json_writer_string (w, "X");
  planar_json_writer_key (w, "pid");
  planar_json_writer_int (w, pid);
  planar_json_writer_key (w, "tid");
  planar_json_writer_int (w, tid);
  planar_json_writer_key (w, "ts");
  write_us (w, ev->start_ps);
  planar_json_writer_key (w, "dur");
  /* At least a picosecond, so that no importer reads "did not finish". */
  write_us (w, MAX (ev->duration_ps, 1));
  planar_json_writer_key (w, "name");
  planar_json_writer_string (w, display);

  /* Flow v2: the first flow of the event; an event both ending and
   * starting the same id is a step. */
  for (guint f = 0; f < ce->flows->len && first_flow == G_MAXUINT; f++)
    first_flow = f;
  if (first_flow != G_MAXUINT)
    {
      const PlanarFlow *flow = &g_array_index (ce->flows, PlanarFlow, first_flow);
      gboolean out = same_ref (&flow->from, &ref);
      gboolean in = same_ref (&flow->to, &ref);
      const char *category = planar_flow_category_get_name (flow->category);

      for (guint f = first_flow + 1; f < ce->flows->len; f++)
        {
          const PlanarFlow *other = &g_array_index (ce->flows, PlanarFlow, f);

          if (other->id == flow->id)
            {
              out = out || same_ref (&other->from, &ref);
              in = in || same_ref (&other->to, &ref);
            }
        }
      planar_json_writer_key (w, "bind_id");
      planar_json_writer_uint (w, _planar_export_flow_id (h, flow->id));
      if (category[0] != '\0')
        {
          planar_json_writer_key (w, "cat");
          planar_json_writer_string (w, category);
        }
      if (in)
        {
          planar_json_writer_key (w, "flow_in");
          planar_json_writer_boolean (w, TRUE);
        }
      if (out)
        {
          planar_json_writer_key (w, "flow_out");
          planar_json_writer_boolean (w, TRUE);
        }
    }

  planar_json_writer_key (w, "args");
  planar_json_writer_begin_object (w);
  if (g_strcmp0 (name, display) != 0)
    {
      planar_json_writer_key (w, "long_name");
      planar_json_writer_string (w, name);
    }
  for (guint s = 0; s < ce->stats->len; s++)
    {
      const PlanarStat *stat = &g_array_index (ce->stats, PlanarStat, s);

      if (_planar_export_skip_stat (stat->name) || stat->kind == PLANAR_STAT_BYTES || stat->kind == PLANAR_STAT_NONE)
        continue;
      planar_json_writer_key (w, stat->name);
      write_stat_value (w, stat);
    }
  planar_json_writer_end_object (w);
  planar_json_writer_end_object (w);

  /* The event's other flows, if any, as v1 records. */
  if (first_flow != G_MAXUINT)
    {
      guint64 first_id = g_array_index (ce->flows, PlanarFlow, first_flow).id;

      for (guint f = first_flow + 1; f < ce->flows->len; f++)
        {
          const PlanarFlow *flow = &g_array_index (ce->flows, PlanarFlow, f);

          if (flow->id == first_id)
            continue;
          write_flow_record (w, pid, tid, ev->start_ps, _planar_export_flow_id (h, flow->id),
                             same_ref (&flow->from, &ref), planar_flow_category_get_name (flow->category));
        }
    }
  return TRUE;
}

/* A sample of a counter line as a Chrome counter ("C"): its numeric
 * stats are the series, named as the event is. */
static gboolean
write_counter_event (ChromeExport      *ce,
                     PlanarTrace       *trace,
                     const PlanarPlane *plane,
                     const PlanarEvent *ev,
                     int                pid,
                     GError           **error)
{
  PlanarJsonWriter *w = ce->w;

  g_array_set_size (ce->stats, 0);
  if (planar_trace_get_event_stats (trace, plane, ev, ce->stats, error) == 0 && error != NULL && *error != NULL)
    return FALSE;
  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "ph");
  planar_json_writer_string (w, "C");
  planar_json_writer_key (w, "pid");
  planar_json_writer_int (w, pid);
  planar_json_writer_key (w, "ts");
  write_us (w, ev->start_ps);
  planar_json_writer_key (w, "name");
  planar_json_writer_string (w, planar_plane_get_event_name (plane, ev, TRUE));
  planar_json_writer_key (w, "args");
  planar_json_writer_begin_object (w);
  for (guint s = 0; s < ce->stats->len; s++)
    {
      const PlanarStat *stat = &g_array_index (ce->stats, PlanarStat, s);

      if (_planar_export_skip_stat (stat->name))
        continue;
      if (stat->kind != PLANAR_STAT_INT64 && stat->kind != PLANAR_STAT_UINT64 && stat->kind != PLANAR_STAT_DOUBLE)
        continue;
      planar_json_writer_key (w, stat->name);
      write_stat_value (w, stat);
    }
  planar_json_writer_end_object (w);
  planar_json_writer_end_object (w);
  return TRUE;
}

static gboolean
write_chrome_json (ChromeExport  *ce,
                   GError       **error)
{
  PlanarJsonWriter *w = ce->w;
  guint n_traces = planar_profile_get_n_traces (ce->profile);

  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "displayTimeUnit");
  planar_json_writer_string (w, "ns");
  planar_json_writer_key (w, "metadata");
  planar_json_writer_begin_object (w);
  planar_json_writer_key (w, "highres-ticks");
  planar_json_writer_boolean (w, TRUE);
  planar_json_writer_key (w, "producer");
  planar_json_writer_string (w, "Planar");
  planar_json_writer_end_object (w);
  planar_json_writer_key (w, "traceEvents");
  planar_json_writer_begin_array (w);

  for (guint h = 0; h < n_traces; h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (ce->profile, h);

      /* A host whose decode failed is left out (planar_profile_dup_losses()). */
      for (guint p = 0; p < planar_trace_get_n_planes (trace) && planar_trace_is_decoded (trace); p++)
        {
          const PlanarPlane *plane = planar_trace_get_plane (trace, p);
          int pid = (int) (1 + h * 1000 + p);
          g_autofree char *process = NULL;

          if (!planar_export_filter_keeps_plane (ce->filter, trace, plane))
            continue;
          process = n_traces > 1 ? g_strdup_printf ("%s %s", planar_trace_get_host_name (trace), plane->name)
                                 : g_strdup (plane->name);
          write_metadata_event (w, "process_name", pid, -1, "name", process, 0);
          write_metadata_event (w, "process_sort_index", pid, -1, "sort_index", NULL, pid);
          for (guint t = 0; t < plane->n_tracks; t++)
            {
              const PlanarTrack *track = &plane->tracks[t];
              gboolean counter = planar_track_is_counter_line (track);
              int tid = (int) t + 1;

              if (!planar_export_filter_keeps_track (ce->filter, trace, plane, track))
                continue;
              /* Counters belong to the process: no thread of their own. */
              if (!counter)
                {
                  write_metadata_event (w, "thread_name", pid, tid, "name", track->display_name, 0);
                  write_metadata_event (w, "thread_sort_index", pid, tid, "sort_index", NULL, t);
                }
              for (gsize i = 0; i < track->n_events; i++)
                {
                  if (track->events[i].start_ps > ce->filter->to_ps)
                    break;
                  if (!planar_export_filter_keeps_event (ce->filter, &track->events[i]))
                    continue;
                  if (counter ? !write_counter_event (ce, trace, plane, &track->events[i], pid, error)
                              : !write_event (ce, h, trace, p, plane, t, i, pid, tid, error))
                    return FALSE;
                  if (++ce->done % CHECK_EVERY == 0)
                    {
                      if (g_cancellable_set_error_if_cancelled (ce->cancellable, error))
                        return FALSE;
                      if (ce->progress != NULL)
                        ce->progress ((double) ce->done / (double) MAX (ce->total, 1), ce->user_data);
                    }
                }
            }
        }
    }

  planar_json_writer_end_array (w);
  planar_json_writer_end_object (w);
  return planar_json_writer_finish (w, error);
}

gboolean
planar_export_to_stream (PlanarProfile        *profile,
                         PlanarExportFormat    format,
                         GOutputStream        *stream,
                         PlanarExportProgress  progress,
                         gpointer              user_data,
                         GCancellable         *cancellable,
                         GError              **error)
{
  return planar_export_to_stream_filtered (profile, format, NULL, stream, progress, user_data, cancellable, error);
}

gboolean
planar_export_to_stream_filtered (PlanarProfile            *profile,
                                  PlanarExportFormat        format,
                                  const PlanarExportFilter *filter,
                                  GOutputStream            *stream,
                                  PlanarExportProgress      progress,
                                  gpointer                  user_data,
                                  GCancellable             *cancellable,
                                  GError                  **error)
{
  static const PlanarExportFilter everything = PLANAR_EXPORT_FILTER_INIT;
  g_autoptr(PlanarJsonWriter) w = NULL;
  g_autoptr(GArray) stats = NULL;
  g_autoptr(GArray) flows = NULL;
  ChromeExport ce = { 0 };

  g_return_val_if_fail (PLANAR_IS_PROFILE (profile), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), FALSE);

  if (!planar_profile_is_loaded (profile))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("The profile has not finished loading"));
      return FALSE;
    }
  if (filter == NULL)
    filter = &everything;
  if (format == PLANAR_EXPORT_PERFETTO)
    return _planar_export_perfetto (profile, filter, stream, progress, user_data, cancellable, error);

  w = planar_json_writer_new (stream, FALSE);
  stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  flows = g_array_new (FALSE, TRUE, sizeof (PlanarFlow));
  ce.w = w;
  ce.profile = profile;
  ce.filter = filter;
  ce.progress = progress;
  ce.user_data = user_data;
  ce.cancellable = cancellable;
  ce.total = planar_export_count_filtered (profile, filter);
  ce.stats = stats;
  ce.flows = flows;
  if (!write_chrome_json (&ce, error))
    return FALSE;
  if (progress != NULL)
    progress (1.0, user_data);
  return TRUE;
}

static const char *
describe_file_type (mode_t mode)
{
  if (S_ISLNK (mode))
    return "a symbolic link";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISDIR (mode))
    return "a folder";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

gboolean
planar_export_check_target (const char  *path,
                            gboolean     overwrite,
                            GError     **error)
{
  struct stat st;

  g_return_val_if_fail (path != NULL, FALSE);

  /* lstat(): a link is judged as itself, never by what it points at. */
  if (lstat (path, &st) != 0)
    {
      int saved = errno;

      if (saved == ENOENT)
        return TRUE;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"), path,
                   g_strerror (saved));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("%s is %s: an export replaces regular files only"), path, describe_file_type (st.st_mode));
      return FALSE;
    }
  if (!overwrite)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("%s already exists"), path);
      return FALSE;
    }
  return TRUE;
}

gboolean
planar_export_to_file (PlanarProfile        *profile,
                       PlanarExportFormat    format,
                       const char           *path,
                       gboolean              overwrite,
                       PlanarExportProgress  progress,
                       gpointer              user_data,
                       GCancellable         *cancellable,
                       GError              **error)
{
  return planar_export_to_file_filtered (profile, format, NULL, path, overwrite, progress, user_data, cancellable,
                                         error);
}

gboolean
planar_export_to_file_filtered (PlanarProfile            *profile,
                                PlanarExportFormat        format,
                                const PlanarExportFilter *filter,
                                const char               *path,
                                gboolean                  overwrite,
                                PlanarExportProgress      progress,
                                gpointer                  user_data,
                                GCancellable             *cancellable,
                                GError                  **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp_name = NULL;
  g_autoptr(GFile) tmp = NULL;
  g_autoptr(GFile) target = NULL;
  g_autoptr(GFileIOStream) io = NULL;
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  g_return_val_if_fail (PLANAR_IS_PROFILE (profile), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (!planar_export_check_target (path, overwrite, error))
    return FALSE;
  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmp_name = g_strdup_printf (".%s-XXXXXX", base);
  {
    g_autofree char *template = g_build_filename (dir, tmp_name, NULL);
    int fd = g_mkstemp_full (template, O_RDWR | O_CLOEXEC, 0644);

    if (fd < 0)
      {
        int saved = errno;

        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write in %s: %s"), dir,
                     g_strerror (saved));
        return FALSE;
      }
    close (fd);
    tmp = g_file_new_for_path (template);
  }
  target = g_file_new_for_path (path);

  io = g_file_open_readwrite (tmp, cancellable, &local_error);
  if (io != NULL)
    {
      GOutputStream *raw = g_io_stream_get_output_stream (G_IO_STREAM (io));

      if (g_str_has_suffix (path, ".gz"))
        {
          g_autoptr(GZlibCompressor) gzip = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);

          out = g_converter_output_stream_new (raw, G_CONVERTER (gzip));
        }
      else
        out = G_OUTPUT_STREAM (g_buffered_output_stream_new_sized (raw, 1 << 20));
      g_filter_output_stream_set_close_base_stream (G_FILTER_OUTPUT_STREAM (out), FALSE);
    }
  ok = io != NULL
       && planar_export_to_stream_filtered (profile, format, filter, out, progress, user_data, cancellable,
                                            &local_error)
       /* Not put in place when a host file changed while it was read. */
       && planar_profile_check_files (profile, &local_error)
       && g_output_stream_close (out, cancellable, &local_error)
       && g_io_stream_close (G_IO_STREAM (io), cancellable, &local_error)
       /* Again: what is there may have changed while the export ran. */
       && planar_export_check_target (path, overwrite, &local_error)
       && g_file_move (tmp, target, overwrite ? G_FILE_COPY_OVERWRITE : G_FILE_COPY_NONE, cancellable, NULL, NULL,
                       &local_error);
  if (!ok)
    {
      if (io != NULL)
        g_io_stream_close (G_IO_STREAM (io), NULL, NULL);
      g_file_delete (tmp, NULL, NULL);
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "Cannot export to %s: ", path);
      return FALSE;
    }
  return TRUE;
}
