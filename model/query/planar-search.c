/* planar-search.c: finding events by text across a whole profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-search.h"
#include "planar-hlo.h"
#include "planar-parallel.h"

#include <glib/gi18n-lib.h>

#include "planar-trace-private.h"
#include "planar-xspace-fields-private.h"

#include <stdlib.h>
#include <string.h>

/* How the search stays fast: every name a plane can show is interned once,
 * so the pattern is run once per distinct string (event metadata names,
 * display names and default stats; stat metadata names, which are also the
 * text of ref values) before any event is looked at. Most events are then
 * decided by a table lookup on their metadata index; the others have their
 * own stats walked straight from the mapped file, where only str_value
 * bytes reach the matcher and ref values are looked up. */

/* Events examined between two looks at the cancellable and the progress
 * counter. */
#define CHECK_INTERVAL 4096
/* Events per job: enough to make a job worth its bookkeeping, few enough
 * that a track holding most of a profile's events is shared by workers. */
#define JOB_EVENTS 65536
/* A few workers, not every core: the search runs while the application
 * draws, and often while other hosts still decode. */

G_DEFINE_QUARK (planar-search-error-quark, planar_search_error)

typedef struct
{
  PlanarSearchFlags  flags;
  /* Substring search: the pattern, lowered when matching without case. */
  char              *needle;
  gsize              needle_len;
  GRegex            *regex;
  /* The same expression in byte mode, for text that is not valid UTF-8
   * (GRegex must not be handed such text in UTF-8 mode). NULL when the
   * pattern does not compile that way; such text then never matches. */
  GRegex            *raw_regex;
} Matcher;

