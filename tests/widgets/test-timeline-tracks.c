/* test-timeline-tracks.c: which tracks the timeline shows and in which
 * order (hiding, filtering, collapsing, moving sections), Go to Time, the
 * Tracks popover and exporting the view, on a real profile. Commands go
 * through the "timeline." actions, as the keys and menus do; Control+G is
 * also typed for real with xdotool, and a screenshot of the popover kept
 * in $PLANAR_TEST_OUTPUT.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "planar-test-samples.h"
#include "planar-test-xspace.h"
#include "planar-time-ticks.h"
#include "planar-timeline-private.h"
#include "planar-tracks-popover.h"

#define SAMPLE_GPU "xprof_GPU-multi-worker_34.83.195.179_6003.xplane.pb"

#define WIDTH  1400
#define HEIGHT 900

static PlanarProfile *sample;

typedef struct
{
  GtkWidget      *window;
  PlanarTimeline *timeline;
  /* A Tracks button above the timeline, as the application has. */
  GtkWidget      *tracks_button;
  char           *title;
} Fixture;

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

static void
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static const char *
output_dir (void)
{
  const char *dir = g_getenv ("PLANAR_TEST_OUTPUT");

  if (dir == NULL)
    dir = g_get_tmp_dir ();
  g_mkdir_with_parents (dir, 0755);
  return dir;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  f->title = g_strdup_printf ("planar-test-tracks-%d", (int) getpid ());
  f->window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (f->window), f->title);
  gtk_window_set_default_size (GTK_WINDOW (f->window), WIDTH, HEIGHT);
  gtk_window_set_decorated (GTK_WINDOW (f->window), FALSE);
  f->timeline = g_object_ref (PLANAR_TIMELINE (planar_timeline_new ()));
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (f->timeline));
  gtk_widget_set_vexpand (scrolled, TRUE);
  f->tracks_button = gtk_menu_button_new ();
  gtk_widget_set_halign (f->tracks_button, GTK_ALIGN_START);
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (f->tracks_button), "view-list-symbolic");
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (f->tracks_button), planar_tracks_popover_new (f->timeline));
  gtk_box_append (GTK_BOX (box), f->tracks_button);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_window_set_child (GTK_WINDOW (f->window), box);
  planar_timeline_set_profile (f->timeline, sample);
  gtk_window_present (GTK_WINDOW (f->window));
  while (!gtk_widget_get_mapped (GTK_WIDGET (f->timeline)) || gtk_widget_get_width (GTK_WIDGET (f->timeline)) <= 1)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  drain ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  drain ();
  g_assert_finalize_object (f->timeline);
  g_free (f->title);
}

static void
activate (Fixture    *f,
          const char *action,
          const char *id)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->timeline), action, id != NULL ? "s" : NULL, id));
}

static PlanarTimelineLayout *
layout_of (Fixture *f)
{
  return f->timeline->layout;
}

static guint
n_rows (Fixture *f)
{
  return planar_timeline_layout_get_n_rows (layout_of (f));
}

static const PlanarTimelineSection *
section (Fixture *f,
         guint    index)
{
  return planar_timeline_layout_get_section (layout_of (f), index);
}

/* The sections' titles, in display order, the hidden ones too. */
static GStrv
dup_titles (Fixture *f)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint s = 0; s < planar_timeline_layout_get_n_sections (layout_of (f)); s++)
    g_strv_builder_add (builder, section (f, s)->title);
  return g_strv_builder_end (builder);
}

/* The entry of the first track row in a section of several tracks (GPU 1
 * has a single one). */
static const PlanarTimelineEntry *
first_track_entry (Fixture                  *f,
                   const PlanarTimelineRow **row_out)
{
  for (guint r = 0; r < n_rows (f); r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout_of (f), r);

      if (row->kind == PLANAR_TIMELINE_ROW_TRACK &&
          planar_timeline_layout_get_section (layout_of (f), row->section)->n_tracks > 1)
        {
          if (row_out != NULL)
            *row_out = row;
          return planar_timeline_layout_get_entry (layout_of (f), row->entry);
        }
    }
  g_assert_not_reached ();
}

/* Rows follow one another without gaps, and the height is their sum. */
static void
assert_rows_packed (Fixture *f)
{
  int y = 0;

  for (guint r = 0; r < n_rows (f); r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout_of (f), r);

      g_assert_cmpint (row->y, ==, y);
      y += row->height;
    }
  g_assert_cmpint (planar_timeline_layout_get_height (layout_of (f)), ==, y);
}

/* The first widget of @type under @root, depth first. */
static GtkWidget *
find_descendant (GtkWidget *root,
                 GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        return child;
      found = find_descendant (child, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void save_screenshot (Fixture    *f,
                             GtkWidget  *popover,
                             const char *name);

/* ------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------ */

static void
test_hide_show (Fixture       *f,
                gconstpointer  data)
{
  PlanarViewState *state = planar_timeline_get_view_state (f->timeline);
  const PlanarTimelineRow *row;
  const PlanarTimelineEntry *entry = first_track_entry (f, &row);
  guint rows = n_rows (f);
  int height = planar_timeline_layout_get_height (layout_of (f));
  int track_height = row->height;
  guint trace = row->trace, plane = row->plane, track = row->track;
  g_autofree char *id = g_strdup (entry->id);
  guint s_index = row->section;
  g_autofree char *section_id = g_strdup (section (f, s_index)->id);
  guint section_tracks = section (f, s_index)->n_tracks;
  PlanarEventRef ref = { plane, trace, track, 0 };
  g_autoptr(PlanarSelection) selection = planar_selection_new_for_event (sample, &ref);

  g_assert_true (planar_view_state_is_default (state));
  g_assert_true (g_str_has_prefix (id, section_id));

  /* A hidden track is not drawn and takes no room. */
  activate (f, "timeline.hide-track", id);
  g_assert_true (planar_view_state_get_track_hidden (state, id));
  g_assert_cmpuint (n_rows (f), ==, rows - 1);
  g_assert_cmpint (planar_timeline_layout_get_height (layout_of (f)), ==, height - track_height);
  g_assert_cmpint (planar_timeline_layout_find_track (layout_of (f), trace, plane, track), ==, -1);
  g_assert_cmpuint (section (f, s_index)->n_tracks, ==, section_tracks - 1);
  assert_rows_packed (f);
  for (guint r = 0; r < n_rows (f); r++)
    {
      const PlanarTimelineRow *other = planar_timeline_layout_get_row (layout_of (f), r);

      g_assert_false (other->kind == PLANAR_TIMELINE_ROW_TRACK && other->trace == trace &&
                      other->plane == plane && other->track == track);
    }

  /* Showing all brings it back. */
  activate (f, "timeline.show-all-tracks", NULL);
  g_assert_cmpuint (n_rows (f), ==, rows);
  g_assert_true (planar_view_state_is_default (state));

  /* "" hides the selected event's track, and the selection goes with it:
   * the keys that step through events cannot land on a hidden track. */
  planar_timeline_set_selection (f->timeline, selection);
  g_assert_nonnull (planar_timeline_get_selection (f->timeline));
  activate (f, "timeline.hide-track", "");
  g_assert_true (planar_view_state_get_track_hidden (state, id));
  g_assert_null (planar_timeline_get_selection (f->timeline));
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (f->timeline), "timeline.next-event", NULL) &&
                  planar_timeline_get_selection (f->timeline) != NULL);
  activate (f, "timeline.show-all-tracks", NULL);

  /* A hidden section has no header and no rows; it is still listed. */
  activate (f, "timeline.hide-section", section_id);
  g_assert_true (section (f, s_index)->hidden);
  g_assert_cmpuint (section (f, s_index)->row, ==, G_MAXUINT);
  g_assert_cmpuint (n_rows (f), ==, rows - 1 - section_tracks);
  assert_rows_packed (f);
  activate (f, "timeline.show-all-tracks", NULL);
  g_assert_cmpuint (n_rows (f), ==, rows);

  /* Show Only This Section hides the others. */
  activate (f, "timeline.show-only-section", section (f, 2)->id);
  for (guint s = 0; s < planar_timeline_layout_get_n_sections (layout_of (f)); s++)
    g_assert_cmpint (section (f, s)->hidden, ==, s != 2);
  g_assert_cmpuint (n_rows (f), ==, 1 + section (f, 2)->n_tracks);
  activate (f, "timeline.show-all-tracks", NULL);
  g_assert_cmpuint (n_rows (f), ==, rows);

  /* Hiding every track of a section takes its header away too. */
  planar_view_state_freeze_changes (state);
  for (guint e = section (f, 1)->first_entry; e < section (f, 1)->first_entry + section (f, 1)->n_entries; e++)
    planar_view_state_set_track_hidden (state, planar_timeline_layout_get_entry (layout_of (f), e)->id, TRUE);
  planar_view_state_thaw_changes (state);
  g_assert_cmpuint (section (f, 1)->row, ==, G_MAXUINT);
  g_assert_cmpuint (section (f, 1)->n_tracks, ==, 0);
  activate (f, "timeline.show-all-tracks", NULL);
  g_assert_cmpuint (n_rows (f), ==, rows);
}

