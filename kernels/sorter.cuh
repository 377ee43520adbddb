/*
 * sorter.cuh - the in-device sorter interface (internal to kernels/; src/
 * sees the registry through gpusort_kernels.h: gpu_sorter_*).
 *
 * A sorter is one GPU sorting engine. gpu_sort_chunk.cu hands it the words
 * of a chunk already in device memory: key-only records (normalized keys,
 * 4 or 8 bytes) or (normalized key, index) elements packed into 8 or 16
 * bytes (gpu_sort_chunk.cu says how). The elements are all distinct (the
 * index), so an unstable sort gives the stable order. A new engine is one
 * file that defines `extern const gs_sorter gs_sorter_NAME` and one line
 * in sorters.cu's list.
 */
#ifndef GPUSORT_SORTER_CUH
#define GPUSORT_SORTER_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* A 16-byte word: compared as one unsigned 128-bit number, hi first. */
struct __align__(16) gs_u128 {
	uint64_t lo, hi; /* value = hi * 2^64 + lo */
};

struct gs_sorter {
	const char *name;   /* what --algorithm calls it, e.g. "bitonic" */
	const char *source; /* the paper (and sections) it implements */
	/*
	 * Device bytes sort() needs besides the words themselves, for n words
	 * of `width` bytes (4, 8 or 16); 0 for an in-place sorter. Must not
	 * decrease as n grows: the ctx reserves it for the largest n it takes
	 * (gpu_chunk_capacity).
	 */
	size_t (*extra_bytes)(size_t n, int width);
	/*
	 * Sort d[0..n) ascending in place, as unsigned integers of `width`
	 * bytes (4: uint32_t, 8: uint64_t, 16: gs_u128), asynchronously on
	 * `stream`: no host synchronization and no allocation; the only other
	 * device memory it may touch is scratch[0..scratch_bytes), at least
	 * extra_bytes(n, width), 256-byte aligned. n: 0 to 2^36 (the chunk
	 * limit of gpu_sort_chunk.cu), so offsets are 64-bit. Key-only words
	 * may repeat; (key, index) words are distinct.
	 *
	 * key_bits (1 .. 8 * width): words equal in their top key_bits bits
	 * already stand in d in ascending order of their remaining bits, so a
	 * stable sort on the top key_bits bits alone gives the full order
	 * (what gpu_sort_chunk.cu's (key, index) elements promise: the index
	 * is the position, or ascending within a run of equal keys when ties
	 * are refined). 8 * width promises nothing. A sorter may use it (a
	 * stable LSD radix sort skips the low digits) or ignore it.
	 *
	 * *passes (may be NULL) is increased by the kernel passes over device
	 * memory it launched. Returns cudaSuccess, cudaErrorInvalidValue (a
	 * width or key_bits it does not take, too little scratch, n too
	 * large), or the first launch error.
	 */
	cudaError_t (*sort)(void *d, size_t n, int width, int key_bits, void *scratch, size_t scratch_bytes,
			    cudaStream_t stream, uint64_t *passes);
};

/* The registry (sorters.cu): sorter i of gpu_sorter_count(), the first
 * the default of a new ctx; NULL for an index out of range. */
const gs_sorter *gs_sorter_at(int i);

#endif
