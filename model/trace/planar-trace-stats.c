/* planar-trace-stats.c: decoding stats on demand.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-private.h"

#include <glib/gi18n-lib.h>

#include "planar-parallel.h"
#include "planar-xspace-fields-private.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

gboolean
_planar_trace_decode_stat (PlanarTrace              *self,
                           const PlanarPlanePrivate *ppriv,
                           PlanarWireReader         *outer,
                           const guint8             *payload,
                           gsize                     len,
                           PlanarStat               *stat)
{
  const PlanarXFields *xs = &_planar_xspace_fields ()->stat;
  PlanarWireReader r;
  PlanarWireField f;
  gint64 index;
  int rc;

  if (stat != NULL)
    {
      memset (stat, 0, sizeof *stat);
      stat->kind = PLANAR_STAT_NONE;
    }
  planar_wire_reader_init (&r, self->data, payload, len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      guint kind = planar_xfield_kind (xs, f.number);

      if (kind == 0)
        continue;
      if (f.wire_type != xs->wire[kind])
        {
          outer->error_at = f.start;
          outer->error_reason = N_("unexpected wire type in");
          return FALSE;
        }
      if (stat == NULL)
        continue;
      switch (kind)
        {
        case PLANAR_XSTAT_METADATA_ID:
          stat->metadata_id = (gint64) f.value;
          break;
        case PLANAR_XSTAT_DOUBLE:
          stat->kind = PLANAR_STAT_DOUBLE;
          memcpy (&stat->v.f64, &f.value, sizeof (double));
          break;
        case PLANAR_XSTAT_UINT64:
          stat->kind = PLANAR_STAT_UINT64;
          stat->v.u64 = f.value;
          break;
        case PLANAR_XSTAT_INT64:
          stat->kind = PLANAR_STAT_INT64;
          stat->v.i64 = (gint64) f.value;
          break;
        case PLANAR_XSTAT_STR:
        case PLANAR_XSTAT_BYTES:
          stat->kind = kind == PLANAR_XSTAT_STR ? PLANAR_STAT_STRING : PLANAR_STAT_BYTES;
          stat->str.data = (const char *) f.data;
          stat->str.len = f.len;
          break;
        case PLANAR_XSTAT_REF:
          stat->kind = PLANAR_STAT_REF;
          stat->v.u64 = f.value;
          break;
        default:
          break;
        }
    }
  if (rc < 0)
    {
      outer->error_at = r.error_at;
      outer->error_reason = r.error_reason;
      return FALSE;
    }
  if (stat == NULL)
    return TRUE;

  index = _planar_id_map_lookup (&ppriv->stat_map, stat->metadata_id);
  _planar_trace_steps++;
  stat->name = index >= 0 ? ppriv->stat_metadata[index].name : "";

  if (stat->kind == PLANAR_STAT_REF)
    {
      /* The value of a reference is the name of the stat metadata it points
       * at; an unknown reference reads as an empty string. */
      gint64 ref = _planar_id_map_lookup (&ppriv->stat_map, (gint64) stat->v.u64);
      const char *text = ref >= 0 ? ppriv->stat_metadata[ref].name : "";

      _planar_trace_steps++;
      stat->str.data = text;
      stat->str.len = strlen (text);
    }
  return TRUE;
}

typedef struct
{
  const char *name;
  gint64      metadata_id;
} StatKey;

static guint
stat_key_hash (gconstpointer p)
{
  const StatKey *k = p;

  if (k->name[0] == '\0')
    return _planar_id_hash (&k->metadata_id);
  _planar_trace_steps++;
  return g_direct_hash (k->name);
}

static gboolean
stat_key_equal (gconstpointer a,
                gconstpointer b)
{
  const StatKey *x = a, *y = b;

  _planar_trace_steps++;
  if (x->name != y->name)
    return FALSE;
  return x->name[0] != '\0' || x->metadata_id == y->metadata_id;
}

/* Two stats are the same when they have the same (interned) name, or, for
 * stats whose metadata is missing, the same metadata id. */
static inline gboolean
same_stat (const PlanarStat *a,
           const PlanarStat *b)
{
  return a->name == b->name && (a->name[0] != '\0' || a->metadata_id == b->metadata_id);
}

