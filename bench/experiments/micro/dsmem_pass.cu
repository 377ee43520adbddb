/*
 * dsmem_pass.cu - what would a bitonic pass over 2^17-word partitions cost
 * if the partition were spread over a cluster of C thread blocks, each
 * holding 2^13 words in shared memory, exchanging through distributed
 * shared memory? (issue 20: bitonic is 4.36x CUB on the H100; the 3x needs
 * about 18 passes, which 2^17-word partitions give, against the 31 of
 * 2^13-word tiles; bench/NOTES.md section 5.)
 *
 * Each kernel reads 2^28 u32 words and writes them to a second buffer, a
 * 2^TB-word tile a block (512 threads), as a pass does:
 *
 *   copy      global -> registers -> global (the floor of a pass)
 *   smem C    global -> shared -> E times (barrier; each thread reads the
 *             words of a transposed tile from shared memory) -> global,
 *             clusters of C blocks but every read local
 *   dsmem C   the same, the transposed tile's words read from the shared
 *             memory of the cluster's other blocks (map_shared_rank): the
 *             exchange that puts a partition's cross-block bits inside
 *             one block
 *
 *   dsmem_pass [LOG2_WORDS [REPS]]
 *
 * Prints each kernel's median milliseconds and GB/s (bytes read + written).
 * Built apart, once per tile size (-DTB=13, 14 or 15):
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -DTB=13 dsmem_pass.cu
 * Results: bench/results/h100-bitonic-cluster-2026-11-27.md.
 */
#include "../../bench_cuda.cuh" /* CK() */

#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;


enum { THREADS = 512 };
#ifndef TB
#define TB 13 /* tile bits: -DTB=14 or 15 for larger tiles (and fewer blocks an SM) */
#endif
enum { TILE = 1 << TB, PER = TILE / THREADS, VEC = PER / 4 };

__global__ void k_iota(uint32_t *a, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		a[i] = (uint32_t)i;
}

__global__ void __launch_bounds__(THREADS) k_copy(const uint4 *__restrict__ in, uint4 *__restrict__ out)
{
	size_t base = (size_t)blockIdx.x * (TILE / 4);
	uint4 v[VEC];
#pragma unroll
	for (int i = 0; i < VEC; i++)
		v[i] = in[base + i * THREADS + threadIdx.x];
#pragma unroll
	for (int i = 0; i < VEC; i++)
		out[base + i * THREADS + threadIdx.x] = v[i];
}

/* REMOTE: the transposed tile's words from the other blocks of the cluster;
 * else from this block's own shared memory at the same positions. */
template <int REMOTE, int E>
__global__ void __launch_bounds__(THREADS) k_exchange(const uint4 *__restrict__ in, uint4 *__restrict__ out, int lc)
{
	extern __shared__ uint4 dyn[]; /* E > 1: two tiles, the next exchange's written while others read */
	uint4 *buf[2] = { dyn, dyn + (E > 1 ? TILE / 4 : 0) };
	cg::cluster_group cl = cg::this_cluster();
	unsigned r = cl.block_rank();
	size_t base = (size_t)blockIdx.x * (TILE / 4);
#pragma unroll
	for (int i = 0; i < VEC; i++)
		buf[0][i * THREADS + threadIdx.x] = in[base + i * THREADS + threadIdx.x];
	/* vector index t (11 bits): its top lc bits name the source block, the
	 * source's own position puts this block's rank there */
	int sh = TB - 2 - lc;
	unsigned low = (1u << sh) - 1;
	uint4 v[VEC];
#pragma unroll
	for (int e = 0; e < E; e++) {
		if (REMOTE)
			cl.sync();
		else
			__syncthreads();
#pragma unroll
		for (int i = 0; i < VEC; i++) {
			unsigned t = i * THREADS + threadIdx.x, s = t >> sh, st = (r << sh) | (t & low);
			const uint4 *src = REMOTE ? cl.map_shared_rank(&buf[e & 1][0], s) : &buf[e & 1][0];
			v[i] = src[st];
		}
		if (e + 1 < E) {
#pragma unroll
			for (int i = 0; i < VEC; i++)
				buf[(e + 1) & 1][i * THREADS + threadIdx.x] = v[i];
		}
	}
	if (REMOTE)
		cl.sync(); /* no block leaves while another still reads its shared memory */
#pragma unroll
	for (int i = 0; i < VEC; i++)
		out[base + i * THREADS + threadIdx.x] = v[i];
}

