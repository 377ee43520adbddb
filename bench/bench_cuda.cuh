/*
 * bench_cuda.cuh - what the GPU benchmarks (bench/*.cu) share: CK(), which
 * ends the benchmark with the call, file, line and CUDA's message when a
 * CUDA call fails (a benchmark has nothing to recover, unlike kernels/).
 */
#ifndef GPUSORT_BENCH_CUDA_CUH
#define GPUSORT_BENCH_CUDA_CUH

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                                            \
	do {                                                                                             \
		cudaError_t e_ = (x);                                                                    \
		if (e_ != cudaSuccess) {                                                                 \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			exit(2);                                                                         \
		}                                                                                        \
	} while (0)

#endif
