/* test-layout.c: which rows the timeline shows, in which order and at which
 * height.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-profile-private.h"
#include "planar-trace-loader-private.h"
#include "planar-hlo.h"
#include "planar-timeline-layout.h"
#include "planar-trace-private.h"
#include "planar-test-hlo.h"
#include "planar-test-xspace.h"

#include <string.h>

/* @n_hosts hosts, each with a GPU plane of two streams and a host plane of
 * two threads ("b" before "a" in the file). */
static PlanarProfile *
load_profile (const char *dir,
              guint       n_hosts)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  PlanarProfile *profile;

  for (guint h = 0; h < n_hosts; h++)
    {
      XSpace *space = planar_test_space_new ();
      XPlane *gpu = planar_test_space_add_plane (space, 0, "/device:GPU:0");
      XPlane *host = planar_test_space_add_plane (space, 1, "/host:CPU");
      XLine *s7 = planar_test_plane_add_line (gpu, 7, "Stream #7(Compute)", 0);
      XLine *s9 = planar_test_plane_add_line (gpu, 9, "Stream #9(MemcpyH2D)", 0);
      XLine *b = planar_test_plane_add_line (host, 2, "b", 0);
      XLine *a = planar_test_plane_add_line (host, 1, "a", 0);
      g_autofree char *name = g_strdup_printf ("worker%u.xplane.pb", h);

      planar_test_add_task_environment (space, 1000);
      planar_test_plane_add_event_metadata (gpu, 1, "kernel", NULL);
      planar_test_plane_add_event_metadata (host, 1, "op", NULL);
      planar_test_line_add_event (s7, 1, 0, 100);
      planar_test_line_add_event (s7, 1, 10, 20);
      planar_test_line_add_event (s9, 1, 0, 10);
      planar_test_line_add_event (b, 1, 0, 10);
      planar_test_line_add_event (a, 1, 0, 10);
      g_ptr_array_add (paths, planar_test_write_space (space, dir, name));
    }
  g_ptr_array_add (paths, NULL);
  profile = planar_profile_new ((const char * const *) paths->pdata);
  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  return profile;
}

static const PlanarTimelineSection *
section_titled (PlanarTimelineLayout *layout,
                const char           *title)
{
  for (guint i = 0; i < planar_timeline_layout_get_n_sections (layout); i++)
    if (strcmp (planar_timeline_layout_get_section (layout, i)->title, title) == 0)
      return planar_timeline_layout_get_section (layout, i);
  return NULL;
}

/* Devices before hosts, each section's header then its tracks, rows packed
 * from the top, host threads by name. */
static void
test_order (PlanarTestFixture *f,
            gconstpointer      data)
{
  g_autoptr(PlanarProfile) profile = load_profile (f->dir, 1);
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  const PlanarTimelineSection *gpu, *host;
  const PlanarTimelineRow *row;
  int y = 0;

  g_assert_true (planar_timeline_layout_update (layout, profile));
  g_assert_false (planar_timeline_layout_update (layout, profile));
  g_assert_cmpuint (planar_timeline_layout_get_n_sections (layout), ==, 2);
  gpu = planar_timeline_layout_get_section (layout, 0);
  host = planar_timeline_layout_get_section (layout, 1);
  g_assert_cmpstr (gpu->title, ==, "GPU 0");
  g_assert_cmpstr (host->title, ==, "Host CPU");
  g_assert_cmpuint (gpu->n_tracks, ==, 2);
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, 6);
  for (guint i = 0; i < planar_timeline_layout_get_n_rows (layout); i++)
    {
      row = planar_timeline_layout_get_row (layout, i);
      g_assert_cmpint (row->y, ==, y);
      g_assert_cmpint (planar_timeline_layout_find_row_at (layout, row->y), ==, (int) i);
      y += row->height;
    }
  g_assert_cmpint (planar_timeline_layout_get_height (layout), ==, y);

  row = planar_timeline_layout_get_row (layout, 0);
  g_assert_cmpint (row->kind, ==, PLANAR_TIMELINE_ROW_SECTION);
  g_assert_cmpint (row->height, ==, PLANAR_TIMELINE_SECTION_HEIGHT);
  /* The stream with two nested events has two depth bands. */
  row = planar_timeline_layout_get_row (layout, 1);
  g_assert_cmpint (row->kind, ==, PLANAR_TIMELINE_ROW_TRACK);
  g_assert_cmpuint (row->n_depths, ==, 2);
  g_assert_cmpint (planar_timeline_layout_find_track (layout, 0, row->plane, row->track), ==, 1);
  /* Threads by name: "a" first though the file has "b" first. */
  row = planar_timeline_layout_get_row (layout, 4);
  g_assert_cmpstr (planar_timeline_layout_get_entry (layout, row->entry)->name, ==, "a");
  g_assert_cmpint (planar_timeline_layout_find_entry (layout, row), ==, (int) row->entry);
}

/* Collapsing, hiding and filtering take rows away; the sections stay
 * listed. */
static void
test_collapse_hide_filter (PlanarTestFixture *f,
                           gconstpointer      data)
{
  g_autoptr(PlanarProfile) profile = load_profile (f->dir, 1);
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(PlanarViewState) state = planar_view_state_new ();
  const PlanarTimelineSection *gpu;

  planar_timeline_layout_set_view_state (layout, state);
  planar_timeline_layout_update (layout, profile);
  planar_timeline_layout_set_collapsed (layout, 0, TRUE);
  g_assert_true (planar_timeline_layout_update (layout, profile));
  gpu = planar_timeline_layout_get_section (layout, 0);
  g_assert_true (gpu->collapsed);
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, 4);
  g_assert_true (planar_view_state_get_section_collapsed (state, gpu->id));

  planar_timeline_layout_set_collapsed (layout, 0, FALSE);
  planar_view_state_set_section_hidden (state, "worker0|/host:CPU", TRUE);
  planar_timeline_layout_update (layout, profile);
  g_assert_cmpuint (planar_timeline_layout_get_n_sections (layout), ==, 2);
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, 3);
  g_assert_cmpint (planar_timeline_layout_find_section (layout, "worker0|/host:CPU"), ==, 1);
  g_assert_cmpuint (planar_timeline_layout_get_section (layout, 1)->row, ==, G_MAXUINT);

  planar_view_state_show_all (state);
  planar_timeline_layout_set_filter (layout, "MEMCPY");
  planar_timeline_layout_update (layout, profile);
  /* One stream matches; the host section has none and takes no space. */
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, 2);
  planar_timeline_layout_set_filter (layout, "host cpu");
  planar_timeline_layout_update (layout, profile);
  /* A section whose title matches shows every track. */
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, 3);
  planar_timeline_layout_set_filter (layout, NULL);
  planar_timeline_layout_update (layout, profile);
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, 6);
}

/* The sections whose tracks a view of the top of the layout shows: not one
 * whose header alone reaches into it, nor a collapsed one; and whether the
 * rows fill the view but for a section header's height. */
