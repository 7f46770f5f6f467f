/* planar-derive-xla-cpu.c: the lines XProf derives for XLA:CPU programs
 * (JAX on CPU) on the threads of a `/host:CPU` plane
 * (`DeriveLinesForXlaCpuOps` in `xprof/utils/derived_timeline.cc`).
 *
 * On the host, XLA:CPU runs a program's ops as events of the thread that
 * runs it, each carrying the program's name in an `hlo_module` stat and
 * the framework op in `tf_op`. Per thread (the plane's line k, in file
 * order), XProf draws three lines with the ids PLANAR_LINE_ID_HOST_XLA_MIN
 * + 3k onwards: "<thread>-Framework Ops" and "<thread>-Framework Name
 * Scope" from the events' `tf_op` (as a device's Framework lines), and
 * "<thread>-XLA Modules" from `hlo_module`, one event per run of the same
 * module. XProf reads these two stats from the event itself, not its
 * metadata, and has no step groups here: events merge as on TPU planes
 * without group_id, only across gaps of at most twice the open event's
 * duration. Lines that would be empty are not drawn.
 *
 * One difference: on a GPU profile the host's calls into the GPU runtime
 * (hipModuleLaunchKernel, cuLaunchKernel, memsets) carry the `hlo_module`
 * and `tf_op` of the kernels they launch, and XProf's rule would draw them
 * as XLA:CPU programs. They are not: an event with a `correlation_id` (the
 * tie of a runtime call to its device activity) is left out here, so that
 * JAX on GPU keeps its host threads as they are.
 *
 * XProf's open source trace viewer defines this derivation without calling
 * it today; a file XProf (or the profiler) already derived it for keeps
 * its lines and gets no second copy.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include <string.h>

gboolean
_planar_derive_xla_cpu_wanted (DeriveContext *dc,
                               guint          p)
{
  const PlanarPlane *plane = &dc->self->planes[p];
  NativeLines native;

  if (!g_str_has_prefix (plane->name, "/host:CPU") ||
      !_planar_derive_plane_has_stat (dc->self, p, dc->names.hlo_module))
    return FALSE;
  _planar_derive_find_native_lines (plane, plane->n_tracks, &native);
  return !native.host_xla;
}

/* The text of a string or reference stat of the event itself. */
static gboolean
own_text (const PlanarStat *stat,
          Text             *text)
{
  if (stat->from_metadata || (stat->kind != PLANAR_STAT_STRING && stat->kind != PLANAR_STAT_REF))
    return FALSE;
  text->data = stat->str.data;
  text->len = stat->str.len;
  return TRUE;
}

typedef struct
{
  LineBuilder framework_ops;
  LineBuilder name_scope;
  LineBuilder modules;
} ThreadLines;

static void
thread_lines_init (ThreadLines *tl,
                   PlanarTrace *self,
                   const char  *thread,
                   guint        t,
                   guint        line)
{
  gint64 base = PLANAR_LINE_ID_HOST_XLA_MIN + (gint64) line * PLANAR_HOST_XLA_LINES_PER_THREAD;
  g_autofree char *ops = g_strconcat (thread, "-Framework Ops", NULL);
  g_autofree char *scopes = g_strconcat (thread, "-Framework Name Scope", NULL);
  g_autofree char *modules = g_strconcat (thread, "-XLA Modules", NULL);

  _planar_line_builder_init (&tl->framework_ops, self, base + PLANAR_HOST_XLA_OFFSET_FRAMEWORK_OPS,
                             _planar_derive_intern (self, ops), t, TRUE);
  _planar_line_builder_init (&tl->name_scope, self, base + PLANAR_HOST_XLA_OFFSET_FRAMEWORK_NAME_SCOPE,
                             _planar_derive_intern (self, scopes), t, TRUE);
  _planar_line_builder_init (&tl->modules, self, base + PLANAR_HOST_XLA_OFFSET_XLA_MODULES,
                             _planar_derive_intern (self, modules), t, TRUE);
  _planar_line_builder_add_dependent (&tl->name_scope, &tl->framework_ops);
}

static void
thread_lines_free (gpointer data)
{
  ThreadLines *tl = data;

  _planar_line_builder_clear (&tl->framework_ops);
  _planar_line_builder_clear (&tl->name_scope);
  _planar_line_builder_clear (&tl->modules);
  g_free (tl);
}

