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
 *   - tile (Γ-partition) = 2^TB elements in shared memory (64 KiB per block),
 *   - pass 0 ("local"): every aligned tile is fully sorted (stages 1..TB),
 *   - stage s > TB: its steps on bits s-1..TB are grouped GMAX = TB - WB bits
 *     at a time (Γ = {0..c-1} ∪ {lo..hi}, c >= WB low bits for coalescing);
 *     its last TB steps (bits TB-1..0) are one pass with Γ = {0..TB-1}.
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
 * passes that run at streaming speed.
 */
template <int TB_, int RB_, int MINB_, int GREG_>
struct BCfg {
	enum { TB = TB_, RB = RB_, NTB = TB_ - RB_, MINB = MINB_, GREG = GREG_ };
	static_assert(RB_ >= 2 && RB_ <= 5 && TB_ - RB_ >= 5 && TB_ - RB_ <= 10, "bad bitonic config");
	static_assert(GREG_ >= 0 && GREG_ <= 5, "bad register pass width");
};

template <class T> struct Tr;
/* WB: log2 of elements per 128-byte line; Def: the configuration bitonic_sort uses. */
/* Def: the fastest of the configurations timed on the H200 at 2^28
 * (bench/gpu_bench profile 28; bench/results/gpu-bitonic-profile-h200-
 * 2026-11-22.md): u32 31.1 ms with register-only high passes (46 passes),
 * u64 57.8 ms with 2^12 tiles and 4 blocks per SM, both after k_bitonic_low;
 * before this round both types ran <13, 4, 2, 0>: 49.5 and 73.8 ms. */
