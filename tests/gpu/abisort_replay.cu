/*
 * abisort_replay.cu - the adaptive bitonic merge of kernels/abisort_merge.cuh
 * replayed on the host, thread by thread and stage by stage in the order
 * the kernels run them (a barrier = the end of a loop over threads; a
 * warp's search = its lane 0, the host path replaying the 32 lanes), against
 * std::sort; no GPU needed. The tile sort is std::sort of each tile.
 *
 * Build: make tests/gpu/abisort_replay (make check builds and runs it)
 * Run:   tests/gpu/abisort_replay    (report.h's lines: one per word type,
 *        tile size and distribution; then the merges' comparisons at 2^16..2^20)
 */
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "abisort_merge.cuh"
#include "report.h"
#include "bitonic_plan.h"

using namespace gs_abisort;

/* std::sort's order for 16-byte words (global: found by lookup from std) */
static bool operator<(const gs_u128 &a, const gs_u128 &b)
{
	return !Ord<gs_u128>::le(b, a);
}
static bool operator!=(const gs_u128 &a, const gs_u128 &b)
{
	return a.hi != b.hi || a.lo != b.lo;
}

namespace {

template <class T> T word(uint64_t r);
template <> uint32_t word<uint32_t>(uint64_t r) { return (uint32_t)r; }
template <> uint64_t word<uint64_t>(uint64_t r) { return r; }
template <> gs_u128 word<gs_u128>(uint64_t r)
{
	gs_u128 v;
	v.hi = r >> 3;
	v.lo = r * 0x9e3779b97f4a7c15ull;
	return v;
}

/* The sort as abisort.cu runs it, with a local tile of 2^LT words. */
template <class T>
uint64_t replay(std::vector<T> &d, int LT)
{
	typedef typename ATr<T>::Def C;
	const size_t n = d.size();
	uint64_t cmp = 0;
	for (size_t b = 0; b < n; b += (size_t)1 << LT)
		std::sort(d.begin() + b, d.begin() + std::min(n, b + ((size_t)1 << LT)));
	const int L = gs_bitonic::ceil_log2(n);
	if (L <= LT)
		return 0;
	std::vector<T> alt(n);
	std::vector<uint64_t> S(((size_t)1 << (L - C::TB)) + 1, ~0ull);
	T *src = d.data(), *dst = alt.data();
	for (int j = LT + 1; j <= L; ++j) {
		const uint64_t pairs = ((n - 1) >> j) + 1;
		for (int dd = 1; dd <= j - C::TB; ++dd)
			for (uint64_t t = 0; t < pairs << (dd - 1); ++t)
				cmp += stage_wide<C>(pairs << (dd - 1)) ?
					       split_node<T, C::TB, true>(src, n, j, dd, S.data(), t, 0) :
					       split_node<T, C::TB, false>(src, n, j, dd, S.data(), t, 0);
		const uint64_t leaves = (n + C::T - 1) >> C::TB;
		std::vector<T> tile(C::T);
		std::vector<uint32_t> sx(C::NT + 1);
		std::vector<T> regs((size_t)C::NT * C::R);
		for (uint64_t g = 0; g < leaves; ++g) {
			const Leaf f = leaf_of<C::TB>(n, j, S.data(), g);
			for (uint32_t e = 0; e < f.m; ++e)
				tile[slot<T, C::RB>(e)] = e < f.na ? src[f.a0 + e] : src[f.b0 + (e - f.na)];
			sx[0] = 0;
			sx[C::NT] = f.na;
			for (int dd = 1; dd <= C::NTB; ++dd)
				for (uint32_t u = 0; u < (1u << (dd - 1)); ++u)
					cmp += (1u << (dd - 1)) <= C::NT / 32 ?
						       leaf_split<T, C, true>(tile.data(), sx.data(), f, dd, u, 0) :
						       leaf_split<T, C, false>(tile.data(), sx.data(), f, dd, u, 0);
			for (uint32_t tid = 0; tid < C::NT; ++tid) {
				T v[C::R];
				const uint32_t c = leaf_gather<T, C>(tile.data(), sx.data(), f, tid, v);
				if ((tid << C::RB) < f.m)
					cmp += c;
				std::copy(v, v + C::R, regs.begin() + tid * C::R);
			}
			for (uint32_t e = 0; e < C::NT * C::R; ++e)
				tile[slot<T, C::RB>(e)] = regs[e];
			for (uint32_t e = 0; e < f.m; ++e)
				dst[f.out + e] = tile[slot<T, C::RB>(e)];
		}
		std::swap(src, dst);
	}
	if (src != d.data())
		std::copy(src, src + n, d.data());
	return cmp;
}

/* Every size 0..40 and 2^k - 1, 2^k, 2^k + 1, 2^k + 37 (k = 6..18), for
 * each of five distributions: one result line per distribution. */
template <class T>
void run(const char *name, int LT)
{
	static const char *const dname[5] = {"uniform", "few-unique", "sorted", "reverse", "all-equal"};
	std::mt19937_64 rng(42);
	std::vector<size_t> sizes;
	for (size_t n = 0; n <= 40; ++n)
		sizes.push_back(n);
	for (int k = 6; k <= 18; ++k)
		for (long dn : {-1L, 0L, 1L, 37L})
			sizes.push_back(((size_t)1 << k) + dn);
	for (int dist = 0; dist < 5; ++dist) {
		std::string why;
		for (size_t n : sizes) {
			std::vector<T> d(n);
			for (size_t i = 0; i < n; ++i) {
				const uint64_t r = rng();
				d[i] = dist == 0 ? word<T>(r) : dist == 1 ? word<T>(r % 3) : dist == 2 ? word<T>(i) :
				       dist == 3 ? word<T>(n - i) : word<T>(0);
				if (dist == 2 && sizeof(T) == 16)
					d[i] = word<T>(i << 3);
			}
			std::vector<T> want = d;
			std::sort(want.begin(), want.end());
			replay(d, LT);
			for (size_t i = 0; i < n && why.empty(); ++i)
				if (d[i] != want[i])
					why = "n=" + std::to_string(n) + ": differs from std::sort at " + std::to_string(i);
		}
		result(std::string("abisort-replay/") + name + "/" + dname[dist], why);
	}
}

} // namespace

int main()
{
	/* the tile sort's tiles as bitonic_tuning.cuh has them, and the
	 * smallest legal (TB - 1) to exercise more merge levels */
	run<uint32_t>("u32", 13);
	run<uint32_t>("u32/12", 12);
	run<uint64_t>("u64", 12);
	run<uint64_t>("u64/11", 11);
	run<gs_u128>("u128", 12);
	run<gs_u128>("u128/10", 10);
	/* comparisons of the merges of 2^20 u32 words (the tile sort apart) */
	for (int L = 16; L <= 20; L += 2) {
		std::vector<uint32_t> d((size_t)1 << L);
		std::mt19937 r(1);
		for (auto &x : d)
			x = r();
		printf("u32 n=2^%d: %llu merge comparisons\n", L, (unsigned long long)replay(d, 13));
	}
	return report_exit();
}
