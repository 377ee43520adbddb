/* runs_stream.c - the streamed CPU chunk (runs.h PLAN_STREAM; cpustream.h). */
#define _GNU_SOURCE
#include "runs.h"
#include "cpusort.h"
#include "cpustream.h"
#include "inputs.h"
#include "readall.h"
#include "run.h"
#include "runlist.h"
#include "tpool.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The partition bits: 0 (cpustream_bits chooses), or the test build's. */
static int stream_bits(const job_ctx *c)
{
	int b = c->o->knobs.stream_bits;
	return b >= 1 && b <= CPUSTREAM_MAX_BITS ? b : 0;
}

/*
 * Sort and write the chunk of S (cpustream.h; counted: its records were
 * counted while read) and fill the stats. Frees S. Returns 0 or -1 (c->r
 * filled, or the sink's error, which the caller reports).
 */
static int stream_run(job_ctx *c, cpustream *S, int counted)
{
	int rc = cpustream_run(S, counted, &c->st.stream);
	c->st.sort_s += c->st.stream.sort_s;
	c->st.engine = c->small_cpu ? "cpu (streamed; small input)" : "cpu (streamed)";
	if (rc == -ENOMEM)
		job_fail(c, "out of memory");
	return rc ? -1 : 0;
}

int runs_stream_buffer(job_ctx *c, uint8_t *a, uint8_t *b, size_t n, void *scratch, sink *out)
{
	tpool *own = NULL;
	int rc = tpool_start(&own, c->o->threads);
	if (rc) {
		job_fail(c, "cannot start threads: %s", strerror(-rc));
		return -1;
	}
	cpustream *S = cpustream_new(c->s, a, b, n, scratch, stream_bits(c), own, out);
	rc = S ? stream_run(c, S, 0) : -1;
	if (!S)
		job_fail(c, "out of memory");
	tpool_stop(own);
	return rc;
}

/* The counter's job: feed one piece (j->off: its first record, j->len: its records). */
static ssize_t feed_count(io_job *j, io_ring *ring)
{
	runs_feed *f = j->arg;
	(void)ring;
	if (!f->failed && cpustream_feed(f->S, (size_t)j->off, j->len))
		f->failed = 1;
	return 0;
}

/* c->read_each while a pipe's chunk is read: queue the records that
 * arrived for the counter (or count them here when it has no thread). */
static void feed_each(void *arg, size_t first, size_t count)
{
	runs_feed *f = arg;
	if (!f->counter_on) {
		io_job j = { .arg = f, .off = first, .len = count };
		feed_count(&j, NULL);
		return;
	}
	io_job *j = &f->jobs[f->queued % RUNS_FEED_JOBS];
	if (f->queued >= RUNS_FEED_JOBS)
		io_worker_wait(&f->counter, j); /* the slot's last piece is counted */
	*j = (io_job){ .op = IO_JOB_CALL, .call = feed_count, .arg = f, .off = first, .len = count };
	io_worker_submit(&f->counter, j);
	f->queued++;
}

int runs_feed_start(job_ctx *c, runs_feed *f, uint8_t *a, uint8_t *b, size_t cap, void *scratch, sink *out)
{
	memset(f, 0, sizeof *f);
	if (tpool_start(&f->tp, c->o->threads))
		return 1;
	if (!(f->S = cpustream_open(c->s, a, b, cap, scratch, stream_bits(c),
				    c->o->knobs.feed_piece > 0 ? (size_t)c->o->knobs.feed_piece : 0, f->tp, out))) {
		tpool_stop(f->tp);
		f->tp = NULL;
		return 1;
	}
	f->counter_on = io_worker_start(&f->counter) == 0; /* else counted on the reader's thread */
	c->read_each = feed_each;
	c->read_each_arg = f;
	return 0;
}

/* Every queued piece counted, the counter's thread gone. */
static void feed_counted(runs_feed *f)
{
	if (f->counter_on)
		io_worker_stop(&f->counter);
	f->counter_on = 0;
}

void runs_feed_drop(job_ctx *c, runs_feed *f)
{
	c->read_each = NULL;
	feed_counted(f);
	if (f->S)
		cpustream_unfeed(f->S);
	tpool_stop(f->tp);
	memset(f, 0, sizeof *f);
}

