/* planar-derive.c: the lines and indices the model derives from the file's.
 *
 * A saved `.xplane.pb` holds what the profiler recorded; XProf computes more
 * when it loads one (docs/formats.md §4, `xprof/utils/derived_timeline.cc`):
 *
 *  - on each `/device:GPU:N` plane, per stream, the lines `XLA Modules`,
 *    `XLA Ops`, `Framework Ops`, `Framework Name Scope` and `Source code`
 *    built from the annotations on the kernels (an XLA op's framework op
 *    and source from its HLO instruction, read from `/host:metadata` by
 *    the loader before this pass: planar-hlo.h), a `Steps` line from the
 *    events' group ids, and a `Launch Stats` line from the host's launch
 *    calls;
 *  - on each `/device:TPU:N` plane, `Framework Ops`, `Framework Name Scope`
 *    and `Source code` from the ops' `tf_op` and `source` stats, and the
 *    `Host Offload Ops row N` lines pairing the starts and dones of the
 *    copies to and from the host's memory (planar-derive-offload.c);
 *  - on the `/host:CPU` plane, per thread that runs XLA:CPU programs (JAX
 *    on CPU), `<thread>-Framework Ops`, `-Framework Name Scope` and `-XLA
 *    Modules` (planar-derive-xla-cpu.c).
 *
 * This file does the same once every file track is in place, in one pass
 * over the events' stats per plane (the stats decoded lazily from the
 * mapped file, as planar_trace_get_event_stats() does for anybody), and in
 * that pass also collects the ends of flows for planar-flows.c. The passes
 * of the planes (and of the host's tracks) run in parallel; what needs the
 * host's results (step names, Launch Stats) and the flow index follow in a
 * second round. Counter series come from planar-counters.c.
 *
 * Where the lines go: each derived line is appended to its plane's lines
 * and tracks, in the room the loader reserved (PLANAR_DERIVED_TRACKS_MAX),
 * so that no array a reader holds moves. Each gets a row of its own after
 * the file's rows, in XProf's display order (per stream: the stream's
 * lines in id order; then Steps and Launch Stats), and
 * PlanarTrack.source_track names its stream so that a viewer can show it
 * right under it. GPU lines carry XProf's display_id (the 1-based position
 * in [stream, its derived lines, next stream, ...]); the file's lines keep
 * the display ids the file gave them. A plane that already has lines of a
 * kind (the TensorFlow profiler saves `TensorFlow Ops`, `TensorFlow Name
 * Scope` and `Steps`; TPU planes come with `XLA Modules`, `XLA Ops` and
 * `Steps`) gets no derived lines of that kind.
 *
 * A profile without `group_id` whose host has root events (`_r`, as JAX's
 * StepTraceAnnotation writes) has its step groups worked out from the
 * host's nesting, contexts and launches, as XProf does
 * (planar-derive-groups.c), before the other planes are read: a kernel
 * then has its launch's group, as if the file had given it (Steps, Launch
 * Stats, and lines cut at each step).
 *
 * Left out: the stacks of identical spans XProf shortens by 1 ns per
 * level (here the loader nests them by creation order instead, which is
 * as stable and keeps the times exact); the conversion of older TraceMe
 * stats to producer/consumer form XProf makes first (PreprocessXPlane),
 * which rewrites the file's stats where Planar reads them, unchanged, from
 * the mapped file; more than one `flow` stat on an event (an event's stats
 * keep the last value of a name); the CUDA graph ids XProf copies onto XLA
 * op events (the op's first kernel, which planar_trace_get_derived_source()
 * gives, carries them); aggregated events (num_occurrences), which have no
 * time to draw them at.
 * Where the HLO resolution differs from XProf's: a kernel without a
 * program id is resolved in the module its `hlo_module` names (XProf
 * resolves by program id only), and an asynchronous XLA op (`_a`) gets no
 * Framework Ops or Source code event on GPU, as on TPU (XProf draws one
 * on GPU); an HloProto XProf's own parser would refuse for reasons beyond
 * its wire form (a verifier error) is still read here.
 *
 * This file runs the passes; planar-derive-pass-private.h lists the files
 * that do each part.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include "planar-parallel.h"
#include "planar-derive-private.h"

#include <string.h>

/* Plane @p's share of the budget, in derived events. */
guint64
_planar_derive_plane_quota (const DeriveContext *dc,
                            guint                p)
{
  double share = (double) (dc->self->planes[p].n_events + 1) / (double) MAX (dc->budget_weight, 1);

  return (guint64) ((double) dc->budget * MIN (share, 1.0)) / DERIVED_EVENT_COST;
}

