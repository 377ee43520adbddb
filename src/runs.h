/*
 * runs.h - run formation, the middle of a sort (job.c: plan -> form runs ->
 * merge -> commit): read the inputs, sort them chunk by chunk with the job's
 * chunk sort (engine.h), and either write the only chunk straight to the
 * output (*single = 1: no run, no merge, no temp file) or leave the sorted
 * runs in c->runs in input order, kept in memory or spilled (runlist.h), for
 * the merge. One function per path of the plan (plan.h PLAN_*), in a file
 * of its own; all have this contract:
 *
 *   int runs_PATH(job_ctx *c, sink *out, int *single);
 *
 * c->plan gives every size. Returns 0 (done); 1 (not taken: nothing was
 * written to out and no run is left, e.g. an input changed since it was
 * checked, the device refused pinned staging, or the GPU failed before any
 * output and the CPU engine took over (engine_gpu_lost); the caller forms
 * the runs by runs_chunked, which takes every input; or, part through an
 * input of unknown size, nothing was written to out, the runs formed so far
 * are left in c->runs and the records read since handed back
 * (inputs_replay): runs_chunked goes on from there); or -1 (c->r filled,
 * or out's error, which the caller reports from the sink).
 */
#ifndef GPUSORT_RUNS_H
#define GPUSORT_RUNS_H
#include "jobctx.h"
#include "sink.h"

/* job.c: fill the output through a mapping once `bytes` of records are
 * known to come and before any came (a pipe's only chunk, once it ended);
 * where it cannot (--verify, an output that is an input, ...) the writer
 * thread stays. */
void job_map_output(job_ctx *c, sink *out, int64_t bytes);

/* PLAN_STREAM: the CPU engine's one chunk of regular files, read by all
 * threads, written while it is sorted (cpustream.h); or a pipe's first
 * chunk, counted while read (1 when the pipe goes on past it, the chunk
 * then c->runs[0], kept or spilled). runs_stream.c */
int runs_stream(job_ctx *c, sink *out, int *single);

/* PLAN_RESIDENT: device-sized chunks of regular files, read by all threads
 * into pinned staging, sorted on the device (resident.h); of an input of
 * unknown size (a pipe), read in order by one thread, each chunk ending
 * where the input does. runs_resident.c */
int runs_resident(job_ctx *c, sink *out, int *single);

/* PLAN_COUNT: records that are their keys, 1 or 2 bytes wide (keys_count_order):
 * every input read once (regular files by every thread, each counting the
 * pieces it read; a pipe in blocks by an I/O worker, each counted by every
 * thread while the next is read), the histogram written out in key order
 * by every thread; any size, pipes too, nothing kept or spilled. Never
 * returns 1. runs_count.c */
int runs_count(job_ctx *c, sink *out, int *single);

/* PLAN_CHUNKED: chunks read by one reader thread into the pool's buffers
 * (any input: pipes too), sorted while the next is read, kept or spilled
 * while the next sorts. Never returns 1. runs_chunked.c */
int runs_chunked(job_ctx *c, sink *out, int *single);

/*
 * The streamed sort (cpustream.h) of one chunk already in memory: n records
 * at a, b a second buffer of n records, scratch of cpusort_scratch_bytes,
 * written to out while sorted. For the chunked path's only chunk on the CPU
 * (read from a pipe). Returns 0 or -1 as above. runs_stream.c
 */
int runs_stream_buffer(job_ctx *c, uint8_t *a, uint8_t *b, size_t n, void *scratch, sink *out);

/*
 * The chunked path's first chunk on the CPU counted while it is read (an
 * input of unknown size: a pipe), so that when it turns out to be the only
 * chunk little is left at its end (cpustream_open):
 *  - runs_feed_start: a's records will be read into a (cap records; b and
 *    scratch as for runs_stream_buffer, for cap records); sets
 *    c->read_each so that the reader feeds them as they arrive. Returns 0,
 *    or 1 when it cannot (no memory, no threads: the chunk is then sorted
 *    as before; nothing to report).
 *  - runs_feed_finish: the read ended with n records, all of the input:
 *    sorted and written to out as runs_stream_buffer does. Returns 0, -1
 *    (c->r filled, or out's error), or 1: the counts could not be had (no
 *    memory), the records are as read and the feed dropped: sort them
 *    another way.
 *  - runs_feed_drop: more input follows (or the read failed): a's records
 *    turned back into what was read, the rest freed.
 * Either of the last two ends it, and clears c->read_each; the reader must
 * be idle (its job waited for).
 */
#define RUNS_FEED_JOBS 16 /* pieces the counter may be behind the reader */
typedef struct runs_feed {
	cpustream *S;
	tpool *tp;
	int failed;             /* a feed failed (no memory): drop, do not finish (counter's thread) */
	/* the pieces are counted on a thread of their own, in order, while the
	 * reader reads the next ones: the reader's read(2) copies and the
	 * counting overlap instead of taking turns on one core */
	io_worker counter;
	int counter_on;
	io_job jobs[RUNS_FEED_JOBS];
	uint64_t queued;        /* pieces queued so far (jobs[queued % RUNS_FEED_JOBS] next) */
} runs_feed;
int runs_feed_start(job_ctx *c, runs_feed *f, uint8_t *a, uint8_t *b, size_t cap, void *scratch, sink *out);
int runs_feed_finish(job_ctx *c, runs_feed *f, size_t n);
void runs_feed_drop(job_ctx *c, runs_feed *f);

#endif
