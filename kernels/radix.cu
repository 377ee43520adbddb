/*
 * radix.cu - the radix sort's dispatch: the scratch layout, the launches of
 * radix_kernels.cuh with the tiles of radix_tuning.cuh, and the sorter
 * "radix" (sorter.cuh).
 *
 * Source: Bandyopadhyay & Sahni, "GRS - GPU Radix Sort For Multifield
 * Records", sections III and VI (per-tile histograms and ranks, prefix
 * sums, the tile ordered in shared memory, a coalesced scatter), with the
 * upfront histogram and the chained scan with decoupled look-back of
 * Adinets & Merrill, "Onesweep" (2022); radix_kernels.cuh says which code
 * does what.
 *
 * Words of width w with key_bits b: np = ceil(b / 8) digit passes over the
 * top np bytes (a stable sort on more than the top b bits gives the order
 * the sorter contract asks for, so the digits stay whole bytes). The
 * passes ping-pong between d and the scratch copy; passes whose digit is
 * the same in every word are skipped on the device, so the kernels find
 * their source in a table (k_scan), and a last kernel copies the words
 * back to d when an odd number of passes ran.
 *
 * Scratch (device bytes per word, extra_bytes): the other buffer (n * w),
 * the look-back words (8 bytes per bin per tile: 256 * 8 / TILE(w) per
 * word: 0.33 (w = 4, TILE 6144), 0.5 (8, 4096), 1 (16, 2048)) and 32.5 KiB
 * of tables; for n < 2, none. So n * w + 2048 * ceil(n / TILE(w)) +
 * 32.5 KiB (n * w rounded up to 256).
 */
#include "radix_kernels.cuh"

namespace gs_radix {
namespace {

const size_t NMAX = (size_t)1 << 36; /* sorter.cuh: the largest n */
const int MAXP = 16;                 /* digit passes of a 16-byte word */

size_t al256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

/* The tables at the start of the scratch after the other buffer: the
 * histograms / digit starts (MAXP * BINS 64-bit words), info (MAXP + 1
 * words), the tile counters (MAXP words). */
const size_t HIST_BYTES = MAXP * BINS * sizeof(uint64_t);
const size_t INFO_OFS = HIST_BYTES, CNT_OFS = INFO_OFS + 256;
const size_t TABLE_BYTES = CNT_OFS + 256;

template <class T>
size_t tiles_of(size_t n)
{
	const size_t t = Tune<T>::One::TILE;
	return (n + t - 1) / t;
}

template <class T>
size_t extra_of(size_t n)
{
	if (n < 2)
		return 0;
	return al256(n * sizeof(T)) + TABLE_BYTES + tiles_of<T>(n) * BINS * sizeof(uint64_t);
}

/* Blocks for a grid-stride kernel: per_sm per multiprocessor, no more
 * than there is work for, at least 1. */
cudaError_t grid_of(uint64_t work_blocks, int per_sm, unsigned *grid)
{
	int dev = 0, sms = 0;
	cudaError_t err = cudaGetDevice(&dev);
	if (err == cudaSuccess)
		err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	if (err != cudaSuccess)
		return err;
	uint64_t g = (uint64_t)sms * per_sm;
	if (g > work_blocks)
		g = work_blocks;
	*grid = g ? (unsigned)g : 1;
	return cudaSuccess;
}

/*
 * The sort of d[0..n) (n >= 2) by its top np bytes with a scratch of at
 * least extra_of<T>(n) bytes; asynchronous on st. Launches: a memset of
 * the tables and look-back words, the histogram, the scan, np digit passes
 * and the copy back, each checked; *passes gets np + 2 (the histogram, the
 * digit passes, the copy back; a skipped pass or copy exits at once).
 */
template <class T>
cudaError_t sort_words(T *d, size_t n, int np, unsigned char *scratch, cudaStream_t st, uint64_t *passes)
{
	typedef typename Tune<T>::One C;
	T *const alt = reinterpret_cast<T *>(scratch);
	unsigned char *const tab = scratch + al256(n * sizeof(T));
	uint64_t *const hist = reinterpret_cast<uint64_t *>(tab);
	uint32_t *const info = reinterpret_cast<uint32_t *>(tab + INFO_OFS);
	uint32_t *const counter = reinterpret_cast<uint32_t *>(tab + CNT_OFS);
	uint64_t *const lb = reinterpret_cast<uint64_t *>(tab + TABLE_BYTES);
	const uint64_t tiles = tiles_of<T>(n);
	const int lo = (int)sizeof(T) - np;

	cudaError_t err = cudaMemsetAsync(tab, 0, TABLE_BYTES + tiles * BINS * sizeof(uint64_t), st);
	if (err != cudaSuccess)
		return err;

	/* the histogram: a block's share stays below 2^32 words */
	const uint64_t hper = (uint64_t)HIST_THREADS * HIST_UNROLL;
	unsigned hgrid = 0;
	err = grid_of((n + hper - 1) / hper, HIST_BLOCKS_PER_SM, &hgrid);
	if (err != cudaSuccess)
		return err;
	while ((n + hgrid - 1) / hgrid >= ((uint64_t)1 << 31))
		hgrid *= 2;
	k_histogram<T><<<hgrid, HIST_THREADS, 0, st>>>(d, n, lo, np, hist);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	k_scan<<<1, BINS, 0, st>>>(hist, n, np, info);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;

	for (int p = 0; p < np; ++p) {
		k_onesweep<T, C><<<(unsigned)tiles, C::THREADS, 0, st>>>(d, alt, n, p, lo + p, hist + p * BINS, info,
									  counter + p, lb);
		if ((err = cudaGetLastError()) != cudaSuccess)
			return err;
	}

	unsigned cgrid = 0;
	err = grid_of((n + COPY_THREADS - 1) / COPY_THREADS, COPY_BLOCKS_PER_SM, &cgrid);
	if (err != cudaSuccess)
		return err;
	k_copy_back<T><<<cgrid, COPY_THREADS, 0, st>>>(d, alt, n, info, np);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	if (passes)
		*passes += (uint64_t)np + 2;
	return cudaSuccess;
}

} // namespace
} // namespace gs_radix

