/* text_merge_par.c - the k-way merge of lines on every thread, in rounds (text_merge_par.h). */
#define _GNU_SOURCE /* qsort_r */
#include "text_merge_par.h"
#include "progress.h"
#include "../io/io_fault.h"
#include "text_cmp.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SLICE_LINES 1024 /* fewest lines worth a slice of their own */
#define SLICE_SAMPLES 4  /* samples a slice: slices are taken as threads free up, so rough sizes do */
/* Most slices a round, per thread: 16 merged 4 GiB of CSV in 8 runs in
 * 1.66-1.83 s where 4 took 1.93-2.49 and 1 2.56 (16 threads; a round's
 * last slices wait for the slowest thread, and smaller ones wait less;
 * bench/results/h100-text-merge-mapped-2026-11-27.md). */
#define SLICES_PER_THREAD 16
#define PF_ENTRY 8 /* a source's line entry prefetched this many lines ahead of its head */
#define PF_LINE 4  /* and its line's bytes this many (its entry fetched 4 lines before) */

/* A line as the merge orders it: (prefix, bytes, source, position). */
typedef struct mline {
	const text_ahead_line *e;
	const uint8_t *base;
	int src;
	size_t pos;
	double weight;   /* a sample: the lines of its source it stands for */
} mline;

/* 1 when line x of source a goes before line y of source b (a != b): prefix, text_cmp, source number. */
static inline int goes_before(const text_spec *s, const text_ahead_line *x, const uint8_t *xb, int a,
			      const text_ahead_line *y, const uint8_t *yb, int b, uint64_t *ties)
{
	if (x->ph != y->ph)
		return x->ph < y->ph;
	if (x->pl != y->pl)
		return x->pl < y->pl;
	++*ties;
	int d = text_cmp(s, xb + x->off, x->len, yb + y->off, y->len);
	return d ? d < 0 : a < b;
}

