/* resident.c - see resident.h. */
#define _GNU_SOURCE
#include "resident.h"
#include "readall.h"
#include "util.h"
#include "../io/io_fault.h"
#include "../kernels/gpusort_kernels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTS 256

_Static_assert(RESIDENT_SLOTS == ENGINE_STAGES, "staging slots");
/* staging buffer k is put on GPU slot k and got on slot RESIDENT_SLOTS + k:
 * each direction has slots of its own */
_Static_assert(2 * RESIDENT_SLOTS <= GPU_SLOTS, "GPU slots per direction");

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
	int last[RESIDENT_SLOTS]; /* GPU slot of each staging buffer's latest copy, or -1 */
	/* the prefetched chunk: begun on the device while the previous one
	 * drained (resident_sort_chunk's next), the device's current chunk
	 * between calls */
	int pre_on;
	resident_chunk pre;       /* a copy of the caller's next */
	uint64_t pre_put;         /* its pieces [0, pre_put) are on the device */
	verify_sum pre_vin;       /* their hash: counted when the chunk is sorted */
	double pre_read_s;
	int faulted;              /* the gpu-oom-prefetched fault (io_fault.h) refused a chunk already */
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
	readall_bases(in, nin, r->base);
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
	for (int k = 0; k < RESIDENT_SLOTS; k++)
		r->last[k] = -1;
	*out = r;
	return 0;
}

/* End the prefetched chunk on the device (its copies finish first) and forget it and its hash. */
static void drop_prefetch(resident *r)
{
	if (!r->pre_on)
		return;
	(void)gpu_resident_end(r->e->gpu, NULL); /* it is the device's current chunk between calls */
	r->pre_on = 0;
	for (int k = 0; k < RESIDENT_SLOTS; k++)
		r->last[k] = -1;
}

void resident_close(resident *r)
{
	if (!r)
		return;
	drop_prefetch(r); /* before the staging its copies read goes */
	for (int k = 0; k < RESIDENT_SLOTS && !r->borrowed; k++)
		gpu_host_free(r->stage[k]);
	free(r->base);
	free(r);
}

static void read_part(void *arg, int t, int nt)
{
	resident *r = arg;
	size_t R = r->s->record_size, lo, hi;
	util_split((size_t)r->count, t, nt, &lo, &hi);
	uint64_t g = (r->first + lo) * R;
	r->err[t] = readall_pread(r->in, r->nin, r->base, g, g + (hi - lo) * R, r->buf + lo * R, &r->bad[t]);
	if (!r->err[t] && r->hash)
		verify_add(&r->vs[t], r->buf + lo * R, hi - lo, R);
}

/* A failed GPU call: 1 (retry smaller) for out-of-memory before any output,
 * else RESIDENT_GPU_FAILED with msg. */
static int gpu_err(resident *r, int rc, int consumed, const char *what, char *msg, size_t mlen)
{
	if (rc == GPU_ENOMEM && !consumed)
		return 1;
	snprintf(msg, mlen, "GPU sort failed: %s: %s (%s)", what, gpu_strerror(rc), gpu_last_error(r->e->gpu));
	return RESIDENT_GPU_FAILED;
}

static uint64_t piece_len(const resident_chunk *c, uint64_t i, size_t per)
{
	uint64_t f = i * per;
	return c->n - f < per ? c->n - f : per;
}

/*
 * The test build's faults (io_fault.h): gpu-oom refuses every chunk of more
 * than 100000 records, as a GPU short of memory would, to show the retry in
 * smaller chunks; gpu-oom-prefetched (resident_sort_chunk) refuses, once,
 * the first prefetched chunk after all its pieces are on the device, to show
 * that it is thrown away (ended on the device, its --verify hash not
 * counted) and retried.
 */
static int fault_gpu_oom(uint64_t n)
{
	return io_fault_is("gpu-oom") && n > 100000;
}

/* Wait for staging buffer k's latest copy: it may be refilled or read. 0 or a GPU_E* code. */
static int stage_wait(resident *r, int k)
{
	if (r->last[k] < 0)
		return 0;
	int rc = gpu_slot_wait(r->e->gpu, r->last[k]);
	if (!rc)
		r->last[k] = -1;
	return rc;
}

