/*
 * abisort_merge.cuh - the steps of the adaptive bitonic merge as
 * functions of one thread (host and device: the kernels of
 * abisort_kernels.cuh call them between barriers, and a host replay can
 * call them thread by thread). Included by abisort_kernels.cuh.
 *
 * Source: G. Zachmann, "Adaptive Bitonic Sorting" (encyclopedia entry on
 * Bilardi & Nicolau's algorithm and Greß & Zachmann's GPU-ABiSort).
 *
 * The bitonic tree, implicitly (sections "Derivation of Adaptive Bitonic
 * Merging" and "A GPU Implementation"). A merge of level j takes a pair of
 * sorted runs A = d[P0, P0 + h) and B = d[P0 + h, P0 + 2h), h = 2^(j-1),
 * as the bitonic sequence a = (A, B reversed) of 2^j words. Theorem 2:
 * the half-cleaner's comparators (a_i, a_{i+n/2}) compare A[i] with
 * B[n/2 - 1 - i]; A ascends and B reversed descends, so their outcome
 * "A[i] > B[n/2 - 1 - i]" is false up to one index q and true from there
 * on, and L a (the n/2 smallest) is A[0, q) with B[0, n/2 - q), U a the
 * rest (Theorem 3: the exchange of the subsequences a^2 and a^4 of equal
 * length). Finding q is the binary search of Algorithm 3's phases 1 ..
 * log n - 1 (one comparison (p, q) per tree level), log n comparisons
 * instead of the merger's n/2. Recursively, every subtree at depth k of
 * the merge holds the words of output ranks [i m, (i+1) m), m = 2^j / 2^k,
 * and they are always one piece A[x, x') of A and one piece B[y, y') of
 * B, x + y = i m: again a bitonic sequence (piece of A, piece of B
 * reversed, in some rotation), whose own half-cleaner is the same search
 * restricted to the pieces. So the whole tree is represented by its split
 * values x at the subtree boundaries (the nodes' "pointers"; y = rank - x):
 * Algorithm 3's pointer swaps are what moving the boundary x does, and no
 * word moves until the leaves. Stage k of the merge computes the splits
 * at odd multiples of m from the two at the neighbouring even multiples
 * (the parent subtree's bounds): 2^k independent instances per pair
 * (section "Outline of the Implementation"), each writing its own split
 * to its own slot of a stream (section "Eliminating Random-Access
 * Writes": linear output, no scatter). The merge does C(n) = 2 C(n/2) +
 * log n, O(n), comparisons (section "Derivation ...", C(n) = 2n - log n - 2).
 *
 * Ties: a word of A is taken before an equal word of B, the one rule
 * every search uses, so the splits of all depths agree (a child's split
 * lies between its parent's).
 */
#ifndef GPUSORT_ABISORT_MERGE_CUH
#define GPUSORT_ABISORT_MERGE_CUH

#include <stdint.h>

#include "abisort_tuning.cuh"
#include "sorter.cuh"

#if defined(__CUDACC__)
#define GS_ABI_HD __host__ __device__ __forceinline__
#else
#define GS_ABI_HD inline
#endif