/* The lines of window w in [0, hi) that go before line y of source b (!= a, w's source). */
static size_t count_before(const text_spec *s, const text_window *w, int a, size_t hi, const mline *y, uint64_t *ties)
{
	size_t lo = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (goes_before(s, &w->l[mid], w->base, a, y->e, y->base, y->src, ties))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Bytes, delimiters counted, of lines [lo, hi) of a window. */
static inline size_t range_bytes(const text_window *w, size_t lo, size_t hi)
{
	return hi > lo ? (size_t)(w->l[hi - 1].cum + w->l[hi - 1].len + 1 - w->l[lo].cum) : 0;
}

/* What a slice's merge left: its lines at out + off, and what the round
 * settles at its start (-u, --verify) once every slice is done. */
typedef struct slice_out {
	size_t off, bytes;
	uint64_t lines;
	const uint8_t *first, *last;
	size_t first_len, last_len;
	uint64_t vsum;   /* --verify: the hashes of its lines but the first */
	uint64_t bad;    /* --verify: the first of its lines (from 1) out of order after the one before it; 0: none */
	uint64_t ties;
} slice_out;

/* A slice's sources as leaves of a tree of losers (text_merge.c's, over cursors). */
typedef struct cursor {
	const text_ahead_line *l, *end;
	const uint8_t *base;
} cursor;

typedef struct stree {
	const text_spec *s;
	cursor *c;
	int n, K;
	int *t;
	uint64_t ties;
} stree;

static int sbefore(stree *q, int a, int b)
{
	const cursor *x = a < q->n ? &q->c[a] : NULL, *y = b < q->n ? &q->c[b] : NULL;
	int xe = !x || x->l == x->end, ye = !y || y->l == y->end;
	if (xe || ye)
		return xe && ye ? a < b : ye;
	return goes_before(q->s, x->l, x->base, a, y->l, y->base, b, &q->ties);
}

static int sbuild(stree *q, int node)
{
	if (node >= q->K)
		return node - q->K;
	int a = sbuild(q, 2 * node), b = sbuild(q, 2 * node + 1);
	if (sbefore(q, a, b)) {
		q->t[node] = b;
		return a;
	}
	q->t[node] = a;
	return b;
}

typedef struct seg {
	size_t off, bytes;
	uint64_t lines;
} seg;

/* A round's output: its buffer and the stretches of it to write, in order. */
typedef struct obuf {
	uint8_t *p;
	size_t cap;
	seg *seg;
	int nseg, segcap;
	uint64_t in;     /* the round's lines' bytes, -u's dropped ones counted (--progress) */
} obuf;

typedef struct par {
	const text_spec *s;
	const text_spec *adj;     /* -u's or --verify's spec: each line compared with the one before it */
	int unique, verify;
	int k, P;
	text_window *win;
	size_t *cnt;              /* lines of each window in this round */
	int nsl, nsp;             /* slices and splitters this round */
	mline *spl;               /* splitter j bounds slice j - 1 from above (j = 1..) */
	size_t *cut;              /* (nsl + 1) rows of k: slice j is [cut[j][i], cut[j + 1][i]) of source i */
	slice_out *so;
	uint8_t *out;
	atomic_int next;          /* the next splitter or slice to take */
	int *tt;                  /* each thread's tree nodes (K of them) */
	cursor *tc;               /* each thread's cursors (k of them) */
	int *from;                /* greedy_slice's cursors' sources */
	int K;
	uint64_t *pties;          /* each thread's full comparisons in cuts */

	/* the writer thread */
	text_writer *w;
	obuf b[2];
	int full[2], head, fill, stop, wrc, started;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} par;

/* Whether a slice keeps `line`, after prev (NULL: its first): -u drops
 * a line equal to the one before; --verify marks the first out of order. */
static inline int keeps(const par *p, slice_out *o, const uint8_t *prev, size_t prev_len, const uint8_t *line, size_t len)
{
	if (!prev || !p->adj)
		return 1;
	int d = text_cmp(p->adj, prev, prev_len, line, len);
	if (p->unique && !d)
		return 0;
	if (p->verify && d > 0 && !o->bad)
		o->bad = o->lines + 1;
	return 1;
}

/* A line kept: counted (its hash, its place as the first) and copied to dst, delimiter and all. */
static inline void put_line(const par *p, slice_out *o, uint8_t *dst, const uint8_t *line, size_t len)
{
	if (!o->lines)
		o->first = line, o->first_len = len;
	else if (p->verify)
		o->vsum += text_line_hash(line, len);
	memcpy(dst, line, len + 1); /* the delimiter follows every line read ahead */
	o->lines++;
}

/* Cursor wi advanced: its matches replayed up to the root. */
static inline void sreplay(stree *q, int wi)
{
	for (int node = (wi + q->K) / 2; node >= 1; node /= 2)
		if (sbefore(q, q->t[node], wi)) {
			int l = q->t[node];
			q->t[node] = wi;
			wi = l;
		}
	q->t[0] = wi;
}

/* Merge slice j of the round into p->out + so[j].off on thread t's scratch. */
static void merge_slice(par *p, int j, int t)
{
	slice_out *o = &p->so[j];
	stree q = { p->s, p->tc + (size_t)t * p->k, 0, 1, p->tt + (size_t)t * p->K, 0 };
	const size_t *lo = p->cut + (size_t)j * p->k, *hi = lo + p->k;
	for (int i = 0; i < p->k; i++)
		if (hi[i] > lo[i])
			q.c[q.n++] = (cursor){ p->win[i].l + lo[i], p->win[i].l + hi[i], p->win[i].base };
	while (q.K < q.n)
		q.K *= 2;
	o->lines = o->bytes = 0;
	o->vsum = o->bad = 0;
	o->first = o->last = NULL;
	uint8_t *dst = p->out + o->off;
	if (!q.n) {
		o->ties = 0;
		return;
	}
	q.t[0] = sbuild(&q, 1);
	const uint8_t *prev = NULL;
	size_t prev_len = 0;
	for (;;) {
		int wi = q.t[0];
		cursor *x = &q.c[wi];
		if (x->l == x->end)
			break;
		const uint8_t *line = x->base + x->l->off;
		size_t len = x->l->len;
		if (keeps(p, o, prev, prev_len, line, len)) {
			put_line(p, o, dst, line, len);
			dst += len + 1;
			prev = line, prev_len = len;
		}
		x->l++;
		/* each source is a stream of line entries and of line bytes, and
		 * a slice reads k of each at once: more than the hardware
		 * prefetcher follows (the CPU merge's tree prefetches its
		 * windows for the same reason, DESIGN.md section 5) */
		if (x->end - x->l > PF_ENTRY)
			__builtin_prefetch(x->l + PF_ENTRY);
		if (x->end - x->l > PF_LINE) {
			const uint8_t *nl = x->base + x->l[PF_LINE].off;
			__builtin_prefetch(nl);
			__builtin_prefetch(nl + x->l[PF_LINE].len);
		}
		sreplay(&q, wi);
	}
	o->last = prev, o->last_len = prev_len;
	o->bytes = (size_t)(dst - (p->out + o->off));
	o->ties = q.ties;
}

/*
 * A round of sort(1)'s merge, on this thread, for windows of which one is
 * out of order: the least head line out, again and again (sort.c's
 * mergefps), until a window is used up or about `limit` bytes are out.
 * Rounds cut at a bound are this merge only while every window is in
 * order: a source's next line is then no earlier than its last, so none
 * still unread goes before the bound; after a line that goes before the
 * one above it, sort(1) puts out lines of other sources that a round would
 * have left for later. Into p->out, `room` bytes; each source's lines
 * taken into row 1 of p->cut, what went out into p->so[0]. Returns 0, or
 * the bytes of the first line to keep when it does not fit in room
 * (nothing taken; the caller makes room and calls again).
 */
static size_t greedy_slice(par *p, size_t room, size_t limit)
{
	slice_out *o = &p->so[0];
	stree q = { p->s, p->tc, 0, 1, p->tt, 0 };
	int *from = p->from;
	for (int i = 0; i < p->k; i++)
		if (p->win[i].n) {
			from[q.n] = i;
			q.c[q.n++] = (cursor){ p->win[i].l, p->win[i].l + p->win[i].n, p->win[i].base };
		}
	while (q.K < q.n)
		q.K *= 2;
	memset(o, 0, sizeof *o);
	const uint8_t *prev = NULL;
	size_t prev_len = 0, need = 0;
	q.t[0] = sbuild(&q, 1);
	for (;;) {
		int wi = q.t[0];
		cursor *x = &q.c[wi];
		const uint8_t *line = x->base + x->l->off;
		size_t len = x->l->len;
		if (keeps(p, o, prev, prev_len, line, len)) {
			if (o->bytes + len + 1 > room) {
				need = o->lines ? 0 : len + 1;
				break;
			}
			put_line(p, o, p->out + o->bytes, line, len);
			o->bytes += len + 1;
			prev = line, prev_len = len;
		}
		if (++x->l == x->end || o->bytes >= limit)
			break;
		sreplay(&q, wi);
	}
	o->last = prev, o->last_len = prev_len;
	o->ties = q.ties;
	size_t *row = p->cut + (size_t)p->k;
	memset(row, 0, (size_t)p->k * sizeof *row);
	for (int c = 0; c < q.n && !need; c++)
		row[from[c]] = (size_t)(q.c[c].l - p->win[from[c]].l);
	return need;
}

static void slices_step(void *arg, int t, int n)
{
	(void)n;
	par *p = arg;
	for (int j; (j = atomic_fetch_add(&p->next, 1)) < p->nsl;)
		merge_slice(p, j, t);
}

/* Row j of the cuts: where splitter j falls in every source's round lines. */
static void cut_row(par *p, int j, int t)
{
	const mline *y = &p->spl[j];
	size_t *row = p->cut + (size_t)j * p->k;
	for (int i = 0; i < p->k; i++)
		row[i] = i == y->src ? y->pos + 1 : count_before(p->s, &p->win[i], i, p->cnt[i], y, &p->pties[t]);
}

static void cuts_step(void *arg, int t, int n)
{
	(void)n;
	par *p = arg;
	for (int j; (j = atomic_fetch_add(&p->next, 1) + 1) <= p->nsp;)
		cut_row(p, j, t);
}

/* qsort_r's order of samples: the merge's, then position within a source. */
static int sample_cmp(const void *pa, const void *pb, void *arg)
{
	const mline *x = pa, *y = pb;
	uint64_t ties = 0;
	if (x->src == y->src)
		return x->pos < y->pos ? -1 : x->pos > y->pos;
	return goes_before(arg, x->e, x->base, x->src, y->e, y->base, y->src, &ties) ? -1 : 1;
}

static void *writer_main(void *arg)
{
	par *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->full[p->head] && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->full[p->head])
			break;
		obuf *b = &p->b[p->head];
		int rc = p->wrc;
		pthread_mutex_unlock(&p->mu);
		for (int i = 0; i < b->nseg && !rc; i++)
			rc = text_writer_bytes(p->w, b->p + b->seg[i].off, b->seg[i].bytes, b->seg[i].lines);
		pthread_mutex_lock(&p->mu);
		if (rc && !p->wrc)
			p->wrc = rc;
		p->full[p->head] = 0;
		p->head ^= 1;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The round buffer to fill next, once the writer is done with it; 0, or the writer's error. */
static int take_buffer(par *p, obuf **out)
{
	int rc;
	pthread_mutex_lock(&p->mu);
	while (p->full[p->fill] && !p->wrc)
		pthread_cond_wait(&p->cv, &p->mu);
	rc = p->wrc;
	pthread_mutex_unlock(&p->mu);
	*out = &p->b[p->fill];
	return rc;
}

/* Buffer b grown to cap bytes, what it held dropped (mapped apart, so
 * that freeing returns it: util_map_resize). 0, or -ENOMEM. */
static int grow_buffer(obuf *b, size_t cap)
{
	util_map_free(b->p, b->cap);
	b->cap = cap;
	if (!(b->p = util_map_resize(NULL, 0, b->cap))) {
		b->cap = 0;
		return -ENOMEM;
	}
	return 0;
}

/*
 * Where the round's `want` bytes go, p->out set: the mapped output dst
 * from dlen (dcap bytes in all; -EFBIG when they would pass it, a
 * caller's error; the test build's write faults reach it here), with *bp
 * a buffer that only counts segments; else the round buffer the writer
 * has freed, grown to hold them. 0, or -errno.
 */
static int round_out(par *p, uint8_t *dst, size_t dcap, size_t dlen, size_t want, obuf **bp)
{
	int rc;
	if (dst) {
		size_t w = want;
		if (io_fault_rw(IO_FAULT_WRITE, &w))
			return -errno;
		if (want > dcap - dlen)
			return -EFBIG;
		*bp = &p->b[0];
		p->out = dst + dlen;
		return 0;
	}
	if ((rc = take_buffer(p, bp)) || (want > (*bp)->cap && (rc = grow_buffer(*bp, want + want / 4))))
		return rc;
	p->out = (*bp)->p;
	return 0;
}

/* Hand the filled buffer to the writer (or write it here when there is no writer thread). */
static int give_buffer(par *p)
{
	obuf *b = &p->b[p->fill];
	if (!p->started) {
		for (int i = 0; i < b->nseg; i++) {
			int rc = text_writer_bytes(p->w, b->p + b->seg[i].off, b->seg[i].bytes, b->seg[i].lines);
			if (rc)
				return rc;
		}
		return 0;
	}
	pthread_mutex_lock(&p->mu);
	p->full[p->fill] = 1;
	p->fill ^= 1;
	pthread_cond_broadcast(&p->cv);
	int rc = p->wrc;
	pthread_mutex_unlock(&p->mu);
	return rc;
}

/* Wait for the writer to write what it was given, and stop it; its error or 0. */
static int stop_writer(par *p)
{
	if (!p->started)
		return 0;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->tid, NULL);
	return p->wrc;
}

