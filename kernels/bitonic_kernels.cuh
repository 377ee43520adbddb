/*
 * bitonic_kernels.cuh - the kernels of the in-place bitonic sort: the tile
 * sort (k_bitonic_local) and the passes over device memory
 * (k_bitonic_high, k_bitonic_low). Included by bitonic.cu only, which
 * launches them as bitonic_plan.h's plan lists.
 *
 * Source: G. Capannini, F. Silvestri, R. Baraglia, "Sorting on GPUs for large
 * scale datasets: a thorough comparison", sections 5-6 (K-model, bitonic sort).
 *
 * Batcher's network on N = 2^L (virtually padded) elements has L(L+1)/2
 * steps; step (stage s, distance j = 2^q) compares elements whose indices
 * differ in bit q only. The paper's point (section 6, Definitions 1-3,
 * Algorithm 2) is that a run of consecutive steps that only touch index bits
 * in a set Γ can be executed on a "Γ-partition" (all indices whose bits
 * outside Γ are equal) without looking at any other element; so one kernel
 * launch (a "pass", the paper's superstep) loads each Γ-partition of size k
 * into a block's shared memory, runs all those steps there (Algorithm 3) and
 * stores it back. Section 5's k-coalesced condition: the low index bits are
 * always in Γ, so a warp's global loads and stores hit contiguous 128-byte
 * lines.
 *
 * Here:
 *   - tile (Γ-partition) = 2^TB elements in shared memory,
 *   - the tile sort: every aligned tile is fully sorted (stages 1..TB),
 *   - a shared-memory pass takes up to TB - WB consecutive steps of a
 *     stage (Γ = {0..c-1} ∪ {lo..hi}, the c >= WB low bits kept for
 *     coalescing), the tile-bits pass a stage's last TB steps
 *     (Γ = {0..TB-1}), and a chained pass a stage's last c steps together
 *     with the next stage's first TB - c (high_body, TAIL), so that a pass
 *     whose Γ must hold the low bits anyway does TB steps, not TB - WB.
 *   - every kernel has its register groups and comparator directions fixed
 *     at compile time (templates on the configuration and the pass width),
 *     and a partition with no virtual element (all but a few, FULL) takes
 *     its device and shared-memory addresses as a per-thread base plus
 *     constants, with no per-element check: the passes are bound by the
 *     integer ALU pipe, mostly on that index arithmetic; without it they
 *     cost about as much as a copy of the data.
 *   - every other pass runs its blocks in reverse order (pass_order), so
 *     that it starts on the partitions the one before left in L2.
 *   - sorting in place, with no second buffer, for any n: the virtual
 *     elements n..2^L-1 are +infinity and are never loaded or stored. That is
 *     only sound if no real element is ever moved onto an index >= n, which
 *     holds for the form of the network where every comparator puts the
 *     minimum at the lower index (first step of stage s compares i with
 *     i ^ (2^s - 1)). We run that form; in a pass we index the tile in
 *     "mirrored" coordinates x with address phi_s(x) = x ^ (2^(s-1) - 1) when
 *     bit s-1 of x is set, else x, so every step is a plain i ^ 2^q
 *     comparator (descending where bit s-1 of x is set), which keeps the
 *     first step inside the same Γ-partition.
 */
#ifndef GPUSORT_BITONIC_KERNELS_CUH
#define GPUSORT_BITONIC_KERNELS_CUH

#include "bitonic_block.cuh"

