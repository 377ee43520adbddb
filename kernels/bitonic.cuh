/*
 * bitonic.cuh - in-place K-model bitonic sort of fixed-width words on the
 * device (internal to kernels/; src/ sees only gpusort_kernels.h). The
 * sorter registry reaches it as gs_sorter_bitonic (bitonic.cu).
 *
 * Element types: uint32_t, uint64_t and gs_u128 (sorter.cuh: two 64-bit
 * words compared as one unsigned 128-bit number, hi first). Ascending. The
 * all-ones value is the padding sentinel (+infinity); it may also occur as
 * a real value.
 *
 * Files: bitonic_plan.h (the pass planner, host only), bitonic_tuning.cuh
 * (configurations), bitonic_block.cuh (a block's register groups and
 * shared-memory exchanges), bitonic_kernels.cuh (the tile sort and the
 * passes), bitonic.cu (launches, this header's functions).
 */
#ifndef GPUSORT_BITONIC_CUH
#define GPUSORT_BITONIC_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "sorter.cuh"

/* The two configurations (bitonic_tuning.cuh): Def, measured fastest on
 * Hopper, and Lean, half its tile, for GPUs with less shared memory a SM. */
enum { BITONIC_DEF = 0, BITONIC_LEAN = 1 };

/*
 * The configuration bitonic_sort<T> takes on the current device (its
 * shared memory per SM, read once per device): BITONIC_DEF when the SM
 * holds Def's blocks at the occupancy it was tuned for, else
 * BITONIC_LEAN. BITONIC_DEF when the device cannot be asked.
 */
template <class T>
int bitonic_variant(void);

/*
 * Sort d[0..n) ascending in place on `stream` (asynchronous; no host sync,
 * no allocation). *passes (may be NULL) is increased by the number of kernel
 * passes over device memory that were launched. Returns cudaSuccess,
 * cudaErrorInvalidValue when a pass would need 2^31 blocks or more (n over
 * 2^(30 + tile bits)), or the first launch error. wide_index: run the kernels
 * with 64-bit element indices even below 2^31 elements, where 32-bit ones
 * are used otherwise (tests, to exercise them on small inputs). variant:
 * BITONIC_DEF or BITONIC_LEAN, or -1 for bitonic_variant<T>()'s choice
 * (tests and benchmarks force one).
 */
template <class T>
cudaError_t bitonic_sort(T *d, size_t n, cudaStream_t stream, uint64_t *passes, bool wide_index = false,
			 int variant = -1);

/* Passes bitonic_sort<T> makes for n elements with variant (plan only). */
template <class T>
uint64_t bitonic_pass_count(size_t n, int variant = -1);

/* log2 of the shared-memory tile (elements) bitonic_sort<T> uses with
 * variant: the paper's k (K-model: k elements per processor/block) is
 * 2^this. */
template <class T>
int bitonic_tile_bits(int variant = -1);

#endif
