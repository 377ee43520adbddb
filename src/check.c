/* check.c - -c / -C: is the input sorted? (job.h job_check) */
#define _GNU_SOURCE
#include "job.h"
#include "inputs.h"
#include "order_check.h"
#include "quote.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHECK_PIECE_BYTES ((size_t)1 << 20) /* a thread's piece of a mapped input */

/* A piece of a mapped input (util_earliest): its records' pairs with the
 * record above each. */
static size_t piece_first(void *arg, size_t lo, size_t hi, const util_earliest *e)
{
	(void)e;
	return order_check_first(arg, lo ? lo : 1, hi);
}

/*
 * -c of a regular input (c->in[0], opened, its size checked a multiple of
 * the record size): mapped and checked on o->threads threads with m's
 * comparisons (order_check_init), in pieces taken in order (util_earliest). Returns 0 (r->status 1 and the message on
 * a disorder, or in order), -1 after job_fail (the file changed while it
 * was checked), or 1 when it does not map: the caller reads it as a
 * stream.
 */
static int check_mapped(job_ctx *c, const job_opts *o, job_result *r, order_check *m)
{
	io_file *f = &c->in[0];
	uint64_t bytes = f->size - f->pos;
	size_t n = (size_t)(bytes / c->R), first = SIZE_MAX;
	if (n > 1) {
		void *map;
		if (f->size > SIZE_MAX || (map = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, f->fd, 0)) == MAP_FAILED)
			return 1;
		m->p = (const uint8_t *)map + f->pos;
		size_t piece = CHECK_PIECE_BYTES / m->R ? CHECK_PIECE_BYTES / m->R : 1, pieces = (n + piece - 1) / piece;
		int nt = o->threads > 1 ? o->threads : 1;
		util_earliest e;
		util_earliest_init(&e, n, piece, piece_first, m);
		util_par_run(pieces < (size_t)nt ? (int)pieces : nt, util_earliest_step, &e);
		first = util_earliest_found(&e);
		munmap(map, (size_t)f->size);
	}
	if (first != SIZE_MAX) {
		r->status = 1;
		snprintf(r->msg, sizeof r->msg, "%s: record %zu: disorder", f->name, first + 1);
		return 0;
	}
	c->in_bytes[0] = bytes;
	if (inputs_ended_unchanged(c, 0)) { /* changed while it was checked */
		c->bad_file = 0;
		inputs_read_error(c, -ESTALE);
		return -1;
	}
	return 0;
}

/*
 * The stream's records, read into two buffers in turn by an I/O worker
 * as they arrive (IO_JOB_READ_ARRIVED: a slow producer's disorder is
 * reported soon after it comes) while this thread checks the other one.
 * Each buffer's bytes follow, in one window, what the one before carried
 * over: its last complete record and the bytes of a record it did not
 * end, so that the same comparisons as a mapping's serve (order_check_first).
 */
static void check_stream(job_ctx *c, job_result *r, order_check *m)
{
	io_file *f = &c->in[0];
	const size_t R = c->R, len = ((8u << 20) / R + 1) * R, pad = (2 * R + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
	const size_t one = pad + len + IO_ALIGN; /* a buffer, room for two records before it */
	uint8_t *base = util_alloc_aligned(2 * one, IO_ALIGN), *carry = malloc(2 * R), *buf;
	size_t clen = 0;   /* carry's bytes: the last complete record (once recno > 0), then a part of one */
	uint64_t recno = 0; /* complete records before this buffer's */
	io_double d;
	int rc = base && carry ? io_double_start(&d, f, base + pad, base + one + pad, len, len + IO_ALIGN) : -ENOMEM;
	if (rc) {
		if (rc == -ENOMEM)
			job_fail(c, "out of memory");
		else
			job_fail(c, "cannot start a thread: %s", strerror(-rc));
		goto out;
	}
	for (;;) {
		ssize_t got = io_double_wait(&d, &buf);
		if (got < 0) {
			job_fail(c, "read failed: %s: %s", quote_name(f->name), strerror((int)-got));
			break;
		}
		c->in_bytes[0] += (uint64_t)got;
		if (f->eof && inputs_ended_unchanged(c, 0)) {
			c->bad_file = 0;
			inputs_read_error(c, -ESTALE);
			break;
		}
		if (f->eof && c->in_bytes[0] % R) {
			job_fail_size(c, f->name, c->in_bytes[0]);
			break;
		}
		int eof = f->eof;
		if (!eof) /* the next read, while this one is checked */
			io_double_next(&d);
		/* the window: the carry, then the bytes read; its record 0 is the
		 * file's record `first` */
		uint8_t *win = buf - clen;
		memcpy(win, carry, clen);
		size_t k = (clen + (size_t)got) / R, rest = clen + (size_t)got - k * R;
		uint64_t first = recno ? recno - 1 : 0;
		m->p = win;
		size_t bad = k > 1 ? order_check_first(m, 1, k) : SIZE_MAX;
		if (bad != SIZE_MAX) {
			r->status = 1;
			snprintf(r->msg, sizeof r->msg, "%s: record %" PRIu64 ": disorder", f->name, first + bad + 1);
			break;
		}
		if (eof)
			break;
		recno = first + k;
		clen = (k ? R : 0) + rest; /* the last record (if any), then the part of the next */
		memcpy(carry, win + (k ? k - 1 : 0) * R, clen);
	}
	io_double_stop(&d);
out:
	free(base);
	free(carry);
}

void job_check(const job_opts *o, job_result *r)
{
	job_ctx c;
	memset(r, 0, sizeof *r);
	if (job_setup(&c, o, r) || inputs_open(&c, 1))
		goto done;
	order_check m;
	order_check_init(&m, c.s, o->unique);
	/* a regular file is checked through a mapping on every thread, as
	 * text's -c is; standard input from a pipe and a file that does not
	 * map are read in buffers and checked on this one */
	if (!c.in[0].regular || check_mapped(&c, o, r, &m) > 0)
		check_stream(&c, r, &m);
done:
	job_teardown(&c);
}
