/*
 * jobctx.h - the state of one sort or check that its phases share (job.c's
 * story: plan -> form runs -> merge -> commit; each phase in a file of its
 * own). Low in the house: it includes the layers below (engine, runs, I/O,
 * the plan) and nothing that includes it.
 */
#ifndef GPUSORT_JOBCTX_H
#define GPUSORT_JOBCTX_H
#include <stddef.h>
#include <stdint.h>
#include "cpustream.h"
#include "engine.h"
#include "opts.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "verify.h"
#include "../io/io.h"

/* Stage times and counts for --stats (stats.c). Seconds are summed over
 * chunks; overlapped stages sum to more than the wall time. */
typedef struct job_stats {
	double t0, read_s, sort_s, spill_s, merge_s, write_s, mread_s;
	double start_s;   /* engine start (CUDA context, device arena) and pinned staging */
	double teardown_runs_s, teardown_engine_s; /* after the output: runs unpinned and freed, the engine closed */
	double teardown_spill_s; /* after the output: the spill files closed (their cached pages and blocks freed) */
	uint64_t records, bytes_in, records_out, runs, spilled, chunk, rounds, parts, passes, gpu_groups;
	int out_mapped;          /* the output filled through a mapping (sink_map): no write stage of its own */
	uint64_t out_wb_bytes;   /* of it, bytes whose writeback the writer started as they were stored */
	double out_wb_s;         /* the writer's seconds in that (sink_writeback_early) */
	int threads;             /* the sort's threads when fewer than --parallel's (a small input); 0: those */
	uint64_t spill_mapped;   /* spilled runs stored through a mapping of the spill file, not written */
	uint64_t pass_spilled;   /* runs written by the merge passes before the last (not in runs or spilled) */
	const char *engine;
	char engine_buf[64];     /* the storage of an engine name made for this job */
	cpustream_stats stream;  /* the streamed single chunk; bits 0: not used */
	/* the GPU merge of spilled runs (gpumerge_spill.h): its groups (of
	 * gpu_groups), those merged on the CPU after a device failure, the
	 * stages (read-back: its readers' busy seconds, and the merge's wait
	 * for them; staging fill; the groups on the device), and, when the
	 * spilled runs were merged on the CPU instead, why */
	uint64_t gm_spill_groups, gm_cpu_groups;
	double gm_read_s, gm_wait_s, gm_fill_s, gm_dev_s, gm_store_s;
	char gm_why[256];
} job_stats;

typedef struct job_ctx {
	const job_opts *o;
	job_result *r;
	const keys_spec *s;
	size_t R;               /* record size, bytes */
	plan plan;              /* plan.h: every size the phases use */
	/* inputs (inputs.c) */
	io_file *in;
	io_file *in_seen;       /* each input as the checks saw it (regular, size, pos, mtime) */
	int nin, cur;           /* reader: file being read */
	uint64_t *in_bytes;     /* bytes read from each input */
	int bad_file;           /* reader: input that failed */
	int bad_open;           /* ... and it failed to open (not to read) */
	/* reader: when set, called on the reader's thread with each piece of
	 * whole records as it arrives (record indices from the start of the
	 * chunk's buffer, pieces of at most INPUTS_EACH_BYTES, in order, after
	 * --verify's sum saw them): the pipe's chunk counted while read */
	void (*read_each)(void *arg, size_t first, size_t count);
	void *read_each_arg;
	/* records read from the inputs once already and to be read again
	 * before what follows them (inputs_replay): a pipe's chunk that the
	 * device lost, handed to the path that takes over */
	uint8_t *replay;
	uint64_t replay_bytes, replay_done;
	/* output */
	io_output out;
	int out_open;
	/* spill files and runs (runlist.c) */
	io_file *spill;         /* one per -T dir, opened on first use */
	uint64_t *spill_end;    /* next free aligned offset of each */
	int next_tmp;
	run **runs;
	int nruns, caprun;
	/* --verify */
	verify_sum vin, vout;
	verify_order vord;
	tpool *vtp;             /* --verify: the input sum's threads (inputs_read_chunk), or NULL */
	job_stats st;
	job_opts eng_opts;      /* the engine's options (it keeps pointers into them): o, or o on the CPU */
	char gpu_note[256];     /* why the GPU is not used, when it was wanted (for --stats only) */
	engine eng;
	int small_cpu;          /* the planner put a small input on the CPU (plan_small_on_cpu) */
	progress *prog;         /* --progress: &prog_store; NULL without it (progress.h) */
	progress prog_store;
} job_ctx;

/* Record the job's error (printf format): the first one is kept, the status
 * becomes 2. */
void job_fail(job_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The error for an input of `size` bytes that is not whole records. */
void job_fail_size(job_ctx *c, const char *name, uint64_t size);

/* Start c for options o and result r (r is cleared by the caller): the spill
 * directories' state and --verify's buffers. Returns 0 or -1 (r filled).
 * job.c, with job_teardown. */
int job_setup(job_ctx *c, const job_opts *o, job_result *r);
/* Close and free everything c holds (inputs, spill files, runs, engine). */
void job_teardown(job_ctx *c);

#endif
