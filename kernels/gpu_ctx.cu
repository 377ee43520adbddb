/*
 * gpu_ctx.cu - device discovery, ctx open/close, the memory budget, pinned
 * host memory, error codes and their text.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_internal.cuh"

/* detail of the last failed gpu_open (no ctx exists then); per thread */
static thread_local char gs_open_err[GS_ERRLEN];

int gs_fail_msg(gpu_ctx *ctx, int code, const char *msg)
{
	char *buf = ctx ? ctx->err : gs_open_err;
	snprintf(buf, GS_ERRLEN, "%s", msg);
	return code;
}

int gs_fail(gpu_ctx *ctx, cudaError_t e, const char *what, const char *file, int line)
{
	char *buf = ctx ? ctx->err : gs_open_err;
	const char *base = strrchr(file, '/');
	snprintf(buf, GS_ERRLEN, "%s (%s:%d): %s: %s", what, base ? base + 1 : file, line,
		 cudaGetErrorName(e), cudaGetErrorString(e));
	/* clear a non-sticky error so the next call on this thread starts clean */
	(void)cudaGetLastError();
	if (e == cudaErrorMemoryAllocation)
		return GPU_ENOMEM;
	if (e == cudaErrorNoDevice || e == cudaErrorInvalidDevice || e == cudaErrorInsufficientDriver)
		return GPU_ENODEV;
	return GPU_ECUDA;
}

static pthread_t gs_prewarm_thread;
static int gs_prewarm_started;

static void *gs_prewarm_main(void *arg)
{
	/* a missing GPU or driver only means the later calls fail as usual */
	if (cudaSetDevice((int)(intptr_t)arg) == cudaSuccess)
		(void)cudaFree(0);
	(void)cudaGetLastError();
	return NULL;
}

extern "C" int gpu_prewarm(int device)
{
	if (gs_prewarm_started)
		return 0;
	if (pthread_create(&gs_prewarm_thread, NULL, gs_prewarm_main, (void *)(intptr_t)(device < 0 ? 0 : device)))
		return GPU_ECUDA;
	gs_prewarm_started = 1;
	return 0;
}

extern "C" void gpu_prewarm_wait(void)
{
	if (gs_prewarm_started) {
		pthread_join(gs_prewarm_thread, NULL);
		gs_prewarm_started = 0;
	}
}

extern "C" int gpu_driver_present(void)
{
	return access("/proc/driver/nvidia/version", R_OK) == 0;
}

extern "C" int gpu_device_count(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
		(void)cudaGetLastError();
		return 0;
	}
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		return GPU_ECUDA;
	}
	return n;
}

extern "C" const char *gpu_last_error(const gpu_ctx *ctx)
{
	return ctx ? ctx->err : gs_open_err;
}

static void gs_release(gpu_ctx *c)
{
	if (!c)
		return;
	cudaSetDevice(c->device);
	if (c->arena)
		cudaFree(c->arena);
	for (int i = 0; i < 4; ++i)
		if (c->ev[i])
			cudaEventDestroy(c->ev[i]);
	if (c->ev_link)
		cudaEventDestroy(c->ev_link);
	for (int i = 0; i < 4; ++i)
		if (c->ev_sort[i / 2][i % 2])
			cudaEventDestroy(c->ev_sort[i / 2][i % 2]);
	for (int i = 0; i < GPU_SLOTS; ++i) {
		if (c->slot_start[i])
			cudaEventDestroy(c->slot_start[i]);
		if (c->slot_end[i])
			cudaEventDestroy(c->slot_end[i]);
	}
	if (c->stream)
		cudaStreamDestroy(c->stream);
	if (c->copy_in)
		cudaStreamDestroy(c->copy_in);
	if (c->copy_out)
		cudaStreamDestroy(c->copy_out);
	if (c->h_flag)
		cudaFreeHost(c->h_flag);
	(void)cudaGetLastError();
	free(c);
}

/* Launched never: its attributes say whether this binary has code this
 * device can run (SASS for it, or PTX the driver can compile). */
__global__ void gs_probe(void) {}

/*
 * Refuse, before any record reaches the device, a GPU that cannot run
 * gpusort's kernels: no code for its architecture (cudaFuncGetAttributes
 * loads the module as a launch would), or less opt-in shared memory per
 * block than the largest bitonic tile (64 KiB: 2^12 16-byte words), which
 * every GPU of compute capability 7.5 and later grants.
 */
static int gs_check_device(const cudaDeviceProp *p)
{
	cudaFuncAttributes fa;
	cudaError_t e = cudaFuncGetAttributes(&fa, gs_probe);
	char m[160];
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		snprintf(m, sizeof m, "no kernel image for compute capability %d.%d in this gpusort (%s)", p->major,
			 p->minor, cudaGetErrorString(e));
		return gs_fail_msg(NULL, GPU_ENOTSUP, m);
	}
	if (p->sharedMemPerBlockOptin < (64u << 10)) {
		snprintf(m, sizeof m, "compute capability %d.%d grants %zu bytes of shared memory per block, below 64 KiB",
			 p->major, p->minor, (size_t)p->sharedMemPerBlockOptin);
		return gs_fail_msg(NULL, GPU_ENOTSUP, m);
	}
	return 0;
}

