/* planar-op-info.c: an XLA op's or kernel's framework op, source, stack,
 * FLOPs and bytes (planar-op-info.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-op-info.h"

#include <string.h>

gboolean
planar_op_info_is_placeholder (const char *tf_op,
                               gsize       len)
{
  static const char placeholder[] = "XlaModule:";

  while (len > 0 && g_ascii_isspace (tf_op[len - 1]))
    len--;
  return len == 0 || (len == strlen (placeholder) && memcmp (tf_op, placeholder, len) == 0);
}

static gboolean
stat_text (const PlanarStat *stat)
{
  return stat->kind == PLANAR_STAT_STRING || stat->kind == PLANAR_STAT_REF;
}

static gboolean
stat_number (const PlanarStat *stat,
             double           *out)
{
  switch (stat->kind)
    {
    case PLANAR_STAT_INT64:
      *out = (double) stat->v.i64;
      return TRUE;
    case PLANAR_STAT_UINT64:
      *out = (double) stat->v.u64;
      return TRUE;
    case PLANAR_STAT_DOUBLE:
      *out = stat->v.f64;
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
planar_op_info_init (PlanarOpInfo      *info,
                     PlanarTrace       *trace,
                     const PlanarPlane *plane,
                     const PlanarEvent *event,
                     GError           **error)
{
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  GError *local = NULL;

  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (PLANAR_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (plane != NULL && event != NULL, FALSE);

  memset (info, 0, sizeof *info);
  info->n_kernels = 1;
  info->kernels_ps = event->duration_ps;
  planar_trace_get_event_stats (trace, plane, event, stats, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  for (guint i = 0; i < stats->len; i++)
    {
      const PlanarStat *stat = &g_array_index (stats, PlanarStat, i);
      double number;

      if (stat_text (stat) && stat->str.len > 0)
        {
          if (strcmp (stat->name, "tf_op") == 0 && info->framework_op == NULL
              && !planar_op_info_is_placeholder (stat->str.data, stat->str.len))
            info->framework_op = g_strndup (stat->str.data, stat->str.len);
          else if (strcmp (stat->name, "source") == 0 && info->source == NULL)
            info->source = g_strndup (stat->str.data, stat->str.len);
          else if (strcmp (stat->name, "source_stack") == 0 && info->stack == NULL)
            info->stack = g_strndup (stat->str.data, stat->str.len);
        }
      else if (strcmp (stat->name, "flops") == 0 && stat_number (stat, &number) && number > 0)
        {
          info->flops = number;
          info->flops_from = PLANAR_OP_VALUE_PROFILE;
        }
      else if (strcmp (stat->name, "bytes_accessed") == 0 && stat_number (stat, &number) && number > 0)
        {
          info->bytes = number;
          info->bytes_from = PLANAR_OP_VALUE_PROFILE;
        }
    }
  info->framework_op_from = info->framework_op != NULL ? PLANAR_OP_VALUE_PROFILE : PLANAR_OP_VALUE_NONE;
  info->source_from = info->source != NULL ? PLANAR_OP_VALUE_PROFILE : PLANAR_OP_VALUE_NONE;
  info->stack_from = info->stack != NULL ? PLANAR_OP_VALUE_PROFILE : PLANAR_OP_VALUE_NONE;

  if (planar_trace_resolve_hlo (trace, plane, event, &info->hlo))
    {
      const PlanarHloModule *module = info->hlo.module;
      const PlanarHloInstruction *in = info->hlo.instruction;
      PlanarHloCost cost;

      if (info->framework_op == NULL && (info->framework_op = planar_hlo_instruction_dup_op_full_name (in)) != NULL)
        info->framework_op_from = PLANAR_OP_VALUE_HLO;
      if (info->source == NULL && (info->source = planar_hlo_instruction_dup_source (module, in)) != NULL)
        info->source_from = PLANAR_OP_VALUE_HLO;
      if (info->stack == NULL && (info->stack = planar_hlo_module_format_stack (module, in)) != NULL)
        info->stack_from = PLANAR_OP_VALUE_HLO;
      planar_hlo_instruction_estimate_cost (module, in, &cost);
      if (info->flops_from == PLANAR_OP_VALUE_NONE)
        {
          if (cost.flops_known)
            {
              info->flops = (double) cost.flops;
              info->flops_from = PLANAR_OP_VALUE_HLO;
              info->transcendentals = cost.transcendentals;
            }
          else
            info->flops_unknown = TRUE;
        }
      if (info->bytes_from == PLANAR_OP_VALUE_NONE && cost.bytes > 0)
        {
          info->bytes = (double) cost.bytes;
          info->bytes_from = PLANAR_OP_VALUE_HLO;
        }
    }
  return TRUE;
}

void
planar_op_info_clear (PlanarOpInfo *info)
{
  g_return_if_fail (info != NULL);

  g_clear_pointer (&info->framework_op, g_free);
  g_clear_pointer (&info->source, g_free);
  g_clear_pointer (&info->stack, g_free);
}

/* ------------------------------------------------------------------------
 * The costs of many events (PlanarOpCostReader)
 * ------------------------------------------------------------------------ */

