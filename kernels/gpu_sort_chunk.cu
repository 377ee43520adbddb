/*
 * gpu_sort_chunk.cu - one chunk through the GPU: layout checks, capacity,
 * H2D, key extraction, the sort (the ctx's sorter: sorter.cuh), tie
 * refinement, gather, D2H.
 *
 * Two element types (gpusort_kernels.h):
 *   key-only: the record is one 4- or 8-byte key field (width == record
 *     size). The records themselves are normalized in place, sorted as
 *     u32/u64 words, de-normalized. Device memory: 1.0x the data.
 *   general: (key, u32 index) elements, u64 when the key is <= 4 bytes,
 *     u128 (12 key bytes) otherwise; longer keys are refined 8 bytes per
 *     round (keys_extract.cu). The index makes every element distinct, so
 *     the (unstable) network yields the stable order. Records are then
 *     gathered by index. Device memory: 2 * record_size + 8 or 16 per record.
 *
 * A merged chunk (gpu_resident_begin_merge / gpu_resident_merge): the
 * chunk is k sorted segments; the same elements are merged pairwise by
 * merge path (merge_path.cu) instead of sorted, which needs a second
 * element buffer (key-only: 2 * record_size per record; general:
 * 2 * record_size + 2 * (8 or 16)) and a small table of block splits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"
#include "merge_path.cuh"

namespace {

const size_t ALIGN = 256;
inline size_t al(size_t x) { return (x + ALIGN - 1) & ~(ALIGN - 1); }

/* 0 when keys_layout_check accepts the layout, else GPU_EINVAL with
 * ctx->err (when ctx is not NULL) saying why. */
int check_layout(gpu_ctx *ctx, const keys_spec *L)
{
	char m[160];
	const int bad = L ? keys_layout_check(L) : -1;
	if (bad == 0)
		return 0;
	if (!ctx)
		return GPU_EINVAL;
	if (bad == -1)
		return gs_fail_msg(ctx, GPU_EINVAL, "bad key layout (n 1..32, record_size > 0)");
	if (bad == -2)
		return gs_fail_msg(ctx, GPU_EINVAL, "key_width is not the sum of the field widths");
	const keys_field &f = L->f[bad - 1];
	snprintf(m, sizeof m, "bad key field %d (offset %u width %u kind %u, record size %u)", bad - 1, f.offset,
		 f.width, f.kind, L->record_size);
	return gs_fail_msg(ctx, GPU_EINVAL, m);
}

/* The record is one 4- or 8-byte key, sorted as words (keys_spec's key_only
 * also holds for other widths). */
bool key_only(const keys_spec &L)
{
	const uint32_t rs = L.record_size;
	return L.n == 1 && L.f[0].width == rs && L.f[0].offset == 0 && (rs == 4 || rs == 8);
}

size_t pair_bytes(const keys_spec &L) { return L.key_width <= 4 ? 8 : 16; }

/* Bytes of the words the sorter orders: the records themselves (key-only)
 * or the (key, index) elements. */
int word_bytes(const keys_spec &L) { return key_only(L) ? (int)L.record_size : (int)pair_bytes(L); }

/* Device bytes the ctx's sorter needs for n words of L (sorter.cuh,
 * extra_bytes), with room to align them: reserved at the arena's end,
 * before the slack (sort_words). */
size_t sort_scratch_bytes(const gpu_ctx *c, const keys_spec &L, size_t n)
{
	const size_t x = c->sorter->extra_bytes(n, word_bytes(L));
	return x ? al(x) + ALIGN : 0;
}

/*
 * Device bytes per record: the records, and on the general path their
 * gathered copy and a (key, index) element; a merged chunk has a second
 * element buffer (key-only: a second copy of the records).
 */
size_t per_record(const keys_spec &L, bool merge)
{
	const size_t m = merge ? 2 : 1;
	if (key_only(L))
		return m * L.record_size;
	return 2 * (size_t)L.record_size + m * pair_bytes(L);
}

/* cap, or less: key-only, the grid of 2^TB-element tiles stays < 2^31;
 * general, the element's u32 index. */
size_t within_limit(const keys_spec &L, size_t cap)
{
	const size_t lim = key_only(L) ? (size_t)1 << 36 : 0xfffffffeu;
	return cap < lim ? cap : lim;
}

/* Arena bytes for records once `pads` alignment pads and the slack are set aside (0: none). */
size_t arena_avail(const gpu_ctx *c, size_t pads)
{
	const size_t fixed = pads * ALIGN + c->slack_bytes;
	return c->arena_bytes > fixed ? c->arena_bytes - fixed : 0;
}

