/*
 * runlist.h - the job's sorted runs, in input order (c->runs), and the spill
 * files they go to when they do not stay in memory: one file per -T
 * directory, opened on first use, runs placed one after another in it at
 * IO_ALIGN-aligned offsets, each with XXH3 block checksums (run.h).
 */
#ifndef GPUSORT_RUNLIST_H
#define GPUSORT_RUNLIST_H
#include "jobctx.h"

/* A new empty run appended to c->runs; NULL when out of memory. */
run *runlist_new(job_ctx *c);

/* Free r (its memory, unpinned first when pinned; its checksums). NULL is a no-op. */
void runlist_free_run(job_ctx *c, run *r);

/*
 * Drop every run formed so far (their spilled bytes stay in the spill files,
 * unused) and the input's --verify sum, so that the runs can be formed anew
 * from the start of the inputs (a GPU that failed mid-job, engine_gpu_lost).
 */
void runlist_discard(job_ctx *c);

/*
 * Make r a spilled run in the next -T directory's spill file (round robin):
 * r->file, r->off (aligned), r->spilled set, `bytes` bytes reserved there
 * (0: not known yet, reserve with runlist_spill_end once written). r->file's
 * position is not touched: a writer thread may be writing another run of the
 * same file (the writer sets it, runlist_spill_hook). Returns the
 * directory's index, or -1 (c->r filled: the file could not be created).
 */
int runlist_spill(job_ctx *c, run *r, uint64_t bytes);

/* The spill file of directory dir holds data up to byte offset end: the
 * next run starts at the next IO_ALIGN boundary. */
void runlist_spill_end(job_ctx *c, int dir, uint64_t end);

/* The -T directory of index dir (for messages). */
const char *runlist_tmpdir(const job_ctx *c, int dir);

/*
 * Record a failed write (rc: -errno) to spill file f (one of c's): the
 * message names f's -T directory, so that a user with several knows which
 * one filled or failed.
 */
void runlist_write_failed(job_ctx *c, const io_file *f, int rc);

/* I/O worker hook of a spill write (io_job.arg is the run): position the
 * file at the run and add the written bytes to its block checksums. */
void runlist_spill_hook(io_job *j);

/* -m: every input is one sorted run, read in place (stream inputs learn
 * their length in the merge). Returns 0 or -1 (c->r filled). */
int runlist_from_inputs(job_ctx *c);

#endif
