/*
 * bitonic.cu - in-place bitonic sorting network on the GPU, K-model style.
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
 * stores it back. With |Γ| = log2 k the sort needs about
 * sum_s ceil(s / log k) ~ L^2 / (2 log k) passes instead of L(L+1)/2.
 * Section 5's k-coalesced condition: the low index bits are always in Γ, so
 * a warp's global loads and stores hit contiguous 128-byte lines.
 *
 * Here:
 *   - tile (Γ-partition) = 2^TB elements in shared memory (32 KiB per
 *     block for u32 and u64 by default),
 *   - pass 0 ("local"): every aligned tile is fully sorted (stages 1..TB),
 *   - the steps of stages s > TB are covered by three kinds of passes,
 *     chosen by plan() (dynamic programming for the fewest passes, or
 *     over a cost model of measured pass times): a shared-memory pass
 *     takes up to TB - CB consecutive steps of a stage (Γ = {0..c-1} ∪
 *     {lo..hi}, the c >= CB low bits kept for coalescing), the tile-bits
 *     pass a stage's last TB steps (Γ = {0..TB-1}), and a chained pass a
 *     stage's last c steps together with the next stage's first TB - c
 *     (high_body, TAIL), so that a pass whose Γ must hold the low bits
 *     anyway does TB steps, not TB - CB; or register-only passes above
 *     the tile (configuration GREG).
 *   - every kernel has its register groups and comparator directions fixed
 *     at compile time (templates on the configuration and the pass width),
 *     and a partition with no virtual element (all but a few, FULL) takes
 *     its device and shared-memory addresses as a per-thread base plus
 *     constants, with no per-element check: ncu had the passes bound by the
 *     integer ALU pipe, mostly on that index arithmetic; without it they
 *     cost about as much as a copy of the data (bench/NOTES.md section 4).
 *   - every other pass runs its blocks in reverse order (pass_order), so
 *     that it starts on the partitions the one before left in L2.
 *   - inside a pass each thread holds R = 2^RB elements of the tile in
 *     registers and performs RB consecutive steps there; the tile is
 *     re-partitioned among threads through shared memory (swizzled: no bank
 *     conflicts) between register groups, so shared-memory traffic is 1/RB
 *     of one access per step.
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
#include <stdlib.h>

#include "bitonic.cuh"

namespace {

/*
 * A kernel configuration: TB tile bits (the paper's k = 2^TB elements per
 * block, in shared memory), RB register bits (2^RB elements per thread, so
 * a block has 2^(TB - RB) threads), MINB blocks per SM asked of the
 * compiler (__launch_bounds__), GREG: 0 = the steps of a stage on bits >= TB
 * go through shared-memory passes of up to TB - WB bits; g > 0 = through
 * register-only passes of up to g bits (k_bitonic_reg: no shared memory, no
 * barrier, every thread streams 2^g elements), which trade more passes for
 * passes that run at streaming speed. CB: below.
 */
template <int TB_, int RB_, int MINB_, int GREG_, int CB_ = 0, int CHAIN_ = 1, int LMINB_ = 0, int STG_ = -1,
	  int PF_ = 0, int EQC_ = 0, int ALT_ = 1>
struct BCfg {
	/* CB: low index bits a shared-memory pass keeps in its Γ (a warp then
	 * reads runs of 2^CB consecutive elements); 0 = WB, a whole 128-byte
	 * line. Fewer allow wider passes (TB - CB bits) at the price of
	 * 32-byte-sector coalescing. */
	enum { TB = TB_, RB = RB_, NTB = TB_ - RB_, MINB = MINB_, GREG = GREG_, CB = CB_ };
	/* CHAIN: 1 = the plan may chain a stage's last steps with the next
	 * stage's first ones in one pass (plan(), PASS_CHAIN); 0 = every stage
	 * ends with its own pass on the tile's bits */
	enum { CHAIN = CHAIN_ };
	/* STG: a chained pass reads its first tail group straight from device
	 * memory when that group's lanes are runs of at least 2^STG consecutive
	 * elements, else stages the tile through shared memory first;
	 * -1 = WB (whole 128-byte lines) */
	enum { STG = STG_ };
	/* PF: 1 = the pass kernels after the tile sort run as persistent
	 * blocks that copy their next Γ-partition into a second shared-memory
	 * tile (cp.async) while they work on the current one (k_bitonic_high,
	 * k_bitonic_low; twice the shared memory per block; always the
	 * bounds-checked addressing, never FULL). Measured slower on the H200
	 * (Def's comment): the passes were not waiting on device memory but
	 * on the integer ALU pipe, which the copy through P only loads more;
	 * kept as a profiling knob (bench/gpu_bench) */
	enum { PF = PF_ };
	/* EQC: 1 = plan() counts every pass the same (fewest passes), for
	 * profiling against the fitted costs of pass_cost() */
	enum { EQC = EQC_ };
	/* ALT: 1 = every other pass runs its blocks in reverse order
	 * (pass_order), so that it starts on what the previous pass left in
	 * L2; 0 = all in index order (profiling) */
	enum { ALT = ALT_ };
	/* blocks per SM for the tile sort: 2 when 128 registers a thread allow
	 * it (its compile-time groups want well over 100), else 1; LMINB_ > 0
	 * sets it (profiling). 3 for u32 (80 registers) measured no faster
	 * even made spill-free: 2.34 against 2.32 ms (bench/results/gpu-
	 * bitonic-profile-h200-2026-11-23c.md) */
	enum { LMINB = LMINB_ ? LMINB_ : (1 << NTB) <= 256 ? 2 : 1 };
	static_assert(RB_ >= 2 && RB_ <= 6 && TB_ - RB_ >= 5 && TB_ - RB_ <= 10, "bad bitonic config");
	static_assert(GREG_ >= 0 && GREG_ <= 5, "bad register pass width");
};

template <class T> struct Tr;
/* WB: log2 of elements per 128-byte line; Def: the configuration bitonic_sort uses. */
/* Def: the fastest of the configurations timed on the H200 at 2^28
 * (bench/gpu_bench profile 28; bench/results/gpu-bitonic-profile-h200-
 * 2026-11-22.md, -2026-11-23.md, -2026-11-23b.md and -2026-11-23c.md).
 * Since the three-group tails stopped spilling (TFLIP in high_body), every
 * pass costs about the same and the fewest passes win (EQC): u32 18.4 ms
 * in 31 passes against 18.8 in 32 with the fitted costs, u64 42.3 against
 * 43.1 in 35; every other pass in reverse block order (ALT) another ~0.1 ms
 * (u32) and ~1 ms (u64); the tile sort without complements (local_group)
 * 2.32 -> 2.07 ms: u32 18.0 ms (0.30x CUB radix), u64 41.9 ms. 64
 * registers at 4 blocks per SM (no spill in the passes EQC uses): 18.45
 * against 18.47 ms, no gain; a shared-memory pass keeping 4 low bits (CB
 * 4, 64-byte runs: 30 passes): 20.0 ms, its passes on high bits 0.66-0.81
 * ms; u64 with CB 3: 44.4 ms. Before: with the tile sort and the
 * shared-memory passes grouped at compile time and chained passes, u32
 * 18.8 ms with 2^13 tiles, 3 blocks per SM and chained passes reading
 * their first tail group straight from device memory down to 32-byte runs
 * (STG 3; STG 2, down to 16-byte runs: 19.0 ms, its C6 passes 0.62 ms
 * against 0.52-0.56; before FULL, STG 2 had been the faster, 22.4 ms
 * against 22.6 with whole lines only; 32 passes; planner counting every
 * pass the same: 20.0 ms in 31, the tails of three groups 0.89 ms; 2 blocks
 * per SM: 24.0 ms; without chaining 25.2 ms in 38; register-only passes
 * above the tile: 28.1 ms in 46; PF: 27.4 ms at 3 blocks per SM, 21.1 at
 * 2; 2^14 tiles of 64 elements a thread: 29.2 ms in 27, 2^15: 30.7 ms in
 * 24, both spilling) and u64 43.1 ms with 2^12 tiles and 4 blocks per SM
 * (35 passes; 52.3 ms in 41 without chaining; STG 2 or 0 no faster; PF
 * 54-56 ms). */
