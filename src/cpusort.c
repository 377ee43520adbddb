/* cpusort.c - parallel stable radix sorts of a chunk on normalized keys; see cpusort.h. */
#include "cpusort.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define PREFIX_MAX 16 /* normalized key bytes held in an entry */

static uint32_t prefix_len(const keys_spec *s)
{
	return s->key_width < PREFIX_MAX ? s->key_width : PREFIX_MAX;
}

/* Entry = prefix bytes, padding, u32 index at the end; 4-byte multiple. */
static size_t entry_size(const keys_spec *s)
{
	return ((size_t)prefix_len(s) + 4 + 3) / 4 * 4;
}

size_t cpusort_scratch_per_record(const keys_spec *s)
{
	if (cpusort_whole_records(s))
		return 0;
	return cpusort_entries_in_output(s) ? entry_size(s) : 2 * entry_size(s);
}

int cpusort_entries_in_output(const keys_spec *s)
{
	return !cpusort_whole_records(s) && entry_size(s) <= s->record_size;
}

size_t cpusort_scratch_bytes(const keys_spec *s, size_t n)
{
	return cpusort_scratch_per_record(s) * n;
}

/* ---- native integers --------------------------------------------------------- */

#define NATIVE_DIGIT 11 /* 2^11 counters per pass: all passes' counts fit L1 together */
#define NATIVE_PASSES 6 /* ceil(64 / 11) */


/*
 * cpusort_sort's key-only records of a 4- or 8-byte key (keys_native): the
 * records become native integers (encoded in the first scan, which also
 * counts every pass's digits, so that passes whose digit is the same in
 * every record are skipped), take stable LSD passes of 11-bit digits, each
 * thread scattering its slice (counted again before every pass but the
 * first: a slice holds other records after each pass), and are decoded in
 * the last pass's scatter. u64: 6 passes instead of 8 byte-wise ones, and
 * neither normalizing nor de-normalizing costs a pass of its own. The
 * counters are 32-bit (all six passes' for a thread, 48 KiB, stay in its L1
 * while the first scan counts), 64-bit where n exceeds them: key-only
 * records are not bound by the entries' 32-bit index (cpusort_max_records).
 */
typedef uint32_t npar_narrow[NATIVE_PASSES][1u << NATIVE_DIGIT];
/* the test build lowers the bound (cpusort.h) so that tests reach the wide
 * counters without 2^32 records */
#if GPUSORT_TEST_HOOKS
size_t cpusort_test_wide_min = UINT32_MAX;
#define NPAR_WIDE_MIN cpusort_test_wide_min
#else
#define NPAR_WIDE_MIN ((size_t)UINT32_MAX)
#endif
typedef uint64_t npar_wide[NATIVE_PASSES][1u << NATIVE_DIGIT];

struct npar {
	const keys_native *k;
	uint8_t *src, *dst;
	size_t n;
	int passes, dw, pass, last;
	int count;         /* with pass >= 0: count this pass's digits of each thread's slice, do not move */
	int encoded;       /* the items are native integers already: the first scan only counts */
	int wide;          /* h is npar_wide[nt], else npar_narrow[nt] */
	void *h;           /* [thread][pass][digit] */
};

