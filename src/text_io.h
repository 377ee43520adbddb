/*
 * text_io.h - lines in and out: a reader that hands out one line at a time
 * from a file, a pipe or a spilled run (checking a run's XXH3 when it has
 * read it all), and a buffered writer with -u's filter. Lines are handed
 * out and taken without their delimiter; a last line without one is a
 * line.
 */
#ifndef GPUSORT_TEXT_IO_H
#define GPUSORT_TEXT_IO_H
#include <stddef.h>
#include <stdint.h>
#include "text_spec.h"

typedef struct text_reader {
	int fd;
	int own;               /* close fd in text_reader_close */
	uint64_t off;          /* next byte to read: a run's are read by offset */
	int positioned;        /* read with pread from off (a spilled run), else read() */
	uint8_t *buf;
	size_t cap, beg, end;  /* unread bytes: buf[beg, end) */
	int eof;
	unsigned char eol;
	uint64_t lines;        /* lines handed out */
	void *xxh;             /* a run's running hash, or NULL */
	uint64_t want;         /* the run's hash, checked at its end */
	const uint8_t *map;    /* a run or an input read through a mapping (text_reader_map,
				* text_reader_map_input): lines are map[beg, ...), taken (hashed) up
				* to end; NULL: read into buf */
	size_t mapsize;        /* the bytes of lines there (an input's: with a delimiter added) */
	size_t maplen;         /* the mapping's bytes (munmap) */
	uint64_t in_size;      /* a mapped input: its size and modification time (ns) when mapped */
	int64_t in_mtime;
	char name[4096];       /* for messages */
} text_reader;

/*
 * Open a reader on path ("-": standard input). bufsize: the first
 * buffer's bytes (it grows for a longer line). Returns 0 or -errno.
 */
int text_reader_open(text_reader *r, const char *path, unsigned char eol, size_t bufsize);

/*
 * Open a reader on a run: descriptor fd, read from offset 0 with pread
 * (positioned) or as a stream (a decompressor's pipe), its XXH3 checked
 * against want at its end. fd stays the caller's. Returns 0 or -ENOMEM.
 */
int text_reader_open_run(text_reader *r, int fd, int positioned, uint64_t want, unsigned char eol, size_t bufsize);

/*
 * Read a positioned run (text_reader_open_run, nothing read yet) of
 * `bytes` bytes through a read-only mapping of its file instead: no copy
 * out of the page cache, and the lines text_reader_next hands out stay
 * where they are until text_reader_close (so text_ahead keeps pointers,
 * not copies). Its XXH3 is still taken, in pieces of the reader's buffer
 * size, each counted as a read by the test build's faults. Only for a file
 * no one else can cut short (an unlinked run of ours): a mapped page past
 * a truncated end raises SIGBUS. Returns 0, or -errno (the reader is left
 * as it was: read it with pread).
 */
int text_reader_map(text_reader *r, uint64_t bytes);

/*
 * Read an input file (text_reader_open, nothing read yet) through a
 * private read-only mapping instead, as a run is: a regular file of at
 * least one byte that is not out_fd's (written in place, it would change
 * under the mapping; -1: none). A last line without its delimiter gets one
 * in the page after the file's end (the file's own last page, copied on
 * that write, or an anonymous page reserved there), so every line handed
 * out is followed by its delimiter, and mapsize counts it. No hash: the
 * file is checked unchanged at its end instead (text_reader_unchanged);
 * a file cut short under the mapping raises SIGBUS, which
 * io_sigbus_install turns into an error. Returns 0, or -errno (the reader
 * is left as it was: read it).
 */
int text_reader_map_input(text_reader *r, int out_fd);

/*
 * A mapped input's size and modification time against those when it was
 * mapped: 0 unchanged, 1 changed (grown or rewritten while read: the
 * caller's error), -errno when fstat fails. 0 for any other reader.
 */
int text_reader_unchanged(const text_reader *r);

