/*
 * test_cpusort.c - cpusort_sort against qsort by keys_compare (an independent
 * order) for key-only records: the 4- and 8-byte keys that go through native
 * integers (every type, both directions, specials among random values) and
 * byte-wise ones, on 1 to 7 threads, sizes around the thread split and the
 * insertion sort's bound (NATIVE_SMALL), random,
 * few distinct and all-equal keys, keys differing only in low bits
 * (the MSD pass of large chunks on a skewed digit, or skipped). Equal keys of key-only records are equal
 * records, so the bytes must match exactly.
 */
#include "cpusort.h"
#include "keys.h"
#include "unit.h"
#include "unit_keys.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const keys_spec *cmp_spec;
static int cmp(const void *a, const void *b)
{
	return keys_compare(cmp_spec, a, b);
}

/* keys_compare, then the 4-byte record number after a 24-byte key: the
 * stable order of the long-key test's records */
static int cmp_stable(const void *a, const void *b)
{
	int c = keys_compare(cmp_spec, a, b);
	if (c)
		return c;
	uint32_t x, y;
	memcpy(&x, (const uint8_t *)a + 24, 4);
	memcpy(&y, (const uint8_t *)b + 24, 4);
	return x < y ? -1 : x > y;
}

/* cpusort_sort of in's n records on 1, 1 + step, ... 7 threads; returns the
 * first thread count whose output is not want's bytes, or 0. */
static int wrong_threads(const keys_spec *s, const uint8_t *in, uint8_t *a, uint8_t *b, const uint8_t *want,
			 size_t n, int step)
{
	size_t R = s->record_size;
	for (int threads = 1; threads <= 7; threads += step) {
		memcpy(a, in, n * R);
		if (memcmp(cpusort_sort(s, a, b, n, NULL, threads), want, n * R))
			return threads;
	}
	return 0;
}

/* Stable order of record numbers by their records' keys (cmp_base: the records). */
static const uint8_t *cmp_base;
static int cmp_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	size_t R = cmp_spec->record_size;
	int c = keys_compare(cmp_spec, cmp_base + (size_t)x * R, cmp_base + (size_t)y * R);
	return c ? c : x < y ? -1 : x > y;
}

/*
 * Records whose keys cover their first bytes, a payload after them
 * (keys_prefix_cover): sorted whole by their encoded key bytes, so the
 * payload must follow its key and equal keys must keep input order; every
 * record's payload is distinct, so any swap of equal keys shows. Against
 * the records put in a stable qsort's order of their numbers.
 */
static void check_prefix_layouts(uint8_t *in, uint8_t *a, uint8_t *b, uint8_t *want, unsigned long long *seed)
{
	static const struct { const char *k[3]; uint32_t R; } layouts[] = {
		{ { "u64", "i32:r" }, 16 }, { { "u32" }, 8 }, { { "i16@2", "u16@0:r" }, 7 },
		{ { "f64:r" }, 12 },	    { { "bytes3:r", "u8" }, 5 }, { { "u8" }, 2 }, { { "bytes15" }, 16 },
	};
	static const size_t ns[] = { 0, 1, 2, 33, 4097, 70001, 300007 };
	uint32_t *idx = malloc(300007 * sizeof *idx);
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
		keys_spec s;
		char msg[256], name[96];
		memset(&s, 0, sizeof s);
		for (uint32_t i = 0, off = 0; i < 3 && layouts[l].k[i]; off = s.f[i].offset + s.f[i].width, i++, s.n++)
			if (keys_parse(layouts[l].k[i], off, &s.f[i], msg, sizeof msg))
				abort();
		if (keys_finish(&s, layouts[l].R, 0, msg, sizeof msg) || !cpusort_whole_records(&s) ||
		    cpusort_scratch_per_record(&s) != 0)
			abort();
		size_t R = s.record_size;
		snprintf(name, sizeof name, "cpusort/whole-records-with-payload/%s%s%s-rs%zu", layouts[l].k[0],
			 layouts[l].k[1] ? "," : "", layouts[l].k[1] ? layouts[l].k[1] : "", R);
		TEST_BEGIN(name) {
			for (int dist = 0; dist < 3; dist++) {
				for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
					size_t n = ns[i];
					for (size_t r = 0; r < n; r++) {
						uint8_t *p = in + r * R;
						for (size_t k = 0; k < s.key_width; k++) { /* dist 1: few keys; 2: one */
							uint64_t x = unit_rand(seed);
							p[k] = (uint8_t)(dist == 0 ? x : dist == 1 ? x % 2 : 5);
						}
						for (size_t k = s.key_width; k < R; k++) /* the record number, low bytes first */
							p[k] = (uint8_t)(r >> (8 * ((k - s.key_width) % 8)));
					}
					for (size_t r = 0; r < n; r++)
						idx[r] = (uint32_t)r;
					cmp_spec = &s;
					cmp_base = in;
					qsort(idx, n, sizeof *idx, cmp_index);
					for (size_t r = 0; r < n; r++)
						memcpy(want + r * R, in + (size_t)idx[r] * R, R);
					int bad = wrong_threads(&s, in, a, b, want, n, 3);
					CHECK(!bad, "dist %d n %zu threads %d", dist, n, bad);
				}
			}
		} TEST_END();
	}
	free(idx);
}

