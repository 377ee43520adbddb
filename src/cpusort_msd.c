/* cpusort_msd.c - stable MSD radix sort of byte-string items (cpusort_radix_msd, cpusort.h). */
#include "cpusort.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * Why MSD for the text prefixes: an LSD sort pays a pass over every item for
 * every key byte that is not the same in all of them (12 for a text prefix),
 * while strings are told apart by their first few bytes. MSD splits on the
 * first byte that differs, and each bucket then needs only the bytes its
 * items do not share; below the top levels a bucket fits the cache, so the
 * deeper levels cost little memory traffic. A counting scatter keeps equal
 * digits in input order and the insertion sort of small buckets is stable,
 * so the sort is stable.
 */

#define MSD_SMALL 48         /* fewer items: insertion sort (no 256 counters to clear and sum) */
#define MSD_PAR_MIN 65536    /* fewer items: one thread */
#define MSD_MAX_THREADS 64

/* The text prefix record (16 bytes, a 12-byte key): the key as two
 * big-endian words, so that a comparison is two integer compares. Bytes
 * before a bucket's byte are equal in all its items, so comparing whole
 * keys orders a bucket as comparing its remaining bytes does. */
static inline uint64_t key_hi(const uint8_t *e)
{
	uint64_t x;
	memcpy(&x, e, 8);
	return __builtin_bswap64(x);
}
static inline uint32_t key_lo(const uint8_t *e)
{
	uint32_t x;
	memcpy(&x, e + 8, 4);
	return __builtin_bswap32(x);
}

static void ins_sort16_12(uint8_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint8_t x[16];
		memcpy(x, a + i * 16, 16);
		const uint64_t hi = key_hi(x);
		const uint32_t lo = key_lo(x);
		size_t k = i;
		while (k > 0) {
			const uint8_t *p = a + (k - 1) * 16;
			const uint64_t ph = key_hi(p);
			if (ph < hi || (ph == hi && key_lo(p) <= lo))
				break;
			memcpy(a + k * 16, p, 16);
			k--;
		}
		if (k != i)
			memcpy(a + k * 16, x, 16);
	}
}

/* Stable insertion sort of n items by bytes [from, nbytes). */
static void ins_sort(uint8_t *a, size_t n, size_t stride, uint32_t from, uint32_t nbytes)
{
	if (stride == 16 && nbytes == 12) {
		ins_sort16_12(a, n);
		return;
	}
	uint8_t x[64];
	const size_t kl = nbytes - from;
	for (size_t i = 1; i < n; i++) {
		if (memcmp(a + (i - 1) * stride + from, a + i * stride + from, kl) <= 0)
			continue;
		memcpy(x, a + i * stride, stride);
		size_t k = i;
		do {
			memcpy(a + k * stride, a + (k - 1) * stride, stride);
			k--;
		} while (k > 0 && memcmp(a + (k - 1) * stride + from, x + from, kl) > 0);
		memcpy(a + k * stride, x, stride);
	}
}

/* The only digit of c[256] when all n items have it, else -1. */
static int single_digit(const size_t *c, size_t n)
{
	for (int d = 0; d < 256; d++)
		if (c[d])
			return c[d] == n ? d : -1;
	return -1;
}

#define SCATTER(STRIDE, SRC, DST, LO, HI, BYTE, POS)                                         \
	do {                                                                                 \
		const uint8_t *e_ = (SRC) + (LO) * (STRIDE);                                 \
		for (size_t i_ = (LO); i_ < (HI); i_++, e_ += (STRIDE))                      \
			memcpy((DST) + ((POS)[e_[(BYTE)]]++) * (STRIDE), e_, (STRIDE));      \
	} while (0)

