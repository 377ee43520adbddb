/* gpumerge.c - see gpumerge.h. */
#include "gpumerge.h"
#include "merge.h"
#include "resident.h"
#include "util.h"
#include "../kernels/gpusort_kernels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One group: slice i is len[i] records at src[i]; at[i] its group-relative start. */
struct group {
	const uint8_t *const *src;
	int k;
	size_t R;
	const uint64_t *len, *at;
	/* the piece being filled */
	uint8_t *buf;
	uint64_t first, n;
	double fill_s;
};

/* Copy group records [a, b) (group-relative) into dst. */
static void copy_range(const struct group *g, uint64_t a, uint64_t b, uint8_t *dst)
{
	int i = 0;
	while (a < b) {
		while (i + 1 < g->k && g->at[i + 1] <= a)
			i++;
		uint64_t end = g->at[i] + g->len[i] < b ? g->at[i] + g->len[i] : b;
		if (end > a) {
			memcpy(dst, g->src[i] + (a - g->at[i]) * g->R, (size_t)(end - a) * g->R);
			dst += (end - a) * g->R;
			a = end;
		} else {
			i++;
		}
	}
}

static void fill_part(void *arg, int t, int nt)
{
	struct group *g = arg;
	size_t lo, hi;
	util_split((size_t)g->n, t, nt, &lo, &hi);
	copy_range(g, g->first + lo, g->first + hi, g->buf + lo * g->R);
}

static int produce(void *arg, tpool *tp, uint8_t *buf, uint64_t first, size_t n)
{
	struct group *g = arg;
	double t0 = util_now();
	g->buf = buf;
	g->first = first;
	g->n = n;
	tpool_run(tp, fill_part, g);
	g->fill_s += util_now() - t0;
	return 0;
}

struct out_ctx {
	sink *out;
	tpool *tp;
	double store_s;
};

/*
 * Hand a merged piece to the sink's writer without waiting for the write:
 * the writer works while the next group goes to the device and is ordered,
 * so writing (the slowest stage: one thread per file) never waits for
 * the GPU. sink_put would write synchronously and serialize the two.
 */
static int consume(void *arg, uint8_t *recs, size_t n)
{
	struct out_ctx *o = arg;
	double t0 = util_now();
	int rc = 0;
	if (n > sink_max_records(o->out)) {
		rc = sink_put(o->out, recs, n);
	} else {
		uint8_t *dst = sink_reserve(o->out, n);
		if (!dst)
			return o->out->err ? o->out->err : -ENOMEM;
		tpool_memcpy(o->tp, dst, recs, n * o->out->s->record_size);
		sink_commit(o->out, dst, n);
	}
	o->store_s += util_now() - t0;
	return rc;
}

