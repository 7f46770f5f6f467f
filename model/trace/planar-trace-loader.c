/* planar-trace-loader.c: maps an `.xplane.pb`, scans its structure and
 * decodes its lines in parallel into flat per-track event arrays.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cache-private.h"
#include "planar-mapping-private.h"
#include "planar-trace-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Why the project's own reader and not protobuf-c for events, decided by
 * measurement (bench/planar-bench-load, table in bench/RESULTS.md): unpacking
 * with protobuf-c allocates an XEvent struct, a stats pointer array and an
 * XStat struct per stat, and copies every string, whether it unpacks the
 * whole XSpace or one XLine at a time (the work per event is the same). On
 * the 1e7-event generated profile (371 MB) that took 12.4 s and 3.45 GB,
 * while this reader has the whole index ready in 0.86 s with a 456 MB peak
 * (2 cores). It writes each event straight into its track's array as a
 * 32-byte record and leaves the stats in the mapped file until somebody asks
 * for them (planar-trace-stats.c). */

/* Line timestamps at or past this are wall-clock nanoseconds (after 1970-01-12)
 * rather than nanoseconds since the profile start; no profile is that long. */
#define PLANAR_EPOCH_THRESHOLD_NS G_GINT64_CONSTANT (1000000000000000)

/* How often workers look at the cancellable and publish progress. */
#define PLANAR_PROGRESS_EVENTS 65536

/* Files larger than this have the pages of decoded lines dropped from the
 * process (they stay in the page cache), so that peak memory is the index
 * plus what the workers are reading, not the index plus the whole file. */
#define PLANAR_DROP_PAGES_MIN_SIZE (G_GUINT64_CONSTANT (256) << 20)

/* What the structure costs in memory before any event: a plane's records
 * and tables, a line's record with its decode and track bookkeeping (and
 * room for the lines derived from it), a metadata entry, a decoded stat.
 * They are charged against the same budget as the events, so that a file of
 * a million empty lines or planes is refused instead of multiplying. */
#define PLANAR_PLANE_COST 1024
#define PLANAR_LINE_COST (512 + 6 * (sizeof (PlanarTrack) + sizeof (PlanarLine) + sizeof (gint)))
#define PLANAR_METADATA_COST (sizeof (PlanarEventMetadata) + 64)
#define PLANAR_STAT_COST (sizeof (PlanarStat) + 16)

static const char task_environment_plane[] = "Task Environment";

static gboolean
claim_structure (PlanarTrace  *self,
                 guint64       bytes,
                 GError      **error)
{
  self->memory_claimed += bytes;
  if (self->memory_claimed > self->memory_budget)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_TOO_LARGE,
                   "%s needs more memory than its size justifies "
                   "(over %" G_GUINT64_FORMAT " MiB for its structure)",
                   self->file_name, self->memory_budget >> 20);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */

void
_planar_id_map_init (PlanarIdMap  *map,
                     const gint64 *ids,
                     guint         n_ids,
                     guint         first_index)
{
  gint64 max_id = -1;
  gboolean all_small = TRUE;

  memset (map, 0, sizeof *map);
  for (guint i = 0; i < n_ids; i++)
    {
      if (ids[i] < 0)
        all_small = FALSE;
      else if (ids[i] > max_id)
        max_id = ids[i];
    }

  /* A direct table when it costs at most a few words per id. */
  if (all_small && max_id >= 0 && (guint64) max_id < (guint64) n_ids * 4 + 1024)
    {
      map->n_direct = (gsize) max_id + 1;
      map->direct = g_new0 (guint32, map->n_direct);
      for (guint i = 0; i < n_ids; i++)
        map->direct[ids[i]] = first_index + i + 1;
      return;
    }

  map->sparse = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < n_ids; i++)
    {
      gint64 *key = g_new (gint64, 1);

      *key = ids[i];
      g_hash_table_replace (map->sparse, key, GSIZE_TO_POINTER ((gsize) first_index + i + 1));
    }
}

void
_planar_id_map_clear (PlanarIdMap *map)
{
  g_clear_pointer (&map->direct, g_free);
  g_clear_pointer (&map->sparse, g_hash_table_unref);
  map->n_direct = 0;
}

/* ------------------------------------------------------------------------ */

typedef struct
{
  PlanarTrace *self;
  GError     **error;
} ScanContext;

static gboolean
scan_fail (PlanarTrace            *self,
           const PlanarWireReader *r,
           const char             *what,
           GError                **error)
{
  planar_wire_set_error (error, PLANAR_TRACE_ERROR_CORRUPT, self->file_name, what,
                         (guint64) (r->error_at - self->data), r->error_reason);
  return FALSE;
}

static gboolean
wrong_type (PlanarTrace           *self,
            const PlanarWireField *f,
            const char            *what,
            GError               **error)
{
  planar_wire_set_error (error, PLANAR_TRACE_ERROR_CORRUPT, self->file_name, what,
                         (guint64) (f->start - self->data), "unexpected wire type in");
  return FALSE;
}

static char *
dup_field_string (const PlanarWireField *f)
{
  return g_strndup ((const char *) f->data, f->len);
}

/* Reads an XStatMetadata map entry. */
static gboolean
scan_stat_metadata (PlanarTrace           *self,
                    const PlanarWireField *entry,
                    PlanarStatMetadata    *out,
                    GError               **error)
{
  PlanarWireReader r, v;
  PlanarWireField f;
  gboolean has_key = FALSE;
  gint64 value_id = 0;
  const guint8 *name = NULL;
  gsize name_len = 0;
  int rc;

  planar_wire_reader_init (&r, self->data, entry->data, entry->len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      if (f.number == 1)
        {
          if (f.wire_type != PLANAR_WIRE_VARINT)
            return wrong_type (self, &f, "XStatMetadata", error);
          out->id = (gint64) f.value;
          has_key = TRUE;
        }
      else if (f.number == 2)
        {
          if (f.wire_type != PLANAR_WIRE_LEN)
            return wrong_type (self, &f, "XStatMetadata", error);
          planar_wire_reader_init (&v, self->data, f.data, f.len);
          name = NULL;
          name_len = 0;
          value_id = 0;
          while ((rc = planar_wire_next (&v, &f)) > 0)
            {
              if (f.number == 1 && f.wire_type == PLANAR_WIRE_VARINT)
                value_id = (gint64) f.value;
              else if (f.number == 2 && f.wire_type == PLANAR_WIRE_LEN)
                {
                  name = f.data;
                  name_len = f.len;
                }
              else if (f.number <= 3 && f.wire_type != PLANAR_WIRE_LEN && f.number != 1)
                return wrong_type (self, &f, "XStatMetadata", error);
            }
          if (rc < 0)
            return scan_fail (self, &v, "XStatMetadata", error);
        }
    }
  if (rc < 0)
    return scan_fail (self, &r, "XStatMetadata", error);

  /* A map entry without a key has key 0; the value's own id only fills in
   * for writers that leave the key out. */
  if (!has_key)
    out->id = value_id;
  out->name = name ? planar_string_table_intern_len (self->strings, (const char *) name, name_len)
                   : planar_string_table_intern (self->strings, "");
  return TRUE;
}

typedef struct
{
  gint64        id;
  const guint8 *name;
  gsize         name_len;
  const guint8 *display_name;
  gsize         display_name_len;
  /* The value message, for its stats. */
  const guint8 *value;
  gsize         value_len;
} EventMetadataRange;

static gboolean
scan_event_metadata (PlanarTrace           *self,
                     const PlanarWireField *entry,
                     EventMetadataRange    *out,
                     GError               **error)
{
  PlanarWireReader r, v;
  PlanarWireField f;
  gboolean has_key = FALSE;
  gint64 value_id = 0;
  int rc;

  memset (out, 0, sizeof *out);
  planar_wire_reader_init (&r, self->data, entry->data, entry->len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      if (f.number == 1)
        {
          if (f.wire_type != PLANAR_WIRE_VARINT)
            return wrong_type (self, &f, "XEventMetadata", error);
          out->id = (gint64) f.value;
          has_key = TRUE;
        }
      else if (f.number == 2)
        {
          if (f.wire_type != PLANAR_WIRE_LEN)
            return wrong_type (self, &f, "XEventMetadata", error);
          out->value = f.data;
          out->value_len = f.len;
        }
    }
  if (rc < 0)
    return scan_fail (self, &r, "XEventMetadata", error);

  planar_wire_reader_init (&v, self->data, out->value, out->value_len);
  out->name = out->display_name = NULL;
  while ((rc = planar_wire_next (&v, &f)) > 0)
    {
      switch (f.number)
        {
        case 1:
          if (f.wire_type != PLANAR_WIRE_VARINT)
            return wrong_type (self, &f, "XEventMetadata", error);
          value_id = (gint64) f.value;
          break;
        case 2:
        case 3:
        case 4:
        case 5:
          if (f.wire_type != PLANAR_WIRE_LEN)
            return wrong_type (self, &f, "XEventMetadata", error);
          if (f.number == 2)
            {
              out->name = f.data;
              out->name_len = f.len;
            }
          else if (f.number == 4)
            {
              out->display_name = f.data;
              out->display_name_len = f.len;
            }
          break;
        default:
          break;
        }
    }
  if (rc < 0)
    return scan_fail (self, &v, "XEventMetadata", error);
  if (!has_key)
    out->id = value_id;
  return TRUE;
}

