/* planar-derive-pass-private.h: what the files of the derive pass share.
 *
 * The pass (see planar-derive.c for what it computes and in which order)
 * is split by what each part reads:
 *
 *  planar-derive-facts.c      the stats of an event that matter (EventFacts),
 *                             flow ends, visiting a plane in time order,
 *                             planes read for flows only
 *  planar-op-name.c           framework op names (a pure parser)
 *  planar-derive-builder.c    a plane's new metadata and a derived line
 *                             being built (XProf's DerivedXLineBuilder)
 *  planar-derive-framework.c  the Framework Name Scope / Ops lines of an op
 *  planar-derive-publish.c    what lines a plane has, and publishing new ones
 *  planar-derive-host.c       the host plane: launches, step group names
 *  planar-derive-groups.c     step groups of a file without group ids
 *  planar-derive-gpu.c        GPU planes
 *  planar-derive-tpu.c        TPU planes
 *  planar-derive-offload.c    TPU planes' Host Offload rows
 *  planar-derive-xla-cpu.c    the host's XLA:CPU lines
 *  planar-derive.c            the two rounds of jobs (orchestration)
 *  planar-derive-sources.c    the table of derived sources: queries, cache
 *  planar-derived-results.c   their owner on the trace (PlanarDerivedResults)
 *  planar-derive-predict.c    which lines a plane will get, before the pass
 *
 * Only those files include this header; the rest of the model sees
 * planar-derive-private.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-trace-private.h"
#include "planar-hlo.h"

#include "planar-counters-private.h"
#include "planar-derive-private.h"
#include "planar-flows-private.h"

G_BEGIN_DECLS

/* How often the passes look at the cancellable. */
#define CHECK_EVERY 4096

/* What a derived event costs: the event, its entry in the table of
 * sources (16 bytes, and at most 8 more for a group id of its own), and a
 * share of the indices the loader builds over the track. */
#define DERIVED_EVENT_COST (sizeof (PlanarEvent) + 24 + 8)

/* Nesting levels kept per derived line: an `hlo_op` or a name scope with
 * more parts than this is cut (a real one has a handful; a damaged one
 * could otherwise make every kernel cost as much as its text). */
#define MAX_LEVELS 128

/* What PlanarEvent.source of a derived event points at: entry
 * (source & SOURCE_INDEX_MASK) of the table of plane (source >> 40), each
 * plane having its own so that planes derive in parallel. The file event
 * it comes from (plane, track, index: a PlanarEventRef without its host),
 * and its group id as an index into the table's distinct group ids
 * (NO_GROUP: none): 16 bytes, where the reference and the group id
 * themselves took 24 (37 MB of a 10^7-event profile's memory). */
typedef struct
{
  guint16 plane;
  guint16 reserved;
  guint32 track;
  guint32 index;
  guint32 group;
} DerivedSource;

G_STATIC_ASSERT (sizeof (DerivedSource) == 16);

#define NO_GROUP G_MAXUINT32

/* A plane's table of sources: a PlanarSpillArray of DerivedSource (its
 * first member, so that the table is used as one) and the distinct group
 * ids its entries name. */
typedef struct
{
  PlanarSpillArray entries;
  /* gint64, each once. */
  GArray          *groups;
  /* While the table grows: an open-addressing set of (index in @groups
   * + 1), capacity a power of two, at most half full. */
  guint32         *group_slots;
  gsize            n_group_slots;
} DerivedSources;

/* The index in @sources' group ids of @group_id, added if new. */
guint32 _planar_derive_sources_intern_group (PlanarSpillArray *sources,
                                             gint64            group_id);

#define SOURCE_PLANE_SHIFT 40
#define SOURCE_INDEX_MASK  ((G_GUINT64_CONSTANT (1) << SOURCE_PLANE_SHIFT) - 1)

/* The interned stat names the passes compare against (by address); NULL
 * when the trace has no such name at all. */
typedef struct
{
  const char *kernel_details;
  const char *cuda_graph_exec_id;
  const char *hlo_op;
  const char *hlo_module;
  const char *program_id;
  const char *tf_op;
  const char *group_id;
  const char *scope_range_id;
  const char *correlation_id;
  const char *device_id;
  const char *flow;
  const char *producer_type;
  const char *producer_id;
  const char *consumer_type;
  const char *consumer_id;
  const char *is_root;
  const char *is_async;
  const char *source;
  const char *graph_type;
  const char *iter_num;
  const char *step_num;
} StatNames;

