/* check.c - -c / -C: is the input sorted? (job.h job_check) */
#define _GNU_SOURCE
#include "job.h"
#include "inputs.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHECK_PIECE_BYTES ((size_t)1 << 20) /* a thread's piece of a mapped input */

/* How neighbouring records are compared: their keys as native
 * integers where the layout allows (keys_native, keys_word), else
 * keys_compare. */
enum { CMP_KEYS, CMP_NATIVE32, CMP_NATIVE64, CMP_WORD };

/* Records checked in order: a mapped input's [0, n) on every thread, or a
 * stream's window (check_stream). */
typedef struct order_check {
	const keys_spec *s;
	const uint8_t *p;       /* record 0 */
	uint64_t n;             /* records */
	size_t R;               /* bytes a record */
	int strict;             /* -u: a record equal to the one before is out of order too */
	int how;                /* CMP_* */
	keys_native nat;
	keys_word word;
	uint64_t piece;         /* records a piece */
	_Atomic uint64_t next;  /* the next piece to take */
	_Atomic uint64_t first; /* the earliest record found out of order; UINT64_MAX: none */
} order_check;

/* The native key of record i (CMP_NATIVE32/64, CMP_WORD). */
static inline uint64_t key_at(const order_check *m, int how, uint64_t i)
{
	const uint8_t *r = m->p + i * m->R;
	if (how == CMP_NATIVE64)
		return keys_native_enc64(&m->nat, keys_load64(r));
	if (how == CMP_NATIVE32)
		return keys_native_enc32(&m->nat, keys_load32(r));
	return keys_word_enc(&m->word, m->R == 8 ? keys_load64(r) : keys_load32(r));
}

/* The first record in [i, hi) (i >= 1) that goes before the one above it
 * (or, strict, ties it), or UINT64_MAX. */
static uint64_t first_bad(const order_check *m, uint64_t i, uint64_t hi)
{
	const int strict = m->strict, how = m->how;
	if (how == CMP_KEYS) {
		for (; i < hi; i++) {
			int c = keys_compare(m->s, m->p + (i - 1) * m->R, m->p + i * m->R);
			if (c > 0 || (strict && c == 0))
				return i;
		}
		return UINT64_MAX;
	}
	uint64_t prev = key_at(m, how, i - 1);
	for (; i < hi; i++) {
		uint64_t cur = key_at(m, how, i);
		if (cur < prev || (strict && cur == prev))
			return i;
		prev = cur;
	}
	return UINT64_MAX;
}

/* A thread: pieces taken in order until one is past the earliest record
 * out of order found, so that the first one in the input is reported. */
static void check_pieces(void *arg, int t, int nt)
{
	order_check *m = arg;
	(void)t, (void)nt;
	for (;;) {
		uint64_t lo = atomic_fetch_add(&m->next, 1) * m->piece;
		if (lo >= m->n || lo >= atomic_load(&m->first))
			return;
		uint64_t hi = m->n - lo < m->piece ? m->n : lo + m->piece;
		uint64_t bad = first_bad(m, lo ? lo : 1, hi);
		if (bad == UINT64_MAX)
			continue;
		uint64_t cur = atomic_load(&m->first);
		while (bad < cur && !atomic_compare_exchange_weak(&m->first, &cur, bad))
			;
		return;
	}
}

/* m->how: native keys where the layout has them. */
static void compare_init(order_check *m)
{
	m->how = CMP_KEYS;
	if (!keys_native_init(m->s, &m->nat) && m->nat.width == m->R)
		m->how = m->R == 8 ? CMP_NATIVE64 : CMP_NATIVE32;
	else if (!keys_word_init(m->s, &m->word) && m->word.width == m->R)
		m->how = CMP_WORD;
}

/*
 * -c of a regular input (c->in[0], opened, its size checked a multiple of
 * the record size): mapped and checked on o->threads threads with mc's
 * comparisons (compare_init). Returns 0 (r->status 1 and the message on
 * a disorder, or in order), -1 after job_fail (the file changed while it
 * was checked), or 1 when it does not map: the caller reads it as a
 * stream.
 */
