/* test_io.c - io_uring reader/writer: exact bytes through O_DIRECT and buffered paths. */
#define _GNU_SOURCE
#include "../io/io.h"
#include "run.h"
#include "unit.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/gpusort-test-io.XXXXXX";

static void fill(uint8_t *p, size_t n, unsigned long long seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)unit_rand(&seed);
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

	TEST_BEGIN("io/missing-input") {
		io_file f;
		CHECK(io_open_input(&f, "/nonexistent/gpusort") == -ENOENT, "ENOENT");
		CHECK(io_open_input(&f, dir) == -EISDIR, "EISDIR for a directory");
	} TEST_END();

	io_ring_exit(&ring);
	unlink(path);
	rmdir(dir);
	return UNIT_EXIT();
}