void
_planar_stats_add (GArray            *out,
                   guint              first,
                   const PlanarStat  *stat,
                   GHashTable       **seen)
{
  StatKey key = { stat->name, stat->metadata_id };
  gpointer found;

  /* Short lists (every real one) are searched; long ones get a table, so
   * that a damaged file with 100,000 stats on one event stays linear. */
  if (*seen == NULL && out->len - first < 16)
    {
      for (guint i = first; i < out->len; i++)
        if (same_stat (&g_array_index (out, PlanarStat, i), stat))
          {
            _planar_trace_steps += i - first + 1;
            g_array_index (out, PlanarStat, i) = *stat;
            return;
          }
      _planar_trace_steps += out->len - first + 1;
      g_array_append_val (out, *stat);
      return;
    }

  if (*seen == NULL)
    {
      *seen = g_hash_table_new_full (stat_key_hash, stat_key_equal, g_free, NULL);
      for (guint i = first; i < out->len; i++)
        {
          const PlanarStat *old = &g_array_index (out, PlanarStat, i);
          StatKey *k = g_new (StatKey, 1);

          k->name = old->name;
          k->metadata_id = old->metadata_id;
          g_hash_table_replace (*seen, k, GUINT_TO_POINTER (i + 1));
        }
    }

  if (g_hash_table_lookup_extended (*seen, &key, NULL, &found))
    {
      g_array_index (out, PlanarStat, GPOINTER_TO_UINT (found) - 1) = *stat;
      return;
    }
  g_array_append_val (out, *stat);
  g_hash_table_insert (*seen, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (out->len));
}

guint
planar_trace_get_event_stats (PlanarTrace       *self,
                              const PlanarPlane *plane,
                              const PlanarEvent *event,
                              GArray            *out,
                              GError           **error)
{
  const PlanarPlanePrivate *ppriv;
  const PlanarEventMetadata *md;
  PlanarWireReader r;
  PlanarWireField f;
  const guint8 *q;
  guint64 len;
  g_autoptr(GHashTable) seen = NULL;
  guint first, stats_field;
  int rc;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);
  g_return_val_if_fail (plane >= self->planes && plane < self->planes + self->n_planes, 0);
  g_return_val_if_fail (event != NULL, 0);
  g_return_val_if_fail (out != NULL && g_array_get_element_size (out) == sizeof (PlanarStat), 0);
  g_return_val_if_fail (event->metadata < plane->n_metadata, 0);

  ppriv = &self->planes_priv[plane - self->planes];
  md = &plane->metadata[event->metadata];
  first = out->len;
  if (md->n_stats > 0)
    g_array_append_vals (out, md->stats, md->n_stats);

  /* A derived event has no bytes in the file: its stats are its
   * metadata's and the group the model recorded for it. */
  if (event->flags & PLANAR_EVENT_DERIVED)
    {
      PlanarDerivedResults *derived = _planar_trace_get_derived (self);

      if (derived != NULL)
        self->derived_vtable->add_event_stats (derived, self, event, out, first);
      /* Their strings may point into the file too. */
      if (_planar_trace_check_changed (self, FALSE, error))
        {
          g_array_set_size (out, first);
          return 0;
        }
      return out->len - first;
    }

  g_return_val_if_fail (event->source < self->size, out->len - first);
  q = self->data + event->source;
  if (!planar_wire_read_varint (&q, self->data + self->size, &len) ||
      len > (guint64) (self->data + self->size - q))
    {
      planar_wire_set_error (error, PLANAR_TRACE_ERROR_CORRUPT, self->file_name, "XEvent",
                             event->source, "malformed");
      _planar_trace_check_changed (self, FALSE, error);
      g_array_set_size (out, first);
      return 0;
    }

  stats_field = _planar_xspace_fields ()->event.number[PLANAR_XEVENT_STATS];
  planar_wire_reader_init (&r, self->data, q, (gsize) len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      PlanarStat stat;

      if (f.number != stats_field)
        continue;
      if (f.wire_type != PLANAR_WIRE_LEN)
        {
          r.error_at = f.start;
          r.error_reason = N_("unexpected wire type in");
          rc = -1;
          break;
        }
      /* The event's framing holds, so one damaged stat costs that stat
       * only: the others are still read. */
      if (!_planar_trace_decode_stat (self, ppriv, &r, f.data, f.len, &stat))
        {
          _planar_trace_note_damaged_stat (self, (guint64) (f.start - self->data), r.error_reason);
          continue;
        }

      /* Event stats override the metadata's defaults of the same name, and
       * a name repeated on the event keeps its last value. */
      _planar_stats_add (out, first, &stat, &seen);
    }
  if (rc < 0)
    {
      planar_wire_set_error (error, PLANAR_TRACE_ERROR_CORRUPT, self->file_name, "XStat",
                             (guint64) (r.error_at - self->data), r.error_reason);
      _planar_trace_check_changed (self, FALSE, error);
      g_array_set_size (out, first);
      return 0;
    }
  /* The file cut under this read (or an earlier one): the bytes read as
   * zeros, which can look like an event without stats. One atomic load. */
  if (_planar_trace_check_changed (self, FALSE, error))
    {
      g_array_set_size (out, first);
      return 0;
    }

  return out->len - first;
}

