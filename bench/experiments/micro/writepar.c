/*
 * writepar.c - can several threads fill one new output file faster than
 * one thread's write(2)? Buffered writes to one file take the inode's lock
 * (ext4, xfs), so threads calling pwrite(2) at disjoint offsets queue on
 * it; a shared writable mapping of the file (sized and allocated first)
 * lets each thread copy its part into the page cache on its own. Modes:
 *   write    one thread, write(2) in BLOCK_KIB blocks (gpusort's writer)
 *   pwrite   THREADS threads, pwrite(2) of BLOCK_KIB blocks, disjoint parts
 *   mmap     THREADS threads, memcpy into a MAP_SHARED mapping
 *   populate as mmap, each thread first MADV_POPULATE_WRITE on its part
 * The source is a buffer as large as the file, faulted in before the clock
 * (as gathered lines are). Every mode fallocates the file's blocks first;
 * the clock covers open to close (munmap included). Prints one line.
 * Build: cc -O2 -std=gnu11 -pthread bench/experiments/micro/writepar.c -o writepar
 *
 *   writepar write|pwrite|mmap|populate THREADS GIB BLOCK_KIB FILE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int mode, fd;
static size_t total, blk, nth;
static uint8_t *src, *dst;

static void *part(void *arg)
{
	size_t i = (size_t)arg, per = (total / nth + 4095) / 4096 * 4096;
	size_t lo = i * per < total ? i * per : total, hi = lo + per < total ? lo + per : total;
	if (mode == 1) {
		for (size_t off = lo; off < hi;) {
			size_t n = hi - off < blk ? hi - off : blk;
			ssize_t k = pwrite(fd, src + off, n, (off_t)off);
			if (k <= 0) {
				perror("pwrite");
				exit(1);
			}
			off += (size_t)k;
		}
	} else {
		if (mode == 3 && hi > lo && madvise(dst + lo, hi - lo, MADV_POPULATE_WRITE)) {
			perror("madvise");
			exit(1);
		}
		for (size_t off = lo; off < hi; off += blk)
			memcpy(dst + off, src + off, hi - off < blk ? hi - off : blk);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: writepar write|pwrite|mmap|populate THREADS GIB BLOCK_KIB FILE\n");
		return 2;
	}
	const char *m = argv[1];
	mode = !strcmp(m, "write") ? 0 : !strcmp(m, "pwrite") ? 1 : !strcmp(m, "mmap") ? 2 : 3;
	nth = (size_t)atol(argv[2]);
	total = (size_t)(atof(argv[3]) * 1073741824.0);
	blk = (size_t)atol(argv[4]) << 10;
	if (!nth || !blk || !(src = malloc(total)))
		return 2;
	for (size_t i = 0; i < total; i += 64)
		src[i] = (uint8_t)(i * 131 + 7);
	unlink(argv[5]);
	double t0 = now();
	fd = open(argv[5], (mode >= 2 ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || fallocate(fd, mode >= 2 ? 0 : FALLOC_FL_KEEP_SIZE, 0, (off_t)total)) {
		perror(argv[5]);
		return 1;
	}
	if (mode == 0) {
		for (size_t off = 0; off < total;) {
			ssize_t k = write(fd, src + off, total - off < blk ? total - off : blk);
			if (k <= 0) {
				perror("write");
				return 1;
			}
			off += (size_t)k;
		}
	} else {
		if (mode >= 2) {
			dst = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (dst == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
		}
		pthread_t t[256];
		for (size_t i = 0; i < nth && i < 256; i++)
			pthread_create(&t[i], NULL, part, (void *)i);
		for (size_t i = 0; i < nth && i < 256; i++)
			pthread_join(t[i], NULL);
		if (mode >= 2)
			munmap(dst, total);
	}
	close(fd);
	double s = now() - t0;
	printf("%-8s %2zu threads %.1f GiB block %zu KiB %.3f s %.2f GB/s\n", m, mode ? nth : 1, (double)total / 1073741824.0,
	       blk >> 10, s, (double)total / s / 1e9);
	return 0;
}