/* Decodes every XStat (field @field_number) of the message in [data, len)
 * into a new array. */
static gboolean
decode_stats_of (PlanarTrace              *self,
                 const PlanarPlanePrivate *ppriv,
                 const guint8             *data,
                 gsize                     len,
                 guint                     field_number,
                 gboolean                  from_metadata,
                 const char               *what,
                 PlanarStat              **stats_out,
                 guint                    *n_stats_out,
                 GError                  **error)
{
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (PlanarStat));
  g_autoptr(GHashTable) seen = NULL;
  PlanarWireReader r;
  PlanarWireField f;
  int rc;

  planar_wire_reader_init (&r, self->data, data, len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      PlanarStat stat;

      if (f.number != field_number)
        continue;
      if (f.wire_type != PLANAR_WIRE_LEN)
        return wrong_type (self, &f, what, error);
      if (!_planar_trace_decode_stat (self, ppriv, &r, f.data, f.len, &stat))
        return scan_fail (self, &r, "XStat", error);
      if (!claim_structure (self, PLANAR_STAT_COST, error))
        return FALSE;
      stat.from_metadata = from_metadata;
      /* A repeated stat keeps its last value, as the visitor does. */
      _planar_stats_add (stats, 0, &stat, &seen);
    }
  if (rc < 0)
    return scan_fail (self, &r, what, error);

  *n_stats_out = stats->len;
  *stats_out = stats->len ? (PlanarStat *) g_array_free (g_steal_pointer (&stats), FALSE) : NULL;
  return TRUE;
}

/* Scans one XPlane. A @cut plane is the one the end of the file cut
 * short: its fields up to the cut are kept (whole lines and metadata), the
 * field the cut runs through is dropped. */
static gboolean
scan_plane (PlanarTrace           *self,
            const PlanarWireField *plane_field,
            gboolean               cut,
            PlanarPlane           *plane,
            PlanarPlanePrivate    *ppriv,
            GError               **error)
{
  PlanarWireField whole = *plane_field;
  g_autoptr(GArray) line_offsets = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) line_sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) stat_md = g_array_new (FALSE, FALSE, sizeof (PlanarStatMetadata));
  g_autoptr(GArray) event_md = g_array_new (FALSE, FALSE, sizeof (EventMetadataRange));
  g_autofree gint64 *ids = NULL;
  PlanarWireReader r;
  PlanarWireField f;
  int rc;

  plane->name = planar_string_table_intern (self->strings, "");
  planar_wire_reader_init (&r, self->data, plane_field->data, plane_field->len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      switch (f.number)
        {
        case 1:
          if (f.wire_type != PLANAR_WIRE_VARINT)
            return wrong_type (self, &f, "XPlane", error);
          plane->id = (gint64) f.value;
          break;

        case 2:
          if (f.wire_type != PLANAR_WIRE_LEN)
            return wrong_type (self, &f, "XPlane", error);
          plane->name = planar_string_table_intern_len (self->strings, (const char *) f.data, f.len);
          break;

        case 3:
          {
            guint64 off = (guint64) (f.data - self->data);
            guint64 sz = f.len;

            if (f.wire_type != PLANAR_WIRE_LEN)
              return wrong_type (self, &f, "XPlane", error);
            g_array_append_val (line_offsets, off);
            g_array_append_val (line_sizes, sz);
          }
          break;

        case 4:
          {
            EventMetadataRange em;

            if (f.wire_type != PLANAR_WIRE_LEN)
              return wrong_type (self, &f, "XPlane", error);
            if (!scan_event_metadata (self, &f, &em, error))
              return FALSE;
            g_array_append_val (event_md, em);
          }
          break;

        case 5:
          {
            PlanarStatMetadata sm = { 0 };

            if (f.wire_type != PLANAR_WIRE_LEN)
              return wrong_type (self, &f, "XPlane", error);
            if (!scan_stat_metadata (self, &f, &sm, error))
              return FALSE;
            g_array_append_val (stat_md, sm);
          }
          break;

        case 6:
          if (f.wire_type != PLANAR_WIRE_LEN)
            return wrong_type (self, &f, "XPlane", error);
          break;

        default:
          break;
        }
    }
  if (rc < 0 && !cut)
    return scan_fail (self, &r, "XPlane", error);
  /* What is left of a cut plane: its fields before the one cut. */
  if (rc < 0)
    whole.len = (gsize) (r.p - plane_field->data);

  if (!claim_structure (self, (guint64) line_offsets->len * PLANAR_LINE_COST +
                              (guint64) event_md->len * PLANAR_METADATA_COST +
                              (guint64) stat_md->len * PLANAR_METADATA_COST, error))
    return FALSE;

  /* Stat metadata first: event metadata stats and plane stats name through
   * it. Later map entries with the same key replace earlier ones. */
  ppriv->n_stat_metadata = stat_md->len;
  ppriv->stat_metadata = (PlanarStatMetadata *) g_array_free (g_steal_pointer (&stat_md), FALSE);
  ids = g_new (gint64, MAX (ppriv->n_stat_metadata, 1));
  for (guint i = 0; i < ppriv->n_stat_metadata; i++)
    ids[i] = ppriv->stat_metadata[i].id;
  _planar_id_map_init (&ppriv->stat_map, ids, ppriv->n_stat_metadata, 0);
  g_clear_pointer (&ids, g_free);

  /* Entry 0 stands for ids the plane does not define: events pointing at a
   * missing metadata id get an empty name, as XProf shows them. */
  plane->n_metadata = event_md->len + 1;
  plane->metadata = g_new0 (PlanarEventMetadata, plane->n_metadata);
  plane->metadata[0].id = -1;
  plane->metadata[0].name = plane->metadata[0].display_name = planar_string_table_intern (self->strings, "");
  ids = g_new (gint64, plane->n_metadata);
  ids[0] = 0;
  for (guint i = 0; i < event_md->len; i++)
    {
      const EventMetadataRange *em = &g_array_index (event_md, EventMetadataRange, i);
      PlanarEventMetadata *md = &plane->metadata[i + 1];

      md->id = em->id;
      md->name = em->name ? planar_string_table_intern_len (self->strings, (const char *) em->name, em->name_len)
                          : planar_string_table_intern (self->strings, "");
      md->display_name = em->display_name_len > 0
        ? planar_string_table_intern_len (self->strings, (const char *) em->display_name, em->display_name_len)
        : md->name;
      if (!decode_stats_of (self, ppriv, em->value, em->value_len, 5, TRUE, "XEventMetadata",
                            &md->stats, &md->n_stats, error))
        return FALSE;
      ids[i + 1] = em->id;
    }
  /* Ids map to indices from 1: index 0 is the placeholder above. */
  _planar_id_map_init (&ppriv->event_map, ids + 1, plane->n_metadata - 1, 1);

  if (!decode_stats_of (self, ppriv, whole.data, whole.len, 6, FALSE, "XPlane",
                        &plane->stats, &plane->n_stats, error))
    return FALSE;

  plane->n_lines = line_offsets->len;
  ppriv->line_offsets = (guint64 *) g_array_free (g_steal_pointer (&line_offsets), FALSE);
  ppriv->line_sizes = (guint64 *) g_array_free (g_steal_pointer (&line_sizes), FALSE);
  ppriv->line_timestamps = g_new0 (gint64, MAX (plane->n_lines, 1));
  ppriv->line_hashes = g_new0 (guint64, 2 * MAX (plane->n_lines, 1));
  plane->lines = g_new0 (PlanarLine, MAX (plane->n_lines, 1));

  /* Only the timestamps are read here, to choose the time base before the
   * workers start. A serializer writes them before the events, so this
   * stops after the third field of a line. */
  for (guint i = 0; i < plane->n_lines; i++)
    {
      PlanarWireReader lr;
      PlanarWireField lf;

      plane->lines[i].offset = ppriv->line_offsets[i];
      plane->lines[i].size = ppriv->line_sizes[i];
      planar_wire_reader_init (&lr, self->data, self->data + ppriv->line_offsets[i], ppriv->line_sizes[i]);
      while ((rc = planar_wire_next (&lr, &lf)) > 0)
        {
          if (lf.number == 3 && lf.wire_type == PLANAR_WIRE_VARINT)
            {
              ppriv->line_timestamps[i] = (gint64) lf.value;
              break;
            }
        }
      if (rc < 0)
        return scan_fail (self, &lr, "XLine", error);
      self->line_bytes_total += ppriv->line_sizes[i];
    }

  return TRUE;
}

