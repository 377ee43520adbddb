/*
 * quick_block.cuh - what one block of GPU-Quicksort does (included by
 * quick_kernels.cuh only): word comparisons and pivots, the partition of
 * one tile about a pivot, the block's min/max reduction, the shared-memory
 * bitonic sort of a short sequence and the fill of a range with one value.
 *
 * Source: Cederman & Tsigas, "GPU-Quicksort: A Practical Quicksort
 * Algorithm for Graphics Processors", sections 3.1.1 and 3.2.
 */
#ifndef GPUSORT_QUICK_BLOCK_CUH
#define GPUSORT_QUICK_BLOCK_CUH

#include <stdint.h>

#include "bitonic_kernels.cuh" /* Word<T>, swz2, group_steps, local_group */
#include "quick_pivot.cuh"
#include "quick_tuning.cuh"

namespace gs_quick {

using gs_bitonic::Word;

/* lt: unsigned order; eq; zero: the smallest word; avg: floor((a + b) / 2)
 * without overflow; at(a, b, f): pivot_at (quick_pivot.cuh; u128: the
 * average); ATOM: whether amin and amax, atomic min and max of a word in
 * device memory, exist; shfl: __shfl_xor_sync of a whole word; ldcg: a
 * global load cached in L2 only; opaque: hide a value's origin from the
 * optimizer; st_ne(a, v, p): store v to global address a unless v equals
 * p, as one predicated store (no branch around it). */
template <class T> struct QW;
template <> struct QW<uint32_t> {
	static __device__ __forceinline__ bool lt(uint32_t a, uint32_t b) { return a < b; }
	static __device__ __forceinline__ bool eq(uint32_t a, uint32_t b) { return a == b; }
	static __device__ __forceinline__ uint32_t zero() { return 0; }
	static __device__ __forceinline__ uint32_t avg(uint32_t a, uint32_t b) { return (a >> 1) + (b >> 1) + (a & b & 1); }
	static __device__ __forceinline__ uint32_t at(uint32_t a, uint32_t b, double f) { return pivot_at(a, b, f); }
	static __device__ __forceinline__ uint32_t shfl(uint32_t v, int m) { return __shfl_xor_sync(~0u, v, m); }
	static __device__ __forceinline__ uint32_t ldcg(const uint32_t *p) { return __ldcg((const unsigned int *)p); }
	enum { ATOM = 1 };
	static __device__ __forceinline__ void amin(uint32_t *a, uint32_t v) { atomicMin((unsigned int *)a, v); }
	static __device__ __forceinline__ void amax(uint32_t *a, uint32_t v) { atomicMax((unsigned int *)a, v); }
	static __device__ __forceinline__ void opaque(uint32_t &v) { asm("" : "+r"(v)); }
	static __device__ __forceinline__ void st_ne(uint32_t *a, uint32_t v, uint32_t p)
	{
		asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, %2; @q st.global.cg.u32 [%0], %1; }" ::"l"(a), "r"(v),
			     "r"(p)
			     : "memory");
	}
};
template <> struct QW<uint64_t> {
	static __device__ __forceinline__ bool lt(uint64_t a, uint64_t b) { return a < b; }
	static __device__ __forceinline__ bool eq(uint64_t a, uint64_t b) { return a == b; }
	static __device__ __forceinline__ uint64_t zero() { return 0; }
	static __device__ __forceinline__ uint64_t avg(uint64_t a, uint64_t b) { return (a >> 1) + (b >> 1) + (a & b & 1); }
	static __device__ __forceinline__ uint64_t at(uint64_t a, uint64_t b, double f) { return pivot_at(a, b, f); }
	static __device__ __forceinline__ uint64_t shfl(uint64_t v, int m)
	{
		return __shfl_xor_sync(~0u, (unsigned long long)v, m);
	}
	static __device__ __forceinline__ uint64_t ldcg(const uint64_t *p)
	{
		return __ldcg((const unsigned long long *)p);
	}
	enum { ATOM = 1 };
	static __device__ __forceinline__ void amin(uint64_t *a, uint64_t v)
	{
		atomicMin((unsigned long long *)a, (unsigned long long)v);
	}
	static __device__ __forceinline__ void amax(uint64_t *a, uint64_t v)
	{
		atomicMax((unsigned long long *)a, (unsigned long long)v);
	}
	static __device__ __forceinline__ void opaque(uint64_t &v) { asm("" : "+l"(v)); }
	static __device__ __forceinline__ void st_ne(uint64_t *a, uint64_t v, uint64_t p)
	{
		asm volatile("{ .reg .pred q; setp.ne.u64 q, %1, %2; @q st.global.cg.u64 [%0], %1; }" ::"l"(a), "l"(v),
			     "l"(p)
			     : "memory");
	}
};
template <> struct QW<gs_u128> {
	static __device__ __forceinline__ bool lt(const gs_u128 &a, const gs_u128 &b)
	{
		return (a.hi < b.hi) | ((a.hi == b.hi) & (a.lo < b.lo));
	}
	static __device__ __forceinline__ bool eq(const gs_u128 &a, const gs_u128 &b)
	{
		return (a.hi == b.hi) & (a.lo == b.lo);
	}
	static __device__ __forceinline__ gs_u128 zero()
	{
		gs_u128 v;
		v.lo = 0;
		v.hi = 0;
		return v;
	}
	/* 128-bit words keep the average */
	static __device__ __forceinline__ gs_u128 at(const gs_u128 &a, const gs_u128 &b, double)
	{
		return avg(a, b);
	}
	static __device__ __forceinline__ gs_u128 avg(const gs_u128 &a, const gs_u128 &b)
	{
		const uint64_t lo = a.lo + b.lo, c = lo < a.lo;
		uint64_t hi = a.hi + b.hi, c2 = hi < a.hi;
		hi += c;
		c2 |= hi < c; /* at most one of the two carries happens */
		gs_u128 r;
		r.lo = (lo >> 1) | (hi << 63);
		r.hi = (hi >> 1) | (c2 << 63);
		return r;
	}
	static __device__ __forceinline__ gs_u128 shfl(const gs_u128 &v, int m)
	{
		gs_u128 r;
		r.lo = __shfl_xor_sync(~0u, (unsigned long long)v.lo, m);
		r.hi = __shfl_xor_sync(~0u, (unsigned long long)v.hi, m);
		return r;
	}
	enum { ATOM = 0 }; /* no atomic min/max of 128 bits */
	static __device__ __forceinline__ gs_u128 ldcg(const gs_u128 *p)
	{
		const unsigned long long *q = (const unsigned long long *)p;
		gs_u128 r;
		r.lo = __ldcg(q);
		r.hi = __ldcg(q + 1);
		return r;
	}
	static __device__ __forceinline__ void opaque(gs_u128 &v) { asm("" : "+l"(v.lo), "+l"(v.hi)); }
	static __device__ __forceinline__ void st_ne(gs_u128 *a, const gs_u128 &v, const gs_u128 &p)
	{
		asm volatile("{ .reg .pred q, r; setp.ne.u64 q, %1, %3; setp.ne.u64 r, %2, %4; or.pred q, q, r;"
			     " @q st.global.cg.v2.u64 [%0], {%1, %2}; }" ::"l"(a),
			     "l"(v.lo), "l"(v.hi), "l"(p.lo), "l"(p.hi)
			     : "memory");
	}
};

