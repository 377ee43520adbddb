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
#include "opts.h"
#include "keys.h"

/*
 * Host staging for the device-resident path (resident.c): ENGINE_STAGES
 * buffers of `bytes` bytes each, allocated on 2 MiB pages with every page
 * touched before the engine is open, so that this work overlaps the CUDA
 * start-up (gpu_prewarm), and page-locked (cudaHostRegister) when the
 * resident path first uses them: page-locking memory already faulted in on
 * 2 MiB pages is cheap, where cudaHostAlloc would do all of its work after
 * the CUDA start-up, on the critical path.
 */
#define ENGINE_STAGES 4
typedef struct engine_staging {
	uint8_t *buf[ENGINE_STAGES];
	size_t bytes;   /* per buffer; 0: none prepared */
	int pinned;     /* registered with the GPU */
} engine_staging;

typedef struct engine {
	const char *name;            /* "cpu", or "gpu:" and the in-device sorter's name */
	char gpu_name[40];           /* the storage of a "gpu:..." name */
	size_t scratch_per_record;   /* host scratch bytes per record */
	size_t max_records;          /* most records in one chunk */
	const keys_spec *s;          /* the key layout (the GPU's too) */
	int threads;
	void *gpu;                   /* gpu_ctx when on the GPU */
	void *gpu_lost;              /* the gpu_ctx of a GPU that failed mid-job (engine_gpu_lost) */
	char gpu_lost_why[256];      /* what failed; "" while the GPU works */
	uint64_t gpu_fallbacks;      /* chunks the GPU refused (ENOMEM) and the CPU sorted */
	uint64_t gpu_retries;        /* device-resident chunks the GPU refused, retried in halves */
	uint64_t gpu_overlapped;     /* device-resident chunks copied in while the previous one was copied out */
	double h2d_s, dsort_s, d2h_s; /* GPU stage times, summed over chunks */
	uint64_t passes;             /* passes over device memory, summed */
	engine_staging stage;        /* prepared staging, owned by the engine once open */
	char errmsg[512];
	/* Sort n records; *sorted = a or b. Returns 0 or -1 (errmsg says why). */
	int (*sort)(struct engine *e, uint8_t *a, uint8_t *b, size_t n, void *scratch, uint8_t **sorted);
} engine;

/*
 * Choose and start the engine for the options: the GPU when asked or
 * available (unless --cpu), else the CPU. A GPU that is missing or fails at
 * start-up falls back to the CPU (notice says why, for --stats: a tool run
 * from cron stays quiet), unless --device or a GPU --algorithm was given.
 * device_budget: the device bytes to reserve (plan_device_budget; 0: the
 * default, most of the free device memory). records: the input's records,
 * 0 when unknown; with --algorithm=auto it picks the in-device sorter
 * (plan_sorter). Returns 0, or -1 with errmsg set.
 */
int engine_open(engine *e, const job_opts *o, uint64_t device_budget, uint64_t records, char *notice, size_t nlen);
void engine_close(engine *e);

/*
 * The GPU failed after start-up (a launch, a copy, a synchronize: anything
 * but a chunk too large for its memory): the CPU engine takes over from
 * here (DESIGN.md section 8). `why` says what failed (copied into
 * gpu_lost_why). The device is used no more: e->gpu becomes NULL, so every
 * path, the merge too, takes the CPU; its context is kept only so that
 * buffers pinned through it can be unpinned, and closed by engine_close.
 * Chunk capacities shrink to the CPU's, which are never smaller.
 */
void engine_gpu_lost(engine *e, const char *why);

/*
 * Page-lock a chunk buffer for the GPU's DMA (no-op on the CPU engine;
 * returns 1 when pinned). Unpin before freeing a buffer that was pinned.
 */
int engine_pin(engine *e, void *p, size_t bytes);
void engine_unpin(engine *e, void *p);

/*
 * 1 when the options ask for the GPU and this machine has an NVIDIA driver
 * loaded: a cheap guess (no CUDA call) of whether engine_open will start the
 * GPU engine, so that start-up work for it (gpu_prewarm, the staging) is
 * not done on machines that will sort on the CPU.
 */
int engine_gpu_likely(const job_opts *o);

/*
 * When engine_gpu_likely(o): start the CUDA start-up on a background thread
 * (gpu_prewarm) and return 1; else return 0. engine_prewarm_wait joins it;
 * call it before engine_open and before the process may exit.
 */
int engine_prewarm(const job_opts *o);
void engine_prewarm_wait(void);

/*
 * Prepare st: ENGINE_STAGES buffers of `bytes` bytes (see engine_staging).
 * Returns 0, or -ENOMEM with st empty. engine_staging_free releases them
 * (unpinning them first when pinned); st may be empty.
 */
int engine_staging_prepare(engine_staging *st, size_t bytes);
void engine_staging_free(engine_staging *st);

/*
 * The engine's staging buffers, pinned: returns the engine's prepared
 * buffers when there are ENGINE_STAGES of at least `bytes` bytes and they
 * could be pinned (on the first call), else NULL (the caller allocates its
 * own pinned memory).
 */
uint8_t *const *engine_staging_get(engine *e, size_t bytes);

#endif
