/*
 * text_merge.h - the k-way merge of sorted line sources (spilled runs,
 * -m's input files, the last chunk still in memory) into a writer: a tree
 * of losers ordered by each head line's key prefix, then the full
 * comparison on a tie, then the source's number, so that equal lines keep
 * input order.
 */
#ifndef GPUSORT_TEXT_MERGE_H
#define GPUSORT_TEXT_MERGE_H
#include <stddef.h>
#include <stdint.h>
#include "text_io.h"
#include "text_prefix.h"
#include "text_sort.h"

typedef struct text_source {
	text_reader *r;             /* a run or a file; NULL: the chunk below */
	const text_chunk *c;        /* a sorted chunk in memory: lines c[order[pos...]] */
	const uint32_t *order;
	size_t pos;
	const uint8_t *line;        /* the head line */
	size_t len;
	uint8_t prefix[TEXT_PREFIX];
	uint64_t ph;                /* the prefix as integers (big-endian bytes 0-7, 8-11) */
	uint32_t pl;
	int done;                   /* no line left */
} text_source;

/*
 * Merge src[0, k) (in input order) into w. Returns 0, or -1 with err: a
 * read error (its errno) names the source, a write error the output
 * (out_name). *ties counts the full comparisons.
 */
int text_merge(const text_spec *s, text_source *src, int k, text_writer *w, const char *out_name, uint64_t *ties,
	       char *err, size_t errlen);

#endif
