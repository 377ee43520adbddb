/* engine.c - see engine.h. */
#ifndef GPUSORT_CUDA
#define GPUSORT_CUDA 0 /* the Makefile says 1 when it builds the kernels */
#endif
#include "engine.h"
#include "cpusort.h"
#include "plan_sorter.h"
#include "../kernels/gpusort_kernels.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

static int cpu_sort(engine *e, uint8_t *a, uint8_t *b, size_t n, void *scratch, uint8_t **sorted)
{
	*sorted = cpusort_sort(e->s, a, b, n, scratch, e->threads);
	return 0;
}

static int gpu_sort(engine *e, uint8_t *a, uint8_t *b, size_t n, void *scratch, uint8_t **sorted)
{
	gpu_stage_times t = { 0 };
	/* the test build's gpu-fail fault: as a failed launch would */
	int rc = io_fault_is("gpu-fail") ? GPU_ECUDA : gpu_sort_chunk(e->gpu, e->s, a, b, n, &t);
	if (!rc) {
		e->h2d_s += t.h2d;
		e->dsort_s += t.sort;
		e->d2h_s += t.d2h;
		e->passes += t.passes;
	}
	if (rc == GPU_ENOMEM && cpusort_scratch_bytes(e->s, n) <= e->scratch_per_record * n) {
		/* the device ran out of memory mid-run: this chunk goes to the CPU */
		e->gpu_fallbacks++;
		*sorted = cpusort_sort(e->s, a, b, n, scratch, e->threads);
		return 0;
	}
	if (rc) {
		/* gpu_sort_chunk reads a and writes only b: a still holds the chunk */
		char why[256];
		snprintf(why, sizeof why, "GPU sort failed: %s (%s)", gpu_strerror(rc), gpu_last_error(e->gpu));
		engine_gpu_lost(e, why);
		*sorted = cpusort_sort(e->s, a, b, n, scratch, e->threads);
		return 0;
	}
	*sorted = b;
	return 0;
}

/*
 * The in-device sorter: the one --algorithm named, or auto's choice
 * (plan_sorter) from each sorter's chunk capacity on the opened device.
 */
static int choose_sorter(engine *e, gpu_ctx *g, const job_opts *o, uint64_t records)
{
	if (o->algorithm == JOB_WHERE_GPU)
		return o->sorter;
	plan_sorter_info info[16];
	int n = gpu_sorter_count();
	if (n > (int)(sizeof info / sizeof info[0]))
		n = (int)(sizeof info / sizeof info[0]);
	for (int i = 0; i < n; i++) {
		info[i].name = gpu_sorter_name(i);
		info[i].capacity = gpu_set_sorter(g, i) == 0 ? gpu_chunk_capacity(g, e->s) : 0;
	}
	return plan_sorter(e->s, records, info, n);
}

static int start_gpu(engine *e, const job_opts *o, uint64_t budget, uint64_t records, char *why, size_t wlen)
{
	int count = gpu_device_count();
	if (!GPUSORT_CUDA) {
		snprintf(why, wlen, "this gpusort was built without CUDA");
		return -1;
	}
	if (count <= 0) {
		snprintf(why, wlen, "no CUDA device found");
		return -1;
	}
	int dev = o->device >= 0 ? o->device : 0;
	if (dev >= count) {
		snprintf(why, wlen, "CUDA device %d does not exist (%d found)", dev, count);
		return -1;
	}
	gpu_ctx *g = NULL;
	int rc = gpu_open(&g, dev, (size_t)budget, NULL, 0);
	if (rc) {
		const char *detail = gpu_last_error(NULL);
		snprintf(why, wlen, "CUDA device %d: %s", dev, detail[0] ? detail : gpu_strerror(rc));
		return -1;
	}
	const int sorter = choose_sorter(e, g, o, records);
	rc = gpu_set_sorter(g, sorter);
	if (rc) {
		snprintf(why, wlen, "CUDA device %d: %s (%s)", dev, gpu_strerror(rc), gpu_last_error(g));
		gpu_close(g);
		return -1;
	}
	e->gpu = g;
	snprintf(e->gpu_name, sizeof e->gpu_name, "gpu:%s", gpu_sorter_name(sorter));
	e->name = e->gpu_name;
	size_t cap = gpu_chunk_capacity(g, e->s);
	e->max_records = cap < CPUSORT_MAX_RECORDS ? cap : CPUSORT_MAX_RECORDS;
	e->sort = gpu_sort;
	/* host scratch is kept so a chunk the device refuses can be sorted here */
	e->scratch_per_record = cpusort_scratch_per_record(e->s);
	return 0;
}

