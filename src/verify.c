/* verify.c - see verify.h. */
#include "verify.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

void verify_add(verify_sum *v, const uint8_t *recs, size_t n, size_t R)
{
	uint64_t lo = v->lo, hi = v->hi;
	for (size_t i = 0; i < n; i++) {
		XXH128_hash_t x = XXH3_128bits(recs + i * R, R);
		uint64_t t = lo + x.low64;
		hi += x.high64 + (t < lo);
		lo = t;
	}
	v->lo = lo;
	v->hi = hi;
	v->n += n;
}

void verify_merge(verify_sum *a, const verify_sum *b)
{
	uint64_t t = a->lo + b->lo;
	a->hi += b->hi + (t < a->lo);
	a->lo = t;
	a->n += b->n;
}

void verify_order_init(verify_order *v, const keys_spec *s, int strict)
{
	order_check_init(&v->cmp, s, strict);
}

/* The bookkeeping after n records at recs were checked: the first record
 * out of order within them (SIZE_MAX: none) and the last one kept. */
static void order_done(verify_order *v, const uint8_t *recs, size_t n, size_t bad)
{
	if (bad != SIZE_MAX && !v->bad)
		v->bad = v->seen + bad + 1;
	if (n) {
		memcpy(v->last, recs + (n - 1) * v->cmp.R, v->cmp.R);
		v->have = 1;
	}
	v->seen += n;
}

void verify_order_add(verify_order *v, const uint8_t *recs, size_t n)
{
	size_t bad = SIZE_MAX;
	if (!v->bad && n) {
		order_check m = v->cmp;
		m.p = recs;
		if (v->have && order_check_pair(&m, v->last, recs))
			bad = 0;
		else if (n > 1)
			bad = order_check_first(&m, 1, n);
	}
	order_done(v, recs, n, bad);
}

typedef struct par_verify {
	const uint8_t *recs;
	size_t n, R;
	const verify_order *ord;   /* NULL: the sum alone */
	verify_sum *sum;           /* one a part */
	size_t *bad;               /* one a part: its first record out of order, or SIZE_MAX */
} par_verify;

/* tpool_run's part t of nt: records [n t / nt, n (t + 1) / nt), each
 * compared with the one before it when that one is the buffer's. */
static void verify_part(void *arg, int t, int nt)
{
	par_verify *p = arg;
	size_t lo = p->n * (size_t)t / (size_t)nt, hi = p->n * ((size_t)t + 1) / (size_t)nt;
	verify_add(&p->sum[t], p->recs + lo * p->R, hi - lo, p->R);
	p->bad[t] = SIZE_MAX;
	if (p->ord && !p->ord->bad) {
		order_check m = p->ord->cmp;
		m.p = p->recs;
		p->bad[t] = order_check_first(&m, lo ? lo : 1, hi);
	}
}

void verify_add_par(tpool *tp, verify_sum *sum, verify_order *ord, const uint8_t *recs, size_t n, size_t R)
{
	int nt = tp ? tpool_size(tp) : 1;
	verify_sum *part = nt > 1 && n * R >= VERIFY_PAR_BYTES ? calloc((size_t)nt, sizeof *part) : NULL;
	size_t *bad = part ? malloc((size_t)nt * sizeof *bad) : NULL;
	if (!bad) { /* small, no threads, or no memory for the parts' state */
		free(part);
		verify_add(sum, recs, n, R);
		if (ord)
			verify_order_add(ord, recs, n);
		return;
	}
	par_verify p = { .recs = recs, .n = n, .R = R, .ord = ord, .sum = part, .bad = bad };
	tpool_run(tp, verify_part, &p);
	for (int t = 0; t < nt; t++)
		verify_merge(sum, &part[t]);
	if (ord) {
		size_t first = SIZE_MAX;
		order_check m = ord->cmp;
		m.p = recs;
		if (!ord->bad && ord->have && order_check_pair(&m, ord->last, recs))
			first = 0;
		for (int t = 0; t < nt && first == SIZE_MAX; t++)
			first = bad[t]; /* parts in stream order: the first one that found one */
		order_done(ord, recs, n, first);
	}
	free(part);
	free(bad);
}
