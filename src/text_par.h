/*
 * text_par.h - the text job's parallel steps: one thread pool (tpool.h)
 * for the whole job, started once, so that steps of a few microseconds
 * (a 64 Ki-line output batch, a block of an input) cost no thread starts.
 */
#ifndef GPUSORT_TEXT_PAR_H
#define GPUSORT_TEXT_PAR_H
#include <stddef.h>
#include "tpool.h"

/* Run fn(arg, t, n) for t = 0..n-1 on pool p (n = its size), or fn(arg, 0, 1)
 * on this thread when p is NULL (no pool could be started: the job runs
 * serially, slower but the same). */
static inline void text_par_run(tpool *p, void (*fn)(void *arg, int t, int n), void *arg)
{
	if (p)
		tpool_run(p, fn, arg);
	else
		fn(arg, 0, 1);
}

/* Each of v[0, n) (a count per part) becomes the sum of those before it,
 * where the part's first item goes; returns the sum of them all. */
static inline size_t text_par_firsts(size_t *v, int n)
{
	size_t total = 0;
	for (int k = 0; k < n; k++) {
		size_t c = v[k];
		v[k] = total;
		total += c;
	}
	return total;
}

#endif
