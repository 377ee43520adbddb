/* text_ahead.c - the merge's sources read ahead by helper threads (text_ahead.h). */
#define _GNU_SOURCE /* memrchr */
#include "text_ahead.h"
#include "text_cmp.h"
#include "text_prefix.h"
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
	size_t last_desc;      /* an unordered source's: the last line that goes before the one above it; 0: none */
	size_t *pc, pccap;     /* a mapped run's pieces (fill_mapped): eols in each, then lines before each */
} block;


/* Work a fill offers to every free thread (run_job): units [next, n) not
 * yet claimed, taken `step` at a time, `working` threads at taken ones. */
typedef struct pjob {
	void (*fn)(const struct text_ahead *a, const struct pjob *j, size_t i, size_t n); /* units [i, i + n) */
	size_t next, n, step;
	int working;
	struct pjob *link;     /* the next open job (text_ahead's jobs) */
	const uint8_t *base;   /* the lines' bytes: a block's copies, a chunk's buffer, a run's mapping */
	ahead_line *l;         /* the block's lines */
	size_t beg, end;       /* fill_mapped's pieces: their range of the mapping, piece 0 at beg */
	size_t *pc;            /* fill_mapped's pieces: eols in each, then lines before each */
	size_t *last_desc;     /* find_descents' result (a block's last_desc) */
} pjob;

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
	pjob *jobs;            /* fills' work with units left to take, newest first */
	uint64_t shared;       /* blocks whose work was offered to every free thread */
	int stop;
	double busy;           /* the helpers' seconds in fill, summed (under mu) */
	pthread_mutex_t mu;
	pthread_cond_t work, ready, pdone;
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

/* A mapped run's pieces a block (fill_mapped): its 4 blocks' bytes of lines. */
static size_t map_pieces(size_t blockbytes);

size_t text_ahead_source_bytes(size_t bytes, int stable)
{
	size_t b = bytes ? bytes : 1;
	return 2 * (max_lines(b, stable) * sizeof(ahead_line) +
		    (stable ? map_pieces(b) * sizeof(size_t) : copy_room(b)));
}

/*
 * Why a fill offers work to other threads: a source is read by one thread
 * at a time, in order (pipes, a run's hash), but most of a line's cost
 * depends on nothing but the line: its key prefix (about 90 ns a line for
 * -n on the H200 machine) and, in a mapped run, finding its end. Where one
 * source feeds the merge at a time (input nearly in order: runs that
 * overlap only at their ends), the helpers with no source of their own,
 * and the merge thread waiting for that block, work with its filler. Units
 * are taken under the lock, a step at a time; a job of one step is done by
 * its filler alone.
 */
#define PREFIX_STEP 2048          /* lines: ~0.2 ms of -n prefixes */
#define MAP_PIECE ((size_t)64 << 10) /* bytes of a mapped run a piece (fill_mapped) */
#define COUNT_STEP 16             /* pieces a step when counting their line ends (1 MiB) */
#define INDEX_STEP 1              /* pieces a step when indexing their lines */

static size_t map_pieces(size_t blockbytes)
{
	return (4 * blockbytes + MAP_PIECE - 1) / MAP_PIECE;
}

/* Take and do one step of the newest open job (under a->mu, which it
 * drops while it works). Returns 0 when no job had units left to take. */
static int help_jobs(text_ahead *a)
{
	pjob *j = a->jobs;
	if (!j)
		return 0;
	size_t i = j->next, n = j->n - i < j->step ? j->n - i : j->step;
	j->next += n;
	if (j->next == j->n)
		a->jobs = j->link; /* nothing left to take: off the list */
	j->working++;
	pthread_mutex_unlock(&a->mu);
	double t0 = util_now();
	j->fn(a, j, i, n);
	double dt = util_now() - t0;
	pthread_mutex_lock(&a->mu);
	a->busy += dt;
	if (!--j->working && j->next == j->n)
		pthread_cond_broadcast(&a->pdone);
	return 1;
}

