/*
 * test_cpustream.c - the streamed single-chunk sort (cpustream.h) writes what
 * cpusort_sort sorts, byte for byte, for key-only and entry layouts, keys
 * longer than the 16-byte prefix, one-byte keys, skewed and all-equal keys
 * (the all-threads buckets), forced partition bits and thread counts; and
 * cpustream_bits' choices.
 */
#define _GNU_SOURCE
#include "cpusort.h"
#include "cpustream.h"
#include "sink.h"
#include "tpool.h"
#include "unit.h"
#include "util.h"
#include "../io/io.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A spec from -k arguments (NULL-terminated) and a record size (0: the keys' end). */
static keys_spec spec(uint32_t record_size, const char *const *keys)
{
	keys_spec s;
	char msg[256];
	memset(&s, 0, sizeof s);
	uint32_t off = 0;
	for (; keys && *keys; keys++, s.n++) {
		if (keys_parse(*keys, off, &s.f[s.n], msg, sizeof msg))
			abort();
		off = s.f[s.n].offset + s.f[s.n].width;
	}
	if (keys_finish(&s, record_size, 0, msg, sizeof msg))
		abort();
	return s;
}

enum { D_RANDOM, D_FEW, D_SKEW, D_EQUAL, D_NDIST };

/* n records: random bytes, then key bytes drawn per the distribution (payload stays random). */
static void fill(const keys_spec *s, uint8_t *p, size_t n, int dist, unsigned long long seed)
{
	size_t R = s->record_size;
	for (size_t i = 0; i < n * R; i++)
		p[i] = (uint8_t)unit_rand(&seed);
	if (dist == D_RANDOM || n == 0)
		return;
	uint8_t *pool = malloc(4 * R);
	memcpy(pool, p, R < n * R ? R : n * R);
	for (size_t k = 1; k < 4; k++)
		for (size_t b = 0; b < R; b++)
			pool[k * R + b] = (uint8_t)unit_rand(&seed);
	for (size_t i = 0; i < n; i++) {
		unsigned long long r = unit_rand(&seed);
		size_t k = dist == D_EQUAL ? 0 : dist == D_SKEW ? (r % 10 ? 0 : 1 + r % 3) : r % 4;
		for (int f = 0; f < s->n; f++)
			memcpy(p + i * R + s->f[f].offset, pool + k * R + s->f[f].offset, s->f[f].width);
	}
	free(pool);
}

/*
 * Sort in with cpusort_sort and with cpustream_sort (through a sink to an
 * anonymous temp file); 1 when the outputs are the same bytes.
 */
