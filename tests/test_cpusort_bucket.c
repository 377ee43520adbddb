/*
 * test_cpusort_bucket.c - cpusort_native_bucket (one bucket of encoded
 * native integers sorted on one thread) against qsort by keys_compare (an
 * independent order), for every 4- and 8-byte key-only type and both
 * directions: sizes around the insertion sort's bound and the digits'
 * widths; random keys, a small range, keys that differ in two separate bit
 * fields only, top bits of few values (the LSD fallback), a third of the
 * keys equal, all equal, groups of 40-100 keys sharing a 22-bit prefix and
 * differing below it (a second level), keys differing in their lowest bit
 * only; the bits that may differ given as unknown or as all (a u32 bucket
 * then goes to the LSD passes). Equal keys of key-only records are equal
 * records, so the result must be want's bytes exactly, in the buffer
 * returned (a or b).
 */
#include "cpusort.h"
#include "keys.h"
#include "unit.h"
#include "unit_keys.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const keys_spec *cmp_spec;
static int cmp(const void *a, const void *b)
{
	return keys_compare(cmp_spec, a, b);
}

/* Key r of n in distribution dist for a key of R bytes, from the random x. */
static uint64_t key(int dist, size_t r, size_t n, size_t R, uint64_t x)
{
	/* dist 6: groups of 70 keys under a random 22-bit prefix, random below it */
	uint64_t g = (uint64_t)(r / 70) * 0x9e3779b97f4a7c15ull >> 42;
	if (R == 4) {
		switch (dist) {
		case 1: return x % 1000;
		case 2: return (x & 0xf) | ((x >> 52) << 20);
		case 3: return ((x % 5) << 24) | (x >> 60);
		case 4: return x % 3 ? (uint32_t)x : 7;
		case 5: return 0x89abcdefu;
		case 6: return (g << 10) | (x & 0x3ff);
		case 7: return 0x5a5a5a5au ^ (x & 1);
		case 8: return r * 2654435761u % (n | 1);
		}
		return (uint32_t)x;
	}
	switch (dist) {
	case 1: return x % 1000;                                        /* a small range */
	case 2: return (x & 0xff) | ((x >> 40) << 40);                  /* two bit fields */
	case 3: return ((x % 5) << 40) | (x >> 44);                     /* top bits of five values */
	case 4: return x % 3 ? x : 7;                                   /* a third equal */
	case 5: return 0x0123456789abcdefull;                           /* all equal */
	case 6: return (g << 42) | (x >> 22);                           /* groups under a prefix */
	case 7: return 0x5a5a5a5a5a5a5a5aull ^ (x & 1);                 /* the lowest bit */
	case 8: return r * 2654435761u % (n | 1);                       /* a permutation */
	}
	return x;
}

/* The n records at in as the bucket sorts get them, encoded, into a. */
static void encode(const keys_native *k, const uint8_t *in, uint8_t *a, size_t n)
{
	for (size_t r = 0; r < n; r++) {
		if (k->width == 8) {
			uint64_t v;
			memcpy(&v, in + r * 8, 8);
			v = keys_native_enc64(k, v);
			memcpy(a + r * 8, &v, 8);
		} else {
			uint32_t v;
			memcpy(&v, in + r * 4, 4);
			v = keys_native_enc32(k, v);
			memcpy(a + r * 4, &v, 4);
		}
	}
}

int main(void)
{
	static const char *types[] = { "u64", "i64", "f64:r", "u64be", "bytes8", "u32", "i32:r", "f32", "bytes4:r" };
	static const size_t ns[] = { 0, 1, 2, 31, 32, 33, 64, 65, 1000, 4097, 32768, 65537 };
	unsigned long long seed = 11;
	const size_t cap = 65537 * 8;
	uint8_t *in = malloc(cap), *a = malloc(cap), *b = malloc(cap), *want = malloc(cap);
	void *cnt = malloc(cpusort_native_counters(1, 65537));
	if (!in || !a || !b || !want || !cnt)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
		keys_spec s = unit_spec1(types[t], 0);
		keys_native k;
		if (keys_native_init(&s, &k))
			abort();
		size_t R = k.width;
		char name[64];
		snprintf(name, sizeof name, "cpusort-bucket/%s", types[t]);
		TEST_BEGIN(name) {
			for (int dist = 0; dist < 9; dist++)
				for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
					size_t n = ns[i];
					for (size_t r = 0; r < n; r++) {
						uint64_t x = key(dist, r, n, R, unit_rand(&seed));
						if (R == 4) {
							uint32_t y = (uint32_t)x;
							memcpy(in + r * R, &y, 4);
						} else {
							memcpy(in + r * R, &x, 8);
						}
					}
					memcpy(want, in, n * R);
					cmp_spec = &s;
					qsort(want, n, R, cmp);
					/* the bits that may differ unknown (0) or all of them */
					for (int bits = 0; bits <= (int)(8 * R); bits += (int)(8 * R)) {
						encode(&k, in, a, n);
						uint8_t *res = cpusort_native_bucket(&k, a, b, n, bits, cnt);
						CHECK(res == a || res == b, "dist %d n %zu bits %d: neither buffer", dist, n,
						      bits);
						CHECK((res != a && res != b) || !memcmp(res, want, n * R),
						      "dist %d n %zu bits %d: not the sorted records", dist, n, bits);
					}
				}
		} TEST_END();
	}
	free(in);
	free(a);
	free(b);
	free(want);
	free(cnt);
	return UNIT_EXIT();
}