static int check_mapped(job_ctx *c, const job_opts *o, job_result *r, order_check *mc)
{
	io_file *f = &c->in[0];
	uint64_t bytes = f->size - f->pos;
	order_check m = *mc;
	m.n = bytes / c->R;
	void *map = NULL;
	if (m.n > 1) {
		if (f->size > SIZE_MAX || (map = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, f->fd, 0)) == MAP_FAILED)
			return 1;
		m.p = (const uint8_t *)map + f->pos;
		m.piece = CHECK_PIECE_BYTES / m.R ? CHECK_PIECE_BYTES / m.R : 1;
		atomic_init(&m.next, 0);
		atomic_init(&m.first, UINT64_MAX);
		uint64_t pieces = (m.n + m.piece - 1) / m.piece;
		int nt = o->threads > 1 ? o->threads : 1;
		util_par_run(pieces < (uint64_t)nt ? (int)pieces : nt, check_pieces, &m);
		munmap(map, (size_t)f->size);
	}
	uint64_t first = m.n > 1 ? atomic_load(&m.first) : UINT64_MAX;
	if (first != UINT64_MAX) {
		r->status = 1;
		snprintf(r->msg, sizeof r->msg, "%s: record %" PRIu64 ": disorder", f->name, first + 1);
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
 * while this thread checks the other one: each buffer follows, in one
 * window, the record that ended the buffer before, so that the same
 * comparisons as a mapping's serve (first_bad).
 */
static void check_stream(job_ctx *c, job_result *r, order_check *m)
{
	io_file *f = &c->in[0];
	const size_t R = c->R, n = (8u << 20) / R + 1, pad = (R + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
	const size_t one = pad + n * R + IO_ALIGN; /* a buffer, a record's room before it */
	uint8_t *base = util_alloc_aligned(2 * one, IO_ALIGN), *last = malloc(R), *buf[2];
	io_worker w = { 0 };
	io_job job[2];
	int cur = 0, pending = 0;
	uint64_t recno = 0; /* records before this buffer */
	if (!base || !last) {
		job_fail(c, "out of memory");
		goto out;
	}
	int rc = io_worker_start(&w);
	if (rc) {
		job_fail(c, "cannot start a thread: %s", strerror(-rc));
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		buf[i] = base + i * one + pad;
		job[i] = (io_job){ .op = IO_JOB_READ, .f = f, .buf = buf[i], .len = n * R, .cap = n * R + IO_ALIGN };
	}
	io_worker_submit(&w, &job[0]);
	pending = 1;
	for (;; cur ^= 1) {
		ssize_t got = io_worker_wait(&w, &job[cur]);
		pending = 0;
		if (got < 0) {
			job_fail(c, "%s: read error: %s", f->name, strerror((int)-got));
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
		if (!eof) { /* the next buffer read while this one is checked */
			io_worker_submit(&w, &job[cur ^ 1]);
			pending = 1;
		}
		size_t k = (size_t)got / R;
		/* window record 0: the last one before (none yet: start at 2) */
		m->p = buf[cur] - R;
		if (recno)
			memcpy(buf[cur] - R, last, R);
		uint64_t bad = k ? first_bad(m, recno ? 1 : 2, k + 1) : UINT64_MAX;
		if (bad != UINT64_MAX) {
			r->status = 1;
			snprintf(r->msg, sizeof r->msg, "%s: record %" PRIu64 ": disorder", f->name, recno + bad);
			break;
		}
		if (k)
			memcpy(last, buf[cur] + (k - 1) * R, R);
		recno += k;
		if (eof)
			break;
	}
	if (pending)
		io_worker_wait(&w, &job[cur ^ 1]);
	io_worker_stop(&w);
out:
	free(base);
	free(last);
}

void job_check(const job_opts *o, job_result *r)
{
	job_ctx c;
	memset(r, 0, sizeof *r);
	if (job_setup(&c, o, r) || inputs_open(&c, 1))
		goto done;
	order_check m = { .s = c.s, .R = c.R, .strict = o->unique };
	compare_init(&m);
	/* a regular file is checked through a mapping on every thread, as
	 * text's -c is; standard input from a pipe and a file that does not
	 * map are read in buffers and checked on this one */
	if (!c.in[0].regular || check_mapped(&c, o, r, &m) > 0)
		check_stream(&c, r, &m);
done:
	job_teardown(&c);
}