int engine_open(engine *e, const job_opts *o, uint64_t device_budget, uint64_t records, char *notice, size_t nlen)
{
	memset(e, 0, sizeof *e);
	e->s = &o->keys;
	e->threads = o->threads;
	e->name = "cpu";
	e->scratch_per_record = cpusort_scratch_per_record(e->s);
	e->max_records = cpusort_max_records(e->s);
	e->sort = cpu_sort;
	if (!o->use_gpu)
		return 0;
	char why[256];
	if (start_gpu(e, o, device_budget, records, why, sizeof why) == 0)
		return 0;
	if (o->device >= 0 || o->algorithm == JOB_WHERE_GPU) {
		snprintf(e->errmsg, sizeof e->errmsg, "cannot use the GPU: %s", why);
		return -1;
	}
	/* for --stats alone (a successful sort is quiet): says why in CPU-only
	 * builds too, where the reason is the build */
	snprintf(notice, nlen, "%s: sorting on the CPU", why);
	return 0;
}

void engine_close(engine *e)
{
	engine_staging_free(&e->stage);
	if (e->gpu)
		gpu_close(e->gpu);
	if (e->gpu_lost)
		gpu_close(e->gpu_lost);
	e->gpu = e->gpu_lost = NULL;
}

void engine_gpu_lost(engine *e, const char *why)
{
	if (!e->gpu)
		return;
	snprintf(e->gpu_lost_why, sizeof e->gpu_lost_why, "%s", why);
	e->gpu_lost = e->gpu;
	e->gpu = NULL;
	e->name = "cpu";
	e->sort = cpu_sort;
	e->max_records = cpusort_max_records(e->s);
	e->scratch_per_record = cpusort_scratch_per_record(e->s);
}

int engine_pin(engine *e, void *p, size_t bytes)
{
	return e->gpu && gpu_host_register(p, bytes) == GPU_OK;
}

void engine_unpin(engine *e, void *p)
{
	if (e->gpu || e->gpu_lost)
		gpu_host_unregister(p);
}

int engine_gpu_likely(const job_opts *o)
{
	return GPUSORT_CUDA && o->use_gpu && gpu_driver_present();
}

int engine_prewarm(const job_opts *o)
{
	if (!engine_gpu_likely(o))
		return 0;
	(void)gpu_prewarm(o->device); /* optional: CUDA starts on first use otherwise */
	return 1;
}

void engine_prewarm_wait(void)
{
	gpu_prewarm_wait();
}

int engine_staging_prepare(engine_staging *st, size_t bytes)
{
	memset(st, 0, sizeof *st);
	for (int k = 0; k < ENGINE_STAGES; k++) {
		uint8_t *p = util_alloc_huge(bytes);
		if (!p) {
			engine_staging_free(st);
			return -ENOMEM;
		}
		/* fault every page in now, while CUDA starts on its own thread */
		for (size_t i = 0; i < bytes; i += 4096)
			p[i] = 0;
		st->buf[k] = p;
	}
	st->bytes = bytes;
	return 0;
}

void engine_staging_free(engine_staging *st)
{
	for (int k = 0; k < ENGINE_STAGES; k++) {
		if (st->buf[k] && st->pinned)
			gpu_host_unregister(st->buf[k]);
		free(st->buf[k]);
	}
	memset(st, 0, sizeof *st);
}

uint8_t *const *engine_staging_get(engine *e, size_t bytes)
{
	engine_staging *st = &e->stage;
	if (!e->gpu || !st->bytes || st->bytes < bytes)
		return NULL;
	if (!st->pinned) {
		int k = 0;
		while (k < ENGINE_STAGES && gpu_host_register(st->buf[k], st->bytes) == GPU_OK)
			k++;
		if (k < ENGINE_STAGES) {
			while (k-- > 0)
				gpu_host_unregister(st->buf[k]);
			engine_staging_free(st); /* not pinnable: the caller allocates its own */
			return NULL;
		}
		st->pinned = 1;
	}
	return st->buf;
}