/* What depends on an instruction alone, made once. */
typedef struct
{
  PlanarHloCost cost;
  gboolean      names_made;
  char         *op_full_name;
  char         *source;
} InstructionCosts;

/* The last resolution made for events of one metadata (of those sharing
 * its slot), and the stats it was made from: hlo_op, program_id and
 * hlo_module may be each event's own, so an entry serves the next event
 * only when they match, and its name (the kernel's, by which an hlo_op
 * that names no instruction resolves). What it resolves to depends on
 * nothing else, so events of another metadata or plane that match may use
 * it too. */
typedef struct
{
  gboolean                    valid;
  const char                 *kernel;
  const char                 *op;
  gsize                       op_len;
  /* hlo_module, when the event has no program_id (NULL: none). */
  const char                 *module_name;
  gsize                       module_len;
  gboolean                    has_program_id;
  guint64                     program_id;
  const PlanarHloModule      *module;
  const PlanarHloInstruction *instruction;
  InstructionCosts           *costs;
} MetadataEntry;

/* Entries, by event metadata index: a fixed size, whatever the plane's
 * metadata count (a power of two). */
#define N_ENTRIES 1024

struct _PlanarOpCostReader
{
  PlanarTrace          *trace;
  PlanarOpCostsFlags    flags;
  GArray               *stats;
  /* The index the caches were made with (it appears once the loader has
   * read the HLO). */
  const PlanarHloIndex *index;
  MetadataEntry        *entries;
  /* PlanarHloInstruction -> InstructionCosts. */
  GHashTable           *instructions;
  /* The profile's tf_op and source, NUL-terminated. */
  GString              *framework_op;
  GString              *source;
};

static void
instruction_costs_free (gpointer data)
{
  InstructionCosts *ic = data;

  g_free (ic->op_full_name);
  g_free (ic->source);
  g_free (ic);
}

PlanarOpCostReader *
planar_op_cost_reader_new (PlanarTrace        *trace,
                           PlanarOpCostsFlags  flags)
{
  PlanarOpCostReader *self;

  g_return_val_if_fail (PLANAR_IS_TRACE (trace), NULL);

  self = g_new0 (PlanarOpCostReader, 1);
  self->trace = g_object_ref (trace);
  self->flags = flags;
  self->stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  self->entries = g_new0 (MetadataEntry, N_ENTRIES);
  self->instructions = g_hash_table_new_full (NULL, NULL, NULL, instruction_costs_free);
  self->framework_op = g_string_new (NULL);
  self->source = g_string_new (NULL);
  return self;
}

void
planar_op_cost_reader_free (PlanarOpCostReader *self)
{
  if (self == NULL)
    return;
  g_object_unref (self->trace);
  g_array_unref (self->stats);
  g_free (self->entries);
  g_hash_table_unref (self->instructions);
  g_string_free (self->framework_op, TRUE);
  g_string_free (self->source, TRUE);
  g_free (self);
}

/* The stats the reader looks at. */
typedef enum
{
  STAT_OTHER,
  STAT_TF_OP,
  STAT_SOURCE,
  STAT_FLOPS,
  STAT_BYTES,
  STAT_HLO_OP,
  STAT_HLO_MODULE,
  STAT_PROGRAM_ID,
} StatName;