template <> struct Tr<uint32_t> {
	enum { WB = 5 };
	typedef BCfg<13, 5, 2, 5> Def;
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
	typedef BCfg<12, 4, 4, 0> Def;
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

/* Shared-memory slot of tile element e: XOR swizzle of the low WB bits with
 * bits RB..RB+WB-1, so that every access pattern used below (a warp's lanes
 * on bits {0..g-1} ∪ {g+RB..}) touches distinct banks. */
template <int RB, int WB>
__device__ __forceinline__ uint32_t swz(uint32_t e)
{
	return e ^ ((e >> RB) & ((1u << WB) - 1));
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

/* Register group number gi of the steps on tile bits bh..bl: its lowest
 * tile bit g, local bit range, and the thread's base element eb. */
template <int RB>
struct Group {
	int top, g, lbhi, lblo;
	uint32_t eb;
	__device__ __forceinline__ Group(int bh, int bl, int gi)
	{
		top = bh - gi * RB;
		g = max(top - RB + 1, 0);
		lbhi = top - g;
		lblo = max(bl, top - RB + 1) - g;
		const uint32_t tid = threadIdx.x;
		eb = (tid & ((1u << g) - 1)) | ((tid >> g) << (g + RB));
	}
};

/*
 * The steps on tile bits bh down to bl (all of one stage) on the tile in
 * shared memory, RB bits per register group; the tile is re-partitioned
 * among the threads through shared memory between groups.
 * Starts and ends with a barrier-separated tile in shared memory.
 */
template <class T, int RB>
__device__ __forceinline__ void tile_steps(T *tile, int dpos, uint32_t dblock, int bh, int bl)
{
	constexpr int WB = Tr<T>::WB, R = 1 << RB;
	const int ng = (bh - bl + RB) / RB;
	for (int gi = 0; gi < ng; ++gi) {
		const Group<RB> G(bh, bl, gi);
		T v[R];
		__syncthreads();
#pragma unroll
		for (int m = 0; m < R; ++m)
			v[m] = tile[swz<RB, WB>(G.eb | ((uint32_t)m << G.g))];
		reg_steps<T, RB>(v, G.eb, G.g, G.top, G.lbhi, G.lblo, dpos, dblock);
#pragma unroll
		for (int m = 0; m < R; ++m)
			tile[swz<RB, WB>(G.eb | ((uint32_t)m << G.g))] = v[m];
	}
}

/*
 * Pass 0: sort every aligned tile d[b*2^TB ..) ascending, stages 1..TB of the
 * classic (direction) form inside shared memory: a single Γ-partition per
 * block with Γ = {0..TB-1} (Definition 2 with the lowest bits: coalesced).
 * Elements >= n are +infinity, not loaded, not stored.
 */
template <class T, class C>
__global__ void __launch_bounds__(1 << C::NTB, 1) k_bitonic_local(T *__restrict__ d, uint64_t n)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB;
	constexpr uint32_t NT = 1u << C::NTB;
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	const uint32_t tid = threadIdx.x;
	const uint64_t base = (uint64_t)blockIdx.x << TB;
	if (base >= n)
		return;
#pragma unroll 8
	for (int q = 0; q < R; ++q) {
		uint32_t e = tid + q * NT;
		tile[swz<RB, WB>(e)] = base + e < n ? d[base + e] : Tr<T>::inf();
	}
	__syncthreads();
	/* stages 1..RB entirely in registers: thread holds 2^RB consecutive
	 * elements (directions known at compile time but for stage RB) */
	{
		const uint32_t eb = tid << RB;
		T v[R];
#pragma unroll
		for (int m = 0; m < R; ++m)
			v[m] = tile[swz<RB, WB>(eb | m)];
#pragma unroll
		for (int s = 1; s <= RB; ++s) {
			const bool tdesc = s == RB ? (tid & 1) : false;
#pragma unroll
			for (int k = s - 1; k >= 0; --k) {
#pragma unroll
				for (int m = 0; m < R; ++m)
					if (!(m & (1 << k))) {
						bool desc = s < RB ? ((m >> s) & 1) : tdesc;
						T a = v[m], b = v[m | (1 << k)];
						Tr<T>::cx(a, b);
						v[m] = desc ? b : a;
						v[m | (1 << k)] = desc ? a : b;
					}
			}
		}
#pragma unroll
		for (int m = 0; m < R; ++m)
			tile[swz<RB, WB>(eb | m)] = v[m];
	}
	for (int s = RB + 1; s <= TB; ++s)
		tile_steps<T, RB>(tile, s, 0, s - 1, 0);
	__syncthreads();
#pragma unroll 8
	for (int q = 0; q < R; ++q) {
		uint32_t e = tid + q * NT;
		if (base + e < n)
			d[base + e] = tile[swz<RB, WB>(e)];
	}
}

/*
 * One pass of stage s (merge of sorted runs of 2^(s-1) into runs of 2^s):
 * the steps on index bits hi..lo, on Γ-partitions with
 * Γ = {0..c-1} ∪ {lo..hi}, c = TB - (hi - lo + 1) (Definitions 1-3 and
 * Algorithm 2 of the paper; c >= WB: section 5's k-coalesced condition).
 * Tile element e: bits 0..c-1 -> x bits 0..c-1, bits c.. -> x bits lo..hi;
 * the block number fills the x bits outside Γ. Address = phi_s(x) (see the
 * file comment). Blocks whose partition lies wholly at >= n return at once.
 */
template <class T, class C, class IX>
__global__ void __launch_bounds__(1 << C::NTB, C::MINB)
	k_bitonic_pass(T *__restrict__ d, IX n, int s, int hi, int lo)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB;
	constexpr uint32_t NT = 1u << C::NTB;
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	const int c = TB - (hi - lo + 1), mid = lo - c;
	const IX b = blockIdx.x;
	const IX xblk = ((b & (((IX)1 << mid) - 1)) << c) | ((b >> mid) << (hi + 1));
	const int sb = s - 1;
	if (((xblk >> sb) << sb) >= n)
		return; /* every element of this partition is virtual */
	const IX hmask = ((IX)1 << sb) - 1;
	const uint32_t cmask = (1u << c) - 1;
	/* address of tile element e: phi_s(x(e)) (IX: 32-bit when n < 2^32) */
	auto addr = [&](uint32_t e) -> IX {
		IX x = xblk | (e & cmask) | ((IX)(e >> c) << lo);
		return ((x >> sb) & 1) ? x ^ hmask : x;
	};
	int dpos;
	uint32_t dblock;
	if (hi == sb) {
		dpos = TB - 1;
		dblock = 0;
	} else {
		dpos = 31;
		dblock = (uint32_t)((xblk >> sb) & 1);
	}
	/* Register groups over tile bits TB-1..c. The first group (lowest bit
	 * TB-RB >= WB: a warp's lanes on consecutive x) is loaded straight from
	 * device memory, and the last one is stored straight back when its
	 * lanes are consecutive too; shared memory is used only in between. */
	const int bl = c, ng = (TB - 1 - bl + RB) / RB;
	bool in_smem = false;
	for (int gi = 0; gi < ng; ++gi) {
		const Group<RB> G(TB - 1, bl, gi);
		T v[R];
		if (gi == 0) {
#pragma unroll
			for (int m = 0; m < R; ++m) {
				IX a = addr(G.eb | ((uint32_t)m << G.g));
				v[m] = a < n ? d[a] : Tr<T>::inf();
			}
		} else {
			__syncthreads();
#pragma unroll
			for (int m = 0; m < R; ++m)
				v[m] = tile[swz<RB, WB>(G.eb | ((uint32_t)m << G.g))];
		}
		reg_steps<T, RB>(v, G.eb, G.g, G.top, G.lbhi, G.lblo, dpos, dblock);
		if (gi == ng - 1 && G.g >= WB) {
#pragma unroll
			for (int m = 0; m < R; ++m) {
				IX a = addr(G.eb | ((uint32_t)m << G.g));
				if (a < n)
					d[a] = v[m];
			}
			in_smem = false;
		} else {
#pragma unroll
			for (int m = 0; m < R; ++m)
				tile[swz<RB, WB>(G.eb | ((uint32_t)m << G.g))] = v[m];
			in_smem = true;
		}
	}
	if (in_smem) {
		__syncthreads();
#pragma unroll 8
		for (int q = 0; q < R; ++q) {
			uint32_t e = threadIdx.x + q * NT;
			IX a = addr(e);
			if (a < n)
				d[a] = tile[swz<RB, WB>(e)];
		}
	}
}


