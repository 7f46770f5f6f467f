/* planar-flows-build.c: building the flow index of a trace from the flow
 * ends the derive pass finds (planar-flows.c says how they are paired and
 * what the index holds; it stores and queries it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-flows-index-private.h"
#include "planar-parallel.h"

#include <stdlib.h>
#include <string.h>

/* One end; @key is category << 56 | id. */
typedef struct
{
  guint64        key;
  gint64         start_ps;
  PlanarEventRef ref;
  guint32        direction;
} FlowEnd;

G_STATIC_ASSERT (sizeof (FlowEnd) == 32);

/* One end of a launch flow: the correlation id and the event's track and
 * index; its plane and whether it is a host end are its run's (LaunchRun:
 * a job's ends all share them), and its time is its event's start, read
 * from the trace when it is paired. Launch ends are most of a profile's
 * flow ends (one per kernel and one per launch call), 7 million at 10^7
 * events: at 16 bytes, not 24 with a whole reference, they are 56 MB
 * fewer at the pairing. */
typedef struct
{
  guint64 correlation_id;
  guint32 track;
  guint32 index;
} LaunchEnd;

G_STATIC_ASSERT (sizeof (LaunchEnd) == 16);

/* The launch ends [first, next run's first) are of @plane, host ends or
 * not. */
typedef struct
{
  gsize   first;
  guint16 plane;
  guint16 is_host;
} LaunchRun;

struct _PlanarFlowBuilder
{
  PlanarSpillArray *ends;
  PlanarSpillArray *launches;
  /* LaunchRun, by first. */
  GArray           *runs;
};

/* ------------------------------------------------------------------------ */
/* The builder */

/* The flow index is built in memory while the system has the memory for
 * it, also for a trace whose large arrays go to files (planar-spill.c),
 * and what it keeps is moved into files once it is built
 * (_planar_flow_builder_finish()). The pairing and the sorts write their
 * arrays out of order, and in a file each page first written costs two
 * faults, its zeroing and the file system's work: at 10^8 events, with
 * every array in files, the pairing took 30 times and the flow index 22
 * times their time at 10^7 (12.9 and 8.0 s), in memory 10 and 12 times.
 * The ends and flows of 10^8 events take about 2.5 GB while they are
 * paired, within issue 11's bound on anonymous memory (the file's size). */
static PlanarSpillMode
build_mode (PlanarSpillMode spill)
{
  return spill == PLANAR_SPILL_LARGE ? PLANAR_SPILL_WHEN_SHORT : spill;
}

PlanarFlowBuilder *
_planar_flow_builder_new (PlanarSpillMode spill)
{
  PlanarFlowBuilder *self = g_new0 (PlanarFlowBuilder, 1);

  spill = build_mode (spill);
  self->ends = planar_spill_array_new (sizeof (FlowEnd), spill);
  self->launches = planar_spill_array_new (sizeof (LaunchEnd), spill);
  self->runs = g_array_new (FALSE, FALSE, sizeof (LaunchRun));
  return self;
}

void
_planar_flow_builder_free (PlanarFlowBuilder *self)
{
  if (self == NULL)
    return;
  planar_spill_array_free (self->ends);
  planar_spill_array_free (self->launches);
  g_array_unref (self->runs);
  g_free (self);
}

void
_planar_flow_builder_add (PlanarFlowBuilder    *self,
                          guint                 category,
                          guint64               id,
                          PlanarFlowDirection   direction,
                          const PlanarEventRef *event,
                          gint64                start_ps)
{
  FlowEnd end;

  g_return_if_fail (category < PLANAR_FLOW_N_CATEGORIES);
  g_return_if_fail (direction >= PLANAR_FLOW_DIRECTION_IN &&
                    direction <= PLANAR_FLOW_DIRECTION_INOUT);

  end.key = (guint64) category << 56 | (id & FLOW_ID_MASK);
  end.start_ps = start_ps;
  end.ref = *event;
  end.direction = direction;
  planar_spill_array_append (self->ends, &end, 1);
}

void
_planar_flow_builder_add_launch (PlanarFlowBuilder    *self,
                                 guint64               correlation_id,
                                 gboolean              is_host,
                                 const PlanarEventRef *event)
{
  LaunchEnd end;
  LaunchRun run;

  end.correlation_id = correlation_id;
  end.track = event->track;
  end.index = event->index;
  run.first = self->launches->len;
  run.plane = event->plane;
  run.is_host = is_host != FALSE;
  if (self->runs->len == 0 || g_array_index (self->runs, LaunchRun, self->runs->len - 1).plane != run.plane
      || g_array_index (self->runs, LaunchRun, self->runs->len - 1).is_host != run.is_host)
    g_array_append_val (self->runs, run);
  planar_spill_array_append (self->launches, &end, 1);
}

/* The run of launch end @i. */
static inline const LaunchRun *
run_of (const PlanarFlowBuilder *self,
        gsize                    i)
{
  const LaunchRun *runs = (const LaunchRun *) (gpointer) self->runs->data;
  guint lo = 0, hi = self->runs->len;

  /* The last run whose first is at or before @i. */
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;

      if (runs[mid].first <= i)
        lo = mid;
      else
        hi = mid;
    }
  return &runs[lo];
}

static inline PlanarEventRef
launch_ref (const LaunchRun *run,
            const LaunchEnd *end)
{
  PlanarEventRef ref = { run->plane, 0, end->track, end->index };

  return ref;
}

/* Moves every array of @other after @self's (taking it whole when @self
 * has none: no copy). */
static void
take_array (PlanarSpillArray *self,
            PlanarSpillArray *other)
{
  if (self->len == 0 && self->spill == other->spill)
    {
      PlanarSpillArray swap = *self;

      *self = *other;
      *other = swap;
      return;
    }
  planar_spill_array_append (self, other->data, other->len);
}