/*
 * Read piece i of chunk c into staging buffer k (the pool's threads, or
 * c->produce), hashing it into *vin when c->vin is set and adding the
 * seconds to *read_s. 0, or -1 with msg set (a read error names the input).
 */
static int read_piece(resident *r, const resident_chunk *c, uint64_t i, int k, verify_sum *vin, double *read_s,
		      char *msg, size_t mlen)
{
	double t0 = util_now();
	int rc;
	r->buf = r->stage[k];
	r->first = c->first + i * r->per;
	r->count = piece_len(c, i, r->per);
	r->hash = c->vin != NULL;
	memset(r->err, 0, sizeof r->err);
	memset(r->vs, 0, sizeof r->vs);
	if (c->produce) {
		if ((rc = c->produce(c->parg, r->tp, r->buf, i * r->per, (size_t)r->count))) {
			snprintf(msg, mlen, "cannot fill the staging buffer: %s", strerror(-rc));
			return -1;
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
			return -1;
		}
		verify_merge(vin, &r->vs[t]);
	}
	*read_s += util_now() - t0;
	return 0;
}

/* Read piece i of c into staging buffer k (once its last copy is done) and
 * put it on GPU slot k. 0, or gpu_err's 1 or -1 (consumed: whether the
 * chunk being sorted has been consumed in part), or -1 with msg set. */
static int put_piece(resident *r, const resident_chunk *c, uint64_t i, int k, verify_sum *vin, double *read_s,
		     int consumed, char *msg, size_t mlen)
{
	int rc = stage_wait(r, k);
	if (!rc) {
		if (read_piece(r, c, i, k, vin, read_s, msg, mlen))
			return -1;
		rc = gpu_resident_put(r->e->gpu, r->stage[k], (size_t)(i * r->per), (size_t)r->count, k);
	}
	if (rc)
		return gpu_err(r, rc, consumed, "copy to the device", msg, mlen);
	r->last[k] = k;
	return 0;
}

/*
 * Read piece i of stream chunk c (a piece of records, fewer where the input
 * ends: *ended) into staging buffer k once its last copy is done, and put
 * what came on GPU slot k, counting it in *got. 0, gpu_err's codes, or -1
 * with msg empty (the stream failed: the caller knows why).
 */
static int put_stream_piece(resident *r, const resident_chunk *c, uint64_t i, int k, uint64_t *got, int *ended,
			    double *read_s, char *msg, size_t mlen)
{
	int rc = stage_wait(r, k);
	if (rc)
		return gpu_err(r, rc, 0, "copy to the device", msg, mlen);
	uint64_t want = piece_len(c, i, r->per);
	double t0 = util_now();
	ssize_t m = c->stream(c->sarg, r->stage[k], (size_t)want);
	*read_s += util_now() - t0;
	if (m < 0)
		return -1;
	if ((uint64_t)m < want)
		*ended = 1;
	if (m == 0)
		return 0;
	if ((rc = gpu_resident_put(r->e->gpu, r->stage[k], (size_t)(i * r->per), (size_t)m, k)))
		return gpu_err(r, rc, 0, "copy to the device", msg, mlen);
	r->last[k] = k;
	*got += (uint64_t)m;
	return 0;
}

/*
 * Fill stream chunk c (begun at its most records) from its stream, then
 * trim it to what came and tell placed. 0 (c->n what came, c->ended set;
 * c->n == 0: nothing came, the chunk is to be ended unsorted), or as
 * put_stream_piece, or -1 with msg empty (placed failed).
 */
static int fill_stream_chunk(resident *r, resident_chunk *c, double *read_s, char *msg, size_t mlen)
{
	const size_t per = r->per;
	const uint64_t np = (c->n + per - 1) / per;
	uint64_t got = 0;
	int ended = 0, rc;
	for (uint64_t i = 0; !ended && i < np; i++)
		if ((rc = put_stream_piece(r, c, i, (int)(i % RESIDENT_SLOTS), &got, &ended, read_s, msg, mlen)))
			return rc;
	c->ended = ended;
	if (got && got < c->n && (rc = gpu_resident_trim(r->e->gpu, (size_t)got)))
		return gpu_err(r, rc, 0, "trim", msg, mlen);
	c->n = got;
	return got && c->placed(c->arg, got, ended) ? -1 : 0;
}

