/* merge.c - see merge.h. */
#define _GNU_SOURCE
#include "merge.h"
#include "losertree.h"
#include "splitters.h"
#include "tpool.h"
#include "util.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MIN_BUFFER_BYTES (64u << 10)
/* A round is cut for as many threads as it has this many records each (at
 * least one, at most all): the pool's hand-off (a condition variable) and
 * the splitters (T samples a run, k binary searches a cut) cost a few
 * microseconds, the merge of 4 Ki records some tens. All or one thread by
 * the same bound left the rounds of one run's window each (16 GiB of u64
 * with 16 distinct keys in 128 runs: 52 Ki records a round, under the 64
 * Ki of 16 threads) on one thread: the merge 38-40 s, against 11.6-12.5 s. */
#define PAR_MIN_PER_THREAD 4096u
/* A file run carries its tail (carries) when W / CARRY_DIV or fewer of its
 * records are left after a round's cut: a tail averages half that bound,
 * so the copies are about an eighth of the records merged. Tails of up to W
 * copied about half, and the merge of 16 GiB of u64 in 128 runs took 10%
 * longer on the H200 machine than at W / 4. */
#define CARRY_DIV 4
/* Read-ahead workers for the file runs, each run on one of them. One
 * thread read 16 GiB of spilled runs back from the page cache at 2.3-2.5
 * GB/s (busy 6.4-7.0 s of a 6.7-7.4 s merge on the H200 machine), so that
 * the merge of 32 runs waited on it. */
#define MERGE_READERS 4

size_t merge_window_records(const keys_spec *s, int k, size_t budget)
{
	size_t R = s->record_size;
	size_t w = budget / (2 * (size_t)(k ? k : 1) * R);
	/* whole IO_ALIGN blocks keep window reads on O_DIRECT */
	size_t unit = io_align_records(R);
	if (w >= unit)
		w = w / unit * unit;
	return w ? w : 1;
}

int merge_max_fanin(const keys_spec *s, size_t budget)
{
	size_t per = 2 * (MIN_BUFFER_BYTES > s->record_size ? MIN_BUFFER_BYTES : s->record_size);
	size_t k = budget / per;
	if (k > MERGE_MAX_FANIN)
		k = MERGE_MAX_FANIN;
	return k < 2 ? 2 : (int)k;
}

/* One run as the merge sees it. */
struct src {
	run *r;
	uint8_t *win[2];     /* file runs: buffers of W records: a carried tail, then the records read after it */
	int cur;             /* buffer being merged */
	const uint8_t *p;    /* records in memory: the tail carried over, then the current window */
	size_t cnt, pos;     /* records at p; next to merge */
	int last;            /* the current window ends the run */
	uint64_t next;       /* file runs: next record to read */
	io_job job;
	int pending;
	int w;               /* its read-ahead worker (mctx.io) */
	size_t cut;          /* end of this round's part of the window */
	int carry;           /* its tail after cut carried, its next records read after it: taken at the next round */
	size_t R;            /* record size */
	int bad;             /* checksum failure seen by the worker */
	size_t bad_block;
};

struct mctx {
	const keys_spec *s;
	struct src *src;
	int k;
	size_t W;            /* window records */
	size_t carry;        /* most records a file run carries to its next window */
	io_worker io[MERGE_READERS];
	int nio;             /* workers started */
	int err, bad_run;
	size_t bad_block;
};

/* Runs in the I/O worker after a window read: spilled data must match its checksums. */
static void check_hook(io_job *j)
{
	struct src *x = j->arg;
	run *r = x->r;
	if (j->res < 0 || !r->spilled)
		return;
	if (run_check_read(r, x->R, j->off, j->buf, (size_t)j->res, &x->bad_block)) {
		x->bad = 1;
		j->res = -EBADMSG;
	}
}

/* Queue the read of a file run's next W - tail records into its free
 * buffer, after the room for the tail that the round carries there. */