#define NPAR_BODY(T, CT, ENC, DEC)                                                            \
	do {                                                                                  \
		T *src = (T *)q->src, *dst = (T *)q->dst;                                     \
		CT(*ht)[1u << NATIVE_DIGIT] = ((CT(*)[NATIVE_PASSES][1u << NATIVE_DIGIT])q->h)[t]; \
		/* in locals: the counters' stores may alias q's ints (uint32_t, int) */      \
		const int passes = q->passes, dw = q->dw;                                     \
		const T mask = ((T)1 << dw) - 1;                                              \
		if (q->pass < 0) { /* encode and count */                                    \
			CT(*h)[1u << NATIVE_DIGIT] = ht;                                      \
			memset(h, 0, sizeof h[0] * (size_t)passes);                           \
			if (q->encoded)                                                       \
				for (size_t i = lo; i < hi; i++) {                            \
					const T v = src[i];                                   \
					for (int p = 0; p < passes; p++)                      \
						h[p][(v >> (p * dw)) & mask]++;               \
				}                                                             \
			else                                                                  \
				for (size_t i = lo; i < hi; i++) {                            \
					const T v = ENC(q->k, src[i]);                        \
					src[i] = v;                                           \
					for (int p = 0; p < passes; p++)                      \
						h[p][(v >> (p * dw)) & mask]++;               \
				}                                                             \
		} else if (q->pass == NATIVE_PASSES) { /* decode in place */                 \
			for (size_t i = lo; i < hi; i++)                                      \
				src[i] = DEC(q->k, src[i]);                                   \
		} else if (q->count) {                                                        \
			CT *c = ht[q->pass];                                                  \
			const int sh = q->pass * dw;                                          \
			memset(c, 0, sizeof ht[0]);                                           \
			for (size_t i = lo; i < hi; i++)                                      \
				c[(src[i] >> sh) & mask]++;                                   \
		} else {                                                                      \
			CT *pos = ht[q->pass];                                                \
			const int sh = q->pass * dw;                                          \
			if (q->last)                                                          \
				for (size_t i = lo; i < hi; i++)                              \
					dst[pos[(src[i] >> sh) & mask]++] = DEC(q->k, src[i]); \
			else                                                                  \
				for (size_t i = lo; i < hi; i++)                              \
					dst[pos[(src[i] >> sh) & mask]++] = src[i];           \
		}                                                                             \
	} while (0)

static void npar_part(void *arg, int t, int nt)
{
	struct npar *q = arg;
	size_t lo, hi;
	util_split(q->n, t, nt, &lo, &hi);
	if (q->k->width == 8 && q->wide)
		NPAR_BODY(uint64_t, uint64_t, keys_native_enc64, keys_native_dec64);
	else if (q->k->width == 8)
		NPAR_BODY(uint64_t, uint32_t, keys_native_enc64, keys_native_dec64);
	else if (q->wide)
		NPAR_BODY(uint32_t, uint64_t, keys_native_enc32, keys_native_dec32);
	else
		NPAR_BODY(uint32_t, uint32_t, keys_native_enc32, keys_native_dec32);
}

size_t cpusort_native_counters(int nt, size_t n)
{
	return (size_t)nt * (n > NPAR_WIDE_MIN ? sizeof(npar_wide) : sizeof(npar_narrow));
}

/* Pass p's count of digit d in thread t's counters. */
static inline uint64_t npar_get(const struct npar *q, int t, int p, uint32_t d)
{
	return q->wide ? ((npar_wide *)q->h)[t][p][d] : ((npar_narrow *)q->h)[t][p][d];
}

static inline void npar_set(struct npar *q, int t, int p, uint32_t d, uint64_t v)
{
	if (q->wide)
		((npar_wide *)q->h)[t][p][d] = v;
	else
		((npar_narrow *)q->h)[t][p][d] = (uint32_t)v;
}

/* Below this many items the LSD passes' fixed cost (clearing and scanning
 * 2^11 counters a pass: ~10 us) is far more than an insertion sort's: the
 * streamed chunk of a small input cuts it into hundreds of such buckets. */
#define NATIVE_SMALL 64

/* cpusort_native_par of a few items (n <= NATIVE_SMALL), in place in a: a
 * record is its key, so equal keys are equal records and the order among
 * them cannot show. */
static uint8_t *native_small(const keys_native *k, uint8_t *a, size_t n, int encoded)
{
	if (!encoded && k->width == 8)
		for (size_t i = 0; i < n; i++)
			((uint64_t *)a)[i] = keys_native_enc64(k, ((uint64_t *)a)[i]);
	else if (!encoded)
		for (size_t i = 0; i < n; i++)
			((uint32_t *)a)[i] = keys_native_enc32(k, ((uint32_t *)a)[i]);
	cpusort_native_insertion(k, a, n);
	return a;
}

