/*
 * test_plan.cu - the bitonic planner (kernels/bitonic.cu plan()) checked on
 * the host: no GPU needed, so CI runs it.
 *
 * The passes plan() lists for n elements must perform Batcher's network
 * exactly: the tile sort covers stages 1..TB, then every stage s > TB has
 * its steps on bits s-1 down to 0, in that order, each once. A pass may
 * only take steps its kernel can do: a shared-memory pass H <= TB - CB
 * bits hi..lo of one stage with lo >= TB - H (its Γ keeps bits
 * 0..TB-H-1, disjoint from lo..hi); a register pass GREG bits or fewer,
 * all above the tile; a tile-bits pass bits TB-1..0; a chained pass the
 * last c = TB - H steps (bits c-1..0, CB <= c < TB) of stage s - 1 and the
 * first H of stage s (hi = s - 1, lo >= c). The model is replayed step by
 * step for every log2 n up to 40 at n = 2^L, 2^L - 1 and 2^(L-1) + 1, for
 * the default configurations and the profiling variants (unchained,
 * register passes, CB, EQC, 2^14 tiles). Output: `PASS name` or
 * `FAIL name: why` per case, then `N passed, M failed`; exit 1 on a failure.
 *
 * bitonic.cu is included, not linked, because plan() is internal to it
 * (as in bench/gpu_bench.cu).
 */
#include <cstdio>
#include <string>

#include "bitonic.cu"
#include "report.h"

namespace {

/* Replays plan<T, C>(n) against the network; "" or what is wrong. */
template <class T, class C>
std::string replay(size_t n)
{
	constexpr int TB = C::TB, CB = coal_bits<T, C>();
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
	plan<T, C>(n, [&](int kind, int st, int hi, int lo) {
		const int H = hi - lo + 1;
		if (kind == PASS_LOCAL) {
			if (npass != 0)
				bad("tile sort not first");
			local = true;
		} else if (!local) {
			bad("a pass before the tile sort");
		} else if (kind == PASS_SMEM) {
			if (H < 1 || H > TB - CB || lo < TB - H || hi > st - 1)
				bad("shared-memory pass outside its kernel's bounds");
			for (int q = hi; q >= lo; --q)
				step(st, q);
		} else if (kind == PASS_REG) {
			if (H < 1 || H > C::GREG || lo < TB || hi > st - 1)
				bad("register pass outside its kernel's bounds");
			for (int q = hi; q >= lo; --q)
				step(st, q);
		} else if (kind == PASS_LOW) {
			if (hi != TB - 1 || lo != 0)
				bad("tile-bits pass not on bits TB-1..0");
			for (int q = TB - 1; q >= 0; --q)
				step(st, q);
		} else if (kind == PASS_CHAIN) {
			const int c = TB - H;
			if (!C::CHAIN || H < 1 || c < CB || c > TB - 1 || hi != st - 1 || lo < c || st - 1 <= TB)
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

template <class T, class C>
void cases(const char *name)
{
	for (int L = 0; L <= 40; ++L) {
		const size_t p = (size_t)1 << L;
		for (size_t n : {p, p - 1, p / 2 + 1}) {
			if (L == 0 && n != 1)
				continue;
			result(std::string("plan/") + name + "/n=" + std::to_string(n), replay<T, C>(n));
		}
	}
}

} // namespace

int main()
{
	cases<uint32_t, Tr<uint32_t>::Def>("u32");
	cases<uint64_t, Tr<uint64_t>::Def>("u64");
	cases<gs_u128, Tr<gs_u128>::Def>("u128");
	cases<uint32_t, BCfg<13, 5, 3, 0, 0, 0>>("u32-unchained");
	cases<uint32_t, BCfg<13, 5, 3, 3>>("u32-register-passes");
	cases<uint32_t, BCfg<13, 5, 3, 0, 4>>("u32-cb4");
	cases<uint32_t, BCfg<13, 5, 3, 0, 0, 1, 0, 2, 0, 1>>("u32-eqc");
	cases<uint32_t, BCfg<14, 6, 2, 0, 0, 1, 0, 2>>("u32-tile14");
	cases<uint64_t, BCfg<12, 4, 4, 0, 0, 1, 0, -1, 0, 1>>("u64-eqc");
	return report_exit();
}
