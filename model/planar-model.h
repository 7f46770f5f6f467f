/* planar-model.h: everything the model offers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-aggregate.h"
#include "planar-catalog.h"
#include "planar-counters.h"
#include "planar-derive.h"
#include "planar-error.h"
#include "planar-export.h"
#include "planar-flows.h"
#include "planar-health.h"
#include "planar-hlo.h"
#include "planar-hlo-cost.h"
#include "planar-op-info.h"
#include "planar-import.h"
#include "planar-json-writer.h"
#include "planar-profile.h"
#include "planar-search.h"
#include "planar-search-hits.h"
#include "planar-span-index.h"
#include "planar-stat-format.h"
#include "planar-string-table.h"
#include "planar-trace.h"
#include "planar-trace-loader.h"
#include "planar-units.h"
#include "planar-xspace-writer.h"
