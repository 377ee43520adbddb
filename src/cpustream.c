/* cpustream.c - see cpustream.h. */
#include "cpustream.h"
#include "cpusort.h"
#include "keys.h"
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


struct cpustream {
	const keys_spec *s;
	size_t n, R, isz;        /* records; bytes per record; bytes per item */
	int key_only;            /* items are the records, key bytes normalized in place (cpusort_whole_records), else entries */
	int ident;               /* key_only records that are their normalized keys (keys_inplace_identity) */
	uint8_t *recs;           /* the records in input order (a) */
	uint8_t *src, *dst;      /* items in input order, and the partition's destination */
	uint8_t *part, *spare;   /* items partitioned (dst, or src when nothing moved), and the other buffer */
	uint8_t *outbuf;         /* entries: sorted records are gathered here (b) */
	int ent_in_out;          /* entries made in b, partitioned into the scratch, and each
				  * bucket's second buffer its records' place in b
				  * (cpusort_entries_in_output) */
	int shift;               /* digit = (first two key bytes, big-endian) >> shift */
	int one_byte;            /* key-only records of one byte: no second byte to read */
	/* num (4 or 8, else 0): key-only records of a 4- or 8-byte key, aligned;
	 * their items are native integers (keys_native: the normalized key read
	 * big-endian) and the digit is their top `bits` bits, nshift = 8 num - bits */
	int num, nshift;
	keys_native kn;
	int pre;                 /* num for several keys covering the record: items are
				  * keys_word_enc's words, kn the identity */
	keys_word kw;
	uint8_t *ncnt;           /* num: the bucket sorts' counters, a slice per pool thread */
	tpool *tp;
	int bits;                /* partition bits */
	size_t nb;               /* buckets (1 << bits) */
	size_t *cnt;             /* [part * nb + bucket]: items counted, then next scatter slot */
	size_t *start;           /* [nb + 1]: first item of each bucket */
	/* the bucket sorts */
	size_t big;              /* larger buckets are sorted by all threads */
	int threads;
	int sorters;             /* pool threads that take buckets in a step (the others leave a core to the writer) */
	atomic_size_t next;      /* next bucket to take in this step */
	size_t seg_end;          /* this step takes buckets below it */
	atomic_int failed;       /* a write failed: stop sorting */
	double t0;               /* the start (util_now) */
	/* under mu: cpustream_stats' sums, and when the first write was queued */
	double bucket_s, handoff_s, first_out_s;
	/* under mu: which buckets are sorted and which are queued for writing */
	pthread_mutex_t mu;
	int mu_ok;               /* mu was initialized */
	unsigned char *done;     /* [nb] */
	unsigned char *where;    /* [nb] key-only: 0 = sorted records in part, 1 = in spare */
	size_t ready;            /* buckets below it are all sorted */
	size_t emitted;          /* buckets below it are all queued; the pending run starts here */
	size_t scan;             /* buckets below it are in the pending run (or queued) */
	size_t first;            /* the pending run's first non-empty bucket, when w >= 0 */
	int w;                   /* the pending run's buffer (where[]), -1 while it is empty */
	sink *out;
	int err;
	/* fed (cpustream_open): records counted as they arrived, at fbits bits,
	 * into one histogram per piece of `piece` records (pcnt[k]); at
	 * cpustream_close the pieces are grouped into the threads' parts, whose
	 * first records part_lo[] holds (NULL: util_split's parts) */
	int fed_mode, fbits, forced_bits;
	size_t cap, piece, fed, npieces, pcap;
	size_t **pcnt;
	size_t *part_lo;
};

static inline size_t digit(const struct cpustream *S, const uint8_t *k)
{
	unsigned v = (unsigned)k[0] << 8;
	if (!S->one_byte)
		v |= k[1];
	return v >> S->shift;
}

/* Most partition bits for s: 16, or 8 when the normalized key has one byte
 * (the digit's second byte is then not the key's: padding or payload). */
