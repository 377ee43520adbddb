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
	static_assert(TB_ - RB_ >= 5 && TB_ - RB_ <= 10, "a leaf block is 32..1024 threads");
};

/* Per word type: tiles of 32 KiB of shared memory (static, under 48 KiB),
 * 16 words a thread, 4 leaf blocks per SM: u32 then fits 32 registers
 * (2048 threads an SM, no spill), u64 64 (4 bytes spilled), u128 108;
 * asking more blocks of u64 and u128 spills tens to hundreds of bytes. */
template <class T> struct ATr;
template <> struct ATr<uint32_t> {
	typedef ACfg<13, 4, 4> Def;
};
template <> struct ATr<uint64_t> {
	typedef ACfg<12, 4, 4> Def;
};
template <> struct ATr<gs_u128> {
	typedef ACfg<11, 4, 4> Def;
};

} // namespace gs_abisort

#endif
