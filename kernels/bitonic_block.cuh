/*
 * bitonic_block.cuh - what a block of the bitonic kernels does with its
 * tile: compare-exchange of words, the steps of one register group, and
 * the moves of a register group between registers, the shared-memory tile
 * and device memory (included by bitonic_kernels.cuh only).
 *
 * Source: Capannini, Silvestri, Baraglia, "Sorting on GPUs for large scale
 * datasets: a thorough comparison", section 6, Algorithm 3: a block runs
 * the steps of its Γ-partition in shared memory. Here each thread holds
 * R = 2^RB elements of the tile in registers and performs RB consecutive
 * steps there (a register group); the tile is re-partitioned among the
 * threads through shared memory between groups, so shared-memory traffic
 * is 1/RB of one access per step.
 */
#ifndef GPUSORT_BITONIC_BLOCK_CUH
#define GPUSORT_BITONIC_BLOCK_CUH

#include <stdint.h>

#include "bitonic.cuh"
#include "bitonic_tuning.cuh"

namespace gs_bitonic {

/* inf: the padding sentinel; cx: compare-exchange, the minimum to a;
 * flip: complement (a descending comparator is an ascending one on
 * complemented values). */
template <class T> struct Word;
template <> struct Word<uint32_t> {
	static __device__ __forceinline__ uint32_t inf() { return 0xffffffffu; }
	static __device__ __forceinline__ void cx(uint32_t &a, uint32_t &b)
	{
		uint32_t l = min(a, b), h = max(a, b);
		a = l;
		b = h;
	}
	static __device__ __forceinline__ void flip(uint32_t &a) { a = ~a; }
};
template <> struct Word<uint64_t> {
	static __device__ __forceinline__ uint64_t inf() { return ~0ull; }
	static __device__ __forceinline__ void cx(uint64_t &a, uint64_t &b)
	{
		unsigned long long l = min((unsigned long long)a, (unsigned long long)b);
		unsigned long long h = max((unsigned long long)a, (unsigned long long)b);
		a = l;
		b = h;
	}
	static __device__ __forceinline__ void flip(uint64_t &a) { a = ~a; }
};
template <> struct Word<gs_u128> {
	static __device__ __forceinline__ gs_u128 inf()
	{
		gs_u128 v;
		v.lo = ~0ull;
		v.hi = ~0ull;
		return v;
	}
	static __device__ __forceinline__ void cx(gs_u128 &a, gs_u128 &b)
	{
		bool gt = (a.hi > b.hi) | ((a.hi == b.hi) & (a.lo > b.lo));
		gs_u128 l = gt ? b : a, h = gt ? a : b;
		a = l;
		b = h;
	}
	static __device__ __forceinline__ void flip(gs_u128 &a)
	{
		a.lo = ~a.lo;
		a.hi = ~a.hi;
	}
};

/* Shared-memory slot of tile element e: XOR swizzle of the low WB bits with
 * bits RB..RB+WB-1, so that every access pattern used below (a warp's lanes
 * on bits {0..g-1} ∪ {g+RB..}) touches distinct banks. */
template <int RB, int WB>
__device__ __forceinline__ uint32_t swz(uint32_t e)
{
	return e ^ ((e >> RB) & ((1u << WB) - 1));
}

/*
 * swz(eb | mv) for eb, mv with no bit in common, eb within the bits ebits:
 * swz is linear over xor, so it is swz(eb) ^ swz(mv), and the bits of
 * swz(mv) that swz(eb) cannot have are added instead of xor-ed. With mv
 * and ebits constants (a register slot of an unrolled group), that is a
 * per-thread base, one xor per distinct low part and a constant offset
 * that folds into the shared-memory instruction: the passes are bound by
 * the integer ALU pipe, and this index arithmetic is a large part of it.
 */
template <int RB, int WB>
__device__ __forceinline__ uint32_t swz2(uint32_t eb, uint32_t mv, uint32_t ebits)
{
	const uint32_t z = ebits | ((1u << WB) - 1), sm = swz<RB, WB>(mv);
	return (swz<RB, WB>(eb) ^ (sm & z)) + (sm & ~z);
}

/*
 * The steps of one register group, fixed at compile time: local bits KHI
 * down to KLO of v (v[m] and v[m | 2^k] are a comparator's two ends).
 * DIR 0: every comparator ascending; 1: descending; 2: the group of the
 * first pass of a merge stage, whose top local bit RB - 1 is the stage's
 * bit s - 1: the step on it is the ascending first step of the merge (in
 * mirrored coordinates), the later ones descend where that bit is set,
 * which is a property of the register slot m, known at compile time.
 */
template <class T, int RB, int KHI, int KLO, int DIR>
__device__ __forceinline__ void group_steps(T (&v)[1 << RB])
{
#pragma unroll
	for (int k = RB - 1; k >= 0; --k)
		if (k <= KHI && k >= KLO) {
#pragma unroll
			for (int m = 0; m < (1 << RB); ++m)
				if (!(m & (1 << k))) {
					const bool desc = DIR == 1 || (DIR == 2 && k < RB - 1 && ((m >> (RB - 1)) & 1));
					if (desc)
						Word<T>::cx(v[m | (1 << k)], v[m]);
					else
						Word<T>::cx(v[m], v[m | (1 << k)]);
				}
		}
}

/*
 * The register-group moves of the passes, which differ only in where tile
 * element e lives in device memory: addr(eb, mv) for e = eb | mv (the two
 * with no bit in common: a thread's part and a register slot's, which is
 * a constant once the loops are unrolled), an index that is n or more for
 * a virtual element (the padding to a power of two, never stored). FULL:
 * the caller has checked that no element of the partition is virtual, so
 * there is no per-element check. Group gi's R = 2^RB elements of this
 * thread are the tile elements eb | m << g (m < R). group_load: the first
 * group straight from device memory (virtual ones as +inf), the others
 * from the tile, after a barrier. group_store: the last group straight to
 * device memory when its lanes are consecutive (g >= WB: coalesced), else
 * into the tile; returns whether it went to the tile, which tile_store
 * then writes back.
 */
template <class T, int RB, int WB, bool FULL, class IX, class A>
__device__ __forceinline__ void group_load(T (&v)[1 << RB], bool first, uint32_t eb, int g, const T *__restrict__ d,
					   IX n, const T *tile, A addr)
{
	if (first) {
#pragma unroll
		for (int m = 0; m < (1 << RB); ++m) {
			const IX a = addr(eb, (uint32_t)m << g);
			v[m] = FULL || a < n ? d[a] : Word<T>::inf();
		}
	} else {
		__syncthreads();
#pragma unroll
		for (int m = 0; m < (1 << RB); ++m)
			v[m] = tile[swz2<RB, WB>(eb, (uint32_t)m << g, ~(((1u << RB) - 1) << g))];
	}
}

template <class T, int RB, int WB, bool FULL, class IX, class A>
__device__ __forceinline__ bool group_store(const T (&v)[1 << RB], bool last, uint32_t eb, int g, T *__restrict__ d,
					    IX n, T *tile, A addr)
{
	if (last && g >= WB) {
		/* opaque to the compiler: in a one-group pass the store's
		 * addresses are the load's, and ptxas kept all 2^RB of them live
		 * across the steps (spilling); recomputed they cost an IMAD each
		 * on the FMA pipe */
		asm volatile("" : "+r"(eb));
#pragma unroll
		for (int m = 0; m < (1 << RB); ++m) {
			const IX a = addr(eb, (uint32_t)m << g);
			if (FULL || a < n)
				d[a] = v[m];
		}
		return false;
	}
#pragma unroll
	for (int m = 0; m < (1 << RB); ++m)
		tile[swz2<RB, WB>(eb, (uint32_t)m << g, ~(((1u << RB) - 1) << g))] = v[m];
	return true;
}

/* The whole tile (R x NT elements) back to device memory, coalesced: thread
 * tid writes elements tid + q NT. */
template <class T, int RB, int WB, uint32_t NT, bool FULL, class IX, class A>
__device__ __forceinline__ void tile_store(T *__restrict__ d, IX n, const T *tile, A addr)
{
	__syncthreads();
#pragma unroll 8
	for (int q = 0; q < (1 << RB); ++q) {
		const IX a = addr(threadIdx.x, q * NT);
		if (FULL || a < n)
			d[a] = tile[swz2<RB, WB>(threadIdx.x, q * NT, NT - 1)];
	}
}

/* The whole tile from device memory into shared memory, coalesced (virtual
 * elements as +inf): for a first register group whose lanes are not
 * consecutive elements. */
template <class T, int RB, int WB, uint32_t NT, bool FULL, class IX, class A>
__device__ __forceinline__ void tile_load(const T *__restrict__ d, IX n, T *tile, A addr)
{
	/* fully unrolled: all 2^RB loads of a thread in flight at once */
#pragma unroll
	for (int q = 0; q < (1 << RB); ++q) {
		const IX a = addr(threadIdx.x, q * NT);
		tile[swz2<RB, WB>(threadIdx.x, q * NT, NT - 1)] = FULL || a < n ? d[a] : Word<T>::inf();
	}
}

} // namespace gs_bitonic

#endif
