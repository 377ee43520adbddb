/*
 * sorter_bench.cu - in-device time of every sorter of the registry
 * (kernels/sorters.cu) beside CUB's radix sort and thrust::sort, on the
 * same words in the same run.
 *
 * Words: 4 bytes (u32 keys), 8 bytes (u64 keys, or with --pairs the (u32
 * key, u32 index = position) elements gpu_sort_chunk.cu sorts with
 * key_bits 32), 16 bytes (--pairs: (12 key bytes, u32 index) with
 * key_bits 96; else 128-bit keys). Peers:
 *   cub       DeviceRadixSort::SortKeys (u32, u64; 16 bytes: with a
 *             decomposer over (hi, lo)); with --pairs, SortPairs of
 *             (u32 key, u32 index) for 8 bytes, (u64 key, u32 index) for
 *             16 bytes (64 of the 96 key bits: a lower bound on its time)
 *   cub96     --pairs, 16 bytes: SortKeys of the whole words with the
 *             decomposer over bits 32..127, the 96 key bits the engines
 *             sort, the index carried in the low word: the same work as
 *             theirs, where SortPairs above does two thirds of it
 *   thrust    thrust::sort (radix for u32/u64, merge sort with a
 *             comparator for 16 bytes); its temporary storage is
 *             allocated inside the timed call
 * Each timed run sorts a fresh device copy of the same generated words;
 * median of RUNS after one warm-up, cudaEvents around the sort alone.
 * Every engine's output is checked against CUB's (equal words, sorted).
 *
 * Usage: bench/sorter_bench [--width 4|8|16] [--pairs] [--log A[:B]]
 *            [--dist NAME[,NAME...]|all] [--runs R] [--engines NAME,...]
 * Distributions: uniform sorted reverse all-equal few-unique gaussian
 * zipf bucket staggered (bench/gen's and the seed papers').
 * Output: Markdown rows | width | dist | n | engine | ms | G words/s |
 * vs cub | device MiB | check |, after a header.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/tuple>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "sorter.cuh"

#include "bench_cuda.cuh"

namespace {

const char *const DISTS[] = {"uniform", "sorted", "reverse", "all-equal", "few-unique",
			     "gaussian", "zipf", "bucket", "staggered"};
const int NDIST = 9;

__device__ uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The 64-bit key of element i of n under distribution d (DISTS' order). */
__device__ uint64_t gen_key(int d, uint64_t i, uint64_t n, uint64_t seed)
{
	const uint64_t r = mix64((i + seed) * 0x9e3779b97f4a7c15ull);
	const double u = (double)(r >> 11) / 9007199254740992.0;
	const double frac = (double)i / (double)n;
	const uint64_t p = 64, per = n / p + 1;
	switch (d) {
	case 1: return (uint64_t)(frac * 18446744073709549568.0);
	case 2: return (uint64_t)((1.0 - frac) * 18446744073709549568.0);
	case 3: return 0x5a5a5a5a5a5a5a5aull;
	case 4: return (r % 5) << 61;
	case 5: {
		double s = u;
		for (int k = 1; k < 4; ++k)
			s += (double)(mix64(r + k) >> 11) / 9007199254740992.0;
		return (uint64_t)(s / 4 * 18446744073709549568.0);
	}
	case 6: return (uint64_t)exp(u * log(1048576.0)) << 40;
	case 7: return ((i % per) * p / per << 58) + (r >> 6);
	case 8: {
		const uint64_t b = i / per, g = b < p / 2 ? 2 * b + 1 : 2 * b - p;
		return (g << 58) + (r >> 6);
	}
	default: return r;
	}
}

template <class T>
__device__ void make_word(T &w, uint64_t k, uint64_t i, bool pairs, uint64_t r)
{
	w = (T)(sizeof(T) == 4 ? k >> 32 : pairs ? (k & 0xffffffff00000000ull) | (uint32_t)i : k);
}
__device__ void make_word(gs_u128 &w, uint64_t k, uint64_t i, bool pairs, uint64_t r)
{
	w.hi = k;
	w.lo = pairs ? (r & 0xffffffff00000000ull) | (uint32_t)i : r;
}

template <class T>
__global__ void k_gen(T *w, uint64_t n, int d, bool pairs, uint64_t seed)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		make_word(w[i], gen_key(d, i, n, seed), i, pairs, mix64(i ^ seed));
}

__device__ bool eq(const gs_u128 &a, const gs_u128 &b) { return a.hi == b.hi && a.lo == b.lo; }
__device__ bool lt(const gs_u128 &a, const gs_u128 &b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }
template <class T> __device__ bool eq(T a, T b) { return a == b; }
template <class T> __device__ bool lt(T a, T b) { return a < b; }