char *
planar_stat_format_value (const PlanarStat *stat)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (stat != NULL, NULL);

  switch (stat->kind)
    {
    case PLANAR_STAT_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, stat->v.i64);
    case PLANAR_STAT_UINT64:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, stat->v.u64);
    case PLANAR_STAT_DOUBLE:
      return g_strdup (g_ascii_dtostr (buf, sizeof buf, stat->v.f64));
    case PLANAR_STAT_STRING:
    case PLANAR_STAT_REF:
      return g_strndup (stat->str.data, stat->str.len);
    case PLANAR_STAT_BYTES:
      return g_strdup_printf ("<%" G_GSIZE_FORMAT " bytes>", stat->str.len);
    case PLANAR_STAT_NONE:
    default:
      return g_strdup ("");
    }
}

#define COUNT_DROP_PAGES_MIN_SIZE (G_GUINT64_CONSTANT (256) << 20)
#define COUNT_DROP_PAGES_EVERY    (G_GUINT64_CONSTANT (4) << 20)

/* Damaged stats. They are rare, so one lock for every trace is enough. */

struct _PlanarStatDamage
{
  /* Offsets of the damaged XStats met by reads, up to SEEN_MAX of them. */
  GHashTable *seen;
  guint64     n_seen;
  /* The count of planar_trace_count_damaged_stats(), once it ran. */
  gboolean    counted;
  guint64     n_counted;
  /* The first damaged stat in the file met so far. */
  guint64     first_offset;
  const char *first_reason;
};

#define SEEN_MAX 65536

G_LOCK_DEFINE_STATIC (stat_damage);

void
_planar_stat_damage_free (PlanarStatDamage *damage)
{
  if (damage == NULL)
    return;
  g_clear_pointer (&damage->seen, g_hash_table_unref);
  g_free (damage);
}

static guint
offset_hash (gconstpointer p)
{
  return g_int64_hash (p);
}

static gboolean
offset_equal (gconstpointer a,
              gconstpointer b)
{
  return g_int64_equal (a, b);
}

/* Called with the lock held. */
static PlanarStatDamage *
ensure_damage (PlanarTrace *self)
{
  if (self->stat_damage == NULL)
    {
      self->stat_damage = g_new0 (PlanarStatDamage, 1);
      self->stat_damage->seen = g_hash_table_new_full (offset_hash, offset_equal, g_free, NULL);
      self->stat_damage->first_offset = G_MAXUINT64;
    }
  return self->stat_damage;
}

/* Called with the lock held. */
static void
note_first (PlanarStatDamage *damage,
            guint64           offset,
            const char       *reason)
{
  if (offset < damage->first_offset)
    {
      damage->first_offset = offset;
      damage->first_reason = reason != NULL ? reason : "malformed";
    }
}

void
_planar_trace_note_damaged_stat (PlanarTrace *self,
                                 guint64      offset,
                                 const char  *reason)
{
  PlanarStatDamage *damage;

  G_LOCK (stat_damage);
  damage = ensure_damage (self);
  note_first (damage, offset, reason);
  /* Past SEEN_MAX distinct ones, no more are counted: the count stays a
   * lower bound, and counting them all says the rest. */
  if (g_hash_table_size (damage->seen) < SEEN_MAX && !g_hash_table_contains (damage->seen, &offset))
    {
      g_hash_table_add (damage->seen, g_memdup2 (&offset, sizeof offset));
      damage->n_seen++;
    }
  G_UNLOCK (stat_damage);
}

