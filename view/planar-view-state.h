/* planar-view-state.h: how a person arranged a profile's timeline (hidden
 * tracks and sections, collapsed sections, the order of the sections), and
 * where it is remembered between runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PLANAR_TYPE_VIEW_STATE (planar_view_state_get_type ())
G_DECLARE_FINAL_TYPE (PlanarViewState, planar_view_state, PLANAR, VIEW_STATE, GObject)

/* Tracks and sections are named by ids their view makes up from the
 * profile (host, plane and track; see planar-timeline-layout.c), so that
 * they name the same things when the same profile is loaded again. Every
 * setter returns whether anything changed and, when it did, emits
 * PlanarViewState::changed. */

PlanarViewState     *planar_view_state_new                   (void);

gboolean             planar_view_state_get_track_hidden      (PlanarViewState    *self,
                                                              const char         *track_id);
gboolean             planar_view_state_set_track_hidden      (PlanarViewState    *self,
                                                              const char         *track_id,
                                                              gboolean            hidden);
gboolean             planar_view_state_get_section_hidden    (PlanarViewState    *self,
                                                              const char         *section_id);
gboolean             planar_view_state_set_section_hidden    (PlanarViewState    *self,
                                                              const char         *section_id,
                                                              gboolean            hidden);
gboolean             planar_view_state_get_section_collapsed (PlanarViewState    *self,
                                                              const char         *section_id);
gboolean             planar_view_state_set_section_collapsed (PlanarViewState    *self,
                                                              const char         *section_id,
                                                              gboolean            collapsed);
/* Shows every hidden track and section. */
gboolean             planar_view_state_show_all              (PlanarViewState    *self);
/* The sections in the order chosen (the view puts the others after them,
 * in their usual order); empty when none was. Returns: (transfer none). */
const char * const  *planar_view_state_get_section_order     (PlanarViewState    *self);
/* @order: (nullable): NULL or empty for the usual order. */
gboolean             planar_view_state_set_section_order     (PlanarViewState    *self,
                                                              const char * const *order);
/* Between these, changes are gathered into one PlanarViewState::changed,
 * emitted by the last thaw if anything changed (collapsing every section
 * is one change for the view, and one write to the store). They nest. */
void                 planar_view_state_freeze_changes        (PlanarViewState    *self);
void                 planar_view_state_thaw_changes          (PlanarViewState    *self);
/* The width of the timeline's label column, in logical pixels; 0 for the
 * usual width. */
int                  planar_view_state_get_label_width       (PlanarViewState    *self);
gboolean             planar_view_state_set_label_width       (PlanarViewState    *self,
                                                              int                 width);
/* Moves what was remembered under a host named by its in-file hostname
 * (how ids were made before) to the host files that carry that hostname:
 * @old_hosts and @new_hosts are NULL-terminated and of equal length, and
 * every id of @old_hosts[i] ("tw003|/device:GPU:0|3") is copied to
 * @new_hosts[i] ("worker0|/device:GPU:0|3"); an old host that is not also
 * a new host is then forgotten. Two host files with the same hostname each
 * get the old entries. Returns whether anything changed. */
gboolean             planar_view_state_rekey_hosts           (PlanarViewState    *self,
                                                              const char * const *old_hosts,
                                                              const char * const *new_hosts);
/* Whether nothing was hidden, collapsed or moved. */
gboolean             planar_view_state_is_default            (PlanarViewState    *self);

/* $XDG_STATE_HOME/planar/views.ini. Returns: (transfer full). */
char                *planar_view_state_get_default_store     (void);
/* The state remembered for @profile_key (the session folder or file a
 * profile was opened from) in the key file @store_path: a default state
 * when there is none or the file does not exist. Returns: (transfer full),
 * or NULL with @error when the file cannot be read or parsed. */
PlanarViewState     *planar_view_state_load                  (const char         *store_path,
                                                              const char         *profile_key,
                                                              GError            **error);
/* Remembers @self for @profile_key in @store_path, keeping the other
 * profiles' states; a default state is forgotten instead. The file is
 * replaced atomically (written aside, then renamed). */
gboolean             planar_view_state_save                  (PlanarViewState    *self,
                                                              const char         *store_path,
                                                              const char         *profile_key,
                                                              GError            **error);

G_END_DECLS