size_t capacity(const gpu_ctx *c, const keys_spec &L)
{
	const size_t avail = arena_avail(c, 4), per = per_record(L, false);
	const size_t sb = sort_scratch_bytes(c, L, avail / per);
	if (avail <= sb)
		return 0;
	return within_limit(L, (avail - sb) / per);
}

/* Elements per merge tile for the layout's element type. */
int merge_tile_of(const keys_spec &L)
{
	if (key_only(L))
		return L.record_size == 4 ? merge_tile<uint32_t>() : merge_tile<uint64_t>();
	return L.key_width <= 4 ? merge_tile<uint64_t>() : merge_tile<gs_u128>();
}

/* Bytes of the merge's split table for n records (area_of: d_part). */
size_t merge_scratch_bytes(const keys_spec &L, size_t n)
{
	return al(merge_scratch_entries(n, merge_tile_of(L)) * sizeof(uint64_t));
}

/*
 * Records a merged chunk can take: the sort's areas plus a second element
 * buffer (key-only: a second copy of the records; general: a second pair
 * array) and the split table, which is sized here for the largest n the
 * rest could take, so that it fits for every smaller n too. The slack after
 * d_out (tie refinement's scan) stays; the split table may share it, as
 * the table is dead before the refinement starts.
 */
size_t merge_capacity(const gpu_ctx *c, const keys_spec &L)
{
	const size_t avail = arena_avail(c, 8), per = per_record(L, true);
	/* the sorter's scratch too: keys over 12 bytes are refined by sorting */
	const size_t sb = merge_scratch_bytes(L, avail / per) + sort_scratch_bytes(c, L, avail / per);
	if (avail <= sb)
		return 0;
	return within_limit(L, (avail - sb) / per);
}

double ms_between(gpu_ctx *c, int a, int b, int *err)
{
	float ms = 0;
	cudaError_t e = cudaEventElapsedTime(&ms, c->ev[a], c->ev[b]);
	if (e != cudaSuccess)
		*err = gs_fail(c, e, "cudaEventElapsedTime", __FILE__, __LINE__);
	return ms / 1e3;
}

/*
 * Sort n words of `width` bytes at d with the ctx's sorter, on c->stream.
 * Its scratch is the end of the arena before the slack, which the
 * capacities keep free (sort_scratch_bytes); nothing else is live there
 * while a chunk is sorted.
 */
int sort_words(gpu_ctx *c, void *d, size_t n, int width, uint64_t *passes)
{
	const size_t x = c->sorter->extra_bytes(n, width);
	unsigned char *scratch = NULL;
	if (x)
		scratch = c->arena + al(c->arena_bytes - c->slack_bytes - (al(x) + ALIGN));
	GS_CK(c, c->sorter->sort(d, n, width, scratch, x ? al(x) : 0, c->stream, passes));
	return 0;
}

/*
 * Tie refinement for keys longer than 12 bytes (keys_extract.cu): pr[0..n)
 * are (12 key bytes, index) elements in ascending order; while some
 * neighbours share their key area, rebuild the elements as (run start,
 * next 8 key bytes, index) and sort again. The out-record area d_out
 * (unused until the gather) holds the run starts and the scan's temporary
 * storage, which may run on into the slack after it.
 */
int refine_ties(gpu_ctx *c, const keys_spec &L, size_t n, gs_u128 *pr, const unsigned char *d_in,
		unsigned char *d_out, int *d_flag, uint64_t *passes)
{
	cudaStream_t st = c->stream;
	int r;
	for (uint32_t kb0 = 12; kb0 < L.key_width && n > 1; kb0 += 8) {
		uint32_t *seg = (uint32_t *)d_out;
		GS_CK(c, cudaMemsetAsync(d_flag, 0, sizeof(int), st));
		GS_CK(c, gs_tie_flags(pr, seg, n, d_flag, st));
		++*passes;
		GS_CK(c, cudaMemcpyAsync(c->h_flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost, st));
		GS_CK(c, cudaStreamSynchronize(st));
		if (!*c->h_flag)
			break; /* every key area is distinct: order final */
		size_t tb = 0;
		GS_CK(c, gs_seg_scan(NULL, tb, seg, n, st));
		unsigned char *temp = d_out + al(n * sizeof(uint32_t));
		const size_t room = al(n * (size_t)L.record_size) + c->slack_bytes;
		if (al(n * sizeof(uint32_t)) + tb > room)
			return gs_fail_msg(c, GPU_ENOMEM, "scan temporary storage does not fit the budget");
		GS_CK(c, gs_seg_scan(temp, tb, seg, n, st));
		++*passes;
		GS_CK(c, gs_keys_refine(pr, seg, d_in, n, L, kb0, st));
		++*passes;
		if ((r = sort_words(c, pr, n, sizeof *pr, passes)) < 0)
			return r;
	}
	return 0;
}