static inline guchar
fold_ascii (guchar c)
{
  return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static gboolean
find_substring (const Matcher *m,
                const char    *text,
                gsize          len)
{
  const guchar *needle = (const guchar *) m->needle;
  const guchar *p = (const guchar *) text;
  const guchar *last;
  gsize n = m->needle_len;

  if (len < n)
    return FALSE;
  last = p + (len - n);

  if (m->flags & PLANAR_SEARCH_CASE_SENSITIVE)
    {
      while (p <= last)
        {
          p = memchr (p, needle[0], (gsize) (last - p) + 1);
          if (p == NULL)
            return FALSE;
          if (memcmp (p + 1, needle + 1, n - 1) == 0)
            return TRUE;
          p++;
        }
      return FALSE;
    }

  for (; p <= last; p++)
    {
      gsize i;

      if (fold_ascii (*p) != needle[0])
        continue;
      for (i = 1; i < n && fold_ascii (p[i]) == needle[i]; i++)
        ;
      if (i == n)
        return TRUE;
    }
  return FALSE;
}

/* Whether the pattern matches the @len bytes at @text, which need not be
 * NUL-terminated. */
static gboolean
matcher_match (const Matcher *m,
               const char    *text,
               gsize          len)
{
  if (text == NULL)
    text = "";
  if (m->regex == NULL)
    return find_substring (m, text, len);
  if (G_LIKELY (g_utf8_validate_len (text, len, NULL)))
    return g_regex_match_full (m->regex, text, (gssize) len, 0, G_REGEX_MATCH_DEFAULT, NULL, NULL);
  return m->raw_regex != NULL &&
         g_regex_match_full (m->raw_regex, text, (gssize) len, 0, G_REGEX_MATCH_DEFAULT, NULL, NULL);
}

static void
matcher_clear (Matcher *m)
{
  g_clear_pointer (&m->needle, g_free);
  g_clear_pointer (&m->regex, g_regex_unref);
  g_clear_pointer (&m->raw_regex, g_regex_unref);
}

static gboolean
matcher_init (Matcher            *m,
              const char         *pattern,
              PlanarSearchFlags   flags,
              GError            **error)
{
  memset (m, 0, sizeof *m);
  m->flags = flags;

  if (pattern == NULL || pattern[0] == '\0')
    {
      g_set_error_literal (error, PLANAR_SEARCH_ERROR, PLANAR_SEARCH_ERROR_EMPTY_PATTERN,
                           _("The search pattern is empty"));
      return FALSE;
    }

  if (flags & PLANAR_SEARCH_REGEX)
    {
      GRegexCompileFlags compile = G_REGEX_OPTIMIZE;

      if (!(flags & PLANAR_SEARCH_CASE_SENSITIVE))
        compile |= G_REGEX_CASELESS;
      m->regex = g_regex_new (pattern, compile, G_REGEX_MATCH_DEFAULT, error);
      if (m->regex == NULL)
        return FALSE;
      m->raw_regex = g_regex_new (pattern, compile | G_REGEX_RAW, G_REGEX_MATCH_DEFAULT, NULL);
      return TRUE;
    }

  m->needle = (flags & PLANAR_SEARCH_CASE_SENSITIVE) ? g_strdup (pattern) : g_ascii_strdown (pattern, -1);
  m->needle_len = strlen (m->needle);
  return TRUE;
}

/* What an event's metadata alone says about the event. */
enum
{
  METADATA_NO_MATCH,
  /* Its name, display name or a default stat that no event stat can hide
   * matches: every event with this metadata matches. */
  METADATA_MATCH,
  /* Only default stats match, and an event stat of the same name would
   * hide them (see planar_trace_get_event_stats()). */
  METADATA_MATCH_UNLESS_HIDDEN,
};

/* A stat's name as planar_trace_get_event_stats() compares names: the
 * interned name, or the metadata id for a stat whose metadata is missing
 * (name ""). */
typedef struct
{
  gint64      metadata_id;
  const char *name;
} StatKey;

static inline gboolean
stat_key_equal (gint64      a_id,
                const char *a_name,
                gint64      b_id,
                const char *b_name)
{
  /* Every name here is interned but "", which may be either the interned
   * copy or a literal; ids only tell nameless stats apart (the model's own
   * stats all have id -1). */
  if (a_name[0] == '\0' || b_name[0] == '\0')
    return a_name[0] == b_name[0] && a_id == b_id;
  return a_name == b_name;
}

static inline const char *
stat_name_of (const PlanarPlanePrivate *ppriv,
              gint64                    metadata_id)
{
  gint64 index = _planar_id_map_lookup (&ppriv->stat_map, metadata_id);

  return index >= 0 ? ppriv->stat_metadata[index].name : "";
}

/* The pattern run over one plane's interned strings. */
typedef struct
{
  PlanarTrace              *trace;
  const PlanarPlane        *plane;
  const PlanarPlanePrivate *ppriv;
  /* Per event metadata index, one of the METADATA_ values. */
  guint8                   *metadata_match;
  guint                     n_metadata;
  /* For METADATA_MATCH_UNLESS_HIDDEN: the keys of the matching default
   * stats, keys[key_offsets[i]] up to keys[key_offsets[i + 1]]. */
  guint                    *key_offsets;
  StatKey                  *keys;
  /* Per stat metadata index: whether its name, as a ref value, matches. */
  guint8                   *ref_match;
  /* Whether the empty text matches: a ref to missing metadata reads as "". */
  gboolean                  empty_match;
  /* On a device plane: the HLO instructions of the trace whose framework
   * op (op_full_name) or source line matches, as a set; NULL when none
   * does. Shared by the trace's planes, owned by the first. */
  GHashTable               *hlo_matches;
  gboolean                  owns_hlo_matches;
} PlaneMatch;

static void
plane_match_clear (PlaneMatch *pm)
{
  g_clear_pointer (&pm->metadata_match, g_free);
  g_clear_pointer (&pm->key_offsets, g_free);
  g_clear_pointer (&pm->keys, g_free);
  g_clear_pointer (&pm->ref_match, g_free);
  if (pm->owns_hlo_matches)
    g_clear_pointer (&pm->hlo_matches, g_hash_table_unref);
  pm->hlo_matches = NULL;
}

/* The instructions of @trace's HLO whose framework op or source line
 * matches: what a device event resolving to one of them is found by.
 * NULL when none does. */
static GHashTable *
hlo_matches_build (const Matcher *m,
                   PlanarTrace   *trace)
{
  const PlanarHloIndex *index = planar_trace_get_hlo_index (trace);
  GHashTable *set = NULL;

  for (guint i = 0; index != NULL && i < planar_hlo_index_get_n_modules (index); i++)
    {
      const PlanarHloModule *module = planar_hlo_index_get_module (index, i);

      for (guint32 k = 0; k < module->n_instructions; k++)
        {
          const PlanarHloInstruction *in = &module->instructions[k];
          g_autofree char *op = planar_hlo_instruction_dup_op_full_name (in);
          g_autofree char *source = planar_hlo_instruction_dup_source (module, in);

          if ((op != NULL && matcher_match (m, op, strlen (op)))
              || (source != NULL && matcher_match (m, source, strlen (source))))
            {
              if (set == NULL)
                set = g_hash_table_new (NULL, NULL);
              g_hash_table_add (set, (gpointer) in);
            }
        }
    }
  return set;
}

/* Whether @ev (of a device plane) resolves to an instruction whose
 * framework op or source matches. Reads its stats: only asked about events
 * that did not match otherwise, on traces where some instruction does. */
static gboolean
hlo_event_matches (const PlaneMatch  *pm,
                   const PlanarEvent *ev)
{
  PlanarHloResolution r;

  return pm->hlo_matches != NULL && planar_trace_resolve_hlo (pm->trace, pm->plane, ev, &r)
         && g_hash_table_contains (pm->hlo_matches, r.instruction);
}

static inline gboolean
is_text (const PlanarStat *stat)
{
  return stat->kind == PLANAR_STAT_STRING || stat->kind == PLANAR_STAT_REF;
}

static void
plane_match_build (PlaneMatch    *pm,
                   const Matcher *m,
                   PlanarTrace   *trace,
                   guint          plane_index)
{
  const PlanarPlane *plane = &trace->planes[plane_index];
  const PlanarPlanePrivate *ppriv = &trace->planes_priv[plane_index];
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (StatKey));

  pm->trace = trace;
  pm->plane = plane;
  pm->ppriv = ppriv;
  pm->empty_match = matcher_match (m, "", 0);

  pm->ref_match = g_new0 (guint8, MAX (ppriv->n_stat_metadata, 1));
  for (guint i = 0; i < ppriv->n_stat_metadata; i++)
    pm->ref_match[i] = matcher_match (m, ppriv->stat_metadata[i].name, strlen (ppriv->stat_metadata[i].name));

  pm->n_metadata = plane->n_metadata;
  pm->metadata_match = g_new0 (guint8, MAX (plane->n_metadata, 1));
  pm->key_offsets = g_new0 (guint, plane->n_metadata + 1);
  for (guint i = 0; i < plane->n_metadata; i++)
    {
      const PlanarEventMetadata *md = &plane->metadata[i];
      guint state = METADATA_NO_MATCH;
      guint first_key = keys->len;

      if (matcher_match (m, md->name, strlen (md->name)) ||
          (md->display_name != md->name && matcher_match (m, md->display_name, strlen (md->display_name))))
        state = METADATA_MATCH;

      for (guint s = 0; s < md->n_stats && state != METADATA_MATCH; s++)
        {
          const PlanarStat *stat = &md->stats[s];
          gboolean shadowed = FALSE;
          StatKey key;

          if (!is_text (stat) || !matcher_match (m, stat->str.data, stat->str.len))
            continue;

          /* An event stat replaces only the first default of its name; a
           * later default of the same name stays in the list whatever the
           * event carries. */
          for (guint e = 0; e < s && !shadowed; e++)
            shadowed = stat_key_equal (md->stats[e].metadata_id, md->stats[e].name,
                                       stat->metadata_id, stat->name);
          if (shadowed)
            {
              state = METADATA_MATCH;
              break;
            }
          key.metadata_id = stat->metadata_id;
          key.name = stat->name;
          g_array_append_val (keys, key);
          state = METADATA_MATCH_UNLESS_HIDDEN;
        }

      if (state != METADATA_MATCH_UNLESS_HIDDEN)
        g_array_set_size (keys, first_key);
      pm->metadata_match[i] = (guint8) state;
      pm->key_offsets[i + 1] = keys->len;
    }
  pm->keys = (StatKey *) g_array_free (g_steal_pointer (&keys), FALSE);
}