template <typename K>
static float timeit(K launch, int reps)
{
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	std::vector<float> t;
	launch();
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < reps; i++) {
		CK(cudaEventRecord(a));
		launch();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		float ms;
		CK(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms);
	}
	CK(cudaGetLastError());
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

template <int REMOTE, int E>
static float run_exchange(const uint4 *in, uint4 *out, size_t tiles, int c, int reps)
{
	auto k = k_exchange<REMOTE, E>;
	int smem = (E > 1 ? 2 : 1) * TILE * 4;
	CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
	CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3((unsigned)tiles);
	cfg.blockDim = dim3(THREADS);
	cfg.dynamicSmemBytes = (size_t)smem;
	cudaLaunchAttribute at[1];
	at[0].id = cudaLaunchAttributeClusterDimension;
	at[0].val.clusterDim.x = (unsigned)c;
	at[0].val.clusterDim.y = 1;
	at[0].val.clusterDim.z = 1;
	cfg.attrs = at;
	cfg.numAttrs = 1;
	int lc = 0;
	while ((1 << lc) < c)
		lc++;
	int active = 0;
	if (cudaOccupancyMaxActiveClusters(&active, k, &cfg) != cudaSuccess) {
		cudaGetLastError();
		active = -1;
	}
	printf("  (clusters active at once: %d)\n", active);
	if (active == 0)
		return -1; /* such a cluster does not fit this device: no launch */
	return timeit([&] { CK(cudaLaunchKernelEx(&cfg, k, in, out, lc)); }, reps);
}

int main(int argc, char **argv)
{
	int lg = argc > 1 ? atoi(argv[1]) : 28, reps = argc > 2 ? atoi(argv[2]) : 9;
	size_t n = (size_t)1 << lg, tiles = n / TILE;
	double gb = 2.0 * (double)n * 4 / 1e9;
	uint4 *in, *out;
	CK(cudaMalloc(&in, n * 4));
	CK(cudaMalloc(&out, n * 4));
	CK(cudaMemset(in, 1, n * 4));
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	printf("%s, 2^%d u32 words, tiles of 2^%d words, %d threads a block\n", p.name, lg, TB, THREADS);
	float ms = timeit([&] { k_copy<<<(unsigned)tiles, THREADS>>>(in, out); }, reps);
	printf("| copy | %.3f ms | %.0f GB/s |\n", ms, gb / ms * 1e3);
	ms = timeit([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); }, reps);
	printf("| cudaMemcpy | %.3f ms | %.0f GB/s |\n", ms, gb / ms * 1e3);
	{
		/* the exchange moves what it should: vector t of block b (rank r of
		 * the cluster at cb) is vector (r << sh | t & low) of block cb + (t >> sh) */
		int c = TB > 13 ? 4 : 16, lc = TB > 13 ? 2 : 4, sh = TB - 2 - lc;
		k_iota<<<1024, 256>>>((uint32_t *)in, n);
		run_exchange<1, 1>(in, out, tiles, c, 1);
		std::vector<uint32_t> h(n);
		CK(cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost));
		size_t bad = 0;
		for (size_t b = 0; b < tiles; b++)
			for (unsigned t = 0; t < TILE / 4; t++) {
				size_t r = b % c, cb = b - r, sb = cb + (t >> sh), st = (r << sh) | (t & ((1u << sh) - 1));
				for (int w = 0; w < 4; w++)
					bad += h[b * TILE + t * 4 + w] != (uint32_t)(sb * TILE + st * 4 + w);
			}
		printf("exchange check (C=%d)", c); printf(": %zu words wrong\n", bad);
	}
	for (int c : { 1, 2, 4, 8, 16 }) {
		ms = run_exchange<0, 1>(in, out, tiles, c, reps);
		printf("| smem C=%d E=1 | %.3f ms | %.0f GB/s |\n", c, ms, gb / ms * 1e3);
		ms = run_exchange<1, 1>(in, out, tiles, c, reps);
		printf("| dsmem C=%d E=1 | %.3f ms | %.0f GB/s |\n", c, ms, gb / ms * 1e3);
		if (TB == 13) {
			ms = run_exchange<1, 2>(in, out, tiles, c, reps);
			printf("| dsmem C=%d E=2 | %.3f ms | %.0f GB/s |\n", c, ms, gb / ms * 1e3);
		}
	}
	CK(cudaFree(in));
	CK(cudaFree(out));
	return 0;
}