/* Called with the lock held. */
static guint64
known_damage (PlanarTrace  *self,
              char        **first)
{
  PlanarStatDamage *damage = self->stat_damage;
  guint64 n;

  if (first != NULL)
    *first = NULL;
  if (damage == NULL)
    return 0;
  n = damage->counted ? damage->n_counted : damage->n_seen;
  if (n > 0 && first != NULL && damage->first_offset != G_MAXUINT64)
    *first = g_strdup_printf ("%s XStat at byte %" G_GUINT64_FORMAT " of %s", damage->first_reason,
                              damage->first_offset, self->file_name);
  return n;
}

guint64
planar_trace_get_n_damaged_stats (PlanarTrace  *self,
                                  char        **first)
{
  guint64 n;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);

  G_LOCK (stat_damage);
  n = known_damage (self, first);
  G_UNLOCK (stat_damage);
  return n;
}

/* A large file's pages the count read are dropped behind it, every few
 * MiB, as the decoder drops those of the lines it decoded: counting must not
 * bring the whole file back into the process's memory. */
static void
drop_pages (PlanarTrace  *self,
            const guint8 *from,
            const guint8 *to)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  guint64 begin = ((guint64) (from - self->data) + page - 1) / page * page;
  guint64 end = (guint64) (to - self->data) / page * page;

  if (self->size >= COUNT_DROP_PAGES_MIN_SIZE && end > begin)
    madvise ((void *) (self->data + begin), end - begin, MADV_DONTNEED);
}

/* Counts the damaged stats of one XLine payload, noting the first. The
 * loader checked the framing of the line and of its events; should it fail
 * here anyway, the rest of the line is left alone. */
static guint64
count_damaged_in_line (PlanarTrace              *self,
                       const PlanarPlanePrivate *ppriv,
                       const PlanarLine         *line,
                       guint64                  *first_offset,
                       const char              **first_reason)
{
  const PlanarXSpaceFields *xf = _planar_xspace_fields ();
  guint events_field = xf->line.number[PLANAR_XLINE_EVENTS];
  guint stats_field = xf->event.number[PLANAR_XEVENT_STATS];
  PlanarWireReader r;
  PlanarWireField f;
  const guint8 *dropped;
  guint64 n = 0;

  if (line->offset >= self->size || line->size > self->size - line->offset)
    return 0;
  planar_wire_reader_init (&r, self->data, self->data + line->offset, (gsize) line->size);
  dropped = self->data + line->offset;
  while (planar_wire_next (&r, &f) > 0)
    {
      PlanarWireReader er;
      PlanarWireField ef;

      if ((guint64) (f.start - dropped) >= COUNT_DROP_PAGES_EVERY)
        {
          drop_pages (self, dropped, f.start);
          dropped = f.start;
        }
      if (f.number != events_field || f.wire_type != PLANAR_WIRE_LEN)
        continue;
      planar_wire_reader_init (&er, self->data, f.data, f.len);
      while (planar_wire_next (&er, &ef) > 0)
        {
          if (ef.number != stats_field || ef.wire_type != PLANAR_WIRE_LEN)
            continue;
          /* Checked, not decoded: a name and a value are never wrong. */
          if (!_planar_trace_decode_stat (self, ppriv, &er, ef.data, ef.len, NULL))
            {
              guint64 offset = (guint64) (ef.start - self->data);

              if (n++ == 0 && offset < *first_offset)
                {
                  *first_offset = offset;
                  *first_reason = er.error_reason;
                }
            }
        }
    }
  drop_pages (self, dropped, self->data + line->offset + line->size);
  return n;
}

/* planar_trace_count_damaged_stats() on the model's worker pool: the
 * lines are independent byte ranges, counted in chunks of about 8 MiB (a
 * small file is counted by one thread), each chunk into its own slot. */
#define COUNT_CHUNK_BYTES (G_GUINT64_CONSTANT (8) << 20)

typedef struct
{
  guint plane;
  guint line;
} LineRef;

typedef struct
{
  /* Lines [first, end) of the job's list. */
  guint       first;
  guint       end;
  guint64     n;
  guint64     first_offset;
  const char *first_reason;
} CountChunk;

