/* planar-health.h: what a user checks when a trace looks incomplete.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-catalog.h"
#include "planar-profile.h"

G_BEGIN_DECLS

typedef enum
{
  PLANAR_HEALTH_INFO,
  PLANAR_HEALTH_WARNING,
  PLANAR_HEALTH_ERROR,
} PlanarHealthSeverity;

/* One finding. */
typedef struct
{
  PlanarHealthSeverity  severity;
  /* What kind of finding, for scripts and tests: "xspace-error",
   * "xspace-warning", "dropped-events", "no-task-environment",
   * "empty-plane", "partial-overlaps", "aggregated-events",
   * "dangling-flows", "dropped-derived-lines", "damaged-stats",
   * "unsupported-file", "unreadable-host" (a host the load left out),
   * "undecodable-host" (a host that opened but could not be decoded),
   * "hosts-not-overlapping" (each host shown from its own start),
   * "file-cut-short" (a file that ends early, read up to the cut),
   * "damaged-hlo" (an HloProto of /host:metadata that cannot be read and
   * is left out). Static. */
  const char           *kind;
  /* Where: the host (NULL for the session), the plane and the line or
   * track (NULL when the finding is about something wider). */
  char                 *host;
  char                 *plane;
  char                 *line;
  /* How many (events, overlaps, flows, ...); 0 when not a count. */
  guint64               count;
  /* One sentence for people. */
  char                 *message;
} PlanarHealthIssue;

void        planar_health_issue_free  (PlanarHealthIssue          *issue);

/* Checks a loaded @profile and, when given, the session it was read from
 * (for the files Planar cannot read). Returns: (transfer full): a
 * GPtrArray of PlanarHealthIssue, errors first, then warnings, then
 * notes, each group in host, plane and line order. */
GPtrArray  *planar_health_check       (PlanarProfile              *profile,
                                       const PlanarCatalogSession *session);

const char *planar_health_severity_to_string (PlanarHealthSeverity severity);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanarHealthIssue, planar_health_issue_free)

G_END_DECLS
