/*
 * merge.h - parallel k-way merge of sorted runs (DESIGN.md section 5, CPU).
 *
 * Each run is streamed through two buffers of a window (W records) each:
 * one being merged, the other being filled (all of them registered with
 * the read-ahead workers' io_urings as fixed buffers, see
 * io_ring_register). The merge proceeds in rounds: a round takes, from
 * every run's records in memory, those that order at or before the
 * smallest last record in memory of a run with more to come (nothing later
 * can come from unread data). A run with W / 4 records or fewer left after
 * a round's cut has them copied to the front of its other buffer, and its
 * next records read after them by an I/O worker during the round: each run
 * holds more than W / 4 records at a round's start, and a round takes
 * k W / 4 or more. It cuts
 * them at splitters chosen by deterministic regular sampling (splitters.h)
 * into several parts a thread, and lets the threads loser-tree-merge the
 * parts straight into the sink, each taking the next part as it finishes
 * one.
 * Records order by (key, run index, position): ties keep run order, which is
 * input order, so the merge is stable and the slices are disjoint.
 */
#ifndef GPUSORT_MERGE_H
#define GPUSORT_MERGE_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"
#include "run.h"
#include "sink.h"

typedef struct merge_stats {
	double read_s;      /* read-ahead workers busy reading windows, summed over them */
	double merge_s;     /* wall time of the merge loop */
	uint64_t rounds;
	uint64_t parts;     /* the rounds' parts, taken by the threads as each finishes one */
} merge_stats;

/*
 * Merge *runs[0..k) (in input order) into the sink. budget: bytes of host
 * memory for windows (the sink's buffers are the caller's). threads >= 1.
 * Returns 0 or -errno; on -EBADMSG (a spilled block's checksum did not match)
 * or another error *bad_run is the index of the run that failed.
 * Stream runs (-m from a pipe) learn their length here; a stream whose size
 * is not a multiple of the record size fails with -EPROTO. Compressed runs
 * (run.h zfile) are read in order from r->file, their decompressor's pipe
 * (runlist_read_start); one that ends before its run fails with -ENODATA.
 */
int merge_runs(const keys_spec *s, run **runs, int k, sink *out, size_t budget, int threads,
	       merge_stats *st, int *bad_run, size_t *bad_block);

#define MERGE_MAX_FANIN 1024 /* most runs one merge takes, whatever the memory */

/* Largest fan-in the budget allows for this record size (2..MERGE_MAX_FANIN):
 * two buffers of at least 64 KiB (or a record) a run. */
int merge_max_fanin(const keys_spec *s, size_t budget);

/* Window records W for k file runs in `budget` bytes: each run has two
 * buffers of W records. >= 1; a multiple of io_align_records when that
 * many fit. */
size_t merge_window_records(const keys_spec *s, int k, size_t budget);

/*
 * Cut k sorted in-memory runs (runs[i]->mem, runs[i]->n records) into
 * `groups` consecutive groups for a merge that takes one group at a time
 * (the GPU merge, DESIGN.md section 5), by splitters_cut (splitters.h):
 * about samples * k regular samples in all, each run's share in proportion
 * to its length. With s = samples * k, a group holds at most about
 * total/groups + 2 * total/s records. Group g is
 * records [cuts[g*k + i], cuts[(g+1)*k + i]) of each run i; every record of
 * group g orders before every record of group g+1 in (key, run, position)
 * order, so merging the groups one after another is the whole stable merge.
 * cuts has (groups + 1) * k entries. Returns 0 or -ENOMEM.
 */
int merge_plan_groups(const keys_spec *s, run **runs, int k, int groups, int samples, uint64_t *cuts);

#endif
