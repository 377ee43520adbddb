/* text_order.c - whether lines in memory are in order (text_order.h). */
#define _GNU_SOURCE /* memrchr */
#include "text_order.h"
#include "text_cmp.h"

#include <stdatomic.h>
#include <string.h>

#define ORDER_PIECE ((size_t)1 << 20) /* bytes of lines a step (their starts in it) */

typedef struct order_job {
	const text_spec *s;
	const uint8_t *p;
	size_t size, pieces;
	atomic_size_t next;
	atomic_int bad;
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

/* 1 when y goes before x, the line above it. Compared whole, not by the
 * merge's prefixes: making a line's prefix costs more than the one
 * comparison it would save here (-n: code_key and the number parsed). */
static int goes_back(const text_spec *s, const oline *x, const oline *y)
{
	return text_cmp(s, x->at, x->len, y->at, y->len) > 0;
}

/* The lines that start in piece q, each against the line above it. */
static int piece_sorted(order_job *j, size_t q)
{
	size_t lo = q * ORDER_PIECE, hi = j->size - lo < ORDER_PIECE ? j->size : lo + ORDER_PIECE, start = lo;
	if (lo) { /* a line starts after a delimiter */
		const uint8_t *e = memchr(j->p + lo - 1, j->s->eol, j->size - (lo - 1));
		if (!e || (size_t)(e + 1 - j->p) >= hi)
			return 1;
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
		if (have && goes_back(j->s, &prev, &cur))
			return 0;
		if ((n & 255) == 255 && atomic_load_explicit(&j->bad, memory_order_relaxed))
			return 1; /* another piece found one: this one's answer is moot */
		prev = cur, have = 1;
		start += cur.len + 1;
	}
	return 1;
}

static void order_step(void *arg, int t, int n)
{
	(void)t, (void)n;
	order_job *j = arg;
	for (size_t q; !atomic_load_explicit(&j->bad, memory_order_relaxed) &&
		       (q = atomic_fetch_add(&j->next, 1)) < j->pieces;)
		if (!piece_sorted(j, q))
			atomic_store(&j->bad, 1);
}

int text_order_sorted(const text_spec *s, const uint8_t *p, size_t size, tpool *pool)
{
	order_job j = { s, p, size, (size + ORDER_PIECE - 1) / ORDER_PIECE, 0, 0 };
	if (pool && j.pieces > 1)
		tpool_run(pool, order_step, &j);
	else
		order_step(&j, 0, 1);
	return !atomic_load(&j.bad);
}
