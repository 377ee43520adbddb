/* text_concat.c - a merge of sources that do not overlap, copied whole (text_concat.h). */
#include "text_concat.h"
#include "progress.h"
#include "quote.h"
#include "text_cmp.h"
#include "text_gather.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Source x's first and last lines (delimiters dropped). 0, or -1 when x is
 * not a mapped run or a chunk in memory, or holds no line. */
static int ends(const text_source *x, const uint8_t **first, size_t *flen, const uint8_t **last, size_t *llen)
{
	if (x->r) {
		const text_reader *r = x->r;
		if (!r->map || r->mapsize < 1 || r->off || r->lines)
			return -1;
		const uint8_t *p = r->map, *end = p + r->mapsize;
		if (end[-1] != r->eol) /* every line of a run has its delimiter: not one of ours */
			return -1;
		const uint8_t *e = memchr(p, r->eol, r->mapsize);
		*first = p, *flen = (size_t)(e - p);
		const uint8_t *b = end - 1;
		while (b > p && b[-1] != r->eol)
			b--;
		*last = b, *llen = (size_t)(end - 1 - b);
		return 0;
	}
	const text_chunk *c = x->c;
	if (!c || !c->n || x->pos)
		return -1;
	uint32_t i = x->order[0], j = x->order[c->n - 1];
	*first = c->buf + c->start[i], *flen = (size_t)(c->start[i + 1] - c->start[i] - 1);
	*last = c->buf + c->start[j], *llen = (size_t)(c->start[j + 1] - c->start[j] - 1);
	return 0;
}

typedef struct span {
	const uint8_t *first, *last;
	size_t flen, llen;
	int src;
} span;

int text_concat_order(const text_spec *s, const text_source *src, int k, int *order)
{
	if (k < 2)
		return 0;
	span *v = malloc((size_t)k * sizeof *v);
	if (!v)
		return 0;
	int ok = 1;
	for (int i = 0; i < k && ok; i++) {
		v[i].src = i;
		ok = !ends(&src[i], &v[i].first, &v[i].flen, &v[i].last, &v[i].llen);
	}
	/* by first line, ties by input order (insertion: k is at most the fan-in) */
	for (int i = 1; i < k && ok; i++) {
		span x = v[i];
		int j = i;
		for (; j > 0; j--) {
			int d = text_cmp(s, v[j - 1].first, v[j - 1].flen, x.first, x.flen);
			if (d < 0 || (d == 0 && v[j - 1].src < x.src))
				break;
			v[j] = v[j - 1];
		}
		v[j] = x;
	}
	/* each source's last line before the next one's first, or tied with it and earlier in input order */
	for (int i = 0; i + 1 < k && ok; i++) {
		int d = text_cmp(s, v[i].last, v[i].llen, v[i + 1].first, v[i + 1].flen);
		ok = d < 0 || (d == 0 && v[i].src < v[i + 1].src);
	}
	for (int i = 0; i < k && ok; i++)
		order[i] = v[i].src;
	free(v);
	return ok;
}

/* The runs' hash checks (check_runs): src[i]'s result in rc[i], the next
 * source to take in next. */
typedef struct checks {
	text_source *src;
	int k;
	int *rc;
	atomic_int next;
} checks;

static void check_step(void *arg, int t, int n)
{
	(void)t, (void)n;
	checks *c = arg;
	for (int i; (i = atomic_fetch_add(&c->next, 1)) < c->k;)
		if (c->src[i].r)
			c->rc[i] = text_reader_check_mapped(c->src[i].r);
}

/*
 * Check every mapped run's XXH3 before any is copied, the runs taken by
 * the pool's threads as they free up: XXH3 is serial within a run, and
 * one thread hashed 4 GiB of runs in order while the others waited for
 * the copy. A run that fails is named before anything is written. Returns
 * 0, or -1 with err (the first failing source in output order), or -2
 * when there is no memory for the check's table (the caller checks each
 * run before its copy instead).
 */
static int check_runs(text_source *src, int k, const int *order, tpool *pool, char *err, size_t errlen)
{
	checks c = { src, k, calloc((size_t)k, sizeof(int)), 0 };
	if (!c.rc)
		return -2;
	if (pool)
		tpool_run(pool, check_step, &c);
	else
		check_step(&c, 0, 1);
	int ret = 0;
	for (int i = 0; i < k && !ret; i++)
		if (c.rc[order[i]])
			ret = text_merge_read_fail(&src[order[i]], c.rc[order[i]], err, errlen);
	free(c.rc);
	return ret;
}

int text_concat(text_source *src, int k, const int *order, const uint64_t *lines, text_writer *w,
		const char *out_name, uint8_t *dst, size_t dcap, tpool *pool, char *err, size_t errlen)
{
	int checked = check_runs(src, k, order, pool, err, errlen);
	if (checked == -1)
		return -1;
	size_t off = 0;
	for (int i = 0; i < k; i++) {
		text_source *x = &src[order[i]];
		int rc;
		if (x->r) {
			text_reader *r = x->r;
			if (checked && (rc = text_reader_check_mapped(r)))
				return text_merge_read_fail(x, rc, err, errlen);
			size_t n = r->mapsize;
			if (dst) {
				size_t want = n; /* the test build's write faults reach a mapped output here */
				if (io_fault_rw(IO_FAULT_WRITE, &want)) {
					rc = -errno;
				} else if (n > dcap - off) {
					rc = -EFBIG; /* more than the caller mapped: a caller's error */
				} else {
					if (pool)
						tpool_memcpy(pool, dst + off, r->map, n);
					else
						memcpy(dst + off, r->map, n);
					w->bytes += n;
					w->lines += r->xxh ? lines[order[i]] : r->lines;
					rc = 0;
				}
			} else {
				rc = text_writer_bytes(w, r->map, n, r->xxh ? lines[order[i]] : r->lines);
			}
			if (!rc && w->prog)
				progress_add(w->prog, n);
			off += n;
		} else {
			const text_chunk *c = x->c;
			size_t n = (size_t)(c->start[c->n] - c->start[0]);
			if (dst) {
				text_gather *g;
				if (n > dcap - off) {
					rc = -EFBIG;
				} else if (!(rc = text_gather_begin_mapped(&g, c, w, pool, dst + off, dcap - off))) {
					rc = text_gather_lines(g, x->order, c->n);
					rc = text_gather_end(g, rc);
				}
			} else {
				rc = text_gather_write(c, x->order, NULL, 0, 0, w, pool);
			}
			if (!rc && w->prog)
				progress_add(w->prog, n);
			off += n;
		}
		if (rc) {
			snprintf(err, errlen, "write failed: %s: %s", quote_name(out_name), strerror(-rc));
			return -1;
		}
	}
	return 0;
}