static int max_bits(const keys_spec *s)
{
	return s->key_width >= 2 ? CPUSTREAM_MAX_BITS : 8;
}

int cpustream_bits(const keys_spec *s, size_t n)
{
	size_t isz = cpusort_whole_records(s) ? s->record_size : cpusort_entry_size(s);
	int bits = CPUSTREAM_MIN_BITS, max = max_bits(s);
	while (bits < max && ((uint64_t)n * isz >> bits) > CPUSTREAM_BUCKET_BYTES)
		bits++;
	return bits;
}

/* ---- the partition -------------------------------------------------------- */

/* Records [lo, hi): normalize their items (key-only: in place; else into
 * entries) and count their digits (at the current bits) in c. */
static void count_range(struct cpustream *S, size_t *c, size_t lo, size_t hi)
{
	if (S->pre) { /* apart from the one-key loops below, which stay as tight as they were */
		keys_word_code(&S->kw, S->recs + lo * S->R, hi - lo, 0);
		for (size_t i = lo; i < hi; i++) {
			uint64_t x = S->num == 8 ? ((uint64_t *)S->recs)[i] : ((uint32_t *)S->recs)[i];
			c[x >> S->nshift]++;
		}
	} else if (S->num == 8) {
		uint64_t *v = (uint64_t *)S->recs;
		for (size_t i = lo; i < hi; i++) {
			uint64_t x = keys_native_enc64(&S->kn, v[i]);
			v[i] = x;
			c[x >> S->nshift]++;
		}
	} else if (S->num == 4) {
		uint32_t *v = (uint32_t *)S->recs;
		for (size_t i = lo; i < hi; i++) {
			uint32_t x = keys_native_enc32(&S->kn, v[i]);
			v[i] = x;
			c[x >> S->nshift]++;
		}
	} else if (S->key_only) {
		for (size_t i = lo; i < hi; i++) {
			uint8_t *r = S->recs + i * S->R;
			if (!S->ident)
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

/* Part t, whole. */
static void count_part(void *arg, int t, int nt)
{
	struct cpustream *S = arg;
	size_t lo, hi;
	util_split(S->n, t, nt, &lo, &hi);
	count_range(S, S->cnt + (size_t)t * S->nb, lo, hi);
}

void cpustream_count(cpustream *S, int part, size_t first, size_t count)
{
	if (S->n >= 2)
		count_range(S, S->cnt + (size_t)part * S->nb, first, first + count);
}

/* Part t's records: [lo, hi) (the fed parts, or util_split's). */
static void part_range(const struct cpustream *S, int t, int nt, size_t *lo, size_t *hi)
{
	if (S->part_lo) {
		*lo = S->part_lo[t];
		*hi = S->part_lo[t + 1];
	} else {
		util_split(S->n, t, nt, lo, hi);
	}
}

/* Items [lo, hi) of src to their slots in dst; isz is a constant where inlined. */
static inline void scatter_items(const struct cpustream *S, size_t *pos, size_t lo, size_t hi, size_t isz)
{
	const uint8_t *e = S->src + lo * isz;
	for (size_t i = lo; i < hi; i++, e += isz)
		memcpy(S->dst + pos[digit(S, e)]++ * isz, e, isz);
}

#if defined(__SSE2__)
#include <emmintrin.h>
/*
 * The scatter of native items through a line buffer per bucket: when a line
 * of the destination fills with this part's items it is written whole with
 * non-temporal stores, so the 2^bits destinations cost neither a
 * read-for-ownership nor a cache line each; the partial first and last
 * line of each (part, bucket) run, which other runs share, are written with
 * ordinary stores. Returns 0, or -1 when the line buffers cannot be had.
 */
#define SCATTER_NT(T, NAME)                                                                   \
	static int NAME(const struct cpustream *S, size_t *pos, size_t lo, size_t hi)         \
	{                                                                                     \
		enum { SLOTS = 64 / sizeof(T) };                                              \
		const T *v = (const T *)S->src;                                               \
		T *d = (T *)S->dst;                                                           \
		T(*line)[SLOTS] = util_alloc_aligned(S->nb * 64, 64);                         \
		uint8_t *fill = malloc(S->nb * 2);                                            \
		if (!line || !fill) {                                                         \
			free(line);                                                           \
			free(fill);                                                           \
			return -1;                                                            \
		}                                                                             \
		uint8_t *from = fill + S->nb; /* first slot of the line that is this run's */ \
		for (size_t b = 0; b < S->nb; b++) {                                          \
			size_t slot = ((uintptr_t)(d + pos[b]) & 63) / sizeof(T);             \
			fill[b] = from[b] = (uint8_t)slot;                                    \
			pos[b] -= slot; /* the line's first slot (wraps below 0 when dst is   \
					 * not 64-byte aligned: only pos + from is used then) */ \
		}                                                                             \
		for (size_t i = lo; i < hi; i++) {                                            \
			T x = v[i];                                                           \
			size_t b = x >> S->nshift;                                            \
			line[b][fill[b]++] = x;                                               \
			if (fill[b] == SLOTS) {                                               \
				if (from[b] == 0) {                                           \
					__m128i *q = (__m128i *)(d + pos[b]), *l = (__m128i *)line[b]; \
					_mm_stream_si128(q, l[0]);                            \
					_mm_stream_si128(q + 1, l[1]);                        \
					_mm_stream_si128(q + 2, l[2]);                        \
					_mm_stream_si128(q + 3, l[3]);                        \
				} else {                                                      \
					memcpy(d + (pos[b] + from[b]), line[b] + from[b],     \
					       (SLOTS - from[b]) * sizeof(T));                \
					from[b] = 0;                                          \
				}                                                             \
				pos[b] += SLOTS;                                              \
				fill[b] = 0;                                                  \
			}                                                                     \
		}                                                                             \
		for (size_t b = 0; b < S->nb; b++)                                            \
			if (fill[b] > from[b])                                                \
				memcpy(d + (pos[b] + from[b]), line[b] + from[b],             \
				       (size_t)(fill[b] - from[b]) * sizeof(T));              \
		_mm_sfence(); /* the streamed lines before the pool's join */                 \
		free(line);                                                                   \
		free(fill);                                                                   \
		return 0;                                                                     \
	}
SCATTER_NT(uint64_t, scatter_nt64)
SCATTER_NT(uint32_t, scatter_nt32)
#endif

/* Part t: its items, in input order, to their buckets (the slots counted for it). */
static void scatter_part(void *arg, int t, int nt)
{
	struct cpustream *S = arg;
	size_t lo, hi, *pos = S->cnt + (size_t)t * S->nb;
	part_range(S, t, nt, &lo, &hi);
#if defined(__SSE2__)
	/* native keys through line buffers and non-temporal stores: the
	 * scatter's writes do not read the destination lines into the cache */
	if (S->num == 8 && scatter_nt64(S, pos, lo, hi) == 0)
		return;
	if (S->num == 4 && scatter_nt32(S, pos, lo, hi) == 0)
		return;
#endif
	/* native items, item by item (no SSE2, or no room for the line buffers) */
#define SCATTER_NATIVE(T)                                          \
	do {                                                       \
		const T *v = (const T *)S->src;                    \
		T *d = (T *)S->dst;                                \
		for (size_t i = lo; i < hi; i++)                   \
			d[pos[v[i] >> S->nshift]++] = v[i];        \
	} while (0)
	if (S->num == 8) {
		SCATTER_NATIVE(uint64_t);
		return;
	}
	if (S->num == 4) {
		SCATTER_NATIVE(uint32_t);
		return;
	}
#undef SCATTER_NATIVE
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
 * one bucket holds every item, unless the items are entries in b
 * (ent_in_out), which the gather overwrites.
 */
static void partition(struct cpustream *S, tpool *tp, int counted, cpustream_stats *st)
{
	int nt = tpool_size(tp);
	if (!counted)
		tpool_run(tp, count_part, S);
	st->count_s = util_now() - S->t0;
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
	/* entries in b must leave it, which the gather fills */
	if (most == S->n && !S->ent_in_out) {
		S->part = S->src;
		S->spare = S->dst;
		return;
	}
	tpool_run(tp, scatter_part, S);
	S->part = S->dst;
	S->spare = S->src;
}

/* ---- the buckets ------------------------------------------------------------ */

static size_t bucket_len(const struct cpustream *S, size_t d)
{
	return S->start[d + 1] - S->start[d];
}

/*
 * A num bucket of m items at x (y: room for m): sorted on the bits below
 * the partition's and turned back into records, in x or y (returned): by
 * cpusort_native_bucket on one thread in the core's cache (counters: that
 * thread's, allocated with the stream), or, for a bucket too large for one
 * (skewed keys), by cpusort_native_par on all threads, whose passes skip
 * the digits that every item shares (all-equal keys: none moves).
 */
static uint8_t *sort_native(struct cpustream *S, uint8_t *x, uint8_t *y, size_t m, int threads, int t)
{
	/* one thread: its own slice; all threads: the whole (no step runs then) */
	if (threads == 1)
		return cpusort_native_bucket(&S->kn, x, y, m, S->nshift,
					     S->ncnt + (size_t)t * cpusort_native_counters(1, m));
	return cpusort_native_par(&S->kn, x, y, m, S->nshift, 1, threads, S->ncnt);
}

/*
 * Sort bucket d with `threads` threads (1: on pool thread t, with its
 * counters; all: t is 0); its records end up sorted in where[d]'s buffer
 * (or outbuf).
 */
static void sort_bucket(struct cpustream *S, size_t d, int threads, int t)
{
	size_t lo = S->start[d], m = bucket_len(S, d);
	S->where[d] = 0;
	if (m == 0)
		return;
	if (S->num) {
		uint8_t *x = S->part + lo * S->isz, *y = S->spare + lo * S->isz;
		uint8_t *res = sort_native(S, x, y, m, threads, t);
		if (S->pre)
			cpusort_word_code(&S->kw, res, m, 1, threads);
		S->where[d] = res != x;
		return;
	}
	if (S->key_only) {
		uint8_t *x = S->part + lo * S->isz, *y = S->spare + lo * S->isz;
		uint8_t *res = cpusort_radix_msd(x, y, m, S->R, S->s->key_width, threads);
		cpusort_code(S->s, res, m, 1, threads);
		S->where[d] = res != x;
		return;
	}
	/* the second buffer: the bucket's own records' place in b where the
	 * entries fit it (no other bucket's gather writes there), so -S
	 * holds one entry a record, not two */
	uint8_t *tmp = S->ent_in_out ? S->outbuf + lo * S->R : S->spare + lo * S->isz;
	const uint8_t *e = cpusort_sort_entries(S->s, S->recs, S->part + lo * S->isz, tmp, m, threads);
	cpusort_gather(S->s, S->recs, e, m, S->outbuf + lo * S->R, threads);
}

static uint8_t *sorted_at(const struct cpustream *S, size_t d)
{
	if (!S->key_only)
		return S->outbuf + S->start[d] * S->R;
	return (S->where[d] ? S->spare : S->part) + S->start[d] * S->R;
}

/* Under mu: queue the write of the pending run, buckets [emitted, upto). */
static void queue_run(struct cpustream *S, size_t upto)
{
	size_t m = S->start[upto] - S->start[S->emitted];
	if (m && !S->err) {
		if (S->first_out_s == 0)
			S->first_out_s = util_now() - S->t0;
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
static void emit(struct cpustream *S)
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

static void bucket_done(struct cpustream *S, size_t d)
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
	struct cpustream *S = arg;
	double sorting = 0, handing = 0;
	(void)nt;
	if (t >= S->sorters)
		return;
	for (;;) {
		size_t d = atomic_fetch_add(&S->next, 1);
		if (d >= S->seg_end || atomic_load(&S->failed))
			break;
		double t0 = util_now();
		sort_bucket(S, d, 1, t);
		double t1 = util_now();
		bucket_done(S, d);
		sorting += t1 - t0;
		handing += util_now() - t1;
	}
	pthread_mutex_lock(&S->mu);
	S->bucket_s += sorting;
	S->handoff_s += handing;
	pthread_mutex_unlock(&S->mu);
}

/*
 * The buckets in order: runs of small ones shared out among the pool's
 * threads (one bucket per thread at a time), each big one sorted by all.
 */
static void sort_buckets(struct cpustream *S, tpool *tp, cpustream_stats *st)
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
			double t0 = util_now();
			sort_bucket(S, e, S->threads, 0);
			double t1 = util_now();
			bucket_done(S, e);
			S->bucket_s += (t1 - t0) * S->threads;
			S->handoff_s += util_now() - t1;
			st->big++;
			e++;
		}
		d = e;
	}
}

static void stream_free(struct cpustream *S)
{
	if (S->mu_ok)
		pthread_mutex_destroy(&S->mu);
	free(S->cnt);
	free(S->start);
	free(S->done);
	free(S->where);
	free(S->ncnt);
	for (size_t k = 0; k < S->npieces; k++)
		free(S->pcnt[k]);
	free(S->pcnt);
	free(S->part_lo);
	free(S);
}

/*
 * S's fields that depend on n and the partition bits (bits: 0 for
 * cpustream_bits, capped at max_bits): the digit's shifts, the buckets'
 * counters and bookkeeping. Returns 0 or -ENOMEM.
 */
static int stream_layout(struct cpustream *S, size_t n, int bits)
{
	if (bits <= 0)
		bits = cpustream_bits(S->s, n);
	if (bits > max_bits(S->s))
		bits = max_bits(S->s);
	S->n = n;
	S->bits = bits;
	S->shift = 16 - bits;
	if (S->num)
		S->nshift = 8 * S->num - bits;
	S->nb = (size_t)1 << bits;
	S->big = n / (2 * (size_t)S->threads);
	if (S->big < BIG_MIN)
		S->big = BIG_MIN;
	S->cnt = calloc((size_t)S->threads * S->nb, sizeof *S->cnt);
	S->start = malloc((S->nb + 1) * sizeof *S->start);
	S->done = calloc(S->nb, 1);
	S->where = calloc(S->nb, 1);
	return S->cnt && S->start && S->done && S->where ? 0 : -ENOMEM;
}

/* A stream over the buffers (cap records of room), before its layout. */
static struct cpustream *stream_init(const keys_spec *s, uint8_t *a, uint8_t *b, size_t cap, void *scratch,
				     tpool *tp, sink *out)
{
	struct cpustream *S = calloc(1, sizeof *S);
	if (!S)
		return NULL;
	*S = (struct cpustream){ .s = s, .R = s->record_size, .key_only = cpusort_whole_records(s), .recs = a,
			      .out = out, .threads = tpool_size(tp), .tp = tp, .w = -1, .cap = cap };
	S->isz = S->key_only ? S->R : cpusort_entry_size(s);
	S->ent_in_out = cpusort_entries_in_output(s);
	S->src = S->key_only ? a : S->ent_in_out ? b : scratch;
	S->dst = S->key_only ? b : S->ent_in_out ? scratch : (uint8_t *)scratch + cap * S->isz;
	S->outbuf = b;
	S->one_byte = S->key_only && S->R < 2;
	S->ident = S->key_only && keys_inplace_identity(s);
	if (S->key_only && ((uintptr_t)a | (uintptr_t)b) % S->R == 0) {
		if (keys_native_init(s, &S->kn) == 0) {
			S->num = (int)S->kn.width;
		} else if (keys_word_init(s, &S->kw) == 0) {
			keys_native_identity(S->kw.width, &S->kn);
			S->num = (int)S->kw.width;
			S->pre = 1;
		}
	}
	/* With 8 or more threads one is left to the writer while buckets are
	 * sorted: the write is the stage that bounds a streamed chunk, and a
	 * writer that competes with every sorter for a core falls behind. */
	S->sorters = S->threads >= 8 ? S->threads - 1 : S->threads;
	if (S->num && !(S->ncnt = malloc(cpusort_native_counters(S->threads, cap)))) {
		stream_free(S);
		return NULL;
	}
	pthread_mutex_init(&S->mu, NULL);
	S->mu_ok = 1;
	atomic_init(&S->next, 0);
	atomic_init(&S->failed, 0);
	return S;
}

cpustream *cpustream_new(const keys_spec *s, uint8_t *a, uint8_t *b, size_t n, void *scratch, int bits, tpool *tp,
			sink *out)
{
	struct cpustream *S = stream_init(s, a, b, n, scratch, tp, out);
	if (S && stream_layout(S, n, bits)) {
		stream_free(S);
		return NULL;
	}
	return S;
}

/* ---- fed while read (an input of unknown size) ------------------------------ */

/* records per piece histogram: at least FEED_PIECE_BYTES of records, and at
 * most FEED_PIECES pieces in cap records (bounding the histograms' memory:
 * 2^16 counters of 8 bytes each) */
#define FEED_PIECE_BYTES ((size_t)32 << 20)
#define FEED_PIECES 64

cpustream *cpustream_open(const keys_spec *s, uint8_t *a, uint8_t *b, size_t cap, void *scratch, int bits,
			  size_t piece, tpool *tp, sink *out)
{
	struct cpustream *S = stream_init(s, a, b, cap, scratch, tp, out);
	if (!S)
		return NULL;
	S->fed_mode = 1;
	S->forced_bits = bits;
	/* counted at the most bits the key allows; cpustream_close folds the
	 * counts to the bits n asks for (the digit's leading bits) */
	S->fbits = max_bits(s);
	S->shift = 16 - S->fbits;
	if (S->num)
		S->nshift = 8 * S->num - S->fbits;
	S->piece = FEED_PIECE_BYTES / S->R;
	if (S->piece < cap / FEED_PIECES)
		S->piece = cap / FEED_PIECES;
	if (piece)
		S->piece = piece;
	if (S->piece == 0)
		S->piece = 1;
	return S;
}

int cpustream_feed(cpustream *S, size_t first, size_t count)
{
	if (first != S->fed || count > S->cap - first)
		return -EINVAL;
	size_t end = first + count, fb = (size_t)1 << S->fbits;
	while (S->fed < end) {
		size_t k = S->fed / S->piece;
		if (k >= S->npieces) {
			if (k >= S->pcap) {
				size_t nc = S->pcap ? 2 * S->pcap : 16;
				size_t **p = realloc(S->pcnt, nc * sizeof *p);
				if (!p)
					return -ENOMEM;
				S->pcnt = p;
				S->pcap = nc;
			}
			if (!(S->pcnt[k] = calloc(fb, sizeof **S->pcnt)))
				return -ENOMEM;
			S->npieces = k + 1;
		}
		size_t hi = (k + 1) * S->piece < end ? (k + 1) * S->piece : end;
		count_range(S, S->pcnt[k], S->fed, hi);
		S->fed = hi;
	}
	return 0;
}

/* Records [lo, hi) of a back to what was read (the normalization undone). */
static void restore(struct cpustream *S, size_t lo, size_t hi)
{
	if (S->num == 8) {
		uint64_t *v = (uint64_t *)S->recs;
		for (size_t i = lo; i < hi; i++)
			v[i] = keys_native_dec64(&S->kn, v[i]);
	} else if (S->num == 4) {
		uint32_t *v = (uint32_t *)S->recs;
		for (size_t i = lo; i < hi; i++)
			v[i] = keys_native_dec32(&S->kn, v[i]);
	}
	if (S->pre)
		keys_word_code(&S->kw, S->recs + lo * S->R, hi - lo, 1);
	else if (!S->num && S->key_only && !S->ident) {
		for (size_t i = lo; i < hi; i++)
			keys_decode_inplace(S->s, S->recs + i * S->R);
	}
	/* entries: the records were not changed */
}

int cpustream_close(cpustream *S, size_t n)
{
	if (!S->fed_mode || n != S->fed)
		return -EINVAL;
	if (n < 2) {
		restore(S, 0, n); /* cpustream_run writes 0 or 1 record as they are */
		return stream_layout(S, n, S->forced_bits);
	}
	if (stream_layout(S, n, S->forced_bits))
		return -ENOMEM;
	/* pieces to parts: each part the pieces that start in its share of n
	 * (util_split's), so the parts are contiguous and in input order */
	int nt = S->threads;
	if (!(S->part_lo = malloc(((size_t)nt + 1) * sizeof *S->part_lo)))
		return -ENOMEM;
	int fold = S->fbits - S->bits;
	size_t fb = (size_t)1 << S->fbits;
	int t = 0;
	S->part_lo[0] = 0;
	for (size_t k = 0; k < S->npieces; k++) {
		size_t lo = k * S->piece;
		while (t + 1 < nt) {
			size_t plo, phi;
			util_split(n, t + 1, nt, &plo, &phi);
			if (lo < plo)
				break;
			S->part_lo[++t] = lo;
		}
		size_t *c = S->cnt + (size_t)t * S->nb, *f = S->pcnt[k];
		for (size_t d = 0; d < fb; d++)
			c[d >> fold] += f[d];
		free(S->pcnt[k]);
		S->pcnt[k] = NULL;
	}
	while (t + 1 <= nt)
		S->part_lo[++t] = n;
	S->npieces = 0;
	return 0;
}

void cpustream_unfeed(cpustream *S)
{
	restore(S, 0, S->fed);
	stream_free(S);
}

int cpustream_run(cpustream *S, int counted, cpustream_stats *st)
{
	cpustream_stats dummy;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	st->bits = S->bits;
	sink *out = S->out;
	int rc;
	if (S->n < 2) {
		/* nothing to order (and nothing was normalized) */
		rc = S->n ? sink_put_async(out, S->recs, S->n) : 0;
		st->buckets = S->n;
		st->largest = S->n;
		rc = rc ? rc : sink_sync(out);
		stream_free(S);
		return rc;
	}
	S->t0 = util_now();
	partition(S, S->tp, counted, st);
	st->partition_s = util_now() - S->t0;
	for (size_t d = 0; d < S->nb; d++) {
		size_t m = bucket_len(S, d);
		st->buckets += m > 0;
		if (m > st->largest)
			st->largest = m;
	}
	sort_buckets(S, S->tp, st);
	st->sort_s = util_now() - S->t0;
	st->bucket_s = S->bucket_s;
	st->handoff_s = S->handoff_s;
	st->first_out_s = S->first_out_s;
	rc = sink_sync(out);
	rc = S->err ? S->err : rc;
	stream_free(S);
	return rc;
}

void cpustream_free(cpustream *S)
{
	if (S)
		stream_free(S);
}

int cpustream_sort(const keys_spec *s, uint8_t *a, uint8_t *b, size_t n, void *scratch, int bits, tpool *tp,
		   sink *out, cpustream_stats *st)
{
	cpustream *S = cpustream_new(s, a, b, n, scratch, bits, tp, out);
	return S ? cpustream_run(S, 0, st) : -ENOMEM;
}
