/* planar-test-samples.h: the real profiles of ../shared/samples, for the
 * tests that read them, and what those tests do in a clone that has none.
 *
 * The samples are not part of the repository: meson points
 * PLANAR_SAMPLES_DIR at ../shared/samples beside the source tree, which a
 * plain clone does not have. A test case that needs them asks here first;
 * when the folder is not there, the case is marked skipped (TAP "ok ...
 * # SKIP") and returns, and the other cases of the program still run. When
 * the folder is there, a sample it should hold and does not is an error, as
 * an empty folder is: a run that checked no sample would prove nothing.
 *
 * Only GLib: the GTK tests use it too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The reason every skipped case gives. */
#define PLANAR_TEST_NO_SAMPLES "../shared/samples not found"

/* The samples folder, or NULL when PLANAR_SAMPLES_DIR is unset or names no
 * folder. */
const char *planar_test_samples_dir          (void);

/* TRUE when the samples are there. Otherwise skips the current test case
 * (g_test_skip()) and returns FALSE: `if (!planar_test_need_samples ())
 * return;`. */
gboolean    planar_test_need_samples         (void);

/* The sample @name. NULL when the samples are not there, after skipping
 * the current test case; an error when the folder is there without it.
 * Returns: (transfer full) (nullable). */
char       *planar_test_sample_path          (const char *name);

/* Every file of the samples folder whose name ends with @suffix, sorted.
 * NULL when the samples are not there, after skipping the current test
 * case; an error when the folder is there and holds none.
 * Returns: (transfer full) (nullable): paths. */
GPtrArray  *planar_test_list_samples         (const char *suffix);

/* A small profile (5,000 events) written by $PLANAR_GEN with @seed, once
 * per process, and removed when the process exits.
 * Returns: (transfer none): its path. */
const char *planar_test_generated_profile   (guint seed);

/* A profile to feed code that does not care which one it reads: the
 * sample @name when the samples are there, otherwise
 * planar_test_generated_profile (1). Never NULL and never skips.
 * Returns: (transfer full). */
char       *planar_test_sample_or_generated  (const char *name);

/* Registers @path as a case that only skips, for a program that adds the
 * cases needing the samples only when they are there (fixtures that load
 * a sample in their set-up). */
void        planar_test_add_skipped          (const char *path);

/* g_test_add_func() when the samples are there, otherwise
 * planar_test_add_skipped(). */
void        planar_test_add_func_with_samples (const char *path,
                                               GTestFunc   func);

G_END_DECLS