template <class T>
__device__ __forceinline__ T wmin(const T &a, const T &b)
{
	return QW<T>::lt(b, a) ? b : a;
}
template <class T>
__device__ __forceinline__ T wmax(const T &a, const T &b)
{
	return QW<T>::lt(a, b) ? b : a;
}

/* Median of three (section 5.2, phase two: Singleton's first, middle and
 * last element). */
template <class T>
__device__ __forceinline__ T median3(const T &a, const T &b, const T &c)
{
	return wmax(wmin(a, b), wmin(wmax(a, b), c));
}

/*
 * The min/max bookkeeping of a partition: mm[0], mm[1] the least and
 * greatest element below the pivot, mm[2], mm[3] above it (identities inf
 * and zero where there is none). Section 5.2's phase-one pivot for a
 * child is the average of its min and max, and a child whose min equals
 * its max is one value, done.
 */
template <class T>
__device__ __forceinline__ void mm_init(T (&mm)[4])
{
	mm[0] = Word<T>::inf();
	mm[1] = QW<T>::zero();
	mm[2] = Word<T>::inf();
	mm[3] = QW<T>::zero();
}
template <class T>
__device__ __forceinline__ void mm_merge(T (&mm)[4], const T (&o)[4])
{
	mm[0] = wmin(mm[0], o[0]);
	mm[1] = wmax(mm[1], o[1]);
	mm[2] = wmin(mm[2], o[2]);
	mm[3] = wmax(mm[3], o[3]);
}

/* Shared memory of the block-level steps: per warp counts and min/max,
 * the block's reserved output offsets. */
