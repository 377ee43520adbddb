/* text_gather.c - a sorted chunk's lines out in parallel batches (text_gather.h). */
#include "text_gather.h"
#include "text_cmp.h"
#include "text_par.h"
#include "util.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define GATHER_LINES ((size_t)1 << 16)   /* lines a batch */
#define GATHER_MAPPED_BATCHES 8         /* batches of a gather into a mapped output */
#define GATHER_PREFETCH 16                /* lines ahead whose bytes a copy prefetches */
#define GATHER_PARTS 64                   /* most threads */
#define GATHER_RING_BYTES ((size_t)256 << 20) /* bytes gathered ahead of the writer without room given, about */
#define GATHER_RING_THREAD ((size_t)16 << 20) /* and a thread's share of them */

typedef struct slot {
	uint8_t *buf;
	size_t cap, n;
	uint64_t lines;
} slot;

struct text_gather {
	const text_chunk *c;
	text_writer *w;
	tpool *pool;
	int np;                            /* threads of a batch's copy */
	/* the batch being gathered: ord[lo, lo + n) */
	const uint32_t *ord;
	size_t lo, n;
	size_t batch;                      /* most lines a batch (not into a mapped output) */
	int parts;                         /* the batch's parts; a step's threads past them idle */
	uint8_t *buf;
	size_t off[GATHER_PARTS + 1];      /* each part's bytes, then its offset in buf */
	/* the ring the writer thread takes batches from, in order, and the
	 * buffers it has written (reused most recent first, so that a ring
	 * deeper than the writer ever falls behind costs no memory) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	slot *ring, *spare, one;           /* one: the batch of a write without the writer thread */
	int depth, head, count, nspare, done, rc, async;
	pthread_t tid;
	uint8_t *dst;                      /* a mapped output: batches copied into dst[dlen, dcap) */
	size_t dcap, dlen;
	/* -u's filter and --verify's check (the writer's): each line compared
	 * with the one before it in the order given, which orders the same
	 * against the next line as the last one kept (-u drops only lines
	 * equal to it), so every part of a batch is filtered at once */
	const text_spec *adj;              /* -u's or --verify's spec; NULL: neither */
	int unique, verify;
	uint8_t *keep;                     /* the batch's lines: 1 kept */
	size_t keepcap;
	const uint8_t *prev;               /* the line before the batch; NULL: none */
	size_t prev_len;
	uint64_t given;                    /* lines kept so far, with the writer's before (--verify's line numbers) */
	uint64_t lines[GATHER_PARTS];      /* each part's lines kept */
	uint64_t vsum[GATHER_PARTS];       /* --verify: each part's kept lines' hashes */
	uint64_t bad[GATHER_PARTS];        /* --verify: each part's first line out of order (from 1, of its kept); 0: none */
	const uint32_t *pord;              /* -u: the order whose lines have prefixes precs[k * prs, + pw) */
	const uint8_t *precs;
	size_t prs, pw;
};

/* A line's bytes with its delimiter: the chunk keeps one after every line. */
static inline size_t span(const text_chunk *c, uint32_t i)
{
	return (size_t)(c->start[i + 1] - c->start[i]);
}

/* Part p's lines through -u's filter and --verify's check: keep flags, bytes and counts. */
static void part_filter(text_gather *g, int p, size_t lo, size_t hi)
{
	const text_chunk *c = g->c;
	size_t bytes = 0;
	uint64_t kept = 0, vsum = 0, bad = 0;
	const uint8_t *prev = g->prev;
	size_t prev_len = g->prev_len;
	if (lo > 0) {
		uint32_t i = g->ord[g->lo + lo - 1];
		prev = c->buf + c->start[i], prev_len = span(c, i) - 1;
	}
	for (size_t k = g->lo + lo, end = g->lo + hi; k < end; k++) {
		if (k + 2 * GATHER_PREFETCH < end)
			__builtin_prefetch(&c->start[g->ord[k + 2 * GATHER_PREFETCH]]);
		if (k + GATHER_PREFETCH < end)
			__builtin_prefetch(c->buf + c->start[g->ord[k + GATHER_PREFETCH]]);
		uint32_t i = g->ord[k];
		const uint8_t *line = c->buf + c->start[i];
		size_t len = span(c, i) - 1;
		int keep = 1;
		size_t at = g->precs ? (size_t)(&g->ord[k] - g->pord) : 0;
		if (prev && at && memcmp(g->precs + (at - 1) * g->prs, g->precs + at * g->prs, g->pw))
			prev = NULL; /* different prefixes: different lines, in order; the chunk's first
				      * line (at 0) still meets the writer's last in full */
		if (prev) {
			int d = text_cmp(g->adj, prev, prev_len, line, len);
			if (g->unique && !d)
				keep = 0;
			else if (g->verify && d > 0 && !bad)
				bad = kept + 1;
		}
		g->keep[k - g->lo] = (uint8_t)keep;
		if (keep) {
			bytes += len + 1;
			kept++;
			if (g->verify)
				vsum += text_line_hash(line, len);
		}
		prev = line, prev_len = len;
	}
	g->off[p] = bytes;
	g->lines[p] = kept;
	g->vsum[p] = vsum;
	g->bad[p] = bad;
}