static void
test_filter (Fixture       *f,
             gconstpointer  data)
{
  guint rows = n_rows (f);
  guint matched = 0;

  planar_timeline_set_track_filter (f->timeline, "STREAM");
  g_assert_cmpstr (planar_timeline_get_track_filter (f->timeline), ==, "STREAM");
  g_assert_cmpuint (n_rows (f), <, rows);
  for (guint r = 0; r < n_rows (f); r++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout_of (f), r);
      g_autofree char *folded = NULL;

      if (row->kind == PLANAR_TIMELINE_ROW_SECTION)
        continue;
      folded = g_utf8_casefold (planar_timeline_layout_get_entry (layout_of (f), row->entry)->name, -1);
      g_assert_nonnull (strstr (folded, "stream"));
      matched++;
    }
  g_assert_cmpuint (matched, >, 0);
  /* The Host CPU has no stream: its section is left out. */
  for (guint s = 0; s < planar_timeline_layout_get_n_sections (layout_of (f)); s++)
    if (strcmp (section (f, s)->title, "Host CPU") == 0)
      g_assert_cmpuint (section (f, s)->row, ==, G_MAXUINT);
  assert_rows_packed (f);

  /* A section's title matches all of its tracks. */
  planar_timeline_set_track_filter (f->timeline, "gpu 4");
  g_assert_cmpuint (n_rows (f), ==, 1 + section (f, 1)->n_entries);

  /* Nothing matches: nothing shown. */
  planar_timeline_set_track_filter (f->timeline, "no track is called this");
  g_assert_cmpuint (n_rows (f), ==, 0);

  /* Show All clears the filter. */
  activate (f, "timeline.show-all-tracks", NULL);
  g_assert_cmpstr (planar_timeline_get_track_filter (f->timeline), ==, "");
  g_assert_cmpuint (n_rows (f), ==, rows);
}

static void
test_collapse_all (Fixture       *f,
                   gconstpointer  data)
{
  guint rows = n_rows (f);
  guint n_sections = planar_timeline_layout_get_n_sections (layout_of (f));

  activate (f, "timeline.collapse-all", NULL);
  g_assert_cmpuint (n_rows (f), ==, n_sections);
  for (guint s = 0; s < n_sections; s++)
    {
      g_assert_true (section (f, s)->collapsed);
      g_assert_true (planar_view_state_get_section_collapsed (planar_timeline_get_view_state (f->timeline), section (f, s)->id));
    }
  assert_rows_packed (f);

  activate (f, "timeline.expand-all", NULL);
  g_assert_cmpuint (n_rows (f), ==, rows);

  /* One section, by id. */
  activate (f, "timeline.toggle-section", section (f, 3)->id);
  g_assert_true (section (f, 3)->collapsed);
  g_assert_cmpuint (n_rows (f), ==, rows - section (f, 3)->n_tracks);
  activate (f, "timeline.toggle-section", section (f, 3)->id);
  g_assert_cmpuint (n_rows (f), ==, rows);
}

static void
test_reorder (Fixture       *f,
              gconstpointer  data)
{
  g_auto(GStrv) before = dup_titles (f);
  g_auto(GStrv) after = NULL;
  PlanarViewState *state = planar_timeline_get_view_state (f->timeline);

  g_assert_cmpstrv (before, ((const char *[]) { "GPU 1", "GPU 4", "GPU 6", "Host CPU", NULL }));

  /* Down past the next shown section. */
  activate (f, "timeline.move-section-down", section (f, 0)->id);
  after = dup_titles (f);
  g_assert_cmpstrv (after, ((const char *[]) { "GPU 4", "GPU 1", "GPU 6", "Host CPU", NULL }));
  g_clear_pointer (&after, g_strfreev);
  g_assert_cmpuint (g_strv_length ((GStrv) planar_view_state_get_section_order (state)), ==, 4);
  assert_rows_packed (f);
  g_assert_cmpint (planar_timeline_layout_get_row (layout_of (f), 0)->section, ==, 0);
  g_assert_cmpuint (planar_timeline_layout_get_row (layout_of (f), 0)->plane, ==, section (f, 0)->plane);

  /* Up from the top does nothing; the last one up moves one place. */
  activate (f, "timeline.move-section-up", section (f, 0)->id);
  activate (f, "timeline.move-section-up", section (f, 3)->id);
  after = dup_titles (f);
  g_assert_cmpstrv (after, ((const char *[]) { "GPU 4", "GPU 1", "Host CPU", "GPU 6", NULL }));
  g_clear_pointer (&after, g_strfreev);

  /* A hidden section is stepped over. */
  activate (f, "timeline.hide-section", section (f, 1)->id);
  activate (f, "timeline.move-section-down", section (f, 0)->id);
  after = dup_titles (f);
  g_assert_cmpstrv (after, ((const char *[]) { "GPU 1", "Host CPU", "GPU 4", "GPU 6", NULL }));
  g_clear_pointer (&after, g_strfreev);
  activate (f, "timeline.show-all-tracks", NULL);

  /* A drop below the last section puts the dragged one last; a drop on
   * the top half of a header puts it before that section. */
  g_assert_cmpuint (_planar_timeline_drop_target (f->timeline, HEIGHT * 4), ==, 4);
  g_assert_cmpuint (_planar_timeline_drop_target (f->timeline, PLANAR_TIMELINE_AXIS_HEIGHT + 2), ==, 0);
  _planar_timeline_move_section (f->timeline, 0, _planar_timeline_drop_target (f->timeline, HEIGHT * 4));
  after = dup_titles (f);
  g_assert_cmpstrv (after, ((const char *[]) { "Host CPU", "GPU 4", "GPU 6", "GPU 1", NULL }));
  g_clear_pointer (&after, g_strfreev);
  _planar_timeline_move_section (f->timeline, 3, 0);
  after = dup_titles (f);
  g_assert_cmpstrv (after, ((const char *[]) { "GPU 1", "Host CPU", "GPU 4", "GPU 6", NULL }));
  g_clear_pointer (&after, g_strfreev);

  activate (f, "timeline.reset-section-order", NULL);
  after = dup_titles (f);
  g_assert_cmpstrv (after, before);
  g_assert_true (planar_view_state_is_default (state));
}

