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
 */
#ifndef GPUSORT_GPUMERGE_H
#define GPUSORT_GPUMERGE_H
#include "engine.h"
#include "run.h"
#include "sink.h"
#include "tpool.h"

typedef struct gpumerge_stats {
	uint64_t groups;     /* groups merged on the device */
	double fill_s;       /* seconds copying run slices into staging */
	uint64_t *rest;      /* set by the caller: k records, where each run's
			      * unmerged records start after GPUMERGE_REST */
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
int gpumerge_runs(engine *e, const keys_spec *s, run **runs, int k, sink *out, tpool *tp, size_t piece_bytes, int by_sort,
		  gpumerge_stats *st, char *msg, size_t mlen);

#endif