template <> struct Tr<uint32_t> {
	enum { WB = 5 };
	typedef BCfg<13, 5, 3, 0, 0, 1, 0, 3, 0, 1> Def;
	static __device__ __forceinline__ uint32_t inf() { return 0xffffffffu; }
	static __device__ __forceinline__ void cx(uint32_t &a, uint32_t &b)
	{
		uint32_t l = min(a, b), h = max(a, b);
		a = l;
		b = h;
	}
	static __device__ __forceinline__ void flip(uint32_t &a) { a = ~a; }
};
template <> struct Tr<uint64_t> {
	enum { WB = 4 };
	typedef BCfg<12, 4, 4, 0, 0, 1, 0, -1, 0, 1> Def;
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
template <> struct Tr<gs_u128> {
	enum { WB = 3 };
	typedef BCfg<12, 3, 2, 0> Def;
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

/* Low index bits kept in a shared-memory pass's Γ under configuration C. */
template <class T, class C>
__host__ __device__ constexpr int coal_bits() { return C::CB ? (int)C::CB : (int)Tr<T>::WB; }

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
 * that folds into the shared-memory instruction: the ncu profile had the
 * integer ALU pipe as the passes' limit, and the index arithmetic of
 * swz(eb | mv) as an important part of its load (bench/NOTES.md).
 */
template <int RB, int WB>
__device__ __forceinline__ uint32_t swz2(uint32_t eb, uint32_t mv, uint32_t ebits)
{
	const uint32_t z = ebits | ((1u << WB) - 1), sm = swz<RB, WB>(mv);
	return (swz<RB, WB>(eb) ^ (sm & z)) + (sm & ~z);
}

/* Mask (bit m set) of the register slots m whose tile index has bit k set. */
__device__ __forceinline__ uint32_t slot_pattern(int k)
{
	switch (k) {
	case 0: return 0xaaaaaaaau;
	case 1: return 0xccccccccu;
	case 2: return 0xf0f0f0f0u;
	case 3: return 0xff00ff00u;
	default: return 0xffff0000u;
	}
}

/*
 * Algorithm 3 of the paper, in registers: v[m] holds tile element
 * eb | (m << g); perform the steps on local bits lbhi down to lblo
 * (tile bits g + lb). Comparator (e, e | 2^q) is descending iff bit dpos of
 * e, xor dblock, is set (dpos 31: never; e < 2^15); a step on bit dpos itself
 * (the first step of a merge stage, tile bit `top`) is ascending.
 */
template <class T, int RB>
__device__ __forceinline__ void reg_steps(T (&v)[1 << RB], uint32_t eb, int g, int top, int lbhi, int lblo,
					  int dpos, uint32_t dblock)
{
	constexpr int R = 1 << RB;
	constexpr uint32_t RMASK = R == 32 ? 0xffffffffu : ((1u << R) - 1);
	int lb = lbhi;
	if (top == dpos) {
#pragma unroll
		for (int k = RB - 1; k >= 0; --k)
			if (k == lbhi) {
#pragma unroll
				for (int m = 0; m < R; ++m)
					if (!(m & (1 << k)))
						Tr<T>::cx(v[m], v[m | (1 << k)]);
			}
		--lb;
	}
	if (lb < lblo)
		return;
	/* descending comparators: complement both values, sort ascending,
	 * complement back (both ends of a pair share the direction) */
	uint32_t dm;
	if (dpos >= g && dpos < g + RB)
		dm = slot_pattern(dpos - g);
	else
		dm = ((eb >> dpos) & 1) ? 0xffffffffu : 0u;
	if (dblock)
		dm = ~dm;
	dm &= RMASK;
	if (dm) {
#pragma unroll
		for (int m = 0; m < R; ++m)
			if ((dm >> m) & 1)
				Tr<T>::flip(v[m]);
	}
#pragma unroll
	for (int k = RB - 1; k >= 0; --k)
		if (k <= lb && k >= lblo) {
#pragma unroll
			for (int m = 0; m < R; ++m)
				if (!(m & (1 << k)))
					Tr<T>::cx(v[m], v[m | (1 << k)]);
		}
	if (dm) {
#pragma unroll
		for (int m = 0; m < R; ++m)
			if ((dm >> m) & 1)
				Tr<T>::flip(v[m]);
	}
}

/*
 * Pass 0, one stage s of the tile sort (RB < s <= TB) on the tile in shared
 * memory, register group GI of it, everything known at compile time (the
 * groups' bits fold every shared-memory index to a constant offset from a
 * per-group base; the low pass below showed that this more than halves an
 * instruction-bound pass). The network is the form the passes use, where
 * every comparator puts the minimum at the lower index: the first step of
 * stage s compares i with i ^ (2^s - 1), the others i with i ^ 2^q. Group
 * 0 holds bits s-1..s-RB and reads the tile in mirrored coordinates (file
 * comment: a slot with bit s - 1 set holds element y ^ (2^(s-1) - 1)), so
 * that its first step is a plain comparator and its later ones descend in
 * the slots where bit s - 1 is set, both fixed at compile time (DIR 2);
 * the later groups are in plain coordinates, every comparator ascending.
 * No value is ever complemented: the ALU pipe bounds the tile sort, and
 * the complements of the classic form (descending where bit s of i is
 * set; a thread property that varies inside a warp below stage 10) cost
 * ~7 of its ~116 ALU operations per element.
 */
template <class T, int RB, int KHI, int KLO, int DIR>
__device__ __forceinline__ void group_steps(T (&v)[1 << RB]);

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
 * Pass 0: sort every aligned tile d[b*2^TB ..) ascending, stages 1..TB
 * inside shared memory: a single Γ-partition per block with
 * Γ = {0..TB-1} (Definition 2 with the lowest bits: coalesced).
 * Elements >= n are +infinity, not loaded, not stored.
 */
template <class T, class C>
__global__ void __launch_bounds__(1 << C::NTB, C::LMINB) k_bitonic_local(T *__restrict__ d, uint64_t n)
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
			tile[swz2<RB, WB>(tid, q * NT, NT - 1)] = d[base + tid + q * NT];
	} else {
#pragma unroll 8
		for (int q = 0; q < R; ++q) {
			uint32_t e = tid + q * NT;
			tile[swz2<RB, WB>(tid, q * NT, NT - 1)] = base + e < n ? d[base + e] : Tr<T>::inf();
		}
	}
	__syncthreads();
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
					Tr<T>::cx(v[m], v[m ^ ((1 << s) - 1)]);
#pragma unroll
			for (int k = s - 2; k >= 0; --k) {
#pragma unroll
				for (int m = 0; m < R; ++m)
					if (!(m & (1 << k)))
						Tr<T>::cx(v[m], v[m | (1 << k)]);
			}
		}
