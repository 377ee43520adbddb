/*
 * io_ring.c - positioned transfers through io_uring, IO_QD segments in flight.
 * Falls back to pread/pwrite when the kernel (or a seccomp profile) refuses
 * io_uring, so the tool still works, only without the queue depth.
 * Registered buffers (io_ring_register, see io.h) turn the requests whose
 * buffer lies in one of them into READ_FIXED / WRITE_FIXED.
 */
#define _GNU_SOURCE
#include "io.h"
#include "io_fault.h"

#include <liburing.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* One registered iovec: [base, base + len) is slot `slot` of the kernel's table. */
struct io_fixed {
	uintptr_t base;
	size_t len;
	unsigned slot;
};

static atomic_ullong st_calls, st_ok, st_bytes, st_fixed;
static atomic_int st_err;

void io_fixed_stats_get(io_fixed_stats *s)
{
	s->calls = atomic_load(&st_calls);
	s->ok = atomic_load(&st_ok);
	s->err = atomic_load(&st_err);
	s->bytes = atomic_load(&st_bytes);
	s->fixed_bytes = atomic_load(&st_fixed);
}

int io_ring_init(io_ring *r)
{
	memset(r, 0, sizeof *r);
	r->ring = calloc(1, sizeof *r->ring);
	if (!r->ring)
		return -ENOMEM;
	r->have_uring = io_uring_queue_init(IO_QD * 2, r->ring, 0) == 0;
	/* IOSQE_ASYNC came with 5.6, as did this feature bit */
	r->can_async = r->have_uring && (r->ring->features & IORING_FEAT_RW_CUR_POS);
	return 0;
}

void io_ring_async_reads(io_ring *r, int on)
{
	r->async_reads = on && r->can_async;
}

void io_ring_exit(io_ring *r)
{
	io_ring_unregister(r);
	atomic_fetch_add(&st_bytes, r->bytes);
	atomic_fetch_add(&st_fixed, r->fixed_bytes);
	r->bytes = r->fixed_bytes = 0;
	if (r->have_uring)
		io_uring_queue_exit(r->ring);
	free(r->ring);
	r->ring = NULL;
	r->have_uring = 0;
}

static int fixed_off; /* io_set_fixed(0) */

void io_set_fixed(int on)
{
	fixed_off = !on;
}

void io_ring_unregister(io_ring *r)
{
	if (r->fx_slots && r->have_uring)
		io_uring_unregister_buffers(r->ring); /* drops the kernel's page pins */
	free(r->fx);
	r->fx = NULL;
	r->nfx = 0;
	r->fx_slots = 0;
	r->fx_dense = 0;
}

