/*
 * quick_pivot.cu - GPU-Quicksort's phase-one cut (kernels/quick_pivot.cuh:
 * child_fraction, pivot_at) replayed on the host; no GPU needed.
 *
 * pivot_at: for words a < b and 0 < f < 1 the pivot lies in [a, b)
 * (every cut leaves words on both sides: progress), does not decrease as
 * f grows, and is within one word of a + (b - a) * f; checked at the
 * ends of the 32- and 64-bit ranges, for adjacent words and for random
 * ones against a 128-bit reference.
 *
 * child_fraction on a child of l words spread evenly over [mn, mx] (word
 * i = mn + floor(i (mx - mn) / (l - 1))): the words below the pivot are
 * within 2 of l * f; a child that needs m = 2 leaves (cap = 63/64 minlen)
 * leaves one nearly full leaf above the cut (cap - 2 .. minlen words)
 * and the rest below; a longer child's two parts need no more leaves
 * than the child (one more where l is within 8 words of m * cap, the
 * counts' rounding at a leaf's edge), so that no leaf is wasted.
 *
 * Build: make tests/gpu/quick_pivot (make check builds and runs it)
 * Run:   tests/gpu/quick_pivot    (report.h's lines)
 */
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "quick_pivot.cuh"
#include "report.h"

using namespace gs_quick;

namespace {

typedef unsigned __int128 u128;

/* a + (b - a) * f exactly enough: f as a 2^-53 fraction */
template <class T>
u128 ideal(T a, T b, double f)
{
	const u128 w = (u128)(b - a);
	const u128 q = (u128)std::ldexp(f, 53);
	return (u128)a + ((w * q) >> 53);
}

template <class T>
std::string at_case(T a, T b, double f)
{
	const T p = pivot_at(a, b, f);
	if (p < a || p >= b)
		return "pivot " + std::to_string((unsigned long long)p) + " outside [a, b)";
	const u128 id = ideal(a, b, f);
	const u128 d = id > (u128)p ? id - (u128)p : (u128)p - id;
	/* the double product's rounding: one word, or 2^-52 of the range */
	const u128 tol = 1 + (((u128)(b - a)) >> 51);
	if (d > tol)
		return "pivot off the ideal by " + std::to_string((unsigned long long)d);
	return "";
}

template <class T>
void at_cases(const char *tn, std::mt19937_64 &rng)
{
	const T top = (T)~(T)0;
	const double fs[] = {1e-12, 0.001, 0.25, 0.5, 0.75, 0.999, 1 - 1e-12, std::nextafter(1.0, 0.0)};
	const T pairs[][2] = {{0, 1}, {0, 2}, {5, 6}, {0, top}, {(T)(top - 1), top}, {1, top}, {0, (T)(top / 2)}};
	for (auto &pr : pairs) {
		std::string why;
		T last = pr[0];
		for (double f : fs) {
			if (why.empty())
				why = at_case(pr[0], pr[1], f);
			const T p = pivot_at(pr[0], pr[1], f);
			if (why.empty() && p < last)
				why = "not monotone in f";
			last = p;
		}
		result(std::string("pivot-at/") + tn + "/" + std::to_string((unsigned long long)pr[0]) + "-" +
			       std::to_string((unsigned long long)pr[1]),
		       why);
	}
	std::string why;
	std::uniform_real_distribution<double> uf(1e-9, 1 - 1e-9);
	for (int i = 0; i < 200000 && why.empty(); ++i) {
		T a = (T)rng(), b = (T)rng();
		if (a == b)
			continue;
		if (a > b)
			std::swap(a, b);
		why = at_case(a, b, uf(rng));
	}
	result(std::string("pivot-at/") + tn + "/random", why);
	result(std::string("pivot-at/") + tn + "/equal-words", pivot_at((T)7, (T)7, 0.5) == 7 ? "" : "a == b moved");
}

/* words below and above the pivot of l words spread evenly over [mn, mx] */
template <class T>
void split(T mn, T mx, uint64_t l, T p, uint64_t *below, uint64_t *above)
{
	const u128 w = (u128)(mx - mn);
	/* word i = mn + floor(i w / (l - 1)) < p  <=>  i w < (p - mn) (l - 1) */
	const u128 lim = (u128)(p - mn) * (l - 1);
	uint64_t lo = 0, hi = l; /* the first i with word i >= p */
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo) / 2;
		if ((u128)mid * w < lim)
			lo = mid + 1;
		else
			hi = mid;
	}
	*below = lo;
	uint64_t eq = 0;
	for (uint64_t i = lo; i < l && (T)(mn + (T)((u128)i * w / (l - 1))) == p; ++i)
		++eq;
	*above = l - lo - eq;
}

template <class T>
void cut_cases(const char *tn, uint64_t minlen)
{
	const uint64_t cap = minlen - minlen / 64;
	const T top = (T)~(T)0;
	const T ranges[][2] = {{0, top}, {1000, (T)(1000 + 3 * minlen)}, {(T)(top / 3), (T)(top / 3 * 2)}};
	for (auto &r : ranges) {
		std::string why;
		uint64_t nc = 0;
		for (uint64_t l = minlen + 1; l <= 40 * minlen && why.empty(); l += l < 4 * minlen ? 97 : 4099) {
			if ((u128)(r[1] - r[0]) + 1 < l)
				continue; /* fewer distinct values than words: not evenly spread */
			const double f = child_fraction(l, minlen);
			const T p = pivot_at(r[0], r[1], f);
			uint64_t b, a;
			split(r[0], r[1], l, p, &b, &a);
			const uint64_t m = (l + cap - 1) / cap;
			const double want = l * f;
			if (!(f > 0 && f < 1))
				why = "fraction " + std::to_string(f) + " outside (0, 1)";
			else if (std::fabs((double)b - want) > 2)
				why = "l " + std::to_string(l) + ": " + std::to_string(b) + " below, aimed at " + std::to_string(want);
			else if (a == l || b == l || a + b > l)
				why = "l " + std::to_string(l) + ": no progress";
			else if (m == 2 && (a > minlen || a + 2 < cap))
				why = "l " + std::to_string(l) + ": " + std::to_string(a) +
				      " words above a two-leaf cut, not one nearly full leaf";
			else if (m > 2 && (b + cap - 1) / cap + (a + cap - 1) / cap > m + (l + 8 > m * cap ? 1 : 0))
				why = "l " + std::to_string(l) + " (m " + std::to_string(m) + "): parts of " + std::to_string(b) +
				      " and " + std::to_string(a) + " words need more leaves than the child";
			++nc;
		}
		if (why.empty() && !nc)
			why = "no case";
		result(std::string("child-cut/") + tn + "/minlen-" + std::to_string(minlen) + "/" +
			       std::to_string((unsigned long long)r[0]) + "-" + std::to_string((unsigned long long)r[1]),
		       why);
	}
}

} // namespace

int main()
{
	std::mt19937_64 rng(20261127);
	at_cases<uint32_t>("u32", rng);
	at_cases<uint64_t>("u64", rng);
	for (uint64_t minlen : {8192ull, 4096ull, 131072ull}) {
		cut_cases<uint32_t>("u32", minlen);
		cut_cases<uint64_t>("u64", minlen);
	}
	return report_exit();
}
