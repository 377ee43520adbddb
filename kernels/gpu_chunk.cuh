/*
 * gpu_chunk.cuh - the device part of a chunk, shared by the one-call chunk
 * sort (gpu_sort_chunk.cu) and the device-resident chunk (gpu_resident.cu):
 * the arena's areas for a layout, the sort or merge of a chunk whose records
 * are on the device, and the checks of a layout and of n. Internal to
 * kernels/. Errors: a negative GPU_E* code with the ctx's message set.
 */
#ifndef GPUSORT_GPU_CHUNK_CUH
#define GPUSORT_GPU_CHUNK_CUH

#include "gpu_internal.cuh"

/*
 * Where a chunk lives in the arena: the records as they come from the host
 * (d_in), and the (key, index) elements and gathered records of the general
 * path. A merged chunk (merge) also has d_alt, the merge's second buffer
 * (key-only: records; general: elements), and d_part, its split table
 * (merge_scratch_bytes), last, so that d_out stays followed by the slack
 * the tie refinement counts on.
 *
 * The areas are laid out by the layout's capacity (capacity or
 * merge_capacity), not by the chunk's n: every chunk of one layout finds
 * its areas at the same offsets, so that a chunk's records can be put
 * while an older chunk of another n is still being read out of the arena
 * (gpu_resident_begin while the older one drains): for the general path
 * the newer chunk's d_in never moves onto the older chunk's d_out, and for
 * key-only records the two chunks' records overlap exactly record for
 * record, which the puts' checks rely on (guard_put).
 */
struct gs_area {
	unsigned char *d_in, *d_out;
	void *d_pairs, *d_alt;
	uint64_t *d_part;
};

/* 0 when keys_layout_check accepts L, else GPU_EINVAL with ctx's message
 * (when ctx is not NULL) saying why. */
int gs_check_layout(gpu_ctx *ctx, const keys_spec *L);

/* 0 when n records of L fit the ctx (its chunk capacity, or with merge its
 * merge capacity), else GPU_EINVAL naming `who`. */
int gs_check_n(gpu_ctx *ctx, const keys_spec &L, size_t n, const char *who, bool merge);

/* The areas of the ctx's arena for chunks of L (sorted, or merged). */
gs_area gs_area_of(gpu_ctx *c, const keys_spec &L, bool merge);

/* Sort n records at a.d_in; *d_res is where the sorted records are (a.d_in
 * for key-only records, a.d_out otherwise). Asynchronous on c->stream but
 * for the tie refinement's flag read-back; *passes counts passes over
 * device memory. 0 or a GPU_E* code. */
int gs_sort_on_device(gpu_ctx *c, const keys_spec &L, size_t n, const gs_area &a, unsigned char **d_res,
		      uint64_t *passes);

/* Merge the m sorted segments of n records at a.d_in (segment i starts at
 * record seg[i]; seg is used as scratch) by merge path; *d_res as for
 * gs_sort_on_device, and the same result. 0 or a GPU_E* code. */
int gs_merge_on_device(gpu_ctx *c, const keys_spec &L, size_t n, const gs_area &a, size_t *seg, int m,
		       unsigned char **d_res, uint64_t *passes);

#endif