int sort_general(gpu_ctx *c, const keys_spec &L, size_t n, unsigned char *d_in, unsigned char *d_out,
		 void *d_pairs, int *d_flag, uint64_t *passes)
{
	cudaStream_t st = c->stream;
	int r;
	if (L.key_width <= 4) {
		uint64_t *pr = (uint64_t *)d_pairs;
		GS_CK(c, gs_keys_extract_u64(pr, d_in, n, L, st));
		++*passes;
		if ((r = sort_words(c, pr, n, sizeof *pr, passes)) < 0)
			return r;
	} else {
		gs_u128 *pr = (gs_u128 *)d_pairs;
		GS_CK(c, gs_keys_extract_u128(pr, d_in, n, L, st));
		++*passes;
		if ((r = sort_words(c, pr, n, sizeof *pr, passes)) < 0)
			return r;
		r = refine_ties(c, L, n, pr, d_in, d_out, d_flag, passes);
		if (r < 0)
			return r;
	}
	GS_CK(c, gs_gather(d_out, d_in, d_pairs, (int)pair_bytes(L), n, L.record_size, st));
	++*passes;
	return 0;
}

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
struct chunk_area {
	unsigned char *d_in, *d_out;
	void *d_pairs, *d_alt;
	uint64_t *d_part;
};

chunk_area area_of(gpu_ctx *c, const keys_spec &L, bool merge)
{
	const size_t cap = merge ? merge_capacity(c, L) : capacity(c, L);
	unsigned char *p = c->arena + ALIGN;
	chunk_area a;
	a.d_alt = NULL;
	a.d_part = NULL;
	if (key_only(L)) {
		a.d_in = p;
		a.d_out = NULL;
		a.d_pairs = NULL;
		if (merge) {
			a.d_alt = a.d_in + al(cap * (size_t)L.record_size);
			a.d_part = (uint64_t *)((unsigned char *)a.d_alt + al(cap * (size_t)L.record_size));
		}
	} else {
		a.d_pairs = p;
		if (merge) {
			a.d_alt = p + al(cap * pair_bytes(L));
			p = (unsigned char *)a.d_alt;
		}
		a.d_in = p + al(cap * pair_bytes(L));
		a.d_out = a.d_in + al(cap * (size_t)L.record_size);
		if (merge)
			a.d_part = (uint64_t *)(a.d_out + al(cap * (size_t)L.record_size));
	}
	return a;
}

/* The device part of a chunk sort: records at a.d_in -> sorted records at
 * *d_res (a.d_in for key-only, a.d_out otherwise). Asynchronous on
 * c->stream except for the tie-refinement flag read-back. */
int sort_on_device(gpu_ctx *c, const keys_spec &L, size_t n, const chunk_area &a, unsigned char **d_res,
		   uint64_t *passes)
{
	cudaStream_t st = c->stream;
	if (key_only(L)) {
		unsigned char *d = a.d_in;
		GS_CK(c, gs_keys_normalize(d, n, L, st, false));
		++*passes;
		int r = sort_words(c, d, n, word_bytes(L), passes);
		if (r < 0)
			return r;
		GS_CK(c, gs_keys_normalize(d, n, L, st, true));
		++*passes;
		*d_res = d;
		return 0;
	}
	int r = sort_general(c, L, n, a.d_in, a.d_out, a.d_pairs, (int *)c->arena, passes);
	if (r < 0) {
		cudaStreamSynchronize(c->stream);
		return r;
	}
	*d_res = a.d_out;
	return 0;
}

/* merge_path_rounds on the element type W, d <-> alt; *res gets the result. */
template <class W>
int merge_words(gpu_ctx *c, void *d, void *alt, size_t *seg, int m, uint64_t *part, void **res, uint64_t *passes)
{
	W *r = NULL;
	GS_CK(c, merge_path_rounds<W>((W *)d, (W *)alt, seg, m, part, c->stream, &r, passes));
	*res = r;
	return 0;
}