void
_planar_flow_builder_take (PlanarFlowBuilder *self,
                           PlanarFlowBuilder *other)
{
  gsize offset = self->launches->len;

  take_array (self->ends, other->ends);
  take_array (self->launches, other->launches);
  for (guint r = 0; r < other->runs->len; r++)
    {
      LaunchRun run = g_array_index (other->runs, LaunchRun, r);
      const LaunchRun *last = self->runs->len > 0
        ? &g_array_index (self->runs, LaunchRun, self->runs->len - 1) : NULL;

      run.first += offset;
      if (last == NULL || last->plane != run.plane || last->is_host != run.is_host)
        g_array_append_val (self->runs, run);
    }
  _planar_flow_builder_free (other);
}

/* ------------------------------------------------------------------------ */
/* Sorting millions of items: a stable radix sort of (key, value) pairs by
 * 11-bit digits, skipping the digits every key shares. glibc's qsort()
 * moves whole elements through a generic merge sort and compares through a
 * function pointer; this is a few linear passes. */

typedef struct
{
  guint64 key;
  guint64 value;
} SortItem;

/* The sorts' scratch and the other arrays that live only while the flow
 * index is built (sort items, new positions, keys, chains) stay on the
 * heap even when the index is in files, unless the system is short of
 * memory: they are written in scattered order, which in a file-backed
 * mapping faults and dirties pages at random and leaves the kernel
 * writeback to do for memory freed moments later. Only the arrays the
 * index keeps go to files, written in order. */
#define SCRATCH PLANAR_SPILL_WHEN_SHORT

static void
radix_sort (SortItem *items,
            gsize     n)
{
  SortItem *tmp;
  g_autofree gsize *count = NULL;
  SortItem *src = items, *dst;
  guint64 min = G_MAXUINT64, max = 0;

  if (n < 2)
    return;
  for (gsize i = 0; i < n; i++)
    {
      min = MIN (min, items[i].key);
      max = MAX (max, items[i].key);
    }
  tmp = planar_spill_alloc (n * sizeof (SortItem), SCRATCH);
  count = g_new (gsize, 2048);
  dst = tmp;
  /* Keys relative to the smallest need only the digits of max - min. */
  for (guint shift = 0; shift < 64 && ((max - min) >> shift) != 0; shift += 11)
    {
      gsize at = 0;

      memset (count, 0, 2048 * sizeof (gsize));
      for (gsize i = 0; i < n; i++)
        count[((src[i].key - min) >> shift) & 2047]++;
      for (guint b = 0; b < 2048; b++)
        {
          gsize c = count[b];

          count[b] = at;
          at += c;
        }
      for (gsize i = 0; i < n; i++)
        dst[count[((src[i].key - min) >> shift) & 2047]++] = src[i];
      {
        SortItem *swap = src;

        src = dst;
        dst = swap;
      }
    }
  if (src != items)
    memcpy (items, src, n * sizeof (SortItem));
  planar_spill_free (tmp);
}

/* ------------------------------------------------------------------------ */
/* Pairing */

#define NO_FLOW G_MAXUINT32

typedef struct
{
  PlanarSpillArray flows;
  /* Per flow: the next flow of the same from end (for by_from), or
   * NO_FLOW. */
  PlanarSpillArray next_from;
} Paired;

static gsize
add_flow (Paired               *paired,
          guint64               id,
          guint                 category,
          const PlanarEventRef *from,
          const PlanarEventRef *to)
{
  guint32 none = NO_FLOW;
  Flow f;

  memset (&f, 0, sizeof f);
  f.key = (guint64) category << 56 | (id & FLOW_ID_MASK);
  f.from = from != NULL ? *from : no_event;
  f.to = to != NULL ? *to : no_event;
  planar_spill_array_append (&paired->flows, &f, 1);
  planar_spill_array_append (&paired->next_from, &none, 1);
  return paired->flows.len - 1;
}

static int
compare_ends (const void *pa,
              const void *pb)
{
  const FlowEnd *a = pa, *b = pb;

  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  if (a->start_ps != b->start_ps)
    return a->start_ps < b->start_ps ? -1 : 1;
  return compare_refs (&a->ref, &b->ref);
}

static inline guint
end_bucket (const FlowEnd *end)
{
  return (guint) (mix64 (end->key) >> 48);
}

/* Sorts @ends by compare_ends(). Keys are hashes, so ordering the ends by
 * a 16-bit hash of the key (two stable byte passes) leaves runs of a few
 * ends that sort in cache. Every end of one key lands in one run, which is
 * all the pairing needs. */
static void
sort_ends (FlowEnd  *ends,
           gsize     n)
{
  FlowEnd *tmp;

  if (n < 2)
    return;
  tmp = planar_spill_alloc (n * sizeof (FlowEnd), SCRATCH);
  for (guint shift = 0; shift < 16; shift += 8)
    {
      const FlowEnd *src = shift == 0 ? ends : tmp;
      FlowEnd *dst = shift == 0 ? tmp : ends;
      gsize count[256] = { 0 }, at = 0;

      for (gsize i = 0; i < n; i++)
        count[(end_bucket (&src[i]) >> shift) & 0xff]++;
      for (guint b = 0; b < 256; b++)
        {
          gsize c = count[b];

          count[b] = at;
          at += c;
        }
      for (gsize i = 0; i < n; i++)
        dst[count[(end_bucket (&src[i]) >> shift) & 0xff]++] = src[i];
    }
  planar_spill_free (tmp);

  for (gsize begin = 0, end; begin < n; begin = end)
    {
      guint bucket = end_bucket (&ends[begin]);

      for (end = begin + 1; end < n && end_bucket (&ends[end]) == bucket; end++)
        ;
      if (end - begin > 1)
        qsort (ends + begin, end - begin, sizeof (FlowEnd), compare_ends);
    }
}

