/*
 * bitonic_tuning.cuh - the bitonic kernels' configuration template and the
 * configuration each element type uses. Plain C++ (no device code), so
 * that the host planner's tests see the same configurations the kernels
 * are built with.
 */
#ifndef GPUSORT_BITONIC_TUNING_CUH
#define GPUSORT_BITONIC_TUNING_CUH

#include <stdint.h>

#include "bitonic_plan.h"

struct gs_u128; /* bitonic.cuh */

namespace gs_bitonic {

/*
 * A kernel configuration. TB: tile bits, the paper's k = 2^TB elements a
 * block holds in shared memory (a Γ-partition), so that a pass does up to
 * TB steps. RB: register bits, 2^RB elements a thread (a block has
 * 2^(TB - RB) threads), which it takes through RB steps per shared-memory
 * exchange. MINB: blocks per SM asked of the compiler for the pass kernels
 * (__launch_bounds__), which caps their registers. STG: a chained pass
 * reads its first tail group straight from device memory when that
 * group's lanes are runs of at least 2^STG consecutive elements, else
 * stages the tile through shared memory first; -1 = WB (whole 128-byte
 * lines). EQC: the planner's cost model (bitonic_plan.h, plan_cfg::eqc).
 */
template <int TB_, int RB_, int MINB_, int STG_, int EQC_>
struct BCfg {
	enum { TB = TB_, RB = RB_, NTB = TB_ - RB_, MINB = MINB_, STG = STG_, EQC = EQC_ };
	/* blocks per SM for the tile sort: 2 when 128 registers a thread
	 * allow it (its compile-time groups want well over 100), else 1 */
	enum { LMINB = (1 << NTB) <= 256 ? 2 : 1 };
	static_assert(RB_ >= 2 && RB_ <= 6 && TB_ - RB_ >= 5 && TB_ - RB_ <= 10, "bad bitonic config");
};

/*
 * Per element type: WB, log2 of the elements in a 128-byte line (the low
 * bits every shared-memory pass keeps, so that a warp reads whole lines),
 * and Def, the configuration bitonic_sort uses (the fastest measured;
 * bench/results/INDEX.md names the profile). u32: 2^13 tiles (32 KiB),
 * 3 blocks per SM, chained passes reading 32-byte runs straight. u64: 2^12
 * tiles (32 KiB), 4 blocks per SM. Both plan the fewest passes (EQC): no
 * pass spills registers, so every pass costs about a copy of the data.
 * u128: 2^12 tiles (64 KiB) with the fitted costs.
 */
template <class T> struct Tr;
template <> struct Tr<uint32_t> {
	enum { WB = 5 };
	typedef BCfg<13, 5, 3, 3, 1> Def;
	typedef BCfg<12, 4, 4, 3, 1> Lean;
};
template <> struct Tr<uint64_t> {
	enum { WB = 4 };
	typedef BCfg<12, 4, 4, -1, 1> Def;
	typedef BCfg<11, 3, 4, -1, 1> Lean;
};
template <> struct Tr<gs_u128> {
	enum { WB = 3 };
	typedef BCfg<12, 3, 2, -1, 0> Def;
	typedef BCfg<11, 3, 2, -1, 0> Lean;
};

/*
 * Lean: the configuration for GPUs whose shared memory per SM cannot hold
 * Def's MINB tiles at once (Def wants 96 KiB a SM for u32, 128 KiB for u64
 * and u128: an sm_80 or sm_90 has 164 or 228 KiB, an sm_86/89 100 KiB, an
 * sm_75 64 KiB). Half Def's tile, so that as many blocks as Def asks for
 * stay resident (occupancy hides the passes' memory latency) in 64 KiB:
 * one more pass over memory on large inputs, but no SM left half idle.
 * bitonic.cu picks one of the two at run time (bitonic_variant).
 */
template <class T, class C>
constexpr unsigned long smem_per_sm_wanted()
{
	return ((unsigned long)sizeof(T) << C::TB) * C::MINB;
}

/* The planner's view of configuration C for element type T. */
template <class T, class C = typename Tr<T>::Def>
constexpr plan_cfg plan_cfg_of()
{
	return plan_cfg{C::TB, C::RB, Tr<T>::WB, C::EQC};
}

} // namespace gs_bitonic

#endif