/* Issue the get of sorted piece i of c into staging buffer k (once its last
 * copy is done), on GPU slot RESIDENT_SLOTS + k. 0 or a GPU_E* code. */
static int get_piece(resident *r, const resident_chunk *c, uint64_t i, int k)
{
	int rc = stage_wait(r, k);
	if (!rc)
		rc = gpu_resident_get(r->e->gpu, r->stage[k], (size_t)(i * r->per), (size_t)piece_len(c, i, r->per),
				      RESIDENT_SLOTS + k);
	if (!rc)
		r->last[k] = RESIDENT_SLOTS + k;
	return rc;
}

static int begin_chunk(resident *r, const resident_chunk *c)
{
	if (c->seg)
		return gpu_resident_begin_merge(r->e->gpu, r->e->s, (size_t)c->n);
	return gpu_resident_begin(r->e->gpu, r->e->s, (size_t)c->n);
}

/* Is c the chunk prefetched as r->pre? (The caller's next, described again.) */
static int is_prefetched(const resident *r, const resident_chunk *c)
{
	const resident_chunk *p = &r->pre;
	return r->pre_on && !c->stream && p->first == c->first && p->n == c->n && p->produce == c->produce && p->parg == c->parg &&
	       p->seg == c->seg && p->nseg == c->nseg && !p->vin == !c->vin;
}

/*
 * Begin next on the device beside the sorted chunk now draining, to be
 * prefetched. 0, or 1 when it is not to be (nothing begun): the device
 * refuses it (GPUSORT_FAULT=gpu-oom too), which the call that sorts it
 * finds out and reports.
 */
static int begin_prefetch(resident *r, const resident_chunk *next)
{
	if (fault_gpu_oom(next->n) || (next->seg && next->nseg < 1) || begin_chunk(r, next))
		return 1;
	r->pre = *next;
	r->pre_put = 0;
	memset(&r->pre_vin, 0, sizeof r->pre_vin);
	r->pre_read_s = 0;
	return 0;
}

/* Sort or merge the device's current chunk c: 0, a GPU_E* code (*what
 * names the step), or 1 with msg set (no host memory). */
static int order(resident *r, const resident_chunk *c, const char **what, char *msg, size_t mlen)
{
	gpu_ctx *g = r->e->gpu;
	*what = c->seg ? "merge" : "sort";
	if (io_fault_is(c->seg ? "gpu-fail-merge" : "gpu-fail"))
		return GPU_ECUDA; /* as a failed launch would (test build) */
	if (!c->seg)
		return gpu_resident_sort(g);
	size_t *seg = malloc((size_t)c->nseg * sizeof *seg);
	if (!seg) {
		snprintf(msg, mlen, "out of memory");
		return 1; /* not a GPU code: the caller sees msg */
	}
	for (int i = 0; i < c->nseg; i++)
		seg[i] = (size_t)c->seg[i];
	int rc = gpu_resident_merge(g, seg, c->nseg);
	free(seg);
	return rc;
}

