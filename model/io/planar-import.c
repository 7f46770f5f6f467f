/* planar-import.c: Chrome Trace Event JSON to XSpace.
 *
 * A streaming parse (planar-import-json.c) reduces each event record as it
 * ends to a 40-byte entry with its args in a compact encoding
 * (planar-import-records.c); once everything is read, B/E records are
 * paired, flow v1 records are bound to their slices, and the XSpace is
 * written plane by plane (one process each, one line per thread) with the
 * model's XSpace writer (planar-import-encode.c) to a file the loader then
 * maps like any other profile (docs/formats.md §7.3).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-importer-private.h"
#include "planar-hash-private.h"

#include <glib/gi18n-lib.h>

#include "planar-error.h"

static void
thread_free (PlanarImportThread *t)
{
  g_free (t->key);
  g_free (t->tid);
  g_free (t->name);
  g_free (t);
}

static void
process_free (PlanarImportProcess *p)
{
  g_free (p->key);
  g_free (p->name);
  g_free (p->labels);
  g_free (p);
}

/* ------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------ */

gboolean
planar_import_is_json (const guint8 *data,
                       gsize         size)
{
  gsize i = 0;

  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
    return TRUE;
  /* A UTF-8 byte order mark, then blanks. */
  if (size >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
    i = 3;
  for (; i < size && i < 4096; i++)
    {
      if (data[i] == '{' || data[i] == '[')
        return TRUE;
      if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' && data[i] != '\r')
        return FALSE;
    }
  return FALSE;
}

void
_planar_import_report_free (PlanarImportReport *report)
{
  if (report == NULL)
    return;
  g_hash_table_unref (report->ignored);
  g_free (report);
}

gboolean
_planar_import_chrome_json (const guint8        *data,
                            gsize                size,
                            const char          *name,
                            int                  fd,
                            PlanarImportReport **report_out,
                            GError             **error)
{
  PlanarImporter imp = { 0 };
  gboolean ok;

  imp.file = name;
  imp.report = g_new0 (PlanarImportReport, 1);
  imp.report->ignored = g_hash_table_new_full (_planar_str_hash, _planar_str_equal, g_free, NULL);
  imp.events_depth = -1;
  imp.skip_depth = -1;
  imp.arg_key = g_string_new (NULL);
  imp.nested = g_string_new (NULL);
  imp.nested_comma = g_byte_array_new ();
  imp.r.name = g_string_new (NULL);
  imp.r.cat = g_string_new (NULL);
  imp.r.pid = g_string_new (NULL);
  imp.r.tid = g_string_new (NULL);
  imp.r.number_keys = g_string_new (NULL);
  imp.r.number_values = g_array_new (FALSE, FALSE, sizeof (double));
  imp.r.id = g_string_new (NULL);
  imp.r.bind_id = g_string_new (NULL);
  imp.r.meta_name = g_string_new (NULL);
  imp.r.meta_labels = g_string_new (NULL);
  imp.names = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  imp.name_list = g_ptr_array_new_with_free_func (g_free);
  imp.stat_names = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  imp.stat_name_list = g_ptr_array_new_with_free_func (g_free);
  imp.process_index = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  imp.processes = g_ptr_array_new_with_free_func ((GDestroyNotify) process_free);
  imp.thread_index = g_hash_table_new (_planar_str_hash, _planar_str_equal);
  imp.threads = g_ptr_array_new_with_free_func ((GDestroyNotify) thread_free);
  imp.events = g_array_new (FALSE, FALSE, sizeof (PlanarImportEvent));
  imp.marks = g_array_new (FALSE, FALSE, sizeof (PlanarImportMark));
  imp.args = g_byte_array_new ();
  imp.cur_args = g_byte_array_new ();
  imp.flow_stats = g_array_new (FALSE, FALSE, sizeof (PlanarImportFlowStat));
  imp.flow_records = g_array_new (FALSE, FALSE, sizeof (PlanarImportFlowRecord));

  ok = _planar_importer_parse (&imp, data, size, error);
  if (ok)
    {
      _planar_importer_pair_marks (&imp);
      if (imp.error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&imp.error));
          ok = FALSE;
        }
    }
  if (ok && imp.events->len == 0)
    {
      g_set_error (error, PLANAR_TRACE_ERROR, PLANAR_TRACE_ERROR_EMPTY,
                   _("%s holds no trace events with a time (X, B/E or instant events)"), name);
      ok = FALSE;
    }
  if (ok)
    ok = _planar_importer_write (&imp, fd, error);

  g_clear_error (&imp.error);
  g_string_free (imp.arg_key, TRUE);
  g_string_free (imp.nested, TRUE);
  g_byte_array_unref (imp.nested_comma);
  g_string_free (imp.r.name, TRUE);
  g_string_free (imp.r.cat, TRUE);
  g_string_free (imp.r.pid, TRUE);
  g_string_free (imp.r.tid, TRUE);
  g_string_free (imp.r.number_keys, TRUE);
  g_array_unref (imp.r.number_values);
  g_string_free (imp.r.id, TRUE);
  g_string_free (imp.r.bind_id, TRUE);
  g_string_free (imp.r.meta_name, TRUE);
  g_string_free (imp.r.meta_labels, TRUE);
  g_hash_table_unref (imp.names);
  g_ptr_array_unref (imp.name_list);
  g_hash_table_unref (imp.stat_names);
  g_ptr_array_unref (imp.stat_name_list);
  g_hash_table_unref (imp.process_index);
  g_ptr_array_unref (imp.processes);
  g_hash_table_unref (imp.thread_index);
  g_ptr_array_unref (imp.threads);
  g_array_unref (imp.events);
  g_array_unref (imp.marks);
  g_byte_array_unref (imp.args);
  g_byte_array_unref (imp.cur_args);
  g_array_unref (imp.flow_stats);
  g_array_unref (imp.flow_records);

  if (!ok)
    {
      _planar_import_report_free (imp.report);
      return FALSE;
    }
  *report_out = imp.report;
  return TRUE;
}