/*
 * The device part of a merged chunk: the records at a.d_in are the m >= 1
 * non-empty sorted segments [seg[i], seg[i+1]) (seg[m] == n; seg is
 * consumed) -> the records in the order sort_on_device gives, at *d_res.
 * Key-only: the records are normalized, merged as words, de-normalized.
 * General: the (key, index) elements are merged. The index is the
 * record's position, so along a sorted segment the key areas do not
 * decrease and the indices increase: the elements ascend as whole words
 * and are all distinct, so the merge yields exactly what the sort yields
 * (keys over 12 bytes: ordered by the 12-byte area, then index); keys
 * longer than 12 bytes are then refined as the sort refines them, and the
 * records gathered.
 */
int merge_on_device(gpu_ctx *c, const keys_spec &L, size_t n, const chunk_area &a, size_t *seg, int m,
		    unsigned char **d_res, uint64_t *passes)
{
	cudaStream_t st = c->stream;
	if (m == 1) {
		*d_res = a.d_in; /* one segment: already in order */
		return 0;
	}
	void *res = NULL;
	int r;
	if (key_only(L)) {
		GS_CK(c, gs_keys_normalize(a.d_in, n, L, st, false));
		++*passes;
		if (L.record_size == 4)
			r = merge_words<uint32_t>(c, a.d_in, a.d_alt, seg, m, a.d_part, &res, passes);
		else
			r = merge_words<uint64_t>(c, a.d_in, a.d_alt, seg, m, a.d_part, &res, passes);
		if (r < 0)
			return r;
		GS_CK(c, gs_keys_normalize(res, n, L, st, true));
		++*passes;
		*d_res = (unsigned char *)res;
		return 0;
	}
	if (L.key_width <= 4) {
		GS_CK(c, gs_keys_extract_u64((uint64_t *)a.d_pairs, a.d_in, n, L, st));
		++*passes;
		r = merge_words<uint64_t>(c, a.d_pairs, a.d_alt, seg, m, a.d_part, &res, passes);
	} else {
		GS_CK(c, gs_keys_extract_u128((gs_u128 *)a.d_pairs, a.d_in, n, L, st));
		++*passes;
		r = merge_words<gs_u128>(c, a.d_pairs, a.d_alt, seg, m, a.d_part, &res, passes);
		if (r == 0)
			r = refine_ties(c, L, n, (gs_u128 *)res, a.d_in, a.d_out, (int *)c->arena, passes);
	}
	if (r < 0)
		return r;
	GS_CK(c, gs_gather(a.d_out, a.d_in, res, (int)pair_bytes(L), n, L.record_size, st));
	++*passes;
	*d_res = a.d_out;
	return 0;
}

int check_n(gpu_ctx *ctx, const keys_spec &L, size_t n, const char *who, bool merge = false)
{
	const size_t cap = merge ? merge_capacity(ctx, L) : capacity(ctx, L);
	if (n > cap) {
		char m[128];
		snprintf(m, sizeof m, "%s: n = %zu exceeds the %scapacity %zu", who, n, merge ? "merge " : "", cap);
		return gs_fail_msg(ctx, GPU_EINVAL, m);
	}
	return 0;
}

} // namespace

extern "C" size_t gpu_chunk_capacity(const gpu_ctx *ctx, const keys_spec *layout)
{
	if (!ctx || check_layout(NULL, layout) < 0)
		return 0;
	return capacity(ctx, *layout);
}

extern "C" size_t gpu_merge_capacity(const gpu_ctx *ctx, const keys_spec *layout)
{
	if (!ctx || check_layout(NULL, layout) < 0)
		return 0;
	return merge_capacity(ctx, *layout);
}

extern "C" int gpu_sort_chunk(gpu_ctx *ctx, const keys_spec *layout, const void *in, void *out, size_t n,
			      gpu_stage_times *t)
{
	if (!ctx)
		return GPU_EINVAL;
	if (t)
		memset(t, 0, sizeof *t);
	int r = check_layout(ctx, layout);
	if (r < 0)
		return r;
	const keys_spec &L = *layout;
	if (n == 0)
		return 0;
	if (!in || !out)
		return gs_fail_msg(ctx, GPU_EINVAL, "gpu_sort_chunk: NULL buffer");
	if ((r = check_n(ctx, L, n, "gpu_sort_chunk")) < 0)
		return r;
	GS_CK(ctx, cudaSetDevice(ctx->device));
	cudaStream_t st = ctx->stream;
	const size_t bytes = n * (size_t)L.record_size;
	uint64_t passes = 0;
	unsigned char *d_res;
	chunk_area a = area_of(ctx, L, false);

	GS_CK(ctx, cudaEventRecord(ctx->ev[0], st));
	GS_CK(ctx, cudaMemcpyAsync(a.d_in, in, bytes, cudaMemcpyHostToDevice, st));
	GS_CK(ctx, cudaEventRecord(ctx->ev[1], st));
	if ((r = sort_on_device(ctx, L, n, a, &d_res, &passes)) < 0)
		return r;
	GS_CK(ctx, cudaEventRecord(ctx->ev[2], st));
	GS_CK(ctx, cudaMemcpyAsync(out, d_res, bytes, cudaMemcpyDeviceToHost, st));
	GS_CK(ctx, cudaEventRecord(ctx->ev[3], st));
	GS_CK(ctx, cudaEventSynchronize(ctx->ev[3]));
	GS_CK(ctx, cudaGetLastError());
	if (t) {
		int err = 0;
		t->h2d = ms_between(ctx, 0, 1, &err);
		t->sort = ms_between(ctx, 1, 2, &err);
		t->d2h = ms_between(ctx, 2, 3, &err);
		t->passes = passes;
		if (err < 0)
			return err;
	}
	return 0;
}

