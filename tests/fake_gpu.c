/*
 * fake_gpu.c - a CPU stand-in for kernels/ (gpusort_kernels.h), so that the
 * CI, which has no GPU, can run src/'s device-resident pipeline (resident.c,
 * job.c, gpumerge.c) end to end: `make tests/bin/gpusort-fakegpu` links it
 * with src/ built as for CUDA, and tests/fakegpu.sh compares that binary's
 * output with the CPU engine's.
 *
 * It keeps the resident API's contract as the header states it (states,
 * two chunks while one drains, the GPU_EINVAL refusals, the arena laid out
 * by the capacity so that a newer chunk's key-only records land on the
 * older chunk's sorted records) and makes the copies asynchronous the way
 * that shows a caller's mistakes: a put or get is only recorded, and
 * carried out as late as the contract allows (when its slot is waited for,
 * its slot reused, its chunk sorted or ended, or a put needs the device
 * bytes a get reads). A staging buffer refilled before its put's slot was
 * waited for, or read before its get's slot was, then gives wrong output,
 * and a put over records not yet got is refused.
 *
 * Device faults come from the test build's fault layer (io/io_fault.h),
 * which counts every call of a kind and fails the Nth: gpu-alloc (gpu_open,
 * gpu_host_alloc), gpu-launch (gpu_sort_chunk, gpu_resident_sort and
 * _merge), gpu-copy (gpu_resident_put and _get), gpu-sync (gpu_slot_wait,
 * gpu_resident_end), pin (gpu_host_register). A failed call does nothing
 * a caller could mistake for work done: a failed wait or end drops the
 * copies it waited for (their bytes never arrive), so that a caller that
 * ignores the error gives wrong output. ERR ENOMEM is GPU_ENOMEM, any
 * other error GPU_ECUDA.
 *
 * Not modelled: timing (stage times are tiny made-up numbers so that the
 * sums are > 0), the kernels themselves (the order comes
 * from keys_compare, stable), the arena's exact offsets beyond the
 * overlaps the contract speaks of. GPUSORT_FAKE_CAP=N caps every capacity
 * at N records, to make many chunks from small inputs.
 */
#include "../kernels/gpusort_kernels.h"
#include "../src/keys.h"
#include "../io/io_fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fslot {
	int busy;          /* 0 free, 1 put pending, 2 get pending */
	int owner;         /* index into ch */
	unsigned char *host;
	size_t dev, bytes; /* arena offset, length */
};

struct fchunk {
	int state, merge;  /* 0 none, 1 receiving, 2 sorted */
	size_t n, d_in, d_res, got, lost;
	uint64_t passes;
	keys_spec s;
};

struct gpu_ctx {
	unsigned char *arena;
	size_t bytes;
	char err[512];
	struct fchunk ch[2];
	int head;
	struct fslot slot[GPU_SLOTS];
};

static char open_err[512];

static int fail(gpu_ctx *c, int code, const char *what)
{
	snprintf(c ? c->err : open_err, sizeof open_err, "fake GPU: %s", what);
	return code;
}

/* The fault layer's verdict on a call of `kind` named `what`: 0 (make
 * it), or the GPU_E* code it fails with, the reason in c's error. */
static int injected(gpu_ctx *c, enum io_fault_kind kind, const char *what)
{
	int f = io_fault_hit(kind);
	if (!f)
		return 0;
	char m[128];
	snprintf(m, sizeof m, "%s: injected fault", what);
	return fail(c, f == -ENOMEM ? GPU_ENOMEM : GPU_ECUDA, m);
}

int gpu_prewarm(int device)
{
	(void)device;
	return 0;
}

void gpu_prewarm_wait(void) {}

int gpu_device_count(void)
{
	return 1;
}

int gpu_driver_present(void)
{
	return 1; /* the fake device is always there */
}

