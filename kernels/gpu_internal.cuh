/*
 * gpu_internal.cuh - what the kernels/ files share: the ctx, error
 * recording, and the launchers of keys_extract.cu (sorter.cuh and
 * merge_path.cuh declare the sort and the merge). Not seen by src/.
 */
#ifndef GPUSORT_GPU_INTERNAL_CUH
#define GPUSORT_GPU_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpusort_kernels.h"
#include "sorter.cuh"

#define GS_ERRLEN 512

/* keys_extract.cu's kernels take the layout by value (__grid_constant__):
 * it and their other parameters must stay within the 4 KiB a launch takes. */
static_assert(sizeof(keys_spec) <= 1024, "keys_spec is a kernel parameter");

/*
 * One device-resident chunk (gpu_resident_*). A ctx holds at most two: the
 * current one, and while that one is sorted and still being read out, a
 * newer one receiving its records (gpusort_kernels.h says who may be called
 * when).
 */
struct gs_chunk {
	int state;            /* 0 none, 1 receiving (after begin), 2 sorted */
	int merge;            /* begun by gpu_resident_begin_merge: the merge's arena layout */
	size_t n;             /* records */
	unsigned char *d_in;  /* where its puts go (area_of) */
	unsigned char *d_res; /* its sorted records (state 2) */
	size_t got;           /* gets were issued for the sorted records [0, got) */
	size_t lost;          /* sorted records [0, lost) may be overwritten by the newer chunk's puts */
	double h2d, d2h;      /* seconds of its finished copies */
	uint64_t passes;
	keys_spec L;          /* its key layout, as begun */
};

struct gpu_ctx {
	int device;
	const gs_sorter *sorter; /* the in-device sort (sorters.cu; gpu_set_sorter) */
	cudaStream_t stream;   /* the compute (and gpu_sort_chunk's copies) */
	cudaStream_t copy_in;  /* gpu_resident_put: host -> device */
	cudaStream_t copy_out; /* gpu_resident_get: device -> host */
	cudaEvent_t ev[4];
	cudaEvent_t ev_link;   /* no timing: one stream waits for another's work so far */
	cudaEvent_t ev_sort[2][2]; /* start and end of the sort of res.ch[i] */
	unsigned char *arena; /* the reserved device memory */
	size_t arena_bytes;
	size_t slack_bytes;   /* headroom kept at the end of the arena */
	int *h_flag;          /* pinned, 1 int: tie flag read back */
	char err[GS_ERRLEN];
	/* the device-resident chunks (gpu_resident_*): per-slot copy events */
	cudaEvent_t slot_start[GPU_SLOTS], slot_end[GPU_SLOTS];
	struct {
		gs_chunk ch[2];
		int head;             /* ch[head]: the current chunk; ch[head ^ 1]: the receiving one, if any */
		int busy[GPU_SLOTS];  /* 0 free, 1 H2D in flight, 2 D2H in flight */
		int owner[GPU_SLOTS]; /* index into ch of the chunk the slot's copy belongs to */
		const unsigned char *src_lo[GPU_SLOTS], *src_hi[GPU_SLOTS]; /* device bytes a D2H reads */
	} res;
};

/* Record `e` (a failed CUDA call) in ctx->err (or the open-error buffer when
 * ctx is NULL) and return the GPU_E* code for it. */
int gs_fail(gpu_ctx *ctx, cudaError_t e, const char *what, const char *file, int line);
int gs_fail_msg(gpu_ctx *ctx, int code, const char *msg);

#define GS_CK(ctx, call)                                                        \
	do {                                                                    \
		cudaError_t gs_e_ = (call);                                     \
		if (gs_e_ != cudaSuccess)                                       \
			return gs_fail((ctx), gs_e_, #call, __FILE__, __LINE__); \
	} while (0)

/* keys_extract.cu launchers (asynchronous on `st`; return the launch error) */
cudaError_t gs_keys_normalize(void *d, size_t n, const keys_spec &L, cudaStream_t st, bool back);
cudaError_t gs_keys_extract_u64(uint64_t *pairs, const unsigned char *recs, size_t n,
				const keys_spec &L, cudaStream_t st);
cudaError_t gs_keys_extract_u128(gs_u128 *pairs, const unsigned char *recs, size_t n,
				 const keys_spec &L, cudaStream_t st);
cudaError_t gs_tie_flags(const gs_u128 *pairs, uint32_t *seg, size_t n, int *d_any, cudaStream_t st);
cudaError_t gs_seg_scan(void *temp, size_t &temp_bytes, uint32_t *seg, size_t n, cudaStream_t st);
cudaError_t gs_keys_refine(gs_u128 *pairs, const uint32_t *seg, const unsigned char *recs, size_t n,
			   const keys_spec &L, uint32_t kb0, cudaStream_t st);
cudaError_t gs_gather(unsigned char *out, const unsigned char *in, const void *pairs, int pair_bytes,
		      size_t n, uint32_t rs, cudaStream_t st);

#endif
