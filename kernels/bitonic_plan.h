/*
 * bitonic_plan.h - the bitonic sort's pass planner: which kernel pass
 * covers which steps of Batcher's network. Pure host C++ (no CUDA), so
 * that tests/gpu/test_plan.cu replays the plans on any machine; the
 * dispatch (bitonic.cu) launches one kernel per pass it lists.
 *
 * Source: G. Capannini, F. Silvestri, R. Baraglia, "Sorting on GPUs for
 * large scale datasets: a thorough comparison", section 6 (K-model bitonic
 * sort: Definitions 1-3, Algorithm 2): a run of consecutive steps that
 * touch only the index bits in a set Γ is one pass (a superstep) over
 * Γ-partitions of k = 2^TB elements, so the sort needs about
 * sum_s ceil(s / log k) passes instead of L(L+1)/2 steps; section 5's
 * k-coalesced condition keeps the low index bits in every Γ.
 */
#ifndef GPUSORT_BITONIC_PLAN_H
#define GPUSORT_BITONIC_PLAN_H

#include <stddef.h>
#include <stdint.h>

namespace gs_bitonic {

/* What the planner needs of a kernel configuration (bitonic_tuning.cuh:
 * plan_cfg_of). */
struct plan_cfg {
	int tb;  /* tile bits: a block sorts or merges 2^tb elements (the paper's k) */
	int rb;  /* register bits: a thread holds 2^rb of them */
	int wb;  /* low index bits every shared-memory pass keeps in Γ: one
		  * 128-byte line of elements, for coalescing */
	int eqc; /* 1: every pass costs the same (the fewest passes win);
		  * 0: pass_cost's per-kind costs */
};

/*
 * The kinds of pass. LOCAL sorts every aligned tile (stages 1..tb). SMEM
 * does steps hi..lo of stage s on bits above the tile (Γ = {0..c-1} ∪
 * {lo..hi}, c = tb - (hi - lo + 1) >= wb). LOW does the last tb steps of
 * stage s, on the tile's own bits tb-1..0. CHAIN does the last c steps of
 * stage s - 1 (tile bits c-1..0) and then the first tb - c of stage s on
 * bits hi..lo, hi = s - 1, in one pass (bitonic_kernels.cuh, high_body).
 */
enum { PASS_LOCAL = 0, PASS_SMEM = 1, PASS_LOW = 2, PASS_CHAIN = 3 };

/* Smallest l with 2^l >= n (0 for n <= 1). */
inline int ceil_log2(uint64_t n)
{
	int l = 0;
	while ((1ull << l) < n)
		++l;
	return l;
}

/*
 * The planner's cost of one pass, relative to a shared-memory pass of one
 * register group (100), used when cfg.eqc is 0. A pass of more register
 * groups exchanges through shared memory more often (108, or 120 when its
 * second group's lanes are not whole lines); a pass on the tile's bits
 * does tb steps (115); a chained pass costs about 15 more per register
 * group of its tail, and 25 more when its first group's lanes are not
 * whole lines (the tile is staged through shared memory first). Only the
 * ratios matter: they decide between fewer passes and cheaper ones.
 */
inline int pass_cost(const plan_cfg &cfg, int kind, int H)
{
	const int TB = cfg.tb, RB = cfg.rb, WB = cfg.wb;
	if (cfg.eqc)
		return 100;
	if (kind == PASS_LOW)
		return 115;
	if (kind == PASS_CHAIN) {
		const int c = TB - H;
		return 100 + 15 * ((c + RB - 1) / RB) + (c - RB < WB ? 25 : 0);
	}
	return H <= RB ? 100 : TB - 2 * RB < WB ? 108 : 120;
}

/*
 * The plan for n elements: calls f(kind, s, hi, lo) for each pass, in
 * order; none for n < 2. The tile sort first; then the cheapest cover of
 * the network's remaining steps by the three other kinds of pass, found by
 * dynamic programming over (stage s, next bit b): from there a SMEM pass
 * takes bits b..lo of stage s (H <= tb - wb of them, possible while
 * b >= tb - 1; if lo < tb, the stage's tail below lo must then be chained
 * into the next stage), a LOW pass bits tb-1..0 (b = tb - 1), a CHAIN
 * pass bits b..0 (c = b + 1 in wb..tb-1) and the first tb - c bits of
 * stage s + 1. This is the paper's superstep count made concrete: a pass
 * covers up to log k = tb steps, but a run of steps not ending at bit 0
 * must keep wb low bits in Γ and covers at most tb - wb; chaining lets a
 * stage's tail (which holds bits 0..wb-1 anyway) fill a pass with the next
 * stage's head.
 */
template <class F>
void plan(const plan_cfg &cfg, size_t n, F f)
{
	const int TB = cfg.tb, WB = cfg.wb, GMAX = TB - WB;
	if (n < 2)
		return;
	const int L = ceil_log2(n);
	f(PASS_LOCAL, 0, 0, 0);
	if (L <= TB)
		return;
	/* cost[s][b + 1]: cheapest rest from stage s, next bit b (-1: stage
	 * done); how[.]: the first pass of it (kind, bits) */
	enum { NS = 65, INF = 1 << 30 };
	int cost[NS][NS + 1];
	signed char how_k[NS][NS + 1], how_h[NS][NS + 1];
	for (int s = L; s > TB; --s)
		for (int b = -1; b < s; ++b) {
			int best = INF, bk = -1, bh = 0;
			if (b < 0) {
				best = s == L ? 0 : cost[s + 1][s + 1];
			} else {
				if (b >= TB - 1)
					for (int H = 1; H <= GMAX && b - H + 1 >= 0; ++H) {
						const int lo = b - H + 1;
						if (lo < TB && s == L)
							continue;
						const int r = cost[s][lo];
						if (r < INF && r + pass_cost(cfg, PASS_SMEM, H) < best) {
							best = r + pass_cost(cfg, PASS_SMEM, H);
							bk = PASS_SMEM;
							bh = H;
						}
					}
				if (b == TB - 1 && cost[s][0] + pass_cost(cfg, PASS_LOW, TB) < best) {
					best = cost[s][0] + pass_cost(cfg, PASS_LOW, TB);
					bk = PASS_LOW;
				}
				if (s < L && b + 1 >= WB && b + 1 <= TB - 1) {
					const int H = TB - (b + 1), r = cost[s + 1][s - H + 1];
					if (r < INF && r + pass_cost(cfg, PASS_CHAIN, H) < best) {
						best = r + pass_cost(cfg, PASS_CHAIN, H);
						bk = PASS_CHAIN;
						bh = H;
					}
				}
			}
			cost[s][b + 1] = best;
			how_k[s][b + 1] = (signed char)bk;
			how_h[s][b + 1] = (signed char)bh;
		}
	int s = TB + 1, b = TB;
	while (s <= L) {
		if (b < 0) {
			b = s;
			++s;
			continue;
		}
		const int k = how_k[s][b + 1], H = how_h[s][b + 1];
		if (k == PASS_SMEM) {
			f(PASS_SMEM, s, b, b - H + 1);
			b -= H;
		} else if (k == PASS_LOW) {
			f(PASS_LOW, s, TB - 1, 0);
			b = -1;
		} else {
			f(PASS_CHAIN, s + 1, s, s - H + 1);
			b = s - H;
			++s;
		}
	}
}

/* Passes plan() lists for n elements. */
inline uint64_t plan_passes(const plan_cfg &cfg, size_t n)
{
	uint64_t c = 0;
	plan(cfg, n, [&](int, int, int, int) { ++c; });
	return c;
}

} // namespace gs_bitonic

#endif
