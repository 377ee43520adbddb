/* text_io.c - line reader and writer (text_io.h). */
#define _GNU_SOURCE
#include "text_io.h"
#include "text_debug.h"
#include "progress.h"
#include "text_cmp.h"
#include "../io/io.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static int reader_init(text_reader *r, unsigned char eol, size_t bufsize)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	r->eol = eol;
	r->cap = bufsize < 4096 ? 4096 : bufsize;
	return (r->buf = malloc(r->cap)) ? 0 : -ENOMEM;
}

int text_reader_open(text_reader *r, const char *path, unsigned char eol, size_t bufsize)
{
	if (reader_init(r, eol, bufsize))
		return -ENOMEM;
	snprintf(r->name, sizeof r->name, "%s", path);
	if (!strcmp(path, "-")) {
		r->fd = STDIN_FILENO;
		return 0;
	}
	r->fd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		int e = -errno;
		free(r->buf);
		r->buf = NULL;
		return e;
	}
	r->own = 1;
	return 0;
}

int text_reader_open_run(text_reader *r, int fd, int positioned, uint64_t want, unsigned char eol, size_t bufsize)
{
	if (reader_init(r, eol, bufsize))
		return -ENOMEM;
	r->fd = fd;
	r->positioned = positioned;
	r->want = want;
	if (!(r->xxh = XXH3_createState())) {
		free(r->buf);
		r->buf = NULL;
		return -ENOMEM;
	}
	XXH3_64bits_reset(r->xxh);
	snprintf(r->name, sizeof r->name, "a spilled run");
	return 0;
}

