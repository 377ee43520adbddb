/* text_gather.c - a sorted chunk's lines out in parallel batches (text_gather.h). */
#include "text_gather.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GATHER_LINES ((size_t)1 << 16) /* lines a batch */
#define GATHER_PARTS 64                 /* most threads */

typedef struct gather {
	const text_chunk *c;
	const uint32_t *ord;
	size_t lo, n;                      /* the batch: ord[lo, lo + n) */
	uint8_t *buf;
	size_t off[GATHER_PARTS + 1];      /* each part's bytes, then its offset in buf */
} gather;

/* A line's bytes with its delimiter: the chunk keeps one after every line. */
static inline size_t span(const text_chunk *c, uint32_t i)
{
	return (size_t)(c->start[i + 1] - c->start[i]);
}

static void part_size(void *arg, int p, int np)
{
	gather *g = arg;
	size_t lo, hi, bytes = 0;
	util_split(g->n, p, np, &lo, &hi);
	for (size_t k = g->lo + lo; k < g->lo + hi; k++)
		bytes += span(g->c, g->ord[k]);
	g->off[p] = bytes;
}

static void part_copy(void *arg, int p, int np)
{
	gather *g = arg;
	size_t lo, hi;
	util_split(g->n, p, np, &lo, &hi);
	uint8_t *dst = g->buf + g->off[p];
	for (size_t k = g->lo + lo; k < g->lo + hi; k++) {
		uint32_t i = g->ord[k];
		size_t len = span(g->c, i);
		memcpy(dst, g->c->buf + g->c->start[i], len);
		dst += len;
	}
}

int text_gather_write(const text_chunk *c, const uint32_t *order, text_writer *w, int threads)
{
	gather g = { c, order, 0, 0, NULL, { 0 } };
	size_t cap = 0;
	int np = threads < 1 ? 1 : threads > GATHER_PARTS ? GATHER_PARTS : threads, rc = 0;
	for (g.lo = 0; g.lo < c->n && !rc; g.lo += g.n) {
		g.n = c->n - g.lo < GATHER_LINES ? c->n - g.lo : GATHER_LINES;
		int parts = g.n < 4096 ? 1 : np;
		util_par_run(parts, part_size, &g);
		size_t total = 0;
		for (int p = 0; p < parts; p++) {
			size_t b = g.off[p];
			g.off[p] = total;
			total += b;
		}
		if (total > cap) {
			free(g.buf);
			cap = total + total / 4;
			if (!(g.buf = malloc(cap))) {
				rc = -ENOMEM;
				break;
			}
		}
		util_par_run(parts, part_copy, &g);
		rc = text_writer_bytes(w, g.buf, total, g.n);
	}
	free(g.buf);
	return rc;
}
