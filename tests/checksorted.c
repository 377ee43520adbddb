/*
 * checksorted.c - a test-side checker for files too large for refsort,
 * independent of gpusort's code: `checksorted u32|u64 IN OUT` verifies that
 * OUT is in ascending order and that IN and OUT hold the same multiset of
 * values (count, sum, sum of squares and sum of a mixed hash, all mod 2^64).
 * Prints "ok N records" and exits 0, or says what differs and exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct acc {
	uint64_t n, sum, sq, mix;
};

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int scan(const char *path, int w, struct acc *a, int order, uint64_t *bad)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	static unsigned char buf[1 << 20];
	size_t got;
	uint64_t prev = 0;
	int have = 0;
	while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
		if (got % (size_t)w) {
			fprintf(stderr, "%s: size not a multiple of %d\n", path, w);
			return -1;
		}
		for (size_t i = 0; i < got; i += (size_t)w) {
			uint64_t v = 0;
			memcpy(&v, buf + i, (size_t)w);
			if (order && have && v < prev && !*bad)
				*bad = a->n + 1;
			prev = v;
			have = 1;
			a->n++;
			a->sum += v;
			a->sq += v * v;
			a->mix += mix(v);
		}
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "u32") && strcmp(argv[1], "u64"))) {
		fprintf(stderr, "usage: checksorted u32|u64 IN OUT\n");
		return 2;
	}
	int w = argv[1][1] == '3' ? 4 : 8;
	struct acc in = { 0 }, out = { 0 };
	uint64_t bad = 0, unused = 0;
	if (scan(argv[2], w, &in, 0, &unused) || scan(argv[3], w, &out, 1, &bad))
		return 2;
	if (bad) {
		printf("disorder at record %llu\n", (unsigned long long)bad);
		return 1;
	}
	if (memcmp(&in, &out, sizeof in)) {
		printf("multiset differs: %llu records in, %llu out\n", (unsigned long long)in.n,
		       (unsigned long long)out.n);
		return 1;
	}
	printf("ok %llu records\n", (unsigned long long)out.n);
	return 0;
}