static StatName
stat_name (const char *name)
{
  switch (name[0])
    {
    case 't':
      return strcmp (name, "tf_op") == 0 ? STAT_TF_OP : STAT_OTHER;
    case 's':
      return strcmp (name, "source") == 0 ? STAT_SOURCE : STAT_OTHER;
    case 'f':
      return strcmp (name, "flops") == 0 ? STAT_FLOPS : STAT_OTHER;
    case 'b':
      return strcmp (name, "bytes_accessed") == 0 ? STAT_BYTES : STAT_OTHER;
    case 'h':
      return strcmp (name, "hlo_op") == 0 ? STAT_HLO_OP : strcmp (name, "hlo_module") == 0 ? STAT_HLO_MODULE : STAT_OTHER;
    case 'p':
      return strcmp (name, "program_id") == 0 ? STAT_PROGRAM_ID : STAT_OTHER;
    default:
      return STAT_OTHER;
    }
}

static gboolean
same_text (const char *a,
           gsize       a_len,
           const char *b,
           gsize       b_len)
{
  if (a == NULL || b == NULL)
    return a == b;
  return a_len == b_len && (a == b || memcmp (a, b, a_len) == 0);
}

/* Forgets what was made with another index. */
static void
use_index (PlanarOpCostReader   *self,
           const PlanarHloIndex *index)
{
  if (index == self->index)
    return;
  memset (self->entries, 0, N_ENTRIES * sizeof (MetadataEntry));
  g_hash_table_remove_all (self->instructions);
  self->index = index;
}

/* Resolves as planar_trace_resolve_hlo() does, from the stats it reads
 * (@hlo_op not empty): the entry of @event's metadata, made again when
 * the stats differ from the ones it was made from. */
static const MetadataEntry *
resolve (PlanarOpCostReader        *self,
         const PlanarEvent         *event,
         const char                *kernel,
         const PlanarStat          *hlo_op,
         const PlanarStat          *hlo_module,
         const PlanarHloResolution *hlo)
{
  MetadataEntry *entry = &self->entries[event->metadata & (N_ENTRIES - 1)];
  const char *module_name = NULL;
  gsize module_len = 0;
  const char *name;
  gsize name_len;

  if (!hlo->has_program_id && hlo_module != NULL)
    {
      module_name = hlo_module->str.data;
      module_len = hlo_module->str.len;
    }
  if (entry->valid && entry->kernel == kernel && entry->has_program_id == hlo->has_program_id
      && (!hlo->has_program_id || entry->program_id == hlo->program_id)
      && same_text (entry->module_name, entry->module_len, module_name, module_len)
      && same_text (entry->op, entry->op_len, hlo_op->str.data, hlo_op->str.len))
    return entry;

  memset (entry, 0, sizeof *entry);
  entry->valid = TRUE;
  entry->kernel = kernel;
  entry->op = hlo_op->str.data;
  entry->op_len = hlo_op->str.len;
  entry->module_name = module_name;
  entry->module_len = module_len;
  entry->has_program_id = hlo->has_program_id;
  entry->program_id = hlo->program_id;
  if (hlo->has_program_id)
    entry->module = planar_hlo_index_find_module (self->index, hlo->program_id);
  else if (module_name != NULL)
    {
      g_autofree char *copy = g_strndup (module_name, module_len);

      entry->module = planar_hlo_index_find_module_by_name (self->index, copy);
    }
  if (entry->module == NULL)
    return entry;
  planar_hlo_op_instruction_name (hlo_op->str.data, hlo_op->str.len, &name, &name_len);
  entry->instruction = planar_hlo_module_find_instruction (entry->module, name, (gssize) name_len);
  if (entry->instruction == NULL)
    entry->instruction = planar_hlo_module_find_kernel_instruction (entry->module, kernel, -1);
  if (entry->instruction == NULL)
    {
      entry->module = NULL;
      return entry;
    }
  entry->costs = g_hash_table_lookup (self->instructions, entry->instruction);
  if (entry->costs == NULL)
    {
      entry->costs = g_new0 (InstructionCosts, 1);
      planar_hlo_instruction_estimate_cost (entry->module, entry->instruction, &entry->costs->cost);
      g_hash_table_insert (self->instructions, (gpointer) entry->instruction, entry->costs);
    }
  return entry;
}

