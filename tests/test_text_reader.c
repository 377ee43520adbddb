/*
 * test_text_reader.c - a spilled run read back (text_io.h): through pread
 * and through a mapping (text_reader_map) the reader hands out the lines
 * that were written, in order, then the end; a run whose bytes or hash
 * differ from what was written ends in -EBADMSG either way; the mapped
 * reader's lines stay where they are after later calls; and text_ahead
 * hands a mapped run's lines out of the mapping itself, not copies, with
 * their prefixes and byte counts, found on one helper or on several (the
 * pieces of a block's range), a pread run's as copies, a window's
 * untaken tail first in the next window, and ends a run whose hash
 * differs in -EBADMSG; an input file read through a mapping (-m) gets a delimiter
 * after a last line that lacks one, and is seen changed once grown.
 */
#define _GNU_SOURCE
#include "text_ahead.h"
#include "text_io.h"
#include "text_prefix.h"
#include "text_spec.h"
#include "unit.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINES 20000
#define BUF 4096 /* the reader's piece: many pieces a run, lines across their ends */

static unsigned long long seed = 7;

/* lines[i] (lens[i] bytes, no '\n'): empty, short, and longer than a piece */
static uint8_t *lines[LINES];
static size_t lens[LINES];

static void make_lines(void)
{
	for (int i = 0; i < LINES; i++) {
		unsigned r = (unsigned)(unit_rand(&seed) % 100);
		size_t n = r < 5 ? 0 : r < 98 ? 1 + unit_rand(&seed) % 80 : BUF + unit_rand(&seed) % (3 * BUF);
		lines[i] = malloc(n + 1);
		for (size_t j = 0; j < n; j++)
			lines[i][j] = (uint8_t)(' ' + unit_rand(&seed) % 95);
		lens[i] = n;
	}
}