namespace gs_bitonic {

/*
 * The tile sort, one stage s (RB < s <= TB) on the tile in shared memory,
 * register group GI of it, everything known at compile time (the groups'
 * bits fold every shared-memory index to a constant offset from a
 * per-group base). The network is the form the passes use, where every
 * comparator puts the minimum at the lower index: the first step of stage
 * s compares i with i ^ (2^s - 1), the others i with i ^ 2^q. Group 0
 * holds bits s-1..s-RB and reads the tile in mirrored coordinates (file
 * comment: a slot with bit s - 1 set holds element y ^ (2^(s-1) - 1)), so
 * that its first step is a plain comparator and its later ones descend in
 * the slots where bit s - 1 is set, both fixed at compile time (DIR 2);
 * the later groups are in plain coordinates, every comparator ascending.
 * No value is ever complemented: the ALU pipe bounds the tile sort, and
 * the complements of the classic form (descending where bit s of i is
 * set; a thread property that varies inside a warp below stage 10) would
 * cost ~7 of its ~116 ALU operations per element.
 */
template <class T, class C, int S, int GI>
__device__ __forceinline__ void local_group(T *tile)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB;
	constexpr int NG = (S + RB - 1) / RB, TOP = S - 1 - GI * RB;
	constexpr int G = TOP - RB + 1 > 0 ? TOP - RB + 1 : 0, NB = TOP - G + 1;
	constexpr uint32_t EBITS = ~(((1u << RB) - 1) << G);
	static_assert(GI > 0 || NB == RB, "group 0 of a stage above RB spans RB bits");
	const uint32_t tid = threadIdx.x;
	const uint32_t eb = (tid & ((1u << G) - 1)) | ((tid >> G) << (G + RB));
	/* group 0's mirrored half: its lane bits below G and register bits
	 * below the top one flipped */
	const uint32_t ebm = eb ^ ((1u << G) - 1);
	auto slot = [&](int m) -> uint32_t {
		if (GI == 0 && (m >> (RB - 1)))
			return swz2<RB, WB>(ebm, (uint32_t)(m ^ (R / 2 - 1)) << G, EBITS);
		return swz2<RB, WB>(eb, (uint32_t)m << G, EBITS);
	};
	T v[R];
	__syncthreads();
#pragma unroll
	for (int m = 0; m < R; ++m)
		v[m] = tile[slot(m)];
	if constexpr (GI == 0)
		group_steps<T, RB, RB - 1, 0, 2>(v);
	else
		group_steps<T, RB, NB - 1, 0, 0>(v);
#pragma unroll
	for (int m = 0; m < R; ++m)
		tile[slot(m)] = v[m];
	if constexpr (GI + 1 < NG)
		local_group<T, C, S, GI + 1>(tile);
	else if constexpr (S < TB)
		local_group<T, C, S + 1, 0>(tile);
}

/*
 * Sort the 2^TB elements of the shared-memory tile (laid out as
 * k_bitonic_local loads it: element e at swz2(e)) ascending, by the whole
 * block of 2^NTB threads; the caller has filled it and passed a barrier,
 * and passes one before reading it back. Also the sample sorter's bucket
 * chunks (sample_kernels.cuh).
 */
template <class T, class C>
__device__ __forceinline__ void tile_sort(T *tile)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB;
	const uint32_t tid = threadIdx.x;
	/* stages 1..RB entirely in registers: thread holds 2^RB consecutive
	 * elements, sorted ascending with the network of local_group (first
	 * step of stage s: m against m ^ (2^s - 1), the others m ^ 2^k; every
	 * comparator's minimum to the lower index) */
	{
		const uint32_t eb = tid << RB;
		T v[R];
#pragma unroll
		for (int m = 0; m < R; ++m)
			v[m] = tile[swz2<RB, WB>(eb, (uint32_t)m, ((1u << TB) - 1) & ~(R - 1u))];
#pragma unroll
		for (int s = 1; s <= RB; ++s) {
#pragma unroll
			for (int m = 0; m < R; ++m)
				if (!(m & (1 << (s - 1))))
					Word<T>::cx(v[m], v[m ^ ((1 << s) - 1)]);
#pragma unroll
			for (int k = s - 2; k >= 0; --k) {
#pragma unroll
				for (int m = 0; m < R; ++m)
					if (!(m & (1 << k)))
						Word<T>::cx(v[m], v[m | (1 << k)]);
			}
		}
#pragma unroll
		for (int m = 0; m < R; ++m)
			tile[swz2<RB, WB>(eb, (uint32_t)m, ((1u << TB) - 1) & ~(R - 1u))] = v[m];
	}
	local_group<T, C, RB + 1, 0>(tile);
}

