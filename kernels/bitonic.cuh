/*
 * bitonic.cuh - in-place K-model bitonic sort of fixed-width words on the
 * device (internal to kernels/; src/ sees only gpusort_kernels.h).
 *
 * Element types: uint32_t, uint64_t and gs_u128 (two 64-bit words compared
 * as one unsigned 128-bit number, hi first). Ascending. The all-ones value
 * is the padding sentinel (+infinity); it may also occur as a real value.
 */
#ifndef GPUSORT_BITONIC_CUH
#define GPUSORT_BITONIC_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

struct __align__(16) gs_u128 {
	uint64_t lo, hi; /* value = hi * 2^64 + lo */
};

/*
 * Sort d[0..n) ascending in place on `stream` (asynchronous; no host sync,
 * no allocation). *passes (may be NULL) is increased by the number of kernel
 * passes over device memory that were launched. Returns cudaSuccess or the
 * first launch error.
 */
template <class T>
cudaError_t bitonic_sort(T *d, size_t n, cudaStream_t stream, uint64_t *passes);

/* Passes bitonic_sort<T> makes for n elements (plan only, no launch). */
template <class T>
uint64_t bitonic_pass_count(size_t n);

/* log2 of the shared-memory tile (elements) bitonic_sort<T> uses: the
 * paper's k (K-model: k elements per processor/block) is 2^this. */
template <class T>
int bitonic_tile_bits(void);

#endif