/* counts positions where a is unsorted or differs from the reference b */
template <class T>
__global__ void k_check(const T *a, const T *b, uint64_t n, unsigned long long *bad)
{
	unsigned long long c = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		c += !eq(a[i], b[i]) + (i + 1 < n && lt(a[i + 1], a[i]));
	if (c)
		atomicAdd(bad, c);
}

/* (u32 key, u32 index) and (u64 key, u32 index) from pair words, for
 * CUB's SortPairs */
template <class T, class K>
__global__ void k_split(const T *w, K *k, uint32_t *v, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		if constexpr (sizeof(T) == 16) {
			k[i] = (K)reinterpret_cast<const gs_u128 *>(w)[i].hi;
			v[i] = (uint32_t)reinterpret_cast<const gs_u128 *>(w)[i].lo;
		} else {
			k[i] = (K)((uint64_t)w[i] >> 32);
			v[i] = (uint32_t)w[i];
		}
	}
}

struct u128_decomposer {
	__host__ __device__ cuda::std::tuple<uint64_t &, uint64_t &> operator()(gs_u128 &k) const
	{
		return {k.hi, k.lo};
	}
};

struct u128_less {
	__host__ __device__ bool operator()(const gs_u128 &a, const gs_u128 &b) const
	{
		return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
	}
};

float median(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

struct Timer {
	cudaEvent_t a, b;
	Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); }
	~Timer() { cudaEventDestroy(a); cudaEventDestroy(b); }
	void start() { CK(cudaEventRecord(a)); }
	float stop()
	{
		float ms;
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		return ms;
	}
};

/* CUB SortKeys of bits [begin, end) of the words at src into work (alt:
 * room for n words), runs times after a warm-up; the median time, *mib its
 * device memory. */
template <class T>
float cub_keys(const T *src, T *work, T *alt, uint64_t n, int begin, int end, int runs, size_t *mib)
{
	Timer t;
	std::vector<float> ms;
	const size_t bytes = n * sizeof(T);
	auto sort = [&](void *tmp, size_t &tb, cub::DoubleBuffer<T> &d) {
		if constexpr (sizeof(T) == 16)
			CK(cub::DeviceRadixSort::SortKeys(tmp, tb, d, (int64_t)n, u128_decomposer{}, begin, end));
		else
			CK(cub::DeviceRadixSort::SortKeys(tmp, tb, d, (int64_t)n, begin, end));
	};
	size_t tb = 0;
	void *tmp = NULL;
	cub::DoubleBuffer<T> db(work, alt);
	sort(NULL, tb, db);
	CK(cudaMalloc(&tmp, tb));
	*mib = (2 * bytes + tb) >> 20;
	for (int r = 0; r <= runs; ++r) {
		CK(cudaMemcpy(work, src, bytes, cudaMemcpyDeviceToDevice));
		cub::DoubleBuffer<T> d(work, alt);
		t.start();
		sort(tmp, tb, d);
		const float m = t.stop();
		if (r)
			ms.push_back(m);
		if (d.Current() != work)
			CK(cudaMemcpy(work, d.Current(), bytes, cudaMemcpyDeviceToDevice));
	}
	CK(cudaFree(tmp));
	return median(ms);
}

/* CUB's result into ref (the reference every engine is checked against)
 * and its median time; pairs: SortPairs on the split words, rebuilt. */