typedef struct
{
  const char *data;
  gsize       len;
} Text;

typedef struct
{
  gboolean kernel;
  gboolean graph_exec;
  gboolean is_root;
  /* The `_r` stat's value (XProf's root level); 0 without one. */
  gint64   root_level;
  gboolean is_async;
  Text     hlo_op;
  Text     hlo_module;
  Text     tf_op;
  Text     source;
  Text     graph_type;
  gboolean has_program_id;
  guint64  program_id;
  gboolean has_group_id;
  gint64   group_id;
  gboolean has_scope_range_id;
  gint64   scope_range_id;
  gboolean has_correlation_id;
  guint64  correlation_id;
  gboolean has_device_id;
  guint64  device_id;
  gboolean has_flow;
  guint64  flow;
  gboolean has_producer_type;
  guint64  producer_type;
  gboolean has_producer_id;
  guint64  producer_id;
  gboolean has_consumer_type;
  guint64  consumer_type;
  gboolean has_consumer_id;
  guint64  consumer_id;
  gboolean has_iter_num;
  gint64   iter_num;
  gboolean has_step_num;
  gint64   step_num;
} EventFacts;

typedef enum
{
  KIND_MODULE,
  KIND_HLO_OP,
  KIND_TF_OP,
  KIND_NAME_SCOPE,
  KIND_SOURCE,
  KIND_STEP,
  N_KINDS
} MetadataKind;

typedef struct
{
  PlanarTrace  *self;
  guint         p;
  PlanarPlane  *plane;
  /* The plane's table of derived sources. */
  PlanarSpillArray *sources;
  /* The derived events this plane may still add (its share of the trace's
   * budget, by its number of events, so that which plane gets what does
   * not depend on threads), and whether it ran out. */
  guint64       quota;
  gboolean      over_budget;
  /* New PlanarEventMetadata, installed at plane->metadata[first_metadata]
   * once the plane is done. */
  GArray       *metadata;
  guint         first_metadata;
  /* Per kind: interned name -> index + 1 in the plane's metadata. */
  GHashTable   *by_name[N_KINDS];
  GString      *scratch;
  GString      *scratch2;
  /* What an `hlo_op` (with its module) or a `tf_op` resolves to: a
   * CacheKey -> CacheValue, whose metadata lists live in @pool. Kernels
   * repeat the same few hundred ops, so most resolve with one lookup. */
  GHashTable   *hlo_cache;
  GHashTable   *tf_cache;
  GArray       *pool;
  /* The last module and step seen: kernels come in runs of one. */
  Text          last_module;
  gboolean      last_module_has_pid;
  guint64       last_module_pid;
  guint32       last_module_md;
  gboolean      has_last_step;
  gint64        last_step;
  guint32       last_step_md;
} PlaneContext;

typedef struct
{
  Text     a;
  Text     b;
  gboolean has_num;
  guint64  num;
} CacheKey;

typedef struct
{
  guint32 offset;
  guint32 n;
  guint32 md;
} CacheValue;

/* The group an event belongs to, if any. */
typedef struct
{
  gboolean has;
  gint64   id;
} Group;

/* An optional scope_range_id, which XProf also compares before merging. */
typedef struct
{
  gboolean has;
  gint64   id;
} Scope;

typedef struct
{
  /* Index in the builder's events; -1 when the level has no open event. */
  gssize  event;
  /* The last event made at this level, open or closed (-1: none). */
  gssize  last;
  guint32 metadata;
  Group   group;
  Scope   scope;
} LevelState;

typedef struct _LineBuilder LineBuilder;

/* One derived line being built: XProf's DerivedXLineBuilder. */
struct _LineBuilder
{
  gint64       id;
  gint64       display_id;
  const char  *name;
  /* The stream it is derived from, or G_MAXUINT. */
  guint        source_track;
  /* Off GPU planes, events without a group merge only across small gaps. */
  gboolean     gap_check;
  PlanarSpillArray *events;
  GArray      *levels;
  /* Lines whose open events end when this line's outermost one does. */
  LineBuilder *dependents[2];
  guint        n_dependents;
};

