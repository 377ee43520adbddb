/*
 * abisort_kernels.cuh - the kernels of the adaptive bitonic sort: a stage
 * of the merge in device memory (k_abi_split) and a leaf block's merge
 * (k_abi_leaf). Included by abisort.cu only, which launches them; the
 * work of one thread is in abisort_merge.cuh.
 *
 * Source: G. Zachmann, "Adaptive Bitonic Sorting" (Bilardi & Nicolau;
 * GPU-ABiSort), sections "A GPU Implementation", "Outline of the
 * Implementation", "Eliminating Random-Access Writes", "The Last Stage of
 * Each Merge".
 *
 * GS_ABISORT_COUNT (a measurement build only, bench/abisort_count.cu):
 * every kernel adds the comparisons it made to the device counter
 * g_abi_cmp, so that the paper's O(n log n) count can be checked.
 */
#ifndef GPUSORT_ABISORT_KERNELS_CUH
#define GPUSORT_ABISORT_KERNELS_CUH

#include "abisort_merge.cuh"

namespace gs_abisort {

#ifdef GS_ABISORT_COUNT
__device__ unsigned long long g_abi_cmp;
#define GS_ABI_COUNT(c)                                             \
	do {                                                        \
		if (c)                                              \
			atomicAdd(&g_abi_cmp, (unsigned long long)(c)); \
	} while (0)
#else
#define GS_ABI_COUNT(c) ((void)(c))
#endif

/*
 * Stage d of merge level j in device memory (abisort_merge.cuh,
 * split_node), count = pairs * 2^(d-1) instances. WIDE: a warp per
 * instance (split_wide: fewer dependent reads, for the stages with few
 * instances, whose latency is the cost); else a thread per instance
 * (split_search: a word read per probe, for the deep stages, whose
 * traffic is). The stream of the paper's node pointers is S; every
 * instance writes its own slot (no scatter, section "Eliminating
 * Random-Access Writes"). A stage reads only its parents' splits,
 * written by the launch before.
 */
template <class T, class C, bool WIDE>
__global__ void __launch_bounds__(256) k_abi_split(const T *__restrict__ src, uint64_t n, int j, int d,
						   uint64_t *__restrict__ S, uint64_t count)
{
	const uint64_t g = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, t = WIDE ? g >> 5 : g;
	if (t >= count)
		return; /* WIDE: the whole warp, instances are warp-uniform */
	const uint32_t c = split_node<T, C::TB, WIDE>(src, n, j, d, S, t, WIDE ? threadIdx.x & 31 : 0);
	GS_ABI_COUNT(c);
}

/*
 * A leaf block's load of its two pieces into the tile, coalesced: tile
 * word e is src[e + a0] below na, else src[e - na + b0] (b0 >= h >= na),
 * one 64-bit select and add a word. All 2^RB loads of a thread are in
 * flight before its first store to the tile. FULL: the leaf has all 2^TB
 * words (every leaf but a short last one), so no word is checked against
 * f.m: the pass is bound by its instructions (ncu: 0.78 issued a cycle).
 */
template <class T, class C, bool FULL>
__device__ __forceinline__ void leaf_load(const T *__restrict__ src, const Leaf &f, T *tile, uint32_t tid)
{
	const uint64_t oa = f.a0, ob = f.b0 - f.na;
	T w[C::R];
#pragma unroll
	for (int k = 0; k < C::R; ++k) {
		const uint32_t e = tid + k * C::NT;
		if (FULL || e < f.m)
			w[k] = src[(e < f.na ? oa : ob) + e];
	}
#pragma unroll
	for (int k = 0; k < C::R; ++k) {
		const uint32_t e = tid + k * C::NT;
		if (FULL || e < f.m)
			tile[slot<T, C::RB>(e)] = w[k];
	}
}

/* The block's store of the merged tile to out[0 .. f.m), coalesced; FULL
 * as for leaf_load. */
template <class T, class C, bool FULL>
__device__ __forceinline__ void leaf_store(const T *tile, T *__restrict__ out, const Leaf &f, uint32_t tid)
{
#pragma unroll
	for (int k = 0; k < C::R; ++k) {
		const uint32_t e = tid + k * C::NT;
		if (FULL || e < f.m)
			out[e] = tile[slot<T, C::RB>(e)];
	}
}

/*
 * Leaf g of merge level j (abisort_merge.cuh, Leaf): the block loads its
 * two pieces into the tile (coalesced), runs stages 1 .. TB - RB of the
 * adaptive merge on the tile (leaf_split, one barrier a stage; a warp an
 * instance while there are no more instances than warps, then a thread
 * an instance), each thread merges its 16 words with the bitonic merger
 * (leaf_gather), and the block writes the tile back in rank order to dst
 * (coalesced). src and dst are the two buffers of the ping-pong (section
 * "GPU-Specific Details"): a level reads one and writes the other.
 */
template <class T, class C>
__global__ void __launch_bounds__(C::NT, C::MINB) k_abi_leaf(const T *__restrict__ src, T *__restrict__ dst, uint64_t n,
						    int j, const uint64_t *__restrict__ S)
{
	__shared__ __align__(16) T tile[C::T];
	__shared__ uint32_t sx[C::NT + 1];
	const uint32_t tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
	const Leaf f = leaf_of<C::TB>(n, j, S, blockIdx.x);
	if (f.m == (uint32_t)C::T) /* every leaf but a short last one */
		leaf_load<T, C, true>(src, f, tile, tid);
	else
		leaf_load<T, C, false>(src, f, tile, tid);
	if (tid == 0) {
		sx[0] = 0;
		sx[C::NT] = f.na;
	}
	uint32_t cmp = 0;
	__syncthreads();
	for (int d = 1; d <= C::NTB; ++d) {
		const uint32_t inst = 1u << (d - 1);
		if (inst <= C::NT / 32) {
			if (warp < inst)
				cmp += leaf_split<T, C, true>(tile, sx, f, d, warp, lane);
		} else if (tid < inst) {
			cmp += leaf_split<T, C, false>(tile, sx, f, d, tid, 0);
		}
		__syncthreads();
	}
	T v[C::R];
	const uint32_t c = leaf_gather<T, C>(tile, sx, f, tid, v);
	if ((tid << C::RB) < f.m)
		cmp += c;
	__syncthreads();
#pragma unroll
	for (int k = 0; k < C::R; ++k)
		tile[slot<T, C::RB>((tid << C::RB) + k)] = v[k];
	__syncthreads();
	if (f.m == (uint32_t)C::T)
		leaf_store<T, C, true>(tile, dst + f.out, f, tid);
	else
		leaf_store<T, C, false>(tile, dst + f.out, f, tid);
	GS_ABI_COUNT(cmp);
}

} // namespace gs_abisort

#endif
