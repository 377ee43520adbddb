/* text_order.c - whether lines in memory are in order (text_order.h). */
#define _GNU_SOURCE /* memrchr */
#include "text_order.h"
#include "text_cmp.h"
#include "util.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define ORDER_PIECE ((size_t)1 << 20) /* bytes of lines a step (their starts in it) */

typedef struct order_job {
	const text_spec *s;
	const uint8_t *p;
	size_t size, pieces;
	int strict;
	atomic_size_t next;         /* text_order_lines: the next piece */
	atomic_uint_fast64_t lines; /* text_order_lines: the delimiters counted */
} order_job;

/* A line: its bytes, delimiter not counted. */
typedef struct oline {
	const uint8_t *at;
	size_t len;
} oline;

/* The line at byte `start`, which ends at the next delimiter or at the end. */
static oline line_at(const order_job *j, size_t start)
{
	const uint8_t *e = memchr(j->p + start, j->s->eol, j->size - start);
	return (oline){ j->p + start, e ? (size_t)(e - (j->p + start)) : j->size - start };
}

/* 1 when y is out of order after x, the line above it: goes before it
 * (or, strict, ties it). Compared whole, not by the merge's prefixes:
 * making a line's prefix costs more than the one comparison it would
 * save here (-n: code_key and the number parsed). */
static int out_of_order(const order_job *j, const oline *x, const oline *y)
{
	int d = text_cmp(j->s, x->at, x->len, y->at, y->len);
	return j->strict ? d >= 0 : d > 0;
}

/* The first line that starts in [lo, hi) and is out of order after the
 * line above it (its byte), or SIZE_MAX; stops early, SIZE_MAX, once a
 * line out of order before lo is found (util_earliest). */
static size_t piece_first(void *arg, size_t lo, size_t hi, const util_earliest *search)
{
	order_job *j = arg;
	size_t start = lo;
	if (lo) { /* a line starts after a delimiter */
		const uint8_t *e = memchr(j->p + lo - 1, j->s->eol, j->size - (lo - 1));
		if (!e || (size_t)(e + 1 - j->p) >= hi)
			return SIZE_MAX;
		start = (size_t)(e + 1 - j->p);
	}
	oline prev = { 0 };
	int have = start > 0;
	if (have) {
		const uint8_t *b = start > 1 ? memrchr(j->p, j->s->eol, start - 1) : NULL;
		prev = line_at(j, b ? (size_t)(b + 1 - j->p) : 0);
	}
	for (unsigned n = 0; start < hi; n++) {
		oline cur = line_at(j, start);
		if (have && out_of_order(j, &prev, &cur))
			return start;
		if ((n & 255) == 255 && util_earliest_found(search) < lo)
			return SIZE_MAX; /* one was found before this piece */
		prev = cur, have = 1;
		start += cur.len + 1;
	}
	return SIZE_MAX;
}

size_t text_order_first(const text_spec *s, const uint8_t *p, size_t size, int strict, tpool *pool)
{
	order_job j = { .s = s, .p = p, .size = size, .strict = strict };
	util_earliest e;
	util_earliest_init(&e, size, ORDER_PIECE, piece_first, &j);
	if (pool && size > ORDER_PIECE)
		tpool_run(pool, util_earliest_step, &e);
	else
		util_earliest_step(&e, 0, 1);
	return util_earliest_found(&e);
}

int text_order_sorted(const text_spec *s, const uint8_t *p, size_t size, tpool *pool)
{
	return text_order_first(s, p, size, 0, pool) == SIZE_MAX;
}

static void count_step(void *arg, int t, int n)
{
	(void)t, (void)n;
	order_job *j = arg;
	const uint8_t eol = j->s->eol;
	for (size_t q; (q = atomic_fetch_add(&j->next, 1)) < j->pieces;) {
		size_t lo = q * ORDER_PIECE, len = j->size - lo < ORDER_PIECE ? j->size - lo : ORDER_PIECE;
		uint64_t c = 0;
		for (size_t i = 0; i < len; i++)
			c += j->p[lo + i] == eol;
		atomic_fetch_add(&j->lines, c);
	}
}

uint64_t text_order_lines(const text_spec *s, const uint8_t *p, size_t size, tpool *pool)
{
	order_job j = { .s = s, .p = p, .size = size, .pieces = (size + ORDER_PIECE - 1) / ORDER_PIECE };
	atomic_init(&j.next, 0);
	atomic_init(&j.lines, 0);
	if (pool && j.pieces > 1)
		tpool_run(pool, count_step, &j);
	else
		count_step(&j, 0, 1);
	return atomic_load(&j.lines) + (size && p[size - 1] != s->eol);
}