#pragma unroll
		for (int m = 0; m < R; ++m)
			tile[swz2<RB, WB>(eb, (uint32_t)m, ((1u << TB) - 1) & ~(R - 1u))] = v[m];
	}
	local_group<T, C, RB + 1, 0>(tile);
	__syncthreads();
	if (full) {
#pragma unroll 8
		for (int q = 0; q < R; ++q)
			d[base + tid + q * NT] = tile[swz2<RB, WB>(tid, q * NT, NT - 1)];
	} else {
#pragma unroll 8
		for (int q = 0; q < R; ++q) {
			uint32_t e = tid + q * NT;
			if (base + e < n)
				d[base + e] = tile[swz2<RB, WB>(tid, q * NT, NT - 1)];
		}
	}
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
						Tr<T>::cx(v[m | (1 << k)], v[m]);
					else
						Tr<T>::cx(v[m], v[m | (1 << k)]);
				}
		}
}

/*
 * The register-group moves of high_body and low_body, which differ only in
 * where tile element e lives in device memory: addr(eb, mv) for e = eb | mv
 * (the two with no bit in common: a thread's part and a register slot's,
 * which is a constant once the loops are unrolled), an index that is n or
 * more for a virtual element (the padding to a power of two, never
 * stored). FULL: the caller has checked that no element of the partition
 * is virtual, so there is no per-element check (see high_body). Group gi's R = 2^RB elements of this thread are the tile
 * elements eb | m << g (m < R). group_load: the first group straight from
 * device memory (virtual ones as +inf), the others from the tile, after a
 * barrier. group_store: the last group straight to device memory when its
 * lanes are consecutive (g >= WB: coalesced), else into the tile; returns
 * whether it went to the tile, which tile_store then writes back.
 */
template <class T, int RB, int WB, bool FULL, class IX, class A>
__device__ __forceinline__ void group_load(T (&v)[1 << RB], bool first, uint32_t eb, int g, const T *__restrict__ d,
					   IX n, const T *tile, A addr)
{
	if (first) {
#pragma unroll
		for (int m = 0; m < (1 << RB); ++m) {
			const IX a = addr(eb, (uint32_t)m << g);
			v[m] = FULL || a < n ? d[a] : Tr<T>::inf();
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
		 * across the steps (u32: 264-744 bytes of spills at 80 registers);
		 * recomputed they cost an IMAD each on the FMA pipe */
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
		tile[swz2<RB, WB>(threadIdx.x, q * NT, NT - 1)] = FULL || a < n ? d[a] : Tr<T>::inf();
	}
}

/*
 * Prefetch (BCfg PF): a pass kernel's block copies its next Γ-partition from
 * device memory into a second shared-memory tile P with cp.async while it
 * works on the current one, so that the loads of one partition overlap the
 * register groups, exchanges and stores of the previous one in every block,
 * not only across the few blocks an SM holds. P is filled in 16-byte chunks
 * (CE = 16 / sizeof(T) elements, consecutive in the tile and in device
 * memory: the chunk lies inside the c >= CB low bits of Γ); in a mirrored
 * half (file comment) a chunk's addresses run backwards, so its elements
 * land in P in reverse order: slot pslot(e) = pswz(e) ^ (CE - 1) there.
 * pswz permutes whole chunks so that the first register group's read of P
 * is free of bank conflicts: for a first group whose lanes are tile bits
 * 0..G0-1 and G0+RB.. (G0 < WB), tile bits G0..WB-1 are xor-ed with the
 * lanes' upper bits; for G0 >= WB (lanes are consecutive elements) or a
 * group read through the swizzled tile (G0 < LCE) P is linear.
 */
__device__ __forceinline__ __attribute__((unused)) void cp_async16(void *dst, const void *src)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((uint32_t)__cvta_generic_to_shared(dst)),
		     "l"(src)
		     : "memory");
}

/* One element of sizeof(T) bytes (4, 8 or 16), for a base that is not
 * 16-byte aligned. */