typedef struct
{
  gint64         start_ps;
  gint64         end_ps;
  PlanarEventRef first;
  guint64        count;
  gint64         max_ps;
  /* An integer, so that adding up per-thread partial sums in any order
   * gives the same average. */
  gint64         sum_ps;
} LaunchGroup;

typedef struct
{
  gint64         start_ps;
  PlanarEventRef ref;
  /* Interned. */
  const char    *name;
} GroupRoot;

/* The host events that link step groups, for files without group ids
 * (planar-derive-groups.c). */
typedef struct _GroupNodes GroupNodes;

/* What a pass over one plane works with. The shared parts are read-only
 * while planes derive in parallel; each plane's pass has its own copy of
 * the rest. */
typedef struct
{
  PlanarTrace       *self;
  GCancellable      *cancellable;
  StatNames          names;
  guint64            host_id;
  /* The `/device:GPU:` planes in file order: XProf's device index. */
  GArray            *gpu_planes;
  /* group_id -> GroupRoot of the group's earliest root event. These three
   * tables are keyed by ids the file chooses: they hash with
   * _planar_id_hash(), which no file can make collide. */
  GHashTable        *group_roots;
  /* Per GPU (by index in @gpu_planes): group_id -> LaunchGroup. */
  GHashTable       **launches;
  /* Whether the step groups are worked out here (planar-derive-groups.c):
   * the host has root events and no event has a group_id. Then each host
   * track's pass (run before the other planes') collects into
   * @group_nodes (its own) the events that link a group, and
   * @launch_groups then gives the GPU passes the group of each grouped
   * launch's correlation_id. */
  gboolean           infer_groups;
  GroupNodes        *group_nodes;
  PlanarSpillArray  *launch_groups;
  /* scope_range_id -> parent, from `/host:__ScopeRangeCallStack__`. */
  GHashTable        *scope_parents;
  /* The bytes derived events may take, shared out among the planes by
   * their number of events. */
  gint64             budget;
  guint64            budget_weight;

  /* Per pass: the plane, its table of derived sources, the reused stats
   * array, the flow ends found and the events seen. */
  guint              p;
  PlanarSpillArray  *sources;
  GArray            *stats;
  PlanarFlowBuilder *flows;
  guint64            n_seen;
  /* The file bytes the pass's stat reads went over since their pages were
   * last dropped (_planar_derive_drop_read_pages()): the lowest and highest
   * event offset, and how many events. */
  guint64            read_lo;
  guint64            read_hi;
  guint64            n_read;
  /* What each stat metadata of plane @facts_plane gives the facts, by
   * its index, and the length of its name (planar-derive-facts.c, made at
   * the pass's first read of that plane; NULL before, freed by
   * _planar_derive_clear_facts()). */
  guint8            *facts_of_stat;
  guint32           *stat_name_lens;
  guint              facts_plane;
} DeriveContext;

typedef gboolean (*EventVisitor) (DeriveContext        *dc,
                                  const PlanarEventRef *ref,
                                  const PlanarEvent    *event,
                                  gpointer              user_data,
                                  GError              **error);

/* What a plane already has, so that lines XProf (or the profiler) wrote
 * into the file are not derived a second time: the TensorFlow profiler
 * saves `TensorFlow Ops`, `TensorFlow Name Scope` and `Steps`, TPU planes
 * come with native `XLA Modules`, `XLA Ops` and `Steps`. */
typedef struct
{
  gboolean steps;
  gboolean launch_stats;
  gboolean framework;
  gboolean xla;
  gboolean source;
  gboolean device_derived;
  gboolean host_offload;
  gboolean host_xla;
} NativeLines;

/* A GPU plane's pass (planar-derive-gpu.c). */
typedef struct _GpuPass GpuPass;

/* A TPU plane's Host Offload rows (planar-derive-offload.c). */
typedef struct _OffloadPass OffloadPass;

/* planar-derive-facts.c */

gboolean _planar_derive_stat_int (const PlanarStat *stat,
                                  guint64          *value);
/* Forgets the pages of the mapped file that the pass's stat reads went
 * over (a large file only, as the decoder does): they stay in the page
 * cache, and a later read faults them back in. */