/* The window a file with a start time covers (see PlanarTrace.window_*):
 * line timestamps are ns since the start, or wall-clock ones past
 * PLANAR_EPOCH_THRESHOLD_NS. */
static void
set_time_window (PlanarTrace *self,
                 guint64      stop_ns)
{
  gint64 lo = 0, hi = 0;
  guint64 neg;

  for (guint i = 0; i < self->n_planes; i++)
    for (guint j = 0; j < self->planes[i].n_lines; j++)
      {
        gint64 ts = self->planes_priv[i].line_timestamps[j];
        gint64 rel = ts >= PLANAR_EPOCH_THRESHOLD_NS ? ts - (gint64) self->profile_start_ns : ts;

        lo = MIN (lo, rel);
        hi = MAX (hi, rel);
      }
  /* The start and @hi are at most G_MAXINT64: their sum fits in 64 bits. */
  neg = lo == G_MININT64 ? (guint64) G_MAXINT64 + 1 : (guint64) -lo;
  self->window_start_ns = neg > self->profile_start_ns ? 0 : self->profile_start_ns - neg;
  self->window_end_ns = self->profile_start_ns + (guint64) hi;
  if (stop_ns > self->window_end_ns && stop_ns <= G_MAXINT64)
    self->window_end_ns = stop_ns;
}

static void
read_task_environment (PlanarTrace *self)
{
  guint64 stop_ns = 0;

  for (guint i = 0; i < self->n_planes; i++)
    {
      const PlanarPlane *plane = &self->planes[i];

      if (g_strcmp0 (plane->name, task_environment_plane) != 0)
        continue;
      for (guint j = 0; j < plane->n_stats; j++)
        {
          const PlanarStat *stat = &plane->stats[j];

          if (g_strcmp0 (stat->name, "profile_stop_time") == 0 &&
              (stat->kind == PLANAR_STAT_UINT64 || stat->kind == PLANAR_STAT_INT64))
            stop_ns = stat->v.u64;
          if (g_strcmp0 (stat->name, "profile_start_time") != 0)
            continue;
          if (stat->kind == PLANAR_STAT_UINT64 || stat->kind == PLANAR_STAT_INT64)
            {
              if (stat->v.u64 > 0 && stat->v.u64 <= G_MAXINT64)
                {
                  self->has_start_time = TRUE;
                  self->profile_start_ns = stat->v.u64;
                }
            }
        }
    }

  if (self->has_start_time)
    set_time_window (self, stop_ns);

  /* Without a start time, wall-clock lines are rebased on the earliest of
   * them; small (already relative) timestamps are left as they are. */
  if (!self->has_start_time)
    {
      for (guint i = 0; i < self->n_planes; i++)
        for (guint j = 0; j < self->planes[i].n_lines; j++)
          {
            gint64 ts = self->planes_priv[i].line_timestamps[j];

            if (ts >= PLANAR_EPOCH_THRESHOLD_NS && (!self->has_epoch_base || ts < self->epoch_base_ns))
              {
                self->has_epoch_base = TRUE;
                self->epoch_base_ns = ts;
              }
          }
    }
}

/* Whether a failed read ran into the end of the file (a file cut short)
 * rather than into damaged bytes. */
static gboolean
ran_off_the_end (PlanarTrace            *self,
                 const PlanarWireReader *r)
{
  const guint8 *eof = self->data + self->size;

  if (r->end != eof || r->error_reason == NULL)
    return FALSE;
  if (strcmp (r->error_reason, "length past the end of") == 0)
    return TRUE;
  /* A tag, length or value whose bytes the end cuts. */
  return (strcmp (r->error_reason, "truncated") == 0 || g_str_has_prefix (r->error_reason, "malformed "))
         && eof - r->error_at <= 10;
}

static const char *
plural (guint       n,
        const char *one,
        const char *many)
{
  return n == 1 ? one : many;
}

/* Says what a file cut short lost: @n_whole planes read whole, and the one
 * the cut runs through kept in part (@cut_plane, or NULL when dropped). */
static void
set_damage (PlanarTrace       *self,
            guint              n_whole,
            const PlanarPlane *cut_plane,
            const GError      *detail)
{
  g_autoptr(GString) text = g_string_new ("the file ends early: ");

  if (cut_plane != NULL)
    {
      g_string_append_printf (text, "read %u whole %s and %u %s of plane \"%s\"", n_whole,
                              plural (n_whole, "plane", "planes"), cut_plane->n_lines,
                              plural (cut_plane->n_lines, "line", "lines"), cut_plane->name);
      if (cut_plane->n_metadata <= 1)
        g_string_append (text, " (without their event names)");
      g_string_append (text, "; the rest of that plane and anything after it is lost");
    }
  else
    g_string_append_printf (text, "read %u whole %s; anything after %s is lost", n_whole,
                            plural (n_whole, "plane", "planes"), plural (n_whole, "it", "them"));
  self->damage = g_string_free (g_steal_pointer (&text), FALSE);
  self->damage_detail = g_strdup (detail->message);
}

gboolean
_planar_trace_scan (PlanarTrace  *self,
                    GError      **error)
{
  g_autoptr(GArray) plane_fields = g_array_new (FALSE, FALSE, sizeof (PlanarWireField));
  g_autoptr(GPtrArray) hostnames = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  g_autoptr(GPtrArray) errors = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  g_autoptr(GError) cut_error = NULL;
  PlanarWireField cut_field = { 0 };
  gboolean have_cut_field = FALSE;
  guint n_whole;
  PlanarWireReader r;
  PlanarWireField f;
  int rc;

  g_clear_pointer (&self->damage, g_free);
  g_clear_pointer (&self->damage_detail, g_free);

  planar_wire_reader_init (&r, self->data, self->data, self->size);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      if (f.number >= 1 && f.number <= 4 && f.wire_type != PLANAR_WIRE_LEN)
        return wrong_type (self, &f, "XSpace", error);
      switch (f.number)
        {
        case 1:
          g_array_append_val (plane_fields, f);
          break;
        case 2:
          g_ptr_array_add (errors, dup_field_string (&f));
          break;
        case 3:
          g_ptr_array_add (warnings, dup_field_string (&f));
          break;
        case 4:
          g_ptr_array_add (hostnames, dup_field_string (&f));
          break;
        default:
          break;
        }
    }
  if (rc < 0 && !ran_off_the_end (self, &r))
    return scan_fail (self, &r, "XSpace", error);
  if (rc < 0)
    {
      /* Cut short: what is whole before the cut opens, and the plane the
       * cut runs through keeps its whole lines. */
      scan_fail (self, &r, "XSpace", &cut_error);
      if (strcmp (r.error_reason, "length past the end of") == 0 && f.number == 1 &&
          f.wire_type == PLANAR_WIRE_LEN)
        {
          const guint8 *q = r.error_at;
          guint64 len;

          if (planar_wire_read_varint (&q, r.end, &len) && q < r.end)
            {
              cut_field = f;
              cut_field.data = q;
              cut_field.len = (gsize) (r.end - q);
              have_cut_field = TRUE;
            }
        }
    }
  n_whole = plane_fields->len;
  if (have_cut_field)
    g_array_append_val (plane_fields, cut_field);

  self->hostnames = (GStrv) g_ptr_array_free (g_steal_pointer (&hostnames), FALSE);
  self->errors = (GStrv) g_ptr_array_free (g_steal_pointer (&errors), FALSE);
  self->warnings = (GStrv) g_ptr_array_free (g_steal_pointer (&warnings), FALSE);

  /* The index may take 6x the file (32 bytes per event of at least ~8 on
   * the wire, with its indices) plus a fixed allowance. */
  self->memory_budget = (guint64) 64 * 1024 * 1024 + (guint64) self->size * 6;
  self->spill = _planar_trace_wants_spill (self->size);
  if (!claim_structure (self, (guint64) plane_fields->len * PLANAR_PLANE_COST, error))
    return FALSE;

  self->n_planes = plane_fields->len;
  self->planes = g_new0 (PlanarPlane, MAX (self->n_planes, 1));
  self->planes_priv = g_new0 (PlanarPlanePrivate, MAX (self->n_planes, 1));
  for (guint i = 0; i < n_whole; i++)
    if (!scan_plane (self, &g_array_index (plane_fields, PlanarWireField, i), FALSE,
                     &self->planes[i], &self->planes_priv[i], error))
      return FALSE;
  if (have_cut_field)
    {
      guint64 line_bytes = self->line_bytes_total;
      PlanarPlane *plane = &self->planes[n_whole];

      /* Kept when it has a whole line; with no whole plane before it, only
       * when it looks like a plane at all (a name), lest any bytes pass. */
      if (!scan_plane (self, &cut_field, TRUE, plane, &self->planes_priv[n_whole], NULL) ||
          plane->n_lines == 0 || (n_whole == 0 && (plane->name[0] == '\0' || !g_utf8_validate (plane->name, -1, NULL))))
        {
          _planar_trace_clear_plane (self, n_whole);
          self->line_bytes_total = line_bytes;
          self->n_planes = n_whole;
        }
    }
  if (cut_error != NULL)
    {
      /* Nothing whole: refused, saying so. */
      if (self->n_planes == 0)
        {
          g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                       "the file ends early, before any plane or line in it is whole: %s", cut_error->message);
          return FALSE;
        }
      set_damage (self, n_whole, self->n_planes > n_whole ? &self->planes[n_whole] : NULL, cut_error);
    }

  read_task_environment (self);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Parallel decode */