/* Pairs the ends [@begin, @end) of one key, sorted by time. */
static void
pair_group (const FlowEnd *ends,
            gsize          begin,
            gsize          end,
            guint8        *used,
            Paired        *paired)
{
  guint64 id = ends[begin].key & FLOW_ID_MASK;
  guint category = (guint) (ends[begin].key >> 56);
  gssize first_out = -1, second_out = -1, last_out = -1;

  for (gsize i = begin; i < end; i++)
    if (ends[i].direction & PLANAR_FLOW_DIRECTION_OUT)
      {
        if (first_out < 0)
          first_out = (gssize) i;
        else if (second_out < 0)
          second_out = (gssize) i;
      }

  for (gsize i = begin; i < end; i++)
    {
      if (ends[i].direction & PLANAR_FLOW_DIRECTION_IN)
        {
          gssize from = last_out;

          if (from < 0)
            from = first_out != (gssize) i ? first_out : second_out;
          if (from >= 0)
            {
              add_flow (paired, id, category, &ends[from].ref, &ends[i].ref);
              used[from] = 1;
            }
          else
            add_flow (paired, id, category, NULL, &ends[i].ref);
        }
      if (ends[i].direction & PLANAR_FLOW_DIRECTION_OUT)
        last_out = (gssize) i;
    }

  for (gsize i = begin; i < end; i++)
    if ((ends[i].direction & PLANAR_FLOW_DIRECTION_OUT) && !used[i])
      add_flow (paired, id, category, &ends[i].ref, NULL);
}

static void
pair_generic (PlanarSpillArray *ends_array,
              Paired           *paired)
{
  FlowEnd *ends = (FlowEnd *) (gpointer) ends_array->data;
  gsize n = ends_array->len;
  g_autofree guint8 *used = g_new0 (guint8, MAX (n, 1));

  sort_ends (ends, n);
  for (gsize begin = 0, end; begin < n; begin = end)
    {
      for (end = begin + 1; end < n && ends[end].key == ends[begin].key; end++)
        ;
      pair_group (ends, begin, end, used, paired);
    }
}

/* The start of the (file) event @ref names: a launch end's time. */
static inline gint64
launch_start (PlanarTrace          *trace,
              const PlanarEventRef *ref)
{
  return trace->planes[ref->plane].tracks[ref->track].events[ref->index].start_ps;
}

/* The slot of @end's correlation id (see pair_launches()), G_MAXUINT32
 * without a table. */
static inline guint32
launch_slot (const guint32   *slots,
             guint64          min,
             guint64          max,
             const LaunchEnd *end)
{
  if (slots == NULL)
    return G_MAXUINT32;
  return end->correlation_id >= min && end->correlation_id <= max ? slots[end->correlation_id - min] : 0;
}

/* How many launch ends (of 16 bytes: 8 MiB) the pairing gives back at a
 * time. */
#define SHRINK_EVERY ((gsize) 1 << 19)

/* Once the table is built, a host end is only its event: its run's host
 * ends are rewritten in place as (track, index) pairs of 8 bytes, the
 * first half of the run's bytes, and the second half is given back
 * (planar_spill_discard()). The pair of host end @local of @run: */
static inline PlanarEventRef
host_ref (const LaunchEnd *launches,
          const LaunchRun *run,
          gsize            local)
{
  guint32 pair[2];
  PlanarEventRef ref = { run->plane, 0, 0, 0 };

  memcpy (pair, (const guint8 *) &launches[run->first] + local * sizeof pair, sizeof pair);
  ref.track = pair[0];
  ref.index = pair[1];
  return ref;
}

/* Rewrites the host ends of @run (@n of them) as host_ref() reads them
 * and gives back the bytes that frees. */
static void
shrink_host_run (LaunchEnd       *launches,
                 const LaunchRun *run,
                 gsize            n)
{
  guint8 *base = (guint8 *) &launches[run->first];

  /* Pair j lands where end j / 2 was, which is read already. */
  for (gsize j = 0; j < n; j++)
    {
      guint32 pair[2] = { launches[run->first + j].track, launches[run->first + j].index };

      memcpy (base + j * sizeof pair, pair, sizeof pair);
    }
  planar_spill_discard (launches, run->first * sizeof (LaunchEnd) + n * 2 * sizeof (guint32),
                        n * (sizeof (LaunchEnd) - 2 * sizeof (guint32)));
}

/* Pairs the launch ends: each device end with the host end of its
 * correlation id. Ends whose id the table cannot serve (sparse ids, or one
 * id on several host events) go to @generic. Returns, per host end in the
 * launches' order, its first flow (NO_FLOW if none; the others follow
 * through paired->next_from), to be freed with planar_spill_free(), and
 * their number in *@n_host_out; the first *@n_device_out flows it adds
 * are the device ends' (every one with a to end, in the order of their to
 * ends). The host ends shrink to their events once the table is built,
 * and the launch ends past the last host end are given back as their
 * flows are made. */
