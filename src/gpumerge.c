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

/* One group: slice i is records [lo[i], lo[i] + len[i]) of run i; at[i] its group-relative start. */
struct group {
	run **runs;
	int k;
	size_t R;
	const uint64_t *lo;
	uint64_t *len, *at;
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
			memcpy(dst, g->runs[i]->mem + (g->lo[i] + (a - g->at[i])) * g->R, (size_t)(end - a) * g->R);
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
	if (n > sink_max_records(o->out))
		return sink_put(o->out, recs, n);
	uint8_t *dst = sink_reserve(o->out, n);
	if (!dst)
		return o->out->err ? o->out->err : -ENOMEM;
	tpool_memcpy(o->tp, dst, recs, n * o->out->s->record_size);
	sink_commit(o->out, dst, n);
	return 0;
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
	uint64_t *len = malloc(2 * (size_t)k * sizeof *len);
	int ret = 1;
	if (!len || resident_open(&rs, e, s, NULL, 0, piece_bytes, tp) != 0)
		goto out;
	struct group g = { .runs = runs, .k = k, .R = s->record_size, .len = len, .at = len + k };
	struct out_ctx oc = { out, tp };
	for (int gi = 0; gi < groups; gi++) {
		uint64_t m = 0;
		g.lo = cuts + (size_t)gi * k;
		for (int i = 0; i < k; i++) {
			len[i] = cuts[(size_t)(gi + 1) * k + i] - g.lo[i];
			g.at[i] = m;
			m += len[i];
		}
		if (m == 0)
			continue;
		/* The group is its runs' slices in run order, each sorted: the
		 * device merges them (stable: ties keep slice order, then
		 * position), or with GPUSORT_GPU_MERGE=sort orders the group with
		 * the stable chunk sort; both give the merge's (key, run,
		 * position) order. */
		resident_chunk ch = { .first = 0, .n = m, .produce = produce, .parg = &g, .consume = consume,
				      .arg = &oc, .seg = by_sort ? NULL : g.at, .nseg = k };
		uint64_t before = out->records;
		int rc = resident_sort_chunk(rs, &ch, NULL, msg, mlen); /* groups one at a time, as before */
		if ((rc == 1 || rc == RESIDENT_GPU_FAILED) && out->records == before) {
			/* nothing of this group written: the runs in memory are
			 * intact, and the CPU merges from here */
			if (rc == RESIDENT_GPU_FAILED)
				engine_gpu_lost(e, msg);
			msg[0] = 0;
			if (!out->records)
				goto out; /* all of it: 1 */
			memcpy(st->rest, g.lo, (size_t)k * sizeof *st->rest);
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
	st->fill_s = g.fill_s;
	ret = 0;
out:
	resident_close(rs);
	free(len);
	free(cuts);
	return ret;
}
