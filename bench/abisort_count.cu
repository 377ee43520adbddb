/*
 * abisort_count.cu - measurements of the adaptive bitonic sort
 * (kernels/abisort.cu) that sorter_bench cannot make: its comparisons
 * and the time of its phases. It includes abisort.cu itself, so it
 * builds alone (not linked with the kernel objects), in two builds:
 *
 *   comparisons (every kernel counts into a device counter; slower):
 *     make bench/abisort_count  (-DGS_ABISORT_COUNT)
 *     bench/abisort_count [--log A:B]          (u32 uniform, default 16:24)
 *   phase times (the production kernels):
 *     make bench/abisort_phases
 *     bench/abisort_phases [--log A:B] [--width 4|8|16]   (default 28:28, 4)
 *
 * Comparisons: the merges' are counted on the device (the adaptive
 * stages' binary-search probes and the leaf bitonic mergers'
 * comparators); the tile sort's are its network's, tiles * 2^(t-1)
 * t(t+1)/2 for tiles of 2^t words (data-independent, counted here on the
 * host). Bitonic sort's count for n = 2^L is n/2 * L(L+1)/2.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../kernels/abisort.cu"

namespace {

#define CK(x)                                                                                  \
	do {                                                                                   \
		cudaError_t e_ = (x);                                                          \
		if (e_ != cudaSuccess) {                                                       \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			exit(1);                                                               \
		}                                                                              \
	} while (0)

__device__ uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A word from 64 random bits. */
template <class T> struct Gen {
	static __device__ T word(uint64_t r)
	{
		if constexpr (sizeof(T) == 16) {
			T v;
			v.hi = r;
			v.lo = mix64(r);
			return v;
		} else {
			return (T)(r >> (64 - 8 * sizeof(T)));
		}
	}
};

/* Uniform random words. */
template <class T>
__global__ void k_fill(T *d, uint64_t n, uint64_t seed)
{
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		d[i] = Gen<T>::word(mix64(i * 0x9e3779b97f4a7c15ull + seed));
}

/* Adjacent words out of order, counted into *bad. */
template <class T>
__global__ void k_check(const T *d, uint64_t n, unsigned long long *bad)
{
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i + 1 < n;
	     i += (uint64_t)gridDim.x * blockDim.x)
		if (!gs_abisort::Ord<T>::le(d[i], d[i + 1]))
			atomicAdd(bad, 1ull);
}

template <class T>
bool sorted(const T *d, uint64_t n)
{
	unsigned long long *bad, h = 0;
	CK(cudaMalloc(&bad, 8));
	CK(cudaMemset(bad, 0, 8));
	k_check<T><<<1024, 256>>>(d, n, bad);
	CK(cudaMemcpy(&h, bad, 8, cudaMemcpyDeviceToHost));
	CK(cudaFree(bad));
	return h == 0;
}

