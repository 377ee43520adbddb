/*
 * bench/experiments/iobench.c - what the file system under a sort can do,
 * to choose how gpusort reads and writes (bench/NOTES.md): page-cache reads
 * with 1..N threads, and writes of a new file by write(2) from one thread,
 * pwrite(2) from N threads at disjoint offsets, or N threads copying into a
 * shared mmap(2) of the file.
 *
 *   iobench read  THREADS FILE                  pread FILE in 4 MiB blocks
 *   iobench write pwrite|mmap THREADS GIB FILE  write GIB GiB to a new FILE
 *
 * Prints one line: mode, threads, GiB, seconds, GB/s.
 *
 * And gpusort's own io_uring path (io/), one thread as in its I/O workers,
 * through two buffers of BUF MiB used in turn (as the sink and the chunk
 * pool do), registered with the ring as fixed buffers or not:
 *
 *   iobench ring read  fixed|plain BUF FILE      io_read_next all of FILE
 *   iobench ring write fixed|plain BUF GIB FILE  io_write_next GIB GiB to FILE
 *
 * GPUSORT_DIRECT=1 (read here, passed to io_set_direct) makes these
 * O_DIRECT, as gpusort's --direct-io does. Prints one line: mode, seconds (registration included),
 * GB/s, the registration's own time, and the bytes that went through
 * READ_FIXED/WRITE_FIXED.
 *
 * Build: make bench/experiments/iobench.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../io/io.h"

#define BLK ((size_t)4 << 20)

static int fd, nthr, mode_mmap;
static size_t total;
static uint8_t *map;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *reader(void *arg)
{
	long id = (long)arg;
	uint8_t *b = malloc(BLK);
	uint64_t sum = 0;
	for (size_t off = (size_t)id * BLK; off < total; off += (size_t)nthr * BLK) {
		ssize_t n = pread(fd, b, BLK, (off_t)off);
		if (n <= 0)
			break;
		sum += b[0];
	}
	free(b);
	return (void *)(uintptr_t)sum;
}

static void *writer(void *arg)
{
	long id = (long)arg;
	uint8_t *b = malloc(BLK);
	for (size_t i = 0; i < BLK; i++)
		b[i] = (uint8_t)(i * 131 + (size_t)id);
	/* each thread owns a contiguous slice, as a sort's output pieces would be */
	size_t per = (total / (size_t)nthr + BLK - 1) / BLK * BLK;
	size_t lo = (size_t)id * per, hi = lo + per < total ? lo + per : total;
	for (size_t off = lo; off < hi; off += BLK) {
		size_t n = hi - off < BLK ? hi - off : BLK;
		if (mode_mmap) {
			memcpy(map + off, b, n);
		} else if (pwrite(fd, b, n, (off_t)off) != (ssize_t)n) {
			perror("pwrite");
			exit(1);
		}
	}
	free(b);
	return NULL;
}

