/* cpusort_msd.c - stable MSD radix sort of byte-string items (cpusort_radix_msd, cpusort.h). */
#define _GNU_SOURCE /* qsort_r */
#include "cpusort.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * Why MSD for text prefixes and records' (prefix, index) entries: an LSD
 * sort pays a pass over every item for every key byte that is not the same
 * in all of them (12 for a text prefix or a u64 and an i32 key), while
 * strings are told apart by their first few bytes and random keys by their
 * first two or three. MSD splits on the
 * first byte that differs, and each bucket then needs only the bytes its
 * items do not share; below the top levels a bucket fits the cache, so the
 * deeper levels cost little memory traffic. A counting scatter keeps equal
 * digits in input order and the insertion sort of small buckets is stable,
 * so the sort is stable.
 */

#define MSD_SMALL 48         /* fewer items: insertion sort (no 256 counters to clear and sum) */
#define MSD_PAR_MIN 65536    /* fewer items: one thread */
#define MSD_MAX_THREADS 64

/*
 * The insertion sort's keys as at most two big-endian words, so that a
 * comparison is two integer compares, not a memcmp call: bytes [0, 8), then
 * bytes [nbytes - 8, nbytes), which overlap the first word where nbytes <
 * 16 (when the first words are equal so are the overlapping bytes, and the
 * second word is decided by bytes [8, nbytes)); nbytes <= 8: the first word
 * alone, its bytes past the key shifted out. Bytes before a bucket's byte
 * are equal in all its items, so comparing whole keys orders a bucket as
 * comparing its remaining bytes does. Needs stride >= 8 and nbytes <= 16.
 */
static inline uint64_t be64_at(const uint8_t *e)
{
	uint64_t x;
	memcpy(&x, e, 8);
	return __builtin_bswap64(x);
}

static inline __attribute__((always_inline)) int key_less(const uint8_t *x, const uint8_t *y, uint32_t nbytes)
{
	if (nbytes <= 8) {
		const int sh = 8 * (8 - (int)nbytes);
		return (be64_at(x) >> sh) < (be64_at(y) >> sh);
	}
	const uint64_t xh = be64_at(x), yh = be64_at(y);
	if (xh != yh)
		return xh < yh;
	return be64_at(x + nbytes - 8) < be64_at(y + nbytes - 8);
}

/* Stable insertion sort of n items of `stride` bytes by bytes [0, nbytes), as
 * words; always inlined, so that a constant stride makes every copy a few
 * moves. */
static inline __attribute__((always_inline)) void ins_sort_words(uint8_t *a, size_t n, size_t stride, uint32_t nbytes)
{
	uint8_t x[64];
	for (size_t i = 1; i < n; i++) {
		if (!key_less(a + i * stride, a + (i - 1) * stride, nbytes))
			continue;
		memcpy(x, a + i * stride, stride);
		size_t k = i;
		do {
			memcpy(a + k * stride, a + (k - 1) * stride, stride);
			k--;
		} while (k > 0 && key_less(x, a + (k - 1) * stride, nbytes));
		memcpy(a + k * stride, x, stride);
	}
}