int runs_feed_finish(job_ctx *c, runs_feed *f, size_t n)
{
	c->read_each = NULL;
	feed_counted(f);
	if (f->failed || cpustream_close(f->S, n)) {
		/* no memory for the counts: the records as read, sorted as before */
		runs_feed_drop(c, f);
		return 1;
	}
	int rc = stream_run(c, f->S, 1);
	tpool_stop(f->tp);
	memset(f, 0, sizeof *f);
	return rc;
}

/* What readall_range_each's callback needs. */
struct stream_read {
	cpustream *S;
	progress *prog;
	size_t R;
};

/* readall_range_each's callback: count the records just read
 * (cpustream_count), and their bytes for --progress. */
static void stream_count(void *arg, int part, size_t first, size_t count)
{
	struct stream_read *sr = arg;
	cpustream_count(sr->S, part, first, count);
	progress_add(sr->prog, count * sr->R);
}

/* A pipe's first run is kept in memory when at least this much of -S is
 * left beside it: the chunked path after it plans with what is left, and
 * below this its smaller chunks make more runs than the merge's windows
 * take in one pass (-S 32M: 125 runs and two passes against 64 and one). */
#define STREAM_PIPE_KEEP_LEFT ((uint64_t)256 << 20)

/* Spill the sorted run r (n records at recs) to a temp file through ring,
 * checksummed and sampled as every spilled run. 0, or -1 (c->r filled). */
static int spill_run(job_ctx *c, run *r, const uint8_t *recs, size_t n, io_ring *ring)
{
	size_t bytes = n * c->R;
	if (runlist_spill(c, r, bytes) < 0)
		return -1;
	if (run_sample_start(r, c->R)) {
		job_fail(c, "out of memory");
		return -1;
	}
	run_sample_add(r, recs, 0, n, c->R);
	double t0 = util_now();
	r->file->pos = r->off;
	int rc = run_hash_add(&r->hash, recs, bytes);
	if (!rc)
		rc = io_write_next(ring, r->file, recs, bytes);
	if (!rc)
		rc = run_hash_end(&r->hash);
	c->st.spill_s += util_now() - t0;
	if (rc) {
		runlist_write_failed(c, r->file, rc);
		return -1;
	}
	c->st.spilled++;
	return runlist_spill_close(c, r);
}

/*
 * A pipe's first chunk (plan.c plan_stream_pipe): read on this thread into
 * a, counted for the partition while it arrives (runs_feed); a pipe that
 * ends within it is sorted and written as runs_stream_buffer does, one that
 * goes on makes it the first run, kept in memory where enough of -S is left
 * beside it (STREAM_PIPE_KEEP_LEFT), else spilled, and returns 1 for the
 * chunked path to go on after it (runs.h).
 */
static int stream_pipe(job_ctx *c, sink *out, int *single)
{
	size_t R = c->R, cap = (size_t)c->plan.chunk;
	size_t sb = cpusort_scratch_bytes(c->s, cap), eb = c->eng.scratch_per_record * cap;
	if (eb > sb)
		sb = eb; /* the chunk sort's scratch, should it become a run */
	uint8_t *a = util_alloc_huge(cap * R), *b = util_alloc_huge(cap * R);
	uint8_t *scratch = sb ? util_alloc_huge(sb) : NULL;
	io_ring ring;
	int ring_ok = 0, ret = -1, rc;
	runs_feed feed = { 0 };
	*single = 0;
	if (!a || !b || (sb && !scratch)) {
		job_fail(c, "out of memory (2 buffers of %zu bytes and %zu of sort scratch; try a smaller -S)", cap * R,
			 sb);
		goto out;
	}
	if ((rc = io_ring_init(&ring))) {
		job_fail(c, "cannot start I/O: %s", strerror(-rc));
		goto out;
	}
	ring_ok = 1;
	int fed = runs_feed_start(c, &feed, a, b, cap, scratch, out) == 0; /* else sorted as read */
	progress_phase(c->prog, PROGRESS_SORT, 0, 0, -1);
	double t0 = util_now();
	io_job j = { .op = IO_JOB_CALL, .arg = c, .buf = a, .len = cap * R, .cap = cap * R };
	ssize_t n = inputs_read_chunk(&j, &ring);
	c->st.read_s += util_now() - t0;
	if (n < 0) {
		if (fed)
			runs_feed_drop(c, &feed);
		inputs_read_error(c, (int)n);
		goto out;
	}
	c->st.records += (uint64_t)n;
	c->st.chunk = cap; /* as the chunked path says it: the most a chunk takes */
	if (inputs_ended(c)) {
		*single = 1;
		rc = fed ? runs_feed_finish(c, &feed, (size_t)n) : 1;
		if (rc == 1)
			rc = runs_stream_buffer(c, a, b, (size_t)n, scratch, out);
		if (!rc)
			progress_add(c->prog, (uint64_t)n * R);
		ret = rc ? -1 : 0;
		goto out;
	}
	if (fed)
		runs_feed_drop(c, &feed); /* more follows: its records as read */
	uint8_t *sorted = NULL;
	t0 = util_now();
	rc = c->eng.sort(&c->eng, a, b, (size_t)n, scratch, &sorted);
	c->st.sort_s += util_now() - t0;
	if (rc) {
		job_fail(c, "%s", c->eng.errmsg);
		goto out;
	}
	run *r = runlist_new(c);
	if (!r)
		goto out;
	r->n = (uint64_t)n;
	c->st.runs++;
	if (c->o->mem < (uint64_t)n * R + STREAM_PIPE_KEEP_LEFT) {
		if (spill_run(c, r, sorted, (size_t)n, &ring))
			goto out;
	} else {
		r->mem = sorted; /* the run owns it now */
		if (sorted == a)
			a = NULL;
		else
			b = NULL;
	}
	progress_add(c->prog, (uint64_t)n * R);
	ret = 1;
out:
	if (ring_ok)
		io_ring_exit(&ring);
	free(a);
	free(b);
	free(scratch);
	return ret;
}