template <int BYTES>
__device__ __forceinline__ void cp_async_elem(void *dst, const void *src)
{
	if constexpr (BYTES == 16)
		cp_async16(dst, src);
	else
		asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"((uint32_t)__cvta_generic_to_shared(dst)),
			     "l"(src), "n"(BYTES)
			     : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

template <class T> __host__ __device__ constexpr int log2_ce() { return sizeof(T) == 4 ? 2 : sizeof(T) == 8 ? 1 : 0; }

template <class T, int RB, int G0>
__device__ __forceinline__ uint32_t pswz(uint32_t e)
{
	constexpr int WB = Tr<T>::WB;
	if constexpr (G0 >= WB || G0 < log2_ce<T>())
		return e;
	else
		return e ^ (((e >> (G0 + RB)) & ((1u << (WB - G0)) - 1)) << G0);
}

/*
 * Issue (not wait for) the cp.async copies of one Γ-partition into P: tile
 * element e is x = xof(e) in the stage's mirrored coordinates (address
 * x ^ (2^sb - 1) where bit sb of x is set, else x); elements at addresses
 * >= n are not copied. The caller commits the group.
 */
template <class T, class C, int G0, class IX, class XF>
__device__ __forceinline__ void prefetch_tile(const T *__restrict__ d, IX n, T *P, XF xof, int sb)
{
	constexpr int CE = 1 << log2_ce<T>();
	constexpr uint32_t NT = 1u << C::NTB, NCH = (1u << C::TB) / CE;
	const IX hmask = ((IX)1 << sb) - 1;
	if ((reinterpret_cast<uintptr_t>(d) & 15) == 0) {
#pragma unroll
		for (uint32_t q = 0; q < NCH / NT; ++q) {
			const uint32_t e0 = (threadIdx.x + q * NT) * CE;
			const IX x = xof(e0);
			const bool rev = (x >> sb) & 1;
			const IX st = rev ? (x ^ hmask) - (CE - 1) : x;
			if (st + (CE - 1) < n) {
				cp_async16(P + pswz<T, C::RB, G0>(e0), d + st);
			} else {
				/* the chunk that holds element n - 1: its real
				 * elements one by one (a 16-byte read would pass
				 * the end of the array), each to the slot the
				 * chunk copy would give it */
#pragma unroll
				for (int i = 0; i < CE; ++i)
					if (st + i < n)
						cp_async_elem<sizeof(T)>(P + (pswz<T, C::RB, G0>(e0) | (uint32_t)i), d + st + i);
			}
		}
	} else {
#pragma unroll 8
		for (uint32_t q = 0; q < (1u << C::RB); ++q) {
			const uint32_t e = threadIdx.x + q * NT;
			const IX x = xof(e);
			const bool rev = (x >> sb) & 1;
			const IX a = rev ? x ^ hmask : x;
			if (a < n)
				cp_async_elem<sizeof(T)>(P + (pswz<T, C::RB, G0>(e) ^ (rev ? CE - 1 : 0)), d + a);
		}
	}
}

/* A first register group (tile elements eb | m << g) from P (after the
 * barrier that follows cp_async_wait_all): virtual elements as +inf. */
template <class T, int RB, int G0, class IX, class XF>
__device__ __forceinline__ void group_load_pf(T (&v)[1 << RB], uint32_t eb, int g, IX n, const T *P, XF xof, int sb)
{
	constexpr int CE = 1 << log2_ce<T>();
	const IX hmask = ((IX)1 << sb) - 1;
#pragma unroll
	for (int m = 0; m < (1 << RB); ++m) {
		const uint32_t e = eb | ((uint32_t)m << g);
		const IX x = xof(e);
		const bool rev = (x >> sb) & 1;
		const IX a = rev ? x ^ hmask : x;
		v[m] = a < n ? P[pswz<T, RB, G0>(e) ^ (rev ? CE - 1 : 0)] : Tr<T>::inf();
	}
}

/* The whole of P into the swizzled tile (for a first group whose lanes are
 * runs shorter than a chunk): thread tid moves elements tid + q NT. */
template <class T, int RB, int WB, uint32_t NT, class IX, class XF>
__device__ __forceinline__ void tile_from_pf(T *tile, IX n, const T *P, XF xof, int sb)
{
	constexpr int CE = 1 << log2_ce<T>();
	const IX hmask = ((IX)1 << sb) - 1;
#pragma unroll
	for (int q = 0; q < (1 << RB); ++q) {
		const uint32_t e = threadIdx.x + q * NT;
		const IX x = xof(e);
		const bool rev = (x >> sb) & 1;
		const IX a = rev ? x ^ hmask : x;
		tile[swz<RB, WB>(e)] = a < n ? P[e ^ (rev ? CE - 1 : 0)] : Tr<T>::inf();
	}
}

/*
 * One pass of stage s (merge of sorted runs of 2^(s-1) into runs of 2^s):
 * the H steps on index bits hi..lo (lo = hi - H + 1), on Γ-partitions with
 * Γ = {0..c-1} ∪ {lo..hi}, c = TB - H (Definitions 1-3 and Algorithm 2 of
 * the paper; c >= CB: section 5's k-coalesced condition). Tile element e:
 * bits 0..c-1 -> x bits 0..c-1, bits c.. -> x bits lo..hi; the block
 * number fills the x bits outside Γ. Address = phi_s(x) (file comment).
 * H is a template parameter so that the register groups (tile bits TB-1..c,
 * RB at a time, the first loaded straight from device memory, the last
 * stored straight back when its lanes are consecutive) and their
 * shared-memory offsets are compile-time constants, as in k_bitonic_low:
 * the runtime-grouped version of this pass was instruction-bound (1.1 ms
 * for 6-8 bits against 0.53 ms for a register pass at 2^28 u32).
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
/* The prefetch layout's G0 (pswz) for high_body<T, C, H, ., TAIL>: the
 * tail's first group when it reads P directly, else linear. */
template <class T, class C, int H, bool TAIL>
__host__ __device__ constexpr int high_pf_g0()
{
	return TAIL && C::TB - H - C::RB >= log2_ce<T>() ? C::TB - H - C::RB : (int)Tr<T>::WB;
}

template <class T, class C, int H, int DIR0, bool TAIL, bool FULL, class IX, class NX>
__device__ __forceinline__ void high_body(T *__restrict__ d, IX n, IX xblk, int lo, int sb, T *tile, const T *P,
					  NX next)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB, c = TB - H, NG = (H + RB - 1) / RB;
	constexpr int G0 = high_pf_g0<T, C, H, TAIL>();
	constexpr uint32_t NT = 1u << C::NTB, cmask = (1u << c) - 1;
	const uint32_t tid = threadIdx.x;
	const IX hmask = ((IX)1 << sb) - 1;
	auto xof = [&](uint32_t e) -> IX { return xblk | (e & cmask) | ((IX)(e >> c) << lo); };
	/*
	 * Address of tile element eb | mv. The ncu profile of these passes
	 * (bench/NOTES.md) has the integer ALU pipe as their limit, most of it
	 * the bit arithmetic below (x, then phi_s) and the check against n.
	 * For a FULL partition the same address is taken as arithmetic:
	 * tile bits map to x bits by "bits below c stay, bit c + j goes to
	 * lo + j", so x(eb | mv) = xblk + off(eb) + off(mv) with off(v) =
	 * (v & cmask) + (v >> c) 2^lo (no bits in common); where phi_s
	 * mirrors (bit s - 1 of x set: the top tile bit TB - 1 when DIR0 is 2,
	 * the whole block when it is 1), x ^ (2^(s-1) - 1) = K1 - off(e
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
		/* first group's lanes not runs of 2^STG consecutive elements
		 * (with PF: shorter than P's chunks) */
		constexpr bool staged =
			C::PF ? c - RB < log2_ce<T>() : c - RB < (C::STG < 0 ? WB : (int)C::STG);
		if constexpr (staged && C::PF) {
			tile_from_pf<T, RB, WB, NT, IX>(tile, n, P, xof, sb);
			next();
		} else if (staged) {
			tile_load<T, RB, WB, NT, FULL, IX>(d, n, tile, addr);
		}
#pragma unroll
		for (int gi = 0; gi < NTG; ++gi) {
			const int top = c - 1 - gi * RB, g = top - RB + 1 > 0 ? top - RB + 1 : 0, khi = top - g;
			const uint32_t eb = (tid & ((1u << g) - 1)) | ((tid >> g) << (g + RB));
			T v[R];
			if (C::PF && gi == 0 && !staged) {
				group_load_pf<T, RB, G0, IX>(v, eb, g, n, P, xof, sb);
				next();
			} else {
				group_load<T, RB, WB, FULL, IX>(v, gi == 0 && !staged, eb, g, d, n, tile, addr);
			}
			/* TFLIP: a descending thread (warp-uniform: tile bit TB-1 is
			 * tid's top bit) keeps its values complemented through the
			 * tail and sorts them ascending, so the code has one network,
			 * not one per direction: with two, ptxas spilled in u32's
			 * three-group tails (C1, C2: 0.89 ms against ~0.53 for the
			 * other passes); with one, u64's tails spill instead (100-148
			 * bytes against 0-8), so u64 keeps the two */
			constexpr bool TFLIP = sizeof(T) == 4;
			if (TFLIP && gi == 0 && tdesc) {
#pragma unroll
				for (int m = 0; m < R; ++m)
					Tr<T>::flip(v[m]);
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
					Tr<T>::flip(v[m]);
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
		if (C::PF && gi == 0 && !TAIL) {
			group_load_pf<T, RB, G0, IX>(v, eb, g, n, P, xof, sb);
			next();
		} else {
			group_load<T, RB, WB, FULL, IX>(v, gi == 0 && !TAIL, eb, g, d, n, tile, addr);
		}
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
		auto el = [&](int m) -> uint32_t { return eb | ml(m); };
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
 * Passes alternate (bitonic_sort_cfg): blocks run roughly in index order,
 * so the partitions a pass writes last are the ones the next pass reads
 * first, and part of them (up to the L2's 50 MB of the 2 GiB a 2^28 u32
 * pass moves) is still in L2, dirty: read from there, and written over
 * before it ever goes back to device memory.
 */
template <class IX>
__device__ __forceinline__ IX pass_order(IX b, IX nblk, int rev)
{
	return rev ? nblk - 1 - b : b;
}

/*
 * Without PF: block b works on partition b (nblk blocks), or nblk - 1 - b
 * when rev is set (below). With PF: a grid
 * of persistent blocks, block b on partitions b, b + gridDim.x, ...: at
 * each one it waits for P, reads its first register group from it, and
 * (next) issues the copy of its following partition into P before the
 * rest of the pass.
 */
template <class T, class C, int H, bool TAIL, class IX>
__global__ void __launch_bounds__(1 << C::NTB, C::MINB) k_bitonic_high(T *__restrict__ d, IX n, int s, int lo,
									 IX nblk, int rev)
{
	constexpr int TB = C::TB, c = TB - H;
	constexpr uint32_t cmask = (1u << c) - 1;
	static_assert(H >= 1 && c >= coal_bits<T, C>(), "a shared-memory pass keeps CB low bits for coalescing");
	static_assert(C::RB <= coal_bits<T, C>() + 1, "every register group of the pass then spans RB whole bits");
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	const int hi = lo + H - 1, mid = lo - c, sb = s - 1;
	auto xblk_of = [&](IX b) -> IX { return ((b & (((IX)1 << mid) - 1)) << c) | ((b >> mid) << (hi + 1)); };
	/* false: every element of the partition is virtual */
	auto live = [&](IX xblk) { return ((xblk >> sb) << sb) < n; };
	auto body = [&](IX xblk, const T *P, auto next) {
		if (TAIL || hi == sb)
			high_body<T, C, H, 2, TAIL, false, IX>(d, n, xblk, lo, sb, tile, P, next);
		else if ((xblk >> sb) & 1)
			high_body<T, C, H, 1, false, false, IX>(d, n, xblk, lo, sb, tile, P, next);
		else
			high_body<T, C, H, 0, false, false, IX>(d, n, xblk, lo, sb, tile, P, next);
	};
	if constexpr (!C::PF) {
		const IX xblk = xblk_of(pass_order((IX)blockIdx.x, nblk, rev));
		if (!live(xblk))
			return;
		/* the partition's largest address: its non-mirrored part ends at
		 * xblk with every Γ bit (below s - 1) set, its mirrored part
		 * starts there (x ^ (2^(s-1) - 1) of its lowest x); no element
		 * virtual when that is below n (FULL in high_body) */
		const IX hmask = ((IX)1 << sb) - 1, gmask = (IX)cmask | ((((IX)1 << H) - 1) << lo);
		const IX amax = TAIL || hi == sb
					? max(xblk | (gmask & hmask), (xblk | ((IX)1 << sb)) ^ hmask)
					: ((xblk >> sb) & 1) ? xblk ^ hmask : xblk | gmask;
		auto none = [] {};
		if (amax >= n)
			body(xblk, nullptr, none);
		else if (TAIL || hi == sb)
			high_body<T, C, H, 2, TAIL, true, IX>(d, n, xblk, lo, sb, tile, nullptr, none);
		else if ((xblk >> sb) & 1)
			high_body<T, C, H, 1, false, true, IX>(d, n, xblk, lo, sb, tile, nullptr, none);
		else
			high_body<T, C, H, 0, false, true, IX>(d, n, xblk, lo, sb, tile, nullptr, none);
	} else {
		constexpr int G0 = high_pf_g0<T, C, H, TAIL>();
		T *P = tile + (1u << TB);
		auto fetch = [&](IX xblk) {
			prefetch_tile<T, C, G0, IX>(
				d, n, P, [&](uint32_t e) -> IX { return xblk | (e & cmask) | ((IX)(e >> c) << lo); }, sb);
		};
		IX b = blockIdx.x, xb = xblk_of(pass_order(b, nblk, rev));
		bool cur = b < nblk && live(xb);
		if (cur)
			fetch(xb);
		cp_async_commit();
		for (; b < nblk; b += gridDim.x) {
			const IX nb = b + gridDim.x, nxb = xblk_of(pass_order(nb, nblk, rev));
			const bool nxt = nb < nblk && live(nxb);
			cp_async_wait_all();
			__syncthreads(); /* P holds partition b; the tile is free */
			auto next = [&] {
				__syncthreads(); /* every thread has read P */
				if (nxt)
					fetch(nxb);
				cp_async_commit();
			};
			if (cur)
				body(xb, P, next);
			else
				next();
			xb = nxb;
			cur = nxt;
		}
	}
}

/*
 * The last pass of stage s > TB: its TB steps on the tile's own bits
 * (Γ = {0..TB-1}, one aligned tile per block, Algorithm 3 of the paper). It
 * is k_bitonic_high with hi = TB - 1, lo = 0 made into its own kernel
 * because these passes are the sort's instruction-bound part (ncu on the
 * H200: SM throughput 85%, DRAM 24%): here the register groups are fixed at
 * compile time, so every shared-memory index folds to a constant offset,
 * and the block's direction (bit s - 1 of its x, the same for the whole
 * tile) picks a min/max order at compile time instead of complementing
 * every value twice. In mirrored coordinates the tile's address is
 * xb ^ e for the block's xb (phi_s flips all of e's bits or none).
 */
template <class T, class C, bool DESC, bool FULL, class IX, class NX>
__device__ __forceinline__ void low_body(T *__restrict__ d, IX n, IX xb, T *tile, const T *P, NX next)
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
		if (C::PF && gi == 0) {
			/* P is linear (lanes are consecutive elements), its
			 * chunks reversed where the tile is (DESC) */
			constexpr int CE = 1 << log2_ce<T>();
#pragma unroll
			for (int m = 0; m < R; ++m) {
				const uint32_t e = eb | ((uint32_t)m << g);
				v[m] = addr(eb, (uint32_t)m << g) < n ? P[e ^ (DESC ? CE - 1 : 0)] : Tr<T>::inf();
			}
			next();
		} else {
			group_load<T, RB, WB, FULL, IX>(v, gi == 0, eb, g, d, n, tile, addr);
		}
#pragma unroll
		for (int k = RB - 1; k >= 0; --k)
			if (k < nb) {
#pragma unroll
				for (int m = 0; m < R; ++m)
					if (!(m & (1 << k))) {
						if (DESC)
							Tr<T>::cx(v[m | (1 << k)], v[m]);
						else
							Tr<T>::cx(v[m], v[m | (1 << k)]);
					}
			}
		in_smem = group_store<T, RB, WB, FULL, IX>(v, gi == NG - 1, eb, g, d, n, tile, addr);
	}
	if (in_smem)
		tile_store<T, RB, WB, NT, FULL, IX>(d, n, tile, addr);
}

/* Blocks and PF as in k_bitonic_high; partition b is the tile at b 2^TB. */
template <class T, class C, class IX>
__global__ void __launch_bounds__(1 << C::NTB, C::MINB) k_bitonic_low(T *__restrict__ d, IX n, int s, IX nblk, int rev)
{
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	const int sb = s - 1;
	/* false: every element of this tile is virtual */
	auto live = [&](IX xblk) { return ((xblk >> sb) << sb) < n; };
	auto body = [&](IX xblk, const T *P, auto next) {
		if ((xblk >> sb) & 1)
			low_body<T, C, true, false, IX>(d, n, xblk ^ (((IX)1 << sb) - 1), tile, P, next);
		else
			low_body<T, C, false, false, IX>(d, n, xblk, tile, P, next);
	};
	if constexpr (!C::PF) {
		const IX xblk = pass_order((IX)blockIdx.x, nblk, rev) << C::TB;
		if (!live(xblk))
			return;
		/* FULL when the tile's largest address is below n */
		auto none = [] {};
		if ((xblk >> sb) & 1) {
			const IX xb = xblk ^ (((IX)1 << sb) - 1);
			if (xb < n)
				low_body<T, C, true, true, IX>(d, n, xb, tile, nullptr, none);
			else
				low_body<T, C, true, false, IX>(d, n, xb, tile, nullptr, none);
		} else if ((xblk | ((IX)1 << C::TB) - 1) < n) {
			low_body<T, C, false, true, IX>(d, n, xblk, tile, nullptr, none);
		} else {
			low_body<T, C, false, false, IX>(d, n, xblk, tile, nullptr, none);
		}
	} else {
		T *P = tile + (1u << C::TB);
		auto fetch = [&](IX xblk) {
			prefetch_tile<T, C, Tr<T>::WB, IX>(d, n, P, [&](uint32_t e) -> IX { return xblk | e; }, sb);
		};
		auto xof = [&](IX b) { return pass_order(b, nblk, rev) << C::TB; };
		IX b = blockIdx.x;
		bool cur = b < nblk && live(xof(b));
		if (cur)
			fetch(xof(b));
		cp_async_commit();
		for (; b < nblk; b += gridDim.x) {
			const IX nb = b + gridDim.x;
			const bool nxt = nb < nblk && live(xof(nb));
			cp_async_wait_all();
			__syncthreads(); /* P holds tile b; the tile is free */
			auto next = [&] {
				__syncthreads(); /* every thread has read P */
				if (nxt)
					fetch(xof(nb));
				cp_async_commit();
			};
			if (cur)
				body(xof(b), P, next);
			else
				next();
			cur = nxt;
		}
	}
}

/*
 * A register-only pass of stage s: the G = hi - lo + 1 steps on index bits
 * hi..lo >= TB (all above the tile, so no thread shares an element with
 * another). Γ = {lo..hi} (Definition 2) with the Γ-partitions assigned one
 * per thread: thread t holds x = xb | (m << lo), m < 2^G, in registers, where
 * xb spreads t over the bits outside Γ, its low bits first, so a warp's 32
 * lanes read 32 consecutive elements for every m (section 5's k-coalesced
 * condition with the warp as the unit). No shared memory and no barrier: the
 * pass streams at the speed of device memory, at the price of G <= 5 steps
 * per pass instead of TB - WB.
 */
template <class T, int G, class IX>
__global__ void __launch_bounds__(256) k_bitonic_reg(T *__restrict__ d, IX n, int s, int hi, int lo)
{
	const IX t = (IX)blockIdx.x * 256u + threadIdx.x;
	const IX xb = (t & (((IX)1 << lo) - 1)) | ((t >> lo) << (hi + 1));
	const int sb = s - 1;
	if (((xb >> sb) << sb) >= n)
		return; /* every element of this partition is virtual */
	const IX hmask = ((IX)1 << sb) - 1;
	T v[1 << G];
	IX a[1 << G];
#pragma unroll
	for (int m = 0; m < (1 << G); ++m) {
		const IX x = xb | ((IX)m << lo);
		a[m] = ((x >> sb) & 1) ? x ^ hmask : x;
		v[m] = a[m] < n ? d[a[m]] : Tr<T>::inf();
	}
	/* in register coordinates the thread's elements are m << 0: the top
	 * step (bit hi == s - 1) is the ascending first step of the merge, the
	 * others are descending where bit s - 1 of x is set */
	if (hi == sb)
		reg_steps<T, G>(v, 0, 0, G - 1, G - 1, 0, G - 1, 0);
	else
		reg_steps<T, G>(v, 0, 0, G - 1, G - 1, 0, 31, (uint32_t)((xb >> sb) & 1));
#pragma unroll
	for (int m = 0; m < (1 << G); ++m)
		if (a[m] < n)
			d[a[m]] = v[m];
}

int ceil_log2(uint64_t n)
{
	int l = 0;
	while ((1ull << l) < n)
		++l;
	return l;
}

/* One pass of a plan: kind 0 sorts every tile (stages 1..TB), kind 1 is a
 * shared-memory pass on bits hi..lo of stage s, kind 2 a register pass,
 * kind 3 the pass on the tile's bits TB-1..0 that ends stage s, kind 4 a
 * chained pass: the last TB - (hi - lo + 1) steps of stage s - 1 (tile
 * bits below that count) and the first steps of stage s on bits hi..lo,
 * hi = s - 1 (high_body, TAIL). */
enum { PASS_LOCAL = 0, PASS_SMEM = 1, PASS_REG = 2, PASS_LOW = 3, PASS_CHAIN = 4 };

/* Split the H bits hi0 .. hi0 - H + 1 into ceil(H / w) nearly equal passes. */
template <class F>
void split_bits(int s, int hi0, int H, int w, int kind, F f)
{
	const int ng = (H + w - 1) / w;
	int hi = hi0;
	for (int i = 0; i < ng; ++i) {
		const int sz = H / ng + (i < H % ng ? 1 : 0);
		f(kind, s, hi, hi - sz + 1);
		hi -= sz;
	}
}

/*
 * The planner's cost of one pass, relative to a shared-memory pass of one
 * register group (100), fitted to the per-pass times of bench/gpu_bench's
 * profile at 2^28 on the H200 (bench/results/gpu-bitonic-profile-h200-
 * 2026-11-23.md): u32 one-group pass 0.52-0.54 ms, two-group pass 0.57-0.67
 * with SPLIT (high_body; 0.63-0.75 without, 120), the tile-bits pass 0.61;
 * a chained pass about 15 more per register group of its tail (u32: 0.65
 * for two groups; u64: 1.20 against 1.05), and 25 more when its first
 * group's lanes are not whole lines (c - RB < WB): the tile staged through
 * shared memory first (u32 0.77-0.85) or, with STG, read in shorter runs
 * (u32 STG 2: 0.70-0.81). Only the
 * ratios matter: they decide between fewer passes and cheaper ones; with
 * the measured times themselves the plan at 2^28 u32 comes out the same
 * to within 0.1 ms. These were fitted before FULL partitions (high_body);
 * since, every pass costs 0.51-0.56 ms except chained passes with tails of
 * three register groups (0.89 ms), and the plan these costs give is still
 * the faster one: with every pass counted the same (EQC) the planner takes
 * 31 passes at 2^28 u32 instead of 32 but uses those tails, 20.0 ms
 * against 18.8 (bench/results/gpu-bitonic-profile-h200-2026-11-23b.md).
 * Once those tails stopped spilling (TFLIP, high_body) they cost 0.53 ms
 * too, and both defaults now set EQC: these costs remain for the
 * profiling configurations.
 */
template <class T, class C>
int pass_cost(int kind, int H)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB;
	if (C::EQC)
		return 100;
	if (kind == PASS_LOW)
		return 115;
	if (kind == PASS_CHAIN) {
		const int c = TB - H;
		return 100 + 15 * ((c + RB - 1) / RB) + (c - RB < WB ? 25 : 0);
	}
	return H <= RB ? 100 : TB - 2 * RB < WB ? 108 : 120;
}

