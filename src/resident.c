/* resident.c - see resident.h. */
#define _GNU_SOURCE
#include "resident.h"
#include "util.h"
#include "../kernels/gpusort_kernels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PARTS 256

_Static_assert(RESIDENT_SLOTS == ENGINE_STAGES, "staging slots");

struct resident {
	engine *e;
	const keys_spec *s;
	io_file *in;
	int nin;
	uint64_t *base;       /* base[i]: stream offset (bytes) where input i starts; base[nin] = total */
	size_t per;           /* records per piece */
	uint8_t *stage[RESIDENT_SLOTS];
	int borrowed;         /* stage[] is the engine's (engine_staging_get), not ours to free */
	tpool *tp;
	/* the piece being read by the pool: records [first, first + count) into buf */
	uint8_t *buf;
	uint64_t first, count;
	int hash;
	verify_sum vs[MAX_PARTS];
	int err[MAX_PARTS], bad[MAX_PARTS];
};

int resident_open(resident **out, engine *e, const keys_spec *s, io_file *in, int nin, size_t piece_bytes,
		  tpool *tp)
{
	*out = NULL;
	size_t R = s->record_size;
	if (piece_bytes > RESIDENT_PIECE)
		piece_bytes = RESIDENT_PIECE;
	if (piece_bytes < RESIDENT_MIN_PIECE || piece_bytes < R || nin > 64 || tpool_size(tp) > MAX_PARTS)
		return 1;
	resident *r = calloc(1, sizeof *r);
	if (!r || !(r->base = calloc((size_t)nin + 1, sizeof *r->base))) {
		free(r);
		return -ENOMEM;
	}
	r->e = e;
	r->s = s;
	r->in = in;
	r->nin = nin;
	r->tp = tp;
	r->per = piece_bytes / R;
	for (int i = 0; i < nin; i++)
		r->base[i + 1] = r->base[i] + (in[i].size - in[i].pos);
	uint8_t *const *pre = engine_staging_get(e, r->per * R);
	for (int k = 0; k < RESIDENT_SLOTS; k++) {
		if (pre) {
			r->stage[k] = pre[k]; /* the engine's, faulted in during the CUDA start-up */
			continue;
		}
		if (!(r->stage[k] = gpu_host_alloc(r->per * R))) {
			resident_close(r);
			return 1; /* no pinned memory: sort another way */
		}
	}
	r->borrowed = pre != NULL;
	*out = r;
	return 0;
}

void resident_close(resident *r)
{
	if (!r)
		return;
	for (int k = 0; k < RESIDENT_SLOTS && !r->borrowed; k++)
		gpu_host_free(r->stage[k]);
	free(r->base);
	free(r);
}

/* Read stream bytes [lo, hi) (across input boundaries) into dst; 0 or -errno, *bad = input. */
static int read_range(const resident *r, uint64_t lo, uint64_t hi, uint8_t *dst, int *bad)
{
	int i = 0;
	while (lo < hi) {
		while (i + 1 < r->nin && r->base[i + 1] <= lo)
			i++;
		const io_file *f = &r->in[i];
		uint64_t end = r->base[i + 1] < hi ? r->base[i + 1] : hi;
		ssize_t n = pread(f->fd, dst, (size_t)(end - lo), (off_t)(f->pos + (lo - r->base[i])));
		if (n <= 0) {
			*bad = i;
			return n < 0 ? -errno : -ENODATA; /* ENODATA: the file shrank */
		}
		lo += (uint64_t)n;
		dst += n;
	}
	return 0;
}

static void read_part(void *arg, int t, int nt)
{
	resident *r = arg;
	size_t R = r->s->record_size, lo, hi;
	util_split((size_t)r->count, t, nt, &lo, &hi);
	uint64_t g = (r->first + lo) * R;
	r->err[t] = read_range(r, g, g + (hi - lo) * R, r->buf + lo * R, &r->bad[t]);
	if (!r->err[t] && r->hash)
		verify_add(&r->vs[t], r->buf + lo * R, hi - lo, R);
}

/* A failed GPU call: 1 (fall back) for out-of-memory before any output, else -1 with msg. */
static int gpu_err(resident *r, int rc, int consumed, const char *what, char *msg, size_t mlen)
{
	if (rc == GPU_ENOMEM && !consumed)
		return 1;
	snprintf(msg, mlen, "GPU sort failed: %s: %s (%s)", what, gpu_strerror(rc), gpu_last_error(r->e->gpu));
	return -1;
}

static uint64_t piece_len(const resident_chunk *c, uint64_t i, size_t per)
{
	uint64_t f = i * per;
	return c->n - f < per ? c->n - f : per;
}

/*
 * Fault injection for the tests: GPUSORT_FAULT=gpu-oom makes the device
 * refuse every chunk of more than 100000 records, as a GPU short of memory
 * would, so the tests can show the retry in smaller chunks.
 */
static int fault_gpu_oom(uint64_t n)
{
	const char *e = getenv("GPUSORT_FAULT");
	return e && !strcmp(e, "gpu-oom") && n > 100000;
}

