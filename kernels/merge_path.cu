/*
 * merge_path.cu - stable pairwise merge of sorted segments on the GPU.
 *
 * Sources: S. Odeh, O. Green, Z. Mwassi, O. Shmueli, Y. Birk, "Merge Path -
 * Parallel Merging Made Simple", IPDPS Workshops (MTAAP) 2012, section II
 * (the merge matrix and the merge path; cross diagonal i meets the path
 * exactly once, and the meeting point is found by a binary search along the
 * diagonal; the cuts at equally spaced diagonals split the merge into
 * independent, equally long pieces: Algorithm 1); and O. Green, R. McColl,
 * D. A. Bader, "GPU Merge Path - A GPU Merging Algorithm", ICS 2012,
 * section 3 (on the GPU: a partitioning step finds each thread block's
 * start on the path in global memory, then each block loads its parts of A
 * and B into shared memory, partitions them again among its threads along
 * cross diagonals, and every thread merges its own piece sequentially).
 *
 * Merge path: with A and B sorted, mark the merge matrix M[i][j] = 1 iff
 * A[i] > B[j] (so B[j] goes out first only when strictly smaller: ties take
 * A first, which makes the merge stable when A precedes B). The path from
 * the top left walks right (take A[i]) or down (take B[j]); the first d
 * outputs are A[0..i) and B[0..d-i) where (i, d-i) is the path's point on
 * cross diagonal d, and i is the number of elements A[i'] (i' on the
 * diagonal) with A[i'] <= B[d-1-i'] — monotone along the diagonal, hence
 * the binary search (path_split below).
 *
 * Here, per round, each pair (A = segment 2i, B = segment 2i+1) is cut
 * into output tiles of TILE = NT * VT elements:
 *   - k_partition: one thread per tile, path_split on the tile's first
 *     output diagonal, in global memory (all searches of a round run in
 *     parallel; Green et al.'s partitioning stage);
 *   - k_merge: one block per tile: the tile's A and B parts (contiguous
 *     ranges, read coalesced) go to shared memory; thread t searches its
 *     diagonal t * VT there and merges VT outputs sequentially into
 *     registers; they go back through shared memory and are written
 *     coalesced. VT is odd so the strided register-to-shared writes hit
 *     distinct banks.
 * A round is one launch pair over all pairs of the round (a table of up to
 * GS_MERGE_MAXP pairs as a __grid_constant__ kernel parameter; more pairs:
 * more launches); a segment without a partner is a pair with an empty B
 * (copied by the same kernels). Rounds ping-pong between two buffers.
 */
#include "merge_block.cuh"
#include "merge_path.cuh"

namespace {

constexpr int NT = 256; /* threads per block */

/* Outputs per thread of a merge block (merge_block_tile: odd). */
template <class T> struct Mt;
template <> struct Mt<uint32_t> {
	enum { VT = 15 };
};
template <> struct Mt<uint64_t> {
	enum { VT = 11 };
};
template <> struct Mt<gs_u128> {
	enum { VT = 7 };
};

/* One launch's pairs: pair p merges [a[p], m[p]) and [m[p], e[p]) into
 * [a[p], e[p]) of the other buffer; its tiles are blocks blk[p]..blk[p+1]-1. */
struct MergeTab {
	uint64_t a[GS_MERGE_MAXP], m[GS_MERGE_MAXP], e[GS_MERGE_MAXP];
	uint32_t blk[GS_MERGE_MAXP + 1];
	uint32_t np;
};

/* The pair whose tiles include block b: largest p with blk[p] <= b. */
__device__ __forceinline__ uint32_t pair_of(const MergeTab &t, uint32_t b)
{
	uint32_t lo = 0, hi = t.np - 1;
	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) >> 1;
		if (t.blk[mid] <= b)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* part[b] = the A-count at the first output diagonal of block b. */
template <class T>
__global__ void k_partition(const T *__restrict__ d, uint64_t *__restrict__ part, uint32_t nblk,
			    const __grid_constant__ MergeTab tab)
{
	constexpr uint64_t TILE = (uint64_t)NT * Mt<T>::VT;
	for (uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < nblk; b += gridDim.x * blockDim.x) {
		const uint32_t p = pair_of(tab, b);
		const uint64_t a0 = tab.a[p], m = tab.m[p], e = tab.e[p];
		const uint64_t diag = (uint64_t)(b - tab.blk[p]) * TILE; /* < e - a0 */
		part[b] = path_split<T, uint64_t>(d + a0, m - a0, d + m, e - m, diag);
	}
}

template <class T>
__global__ void __launch_bounds__(NT) k_merge(const T *__restrict__ in, T *__restrict__ out,
					       const uint64_t *__restrict__ part, const __grid_constant__ MergeTab tab)
{
	constexpr int VT = Mt<T>::VT, TILE = NT * VT;
	__shared__ T s[TILE];
	const uint32_t b = blockIdx.x;
	const uint32_t p = pair_of(tab, b);
	const uint64_t a0 = tab.a[p], m = tab.m[p], e = tab.e[p];
	const uint64_t la = m - a0, lb = e - m;
	const uint64_t d0 = (uint64_t)(b - tab.blk[p]) * TILE;
	const uint64_t d1 = d0 + TILE < la + lb ? d0 + TILE : la + lb;
	/* this tile's parts: A[ia0, ia1), B[d0 - ia0, d1 - ia1) */
	const uint64_t ia0 = part[b];
	const uint64_t ia1 = d1 == la + lb ? la : part[b + 1]; /* next block: same pair */
	const int na = (int)(ia1 - ia0), cnt = (int)(d1 - d0);
	merge_block_tile<T, NT, VT>(s, in + a0 + ia0, in + m + (d0 - ia0), na, cnt, out + a0 + d0);
}

unsigned grid_for(uint64_t threads)
{
	uint64_t b = (threads + NT - 1) / NT;
	if (b > 65536)
		b = 65536; /* grid-stride loop does the rest */
	return b ? (unsigned)b : 1u;
}

} // namespace

