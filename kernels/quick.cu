/*
 * quick.cu - GPU-Quicksort's dispatch: lays its tables out in scratch,
 * launches the kernels of quick_kernels.cuh with the configuration of
 * quick_tuning.cuh, and registers the sort as the sorter "quick"
 * (sorter.cuh).
 *
 * Source: Cederman & Tsigas, "GPU-Quicksort: A Practical Quicksort
 * Algorithm for Graphics Processors", section 3 (phase one: several blocks
 * per sequence, two-pass partition through an auxiliary buffer; phase
 * two: one block per sequence, explicit stack, bitonic sort in shared
 * memory) and section 5.2 (pivots); quick_kernels.cuh says how the host
 * loop of Algorithm 1 became a fixed number of device-planned rounds.
 *
 * Device memory per sort (extra_bytes), for n words of w bytes, TILE =
 * 4096 / 4096 / 2048 words and m = min(32768, n / LEAFMIN + 1) with
 * LEAFMIN = 8192 / 4096 / 2048 (u32 / u64 / u128), R phase-one rounds
 * (R <= log2(m) + 20, and <= 8 w + 2):
 *   n w                           the auxiliary buffer (section 3.1)
 *   + 4 w (n / TILE + 4 m + 9)    per-tile min/max of a round
 *   + (4 m + 8) (2 E + 4)         two work lists (E = 48 / 48 / 64 bytes)
 *   + 24 (2 P + 8)                phase two's sequences, P = sum over the
 *                                 rounds r < R of min(2^r, m)
 * plus alignment: n w (1 + 1/1024) (u128: 1/512) + at most 56 MiB (u32,
 * n = 2^28: 1.044 n w, 45 MiB of tables).
 */
#include "quick_kernels.cuh"
#include "quick_tuning.cuh"
#include "sorter.cuh"

namespace gs_quick {
namespace {

size_t al256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

/* Offsets of the tables in scratch (QSizes for n, width sizeof(T)). */
template <class T, class C>
struct QLayout {
	size_t aux, ctl, list0, list1, pref, stats, leaves, total;

	explicit QLayout(const QSizes<C> &z, uint64_t n)
	{
		aux = 0;
		ctl = al256(n * sizeof(T));
		list0 = ctl + al256(sizeof(QCtl));
		list1 = list0 + al256(z.list_cap * sizeof(QEnt<T>));
		pref = list1 + al256(z.list_cap * sizeof(QEnt<T>));
		stats = pref + al256((z.list_cap + 1) * sizeof(uint32_t));
		leaves = stats + al256(z.tile_cap * 4 * sizeof(T));
		total = leaves + al256(z.leaf_cap * sizeof(QLeaf));
	}
};

template <class T>
size_t extra_t(size_t n)
{
	typedef typename QTr<T>::Def C;
	if (n < 2)
		return 0;
	return QLayout<T, C>(QSizes<C>(n, (int)sizeof(T)), n).total;
}

/* Resident blocks of kernel f on the current device (the persistent
 * grids); at least one. */
template <class K>
cudaError_t grid_of(K f, int threads, int *grid)
{
	int dev = 0, sms = 0, per = 0;
	cudaError_t err = cudaGetDevice(&dev);
	if (err == cudaSuccess)
		err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	if (err == cudaSuccess)
		err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, f, threads, 0);
	*grid = sms * per > 0 ? sms * per : 1;
	return err;
}

/* The sort of n >= 2 words of type T (scratch checked by the caller). */
template <class T>
cudaError_t sort_t(T *d, size_t n, unsigned char *scratch, cudaStream_t st, uint64_t *passes)
{
	typedef typename QTr<T>::Def C;
	const QSizes<C> z(n, (int)sizeof(T));
	const QLayout<T, C> lay(z, n);
	QTabs<T> t;
	t.d = d;
	t.aux = (T *)(scratch + lay.aux);
	t.ctl = (QCtl *)(scratch + lay.ctl);
	t.list[0] = (QEnt<T> *)(scratch + lay.list0);
	t.list[1] = (QEnt<T> *)(scratch + lay.list1);
	t.pref = (uint32_t *)(scratch + lay.pref);
	t.stats = (T *)(scratch + lay.stats);
	t.leaves = (QLeaf *)(scratch + lay.leaves);
	t.minlen = z.minlen;
	t.list_cap = (uint32_t)z.list_cap;
	t.leaf_cap = (uint32_t)z.leaf_cap;

	int g1 = 1, gf = 1, g2 = 1;
	cudaError_t err = grid_of(k_round<T, C>, C::THREADS, &g1);
	if (err == cudaSuccess)
		err = grid_of(k_finish<T, C>, C::THREADS, &gf);
	if (err == cudaSuccess)
		err = grid_of(k_phase2<T, C>, C::THREADS, &g2);
	if (err != cudaSuccess)
		return err;
	k_start<T, C><<<1, 1, 0, st>>>(t, n, z.rounds);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	/* rounds 0 .. R-1 partition; round R only fills what R-1 left */
	for (int r = 0; z.rounds && r <= z.rounds; ++r) {
		k_round<T, C><<<g1, C::THREADS, 0, st>>>(t, r & 1);
		if (r < z.rounds)
			k_finish<T, C><<<gf, C::THREADS, 0, st>>>(t, r & 1, r == z.rounds - 1);
		if ((err = cudaGetLastError()) != cudaSuccess)
			return err;
		if (passes)
			++*passes;
	}
	k_phase2<T, C><<<g2, C::THREADS, 0, st>>>(t);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	if (passes)
		++*passes;
	return cudaSuccess;
}

/* The sorter (sorter.cuh). */
size_t quick_extra_bytes(size_t n, int width)
{
	switch (width) {
	case 4: return extra_t<uint32_t>(n);
	case 8: return extra_t<uint64_t>(n);
	case 16: return extra_t<gs_u128>(n);
	default: return 0;
	}
}

cudaError_t quick_sort_words(void *d, size_t n, int width, int key_bits, void *scratch, size_t scratch_bytes,
			     cudaStream_t stream, uint64_t *passes)
{
	if ((width != 4 && width != 8 && width != 16) || key_bits < 1 || key_bits > 8 * width ||
	    n > ((size_t)1 << 36))
		return cudaErrorInvalidValue;
	if (n < 2)
		return cudaSuccess;
	if (scratch_bytes < quick_extra_bytes(n, width) || !scratch)
		return cudaErrorInvalidValue;
	unsigned char *s = (unsigned char *)scratch;
	switch (width) {
	case 4: return sort_t<uint32_t>((uint32_t *)d, n, s, stream, passes);
	case 8: return sort_t<uint64_t>((uint64_t *)d, n, s, stream, passes);
	default: return sort_t<gs_u128>((gs_u128 *)d, n, s, stream, passes);
	}
}

} // namespace
} // namespace gs_quick

extern const gs_sorter gs_sorter_quick = {
	"quick",
	"Cederman & Tsigas, \"GPU-Quicksort: A Practical Quicksort Algorithm for Graphics Processors\", "
	"sections 3 (two phases, two-pass partition, explicit stack, bitonic sort of small parts) and 5.2 "
	"(pivots: min/max average, median of three)",
	gs_quick::quick_extra_bytes,
	gs_quick::quick_sort_words,
};