typedef struct
{
  guint        plane;
  guint        line;
  PlanarEvent *events;
  gsize        n_events;
  gsize        cap_events;
  PlanarEvent *aggregated;
  gsize        n_aggregated;
  gsize        cap_aggregated;
  /* Whether @events came out in (start, longer first) order. */
  gboolean     sorted;
} LineJob;

typedef struct
{
  guint        plane;
  guint        track;
  /* Indices into the jobs array of the lines merged into this track. */
  guint       *lines;
  guint        n_lines;
} TrackJob;

typedef struct
{
  PlanarTrace  *self;
  GCancellable *cancellable;
  LineJob      *line_jobs;
  guint        *line_order;
  guint         n_line_jobs;
  TrackJob     *track_jobs;
  guint         n_track_jobs;
  gint          next;
  /* Bytes the index has claimed so far against @budget (atomic). */
  gint64        allocated;
  guint64       budget;
  GMutex        lock;
  GError       *error;
  gint          failed;
} DecodeContext;

static void
decode_fail (DecodeContext *ctx,
             GError        *error)
{
  g_mutex_lock (&ctx->lock);
  if (ctx->error == NULL)
    ctx->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&ctx->lock);
  g_atomic_int_set (&ctx->failed, 1);
}

static gboolean
decode_stopped (DecodeContext *ctx)
{
  if (g_atomic_int_get (&ctx->failed))
    return TRUE;
  if (ctx->cancellable != NULL && g_cancellable_is_cancelled (ctx->cancellable))
    {
      GError *error = NULL;

      g_cancellable_set_error_if_cancelled (ctx->cancellable, &error);
      decode_fail (ctx, error);
      return TRUE;
    }
  return FALSE;
}

static gboolean
claim_memory (DecodeContext *ctx,
              gsize          bytes)
{
  gint64 now = __atomic_add_fetch (&ctx->allocated, (gint64) bytes, __ATOMIC_RELAXED);

  if ((guint64) now > ctx->budget)
    {
      decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_TOO_LARGE,
                                     "%s needs more memory than its size justifies "
                                     "(over %" G_GUINT64_FORMAT " MiB for the index)",
                                     ctx->self->file_name, ctx->budget >> 20));
      return FALSE;
    }
  return TRUE;
}

static gboolean
grow_events (DecodeContext  *ctx,
             PlanarEvent   **events,
             gsize          *cap,
             gsize           line_len)
{
  /* The first allocation follows the line's size (a real event takes more
   * than 8 bytes), so that many short lines do not each claim a page. */
  gsize new_cap = *cap ? *cap * 2 : MIN (256, line_len / 8 + 1);

  if (!claim_memory (ctx, (new_cap - *cap) * sizeof (PlanarEvent)))
    return FALSE;
  /* Large heap blocks are mmap()ed by the allocator, so realloc() moves
   * pages instead of copying and does not double the peak. */
  *events = planar_spill_renew (*events, *cap * sizeof (PlanarEvent),
                                new_cap * sizeof (PlanarEvent), ctx->self->spill);
  *cap = new_cap;
  return TRUE;
}

static inline gboolean
event_before (const PlanarEvent *a,
              const PlanarEvent *b)
{
  if (a->start_ps != b->start_ps)
    return a->start_ps < b->start_ps;
  if (a->duration_ps != b->duration_ps)
    return a->duration_ps > b->duration_ps;
  return a->source < b->source;
}

static int
event_compare (const void *pa,
               const void *pb)
{
  const PlanarEvent *a = pa;
  const PlanarEvent *b = pb;

  if (event_before (a, b))
    return -1;
  if (event_before (b, a))
    return 1;
  return 0;
}

static void
drop_pages (PlanarTrace *self,
            guint64      offset,
            guint64      size)
{
  static gsize page_size;
  guint64 begin, end;

  if (self->size < PLANAR_DROP_PAGES_MIN_SIZE)
    return;
  if (page_size == 0)
    page_size = (gsize) sysconf (_SC_PAGESIZE);
  begin = (offset + page_size - 1) / page_size * page_size;
  end = (offset + size) / page_size * page_size;
  /* The mapping is private and read-only: dropping the pages only forgets
   * them, a later read faults them back in from the page cache. */
  if (end > begin)
    madvise ((void *) (self->data + begin), end - begin, MADV_DONTNEED);
}

