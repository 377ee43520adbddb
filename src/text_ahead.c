/* text_ahead.c - the merge's sources read ahead by helper threads (text_ahead.h). */
#include "text_ahead.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef text_ahead_line ahead_line;

typedef struct block {
	uint8_t *bytes;        /* copied lines, each with its delimiter (a reader's line lives only until its next call) */
	size_t cap, used;
	uint64_t out;          /* bytes of the block's lines, delimiters counted */
	ahead_line *l;
	size_t n, lcap, pos;   /* lines, room, the next one to hand out */
	int rc;                /* after the lines: 0 more to come, 1 the source's end, -errno */
} block;

typedef struct feed {
	block b[2];
	int cur;               /* the block being handed out; the other is filled or full */
	int state;             /* the other block: 0 idle, 1 queued or being filled, 2 filled */
} feed;

struct text_ahead {
	const text_spec *s;
	text_source *src;
	int k, nthreads;
	size_t blockbytes;
	feed *f;
	int *queue, qhead, qn; /* sources whose other block is to be filled, a ring of k */
	int stop;
	double busy;           /* the helpers' seconds in fill, summed (under mu) */
	pthread_mutex_t mu;
	pthread_cond_t work, ready;
	pthread_t *tid;
};

/* Where source x's lines stay put (a mapped run, a chunk in memory), so a
 * block keeps their places, not copies; NULL: they are copied into the block. */
static const uint8_t *stable_base(const text_source *x)
{
	return x->r ? x->r->map : x->c->buf;
}

/* The most lines a block holds (fill): a block's bytes of entries, twice
 * that for lines that stay put. */
static size_t max_lines(size_t blockbytes, int stable)
{
	return (stable ? 2 : 1) * blockbytes / sizeof(ahead_line) + 1;
}

/* A block's room for copied lines: its bytes and the line that crosses its end. */
static size_t copy_room(size_t blockbytes)
{
	return blockbytes + blockbytes / 8 + 4096;
}

size_t text_ahead_source_bytes(size_t bytes, int stable)
{
	size_t b = bytes ? bytes : 1;
	return 2 * (max_lines(b, stable) * sizeof(ahead_line) + (stable ? 0 : copy_room(b)));
}

/* Fill block b with source x's next lines, or to its end or error: about
 * a block's bytes of copied lines, and no more lines than a block's bytes
 * of line entries (short lines: the entries would take 5 times their
 * bytes); of lines that stay put, as many as the block's bytes would hold
 * line entries twice over (the memory a block of copies takes with its
 * entries), or 4 blocks' bytes of them, whichever comes first: larger
 * rounds of the merge for the same memory. Its arrays are sized for that
 * at once, not grown by doubling, so that text_ahead_source_bytes bounds
 * them (but for a line longer than an eighth of a block, which gets room
 * of its size), and mapped apart (util_map_resize): filled on the helper
 * threads, from malloc they would stay in each thread's arena once freed,
 * beside the next merge's blocks (34 MB under -S 16M on 16 threads). */
static void fill(text_ahead *a, text_source *x, block *b)
{
	b->n = b->used = b->pos = 0;
	b->out = 0;
	b->rc = 0;
	const uint8_t *sb = stable_base(x);
	size_t maxbytes = sb ? 4 * a->blockbytes : a->blockbytes;
	size_t maxlines = max_lines(a->blockbytes, sb != NULL);
	if (b->lcap < maxlines) {
		ahead_line *l = util_map_resize(b->l, b->lcap * sizeof *l, maxlines * sizeof *l);
		if (!l) {
			b->rc = -ENOMEM;
			return;
		}
		b->l = l, b->lcap = maxlines;
	}
	if (!sb && b->cap < copy_room(a->blockbytes)) {
		uint8_t *p = util_map_resize(b->bytes, b->cap, copy_room(a->blockbytes));
		if (!p) {
			b->rc = -ENOMEM;
			return;
		}
		b->bytes = p, b->cap = copy_room(a->blockbytes);
	}
	while (b->used < maxbytes && b->n < maxlines) {
		const uint8_t *line;
		size_t len;
		int rc;
		uint64_t off;
		if (x->r) {
			rc = text_reader_next(x->r, &line, &len);
		} else if (x->pos < x->c->n) {
			uint32_t i = x->order[x->pos++];
			line = x->c->buf + x->c->start[i];
			len = (size_t)(x->c->start[i + 1] - x->c->start[i] - 1);
			rc = 1;
		} else {
			rc = 0;
		}
		if (rc <= 0) {
			b->rc = rc ? rc : 1;
			return;
		}
		if (x->r && !sb) {
			if (b->used + len + 1 > b->cap) {
				size_t cap = b->used + len + 1; /* a long line: the loop ends after it */
				uint8_t *p = util_map_resize(b->bytes, b->cap, cap);
				if (!p) {
					b->rc = -ENOMEM;
					return;
				}
				b->bytes = p, b->cap = cap;
			}
			memcpy(b->bytes + b->used, line, len);
			b->bytes[b->used + len] = a->s->eol;
			off = b->used;
			b->used += len + 1;
		} else {
			off = (uint64_t)(line - sb);
			b->used += len + 1;
		}
		ahead_line *e = &b->l[b->n++];
		e->off = off, e->len = len, e->cum = b->out;
		b->out += len + 1;
		text_merge_prefix(a->s, line, len, &e->ph, &e->pl);
	}
}

