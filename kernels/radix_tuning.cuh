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
 * Per word type, 256 threads and 3 blocks per SM (at most 85 registers), a
 * tile of 24 KiB (u32: 6144 words) or 32 KiB (u64: 4096, u128: 2048).
 * Measured on the H100 (bench/results/h100-radix-2026-11-25.md), u32 2^28
 * with a look-back of one tile a step: this 7.56 ms; 384 x 18 at 2 blocks
 * per SM 8.36, 512 x 14 at 2 8.34, 384 x 20 at 1 11.5; u64, (key, index)
 * and u128 words rank the shapes alike. Large tiles make long runs of one digit in the scatter
 * (coalesced stores) and few look-back steps per word.
 * (-D overrides, for tuning runs: GS_RADIX_{T,I,B}{32,64,128}.)
 */
#ifndef GS_RADIX_T32
#define GS_RADIX_T32 256
#define GS_RADIX_I32 24
#define GS_RADIX_B32 3
#endif
#ifndef GS_RADIX_T64
#define GS_RADIX_T64 256
#define GS_RADIX_I64 16
#define GS_RADIX_B64 3
#endif
#ifndef GS_RADIX_T128
#define GS_RADIX_T128 256
#define GS_RADIX_I128 8
#define GS_RADIX_B128 3
#endif
template <class T> struct Tune;
template <> struct Tune<uint32_t> {
	typedef OCfg<GS_RADIX_T32, GS_RADIX_I32, GS_RADIX_B32> One;
};
template <> struct Tune<uint64_t> {
	typedef OCfg<GS_RADIX_T64, GS_RADIX_I64, GS_RADIX_B64> One;
};
template <> struct Tune<gs_u128> {
	typedef OCfg<GS_RADIX_T128, GS_RADIX_I128, GS_RADIX_B128> One;
};

/*
 * How a warp finds the lanes that hold the same digit: 1, CUB's MatchAny
 * (one ballot per digit bit); 0, __match_any_sync (on the H100 the sort of
 * 2^28 u32 words took 12.1 ms with it, 8.55 ms with the ballots).
 */
#ifndef GS_RADIX_RANK_BALLOT
#define GS_RADIX_RANK_BALLOT 1
#endif
enum { RANK_BALLOT = GS_RADIX_RANK_BALLOT };

/* Status words of LB_BATCH tiles one look-back step reads at once (u32
 * 2^28 on the H100: 1 tile 8.36 ms, 4 tiles 7.83, 8 tiles 7.96). */
#ifndef GS_RADIX_LB_BATCH
#define GS_RADIX_LB_BATCH 4
#endif
enum { LB_BATCH = GS_RADIX_LB_BATCH };

/*
 * The upfront histogram: HIST_THREADS per block, HIST_UNROLL 16-byte loads
 * per thread in flight per step, HIST_BLOCKS_PER_SM
 * blocks per SM (a grid of that many per SM strides over the words).
 */
enum { HIST_THREADS = 256, HIST_UNROLL = 8, HIST_BLOCKS_PER_SM = 8 };

/* The copy back (an odd number of digit passes left the words in scratch). */
enum { COPY_THREADS = 256, COPY_BLOCKS_PER_SM = 8 };

} // namespace gs_radix

#endif