/* A state made elsewhere (the application reads it from disk) takes effect
 * when it is set, and a new profile starts from a default one. */
static void
test_view_state (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(PlanarViewState) state = planar_view_state_new ();
  const char * const order[] = { "nowhere|else", NULL };
  g_autofree char *host_id = g_strdup (section (f, 3)->id);
  g_autofree char *gpu6_id = g_strdup (section (f, 2)->id);
  const char *order2[] = { NULL, NULL, NULL };
  g_auto(GStrv) titles = NULL;
  guint rows = n_rows (f);

  order2[0] = gpu6_id;
  planar_view_state_set_section_hidden (state, host_id, TRUE);
  planar_view_state_set_section_order (state, order2);
  planar_view_state_set_section_collapsed (state, order[0], TRUE);
  planar_timeline_set_view_state (f->timeline, state);
  g_assert_true (planar_timeline_get_view_state (f->timeline) == state);
  titles = dup_titles (f);
  g_assert_cmpstrv (titles, ((const char *[]) { "GPU 6", "GPU 1", "GPU 4", "Host CPU", NULL }));
  g_assert_true (section (f, 3)->hidden);
  g_assert_cmpuint (n_rows (f), <, rows);

  /* Changes to the state show at once. */
  planar_view_state_set_section_hidden (state, host_id, FALSE);
  g_assert_cmpuint (n_rows (f), ==, rows);

  planar_timeline_set_profile (f->timeline, NULL);
  g_assert_true (planar_view_state_is_default (planar_timeline_get_view_state (f->timeline)));
  planar_timeline_set_profile (f->timeline, sample);
  g_assert_cmpuint (n_rows (f), ==, rows);
}

static void
test_go_to_time (Fixture       *f,
                 gconstpointer  data)
{
  gint64 width;
  GtkWidget *entry = f->timeline->go_to_entry;

  planar_timeline_set_view (f->timeline, 0, PLANAR_PS_PER_MS / 2);
  width = planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline);

  planar_timeline_go_to_time (f->timeline, 3 * PLANAR_PS_PER_MS);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline), ==, width);
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline) + width / 2, ==, 3 * PLANAR_PS_PER_MS);

  /* The action opens the popover with the time in the middle. */
  activate (f, "timeline.go-to-time", NULL);
  drain ();
  g_assert_true (gtk_widget_get_visible (f->timeline->go_to_popover));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "3.000 ms");

  /* Bad input keeps it open and says what is wrong. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "12 parsecs");
  g_assert_true (gtk_widget_has_css_class (entry, "error"));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (f->timeline->go_to_message)), "ms"));
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (gtk_widget_get_visible (f->timeline->go_to_popover));
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline) + width / 2, ==, 3 * PLANAR_PS_PER_MS);

  /* Past the end of the profile. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "1000 s");
  g_assert_true (gtk_widget_has_css_class (entry, "error"));

  /* Units, and milliseconds without one. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "250us");
  g_assert_false (gtk_widget_has_css_class (entry, "error"));
  g_signal_emit_by_name (entry, "activate");
  drain ();
  g_assert_false (gtk_widget_get_visible (f->timeline->go_to_popover));
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline) + width / 2, ==, 250 * PLANAR_PS_PER_US);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline), ==, width);

  activate (f, "timeline.go-to-time", NULL);
  gtk_editable_set_text (GTK_EDITABLE (entry), "2");
  g_signal_emit_by_name (entry, "activate");
  drain ();
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline) + width / 2, ==, 2 * PLANAR_PS_PER_MS);
}

static void save_screenshot (Fixture    *f,
                             GtkWidget  *popover_widget,
                             const char *name);

/* At overview zoom, Go to Time zooms in to 1% of the view (at least 1 µs)
 * centred on the time; the entry spells microseconds µs. */
static void
test_go_to_time_overview (Fixture       *f,
                          gconstpointer  data)
{
  gint64 first, last, width;

  g_assert_true (planar_profile_get_span (planar_timeline_get_profile (f->timeline), &first, &last));
  planar_timeline_set_view (f->timeline, first, last);
  width = planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline);
  g_assert_cmpint (width, >=, last - first);

  planar_timeline_go_to_time (f->timeline, first + (last - first) / 3);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline), ==,
                   MAX (width / 100, PLANAR_PS_PER_US));
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline) + MAX (width / 100, PLANAR_PS_PER_US) / 2, ==,
                   first + (last - first) / 3);
  /* A marker line labelled with the time stays there. */
  {
    gint64 marker = -1;

    g_assert_true (planar_timeline_get_go_to_marker (f->timeline, &marker));
    g_assert_cmpint (marker, ==, first + (last - first) / 3);
    drain ();
    save_screenshot (f, NULL, "timeline-go-to-marker.png");
  }

  /* Zoomed in already: the width stays. */
  width = planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline);
  planar_timeline_go_to_time (f->timeline, first + (last - first) / 2);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline), ==, width);
  /* Until the next Go to Time. */
  {
    gint64 marker = -1;

    g_assert_true (planar_timeline_get_go_to_marker (f->timeline, &marker));
    g_assert_cmpint (marker, ==, first + (last - first) / 2);
  }

  /* The entry starts with the time in the middle, in µs. */
  planar_timeline_set_view (f->timeline, 0, 500 * PLANAR_PS_PER_US);
  activate (f, "timeline.go-to-time", NULL);
  drain ();
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (f->timeline->go_to_entry)), ==, "250.000 \xc2\xb5s");
  gtk_popover_popdown (GTK_POPOVER (f->timeline->go_to_popover));
  drain ();
}

/* The PNG's width and height from its IHDR chunk. */
static void
read_png_size (const guchar *data,
               gsize         length,
               guint        *width,
               guint        *height)
{
  static const guchar signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

  g_assert_cmpuint (length, >, 33);
  g_assert_cmpmem (data, 8, signature, 8);
  g_assert_cmpmem (data + 12, 4, "IHDR", 4);
  *width = (guint) data[16] << 24 | (guint) data[17] << 16 | (guint) data[18] << 8 | data[19];
  *height = (guint) data[20] << 24 | (guint) data[21] << 16 | (guint) data[22] << 8 | data[23];
}

static void
count_element (GMarkupParseContext  *context,
               const char           *element_name,
               const char          **attribute_names,
               const char          **attribute_values,
               gpointer              user_data,
               GError              **error)
{
  GPtrArray *elements = user_data;

  g_ptr_array_add (elements, g_strdup (element_name));
}

