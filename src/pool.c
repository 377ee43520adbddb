/* pool.c - see pool.h. */
#include "pool.h"
#include "runlist.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static ssize_t fixreg_call(io_job *j, io_ring *ring)
{
	struct pool_fixreg *f = j->arg;
	return io_ring_register(ring, f->bufs, f->lens, f->n);
}

/* (Re-)register the pool's buffers with worker i's ring (when it has one). */
static void fix_one(pool *p, int i)
{
	struct pool_fixreg *f = &p->fx[i];
	if (!f->w)
		return;
	if (f->pending)
		io_worker_wait(f->w, &f->job);
	f->n = p->nbuf;
	for (int b = 0; b < p->nbuf; b++) {
		f->bufs[b] = p->buf[b];
		f->lens[b] = p->bytes;
	}
	f->job = (io_job){ .op = IO_JOB_CALL, .call = fixreg_call, .arg = f };
	io_worker_submit(f->w, &f->job);
	f->pending = 1;
}

static void pool_register(pool *p)
{
	fix_one(p, 0);
	fix_one(p, 1);
}

void pool_fix(pool *p, int i, io_worker *w)
{
	p->fx[i].w = w;
	if (p->nbuf)
		fix_one(p, i);
}

/* b, taken again: pinned now when pin_reused left it unpinned at first. */
static uint8_t *reused(job_ctx *c, pool *p, uint8_t *b)
{
	for (int i = 0; p->pin_reused && i < p->nbuf; i++)
		if (p->buf[i] == b && !p->pinned[i])
			p->pinned[i] = engine_pin(&c->eng, b, p->bytes);
	return b;
}

uint8_t *pool_take(job_ctx *c, pool *p, io_worker *writer)
{
	if (p->nfree)
		return reused(c, p, p->free[--p->nfree]);
	if (p->nbuf < p->max) {
		/* huge pages: the chunk buffers are pinned for the GPU's DMA and
		 * held to the end, and pinning, unpinning and freeing them walks
		 * every page (4 KiB pages: seconds for tens of GiB) */
		uint8_t *b = p->bytes >= ((size_t)2 << 20) ? util_alloc_huge(p->bytes) : util_alloc_aligned(p->bytes, IO_ALIGN);
		if (b) {
			/* pinned once, reused for every chunk (DESIGN.md section 6) */
			p->pinned[p->nbuf] = !p->pin_reused && engine_pin(&c->eng, b, p->bytes);
			p->buf[p->nbuf++] = b;
			pool_register(p);
			return b;
		}
	}
	if (p->nw) { /* recycle the oldest spilled buffer */
		io_job *oldest = &p->wjob[p->wh];
		ssize_t rc = io_worker_wait(writer, oldest);
		uint8_t *b = p->wbuf[p->wh];
		p->wh = (p->wh + 1) % 8;
		p->nw--;
		if (rc < 0) {
			runlist_write_failed(c, oldest->f, (int)rc);
			return NULL;
		}
		if (runlist_spill_close(c, oldest->arg)) /* its compressor, when it has one */
			return NULL;
		return reused(c, p, b);
	}
	job_fail(c, "out of memory (buffers of %zu bytes; try a smaller -S)", p->bytes);
	return NULL;
}

void pool_give(pool *p, uint8_t *b)
{
	p->free[p->nfree++] = b;
}

int pool_detach(pool *p, uint8_t *b)
{
	for (int i = 0; i < p->nbuf; i++)
		if (p->buf[i] == b) {
			int pinned = p->pinned[i];
			p->nbuf--;
			p->buf[i] = p->buf[p->nbuf];
			p->pinned[i] = p->pinned[p->nbuf];
			return pinned;
		}
	return 0;
}

void pool_release(job_ctx *c, pool *p)
{
	for (int i = 0; i < p->nbuf; i++) {
		if (p->pinned[i])
			engine_unpin(&c->eng, p->buf[i]);
		free(p->buf[i]);
	}
	p->nbuf = 0;
}