static gboolean
decode_line (DecodeContext *ctx,
             LineJob       *job)
{
  PlanarTrace *self = ctx->self;
  PlanarPlane *plane = &self->planes[job->plane];
  PlanarPlanePrivate *ppriv = &self->planes_priv[job->plane];
  PlanarLine *line = &plane->lines[job->line];
  const guint8 *start = self->data + ppriv->line_offsets[job->line];
  gsize len = ppriv->line_sizes[job->line];
  const guint8 *name = NULL, *display_name = NULL;
  gsize name_len = 0, display_name_len = 0;
  const guint8 *last_progress = start;
  gint64 ts_ns = 0, base_ns = 0, ts_rel_ns, line_base_ps;
  PlanarWireReader r;
  PlanarWireField f;
  guint64 n_since_check = 0;
  gboolean has_display_id = FALSE;
  const char *what = "XLine";
  int rc;

  line->display_id = 0;
  job->sorted = TRUE;
  planar_wire_reader_init (&r, self->data, start, len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      switch (f.number)
        {
        case 4:
          {
            PlanarWireReader er;
            PlanarWireField ef;
            gint64 metadata_id = 0, offset_ps = 0, duration_ps = 0, index;
            gboolean aggregated = FALSE;
            PlanarEvent *ev;
            guint64 source;
            int erc;

            if (G_UNLIKELY (f.wire_type != PLANAR_WIRE_LEN))
              goto bad_type;

            planar_wire_reader_init (&er, self->data, f.data, f.len);
            while ((erc = planar_wire_next (&er, &ef)) > 0)
              {
                if (ef.number <= 5 && ef.number != 4 && G_UNLIKELY (ef.wire_type != PLANAR_WIRE_VARINT))
                  {
                    f = ef;
                    what = "XEvent";
                    goto bad_type;
                  }
                switch (ef.number)
                  {
                  case 1:
                    metadata_id = (gint64) ef.value;
                    break;
                  case 2:
                    offset_ps = (gint64) ef.value;
                    aggregated = FALSE;
                    break;
                  case 3:
                    duration_ps = (gint64) ef.value;
                    break;
                  case 4:
                    if (G_UNLIKELY (ef.wire_type != PLANAR_WIRE_LEN))
                      {
                        f = ef;
                        what = "XEvent";
                        goto bad_type;
                      }
                    break;
                  case 5:
                    /* num_occurrences shares a oneof with offset_ps; setting
                     * it erases the offset. */
                    offset_ps = 0;
                    aggregated = TRUE;
                    break;
                  default:
                    break;
                  }
              }
            if (G_UNLIKELY (erc < 0))
              {
                decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                                               "%s XEvent at byte %" G_GUINT64_FORMAT " of %s",
                                               er.error_reason,
                                               (guint64) (er.error_at - self->data),
                                               self->file_name));
                return FALSE;
              }

            /* A negative duration cannot be drawn or nested; it counts as an
             * instant. */
            if (duration_ps < 0)
              duration_ps = 0;

            index = _planar_id_map_lookup (&ppriv->event_map, metadata_id);
            /* The length prefix sits right before the payload; its offset is
             * where the stats decoder starts again. */
            source = (guint64) (f.start - self->data);
            {
              /* Skip the tag to point at the length prefix. */
              const guint8 *q = f.start;
              guint64 tag;

              planar_wire_read_varint (&q, f.data, &tag);
              source = (guint64) (q - self->data);
            }

            if (aggregated)
              {
                if (job->n_aggregated == job->cap_aggregated &&
                    !grow_events (ctx, &job->aggregated, &job->cap_aggregated, len))
                  return FALSE;
                ev = &job->aggregated[job->n_aggregated++];
              }
            else
              {
                if (job->n_events == job->cap_events &&
                    !grow_events (ctx, &job->events, &job->cap_events, len))
                  return FALSE;
                ev = &job->events[job->n_events++];
              }
            /* Offsets stay relative to the line until its timestamp is
             * known for sure (a writer may put it after the events). */
            ev->start_ps = offset_ps;
            ev->duration_ps = duration_ps;
            ev->metadata = index < 0 ? 0 : (guint32) index;
            ev->depth = 0;
            ev->flags = 0;
            ev->source = source;

            if (!aggregated && job->n_events > 1 && !event_before (ev - 1, ev))
              job->sorted = FALSE;

            if (G_UNLIKELY (++n_since_check >= PLANAR_PROGRESS_EVENTS))
              {
                n_since_check = 0;
                __atomic_add_fetch (&self->line_bytes_done, (gint64) (r.p - last_progress), __ATOMIC_RELAXED);
                last_progress = r.p;
                if (decode_stopped (ctx))
                  return FALSE;
              }
          }
          break;

        case 1:
          if (f.wire_type != PLANAR_WIRE_VARINT)
            goto bad_type;
          line->id = (gint64) f.value;
          break;
        case 10:
          if (f.wire_type != PLANAR_WIRE_VARINT)
            goto bad_type;
          line->display_id = (gint64) f.value;
          has_display_id = f.value != 0;
          break;
        case 3:
          if (f.wire_type != PLANAR_WIRE_VARINT)
            goto bad_type;
          ts_ns = (gint64) f.value;
          break;
        case 9:
          if (f.wire_type != PLANAR_WIRE_VARINT)
            goto bad_type;
          line->duration_ps = (gint64) f.value;
          break;
        case 2:
          if (f.wire_type != PLANAR_WIRE_LEN)
            goto bad_type;
          name = f.data;
          name_len = f.len;
          break;
        case 11:
          if (f.wire_type != PLANAR_WIRE_LEN)
            goto bad_type;
          display_name = f.data;
          display_name_len = f.len;
          break;
        default:
          break;
        }
    }
  if (rc < 0)
    {
      decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                                     "%s XLine at byte %" G_GUINT64_FORMAT " of %s",
                                     r.error_reason, (guint64) (r.error_at - self->data),
                                     self->file_name));
      return FALSE;
    }

  __atomic_add_fetch (&self->line_bytes_done, (gint64) (r.p - last_progress), __ATOMIC_RELAXED);

  line->timestamp_ns = ts_ns;
  line->n_events = job->n_events + job->n_aggregated;
  if (!has_display_id)
    line->display_id = line->id;

  g_mutex_lock (&self->strings_lock);
  line->name = name ? planar_string_table_intern_len (self->strings, (const char *) name, name_len)
                    : planar_string_table_intern (self->strings, "");
  line->display_name = display_name_len > 0
    ? planar_string_table_intern_len (self->strings, (const char *) display_name, display_name_len)
    : line->name;
  g_mutex_unlock (&self->strings_lock);

  /* The time base: wall-clock lines are rebased on the profile start (or,
   * without one, on the earliest wall-clock line); relative lines are
   * already nanoseconds since the start. */
  if (self->has_start_time && ts_ns >= (gint64) self->profile_start_ns)
    base_ns = (gint64) self->profile_start_ns;
  else if (!self->has_start_time && self->has_epoch_base && ts_ns >= PLANAR_EPOCH_THRESHOLD_NS)
    base_ns = self->epoch_base_ns;
  ts_rel_ns = ts_ns - base_ns;
  if (__builtin_mul_overflow (ts_rel_ns, (gint64) 1000, &line_base_ps))
    goto overflow;

  for (gsize i = 0; i < job->n_events; i++)
    if (G_UNLIKELY (__builtin_add_overflow (job->events[i].start_ps, line_base_ps, &job->events[i].start_ps) ||
                    job->events[i].start_ps > G_MAXINT64 - job->events[i].duration_ps))
      goto overflow;
  for (gsize i = 0; i < job->n_aggregated; i++)
    job->aggregated[i].start_ps = line_base_ps;

  /* The cached index's key: the bytes just read, while they are here. */
  _planar_cache_hash_line (self, job->plane, job->line);
  drop_pages (self, ppriv->line_offsets[job->line], len);
  return TRUE;

bad_type:
  decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT,
                                 "unexpected wire type in %s at byte %" G_GUINT64_FORMAT " of %s",
                                 what,
                                 (guint64) (f.start - self->data), self->file_name));
  return FALSE;

overflow:
  decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                                 "timestamp overflow in XLine at byte %" G_GUINT64_FORMAT " of %s "
                                 "(timestamp_ns %" G_GINT64_FORMAT ")",
                                 ppriv->line_offsets[job->line], self->file_name, ts_ns));
  return FALSE;
}

typedef struct
{
  guint64 index;
  gint64  children_ps;
} ChildTime;

static int
compare_child_time (const void *pa,
                    const void *pb)
{
  const ChildTime *a = pa;
  const ChildTime *b = pb;

  return a->index < b->index ? -1 : a->index > b->index ? 1 : 0;
}

/* Gives each event its depth with a stack of open events. An event that
 * starts inside the open event on top but ends after it is not nested: it
 * takes that event's place (and depth) and is flagged as an overlap. The
 * same walk sums each event's direct children for self times. */
static gboolean
assign_depths (DecodeContext *ctx,
               PlanarTrack   *track)
{
  typedef struct { gint64 end; guint64 index; gint64 children_ps; } Open;
  g_autofree Open *stack = NULL;
  g_autoptr(GArray) children = g_array_new (FALSE, FALSE, sizeof (ChildTime));
  gsize sp = 0, cap = 64;

  stack = g_new (Open, cap);
  track->max_depth = 0;
  track->n_overlaps = 0;
  for (gsize i = 0; i < track->n_events; i++)
    {
      PlanarEvent *ev = &track->events[i];
      gint64 end = ev->start_ps + ev->duration_ps;
      gsize depth;

      while (sp > 0 && stack[sp - 1].end <= ev->start_ps)
        {
          sp--;
          if (stack[sp].children_ps > 0)
            {
              ChildTime ct = { stack[sp].index, stack[sp].children_ps };

              g_array_append_val (children, ct);
            }
        }
      if (sp > 0 && end > stack[sp - 1].end)
        {
          ev->flags |= PLANAR_EVENT_OVERLAP;
          track->n_overlaps++;
          sp--;
          if (stack[sp].children_ps > 0)
            {
              ChildTime ct = { stack[sp].index, stack[sp].children_ps };

              g_array_append_val (children, ct);
            }
        }
      if (sp > 0)
        {
          /* A child counts against its parent only up to the parent's end. */
          stack[sp - 1].children_ps += MIN (end, stack[sp - 1].end) - ev->start_ps;
          track->events[stack[sp - 1].index].flags |= PLANAR_EVENT_HAS_CHILDREN;
        }
      depth = sp;
      if (sp == cap)
        {
          if (!claim_memory (ctx, cap * sizeof (Open)))
            return FALSE;
          cap *= 2;
          stack = g_renew (Open, stack, cap);
        }
      stack[sp].end = end;
      stack[sp].index = i;
      stack[sp].children_ps = 0;
      sp++;
      if (depth > G_MAXUINT16)
        {
          depth = G_MAXUINT16;
          ev->flags |= PLANAR_EVENT_DEPTH_CLAMPED;
        }
      ev->depth = (guint16) depth;
      if (depth > track->max_depth)
        track->max_depth = (guint) depth;
    }
  while (sp > 0)
    {
      sp--;
      if (stack[sp].children_ps > 0)
        {
          ChildTime ct = { stack[sp].index, stack[sp].children_ps };

          g_array_append_val (children, ct);
        }
    }

  if (children->len > 0)
    {
      if (!claim_memory (ctx, children->len * sizeof (ChildTime)))
        return FALSE;
      qsort (children->data, children->len, sizeof (ChildTime), compare_child_time);
      track->n_children = children->len;
      track->children = planar_spill_take (g_array_free (g_steal_pointer (&children), FALSE),
                                           track->n_children * sizeof (ChildTime), ctx->self->spill);
    }
  return TRUE;
}

/* Groups event indices by depth (a counting sort, so each group keeps the
 * track's start order) for the level-of-detail and range queries. */