/*
 * Check a mapped run (text_reader_map, nothing read yet) whole: its XXH3
 * taken over every byte, in pieces as text_reader_next takes them, the
 * lines then all read (a merge that copies the run whole, text_concat).
 * A mapped input (text_reader_map_input) has no hash: its lines are
 * counted into r->lines instead. Returns 0, -EBADMSG when the hash does
 * not match, or -errno.
 */
int text_reader_check_mapped(text_reader *r);

/*
 * Take a mapped run's bytes up to offset upto (just after a line's end,
 * or the mapping's size; not before what was taken) as text_reader_next
 * would take them, their lines found by the caller (text_ahead's pieces):
 * hashed in the reader's pieces, each counted as a read by the test
 * build's faults, `lines` counted, the next line at upto. Returns 0 (more
 * to come), 1 at the run's end with its hash matched, -EBADMSG when it
 * did not, or -errno.
 */
int text_reader_take_mapped(text_reader *r, size_t upto, uint64_t lines);

/*
 * The next line: *line and *len (without the delimiter), valid until the
 * next call (a mapped run's: until text_reader_close). Returns 1, 0 at the end, -errno on a read error, or -EBADMSG
 * when a run's hash does not match.
 */
int text_reader_next(text_reader *r, const uint8_t **line, size_t *len);

void text_reader_close(text_reader *r);

typedef struct text_writer {
	int fd;
	uint8_t *buf;
	size_t len, cap;
	unsigned char eol;
	const text_spec *unique; /* -u: drop a line equal to the last one written; NULL: keep all */
	uint8_t *last;
	size_t last_len, last_cap;
	int have_last;
	uint64_t lines, bytes;   /* written */
	void *xxh;               /* a run's running hash, or NULL */
	const text_spec *verify; /* --verify: check the order and sum the lines (text_line_hash); NULL: off */
	uint64_t vsum;           /* --verify: the sum of the written lines' hashes */
	uint64_t vbad;           /* --verify: the number of the first line out of order; 0: none */
	struct progress *prog;   /* --progress: where the bytes of the lines given go, or NULL */
	uint64_t prog_pending;   /* given since the last progress_add */
	uint64_t prog_done;      /* given in all (what -u drops counted: the merge's bytes, not the output's) */
	const text_spec *debug;  /* --debug: each line written as text_debug_line shows it; NULL: off */
	uint8_t *dbuf;           /* --debug: a line's annotation */
	size_t dcap;
} text_writer;

/* --verify's hash of one line: sums of these compare multisets of lines. */
uint64_t text_line_hash(const uint8_t *line, size_t len);

/*
 * Start a writer on fd with a buffer of bufsize bytes, lines ending in eol;
 * unique: the spec
 * whose -u applies, or NULL; hash: 1 to hash what is written (a run).
 * Returns 0 or -ENOMEM.
 */
int text_writer_open(text_writer *w, int fd, size_t bufsize, unsigned char eol, const text_spec *unique, int hash);

/*
 * Write one line and its delimiter (unless -u drops it); with w->verify
 * set, check it against the last line written and add its hash to vsum.
 * Returns 0 or -errno.
 */
int text_writer_line(text_writer *w, const uint8_t *line, size_t len);

/*
 * Write n bytes holding `lines` whole lines, delimiters included, as they
 * are (-u and --verify are the caller's: text_gather.h, text_merge_par.h).
 * Returns 0 or -errno.
 */
int text_writer_bytes(text_writer *w, const uint8_t *buf, size_t n, uint64_t lines);

/* The line -u and --verify compare the next one with: a copy of
 * [line, len), for lines written past text_writer_line (text_gather.h).
 * Returns 0 or -ENOMEM. */
int text_writer_set_last(text_writer *w, const uint8_t *line, size_t len);

/* A run's hash (text_writer_open's hash) over n bytes written past the
 * writer, into a mapping of its file (text_gather's mapped output). */
void text_writer_hash(text_writer *w, const uint8_t *buf, size_t n);

/* Write out the buffer. Returns 0 or -errno. *hash (may be NULL): the run's hash. */
int text_writer_flush(text_writer *w, uint64_t *hash);

void text_writer_close(text_writer *w);

#endif