static void
test_sections_in_view (PlanarTestFixture *f,
                       gconstpointer      data)
{
  g_autoptr(PlanarProfile) profile = load_profile (f->dir, 1);
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(PlanarViewState) state = planar_view_state_new ();
  g_autoptr(GArray) in_view = g_array_new (FALSE, FALSE, sizeof (guint));
  const PlanarTimelineRow *host_header;
  int total;

  planar_timeline_layout_set_view_state (layout, state);
  planar_timeline_layout_update (layout, profile);
  host_header = planar_timeline_layout_get_row (layout, planar_timeline_layout_get_section (layout, 1)->row);
  total = planar_timeline_layout_get_height (layout);
  g_assert_cmpint (host_header->y, >, PLANAR_TIMELINE_SECTION_HEIGHT);

  /* The host's header two pixels into the view: its tracks are below it. */
  g_assert_true (planar_timeline_layout_sections_in_view (layout, host_header->y + 2, in_view));
  g_assert_cmpuint (in_view->len, ==, 1);
  g_assert_cmpuint (g_array_index (in_view, guint, 0), ==, 0);
  /* Its header whole, and the last pixel of it: still none of its tracks. */
  g_array_set_size (in_view, 0);
  g_assert_true (planar_timeline_layout_sections_in_view (layout, host_header->y + host_header->height, in_view));
  g_assert_cmpuint (in_view->len, ==, 1);
  /* One pixel more: its first track is in view. */
  g_array_set_size (in_view, 0);
  g_assert_true (planar_timeline_layout_sections_in_view (layout, host_header->y + host_header->height + 1, in_view));
  g_assert_cmpuint (in_view->len, ==, 2);
  g_assert_cmpuint (g_array_index (in_view, guint, 1), ==, 1);
  /* Only the GPU's header in view: no track at all. */
  g_array_set_size (in_view, 0);
  g_assert_true (planar_timeline_layout_sections_in_view (layout, PLANAR_TIMELINE_SECTION_HEIGHT, in_view));
  g_assert_cmpuint (in_view->len, ==, 0);

  /* Past the rows: filled but for a header's height, not more. */
  g_array_set_size (in_view, 0);
  g_assert_true (planar_timeline_layout_sections_in_view (layout, total + PLANAR_TIMELINE_SECTION_HEIGHT, in_view));
  g_assert_cmpuint (in_view->len, ==, 2);
  g_array_set_size (in_view, 0);
  g_assert_false (planar_timeline_layout_sections_in_view (layout, total + PLANAR_TIMELINE_SECTION_HEIGHT + 1, in_view));

  /* A collapsed section shows no track. */
  planar_timeline_layout_set_collapsed (layout, 0, TRUE);
  planar_timeline_layout_update (layout, profile);
  g_array_set_size (in_view, 0);
  g_assert_true (planar_timeline_layout_sections_in_view (layout, planar_timeline_layout_get_height (layout), in_view));
  g_assert_cmpuint (in_view->len, ==, 1);
  g_assert_cmpuint (g_array_index (in_view, guint, 0), ==, 1);
}

/* With several hosts every title names the host file. */
static void
test_hosts (PlanarTestFixture *f,
            gconstpointer      data)
{
  g_autoptr(PlanarProfile) profile = load_profile (f->dir, 2);
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();

  planar_timeline_layout_update (layout, profile);
  g_assert_nonnull (section_titled (layout, "worker0 · GPU 0"));
  g_assert_nonnull (section_titled (layout, "worker1 · Host CPU"));
  g_assert_cmpint (planar_timeline_layout_find_section (layout, "worker1|/device:GPU:0"), >=, 0);
}

/* A session of several hosts groups each host's sections under a header
 * that collapses them all, remembered per host file; moving a section
 * first moves its host first, its sections together. One host: no
 * groups. */
static void
test_host_groups (PlanarTestFixture *f,
                  gconstpointer      data)
{
  g_autoptr(PlanarProfile) profile = load_profile (f->dir, 2);
  g_autoptr(PlanarProfile) single = NULL;
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(PlanarViewState) state = planar_view_state_new ();
  const char * const order[] = { "worker1|/host:CPU", NULL };
  const PlanarTimelineHost *host;
  const PlanarTimelineRow *row;
  guint n_rows;

  planar_timeline_layout_set_view_state (layout, state);
  planar_timeline_layout_update (layout, profile);
  g_assert_cmpuint (planar_timeline_layout_get_n_hosts (layout), ==, 2);
  host = planar_timeline_layout_get_host (layout, 0);
  g_assert_cmpstr (host->title, ==, "worker0");
  g_assert_cmpstr (host->id, ==, "worker0|*");
  g_assert_cmpuint (host->n_sections, ==, 2);
  g_assert_cmpuint (host->first_section, ==, 0);
  g_assert_false (host->collapsed);
  row = planar_timeline_layout_get_row (layout, 0);
  g_assert_cmpint (row->kind, ==, PLANAR_TIMELINE_ROW_HOST);
  g_assert_cmpuint (row->trace, ==, 0);
  /* A host header, then its two sections of 2 tracks each. */
  n_rows = planar_timeline_layout_get_n_rows (layout);
  g_assert_cmpuint (n_rows, ==, 2 * (1 + 2 * 3));
  row = planar_timeline_layout_get_row (layout, planar_timeline_layout_get_host (layout, 1)->row);
  g_assert_cmpint (row->kind, ==, PLANAR_TIMELINE_ROW_HOST);
  g_assert_cmpuint (row->trace, ==, 1);

  /* Collapsed, a host keeps its header and nothing else. */
  planar_timeline_layout_set_host_collapsed (layout, 0, TRUE);
  g_assert_true (planar_view_state_get_section_collapsed (state, "worker0|*"));
  g_assert_true (planar_timeline_layout_update (layout, profile));
  g_assert_true (planar_timeline_layout_get_host (layout, 0)->collapsed);
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, 1 + 1 + 2 * 3);
  g_assert_cmpuint (planar_timeline_layout_get_section (layout, 0)->row, ==, G_MAXUINT);
  g_assert_cmpint (planar_timeline_layout_find_track (layout, 0, 0, 0), ==, -1);
  g_assert_cmpint (planar_timeline_layout_get_row (layout, 1)->kind, ==, PLANAR_TIMELINE_ROW_HOST);
  planar_timeline_layout_set_host_collapsed (layout, 0, FALSE);

  /* worker1's CPU moved first: worker1 first, its GPU right after. */
  planar_view_state_set_section_order (state, order);
  planar_timeline_layout_update (layout, profile);
  g_assert_cmpuint (planar_timeline_layout_get_host (layout, 0)->trace, ==, 1);
  g_assert_cmpstr (planar_timeline_layout_get_section (layout, 0)->id, ==, "worker1|/host:CPU");
  g_assert_cmpstr (planar_timeline_layout_get_section (layout, 1)->id, ==, "worker1|/device:GPU:0");
  g_assert_cmpuint (planar_timeline_layout_get_section (layout, 2)->trace, ==, 0);

  g_clear_pointer (&layout, planar_timeline_layout_free);
  layout = planar_timeline_layout_new ();
  {
    g_autofree char *path = g_build_filename (f->dir, "worker0.xplane.pb", NULL);
    const char * const paths[] = { path, NULL };

    single = planar_profile_new (paths);
    g_assert_true (planar_profile_load (single, NULL, NULL));
  }
  planar_timeline_layout_update (layout, single);
  g_assert_cmpuint (planar_timeline_layout_get_n_hosts (layout), ==, 0);
  g_assert_cmpint (planar_timeline_layout_get_row (layout, 0)->kind, ==, PLANAR_TIMELINE_ROW_SECTION);
}

