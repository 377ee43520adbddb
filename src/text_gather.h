/*
 * text_gather.h - writing a sorted chunk: its lines, scattered over the
 * chunk's buffer in sorted order, copied by all threads (each copy is a
 * cache miss: one thread alone is bound by memory latency) either straight
 * into a mapped output (io_outmap: copies into one file's mapping scale
 * with threads, write(2)s to it do not), or into one contiguous batch
 * after another, each written whole by a thread of its own while the next
 * are gathered, in parts as the sort hands them over.
 */
#ifndef GPUSORT_TEXT_GATHER_H
#define GPUSORT_TEXT_GATHER_H
#include "text_io.h"
#include "text_sort.h"
#include "tpool.h"

/* A write in progress (text_gather_begin). */
typedef struct text_gather text_gather;

/*
 * Start writing lines of chunk c to w, on the threads of pool (NULL: this
 * one). w's -u filter and --verify check apply as text_writer_line's
 * would (each line compared with the one before it, on every thread).
 * Batches are written by a thread of their own while
 * the next are gathered, so that a caller may sort the chunk's next lines
 * meanwhile. room: bytes of memory the caller can spare for the batches
 * waiting for that thread (0: none); the ring holds up to room bytes, at
 * most the chunk's, and never less than 16 MiB a thread of pool (256 MiB
 * at most). Buffers are allocated as the writer falls behind, not up
 * front. Returns 0 (*g set), or -ENOMEM (*g NULL; text_gather_end(NULL,
 * rc) is still right).
 */
int text_gather_begin(text_gather **g, const text_chunk *c, text_writer *w, tpool *pool, size_t room);

/*
 * As text_gather_begin, for an output mapped by the caller (io_outmap):
 * the lines are copied by all threads straight to dst[0, cap), one batch
 * after another, with no writer thread and no ring (the copy is the
 * write, and it scales with threads where write(2) to one file does not).
 * w's counts (lines, bytes) grow as if the bytes were written through it;
 * w must hold no buffered bytes. Same returns.
 */
int text_gather_begin_mapped(text_gather **g, const text_chunk *c, text_writer *w, tpool *pool, uint8_t *dst,
			     size_t cap);

/*
 * For -u's filter: the lines given to text_gather_lines are order[...]
 * (sorted, with later calls going on where earlier ones ended), and the
 * prefix of line order[k] is recs[k * rs, k * rs + w) (text_sorter's
 * sorted records): neighbours whose prefixes differ are kept without a
 * full comparison. Not used for --verify's check, which compares every
 * line.
 */
void text_gather_prefixes(text_gather *g, const uint32_t *order, const uint8_t *recs, size_t rs, size_t w);

/* Queue the lines c[order[0, n)] (delimiters included) after those queued
 * before. Returns 0, or -errno: a write error so far, -ENOMEM. */
int text_gather_lines(text_gather *g, const uint32_t *order, size_t n);

/* Wait until every queued line is written, and free g. rc: the caller's
 * error so far (nonzero: what is queued is dropped). Returns rc, else the
 * first write error, else 0. */
int text_gather_end(text_gather *g, int rc);

/* The lines c[order[0, c->n)] to w: begin, prefixes (recs NULL: none),
 * lines, end; the writer thread's ring two batches deep (the chunk is
 * sorted: nothing else gets ahead of the writer). Returns 0 or -errno. */
int text_gather_write(const text_chunk *c, const uint32_t *order, const uint8_t *recs, size_t rs, size_t w,
		      text_writer *wr, tpool *pool);

#endif