/* An own stat of the event being examined. */
typedef struct
{
  gint64      metadata_id;
  const char *name;
  gboolean    match;
} SeenStat;

/* Per worker, reused from event to event. */
typedef struct
{
  SeenStat *seen;
  gsize     n_seen;
  gsize     capacity;
  /* PlanarStat, for the rare event decided through the public reader;
   * NULL until one is. */
  GArray   *stats;
} Scratch;

static inline void
scratch_push (Scratch  *scratch,
              gint64    metadata_id,
              gboolean  match)
{
  if (G_UNLIKELY (scratch->n_seen == scratch->capacity))
    {
      scratch->capacity = MAX (16, scratch->capacity * 2);
      scratch->seen = g_renew (SeenStat, scratch->seen, scratch->capacity);
    }
  scratch->seen[scratch->n_seen].metadata_id = metadata_id;
  scratch->seen[scratch->n_seen].name = NULL;
  scratch->seen[scratch->n_seen].match = match;
  scratch->n_seen++;
}

/* Reads one XStat payload the way _planar_trace_decode_stat() does (same
 * checks, the last value field wins) without resolving more than a match
 * needs. Returns FALSE on malformed input, with @outer's error fields
 * saying where and why. */
static gboolean
scan_stat (const PlaneMatch *pm,
           const Matcher    *m,
           PlanarWireReader *outer,
           const guint8     *payload,
           gsize             len,
           gint64           *metadata_id,
           gboolean         *match)
{
  const PlanarXFields *xs = &_planar_xspace_fields ()->stat;
  PlanarWireReader r;
  PlanarWireField f;
  PlanarStatKind kind = PLANAR_STAT_NONE;
  const guint8 *text = NULL;
  gsize text_len = 0;
  guint64 ref = 0;
  int rc;

  *metadata_id = 0;
  planar_wire_reader_init (&r, pm->trace->data, payload, len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      guint field = planar_xfield_kind (xs, f.number);

      if (field == 0)
        continue;
      if (f.wire_type != xs->wire[field])
        {
          outer->error_at = f.start;
          outer->error_reason = N_("unexpected wire type in");
          return FALSE;
        }
      switch (field)
        {
        case PLANAR_XSTAT_METADATA_ID:
          *metadata_id = (gint64) f.value;
          break;
        case PLANAR_XSTAT_STR:
          kind = PLANAR_STAT_STRING;
          text = f.data;
          text_len = f.len;
          break;
        case PLANAR_XSTAT_REF:
          kind = PLANAR_STAT_REF;
          ref = f.value;
          break;
        default:
          /* Numbers and bytes are not text. */
          kind = PLANAR_STAT_NONE;
          break;
        }
    }
  if (rc < 0)
    {
      outer->error_at = r.error_at;
      outer->error_reason = r.error_reason;
      return FALSE;
    }

  if (kind == PLANAR_STAT_STRING)
    *match = matcher_match (m, (const char *) text, text_len);
  else if (kind == PLANAR_STAT_REF)
    {
      gint64 index = _planar_id_map_lookup (&pm->ppriv->stat_map, (gint64) ref);

      *match = index >= 0 ? pm->ref_match[index] : pm->empty_match;
    }
  else
    *match = FALSE;
  return TRUE;
}

/* Decides a candidate the fast path could not: replays how
 * planar_trace_get_event_stats() merges the event's stats into its
 * metadata's, on names only. */
