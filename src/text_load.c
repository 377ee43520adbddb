/* text_load.c - inputs read into chunks of lines (text_load.h). */
#define _GNU_SOURCE
#include "text_load.h"
#include "quote.h"
#include "text_par.h"
#include "util.h"
#include "../io/io.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define LOAD_PAR_MIN ((size_t)4 << 10) /* bytes: a smaller block is read and indexed by this thread */
#define LOAD_PIECES 256                 /* most pieces a block is split into */
#define LOAD_READ_STEP ((size_t)8 << 20) /* bytes one pread asks for (a piece is read in steps) */
#define LOAD_STREAM_BLOCK ((size_t)4 << 20) /* bytes of a pipe read before they are indexed */
#define LOAD_FIRST ((size_t)1 << 20)    /* bytes of the first buffer */

void text_load_init(text_loader *l, char *const *inputs, int n, unsigned char eol, size_t budget, tpool *pool,
		    int out_fd)
{
	memset(l, 0, sizeof *l);
	l->inputs = inputs;
	l->ninputs = n;
	l->fd = -1;
	l->eol = eol;
	l->budget = budget;
	l->pool = pool;
	l->out_fd = out_fd;
}

static int fail(text_loader *l, const char *what, int err)
{
	snprintf(l->err, sizeof l->err, "%s: %s: %s", what, l->name ? quote_name(l->name) : "-", strerror(err));
	return -1;
}

static int oom(text_loader *l)
{
	snprintf(l->err, sizeof l->err, "out of memory reading %s", l->name ? l->name : "the input");
	return -1;
}

/* Room for `need` line offsets in l->start (on huge pages, as the
 * buffer: util_map_resize). 0, or -1 (out of memory). */
static int reserve_starts(text_loader *l, size_t need)
{
	if (need <= l->scap)
		return 0;
	size_t cap = l->scap * 2 > need ? l->scap * 2 : need < 4096 ? 4096 : need;
	uint64_t *ns = util_map_resize(l->start, l->scap * sizeof *ns, cap * sizeof *ns);
	if (!ns)
		return -1;
	l->start = ns;
	l->scap = cap;
	return 0;
}

/* Record a line that starts at offset off. */
static int add_start(text_loader *l, uint64_t off)
{
	if (reserve_starts(l, l->n + 2))
		return -1;
	l->start[++l->n] = off;
	return 0;
}

/* Room for `need` bytes in l->buf, on transparent huge pages
 * (util_map_resize): the first touch of a 1 GiB buffer faults 512 pages,
 * not 262144, and the output's gather, a random read of every line, misses
 * the TLB less. 0, or -1 (out of memory). */
static int grow_buf(text_loader *l, size_t need)
{
	if (need <= l->cap)
		return 0;
	uint8_t *nb = util_map_resize(l->buf, l->cap, need);
	if (!nb)
		return -1;
	l->buf = nb;
	l->cap = need;
	return 0;
}

/*
 * The bytes of lines a chunk may read: the budget less what its lines
 * cost beside their text (TEXT_LINE_COST each), at the bytes a line of
 * the lines read so far (before any, LOAD_FIRST or a quarter of the
 * budget: the first read finds out). Without it a chunk read the
 * budget's bytes and then cost its lines on top: 20 million lines of
 * `seq` under -S 50M held 434 MB, now 172 MB (runs and output unmapped).
 */
static size_t chunk_bytes(const text_loader *l)
{
	double lines = (double)(l->seen_lines + l->n), bytes = (double)l->seen_bytes + (double)l->start[l->n];
	if (lines < 1) /* a quarter of the budget, so that even 1-byte lines fit it */
		return l->budget / 4 < LOAD_FIRST ? (l->budget / 4 ? l->budget / 4 : 1) : LOAD_FIRST;
	double per = bytes / lines;
	size_t b = (size_t)((double)l->budget * per / (per + TEXT_LINE_COST));
	return b ? b : 1;
}