int gpu_open(gpu_ctx **out, int device, size_t budget_bytes, char *name, size_t namelen)
{
	*out = NULL;
	if (device != 0)
		return fail(NULL, GPU_ENODEV, "no such device");
	if (budget_bytes == 0 || budget_bytes > ((size_t)1 << 30))
		budget_bytes = (size_t)1 << 30;
	int f = injected(NULL, IO_FAULT_GPU_ALLOC, "gpu_open");
	if (f)
		return f;
	gpu_ctx *c = calloc(1, sizeof *c);
	if (!c || !(c->arena = malloc(budget_bytes))) {
		free(c);
		return fail(NULL, GPU_ENOMEM, "out of host memory");
	}
	c->bytes = budget_bytes;
	if (name && namelen)
		snprintf(name, namelen, "fake GPU");
	*out = c;
	return 0;
}

void gpu_close(gpu_ctx *ctx)
{
	if (ctx)
		free(ctx->arena);
	free(ctx);
}

const char *gpu_last_error(const gpu_ctx *ctx)
{
	return ctx ? ctx->err : open_err;
}

/* *s = *L when the kernels would take L, with key_only meaning what it means
 * to them: a record of 4 or 8 bytes that its keys cover. */
static int to_spec(const keys_spec *L, keys_spec *s)
{
	if (!L || keys_layout_check(L))
		return GPU_EINVAL;
	*s = *L;
	s->key_only = (s->record_size == 4 || s->record_size == 8) && keys_layout_cover(s);
	return 0;
}

/* Records per chunk: the kernels' per-record bytes (gpu_sort_chunk.cu), less a slack. */
static size_t cap_of(const gpu_ctx *c, const keys_spec *s, int merge)
{
	size_t pair = s->key_width <= 4 ? 8 : 16, rs = s->record_size;
	size_t per = s->key_only ? rs * (merge ? 2 : 1) : 2 * rs + pair * (merge ? 2 : 1);
	size_t cap = (c->bytes - c->bytes / 64 - 4096) / per;
	const char *e = getenv("GPUSORT_FAKE_CAP");
	if (e && (size_t)atoll(e) < cap)
		cap = (size_t)atoll(e);
	return cap;
}

size_t gpu_chunk_capacity(const gpu_ctx *ctx, const keys_spec *layout)
{
	keys_spec s;
	return ctx && !to_spec(layout, &s) ? cap_of(ctx, &s, 0) : 0;
}

size_t gpu_merge_capacity(const gpu_ctx *ctx, const keys_spec *layout)
{
	keys_spec s;
	return ctx && !to_spec(layout, &s) ? cap_of(ctx, &s, 1) : 0;
}

/* Stable sort of n records at src into dst (may not overlap) by keys_compare. */
static const keys_spec *sort_spec;
static const unsigned char *sort_base;
static int cmp_idx(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b, R = sort_spec->record_size;
	int r = keys_compare(sort_spec, sort_base + x * R, sort_base + y * R);
	return r ? r : (x > y) - (x < y);
}

static int sort_records(const keys_spec *s, const unsigned char *src, unsigned char *dst, size_t n)
{
	size_t *idx = malloc((n ? n : 1) * sizeof *idx), R = s->record_size;
	if (!idx)
		return GPU_ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_spec = s;
	sort_base = src;
	qsort(idx, n, sizeof *idx, cmp_idx);
	for (size_t i = 0; i < n; i++)
		memcpy(dst + i * R, src + idx[i] * R, R);
	free(idx);
	return 0;
}

int gpu_sort_chunk(gpu_ctx *ctx, const keys_spec *layout, const void *in, void *out, size_t n,
		   gpu_stage_times *t)
{
	keys_spec s;
	if (t)
		memset(t, 0, sizeof *t);
	if (!ctx || to_spec(layout, &s))
		return GPU_EINVAL;
	if (n > cap_of(ctx, &s, 0))
		return fail(ctx, GPU_EINVAL, "gpu_sort_chunk: n exceeds the capacity");
	int f = injected(ctx, IO_FAULT_GPU_LAUNCH, "gpu_sort_chunk");
	if (f)
		return f;
	if (n * s.record_size > ctx->bytes)
		return fail(ctx, GPU_ENOMEM, "gpu_sort_chunk: too large");
	memcpy(ctx->arena, in, n * s.record_size);
	int r = sort_records(&s, ctx->arena, out, n);
	if (t && !r) {
		t->h2d = t->sort = t->d2h = 1e-6;
		t->passes = n > 1;
	}
	return r;
}

