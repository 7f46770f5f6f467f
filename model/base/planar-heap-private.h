/* planar-heap-private.h: the sift-down of a binary heap, for the merges of
 * runs already in order (the derive pass's events of a plane in time
 * order, the flows' runs by the start of their span).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

/* Defines `static void NAME (TYPE *heap, gsize n, gsize i)`, which moves
 * heap[i] down until neither child goes before it; BEFORE (a function or
 * macro taking two `const TYPE *`) says whether the first goes before the
 * second, and heap[0] is the first of all. Inline in each user, so that
 * BEFORE is too. */
#define PLANAR_DEFINE_HEAP_SIFT_DOWN(NAME, TYPE, BEFORE) \
  static void \
  NAME (TYPE  *heap, \
        gsize  n, \
        gsize  i) \
  { \
    for (;;) \
      { \
        gsize l = 2 * i + 1, r = l + 1, m = i; \
        TYPE tmp; \
 \
        if (l < n && BEFORE (&heap[l], &heap[m])) \
          m = l; \
        if (r < n && BEFORE (&heap[r], &heap[m])) \
          m = r; \
        if (m == i) \
          return; \
        tmp = heap[i]; \
        heap[i] = heap[m]; \
        heap[m] = tmp; \
        i = m; \
      } \
  }
