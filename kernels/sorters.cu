/*
 * sorters.cu - the registry of in-device sorters (sorter.cuh) and its C
 * face (gpusort_kernels.h: gpu_sorter_count, gpu_sorter_name,
 * gpu_sorter_source, gpu_set_sorter).
 */
#include "gpu_internal.cuh"

/* One line per engine: X(NAME), for the `extern const gs_sorter
 * gs_sorter_NAME` its file defines. The first is a new ctx's default. */
#define GS_SORTERS(X) \
	X(bitonic)    /* bitonic.cu: Capannini, Silvestri, Baraglia */ \
	X(radix)      /* radix.cu: Bandyopadhyay & Sahni (GRS); Adinets & Merrill (Onesweep) */ \
	X(quick)      /* quick.cu: Cederman & Tsigas (GPU-Quicksort) */ \
	X(sample)     /* sample.cu: Dehne & Zaboli */ \
	X(abisort)    /* abisort.cu: Zachmann (Bilardi & Nicolau; GPU-ABiSort) */

#define GS_DECLARE(e) extern const gs_sorter gs_sorter_##e;
GS_SORTERS(GS_DECLARE)
#undef GS_DECLARE

namespace {

#define GS_ENTRY(e) &gs_sorter_##e,
const gs_sorter *const registry[] = { GS_SORTERS(GS_ENTRY) };
#undef GS_ENTRY

const int nsorters = (int)(sizeof registry / sizeof registry[0]);

} // namespace

const gs_sorter *gs_sorter_at(int i)
{
	return i >= 0 && i < nsorters ? registry[i] : NULL;
}

extern "C" int gpu_sorter_count(void)
{
	return nsorters;
}

extern "C" const char *gpu_sorter_name(int i)
{
	const gs_sorter *s = gs_sorter_at(i);
	return s ? s->name : NULL;
}

extern "C" const char *gpu_sorter_source(int i)
{
	const gs_sorter *s = gs_sorter_at(i);
	return s ? s->source : NULL;
}

extern "C" int gpu_set_sorter(gpu_ctx *ctx, int i)
{
	if (!ctx)
		return GPU_EINVAL;
	const gs_sorter *s = gs_sorter_at(i);
	if (!s)
		return gs_fail_msg(ctx, GPU_EINVAL, "gpu_set_sorter: no such sorter");
	if (ctx->res.ch[0].state || ctx->res.ch[1].state)
		return gs_fail_msg(ctx, GPU_EINVAL, "gpu_set_sorter: a device-resident chunk is held");
	ctx->sorter = s;
	return 0;
}