namespace gs_abisort {

/* The order of the words as unsigned integers: le (a <= b), inf (the
 * padding value, all ones, larger than or equal to every word) and cx
 * (compare-exchange: the minimum to a). */
template <class T> struct Ord {
	static GS_ABI_HD bool le(const T &a, const T &b) { return a <= b; }
	static GS_ABI_HD T inf() { return (T)~(T)0; }
	static GS_ABI_HD void cx(T &a, T &b)
	{
		const T l = a < b ? a : b, g = a < b ? b : a;
		a = l;
		b = g;
	}
};
template <> struct Ord<gs_u128> {
	static GS_ABI_HD bool le(const gs_u128 &a, const gs_u128 &b)
	{
		return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
	}
	static GS_ABI_HD gs_u128 inf()
	{
		gs_u128 v;
		v.lo = ~0ull;
		v.hi = ~0ull;
		return v;
	}
	static GS_ABI_HD void cx(gs_u128 &a, gs_u128 &b)
	{
		const bool gt = !le(a, b);
		const gs_u128 l = gt ? b : a, g = gt ? a : b;
		a = l;
		b = g;
	}
};

/* One pair of runs of a merge level j: A = d[p0, p0 + la), B = d[p0 + h,
 * p0 + h + lb), h = 2^(j-1); la < h only in the last pair of a non-power
 * of two n, which then has lb = 0 (the virtual +inf padding of the paper's
 * 2^j-word sequences is never stored: ranks from la + lb on are virtual). */
struct Pair {
	uint64_t p0, h, la, lb;
};

/* Pair p of merge level j for n words. */
GS_ABI_HD Pair pair_of(uint64_t n, int j, uint64_t p)
{
	Pair q;
	q.p0 = p << j;
	q.h = 1ull << (j - 1);
	const uint64_t rest = n - q.p0;
	q.la = rest < q.h ? rest : q.h;
	q.lb = rest > q.h ? (rest - q.h < q.h ? rest - q.h : q.h) : 0;
	return q;
}

/*
 * The split at output rank r of merging the pieces A[0..) and B[0..):
 * the number x of words of A among the r smallest (A first on ties),
 * known to lie in [lo, hi] with every probe in range (the caller's
 * brackets: lo >= r - (B words below the right bracket), hi <= r - (B
 * words below the left bracket)). This is Algorithm 3's descent (phases
 * 1 .. log m - 1, one comparison per level of the bitonic tree): at most
 * ceil(log2(hi - lo + 1)) comparisons, counted into *cmp.
 */
template <class T, class GA, class GB>
GS_ABI_HD uint64_t split_search(GA a, GB b, uint64_t r, uint64_t lo, uint64_t hi, uint32_t *cmp)
{
	uint32_t c = 0;
	while (lo < hi) {
		const uint64_t mid = lo + ((hi - lo) >> 1);
		++c;
		if (Ord<T>::le(a(mid), b(r - 1 - mid)))
			lo = mid + 1;
		else
			hi = mid;
	}
	*cmp += c;
	return lo;
}

/* The search range of the split at rank r between the brackets (xl, yl)
 * and (xh, yh) (splits at lower and higher ranks, yh already clipped to
 * the real words): x in [max(xl, r - yh), min(xh, r - yl)]. */
GS_ABI_HD void split_range(uint64_t r, uint64_t xl, uint64_t yl, uint64_t xh, uint64_t yh, uint64_t *lo,
			   uint64_t *hi)
{
	*lo = r > yh && r - yh > xl ? r - yh : xl;
	*hi = r - yl < xh ? r - yl : xh;
}

/*
 * Stage d (1 .. j - TB) of merge level j in device memory: instance t of
 * pairs * 2^(d-1) computes the split of subtree boundary (2u + 1) 2^(j-TB-d)
 * (u = t mod 2^(d-1), in leaves of 2^TB words) of pair p = t / 2^(d-1),
 * from its parent's two boundaries, and writes it to S[p 2^(j-TB) + that
 * boundary]. S holds, per pair, the split at every leaf boundary except
 * the pair's start (0) and end (la): the stream of the paper's node
 * pointers. Returns the comparisons made.
 */
template <class T, int TB>
GS_ABI_HD uint32_t split_node(const T *src, uint64_t n, int j, int d, uint64_t *S, uint64_t t)
{
	const int lpb = j - TB;
	const uint64_t LP = 1ull << lpb, p = t >> (d - 1), u = t & ((1ull << (d - 1)) - 1);
	const uint64_t stride = 1ull << (lpb - d), i = (2 * u + 1) * stride;
	const Pair q = pair_of(n, j, p);
	const uint64_t tot = q.la + q.lb, r = i << TB;
	uint64_t *Sp = S + p * LP;
	if (r >= tot) {
		Sp[i] = q.la; /* only virtual words from here on */
		return 0;
	}
	const uint64_t l = i - stride, h = i + stride;
	const uint64_t xl = l ? Sp[l] : 0, yl = (l << TB) - xl;
	uint64_t xh = q.la, yh = q.lb;
	if (h < LP) {
		xh = Sp[h];
		yh = ((h << TB) < tot ? (h << TB) : tot) - xh;
	}
	uint64_t lo, hi;
	split_range(r, xl, yl, xh, yh, &lo, &hi);
	const T *A = src + q.p0, *B = src + q.p0 + q.h;
	uint32_t cmp = 0;
	Sp[i] = split_search<T>([A](uint64_t k) { return A[k]; }, [B](uint64_t k) { return B[k]; }, r, lo, hi,
				&cmp);
	return cmp;
}

/* Shared-memory slot of tile word e: one pad word after every 16 (a
 * thread's 16 consecutive words then start in distinct banks). */
GS_ABI_HD uint32_t pad(uint32_t e)
{
	return e + (e >> 4);
}

/*
 * A leaf block's subtree (2^TB output ranks of one pair, section "The Last
 * Stage of Each Merge"): the pieces A[x0, x0 + na) and B[y0, y0 + nb) of
 * its pair, m = na + nb words (2^TB but in the last leaf), to be written
 * sorted at d[out, out + m). In the tile they stand as A's piece at
 * [0, na) and B's at [na, m).
 */
struct Leaf {
	uint64_t a0, b0, out; /* device offsets of the pieces and the output */
	uint32_t na, nb, m;
};

/* Leaf g (of all pairs, 2^TB ranks each) of merge level j, from S. */
template <int TB>
GS_ABI_HD Leaf leaf_of(uint64_t n, int j, const uint64_t *S, uint64_t g)
{
	const int lpb = j - TB;
	const uint64_t LP = 1ull << lpb, p = g >> lpb, i = g & (LP - 1);
	const Pair q = pair_of(n, j, p);
	const uint64_t tot = q.la + q.lb, r0 = i << TB, r1 = r0 + (1ull << TB) < tot ? r0 + (1ull << TB) : tot;
	const uint64_t x0 = i ? S[g] : 0, x1 = i + 1 < LP ? S[g + 1] : q.la;
	const uint64_t y0 = r0 - x0, y1 = r1 - x1;
	Leaf f;
	f.a0 = q.p0 + x0;
	f.b0 = q.p0 + q.h + y0;
	f.out = q.p0 + r0;
	f.na = (uint32_t)(x1 - x0);
	f.nb = (uint32_t)(y1 - y0);
	f.m = f.na + f.nb;
	return f;
}

/*
 * Stage d (1 .. TB - RB) of the adaptive merge inside a leaf block, on
 * the tile in shared memory: thread tid < 2^(d-1) computes the split of
 * the boundary (2 tid + 1) 2^(TB-RB-d) (in units of 2^RB ranks) into
 * sx[] (sx[0] = 0, sx[2^(TB-RB)] = na set before stage 1). Returns the
 * comparisons made.
 */
template <class T, class C>
GS_ABI_HD uint32_t leaf_split(const T *tile, uint32_t *sx, const Leaf &f, int d, uint32_t tid)
{
	const uint32_t stride = (uint32_t)C::NT >> d, i = (2 * tid + 1) * stride, r = i << C::RB;
	if (r >= f.m) {
		sx[i] = f.na;
		return 0;
	}
	const uint32_t xl = sx[i - stride], yl = ((i - stride) << C::RB) - xl;
	const uint32_t xh = sx[i + stride], rh = (i + stride) << C::RB;
	const uint32_t yh = (rh < f.m ? rh : f.m) - xh;
	uint64_t lo, hi;
	split_range(r, xl, yl, xh, yh, &lo, &hi);
	const uint32_t na = f.na;
	uint32_t cmp = 0;
	sx[i] = (uint32_t)split_search<T>([tile](uint64_t k) { return tile[pad((uint32_t)k)]; },
					  [tile, na](uint64_t k) { return tile[pad(na + (uint32_t)k)]; }, r, lo,
					  hi, &cmp);
	return cmp;
}

/*
 * The last stages (section "The Last Stage of Each Merge": a plain,
 * nonadaptive bitonic merge for small subsequences): thread tid's 2^RB
 * output ranks are the pieces A[sx[tid], sx[tid+1]) and the matching one
 * of B; laid out as the bitonic sequence (A piece ascending, +inf
 * padding, B piece descending) in registers, the bitonic merger BM_16
 * (half-cleaners on distances 8, 4, 2, 1: 32 comparators) sorts them.
 * v gets the sorted words (the first na + nb real). Returns the
 * comparisons made.
 */
template <class T, class C>
GS_ABI_HD uint32_t leaf_gather(const T *tile, const uint32_t *sx, const Leaf &f, uint32_t tid, T (&v)[C::R])
{
	constexpr int R = C::R;
	const uint32_t r0 = tid << C::RB, xa = sx[tid], xb = sx[tid + 1];
	const uint32_t r1 = r0 + R < f.m ? r0 + R : f.m;
	const uint32_t ca = xb - xa, ya = (r0 < f.m ? r0 : f.m) - xa, cb = r1 - xb - ya;
	const uint32_t bb = f.na + ya + R - 1;
#pragma unroll
	for (int k = 0; k < R; ++k)
		v[k] = (uint32_t)k < ca ? tile[pad(xa + k)] : (uint32_t)k >= R - cb ? tile[pad(bb - k)] : Ord<T>::inf();
#pragma unroll
	for (int s = R / 2; s >= 1; s >>= 1)
#pragma unroll
		for (int k = 0; k < R; ++k)
			if (!(k & s))
				Ord<T>::cx(v[k], v[k | s]);
	return R / 2 * C::RB;
}

} // namespace gs_abisort

#endif
