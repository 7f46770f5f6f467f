/* test-samples-hlo.c: the HLO of the real JAX profiles in
 * ../shared/samples (the two TraceLens ones hold HloProtos on
 * /host:metadata). Every GPU kernel is resolved here by a decoder of the
 * test's own (the few field numbers it needs written out from XLA's
 * hlo.proto and xla_data.proto, neither the generated code nor the
 * model's functions) and compared with the model's resolution, its
 * Framework Ops and Source code lines, and a table of five kernels per
 * sample read by hand from the HLO. Skips without the samples.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-model.h"
#include "planar-test-samples.h"
#include "planar-test-xspace.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* The test's own HLO decoder */

typedef struct
{
  const guint8 *p;
  const guint8 *end;
} Reader;

static gboolean
read_varint (Reader  *r,
             guint64 *v)
{
  *v = 0;
  for (guint shift = 0; shift < 64 && r->p < r->end; shift += 7)
    {
      guint8 b = *r->p++;

      *v |= (guint64) (b & 0x7f) << shift;
      if (b < 0x80)
        return TRUE;
    }
  return FALSE;
}

/* The next field: its number, and its value (varint) or payload (length
 * delimited). Other wire types are skipped. */
static gboolean
next_field (Reader   *r,
            guint    *number,
            guint64  *value,
            Reader   *payload)
{
  guint64 tag, len;

  while (r->p < r->end)
    {
      g_assert_true (read_varint (r, &tag));
      *number = (guint) (tag >> 3);
      switch (tag & 7)
        {
        case 0:
          g_assert_true (read_varint (r, value));
          return TRUE;
        case 2:
          g_assert_true (read_varint (r, &len));
          g_assert_cmpuint (len, <=, (guint64) (r->end - r->p));
          payload->p = r->p;
          payload->end = r->p + len;
          r->p += len;
          return TRUE;
        case 1:
          r->p += 8;
          break;
        case 5:
          r->p += 4;
          break;
        default:
          g_assert_not_reached ();
        }
    }
  return FALSE;
}

static char *
dup_payload (const Reader *r)
{
  return g_strndup ((const char *) r->p, (gsize) (r->end - r->p));
}

typedef struct
{
  char  *full;        /* op_name ":" op_type */
  char  *source;      /* basename ":" line, or NULL */
  gint   frame;       /* stack_frame_id, 1-based */
} OwnInstruction;

typedef struct
{
  GHashTable *instructions;  /* name -> OwnInstruction */
  GPtrArray  *files;
  GPtrArray  *functions;
  GArray     *locations;     /* gint64[3]: file id, function id, line */
  GArray     *frames;        /* gint64[2]: location id, parent id */
} OwnModule;

static void
own_instruction_free (gpointer data)
{
  OwnInstruction *in = data;

  g_free (in->full);
  g_free (in->source);
  g_free (in);
}

static void
own_module_free (gpointer data)
{
  OwnModule *m = data;

  g_hash_table_unref (m->instructions);
  g_ptr_array_unref (m->files);
  g_ptr_array_unref (m->functions);
  g_array_unref (m->locations);
  g_array_unref (m->frames);
  g_free (m);
}

/* HloInstructionProto: name 1, metadata 7; OpMetadata: op_type 1,
 * op_name 2, source_file 3, source_line 4, stack_frame_id 15. */
static void
own_read_instruction (OwnModule *m,
                      Reader     r)
{
  g_autofree char *name = NULL, *op_type = g_strdup (""), *op_name = g_strdup (""), *file = g_strdup ("");
  guint64 line = 0, frame = 0, v;
  guint number;
  Reader sub, md;
  OwnInstruction *in;

  while (next_field (&r, &number, &v, &sub))
    if (number == 1)
      {
        g_free (name);
        name = dup_payload (&sub);
      }
    else if (number == 7)
      while (next_field (&sub, &number, &v, &md))
        switch (number)
          {
          case 1: g_free (op_type); op_type = dup_payload (&md); break;
          case 2: g_free (op_name); op_name = dup_payload (&md); break;
          case 3: g_free (file); file = dup_payload (&md); break;
          case 4: line = v; break;
          case 15: frame = v; break;
          default: break;
          }
  in = g_new0 (OwnInstruction, 1);
  in->full = g_strconcat (op_name, ":", op_type, NULL);
  if (file[0] != '\0')
    {
      g_autofree char *base = g_path_get_basename (file);

      in->source = g_strdup_printf ("%s:%d", base, (gint) line);
    }
  in->frame = (gint) frame;
  g_hash_table_insert (m->instructions, g_steal_pointer (&name), in);
}