/*
 * The plan: calls f(kind, s, hi, lo) for each pass, in order.
 *
 * Without chaining (C::CHAIN 0, or register passes): stage s > TB does its
 * H = s - TB steps on bits >= TB in ceil(H / width) passes, then one pass
 * on the TB bits of the tile.
 *
 * With chaining, the passes are the cheapest cover of the network's steps
 * (after the tile sort) by passes of the three shared-memory kinds, found
 * by dynamic programming over (stage s, next bit b): from there a
 * shared-memory pass takes bits b..lo of stage s (H <= TB - CB of them;
 * possible while b >= TB - 1; if lo < TB, so that the tile's bits below lo
 * are left, the stage's tail must then be chained into the next stage),
 * the low pass takes bits TB-1..0 (b = TB - 1), a chained pass takes bits
 * b..0 (c = b + 1 in CB..TB-1) and the first TB - c bits of stage s + 1.
 * This is the paper's superstep count made concrete: a pass covers up to
 * log k = TB steps, but a run of steps not ending at bit 0 must keep CB
 * low bits in Γ for coalescing and covers at most TB - CB; chaining lets a
 * stage's tail (which holds bits 0..CB-1 anyway) fill a pass with the next
 * stage's head.
 */
template <class T, class C, class F>
void plan(size_t n, F f)
{
	constexpr int TB = C::TB, CB = coal_bits<T, C>(), GMAX = TB - CB;
	if (n < 2)
		return;
	const int L = ceil_log2(n);
	f(PASS_LOCAL, 0, 0, 0);
	if (C::GREG || !C::CHAIN) {
		for (int s = TB + 1; s <= L; ++s) {
			const int H = s - TB;
			if (C::GREG)
				split_bits(s, s - 1, H, C::GREG, PASS_REG, f);
			else
				split_bits(s, s - 1, H, GMAX, PASS_SMEM, f);
			f(PASS_LOW, s, TB - 1, 0);
		}
		return;
	}
	if (L <= TB)
		return;
	/* cost[s][b + 1]: cheapest rest from stage s, next bit b (-1: stage
	 * done); how[.]: the first pass of it (kind, bits) */
	enum { NS = 65, INF = 1 << 30 };
	int cost[NS][NS + 1];
	signed char how_k[NS][NS + 1], how_h[NS][NS + 1];
	for (int s = L; s > TB; --s)
		for (int b = -1; b < s; ++b) {
			int best = INF, bk = -1, bh = 0;
			if (b < 0) {
				best = s == L ? 0 : cost[s + 1][s + 1];
			} else {
				if (b >= TB - 1)
					for (int H = 1; H <= GMAX && b - H + 1 >= 0; ++H) {
						const int lo = b - H + 1;
						if (lo < TB && s == L)
							continue;
						const int r = cost[s][lo];
						if (r < INF && r + pass_cost<T, C>(PASS_SMEM, H) < best) {
							best = r + pass_cost<T, C>(PASS_SMEM, H);
							bk = PASS_SMEM;
							bh = H;
						}
					}
				if (b == TB - 1 && cost[s][0] + pass_cost<T, C>(PASS_LOW, TB) < best) {
					best = cost[s][0] + pass_cost<T, C>(PASS_LOW, TB);
					bk = PASS_LOW;
				}
				if (s < L && b + 1 >= CB && b + 1 <= TB - 1) {
					const int H = TB - (b + 1), r = cost[s + 1][s - H + 1];
					if (r < INF && r + pass_cost<T, C>(PASS_CHAIN, H) < best) {
						best = r + pass_cost<T, C>(PASS_CHAIN, H);
						bk = PASS_CHAIN;
						bh = H;
					}
				}
			}
			cost[s][b + 1] = best;
			how_k[s][b + 1] = (signed char)bk;
			how_h[s][b + 1] = (signed char)bh;
		}
	int s = TB + 1, b = TB;
	while (s <= L) {
		if (b < 0) {
			b = s;
			++s;
			continue;
		}
		const int k = how_k[s][b + 1], H = how_h[s][b + 1];
		if (k == PASS_SMEM) {
			f(PASS_SMEM, s, b, b - H + 1);
			b -= H;
		} else if (k == PASS_LOW) {
			f(PASS_LOW, s, TB - 1, 0);
			b = -1;
		} else {
			f(PASS_CHAIN, s + 1, s, s - H + 1);
			b = s - H;
			++s;
		}
	}
}