static gboolean
merged_stats_match (const PlaneMatch *pm,
                    guint             metadata,
                    Scratch          *scratch)
{
  SeenStat *seen = scratch->seen;
  gsize n = scratch->n_seen;

  for (gsize i = 0; i < n; i++)
    seen[i].name = stat_name_of (pm->ppriv, seen[i].metadata_id);

  /* A matching event stat counts unless a later one of the same name
   * replaces it. */
  for (gsize i = 0; i < n; i++)
    {
      gboolean replaced = FALSE;

      if (!seen[i].match)
        continue;
      for (gsize j = i + 1; j < n && !replaced; j++)
        replaced = stat_key_equal (seen[i].metadata_id, seen[i].name, seen[j].metadata_id, seen[j].name);
      if (!replaced)
        return TRUE;
    }

  /* A matching default counts unless the event has a stat of its name. */
  if (pm->metadata_match[metadata] == METADATA_MATCH_UNLESS_HIDDEN)
    for (guint k = pm->key_offsets[metadata]; k < pm->key_offsets[metadata + 1]; k++)
      {
        const StatKey *key = &pm->keys[k];
        gboolean hidden = FALSE;

        for (gsize j = 0; j < n && !hidden; j++)
          hidden = stat_key_equal (key->metadata_id, key->name, seen[j].metadata_id, seen[j].name);
        if (!hidden)
          return TRUE;
      }
  return FALSE;
}

/* Decides a derived event whose metadata has a matching default stat, from
 * the stats planar_trace_get_event_stats() lists for it. */
static int
derived_event_matches (const PlaneMatch  *pm,
                       const Matcher     *m,
                       const PlanarEvent *ev,
                       Scratch           *scratch,
                       GError           **error)
{
  GError *local_error = NULL;

  if (scratch->stats == NULL)
    scratch->stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  g_array_set_size (scratch->stats, 0);
  if (planar_trace_get_event_stats (pm->trace, pm->plane, ev, scratch->stats, &local_error) == 0 &&
      local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return -1;
    }
  for (guint i = 0; i < scratch->stats->len; i++)
    {
      const PlanarStat *stat = &g_array_index (scratch->stats, PlanarStat, i);

      if (is_text (stat) && matcher_match (m, stat->str.data, stat->str.len))
        return 1;
    }
  return 0;
}

/* Returns 1 when @ev matches, 0 when not, -1 with @error set when its
 * bytes cannot be read. Allocates nothing (past the scratch's growth). */
static int
event_matches (const PlaneMatch  *pm,
               const Matcher     *m,
               const PlanarEvent *ev,
               Scratch           *scratch,
               GError           **error)
{
  PlanarTrace *trace = pm->trace;
  const guint8 *end = trace->data + trace->size;
  const guint stats_field = _planar_xspace_fields ()->event.number[PLANAR_XEVENT_STATS];
  const guint8 *q;
  PlanarWireReader r;
  PlanarWireField f;
  guint state;
  guint64 len;
  gboolean any = FALSE;
  int rc;

  state = ev->metadata < pm->n_metadata ? pm->metadata_match[ev->metadata] : METADATA_NO_MATCH;
  if (state == METADATA_MATCH)
    return 1;
  /* A derived event has no bytes in the file; what it adds to its
   * metadata's stats is numeric, so only a matching default can make it
   * match. Whether one of those hides the default is for the model's own
   * reader to say, and it is rare enough to ask it. */
  if (ev->flags & PLANAR_EVENT_DERIVED)
    {
      if (state == METADATA_NO_MATCH)
        return hlo_event_matches (pm, ev) ? 1 : 0;
      rc = derived_event_matches (pm, m, ev, scratch, error);
      return rc == 0 && hlo_event_matches (pm, ev) ? 1 : rc;
    }
  if (G_UNLIKELY (ev->source >= trace->size))
    {
      planar_wire_set_error (error, PLANAR_TRACE_ERROR_CORRUPT, trace->file_name, "XEvent",
                             ev->source, "missing");
      return -1;
    }

  q = trace->data + ev->source;
  if (!planar_wire_read_varint (&q, end, &len) || len > (guint64) (end - q))
    {
      planar_wire_set_error (error, PLANAR_TRACE_ERROR_CORRUPT, trace->file_name, "XEvent",
                             ev->source, "malformed");
      return -1;
    }

  scratch->n_seen = 0;
  planar_wire_reader_init (&r, trace->data, q, (gsize) len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      gint64 metadata_id;
      gboolean match;

      if (f.number != stats_field)
        continue;
      if (f.wire_type != PLANAR_WIRE_LEN)
        {
          r.error_at = f.start;
          r.error_reason = N_("unexpected wire type in");
          rc = -1;
          break;
        }
      /* A damaged stat is skipped and counted, as the model's reader does. */
      if (!scan_stat (pm, m, &r, f.data, f.len, &metadata_id, &match))
        {
          _planar_trace_note_damaged_stat (trace, (guint64) (f.start - trace->data), r.error_reason);
          continue;
        }
      scratch_push (scratch, metadata_id, match);
      any |= match;
    }
  if (rc < 0)
    {
      planar_wire_set_error (error, PLANAR_TRACE_ERROR_CORRUPT, trace->file_name, "XStat",
                             (guint64) (r.error_at - trace->data), r.error_reason);
      return -1;
    }

  if ((any || state != METADATA_NO_MATCH) && merged_stats_match (pm, ev->metadata, scratch))
    return 1;
  return hlo_event_matches (pm, ev) ? 1 : 0;
}

/* A range of one track's events, searched by one worker. */
typedef struct
{
  const PlaneMatch *pm;
  guint             trace;
  guint             plane;
  guint             track;
  gsize             first;
  gsize             last;
  /* PlanarSearchHit, in event order; NULL while there is none. */
  GArray           *hits;
  GError           *error;
} SearchJob;

struct _PlanarSearch
{
  GObject          parent_instance;

  char            *pattern;
  PlanarSearchFlags flags;
  Matcher          matcher;
  /* PlanarTrace */
  GPtrArray       *traces;