/*
 * The buffer's next size when it is full: twice this one (LOAD_FIRST
 * bytes first), or at once the rest of a regular file (and the delimiter
 * it may lack), but not past limit (chunk_bytes); 0 when it has reached
 * that (the chunk is full). A line longer than that doubles it as often
 * as it must. A budget below LOAD_FIRST (-S 1K) makes chunks that small,
 * as sort(1) makes its runs, so that small inputs can be spilled and
 * merged in tests.
 */
static size_t next_cap(const text_loader *l, size_t limit)
{
	size_t want = l->cap ? l->cap * 2 : LOAD_FIRST;
	if (l->reg && l->left < SIZE_MAX / 2 - l->len && want < l->len + l->left + 1)
		want = l->len + (size_t)l->left + 1;
	if (l->cap < limit)
		return want < limit ? want : limit;
	return l->n ? 0 : l->cap * 2;
}

/* The chunk is full: its lines and their costs reach the budget. */
static int full(const text_loader *l)
{
	return l->n && l->start[l->n] + (uint64_t)l->n * TEXT_LINE_COST >= l->budget;
}

/* A bit for each byte of p[0, 16) equal to eol (bit i: p[i]). */
static inline unsigned eol_mask16(const uint8_t *p, uint8_t eol)
{
#ifdef __SSE2__
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
							  _mm_set1_epi8((char)eol)));
#else
	unsigned m = 0;
	for (int i = 0; i < 16; i++)
		m |= (unsigned)(p[i] == eol) << i;
	return m;
#endif
}

/* The bytes of buf[lo, hi) equal to eol. */
static size_t count_eol(const uint8_t *buf, size_t lo, size_t hi, uint8_t eol)
{
	size_t k = 0, i = lo;
#ifdef __SSE2__
	/* per byte lane, 255 compares at most (each -1 or 0) before the sum */
	const __m128i e = _mm_set1_epi8((char)eol), zero = _mm_setzero_si128();
	while (i + 16 <= hi) {
		__m128i acc = zero;
		for (int r = 0; r < 255 && i + 16 <= hi; r++, i += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(buf + i)), e));
		__m128i s = _mm_sad_epu8(acc, zero);
		k += (size_t)_mm_cvtsi128_si32(s) + (size_t)_mm_extract_epi16(s, 4);
	}
#endif
	for (; i < hi; i++)
		k += buf[i] == eol;
	return k;
}

/* The offset after each line end in buf[lo, hi) (relative to buf) into
 * out, in order. memchr per line would cost a call for every 50-byte line. */
static void find_eol(const uint8_t *buf, size_t lo, size_t hi, uint8_t eol, uint64_t *out)
{
	size_t k = 0, i = lo;
	for (; i + 16 <= hi; i += 16)
		for (unsigned m = eol_mask16(buf + i, eol); m; m &= m - 1)
			out[k++] = i + (unsigned)__builtin_ctz(m) + 1;
	for (; i < hi; i++)
		if (buf[i] == eol)
			out[k++] = i + 1;
}

/* A block of the buffer, buf[from, to), read or indexed in np pieces at once. */
typedef struct block {
	text_loader *l;
	size_t from, to;
	int np;
	int fill;                  /* index: 0 counts the line ends, 1 writes their offsets */
	size_t cnt[LOAD_PIECES];   /* index: a piece's line ends, then the number of those before it */
	size_t got[LOAD_PIECES];   /* read: a piece's bytes read */
	int err[LOAD_PIECES];      /* read: a piece's errno, or 0 */
} block;

/* The pieces a block of n bytes is split into: one per thread, each LOAD_PAR_MIN bytes or more. */
static int pieces(const text_loader *l, size_t n)
{
	size_t np = l->pool ? (size_t)tpool_size(l->pool) : 1, most = n / LOAD_PAR_MIN;
	if (np > most)
		np = most ? most : 1;
	return np > LOAD_PIECES ? LOAD_PIECES : (int)np;
}

/* Piece t of block b: buf[*lo, *hi). Returns 0 when there is no piece t
 * (a pool step has a part for every thread). */
static int piece(const block *b, int t, size_t *lo, size_t *hi)
{
	if (t >= b->np)
		return 0;
	util_split(b->to - b->from, t, b->np, lo, hi);
	*lo += b->from;
	*hi += b->from;
	return 1;
}