/* ---- the device-resident chunk (gpusort_kernels.h) ---------------------- */

namespace {

/* The current chunk: the oldest the ctx holds (state 0 when it holds none). */
inline gs_chunk *cur_chunk(gpu_ctx *c) { return &c->res.ch[c->res.head]; }

/* The chunk puts go to: the newer one while two are held, else the current
 * one while it receives; NULL when none receives. */
gs_chunk *receiving(gpu_ctx *c)
{
	gs_chunk *nw = &c->res.ch[c->res.head ^ 1];
	if (nw->state == 1)
		return nw;
	gs_chunk *h = cur_chunk(c);
	return h->state == 1 ? h : NULL;
}

/* The older chunk, sorted and being read out, while a newer one receives; else NULL. */
gs_chunk *draining(gpu_ctx *c)
{
	return c->res.ch[c->res.head ^ 1].state ? cur_chunk(c) : NULL;
}

int out_of_order(gpu_ctx *c, const char *who)
{
	char m[160];
	snprintf(m, sizeof m, "%s: called out of order (begin, put..., sort, get..., end)", who);
	return gs_fail_msg(c, GPU_EINVAL, m);
}

int range_check(gpu_ctx *c, const gs_chunk *k, size_t first, size_t count, int slot, const void *host,
		const char *who)
{
	char m[160];
	if (slot < 0 || slot >= GPU_SLOTS || !host || first > k->n || count > k->n - first) {
		snprintf(m, sizeof m, "%s: bad slot %d or records [%zu, +%zu) of %zu", who, slot, first, count, k->n);
		return gs_fail_msg(c, GPU_EINVAL, m);
	}
	return 0;
}

/* Make stream `to` wait, on the device, for the work enqueued on `from` so far. */
int stream_after(gpu_ctx *c, cudaStream_t to, cudaStream_t from)
{
	GS_CK(c, cudaEventRecord(c->ev_link, from));
	GS_CK(c, cudaStreamWaitEvent(to, c->ev_link, 0));
	return 0;
}

/* Wait for the slot's copy and add its time to its chunk's h2d or d2h sum. */
int slot_finish(gpu_ctx *c, int s)
{
	if (!c->res.busy[s])
		return 0;
	GS_CK(c, cudaEventSynchronize(c->slot_end[s]));
	float ms = 0;
	GS_CK(c, cudaEventElapsedTime(&ms, c->slot_start[s], c->slot_end[s]));
	gs_chunk *k = &c->res.ch[c->res.owner[s]];
	if (c->res.busy[s] == 1)
		k->h2d += ms / 1e3;
	else
		k->d2h += ms / 1e3;
	c->res.busy[s] = 0;
	return 0;
}

/*
 * Copy `bytes` on slot s (the caller has finished it) for ch[owner]: host to
 * device on the copy-in stream, device to host on the copy-out stream,
 * between the slot's two events. A copy out remembers the device bytes it
 * reads, for the puts that must wait for it (guard_put).
 */
int slot_copy(gpu_ctx *c, int s, int owner, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
	const bool in = kind == cudaMemcpyHostToDevice;
	cudaStream_t st = in ? c->copy_in : c->copy_out;
	GS_CK(c, cudaEventRecord(c->slot_start[s], st));
	GS_CK(c, cudaMemcpyAsync(dst, src, bytes, kind, st));
	GS_CK(c, cudaEventRecord(c->slot_end[s], st));
	c->res.busy[s] = in ? 1 : 2;
	c->res.owner[s] = owner;
	c->res.src_lo[s] = in ? NULL : (const unsigned char *)src;
	c->res.src_hi[s] = in ? NULL : (const unsigned char *)src + bytes;
	return 0;
}

/*
 * A put of the receiving chunk to the device bytes [lo, hi) while the older
 * chunk `old` (sorted) is still being read out. Where those bytes hold
 * sorted records of old (key-only records: the sort's result, and a
 * merge's after an even number of rounds, is in d_in, where the newer
 * chunk's records go; a merge of one segment leaves any layout's result
 * there), every one of those records must have had its get issued, else
 * GPU_EINVAL; the records count as lost then (a later get of them is
 * refused). The copy-in stream then waits for every get of old in flight
 * that reads any of the bytes. (It already waits for old's sort:
 * resident_begin.)
 */
int guard_put(gpu_ctx *c, gs_chunk *old, const unsigned char *lo, const unsigned char *hi)
{
	const size_t rs = old->L.record_size;
	const unsigned char *rlo = old->d_res, *rhi = old->d_res + old->n * rs;
	if (lo < rhi && rlo < hi) {
		const size_t a = lo > rlo ? (size_t)(lo - rlo) / rs : 0;
		const size_t b = hi < rhi ? ((size_t)(hi - rlo) + rs - 1) / rs : old->n;
		if (b > old->got) {
			char m[240];
			snprintf(m, sizeof m,
				 "gpu_resident_put: would overwrite the older chunk's sorted records [%zu, %zu), but "
				 "gets were issued only for [0, %zu) (get them first)", a, b, old->got);
			return gs_fail_msg(c, GPU_EINVAL, m);
		}
		if (b > old->lost)
			old->lost = b;
	}
	const int oi = (int)(old - c->res.ch);
	for (int s = 0; s < GPU_SLOTS; ++s)
		if (c->res.busy[s] == 2 && c->res.owner[s] == oi && c->res.src_lo[s] < hi && lo < c->res.src_hi[s])
			GS_CK(c, cudaStreamWaitEvent(c->copy_in, c->slot_end[s], 0));
	return 0;
}

int resident_begin(gpu_ctx *ctx, const keys_spec *layout, size_t n, bool merge, const char *who)
{
	if (!ctx)
		return GPU_EINVAL;
	int r = check_layout(ctx, layout);
	if (r < 0)
		return r;
	const keys_spec &L = *layout;
	char m[240];
	if (n == 0) {
		snprintf(m, sizeof m, "%s: no records", who);
		return gs_fail_msg(ctx, GPU_EINVAL, m);
	}
	if ((r = check_n(ctx, L, n, who, merge)) < 0)
		return r;
	int i = ctx->res.head;
	const gs_chunk *h = &ctx->res.ch[i];
	if (h->state != 0) {
		if (h->state != 2 || ctx->res.ch[i ^ 1].state != 0) {
			snprintf(m, sizeof m, "%s: %s", who,
				 h->state == 1 ? "the current chunk is still receiving records (sort or end it first)"
					       : "two chunks are held already (end the older one first)");
			return gs_fail_msg(ctx, GPU_EINVAL, m);
		}
		if (h->merge != (int)merge || !keys_layout_equal(&h->L, &L)) {
			snprintf(m, sizeof m,
				 "%s: a chunk may begin while an older one drains only with the same key layout and "
				 "kind (the older one was begun for a %s)", who, h->merge ? "merge" : "sort");
			return gs_fail_msg(ctx, GPU_EINVAL, m);
		}
		i ^= 1; /* overlapped: the newer chunk receives while the older one drains */
	}
	GS_CK(ctx, cudaSetDevice(ctx->device));
	/* the puts wait for everything computed so far: an older chunk's sort
	 * reads and writes the areas they go to */
	if ((r = stream_after(ctx, ctx->copy_in, ctx->stream)) < 0)
		return r;
	gs_chunk *k = &ctx->res.ch[i];
	memset(k, 0, sizeof *k);
	k->L = L;
	k->n = n;
	k->merge = merge;
	k->d_in = area_of(ctx, L, merge).d_in;
	k->state = 1;
	return 0;
}

/* GPU_EINVAL (ctx->err says why) while an older chunk is held beside the receiving one; else 0. */
int older_held(gpu_ctx *ctx, const char *who)
{
	char msg[200];
	if (!draining(ctx))
		return 0;
	snprintf(msg, sizeof msg, "%s: an older chunk is still held (gpu_resident_end it before ordering the newer one)",
		 who);
	return gs_fail_msg(ctx, GPU_EINVAL, msg);
}

/*
 * Sort (s == NULL) or merge the m segments s[0..m] (merge_on_device) of the
 * current chunk, which must be receiving with no older chunk held (else
 * GPU_EINVAL): the compute stream waits for the puts, the copy-out stream
 * for the sort.
 */
int order_chunk(gpu_ctx *ctx, size_t *s, int m, const char *who)
{
	char msg[200];
	const int i = ctx->res.head;
	gs_chunk *k = &ctx->res.ch[i];
	int r = older_held(ctx, who);
	if (r < 0)
		return r;
	if (k->state != 1 || (s && !k->merge)) {
		snprintf(msg, sizeof msg, "%s: no chunk begun%s", who, s ? " with gpu_resident_begin_merge" : "");
		return gs_fail_msg(ctx, GPU_EINVAL, msg);
	}
	cudaStream_t st = ctx->stream;
	uint64_t passes = 0;
	unsigned char *d_res = NULL;
	if ((r = stream_after(ctx, st, ctx->copy_in)) < 0)
		return r;
	GS_CK(ctx, cudaEventRecord(ctx->ev_sort[i][0], st));
	const chunk_area a = area_of(ctx, k->L, k->merge);
	if (s)
		r = merge_on_device(ctx, k->L, k->n, a, s, m, &d_res, &passes);
	else
		r = sort_on_device(ctx, k->L, k->n, a, &d_res, &passes);
	if (r < 0) {
		cudaStreamSynchronize(st);
		return r;
	}
	GS_CK(ctx, cudaEventRecord(ctx->ev_sort[i][1], st));
	GS_CK(ctx, cudaGetLastError());
	if ((r = stream_after(ctx, ctx->copy_out, st)) < 0)
		return r;
	k->d_res = d_res;
	k->passes = passes;
	k->state = 2;
	return 0;
}

/* seg_start[0..k) -> s: the starts of the non-empty segments, then n;
 * returns their number m >= 1, or GPU_EINVAL with ctx->err set. */
int merge_segments(gpu_ctx *ctx, const size_t *seg_start, int k, size_t n, size_t *s)
{
	char msg[160];
	if (seg_start[0] != 0)
		return gs_fail_msg(ctx, GPU_EINVAL, "gpu_resident_merge: seg_start[0] is not 0");
	int m = 0;
	for (int i = 0; i < k; ++i) {
		const size_t end = i + 1 < k ? seg_start[i + 1] : n;
		if (end < seg_start[i] || end > n) {
			snprintf(msg, sizeof msg,
				 "gpu_resident_merge: segment %d is [%zu, %zu) of %zu records (starts must not decrease)",
				 i, seg_start[i], end, n);
			return gs_fail_msg(ctx, GPU_EINVAL, msg);
		}
		if (end > seg_start[i])
			s[m++] = seg_start[i];
	}
	s[m] = n;
	return m;
}

} // namespace

