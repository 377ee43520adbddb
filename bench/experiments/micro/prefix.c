/*
 * prefix.c - the text prefixes alone (text_prefix over every line of a
 * file, one thread, as text_sort.c's make_records does), for a key spec:
 * nanoseconds a line, best of R rounds. What a change to text_prefix.c or
 * text_num.c does to the prefix stage, without the read, the sort and the
 * write around it, on a VM too noisy for the whole sort's stage times.
 * Build, after make, with B the build directory (build/cuda-...):
 * cc -O2 -std=gnu11 -Isrc bench/experiments/micro/prefix.c
 * $B/src/text_prefix.o $B/src/text_cmp.o $B/src/text_num.o $B/src/text_spec.o
 * $B/src/text_hash.o $B/src/util.o -lxxhash -lpthread -lm
 *
 *   prefix FILE R [-t SEP] KEY...     e.g. prefix in.csv 5 -t , 3,3n
 */
#include "text_prefix.h"
#include "text_spec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: prefix FILE ROUNDS [-t SEP] KEY...\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	size_t len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(len + 1);
	if (!buf || fread(buf, 1, len, f) != len)
		return 2;
	fclose(f);
	size_t n = 0, cap = 1 << 20;
	uint64_t *st = malloc(cap * sizeof *st);
	st[0] = 0;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n') {
			if (n + 2 >= cap)
				st = realloc(st, (cap *= 2) * sizeof *st);
			st[++n] = i + 1;
		}
	text_spec s;
	char msg[256];
	text_spec_init(&s);
	int a = 3;
	if (!strcmp(argv[a], "-t")) {
		if (text_spec_tab(&s, argv[a + 1], msg, sizeof msg))
			return 2;
		a += 2;
	}
	for (; a < argc; a++)
		if (text_spec_add_key(&s, argv[a], msg, sizeof msg)) {
			fprintf(stderr, "%s\n", msg);
			return 2;
		}
	if (text_spec_finish(&s, msg, sizeof msg))
		return 2;
	uint8_t *rec = malloc(n * 16);
	memset(rec, 0, n * 16);
	double best = 1e9;
	uint64_t sum = 0;
	for (int r = 0; r < atoi(argv[2]); r++) {
		double t0 = now();
		for (size_t i = 0; i < n; i++)
			text_prefix(&s, buf + st[i], (size_t)(st[i + 1] - st[i] - 1), rec + i * 16, NULL);
		double t = now() - t0;
		best = t < best ? t : best;
		for (size_t i = 0; i < n; i += 4099)
			sum += rec[i * 16 + 5];
	}
	printf("%zu lines, %.1f ns a line (best), check %llu\n", n, best * 1e9 / (double)n, (unsigned long long)sum);
	return 0;
}