int text_reader_map(text_reader *r, uint64_t bytes)
{
	if (!r->positioned || r->off || !bytes || bytes > SIZE_MAX / 2)
		return -EINVAL;
	void *p = mmap(NULL, (size_t)bytes, PROT_READ, MAP_SHARED, r->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (io_fault_is("run-shrinks")) /* the test build: a page past the end raises SIGBUS */
		(void)!ftruncate(r->fd, (off_t)(bytes / 2));
	free(r->buf);
	r->buf = NULL;
	r->map = p;
	r->mapsize = r->maplen = (size_t)bytes;
	r->beg = r->end = 0;
	return 0;
}

int text_reader_map_input(text_reader *r, int out_fd)
{
	struct stat st;
	if (r->map || r->off || r->lines || r->end || r->fd < 0 || fstat(r->fd, &st))
		return -EINVAL;
	if (!S_ISREG(st.st_mode) || st.st_size < 1 || (uint64_t)st.st_size > SIZE_MAX / 4 ||
	    (out_fd >= 0 && io_same_inode(r->fd, out_fd)))
		return -EINVAL;
	size_t size = (size_t)st.st_size, len;
	void *base;
	int added;
	uint8_t *data = io_map_lines(r->fd, 0, size, r->eol, &base, &len, &added);
	if (!data)
		return -errno;
	io_fault_change_input(r->name, size / 2); /* the test build: cut while mapped */
	free(r->buf);
	r->buf = NULL;
	r->map = data; /* == base: mapped from offset 0 */
	r->mapsize = size + (size_t)added;
	r->maplen = len;
	r->in_size = (uint64_t)st.st_size;
	r->in_mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	r->beg = r->end = 0;
	return 0;
}

int text_reader_unchanged(const text_reader *r)
{
	if (!r->map || r->xxh)
		return 0;
	return io_fd_changed(r->fd, r->in_size, r->in_mtime);
}

/* A mapped run's next piece (up to a buffer's bytes) taken in: hashed,
 * as fill() hashes what it reads. Returns bytes taken, 0 at the end, or -errno. */
static ssize_t take_mapped(text_reader *r)
{
	const size_t piece = r->mapsize - r->end < r->cap ? r->mapsize - r->end : r->cap;
	if (!piece)
		return 0;
	size_t want = piece;
	while (io_fault_rw(IO_FAULT_READ, &want)) { /* the test build's faults, as a read's */
		if (errno != EINTR)
			return -errno;
		want = piece; /* interrupted: taken again, as fill retries read() */
	}
	const uint8_t *p = r->map + r->end;
	if (!r->xxh) {
		/* an input: nothing to hash */
	} else if (io_fault_is("corrupt-spill")) {
		uint8_t flipped = p[0] ^ 1; /* a bad disk: the run's hash must catch it */
		XXH3_64bits_update(r->xxh, &flipped, 1);
		XXH3_64bits_update(r->xxh, p + 1, want - 1);
	} else {
		XXH3_64bits_update(r->xxh, p, want);
	}
	r->end += want;
	r->off += want;
	return (ssize_t)want;
}

int text_reader_check_mapped(text_reader *r)
{
	if (!r->map || r->end)
		return -EINVAL;
	ssize_t n;
	while ((n = take_mapped(r)) > 0)
		if (!r->xxh) { /* an input's lines, counted for the writer (the compiler's vector loop) */
			const uint8_t *p = r->map + r->end - n;
			uint32_t c = 0; /* a piece is a reader's buffer: below 4 GiB */
			for (ssize_t i = 0; i < n; i++)
				c += p[i] == r->eol;
			r->lines += c;
		}
	if (n < 0)
		return (int)n;
	r->eof = 1;
	r->beg = r->end;
	return !r->xxh || XXH3_64bits_digest(r->xxh) == r->want ? 0 : -EBADMSG;
}

int text_reader_take_mapped(text_reader *r, size_t upto, uint64_t lines)
{
	if (!r->map || upto < r->beg || upto > r->mapsize)
		return -EINVAL;
	while (r->end < upto) {
		ssize_t n = take_mapped(r);
		if (n < 0)
			return (int)n;
	}
	r->beg = upto;
	r->lines += lines;
	if (upto < r->mapsize)
		return 0;
	r->eof = 1;
	return !r->xxh || XXH3_64bits_digest(r->xxh) == r->want ? 1 : -EBADMSG;
}

/* text_reader_next of a mapped run. */
static int next_mapped(text_reader *r, const uint8_t **line, size_t *len)
{
	size_t scanned = r->beg;
	for (;;) {
		const uint8_t *e = memchr(r->map + scanned, r->eol, r->end - scanned);
		if (e) {
			*line = r->map + r->beg;
			*len = (size_t)(e - *line);
			r->beg = (size_t)(e - r->map) + 1;
			r->lines++;
			return 1;
		}
		scanned = r->end;
		if (r->eof) /* every line of a run whose hash matched has its delimiter */
			return r->beg == r->end ? 0 : -EBADMSG;
		ssize_t n = take_mapped(r);
		if (n < 0)
			return (int)n;
		if (n == 0) {
			r->eof = 1;
			if (r->xxh && XXH3_64bits_digest(r->xxh) != r->want)
				return -EBADMSG;
		}
	}
}

/* Read more bytes after buf[end), moving or growing the buffer as needed.
 * Returns bytes read, 0 at the end, or -errno. */
static ssize_t fill(text_reader *r)
{
	if (r->beg > 0 && r->end == r->cap) {
		memmove(r->buf, r->buf + r->beg, r->end - r->beg);
		r->end -= r->beg;
		r->beg = 0;
	}
	if (r->end == r->cap) {
		uint8_t *nb = realloc(r->buf, r->cap * 2);
		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap *= 2;
	}
	for (;;) {
		size_t want = r->cap - r->end;
		ssize_t n = io_fault_rw(IO_FAULT_READ, &want) ? -1
			    : r->positioned ? pread(r->fd, r->buf + r->end, want, (off_t)r->off)
					    : read(r->fd, r->buf + r->end, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n > 0 && r->xxh && io_fault_is("corrupt-spill"))
			r->buf[r->end] ^= 1; /* a bad disk: the run's hash must catch it */
		if (r->xxh)
			XXH3_64bits_update(r->xxh, r->buf + r->end, (size_t)n);
		r->off += (uint64_t)n;
		r->end += (size_t)n;
		return n;
	}
}

int text_reader_next(text_reader *r, const uint8_t **line, size_t *len)
{
	if (r->map)
		return next_mapped(r, line, len);
	size_t scanned = r->beg;
	for (;;) {
		uint8_t *e = memchr(r->buf + scanned, r->eol, r->end - scanned);
		if (e) {
			*line = r->buf + r->beg;
			*len = (size_t)(e - *line);
			r->beg = (size_t)(e - r->buf) + 1;
			r->lines++;
			return 1;
		}
		if (r->eof) {
			if (r->beg == r->end)
				return 0;
			*line = r->buf + r->beg; /* the last line, without its delimiter */
			*len = r->end - r->beg;
			r->beg = r->end;
			r->lines++;
			return 1;
		}
		size_t have = r->end - r->beg;
		ssize_t n = fill(r);
		if (n < 0)
			return (int)n;
		scanned = r->beg + have; /* fill may have moved the bytes */
		if (n == 0) {
			r->eof = 1;
			if (r->xxh && XXH3_64bits_digest(r->xxh) != r->want)
				return -EBADMSG;
		}
	}
}

void text_reader_close(text_reader *r)
{
	if (r->own && r->fd >= 0)
		close(r->fd);
	if (r->xxh)
		XXH3_freeState(r->xxh);
	if (r->map)
		munmap((void *)r->map, r->maplen);
	free(r->buf);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

int text_writer_open(text_writer *w, int fd, size_t bufsize, unsigned char eol, const text_spec *unique, int hash)
{
	memset(w, 0, sizeof *w);
	w->fd = fd;
	w->cap = bufsize < 4096 ? 4096 : bufsize;
	w->unique = unique;
	w->eol = eol;
	if (!(w->buf = malloc(w->cap)))
		return -ENOMEM;
	if (hash) {
		if (!(w->xxh = XXH3_createState())) {
			free(w->buf);
			return -ENOMEM;
		}
		XXH3_64bits_reset(w->xxh);
	}
	return 0;
}

static int put(text_writer *w, const uint8_t *p, size_t n)
{
	if (w->xxh)
		XXH3_64bits_update(w->xxh, p, n);
	w->bytes += n;
	while (n) {
		if (w->len == w->cap) {
			int rc = text_writer_flush(w, NULL);
			if (rc)
				return rc;
		}
		if (!w->len && n >= w->cap) { /* a long line: straight out */
			size_t want = n;
			ssize_t k = io_fault_rw(IO_FAULT_WRITE, &want) ? -1 : write(w->fd, p, want);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return -errno;
			p += k, n -= (size_t)k;
			continue;
		}
		size_t k = w->cap - w->len < n ? w->cap - w->len : n;
		memcpy(w->buf + w->len, p, k);
		w->len += k, p += k, n -= k;
	}
	return 0;
}

uint64_t text_line_hash(const uint8_t *line, size_t len)
{
	return XXH3_64bits(line, len);
}

/* Keep a copy of the line just written (-u and --verify compare with it). */
static int keep_last(text_writer *w, const uint8_t *line, size_t len)
{
	if (len > w->last_cap || !w->last) { /* an empty line's copy has an address too */
		size_t cap = len * 2 + 64;
		uint8_t *nl = realloc(w->last, cap);
		if (!nl)
			return -ENOMEM;
		w->last = nl;
		w->last_cap = cap;
	}
	memcpy(w->last, line, len);
	w->last_len = len;
	w->have_last = 1;
	return 0;
}

/* --debug: the line and its keys' marks (text_debug_line) out. */
static int debug_put(text_writer *w, const uint8_t *line, size_t len)
{
	long n = text_debug_line(w->debug, line, len, &w->dbuf, &w->dcap);
	return n < 0 ? -ENOMEM : put(w, w->dbuf, (size_t)n);
}

void text_writer_hash(text_writer *w, const uint8_t *buf, size_t n)
{
	if (w->xxh)
		XXH3_64bits_update(w->xxh, buf, n);
}

int text_writer_set_last(text_writer *w, const uint8_t *line, size_t len)
{
	return keep_last(w, line, len);
}

/* --progress: the line's bytes (and its delimiter) counted, reported in 4 MiB steps. */
static void count_progress(text_writer *w, size_t len)
{
	w->prog_pending += len + 1;
	w->prog_done += len + 1;
	if (w->prog_pending >= ((uint64_t)4 << 20)) {
		progress_add(w->prog, w->prog_pending);
		w->prog_pending = 0;
	}
}

int text_writer_line(text_writer *w, const uint8_t *line, size_t len)
{
	if (w->prog)
		count_progress(w, len);
	int d = 1;
	if (w->have_last && (w->unique || w->verify))
		d = text_cmp(w->unique ? w->unique : w->verify, w->last, w->last_len, line, len);
	if (w->unique && !d)
		return 0;
	if (w->verify) {
		if (d > 0 && w->have_last && !w->vbad)
			w->vbad = w->lines + 1;
		w->vsum += text_line_hash(line, len);
	}
	if ((w->unique || w->verify) && keep_last(w, line, len))
		return -ENOMEM;
	w->lines++;
	if (w->debug)
		return debug_put(w, line, len);
	int rc = put(w, line, len);
	return rc ? rc : put(w, &w->eol, 1);
}

int text_writer_bytes(text_writer *w, const uint8_t *buf, size_t n, uint64_t lines)
{
	w->lines += lines;
	if (!w->debug)
		return put(w, buf, n);
	for (const uint8_t *p = buf, *end = buf + n; p < end;) {
		const uint8_t *e = memchr(p, w->eol, (size_t)(end - p));
		e = e ? e : end;
		int rc = debug_put(w, p, (size_t)(e - p));
		if (rc)
			return rc;
		p = e + 1;
	}
	return 0;
}

int text_writer_flush(text_writer *w, uint64_t *hash)
{
	if (w->prog && w->prog_pending) {
		progress_add(w->prog, w->prog_pending);
		w->prog_pending = 0;
	}
	size_t done = 0;
	while (done < w->len) {
		size_t want = w->len - done;
		ssize_t k = io_fault_rw(IO_FAULT_WRITE, &want) ? -1 : write(w->fd, w->buf + done, want);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		done += (size_t)k;
	}
	w->len = 0;
	if (hash)
		*hash = w->xxh ? XXH3_64bits_digest(w->xxh) : 0;
	return 0;
}

void text_writer_close(text_writer *w)
{
	if (w->xxh)
		XXH3_freeState(w->xxh);
	free(w->buf);
	free(w->last);
	free(w->dbuf);
	memset(w, 0, sizeof *w);
}