static void prefetch(struct mctx *m, struct src *x, size_t tail)
{
	run *r = x->r;
	size_t R = x->R, want = m->W - tail;
	uint8_t *buf = x->win[1 - x->cur] + tail * R;
	if (r->stream) {
		x->job = (io_job){ .op = IO_JOB_READ, .f = r->file, .buf = buf, .len = want * R,
				   .cap = want * R + IO_ALIGN, .arg = x };
	} else {
		uint64_t left = r->n - x->next;
		size_t n = left < want ? (size_t)left : want;
		/* a compressed run comes through its decompressor's pipe, in
		 * order (no offsets, no O_DIRECT); .off still names where the
		 * window starts in the run, for check_hook's last block */
		x->job = (io_job){ .op = r->zfile ? IO_JOB_READ : IO_JOB_READ_AT, .f = r->file, .buf = buf, .len = n * R,
				   .cap = want * R + IO_ALIGN, .off = r->off + x->next * R,
				   .hook = check_hook, .arg = x };
	}
	io_worker_submit(&m->io[x->w], &x->job);
	x->pending = 1;
}

/* Copy file run x's records after this round's cut to the front of its
 * other buffer, where prefetch reads the records after them. Nothing there
 * is merged: the run moved off that buffer a round or more ago. */
static void carry_tail(const struct src *x)
{
	size_t R = x->R, tail = x->cnt - x->cut;
	if (tail) /* a run's first window: nothing merged from yet, p NULL */
		memcpy(x->win[1 - x->cur], x->p + x->cut * R, tail * R);
}

/*
 * Move a run on to its records after the last round's cut: a memory run
 * slides its window of up to W records there; a file run waits for the
 * read that the last round queued (prefetch) and takes its other buffer:
 * the tail that round copied to its front (carry_tail), then the records
 * read after it. A file run with nothing read ahead (before its first
 * window) reads one now. Returns 0 or -errno.
 */
static int advance(struct mctx *m, struct src *x)
{
	run *r = x->r;
	size_t R = x->R, tail = x->cnt - x->pos;
	if (r->mem) {
		uint64_t at = x->next - tail, left = r->n - at;
		x->p = r->mem + at * R;
		x->cnt = left < m->W ? (size_t)left : m->W;
		x->next = at + x->cnt;
		x->pos = 0;
		x->last = x->next == r->n;
		return 0;
	}
	if (!x->pending) {
		x->cut = x->pos;
		carry_tail(x);
		prefetch(m, x, tail);
	}
	ssize_t got = io_worker_wait(&m->io[x->w], &x->job);
	x->pending = 0;
	if (got < 0)
		return (int)got;
	size_t n = (size_t)got / R;
	if (r->stream) {
		if ((size_t)got % R)
			return -EPROTO;
		x->last = (size_t)got < x->job.len;
		r->n = x->next + n; /* known so far */
	} else {
		if ((size_t)got != x->job.len) /* the file is shorter than the run: truncated meanwhile, */
			return r->zfile ? -ENODATA : -EIO; /* or its decompressor stopped early */
		x->last = x->next + n == r->n;
	}
	x->next += n;
	x->cur = 1 - x->cur;
	x->p = x->win[x->cur];
	x->cnt = tail + n;
	x->pos = 0;
	x->carry = 0;
	return 0;
}

/*
 * Does file run x, after this round's cut, carry its tail (m->carry
 * records or fewer) to its other buffer and read its next records after
 * it, to take them at the next round's start? A round ends at the least
 * last record in memory among the runs. With each run's tail left in its
 * own window until used up, the runs' window ends were staggered and a
 * round ended at the next of them: about W records in all, whatever k (64
 * u64 runs in -S 32M: 5441 rounds of 12 Ki records, each paying k binary
 * searches, the parts' splitters and the threads' hand-off). Carried, every
 * run holds more than W / 4 records at a round's start, and a round k W / 4
 * or more. The read is queued when the tail is known, a round before its
 * records are needed, into the same W records of buffer: no more memory.
 */
static int carries(const struct mctx *m, const struct src *x)
{
	return !x->r->mem && !x->last && !x->pending && x->cnt - x->cut <= m->carry;
}


/* ---- one round -------------------------------------------------------- */

/*
 * A round is cut into PARTS_PER_THREAD parts a thread, which the pool's
 * threads take in order as each finishes one: with one part a thread, the
 * round lasted as long as its slowest part, and on the H200 machine (16
 * threads, 32 spilled runs) the slowest took 1.5x the mean (a merging thread
 * shares its core with the read-ahead and writeback workers, and faults on
 * the output's fresh pages): the rounds' parallel merge took 6.2-7.2 s,
 * 4.3-4.5 s with 8 parts a thread (bench/results/h200-merge-parts-2026-11-29.md).
 */