uint8_t *cpusort_native_par(const keys_native *k, uint8_t *a, uint8_t *b, size_t n, int bits, int encoded, int nt,
			    void *counters)
{
	struct npar q = { .k = k, .src = a, .dst = b, .n = n, .pass = -1, .encoded = encoded };
	if (n < 2 && !encoded)
		return a;
	if (n <= NATIVE_SMALL)
		return native_small(k, a, n, encoded);
	if (bits <= 0 || bits > (int)k->width * 8)
		bits = (int)k->width * 8;
	q.passes = (bits + NATIVE_DIGIT - 1) / NATIVE_DIGIT;
	q.dw = (bits + q.passes - 1) / q.passes;
	q.wide = n > NPAR_WIDE_MIN;
	q.h = counters ? counters : malloc(cpusort_native_counters(nt, n));
	if (!q.h)
		return NULL;
	util_par_run(nt, npar_part, &q);
	/* the passes that move something: a digit equal in every record moves nothing */
	int todo[NATIVE_PASSES], m = 0;
	for (int p = 0; p < q.passes; p++) {
		uint64_t most = 0;
		for (uint32_t d = 0; d < (1u << q.dw); d++) {
			uint64_t c = 0;
			for (int t = 0; t < nt; t++)
				c += npar_get(&q, t, p, d);
			most = c > most ? c : most;
		}
		if (most < n)
			todo[m++] = p;
	}
	for (int i = 0; i < m; i++) {
		int p = todo[i];
		if (i > 0 && nt > 1) {
			/* each thread's slice holds other records than at the first
			 * scan: count again what it holds now */
			q.pass = p;
			q.count = 1;
			util_par_run(nt, npar_part, &q);
			q.count = 0;
		}
		uint64_t sum = 0;
		for (uint32_t d = 0; d < (1u << q.dw); d++)
			for (int t = 0; t < nt; t++) {
				uint64_t c = npar_get(&q, t, p, d);
				npar_set(&q, t, p, d, sum);
				sum += c;
			}
		q.pass = p;
		q.last = i == m - 1;
		util_par_run(nt, npar_part, &q);
		uint8_t *x = q.src;
		q.src = q.dst;
		q.dst = x;
	}
	if (m == 0) { /* every record has the same key: decode in place */
		q.pass = NATIVE_PASSES;
		util_par_run(nt, npar_part, &q);
	}
	if (!counters)
		free(q.h);
	return q.src;
}

/* ---- native integers, large chunks: one MSD pass, then buckets in cache ---- */

#define MSD_MIN ((size_t)1 << 17)    /* records: below, the LSD passes run from cache anyway */
#define MSD_MAXBITS 15               /* 2^15 buckets: chunks up to 2^30 records keep them in L2 */
/* records a bucket aims at: it and its buffer in a core's L2; the test
 * build lowers it (cpusort.h) so that small inputs take every bucket count */
#if GPUSORT_TEST_HOOKS
size_t cpusort_test_msd_bucket = (size_t)1 << 15;
#define MSD_BUCKET cpusort_test_msd_bucket
#else
#define MSD_BUCKET ((size_t)1 << 15)
#endif
#define MSD_SLICE_MIN ((size_t)1 << 16) /* records: no smaller slices */

