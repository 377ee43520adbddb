/*
 * test_plan.cu - the bitonic planner (kernels/bitonic_plan.h, plan())
 * checked on the host: no GPU needed, so CI runs it.
 *
 * The passes plan() lists for n elements must perform Batcher's network
 * exactly: the tile sort covers stages 1..TB, then every stage s > TB has
 * its steps on bits s-1 down to 0, in that order, each once. A pass may
 * only take steps its kernel can do: a shared-memory pass H <= TB - WB
 * bits hi..lo of one stage with lo >= TB - H (its Γ keeps bits
 * 0..TB-H-1, disjoint from lo..hi); a tile-bits pass bits TB-1..0; a
 * chained pass the last c = TB - H steps (bits c-1..0, WB <= c < TB) of
 * stage s - 1 and the first H of stage s (hi = s - 1, lo >= c). The model
 * is replayed step by step for every log2 n up to 40 at n = 2^L, 2^L - 1
 * and 2^(L-1) + 1, for the configurations the kernels are built with
 * (bitonic_tuning.cuh) and planner variants (the other cost model,
 * 2^14 tiles). Output: `PASS name` or `FAIL name: why` per case, then
 * `N passed, M failed`; exit 1 on a failure.
 *
 * The planner and the configurations are plain C++ headers: this test
 * needs no device code.
 */
#include <cstdio>
#include <string>

#include "bitonic_plan.h"
#include "bitonic_tuning.cuh"
#include "report.h"

using namespace gs_bitonic;

namespace {

/* Replays plan(cfg, n) against the network; "" or what is wrong. */
std::string replay(const plan_cfg &cfg, size_t n)
{
	const int TB = cfg.tb, WB = cfg.wb;
	const int L = n < 2 ? 0 : ceil_log2(n);
	int s = TB + 1, b = TB; /* next step expected: stage s, bit b */
	int npass = 0;
	bool local = false;
	std::string why;
	auto step = [&](int st, int bit) {
		if (!why.empty())
			return;
		if (st != s || bit != b) {
			why = "pass " + std::to_string(npass) + " does stage " + std::to_string(st) + " bit " +
			      std::to_string(bit) + ", the network's next step is stage " + std::to_string(s) + " bit " +
			      std::to_string(b);
			return;
		}
		if (--b < 0) {
			++s;
			b = s - 1;
		}
	};
	auto bad = [&](const char *what) {
		if (why.empty())
			why = "pass " + std::to_string(npass) + ": " + what;
	};
	plan(cfg, n, [&](int kind, int st, int hi, int lo) {
		const int H = hi - lo + 1;
		if (kind == PASS_LOCAL) {
			if (npass != 0)
				bad("tile sort not first");
			local = true;
		} else if (!local) {
			bad("a pass before the tile sort");
		} else if (kind == PASS_SMEM) {
			if (H < 1 || H > TB - WB || lo < TB - H || hi > st - 1)
				bad("shared-memory pass outside its kernel's bounds");
			for (int q = hi; q >= lo; --q)
				step(st, q);
		} else if (kind == PASS_LOW) {
			if (hi != TB - 1 || lo != 0)
				bad("tile-bits pass not on bits TB-1..0");
			for (int q = TB - 1; q >= 0; --q)
				step(st, q);
		} else if (kind == PASS_CHAIN) {
			const int c = TB - H;
			if (H < 1 || c < WB || c > TB - 1 || hi != st - 1 || lo < c || st - 1 <= TB)
				bad("chained pass outside its kernel's bounds");
			for (int q = c - 1; q >= 0; --q)
				step(st - 1, q);
			for (int q = hi; q >= lo; --q)
				step(st, q);
		} else {
			bad("unknown pass kind");
		}
		++npass;
	});
	if (why.empty() && n >= 2 && !local)
		why = "no tile sort";
	if (why.empty() && L > TB && s <= L)
		why = "the plan ends before stage " + std::to_string(s) + " bit " + std::to_string(b);
	if (why.empty() && n < 2 && npass)
		why = "passes for fewer than 2 elements";
	return why;
}

void cases(const char *name, const plan_cfg &cfg)
{
	for (int L = 0; L <= 40; ++L) {
		const size_t p = (size_t)1 << L;
		for (size_t n : {p, p - 1, p / 2 + 1}) {
			if (L == 0 && n != 1)
				continue;
			result(std::string("plan/") + name + "/n=" + std::to_string(n), replay(cfg, n));
		}
	}
}

} // namespace

int main()
{
	cases("u32", plan_cfg_of<uint32_t>());
	cases("u64", plan_cfg_of<uint64_t>());
	cases("u128", plan_cfg_of<gs_u128>());
	cases("u32-lean", plan_cfg_of<uint32_t, Tr<uint32_t>::Lean>());
	cases("u64-lean", plan_cfg_of<uint64_t, Tr<uint64_t>::Lean>());
	cases("u128-lean", plan_cfg_of<gs_u128, Tr<gs_u128>::Lean>());
	/* {tile bits, register bits, line bits, fewest passes} */
	cases("u32-eqc", plan_cfg{13, 5, 5, 1});
	cases("u32-tile14", plan_cfg{14, 6, 5, 0});
	cases("u64-eqc", plan_cfg{12, 4, 4, 1});
	return report_exit();
}