static guint32 *
pair_launches (PlanarFlowBuilder *builder,
               PlanarTrace       *trace,
               guint64            host_id,
               Paired            *paired,
               PlanarSpillArray  *generic,
               gsize             *n_host_out,
               gsize             *n_device_out)
{
  LaunchEnd *launches = (LaunchEnd *) (gpointer) builder->launches->data;
  const LaunchRun *runs = (const LaunchRun *) (gpointer) builder->runs->data;
  gsize n = builder->launches->len, n_host = 0;
  guint64 min = G_MAXUINT64, max = 0;
  guint32 *slots = NULL;
  g_autofree gsize *host_base = g_new (gsize, MAX (builder->runs->len, 1));
  guint32 *first_flow, *next_from;
  guint64 range;
  guint r, n_runs = builder->runs->len;
  gsize n_device = 0, first, at, host_end = 0, kept = n;
  gboolean shrink = !planar_spill_is_mapped (launches) && n > 0;
  Flow *flows;

  /* Host ends are numbered 0, 1, 2... in the launches' order: the k-th
   * is in the host run r with host_base[r] <= k. */
  for (r = 0; r < n_runs; r++)
    {
      host_base[r] = n_host;
      if (runs[r].is_host)
        {
          gsize end = r + 1 < n_runs ? runs[r + 1].first : n;

          for (gsize i = runs[r].first; i < end; i++)
            {
              n_host++;
              min = MIN (min, launches[i].correlation_id);
              max = MAX (max, launches[i].correlation_id);
            }
          if (end > runs[r].first)
            host_end = end;
        }
    }
  /* Like the table below, from planar-spill.c: a block of its own in
   * huge pages once it is large, where the allocator's pages fault in 4
   * kB at a time. */
  first_flow = planar_spill_alloc (MAX (n_host, 1) * sizeof (guint32), PLANAR_SPILL_NEVER);
  for (gsize k = 0; k < n_host; k++)
    first_flow[k] = NO_FLOW;

  /* A direct table (slot = the host end's index in the launches + 1, 0
   * when empty, G_MAXUINT32 for an id on several host ends) when it costs
   * at most a few words per launch. */
  range = n_host > 0 ? max - min : 0;
  if (n_host > 0 && n < G_MAXUINT32 - 1 && range < (guint64) n_host * 4 + 1024)
    {
      slots = planar_spill_alloc ((range + 1) * sizeof (guint32), PLANAR_SPILL_NEVER);
      memset (slots, 0, (range + 1) * sizeof (guint32));
      for (r = 0; r < n_runs; r++)
        if (runs[r].is_host)
          {
            gsize end = r + 1 < n_runs ? runs[r + 1].first : n;

            for (gsize i = runs[r].first; i < end; i++)
              {
                guint32 *slot = &slots[launches[i].correlation_id - min];

                *slot = *slot == 0 ? (guint32) (i + 1) : G_MAXUINT32;
              }
          }
    }

  /* The ends the table cannot serve go to the other ends, in order; the
   * device ends it serves are counted, and the host ends they feed marked
   * (0 in first_flow). */
  r = 0;
  for (gsize i = 0; i < n; i++)
    {
      const LaunchEnd *end = &launches[i];
      guint32 slot;

      while (r + 1 < n_runs && runs[r + 1].first <= i)
        r++;
      slot = launch_slot (slots, min, max, end);
      if (slot == G_MAXUINT32)
        {
          PlanarEventRef ref = launch_ref (&runs[r], end);
          FlowEnd fe;

          fe.key = (guint64) PLANAR_FLOW_CATEGORY_GPU_LAUNCH << 56
                   | _planar_flow_make_id (host_id, end->correlation_id, PLANAR_FLOW_CATEGORY_GPU_LAUNCH);
          fe.start_ps = launch_start (trace, &ref);
          fe.ref = ref;
          fe.direction = runs[r].is_host ? PLANAR_FLOW_DIRECTION_OUT : PLANAR_FLOW_DIRECTION_IN;
          planar_spill_array_append (generic, &fe, 1);
        }
      else if (!runs[r].is_host)
        {
          n_device++;
          if (slot != 0)
            {
              const LaunchRun *hr = run_of (builder, slot - 1);

              first_flow[host_base[hr - runs] + (slot - 1 - hr->first)] = 0;
            }
        }
    }

  /* One flow per device end served, in the ends' order, then one per host
   * end that feeds none (its id on no other host end), in theirs. */
  first = paired->flows.len;
  planar_spill_array_reserve (&paired->flows, n_device);
  planar_spill_array_reserve (&paired->next_from, n_device);
  paired->flows.len += n_device;
  paired->next_from.len += n_device;
  for (r = 0; r < n_runs && slots != NULL; r++)
    if (runs[r].is_host)
      {
        gsize end = r + 1 < n_runs ? runs[r + 1].first : n;

        for (gsize i = runs[r].first; i < end; i++)
          {
            const LaunchEnd *host = &launches[i];
            gsize k = host_base[r] + (i - runs[r].first);

            if (first_flow[k] == 0)
              first_flow[k] = NO_FLOW;
            else if (slots[host->correlation_id - min] != G_MAXUINT32)
              {
                PlanarEventRef ref = launch_ref (&runs[r], host);
                guint64 id = _planar_flow_make_id (host_id, host->correlation_id,
                                                   PLANAR_FLOW_CATEGORY_GPU_LAUNCH);

                first_flow[k] = (guint32) add_flow (paired, id, PLANAR_FLOW_CATEGORY_GPU_LAUNCH, &ref, NULL);
              }
          }
        shrink_host_run (launches, &runs[r], end - runs[r].first);
      }

  /* The device ends' flows are made from the last end back, so that the
   * ends behind it (past the last host end) can be given back as the flows
   * take their place, and chained per host end in that order by putting
   * each in front. */
  flows = (Flow *) (gpointer) paired->flows.data;
  next_from = (guint32 *) (gpointer) paired->next_from.data;
  at = first + n_device;
  r = n_runs > 0 ? n_runs - 1 : 0;
  for (gsize i = n; i-- > 0;)
    {
      const LaunchEnd *end = &launches[i];
      guint32 slot;
      Flow *f;

      while (r > 0 && runs[r].first > i)
        r--;
      if (shrink && i >= host_end && kept - i >= SHRINK_EVERY)
        {
          /* A block in memory shrinks in place: its tail goes back. */
          launches = planar_spill_renew (launches, (i + 1) * sizeof (LaunchEnd),
                                         MAX (i + 1, 1) * sizeof (LaunchEnd),
                                         PLANAR_SPILL_NEVER);
          builder->launches->data = (guint8 *) launches;
          builder->launches->len = builder->launches->capacity = kept = i + 1;
          end = &launches[i];
        }
      if (runs[r].is_host || (slot = launch_slot (slots, min, max, end)) == G_MAXUINT32)
        continue;
      f = &flows[--at];
      f->key = (guint64) PLANAR_FLOW_CATEGORY_GPU_LAUNCH << 56
               | _planar_flow_make_id (host_id, end->correlation_id, PLANAR_FLOW_CATEGORY_GPU_LAUNCH);
      f->to = launch_ref (&runs[r], end);
      if (slot == 0)
        {
          f->from = no_event;
          next_from[at] = NO_FLOW;
        }
      else
        {
          gsize host = slot - 1;
          const LaunchRun *hr = run_of (builder, host);
          gsize k = host_base[hr - runs] + (host - hr->first);

          f->from = host_ref (launches, hr, host - hr->first);
          next_from[at] = first_flow[k];
          first_flow[k] = (guint32) at;
        }
    }
  g_assert (at == first);
  planar_spill_free (slots);
  *n_host_out = n_host;
  *n_device_out = n_device;
  return first_flow;
}

