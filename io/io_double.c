/*
 * io_double.c - double buffering of a stream: two buffers read in turn
 * by a worker while the caller looks at the other one.
 */
#include "io.h"

#include <string.h>

int io_double_start(io_double *d, io_file *f, uint8_t *buf0, uint8_t *buf1, size_t len, size_t cap)
{
	memset(d, 0, sizeof *d);
	atomic_init(&d->stop, 0);
	int rc = io_worker_start(&d->w);
	if (rc)
		return rc;
	uint8_t *buf[2] = { buf0, buf1 };
	for (int i = 0; i < 2; i++)
		d->job[i] = (io_job){ .op = IO_JOB_READ_ARRIVED, .f = f, .buf = buf[i], .len = len, .cap = cap,
				      .stop = &d->stop };
	io_worker_submit(&d->w, &d->job[0]);
	d->pending = 1;
	return 0;
}

ssize_t io_double_wait(io_double *d, uint8_t **buf)
{
	ssize_t got = io_worker_wait(&d->w, &d->job[d->cur]);
	d->pending = 0;
	*buf = d->job[d->cur].buf;
	return got;
}

void io_double_next(io_double *d)
{
	d->cur ^= 1;
	io_worker_submit(&d->w, &d->job[d->cur]);
	d->pending = 1;
}

void io_double_stop(io_double *d)
{
	if (!d->w.started)
		return;
	atomic_store(&d->stop, 1);
	if (d->pending)
		io_worker_wait(&d->w, &d->job[d->cur]);
	d->pending = 0;
	io_worker_stop(&d->w);
}
