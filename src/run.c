/* run.c - spill checksums (xxHash's XXH3). */
#include "run.h"
#include "tpool.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static int ensure_state(run_hash *h)
{
	if (!h->state) {
		h->state = XXH3_createState();
		if (!h->state)
			return -ENOMEM;
		XXH3_64bits_reset(h->state);
	}
	return 0;
}

/* Room for `more` digests after the nh finished ones. 0 or -ENOMEM. */
static int run_hash_reserve(run_hash *h, size_t more)
{
	if (h->nh + more <= h->cap)
		return 0;
	size_t cap = h->cap ? h->cap : 64;
	while (cap < h->nh + more)
		cap *= 2;
	uint64_t *n = realloc(h->h, cap * sizeof *n);
	if (!n)
		return -ENOMEM;
	h->h = n;
	h->cap = cap;
	return 0;
}

/* Hash the next bytes of *p, up to the end of the current RUN_BLOCK block or
 * of the *len bytes; advances *p and *len past them. */
static void hash_some(run_hash *h, const uint8_t **p, size_t *len)
{
	size_t take = RUN_BLOCK - h->in_block;
	if (take > *len)
		take = *len;
	XXH3_64bits_update(h->state, *p, take);
	h->in_block += take;
	*p += take;
	*len -= take;
}

int run_hash_add(run_hash *h, const void *p, size_t len)
{
	const uint8_t *b = p;
	if (ensure_state(h))
		return -ENOMEM;
	while (len) {
		hash_some(h, &b, &len);
		if (h->in_block == RUN_BLOCK && run_hash_end(h))
			return -ENOMEM;
	}
	return 0;
}

/* The full blocks of a run_hash_add_par step, split among the pool's parts. */
struct par_blocks {
	uint8_t *dst;
	const uint8_t *src;
	uint64_t *digest; /* [nblocks] */
	size_t nblocks;
};

static void par_part(void *arg, int t, int n)
{
	struct par_blocks *pb = arg;
	size_t lo = pb->nblocks * (size_t)t / (size_t)n, hi = pb->nblocks * ((size_t)t + 1) / (size_t)n;
	for (size_t i = lo; i < hi; i++) {
		const uint8_t *b = pb->src + i * (size_t)RUN_BLOCK;
		pb->digest[i] = XXH3_64bits(b, RUN_BLOCK); /* the streaming digest of the same bytes */
		if (pb->dst)
			memcpy(pb->dst + i * (size_t)RUN_BLOCK, b, RUN_BLOCK);
	}
}

int run_hash_add_par(run_hash *h, tpool *tp, void *dst, const void *src, size_t len)
{
	const uint8_t *b = src;
	uint8_t *d = dst;
	/* the current block's rest, then whole blocks on every thread, then
	 * the start of the next block */
	size_t head = h->in_block ? RUN_BLOCK - h->in_block : 0;
	if (head > len)
		head = len;
	struct par_blocks pb = { d ? d + head : NULL, b + head, NULL, (len - head) / RUN_BLOCK };
	size_t whole = pb.nblocks * (size_t)RUN_BLOCK, tail = len - head - whole;
	if (run_hash_add(h, b, head) || run_hash_reserve(h, pb.nblocks))
		return -ENOMEM;
	if (d)
		memcpy(d, b, head);
	if (pb.nblocks) {
		pb.digest = h->h + h->nh;
		if (tp && tpool_size(tp) > 1 && pb.nblocks > 1)
			tpool_run(tp, par_part, &pb);
		else
			par_part(&pb, 0, 1);
		h->nh += pb.nblocks;
	}
	if (d)
		memcpy(d + head + whole, b + head + whole, tail);
	return run_hash_add(h, b + head + whole, tail);
}

int run_hash_end(run_hash *h)
{
	if (!h->in_block)
		return 0;
	if (run_hash_reserve(h, 1))
		return -ENOMEM;
	h->h[h->nh++] = XXH3_64bits_digest(h->state);
	XXH3_64bits_reset(h->state);
	h->in_block = 0;
	return 0;
}

void run_hash_reset_reader(run_hash *h)
{
	h->checked = 0;
	h->in_block = 0;
	if (h->state)
		XXH3_64bits_reset(h->state);
}

int run_hash_check(run_hash *h, const void *p, size_t len, int final, size_t *bad)
{
	const uint8_t *b = p;
	if (ensure_state(h))
		return -ENOMEM;
	for (;;) {
		hash_some(h, &b, &len);
		if (h->in_block == RUN_BLOCK || (final && !len && h->in_block)) {
			if (h->checked >= h->nh || XXH3_64bits_digest(h->state) != h->h[h->checked]) {
				*bad = h->checked;
				return -EBADMSG;
			}
			h->checked++;
			h->in_block = 0;
			XXH3_64bits_reset(h->state);
		}
		if (!len)
			break;
	}
	if (final && h->checked != h->nh) {
		*bad = h->checked;
		return -EBADMSG;
	}
	return 0;
}

void run_hash_free(run_hash *h)
{
	if (h->state)
		XXH3_freeState(h->state);
	free(h->h);
	memset(h, 0, sizeof *h);
}

int run_sample_start(run *r, size_t R)
{
	uint64_t every = r->n / RUN_SAMPLES, most = RUN_BLOCK / R;
	if (every > most)
		every = most;
	if (every < 1)
		every = 1;
	r->sample_every = every;
	r->nsample = 0;
	free(r->sample);
	r->sample = r->n ? malloc((size_t)((r->n + every - 1) / every) * R) : NULL;
	return r->n && !r->sample ? -ENOMEM : 0;
}

void run_sample_add(run *r, const uint8_t *recs, uint64_t first, size_t n, size_t R)
{
	if (!r->sample)
		return;
	uint64_t e = r->sample_every, at = (first + e - 1) / e * e;
	for (; at < first + n; at += e)
		memcpy(r->sample + (r->nsample++) * R, recs + (at - first) * R, R);
}

int run_check_read(run *r, size_t R, uint64_t off, void *buf, size_t got, size_t *bad)
{
	if (io_fault_is("corrupt-spill") && got > 0)
		((uint8_t *)buf)[got / 2] ^= 0x20; /* as a failing disk would: the checksums must catch it */
	int final = off + got == r->off + r->n * R;
	return run_hash_check(&r->hash, buf, got, final, bad);
}