static int gs_open(gpu_ctx *c, int device, size_t budget, char *name, size_t namelen)
{
	int count = gpu_device_count();
	if (count < 0)
		return gs_fail_msg(NULL, count, "cudaGetDeviceCount failed");
	if (device < 0 || device >= count) {
		char m[96];
		snprintf(m, sizeof m, "CUDA device %d does not exist (%d found)", device, count);
		return gs_fail_msg(NULL, GPU_ENODEV, m);
	}
	c->device = device;
	c->sorter = gs_sorter_at(0);
	GS_CK(NULL, cudaSetDevice(device));
	cudaDeviceProp p;
	GS_CK(NULL, cudaGetDeviceProperties(&p, device));
	int bad = gs_check_device(&p);
	if (bad)
		return bad;
	if (name && namelen) {
		strncpy(name, p.name, namelen - 1);
		name[namelen - 1] = 0;
	}
	/* the compute stream, and one stream per copy direction for the
	 * device-resident chunks, so that a newer chunk's puts run while an
	 * older chunk's gets do (both PCIe directions busy); non-blocking: no
	 * implicit order with the legacy default stream */
	GS_CK(NULL, cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
	GS_CK(NULL, cudaStreamCreateWithFlags(&c->copy_in, cudaStreamNonBlocking));
	GS_CK(NULL, cudaStreamCreateWithFlags(&c->copy_out, cudaStreamNonBlocking));
	for (int i = 0; i < 4; ++i)
		GS_CK(NULL, cudaEventCreate(&c->ev[i]));
	GS_CK(NULL, cudaEventCreateWithFlags(&c->ev_link, cudaEventDisableTiming));
	for (int i = 0; i < 4; ++i)
		GS_CK(NULL, cudaEventCreate(&c->ev_sort[i / 2][i % 2]));
	for (int i = 0; i < GPU_SLOTS; ++i) {
		GS_CK(NULL, cudaEventCreate(&c->slot_start[i]));
		GS_CK(NULL, cudaEventCreate(&c->slot_end[i]));
	}
	GS_CK(NULL, cudaHostAlloc((void **)&c->h_flag, sizeof(int) * 4, cudaHostAllocDefault));
	size_t fr = 0, tot = 0;
	GS_CK(NULL, cudaMemGetInfo(&fr, &tot));
	/* the budget is an upper bound: never more than 90% of what is free */
	if (budget == 0 || budget > fr / 10 * 9)
		budget = fr / 10 * 9;
	budget &= ~(size_t)4095;
	if (budget < (1u << 20))
		return gs_fail_msg(NULL, GPU_ENOMEM, "device memory budget below 1 MiB");
	GS_CK(NULL, cudaMalloc((void **)&c->arena, budget));
	c->arena_bytes = budget;
	size_t slack = budget / 64;
	if (slack < (64u << 10))
		slack = 64u << 10;
	if (slack > (8u << 20))
		slack = 8u << 20;
	c->slack_bytes = slack;
	c->err[0] = 0;
	return 0;
}

extern "C" int gpu_open(gpu_ctx **out, int device, size_t budget_bytes, char *name, size_t namelen)
{
	if (!out)
		return gs_fail_msg(NULL, GPU_EINVAL, "gpu_open: out is NULL");
	*out = NULL;
	gpu_ctx *c = (gpu_ctx *)calloc(1, sizeof *c);
	if (!c)
		return gs_fail_msg(NULL, GPU_ENOMEM, "gpu_open: out of host memory");
	int r = gs_open(c, device, budget_bytes, name, namelen);
	if (r < 0) {
		gs_release(c);
		return r;
	}
	*out = c;
	return 0;
}

extern "C" void gpu_close(gpu_ctx *ctx)
{
	if (ctx) {
		cudaSetDevice(ctx->device);
		cudaStreamSynchronize(ctx->copy_in);
		cudaStreamSynchronize(ctx->stream);
		cudaStreamSynchronize(ctx->copy_out);
	}
	gs_release(ctx);
}

extern "C" void *gpu_host_alloc(size_t bytes)
{
	void *p = NULL;
	if (bytes == 0)
		bytes = 1;
	if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
		(void)cudaGetLastError();
		return NULL;
	}
	return p;
}

extern "C" void gpu_host_free(void *p)
{
	if (p && cudaFreeHost(p) != cudaSuccess)
		(void)cudaGetLastError();
}

extern "C" int gpu_host_register(void *p, size_t bytes)
{
	if (!p || !bytes)
		return GPU_EINVAL;
	cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
	if (e != cudaSuccess) {
		(void)cudaGetLastError(); /* clear: a failed pin only costs speed */
		return e == cudaErrorMemoryAllocation ? GPU_ENOMEM : GPU_ECUDA;
	}
	return GPU_OK;
}

extern "C" void gpu_host_unregister(void *p)
{
	if (p && cudaHostUnregister(p) != cudaSuccess)
		(void)cudaGetLastError();
}
