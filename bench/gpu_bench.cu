/*
 * gpu_bench.cu - in-device throughput of the K-model bitonic sort
 * (kernels/bitonic.cu) next to CUB's DeviceRadixSort::SortKeys on the same
 * data in the same run. Keys are uniform random (splitmix64 of the index),
 * generated on the device; every timed run sorts freshly generated data.
 * Median of RUNS timed runs after one warm-up, cudaEvents around the sort.
 * Prints a Markdown table on stdout.
 *
 * A second table: merging k = 8 sorted segments of 2^M keys in total
 * (kernels/merge_path.cu, merge_path_rounds: what the GPU merge does to a
 * group) next to bitonic_sort of the same data (what it did before).
 *
 * bitonic.cu and merge_path.cu are included, not linked, so that the
 * benchmark builds from this one file.
 *
 * Build: make bench/gpu_bench, or by hand:
 *        nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Ikernels \
 *            bench/gpu_bench.cu -o bench/gpu_bench
 * Usage: bench/gpu_bench [min_log2 [max_log2 [runs [M]]]]   (default 24 30 5 27; M = 0: no merge table)
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "bitonic.cu"
#include "merge_path.cu"

#include "bench_cuda.cuh"

template <class T>
__global__ void k_gen(T *d, uint64_t n, uint64_t seed)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		uint64_t z = (i + seed) * 0x9e3779b97f4a7c15ull;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		d[i] = (T)(z ^ (z >> 31));
	}
}

/* counts positions where a is unsorted or differs from b */
template <class T>
__global__ void k_check(const T *a, const T *b, uint64_t n, unsigned long long *bad)
{
	unsigned long long c = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		if (a[i] != b[i])
			++c;
		if (i + 1 < n && a[i] > a[i + 1])
			++c;
	}
	if (c)
		atomicAdd(bad, c);
}

static float median(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

static void fmt_bytes(char *s, size_t n, double b)
{
	snprintf(s, n, "%.2f GiB", b / (1024.0 * 1024 * 1024));
}

template <class T>
static void bench(int lg, int runs, const char *tname)
{
	const uint64_t n = 1ull << lg;
	const size_t bytes = n * sizeof(T);
	size_t cub_temp = 0;
	cub::DoubleBuffer<T> db(nullptr, nullptr);
	CK(cub::DeviceRadixSort::SortKeys(nullptr, cub_temp, db, (int64_t)n));
	size_t fr, tot;
	CK(cudaMemGetInfo(&fr, &tot));
	const size_t need = 3 * bytes + cub_temp + (256u << 20);
	if (need > fr) {
		printf("| 2^%d | %s | skipped: needs %.1f GiB, %.1f GiB free | | | | | | | | |\n", lg, tname,
		       need / 1073741824.0, fr / 1073741824.0);
		return;
	}
	T *d_bit, *d_a, *d_b;
	void *d_temp;
	unsigned long long *d_bad;
	CK(cudaMalloc(&d_bit, bytes));
	CK(cudaMalloc(&d_a, bytes));
	CK(cudaMalloc(&d_b, bytes));
	CK(cudaMalloc(&d_temp, cub_temp));
	CK(cudaMalloc(&d_bad, sizeof *d_bad));
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	std::vector<float> tb, tc;
	uint64_t passes = 0;
	unsigned long long bad = 0;
	for (int r = 0; r <= runs; ++r) { /* r == 0: warm-up */
		const uint64_t seed = 1000003ull * (r + 1) + lg;
		k_gen<T><<<4096, 256>>>(d_bit, n, seed);
		k_gen<T><<<4096, 256>>>(d_a, n, seed);
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		uint64_t p = 0;
		CK(cudaEventRecord(e0));
		CK(bitonic_sort<T>(d_bit, n, 0, &p));
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		float ms;
		CK(cudaEventElapsedTime(&ms, e0, e1));
		if (r)
			tb.push_back(ms);
		passes = p;
		cub::DoubleBuffer<T> keys(d_a, d_b);
		size_t tbytes = cub_temp;
		CK(cudaEventRecord(e0));
		CK(cub::DeviceRadixSort::SortKeys(d_temp, tbytes, keys, (int64_t)n));
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1));
		if (r)
			tc.push_back(ms);
		CK(cudaMemset(d_bad, 0, sizeof *d_bad));
		k_check<T><<<4096, 256>>>(d_bit, keys.Current(), n, d_bad);
		CK(cudaGetLastError());
		unsigned long long b = 0;
		CK(cudaMemcpy(&b, d_bad, sizeof b, cudaMemcpyDeviceToHost));
		bad += b;
	}
	const float mb = median(tb), mc = median(tc);
	const double kb = n / (mb * 1e-3), kc = n / (mc * 1e-3);
	const int k = bitonic_tile_bits<T>();
	const double est = (double)lg * (lg + 1) / 2.0 / k;
	char mbit[32], mcub[32];
	fmt_bytes(mbit, sizeof mbit, (double)bytes);
	fmt_bytes(mcub, sizeof mcub, 2.0 * bytes + cub_temp);
	printf("| 2^%d | %s | %.2f | %.2f G | %.2f | %.2f G | %.2f | %llu | %.1f | %s (1.00x) | %s (%.2fx) | %s |\n", lg,
	       tname, mb, kb / 1e9, mc, kc / 1e9, kb / kc, (unsigned long long)passes, est, mbit, mcub,
	       (2.0 * bytes + cub_temp) / bytes, bad ? "MISMATCH" : "ok");
	fflush(stdout);
	CK(cudaFree(d_bit));
	CK(cudaFree(d_a));
	CK(cudaFree(d_b));
	CK(cudaFree(d_temp));
	CK(cudaFree(d_bad));
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
}