static const char *
set_text (GString          *buffer,
          const PlanarStat *stat)
{
  g_string_truncate (buffer, 0);
  g_string_append_len (buffer, stat->str.data, (gssize) stat->str.len);
  return buffer->str;
}

gboolean
planar_op_cost_reader_read (PlanarOpCostReader *self,
                            const PlanarPlane  *plane,
                            const PlanarEvent  *event,
                            PlanarOpCosts      *out,
                            GError            **error)
{
  const PlanarStat *tf_op = NULL, *source = NULL, *hlo_op = NULL, *hlo_module = NULL;
  const PlanarHloIndex *index;
  GError *local = NULL;

  g_return_val_if_fail (self != NULL && plane != NULL && event != NULL && out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  g_array_set_size (self->stats, 0);
  planar_trace_get_event_stats (self->trace, plane, event, self->stats, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  /* The rules of planar_op_info_init() and planar_trace_resolve_hlo() in
   * one pass: the first tf_op (not the placeholder) and source, the last
   * flops, bytes_accessed, hlo_op, hlo_module and program_id. */
  for (guint i = 0; i < self->stats->len; i++)
    {
      const PlanarStat *stat = &g_array_index (self->stats, PlanarStat, i);
      gboolean text = stat_text (stat);
      double number;

      switch (stat_name (stat->name))
        {
        case STAT_TF_OP:
          if (text && stat->str.len > 0 && tf_op == NULL && !planar_op_info_is_placeholder (stat->str.data, stat->str.len))
            tf_op = stat;
          break;
        case STAT_SOURCE:
          if (text && stat->str.len > 0 && source == NULL)
            source = stat;
          break;
        case STAT_FLOPS:
          if (!(text && stat->str.len > 0) && stat_number (stat, &number) && number > 0)
            {
              out->flops = number;
              out->flops_from = PLANAR_OP_VALUE_PROFILE;
            }
          break;
        case STAT_BYTES:
          if (!(text && stat->str.len > 0) && stat_number (stat, &number) && number > 0)
            {
              out->bytes = number;
              out->bytes_from = PLANAR_OP_VALUE_PROFILE;
            }
          break;
        case STAT_HLO_OP:
          if (text)
            hlo_op = stat;
          break;
        case STAT_HLO_MODULE:
          if (text)
            hlo_module = stat;
          break;
        case STAT_PROGRAM_ID:
          out->hlo.has_program_id = planar_hlo_stat_get_program_id (stat, &out->hlo.program_id);
          break;
        case STAT_OTHER:
        default:
          break;
        }
    }
  if (tf_op != NULL)
    {
      out->framework_op_from = PLANAR_OP_VALUE_PROFILE;
      if (self->flags & PLANAR_OP_COSTS_FRAMEWORK_OP)
        out->framework_op = set_text (self->framework_op, tf_op);
    }
  if (source != NULL)
    {
      out->source_from = PLANAR_OP_VALUE_PROFILE;
      if (self->flags & PLANAR_OP_COSTS_SOURCE)
        out->source = set_text (self->source, source);
    }

  index = planar_trace_get_hlo_index (self->trace);
  use_index (self, index);
  if (index != NULL && hlo_op != NULL && hlo_op->str.len > 0)
    {
      const MetadataEntry *entry = resolve (self, event, planar_plane_get_event_name (plane, event, FALSE), hlo_op,
                                            hlo_module, &out->hlo);
      InstructionCosts *ic = entry->costs;

      if (entry->instruction != NULL)
        {
          const PlanarHloInstruction *in = entry->instruction;

          out->hlo.module = entry->module;
          out->hlo.instruction = in;
          if ((self->flags & (PLANAR_OP_COSTS_FRAMEWORK_OP | PLANAR_OP_COSTS_SOURCE)) != 0 && !ic->names_made)
            {
              ic->op_full_name = planar_hlo_instruction_dup_op_full_name (in);
              ic->source = planar_hlo_instruction_dup_source (entry->module, in);
              ic->names_made = TRUE;
            }
          /* Always one: "op_name:op_type". */
          if (tf_op == NULL)
            {
              out->framework_op_from = PLANAR_OP_VALUE_HLO;
              if (self->flags & PLANAR_OP_COSTS_FRAMEWORK_OP)
                out->framework_op = ic->op_full_name;
            }
          /* None without a source file or a stack. */
          if (source == NULL && planar_hlo_instruction_has_source (entry->module, in))
            {
              out->source_from = PLANAR_OP_VALUE_HLO;
              if (self->flags & PLANAR_OP_COSTS_SOURCE)
                out->source = ic->source;
            }
          if (out->flops_from == PLANAR_OP_VALUE_NONE)
            {
              if (ic->cost.flops_known)
                {
                  out->flops = (double) ic->cost.flops;
                  out->flops_from = PLANAR_OP_VALUE_HLO;
                  out->transcendentals = ic->cost.transcendentals;
                }
              else
                out->flops_unknown = TRUE;
            }
          if (out->bytes_from == PLANAR_OP_VALUE_NONE && ic->cost.bytes > 0)
            {
              out->bytes = (double) ic->cost.bytes;
              out->bytes_from = PLANAR_OP_VALUE_HLO;
            }
        }
    }
  return TRUE;
}

/* Module events looked at before the one that starts last before an
 * event, for one that holds it (they do not overlap on a device's line). */
#define MAX_MODULE_LOOKBACK 64

/* The XLA Modules line of the plane made from track @source (each GPU
 * stream has its own), else the plane's first. */
static const PlanarTrack *
modules_track (const PlanarPlane *plane,
               guint              source)
{
  for (guint t = 0; t < plane->n_tracks && source != G_MAXUINT; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      if (track->derived && track->source_track == source && g_str_has_prefix (track->name, "XLA Modules"))
        return track;
    }
  return planar_plane_find_track (plane, "XLA Modules");
}

/* The window of the module's execution around @event (of track @source,
 * or G_MAXUINT): the XLA Modules event that holds its start (the last to
 * start, of those that do). */
static void
module_window (const PlanarPlane *plane,
               guint              source,
               const PlanarEvent *event,
               gint64            *from,
               gint64            *to)
{
  const PlanarTrack *modules = modules_track (plane, source);
  gsize lo = 0, hi;

  *from = G_MININT64;
  *to = G_MAXINT64;
  if (modules == NULL)
    return;
  /* The first module event that starts after the event. */
  hi = modules->n_events;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (modules->events[mid].start_ps <= event->start_ps)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (gsize i = lo, seen = 0; i > 0 && seen < MAX_MODULE_LOOKBACK; i--, seen++)
    {
      const PlanarEvent *m = &modules->events[i - 1];

      if (m->start_ps + m->duration_ps >= event->start_ps)
        {
          *from = m->start_ps;
          *to = m->start_ps + m->duration_ps;
          return;
        }
    }
}

/* A runtime's helper kernel (a buffer fill, a memset, a copy), which an
 * instruction may launch more than once. */
static gboolean
is_helper_kernel (const char *name)
{
  static const char * const words[] = { "fill", "memset", "memcpy", "copybuffer" };

  /* Any case, without a lowered copy: Op Stats asks this of every
   * kernel. */
  /* Each word starts with 'c', 'f' or 'm'. */
  for (const char *p = name != NULL ? name : ""; *(p += strcspn (p, "cCfFmM")) != '\0'; p++)
    for (guint i = 0; i < G_N_ELEMENTS (words); i++)
      if (g_ascii_strncasecmp (p, words[i], strlen (words[i])) == 0)
        return TRUE;
  return FALSE;
}

static void
note_name (PlanarOpRun       *run,
           const PlanarPlane *plane,
           const PlanarEvent *event)
{
  if (run->n_names < PLANAR_OP_RUN_MAX_NAMES
      && !is_helper_kernel (planar_plane_get_event_name (plane, event, FALSE)))
    run->names[run->n_names++] = event->metadata;
}

void
planar_op_run_init (PlanarOpRun               *run,
                    const PlanarPlane         *plane,
                    const PlanarTrack         *track,
                    const PlanarEvent         *event,
                    const PlanarHloResolution *resolution)
{
  g_return_if_fail (run != NULL && plane != NULL && track != NULL && event != NULL && resolution != NULL);

  memset (run, 0, sizeof *run);
  run->instruction = resolution->instruction;
  module_window (plane, (guint) (track - plane->tracks), event, &run->from_ps, &run->to_ps);
  run->n_kernels = 1;
  run->duration_ps = MAX (event->duration_ps, 0);
  /* A host's events (launch calls) and derived ones are runs of one. */
  if (!g_str_has_prefix (plane->name, "/device:") || (event->flags & PLANAR_EVENT_DERIVED) != 0)
    run->single = TRUE;
  note_name (run, plane, event);
}

gboolean
planar_op_run_accepts (const PlanarOpRun         *run,
                       const PlanarPlane         *plane,
                       const PlanarEvent         *event,
                       const PlanarHloResolution *resolution)
{
  g_return_val_if_fail (run != NULL && plane != NULL && event != NULL && resolution != NULL, FALSE);

  if (run->instruction == NULL || run->single || resolution->instruction != run->instruction
      || (event->flags & PLANAR_EVENT_DERIVED) != 0 || event->start_ps < run->from_ps
      || event->start_ps > run->to_ps)
    return FALSE;
  /* The same compute kernel again: the instruction ran again. */
  for (guint i = 0; i < run->n_names; i++)
    if (run->names[i] == event->metadata)
      return FALSE;
  return TRUE;
}

void
planar_op_run_add (PlanarOpRun       *run,
                   const PlanarPlane *plane,
                   const PlanarEvent *event)
{
  g_return_if_fail (run != NULL && plane != NULL && event != NULL);

  note_name (run, plane, event);
  run->n_kernels++;
  run->duration_ps += MAX (event->duration_ps, 0);
}

void
planar_op_run_start_at (PlanarOpRun               *run,
                        PlanarTrace               *trace,
                        const PlanarPlane         *plane,
                        const PlanarTrack         *track,
                        gsize                      index,
                        const PlanarHloResolution *resolution)
{
  /* The kernels of the instruction before @index, back to where another
   * instruction (or too long a gap) comes: the latest first. */
  gsize before[PLANAR_OP_RUN_MAX_BACK];
  guint n_before = 0, gap = 0;

  g_return_if_fail (run != NULL && PLANAR_IS_TRACE (trace) && plane != NULL && track != NULL);
  g_return_if_fail (index < track->n_events && resolution != NULL);

  planar_op_run_init (run, plane, track, &track->events[index], resolution);
  if (run->instruction == NULL || run->single || track->derived)
    return;
  for (gsize i = index; i > 0 && n_before < PLANAR_OP_RUN_MAX_BACK;)
    {
      const PlanarEvent *ev = &track->events[--i];
      PlanarHloResolution r;

      if (ev->start_ps < run->from_ps)
        break;
      if (!planar_trace_resolve_hlo (trace, plane, ev, &r))
        {
          if (++gap > PLANAR_OP_RUN_MAX_GAP)
            break;
          continue;
        }
      if (r.instruction != run->instruction || (ev->flags & PLANAR_EVENT_DERIVED) != 0)
        break;
      before[n_before++] = i;
      gap = 0;
    }
  if (n_before == 0)
    return;
  /* A pass from the first of them, as the aggregator makes it. */
  planar_op_run_init (run, plane, track, &track->events[before[n_before - 1]], resolution);
  for (guint k = n_before - 1; k > 0; k--)
    {
      const PlanarEvent *ev = &track->events[before[k - 1]];

      if (planar_op_run_accepts (run, plane, ev, resolution))
        planar_op_run_add (run, plane, ev);
      else
        planar_op_run_init (run, plane, track, ev, resolution);
    }
  if (planar_op_run_accepts (run, plane, &track->events[index], resolution))
    planar_op_run_add (run, plane, &track->events[index]);
  else
    planar_op_run_init (run, plane, track, &track->events[index], resolution);
}

void
planar_op_run_extend (PlanarOpRun       *run,
                      PlanarTrace       *trace,
                      const PlanarPlane *plane,
                      const PlanarTrack *track,
                      gsize              index)
{
  guint gap = 0;

  g_return_if_fail (run != NULL && PLANAR_IS_TRACE (trace) && plane != NULL && track != NULL);

  if (run->instruction == NULL || run->single || track->derived)
    return;
  for (gsize i = index; i + 1 < track->n_events;)
    {
      const PlanarEvent *ev;
      PlanarHloResolution r;

      ev = &track->events[++i];
      if (ev->start_ps < run->from_ps || ev->start_ps > run->to_ps)
        break;
      if (!planar_trace_resolve_hlo (trace, plane, ev, &r))
        {
          if (++gap > PLANAR_OP_RUN_MAX_GAP)
            break;
          continue;
        }
      if (!planar_op_run_accepts (run, plane, ev, &r))
        break;
      planar_op_run_add (run, plane, ev);
      gap = 0;
    }
}

void
planar_op_info_find_kernels (PlanarOpInfo      *info,
                             PlanarTrace       *trace,
                             const PlanarPlane *plane,
                             const PlanarTrack *track,
                             gsize              index)
{
  PlanarOpRun run;
  const PlanarEvent *event;

  g_return_if_fail (info != NULL && PLANAR_IS_TRACE (trace) && plane != NULL && track != NULL);
  g_return_if_fail (index < track->n_events);

  event = &track->events[index];
  info->n_kernels = 1;
  info->kernels_ps = event->duration_ps;
  if (info->hlo.instruction == NULL)
    return;
  planar_op_run_start_at (&run, trace, plane, track, index, &info->hlo);
  planar_op_run_extend (&run, trace, plane, track, index);
  info->n_kernels = run.n_kernels;
  info->kernels_ps = run.duration_ps;
}

/* Opcodes that never run as a kernel of their own. */
static const char * const never_run[] = { "parameter", "constant", "get-tuple-element", "tuple", "bitcast", NULL };

void
planar_op_info_find_events (PlanarTrace                        *trace,
                            guint                               plane_index,
                            const PlanarEvent                  *event,
                            const PlanarHloModule              *module,
                            const PlanarHloInstruction * const *instructions,
                            guint                               n,
                            guint64                             max_events,
                            PlanarEventRef                     *refs)
{
  const PlanarPlane *plane;
  guint64 read = 0;
  guint found = 0;
  gint64 from, to;
  /* Derived events (XLA Ops) resolve too; a kernel of a stream is the
   * better target, so they are only taken when nothing else is. */
  g_autofree PlanarEventRef *derived = NULL;

  g_return_if_fail (PLANAR_IS_TRACE (trace));
  g_return_if_fail (event != NULL && module != NULL && (n == 0 || (instructions != NULL && refs != NULL)));

  for (guint i = 0; i < n; i++)
    refs[i] = (PlanarEventRef) { PLANAR_EVENT_REF_NONE, 0, 0, 0 };
  if (n == 0 || plane_index >= planar_trace_get_n_planes (trace))
    return;
  plane = planar_trace_get_plane (trace, plane_index);
  derived = g_new (PlanarEventRef, n);
  for (guint i = 0; i < n; i++)
    derived[i] = refs[i];
  module_window (plane, G_MAXUINT, event, &from, &to);
  /* What never runs as a kernel of its own is not looked for. */
  for (guint i = 0; i < n; i++)
    {
      if (g_strv_contains (never_run, instructions[i]->opcode))
        found++;
    }

  for (guint t = 0; t < plane->n_tracks && found < n && read < max_events; t++)
    {
      const PlanarTrack *track = &plane->tracks[t];

      if (!planar_trace_is_track_ready (trace, plane_index, t) || g_strcmp0 (track->name, "XLA Modules") == 0)
        continue;
      for (gsize e = 0; e < track->n_events && found < n && read < max_events; e++)
        {
          const PlanarEvent *ev = &track->events[e];
          PlanarHloResolution r;
          gboolean is_derived = (ev->flags & PLANAR_EVENT_DERIVED) != 0;

          if (ev->start_ps > to)
            break;
          if (ev->start_ps < from)
            continue;
          read++;
          if (!planar_trace_resolve_hlo (trace, plane, ev, &r) || r.module != module)
            continue;
          for (guint i = 0; i < n; i++)
            {
              PlanarEventRef ref = { (guint16) plane_index, 0, t, (guint32) e };

              if (r.instruction != instructions[i] || g_strv_contains (never_run, r.instruction->opcode))
                continue;
              if (!is_derived && planar_event_ref_is_none (&refs[i]))
                {
                  refs[i] = ref;
                  found++;
                }
              else if (is_derived && planar_event_ref_is_none (&derived[i]))
                derived[i] = ref;
            }
        }
    }
  for (guint i = 0; i < n; i++)
    if (planar_event_ref_is_none (&refs[i]))
      refs[i] = derived[i];
}
