/*
 * text_concat.h - a merge that is a concatenation. When a sort's input
 * was in order (or in reverse order) chunk by chunk, its runs do not
 * overlap: taken by their first lines, each one's last line goes before
 * the next one's first (or ties it and comes first in input order, which
 * the merge keeps). Their merge is then the runs one after another, and
 * copying each whole (a mapped run: memcpy into the mapped output, or one
 * write; the chunk in memory: its gather) replaces a line-by-line merge
 * whose read-ahead served one source at a time: 200 M lines of `seq`
 * under -S 1G merged at 0.1 GB/s, one helper busy
 * (bench/results/h200-text-concat-2026-11-27.md). Only for sources whose
 * lines stay put (runs read through their mapping, the chunk in memory),
 * without -u, --verify or --debug, which look at every line.
 */
#ifndef GPUSORT_TEXT_CONCAT_H
#define GPUSORT_TEXT_CONCAT_H
#include <stddef.h>
#include <stdint.h>
#include "text_merge.h"
#include "tpool.h"

/*
 * Whether src[0, k) (runs or -m's inputs read through their mapping,
 * text_reader_map and text_reader_map_input, or a sorted chunk in memory, each of at least one line, none advanced yet)
 * is a concatenation: 1 with order[0, k) the sources in output order, 0
 * when their lines overlap or a source is of another kind (then the
 * caller merges them).
 */
int text_concat_order(const text_spec *s, const text_source *src, int k, int *order);

/*
 * Write the sources in order[0, k) (text_concat_order's) whole to w, or,
 * dst not NULL, into dst[0, dcap) (w's file mapped from w's offset,
 * io_outmap; w holding no buffered bytes), w->bytes and w->lines counted
 * as if written. lines[i]: source i's lines (a chunk's are c->n; a
 * mapped input's, text_reader_map_input, are counted as it is checked,
 * lines[i] ignored). Every run's XXH3 is checked (an input's lines
 * counted), runs at once on the pool's threads, before any bytes are
 * copied. pool: the threads that check and copy (NULL: this
 * one). Returns 0, or -1 with err: a run whose hash does not match (the
 * first in output order) names it, a write error names out_name.
 */
int text_concat(text_source *src, int k, const int *order, const uint64_t *lines, text_writer *w,
		const char *out_name, uint8_t *dst, size_t dcap, tpool *pool, char *err, size_t errlen);

#endif
