/* text_load.c - inputs read into chunks of lines (text_load.h). */
#define _GNU_SOURCE
#include "text_load.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void text_load_init(text_loader *l, char *const *inputs, int n, unsigned char eol, size_t budget)
{
	memset(l, 0, sizeof *l);
	l->inputs = inputs;
	l->ninputs = n;
	l->fd = -1;
	l->eol = eol;
	l->budget = budget;
}

static int fail(text_loader *l, const char *what, int err)
{
	snprintf(l->err, sizeof l->err, "%s: %s: %s", what, l->name, strerror(err));
	return -1;
}

static int oom(text_loader *l)
{
	snprintf(l->err, sizeof l->err, "out of memory reading %s", l->name ? l->name : "the input");
	return -1;
}

/* Record a line that starts at offset off. */
static int add_start(text_loader *l, uint64_t off)
{
	if (l->n + 1 >= l->scap) {
		size_t cap = l->scap ? l->scap * 2 : 4096;
		uint64_t *ns = realloc(l->start, cap * sizeof *ns);
		if (!ns)
			return -1;
		l->start = ns;
		l->scap = cap;
	}
	l->start[++l->n] = off;
	return 0;
}

static int grow_buf(text_loader *l, size_t need)
{
	if (need <= l->cap)
		return 0;
	size_t cap = l->cap ? l->cap : (size_t)1 << 16;
	while (cap < need)
		cap *= 2;
	uint8_t *nb = realloc(l->buf, cap);
	if (!nb)
		return -1;
	l->buf = nb;
	l->cap = cap;
	return 0;
}

/* The chunk is full: its lines and their costs reach the budget. */
static int full(const text_loader *l)
{
	return l->n && l->start[l->n] + (uint64_t)l->n * TEXT_LINE_COST >= l->budget;
}

int text_load_chunk(text_loader *l, text_chunk *c, int *last)
{
	if (!l->start && add_start(l, 0))
		return oom(l);
	/* the previous chunk's partial last line starts this one */
	if (l->n) {
		size_t tail = l->len - (size_t)l->start[l->n];
		memmove(l->buf, l->buf + l->start[l->n], tail);
		l->len = tail;
		l->n = 0;
		l->start[0] = 0;
	}
	while (!full(l)) {
		if (l->fd < 0) {
			if (l->next == l->ninputs)
				break;
			l->name = l->inputs[l->next++];
			if (!strcmp(l->name, "-")) {
				l->fd = STDIN_FILENO;
				l->own = 0;
			} else if ((l->fd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(l->name, O_RDONLY | O_CLOEXEC)) < 0) {
				return fail(l, "cannot read", errno);
			} else {
				l->own = 1;
				posix_fadvise(l->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
			}
		}
		if (l->len == l->cap) {
			size_t want = l->cap ? l->cap * 2 : (size_t)1 << 20;
			if (l->n && want > l->budget && l->cap >= l->budget / 2)
				break; /* no room for more lines: the tail waits for the next chunk */
			if (grow_buf(l, want))
				return oom(l);
		}
		size_t room = l->cap - l->len;
		ssize_t k = io_fault_rw(IO_FAULT_READ, &room) ? -1 : read(l->fd, l->buf + l->len, room);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return fail(l, "read failed", errno);
		if (k == 0) {
			if (l->own)
				close(l->fd);
			l->fd = -1;
			if (l->len > l->start[l->n]) { /* a last line without its delimiter */
				if (grow_buf(l, l->len + 1))
					return oom(l);
				l->buf[l->len++] = l->eol;
				if (add_start(l, l->len))
					return oom(l);
			}
			continue;
		}
		l->bytes += (uint64_t)k;
		const uint8_t *p = l->buf + l->len, *end = p + k;
		while ((p = memchr(p, l->eol, (size_t)(end - p)))) {
			p++;
			if (add_start(l, (uint64_t)(p - l->buf)))
				return oom(l);
		}
		l->len += (size_t)k;
	}
	c->buf = l->buf;
	c->start = l->start;
	c->n = l->n;
	*last = l->fd < 0 && l->next == l->ninputs && l->len == l->start[l->n];
	return l->n ? 1 : 0;
}

void text_load_free(text_loader *l)
{
	if (l->own && l->fd >= 0)
		close(l->fd);
	free(l->buf);
	free(l->start);
	memset(l, 0, sizeof *l);
	l->fd = -1;
}