template <class T>
float cub_sort(const T *src, T *ref, T *alt, uint64_t n, bool pairs, int runs, size_t *mib)
{
	Timer t;
	std::vector<float> ms;
	const size_t bytes = n * sizeof(T);
	if (!pairs || sizeof(T) == 4)
		return cub_keys(src, ref, alt, n, 0, 8 * (int)sizeof(T), runs, mib);
	/* pairs: the key part and the index as CUB's keys and values */
	typedef typename std::conditional<sizeof(T) == 16, uint64_t, uint32_t>::type K;
	K *k0, *k1;
	uint32_t *v0, *v1;
	CK(cudaMalloc(&k0, n * sizeof(K)));
	CK(cudaMalloc(&k1, n * sizeof(K)));
	CK(cudaMalloc(&v0, n * 4));
	CK(cudaMalloc(&v1, n * 4));
	size_t tb = 0;
	void *tmp = NULL;
	cub::DoubleBuffer<K> dk(k0, k1);
	cub::DoubleBuffer<uint32_t> dv(v0, v1);
	CK(cub::DeviceRadixSort::SortPairs(NULL, tb, dk, dv, (int64_t)n));
	CK(cudaMalloc(&tmp, tb));
	*mib = (2 * n * (sizeof(K) + 4) + tb) >> 20;
	for (int r = 0; r <= runs; ++r) {
		k_split<<<4096, 256>>>(src, k0, v0, n);
		CK(cudaGetLastError());
		cub::DoubleBuffer<K> a(k0, k1);
		cub::DoubleBuffer<uint32_t> b(v0, v1);
		t.start();
		CK(cub::DeviceRadixSort::SortPairs(tmp, tb, a, b, (int64_t)n));
		const float m = t.stop();
		if (r)
			ms.push_back(m);
	}
	/* the reference words: the engines' own full-width order (std order
	 * of the words), from a key sort of the whole words */
	{
		size_t tb2 = 0;
		void *tmp2 = NULL;
		cub::DoubleBuffer<T> db(ref, alt);
		if constexpr (sizeof(T) == 16)
			CK(cub::DeviceRadixSort::SortKeys(NULL, tb2, db, (int64_t)n, u128_decomposer{}));
		else
			CK(cub::DeviceRadixSort::SortKeys(NULL, tb2, db, (int64_t)n));
		CK(cudaMalloc(&tmp2, tb2));
		CK(cudaMemcpy(ref, src, bytes, cudaMemcpyDeviceToDevice));
		if constexpr (sizeof(T) == 16)
			CK(cub::DeviceRadixSort::SortKeys(tmp2, tb2, db, (int64_t)n, u128_decomposer{}));
		else
			CK(cub::DeviceRadixSort::SortKeys(tmp2, tb2, db, (int64_t)n));
		if (db.Current() != ref)
			CK(cudaMemcpy(ref, db.Current(), bytes, cudaMemcpyDeviceToDevice));
		CK(cudaFree(tmp2));
	}
	CK(cudaFree(tmp));
	CK(cudaFree(k0));
	CK(cudaFree(k1));
	CK(cudaFree(v0));
	CK(cudaFree(v1));
	return median(ms);
}

/* cub96 (16-byte pair words only): SortKeys over the 96 key bits of the
 * words at src into work (alt: room for n words); the median time, *mib
 * its device memory. */
float cub96_sort(const gs_u128 *src, gs_u128 *work, gs_u128 *alt, uint64_t n, int runs, size_t *mib)
{
	return cub_keys(src, work, alt, n, 32, 128, runs, mib);
}

template <class T>
unsigned long long check(const T *a, const T *ref, uint64_t n)
{
	unsigned long long *d_bad, bad = 0;
	CK(cudaMalloc(&d_bad, sizeof bad));
	CK(cudaMemset(d_bad, 0, sizeof bad));
	k_check<T><<<4096, 256>>>(a, ref, n, d_bad);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
	CK(cudaFree(d_bad));
	return bad;
}

void row(int width, bool pairs, const char *dist, int lg, const char *eng, float ms, uint64_t n, float cub_ms,
	 size_t mib, unsigned long long bad)
{
	printf("| %d%s | %s | 2^%d | %s | %.3f | %.3f | %.2fx | %zu | %s |\n", width, pairs ? " pairs" : "", dist, lg,
	       eng, ms, n / (ms * 1e-3) / 1e9, cub_ms / ms, mib, bad ? "MISMATCH" : "ok");
	fflush(stdout);
}

bool wanted(const std::string &list, const char *name)
{
	if (list.empty() || list == "all")
		return true;
	std::string l = "," + list + ",";
	return l.find("," + std::string(name) + ",") != std::string::npos;
}

