/* planar-cache-format-private.h: what the files of the cached index share:
 * the file's layout and the calls between them.
 *
 *  planar-cache.c          settings, and writing later (a GTask)
 *  planar-cache-key.c      the content key (hashes of the profile's bytes)
 *  planar-cache-write.c    writing a cache file
 *  planar-cache-restore.c  reading one back into a trace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "planar-cache-private.h"
#include "planar-trace-private.h"

G_BEGIN_DECLS

#define MAGIC "PLNRIDX1"
/* 2: the key holds the content hash. 3: TPU planes have Host Offload rows
 * and host planes XLA:CPU lines (an index of version 2 lacks them). */
/* 4: GPU planes have Framework Ops, Framework Name Scope and Source code
 * lines of XLA ops resolved through the HLO (an index of version 3 lacks
 * them). */
/* 5: flows are 32 bytes (the category in the id's top byte) without their
 * two times, read from their events instead (version 4 had 40-byte flows
 * followed by 16 bytes of times each); a plane's derived sources are
 * 16 bytes, their group ids in a table of the distinct ones before them
 * (they were 24 bytes each). */
/* 6: the HLO of a program is found by its metadata's program_id stat
 * (JAX 0.11 numbers the metadata 1, 2, 3), and the source of an XLA op
 * is its stack's innermost frame first: the derived Framework Ops, Name
 * Scope and Source code lines of such profiles differ from version 5's. */
/* 7: a GPU kernel whose hlo_op names no instruction (a kernel of a
 * command buffer names the command buffer) resolves by its own name, as
 * XLA names a fusion's kernel: the derived Framework Ops, Name Scope and
 * Source code lines of such profiles differ from version 6's; a derived
 * event ends where the next one of its level or above starts, when it
 * would end after it. */
/* 8: a file without group ids whose host has root events (`_r`, JAX's
 * StepTraceAnnotation) has its step groups worked out: its GPU planes get
 * Steps and Launch Stats lines that an index of version 7 lacks. */
/* 9: a string stat holding a decimal number counts as that number for the
 * derive passes (XProf's trace viewer JSON writes ids as text): the XLA
 * Modules and XLA Ops lines of such an imported trace split where their
 * scope_range_id changes, and its group ids and correlation ids are read;
 * an event that outlives open events goes under the innermost one that
 * holds it whole: the depths of such events differ from version 8's. */
#define VERSION 9
#define SUFFIX ".planar-index"
/* Beside an index that would not fit under the folder's cap, instead of
 * it, a file named as the index with this after it
 * (<key>.planar-index-too-large): the profile's size, modification time
 * and the cap, so that its next loads do not compress gigabytes again only
 * to drop them. */
#define TOO_LARGE_TAIL "-too-large"
/* Room for the indexes of two profiles of 10^8 events (2.7 GB each) and
 * many smaller ones; 2 GiB held none of those. */
#define DEFAULT_LIMIT (G_GUINT64_CONSTANT (8) << 30)
/* zstd's first fast level: its frames decompress in two thirds of level
 * 1's time for 7-13 % more bytes (a 10^8-event index: docs/loader.md).
 * The reader takes frames of any level. */
#define ZSTD_LEVEL (-1)
/* As the decoder: past this, pages read are dropped from the process. */
#define PLANAR_CACHE_DROP_PAGES_MIN_SIZE (G_GUINT64_CONSTANT (256) << 20)

enum
{
  SECTION_META = 1,
  SECTION_TRACK,
  SECTION_SOURCES,
  SECTION_FLOWS,
};

typedef struct
{
  char    magic[8];
  guint32 version;
  guint32 header_size;
  guint32 event_size;
  guint32 n_sections;
  guint64 source_size;
  /* Kept for information: the content decides, not the time. */
  gint64  source_mtime_ns;
  gint64  time_offset_ps;
  /* XXH3-128 of the profile's bytes (content_hash ()), canonical form. */
  guint8  content_hash[16];
  guint8  digest[32];
} Header;

typedef struct
{
  guint32 kind;
  guint32 plane;
  guint32 track;
  guint32 reserved;
  guint64 offset;
  guint64 size;
  guint64 raw_size;
} Section;

typedef struct
{
  guint64 index;
  gint64  children_ps;
} ChildTime;


/* One XLine's bytes in the file. */
typedef struct
{
  guint64 offset;
  guint64 size;
  guint   plane;
  guint   line;
} LineRange;

/* planar-cache.c */

/* Whether planar_cache_cancel() is stopping the writes. */
gboolean _planar_cache_writes_cancelled (void);

/* planar-cache-key.c */

/* The file's lines, in file order (a GArray of LineRange). Before the
 * tracks are planned (@planned FALSE) the planes hold only those; after,
 * the derived ones follow them. */
GArray  *_planar_cache_line_ranges    (PlanarTrace  *self,
                                       gboolean      planned);
/* Combines the lines' hashes (@ranges, in file order) with the bytes
 * between them into @out. */
void     _planar_cache_content_hash   (PlanarTrace  *self,
                                       GArray       *ranges,
                                       guint8        out[16]);

/* planar-cache-write.c */

/* Writes @self's cache file for @content (its content key), on the
 * calling thread: through a temporary file and a rename, then evicting
 * past the cap. */
gboolean _planar_cache_store_file     (PlanarTrace   *self,
                                       const guint8   content[16],
                                       GError       **error);

G_END_DECLS
