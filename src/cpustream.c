/* cpustream.c - see cpustream.h. */
#include "cpustream.h"
#include "cpusort.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* bytes of sorted records gathered before a write is queued, unless all are sorted */
#define WRITE_MIN ((size_t)4 << 20)
/* a bucket of more records than this (and than one thread's share) is sorted by all threads */
#define BIG_MIN ((size_t)1 << 16)

struct stream {
	const keys_spec *s;
	size_t n, R, isz;        /* records; bytes per record; bytes per item */
	int key_only;            /* items are the records (normalized in place), else entries */
	uint8_t *recs;           /* the records in input order (a) */
	uint8_t *src, *dst;      /* items in input order, and the partition's destination */
	uint8_t *part, *spare;   /* items partitioned (dst, or src when nothing moved), and the other buffer */
	uint8_t *outbuf;         /* entries: sorted records are gathered here (b) */
	int shift;               /* digit = (first two key bytes, big-endian) >> shift */
	int one_byte;            /* key-only records of one byte: no second byte to read */
	size_t nb;               /* buckets (1 << bits) */
	size_t *cnt;             /* [part * nb + bucket]: items counted, then next scatter slot */
	size_t *start;           /* [nb + 1]: first item of each bucket */
	/* the bucket sorts */
	size_t big;              /* larger buckets are sorted by all threads */
	int threads;
	atomic_size_t next;      /* next bucket to take in this step */
	size_t seg_end;          /* this step takes buckets below it */
	atomic_int failed;       /* a write failed: stop sorting */
	/* under mu: which buckets are sorted and which are queued for writing */
	pthread_mutex_t mu;
	unsigned char *done;     /* [nb] */
	unsigned char *where;    /* [nb] key-only: 0 = sorted records in part, 1 = in spare */
	size_t ready;            /* buckets below it are all sorted */
	size_t emitted;          /* buckets below it are all queued; the pending run starts here */
	size_t scan;             /* buckets below it are in the pending run (or queued) */
	size_t first;            /* the pending run's first non-empty bucket, when w >= 0 */
	int w;                   /* the pending run's buffer (where[]), -1 while it is empty */
	sink *out;
	int err;
};

static inline size_t digit(const struct stream *S, const uint8_t *k)
{
	unsigned v = (unsigned)k[0] << 8;
	if (!S->one_byte)
		v |= k[1];
	return v >> S->shift;
}

/* Most partition bits for s: 16, or 8 when the normalized key has one byte. */
static int max_bits(const keys_spec *s)
{
	uint32_t kb = cpusort_key_only(s) ? s->record_size : s->key_width;
	return kb >= 2 ? CPUSTREAM_MAX_BITS : 8;
}

int cpustream_bits(const keys_spec *s, size_t n)
{
	size_t isz = cpusort_key_only(s) ? s->record_size : cpusort_entry_size(s);
	int bits = CPUSTREAM_MIN_BITS, max = max_bits(s);
	while (bits < max && ((uint64_t)n * isz >> bits) > CPUSTREAM_BUCKET_BYTES)
		bits++;
	return bits;
}

/* ---- the partition -------------------------------------------------------- */

/* Part t: normalize its items (key-only: in place; else into entries) and count their digits. */
static void count_part(void *arg, int t, int nt)
{
	struct stream *S = arg;
	size_t lo, hi, *c = S->cnt + (size_t)t * S->nb;
	util_split(S->n, t, nt, &lo, &hi);
	memset(c, 0, S->nb * sizeof *c);
	if (S->key_only) {
		for (size_t i = lo; i < hi; i++) {
			uint8_t *r = S->recs + i * S->R;
			keys_encode_inplace(S->s, r);
			c[digit(S, r)]++;
		}
	} else {
		for (size_t i = lo; i < hi; i++) {
			uint8_t *e = S->src + i * S->isz;
			cpusort_make_entry(S->s, S->recs + i * S->R, (uint32_t)i, e);
			c[digit(S, e)]++;
		}
	}
}

/* Items [lo, hi) of src to their slots in dst; isz is a constant where inlined. */
static inline void scatter_items(const struct stream *S, size_t *pos, size_t lo, size_t hi, size_t isz)
{
	const uint8_t *e = S->src + lo * isz;
	for (size_t i = lo; i < hi; i++, e += isz)
		memcpy(S->dst + pos[digit(S, e)]++ * isz, e, isz);
}