#define PARTS_PER_THREAD 8
/* Records a part, per run merged, below which parts are not added beyond
 * one a thread: each part costs the plan, on one thread, k samples and k
 * binary searches, which the merge of a few hundred records a run repays. */
#define PART_RECORDS_PER_RUN 256
struct round {
	struct mctx *m;
	splitters_run *ranges; /* [k]: each run's part of the round */
	uint64_t *cuts;      /* [(parts + 1) * k]: part p of run i is [cuts[p*k+i], cuts[(p+1)*k+i]) */
	lt_range *rg;        /* [T][k]: the ranges of the part thread t merges */
	size_t *outoff;      /* [parts + 1]: first output record of each part */
	uint8_t *out;
	int parts;
	int *carry;          /* [k]: runs whose tails are copied (carry_tail) */
	int ncarry;          /* tasks after the parts: one a run in carry */
	atomic_int next;     /* the next task to take */
};

static void merge_part(struct round *rd, int p, int t)
{
	struct mctx *m = rd->m;
	int k = m->k;
	size_t R = m->s->record_size;
	lt_range *rg = rd->rg + (size_t)t * k;
	for (int i = 0; i < k; i++) {
		size_t a = rd->cuts[(size_t)p * k + i], b = rd->cuts[(size_t)(p + 1) * k + i];
		rg[i].p = m->src[i].p + a * R;
		rg[i].n = b - a;
	}
	lt_merge(m->s, rg, k, rd->out + rd->outoff[p] * R);
}

static void merge_parts(void *arg, int t, int nt)
{
	(void)nt;
	struct round *rd = arg;
	/* the copies come last, for the threads that finish their parts first */
	for (int p; (p = atomic_fetch_add_explicit(&rd->next, 1, memory_order_relaxed)) < rd->parts + rd->ncarry;)
		if (p < rd->parts)
			merge_part(rd, p, t);
		else
			carry_tail(&rd->m->src[rd->carry[p - rd->parts]]);
}

/*
 * Cut a round's ranges [pos_i, cut_i) into rd->parts parts at splitters
 * from rd->parts regular samples of each range (splitters.h): a part then
 * holds about total / parts records. The cuts are made here, on one thread:
 * the k binary searches of consecutive splitters in one run touch the same
 * lines, where on the threads that merge the parts they missed the cache
 * (the merge took 0.3-0.9 s longer at 16 threads).
 */
static int plan_parts(struct round *rd)
{
	struct mctx *m = rd->m;
	int k = m->k, P = rd->parts;
	for (int i = 0; i < k; i++) {
		struct src *x = &m->src[i];
		rd->ranges[i] = (splitters_run){ x->p, x->pos, x->cut, (uint64_t)P };
	}
	int rc = splitters_cut(m->s, rd->ranges, k, P, rd->cuts);
	if (rc)
		return rc;
	rd->outoff[0] = 0;
	for (int p = 0; p < P; p++) {
		size_t sum = 0;
		for (int i = 0; i < k; i++)
			sum += rd->cuts[(size_t)(p + 1) * k + i] - rd->cuts[(size_t)p * k + i];
		rd->outoff[p + 1] = rd->outoff[p] + sum;
	}
	atomic_store_explicit(&rd->next, 0, memory_order_relaxed);
	return 0;
}

int merge_plan_groups(const keys_spec *s, run **runs, int k, int groups, int samples, uint64_t *cuts)
{
	uint64_t total = 0, budget = (uint64_t)k * (uint64_t)samples;
	for (int i = 0; i < k; i++)
		total += runs[i]->n;
	splitters_run *r = malloc((size_t)k * sizeof *r + 1);
	if (!r)
		return -ENOMEM;
	for (int i = 0; i < k; i++) {
		/* samples in proportion to the run's length, so every sample stands
		 * for about the same number of records: with equal counts, a short
		 * run's samples would pull the splitters and unbalance the groups */
		uint64_t n = runs[i]->n, si = total ? n * budget / total : 0;
		if (si < 1 && n)
			si = 1;
		if (si > n)
			si = n;
		r[i] = (splitters_run){ runs[i]->mem, 0, n, si };
	}
	int rc = splitters_cut(s, r, k, groups, cuts);
	free(r);
	return rc;
}

static int fail(struct mctx *m, int i, int rc)
{
	if (!m->err) {
		m->err = rc;
		m->bad_run = i;
		m->bad_block = m->src[i].bad_block;
	}
	return rc;
}

