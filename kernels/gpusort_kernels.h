/*
 * gpusort_kernels.h - the only door from src/ to the GPU (plain C).
 *
 * Everything here is implemented in kernels/ (CUDA) when the build found nvcc,
 * and by kernels/gpu_stub.c (gpu_device_count() == 0, every other call
 * GPU_ENOTSUP) otherwise, so src/ links the same way in both builds.
 *
 * Errors are returned as negative values (errors-as-return-values, as liburing
 * does): 0 or a count on success, a negative GPU_E* code on failure.
 * gpu_strerror() turns a code into text; gpu_last_error() gives the CUDA
 * detail (function, file:line, cudaGetErrorString) of the last failure of a ctx.
 */
#ifndef GPUSORT_KERNELS_H
#define GPUSORT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "key_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	GPU_OK = 0,
	GPU_ENODEV = -1,   /* no CUDA device, or the device number does not exist */
	GPU_ENOMEM = -2,   /* device (or pinned host) allocation failed: retry smaller */
	GPU_ECUDA = -3,    /* any other CUDA runtime error (see gpu_last_error) */
	GPU_EINVAL = -4,   /* bad argument (n too large for the ctx, bad key layout) */
	GPU_ENOTSUP = -5,  /* built without CUDA, or a GPU this binary has no code or shared memory for */
};

/*
 * Every call that takes a key layout (key_layout.h: the fields, the record
 * size, the normalization rules) returns GPU_EINVAL for one that
 * keys_layout_check refuses (the capacities return 0).
 */

/* Seconds spent in each stage of the last gpu_sort_chunk on a ctx. */
typedef struct gpu_stage_times {
	double h2d, sort, d2h;   /* host->device copy, key extract+sort+gather, device->host */
	uint64_t passes;         /* passes over device memory made by the sort */
} gpu_stage_times;

typedef struct gpu_ctx gpu_ctx;

/*
 * Start the CUDA runtime's initialization (driver, and the primary context
 * of `device`: about 0.2 s on an H200) on a background thread, so that it
 * overlaps the caller's own start-up work; the first CUDA call elsewhere
 * waits for it. gpu_prewarm_wait() joins that thread (call it before the
 * process exits, and before relying on the device); both may be called
 * any number of times. Returns 0, or a negative code when no thread could
 * be started (nothing to wait for then; CUDA starts on first use as usual).
 */
int gpu_prewarm(int device);
void gpu_prewarm_wait(void);

/* Number of usable CUDA devices (>= 0), or a negative GPU_E* code. */
int gpu_device_count(void);

/*
 * 1 when a GPU driver is installed (/proc/driver/nvidia/version is
 * readable), else 0: a check without any CUDA call, so that callers can
 * decide whether to start CUDA at all (it costs ~0.3 s to start and ~0.1 s
 * to tear down even when no device is used).
 */
int gpu_driver_present(void);

/* Text for a GPU_E* code (static string). */
const char *gpu_strerror(int err);

/*
 * Open device `device` and reserve its working memory: at most `budget_bytes`
 * of device memory (0: 90% of the free memory). On success *out is set and 0
 * returned; on failure a negative code and *out == NULL: GPU_ENODEV (no such
 * device), GPU_ENOTSUP (no code in this binary for its compute capability,
 * under 64 KiB of opt-in shared memory a block, or a build without CUDA),
 * GPU_ENOMEM (the arena), GPU_ECUDA (any other CUDA error).
 * `name`, if not NULL, receives the device name (NUL-terminated, <= namelen).
 */
int gpu_open(gpu_ctx **out, int device, size_t budget_bytes, char *name, size_t namelen);
void gpu_close(gpu_ctx *ctx);
const char *gpu_last_error(const gpu_ctx *ctx);

/*
 * Largest number of records one gpu_sort_chunk call on this ctx can take
 * for this layout (device memory budget / bytes per record of the engine).
 */
size_t gpu_chunk_capacity(const gpu_ctx *ctx, const keys_spec *layout);

/*
 * Sort n records (n * layout->record_size bytes at `in`, host memory, pinned
 * preferred) into `out` (host, same size, may equal `in`) by the normalized
 * key, stable (ties keep input order), using the in-place K-model bitonic
 * network (Capannini, Silvestri, Baraglia, sections 5-6) on (key, index)
 * pairs or on the records themselves when the record is its whole key.
 * n <= gpu_chunk_capacity(). Returns 0 or a negative code; on GPU_ENOMEM
 * the caller may retry with a smaller n. `t` (may be NULL) gets stage times.
 */
int gpu_sort_chunk(gpu_ctx *ctx, const keys_spec *layout,
		   const void *in, void *out, size_t n, gpu_stage_times *t);

