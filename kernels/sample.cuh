/*
 * sample.cuh - deterministic sample sort of fixed-width words on the
 * device (internal to kernels/; the registry reaches it as
 * gs_sorter_sample, sample.cu).
 *
 * Source: Dehne & Zaboli, "Parallel Sorting for GPUs" (GPU BUCKET SORT),
 * section 4, Algorithm 1, steps 1-9.
 *
 * Files: sample_plan.h (constants, the plan and the bucket bound),
 * sample_kernels.cuh (steps 3-8), sample_merge.cuh (step 9), sample.cu
 * (launches; this header's functions).
 */
#ifndef GPUSORT_SAMPLE_CUH
#define GPUSORT_SAMPLE_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "sorter.cuh"

/*
 * Sort d[0..n) ascending (uint32_t, uint64_t or gs_u128 words) on
 * `stream`, asynchronously, with scratch[0..sample_extra_bytes<T>(n)).
 * *passes (may be NULL) grows by the kernel passes over the data. Returns
 * cudaSuccess, cudaErrorInvalidValue (too little scratch, n over 2^36) or
 * the first launch error.
 */
template <class T>
cudaError_t sample_sort(T *d, size_t n, void *scratch, size_t scratch_bytes, cudaStream_t stream, uint64_t *passes);

/* Scratch bytes sample_sort<T> needs for n words: about n sizeof(T) +
 * n sizeof(T) / 32 + 3 K n / 2^TB * 4 (sample_plan.h's layout). */
template <class T>
size_t sample_extra_bytes(size_t n);

/*
 * For benches: after sample_sort<T> of n words with this scratch has
 * finished (the caller synchronized), the largest bucket it made and the
 * plan's bound on it (both 0 when n fit one tile). Synchronous copy.
 */
template <class T>
cudaError_t sample_bucket_stats(const void *scratch, size_t n, uint64_t *largest, uint64_t *bound);

#endif
