/*
 * verify.h - --verify's accumulators: the multiset of the records (an
 * order-independent sum of per-record XXH3-128 hashes, for the input and
 * for the output) and the order of the output, record stream by stream
 * across the buffers it comes in; each on one thread, or split over a
 * pool's threads (verify_add_par), the sum being order-independent and
 * the order checked in parts whose seams are compared apart.
 */
#ifndef GPUSORT_VERIFY_H
#define GPUSORT_VERIFY_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"
#include "order_check.h"
#include "tpool.h"

/* --verify: an order-independent 128-bit sum of per-record XXH3-128 hashes. */
typedef struct verify_sum {
	uint64_t lo, hi, n;
} verify_sum;
/* The n records of record_size bytes at recs added to v. */
void verify_add(verify_sum *v, const uint8_t *recs, size_t n, size_t record_size);
/* a += b: sums of parts hashed on different threads combine in any order. */
void verify_merge(verify_sum *a, const verify_sum *b);

/* --verify: order of a record stream across buffers. */
typedef struct verify_order {
	uint8_t *last;      /* copy of the last record seen (record_size bytes; the caller's) */
	int have;
	uint64_t seen;      /* records seen */
	uint64_t bad;       /* 1-based number of the first record out of order, 0 if none */
	order_check cmp;    /* verify_order_init's comparisons */
} verify_order;

/* v's comparisons for records of s (strict: -u, ties are disorder too);
 * v->last is left as it is. */
void verify_order_init(verify_order *v, const keys_spec *s, int strict);

/* The stream's next n records at recs checked against the one before each. */
void verify_order_add(verify_order *v, const uint8_t *recs, size_t n);

/*
 * verify_add(sum, ...) and, when ord is not NULL, verify_order_add(ord, ...)
 * of the n records of record_size bytes at recs, split over the threads
 * of tp (all of its parts, the caller's among them) when there are at
 * least VERIFY_PAR_BYTES; on this thread otherwise, or when tp is NULL.
 * Not reentrant on one tp (tpool_run).
 */
#define VERIFY_PAR_BYTES ((size_t)1 << 20)
void verify_add_par(tpool *tp, verify_sum *sum, verify_order *ord, const uint8_t *recs, size_t n,
		    size_t record_size);

#endif