/*
 * The tile sort: sort every aligned tile d[b*2^TB ..) ascending, stages
 * 1..TB inside shared memory: a single Γ-partition per block with
 * Γ = {0..TB-1} (Definition 2 with the lowest bits: coalesced).
 * Elements >= n are +infinity, not loaded, not stored. src and dst: n
 * elements each, the same array (in place) or disjoint ones (abisort's
 * tile sort into its second buffer, which saves a final copy when its
 * merge levels are odd); a block reads its whole tile before it writes.
 */
template <class T, class C>
__global__ void __launch_bounds__(1 << C::NTB, C::LMINB) k_bitonic_local(const T *src, T *dst, uint64_t n)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB;
	constexpr uint32_t NT = 1u << C::NTB;
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	const uint32_t tid = threadIdx.x;
	const uint64_t base = (uint64_t)blockIdx.x << TB;
	if (base >= n)
		return;
	/* a whole tile below n (all but the last one): no per-element check */
	const bool full = base + (1u << TB) <= n;
	if (full) {
#pragma unroll 8
		for (int q = 0; q < R; ++q)
			tile[swz2<RB, WB>(tid, q * NT, NT - 1)] = src[base + tid + q * NT];
	} else {
#pragma unroll 8
		for (int q = 0; q < R; ++q) {
			uint32_t e = tid + q * NT;
			tile[swz2<RB, WB>(tid, q * NT, NT - 1)] = base + e < n ? src[base + e] : Word<T>::inf();
		}
	}
	__syncthreads();
	tile_sort<T, C>(tile);
	__syncthreads();
	if (full) {
#pragma unroll 8
		for (int q = 0; q < R; ++q)
			dst[base + tid + q * NT] = tile[swz2<RB, WB>(tid, q * NT, NT - 1)];
	} else {
#pragma unroll 8
		for (int q = 0; q < R; ++q) {
			uint32_t e = tid + q * NT;
			if (base + e < n)
				dst[base + e] = tile[swz2<RB, WB>(tid, q * NT, NT - 1)];
		}
	}
}

/*
 * One pass of stage s (merge of sorted runs of 2^(s-1) into runs of 2^s):
 * the H steps on index bits hi..lo (lo = hi - H + 1), on Γ-partitions with
 * Γ = {0..c-1} ∪ {lo..hi}, c = TB - H (Definitions 1-3 and Algorithm 2 of
 * the paper; c >= WB: section 5's k-coalesced condition). Tile element e:
 * bits 0..c-1 -> x bits 0..c-1, bits c.. -> x bits lo..hi; the block
 * number fills the x bits outside Γ. Address = phi_s(x) (file comment).
 * H is a template parameter so that the register groups (tile bits TB-1..c,
 * RB at a time, the first loaded straight from device memory, the last
 * stored straight back when its lanes are consecutive) and their
 * shared-memory offsets are compile-time constants, as in low_body: with
 * runtime groups the pass is instruction-bound.
 * Directions: hi == s - 1 (the stage's first pass): DIR 2 for group 0,
 * then the direction is tile bit TB-1, which lies in every later group's
 * thread bits (the top bit of the thread number: uniform in a warp).
 * Otherwise bit s - 1 of x is outside Γ: one direction for the block.
 *
 * TAIL (a chained pass, PASS_CHAIN; only with hi = s - 1): first the last c
 * steps of stage s - 1 (bits c-1..0, tile bits c-1..0), then the first H
 * of stage s, in one pass. The partition is taken in stage s's mirrored
 * coordinates, and is still a valid Γ-partition for the earlier stage:
 * every comparator of the network, in address space, puts the minimum at
 * the lower address, and a step of stage s - 1 on a bit q < s - 1 pairs
 * addresses p and p ^ 2^q; in stage s's coordinates that is x and x ^ 2^q
 * (phi_s flips bits below s - 1 of a whole half at once), the same
 * partition, and "minimum at the lower address" is ascending in x where
 * bit s - 1 of x is 0 and descending where it is 1 (the rule of stage s's
 * later steps, tile bit TB-1). So a stage's tail and the next stage's head
 * share one load and one store, which saves a pass wherever the planner
 * uses it (plan()).
 */
