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
#include "text_merge_par.h"
#include "text_source.h"
#include "tpool.h"

/*
 * Merge src[0, k) (in input order) into w, in sort(1)'s order: each line
 * out is the least of the sources' head lines, ties to the earlier
 * source, so that a source out of order (src[i].unordered: -m of an input
 * that is not sorted) merges as sort -m merges it. helpers: threads that
 * read the sources ahead in blocks of about `block` bytes each (text_ahead.h; 0:
 * the sources are read on this thread). pool: the job's threads, which
 * merge the lines read ahead in rounds (text_merge_par.h) when it has more
 * than one and there are helpers; NULL: one thread merges (a tree of
 * losers). dst: w's file mapped (io_outmap) from w's offset, dcap bytes,
 * for the pool's threads to copy the lines into (not with -u or
 * --verify), w->bytes and w->lines counting them; where one thread merges
 * instead, the lines go through w, flushed before the return, so that
 * either way the file holds w->bytes from dst; NULL: none.
 * Returns 0, or -1 with err: a read error (its errno) names the
 * source, a write error the output (out_name). *st: what it counted,
 * added to.
 */
int text_merge(const text_spec *s, text_source *src, int k, text_writer *w, const char *out_name, text_merge_stats *st,
	       uint8_t *dst, size_t dcap, tpool *pool, int helpers, size_t block, char *err, size_t errlen);

/* The message, into err, for a read of source x's run that failed with rc
 * (-EBADMSG: its hash did not match: "... checksum mismatch ..."; else
 * "read failed: NAME: ..."). Returns -1. */
int text_merge_read_fail(const text_source *x, int rc, char *err, size_t errlen);

/* text_merge_block's bounds: below the floor a merge's memory exceeds -S by
 * what the floor costs (a few MiB for 16 sources); the ceiling, where -S
 * is large: blocks of 16 MiB merged 14 runs of CSV (4 GiB) in 2.04 s where
 * 4 MiB took 2.46 s on 16 threads, in 129 rounds against 475
 * (bench/results/h200-text-merge-held-2026-11-27.md). */
#define TEXT_MERGE_MIN_BLOCK ((size_t)32 << 10)
#define TEXT_MERGE_MAX_BLOCK ((size_t)16 << 20)

/*
 * text_merge's block bytes for a merge held to about mem bytes (what -S
 * leaves beside a chunk kept in memory): ncopied sources whose lines are
 * copied (read through a reader's buffer, which the caller opens with the
 * block's bytes: files, pipes, compressed runs, runs read with pread),
 * nstable whose lines stay put (runs read through their mapping, the chunk
 * in memory), and, when out_buffered, the parallel merge's two round
 * buffers (an output that is not mapped). Each source costs a few blocks
 * (text_ahead_source_bytes), the round buffers 20. Returns a size within
 * [TEXT_MERGE_MIN_BLOCK, TEXT_MERGE_MAX_BLOCK].
 */
size_t text_merge_block(uint64_t mem, int ncopied, int nstable, int out_buffered);


#endif
