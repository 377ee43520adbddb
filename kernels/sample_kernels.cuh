/*
 * sample_kernels.cuh - the sample sorter's kernels for steps 3-8 of
 * Algorithm 1 (the local sort of step 2 is bitonic_kernels.cuh's tile
 * sort; step 9 is sample_merge.cuh). Included by sample.cu only.
 *
 * Source: Dehne & Zaboli, "Parallel Sorting for GPUs", section 4,
 * Algorithm 1 (GPU BUCKET SORT, deterministic sample sort).
 *
 * Tables: row i (tile i) of K uint32_t, column q (splitter q, or bucket q);
 * column K - 1 is the virtual splitter +infinity (its cut is the tile's
 * length). Ties: words are ordered by (value, tile, position), a strict
 * order, so that equal values are split between buckets by position and
 * the bucket bound (sample_plan.h) holds for any input. Samples are sorted
 * by value only; a splitter remembers its rank rho among the samples of
 * its value, which names the sample (in (tile, position) order) it is.
 */
#ifndef GPUSORT_SAMPLE_KERNELS_CUH
#define GPUSORT_SAMPLE_KERNELS_CUH

#include "bitonic_kernels.cuh"
#include "merge_block.cuh"
#include "sample_plan.h"

namespace gs_sample {

/* First index in [lo, hi) of sorted a whose word is not below v (hi if none). */
template <class T, class I>
__device__ __forceinline__ I lower_idx(const T *a, I lo, I hi, const T &v)
{
	while (lo < hi) {
		const I mid = lo + ((hi - lo) >> 1);
		if (word_lt(a[mid], v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First index in [lo, hi) of sorted a whose word is above v (hi if none). */
template <class T, class I>
__device__ __forceinline__ I upper_idx(const T *a, I lo, I hi, const T &v)
{
	while (lo < hi) {
		const I mid = lo + ((hi - lo) >> 1);
		if (word_lt(v, a[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Step 3 (Local Sampling): the equidistant samples of every sorted tile,
 * tile position (r + 1) 2^SB - 1 for sample r, into samp[0..S): tile i's
 * at i 2^(TB - SB) + r, so the samples that exist (positions below the
 * tile's length) are exactly the first S. The paper folds this into step
 * 2's write-back; here it reads S words more (1/2^SB of the data) so
 * that step 2 stays the bitonic engine's tile sort.
 */
template <class T, int TB>
__global__ void k_samples(const T *__restrict__ d, T *__restrict__ samp, uint64_t S)
{
	constexpr int PB = TB - SB;
	for (uint64_t x = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; x < S;
	     x += (uint64_t)gridDim.x * blockDim.x) {
		const uint64_t i = x >> PB, r = x & ((1u << PB) - 1);
		samp[x] = d[(i << TB) + ((r + 1) << SB) - 1];
	}
}

/*
 * Step 5 (Global Sampling), one block of K threads: splitter q < K - 1 is
 * the sample of rank g = floor((q + 1) S / K) in samp (sorted by value),
 * spl[q] its value and rho[q] = g - (first rank of that value): it is the
 * rho[q]-th sample of its value in (tile, position) order. rho[K - 1] = 0
 * (the virtual +infinity).
 */
template <class T>
__global__ void __launch_bounds__(K) k_splitters(const T *__restrict__ samp, uint64_t S, T *__restrict__ spl,
						 uint64_t *__restrict__ rho)
{
	const uint32_t q = threadIdx.x;
	if (q >= K - 1) {
		rho[q] = 0;
		return;
	}
	const uint64_t g = (q + 1) * S / K;
	const T v = samp[g];
	spl[q] = v;
	rho[q] = g - lower_idx<T, uint64_t>(samp, 0, g, v);
}

/*
 * Step 6 (Sample Indexing), one block per tile: the tile in shared memory
 * (dynamic, 2^TB words), and for each splitter q the tile's lower and
 * upper bound of its value, lb[i][q] and ub[i][q] (column K - 1: the
 * tile's length). The searches are staged as in the paper (section 4,
 * Step 6): the middle splitter first by one thread, then the quarters by
 * two threads, each within the range its neighbours found, log2 K levels,
 * rather than K independent searches over the whole tile.
 */
template <class T, int TB>
__global__ void __launch_bounds__(NTL) k_locate(const T *__restrict__ d, uint64_t n, const T *__restrict__ spl,
						  uint32_t *__restrict__ lb, uint32_t *__restrict__ ub)
{
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	__shared__ T sp[K];
	__shared__ uint32_t sl[K], su[K];
	const uint64_t base = (uint64_t)blockIdx.x << TB;
	const uint32_t len = (uint32_t)(n - base < ((uint64_t)1 << TB) ? n - base : (uint64_t)1 << TB);
	for (uint32_t e = threadIdx.x; e < len; e += NTL)
		tile[e] = d[base + e];
	for (uint32_t q = threadIdx.x; q < K - 1; q += NTL)
		sp[q] = spl[q];
	if (threadIdx.x == 0)
		sl[K - 1] = su[K - 1] = len;
	for (int l = 0; l < KB; ++l) {
		__syncthreads();
		const uint32_t j = threadIdx.x, half = (uint32_t)K >> (l + 1);
		if (j < (1u << l)) {
			/* splitter q between the located 2j half - 1 and (2j + 2) half - 1 */
			const uint32_t q = (2 * j + 1) * half - 1, qr = (2 * j + 2) * half - 1;
			const uint32_t lol = j ? sl[2 * j * half - 1] : 0, lou = j ? su[2 * j * half - 1] : 0;
			sl[q] = lower_idx<T, uint32_t>(tile, lol, sl[qr], sp[q]);
			su[q] = upper_idx<T, uint32_t>(tile, lou, su[qr], sp[q]);
		}
	}
	__syncthreads();
	const uint64_t row = (uint64_t)blockIdx.x * K;
	for (uint32_t q = threadIdx.x; q < K; q += NTL) {
		lb[row + q] = sl[q];
		ub[row + q] = su[q];
	}
}

/* Step 7's column values: the samples of tile i equal to splitter q (the
 * sample positions r 2^SB - 1 in [lb, ub)) ... */
struct EqualSamples {
	const uint32_t *lb, *ub;
	__device__ __forceinline__ uint32_t operator()(uint64_t x, uint32_t) const
	{
		return (ub[x] >> SB) - (lb[x] >> SB);
	}
};

/* ... and the words of tile i in bucket q (between cuts q - 1 and q). */
struct BucketWords {
	const uint32_t *cut;
	__device__ __forceinline__ uint32_t operator()(uint64_t x, uint32_t q) const
	{
		return cut[x] - (q ? cut[x - 1] : 0);
	}
};

/*
 * Step 7 (Prefix Sum), as the paper's Fig. 1: a column-wise exclusive
 * prefix sum over the m rows of a table whose entries are f(x, q)
 * (x = i K + q), in three launches: k_colsum, block b (K threads, thread
 * q a column) sums rows [b rs, (b + 1) rs) into slab[b][q]; k_slabscan
 * (one block) turns the slab sums into exclusive prefixes down each
 * column and, with bst, the column totals into bucket starts; k_colapply
 * writes out[i][q] = the sum of f over rows < i of column q. Every access
 * is a row of K consecutive entries: coalesced.
 */
template <class F>
__global__ void __launch_bounds__(K) k_colsum(F f, uint64_t m, uint64_t rs, uint32_t *__restrict__ slab)
{
	const uint32_t q = threadIdx.x;
	const uint64_t i0 = blockIdx.x * rs, i1 = i0 + rs < m ? i0 + rs : m;
	uint32_t s = 0;
	for (uint64_t i = i0; i < i1; ++i)
		s += f(i * K + q, q);
	slab[(uint64_t)blockIdx.x * K + q] = s;
}

/* bst (may be NULL): bst[q] = the sum of the column totals before q,
 * bst[K] = their sum (n for the bucket sizes). */
__global__ void __launch_bounds__(K) k_slabscan(uint32_t *__restrict__ slab, uint64_t nslab, uint64_t *__restrict__ bst)
{
	__shared__ uint64_t tot[K];
	const uint32_t q = threadIdx.x;
	uint32_t acc = 0;
	for (uint64_t j = 0; j < nslab; ++j) {
		const uint64_t x = j * K + q;
		const uint32_t v = slab[x];
		slab[x] = acc;
		acc += v;
	}
	if (!bst)
		return;
	tot[q] = acc;
	__syncthreads();
	if (q == 0) {
		uint64_t s = 0;
		for (int b = 0; b < K; ++b) {
			bst[b] = s;
			s += tot[b];
		}
		bst[K] = s;
	}
}

/* out must not be a table f reads. */
template <class F>
__global__ void __launch_bounds__(K) k_colapply(F f, uint64_t m, uint64_t rs, const uint32_t *__restrict__ slab,
						  uint32_t *__restrict__ out)
{
	const uint32_t q = threadIdx.x;
	const uint64_t i0 = blockIdx.x * rs, i1 = i0 + rs < m ? i0 + rs : m;
	uint32_t acc = slab[(uint64_t)blockIdx.x * K + q];
	for (uint64_t i = i0; i < i1; ++i) {
		const uint64_t x = i * K + q;
		const uint32_t v = f(x, q);
		out[x] = acc;
		acc += v;
	}
}

/*
 * Step 6, finished: the cut of splitter q in tile i, the number of the
 * tile's words below it in (value, tile, position) order, over lb[x] in
 * place (x = i K + q < cnt). Splitter q is the rho-th sample of its value
 * in (tile, position) order; eoff[x] counts the samples of that value in
 * tiles before i, e those in tile i. Tiles before the splitter's: all
 * their equal words are below it (ub); tiles after: none (lb); its own
 * tile: the words before the sample, whose position is that of the
 * tile's first equal sample, floor(lb / 2^SB), plus rho - eoff steps.
 */
__global__ void k_cuts(uint32_t *__restrict__ lb, const uint32_t *__restrict__ ub, const uint32_t *__restrict__ eoff,
		       const uint64_t *__restrict__ rho, uint64_t cnt)
{
	for (uint64_t x = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; x < cnt;
	     x += (uint64_t)gridDim.x * blockDim.x) {
		const uint32_t l = lb[x], u = ub[x], e = (u >> SB) - (l >> SB), e0 = eoff[x];
		const uint64_t r = rho[x & (K - 1)];
		uint32_t c;
		if ((uint64_t)e0 + e <= r)
			c = u;
		else if (e0 > r)
			c = l;
		else
			c = (uint32_t)((((l >> SB) + (r - e0) + 1) << SB) - 1);
		lb[x] = c;
	}
}

/*
 * Step 8 (Data Relocation), one block per tile: word p of sorted tile i
 * lies in bucket b = the number of cuts <= p, and goes to bst[b] (the
 * bucket's start) + coff[i][b] (the bucket's words of earlier tiles) +
 * p - cut[i][b - 1]. Reads coalesced; writes in runs, one per bucket.
 */
template <class T, int TB>
__global__ void __launch_bounds__(NTL) k_relocate(const T *__restrict__ d, uint64_t n, const uint32_t *__restrict__ cut,
						    const uint32_t *__restrict__ coff, const uint64_t *__restrict__ bst,
						    T *__restrict__ out)
{
	__shared__ uint32_t sc[K];
	__shared__ uint64_t sb[K];
	const uint64_t row = (uint64_t)blockIdx.x * K, base = (uint64_t)blockIdx.x << TB;
	const uint32_t len = (uint32_t)(n - base < ((uint64_t)1 << TB) ? n - base : (uint64_t)1 << TB);
	for (uint32_t q = threadIdx.x; q < K; q += NTL) {
		sc[q] = cut[row + q];
		/* modulo 2^64: the sum with p is the destination */
		sb[q] = bst[q] + coff[row + q] - (q ? cut[row + q - 1] : 0);
	}
	__syncthreads();
	for (uint32_t p = threadIdx.x; p < len; p += NTL) {
		/* cuts <= p among sc[0..K-1) (sc[K - 1] = len > p) */
		uint32_t b = 0;
#pragma unroll
		for (uint32_t s = K / 2; s; s >>= 1)
			if (sc[b + s - 1] <= p)
				b += s;
		out[sb[b] + p] = d[base + p];
	}
}

} // namespace gs_sample

#endif
