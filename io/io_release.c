/*
 * io_release.c - see io.h ("Giving spilled bytes back"). One thread takes
 * ranges from a bounded queue and punches them out of their files.
 *
 * Why a thread of its own: freeing a range's cached pages and blocks costs
 * about 0.3 s a GiB (16 GiB of spilled runs took 4.9 s in the spill file's
 * close() on the H100 machine, after the output was committed). On the
 * merge's readers it would delay the next window; here it runs beside the
 * merge, which leaves the close almost nothing to free.
 */
#define _GNU_SOURCE
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>

#define QUEUE 1024 /* ranges waiting; more are dropped (the close frees them) */

struct range {
	int fd;
	uint64_t off, len;
};

struct io_release {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct range q[QUEUE];
	size_t head, count;
	int stop, unsupported;
	uint64_t bytes, dropped; /* punched; not punched (queue full, unsupported, failed) */
	double busy;
};

static void *releaser(void *arg)
{
	io_release *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->count && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		if (!r->count)
			break; /* stopping, the queue drained */
		struct range g = r->q[r->head];
		r->head = (r->head + 1) % QUEUE;
		r->count--;
		int skip = r->unsupported;
		pthread_mutex_unlock(&r->mu);
		int rc = 0;
		double t0 = io_now();
		if (!skip && fallocate(g.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)g.off, (off_t)g.len))
			rc = errno;
		double dt = io_now() - t0;
		pthread_mutex_lock(&r->mu);
		r->busy += dt;
		if (skip || rc)
			r->dropped += g.len;
		else
			r->bytes += g.len;
		if (rc == EOPNOTSUPP || rc == ENOSYS)
			r->unsupported = 1; /* this file system keeps the blocks until the close */
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

int io_release_start(io_release **out)
{
	io_release *r = calloc(1, sizeof *r);
	*out = NULL;
	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	int rc = pthread_create(&r->th, NULL, releaser, r);
	if (rc) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		free(r);
		return -rc;
	}
	*out = r;
	return 0;
}

void io_release_range(io_file *f, uint64_t off, uint64_t len)
{
	io_release *r = f->rel;
	if (!r || f->fd < 0)
		return;
	/* whole blocks only: a partial one would be zeroed, not freed, and
	 * may hold bytes of a neighbour still to be read */
	uint64_t lo = (off + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN, hi = (off + len) / IO_ALIGN * IO_ALIGN;
	if (hi <= lo)
		return;
	pthread_mutex_lock(&r->mu);
	struct range *last = r->count ? &r->q[(r->head + r->count - 1) % QUEUE] : NULL;
	if (last && last->fd == f->fd && last->off + last->len == lo) {
		last->len += hi - lo; /* the next window of the same run: one call */
	} else if (r->count == QUEUE || r->unsupported) {
		r->dropped += hi - lo;
	} else {
		r->q[(r->head + r->count) % QUEUE] = (struct range){ f->fd, lo, hi - lo };
		r->count++;
		pthread_cond_signal(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
}

void io_release_stop(io_release *r, io_release_stats *st)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->th, NULL);
	if (st) {
		st->bytes += r->bytes;
		st->dropped += r->dropped;
		st->busy_s += r->busy;
	}
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