static void index_piece(void *arg, int t, int n)
{
	(void)n;
	block *b = arg;
	size_t lo, hi;
	if (!piece(b, t, &lo, &hi))
		return;
	if (b->fill)
		find_eol(b->l->buf, lo, hi, b->l->eol, b->l->start + b->l->n + 1 + b->cnt[t]);
	else
		b->cnt[t] = count_eol(b->l->buf, lo, hi, b->l->eol);
}

/* Record the lines that end in buf[from, to): a count per piece, then
 * each piece's offsets at the place the counts before it give. 0, 1 (more
 * than `most` lines: none recorded), or -1 (out of memory). */
static int index_lines(text_loader *l, size_t from, size_t to, size_t most)
{
	block b = { .l = l, .from = from, .to = to, .np = pieces(l, to - from) };
	tpool *p = b.np > 1 ? l->pool : NULL;
	text_par_run(p, index_piece, &b);
	size_t total = text_par_firsts(b.cnt, b.np);
	if (total > most)
		return 1;
	if (reserve_starts(l, l->n + total + 2))
		return -1;
	b.fill = 1;
	text_par_run(p, index_piece, &b);
	l->n += total;
	return 0;
}

static void read_piece(void *arg, int t, int n)
{
	(void)n;
	block *b = arg;
	const text_loader *l = b->l;
	size_t lo, hi, done = 0;
	if (!piece(b, t, &lo, &hi))
		return;
	b->err[t] = 0;
	while (lo + done < hi) {
		size_t want = hi - lo - done < LOAD_READ_STEP ? hi - lo - done : LOAD_READ_STEP;
		uint64_t at = l->pos + (lo - b->from) + done;
		ssize_t k = io_fault_rw(IO_FAULT_READ, &want) ? -1 : pread(l->fd, l->buf + lo + done, want, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			b->err[t] = errno;
			break;
		}
		if (k == 0)
			break; /* the file is shorter than it was */
		done += (size_t)k;
	}
	b->got[t] = done;
}

/*
 * Read up to `room` bytes into buf[len, ...). A regular file's known rest
 * is read by all threads at once, a piece each; a pipe's bytes are read
 * until LOAD_STREAM_BLOCK or the end. Returns the bytes read (0 at the
 * end), or -1 with errno.
 */
static ssize_t read_block(text_loader *l, size_t room)
{
	if (l->reg && l->left) {
		size_t n = l->left < room ? (size_t)l->left : room;
		block b = { .l = l, .from = l->len, .to = l->len + n, .np = pieces(l, n) };
		text_par_run(b.np > 1 ? l->pool : NULL, read_piece, &b);
		size_t got = 0;
		for (int t = 0; t < b.np; t++) {
			size_t lo = 0, hi = 0;
			(void)piece(&b, t, &lo, &hi);
			if (b.err[t]) {
				errno = b.err[t];
				return -1;
			}
			got += b.got[t];
			if (b.got[t] < hi - lo) { /* the bytes after a short piece are not the file's */
				l->left = 0;
				break;
			}
		}
		l->pos += got;
		l->left -= l->left < got ? l->left : got;
		if (got)
			return (ssize_t)got;
	}
	size_t got = 0;
	while (got < room && got < LOAD_STREAM_BLOCK) {
		size_t want = room - got;
		ssize_t k = io_fault_rw(IO_FAULT_READ, &want) ? -1
			    : l->reg ? pread(l->fd, l->buf + l->len + got, want, (off_t)l->pos)
				     : read(l->fd, l->buf + l->len + got, want);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1; /* the job fails: the bytes read before do not matter */
		if (k == 0)
			break;
		got += (size_t)k;
		if (l->reg)
			l->pos += (uint64_t)k;
	}
	return (ssize_t)got;
}

