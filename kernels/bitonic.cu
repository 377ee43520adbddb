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

constexpr int NT_BITS = 9; /* 512 threads per block */

template <class T> struct Tr;
/* TB: tile bits (64 KiB tile); RB: register bits (2^RB elements per thread,
 * TB - RB == NT_BITS); WB: log2 of elements per 128-byte line. */
template <> struct Tr<uint32_t> {
	enum { TB = 13, RB = 4, WB = 5 };
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
	enum { TB = 13, RB = 4, WB = 4 };
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
	enum { TB = 12, RB = 3, WB = 3 };
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
template <class T>
__device__ __forceinline__ void reg_steps(T (&v)[1 << Tr<T>::RB], uint32_t eb, int g, int top, int lbhi, int lblo,
					  int dpos, uint32_t dblock)
{
	constexpr int RB = Tr<T>::RB, R = 1 << RB;
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
template <class T>
__device__ __forceinline__ void tile_steps(T *tile, int dpos, uint32_t dblock, int bh, int bl)
{
	constexpr int RB = Tr<T>::RB, WB = Tr<T>::WB, R = 1 << RB;
	const int ng = (bh - bl + RB) / RB;
	for (int gi = 0; gi < ng; ++gi) {
		const Group<RB> G(bh, bl, gi);
		T v[R];
		__syncthreads();
#pragma unroll
		for (int m = 0; m < R; ++m)
			v[m] = tile[swz<RB, WB>(G.eb | ((uint32_t)m << G.g))];
		reg_steps<T>(v, G.eb, G.g, G.top, G.lbhi, G.lblo, dpos, dblock);
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
template <class T>
__global__ void __launch_bounds__(1 << NT_BITS, 1) k_bitonic_local(T *__restrict__ d, uint64_t n)
{
	constexpr int TB = Tr<T>::TB, RB = Tr<T>::RB, WB = Tr<T>::WB, R = 1 << RB;
	constexpr uint32_t NT = 1u << NT_BITS;
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
		tile_steps<T>(tile, s, 0, s - 1, 0);
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
template <class T, class IX>
__global__ void __launch_bounds__(1 << NT_BITS, 2)
	k_bitonic_pass(T *__restrict__ d, IX n, int s, int hi, int lo)
{
	constexpr int TB = Tr<T>::TB, RB = Tr<T>::RB, WB = Tr<T>::WB, R = 1 << RB;
	constexpr uint32_t NT = 1u << NT_BITS;
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
		reg_steps<T>(v, G.eb, G.g, G.top, G.lbhi, G.lblo, dpos, dblock);
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

int ceil_log2(uint64_t n)
{
	int l = 0;
	while ((1ull << l) < n)
		++l;
	return l;
}

/* The plan: calls f(kind, s, hi, lo) for each pass; kind 0 = local sort. */
template <class T, class F>
void plan(size_t n, F f)
{
	constexpr int TB = Tr<T>::TB, WB = Tr<T>::WB, GMAX = TB - WB;
	if (n < 2)
		return;
	const int L = ceil_log2(n);
	f(0, 0, 0, 0);
	for (int s = TB + 1; s <= L; ++s) {
		const int H = s - TB, ng = (H + GMAX - 1) / GMAX;
		int hi = s - 1;
		for (int i = 0; i < ng; ++i) {
			const int sz = H / ng + (i < H % ng ? 1 : 0);
			f(1, s, hi, hi - sz + 1);
			hi -= sz;
		}
		f(1, s, TB - 1, 0);
	}
}

} // namespace

template <class T>
uint64_t bitonic_pass_count(size_t n)
{
	uint64_t c = 0;
	plan<T>(n, [&](int, int, int, int) { ++c; });
	return c;
}

template <class T>
int bitonic_tile_bits(void)
{
	return Tr<T>::TB;
}

template <class T>
cudaError_t bitonic_sort(T *d, size_t n, cudaStream_t stream, uint64_t *passes)
{
	constexpr int TB = Tr<T>::TB;
	const size_t smem = sizeof(T) << TB;
	if (n < 2)
		return cudaSuccess;
	cudaError_t err = cudaFuncSetAttribute(k_bitonic_local<T>,
					       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
	if (err != cudaSuccess)
		return err;
	/* 32-bit index math while x < 2^31; GPUSORT_WIDE_INDEX=1 (tests) forces
	 * the 64-bit kernels so that they are exercised on small inputs too */
	static const bool force_wide = getenv("GPUSORT_WIDE_INDEX") != NULL;
	const bool narrow = n <= (1ull << 31) && !force_wide;
	if (narrow)
		err = cudaFuncSetAttribute(k_bitonic_pass<T, uint32_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
					   (int)smem);
	else
		err = cudaFuncSetAttribute(k_bitonic_pass<T, uint64_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
					   (int)smem);
	if (err != cudaSuccess)
		return err;
	const int L = ceil_log2(n);
	const uint64_t nblk_all = L > TB ? (1ull << (L - TB)) : 1;
	const uint64_t nblk_local = (n + (1ull << TB) - 1) >> TB;
	if (nblk_all > 0x7fffffffull)
		return cudaErrorInvalidValue;
	plan<T>(n, [&](int kind, int s, int hi, int lo) {
		if (err != cudaSuccess)
			return;
		if (kind == 0)
			k_bitonic_local<T><<<(unsigned)nblk_local, 1 << NT_BITS, smem, stream>>>(d, n);
		else if (narrow)
			k_bitonic_pass<T, uint32_t>
				<<<(unsigned)nblk_all, 1 << NT_BITS, smem, stream>>>(d, (uint32_t)n, s, hi, lo);
		else
			k_bitonic_pass<T, uint64_t><<<(unsigned)nblk_all, 1 << NT_BITS, smem, stream>>>(d, n, s, hi, lo);
		err = cudaGetLastError();
		if (err == cudaSuccess && passes)
			++*passes;
	});
	return err;
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
