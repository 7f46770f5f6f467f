/* planar-cupti-merge.h: the parts of a recorded run into one XSpace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PlanarCuptiMerge PlanarCuptiMerge;

typedef struct
{
  guint   n_parts;
  guint   n_devices;
  guint64 n_api_calls;
  guint64 n_kernels;
  guint64 n_copies;
  guint64 n_memsets;
  guint64 n_nvtx_ranges;
  /* Over the caps, dropped by CUPTI, or outside the traced time. */
  guint64 n_dropped;
  guint   n_errors;
  /* The first of them. */
  char    first_error[512];
} PlanarCuptiMergeStats;

PlanarCuptiMerge *planar_cupti_merge_new       (const char *hostname);
void              planar_cupti_merge_free      (PlanarCuptiMerge *self);

/* Adds one part (the bytes of a part file; @name is for messages). A part
 * that is not one, or is cut short, is an error and adds nothing. */
gboolean          planar_cupti_merge_add_part  (PlanarCuptiMerge  *self,
                                                const guint8      *data,
                                                gsize              len,
                                                const char        *name,
                                                GError           **error);

/* Adds every complete `*.planar-part` file of @dir. Returns FALSE when
 * none could be read; the reasons of those that could not are kept as
 * XSpace errors. */
gboolean          planar_cupti_merge_add_dir   (PlanarCuptiMerge  *self,
                                                const char        *dir,
                                                GError           **error);

/* The serialized XSpace: `/host:CPU`, one `/device:GPU:N` per device,
 * `Task Environment`. */
GBytes           *planar_cupti_merge_finish    (PlanarCuptiMerge       *self,
                                                PlanarCuptiMergeStats  *stats);

/* Merges the parts in @part_dir and writes the XSpace as
 * `<logdir>/plugins/profile/<new session>/<hostname>.xplane.pb`, never over
 * an existing session. Returns the file's path. */
char             *planar_cupti_merge_write_session (const char             *part_dir,
                                                    const char             *logdir,
                                                    PlanarCuptiMergeStats  *stats,
                                                    GError                **error);

G_END_DECLS