static void part_size(void *arg, int p, int np)
{
	text_gather *g = arg;
	size_t lo, hi, bytes = 0;
	(void)np;
	if (p >= g->parts)
		return;
	util_split(g->n, p, g->parts, &lo, &hi);
	if (g->adj) {
		part_filter(g, p, lo, hi);
		return;
	}
	for (size_t k = g->lo + lo, end = g->lo + hi; k < end; k++) {
		if (k + 2 * GATHER_PREFETCH < end)
			__builtin_prefetch(&g->c->start[g->ord[k + 2 * GATHER_PREFETCH]]);
		bytes += span(g->c, g->ord[k]);
	}
	g->off[p] = bytes;
	g->lines[p] = hi - lo;
}

static void part_copy(void *arg, int p, int np)
{
	text_gather *g = arg;
	size_t lo, hi;
	(void)np;
	if (p >= g->parts)
		return;
	util_split(g->n, p, g->parts, &lo, &hi);
	uint8_t *dst = g->buf + g->off[p];
	/* each line is two cache misses (its offset, its bytes) at random
	 * places: fetched ahead, so that a thread waits on many at once
	 * (10 GiB on 16 threads: 2.0 -> 1.65 s, h200-outmap-2026-11-26.md) */
	for (size_t k = g->lo + lo, end = g->lo + hi; k < end; k++) {
		if (k + 2 * GATHER_PREFETCH < end)
			__builtin_prefetch(&g->c->start[g->ord[k + 2 * GATHER_PREFETCH]]);
		if (k + GATHER_PREFETCH < end)
			__builtin_prefetch(g->c->buf + g->c->start[g->ord[k + GATHER_PREFETCH]]);
		if (g->adj && !g->keep[k - g->lo])
			continue;
		uint32_t i = g->ord[k];
		size_t len = span(g->c, i);
		memcpy(dst, g->c->buf + g->c->start[i], len);
		dst += len;
	}
}

/* After a batch's sizes: its lines kept in all, --verify's sum and first
 * line out of order taken into w, the batch's last line remembered. */
static uint64_t batch_done(text_gather *g)
{
	uint64_t kept = 0;
	for (int p = 0; p < g->parts; p++) {
		if (g->verify) {
			if (g->bad[p] && !g->w->vbad)
				g->w->vbad = g->given + kept + g->bad[p];
			g->w->vsum += g->vsum[p];
		}
		kept += g->lines[p];
	}
	g->given += kept;
	if (g->n) {
		uint32_t i = g->ord[g->lo + g->n - 1];
		g->prev = g->c->buf + g->c->start[i], g->prev_len = span(g->c, i) - 1;
	}
	return kept;
}

/* The writer thread: the ring's batches in order, until the end is handed over. */
static void *writer_main(void *arg)
{
	text_gather *g = arg;
	int tail = 0;
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->count && !g->done)
			pthread_cond_wait(&g->cv, &g->mu);
		if (!g->count)
			break;
		slot *s = &g->ring[tail];
		int failed = g->rc;
		pthread_mutex_unlock(&g->mu);
		int rc = failed ? 0 : text_writer_bytes(g->w, s->buf, s->n, s->lines);
		pthread_mutex_lock(&g->mu);
		if (rc && !g->rc)
			g->rc = rc;
		g->spare[g->nspare++] = *s;
		s->buf = NULL;
		tail = (tail + 1) % g->depth;
		g->count--;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* text_gather_begin, with the writer thread and its ring when ring_on is 1,
 * a ring of two batches when it is 2 (the chunk is sorted: each batch is
 * gathered by every thread while the writer writes the one before, and a
 * deeper ring would only hold memory beyond -S). */
