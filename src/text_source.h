/*
 * text_source.h - a sorted sequence of lines that a merge reads: a
 * spilled run or -m's input through a reader, or the sorted chunk still
 * in memory; its head line and that line's prefix.
 */
#ifndef GPUSORT_TEXT_SOURCE_H
#define GPUSORT_TEXT_SOURCE_H
#include <stddef.h>
#include <stdint.h>
#include "text_io.h"
#include "text_sort.h"

typedef struct text_source {
	text_reader *r;             /* a run or a file; NULL: the chunk below */
	const text_chunk *c;        /* a sorted chunk in memory: lines c[order[pos...]] */
	const uint32_t *order;
	size_t pos;
	const uint8_t *line;        /* the head line */
	size_t len;
	uint64_t ph;                /* the head's prefix as integers (text_prefix_ints) */
	uint32_t pl;
	int done;                   /* no line left */
	int unordered;              /* -m's: its lines may be out of order (text_ahead finds where) */
} text_source;

#endif