template <class T, class C, int H, int DIR0, bool TAIL, bool FULL, class IX>
__device__ __forceinline__ void high_body(T *__restrict__ d, IX n, IX xblk, int lo, int sb, T *tile)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB, c = TB - H, NG = (H + RB - 1) / RB;
	constexpr uint32_t NT = 1u << C::NTB, cmask = (1u << c) - 1;
	const uint32_t tid = threadIdx.x;
	const IX hmask = ((IX)1 << sb) - 1;
	auto xof = [&](uint32_t e) -> IX { return xblk | (e & cmask) | ((IX)(e >> c) << lo); };
	/*
	 * Address of tile element eb | mv. The integer ALU pipe bounds these
	 * passes, most of it the bit arithmetic below (x, then phi_s) and the
	 * check against n. For a FULL partition the same address is taken as
	 * arithmetic: tile bits map to x bits by "bits below c stay, bit c + j
	 * goes to lo + j", so x(eb | mv) = xblk + off(eb) + off(mv) with
	 * off(v) = (v & cmask) + (v >> c) 2^lo (no bits in common); where
	 * phi_s mirrors (bit s - 1 of x set: the top tile bit TB - 1 when DIR0
	 * is 2, the whole block when it is 1), x ^ (2^(s-1) - 1) = K1 - off(e
	 * without that bit), K1 the mirrored partition's first address (its
	 * Γ bits below s - 1 all set). With mv a constant, that is a
	 * multiply-add or two per element on the FMA pipe instead of about ten
	 * ALU operations.
	 */
	const IX S = (IX)1 << lo;
	constexpr uint32_t tbit = DIR0 == 2 ? 1u << (TB - 1) : 0u;
	const IX K1 = DIR0 == 2 ? (xblk | ((IX)1 << sb)) ^ hmask : xblk ^ hmask;
	auto addr = [&](uint32_t ebv, uint32_t mv) -> IX {
		if constexpr (!FULL) {
			const IX x = xof(ebv | mv);
			return ((x >> sb) & 1) ? x ^ hmask : x;
		} else {
			const bool top = DIR0 == 2 ? ((ebv | mv) & tbit) != 0 : DIR0 == 1;
			const uint32_t eo = ebv & ~tbit, mo = mv & ~tbit;
			const IX ob = (IX)(eo & cmask) + (IX)(eo >> c) * S;
			const IX sg = top ? (IX)0 - 1 : (IX)1;
			const IX B = top ? K1 - ob : xblk + ob;
			return B + sg * (IX)(mo & cmask) + (IX)(mo >> c) * (sg * S);
		}
	};
	const bool tdesc = (tid >> (C::NTB - 1)) & 1;
	if constexpr (TAIL) {
		/* the tail's groups: tile bits c-1..0, RB at a time from the top;
		 * tile bit TB-1 (the direction) is a thread bit in all of them */
		constexpr int NTG = (c + RB - 1) / RB;
		/* first group's lanes not runs of 2^STG consecutive elements */
		constexpr bool staged = c - RB < (C::STG < 0 ? WB : (int)C::STG);
		if constexpr (staged)
			tile_load<T, RB, WB, NT, FULL, IX>(d, n, tile, addr);
#pragma unroll
		for (int gi = 0; gi < NTG; ++gi) {
			const int top = c - 1 - gi * RB, g = top - RB + 1 > 0 ? top - RB + 1 : 0, khi = top - g;
			const uint32_t eb = (tid & ((1u << g) - 1)) | ((tid >> g) << (g + RB));
			T v[R];
			group_load<T, RB, WB, FULL, IX>(v, gi == 0 && !staged, eb, g, d, n, tile, addr);
			/* TFLIP: a descending thread (warp-uniform: tile bit TB-1 is
			 * tid's top bit) keeps its values complemented through the
			 * tail and sorts them ascending, so the code has one network,
			 * not one per direction: with two, ptxas spills in u32's
			 * three-group tails; with one, u64's tails spill instead, so
			 * u64 keeps the two */
			constexpr bool TFLIP = sizeof(T) == 4;
			if (TFLIP && gi == 0 && tdesc) {
#pragma unroll
				for (int m = 0; m < R; ++m)
					Word<T>::flip(v[m]);
			}
#define GS_TAIL(KH)                                                       \
	if (khi == KH) {                                                  \
		if (tdesc && !TFLIP)                                      \
			group_steps<T, RB, KH < RB ? KH : RB - 1, 0, 1>(v); \
		else                                                      \
			group_steps<T, RB, KH < RB ? KH : RB - 1, 0, 0>(v); \
	}
			GS_TAIL(5)
			else GS_TAIL(4)
			else GS_TAIL(3)
			else GS_TAIL(2)
			else GS_TAIL(1)
			else GS_TAIL(0)
#undef GS_TAIL
			if (TFLIP && gi == NTG - 1 && tdesc) {
#pragma unroll
				for (int m = 0; m < R; ++m)
					Word<T>::flip(v[m]);
			}
			group_store<T, RB, WB, FULL, IX>(v, false, eb, g, d, n, tile, addr);
		}
	}
	/* SPLIT: two groups, and the second one's natural register bits
	 * (TB-2RB .. TB-RB-1) reach below WB, so that its lanes would not be
	 * consecutive elements and the tile would go back through shared
	 * memory to be stored. Instead its registers are its NS step bits
	 * c..c+NS-1 and, as fillers, the NF top tile bits (whose steps group 0
	 * has done): the lanes are then tile bits 0..WB-1 and the group stores
	 * straight to device memory, one shared-memory round trip per pass. */
	constexpr bool SPLIT = NG == 2 && TB - 2 * RB < WB;
	constexpr int NS = H - RB, NF = RB - NS;
	static_assert(!SPLIT || NF >= 1, "split group: tile bit TB-1 among the fillers");
	bool in_smem = false;