static int add_seg(obuf *b, size_t off, size_t bytes, uint64_t lines)
{
	if (!lines)
		return 0;
	if (b->nseg && b->seg[b->nseg - 1].off + b->seg[b->nseg - 1].bytes == off) {
		b->seg[b->nseg - 1].bytes += bytes;
		b->seg[b->nseg - 1].lines += lines;
		return 0;
	}
	if (b->nseg == b->segcap) {
		int cap = b->segcap ? 2 * b->segcap : 64;
		seg *s = realloc(b->seg, (size_t)cap * sizeof *s);
		if (!s)
			return -ENOMEM;
		b->seg = s, b->segcap = cap;
	}
	b->seg[b->nseg++] = (seg){ off, bytes, lines };
	return 0;
}

/* The line before the next round's first (-u, --verify): a copy, since its block moves on. */
typedef struct lastline {
	uint8_t *p;
	size_t len, cap;
	int have;
} lastline;

static int keep_line(lastline *l, const uint8_t *line, size_t len)
{
	if (len > l->cap || !l->p) { /* an empty line's copy has an address too */
		size_t cap = 2 * len + 64;
		uint8_t *q = realloc(l->p, cap);
		if (!q)
			return -ENOMEM;
		l->p = q, l->cap = cap;
	}
	memcpy(l->p, line, len);
	l->len = len;
	l->have = 1;
	return 0;
}

