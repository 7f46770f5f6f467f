/* planar-trace-scan.c: maps nothing and decodes no event: reads an XSpace's
 * structure (planes, metadata, line ranges, the Task Environment) from the
 * mapped bytes, keeping what is whole before a cut.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-trace-decode-private.h"
#include "planar-xspace-fields-private.h"

#include <glib/gi18n-lib.h>

#include <inttypes.h>

#include <string.h>

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
                   _("%s needs more memory than its size justifies "
                   "(over %" PRIu64 " MiB for its structure)"),
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
      _planar_trace_steps += n_ids;
      return;
    }

  map->sparse = g_hash_table_new_full (_planar_id_hash, _planar_id_equal, g_free, NULL);
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
                         (guint64) (f->start - self->data), N_("unexpected wire type in"));
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
  const PlanarXSpaceFields *xf = _planar_xspace_fields ();
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
      guint kind = planar_xfield_kind (&xf->stat_entry, f.number);

      if (kind != 0 && f.wire_type != xf->stat_entry.wire[kind])
        return wrong_type (self, &f, "XStatMetadata", error);
      if (kind == PLANAR_XENTRY_KEY)
        {
          out->id = (gint64) f.value;
          has_key = TRUE;
        }
      else if (kind == PLANAR_XENTRY_VALUE)
        {
          planar_wire_reader_init (&v, self->data, f.data, f.len);
          name = NULL;
          name_len = 0;
          value_id = 0;
          while ((rc = planar_wire_next (&v, &f)) > 0)
            {
              guint vkind = planar_xfield_kind (&xf->stat_metadata, f.number);

              /* A mistyped id is skipped; a mistyped string is an error. */
              if (vkind == 0 || f.wire_type != xf->stat_metadata.wire[vkind])
                {
                  if (vkind != 0 && vkind != PLANAR_XSTAT_MD_ID)
                    return wrong_type (self, &f, "XStatMetadata", error);
                }
              else if (vkind == PLANAR_XSTAT_MD_ID)
                value_id = (gint64) f.value;
              else if (vkind == PLANAR_XSTAT_MD_NAME)
                {
                  name = f.data;
                  name_len = f.len;
                }
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
  const PlanarXSpaceFields *xf = _planar_xspace_fields ();
  PlanarWireReader r, v;
  PlanarWireField f;
  gboolean has_key = FALSE;
  gint64 value_id = 0;
  int rc;

  memset (out, 0, sizeof *out);
  planar_wire_reader_init (&r, self->data, entry->data, entry->len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      guint kind = planar_xfield_kind (&xf->event_entry, f.number);

      if (kind != 0 && f.wire_type != xf->event_entry.wire[kind])
        return wrong_type (self, &f, "XEventMetadata", error);
      if (kind == PLANAR_XENTRY_KEY)
        {
          out->id = (gint64) f.value;
          has_key = TRUE;
        }
      else if (kind == PLANAR_XENTRY_VALUE)
        {
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
      guint kind = planar_xfield_kind (&xf->event_metadata, f.number);

      /* child_id (packed or not) is not read. */
      if (kind == 0)
        continue;
      if (f.wire_type != xf->event_metadata.wire[kind])
        return wrong_type (self, &f, "XEventMetadata", error);
      switch (kind)
        {
        case PLANAR_XEVENT_MD_ID:
          value_id = (gint64) f.value;
          break;
        case PLANAR_XEVENT_MD_NAME:
          out->name = f.data;
          out->name_len = f.len;
          break;
        case PLANAR_XEVENT_MD_DISPLAY_NAME:
          out->display_name = f.data;
          out->display_name_len = f.len;
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
  const PlanarXSpaceFields *xf = _planar_xspace_fields ();
  PlanarWireReader r;
  PlanarWireField f;
  int rc;

  plane->name = planar_string_table_intern (self->strings, "");
  planar_wire_reader_init (&r, self->data, plane_field->data, plane_field->len);
  while ((rc = planar_wire_next (&r, &f)) > 0)
    {
      guint kind = planar_xfield_kind (&xf->plane, f.number);

      if (kind != 0 && f.wire_type != xf->plane.wire[kind])
        return wrong_type (self, &f, "XPlane", error);
      switch (kind)
        {
        case PLANAR_XPLANE_ID:
          plane->id = (gint64) f.value;
          break;

        case PLANAR_XPLANE_NAME:
          plane->name = planar_string_table_intern_len (self->strings, (const char *) f.data, f.len);
          break;

        case PLANAR_XPLANE_LINES:
          {
            guint64 off = (guint64) (f.data - self->data);
            guint64 sz = f.len;

            g_array_append_val (line_offsets, off);
            g_array_append_val (line_sizes, sz);
          }
          break;

        case PLANAR_XPLANE_EVENT_METADATA:
          {
            EventMetadataRange em;

            if (!scan_event_metadata (self, &f, &em, error))
              return FALSE;
            g_array_append_val (event_md, em);
          }
          break;

        case PLANAR_XPLANE_STAT_METADATA:
          {
            PlanarStatMetadata sm = { 0 };

            if (!scan_stat_metadata (self, &f, &sm, error))
              return FALSE;
            g_array_append_val (stat_md, sm);
          }
          break;

        /* The plane's stats are read below, from the whole message. */
        case PLANAR_XPLANE_STATS:
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
      if (!decode_stats_of (self, ppriv, em->value, em->value_len,
                            xf->event_metadata.number[PLANAR_XEVENT_MD_STATS], TRUE, "XEventMetadata",
                            &md->stats, &md->n_stats, error))
        return FALSE;
      ids[i + 1] = em->id;
    }
  /* Ids map to indices from 1: index 0 is the placeholder above. */
  _planar_id_map_init (&ppriv->event_map, ids + 1, plane->n_metadata - 1, 1);

  if (!decode_stats_of (self, ppriv, whole.data, whole.len, xf->plane.number[PLANAR_XPLANE_STATS],
                        FALSE, "XPlane",
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
          if (planar_xfield_kind (&xf->line, lf.number) == PLANAR_XLINE_TIMESTAMP_NS &&
              lf.wire_type == xf->line.wire[PLANAR_XLINE_TIMESTAMP_NS])
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

/* scan_plane(), adding the steps it took (_planar_trace_steps, all on
 * this thread) to the trace's count. */
static gboolean
scan_plane_counted (PlanarTrace           *self,
                    const PlanarWireField *plane_field,
                    gboolean               cut,
                    PlanarPlane           *plane,
                    PlanarPlanePrivate    *ppriv,
                    GError               **error)
{
  guint64 steps = _planar_trace_steps;
  gboolean ok = scan_plane (self, plane_field, cut, plane, ppriv, error);

  __atomic_add_fetch (&self->steps, _planar_trace_steps - steps, __ATOMIC_RELAXED);
  return ok;
}

guint64
_planar_trace_get_steps (PlanarTrace *self)
{
  g_return_val_if_fail (PLANAR_IS_TRACE (self), 0);
  return __atomic_load_n (&self->steps, __ATOMIC_RELAXED);
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

/* Says what a file cut short lost: @n_whole planes read whole, and the one
 * the cut runs through kept in part (@cut_plane, or NULL when dropped). */
static void
set_damage (PlanarTrace       *self,
            guint              n_whole,
            const PlanarPlane *cut_plane,
            const GError      *detail)
{
  g_autoptr(GString) text = g_string_new (_("the file ends early: "));

  if (cut_plane != NULL)
    {
      g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "read %u whole plane", "read %u whole planes", n_whole),
                              n_whole);
      g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, " and %u line of plane \"%s\"",
                                                 " and %u lines of plane \"%s\"", cut_plane->n_lines),
                              cut_plane->n_lines, cut_plane->name);
      if (cut_plane->n_metadata <= 1)
        g_string_append (text, _(" (without their event names)"));
      g_string_append (text, _("; the rest of that plane and anything after it is lost"));
    }
  else
    g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "read %u whole plane; anything after it is lost",
                                               "read %u whole planes; anything after them is lost", n_whole),
                            n_whole);
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
  const PlanarXSpaceFields *xf = _planar_xspace_fields ();
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
      guint kind = planar_xfield_kind (&xf->space, f.number);

      if (kind != 0 && f.wire_type != xf->space.wire[kind])
        return wrong_type (self, &f, "XSpace", error);
      switch (kind)
        {
        case PLANAR_XSPACE_PLANES:
          g_array_append_val (plane_fields, f);
          break;
        case PLANAR_XSPACE_ERRORS:
          g_ptr_array_add (errors, dup_field_string (&f));
          break;
        case PLANAR_XSPACE_WARNINGS:
          g_ptr_array_add (warnings, dup_field_string (&f));
          break;
        case PLANAR_XSPACE_HOSTNAMES:
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
      if (strcmp (r.error_reason, "length past the end of") == 0 &&
          planar_xfield_kind (&xf->space, f.number) == PLANAR_XSPACE_PLANES &&
          f.wire_type == xf->space.wire[PLANAR_XSPACE_PLANES])
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
  self->spill = self->test_options.spill >= 0 ? (PlanarSpillMode) self->test_options.spill
                                              : _planar_trace_wants_spill (self->size);
  self->depth_heap_left = self->spill == PLANAR_SPILL_LARGE ? (gint64) (self->size / 2) : 0;
  self->first_heap = self->test_options.spill >= 0 && self->test_options.first_heap > 0
                     ? (guint64) self->test_options.first_heap : 0;
  self->split_min = self->test_options.split_min > 0 ? (guint64) self->test_options.split_min : PLANAR_SPLIT_MIN;
  /* A PlanarEventRef names a plane in 16 bits. */
  if (plane_fields->len >= PLANAR_EVENT_REF_NONE)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_TOO_LARGE,
                   g_dngettext (GETTEXT_PACKAGE, "%s has %u plane, more than the %u a profile may have",
                                "%s has %u planes, more than the %u a profile may have", plane_fields->len),
                   self->file_name, plane_fields->len, PLANAR_EVENT_REF_NONE - 1);
      return FALSE;
    }
  if (!claim_structure (self, (guint64) plane_fields->len * PLANAR_PLANE_COST, error))
    return FALSE;

  self->n_planes = plane_fields->len;
  self->planes = g_new0 (PlanarPlane, MAX (self->n_planes, 1));
  self->planes_priv = g_new0 (PlanarPlanePrivate, MAX (self->n_planes, 1));
  for (guint i = 0; i < n_whole; i++)
    if (!scan_plane_counted (self, &g_array_index (plane_fields, PlanarWireField, i), FALSE,
                             &self->planes[i], &self->planes_priv[i], error))
      return FALSE;
  if (have_cut_field)
    {
      guint64 line_bytes = self->line_bytes_total;
      PlanarPlane *plane = &self->planes[n_whole];

      /* Kept when it has a whole line; with no whole plane before it, only
       * when it looks like a plane at all (a name), lest any bytes pass. */
      if (!scan_plane_counted (self, &cut_field, TRUE, plane, &self->planes_priv[n_whole], NULL) ||
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
                       _("the file ends early, before any plane or line in it is whole: %s"), cut_error->message);
          return FALSE;
        }
      set_damage (self, n_whole, self->n_planes > n_whole ? &self->planes[n_whole] : NULL, cut_error);
    }

  read_task_environment (self);
  return TRUE;
}