#pragma unroll
	for (int gi = 0; gi < (SPLIT ? 1 : NG); ++gi) {
		const int top = TB - 1 - gi * RB, g = top - RB + 1 > 0 ? top - RB + 1 : 0;
		const int khi = top - g, klo = (c > top - RB + 1 ? c : top - RB + 1) - g;
		const uint32_t eb = (tid & ((1u << g) - 1)) | ((tid >> g) << (g + RB));
		T v[R];
		group_load<T, RB, WB, FULL, IX>(v, gi == 0 && !TAIL, eb, g, d, n, tile, addr);
		/* (the switch folds: gi, khi and klo are constants once unrolled) */
#define GS_GROUP(KH, KL)                                                        \
	if (khi == KH && klo == KL) {                                           \
		if (DIR0 < 2)                                                   \
			group_steps<T, RB, KH, KL, DIR0 < 2 ? DIR0 : 0>(v);     \
		else if (gi == 0)                                               \
			group_steps<T, RB, KH, KL, 2>(v);                       \
		else if (tdesc)                                                 \
			group_steps<T, RB, KH, KL, 1>(v);                       \
		else                                                            \
			group_steps<T, RB, KH, KL, 0>(v);                       \
	}
		GS_GROUP(RB - 1, 0)
		else GS_GROUP(RB - 1, 1)
		else GS_GROUP(RB - 1, 2)
		else GS_GROUP(RB - 1, 3)
		else GS_GROUP(RB - 1, 4)
		else GS_GROUP(RB - 1, 5)
#undef GS_GROUP
		in_smem = group_store<T, RB, WB, FULL, IX>(v, gi == NG - 1 && !SPLIT, eb, g, d, n, tile, addr);
	}
	if constexpr (SPLIT) {
		/* register slot m: bits 0..NS-1 -> tile bits c.., bits NS.. ->
		 * tile bits TB-NF..TB-1, so slot bit RB-1 is tile bit TB-1, the
		 * direction bit of DIR 2 (group_steps); the thread's bits fill
		 * tile bits 0..c-1, then c+NS..TB-NF-1 */
		const uint32_t eb = (tid & cmask) | ((tid >> c) << (c + NS));
		auto ml = [&](int m) -> uint32_t {
			return (((uint32_t)m & ((1u << NS) - 1)) << c) | (((uint32_t)m >> NS) << (TB - NF));
		};
		T v[R];
		__syncthreads();
#pragma unroll
		for (int m = 0; m < R; ++m)
			v[m] = tile[swz2<RB, WB>(eb, ml(m), ~(((1u << NS) - 1) << c) & ~(((1u << NF) - 1) << (TB - NF)))];
		group_steps<T, RB, NS - 1, 0, DIR0>(v);
#pragma unroll
		for (int m = 0; m < R; ++m) {
			const IX a = addr(eb, ml(m));
			if (FULL || a < n)
				d[a] = v[m];
		}
		in_smem = false;
	}
	if (in_smem)
		tile_store<T, RB, WB, NT, FULL, IX>(d, n, tile, addr);
}