void _planar_derive_drop_read_pages (DeriveContext *dc);
gboolean _planar_derive_check_cancelled (DeriveContext  *dc,
                                         GError        **error);
/* Frees what _planar_derive_event_facts() made for @dc's pass. */
void _planar_derive_clear_facts (DeriveContext *dc);
void _planar_derive_event_facts (DeriveContext     *dc,
                                 const PlanarPlane *plane,
                                 const PlanarEvent *event,
                                 EventFacts        *facts);
gboolean _planar_derive_plane_has_stat (PlanarTrace *self,
                                        guint        p,
                                        const char  *name);
void _planar_derive_collect_flow_ends (DeriveContext        *dc,
                                       const EventFacts     *facts,
                                       gboolean              is_host,
                                       gboolean              is_gpu,
                                       const PlanarEventRef *ref,
                                       gint64                start_ps);
gboolean _planar_derive_plane_wants_flows (DeriveContext *dc,
                                           guint          p);
gboolean _planar_derive_visit_sorted (DeriveContext   *dc,
                                      guint            p,
                                      const gboolean  *use,
                                      guint            n_tracks,
                                      EventVisitor     visit,
                                      gpointer         user_data,
                                      GError         **error);
gboolean _planar_derive_scan_flows_only (DeriveContext  *dc,
                                         guint           p,
                                         GError        **error);
void _planar_derive_lookup_stat_names (PlanarTrace *self,
                                       StatNames   *names);

/* planar-derive-builder.c */

gboolean _planar_derive_text_equal (Text x,
                                    Text y);
const char *_planar_derive_intern_len (PlanarTrace *self,
                                       const char  *s,
                                       gsize        len);
const char *_planar_derive_intern (PlanarTrace *self,
                                   const char  *s);
void _planar_plane_context_init (PlaneContext *ctx,
                                 PlanarTrace  *self,
                                 guint         p,
                                 PlanarSpillArray *sources,
                                 guint64       quota);
void _planar_plane_context_clear (PlaneContext *ctx);
void _planar_plane_context_cache_insert (GHashTable       *cache,
                                         const CacheKey   *key,
                                         const CacheValue *value);
guint32 _planar_plane_context_add_metadata (PlaneContext *ctx,
                                            const char   *name,
                                            const char   *display_name);
PlanarEventMetadata *_planar_plane_context_get_metadata (PlaneContext *ctx,
                                                         guint32       index);
guint32 _planar_plane_context_find_metadata (PlaneContext *ctx,
                                             MetadataKind  kind,
                                             const char   *name,
                                             gsize         len,
                                             gboolean     *created);
void _planar_derive_metadata_add_text (PlaneContext        *ctx,
                                       PlanarEventMetadata *md,
                                       const char          *name,
                                       const char          *value,
                                       gsize                len);
void _planar_derive_metadata_add_int (PlaneContext        *ctx,
                                      PlanarEventMetadata *md,
                                      const char          *name,
                                      gint64               value);
void _planar_derive_metadata_add_uint (PlaneContext        *ctx,
                                       PlanarEventMetadata *md,
                                       const char          *name,
                                       guint64              value);
void _planar_derive_metadata_add_double (PlaneContext        *ctx,
                                         PlanarEventMetadata *md,
                                         const char          *name,
                                         double               value);
void _planar_line_builder_init (LineBuilder *b,
                                PlanarTrace *self,
                                gint64       id,
                                const char  *name,
                                guint        source_track,
                                gboolean     gap_check);
void _planar_line_builder_clear (LineBuilder *b);
void _planar_line_builder_add_dependent (LineBuilder *b,
                                         LineBuilder *dependent);
gssize _planar_plane_context_add_event (PlaneContext         *ctx,
                                        PlanarSpillArray     *events,
                                        gint64                start_ps,
                                        gint64                end_ps,
                                        guint32               metadata,
                                        Group                 group,
                                        const PlanarEventRef *ref);
void _planar_line_builder_expand_or_add (PlaneContext         *ctx,
                                         LineBuilder          *b,
                                         guint                 level,
                                         guint32               metadata,
                                         gint64                start_ps,
                                         gint64                end_ps,
                                         Group                 group,
                                         Scope                 scope,
                                         const PlanarEventRef *ref);