int main(void)
{
	static const char *types[] = { "u32", "i32:r", "f32", "f32be:r", "bytes4", "u64", "i64", "f64", "f64:r",
				       "u64be", "bytes8:r", "u16", "i8:r", "bytes3" };
	static const uint64_t special[] = { 0, 1, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u,
					    0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff8000000000000ull,
					    ~0ull };
	/* 300007: past the MSD pass's threshold (cpusort.c MSD_MIN) */
	static const size_t ns[] = { 0, 1, 2, 3, 7, 31, 32, 33, 4097, 100003, 300007 };
	unsigned long long seed = 5;
	size_t cap = 300007 * 16;
	setvbuf(stdout, NULL, _IOLBF, 0); /* a FAIL line before a crash is not lost */
	uint8_t *in = malloc(cap), *a = util_alloc_aligned(cap, 64), *b = util_alloc_aligned(cap, 64),
		*want = malloc(cap);
	/* wide 1: every native sort with the 64-bit counters that more than
	 * UINT32_MAX records take (the test build's bound lowered to 0);
	 * wide 2: the MSD pass's buckets aimed at 16 records, so that 300007
	 * records take its most digit bits (2^15 buckets, most of them empty)
	 * as chunks of 2^30 records do */
	for (int wide = 0; wide < 3; wide++)
	for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
		keys_spec s = unit_spec1(types[t], 0);
		size_t R = s.record_size;
		char name[64];
		snprintf(name, sizeof name, "cpusort/key-only%s/%s",
			 wide == 1 ? "-wide-counters" : wide == 2 ? "-msd-most-buckets" : "", types[t]);
		cpusort_test_wide_min = wide == 1 ? 0 : UINT32_MAX;
		cpusort_test_msd_bucket = wide == 2 ? 16 : (size_t)1 << 15;
		TEST_BEGIN(name) {
			for (int dist = 0; dist < 5; dist++) {
				for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
					size_t n = ns[i];
					for (size_t r = 0; r < n; r++) {
						uint64_t x = unit_rand(&seed);
						if (dist == 0 && r % 97 < 10)
							x = special[r % 97];
						else if (dist == 1)
							x = special[x % 4];
						else if (dist == 2)
							x = special[3];
						else if (dist == 3) /* high bits shared: a skewed MSD digit */
							x = 0x5a5a5a5a5a500000ull | (x & 0xfffff);
						else if (dist == 4) /* one digit's bits differ: no MSD pass */
							x = 0x1234567812345000ull | (x & 0xfff);
						memcpy(in + r * R, &x, R);
					}
					memcpy(want, in, n * R);
					cmp_spec = &s;
					qsort(want, n, R, cmp);
					int bad = wrong_threads(&s, in, a, b, want, n, 2);
					CHECK(!bad, "dist %d n %zu threads %d", dist, n, bad);
				}
			}
		} TEST_END();
		cpusort_test_wide_min = UINT32_MAX;
		cpusort_test_msd_bucket = (size_t)1 << 15;
	}
	/* keys that cover the record (keys_inplace, several keys): sorted as their
	 * encoded bytes, so equal keys are equal records here too */
	static const char *const layouts[][3] = { { "u32", "u32" }, { "u32@4", "i32@0:r" },
						  { "i16", "f32:r", "u16be" }, { "u64", "bytes8:r" },
						  { "u8@2", "i16@0" }, { "u16", "i16be:r" }, { "u8@3", "bytes2@0:r", "i8@2" } };
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
		keys_spec s;
		char msg[256], name[96];
		memset(&s, 0, sizeof s);
		for (uint32_t i = 0, off = 0; i < 3 && layouts[l][i]; off = s.f[i].offset + s.f[i].width, i++, s.n++)
			if (keys_parse(layouts[l][i], off, &s.f[i], msg, sizeof msg))
				abort();
		if (keys_finish(&s, 0, 0, msg, sizeof msg) || !cpusort_key_only(&s))
			abort();
		size_t R = s.record_size;
		snprintf(name, sizeof name, "cpusort/several-keys-cover-record/%s,%s%s%s", layouts[l][0], layouts[l][1],
			 layouts[l][2] ? "," : "", layouts[l][2] ? layouts[l][2] : "");
		TEST_BEGIN(name) {
			for (int dist = 0; dist < 3; dist++) {
				for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
					size_t n = ns[i];
					for (size_t r = 0; r < n; r++)
						for (size_t k = 0; k < R; k++) { /* few distinct values per byte with dist 1 */
							uint64_t x = unit_rand(&seed);
							in[r * R + k] = (uint8_t)(dist == 0 ? x : dist == 1 ? x % 3 : 7);
						}
					memcpy(want, in, n * R);
					cmp_spec = &s;
					qsort(want, n, R, cmp);
					int bad = wrong_threads(&s, in, a, b, want, n, 3);
					CHECK(!bad, "dist %d n %zu threads %d", dist, n, bad);
				}
			}
		} TEST_END();
	}
	check_prefix_layouts(in, a, b, want, &seed);
	/* a key longer than the entries' 16-byte prefix (bytes24) with a
	 * 4-byte payload: ranges of equal prefixes sorted by the whole key,
	 * some of them spanning several threads' slices, equal whole keys kept
	 * in input order (the payload numbers the records) */
	TEST_BEGIN("cpusort/long-key-ties-across-threads") {
		keys_spec s;
		char msg[256];
		memset(&s, 0, sizeof s);
		s.n = 1;
		if (keys_parse("bytes24", 0, &s.f[0], msg, sizeof msg) || keys_finish(&s, 28, 0, msg, sizeof msg))
			abort();
		const size_t R = 28, n = 150001;
		uint8_t *in28 = malloc(n * R), *ra = malloc(n * R), *rb = malloc(n * R), *rw = malloc(n * R);
		uint8_t *scratch = malloc(cpusort_scratch_bytes(&s, n));
		if (!in28 || !ra || !rb || !rw || !scratch)
			abort();
		for (int dist = 0; dist < 3; dist++) {
			for (size_t r = 0; r < n; r++) {
				uint8_t *p = in28 + r * R;
				/* dist 0: 5 prefixes in long runs; 1: one prefix; 2: 2000 prefixes */
				uint64_t pre = dist == 0 ? r * 5 / n : dist == 1 ? 0 : unit_rand(&seed) % 2000;
				memset(p, 0, 16);
				memcpy(p, &pre, sizeof pre);
				for (int k = 16; k < 24; k++)
					p[k] = (uint8_t)(unit_rand(&seed) % 4);
				uint32_t idx = (uint32_t)r;
				memcpy(p + 24, &idx, 4);
			}
			memcpy(rw, in28, n * R);
			cmp_spec = &s;
			qsort(rw, n, R, cmp_stable);
			for (int threads = 1; threads <= 8; threads += 7) {
				memcpy(ra, in28, n * R);
				const uint8_t *got = cpusort_sort(&s, ra, rb, n, scratch, threads);
				CHECK(!memcmp(got, rw, n * R), "dist %d threads %d", dist, threads);
			}
		}
		free(in28), free(ra), free(rb), free(rw), free(scratch);
	} TEST_END();
	free(in);
	free(a);
	free(b);
	free(want);
	return UNIT_EXIT();
}
