/*
 * abisort.cu - the adaptive bitonic sort's dispatch: the tile sort, then
 * one merge level after another (the stages of the adaptive merge in
 * device memory, then the leaf blocks), and the sorter "abisort"
 * (sorter.cuh).
 *
 * Source: G. Zachmann, "Adaptive Bitonic Sorting" (encyclopedia entry:
 * Bilardi & Nicolau's adaptive bitonic sorting, Greß & Zachmann's
 * GPU-ABiSort); abisort_merge.cuh says how the bitonic tree is held.
 *
 * Device memory: besides the n words, a second buffer of n words (the
 * ping-pong of section "GPU-Specific Details") and the split stream S,
 * 8 bytes per 2^TB words of the padded size: width + 16 / 2^TB bytes a
 * record (extra_bytes), 0 when the tile sort alone sorts the words.
 */
#include "abisort_kernels.cuh"
#include "bitonic_kernels.cuh"

namespace gs_abisort {
namespace {

using gs_bitonic::ceil_log2; /* bitonic_plan.h: smallest l with 2^l >= n */

/* log2 of the tile the tile sort sorts (bitonic_tuning.cuh). */
template <class T>
constexpr int local_bits()
{
	return gs_bitonic::Tr<T>::Def::TB;
}

size_t al256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

/* Scratch for n words of type T: the second buffer (256-byte aligned
 * end) and 2^(L - TB) + 1 splits of 8 bytes, L = ceil(log2 n); 0 when
 * n fits one tile of the tile sort. Never decreasing in n. */
template <class T>
size_t extra_of(size_t n)
{
	typedef typename ATr<T>::Def C;
	const int L = ceil_log2(n);
	if (L <= local_bits<T>())
		return 0;
	return al256(n * sizeof(T)) + 8 * ((1ull << (L - C::TB)) + 1);
}

/*
 * Section "Preconditioning the Input": a local sort of every aligned tile
 * of 2^local_bits words first, here the bitonic engine's tile sort (a
 * bitonic sorting network in shared memory, bitonic_kernels.cuh,
 * k_bitonic_local). The paper's 8-word local sort was what a 2006 kernel
 * could hold; a block holds thousands.
 */
template <class T>
cudaError_t local_sort(const T *src, T *dst, size_t n, cudaStream_t st)
{
	typedef typename gs_bitonic::Tr<T>::Def B;
	const int smem = (int)(sizeof(T) << B::TB);
	cudaError_t err = cudaFuncSetAttribute(gs_bitonic::k_bitonic_local<T, B>,
					       cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (err != cudaSuccess)
		return err;
	const uint64_t nloc = ((uint64_t)n + (1ull << B::TB) - 1) >> B::TB;
	gs_bitonic::k_bitonic_local<T, B><<<(unsigned)nloc, 1 << B::NTB, smem, st>>>(src, dst, (uint64_t)n);
	return cudaGetLastError();
}

/*
 * Stages 1 .. j - TB of merge level j's adaptive merge in device memory,
 * reading the runs in src and writing the splits to S (one launch a
 * stage, section "Outline of the Implementation": stage d has 2^(d-1)
 * instances per pair, by a warp or a thread each as stage_wide says).
 */
template <class T>
cudaError_t split_stages(const T *src, size_t n, int j, uint64_t *S, cudaStream_t st, uint64_t *passes)
{
	typedef typename ATr<T>::Def C;
	const uint64_t pairs = ((n - 1) >> j) + 1;
	for (int d = 1; d <= j - C::TB; ++d) {
		const uint64_t count = pairs << (d - 1);
		if (stage_wide<C>(count))
			k_abi_split<T, C, true><<<(unsigned)((count + 7) / 8), 256, 0, st>>>(src, n, j, d, S, count);
		else
			k_abi_split<T, C, false><<<(unsigned)((count + 255) / 256), 256, 0, st>>>(src, n, j, d, S, count);
		cudaError_t err = cudaGetLastError();
		if (err != cudaSuccess)
			return err;
		if (passes)
			++*passes;
	}
	return cudaSuccess;
}

/* The leaf blocks of merge level j from src to dst (its splits in S), one
 * a leaf. */
template <class T>
cudaError_t launch_leaves(const T *src, T *dst, size_t n, int j, const uint64_t *S, cudaStream_t st)
{
	typedef typename ATr<T>::Def C;
	const uint64_t leaves = (n + C::T - 1) >> C::TB;
	k_abi_leaf<T, C><<<(unsigned)leaves, C::NT, 0, st>>>(src, dst, n, j, S);
	return cudaGetLastError();
}

/* Merge level j (runs of 2^(j-1) into runs of 2^j) from src to dst: the
 * stages in device memory, then the leaf blocks. */
template <class T>
cudaError_t merge_level(const T *src, T *dst, size_t n, int j, uint64_t *S, cudaStream_t st, uint64_t *passes)
{
	cudaError_t err = split_stages<T>(src, n, j, S, st, passes);
	if (err != cudaSuccess)
		return err;
	if (passes)
		++*passes;
	return launch_leaves<T>(src, dst, n, j, S, st);
}

/* The sort of n words (sorter.cuh's contract; scratch checked by the
 * caller). */
template <class T>
cudaError_t sort_words(T *d, size_t n, void *scratch, cudaStream_t st, uint64_t *passes)
{
	if (n < 2)
		return cudaSuccess;
	const int L = ceil_log2(n);
	if (L <= local_bits<T>()) {
		if (passes)
			++*passes;
		return local_sort<T>(d, d, n, st);
	}
	/* the ping-pong ends in d: an odd number of merge levels starts from
	 * the second buffer, the tile sort writing there */
	T *alt = (T *)scratch, *src = (L - local_bits<T>()) & 1 ? alt : d, *dst = src == d ? alt : d;
	uint64_t *S = (uint64_t *)((unsigned char *)scratch + al256(n * sizeof(T)));
	cudaError_t err = local_sort<T>(d, src, n, st);
	if (err != cudaSuccess)
		return err;
	if (passes)
		++*passes;
	for (int j = local_bits<T>() + 1; j <= L; ++j) {
		err = merge_level<T>(src, dst, n, j, S, st, passes);
		if (err != cudaSuccess)
			return err;
		T *t = src;
		src = dst;
		dst = t;
	}
	return cudaSuccess;
}

size_t abisort_extra_bytes(size_t n, int width)
{
	switch (width) {
	case 4: return extra_of<uint32_t>(n);
	case 8: return extra_of<uint64_t>(n);
	case 16: return extra_of<gs_u128>(n);
	default: return 0;
	}
}

/* key_bits is accepted and ignored: the words are sorted whole. */
cudaError_t abisort_sort(void *d, size_t n, int width, int key_bits, void *scratch, size_t scratch_bytes,
			 cudaStream_t stream, uint64_t *passes)
{
	if ((width != 4 && width != 8 && width != 16) || key_bits < 1 || key_bits > 8 * width)
		return cudaErrorInvalidValue;
	if (n > (1ull << 36) || scratch_bytes < abisort_extra_bytes(n, width))
		return cudaErrorInvalidValue;
	switch (width) {
	case 4: return sort_words<uint32_t>((uint32_t *)d, n, scratch, stream, passes);
	case 8: return sort_words<uint64_t>((uint64_t *)d, n, scratch, stream, passes);
	default: return sort_words<gs_u128>((gs_u128 *)d, n, scratch, stream, passes);
	}
}

} // namespace
} // namespace gs_abisort

extern const gs_sorter gs_sorter_abisort = {
	"abisort",
	"Zachmann, \"Adaptive Bitonic Sorting\" (Bilardi & Nicolau; Gress & Zachmann's GPU-ABiSort): sections "
	"\"Derivation of Adaptive Bitonic Merging\", \"A GPU Implementation\", \"Preconditioning the Input\", "
	"\"The Last Stage of Each Merge\"",
	gs_abisort::abisort_extra_bytes,
	gs_abisort::abisort_sort,
};
