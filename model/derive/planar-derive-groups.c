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
 * Here the host tracks' passes note only the events that can link a group:
 * roots, producers and consumers as nodes, each with the nearest node of
 * its thread that encloses it (enclosing is transitive, so the events
 * between them change no group), and launches apart, 20 bytes each, with
 * the node that encloses them: a launch encloses nothing that matters, so
 * its group is that node's. The groups then name themselves in the same
 * table as the file's (Launch Stats and Steps read it), the grouped
 * launches count for Launch Stats, and once the flows are indexed each GPU
 * gets, per group, the span from its first kernel (or copy) to the end of
 * its last, which the GPU pass publishes as its Steps line.
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
  /* A launch that counts for Launch Stats (a device, not a driver call). */
  LAUNCH_STATS = 1 << 2,
};

/* XProf leaves a context of this many producers and as many consumers
 * unlinked (a context id reused everywhere, not one step's). */
#define CONTEXT_FAN_MAX 64
/* How many nodes the search of a root's ancestors of its level visits at
 * most: a real profile's roots have a few dozen; a file made to nest
 * roots of many levels deep would otherwise cost roots x depth. */
#define ANCESTOR_SEARCH_MAX 65536

/* The most launches a track's array has room for before its first. */
#define LAUNCHES_RESERVED_MAX (4u << 20)

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
  PlanarEventRef ref;
  /* The node that encloses it, or -1. */
  gint32         parent;
  guint16        device;
  guint16        flags;
} Launch;

G_STATIC_ASSERT (sizeof (Launch) == 20);

struct _GroupNodes
{
  GArray    *nodes;
  /* Launch arrays, one per host track once merged (no copy). */
  GPtrArray *launches;
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
  self->launches = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  return self;
}

void
_planar_derive_group_nodes_free (GroupNodes *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->nodes);
  g_ptr_array_unref (self->launches);
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

  if (facts->has_correlation_id)
    {
      GArray *launches = g_ptr_array_index (gn->launches, 0);
      Launch launch = { *ref, parent, 0, 0 };

      if (facts->has_device_id && facts->device_id < dc->gpu_planes->len && !_planar_derive_is_driver_call (name))
        {
          launch.flags = LAUNCH_STATS;
          launch.device = (guint16) facts->device_id;
        }
      g_array_append_val (launches, launch);
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
    }
}