static guint64
host_id_of (PlanarTrace *self)
{
  const char *host = self->hostnames != NULL ? self->hostnames[0] : NULL;
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);

  /* XProf uses a 32-bit fingerprint of the first hostname, 0 without one;
   * any stable hash keeps flow ids of different hosts apart. */
  if (host == NULL)
    return 0;
  for (const char *c = host; *c != '\0'; c++)
    {
      h ^= (guchar) *c;
      h *= G_GUINT64_CONSTANT (0x100000001b3);
    }
  return (h ^ (h >> 32)) & G_MAXUINT32;
}

/* ------------------------------------------------------------------------ */
/* XProf's internal events (docs/formats.md §2.4) */

void
_planar_trace_flag_internal_events (PlanarTrace *self)
{
  /* XLA's IsInternalEvent(): memory bookkeeping and the tf.data
   * producer/consumer markers, which the trace viewer hides. */
  static const char * const internal[] = {
    "MemoryAllocation", "MemoryDeallocation",
    "PrefetchProduce", "PrefetchConsume",
    "ParallelInterleaveProduce", "ParallelInterleaveConsume", "ParallelInterleaveInitializedInput",
    "ParallelMapProduce", "ParallelMapConsume",
    "MapAndBatchProduce", "MapAndBatchConsume",
    "ParseExampleProduce", "ParseExampleConsume",
  };
  const char *interned[G_N_ELEMENTS (internal)];

  g_mutex_lock (&self->strings_lock);
  for (guint i = 0; i < G_N_ELEMENTS (internal); i++)
    interned[i] = planar_string_table_lookup (self->strings, internal[i]);
  g_mutex_unlock (&self->strings_lock);

  for (guint p = 0; p < self->n_planes; p++)
    {
      PlanarPlane *plane = &self->planes[p];

      for (guint m = 0; m < plane->n_metadata; m++)
        for (guint i = 0; i < G_N_ELEMENTS (internal); i++)
          if (interned[i] != NULL && plane->metadata[m].name == interned[i])
            plane->metadata[m].internal = TRUE;
    }
}

/* ------------------------------------------------------------------------ */
/* The two rounds */

/* The scope-range tree: `/host:__ScopeRangeCallStack__` keeps each child
 * id -> parent id as a plane stat keyed by the raw child id. */
static GHashTable *
read_scope_parents (PlanarTrace *self)
{
  const PlanarPlane *plane = planar_trace_find_plane (self, "/host:__ScopeRangeCallStack__");
  GHashTable *parents;

  if (plane == NULL || plane->n_stats == 0)
    return NULL;
  parents = g_hash_table_new_full (_planar_id_hash, _planar_id_equal, g_free, g_free);
  for (guint i = 0; i < plane->n_stats; i++)
    {
      guint64 parent;

      if (_planar_derive_stat_int (&plane->stats[i], &parent))
        g_hash_table_replace (parents, g_memdup2 (&plane->stats[i].metadata_id, sizeof (gint64)),
                              g_memdup2 (&parent, sizeof (gint64)));
    }
  return parents;
}

/* The passes run in two rounds on a few threads: first every plane's (the
 * host's track by track), then what needs the host's results (the GPUs'
 * Steps names and Launch Stats) together with the flow index. Jobs share
 * nothing they write but the string table (locked) and the count of
 * dropped lines (atomic), and their results are merged in plane and track
 * order, so the outcome does not depend on which thread ran what. */
typedef enum
{
  JOB_HOST_TRACK,
  JOB_GPU,
  JOB_TPU,
  JOB_XLA_CPU,
  JOB_FLOWS,
  JOB_GPU_FINISH,
  JOB_FLOW_INDEX,
  JOB_COUNTERS,
} JobKind;