static void
test_export (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *png_path = g_build_filename (output_dir (), "timeline-export.png", NULL);
  g_autofree char *svg_path = g_build_filename (output_dir (), "timeline-export.svg", NULL);
  g_autoptr(GFile) png = g_file_new_for_path (png_path);
  g_autoptr(GFile) svg = g_file_new_for_path (svg_path);
  g_autoptr(GFile) nowhere = g_file_new_for_path ("/nonexistent-folder/view.png");
  g_autofree char *contents = NULL;
  gsize length;
  guint width, height;
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (f->timeline));

  planar_timeline_set_view (f->timeline, 0, 20 * PLANAR_PS_PER_MS);
  g_assert_true (planar_timeline_export (f->timeline, png, PLANAR_TIMELINE_EXPORT_PNG, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (png_path, &contents, &length, &error));
  read_png_size ((const guchar *) contents, length, &width, &height);
  g_assert_cmpuint (width, ==, (guint) (gtk_widget_get_width (GTK_WIDGET (f->timeline)) * scale));
  g_assert_cmpuint (height, ==, (guint) (gtk_widget_get_height (GTK_WIDGET (f->timeline)) * scale));
  g_clear_pointer (&contents, g_free);
  /* An image with the tracks on it, not a blank one. */
  g_assert_cmpuint (length, >, 20000);

  g_assert_true (planar_timeline_export (f->timeline, svg, PLANAR_TIMELINE_EXPORT_SVG, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg_path, &contents, &length, &error));
  {
    g_autoptr(GPtrArray) elements = g_ptr_array_new_with_free_func (g_free);
    GMarkupParser parser = { count_element, NULL, NULL, NULL, NULL };
    GMarkupParseContext *context = g_markup_parse_context_new (&parser, 0, elements, NULL);

    g_assert_true (g_markup_parse_context_parse (context, contents, (gssize) length, &error));
    g_assert_true (g_markup_parse_context_end_parse (context, &error));
    g_assert_no_error (error);
    g_markup_parse_context_free (context);
    g_assert_cmpuint (elements->len, >, 10);
    g_assert_cmpstr (g_ptr_array_index (elements, 0), ==, "svg");
  }

  /* A folder that does not exist: an error, and no file left behind. */
  g_assert_false (planar_timeline_export (f->timeline, nowhere, PLANAR_TIMELINE_EXPORT_PNG, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* Written beside and renamed over: no temporary file stays. */
  {
    g_autoptr(GDir) dir = g_dir_open (output_dir (), 0, NULL);
    const char *name;

    while ((name = g_dir_read_name (dir)) != NULL)
      g_assert_false (g_str_has_prefix (name, ".goutputstream"));
  }
}

static void
test_tracks_popover (Fixture       *f,
                     gconstpointer  data)
{
  GtkWidget *popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (f->tracks_button)));
  GtkWidget *list = NULL;
  GtkWidget *first_track = NULL;
  guint n_checks = 0;
  guint rows = n_rows (f);
  g_autofree char *id = g_strdup (planar_timeline_layout_get_entry (layout_of (f), section (f, 0)->first_entry)->id);

  g_assert_true (planar_tracks_popover_get_timeline (PLANAR_TRACKS_POPOVER (popover)) == f->timeline);
  gtk_menu_button_popup (GTK_MENU_BUTTON (f->tracks_button));
  drain ();
  save_screenshot (f, popover, "timeline-tracks-popover.png");

  /* One check button per section and per track, all checked. */
  list = find_descendant (popover, GTK_TYPE_LIST_BOX);
  g_assert_nonnull (list);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *check = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));

      g_assert_true (GTK_IS_CHECK_BUTTON (check));
      g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
      if (n_checks == 1)
        first_track = check;
      n_checks++;
    }
  g_assert_cmpuint (n_checks, ==, planar_timeline_layout_get_n_sections (layout_of (f)) +
                                  planar_timeline_layout_get_n_entries (layout_of (f)));

  /* Unchecking the first track hides it, and GPU 1 with it: it is the
   * section's only track. */
  g_assert_nonnull (first_track);
  g_assert_cmpuint (section (f, 0)->n_tracks, ==, 1);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (first_track), FALSE);
  g_assert_true (planar_view_state_get_track_hidden (planar_timeline_get_view_state (f->timeline), id));
  g_assert_cmpuint (n_rows (f), ==, rows - 2);

  /* The filter narrows the list and the timeline. */
  gtk_editable_set_text (GTK_EDITABLE (find_descendant (popover, GTK_TYPE_SEARCH_ENTRY)), "stream");
  /* GtkSearchEntry waits a moment before it says the text changed. */
  {
    gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

    while (strcmp (planar_timeline_get_track_filter (f->timeline), "stream") != 0)
      {
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        g_main_context_iteration (NULL, TRUE);
      }
  }
  g_assert_cmpstr (planar_timeline_get_track_filter (f->timeline), ==, "stream");
  save_screenshot (f, popover, "timeline-tracks-popover-filter.png");

  gtk_menu_button_popdown (GTK_MENU_BUTTON (f->tracks_button));
  drain ();
}

/* ------------------------------------------------------------------------
 * Control+G typed for real
 * ------------------------------------------------------------------------ */

/* Runs xdotool on the fixture's window, focused first (xdotool types at the
 * focused window), then lets GTK handle what came. */
static void
xdotool (Fixture    *f,
         const char *first_arg,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  const char *xdotool_path = g_getenv ("PLANAR_XDOTOOL");
  int status = 0;
  va_list ap;

  g_ptr_array_add (argv, (gpointer) (xdotool_path != NULL ? xdotool_path : "xdotool"));
  g_ptr_array_add (argv, (gpointer) "search");
  g_ptr_array_add (argv, (gpointer) "--sync");
  g_ptr_array_add (argv, (gpointer) "--name");
  g_ptr_array_add (argv, f->title);
  g_ptr_array_add (argv, (gpointer) "windowfocus");
  g_ptr_array_add (argv, (gpointer) "--sync");
  va_start (ap, first_arg);
  for (const char *arg = first_arg; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("xdotool failed: %s", err);
}

/* Iterates the main loop until @done says so, for at most twenty seconds
 * (a bound for a hang, not a time the test asks for); returns whether it
 * did. */
static gboolean
wait_for (gboolean (*done) (Fixture *f),
          Fixture   *f)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (!done (f))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  drain ();
  return TRUE;
}

static gboolean
popover_open (Fixture *f)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));

  /* The entry's text widget has the focus. */
  return gtk_widget_get_mapped (f->timeline->go_to_popover) && focus != NULL &&
         gtk_widget_is_ancestor (focus, f->timeline->go_to_entry);
}

static gboolean
popover_closed (Fixture *f)
{
  return !gtk_widget_get_visible (f->timeline->go_to_popover);
}

static const char *expected_text;

static gboolean
entry_has_text (Fixture *f)
{
  return strcmp (gtk_editable_get_text (GTK_EDITABLE (f->timeline->go_to_entry)), expected_text) == 0;
}

static gboolean
count_frame (GtkWidget     *widget,
             GdkFrameClock *clock,
             gpointer       data)
{
  (*(int *) data)++;
  return G_SOURCE_CONTINUE;
}

/* Lets @widget draw twice, so that what it shows is current. */
static void
wait_for_frames (GtkWidget *widget)
{
  int frames = 0;
  guint id = gtk_widget_add_tick_callback (widget, count_frame, &frames, NULL);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  gtk_widget_queue_draw (widget);
  while (frames < 2)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  gtk_widget_remove_tick_callback (widget, id);
}

static GdkTexture *
render (GtkWidget *widget)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GskRenderer) renderer = gsk_cairo_renderer_new ();
  g_autoptr(GError) error = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  wait_for_frames (widget);
  gsk_renderer_realize (renderer, NULL, &error);
  g_assert_no_error (error);
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  {
    GdkTexture *texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));

    gsk_renderer_unrealize (renderer);
    return texture;
  }
}

static void
paint_texture (cairo_t    *cr,
               GdkTexture *texture,
               double      x,
               double      y)
{
  int width = gdk_texture_get_width (texture), height = gdk_texture_get_height (texture);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);

  cairo_surface_flush (surface);
  gdk_texture_download (texture, cairo_image_surface_get_data (surface), (gsize) cairo_image_surface_get_stride (surface));
  cairo_surface_mark_dirty (surface);
  cairo_set_source_surface (cr, surface, x, y);
  cairo_paint (cr);
  cairo_surface_destroy (surface);
}

/* The window with @popover (if shown) over it, where the X server shows
 * it. */
