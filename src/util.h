/* util.h - small host helpers shared by src/: sizes, clocks, threads. */
#ifndef GPUSORT_UTIL_H
#define GPUSORT_UTIL_H
#include <stddef.h>
#include <stdint.h>

/* Seconds on a monotonic clock (for stage times). */
double util_now(void);

/* Physical memory in bytes (sysconf); 0 if unknown. */
uint64_t util_physmem(void);

/*
 * The memory limit of this process's cgroup, bytes: the smallest limit set on
 * its cgroup or an ancestor that can be read (cgroup v2 memory.max, v1
 * memory.limit_in_bytes), so that containers and batch schedulers are
 * respected; 0 when none is set or none can be read. file: read this one
 * limit file instead (the test build's), or NULL.
 */
uint64_t util_cgroup_memory(const char *file);

/* Number of online cores, >= 1. */
int util_ncores(void);

/*
 * Parse a SIZE argument: digits with an optional suffix b (bytes),
 * K M G T P E (powers of 1024; k m g t too, not p e; also spelled KiB or
 * KB), % (of physical
 * memory, any percentage); a plain number means KiB, as in GNU sort's -S.
 * Returns 0 and *out in bytes (0 for "0"), or -EINVAL (bad syntax) /
 * -ERANGE (past 64 bits: Z and Y always).
 */
int util_parse_size(const char *s, uint64_t *out);

/* Format bytes as "1.5 GiB" into buf (always NUL-terminated). */
const char *util_fmt_bytes(uint64_t bytes, char *buf, size_t len);

/*
 * Run fn(arg, t, nthreads) for t = 0..nthreads-1, t = 0 on the calling thread,
 * the rest on new pthreads, and wait for all. Returns 0, or -errno if a
 * thread could not be started (then the missing parts ran on the caller).
 */
int util_par_run(int nthreads, void (*fn)(void *arg, int t, int nthreads), void *arg);

/* Slices a thread, about, where work is handed to threads as they come
 * free (util_par_slices, and the MSD passes of cpusort.c and
 * cpusort_msd.c): enough that a thread that loses its core holds up a
 * phase by a quarter of its share at most. */
#define UTIL_SLICES_PER_THREAD 4

/*
 * fn(arg, lo, hi) over [0, n) cut into slices (UTIL_SLICES_PER_THREAD a thread, none
 * under min_slice items unless n is), on nthreads threads (util_par_run),
 * each taking the next slice as it comes free: a phase whose threads share
 * cores with other work (a spilling job's reader, writer and writeback)
 * does not wait for the one that lost its core, as it would with one fixed
 * share each. For work with no per-thread state. Returns util_par_run's.
 */
int util_par_slices(int nthreads, size_t n, size_t min_slice, void (*fn)(void *arg, size_t lo, size_t hi),
		    void *arg);

/*
 * The earliest position in [0, n) that first() finds, searched in pieces
 * of `piece` (> 0) taken in order by every thread that runs
 * util_earliest_step (util_par_run's or tpool_run's fn, arg the
 * util_earliest): first(arg, lo, hi, e) returns the earliest position it
 * finds in [lo, hi), or SIZE_MAX; it may give up, SIZE_MAX, once
 * util_earliest_found(e) < lo. A thread stops at the first piece that
 * starts after a position found, so every piece before the earliest one
 * is searched and none after it: -c's first record or line out of order.
 * util_earliest_found after the run: the earliest, or SIZE_MAX.
 */
typedef struct util_earliest {
	size_t n, piece;
	size_t (*first)(void *arg, size_t lo, size_t hi, const struct util_earliest *e);
	void *arg;
	_Atomic size_t next;  /* the next piece to take */
	_Atomic size_t found; /* the earliest position found so far, SIZE_MAX: none */
} util_earliest;

void util_earliest_init(util_earliest *e, size_t n, size_t piece,
			size_t (*first)(void *arg, size_t lo, size_t hi, const util_earliest *e), void *arg);
void util_earliest_step(void *e, int t, int nthreads);
size_t util_earliest_found(const util_earliest *e);

/* [lo, hi) of part t of n items split into nparts nearly equal parts. */
static inline void util_split(size_t n, int t, int nparts, size_t *lo, size_t *hi)
{
	*lo = n / (size_t)nparts * (size_t)t + ((size_t)t < n % (size_t)nparts ? (size_t)t : n % (size_t)nparts);
	*hi = *lo + n / (size_t)nparts + ((size_t)t < n % (size_t)nparts ? 1 : 0);
}

/* Aligned allocation (posix_memalign) of bytes rounded up to align; NULL on failure. */
void *util_alloc_aligned(size_t bytes, size_t align);

/*
 * bytes of memory on a 2 MiB boundary with transparent huge pages advised
 * (MADV_HUGEPAGE, where the kernel offers them on request), so that the
 * first touch and the release fault and free 512x fewer pages. Freed with
 * free(); NULL when out of memory.
 */
void *util_alloc_huge(size_t bytes);

/*
 * A buffer that grows: p (old_bytes, from this function; NULL: none) as
 * bytes of anonymous memory, its contents kept up to the smaller size,
 * moved by mremap (page tables, not a copy) and advised huge pages as one
 * whole mapping. realloc of a buffer whose middle was advised apart splits
 * it, so that its mremap fails (EFAULT) and every growth was a copy: twice
 * the buffer resident at once. Freed with util_map_free; NULL when out of
 * memory (p is left as it was).
 */
void *util_map_resize(void *p, size_t old_bytes, size_t bytes);

/* The process's peak resident memory so far, bytes (getrusage's
 * ru_maxrss: pages of mapped files, the output's and the runs', counted
 * with the process's own); 0 when unknown. --stats reports it beside -S. */
uint64_t util_peak_rss(void);

/* Free p (bytes long, from util_map_resize; NULL: nothing). */
void util_map_free(void *p, size_t bytes);

#endif
