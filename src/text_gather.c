/* text_gather.c - a sorted chunk's lines out in parallel batches (text_gather.h). */
#include "text_gather.h"
#include "text_par.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define GATHER_LINES ((size_t)1 << 16) /* lines a batch */
#define GATHER_PARTS 64                 /* most threads */

typedef struct gather {
	const text_chunk *c;
	const uint32_t *ord;
	size_t lo, n;                      /* the batch: ord[lo, lo + n) */
	int parts;                         /* the batch's parts; a step's threads past them idle */
	uint8_t *buf;
	size_t off[GATHER_PARTS + 1];      /* each part's bytes, then its offset in buf */
} gather;

/* A line's bytes with its delimiter: the chunk keeps one after every line. */
static inline size_t span(const text_chunk *c, uint32_t i)
{
	return (size_t)(c->start[i + 1] - c->start[i]);
}

static void part_size(void *arg, int p, int np)
{
	gather *g = arg;
	size_t lo, hi, bytes = 0;
	(void)np;
	if (p >= g->parts)
		return;
	util_split(g->n, p, g->parts, &lo, &hi);
	for (size_t k = g->lo + lo; k < g->lo + hi; k++)
		bytes += span(g->c, g->ord[k]);
	g->off[p] = bytes;
}

static void part_copy(void *arg, int p, int np)
{
	gather *g = arg;
	size_t lo, hi;
	(void)np;
	if (p >= g->parts)
		return;
	util_split(g->n, p, g->parts, &lo, &hi);
	uint8_t *dst = g->buf + g->off[p];
	for (size_t k = g->lo + lo; k < g->lo + hi; k++) {
		uint32_t i = g->ord[k];
		size_t len = span(g->c, i);
		memcpy(dst, g->c->buf + g->c->start[i], len);
		dst += len;
	}
}

/* The writer thread's hand-over: one gathered batch at a time. */
typedef struct handoff {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	text_writer *w;
	const uint8_t *buf; /* a batch to write, or NULL */
	size_t n;
	uint64_t lines;
	int done, rc;
} handoff;

static void *writer_main(void *arg)
{
	handoff *h = arg;
	pthread_mutex_lock(&h->mu);
	for (;;) {
		while (!h->buf && !h->done)
			pthread_cond_wait(&h->cv, &h->mu);
		if (!h->buf)
			break;
		const uint8_t *buf = h->buf;
		pthread_mutex_unlock(&h->mu);
		int rc = h->rc ? 0 : text_writer_bytes(h->w, buf, h->n, h->lines);
		pthread_mutex_lock(&h->mu);
		if (rc && !h->rc)
			h->rc = rc;
		h->buf = NULL;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* Wait until the writer has taken the last batch; then hand it buf (NULL: the end). */
static void hand(handoff *h, const uint8_t *buf, size_t n, uint64_t lines)
{
	pthread_mutex_lock(&h->mu);
	while (h->buf)
		pthread_cond_wait(&h->cv, &h->mu);
	if (buf) {
		h->buf = buf;
		h->n = n;
		h->lines = lines;
	} else {
		h->done = 1;
	}
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

int text_gather_write(const text_chunk *c, const uint32_t *order, text_writer *w, tpool *pool)
{
	gather g = { c, order, 0, 0, 1, NULL, { 0 } };
	uint8_t *bufs[2] = { NULL, NULL };
	size_t caps[2] = { 0, 0 };
	int threads = pool ? tpool_size(pool) : 1;
	int np = threads > GATHER_PARTS ? GATHER_PARTS : threads, rc = 0, cur = 0;
	/* batches are gathered while the one before is written, on a thread of its own */
	handoff h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, w, NULL, 0, 0, 0, 0 };
	pthread_t tid;
	int async = c->n > GATHER_LINES && !pthread_create(&tid, NULL, writer_main, &h);
	for (g.lo = 0; g.lo < c->n && !rc; g.lo += g.n, cur ^= 1) {
		g.n = c->n - g.lo < GATHER_LINES ? c->n - g.lo : GATHER_LINES;
		g.parts = g.n < 4096 ? 1 : np;
		tpool *p = g.parts > 1 ? pool : NULL;
		text_par_run(p, part_size, &g);
		size_t total = text_par_firsts(g.off, g.parts);
		/* bufs[cur] went to the writer two batches ago: hand() has seen it written */
		if (total > caps[cur]) {
			free(bufs[cur]);
			caps[cur] = total + total / 4;
			if (!(bufs[cur] = malloc(caps[cur]))) {
				rc = -ENOMEM;
				break;
			}
		}
		g.buf = bufs[cur];
		text_par_run(p, part_copy, &g);
		if (async)
			hand(&h, g.buf, total, g.n);
		else
			rc = text_writer_bytes(w, g.buf, total, g.n);
		if (async) {
			pthread_mutex_lock(&h.mu);
			rc = h.rc;
			pthread_mutex_unlock(&h.mu);
		}
	}
	if (async) {
		hand(&h, NULL, 0, 0);
		pthread_join(tid, NULL);
		if (!rc)
			rc = h.rc;
	}
	free(bufs[0]);
	free(bufs[1]);
	return rc;
}