int resident_sort_chunk(resident *r, resident_chunk *c, const resident_chunk *next, char *msg, size_t mlen)
{
	const size_t per = r->per;
	uint64_t np = (c->n + per - 1) / per;
	gpu_ctx *g = r->e->gpu;
	verify_sum vin = { 0 };
	int ret, rc, consumed = 0, held = 0, pf = 0, was_pre = 0;
	uint64_t i0 = 0;
	const char *what;
	c->read_s = c->sort_s = 0;
	msg[0] = 0;
	if (c->stream) {
		next = NULL;
		c->ended = 0;
	}
	if (is_prefetched(r, c)) {
		/* its first pieces went in while the previous chunk drained; the
		 * previous chunk's end left it the device's current chunk */
		was_pre = held = 1;
		i0 = r->pre_put;
		vin = r->pre_vin;
		c->read_s = r->pre_read_s;
		r->pre_on = 0;
	} else {
		drop_prefetch(r);
		if (fault_gpu_oom(c->n))
			return 1;
		if (c->seg && c->nseg < 1) {
			snprintf(msg, mlen, "resident: a merged chunk without segments");
			return -1;
		}
		if ((rc = begin_chunk(r, c)))
			return gpu_err(r, rc, 0, "begin", msg, mlen);
		held = 1;
	}
	if (c->stream) {
		/* one thread reads the stream piece i while piece i-1 is being copied */
		if ((ret = fill_stream_chunk(r, c, &c->read_s, msg, mlen)))
			goto out;
		if (!c->n) {
			held = 0;
			for (int k = 0; k < RESIDENT_SLOTS; k++)
				r->last[k] = -1; /* the end waits for every copy */
			if ((rc = gpu_resident_end(g, NULL)))
				return gpu_err(r, rc, 0, "finish", msg, mlen);
			return 0;
		}
		np = (c->n + per - 1) / per;
	}
	/* in: all cores read piece i while piece i-1 is being copied */
	for (uint64_t i = i0; !c->stream && i < np; i++)
		if ((ret = put_piece(r, c, i, (int)(i % RESIDENT_SLOTS), &vin, &c->read_s, 0, msg, mlen)))
			goto out;
	if (was_pre && io_fault_is("gpu-oom-prefetched") && !r->faulted) {
		r->faulted = 1;
		ret = 1; /* as if its sort ran out of device memory */
		goto out;
	}
	double t0 = util_now();
	if ((rc = order(r, c, &what, msg, mlen))) {
		ret = rc == 1 ? -1 : gpu_err(r, rc, 0, what, msg, mlen);
		goto out;
	}
	/* out: c's pieces i+1..i+nd-1 come back while piece i is consumed; with
	 * a next chunk, half the staging brings c back (buffers 0..nd-1) and
	 * half takes next's pieces to the device (nd..RESIDENT_SLOTS-1), one
	 * after each piece of c: piece q of next goes where c's piece q was (for
	 * key-only records the very same device memory), whose get is done by
	 * then */
	int nd = RESIDENT_SLOTS;
	uint64_t nq = 0, q = 0;
	if (next && !begin_prefetch(r, next)) {
		pf = 1;
		held = 2;
		nd = RESIDENT_SLOTS / 2;
		nq = (next->n + per - 1) / per;
	}
	for (uint64_t i = 0; i < np && i < (uint64_t)nd; i++)
		if ((rc = get_piece(r, c, i, (int)i))) {
			ret = gpu_err(r, rc, 0, "copy from the device", msg, mlen);
			goto out;
		}
	for (uint64_t i = 0; i < np; i++) {
		int k = (int)(i % (uint64_t)nd);
		if ((rc = stage_wait(r, k))) {
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
		uint64_t nx = i + (uint64_t)nd;
		if (nx < np && (rc = get_piece(r, c, nx, k))) {
			ret = gpu_err(r, rc, 1, "copy from the device", msg, mlen);
			goto out;
		}
		if (pf && q < nq) {
			int h = nd + (int)(q % (uint64_t)(RESIDENT_SLOTS - nd));
			if ((ret = put_piece(r, next, q, h, &r->pre_vin, &r->pre_read_s, 1, msg, mlen)))
				goto out;
			r->pre_put = ++q;
		}
	}
	gpu_stage_times t;
	held--; /* the end ends c (a prefetched next becomes current), or fails: then both go */
	if ((rc = gpu_resident_end(g, &t))) {
		ret = gpu_err(r, rc, 1, "finish", msg, mlen);
		goto out;
	}
	r->e->h2d_s += t.h2d;
	r->e->dsort_s += t.sort;
	r->e->d2h_s += t.d2h;
	r->e->passes += t.passes;
	r->e->gpu_overlapped += (uint64_t)was_pre;
	if (c->vin)
		verify_merge(c->vin, &vin);
	r->pre_on = pf;
	return 0;
out:
	while (held-- > 0)
		gpu_resident_end(g, NULL);
	for (int k = 0; k < RESIDENT_SLOTS; k++)
		r->last[k] = -1; /* every copy is done: the ends waited */
	r->pre_on = 0;
	return ret;
}
