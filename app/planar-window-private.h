/* planar-window-private.h: what planar-window.c and the window's other
 * files (planar-window-*.c) share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-window.h"

#include "planar-catalog.h"
#include "planar-details-pane.h"
#include "planar-early-load-private.h"
#include "planar-export.h"
#include "planar-find-bar.h"
#include "planar-find-results.h"
#include "planar-health-page.h"
#include "planar-message-bar.h"
#include "planar-op-stats-page.h"
#include "planar-timeline.h"
#include "planar-welcome-page.h"

G_BEGIN_DECLS

struct _PlanarWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template children. */
  AdwToastOverlay      *toast_overlay;
  AdwWindowTitle       *window_title;
  GtkDropDown          *session_drop_down;
  GtkMenuButton        *hosts_button;
  GtkBox               *hosts_box;
  GtkMenuButton        *menu_button;
  GtkDropDown          *tool_drop_down;
  GtkRevealer          *progress_revealer;
  GtkLabel             *progress_label;
  GtkProgressBar       *progress_bar;
  /* One line per thing to know about the profile shown; each part of the
   * window sets and removes its own line by key (MESSAGE_* below). */
  PlanarMessageBar     *message_bar;
  GtkStack             *stack;
  /* The welcome page's place, and the page, made when the place is first
   * mapped: a window opened on a path never makes it (the page reads the
   * recent files' list, the whole of recently-used.xbel). */
  AdwBin               *welcome_bin;
  PlanarWelcomePage    *welcome_page;
  AdwStatusPage        *message_page;
  PlanarTimeline       *timeline;
  PlanarFindBar        *find_bar;
  PlanarFindResults    *find_results;
  GtkPaned             *details_paned;
  PlanarDetailsPane    *details_pane;
  /* Made the first time their tool is chosen (NULL until then). */
  PlanarOpStatsPage    *op_stats_page;
  PlanarHealthPage     *health_page;

  GSettings            *settings;
  /* The session keys of the Sessions menu, newest first. */
  GtkStringList        *sessions;
  /* The Hosts menu's check buttons: "All Hosts", then one per host of the
   * session in the catalog's order. */
  GtkCheckButton       *all_hosts_check;
  GPtrArray            *host_checks;

  /* What the window was asked to open, and the catalog found there (its
   * root may be wider: the run of a session folder opened alone). */
  GFile                *file;
  char                 *catalog_root;
  PlanarCatalog        *catalog;
  GCancellable         *open_cancellable;
  /* The load `planar PATH` started before the window existed, taken with
   * the path's resolution, until the window's load adopts it or not. */
  PlanarEarlyLoad      *early_load;

  /* The session and hosts shown, and their profile while it loads and once
   * it has. */
  char                 *session;
  GStrv                 hosts;
  PlanarProfile        *profile;
  GCancellable         *load_cancellable;
  /* Hosts of a lazy profile decoded on demand; cancelled with the profile. */
  GCancellable         *hosts_cancellable;
  gboolean              loading_all_hosts;
  gboolean              stopping_all_hosts;
  /* The profile whose progress the bar shows, and its handlers. */
  PlanarProfile        *progress_profile;
  gulong                progress_handlers[2];
  /* Shows or hides the title after a change of width. */
  guint                 title_source;
  gboolean              loading;

  /* GFileMonitor by path: the folders holding a run's sessions, and new
   * session folders that hold no host file yet. */
  GHashTable           *run_monitors;
  GHashTable           *pending_monitors;
  guint                 rescan_source;
  GCancellable         *rescan_cancellable;

  GtkFileChooserNative *file_chooser;

  /* The Tracks menu, the export's file chooser, and the name under which
   * the profile's arrangement is remembered (planar-window-views.c). */
  GtkMenuButton        *tracks_button;
  GtkFileChooserNative *export_chooser;
  GtkFileChooserNative *profile_export_chooser;
  char                 *view_key;

  /* Set while the window moves its controls to match its state, so that
   * their change signals are not taken for the user's. */
  gboolean              updating_controls;
  /* planar-window-first-frame.c, under PLANAR_BENCH_FIRST_FRAME only. */
  gboolean              first_frame_watched;
  gboolean              first_frame_marked;
  gboolean              first_frame_armed;
  gboolean              first_frame_painted;
  guint                 n_frames_painted;
  /* planar-window-first-frame.c: the profile's derive step is held until
   * the frame after the file's tracks were published is painted. */
  gboolean              derive_release_armed;
};

