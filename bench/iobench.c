/*
 * iobench.c - what the file system under a sort can do, to choose how
 * gpusort reads and writes (bench/NOTES.md): page-cache reads with 1..N
 * threads, and writes of a new file by write(2) from one thread, pwrite(2)
 * from N threads at disjoint offsets, or N threads copying into a shared
 * mmap(2) of the file.
 *
 *   iobench read  THREADS FILE                  pread FILE in 4 MiB blocks
 *   iobench write pwrite|mmap THREADS GIB FILE  write GIB GiB to a new FILE
 *
 * Prints one line: mode, threads, GiB, seconds, GB/s.
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

int main(int argc, char **argv)
{
	pthread_t t[256];
	double t0;
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
		fprintf(stderr, "usage: iobench read THREADS FILE | iobench write pwrite|mmap THREADS GIB FILE\n");
		return 2;
	}
	double s = now() - t0;
	printf("%s %s threads %d %.2f GiB %.3f s %.2f GB/s\n", argv[1], argc == 6 ? argv[2] : "pread", nthr,
	       (double)total / 1073741824.0, s, (double)total / s / 1e9);
	return 0;
}