static int gather_new(text_gather **out, const text_chunk *c, text_writer *w, tpool *pool, size_t room, int ring_on)
{
	text_gather *g = calloc(1, sizeof *g);
	if (!(*out = g))
		return -ENOMEM;
	g->c = c, g->w = w, g->pool = pool;
	g->unique = w->unique != NULL;
	g->verify = w->verify != NULL;
	g->adj = w->unique ? w->unique : w->verify;
	g->given = w->lines;
	if (g->adj && w->have_last)
		g->prev = w->last, g->prev_len = w->last_len;
	int threads = pool ? tpool_size(pool) : 1;
	g->np = threads > GATHER_PARTS ? GATHER_PARTS : threads;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	/* the ring lets the writer go on while the threads sort the next part
	 * (text_sort_chunk_parts); a batch is GATHER_LINES lines of the
	 * chunk's mean length. The writer is the slowest stage, so a ring that
	 * can hold what the sort gets ahead of it keeps the writer busy from
	 * the first part to the last: room the caller can spare, up to the
	 * chunk; without it GATHER_RING_THREAD a thread, GATHER_RING_BYTES at
	 * most */
	size_t bytes = c->n ? (size_t)(c->start[c->n] - c->start[0]) : 0, batch = c->n ? bytes / c->n * GATHER_LINES + 1 : 1;
	size_t ring = (size_t)g->np * GATHER_RING_THREAD;
	ring = ring < GATHER_RING_BYTES ? ring : GATHER_RING_BYTES;
	if (room > ring)
		ring = room < bytes ? room : bytes;
	size_t depth = ring_on == 2 ? 2 : ring / batch;
	/* two batches of a sixteenth of the chunk at most: an eighth of its bytes beside -S */
	g->batch = ring_on == 2 && c->n / 16 < GATHER_LINES ? (c->n / 16 > 4096 ? c->n / 16 : 4096) : GATHER_LINES;
	g->depth = depth < 2 ? 2 : depth > INT_MAX / 2 ? INT_MAX / 2 : (int)depth;
	if (ring_on && c->n > GATHER_LINES) {
		g->ring = calloc((size_t)g->depth, sizeof *g->ring);
		g->spare = calloc((size_t)g->depth, sizeof *g->spare);
		if (!g->ring || !g->spare) {
			free(g->ring), free(g->spare);
			g->ring = g->spare = NULL;
		} else
			g->async = !pthread_create(&g->tid, NULL, writer_main, g);
	}
	return 0;
}

int text_gather_begin(text_gather **g, const text_chunk *c, text_writer *w, tpool *pool, size_t room)
{
	return gather_new(g, c, w, pool, room, 1);
}

int text_gather_begin_mapped(text_gather **out, const text_chunk *c, text_writer *w, tpool *pool, uint8_t *dst,
			     size_t cap)
{
	int rc = gather_new(out, c, w, pool, 0, 0);
	if (!rc) {
		(*out)->dst = dst;
		(*out)->dcap = cap;
	}
	return rc;
}

/* s with a buffer of at least bytes; NULL without memory. */
static slot *room_for(slot *s, size_t bytes)
{
	if (bytes > s->cap) {
		free(s->buf);
		s->cap = bytes + bytes / 4;
		if (!(s->buf = malloc(s->cap))) {
			s->cap = 0;
			return NULL;
		}
	}
	return s;
}

/* The next free slot of the ring (waiting for the writer to free one), with
 * room for bytes; NULL without memory. */
static slot *next_slot(text_gather *g, size_t bytes)
{
	slot b = { NULL, 0, 0, 0 };
	pthread_mutex_lock(&g->mu);
	while (g->count == g->depth)
		pthread_cond_wait(&g->cv, &g->mu);
	if (g->nspare)
		b = g->spare[--g->nspare];
	pthread_mutex_unlock(&g->mu);
	slot *s = &g->ring[g->head];
	*s = b;
	return room_for(s, bytes);
}

