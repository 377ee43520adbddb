/*
 * stats.h - --stats: the job's stage times, counts, the GPU's stage times,
 * the plan (--stats=json) and the io_uring fixed-buffer state, on standard
 * error, as text lines "gpusort: stats: ..." or one JSON object.
 */
#ifndef GPUSORT_STATS_H
#define GPUSORT_STATS_H
#include "jobctx.h"

/* Print c's statistics in the format c->o->stats asks for; wall: seconds
 * since the job started. */
void stats_print(const job_ctx *c, double wall);

/* The text form's last line, printed after job_teardown (the JSON form has
 * none): seconds spent releasing the runs' memory (unpinning it) and the
 * engine (device memory, streams) once the output was committed, which
 * the wall time above does not include. */
void stats_print_teardown(const job_ctx *c);

#endif
