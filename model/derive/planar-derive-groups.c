/* planar-derive-groups.c: step groups for profiles whose events carry no
 * group ids.
 *
 * A profile that TensorFlow saved carries a `group_id` on the events of a
 * step, and the GPU pass builds the Steps line from those. JAX writes none:
 * `jax.profiler.StepTraceAnnotation("train", step_num=N)` marks the step's
 * host event with the root stat `_r` and its number, and XProf works the
 * groups out when it loads the file (docs/formats.md §3.4):
 *
 *  - the host's events form a graph: an event is the child of the event
 *    of its thread that encloses it (asynchronous events, `_a`, of none),
 *    the consumers of a context (`_ct`, `_c`) are the children of its
 *    producers (`_pt`, `_p`) on any thread, and a kernel is the child of
 *    the launch with its `correlation_id`;
 *  - the root events (`_r` other than 0) are taken by level, highest first,
 *    then by start; each that no ancestor of the same level encloses gets
 *    the next group number, given to every event it reaches that has none
 *    yet;
 *  - a group is named after its root: its graph type or name, then its
 *    iteration or step number ("train 7"), else the group's own number.
 *
 * Here the host plane's tracks are read first, before the other planes,
 * and note only the events that can link a group: roots, producers and
 * consumers as nodes, each with the nearest node of its thread that
 * encloses it (enclosing is transitive, so the events between them change
 * no group), and launches apart, 24 bytes each, with the node that
 * encloses them: a launch encloses nothing that matters, so its group is
 * that node's. The groups then name themselves in the same table as the
 * file's, the grouped launches count for Launch Stats, and each grouped
 * launch's correlation_id maps to its group: the GPU passes that follow
 * give a kernel without a group_id the group of its launch, and from then
 * on the kernel is derived as in a file with group ids (Steps, and the
 * XLA and framework lines split at each step, as XProf's are).
 *
 * Left out: the group ids XProf writes on the host's grouped events (the
 * host's own lines are the file's, unchanged), and the step_name it gives
 * a root.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include <string.h>

enum
{
  NODE_PRODUCER = 1 << 0,
  NODE_CONSUMER = 1 << 1,
  /* A launch that counts for Launch Stats (a device, not a driver call). */
  LAUNCH_STATS = 1 << 2,
};

/* XProf leaves a context of this many producers and as many consumers
 * unlinked (a context id reused everywhere, not one step's). */
#define CONTEXT_FAN_MAX 64
/* How many links the searches of the roots' ancestors of their level
 * follow, all together, at most: this many per node and link of the
 * graph, and some more. A real profile's roots have a few dozen
 * ancestors; a file made to nest roots of as many levels deep would
 * otherwise cost roots x depth. Past it, a root is taken as having no
 * such ancestor. */
#define ANCESTOR_SEARCH_PER_NODE 32
#define ANCESTOR_SEARCH_MIN      (1u << 20)

/* A root, a producer or a consumer. */
typedef struct
{
  gint64         start_ps;
  gint64         end_ps;
  PlanarEventRef ref;
  /* The nearest node of its track that encloses it, or -1. */
  gint32         parent;
  guint32        flags;
  gint64         root_level;
  guint64        producer_type;
  guint64        producer_id;
  guint64        consumer_type;
  guint64        consumer_id;
  /* A root's name before its number (interned), and the number. */
  const char    *prefix;
  gboolean       has_number;
  gint64         number;
} GroupNode;

/* An event with a correlation_id: its kernels are its children. */
typedef struct
{
  guint64 correlation;
  /* Its index in its track (LaunchTrack). */
  guint32 index;
  /* The node that encloses it, or -1. */
  gint32  parent;
  guint16 device;
  guint16 flags;
} Launch;

G_STATIC_ASSERT (sizeof (Launch) == 24);

/* The launches of one host track, in event order. */
typedef struct
{
  guint             plane;
  guint             track;
  PlanarSpillArray *launches;
} LaunchTrack;

struct _GroupNodes
{
  /* The large arrays (launches, the table by correlation_id) spill as the
   * trace's index does. */
  PlanarSpillMode spill;
  GArray *nodes;
  /* LaunchTrack, one per host track once merged (their arrays moved, not
   * copied). */
  GArray *tracks;
};

/* The group of a grouped launch's correlation_id. */
typedef struct
{
  guint64 correlation;
  gint64  group;
} LaunchGroupId;

typedef struct
{
  guint64 type;
  guint64 id;
} ContextKey;

G_STATIC_ASSERT (sizeof (ContextKey) == 16);