/* A host file @name with one GPU stream, whose XSpace calls it @hostname
 * (none when NULL). */
static char *
write_host (const char *dir,
            const char *name,
            const char *hostname)
{
  XSpace *space = planar_test_space_new ();
  XPlane *gpu = planar_test_space_add_plane (space, 0, "/device:GPU:0");

  if (hostname != NULL)
    PLANAR_TEST_APPEND (space->hostnames, space->n_hostnames, planar_test_keep_str (hostname));
  planar_test_add_task_environment (space, 1000);
  planar_test_plane_add_event_metadata (gpu, 1, "kernel", NULL);
  planar_test_line_add_event (planar_test_plane_add_line (gpu, 7, "Stream #7(Compute)", 0), 1, 0, 100);
  return planar_test_write_space (space, dir, name);
}

/* State remembered by in-file hostname moves to the host files, in a lazy
 * session too, but only once every host's hostname is known: a host not
 * decoded yet that names none holds it back until it is decoded. */
static void
test_lazy_rekey (PlanarTestFixture *f,
                 gconstpointer      data)
{
  g_autofree char *p0 = write_host (f->dir, "worker0.xplane.pb", "localhost");
  g_autofree char *p1 = write_host (f->dir, "worker1.xplane.pb", "localhost");
  g_autofree char *p2 = write_host (f->dir, "worker2.xplane.pb", NULL);
  g_autoptr(GError) error = NULL;

  {
    const char * const paths[] = { p0, p1, NULL };
    g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
    g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
    g_autoptr(PlanarViewState) state = planar_view_state_new ();

    planar_profile_set_lazy_hosts (profile, 2);
    g_assert_true (planar_profile_load (profile, NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpint (planar_profile_get_trace_state (profile, 1), ==, PLANAR_PROFILE_TRACE_PENDING);
    planar_view_state_set_track_hidden (state, "localhost|/device:GPU:0|0", TRUE);
    planar_timeline_layout_set_view_state (layout, state);
    planar_timeline_layout_update (layout, profile);
    /* Both hostnames are in the files' structure: moved at once. */
    g_assert_true (planar_view_state_get_track_hidden (state, "worker0|/device:GPU:0|0"));
    g_assert_true (planar_view_state_get_track_hidden (state, "worker1|/device:GPU:0|0"));
    g_assert_false (planar_view_state_get_track_hidden (state, "localhost|/device:GPU:0|0"));
  }
  {
    const char * const paths[] = { p0, p2, NULL };
    g_autoptr(PlanarProfile) profile = planar_profile_new (paths);
    g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
    g_autoptr(PlanarViewState) state = planar_view_state_new ();

    planar_profile_set_lazy_hosts (profile, 2);
    g_assert_true (planar_profile_load (profile, NULL, &error));
    g_assert_no_error (error);
    planar_view_state_set_track_hidden (state, "localhost|/device:GPU:0|0", TRUE);
    planar_timeline_layout_set_view_state (layout, state);
    planar_timeline_layout_update (layout, profile);
    /* worker2 names no hostname and is not decoded: it might be
     * "localhost" too, so nothing moves yet. */
    g_assert_true (planar_view_state_get_track_hidden (state, "localhost|/device:GPU:0|0"));
    g_assert_false (planar_view_state_get_track_hidden (state, "worker0|/device:GPU:0|0"));
    g_assert_true (planar_profile_load_traces (profile, NULL, 0, NULL, &error));
    g_assert_no_error (error);
    planar_timeline_layout_update (layout, profile);
    g_assert_true (planar_view_state_get_track_hidden (state, "worker0|/device:GPU:0|0"));
    g_assert_false (planar_view_state_get_track_hidden (state, "worker2|/device:GPU:0|0"));
    g_assert_false (planar_view_state_get_track_hidden (state, "localhost|/device:GPU:0|0"));
  }
}

/* The header of the section whose tracks are at the top stays pinned, and
 * the next header pushes it out. */
static void
test_sticky (PlanarTestFixture *f,
             gconstpointer      data)
{
  g_autoptr(PlanarProfile) profile = load_profile (f->dir, 1);
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  const PlanarTimelineRow *host_header;
  int header_y = -1;

  planar_timeline_layout_update (layout, profile);
  host_header = planar_timeline_layout_get_row (layout, planar_timeline_layout_get_section (layout, 1)->row);
  g_assert_cmpint (planar_timeline_layout_sticky_section (layout, 0, &header_y), ==, -1);
  g_assert_cmpint (planar_timeline_layout_sticky_section (layout, 5, &header_y), ==, 0);
  g_assert_cmpint (header_y, ==, 5);
  g_assert_cmpint (planar_timeline_layout_sticky_section (layout, host_header->y - 10, &header_y), ==, 0);
  g_assert_cmpint (header_y, ==, host_header->y - PLANAR_TIMELINE_SECTION_HEIGHT);
}

/* A GPU plane of three streams whose first's kernels carry XLA
 * annotations, so that the model derives XLA Modules and XLA Ops lines
 * from it; with @derive FALSE, the same profile as the timeline shows it
 * before those lines arrive. */
static PlanarProfile *
load_xla_profile (const char *dir,
                  gboolean    derive)
{
  XSpace *space = planar_test_space_new ();
  XPlane *gpu = planar_test_space_add_plane (space, 0, "/device:GPU:0");
  XPlane *host = planar_test_space_add_plane (space, 1, "/host:CPU");
  XLine *streams[] = {
    planar_test_plane_add_line (gpu, 7, "Stream #7(Compute)", 0),
    planar_test_plane_add_line (gpu, 8, "Stream #8(Compute)", 0),
    planar_test_plane_add_line (gpu, 9, "Stream #9(MemcpyH2D)", 0),
  };
  XLine *thread = planar_test_plane_add_line (host, 1, "main", 0);
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  PlanarProfile *profile;

  planar_test_add_task_environment (space, 1000);
  planar_test_plane_add_event_metadata (gpu, 1, "fusion_kernel", NULL);
  planar_test_plane_add_stat_metadata (gpu, 1, "kernel_details");
  planar_test_plane_add_stat_metadata (gpu, 2, "hlo_module");
  planar_test_plane_add_stat_metadata (gpu, 3, "hlo_op");
  planar_test_plane_add_event_metadata (host, 1, "op", NULL);
  for (guint s = 0; s < G_N_ELEMENTS (streams); s++)
    for (guint k = 0; k < 3; k++)
      {
        XEvent *ev = planar_test_line_add_event (streams[s], 1, (gint64) k * 100000, 50000);

        PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_str (1, "regs:32 grid:1,1,1 block:128,1,1"));
        if (s == 0)
          {
            PLANAR_TEST_APPEND (ev->stats, ev->n_stats, planar_test_stat_str (2, "jit_f"));
            /* The last op is inside a loop: XLA Ops has two depths. */
            PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                                planar_test_stat_str (3, k == 2 ? "while.1::fusion.2" : "fusion.1"));
          }
      }
  planar_test_line_add_event (thread, 1, 0, 10);
  path = planar_test_write_space (space, dir, derive ? "derived.xplane.pb" : "file-only.xplane.pb");

  profile = planar_profile_new ((const char * const[]) { path, NULL });
  /* Without derived lines: what the timeline shows before they arrive. */
  planar_trace_loader_set_derive (_planar_profile_get_loader (profile, 0), derive);
  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);
  return profile;
}

