/*
 * merge_path.cuh - stable pairwise merge of sorted segments on the device
 * (merge path; internal to kernels/, src/ sees only gpusort_kernels.h).
 *
 * Element types as the sorters' (sorter.cuh): uint32_t, uint64_t and
 * gs_u128, ordered as unsigned numbers (gs_u128: hi, then lo), exactly as
 * every sorter orders them. Ties keep the earlier segment's
 * element first (stable).
 */
#ifndef GPUSORT_MERGE_PATH_CUH
#define GPUSORT_MERGE_PATH_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "sorter.cuh"

/* Pairs of segments one launch takes (a kernel-parameter table); more
 * pairs in a round are done by several launches. */
#define GS_MERGE_MAXP 64

/* Elements one thread block merges (the output tile) for element type T. */
template <class T>
int merge_tile(void);

/* uint64_t entries of scratch merge_path_rounds needs for n elements in
 * total with tile `tile` (one merge-path split per block of a launch). */
inline size_t merge_scratch_entries(size_t n, int tile)
{
	return n / (size_t)tile + GS_MERGE_MAXP + 1;
}

/*
 * Merge the m >= 1 sorted segments [seg[i], seg[i+1]) (i < m; seg[0] == 0,
 * seg[m] == n, every segment non-empty) of d into one sorted sequence:
 * ceil(log2 m) rounds, each merging segments 2i and 2i+1 into the other
 * buffer (a segment without a partner is copied), ping-ponging between d
 * and alt (n elements each, distinct). seg is overwritten (the host-side
 * plan). scratch: merge_scratch_entries(n, merge_tile<T>()) entries of
 * device memory. *result is d or alt, whichever holds the sorted sequence
 * (d when m == 1). Asynchronous on `stream` (no host sync, no allocation);
 * *passes (may be NULL) is increased by one per round. Returns cudaSuccess
 * or the first launch error.
 */
template <class T>
cudaError_t merge_path_rounds(T *d, T *alt, size_t *seg, int m, uint64_t *scratch, cudaStream_t stream,
			      T **result, uint64_t *passes);

#endif
