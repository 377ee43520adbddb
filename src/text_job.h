/*
 * text_job.h - a whole sort of text lines (DESIGN.md section 11): the
 * inputs read in chunks that fit -S, each sorted in memory (text_sort.h);
 * one chunk is written straight out, more are spilled as runs (XXH3
 * checked when read back) and merged, the last chunk from memory, in as
 * many passes as --batch-size allows. -m merges the inputs; -c/-C check
 * the one input (text_check.h). The output is written atomically (io.h io_output_*):
 * any failure leaves it as it was and removes the temporary files.
 */
#ifndef GPUSORT_TEXT_JOB_H
#define GPUSORT_TEXT_JOB_H
#include <stdint.h>
#include "opts.h"
#include "text_result.h"
#include "text_spec.h"

/*
 * Run the job o (inputs, -o, -S, -T, --parallel, --batch-size, -c/-C,
 * -m, the engine options) with ordering s. Fills *res; res->r.status is
 * the exit status. Never exits.
 */
void text_job_run(const job_opts *o, const text_spec *s, text_result *res);

#endif
