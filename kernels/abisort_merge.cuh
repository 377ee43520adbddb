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
 * ceil(log2(hi - lo + 1)) comparisons, counted into *cmp. I: the index
 * type (32 bits inside a tile).
 */
template <class T, class I, class GA, class GB>
GS_ABI_HD I split_search(GA a, GB b, I r, I lo, I hi, uint32_t *cmp)
{
	uint32_t c = 0;
	while (lo < hi) {
		const I mid = lo + ((hi - lo) >> 1);
		++c;
		if (Ord<T>::le(a(mid), b(r - 1 - mid)))
			lo = mid + 1;
		else
			hi = mid;
	}
	*cmp += c;
	return lo;
}

/*
 * split_search by a whole warp (every lane calls it with the same
 * arguments and gets the answer): Algorithm 3's comparisons (a_i,
 * a_{i+m/2}) at 32 positions of the range at once, whose outcomes are a
 * run of "A word first" then a run of "B word first" (Theorem 2), so the
 * ballot's population count narrows the range 33-fold a round: about
 * log33 instead of log2 dependent memory reads, which is what a stage of
 * few instances waits for (the paper's stages overlap for the same
 * reason, section "Complexity"). 32 comparisons a round are counted, by
 * lane 0 only. The host replays the 32 lanes in a loop.
 */
template <class T, class I, class GA, class GB>
GS_ABI_HD I split_wide(GA a, GB b, I r, I lo, I hi, uint32_t lane, uint32_t *cmp)
{
	uint32_t c = 0;
	while (lo < hi) {
		const I w = hi - lo;
		/* w >= 32: probes lo + (k+1) w / 33, distinct, in [lo, hi);
		 * else every candidate lo + k, k < w */
		const uint32_t np = w >= 32 ? 32u : (uint32_t)w;
		auto probe = [lo, w](uint32_t k) -> I { return w >= 32 ? lo + (I)(k + 1) * w / 33 : lo + k; };
		uint32_t cnt = 0;
#ifdef __CUDA_ARCH__
		bool p = false;
		if (lane < np) {
			const I x = probe(lane);
			p = Ord<T>::le(a(x), b(r - 1 - x));
		}
		cnt = (uint32_t)__popc(__ballot_sync(0xffffffffu, p));
#else
		for (uint32_t k = 0; k < np; ++k)
			cnt += Ord<T>::le(a(probe(k)), b(r - 1 - probe(k))) ? 1 : 0;
#endif
		c += np;
		const I nlo = cnt ? probe(cnt - 1) + 1 : lo, nhi = cnt < np ? probe(cnt) : hi;
		lo = nlo;
		hi = nhi;
	}
	if (lane == 0)
		*cmp += c;
	return lo;
}

/* The search range of the split at rank r between the brackets (xl, yl)
 * and (xh, yh) (splits at lower and higher ranks, yh already clipped to
 * the real words): x in [max(xl, r - yh), min(xh, r - yl)]. */
template <class I>
GS_ABI_HD void split_range(I r, I xl, I yl, I xh, I yh, I *lo, I *hi)
{
	*lo = r > yh && r - yh > xl ? r - yh : xl;
	*hi = r - yl < xh ? r - yl : xh;
}

/* Whether a merge stage in device memory of count instances searches by
 * a warp each (C::WIDE, abisort_tuning.cuh); the host replay asks too. */
template <class C>
GS_ABI_HD bool stage_wide(uint64_t count)
{
	return count <= (uint64_t)C::WIDE;
}

/*
 * Stage d (1 .. j - TB) of merge level j in device memory, by one warp
 * (WIDE, lane: this thread's) or one thread (lane 0): instance t of
 * pairs * 2^(d-1) computes the split of subtree boundary
 * (2u + 1) 2^(j-TB-d) (u = t mod 2^(d-1), in leaves of 2^TB words) of
 * pair p = t / 2^(d-1), from its parent's two
 * boundaries, and lane 0 writes it to S[p 2^(j-TB) + that boundary]. S
 * holds, per pair, the split at every leaf boundary except the pair's
 * start (0) and end (la): the stream of the paper's node pointers.
 * Returns the comparisons made (lane 0; 0 on the others).
 */