/* Derived lines arrive after the first frame: the rows of the plane shown
 * before they do keep their place, and the derived ones come below, each
 * stream's in its order. */
static void
test_derived_below (PlanarTestFixture *f,
                    gconstpointer      data)
{
  g_autoptr(PlanarProfile) before = load_xla_profile (f->dir, FALSE);
  g_autoptr(PlanarProfile) after = load_xla_profile (f->dir, TRUE);
  g_autoptr(PlanarTimelineLayout) first = planar_timeline_layout_new ();
  g_autoptr(PlanarTimelineLayout) last = planar_timeline_layout_new ();
  const PlanarTimelineSection *gpu_first, *gpu_last;
  const PlanarPlane *plane;
  guint n_derived = 0;
  int last_file_y = -1;

  planar_timeline_layout_update (first, before);
  planar_timeline_layout_update (last, after);
  gpu_first = planar_timeline_layout_get_section (first, 0);
  gpu_last = planar_timeline_layout_get_section (last, 0);
  g_assert_cmpstr (gpu_first->title, ==, "GPU 0");
  g_assert_cmpstr (gpu_last->title, ==, "GPU 0");
  plane = planar_trace_get_plane (planar_profile_get_trace (after, 0), gpu_last->plane);
  g_assert_cmpuint (gpu_first->n_tracks, ==, 3);
  g_assert_cmpuint (gpu_last->n_tracks, >, 3);

  /* Every row shown before is at the same y after. */
  for (guint i = gpu_first->row; i <= gpu_first->row + gpu_first->n_tracks; i++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (first, i);
      const PlanarTimelineRow *same = planar_timeline_layout_get_row (last, i);

      g_assert_cmpint (same->kind, ==, row->kind);
      g_assert_cmpuint (same->track, ==, row->track);
      g_assert_cmpint (same->y, ==, row->y);
      g_assert_cmpint (same->height, ==, row->height);
      if (row->kind == PLANAR_TIMELINE_ROW_TRACK)
        last_file_y = row->y;
    }

  /* The derived rows follow, XLA Modules before XLA Ops of stream #7. */
  for (guint i = gpu_last->row + 1; i <= gpu_last->row + gpu_last->n_tracks; i++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (last, i);
      const PlanarTrack *track = &plane->tracks[row->track];

      g_assert_cmpint (row->kind, ==, PLANAR_TIMELINE_ROW_TRACK);
      if (!track->derived)
        {
          g_assert_cmpuint (n_derived, ==, 0);
          continue;
        }
      g_assert_cmpint (row->y, >, last_file_y);
      g_assert_true (g_str_has_suffix (track->name, " - from #7"));
      if (n_derived == 0)
        g_assert_cmpstr (track->name, ==, "XLA Modules - from #7");
      if (n_derived == 1)
        g_assert_cmpstr (track->name, ==, "XLA Ops - from #7");
      n_derived++;
    }
  g_assert_cmpuint (n_derived, ==, 2);
}

/* A TPU's Host Offload rows follow its other lines; a host thread's
 * XLA:CPU lines come right under it, in XProf's order. */
static void
test_offload_and_xla_cpu (PlanarTestFixture *f,
                          gconstpointer      data)
{
  XSpace *space = planar_test_space_new ();
  PlanarTestPlane *tpu = planar_test_named_plane_new (space, 0, "/device:TPU:0");
  PlanarTestPlane *host = planar_test_named_plane_new (space, 1, "/host:CPU");
  XLine *ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  XLine *b = planar_test_plane_add_line (host->plane, 2, "b", 0);
  XLine *a = planar_test_plane_add_line (host->plane, 1, "a", 0);
  XLine *c = planar_test_plane_add_line (host->plane, 3, "c", 0);
  const char *offload[] = { "copy-start.1", "copy-start.2", "copy-done.1", "copy-done.2" };
  const char *expected[] = {
    "XLA Ops", "Framework Name Scope", "Framework Ops", "Host Offload Ops row 0", "Host Offload Ops row 1",
    "a", "b", "b-Framework Ops", "b-Framework Name Scope", "b-XLA Modules", "c",
  };
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(GError) error = NULL;
  guint n = 0;
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < G_N_ELEMENTS (offload); i++)
    {
      g_autofree char *text = g_strdup_printf ("%%%s = f32[8]{0:S(5)} op()", offload[i]);
      gint64 id = tpu->next_id++;

      planar_test_plane_add_event_metadata (tpu->plane, id, text, offload[i]);
      planar_test_line_add_event (ops, id, i * 10, 5);
    }
  ev = planar_test_line_add_event (ops, planar_test_named_plane_event_id (tpu, "fusion"), 100, 10);
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                      planar_test_stat_str (planar_test_named_plane_stat_id (tpu, "tf_op"), "jit(f)/add:add"));
  planar_test_named_plane_done (tpu);
  planar_test_line_add_event (a, planar_test_named_plane_event_id (host, "op"), 0, 10);
  planar_test_line_add_event (c, planar_test_named_plane_event_id (host, "op"), 0, 10);
  ev = planar_test_line_add_event (b, planar_test_named_plane_event_id (host, "add.1"), 0, 10);
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                      planar_test_stat_str (planar_test_named_plane_stat_id (host, "hlo_module"), "jit_f"));
  PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                      planar_test_stat_str (planar_test_named_plane_stat_id (host, "tf_op"), "jit(f)/add:add"));
  planar_test_named_plane_done (host);
  g_ptr_array_add (paths, planar_test_write_space (space, f->dir, "tpu-cpu.xplane.pb"));
  g_ptr_array_add (paths, NULL);
  profile = planar_profile_new ((const char * const *) paths->pdata);
  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);

  planar_timeline_layout_update (layout, profile);
  for (guint i = 0; i < planar_timeline_layout_get_n_rows (layout); i++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout, i);

      if (row->kind != PLANAR_TIMELINE_ROW_TRACK)
        continue;
      g_assert_cmpuint (n, <, G_N_ELEMENTS (expected));
      g_assert_cmpstr (planar_timeline_layout_get_entry (layout, row->entry)->name, ==, expected[n]);
      n++;
    }
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected));
}

