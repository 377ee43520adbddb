/*
 * text_result.h - what a job on text lines (text_job.h, text_check.h)
 * reports: its exit status and message, -c's disorder, and the counts and
 * stage times --stats prints.
 */
#ifndef GPUSORT_TEXT_RESULT_H
#define GPUSORT_TEXT_RESULT_H
#include <stddef.h>
#include <stdint.h>
#include "opts.h"

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

#endif