GArray *
_planar_derive_group_track_begin (GroupNodes *gn,
                                  gsize       n_events)
{
  /* Room for every event of the track, up to 80 MB: pages never written
   * cost nothing, and most tracks' arrays never move. */
  GArray *launches = g_array_sized_new (FALSE, FALSE, sizeof (Launch), (guint) MIN (n_events, LAUNCHES_RESERVED_MAX));

  g_ptr_array_insert (gn->launches, 0, launches);
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
  while (src->launches->len > 0)
    {
      GArray *launches = g_ptr_array_steal_index (src->launches, 0);

      for (guint i = 0; i < launches->len; i++)
        {
          Launch *launch = &g_array_index (launches, Launch, i);

          if (launch->parent >= 0)
            launch->parent += (gint32) base;
        }
      g_ptr_array_add (dst->launches, launches);
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

/* The group of @launch, from the node that encloses it. */
static inline gint64
launch_group (const Launch *launch,
              const gint64 *groups)
{
  return launch->parent >= 0 ? groups[launch->parent] : -1;
}

gint64 *
_planar_derive_groups_assign (DeriveContext *dc,
                              GroupNodes    *gn,
                              gint64        *n_groups)
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
  g_array_sort_with_data (roots, compare_roots, levels);

  for (guint r = 0; r < roots->len; r++)
    {
      guint root = g_array_index (roots, Root, r).node;
      const GroupNode *rn = &g_array_index (nodes, GroupNode, root);
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

      name = g_string_new (rn->prefix);
      g_string_append_printf (name, " %" G_GINT64_FORMAT, rn->has_number ? rn->number : group);
      gr = g_new0 (GroupRoot, 1);
      gr->start_ps = rn->start_ps;
      gr->ref = rn->ref;
      gr->name = _planar_derive_intern (dc->self, name->str);
      g_hash_table_insert (dc->group_roots, g_memdup2 (&group, sizeof group), gr);
    }

  /* The grouped launches' figures for Launch Stats. */
  for (guint a = 0; a < gn->launches->len; a++)
    {
      GArray *launches = g_ptr_array_index (gn->launches, a);

      for (guint i = 0; i < launches->len; i++)
        {
          const Launch *launch = &g_array_index (launches, Launch, i);
          gint64 group = launch_group (launch, groups);
          const PlanarEvent *ev;

          if (!(launch->flags & LAUNCH_STATS) || group < 0)
            continue;
          ev = &dc->self->planes[launch->ref.plane].tracks[launch->ref.track].events[launch->ref.index];
          _planar_derive_add_launch (dc, launch->device, group, ev, &launch->ref);
        }
    }
  adjacency_clear (&children);
  adjacency_clear (&parents);
  *n_groups = next_group;
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
                             gint64                 n_groups,
                             const PlanarFlowIndex *flows)
{
  PlanarTrace *self = dc->self;
  guint n_gpus = dc->gpu_planes->len;
  g_autofree gint *device_of = g_new (gint, MAX (self->n_planes, 1));
  gsize k = 0, n_by_from;

  /* Per GPU, a span for each group (group_id -1 until it has one). */
  dc->inferred_steps = g_new0 (GArray *, MAX (n_gpus, 1));
  for (guint p = 0; p < self->n_planes; p++)
    device_of[p] = -1;
  for (guint d = 0; d < n_gpus; d++)
    {
      device_of[g_array_index (dc->gpu_planes, guint, d)] = (gint) d;
      dc->inferred_steps[d] = g_array_sized_new (FALSE, FALSE, sizeof (GroupSpan), (guint) n_groups);
      g_array_set_size (dc->inferred_steps[d], (guint) n_groups);
      for (gint64 g = 0; g < n_groups; g++)
        g_array_index (dc->inferred_steps[d], GroupSpan, g).group_id = -1;
    }

  /* The launches are in event order, as the flows are by their from
   * ends: one walk over both pairs each launch with its kernels. */
  n_by_from = flows != NULL ? _planar_flow_index_get_n_by_from (flows) : 0;
  for (guint a = 0; a < gn->launches->len; a++)
    {
      GArray *launches = g_ptr_array_index (gn->launches, a);

      for (guint i = 0; i < launches->len; i++)
        {
          const Launch *launch = &g_array_index (launches, Launch, i);
          gint64 group = launch_group (launch, groups);
          PlanarEventRef from, to;
          guint category;
          int order = -1;

          while (k < n_by_from)
            {
              _planar_flow_index_get_by_from (flows, k, &from, &to, &category);
              order = planar_event_ref_compare (&from, &launch->ref);
              if (order >= 0)
                break;
              k++;
            }
          for (; k < n_by_from && order == 0; k++)
            {
              const PlanarEvent *ev;
              GroupSpan *span;
              gint device;

              _planar_flow_index_get_by_from (flows, k, &from, &to, &category);
              order = planar_event_ref_compare (&from, &launch->ref);
              if (order != 0)
                break;
              if (group < 0 || category != PLANAR_FLOW_CATEGORY_GPU_LAUNCH || planar_event_ref_is_none (&to))
                continue;
              device = device_of[to.plane];
              if (device < 0)
                continue;
              ev = &self->planes[to.plane].tracks[to.track].events[to.index];
              span = &g_array_index (dc->inferred_steps[device], GroupSpan, group);
              if (span->group_id < 0)
                {
                  span->group_id = group;
                  span->start_ps = ev->start_ps;
                  span->end_ps = ev->start_ps + ev->duration_ps;
                  span->first = to;
                  continue;
                }
              if (ev->start_ps < span->start_ps)
                {
                  span->start_ps = ev->start_ps;
                  span->first = to;
                }
              span->end_ps = MAX (span->end_ps, ev->start_ps + ev->duration_ps);
            }
        }
    }

  /* The groups each GPU ran, by start. */
  for (guint d = 0; d < n_gpus; d++)
    {
      GArray *spans = dc->inferred_steps[d];
      guint kept = 0;

      for (guint g = 0; g < spans->len; g++)
        if (g_array_index (spans, GroupSpan, g).group_id >= 0)
          g_array_index (spans, GroupSpan, kept++) = g_array_index (spans, GroupSpan, g);
      g_array_set_size (spans, kept);
      g_array_sort (spans, compare_spans);
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