/*
 * Choose the round's splitters among samples of the windows' round lines:
 * p->nsl - 1 of them, or p->nsl when the round is cut short at `take`
 * lines of the `lines` there are. Returns the number chosen, or -ENOMEM.
 */
static int choose_splitters(par *p, uint64_t lines, uint64_t take, mline **samp, size_t *scap)
{
	size_t want = (size_t)p->nsl * SLICE_SAMPLES, ns = 0;
	if (*scap < want + (size_t)p->k) {
		mline *m = realloc(*samp, (want + (size_t)p->k) * sizeof *m);
		if (!m)
			return -ENOMEM;
		*samp = m, *scap = want + (size_t)p->k;
	}
	mline *sm = *samp;
	for (int i = 0; i < p->k; i++) {
		size_t c = p->cnt[i];
		if (!c)
			continue;
		size_t m = (size_t)((double)want * (double)c / (double)lines + 0.5);
		m = m < 1 ? 1 : m > c ? c : m;
		for (size_t q = 0; q < m; q++) {
			size_t pos = (2 * q + 1) * c / (2 * m);
			sm[ns++] = (mline){ &p->win[i].l[pos], p->win[i].base, i, pos, (double)c / (double)m };
		}
	}
	qsort_r(sm, ns, sizeof *sm, sample_cmp, (void *)p->s);
	int nsp = take < lines ? p->nsl : p->nsl - 1;
	double acc = 0;
	size_t q = 0;
	for (int j = 1; j <= nsp; j++) {
		double target = (double)take * j / p->nsl;
		while (q + 1 < ns && acc + sm[q].weight / 2 < target)
			acc += sm[q++].weight;
		p->spl[j] = sm[q];
	}
	return nsp;
}

