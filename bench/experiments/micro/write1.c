/*
 * write1.c - one thread writing a new file with write(2), as gpusort's text
 * writer thread does (text_gather.c), to see what bounds that thread: the
 * source bytes hot in cache (one 4 MiB buffer written over and over, as
 * cat's 128 KiB one is) or cold (a buffer as large as the file, faulted in
 * before the clock, as the gathered batches are by the time the writer
 * gets them), and the file's blocks reserved first with fallocate(2) or
 * not. Prints one line: mode, GiB, seconds, GB/s (the close included).
 * Build: cc -O2 -std=gnu11 bench/experiments/micro/write1.c -o write1
 *
 *   write1 hot|cold plain|falloc GIB BLOCK_KIB FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: write1 hot|cold plain|falloc GIB BLOCK_KIB FILE\n");
		return 2;
	}
	int cold = !strcmp(argv[1], "cold"), falloc = !strcmp(argv[2], "falloc");
	size_t total = (size_t)(atof(argv[3]) * 1073741824.0), blk = (size_t)atol(argv[4]) << 10;
	size_t span = cold ? total : (size_t)4 << 20;
	uint8_t *src = malloc(span);
	if (!src || !blk)
		return 2;
	for (size_t i = 0; i < span; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	unlink(argv[5]);
	int fd = open(argv[5], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[5]);
		return 1;
	}
	double t0 = now();
	if (falloc && fallocate(fd, 0, 0, (off_t)total)) {
		perror("fallocate");
		return 1;
	}
	for (size_t off = 0; off < total;) {
		size_t n = total - off < blk ? total - off : blk, at = cold ? off : off % span;
		if (at + n > span)
			at = 0;
		ssize_t k = write(fd, src + at, n);
		if (k <= 0) {
			perror("write");
			return 1;
		}
		off += (size_t)k;
	}
	close(fd);
	double s = now() - t0;
	printf("%s %s %.1f GiB block %zu KiB %.3f s %.2f GB/s\n", argv[1], argv[2], (double)total / 1073741824.0,
	       blk >> 10, s, (double)total / s / 1e9);
	return 0;
}
