/* planar-mapping-private.h: fixed points where the tests change a file.
 *
 * FOR TESTS ONLY. Nothing in Planar's behaviour depends on this: the model
 * calls _planar_mapping_test_point() at a few places where a file is mapped
 * and about to be read, and the call does nothing unless a test asked for it,
 * through _planar_mapping_set_test_hook() (in-process tests) or the
 * environment variable PLANAR_TEST_CHANGE_AT=POINT:SIZE (tests of
 * planar-cli, a process of its own), which truncates the file being read to
 * SIZE bytes when POINT is reached the first time. Points:
 *   "trace-mapped"  a profile mapped, before its structure scan;
 *   "trace-opened"  planar_trace_decode() about to read the lines;
 *   "trace-decoded" planar_trace_decode() done, before anything reads stats;
 *   "cache-mapped"  a cached index mapped, before it is read.
 * This replaces a sleep-and-truncate race with a fixed point.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*PlanarMappingTestHook) (const char *point,
                                       const char *path,
                                       gpointer    data);

void _planar_mapping_set_test_hook (PlanarMappingTestHook hook,
                                    gpointer              data);
void _planar_mapping_test_point    (const char *point,
                                    const char *path);

G_END_DECLS