/* Returns the elements of @array (@n of @size bytes) in the order @order
 * gives (element i is element order[i].value of @array), freeing @array.
 * For an array in a file (planar-spill.c): there, writes in the order of
 * a permutation's cycles fault and dirty its pages at random (a 10^8-event
 * load spent minutes on them), where a copy writes one page after the
 * other, and a file-backed copy costs no anonymous memory. */
static gpointer
gather (gpointer         array,
        gsize            size,
        const SortItem  *order,
        gsize            n,
        PlanarSpillMode  spill)
{
  guint8 *out = planar_spill_alloc (MAX (n, 1) * size, spill);

  for (gsize i = 0; i < n; i++)
    memcpy (out + i * size, (const guint8 *) array + order[i].value * size, size);
  planar_spill_free (array);
  return out;
}

/* gather() with the order as flow indices. */
static gpointer
gather_flows (Flow            *flows,
              const guint32   *order,
              gsize            n,
              PlanarSpillMode  spill)
{
  Flow *out = planar_spill_alloc (MAX (n, 1) * sizeof (Flow), spill);

  for (gsize i = 0; i < n; i++)
    out[i] = flows[order[i]];
  planar_spill_free (flows);
  return out;
}

/* The flows with a to end, by it, as positions in the time order
 * (@new_index): the launch flows 0 to @n_launch (in that order already)
 * merged with @generic_order's. */
static guint32 *
by_to_in_time_order (const PlanarFlowIndex *self,
                     gsize                  n_launch,
                     GArray                *generic_order,
                     const guint32         *new_index,
                     PlanarSpillMode        spill)
{
  guint32 *generic = (guint32 *) (gpointer) generic_order->data;
  gsize n_b = generic_order->len, i = 0, j = 0, k = 0;
  guint32 *out = planar_spill_alloc (MAX (n_launch + n_b, 1) * sizeof (guint32), spill);

  for (gsize g = 0; g < n_b; g++)
    generic[g] = new_index[generic[g]];
  while (i < n_launch || j < n_b)
    {
      gboolean take_a = j == n_b;

      if (i < n_launch && j < n_b)
        take_a = compare_refs (&self->flows[new_index[i]].to, &self->flows[generic[j]].to) <= 0;
      out[k++] = take_a ? new_index[i++] : generic[j++];
    }
  return out;
}

/* Puts the flows in the order @order gives (flow i becomes what flow
 * order[i] was), in place, following each cycle of the permutation: a
 * copy would add 32 bytes a flow to the load's peak memory. @order is
 * left as the identity. */
static void
permute_flows (PlanarFlowIndex *self,
               guint32         *order)
{
  for (gsize i = 0; i < self->n_flows; i++)
    {
      Flow flow;
      gsize j = i;

      if (order[i] == i)
        continue;
      flow = self->flows[i];
      for (;;)
        {
          gsize k = order[j];

          order[j] = (guint32) j;
          if (k == i)
            {
              self->flows[j] = flow;
              break;
            }
          self->flows[j] = self->flows[k];
          j = k;
        }
    }
}

/* Flows a huge page holds: the unit in which a copy in time order gives
 * the flows' old pages back (below). */
#define RELEASE_CHUNK_FLOWS ((gsize) (2 << 20) / sizeof (Flow))

/* What a copy in the order @order would hold beyond the flows' own
 * memory at its worst: the copy's pages touched so far, less the old
 * array's huge pages already given back (each once every flow on it is
 * copied). @left gets the count of flows on each huge page. When the
 * flows come in time order stream by stream (a GPU's kernels are), the
 * copy reads a few places that advance page by page, and this is a few
 * huge pages; in no order at all it is the whole array. */
static gsize
copy_overshoot (const guint32 *order,
                gsize          n,
                guint32       *left,
                gsize          n_chunks)
{
  gsize closed = 0, worst = 0;

  memset (left, 0, n_chunks * sizeof (guint32));
  for (gsize i = 0; i < n; i++)
    left[order[i] / RELEASE_CHUNK_FLOWS]++;
  for (gsize i = 0; i < n; i++)
    {
      gsize touched = i / RELEASE_CHUNK_FLOWS + 1;

      if (--left[order[i] / RELEASE_CHUNK_FLOWS] == 0)
        closed++;
      if (touched > closed)
        worst = MAX (worst, touched - closed);
    }
  return worst * RELEASE_CHUNK_FLOWS * sizeof (Flow);
}

/* The most a copy in time order may hold beyond the flows' own memory:
 * an eighth of the flows' bytes, 32 MiB at least (the 10^7-event
 * planar-gen profile needs 18 MiB of its 107 MiB of flows), unless a test
 * says otherwise. */
static gsize copy_budget_for_test = G_MAXSIZE;
static guint n_copied;

void
_planar_flow_index_set_copy_budget (gsize n_bytes)
{
  copy_budget_for_test = n_bytes;
}

guint
_planar_flow_index_get_n_copied (void)
{
  return g_atomic_int_get (&n_copied);
}

static gsize
copy_budget (gsize n)
{
  if (copy_budget_for_test != G_MAXSIZE)
    return copy_budget_for_test;
  return MAX ((gsize) 32 << 20, n * sizeof (Flow) / 8);
}

