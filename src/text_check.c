/* text_check.c - -c and -C of text lines (text_check.h). */
#define _GNU_SOURCE
#include "text_check.h"
#include "quote.h"
#include "text_cmp.h"
#include "text_io.h"
#include "text_order.h"
#include "../io/io.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
 * the first line out of order numbered by the delimiters before it.
 * Returns 0 (checked, or failed: res says which), or 1 when the input is
 * not a regular file that maps (standard input, a pipe).
 */
static int check_mapped(const text_spec *s, const char *name, tpool *pool, text_result *res)
{
	if (!strcmp(name, "-"))
		return 1;
	int fd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) { /* sort(1)'s check opens the file with xfopen: its message */
		fail(res, "open failed: %s: %s", quote_name(name), strerror(errno));
		return 0;
	}
	const uint8_t *p;
	size_t size;
	if (io_map_regular(fd, &p, &size))
		return 1;
	if (!size)
		return 0; /* no lines: in order */
	size_t off = text_order_first(s, p, size, s->unique, pool);
	if (off == SIZE_MAX) {
		res->lines = text_order_lines(s, p, size, pool);
	} else {
		const uint8_t *e = memchr(p + off, s->eol, size - off);
		res->lines = text_order_lines(s, p, off, pool) + 1;
		disorder(s, res, name, res->lines, p + off, e ? (size_t)(e - (p + off)) : size - off);
	}
	munmap((void *)p, size);
	return 0;
}

void text_check_run(const text_spec *s, const char *name, tpool *pool, text_result *res)
{
	if (!check_mapped(s, name, pool, res))
		return;
	text_reader r;
	int rc = text_reader_open(&r, name, s->eol, (size_t)1 << 20);
	if (rc) { /* sort(1)'s check opens the file with xfopen: its message */
		fail(res, "open failed: %s: %s", quote_name(name), strerror(-rc));
		return;
	}
	uint8_t *prev = NULL;
	size_t plen = 0, pcap = 0;
	int have = 0;
	const uint8_t *line;
	size_t len;
	while ((rc = text_reader_next(&r, &line, &len)) == 1) {
		if (have) {
			int d = text_cmp(s, prev, plen, line, len);
			if (s->unique ? d >= 0 : d > 0) {
				disorder(s, res, name, r.lines, line, len);
				break;
			}
		}
		if (len > pcap) {
			pcap = len * 2 + 64;
			uint8_t *np = realloc(prev, pcap);
			if (!np) {
				fail(res, "out of memory");
				break;
			}
			prev = np;
		}
		memcpy(prev, line, len);
		plen = len;
		have = 1;
	}
	if (rc < 0)
		fail(res, "read failed: %s: %s", quote_name(name), strerror(-rc));
	res->lines = r.lines;
	free(prev);
	text_reader_close(&r);
}
