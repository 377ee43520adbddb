/*
 * sample.cu - the sample sort's dispatch: Algorithm 1 of Dehne & Zaboli
 * launched step by step on one stream (kernels in sample_kernels.cuh and
 * sample_merge.cuh, sizes from sample_plan.h), registered as the sorter
 * "sample" (sorter.cuh).
 *
 * Source: Dehne & Zaboli, "Parallel Sorting for GPUs", section 4,
 * Algorithm 1 (GPU BUCKET SORT, a deterministic sample sort).
 *
 * Device bytes per record besides the words (extra_bytes): the relocation
 * buffer (width), the samples (width / 32) and three K-column tables per
 * tile (3 * 256 * 4 / 2^TB: 0.375 for 4-byte words, 0.75 for 8 and 16),
 * plus a few KiB; 0 when n fits one tile (2^13 words of 4 bytes, 2^12
 * of 8 or 16).
 */
#include <vector>

#include "bitonic.cuh"
#include "sample.cuh"
#include "sample_merge.cuh"

namespace gs_sample {
namespace {

/* A grid-stride kernel's blocks of 256 threads for `work` items. */
unsigned grid_for(uint64_t work)
{
	const uint64_t b = cdiv(work, 256);
	return b > 65536 ? 65536u : b ? (unsigned)b : 1u;
}

/* The launch error, and one more pass over the data when it is one. */
cudaError_t launched(uint64_t *passes, bool pass)
{
	const cudaError_t err = cudaGetLastError();
	if (err == cudaSuccess && pass && passes)
		++*passes;
	return err;
}

/* Shared memory above 48 KiB (16-byte words) must be asked for, per kernel. */
template <class T, class C>
cudaError_t set_smem(void)
{
	const int smem = (int)(sizeof(T) << C::TB);
	cudaError_t err = cudaFuncSetAttribute(gs_bitonic::k_bitonic_local<T, C>,
					       cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (err == cudaSuccess)
		err = cudaFuncSetAttribute(k_chunk<T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (err == cudaSuccess)
		err = cudaFuncSetAttribute(k_locate<T, C::TB>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	return err;
}

#define GS_TRY(x)                                 \
	do {                                      \
		const cudaError_t e_ = (x);       \
		if (e_ != cudaSuccess)            \
			return e_;                \
	} while (0)

/* Steps 3-7: samples, splitters, cuts and bucket offsets from the sorted
 * tiles of d (plan p; tables in the scratch sc). */
template <class T>
cudaError_t buckets(const Plan &p, T *d, unsigned char *sc, cudaStream_t st, uint64_t *passes)
{
	constexpr int TB = gs_bitonic::Tr<T>::Def::TB;
	T *samp = (T *)(sc + p.o_samp), *spl = (T *)(sc + p.o_spl);
	uint64_t *rho = (uint64_t *)(sc + p.o_rho), *bst = (uint64_t *)(sc + p.o_bst);
	uint32_t *lb = (uint32_t *)(sc + p.o_lb), *ub = (uint32_t *)(sc + p.o_ub);
	uint32_t *off = (uint32_t *)(sc + p.o_off), *slab = (uint32_t *)(sc + p.o_slab);
	/* step 3: local samples; step 4: sorted (the bitonic sort, as the paper) */
	k_samples<T, TB><<<grid_for(p.S), 256, 0, st>>>(d, samp, p.S);
	GS_TRY(launched(passes, false));
	GS_TRY(bitonic_sort<T>(samp, p.S, st, passes));
	/* step 5: the K - 1 splitters */
	k_splitters<T><<<1, K, 0, st>>>(samp, p.S, spl, rho);
	GS_TRY(launched(passes, false));
	/* step 6: bounds of every splitter in every tile */
	k_locate<T, TB><<<(unsigned)p.m, NTL, sizeof(T) << TB, st>>>(d, p.n, spl, lb, ub);
	GS_TRY(launched(passes, true));
	/* step 6 with ties: equal samples before each tile, then the cuts */
	const EqualSamples fe = {lb, ub};
	k_colsum<<<(unsigned)p.nslab, K, 0, st>>>(fe, p.m, p.rs, slab);
	GS_TRY(launched(passes, false));
	k_slabscan<<<1, K, 0, st>>>(slab, p.nslab, NULL);
	GS_TRY(launched(passes, false));
	k_colapply<<<(unsigned)p.nslab, K, 0, st>>>(fe, p.m, p.rs, slab, off);
	GS_TRY(launched(passes, false));
	k_cuts<<<grid_for(p.m * K), 256, 0, st>>>(lb, ub, off, rho, p.m * K);
	GS_TRY(launched(passes, false));
	/* step 7: bucket offsets of every tile (into ub) and bucket starts */
	const BucketWords fc = {lb};
	k_colsum<<<(unsigned)p.nslab, K, 0, st>>>(fc, p.m, p.rs, slab);
	GS_TRY(launched(passes, false));
	k_slabscan<<<1, K, 0, st>>>(slab, p.nslab, bst);
	GS_TRY(launched(passes, false));
	k_colapply<<<(unsigned)p.nslab, K, 0, st>>>(fc, p.m, p.rs, slab, ub);
	return launched(passes, false);
}

/* Step 9: every bucket of buf sorted, the result in d (plan p). */
template <class T>
cudaError_t sort_buckets(const Plan &p, T *d, T *buf, unsigned char *sc, cudaStream_t st, uint64_t *passes)
{
	typedef typename gs_bitonic::Tr<T>::Def C;
	const uint64_t *bst = (const uint64_t *)(sc + p.o_bst);
	uint32_t *part = (uint32_t *)(sc + p.o_part);
	/* rounds alternate buffers: start where an even count ends in d */
	T *cur = p.rounds % 2 ? buf : d;
	k_chunk<T, C><<<(unsigned)(K * p.cpb), 1 << C::NTB, sizeof(T) << C::TB, st>>>(buf, cur, bst, (uint32_t)p.cpb);
	GS_TRY(launched(passes, true));
	for (int r = 0; r < p.rounds; ++r) {
		const Round g = round_of(p, r);
		const uint64_t ntile = K * g.np * g.tpp;
		T *nxt = cur == d ? buf : d;
		k_merge_part<T><<<grid_for(ntile), 256, 0, st>>>(cur, bst, part, ntile, g.w, g.np, g.tpp);
		GS_TRY(launched(passes, false));
		k_merge<T><<<(unsigned)ntile, MNT, 0, st>>>(cur, nxt, bst, part, g.w, g.np, g.tpp);
		GS_TRY(launched(passes, true));
		cur = nxt;
	}
	return cudaSuccess;
}

} // namespace
} // namespace gs_sample

template <class T>
cudaError_t sample_sort(T *d, size_t n, void *scratch, size_t scratch_bytes, cudaStream_t stream, uint64_t *passes)
{
	using namespace gs_sample;
	typedef typename gs_bitonic::Tr<T>::Def C;
	if (n > ((size_t)1 << 36))
		return cudaErrorInvalidValue;
	const Plan p = plan_of<T>(n);
	if (scratch_bytes < p.total || (p.total && !scratch))
		return cudaErrorInvalidValue;
	if (n < 2)
		return cudaSuccess;
	GS_TRY((set_smem<T, C>()));
	const size_t smem = sizeof(T) << C::TB;
	/* steps 1-2: the sublists (tiles) sorted in shared memory, bitonic */
	gs_bitonic::k_bitonic_local<T, C><<<(unsigned)cdiv(n, (uint64_t)1 << C::TB), 1 << C::NTB, smem, stream>>>(d, d, n);
	GS_TRY(launched(passes, true));
	if (!p.m)
		return cudaSuccess; /* one tile */
	unsigned char *sc = (unsigned char *)scratch;
	T *buf = (T *)(sc + p.o_buf);
	GS_TRY(buckets<T>(p, d, sc, stream, passes));
	/* step 8: every tile's buckets to their places in buf */
	k_relocate<T, C::TB><<<(unsigned)p.m, NTL, 0, stream>>>(d, n, (const uint32_t *)(sc + p.o_lb),
								 (const uint32_t *)(sc + p.o_ub),
								 (const uint64_t *)(sc + p.o_bst), buf);
	GS_TRY(launched(passes, true));
	return sort_buckets<T>(p, d, buf, sc, stream, passes);
}

template <class T>
size_t sample_extra_bytes(size_t n)
{
	return gs_sample::plan_of<T>(n).total;
}

template <class T>
cudaError_t sample_bucket_stats(const void *scratch, size_t n, uint64_t *largest, uint64_t *bound)
{
	const gs_sample::Plan p = gs_sample::plan_of<T>(n);
	*largest = *bound = 0;
	if (!p.m)
		return cudaSuccess;
	std::vector<uint64_t> bst(gs_sample::K + 1);
	const cudaError_t err = cudaMemcpy(bst.data(), (const unsigned char *)scratch + p.o_bst,
					   bst.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost);
	if (err != cudaSuccess)
		return err;
	for (int b = 0; b < gs_sample::K; ++b)
		if (bst[b + 1] - bst[b] > *largest)
			*largest = bst[b + 1] - bst[b];
	*bound = p.bmax;
	return cudaSuccess;
}

template cudaError_t sample_sort<uint32_t>(uint32_t *, size_t, void *, size_t, cudaStream_t, uint64_t *);
template cudaError_t sample_sort<uint64_t>(uint64_t *, size_t, void *, size_t, cudaStream_t, uint64_t *);
template cudaError_t sample_sort<gs_u128>(gs_u128 *, size_t, void *, size_t, cudaStream_t, uint64_t *);
template size_t sample_extra_bytes<uint32_t>(size_t);
template size_t sample_extra_bytes<uint64_t>(size_t);
template size_t sample_extra_bytes<gs_u128>(size_t);
template cudaError_t sample_bucket_stats<uint32_t>(const void *, size_t, uint64_t *, uint64_t *);
template cudaError_t sample_bucket_stats<uint64_t>(const void *, size_t, uint64_t *, uint64_t *);
template cudaError_t sample_bucket_stats<gs_u128>(const void *, size_t, uint64_t *, uint64_t *);

/* The sorter (sorter.cuh). key_bits is not used: the words are compared
 * whole. */
namespace {

size_t sample_extra(size_t n, int width)
{
	switch (width) {
	case 4: return sample_extra_bytes<uint32_t>(n);
	case 8: return sample_extra_bytes<uint64_t>(n);
	case 16: return sample_extra_bytes<gs_u128>(n);
	default: return 0;
	}
}

cudaError_t sample_sort_words(void *d, size_t n, int width, int key_bits, void *scratch, size_t scratch_bytes,
			      cudaStream_t stream, uint64_t *passes)
{
	if (key_bits < 1 || key_bits > 8 * width)
		return cudaErrorInvalidValue;
	switch (width) {
	case 4: return sample_sort<uint32_t>((uint32_t *)d, n, scratch, scratch_bytes, stream, passes);
	case 8: return sample_sort<uint64_t>((uint64_t *)d, n, scratch, scratch_bytes, stream, passes);
	case 16: return sample_sort<gs_u128>((gs_u128 *)d, n, scratch, scratch_bytes, stream, passes);
	default: return cudaErrorInvalidValue;
	}
}

} // namespace

extern const gs_sorter gs_sorter_sample = {
	"sample",
	"Dehne & Zaboli, \"Parallel Sorting for GPUs\", section 4, Algorithm 1 (GPU BUCKET SORT: deterministic "
	"sample sort)",
	sample_extra,
	sample_sort_words,
};
