/*
 * merge_phase.h - the merge, the third step of a sort (job.c): the runs that
 * run formation left in c->runs (or, with -m, the inputs) merged into the
 * output. On the GPU when the engine is there, unless --merge-engine=cpu: runs all
 * in memory by gpumerge.h, spilled ones (and any kept beside them) by
 * gpumerge_spill.h when it expects to be faster (--merge-engine=auto) or is told
 * to (--merge-engine=gpu); else on the CPU (merge.h), in passes of
 * at most the plan's fan-in runs (groups of consecutive runs, so that ties
 * keep input order) until one pass writes the output. Sizes from
 * plan_merge_make (plan.h) with the bytes of the runs then in memory.
 */
#ifndef GPUSORT_MERGE_PHASE_H
#define GPUSORT_MERGE_PHASE_H
#include "jobctx.h"
#include "sink.h"

/*
 * Merge c->runs into out. Returns 0, or -1 with c->r filled, or with out's
 * error left for the caller to report (out->err). Spilled runs that fail
 * their checksum name the temp file and the block.
 */
int merge_phase(job_ctx *c, sink *out);

/* Bytes for each of the output sink's two buffers in the merge of c->runs
 * (plan_merge_make's sink share). */
size_t merge_phase_sink_bytes(const job_ctx *c);

/* Bytes of records the merge of c->runs reads (and, but for -u, writes);
 * -1 when not known before (a run read from a pipe, -m). */
int64_t merge_phase_bytes(const job_ctx *c);

#endif
