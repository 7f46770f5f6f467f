/* planar-cli-hlo.c: `planar-cli hlo`, and the HLO keys of `events` and
 * `find`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cli.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include <stdio.h>
#include <string.h>

void
planar_cli_write_op_info (PlanarJsonWriter  *w,
                          PlanarTrace       *trace,
                          const PlanarPlane *plane,
                          const PlanarTrack *track,
                          gsize              index)
{
  const PlanarEvent *event = &track->events[index];
  PlanarOpInfo info;
  /* The HLO's estimates are the instruction's: its rates are over the
   * time of all its kernels of this execution. */
  gint64 flops_ps, bytes_ps;

  if (!planar_op_info_init (&info, trace, plane, event, NULL))
    return;
  if (info.hlo.instruction != NULL)
    {
      planar_op_info_find_kernels (&info, trace, plane, track, index);
      planar_json_writer_key (w, "hlo_module");
      planar_json_writer_string (w, info.hlo.module->name);
      planar_json_writer_key (w, "hlo_instruction");
      planar_json_writer_string (w, info.hlo.instruction->name);
      planar_json_writer_key (w, "hlo_kernels");
      planar_json_writer_uint (w, info.n_kernels);
      planar_json_writer_key (w, "hlo_kernels_ps");
      planar_json_writer_int (w, info.kernels_ps);
    }
  flops_ps = info.flops_from == PLANAR_OP_VALUE_HLO ? info.kernels_ps : event->duration_ps;
  bytes_ps = info.bytes_from == PLANAR_OP_VALUE_HLO ? info.kernels_ps : event->duration_ps;
  /* A host's event (the launch call) did not do the work: no rate. */
  if (!g_str_has_prefix (plane->name, "/device:"))
    flops_ps = bytes_ps = 0;
  if (info.framework_op != NULL)
    {
      planar_json_writer_key (w, "framework_op");
      planar_json_writer_string (w, info.framework_op);
    }
  if (info.source != NULL)
    {
      planar_json_writer_key (w, "source");
      planar_json_writer_string (w, info.source);
    }
  if (info.stack != NULL)
    {
      g_auto(GStrv) frames = g_strsplit (info.stack, "\n", -1);

      planar_json_writer_key (w, "stack");
      planar_json_writer_begin_array (w);
      for (guint i = 0; frames[i] != NULL; i++)
        if (frames[i][0] != '\0')
          planar_json_writer_string (w, frames[i]);
      planar_json_writer_end_array (w);
    }
  if (info.flops_from != PLANAR_OP_VALUE_NONE || info.flops_unknown)
    {
      planar_json_writer_key (w, "flops");
      if (info.flops_unknown)
        planar_json_writer_null (w);
      else
        planar_json_writer_double (w, info.flops);
      planar_json_writer_key (w, "flops_estimated");
      planar_json_writer_boolean (w, info.flops_from != PLANAR_OP_VALUE_PROFILE);
    }
  if (info.bytes_from != PLANAR_OP_VALUE_NONE)
    {
      planar_json_writer_key (w, "bytes_accessed");
      planar_json_writer_double (w, info.bytes);
      planar_json_writer_key (w, "bytes_estimated");
      planar_json_writer_boolean (w, info.bytes_from == PLANAR_OP_VALUE_HLO);
    }
  if (info.flops_from != PLANAR_OP_VALUE_NONE && flops_ps > 0)
    {
      planar_json_writer_key (w, "flop_rate");
      planar_json_writer_double (w, info.flops / ((double) flops_ps * 1e-12));
    }
  if (info.bytes_from != PLANAR_OP_VALUE_NONE && bytes_ps > 0)
    {
      planar_json_writer_key (w, "bandwidth");
      planar_json_writer_double (w, info.bytes / ((double) bytes_ps * 1e-12));
    }
  planar_op_info_clear (&info);
}

/* Prints @in's HLO text (with its metadata), a fusion's or call's
 * computations after it, then what it stands for as "# " lines. */
static void
print_instruction (const PlanarHloModule      *module,
                   const PlanarHloInstruction *in)
{
  g_autofree char *text = planar_hlo_instruction_format (module, in, PLANAR_HLO_TEXT_METADATA);
  g_autofree char *op = planar_hlo_instruction_dup_op_full_name (in);
  g_autofree char *source = planar_hlo_instruction_dup_source (module, in);
  g_autofree char *stack = planar_hlo_module_format_stack (module, in);
  PlanarHloCost cost;

  printf ("%s\n", planar_cli_text (text));
  for (guint i = 0; i < in->n_called; i++)
    {
      const PlanarHloComputation *called = planar_hlo_instruction_get_called (module, in, i);
      g_autofree char *block = planar_hlo_computation_format (module, (guint32) (called - module->computations),
                                                              PLANAR_HLO_TEXT_METADATA);
      g_auto(GStrv) lines = g_strsplit (block, "\n", -1);

      printf ("\n");
      for (guint l = 0; lines[l] != NULL; l++)
        if (lines[l][0] != '\0')
          printf ("%s\n", planar_cli_text (lines[l]));
    }
  printf ("# module: %s (program %" G_GUINT64_FORMAT ")\n", planar_cli_text (module->name), module->program_id);
  if (op != NULL)
    printf ("# framework op: %s\n", planar_cli_text (op));
  if (source != NULL)
    printf ("# source: %s\n", planar_cli_text (source));
  if (stack != NULL)
    {
      g_auto(GStrv) frames = g_strsplit (stack, "\n", -1);

      for (guint f = 0; frames[f] != NULL; f++)
        if (frames[f][0] != '\0')
          printf ("# stack: %s\n", planar_cli_text (frames[f]));
    }
  if (planar_hlo_instruction_estimate_cost (module, in, &cost))
    printf ("# flops (estimated): %" G_GUINT64_FORMAT "\n", cost.flops);
  else
    printf ("# flops (estimated): unknown\n");
  if (cost.transcendentals > 0)
    printf ("# transcendentals (estimated): %" G_GUINT64_FORMAT "\n", cost.transcendentals);
  printf ("# bytes accessed (estimated): %" G_GUINT64_FORMAT "\n", cost.bytes);
}

