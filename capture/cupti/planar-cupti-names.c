/* planar-cupti-names.c: words for CUPTI's enum values.
 *
 * The values are those of CUDA 13's cupti_activity.h; they have not
 * changed since CUDA 11.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-cupti-names.h"

const char *
planar_cupti_memcpy_kind_name (unsigned kind)
{
  static const char *const names[] = {
    "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
  };

  return kind < sizeof names / sizeof names[0] ? names[kind] : "Unknown";
}

const char *
planar_cupti_memory_kind_name (unsigned kind)
{
  static const char *const names[] = {
    "unknown", "pageable", "pinned", "device", "array", "managed", "device_static", "managed_static",
  };

  return kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

const char *
planar_cupti_overhead_kind_name (unsigned kind)
{
  switch (kind)
    {
    case 1: return "Driver compiler";
    case 1u << 16: return "CUPTI buffer flush";
    case 2u << 16: return "CUPTI instrumentation";
    case 3u << 16: return "CUPTI resource";
    case 4u << 16: return "Module loading";
    case 5u << 16: return "Lazy function loading";
    case 6u << 16: return "Command buffer full";
    case 7u << 16: return "Activity buffer request";
    case 8u << 16: return "UVM activity init";
    default: return "CUPTI overhead";
    }
}