size_t text_merge_par_out_bytes(size_t max_round)
{
	return 2 * (max_round + max_round / 4); /* each grown to a round and a quarter (below) */
}

/* p's state for k sources on pool's threads, writing to w. 0 or -ENOMEM
 * (par_free frees what was allocated). */
static int par_start(par *p, const text_spec *s, int k, tpool *pool, text_writer *w)
{
	memset(p, 0, sizeof *p);
	p->s = s;
	p->unique = w->unique != NULL;
	p->verify = w->verify != NULL;
	p->adj = w->unique ? w->unique : w->verify;
	p->k = k;
	p->P = pool ? tpool_size(pool) : 1;
	p->w = w;
	p->K = 1;
	while (p->K < k)
		p->K *= 2;
	int maxsl = SLICES_PER_THREAD * p->P;
	p->win = calloc((size_t)k, sizeof *p->win);
	p->cnt = calloc((size_t)k, sizeof *p->cnt);
	p->spl = calloc((size_t)maxsl + 1, sizeof *p->spl);
	p->cut = calloc((size_t)(maxsl + 1) * (size_t)k, sizeof *p->cut);
	p->so = calloc((size_t)maxsl, sizeof *p->so);
	p->tt = calloc((size_t)p->P * (size_t)p->K, sizeof *p->tt);
	p->tc = calloc((size_t)p->P * (size_t)k, sizeof *p->tc);
	p->from = calloc((size_t)k, sizeof *p->from);
	p->pties = calloc((size_t)p->P, sizeof *p->pties);
	if (!p->win || !p->cnt || !p->spl || !p->cut || !p->so || !p->tt || !p->tc || !p->from || !p->pties)
		return -ENOMEM;
	return 0;
}