/*
 * A chunk too large for the cache (the chunked path's 8 MiB chunks: each of
 * six LSD passes scattered over 16 MiB to 2048 places measured 5.7 ns a key,
 * against ~1.2 in cache, NOTES.md section 4) is cut by one MSD pass on the
 * highest bits that differ into buckets of about MSD_BUCKET records, which
 * the threads then sort one each by cpusort_native_bucket in their cache, as
 * cpustream.c does for the streamed chunk. Phases (struct msd.phase):
 * 0 encode in place and OR together every key's difference from the first;
 * 1 count the digit; 2 scatter into b (stable: slices in order);
 * 3 sort the buckets; 4 copy the buckets whose result is not in the buffer
 * most of them chose.
 *
 * Every phase hands out its work (slices of the chunk, then buckets) to
 * whichever thread comes free (struct msd.next), not a fixed share to
 * each: the chunked path sorts while its reader, its spill writer and the
 * kernel's writeback take cores too, and with fixed shares each phase
 * waited for the thread that had lost its core (H200, 16 GiB u64 `--cpu
 * -S 2G`: 32 chunks of 512 MiB sorted in 8.8-11.1 s, against 0.19 s each
 * sorted alone; bench/results/h200-cpu-chunk-sort-2026-11-29.md).
 */
struct msd {
	const keys_native *k;
	uint8_t *a, *b;
	size_t n;
	int phase, shift, bits, nt;
	size_t nsl;                  /* slices of phases 0-2 */
	size_t next;                 /* the next slice or bucket to take (atomic) */
	uint64_t first, *diff;       /* [nt] */
	uint32_t *cnt;               /* [nsl + 1][2^bits]: counts, then scatter positions */
	size_t start[(1u << MSD_MAXBITS) + 1];
	uint8_t inb[1u << MSD_MAXBITS]; /* bucket d's records ended in b */
	uint8_t *ncnt;               /* cpusort_native_counters(1, n) per thread */
	int tob;                     /* phase 4: the result is b */
};

#define MSD_BODY(T, ENC)                                                                         \
	do {                                                                                     \
		T *a = (T *)q->a, *b = (T *)q->b;                                                \
		const T mask = (T)((1u << q->bits) - 1);                                         \
		const int sh = q->shift;                                                         \
		uint32_t *c = q->cnt + (sl << q->bits);                                          \
		if (q->phase == 0) {                                                             \
			uint64_t d = 0;                                                          \
			const T f = (T)q->first;                                                 \
			for (size_t i = lo; i < hi; i++) {                                       \
				T v = ENC(q->k, a[i]);                                           \
				a[i] = v;                                                        \
				d |= (uint64_t)(v ^ f);                                          \
			}                                                                        \
			q->diff[t] |= d;                                                         \
		} else if (q->phase == 1) {                                                      \
			memset(c, 0, sizeof *c << q->bits);                                      \
			for (size_t i = lo; i < hi; i++)                                         \
				c[(a[i] >> sh) & mask]++;                                        \
		} else {                                                                         \
			for (size_t i = lo; i < hi; i++)                                         \
				b[c[(a[i] >> sh) & mask]++] = a[i];                              \
		}                                                                                \
	} while (0)

static void msd_part(void *arg, int t, int nt)
{
	struct msd *q = arg;
	size_t W = q->k->width, nb = (size_t)1 << q->bits;
	(void)nt;
	if (q->phase == 3) {
		for (size_t d; (d = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED)) < nb;) {
			size_t lo = q->start[d], m = q->start[d + 1] - lo;
			if (!m)
				continue;
			uint8_t *x = q->b + lo * W;
			uint8_t *r = cpusort_native_bucket(q->k, x, q->a + lo * W, m, q->shift,
							   q->ncnt + (size_t)t * cpusort_native_counters(1, q->n));
			q->inb[d] = r == x;
		}
		return;
	}
	if (q->phase == 4) {
		for (size_t d; (d = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED)) < nb;)
			if (q->inb[d] != q->tob) {
				size_t lo = q->start[d] * W, len = (q->start[d + 1] - q->start[d]) * W;
				memcpy((q->tob ? q->b : q->a) + lo, (q->tob ? q->a : q->b) + lo, len);
			}
		return;
	}
	for (size_t sl; (sl = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED)) < q->nsl;) {
		size_t lo, hi;
		util_split(q->n, (int)sl, (int)q->nsl, &lo, &hi);
		if (W == 8)
			MSD_BODY(uint64_t, keys_native_enc64);
		else
			MSD_BODY(uint32_t, keys_native_enc32);
	}
}