/* Items [lo, hi) of src to dst at pos[their digit of byte], in order. */
static void scatter(const uint8_t *src, uint8_t *dst, size_t lo, size_t hi, size_t stride, uint32_t byte,
		    size_t *pos)
{
	switch (stride) {
	case 16: SCATTER(16, src, dst, lo, hi, byte, pos); break;
	case 8: SCATTER(8, src, dst, lo, hi, byte, pos); break;
	default: SCATTER(stride, src, dst, lo, hi, byte, pos); break;
	}
}

/*
 * Sort n items at src by bytes [byte, nbytes) (the bytes before are equal in
 * all of them), tmp: room for n items; the result is left in src when to_src,
 * else in tmp. One thread.
 */
static void msd_seq(uint8_t *src, uint8_t *tmp, size_t n, size_t stride, uint32_t byte, uint32_t nbytes,
		    int to_src)
{
	/* only the digits between the smallest and the largest seen are
	 * walked: a small bucket of text (a few dozen letters) would otherwise
	 * pay for 256 counters several times over */
	size_t c[256], pos[256];
	unsigned dmin, dmax;
	for (;;) {
		if (byte >= nbytes || n <= MSD_SMALL) {
			if (byte < nbytes)
				ins_sort(src, n, stride, byte, nbytes);
			if (!to_src)
				memcpy(tmp, src, n * stride);
			return;
		}
		const uint8_t *e = src + byte;
		memset(c, 0, sizeof c);
		dmin = 255, dmax = 0;
		for (size_t i = 0; i < n; i++, e += stride) {
			c[*e]++;
			dmin = *e < dmin ? *e : dmin;
			dmax = *e > dmax ? *e : dmax;
		}
		if (dmin < dmax)
			break;
		byte++; /* this byte tells nothing apart: no pass */
	}
	size_t sum = 0;
	for (unsigned d = dmin; d <= dmax; d++) {
		pos[d] = sum;
		sum += c[d];
	}
	scatter(src, tmp, 0, n, stride, byte, pos);
	for (unsigned d = dmin; d <= dmax; d++) {
		size_t lo = pos[d] - c[d];
		if (c[d])
			msd_seq(tmp + lo * stride, src + lo * stride, c[d], stride, byte + 1, nbytes, !to_src);
	}
}

/* One level on several threads: counts per thread slice, a stable scatter, then the buckets. */
typedef struct level {
	uint8_t *src, *tmp;
	size_t n, stride, big;
	uint32_t byte, nbytes;
	int to_src;
	size_t (*hist)[256];  /* [thread][digit]: counts, then scatter positions */
	size_t start[257];    /* bucket d: [start[d], start[d + 1]) after the scatter */
	int next;             /* the next bucket a thread takes (atomic) */
} level;

static void lvl_count(void *p, int t, int nt)
{
	level *L = p;
	size_t lo, hi, *h = L->hist[t];
	util_split(L->n, t, nt, &lo, &hi);
	memset(h, 0, 256 * sizeof *h);
	const uint8_t *e = L->src + lo * L->stride + L->byte;
	for (size_t i = lo; i < hi; i++, e += L->stride)
		h[*e]++;
}

static void lvl_scatter(void *p, int t, int nt)
{
	level *L = p;
	size_t lo, hi;
	util_split(L->n, t, nt, &lo, &hi);
	scatter(L->src, L->tmp, lo, hi, L->stride, L->byte, L->hist[t]);
}

/* Threads take buckets in turn; the big ones are left for a parallel level of their own. */
static void lvl_buckets(void *p, int t, int nt)
{
	level *L = p;
	(void)t, (void)nt;
	for (;;) {
		int d = __atomic_fetch_add(&L->next, 1, __ATOMIC_RELAXED);
		if (d >= 256)
			return;
		size_t lo = L->start[d], m = L->start[d + 1] - lo;
		if (m && m <= L->big)
			msd_seq(L->tmp + lo * L->stride, L->src + lo * L->stride, m, L->stride, L->byte + 1,
				L->nbytes, !L->to_src);
	}
}

