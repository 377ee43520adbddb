/*
 * text_ahead.h - the merge's sources read ahead: while the merge thread
 * compares head lines, helper threads read each source's next lines
 * (the reads, a run's XXH3, the line ends, the key prefixes: most of a
 * line's cost in the merge) into a block of its own, two blocks a
 * source, so the merge only takes finished lines. A block holds copies of
 * the lines, or, where they stay put (a run read through its mapping,
 * text_reader_map; the last chunk in memory), their places only, and
 * then more of them (text_ahead.c's fill). A source is read by one
 * thread at a time and in order, so pipes, decompressors' pipes and the
 * runs' hash checks work as with text_reader_next alone; what depends on
 * nothing but the lines (a mapped run's line ends in its pieces, the key
 * prefixes) the filler shares with every thread that is free, the merge
 * thread waiting for a block among them: input nearly in order, whose
 * runs overlap only at their ends, feeds the merge from one run at a time.
 * In a block of an unordered source (-m's inputs) they also find the last
 * line that goes before the line above it (text_window.sorted).
 */
#ifndef GPUSORT_TEXT_AHEAD_H
#define GPUSORT_TEXT_AHEAD_H
#include <stddef.h>
#include <stdint.h>
#include "text_source.h"
#include "text_spec.h"

typedef struct text_ahead text_ahead;

/* A line read ahead: its bytes at base + off (len of them, then its
 * delimiter), its prefix as text_merge compares it, and cum, the bytes
 * (delimiters counted) of the lines before it in its block. */
typedef struct text_ahead_line {
	uint64_t off;
	size_t len;
	uint64_t ph;
	uint32_t pl;
	uint64_t cum;
} text_ahead_line;

/* A source's lines read ahead and not yet taken: l[0, n), bytes at base;
 * sorted: no line of them goes before the line above it (always so but
 * for an unordered source, text_source.unordered). */
typedef struct text_window {
	const uint8_t *base;
	const text_ahead_line *l;
	size_t n;
	int sorted;
} text_window;

/*
 * Start reading src[0, k) ahead on `threads` helper threads (>= 1), in
 * blocks of about `bytes` bytes of lines (a longer line gets a block of
 * its size). The sources must not be advanced otherwise until
 * text_ahead_stop. Returns 0 (*a set), or -ENOMEM / -EAGAIN (no helper
 * could be started: *a NULL, the caller reads the sources itself).
 */
int text_ahead_start(text_ahead **a, const text_spec *s, text_source *src, int k, int threads, size_t bytes);

/*
 * The bytes one source's two blocks take at most when read ahead in
 * blocks of `bytes` (text_ahead_start's), its lines no longer than an
 * eighth of a block: line entries, and copies of the lines (stable 0) or
 * not (stable 1: a run read through its mapping, the chunk in memory).
 * Linear in bytes, but for a few KiB: text_merge_block sizes blocks by it.
 */
size_t text_ahead_source_bytes(size_t bytes, int stable);

/*
 * Source i's next line into src[i] (line, len, ph, pl, done, as
 * text_merge's own advance sets them; line valid until the next call for
 * i). Returns 1, 0 at its end (done set), or the source's -errno where its
 * read failed (-EBADMSG: a run's hash did not match).
 */
int text_ahead_next(text_ahead *a, int i);

/*
 * Source i's lines read and not yet taken, in order, into *w: at least one,
 * all from one block (waiting for it to be filled when the last is used
 * up). They stay where they are until text_ahead_take takes the last of
 * them and the next call moves on. Returns 1, 0 at the source's end (done
 * set), or -errno as text_ahead_next. Not to be mixed with text_ahead_next
 * for one source.
 */
int text_ahead_window(text_ahead *a, int i, text_window *w);

/* The first n (<= w->n) lines of source i's window taken: merged. */
void text_ahead_take(text_ahead *a, int i, size_t n);

/* The helpers' seconds spent reading ahead so far, summed over them, the
 * merge thread's help with a block's prefixes counted (--stats: beside
 * the merge's wall time, how busy reading kept them). */
double text_ahead_busy(text_ahead *a);

/* Blocks so far whose key prefixes were offered to every free thread
 * (those of at least two pieces of PREFIX_PIECE lines, text_ahead.c). */
uint64_t text_ahead_shared(text_ahead *a);

/* Stop the helpers (a fill under way finishes first) and free a (NULL: nothing). */
void text_ahead_stop(text_ahead *a);

#endif