/* Do job j's units [0, j->n), on this thread and any other that is free
 * (help_jobs); returns when every unit is done: 1 when it was offered to
 * the others, 0 when it was one step, done here. */
static int run_job(text_ahead *a, pjob *j)
{
	j->next = 0, j->working = 0;
	if (j->n <= j->step) {
		j->fn(a, j, 0, j->n);
		return 0;
	}
	pthread_mutex_lock(&a->mu);
	j->link = a->jobs;
	a->jobs = j;
	pthread_cond_broadcast(&a->work);
	pthread_cond_broadcast(&a->ready); /* a merge thread waiting for a block helps too */
	while (j->next < j->n) {
		/* ours first: a job posted since may be the newest */
		size_t i = j->next, n = j->n - i < j->step ? j->n - i : j->step;
		j->next += n;
		if (j->next == j->n) {
			pjob **p = &a->jobs;
			while (*p != j)
				p = &(*p)->link;
			*p = j->link;
		}
		pthread_mutex_unlock(&a->mu);
		j->fn(a, j, i, n);
		pthread_mutex_lock(&a->mu);
	}
	while (j->working)
		pthread_cond_wait(&a->pdone, &a->mu);
	pthread_mutex_unlock(&a->mu);
	return 1;
}

/* The prefixes of lines [i, i + n) of job j's block. */
static void prefix_lines(const text_ahead *a, const pjob *j, size_t i, size_t n)
{
	for (size_t e = i; e < i + n; e++)
		text_prefix_ints(a->s, j->base + j->l[e].off, j->l[e].len, &j->l[e].ph, &j->l[e].pl);
}

/* The prefixes of block b's lines (their places set), base their bytes.
 * Returns run_job's. */
static int fill_prefixes(text_ahead *a, const uint8_t *base, block *b)
{
	pjob j = { .fn = prefix_lines, .n = b->n, .step = PREFIX_STEP, .base = base, .l = b->l };
	return run_job(a, &j);
}

/* Lines [i, i + n) of job j's block that go before the line above them
 * (their prefixes made): the last of them into *j->last_desc, if later. */