/*
 * The partition block b of a pass works on: b, or nblk - 1 - b for rev.
 * Passes alternate (bitonic.cu): blocks run roughly in index order, so the
 * partitions a pass writes last are the ones the next pass reads first,
 * and part of them (up to the L2's size) is still in L2, dirty: read from
 * there, and written over before it ever goes back to device memory.
 */
template <class IX>
__device__ __forceinline__ IX pass_order(IX b, IX nblk, int rev)
{
	return rev ? nblk - 1 - b : b;
}

/* A shared-memory or chained pass (high_body): block b works on partition
 * pass_order(b) of nblk. */
template <class T, class C, int H, bool TAIL, class IX>
__global__ void __launch_bounds__(1 << C::NTB, C::MINB) k_bitonic_high(T *__restrict__ d, IX n, int s, int lo,
									 IX nblk, int rev)
{
	constexpr int TB = C::TB, c = TB - H;
	constexpr uint32_t cmask = (1u << c) - 1;
	static_assert(H >= 1 && c >= Tr<T>::WB, "a shared-memory pass keeps WB low bits for coalescing");
	static_assert(C::RB <= Tr<T>::WB + 1, "every register group of the pass then spans RB whole bits");
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	const int hi = lo + H - 1, mid = lo - c, sb = s - 1;
	auto xblk_of = [&](IX b) -> IX { return ((b & (((IX)1 << mid) - 1)) << c) | ((b >> mid) << (hi + 1)); };
	const IX xblk = xblk_of(pass_order((IX)blockIdx.x, nblk, rev));
	if (((xblk >> sb) << sb) >= n)
		return; /* every element of the partition is virtual */
	/* the partition's largest address: its non-mirrored part ends at
	 * xblk with every Γ bit (below s - 1) set, its mirrored part starts
	 * there (x ^ (2^(s-1) - 1) of its lowest x); no element virtual
	 * (FULL in high_body) when that is below n */
	const IX hmask = ((IX)1 << sb) - 1, gmask = (IX)cmask | ((((IX)1 << H) - 1) << lo);
	const IX amax = TAIL || hi == sb ? max(xblk | (gmask & hmask), (xblk | ((IX)1 << sb)) ^ hmask)
			: ((xblk >> sb) & 1) ? xblk ^ hmask
					      : xblk | gmask;
	if (amax >= n) {
		if (TAIL || hi == sb)
			high_body<T, C, H, 2, TAIL, false, IX>(d, n, xblk, lo, sb, tile);
		else if ((xblk >> sb) & 1)
			high_body<T, C, H, 1, false, false, IX>(d, n, xblk, lo, sb, tile);
		else
			high_body<T, C, H, 0, false, false, IX>(d, n, xblk, lo, sb, tile);
	} else if (TAIL || hi == sb) {
		high_body<T, C, H, 2, TAIL, true, IX>(d, n, xblk, lo, sb, tile);
	} else if ((xblk >> sb) & 1) {
		high_body<T, C, H, 1, false, true, IX>(d, n, xblk, lo, sb, tile);
	} else {
		high_body<T, C, H, 0, false, true, IX>(d, n, xblk, lo, sb, tile);
	}
}

