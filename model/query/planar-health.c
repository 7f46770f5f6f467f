/* planar-health.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-health.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "planar-flows.h"
#include "planar-hlo.h"

void
planar_health_issue_free (PlanarHealthIssue *issue)
{
  if (issue == NULL)
    return;
  g_free (issue->host);
  g_free (issue->plane);
  g_free (issue->line);
  g_free (issue->message);
  g_free (issue);
}

const char *
planar_health_severity_to_string (PlanarHealthSeverity severity)
{
  switch (severity)
    {
    case PLANAR_HEALTH_ERROR:
      return "error";
    case PLANAR_HEALTH_WARNING:
      return "warning";
    case PLANAR_HEALTH_INFO:
    default:
      return "info";
    }
}

static void G_GNUC_PRINTF (8, 9)
add (GPtrArray            *issues,
     PlanarHealthSeverity  severity,
     const char           *kind,
     const char           *host,
     const char           *plane,
     const char           *line,
     guint64               count,
     const char           *format,
     ...)
{
  PlanarHealthIssue *issue = g_new0 (PlanarHealthIssue, 1);
  va_list args;

  issue->severity = severity;
  issue->kind = kind;
  issue->host = g_strdup (host);
  issue->plane = g_strdup (plane);
  issue->line = g_strdup (line);
  issue->count = count;
  va_start (args, format);
  issue->message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (issues, issue);
}

/* Planes that hold metadata rather than events; empty is their normal. */
static gboolean
is_metadata_plane (const char *name)
{
  /* The scope range plane (JAX 0.11) holds only plane stats: each scope
   * range's parent. */
  return strcmp (name, "Task Environment") == 0 || strcmp (name, "/host:metadata") == 0 ||
         strcmp (name, "/host:__ScopeRangeCallStack__") == 0;
}

static gboolean
mentions_drops (const char *text)
{
  g_autofree char *lower = g_ascii_strdown (text, -1);

  return strstr (lower, "drop") != NULL;
}

static void
check_messages (GPtrArray           *issues,
                const char          *host,
                const char * const  *messages,
                PlanarHealthSeverity severity)
{
  for (guint i = 0; messages != NULL && messages[i] != NULL; i++)
    {
      if (mentions_drops (messages[i]))
        add (issues, MAX (severity, PLANAR_HEALTH_WARNING), "dropped-events", host, NULL, NULL, 0,
             _("The profiler reported dropped events: %s"), messages[i]);
      else if (severity == PLANAR_HEALTH_ERROR)
        add (issues, severity, "xspace-error", host, NULL, NULL, 0,
             _("The profiler reported an error: %s"), messages[i]);
      else
        add (issues, severity, "xspace-warning", host, NULL, NULL, 0,
             _("The profiler reported a warning: %s"), messages[i]);
    }
}

static gboolean
stat_as_count (const PlanarStat *stat,
               guint64          *count)
{
  switch (stat->kind)
    {
    case PLANAR_STAT_INT64:
      *count = stat->v.i64 > 0 ? (guint64) stat->v.i64 : 0;
      return TRUE;
    case PLANAR_STAT_UINT64:
      *count = stat->v.u64;
      return TRUE;
    case PLANAR_STAT_DOUBLE:
      *count = stat->v.f64 > 0 ? (guint64) stat->v.f64 : 0;
      return TRUE;
    default:
      return FALSE;
    }
}