/* Counts of byte `byte` over all threads' slices into c; the single digit or -1. */
static int lvl_counts(level *L, int nt, size_t *c)
{
	util_par_run(nt, lvl_count, L);
	memset(c, 0, 256 * sizeof *c);
	for (int t = 0; t < nt; t++)
		for (int d = 0; d < 256; d++)
			c[d] += L->hist[t][d];
	return single_digit(c, L->n);
}

static void msd_par(uint8_t *src, uint8_t *tmp, size_t n, size_t stride, uint32_t byte, uint32_t nbytes,
		    int to_src, int nt, size_t (*hist)[256], int counted);

/* The scatter and buckets of a level whose byte L->byte is counted (L->hist) and not single. */
static void lvl_run(level *L, int nt)
{
	size_t sum = 0;
	for (int d = 0; d < 256; d++) {
		L->start[d] = sum;
		for (int t = 0; t < nt; t++) {
			size_t c = L->hist[t][d];
			L->hist[t][d] = sum;
			sum += c;
		}
	}
	L->start[256] = sum;
	util_par_run(nt, lvl_scatter, L);
	/* a bucket of more than half a thread's share would leave the others idle */
	L->big = L->n / (size_t)nt / 2;
	if (L->big < MSD_PAR_MIN)
		L->big = MSD_PAR_MIN;
	L->next = 0;
	util_par_run(nt, lvl_buckets, L);
	for (int d = 0; d < 256; d++) {
		size_t lo = L->start[d], m = L->start[d + 1] - lo;
		if (m > L->big)
			msd_par(L->tmp + lo * L->stride, L->src + lo * L->stride, m, L->stride, L->byte + 1, L->nbytes,
				!L->to_src, nt, L->hist, 0);
	}
}

/* msd_seq on nt threads (hist: nt counter rows); counted: byte `byte` is counted into hist already. */
static void msd_par(uint8_t *src, uint8_t *tmp, size_t n, size_t stride, uint32_t byte, uint32_t nbytes,
		    int to_src, int nt, size_t (*hist)[256], int counted)
{
	if (nt <= 1 || n < MSD_PAR_MIN) {
		msd_seq(src, tmp, n, stride, byte, nbytes, to_src);
		return;
	}
	level L = { .src = src, .tmp = tmp, .n = n, .stride = stride, .byte = byte, .nbytes = nbytes,
		    .to_src = to_src, .hist = hist };
	size_t c[256];
	if (!counted) {
		while (L.byte < nbytes && lvl_counts(&L, nt, c) >= 0)
			L.byte++;
		if (L.byte >= nbytes) { /* all equal: already in order */
			if (!to_src)
				memcpy(tmp, src, n * stride);
			return;
		}
	}
	lvl_run(&L, nt);
}

uint8_t *cpusort_radix_msd(uint8_t *a, uint8_t *b, size_t n, size_t stride, uint32_t nbytes, int threads)
{
	int nt = threads < 1 ? 1 : threads > MSD_MAX_THREADS ? MSD_MAX_THREADS : threads;
	if (n < MSD_PAR_MIN || nt == 1) {
		msd_seq(a, b, n, stride, 0, nbytes, 1);
		return a;
	}
	size_t(*hist)[256] = malloc((size_t)nt * sizeof *hist);
	if (!hist) { /* a few KiB: sort on this thread rather than fail */
		msd_seq(a, b, n, stride, 0, nbytes, 1);
		return a;
	}
	/* the leading bytes every item shares are found here, so that a sort
	 * with nothing to do (all prefixes equal) moves no item */
	level L = { .src = a, .tmp = b, .n = n, .stride = stride, .nbytes = nbytes, .hist = hist };
	size_t c[256];
	while (L.byte < nbytes && lvl_counts(&L, nt, c) >= 0)
		L.byte++;
	uint8_t *res = a;
	if (L.byte < nbytes) {
		msd_par(a, b, n, stride, L.byte, nbytes, 0, nt, hist, 1);
		res = b;
	}
	free(hist);
	return res;
}