/* Phase `phase` of q on nt threads, its work taken from the start. */
static void msd_run(struct msd *q, int phase, int nt)
{
	q->phase = phase;
	q->next = 0;
	util_par_run(nt, msd_part, q);
}

/*
 * cpusort_native_par's contract for a whole chunk (bits 0, encoded 0),
 * through the MSD pass above when n >= MSD_MIN and the keys differ in more
 * bits than one digit takes; else (or NULL from an allocation) the plain
 * LSD passes. Returns a or b, or NULL (a untouched) when memory ran out.
 */
static uint8_t *native_msd(const keys_native *k, uint8_t *a, uint8_t *b, size_t n, int nt)
{
	if (n < MSD_MIN || n > UINT32_MAX)
		return cpusort_native_par(k, a, b, n, 0, 0, nt, NULL);
	int bits = 1;
	while (bits < MSD_MAXBITS && (n >> bits) > MSD_BUCKET)
		bits++;
	size_t nsl = (size_t)nt * UTIL_SLICES_PER_THREAD;
	if (nsl > n / MSD_SLICE_MIN)
		nsl = n / MSD_SLICE_MIN; /* n >= MSD_MIN: at least 2 */
	struct msd *q = calloc(1, sizeof *q);
	uint64_t *diff = calloc((size_t)nt, sizeof *diff);
	uint32_t *cnt = malloc(((nsl + 1) << bits) * sizeof *cnt);
	uint8_t *ncnt = malloc(cpusort_native_counters(nt, n));
	uint8_t *res = NULL;
	if (!q || !diff || !cnt || !ncnt)
		goto out;
	*q = (struct msd){ .k = k, .a = a, .b = b, .n = n, .nt = nt, .nsl = nsl, .diff = diff, .cnt = cnt,
			   .ncnt = ncnt };
	if (k->width == 8) {
		uint64_t v;
		memcpy(&v, a, 8);
		q->first = keys_native_enc64(k, v);
	} else {
		uint32_t v;
		memcpy(&v, a, 4);
		q->first = keys_native_enc32(k, v);
	}
	msd_run(q, 0, nt); /* encode */
	uint64_t d = 0;
	for (int t = 0; t < nt; t++)
		d |= diff[t];
	int hb = d ? 64 - __builtin_clzll(d) : 0; /* bits hb and above: equal in every key */
	if (hb <= bits + NATIVE_DIGIT) {
		/* few bits differ: the LSD passes are few (decoded in the last) */
		res = cpusort_native_par(k, a, b, n, hb ? hb : 1, 1, nt, ncnt); /* no allocation: cannot fail */
		goto out;
	}
	q->bits = bits;
	q->shift = hb - bits;
	msd_run(q, 1, nt); /* count */
	/* each slice's start in each bucket: buckets in digit order, a
	 * bucket's slices in input order (stable); row nsl of cnt keeps the
	 * running positions, so that both sweeps read the rows in order */
	const size_t nb = (size_t)1 << bits;
	uint32_t *pos = cnt + (nsl << bits);
	memset(pos, 0, nb * sizeof *pos);
	for (size_t sl = 0; sl < nsl; sl++)
		for (size_t dg = 0; dg < nb; dg++)
			pos[dg] += cnt[(sl << bits) + dg];
	size_t sum = 0;
	for (size_t dg = 0; dg < nb; dg++) {
		q->start[dg] = sum;
		sum += pos[dg];
		pos[dg] = (uint32_t)q->start[dg];
	}
	q->start[nb] = sum;
	for (size_t sl = 0; sl < nsl; sl++)
		for (size_t dg = 0; dg < nb; dg++) {
			uint32_t c = cnt[(sl << bits) + dg];
			cnt[(sl << bits) + dg] = pos[dg];
			pos[dg] += c;
		}
	msd_run(q, 2, nt); /* scatter */
	msd_run(q, 3, nt); /* the buckets */
	size_t inb = 0;
	for (size_t dg = 0; dg < nb; dg++)
		inb += q->inb[dg] ? q->start[dg + 1] - q->start[dg] : 0;
	q->tob = inb * 2 >= n;
	msd_run(q, 4, nt);
	res = q->tob ? b : a;
out:
	free(q);
	free(diff);
	free(cnt);
	free(ncnt);
	return res;
}