gboolean
_planar_derive_groups_wanted (PlanarTrace     *self,
                              const StatNames *names)
{
  gboolean roots = FALSE;

  for (guint p = 0; p < self->n_planes; p++)
    {
      if (_planar_derive_plane_has_stat (self, p, names->group_id))
        return FALSE;
      if (strcmp (self->planes[p].name, "/host:CPU") == 0 &&
          _planar_derive_plane_has_stat (self, p, names->is_root))
        roots = TRUE;
    }
  return roots;
}

static void
launch_track_clear (gpointer data)
{
  LaunchTrack *lt = data;

  g_clear_pointer (&lt->launches, planar_spill_array_free);
}

GroupNodes *
_planar_derive_group_nodes_new (PlanarSpillMode spill)
{
  GroupNodes *self = g_new (GroupNodes, 1);

  self->spill = spill;
  self->nodes = g_array_new (FALSE, FALSE, sizeof (GroupNode));
  self->tracks = g_array_new (FALSE, FALSE, sizeof (LaunchTrack));
  g_array_set_clear_func (self->tracks, launch_track_clear);
  return self;
}

void
_planar_derive_group_nodes_free (GroupNodes *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->nodes);
  g_array_unref (self->tracks);
  g_free (self);
}

void
_planar_derive_group_node_add (DeriveContext        *dc,
                               GArray               *stack,
                               const EventFacts     *facts,
                               const char           *name,
                               const PlanarEvent    *ev,
                               const PlanarEventRef *ref)
{
  GroupNodes *gn = dc->group_nodes;
  gint64 start_ps = ev->start_ps, end_ps = ev->start_ps + ev->duration_ps;
  gint32 parent = -1;
  guint32 flags = 0;

  if (facts->has_producer_type && facts->has_producer_id)
    flags |= NODE_PRODUCER;
  if (facts->has_consumer_type && facts->has_consumer_id)
    flags |= NODE_CONSUMER;
  if (flags == 0 && facts->root_level == 0 && !facts->has_correlation_id)
    return;

  /* An asynchronous event neither encloses nor is enclosed. The track's
   * events come by start, the longer first, so a node that does not
   * enclose this event encloses none after it. */
  if (!facts->is_async)
    while (stack->len > 0)
      {
        guint top = g_array_index (stack, guint, stack->len - 1);
        const GroupNode *t = &g_array_index (gn->nodes, GroupNode, top);

        if (t->start_ps <= start_ps && end_ps <= t->end_ps)
          {
            parent = (gint32) top;
            break;
          }
        g_array_set_size (stack, stack->len - 1);
      }

  if (flags != 0 || facts->root_level != 0)
    {
      GroupNode node = { 0 };
      guint index = gn->nodes->len;

      node.start_ps = start_ps;
      node.end_ps = end_ps;
      node.ref = *ref;
      node.parent = parent;
      node.flags = flags;
      node.root_level = facts->root_level;
      node.producer_type = facts->producer_type;
      node.producer_id = facts->producer_id;
      node.consumer_type = facts->consumer_type;
      node.consumer_id = facts->consumer_id;
      if (node.root_level != 0)
        {
          node.prefix = facts->graph_type.len > 0
            ? _planar_derive_intern_len (dc->self, facts->graph_type.data, facts->graph_type.len)
            : name;
          node.has_number = facts->has_iter_num || facts->has_step_num;
          node.number = facts->has_iter_num ? facts->iter_num : facts->step_num;
        }
      g_array_append_val (gn->nodes, node);
      if (!facts->is_async)
        g_array_append_val (stack, index);
      /* A launch that is a node too has the node's group. */
      parent = (gint32) index;
    }

  if (facts->has_correlation_id)
    {
      PlanarSpillArray *launches = g_array_index (gn->tracks, LaunchTrack, gn->tracks->len - 1).launches;
      Launch launch = { facts->correlation_id, ref->index, parent, 0, 0 };

      if (facts->has_device_id && facts->device_id < dc->gpu_planes->len && !_planar_derive_is_driver_call (name))
        {
          launch.flags = LAUNCH_STATS;
          launch.device = (guint16) facts->device_id;
        }
      planar_spill_array_append (launches, &launch, 1);
    }
}

GArray *
_planar_derive_group_track_begin (GroupNodes *gn,
                                  guint       plane,
                                  guint       track)
{
  LaunchTrack lt = { plane, track, NULL };

  lt.launches = planar_spill_array_new (sizeof (Launch), gn->spill);
  g_array_append_val (gn->tracks, lt);
  return g_array_new (FALSE, FALSE, sizeof (guint));
}