/* Holds a load at "trace-deriving": the file's tracks in place, the derive
 * pass not run, as the timeline first shows them. */
typedef struct
{
  GMutex   lock;
  GCond    cond;
  gboolean reached;
  gboolean released;
  gboolean done;
  /* Held before the HLO is read too. */
  gboolean hold_hlo;
  gboolean hlo_reached;
  gboolean hlo_released;
} DeriveGate;

static void
derive_gate_hook (const char *point,
                  const char *path,
                  gpointer    data)
{
  DeriveGate *gate = data;

  if (gate->hold_hlo && strcmp (point, "trace-reading-hlo") == 0)
    {
      g_mutex_lock (&gate->lock);
      gate->hlo_reached = TRUE;
      g_cond_broadcast (&gate->cond);
      while (!gate->hlo_released)
        g_cond_wait (&gate->cond, &gate->lock);
      g_mutex_unlock (&gate->lock);
      return;
    }
  if (strcmp (point, "trace-deriving") != 0)
    return;
  g_mutex_lock (&gate->lock);
  gate->reached = TRUE;
  g_cond_broadcast (&gate->cond);
  while (!gate->released)
    g_cond_wait (&gate->cond, &gate->lock);
  g_mutex_unlock (&gate->lock);
}

static void
gate_load_done (GObject      *source,
                GAsyncResult *result,
                gpointer      data)
{
  DeriveGate *gate = data;
  g_autoptr(GError) error = NULL;

  g_assert_true (planar_profile_load_finish (PLANAR_PROFILE (source), result, &error));
  g_assert_no_error (error);
  gate->done = TRUE;
}

/* While the model derives its lines, the timeline keeps room for those it
 * predicts: when they arrive, no section below the GPU plane moves (the
 * host's header and thread stay at the same y), the file's rows stay, and
 * each reserved row becomes its line. A stream whose kernels carry no XLA
 * annotation gets no room. */
static void
test_derived_reserved (PlanarTestFixture *f,
                       gconstpointer      data)
{
  g_autoptr(PlanarProfile) written = load_xla_profile (f->dir, TRUE);
  g_autofree char *path = g_build_filename (f->dir, "derived.xplane.pb", NULL);
  g_autoptr(PlanarProfile) profile = planar_profile_new ((const char * const[]) { path, NULL });
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(GArray) before = g_array_new (FALSE, FALSE, sizeof (PlanarTimelineRow));
  DeriveGate gate = { 0 };
  PlanarTraceTestOptions options = { derive_gate_hook, &gate, -1 };
  const PlanarTimelineSection *gpu, *host;
  const PlanarPlane *plane;
  guint n_reserved = 0;
  int host_y;

  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  planar_trace_loader_set_use_cache (_planar_profile_get_loader (profile, 0), FALSE);
  _planar_trace_loader_set_test_options (_planar_profile_get_loader (profile, 0), &options);
  planar_profile_load_async (profile, NULL, gate_load_done, &gate);
  g_mutex_lock (&gate.lock);
  while (!gate.reached)
    g_cond_wait (&gate.cond, &gate.lock);
  g_mutex_unlock (&gate.lock);

  /* Before the derive pass. */
  planar_timeline_layout_update (layout, profile);
  g_assert_false (planar_trace_is_decoded (planar_profile_get_trace (profile, 0)));
  gpu = planar_timeline_layout_get_section (layout, 0);
  host = planar_timeline_layout_get_section (layout, 1);
  g_assert_cmpstr (gpu->title, ==, "GPU 0");
  g_assert_cmpstr (host->title, ==, "Host CPU");
  g_assert_cmpuint (gpu->n_tracks, ==, 5);
  for (guint i = gpu->row + 1; i <= gpu->row + gpu->n_tracks; i++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout, i);
      const PlanarTimelineEntry *entry = planar_timeline_layout_get_entry (layout, row->entry);

      if (row->kind != PLANAR_TIMELINE_ROW_RESERVED)
        continue;
      g_assert_cmpstr (entry->name, ==, n_reserved == 0 ? "XLA Modules - from #7" : "XLA Ops - from #7");
      n_reserved++;
    }
  g_assert_cmpuint (n_reserved, ==, 2);
  host_y = planar_timeline_layout_get_row (layout, host->row)->y;
  g_array_append_vals (before, planar_timeline_layout_get_row (layout, 0), planar_timeline_layout_get_n_rows (layout));

  g_mutex_lock (&gate.lock);
  gate.released = TRUE;
  g_cond_broadcast (&gate.cond);
  g_mutex_unlock (&gate.lock);
  while (!gate.done)
    g_main_context_iteration (NULL, TRUE);

  /* After it: the same rows at the same places, the reserved ones now
   * the derived tracks. */
  planar_timeline_layout_update (layout, profile);
  g_assert_true (planar_trace_is_decoded (planar_profile_get_trace (profile, 0)));
  host = planar_timeline_layout_get_section (layout, 1);
  g_assert_cmpstr (host->title, ==, "Host CPU");
  g_assert_cmpint (planar_timeline_layout_get_row (layout, host->row)->y, ==, host_y);
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, before->len);
  plane = planar_trace_get_plane (planar_profile_get_trace (profile, 0), 0);
  for (guint i = 0; i < before->len; i++)
    {
      const PlanarTimelineRow *was = &g_array_index (before, PlanarTimelineRow, i);
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout, i);

      g_assert_cmpint (row->y, ==, was->y);
      g_assert_cmpint (row->height, ==, was->height);
      if (was->kind == PLANAR_TIMELINE_ROW_RESERVED)
        {
          g_assert_cmpint (row->kind, ==, PLANAR_TIMELINE_ROW_TRACK);
          g_assert_cmpuint (row->track, ==, was->track);
          g_assert_true (plane->tracks[row->track].derived);
        }
      else
        g_assert_cmpint (row->kind, ==, was->kind);
    }
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);
}

/* Starts loading @path held before its derive pass, and lays it out as
 * the timeline first shows it. */
