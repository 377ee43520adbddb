/*
 * distribute.c - the first pass of an external distribution sort of u64
 * keys (Dehne & Zaboli, GPU Bucket Sort, section 4, with the buckets on
 * disk): splitters from a regular sample of the input, then every record
 * appended to its bucket's file through a 64 KiB buffer a bucket. Each
 * bucket is then sorted on its own (by `gpusort -k u64 --cpu`, from a
 * shell loop: bench/experiments/distribute_ab.sh), in bucket order, to
 * the output: no merge. A measurement of that pass's cost against the
 * 64-run merge it would replace, not a part of gpusort.
 *
 *   distribute IN DIR BUCKETS [table]
 *                  writes DIR/b0000 ...; prints seconds and the largest
 *                  bucket's share. `table`: the bucket looked up by the
 *                  key's top 12 bits first, a search only where they
 *                  span several buckets (else a branchless binary search)
 * Build: cc -O2 -std=gnu11 bench/experiments/micro/distribute.c -o distribute
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUF_RECS 8192 /* 64 KiB a bucket */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: distribute IN DIR BUCKETS [table]\n");
		return 2;
	}
	int B = atoi(argv[3]);
	if (B < 2 || B > 4096 || (B & (B - 1))) {
		fprintf(stderr, "distribute: BUCKETS is a power of two, 2..4096\n");
		return 2;
	}
	double t0 = now();
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 2;
	}
	size_t n = (size_t)st.st_size / 8;
	const uint64_t *in = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (in == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	madvise((void *)in, (size_t)st.st_size, MADV_SEQUENTIAL);
	/* splitters: 64 regular samples a bucket */
	size_t ns = (size_t)B * 64;
	uint64_t *smp = malloc(ns * sizeof *smp), *spl = calloc((size_t)B, sizeof *spl);
	for (size_t i = 0; i < ns; i++)
		smp[i] = in[(2 * i + 1) * n / (2 * ns)];
	qsort(smp, ns, sizeof *smp, cmp64);
	for (int j = 1; j < B; j++)
		spl[j] = smp[(size_t)j * 64];
	/* the buckets: spl[j] is bucket j's first key, a branchless search down the implicit tree */
	uint64_t *buf = malloc((size_t)B * BUF_RECS * sizeof *buf);
	size_t *fill = calloc((size_t)B, sizeof *fill), *count = calloc((size_t)B, sizeof *count);
	int *out = malloc((size_t)B * sizeof *out);
	for (int j = 0; j < B; j++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/b%04d", argv[2], j);
		if ((out[j] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
			perror(path);
			return 2;
		}
	}
	/* with `table`: the buckets of the keys under each of the 4096
	 * values of the top 12 bits (lo[t], hi[t]); a key whose top bits hold
	 * one bucket takes it without a search, others search lo..hi */
	int table = argc > 4 && !strcmp(argv[4], "table");
	uint16_t *lo = malloc(4096 * sizeof *lo), *hi = malloc(4096 * sizeof *hi);
	for (int t = 0, j = 0; t < 4096; t++) {
		uint64_t first = (uint64_t)t << 52, last = first | ((1ull << 52) - 1);
		while (j + 1 < B && spl[j + 1] <= first)
			j++;
		lo[t] = (uint16_t)j;
		int h = j;
		while (h + 1 < B && spl[h + 1] <= last)
			h++;
		hi[t] = (uint16_t)h;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = in[i];
		int j;
		if (table) {
			unsigned t = (unsigned)(k >> 52);
			j = lo[t];
			while (j < hi[t] && k >= spl[j + 1])
				j++;
		} else {
			j = 0;
			for (int step = B / 2; step; step /= 2)
				j += (k >= spl[j + step]) * step;
		}
		uint64_t *b = buf + (size_t)j * BUF_RECS;
		b[fill[j]++] = k;
		if (fill[j] == BUF_RECS) {
			if (write(out[j], b, BUF_RECS * 8) != BUF_RECS * 8) {
				perror("write");
				return 2;
			}
			count[j] += BUF_RECS;
			fill[j] = 0;
		}
	}
	size_t most = 0;
	for (int j = 0; j < B; j++) {
		if (fill[j] && write(out[j], buf + (size_t)j * BUF_RECS, fill[j] * 8) != (ssize_t)(fill[j] * 8)) {
			perror("write");
			return 2;
		}
		count[j] += fill[j];
		most = count[j] > most ? count[j] : most;
		close(out[j]);
	}
	printf("distribute: %zu records into %d buckets in %.3f s; largest bucket %.3f of n/B\n", n, B, now() - t0,
	       (double)most * B / (double)n);
	return 0;
}
