/* text_merge.c - k-way merge of sorted lines (text_merge.h). */
#include "text_merge.h"
#include "text_cmp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Advance source x to its next line: 1, 0 at its end, or -errno. */
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
		text_prefix(s, x->line, x->len, x->prefix, NULL);
	return rc;
}

typedef struct heap {
	const text_spec *s;
	text_source *src;
	int *h, n;
	uint64_t ties;
} heap;

/* 1 when source a's head goes before source b's. */
static int before(heap *q, int a, int b)
{
	const text_source *x = &q->src[a], *y = &q->src[b];
	int d = memcmp(x->prefix, y->prefix, TEXT_PREFIX);
	if (!d) {
		q->ties++;
		d = text_cmp(q->s, x->line, x->len, y->line, y->len);
	}
	return d ? d < 0 : a < b;
}

static void sift_down(heap *q, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;
		if (l < q->n && before(q, q->h[l], q->h[m]))
			m = l;
		if (l + 1 < q->n && before(q, q->h[l + 1], q->h[m]))
			m = l + 1;
		if (m == i)
			return;
		int t = q->h[i];
		q->h[i] = q->h[m];
		q->h[m] = t;
		i = m;
	}
}

static int read_fail(const text_source *x, int rc, char *err, size_t errlen)
{
	if (rc == -EBADMSG)
		snprintf(err, errlen, "%s is corrupt (its XXH3 checksum does not match)", x->r->name);
	else
		snprintf(err, errlen, "read failed: %s: %s", x->r->name, strerror(-rc));
	return -1;
}

int text_merge(const text_spec *s, text_source *src, int k, text_writer *w, const char *out_name, uint64_t *ties,
	       char *err, size_t errlen)
{
	heap q = { s, src, malloc((size_t)(k ? k : 1) * sizeof(int)), 0, 0 };
	if (!q.h) {
		snprintf(err, errlen, "out of memory merging %d sources", k);
		return -1;
	}
	int ret = -1;
	for (int i = 0; i < k; i++) {
		int rc = advance(s, &src[i]);
		if (rc < 0) {
			read_fail(&src[i], rc, err, errlen);
			goto out;
		}
		if (rc)
			q.h[q.n++] = i;
	}
	for (int i = q.n / 2 - 1; i >= 0; i--)
		sift_down(&q, i);
	while (q.n) {
		text_source *x = &src[q.h[0]];
		int rc = text_writer_line(w, x->line, x->len);
		if (rc) {
			snprintf(err, errlen, "write failed: %s: %s", out_name, strerror(-rc));
			goto out;
		}
		rc = advance(s, x);
		if (rc < 0) {
			read_fail(x, rc, err, errlen);
			goto out;
		}
		if (!rc)
			q.h[0] = q.h[--q.n];
		sift_down(&q, 0);
	}
	ret = 0;
out:
	*ties += q.ties;
	free(q.h);
	return ret;
}