static void *helper(void *arg)
{
	text_ahead *a = arg;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->qn && !a->stop)
			pthread_cond_wait(&a->work, &a->mu);
		if (a->stop)
			break;
		int i = a->queue[a->qhead];
		a->qhead = (a->qhead + 1) % a->k;
		a->qn--;
		feed *f = &a->f[i];
		pthread_mutex_unlock(&a->mu);
		double t0 = util_now();
		fill(a, &a->src[i], &f->b[!f->cur]);
		double dt = util_now() - t0;
		pthread_mutex_lock(&a->mu);
		a->busy += dt;
		f->state = 2;
		pthread_cond_broadcast(&a->ready);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* Queue source i's other block for a helper (under a->mu). */
static void post(text_ahead *a, int i)
{
	a->f[i].state = 1;
	a->queue[(a->qhead + a->qn) % a->k] = i;
	a->qn++;
	pthread_cond_signal(&a->work);
}

int text_ahead_start(text_ahead **out, const text_spec *s, text_source *src, int k, int threads, size_t bytes)
{
	*out = NULL;
	text_ahead *a = calloc(1, sizeof *a);
	if (!a)
		return -ENOMEM;
	a->s = s, a->src = src, a->k = k, a->blockbytes = bytes ? bytes : 1;
	a->f = calloc((size_t)(k ? k : 1), sizeof *a->f);
	a->queue = calloc((size_t)(k ? k : 1), sizeof *a->queue);
	a->tid = calloc((size_t)(threads > 0 ? threads : 1), sizeof *a->tid);
	if (!a->f || !a->queue || !a->tid) {
		text_ahead_stop(a);
		return -ENOMEM;
	}
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->work, NULL);
	pthread_cond_init(&a->ready, NULL);
	for (int t = 0; t < threads; t++) {
		if (pthread_create(&a->tid[t], NULL, helper, a))
			break;
		a->nthreads++;
	}
	if (!a->nthreads) {
		text_ahead_stop(a);
		return -EAGAIN;
	}
	/* every source's first block (block 1: the first next() swaps to it) */
	pthread_mutex_lock(&a->mu);
	for (int i = 0; i < k; i++) {
		a->f[i].cur = 0;
		a->f[i].b[0].rc = 0; /* block 0 empty, more to come: the first next() waits for block 1 */
		post(a, i);
	}
	pthread_mutex_unlock(&a->mu);
	*out = a;
	return 0;
}

/* Source i's block with lines left to hand out (waiting for the next one
 * when the current is used up; the used one is queued to be filled again),
 * or the last block, used up: its rc says why the source ended. */
static block *current(text_ahead *a, int i)
{
	feed *f = &a->f[i];
	for (;;) {
		block *b = &f->b[f->cur];
		if (b->pos < b->n || b->rc)
			return b;
		pthread_mutex_lock(&a->mu);
		while (f->state != 2)
			pthread_cond_wait(&a->ready, &a->mu);
		f->cur = !f->cur;
		if (!f->b[f->cur].rc)
			post(a, i);
		else
			f->state = 0;
		pthread_mutex_unlock(&a->mu);
	}
}

int text_ahead_next(text_ahead *a, int i)
{
	text_source *x = &a->src[i];
	block *b = current(a, i);
	if (b->pos == b->n) {
		x->done = 1;
		return b->rc < 0 ? b->rc : 0;
	}
	const ahead_line *e = &b->l[b->pos++];
	const uint8_t *sb = stable_base(x);
	x->line = (sb ? sb : b->bytes) + e->off;
	x->len = e->len;
	x->ph = e->ph, x->pl = e->pl;
	x->done = 0;
	return 1;
}

int text_ahead_window(text_ahead *a, int i, text_window *w)
{
	text_source *x = &a->src[i];
	block *b = current(a, i);
	const uint8_t *sb = stable_base(x);
	w->base = sb ? sb : b->bytes;
	w->l = b->l + b->pos;
	w->n = b->n - b->pos;
	if (w->n)
		return 1;
	x->done = 1;
	return b->rc < 0 ? b->rc : 0;
}

void text_ahead_take(text_ahead *a, int i, size_t n)
{
	a->f[i].b[a->f[i].cur].pos += n;
}

double text_ahead_busy(text_ahead *a)
{
	pthread_mutex_lock(&a->mu);
	double b = a->busy;
	pthread_mutex_unlock(&a->mu);
	return b;
}

void text_ahead_stop(text_ahead *a)
{
	if (!a)
		return;
	if (a->nthreads) {
		pthread_mutex_lock(&a->mu);
		a->stop = 1;
		pthread_cond_broadcast(&a->work);
		pthread_mutex_unlock(&a->mu);
		for (int t = 0; t < a->nthreads; t++)
			pthread_join(a->tid[t], NULL);
	}
	if (a->tid) {
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->work);
		pthread_cond_destroy(&a->ready);
	}
	for (int i = 0; a->f && i < a->k; i++)
		for (int j = 0; j < 2; j++) {
			util_map_free(a->f[i].b[j].bytes, a->f[i].b[j].cap);
			util_map_free(a->f[i].b[j].l, a->f[i].b[j].lcap * sizeof(ahead_line));
		}
	free(a->f);
	free(a->queue);
	free(a->tid);
	free(a);
}