void _planar_line_builder_expand_or_add_levels (PlaneContext         *ctx,
                                                LineBuilder          *b,
                                                const guint32        *metadata,
                                                guint                 n_levels,
                                                gint64                start_ps,
                                                gint64                end_ps,
                                                Group                 group,
                                                const Scope          *scopes,
                                                const PlanarEventRef *ref);

/* planar-derive-framework.c */

/* How many Framework Name Scope levels framework op @full gets. */
guint _planar_derive_op_n_scopes (const char *full,
                                  gsize       len);
void _planar_derive_add_framework_op (PlaneContext         *ctx,
                                      LineBuilder          *name_scope,
                                      LineBuilder          *framework_ops,
                                      Text                  full,
                                      gint64                start_ps,
                                      gint64                end_ps,
                                      Group                 group,
                                      const PlanarEventRef *ref);

/* planar-derive-publish.c */

gint64 _planar_derive_plane_start_ns (const PlanarPlane *plane,
                                      guint              n_file_lines);
gboolean _planar_derive_publish_lines (DeriveContext  *dc,
                                       PlaneContext   *ctx,
                                       LineBuilder   **builders,
                                       guint           n_builders,
                                       gint64         *timestamps_ns,
                                       GError        **error);
void _planar_derive_find_native_lines (const PlanarPlane *plane,
                                       guint              n_file_tracks,
                                       NativeLines       *native);

/* planar-derive-host.c */

gboolean _planar_derive_host_plane_wanted (DeriveContext *dc,
                                           guint          p);
void _planar_derive_merge_launches (GHashTable **dst,
                                    GHashTable **src,
                                    guint        n_gpus);
void _planar_derive_merge_group_roots (GHashTable *dst,
                                       GHashTable *src);
gboolean _planar_derive_scan_host_track (DeriveContext  *dc,
                                         guint           p,
                                         guint           t,
                                         GError        **error);
const char *_planar_derive_group_name (DeriveContext *dc,
                                       gint64         group_id);
/* Adds launch @ev (@ref) of step group @group_id to GPU @device's Launch
 * Stats figures in @dc, into @lg when the caller has the group's figures
 * already (the return of the call before, for the same device and
 * group), else found or made. Returns: (transfer none): the figures. */
LaunchGroup *_planar_derive_add_launch (DeriveContext        *dc,
                                        guint                 device,
                                        gint64                group_id,
                                        LaunchGroup          *lg,
                                        const PlanarEvent    *ev,
                                        const PlanarEventRef *ref);
/* Whether @name is a driver call (cuEventRecord, ...) that XProf leaves
 * out of Launch Stats though it carries a launch's stats. */
gboolean _planar_derive_is_driver_call (const char *name);
GHashTable **_planar_derive_launch_tables_new (guint n_gpus);
void _planar_derive_launch_tables_free (GHashTable **tables,
                                        guint        n_gpus);

/* planar-derive-groups.c: step groups for files without group ids. */

/* Whether @self's step groups are worked out from its host's root events:
 * a `/host:CPU` plane defines `_r` and no plane defines `group_id`. */
gboolean _planar_derive_groups_wanted (PlanarTrace      *self,
                                       const StatNames  *names);
GroupNodes *_planar_derive_group_nodes_new (PlanarSpillMode spill);
void _planar_derive_group_nodes_free (GroupNodes *self);
/* Begins the notes of host track @track of plane @plane in @nodes (the
 * track's own): returns the track's stack for
 * _planar_derive_group_node_add(). */
GArray *_planar_derive_group_track_begin (GroupNodes *nodes,
                                          guint       plane,
                                          guint       track);
/* Notes host event @ev (@ref, its @facts; @name) of the track being read
 * in @dc->group_nodes, when it can link a group. @stack is the track's,
 * from _planar_derive_group_track_begin(). */
void _planar_derive_group_node_add (DeriveContext        *dc,
                                    GArray               *stack,
                                    const EventFacts     *facts,
                                    const char           *name,
                                    const PlanarEvent    *ev,
                                    const PlanarEventRef *ref);
/* Appends @src's nodes to @dst (the host tracks' in track order). */
void _planar_derive_group_nodes_merge (GroupNodes *dst,
                                       GroupNodes *src);