int text_gather_lines(text_gather *g, const uint32_t *order, size_t n)
{
	g->ord = order;
	for (g->lo = 0; g->lo < n; g->lo += g->n) {
		pthread_mutex_lock(&g->mu);
		int rc = g->rc;
		pthread_mutex_unlock(&g->mu);
		if (rc)
			return rc;
		/* into a mapped output, few batches: each thread's part of one is
		 * then tens of MB of the file; parts of a few MB side by side
		 * (batches of 2^20 lines) made the copy 3x slower (page faults of
		 * neighbouring threads meeting, h200-outmap-2026-11-26.md) */
		size_t most = g->batch;
		if (g->dst) {
			most = n / GATHER_MAPPED_BATCHES + 1;
			most = most > GATHER_LINES ? most : GATHER_LINES;
		}
		g->n = n - g->lo < most ? n - g->lo : most;
		g->parts = g->n < 4096 ? 1 : g->np;
		tpool *p = g->parts > 1 ? g->pool : NULL;
		if (g->adj && g->n > g->keepcap) {
			free(g->keep);
			g->keepcap = g->n;
			if (!(g->keep = malloc(g->keepcap))) {
				g->keepcap = 0;
				return -ENOMEM;
			}
		}
		text_par_run(p, part_size, g);
		size_t total = text_par_firsts(g->off, g->parts);
		uint64_t kept = batch_done(g);
		if (g->dst) {
			/* the test build's write faults reach a mapped output here (a
			 * short one means nothing to a copy) */
			size_t want = total;
			if (io_fault_rw(IO_FAULT_WRITE, &want))
				return -errno;
			if (total > g->dcap - g->dlen)
				return -EFBIG; /* more than the caller mapped: a caller's error */
			g->buf = g->dst + g->dlen;
			text_par_run(p, part_copy, g);
			g->dlen += total;
			g->w->bytes += total;
			g->w->lines += kept;
			continue;
		}
		slot *s = g->async ? next_slot(g, total) : room_for(&g->one, total);
		if (!s)
			return -ENOMEM;
		g->buf = s->buf;
		text_par_run(p, part_copy, g);
		if (!g->async) {
			if ((rc = text_writer_bytes(g->w, s->buf, total, kept)))
				return rc;
			continue;
		}
		s->n = total, s->lines = kept;
		pthread_mutex_lock(&g->mu);
		g->head = (g->head + 1) % g->depth;
		g->count++;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
	return 0;
}

int text_gather_end(text_gather *g, int rc)
{
	if (!g)
		return rc;
	if (g->async) {
		pthread_mutex_lock(&g->mu);
		g->done = 1;
		if (rc && !g->rc)
			g->rc = rc; /* the writer skips what is left */
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->tid, NULL);
	}
	if (!rc)
		rc = g->rc;
	/* what -u and --verify compare the writer's next line with */
	if (!rc && g->adj && g->prev && g->prev != g->w->last)
		rc = text_writer_set_last(g->w, g->prev, g->prev_len);
	free(g->keep);
	for (int k = 0; g->ring && k < g->depth; k++)
		free(g->ring[k].buf);
	for (int k = 0; k < g->nspare; k++)
		free(g->spare[k].buf);
	free(g->ring), free(g->spare), free(g->one.buf);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	free(g);
	return rc;
}

void text_gather_prefixes(text_gather *g, const uint32_t *order, const uint8_t *recs, size_t rs, size_t w)
{
	if (g->unique && !g->verify)
		g->pord = order, g->precs = recs, g->prs = rs, g->pw = w;
}

int text_gather_write(const text_chunk *c, const uint32_t *order, const uint8_t *recs, size_t rs, size_t w,
		      text_writer *wr, tpool *pool)
{
	text_gather *g;
	int rc = gather_new(&g, c, wr, pool, 0, 2);
	if (!rc) {
		if (recs)
			text_gather_prefixes(g, order, recs, rs, w);
		rc = text_gather_lines(g, order, c->n);
	}
	return text_gather_end(g, rc);
}