static gboolean
index_depths (DecodeContext *ctx,
              PlanarTrack   *track)
{
  guint n_depths = track->max_depth + 1;
  g_autofree gsize *fill = NULL;

  if (track->n_events > G_MAXUINT32)
    {
      decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_TOO_LARGE,
                                     "line %s of %s has more than 2^32 events",
                                     track->name, ctx->self->file_name));
      return FALSE;
    }

  track->depth_offsets = g_new0 (gsize, n_depths + 1);
  track->depth_ends_sorted = g_new (gboolean, n_depths);
  for (gsize i = 0; i < track->n_events; i++)
    track->depth_offsets[track->events[i].depth + 1]++;
  for (guint d = 0; d < n_depths; d++)
    track->depth_offsets[d + 1] += track->depth_offsets[d];

  if (n_depths > 1)
    {
      if (!claim_memory (ctx, track->n_events * sizeof (guint32)))
        return FALSE;
      track->depth_order = planar_spill_alloc (MAX (track->n_events, 1) * sizeof (guint32),
                                               ctx->self->spill);
      fill = g_memdup2 (track->depth_offsets, n_depths * sizeof (gsize));
      for (gsize i = 0; i < track->n_events; i++)
        track->depth_order[fill[track->events[i].depth]++] = (guint32) i;
    }

  if (!claim_memory (ctx, track->n_events * sizeof (gint64)))
    return FALSE;
  track->depth_starts = planar_spill_alloc (MAX (track->n_events, 1) * sizeof (gint64),
                                            ctx->self->spill);
  for (gsize k = 0; k < track->n_events; k++)
    track->depth_starts[k] = track->events[track->depth_order ? track->depth_order[k] : k].start_ps;

  for (guint d = 0; d < n_depths; d++)
    {
      gint64 last_end = G_MININT64;

      track->depth_ends_sorted[d] = TRUE;
      for (gsize k = track->depth_offsets[d]; k < track->depth_offsets[d + 1]; k++)
        {
          const PlanarEvent *ev = &track->events[track->depth_order ? track->depth_order[k] : k];
          gint64 end = ev->start_ps + ev->duration_ps;

          if (end < last_end)
            {
              track->depth_ends_sorted[d] = FALSE;
              break;
            }
          last_end = end;
        }
    }
  return TRUE;
}

/* Sorts the track's events (unless @sorted says they are), nests them and
 * builds the query indices and the span. */
/* The span of a track's (sorted) events; start > end when it has none. */
static void
set_span (PlanarTrack *track)
{
  track->start_ps = G_MAXINT64;
  track->end_ps = G_MININT64;
  if (track->n_events > 0)
    track->start_ps = track->events[0].start_ps;
  for (gsize i = 0; i < track->n_events; i++)
    track->end_ps = MAX (track->end_ps, track->events[i].start_ps + track->events[i].duration_ps);
}

static gboolean
finish_track (DecodeContext *ctx,
              PlanarTrack   *track,
              gboolean       sorted)
{
  gsize n = track->n_events;

  /* Tracks built outside the decoder are usually in order already; a
   * look is cheaper than a sort. */
  if (!sorted)
    {
      sorted = TRUE;
      for (gsize i = 1; i < n && sorted; i++)
        sorted = event_before (&track->events[i - 1], &track->events[i]);
    }
  if (!sorted)
    qsort (track->events, n, sizeof (PlanarEvent), event_compare);

  if (!assign_depths (ctx, track) || !index_depths (ctx, track))
    return FALSE;
  set_span (track);
  return TRUE;
}

static gboolean
build_track (DecodeContext *ctx,
             TrackJob      *tj)
{
  PlanarTrace *self = ctx->self;
  PlanarTrack *track = &self->planes[tj->plane].tracks[tj->track];
  gboolean sorted = TRUE;
  gsize n = 0, n_agg = 0;

  for (guint i = 0; i < tj->n_lines; i++)
    {
      LineJob *lj = &ctx->line_jobs[tj->lines[i]];

      n += lj->n_events;
      n_agg += lj->n_aggregated;
      sorted = sorted && lj->sorted;
    }

  if (tj->n_lines == 1)
    {
      LineJob *lj = &ctx->line_jobs[tj->lines[0]];

      track->events = g_steal_pointer (&lj->events);
      track->aggregated = g_steal_pointer (&lj->aggregated);
    }
  else
    {
      gsize at = 0, at_agg = 0;

      if (!claim_memory (ctx, (n + n_agg) * sizeof (PlanarEvent)))
        return FALSE;
      track->events = planar_spill_alloc (MAX (n, 1) * sizeof (PlanarEvent), self->spill);
      track->aggregated = n_agg ? planar_spill_alloc (n_agg * sizeof (PlanarEvent), self->spill) : NULL;
      for (guint i = 0; i < tj->n_lines; i++)
        {
          LineJob *lj = &ctx->line_jobs[tj->lines[i]];

          if (lj->n_events > 0)
            {
              if (at > 0 && event_before (&lj->events[0], &track->events[at - 1]))
                sorted = FALSE;
              memcpy (track->events + at, lj->events, lj->n_events * sizeof (PlanarEvent));
            }
          if (lj->n_aggregated > 0)
            memcpy (track->aggregated + at_agg, lj->aggregated, lj->n_aggregated * sizeof (PlanarEvent));
          at += lj->n_events;
          at_agg += lj->n_aggregated;
          g_clear_pointer (&lj->events, planar_spill_free);
          g_clear_pointer (&lj->aggregated, planar_spill_free);
        }
    }
  track->n_events = n;
  track->n_aggregated = n_agg;
  /* A file-backed block keeps its size: the pages past the events were
   * never touched. */
  if (n > 0)
    track->events = planar_spill_renew (track->events, n * sizeof (PlanarEvent),
                                        n * sizeof (PlanarEvent), self->spill);
  else
    g_clear_pointer (&track->events, planar_spill_free);
  if (n_agg > 0)
    track->aggregated = planar_spill_renew (track->aggregated, n_agg * sizeof (PlanarEvent),
                                            n_agg * sizeof (PlanarEvent), self->spill);

  return finish_track (ctx, track, sorted);
}

/* finish_track() (@nest) or only the depth index and span, for a track
 * built outside the decoder. */
static gboolean
finish_track_alone (PlanarTrace  *self,
                    PlanarTrack  *track,
                    gboolean      nest,
                    GError      **error)
{
  DecodeContext ctx = { 0 };
  gboolean ok;

  ctx.self = self;
  /* Derived tracks hold fewer events than the file's tracks they come
   * from, which the decode budget already allowed; restored tracks were
   * allowed when they were decoded. */
  ctx.budget = G_MAXUINT64;
  g_mutex_init (&ctx.lock);
  ok = nest ? finish_track (&ctx, track, FALSE) : index_depths (&ctx, track);
  g_mutex_clear (&ctx.lock);
  if (!ok)
    {
      g_propagate_error (error, ctx.error);
      return FALSE;
    }
  if (!nest)
    set_span (track);
  return TRUE;
}

gboolean
_planar_trace_finish_track (PlanarTrace  *self,
                            PlanarTrack  *track,
                            GError      **error)
{
  return finish_track_alone (self, track, TRUE, error);
}

static gpointer
decode_worker (gpointer data)
{
  DecodeContext *ctx = data;

  for (;;)
    {
      gint i = g_atomic_int_add (&ctx->next, 1);

      if (decode_stopped (ctx))
        break;
      if ((guint) i < ctx->n_line_jobs)
        {
          if (!decode_line (ctx, &ctx->line_jobs[ctx->line_order[i]]))
            break;
        }
      else
        break;
    }
  return NULL;
}

static gpointer
track_worker (gpointer data)
{
  DecodeContext *ctx = data;

  for (;;)
    {
      gint i = g_atomic_int_add (&ctx->next, 1);

      if ((guint) i >= ctx->n_track_jobs || decode_stopped (ctx))
        break;
      if (!build_track (ctx, &ctx->track_jobs[i]))
        break;
      /* Drawable from now on: its times are final and nothing changes it
       * (deriving adds tracks and metadata beside it). */
      g_atomic_int_set (&ctx->self->track_ready[ctx->track_jobs[i].plane][ctx->track_jobs[i].track], 1);
    }
  return NULL;
}

static void
run_workers (DecodeContext *ctx,
             GThreadFunc    func,
             guint          n_items)
{
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  guint n_threads = MIN (MIN (g_get_num_processors (), 8), MAX (n_items, 1));

  ctx->next = 0;
  /* The calling thread is one of the workers. */
  for (guint i = 1; i < n_threads; i++)
    {
      GThread *thread = g_thread_try_new ("planar-decode", func, ctx, NULL);

      if (thread != NULL)
        g_ptr_array_add (threads, thread);
    }
  func (ctx);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));
}

static int
compare_line_size_desc (gconstpointer a,
                        gconstpointer b,
                        gpointer      user_data)
{
  const guint64 *sizes = user_data;
  guint64 sa = sizes[*(const guint *) a];
  guint64 sb = sizes[*(const guint *) b];

  return sa < sb ? 1 : sa > sb ? -1 : 0;
}

