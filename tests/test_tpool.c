/* test_tpool.c - the thread pool: every part of every step runs once, part 0 on the caller;
 * util_par_slices: every item in exactly one slice, slices no smaller than asked. */
#include "tpool.h"
#include "unit.h"
#include "util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct step {
	int runs[64];          /* times each part ran in this step */
	int nparts[64];        /* the part count each part was told */
	pthread_t caller, part0;
	uint64_t sum[64];      /* each part's share of 0..N-1 */
};

static void work(void *arg, int t, int n)
{
	struct step *s = arg;
	s->runs[t]++;
	s->nparts[t] = n;
	if (t == 0)
		s->part0 = pthread_self();
	/* a little uneven work, so parts finish out of order */
	uint64_t lo = 100000ull * (uint64_t)t, hi = lo + 100000ull + 5000ull * (uint64_t)(t % 3), acc = 0;
	for (uint64_t i = lo; i < hi; i++)
		acc += i;
	s->sum[t] = acc;
}

/* util_par_slices' visits: each item's count, the smallest slice but the last */
struct visits {
	_Atomic unsigned char *seen;
	size_t n, min_slice;
	_Atomic size_t small, slices;
};

static void visit(void *arg, size_t lo, size_t hi)
{
	struct visits *v = arg;
	v->slices++;
	if (hi - lo < v->min_slice && hi != v->n)
		v->small++;
	for (size_t i = lo; i < hi; i++)
		v->seen[i]++;
}

int main(void)
{
	TEST_BEGIN("util/par-slices-every-item-once") {
		size_t ns[] = { 0, 1, 7, 16383, 16384, 100000, 1000003 };
		size_t mins[] = { 0, 1, 16384 };
		for (int t = 1; t <= 9; t += 4)
			for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
				for (size_t m = 0; m < sizeof mins / sizeof *mins; m++) {
					size_t n = ns[i];
					struct visits v = { calloc(n + 1, 1), n, mins[m], 0, 0 };
					CHECK(util_par_slices(t, n, mins[m], visit, &v) == 0, "t %d n %zu: threads", t, n);
					size_t bad = 0;
					for (size_t k = 0; k < n; k++)
						bad += v.seen[k] != 1;
					CHECK(!bad, "t %d n %zu min %zu: %zu items not visited exactly once", t, n, mins[m], bad);
					CHECK(v.seen[n] == 0, "t %d n %zu: an item past the end visited", t, n);
					CHECK(!v.small || n < 2 * mins[m], "t %d n %zu min %zu: %zu slices under the minimum", t, n,
					      mins[m], (size_t)v.small);
					CHECK(v.slices <= (size_t)t * UTIL_SLICES_PER_THREAD, "t %d n %zu: %zu slices, more than asked", t, n,
					      (size_t)v.slices);
					free((void *)v.seen);
				}
	} TEST_END();
	TEST_BEGIN("tpool/every-part-once-per-step") {
		for (int n = 1; n <= 17; n += (n < 4 ? 1 : 6)) {
			tpool *p = NULL;
			CHECK(tpool_start(&p, n) == 0 && p, "tpool_start(%d) failed", n);
			if (!p)
				break;
			CHECK(tpool_size(p) == n, "size %d, want %d", tpool_size(p), n);
			for (int step = 0; step < 200; step++) {
				struct step s;
				memset(&s, 0, sizeof s);
				s.caller = pthread_self();
				tpool_run(p, work, &s);
				for (int t = 0; t < n; t++) {
					uint64_t lo = 100000ull * (uint64_t)t, hi = lo + 100000ull + 5000ull * (uint64_t)(t % 3);
					CHECK(s.runs[t] == 1, "n %d step %d: part %d ran %d times", n, step, t, s.runs[t]);
					CHECK(s.nparts[t] == n, "n %d: part %d was told %d parts", n, t, s.nparts[t]);
					CHECK(s.sum[t] == (hi * (hi - 1) - lo * (lo - 1)) / 2, "n %d: part %d's result is wrong", n, t);
				}
				CHECK(s.runs[n] == 0, "n %d: a part beyond the pool ran", n);
				CHECK(pthread_equal(s.caller, s.part0), "n %d: part 0 did not run on the caller", n);
			}
			tpool_stop(p);
		}
		tpool_stop(NULL);
	} TEST_END();
	TEST_BEGIN("tpool/memcpy-exact") {
		/* sizes below and above the pool's 1 MiB threshold, odd lengths and
		 * offsets, 1 to 5 threads, pieces of the 256 KiB least and larger
		 * (41 MiB on 5 threads: ~1 MiB, a short last one): the copy must be
		 * byte-exact and stay in bounds */
		size_t sizes[] = { 0, 1, 4095, (1u << 20) - 1, 1u << 20, (3u << 20) + 7, (9u << 20) + 13, (41u << 20) + 4097 };
		unsigned long long seed = 5;
		for (int n = 1; n <= 5; n += 2) {
			tpool *p = NULL;
			CHECK(tpool_start(&p, n) == 0, "tpool_start(%d)", n);
			for (size_t i = 0; p && i < sizeof sizes / sizeof *sizes; i++) {
				size_t len = sizes[i];
				unsigned char *src = malloc(len + 3), *dst = malloc(len + 5);
				for (size_t j = 0; j < len + 3; j++)
					src[j] = (unsigned char)unit_rand(&seed);
				memset(dst, 0xEE, len + 5);
				tpool_memcpy(p, dst + 2, src + 3, len);
				CHECK(!memcmp(dst + 2, src + 3, len), "n %d: %zu bytes differ", n, len);
				CHECK(dst[0] == 0xEE && dst[1] == 0xEE && dst[len + 2] == 0xEE, "n %d: %zu bytes: wrote out of bounds",
				      n, len);
				free(src);
				free(dst);
			}
			tpool_stop(p);
		}
	} TEST_END();
	return UNIT_EXIT();
}
