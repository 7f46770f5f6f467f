/* planar-hash.c: keyed hashes (SipHash) for tables whose keys a file
 * chooses. See planar-hash-private.h.
 *
 * SipHash (Aumasson and Bernstein, 2012): the message is read as 64-bit
 * little-endian words, its last word padded with zeros and ending in its
 * length modulo 256; each word is xored into a state of four 64-bit words
 * around c rounds of add-rotate-xor, and after the last one d rounds more
 * give the hash.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-hash-private.h"

#include <string.h>
#include <sys/random.h>

_Thread_local guint64 _planar_trace_steps;

typedef struct
{
  guint64 v0, v1, v2, v3;
} SipState;

static inline guint64
rotl (guint64 x,
      int     b)
{
  return (x << b) | (x >> (64 - b));
}

static inline void
sip_round (SipState *s)
{
  s->v0 += s->v1;
  s->v1 = rotl (s->v1, 13);
  s->v1 ^= s->v0;
  s->v0 = rotl (s->v0, 32);
  s->v2 += s->v3;
  s->v3 = rotl (s->v3, 16);
  s->v3 ^= s->v2;
  s->v0 += s->v3;
  s->v3 = rotl (s->v3, 21);
  s->v3 ^= s->v0;
  s->v2 += s->v1;
  s->v1 = rotl (s->v1, 17);
  s->v1 ^= s->v2;
  s->v2 = rotl (s->v2, 32);
}

static inline void
sip_init (SipState *s,
          guint64   k0,
          guint64   k1)
{
  /* "somepseudorandomlygeneratedbytes" */
  s->v0 = k0 ^ G_GUINT64_CONSTANT (0x736f6d6570736575);
  s->v1 = k1 ^ G_GUINT64_CONSTANT (0x646f72616e646f6d);
  s->v2 = k0 ^ G_GUINT64_CONSTANT (0x6c7967656e657261);
  s->v3 = k1 ^ G_GUINT64_CONSTANT (0x7465646279746573);
}

static inline void
sip_word (SipState *s,
          guint64   m,
          guint     c_rounds)
{
  s->v3 ^= m;
  for (guint r = 0; r < c_rounds; r++)
    sip_round (s);
  s->v0 ^= m;
}

static inline guint64
load_le64 (const guint8 *p)
{
  guint64 m;

  memcpy (&m, p, sizeof m);
  return GUINT64_FROM_LE (m);
}

/* Feeds the @len bytes at @data, the last of a message of @total bytes in
 * all, and returns the hash. */
static inline guint64
sip_finish (SipState     *s,
            const guint8 *data,
            gsize         len,
            gsize         total,
            guint         c_rounds,
            guint         d_rounds)
{
  guint64 last = (guint64) (total & 0xff) << 56;
  gsize tail = len & 7, words = len - tail;

  /* Offsets, not pointers past @data: an empty key may come with a NULL
   * @data (an empty text of the file), and NULL + 0 is undefined. */
  for (gsize i = 0; i < words; i += 8)
    sip_word (s, load_le64 (data + i), c_rounds);
  for (gsize i = 0; i < tail; i++)
    last |= (guint64) data[words + i] << (8 * i);
  sip_word (s, last, c_rounds);
  s->v2 ^= 0xff;
  for (guint r = 0; r < d_rounds; r++)
    sip_round (s);
  return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

guint64
_planar_siphash (const guint8 key[16],
                 guint        c_rounds,
                 guint        d_rounds,
                 const void  *data,
                 gsize        len)
{
  SipState s;

  sip_init (&s, load_le64 (key), load_le64 (key + 8));
  return sip_finish (&s, data, len, len, c_rounds, d_rounds);
}

/* The process's key, drawn once from the kernel (getrandom(); where it
 * cannot say yet, from g_random, which GLib seeds from /dev/urandom);
 * nothing written depends on it. */
static const guint64 *
hash_key (void)
{
  static guint64 key[2];
  static gsize ready = 0;

  if (g_once_init_enter (&ready))
    {
      if (getrandom (key, sizeof key, GRND_NONBLOCK) != (ssize_t) sizeof key)
        for (guint i = 0; i < 2; i++)
          key[i] = (guint64) g_random_int () << 32 | g_random_int ();
      g_once_init_leave (&ready, 1);
    }
  return key;
}

guint64
_planar_hash_bytes (const void *data,
                    gsize       len,
                    guint64     seed)
{
  const guint64 *key = hash_key ();
  SipState s;

  _planar_trace_steps++;
  sip_init (&s, key[0], key[1]);
  sip_word (&s, seed, 1);
  return sip_finish (&s, data, len, len + 8, 1, 3);
}

guint
_planar_id_hash (gconstpointer v)
{
  /* A 64-bit mixer (MurmurHash3's finalizer) of the id under the key:
   * each bit of the keyed id changes about half the bits of the hash, at
   * a few cycles an id. */
  guint64 x = *(const guint64 *) v ^ hash_key ()[0];

  _planar_trace_steps++;
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return (guint) x;
}

gboolean
_planar_id_equal (gconstpointer a,
                  gconstpointer b)
{
  _planar_trace_steps++;
  return *(const gint64 *) a == *(const gint64 *) b;
}

guint
_planar_str_hash (gconstpointer v)
{
  const guint64 *key = hash_key ();
  SipState s;
  gsize len = strlen (v);
  guint64 h;

  _planar_trace_steps++;
  sip_init (&s, key[0], key[1]);
  h = sip_finish (&s, v, len, len, 1, 3);
  return (guint) (h ^ (h >> 32));
}

gboolean
_planar_str_equal (gconstpointer a,
                   gconstpointer b)
{
  _planar_trace_steps++;
  return strcmp (a, b) == 0;
}
