/*
 * gpu_resident.cu - the device-resident chunk (gpusort_kernels.h
 * gpu_resident_*): records put piece by piece through caller-owned pinned
 * staging (one event pair per slot), sorted or merged on the device
 * (gpu_chunk.cuh), and got back piece by piece; copies in, the sort and
 * copies out run on three streams, so that the next chunk is copied in
 * while the previous one is copied out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_chunk.cuh"
#include "gpu_internal.cuh"

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
	int r = gs_check_layout(ctx, layout);
	if (r < 0)
		return r;
	const keys_spec &L = *layout;
	char m[240];
	if (n == 0) {
		snprintf(m, sizeof m, "%s: no records", who);
		return gs_fail_msg(ctx, GPU_EINVAL, m);
	}
	if ((r = gs_check_n(ctx, L, n, who, merge)) < 0)
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
	k->d_in = gs_area_of(ctx, L, merge).d_in;
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
	const gs_area a = gs_area_of(ctx, k->L, k->merge);
	if (s)
		r = gs_merge_on_device(ctx, k->L, k->n, a, s, m, &d_res, &passes);
	else
		r = gs_sort_on_device(ctx, k->L, k->n, a, &d_res, &passes);
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

extern "C" int gpu_resident_trim(gpu_ctx *ctx, size_t m)
{
	if (!ctx)
		return GPU_EINVAL;
	gs_chunk *k = receiving(ctx);
	if (!k)
		return out_of_order(ctx, "gpu_resident_trim");
	if (m == 0 || m > k->n) {
		char msg[160];
		snprintf(msg, sizeof msg, "gpu_resident_trim: %zu records of a chunk of %zu (want 1..n)", m, k->n);
		return gs_fail_msg(ctx, GPU_EINVAL, msg);
	}
	k->n = m;
	return 0;
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
