/* text_check.c - -c and -C of text lines (text_check.h). */
#define _GNU_SOURCE
#include "text_check.h"
#include "quote.h"
#include "text_order.h"
#include "../io/io.h"

#include <errno.h>
#include <inttypes.h>
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

/* What a stream's window carries over to the next: the last complete
 * line checked (prev), then the start of a line not yet ended. */
typedef struct carry {
	const uint8_t *at;
	size_t len;
	int prev;
	uint8_t *big;      /* a window of its own, for a carry longer than the room */
	size_t bigcap;
	int in_big;        /* at points into big */
	uint64_t lines;    /* complete lines checked, the carried one among them */
} carry;

/* The window of `got` bytes read into buf, after k's carry: in buf's room
 * (`room` bytes before it) when the carry fits, else in k->big. Returns it
 * (*wlen its bytes) or NULL when k->big cannot grow. */
static uint8_t *window_of(carry *k, uint8_t *buf, size_t room, size_t got, size_t *wlen)
{
	uint8_t *win;
	*wlen = k->len + got;
	if (k->len <= room) {
		win = buf - k->len;
		if (k->len) /* the carry is in the other buffer, or in big */
			memcpy(win, k->at, k->len);
	} else {
		if (k->in_big && k->at != k->big)
			memmove(k->big, k->at, k->len);
		if (*wlen > k->bigcap) {
			uint8_t *nb = realloc(k->big, *wlen * 2);
			if (!nb)
				return NULL;
			k->big = nb, k->bigcap = *wlen * 2;
		}
		if (!k->in_big)
			memcpy(k->big, k->at, k->len);
		memcpy(k->big + k->len, buf, got);
		win = k->big;
	}
	k->in_big = win == k->big;
	return win;
}

/* The complete lines of the window win[0, wlen) (all of them at the end
 * of the stream) checked on pool's threads; k then carries what follows
 * from it. Returns 1 on a disorder (res says it), else 0. */
static int check_window(const text_spec *s, const char *name, carry *k, const uint8_t *win, size_t wlen, int eof,
			tpool *pool, text_result *res)
{
	size_t end = wlen;
	if (!eof) { /* the last delimiter among the bytes read: the carry's were
		    * seen, and a long line is not searched again at every read */
		const uint8_t *e = memrchr(win + k->len, s->eol, wlen - k->len);
		end = e ? (size_t)(e - win) + 1 : 0;
	}
	if (!end) { /* no new line ended: all of it carried */
		k->at = win, k->len = wlen;
		return 0;
	}
	size_t off = text_order_first(s, win, end, s->unique, pool);
	if (off != SIZE_MAX) {
		k->lines += text_order_lines(s, win, off, pool) - (uint64_t)k->prev + 1;
		const uint8_t *e = memchr(win + off, s->eol, end - off);
		disorder(s, res, name, k->lines, win + off, e ? (size_t)(e - (win + off)) : end - off);
		return 1;
	}
	k->lines += text_order_lines(s, win, end, pool) - (uint64_t)k->prev;
	/* carried: the last complete line, then what follows it */
	const uint8_t *b = end >= 2 ? memrchr(win, s->eol, end - 1) : NULL;
	k->at = b ? b + 1 : win;
	k->len = wlen - (size_t)(k->at - win);
	k->prev = 1;
	return 0;
}

/*
 * A stream read into two buffers in turn by an I/O worker (as the bytes
 * arrive: IO_JOB_READ_ARRIVED, so that a slow producer's disorder is
 * reported soon after it comes, where sort(1) waits for 256 KiB) while
 * the lines of the other are checked on pool's threads, each buffer's
 * after what the one before carried over (window_of, check_window).
 * `block`: bytes a read; the room before each buffer is as large, up to
 * STREAM_ROOM.
 */
static void check_stream(const text_spec *s, io_file *f, size_t block, tpool *pool, text_result *res)
{
	const size_t room = block < STREAM_ROOM ? block : STREAM_ROOM;
	uint8_t *base = malloc(2 * (room + block)), *buf;
	carry k = { 0 };
	io_double d;
	int rc = base ? io_double_start(&d, f, base + room, base + room + block + room, block, block) : -ENOMEM;
	if (rc) {
		if (rc == -ENOMEM)
			fail(res, "out of memory");
		else
			fail(res, "cannot start a thread: %s", strerror(-rc));
		free(base);
		return;
	}
	for (;;) {
		ssize_t got = io_double_wait(&d, &buf);
		if (got < 0) {
			fail(res, "read failed: %s: %s", quote_name(f->name), strerror((int)-got));
			break;
		}
		size_t wlen;
		uint8_t *win = window_of(&k, buf, room, (size_t)got, &wlen);
		if (!win) {
			fail(res, "out of memory");
			break;
		}
		int eof = f->eof;
		if (!eof) /* the next read, while this window is checked */
			io_double_next(&d);
		if (check_window(s, f->name, &k, win, wlen, eof, pool, res) || eof)
			break;
	}
	io_double_stop(&d);
	res->lines = k.lines;
	free(base);
	free(k.big);
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