template <class T, int G, class IX>
void launch_reg(T *d, IX n, int L, int s, int hi, int lo, cudaStream_t st)
{
	const uint64_t threads = 1ull << (L - G);
	const unsigned blocks = (unsigned)((threads + 255) / 256);
	k_bitonic_reg<T, G, IX><<<blocks, 256, 0, st>>>(d, n, s, hi, lo);
}

/*
 * *grid = blocks to launch for a pass kernel over nblk partitions: nblk, or
 * with PF as many persistent blocks as the device holds at once (occupancy
 * of this kernel at its shared memory), at most nblk. Returns the CUDA
 * error of the queries.
 */
template <class C, class K>
cudaError_t pass_grid(K kern, size_t smem, uint64_t nblk, unsigned *grid)
{
	*grid = (unsigned)nblk;
	if (!C::PF)
		return cudaSuccess;
	int dev = 0, sms = 0, per = 0;
	cudaError_t err = cudaGetDevice(&dev);
	if (err == cudaSuccess)
		err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	if (err == cudaSuccess)
		err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, 1 << C::NTB, smem);
	const uint64_t g = (uint64_t)(per > 0 ? per : 1) * (uint64_t)(sms > 0 ? sms : 1);
	if (g < nblk)
		*grid = (unsigned)g;
	return err;
}

