/*
 * text_job.h - a whole sort of text lines (DESIGN.md section 11): the
 * inputs read in chunks that fit -S, each sorted in memory (text_sort.h);
 * one chunk is written straight out, more are spilled as runs (XXH3
 * checked when read back) and merged, the last chunk from memory, in as
 * many passes as --batch-size allows. -m merges the inputs; -c/-C check
 * the one input. The output is written atomically (io.h io_output_*):
 * any failure leaves it as it was and removes the temporary files.
 */
#ifndef GPUSORT_TEXT_JOB_H
#define GPUSORT_TEXT_JOB_H
#include <stdint.h>
#include "opts.h"
#include "text_spec.h"

typedef struct text_result {
	job_result r;          /* status 0, 1 (disorder) or 2, and the message */
	uint8_t *disorder;     /* -c: the first line out of order (malloc'd), printed after r.msg */
	size_t disorder_len;
	uint64_t lines, bytes; /* read */
	uint64_t chunks, runs, merge_passes;
	uint64_t ties;         /* full comparisons: lines of equal prefixes in chunks, and ties in merges */
	double read_s, sort_s, ties_s, merge_s, total_s;
	double merge_wait_s;   /* of merge_s: waiting for the sources' lines read ahead */
	double merge_cut_s;    /* of merge_s: the rounds' bounds, splitters and cuts (text_merge_stats) */
	double merge_slice_s;  /* of merge_s: the rounds' slices merged on every thread */
	double merge_out_wait_s; /* of merge_s: the rounds waiting for the writer thread */
	double merge_read_s;   /* the helpers' thread-seconds reading the sources ahead */
	uint64_t merge_rounds;
	uint64_t merge_shared;   /* blocks read ahead on several threads at once (text_ahead.h) */
	uint64_t merge_concat;   /* merges whose sources did not overlap: copied whole (text_concat.h) */
	double prefix_s;       /* of sort_s: making the prefix records */
	unsigned prefix_width; /* the most prefix bytes a chunk's records had (text_sorter.width) */
	double write_s;        /* writing sorted chunks (runs, or the output: gather, write, commit) */
	int mapped_out;        /* the output was filled through a mapping by every thread (io_outmap) */
	const char *engine;    /* the chunk sort's engine name */
} text_result;

/*
 * Run the job o (inputs, -o, -S, -T, --parallel, --batch-size, -c/-C,
 * -m, the engine options) with ordering s. Fills *res; res->r.status is
 * the exit status. Never exits.
 */
void text_job_run(const job_opts *o, const text_spec *s, text_result *res);

#endif