void
_planar_derive_group_nodes_merge (GroupNodes *dst,
                                  GroupNodes *src)
{
  guint base = dst->nodes->len;

  g_array_append_vals (dst->nodes, src->nodes->data, src->nodes->len);
  for (guint i = base; i < dst->nodes->len; i++)
    {
      GroupNode *node = &g_array_index (dst->nodes, GroupNode, i);

      if (node->parent >= 0)
        node->parent += (gint32) base;
    }
  for (guint t = 0; t < src->tracks->len; t++)
    {
      LaunchTrack *lt = &g_array_index (src->tracks, LaunchTrack, t);
      LaunchTrack moved = *lt;

      lt->launches = NULL;
      for (guint i = 0; i < moved.launches->len; i++)
        {
          Launch *launch = &planar_spill_array_index (moved.launches, Launch, i);

          if (launch->parent >= 0)
            launch->parent += (gint32) base;
        }
      g_array_append_val (dst->tracks, moved);
    }
}

/* Keyed, as every table of ids a file chooses (planar-hash-private.h). */
static guint
context_key_hash (gconstpointer v)
{
  return (guint) _planar_hash_bytes (v, sizeof (ContextKey), 0);
}

static gboolean
context_key_equal (gconstpointer a,
                   gconstpointer b)
{
  const ContextKey *x = a, *y = b;

  return x->type == y->type && x->id == y->id;
}

/* A context: how many producers and consumers it has, and the node that
 * stands for it between them. */
typedef struct
{
  guint n_producers;
  guint n_consumers;
  guint hub;
} Context;

static Context *
context_get (GHashTable *contexts,
             guint64     type,
             guint64     id)
{
  ContextKey key = { type, id };
  Context *c = g_hash_table_lookup (contexts, &key);

  if (c == NULL)
    {
      c = g_new0 (Context, 1);
      g_hash_table_insert (contexts, g_memdup2 (&key, sizeof key), c);
    }
  return c;
}

/* Edges as (from, to) pairs, then each node's run of them. */
typedef struct
{
  guint from;
  guint to;
} Edge;

typedef struct
{
  guint *start;
  guint *to;
} Adjacency;

/* The runs of @edges by their from (@reverse: by their to), over @n
 * nodes, in the edges' order (a counting sort). */
static void
adjacency_init (Adjacency *adj,
                GArray    *edges,
                guint      n,
                gboolean   reverse)
{
  g_autofree guint *fill = g_new0 (guint, n + 1);

  adj->start = g_new0 (guint, n + 1);
  adj->to = g_new (guint, MAX (edges->len, 1));
  for (guint i = 0; i < edges->len; i++)
    {
      const Edge *e = &g_array_index (edges, Edge, i);

      adj->start[(reverse ? e->to : e->from) + 1]++;
    }
  for (guint i = 0; i < n; i++)
    adj->start[i + 1] += adj->start[i];
  for (guint i = 0; i < edges->len; i++)
    {
      const Edge *e = &g_array_index (edges, Edge, i);
      guint from = reverse ? e->to : e->from;

      adj->to[adj->start[from] + fill[from]++] = reverse ? e->from : e->to;
    }
}

static void
adjacency_clear (Adjacency *adj)
{
  g_free (adj->start);
  g_free (adj->to);
}

static void
add_edge (GArray *edges,
          guint   from,
          guint   to)
{
  Edge e = { from, to };

  g_array_append_val (edges, e);
}

typedef struct
{
  gint64 start_ps;
  guint  node;
} Root;