int
planar_cli_hlo (int    argc,
                char **argv)
{
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *session = NULL;
  g_autofree char *session_name = NULL;
  g_autofree char *module_name = NULL;
  g_autofree char *op_name = NULL;
  g_autofree char *host_name = NULL;
  gint64 program_id = -1;
  guint n_modules = 0, n_printed = 0;
  int status;
  GOptionEntry entries[] = {
    { "program-id", 0, 0, G_OPTION_ARG_INT64, &program_id, N_("The module of this program id"), "N" },
    { "module", 0, 0, G_OPTION_ARG_STRING, &module_name, N_("The module of this name (jit_train_step)"), "NAME" },
    { "op", 0, 0, G_OPTION_ARG_STRING, &op_name, N_("Only this instruction (fusion.3), with what it stands for"), "NAME" },
    { "host", 0, 0, G_OPTION_ARG_STRING, &host_name, N_("Host (default: every host)"), "NAME" },
    { "session", 0, 0, G_OPTION_ARG_STRING, &session, N_("Session to read (default: the newest)"), "NAME" },
    { NULL }
  };

  if (!planar_cli_parse ("hlo", "PATH",
                         N_("Prints the HLO of the programs a profile ran (the HloProtos of /host:metadata):\n"
                            "without options the list of modules; with --program-id or --module a module's\n"
                            "HLO text; with --op one instruction, its fused computation, framework op,\n"
                            "source, stack and estimated FLOPs and bytes."),
                         entries, PLANAR_CLI_OPTIONS_LOAD, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("hlo takes one PATH (see 'planar-cli hlo --help')"));
  if (program_id != -1 && module_name != NULL)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("give --program-id or --module, not both"));
  if (program_id < -1)
    return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("--program-id must be 0 or more"));

  profile = planar_cli_load_profile (argv[1], session, &session_name, &error);
  if (profile == NULL)
    return planar_cli_fail_error (error, FALSE);

  for (guint h = 0; h < planar_profile_get_n_traces (profile); h++)
    {
      PlanarTrace *trace = planar_profile_get_trace (profile, h);
      const PlanarHloIndex *index = planar_trace_get_hlo_index (trace);
      const char * const *errors = planar_trace_get_hlo_errors (trace);

      if (host_name != NULL && g_strcmp0 (planar_trace_get_host_name (trace), host_name) != 0)
        continue;
      for (guint e = 0; errors != NULL && errors[e] != NULL; e++)
        planar_cli_warn ("%s: %s", planar_trace_get_host_name (trace), errors[e]);
      if (index == NULL)
        continue;
      for (guint m = 0; m < planar_hlo_index_get_n_modules (index); m++)
        {
          const PlanarHloModule *module = planar_hlo_index_get_module (index, m);

          n_modules++;
          if (program_id >= 0 && module->program_id != (guint64) program_id)
            continue;
          if (module_name != NULL && strcmp (module->name, module_name) != 0)
            continue;
          if (op_name != NULL)
            {
              const PlanarHloInstruction *in = planar_hlo_module_find_instruction (module, op_name, -1);

              /* Or by the name of the kernel XLA made of it, as the
               * timeline shows it (fusion_3 for fusion.3). */
              if (in == NULL)
                in = planar_hlo_module_find_kernel_instruction (module, op_name, -1);
              if (in == NULL)
                continue;
              if (n_printed++ > 0)
                printf ("\n");
              print_instruction (module, in);
            }
          else if (program_id >= 0 || module_name != NULL)
            {
              g_autofree char *text = planar_hlo_module_format (module, PLANAR_HLO_TEXT_METADATA);
              g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

              if (n_printed++ > 0)
                printf ("\n");
              printf ("# program %" G_GUINT64_FORMAT "\n", module->program_id);
              for (guint l = 0; lines[l] != NULL; l++)
                if (lines[l][0] != '\0' || lines[l + 1] != NULL)
                  printf ("%s\n", planar_cli_text (lines[l]));
            }
          else
            {
              if (n_printed++ == 0)
                printf ("# program_id\tinstructions\tmodule\n");
              printf ("%" G_GUINT64_FORMAT "\t%u\t%s\n", module->program_id, module->n_instructions,
                      planar_cli_text (module->name));
            }
        }
    }
  if (n_modules == 0)
    {
      status = planar_cli_finish_stdout ();
      if (status != PLANAR_CLI_EXIT_OK)
        return status;
      planar_cli_warn (_("%s holds no HLO (no HloProtos on /host:metadata)"), argv[1]);
      return PLANAR_CLI_EXIT_FAILURE;
    }
  if (n_printed == 0)
    {
      if (op_name != NULL)
        return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT,
                                program_id >= 0 || module_name != NULL ? _("no instruction '%s' in that module of %s")
                                                                       : _("no instruction '%s' in %s"),
                                op_name, argv[1]);
      if (program_id >= 0)
        return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("no program %" PRId64 " in %s"), program_id,
                                argv[1]);
      return planar_cli_fail (PLANAR_CLI_EXIT_BAD_INPUT, _("no module '%s' in %s"), module_name, argv[1]);
    }
  status = planar_cli_finish_stdout ();
  if (status == PLANAR_CLI_EXIT_OK)
    planar_cli_warn_losses (profile);
  return status;
}