static int same_as_cpusort_at(const keys_spec *s, const uint8_t *in, size_t n, int bits, int threads, size_t shift,
			      int counted, cpustream_stats *st, char *why, size_t wl)
{
	size_t R = s->record_size, bytes = n * R, sb = cpusort_scratch_bytes(s, n);
	uint8_t *a0 = malloc(bytes + 1 + shift), *b0 = malloc(bytes + 1 + shift), *want = malloc(bytes + 1),
		*got = malloc(bytes + 1);
	uint8_t *a = a0 + shift, *b = b0 + shift; /* shift: records not aligned to their size */
	void *scratch = sb ? util_alloc_aligned(sb, 64) : NULL;
	tpool *tp = NULL;
	io_file f;
	int ok = 0;
	if (!a0 || !b0 || !want || !got || (sb && !scratch) || tpool_start(&tp, threads) ||
	    io_open_spill(&f, getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp")) {
		snprintf(why, wl, "setup failed");
		goto out;
	}
	memcpy(a, in, bytes);
	memcpy(want, cpusort_sort(s, a, b, n, scratch, threads), bytes);
	memcpy(a, in, bytes);
	sink k;
	int rc = sink_open(&k, s, &f, NULL, 0, 64 << 10);
	if (!rc && !counted) {
		rc = cpustream_sort(s, a, b, n, scratch, bits, tp, &k, st);
	} else if (!rc) {
		/* counted as readall_range_each would: every part in pieces (here
		 * of 1..1000 records, parts from the last to the first) */
		cpustream *S = cpustream_new(s, a, b, n, scratch, bits, tp, &k);
		unsigned long long ps = n + 1;
		for (int t = threads; S && t-- > 0;) {
			size_t lo, hi;
			util_split(n, t, threads, &lo, &hi);
			while (lo < hi) {
				size_t m = 1 + (size_t)(unit_rand(&ps) % 1000);
				m = m < hi - lo ? m : hi - lo;
				cpustream_count(S, t, lo, m);
				lo += m;
			}
		}
		rc = S ? cpustream_run(S, 1, st) : -ENOMEM;
	}
	int crc = sink_close(&k);
	if (rc || crc) {
		snprintf(why, wl, "cpustream_sort %d, sink_close %d", rc, crc);
	} else if (f.pos != bytes) {
		snprintf(why, wl, "%llu bytes written, want %zu", (unsigned long long)f.pos, bytes);
	} else if (bytes && pread(f.fd, got, bytes, 0) != (ssize_t)bytes) {
		snprintf(why, wl, "cannot read the output back");
	} else if (memcmp(got, want, bytes)) {
		size_t i = 0;
		while (got[i] == want[i])
			i++;
		snprintf(why, wl, "differs from cpusort_sort at record %zu of %zu", i / R, n);
	} else {
		ok = 1;
	}
	io_close(&f);
out:
	tpool_stop(tp);
	free(a0);
	free(b0);
	free(want);
	free(got);
	free(scratch);
	return ok;
}

static int same_as_cpusort(const keys_spec *s, const uint8_t *in, size_t n, int bits, int threads,
			   cpustream_stats *st, char *why, size_t wl)
{
	return same_as_cpusort_at(s, in, n, bits, threads, 0, 0, st, why, wl);
}

struct layout {
	const char *name;
	uint32_t record_size;
	const char *keys[4];
};

static const struct layout layouts[] = {
	{ "u64", 0, { "u64" } },
	{ "u8", 0, { "u8" } },
	{ "i16:r", 0, { "i16:r" } },
	{ "f32be", 0, { "f32be" } },
	/* 4- and 8-byte key-only records: sorted as native integers (keys_native) */
	{ "u32", 0, { "u32" } },
	{ "i32:r", 0, { "i32:r" } },
	{ "f32", 0, { "f32" } },
	{ "f64", 0, { "f64" } },
	{ "f64:r", 0, { "f64:r" } },
	{ "i64be", 0, { "i64be" } },
	{ "u64be:r", 0, { "u64be:r" } },
	{ "bytes8", 0, { "bytes8" } },
	{ "bytes4:r", 0, { "bytes4:r" } },
	{ "whole-rs3", 3, { NULL } },
	{ "whole-rs16", 16, { NULL } },
	{ "whole-rs20", 20, { NULL } },
	{ "u64@8,i32@0:r-rs16", 16, { "u64@8", "i32@0:r" } },
	{ "bytes20@2-rs24", 24, { "bytes20@2" } },
	{ "bytes10-rs100", 100, { "bytes10" } },
	{ "u8@4-rs5", 5, { "u8@4" } },
	/* keys covering the record's start, a payload after them: sorted whole */
	{ "u64,i32:r-rs16", 16, { "u64", "i32:r" } },
	{ "u32-rs8", 8, { "u32" } },
	{ "i16@2,u16@0:r-rs7", 7, { "i16@2", "u16@0:r" } },
	{ "u8-rs3", 3, { "u8" } },
	{ "f64:r,u16-rs13", 13, { "f64:r", "u16" } },
};

int main(void)
{
	TEST_BEGIN("cpustream/bits") {
		const char *k64[] = { "u64", NULL }, *k8[] = { "u8", NULL }, *k10[] = { "bytes10", NULL };
		keys_spec u64 = spec(0, k64), u8 = spec(0, k8), r100 = spec(100, k10);
		CHECK(cpustream_bits(&u64, 0) == CPUSTREAM_MIN_BITS, "n 0: %d", cpustream_bits(&u64, 0));
		CHECK(cpustream_bits(&u64, 1000) == CPUSTREAM_MIN_BITS, "n 1000: %d", cpustream_bits(&u64, 1000));
		/* 1 GiB of u64: 2048 buckets of 512 KiB */
		CHECK(cpustream_bits(&u64, (size_t)1 << 27) == 11, "1 GiB u64: %d", cpustream_bits(&u64, (size_t)1 << 27));
		CHECK(cpustream_bits(&u64, ((size_t)1 << 27) + (1 << 15)) == 12, "just over 1 GiB u64: %d",
		      cpustream_bits(&u64, ((size_t)1 << 27) + (1 << 15)));
		CHECK(cpustream_bits(&u64, (size_t)1 << 40) == CPUSTREAM_MAX_BITS, "huge: %d",
		      cpustream_bits(&u64, (size_t)1 << 40));
		CHECK(cpustream_bits(&u8, (size_t)1 << 32) == 8, "one-byte key: %d", cpustream_bits(&u8, (size_t)1 << 32));
		/* 100-byte records go through 16-byte entries: 10.7M of them are 164 MiB */
		CHECK(cpustream_bits(&r100, 10737418) == 9, "1 GiB of 100-byte records: %d",
		      cpustream_bits(&r100, 10737418));
	} TEST_END();

	static const size_t ns[] = { 0, 1, 2, 3, 255, 256, 257, 4095, 4097, 70001 };
	static const char *dname[] = { "random", "few", "skew", "equal" };
	uint8_t *in = malloc((size_t)200000 * 100);
	unsigned long long seed = 7;
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
		keys_spec s = spec(layouts[l].record_size, layouts[l].keys);
		char name[128], why[256];
		snprintf(name, sizeof name, "cpustream/same-as-cpusort/%s", layouts[l].name);
		TEST_BEGIN(name) {
			for (int d = 0; d < D_NDIST; d++) {
				for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
					size_t n = ns[i];
					int threads = 1 + (int)((l + i + (size_t)d) % 3);
					int bits = (i % 4 == 1) ? 1 : (i % 4 == 2) ? 16 : 0;
					fill(&s, in, n, d, seed++);
					cpustream_stats st;
					CHECK(same_as_cpusort(&s, in, n, bits, threads, &st, why, sizeof why),
					      "%s n %zu bits %d threads %d: %s", dname[d], n, bits, threads, why);
					CHECK(same_as_cpusort_at(&s, in, n, bits, threads, 0, 1, &st, why, sizeof why),
					      "%s n %zu bits %d threads %d, counted in pieces: %s", dname[d], n, bits,
					      threads, why);
				}
			}
		} TEST_END();
	}

	/* 8 or more threads: one is left to the writer while buckets are sorted;
	 * records not aligned to their size: not sorted as native integers */
	TEST_BEGIN("cpustream/threads-and-alignment") {
		char why[256];
		const char *k64[] = { "u64", NULL }, *kf[] = { "f32:r", NULL }, *k10[] = { "bytes10", NULL };
		keys_spec u64 = spec(0, k64), f32 = spec(0, kf), r100 = spec(100, k10);
		const keys_spec *sp[] = { &u64, &f32, &r100 };
		for (int k = 0; k < 3; k++) {
			for (int d = D_RANDOM; d <= D_SKEW; d++) {
				cpustream_stats st;
				fill(sp[k], in, 150000, d, seed++);
				CHECK(same_as_cpusort(sp[k], in, 150000, 0, 9, &st, why, sizeof why), "%s 9 threads: %s",
				      dname[d], why);
				CHECK(same_as_cpusort_at(sp[k], in, 150000, 0, 2, 4 - (size_t)k, 0, &st, why, sizeof why),
				      "%s shifted by %d: %s", dname[d], 4 - k, why);
			}
		}
	} TEST_END();

	/* the all-threads path: one bucket far larger than a thread's share;
	 * then both tests with the 64-bit native counters that more than
	 * UINT32_MAX records take (the test build's bound lowered to 0; each
	 * bucket's counters a wide slice of the stream's) */
	for (int wide = 0; wide < 2; wide++) {
	cpusort_test_wide_min = wide ? 0 : UINT32_MAX;
	TEST_BEGIN(wide ? "cpustream/big-buckets-wide-counters" : "cpustream/big-buckets") {
		char why[256];
		const char *k64[] = { "u64", NULL }, *kr[] = { "bytes20@2", NULL }, *kf[] = { "f32", NULL };
		keys_spec u64 = spec(0, k64), r24 = spec(24, kr), f32 = spec(0, kf);
		const keys_spec *sp[] = { &u64, &r24, &f32 };
		for (int k = 0; k < 3; k++) {
			for (int d = D_SKEW; d <= D_EQUAL; d++) {
				cpustream_stats st;
				fill(sp[k], in, 200000, d, seed++);
				CHECK(same_as_cpusort(sp[k], in, 200000, 0, 3, &st, why, sizeof why), "%s: %s",
				      dname[d], why);
				CHECK(st.big >= 1 && st.largest >= 150000, "%s: %llu big buckets, largest %llu", dname[d],
				      (unsigned long long)st.big, (unsigned long long)st.largest);
			}
		}
	} TEST_END();
	if (wide)
		TEST_BEGIN("cpustream/threads-wide-counters") {
			char why[256];
			const char *k64[] = { "u64", NULL }, *k32[] = { "i32:r", NULL };
			keys_spec u64 = spec(0, k64), i32 = spec(0, k32);
			const keys_spec *sp[] = { &u64, &i32 };
			for (int k = 0; k < 2; k++)
				for (int d = D_RANDOM; d <= D_SKEW; d++) {
					cpustream_stats st;
					fill(sp[k], in, 150000, d, seed++);
					CHECK(same_as_cpusort(sp[k], in, 150000, 0, 9, &st, why, sizeof why),
					      "%s 9 threads: %s", dname[d], why);
				}
		} TEST_END();
	cpusort_test_wide_min = UINT32_MAX;
	}
	free(in);
	return UNIT_EXIT();
}