/* The keys of the message bar's lines, in the order they are first set:
 * the Tracks filter in force (planar-window-views.c), a host file changed
 * on disk (planar-window.c), hosts shown each from its own start, a file
 * cut short whose complete part was read. */
#define MESSAGE_TRACK_FILTER    "track-filter"
#define MESSAGE_FILE_CHANGED    "file-changed"
#define MESSAGE_HOST_ALIGNMENT  "host-alignment"
#define MESSAGE_FILE_CUT        "file-cut"
/* Inside the Flatpak sandbox (planar-window-sandbox.c): a host file passed
 * alone, or a folder "Open With" could not pass. */
#define MESSAGE_SESSION_FOLDER  "session-folder"

/* The tools, in the order of the Tools menu; a tool's name is its page in
 * the stack. */
extern const char * const _planar_window_tools[];

void      _planar_window_init_actions    (PlanarWindow        *self);
/* planar-window-first-frame.c: what bench/open measures, with
 * PLANAR_BENCH_FIRST_FRAME set (nothing otherwise). */
void      _planar_window_watch_first_frame (PlanarWindow      *self);
void      _planar_window_bench_mark      (const char          *what);
/* planar-window-first-frame.c: holds the new profile's derive step until
 * the window has painted the file's tracks (planar_profile_hold_derive()),
 * before its load starts; or, @held, releases the hold an early load's
 * profile was given (_planar_early_load_start()) once they are painted. */
void      _planar_window_hold_derive     (PlanarWindow        *self,
                                          gboolean             held);
/* planar-window-export.c: win.export-profile, and the export it runs. */
void      _planar_window_init_export_actions (PlanarWindow    *self);
void      _planar_window_export_profile_async (PlanarWindow         *self,
                                               GFile                *file,
                                               PlanarExportFormat    format,
                                               GAsyncReadyCallback   callback,
                                               gpointer              user_data);
gboolean  _planar_window_export_profile_finish (PlanarWindow        *self,
                                                GAsyncResult        *result,
                                                GError             **error);
/* What the progress bar shows for a load at @fraction (0 to 1), @finished
 * when nothing is left to do: the text ("42 %", "Finishing…"), or NULL
 * for a pulsing bar without a number; *@shown is the bar's fraction.
 * Never "100 %" while work continues, never "0 %" for a load whose
 * progress cannot be measured. Returns: (transfer full) (nullable). */
char     *_planar_window_progress_text   (double               fraction,
                                          gboolean             finished,
                                          double              *shown);
/* planar-window-progress.c: shows the progress bar with @label, bound to
 * the window's profile's "fraction" and "message" while it loads, and
 * hides it. */
void      _planar_window_start_progress  (PlanarWindow        *self,
                                          const char          *label);
void      _planar_window_stop_progress   (PlanarWindow        *self);
void      _planar_window_set_loading     (PlanarWindow        *self,
                                          gboolean             loading);
/* The catalog's entry of the session shown, or NULL. */
PlanarCatalogSession *_planar_window_current_session (PlanarWindow *self);
/* What the load placed or lost: one line each in the message bar. */
void      _planar_window_show_load_notes (PlanarWindow        *self,
                                          PlanarProfile       *profile);
/* Enables the actions that make sense in the window's state. */
void      _planar_window_update_actions  (PlanarWindow        *self);
void      _planar_window_set_action_state (PlanarWindow       *self,
                                           const char         *name,
                                           GVariant           *state);

void      _planar_window_select_session  (PlanarWindow        *self,
                                          const char          *session,
                                          const char * const  *hosts);
void      _planar_window_select_hosts    (PlanarWindow        *self,
                                          const char * const  *hosts);
/* planar-window-tools.c. */
void      _planar_window_select_tool     (PlanarWindow        *self,
                                          const char          *tool);
/* Gives the tools over the whole profile (those made so far) @profile,
 * or none. */
void      _planar_window_give_tools_profile (PlanarWindow     *self,
                                             PlanarProfile    *profile);