/* Free p's state, its full comparisons added to *ties. */
static void par_free(par *p, uint64_t *ties)
{
	for (int t = 0; p->pties && t < p->P; t++)
		*ties += p->pties[t];
	for (int i = 0; i < 2; i++) {
		util_map_free(p->b[i].p, p->b[i].cap);
		free(p->b[i].seg);
	}
	free(p->win);
	free(p->cnt);
	free(p->spl);
	free(p->cut);
	free(p->so);
	free(p->tt);
	free(p->tc);
	free(p->from);
	free(p->pties);
}

/*
 * Every source's window for the next round (text_ahead_window), and *m:
 * the source whose window's last line goes first of the windows' last
 * lines, which bounds the round; -1 when every source has ended. Returns
 * 0, or text_ahead_window's error with *bad = its source.
 */
static int load_windows(par *p, text_source *src, text_ahead *a, int *m, uint64_t *ties, int *bad)
{
	*m = -1;
	for (int i = 0; i < p->k; i++) {
		p->cnt[i] = 0;
		if (src[i].done) {
			p->win[i].n = 0;
			continue;
		}
		int r = text_ahead_window(a, i, &p->win[i]);
		if (r < 0) {
			*bad = i;
			return r;
		}
		if (!r)
			continue;
		const text_window *x = &p->win[i], *y = *m >= 0 ? &p->win[*m] : NULL;
		if (!y || goes_before(p->s, &x->l[x->n - 1], x->base, i, &y->l[y->n - 1], y->base, *m, ties))
			*m = i;
	}
	return 0;
}

/* Where a round's lines go: its buffer (or the mapped output) and how
 * many bytes its slices hold. */
typedef struct round_dst {
	uint8_t *dst;   /* the mapped output, or NULL: the writer's buffers */
	size_t dcap, dlen;
	size_t max_round;
	obuf *b;
	size_t total;
} round_dst;

/*
 * A round of sort(1)'s merge, for windows of which one is out of order:
 * one slice, the least head line out first (greedy_slice) until the
 * round's room is full. Returns 0, or -errno with *bad (-2: no memory,
 * -1: the output).
 */
static int greedy_round(par *p, round_dst *r, text_merge_stats *st, double t1, int *bad)
{
	int k = p->k, rc;
	p->nsl = 1;
	memset(p->cut, 0, (size_t)k * sizeof *p->cut);
	/* a round's bytes of room (the mapped output has all it needs) */
	size_t left = r->dst ? r->dcap - r->dlen : 0;
	if ((rc = round_out(p, r->dst, r->dcap, r->dlen, r->dst && left < r->max_round ? left : r->max_round, &r->b))) {
		*bad = rc == -ENOMEM ? -2 : -1;
		return rc;
	}
	double t3 = util_now();
	st->cut_s += t3 - t1;
	size_t room = r->dst ? left : r->b->cap, need;
	while ((need = greedy_slice(p, room, r->max_round))) {
		/* the long line that comes first: a buffer of its size and a round */
		if (r->dst || (rc = grow_buffer(r->b, need + r->max_round))) {
			*bad = r->dst ? -1 : -2;
			return r->dst ? -EFBIG : rc;
		}
		p->out = r->b->p;
		room = r->b->cap;
	}
	r->total = p->so[0].bytes;
	r->b->nseg = 0;
	r->b->in = 0;
	for (int i = 0; i < k; i++)
		r->b->in += range_bytes(&p->win[i], 0, p->cut[(size_t)k + i]);
	st->slice_s += util_now() - t3;
	return 0;
}