/* Gives every node of @nodes (merged) its group as XProf does, names the
 * groups in @dc->group_roots, adds the grouped launches to @dc->launches
 * and sets @dc->launch_groups. */
void _planar_derive_groups_assign (DeriveContext *dc,
                                   GroupNodes    *nodes);
/* The group of the launch with @correlation in @launch_groups; @cursor
 * (0 at first) keeps where the last one was found. */
gboolean _planar_derive_groups_lookup (const PlanarSpillArray *launch_groups,
                                       guint64                 correlation,
                                       gsize                  *cursor,
                                       gint64                 *group);

/* planar-derive-gpu.c */

/* Sets @out (guint track indices) to the file tracks of GPU @plane (its
 * first @n_file_tracks) that get derived lines, in XProf's stream order:
 * compute streams first, then the busiest; at most
 * PLANAR_DERIVED_MAX_STREAMS. */
void _planar_derive_gpu_streams (const PlanarPlane *plane,
                                 guint              n_file_tracks,
                                 GArray            *out);
/* The module an XLA op's kernel belongs to in @hlo: that of its program
 * id, or without one, the module of its hlo_module's name; NULL when none. */
const PlanarHloModule *_planar_derive_find_hlo_module (const PlanarHloIndex *hlo,
                                                       const EventFacts     *facts);
/* The instruction the innermost "::"-separated level of @facts's hlo_op
 * names in @module, as XProf's symbol resolver takes it, or else the one
 * that kernel @kernel (the event's name; may be NULL) ran, by XLA's kernel
 * names (planar_hlo_module_find_kernel_instruction()); NULL when none. */
const PlanarHloInstruction *_planar_derive_find_hlo_instruction (const PlanarHloModule *module,
                                                                 const EventFacts      *facts,
                                                                 const char            *kernel);
void _planar_gpu_pass_free (GpuPass *gp);
GpuPass *_planar_gpu_pass_new (DeriveContext *dc,
                               guint          p,
                               guint          device);
gboolean _planar_gpu_pass_scan (DeriveContext  *dc,
                                GpuPass        *gp,
                                GError        **error);
gboolean _planar_gpu_pass_finish (DeriveContext  *dc,
                                  GpuPass        *gp,
                                  gint64          host_start_ns,
                                  gboolean        has_host,
                                  GError        **error);

/* planar-derive-tpu.c */

gboolean _planar_derive_is_tensor_core_plane (const char *name);
gboolean _planar_derive_tpu_plane (DeriveContext  *dc,
                                   guint           p,
                                   GError        **error);

/* planar-derive-offload.c */

OffloadPass *_planar_offload_pass_new (PlaneContext *ctx);
void _planar_offload_pass_free (OffloadPass *op);
void _planar_offload_pass_add (OffloadPass          *op,
                               const PlanarEventRef *ref,
                               const PlanarEvent    *event);
guint _planar_offload_pass_get_n_rows (OffloadPass *op);
LineBuilder *_planar_offload_pass_get_row (OffloadPass *op,
                                           guint        i);
/* The name of row @row ("Host Offload Ops row 2"), interned. */
const char *_planar_offload_row_name (PlanarTrace *self,
                                      guint        row);
/* How many rows the pass will make on TPU plane @p, told before it runs
 * (planar-derive-predict.c): the same pairing, nothing built. */
guint _planar_offload_predict_n_rows (DeriveContext *dc,
                                      guint          p);

/* planar-derive-xla-cpu.c */

gboolean _planar_derive_xla_cpu_wanted (DeriveContext *dc,
                                        guint          p);
gboolean _planar_derive_xla_cpu_plane (DeriveContext  *dc,
                                       guint           p,
                                       GError        **error);

/* planar-derive.c */

guint64 _planar_derive_plane_quota (const DeriveContext *dc,
                                    guint                p);
PlanarSpillArray *_planar_derive_sources_new (PlanarTrace *self);
void _planar_derive_sources_free (gpointer data);
gboolean _planar_trace_derive (PlanarTrace   *self,
                               GCancellable  *cancellable,
                               GError       **error);

/* planar-derive-sources.c: its calls from outside derive/ are in
 * planar-derive-private.h. */
G_END_DECLS