/* HloProto: hlo_module 1; HloModuleProto: computations 3,
 * stack_frame_index 17; HloComputationProto: instructions 2;
 * StackFrameIndexProto: file_names 1, function_names 2, file_locations 3
 * (file_name_id 1, function_name_id 2, line 3), stack_frames 4
 * (file_location_id 1, parent_frame_id 2). */
static OwnModule *
own_decode (const guint8 *data,
            gsize         len)
{
  OwnModule *m = g_new0 (OwnModule, 1);
  Reader r = { data, data + len }, module, sub, sub2, sub3;
  guint number;
  guint64 v;

  m->instructions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, own_instruction_free);
  m->files = g_ptr_array_new_with_free_func (g_free);
  m->functions = g_ptr_array_new_with_free_func (g_free);
  m->locations = g_array_new (FALSE, TRUE, 3 * sizeof (gint64));
  m->frames = g_array_new (FALSE, TRUE, 2 * sizeof (gint64));
  while (next_field (&r, &number, &v, &module))
    {
      if (number != 1)
        continue;
      while (next_field (&module, &number, &v, &sub))
        {
          if (number == 3)
            {
              while (next_field (&sub, &number, &v, &sub2))
                if (number == 2)
                  own_read_instruction (m, sub2);
              continue;
            }
          if (number != 17)
            continue;
          while (next_field (&sub, &number, &v, &sub2))
            {
              if (number == 1)
                g_ptr_array_add (m->files, dup_payload (&sub2));
              else if (number == 2)
                g_ptr_array_add (m->functions, dup_payload (&sub2));
              else if (number == 3 || number == 4)
                {
                  gint64 vals[3] = { 0, 0, 0 };
                  guint which = number;

                  while (next_field (&sub2, &number, &v, &sub3))
                    if (number >= 1 && number <= 3)
                      vals[number - 1] = (gint64) v;
                  g_array_append_vals (which == 3 ? m->locations : m->frames, vals, 1);
                }
            }
        }
    }
  return m;
}

/* The innermost frame as "basename:line". */
static char *
own_stack_top (const OwnModule      *m,
               const OwnInstruction *in)
{
  const gint64 *frame, *loc;
  g_autofree char *base = NULL;

  if (in->frame <= 0)
    return NULL;
  g_assert_cmpuint ((guint) in->frame, <=, m->frames->len);
  frame = &g_array_index (m->frames, gint64, 2 * (in->frame - 1));
  loc = &g_array_index (m->locations, gint64, 3 * (frame[0] - 1));
  base = g_path_get_basename (g_ptr_array_index (m->files, loc[0] - 1));
  return g_strdup_printf ("%s:%d", base, (gint) loc[2]);
}

/* XProf's source (hlo_module_utils.cc, GetSourceInfo): the innermost
 * frame when it names a file and a line, else the metadata's file. */
static char *
own_source (const OwnModule      *m,
            const OwnInstruction *in)
{
  if (in->frame > 0)
    {
      const gint64 *frame = &g_array_index (m->frames, gint64, 2 * (in->frame - 1));
      const gint64 *loc = frame[0] > 0 ? &g_array_index (m->locations, gint64, 3 * (frame[0] - 1)) : NULL;
      const char *file = loc != NULL && loc[0] > 0 ? g_ptr_array_index (m->files, loc[0] - 1) : "";

      if (file[0] != '\0' && loc[2] != 0)
        {
          g_autofree char *base = g_path_get_basename (file);

          return g_strdup_printf ("%s:%d", base, (gint) loc[2]);
        }
    }
  return g_strdup (in->source);
}

/* program id -> OwnModule, from the file's /host:metadata, read with
 * protobuf-c (planar-test-xspace.h). */
