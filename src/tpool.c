/* tpool.c - see tpool.h. */
#include "tpool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct tpool {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	void (*fn)(void *, int, int);
	void *arg;
	unsigned long step;  /* incremented for each step; workers wait for a new one */
	int n, running, stop;
	int started;         /* workers started (parts 1..started) */
	pthread_t *th;
};

struct worker {
	tpool *p;
	int t;
};

static void *worker_main(void *a)
{
	tpool *p = ((struct worker *)a)->p;
	int t = ((struct worker *)a)->t;
	free(a);
	unsigned long seen = 0;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->step == seen && !p->stop)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->stop)
			break;
		seen = p->step;
		void (*fn)(void *, int, int) = p->fn;
		void *arg = p->arg;
		pthread_mutex_unlock(&p->mu);
		fn(arg, t, p->n);
		pthread_mutex_lock(&p->mu);
		if (--p->running == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int tpool_start(tpool **out, int nthreads)
{
	*out = NULL;
	tpool *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	p->n = nthreads < 1 ? 1 : nthreads;
	p->th = calloc((size_t)p->n, sizeof *p->th);
	if (!p->th) {
		free(p);
		return -ENOMEM;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	for (int t = 1; t < p->n; t++) {
		struct worker *w = malloc(sizeof *w);
		int rc = ENOMEM;
		if (w) {
			*w = (struct worker){ p, t };
			rc = pthread_create(&p->th[t], NULL, worker_main, w);
		}
		if (rc) {
			free(w);
			p->n = t; /* fewer parts: the steps still cover all the work */
			break;
		}
		p->started = t;
	}
	*out = p;
	return 0;
}

int tpool_size(const tpool *p)
{
	return p->n;
}

void tpool_run(tpool *p, void (*fn)(void *, int, int), void *arg)
{
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->arg = arg;
	p->running = p->n - 1;
	p->step++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	fn(arg, 0, p->n);
	pthread_mutex_lock(&p->mu);
	while (p->running > 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* Pieces a thread of tpool_memcpy, taken as each thread finishes one: a
 * copy into fresh pages of a mapped output faults on every page, and a
 * thread that shares its core with another (a read-ahead or writeback
 * worker) would otherwise hold the step up (merge.c's parts, the same). */
#define COPY_PIECES_PER_THREAD 8
#define COPY_MIN_PIECE ((size_t)1 << 18)

struct copy {
	unsigned char *dst;
	const unsigned char *src;
	size_t bytes, piece;
	atomic_size_t next;
};

static void copy_part(void *arg, int t, int n)
{
	(void)t;
	(void)n;
	struct copy *c = arg;
	for (;;) {
		size_t lo = atomic_fetch_add_explicit(&c->next, c->piece, memory_order_relaxed);
		if (lo >= c->bytes)
			break;
		memcpy(c->dst + lo, c->src + lo, c->bytes - lo < c->piece ? c->bytes - lo : c->piece);
	}
}

void tpool_memcpy(tpool *p, void *dst, const void *src, size_t bytes)
{
	if (bytes < ((size_t)1 << 20) || p->n == 1) {
		memcpy(dst, src, bytes); /* waking the pool costs more than it saves */
		return;
	}
	size_t piece = bytes / ((size_t)p->n * COPY_PIECES_PER_THREAD);
	piece = piece < COPY_MIN_PIECE ? COPY_MIN_PIECE : (piece + 4095) & ~(size_t)4095;
	struct copy c = { dst, src, bytes, piece, 0 };
	tpool_run(p, copy_part, &c);
}

void tpool_stop(tpool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (int t = 1; t <= p->started; t++)
		pthread_join(p->th[t], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p->th);
	free(p);
}
