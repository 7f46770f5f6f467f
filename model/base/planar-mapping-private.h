/* planar-mapping-private.h: fixed points where the tests change a file.
 *
 * FOR TESTS ONLY. Nothing in Planar's behaviour depends on this: the model
 * passes a few fixed points where a file is mapped and about to be read
 * (_planar_trace_test_point(), planar-trace-private.h), and nothing
 * happens there unless a test asked for it:
 *   - in-process tests give one load a hook (PlanarTraceTestOptions, set
 *     on a loader with _planar_trace_loader_set_test_options(),
 *     planar-trace-loader-private.h), told of each point of that load;
 *   - tests of planar-cli, a process of their own, set the environment
 *     variable PLANAR_TEST_CHANGE_AT=POINT:SIZE, read once per process by
 *     _planar_mapping_test_point(), which truncates the file being read to
 *     SIZE bytes when POINT is reached the first time.
 * Points:
 *   "trace-mapped"  a profile mapped, before its structure scan;
 *   "trace-opened"  planar_trace_decode() about to read the lines;
 *   "plane-published" the tracks of one more plane published, the
 *                   planes after it in the timeline's order not read yet
 *                   (a file with a profile start; planar-trace-decode.c);
 *   "trace-reading-hlo" the file's tracks in place, the HLO of
 *                   `/host:metadata` about to be read;
 *   "derive-held"   the file's tracks in place, a held load about to wait
 *                   for its release (planar_trace_loader_hold_derive());
 *   "trace-deriving" the file's tracks in place, the derive pass about to
 *                   run (a test may hold the load there);
 *   "trace-decoded" planar_trace_decode() done, before anything reads stats;
 *   "cache-mapped"  a cached index mapped, before it is read.
 * This replaces a sleep-and-truncate race with a fixed point.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Told that a load reached @point, about the file @path. */
typedef void (*PlanarMappingTestHook) (const char *point,
                                       const char *path,
                                       gpointer    data);

/* What PLANAR_TEST_CHANGE_AT says for @point (nothing when unset). */
void _planar_mapping_test_point    (const char *point,
                                    const char *path);

G_END_DECLS
