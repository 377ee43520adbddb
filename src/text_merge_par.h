/*
 * text_merge_par.h - the k-way merge of sorted lines on all of the job's
 * threads, in rounds (text_merge.c takes it when the job has a pool and more
 * than one source). A round takes, from every source's window of lines read
 * ahead (text_ahead.h), the lines that go at or before the smallest last
 * line of a window (no line still unread can go before them), cuts them at
 * splitters chosen by regular sampling (Dehne & Zaboli, GPU Bucket Sort,
 * section 4: s samples a slice, splitters at equal shares of the sampled
 * ranks) into slices that every thread merges at once into the round's
 * buffer at known offsets, and a writer thread writes that buffer while
 * the next round is merged. The order is text_merge's: prefix, text_cmp,
 * source number, so the output is byte for byte the serial merge's, -u
 * and --verify included (each slice filters and checks its own lines; the
 * line at each slice's start is settled against the one before it). Where
 * a window is out of order (text_window.sorted: -m of an input that is not
 * sorted), that round is the serial merge itself, on the calling thread,
 * until a window is used up: sort(1)'s order of such input.
 */
#ifndef GPUSORT_TEXT_MERGE_PAR_H
#define GPUSORT_TEXT_MERGE_PAR_H
#include <stddef.h>
#include <stdint.h>
#include "text_ahead.h"
#include "text_io.h"
#include "text_source.h"
#include "text_spec.h"
#include "tpool.h"

/* What a merge counts for --stats. */
typedef struct text_merge_stats {
	uint64_t ties;      /* full comparisons (text_cmp) */
	double wait_s;      /* waiting for the sources' lines read ahead (the merge in rounds) */
	double cut_s;       /* the merge in rounds: bounds, splitters and cuts */
	double slice_s;     /* the merge in rounds: the slices merged on every thread */
	double out_wait_s;  /* the merge in rounds: waiting for the writer thread to free a round's buffer */
	double read_s;      /* the helpers' thread-seconds reading ahead */
	uint64_t shared;    /* blocks read ahead on several threads at once (text_ahead.h) */
	uint64_t rounds;    /* the merge in rounds: rounds */
} text_merge_stats;

/*
 * Merge src[0, k), read ahead by a (text_ahead_start on the same sources),
 * into w on pool's threads, rounds of at most about max_round bytes of
 * lines (a single line may be longer). w's -u filter (w->unique) and
 * --verify (w->verify, vsum, vbad) are applied as text_writer_line
 * would; w's lines are written with text_writer_bytes by a thread of
 * their own. dst: the output mapped (io_outmap), dcap bytes from its
 * start, which the threads fill instead (w's bytes and lines counted as
 * written there; only without -u and --verify); NULL: w. *st: the full
 * comparisons and the waits for lines read ahead, added to. Returns 0; a source's read error as -errno with
 * *bad its index (-EBADMSG: a run's hash did not match); a write error
 * as -errno with *bad = -1 (-EFBIG: more lines than dcap); -ENOMEM with
 * *bad = -2.
 */
int text_merge_par(const text_spec *s, text_source *src, int k, text_ahead *a, text_writer *w, uint8_t *dst,
		   size_t dcap, tpool *pool, size_t max_round, text_merge_stats *st, int *bad);

/* The bytes of the two round buffers text_merge_par holds when it writes
 * through w (dst NULL), rounds of max_round bytes: text_merge_block's share. */
size_t text_merge_par_out_bytes(size_t max_round);

#endif
