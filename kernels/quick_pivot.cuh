/*
 * quick_pivot.cuh - where GPU-Quicksort's phase one cuts a child
 * sequence: the fraction of its value range (child_fraction) and the
 * interpolated pivot (pivot_at). Host and device code, so that
 * tests/gpu/quick_pivot replays them on the host (make check, no GPU).
 *
 * Source: Cederman & Tsigas, "GPU-Quicksort", section 5.2 (phase one's
 * pivot, the average of a sequence's min and max), aimed here at whole
 * tile sorts (quick_kernels.cuh, child_pivot, says why).
 */
#ifndef GPUSORT_QUICK_PIVOT_CUH
#define GPUSORT_QUICK_PIVOT_CUH

#include <stdint.h>

#define GS_Q_HD __host__ __device__ __forceinline__

namespace gs_quick {

/*
 * About a + (b - a) * f, for words a < b and 0 < f < 1, always in
 * [a, b): below b, so that a cut there leaves words on both of its sides
 * (b itself is above it, a at or below it). a == b gives a.
 */
GS_Q_HD uint32_t pivot_at(uint32_t a, uint32_t b, double f)
{
	const uint32_t w = b - a, d = (uint32_t)(w * f);
	return w ? a + (d < w ? d : w - 1) : a;
}
GS_Q_HD uint64_t pivot_at(uint64_t a, uint64_t b, double f)
{
	const uint64_t w = b - a;
	const double x = (double)w * f;
	/* 2^64 - 2048, the largest double below 2^64: a product that rounds
	 * up to 2^64 would not convert */
	const uint64_t d = x < 18446744073709549568.0 ? (uint64_t)x : w;
	return w ? a + (d < w ? d : w - 1) : a;
}

/*
 * The fraction of its value range at which a child of l > minlen words
 * (minlen >= 64) is cut: it needs m = ceil(l / cap) leaves of at most cap
 * = minlen - minlen / 64 words; for m > 2 floor(m / 2) / m (0.5 for even
 * m), for m = 2 (l - cap) / l, so that about cap words lie above the
 * cut. In (0, 1).
 */
GS_Q_HD double child_fraction(uint64_t l, uint64_t minlen)
{
	const uint64_t cap = minlen - minlen / 64, m = (l + cap - 1) / cap;
	return m <= 2 ? (double)(l - cap) / (double)l : (double)(m / 2) / (double)m;
}

} // namespace gs_quick

#endif
