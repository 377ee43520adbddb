/*
 * sample_merge.cuh - step 9 of the sample sorter (Sublist Sort): every
 * bucket [bst[b], bst[b + 1]) sorted on its own, its size known only on
 * the device and at most the plan's bmax. Included by sample.cu only.
 *
 * Source: Dehne & Zaboli, "Parallel Sorting for GPUs", section 4, Step 9
 * (each bucket sorted with the bitonic sort of step 4); here the bitonic
 * tile sort on chunks of 2^TB words of a bucket (k_chunk), then merge
 * rounds (k_merge_part, k_merge) that double the sorted runs within each
 * bucket until they hold bmax: Odeh et al.'s merge path, as
 * merge_path.cu does it (its file comment), with the pairs of runs in
 * every bucket at once. Blocks are laid out for bmax words per bucket;
 * those past a bucket's end return at once, so no size comes back to the
 * host.
 */
#ifndef GPUSORT_SAMPLE_MERGE_CUH
#define GPUSORT_SAMPLE_MERGE_CUH

#include "sample_kernels.cuh"

namespace gs_sample {

/*
 * Chunk c of bucket b (block b cpb + c): words [bst[b] + c 2^TB, ...) up
 * to the bucket's end, sorted in shared memory by the bitonic tile sort
 * (padded with +infinity, which sorts last and is not stored) from in to
 * out (the same buffer or not: a block reads all of its chunk first).
 */
template <class T, class C>
__global__ void __launch_bounds__(1 << C::NTB, C::LMINB) k_chunk(const T *in, T *out, const uint64_t *__restrict__ bst,
								 uint32_t cpb)
{
	using namespace gs_bitonic;
	constexpr int TB = C::TB, RB = C::RB, WB = Tr<T>::WB, R = 1 << RB;
	constexpr uint32_t NT = 1u << C::NTB;
	extern __shared__ __align__(16) unsigned char gs_smem[];
	T *tile = reinterpret_cast<T *>(gs_smem);
	const uint32_t tid = threadIdx.x, b = blockIdx.x / cpb, c = blockIdx.x % cpb;
	const uint64_t lo = bst[b] + ((uint64_t)c << TB), en = bst[b + 1];
	if (lo >= en)
		return;
	const uint32_t len = (uint32_t)(en - lo < ((uint64_t)1 << TB) ? en - lo : (uint64_t)1 << TB);
#pragma unroll 8
	for (int q = 0; q < R; ++q) {
		const uint32_t e = tid + q * NT;
		tile[swz2<RB, WB>(tid, q * NT, NT - 1)] = e < len ? in[lo + e] : Word<T>::inf();
	}
	__syncthreads();
	tile_sort<T, C>(tile);
	__syncthreads();
#pragma unroll 8
	for (int q = 0; q < R; ++q) {
		const uint32_t e = tid + q * NT;
		if (e < len)
			out[lo + e] = tile[swz2<RB, WB>(tid, q * NT, NT - 1)];
	}
}

/*
 * Where output tile g of a merge round lies: bucket b, pair j (runs
 * [j 2w, j 2w + w) and [j 2w + w, (j + 1) 2w) of the bucket, cut at its
 * end), output offset o within the pair. False when the tile is past the
 * pair's or the bucket's end.
 */
struct TileAt {
	uint64_t st;	  /* the pair's first word, absolute */
	uint64_t na, nb;  /* its two runs */
	uint64_t o;	  /* the tile's first output within the pair */
};

__device__ __forceinline__ bool tile_at(uint64_t g, const uint64_t *bst, uint64_t w, uint64_t np, uint64_t tpp,
					uint32_t tile, TileAt &t)
{
	const uint64_t per = np * tpp, b = g / per, j = (g % per) / tpp, k = g % tpp;
	const uint64_t bs = bst[b], sz = bst[b + 1] - bs, ps = j * 2 * w;
	if (ps >= sz)
		return false;
	const uint64_t plen = sz - ps < 2 * w ? sz - ps : 2 * w;
	t.o = k * tile;
	if (t.o >= plen)
		return false;
	t.st = bs + ps;
	t.na = plen < w ? plen : w;
	t.nb = plen - t.na;
	return true;
}

/* Merge round, partition: part[g] = the A-count at tile g's first output
 * (one thread per tile, all searches of the round in parallel). */
template <class T>
__global__ void k_merge_part(const T *__restrict__ in, const uint64_t *__restrict__ bst, uint32_t *__restrict__ part,
			     uint64_t ntile, uint64_t w, uint64_t np, uint64_t tpp)
{
	constexpr uint32_t TILE = MNT * MergeVT<T>::VT;
	for (uint64_t g = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; g < ntile;
	     g += (uint64_t)gridDim.x * blockDim.x) {
		TileAt t;
		if (tile_at(g, bst, w, np, tpp, TILE, t))
			part[g] = (uint32_t)path_split<T, uint64_t>(in + t.st, t.na, in + t.st + t.na, t.nb, t.o);
	}
}

/*
 * Merge round, one block per output tile g: its parts of the two runs
 * (A from part[g] to the next tile's split; B the rest of the tile)
 * merged into out by merge_block_tile (merge_block.cuh).
 */
template <class T>
__global__ void __launch_bounds__(MNT) k_merge(const T *__restrict__ in, T *__restrict__ out,
					       const uint64_t *__restrict__ bst, const uint32_t *__restrict__ part,
					       uint64_t w, uint64_t np, uint64_t tpp)
{
	constexpr int VT = MergeVT<T>::VT, TILE = MNT * VT;
	__shared__ T s[TILE];
	TileAt t;
	if (!tile_at(blockIdx.x, bst, w, np, tpp, TILE, t))
		return;
	const uint64_t plen = t.na + t.nb, d1 = t.o + TILE < plen ? t.o + TILE : plen;
	const uint64_t ia0 = part[blockIdx.x];
	const uint64_t ia1 = d1 == plen ? t.na : part[blockIdx.x + 1]; /* next tile: same pair */
	const int na = (int)(ia1 - ia0), cnt = (int)(d1 - t.o);
	merge_block_tile<T, MNT, VT>(s, in + t.st + ia0, in + t.st + t.na + (t.o - ia0), na, cnt, out + t.st + t.o);
}

} // namespace gs_sample

#endif
