/*
 * gpu_stub.c - the GPU door when the build found no nvcc: no device, every
 * other call GPU_ENOTSUP (or NULL / 0), so src/ links the same way.
 */
#include <stddef.h>

#include "gpusort_kernels.h"

#include <string.h>

int gpu_prewarm(int device)
{
	(void)device;
	return GPU_ENOTSUP;
}

void gpu_prewarm_wait(void) {}

int gpu_device_count(void)
{
	return 0;
}

int gpu_driver_present(void)
{
	return 0;
}

int gpu_open(gpu_ctx **out, int device, size_t budget_bytes, char *name, size_t namelen)
{
	(void)device;
	(void)budget_bytes;
	if (out)
		*out = NULL;
	if (name && namelen)
		name[0] = 0;
	return GPU_ENOTSUP;
}

void gpu_close(gpu_ctx *ctx)
{
	(void)ctx;
}

const char *gpu_last_error(const gpu_ctx *ctx)
{
	(void)ctx;
	return "built without CUDA support";
}

size_t gpu_chunk_capacity(const gpu_ctx *ctx, const keys_spec *layout)
{
	(void)ctx;
	(void)layout;
	return 0;
}

int gpu_sort_chunk(gpu_ctx *ctx, const keys_spec *layout, const void *in, void *out, size_t n,
		   gpu_stage_times *t)
{
	(void)ctx;
	(void)layout;
	(void)in;
	(void)out;
	(void)n;
	if (t) {
		t->h2d = t->sort = t->d2h = 0;
		t->passes = 0;
	}
	return GPU_ENOTSUP;
}

size_t gpu_merge_capacity(const gpu_ctx *ctx, const keys_spec *layout)
{
	(void)ctx;
	(void)layout;
	return 0;
}

int gpu_resident_begin_merge(gpu_ctx *ctx, const keys_spec *layout, size_t n)
{
	(void)ctx;
	(void)layout;
	(void)n;
	return GPU_ENOTSUP;
}

int gpu_resident_merge(gpu_ctx *ctx, const size_t *seg_start, int k)
{
	(void)ctx;
	(void)seg_start;
	(void)k;
	return GPU_ENOTSUP;
}

int gpu_resident_begin(gpu_ctx *ctx, const keys_spec *layout, size_t n)
{
	(void)ctx;
	(void)layout;
	(void)n;
	return GPU_ENOTSUP;
}

int gpu_resident_trim(gpu_ctx *ctx, size_t m)
{
	(void)ctx;
	(void)m;
	return GPU_ENOTSUP;
}

int gpu_resident_put(gpu_ctx *ctx, const void *host, size_t first, size_t count, int slot)
{
	(void)ctx;
	(void)host;
	(void)first;
	(void)count;
	(void)slot;
	return GPU_ENOTSUP;
}

int gpu_resident_sort(gpu_ctx *ctx)
{
	(void)ctx;
	return GPU_ENOTSUP;
}

int gpu_resident_get(gpu_ctx *ctx, void *host, size_t first, size_t count, int slot)
{
	return gpu_resident_put(ctx, host, first, count, slot);
}

int gpu_slot_wait(gpu_ctx *ctx, int slot)
{
	(void)ctx;
	(void)slot;
	return GPU_ENOTSUP;
}

int gpu_resident_end(gpu_ctx *ctx, gpu_stage_times *t)
{
	(void)ctx;
	if (t)
		memset(t, 0, sizeof *t);
	return GPU_ENOTSUP;
}

void *gpu_host_alloc(size_t bytes)
{
	(void)bytes;
	return NULL;
}

void gpu_host_free(void *p)
{
	(void)p;
}

int gpu_host_register(void *p, size_t bytes)
{
	(void)p;
	(void)bytes;
	return GPU_ENOTSUP;
}

void gpu_host_unregister(void *p)
{
	(void)p;
}

int gpu_sorter_count(void)
{
	return 0;
}

const char *gpu_sorter_name(int i)
{
	(void)i;
	return NULL;
}

const char *gpu_sorter_source(int i)
{
	(void)i;
	return NULL;
}

int gpu_set_sorter(gpu_ctx *ctx, int i)
{
	(void)ctx;
	(void)i;
	return GPU_ENOTSUP;
}