typedef struct
{
  JobKind            kind;
  guint              p;
  /* JOB_HOST_TRACK: the track. */
  guint              t;
  guint64            n_events;
  GpuPass           *gpu;
  PlanarFlowBuilder *flows;
  /* JOB_HOST_TRACK: per GPU, group_id -> LaunchGroup; group_id ->
   * GroupRoot. */
  GHashTable       **launches;
  GHashTable        *group_roots;
  /* JOB_HOST_TRACK, when the groups are worked out: its events that link
   * them (planar-derive-groups.c). */
  GroupNodes        *group_nodes;
} Job;

typedef struct
{
  DeriveContext *shared;
  GArray        *jobs;
  gint64         host_start_ns;
  gboolean       has_host;
  /* While the step groups are worked out: 1 runs the host's tracks only,
   * 2 every job but those; 0 runs every job. */
  guint          phase;
  /* The trace's, filled by the jobs. */
  PlanarDerivedResults *results;
} JobQueue;

static void
job_clear (Job   *job,
           guint  n_gpus)
{
  g_clear_pointer (&job->gpu, _planar_gpu_pass_free);
  g_clear_pointer (&job->flows, _planar_flow_builder_free);
  _planar_derive_launch_tables_free (g_steal_pointer (&job->launches), n_gpus);
  g_clear_pointer (&job->group_roots, g_hash_table_unref);
  g_clear_pointer (&job->group_nodes, _planar_derive_group_nodes_free);
}

/* Moves the jobs' flow ends into one builder, in plane then track order. */
static PlanarFlowBuilder *
gather_flows (PlanarTrace *self,
              GArray      *jobs)
{
  PlanarFlowBuilder *flows = _planar_flow_builder_new (self->spill);

  for (guint i = 0; i < jobs->len; i++)
    {
      Job *job = &g_array_index (jobs, Job, i);

      if (job->flows != NULL)
        _planar_flow_builder_take (flows, g_steal_pointer (&job->flows));
    }
  return flows;
}

/* Adds to @self's step count (_planar_trace_get_steps()) the steps this
 * thread took since it read @since from _planar_trace_steps: the work the
 * derive's tables of the file's ids (group ids, scope ranges) made. */
static void
add_steps_since (PlanarTrace *self,
                 guint64      since)
{
  __atomic_add_fetch (&self->steps, _planar_trace_steps - since, __ATOMIC_RELAXED);
}