/* Puts the flows in the order @order gives by copying them, giving each
 * huge page of the old array back as soon as its last flow is copied,
 * when the old array is a mapping of its own in memory (planar-spill.c)
 * and that costs at most @budget bytes beyond the flows' own memory
 * (copy_overshoot()). The copy reads the old flows in a few streams and
 * writes the new ones in order, where following the permutation's cycles
 * in place (permute_flows()) waits on memory at every flow: half of the
 * flow index's time at 10^7 events. FALSE, doing nothing, otherwise. */
static gboolean
copy_flows_releasing (PlanarFlowIndex *self,
                      const guint32   *order,
                      gsize            budget,
                      PlanarSpillMode  spill)
{
  gsize n = self->n_flows;
  gsize n_chunks = (n + RELEASE_CHUNK_FLOWS - 1) / RELEASE_CHUNK_FLOWS;
  g_autofree guint32 *left = NULL;
  Flow *out;

  if (n < RELEASE_CHUNK_FLOWS || !planar_spill_can_discard (self->flows))
    return FALSE;
  left = g_new (guint32, n_chunks);
  if (copy_overshoot (order, n, left, n_chunks) > budget)
    return FALSE;
  out = planar_spill_alloc (n * sizeof (Flow), spill);
  if (!planar_spill_can_discard (out))
    {
      planar_spill_free (out);
      return FALSE;
    }
  for (gsize c = 0; c < n_chunks; c++)
    left[c] = (guint32) MIN (RELEASE_CHUNK_FLOWS, n - c * RELEASE_CHUNK_FLOWS);
  for (gsize i = 0; i < n; i++)
    {
      gsize c = order[i] / RELEASE_CHUNK_FLOWS;

      out[i] = self->flows[order[i]];
      if (--left[c] == 0)
        planar_spill_discard (self->flows, c * RELEASE_CHUNK_FLOWS * sizeof (Flow),
                              RELEASE_CHUNK_FLOWS * sizeof (Flow));
    }
  planar_spill_free (self->flows);
  self->flows = out;
  g_atomic_int_inc (&n_copied);
  return TRUE;
}

/* The flows among [@first, @n) of @flows with a from (@from) or a to end,
 * sorted by it. */
static GArray *
sorted_by_end (const Flow      *flows,
               gsize            first,
               gsize            n,
               gboolean         from,
               PlanarSpillMode  spill)
{
  SortItem *items = planar_spill_alloc (MAX (n - first, 1) * sizeof (SortItem), SCRATCH);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint32));
  gsize m = 0;

  for (gsize i = first; i < n; i++)
    {
      const PlanarEventRef *ref = from ? &flows[i].from : &flows[i].to;

      if (planar_event_ref_is_none (ref))
        continue;
      items[m].value = i;
      items[m].key = ref->index;
      m++;
    }
  /* Least significant field first; the sort is stable. */
  radix_sort (items, m);
  for (gsize i = 0; i < m; i++)
    {
      const Flow *f = &flows[items[i].value];
      const PlanarEventRef *ref = from ? &f->from : &f->to;

      items[i].key = (guint64) ref->plane << 32 | ref->track;
    }
  radix_sort (items, m);
  for (gsize i = 0; i < m; i++)
    {
      guint32 v = (guint32) items[i].value;

      g_array_append_val (out, v);
    }
  planar_spill_free (items);
  return out;
}

/* Merges two arrays of flow indices, each sorted by the from (@from) or to
 * end, into @out. */
static void
merge_by_end (const Flow    *flows,
              const guint32 *a,
              gsize          n_a,
              const guint32 *b,
              gsize          n_b,
              gboolean       from,
              guint32       *out)
{
  gsize i = 0, j = 0, k = 0;

  while (i < n_a || j < n_b)
    {
      gboolean take_a = j == n_b;

      if (i < n_a && j < n_b)
        take_a = compare_refs (from ? &flows[a[i]].from : &flows[a[i]].to,
                               from ? &flows[b[j]].from : &flows[b[j]].to) <= 0;
      out[k++] = take_a ? a[i++] : b[j++];
    }
}

/* The order by end of the launch flows (@launch_order, @n_launch of them,
 * taken, a block for @spill) merged with that of the others: the launch
 * flows' own block when there are no others (no copy). */
static guint32 *
merged_by_end (const Flow       *flows,
               guint32          *launch_order,
               gsize             n_launch,
               GArray           *generic_order,
               gboolean          from,
               PlanarSpillMode   spill)
{
  gsize n = n_launch + generic_order->len;
  guint32 *out;

  if (generic_order->len == 0)
    return launch_order;
  out = planar_spill_alloc (MAX (n, 1) * sizeof (guint32), spill);
  merge_by_end (flows, launch_order, n_launch,
                (guint32 *) (gpointer) generic_order->data, generic_order->len,
                from, out);
  planar_spill_free (launch_order);
  return out;
}

static gboolean
launches_in_ref_order (PlanarFlowBuilder *self)
{
  const LaunchEnd *launches = (const LaunchEnd *) (gpointer) self->launches->data;
  const LaunchRun *runs = (const LaunchRun *) (gpointer) self->runs->data;
  PlanarEventRef previous = no_event;
  guint r = 0;

  for (gsize i = 0; i < self->launches->len; i++)
    {
      PlanarEventRef ref;

      while (r + 1 < self->runs->len && runs[r + 1].first <= i)
        r++;
      ref = launch_ref (&runs[r], &launches[i]);
      if (i > 0 && compare_refs (&previous, &ref) > 0)
        return FALSE;
      previous = ref;
    }
  return TRUE;
}

/* Puts the @n launch ends of one plane in event order when each track's
 * come in index order (as a pass visiting the plane in time order records
 * them): a stable counting sort by track into a new array, which it
 * returns, freeing @launches. The ends are read in order and each track's
 * are written in order, a few streams of writes (a plane has few tracks);
 * following the permutation's cycles in place, which it did, spent most
 * of its time waiting on memory, 4% of a 10^7-event load's CPU time. NULL,
 * with @launches untouched, when a track's ends are out of order. */
