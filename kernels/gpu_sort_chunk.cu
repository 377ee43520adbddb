/*
 * gpu_sort_chunk.cu - one chunk through the GPU: layout checks, capacity,
 * H2D, key extraction, the bitonic sort, tie refinement, gather, D2H.
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
 */
#include <stdio.h>
#include <string.h>

#include "gpu_internal.cuh"

namespace {

const size_t ALIGN = 256;
inline size_t al(size_t x) { return (x + ALIGN - 1) & ~(ALIGN - 1); }

/* Validate and convert; 0 or GPU_EINVAL with ctx->err set. */
int to_layout(gpu_ctx *ctx, const gpu_key_layout *in, gs_layout *L)
{
	char m[160];
	if (!in || !in->fields || in->nfields < 1 || in->nfields > GS_MAX_FIELDS || in->record_size == 0)
		return ctx ? gs_fail_msg(ctx, GPU_EINVAL, "bad key layout (fields, nfields 1..32, record_size)")
			   : GPU_EINVAL;
	memset(L, 0, sizeof *L);
	L->rs = in->record_size;
	L->nf = (uint32_t)in->nfields;
	uint64_t kw = 0;
	for (int i = 0; i < in->nfields; ++i) {
		const gpu_key_field &f = in->fields[i];
		bool ok = f.width >= 1 && (uint64_t)f.offset + f.width <= in->record_size && f.kind <= GPU_KEY_BYTES;
		if (f.kind == GPU_KEY_UINT || f.kind == GPU_KEY_SINT)
			ok = ok && (f.width == 1 || f.width == 2 || f.width == 4 || f.width == 8);
		if (f.kind == GPU_KEY_FLOAT)
			ok = ok && (f.width == 4 || f.width == 8);
		if (!ok) {
			if (ctx) {
				snprintf(m, sizeof m, "bad key field %d (offset %u width %u kind %u, record size %u)", i,
					 f.offset, f.width, f.kind, in->record_size);
				gs_fail_msg(ctx, GPU_EINVAL, m);
			}
			return GPU_EINVAL;
		}
		L->f[i].off = f.offset;
		L->f[i].width = f.width;
		L->f[i].kind = f.kind;
		L->f[i].be = f.big_endian ? 1 : 0;
		L->f[i].desc = f.descending ? 1 : 0;
		kw += f.width;
	}
	if (in->key_width != 0 && in->key_width != kw) {
		if (ctx)
			gs_fail_msg(ctx, GPU_EINVAL, "key_width is not the sum of the field widths");
		return GPU_EINVAL;
	}
	L->kw = (uint32_t)kw;
	return 0;
}

bool key_only(const gs_layout &L)
{
	return L.nf == 1 && L.f[0].width == L.rs && L.f[0].off == 0 && (L.rs == 4 || L.rs == 8);
}

size_t pair_bytes(const gs_layout &L) { return L.kw <= 4 ? 8 : 16; }

size_t capacity(const gpu_ctx *c, const gs_layout &L)
{
	const size_t fixed = 4 * ALIGN + c->slack_bytes;
	if (c->arena_bytes <= fixed)
		return 0;
	const size_t avail = c->arena_bytes - fixed;
	size_t per, lim;
	if (key_only(L)) {
		per = L.rs;
		lim = (size_t)1 << 36; /* grid of 2^TB-element tiles stays < 2^31 */
	} else {
		per = 2 * (size_t)L.rs + pair_bytes(L);
		lim = 0xfffffffeu; /* u32 index */
	}
	size_t cap = avail / per;
	return cap < lim ? cap : lim;
}

double ms_between(gpu_ctx *c, int a, int b, int *err)
{
	float ms = 0;
	cudaError_t e = cudaEventElapsedTime(&ms, c->ev[a], c->ev[b]);
	if (e != cudaSuccess)
		*err = gs_fail(c, e, "cudaEventElapsedTime", __FILE__, __LINE__);
	return ms / 1e3;
}

int sort_general(gpu_ctx *c, const gs_layout &L, size_t n, unsigned char *d_in, unsigned char *d_out,
		 void *d_pairs, int *d_flag, uint64_t *passes)
{
	cudaStream_t st = c->stream;
	if (L.kw <= 4) {
		uint64_t *pr = (uint64_t *)d_pairs;
		GS_CK(c, gs_keys_extract_u64(pr, d_in, n, L, st));
		++*passes;
		GS_CK(c, bitonic_sort<uint64_t>(pr, n, st, passes));
	} else {
		gs_u128 *pr = (gs_u128 *)d_pairs;
		GS_CK(c, gs_keys_extract_u128(pr, d_in, n, L, st));
		++*passes;
		GS_CK(c, bitonic_sort<gs_u128>(pr, n, st, passes));
		/* keys longer than 12 bytes: refine ties 8 bytes at a time; the
		 * out-record area (unused until the gather) holds the run starts
		 * and the scan's temporary storage */
		for (uint32_t kb0 = 12; kb0 < L.kw && n > 1; kb0 += 8) {
			uint32_t *seg = (uint32_t *)d_out;
			GS_CK(c, cudaMemsetAsync(d_flag, 0, sizeof(int), st));
			GS_CK(c, gs_tie_flags(pr, seg, n, d_flag, st));
			++*passes;
			GS_CK(c, cudaMemcpyAsync(c->h_flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost, st));
			GS_CK(c, cudaStreamSynchronize(st));
			if (!*c->h_flag)
				break; /* every 12-byte prefix is distinct: order final */
			size_t tb = 0;
			GS_CK(c, gs_seg_scan(NULL, tb, seg, n, st));
			unsigned char *temp = d_out + al(n * sizeof(uint32_t));
			const size_t room = al(n * (size_t)L.rs) + c->slack_bytes;
			if (al(n * sizeof(uint32_t)) + tb > room)
				return gs_fail_msg(c, GPU_ENOMEM, "scan temporary storage does not fit the budget");
			GS_CK(c, gs_seg_scan(temp, tb, seg, n, st));
			++*passes;
			GS_CK(c, gs_keys_refine(pr, seg, d_in, n, L, kb0, st));
			++*passes;
			GS_CK(c, bitonic_sort<gs_u128>(pr, n, st, passes));
		}
	}
	GS_CK(c, gs_gather(d_out, d_in, d_pairs, (int)pair_bytes(L), n, L.rs, st));
	++*passes;
	return 0;
}

/*
 * Where a chunk of n records lives in the arena: the records as they come
 * from the host (d_in), and the (key, index) elements and gathered records
 * of the general path.
 */
struct chunk_area {
	unsigned char *d_in, *d_out;
	void *d_pairs;
};

chunk_area area_of(gpu_ctx *c, const gs_layout &L, size_t n)
{
	unsigned char *p = c->arena + ALIGN;
	chunk_area a;
	if (key_only(L)) {
		a.d_in = p;
		a.d_out = NULL;
		a.d_pairs = NULL;
	} else {
		a.d_pairs = p;
		a.d_in = p + al(n * pair_bytes(L));
		a.d_out = a.d_in + al(n * (size_t)L.rs);
	}
	return a;
}

/* The device part of a chunk sort: records at a.d_in -> sorted records at
 * *d_res (a.d_in for key-only, a.d_out otherwise). Asynchronous on
 * c->stream except for the tie-refinement flag read-back. */
int sort_on_device(gpu_ctx *c, const gs_layout &L, size_t n, const chunk_area &a, unsigned char **d_res,
		   uint64_t *passes)
{
	cudaStream_t st = c->stream;
	if (key_only(L)) {
		unsigned char *d = a.d_in;
		GS_CK(c, gs_keys_normalize(d, n, L, st, false));
		++*passes;
		if (L.rs == 4)
			GS_CK(c, bitonic_sort<uint32_t>((uint32_t *)d, n, st, passes));
		else
			GS_CK(c, bitonic_sort<uint64_t>((uint64_t *)d, n, st, passes));
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

int check_n(gpu_ctx *ctx, const gs_layout &L, size_t n, const char *who)
{
	if (n > capacity(ctx, L)) {
		char m[128];
		snprintf(m, sizeof m, "%s: n = %zu exceeds the capacity %zu", who, n, capacity(ctx, L));
		return gs_fail_msg(ctx, GPU_EINVAL, m);
	}
	return 0;
}

} // namespace

extern "C" size_t gpu_chunk_capacity(const gpu_ctx *ctx, const gpu_key_layout *layout)
{
	gs_layout L;
	if (!ctx || to_layout(NULL, layout, &L) < 0)
		return 0;
	return capacity(ctx, L);
}

extern "C" int gpu_sort_chunk(gpu_ctx *ctx, const gpu_key_layout *layout, const void *in, void *out, size_t n,
			      gpu_stage_times *t)
{
	if (!ctx)
		return GPU_EINVAL;
	if (t)
		memset(t, 0, sizeof *t);
	gs_layout L;
	int r = to_layout(ctx, layout, &L);
	if (r < 0)
		return r;
	if (n == 0)
		return 0;
	if (!in || !out)
		return gs_fail_msg(ctx, GPU_EINVAL, "gpu_sort_chunk: NULL buffer");
	if ((r = check_n(ctx, L, n, "gpu_sort_chunk")) < 0)
		return r;
	GS_CK(ctx, cudaSetDevice(ctx->device));
	cudaStream_t st = ctx->stream;
	const size_t bytes = n * (size_t)L.rs;
	uint64_t passes = 0;
	unsigned char *d_res;
	chunk_area a = area_of(ctx, L, n);

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

int res_check(gpu_ctx *c, int state, size_t first, size_t count, int slot, const void *host, const char *who)
{
	char m[160];
	if (c->res.state != state) {
		snprintf(m, sizeof m, "%s: called out of order (begin, put..., sort, get..., end)", who);
		return gs_fail_msg(c, GPU_EINVAL, m);
	}
	if (slot < 0 || slot >= GPU_SLOTS || !host || first > c->res.n || count > c->res.n - first) {
		snprintf(m, sizeof m, "%s: bad slot %d or records [%zu, +%zu) of %zu", who, slot, first, count,
			 c->res.n);
		return gs_fail_msg(c, GPU_EINVAL, m);
	}
	return 0;
}

/* Wait for the slot's copy and add its time to the h2d or d2h sum. */
int slot_finish(gpu_ctx *c, int s)
{
	if (!c->res.busy[s])
		return 0;
	GS_CK(c, cudaEventSynchronize(c->slot_end[s]));
	float ms = 0;
	GS_CK(c, cudaEventElapsedTime(&ms, c->slot_start[s], c->slot_end[s]));
	if (c->res.busy[s] == 1)
		c->res.h2d += ms / 1e3;
	else
		c->res.d2h += ms / 1e3;
	c->res.busy[s] = 0;
	return 0;
}

int slot_copy(gpu_ctx *c, int s, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
	int r = slot_finish(c, s);
	if (r < 0)
		return r;
	GS_CK(c, cudaEventRecord(c->slot_start[s], c->stream));
	GS_CK(c, cudaMemcpyAsync(dst, src, bytes, kind, c->stream));
	GS_CK(c, cudaEventRecord(c->slot_end[s], c->stream));
	c->res.busy[s] = kind == cudaMemcpyHostToDevice ? 1 : 2;
	return 0;
}

} // namespace

extern "C" int gpu_resident_begin(gpu_ctx *ctx, const gpu_key_layout *layout, size_t n)
{
	if (!ctx)
		return GPU_EINVAL;
	gs_layout L;
	int r = to_layout(ctx, layout, &L);
	if (r < 0)
		return r;
	if (n == 0)
		return gs_fail_msg(ctx, GPU_EINVAL, "gpu_resident_begin: no records");
	if ((r = check_n(ctx, L, n, "gpu_resident_begin")) < 0)
		return r;
	GS_CK(ctx, cudaSetDevice(ctx->device));
	if (!ctx->slot_start[0])
		for (int i = 0; i < GPU_SLOTS; ++i) {
			GS_CK(ctx, cudaEventCreate(&ctx->slot_start[i]));
			GS_CK(ctx, cudaEventCreate(&ctx->slot_end[i]));
		}
	memset(&ctx->res, 0, sizeof ctx->res);
	ctx->res.L = L;
	ctx->res.n = n;
	ctx->res.state = 1;
	return 0;
}

extern "C" int gpu_resident_put(gpu_ctx *ctx, const void *host, size_t first, size_t count, int slot)
{
	if (!ctx)
		return GPU_EINVAL;
	int r = res_check(ctx, 1, first, count, slot, host, "gpu_resident_put");
	if (r < 0 || count == 0)
		return r;
	const size_t rs = ctx->res.L.rs;
	chunk_area a = area_of(ctx, ctx->res.L, ctx->res.n);
	return slot_copy(ctx, slot, a.d_in + first * rs, host, count * rs, cudaMemcpyHostToDevice);
}

extern "C" int gpu_resident_sort(gpu_ctx *ctx)
{
	if (!ctx || ctx->res.state != 1)
		return ctx ? gs_fail_msg(ctx, GPU_EINVAL, "gpu_resident_sort: no chunk begun") : GPU_EINVAL;
	cudaStream_t st = ctx->stream;
	uint64_t passes = 0;
	unsigned char *d_res = NULL;
	GS_CK(ctx, cudaEventRecord(ctx->ev[1], st));
	int r = sort_on_device(ctx, ctx->res.L, ctx->res.n, area_of(ctx, ctx->res.L, ctx->res.n), &d_res, &passes);
	if (r < 0)
		return r;
	GS_CK(ctx, cudaEventRecord(ctx->ev[2], st));
	GS_CK(ctx, cudaGetLastError());
	ctx->res.d_res = d_res;
	ctx->res.passes = passes;
	ctx->res.state = 2;
	return 0;
}

extern "C" int gpu_resident_get(gpu_ctx *ctx, void *host, size_t first, size_t count, int slot)
{
	if (!ctx)
		return GPU_EINVAL;
	int r = res_check(ctx, 2, first, count, slot, host, "gpu_resident_get");
	if (r < 0 || count == 0)
		return r;
	const size_t rs = ctx->res.L.rs;
	return slot_copy(ctx, slot, host, ctx->res.d_res + first * rs, count * rs, cudaMemcpyDeviceToHost);
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
	int r = 0;
	for (int s = 0; s < GPU_SLOTS && r == 0; ++s)
		r = slot_finish(ctx, s);
	if (r == 0 && ctx->res.state == 2 && t) {
		GS_CK(ctx, cudaEventSynchronize(ctx->ev[2]));
		t->h2d = ctx->res.h2d;
		t->d2h = ctx->res.d2h;
		t->sort = ms_between(ctx, 1, 2, &r);
		t->passes = ctx->res.passes;
	}
	if (r < 0) {
		cudaStreamSynchronize(ctx->stream);
		(void)cudaGetLastError();
		memset(ctx->res.busy, 0, sizeof ctx->res.busy);
	}
	ctx->res.state = 0;
	return r;
}