/* A PlanarParallelFunc: runs job @i of @data (a JobQueue). */
static gboolean
run_job (guint          i,
         gpointer       data,
         GCancellable  *cancellable,
         GError       **error)
{
  JobQueue *q = data;
  Job *job = &g_array_index (q->jobs, Job, i);
  DeriveContext dc = *q->shared;
  PlanarTrace *self = dc.self;
  guint64 steps = _planar_trace_steps;
  gboolean ok = FALSE;

  if (q->phase != 0 && (job->kind == JOB_HOST_TRACK) != (q->phase == 1))
    return TRUE;

  dc.cancellable = cancellable;
  dc.p = job->p;
  /* The flow index job of a space without planes has no plane's table. */
  dc.sources = _planar_derived_results_get_sources (q->results, job->p);
  dc.stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  dc.flows = NULL;
  if (job->kind != JOB_GPU_FINISH && job->kind != JOB_FLOW_INDEX && job->kind != JOB_XLA_CPU &&
      job->kind != JOB_COUNTERS)
    dc.flows = _planar_flow_builder_new (self->spill);
  dc.n_seen = 0;
  dc.n_read = 0;
  dc.facts_of_stat = NULL;
  dc.stat_name_lens = NULL;
  switch (job->kind)
    {
    case JOB_HOST_TRACK:
      job->launches = dc.launches = _planar_derive_launch_tables_new (dc.gpu_planes->len);
      job->group_roots = dc.group_roots = g_hash_table_new_full (_planar_id_hash, _planar_id_equal,
                                                                 g_free, g_free);
      job->group_nodes = dc.group_nodes = dc.infer_groups ? _planar_derive_group_nodes_new (self->spill) : NULL;
      ok = _planar_derive_scan_host_track (&dc, job->p, job->t, error);
      break;
    case JOB_GPU:
      ok = _planar_gpu_pass_scan (&dc, job->gpu, error);
      break;
    case JOB_TPU:
      ok = _planar_derive_tpu_plane (&dc, job->p, error);
      break;
    case JOB_XLA_CPU:
      ok = _planar_derive_xla_cpu_plane (&dc, job->p, error);
      break;
    case JOB_FLOWS:
      ok = _planar_derive_scan_flows_only (&dc, job->p, error);
      break;
    case JOB_GPU_FINISH:
      ok = _planar_gpu_pass_finish (&dc, job->gpu, q->host_start_ns, q->has_host, error);
      break;
    case JOB_FLOW_INDEX:
      /* Readers may be drawing the file's tracks: one store publishes it. */
      _planar_derived_results_set_flows (q->results,
                                         _planar_flow_builder_finish (g_steal_pointer (&job->flows), self, dc.host_id));
      ok = TRUE;
      break;
    case JOB_COUNTERS:
      {
        PlanarCounterSet *counters = _planar_counter_set_build (self, cancellable, error);

        if (counters != NULL)
          _planar_derived_results_set_counters (q->results, counters);
        ok = counters != NULL;
      }
      break;
    default:
      g_assert_not_reached ();
    }
  g_array_unref (dc.stats);
  _planar_derive_clear_facts (&dc);
  _planar_derive_drop_read_pages (&dc);
  if (dc.flows != NULL)
    {
      /* In parallel here, so that the index is built without sorting them. */
      _planar_flow_builder_sort_launches (dc.flows);
      job->flows = dc.flows;
    }
  add_steps_since (self, steps);
  return ok;
}

static int
compare_jobs_by_size (gconstpointer a,
                      gconstpointer b,
                      gpointer      user_data)
{
  GArray *jobs = user_data;
  const Job *x = &g_array_index (jobs, Job, *(const guint *) a);
  const Job *y = &g_array_index (jobs, Job, *(const guint *) b);

  if (x->n_events != y->n_events)
    return x->n_events > y->n_events ? -1 : 1;
  return *(const guint *) a < *(const guint *) b ? -1 : *(const guint *) a > *(const guint *) b;
}

/* Runs @jobs in the model's worker pool, the biggest first, and returns
 * the first error in job order (the same whatever the threads did). */
static gboolean
run_jobs (JobQueue  *q,
          GArray    *jobs,
          GError   **error)
{
  g_autofree guint *order = g_new (guint, MAX (jobs->len, 1));

  q->jobs = jobs;
  for (guint i = 0; i < jobs->len; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) jobs->len, sizeof (guint), compare_jobs_by_size, jobs);
  return planar_parallel_run (jobs->len, order, run_job, q, q->shared->cancellable, error);
}

