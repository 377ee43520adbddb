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
template <int TB_, int RB_>
struct ACfg {
	enum { TB = TB_, RB = RB_, NTB = TB_ - RB_, NT = 1 << (TB_ - RB_), T = 1 << TB_, R = 1 << RB_ };
	/* shared-memory words of the tile: one pad word after every 16, so
	 * that a thread's 16 consecutive words (the leaf merge) fall into
	 * distinct banks across a warp (abisort_kernels.cuh, pad) */
	enum { SMEM_WORDS = T + T / 16 };
	static_assert(RB_ == 4, "the tile's padding assumes 16-word leaves");
	static_assert(TB_ - RB_ >= 5 && TB_ - RB_ <= 10, "a leaf block is 32..1024 threads");
};

/* Per word type: tiles of 34 KiB of shared memory (static, under 48 KiB,
 * several blocks per SM), 16 words a thread. */
template <class T> struct ATr;
template <> struct ATr<uint32_t> {
	typedef ACfg<13, 4> Def;
};
template <> struct ATr<uint64_t> {
	typedef ACfg<12, 4> Def;
};
template <> struct ATr<gs_u128> {
	typedef ACfg<11, 4> Def;
};

} // namespace gs_abisort

#endif