/*
 * A round of windows in order: every line that goes before the bound
 * (source m's last line), at most about max_round bytes of them, cut at
 * sampled splitters into slices that pool's threads merge at once.
 * samp, scap: the samples' buffer, kept from round to round. Returns 0,
 * or -errno with *bad (-2: no memory, -1: the output).
 */
static int sliced_round(par *p, int m, tpool *pool, mline **samp, size_t *scap, round_dst *r, text_merge_stats *st,
			double t1, int *bad)
{
	int k = p->k, maxsl = SLICES_PER_THREAD * p->P, rc;
	mline bound = { &p->win[m].l[p->win[m].n - 1], p->win[m].base, m, p->win[m].n - 1, 0 };
	uint64_t lines = 0, bytes = 0;
	for (int i = 0; i < k; i++) {
		if (!p->win[i].n)
			continue;
		p->cnt[i] = i == m ? p->win[i].n : count_before(p->s, &p->win[i], i, p->win[i].n, &bound, &st->ties);
		lines += p->cnt[i];
		bytes += range_bytes(&p->win[i], 0, p->cnt[i]);
	}
	/* the slices, and where each source's round lines are cut among them */
	uint64_t take = lines;
	if (bytes > r->max_round)
		take = (uint64_t)((double)lines * (double)r->max_round / (double)bytes) + 1;
	p->nsl = take / SLICE_LINES < (uint64_t)maxsl ? (int)(take / SLICE_LINES) : maxsl;
	if (p->nsl < 1)
		p->nsl = 1;
	int nsp = 0;
	if (p->nsl > 1 || take < lines) {
		nsp = choose_splitters(p, lines, take, samp, scap);
		if (nsp < 0) {
			*bad = -2;
			return -ENOMEM;
		}
		p->nsp = nsp;
		atomic_store(&p->next, 0);
		if (pool && nsp > 1)
			tpool_run(pool, cuts_step, p);
		else
			for (int j = 1; j <= nsp; j++)
				cut_row(p, j, 0);
	}
	memset(p->cut, 0, (size_t)k * sizeof *p->cut);
	if (nsp < p->nsl)
		memcpy(p->cut + (size_t)p->nsl * k, p->cnt, (size_t)k * sizeof *p->cut);
	/* the windows are in order, but should a comparison not be a
	 * strict weak order the binary searches could cut a source
	 * backwards: each slice starts where the one before ends, so
	 * that every line goes out once */
	for (int j = 1; j <= p->nsl; j++)
		for (int i = 0; i < k; i++) {
			size_t *c = p->cut + (size_t)j * k + i;
			if (*c < c[-(ptrdiff_t)k])
				*c = c[-(ptrdiff_t)k];
		}
	r->total = 0;
	for (int j = 0; j < p->nsl; j++) {
		p->so[j].off = r->total;
		for (int i = 0; i < k; i++)
			r->total += range_bytes(&p->win[i], p->cut[(size_t)j * k + i], p->cut[(size_t)(j + 1) * k + i]);
	}
	double t2 = util_now();
	st->cut_s += t2 - t1;
	if ((rc = round_out(p, r->dst, r->dcap, r->dlen, r->total, &r->b))) {
		*bad = rc == -ENOMEM ? -2 : -1;
		return rc;
	}
	r->b->nseg = 0;
	r->b->in = r->total;
	atomic_store(&p->next, 0);
	double t3 = util_now();
	st->out_wait_s += t3 - t2;
	if (pool && p->nsl > 1)
		tpool_run(pool, slices_step, p);
	else
		slices_step(p, 0, 1);
	st->slice_s += util_now() - t3;
	return 0;
}

/*
 * The round's slices settled in order: each one's first line against the
 * line before it (-u drops it when equal, --verify marks it when out of
 * order), --verify's sum, and what is kept added to b as segments.
 * *written: the output's lines so far; last: the line before the next
 * round's first. 0 or -ENOMEM.
 */