/* ---- the resident chunk ---- */

static void run_slot(gpu_ctx *c, int s)
{
	struct fslot *f = &c->slot[s];
	if (f->busy == 1)
		memcpy(c->arena + f->dev, f->host, f->bytes);
	else if (f->busy == 2)
		memcpy(f->host, c->arena + f->dev, f->bytes);
	f->busy = 0;
}

static struct fchunk *receiving(gpu_ctx *c)
{
	if (c->ch[c->head ^ 1].state == 1)
		return &c->ch[c->head ^ 1];
	return c->ch[c->head].state == 1 ? &c->ch[c->head] : NULL;
}

static struct fchunk *draining(gpu_ctx *c)
{
	return c->ch[c->head ^ 1].state ? &c->ch[c->head] : NULL;
}

static int begin(gpu_ctx *c, const keys_spec *layout, size_t n, int merge)
{
	keys_spec s;
	if (!c || to_spec(layout, &s))
		return GPU_EINVAL;
	if (n == 0 || n > cap_of(c, &s, merge))
		return fail(c, GPU_EINVAL, "begin: n is 0 or over the capacity");
	int i = c->head;
	struct fchunk *h = &c->ch[i];
	if (h->state) {
		if (h->state != 2 || c->ch[i ^ 1].state)
			return fail(c, GPU_EINVAL, "begin: a chunk receives, or two are held");
		if (h->merge != merge || !keys_layout_equal(&h->s, &s))
			return fail(c, GPU_EINVAL, "begin: another layout or kind beside the draining chunk");
		i ^= 1;
	}
	struct fchunk *k = &c->ch[i];
	memset(k, 0, sizeof *k);
	k->s = s;
	k->n = n;
	k->merge = merge;
	/* as area_of: key-only records first; general: elements (two for a
	 * merge) first, then the records in, then out; by the capacity */
	size_t cap = cap_of(c, &s, merge), pair = s.key_width <= 4 ? 8 : 16;
	k->d_in = s.key_only ? 256 : 256 + cap * pair * (merge ? 2 : 1);
	k->state = 1;
	return 0;
}

int gpu_resident_begin(gpu_ctx *ctx, const keys_spec *layout, size_t n)
{
	return begin(ctx, layout, n, 0);
}

int gpu_resident_begin_merge(gpu_ctx *ctx, const keys_spec *layout, size_t n)
{
	return begin(ctx, layout, n, 1);
}

int gpu_resident_trim(gpu_ctx *ctx, size_t m)
{
	struct fchunk *k = ctx ? receiving(ctx) : NULL;
	if (!k)
		return ctx ? fail(ctx, GPU_EINVAL, "trim: out of order") : GPU_EINVAL;
	if (m == 0 || m > k->n)
		return fail(ctx, GPU_EINVAL, "trim: m is 0 or over n");
	k->n = m;
	return 0;
}

static int range_ok(const struct fchunk *k, size_t first, size_t count, int slot, const void *host)
{
	return slot >= 0 && slot < GPU_SLOTS && host && first <= k->n && count <= k->n - first;
}

