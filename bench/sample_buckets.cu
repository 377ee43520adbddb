/*
 * sample_buckets.cu - the sample sorter's bucket sizes against its proven
 * bound (kernels/sample_plan.h) on sorter_bench's distributions: the
 * check of Dehne & Zaboli's claim (section 5, Fig. 5) that deterministic
 * sampling keeps the buckets balanced on any input.
 *
 * Usage: bench/sample_buckets [--log A[:B]]
 * For every width (4, 8, 8 pairs, 16, 16 pairs), distribution and n =
 * 2^A..2^B: | width | dist | n | largest bucket | bound | largest/bound |
 * largest/(n/K) | check |. Build: make bench/sample_buckets.
 */
/* sorter_bench's generators and check, not its main */
#define main sorter_bench_main
#include "sorter_bench.cu"
#undef main

#include "sample.cuh"
#include "sample_plan.h"

namespace {

template <class T>
void buckets(int lg, int d, bool pairs)
{
	const uint64_t n = 1ull << lg;
	const size_t bytes = n * sizeof(T), x = sample_extra_bytes<T>(n);
	T *w, *ref;
	void *scr;
	CK(cudaMalloc(&w, bytes));
	CK(cudaMalloc(&ref, bytes));
	CK(cudaMalloc(&scr, x ? x : 256));
	k_gen<T><<<4096, 256>>>(w, n, d, pairs, 12345 + lg);
	CK(cudaGetLastError());
	CK(cudaMemcpy(ref, w, bytes, cudaMemcpyDeviceToDevice));
	CK(sample_sort<T>(w, n, scr, x, 0, NULL));
	CK(cudaDeviceSynchronize());
	uint64_t big = 0, bound = 0;
	CK(sample_bucket_stats<T>(scr, n, &big, &bound));
	/* the reference: thrust::sort of the same words */
	if constexpr (sizeof(T) == 16)
		thrust::sort(thrust::device, ref, ref + n, u128_less());
	else
		thrust::sort(thrust::device, ref, ref + n);
	const unsigned long long bad = check(w, ref, n);
	printf("| %zu%s | %s | 2^%d | %llu | %llu | %.3f | %.3f | %s |\n", sizeof(T), pairs ? " pairs" : "", DISTS[d],
	       lg, (unsigned long long)big, (unsigned long long)bound, bound ? (double)big / bound : 0.0,
	       (double)big / ((double)n / gs_sample::K), bad ? "MISMATCH" : "ok");
	fflush(stdout);
	CK(cudaFree(w));
	CK(cudaFree(ref));
	CK(cudaFree(scr));
}

} // namespace

int main(int argc, char **argv)
{
	int lo = 24, hi = 24;
	for (int i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "--log") && i + 1 < argc) {
			const char *a = argv[++i], *c = strchr(a, ':');
			lo = atoi(a);
			hi = c ? atoi(c + 1) : lo;
		} else {
			fprintf(stderr, "usage: %s [--log A[:B]]\n", argv[0]);
			return 2;
		}
	}
	printf("| width | dist | n | largest bucket | bound | largest/bound | largest/(n/K) | check |\n"
	       "|---|---|---|---|---|---|---|---|\n");
	for (int lg = lo; lg <= hi; ++lg)
		for (int d = 0; d < NDIST; ++d) {
			buckets<uint32_t>(lg, d, false);
			buckets<uint64_t>(lg, d, false);
			buckets<uint64_t>(lg, d, true);
			buckets<gs_u128>(lg, d, false);
			buckets<gs_u128>(lg, d, true);
		}
	return 0;
}