static GHashTable *
own_modules (const char *path)
{
  XSpace *space = planar_test_read_space (path);
  const XPlane *plane = planar_test_find_plane (space, "/host:metadata");
  GHashTable *modules = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, own_module_free);

  g_assert_nonnull (plane);
  for (gsize i = 0; i < plane->n_event_metadata; i++)
    {
      const XEventMetadata *md = plane->event_metadata[i]->value;

      for (gsize s = 0; s < md->n_stats; s++)
        {
          const XStat *stat = md->stats[s];

          if (g_strcmp0 (planar_test_stat_name (plane, stat->metadata_id), "Hlo Proto") != 0)
            continue;
          g_assert_cmpint (stat->value_case, ==, TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE);
          g_hash_table_insert (modules, g_memdup2 (&md->id, sizeof md->id),
                               own_decode (stat->bytes_value.data, stat->bytes_value.len));
        }
    }
  tensorflow__profiler__xspace__free_unpacked (space, NULL);
  return modules;
}

/* ------------------------------------------------------------------------ */

typedef struct
{
  guint64     program_id;
  const char *hlo_op;
  const char *full;
  const char *source;     /* NULL: none */
  const char *stack_top;  /* innermost frame "basename:line"; NULL: none, or
                           * the same as source */
} Expected;

typedef struct
{
  const char     *file;
  const Expected *table;
  guint           n;
} Sample;

/* Read by hand from the samples' HloProtos (protoc --decode_raw-style
 * dumps of their instructions' metadata and stack frame indexes). */
static const Expected mi300[] = {
  { 19, "custom-call.1", "jit(matmul)/dot_general:", "generate_attention_trace.py:31", "generate_attention_trace.py:31" },
  { 32, "custom-call.1", "jit(matmul)/dot_general:", "generate_attention_trace.py:24", NULL },
  { 43, "loop_sqrt_fusion", "jit(sqrt)/sqrt:", "generate_attention_trace.py:24", NULL },
  { 45, "wrapped_convert", "jit(convert_element_type)/convert_element_type:", "generate_attention_trace.py:24",
    NULL },
  { 49, "input_reduce_fusion", "jit(_reduce_max)/reduce_max:", "generate_attention_trace.py:25", NULL },
  /* No metadata but an op name: no source. */
  { 30, "wrapped_transpose", "a:", NULL, NULL },
};

/* JAX + TransformerEngine: no source_file anywhere, the stack from
 * stack_frame_id; the source shown is the stack's innermost frame (XProf's
 * GetSourceInfo), so these ops have a Source code line. */
static const Expected te_fused_attn[] = {
  { 17, "wrapped_convert", "jit(loss_fn)/jvp()/convert_element_type:", NULL, "attention.py:249" },
  { 17, "input_concatenate_fusion", "jit(loss_fn)/jvp()/concatenate:", NULL, "attention.py:2680" },
  { 17, "te_fused_attn_forward_ffi.10", "jit(loss_fn)/jvp()/te_fused_attn_forward_ffi:", NULL, "attention.py:2680" },
  { 17, "gemm_fusion_dot", "jit(loss_fn)/jvp(bsd,de->bse)/dot_general:", NULL, "12_te_fused_attn.py:92" },
  { 17, "te_fused_attn_backward_ffi.12", "jit(loss_fn)/transpose(jvp())/te_fused_attn_backward_ffi:", NULL,
    "attention.py:1110" },
  /* No metadata at all: XProf's ":" op. */
  { 17, "loop_reduce_fusion.1", ":", NULL, NULL },
};

static const Sample samples[] = {
  { "tracelens_mi300_jax08_attention_tw003.xplane.pb", mi300, G_N_ELEMENTS (mi300) },
  { "tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb", te_fused_attn, G_N_ELEMENTS (te_fused_attn) },
};

typedef struct
{
  gint64      start_ps;
  gint64      end_ps;
  guint64     program_id;
  char       *hlo_op;
  const OwnInstruction *own;
  char       *source;     /* the source shown (own_source), or NULL */
} Kernel;

static void
kernel_clear (gpointer data)
{
  g_free (((Kernel *) data)->hlo_op);
  g_free (((Kernel *) data)->source);
}

static const char *
stat_text (const PlanarStat *stat,
           char             *buf,
           gsize             size)
{
  g_snprintf (buf, size, "%.*s", (int) stat->str.len, stat->str.data);
  return buf;
}