static int settle_slices(par *p, obuf *b, lastline *last, uint64_t *written, uint64_t *ties)
{
	text_writer *w = p->w;
	int rc;
	for (int j = 0; j < p->nsl; j++) {
		slice_out *o = &p->so[j];
		*ties += o->ties;
		if (!o->lines)
			continue;
		int drop = 0;
		if (last->have && p->adj) {
			int d = text_cmp(p->adj, last->p, last->len, o->first, o->first_len);
			if (p->unique && !d)
				drop = 1;
			else if (p->verify && d > 0 && !w->vbad)
				w->vbad = *written + 1;
		}
		if (p->verify)
			w->vsum += o->vsum + (drop ? 0 : text_line_hash(o->first, o->first_len));
		if (p->verify && o->bad && !w->vbad)
			w->vbad = *written + o->bad - (uint64_t)drop;
		size_t skip = drop ? o->first_len + 1 : 0;
		if ((rc = add_seg(b, o->off + skip, o->bytes - skip, o->lines - (uint64_t)drop)))
			return rc;
		*written += o->lines - (uint64_t)drop;
		if (p->adj && (rc = keep_line(last, o->last, o->last_len)))
			return rc;
		last->have = 1;
	}
	return 0;
}

int text_merge_par(const text_spec *s, text_source *src, int k, text_ahead *a, text_writer *w, uint8_t *dst,
		   size_t dcap, tpool *pool, size_t max_round, text_merge_stats *st, int *bad)
{
	uint64_t *ties = &st->ties;
	par p;
	mline *samp = NULL;
	size_t scap = 0;
	lastline last = { 0 };
	uint64_t prog = 0; /* --progress: bytes merged, not yet reported */
	*bad = -2;
	int rc = par_start(&p, s, k, pool, w);
	if (rc)
		goto out;
	if (w->have_last && (p.unique || p.verify) && keep_line(&last, w->last, w->last_len)) {
		rc = -ENOMEM;
		goto out;
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	/* else: written on this thread */
	p.started = !dst && pthread_create(&p.tid, NULL, writer_main, &p) == 0;
	round_dst r = { .dst = dst, .dcap = dcap, .max_round = max_round };
	uint64_t written = w->lines;
	for (;;) {
		int m;
		double t0 = util_now();
		if ((rc = load_windows(&p, src, a, &m, ties, bad)))
			goto out;
		double t1 = util_now();
		st->wait_s += t1 - t0;
		if (m < 0)
			break;
		st->rounds++;
		/* a window out of order: a round of sort(1)'s merge (greedy_slice) */
		int greedy = 0;
		for (int i = 0; i < k; i++)
			greedy |= p.win[i].n && !p.win[i].sorted;
		rc = greedy ? greedy_round(&p, &r, st, t1, bad) : sliced_round(&p, m, pool, &samp, &scap, &r, st, t1, bad);
		if (rc || (rc = settle_slices(&p, r.b, &last, &written, ties)))
			goto out;
		for (int i = 0; i < k; i++)
			text_ahead_take(a, i, p.cut[(size_t)p.nsl * k + i]);
		/* --progress: counted here, not in w->prog_pending, which the
		 * writer thread's flushes take */
		if (w->prog) {
			w->prog_done += r.b->in;
			prog += r.b->in;
			if (prog >= ((uint64_t)4 << 20)) {
				progress_add(w->prog, prog);
				prog = 0;
			}
		}
		if (dst) {
			/* no -u, no --verify here: one stretch, all of it */
			r.dlen += r.total;
			w->bytes += r.total;
			for (int i = 0; i < r.b->nseg; i++)
				w->lines += r.b->seg[i].lines;
		} else if ((rc = give_buffer(&p))) {
			*bad = -1;
			goto out;
		}
	}
out:
	if (p.started) {
		int wrc = stop_writer(&p);
		if (!rc && wrc)
			rc = wrc, *bad = -1;
		pthread_mutex_destroy(&p.mu);
		pthread_cond_destroy(&p.cv);
	}
	if (prog)
		progress_add(w->prog, prog);
	par_free(&p, ties);
	free(last.p);
	free(samp);
	return rc;
}