int resident_sort_chunk(resident *r, resident_chunk *c, char *msg, size_t mlen)
{
	const size_t per = r->per;
	const uint64_t np = (c->n + per - 1) / per;
	gpu_ctx *g = r->e->gpu;
	verify_sum vin = { 0 };
	int ret, rc, consumed = 0;
	c->read_s = c->sort_s = 0;
	msg[0] = 0;
	if (fault_gpu_oom(c->n))
		return 1;
	if (c->seg && c->nseg < 1) {
		snprintf(msg, mlen, "resident: a merged chunk without segments");
		return -1;
	}
	if (c->seg)
		rc = gpu_resident_begin_merge(g, r->e->layout, (size_t)c->n);
	else
		rc = gpu_resident_begin(g, r->e->layout, (size_t)c->n);
	if (rc)
		return gpu_err(r, rc, 0, "begin", msg, mlen);
	/* in: all cores read piece i while piece i-1 is being copied */
	for (uint64_t i = 0; i < np; i++) {
		int k = (int)(i % RESIDENT_SLOTS);
		if ((rc = gpu_slot_wait(g, k))) {
			ret = gpu_err(r, rc, 0, "copy to the device", msg, mlen);
			goto out;
		}
		double t0 = util_now();
		r->buf = r->stage[k];
		r->first = c->first + i * per;
		r->count = piece_len(c, i, per);
		r->hash = c->vin != NULL;
		memset(r->err, 0, sizeof r->err);
		memset(r->vs, 0, sizeof r->vs);
		if (c->produce) {
			if ((rc = c->produce(c->parg, r->tp, r->buf, i * per, (size_t)r->count))) {
				snprintf(msg, mlen, "cannot fill the staging buffer: %s", strerror(-rc));
				ret = -1;
				goto out;
			}
		} else {
			tpool_run(r->tp, read_part, r);
		}
		for (int t = 0; t < tpool_size(r->tp); t++) {
			if (r->err[t]) {
				const io_file *f = &r->in[r->bad[t]];
				if (r->err[t] == -ENODATA)
					snprintf(msg, mlen, "%s: read error: the file shrank while being read", f->name);
				else
					snprintf(msg, mlen, "%s: read error: %s", f->name, strerror(-r->err[t]));
				ret = -1;
				goto out;
			}
			verify_merge(&vin, &r->vs[t]);
		}
		c->read_s += util_now() - t0;
		if ((rc = gpu_resident_put(g, r->stage[k], (size_t)(i * per), (size_t)r->count, k))) {
			ret = gpu_err(r, rc, 0, "copy to the device", msg, mlen);
			goto out;
		}
	}
	double t0 = util_now();
	if (c->seg) {
		size_t *seg = malloc((size_t)c->nseg * sizeof *seg);
		if (!seg) {
			snprintf(msg, mlen, "out of memory");
			ret = -1;
			goto out;
		}
		for (int i = 0; i < c->nseg; i++)
			seg[i] = (size_t)c->seg[i];
		rc = gpu_resident_merge(g, seg, c->nseg);
		free(seg);
	} else {
		rc = gpu_resident_sort(g);
	}
	if (rc) {
		ret = gpu_err(r, rc, 0, c->seg ? "merge" : "sort", msg, mlen);
		goto out;
	}
	/* out: pieces i+1..i+SLOTS-1 come back while piece i is consumed */
	for (uint64_t i = 0; i < np && i < RESIDENT_SLOTS; i++)
		if ((rc = gpu_resident_get(g, r->stage[i], (size_t)(i * per), (size_t)piece_len(c, i, per), (int)i))) {
			ret = gpu_err(r, rc, 0, "copy from the device", msg, mlen);
			goto out;
		}
	for (uint64_t i = 0; i < np; i++) {
		int k = (int)(i % RESIDENT_SLOTS);
		if ((rc = gpu_slot_wait(g, k))) {
			ret = gpu_err(r, rc, consumed, "copy from the device", msg, mlen);
			goto out;
		}
		if (i == 0)
			c->sort_s = util_now() - t0;
		consumed = 1;
		if (c->consume(c->arg, r->stage[k], (size_t)piece_len(c, i, per))) {
			ret = -1; /* the caller knows why */
			goto out;
		}
		uint64_t nx = i + RESIDENT_SLOTS;
		if (nx < np && (rc = gpu_resident_get(g, r->stage[k], (size_t)(nx * per), (size_t)piece_len(c, nx, per), k))) {
			ret = gpu_err(r, rc, 1, "copy from the device", msg, mlen);
			goto out;
		}
	}
	gpu_stage_times t;
	if ((rc = gpu_resident_end(g, &t)))
		return gpu_err(r, rc, 1, "finish", msg, mlen);
	r->e->h2d_s += t.h2d;
	r->e->dsort_s += t.sort;
	r->e->d2h_s += t.d2h;
	r->e->passes += t.passes;
	if (c->vin)
		verify_merge(c->vin, &vin);
	return 0;
out:
	gpu_resident_end(g, NULL);
	return ret;
}