static const PlanarTrack *
derived_track (const PlanarPlane *plane,
               const char        *name)
{
  for (guint t = 0; t < plane->n_tracks; t++)
    if (plane->tracks[t].derived && strcmp (plane->tracks[t].name, name) == 0)
      return &plane->tracks[t];
  return NULL;
}

/* The event of @track that starts where @ev ends, before @limit (the one
 * that cut @ev short), if any. */
static gboolean
cut_by_next (const PlanarTrack *track,
             const PlanarEvent *ev,
             gint64             limit)
{
  gint64 end = ev->start_ps + ev->duration_ps;

  for (gsize i = 0; i < track->n_events; i++)
    if (track->events[i].start_ps == end && end < limit && &track->events[i] != ev)
      return TRUE;
  return FALSE;
}

/* Every kernel lies inside an event of @track named @name(kernel): from
 * the kernel's start to its end, or to where the next event starts when
 * that one cut it short (kernels that ran at once: a derived event ends
 * where the next one of its level starts). */
static void
check_covered (const PlanarPlane *plane,
               const PlanarTrack *track,
               const Kernel      *k,
               const char        *name)
{
  gboolean found = FALSE;

  for (gsize i = 0; i < track->n_events && !found; i++)
    {
      const PlanarEvent *ev = &track->events[i];

      found = ev->start_ps <= k->start_ps &&
              (ev->start_ps + ev->duration_ps >= k->end_ps || cut_by_next (track, ev, k->end_ps)) &&
              ev->start_ps + ev->duration_ps > k->start_ps &&
              strcmp (planar_plane_get_event_name (plane, ev, FALSE), name) == 0;
    }
  if (!found)
    g_error ("no %s event over the kernel %s at %" G_GINT64_FORMAT, name, k->hlo_op, k->start_ps);
}

