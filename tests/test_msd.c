/*
 * test_msd.c - cpusort_radix_msd against qsort by (key bytes, input index)
 * (an independent stable order): 16-byte items whose first 12 bytes are the
 * key and last 4 the input index (the text prefix records), and 8-byte
 * key-only items; random bytes, a small alphabet (deep buckets), a shared
 * leading run (skipped bytes), one dominant first byte (a bucket that gets a
 * parallel level of its own), all equal, few distinct keys; sizes around the
 * insertion-sort and parallel thresholds; 1 to 4 threads. The result must be
 * every item once, in exactly the stable order; handed over in parts
 * (cpusort_radix_msd_parts), each part must be that order's slice when it
 * comes, the parts consecutive, never splitting equal keys, and a nonzero
 * return from the callback must stop the sort and be returned.
 */
#include "cpusort.h"
#include "unit.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t cmp_stride, cmp_nbytes;

/* key bytes, then the index (big-endian in the last 4 bytes) as the tie-break */
static int cmp_stable(const void *x, const void *y)
{
	int d = memcmp(x, y, cmp_nbytes);
	if (d || cmp_stride < cmp_nbytes + 4)
		return d;
	return memcmp((const uint8_t *)x + cmp_stride - 4, (const uint8_t *)y + cmp_stride - 4, 4);
}

static void fill(uint8_t *in, size_t n, size_t stride, size_t nbytes, int dist, unsigned long long *seed)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = in + i * stride;
		for (size_t b = 0; b < nbytes; b++) {
			uint64_t x = unit_rand(seed);
			uint8_t v = (uint8_t)x;
			switch (dist) {
			case 1: v = (uint8_t)('a' + x % 3); break;                     /* small alphabet */
			case 2: v = b < 5 ? (uint8_t)'2' : (uint8_t)x; break;         /* shared leading bytes */
			case 3: v = b == 0 && x % 10 ? 'k' : (uint8_t)(x >> 8); break; /* one dominant first byte */
			case 4: v = 7; break;                                          /* all equal */
			case 5: v = (uint8_t)(i * 2654435761u % 5); break;             /* few distinct */
			}
			e[b] = v;
		}
		if (stride >= nbytes + 4) {
			uint32_t idx = (uint32_t)i;
			e[stride - 4] = (uint8_t)(idx >> 24), e[stride - 3] = (uint8_t)(idx >> 16);
			e[stride - 2] = (uint8_t)(idx >> 8), e[stride - 1] = (uint8_t)idx;
		}
	}
}

/* cpusort_radix_msd_parts' callback: each part must be [the last one's end,
 * ...), already equal to that slice of the expected order, and not split
 * items with equal key bytes; stop > 0 ends the sort at that part. */
typedef struct parts_seen {
	const uint8_t *a, *want;
	size_t stride, nbytes, n, next;
	int parts, bad, stop;
} parts_seen;

static int on_part(void *arg, size_t lo, size_t hi)
{
	parts_seen *p = arg;
	p->parts++;
	if (lo != p->next || hi <= lo || hi > p->n)
		p->bad = 1;
	else if (memcmp(p->a + lo * p->stride, p->want + lo * p->stride, (hi - lo) * p->stride))
		p->bad = 2;
	else if (lo > 0 && !memcmp(p->a + (lo - 1) * p->stride, p->a + lo * p->stride, p->nbytes))
		p->bad = 3;
	p->next = hi;
	return p->stop && p->parts == p->stop ? 7 : 0;
}

int main(void)
{
	static const size_t ns[] = { 0, 1, 2, 47, 48, 49, 257, 5000, 65535, 65536, 300007 };
	/* text prefixes (16/12, 8/4); records' entries (12/8, 16/10, 20/16) and
	 * key-only records (8/8, 10/10, 12/12, 16/16, 8/3 of a record's first
	 * bytes, 3/3), whose insertion sort compares words; 24/20: a key longer
	 * than two words, compared bytewise */
	static const struct { size_t stride, nbytes; } layouts[] = {
		{ 16, 12 }, { 8, 8 }, { 8, 4 }, { 12, 8 }, { 16, 10 }, { 20, 16 }, { 10, 10 },
		{ 12, 12 }, { 16, 16 }, { 8, 3 }, { 3, 3 }, { 24, 20 },
	};
	unsigned long long seed = 11;
	const size_t cap = 300007 * 24;
	setvbuf(stdout, NULL, _IOLBF, 0);
	uint8_t *in = malloc(cap), *want = malloc(cap), *a = malloc(cap), *b = malloc(cap);
	if (!in || !want || !a || !b)
		return 1;
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
		size_t stride = layouts[l].stride, nbytes = layouts[l].nbytes;
		char name[64];
		snprintf(name, sizeof name, "cpusort/radix-msd/stride%zu-key%zu", stride, nbytes);
		TEST_BEGIN(name) {
			for (int dist = 0; dist < 6; dist++) {
				for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
					size_t n = ns[i];
					fill(in, n, stride, nbytes, dist, &seed);
					memcpy(want, in, n * stride);
					cmp_stride = stride, cmp_nbytes = nbytes;
					/* key-only items: equal keys are equal items, any order is the stable one */
					qsort(want, n, stride, cmp_stable);
					for (int threads = 1; threads <= 4; threads++) {
						memcpy(a, in, n * stride);
						memset(b, 0xee, n * stride);
						const uint8_t *got = cpusort_radix_msd(a, b, n, stride, (uint32_t)nbytes, threads);
						CHECK(got == a || got == b, "dist %d n %zu threads %d: result in neither buffer",
						      dist, n, threads);
						CHECK(!memcmp(got, want, n * stride), "dist %d n %zu threads %d", dist, n,
						      threads);
						/* the same sort handed over in parts */
						memcpy(a, in, n * stride);
						parts_seen p = { a, want, stride, nbytes, n, 0, 0, 0, 0 };
						int rc = cpusort_radix_msd_parts(a, b, n, stride, (uint32_t)nbytes, threads,
										 on_part, &p);
						CHECK(!rc && !p.bad && p.next == n && (n == 0) == (p.parts == 0),
						      "parts: dist %d n %zu threads %d: rc %d, fault %d, %d parts, ended at %zu",
						      dist, n, threads, rc, p.bad, p.parts, p.next);
						/* all keys equal (dist 4, and dist 2's shared bytes when the key is no longer) make one part */
						CHECK(n < 300000 || threads == 1 || dist == 4 || (dist == 2 && nbytes <= 5) || p.parts > 4,
						      "parts: dist %d n %zu threads %d: only %d parts", dist, n, threads, p.parts);
						if (p.parts > 1) { /* a nonzero return stops it and is returned */
							memcpy(a, in, n * stride);
							parts_seen q = { a, want, stride, nbytes, n, 0, 0, 0, 1 };
							rc = cpusort_radix_msd_parts(a, b, n, stride, (uint32_t)nbytes, threads,
										     on_part, &q);
							CHECK(rc == 7 && q.parts == 1, "parts: stop: rc %d after %d parts", rc,
							      q.parts);
						}
					}
				}
			}
		} TEST_END();
	}
	free(in);
	free(want);
	free(a);
	free(b);
	return UNIT_EXIT();
}