template <class T, class C>
struct QSmem {
	uint32_t wl[C::NW], wg[C::NW];
	T wmm[C::NW][4];
	uint64_t lbase, gbase;
};

/*
 * Reduce every thread's mm over the block; thread 0 gets the result in its
 * mm (the others' are left partial). Ends with the block synchronized.
 */
/* The first half of block_mm: mm reduced over the warp, its lane 0 writes
 * the warp's row of sm.wmm (the block not synchronized). */
template <class T, class C>
__device__ __forceinline__ void warp_mm(T (&mm)[4], QSmem<T, C> &sm)
{
#pragma unroll
	for (int m = 16; m; m >>= 1) {
		T o[4];
#pragma unroll
		for (int k = 0; k < 4; ++k)
			o[k] = QW<T>::shfl(mm[k], m);
		mm_merge(mm, o);
	}
	const uint32_t w = threadIdx.x >> 5;
	if ((threadIdx.x & 31) == 0)
#pragma unroll
		for (int k = 0; k < 4; ++k)
			sm.wmm[w][k] = mm[k];
}

template <class T, class C>
__device__ __forceinline__ void block_mm(T (&mm)[4], QSmem<T, C> &sm)
{
	warp_mm<T, C>(mm, sm);
	__syncthreads();
	if (threadIdx.x == 0)
		for (int u = 1; u < C::NW; ++u)
			mm_merge(mm, sm.wmm[u]);
	__syncthreads();
}

/* The sum of v over the warp (every lane gets it): one instruction from
 * sm_80 on, shuffles before. */
__device__ __forceinline__ uint32_t warp_sum(uint32_t v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	return __reduce_add_sync(~0u, v);
#else
#pragma unroll
	for (int m = 16; m; m >>= 1)
		v += __shfl_xor_sync(~0u, v, m);
	return v;
#endif
}

/*
 * A warp's slice of a tile into registers: v[j] = s[j * 32] (s: this
 * lane's first word, the warp's words read striped, so that every load is
 * 32 consecutive words). FULL: all C::ITEMS words exist; else word j
 * exists where j * 32 + lane0 < cnt (lane0: s's index in the tile) and the
 * others are the pivot p (never written: not below or above it). One
 * base address and constant offsets, no per-word index arithmetic.
 */
template <class T, class C, bool FULL>
__device__ __forceinline__ void tile_load(const T *__restrict__ s, uint32_t lane0, uint32_t cnt, const T &p,
					  T (&v)[C::ITEMS])
{
#pragma unroll
	for (int j = 0; j < C::ITEMS; ++j)
		v[j] = FULL || lane0 + j * 32 < cnt ? s[j * 32] : p;
}

/*
 * Partition one tile, src[s0 + o .. s0 + o + cnt) (cnt <= C::TILE), of the
 * sequence [s0, s0 + len) about pivot p into dst: elements below p to
 * dst[s0 + lb + rank], above p to dst[s0 + gb + rank], where rank counts
 * the tile's elements of that side before this one and (lb, gb) are what
 * reserve(tl, tg, lb, gb) (called by thread 0 alone, with the tile's two
 * totals) hands out. Elements equal to p are not written (section 3.1.1:
 * the gap between the sides is filled with the pivot afterwards; here
 * every element equal to it is in the gap, the three-way split that makes
 * equal keys cost O(n)).
 *
 * Cederman & Tsigas, section 3.1.1 and Algorithm 2: count the elements
 * below and above the pivot, a cumulative sum gives each thread where to
 * write, a second pass writes. Here the block's section is one tile held
 * in registers, so the second pass reads no device memory; the first
 * pass counts per thread (summed over the warp once), the cumulative sum
 * over the warps is thread 0's, and the second pass ranks each word
 * within its warp by ballots (each warp's 32 * ITEMS elements read
 * striped, so that both the loads and the stores of one side are runs of
 * consecutive addresses) and writes it with one store, to whichever side
 * it belongs. The round is bound by these per-word instructions, not by
 * memory, so each word costs two comparisons, two ballots, a rank and a
 * store, and no branch.
 *
 * ahead(): called by every thread once the tile's loads are issued and
 * before their words are used, for work whose latency those loads hide
 * (k_round: the next tile's sequence); it must not synchronize the block.
 * mm: thread 0 gets the tile's min/max bookkeeping (mm_init's layout), up
 * to what its use needs: mm[0] is the least word of the tile and mm[3]
 * the greatest, which are the least below and the greatest above the
 * pivot whenever that side has a word (and mm is read only for a side
 * with words: finish_seq, k_phase2). Two barriers (the counts, the
 * reserved offsets); END_SYNC: a third at the end, so that the caller may
 * reuse sm at once (k_round needs none: sm is written again only after
 * its next tile's first barrier, which every warp reaches after it has
 * read this tile's offsets).
 */