static void
check_sample (const Sample *sample)
{
  g_autofree char *path = NULL;
  g_autoptr(PlanarTrace) trace = NULL;
  g_autoptr(GHashTable) own = NULL;
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (PlanarStat));
  const PlanarHloIndex *index;
  guint n_checked = 0, n_table = 0;

  path = planar_test_sample_path (sample->file);
  if (path == NULL)
    return;
  trace = planar_test_load_ok (path);
  own = own_modules (path);
  index = planar_trace_get_hlo_index (trace);
  g_assert_nonnull (index);
  g_assert_null (planar_trace_get_hlo_errors (trace)[0]);
  g_assert_cmpuint (planar_hlo_index_get_n_modules (index), ==, g_hash_table_size (own));

  /* The table, by the test's decoder. */
  for (guint i = 0; i < sample->n; i++)
    {
      const Expected *e = &sample->table[i];
      gint64 pid = (gint64) e->program_id;
      const OwnModule *m = g_hash_table_lookup (own, &pid);
      const OwnInstruction *in = m != NULL ? g_hash_table_lookup (m->instructions, e->hlo_op) : NULL;
      g_autofree char *top = NULL;

      g_assert_nonnull (in);
      g_assert_cmpstr (in->full, ==, e->full);
      g_assert_cmpstr (in->source, ==, e->source);
      if (e->stack_top != NULL)
        {
          top = own_stack_top (m, in);
          g_assert_cmpstr (top, ==, e->stack_top);
        }
    }

  for (guint p = 0; p < planar_trace_get_n_planes (trace); p++)
    {
      const PlanarPlane *plane = planar_trace_get_plane (trace, p);

      if (!g_str_has_prefix (plane->name, "/device:GPU:"))
        continue;
      for (guint t = 0; t < plane->n_tracks; t++)
        {
          const PlanarTrack *stream = &plane->tracks[t];
          g_autoptr(GArray) kernels = g_array_new (FALSE, TRUE, sizeof (Kernel));
          g_autofree char *ops_name = g_strdup_printf ("Framework Ops - from #%" G_GINT64_FORMAT, stream->id);
          g_autofree char *source_name = g_strdup_printf ("Source code - from #%" G_GINT64_FORMAT, stream->id);
          const PlanarTrack *ops = derived_track (plane, ops_name);
          const PlanarTrack *source = derived_track (plane, source_name);
          const char *last_source = NULL;
          guint source_runs = 0;

          if (stream->derived)
            continue;
          g_array_set_clear_func (kernels, kernel_clear);
          for (gsize i = 0; i < stream->n_events; i++)
            {
              const PlanarEvent *ev = &stream->events[i];
              Kernel k = { ev->start_ps, ev->start_ps + ev->duration_ps, 0, NULL, NULL, NULL };
              gboolean has_pid = FALSE, kernel = FALSE;
              PlanarHloResolution res;
              char buf[256];

              g_array_set_size (stats, 0);
              planar_trace_get_event_stats (trace, plane, ev, stats, NULL);
              for (guint s = 0; s < stats->len; s++)
                {
                  const PlanarStat *st = &g_array_index (stats, PlanarStat, s);

                  if (strcmp (st->name, "hlo_op") == 0)
                    k.hlo_op = g_strdup (stat_text (st, buf, sizeof buf));
                  else if (strcmp (st->name, "program_id") == 0 && st->kind == PLANAR_STAT_UINT64)
                    {
                      k.program_id = st->v.u64;
                      has_pid = TRUE;
                    }
                  else if (strcmp (st->name, "program_id") == 0 && st->kind == PLANAR_STAT_INT64)
                    {
                      k.program_id = (guint64) st->v.i64;
                      has_pid = TRUE;
                    }
                  else if (strcmp (st->name, "kernel_details") == 0)
                    kernel = TRUE;
                }
              if (k.hlo_op != NULL && has_pid)
                {
                  gint64 pid = (gint64) k.program_id;
                  const OwnModule *m = g_hash_table_lookup (own, &pid);

                  k.own = m != NULL ? g_hash_table_lookup (m->instructions, k.hlo_op) : NULL;
                  k.source = k.own != NULL ? own_source (m, k.own) : NULL;
                }

              /* The model's resolution of the event against the test's. */
              if (planar_trace_resolve_hlo (trace, plane, ev, &res))
                {
                  g_autofree char *full = planar_hlo_instruction_dup_op_full_name (res.instruction);
                  g_autofree char *src = planar_hlo_instruction_dup_source (res.module, res.instruction);
                  const PlanarHloStackFrame *frames[64];
                  guint n_frames = planar_hlo_module_get_stack (res.module, res.instruction, frames, 64);

                  gint64 own_pid = (gint64) k.program_id;
                  g_autofree char *own_src = NULL;

                  g_assert_nonnull (k.own);
                  own_src = own_source (g_hash_table_lookup (own, &own_pid), k.own);
                  g_assert_cmpstr (full, ==, k.own->full);
                  g_assert_cmpstr (src, ==, own_src);
                  g_assert_cmpuint (n_frames > 0, ==, k.own->frame > 0);
                  if (n_frames > 0)
                    {
                      gint64 pid = (gint64) k.program_id;
                      g_autofree char *top = own_stack_top (g_hash_table_lookup (own, &pid), k.own);
                      g_autofree char *base = g_path_get_basename (frames[0]->file);
                      g_autofree char *model_top = g_strdup_printf ("%s:%d", base, frames[0]->line);

                      g_assert_cmpstr (model_top, ==, top);
                    }
                  n_checked++;
                  for (guint i2 = 0; i2 < sample->n; i2++)
                    if (sample->table[i2].program_id == k.program_id &&
                        strcmp (sample->table[i2].hlo_op, k.hlo_op) == 0)
                      {
                        g_assert_cmpstr (full, ==, sample->table[i2].full);
                        /* The stack's innermost frame where there is one. */
                        g_assert_cmpstr (src, ==, sample->table[i2].stack_top != NULL ? sample->table[i2].stack_top
                                                                                     : sample->table[i2].source);
                        n_table++;
                      }
                }
              else
                g_assert_null (k.own);
              if (kernel && k.own != NULL)
                g_array_append_val (kernels, k);
              else
                kernel_clear (&k);
            }

          /* The lines: each resolved kernel under its framework op and
           * source; Source code merges runs of one source (it depends on no
           * other line on GPU). */
          for (guint i = 0; i < kernels->len; i++)
            {
              const Kernel *k = &g_array_index (kernels, Kernel, i);

              g_assert_nonnull (ops);
              check_covered (plane, ops, k, k->own->full);
              if (k->source != NULL)
                {
                  g_assert_nonnull (source);
                  check_covered (plane, source, k, k->source);
                  if (last_source == NULL || strcmp (last_source, k->source) != 0)
                    source_runs++;
                  last_source = k->source;
                }
            }
          g_assert_cmpuint (source != NULL ? source->n_events : 0, ==, source_runs);
          if (ops != NULL)
            for (gsize i = 0; i < ops->n_events; i++)
              {
                /* No event without a kernel of its name under it (to
                 * the event's end, when the next one cut it short). */
                const PlanarEvent *ev = &ops->events[i];
                const char *name = planar_plane_get_event_name (plane, ev, FALSE);
                gboolean found = FALSE;

                for (guint j = 0; j < kernels->len && !found; j++)
                  {
                    const Kernel *k = &g_array_index (kernels, Kernel, j);

                    found = k->start_ps >= ev->start_ps && k->start_ps < ev->start_ps + ev->duration_ps &&
                            (k->end_ps <= ev->start_ps + ev->duration_ps || cut_by_next (ops, ev, k->end_ps)) &&
                            strcmp (k->own->full, name) == 0;
                  }
                g_assert_true (found);
              }
        }
    }
  g_test_message ("%s: %u kernels resolved, %u of them in the table", sample->file, n_checked, n_table);
  g_assert_cmpuint (n_checked, >, 0);
  g_assert_cmpuint (n_table, >=, 5);
}

