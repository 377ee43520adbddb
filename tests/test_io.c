/*
 * test_io.c - io_uring reader/writer: exact bytes through O_DIRECT and
 * buffered paths, with and without registered (fixed) buffers.
 */
#define _GNU_SOURCE
#include "../io/io.h"
#include "../io/io_fault.h"
#include "run.h"
#include "tpool.h"
#include "unit.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <pthread.h>
#include <unistd.h>

static char dir[] = "/tmp/gpusort-test-io.XXXXXX";

static void fill(uint8_t *p, size_t n, unsigned long long seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)unit_rand(&seed);
}

/* A pipe p, its read end as the input f (a stream: not regular). 0 or -1. */
static int pipe_input(int p[2], io_file *f)
{
	memset(f, 0, sizeof *f);
	f->dfd = -1;
	if (pipe(p))
		return -1;
	f->fd = p[0];
	return 0;
}

/* The file's bytes as pread(2) sees them (or NULL). */
static uint8_t *pread_all(const char *path, size_t n)
{
	uint8_t *b = malloc(n + 1);
	int fd = open(path, O_RDONLY);
	size_t got = 0;
	while (b && fd >= 0 && got < n) {
		ssize_t r = pread(fd, b + got, n - got, (off_t)got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (fd >= 0)
		close(fd);
	if (got != n) {
		free(b);
		return NULL;
	}
	return b;
}

/*
 * Write src[0..n) to path through `ring` (two appends, the second unaligned
 * when n is odd), check the file against pread(2), then read it back into
 * dst through the ring (one io_read_at, and io_read_next in odd pieces).
 * Returns a message for the first difference, or NULL.
 */
static const char *roundtrip(io_ring *ring, const char *path, const uint8_t *src, uint8_t *dst,
			     size_t n, size_t dcap)
{
	static char why[256];
	io_output o;
	if (io_output_open(&o, path))
		return "open output";
	size_t half = n / 2;
	int rc = io_write_next(ring, &o.f, src, half);
	if (!rc)
		rc = io_write_next(ring, &o.f, src + half, n - half);
	if (rc)
		io_output_abort(&o); /* the temp output removed, as a sort that fails removes it */
	if (rc || io_output_commit(&o)) {
		snprintf(why, sizeof why, "write %zu: %s", n, strerror(-rc));
		return why;
	}
	uint8_t *ref = pread_all(path, n);
	struct stat st;
	int same = ref && stat(path, &st) == 0 && (size_t)st.st_size == n && !memcmp(ref, src, n);
	free(ref);
	if (!same) {
		snprintf(why, sizeof why, "file of %zu bytes differs from what was written", n);
		return why;
	}
	io_file f;
	if (io_open_input(&f, path))
		return "open input";
	memset(dst, 0x5A, n);
	ssize_t r = io_read_at(ring, &f, dst, n, dcap, 0);
	if (r != (ssize_t)n || memcmp(src, dst, n)) {
		io_close(&f);
		snprintf(why, sizeof why, "read_at %zu: got %zd, %s", n, r, r == (ssize_t)n ? "bytes differ" : "short");
		return why;
	}
	memset(dst, 0xA5, n);
	size_t got = 0;
	while (!f.eof) {
		r = io_read_next(ring, &f, dst + got, 3 * IO_ALIGN + 7, dcap - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	io_close(&f);
	if (got != n || memcmp(src, dst, n)) {
		snprintf(why, sizeof why, "read_next %zu: got %zu", n, got);
		return why;
	}
	return NULL;
}

/* tmp_maker: a thread making files in dir until the process dies */
static void *tmp_maker(void *arg)
{
	const char *d = arg;
	for (;;) {
		char t[512];
		int slot;
		snprintf(t, sizeof t, "%s/m.XXXXXX", d);
		int fd = io_tmp_mkstemp(t, O_CLOEXEC, &slot);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* The files in directory d, or -1. */
static int count_files(const char *d)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "n=$(ls -A '%s' | wc -l) && exit $n", d);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("FAIL io/setup: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	char path[256];
	snprintf(path, sizeof path, "%s/data", dir);
	io_ring ring;
	io_ring_init(&ring);
	printf("# io_uring %s\n", ring.have_uring ? "available" : "unavailable: pread/pwrite fallback");
	printf("# IOSQE_ASYNC reads %s\n", ring.can_async ? "available" : "unavailable: inline reads");

	/* io_tmp_mkstemp: thousands of files registered at once (far past one
	 * block of slots), slots distinct and reused once given back; a signal
	 * to a child that holds 3000 of them, while two threads go on making
	 * more, leaves none and kills the child by that signal */
	TEST_BEGIN("io/tmp-registry") {
		char sub[300];
		snprintf(sub, sizeof sub, "%s/tmp", dir);
		CHECK(mkdir(sub, 0700) == 0, "mkdir");
		enum { N = 3000 };
		static int slots[N];
		char t[512];
		int bad = 0;
		for (int i = 0; i < N; i++) {
			snprintf(t, sizeof t, "%s/r.XXXXXX", sub);
			int fd = io_tmp_mkstemp(t, O_CLOEXEC, &slots[i]);
			bad += fd < 0 || slots[i] < 0 || strstr(t, "XXXXXX") != NULL;
			if (fd >= 0)
				close(fd);
			unlink(t);
		}
		CHECK(!bad, "%d of %d not made or not registered", bad, N);
		int dup = 0;
		for (int i = 1; i < N; i++)
			dup += slots[i] == slots[i - 1];
		CHECK(!dup, "slots repeat");
		for (int i = 0; i < N; i++)
			io_tmp_unregister(slots[i]);
		int again = io_tmp_register("/nonexistent/x");
		CHECK(again >= 0 && again < N, "a freed slot reused: got %d", again);
		io_tmp_unregister(again);
		for (int sig = SIGTERM; sig; sig = sig == SIGTERM ? SIGHUP : 0) {
			pid_t pid = fork();
			if (pid == 0) {
				io_signals_install();
				for (int i = 0; i < N; i++) {
					snprintf(t, sizeof t, "%s/c.XXXXXX", sub);
					int slot, fd = io_tmp_mkstemp(t, O_CLOEXEC, &slot);
					if (fd < 0 || slot < 0)
						_exit(3);
					close(fd);
				}
				pthread_t th[2];
				for (int i = 0; i < 2; i++)
					pthread_create(&th[i], NULL, tmp_maker, sub);
				struct timespec ms = { 0, 20000000 };
				nanosleep(&ms, NULL);
				raise(sig);
				_exit(4);
			}
			int st = 0;
			CHECK(pid > 0 && waitpid(pid, &st, 0) == pid, "fork");
			CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sig, "signal %d: child status %#x", sig, st);
			int left = count_files(sub);
			CHECK(left == 0, "signal %d: %d files left", sig, left);
		}
		rmdir(sub);
	} TEST_END();

	/* io_reserve: blocks past the end no reader sees (KEEP_SIZE), from the
	 * offset, or from the end under O_APPEND; nothing for a pipe */
	TEST_BEGIN("io/reserve") {
		const size_t mb = (size_t)1 << 20;
		for (int app = 0; app < 2; app++) {
			int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | (app ? O_APPEND : 0), 0600);
			CHECK(fd >= 0 && write(fd, "abc", 3) == 3, "setup");
			if (!app)
				CHECK(lseek(fd, 1, SEEK_SET) == 1, "seek");
			struct stat a, b;
			CHECK(fstat(fd, &a) == 0, "stat");
			int rc = io_reserve(fd, 8 * mb);
			CHECK(rc == 0 || rc == -EOPNOTSUPP, "append %d: %s", app, strerror(-rc));
			CHECK(fstat(fd, &b) == 0 && b.st_size == 3, "append %d: size %lld, want 3", app, (long long)b.st_size);
			if (!rc) /* the reservation is on the disk: 8 MiB more blocks (512 bytes each) */
				CHECK((b.st_blocks - a.st_blocks) * 512 >= (blkcnt_t)(8 * mb), "append %d: %lld blocks more",
				      app, (long long)(b.st_blocks - a.st_blocks));
			CHECK(write(fd, "def", 3) == 3 && fstat(fd, &b) == 0 && b.st_size == (app ? 6 : 4),
			      "append %d: a write after it, size %lld", app, (long long)b.st_size);
			close(fd);
		}
		int p[2];
		CHECK(pipe(p) == 0 && io_reserve(p[1], 8 * mb) == 0 && io_reserve(p[1], 0) == 0, "a pipe");
		close(p[0]), close(p[1]);
		unlink(path);
	} TEST_END();

	/* io_outmap: the bytes land at the descriptor's offset (unaligned
	 * here), what lay beyond them stays, the offset moves past them,
	 * io_outmap_writeback changes none of them;
	 * a write-only descriptor is reopened for the mapping; an appending
	 * one and a pipe are refused (the caller writes instead) */
	TEST_BEGIN("io/outmap") {
		const size_t n = 3 * 4096 + 5, old = 5 * 4096;
		uint8_t *src = malloc(n), *back = malloc(old + n);
		CHECK(src && back, "malloc");
		fill(src, n, 7);
		for (int wronly = 0; wronly < 2; wronly++) {
			for (size_t at = 0; at < 2 * 4096; at += 4096 + 3) {
				for (size_t before = at; before < old + n; before += old + n - at) {
					/* a file of `before` bytes ('o'), its offset at `at` */
					int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
					memset(back, 'o', old + n);
					CHECK(fd >= 0 && write(fd, back, before) == (ssize_t)before, "setup");
					close(fd);
					fd = open(path, (wronly ? O_WRONLY : O_RDWR));
					CHECK(fd >= 0 && lseek(fd, (off_t)at, SEEK_SET) == (off_t)at, "reopen");
					io_outmap m;
					int rc = io_outmap_open(&m, fd, n);
					CHECK(rc == 0, "wronly %d at %zu size %zu: %s", wronly, at, before, strerror(-rc));
					CHECK(m.bytes == n, "bytes %zu", m.bytes);
					memcpy(m.base, src, n);
					/* writeback started on stored bytes (whole pages of the
					 * range; none in a range inside one page), a range past
					 * the mapping refused; the bytes unchanged (below) */
					CHECK(io_outmap_writeback(&m, 0, n) == 0, "writeback: %s", strerror(errno));
					CHECK(io_outmap_writeback(&m, 1, 2) == 0, "writeback inside a page");
					CHECK(io_outmap_writeback(&m, 0, n + 1) == -EINVAL, "writeback past the mapping");
					CHECK(io_outmap_close(&m, n) == 0 && io_outmap_close(&m, n) == 0, "close");
					CHECK(io_outmap_writeback(&m, 0, n) == -EINVAL, "writeback after close");
					CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)(at + n), "offset after: %lld",
					      (long long)lseek(fd, 0, SEEK_CUR));
					close(fd);
					size_t want = before > at + n ? before : at + n;
					struct stat st;
					CHECK(stat(path, &st) == 0 && (size_t)st.st_size == want, "size %lld, want %zu",
					      (long long)st.st_size, want);
					fd = open(path, O_RDONLY);
					CHECK(fd >= 0 && read(fd, back, want) == (ssize_t)want, "read back");
					close(fd);
					size_t bad = 0;
					for (size_t i = 0; i < want; i++)
						bad += back[i] != (i >= at && i < at + n ? src[i - at] : 'o');
					CHECK(!bad, "wronly %d at %zu size %zu: %zu bytes differ", wronly, at, before, bad);
				}
			}
		}
		/* a failed fill (fewer bytes written): the file as write(2)s of them would leave it */
		int fd = open(path, O_RDWR | O_TRUNC);
		io_outmap m;
		CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10 && lseek(fd, 4, SEEK_SET) == 4, "setup short");
		CHECK(io_outmap_open(&m, fd, n) == 0, "open short");
		memcpy(m.base, src, 100);
		CHECK(io_outmap_close(&m, 100) == 0 && lseek(fd, 0, SEEK_CUR) == 104, "close short");
		struct stat st;
		CHECK(fstat(fd, &st) == 0 && st.st_size == 104, "short: size %lld, want 104", (long long)st.st_size);
		CHECK(io_outmap_open(&m, fd, n) == 0 && io_outmap_close(&m, 0) == 0, "open, nothing written");
		CHECK(fstat(fd, &st) == 0 && st.st_size == 104, "nothing written: size %lld, want 104", (long long)st.st_size);
		close(fd);
		fd = open(path, O_RDWR | O_APPEND);
		CHECK(fd >= 0 && io_outmap_open(&m, fd, n) == -EOPNOTSUPP && !m.map, "O_APPEND");
		close(fd);
		/* at a given offset (a spill file's run): the descriptor's offset untouched */
		fd = open(path, O_RDWR | O_TRUNC);
		CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10, "setup at");
		CHECK(io_outmap_open_at(&m, fd, 4096 + 7, n) == 0, "open at");
		memcpy(m.base, src, n);
		CHECK(io_outmap_close(&m, n) == 0 && lseek(fd, 0, SEEK_CUR) == 10, "close at: offset moved");
		CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)(4096 + 7 + n), "at: size %lld", (long long)st.st_size);
		CHECK(pread(fd, back, n, 4096 + 7) == (ssize_t)n && !memcmp(back, src, n), "at: bytes differ");
		CHECK(pread(fd, back, 10, 0) == 10 && !memcmp(back, "0123456789", 10), "at: the bytes before changed");
		close(fd);
		int p[2];
		CHECK(pipe(p) == 0 && io_outmap_open(&m, p[1], n) == -EOPNOTSUPP && !m.map, "a pipe");
		CHECK(io_outmap_open_at(&m, p[1], 0, n) == -EOPNOTSUPP && !m.map, "a pipe, at an offset");
		CHECK(io_outmap_close(&m, 0) == 0, "closing what did not open");
		close(p[0]), close(p[1]);
		free(src), free(back);
		unlink(path);
	} TEST_END();

	/* io_read_ready: what a pipe holds, at once; nothing in time: 0 and no
	 * end; the writer gone: 0 and the end; pos counts the bytes */
	TEST_BEGIN("io/read-ready") {
		int p[2];
		io_file f;
		CHECK(pipe_input(p, &f) == 0, "pipe");
		char b[64];
		CHECK(write(p[1], "abcde", 5) == 5, "write");
		double t0 = util_now();
		CHECK(io_read_ready(&f, b, sizeof b, -1) == 5 && !memcmp(b, "abcde", 5) && !f.eof && f.pos == 5,
		      "what is there: pos %llu eof %d", (unsigned long long)f.pos, f.eof);
		CHECK(io_read_ready(&f, b, sizeof b, 20) == 0 && !f.eof, "nothing there: eof %d", f.eof);
		double waited = util_now() - t0;
		CHECK(waited >= 0.015 && waited < 2, "waited %.3f s for 20 ms", waited);
		CHECK(write(p[1], "xyz", 3) == 3, "write");
		CHECK(io_read_ready(&f, b, 2, 0) == 2 && !memcmp(b, "xy", 2), "at most len");
		close(p[1]);
		CHECK(io_read_ready(&f, b, sizeof b, -1) == 1 && b[0] == 'z' && !f.eof, "the rest");
		CHECK(io_read_ready(&f, b, sizeof b, -1) == 0 && f.eof && f.pos == 8, "the end: eof %d pos %llu", f.eof,
		      (unsigned long long)f.pos);
		CHECK(io_read_ready(&f, b, sizeof b, -1) == 0 && f.eof, "after the end");
		close(p[0]);
	} TEST_END();

	/* io_double: a pipe's bytes, whole and in order, through two buffers
	 * taken in turn; a read returns when full or once the bytes stop
	 * coming; stopping gives up a read of a producer that never ends */
	TEST_BEGIN("io/double") {
		int p[2];
		io_file f;
		CHECK(pipe_input(p, &f) == 0, "pipe");
		uint8_t b0[4], b1[4], *buf, got_all[16];
		size_t n = 0;
		CHECK(write(p[1], "hello", 5) == 5, "write");
		io_double d;
		CHECK(io_double_start(&d, &f, b0, b1, 4, 4) == 0, "start");
		ssize_t got = io_double_wait(&d, &buf);
		CHECK(got == 4 && buf == b0 && !memcmp(buf, "hell", 4), "full first read: %zd", got);
		io_double_next(&d);
		got = io_double_wait(&d, &buf);
		CHECK(got == 1 && buf == b1 && *buf == 'o' && !f.eof, "what arrived: %zd eof %d", got, f.eof);
		CHECK(write(p[1], ", world", 7) == 7, "write");
		close(p[1]);
		for (uint8_t *want = b0; !f.eof && n + 4 <= sizeof got_all; want = want == b0 ? b1 : b0) {
			io_double_next(&d);
			got = io_double_wait(&d, &buf);
			CHECK(got >= 0 && buf == want, "read %zd into buffer %d", got, buf == b1);
			memcpy(got_all + n, buf, (size_t)got);
			n += (size_t)got;
		}
		CHECK(f.eof && n == 7 && !memcmp(got_all, ", world", 7), "the rest: %zu bytes, eof %d", n, f.eof);
		io_double_stop(&d);
		close(p[0]);

		CHECK(pipe_input(p, &f) == 0, "pipe");
		CHECK(io_double_start(&d, &f, b0, b1, 4, 4) == 0, "start");
		double t0 = util_now();
		io_double_stop(&d);
		double took = util_now() - t0;
		CHECK(took < 2, "stop took %.3f s with the producer silent", took);
		close(p[0]), close(p[1]);
	} TEST_END();

	/* sizes around the O_DIRECT block, the request segment and the queue depth */
	size_t sizes[] = { 0, 1, 4095, 4096, 4097, IO_SEG - 1, IO_SEG + 4096, IO_SEG * IO_QD + 12345 };
	TEST_BEGIN("io/write-then-read-exact") {
		for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
			size_t n = sizes[z];
			uint8_t *src = util_alloc_aligned(n + IO_ALIGN, IO_ALIGN);
			uint8_t *dst = util_alloc_aligned(n + IO_ALIGN, IO_ALIGN);
			fill(src, n, n + 1);
			io_output o;
			CHECK(io_output_open(&o, path) == 0, "open output");
			/* two appends: the second starts unaligned when n is odd */
			size_t half = n / 2;
			CHECK(io_write_next(&ring, &o.f, src, half) == 0, "write 1 (n=%zu)", n);
			CHECK(io_write_next(&ring, &o.f, src + half, n - half) == 0, "write 2 (n=%zu)", n);
			CHECK(io_output_commit(&o) == 0, "commit");
			struct stat st;
			CHECK(stat(path, &st) == 0 && (size_t)st.st_size == n, "size %zu", n);
			io_file f;
			CHECK(io_open_input(&f, path) == 0, "open input");
			memset(dst, 0xAA, n);
			size_t got = 0;
			for (;;) { /* odd-sized reads: crosses the aligned/unaligned paths */
				ssize_t r = io_read_next(&ring, &f, dst + got, 3 * IO_ALIGN + 7, n + IO_ALIGN - got);
				CHECK(r >= 0, "read: %s", strerror((int)-r));
				if (r <= 0)
					break;
				got += (size_t)r;
				if (f.eof)
					break;
			}
			CHECK(got == n && !memcmp(src, dst, n), "read back %zu of %zu bytes", got, n);
			/* one big aligned read: the O_DIRECT path with the tail rounded up */
			memset(dst, 0x55, n);
			ssize_t r = io_read_at(&ring, &f, dst, n, n + IO_ALIGN, 0);
			CHECK(r == (ssize_t)n && !memcmp(src, dst, n), "read_at %zu", n);
			io_close(&f);
			free(src);
			free(dst);
		}
	} TEST_END();

	TEST_BEGIN("io/output-abort-leaves-target") {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		CHECK(fd >= 0 && write(fd, "keep", 4) == 4, "seed file");
		close(fd);
		io_output o;
		CHECK(io_output_open(&o, path) == 0, "open");
		CHECK(io_write_next(&ring, &o.f, "xxxxxxxx", 8) == 0, "write");
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s", o.tmp);
		io_output_abort(&o);
		char buf[16] = { 0 };
		fd = open(path, O_RDONLY);
		CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 4 && !memcmp(buf, "keep", 4), "target untouched");
		close(fd);
		CHECK(access(tmp, F_OK) != 0, "temp file %s removed", tmp);
	} TEST_END();

	TEST_BEGIN("io/spill-file-is-anonymous") {
		io_file f;
		CHECK(io_open_spill(&f, dir) == 0, "open spill");
		CHECK(access(f.name, F_OK) != 0, "spill path %s already unlinked", f.name);
		uint8_t *b = util_alloc_aligned(3 * IO_ALIGN, IO_ALIGN);
		fill(b, 3 * IO_ALIGN, 9);
		f.pos = 0;
		CHECK(io_write_next(&ring, &f, b, 2 * IO_ALIGN + 100) == 0, "spill write");
		uint8_t *c = util_alloc_aligned(3 * IO_ALIGN, IO_ALIGN);
		ssize_t r = io_read_at(&ring, &f, c, 2 * IO_ALIGN + 100, 3 * IO_ALIGN, 0);
		CHECK(r == 2 * IO_ALIGN + 100 && !memcmp(b, c, (size_t)r), "spill read back");
		io_close(&f);
		free(b);
		free(c);
	} TEST_END();

	TEST_BEGIN("run/block-checksums-catch-corruption") {
		size_t n = 3 * RUN_BLOCK + 12345;
		uint8_t *b = malloc(n);
		fill(b, n, 11);
		run_hash h = { 0 };
		/* written in odd pieces, read back in other odd pieces */
		CHECK(run_hash_add(&h, b, 1000) == 0 && run_hash_add(&h, b + 1000, n - 1000) == 0 &&
		      run_hash_end(&h) == 0 && h.nh == 4, "4 blocks hashed");
		size_t bad = 99;
		run_hash_reset_reader(&h);
		CHECK(run_hash_check(&h, b, RUN_BLOCK + 7, 0, &bad) == 0 &&
		      run_hash_check(&h, b + RUN_BLOCK + 7, n - RUN_BLOCK - 7, 1, &bad) == 0, "clean data passes");
		b[2 * RUN_BLOCK + 5] ^= 1;
		run_hash_reset_reader(&h);
		CHECK(run_hash_check(&h, b, n, 1, &bad) == -EBADMSG && bad == 2, "flipped bit found in block 2 (got %zu)", bad);
		b[2 * RUN_BLOCK + 5] ^= 1;
		run_hash_reset_reader(&h);
		CHECK(run_hash_check(&h, b, n - 1, 1, &bad) == -EBADMSG, "a truncated run is an error");
		run_hash_free(&h);
		free(b);
	} TEST_END();

	TEST_BEGIN("io/run-hash-par") {
		/* pieces that start and end mid-block, span none, one and many
		 * whole blocks: the digests must be run_hash_add's, every byte
		 * copied, nothing past len written */
		size_t n = 9 * RUN_BLOCK + 4321;
		uint8_t *b = malloc(n), *d = malloc(n + 64);
		fill(b, n, 23);
		static const size_t cuts[][6] = {
			{ 1000, RUN_BLOCK - 1000, 3 * RUN_BLOCK, 7, 2 * RUN_BLOCK + 5, 0 },
			{ 9 * RUN_BLOCK + 4321, 0, 0, 0, 0, 0 },
			{ RUN_BLOCK, RUN_BLOCK, 1, RUN_BLOCK - 1, 0, 0 },
			{ 5, 6 * RUN_BLOCK, RUN_BLOCK / 2, 0, 0, 0 },
		};
		run_hash ref = { 0 };
		CHECK(run_hash_add(&ref, b, n) == 0 && run_hash_end(&ref) == 0 && ref.nh == 10, "reference: 10 blocks");
		for (int threads = 1; threads <= 3; threads += 2) {
			tpool *tp = NULL;
			CHECK(tpool_start(&tp, threads) == 0, "pool of %d", threads);
			for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
				for (int copy = 0; copy < 2; copy++) {
					run_hash h = { 0 };
					memset(d, 0xA5, n + 64);
					size_t at = 0;
					int rc = 0;
					for (int k = 0; k < 6 && at < n; k++) {
						size_t len = cuts[c][k] ? cuts[c][k] : n - at;
						if (len > n - at)
							len = n - at;
						rc |= run_hash_add_par(&h, tp, copy ? d + at : NULL, b + at, len);
						at += len;
					}
					rc |= run_hash_end(&h);
					CHECK(rc == 0 && at == n && h.nh == ref.nh &&
					      memcmp(h.h, ref.h, ref.nh * sizeof *ref.h) == 0,
					      "cuts %zu, %d threads, copy %d: the digests of run_hash_add", c, threads, copy);
					if (copy) {
						size_t tail = 0;
						while (tail < 64 && d[n + tail] == 0xA5)
							tail++;
						CHECK(memcmp(d, b, n) == 0 && tail == 64, "cuts %zu, %d threads: copied exactly", c,
						      threads);
					}
					size_t bad = 99;
					run_hash_reset_reader(&h);
					CHECK(run_hash_check(&h, b, n, 1, &bad) == 0, "cuts %zu: read back clean", c);
					run_hash_free(&h);
				}
			}
			tpool_stop(tp);
		}
		run_hash_free(&ref);
		free(b);
		free(d);
	} TEST_END();

	TEST_BEGIN("io/missing-input") {
		io_file f;
		CHECK(io_open_input(&f, "/nonexistent/gpusort") == -ENOENT, "ENOENT");
		CHECK(io_open_input(&f, dir) == -EISDIR, "EISDIR for a directory");
	} TEST_END();


	/* ---- registered (fixed) buffers ------------------------------------------ */

	/* a registered arena of a few segments; transfers use sub-ranges of it */
	size_t fixed_sizes[] = { 1, 4095, 4096, 4097, IO_SEG - 1, IO_SEG, IO_SEG + 4096,
				 IO_SEG * IO_QD + 12345 };
	size_t arena_len = 2 * (IO_SEG * IO_QD + 8 * IO_ALIGN); /* the largest size, at an offset, rounded up */
	uint8_t *arena = util_alloc_aligned(arena_len, IO_ALIGN);
	/* an unregistered buffer that takes the largest size at an offset of 3,
	 * rounded up to whole IO_ALIGN blocks (O_DIRECT reads) */
	const size_t plain_len = IO_SEG * IO_QD + 6 * IO_ALIGN;
	uint8_t *plain = util_alloc_aligned(plain_len, IO_ALIGN);
	size_t half_arena = arena_len / 2;

	TEST_BEGIN("io/fixed-register") {
		void *bufs[2] = { arena, arena + half_arena };
		size_t lens[2] = { half_arena, arena_len - half_arena };
		int rc = io_ring_register(&ring, bufs, lens, 2);
		if (ring.have_uring) {
			CHECK(rc == 0, "register 2 buffers: %s", strerror(-rc));
			CHECK(ring.nfx == 2, "2 iovecs registered (%u)", ring.nfx);
		} else {
			CHECK(rc < 0 && ring.nfx == 0, "no io_uring: registration refused (%d)", rc);
		}
	} TEST_END();

	/* every size through registered buffers: at their start, at an aligned
	 * offset inside, and at an odd offset inside (the buffered path) */
	TEST_BEGIN("io/fixed-exact-bytes") {
		size_t offs[] = { 0, IO_ALIGN, 7 };
		for (size_t z = 0; z < sizeof fixed_sizes / sizeof fixed_sizes[0]; z++) {
			size_t n = fixed_sizes[z];
			for (size_t q = 0; q < 3; q++) {
				uint8_t *src = arena + offs[q], *dst = arena + half_arena + offs[q];
				fill(src, n, n * 3 + q);
				uint64_t fb0 = ring.fixed_bytes, b0 = ring.bytes;
				const char *why = roundtrip(&ring, path, src, dst, n, arena_len - half_arena - offs[q]);
				CHECK(!why, "n=%zu off=%zu: %s", n, offs[q], why);
				/* written once, read twice: all of it through the registered buffers */
				CHECK(ring.bytes - b0 == 3 * n, "n=%zu: %" PRIu64 " bytes moved", n, ring.bytes - b0);
				if (ring.nfx)
					CHECK(ring.fixed_bytes - fb0 == 3 * n, "n=%zu off=%zu: %" PRIu64 " of %zu bytes fixed",
					      n, offs[q], ring.fixed_bytes - fb0, 3 * n);
			}
		}
	} TEST_END();

	TEST_BEGIN("io/fixed-exact-bytes-direct") {
		/* the same through O_DIRECT descriptors (where the file system has them) */
		io_set_direct(1);
		for (size_t z = 0; z < sizeof fixed_sizes / sizeof fixed_sizes[0]; z++) {
			size_t n = fixed_sizes[z];
			uint8_t *src = arena, *dst = arena + half_arena;
			fill(src, n, n * 5);
			uint64_t fb0 = ring.fixed_bytes, b0 = ring.bytes;
			const char *why = roundtrip(&ring, path, src, dst, n, arena_len - half_arena);
			CHECK(!why, "n=%zu: %s", n, why);
			/* O_DIRECT reads round up to whole blocks: more than 3n may move */
			if (ring.nfx)
				CHECK(ring.fixed_bytes - fb0 == ring.bytes - b0 && ring.bytes - b0 >= 3 * n,
				      "n=%zu: %" PRIu64 " of %" PRIu64 " bytes fixed", n, ring.fixed_bytes - fb0,
				      ring.bytes - b0);
		}
		io_set_direct(0);
	} TEST_END();

	/* the same sizes with the ring's reads asynchronous (io-wq copies the
	 * segments side by side), through the registered arena, a plain buffer
	 * and O_DIRECT: every byte in place, none moved twice */
	TEST_BEGIN("io/async-reads-exact-bytes") {
		io_ring_async_reads(&ring, 1);
		CHECK(ring.async_reads == ring.can_async, "async_reads %d, can_async %d", ring.async_reads,
		      ring.can_async);
		for (int direct = 0; direct < 2; direct++) {
			io_set_direct(direct);
			for (size_t z = 0; z < sizeof fixed_sizes / sizeof fixed_sizes[0]; z++) {
				size_t n = fixed_sizes[z];
				uint8_t *src = arena + 7, *dst = z % 2 ? plain + 3 : arena + half_arena;
				size_t dcap = z % 2 ? plain_len - 3 : arena_len - half_arena;
				fill(src, n, n * 7 + (size_t)direct);
				uint64_t b0 = ring.bytes;
				const char *why = roundtrip(&ring, path, src, dst, n, dcap);
				CHECK(!why, "n=%zu direct %d: %s", n, direct, why);
				CHECK(direct || ring.bytes - b0 == 3 * n, "n=%zu: %" PRIu64 " bytes moved", n, ring.bytes - b0);
			}
		}
		io_set_direct(0);
		/* a read the kernel refuses with IOSQE_ASYNC (-EINVAL) is sent again
		 * without it; one refused again is the read's error */
		if (ring.can_async) {
			size_t n = 2 * IO_SEG + 12345;
			fill(arena + 7, n, 99);
			io_fault_set("read@1:EINVAL");
			/* into an unregistered buffer: a registered one's fallback (unfixed) would cover it */
			const char *why = roundtrip(&ring, path, arena + 7, plain + 3, n, plain_len - 3);
			CHECK(!why, "read@1:EINVAL: %s", why);
			io_fault_set("read@1+:EINVAL");
			io_file f;
			ssize_t r = 0;
			if (!io_open_input(&f, path)) {
				r = io_read_at(&ring, &f, plain + 3, n, plain_len - 3, 0);
				io_close(&f);
			}
			io_fault_set(NULL);
			CHECK(r == -EINVAL, "read@1+:EINVAL: %zd", r);
		}
		io_ring_async_reads(&ring, 0);
		CHECK(!ring.async_reads, "still async");
	} TEST_END();

	TEST_BEGIN("io/fixed-unregistered-buffer-still-works") {
		/* registered buffers present, transfer from/to others: unfixed, exact */
		size_t n = IO_SEG + 4097;
		uint8_t *src = malloc(n), *dst = plain;
		fill(src, n, 77);
		uint64_t fb0 = ring.fixed_bytes;
		const char *why = roundtrip(&ring, path, src, dst, n, plain_len);
		CHECK(!why, "%s", why);
		CHECK(ring.fixed_bytes == fb0, "nothing went fixed (%" PRIu64 " bytes)", ring.fixed_bytes - fb0);
		/* half inside a registered buffer, half outside: unfixed, exact */
		uint8_t *edge = arena + half_arena - 4096;
		fill(arena, arena_len, 78);
		uint8_t *cp = malloc(2 * 4096);
		memcpy(cp, edge, 2 * 4096);
		why = roundtrip(&ring, path, cp, plain, 2 * 4096, 4 * 4096);
		CHECK(!why, "straddling copy: %s", why);
		free(src);
		free(cp);
	} TEST_END();

	TEST_BEGIN("io/fixed-reregister-and-unregister") {
		if (ring.have_uring) {
			uint8_t *c = util_alloc_aligned(IO_SEG + IO_ALIGN, IO_ALIGN);
			void *b1[1] = { arena };
			size_t l1[1] = { half_arena };
			void *b2[2] = { arena, c };
			size_t l2[2] = { half_arena, IO_SEG + IO_ALIGN };
			void *b3[1] = { c };
			size_t l3[1] = { IO_SEG + IO_ALIGN };
			CHECK(io_ring_register(&ring, b1, l1, 1) == 0 && ring.nfx == 1, "register {A}");
			CHECK(io_ring_register(&ring, b2, l2, 2) == 0 && ring.nfx == 2, "re-register {A, C}");
			size_t n = IO_SEG + 1;
			fill(c, n, 91);
			uint64_t fb0 = ring.fixed_bytes;
			const char *why = roundtrip(&ring, path, c, arena, n, half_arena);
			CHECK(!why && ring.fixed_bytes - fb0 == 3 * n, "C to A, both fixed: %s, %" PRIu64 " fixed",
			      why ? why : "ok", ring.fixed_bytes - fb0);
			CHECK(io_ring_register(&ring, b3, l3, 1) == 0 && ring.nfx == 1, "re-register {C}");
			fb0 = ring.fixed_bytes;
			why = roundtrip(&ring, path, c, arena, n, half_arena);
			CHECK(!why && ring.fixed_bytes - fb0 == n, "C to A, only the write fixed: %s, %" PRIu64,
			      why ? why : "ok", ring.fixed_bytes - fb0);
			io_ring_unregister(&ring);
			CHECK(ring.nfx == 0 && ring.fx_slots == 0, "unregistered");
			fb0 = ring.fixed_bytes;
			why = roundtrip(&ring, path, c, arena, n, half_arena);
			CHECK(!why && ring.fixed_bytes == fb0, "after unregister: %s, nothing fixed", why ? why : "ok");
			io_ring_unregister(&ring); /* twice: harmless */
			CHECK(io_ring_register(&ring, b1, l1, 1) == 0 && ring.nfx == 1, "register again");
			CHECK(io_ring_register(&ring, NULL, NULL, 0) == 0 && ring.nfx == 0, "n = 0 unregisters");
			free(c);
		}
	} TEST_END();

	TEST_BEGIN("io/fixed-whole-table-registration") {
		/* kernels without sparse tables: every change registers the whole set */
		if (ring.have_uring) {
			io_fault_set("fixed-dense");
			void *b2[2] = { arena, arena + half_arena };
			size_t l2[2] = { half_arena, arena_len - half_arena };
			CHECK(io_ring_register(&ring, b2, l2, 1) == 0 && ring.fx_dense && ring.nfx == 1, "{A} whole");
			CHECK(io_ring_register(&ring, b2, l2, 2) == 0 && ring.fx_dense && ring.nfx == 2, "{A, B} whole");
			io_fault_set(NULL);
			size_t n = IO_SEG + 4097;
			fill(arena + 7, n, 4242);
			uint64_t fb0 = ring.fixed_bytes;
			const char *why = roundtrip(&ring, path, arena + 7, arena + half_arena + 7, n, half_arena - 7);
			CHECK(!why && ring.fixed_bytes - fb0 == 3 * n, "exact and fixed: %s, %" PRIu64,
			      why ? why : "ok", ring.fixed_bytes - fb0);
			/* a later registration on the same ring replaces the whole table */
			CHECK(io_ring_register(&ring, b2, l2, 1) == 0 && !ring.fx_dense && ring.nfx == 1, "sparse again");
			io_ring_unregister(&ring);
		}
	} TEST_END();

	TEST_BEGIN("io/fixed-registration-failure-falls-back") {
		void *b1[1] = { arena };
		size_t l1[1] = { half_arena };
		size_t n = IO_SEG * 2 + 3;
		/* the kernel refuses memory that is not mapped: nothing stays registered */
		size_t hole_len = 4 * IO_ALIGN;
		void *hole = mmap(NULL, hole_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(hole != MAP_FAILED && munmap(hole, hole_len) == 0, "unmapped range");
		void *b2[2] = { arena, hole };
		size_t l2[2] = { half_arena, hole_len };
		io_ring_register(&ring, b1, l1, 1);
		int rc = io_ring_register(&ring, b2, l2, 2);
		CHECK(rc < 0 && ring.nfx == 0 && ring.fx_slots == 0, "unmapped buffer: %d, %u registered", rc, ring.nfx);
		/* fault injection: as RLIMIT_MEMLOCK refuses an unprivileged user */
		io_fault_set("fixed-enomem");
		rc = io_ring_register(&ring, b1, l1, 1);
		io_fault_set(NULL);
		CHECK(rc == -ENOMEM && ring.nfx == 0, "fault fixed-enomem: %d", rc);
		io_set_fixed(0);
		rc = io_ring_register(&ring, b1, l1, 1);
		io_set_fixed(1);
		CHECK(rc == -ECANCELED && ring.nfx == 0, "io_set_fixed(0): %d", rc);
		/* bad arguments */
		void *b0[1] = { NULL };
		CHECK(io_ring_register(&ring, b0, l1, 1) == -EINVAL && ring.nfx == 0, "NULL buffer");
		fill(arena, n, 5);
		uint64_t fb0 = ring.fixed_bytes;
		const char *why = roundtrip(&ring, path, arena, arena + half_arena, n, arena_len - half_arena);
		CHECK(!why && ring.fixed_bytes == fb0, "after failures: %s, nothing fixed", why ? why : "ok");
		io_fixed_stats fs;
		io_fixed_stats_get(&fs);
		CHECK(fs.calls > fs.ok && fs.err < 0, "stats: %" PRIu64 " calls, %" PRIu64 " ok, last error %d",
		      fs.calls, fs.ok, fs.err);
	} TEST_END();

	TEST_BEGIN("io/fixed-over-1GiB-split") {
		/* more than the kernel's 1 GiB per iovec: registered as two iovecs;
		 * a transfer across the seam goes unfixed, one on either side fixed */
		size_t big = IO_FIXED_IOV + 8 * IO_SEG;
		uint8_t *b = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (ring.have_uring && b != MAP_FAILED) {
			void *bb[1] = { b };
			size_t bl[1] = { big };
			int rc = io_ring_register(&ring, bb, bl, 1);
			CHECK(rc == 0 && ring.nfx == 2, "1 GiB + 32 MiB as 2 iovecs: %s, %u", strerror(-rc), ring.nfx);
			size_t n = 3 * IO_SEG;
			uint8_t *src = b + IO_FIXED_IOV - IO_SEG - 4096, *dst = b + IO_FIXED_IOV + 4 * IO_SEG;
			fill(src, n, 1234);
			uint64_t fb0 = ring.fixed_bytes;
			const char *why = roundtrip(&ring, path, src, dst, n, 4 * IO_SEG);
			CHECK(!why, "across the seam: %s", why);
			CHECK(ring.fixed_bytes - fb0 < 3 * n && ring.fixed_bytes - fb0 >= 2 * n,
			      "the seam's segments unfixed, the rest fixed: %" PRIu64 " of %zu", ring.fixed_bytes - fb0, 3 * n);
			io_ring_unregister(&ring);
		}
		if (b != MAP_FAILED)
			munmap(b, big);
	} TEST_END();

	TEST_BEGIN("io/fixed-pread-fallback-ring") {
		/* a ring without io_uring (have_uring == 0): registration refused, pread/pwrite exact */
		io_ring fb;
		memset(&fb, 0, sizeof fb);
		void *b1[1] = { arena };
		size_t l1[1] = { half_arena };
		CHECK(io_ring_register(&fb, b1, l1, 1) == -EOPNOTSUPP && fb.nfx == 0, "refused");
		for (size_t z = 0; z < sizeof fixed_sizes / sizeof fixed_sizes[0]; z++) {
			size_t n = fixed_sizes[z];
			fill(arena, n, n + 17);
			const char *why = roundtrip(&fb, path, arena, arena + half_arena, n, arena_len - half_arena);
			CHECK(!why, "n=%zu: %s", n, why);
			CHECK(fb.fixed_bytes == 0, "nothing fixed");
		}
		io_ring_exit(&fb);
	} TEST_END();

	TEST_BEGIN("io/fault-at-N") {
		/* the specs: an unknown one is refused, so that a typo fails loudly */
		static const char *const bad[] = { "read", "read@", "read@0", "read@x", "nope@1", "read@1:EBOGUS",
						   "read@1+:short", "read@1:", "read@2x", "fixed-enomemx" };
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
			CHECK(io_fault_set(bad[i]) == -EINVAL, "'%s' accepted", bad[i]);
		CHECK(io_fault_set("gpu-sync@3+") == 0 && io_fault_set("corrupt-spill") == 0 && io_fault_set(NULL) == 0,
		      "good specs refused");
		/* the Nth call only, or every call from the Nth on */
		io_fault_set("write@2:short");
		int a = io_fault_hit(IO_FAULT_WRITE), b = io_fault_hit(IO_FAULT_READ), c = io_fault_hit(IO_FAULT_WRITE),
		    d = io_fault_hit(IO_FAULT_WRITE);
		CHECK(a == 0 && b == 0 && c == IO_FAULT_SHORT && d == 0, "write@2:short: %d %d %d %d", a, b, c, d);
		io_fault_set("open@2+:ENOSPC");
		a = io_fault_hit(IO_FAULT_OPEN), b = io_fault_hit(IO_FAULT_OPEN), c = io_fault_hit(IO_FAULT_OPEN);
		CHECK(a == 0 && b == -ENOSPC && c == -ENOSPC, "open@2+:ENOSPC: %d %d %d", a, b, c);
		/* short transfers and EINTR are carried on, through io_uring and through pread/pwrite */
		io_ring fb;
		memset(&fb, 0, sizeof fb);
		io_ring *rings[2] = { &ring, &fb };
		static const char *const transient[] = { "read@1:short", "read@2:EINTR", "write@1:short", "write@2:EINTR" };
		size_t n = 2 * IO_SEG + 12345;
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < sizeof transient / sizeof transient[0]; i++) {
				fill(arena, n, i + 99);
				io_fault_set(transient[i]);
				const char *why = roundtrip(rings[k], path, arena, arena + half_arena, n, arena_len - half_arena);
				io_fault_set(NULL);
				CHECK(!why, "%s, %s: %s", transient[i], k ? "pread" : "io_uring", why);
			}
		/* an error is one */
		io_fault_set("write@1+:EIO");
		const char *why = roundtrip(&ring, path, arena, arena + half_arena, n, arena_len - half_arena);
		io_fault_set(NULL);
		CHECK(why != NULL, "write@1+:EIO: no error");
	} TEST_END();

	io_ring_unregister(&ring);
	free(arena);
	free(plain);
	io_ring_exit(&ring);
	unlink(path);
	rmdir(dir);
	return UNIT_EXIT();
}