/*
 * k equal sorted segments of 2^lg keys (each segment sorted by bitonic_sort
 * from uniform random keys): merge_path_rounds into the second buffer vs
 * bitonic_sort of the same segmented data in place; timed separately, each
 * on freshly prepared data; the two results must be equal and sorted.
 */
template <class T>
static void bench_merge(int lg, int k, int runs, const char *tname)
{
	const uint64_t n = 1ull << lg;
	const size_t bytes = n * sizeof(T);
	const size_t scratch = merge_scratch_entries(n, merge_tile<T>()) * sizeof(uint64_t);
	size_t fr, tot;
	CK(cudaMemGetInfo(&fr, &tot));
	const size_t need = 3 * bytes + scratch + (256u << 20);
	if (need > fr) {
		printf("| 2^%d | %s | %d | skipped: needs %.1f GiB, %.1f GiB free | | | | | | | |\n", lg, tname, k,
		       need / 1073741824.0, fr / 1073741824.0);
		return;
	}
	T *d_a, *d_alt, *d_bit;
	uint64_t *d_part;
	unsigned long long *d_bad;
	CK(cudaMalloc(&d_a, bytes));
	CK(cudaMalloc(&d_alt, bytes));
	CK(cudaMalloc(&d_bit, bytes));
	CK(cudaMalloc(&d_part, scratch));
	CK(cudaMalloc(&d_bad, sizeof *d_bad));
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	std::vector<float> tm, tb;
	uint64_t mpasses = 0, bpasses = 0;
	unsigned long long bad = 0;
	std::vector<size_t> seg(k + 1);
	for (int r = 0; r <= runs; ++r) { /* r == 0: warm-up */
		const uint64_t seed = 7000003ull * (r + 1) + lg;
		k_gen<T><<<4096, 256>>>(d_a, n, seed);
		CK(cudaGetLastError());
		for (int i = 0; i <= k; ++i)
			seg[i] = (size_t)(n * (uint64_t)i / (uint64_t)k);
		for (int i = 0; i < k; ++i)
			CK(bitonic_sort<T>(d_a + seg[i], seg[i + 1] - seg[i], 0, NULL));
		CK(cudaMemcpy(d_bit, d_a, bytes, cudaMemcpyDeviceToDevice));
		CK(cudaDeviceSynchronize());
		uint64_t p = 0;
		T *res = NULL;
		CK(cudaEventRecord(e0));
		CK(merge_path_rounds<T>(d_a, d_alt, seg.data(), k, d_part, 0, &res, &p));
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		float ms;
		CK(cudaEventElapsedTime(&ms, e0, e1));
		if (r)
			tm.push_back(ms);
		mpasses = p;
		p = 0;
		CK(cudaEventRecord(e0));
		CK(bitonic_sort<T>(d_bit, n, 0, &p));
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1));
		if (r)
			tb.push_back(ms);
		bpasses = p;
		CK(cudaMemset(d_bad, 0, sizeof *d_bad));
		k_check<T><<<4096, 256>>>(res, d_bit, n, d_bad);
		CK(cudaGetLastError());
		unsigned long long b = 0;
		CK(cudaMemcpy(&b, d_bad, sizeof b, cudaMemcpyDeviceToHost));
		bad += b;
	}
	const float mm = median(tm), mb = median(tb);
	const double km = n / (mm * 1e-3), kb = n / (mb * 1e-3);
	char mmem[32], bmem[32];
	fmt_bytes(mmem, sizeof mmem, 2.0 * bytes + scratch);
	fmt_bytes(bmem, sizeof bmem, (double)bytes);
	printf("| 2^%d | %s | %d | %.2f | %.2f G | %.2f | %.2f G | %.2f | %llu | %llu | %s | %s | %s |\n", lg, tname, k,
	       mm, km / 1e9, mb, kb / 1e9, km / kb, (unsigned long long)mpasses, (unsigned long long)bpasses, mmem,
	       bmem, bad ? "MISMATCH" : "ok");
	fflush(stdout);
	CK(cudaFree(d_a));
	CK(cudaFree(d_alt));
	CK(cudaFree(d_bit));
	CK(cudaFree(d_part));
	CK(cudaFree(d_bad));
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
}