/*
 * The last pass of stage s > TB: its TB steps on the tile's own bits
 * (Γ = {0..TB-1}, one aligned tile per block, Algorithm 3 of the paper). It
 * is k_bitonic_high with hi = TB - 1, lo = 0 made into its own kernel, so
 * that its register groups are fixed at compile time (every shared-memory
 * index folds to a constant offset) and the block's direction (bit s - 1
 * of its x, the same for the whole tile) picks a min/max order at compile
 * time instead of complementing every value twice. In mirrored
 * coordinates the tile's address is xb ^ e for the block's xb (phi_s
 * flips all of e's bits or none).
 */
template <class T, class C, bool DESC, bool FULL, class IX>
__device__ __forceinline__ void low_body(T *__restrict__ d, IX n, IX xb, T *tile)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB, NG = (TB + RB - 1) / RB;
	constexpr uint32_t NT = 1u << C::NTB;
	const uint32_t tid = threadIdx.x;
	/* xb ^ e, as arithmetic (high_body): xb's low TB bits are all 1
	 * where the tile is mirrored (DESC), all 0 where it is not */
	auto addr = [xb](uint32_t ebv, uint32_t mv) -> IX {
		return DESC ? xb - (IX)ebv - (IX)mv : xb + (IX)ebv + (IX)mv;
	};
	bool in_smem = false;
#pragma unroll
	for (int gi = 0; gi < NG; ++gi) {
		const int top = TB - 1 - gi * RB, g = top - RB + 1 > 0 ? top - RB + 1 : 0, nb = top - g + 1;
		const uint32_t eb = (tid & ((1u << g) - 1)) | ((tid >> g) << (g + RB));
		T v[R];
		group_load<T, RB, WB, FULL, IX>(v, gi == 0, eb, g, d, n, tile, addr);
#pragma unroll
		for (int k = RB - 1; k >= 0; --k)
			if (k < nb) {
#pragma unroll
				for (int m = 0; m < R; ++m)
					if (!(m & (1 << k))) {
						if (DESC)
							Word<T>::cx(v[m | (1 << k)], v[m]);
						else
							Word<T>::cx(v[m], v[m | (1 << k)]);
					}
			}
		in_smem = group_store<T, RB, WB, FULL, IX>(v, gi == NG - 1, eb, g, d, n, tile, addr);
	}
	if (in_smem)
		tile_store<T, RB, WB, NT, FULL, IX>(d, n, tile, addr);
}

/* Block b works on the tile at pass_order(b) 2^TB. */
template <class T, class C, class IX>
__global__ void __launch_bounds__(1 << C::NTB, C::MINB) k_bitonic_low(T *__restrict__ d, IX n, int s, IX nblk, int rev)
{
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	const int sb = s - 1;
	const IX xblk = pass_order((IX)blockIdx.x, nblk, rev) << C::TB;
	if (((xblk >> sb) << sb) >= n)
		return; /* every element of this tile is virtual */
	/* FULL when the tile's largest address is below n */
	if ((xblk >> sb) & 1) {
		const IX xb = xblk ^ (((IX)1 << sb) - 1);
		if (xb < n)
			low_body<T, C, true, true, IX>(d, n, xb, tile);
		else
			low_body<T, C, true, false, IX>(d, n, xb, tile);
	} else if ((xblk | ((IX)1 << C::TB) - 1) < n) {
		low_body<T, C, false, true, IX>(d, n, xblk, tile);
	} else {
		low_body<T, C, false, false, IX>(d, n, xblk, tile);
	}
}

} // namespace gs_bitonic

#endif