/* gpusort's io_ring: returns the exit status. */
static int ring_bench(int argc, char **argv)
{
	int wr = argc == 7 && !strcmp(argv[2], "write");
	if (!(wr || (argc == 6 && !strcmp(argv[2], "read"))) ||
	    (strcmp(argv[3], "fixed") && strcmp(argv[3], "plain"))) {
		fprintf(stderr, "usage: iobench ring read fixed|plain BUF_MIB FILE | "
				"iobench ring write fixed|plain BUF_MIB GIB FILE\n");
		return 2;
	}
	int fixed = !strcmp(argv[3], "fixed");
	size_t buf = (size_t)atol(argv[4]) << 20;
	const char *path = argv[wr ? 6 : 5];
	uint8_t *b[2];
	for (int i = 0; i < 2; i++) {
		if (posix_memalign((void **)&b[i], IO_ALIGN, buf + IO_ALIGN)) {
			perror("posix_memalign");
			return 1;
		}
		for (size_t j = 0; j < buf + IO_ALIGN; j++) /* faulted in before the clock starts */
			b[i][j] = (uint8_t)(j * 131 + (size_t)i);
	}
	io_ring ring;
	io_ring_init(&ring);
	io_output o;
	io_file in, *f;
	int rc;
	if (wr) {
		total = (size_t)(atof(argv[5]) * 1073741824.0);
		unlink(path);
		rc = io_output_open(&o, path);
		f = &o.f;
	} else {
		rc = io_open_input(&in, path);
		total = (size_t)in.size;
		f = &in;
	}
	if (rc) {
		fprintf(stderr, "%s: %s\n", path, strerror(-rc));
		return 1;
	}
	double t0 = now(), reg = 0;
	if (fixed) {
		void *bufs[2] = { b[0], b[1] };
		size_t lens[2] = { buf + IO_ALIGN, buf + IO_ALIGN };
		rc = io_ring_register(&ring, bufs, lens, 2);
		reg = now() - t0;
		if (rc)
			fprintf(stderr, "iobench: registration failed (%s): transfers go unfixed\n", strerror(-rc));
	}
	size_t done = 0;
	for (int i = 0; done < total; i ^= 1) {
		size_t n = total - done < buf ? total - done : buf;
		if (wr) {
			rc = io_write_next(&ring, f, b[i], n);
		} else {
			ssize_t got = io_read_next(&ring, f, b[i], n, buf + IO_ALIGN);
			rc = got < 0 ? (int)got : 0;
			if (got == 0)
				break;
			n = (size_t)got;
		}
		if (rc) {
			fprintf(stderr, "%s: %s\n", path, strerror(-rc));
			return 1;
		}
		done += n;
	}
	double s = now() - t0;
	uint64_t fb = ring.fixed_bytes;
	io_ring_exit(&ring);
	if (wr)
		rc = io_output_commit(&o);
	else
		io_close(&in);
	if (rc) {
		fprintf(stderr, "%s: %s\n", path, strerror(-rc));
		return 1;
	}
	printf("ring %s %s buf %zu MiB %.2f GiB %.3f s %.2f GB/s register %.4f s fixed %.2f GiB direct %d\n",
	       argv[2], argv[3], buf >> 20, (double)done / 1073741824.0, s, (double)done / s / 1e9, reg,
	       (double)fb / 1073741824.0, io_direct_allowed());
	return 0;
}

int main(int argc, char **argv)
{
	const char *direct = getenv("GPUSORT_DIRECT");
	io_set_direct(direct && *direct && strcmp(direct, "0"));
	pthread_t t[256];
	double t0;
	if (argc >= 2 && !strcmp(argv[1], "ring"))
		return ring_bench(argc, argv);
	if (argc == 4 && !strcmp(argv[1], "read")) {
		nthr = atoi(argv[2]);
		fd = open(argv[3], O_RDONLY);
		struct stat st;
		if (fd < 0 || fstat(fd, &st)) {
			perror(argv[3]);
			return 1;
		}
		total = (size_t)st.st_size;
		t0 = now();
		for (long i = 0; i < nthr; i++)
			pthread_create(&t[i], NULL, reader, (void *)i);
		for (int i = 0; i < nthr; i++)
			pthread_join(t[i], NULL);
	} else if (argc == 6 && !strcmp(argv[1], "write")) {
		mode_mmap = !strcmp(argv[2], "mmap");
		nthr = atoi(argv[3]);
		total = (size_t)(atof(argv[4]) * 1073741824.0);
		unlink(argv[5]);
		t0 = now();
		fd = open(argv[5], O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			perror(argv[5]);
			return 1;
		}
		if (mode_mmap) {
			if (ftruncate(fd, (off_t)total)) {
				perror("ftruncate");
				return 1;
			}
			map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (map == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
		}
		for (long i = 0; i < nthr; i++)
			pthread_create(&t[i], NULL, writer, (void *)i);
		for (int i = 0; i < nthr; i++)
			pthread_join(t[i], NULL);
		if (mode_mmap)
			munmap(map, total);
		close(fd);
	} else {
		fprintf(stderr, "usage: iobench read THREADS FILE | iobench write pwrite|mmap THREADS GIB FILE | "
				"iobench ring ...\n");
		return 2;
	}
	double s = now() - t0;
	printf("%s %s threads %d %.2f GiB %.3f s %.2f GB/s\n", argv[1], argc == 6 ? argv[2] : "pread", nthr,
	       (double)total / 1073741824.0, s, (double)total / s / 1e9);
	return 0;
}