static void
test_samples (gconstpointer data)
{
  const Sample *sample = data;

  check_sample (sample);
}

/* TransformerEngine's attention on the te_fused_attn sample runs as
 * several kernels per instruction: the forward as the RNG state and the
 * attention (2), the backward as two buffer fills and three ck_tile
 * kernels (5). Each kernel is given the instruction's run, and the
 * bandwidth over the run stays a device's (under 10 TB/s; one fill alone
 * with the instruction's bytes read 22 TB/s). */
static void
test_te_kernels (void)
{
  g_autofree char *path = planar_test_sample_path ("tracelens_jax_te_fused_attn_934987a2fc2f.xplane.pb");
  g_autoptr(PlanarTrace) trace = NULL;
  const PlanarPlane *plane;
  const PlanarTrack *track;
  guint forward = 0, backward = 0;

  if (path == NULL)
    return;
  trace = planar_test_load_ok (path);
  plane = planar_trace_find_plane (trace, "/device:GPU:0");
  g_assert_nonnull (plane);
  track = planar_plane_find_track (plane, "Stream #2");
  g_assert_nonnull (track);
  for (gsize i = 0; i < track->n_events; i++)
    {
      PlanarOpInfo info;

      g_assert_true (planar_op_info_init (&info, trace, plane, &track->events[i], NULL));
      if (info.hlo.instruction != NULL && g_str_has_prefix (info.hlo.instruction->name, "te_fused_attn_"))
        {
          gboolean is_forward = g_str_has_prefix (info.hlo.instruction->name, "te_fused_attn_forward");

          planar_op_info_find_kernels (&info, trace, plane, track, i);
          g_assert_cmpuint (info.n_kernels, ==, is_forward ? 2 : 5);
          g_assert_cmpint (info.kernels_ps, >=, track->events[i].duration_ps);
          g_assert_true (info.bytes_from == PLANAR_OP_VALUE_HLO);
          g_assert_cmpfloat (info.bytes / ((double) info.kernels_ps * 1e-12), <, 10e12);
          if (is_forward)
            forward++;
          else
            backward++;
        }
      planar_op_info_clear (&info);
    }
  g_assert_cmpuint (forward, >, 0);
  g_assert_cmpuint (backward, >, 0);
  g_assert_cmpuint (forward % 2, ==, 0);
  g_assert_cmpuint (backward % 5, ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/samples-hlo/mi300-attention", &samples[0], test_samples);
  g_test_add_data_func ("/samples-hlo/te-fused-attn", &samples[1], test_samples);
  g_test_add_func ("/samples-hlo/te-kernels", test_te_kernels);
  return g_test_run ();
}