/* Stable insertion sort of n items by bytes [from, nbytes). */
static void ins_sort(uint8_t *a, size_t n, size_t stride, uint32_t from, uint32_t nbytes)
{
	if (stride >= 8 && nbytes <= 16) {
		/* the strides of text prefixes (8, 16) and of records' entries
		 * and key-only records (8-24) */
		switch (stride) {
		case 8: ins_sort_words(a, n, 8, nbytes); return;
		case 12: ins_sort_words(a, n, 12, nbytes); return;
		case 16: ins_sort_words(a, n, 16, nbytes); return;
		case 20: ins_sort_words(a, n, 20, nbytes); return;
		case 24: ins_sort_words(a, n, 24, nbytes); return;
		default: ins_sort_words(a, n, stride, nbytes); return;
		}
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

/*
 * The parallel part: rounds over a frontier of large segments (each one a
 * bucket of items equal before its byte). A round counts every segment's
 * byte over slices, scatters every segment stably, and turns the
 * resulting buckets into the next frontier (still large) or tasks (small
 * enough for one thread). All of a round's segments share its threads, so
 * an alphabet of 26 letters does not leave 16 threads waiting on 26
 * buckets one at a time; the tasks then go to the threads largest first.
 */
typedef struct seg {
	uint8_t *src, *tmp;
	size_t n;
	uint32_t byte;
	int to_src;
} seg;

typedef struct segs {
	seg *v;
	size_t n, cap;
} segs;

/* Queue x on s; when there is no memory for that, sort it here (slower, never wrong). */
static void push_or_sort(segs *s, seg x, size_t stride, uint32_t nbytes)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		seg *v = realloc(s->v, cap * sizeof *v);
		if (!v) {
			msd_seq(x.src, x.tmp, x.n, stride, x.byte, nbytes, x.to_src);
			return;
		}
		s->v = v, s->cap = cap;
	}
	s->v[s->n++] = x;
}

/*
 * A round's count and scatter cut each segment into slices (about
 * UTIL_SLICES_PER_THREAD a thread, none under MSD_SLICE_MIN items) that threads take as
 * they come free, not one fixed share each: a chunk sorted while the
 * chunked path's reader, spill writer and the kernel's writeback share the
 * cores otherwise waits at every round for the thread that lost its core
 * (cpusort.c's native_msd measured it: bench/results/h200-cpu-chunk-sort-2026-11-29.md).
 */
#define MSD_SLICE_MIN 65536

typedef struct mround {
	const seg *f;       /* the frontier */
	size_t nf, stride;
	uint32_t nbytes;
	int nt;
	size_t *soff;       /* [nf + 1]: segment s's slices are soff[s] .. soff[s + 1] - 1 */
	const uint8_t *live; /* [nf]: the scatter skips a segment that is 0 here */
	size_t (*hist)[256]; /* [slice]: counts, then scatter positions */
	const seg *tasks;
	size_t ntasks;
	size_t next;        /* the next slice or task a thread takes (atomic) */
} mround;

/* Slice k of round R: its segment (*s) and item range [*lo, *hi). */
static void rnd_slice(const mround *R, size_t k, size_t *s, size_t *lo, size_t *hi)
{
	size_t a = 0, b = R->nf; /* the last segment whose first slice is <= k */
	while (b - a > 1) {
		size_t m = a + (b - a) / 2;
		if (R->soff[m] <= k)
			a = m;
		else
			b = m;
	}
	*s = a;
	util_split(R->f[a].n, (int)(k - R->soff[a]), (int)(R->soff[a + 1] - R->soff[a]), lo, hi);
}

static void rnd_count(void *p, int t, int nt)
{
	mround *R = p;
	(void)t, (void)nt;
	for (size_t k; (k = __atomic_fetch_add(&R->next, 1, __ATOMIC_RELAXED)) < R->soff[R->nf];) {
		size_t s, lo, hi, *h = R->hist[k];
		rnd_slice(R, k, &s, &lo, &hi);
		const seg *g = &R->f[s];
		memset(h, 0, 256 * sizeof *h);
		const uint8_t *e = g->src + lo * R->stride + g->byte;
		for (size_t i = lo; i < hi; i++, e += R->stride)
			h[*e]++;
	}
}

static void rnd_scatter(void *p, int t, int nt)
{
	mround *R = p;
	(void)t, (void)nt;
	for (size_t k; (k = __atomic_fetch_add(&R->next, 1, __ATOMIC_RELAXED)) < R->soff[R->nf];) {
		size_t s, lo, hi;
		rnd_slice(R, k, &s, &lo, &hi);
		if (R->live[s])
			scatter(R->f[s].src, R->f[s].tmp, lo, hi, R->stride, R->f[s].byte, R->hist[k]);
	}
}