static int
compare_roots (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  const gint64 *levels = user_data;
  const Root *x = a, *y = b;

  if (levels[x->node] != levels[y->node])
    return levels[x->node] > levels[y->node] ? -1 : 1;
  if (x->start_ps != y->start_ps)
    return x->start_ps < y->start_ps ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

/* Whether an ancestor of @root (through @parents) has its root level. */
static gboolean
has_ancestor_of_level (const gint64    *levels,
                       const Adjacency *parents,
                       guint            root,
                       guint           *seen,
                       guint            stamp,
                       GArray          *queue,
                       guint64         *budget)
{
  g_array_set_size (queue, 0);
  seen[root] = stamp;
  g_array_append_val (queue, root);
  for (guint q = 0; q < queue->len; q++)
    {
      guint node = g_array_index (queue, guint, q);

      for (guint e = parents->start[node]; e < parents->start[node + 1]; e++)
        {
          guint up = parents->to[e];

          if (*budget == 0)
            return FALSE;
          --*budget;
          _planar_trace_steps++;
          if (seen[up] == stamp)
            continue;
          seen[up] = stamp;
          if (levels[up] == levels[root])
            return TRUE;
          g_array_append_val (queue, up);
        }
    }
  return FALSE;
}

static int
compare_launch_group_ids (gconstpointer a,
                          gconstpointer b,
                          gpointer      user_data)
{
  const LaunchGroupId *x = a, *y = b;

  return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}

/* The group of @launch, from the node that encloses it. */
static inline gint64
launch_group (const Launch *launch,
              const gint64 *groups)
{
  return launch->parent >= 0 ? groups[launch->parent] : -1;
}

void
_planar_derive_groups_assign (DeriveContext *dc,
                              GroupNodes    *gn)
{
  GArray *nodes = gn->nodes;
  guint n = nodes->len, n_all;
  g_autoptr(GHashTable) contexts = g_hash_table_new_full (context_key_hash, context_key_equal, g_free, g_free);
  g_autoptr(GArray) edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  g_autoptr(GArray) roots = g_array_new (FALSE, FALSE, sizeof (Root));
  g_autoptr(GArray) queue = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gint64 *levels = NULL;
  g_autofree guint *seen = NULL;
  g_autofree gint64 *groups = NULL;
  PlanarSpillArray *map;
  gsize kept = 0;
  gboolean sorted = TRUE;
  gsize n_launches = 0;
  LaunchGroupId *ids;
  LaunchGroup *last = NULL;
  guint last_device = 0;
  gint64 last_group = -1;
  Adjacency children, parents;
  GHashTableIter iter;
  gpointer value;
  gint64 next_group = 0;
  guint stamp = 0;
  guint64 budget;

  /* A context is one node of its own between its producers and its
   * consumers, so that it costs their number of edges, not their
   * product; XProf's rule on both sides' numbers stays. */
  for (guint i = 0; i < n; i++)
    {
      const GroupNode *node = &g_array_index (nodes, GroupNode, i);

      if (node->flags & NODE_PRODUCER)
        context_get (contexts, node->producer_type, node->producer_id)->n_producers++;
      if (node->flags & NODE_CONSUMER)
        context_get (contexts, node->consumer_type, node->consumer_id)->n_consumers++;
    }
  n_all = n;
  g_hash_table_iter_init (&iter, contexts);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Context *c = value;

      c->hub = G_MAXUINT;
      if (c->n_producers > 0 && c->n_consumers > 0 &&
          (c->n_producers < CONTEXT_FAN_MAX || c->n_consumers < CONTEXT_FAN_MAX))
        c->hub = n_all++;
    }

  levels = g_new0 (gint64, MAX (n_all, 1));
  seen = g_new0 (guint, MAX (n_all, 1));
  groups = g_new (gint64, MAX (n_all, 1));
  for (guint i = 0; i < n_all; i++)
    groups[i] = -1;
  for (guint i = 0; i < n; i++)
    {
      const GroupNode *node = &g_array_index (nodes, GroupNode, i);

      if (node->parent >= 0)
        add_edge (edges, (guint) node->parent, i);
      if (node->flags & NODE_PRODUCER)
        {
          ContextKey key = { node->producer_type, node->producer_id };
          const Context *c = g_hash_table_lookup (contexts, &key);

          if (c->hub != G_MAXUINT)
            add_edge (edges, i, c->hub);
        }
      if (node->flags & NODE_CONSUMER)
        {
          ContextKey key = { node->consumer_type, node->consumer_id };
          const Context *c = g_hash_table_lookup (contexts, &key);

          if (c->hub != G_MAXUINT)
            add_edge (edges, c->hub, i);
        }
      levels[i] = node->root_level;
      if (node->root_level != 0)
        {
          Root root = { node->start_ps, i };

          g_array_append_val (roots, root);
        }
    }
  adjacency_init (&children, edges, n_all, FALSE);
  adjacency_init (&parents, edges, n_all, TRUE);
  budget = ANCESTOR_SEARCH_MIN + ANCESTOR_SEARCH_PER_NODE * ((guint64) n_all + edges->len);
  g_array_sort_with_data (roots, compare_roots, levels);

  for (guint r = 0; r < roots->len; r++)
    {
      guint root = g_array_index (roots, Root, r).node;
      const GroupNode *rn = &g_array_index (nodes, GroupNode, root);
      g_autoptr(GString) name = NULL;
      GroupRoot *gr;
      gint64 group;

      if (groups[root] >= 0 || has_ancestor_of_level (levels, &parents, root, seen, ++stamp, queue, &budget))
        continue;
      group = next_group++;
      /* Every node it reaches that has no group yet takes it, and passes
       * it on; a node of another group stops it. */
      g_array_set_size (queue, 0);
      stamp++;
      seen[root] = stamp;
      g_array_append_val (queue, root);
      for (guint q = 0; q < queue->len; q++)
        {
          guint node = g_array_index (queue, guint, q);

          if (groups[node] >= 0)
            continue;
          groups[node] = group;
          for (guint e = children.start[node]; e < children.start[node + 1]; e++)
            {
              guint down = children.to[e];

              if (seen[down] == stamp)
                continue;
              seen[down] = stamp;
              g_array_append_val (queue, down);
            }
        }

      name = g_string_new (rn->prefix);
      g_string_append_printf (name, " %" G_GINT64_FORMAT, rn->has_number ? rn->number : group);
      gr = g_new0 (GroupRoot, 1);
      gr->start_ps = rn->start_ps;
      gr->ref = rn->ref;
      gr->name = _planar_derive_intern (dc->self, name->str);
      g_hash_table_insert (dc->group_roots, g_memdup2 (&group, sizeof group), gr);
    }

  /* The grouped launches' figures for Launch Stats, and their groups by
   * correlation_id, for the kernels. */
  for (guint a = 0; a < gn->tracks->len; a++)
    n_launches += g_array_index (gn->tracks, LaunchTrack, a).launches->len;
  map = planar_spill_array_new (sizeof (LaunchGroupId), gn->spill);
  planar_spill_array_reserve (map, n_launches);
  for (guint a = 0; a < gn->tracks->len; a++)
    {
      const LaunchTrack *lt = &g_array_index (gn->tracks, LaunchTrack, a);
      const PlanarTrack *track = &dc->self->planes[lt->plane].tracks[lt->track];

      for (guint i = 0; i < lt->launches->len; i++)
        {
          const Launch *launch = &planar_spill_array_index (lt->launches, Launch, i);
          gint64 group = launch_group (launch, groups);
          LaunchGroupId id = { launch->correlation, group };

          if (group < 0)
            continue;
          planar_spill_array_append (map, &id, 1);
          if (launch->flags & LAUNCH_STATS)
            {
              PlanarEventRef ref = { (guint16) lt->plane, 0, lt->track, launch->index };

              /* A step's launches come one after another. */
              if (launch->device != last_device || group != last_group)
                last = NULL;
              last = _planar_derive_add_launch (dc, launch->device, group, last, &track->events[launch->index],
                                                &ref);
              last_device = launch->device;
              last_group = group;
            }
        }
    }
  /* By correlation_id (a stable sort; they mostly come in order); of two
   * launches with one, the later in the host's order, as XProf keeps the
   * last it meets. */
  ids = map->data;
  for (gsize i = 1; i < map->len && sorted; i++)
    sorted = ids[i - 1].correlation <= ids[i].correlation;
  if (!sorted)
    g_qsort_with_data (ids, (gint) MIN (map->len, G_MAXINT), sizeof (LaunchGroupId), compare_launch_group_ids, NULL);
  for (gsize i = 0; i < map->len; i++)
    {
      if (kept > 0 && ids[kept - 1].correlation == ids[i].correlation)
        kept--;
      ids[kept++] = ids[i];
    }
  map->len = kept;
  dc->launch_groups = map;
  adjacency_clear (&children);
  adjacency_clear (&parents);
}

gboolean
_planar_derive_groups_lookup (const PlanarSpillArray *launch_groups,
                              guint64                 correlation,
                              gsize                  *cursor,
                              gint64                 *group)
{
  const LaunchGroupId *ids = (const LaunchGroupId *) (gpointer) launch_groups->data;
  gsize lo = 0, hi = launch_groups->len;

  /* A stream's kernels mostly come in the order of their launches: the
   * last one found, or the one after it, first. */
  for (gsize k = *cursor; k < MIN (*cursor + 2, hi); k++)
    if (ids[k].correlation == correlation)
      {
        *cursor = k;
        *group = ids[k].group;
        return TRUE;
      }
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (ids[mid].correlation < correlation)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo >= launch_groups->len || ids[lo].correlation != correlation)
    return FALSE;
  *cursor = lo;
  *group = ids[lo].group;
  return TRUE;
}