extern "C" int gpu_resident_begin(gpu_ctx *ctx, const keys_spec *layout, size_t n)
{
	return resident_begin(ctx, layout, n, false, "gpu_resident_begin");
}

extern "C" int gpu_resident_begin_merge(gpu_ctx *ctx, const keys_spec *layout, size_t n)
{
	return resident_begin(ctx, layout, n, true, "gpu_resident_begin_merge");
}

extern "C" int gpu_resident_put(gpu_ctx *ctx, const void *host, size_t first, size_t count, int slot)
{
	if (!ctx)
		return GPU_EINVAL;
	gs_chunk *k = receiving(ctx);
	if (!k)
		return out_of_order(ctx, "gpu_resident_put");
	int r = range_check(ctx, k, first, count, slot, host, "gpu_resident_put");
	if (r < 0 || count == 0)
		return r;
	if ((r = slot_finish(ctx, slot)) < 0)
		return r;
	const size_t rs = k->L.record_size;
	unsigned char *dst = k->d_in + first * rs;
	gs_chunk *old = draining(ctx);
	if (old && (r = guard_put(ctx, old, dst, dst + count * rs)) < 0)
		return r;
	return slot_copy(ctx, slot, (int)(k - ctx->res.ch), dst, host, count * rs, cudaMemcpyHostToDevice);
}