gboolean
_planar_trace_derive (PlanarTrace   *self,
                      GCancellable  *cancellable,
                      GError       **error)
{
  DeriveContext dc;
  g_autoptr(GArray) scans = g_array_new (FALSE, TRUE, sizeof (Job));
  g_autoptr(GArray) finishes = g_array_new (FALSE, TRUE, sizeof (Job));
  JobQueue queue;
  GroupNodes *group_nodes = NULL;
  gboolean ok = FALSE;
  guint64 steps;
  guint n_gpus;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);

  planar_spill_debug_memory ("the derive's start (the open, decode and HLO before it)");
  memset (&dc, 0, sizeof dc);
  memset (&queue, 0, sizeof queue);
  queue.results = _planar_derive_attach (self);
  _planar_derived_results_set_n_planes (queue.results, self->n_planes);
  dc.self = self;
  dc.cancellable = cancellable;
  dc.host_id = host_id_of (self);
  dc.gpu_planes = g_array_new (FALSE, FALSE, sizeof (guint));
  dc.group_roots = g_hash_table_new_full (_planar_id_hash, _planar_id_equal, g_free, g_free);
  steps = _planar_trace_steps;
  dc.scope_parents = read_scope_parents (self);
  add_steps_since (self, steps);
  /* Derived events may take as much as the loader allows the index (a fixed
   * allowance and six times the file), on top of it, unless the loader
   * set less (its derive-budget property). */
  dc.budget = self->derive_budget >= 0 ? self->derive_budget
                                    : (gint64) 64 * 1024 * 1024 +
                                      (gint64) MIN (self->size, G_MAXINT64 / 8) * 6;
  _planar_derive_lookup_stat_names (self, &dc.names);
  for (guint p = 0; p < self->n_planes; p++)
    if (g_str_has_prefix (self->planes[p].name, "/device:GPU:") ||
        _planar_derive_is_tensor_core_plane (self->planes[p].name) ||
        _planar_derive_xla_cpu_wanted (&dc, p))
      dc.budget_weight += self->planes[p].n_events + 1;
  for (guint p = 0; p < self->n_planes; p++)
    if (g_str_has_prefix (self->planes[p].name, "/device:GPU:"))
      g_array_append_val (dc.gpu_planes, p);
  n_gpus = dc.gpu_planes->len;
  dc.launches = _planar_derive_launch_tables_new (n_gpus);
  dc.infer_groups = n_gpus > 0 && _planar_derive_groups_wanted (self, &dc.names);
  if (dc.infer_groups)
    group_nodes = _planar_derive_group_nodes_new (self->spill);
  queue.shared = &dc;

  /* Round one, in plane order. XProf reads the one plane named exactly
   * /host:CPU for launches. */
  for (guint p = 0; p < self->n_planes; p++)
    {
      const PlanarPlane *plane = &self->planes[p];
      Job job = { 0 };

      job.p = p;
      job.n_events = plane->n_events;
      /* The XLA:CPU lines of the host's threads: one job for the plane,
       * beside the host's others. */
      if (_planar_derive_xla_cpu_wanted (&dc, p))
        {
          Job xla = job;

          xla.kind = JOB_XLA_CPU;
          _planar_derived_results_set_sources (queue.results, p, _planar_derive_sources_new (self));
          g_array_append_val (scans, xla);
        }
      if (strcmp (plane->name, "/host:CPU") == 0)
        {
          if (!queue.has_host)
            queue.host_start_ns = _planar_derive_plane_start_ns (plane, plane->n_lines);
          queue.has_host = TRUE;
          if (!_planar_derive_host_plane_wanted (&dc, p))
            continue;
          job.kind = JOB_HOST_TRACK;
          for (guint t = 0; t < plane->n_tracks; t++)
            {
              /* Derived lines (XProf's) carry copies, not launches. */
              if (plane->tracks[t].derived || planar_line_id_is_derived (plane->tracks[t].id))
                continue;
              job.t = t;
              job.n_events = plane->tracks[t].n_events;
              g_array_append_val (scans, job);
            }
          continue;
        }
      if (g_str_has_prefix (plane->name, "/device:GPU:"))
        {
          guint device = 0;

          while (g_array_index (dc.gpu_planes, guint, device) != p)
            device++;
          _planar_derived_results_set_sources (queue.results, p, _planar_derive_sources_new (self));
          dc.sources = _planar_derived_results_get_sources (queue.results, p);
          job.kind = JOB_GPU;
          job.gpu = _planar_gpu_pass_new (&dc, p, device);
        }
      else if (_planar_derive_is_tensor_core_plane (plane->name))
        {
          _planar_derived_results_set_sources (queue.results, p, _planar_derive_sources_new (self));
          job.kind = JOB_TPU;
        }
      else if (_planar_derive_plane_wants_flows (&dc, p))
        job.kind = JOB_FLOWS;
      else
        continue;
      g_array_append_val (scans, job);
    }
  dc.sources = NULL;
  /* Without group ids, the host's tracks first: the groups their root
   * events make are the GPUs' kernels' (planar-derive-groups.c). */
  if (group_nodes != NULL)
    {
      queue.phase = 1;
      if (!run_jobs (&queue, scans, error))
        goto out;
      steps = _planar_trace_steps;
      for (guint i = 0; i < scans->len; i++)
        {
          Job *job = &g_array_index (scans, Job, i);

          if (job->kind == JOB_HOST_TRACK)
            _planar_derive_group_nodes_merge (group_nodes, job->group_nodes);
        }
      planar_spill_debug_memory ("the host's pass (step groups to work out)");
      _planar_derive_groups_assign (&dc, group_nodes);
      g_clear_pointer (&group_nodes, _planar_derive_group_nodes_free);
      add_steps_since (self, steps);
      planar_spill_debug_memory ("the step groups");
      queue.phase = 2;
    }
  ok = run_jobs (&queue, scans, error);
  queue.phase = 0;
  /* The GPUs' passes have found their kernels' groups: the table of the
   * grouped launches (16 bytes each, 61 MB at 10^7 events) is not kept
   * through the flow index, the load's peak. */
  g_clear_pointer (&dc.launch_groups, planar_spill_array_free);
  if (!ok)
    goto out;
  ok = FALSE;
  planar_spill_debug_memory ("the derive's first round (the planes' passes)");

  /* The host's figures, in track order. */
  steps = _planar_trace_steps;
  for (guint i = 0; i < scans->len; i++)
    {
      Job *job = &g_array_index (scans, Job, i);

      if (job->kind != JOB_HOST_TRACK)
        continue;
      _planar_derive_merge_launches (dc.launches, job->launches, n_gpus);
      _planar_derive_merge_group_roots (dc.group_roots, job->group_roots);
    }
  add_steps_since (self, steps);

  /* Round two: the flow index, with the counters beside it (they read
   * only the file's counter lines, and would otherwise run alone after
   * it), then the GPUs' last lines. Those follow the index: its pairing is
   * the load's peak of memory (the launch ends beside the flows made from
   * them), which the GPUs' lines published beside it (the indices over 3.6
   * million derived events at 10^7 events, about 45 MB) would raise past
   * 2.5 times the file. With the index in files they would not, but beside
   * the index they made the load at 10^8 events no faster and its peak
   * 480 MB higher (docs/loader.md, "Memory of a full load"). */
  _planar_trace_report_progress (self, PLANAR_LOAD_PHASE_LINKING_FLOWS, FALSE);
  {
    g_autoptr(GArray) index_jobs = g_array_new (FALSE, TRUE, sizeof (Job));
    Job index_job = { 0 };
    Job counters_job = { 0 };

    index_job.kind = JOB_FLOW_INDEX;
    index_job.flows = gather_flows (self, scans);
    index_job.n_events = G_MAXUINT64;
    g_array_append_val (index_jobs, index_job);
    counters_job.kind = JOB_COUNTERS;
    g_array_append_val (index_jobs, counters_job);
    for (guint i = 0; i < scans->len; i++)
      {
        Job *job = &g_array_index (scans, Job, i);

        if (job->kind == JOB_GPU)
          {
            Job finish = *job;

            finish.kind = JOB_GPU_FINISH;
            finish.flows = NULL;
            job->gpu = NULL;
            g_array_append_val (finishes, finish);
          }
      }
    ok = run_jobs (&queue, index_jobs, error);
    for (guint i = 0; i < index_jobs->len; i++)
      job_clear (&g_array_index (index_jobs, Job, i), n_gpus);
    if (!ok)
      goto out;
    ok = FALSE;
  }
  if (!run_jobs (&queue, finishes, error))
    goto out;
  ok = TRUE;
  planar_spill_debug_memory ("the derive's second round (the flow index, the counters, the GPUs' last lines)");

out:
  for (guint i = 0; i < scans->len; i++)
    job_clear (&g_array_index (scans, Job, i), n_gpus);
  for (guint i = 0; i < finishes->len; i++)
    job_clear (&g_array_index (finishes, Job, i), n_gpus);
  _planar_derive_launch_tables_free (dc.launches, n_gpus);
  g_clear_pointer (&dc.launch_groups, planar_spill_array_free);
  _planar_derive_group_nodes_free (group_nodes);
  g_array_unref (dc.gpu_planes);
  g_hash_table_unref (dc.group_roots);
  g_clear_pointer (&dc.scope_parents, g_hash_table_unref);
  return ok;
}