static void
save_screenshot (Fixture    *f,
                 GtkWidget  *popover_widget,
                 const char *name)
{
  g_autoptr(GdkTexture) window = render (f->window);
  g_autofree char *path = g_build_filename (output_dir (), name, NULL);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                         gdk_texture_get_width (window), gdk_texture_get_height (window));
  cairo_t *cr = cairo_create (surface);

  paint_texture (cr, window, 0, 0);
  if (popover_widget != NULL && gtk_widget_get_mapped (popover_widget))
    {
      g_autoptr(GdkTexture) popover = render (popover_widget);
      GdkSurface *popup = gtk_native_get_surface (GTK_NATIVE (popover_widget));
      double wx, wy;

      gtk_native_get_surface_transform (GTK_NATIVE (f->window), &wx, &wy);
      paint_texture (cr, popover, gdk_popup_get_position_x (GDK_POPUP (popup)) - wx,
                     gdk_popup_get_position_y (GDK_POPUP (popup)) - wy);
    }
  cairo_destroy (cr);
  g_assert_cmpint (cairo_surface_write_to_png (surface, path), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy (surface);
  g_test_message ("screenshot: %s", path);
}

static void
test_go_to_time_keys (Fixture       *f,
                      gconstpointer  data)
{
  gint64 width;

  planar_timeline_set_view (f->timeline, 0, PLANAR_PS_PER_MS);
  width = planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline);
  gtk_widget_grab_focus (GTK_WIDGET (f->timeline));
  drain ();

  /* Control+G opens the popover with the entry focused and its text
   * selected: typing replaces it. */
  xdotool (f, "key", "ctrl+g", NULL);
  g_assert_true (wait_for (popover_open, f));
  xdotool (f, "type", "--delay", "20", "7.5ms", NULL);
  expected_text = "7.5ms";
  g_assert_true (wait_for (entry_has_text, f));
  save_screenshot (f, f->timeline->go_to_popover, "timeline-go-to-time.png");

  /* A typo is shown, and Return does not move the view. */
  xdotool (f, "key", "BackSpace", "BackSpace", "x", NULL);
  expected_text = "7.5x";
  g_assert_true (wait_for (entry_has_text, f));
  g_assert_true (gtk_widget_has_css_class (f->timeline->go_to_entry, "error"));
  save_screenshot (f, f->timeline->go_to_popover, "timeline-go-to-time-error.png");
  xdotool (f, "key", "Return", NULL);
  drain ();
  g_assert_true (gtk_widget_get_visible (f->timeline->go_to_popover));
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline), ==, 0);

  /* Fixed, Return centres the view on the time and closes the popover. */
  xdotool (f, "key", "BackSpace", "m", "s", "Return", NULL);
  g_assert_true (wait_for (popover_closed, f));
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline) + width / 2, ==, 7500 * PLANAR_PS_PER_US);
  g_assert_cmpint (planar_timeline_get_end_ps (f->timeline) - planar_timeline_get_start_ps (f->timeline), ==, width);
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (f->timeline)));
  save_screenshot (f, f->timeline->go_to_popover, "timeline-go-to-time-done.png");

  /* Escape closes it without moving. */
  xdotool (f, "key", "ctrl+g", NULL);
  g_assert_true (wait_for (popover_open, f));
  xdotool (f, "type", "1s", NULL);
  xdotool (f, "key", "Escape", NULL);
  g_assert_true (wait_for (popover_closed, f));
  g_assert_cmpint (planar_timeline_get_start_ps (f->timeline) + width / 2, ==, 7500 * PLANAR_PS_PER_US);
}

/* The timeline's (@x, @y) in the window, for xdotool's mousemove
 * --window. */
static void
window_point (Fixture *f,
              double   x,
              double   y,
              char     out_x[16],
              char     out_y[16])
{
  graphene_point_t p;

  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (f->timeline), f->window, &GRAPHENE_POINT_INIT (x, y), &p));
  g_snprintf (out_x, 16, "%d", (int) p.x);
  g_snprintf (out_y, 16, "%d", (int) p.y);
}

static gboolean
menu_open (Fixture *f)
{
  return gtk_widget_get_mapped (f->timeline->context_menu);
}

static gboolean
menu_closed (Fixture *f)
{
  return !gtk_widget_get_visible (f->timeline->context_menu);
}

static char *expected_first_title;

static gboolean
first_section_is_expected (Fixture *f)
{
  return strcmp (section (f, 0)->title, expected_first_title) == 0;
}

/* The item of the open menu whose action is @action, with its target. */
static gboolean
menu_has_item (Fixture    *f,
               const char *action,
               const char *target)
{
  GMenuModel *menu = gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (f->timeline->context_menu));

  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autoptr(GMenuModel) part = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);

      for (int k = 0; part != NULL && k < g_menu_model_get_n_items (part); k++)
        {
          g_autofree char *name = NULL;
          g_autoptr(GVariant) value = g_menu_model_get_item_attribute_value (part, k, G_MENU_ATTRIBUTE_TARGET,
                                                                            G_VARIANT_TYPE_STRING);

          if (g_menu_model_get_item_attribute (part, k, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
              strcmp (name, action) == 0 &&
              (target == NULL || (value != NULL && strcmp (g_variant_get_string (value, NULL), target) == 0)))
            return TRUE;
        }
    }
  return FALSE;
}

static gboolean
dragging_to_end (Fixture *f)
{
  return f->timeline->input->drag == DRAG_SECTION &&
         f->timeline->input->drop_before == planar_timeline_layout_get_n_sections (layout_of (f));
}

static guint expected_n_rows;

static gboolean
n_rows_is_expected (Fixture *f)
{
  return n_rows (f) == expected_n_rows;
}

/* A right click on a track's label opens its menu, and Hide Track in it
 * hides that track; Shift+F10 opens it from the keyboard. */
static void
test_context_menu (Fixture       *f,
                   gconstpointer  data)
{
  const PlanarTimelineRow *row;
  const PlanarTimelineEntry *entry = first_track_entry (f, &row);
  g_autofree char *id = g_strdup (entry->id);
  g_autofree char *section_id = g_strdup (section (f, row->section)->id);
  char px[16], py[16];
  guint rows = n_rows (f);

  window_point (f, 60, _planar_timeline_widget_y (f->timeline, row->y + 8), px, py);
  xdotool (f, "mousemove", "--window", "%1", "--sync", px, py, "click", "3", NULL);
  g_assert_true (wait_for (menu_open, f));
  g_assert_true (menu_has_item (f, "timeline.hide-track", id));
  g_assert_true (menu_has_item (f, "timeline.hide-section", section_id));
  g_assert_true (menu_has_item (f, "timeline.show-only-section", section_id));
  g_assert_true (menu_has_item (f, "timeline.toggle-section", section_id));
  g_assert_true (menu_has_item (f, "timeline.move-section-up", section_id));
  g_assert_true (menu_has_item (f, "timeline.show-all-tracks", NULL));
  g_assert_true (menu_has_item (f, "timeline.collapse-all", NULL));
  save_screenshot (f, f->timeline->context_menu, "timeline-track-menu.png");

  /* The first item is Hide Track. */
  xdotool (f, "key", "Down", "Return", NULL);
  expected_n_rows = rows - 1;
  g_assert_true (wait_for (n_rows_is_expected, f));
  g_assert_true (wait_for (menu_closed, f));
  g_assert_true (planar_view_state_get_track_hidden (planar_timeline_get_view_state (f->timeline), id));
  activate (f, "timeline.show-all-tracks", NULL);

  /* On a section's header: no track part. */
  window_point (f, 600, _planar_timeline_widget_y (f->timeline, planar_timeline_layout_get_row (layout_of (f), 0)->y + 8), px, py);
  xdotool (f, "mousemove", "--window", "%1", "--sync", px, py, "click", "3", NULL);
  g_assert_true (wait_for (menu_open, f));
  g_assert_false (menu_has_item (f, "timeline.hide-track", NULL));
  g_assert_true (menu_has_item (f, "timeline.hide-section", section (f, 0)->id));
  xdotool (f, "key", "Escape", NULL);
  g_assert_true (wait_for (menu_closed, f));

  /* From the keyboard. */
  gtk_widget_grab_focus (GTK_WIDGET (f->timeline));
  drain ();
  xdotool (f, "key", "shift+F10", NULL);
  g_assert_true (wait_for (menu_open, f));
  xdotool (f, "key", "Escape", NULL);
  g_assert_true (wait_for (menu_closed, f));
}