static PlanarProfile *
start_gated (const char           *path,
             DeriveGate           *gate,
             PlanarTraceTestOptions *options,
             PlanarTimelineLayout *layout)
{
  PlanarProfile *profile = planar_profile_new ((const char * const[]) { path, NULL });

  g_mutex_init (&gate->lock);
  g_cond_init (&gate->cond);
  options->test_hook = derive_gate_hook;
  options->test_hook_data = gate;
  options->spill = -1;
  planar_trace_loader_set_use_cache (_planar_profile_get_loader (profile, 0), FALSE);
  _planar_trace_loader_set_test_options (_planar_profile_get_loader (profile, 0), options);
  planar_profile_load_async (profile, NULL, gate_load_done, gate);
  g_mutex_lock (&gate->lock);
  while (!gate->reached)
    g_cond_wait (&gate->cond, &gate->lock);
  g_mutex_unlock (&gate->lock);
  planar_timeline_layout_update (layout, profile);
  g_assert_false (planar_trace_is_decoded (planar_profile_get_trace (profile, 0)));
  return profile;
}

static void
finish_gated (DeriveGate *gate)
{
  g_mutex_lock (&gate->lock);
  gate->released = TRUE;
  g_cond_broadcast (&gate->cond);
  g_mutex_unlock (&gate->lock);
  while (!gate->done)
    g_main_context_iteration (NULL, TRUE);
  g_mutex_clear (&gate->lock);
  g_cond_clear (&gate->cond);
}

static guint
count_kind (PlanarTimelineLayout  *layout,
            PlanarTimelineRowKind  kind)
{
  guint n = 0;

  for (guint i = 0; i < planar_timeline_layout_get_n_rows (layout); i++)
    n += planar_timeline_layout_get_row (layout, i)->kind == kind;
  return n;
}

/* A TPU whose lines the prediction once missed: ops nested in a loop
 * (Framework Ops two deep), copies to the host's memory (two Host Offload
 * rows, which only pairing every copy tells), counters; a GPU stream whose
 * program starts after 300 plain kernels; a host thread below them. */
static char *
write_unpredicted_once (const char *dir)
{
  XSpace *space = planar_test_space_new ();
  PlanarTestPlane *tpu = planar_test_named_plane_new (space, 0, "/device:TPU:0");
  PlanarTestPlane *gpu = planar_test_named_plane_new (space, 1, "/device:GPU:0");
  PlanarTestPlane *host = planar_test_named_plane_new (space, 2, "/host:CPU");
  XLine *ops = planar_test_plane_add_line (tpu->plane, 3, "XLA Ops", 0);
  XLine *counters = planar_test_plane_add_line (tpu->plane, G_MAXINT64, "_counters_", 0);
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  XLine *thread = planar_test_plane_add_line (host->plane, 1, "main", 0);
  const char *offload[] = { "copy-start.1", "copy-start.2", "copy-done.1", "copy-done.2" };
  const char *tf_ops[] = { "jit(f)/while:while", "jit(f)/body/add:add" };
  XEvent *ev;

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < G_N_ELEMENTS (offload); i++)
    {
      g_autofree char *text = g_strdup_printf ("%%%s = f32[8]{0:S(5)} op()", offload[i]);
      gint64 id = tpu->next_id++;

      planar_test_plane_add_event_metadata (tpu->plane, id, text, offload[i]);
      planar_test_line_add_event (ops, id, 10000 + i * 10, 5);
    }
  /* while [0, 1000] holds add [100, 200]. */
  for (guint i = 0; i < G_N_ELEMENTS (tf_ops); i++)
    {
      ev = planar_test_line_add_event (ops, planar_test_named_plane_event_id (tpu, tf_ops[i]), i * 100,
                                       i == 0 ? 1000 : 100);
      planar_test_named_plane_add_str (tpu, ev, "tf_op", tf_ops[i]);
    }
  for (guint i = 0; i < 3; i++)
    {
      ev = planar_test_line_add_event (counters, planar_test_named_plane_event_id (tpu, "hbm"), i * 100, 0);
      planar_test_named_plane_add_int (tpu, ev, i == 2 ? "hbm_bytes" : "power_mw", 10 * i);
    }
  planar_test_named_plane_done (tpu);
  for (guint i = 0; i < 302; i++)
    {
      ev = planar_test_line_add_event (stream, planar_test_named_plane_event_id (gpu, "kernel"), i * 100, 10);
      planar_test_named_plane_add_ref (gpu, ev, "kernel_details", "regs:32 grid:1,1,1 block:128,1,1");
      if (i >= 300)
        {
          planar_test_named_plane_add_ref (gpu, ev, "hlo_module", "jit_f");
          planar_test_named_plane_add_ref (gpu, ev, "hlo_op", i == 300 ? "fusion.1" : "while.3::body.4");
        }
    }
  planar_test_named_plane_done (gpu);
  planar_test_line_add_event (thread, planar_test_named_plane_event_id (host, "op"), 0, 10);
  planar_test_named_plane_done (host);
  return planar_test_write_space (space, dir, "unpredicted-once.xplane.pb");
}

/* Every row of @before is in @layout at the same place and height; a
 * reserved one has become its track or counter. */
static void
assert_rows_still (PlanarTimelineLayout *layout,
                   GArray               *before)
{
  g_assert_cmpuint (planar_timeline_layout_get_n_rows (layout), ==, before->len);
  for (guint i = 0; i < before->len; i++)
    {
      const PlanarTimelineRow *was = &g_array_index (before, PlanarTimelineRow, i);
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout, i);

      g_assert_cmpint (row->y, ==, was->y);
      g_assert_cmpint (row->height, ==, was->height);
      if (was->kind == PLANAR_TIMELINE_ROW_RESERVED)
        g_assert_true (row->kind == PLANAR_TIMELINE_ROW_TRACK || row->kind == PLANAR_TIMELINE_ROW_COUNTER);
      else
        g_assert_cmpint (row->kind, ==, was->kind);
    }
}

/* The lines once not predicted have their rows kept too: the TPU's Host
 * Offload rows, its counters and nested Framework Ops, and a stream's XLA
 * lines whose program starts late. Nothing moves when they arrive. */
static void
test_derived_reserved_all (PlanarTestFixture *f,
                           gconstpointer      data)
{
  g_autofree char *path = write_unpredicted_once (f->dir);
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(GArray) before = g_array_new (FALSE, FALSE, sizeof (PlanarTimelineRow));
  g_autoptr(PlanarProfile) profile = NULL;
  PlanarTraceTestOptions options = { 0 };
  DeriveGate gate = { 0 };

  profile = start_gated (path, &gate, &options, layout);
  /* Framework Name Scope and Ops, two Host Offload rows, two counters;
   * XLA Modules and XLA Ops of the stream. */
  g_assert_cmpuint (count_kind (layout, PLANAR_TIMELINE_ROW_RESERVED), ==, 8);
  g_array_append_vals (before, planar_timeline_layout_get_row (layout, 0), planar_timeline_layout_get_n_rows (layout));
  finish_gated (&gate);
  planar_timeline_layout_update (layout, profile);
  g_assert_cmpuint (count_kind (layout, PLANAR_TIMELINE_ROW_COUNTER), ==, 2);
  assert_rows_still (layout, before);
}