extern "C" int gpu_resident_sort(gpu_ctx *ctx)
{
	if (!ctx)
		return GPU_EINVAL;
	return order_chunk(ctx, NULL, 0, "gpu_resident_sort");
}

extern "C" int gpu_resident_merge(gpu_ctx *ctx, const size_t *seg_start, int k)
{
	if (!ctx)
		return GPU_EINVAL;
	const gs_chunk *c = cur_chunk(ctx);
	int r = older_held(ctx, "gpu_resident_merge");
	if (r < 0)
		return r;
	if (c->state != 1 || !c->merge)
		return gs_fail_msg(ctx, GPU_EINVAL, "gpu_resident_merge: no chunk begun with gpu_resident_begin_merge");
	if (!seg_start || k < 1)
		return gs_fail_msg(ctx, GPU_EINVAL, "gpu_resident_merge: no segments (seg_start NULL or k < 1)");
	size_t *s = (size_t *)malloc(((size_t)k + 1) * sizeof *s);
	if (!s)
		return gs_fail_msg(ctx, GPU_ENOMEM, "gpu_resident_merge: out of host memory");
	r = merge_segments(ctx, seg_start, k, c->n, s);
	if (r > 0)
		r = order_chunk(ctx, s, r, "gpu_resident_merge");
	free(s);
	return r;
}