/* What register_windows registers: the windows of one worker's runs. */
struct reg {
	struct mctx *m;
	int w;
};

/*
 * Runs on a read-ahead worker's thread (an IO_JOB_CALL job), the only
 * thread that uses its ring (io.h): register the windows of its runs with
 * it. The windows live until merge_runs has stopped the workers (their
 * rings exit and unregister them); only then are they freed.
 */
static ssize_t register_windows(io_job *j, io_ring *ring)
{
	struct reg *g = j->arg;
	struct mctx *m = g->m;
	int n = 0;
	void **bufs = malloc(2 * (size_t)m->k * sizeof *bufs);
	size_t *lens = malloc(2 * (size_t)m->k * sizeof *lens);
	ssize_t rc = -ENOMEM;
	if (bufs && lens) {
		for (int i = 0; i < m->k; i++)
			for (int b = 0; b < 2; b++)
				if (m->src[i].win[b] && m->src[i].w == g->w) {
					bufs[n] = m->src[i].win[b];
					lens[n++] = m->W * m->src[i].R + IO_ALIGN;
				}
		rc = io_ring_register(ring, bufs, lens, n);
	}
	free(bufs);
	free(lens);
	return rc;
}

int merge_runs(const keys_spec *s, run **runs, int k, sink *out, size_t budget, int threads,
	       merge_stats *st, int *bad_run, size_t *bad_block)
{
	struct mctx m = { .s = s, .k = k, .bad_run = -1 };
	size_t R = s->record_size;
	double t0 = util_now();
	int nfile = 0, rc = 0;
	for (int i = 0; i < k; i++)
		nfile += runs[i]->mem == NULL;
	m.W = merge_window_records(s, nfile ? nfile : 1, budget);
	/* a round must fit a sink buffer: it takes at most Q records a run
	 * (the limit's choice, below), which W's floor of 1 can pass */
	size_t Q = sink_max_records(out) / (size_t)(k ? k : 1);
	Q = Q ? Q : 1;
	if (m.W > Q)
		m.W = Q;
	m.carry = m.W / CARRY_DIV;
	m.src = calloc((size_t)(k ? k : 1), sizeof *m.src);
	int T = threads < 1 ? 1 : threads;
	tpool *pool = NULL;
	if (T > 1 && tpool_start(&pool, T))
		T = 1; /* no threads to be had: merge on this one */
	int P = T * PARTS_PER_THREAD;
	uint64_t *cuts = calloc((size_t)(P + 1) * (k ? k : 1), sizeof *cuts);
	size_t *outoff = calloc((size_t)P + 1, sizeof *outoff);
	lt_range *rg = calloc((size_t)T * (k ? k : 1), sizeof *rg);
	splitters_run *ranges = calloc((size_t)(k ? k : 1), sizeof *ranges);
	int *carry = calloc((size_t)(k ? k : 1), sizeof *carry);
	if (!m.src || !cuts || !outoff || !rg || !ranges || !carry) {
		rc = -ENOMEM;
		goto out;
	}
	int nw = nfile < MERGE_READERS ? nfile : MERGE_READERS;
	for (m.nio = 0; m.nio < (nw ? nw : 1); m.nio++)
		if ((rc = io_worker_start(&m.io[m.nio])))
			goto stop;
	for (int i = 0, f = 0; i < k; i++) {
		struct src *x = &m.src[i];
		x->r = runs[i];
		x->R = R;
		x->w = runs[i]->mem ? 0 : f++ % m.nio;
		if (runs[i]->spilled)
			run_hash_reset_reader(&runs[i]->hash);
		if (!runs[i]->mem) {
			for (int b = 0; b < 2; b++) {
				x->win[b] = util_alloc_aligned(m.W * R + IO_ALIGN, IO_ALIGN);
				if (!x->win[b]) {
					rc = -ENOMEM;
					goto stop;
				}
			}
			x->cur = 1; /* the first prefetch fills win[0] */
		}
	}
	if (nfile) {
		/* the workers are idle: this waits only for the registrations */
		io_job j[MERGE_READERS];
		struct reg g[MERGE_READERS];
		for (int w = 0; w < m.nio; w++) {
			g[w] = (struct reg){ &m, w };
			j[w] = (io_job){ .op = IO_JOB_CALL, .call = register_windows, .arg = &g[w] };
			io_worker_submit(&m.io[w], &j[w]);
		}
		for (int w = 0; w < m.nio; w++)
			io_worker_wait(&m.io[w], &j[w]); /* failure only leaves the reads unfixed */
	}
	for (int i = 0; i < k; i++) {
		struct src *x = &m.src[i];
		if (!runs[i]->stream && runs[i]->n == 0) {
			x->last = 1;
			continue;
		}
		if ((rc = advance(&m, x))) {
			fail(&m, i, rc);
			goto stop;
		}
	}
	struct round rd = { .m = &m, .ranges = ranges, .cuts = cuts, .rg = rg, .outoff = outoff, .carry = carry };
	for (;;) {
		/* runs whose tails the last round carried take them and the
		 * records read after them during that round */
		for (int i = 0; i < k; i++) {
			struct src *x = &m.src[i];
			if (!x->last && (x->r->mem || x->carry) && (rc = advance(&m, x))) {
				fail(&m, i, rc);
				goto stop;
			}
			while (x->pos == x->cnt && !x->last) {
				if ((rc = advance(&m, x))) {
					fail(&m, i, rc);
					goto stop;
				}
			}
		}
		/* the limit: the least last record in memory (of its first Q) of
		 * the runs with more after it; the first run among equals, so that
		 * no run's cut passes its own first Q records */
		int lim = -1;
		size_t lend = 0;
		for (int i = 0; i < k; i++) {
			struct src *x = &m.src[i];
			size_t end = x->cnt - x->pos > Q ? x->pos + Q : x->cnt;
			if (x->pos == x->cnt || (x->last && end == x->cnt))
				continue;
			if (lim < 0 || keys_compare(s, x->p + (end - 1) * R, m.src[lim].p + (lend - 1) * R) < 0) {
				lim = i;
				lend = end;
			}
		}
		size_t total = 0;
		for (int i = 0; i < k; i++) {
			struct src *x = &m.src[i];
			if (lim < 0)
				x->cut = x->cnt;
			else
				x->cut = splitters_rank(s, x->p, x->pos, x->cnt, i, m.src[lim].p + (lend - 1) * R, lim,
							lend - 1, 1);
			if (x->cut < x->pos)
				x->cut = x->pos;
			total += x->cut - x->pos;
		}
		if (total == 0 && lim < 0)
			break;
		uint8_t *dst = sink_reserve(out, total);
		if (!dst) {
			rc = out->err ? out->err : -ENOMEM;
			goto stop;
		}
		size_t fit = total / PAR_MIN_PER_THREAD;
		int Tr = fit < (size_t)T ? (fit ? (int)fit : 1) : T;
		if (Tr > 1) {
			size_t want = total / ((size_t)k * PART_RECORDS_PER_RUN);
			rd.parts = want < (size_t)Tr ? Tr : want > (size_t)P ? P : (int)want;
		} else {
			rd.parts = 1;
		}
		rd.out = dst;
		if ((rc = plan_parts(&rd)))
			goto stop;
		rd.ncarry = 0;
		for (int i = 0; i < k; i++) {
			struct src *x = &m.src[i];
			if ((x->carry = carries(&m, x))) {
				prefetch(&m, x, x->cnt - x->cut);
				if (x->cut < x->cnt)
					rd.carry[rd.ncarry++] = i;
			}
		}
		if (Tr > 1)
			tpool_run(pool, merge_parts, &rd); /* all T threads; with Tr < T parts some take none */
		else
			merge_parts(&rd, 0, 1);
		sink_commit(out, dst, total);
		for (int i = 0; i < k; i++)
			m.src[i].pos = m.src[i].cut;
		if (st) {
			st->rounds++;
			st->parts += (uint64_t)rd.parts;
		}
	}
stop:
	for (int w = 0; w < m.nio; w++) {
		io_worker_stop(&m.io[w]);
		if (st)
			st->read_s += m.io[w].busy;
	}
out:
	if (m.src)
		for (int i = 0; i < k; i++) {
			free(m.src[i].win[0]);
			free(m.src[i].win[1]);
		}
	free(m.src);
	free(cuts);
	free(outoff);
	free(rg);
	free(ranges);
	free(carry);
	tpool_stop(pool);
	if (st)
		st->merge_s += util_now() - t0;
	if (rc && bad_run) {
		*bad_run = m.bad_run;
		*bad_block = m.bad_block;
	}
	return rc;
}