/*
 * The device-resident chunk: a chunk that fits the device is streamed in
 * piece by piece from small pinned staging buffers (the host never holds it
 * whole, so nothing of the chunk's size is pinned), sorted once on the
 * device exactly as gpu_sort_chunk does (same order, stable), and streamed
 * back out piece by piece. Copies are asynchronous: puts on the ctx's
 * copy-in stream, the sort on its compute stream, gets on its copy-out
 * stream (three non-blocking streams made by gpu_open). A slot
 * (0..GPU_SLOTS-1) names a staging buffer's latest copy so the caller can
 * fill or drain one buffer while another is in flight:
 *
 *   gpu_resident_begin(ctx, layout, n)             n records, 1 <= n <= gpu_chunk_capacity
 *   gpu_resident_put(ctx, buf, first, count, s)    records [first, first+count) from buf (H2D)
 *   gpu_resident_trim(ctx, m)                      optional: the chunk is only its first m records
 *   gpu_resident_sort(ctx)                         after every record is put
 *   gpu_resident_get(ctx, buf, first, count, s)    sorted records [first, first+count) into buf (D2H)
 *   gpu_slot_wait(ctx, s)                          slot s's copy is done: buf may be reused / read
 *   gpu_resident_end(ctx, t)                       waits for the chunk's slots; t gets its stage times
 *
 * What waits for what, on the device: the sort waits for every put issued
 * before it; the gets wait for the sort; the puts of a chunk wait for
 * everything the compute stream was given before that chunk was begun
 * (an older chunk's sort). On the host: gpu_slot_wait, a put or get on a
 * busy slot (it waits for the slot's previous copy first) and
 * gpu_resident_end.
 *
 * Cross-chunk overlap: once the current chunk is sorted (state "sorted":
 * gpu_resident_sort or gpu_resident_merge returned 0), gpu_resident_begin
 * (or _begin_merge) may be called again before gpu_resident_end, so that
 * the next chunk's records are put while the sorted one is read out (both
 * PCIe directions busy). The ctx then holds two chunks:
 *   - the draining (older) chunk: gpu_resident_get, the slots of its copies
 *     and gpu_resident_end refer to it;
 *   - the receiving (newer) chunk: gpu_resident_put refers to it.
 * gpu_resident_end ends the draining chunk only (waits for its copies,
 * returns its stage times) and leaves the receiving chunk, puts in flight
 * and all, as the current chunk; only then may it be sorted or merged:
 * gpu_resident_sort / gpu_resident_merge return GPU_EINVAL while an older
 * chunk is held. The newer chunk must have the same key layout and the same
 * kind (begin for a sort, begin_merge for a merge) as the older one, else
 * GPU_EINVAL; a begin while the current chunk still receives, or while two
 * chunks are held, is GPU_EINVAL too. Slot numbers are shared: a slot names
 * the latest copy issued on it, whichever chunk it belongs to (give each
 * direction slots of its own, or a put waits on the host for a get on the
 * same slot). Both chunks live in the same device arena (its areas are laid
 * out by the capacity, so they do not move with n); the newer chunk's
 * records go where the older chunk's sorted records may still be (key-only
 * records; a merge of one segment), so while two chunks are held:
 *   - gets of the draining chunk must come in record order, each starting
 *     at or below the end of the gets issued so far (no gap), else
 *     GPU_EINVAL;
 *   - a put onto device memory that holds sorted records of the draining
 *     chunk whose get has not been issued is refused (GPU_EINVAL); one onto
 *     records whose get has been issued waits, on the device, for those
 *     gets to finish before it copies;
 *   - a get of sorted records that a put of the newer chunk may have
 *     overwritten (every record below the highest one a put overlapped) is
 *     refused (GPU_EINVAL).
 * The sequence begin, put..., sort, get..., end without overlap works as
 * before. Stage times are per chunk: h2d and d2h are the sums of the
 * chunk's own copies (each slot's copy timed by its own events), sort its
 * own; the two copy streams overlap, so each sum is that direction's busy
 * time.
 *
 * Host buffers should be pinned (gpu_host_alloc) and stay untouched until
 * their slot is waited for. Record counts and offsets are in records;
 * every call returns 0 or a negative code (GPU_EINVAL when called out of
 * order or out of range, with gpu_last_error saying which; GPU_ENOMEM from
 * begin or sort: the caller may fall back to smaller chunks). After any
 * failure call gpu_resident_end before reusing the ctx, once per chunk
 * held (twice while a newer chunk receives; an idle ctx returns 0).
 */
#define GPU_SLOTS 8
int gpu_resident_begin(gpu_ctx *ctx, const keys_spec *layout, size_t n);
int gpu_resident_put(gpu_ctx *ctx, const void *host, size_t first, size_t count, int slot);
/*
 * The receiving chunk (begun, not yet sorted or merged) is only its first m
 * records, 1 <= m <= its n: for an input of unknown size (a pipe) whose
 * chunk was begun at the capacity and ended sooner. Records put beyond m
 * are ignored; the arena does not move (it is laid out by the capacity).
 * Returns 0, or GPU_EINVAL (no chunk receiving, m out of range).
 */