int gpu_resident_put(gpu_ctx *ctx, const void *host, size_t first, size_t count, int slot)
{
	struct fchunk *k = ctx ? receiving(ctx) : NULL;
	if (!k)
		return ctx ? fail(ctx, GPU_EINVAL, "put: out of order") : GPU_EINVAL;
	if (!range_ok(k, first, count, slot, host))
		return fail(ctx, GPU_EINVAL, "put: bad slot or range");
	if (!count)
		return 0;
	int fe = injected(ctx, IO_FAULT_GPU_COPY, "put");
	if (fe)
		return fe;
	run_slot(ctx, slot);
	size_t rs = k->s.record_size, lo = k->d_in + first * rs, hi = lo + count * rs;
	struct fchunk *old = draining(ctx);
	if (old) {
		size_t rlo = old->d_res, rhi = rlo + old->n * rs;
		if (lo < rhi && rlo < hi) {
			size_t b = hi < rhi ? (hi - rlo + rs - 1) / rs : old->n;
			if (b > old->got)
				return fail(ctx, GPU_EINVAL, "put: over sorted records not yet got");
			if (b > old->lost)
				old->lost = b;
		}
		/* the put waits for the gets that read what it overwrites */
		for (int s = 0; s < GPU_SLOTS; s++) {
			struct fslot *f = &ctx->slot[s];
			if (f->busy == 2 && &ctx->ch[f->owner] == old && f->dev < hi && lo < f->dev + f->bytes)
				run_slot(ctx, s);
		}
	}
	ctx->slot[slot] = (struct fslot){ 1, (int)(k - ctx->ch), (unsigned char *)host, lo, count * rs };
	return 0;
}

static int order(gpu_ctx *ctx, const size_t *seg, int nseg)
{
	struct fchunk *k = &ctx->ch[ctx->head];
	if (draining(ctx))
		return fail(ctx, GPU_EINVAL, "sort/merge: an older chunk is held");
	if (k->state != 1 || (seg && !k->merge))
		return fail(ctx, GPU_EINVAL, "sort/merge: no chunk begun (for a merge)");
	int m = 0;
	for (int i = 0; seg && i < nseg; i++) {
		size_t end = i + 1 < nseg ? seg[i + 1] : k->n;
		if ((i == 0 && seg[0]) || end < seg[i] || end > k->n)
			return fail(ctx, GPU_EINVAL, "merge: bad segments");
		m += end > seg[i];
	}
	for (int s = 0; s < GPU_SLOTS; s++)
		if (ctx->slot[s].busy == 1 && &ctx->ch[ctx->slot[s].owner] == k)
			run_slot(ctx, s); /* the sort waits for the puts */
	size_t rs = k->s.record_size, n = k->n, cap = cap_of(ctx, &k->s, k->merge);
	unsigned char *tmp = malloc(n * rs);
	if (!tmp)
		return fail(ctx, GPU_ENOMEM, "sort: out of host memory");
	memcpy(tmp, ctx->arena + k->d_in, n * rs);
	/* where the kernels leave the result: key-only sort in d_in; merge
	 * rounds ping-pong d_in/d_alt (none for one segment: d_in); general
	 * gathered into d_out, one segment left in d_in */
	int rounds = 0;
	while (seg && (1 << rounds) < m)
		rounds++;
	if (seg && m <= 1)
		k->d_res = k->d_in;
	else if (k->s.key_only)
		k->d_res = k->d_in + (rounds % 2 ? cap * rs : 0);
	else
		k->d_res = k->d_in + cap * rs;
	int r = sort_records(&k->s, tmp, ctx->arena + k->d_res, n);
	free(tmp);
	if (r)
		return fail(ctx, r, "sort: out of host memory");
	k->passes = n > 1;
	k->state = 2;
	return 0;
}

int gpu_resident_sort(gpu_ctx *ctx)
{
	if (!ctx)
		return GPU_EINVAL;
	int f = injected(ctx, IO_FAULT_GPU_LAUNCH, "sort");
	return f ? f : order(ctx, NULL, 0);
}

int gpu_resident_merge(gpu_ctx *ctx, const size_t *seg_start, int k)
{
	if (!ctx)
		return GPU_EINVAL;
	if (!seg_start || k < 1)
		return fail(ctx, GPU_EINVAL, "merge: no segments");
	int f = injected(ctx, IO_FAULT_GPU_LAUNCH, "merge");
	return f ? f : order(ctx, seg_start, k);
}