/* A line still not told before the pass (a stream's XLA ops first seen
 * past its sample) arrives where the user looks: it waits, and nothing on
 * screen moves; once its place is scrolled off it comes in, the scroll
 * offset keeping the rows on screen still; the user's own change lays
 * everything out. */
static void
test_derived_held (PlanarTestFixture *f,
                   gconstpointer      data)
{
  XSpace *space = planar_test_space_new ();
  PlanarTestPlane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  PlanarTestPlane *host = planar_test_named_plane_new (space, 1, "/host:CPU");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autofree char *path = NULL;
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(GArray) before = g_array_new (FALSE, FALSE, sizeof (PlanarTimelineRow));
  g_autoptr(PlanarProfile) profile = NULL;
  PlanarTraceTestOptions options = { 0 };
  DeriveGate gate = { 0 };
  const PlanarTimelineSection *hosts;
  int host_y, height, new_top;

  planar_test_add_task_environment (space, 1000);
  /* Every kernel of a module; an op only on the last, past the sample. */
  for (guint i = 0; i < 600; i++)
    {
      XEvent *ev = planar_test_line_add_event (stream, planar_test_named_plane_event_id (gpu, "kernel"), i * 100, 10);

      planar_test_named_plane_add_ref (gpu, ev, "kernel_details", "regs:32 grid:1,1,1 block:128,1,1");
      planar_test_named_plane_add_ref (gpu, ev, "hlo_module", "jit_f");
      if (i == 599)
        planar_test_named_plane_add_ref (gpu, ev, "hlo_op", "fusion.1");
    }
  planar_test_named_plane_done (gpu);
  for (guint t = 0; t < 40; t++)
    {
      g_autofree char *name = g_strdup_printf ("thread %02u", t);

      planar_test_line_add_event (planar_test_plane_add_line (host->plane, t + 1, name, 0),
                                  planar_test_named_plane_event_id (host, "op"), 0, 10);
    }
  planar_test_named_plane_done (host);
  path = planar_test_write_space (space, f->dir, "held.xplane.pb");

  profile = start_gated (path, &gate, &options, layout);
  g_assert_cmpuint (count_kind (layout, PLANAR_TIMELINE_ROW_RESERVED), ==, 1);
  g_array_append_vals (before, planar_timeline_layout_get_row (layout, 0), planar_timeline_layout_get_n_rows (layout));
  hosts = planar_timeline_layout_get_section (layout, 1);
  g_assert_cmpstr (hosts->title, ==, "Host CPU");
  host_y = planar_timeline_layout_get_row (layout, hosts->row)->y;
  finish_gated (&gate);

  /* On screen: the top 600 px, the GPU and the host's first threads. */
  planar_timeline_layout_update_still (layout, profile, 0, 600, &new_top);
  g_assert_cmpint (new_top, ==, 0);
  g_assert_cmpuint (planar_timeline_layout_get_n_held (layout), ==, 1);
  assert_rows_still (layout, before);
  /* Still there while its place is on screen. */
  planar_timeline_layout_update_still (layout, profile, 10, 610, &new_top);
  g_assert_cmpint (new_top, ==, 10);
  assert_rows_still (layout, before);

  /* Scrolled down past it: it comes in above, and the offset follows. */
  height = 2 * PLANAR_TIMELINE_TRACK_PADDING + PLANAR_TIMELINE_DEPTH_PITCH;
  planar_timeline_layout_update_still (layout, profile, host_y + 100, host_y + 700, &new_top);
  g_assert_cmpuint (planar_timeline_layout_get_n_held (layout), ==, 0);
  g_assert_cmpint (new_top, ==, host_y + 100 + height);
  hosts = planar_timeline_layout_get_section (layout, 1);
  g_assert_cmpint (planar_timeline_layout_get_row (layout, hosts->row)->y, ==, host_y + height);
  g_assert_cmpuint (count_kind (layout, PLANAR_TIMELINE_ROW_TRACK), ==, 1 + 2 + 40);

  /* Held again from the start, then laid out by a change of the user's. */
  planar_timeline_layout_reset (layout);
  planar_timeline_layout_update (layout, profile);
  g_assert_cmpuint (count_kind (layout, PLANAR_TIMELINE_ROW_TRACK), ==, 1 + 2 + 40);
}

/* A JAX GPU stream whose kernels resolve through the HLO of
 * `/host:metadata` to framework ops and source lines; a host thread
 * below. */
static char *
write_hlo_profile (const char *dir)
{
  static const PlanarTestHloIns ins[] = {
    { "fusion.1", "fusion", 1, 11, { 8 }, 1, NULL, 0, NULL, 0, "", "jit(f)/layer/add", "/src/train.py", 10 },
    { "dot.2", "dot", 2, 11, { 8 }, 1, NULL, 0, NULL, 0, "", "jit(f)/layer/dot_general", "/src/train.py", 11 },
  };
  XSpace *space = planar_test_space_new ();
  PlanarTestPlane *gpu = planar_test_named_plane_new (space, 0, "/device:GPU:0");
  PlanarTestPlane *host = planar_test_named_plane_new (space, 1, "/host:CPU");
  XLine *stream = planar_test_plane_add_line (gpu->plane, 7, "Stream #7(Compute)", 0);
  g_autoptr(GByteArray) proto = planar_test_hlo_simple ("jit_f", 3, ins, G_N_ELEMENTS (ins));
  const gint64 ids[] = { 3 };
  GByteArray *protos[] = { proto };

  planar_test_add_task_environment (space, 1000);
  for (guint i = 0; i < 20; i++)
    {
      XEvent *ev = planar_test_line_add_event (stream, planar_test_named_plane_event_id (gpu, "kernel.kd"), i * 100, 10);

      planar_test_named_plane_add_ref (gpu, ev, "kernel_details", "grid:1,1,1 block:64,1,1");
      planar_test_named_plane_add_ref (gpu, ev, "hlo_module", "jit_f");
      PLANAR_TEST_APPEND (ev->stats, ev->n_stats,
                          planar_test_stat_uint (planar_test_named_plane_stat_id (gpu, "program_id"), 3));
      planar_test_named_plane_add_ref (gpu, ev, "hlo_op", i % 2 == 0 ? "fusion.1" : "dot.2");
    }
  planar_test_named_plane_done (gpu);
  planar_test_line_add_event (planar_test_plane_add_line (host->plane, 1, "main", 0),
                              planar_test_named_plane_event_id (host, "op"), 0, 10);
  planar_test_named_plane_done (host);
  planar_test_hlo_add_metadata_plane (space, ids, protos, 1);
  return planar_test_write_space (space, dir, "late-hlo.xplane.pb");
}

/* The file's tracks laid out before the HLO is read (a slow machine, a
 * large HLO): the lines the HLO brings (Framework Name Scope, Framework
 * Ops, Source code) were once never given room, then held out of sight
 * when they came. Once the HLO is read they are predicted too, and when
 * the derive pass brings them nothing moves. */