int runs_stream(job_ctx *c, sink *out, int *single)
{
	if (inputs_known_size(c) < 0)
		return stream_pipe(c, out, single);
	size_t R = c->R, n = (size_t)c->plan.records;
	int64_t total = (int64_t)((uint64_t)n * R);
	int rc = inputs_reopen(c);
	if (rc)
		return rc;
	*single = 1;
	size_t sb = cpusort_scratch_bytes(c->s, n);
	/* on 2 MiB pages: faulting the buffers in and unmapping them at the end
	 * is most of what a whole-input buffer costs beyond the sort, and huge
	 * pages make that 512x fewer faults */
	uint8_t *a = util_alloc_huge(n * R), *b = util_alloc_huge(n * R);
	uint8_t *scratch = sb ? util_alloc_huge(sb) : NULL;
	tpool *tp = NULL;
	int ret = -1, bad = -1;
	if (!a || !b || (sb && !scratch)) {
		job_fail(c, "out of memory (2 buffers of %zu bytes and %zu of sort scratch; try a smaller -S)", n * R, sb);
		goto out;
	}
	int nt = opts_threads_for(c->o, total);
	c->st.threads = nt;
	if ((rc = tpool_start(&tp, nt))) {
		job_fail(c, "cannot start threads: %s", strerror(-rc));
		goto out;
	}
	/* the records are counted for the partition as they are read, each
	 * 4 MiB piece while it is in the reading thread's cache */
	cpustream *S = cpustream_new(c->s, a, b, n, scratch, stream_bits(c), tp, out);
	if (!S) {
		job_fail(c, "out of memory");
		goto out;
	}
	double t0 = util_now();
	struct stream_read sr = { .S = S, .prog = c->prog, .R = R };
	progress_phase(c->prog, PROGRESS_READ, 0, 0, total);
	rc = readall_range_each(tp, c->in, c->nin, 0, (uint64_t)n * R, a, R, c->o->verify ? &c->vin : NULL, &bad,
				stream_count, &sr);
	c->st.read_s += util_now() - t0;
	if (rc) {
		cpustream_free(S);
		inputs_pread_error(c, rc, bad);
		goto out;
	}
	if (inputs_unchanged(c)) {
		cpustream_free(S);
		goto out;
	}
	c->st.records = n;
	c->st.chunk = n ? n : 1;
	for (int i = 0; i < c->nin; i++)
		c->in_bytes[i] = c->in[i].size - c->in[i].pos;
	/* sorted and written at once: the sink counts the sorted buckets */
	progress_phase(c->prog, PROGRESS_SORT, 0, 0, total);
	out->prog = c->prog;
	ret = stream_run(c, S, 1);
	out->prog = NULL;
out:
	tpool_stop(tp);
	inputs_close(c);
	free(a);
	free(b);
	free(scratch);
	return ret;
}
