/*
 * job.h - one gpusort invocation: the three things it can do (sort, merge
 * sorted inputs, check order). main.c parses the command line into a
 * job_opts (opts.h), calls one of these, and prints job_result.msg on
 * failure.
 */
#ifndef GPUSORT_JOB_H
#define GPUSORT_JOB_H
#include "opts.h"


/* Sort (or with merge_only, merge) the inputs into the output. */
void job_sort(const job_opts *o, job_result *r);
/* -c / -C: is the single input sorted? */
void job_check(const job_opts *o, job_result *r);

#endif
