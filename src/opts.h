/*
 * opts.h - the options of one gpusort invocation, as main.c parses them,
 * and the result a job hands back: what every layer below the CLI may read
 * (the planner, the engines, the run and merge phases). Plain data; nothing
 * here does anything.
 */
#ifndef GPUSORT_OPTS_H
#define GPUSORT_OPTS_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"

enum { JOB_STATS_OFF, JOB_STATS_TEXT, JOB_STATS_JSON };
enum { JOB_CHECK_OFF, JOB_CHECK_DIAGNOSE, JOB_CHECK_QUIET };
enum { JOB_WHERE_AUTO, JOB_WHERE_CPU, JOB_WHERE_GPU };

/*
 * Path switches for the tests and for A/B measurements: set only by the test
 * build of the CLI (tests/bin/gpusort-test, GPUSORT_TEST_HOOKS), from the
 * GPUSORT_* variables tests/README.md lists; all zero in the installed
 * binary, where the planner alone chooses.
 */
typedef struct job_knobs {
	int no_stream;         /* the CPU engine's single chunk is sorted, then written */
	int no_count;          /* records of 1-2 bytes that are their keys are sorted, not counted */
	int stream_bits;       /* the streamed chunk's partition bits (1..16); 0: chosen */
	long feed_piece;       /* records per counting piece of a pipe's chunk (cpustream_open); 0: chosen */
	int no_resident;       /* no device-resident chunks: the chunked path on the GPU */
	int no_overlap;        /* device-resident chunks one at a time */
	int no_small_cpu;      /* small inputs go to the GPU too */
	int gpu_merge_by_sort; /* the GPU merge orders a group by the chunk sort */
	int no_outmap;         /* the output and text runs written by a writer thread, never filled through a mapping (sink_map, io_outmap) */
	long writeback_piece;  /* bytes of a mapped output's stores handed to writeback at a time (sink_writeback_early); 0: chosen */
	long text_block;       /* the text merge's read-ahead block, bytes; 0: chosen */
	int text_helpers;      /* the text merge's read-ahead threads; 0: chosen */
	long check_block;      /* -c of text from a stream: bytes a read; 0: chosen */
	int spill_merge;       /* under --merge-engine=auto, spilled runs merge: 0 as the planner chooses, JOB_WHERE_CPU
				* on the CPU, JOB_WHERE_GPU on the GPU whenever it can (A/B; small tests) */
} job_knobs;

typedef struct job_opts {
	keys_spec keys;
	int unique, check, merge_only, verify, progress, stats;
	int debug;                 /* --debug (text lines): each output line followed by its keys' marks */
	int progress_tty;          /* --progress: redraw one line in place (standard error is a terminal) */
	double progress_interval;  /* --progress: seconds between lines at the most */
	int sync;                  /* --sync: the output on disk before it replaces the old one */
	const char *output;        /* NULL: standard output */
	char **inputs;             /* "-" = standard input */
	int ninputs;
	uint64_t mem;              /* -S, bytes */
	const char **tmpdirs;
	int ntmp;
	const char *compress;      /* --compress-program: spilled runs through PROG and PROG -d; NULL: none */
	int threads;
	int threads_given;         /* --parallel was given: honoured even for a small input */
	int batch_size;            /* --batch-size: most runs the CPU merge takes at once (2..MERGE_MAX_FANIN); 0: memory decides */
	uint64_t gpu_mem;          /* 0: default */
	int device;                /* -1: any (fall back to the CPU) */
	int use_gpu;               /* 0 with --cpu or --algorithm=cpu */
	int algorithm;             /* JOB_WHERE_* for the chunk sort */
	int sorter;                /* the in-device sorter (gpu_sorter_name's index; 0: the first) */
	int merge_where;           /* JOB_WHERE_* for the merge */
	job_knobs knobs;
} job_opts;

/* Inputs (regular files) of fewer bytes than this are sorted on one
 * thread unless --parallel is given: starting the others costs more than
 * they would take off (bench/results/h200-small-inputs-2026-11-29.md). */
#define OPTS_ONE_THREAD_BYTES ((int64_t)64 << 10)

/* The threads to sort `bytes` of input with (-1: unknown, a pipe). */
static inline int opts_threads_for(const job_opts *o, int64_t bytes)
{
	if (bytes >= 0 && bytes < OPTS_ONE_THREAD_BYTES && !o->threads_given)
		return 1;
	return o->threads > 0 ? o->threads : 1;
}

/* What a job reports back to main.c, the one place that prints and exits. */
typedef struct job_result {
	int status;                /* exit status: 0, 1 (disorder), 2 (error) */
	char msg[8192];            /* for status 2 (and 1 unless quiet): the message */
	char notice[512];          /* an informational line (e.g. "no GPU: using the CPU") */
} job_result;

#endif
