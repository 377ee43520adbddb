/*
 * text_sort.h - sorting one chunk of lines in memory (DESIGN.md section
 * 11): each line becomes a 16-byte record, its TEXT_PREFIX-byte key
 * prefix (text_prefix.h) then its index (big-endian u32), rewritten at 8
 * bytes (4 prefix bytes) when the chunk's prefixes are all padding after
 * their first 4; the job's chunk engine sorts the records: the GPU's
 * (engine.h, 16-byte records) by the prefix, the CPU's radix sort
 * (cpusort.h) stably by the prefix bytes alone; each
 * run of equal prefixes is then put in order on the CPU: long runs by the
 * key's next prefix bytes or the next key's (text_prefix_at), the rest by
 * the full comparison (text_cmp.h), ties of that by index (input order).
 */
#ifndef GPUSORT_TEXT_SORT_H
#define GPUSORT_TEXT_SORT_H
#include <stddef.h>
#include <stdint.h>
#include "engine.h"
#include "text_spec.h"

#define TEXT_RECORD 16     /* bytes of a line's record: prefix and index */
#define TEXT_MAX_LINES ((size_t)UINT32_MAX) /* most lines in one chunk */

/* A chunk: line i is buf[start[i], start[i + 1] - 1), its delimiter dropped. */
typedef struct text_chunk {
	const uint8_t *buf;
	const uint64_t *start; /* n + 1 offsets */
	size_t n;
} text_chunk;

typedef struct text_sorter {
	const text_spec *s;
	engine *eng;           /* the chunk sort of 16-byte records, or NULL: the CPU's, called directly */
	int threads;
	uint8_t *a, *b;        /* record buffers */
	void *scratch;
	uint32_t *order;       /* the sorted chunk: line indices */
	size_t cap;            /* lines the buffers hold */
	uint64_t ties;         /* lines whose place the full comparison decided */
	int verify;            /* --verify: sum the lines' hashes into vsum */
	uint64_t vsum;
	double sort_s, ties_s; /* seconds making and sorting the records, and in the ties */
	double prefix_s;       /* of sort_s, seconds making the records (prefixes) */
	uint32_t width;        /* the most prefix bytes a chunk's sorted records had so far: 4 or 12 (0: none) */
	/* the last chunk's sorted records (set before its first part is handed
	 * over): record k, srs bytes, starts with the sw-byte prefix of line
	 * order[k] (a run of equal prefixes is in order[] by the full
	 * comparison, the records keep their first-level prefixes), so two
	 * neighbours in order[] whose records differ are different lines */
	const uint8_t *sorted;
	size_t srs;
	uint32_t sw;
	char err[512];
} text_sorter;

/* The key layout of the records: one 16-byte bytes key, the whole record. */
void text_sort_layout(keys_spec *ks);

/*
 * Sort chunk c into t->order (c->n indices, valid until the next call).
 * Returns 0, or -1 with t->err set (out of memory, the engine failed).
 */
int text_sort_chunk(text_sorter *t, const text_chunk *c);

/* A sorted part's hand-over: order[lo, hi) is final (text_sort_chunk_parts).
 * Returns 0, or nonzero to stop the sort. */
typedef int (*text_part_fn)(void *arg, const uint32_t *order, size_t lo, size_t hi);

/*
 * text_sort_chunk, the sorted order handed to part(arg, t->order, lo, hi)
 * as consecutive ranges covering [0, c->n) (about 16 on the CPU engine,
 * one on a GPU engine), each final when handed over, so that a caller can
 * write the first lines while the rest are sorted. part NULL: as
 * text_sort_chunk. Returns 0; -1 with t->err set; 1 when part stopped it
 * (its error is the caller's to know).
 */
int text_sort_chunk_parts(text_sorter *t, const text_chunk *c, text_part_fn part, void *arg);

/* The bytes t's buffers hold (records, order, the engine's scratch): what
 * a merge's share of -S leaves out (text_merge_block). */
size_t text_sort_held(const text_sorter *t);

/* Free the buffers of t but the last chunk's order (t->order stays valid,
 * t->sorted does not): the merge that takes the last chunk from memory
 * reads only its order. A later sort allocates them again. */
void text_sort_release(text_sorter *t);

void text_sort_free(text_sorter *t);

#endif