template <class T>
void bench(int lg, int d, bool pairs, int runs, const std::string &engines)
{
	const uint64_t n = 1ull << lg;
	const size_t bytes = n * sizeof(T);
	const int width = (int)sizeof(T), kb = pairs ? (width == 8 ? 32 : 96) : 8 * width;
	size_t fr, tot;
	CK(cudaMemGetInfo(&fr, &tot));
	if (4 * bytes + (512u << 20) > fr) {
		printf("| %d | %s | 2^%d | skipped: %.1f GiB free | | | | | |\n", width, DISTS[d], lg, fr / 1073741824.0);
		return;
	}
	T *src, *ref, *work;
	CK(cudaMalloc(&src, bytes));
	CK(cudaMalloc(&ref, bytes));
	CK(cudaMalloc(&work, bytes));
	k_gen<T><<<4096, 256>>>(src, n, d, pairs, 12345 + lg);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	size_t mib = 0;
	const float cub_ms = cub_sort(src, ref, work, n, pairs, runs, &mib);
	if (wanted(engines, "cub"))
		row(width, pairs, DISTS[d], lg, pairs && width > 4 ? "cub SortPairs" : "cub SortKeys", cub_ms, n, cub_ms,
		    mib, 0);
	if constexpr (sizeof(T) == 16) {
		if (pairs && wanted(engines, "cub96")) {
			T *alt;
			CK(cudaMalloc(&alt, bytes));
			size_t m96 = 0;
			const float ms96 = cub96_sort(src, work, alt, n, runs, &m96);
			CK(cudaFree(alt));
			row(width, pairs, DISTS[d], lg, "cub SortKeys 96 bits", ms96, n, cub_ms, m96, check(work, ref, n));
		}
	}
	Timer t;
	for (int i = 0; gs_sorter_at(i); ++i) {
		const gs_sorter *s = gs_sorter_at(i);
		if (!wanted(engines, s->name))
			continue;
		const size_t x = s->extra_bytes(n, width);
		CK(cudaMemGetInfo(&fr, &tot));
		if (x + (256u << 20) > fr) {
			printf("| %d | %s | 2^%d | %s | skipped: scratch %.1f GiB | | | | |\n", width, DISTS[d], lg, s->name,
			       x / 1073741824.0);
			continue;
		}
		void *scr = NULL;
		if (x)
			CK(cudaMalloc(&scr, x));
		std::vector<float> ms;
		for (int r = 0; r <= runs; ++r) {
			CK(cudaMemcpy(work, src, bytes, cudaMemcpyDeviceToDevice));
			t.start();
			CK(s->sort(work, n, width, kb, scr, x, 0, NULL));
			const float m = t.stop();
			if (r)
				ms.push_back(m);
		}
		row(width, pairs, DISTS[d], lg, s->name, median(ms), n, cub_ms, (bytes + x) >> 20, check(work, ref, n));
		if (scr)
			CK(cudaFree(scr));
	}
	if (wanted(engines, "thrust")) {
		std::vector<float> ms;
		for (int r = 0; r <= runs; ++r) {
			CK(cudaMemcpy(work, src, bytes, cudaMemcpyDeviceToDevice));
			t.start();
			if constexpr (sizeof(T) == 16)
				thrust::sort(thrust::device, work, work + n, u128_less());
			else
				thrust::sort(thrust::device, work, work + n);
			CK(cudaGetLastError());
			const float m = t.stop();
			if (r)
				ms.push_back(m);
		}
		row(width, pairs, DISTS[d], lg, "thrust::sort", median(ms), n, cub_ms, bytes >> 20, check(work, ref, n));
	}
	CK(cudaFree(src));
	CK(cudaFree(ref));
	CK(cudaFree(work));
}

} // namespace

int main(int argc, char **argv)
{
	int width = 4, lo = 20, hi = 28, runs = 5;
	bool pairs = false;
	std::string dists = "uniform", engines;
	for (int i = 1; i < argc; ++i) {
		const bool more = i + 1 < argc;
		if (!strcmp(argv[i], "--width") && more)
			width = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pairs"))
			pairs = true;
		else if (!strcmp(argv[i], "--log") && more) {
			const char *a = argv[++i], *c = strchr(a, ':');
			lo = atoi(a);
			hi = c ? atoi(c + 1) : lo;
		} else if (!strcmp(argv[i], "--dist") && more)
			dists = argv[++i];
		else if (!strcmp(argv[i], "--runs") && more)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--engines") && more)
			engines = argv[++i];
		else {
			fprintf(stderr,
				"usage: %s [--width 4|8|16] [--pairs] [--log A[:B]] [--dist NAME,...|all] [--runs R] "
				"[--engines NAME,...]\n",
				argv[0]);
			return 2;
		}
	}
	if ((width != 4 && width != 8 && width != 16) || lo < 1 || hi > 34 || lo > hi || runs < 1 ||
	    (pairs && width == 4)) {
		fprintf(stderr, "%s: bad arguments (width 4, 8 or 16; pairs only with 8 or 16; log 1..34)\n", argv[0]);
		return 2;
	}
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	printf("device: %s\n\n| width | dist | n | engine | ms | G words/s | vs cub | device MiB | check |\n"
	       "|---|---|---|---|---|---|---|---|---|\n",
	       p.name);
	for (int d = 0; d < NDIST; ++d) {
		if (!wanted(dists, DISTS[d]))
			continue;
		for (int lg = lo; lg <= hi; ++lg) {
			if (width == 4)
				bench<uint32_t>(lg, d, false, runs, engines);
			else if (width == 8)
				bench<uint64_t>(lg, d, pairs, runs, engines);
			else
				bench<gs_u128>(lg, d, pairs, runs, engines);
		}
	}
	return 0;
}