/* ---- general layout: entries, tie fix-up, gather ---------------------------- */

struct job {
	const keys_spec *s;
	uint8_t *recs, *out, *ent, *tmp;
	size_t n, esz;
	uint32_t plen;
	size_t *tie_start; /* fix_ties: [nt + 1] where each thread's ranges start */
};

static void make_entries(void *p, size_t lo, size_t hi)
{
	struct job *j = p;
	size_t R = j->s->record_size;
	for (size_t i = lo; i < hi; i++)
		cpusort_make_entry(j->s, j->recs + i * R, (uint32_t)i, j->ent + i * j->esz);
}

static inline uint32_t ent_idx(const struct job *j, const uint8_t *e)
{
	uint32_t idx;
	memcpy(&idx, e + j->esz - 4, 4);
	return idx;
}

/* Full-key order of two entries, then input order: the stable order. */
static int ent_cmp(const struct job *j, const uint8_t *x, const uint8_t *y)
{
	uint32_t a = ent_idx(j, x), b = ent_idx(j, y);
	size_t R = j->s->record_size;
	int c = keys_compare(j->s, j->recs + (size_t)a * R, j->recs + (size_t)b * R);
	if (c)
		return c;
	return a < b ? -1 : a > b;
}

static void merge_sort(const struct job *j, uint8_t *a, uint8_t *tmp, size_t n)
{
	size_t E = j->esz;
	if (n <= 16) { /* insertion sort */
		uint8_t x[PREFIX_MAX + 8];
		for (size_t i = 1; i < n; i++) {
			memcpy(x, a + i * E, E);
			size_t k = i;
			while (k > 0 && ent_cmp(j, a + (k - 1) * E, x) > 0) {
				memcpy(a + k * E, a + (k - 1) * E, E);
				k--;
			}
			memcpy(a + k * E, x, E);
		}
		return;
	}
	size_t h = n / 2;
	merge_sort(j, a, tmp, h);
	merge_sort(j, a + h * E, tmp, n - h);
	if (ent_cmp(j, a + (h - 1) * E, a + h * E) <= 0)
		return;
	memcpy(tmp, a, n * E);
	size_t i = 0, k = h, o = 0;
	while (i < h && k < n) {
		if (ent_cmp(j, tmp + k * E, tmp + i * E) < 0)
			memcpy(a + o++ * E, tmp + k++ * E, E);
		else
			memcpy(a + o++ * E, tmp + i++ * E, E);
	}
	memcpy(a + o * E, tmp + i * E, (h - i) * E);
	o += h - i;
	memcpy(a + o * E, tmp + k * E, (n - k) * E);
}

/* Whether entry i starts a range of equal prefixes (or is the end). */
static int range_start(const struct job *j, size_t i)
{
	return i == 0 || i >= j->n || memcmp(j->ent + i * j->esz, j->ent + (i - 1) * j->esz, j->plen);
}

/* The first range that starts in thread t's slice, SIZE_MAX when none
 * does. Found before any range is sorted: a thread that looked past its
 * slice's start while the one before sorts the range there would read
 * entries being moved. */
