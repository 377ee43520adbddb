/* text_merge.c - k-way merge of sorted lines (text_merge.h). */
#include "text_merge.h"
#include "quote.h"
#include "text_ahead.h"
#include "text_cmp.h"
#include "text_prefix.h"
#include "text_merge_par.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A round of the parallel merge: about a block's lines of each source
 * (each takes one source's block), at most 8 blocks' bytes of them
 * (blocks of lines that stay put hold up to 4 blocks' bytes: text_ahead.c). */
#define ROUND_BLOCKS 8


/* Advance source x to its next line: 1, 0 at its end (x->done set), or -errno. */
static int advance(const text_spec *s, text_source *x)
{
	int rc;
	if (x->r) {
		rc = text_reader_next(x->r, &x->line, &x->len);
	} else if (x->pos < x->c->n) {
		uint32_t i = x->order[x->pos++];
		x->line = x->c->buf + x->c->start[i];
		x->len = (size_t)(x->c->start[i + 1] - x->c->start[i] - 1);
		rc = 1;
	} else {
		rc = 0;
	}
	if (rc == 1)
		text_prefix_ints(s, x->line, x->len, &x->ph, &x->pl);
	x->done = rc == 0;
	return rc;
}

/*
 * A tree of losers (Knuth, TAOCP vol. 3, 5.4.1): node i < K holds the
 * source that lost the match there, t[0] the overall winner; leaves K..2K-1
 * are the sources (K the power of two >= k, those past k ended). Replacing
 * the winner's head replays one match a level: half a heap's comparisons.
 */
typedef struct tree {
	const text_spec *s;
	text_source *src;
	int k, K;
	int *t;
	uint64_t ties;
} tree;

/* 1 when source a's head goes before source b's: prefix, full comparison,
 * source number (input order); an ended source goes after all others. */
static int before(tree *q, int a, int b)
{
	const text_source *x = a < q->k ? &q->src[a] : NULL, *y = b < q->k ? &q->src[b] : NULL;
	int xe = !x || x->done, ye = !y || y->done;
	if (xe || ye)
		return xe && ye ? a < b : ye;
	if (x->ph != y->ph)
		return x->ph < y->ph;
	if (x->pl != y->pl)
		return x->pl < y->pl;
	q->ties++;
	int d = text_cmp(q->s, x->line, x->len, y->line, y->len);
	return d ? d < 0 : a < b;
}

/* The winner of the subtree at node (a leaf: its source), the losers stored on the way. */
static int build(tree *q, int node)
{
	if (node >= q->K)
		return node - q->K;
	int a = build(q, 2 * node), b = build(q, 2 * node + 1);
	if (before(q, a, b)) {
		q->t[node] = b;
		return a;
	}
	q->t[node] = a;
	return b;
}

/* Source w's head changed: its matches replayed up to the root. */
static void replay(tree *q, int w)
{
	for (int node = (w + q->K) / 2; node >= 1; node /= 2)
		if (before(q, q->t[node], w)) {
			int l = q->t[node];
			q->t[node] = w;
			w = l;
		}
	q->t[0] = w;
}

int text_merge_read_fail(const text_source *x, int rc, char *err, size_t errlen)
{
	if (rc == -EBADMSG)
		snprintf(err, errlen, "%s: checksum mismatch (its XXH3 is not what was written): spilled data was corrupted; "
			 "no output written", x->r->name);
	else
		snprintf(err, errlen, "read failed: %s: %s", quote_name(x->r->name), strerror(-rc));
	return -1;
}

size_t text_merge_block(uint64_t mem, int ncopied, int nstable, int out_buffered)
{
	/* the costs are linear in the block's bytes: weighed at one MiB */
	const size_t b = (size_t)1 << 20;
	double per = (double)ncopied * (double)(b + text_ahead_source_bytes(b, 0)) +
		     (double)nstable * (double)text_ahead_source_bytes(b, 1) +
		     (out_buffered ? (double)text_merge_par_out_bytes(ROUND_BLOCKS * b) : 0);
	double block = per > 0 ? (double)mem * (double)b / per : (double)TEXT_MERGE_MAX_BLOCK;
	return block < TEXT_MERGE_MIN_BLOCK ? TEXT_MERGE_MIN_BLOCK
	       : block > TEXT_MERGE_MAX_BLOCK ? TEXT_MERGE_MAX_BLOCK : (size_t)block;
}

int text_merge(const text_spec *s, text_source *src, int k, text_writer *w, const char *out_name, text_merge_stats *st,
	       uint8_t *dst, size_t dcap, tpool *pool, int helpers, size_t block, char *err, size_t errlen)
{
	int K = 1;
	while (K < k)
		K *= 2;
	tree q = { s, src, k, K, malloc((size_t)K * sizeof(int)), 0 };
	if (!q.t) {
		snprintf(err, errlen, "out of memory merging %d sources", k);
		return -1;
	}
	int ret = -1;
	text_ahead *a = NULL;
	if (helpers > 0 && k > 1)
		/* more helpers than sources: the rest make prefixes (text_ahead.c) */
		text_ahead_start(&a, s, src, k, helpers, block); /* else: read here */
	if (a && pool && tpool_size(pool) > 1) {
		int bad, rc = text_merge_par(s, src, k, a, w, dst, dcap, pool, ROUND_BLOCKS * block, st, &bad);
		if (rc && bad >= 0)
			text_merge_read_fail(&src[bad], rc, err, errlen);
		else if (rc && bad == -2)
			snprintf(err, errlen, "out of memory merging %d sources", k);
		else if (rc)
			snprintf(err, errlen, "write failed: %s: %s", quote_name(out_name), strerror(-rc));
		ret = rc ? -1 : 0;
		goto out;
	}
	for (int i = 0; i < k; i++) {
		int rc = a ? text_ahead_next(a, i) : advance(s, &src[i]);
		if (rc < 0) {
			text_merge_read_fail(&src[i], rc, err, errlen);
			goto out;
		}
	}
	q.t[0] = k ? build(&q, 1) : 0;
	while (k && !src[q.t[0]].done) {
		text_source *x = &src[q.t[0]];
		int rc = text_writer_line(w, x->line, x->len);
		if (rc) {
			snprintf(err, errlen, "write failed: %s: %s", quote_name(out_name), strerror(-rc));
			goto out;
		}
		rc = a ? text_ahead_next(a, q.t[0]) : advance(s, x);
		if (rc < 0) {
			text_merge_read_fail(x, rc, err, errlen);
			goto out;
		}
		replay(&q, q.t[0]);
	}
	/* lines meant for dst went through w: in the file before dst is unmapped */
	int rc = dst ? text_writer_flush(w, NULL) : 0;
	if (rc) {
		snprintf(err, errlen, "write failed: %s: %s", quote_name(out_name), strerror(-rc));
		goto out;
	}
	ret = 0;
out:
	if (a) {
		st->read_s += text_ahead_busy(a);
		st->shared += text_ahead_shared(a);
	}
	text_ahead_stop(a);
	st->ties += q.ties;
	free(q.t);
	return ret;
}
