/*
 * test_verify.c - --verify's accumulators (verify.h): the sum split over 1
 * to 5 threads equals the one taken on one thread and does not depend on
 * the records' order, and changes with one byte; the first record out of
 * order (strict: or tied) found in a stream fed in buffers of several
 * sizes is the one a plain keys_compare scan finds, wherever it lies: at
 * a buffer's start (against the buffer before), at a part's seam, inside
 * a part; for keys compared natively (u16, u64, i32:r), as words (two u32
 * keys) and by keys_compare (bytes10 in 16-byte records).
 */
#include "verify.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static const keys_spec *qs_spec;
static int qs_cmp(const void *a, const void *b)
{
	return keys_compare(qs_spec, a, b);
}

/* The first record (1-based) of recs[0..n) that goes before the one above it (strict: or ties it), or 0. */
static uint64_t first_bad_ref(const keys_spec *s, const uint8_t *recs, size_t n, int strict)
{
	size_t R = s->record_size;
	for (size_t i = 1; i < n; i++) {
		int c = keys_compare(s, recs + (i - 1) * R, recs + i * R);
		if (c > 0 || (strict && c == 0))
			return i + 1;
	}
	return 0;
}

/* recs fed to a fresh verify_order (and a sum) in buffers cut at cuts[]
 * (ncut of them, ascending, in records), on tp (NULL: one thread). */
static void feed(tpool *tp, const keys_spec *s, int strict, const uint8_t *recs, size_t n, const size_t *cuts,
		 int ncut, verify_sum *sum, verify_order *ord)
{
	memset(sum, 0, sizeof *sum);
	free(ord->last);
	memset(ord, 0, sizeof *ord);
	ord->last = malloc(s->record_size);
	verify_order_init(ord, s, strict);
	size_t at = 0;
	for (int c = 0; c <= ncut; c++) {
		size_t end = c < ncut ? cuts[c] : n;
		verify_add_par(tp, sum, ord, recs + at * s->record_size, end - at, s->record_size);
		at = end;
	}
}

static int same_sum(const verify_sum *a, const verify_sum *b)
{
	return a->lo == b->lo && a->hi == b->hi && a->n == b->n;
}

int main(void)
{
	static const struct {
		const char *k[2];
		uint32_t rs;
		size_t n; /* records: half of them are more than VERIFY_PAR_BYTES */
	} cases[] = {
		{ { "u16", NULL }, 0, 1400000 },
		{ { "u64", NULL }, 0, 400000 },
		{ { "i32:r", NULL }, 0, 600000 },
		{ { "u32", "u32" }, 0, 400000 },
		{ { "bytes10", NULL }, 16, 200000 },
	};
	unsigned long long seed = 11;
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
		keys_spec s;
		char msg[256], name[96];
		memset(&s, 0, sizeof s);
		uint32_t off = 0;
		for (int k = 0; k < 2 && cases[ci].k[k]; k++, s.n++) {
			if (keys_parse(cases[ci].k[k], off, &s.f[k], msg, sizeof msg))
				return 1;
			off = s.f[k].offset + s.f[k].width;
		}
		if (keys_finish(&s, cases[ci].rs, 0, msg, sizeof msg))
			return 1;
		size_t R = s.record_size, n = cases[ci].n;
		uint8_t *recs = malloc(n * R), *work = malloc(n * R);
		for (size_t i = 0; i < n * R; i++)
			recs[i] = (uint8_t)(unit_rand(&seed) % (R == 2 ? 256 : 7)); /* ties among longer records */
		verify_order ord = { 0 };
		verify_sum one, sum;

		snprintf(name, sizeof name, "verify/sum-%s%s%s", cases[ci].k[0], cases[ci].k[1] ? "-" : "",
			 cases[ci].k[1] ? cases[ci].k[1] : "");
		TEST_BEGIN(name) {
			memset(&one, 0, sizeof one);
			verify_add(&one, recs, n, R);
			for (int nt = 1; nt <= 5; nt++) {
				tpool *tp = NULL;
				CHECK(tpool_start(&tp, nt) == 0, "tpool_start");
				size_t cuts[2] = { n / 3, n / 3 + 1 };
				feed(tp, &s, 0, recs, n, cuts, 2, &sum, &ord);
				CHECK(same_sum(&sum, &one), "%d threads: another sum", nt);
				tpool_stop(tp);
			}
			/* the same records in another order: the same sum */
			memcpy(work, recs, n * R);
			qs_spec = &s;
			qsort(work, n, R, qs_cmp);
			memset(&sum, 0, sizeof sum);
			verify_add(&sum, work, n, R);
			CHECK(same_sum(&sum, &one), "sorted: another sum");
			work[(n / 2) * R] ^= 1;
			memset(&sum, 0, sizeof sum);
			verify_add(&sum, work, n, R);
			CHECK(!same_sum(&sum, &one), "one byte changed: the same sum");
		} TEST_END();

		snprintf(name, sizeof name, "verify/order-%s%s%s", cases[ci].k[0], cases[ci].k[1] ? "-" : "",
			 cases[ci].k[1] ? cases[ci].k[1] : "");
		TEST_BEGIN(name) {
			memcpy(work, recs, n * R);
			qs_spec = &s;
			qsort(work, n, R, qs_cmp);
			tpool *tp = NULL;
			CHECK(tpool_start(&tp, 4) == 0, "tpool_start");
			/* buffers cut at n/2 (so that on 4 threads the parts' seams fall
			 * at n/8, n/4 and 3n/8 in the first); disorder placed at each
			 * place that matters: record i the greatest makes the pair
			 * (i, i + 1) out of order, across a seam when i + 1 is one */
			size_t cuts[1] = { n / 2 };
			size_t at[] = { 0, 1, n / 8 - 1, n / 8, n / 4 - 1, 3 * n / 8 - 1, n / 2 - 1, n / 2,
					n / 2 + n / 8 - 1, n - 1, 12345 };
			for (int strict = 0; strict <= 1; strict++) {
				for (int t = 0; t < 2; t++) {
					feed(t ? tp : NULL, &s, strict, work, n, cuts, 1, &sum, &ord);
					CHECK(ord.bad == first_bad_ref(&s, work, n, strict) && ord.seen == n,
					      "in order, strict %d, %d: bad %llu, want %llu", strict, t,
					      (unsigned long long)ord.bad, (unsigned long long)first_bad_ref(&s, work, n, strict));
				}
			}
			for (size_t a = 0; a < sizeof at / sizeof at[0]; a++) {
				size_t i = at[a];
				uint8_t *dis = malloc(n * R);
				memcpy(dis, work, n * R);
				/* record i becomes the greatest (the last: the least), so
				 * that the one after it (or it) is out of order */
				memcpy(dis + i * R, work + (i < n - 1 ? n - 1 : 0) * R, R);
				for (int strict = 0; strict <= 1; strict++) {
					uint64_t want = first_bad_ref(&s, dis, n, strict);
					CHECK(want != 0, "no disorder made at %zu", i);
					for (int t = 0; t < 2; t++) {
						feed(t ? tp : NULL, &s, strict, dis, n, cuts, 1, &sum, &ord);
						CHECK(ord.bad == want, "disorder at %zu, strict %d, threads %d: bad %llu, want %llu", i,
						      strict, t ? 4 : 1, (unsigned long long)ord.bad, (unsigned long long)want);
					}
				}
				free(dis);
			}
			tpool_stop(tp);
		} TEST_END();
		free(ord.last);
		free(recs);
		free(work);
	}
	return UNIT_EXIT();
}
