/*
 * runs_count.c - records that are their keys, 1 or 2 bytes wide: counted,
 * not sorted (runs.h PLAN_COUNT).
 *
 * Such a record is its key (keys_inplace: equal keys are equal bytes), and
 * there are at most 2^16 of them, so a histogram of the values seen is the
 * whole sorted output: each value, in key order (keys_count_order), as
 * often as it came. The inputs are read once, in blocks, each counted by
 * every thread into a histogram of its own; nothing is kept or spilled,
 * whatever the input's size and -S, and the output is written once.
 */
#define _GNU_SOURCE
#include "runs.h"
#include "inputs.h"
#include "keys.h"
#include "tpool.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The read block: a quarter of -S within these bounds. */
#define COUNT_BLOCK_MIN ((size_t)1 << 20)
#define COUNT_BLOCK_MAX ((size_t)32 << 20)

typedef struct counting {
	const uint8_t *buf;
	size_t n;       /* records at buf */
	size_t R;       /* bytes per record: 1 or 2 */
	size_t V;       /* values a record can take: 2^(8R) */
	uint64_t *hist; /* a histogram of V counters per thread */
} counting;

/* tpool_run's part t of nt: records [n t / nt, n (t + 1) / nt) counted into histogram t. */
static void count_part(void *arg, int t, int nt)
{
	counting *k = arg;
	size_t lo = k->n * (size_t)t / (size_t)nt, hi = k->n * ((size_t)t + 1) / (size_t)nt;
	uint64_t *h = k->hist + (size_t)t * k->V;
	const uint8_t *p = k->buf;
	if (k->R == 2) {
		for (size_t i = lo; i < hi; i++)
			h[p[2 * i] | (uint32_t)p[2 * i + 1] << 8]++;
		return;
	}
	/* four counters a value, taken in turn: a run of one value would
	 * otherwise wait on each increment of one counter (a block is at most
	 * COUNT_BLOCK_MAX records: 32 bits hold them) */
	uint32_t c4[4][256];
	memset(c4, 0, sizeof c4);
	size_t i = lo;
	for (; i + 4 <= hi; i += 4) {
		c4[0][p[i]]++;
		c4[1][p[i + 1]]++;
		c4[2][p[i + 2]]++;
		c4[3][p[i + 3]]++;
	}
	for (; i < hi; i++)
		c4[0][p[i]]++;
	for (int v = 0; v < 256; v++)
		h[v] += (uint64_t)c4[0][v] + c4[1][v] + c4[2][v] + c4[3][v];
}

/* m copies of the record whose bytes, read little-endian, are v, at p. */
static void fill(uint8_t *p, size_t m, size_t R, uint32_t v)
{
	if (R == 1) {
		memset(p, (int)v, m);
		return;
	}
	size_t bytes = m * R;
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	for (size_t have = R; have < bytes; have *= 2)
		memcpy(p + have, p, have < bytes - have ? have : bytes - have);
}

/* Every value of hist, in key order, as often as it came (once under -u), into out. 0 or -1 (out's error). */
static int emit(job_ctx *c, sink *out, const uint64_t *hist, const uint32_t *order, size_t V)
{
	size_t R = c->R, most = sink_max_records(out);
	for (size_t key = 0; key < V; key++) {
		uint32_t v = order[key];
		uint64_t left = c->o->unique && hist[v] ? 1 : hist[v];
		while (left) {
			size_t m = left < most ? (size_t)left : most;
			uint8_t *p = sink_reserve(out, m);
			if (!p)
				return -1;
			fill(p, m, R, v);
			sink_commit(out, p, m);
			left -= m;
		}
	}
	return 0;
}

int runs_count(job_ctx *c, sink *out, int *single)
{
	size_t R = c->R, V = (size_t)1 << (8 * R);
	int64_t total = inputs_known_size(c);
	size_t block = (size_t)(c->o->mem / 4);
	block = block < COUNT_BLOCK_MIN ? COUNT_BLOCK_MIN : block > COUNT_BLOCK_MAX ? COUNT_BLOCK_MAX : block;
	block -= block % IO_ALIGN;
	uint32_t *order = malloc(V * sizeof *order);
	uint8_t *buf = util_alloc_huge(block);
	uint64_t *hist = NULL;
	tpool *tp = NULL;
	io_ring ring;
	int ring_ok = 0, ret = -1, rc;
	*single = 1;
	if ((rc = tpool_start(&tp, c->o->threads))) {
		job_fail(c, "cannot start threads: %s", strerror(-rc));
		goto out;
	}
	int T = tpool_size(tp);
	hist = calloc((size_t)T * V, sizeof *hist);
	if (!order || !buf || !hist || keys_count_order(c->s, order)) {
		job_fail(c, "out of memory");
		goto out;
	}
	if ((rc = io_ring_init(&ring))) {
		job_fail(c, "cannot start I/O: %s", strerror(-rc));
		goto out;
	}
	ring_ok = 1;
	progress_phase(c->prog, PROGRESS_READ, 0, 0, total);
	io_job j = { .op = IO_JOB_CALL, .arg = c, .buf = buf, .len = block, .cap = block };
	uint64_t records = 0;
	do {
		double t0 = util_now();
		ssize_t n = inputs_read_chunk(&j, &ring);
		c->st.read_s += util_now() - t0;
		if (n < 0) {
			inputs_read_error(c, (int)n);
			goto out;
		}
		t0 = util_now();
		counting k = { buf, (size_t)n, R, V, hist };
		tpool_run(tp, count_part, &k);
		c->st.sort_s += util_now() - t0;
		records += (uint64_t)n;
		progress_add(c->prog, (uint64_t)n * R);
	} while (!inputs_ended(c));
	for (int t = 1; t < T; t++)
		for (size_t v = 0; v < V; v++)
			hist[v] += hist[(size_t)t * V + v];
	c->st.records = records;
	c->st.chunk = records ? records : 1;
	c->st.engine = "cpu (counted)";
	/* every record is known now: the output filled through its mapping */
	job_map_output(c, out, (int64_t)(records * R));
	progress_phase(c->prog, PROGRESS_SORT, 0, 0, (int64_t)(records * R));
	out->prog = c->prog;
	double t0 = util_now();
	ret = emit(c, out, hist, order, V);
	c->st.sort_s += util_now() - t0;
	out->prog = NULL;
out:
	if (ring_ok)
		io_ring_exit(&ring);
	tpool_stop(tp);
	inputs_close(c);
	free(order);
	free(buf);
	free(hist);
	return ret;
}