/* Part t: its items, in input order, to their buckets (the slots counted for it). */
static void scatter_part(void *arg, int t, int nt)
{
	struct stream *S = arg;
	size_t lo, hi, *pos = S->cnt + (size_t)t * S->nb;
	util_split(S->n, t, nt, &lo, &hi);
	switch (S->isz) {
	case 4: scatter_items(S, pos, lo, hi, 4); break;
	case 8: scatter_items(S, pos, lo, hi, 8); break;
	case 12: scatter_items(S, pos, lo, hi, 12); break;
	case 16: scatter_items(S, pos, lo, hi, 16); break;
	case 20: scatter_items(S, pos, lo, hi, 20); break;
	default: scatter_items(S, pos, lo, hi, S->isz); break;
	}
}

/*
 * Counting sort of the items on their digit, stable: part t's items of a
 * bucket follow part t-1's. Sets start[], part and spare. Nothing moves when
 * one bucket holds every item.
 */
static void partition(struct stream *S, tpool *tp)
{
	int nt = tpool_size(tp);
	tpool_run(tp, count_part, S);
	size_t sum = 0, most = 0;
	for (size_t d = 0; d < S->nb; d++) {
		S->start[d] = sum;
		for (int t = 0; t < nt; t++) {
			size_t c = S->cnt[(size_t)t * S->nb + d];
			S->cnt[(size_t)t * S->nb + d] = sum;
			sum += c;
		}
		if (sum - S->start[d] > most)
			most = sum - S->start[d];
	}
	S->start[S->nb] = sum;
	if (most == S->n) {
		S->part = S->src;
		S->spare = S->dst;
		return;
	}
	tpool_run(tp, scatter_part, S);
	S->part = S->dst;
	S->spare = S->src;
}

/* ---- the buckets ------------------------------------------------------------ */

static size_t bucket_len(const struct stream *S, size_t d)
{
	return S->start[d + 1] - S->start[d];
}

/* Sort bucket d with `threads` threads; its records end up sorted in where[d]'s buffer (or outbuf). */
static void sort_bucket(struct stream *S, size_t d, int threads)
{
	size_t lo = S->start[d], m = bucket_len(S, d);
	S->where[d] = 0;
	if (m == 0)
		return;
	if (S->key_only) {
		uint8_t *x = S->part + lo * S->isz, *y = S->spare + lo * S->isz;
		uint8_t *res = cpusort_radix(x, y, m, S->R, (uint32_t)S->R, threads);
		cpusort_code(S->s, res, m, 1, threads);
		S->where[d] = res != x;
		return;
	}
	const uint8_t *e = cpusort_sort_entries(S->s, S->recs, S->part + lo * S->isz, S->spare + lo * S->isz, m,
						threads);
	cpusort_gather(S->s, S->recs, e, m, S->outbuf + lo * S->R, threads);
}

static uint8_t *sorted_at(const struct stream *S, size_t d)
{
	if (!S->key_only)
		return S->outbuf + S->start[d] * S->R;
	return (S->where[d] ? S->spare : S->part) + S->start[d] * S->R;
}

/* Under mu: queue the write of the pending run, buckets [emitted, upto). */
static void queue_run(struct stream *S, size_t upto)
{
	size_t m = S->start[upto] - S->start[S->emitted];
	if (m && !S->err) {
		int rc = sink_put_async(S->out, sorted_at(S, S->first), m);
		if (rc) {
			S->err = rc;
			atomic_store(&S->failed, 1);
		}
	}
	S->emitted = upto;
	S->w = -1;
}

/*
 * Under mu: the sorted buckets [scan, ready) join the pending run, which is
 * written when the next bucket lies in the other buffer, when it reaches
 * WRITE_MIN bytes, or when every bucket is sorted. A run is buckets whose
 * records lie side by side in one buffer (empty buckets go with any run).
 */
static void emit(struct stream *S)
{
	for (; S->scan < S->ready; S->scan++) {
		size_t d = S->scan;
		if (!bucket_len(S, d))
			continue;
		if (S->w >= 0 && S->where[d] != S->w)
			queue_run(S, d);
		if (S->w < 0) {
			S->w = S->where[d];
			S->first = d;
		}
		if ((S->start[d + 1] - S->start[S->emitted]) * S->R >= WRITE_MIN)
			queue_run(S, d + 1);
	}
	if (S->ready == S->nb && S->emitted < S->nb)
		queue_run(S, S->nb);
}

