/* planar-bench-adw-window.c: the floor any libadwaita application pays to
 * its first frame, for bench/open to measure Planar against: an
 * AdwApplication whose window paints one rectangle. When the frame that
 * painted it is done it prints "first-frame USEC" (g_get_monotonic_time(),
 * the clock bench/open reads) and exits, as `planar` does under
 * PLANAR_BENCH_FIRST_FRAME.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <adwaita.h>
#include <stdio.h>
#include <unistd.h>

#define BENCH_TYPE_RECTANGLE (bench_rectangle_get_type ())
G_DECLARE_FINAL_TYPE (BenchRectangle, bench_rectangle, BENCH, RECTANGLE, GtkWidget)

struct _BenchRectangle
{
  GtkWidget parent_instance;
  gboolean  painted;
};

G_DEFINE_FINAL_TYPE (BenchRectangle, bench_rectangle, GTK_TYPE_WIDGET)

static void
after_paint (GdkFrameClock  *clock,
             BenchRectangle *self)
{
  if (!self->painted)
    return;
  printf ("first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  fflush (stdout);
  _exit (0);
}

static void
bench_rectangle_snapshot (GtkWidget   *widget,
                          GtkSnapshot *snapshot)
{
  BenchRectangle *self = BENCH_RECTANGLE (widget);
  GdkRGBA blue = { 0.21f, 0.52f, 0.89f, 1.0f };

  gtk_snapshot_append_color (snapshot, &blue,
                             &GRAPHENE_RECT_INIT (20, 20, (float) gtk_widget_get_width (widget) - 40,
                                                  (float) gtk_widget_get_height (widget) - 40));
  self->painted = TRUE;
}

static void
bench_rectangle_realize (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (bench_rectangle_parent_class)->realize (widget);
  g_signal_connect (gtk_widget_get_frame_clock (widget), "after-paint", G_CALLBACK (after_paint), widget);
}

static void
bench_rectangle_class_init (BenchRectangleClass *klass)
{
  GTK_WIDGET_CLASS (klass)->snapshot = bench_rectangle_snapshot;
  GTK_WIDGET_CLASS (klass)->realize = bench_rectangle_realize;
}

static void
bench_rectangle_init (BenchRectangle *self)
{
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
}

static void
activate (GApplication *application)
{
  GtkWidget *window = adw_application_window_new (GTK_APPLICATION (application));
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  /* What every libadwaita window has: a header bar over the content. */
  gtk_box_append (GTK_BOX (box), adw_header_bar_new ());
  gtk_box_append (GTK_BOX (box), g_object_new (BENCH_TYPE_RECTANGLE, NULL));
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), box);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(AdwApplication) application = adw_application_new ("dev.planar.BenchWindow",
                                                               G_APPLICATION_NON_UNIQUE);

  g_signal_connect (application, "activate", G_CALLBACK (activate), NULL);
  return g_application_run (G_APPLICATION (application), argc, argv);
}
