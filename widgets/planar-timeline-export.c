/* planar-timeline-export.c: the view as a PNG or SVG file.
 *
 * The export draws the same render nodes as the screen (tracks layer and
 * overlay) with GSK's cairo fallback into an image or SVG surface, so the
 * file shows what the user sees, at the widget's size.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-timeline-private.h"

#include <cairo-svg.h>
#include <glib/gi18n.h>

typedef struct
{
  GOutputStream *out;
  GError        *error;
} WriteClosure;

static cairo_status_t
write_to_stream (void                *closure,
                 const unsigned char *data,
                 unsigned int         length)
{
  WriteClosure *write = closure;

  if (write->error != NULL)
    return CAIRO_STATUS_WRITE_ERROR;
  if (!g_output_stream_write_all (write->out, data, length, NULL, NULL, &write->error))
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

gboolean
planar_timeline_export (PlanarTimeline              *self,
                        GFile                       *file,
                        PlanarTimelineExportFormat   format,
                        GError                     **error)
{
  int width, height, scale;
  GtkSnapshot *snapshot;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GCancellable) abandon = NULL;
  WriteClosure write = { NULL, NULL };
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  g_return_val_if_fail (PLANAR_IS_TIMELINE (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (format == PLANAR_TIMELINE_EXPORT_PNG || format == PLANAR_TIMELINE_EXPORT_SVG, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  width = gtk_widget_get_width (GTK_WIDGET (self));
  height = gtk_widget_get_height (GTK_WIDGET (self));
  scale = MAX (gtk_widget_get_scale_factor (GTK_WIDGET (self)), 1);
  if (width <= 0 || height <= 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("The timeline is not on screen, so there is no view to export"));
      return FALSE;
    }

  snapshot = gtk_snapshot_new ();
  _planar_timeline_draw_view (self, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);

  /* g_file_replace() writes beside the file and renames it over the old
   * one on close; closing after a cancellation removes it instead. */
  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, NULL, error);
  if (out == NULL)
    return FALSE;
  write.out = G_OUTPUT_STREAM (out);

  if (format == PLANAR_TIMELINE_EXPORT_PNG)
    {
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width * scale, height * scale);
      cairo_surface_set_device_scale (surface, scale, scale);
    }
  else
    {
      surface = cairo_svg_surface_create_for_stream (write_to_stream, &write, width, height);
      cairo_svg_surface_restrict_to_version (surface, CAIRO_SVG_VERSION_1_1);
    }
  cr = cairo_create (surface);
  if (node != NULL)
    gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  if (format == PLANAR_TIMELINE_EXPORT_PNG)
    status = cairo_surface_write_to_png_stream (surface, write_to_stream, &write);
  else
    {
      cairo_surface_finish (surface);
      status = cairo_surface_status (surface);
    }
  cairo_surface_destroy (surface);

  if (write.error == NULL && status != CAIRO_STATUS_SUCCESS)
    g_set_error (&write.error, G_IO_ERROR, G_IO_ERROR_FAILED,
                 _("Could not draw the image: %s"), cairo_status_to_string (status));
  if (write.error != NULL)
    {
      g_autofree char *name = g_file_get_parse_name (file);

      abandon = g_cancellable_new ();
      g_cancellable_cancel (abandon);
      g_output_stream_close (G_OUTPUT_STREAM (out), abandon, NULL);
      g_prefix_error (&write.error, "%s: ", name);
      g_propagate_error (error, write.error);
      return FALSE;
    }
  return g_output_stream_close (G_OUTPUT_STREAM (out), NULL, error);
}