typedef struct
{
  PlanarTrace *self;
  GArray      *lines;
  CountChunk  *chunks;
} CountJob;

static gboolean
count_chunk (guint          index,
             gpointer       data,
             GCancellable  *cancellable,
             GError       **error)
{
  CountJob *job = data;
  PlanarTrace *self = job->self;
  CountChunk *chunk = &job->chunks[index];

  chunk->first_offset = G_MAXUINT64;
  for (guint i = chunk->first; i < chunk->end; i++)
    {
      const LineRef *ref = &g_array_index (job->lines, LineRef, i);

      chunk->n += count_damaged_in_line (self, &self->planes_priv[ref->plane],
                                         &self->planes[ref->plane].lines[ref->line],
                                         &chunk->first_offset, &chunk->first_reason);
    }
  return TRUE;
}

guint64
planar_trace_count_damaged_stats (PlanarTrace  *self,
                                  char        **first)
{
  gboolean counted;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);

  G_LOCK (stat_damage);
  counted = self->stat_damage != NULL && self->stat_damage->counted;
  G_UNLOCK (stat_damage);

  /* Two threads may both count; they find the same. */
  if (!counted)
    {
      g_autoptr(GArray) lines = g_array_new (FALSE, FALSE, sizeof (LineRef));
      g_autoptr(GArray) chunks = g_array_new (FALSE, TRUE, sizeof (CountChunk));
      CountJob job = { self, lines, NULL };
      guint64 n = 0, first_offset = G_MAXUINT64, chunk_bytes = 0;
      const char *first_reason = NULL;

      for (guint p = 0; p < self->n_planes; p++)
        for (guint l = 0; l < self->planes[p].n_lines; l++)
          if (!self->planes[p].lines[l].derived)
            {
              LineRef ref = { p, l };

              if (chunks->len == 0 || chunk_bytes >= COUNT_CHUNK_BYTES)
                {
                  CountChunk chunk = { lines->len, lines->len, 0, 0, NULL };

                  g_array_append_val (chunks, chunk);
                  chunk_bytes = 0;
                }
              g_array_append_val (lines, ref);
              g_array_index (chunks, CountChunk, chunks->len - 1).end = lines->len;
              chunk_bytes += self->planes[p].lines[l].size;
            }

      job.chunks = (CountChunk *) (gpointer) chunks->data;
      /* Nothing fails and nothing cancels: the pool only shares the work. */
      planar_parallel_run (chunks->len, NULL, count_chunk, &job, NULL, NULL);
      for (guint c = 0; c < chunks->len; c++)
        {
          const CountChunk *chunk = &g_array_index (chunks, CountChunk, c);

          n += chunk->n;
          if (chunk->n > 0 && chunk->first_offset < first_offset)
            {
              first_offset = chunk->first_offset;
              first_reason = chunk->first_reason;
            }
        }

      _planar_trace_set_damaged_count (self, n, first_offset, first_reason);
    }
  return planar_trace_get_n_damaged_stats (self, first);
}

void
_planar_trace_set_damaged_count (PlanarTrace *self,
                                 guint64      n,
                                 guint64      first_offset,
                                 const char  *first_reason)
{
  PlanarStatDamage *damage;

  G_LOCK (stat_damage);
  damage = ensure_damage (self);
  damage->counted = TRUE;
  /* What reads met is part of what the lines hold. */
  damage->n_counted = MAX (n, damage->n_seen);
  if (n > 0)
    note_first (damage, first_offset, first_reason);
  G_UNLOCK (stat_damage);
}

gboolean
_planar_decimal_text (const char *s,
                      gsize       len,
                      gboolean    negative,
                      guint64    *value)
{
  gboolean minus = negative && len > 0 && s[0] == '-';
  guint64 v = 0;

  if (len == (minus ? 1u : 0u))
    return FALSE;
  for (gsize i = minus ? 1 : 0; i < len; i++)
    {
      guint digit = (guint) (s[i] - '0');

      if (s[i] < '0' || s[i] > '9' || v > (G_MAXUINT64 - digit) / 10)
        return FALSE;
      v = v * 10 + digit;
    }
  if (minus && v > (guint64) G_MAXINT64 + 1)
    return FALSE;
  *value = minus ? (guint64) 0 - v : v;
  return TRUE;
}