/* Reads track @t of the plane into @tl. */
static gboolean
scan_thread (DeriveContext  *dc,
             PlaneContext   *ctx,
             guint           t,
             ThreadLines    *tl,
             GError        **error)
{
  static const Group no_group = { FALSE, 0 };
  static const Scope no_scope = { FALSE, 0 };
  const PlanarTrack *track = &ctx->plane->tracks[t];

  for (gsize i = 0; i < track->n_events; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      PlanarEventRef ref = { ctx->p, 0, t, (guint32) i };
      gint64 end_ps = ev->start_ps + ev->duration_ps;
      Text module = { NULL, 0 }, tf_op = { NULL, 0 }, text;
      gboolean launch = FALSE;
      gboolean created;
      guint32 md;

      if (_planar_derive_check_cancelled (dc, error))
        return FALSE;
      g_array_set_size (dc->stats, 0);
      if (planar_trace_get_event_stats (dc->self, ctx->plane, ev, dc->stats, NULL) == 0)
        continue;
      for (guint s = 0; s < dc->stats->len; s++)
        {
          const PlanarStat *stat = &g_array_index (dc->stats, PlanarStat, s);

          if (stat->name == dc->names.hlo_module && own_text (stat, &text))
            module = text;
          else if (stat->name == dc->names.tf_op && own_text (stat, &text))
            tf_op = text;
          else if (stat->name == dc->names.correlation_id)
            launch = TRUE;
        }
      if (module.len == 0 || launch)
        continue;

      md = _planar_plane_context_find_metadata (ctx, KIND_MODULE, module.data, module.len, &created);
      _planar_line_builder_expand_or_add (ctx, &tl->modules, 0, md, ev->start_ps, end_ps, no_group, no_scope,
                                          &ref);
      if (tf_op.len > 0)
        _planar_derive_add_framework_op (ctx, &tl->name_scope, &tl->framework_ops, tf_op, ev->start_ps,
                                         end_ps, no_group, &ref);
    }
  return TRUE;
}

gboolean
_planar_derive_xla_cpu_plane (DeriveContext  *dc,
                              guint           p,
                              GError        **error)
{
  PlanarTrace *self = dc->self;
  PlanarPlane *plane = &self->planes[p];
  guint n_file_tracks = plane->n_tracks;
  g_autoptr(GPtrArray) threads = g_ptr_array_new_with_free_func (thread_lines_free);
  g_autoptr(GPtrArray) builders = g_ptr_array_new ();
  g_autoptr(GArray) timestamps = g_array_new (FALSE, FALSE, sizeof (gint64));
  PlaneContext ctx;
  gboolean ok = FALSE;

  _planar_plane_context_init (&ctx, self, p, dc->sources, _planar_derive_plane_quota (dc, p));
  for (guint t = 0; t < n_file_tracks; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];
      ThreadLines *tl;
      gint64 timestamp_ns = 0;
      guint line = t;

      if (track->n_events == 0)
        continue;
      /* The thread's first line: its position numbers the ids, and the
       * derived lines start where it does. */
      for (guint l = 0; l < plane->n_lines; l++)
        if (!plane->lines[l].derived && plane->lines[l].track == t)
          {
            timestamp_ns = plane->lines[l].timestamp_ns;
            line = l;
            break;
          }
      tl = g_new0 (ThreadLines, 1);
      g_ptr_array_add (threads, tl);
      thread_lines_init (tl, self, track->name, t, line);
      if (!scan_thread (dc, &ctx, t, tl, error))
        goto out;
      g_ptr_array_add (builders, &tl->framework_ops);
      g_ptr_array_add (builders, &tl->name_scope);
      g_ptr_array_add (builders, &tl->modules);
      for (guint k = 0; k < PLANAR_HOST_XLA_LINES_PER_THREAD; k++)
        g_array_append_val (timestamps, timestamp_ns);
    }
  ok = _planar_derive_publish_lines (dc, &ctx, (LineBuilder **) builders->pdata, builders->len,
                                     (gint64 *) (gpointer) timestamps->data, error);

out:
  _planar_plane_context_clear (&ctx);
  return ok;
}
