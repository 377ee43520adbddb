/*
 * runlist.h - the job's sorted runs, in input order (c->runs), and the spill
 * files they go to when they do not stay in memory: one file per -T
 * directory, opened on first use, runs placed one after another in it at
 * IO_ALIGN-aligned offsets, each with XXH3 block checksums (run.h).
 */
#ifndef GPUSORT_RUNLIST_H
#define GPUSORT_RUNLIST_H
#include "jobctx.h"

/* A new empty run appended to c->runs; NULL when out of memory (c->r
 * filled: "out of memory"). */
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
 * same file (the writer sets it, runlist_spill_hook). With --compress-program
 * r gets a temp file of its own in that directory instead (r->zfile) and
 * r->file is the pipe to the compressor writing it (run.h), started here.
 * Returns the directory's index, or -1 (c->r filled: the file could not be
 * created, or the compressor not started).
 */
int runlist_spill(job_ctx *c, run *r, uint64_t bytes);

/*
 * r, spilled by runlist_spill, is written whole: with --compress-program,
 * close the compressor's input and wait for it to finish r's file; else
 * nothing (its bytes are reserved). Returns 0, or -1 (c->r filled: the
 * compressor failed, named with its exit status).
 */
int runlist_spill_close(job_ctx *c, run *r);

/*
 * Before a merge reads runs[0..k): start a decompressor ("PROG -d") for
 * each compressed run, reading its file from the start; r->file becomes
 * the pipe it writes, read sequentially. Returns 0, or -1 (c->r filled;
 * runlist_read_end still stops those started).
 */
int runlist_read_start(job_ctx *c, run **runs, int k);

/*
 * After the merge of runs[0..k): wait for their decompressors, each of
 * which must have given exactly its run's bytes and exited with status 0.
 * failed: the merge failed (bad: the run it failed on, or -1): that run's
 * decompressor is still waited for (its exit status says why the data
 * ended), the others stopped. Returns 0, or -1 (c->r filled unless it was
 * already: the first error is the one reported).
 */
int runlist_read_end(job_ctx *c, run **runs, int k, int failed, int bad);

/* The spill file of directory dir holds data up to byte offset end: the
 * next run starts at the next IO_ALIGN boundary. */
void runlist_spill_end(job_ctx *c, int dir, uint64_t end);

/* The -T directory of index dir (for messages). */
const char *runlist_tmpdir(const job_ctx *c, int dir);

/*
 * Record a failed write (rc: -errno) to spill file f (one of c's): the
 * message names f's -T directory, so that a user with several knows which
 * one filled or failed. f the pipe to a compressor (run.h): the compressor
 * is waited for, and its exit status is the error when it failed.
 */
void runlist_write_failed(job_ctx *c, io_file *f, int rc);

/* I/O worker hook of a spill write (io_job.arg is the run, its block
 * checksums already taken): position the file at the run. */
void runlist_spill_hook(io_job *j);

/* -m: every input is one sorted run, read in place (stream inputs learn
 * their length in the merge). Returns 0 or -1 (c->r filled). */
int runlist_from_inputs(job_ctx *c);

/*
 * -m: the runs of regular inputs mapped whole, read-only: the merge takes
 * their records from the page cache as it takes runs kept in memory, with
 * no reads into windows, and they count for nothing of -S. Not an input
 * that is also the output (`gpusort -m in 1<>in`: written in place while
 * it is merged); a file that does not map is read as before. The runs'
 * files stay open (inputs_unchanged). Cannot fail.
 */
void runlist_map_inputs(job_ctx *c);

#endif
