/* text_check.c - -c and -C of text lines (text_check.h). */
#define _GNU_SOURCE
#include "text_check.h"
#include "quote.h"
#include "text_order.h"
#include "../io/io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* -c of a stream: bytes a read (32 of text_order_first's pieces of a MiB,
 * so that every thread has some), and the room before each buffer for what
 * the one before carried over (a longer carry gets a window of its own) */
#define STREAM_BLOCK ((size_t)32 << 20)
#define STREAM_ROOM ((size_t)1 << 20)

/* The first error's message, status 2. */
static void fail(text_result *res, const char *fmt, ...)
{
	if (res->r.status)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->r.msg, sizeof res->r.msg, fmt, ap);
	va_end(ap);
	res->r.status = 2;
}

/* The disorder: the message, and the line (delimiter added) for main to print after it. */
static void disorder(const text_spec *s, text_result *res, const char *name, uint64_t line_no, const uint8_t *line,
		     size_t len)
{
	res->r.status = 1;
	snprintf(res->r.msg, sizeof res->r.msg, "%s:%" PRIu64 ": disorder: ", name, line_no);
	if ((res->disorder = malloc(len + 1))) {
		memcpy(res->disorder, line, len);
		res->disorder[len] = s->eol;
		res->disorder_len = len + 1;
	}
}

/*
 * A regular file mapped and checked on every thread (text_order_first),
 * from f->pos (standard input redirected from a file may start past byte
 * 0), the first line out of order numbered by the delimiters before it.
 * Returns 0 (checked: res says how), or 1 when f is not a regular file
 * that maps (a pipe, a terminal): the caller reads it as a stream.
 */
static int check_mapped(const text_spec *s, const io_file *f, tpool *pool, text_result *res)
{
	if (!f->regular)
		return 1;
	int fd = dup(f->fd); /* io_map_regular closes the one it is given */
	const uint8_t *map;
	size_t mapped;
	if (fd < 0 || io_map_regular(fd, &map, &mapped))
		return 1;
	const uint8_t *p = map + (f->pos < mapped ? f->pos : mapped);
	size_t size = f->pos < mapped ? mapped - (size_t)f->pos : 0;
	size_t off = size ? text_order_first(s, p, size, s->unique, pool) : SIZE_MAX;
	if (off == SIZE_MAX) {
		res->lines = text_order_lines(s, p, size, pool);
	} else {
		const uint8_t *e = memchr(p + off, s->eol, size - off);
		res->lines = text_order_lines(s, p, off, pool) + 1;
		disorder(s, res, f->name, res->lines, p + off, e ? (size_t)(e - (p + off)) : size - off);
	}
	if (mapped)
		munmap((void *)map, mapped);
	return 0;
}

/*
 * A stream read into two buffers in turn by an I/O worker (as the bytes
 * arrive: IO_JOB_READ_ARRIVED, so that a slow producer's disorder is
 * reported soon after it comes, where sort(1) waits for 256 KiB) while
 * the lines of the other are checked on pool's threads. Each
 * buffer's lines follow, in one window, what the buffer before carried
 * over: its last complete line, already checked, and the start of a line
 * it did not end. The window is the buffer's own room before its bytes
 * when that holds the carry, else a buffer of its own (a line longer
 * than the room). `block`: bytes a read; the room is as large, up to
 * STREAM_ROOM.
 */
