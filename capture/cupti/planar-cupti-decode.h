/* planar-cupti-decode.h: CUPTI records into part records (libc only).
 *
 * Used inside the traced program by libplanar-cupti.so, and by the tests,
 * which feed it CUPTI records built with the CUDA 13 struct layouts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cupti.h>

#include "planar-cupti-part.h"

/* Decodes one activity record. Returns 1 when it became a part record
 * (an event that counts against the activity cap), 0 when the kind is
 * not one Planar keeps or carries no event. Only the fields shared by the
 * record's versions since CUDA 12 are read (Kernel9 is a prefix of
 * Kernel10, Memcpy5 of Memcpy6, ...), so a CUDA 12 libcupti works too. */
int  planar_cupti_decode_activity (PlanarCuptiBuf       *buf,
                                   const CUpti_Activity *record);