/* Open the next input as l->fd. 0, or -1 with l->err. */
static int open_next(text_loader *l)
{
	l->name = l->inputs[l->next++];
	l->reg = 0;
	if (!strcmp(l->name, "-")) {
		l->fd = STDIN_FILENO;
		l->own = 0;
	} else if ((l->fd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(l->name, O_RDONLY | O_CLOEXEC)) < 0) {
		return fail(l, "cannot read", errno);
	} else {
		l->own = 1;
		posix_fadvise(l->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	struct stat st;
	off_t at = l->own ? 0 : lseek(l->fd, 0, SEEK_CUR);
	if (at >= 0 && !fstat(l->fd, &st) && S_ISREG(st.st_mode)) {
		l->reg = 1;
		l->pos = (uint64_t)at;
		l->left = st.st_size > at ? (uint64_t)(st.st_size - at) : 0;
		l->size0 = (uint64_t)st.st_size;
		l->mtime0 = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	}
	return 0;
}

/*
 * A regular input read to its end must have ended where it ended when it
 * was opened, with the same modification time: a file truncated, rewritten
 * or appended to while it was read would be sorted as neither its old
 * contents nor its new ones (the records' rule, inputs.h). 0, or -1 with
 * l->err. Not a regular file: 0.
 */
static int check_unchanged(text_loader *l)
{
	if (!l->reg)
		return 0;
	int ch = io_fd_changed(l->fd, l->size0, l->mtime0);
	if (ch < 0)
		return fail(l, "cannot read", -ch);
	if (ch || l->pos != l->size0) {
		snprintf(l->err, sizeof l->err,
			 "%s: the file changed while it was read (its size or modification time): nothing written", l->name);
		return -1;
	}
	return 0;
}

/* The input has ended: close it (standard input's offset left at its end, as read() leaves it). */
static void end_input(text_loader *l)
{
	if (l->own)
		close(l->fd);
	else if (l->reg)
		(void)lseek(l->fd, (off_t)l->pos, SEEK_SET);
	l->fd = -1;
}

/*
 * The only input, a regular file whose lines fit the budget whole, mapped
 * instead of read: no new pages to zero and no bytes to copy (on one
 * thread those were a quarter of a -n sort's time). The mapping is
 * private and read-only, a delimiter a last line may lack written after
 * it (io_map_lines). An input truncated while mapped
 * raises SIGBUS, which io_sigbus_install turns into an error. Returns 1
 * (mapped and indexed: the chunk is all of it), 0 (not mapped: read it),
 * or -1 (l->err).
 */
static int map_whole(text_loader *l)
{
	if (l->ninputs != 1 || !l->reg || !l->left || l->left >= l->budget || l->left > SIZE_MAX / 4 ||
	    io_same_inode(l->fd, l->out_fd)) /* the output will overwrite it in place */
		return 0;
	size_t size = (size_t)l->left, want = size, len;
	if (io_fault_rw(IO_FAULT_READ, &want))
		return fail(l, "read failed", errno);
	if (want < size)
		return 0; /* the test build's short read: the read path carries on */
	void *base;
	int added;
	if (!(l->buf = io_map_lines(l->fd, l->pos, size, l->eol, &base, &len, &added)))
		return 0;
	io_fault_change_input(l->name, l->pos + size / 2); /* the test build: cut while mapped */
	int r = index_lines(l, 0, size + (size_t)added, (l->budget - size) / TEXT_LINE_COST);
	if (r) { /* too many lines for the budget, or no memory for them: read instead */
		munmap(base, len);
		l->buf = NULL;
		l->n = 0;
		return r < 0 ? oom(l) : 0;
	}
	l->map = base;
	l->maplen = len;
	l->len = l->cap = (size_t)l->start[l->n];
	l->bytes += size;
	l->pos += size;
	l->left = 0;
	if (check_unchanged(l)) /* rewritten or grown while indexed (shrunk raises SIGBUS) */
		return -1;
	end_input(l);
	return 1;
}

/* The input's end, read: checked unchanged, closed, and a last line
 * without its delimiter given one. Returns 0, or -1 with l->err. */
static int input_ended(text_loader *l)
{
	if (check_unchanged(l))
		return -1;
	end_input(l);
	if (l->len > l->start[l->n]) { /* a last line without its delimiter */
		if (grow_buf(l, l->len + 1))
			return oom(l);
		l->buf[l->len++] = l->eol;
		if (add_start(l, l->len))
			return oom(l);
	}
	return 0;
}

int text_load_chunk(text_loader *l, text_chunk *c, int *last)
{
	if (l->map) { /* the mapped input was the only chunk */
		*last = 1;
		return 0;
	}
	if (!l->start && add_start(l, 0))
		return oom(l);
	/* the previous chunk's partial last line starts this one */
	if (l->n) {
		size_t tail = l->len - (size_t)l->start[l->n];
		if (tail)
			memmove(l->buf, l->buf + l->start[l->n], tail);
		l->len = tail;
		l->n = 0;
		l->start[0] = 0;
	}
	while (!full(l)) {
		if (l->fd < 0) {
			if (l->next == l->ninputs)
				break;
			if (open_next(l))
				return -1;
			int m = l->n ? 0 : map_whole(l);
			if (m < 0)
				return -1;
			if (m)
				break;
		}
		size_t limit = chunk_bytes(l);
		if (l->len >= limit && l->n)
			break; /* the chunk's bytes: the tail waits for the next chunk */
		if (l->len == l->cap) {
			size_t want = next_cap(l, limit);
			if (!want)
				break; /* no room for more lines: the tail waits for the next chunk */
			if (grow_buf(l, want))
				return oom(l);
		}
		/* up to the chunk's bytes (a buffer kept from a larger chunk
		 * before is not filled past them), or on into a line longer */
		size_t end = l->cap > limit && limit > l->len ? limit : l->cap;
		ssize_t k = read_block(l, end - l->len);
		if (k < 0)
			return fail(l, "read failed", errno);
		if (k == 0) {
			if (input_ended(l))
				return -1;
			continue;
		}
		l->bytes += (uint64_t)k;
		if (l->reg) /* the test build: cut once some of it was read */
			io_fault_change_input(l->name, l->size0 / 2);
		if (index_lines(l, l->len, l->len + (size_t)k, SIZE_MAX))
			return oom(l);
		l->len += (size_t)k;
	}
	/* the last input, a regular file, read to its known end as the chunk
	 * filled: ended now, so that this chunk is the last, not a run
	 * spilled to be merged alone */
	if (l->fd >= 0 && l->reg && !l->left && l->pos == l->size0 && l->next == l->ninputs && input_ended(l))
		return -1;
	c->buf = l->buf;
	c->start = l->start;
	c->n = l->n;
	l->seen_lines += l->n;
	l->seen_bytes += l->start[l->n];
	*last = l->fd < 0 && l->next == l->ninputs && l->len == l->start[l->n];
	return l->n ? 1 : 0;
}

size_t text_load_held(const text_loader *l)
{
	return (l->map ? 0 : l->cap) + l->scap * sizeof *l->start;
}

void text_load_trim(text_loader *l)
{
	if (l->map || !l->buf)
		return;
	/* shrinking moves nothing (mremap): the chunk's pointers stay valid */
	size_t len = l->len ? l->len : 1, sbytes = (l->n + 1) * sizeof *l->start;
	uint8_t *nb = util_map_resize(l->buf, l->cap, len);
	if (nb == l->buf)
		l->cap = len;
	uint64_t *ns = l->start ? util_map_resize(l->start, l->scap * sizeof *ns, sbytes) : NULL;
	if (ns && ns == l->start)
		l->scap = l->n + 1;
}

void text_load_release(text_loader *l)
{
	if (l->map)
		munmap(l->map, l->maplen);
	else
		util_map_free(l->buf, l->cap);
	util_map_free(l->start, l->scap * sizeof *l->start);
	l->map = NULL, l->maplen = 0;
	l->buf = NULL, l->len = l->cap = 0;
	l->start = NULL, l->n = l->scap = 0;
}

void text_load_free(text_loader *l)
{
	if (l->own && l->fd >= 0)
		close(l->fd);
	if (l->map)
		munmap(l->map, l->maplen);
	else
		util_map_free(l->buf, l->cap);
	util_map_free(l->start, l->scap * sizeof *l->start);
	memset(l, 0, sizeof *l);
	l->fd = -1;
}