static void descents(const text_ahead *a, const pjob *j, size_t i, size_t n)
{
	size_t last = 0;
	for (size_t e = i ? i : 1; e < i + n; e++) {
		const ahead_line *x = &j->l[e - 1], *y = &j->l[e];
		if (x->ph != y->ph ? x->ph > y->ph
		    : x->pl != y->pl ? x->pl > y->pl
				     : text_cmp(a->s, j->base + x->off, x->len, j->base + y->off, y->len) > 0)
			last = e;
	}
	size_t cur = __atomic_load_n(j->last_desc, __ATOMIC_RELAXED);
	while (last > cur && !__atomic_compare_exchange_n(j->last_desc, &cur, last, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/*
 * Where block b of an unordered source (-m of an input that may not be
 * sorted) goes out of order: b->last_desc, on every free thread. A window
 * past it is in order and merges in rounds; one before it is merged as
 * sort(1) merges, a head line at a time (text_merge_par.c says why).
 * Returns run_job's.
 */
static int find_descents(text_ahead *a, const uint8_t *base, block *b)
{
	pjob j = { .fn = descents, .n = b->n, .step = PREFIX_STEP, .base = base, .l = b->l, .last_desc = &b->last_desc };
	return run_job(a, &j);
}

/* Count the line ends in pieces [i, i + n) of job j's range into j->pc. */
static void count_pieces(const text_ahead *a, const pjob *j, size_t i, size_t n)
{
	const uint8_t eol = a->s->eol;
	for (size_t q = i; q < i + n; q++) {
		const uint8_t *p = j->base + j->beg + q * MAP_PIECE;
		size_t len = j->end - (j->beg + q * MAP_PIECE) < MAP_PIECE ? j->end - (j->beg + q * MAP_PIECE) : MAP_PIECE;
		uint32_t c = 0; /* 32 bits: the compiler's vector loop adds 4 counts a lane */
		for (size_t k = 0; k < len; k++)
			c += p[k] == eol;
		j->pc[q] = c;
	}
}

/* The lines that end in pieces [i, i + n) of job j's range (j->pc: the
 * lines before each piece), their places and prefixes into j->l; a piece's
 * first line starts after the last line end before the piece, or at the
 * range's start. Lines lie whole in [beg, end). */
static void index_pieces(const text_ahead *a, const pjob *j, size_t i, size_t n)
{
	const uint8_t eol = a->s->eol;
	for (size_t q = i; q < i + n; q++) {
		size_t lo = j->beg + q * MAP_PIECE, hi = j->end - lo < MAP_PIECE ? j->end : lo + MAP_PIECE;
		const uint8_t *m = j->base, *p = memchr(m + lo, eol, hi - lo), *start;
		if (!p)
			continue;
		const uint8_t *before = q ? memrchr(m + j->beg, eol, lo - j->beg) : NULL;
		start = before ? before + 1 : m + j->beg;
		ahead_line *e = j->l + j->pc[q];
		while (p) {
			e->off = (uint64_t)(start - m);
			e->len = (size_t)(p - start);
			e->cum = (uint64_t)(start - m) - j->beg;
			text_prefix_ints(a->s, start, e->len, &e->ph, &e->pl);
			e++;
			start = p + 1;
			p = start < m + hi ? memchr(start, eol, (size_t)(m + hi - start)) : NULL;
		}
	}
}

/*
 * Fill block b with mapped run x's next lines: the whole lines in the next
 * 4 blocks' bytes of the mapping, or in a quarter more than max_lines of
 * the run's lines so far took where that is less (at most max_lines of
 * them, and one line however long), found in pieces of MAP_PIECE bytes on every free thread:
 * the pieces' line ends counted, the block's end placed, the run's hash
 * taken over its bytes in order on this thread (text_reader_take_mapped),
 * then each piece's lines indexed and their prefixes made. Returns 1 when
 * work was offered to the other threads.
 */
static int fill_mapped(text_ahead *a, text_source *x, block *b)
{
	text_reader *r = x->r;
	const uint8_t *m = r->map, eol = a->s->eol;
	const size_t maxlines = max_lines(a->blockbytes, 1), size = r->mapsize, beg = r->beg;
	size_t span = 4 * a->blockbytes;
	if (r->lines) {
		/* a quarter more than maxlines lines of the run so far take: short
		 * lines fill a block's lines long before its 4 blocks' bytes, and
		 * the range's rest would be counted for nothing */
		double want = 1.25 * (double)maxlines * (double)r->beg / (double)r->lines;
		if (want < (double)span)
			span = want < (double)MAP_PIECE ? MAP_PIECE : (size_t)want;
	}
	const size_t lim = size - beg < span ? size : beg + span;
	const size_t np = (lim - beg + MAP_PIECE - 1) / MAP_PIECE;
	if (b->pccap < np) {
		size_t *pc = util_map_resize(b->pc, b->pccap * sizeof *pc, np * sizeof *pc);
		if (!pc) {
			b->rc = -ENOMEM;
			return 0;
		}
		b->pc = pc, b->pccap = np;
	}
	pjob j = { .fn = count_pieces, .n = np, .step = COUNT_STEP, .base = m, .l = b->l, .beg = beg, .end = lim, .pc = b->pc };
	int posted = run_job(a, &j);
	size_t lines = 0, end = beg, q;
	for (q = 0; q < np; q++) {
		size_t c = b->pc[q];
		b->pc[q] = lines; /* from here on: the lines before piece q */
		if (lines + c >= maxlines) { /* the block ends at piece q's (maxlines - lines)th line end */
			const uint8_t *p = m + beg + q * MAP_PIECE;
			for (size_t t = maxlines - lines; t; t--)
				p = (const uint8_t *)memchr(p, eol, (size_t)(m + lim - p)) + 1;
			end = (size_t)(p - m);
			lines = maxlines;
			break;
		}
		lines += c;
	}
	int bad = 0; /* bytes after the last line end of the run: none in a run whose hash matches */
	if (q == np && lines) {
		end = (size_t)((const uint8_t *)memrchr(m + beg, eol, lim - beg) - m) + 1;
	} else if (q == np && lim < size) { /* a line longer than the range */
		const uint8_t *p = memchr(m + lim, eol, size - lim);
		end = p ? (size_t)(p - m) + 1 : size;
		lines = p ? 1 : 0;
		bad = !p;
	} else if (q == np) {
		end = size;
		bad = beg < size;
	}
	int rc = text_reader_take_mapped(r, end, lines);
	b->rc = rc < 0 ? rc : bad ? -EBADMSG : rc;
	if (rc < 0 || !lines)
		return posted;
	if (lines == 1 && end > lim) { /* the long line: alone in its block */
		b->l[0] = (ahead_line){ .off = beg, .len = end - 1 - beg, .cum = 0 };
		text_prefix_ints(a->s, m + beg, end - 1 - beg, &b->l[0].ph, &b->l[0].pl);
	} else {
		pjob ji = { .fn = index_pieces, .n = (end - beg + MAP_PIECE - 1) / MAP_PIECE, .step = INDEX_STEP,
			    .base = m, .l = b->l, .beg = beg, .end = end, .pc = b->pc };
		posted |= run_job(a, &ji);
	}
	b->n = lines;
	b->used = b->out = end - beg;
	return posted;
}

static void fill_lines(text_ahead *a, text_source *x, block *b, size_t maxbytes, size_t maxlines);

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
 * beside the next merge's blocks (34 MB under -S 16M on 16 threads).
 * A mapped run's lines are found by fill_mapped; the others' here, one
 * at a time, their prefixes then made by fill_prefixes. */
static void fill(text_ahead *a, text_source *x, block *b)
{
	b->n = b->used = b->pos = 0;
	b->out = 0;
	b->rc = 0;
	b->last_desc = 0;
	const uint8_t *sb = stable_base(x);
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
	int posted;
	if (x->r && sb) {
		posted = fill_mapped(a, x, b);
	} else {
		fill_lines(a, x, b, sb ? 4 * a->blockbytes : a->blockbytes, maxlines);
		posted = fill_prefixes(a, sb ? sb : b->bytes, b); /* lines before an error are handed out first */
	}
	if (x->unordered && b->n > 1)
		posted |= find_descents(a, sb ? sb : b->bytes, b);
	if (posted) {
		pthread_mutex_lock(&a->mu);
		a->shared++;
		pthread_mutex_unlock(&a->mu);
	}
}

/* fill's lines, one at a time from a reader or a chunk: their places and
 * lengths, up to maxbytes of them or maxlines. */
static void fill_lines(text_ahead *a, text_source *x, block *b, size_t maxbytes, size_t maxlines)
{
	const uint8_t *sb = stable_base(x);
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
	}
}

static void *helper(void *arg)
{
	text_ahead *a = arg;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->qn && !a->jobs && !a->stop)
			pthread_cond_wait(&a->work, &a->mu);
		if (a->stop)
			break;
		if (help_jobs(a)) /* a fill under way first: its source is awaited sooner */
			continue;
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
	pthread_cond_init(&a->pdone, NULL);
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
			if (!help_jobs(a))
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
	w->sorted = b->last_desc <= b->pos;
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

uint64_t text_ahead_shared(text_ahead *a)
{
	pthread_mutex_lock(&a->mu);
	uint64_t n = a->shared;
	pthread_mutex_unlock(&a->mu);
	return n;
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
		pthread_cond_destroy(&a->pdone);
	}
	for (int i = 0; a->f && i < a->k; i++)
		for (int j = 0; j < 2; j++) {
			util_map_free(a->f[i].b[j].bytes, a->f[i].b[j].cap);
			util_map_free(a->f[i].b[j].l, a->f[i].b[j].lcap * sizeof(ahead_line));
			util_map_free(a->f[i].b[j].pc, a->f[i].b[j].pccap * sizeof(size_t));
		}
	free(a->f);
	free(a->queue);
	free(a->tid);
	free(a);
}
