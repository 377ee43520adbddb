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
	if (n > capacity(ctx, L)) {
		char m[128];
		snprintf(m, sizeof m, "gpu_sort_chunk: n = %zu exceeds the capacity %zu", n, capacity(ctx, L));
		return gs_fail_msg(ctx, GPU_EINVAL, m);
	}
	GS_CK(ctx, cudaSetDevice(ctx->device));
	cudaStream_t st = ctx->stream;
	const size_t bytes = n * (size_t)L.rs;
	int *d_flag = (int *)ctx->arena;
	unsigned char *p = ctx->arena + ALIGN;
	uint64_t passes = 0;
	unsigned char *d_res;

	GS_CK(ctx, cudaEventRecord(ctx->ev[0], st));
	if (key_only(L)) {
		unsigned char *d = p;
		GS_CK(ctx, cudaMemcpyAsync(d, in, bytes, cudaMemcpyHostToDevice, st));
		GS_CK(ctx, cudaEventRecord(ctx->ev[1], st));
		GS_CK(ctx, gs_keys_normalize(d, n, L, st, false));
		++passes;
		if (L.rs == 4)
			GS_CK(ctx, bitonic_sort<uint32_t>((uint32_t *)d, n, st, &passes));
		else
			GS_CK(ctx, bitonic_sort<uint64_t>((uint64_t *)d, n, st, &passes));
		GS_CK(ctx, gs_keys_normalize(d, n, L, st, true));
		++passes;
		d_res = d;
	} else {
		void *d_pairs = p;
		unsigned char *d_in = p + al(n * pair_bytes(L));
		unsigned char *d_out = d_in + al(bytes);
		GS_CK(ctx, cudaMemcpyAsync(d_in, in, bytes, cudaMemcpyHostToDevice, st));
		GS_CK(ctx, cudaEventRecord(ctx->ev[1], st));
		r = sort_general(ctx, L, n, d_in, d_out, d_pairs, d_flag, &passes);
		if (r < 0) {
			cudaStreamSynchronize(st);
			return r;
		}
		d_res = d_out;
	}
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
