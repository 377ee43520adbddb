/*
 * io_ring.c - positioned transfers through io_uring, IO_QD segments in flight.
 * Falls back to pread/pwrite when the kernel (or a seccomp profile) refuses
 * io_uring, so the tool still works, only without the queue depth.
 */
#define _GNU_SOURCE
#include "io.h"

#include <liburing.h>
#include <stdlib.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

int io_ring_init(io_ring *r)
{
	memset(r, 0, sizeof *r);
	r->ring = calloc(1, sizeof *r->ring);
	if (!r->ring)
		return -ENOMEM;
	r->have_uring = io_uring_queue_init(IO_QD * 2, r->ring, 0) == 0;
	return 0;
}

void io_ring_exit(io_ring *r)
{
	if (r->have_uring)
		io_uring_queue_exit(r->ring);
	free(r->ring);
	r->ring = NULL;
	r->have_uring = 0;
}

/* Fallback: one blocking call at a time. Returns bytes (short only at EOF) or -errno. */
static ssize_t xfer_sync(int fd, void *buf, size_t len, uint64_t off, int wr)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = wr ? pwrite(fd, (char *)buf + done, len - done, (off_t)(off + done))
			       : pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0) {
			if (wr)
				return -EIO;
			break;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

struct seg {
	size_t off, len, done; /* relative to the transfer's start */
	int active;
};

/*
 * Transfer len bytes at file offset off, split into IO_SEG segments with up to
 * IO_QD in flight. Short transfers are resubmitted; a read that returns 0
 * marks end of file at that point. Returns bytes transferred contiguously
 * from the start (short only at EOF) or -errno.
 */
ssize_t io_ring_xfer(io_ring *r, int fd, void *buf, size_t len, uint64_t off, int wr);
ssize_t io_ring_xfer(io_ring *r, int fd, void *buf, size_t len, uint64_t off, int wr)
{
	if (len == 0)
		return 0;
	if (!r->have_uring)
		return xfer_sync(fd, buf, len, off, wr);
	struct seg segs[IO_QD];
	size_t next = 0, eof = len;
	unsigned inflight = 0;
	int err = 0;
	memset(segs, 0, sizeof segs);
	for (;;) {
		/* keep the queue full */
		for (unsigned i = 0; i < IO_QD && !err; i++) {
			struct seg *s = &segs[i];
			if (s->active)
				continue;
			if (next >= eof)
				break;
			s->off = next;
			s->len = len - next < IO_SEG ? len - next : IO_SEG;
			s->done = 0;
			s->active = 1;
			next += s->len;
			struct io_uring_sqe *sqe = io_uring_get_sqe(r->ring);
			if (!sqe) {
				s->active = 0;
				next -= s->len;
				break;
			}
			char *p = (char *)buf + s->off;
			if (wr)
				io_uring_prep_write(sqe, fd, p, (unsigned)s->len, off + s->off);
			else
				io_uring_prep_read(sqe, fd, p, (unsigned)s->len, off + s->off);
			io_uring_sqe_set_data(sqe, s);
			inflight++;
		}
		if (inflight == 0)
			break;
		int rc = io_uring_submit(r->ring);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
			/* nothing new went out; wait for what is in flight */
			err = err ? err : rc;
		}
		struct io_uring_cqe *cqe;
		rc = io_uring_wait_cqe(r->ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			return rc; /* the ring is unusable; requests may still be in flight */
		struct seg *s = io_uring_cqe_get_data(cqe);
		int res = cqe->res;
		io_uring_cqe_seen(r->ring, cqe);
		inflight--;
		if (res == -EINTR || res == -EAGAIN) {
			res = 0;
			if (wr || s->done < s->len) {
				/* resubmit below as a short transfer of 0 bytes */
			}
		} else if (res < 0) {
			err = err ? err : res;
			s->active = 0;
			continue;
		} else if (res == 0 && !wr) {
			if (s->off + s->done < eof)
				eof = s->off + s->done;
			s->active = 0;
			continue;
		}
		s->done += (size_t)res;
		if (s->done >= s->len || err || s->off + s->done >= eof) {
			s->active = 0;
			continue;
		}
		/* short: resubmit the rest of this segment */
		struct io_uring_sqe *sqe = io_uring_get_sqe(r->ring);
		if (!sqe) {
			ssize_t n = xfer_sync(fd, (char *)buf + s->off + s->done, s->len - s->done,
					      off + s->off + s->done, wr);
			if (n < 0)
				err = err ? err : (int)n;
			else if ((size_t)n < s->len - s->done && s->off + s->done + (size_t)n < eof)
				eof = s->off + s->done + (size_t)n;
			s->active = 0;
			continue;
		}
		char *p = (char *)buf + s->off + s->done;
		if (wr)
			io_uring_prep_write(sqe, fd, p, (unsigned)(s->len - s->done), off + s->off + s->done);
		else
			io_uring_prep_read(sqe, fd, p, (unsigned)(s->len - s->done), off + s->off + s->done);
		io_uring_sqe_set_data(sqe, s);
		inflight++;
	}
	if (err)
		return err;
	return (ssize_t)(eof < len ? eof : len);
}