/* A section's header dragged below the last section goes last, with a
 * line showing where while the button is down. */
static void
test_drag_section (Fixture       *f,
                   gconstpointer  data)
{
  const PlanarTimelineRow *header = planar_timeline_layout_get_row (layout_of (f), 0);
  g_autofree char *first = g_strdup (section (f, 0)->title);
  g_autofree char *second = g_strdup (section (f, 1)->title);
  char ax[16], ay[16], mx[16], my[16], bx[16], by[16];
  double bottom;

  /* Collapsed, every section fits in the window. */
  activate (f, "timeline.collapse-all", NULL);
  header = planar_timeline_layout_get_row (layout_of (f), 0);
  bottom = _planar_timeline_widget_y (f->timeline, planar_timeline_layout_get_height (layout_of (f))) + 20;
  window_point (f, 500, _planar_timeline_widget_y (f->timeline, header->y + 10), ax, ay);
  window_point (f, 500, bottom / 2, mx, my);
  window_point (f, 500, bottom, bx, by);
  xdotool (f, "mousemove", "--window", "%1", "--sync", ax, ay, "mousedown", "1",
           "mousemove", "--window", "%1", "--sync", mx, my,
           "mousemove", "--window", "%1", "--sync", bx, by, NULL);
  /* xdotool returns once the X server moved the pointer; GTK may not have
   * seen the motion yet. */
  g_assert_true (wait_for (dragging_to_end, f));
  save_screenshot (f, NULL, "timeline-drag-section.png");
  xdotool (f, "mouseup", "1", NULL);
  expected_first_title = second;
  g_assert_true (wait_for (first_section_is_expected, f));
  g_assert_cmpstr (section (f, planar_timeline_layout_get_n_sections (layout_of (f)) - 1)->title, ==, first);
  /* A drag is not a click: the section stays collapsed. */
  g_assert_true (section (f, 3)->collapsed);
}

static int expected_label_width;

static gboolean
label_width_is_expected (Fixture *f)
{
  return f->timeline->label_width == expected_label_width && f->timeline->input->drag == DRAG_NONE;
}

static guint expected_section;
static const char *expected_tooltip;
/* The tooltip window tooltip_shows() found. */
static GtkWidget *shown_tooltip;

/* The label of a shown tooltip window under @widget holding
 * expected_tooltip, looked for depth first. */
static gboolean
tooltip_shows (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LABEL (child) && gtk_widget_get_mapped (child) &&
          strcmp (gtk_label_get_text (GTK_LABEL (child)), expected_tooltip) == 0 &&
          gtk_widget_get_ancestor (child, g_type_from_name ("GtkTooltipWindow")) != NULL)
        {
          shown_tooltip = gtk_widget_get_ancestor (child, g_type_from_name ("GtkTooltipWindow"));
          return TRUE;
        }
      if (tooltip_shows (child))
        return TRUE;
    }
  return FALSE;
}

static gboolean
tooltip_shown (Fixture *f)
{
  return tooltip_shows (f->window);
}

static gboolean
first_section_collapsed (Fixture *f)
{
  return section (f, expected_section)->collapsed;
}

/* Where am I, with the real pointer: the label column's edge dragged wider
 * (the width goes to the view state, the time area shrinks by as much);
 * scrolled down, the first section's header stays at the top over its
 * tracks, and a click there folds that section. */
static void
test_where_am_i (Fixture       *f,
                 gconstpointer  data)
{
  const PlanarTimelineSection *first = NULL;
  const PlanarTimelineRow *header;
  guint s;
  double area = _planar_timeline_time_area_width (f->timeline);
  char ax[16], ay[16], bx[16], by[16];
  int sticky, header_y;

  /* The first section of several tracks (GPU 1 has a single one). */
  for (s = 0; first == NULL || first->n_tracks <= 3; s++)
    first = section (f, s);
  s--;
  expected_section = s;
  header = planar_timeline_layout_get_row (layout_of (f), first->row);
  g_assert_cmpint (f->timeline->label_width, ==, PLANAR_TIMELINE_LABEL_WIDTH);
  g_assert_false (first->collapsed);

  /* The edge, over the first track, dragged 150 px right. */
  window_point (f, PLANAR_TIMELINE_LABEL_WIDTH - 1, _planar_timeline_widget_y (f->timeline, header->y + header->height + 8), ax, ay);
  window_point (f, PLANAR_TIMELINE_LABEL_WIDTH + 149, _planar_timeline_widget_y (f->timeline, header->y + header->height + 8), bx, by);
  xdotool (f, "mousemove", "--window", "%1", "--sync", ax, ay, "mousedown", "1",
           "mousemove", "--window", "%1", "--sync", bx, ay,
           "mousemove", "--window", "%1", "--sync", bx, by, "mouseup", "1", NULL);
  expected_label_width = PLANAR_TIMELINE_LABEL_WIDTH + 150;
  g_assert_true (wait_for (label_width_is_expected, f));
  g_assert_cmpint (planar_view_state_get_label_width (planar_timeline_get_view_state (f->timeline)), ==,
                   PLANAR_TIMELINE_LABEL_WIDTH + 150);
  g_assert_cmpfloat (_planar_timeline_time_area_width (f->timeline), ==, area - 150);
  /* A drag on the edge is not a click: nothing folded or selected. */
  g_assert_false (section (f, s)->collapsed);

  /* The layout was made again when the view state changed. */
  header = planar_timeline_layout_get_row (layout_of (f), section (f, s)->row);
  /* Scrolled so that the section's header is above the top. */
  gtk_adjustment_set_value (f->timeline->vadjustment, header->y + header->height + 40);
  drain ();
  sticky = planar_timeline_layout_sticky_section (layout_of (f), (int) _planar_timeline_vscroll (f->timeline), &header_y);
  g_assert_cmpint (sticky, ==, (int) s);
  save_screenshot (f, NULL, "timeline-where-am-i.png");

  /* The pinned header takes clicks as the header does. */
  window_point (f, 600, PLANAR_TIMELINE_AXIS_HEIGHT + PLANAR_TIMELINE_SECTION_HEIGHT / 2, ax, ay);
  xdotool (f, "mousemove", "--window", "%1", "--sync", ax, ay, "click", "1", NULL);
  g_assert_true (wait_for (first_section_collapsed, f));
  save_screenshot (f, NULL, "timeline-where-am-i-folded.png");

  /* Narrowed to the least, a long track name is cut short, and the
   * pointer over it shows it whole in a tooltip. */
  gtk_adjustment_set_value (f->timeline->vadjustment, 0);
  drain ();
  window_point (f, f->timeline->label_width, PLANAR_TIMELINE_AXIS_HEIGHT + 60, ax, ay);
  window_point (f, 0, PLANAR_TIMELINE_AXIS_HEIGHT + 60, bx, by);
  xdotool (f, "mousemove", "--window", "%1", "--sync", ax, ay, "mousedown", "1",
           "mousemove", "--window", "%1", "--sync", bx, by, "mouseup", "1", NULL);
  expected_label_width = PLANAR_TIMELINE_LABEL_WIDTH_MIN;
  g_assert_true (wait_for (label_width_is_expected, f));
  {
    const PlanarTimelineRow *row = NULL;
    const PlanarTimelineEntry *entry = NULL;

    for (guint r = 0; r < n_rows (f) && entry == NULL; r++)
      {
        int e;

        row = planar_timeline_layout_get_row (layout_of (f), r);
        e = planar_timeline_layout_find_entry (layout_of (f), row);
        if (e >= 0 && strlen (planar_timeline_layout_get_entry (layout_of (f), (guint) e)->name) > 20 &&
            _planar_timeline_widget_y (f->timeline, row->y) > PLANAR_TIMELINE_AXIS_HEIGHT + PLANAR_TIMELINE_SECTION_HEIGHT)
          entry = planar_timeline_layout_get_entry (layout_of (f), (guint) e);
      }
    g_assert_nonnull (entry);
    expected_tooltip = entry->name;
    window_point (f, 30, _planar_timeline_widget_y (f->timeline, row->y) + 8, ax, ay);
    xdotool (f, "mousemove", "--window", "%1", "--sync", ax, ay, NULL);
    window_point (f, 32, _planar_timeline_widget_y (f->timeline, row->y) + 9, ax, ay);
    xdotool (f, "mousemove", "--window", "%1", "--sync", ax, ay, NULL);
    g_assert_true (wait_for (tooltip_shown, f));
    save_screenshot (f, NULL, "timeline-label-tooltip.png");
  }

  /* The width is the view state's: a state without one brings the usual
   * width back. */
  {
    g_autoptr(PlanarViewState) fresh = planar_view_state_new ();

    planar_timeline_set_view_state (f->timeline, fresh);
    g_assert_cmpint (f->timeline->label_width, ==, PLANAR_TIMELINE_LABEL_WIDTH);
    planar_view_state_set_label_width (fresh, 300);
    g_assert_cmpint (f->timeline->label_width, ==, 300);
  }
}

