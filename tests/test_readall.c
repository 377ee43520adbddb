/*
 * test_readall.c - readall_range: byte ranges across input boundaries (empty
 * inputs, inputs opened past their start) read by 1 to 5 threads equal the
 * concatenation; the --verify sum equals one taken directly; an input that
 * shrank after it was opened fails with -ENODATA naming that input.
 */
#define _GNU_SOURCE
#include "readall.h"
#include "util.h"
#include "unit.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* readall_range_each's callback: checks each piece against the data and records what it saw */
struct each_log {
	const uint8_t *dst, *want; /* where the range is read, and what it must hold */
	size_t next[8];            /* per part: the unit its next piece must start at */
	int pieces[8], bad;
	pthread_mutex_t mu;
};

static void each_cb(void *arg, int part, size_t first, size_t count)
{
	struct each_log *g = arg;
	pthread_mutex_lock(&g->mu);
	if (part < 0 || part >= 8 || first != g->next[part] || count == 0 ||
	    memcmp(g->dst + first, g->want + first, count))
		g->bad = 1;
	else
		g->next[part] = first + count, g->pieces[part]++;
	pthread_mutex_unlock(&g->mu);
}

#define NIN 5
static const size_t sizes[NIN] = { 10000, 0, 1, 70001, 333 }; /* bytes, as written */
static const size_t skip[NIN] = { 0, 0, 0, 7, 0 };             /* bytes before pos */