/* The folder captures and recordings go to. Returns: (transfer full). */
char     *_planar_window_dup_capture_logdir (PlanarWindow     *self);
/* planar-window-sandbox.c. After opening @file: a line offering its whole
 * session folder when the document portal passed a host file alone. */
void      _planar_window_offer_session_folder (PlanarWindow   *self,
                                               GFile          *file);
/* win.open-session-folder: a folder chooser at the file's folder. */
void      _planar_window_choose_session_folder (PlanarWindow  *self);
/* Inside the sandbox, for a @file Planar cannot see: says why in the
 * message bar (instead of opening it) and returns TRUE. */
gboolean  _planar_window_explain_unreachable (PlanarWindow    *self,
                                              GFile           *file);
/* Opens the find bar on the trace viewer. */
void      _planar_window_find            (PlanarWindow        *self);
void      _planar_window_reload          (PlanarWindow        *self);
void      _planar_window_cancel          (PlanarWindow        *self);
/* Decodes the hosts a lazy profile left for later (all of them: what the
 * tools over the whole profile need), with progress; nothing otherwise. */
void      _planar_window_load_all_hosts  (PlanarWindow        *self);

/* planar-window-catalog.c: resolves @path (planar_catalog_resolve()) in a
 * worker; a path `planar PATH` began to load early is taken from its early
 * load (_planar_application_claim_early_load()), which the window keeps in
 * early_load for its load. */
void      _planar_window_discover_async  (PlanarWindow        *self,
                                          const char          *path,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback);
PlanarCatalogResolution *_planar_window_discover_finish (PlanarWindow  *self,
                                                         GAsyncResult  *result,
                                                         GError       **error);
/* The hosts of @session to load for @hosts (host names, in any order):
 * the session's order, hosts it does not have or cannot read left out,
 * none or %NULL meaning all. Returns: (transfer full): possibly empty. */
GStrv     _planar_window_choose_hosts    (PlanarCatalogSession *session,
                                          const char * const  *hosts);
/* The files of the hosts @chosen of @session. Returns: (transfer full). */
GStrv     _planar_window_dup_host_paths  (PlanarCatalogSession *session,
                                          const char * const  *chosen);
/* PLANAR_PROFILE_LAZY_HOSTS, or PLANAR_LAZY_HOSTS from the environment
 * (the tests lower it; 0 loads every host at once). */
guint     _planar_window_lazy_hosts_threshold (void);
/* The keys planar_catalog_find_session() takes, of every session of every
 * run, newest first. Returns: (transfer full). */
GStrv     _planar_window_dup_session_keys (PlanarCatalog      *catalog);
/* A table of GFileMonitors by path, cancelled when removed. */
GHashTable *_planar_window_monitors_new  (void);
/* Watches the folder holding each run's sessions of the window's catalog,
 * and reads the catalog again (_planar_window_rescan()) when one changes. */
void      _planar_window_watch_runs      (PlanarWindow        *self);
void      _planar_window_rescan          (PlanarWindow        *self);
/* planar-window.c: shows @catalog, read again, keeping what is shown. */
void      _planar_window_replace_catalog (PlanarWindow        *self,
                                          PlanarCatalog       *catalog);

/* "2026-01-01 00:00:00" for the session key "2026_01_01_00_00_00", and
 * "train · 2026-01-01 00:00:00" for "train/2026_01_01_00_00_00". */
char     *_planar_window_format_session  (const char          *session);

/* planar-window-views.c */
void      _planar_window_init_views      (PlanarWindow        *self);
void      _planar_window_dispose_views   (PlanarWindow        *self);
/* Shows the arrangement remembered for the session being loaded, and
 * remembers its changes. */
void      _planar_window_restore_view    (PlanarWindow        *self);
/* Writes the view into @file, and says so in a toast (or why not). */
gboolean  _planar_window_export_view     (PlanarWindow        *self,
                                          GFile               *file,
                                          PlanarTimelineExportFormat format,
                                          GError             **error);

/* Only app/ turns an error into UI, and only here. */
void      _planar_window_show_error      (PlanarWindow        *self,
                                          const char          *heading,
                                          const char          *path,
                                          const GError        *error);

G_END_DECLS