static LaunchEnd *
sort_launches_by_track (LaunchEnd       *launches,
                        gsize            n,
                        PlanarSpillMode  spill)
{
  g_autofree gsize *next = NULL;
  g_autofree guint32 *last = NULL;
  LaunchEnd *out;
  guint32 max_track = 0;
  gsize at = 0;

  if (n >= G_MAXUINT32)
    return NULL;
  for (gsize i = 0; i < n; i++)
    max_track = MAX (max_track, launches[i].track);
  /* A table per track: no bigger than the ends. */
  if ((gsize) max_track >= n)
    return NULL;
  next = g_new0 (gsize, (gsize) max_track + 1);
  last = g_new (guint32, (gsize) max_track + 1);
  memset (last, 0xff, ((gsize) max_track + 1) * sizeof (guint32));
  for (gsize i = 0; i < n; i++)
    {
      guint32 t = launches[i].track;

      if (last[t] != G_MAXUINT32 && launches[i].index <= last[t])
        return NULL;
      last[t] = launches[i].index;
      next[t]++;
    }
  for (gsize t = 0; t <= max_track; t++)
    {
      gsize c = next[t];

      next[t] = at;
      at += c;
    }
  out = planar_spill_alloc (MAX (n, 1) * sizeof (LaunchEnd), spill);
  for (gsize i = 0; i < n; i++)
    out[next[launches[i].track]++] = launches[i];
  planar_spill_free (launches);
  return out;
}

/* A launch end with its run's plane and kind, for the sort of ends of
 * several runs. */
typedef struct
{
  LaunchEnd      end;
  PlanarEventRef ref;
  guint32        is_host;
} FullLaunchEnd;

static int
compare_full_launches (const void *pa,
                       const void *pb)
{
  return compare_refs (&((const FullLaunchEnd *) pa)->ref, &((const FullLaunchEnd *) pb)->ref);
}

/* Sorts the launch ends of several runs: through copies with their
 * plane (a builder's ends all have one plane, so only a merged builder
 * out of order comes here). */
static void
sort_launch_runs (PlanarFlowBuilder *self)
{
  LaunchEnd *launches = (LaunchEnd *) (gpointer) self->launches->data;
  gsize n = self->launches->len;
  FullLaunchEnd *full = g_new (FullLaunchEnd, n);
  guint r = 0;

  for (gsize i = 0; i < n; i++)
    {
      const LaunchRun *runs = (const LaunchRun *) (gpointer) self->runs->data;

      while (r + 1 < self->runs->len && runs[r + 1].first <= i)
        r++;
      full[i].end = launches[i];
      full[i].ref = launch_ref (&runs[r], &launches[i]);
      full[i].is_host = runs[r].is_host;
    }
  /* One launch end per event: no two compare equal. */
  qsort (full, n, sizeof (FullLaunchEnd), compare_full_launches);
  g_array_set_size (self->runs, 0);
  for (gsize i = 0; i < n; i++)
    {
      LaunchRun run = { i, full[i].ref.plane, (guint16) full[i].is_host };

      launches[i] = full[i].end;
      if (self->runs->len == 0 || g_array_index (self->runs, LaunchRun, self->runs->len - 1).plane != run.plane
          || g_array_index (self->runs, LaunchRun, self->runs->len - 1).is_host != run.is_host)
        g_array_append_val (self->runs, run);
    }
  g_free (full);
}

void
_planar_flow_builder_sort_launches (PlanarFlowBuilder *self)
{
  LaunchEnd *launches = (LaunchEnd *) (gpointer) self->launches->data;
  gsize n = self->launches->len;
  PlanarSpillMode spill = self->launches->spill;
  SortItem *items;

  if (launches_in_ref_order (self))
    return;
  if (self->runs->len > 1)
    {
      sort_launch_runs (self);
      return;
    }
  if (!planar_spill_is_mapped (launches))
    {
      LaunchEnd *sorted = sort_launches_by_track (launches, n, spill);

      if (sorted != NULL)
        {
          self->launches->data = (guint8 *) sorted;
          self->launches->capacity = MAX (n, 1);
          return;
        }
    }
  /* One run, one plane: (track, index) is the whole order. */
  items = planar_spill_alloc (n * sizeof (SortItem), SCRATCH);
  for (gsize i = 0; i < n; i++)
    {
      items[i].key = (guint64) launches[i].track << 32 | launches[i].index;
      items[i].value = i;
    }
  radix_sort (items, n);
  if (planar_spill_is_mapped (launches))
    {
      self->launches->data = gather (launches, sizeof (LaunchEnd), items, n, spill);
      self->launches->capacity = n;
      planar_spill_free (items);
      return;
    }
  /* On the heap, in place, as the flows are put in time order. */
  for (gsize i = 0; i < n; i++)
    {
      LaunchEnd first;
      gsize j = i;

      if (items[i].value == i)
        continue;
      first = launches[i];
      for (;;)
        {
          gsize k = (gsize) items[j].value;

          items[j].value = j;
          if (k == i)
            {
              launches[j] = first;
              break;
            }
          launches[j] = launches[k];
          j = k;
        }
    }
  planar_spill_free (items);
}

/* The end of a flow index built in memory for a trace whose arrays are
 * in files (_planar_flow_builder_finish()): the flows' copy into their
 * file (job 0, the larger: about 2.2 GB at 10^8 events, written by the
 * kernel into new page-cache pages) beside the orders' copies and the
 * counts and time indices (job 1), which read the flows in memory. */
typedef struct
{
  PlanarFlowIndex *self;
  PlanarTrace     *trace;
  /* The flows' copy in a file, or NULL where they stay. */
  gpointer         flows_file;
} FinishJobs;