/*
 * The last pass of stage s > TB: its TB steps on the tile's own bits
 * (Γ = {0..TB-1}, one aligned tile per block, Algorithm 3 of the paper). It
 * is k_bitonic_pass with hi = TB - 1, lo = 0 made into its own kernel
 * because these passes are the sort's instruction-bound part (ncu on the
 * H200: SM throughput 85%, DRAM 24%): here the register groups are fixed at
 * compile time, so every shared-memory index folds to a constant offset,
 * and the block's direction (bit s - 1 of its x, the same for the whole
 * tile) picks a min/max order at compile time instead of complementing
 * every value twice. In mirrored coordinates the tile's address is
 * xb ^ e for the block's xb (phi_s flips all of e's bits or none).
 */
template <class T, class C, bool DESC, class IX>
__device__ __forceinline__ void low_body(T *__restrict__ d, IX n, IX xb, T *tile)
{
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB, NG = (TB + RB - 1) / RB;
	constexpr uint32_t NT = 1u << C::NTB;
	const uint32_t tid = threadIdx.x;
	bool in_smem = false;
#pragma unroll
	for (int gi = 0; gi < NG; ++gi) {
		const int top = TB - 1 - gi * RB, g = top - RB + 1 > 0 ? top - RB + 1 : 0, nb = top - g + 1;
		const uint32_t eb = (tid & ((1u << g) - 1)) | ((tid >> g) << (g + RB));
		T v[R];
		if (gi == 0) {
#pragma unroll
			for (int m = 0; m < R; ++m) {
				const IX a = xb ^ (IX)(eb | ((uint32_t)m << g));
				v[m] = a < n ? d[a] : Tr<T>::inf();
			}
		} else {
			__syncthreads();
#pragma unroll
			for (int m = 0; m < R; ++m)
				v[m] = tile[swz<RB, WB>(eb | ((uint32_t)m << g))];
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
		if (gi == NG - 1 && g >= WB) {
#pragma unroll
			for (int m = 0; m < R; ++m) {
				const IX a = xb ^ (IX)(eb | ((uint32_t)m << g));
				if (a < n)
					d[a] = v[m];
			}
			in_smem = false;
		} else {
#pragma unroll
			for (int m = 0; m < R; ++m)
				tile[swz<RB, WB>(eb | ((uint32_t)m << g))] = v[m];
			in_smem = true;
		}
	}
	if (in_smem) {
		__syncthreads();
#pragma unroll 8
		for (int q = 0; q < R; ++q) {
			const uint32_t e = tid + q * NT;
			const IX a = xb ^ (IX)e;
			if (a < n)
				d[a] = tile[swz<RB, WB>(e)];
		}
	}
}

template <class T, class C, class IX>
__global__ void __launch_bounds__(1 << C::NTB, C::MINB) k_bitonic_low(T *__restrict__ d, IX n, int s)
{
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	const int sb = s - 1;
	const IX xblk = (IX)blockIdx.x << C::TB;
	if (((xblk >> sb) << sb) >= n)
		return; /* every element of this tile is virtual */
	if ((xblk >> sb) & 1)
		low_body<T, C, true, IX>(d, n, xblk ^ (((IX)1 << sb) - 1), tile);
	else
		low_body<T, C, false, IX>(d, n, xblk, tile);
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
 * kind 3 the pass on the tile's bits TB-1..0 that ends stage s. */
enum { PASS_LOCAL = 0, PASS_SMEM = 1, PASS_REG = 2, PASS_LOW = 3 };

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

/* The plan: calls f(kind, s, hi, lo) for each pass. Stage s > TB: its H =
 * s - TB steps on bits >= TB in ceil(H / width) passes, then one pass on
 * the TB bits of the tile. */
template <class T, class C, class F>
void plan(size_t n, F f)
{
	constexpr int TB = C::TB, WB = Tr<T>::WB, GMAX = TB - WB;
	if (n < 2)
		return;
	const int L = ceil_log2(n);
	f(PASS_LOCAL, 0, 0, 0);
	for (int s = TB + 1; s <= L; ++s) {
		const int H = s - TB;
		if (C::GREG)
			split_bits(s, s - 1, H, C::GREG, PASS_REG, f);
		else
			split_bits(s, s - 1, H, GMAX, PASS_SMEM, f);
		f(PASS_LOW, s, TB - 1, 0);
	}
}

template <class T, int G, class IX>
void launch_reg(T *d, IX n, int L, int s, int hi, int lo, cudaStream_t st)
{
	const uint64_t threads = 1ull << (L - G);
	const unsigned blocks = (unsigned)((threads + 255) / 256);
	k_bitonic_reg<T, G, IX><<<blocks, 256, 0, st>>>(d, n, s, hi, lo);
}

/* Launch one pass (asynchronous; returns the launch error). */
template <class T, class C, class IX>
cudaError_t launch_pass(T *d, IX n, int L, int kind, int s, int hi, int lo, cudaStream_t st)
{
	constexpr int TB = C::TB;
	const size_t smem = sizeof(T) << TB;
	if (kind == PASS_LOCAL) {
		const uint64_t nblk = ((uint64_t)n + (1ull << TB) - 1) >> TB;
		k_bitonic_local<T, C><<<(unsigned)nblk, 1 << C::NTB, smem, st>>>(d, (uint64_t)n);
	} else if (kind == PASS_LOW) {
		const uint64_t nblk = L > TB ? (1ull << (L - TB)) : 1;
		k_bitonic_low<T, C, IX><<<(unsigned)nblk, 1 << C::NTB, smem, st>>>(d, n, s);
	} else if (kind == PASS_SMEM) {
		const uint64_t nblk = L > TB ? (1ull << (L - TB)) : 1;
		k_bitonic_pass<T, C, IX><<<(unsigned)nblk, 1 << C::NTB, smem, st>>>(d, n, s, hi, lo);
	} else {
		switch (hi - lo + 1) {
		case 1: launch_reg<T, 1, IX>(d, n, L, s, hi, lo, st); break;
		case 2: launch_reg<T, 2, IX>(d, n, L, s, hi, lo, st); break;
		case 3: launch_reg<T, 3, IX>(d, n, L, s, hi, lo, st); break;
		case 4: launch_reg<T, 4, IX>(d, n, L, s, hi, lo, st); break;
		default: launch_reg<T, 5, IX>(d, n, L, s, hi, lo, st); break;
		}
	}
	return cudaGetLastError();
}

/* Shared memory above 48 KiB must be asked for, per kernel. */
template <class T, class C>
cudaError_t set_smem(bool narrow)
{
	const int smem = (int)(sizeof(T) << C::TB);
	cudaError_t err = cudaFuncSetAttribute(k_bitonic_local<T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (err == cudaSuccess)
		err = narrow ? cudaFuncSetAttribute(k_bitonic_low<T, C, uint32_t>,
						    cudaFuncAttributeMaxDynamicSharedMemorySize, smem)
			     : cudaFuncSetAttribute(k_bitonic_low<T, C, uint64_t>,
						    cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (err == cudaSuccess && narrow)
		err = cudaFuncSetAttribute(k_bitonic_pass<T, C, uint32_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
					   smem);
	if (err == cudaSuccess && !narrow)
		err = cudaFuncSetAttribute(k_bitonic_pass<T, C, uint64_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
					   smem);
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
	plan<T, C>(n, [&](int kind, int s, int hi, int lo) {
		if (err != cudaSuccess)
			return;
		if (narrow)
			err = launch_pass<T, C, uint32_t>(d, (uint32_t)n, L, kind, s, hi, lo, stream);
		else
			err = launch_pass<T, C, uint64_t>(d, (uint64_t)n, L, kind, s, hi, lo, stream);
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