int gpu_resident_get(gpu_ctx *ctx, void *host, size_t first, size_t count, int slot)
{
	if (!ctx)
		return GPU_EINVAL;
	struct fchunk *k = &ctx->ch[ctx->head];
	if (k->state != 2)
		return fail(ctx, GPU_EINVAL, "get: out of order");
	if (!range_ok(k, first, count, slot, host))
		return fail(ctx, GPU_EINVAL, "get: bad slot or range");
	if (!count)
		return 0;
	if (first < k->lost)
		return fail(ctx, GPU_EINVAL, "get: records the newer chunk's puts may have overwritten");
	if (draining(ctx) && first > k->got)
		return fail(ctx, GPU_EINVAL, "get: out of record order while a newer chunk receives");
	int f = injected(ctx, IO_FAULT_GPU_COPY, "get");
	if (f)
		return f;
	run_slot(ctx, slot);
	size_t rs = k->s.record_size;
	ctx->slot[slot] = (struct fslot){ 2, ctx->head, host, k->d_res + first * rs, count * rs };
	if (first <= k->got && first + count > k->got)
		k->got = first + count;
	return 0;
}

int gpu_slot_wait(gpu_ctx *ctx, int slot)
{
	if (!ctx || slot < 0 || slot >= GPU_SLOTS)
		return GPU_EINVAL;
	int f = injected(ctx, IO_FAULT_GPU_SYNC, "gpu_slot_wait");
	if (f) {
		ctx->slot[slot].busy = 0; /* its copy never arrives */
		return f;
	}
	run_slot(ctx, slot);
	return 0;
}

int gpu_resident_end(gpu_ctx *ctx, gpu_stage_times *t)
{
	if (!ctx)
		return GPU_EINVAL;
	if (t)
		memset(t, 0, sizeof *t);
	int i = ctx->head;
	struct fchunk *k = &ctx->ch[i];
	/* failed, the chunk still ends (the ctx is reusable), but its copies
	 * in flight never arrive */
	int f = injected(ctx, IO_FAULT_GPU_SYNC, "gpu_resident_end");
	for (int s = 0; s < GPU_SLOTS; s++)
		if (ctx->slot[s].busy && ctx->slot[s].owner == i) {
			if (f)
				ctx->slot[s].busy = 0;
			else
				run_slot(ctx, s);
		}
	if (t && k->state == 2) {
		t->h2d = t->sort = t->d2h = 1e-6;
		t->passes = k->passes;
	}
	memset(k, 0, sizeof *k);
	if (ctx->ch[i ^ 1].state)
		ctx->head = i ^ 1;
	return f;
}

void *gpu_host_alloc(size_t bytes)
{
	return injected(NULL, IO_FAULT_GPU_ALLOC, "gpu_host_alloc") ? NULL : malloc(bytes ? bytes : 1);
}

void gpu_host_free(void *p)
{
	free(p);
}

int gpu_host_register(void *p, size_t bytes)
{
	if (!p || !bytes)
		return GPU_EINVAL;
	return injected(NULL, IO_FAULT_PIN, "gpu_host_register");
}

void gpu_host_unregister(void *p)
{
	(void)p;
}

/* ---- the sorters: one, named as the real build's first, sorting by
 * keys_compare (sort_records) ---- */

int gpu_sorter_count(void)
{
	return 1;
}

const char *gpu_sorter_name(int i)
{
	return i == 0 ? "bitonic" : NULL;
}

const char *gpu_sorter_source(int i)
{
	return i == 0 ? "fake GPU: a stable CPU sort standing in for the bitonic network" : NULL;
}

int gpu_set_sorter(gpu_ctx *ctx, int i)
{
	if (!ctx || i != 0)
		return ctx ? fail(ctx, GPU_EINVAL, "gpu_set_sorter: no such sorter") : GPU_EINVAL;
	if (ctx->ch[0].state || ctx->ch[1].state)
		return fail(ctx, GPU_EINVAL, "gpu_set_sorter: a device-resident chunk is held");
	return 0;
}