/* An unlinked run file holding lines[0, n), each with its delimiter; *hash its XXH3, *bytes its size. */
static int write_run(int n, uint64_t *hash, uint64_t *bytes)
{
	char path[] = "/tmp/gpusort-test-reader.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	text_writer w;
	if (text_writer_open(&w, fd, 1 << 16, '\n', NULL, 1)) {
		close(fd);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = text_writer_line(&w, lines[i], lens[i]);
	rc = rc ? rc : text_writer_flush(&w, hash);
	*bytes = w.bytes;
	text_writer_close(&w);
	if (rc) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read the run on fd back (mapped or not) and compare; returns what ended it (0, or -errno). */
static int read_back(int fd, uint64_t hash, uint64_t bytes, int mapped, int n, int *lines_ok)
{
	text_reader r;
	if (text_reader_open_run(&r, fd, 1, hash, '\n', BUF))
		return -ENOMEM;
	if (mapped && text_reader_map(&r, bytes)) {
		text_reader_close(&r);
		return -EINVAL;
	}
	const uint8_t *line, *first = NULL;
	size_t len;
	int i = 0, rc;
	*lines_ok = 1;
	while ((rc = text_reader_next(&r, &line, &len)) == 1) {
		if (i >= n || len != lens[i] || memcmp(line, lines[i], len))
			*lines_ok = 0;
		if (!i)
			first = line;
		i++;
	}
	/* a mapped run's first line is still where it was handed out */
	if (mapped && n && (!first || memcmp(first, lines[0], lens[0])))
		*lines_ok = 0;
	if (!rc && i != n)
		*lines_ok = 0;
	text_reader_close(&r);
	return rc;
}

/* How ahead_read takes a window's lines: all of them, or all but a
 * fifth, as the merge in rounds leaves a window's tail for its next
 * round (the next window must start at the first line not taken). */
enum { TAKE_ALL, TAKE_LEAVE_TAIL };

/* Read the run on fd back through text_ahead (mapped or read by pread
 * and copied, `threads` helpers, blocks of `block` bytes, windows taken
 * as `take` says) and compare each window's lines with those written: in
 * the mapping where mapped (*in_place), bytes, running byte counts and
 * prefixes (*same), *n of them. Returns what ended it (0, or -errno). */
static int ahead_read(const text_spec *s, int fd, uint64_t hash, uint64_t bytes, int mapped, int threads,
		      size_t block, int take, int *in_place, int *same, int *n)
{
	text_reader rd;
	*in_place = *same = 1, *n = 0;
	if (text_reader_open_run(&rd, fd, 1, hash, '\n', BUF))
		return -ENOMEM;
	if (mapped && text_reader_map(&rd, bytes)) {
		text_reader_close(&rd);
		return -EINVAL;
	}
	text_source src;
	memset(&src, 0, sizeof src);
	src.r = &rd;
	text_ahead *a = NULL;
	if (text_ahead_start(&a, s, &src, 1, threads, block)) {
		text_reader_close(&rd);
		return -EAGAIN;
	}
	int i = 0, rc;
	text_window w;
	size_t left = 0; /* lines the last window left untaken */
	while ((rc = text_ahead_window(a, 0, &w)) == 1) {
		*in_place &= mapped ? w.base == rd.map : w.base != rd.map;
		uint64_t cum0 = w.l[0].cum;
		for (size_t j = 0; j < w.n; j++) {
			uint64_t ph;
			uint32_t pl;
			int at = i + (int)j;
			if (at >= LINES) {
				*same = 0;
				continue;
			}
			text_prefix_ints(s, lines[at], lens[at], &ph, &pl);
			*same &= w.l[j].len == lens[at] && !memcmp(w.base + w.l[j].off, lines[at], lens[at]) &&
				 w.base[w.l[j].off + lens[at]] == '\n' && w.l[j].ph == ph && w.l[j].pl == pl &&
				 w.l[j].cum - cum0 == w.l[j].off - w.l[0].off;
		}
		/* a window that is a tail left before is taken whole */
		size_t t = take == TAKE_LEAVE_TAIL && w.n > 4 && w.n != left ? w.n - w.n / 5 : w.n;
		text_ahead_take(a, 0, t);
		i += (int)t;
		left = w.n - t;
	}
	*n = i;
	text_ahead_stop(a);
	text_reader_close(&rd);
	return rc;
}

int main(void)
{
	make_lines();
	uint64_t hash, bytes;
	int fd = write_run(LINES, &hash, &bytes);
	if (fd < 0) {
		printf("FAIL setup: cannot write a run in /tmp\n");
		return 1;
	}

	int ok;
	for (int mapped = 0; mapped < 2; mapped++) {
		TEST_BEGIN(mapped ? "mapped-run-lines" : "pread-run-lines");
		int rc = read_back(fd, hash, bytes, mapped, LINES, &ok);
		CHECK(rc == 0, "ended with %d, not 0", rc);
		CHECK(ok, "lines differ from those written");
		TEST_END();

		TEST_BEGIN(mapped ? "mapped-run-wrong-hash" : "pread-run-wrong-hash");
		int rc2 = read_back(fd, hash ^ 1, bytes, mapped, LINES, &ok);
		CHECK(rc2 == -EBADMSG, "ended with %d, not -EBADMSG", rc2);
		TEST_END();
	}

	TEST_BEGIN("corrupt-run-both-ways");
	uint8_t c;
	off_t at = (off_t)(bytes / 2);
	CHECK(pread(fd, &c, 1, at) == 1, "pread");
	c ^= 1;
	CHECK(pwrite(fd, &c, 1, at) == 1, "pwrite");
	for (int mapped = 0; mapped < 2; mapped++) {
		int rc = read_back(fd, hash, bytes, mapped, LINES, &ok);
		CHECK(rc == -EBADMSG, "%s: a flipped byte ended with %d, not -EBADMSG", mapped ? "mapped" : "pread", rc);
	}
	c ^= 1;
	CHECK(pwrite(fd, &c, 1, at) == 1, "pwrite");
	TEST_END();

	TEST_BEGIN("map-refused");
	text_reader r;
	CHECK(!text_reader_open_run(&r, fd, 1, hash, '\n', BUF), "open");
	CHECK(text_reader_map(&r, 0) == -EINVAL, "an empty run mapped");
	text_reader_close(&r);
	CHECK(!text_reader_open_run(&r, fd, 0, hash, '\n', BUF), "open");
	CHECK(text_reader_map(&r, bytes) == -EINVAL, "a stream (a decompressor's pipe) mapped");
	text_reader_close(&r);
	TEST_END();

	/* text_ahead's fill of a mapped run: one helper and blocks of a
	 * piece; four helpers and 64 KiB blocks (4 pieces a block's range,
	 * counted and indexed on several threads, some lines longer than a
	 * piece); 1 MiB blocks (the run in one range, its end the block's).
	 * Each also with windows that leave tails for the next window, and
	 * read by pread and copied into the blocks. */
	static const struct { int threads; size_t block; } ac[] = { { 1, BUF }, { 4, 1 << 16 }, { 4, 1 << 20 } };
	for (size_t c = 0; c < sizeof ac / sizeof ac[0]; c++)
		for (int mapped = 1; mapped >= 0; mapped--)
			for (int take = TAKE_ALL; take <= TAKE_LEAVE_TAIL; take++) {
				char tname[120], msg[200];
				snprintf(tname, sizeof tname, "ahead-%s-threads%d-block%zu%s", mapped ? "mapped" : "copied",
					 ac[c].threads, ac[c].block, take == TAKE_ALL ? "" : "-tails");
				TEST_BEGIN(tname);
				text_spec s;
				text_spec_init(&s);
				CHECK(!text_spec_add_key(&s, "2f", msg, sizeof msg) && !text_spec_finish(&s, msg, sizeof msg),
				      "spec");
				int in_place, same, n;
				int rc = ahead_read(&s, fd, hash, bytes, mapped, ac[c].threads, ac[c].block, take, &in_place,
						    &same, &n);
				CHECK(rc == 0, "ended with %d", rc);
				CHECK(in_place, mapped ? "a window's lines were copies, not the mapping's"
						       : "a window's lines were the mapping's, not copies");
				CHECK(same && n == LINES, "%d lines, or their bytes, places or prefixes differ", n);
				rc = ahead_read(&s, fd, hash ^ 1, bytes, mapped, ac[c].threads, ac[c].block, take, &in_place,
						&same, &n);
				CHECK(rc == -EBADMSG, "a wrong hash ended with %d, not -EBADMSG", rc);
				TEST_END();
			}

	/* -m's input read through a mapping: a last line without its
	 * delimiter gets one after the file's end (a page boundary there
	 * too); not the output's own file; grown once mapped: changed */
	for (size_t size = 4095; size <= 4097; size++) {
		char tname[80];
		snprintf(tname, sizeof tname, "map-input-%zu-bytes", size);
		TEST_BEGIN(tname);
		char path[] = "/tmp/gpusort-test-input.XXXXXX";
		int in = mkstemp(path);
		CHECK(in >= 0, "mkstemp");
		uint8_t *buf = malloc(size);
		for (size_t j = 0; j < size; j++)
			buf[j] = j % 10 == 9 ? '\n' : (uint8_t)('a' + j % 10);
		buf[size - 1] = 'z'; /* no delimiter at the end */
		CHECK(write(in, buf, size) == (ssize_t)size, "write");
		text_reader ri;
		CHECK(!text_reader_open(&ri, path, '\n', BUF), "open");
		CHECK(text_reader_map_input(&ri, ri.fd) == -EINVAL, "mapped though it is the output's file");
		CHECK(!text_reader_map_input(&ri, -1), "not mapped");
		CHECK(ri.mapsize == size + 1 && ri.map[size] == '\n', "mapsize %zu, no delimiter added", ri.mapsize);
		const uint8_t *line;
		size_t len, got = 0;
		int rc, same_bytes = 1;
		while ((rc = text_reader_next(&ri, &line, &len)) == 1) {
			same_bytes &= !memcmp(line, buf + got, len) && line[len] == '\n';
			got += len + 1;
		}
		CHECK(rc == 0 && same_bytes && got == size + 1, "rc %d, %zu bytes of lines, or they differ", rc, got);
		CHECK(text_reader_unchanged(&ri) == 0, "changed though untouched");
		CHECK(write(in, "x", 1) == 1, "append");
		CHECK(text_reader_unchanged(&ri) == 1, "not changed though grown");
		text_reader_close(&ri);
		close(in);
		unlink(path);
		free(buf);
		TEST_END();
	}

	close(fd);
	for (int k = 0; k < LINES; k++)
		free(lines[k]);
	return UNIT_EXIT();
}
