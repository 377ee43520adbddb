/* splitters.c - see splitters.h. */
#define _GNU_SOURCE
#include "splitters.h"

#include <errno.h>
#include <stdlib.h>

size_t splitters_rank(const keys_spec *s, const uint8_t *base, size_t lo, size_t hi, int ri, const uint8_t *sp,
		      int sr, size_t sp_pos, int inclusive)
{
	if (ri == sr)
		return sp_pos + (inclusive ? 1 : 0);
	size_t R = s->record_size;
	/* runs before the splitter's run: equal keys order first (upper bound);
	 * runs after it: equal keys order after (lower bound) */
	int upper = ri < sr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = keys_compare(s, base + mid * R, sp);
		if (c < 0 || (upper && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* (key, run, position) order: a total order, so the sort's result does not
 * depend on qsort's (unstable) tie handling. */
static int sample_cmp(const void *a, const void *b, void *arg)
{
	const splitters_key *x = a, *y = b;
	int c = keys_compare(arg, x->rec, y->rec);
	if (c)
		return c;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int splitters_choose(const keys_spec *s, const splitters_run *runs, int k, int parts, splitters_key *sp)
{
	size_t R = s->record_size, ns = 0, nsamp = 0;
	for (int i = 0; i < k; i++)
		nsamp += runs[i].hi > runs[i].lo ? (size_t)runs[i].samples : 0;
	splitters_key *sm = malloc(nsamp * sizeof *sm + 1);
	if (!sm)
		return -ENOMEM;
	/* step 3: equidistant samples of each run */
	for (int i = 0; i < k; i++) {
		const splitters_run *r = &runs[i];
		uint64_t len = r->hi - r->lo;
		for (uint64_t q = 1; q <= r->samples && len; q++) {
			uint64_t at = r->lo + len * q / (r->samples + 1);
			sm[ns++] = (splitters_key){ r->base + at * R, i, at };
		}
	}
	/* step 4: all samples sorted */
	qsort_r(sm, ns, sizeof *sm, sample_cmp, (void *)s);
	/* step 5: equidistant global samples */
	for (int p = 1; p < parts; p++)
		sp[p - 1] = ns ? sm[ns * (size_t)p / (size_t)parts] : (splitters_key){ NULL, 0, 0 };
	free(sm);
	return 0;
}

void splitters_band(const keys_spec *s, const uint8_t *samples, uint64_t nsample, uint64_t every, uint64_t n, int ri,
		    const splitters_key *sp, uint64_t *lo, uint64_t *hi)
{
	if (sp->run == ri) {
		*lo = *hi = sp->pos; /* the splitter is this run's own record */
		return;
	}
	uint64_t j = splitters_rank(s, samples, 0, (size_t)nsample, ri, sp->rec, sp->run, 0, 0);
	/* samples [0, j) order before the splitter, and so does every record
	 * up to sample j-1; sample j (if any) orders after it, and so does
	 * every record from it on */
	*lo = j ? (j - 1) * every + 1 : 0;
	*hi = j < nsample ? j * every : n;
	if (*lo > n)
		*lo = n;
	if (*hi > n)
		*hi = n;
}

/* Step 6 for one splitter: cut[i] = where sp cuts runs[i]'s range (its hi
 * for every run when no run had a sample). */
static void cut_at(const keys_spec *s, const splitters_run *runs, int k, const splitters_key *sp, uint64_t *cut)
{
	if (sp && !sp->rec)
		sp = NULL;
	for (int i = 0; i < k; i++) {
		const splitters_run *r = &runs[i];
		uint64_t c = r->hi;
		if (sp)
			c = splitters_rank(s, r->base, (size_t)r->lo, (size_t)r->hi, i, sp->rec, sp->run, (size_t)sp->pos, 0);
		cut[i] = c < r->lo ? r->lo : c > r->hi ? r->hi : c;
	}
}

int splitters_cut(const keys_spec *s, const splitters_run *runs, int k, int parts, uint64_t *cuts)
{
	for (int i = 0; i < k; i++) {
		cuts[i] = runs[i].lo;
		cuts[(size_t)parts * k + i] = runs[i].hi;
	}
	if (parts < 2)
		return 0;
	splitters_key *sps = malloc((size_t)(parts - 1) * sizeof *sps);
	if (!sps || splitters_choose(s, runs, k, parts, sps)) {
		free(sps);
		return -ENOMEM;
	}
	/* step 6: each splitter located in each run; the splitters are in
	 * (key, run, position) order, so each run's cuts do not decrease */
	for (int p = 1; p < parts; p++) {
		uint64_t *c = cuts + (size_t)p * k;
		cut_at(s, runs, k, &sps[p - 1], c);
		for (int i = 0; i < k; i++)
			if (c[i] < c[i - k])
				c[i] = c[i - k];
	}
	free(sps);
	return 0;
}