static void bucket_done(struct stream *S, size_t d)
{
	pthread_mutex_lock(&S->mu);
	S->done[d] = 1;
	while (S->ready < S->nb && S->done[S->ready])
		S->ready++;
	emit(S);
	pthread_mutex_unlock(&S->mu);
}

/* A step: every thread takes the next bucket below seg_end until none is left. */
static void sort_step(void *arg, int t, int nt)
{
	struct stream *S = arg;
	(void)t;
	(void)nt;
	for (;;) {
		size_t d = atomic_fetch_add(&S->next, 1);
		if (d >= S->seg_end || atomic_load(&S->failed))
			return;
		sort_bucket(S, d, 1);
		bucket_done(S, d);
	}
}

/*
 * The buckets in order: runs of small ones shared out among the pool's
 * threads (one bucket per thread at a time), each big one sorted by all.
 */
static void sort_buckets(struct stream *S, tpool *tp, cpustream_stats *st)
{
	size_t d = 0;
	while (d < S->nb && !atomic_load(&S->failed)) {
		size_t e = d;
		while (e < S->nb && bucket_len(S, e) <= S->big)
			e++;
		if (e > d) {
			atomic_store(&S->next, d);
			S->seg_end = e;
			tpool_run(tp, sort_step, S);
		}
		if (e < S->nb && !atomic_load(&S->failed)) {
			sort_bucket(S, e, S->threads);
			bucket_done(S, e);
			st->big++;
			e++;
		}
		d = e;
	}
}

static void stream_free(struct stream *S)
{
	free(S->cnt);
	free(S->start);
	free(S->done);
	free(S->where);
}

int cpustream_sort(const keys_spec *s, uint8_t *a, uint8_t *b, size_t n, void *scratch, int bits, tpool *tp,
		   sink *out, cpustream_stats *st)
{
	cpustream_stats dummy;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	double t0 = util_now();
	if (bits <= 0)
		bits = cpustream_bits(s, n);
	if (bits > max_bits(s))
		bits = max_bits(s);
	st->bits = bits;
	if (n < 2) {
		/* nothing to order */
		int rc = n ? sink_put_async(out, a, n) : 0;
		st->buckets = n;
		st->largest = n;
		return rc ? rc : sink_sync(out);
	}
	struct stream S = { .s = s, .n = n, .R = s->record_size, .key_only = cpusort_key_only(s), .recs = a,
			    .out = out, .threads = tpool_size(tp) };
	S.isz = S.key_only ? S.R : cpusort_entry_size(s);
	S.src = S.key_only ? a : scratch;
	S.dst = S.key_only ? b : (uint8_t *)scratch + n * S.isz;
	S.outbuf = b;
	S.one_byte = S.key_only && S.R < 2;
	S.shift = 16 - bits;
	S.nb = (size_t)1 << bits;
	S.big = n / (2 * (size_t)S.threads);
	if (S.big < BIG_MIN)
		S.big = BIG_MIN;
	S.cnt = malloc((size_t)S.threads * S.nb * sizeof *S.cnt);
	S.start = malloc((S.nb + 1) * sizeof *S.start);
	S.done = calloc(S.nb, 1);
	S.where = calloc(S.nb, 1);
	S.w = -1;
	if (!S.cnt || !S.start || !S.done || !S.where) {
		stream_free(&S);
		return -ENOMEM;
	}
	pthread_mutex_init(&S.mu, NULL);
	atomic_init(&S.next, 0);
	atomic_init(&S.failed, 0);
	partition(&S, tp);
	st->partition_s = util_now() - t0;
	for (size_t d = 0; d < S.nb; d++) {
		size_t m = bucket_len(&S, d);
		st->buckets += m > 0;
		if (m > st->largest)
			st->largest = m;
	}
	sort_buckets(&S, tp, st);
	st->sort_s = util_now() - t0;
	int rc = sink_sync(out);
	pthread_mutex_destroy(&S.mu);
	stream_free(&S);
	return S.err ? S.err : rc;
}
