/*
 * gpu_sort_chunk.cu - one chunk through the GPU: layout checks, capacity,
 * H2D, key extraction, the sort (the ctx's sorter: sorter.cuh), tie
 * refinement, gather, D2H; and the device part of a chunk that
 * gpu_resident.cu shares (gpu_chunk.cuh).
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

#include "gpu_chunk.cuh"
#include "gpu_internal.cuh"
#include "merge_path.cuh"

namespace {

const size_t ALIGN = 256;
inline size_t al(size_t x) { return (x + ALIGN - 1) & ~(ALIGN - 1); }

/* The record is 4 or 8 bytes that its keys cover (one key, or several:
 * keys_layout_cover), sorted as words, normalized in place (keys_spec's
 * key_only is one key of any width). */
bool key_only(const keys_spec &L)
{
	const uint32_t rs = L.record_size;
	return (rs == 4 || rs == 8) && keys_layout_cover(&L);
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

/*
 * The most records n with n * per + scratch(n) <= avail. scratch grows
 * with n (a sorter's extra_bytes never decreases), so the largest such n
 * is found by bisection: a sorter with a second buffer of the words gets
 * about half the records of an in-place one, not none.
 */
template <class F>
size_t fit_records(size_t avail, size_t per, F scratch)
{
	size_t lo = 0, hi = avail / per;
	while (lo < hi) {
		const size_t mid = lo + (hi - lo + 1) / 2;
		const size_t sb = scratch(mid);
		if (sb <= avail && mid <= (avail - sb) / per)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

size_t capacity(const gpu_ctx *c, const keys_spec &L)
{
	const size_t avail = arena_avail(c, 4), per = per_record(L, false);
	return within_limit(L, fit_records(avail, per, [&](size_t n) { return sort_scratch_bytes(c, L, n); }));
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
 * array), the split table and the sorter's scratch, for the largest n
 * they fit beside (fit_records). The slack after
 * d_out (tie refinement's scan) stays; the split table may share it, as
 * the table is dead before the refinement starts.
 */
size_t merge_capacity(const gpu_ctx *c, const keys_spec &L)
{
	const size_t avail = arena_avail(c, 8), per = per_record(L, true);
	/* the sorter's scratch too: keys over 12 bytes are refined by sorting */
	return within_limit(L, fit_records(avail, per, [&](size_t n) {
				    return merge_scratch_bytes(L, n) + sort_scratch_bytes(c, L, n);
			    }));
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
 * Sort n words of `width` bytes at d with the ctx's sorter, on c->stream;
 * key_bits as sorter.cuh's sort() takes it.
 * Its scratch is the end of the arena before the slack, which the
 * capacities keep free (sort_scratch_bytes); nothing else is live there
 * while a chunk is sorted.
 */
int sort_words(gpu_ctx *c, void *d, size_t n, int width, int key_bits, uint64_t *passes)
{
	const size_t x = c->sorter->extra_bytes(n, width);
	unsigned char *scratch = NULL;
	if (x)
		scratch = c->arena + al(c->arena_bytes - c->slack_bytes - (al(x) + ALIGN));
	GS_CK(c, c->sorter->sort(d, n, width, key_bits, scratch, x ? al(x) : 0, c->stream, passes));
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
		/* (run start, next 8 key bytes, index): within a run the
		 * indices ascend, so 96 bits decide (sorter.cuh, key_bits) */
		if ((r = sort_words(c, pr, n, sizeof *pr, 96, passes)) < 0)
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
		/* (key, index = position): the key's 32 bits decide */
		if ((r = sort_words(c, pr, n, sizeof *pr, 32, passes)) < 0)
			return r;
	} else {
		gs_u128 *pr = (gs_u128 *)d_pairs;
		GS_CK(c, gs_keys_extract_u128(pr, d_in, n, L, st));
		++*passes;
		/* (12 key bytes, index = position): 96 bits decide */
		if ((r = sort_words(c, pr, n, sizeof *pr, 96, passes)) < 0)
			return r;
		r = refine_ties(c, L, n, pr, d_in, d_out, d_flag, passes);
		if (r < 0)
			return r;
	}
	GS_CK(c, gs_gather(d_out, d_in, d_pairs, (int)pair_bytes(L), n, L.record_size, st));
	++*passes;
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

} // namespace

/* 0 when keys_layout_check accepts the layout, else GPU_EINVAL with
 * ctx->err (when ctx is not NULL) saying why. */
int gs_check_layout(gpu_ctx *ctx, const keys_spec *L)
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


gs_area gs_area_of(gpu_ctx *c, const keys_spec &L, bool merge)
{
	const size_t cap = merge ? merge_capacity(c, L) : capacity(c, L);
	unsigned char *p = c->arena + ALIGN;
	gs_area a;
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
int gs_sort_on_device(gpu_ctx *c, const keys_spec &L, size_t n, const gs_area &a, unsigned char **d_res,
		   uint64_t *passes)
{
	cudaStream_t st = c->stream;
	if (key_only(L)) {
		unsigned char *d = a.d_in;
		GS_CK(c, gs_keys_normalize(d, n, L, st, false));
		++*passes;
		int r = sort_words(c, d, n, word_bytes(L), 8 * word_bytes(L), passes);
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
int gs_merge_on_device(gpu_ctx *c, const keys_spec &L, size_t n, const gs_area &a, size_t *seg, int m,
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

int gs_check_n(gpu_ctx *ctx, const keys_spec &L, size_t n, const char *who, bool merge)
{
	const size_t cap = merge ? merge_capacity(ctx, L) : capacity(ctx, L);
	if (n > cap) {
		char m[128];
		snprintf(m, sizeof m, "%s: n = %zu exceeds the %scapacity %zu", who, n, merge ? "merge " : "", cap);
		return gs_fail_msg(ctx, GPU_EINVAL, m);
	}
	return 0;
}


extern "C" size_t gpu_chunk_capacity(const gpu_ctx *ctx, const keys_spec *layout)
{
	if (!ctx || gs_check_layout(NULL, layout) < 0)
		return 0;
	return capacity(ctx, *layout);
}

extern "C" size_t gpu_merge_capacity(const gpu_ctx *ctx, const keys_spec *layout)
{
	if (!ctx || gs_check_layout(NULL, layout) < 0)
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
	int r = gs_check_layout(ctx, layout);
	if (r < 0)
		return r;
	const keys_spec &L = *layout;
	if (n == 0)
		return 0;
	if (!in || !out)
		return gs_fail_msg(ctx, GPU_EINVAL, "gpu_sort_chunk: NULL buffer");
	if ((r = gs_check_n(ctx, L, n, "gpu_sort_chunk", false)) < 0)
		return r;
	GS_CK(ctx, cudaSetDevice(ctx->device));
	cudaStream_t st = ctx->stream;
	const size_t bytes = n * (size_t)L.record_size;
	uint64_t passes = 0;
	unsigned char *d_res;
	gs_area a = gs_area_of(ctx, L, false);

	GS_CK(ctx, cudaEventRecord(ctx->ev[0], st));
	GS_CK(ctx, cudaMemcpyAsync(a.d_in, in, bytes, cudaMemcpyHostToDevice, st));
	GS_CK(ctx, cudaEventRecord(ctx->ev[1], st));
	if ((r = gs_sort_on_device(ctx, L, n, a, &d_res, &passes)) < 0)
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