static void rnd_tasks(void *p, int t, int nt)
{
	mround *R = p;
	(void)t, (void)nt;
	for (;;) {
		size_t k = __atomic_fetch_add(&R->next, 1, __ATOMIC_RELAXED);
		if (k >= R->ntasks)
			return;
		const seg *g = &R->tasks[k];
		msd_seq(g->src, g->tmp, g->n, R->stride, g->byte, R->nbytes, g->to_src);
	}
}

static int by_size_desc(const void *x, const void *y)
{
	size_t a = ((const seg *)x)->n, b = ((const seg *)y)->n;
	return (a < b) - (a > b);
}

/* The top levels of the segments of frontier f (emptied) on nt threads: rounds until every
 * bucket left is a task of at most big items, queued on *tasks (the caller sorts them).
 * Without memory for its bookkeeping a segment is sorted on this thread. */
static void msd_top(segs *f, size_t stride, uint32_t nbytes, int nt, size_t big, segs *tasks)
{
	segs next = { 0 };
	while (f->n) {
		mround R = { .f = f->v, .nf = f->n, .stride = stride, .nbytes = nbytes, .nt = nt };
		size_t *soff = malloc((f->n + 1) * sizeof *soff);
		uint8_t *live = malloc(f->n);
		if (soff) {
			soff[0] = 0;
			for (size_t s = 0; s < f->n; s++) {
				size_t ns = f->v[s].n / MSD_SLICE_MIN, most = (size_t)nt * UTIL_SLICES_PER_THREAD;
				soff[s + 1] = soff[s] + (ns < 1 ? 1 : ns > most ? most : ns);
			}
		}
		R.soff = soff;
		R.live = live;
		R.hist = soff ? malloc(soff[f->n] * sizeof *R.hist) : NULL;
		if (!R.hist || !live) {
			for (size_t s = 0; s < f->n; s++)
				msd_seq(f->v[s].src, f->v[s].tmp, f->v[s].n, stride, f->v[s].byte, nbytes, f->v[s].to_src);
			f->n = 0;
			free(R.hist);
			free(soff);
			free(live);
			break;
		}
		util_par_run(nt, rnd_count, &R);
		/* a segment whose byte is the same in every item moves to its next byte (counted next round) */
		for (size_t s = 0; s < f->n; s++) {
			seg *g = &f->v[s];
			size_t c[256] = { 0 };
			for (size_t k = soff[s]; k < soff[s + 1]; k++)
				for (int d = 0; d < 256; d++)
					c[d] += R.hist[k][d];
			live[s] = single_digit(c, g->n) < 0;
			if (live[s]) {
				size_t sum = 0;
				for (int d = 0; d < 256; d++)
					for (size_t k = soff[s]; k < soff[s + 1]; k++) {
						size_t x = R.hist[k][d];
						R.hist[k][d] = sum;
						sum += x;
					}
			} else if (g->byte + 1 < nbytes) {
				seg x = *g;
				x.byte++;
				push_or_sort(&next, x, stride, nbytes);
			} else if (!g->to_src) { /* equal in every byte: in order already */
				memcpy(g->tmp, g->src, g->n * stride);
			}
		}
		R.next = 0;
		util_par_run(nt, rnd_scatter, &R);
		for (size_t s = 0; s < f->n; s++) {
			const seg *g = &f->v[s];
			if (!live[s])
				continue;
			/* after the scatter the last slice's position for digit d is the end of bucket d */
			size_t lo = 0;
			for (int d = 0; d < 256; d++) {
				size_t hi = R.hist[soff[s + 1] - 1][d];
				if (hi > lo) {
					seg x = { g->tmp + lo * stride, g->src + lo * stride, hi - lo, g->byte + 1, !g->to_src };
					push_or_sort(x.byte >= nbytes || x.n <= big ? tasks : &next, x, stride, nbytes);
				}
				lo = hi;
			}
		}
		free(R.hist);
		free(soff);
		free(live);
		segs t = *f;
		*f = next;
		next = t;
		next.n = 0;
	}
	free(next.v);
}