static void tie_starts(void *p, int t, int nt)
{
	struct job *j = p;
	size_t lo, hi;
	util_split(j->n, t, nt, &lo, &hi);
	while (lo < hi && !range_start(j, lo))
		lo++;
	j->tie_start[t] = lo < hi ? lo : SIZE_MAX;
}

/*
 * Keys longer than the prefix: each range of equal prefixes is sorted by the
 * full key. A thread takes the ranges that start in its slice, which end at
 * the next thread's first range at the latest (tie_start).
 */
static void fix_ties(void *p, int t, int nt)
{
	(void)nt;
	struct job *j = p;
	size_t i = j->tie_start[t], end = j->tie_start[t + 1], E = j->esz;
	while (i < end) {
		size_t k = i + 1;
		while (k < end && !range_start(j, k))
			k++;
		if (k - i > 1)
			merge_sort(j, j->ent + i * E, j->tmp + i * E, k - i);
		i = k;
	}
}

static void gather(void *p, size_t lo, size_t hi)
{
	struct job *j = p;
	size_t R = j->s->record_size;
	for (size_t i = lo; i < hi; i++)
		memcpy(j->out + i * R, j->recs + (size_t)ent_idx(j, j->ent + i * j->esz) * R, R);
}

struct inplace {
	const keys_spec *s;
	uint8_t *recs;
	size_t n;
	int decode;
};

static void code_inplace(void *p, size_t lo, size_t hi)
{
	struct inplace *c = p;
	size_t R = c->s->record_size;
	for (size_t i = lo; i < hi; i++) {
		if (c->decode)
			keys_decode_inplace(c->s, c->recs + i * R);
		else
			keys_encode_inplace(c->s, c->recs + i * R);
	}
}

struct wordcode {
	const keys_word *w;
	uint8_t *recs;
	size_t n;
	int decode;
};

static void word_code_part(void *p, size_t lo, size_t hi)
{
	struct wordcode *c = p;
	keys_word_code(c->w, c->recs + lo * c->w->width, hi - lo, c->decode);
}

/* records: the smallest slice util_par_slices hands a thread in the passes
 * of one record at a time (entries, gather, encode) */
#define PAR_SLICE_MIN 16384

static int threads_for(size_t n, int threads)
{
	int max = (int)(n / 16384 + 1);
	return threads < max ? threads : max;
}

/* ---- the pieces, for callers that sort parts of a chunk (cpustream.h) ------ */

size_t cpusort_max_records(const keys_spec *s)
{
	return cpusort_whole_records(s) ? CPUSORT_MAX_WHOLE_RECORDS : CPUSORT_MAX_RECORDS;
}

int cpusort_key_only(const keys_spec *s)
{
	return keys_inplace(s) && s->record_size <= PREFIX_MAX;
}

int cpusort_whole_records(const keys_spec *s)
{
	return cpusort_key_only(s) || (keys_prefix_cover(s) && s->record_size <= CPUSORT_WHOLE_MAX);
}

size_t cpusort_entry_size(const keys_spec *s)
{
	return entry_size(s);
}

void cpusort_make_entry(const keys_spec *s, const uint8_t *rec, uint32_t idx, uint8_t *e)
{
	size_t esz = entry_size(s);
	memset(e, 0, esz - 4);
	keys_normalize_prefix(s, rec, e, prefix_len(s));
	memcpy(e + esz - 4, &idx, 4);
}

void cpusort_code(const keys_spec *s, uint8_t *recs, size_t n, int decode, int threads)
{
	if (keys_inplace_identity(s))
		return; /* the records are their keys already */
	struct inplace c = { s, recs, n, decode };
	util_par_slices(threads_for(n, threads), n, PAR_SLICE_MIN, code_inplace, &c);
}

void cpusort_word_code(const keys_word *w, uint8_t *recs, size_t n, int decode, int threads)
{
	struct wordcode c = { w, recs, n, decode };
	util_par_slices(threads_for(n, threads), n, PAR_SLICE_MIN, word_code_part, &c);
}