template <class T, int TB, bool WIDE>
GS_ABI_HD uint32_t split_node(const T *src, uint64_t n, int j, int d, uint64_t *S, uint64_t t, uint32_t lane)
{
	const int lpb = j - TB;
	const uint64_t LP = 1ull << lpb, p = t >> (d - 1), u = t & ((1ull << (d - 1)) - 1);
	const uint64_t stride = 1ull << (lpb - d), i = (2 * u + 1) * stride;
	const Pair q = pair_of(n, j, p);
	const uint64_t tot = q.la + q.lb, r = i << TB;
	uint64_t *Sp = S + p * LP;
	if (r >= tot) {
		if (lane == 0)
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
	split_range<uint64_t>(r, xl, yl, xh, yh, &lo, &hi);
	const T *A = src + q.p0, *B = src + q.p0 + q.h;
	uint32_t cmp = 0;
	auto a = [A](uint64_t k) { return A[k]; };
	auto b = [B](uint64_t k) { return B[k]; };
	const uint64_t x = WIDE ? split_wide<T, uint64_t>(a, b, r, lo, hi, lane, &cmp) :
				  split_search<T, uint64_t>(a, b, r, lo, hi, &cmp);
	if (lane == 0)
		Sp[i] = x;
	return cmp;
}

/*
 * Shared-memory slot of tile word e: the low bits xor-ed with the bits
 * from RB up, within one 128-byte row (128 / sizeof(T) words). Both ways
 * the block touches the tile in order, a warp's consecutive words (the
 * copies in and out) and a thread's 2^RB consecutive words (the leaf
 * merge's stores, lane t at 2^RB t + k), then fall into distinct banks.
 */
template <class T, int RB>
GS_ABI_HD uint32_t slot(uint32_t e)
{
	return e ^ ((e >> RB) & (128 / sizeof(T) - 1));
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
 * the tile in shared memory: instance u < 2^(d-1) computes the split of
 * the boundary (2u + 1) 2^(TB-RB-d) (in units of 2^RB ranks) into sx[]
 * (sx[0] = 0, sx[2^(TB-RB)] = na set before stage 1). WIDE: by a whole
 * warp (split_wide; lane 0 writes), else by one thread (lane 0). Returns
 * the comparisons made (0 but on lane 0).
 */
template <class T, class C, bool WIDE>
GS_ABI_HD uint32_t leaf_split(const T *tile, uint32_t *sx, const Leaf &f, int d, uint32_t u, uint32_t lane)
{
	const uint32_t stride = (uint32_t)C::NT >> d, i = (2 * u + 1) * stride, r = i << C::RB;
	if (r >= f.m) {
		if (lane == 0)
			sx[i] = f.na;
		return 0;
	}
	const uint32_t xl = sx[i - stride], yl = ((i - stride) << C::RB) - xl;
	const uint32_t xh = sx[i + stride], rh = (i + stride) << C::RB;
	const uint32_t yh = (rh < f.m ? rh : f.m) - xh;
	uint32_t lo, hi;
	split_range<uint32_t>(r, xl, yl, xh, yh, &lo, &hi);
	const uint32_t na = f.na;
	auto a = [tile](uint32_t k) { return tile[slot<T, C::RB>(k)]; };
	auto b = [tile, na](uint32_t k) { return tile[slot<T, C::RB>(na + k)]; };
	uint32_t cmp = 0;
	const uint32_t x = WIDE ? split_wide<T, uint32_t>(a, b, r, lo, hi, lane, &cmp) :
				  split_search<T, uint32_t>(a, b, r, lo, hi, &cmp);
	if (lane == 0)
		sx[i] = x;
	return cmp;
}

/*
 * The last stages (section "The Last Stage of Each Merge": a plain,
 * nonadaptive bitonic merge for small subsequences): thread tid's 2^RB
 * output ranks are the pieces A[sx[tid], sx[tid+1]) and the matching one
 * of B; laid out as the bitonic sequence (A piece ascending, +inf
 * padding, B piece descending) in registers, the bitonic merger BM_16
 * (half-cleaners on distances 8, 4, 2, 1: 32 comparators) sorts them.
 * One shared-memory read a word (the piece it comes from picked first).
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
	for (int k = 0; k < R; ++k) {
		const bool ina = (uint32_t)k < ca, inb = (uint32_t)k >= R - cb;
		const uint32_t e = ina ? xa + k : bb - k;
		v[k] = ina || inb ? tile[slot<T, C::RB>(e)] : Ord<T>::inf();
	}
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
