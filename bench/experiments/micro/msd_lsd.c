/*
 * msd_lsd.c - the text prefix sort alone: cpusort_radix (LSD, a pass per
 * prefix byte that varies) against cpusort_radix_msd (MSD first) on N
 * 16-byte records (a 12-byte key, a u32 index), as text_sort.c makes them,
 * on T threads; 3 rounds, interleaved, each checked to give the same order.
 * Keys: "csv" lowercase words of 6-16 letters (bench/gen_lines csv's field
 * 2), "gensort" 10 printable bytes (gensort -a), "num" a -n key's code (a
 * sign byte, a length byte, digits). Build, after make, with B the build
 * directory (build/cuda-...): cc -O2 -std=gnu11 -Isrc
 * bench/experiments/micro/msd_lsd.c $B/src/cpusort.o $B/src/cpusort_msd.o
 * $B/src/util.o $B/src/keys.o -lpthread -lm
 *
 *   msd_lsd N T csv|gensort|num
 */
#include "cpusort.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t st = 88172645463325252ull;
static uint64_t rnd(void)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return st;
}

/* Seconds `sort` takes on a copy of the n records `in`; *h a hash of the order it gives. */
static double timed(uint8_t *(*sort)(uint8_t *, uint8_t *, size_t, size_t, uint32_t, int), const uint8_t *in,
		    uint8_t *a, uint8_t *b, size_t n, int th, uint64_t *h)
{
	memcpy(a, in, n * 16);
	double t0 = now();
	uint8_t *x = sort(a, b, n, 16, 12, th);
	double t1 = now();
	*h = 0;
	for (size_t i = 0; i < n; i++)
		*h = *h * 31 + x[i * 16 + 15] + x[i * 16 + 14];
	return t1 - t0;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return fprintf(stderr, "usage: msd_lsd N THREADS csv|gensort|num\n"), 2;
	size_t n = strtoull(argv[1], NULL, 10);
	int th = atoi(argv[2]);
	const char *kind = argv[3];
	uint8_t *in = malloc(n * 16), *a = malloc(n * 16), *b = malloc(n * 16);
	if (!in || !a || !b)
		return 1;
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = in + i * 16;
		uint64_t r = rnd(), s = rnd();
		memset(e, 0, 12);
		if (!strcmp(kind, "csv")) {
			int len = 6 + (int)(r % 11);
			for (int k = 0; k < 12 && k < len; k++)
				e[k] = (uint8_t)('a' + (s >> (k * 5 % 60)) % 26);
		} else if (!strcmp(kind, "gensort")) {
			for (int k = 0; k < 10; k++)
				e[k] = (uint8_t)(' ' + ((k < 8 ? r >> (8 * k) : s >> (8 * k)) & 0xff) % 95);
		} else {
			uint64_t v = s % 100000000; /* 8 digits: -n's code, sign, length, digits */
			int neg = r & 1, len = 0;
			char d[20];
			do {
				d[len++] = (char)('0' + v % 10);
				v /= 10;
			} while (v);
			e[0] = neg ? 0x40 : 0xc0;
			e[1] = (uint8_t)(neg ? 0xff - len : len);
			for (int k = 0; k < len && k < 10; k++)
				e[2 + k] = (uint8_t)(neg ? 0xff - d[len - 1 - k] : d[len - 1 - k]);
		}
		e[12] = (uint8_t)(i >> 24), e[13] = (uint8_t)(i >> 16), e[14] = (uint8_t)(i >> 8), e[15] = (uint8_t)i;
	}
	for (int r = 0; r < 3; r++) {
		uint64_t h1, h2;
		double tl = timed(cpusort_radix, in, a, b, n, th, &h1);
		double tm = timed(cpusort_radix_msd, in, a, b, n, th, &h2);
		printf("%s n %zu threads %d: lsd %.3f s msd %.3f s %s\n", kind, n, th, tl, tm,
		       h1 == h2 ? "same order" : "ORDER DIFFERS");
	}
	return 0;
}