uint8_t *cpusort_sort_entries(const keys_spec *s, const uint8_t *recs, uint8_t *e0, uint8_t *e1, size_t n,
			      int threads)
{
	int nt = threads_for(n, threads);
	struct job j = { .s = s, .recs = (uint8_t *)recs, .n = n, .esz = entry_size(s), .plen = prefix_len(s) };
	/* MSD first: a chunk's entries of random keys take two or three passes
	 * over memory instead of one for each of up to 16 prefix bytes */
	j.ent = cpusort_radix_msd(e0, e1, n, j.esz, j.plen, nt);
	j.tmp = e1;
	if (s->key_width > j.plen) {
		size_t one[2];
		j.tie_start = nt > 1 ? malloc(((size_t)nt + 1) * sizeof *j.tie_start) : NULL;
		if (!j.tie_start) /* one thread takes every range */
			nt = 1, j.tie_start = one;
		util_par_run(nt, tie_starts, &j);
		j.tie_start[nt] = n;
		for (int t = nt - 1; t >= 0; t--) /* a slice inside one range: none of its own */
			if (j.tie_start[t] == SIZE_MAX)
				j.tie_start[t] = j.tie_start[t + 1];
		util_par_run(nt, fix_ties, &j);
		if (j.tie_start != one)
			free(j.tie_start);
	}
	return j.ent;
}

void cpusort_gather(const keys_spec *s, const uint8_t *recs, const uint8_t *ent, size_t n, uint8_t *out,
		    int threads)
{
	struct job j = { .s = s, .recs = (uint8_t *)recs, .out = out, .ent = (uint8_t *)ent, .n = n,
			 .esz = entry_size(s) };
	util_par_slices(threads_for(n, threads), n, PAR_SLICE_MIN, gather, &j);
}

uint8_t *cpusort_sort(const keys_spec *s, uint8_t *a, uint8_t *b, size_t n, void *scratch, int threads)
{
	if (n < 2)
		return a;
	keys_native k;
	if (keys_native_init(s, &k) == 0 && ((uintptr_t)a | (uintptr_t)b) % k.width == 0) {
		uint8_t *res = native_msd(&k, a, b, n, threads_for(n, threads));
		if (res)
			return res;
	}
	keys_word w;
	if (keys_word_init(s, &w) == 0 && ((uintptr_t)a | (uintptr_t)b) % w.width == 0) {
		/* several keys covering a 4- or 8-byte record: as their keys'
		 * integers, the records take the native passes */
		cpusort_word_code(&w, a, n, 0, threads);
		keys_native_identity(w.width, &k);
		uint8_t *res = native_msd(&k, a, b, n, threads_for(n, threads));
		cpusort_word_code(&w, res ? res : a, n, 1, threads);
		if (res)
			return res;
	}
	if (cpusort_whole_records(s)) {
		cpusort_code(s, a, n, 0, threads);
		/* MSD first, as the entries below: random 16-byte keys take
		 * two or three passes over memory, not one for each byte; by
		 * the key bytes alone, so that a payload after them keeps
		 * equal keys in input order */
		uint8_t *res = cpusort_radix_msd(a, b, n, s->record_size, s->key_width, threads_for(n, threads));
		cpusort_code(s, res, n, 1, threads);
		return res;
	}
	struct job j = { .s = s, .recs = a, .n = n, .esz = entry_size(s), .plen = prefix_len(s) };
	/* the sort leaves the entries in e0, so b, whose records come last
	 * (the gather), holds the entries' second buffer where they fit it */
	uint8_t *e0 = scratch, *e1 = cpusort_entries_in_output(s) ? b : e0 + n * j.esz;
	j.ent = e0;
	util_par_slices(threads_for(n, threads), n, PAR_SLICE_MIN, make_entries, &j);
	cpusort_gather(s, a, cpusort_sort_entries(s, a, e0, e1, n, threads), n, b, threads);
	return b;
}
