/*
 * abisort_tuning.cuh - the adaptive bitonic sort's configuration per word
 * type (plain C++, no device code), apart from its kernels
 * (abisort_kernels.cuh) and its dispatch (abisort.cu).
 */
#ifndef GPUSORT_ABISORT_TUNING_CUH
#define GPUSORT_ABISORT_TUNING_CUH

#include <stdint.h>

struct gs_u128; /* sorter.cuh */

namespace gs_abisort {

/*
 * A configuration. TB: the leaf tile, 2^TB output words one block merges
 * in shared memory (the adaptive merge descends in device memory until a
 * subtree has 2^TB words, then inside the block). RB: the adaptive merge
 * inside the block stops at subsequences of 2^RB words, which one thread
 * merges in registers with the plain bitonic merger; the block has
 * 2^(TB - RB) threads. TB must not exceed the tile sort's tile bits + 1
 * (every merge level then has at least one leaf per pair).
 */
template <int TB_, int RB_, int MINB_>
struct ACfg {
	enum { TB = TB_, RB = RB_, NTB = TB_ - RB_, NT = 1 << (TB_ - RB_), T = 1 << TB_, R = 1 << RB_, MINB = MINB_ };
	/* WIDE: a merge stage in device memory with at most this many
	 * instances searches by a warp each, a deeper one by a thread each
	 * (abisort_kernels.cuh, k_abi_split) */
	enum { WIDE = 2048 };
	static_assert(TB_ - RB_ >= 5 && TB_ - RB_ <= 10, "a leaf block is 32..1024 threads");
};

/* Per word type: 16 words a thread, 16 KiB leaf tiles of 8, 4 or 2 warps
 * (u32, u64, u128), 8 leaf blocks an SM, so that u32 keeps 32 registers
 * and all 2048 threads an SM allows. The leaf pass is bound by its
 * instructions and its barriers (a stage of few instances holds up the
 * block), and more, smaller blocks hide them better than 32 KiB tiles of
 * 4 blocks an SM, at the price of one more stage in device memory a
 * level (bench/results/h200-engines-tuning-2026-11-27.md). */
template <class T> struct ATr;
template <> struct ATr<uint32_t> {
	typedef ACfg<12, 4, 8> Def;
};
template <> struct ATr<uint64_t> {
	typedef ACfg<11, 4, 8> Def;
};
template <> struct ATr<gs_u128> {
	typedef ACfg<10, 4, 8> Def;
};

} // namespace gs_abisort

#endif