/* k_bitonic_high<T, C, h, TAIL> for the runtime h (1 <= h <= TB - CB). */
template <class T, class C, class IX, bool TAIL, int H>
cudaError_t launch_high(int h, uint64_t nblk, size_t smem, T *d, IX n, int s, int lo, int rev, cudaStream_t st)
{
	if constexpr (H <= C::TB - coal_bits<T, C>()) {
		if (h != H)
			return launch_high<T, C, IX, TAIL, H + 1>(h, nblk, smem, d, n, s, lo, rev, st);
		unsigned grid;
		const cudaError_t err = pass_grid<C>(k_bitonic_high<T, C, H, TAIL, IX>, smem, nblk, &grid);
		if (err != cudaSuccess)
			return err;
		k_bitonic_high<T, C, H, TAIL, IX><<<grid, 1 << C::NTB, smem, st>>>(d, n, s, lo, (IX)nblk, rev);
	}
	return cudaSuccess;
}

/* Launch one pass (asynchronous; returns the launch error). */
template <class T, class C, class IX>
cudaError_t launch_pass(T *d, IX n, int L, int kind, int s, int hi, int lo, int rev, cudaStream_t st)
{
	constexpr int TB = C::TB;
	const size_t smem = sizeof(T) << TB, psmem = smem << (C::PF ? 1 : 0);
	const uint64_t nblk = L > TB ? (1ull << (L - TB)) : 1;
	cudaError_t err = cudaSuccess;
	if (kind == PASS_LOCAL) {
		const uint64_t nloc = ((uint64_t)n + (1ull << TB) - 1) >> TB;
		k_bitonic_local<T, C><<<(unsigned)nloc, 1 << C::NTB, smem, st>>>(d, (uint64_t)n);
	} else if (kind == PASS_LOW) {
		unsigned grid;
		err = pass_grid<C>(k_bitonic_low<T, C, IX>, psmem, nblk, &grid);
		if (err == cudaSuccess)
			k_bitonic_low<T, C, IX><<<grid, 1 << C::NTB, psmem, st>>>(d, n, s, (IX)nblk, rev);
	} else if (kind == PASS_SMEM) {
		err = launch_high<T, C, IX, false, 1>(hi - lo + 1, nblk, psmem, d, n, s, lo, rev, st);
	} else if (kind == PASS_CHAIN) {
		if constexpr (C::CHAIN)
			err = launch_high<T, C, IX, true, 1>(hi - lo + 1, nblk, psmem, d, n, s, lo, rev, st);
	} else {
		switch (hi - lo + 1) {
		case 1: launch_reg<T, 1, IX>(d, n, L, s, hi, lo, st); break;
		case 2: launch_reg<T, 2, IX>(d, n, L, s, hi, lo, st); break;
		case 3: launch_reg<T, 3, IX>(d, n, L, s, hi, lo, st); break;
		case 4: launch_reg<T, 4, IX>(d, n, L, s, hi, lo, st); break;
		default: launch_reg<T, 5, IX>(d, n, L, s, hi, lo, st); break;
		}
	}
	return err != cudaSuccess ? err : cudaGetLastError();
}

