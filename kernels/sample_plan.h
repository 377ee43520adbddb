/*
 * sample_plan.h - the sample sorter's constants and its plan for n words:
 * tile and bucket counts, the proven bucket bound, the merge rounds of
 * step 9 and the layout of the scratch (host only, plain C++; sample.cu
 * and extra_bytes use the same plan).
 *
 * Source: Dehne & Zaboli, "Parallel Sorting for GPUs", section 4,
 * Algorithm 1 (GPU BUCKET SORT, a deterministic sample sort).
 */
#ifndef GPUSORT_SAMPLE_PLAN_H
#define GPUSORT_SAMPLE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "bitonic_tuning.cuh"
#include "sorter.cuh"

namespace gs_sample {

/*
 * KB: log2 of K, the buckets (the paper's s global samples; K - 1
 * splitters). SB: log2 of the sample step, the tile positions between two
 * local samples (the paper's s local samples per sublist are 2^(TB - SB)).
 * Bucket bound (plan_of) ~ n/K + n/2^(TB - SB), samples n/2^SB: 256
 * buckets and every 32nd word sampled keep both terms near n/256 for the
 * u32 tiles and the samples' sort under a tenth of the work.
 */
constexpr int KB = 8, K = 1 << KB;
constexpr int SB = 5;
constexpr int NTL = 256; /* threads of the locate and relocation blocks */
constexpr int MNT = 256; /* threads of a merge block (step 9) */

/* Outputs per thread of a merge block: odd, so that a thread's strided
 * writes of its run to shared memory hit distinct banks. */
template <class T> struct MergeVT;
template <> struct MergeVT<uint32_t> { enum { VT = 15 }; };
template <> struct MergeVT<uint64_t> { enum { VT = 11 }; };
template <> struct MergeVT<gs_u128> { enum { VT = 7 }; };

inline uint64_t cdiv(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

inline size_t al256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

/*
 * The plan for n words of type T. Tiles (the paper's sublists A_i) are
 * the bitonic tile sort's 2^tb words. Everything here only grows with n
 * (extra_bytes must not decrease).
 */
struct Plan {
	uint64_t n;
	int tb;		/* log2 of the tile (sublist) and of a step-9 chunk */
	uint64_t m;	/* tiles: ceil(n / 2^tb); 0 when one tile holds n */
	uint64_t S;	/* local samples: every 2^SB-th word of each tile */
	uint64_t bmax;	/* bound on any bucket's size (plan_of's proof) */
	int rounds;	/* step-9 merge rounds: chunks of 2^tb doubled to bmax */
	uint64_t rs;	/* table rows summed by one block of the column scan */
	uint64_t nslab; /* blocks of the column scan: ceil(m / rs) */
	uint64_t cpb;	/* step-9 chunks per bucket: ceil(bmax / 2^tb) */
	uint64_t part;	/* merge-path entries of the largest round */
	uint32_t tile;	/* outputs of one merge block */
	/* scratch offsets (bytes, 256-aligned) and the total */
	size_t o_buf, o_samp, o_spl, o_rho, o_lb, o_ub, o_off, o_slab, o_bst, o_part, total;
};

/*
 * Geometry of merge round r (runs of w = 2^(tb + r) words within each
 * bucket, merged in pairs): np pairs per bucket at most, tpp output tiles
 * per pair at most; blocks = K * np * tpp.
 */
struct Round {
	uint64_t w;
	uint64_t np, tpp;
};

inline Round round_of(const Plan &p, int r)
{
	Round g;
	g.w = (uint64_t)1 << (p.tb + r);
	g.np = cdiv(p.bmax, 2 * g.w);
	g.tpp = cdiv(2 * g.w < p.bmax ? 2 * g.w : p.bmax, p.tile);
	return g;
}

/*
 * Bucket bound (Dehne & Zaboli, section 4, Step 8: "at most 2n/s", their
 * [13]; here with K buckets and samples every 2^SB words): order the
 * words by (value, tile, position), a strict order (sample.cu, step 6).
 * Splitter q is the sample of rank floor((q + 1) S / K), so a bucket holds
 * c <= ceil(S / K) samples; tile i's part of the bucket is a contiguous
 * range of its sorted tile that holds c_i of them, and every 2^SB-th
 * position is a sample, so the part is shorter than (c_i + 1) 2^SB.
 * Summed over the m tiles: bucket < (ceil(S / K) + m) 2^SB, on every input
 * (equal values included). That is ~ n/K + n/s (s = 2^(tb - SB) samples
 * per tile), 2n/s for K = s as in the paper.
 */
template <class T>
inline Plan plan_of(uint64_t n)
{
	Plan p = {};
	p.n = n;
	p.tb = gs_bitonic::Tr<T>::Def::TB;
	p.tile = (uint32_t)MNT * MergeVT<T>::VT;
	const uint64_t t1 = (uint64_t)1 << p.tb;
	if (n <= t1)
		return p; /* one tile: the tile sort alone, no scratch */
	p.m = cdiv(n, t1);
	p.S = (p.m - 1) * (t1 >> SB) + ((n - (p.m - 1) * t1) >> SB);
	p.bmax = (cdiv(p.S, K) + p.m) << SB;
	if (p.bmax > n)
		p.bmax = n;
	while ((t1 << p.rounds) < p.bmax)
		++p.rounds;
	p.rs = cdiv(p.m, 4096) > 32 ? cdiv(p.m, 4096) : 32;
	p.nslab = cdiv(p.m, p.rs);
	p.cpb = cdiv(p.bmax, t1);
	for (int r = 0; r < p.rounds; ++r) {
		const Round g = round_of(p, r);
		if (K * g.np * g.tpp > p.part)
			p.part = K * g.np * g.tpp;
	}
	/* slab rows: min(4096, ceil(m / 32)) bounds nslab and grows with n */
	const uint64_t slab_rows = cdiv(p.m, 32) < 4096 ? cdiv(p.m, 32) : 4096;
	size_t o = 0;
	p.o_buf = o;
	o += al256(n * sizeof(T)); /* step 8's relocation target */
	p.o_samp = o;
	o += al256(p.S * sizeof(T)); /* steps 3-4: the samples */
	p.o_spl = o;
	o += al256(K * sizeof(T)); /* step 5: splitters */
	p.o_rho = o;
	o += al256(K * 8); /* step 5: each splitter's rank among equal samples */
	p.o_lb = o;
	o += al256(p.m * K * 4); /* step 6: lower bounds, then the cuts */
	p.o_ub = o;
	o += al256(p.m * K * 4); /* step 6: upper bounds, then the offsets */
	p.o_off = o;
	o += al256(p.m * K * 4); /* step 7: equal samples before each tile */
	p.o_slab = o;
	o += al256(slab_rows * K * 4); /* step 7: column sums of a slab */
	p.o_bst = o;
	o += al256((K + 1) * 8); /* bucket starts, n last */
	p.o_part = o;
	o += al256(p.part * 4); /* step 9: merge-path splits */
	p.total = o;
	return p;
}

} // namespace gs_sample

#endif