int gpu_resident_trim(gpu_ctx *ctx, size_t m);
int gpu_resident_sort(gpu_ctx *ctx);
int gpu_resident_get(gpu_ctx *ctx, void *host, size_t first, size_t count, int slot);
int gpu_slot_wait(gpu_ctx *ctx, int slot);
int gpu_resident_end(gpu_ctx *ctx, gpu_stage_times *t);

/*
 * The device-resident merge: a chunk whose records are k runs, each already
 * sorted (by the normalized key, ties in input order), is merged on the
 * device by a stable pairwise merge path (ceil(log2 k) rounds over the
 * chunk) instead of sorted:
 *
 *   gpu_resident_begin_merge(ctx, layout, n)   as gpu_resident_begin, for 1 <= n <= gpu_merge_capacity
 *   gpu_resident_put(...)                      every record, as for a sort
 *   gpu_resident_merge(ctx, seg_start, k)      instead of gpu_resident_sort
 *   gpu_resident_get(...), gpu_slot_wait(...), gpu_resident_end(...)   as for a sort
 *
 * Merged chunks overlap as sorted ones do (a merged chunk may be begun
 * with gpu_resident_begin_merge while an older merged chunk drains).
 *
 * The merge needs a second buffer on the device, so a merged chunk has its
 * own arena layout and a smaller capacity; gpu_resident_begin_merge
 * selects it (gpu_resident_sort may still be called instead of
 * gpu_resident_merge after it, and sorts).
 *
 * gpu_merge_capacity: the most records gpu_resident_begin_merge takes for
 * this layout (0 for a bad layout or a NULL ctx): about (budget - slack) /
 * (2 * record_size) for key-only records (the record is one 4- or 8-byte
 * key), (budget - slack) / (2 * record_size + 16 or 32) otherwise, less a
 * small table of block splits (8 bytes per few thousand records).
 *
 * gpu_resident_merge: the n records put are the k >= 1 segments
 * [seg_start[i], seg_start[i+1]) for i < k, with seg_start[k] == n implied
 * (seg_start has k entries; seg_start[0] == 0; starts do not decrease and
 * are <= n; empty segments are allowed). Each segment must be sorted by
 * the normalized key with ties in input order (as gpu_resident_sort would
 * leave it); the contents are not checked. The result, read with
 * gpu_resident_get, is byte-identical to what gpu_resident_sort gives for
 * the same records: ordered by key, ties in segment order, then position.
 * The time counts as the stage's sort time, its kernel passes in passes.
 * Returns 0; GPU_EINVAL when not called after gpu_resident_begin_merge and
 * the puts, or on bad segments (ctx->err says which); GPU_ENOMEM (host or
 * device memory: the caller may fall back as after gpu_resident_sort);
 * GPU_ECUDA. After any failure call gpu_resident_end.
 */
size_t gpu_merge_capacity(const gpu_ctx *ctx, const keys_spec *layout);
int gpu_resident_begin_merge(gpu_ctx *ctx, const keys_spec *layout, size_t n);
int gpu_resident_merge(gpu_ctx *ctx, const size_t *seg_start, int k);

/* Pinned host memory (cudaHostAlloc); NULL on failure or without CUDA. */
void *gpu_host_alloc(size_t bytes);
void gpu_host_free(void *p);

/*
 * Pin (page-lock) an existing host buffer of `bytes` bytes for fast DMA
 * (cudaHostRegister), so buffers that io/ allocated and reads fill can be
 * copied at full PCIe speed. Returns 0 or a negative code (the buffer is
 * still usable, only slower). Unregister before freeing it.
 */
int gpu_host_register(void *p, size_t bytes);
void gpu_host_unregister(void *p);

/*
 * The in-device sorters: the engines that order a chunk's keys on the
 * device (kernels/sorters.cu lists them; "bitonic", the in-place K-model
 * bitonic network of Capannini, Silvestri, Baraglia, is the first and the
 * default of a new ctx).
 *
 * gpu_sorter_count: how many the build holds (0 without CUDA).
 * gpu_sorter_name: sorter i's name (static string, e.g. "bitonic"), or
 *   NULL when i is not in 0..gpu_sorter_count()-1.
 * gpu_sorter_source: the paper (and sections) sorter i implements (static
 *   string), or NULL for a bad i.
 * gpu_set_sorter: sort ctx's chunks (gpu_sort_chunk, gpu_resident_sort,
 *   and the tie refinement of merged chunks) with sorter i from now on.
 *   Call it before asking the ctx's capacities (gpu_chunk_capacity,
 *   gpu_merge_capacity), which count the sorter's scratch memory, and
 *   while the ctx holds no device-resident chunk. Every sorter gives the
 *   same order (the normalized key, ties in input order). Returns 0, or
 *   GPU_EINVAL (NULL ctx, bad i, a chunk held), GPU_ENOTSUP without CUDA.
 */
int gpu_sorter_count(void);
const char *gpu_sorter_name(int i);
const char *gpu_sorter_source(int i);
int gpu_set_sorter(gpu_ctx *ctx, int i);

#ifdef __cplusplus
}
#endif
#endif
