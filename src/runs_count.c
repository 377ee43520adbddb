/*
 * runs_count.c - records that are their keys, 1 or 2 bytes wide: counted,
 * not sorted (runs.h PLAN_COUNT).
 *
 * Such a record is its key (keys_inplace: equal keys are equal bytes), and
 * there are at most 2^16 of them, so a histogram of the values seen is the
 * whole sorted output: each value, in key order (keys_count_order), as
 * often as it came. The inputs are read once, in blocks, by an I/O worker,
 * each block counted by every thread into a histogram of its own while the
 * next is read; nothing is kept or spilled, whatever the input's size and
 * -S, and the output is written once, every thread filling its share.
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

/* Each of the two read blocks: an eighth of -S within these bounds. */
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

typedef struct filling {
	uint8_t *p;          /* records [pos, pos + m) of the output go here */
	uint64_t pos, m;
	size_t R;
	const uint64_t *cum; /* cum[k]: the records of keys below k; V + 1 of them */
	const uint32_t *order;
	size_t V;
} filling;

/* tpool_run's part t of nt: its share of the output records [pos, pos + m) written. */
static void fill_part(void *arg, int t, int nt)
{
	filling *f = arg;
	uint64_t at = f->pos + f->m * (uint64_t)t / (uint64_t)nt, end = f->pos + f->m * ((uint64_t)t + 1) / (uint64_t)nt;
	if (at == end)
		return;
	size_t lo = 0, hi = f->V; /* the key of record `at`: cum[k] <= at < cum[k + 1] */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (f->cum[mid] <= at)
			lo = mid;
		else
			hi = mid;
	}
	for (size_t k = lo; at < end; k++) {
		uint64_t stop = f->cum[k + 1] < end ? f->cum[k + 1] : end;
		if (stop > at)
			fill(f->p + (at - f->pos) * f->R, (size_t)(stop - at), f->R, f->order[k]);
		at = stop;
	}
}

/*
 * Every value of hist, in key order, as often as it came (once under -u),
 * into out, each piece filled by every thread (the stores into fresh
 * pages are the work here): straight into the mapped output as the sink
 * hands it out; else into buf[0] and buf[1] (bytes each) in turn, each
 * written by the sink's writer while the other fills (the sink's own
 * buffers, sized for a chunk written as it is sorted, are 64 KiB: too
 * small a piece for a write to a pipe or a hand-off to the threads).
 * 0, or -1: out's error, or no memory (c->r filled).
 */
static int emit(job_ctx *c, sink *out, tpool *tp, const uint64_t *hist, const uint32_t *order, size_t V,
		uint8_t *const buf[2], size_t bytes)
{
	size_t R = c->R, most = sink_mapped(out) ? sink_max_records(out) : bytes / R;
	uint64_t *cum = malloc((V + 1) * sizeof *cum);
	if (!cum) {
		job_fail(c, "out of memory");
		return -1;
	}
	cum[0] = 0;
	for (size_t k = 0; k < V; k++)
		cum[k + 1] = cum[k] + (c->o->unique && hist[order[k]] ? 1 : hist[order[k]]);
	filling f = { .R = R, .cum = cum, .order = order, .V = V };
	int rc = 0, i = 0;
	for (f.pos = 0; f.pos < cum[V] && !rc; f.pos += f.m, i = !i) {
		f.m = cum[V] - f.pos < most ? cum[V] - f.pos : most;
		if (sink_mapped(out)) {
			if (!(f.p = sink_reserve(out, (size_t)f.m))) {
				rc = -1;
				break;
			}
			tpool_run(tp, fill_part, &f);
			sink_commit(out, f.p, (size_t)f.m);
			continue;
		}
		if ((rc = sink_sync_to(out, 1))) /* buf[i]'s last write done; the other's may go on */
			break;
		f.p = buf[i];
		tpool_run(tp, fill_part, &f);
		rc = sink_put_async(out, f.p, (size_t)f.m);
	}
	int src = sink_sync(out); /* buf[] is freed once we return */
	rc = rc ? rc : src;
	free(cum);
	return rc ? -1 : 0;
}

int runs_count(job_ctx *c, sink *out, int *single)
{
	size_t R = c->R, V = (size_t)1 << (8 * R);
	int64_t total = inputs_known_size(c);
	size_t block = (size_t)(c->o->mem / 8);
	block = block < COUNT_BLOCK_MIN ? COUNT_BLOCK_MIN : block > COUNT_BLOCK_MAX ? COUNT_BLOCK_MAX : block;
	block -= block % IO_ALIGN;
	uint32_t *order = malloc(V * sizeof *order);
	uint8_t *buf[2] = { util_alloc_huge(block), util_alloc_huge(block) };
	uint64_t *hist = NULL;
	tpool *tp = NULL;
	io_worker rd;
	int rd_on = 0, ret = -1, rc;
	*single = 1;
	if ((rc = tpool_start(&tp, c->o->threads))) {
		job_fail(c, "cannot start threads: %s", strerror(-rc));
		goto out;
	}
	int T = tpool_size(tp);
	hist = calloc((size_t)T * V, sizeof *hist);
	if (!order || !buf[0] || !buf[1] || !hist || keys_count_order(c->s, order)) {
		job_fail(c, "out of memory");
		goto out;
	}
	if ((rc = io_worker_start(&rd))) {
		job_fail(c, "cannot start I/O: %s", strerror(-rc));
		goto out;
	}
	rd_on = 1;
	/* the next block is read by the I/O worker while every thread counts this one */
	progress_phase(c->prog, PROGRESS_READ, 0, 0, total);
	io_job j[2];
	int cur = 0;
	j[0] = (io_job){ .op = IO_JOB_CALL, .call = inputs_read_chunk, .arg = c, .buf = buf[0], .len = block, .cap = block };
	io_worker_submit(&rd, &j[0]);
	uint64_t records = 0;
	for (;;) {
		ssize_t n = io_worker_wait(&rd, &j[cur]);
		c->st.read_s += j[cur].busy;
		if (n < 0) {
			inputs_read_error(c, (int)n);
			goto out;
		}
		int more = !inputs_ended(c); /* the worker is idle: its state can be read */
		if (more) {
			j[!cur] = j[cur];
			j[!cur].buf = buf[!cur];
			io_worker_submit(&rd, &j[!cur]);
		}
		double t0 = util_now();
		counting k = { buf[cur], (size_t)n, R, V, hist };
		tpool_run(tp, count_part, &k);
		c->st.sort_s += util_now() - t0;
		records += (uint64_t)n;
		progress_add(c->prog, (uint64_t)n * R);
		if (!more)
			break;
		cur = !cur;
	}
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
	ret = emit(c, out, tp, hist, order, V, buf, block);
	c->st.write_s += util_now() - t0; /* the stores into the sink's buffers or the mapped output */
	out->prog = NULL;
out:
	if (rd_on)
		io_worker_stop(&rd); /* nothing queued: a block is submitted only after a good one */
	tpool_stop(tp);
	inputs_close(c);
	free(order);
	free(buf[0]);
	free(buf[1]);
	free(hist);
	return ret;
}
