/*
 * job.h - one gpusort invocation: the three things it can do (sort, merge
 * sorted inputs, check order). main.c parses the command line into a
 * job_opts (opts.h), calls one of these, and prints job_result.msg on
 * failure.
 */
#ifndef GPUSORT_JOB_H
#define GPUSORT_JOB_H
#include "opts.h"
#include "../io/io.h"

#include <stddef.h>

/* Sort (or with merge_only, merge) the inputs into the output. */
void job_sort(const job_opts *o, job_result *r);
/* -c / -C: is the single input sorted? */
void job_check(const job_opts *o, job_result *r);
/*
 * The message for io_output_commit's failure rc (-errno) on out, the
 * output named name: that the target holds the sorted output after all
 * (out->replaced: --sync's flush of its directory failed after the
 * rename), that it is damaged (out->damaged: a target of several hard
 * links, written in place, failed part way), or a plain "write failed"
 * (the target untouched). Writes at most cap bytes, NUL included, to msg.
 */
void job_commit_failed(const io_output *out, const char *name, int rc, char *msg, size_t cap);

#endif