  gint             started;
  gint             completed;
  /* Events to examine, and examined so far (atomic). */
  gint64           events_total;
  gint64           events_done;

  /* The result, in place once @completed is set. */
  PlanarSearchHit *hits;
  guint64          n_hits;
  /* Count per track: track_counts[plane_first_track[trace_first_plane[t]
   * + p] + k] for track k of plane p of trace t. */
  guint           *trace_first_plane;
  gsize           *plane_first_track;
  guint64         *track_counts;
};

G_DEFINE_FINAL_TYPE (PlanarSearch, planar_search, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PATTERN,
  PROP_FLAGS,
  PROP_FRACTION,
  PROP_COMPLETED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Everything one run shares between its workers. */
typedef struct
{
  PlanarSearch *self;
  GCancellable *cancellable;
  SearchJob    *jobs;
  guint         n_jobs;
  /* Set by a worker that failed or saw the cancellation (atomic). */
  gint          stop;
} SearchRun;

static gboolean
search_job_run (SearchRun *run,
                SearchJob *job,
                Scratch   *scratch)
{
  const PlanarTrack *track = &job->pm->plane->tracks[job->track];
  const Matcher *m = &run->self->matcher;
  guint since_check = 0;

  for (gsize i = job->first; i < job->last; i++)
    {
      const PlanarEvent *ev = &track->events[i];
      int rc;

      if (G_UNLIKELY (++since_check == CHECK_INTERVAL))
        {
          __atomic_add_fetch (&run->self->events_done, since_check, __ATOMIC_RELAXED);
          since_check = 0;
          if (g_atomic_int_get (&run->stop) || g_cancellable_is_cancelled (run->cancellable))
            return FALSE;
        }

      rc = event_matches (job->pm, m, ev, scratch, &job->error);
      if (G_UNLIKELY (rc < 0))
        return FALSE;
      if (rc > 0)
        {
          PlanarSearchHit hit = {
            .start_ps = ev->start_ps,
            .ref = { .plane = job->plane, .trace = job->trace, .track = job->track, .index = (guint32) i },
          };

          if (job->hits == NULL)
            job->hits = g_array_new (FALSE, FALSE, sizeof (PlanarSearchHit));
          g_array_append_val (job->hits, hit);
        }
    }
  __atomic_add_fetch (&run->self->events_done, since_check, __ATOMIC_RELAXED);
  return TRUE;
}

/* One job of planar_parallel_run(): FALSE stops the others (the error
 * itself stays with the job, to be picked in job order). */
static gboolean
search_job (guint          j,
            gpointer       data,
            GCancellable  *cancellable,
            GError       **error)
{
  SearchRun *run = data;
  Scratch scratch = { 0 };
  gboolean ok;

  if (g_atomic_int_get (&run->stop))
    return FALSE;
  ok = search_job_run (run, &run->jobs[j], &scratch);
  g_free (scratch.seen);
  g_clear_pointer (&scratch.stats, g_array_unref);
  if (!ok)
    g_atomic_int_set (&run->stop, 1);
  return ok;
}

static int
compare_hits (const void *a,
              const void *b)
{
  const PlanarSearchHit *x = a;
  const PlanarSearchHit *y = b;

  if (x->start_ps != y->start_ps)
    return x->start_ps < y->start_ps ? -1 : 1;
  if (x->ref.trace != y->ref.trace)
    return x->ref.trace < y->ref.trace ? -1 : 1;
  if (x->ref.plane != y->ref.plane)
    return x->ref.plane < y->ref.plane ? -1 : 1;
  if (x->ref.track != y->ref.track)
    return x->ref.track < y->ref.track ? -1 : 1;
  if (x->ref.index != y->ref.index)
    return x->ref.index < y->ref.index ? -1 : 1;
  return 0;
}

/* Puts @hits in time order. They come as runs, one per track, each in
 * time order already (a track's events are sorted by start), from
 * runs[i] to runs[i + 1]; merging runs pairwise costs log2 (tracks)
 * passes where a sort would take log2 (hits). The order is total, so the
 * result is the same whichever worker found what. */
static void
sort_hits (PlanarSearchHit **hits,
           guint64           n,
           GArray           *runs)
{
  guint64 *bounds = (guint64 *) (gpointer) runs->data;
  guint n_runs = runs->len - 1;
  PlanarSearchHit *src = *hits;
  PlanarSearchHit *dst;

  if (n < 2 || n_runs < 2)
    return;

  /* A track out of order would break the merge; the model sorts every
   * track, but a sort is the safe answer if one is not. */
  for (guint64 i = 1; i < n; i++)
    if (src[i].start_ps < src[i - 1].start_ps && src[i].ref.track == src[i - 1].ref.track &&
        src[i].ref.plane == src[i - 1].ref.plane && src[i].ref.trace == src[i - 1].ref.trace)
      {
        qsort (src, n, sizeof (PlanarSearchHit), compare_hits);
        return;
      }

  dst = g_new (PlanarSearchHit, n);
  while (n_runs > 1)
    {
      guint out = 0;

      for (guint r = 0; r < n_runs; r += 2)
        {
          guint64 a = bounds[r], a_end = bounds[r + 1];
          guint64 b = a_end, b_end = r + 1 < n_runs ? bounds[r + 2] : a_end;
          guint64 d = bounds[r];

          while (a < a_end && b < b_end)
            dst[d++] = compare_hits (&src[b], &src[a]) < 0 ? src[b++] : src[a++];
          if (a < a_end)
            memcpy (dst + d, src + a, (a_end - a) * sizeof (PlanarSearchHit));
          if (b < b_end)
            memcpy (dst + d, src + b, (b_end - b) * sizeof (PlanarSearchHit));
          bounds[out++] = bounds[r];
        }
      bounds[out] = n;
      n_runs = out;

      {
        PlanarSearchHit *tmp = src;

        src = dst;
        dst = tmp;
      }
    }
  *hits = src;
  g_free (dst);
}

static void
planar_search_finalize (GObject *object)
{
  PlanarSearch *self = (PlanarSearch *) object;

  matcher_clear (&self->matcher);
  g_clear_pointer (&self->pattern, g_free);
  g_clear_pointer (&self->traces, g_ptr_array_unref);
  g_clear_pointer (&self->hits, g_free);
  g_clear_pointer (&self->trace_first_plane, g_free);
  g_clear_pointer (&self->plane_first_track, g_free);
  g_clear_pointer (&self->track_counts, g_free);

  G_OBJECT_CLASS (planar_search_parent_class)->finalize (object);
}

static void
planar_search_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  PlanarSearch *self = PLANAR_SEARCH (object);

  switch (prop_id)
    {
    case PROP_PATTERN:
      g_value_set_string (value, self->pattern);
      break;
    case PROP_FLAGS:
      g_value_set_uint (value, self->flags);
      break;
    case PROP_FRACTION:
      g_value_set_double (value, planar_search_get_fraction (self));
      break;
    case PROP_COMPLETED:
      g_value_set_boolean (value, planar_search_is_completed (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
planar_search_class_init (PlanarSearchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = planar_search_finalize;
  object_class->get_property = planar_search_get_property;

  properties[PROP_PATTERN] =
    g_param_spec_string ("pattern", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* PlanarSearchFlags has no GType; the flags travel as their bits. */
  properties[PROP_FLAGS] =
    g_param_spec_uint ("flags", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* Read by polling: the value changes on worker threads, where notifying
   * would reach the main thread's handlers on the wrong thread. */
  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, 0.0, 1.0, 0.0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_COMPLETED] =
    g_param_spec_boolean ("completed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
planar_search_init (PlanarSearch *self)
{
  self->traces = g_ptr_array_new_with_free_func (g_object_unref);
}

gboolean
planar_search_check_pattern (const char         *pattern,
                             PlanarSearchFlags   flags,
                             GError            **error)
{
  Matcher m;
  gboolean ok;

  ok = matcher_init (&m, pattern, flags, error);
  matcher_clear (&m);
  return ok;
}

PlanarSearch *
planar_search_new_for_traces (PlanarTrace * const *traces,
                              guint                n_traces,
                              const char          *pattern,
                              PlanarSearchFlags    flags,
                              GError             **error)
{
  g_autoptr(PlanarSearch) self = NULL;

  g_return_val_if_fail (traces != NULL || n_traces == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  for (guint i = 0; i < n_traces; i++)
    {
      g_return_val_if_fail (PLANAR_IS_TRACE (traces[i]), NULL);
    }

  self = g_object_new (PLANAR_TYPE_SEARCH, NULL);
  if (!matcher_init (&self->matcher, pattern, flags, error))
    return NULL;
  self->pattern = g_strdup (pattern);
  self->flags = flags;
  for (guint i = 0; i < n_traces; i++)
    g_ptr_array_add (self->traces, g_object_ref (traces[i]));
  return g_steal_pointer (&self);
}

PlanarSearch *
planar_search_new (PlanarProfile      *profile,
                   const char         *pattern,
                   PlanarSearchFlags   flags,
                   GError            **error)
{
  g_autofree PlanarTrace **traces = NULL;
  guint n;

  g_return_val_if_fail (PLANAR_IS_PROFILE (profile), NULL);
  g_return_val_if_fail (planar_profile_is_loaded (profile), NULL);

  n = planar_profile_get_n_traces (profile);
  traces = g_new (PlanarTrace *, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    traces[i] = planar_profile_get_trace (profile, i);
  return planar_search_new_for_traces (traces, n, pattern, flags, error);
}

/* Lays out the per-track counts and cuts the tracks into jobs. */
static SearchJob *
plan_jobs (PlanarSearch *self,
           PlaneMatch   *planes,
           guint        *n_jobs_out)
{
  g_autoptr(GArray) jobs = g_array_new (FALSE, TRUE, sizeof (SearchJob));
  gsize n_planes = 0, n_tracks = 0;
  gint64 n_events = 0;

  self->trace_first_plane = g_new0 (guint, self->traces->len + 1);
  for (guint t = 0; t < self->traces->len; t++)
    {
      PlanarTrace *trace = g_ptr_array_index (self->traces, t);

      self->trace_first_plane[t] = (guint) n_planes;
      n_planes += trace->n_planes;
    }
  self->trace_first_plane[self->traces->len] = (guint) n_planes;

  self->plane_first_track = g_new0 (gsize, n_planes + 1);
  for (guint t = 0; t < self->traces->len; t++)
    {
      PlanarTrace *trace = g_ptr_array_index (self->traces, t);

      for (guint p = 0; p < trace->n_planes; p++)
        {
          const PlanarPlane *plane = &trace->planes[p];
          const PlaneMatch *pm = &planes[self->trace_first_plane[t] + p];

          self->plane_first_track[self->trace_first_plane[t] + p] = n_tracks;
          n_tracks += plane->n_tracks;
          for (guint k = 0; k < plane->n_tracks; k++)
            {
              const PlanarTrack *track = &plane->tracks[k];

              /* A host whose decode failed is left out (its tracks are
               * not whole). */
              for (gsize first = 0; planar_trace_is_decoded (trace) && first < track->n_events;
                   first += JOB_EVENTS)
                {
                  SearchJob job = {
                    .pm = pm,
                    .trace = t,
                    .plane = p,
                    .track = k,
                    .first = first,
                    .last = MIN (track->n_events, first + JOB_EVENTS),
                  };

                  g_array_append_val (jobs, job);
                }
              n_events += (gint64) track->n_events;
            }
        }
    }
  self->plane_first_track[n_planes] = n_tracks;
  self->track_counts = g_new0 (guint64, MAX (n_tracks, 1));
  /* planar_search_get_fraction() may be reading it from another thread. */
  __atomic_store_n (&self->events_total, n_events, __ATOMIC_RELAXED);

  *n_jobs_out = jobs->len;
  return (SearchJob *) g_array_free (g_steal_pointer (&jobs), FALSE);
}

static void
free_jobs (SearchJob *jobs,
           guint      n_jobs)
{
  for (guint j = 0; j < n_jobs; j++)
    {
      g_clear_pointer (&jobs[j].hits, g_array_unref);
      g_clear_error (&jobs[j].error);
    }
  g_free (jobs);
}

/* Forgets a partial result so that a failed run leaves the search empty. */
static void
reset_result (PlanarSearch *self)
{
  g_clear_pointer (&self->hits, g_free);
  self->n_hits = 0;
  g_clear_pointer (&self->trace_first_plane, g_free);
  g_clear_pointer (&self->plane_first_track, g_free);
  g_clear_pointer (&self->track_counts, g_free);
}

gboolean
planar_search_run (PlanarSearch  *self,
                   GCancellable  *cancellable,
                   GError       **error)
{
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (guint64));
  PlaneMatch *planes = NULL;
  gsize last_track = 0;
  SearchRun run = { 0 };
  gsize n_planes = 0;
  guint64 at = 0;
  GError *failure = NULL;

  g_return_val_if_fail (PLANAR_IS_SEARCH (self), FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (g_atomic_int_compare_and_exchange (&self->started, 0, 1), FALSE);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  for (guint t = 0; t < self->traces->len; t++)
    n_planes += ((PlanarTrace *) g_ptr_array_index (self->traces, t))->n_planes;
  planes = g_new0 (PlaneMatch, MAX (n_planes, 1));

  run.self = self;
  run.cancellable = cancellable;
  run.jobs = plan_jobs (self, planes, &run.n_jobs);

  /* The strings first: a plane's table is only built when it has events
   * to decide, which spares planes such as /host:metadata. */
  for (guint t = 0; t < self->traces->len && failure == NULL; t++)
    {
      PlanarTrace *trace = g_ptr_array_index (self->traces, t);
      GHashTable *hlo_matches = planar_trace_is_decoded (trace) ? hlo_matches_build (&self->matcher, trace) : NULL;
      gboolean hlo_owned = FALSE;

      for (guint p = 0; p < trace->n_planes && planar_trace_is_decoded (trace); p++)
        {
          const PlanarPlane *plane = &trace->planes[p];
          PlaneMatch *pm = &planes[self->trace_first_plane[t] + p];
          gboolean has_events = FALSE;

          for (guint k = 0; k < plane->n_tracks && !has_events; k++)
            has_events = plane->tracks[k].n_events > 0;
          if (!has_events)
            continue;
          plane_match_build (pm, &self->matcher, trace, p);
          /* Device events carry the hlo_op and program_id they resolve
           * by (planar-hlo.h). */
          if (hlo_matches != NULL && g_str_has_prefix (plane->name, "/device:"))
            {
              pm->hlo_matches = hlo_matches;
              pm->owns_hlo_matches = !hlo_owned;
              hlo_owned = TRUE;
            }
        }
      if (!hlo_owned)
        g_clear_pointer (&hlo_matches, g_hash_table_unref);
      g_cancellable_set_error_if_cancelled (cancellable, &failure);
    }

  if (failure == NULL)
    {
      /* On the model's pool; the errors are the jobs' own. */
      g_autoptr(GError) pool_error = NULL;

      planar_parallel_run (run.n_jobs, NULL, search_job, &run, NULL, &pool_error);

      /* Whichever worker stopped first, the error reported is the one of
       * the earliest job, so that a run fails the same way every time. */
      if (!g_cancellable_set_error_if_cancelled (cancellable, &failure))
        for (guint j = 0; j < run.n_jobs && failure == NULL; j++)
          if (run.jobs[j].error != NULL)
            failure = g_steal_pointer (&run.jobs[j].error);
    }

  for (gsize i = 0; i < n_planes; i++)
    plane_match_clear (&planes[i]);
  g_free (planes);

  /* A file cut under the search read as zeros (planar-mapping.h): whatever
   * they made, errors included, the answer is that it changed. */
  for (guint t = 0; t < self->traces->len; t++)
    if (_planar_trace_check_changed (g_ptr_array_index (self->traces, t), FALSE, &failure))
      break;

  if (failure != NULL)
    {
      free_jobs (run.jobs, run.n_jobs);
      reset_result (self);
      g_propagate_error (error, failure);
      return FALSE;
    }

  for (guint j = 0; j < run.n_jobs; j++)
    if (run.jobs[j].hits != NULL)
      self->n_hits += run.jobs[j].hits->len;
  self->hits = g_new (PlanarSearchHit, MAX (self->n_hits, 1));
  for (guint j = 0; j < run.n_jobs; j++)
    {
      const SearchJob *job = &run.jobs[j];
      gsize index;

      if (job->hits == NULL)
        continue;
      index = self->plane_first_track[self->trace_first_plane[job->trace] + job->plane] + job->track;
      /* A track's jobs are consecutive and in event order: its hits make
       * one run. */
      if (runs->len == 0 || index != last_track)
        g_array_append_val (runs, at);
      last_track = index;
      memcpy (self->hits + at, job->hits->data, job->hits->len * sizeof (PlanarSearchHit));
      at += job->hits->len;
      self->track_counts[index] += job->hits->len;
    }
  g_array_append_val (runs, at);
  free_jobs (run.jobs, run.n_jobs);

  sort_hits (&self->hits, self->n_hits, runs);

  g_atomic_int_set (&self->completed, 1);
  return TRUE;
}

static void
run_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  GError *error = NULL;

  if (planar_search_run (source_object, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
planar_search_run_async (PlanarSearch        *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PLANAR_IS_SEARCH (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, planar_search_run_async);
  /* The workers read the traces until they stop; returning early would
   * let the caller drop them underneath. */
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, run_thread);
}

gboolean
planar_search_run_finish (PlanarSearch  *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  gboolean ok;

  g_return_val_if_fail (PLANAR_IS_SEARCH (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == planar_search_run_async, FALSE);

  ok = g_task_propagate_boolean (G_TASK (result), error);
  if (ok)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPLETED]);
  return ok;
}

const char *
planar_search_get_pattern (PlanarSearch *self)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH (self), NULL);
  return self->pattern;
}

PlanarSearchFlags
planar_search_get_flags (PlanarSearch *self)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH (self), PLANAR_SEARCH_DEFAULT);
  return self->flags;
}

guint
planar_search_get_n_traces (PlanarSearch *self)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH (self), 0);
  return self->traces->len;
}

PlanarTrace *
planar_search_get_trace (PlanarSearch *self,
                         guint         index)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH (self), NULL);
  g_return_val_if_fail (index < self->traces->len, NULL);
  return g_ptr_array_index (self->traces, index);
}

double
planar_search_get_fraction (PlanarSearch *self)
{
  gint64 total, done;

  g_return_val_if_fail (PLANAR_IS_SEARCH (self), 0.0);

  if (g_atomic_int_get (&self->completed))
    return 1.0;
  if (!g_atomic_int_get (&self->started))
    return 0.0;
  total = __atomic_load_n (&self->events_total, __ATOMIC_RELAXED);
  done = __atomic_load_n (&self->events_done, __ATOMIC_RELAXED);
  return total > 0 ? CLAMP ((double) done / (double) total, 0.0, 1.0) : 0.0;
}

gboolean
planar_search_is_completed (PlanarSearch *self)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH (self), FALSE);
  return g_atomic_int_get (&self->completed) != 0;
}