template <class T, class C, class IX, int H>
cudaError_t set_smem_high(int smem)
{
	if constexpr (H <= C::TB - coal_bits<T, C>()) {
		cudaError_t err = cudaFuncSetAttribute(k_bitonic_high<T, C, H, false, IX>,
						       cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
		if (err == cudaSuccess && C::CHAIN)
			err = cudaFuncSetAttribute(k_bitonic_high<T, C, H, true, IX>,
						   cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
		return err != cudaSuccess ? err : set_smem_high<T, C, IX, H + 1>(smem);
	}
	return cudaSuccess;
}

/* Shared memory above 48 KiB must be asked for, per kernel (the pass
 * kernels' second tile with PF). */
template <class T, class C>
cudaError_t set_smem(bool narrow)
{
	const int smem = (int)(sizeof(T) << C::TB), psmem = smem << (C::PF ? 1 : 0);
	cudaError_t err = cudaFuncSetAttribute(k_bitonic_local<T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (err == cudaSuccess)
		err = narrow ? cudaFuncSetAttribute(k_bitonic_low<T, C, uint32_t>,
						    cudaFuncAttributeMaxDynamicSharedMemorySize, psmem)
			     : cudaFuncSetAttribute(k_bitonic_low<T, C, uint64_t>,
						    cudaFuncAttributeMaxDynamicSharedMemorySize, psmem);
	if (err == cudaSuccess && !C::GREG)
		err = narrow ? set_smem_high<T, C, uint32_t, 1>(psmem) : set_smem_high<T, C, uint64_t, 1>(psmem);
	return err;
}

/*
 * The sort with configuration C; `each`, if not NULL, is called after every
 * launch with (kind, s, hi, lo) (the benchmark's per-pass profile).
 */
template <class T, class C, class Each>
cudaError_t bitonic_sort_cfg(T *d, size_t n, cudaStream_t stream, uint64_t *passes, Each each)
{
	if (n < 2)
		return cudaSuccess;
	/* 32-bit index math while x < 2^31; GPUSORT_WIDE_INDEX=1 (tests) forces
	 * the 64-bit kernels so that they are exercised on small inputs too */
	static const bool force_wide = getenv("GPUSORT_WIDE_INDEX") != NULL;
	const bool narrow = n <= (1ull << 31) && !force_wide;
	cudaError_t err = set_smem<T, C>(narrow);
	if (err != cudaSuccess)
		return err;
	const int L = ceil_log2(n);
	if (L > C::TB && (1ull << (L - C::TB)) > 0x7fffffffull)
		return cudaErrorInvalidValue;
	int idx = 0;
	plan<T, C>(n, [&](int kind, int s, int hi, int lo) {
		if (err != cudaSuccess)
			return;
		/* odd passes in reverse block order (pass_order) */
		const int rev = C::ALT ? idx++ & 1 : 0;
		if (narrow)
			err = launch_pass<T, C, uint32_t>(d, (uint32_t)n, L, kind, s, hi, lo, rev, stream);
		else
			err = launch_pass<T, C, uint64_t>(d, (uint64_t)n, L, kind, s, hi, lo, rev, stream);
		if (err == cudaSuccess && passes)
			++*passes;
		if (err == cudaSuccess)
			each(kind, s, hi, lo);
	});
	return err;
}

} // namespace

template <class T>
uint64_t bitonic_pass_count(size_t n)
{
	uint64_t c = 0;
	plan<T, typename Tr<T>::Def>(n, [&](int, int, int, int) { ++c; });
	return c;
}

template <class T>
int bitonic_tile_bits(void)
{
	return Tr<T>::Def::TB;
}

template <class T>
cudaError_t bitonic_sort(T *d, size_t n, cudaStream_t stream, uint64_t *passes)
{
	return bitonic_sort_cfg<T, typename Tr<T>::Def>(d, n, stream, passes, [](int, int, int, int) {});
}

template cudaError_t bitonic_sort<uint32_t>(uint32_t *, size_t, cudaStream_t, uint64_t *);
template cudaError_t bitonic_sort<uint64_t>(uint64_t *, size_t, cudaStream_t, uint64_t *);
template cudaError_t bitonic_sort<gs_u128>(gs_u128 *, size_t, cudaStream_t, uint64_t *);
template uint64_t bitonic_pass_count<uint32_t>(size_t);
template uint64_t bitonic_pass_count<uint64_t>(size_t);
template uint64_t bitonic_pass_count<gs_u128>(size_t);
template int bitonic_tile_bits<uint32_t>(void);
template int bitonic_tile_bits<uint64_t>(void);
template int bitonic_tile_bits<gs_u128>(void);
