/* runs_chunked.c - chunks read by one reader thread (runs.h PLAN_CHUNKED). */
#define _GNU_SOURCE
#include "runs.h"
#include "inputs.h"
#include "pool.h"
#include "runlist.h"
#include "tpool.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What runs_chunked has kept in memory so far (keep_fits). */
typedef struct keeping {
	uint64_t kept;  /* bytes of the buffers of runs kept */
	int spilling;   /* a run did not fit: the rest are spilled */
} keeping;

/*
 * The sorted chunk (n records at `sorted`, a buffer of p) as a new run of
 * c: kept in memory (the last one, every one under keep_all, or while
 * they fit the plan's share under keep_fits: an input that fits -S then
 * ends all in memory, which the GPU merge takes), the buffer then the
 * run's; else checksummed on *hash_pool (started at the first spill) and
 * spilled by `writer` (its write queued in p's ring of 8, fix_writer: the
 * writer's buffers registered at the first spill), the buffer back to p
 * once written. Returns 0, or -1 (c->r filled).
 */
static int add_run(job_ctx *c, pool *p, io_worker *writer, uint8_t *sorted, size_t n, int eof, int fix_writer,
		   keeping *st, tpool **hash_pool)
{
	const plan *pl = &c->plan;
	size_t R = c->R;
	run *r = runlist_new(c);
	if (!r)
		return -1;
	r->n = (uint64_t)n;
	c->st.runs++;
	/* once one does not fit, the rest are spilled, since the merge reads
	 * spilled runs back anyway */
	int keep = pl->keep_all;
	if (pl->keep_fits && !st->spilling && !eof) {
		keep = st->kept + p->bytes <= pl->share_kept;
		st->spilling = !keep;
	}
	if (eof || keep) {
		st->kept += p->bytes;
		r->pinned = pool_detach(p, sorted);
		r->mem = sorted;
		if (pl->keep_all)
			p->max = p->nbuf + 3 <= 8 ? p->nbuf + 3 : 8;
		return 0;
	}
	if (p->nw == 8) {
		job_fail(c, "internal error: too many spill writes in flight");
		return -1;
	}
	if (runlist_spill(c, r, r->n * R) < 0)
		return -1;
	if (run_sample_start(r, R)) {
		job_fail(c, "out of memory");
		return -1;
	}
	run_sample_add(r, sorted, 0, n, R);
	/* its checksums by every thread before the write is queued: on the
	 * writer's thread they kept it busy ~3 s longer for 16 GiB on the
	 * H200 (9.3-9.9 against 6.4-6.5 s), and the writer bounds the run
	 * phase once the sort keeps up (a pool that cannot start leaves them
	 * to this thread) */
	double t0 = util_now();
	if (!*hash_pool && tpool_start(hash_pool, c->o->threads))
		*hash_pool = NULL;
	if (run_hash_add_par(&r->hash, *hash_pool, NULL, sorted, n * R) || run_hash_end(&r->hash)) {
		job_fail(c, "out of memory");
		return -1;
	}
	c->st.spill_s += util_now() - t0;
	if (fix_writer && !p->fx[1].w)
		pool_fix(p, 1, writer);
	int slot = (p->wh + p->nw) % 8;
	p->wjob[slot] = (io_job){ .op = IO_JOB_WRITE, .f = r->file, .buf = sorted, .len = n * R,
				  .hook = runlist_spill_hook, .arg = r };
	p->wbuf[slot] = sorted;
	io_worker_submit(writer, &p->wjob[slot]);
	p->nw++;
	c->st.spilled++;
	return 0;
}

/*
 * Wait for the spill writes still in flight in p (--progress's spill
 * phase when all went well so far: ret 0), and close each run written.
 * Returns ret, or -1 when a write or a close failed (c->r filled; after
 * a failure, ret -1, they are only waited for).
 */
static int drain_spills(job_ctx *c, pool *p, io_worker *writer, int ret)
{
	if (ret == 0 && p->nw) {
		uint64_t left = 0;
		for (int i = 0; i < p->nw; i++)
			left += p->wjob[(p->wh + i) % 8].len;
		progress_phase(c->prog, PROGRESS_SPILL, 0, 0, (int64_t)left);
	}
	for (int i = 0; i < p->nw; i++) {
		io_job *j = &p->wjob[(p->wh + i) % 8];
		ssize_t w = io_worker_wait(writer, j);
		progress_add(c->prog, j->len);
		if (w < 0 && ret == 0) {
			runlist_write_failed(c, j->f, (int)w);
			ret = -1;
		}
		if (w >= 0 && ret == 0 && runlist_spill_close(c, j->arg))
			ret = -1;
	}
	return ret;
}