int main(void)
{
	char dir[] = "/tmp/gpusort-readall.XXXXXX";
	io_file in[NIN];
	uint8_t *all = NULL, *got = NULL;
	size_t total = 0;
	unsigned long long seed = 3;
	memset(in, 0, sizeof in); /* not owned: io_close leaves them alone */
	TEST_BEGIN("readall/ranges-and-threads") {
		CHECK(mkdtemp(dir) != NULL, "mkdtemp");
		size_t cap = 0;
		for (int i = 0; i < NIN; i++)
			cap += sizes[i];
		all = malloc(cap + 1);
		got = malloc(cap + 1);
		for (int i = 0; i < NIN; i++) {
			char path[256];
			snprintf(path, sizeof path, "%s/in%d", dir, i);
			FILE *f = fopen(path, "wb");
			for (size_t b = 0; b < sizes[i]; b++) {
				uint8_t c = (uint8_t)unit_rand(&seed);
				fputc(c, f);
				if (b >= skip[i])
					all[total++] = c;
			}
			fclose(f);
			CHECK(io_open_input(&in[i], path) == 0, "open %s", path);
			in[i].pos = skip[i]; /* as stdin opened past its start */
		}
		for (int nt = 1; nt <= 5; nt++) {
			tpool *tp = NULL;
			CHECK(tpool_start(&tp, nt) == 0, "tpool_start(%d)", nt);
			const size_t los[] = { 0, 1, 9999, 10000, 10001, 10002 };
			for (size_t l = 0; l < sizeof los / sizeof los[0]; l++) {
				for (size_t hi = los[l]; hi <= total; hi += hi < los[l] + 40 ? 1 : 997) {
					int bad = 7;
					memset(got, 0xa5, total);
					int rc = readall_range(tp, in, NIN, los[l], hi, got, 1, NULL, &bad);
					CHECK(rc == 0 && !memcmp(got, all + los[l], hi - los[l]),
					      "threads %d [%zu, %zu): rc %d", nt, los[l], hi, rc);
				}
			}
			/* whole records of 3 bytes, with the --verify sum */
			size_t end = total / 3 * 3;
			verify_sum want = { 0 }, sum = { 0 };
			verify_add(&want, all, end / 3, 3);
			int bad;
			CHECK(readall_range(tp, in, NIN, 0, end, got, 3, &sum, &bad) == 0 && !memcmp(got, all, end) &&
			      sum.lo == want.lo && sum.hi == want.hi && sum.n == want.n,
			      "threads %d: records of 3 bytes with their sum", nt);
			int rc = readall_range(tp, in, NIN, 0, total + 1, got, 1, NULL, &bad);
			CHECK(rc == -EINVAL && bad == NIN - 1, "beyond the inputs: rc %d bad %d", rc, bad);
			tpool_stop(tp);
		}
	} TEST_END();

	TEST_BEGIN("readall/each-piece") {
		/* every part's units come in pieces of at most 4 MiB, in order, each
		 * already in dst when the callback sees it: 13 MiB + 5 bytes on 1..3
		 * threads (two to four pieces a part), and the small inputs above */
		char path[256];
		size_t big = ((size_t)13 << 20) + 5;
		uint8_t *data = malloc(big), *dst = malloc(big);
		for (size_t b = 0; b < big; b++)
			data[b] = (uint8_t)unit_rand(&seed);
		snprintf(path, sizeof path, "%s/big", dir);
		FILE *f = fopen(path, "wb");
		CHECK(f && fwrite(data, 1, big, f) == big && fclose(f) == 0, "write %s", path);
		io_file bf;
		memset(&bf, 0, sizeof bf);
		CHECK(io_open_input(&bf, path) == 0, "open %s", path);
		for (int nt = 1; nt <= 3; nt++) {
			tpool *tp = NULL;
			CHECK(tpool_start(&tp, nt) == 0, "tpool_start(%d)", nt);
			for (int which = 0; which < 2; which++) {
				size_t n = which ? big : total;
				struct each_log g = { .dst = dst, .want = which ? data : all, .bad = 0 };
				pthread_mutex_init(&g.mu, NULL);
				for (int t = 0; t < nt; t++) {
					size_t hi;
					util_split(n, t, nt, &g.next[t], &hi);
				}
				int bad = -1;
				int rc = which ? readall_range_each(tp, &bf, 1, 0, big, dst, 1, NULL, &bad, each_cb, &g)
					       : readall_range_each(tp, in, NIN, 0, total, dst, 1, NULL, &bad, each_cb, &g);
				CHECK(rc == 0 && !g.bad, "threads %d, %zu bytes: rc %d, a piece out of order or not read",
				      nt, n, rc);
				for (int t = 0; t < nt; t++) {
					size_t lo, hi;
					util_split(n, t, nt, &lo, &hi);
					CHECK(g.next[t] == hi && (hi == lo || g.pieces[t] >= 1) &&
					      (!which || g.pieces[t] >= 2), "threads %d, part %d: ends at %zu, want %zu, %d pieces",
					      nt, t, g.next[t], hi, g.pieces[t]);
				}
				pthread_mutex_destroy(&g.mu);
			}
			tpool_stop(tp);
		}
		io_close(&bf);
		unlink(path);
		free(data);
		free(dst);
	} TEST_END();

	TEST_BEGIN("readall/shrunk-input") {
		/* input 3 loses its last 100 bytes after it was opened */
		char path[256];
		snprintf(path, sizeof path, "%s/in3", dir);
		CHECK(truncate(path, (off_t)(sizes[3] - 100)) == 0, "truncate");
		tpool *tp = NULL;
		CHECK(tpool_start(&tp, 3) == 0, "tpool_start");
		int bad = -1;
		int rc = readall_range(tp, in, NIN, 0, total, got, 1, NULL, &bad);
		CHECK(rc == -ENODATA && bad == 3, "rc %d (want %d), bad %d (want 3)", rc, -ENODATA, bad);
		/* the ranges before the lost bytes still read */
		rc = readall_range(tp, in, NIN, 0, 10001 + sizes[3] - skip[3] - 100, got, 1, NULL, &bad);
		CHECK(rc == 0 && !memcmp(got, all, 10001 + sizes[3] - skip[3] - 100), "before the end: rc %d", rc);
		tpool_stop(tp);
	} TEST_END();

	for (int i = 0; i < NIN; i++) {
		char path[256];
		io_close(&in[i]);
		snprintf(path, sizeof path, "%s/in%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
	free(all);
	free(got);
	return UNIT_EXIT();
}
