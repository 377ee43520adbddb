/*
 * unit.h - the smallest test harness: each CHECK failure prints one
 * "FAIL name: why" line; TEST_END prints "PASS name" when nothing failed.
 * tests/run.sh counts the lines.
 */
#ifndef GPUSORT_UNIT_H
#define GPUSORT_UNIT_H
#include <stdio.h>
#include <stdlib.h>

static int unit_failed, unit_any_failed;

#define TEST_BEGIN(name) do { const char *unit_name = (name); unit_failed = 0;
#define CHECK(cond, ...) do { if (!(cond)) { if (!unit_failed) { printf("FAIL %s: ", unit_name); \
	printf(__VA_ARGS__); printf(" (%s:%d)\n", __FILE__, __LINE__); } unit_failed = 1; unit_any_failed = 1; } } while (0)
#define TEST_END() if (!unit_failed) printf("PASS %s\n", unit_name); } while (0)
#define UNIT_EXIT() (unit_any_failed ? 1 : 0)

/* splitmix64: reproducible test data */
static inline unsigned long long unit_rand(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
#endif
