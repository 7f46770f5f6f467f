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
 *  - the root events (`_r` above 0) are taken by level, highest first,
 *    then by start; each that no ancestor of the same level encloses gets
 *    the next group number, given to every event it reaches that has none
 *    yet;
 *  - a group is named after its root: its graph type or name, then its
 *    iteration or step number ("train 7"), else the group's own number.
 *
 * Here the host tracks' passes note only the events that can link a group
 * (roots, producers, consumers and launches), each with the nearest noted
 * event of its thread that encloses it: enclosing is transitive, so the
 * events between them change no group. The groups then name themselves in
 * the same table as the file's (Launch Stats and Steps read it), the
 * grouped launches count for Launch Stats, and once the flows are indexed
 * each GPU gets, per group, the span from its first kernel (or copy) to
 * the end of its last: the GPU pass publishes those as its Steps line.
 *
 * Left out: the device events of no launch (XProf gives them the group of
 * the device event before them only where the file has group ids), and
 * the group ids XProf writes on every grouped event, which Planar's other
 * derived lines would carry.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-derive-pass-private.h"

#include <string.h>

enum
{
  NODE_PRODUCER = 1 << 0,
  NODE_CONSUMER = 1 << 1,
  /* An event with a correlation_id: its kernels are its children. */
  NODE_LAUNCH = 1 << 2,
  /* A launch that counts for Launch Stats (a device, not a driver call). */
  NODE_LAUNCH_STATS = 1 << 3,
};

/* XProf leaves a context of this many producers and as many consumers
 * unlinked (a context id reused everywhere, not one step's). */
#define CONTEXT_FAN_MAX 64
/* How many nodes the search of a root's ancestors of its level visits at
 * most: a real profile's roots have a few dozen; a file made to nest
 * roots of many levels deep would otherwise cost roots x depth. */
#define ANCESTOR_SEARCH_MAX 65536

/* Most nodes are launches, which need no more than this. */
typedef struct
{
  gint64         start_ps;
  gint64         end_ps;
  PlanarEventRef ref;
  /* The nearest node of its track that encloses it, or -1. */
  gint32         parent;
  guint32        flags;
  guint32        device;
  /* Its NodeExtra, or -1. */
  gint32         extra;
} GroupNode;

/* What a root, a producer or a consumer has besides. */
typedef struct
{
  gint64      root_level;
  guint64     producer_type;
  guint64     producer_id;
  guint64     consumer_type;
  guint64     consumer_id;
  /* A root's name before its number (interned), and the number. */
  const char *prefix;
  gboolean    has_number;
  gint64      number;
} NodeExtra;

struct _GroupNodes
{
  GArray *nodes;
  GArray *extras;
};

typedef struct
{
  guint64 type;
  guint64 id;
} ContextKey;

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

GroupNodes *
_planar_derive_group_nodes_new (void)
{
  GroupNodes *self = g_new (GroupNodes, 1);

  self->nodes = g_array_new (FALSE, FALSE, sizeof (GroupNode));
  self->extras = g_array_new (FALSE, FALSE, sizeof (NodeExtra));
  return self;
}

void
_planar_derive_group_nodes_free (GroupNodes *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->nodes);
  g_array_unref (self->extras);
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
  GroupNode node = { 0 };
  guint index = gn->nodes->len;

  if (facts->has_producer_type && facts->has_producer_id)
    node.flags |= NODE_PRODUCER;
  if (facts->has_consumer_type && facts->has_consumer_id)
    node.flags |= NODE_CONSUMER;
  if (facts->has_correlation_id)
    node.flags |= NODE_LAUNCH;
  if (node.flags == 0 && facts->root_level == 0)
    return;

  node.start_ps = ev->start_ps;
  node.end_ps = ev->start_ps + ev->duration_ps;
  node.ref = *ref;
  node.parent = -1;
  node.extra = -1;
  if ((node.flags & NODE_LAUNCH) && facts->has_device_id && facts->device_id < dc->gpu_planes->len &&
      !_planar_derive_is_driver_call (name))
    {
      node.flags |= NODE_LAUNCH_STATS;
      node.device = (guint32) facts->device_id;
    }
  if ((node.flags & (NODE_PRODUCER | NODE_CONSUMER)) || facts->root_level != 0)
    {
      NodeExtra extra = { 0 };

      extra.root_level = facts->root_level;
      extra.producer_type = facts->producer_type;
      extra.producer_id = facts->producer_id;
      extra.consumer_type = facts->consumer_type;
      extra.consumer_id = facts->consumer_id;
      if (extra.root_level != 0)
        {
          extra.prefix = facts->graph_type.len > 0
            ? _planar_derive_intern_len (dc->self, facts->graph_type.data, facts->graph_type.len)
            : name;
          extra.has_number = facts->has_iter_num || facts->has_step_num;
          extra.number = facts->has_iter_num ? facts->iter_num : facts->step_num;
        }
      node.extra = (gint32) gn->extras->len;
      g_array_append_val (gn->extras, extra);
    }

  /* An asynchronous event neither encloses nor is enclosed. The track's
   * events come by start, the longer first, so an event that does not
   * enclose this one encloses none after it. */
  if (!facts->is_async)
    {
      while (stack->len > 0)
        {
          guint top = g_array_index (stack, guint, stack->len - 1);
          const GroupNode *t = &g_array_index (gn->nodes, GroupNode, top);

          if (t->start_ps <= node.start_ps && node.end_ps <= t->end_ps)
            {
              node.parent = (gint32) top;
              break;
            }
          g_array_set_size (stack, stack->len - 1);
        }
      g_array_append_val (stack, index);
    }
  g_array_append_val (gn->nodes, node);
}

