/*
 * bitonic.cu - the bitonic sort's dispatch: launches the kernels of
 * bitonic_kernels.cuh as the planner (bitonic_plan.h) lists them, with the
 * configuration of bitonic_tuning.cuh, and registers the sort as the
 * sorter "bitonic" (sorter.cuh).
 *
 * Source: Capannini, Silvestri, Baraglia, "Sorting on GPUs for large scale
 * datasets: a thorough comparison", sections 5-6 (K-model bitonic sort);
 * bitonic_kernels.cuh says how the passes implement it.
 */
#include "bitonic.cuh"
#include "bitonic_kernels.cuh"
#include "bitonic_plan.h"
#include "bitonic_tuning.cuh"

namespace gs_bitonic {
namespace {

/* k_bitonic_high<T, C, h, TAIL> for the runtime h (1 <= h <= TB - WB). */
template <class T, class C, class IX, bool TAIL, int H>
void launch_high(int h, uint64_t nblk, size_t smem, T *d, IX n, int s, int lo, int rev, cudaStream_t st)
{
	if constexpr (H <= C::TB - Tr<T>::WB) {
		if (h != H)
			return launch_high<T, C, IX, TAIL, H + 1>(h, nblk, smem, d, n, s, lo, rev, st);
		k_bitonic_high<T, C, H, TAIL, IX><<<(unsigned)nblk, 1 << C::NTB, smem, st>>>(d, n, s, lo, (IX)nblk, rev);
	}
}

/* Launch one pass of the plan (asynchronous; returns the launch error). */
template <class T, class C, class IX>
cudaError_t launch_pass(T *d, IX n, int L, int kind, int s, int hi, int lo, int rev, cudaStream_t st)
{
	constexpr int TB = C::TB;
	const size_t smem = sizeof(T) << TB;
	const uint64_t nblk = L > TB ? (1ull << (L - TB)) : 1;
	if (kind == PASS_LOCAL) {
		const uint64_t nloc = ((uint64_t)n + (1ull << TB) - 1) >> TB;
		k_bitonic_local<T, C><<<(unsigned)nloc, 1 << C::NTB, smem, st>>>(d, d, (uint64_t)n);
	} else if (kind == PASS_LOW) {
		k_bitonic_low<T, C, IX><<<(unsigned)nblk, 1 << C::NTB, smem, st>>>(d, n, s, (IX)nblk, rev);
	} else if (kind == PASS_SMEM) {
		launch_high<T, C, IX, false, 1>(hi - lo + 1, nblk, smem, d, n, s, lo, rev, st);
	} else {
		launch_high<T, C, IX, true, 1>(hi - lo + 1, nblk, smem, d, n, s, lo, rev, st);
	}
	return cudaGetLastError();
}

template <class T, class C, class IX, int H>
cudaError_t set_smem_high(int smem)
{
	if constexpr (H <= C::TB - Tr<T>::WB) {
		cudaError_t err = cudaFuncSetAttribute(k_bitonic_high<T, C, H, false, IX>,
						       cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
		if (err == cudaSuccess)
			err = cudaFuncSetAttribute(k_bitonic_high<T, C, H, true, IX>,
						   cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
		return err != cudaSuccess ? err : set_smem_high<T, C, IX, H + 1>(smem);
	}
	return cudaSuccess;
}

/* Shared memory above 48 KiB (the u128 tile) must be asked for, per kernel. */
template <class T, class C, class IX>
cudaError_t set_smem(void)
{
	const int smem = (int)(sizeof(T) << C::TB);
	cudaError_t err = cudaFuncSetAttribute(k_bitonic_local<T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (err == cudaSuccess)
		err = cudaFuncSetAttribute(k_bitonic_low<T, C, IX>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	if (err == cudaSuccess)
		err = set_smem_high<T, C, IX, 1>(smem);
	return err;
}

/* The sort with configuration C and index type IX (uint32_t while every
 * index is below 2^31, which is cheaper arithmetic, else uint64_t). */
template <class T, class C, class IX>
cudaError_t sort_ix(T *d, size_t n, cudaStream_t stream, uint64_t *passes)
{
	cudaError_t err = set_smem<T, C, IX>();
	if (err != cudaSuccess)
		return err;
	const int L = ceil_log2(n);
	if (L > C::TB && (1ull << (L - C::TB)) > 0x7fffffffull)
		return cudaErrorInvalidValue;
	int idx = 0;
	plan(plan_cfg_of<T, C>(), n, [&](int kind, int s, int hi, int lo) {
		if (err != cudaSuccess)
			return;
		/* odd passes in reverse block order (pass_order) */
		const int rev = idx++ & 1;
		err = launch_pass<T, C, IX>(d, (IX)n, L, kind, s, hi, lo, rev, stream);
		if (err == cudaSuccess && passes)
			++*passes;
	});
	return err;
}

} // namespace
} // namespace gs_bitonic

/* Shared memory per SM of the current device, cached per device (0 when
 * it cannot be read: Def is taken). */
static unsigned long smem_per_sm(void)
{
	static int cached[64]; /* bytes + 1; 0: not read yet (a race writes the same value) */
	int dev = 0;
	if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
		(void)cudaGetLastError();
		return 0;
	}
	if (!cached[dev]) {
		int v = 0;
		if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) != cudaSuccess) {
			(void)cudaGetLastError();
			v = 0;
		}
		cached[dev] = v + 1;
	}
	return (unsigned long)(cached[dev] - 1);
}

template <class T>
int bitonic_variant(void)
{
	typedef typename gs_bitonic::Tr<T>::Def D;
	const unsigned long have = smem_per_sm();
	return have && have < gs_bitonic::smem_per_sm_wanted<T, D>() ? BITONIC_LEAN : BITONIC_DEF;
}

template <class T>
cudaError_t bitonic_sort(T *d, size_t n, cudaStream_t stream, uint64_t *passes, bool wide_index, int variant)
{
	typedef typename gs_bitonic::Tr<T>::Def D;
	typedef typename gs_bitonic::Tr<T>::Lean E;
	if (n < 2)
		return cudaSuccess;
	const bool lean = (variant < 0 ? bitonic_variant<T>() : variant) == BITONIC_LEAN;
	if (n <= (1ull << 31) && !wide_index)
		return lean ? gs_bitonic::sort_ix<T, E, uint32_t>(d, n, stream, passes)
			    : gs_bitonic::sort_ix<T, D, uint32_t>(d, n, stream, passes);
	return lean ? gs_bitonic::sort_ix<T, E, uint64_t>(d, n, stream, passes)
		    : gs_bitonic::sort_ix<T, D, uint64_t>(d, n, stream, passes);
}

template <class T>
uint64_t bitonic_pass_count(size_t n, int variant)
{
	if ((variant < 0 ? bitonic_variant<T>() : variant) == BITONIC_LEAN)
		return gs_bitonic::plan_passes(gs_bitonic::plan_cfg_of<T, typename gs_bitonic::Tr<T>::Lean>(), n);
	return gs_bitonic::plan_passes(gs_bitonic::plan_cfg_of<T>(), n);
}

template <class T>
int bitonic_tile_bits(int variant)
{
	if ((variant < 0 ? bitonic_variant<T>() : variant) == BITONIC_LEAN)
		return gs_bitonic::Tr<T>::Lean::TB;
	return gs_bitonic::Tr<T>::Def::TB;
}

template cudaError_t bitonic_sort<uint32_t>(uint32_t *, size_t, cudaStream_t, uint64_t *, bool, int);
template cudaError_t bitonic_sort<uint64_t>(uint64_t *, size_t, cudaStream_t, uint64_t *, bool, int);
template cudaError_t bitonic_sort<gs_u128>(gs_u128 *, size_t, cudaStream_t, uint64_t *, bool, int);
template int bitonic_variant<uint32_t>(void);
template int bitonic_variant<uint64_t>(void);
template int bitonic_variant<gs_u128>(void);
template uint64_t bitonic_pass_count<uint32_t>(size_t, int);
template uint64_t bitonic_pass_count<uint64_t>(size_t, int);
template uint64_t bitonic_pass_count<gs_u128>(size_t, int);
template int bitonic_tile_bits<uint32_t>(int);
template int bitonic_tile_bits<uint64_t>(int);
template int bitonic_tile_bits<gs_u128>(int);

/* The sorter (sorter.cuh): in place, so no scratch. */
namespace {

size_t bitonic_extra_bytes(size_t, int)
{
	return 0;
}

cudaError_t bitonic_sort_words(void *d, size_t n, int width, int key_bits, void *, size_t, cudaStream_t stream,
			       uint64_t *passes)
{
	if (key_bits < 1 || key_bits > 8 * width)
		return cudaErrorInvalidValue;
	switch (width) {
	case 4: return bitonic_sort<uint32_t>((uint32_t *)d, n, stream, passes);
	case 8: return bitonic_sort<uint64_t>((uint64_t *)d, n, stream, passes);
	case 16: return bitonic_sort<gs_u128>((gs_u128 *)d, n, stream, passes);
	default: return cudaErrorInvalidValue;
	}
}

} // namespace

extern const gs_sorter gs_sorter_bitonic = {
	"bitonic",
	"Capannini, Silvestri, Baraglia, \"Sorting on GPUs for large scale datasets: a thorough comparison\", "
	"sections 5-6 (K-model bitonic sort)",
	bitonic_extra_bytes,
	bitonic_sort_words,
};
