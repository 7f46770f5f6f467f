/* planar-cupti-names.h: words for CUPTI's enum values (libc only, no
 * CUDA headers: the merge uses them in builds without CUDA).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

/* CUpti_ActivityMemcpyKind: "HtoD", ... */
const char *planar_cupti_memcpy_kind_name   (unsigned kind);
/* CUpti_ActivityMemoryKind in lower case, as XProf's details show it. */
const char *planar_cupti_memory_kind_name   (unsigned kind);
/* CUpti_ActivityOverheadKind. */
const char *planar_cupti_overhead_kind_name (unsigned kind);
