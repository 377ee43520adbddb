/*
 * io_worker.c - a thread with its own io_ring that runs I/O jobs in order,
 * so reading chunk i+1 and writing chunk i-1 overlap the sort of chunk i.
 */
#define _GNU_SOURCE
#include "io.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* IO_JOB_READ_ARRIVED (io.h) */
static ssize_t read_arrived(io_ring *r, io_job *j)
{
	if (j->f->regular)
		return io_read_next(r, j->f, j->buf, j->len, j->cap);
	double t0 = now();
	size_t got = 0;
	while (got < j->len && !j->f->eof && !(j->stop && atomic_load(j->stop))) {
		double left = IO_ARRIVED_WAIT - (now() - t0);
		if (got && left <= 0)
			break;
		int wait_ms = (int)((got ? left : IO_ARRIVED_WAIT) * 1000) + 1;
		ssize_t n = io_read_ready(j->f, (uint8_t *)j->buf + got, j->len - got, wait_ms);
		if (n < 0)
			return n;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static void run_job(io_worker *w, io_job *j)
{
	double t0 = now();
	switch (j->op) {
	case IO_JOB_READ:
		j->res = io_read_next(&w->ring, j->f, j->buf, j->len, j->cap);
		if (j->res >= 0 && j->hook)
			j->hook(j);
		break;
	case IO_JOB_READ_AT:
		j->res = io_read_at(&w->ring, j->f, j->buf, j->len, j->cap, j->off);
		if (j->res >= 0 && j->hook)
			j->hook(j);
		break;
	case IO_JOB_WRITE:
		j->res = 0;
		if (j->hook)
			j->hook(j);
		if (j->res >= 0)
			j->res = io_write_next(&w->ring, j->f, j->buf, j->len);
		break;
	case IO_JOB_CALL:
		j->res = j->call(j, &w->ring);
		break;
	case IO_JOB_READ_ARRIVED:
		j->res = read_arrived(&w->ring, j);
		if (j->res >= 0 && j->hook)
			j->hook(j);
		break;
	}
	j->busy = now() - t0;
}

static void *worker_main(void *p)
{
	io_worker *w = p;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->head)
			break;
		io_job *j = w->head;
		pthread_mutex_unlock(&w->mu);
		run_job(w, j);
		pthread_mutex_lock(&w->mu);
		w->busy += j->busy;
		w->head = j->next;
		if (!w->head)
			w->tail = NULL;
		j->done = 1;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int io_worker_start(io_worker *w)
{
	memset(w, 0, sizeof *w);
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	io_ring_init(&w->ring);
	int rc = pthread_create(&w->th, NULL, worker_main, w);
	if (rc) {
		io_ring_exit(&w->ring);
		return -rc;
	}
	w->started = 1;
	return 0;
}

void io_worker_submit(io_worker *w, io_job *j)
{
	j->done = 0;
	j->next = NULL;
	j->res = 0;
	pthread_mutex_lock(&w->mu);
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

ssize_t io_worker_wait(io_worker *w, io_job *j)
{
	pthread_mutex_lock(&w->mu);
	while (!j->done)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	return j->res;
}

int io_worker_done(io_worker *w, const io_job *j)
{
	pthread_mutex_lock(&w->mu);
	int d = j->done;
	pthread_mutex_unlock(&w->mu);
	return d;
}

void io_worker_stop(io_worker *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	io_ring_exit(&w->ring);
	w->started = 0;
}