static void check_stream(const text_spec *s, io_file *f, size_t block, tpool *pool, text_result *res)
{
	const size_t room = block < STREAM_ROOM ? block : STREAM_ROOM;
	uint8_t *base = malloc(2 * (room + block)), *buf[2], *big = NULL;
	size_t bigcap = 0;
	const uint8_t *carry = NULL; /* [the line checked last (prev)] and the part of the next */
	size_t clen = 0;
	int prev = 0, in_big = 0, cur = 0, pending = 0;
	uint64_t lines = 0; /* complete lines checked, the carried one among them */
	atomic_int stop;
	io_worker w;
	io_job job[2];
	atomic_init(&stop, 0);
	if (!base) {
		fail(res, "out of memory");
		return;
	}
	int rc = io_worker_start(&w);
	if (rc) {
		fail(res, "cannot start a thread: %s", strerror(-rc));
		free(base);
		return;
	}
	for (int i = 0; i < 2; i++) {
		buf[i] = base + i * (room + block) + room;
		job[i] = (io_job){ .op = IO_JOB_READ_ARRIVED, .f = f, .buf = buf[i], .len = block, .cap = block,
				  .stop = &stop };
	}
	io_worker_submit(&w, &job[0]);
	pending = 1;
	for (;; cur ^= 1) {
		ssize_t got = io_worker_wait(&w, &job[cur]);
		pending = 0;
		if (got < 0) {
			fail(res, "read failed: %s: %s", quote_name(f->name), strerror((int)-got));
			break;
		}
		/* the window: the carry, then the bytes read */
		uint8_t *win;
		size_t wlen = clen + (size_t)got;
		if (clen <= room) {
			win = buf[cur] - clen;
			memcpy(win, carry, clen); /* the carry is in the other buffer, or in big */
		} else {
			if (in_big && carry != big)
				memmove(big, carry, clen);
			if (wlen > bigcap) {
				uint8_t *nb = realloc(big, wlen * 2);
				if (!nb) {
					fail(res, "out of memory");
					break;
				}
				big = nb, bigcap = wlen * 2;
			}
			if (!in_big)
				memcpy(big, carry, clen);
			memcpy(big + clen, buf[cur], (size_t)got);
			win = big;
		}
		in_big = win == big;
		int eof = f->eof;
		if (!eof) { /* the next read, while this window is checked */
			io_worker_submit(&w, &job[cur ^ 1]);
			pending = 1;
		}
		/* its complete lines: up to its last delimiter, or all at the end */
		size_t end = wlen;
		if (!eof) {
			const uint8_t *e = memrchr(win, s->eol, wlen);
			end = e ? (size_t)(e - win) + 1 : 0;
		}
		if (!end) { /* no line ended yet: all of it carried */
			carry = win, clen = wlen;
			if (eof)
				break;
			continue;
		}
		size_t off = text_order_first(s, win, end, s->unique, pool);
		if (off != SIZE_MAX) {
			lines += text_order_lines(s, win, off, pool) - (uint64_t)prev + 1;
			const uint8_t *e = memchr(win + off, s->eol, end - off);
			disorder(s, res, f->name, lines, win + off, e ? (size_t)(e - (win + off)) : end - off);
			break;
		}
		lines += text_order_lines(s, win, end, pool) - (uint64_t)prev;
		if (eof)
			break;
		/* carried: the last complete line, then what follows it */
		const uint8_t *b = end >= 2 ? memrchr(win, s->eol, end - 1) : NULL;
		carry = b ? b + 1 : win;
		clen = wlen - (size_t)(carry - win);
		prev = 1;
	}
	atomic_store(&stop, 1);
	if (pending)
		io_worker_wait(&w, &job[cur ^ 1]);
	io_worker_stop(&w);
	res->lines = lines;
	free(base);
	free(big);
}

void text_check_run(const text_spec *s, const char *name, size_t block, tpool *pool, text_result *res)
{
	io_file f;
	int rc = io_open_input(&f, name);
	if (rc) { /* sort(1)'s check opens the file with xfopen: its messages */
		if (rc == -EISDIR)
			fail(res, "read failed: %s: %s", quote_name(name), strerror(-rc));
		else
			fail(res, "open failed: %s: %s", quote_name(name), strerror(-rc));
		return;
	}
	if (check_mapped(s, &f, pool, res))
		check_stream(s, &f, block ? block : STREAM_BLOCK, pool, res);
	io_close(&f);
}
