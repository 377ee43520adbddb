/*
 * splitters.h - cutting sorted runs into consecutive parts at splitters
 * chosen by deterministic regular sampling (Dehne & Zaboli, "Parallel
 * Sorting for GPUs", section 4, Algorithm 1 steps 3-6: equidistant samples
 * from each sorted run, all samples sorted, equidistant global samples of
 * those taken as splitters, each run cut at each splitter by binary search).
 * Both merges use it: the CPU merge to share a round among its threads
 * (merge.c), the GPU merge to cut in-memory runs into groups that fit the
 * device (merge_plan_groups).
 *
 * Records order by (key, run index, position in the run): ties keep run
 * order, which is input order, so the parts are disjoint and merging them
 * one after another is the whole stable merge.
 */
#ifndef GPUSORT_SPLITTERS_H
#define GPUSORT_SPLITTERS_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"

/* One sorted run as the sampler sees it. */
typedef struct splitters_run {
	const uint8_t *base; /* the run's record 0; records are s->record_size bytes apart */
	uint64_t lo, hi;     /* the sorted range to cut: records [lo, hi) */
	uint64_t samples;    /* equidistant samples to take from it (none when lo == hi) */
} splitters_run;

/*
 * Rank of a splitter in the sorted range [lo, hi) of run `ri` (records at
 * base, s->record_size bytes apart): the position, counting from base, of
 * the first record of the range that orders after the splitter (key record
 * sp, from run sr at position sp_pos) in (key, run, position) order; with
 * inclusive, the splitter itself counts as before. Returns a position in
 * [lo, hi] (for ri == sr: sp_pos, or sp_pos + 1 when inclusive).
 * O(log(hi - lo)) key comparisons.
 */
size_t splitters_rank(const keys_spec *s, const uint8_t *base, size_t lo, size_t hi, int ri, const uint8_t *sp,
		      int sr, size_t sp_pos, int inclusive);

/* A splitter: record rec, the sample at position pos of run `run`. */
typedef struct splitters_key {
	const uint8_t *rec;
	int run;
	uint64_t pos;
} splitters_key;

/*
 * The parts - 1 splitters of splitters_cut below (steps 3-5), without
 * cutting: sp[p - 1] is the splitter between part p - 1 and part p, its
 * pos counted from runs[run].base; sp[p - 1].rec is NULL when no run has
 * a sample (then every cut is at hi). sp has parts - 1 entries (parts >= 2).
 * So that a caller can cut runs that are not all in memory: for a run
 * given by samples only (base a sample array), a splitter's rank among
 * them bounds where it falls in the run. Returns 0 or -ENOMEM.
 */
int splitters_choose(const keys_spec *s, const splitters_run *runs, int k, int parts, splitters_key *sp);

/*
 * Where splitter sp falls in run ri when only its samples are at hand: the
 * run has n sorted records, and samples[q] (q < nsample, record_size bytes
 * apart) is its record q * every. Sets [*lo, *hi] (records, within 0..n)
 * to the range that holds the splitter's rank in the run (splitters_rank
 * over the whole run, inclusive 0), at most every records wide; exact
 * (lo == hi) when sp is run ri's own sample (sp->pos, a record position,
 * a multiple of every). O(log nsample) key comparisons.
 */
void splitters_band(const keys_spec *s, const uint8_t *samples, uint64_t nsample, uint64_t every, uint64_t n, int ri,
		    const splitters_key *sp, uint64_t *lo, uint64_t *hi);

/*
 * Cut runs[0..k) into `parts` (>= 1) consecutive parts: runs[i].samples
 * equidistant samples of each non-empty range (positions lo + len * q /
 * (samples + 1), q = 1..samples, len = hi - lo), sorted in (key, run,
 * position) order; sample number ns * p / parts of the ns sorted ones is
 * the splitter between part p - 1 and part p; each run is cut at it by
 * splitters_rank. With S samples in all, each run's share in proportion to
 * its length, a part holds at most about total / parts + 2 * total / S
 * records.
 * cuts: (parts + 1) * k entries; part p of run i is records
 * [cuts[p*k + i], cuts[(p+1)*k + i]), with cuts[i] = runs[i].lo and
 * cuts[parts*k + i] = runs[i].hi, non-decreasing in p. Every record of part
 * p orders before every record of part p + 1.
 * Returns 0 or -ENOMEM (the samples' array).
 */
int splitters_cut(const keys_spec *s, const splitters_run *runs, int k, int parts, uint64_t *cuts);

#endif