static int fx_cmp(const void *a, const void *b)
{
	const struct io_fixed *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

/*
 * Bring the kernel's sparse table (r->fx_slots entries) from r->fx to
 * want[0..cnt): entries present in both keep their slot (no re-pinning),
 * others are cleared or filled, consecutive changed slots in one update.
 * Sets want[].slot. Returns 0 or -errno.
 */
static int update_sparse(io_ring *r, struct io_fixed *want, unsigned cnt)
{
	unsigned S = r->fx_slots;
	struct iovec *tab = calloc(S, sizeof *tab);
	unsigned char *dirty = calloc(S, 1), *used = calloc(S, 1);
	int rc = 0;
	if (!tab || !dirty || !used) {
		rc = -ENOMEM;
		goto out;
	}
	/* both lists are sorted by address: keep the entries they share */
	unsigned i = 0, j = 0;
	for (unsigned k = 0; k < cnt; k++)
		want[k].slot = S;
	while (i < r->nfx) {
		struct io_fixed *o = &r->fx[i];
		while (j < cnt && want[j].base < o->base)
			j++;
		if (j < cnt && want[j].base == o->base && want[j].len == o->len) {
			want[j].slot = o->slot;
			used[o->slot] = 1;
			tab[o->slot] = (struct iovec){ (void *)o->base, o->len };
			j++;
		} else {
			dirty[o->slot] = 1; /* cleared: tab[] stays { NULL, 0 } */
		}
		i++;
	}
	unsigned next = 0;
	for (unsigned k = 0; k < cnt; k++) {
		if (want[k].slot < S)
			continue;
		while (next < S && used[next])
			next++;
		if (next == S) {
			rc = -E2BIG;
			goto out;
		}
		want[k].slot = next;
		used[next] = dirty[next] = 1;
		tab[next] = (struct iovec){ (void *)want[k].base, want[k].len };
	}
	for (unsigned a = 0; a < S;) {
		if (!dirty[a]) {
			a++;
			continue;
		}
		unsigned b = a;
		while (b < S && dirty[b])
			b++;
		int n = io_uring_register_buffers_update_tag(r->ring, a, tab + a, NULL, b - a);
		if (n < 0) {
			rc = n;
			goto out;
		}
		if ((unsigned)n != b - a) {
			rc = -ENOMEM;
			goto out;
		}
		a = b;
	}
out:
	free(tab);
	free(dirty);
	free(used);
	return rc;
}

static int do_register(io_ring *r, void *const *bufs, const size_t *lens, int n)
{
	if (!r->have_uring)
		return -EOPNOTSUPP;
	if (fixed_off)
		return -ECANCELED;
	if (io_fault_is("fixed-enomem")) /* the tests: transfers then go unfixed, unchanged */
		return -ENOMEM;
	size_t cnt = 0;
	for (int i = 0; i < n; i++) {
		if (!bufs[i] || !lens[i])
			return -EINVAL;
		cnt += (lens[i] + IO_FIXED_IOV - 1) / IO_FIXED_IOV;
	}
	if (cnt > IO_FIXED_MAX)
		return -E2BIG;
	struct io_fixed *want = malloc(cnt * sizeof *want);
	if (!want)
		return -ENOMEM;
	size_t k = 0;
	for (int i = 0; i < n; i++)
		for (size_t o = 0; o < lens[i]; o += IO_FIXED_IOV)
			want[k++] = (struct io_fixed){ (uintptr_t)bufs[i] + o,
						       lens[i] - o < IO_FIXED_IOV ? lens[i] - o : IO_FIXED_IOV, 0 };
	qsort(want, cnt, sizeof *want, fx_cmp);
	int rc;
	if (r->fx_slots && !r->fx_dense && cnt <= r->fx_slots) {
		rc = update_sparse(r, want, (unsigned)cnt);
	} else {
		io_ring_unregister(r);
		unsigned slots = 64;
		while (slots < cnt)
			slots *= 2;
		if (slots > IO_FIXED_MAX)
			slots = IO_FIXED_MAX;
		/* fixed-dense: the tests reach the whole-table registration on new kernels too */
		rc = io_fault_is("fixed-dense") ? -EINVAL : io_uring_register_buffers_sparse(r->ring, slots);
		if (rc == 0) {
			r->fx_slots = slots;
			rc = update_sparse(r, want, (unsigned)cnt);
		} else {
			/* no sparse tables (kernels before 5.19): register the whole
			 * set at once, and again on every change */
			struct iovec *iov = malloc(cnt * sizeof *iov);
			rc = iov ? 0 : -ENOMEM;
			for (size_t i = 0; iov && i < cnt; i++) {
				iov[i] = (struct iovec){ (void *)want[i].base, want[i].len };
				want[i].slot = (unsigned)i;
			}
			if (iov)
				rc = io_uring_register_buffers(r->ring, iov, (unsigned)cnt);
			free(iov);
			if (rc == 0) {
				r->fx_slots = (unsigned)cnt;
				r->fx_dense = 1;
			}
		}
	}
	if (rc) {
		free(want);
		return rc;
	}
	free(r->fx);
	r->fx = want;
	r->nfx = (unsigned)cnt;
	return 0;
}

int io_ring_register(io_ring *r, void *const *bufs, const size_t *lens, int n)
{
	if (n <= 0) {
		io_ring_unregister(r);
		return n < 0 ? -EINVAL : 0;
	}
	atomic_fetch_add(&st_calls, 1);
	int rc = do_register(r, bufs, lens, n);
	if (rc) {
		io_ring_unregister(r); /* on failure nothing stays registered */
		atomic_store(&st_err, rc);
		return rc;
	}
	atomic_fetch_add(&st_ok, 1);
	return 0;
}

/* The table slot of the registered iovec holding [p, p + n), or -1. */
static int fixed_index(const io_ring *r, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	unsigned lo = 0, hi = r->nfx;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (r->fx[mid].base <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct io_fixed *f = &r->fx[lo - 1];
	return a - f->base <= f->len && n <= f->len - (a - f->base) ? (int)f->slot : -1;
}

/* Fallback: one blocking call at a time. Returns bytes (short only at EOF) or -errno. */
static ssize_t xfer_sync(int fd, void *buf, size_t len, uint64_t off, int wr)
{
	size_t done = 0;
	while (done < len) {
		size_t m = len - done;
		ssize_t n = io_fault_rw(wr ? IO_FAULT_WRITE : IO_FAULT_READ, &m) ? -1
			    : wr ? pwrite(fd, (char *)buf + done, m, (off_t)(off + done))
				 : pread(fd, (char *)buf + done, m, (off_t)(off + done));
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

/*
 * The test build's faults on a completion (io_fault.h): the kernel moved
 * res bytes; the caller is told an error, or fewer bytes (it sends the
 * rest again, which moves the same bytes a second time: harmless).
 */
static int fault_cqe(int res, int wr)
{
	int f = io_fault_hit(wr ? IO_FAULT_WRITE : IO_FAULT_READ);
	if (f == IO_FAULT_SHORT)
		return res > 1 ? res / 2 : res;
	return f < 0 ? f : res;
}

struct seg {
	size_t off, len, done; /* relative to the transfer's start */
	int active;
	int fixed;             /* in flight as READ_FIXED / WRITE_FIXED */
	int nofix;             /* a fixed request failed: the rest goes unfixed */
	int async;             /* in flight with IOSQE_ASYNC */
	int noasync;           /* an async request was refused (-EINVAL): the rest goes without */
};

/* Queue [p, p + n) at file offset off: fixed when it lies in a registered buffer. */
static void prep(io_ring *r, struct io_uring_sqe *sqe, struct seg *s, int fd, char *p, size_t n,
		 uint64_t off, int wr)
{
	int idx = s->nofix ? -1 : fixed_index(r, p, n);
	s->fixed = idx >= 0;
	if (idx >= 0 && wr)
		io_uring_prep_write_fixed(sqe, fd, p, (unsigned)n, off, idx);
	else if (idx >= 0)
		io_uring_prep_read_fixed(sqe, fd, p, (unsigned)n, off, idx);
	else if (wr)
		io_uring_prep_write(sqe, fd, p, (unsigned)n, off);
	else
		io_uring_prep_read(sqe, fd, p, (unsigned)n, off);
	s->async = !wr && r->async_reads && !s->noasync;
	if (s->async)
		sqe->flags |= IOSQE_ASYNC;
	io_uring_sqe_set_data(sqe, s);
}

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
	if (!r->have_uring) {
		ssize_t n = xfer_sync(fd, buf, len, off, wr);
		if (n > 0)
			r->bytes += (uint64_t)n;
		return n;
	}
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
			s->nofix = 0;
			s->noasync = 0;
			next += s->len;
			struct io_uring_sqe *sqe = io_uring_get_sqe(r->ring);
			if (!sqe) {
				s->active = 0;
				next -= s->len;
				break;
			}
			prep(r, sqe, s, fd, (char *)buf + s->off, s->len, off + s->off, wr);
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
		int res = fault_cqe(cqe->res, wr);
		io_uring_cqe_seen(r->ring, cqe);
		inflight--;
		if (res == -EINTR || res == -EAGAIN) {
			res = 0;
			if (wr || s->done < s->len) {
				/* resubmit below as a short transfer of 0 bytes */
			}
		} else if (res == -EINVAL && s->async && !err) {
			/* a kernel that takes IOSQE_ASYNC for none of its reads:
			 * send the rest again without (the request moved no bytes) */
			s->noasync = 1;
			res = 0;
		} else if (res < 0 && s->fixed && !err) {
			/* never worse than unfixed: send the rest again without the
			 * registered buffer (a failed request moved no bytes) */
			s->nofix = 1;
			res = 0;
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
		r->bytes += (uint64_t)res;
		if (s->fixed)
			r->fixed_bytes += (uint64_t)res;
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
			else
				r->bytes += (uint64_t)n;
			if (n >= 0 && (size_t)n < s->len - s->done && s->off + s->done + (size_t)n < eof)
				eof = s->off + s->done + (size_t)n;
			s->active = 0;
			continue;
		}
		prep(r, sqe, s, fd, (char *)buf + s->off + s->done, s->len - s->done,
		     off + s->off + s->done, wr);
		inflight++;
	}
	if (err)
		return err;
	return (ssize_t)(eof < len ? eof : len);
}
