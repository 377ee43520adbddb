/*
 * merge_block.cuh - the device side of a merge-path merge, shared by the
 * engines that merge (merge_path.cu's rounds, sample_merge.cuh's step 9):
 * the sorters' word order, the path's split on a cross diagonal, and one
 * block's merge of its output tile through shared memory.
 *
 * Sources: Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel
 * Merging Made Simple", section II, and Green, McColl, Bader, "GPU Merge
 * Path", section 3 (merge_path.cu's file comment says how).
 */
#ifndef GPUSORT_MERGE_BLOCK_CUH
#define GPUSORT_MERGE_BLOCK_CUH

#include <stdint.h>

#include "sorter.cuh"

/* a < b in the sorters' order (sorter.cuh): unsigned; gs_u128 hi, then lo */
__device__ __forceinline__ bool word_lt(uint32_t a, uint32_t b)
{
	return a < b;
}
__device__ __forceinline__ bool word_lt(uint64_t a, uint64_t b)
{
	return a < b;
}
__device__ __forceinline__ bool word_lt(const gs_u128 &a, const gs_u128 &b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

/*
 * The merge path's point on cross diagonal `diag` (0 <= diag <= na + nb)
 * of sorted a and b: how many of the first diag outputs come from a (ties
 * take a first: stable when a precedes b). Every index read is in range:
 * mid in [lo, hi) with hi <= min(diag, na), and diag - 1 - mid in [0, nb)
 * because lo >= diag - nb.
 */
template <class T, class I>
__device__ __forceinline__ I path_split(const T *a, I na, const T *b, I nb, I diag)
{
	I lo = diag > nb ? diag - nb : 0;
	I hi = diag < na ? diag : na;
	while (lo < hi) {
		const I mid = lo + ((hi - lo) >> 1);
		if (!word_lt(b[diag - 1 - mid], a[mid])) /* a[mid] <= b[..]: a[mid] is among them */
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * One block of NT threads merges an output tile of cnt <= NT * VT words:
 * ga[0..na) and gb[0..cnt - na), both sorted, to go[0..cnt), stably. The
 * parts go to shared memory s (NT * VT words; read coalesced); thread t
 * finds its diagonal t * VT there by path_split and merges VT outputs
 * sequentially into registers; they go back through s and are written
 * coalesced. VT odd: a thread's strided writes to s hit distinct banks.
 * Every thread of the block calls it (barriers inside).
 */
template <class T, int NT, int VT>
__device__ __forceinline__ void merge_block_tile(T *s, const T *ga, const T *gb, int na, int cnt, T *go)
{
	const int nb = cnt - na;
#pragma unroll
	for (int j = 0; j < VT; ++j) {
		const int i = threadIdx.x + j * NT;
		if (i < cnt)
			s[i] = i < na ? ga[i] : gb[i - na];
	}
	__syncthreads();
	/* this thread's outputs: tile positions [diag, diag + my) */
	const int diag = threadIdx.x * VT;
	const int my = cnt - diag < VT ? (cnt - diag > 0 ? cnt - diag : 0) : VT;
	T r[VT];
	if (my > 0) {
		const T *sa = s, *sb = s + na;
		int ia = path_split<T, int>(sa, na, sb, nb, diag);
		int ib = diag - ia;
		T ka = ia < na ? sa[ia] : T(), kb = ib < nb ? sb[ib] : T();
#pragma unroll
		for (int i = 0; i < VT; ++i) {
			if (i < my) {
				/* ia + ib == diag + i < cnt: at least one side remains */
				const bool take_a = ib >= nb || (ia < na && !word_lt(kb, ka));
				r[i] = take_a ? ka : kb;
				if (take_a) {
					if (++ia < na)
						ka = sa[ia];
				} else {
					if (++ib < nb)
						kb = sb[ib];
				}
			}
		}
	}
	__syncthreads(); /* every thread is done reading the inputs in s */
#pragma unroll
	for (int i = 0; i < VT; ++i)
		if (i < my)
			s[diag + i] = r[i];
	__syncthreads();
#pragma unroll
	for (int j = 0; j < VT; ++j) {
		const int i = threadIdx.x + j * NT;
		if (i < cnt)
			go[i] = s[i];
	}
}

#endif
