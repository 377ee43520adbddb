/*
 * text_gather.h - writing a sorted chunk: its lines, scattered over the
 * chunk's buffer in sorted order, copied into one contiguous batch after
 * another by all threads (each copy is a cache miss: one thread alone is
 * bound by memory latency), each batch written whole by a thread of its
 * own while the next is gathered.
 */
#ifndef GPUSORT_TEXT_GATHER_H
#define GPUSORT_TEXT_GATHER_H
#include "text_io.h"
#include "text_sort.h"
#include "tpool.h"

/*
 * Write the lines c[order[0, c->n)] to w, delimiters included, on the
 * threads of pool (NULL: this one). For a writer without -u or --verify (those look at
 * each line: use text_writer_line). Returns 0 or -errno (a write error,
 * or -ENOMEM).
 */
int text_gather_write(const text_chunk *c, const uint32_t *order, text_writer *w, tpool *pool);

#endif
