/*
 * runs_count.c - records that are their keys, 1 or 2 bytes wide: counted,
 * not sorted (runs.h PLAN_COUNT).
 *
 * Such a record is its key (keys_inplace: equal keys are equal bytes), and
 * there are at most 2^16 of them, so a histogram of the values seen is the
 * whole sorted output: each value, in key order (keys_count_order), as
 * often as it came. The inputs are read once: regular files by every
 * thread (pread at known offsets, each piece counted by the thread that
 * read it while it is in that thread's cache); a pipe in blocks by an I/O
 * worker, each block counted by every thread while the next is read. Each
 * thread counts into a histogram of its own; nothing is kept or spilled,
 * whatever the input's size and -S, and the output is written once, every
 * thread filling its share.
 */
#define _GNU_SOURCE
#include "runs.h"
#include "inputs.h"
#include "keys.h"
#include "readall.h"
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

/* Records [lo, hi) at p (R bytes each) added to the histogram h; hi - lo
 * at most COUNT_BLOCK_MAX. */
static void count_records(uint64_t *h, const uint8_t *p, size_t lo, size_t hi, size_t R)
{
	if (R == 2) {
		for (size_t i = lo; i < hi; i++)
			h[p[2 * i] | (uint32_t)p[2 * i + 1] << 8]++;
		return;
	}
	/* four counters a value, taken in turn: a run of one value would
	 * otherwise wait on each increment of one counter (32 bits hold
	 * COUNT_BLOCK_MAX records) */
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

/* tpool_run's part t of nt: records [n t / nt, n (t + 1) / nt) counted into histogram t. */
static void count_part(void *arg, int t, int nt)
{
	counting *k = arg;
	size_t lo = k->n * (size_t)t / (size_t)nt, hi = k->n * ((size_t)t + 1) / (size_t)nt;
	count_records(k->hist + (size_t)t * k->V, k->buf, lo, hi, k->R);
}

typedef struct count_read {
	counting k;     /* k.buf: the window's records, k.n unused */
	progress *prog;
} count_read;

/* readall_range_each's callback: records [first, first + count) of the
 * window, just read by part `part`, counted into its histogram. */
static void count_piece(void *arg, int part, size_t first, size_t count)
{
	count_read *cr = arg;
	count_records(cr->k.hist + (size_t)part * cr->k.V, cr->k.buf, first, first + count, cr->k.R);
	progress_add(cr->prog, (uint64_t)count * cr->k.R);
}

/*
 * Every input a regular file: counted into hist (a histogram of V counters
 * per thread of tp) in windows of `bytes` (a multiple of the record size)
 * at buf, each read by every thread of tp. *records: the records counted.
 * Returns 0; 1 when the inputs cannot be opened side by side (read them as
 * a stream: nothing was counted); or -1 (c->r filled).
 */
static int count_files(job_ctx *c, tpool *tp, uint64_t *hist, size_t V, uint8_t *buf, size_t bytes,
		       uint64_t *records)
{
	int rc = inputs_reopen(c);
	if (rc)
		return rc;
	size_t R = c->R;
	uint64_t total = (uint64_t)inputs_known_size(c);
	count_read cr = { .k = { .buf = buf, .R = R, .V = V, .hist = hist }, .prog = c->prog };
	double t0 = util_now();
	for (uint64_t lo = 0; lo < total; lo += bytes) {
		uint64_t hi = total - lo < bytes ? total : lo + bytes;
		int bad = -1;
		rc = readall_range_each(tp, c->in, c->nin, lo, hi, buf, R, c->o->verify ? &c->vin : NULL, &bad,
					count_piece, &cr);
		if (rc) {
			inputs_pread_error(c, rc, bad);
			return -1;
		}
	}
	c->st.read_s += util_now() - t0; /* the counts made as each piece came */
	if (inputs_unchanged(c))
		return -1;
	for (int i = 0; i < c->nin; i++)
		c->in_bytes[i] = c->in[i].size - c->in[i].pos;
	*records = total / R;
	return 0;
}

/*
 * The inputs (any of them pipes) counted into hist (a histogram of V
 * counters per thread of tp): read in blocks of `bytes` into buf[0] and
 * buf[1] in turn by an I/O worker, each counted by every thread while the
 * next is read. *records: the records counted. 0, or -1 (c->r filled).
 */
static int count_stream(job_ctx *c, tpool *tp, uint64_t *hist, size_t V, uint8_t *const buf[2], size_t bytes,
			uint64_t *records)
{
	io_worker rd;
	int rc = io_worker_start(&rd), ret = -1;
	if (rc) {
		job_fail(c, "cannot start I/O: %s", strerror(-rc));
		return -1;
	}
	io_job j[2];
	int cur = 0;
	j[0] = (io_job){ .op = IO_JOB_CALL, .call = inputs_read_chunk, .arg = c, .buf = buf[0], .len = bytes, .cap = bytes };
	io_worker_submit(&rd, &j[0]);
	*records = 0;
	for (;;) {
		ssize_t n = io_worker_wait(&rd, &j[cur]);
		c->st.read_s += j[cur].busy;
		if (n < 0) {
			inputs_read_error(c, (int)n);
			break;
		}
		int more = !inputs_ended(c); /* the worker is idle: its state can be read */
		if (more) {
			j[!cur] = j[cur];
			j[!cur].buf = buf[!cur];
			io_worker_submit(&rd, &j[!cur]);
		}
		double t0 = util_now();
		counting k = { buf[cur], (size_t)n, c->R, V, hist };
		tpool_run(tp, count_part, &k);
		c->st.sort_s += util_now() - t0;
		*records += (uint64_t)n;
		progress_add(c->prog, (uint64_t)n * c->R);
		if (!more) {
			ret = 0;
			break;
		}
		cur = !cur;
	}
	io_worker_stop(&rd); /* nothing queued: a block is submitted only after a good one */
	return ret;
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
	/* two blocks, one after the other: a pipe's two read buffers, or one
	 * window of regular files; then the output's two buffers */
	uint8_t *mem = util_alloc_huge(2 * block);
	uint8_t *const buf[2] = { mem, mem ? mem + block : NULL };
	uint32_t *order = malloc(V * sizeof *order);
	uint64_t *hist = NULL, records = 0;
	tpool *tp = NULL;
	int ret = -1, rc;
	*single = 1;
	if ((rc = tpool_start(&tp, c->o->threads))) {
		job_fail(c, "cannot start threads: %s", strerror(-rc));
		goto out;
	}
	int T = tpool_size(tp);
	hist = calloc((size_t)T * V, sizeof *hist);
	if (!order || !mem || !hist || keys_count_order(c->s, order)) {
		job_fail(c, "out of memory");
		goto out;
	}
	progress_phase(c->prog, PROGRESS_READ, 0, 0, total);
	rc = total >= 0 ? count_files(c, tp, hist, V, mem, 2 * block, &records) : 1;
	if (rc == 1)
		rc = count_stream(c, tp, hist, V, buf, block, &records);
	if (rc)
		goto out;
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
	tpool_stop(tp);
	inputs_close(c);
	free(order);
	free(mem);
	free(hist);
	return ret;
}
