/*
 * text_load.h - reading the inputs, one after another, into chunks of
 * whole lines that fit a memory budget (the line bytes and TEXT_LINE_COST
 * bytes a line for its offset and sort records). A last line without a
 * delimiter gets one, at the end of each input as GNU sort does; a line
 * longer than the budget makes a chunk of its own, whatever its length.
 * A regular file is read in large blocks, each by all the pool's threads
 * (pread of a piece each), and every block's line ends are found by all of
 * them (a count per piece, then the offsets each piece's count places).
 * The only input, a regular file that fits the budget whole, is mapped
 * instead (private, read-only), its line ends found the same way.
 */
#ifndef GPUSORT_TEXT_LOAD_H
#define GPUSORT_TEXT_LOAD_H
#include <stddef.h>
#include <stdint.h>
#include "text_sort.h"
#include "tpool.h"

#define TEXT_LINE_COST 48 /* bytes a line costs beside its text: offset, 2 records, index */

typedef struct text_loader {
	char *const *inputs;
	int ninputs, next;     /* inputs[next] is the next to open */
	int fd, own;           /* the input being read, or -1 */
	int reg;               /* fd is a regular file: read with pread from pos */
	uint64_t pos, left;    /* reg: the next offset, and the bytes after it when it was opened */
	uint64_t size0;        /* reg: its size when opened */
	int64_t mtime0;        /* reg: its modification time (ns) when opened */
	const char *name;      /* its name, for messages */
	unsigned char eol;
	uint8_t *buf;          /* buf[0, len): the chunk's lines, then a partial line */
	size_t len, cap;
	uint8_t *map;          /* the only input mapped (buf inside it), or NULL: buf is allocated */
	size_t maplen;
	uint64_t *start;       /* n + 1 line offsets: start[n] ends the whole lines */
	size_t n, scap;
	size_t budget;         /* bytes a chunk may take, its lines' costs counted */
	uint64_t seen_lines, seen_bytes; /* the lines of the chunks handed out, and their bytes */
	uint64_t bytes;        /* bytes read */
	tpool *pool;           /* the threads that read and index a block, or NULL: this one */
	int out_fd;            /* the output when written in place (standard output), or -1 */
	char err[4300];
} text_loader;

/* Start reading inputs[0, n) ("-": standard input) in chunks of budget
 * bytes, on the threads of pool (NULL: on this one). out_fd: the
 * descriptor the output will be written to in place (standard output), or
 * -1 (a new file, renamed at the end): an input that is that file
 * (`gpusort in 1<>in`) is read into memory, never mapped, since the output
 * overwrites it while the mapping is still read. */
void text_load_init(text_loader *l, char *const *inputs, int n, unsigned char eol, size_t budget, tpool *pool,
		    int out_fd);

/*
 * Read the next chunk into *c (valid until the next call). Returns 1 and
 * a chunk of at least one line, 0 when the inputs are all read and no
 * line is left, or -1 with l->err ("cannot read: NAME: ...", "read
 * failed: NAME: ...", out of memory). *last: 1 when no input is left
 * after this chunk.
 */
int text_load_chunk(text_loader *l, text_chunk *c, int *last);

/* The bytes l's buffers hold (the chunk's lines and their offsets; a
 * mapped input's pages are the file's, not counted): what a merge's share
 * of -S leaves out. */
size_t text_load_held(const text_loader *l);

/* Give back l's buffers' room past the chunk just read (its lines and
 * offsets stay where they are): the last chunk, kept in memory for the
 * merge, then holds only its own bytes, often far fewer than a chunk's. */
void text_load_trim(text_loader *l);

/* Free l's buffers once text_load_chunk has returned 0 (every input read):
 * the merge that follows has -S to itself. */
void text_load_release(text_loader *l);

void text_load_free(text_loader *l);

#endif
