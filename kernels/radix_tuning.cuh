/*
 * radix_tuning.cuh - the radix sort's tuning constants (kernels/radix.cu):
 * digit size, block shapes and tile sizes per word type. Plain C++ (no
 * device code), so that the host's scratch sizing (extra_bytes) and the
 * kernels see the same tiles.
 */
#ifndef GPUSORT_RADIX_TUNING_CUH
#define GPUSORT_RADIX_TUNING_CUH

#include <stdint.h>

struct gs_u128; /* sorter.cuh */

namespace gs_radix {

/*
 * Digits of 8 bits (256 bins), as Onesweep (Adinets & Merrill 2022) and
 * CUB's Onesweep policies use: a word of w bytes takes w digit passes, and
 * a digit is one byte, so no digit straddles the halves of a gs_u128.
 * BINS must not exceed a digit-pass block's threads (thread t owns bin t in
 * the scan and the look-back).
 */
enum { DIGIT_BITS = 8, BINS = 1 << DIGIT_BITS };

/*
 * A digit-pass (onesweep) configuration: THREADS per block, ITEMS words
 * per thread, so a tile of THREADS * ITEMS words; MINB blocks per SM asked
 * of the compiler (__launch_bounds__), which caps the registers. The tile
 * (THREADS * ITEMS * width bytes) shares its shared memory with the
 * per-warp digit counters (THREADS / 32 * BINS * 4 bytes) and stays below
 * the 48 KiB of static shared memory every target gives.
 */
template <int THREADS_, int ITEMS_, int MINB_>
struct OCfg {
	enum { THREADS = THREADS_, ITEMS = ITEMS_, MINB = MINB_, TILE = THREADS_ * ITEMS_, WARPS = THREADS_ / 32 };
	static_assert(THREADS_ % 32 == 0 && THREADS_ >= BINS && THREADS_ <= 1024, "bad onesweep config");
};

/*
 * Per word type, near CUB's sm_90 Onesweep tiles (384 threads, about 7 K
 * four-byte words a tile; 8- and 16-byte words in about the same bytes):
 * u32 6912 words (27 KiB), u64 4608 (36 KiB), u128 2304 (36 KiB). Large
 * tiles make long runs of one digit in the scatter (coalesced stores) and
 * few look-back steps.
 */
template <class T> struct Tune;
template <> struct Tune<uint32_t> {
	typedef OCfg<384, 18, 2> One;
};
template <> struct Tune<uint64_t> {
	typedef OCfg<384, 12, 2> One;
};
template <> struct Tune<gs_u128> {
	typedef OCfg<384, 6, 2> One;
};

/*
 * The upfront histogram: HIST_THREADS per block, HIST_UNROLL words per
 * thread in flight per step, HIST_BLOCKS_PER_SM blocks per SM (a grid of
 * that many per SM strides over the words).
 */
enum { HIST_THREADS = 256, HIST_UNROLL = 8, HIST_BLOCKS_PER_SM = 4 };

/* The copy back (an odd number of digit passes left the words in scratch). */
enum { COPY_THREADS = 256, COPY_BLOCKS_PER_SM = 8 };

} // namespace gs_radix

#endif