/* A host file @name whose XSpace says it is host "localhost", with a GPU
 * of a few streams and a CPU plane. */
static void
write_localhost (const char *dir,
                 const char *name)
{
  XSpace *space = planar_test_space_new ();
  XPlane *plane;

  PLANAR_TEST_APPEND (space->hostnames, space->n_hostnames, planar_test_keep_str ("localhost"));
  planar_test_add_task_environment (space, 1000000);
  for (int p = 0; p < 2; p++)
    {
      plane = planar_test_space_add_plane (space, p + 1, p == 0 ? "/device:GPU:0" : "/host:CPU");
      planar_test_plane_add_event_metadata (plane, 1, "kernel", NULL);
      for (int l = 0; l < 6; l++)
        planar_test_line_add_event (planar_test_plane_add_line (plane, l + 1, p == 0 ? "Stream" : "thread", 10),
                                    1, 1000 * l, 5000);
    }
  g_free (planar_test_write_space (space, dir, name));
}

/* Two host files of a session whose XSpaces both say "localhost": each
 * host's sections are named and keyed by its file, with the hostname as
 * detail; what was remembered under "localhost" goes to both files; the
 * header of the section under the top of the view is the pinned one. */
static void
test_hosts_layout (void)
{
  g_autofree char *dir = g_dir_make_tmp ("planar-hosts-XXXXXX", NULL);
  g_autofree char *p0 = g_build_filename (dir, "worker0.xplane.pb", NULL);
  g_autofree char *p1 = g_build_filename (dir, "worker1.xplane.pb", NULL);
  const char *paths[] = { p0, p1, NULL };
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(PlanarViewState) state = planar_view_state_new ();
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) ids = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) titles = g_hash_table_new (g_str_hash, g_str_equal);
  const PlanarTimelineSection *first, *second;
  const PlanarTimelineRow *header, *next_header;
  int header_y = -1;

  planar_test_scratch_begin ();
  write_localhost (dir, "worker0.xplane.pb");
  write_localhost (dir, "worker1.xplane.pb");
  planar_test_scratch_end ();
  profile = planar_profile_new (paths);
  planar_profile_load (profile, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (planar_profile_get_n_traces (profile), ==, 2);

  /* Kept by hostname, as before. */
  planar_view_state_set_section_collapsed (state, "localhost|/host:CPU", TRUE);
  planar_view_state_set_track_hidden (state, "localhost|/device:GPU:0|1", TRUE);
  planar_timeline_layout_set_view_state (layout, state);
  planar_timeline_layout_update (layout, profile);

  g_assert_cmpuint (planar_timeline_layout_get_n_sections (layout), ==, 4);
  for (guint s = 0; s < 4; s++)
    {
      const PlanarTimelineSection *section = planar_timeline_layout_get_section (layout, s);
      const char *host = planar_trace_get_host_name (planar_profile_get_trace (profile, section->trace));

      /* Never two alike. */
      g_assert_true (g_hash_table_add (ids, section->id));
      g_assert_true (g_hash_table_add (titles, section->title));
      g_assert_true (g_str_has_prefix (section->id, host));
      g_assert_true (g_str_has_prefix (section->title, host));
      g_assert_nonnull (strstr (section->subtitle, "localhost"));
      /* Each file's CPU came out folded, its GPU open. */
      g_assert_cmpint (section->collapsed, ==, g_str_has_suffix (section->id, "/host:CPU"));
    }
  g_assert_cmpint (planar_timeline_layout_find_section (layout, "worker0|/host:CPU"), >=, 0);
  g_assert_cmpint (planar_timeline_layout_find_section (layout, "worker1|/device:GPU:0"), >=, 0);
  g_assert_true (planar_view_state_get_track_hidden (state, "worker0|/device:GPU:0|1"));
  g_assert_true (planar_view_state_get_track_hidden (state, "worker1|/device:GPU:0|1"));
  g_assert_false (planar_view_state_get_track_hidden (state, "localhost|/device:GPU:0|1"));
  g_assert_false (planar_view_state_get_section_collapsed (state, "localhost|/host:CPU"));

  /* The sticky header: none at the very top, the first section's while
   * its tracks pass under the top, then pushed up by the next header. */
  first = planar_timeline_layout_get_section (layout, 0);
  second = planar_timeline_layout_get_section (layout, 1);
  g_assert_false (first->collapsed);
  header = planar_timeline_layout_get_row (layout, first->row);
  next_header = planar_timeline_layout_get_row (layout, second->row);
  g_assert_cmpint (planar_timeline_layout_sticky_section (layout, 0, &header_y), ==, -1);
  g_assert_cmpint (planar_timeline_layout_sticky_section (layout, header->y + header->height + 5, &header_y), ==, 0);
  g_assert_cmpint (header_y, ==, header->y + header->height + 5);
  g_assert_cmpint (planar_timeline_layout_sticky_section (layout, next_header->y - 10, &header_y), ==, 0);
  g_assert_cmpint (header_y, ==, next_header->y - header->height);
  g_assert_cmpint (planar_timeline_layout_sticky_section (layout, next_header->y, &header_y), ==, -1);

  planar_timeline_layout_free (g_steal_pointer (&layout));
  g_clear_object (&profile);
  g_unlink (p0);
  g_unlink (p1);
  g_rmdir (dir);
}

static gboolean
timeline_narrow (Fixture *f)
{
  return gtk_widget_get_width (GTK_WIDGET (f->timeline)) <= 420;
}

/* A header's tooltip, asked where it is drawn. */
static char *
header_tooltip (Fixture *f,
                guint    row)
{
  const PlanarTimelineRow *r = planar_timeline_layout_get_row (layout_of (f), row);

  return _planar_timeline_dup_label_tooltip (f->timeline, PLANAR_TIMELINE_TITLE_X + 4,
                                             _planar_timeline_widget_y (f->timeline, r->y) + 10);
}

