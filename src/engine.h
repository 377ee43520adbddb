/*
 * engine.h - the chunk-sort engine chosen for a job (DESIGN.md section 4).
 *
 * An engine sorts one chunk: n records in buffer a, with a second record
 * buffer b of the same size and scratch_per_record * n bytes of host
 * scratch; it reports which of a/b holds the sorted chunk. The plan sizes
 * chunks from -S and these factors.
 */
#ifndef GPUSORT_ENGINE_H
#define GPUSORT_ENGINE_H
#include <stddef.h>
#include <stdint.h>
#include "job.h"
#include "keys.h"

typedef struct engine {
	const char *name;            /* "cpu" or "gpu:bitonic" */
	size_t scratch_per_record;   /* host scratch bytes per record */
	size_t max_records;          /* most records in one chunk */
	const keys_spec *s;
	int threads;
	void *gpu;                   /* gpu_ctx when on the GPU */
	void *layout;                /* a gpu_key_layout (first member) + its fields */
	uint64_t gpu_fallbacks;      /* chunks the GPU refused (ENOMEM) and the CPU sorted */
	uint64_t gpu_retries;        /* device-resident chunks the GPU refused, retried in halves */
	double h2d_s, dsort_s, d2h_s; /* GPU stage times, summed over chunks */
	uint64_t passes;             /* passes over device memory, summed */
	char errmsg[512];
	/* Sort n records; *sorted = a or b. Returns 0 or -1 (errmsg says why). */
	int (*sort)(struct engine *e, uint8_t *a, uint8_t *b, size_t n, void *scratch, uint8_t **sorted);
} engine;

/*
 * Choose and start the engine for the options: the GPU when asked or
 * available (unless --cpu), else the CPU. A GPU that is missing or fails at
 * start-up falls back to the CPU with a line in notice, unless --device was
 * given. input_bytes (-1: unknown, e.g. a pipe) caps the device memory
 * reserved, so a small sort does not hold the whole GPU against other
 * processes. Returns 0, or -1 with errmsg set.
 */
int engine_open(engine *e, const job_opts *o, int64_t input_bytes, char *notice, size_t nlen);
void engine_close(engine *e);

/*
 * Page-lock a chunk buffer for the GPU's DMA (no-op on the CPU engine;
 * returns 1 when pinned). Unpin before freeing a buffer that was pinned.
 */
int engine_pin(engine *e, void *p, size_t bytes);
void engine_unpin(engine *e, void *p);

#endif
