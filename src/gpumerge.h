/*
 * gpumerge.h - the GPU merge (DESIGN.md section 5, --merge-engine=gpu).
 *
 * Sorted runs held in host memory are cut at global splitters (regular
 * sampling, merge_plan_groups) into groups that each fit the device's
 * merge capacity; each group is streamed to the device through the
 * resident path's pinned staging (resident.h), its run slices merged there
 * (merge path, gpu_resident_merge; GPUSORT_GPU_MERGE=sort: ordered by the
 * chunk sort instead, in groups of the chunk capacity), and streamed to the
 * output while the next pieces come back, one group after another.
 * Spilled runs: gpumerge_spill.h, which plans its groups from samples and
 * hands each to gpumerge_group below.
 */
#ifndef GPUSORT_GPUMERGE_H
#define GPUSORT_GPUMERGE_H
#include "engine.h"
#include "resident.h"
#include "run.h"
#include "sink.h"
#include "tpool.h"

typedef struct gpumerge_stats {
	uint64_t groups;     /* groups merged on the device */
	double fill_s;       /* seconds copying run slices into staging */
	double store_s;      /* seconds copying merged pieces into the output's buffers */
	uint64_t *rest;      /* set by the caller: k records, where each run's
			      * unmerged records start after GPUMERGE_REST */
	/* the merge of spilled runs (gpumerge_spill.h) */
	uint64_t cpu_groups; /* groups merged on the CPU after the device failed */
	double read_s;       /* its readers' busy seconds reading runs back, summed */
	double wait_s;       /* seconds the merge waited for those reads */
	double device_s;     /* seconds of the groups on the device: staging fill,
			      * copies, merge, copy into the output's buffers */
	int err;             /* a failed read-back: -errno (-EBADMSG: a checksum), */
	int bad_run;         /* the run it failed on, */
	size_t bad_block;    /* and for -EBADMSG the run's bad block */
} gpumerge_stats;

#define GPUMERGE_REST 2

/*
 * Merge runs[0..k) (all in memory: runs[i]->mem, runs[i]->n records, in
 * input order) into out on the GPU engine e, with staging pieces of
 * piece_bytes and the threads of tp. Stable: ties keep run order.
 * by_sort: order each group with the stable chunk sort instead of the
 * device merge (the test build's GPUSORT_GPU_MERGE=sort, to compare them).
 * Returns 0; 1 when it cannot (a run is not in memory, pinned staging was
 * refused, the device refused the first group, or the GPU failed before
 * anything was written: then the engine is the CPU, engine_gpu_lost) and
 * nothing was written; GPUMERGE_REST when the device refused a later
 * group for memory, or failed on it, before any of it was written (a
 * failure is engine_gpu_lost): the groups before it are in out, and the
 * records of runs[i] from st->rest[i] on are what is left to merge, which
 * the caller does on the CPU (the groups are key ranges, so what is left
 * orders after all that was written); -1 on an error with msg set (msg
 * empty: the sink failed, out->err says why).
 */
/*
 * One group of a GPU merge on rs (resident_open'd with no inputs): slice i
 * (i < k) is len[i] records at src[i] (host memory, sorted, ties in input
 * order), merged by the device in slice order (by_sort: ordered by the
 * chunk sort) and handed piece by piece to out's writer, the pool's threads
 * filling the staging. The records (sum of len, 0 allowed: nothing done)
 * must fit the device's merge capacity (by_sort: its chunk capacity).
 * st's fill_s and store_s get the seconds spent filling staging and
 * storing the merged pieces into out's buffers added. Returns
 * resident_sort_chunk's 0, 1 (the device refused the group: nothing of it
 * written), RESIDENT_GPU_FAILED (msg says why; out->records tells whether
 * some of the group was written) or -1 (msg set, or empty when out failed).
 */
int gpumerge_group(resident *rs, const uint8_t *const *src, const uint64_t *len, int k, sink *out, tpool *tp,
		   int by_sort, gpumerge_stats *st, char *msg, size_t mlen);

int gpumerge_runs(engine *e, const keys_spec *s, run **runs, int k, sink *out, tpool *tp, size_t piece_bytes, int by_sort,
		  gpumerge_stats *st, char *msg, size_t mlen);

#endif