void
_planar_derive_group_nodes_merge (GroupNodes *dst,
                                  GroupNodes *src)
{
  guint base = dst->nodes->len, extra_base = dst->extras->len;

  g_array_append_vals (dst->nodes, src->nodes->data, src->nodes->len);
  g_array_append_vals (dst->extras, src->extras->data, src->extras->len);
  for (guint i = base; i < dst->nodes->len; i++)
    {
      GroupNode *node = &g_array_index (dst->nodes, GroupNode, i);

      if (node->parent >= 0)
        node->parent += (gint32) base;
      if (node->extra >= 0)
        node->extra += (gint32) extra_base;
    }
}

static guint
context_key_hash (gconstpointer v)
{
  const ContextKey *k = v;
  gint64 type = (gint64) k->type, id = (gint64) k->id;

  return _planar_id_hash (&type) * 31u + _planar_id_hash (&id);
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

static int
compare_edges (gconstpointer a,
               gconstpointer b)
{
  const Edge *x = a, *y = b;

  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

/* The runs of @edges by their from (@reverse: by their to), over @n
 * nodes. */
static void
adjacency_init (Adjacency *adj,
                GArray    *edges,
                guint      n,
                gboolean   reverse)
{
  g_autoptr(GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (Edge), edges->len);

  for (guint i = 0; i < edges->len; i++)
    {
      Edge e = g_array_index (edges, Edge, i);

      if (reverse)
        e = (Edge) { e.to, e.from };
      g_array_append_val (sorted, e);
    }
  g_array_sort (sorted, compare_edges);
  adj->start = g_new0 (guint, n + 1);
  adj->to = g_new (guint, MAX (sorted->len, 1));
  for (guint i = 0; i < sorted->len; i++)
    {
      const Edge *e = &g_array_index (sorted, Edge, i);

      adj->start[e->from + 1]++;
      adj->to[i] = e->to;
    }
  for (guint i = 0; i < n; i++)
    adj->start[i + 1] += adj->start[i];
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
                       GArray          *queue)
{
  g_array_set_size (queue, 0);
  seen[root] = stamp;
  g_array_append_val (queue, root);
  for (guint q = 0; q < queue->len && queue->len < ANCESTOR_SEARCH_MAX; q++)
    {
      guint node = g_array_index (queue, guint, q);

      for (guint e = parents->start[node]; e < parents->start[node + 1]; e++)
        {
          guint up = parents->to[e];

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

gint64 *
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
  gint64 *groups;
  Adjacency children, parents;
  GHashTableIter iter;
  gpointer value;
  gint64 next_group = 0;
  guint stamp = 0;

  /* A context is one node of its own between its producers and its
   * consumers, so that it costs their number of edges, not their
   * product; XProf's rule on both sides' numbers stays. */
  for (guint i = 0; i < n; i++)
    {
      const GroupNode *node = &g_array_index (nodes, GroupNode, i);
      const NodeExtra *x = node->extra >= 0 ? &g_array_index (gn->extras, NodeExtra, node->extra) : NULL;

      if (node->flags & NODE_PRODUCER)
        context_get (contexts, x->producer_type, x->producer_id)->n_producers++;
      if (node->flags & NODE_CONSUMER)
        context_get (contexts, x->consumer_type, x->consumer_id)->n_consumers++;
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
      const NodeExtra *x = node->extra >= 0 ? &g_array_index (gn->extras, NodeExtra, node->extra) : NULL;

      if (node->parent >= 0)
        add_edge (edges, (guint) node->parent, i);
      if (x == NULL)
        continue;
      if (node->flags & NODE_PRODUCER)
        {
          ContextKey key = { x->producer_type, x->producer_id };
          const Context *c = g_hash_table_lookup (contexts, &key);

          if (c->hub != G_MAXUINT)
            add_edge (edges, i, c->hub);
        }
      if (node->flags & NODE_CONSUMER)
        {
          ContextKey key = { x->consumer_type, x->consumer_id };
          const Context *c = g_hash_table_lookup (contexts, &key);

          if (c->hub != G_MAXUINT)
            add_edge (edges, c->hub, i);
        }
      levels[i] = x->root_level;
      if (x->root_level != 0)
        {
          Root root = { node->start_ps, i };

          g_array_append_val (roots, root);
        }
    }
  adjacency_init (&children, edges, n_all, FALSE);
  adjacency_init (&parents, edges, n_all, TRUE);
  g_array_sort_with_data (roots, compare_roots, levels);

  for (guint r = 0; r < roots->len; r++)
    {
      guint root = g_array_index (roots, Root, r).node;
      const GroupNode *rn = &g_array_index (nodes, GroupNode, root);
      const NodeExtra *x = &g_array_index (gn->extras, NodeExtra, rn->extra);
      g_autoptr(GString) name = NULL;
      GroupRoot *gr;
      gint64 group;

      if (groups[root] >= 0 || has_ancestor_of_level (levels, &parents, root, seen, ++stamp, queue))
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

      name = g_string_new (x->prefix);
      g_string_append_printf (name, " %" G_GINT64_FORMAT, x->has_number ? x->number : group);
      gr = g_new0 (GroupRoot, 1);
      gr->start_ps = rn->start_ps;
      gr->ref = rn->ref;
      gr->name = _planar_derive_intern (dc->self, name->str);
      g_hash_table_insert (dc->group_roots, g_memdup2 (&group, sizeof group), gr);
    }

  for (guint i = 0; i < n; i++)
    {
      const GroupNode *node = &g_array_index (nodes, GroupNode, i);

      if ((node->flags & NODE_LAUNCH_STATS) && groups[i] >= 0)
        {
          PlanarEvent ev = { 0 };

          ev.start_ps = node->start_ps;
          ev.duration_ps = node->end_ps - node->start_ps;
          _planar_derive_add_launch (dc, node->device, groups[i], &ev, &node->ref);
        }
    }
  adjacency_clear (&children);
  adjacency_clear (&parents);
  return groups;
}

static int
compare_spans (gconstpointer a,
               gconstpointer b)
{
  const GroupSpan *x = a, *y = b;

  if (x->start_ps != y->start_ps)
    return x->start_ps < y->start_ps ? -1 : 1;
  return x->group_id < y->group_id ? -1 : x->group_id > y->group_id;
}

void
_planar_derive_groups_spans (DeriveContext         *dc,
                             GroupNodes            *gn,
                             const gint64          *groups,
                             const PlanarFlowIndex *flows)
{
  GArray *nodes = gn->nodes;
  PlanarTrace *self = dc->self;
  guint n_gpus = dc->gpu_planes->len;
  g_autofree gint *device_of = g_new (gint, MAX (self->n_planes, 1));
  g_autofree GHashTable **tables = g_new0 (GHashTable *, MAX (n_gpus, 1));
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (PlanarFlow));

  for (guint p = 0; p < self->n_planes; p++)
    device_of[p] = -1;
  for (guint d = 0; d < n_gpus; d++)
    {
      device_of[g_array_index (dc->gpu_planes, guint, d)] = (gint) d;
      tables[d] = g_hash_table_new_full (_planar_id_hash, _planar_id_equal, NULL, g_free);
    }

  for (guint i = 0; flows != NULL && i < nodes->len; i++)
    {
      const GroupNode *node = &g_array_index (nodes, GroupNode, i);

      if (!(node->flags & NODE_LAUNCH) || groups[i] < 0)
        continue;
      g_array_set_size (found, 0);
      planar_flow_index_query_event (flows, &node->ref, found);
      for (guint f = 0; f < found->len; f++)
        {
          const PlanarFlow *flow = &g_array_index (found, PlanarFlow, f);
          const PlanarEvent *ev;
          GroupSpan *span;
          gint device;

          if (flow->category != PLANAR_FLOW_CATEGORY_GPU_LAUNCH || planar_event_ref_is_none (&flow->to) ||
              flow->from.plane != node->ref.plane || flow->from.track != node->ref.track ||
              flow->from.index != node->ref.index)
            continue;
          device = device_of[flow->to.plane];
          if (device < 0)
            continue;
          ev = &self->planes[flow->to.plane].tracks[flow->to.track].events[flow->to.index];
          span = g_hash_table_lookup (tables[device], &groups[i]);
          if (span == NULL)
            {
              span = g_new0 (GroupSpan, 1);
              span->group_id = groups[i];
              span->start_ps = ev->start_ps;
              span->end_ps = ev->start_ps + ev->duration_ps;
              span->first = flow->to;
              g_hash_table_insert (tables[device], &span->group_id, span);
              continue;
            }
          if (ev->start_ps < span->start_ps)
            {
              span->start_ps = ev->start_ps;
              span->first = flow->to;
            }
          span->end_ps = MAX (span->end_ps, ev->start_ps + ev->duration_ps);
        }
    }

  dc->inferred_steps = g_new0 (GArray *, MAX (n_gpus, 1));
  for (guint d = 0; d < n_gpus; d++)
    {
      GHashTableIter iter;
      gpointer value;

      dc->inferred_steps[d] = g_array_new (FALSE, FALSE, sizeof (GroupSpan));
      g_hash_table_iter_init (&iter, tables[d]);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        g_array_append_vals (dc->inferred_steps[d], value, 1);
      g_array_sort (dc->inferred_steps[d], compare_spans);
      g_hash_table_unref (tables[d]);
    }
}

void
_planar_derive_groups_spans_free (GArray **spans,
                                  guint    n_gpus)
{
  if (spans == NULL)
    return;
  for (guint d = 0; d < n_gpus; d++)
    g_clear_pointer (&spans[d], g_array_unref);
  g_free (spans);
}