static void
check_plane (GPtrArray         *issues,
             const char        *host,
             const PlanarPlane *plane)
{
  for (guint s = 0; s < plane->n_stats; s++)
    {
      guint64 count = 0;

      if (g_strcmp0 (plane->stats[s].name, "dropped_traces") == 0 && stat_as_count (&plane->stats[s], &count)
          && count > 0)
        add (issues, PLANAR_HEALTH_WARNING, "dropped-events", host, plane->name, NULL, count,
             g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " event was dropped by the profiler on this plane",
                          "%" PRIu64 " events were dropped by the profiler on this plane", count), count);
    }

  if (plane->n_events == 0 && !is_metadata_plane (plane->name))
    add (issues, PLANAR_HEALTH_INFO, "empty-plane", host, plane->name, NULL, 0,
         plane->n_lines == 0 ? _("The plane has no lines") : _("The plane's lines hold no events"));

  for (guint t = 0; t < plane->n_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      /* A derived track repeats its source's overlaps. */
      if (track->n_overlaps > 0 && !track->derived && g_str_has_prefix (plane->name, "/device:GPU:"))
        {
          /* On a GPU stream a kernel may start while the one it depends
           * on finishes (programmatic dependent launch on Hopper and
           * later): real JAX profiles on an H100 show this on most steps,
           * so it is how a sound profile looks, not a fault. */
          add (issues, PLANAR_HEALTH_INFO, "stream-overlaps", host, plane->name, track->name,
               track->n_overlaps,
               g_dngettext (GETTEXT_PACKAGE,
                            "%" PRIu64 " event starts before the one before it on this stream has ended "
                            "(a GPU may start a kernel while the one it depends on finishes); "
                            "it is drawn beside it rather than nested",
                            "%" PRIu64 " events start before the one before them on this stream has ended "
                            "(a GPU may start a kernel while the one it depends on finishes); "
                            "they are drawn beside it rather than nested", track->n_overlaps),
               track->n_overlaps);
        }
      else if (track->n_overlaps > 0 && !track->derived)
        {
          /* A note too: real JAX host threads have them on every step (a
           * Python function that returns after the annotation it opened
           * began); nothing is lost, only drawn beside. */
          add (issues, PLANAR_HEALTH_INFO, "partial-overlaps", host, plane->name, track->name,
               track->n_overlaps,
               g_dngettext (GETTEXT_PACKAGE,
                            "%" PRIu64 " event starts inside another event and ends after it; "
                            "it is drawn beside it rather than nested",
                            "%" PRIu64 " events start inside another event and end after it; "
                            "they are drawn beside it rather than nested", track->n_overlaps),
               track->n_overlaps);
        }
      if (track->n_aggregated > 0)
        add (issues, PLANAR_HEALTH_INFO, "aggregated-events", host, plane->name, track->name,
             track->n_aggregated,
             g_dngettext (GETTEXT_PACKAGE,
                          "%zu aggregated event (with a number of occurrences and no time) is not drawn",
                          "%zu aggregated events (with a number of occurrences and no time) are not drawn",
                          track->n_aggregated),
             track->n_aggregated);
    }
}