template <class T>
int merge_tile(void)
{
	return NT * Mt<T>::VT;
}

template <class T>
cudaError_t merge_path_rounds(T *d, T *alt, size_t *seg, int m, uint64_t *scratch, cudaStream_t stream,
			      T **result, uint64_t *passes)
{
	const uint64_t TILE = (uint64_t)merge_tile<T>();
	T *src = d, *dst = alt;
	while (m > 1) {
		const int npairs = (m + 1) / 2;
		for (int p0 = 0; p0 < npairs; p0 += GS_MERGE_MAXP) {
			MergeTab tab;
			tab.np = (uint32_t)(npairs - p0 < GS_MERGE_MAXP ? npairs - p0 : GS_MERGE_MAXP);
			uint64_t nblk = 0;
			for (uint32_t q = 0; q < tab.np; ++q) {
				const int i = 2 * (p0 + (int)q);
				tab.a[q] = seg[i];
				tab.m[q] = seg[i + 1 < m ? i + 1 : m];
				tab.e[q] = seg[i + 2 < m ? i + 2 : m];
				tab.blk[q] = (uint32_t)nblk;
				nblk += (tab.e[q] - tab.a[q] + TILE - 1) / TILE; /* >= 1: segments are non-empty */
			}
			tab.blk[tab.np] = (uint32_t)nblk;
			if (nblk > 0x7fffffffull)
				return cudaErrorInvalidValue;
			k_partition<T><<<grid_for(nblk), NT, 0, stream>>>(src, scratch, (uint32_t)nblk, tab);
			cudaError_t err = cudaGetLastError();
			if (err != cudaSuccess)
				return err;
			k_merge<T><<<(unsigned)nblk, NT, 0, stream>>>(src, dst, scratch, tab);
			if ((err = cudaGetLastError()) != cudaSuccess)
				return err;
		}
		/* the merged pairs are the next round's segments */
		for (int j = 0; j < npairs; ++j)
			seg[j] = seg[2 * j];
		seg[npairs] = seg[m];
		m = npairs;
		T *t = src;
		src = dst;
		dst = t;
		if (passes)
			++*passes;
	}
	*result = src;
	return cudaSuccess;
}

template int merge_tile<uint32_t>(void);
template int merge_tile<uint64_t>(void);
template int merge_tile<gs_u128>(void);
template cudaError_t merge_path_rounds<uint32_t>(uint32_t *, uint32_t *, size_t *, int, uint64_t *, cudaStream_t,
						 uint32_t **, uint64_t *);
template cudaError_t merge_path_rounds<uint64_t>(uint64_t *, uint64_t *, size_t *, int, uint64_t *, cudaStream_t,
						 uint64_t **, uint64_t *);
template cudaError_t merge_path_rounds<gs_u128>(gs_u128 *, gs_u128 *, size_t *, int, uint64_t *, cudaStream_t,
						gs_u128 **, uint64_t *);