/* The sorter (sorter.cuh). */
namespace {

size_t radix_extra_bytes(size_t n, int width)
{
	switch (width) {
	case 4: return gs_radix::extra_of<uint32_t>(n);
	case 8: return gs_radix::extra_of<uint64_t>(n);
	case 16: return gs_radix::extra_of<gs_u128>(n);
	default: return 0;
	}
}

cudaError_t radix_sort_words(void *d, size_t n, int width, int key_bits, void *scratch, size_t scratch_bytes,
			     cudaStream_t stream, uint64_t *passes)
{
	if ((width != 4 && width != 8 && width != 16) || key_bits < 1 || key_bits > 8 * width ||
	    n > gs_radix::NMAX || scratch_bytes < radix_extra_bytes(n, width))
		return cudaErrorInvalidValue;
	if (n < 2)
		return cudaSuccess;
	const int np = (key_bits + 7) / 8;
	unsigned char *const s = static_cast<unsigned char *>(scratch);
	switch (width) {
	case 4: return gs_radix::sort_words<uint32_t>((uint32_t *)d, n, np, s, stream, passes);
	case 8: return gs_radix::sort_words<uint64_t>((uint64_t *)d, n, np, s, stream, passes);
	default: return gs_radix::sort_words<gs_u128>((gs_u128 *)d, n, np, s, stream, passes);
	}
}

} // namespace

extern const gs_sorter gs_sorter_radix = {
	"radix",
	"Bandyopadhyay & Sahni, \"GRS - GPU Radix Sort For Multifield Records\", sections III and VI (LSD radix "
	"sort: per-tile histograms and ranks, tile ordered in shared memory, coalesced scatter), with the upfront "
	"histogram and decoupled look-back of Adinets & Merrill, \"Onesweep\" (2022)",
	radix_extra_bytes,
	radix_sort_words,
};