#ifdef GS_ABISORT_COUNT
void counts(int a, int b)
{
	using namespace gs_abisort;
	const int t = gs_bitonic::Tr<uint32_t>::Def::TB;
	printf("| n | merges (device) | tile sort (2^%d tiles) | abisort total | bitonic n/2 L(L+1)/2 | abisort / bitonic "
	       "| abisort / (n log2 n) |\n|---|---|---|---|---|---|---|\n",
	       t);
	for (int L = a; L <= b; ++L) {
		const uint64_t n = 1ull << L;
		uint32_t *d, *x;
		const size_t xb = abisort_extra_bytes(n, 4);
		CK(cudaMalloc(&d, n * 4));
		CK(cudaMalloc(&x, xb ? xb : 256));
		k_fill<uint32_t><<<1024, 256>>>(d, n, 7);
		const unsigned long long zero = 0;
		CK(cudaMemcpyToSymbol(g_abi_cmp, &zero, 8));
		CK(abisort_sort(d, n, 4, 32, x, xb, 0, NULL));
		unsigned long long m = 0;
		CK(cudaMemcpyFromSymbol(&m, g_abi_cmp, 8));
		const bool ok = sorted(d, n);
		const uint64_t tiles = (n + (1ull << t) - 1) >> t;
		const uint64_t loc = tiles * (1ull << (t - 1)) * (uint64_t)(t * (t + 1) / 2);
		const uint64_t bit = n / 2 * (uint64_t)(L * (L + 1) / 2);
		printf("| 2^%d | %llu | %llu | %llu | %llu | %.3f | %.2f |%s\n", L, m, (unsigned long long)loc,
		       m + loc, (unsigned long long)bit, (double)(m + loc) / bit, (double)(m + loc) / ((double)n * L),
		       ok ? "" : " NOT SORTED");
		CK(cudaFree(d));
		CK(cudaFree(x));
	}
}
#else
/* The phases of the sort of n words, timed (the second of two runs) of the sort of n words. */
template <class T>
void phases(int L)
{
	using namespace gs_abisort;
	typedef typename ATr<T>::Def C;
	const uint64_t n = 1ull << L;
	T *d, *x;
	const size_t xb = extra_of<T>(n);
	CK(cudaMalloc(&d, n * sizeof(T)));
	CK(cudaMalloc(&x, xb ? xb : 256));
	uint64_t *S = (uint64_t *)((unsigned char *)x + al256(n * sizeof(T)));
	cudaEvent_t ev[2];
	CK(cudaEventCreate(&ev[0]));
	CK(cudaEventCreate(&ev[1]));
	auto timed = [&](auto f) {
		CK(cudaEventRecord(ev[0]));
		f();
		CK(cudaEventRecord(ev[1]));
		CK(cudaEventSynchronize(ev[1]));
		float ms;
		CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
		return (double)ms;
	};
	for (int run = 0; run < 2; ++run) {
		k_fill<T><<<1024, 256>>>(d, n, 11 + run);
		double whole = 0;
		const double loc = timed([&] { CK(local_sort<T>(d, d, n, 0)); });
		whole += loc;
		if (run)
			printf("| %d | 2^%d | tile sort | %.3f |\n", (int)sizeof(T), L, loc);
		T *src = d, *dst = x;
		double spl = 0, lea = 0;
		for (int j = local_bits<T>() + 1; j <= L; ++j) {
			const double s = timed([&] { CK(split_stages<T>(src, n, j, S, 0, NULL)); });
			const double l = timed([&] {
				CK(launch_leaves<T>(src, dst, n, j, S, 0));
			});
			if (run)
				printf("| %d | 2^%d | level %d: %d stages, leaves | %.3f, %.3f |\n", (int)sizeof(T), L, j,
				       j - C::TB, s, l);
			spl += s;
			lea += l;
			T *t = src;
			src = dst;
			dst = t;
		}
		whole += spl + lea;
		if (run) {
			printf("| %d | 2^%d | all stages, all leaves | %.3f, %.3f |\n", (int)sizeof(T), L, spl, lea);
			printf("| %d | 2^%d | sum (tile sort in place) | %.3f |%s\n", (int)sizeof(T), L, whole,
			       sorted(src, n) ? "" : " NOT SORTED");
		}
	}
	CK(cudaFree(d));
	CK(cudaFree(x));
}
#endif

} // namespace

int main(int argc, char **argv)
{
#ifdef GS_ABISORT_COUNT
	int a = 16, b = 24;
#else
	int a = 28, b = 28, w = 4;
#endif
	for (int i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "--log") && i + 1 < argc) {
			const char *s = argv[++i];
			a = b = atoi(s);
			if (strchr(s, ':'))
				b = atoi(strchr(s, ':') + 1);
		}
#ifndef GS_ABISORT_COUNT
		else if (!strcmp(argv[i], "--width") && i + 1 < argc)
			w = atoi(argv[++i]);
#endif
		else {
			fprintf(stderr, "usage: %s [--log A:B]%s\n", argv[0],
#ifdef GS_ABISORT_COUNT
				""
#else
				" [--width 4|8|16]"
#endif
			);
			return 2;
		}
	}
#ifdef GS_ABISORT_COUNT
	counts(a, b);
#else
	printf("| width | n | phase | ms |\n|---|---|---|---|\n");
	for (int L = a; L <= b; ++L) {
		if (w == 4)
			phases<uint32_t>(L);
		else if (w == 8)
			phases<uint64_t>(L);
		else
			phases<gs_u128>(L);
	}
#endif
	return 0;
}
