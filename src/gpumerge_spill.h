/*
 * gpumerge_spill.h - the GPU merge of runs that were spilled (DESIGN.md
 * section 5), beside runs kept in memory.
 *
 * The groups are planned before any run is read back: each spilled run
 * kept, at spill time, every sample_every-th record in memory (run.h
 * run_sample_*), and the splitters are chosen among those samples and
 * equidistant samples of the kept runs (splitters_choose). A splitter's
 * rank among a spilled run's samples bounds where it falls in the run to
 * sample_every records (its band); kept runs are cut exactly at once. So
 * group g's slice of spilled run i lies in the contiguous records
 * [lo_g, hi_g+1) of the run, and the slices of successive groups follow
 * one another: every spilled run is read once, sequentially, each window
 * read by an I/O worker (io_uring, the windows registered with it) with
 * its block checksums verified as the CPU merge verifies them, while the
 * previous group is on the device. Once a window is in, the exact cut is
 * found by binary search inside the band, the group's slices are copied
 * into the resident path's pinned staging (gpumerge_group), merged on the
 * device by merge path, and handed to the output's writer.
 */
#ifndef GPUSORT_GPUMERGE_SPILL_H
#define GPUSORT_GPUMERGE_SPILL_H
#include "gpumerge.h"

/*
 * Merge runs[0..k) (in input order; each in memory, or spilled with its
 * samples, run.h) into out on the GPU engine e, with staging pieces of
 * piece_bytes, the threads of tp (threads of them: also the CPU merge's
 * threads for the groups after a device failure), and at most host_bytes
 * of host memory for the read windows (two groups' worth: the one being
 * merged, the next being read). Stable: ties keep run order.
 * insist: merge on the GPU whenever it can (--merge-engine=gpu); else only when
 * the groups are large enough for the device to be expected faster than
 * the CPU merge (GPUMERGE_SPILL_MIN_GROUP bytes on average).
 * by_sort: as gpumerge_runs.
 *
 * Returns 0; 1 when it does not (why says why in words: a run compressed
 * or without samples, windows that do not fit host_bytes, groups too
 * small, pinned staging refused, or the device refused or failed on the
 * first group before anything was written: then a failure is
 * engine_gpu_lost) and nothing was written: the caller merges on the CPU;
 * -1 on an error: a read-back failed (st->err, st->bad_run, st->bad_block:
 * -EBADMSG for a checksum that did not match, as merge_runs reports), or
 * msg set, or both empty: the sink failed (out->err says why). When the
 * device fails or runs out of memory on a later group before any of it
 * was written (a failure is engine_gpu_lost), that group and the rest are
 * merged on the CPU (st->cpu_groups), and 0 is returned.
 */
#define GPUMERGE_SPILL_MIN_GROUP (4u << 20)
/* out->prog (may be NULL) gets the merge's progress line once the merge is
 * certain to start on the device (so that a CPU merge in its place has
 * the only one). */
int gpumerge_spilled(engine *e, const keys_spec *s, run **runs, int k, sink *out, tpool *tp, int threads,
		     size_t piece_bytes, uint64_t host_bytes, int insist, int by_sort, gpumerge_stats *st, char *msg,
		     size_t mlen, char *why, size_t wlen);

#endif
