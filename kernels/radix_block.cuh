/*
 * radix_block.cuh - the radix sort's device primitives: digits of a word,
 * the warp match of equal digits, the block scan over the bins, and the
 * look-back status words of the chained scan (internal to
 * kernels/radix*.cu).
 */
#ifndef GPUSORT_RADIX_BLOCK_CUH
#define GPUSORT_RADIX_BLOCK_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "radix_tuning.cuh"
#include "sorter.cuh"

namespace gs_radix {

/*
 * Word traits. digit(k, b): byte b of the word as an unsigned number (byte
 * 0 the least significant; b uniform across the block, 0 <= b < width).
 * ones(): the largest word, the padding of a short tile (it sorts last in
 * every digit).
 */
template <class T> struct W;
template <> struct W<uint32_t> {
	static __device__ __forceinline__ uint32_t digit(uint32_t k, int b) { return (k >> (8 * b)) & 0xffu; }
	static __device__ __forceinline__ uint32_t ones() { return ~0u; }
};
template <> struct W<uint64_t> {
	static __device__ __forceinline__ uint32_t digit(uint64_t k, int b) { return (uint32_t)(k >> (8 * b)) & 0xffu; }
	static __device__ __forceinline__ uint64_t ones() { return ~0ull; }
};
template <> struct W<gs_u128> {
	static __device__ __forceinline__ uint32_t digit(const gs_u128 &k, int b)
	{
		return b >= 8 ? (uint32_t)(k.hi >> (8 * (b - 8))) & 0xffu : (uint32_t)(k.lo >> (8 * b)) & 0xffu;
	}
	static __device__ __forceinline__ gs_u128 ones() { return gs_u128{~0ull, ~0ull}; }
};

__device__ __forceinline__ uint32_t lanemask_lt(void)
{
	uint32_t m;
	asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
	return m;
}

/*
 * The lanes of the warp whose v equals this lane's (all 32 lanes take
 * part; v < BINS): DIGIT_BITS ballots, one per bit, each keeping the lanes
 * that agree on it (CUB's MatchAny), or __match_any_sync (RANK_BALLOT).
 * Per bit one predicate feeds both the ballot and the choice of the ballot
 * or its complement (PTX below): written in C the compiler tested the bit
 * twice and chose through a select, 7 instructions a bit against 4-5, and
 * the ranks are most of a digit pass's instructions (ncu, H100: 256
 * million instructions a pass of 2^26 u32 words against CUB's 177;
 * bench/results/h100-radix-match-2026-11-27.md).
 */
__device__ __forceinline__ uint32_t match_digit(uint32_t v)
{
	if (!RANK_BALLOT)
		return __match_any_sync(~0u, v);
	uint32_t m = ~0u;
#pragma unroll
	for (int b = 0; b < DIGIT_BITS; ++b) {
		uint32_t x;
		asm("{\n\t"
		    ".reg .pred p;\n\t"
		    "and.b32 %0, %1, %2;\n\t"
		    "setp.ne.u32 p, %0, 0;\n\t"
		    "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
		    "@!p not.b32 %0, %0;\n\t"
		    "}"
		    : "=r"(x)
		    : "r"(v), "r"(1u << b));
		m &= x;
	}
	return m;
}

/*
 * Exclusive prefix sum of x over threads 0..BINS-1 of the block (thread t
 * holds bin t's count; threads from BINS on pass anything and get junk).
 * Every thread of the block must call it (it synchronizes the block);
 * s_w: BINS / 32 words of shared memory, not read again by the caller
 * before a later __syncthreads.
 */
template <class V>
__device__ __forceinline__ V bins_exclusive_scan(V x, V *s_w)
{
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	V inc = x;
#pragma unroll
	for (int o = 1; o < 32; o <<= 1) {
		const V y = __shfl_up_sync(~0u, inc, o);
		if (lane >= o)
			inc += y;
	}
	if (warp < BINS / 32 && lane == 31)
		s_w[warp] = inc;
	__syncthreads();
	V pre = 0;
	if (warp < BINS / 32)
		for (int w = 0; w < warp; ++w)
			pre += s_w[w];
	return pre + inc - x;
}

/*
 * The look-back status word of one (tile, bin) of a digit pass (Merrill &
 * Garland's decoupled look-back, applied per digit as in Onesweep, Adinets
 * & Merrill 2022; GRS section VI's phase 2, the prefix sums of the tiles'
 * histograms, done inside the pass): the flag in bits 63-62 (0: nothing
 * yet, 1: the tile's own count, 2: the inclusive prefix of all tiles up to
 * and with this one), the pass's tag in bits 61-56 (pass + 1, so that one
 * buffer, zeroed once per sort, serves every pass: a word of an earlier
 * pass reads as "nothing yet"), the count in bits 55-0 (n <= 2^36). One
 * 64-bit store publishes flag and count together, so no fence is needed.
 */
enum : uint64_t { ST_AGG = 1ull << 62, ST_INC = 2ull << 62, ST_VAL = (1ull << 56) - 1 };

__device__ __forceinline__ uint64_t st_tag(int pass)
{
	return (uint64_t)(pass + 1) << 56;
}

__device__ __forceinline__ uint64_t ld_status(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ void st_status(uint64_t *p, uint64_t v)
{
	asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/*
 * Decoupled look-back for one bin: the sum of that bin's counts over tiles
 * 0..tile-1 of this pass (tag), walking back from tile - 1 and stopping at
 * the first inclusive prefix. A tile publishes its count before it looks
 * back and tile ids are handed out in launch order of the blocks (an
 * atomic counter), so every tile waited on runs or has run: the spin ends.
 * The words of LB_BATCH tiles are read at once (their loads overlap; a walk
 * of several tiles costs about one round trip per batch); the walk goes on
 * from the first one not yet published. lb: the pass's status words, BINS
 * per tile, for bin `bin`.
 */
__device__ __forceinline__ uint64_t look_back(const uint64_t *lb, uint32_t tile, int bin, uint64_t tag)
{
	uint64_t excl = 0;
	int64_t t = (int64_t)tile - 1;
	while (t >= 0) {
		uint64_t s[LB_BATCH];
#pragma unroll
		for (int j = 0; j < LB_BATCH; ++j)
			s[j] = t - j >= 0 ? ld_status(lb + (uint64_t)(t - j) * BINS + bin) : (ST_INC | tag);
#pragma unroll
		for (int j = 0; j < LB_BATCH; ++j) {
			const uint64_t f = s[j] & ~ST_VAL;
			if (f != (ST_AGG | tag) && f != (ST_INC | tag))
				break; /* tile t not yet published: read again from it */
			excl += s[j] & ST_VAL;
			if (f == (ST_INC | tag))
				return excl;
			--t;
		}
	}
	return excl;
}

} // namespace gs_radix

#endif