int gpumerge_group(resident *rs, const uint8_t *const *src, const uint64_t *len, int k, sink *out, tpool *tp,
		   int by_sort, gpumerge_stats *st, char *msg, size_t mlen)
{
	uint64_t *at = malloc((size_t)k * sizeof *at), m = 0;
	if (!at) {
		snprintf(msg, mlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < k; i++) {
		at[i] = m;
		m += len[i];
	}
	struct group g = { .src = src, .k = k, .R = out->s->record_size, .len = len, .at = at };
	struct out_ctx oc = { out, tp, 0 };
	/* The group is its runs' slices in run order, each sorted: the device
	 * merges them (stable: ties keep slice order, then position), or with
	 * by_sort orders the group with the stable chunk sort; both give the
	 * merge's (key, run, position) order. */
	resident_chunk ch = { .first = 0, .n = m, .produce = produce, .parg = &g, .consume = consume,
			      .arg = &oc, .seg = by_sort ? NULL : at, .nseg = k };
	int rc = m ? resident_sort_chunk(rs, &ch, NULL, msg, mlen) : 0; /* groups one at a time */
	st->fill_s += g.fill_s;
	st->store_s += oc.store_s;
	free(at);
	return rc;
}

/* The largest group of a plan, in records. */
static uint64_t largest(const uint64_t *cuts, int k, int groups)
{
	uint64_t m = 0;
	for (int g = 0; g < groups; g++) {
		uint64_t sum = 0;
		for (int i = 0; i < k; i++)
			sum += cuts[(size_t)(g + 1) * k + i] - cuts[(size_t)g * k + i];
		if (sum > m)
			m = sum;
	}
	return m;
}

int gpumerge_runs(engine *e, const keys_spec *s, run **runs, int k, sink *out, tpool *tp, size_t piece_bytes,
		  int by_sort, gpumerge_stats *st, char *msg, size_t mlen)
{
	uint64_t total = 0, cap = e->max_records;
	msg[0] = 0;
	*st = (gpumerge_stats){ .rest = st->rest };
	if (!e->gpu || k < 1)
		return 1;
	if (!by_sort) {
		/* the merge needs a second buffer on the device: smaller groups */
		uint64_t mc = gpu_merge_capacity(e->gpu, e->s);
		cap = mc < cap ? mc : cap;
	}
	if (cap < 2)
		return 1;
	for (int i = 0; i < k; i++) {
		if (!runs[i]->mem && runs[i]->n)
			return 1;
		total += runs[i]->n;
	}
	/* groups: enough that the largest fits the device; regular sampling
	 * bounds a group by about total/groups + total/samples, so 8 samples
	 * per group per run leave room, and the plan is checked, not trusted */
	int groups = (int)((total + cap - 1) / cap);
	uint64_t *cuts = NULL;
	for (;;) {
		if (groups < 1)
			groups = 1;
		free(cuts);
		cuts = malloc((size_t)(groups + 1) * (size_t)k * sizeof *cuts);
		if (!cuts || merge_plan_groups(s, runs, k, groups, 8 * groups, cuts)) {
			free(cuts);
			snprintf(msg, mlen, "out of memory");
			return -1;
		}
		if (largest(cuts, k, groups) <= cap)
			break;
		if (groups > (1 << 20)) {
			free(cuts);
			return 1;
		}
		groups = groups + groups / 2 + 1;
	}
	resident *rs = NULL;
	uint64_t *len = malloc((size_t)k * sizeof *len);
	const uint8_t **src = malloc((size_t)k * sizeof *src);
	int ret = 1;
	if (!len || !src || resident_open(&rs, e, s, NULL, 0, piece_bytes, tp) != 0)
		goto out;
	for (int gi = 0; gi < groups; gi++) {
		const uint64_t *lo = cuts + (size_t)gi * k;
		uint64_t m = 0;
		for (int i = 0; i < k; i++) {
			len[i] = cuts[(size_t)(gi + 1) * k + i] - lo[i];
			src[i] = runs[i]->mem + lo[i] * s->record_size;
			m += len[i];
		}
		if (m == 0)
			continue;
		uint64_t before = out->records;
		int rc = gpumerge_group(rs, src, len, k, out, tp, by_sort, st, msg, mlen);
		if ((rc == 1 || rc == RESIDENT_GPU_FAILED) && out->records == before) {
			/* nothing of this group written: the runs in memory are
			 * intact, and the CPU merges from here */
			if (rc == RESIDENT_GPU_FAILED)
				engine_gpu_lost(e, msg);
			msg[0] = 0;
			if (!out->records)
				goto out; /* all of it: 1 */
			memcpy(st->rest, lo, (size_t)k * sizeof *st->rest);
			ret = GPUMERGE_REST;
			goto out;
		}
		if (rc) {
			if (rc == 1)
				snprintf(msg, mlen, "GPU out of memory while merging a group of %llu records",
					 (unsigned long long)m);
			ret = -1;
			goto out;
		}
		st->groups++;
	}
	ret = 0;
out:
	resident_close(rs);
	free(src);
	free(len);
	free(cuts);
	return ret;
}
