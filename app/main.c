/* main.c: planar, the application.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include <glib/gi18n.h>

#include "planar-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PlanarApplication) application = NULL;
  int status;

  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* Not translated: it is a name, and the recent files are filed under it. */
  g_set_application_name ("Planar");

  application = planar_application_new ();
  /* `planar PATH`: the load begins now, beside GTK's start. */
  planar_application_start_early_load (application, argc, argv);
  status = g_application_run (G_APPLICATION (application), argc, argv);
  planar_application_end_early_load (application);
  return status;
}
