/* planar-hash-private.h: keyed hashes for tables whose keys a file chooses.
 *
 * GLib's g_str_hash() is djb2 (h = h * 33 + c): strings that hash alike
 * are trivial to make (the blocks "Ez" and "FY" hash alike, so that the
 * 2^k strings of k such blocks, in any order, all collide), and a file of
 * n of them as names makes a table of names cost n^2 probes. The hashes
 * here are SipHash-1-3 under a 128-bit key drawn once a process (from
 * getrandom()), so that no file can choose keys that collide (nor learn
 * the key from the order of anything Planar writes: nothing written
 * follows a table's order).
 *
 * Every layer may include this header.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* For tests: the steps taken, on this thread, in the lookups and dedupes
 * whose cost a file's ids or names decide (a key hashed or compared in a
 * table of ids or names, a comparison of two stats in their dedupe), so
 * that a test can tell linear work from quadratic by counting instead of
 * timing. A plain thread-local counter, bumped where the step is taken (no
 * atomic, no lock). The trace adds what its load took to its own count
 * (_planar_trace_get_steps(), planar-trace-private.h). */
extern _Thread_local guint64 _planar_trace_steps;

/* Hash and equality of 64-bit ids (keys: pointers to gint64) for the
 * tables of ids a file hands out. g_int64_hash() keeps the low 32 bits of
 * an id, so that a file of n ids k << 32 makes a table of them cost n^2
 * probes; this hash mixes every bit of the id with the process's key, so
 * that no file can choose ids that collide. Each call is a step. */
guint    _planar_id_hash   (gconstpointer v);
gboolean _planar_id_equal  (gconstpointer a,
                            gconstpointer b);

/* Hash and equality of NUL-terminated strings (keys: const char *), for
 * GHashTables of names a file or a server chooses; in place of
 * g_str_hash() and g_str_equal(). Each call is a step. */
guint    _planar_str_hash  (gconstpointer v);
gboolean _planar_str_equal (gconstpointer a,
                            gconstpointer b);

/* The keyed hash of the @len bytes at @data (which may hold NUL bytes),
 * after the 8 bytes of @seed: to hash a key of several parts, hash each
 * with the hash of those before as its seed. One step. */
guint64  _planar_hash_bytes (const void *data,
                             gsize       len,
                             guint64     seed);

/* For tests: SipHash-@c_rounds-@d_rounds of the @len bytes at @data under
 * the 16 bytes at @key (the algorithm's own test vectors check it). */
guint64  _planar_siphash    (const guint8 key[16],
                             guint        c_rounds,
                             guint        d_rounds,
                             const void  *data,
                             gsize        len);

G_END_DECLS