guint64
planar_search_get_n_hits (PlanarSearch *self)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH (self), 0);
  return g_atomic_int_get (&self->completed) ? self->n_hits : 0;
}

const PlanarSearchHit *
planar_search_get_hit (PlanarSearch *self,
                       guint64       index)
{
  g_return_val_if_fail (PLANAR_IS_SEARCH (self), NULL);
  g_return_val_if_fail (g_atomic_int_get (&self->completed), NULL);
  g_return_val_if_fail (index < self->n_hits, NULL);
  return &self->hits[index];
}

guint64
planar_search_get_track_count (PlanarSearch *self,
                               guint         trace,
                               guint         plane,
                               guint         track)
{
  gsize first_plane, index;

  g_return_val_if_fail (PLANAR_IS_SEARCH (self), 0);

  if (!g_atomic_int_get (&self->completed) || trace >= self->traces->len)
    return 0;
  first_plane = self->trace_first_plane[trace];
  if (plane >= self->trace_first_plane[trace + 1] - first_plane)
    return 0;
  index = self->plane_first_track[first_plane + plane] + track;
  if (index >= self->plane_first_track[first_plane + plane + 1])
    return 0;
  return self->track_counts[index];
}

const PlanarEvent *
planar_search_resolve_hit (PlanarSearch           *self,
                           const PlanarSearchHit  *hit,
                           PlanarTrace           **trace,
                           const PlanarPlane     **plane,
                           const PlanarTrack     **track)
{
  PlanarTrace *t;
  const PlanarPlane *p;
  const PlanarTrack *k;

  g_return_val_if_fail (PLANAR_IS_SEARCH (self), NULL);
  g_return_val_if_fail (hit != NULL, NULL);
  g_return_val_if_fail (hit->ref.trace < self->traces->len, NULL);

  t = g_ptr_array_index (self->traces, hit->ref.trace);
  g_return_val_if_fail (hit->ref.plane < planar_trace_get_n_planes (t), NULL);
  p = planar_trace_get_plane (t, hit->ref.plane);
  g_return_val_if_fail (hit->ref.track < p->n_tracks, NULL);
  k = &p->tracks[hit->ref.track];
  g_return_val_if_fail (hit->ref.index < k->n_events, NULL);

  if (trace != NULL)
    *trace = t;
  if (plane != NULL)
    *plane = p;
  if (track != NULL)
    *track = k;
  return &k->events[hit->ref.index];
}