/* part_tile's default ahead(): nothing. */
struct QNoAhead {
	__device__ void operator()() const {}
};

template <class T, class C, bool END_SYNC = true, class R, class A = QNoAhead>
__device__ __forceinline__ void part_tile(const T *__restrict__ src, T *__restrict__ dst, uint64_t s0, uint64_t o,
					  uint32_t cnt, const T &p, QSmem<T, C> &sm, R reserve, T (&mm)[4], A ahead = A())
{
	const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5, lane0 = w * 32 * C::ITEMS + lane;
	const uint32_t below = (1u << lane) - 1;
	T v[C::ITEMS];
	const T *s = src + s0 + o + lane0;
	if (cnt == C::TILE)
		tile_load<T, C, true>(s, lane0, cnt, p, v);
	else
		tile_load<T, C, false>(s, lane0, cnt, p, v);
	ahead();
	uint32_t nl = 0, ng = 0;
	mm_init(mm);
#pragma unroll
	for (int j = 0; j < C::ITEMS; ++j) {
		const bool l = QW<T>::lt(v[j], p), g = QW<T>::lt(p, v[j]);
		nl += l;
		ng += g;
		mm[0] = wmin(mm[0], v[j]);
		mm[3] = wmax(mm[3], v[j]);
		if (l)
			mm[1] = wmax(mm[1], v[j]);
		if (g)
			mm[2] = wmin(mm[2], v[j]);
	}
	nl = warp_sum(nl);
	ng = warp_sum(ng);
	if (lane == 0) {
		sm.wl[w] = nl;
		sm.wg[w] = ng;
	}
	warp_mm<T, C>(mm, sm);
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int u = 1; u < C::NW; ++u)
			mm_merge(mm, sm.wmm[u]);
		uint32_t tl = 0, tg = 0;
		for (int u = 0; u < C::NW; ++u) {
			const uint32_t a = sm.wl[u], b = sm.wg[u];
			sm.wl[u] = tl;
			sm.wg[u] = tg;
			tl += a;
			tg += b;
		}
		uint64_t lb, gb;
		reserve(tl, tg, lb, gb);
		sm.lbase = lb;
		sm.gbase = gb;
	}
	__syncthreads();
	T *dl = dst + s0 + sm.lbase + sm.wl[w], *dg = dst + s0 + sm.gbase + sm.wg[w];
	/* opaque to the optimizer, so that a store's address stays a pointer
	 * select and one 32-bit index, not 64-bit index arithmetic */
	asm("" : "+l"(dl), "+l"(dg));
	/* the comparisons again, on a pivot the optimizer cannot tell from
	 * p: cheaper than pass one's results kept as bits of a register */
	T q = p;
	QW<T>::opaque(q);
	nl = ng = 0;
#pragma unroll
	for (int j = 0; j < C::ITEMS; ++j) {
		const bool l = QW<T>::lt(v[j], q), g = QW<T>::lt(q, v[j]);
		const uint32_t bl = __ballot_sync(~0u, l), bg = __ballot_sync(~0u, g);
		T *d = l ? dl : dg;
		const uint32_t r = (l ? nl : ng) + __popc((l ? bl : bg) & below);
		QW<T>::st_ne(d + r, v[j], q);
		nl += __popc(bl);
		ng += __popc(bg);
	}
	if (END_SYNC)
		__syncthreads();
}

/* d[0 .. len) = v by the whole block (a range whose words are all equal:
 * a pivot's gap, or a part whose min equals its max). */
template <class C, class T>
__device__ __forceinline__ void block_fill(T *d, uint64_t len, const T &v)
{
	for (uint64_t i = threadIdx.x; i < len; i += C::THREADS)
		d[i] = v;
}

/* One stage S of sorting v ascending in registers (Batcher's bitonic
 * network in the form whose comparators all put the minimum at the lower
 * index: the first step of stage S pairs m with m ^ (2^S - 1)), then the
 * stages above it. */
template <class T, int RB, int S>
__device__ __forceinline__ void reg_stage(T (&v)[1 << RB])
{
#pragma unroll
	for (int m = 0; m < (1 << RB); ++m)
		if (!(m & (1 << (S - 1))))
			Word<T>::cx(v[m], v[m ^ ((1 << S) - 1)]);
	gs_bitonic::group_steps<T, RB, S - 2, 0, 0>(v);
	if constexpr (S < RB)
		reg_stage<T, RB, S + 1>(v);
}