int runs_chunked(job_ctx *c, sink *out, int *single)
{
	const plan *pl = &c->plan;
	int64_t total = inputs_known_size(c);
	*single = 0;
	/* keep_fits hands most buffers to kept runs, each used for one chunk:
	 * pinning each (cudaHostRegister: seconds for GiB-sized buffers, while
	 * the next read waits for its buffer) would cost more than the pinned
	 * copies save; those reused (the sort's second buffer, and all once
	 * runs spill) are pinned at their second use */
	pool p = { .max = pl->buffers, .pin_reused = pl->keep_fits };
	size_t R = c->R;
	p.bytes = pl->chunk * R + IO_ALIGN;
	c->st.chunk = pl->chunk;
	void *scratch = NULL;
	size_t sb = c->eng.scratch_per_record * pl->chunk;
	if (sb && !(scratch = util_alloc_aligned(sb, 64))) {
		job_fail(c, "out of memory (sort scratch of %zu bytes; try a smaller -S)", sb);
		return -1;
	}
	io_worker reader, writer;
	int rc = io_worker_start(&reader);
	if (!rc && (rc = io_worker_start(&writer)))
		io_worker_stop(&reader);
	if (rc) {
		free(scratch);
		job_fail(c, "cannot start I/O threads: %s", strerror(-rc));
		return -1;
	}
	io_job rjob;
	/* fixed buffers for reads of regular inputs, and for spill writes
	 * unless this plan keeps every run in memory: registered at the first
	 * spill (pool_fix), since an input of unknown size that turns out to
	 * be one chunk never spills */
	for (int i = 0; i < c->nin && !p.fx[0].w; i++)
		if (c->in[i].regular)
			p.fx[0].w = &reader;
	int fix_writer = !pl->keep_all && pl->buffers > 2;
	uint8_t *A = pool_take(c, &p, &writer), *T = NULL;
	/* runs formed already by a path that gave way part through a pipe
	 * (runs_resident.c, runs_stream.c): the chunks read here come after
	 * them (and the plan left out the memory they keep, job.c) */
	int ret = -1, first = c->nruns == 0;
	keeping st = { 0 };
	tpool *hash_pool = NULL;
	runs_feed feed = { 0 };
	*single = 0;
	if (!A)
		goto out;
	/* The first chunk on the CPU, when it may be the only one (a pipe's
	 * size is known at its end): counted for the streamed sort's partition
	 * while it is read, so that at the end only the scatter and the bucket
	 * sorts are left, and those are written as they are sorted. */
	if (!c->eng.gpu && !c->o->knobs.no_stream && first && (total < 0 || pl->single)) {
		if (!(T = pool_take(c, &p, &writer)))
			goto out;
		(void)runs_feed_start(c, &feed, A, T, pl->chunk, scratch, out); /* 1: not fed, sorted as read */
	}
	progress_phase(c->prog, PROGRESS_SORT, 0, 0, total);
	rjob = (io_job){ .op = IO_JOB_CALL, .call = inputs_read_chunk, .arg = c, .buf = A,
			 .len = pl->chunk * R, .cap = p.bytes };
	io_worker_submit(&reader, &rjob);
	for (;;) {
		ssize_t n = io_worker_wait(&reader, &rjob);
		if (n < 0) {
			inputs_read_error(c, (int)n);
			goto out;
		}
		int eof = inputs_ended(c);
		c->st.records += (uint64_t)n;
		if (feed.S && !eof)
			runs_feed_drop(c, &feed); /* more follows: its records as read, sorted as runs */
		if (n == 0) {
			pool_give(&p, A);
			if (T)
				pool_give(&p, T);
			if (first)
				*single = 1; /* empty input: empty output */
			break;
		}
		uint8_t *B = NULL;
		if (!eof) {
			if (!(B = pool_take(c, &p, &writer)))
				goto out;
			rjob = (io_job){ .op = IO_JOB_CALL, .call = inputs_read_chunk, .arg = c, .buf = B,
					 .len = pl->chunk * R, .cap = p.bytes };
			io_worker_submit(&reader, &rjob);
		}
		if (!T && !(T = pool_take(c, &p, &writer)))
			goto out;
		if (first && eof && !c->eng.gpu && !c->o->knobs.no_stream) {
			/* one chunk on the CPU (read as a stream): written while
			 * sorted; counted while read when it was fed */
			rc = feed.S ? runs_feed_finish(c, &feed, (size_t)n) : 1;
			if (rc == 1)
				rc = runs_stream_buffer(c, A, T, (size_t)n, scratch, out);
			pool_give(&p, A);
			pool_give(&p, T);
			*single = 1;
			if (rc)
				goto out;
			progress_add(c->prog, (uint64_t)n * R);
			break;
		}
		double t0 = util_now();
		uint8_t *sorted = NULL;
		rc = c->eng.sort(&c->eng, A, T, (size_t)n, scratch, &sorted);
		c->st.sort_s += util_now() - t0;
		if (rc) {
			job_fail(c, "%s", c->eng.errmsg);
			goto out;
		}
		pool_give(&p, sorted == A ? T : A);
		T = NULL;
		if (first && eof) {
			/* one chunk: no run, no merge, no temp file (the write is
			 * timed by the sink's writer: job_sort adds its busy time) */
			rc = sink_put(out, sorted, (size_t)n);
			pool_give(&p, sorted);
			*single = 1;
			if (rc)
				goto out;
			progress_add(c->prog, (uint64_t)n * R);
			break;
		}
		first = 0;
		if (add_run(c, &p, &writer, sorted, (size_t)n, eof, fix_writer, &st, &hash_pool))
			goto out;
		progress_add(c->prog, (uint64_t)n * R);
		if (eof)
			break;
		A = B;
	}
	ret = 0;
out:
	/* drain: a failure above may leave a read and spill writes in flight */
	io_worker_stop(&reader);
	if (feed.S)
		runs_feed_drop(c, &feed);
	ret = drain_spills(c, &p, &writer, ret);
	io_worker_stop(&writer);
	tpool_stop(hash_pool);
	c->st.read_s += reader.busy;
	c->st.spill_s += writer.busy;
	pool_release(c, &p);
	free(scratch);
	return ret;
}
