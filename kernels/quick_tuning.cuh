/*
 * quick_tuning.cuh - GPU-Quicksort's configuration per element type and
 * the host-side sizes that follow from it (how many phase-one rounds, how
 * long a sequence phase one leaves to phase two, table capacities). Plain
 * C++: extra_bytes and the dispatch in quick.cu share these formulas.
 */
#ifndef GPUSORT_QUICK_TUNING_CUH
#define GPUSORT_QUICK_TUNING_CUH

#include <stddef.h>
#include <stdint.h>

#include "bitonic_tuning.cuh"

namespace gs_quick {

/*
 * A configuration. THREADS: threads per block (both phases). ITEMS:
 * elements a thread holds in registers while partitioning one tile, so a
 * tile is TILE = THREADS * ITEMS elements (32 or 64 KiB: a block's fixed
 * costs per tile, a fetch-and-add round trip, two barriers and a search
 * for its sequence, spread over enough words, against the registers that
 * hold them). Tile: the bitonic engine's tile-sort configuration
 * (bitonic_tuning.cuh) phase two sorts short sequences with, SORT = 2^TB
 * words (32 KiB of shared memory, THREADS threads); Cederman & Tsigas,
 * section 3.2.2, "Overhead". LEAFMIN: phase one never leaves phase two a
 * sequence shorter than this of its own accord: SORT, so that up to n =
 * SORT * MAXSEQ phase one partitions every sequence down to one tile sort
 * and phase two only sorts (a phase-one round, all blocks on the
 * sequences' tiles, moves the words faster than phase two's partitions of
 * one block a sequence: 21.2 -> 19.5 ms for 2^28 u32 on the H200). MAXSEQ:
 * the paper's maxseq (section 3.2.1): phase one partitions only sequences
 * longer than minlength = max(LEAFMIN, n / MAXSEQ), so a round never holds
 * MAXSEQ sequences; it sizes the work lists and phase two's table
 * (QSizes). RSLACK: phase-one rounds launched beyond log2(n / minlength),
 * for pivots that split unevenly (section 5.2's min/max average halves the
 * value range, not the count: zipf-like data needs about as many extra
 * rounds as the log2 of its value spread; every round after the last that
 * partitions costs two empty launches, and a sequence still longer than
 * minlength after them is partitioned by phase two). RMINB: blocks per SM
 * asked of the compiler for the partition kernel k_round
 * (__launch_bounds__), which caps its registers (u32: 64 registers, 4
 * blocks; u64: 128, 2 blocks; u128: 80, 3 blocks; a few spilled bytes).
 */
template <int THREADS_, int ITEMS_, int RMINB_, class Tile_>
struct QCfg {
	typedef Tile_ Tile;
	enum { THREADS = THREADS_, ITEMS = ITEMS_, TILE = THREADS_ * ITEMS_, NW = THREADS_ / 32, SORT = 1 << Tile_::TB };
	enum { LEAFMIN = SORT, MAXSEQ = 32768, RSLACK = 12, RMINB = RMINB_ };
	static_assert(THREADS_ % 32 == 0 && ITEMS_ <= 32 && (1 << Tile_::NTB) == THREADS_, "bad quick config");
};

/* Per element type: partition tiles of 32 words a thread (u32: 32 KiB at 4
 * blocks an SM; u64: 64 KiB at 2; bench/results/h100-quick-trim-2026-11-27.md:
 * once a word's partition cost two comparisons, two ballots, a rank and a
 * store, larger tiles beat more of them in flight) or 8 words (u128, 32
 * KiB), shared-memory sorts of 8192 / 4096 / 2048 words (u32 and u64: the
 * bitonic engine's own tile; u128: half of it, 256 threads). */
template <class T> struct QTr;
template <> struct QTr<uint32_t> {
	typedef QCfg<256, 32, 4, gs_bitonic::Tr<uint32_t>::Def> Def;
};
template <> struct QTr<uint64_t> {
	typedef QCfg<256, 32, 2, gs_bitonic::Tr<uint64_t>::Def> Def;
};
template <> struct QTr<gs_u128> {
	typedef QCfg<256, 8, 3, gs_bitonic::BCfg<11, 3, 2, -1, 0> > Def;
};

inline int ceil_log2_u64(uint64_t x)
{
	int l = 0;
	while (l < 64 && ((uint64_t)1 << l) < x)
		++l;
	return l;
}

/*
 * The sizes of one sort of n words of `width` bytes with configuration C.
 * minlen: the paper's minlength. maxpart: a bound on the sequences one
 * phase-one round partitions (each is longer than minlen, and they are
 * disjoint). rounds: phase-one rounds that may partition (0: the whole
 * input goes to phase two at once); rounds_bound: the same without the
 * n <= minlen case, never decreasing in n (what extra_bytes sizes by).
 * list_cap: entries of a round's work list (fewer than maxpart partitions
 * and at most 3 ranges filled with one value per partition of the round
 * before). tile_cap: tiles of one round (the list's lengths add up to at
 * most n). leaf_cap: phase two's sequences: at most 2 per partition (its
 * sides) plus the start's one, and round r partitions at most
 * min(2^r, maxpart) sequences (each a child of one the round before).
 */
template <class C>
struct QSizes {
	uint64_t minlen, maxpart, list_cap, tile_cap, leaf_cap;
	int rounds, rounds_bound;

	QSizes(uint64_t n, int width)
	{
		const uint64_t per = (n + C::MAXSEQ - 1) / C::MAXSEQ;
		minlen = per > (uint64_t)C::LEAFMIN ? per : (uint64_t)C::LEAFMIN;
		maxpart = n / C::LEAFMIN + 1;
		if (maxpart > (uint64_t)C::MAXSEQ)
			maxpart = C::MAXSEQ;
		rounds_bound = ceil_log2_u64(maxpart) + C::RSLACK;
		if (rounds_bound > 8 * width + 2) /* each round halves a value range */
			rounds_bound = 8 * width + 2;
		rounds = n <= minlen ? 0 : rounds_bound;
		list_cap = 4 * maxpart + 8;
		tile_cap = n / C::TILE + list_cap + 1;
		uint64_t parts = 0;
		for (int r = 0; r < rounds_bound; ++r)
			parts += r < 63 && (1ull << r) < maxpart ? 1ull << r : maxpart;
		leaf_cap = 2 * parts + 8;
	}
};

} // namespace gs_quick

#endif