/* The bitonic tile configuration B with K fewer register bits: a tile of
 * 2^(TB - K) words on the same 2^NTB threads. */
template <class B, int K>
using TileLess = gs_bitonic::BCfg<B::TB - K, B::RB - K, B::MINB, B::STG, B::EQC>;

/*
 * Sort src[0 .. len) (1 <= len <= 2^B::TB) into dst[0 .. len) through the
 * shared-memory tile buf with the bitonic engine's tile sort of
 * configuration B (bitonic_kernels.cuh, k_bitonic_local: each thread
 * sorts 2^RB words in registers, then local_group's register groups merge
 * through the swizzled tile), padded with +inf. Ends with the block
 * synchronized.
 */
template <class T, class B>
__device__ __forceinline__ void tile_sort(const T *src, T *dst, uint32_t len, T *buf)
{
	constexpr int TB = B::TB, RB = B::RB, WB = gs_bitonic::Tr<T>::WB, R = 1 << RB;
	constexpr uint32_t NT = 1u << B::NTB;
	const uint32_t tid = threadIdx.x;
#pragma unroll 8
	for (int q = 0; q < R; ++q) {
		const uint32_t e = tid + q * NT;
		buf[gs_bitonic::swz2<RB, WB>(tid, q * NT, NT - 1)] = e < len ? src[e] : Word<T>::inf();
	}
	__syncthreads();
	const uint32_t eb = tid << RB, ebits = ((1u << TB) - 1) & ~(R - 1u);
	T v[R];
#pragma unroll
	for (int m = 0; m < R; ++m)
		v[m] = buf[gs_bitonic::swz2<RB, WB>(eb, (uint32_t)m, ebits)];
	reg_stage<T, RB, 1>(v);
#pragma unroll
	for (int m = 0; m < R; ++m)
		buf[gs_bitonic::swz2<RB, WB>(eb, (uint32_t)m, ebits)] = v[m];
	gs_bitonic::local_group<T, B, RB + 1, 0>(buf);
	__syncthreads();
#pragma unroll 8
	for (int q = 0; q < R; ++q) {
		const uint32_t e = tid + q * NT;
		if (e < len)
			dst[e] = buf[gs_bitonic::swz2<RB, WB>(tid, q * NT, NT - 1)];
	}
	__syncthreads();
}

/*
 * Sort src[0 .. len) (1 <= len <= C::SORT >> K) into dst[0 .. len) by the
 * whole block through the shared-memory tile buf (C::SORT words); src may
 * be dst. Section 3.2.2, "Overhead": a sequence that fits in shared memory
 * is sorted there by bitonic sort (section 5.2 names the algorithm),
 * padded with +inf to a power of two (the padding sorts last; an all-ones
 * word of the input ties with it, which leaves the first len words right).
 * Above half the tile, tile_sort on the whole tile; else the same on a
 * tile half as long (while the configuration keeps 2^2 registers a
 * thread), and below that a plain network on the next power of two, one
 * comparator per thread and step. Ends with the block synchronized.
 */
template <class T, class C, int K = 0>
__device__ void block_sort(const T *src, T *dst, uint32_t len, T *buf)
{
	typedef typename C::Tile B;
	if constexpr (B::RB - K >= 2) {
		if (len > (uint32_t)(C::SORT >> (K + 1)))
			return tile_sort<T, TileLess<B, K> >(src, dst, len, buf);
		return block_sort<T, C, K + 1>(src, dst, len, buf);
	}
	constexpr uint32_t NT = C::THREADS;
	const uint32_t tid = threadIdx.x;
	uint32_t P = 1;
	while (P < len)
		P <<= 1;
	for (uint32_t i = tid; i < P; i += NT)
		buf[i] = i < len ? src[i] : Word<T>::inf();
	__syncthreads();
	for (uint32_t k = 2; k <= P; k <<= 1)
		for (uint32_t j = k >> 1; j; j >>= 1) {
			for (uint32_t i = tid; i < P / 2; i += NT) {
				const uint32_t lo = 2 * i - (i & (j - 1)), hi = lo + j;
				T a = buf[lo], b = buf[hi];
				if (lo & k)
					Word<T>::cx(b, a);
				else
					Word<T>::cx(a, b);
				buf[lo] = a;
				buf[hi] = b;
			}
			__syncthreads();
		}
	for (uint32_t i = tid; i < len; i += NT)
		dst[i] = buf[i];
	__syncthreads();
}

} // namespace gs_quick

#endif