/* Groups the decoded lines of every plane into tracks: lines with one id form
 * one track, tracks with one display id share a row. */
/* Groups plane @p's lines into tracks; @job counts lines over the planes. */
static void
plan_plane_tracks (DecodeContext *ctx,
                   guint          p,
                   GArray        *track_jobs,
                   guint         *job)
{
  PlanarTrace *self = ctx->self;
  PlanarPlane *plane = &self->planes[p];
  g_autoptr(GHashTable) by_id = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, NULL);
  g_autoptr(GHashTable) rows = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, NULL);
  g_autoptr(GArray) plane_tracks = g_array_new (FALSE, TRUE, sizeof (PlanarTrack));
  guint reserve;

  /* What derived metadata and lines will follow. */
  self->planes_priv[p].n_file_metadata = plane->n_metadata;
  self->planes_priv[p].n_file_lines = plane->n_lines;
  self->planes_priv[p].n_file_tracks = 0;
  for (guint l = 0; l < plane->n_lines; l++, (*job)++)
    {
      PlanarLine *line = &plane->lines[l];
      gpointer found;
      TrackJob *tj;

      if (g_hash_table_lookup_extended (by_id, &line->id, NULL, &found))
        {
          tj = &g_array_index (track_jobs, TrackJob, GPOINTER_TO_UINT (found));
          line->track = tj->track;
        }
      else
        {
          PlanarTrack track = { 0 };
          TrackJob new_job = { 0 };
          gpointer row;

          track.id = line->id;
          track.display_id = line->display_id;
          track.name = line->name;
          track.display_name = line->display_name;
          if (g_hash_table_lookup_extended (rows, &line->display_id, NULL, &row))
            track.row = GPOINTER_TO_UINT (row);
          else
            {
              track.row = g_hash_table_size (rows);
              g_hash_table_insert (rows, &line->display_id, GUINT_TO_POINTER (track.row));
            }
          new_job.plane = p;
          new_job.track = plane_tracks->len;
          line->track = new_job.track;
          g_array_append_val (plane_tracks, track);
          g_array_append_val (track_jobs, new_job);
          g_hash_table_insert (by_id, &line->id, GUINT_TO_POINTER (track_jobs->len - 1));
          tj = &g_array_index (track_jobs, TrackJob, track_jobs->len - 1);
        }
      tj->lines = g_renew (guint, tj->lines, tj->n_lines + 1);
      tj->lines[tj->n_lines++] = *job;
      plane->n_events += line->n_events;
    }

  /* Device planes keep room for the lines the model derives from their
   * events once every track is built, so that appending them never
   * moves a track a reader may already hold. */
  reserve = plane->n_events > 0 && g_str_has_prefix (plane->name, "/device:")
    ? MIN (PLANAR_DERIVED_TRACKS_MAX, plane_tracks->len * 6 + 2) : 0;
  self->planes_priv[p].tracks_capacity = plane_tracks->len + reserve;
  self->planes_priv[p].lines_capacity = plane->n_lines + reserve;
  plane->lines = g_renew (PlanarLine, plane->lines, MAX (self->planes_priv[p].lines_capacity, 1));
  plane->n_rows = g_hash_table_size (rows);
  self->planes_priv[p].n_file_rows = plane->n_rows;
  plane->n_tracks = plane_tracks->len;
  self->planes_priv[p].n_file_tracks = plane->n_tracks;
  g_array_set_size (plane_tracks, self->planes_priv[p].tracks_capacity);
  plane->tracks = (PlanarTrack *) g_array_free (g_steal_pointer (&plane_tracks), FALSE);
  /* Published last: a reader that sees it sees the tracks above. */
  g_atomic_pointer_set (&self->track_ready[p], g_new0 (gint, MAX (self->planes_priv[p].tracks_capacity, 1)));
}

static void
plan_tracks (DecodeContext *ctx,
             GArray        *track_jobs)
{
  guint job = 0;

  for (guint p = 0; p < ctx->self->n_planes; p++)
    plan_plane_tracks (ctx, p, track_jobs, &job);
}

/* Moves every decoded event by the host's offset in its session, or, for a
 * file without a profile start, so that its earliest event is at 0 (and
 * says so: planar_trace_is_aligned_at_earliest_event()). */
static void
align_lines (DecodeContext *ctx)
{
  PlanarTrace *self = ctx->self;
  gint64 delta = self->time_offset_ps;

  if (!self->has_start_time)
    {
      gboolean any = FALSE;
      gint64 earliest = 0;

      for (guint i = 0; i < ctx->n_line_jobs; i++)
        {
          const LineJob *lj = &ctx->line_jobs[i];

          /* Lines come out of the decoder in order more often than not,
           * but the earliest start is only sure after a scan. */
          for (gsize e = 0; e < lj->n_events; e++)
            if (!any || lj->events[e].start_ps < earliest)
              {
                earliest = lj->events[e].start_ps;
                any = TRUE;
              }
        }
      self->aligned_at_earliest_event = TRUE;
      delta = any ? -earliest : 0;
      if (any && earliest == G_MININT64)
        {
          decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                                         "timestamp overflow aligning %s", self->file_name));
          return;
        }
    }
  if (delta == 0)
    return;

  for (guint i = 0; i < ctx->n_line_jobs; i++)
    {
      LineJob *lj = &ctx->line_jobs[i];
      PlanarEvent *arrays[2] = { lj->events, lj->aggregated };
      gsize counts[2] = { lj->n_events, lj->n_aggregated };

      for (guint a = 0; a < 2; a++)
        for (gsize e = 0; e < counts[a]; e++)
          {
            PlanarEvent *ev = &arrays[a][e];

            if (__builtin_add_overflow (ev->start_ps, delta, &ev->start_ps) ||
                ev->start_ps > G_MAXINT64 - ev->duration_ps)
              {
                decode_fail (ctx, g_error_new (PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                                               "timestamp overflow aligning %s by %" G_GINT64_FORMAT " ps",
                                               self->file_name, delta));
                return;
              }
          }
    }
}

gboolean
planar_trace_set_time_offset (PlanarTrace *self,
                              gint64       offset_ps)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  g_return_val_if_fail (!g_atomic_int_get (&self->decoded), FALSE);

  self->time_offset_ps = offset_ps;
  return TRUE;
}

gboolean
planar_trace_decode (PlanarTrace   *self,
                     GCancellable  *cancellable,
                     GError       **error)
{
  return _planar_trace_decode (self, TRUE, cancellable, error);
}

