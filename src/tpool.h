/*
 * tpool.h - a fixed set of worker threads (pthreads) that run one parallel
 * step at a time. util_par_run starts threads per call, which is fine for a
 * sort of a whole chunk but too slow for the resident path's many small
 * steps (a 64 MiB piece read by 16 threads takes about a millisecond).
 */
#ifndef GPUSORT_TPOOL_H
#define GPUSORT_TPOOL_H
#include <stddef.h>

typedef struct tpool tpool;

/*
 * Start nthreads - 1 workers (the caller is part t = 0 of every step).
 * Returns 0 and *out, or -errno (then *out is NULL).
 */
int tpool_start(tpool **out, int nthreads);

/* Number of parts a step is split into (the nthreads given to tpool_start). */
int tpool_size(const tpool *p);

/*
 * Run fn(arg, t, n) for t = 0..n-1 (n = tpool_size) at once, part 0 on the
 * calling thread, and return when every part has returned. Not reentrant:
 * one step at a time per pool.
 */
void tpool_run(tpool *p, void (*fn)(void *arg, int t, int n), void *arg);

/*
 * memcpy(dst, src, bytes) on all of the pool's threads, in pieces (about 8 a
 * thread, multiples of 4 KiB, at least 256 KiB) that each takes as it finishes
 * one: one thread copies at about 10 GB/s, far below the memory's
 * bandwidth, and the device-resident path copies every byte it keeps or
 * merges.
 */
void tpool_memcpy(tpool *p, void *dst, const void *src, size_t bytes);

/* Stop and join the workers; p may be NULL. */
void tpool_stop(tpool *p);

#endif