extern "C" int gpu_resident_get(gpu_ctx *ctx, void *host, size_t first, size_t count, int slot)
{
	if (!ctx)
		return GPU_EINVAL;
	gs_chunk *k = cur_chunk(ctx);
	if (k->state != 2)
		return out_of_order(ctx, "gpu_resident_get");
	int r = range_check(ctx, k, first, count, slot, host, "gpu_resident_get");
	if (r < 0 || count == 0)
		return r;
	char m[200];
	if (first < k->lost) {
		snprintf(m, sizeof m, "gpu_resident_get: records [%zu, +%zu) may have been overwritten by the newer "
			 "chunk's puts (records below %zu)", first, count, k->lost);
		return gs_fail_msg(ctx, GPU_EINVAL, m);
	}
	if (draining(ctx) && first > k->got) {
		snprintf(m, sizeof m, "gpu_resident_get: while a newer chunk receives, gets must come in record order "
			 "(record %zu asked, gets issued for [0, %zu))", first, k->got);
		return gs_fail_msg(ctx, GPU_EINVAL, m);
	}
	if ((r = slot_finish(ctx, slot)) < 0)
		return r;
	const size_t rs = k->L.record_size;
	if ((r = slot_copy(ctx, slot, ctx->res.head, host, k->d_res + first * rs, count * rs,
			   cudaMemcpyDeviceToHost)) < 0)
		return r;
	if (first <= k->got && first + count > k->got)
		k->got = first + count;
	return 0;
}

extern "C" int gpu_slot_wait(gpu_ctx *ctx, int slot)
{
	if (!ctx || slot < 0 || slot >= GPU_SLOTS)
		return ctx ? gs_fail_msg(ctx, GPU_EINVAL, "gpu_slot_wait: bad slot") : GPU_EINVAL;
	return slot_finish(ctx, slot);
}

extern "C" int gpu_resident_end(gpu_ctx *ctx, gpu_stage_times *t)
{
	if (!ctx)
		return GPU_EINVAL;
	if (t)
		memset(t, 0, sizeof *t);
	const int i = ctx->res.head;
	gs_chunk *k = &ctx->res.ch[i];
	int r = 0;
	for (int s = 0; s < GPU_SLOTS && r == 0; ++s)
		if (ctx->res.owner[s] == i)
			r = slot_finish(ctx, s);
	if (r == 0 && k->state == 2 && t) {
		float ms = 0;
		cudaError_t e = cudaEventSynchronize(ctx->ev_sort[i][1]);
		if (e == cudaSuccess)
			e = cudaEventElapsedTime(&ms, ctx->ev_sort[i][0], ctx->ev_sort[i][1]);
		if (e != cudaSuccess)
			r = gs_fail(ctx, e, "cudaEventElapsedTime (sort)", __FILE__, __LINE__);
		t->h2d = k->h2d;
		t->d2h = k->d2h;
		t->sort = ms / 1e3;
		t->passes = k->passes;
	}
	if (r < 0) {
		cudaStreamSynchronize(ctx->copy_in);
		cudaStreamSynchronize(ctx->stream);
		cudaStreamSynchronize(ctx->copy_out);
		(void)cudaGetLastError();
		for (int s = 0; s < GPU_SLOTS; ++s)
			if (ctx->res.owner[s] == i)
				ctx->res.busy[s] = 0;
	}
	memset(k, 0, sizeof *k);
	if (ctx->res.ch[i ^ 1].state)
		ctx->res.head = i ^ 1; /* the receiving chunk becomes the current one */
	return r;
}
