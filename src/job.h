/*
 * job.h - one gpusort invocation: options, and the three things it can do
 * (sort, merge sorted inputs, check order). main.c parses the command line
 * into a job_opts, calls one of these, and prints job_result.msg on failure.
 */
#ifndef GPUSORT_JOB_H
#define GPUSORT_JOB_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"

enum { JOB_STATS_OFF, JOB_STATS_TEXT, JOB_STATS_JSON };
enum { JOB_CHECK_OFF, JOB_CHECK_DIAGNOSE, JOB_CHECK_QUIET };
enum { JOB_WHERE_AUTO, JOB_WHERE_CPU, JOB_WHERE_GPU };

typedef struct job_opts {
	keys_spec keys;
	int unique, check, merge_only, verify, progress, stats;
	const char *output;        /* NULL: standard output */
	char **inputs;             /* "-" = standard input */
	int ninputs;
	uint64_t mem;              /* -S, bytes */
	const char **tmpdirs;
	int ntmp;
	int threads;
	uint64_t gpu_mem;          /* 0: default */
	int device;                /* -1: any (fall back to the CPU) */
	int use_gpu;               /* 0 with --cpu or --algorithm=cpu */
	int algorithm;             /* JOB_WHERE_* for the chunk sort */
	int merge_where;           /* JOB_WHERE_* for the merge */
} job_opts;

typedef struct job_result {
	int status;                /* exit status: 0, 1 (disorder), 2 (error) */
	char msg[8192];            /* for status 2 (and 1 unless quiet): the message */
	char notice[512];          /* an informational line (e.g. "no GPU: using the CPU") */
} job_result;

/* Sort (or with merge_only, merge) the inputs into the output. */
void job_sort(const job_opts *o, job_result *r);
/* -c / -C: is the single input sorted? */
void job_check(const job_opts *o, job_result *r);

#endif
