/*
 * pool.h - the chunked path's record buffers: at most max of `bytes` bytes
 * each, allocated on first need, page-locked for the GPU's DMA once (at the
 * first use, or with pin_reused the second) and reused for every chunk (DESIGN.md section 6); the buffers of spill writes in
 * flight are recycled, oldest first, when none is free.
 */
#ifndef GPUSORT_POOL_H
#define GPUSORT_POOL_H
#include "jobctx.h"

/*
 * The pool's buffers registered with the reader's and the writer's rings as
 * fixed buffers (io_ring_register). A ring belongs to its worker's thread, so
 * registering is a CALL job on that worker: it runs between the worker's
 * transfers, in queue order (a transfer queued before it just goes unfixed).
 * Each new buffer registers the whole pool again (unchanged ones keep their
 * pinning); one request per worker is in flight, the next waits for it
 * (behind at most the transfer then in progress). Buffers are freed, and kept
 * runs' buffers released, only after io_worker_stop, which unregisters.
 * Failure leaves the transfers unfixed (--stats says why).
 */
struct pool_fixreg {
	io_worker *w;           /* NULL: this worker's ring gets no registration */
	io_job job;
	int pending;
	void *bufs[8];
	size_t lens[8];
	int n;
};

typedef struct pool {
	uint8_t *buf[8];
	int pinned[8];
	int nbuf, max;
	uint8_t *free[8];
	int nfree;
	size_t bytes;           /* per buffer */
	int pin_reused;         /* page-lock a buffer only when it is taken again: when
				 * most are handed to kept runs (pool_detach), each used
				 * once, pinning them would cost more than it saves */
	io_job wjob[8];         /* pending spill writes: a ring, oldest at wh */
	uint8_t *wbuf[8];       /* (jobs never move: the worker links them) */
	int wh, nw;
	struct pool_fixreg fx[2];    /* the reader's and the writer's registrations */
} pool;

/*
 * A buffer: a free one, a new one while fewer than p->max exist (pinned and
 * registered), or the oldest spilled one once its write is done. NULL with
 * c->r filled when none can be had (out of memory, or that write failed).
 */
uint8_t *pool_take(job_ctx *c, pool *p, io_worker *writer);
/* b is free again. */
void pool_give(pool *p, uint8_t *b);
/* A kept run owns its buffer b: it leaves the pool. Returns whether it was pinned. */
int pool_detach(pool *p, uint8_t *b);
/*
 * Register the pool's buffers with worker w's ring from now on (fx[i], i: 0
 * the reader, 1 the writer), at once for those that exist: for a worker
 * whose use is known only later (the writer, at the first spill), so that a
 * job that never spills never pins chunk-sized buffers (pinning faults in
 * every page: ~1.5 s of system time for 2 x 1.5 GiB on the 2-core VM).
 */
void pool_fix(pool *p, int i, io_worker *w);
/* Free every buffer (unpinning them); call after both workers stopped. */
void pool_release(job_ctx *c, pool *p);

#endif
