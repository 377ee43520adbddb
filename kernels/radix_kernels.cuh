/*
 * radix_kernels.cuh - the radix sort's kernels (internal to
 * kernels/radix.cu, which launches them): the upfront histogram of every
 * digit, the scan of those histograms (digit starts, which passes to skip,
 * which buffer each pass reads), one digit pass (onesweep), and the copy
 * back of words an odd number of passes left in scratch.
 *
 * The sort is an LSD radix sort on the top np bytes of each word: digit
 * pass p orders the words stably by byte lo + p (Bandyopadhyay & Sahni,
 * "GRS - GPU Radix Sort For Multifield Records", section VI: per tile, the
 * histogram and every word's rank, prefix sums of the tiles' histograms,
 * the tile ordered in shared memory and written out in order). As in
 * Onesweep (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit
 * Radix Sort for GPUs", 2022) the histograms of all digits come from one
 * read of the words before the first pass, and a pass reads and writes the
 * words once: the prefix over tiles is a chained scan with decoupled
 * look-back inside the pass, not a pass of its own.
 */
#ifndef GPUSORT_RADIX_KERNELS_CUH
#define GPUSORT_RADIX_KERNELS_CUH

#include "radix_block.cuh"

namespace gs_radix {

/*
 * info[p] (p < np), written by k_scan for pass p: INFO_SKIP when every word
 * has the same digit p (the pass would not move a word), INFO_ALT when the
 * pass reads the scratch copy (else d). info[np]: INFO_ALT when the sorted
 * words end in scratch (k_copy_back copies them to d).
 */
enum : uint32_t { INFO_SKIP = 1, INFO_ALT = 2 };

/*
 * The upfront histogram (Onesweep): hist[p * BINS + v] +=
 * the number of words of d[0..n) whose byte lo + p is v, for p < np. Each
 * block counts a strided share of the words in shared memory and adds its
 * nonzero counts to hist (zeroed before). hist holds 64-bit counts; a
 * block's share must stay below 2^32 words (the launcher sizes the grid).
 *
 * The words are read 16 bytes at a time (4 u32 or 2 u64 words a load;
 * the words before d's first 16-byte boundary and after the last whole
 * vector are counted one by one by block 0), HIST_UNROLL loads in flight
 * per thread, and each digit is one shared increment: the compiler's
 * ATOMS.POPC.INC adds the lanes that share an address in one step, so
 * sorted or all-equal words cost no more than uniform ones. The counting
 * is cheap enough that the loads bound it: on the H100 this took 2^26 u32
 * from 223 us (a warp-wide test of equal digits per word, 172 million
 * instructions) toward CUB's 122 us
 * (bench/results/h100-radix-match-2026-11-27.md).
 */
template <class T>
__device__ __forceinline__ void hist_count(uint32_t *s_h, const T &w, int lo, int np)
{
#pragma unroll
	for (int p = 0; p < (int)sizeof(T); ++p) {
		if (p >= np)
			break;
		atomicAdd(&s_h[p * BINS + W<T>::digit(w, lo + p)], 1u);
	}
}

template <class T>
__global__ void __launch_bounds__(HIST_THREADS) k_histogram(const T *d, uint64_t n, int lo, int np, uint64_t *hist)
{
	constexpr int MAXP = (int)sizeof(T), PER = sizeof(T) < 16 ? 16 / (int)sizeof(T) : 1;
	__shared__ uint32_t s_h[MAXP * BINS];
	for (int i = threadIdx.x; i < np * BINS; i += HIST_THREADS)
		s_h[i] = 0;
	__syncthreads();
	/* words [0, head) and [tail, n) one by one; [head, tail) as vectors */
	const uint64_t mis = (uint64_t)(reinterpret_cast<uintptr_t>(d) & 15);
	const uint64_t head_w = PER > 1 ? (mis ? (16 - mis) / sizeof(T) : 0) : 0;
	const uint64_t head = head_w < n ? head_w : n;
	const uint64_t nv = (n - head) / PER, tail = head + nv * PER;
	if (blockIdx.x == 0)
		for (uint64_t i = threadIdx.x; i < head + (n - tail); i += HIST_THREADS)
			hist_count<T>(s_h, d[i < head ? i : tail + (i - head)], lo, np);
	struct __align__(16) V { T w[PER]; };
	const V *v = reinterpret_cast<const V *>(d + head);
	const uint64_t stride = (uint64_t)gridDim.x * HIST_THREADS;
	uint64_t i = (uint64_t)blockIdx.x * HIST_THREADS + threadIdx.x;
	for (; i + (HIST_UNROLL - 1) * stride < nv; i += HIST_UNROLL * stride) {
		V x[HIST_UNROLL];
#pragma unroll
		for (int u = 0; u < HIST_UNROLL; ++u)
			x[u] = v[i + u * stride];
#pragma unroll
		for (int u = 0; u < HIST_UNROLL; ++u)
#pragma unroll
			for (int j = 0; j < PER; ++j)
				hist_count<T>(s_h, x[u].w[j], lo, np);
	}
	for (; i < nv; i += stride) {
		const V x = v[i];
#pragma unroll
		for (int j = 0; j < PER; ++j)
			hist_count<T>(s_h, x.w[j], lo, np);
	}
	__syncthreads();
	for (int i = threadIdx.x; i < np * BINS; i += HIST_THREADS)
		if (s_h[i])
			atomicAdd((unsigned long long *)&hist[i], (unsigned long long)s_h[i]);
}

/*
 * One block of BINS threads: turns each pass's digit counts hist[p * BINS
 * + v] into the exclusive prefix (the first output position of digit v in
 * pass p) and writes info (above). A pass whose digit is the same in all
 * n words is skipped (Onesweep's upfront histogram makes this free): the
 * passes that remain alternate between d and scratch.
 */
__global__ void __launch_bounds__(BINS) k_scan(uint64_t *hist, uint64_t n, int np, uint32_t *info)
{
	__shared__ uint64_t s_w[BINS / 32];
	uint32_t alt = 0;
	for (int p = 0; p < np; ++p) {
		const uint64_t c = hist[p * BINS + threadIdx.x];
		const bool skip = __syncthreads_or(c == n);
		hist[p * BINS + threadIdx.x] = bins_exclusive_scan<uint64_t>(c, s_w);
		if (threadIdx.x == 0)
			info[p] = (skip ? INFO_SKIP : 0) | (alt ? INFO_ALT : 0);
		if (!skip)
			alt ^= 1;
		__syncthreads(); /* s_w is reused by the next pass's scan */
	}
	if (threadIdx.x == 0)
		info[np] = alt ? INFO_ALT : 0;
}

/*
 * Digit pass `pass` (byte `byte` of each word) of the words buf0 (d) /
 * buf1 (scratch) hold, from the one info[pass] names into the other,
 * stable. One block sorts one tile of C::TILE consecutive words; its tile
 * id comes from *counter (so that the tiles it waits for in the look-back
 * have started: forward progress), not from blockIdx. start: the pass's
 * digit starts (k_scan); lb: the pass's look-back words, BINS per tile,
 * zeroed before the sort or written by other passes only (st_tag).
 *
 * Steps (GRS, section VI, phases 1 and 3; Onesweep):
 * 1. load the tile, warp-striped (word i of lane l of warp w is word
 *    (w * ITEMS + i) * 32 + l of the tile: coalesced loads), a short last
 *    tile padded with the largest word, which ranks last;
 * 2. the warps' digit counts: per word an atomic add to its warp's
 *    counter of its digit in shared memory (the early counts of CUB's
 *    Onesweep ranking, so that the tile publishes its counts before it
 *    ranks);
 * 3. the tile's digit counts: published for the look-back at once, then
 *    scanned over the bins (the tile's digit starts); the warps' counters
 *    become the digit's start plus the counts of the digit in the warps
 *    before; then per word in tile order the lanes holding the same digit
 *    find each other (match_digit), the highest takes their number from
 *    the counter, and each one's rank is the old value plus its lower
 *    peers (GRS's rank: the words of the same digit before it);
 * 4. each word to its rank in shared memory (the tile, sorted by digit);
 * 5. thread v: look back for digit v's count in the tiles before, publish
 *    the inclusive count, and the output offset of the tile's digit v;
 * 6. write the sorted tile in order: consecutive threads, consecutive
 *    words of one digit, consecutive addresses (GRS: the coalesced
 *    scatter).
 */
template <class T, class C>
__global__ void __launch_bounds__(C::THREADS, C::MINB)
	k_onesweep(T *buf0, T *buf1, uint64_t n, int pass, int byte, const uint64_t *start, const uint32_t *info,
		   uint32_t *counter, uint64_t *lb)
{
	constexpr int TH = C::THREADS, IT = C::ITEMS, WARPS = C::WARPS;
	constexpr uint32_t TILE = C::TILE;
	constexpr size_t KEYB = sizeof(T) * TILE, CNTB = sizeof(uint32_t) * WARPS * BINS;
	const uint32_t inf = info[pass];
	if (inf & INFO_SKIP)
		return;
	const T *src = inf & INFO_ALT ? buf1 : buf0;
	T *dst = inf & INFO_ALT ? buf0 : buf1;

	/* the warps' digit counters, then (after the ranks) the sorted tile */
	__shared__ __align__(16) unsigned char s_raw[KEYB > CNTB ? KEYB : CNTB];
	__shared__ uint64_t s_off[BINS];
	__shared__ uint32_t s_w[BINS / 32];
	__shared__ uint32_t s_tile;
	uint32_t *const s_cnt = reinterpret_cast<uint32_t *>(s_raw);
	T *const s_key = reinterpret_cast<T *>(s_raw);
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

	for (int i = tid; i < WARPS * BINS; i += TH)
		s_cnt[i] = 0;
	if (tid == 0)
		s_tile = atomicAdd(counter, 1u);
	__syncthreads();
	const uint32_t tile = s_tile;
	const uint64_t base = (uint64_t)tile * TILE;
	const uint32_t valid = n - base < TILE ? (uint32_t)(n - base) : TILE;

	/* 1. load */
	T k[IT];
	const uint32_t wofs = (uint32_t)warp * IT * 32 + lane;
	if (valid == TILE) {
#pragma unroll
		for (int i = 0; i < IT; ++i)
			k[i] = src[base + wofs + i * 32];
	} else {
#pragma unroll
		for (int i = 0; i < IT; ++i)
			k[i] = wofs + i * 32 < valid ? src[base + wofs + i * 32] : W<T>::ones();
	}

	/* 2. the warps' digit counts */
	uint32_t *const wc = s_cnt + warp * BINS;
#pragma unroll
	for (int i = 0; i < IT; ++i)
		atomicAdd(&wc[W<T>::digit(k[i], byte)], 1u);
	__syncthreads();

	/* 3. the tile's counts: published, then scanned */
	uint32_t total = 0;
	if (tid < BINS)
		for (int w = 0; w < WARPS; ++w) {
			const uint32_t x = s_cnt[w * BINS + tid];
			s_cnt[w * BINS + tid] = total;
			total += x;
		}
	const uint64_t tag = st_tag(pass);
	/* the padding (largest word) is all in the last bin */
	const uint32_t own = tid == BINS - 1 ? total - (TILE - valid) : total;
	uint64_t *const lbt = lb + (uint64_t)tile * BINS;
	if (tid < BINS)
		st_status(lbt + tid, (tile ? ST_AGG : ST_INC) | tag | own);
	const uint32_t tstart = bins_exclusive_scan<uint32_t>(total, s_w);
	if (tid < BINS)
		for (int w = 0; w < WARPS; ++w)
			s_cnt[w * BINS + tid] += tstart;
	__syncthreads();

	/* 3b. ranks: per word in tile order, the highest of its peers (the
	 * lanes of the warp with its digit) takes their number from the warp's
	 * counter of the digit, and each peer's rank is the old value plus its
	 * lower peers. The leaders' atomics of one warp on one counter take
	 * effect in the warp's instruction order (as CUB's Onesweep ranking
	 * relies on), so no __syncwarp orders one word's update before the
	 * next, and the words' atomics overlap. */
	uint32_t r[IT];
	const uint32_t lt = lanemask_lt();
#pragma unroll
	for (int i = 0; i < IT; ++i) {
		const uint32_t dg = W<T>::digit(k[i], byte);
		const uint32_t m = match_digit(dg);
		const int leader = 31 - __clz(m); /* the highest: one FLO, where the lowest takes a BREV too */
		uint32_t old = 0;
		if (lane == leader)
			old = atomicAdd(&wc[dg], (uint32_t)__popc(m));
		r[i] = __shfl_sync(~0u, old, leader) + __popc(m & lt);
	}
	__syncthreads(); /* the counters are read: the tile overwrites them */

	/* 4. the tile in digit order */
#pragma unroll
	for (int i = 0; i < IT; ++i)
		s_key[r[i]] = k[i];

	/* 5. look-back */
	if (tid < BINS) {
		uint64_t excl = 0;
		if (tile) {
			excl = look_back(lb, tile, tid, tag);
			st_status(lbt + tid, ST_INC | tag | (excl + own));
		}
		s_off[tid] = start[tid] + excl - tstart;
	}
	__syncthreads();

	/* 6. write out */
#pragma unroll
	for (int i = 0; i < IT; ++i) {
		const uint32_t j = i * TH + tid;
		if (j < valid) {
			const T w = s_key[j];
			dst[s_off[W<T>::digit(w, byte)] + j] = w;
		}
	}
}

/* d[0..n) = alt[0..n) when info[np] says the sorted words are in alt. */
template <class T>
__global__ void __launch_bounds__(COPY_THREADS) k_copy_back(T *d, const T *alt, uint64_t n, const uint32_t *info, int np)
{
	if (!(info[np] & INFO_ALT))
		return;
	for (uint64_t i = blockIdx.x * (uint64_t)COPY_THREADS + threadIdx.x; i < n; i += (uint64_t)gridDim.x * COPY_THREADS)
		d[i] = alt[i];
}

} // namespace gs_radix

#endif
