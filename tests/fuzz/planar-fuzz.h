/* planar-fuzz.h: what the libFuzzer harnesses share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* libFuzzer's entry point, defined by each harness. */
int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

/* Writes @data to a scratch file of the process (made once, named with
 * @suffix so that loaders that look at the name see what they expect) and
 * returns its path. Returns: (transfer none). */
const char *planar_fuzz_write_input (const uint8_t *data,
                                     size_t         size,
                                     const char     *suffix);

/* Runs on a loaded @trace the queries a viewer runs: level-of-detail spans
 * over every track, aggregates, the first events' stats with their display
 * formatting, self times and flows. */
typedef struct _PlanarTrace PlanarTrace;
void        planar_fuzz_exercise    (PlanarTrace   *trace);

G_END_DECLS
