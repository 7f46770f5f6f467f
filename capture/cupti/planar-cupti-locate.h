/* planar-cupti-locate.h: finding libcupti (libc and libdl only).
 *
 * Shared by the injection library, which loads CUPTI inside the traced
 * program, and `planar-cli record`, which checks beforehand that it can be
 * found and hands NVTX the same file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stddef.h>

/* Opens libcupti with dlopen: the file named by $PLANAR_CUPTI_LIBRARY
 * when it is set (and only that), else the toolkit under $CUDA_HOME,
 * $CUDA_PATH, /usr/local/cuda and /opt/cuda, else the names the dynamic
 * loader finds (libcupti.so.13, .12, libcupti.so). Returns the handle and
 * the file's path in @path; on failure NULL and a sentence in @error. */
void *planar_cupti_open (char   *path,
                         size_t  path_len,
                         char   *error,
                         size_t  error_len);