GPtrArray *
planar_health_check (PlanarProfile              *profile,
                     const PlanarCatalogSession *session)
{
  GPtrArray *issues = g_ptr_array_new_with_free_func ((GDestroyNotify) planar_health_issue_free);
  GPtrArray *sorted;

  g_return_val_if_fail (PLANAR_IS_PROFILE (profile), issues);

  /* Hosts the load left out, and how the others share the time axis. */
  for (guint i = 0; i < planar_profile_get_n_skipped_hosts (profile); i++)
    {
      const GError *error = NULL;
      const char *path = planar_profile_get_skipped_host (profile, i, &error);
      g_autofree char *name = g_path_get_basename (path);

      /* Named as the other findings name hosts: the file less its suffix. */
      if (g_str_has_suffix (name, ".xplane.pb") && strlen (name) > strlen (".xplane.pb"))
        name[strlen (name) - strlen (".xplane.pb")] = '\0';
      add (issues, PLANAR_HEALTH_WARNING, "unreadable-host", name, NULL, NULL, 0,
           _("%s could not be read and is left out; the other hosts are shown: %s"), path, error->message);
    }
  if (planar_profile_get_host_alignment (profile) == PLANAR_HOST_ALIGNMENT_OWN_START)
    add (issues, PLANAR_HEALTH_INFO, "hosts-not-overlapping", NULL, NULL, NULL, 0,
         _("The hosts do not overlap in time; each is shown from its own start, so times of different "
           "hosts cannot be compared"));

  for (guint h = 0; h < planar_profile_get_n_traces (profile); h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);
      const char *host = planar_trace_get_host_name (trace);
      const PlanarFlowIndex *flows = planar_trace_get_flows (trace);
      guint dropped_lines = planar_trace_get_n_dropped_derived_lines (trace);
      const char *detail = NULL;
      const char *damage = planar_trace_get_damage (trace, &detail);

      /* A host that opened but could not be decoded: said, and its
       * tracks (not whole) are not looked at. */
      if (planar_profile_get_trace_error (profile, h) != NULL)
        add (issues, PLANAR_HEALTH_WARNING, "undecodable-host", host, NULL, NULL, 0,
             _("%s could not be decoded and is left out; the other hosts are shown: %s"),
             planar_trace_get_file_name (trace), planar_profile_get_trace_error (profile, h)->message);
      if (!planar_trace_is_decoded (trace))
        continue;
      if (damage != NULL)
        add (issues, PLANAR_HEALTH_WARNING, "file-cut-short", host, NULL, NULL, 0,
             "%s: %c%s (%s)", planar_trace_get_file_name (trace), g_ascii_toupper (damage[0]), damage + 1, detail);

      check_messages (issues, host, planar_trace_get_errors (trace), PLANAR_HEALTH_ERROR);
      check_messages (issues, host, planar_trace_get_warnings (trace), PLANAR_HEALTH_WARNING);

      if (planar_trace_is_aligned_at_earliest_event (trace))
        add (issues, PLANAR_HEALTH_WARNING, "no-task-environment", host, NULL, NULL, 0,
             _("The file has no Task Environment start time: its time 0 is its earliest event, "
               "so it cannot be aligned exactly with other hosts"));

      for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
        check_plane (issues, host, planar_trace_get_plane (trace, p));

      if (flows != NULL)
        {
          gsize dangling = planar_flow_index_get_n_dangling (flows, PLANAR_FLOW_CATEGORY_ALL);

          if (dangling > 0)
            add (issues, PLANAR_HEALTH_INFO, "dangling-flows", host, NULL, NULL, dangling,
                 g_dngettext (GETTEXT_PACKAGE,
                              "%zu of %zu flows has one end only (the other outside the captured "
                              "time or on another host, or a call that started no GPU work)",
                              "%zu of %zu flows have one end only (the other outside the captured "
                              "time or on another host, or calls that started no GPU work)",
                              dangling),
                 dangling, planar_flow_index_get_n_flows (flows));
        }
      if (dropped_lines > 0)
        add (issues, PLANAR_HEALTH_WARNING, "dropped-derived-lines", host, NULL, NULL, dropped_lines,
             g_dngettext (GETTEXT_PACKAGE, "%u derived line (XLA Ops, Steps, ...) was left out for lack of room",
                          "%u derived lines (XLA Ops, Steps, ...) were left out for lack of room", dropped_lines),
             dropped_lines);

      /* What the reads so far met; planar-cli health counts them all first. */
      {
        g_autofree char *first = NULL;
        guint64 damaged = planar_trace_get_n_damaged_stats (trace, &first);

        if (damaged > 0)
          add (issues, PLANAR_HEALTH_WARNING, "damaged-stats", host, NULL, NULL, damaged,
               g_dngettext (GETTEXT_PACKAGE,
                            "%" PRIu64 " damaged event stat cannot be read and is left out (the first: %s)",
                            "%" PRIu64 " damaged event stats cannot be read and are left out (the first: %s)",
                            damaged),
               damaged, first);
      }

      /* HloProtos that could not be read: their programs' kernels get no
       * framework op, source or stack from the HLO. */
      for (const char * const *e = planar_trace_get_hlo_errors (trace); *e != NULL; e++)
        add (issues, PLANAR_HEALTH_WARNING, "damaged-hlo", host, "/host:metadata", NULL, 0,
             _("A compiled program's HLO cannot be read and is left out (%s)"), *e);
    }

  if (session != NULL)
    for (guint i = 0; i < session->hosts->len; i++)
      {
        const PlanarCatalogHost *file = g_ptr_array_index (session->hosts, i);

        if (!file->supported)
          add (issues, PLANAR_HEALTH_WARNING, "unsupported-file", file->name, NULL, NULL, 0,
               _("%s is in a format Planar cannot read yet and is not shown"), file->path);
      }

  /* A stable sort: errors, then warnings, then notes, each in the order
   * found. */
  sorted = g_ptr_array_new_with_free_func ((GDestroyNotify) planar_health_issue_free);
  for (int severity = PLANAR_HEALTH_ERROR; severity >= PLANAR_HEALTH_INFO; severity--)
    for (guint i = 0; i < issues->len; i++)
      {
        PlanarHealthIssue *issue = g_ptr_array_index (issues, i);

        if ((int) issue->severity == severity)
          g_ptr_array_add (sorted, issue);
      }
  g_ptr_array_set_free_func (issues, NULL);
  g_ptr_array_unref (issues);
  return sorted;
}