gboolean
_planar_trace_decode (PlanarTrace   *self,
                      gboolean       derive,
                      GCancellable  *cancellable,
                      GError       **error)
{
  DecodeContext ctx = { 0 };
  g_autoptr(GArray) track_jobs = g_array_new (FALSE, TRUE, sizeof (TrackJob));
  guint n = 0;

  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  g_return_val_if_fail (!g_atomic_int_get (&self->decoded), FALSE);

  /* For tests only (planar-mapping-private.h). */
  _planar_mapping_test_point ("trace-opened", self->path);

  /* A cached index of this very file, when there is a sound one. */
  if (derive)
    {
      gboolean restored = FALSE;

      if (!_planar_cache_try_restore (self, cancellable, &restored, error))
        {
          _planar_trace_check_changed (self, FALSE, error);
          return FALSE;
        }
      if (restored)
        {
          /* The restore read the file's structure again, and its bytes
           * answer every stat query after: cut, they cannot. */
          if (_planar_trace_check_changed (self, FALSE, error))
            return FALSE;
          _planar_mapping_test_point ("trace-decoded", self->path);
          return TRUE;
        }
    }

  ctx.self = self;
  ctx.cancellable = cancellable;
  /* What the structure scan left of the budget: events take 32 bytes in
   * the index and at least ~8 on the wire in any real profile, so only a
   * file made of empty events runs out, and is refused. */
  ctx.budget = self->memory_budget - MIN (self->memory_claimed, self->memory_budget);
  g_mutex_init (&ctx.lock);

  for (guint p = 0; p < self->n_planes; p++)
    ctx.n_line_jobs += self->planes[p].n_lines;
  ctx.line_jobs = g_new0 (LineJob, MAX (ctx.n_line_jobs, 1));
  ctx.line_order = g_new (guint, MAX (ctx.n_line_jobs, 1));
  {
    g_autofree guint64 *sizes = g_new (guint64, MAX (ctx.n_line_jobs, 1));

    for (guint p = 0; p < self->n_planes; p++)
      for (guint l = 0; l < self->planes[p].n_lines; l++, n++)
        {
          ctx.line_jobs[n].plane = p;
          ctx.line_jobs[n].line = l;
          ctx.line_order[n] = n;
          sizes[n] = self->planes_priv[p].line_sizes[l];
        }
    /* Biggest lines first, so no worker is left with a long one at the end. */
    g_qsort_with_data (ctx.line_order, (gint) ctx.n_line_jobs, sizeof (guint),
                       compare_line_size_desc, sizes);
  }

  run_workers (&ctx, decode_worker, ctx.n_line_jobs);

  /* Times are final before any track is published, so that a reader
   * drawing the first tracks never sees them move. */
  if (ctx.error == NULL)
    align_lines (&ctx);

  if (ctx.error == NULL)
    {
      g_atomic_pointer_set (&self->track_ready, g_new0 (gint *, MAX (self->n_planes, 1)));
      _planar_trace_flag_internal_events (self);
      plan_tracks (&ctx, track_jobs);
      ctx.track_jobs = (TrackJob *) (gpointer) track_jobs->data;
      ctx.n_track_jobs = track_jobs->len;
      run_workers (&ctx, track_worker, ctx.n_track_jobs);
    }

  /* The lines XProf derives (XLA Ops, Steps, ...) and the flow index need
   * every file track in place. */
  if (derive && ctx.error == NULL && !decode_stopped (&ctx))
    {
      GError *derive_error = NULL;

      if (!_planar_trace_derive (self, cancellable, &derive_error))
        decode_fail (&ctx, derive_error);
    }

  if (ctx.error == NULL)
    for (guint p = 0; p < self->n_planes; p++)
      for (guint t = 0; t < self->planes[p].n_tracks; t++)
        g_atomic_int_set (&self->track_ready[p][t], 1);

  for (guint i = 0; i < ctx.n_line_jobs; i++)
    {
      planar_spill_free (ctx.line_jobs[i].events);
      planar_spill_free (ctx.line_jobs[i].aggregated);
    }
  for (guint i = 0; i < track_jobs->len; i++)
    g_free (g_array_index (track_jobs, TrackJob, i).lines);
  g_free (ctx.line_jobs);
  g_free (ctx.line_order);
  g_mutex_clear (&ctx.lock);

  /* A file cut under the decoder read as zeros from the cut on: whatever
   * the decoder made of them, the answer is that the file changed (and
   * no index of it is cached). Rewritten in place without a fault, its
   * size or time says so. */
  if (_planar_trace_check_changed (self, TRUE, &ctx.error))
    {
      g_propagate_error (error, ctx.error);
      return FALSE;
    }
  if (ctx.error != NULL)
    {
      g_propagate_error (error, ctx.error);
      return FALSE;
    }

  _planar_trace_finish_decode (self);
  if (derive)
    _planar_cache_store_later (self);
  /* For tests only (planar-mapping-private.h). */
  _planar_mapping_test_point ("trace-decoded", self->path);
  return TRUE;
}

void
_planar_trace_finish_decode (PlanarTrace *self)
{
  /* Totals, once. */
  self->n_events = 0;
  self->n_overlaps = 0;
  self->has_span = FALSE;
  for (guint p = 0; p < self->n_planes; p++)
    {
      const PlanarPlane *plane = &self->planes[p];

      self->n_events += plane->n_events;
      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *track = &plane->tracks[t];

          /* Derived events repeat the file's; they count nowhere. */
          if (track->derived)
            continue;
          self->n_overlaps += track->n_overlaps;
          if (track->n_events == 0)
            continue;
          if (!self->has_span || track->start_ps < self->first_ps)
            self->first_ps = track->start_ps;
          if (!self->has_span || track->end_ps > self->last_ps)
            self->last_ps = track->end_ps;
          self->has_span = TRUE;
        }
    }

  __atomic_store_n (&self->line_bytes_done, (gint64) self->line_bytes_total, __ATOMIC_RELEASE);
  g_atomic_int_set (&self->decoded, 1);
}

void
_planar_trace_plan_tracks_plane (PlanarTrace *self,
                                 guint        p)
{
  DecodeContext ctx = { 0 };
  g_autoptr(GArray) track_jobs = g_array_new (FALSE, TRUE, sizeof (TrackJob));
  guint job = 0;

  ctx.self = self;
  g_mutex_init (&ctx.lock);
  plan_plane_tracks (&ctx, p, track_jobs, &job);
  for (guint i = 0; i < track_jobs->len; i++)
    g_free (g_array_index (track_jobs, TrackJob, i).lines);
  g_mutex_clear (&ctx.lock);
}

gboolean
_planar_trace_decode_track (PlanarTrace  *self,
                            guint         p,
                            guint         t,
                            GError      **error)
{
  PlanarPlane *plane = &self->planes[p];
  PlanarTrack *track = &plane->tracks[t];
  DecodeContext ctx = { 0 };
  TrackJob tj = { p, t, NULL, 0 };
  gboolean ok = TRUE;

  g_return_val_if_fail (self->has_start_time, FALSE);

  ctx.self = self;
  ctx.budget = G_MAXUINT64;
  g_mutex_init (&ctx.lock);
  ctx.line_jobs = g_new0 (LineJob, MAX (plane->n_lines, 1));
  tj.lines = g_new (guint, MAX (plane->n_lines, 1));
  for (guint l = 0; l < self->planes_priv[p].n_file_lines; l++)
    if (plane->lines[l].track == t)
      {
        ctx.line_jobs[ctx.n_line_jobs].plane = p;
        ctx.line_jobs[ctx.n_line_jobs].line = l;
        tj.lines[tj.n_lines++] = ctx.n_line_jobs++;
      }
  for (guint i = 0; i < ctx.n_line_jobs && ok; i++)
    ok = decode_line (&ctx, &ctx.line_jobs[i]);
  if (ok)
    align_lines (&ctx);
  ok = ok && ctx.error == NULL;
  if (ok)
    {
      /* Whatever a failed restore left goes; the header stays. */
      _planar_track_clear_arrays (track);
      ok = build_track (&ctx, &tj);
    }
  for (guint i = 0; i < ctx.n_line_jobs; i++)
    {
      planar_spill_free (ctx.line_jobs[i].events);
      planar_spill_free (ctx.line_jobs[i].aggregated);
    }
  g_free (ctx.line_jobs);
  g_free (tj.lines);
  g_mutex_clear (&ctx.lock);
  if (_planar_trace_check_changed (self, FALSE, &ctx.error))
    ok = FALSE;
  if (!ok || ctx.error != NULL)
    {
      if (ctx.error != NULL)
        g_propagate_error (error, ctx.error);
      else
        g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_CORRUPT, "cannot decode track %u of %s", t,
                     self->file_name);
      return FALSE;
    }
  return TRUE;
}

gboolean
_planar_trace_index_track (PlanarTrace  *self,
                           PlanarTrack  *track,
                           GError      **error)
{
  return finish_track_alone (self, track, FALSE, error);
}

gboolean
planar_trace_shift_time (PlanarTrace  *self,
                         gint64        delta_ps,
                         GError      **error)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), FALSE);
  g_return_val_if_fail (g_atomic_int_get (&self->decoded), FALSE);

  if (delta_ps == 0)
    return TRUE;

  /* Check every end first so that a failure leaves the trace untouched. */
  for (guint p = 0; p < self->n_planes; p++)
    for (guint t = 0; t < self->planes[p].n_tracks; t++)
      {
        const PlanarTrack *track = &self->planes[p].tracks[t];
        gint64 tmp;

        for (gsize i = 0; i < track->n_events; i++)
          if (__builtin_add_overflow (track->events[i].start_ps, delta_ps, &tmp) ||
              tmp > G_MAXINT64 - track->events[i].duration_ps)
            {
              g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                           "timestamp overflow aligning %s by %" G_GINT64_FORMAT " ps",
                           self->file_name, delta_ps);
              return FALSE;
            }
        for (gsize i = 0; i < track->n_aggregated; i++)
          if (__builtin_add_overflow (track->aggregated[i].start_ps, delta_ps, &tmp))
            {
              g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_OVERFLOW,
                           "timestamp overflow aligning %s by %" G_GINT64_FORMAT " ps",
                           self->file_name, delta_ps);
              return FALSE;
            }
      }

  for (guint p = 0; p < self->n_planes; p++)
    for (guint t = 0; t < self->planes[p].n_tracks; t++)
      {
        PlanarTrack *track = &self->planes[p].tracks[t];

        for (gsize i = 0; i < track->n_events; i++)
          track->events[i].start_ps += delta_ps;
        if (track->depth_starts != NULL)
          for (gsize i = 0; i < track->n_events; i++)
            track->depth_starts[i] += delta_ps;
        for (gsize i = 0; i < track->n_aggregated; i++)
          track->aggregated[i].start_ps += delta_ps;
        if (track->n_events > 0)
          {
            track->start_ps += delta_ps;
            track->end_ps += delta_ps;
          }
      }
  if (self->has_span)
    {
      self->first_ps += delta_ps;
      self->last_ps += delta_ps;
    }
  return TRUE;
}