static gboolean
finish_job (guint          job,
            gpointer       data,
            GCancellable  *cancellable,
            GError       **error)
{
  FinishJobs *jobs = data;
  PlanarFlowIndex *self = jobs->self;
  PlanarSpillMode spill = jobs->trace->spill;

  if (job == 0)
    {
      jobs->flows_file = planar_spill_copy_to_file (self->flows, MAX (self->n_flows, 1) * sizeof (Flow), spill);
      return TRUE;
    }
  self->by_from = planar_spill_take (self->by_from, MAX (self->n_by_from, 1) * sizeof (guint32), spill);
  self->by_to = planar_spill_take (self->by_to, MAX (self->n_by_to, 1) * sizeof (guint32), spill);
  _planar_flow_index_finish (self, jobs->trace);
  return TRUE;
}

/* How many host ends ahead the walk of the launch chains fetches a chain's
 * first link. */
#define CHAIN_PREFETCH 16

PlanarFlowIndex *
_planar_flow_builder_finish (PlanarFlowBuilder *builder,
                             PlanarTrace       *trace,
                             guint64            host_id)
{
  PlanarFlowIndex *self = g_new0 (PlanarFlowIndex, 1);
  guint32 *first_flow_of_host;
  guint32 *new_index, *order;
  guint32 *launch_by_from;
  gsize n_launch_by_from = 0;
  g_autoptr(GArray) generic_by_from = NULL;
  g_autoptr(GArray) generic_by_to = NULL;
  guint32 *next_from;
  gsize n_launch_flows, n_launch_to, n_host;
  guint reserve;
  Paired paired;
  PlanarSpillMode spill = build_mode (trace->spill);

  /* Every end makes at most one flow. */
  reserve = MIN (builder->launches->len + builder->ends->len, G_MAXUINT);
  self->planes = trace->planes;
  planar_spill_array_init (&paired.flows, sizeof (Flow), spill);
  planar_spill_array_init (&paired.next_from, sizeof (guint32), SCRATCH);
  planar_spill_array_reserve (&paired.flows, reserve);
  planar_spill_array_reserve (&paired.next_from, reserve);

  /* Launches first: their flows come out in the order of their device ends
   * (the launches' order), and chained per host end. */
  _planar_flow_builder_sort_launches (builder);
  first_flow_of_host = pair_launches (builder, trace, host_id, &paired, builder->ends, &n_host, &n_launch_to);
  n_launch_flows = paired.flows.len;
  /* Done with before the orders and the other ends, which need memory
   * too. */
  planar_spill_array_clear (builder->launches);
  g_array_set_size (builder->runs, 0);
  /* The launch flows by from end: each host end's chain in turn (every
   * launch flow with a from end is on one). The chains' links are read
   * out of order: the first link of the host end a few ahead is fetched
   * early. */
  next_from = (guint32 *) paired.next_from.data;
  launch_by_from = planar_spill_alloc (MAX (n_launch_flows, 1) * sizeof (guint32), spill);
  for (gsize k = 0; k < n_host; k++)
    {
      if (k + CHAIN_PREFETCH < n_host && first_flow_of_host[k + CHAIN_PREFETCH] != NO_FLOW)
        __builtin_prefetch (&next_from[first_flow_of_host[k + CHAIN_PREFETCH]]);
      for (guint32 f = first_flow_of_host[k]; f != NO_FLOW; f = next_from[f])
        launch_by_from[n_launch_by_from++] = f;
    }
  g_assert (n_launch_by_from <= n_launch_flows);
  planar_spill_free (first_flow_of_host);

  pair_generic (builder->ends, &paired);
  planar_spill_debug_memory ("the flows' pairing");
  _planar_flow_builder_free (builder);

  self->n_flows = paired.flows.len;
  /* Never NULL, as the cache reader's copies are not. */
  planar_spill_array_reserve (&paired.flows, 1);
  self->flows = paired.flows.data;
  planar_spill_array_clear (&paired.next_from);

  generic_by_from = sorted_by_end (self->flows, n_launch_flows, self->n_flows, TRUE, spill);
  generic_by_to = sorted_by_end (self->flows, n_launch_flows, self->n_flows, FALSE, spill);
  self->n_by_from = n_launch_by_from + generic_by_from->len;
  self->n_by_to = n_launch_to + generic_by_to->len;
  self->by_from = merged_by_end (self->flows, launch_by_from, n_launch_by_from, generic_by_from, TRUE, spill);
  /* The order by to end is made after the time order, from its new
   * positions (the launch flows' part is flows 0 to n_launch_to in order):
   * not held through the sort. */

  planar_spill_debug_memory ("the flows' orders by end");
  /* Sorted by the start of their time span, the flows array is the "all"
   * time index's order, and every category's order taken from it is
   * sorted too. The radix sort is stable and the pairing's order is
   * deterministic, so ties always come out the same. */
  order = planar_spill_alloc (MAX (self->n_flows, 1) * sizeof (guint32), SCRATCH);
  new_index = planar_spill_alloc (MAX (self->n_flows, 1) * sizeof (guint32), SCRATCH);
  _planar_flow_index_sort_by_span_start (self, order, new_index);
  for (gsize i = 0; i < self->n_flows; i++)
    new_index[order[i]] = (guint32) i;
  if (planar_spill_is_mapped (self->flows))
    self->flows = gather_flows (self->flows, order, self->n_flows, spill);
  else if (!copy_flows_releasing (self, order, copy_budget (self->n_flows), spill))
    permute_flows (self, order);
  planar_spill_free (order);
  for (gsize i = 0; i < self->n_by_from; i++)
    self->by_from[i] = new_index[self->by_from[i]];
  self->by_to = by_to_in_time_order (self, n_launch_to, generic_by_to, new_index, spill);
  planar_spill_free (new_index);
  /* What the index keeps goes where the trace's arrays go, written in
   * order, while its time indices are built from the flows in memory. */
  if (spill != trace->spill)
    {
      FinishJobs jobs = { self, trace, NULL };

      planar_parallel_run (2, NULL, finish_job, &jobs, NULL, NULL);
      if (jobs.flows_file != NULL)
        {
          planar_spill_free (self->flows);
          self->flows = jobs.flows_file;
        }
    }
  else
    _planar_flow_index_finish (self, trace);
  planar_spill_debug_memory ("the flow index");
  return self;
}
