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
	uint64_t ph;                /* the head's prefix as integers (text_merge_prefix) */
	uint32_t pl;
	int done;                   /* no line left */
} text_source;

/*
 * Merge src[0, k) (in input order) into w. helpers: threads that read the
 * sources ahead in blocks of about `block` bytes each (text_ahead.h; 0:
 * the sources are read on this thread). Returns 0, or -1 with err: a read
 * error (its errno) names the source, a write error the output
 * (out_name). *ties counts the full comparisons.
 */
int text_merge(const text_spec *s, text_source *src, int k, text_writer *w, const char *out_name, uint64_t *ties,
	       int helpers, size_t block, char *err, size_t errlen);

/* The prefix of [line, line + len) (text_prefix) as the integers the
 * merge compares: *ph its bytes 0-7, *pl 8-11, big-endian. */
void text_merge_prefix(const text_spec *s, const uint8_t *line, size_t len, uint64_t *ph, uint32_t *pl);

#endif