/*
 * The two bitonic configurations (bitonic_tuning.cuh: Def, and Lean for
 * GPUs with less shared memory a SM) on this device, forced: what Lean
 * costs where Def fits, and which one bitonic_variant picks here.
 */
template <class T>
static void bench_variants(int lg, int runs, const char *tname)
{
	const uint64_t n = 1ull << lg;
	T *d;
	CK(cudaMalloc(&d, n * sizeof(T)));
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	float m[2];
	for (int v = 0; v < 2; ++v) {
		std::vector<float> t;
		for (int r = 0; r <= runs; ++r) {
			k_gen<uint64_t><<<4096, 256>>>((uint64_t *)d, n * sizeof(T) / 8, 77 + r);
			CK(cudaGetLastError());
			CK(cudaEventRecord(e0));
			CK(bitonic_sort<T>(d, n, 0, NULL, false, v));
			CK(cudaEventRecord(e1));
			CK(cudaEventSynchronize(e1));
			float ms;
			CK(cudaEventElapsedTime(&ms, e0, e1));
			if (r)
				t.push_back(ms);
		}
		m[v] = median(t);
	}
	printf("| 2^%d | %s | %.2f (2^%d tile) | %.2f (2^%d tile) | %.2fx | %s |\n", lg, tname, m[0],
	       bitonic_tile_bits<T>(BITONIC_DEF), m[1], bitonic_tile_bits<T>(BITONIC_LEAN), m[1] / m[0],
	       bitonic_variant<T>() == BITONIC_DEF ? "def" : "lean");
	fflush(stdout);
	CK(cudaFree(d));
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
}

int main(int argc, char **argv)
{
	int lo = argc > 1 ? atoi(argv[1]) : 24, hi = argc > 2 ? atoi(argv[2]) : 30;
	int runs = argc > 3 ? atoi(argv[3]) : 5;
	const int mlg = argc > 4 ? atoi(argv[4]) : 27;
	if (runs < 3)
		runs = 3;
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	int drv = 0;
	CK(cudaDriverGetVersion(&drv));
	printf("Device: %s, %d SMs, %.1f GiB; CUDA driver API %d.%d; median of %d runs after 1 warm-up; uniform random keys\n\n",
	       p.name, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0, drv / 1000, drv % 1000 / 10, runs);
	printf("Bitonic: in-place K-model network (kernels/bitonic.cu), tile k = 2^%d (u32) / 2^%d (u64) elements. "
	       "CUB: cub::DeviceRadixSort::SortKeys (DoubleBuffer, the least-memory CUB mode). "
	       "est = L(L+1)/2 / log2(k), the paper-style superstep count for L = log2(n).\n\n",
	       bitonic_tile_bits<uint32_t>(), bitonic_tile_bits<uint64_t>());
	printf("| n | type | bitonic ms | bitonic keys/s | CUB ms | CUB keys/s | bitonic/CUB throughput | passes | est. supersteps | bitonic device memory | CUB device memory | check |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int lg = lo; lg <= hi; ++lg)
		bench<uint32_t>(lg, runs, "u32");
	for (int lg = lo; lg <= hi; ++lg)
		bench<uint64_t>(lg, runs, "u64");
	if (mlg > 0) {
		printf("\nMerge: k sorted segments of equal length (each sorted by bitonic_sort), merged by merge path "
		       "(kernels/merge_path.cu: ceil(log2 k) rounds, tile %d (u32) / %d (u64) elements per block, into a "
		       "second buffer) vs bitonic_sort of the same data in place. Passes: merge rounds / bitonic passes.\n\n",
		       merge_tile<uint32_t>(), merge_tile<uint64_t>());
		printf("| n | type | k | merge ms | merge keys/s | bitonic ms | bitonic keys/s | merge/bitonic throughput | "
		       "merge passes | bitonic passes | merge device memory | bitonic device memory | check |\n");
		printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
		bench_merge<uint32_t>(mlg, 8, runs, "u32");
		bench_merge<uint64_t>(mlg, 8, runs, "u64");
	}
	printf("\nBitonic configurations, forced (bitonic_tuning.cuh): Def, and Lean for GPUs with less shared memory "
	       "a SM; the last column is what bitonic_variant picks on this device.\n\n"
	       "| n | type | def ms | lean ms | lean/def time | picked here |\n|---|---|---|---|---|---|\n");
	for (int lg = 24; lg <= 28; lg += 2) {
		bench_variants<uint32_t>(lg, runs, "u32");
		bench_variants<uint64_t>(lg, runs, "u64");
		bench_variants<gs_u128>(lg - 1, runs, "u128");
	}
	return 0;
}