/* Sort the tasks t[0, n) on nt threads, largest first. */
static void run_tasks(seg *t, size_t n, size_t stride, uint32_t nbytes, int nt)
{
	if (n > 1)
		qsort(t, n, sizeof *t, by_size_desc);
	mround R = { .stride = stride, .nbytes = nbytes, .nt = nt, .tasks = t, .ntasks = n };
	util_par_run(nt, rnd_tasks, &R);
}

/* Where task x's sorted items end up, as an item index of a (the result is always in a). */
static size_t task_at(const seg *x, const uint8_t *a, size_t stride)
{
	return (size_t)((x->to_src ? x->src : x->tmp) - a) / stride;
}

typedef struct place_ctx {
	const uint8_t *a;
	size_t stride;
} place_ctx;

static int by_place(const void *x, const void *y, void *arg)
{
	const place_ctx *c = arg;
	size_t p = task_at(x, c->a, c->stride), q = task_at(y, c->a, c->stride);
	return (p > q) - (p < q);
}

#define MSD_WAVES 16 /* cpusort_radix_msd_parts: the sorted parts it hands over, about */

int cpusort_radix_msd_parts(uint8_t *a, uint8_t *b, size_t n, size_t stride, uint32_t nbytes, int threads,
			    int (*done)(void *arg, size_t lo, size_t hi), void *arg)
{
	int nt = threads < 1 ? 1 : threads > MSD_MAX_THREADS ? MSD_MAX_THREADS : threads;
	if (n < MSD_PAR_MIN || nt == 1 || nbytes == 0) {
		msd_seq(a, b, n, stride, 0, nbytes, 1);
		return done && n ? done(arg, 0, n) : 0;
	}
	/* a task of at most a quarter of a thread's share keeps the threads busy
	 * to the end; one part gets about 1/MSD_WAVES of the items, so tasks are
	 * made smaller for the threads to share each part's */
	size_t big = n / (size_t)nt / (done ? MSD_WAVES : 4);
	if (big < MSD_PAR_MIN)
		big = MSD_PAR_MIN;
	segs f = { 0 }, tasks = { 0 };
	push_or_sort(&f, (seg){ a, b, n, 0, 1 }, stride, nbytes);
	msd_top(&f, stride, nbytes, nt, big, &tasks);
	free(f.v);
	int rc = 0;
	if (!done) {
		run_tasks(tasks.v, tasks.n, stride, nbytes, nt);
	} else {
		/* tasks in the order of their places; the items between two tasks
		 * (buckets equal in every byte) are in place already. A part ends
		 * where a task starts: every task is a bucket of its own key
		 * bytes, so no two equal items are ever split */
		place_ctx pc = { a, stride };
		if (tasks.n > 1)
			qsort_r(tasks.v, tasks.n, sizeof *tasks.v, by_place, &pc);
		size_t want = n / MSD_WAVES, lo = 0;
		for (size_t i = 0; i < tasks.n && !rc;) {
			size_t e = i, hi;
			do
				e++;
			while (e < tasks.n && task_at(&tasks.v[e], a, stride) - lo < want);
			hi = e < tasks.n ? task_at(&tasks.v[e], a, stride) : n;
			run_tasks(tasks.v + i, e - i, stride, nbytes, nt);
			rc = done(arg, lo, hi);
			lo = hi, i = e;
		}
		if (!rc && lo < n)
			rc = done(arg, lo, n);
	}
	free(tasks.v);
	return rc;
}

uint8_t *cpusort_radix_msd(uint8_t *a, uint8_t *b, size_t n, size_t stride, uint32_t nbytes, int threads)
{
	cpusort_radix_msd_parts(a, b, n, stride, nbytes, threads, NULL, NULL);
	return a;
}