static void
test_derived_reserved_late_hlo (PlanarTestFixture *f,
                                gconstpointer      data)
{
  g_autofree char *path = write_hlo_profile (f->dir);
  g_autoptr(PlanarProfile) profile = planar_profile_new ((const char * const[]) { path, NULL });
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(GArray) before = g_array_new (FALSE, FALSE, sizeof (PlanarTimelineRow));
  PlanarTraceTestOptions options = { derive_gate_hook, NULL, -1 };
  DeriveGate gate = { .hold_hlo = TRUE };
  int new_top;

  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  options.test_hook_data = &gate;
  planar_trace_loader_set_use_cache (_planar_profile_get_loader (profile, 0), FALSE);
  _planar_trace_loader_set_test_options (_planar_profile_get_loader (profile, 0), &options);
  planar_profile_load_async (profile, NULL, gate_load_done, &gate);
  g_mutex_lock (&gate.lock);
  while (!gate.hlo_reached)
    g_cond_wait (&gate.cond, &gate.lock);
  g_mutex_unlock (&gate.lock);

  /* Without the HLO: XLA Modules and XLA Ops. */
  planar_timeline_layout_update (layout, profile);
  g_assert_null (planar_trace_get_hlo_index (planar_profile_get_trace (profile, 0)));
  g_assert_cmpuint (count_kind (layout, PLANAR_TIMELINE_ROW_RESERVED), ==, 2);

  g_mutex_lock (&gate.lock);
  gate.hlo_released = TRUE;
  g_cond_broadcast (&gate.cond);
  while (!gate.reached)
    g_cond_wait (&gate.cond, &gate.lock);
  g_mutex_unlock (&gate.lock);

  /* With it, as the timeline lays out what the load tells (the user
   * looking at the top): the three lines of the HLO too, none held. */
  planar_timeline_layout_update_still (layout, profile, 0, 600, &new_top);
  g_assert_nonnull (planar_trace_get_hlo_index (planar_profile_get_trace (profile, 0)));
  g_assert_cmpuint (count_kind (layout, PLANAR_TIMELINE_ROW_RESERVED), ==, 5);
  g_assert_cmpuint (planar_timeline_layout_get_n_held (layout), ==, 0);
  g_array_append_vals (before, planar_timeline_layout_get_row (layout, 0), planar_timeline_layout_get_n_rows (layout));

  finish_gated (&gate);
  planar_timeline_layout_update_still (layout, profile, 0, 600, &new_top);
  g_assert_cmpuint (planar_timeline_layout_get_n_held (layout), ==, 0);
  g_assert_cmpuint (count_kind (layout, PLANAR_TIMELINE_ROW_RESERVED), ==, 0);
  assert_rows_still (layout, before);
}

/* A profile of @n GPU planes, one stream of one kernel each: the rows of
 * its tracks found again by (trace, plane, track). Returns the steps
 * (_planar_trace_steps) the layout and the finding took. */
static guint64
count_many_planes (const char *dir,
                   guint       n)
{
  XSpace *space = planar_test_space_new ();
  g_autofree char *name = g_strdup_printf ("planes-%u.xplane.pb", n);
  g_autofree char *path = NULL;
  g_autoptr(PlanarProfile) profile = NULL;
  g_autoptr(PlanarTimelineLayout) layout = planar_timeline_layout_new ();
  g_autoptr(GError) error = NULL;
  const char *paths[2] = { NULL, NULL };
  guint n_tracks = 0;
  guint64 steps;

  planar_test_add_task_environment (space, 1000);
  for (guint p = 0; p < n; p++)
    {
      g_autofree char *plane_name = g_strdup_printf ("/device:GPU:%u", p);
      XPlane *gpu = planar_test_space_add_plane (space, p, plane_name);
      XLine *stream = planar_test_plane_add_line (gpu, 7, "Stream #7(Compute)", 0);

      planar_test_plane_add_event_metadata (gpu, 1, "kernel", NULL);
      planar_test_line_add_event (stream, 1, 0, 100);
    }
  path = planar_test_write_space (space, dir, name);
  paths[0] = path;
  profile = planar_profile_new (paths);
  g_assert_true (planar_profile_load (profile, NULL, &error));
  g_assert_no_error (error);

  steps = _planar_trace_steps;
  planar_timeline_layout_update (layout, profile);
  for (guint i = 0; i < planar_timeline_layout_get_n_rows (layout); i++)
    {
      const PlanarTimelineRow *row = planar_timeline_layout_get_row (layout, i);

      if (row->kind != PLANAR_TIMELINE_ROW_TRACK)
        continue;
      g_assert_cmpint (planar_timeline_layout_find_track (layout, row->trace, row->plane, row->track),
                       ==, (int) i);
      n_tracks++;
    }
  steps = _planar_trace_steps - steps;
  g_assert_cmpuint (n_tracks, ==, n);
  g_test_message ("%u planes of one track: %" G_GUINT64_FORMAT " steps, %.1f each", n, steps,
                  (double) steps / n);
  return steps;
}

/* The rows of a file's tracks are found by (trace, plane, track) in a
 * hash table: the tracks of the same index on many planes must not share
 * a bucket (g_int64_hash() keeps the track's index alone). Four times the
 * planes take at most four and a half times the steps, not sixteen. */
static void
test_many_planes (PlanarTestFixture *f,
                  gconstpointer      data)
{
  const guint n = 250;
  guint64 small = count_many_planes (f->dir, n);
  guint64 large = count_many_planes (f->dir, 4 * n);

  planar_test_check_linear (n, small, large, "laying out the planes");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  PLANAR_TEST_ADD ("/layout/order", test_order);
  PLANAR_TEST_ADD ("/layout/collapse-hide-filter", test_collapse_hide_filter);
  PLANAR_TEST_ADD ("/layout/sections-in-view", test_sections_in_view);
  PLANAR_TEST_ADD ("/layout/hosts", test_hosts);
  PLANAR_TEST_ADD ("/layout/host-groups", test_host_groups);
  PLANAR_TEST_ADD ("/layout/lazy-rekey", test_lazy_rekey);
  PLANAR_TEST_ADD ("/layout/sticky", test_sticky);
  PLANAR_TEST_ADD ("/layout/derived-below", test_derived_below);
  PLANAR_TEST_ADD ("/layout/offload-and-xla-cpu", test_offload_and_xla_cpu);

  PLANAR_TEST_ADD ("/layout/derived-reserved", test_derived_reserved);
  PLANAR_TEST_ADD ("/layout/derived-reserved-all", test_derived_reserved_all);
  PLANAR_TEST_ADD ("/layout/derived-held", test_derived_held);
  PLANAR_TEST_ADD ("/layout/derived-reserved-late-hlo", test_derived_reserved_late_hlo);
  PLANAR_TEST_ADD ("/layout/many-planes", test_many_planes);

  return g_test_run ();
}