/* Headers cut short show their whole title and subtitle in a tooltip (a
 * host's: the host file's name with the hostname inside it and its
 * number of sections; a section's: its title and the device and host),
 * the pinned one too; those drawn whole show none. Asked through the row
 * kinds' table, then with the real pointer over a section's title. */
static void
test_header_tooltips (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = g_dir_make_tmp ("planar-tooltips-XXXXXX", NULL);
  g_autofree char *p0 = g_build_filename (dir, "worker0.xplane.pb", NULL);
  g_autofree char *p1 = g_build_filename (dir, "worker1.xplane.pb", NULL);
  const char *paths[] = { p0, p1, NULL };
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  const PlanarTimelineHost *host;
  const PlanarTimelineSection *gpu;
  g_autofree char *host_text = NULL;
  g_autofree char *gpu_text = NULL;
  char *text;
  char ax[16], ay[16];
  int sticky_y;

  planar_test_scratch_begin ();
  write_localhost (dir, "worker0.xplane.pb");
  write_localhost (dir, "worker1.xplane.pb");
  planar_test_scratch_end ();
  profile = planar_profile_new (paths);
  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  planar_timeline_set_profile (f->timeline, profile);
  drain ();

  g_assert_cmpuint (planar_timeline_layout_get_n_hosts (layout_of (f)), ==, 2);
  host = planar_timeline_layout_get_host (layout_of (f), 0);
  gpu = section (f, host->first_section);
  g_assert_cmpuint (host->row, ==, 0);
  g_assert_cmpuint (gpu->row, ==, 1);
  g_assert_cmpstr (host->title, ==, "worker0 (localhost)");
  g_assert_cmpstr (gpu->title, ==, "worker0 · GPU 0");
  g_assert_nonnull (strstr (gpu->subtitle, "localhost"));
  host_text = g_strdup_printf ("%s\n%s", host->title, host->subtitle);
  gpu_text = g_strdup_printf ("%s\n%s", gpu->title, gpu->subtitle);

  /* Wide, every header is whole: no tooltip; nor on a short track name. */
  g_assert_null (header_tooltip (f, host->row));
  g_assert_null (header_tooltip (f, gpu->row));
  g_assert_null (_planar_timeline_dup_label_tooltip (f->timeline, 20,
                                                     _planar_timeline_widget_y (f->timeline,
                                                                                planar_timeline_layout_get_row (layout_of (f), 2)->y) + 8));

  /* Narrow, beside the tool palette, they are cut short (and short, the
   * tracks scroll). The palette is in the header row under the axis: the
   * host's; the section's under it is whole, until it is scrolled up
   * there. */
  gtk_window_set_default_size (GTK_WINDOW (f->window), 400, 300);
  g_assert_true (wait_for (timeline_narrow, f));
  text = header_tooltip (f, host->row);
  g_assert_cmpstr (text, ==, host_text);
  g_free (text);
  g_assert_null (header_tooltip (f, gpu->row));
  gtk_adjustment_set_value (f->timeline->vadjustment, planar_timeline_layout_get_row (layout_of (f), gpu->row)->y);
  drain ();
  text = header_tooltip (f, gpu->row);
  g_assert_cmpstr (text, ==, gpu_text);
  g_free (text);

  /* The real pointer over the section's title. */
  expected_tooltip = gpu_text;
  window_point (f, PLANAR_TIMELINE_TITLE_X + 4,
                _planar_timeline_widget_y (f->timeline, planar_timeline_layout_get_row (layout_of (f), gpu->row)->y) + 10,
                ax, ay);
  xdotool (f, "mousemove", "--window", "%1", "--sync", ax, ay, NULL);
  window_point (f, PLANAR_TIMELINE_TITLE_X + 6,
                _planar_timeline_widget_y (f->timeline, planar_timeline_layout_get_row (layout_of (f), gpu->row)->y) + 11,
                ax, ay);
  xdotool (f, "mousemove", "--window", "%1", "--sync", ax, ay, NULL);
  g_assert_true (wait_for (tooltip_shown, f));
  save_screenshot (f, shown_tooltip, "timeline-header-tooltip.png");

  /* Scrolled past its header, the section's is pinned at the top and
   * says the same. */
  gtk_adjustment_set_value (f->timeline->vadjustment,
                            planar_timeline_layout_get_row (layout_of (f), gpu->row)->y + PLANAR_TIMELINE_SECTION_HEIGHT + 20);
  drain ();
  g_assert_cmpint (planar_timeline_layout_sticky_section (layout_of (f), (int) _planar_timeline_vscroll (f->timeline), &sticky_y),
                   ==, (int) host->first_section);
  text = _planar_timeline_dup_label_tooltip (f->timeline, PLANAR_TIMELINE_TITLE_X + 4, PLANAR_TIMELINE_AXIS_HEIGHT + 10);
  g_assert_cmpstr (text, ==, gpu_text);
  g_free (text);

  planar_timeline_set_profile (f->timeline, NULL);
  g_clear_object (&profile);
  g_unlink (p0);
  g_unlink (p1);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  const char *dir;
  g_autofree char *path = NULL;
  const char *paths[] = { NULL, NULL };
  g_autoptr(GError) error = NULL;
  int status;

  gtk_test_init (&argc, &argv, NULL);

  /* Every case works on the GPU sample: they only skip in a clone without
   * the samples. */
  dir = planar_test_samples_dir ();
  if (dir != NULL)
    {
      path = g_build_filename (dir, SAMPLE_GPU, NULL);
      paths[0] = path;
      sample = planar_profile_new (paths);
      planar_profile_load (sample, NULL, &error);
      g_assert_no_error (error);
    }
#define ADD_SAMPLE(name, func)                                                  \
  G_STMT_START {                                                                \
    if (sample != NULL)                                                         \
      g_test_add (name, Fixture, NULL, fixture_setup, func, fixture_teardown); \
    else                                                                        \
      planar_test_add_skipped (name);                                           \
  } G_STMT_END

  /* Made up here, with no sample. */
  g_test_add_func ("/timeline-tracks/hosts-layout", test_hosts_layout);
  g_test_add ("/timeline-tracks/header-tooltips", Fixture, NULL, fixture_setup, test_header_tooltips,
              fixture_teardown);
  ADD_SAMPLE ("/timeline-tracks/where-am-i", test_where_am_i);
  ADD_SAMPLE ("/timeline-tracks/hide-show", test_hide_show);
  ADD_SAMPLE ("/timeline-tracks/filter", test_filter);
  ADD_SAMPLE ("/timeline-tracks/collapse-all", test_collapse_all);
  ADD_SAMPLE ("/timeline-tracks/reorder", test_reorder);
  ADD_SAMPLE ("/timeline-tracks/view-state", test_view_state);
  ADD_SAMPLE ("/timeline-tracks/go-to-time", test_go_to_time);
  ADD_SAMPLE ("/timeline-tracks/go-to-time-overview", test_go_to_time_overview);
  ADD_SAMPLE ("/timeline-tracks/export", test_export);
  ADD_SAMPLE ("/timeline-tracks/popover", test_tracks_popover);
  ADD_SAMPLE ("/timeline-tracks/go-to-time-keys", test_go_to_time_keys);
  ADD_SAMPLE ("/timeline-tracks/context-menu", test_context_menu);
  ADD_SAMPLE ("/timeline-tracks/drag-section", test_drag_section);
#undef ADD_SAMPLE

  status = g_test_run ();
  g_clear_object (&sample);
  return status;
}
