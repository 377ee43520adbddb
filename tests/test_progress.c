/* test_progress.c - --progress's lines (progress.h): the formatter's fields,
 * and the terminal and plain forms as they reach a file. */
#define _GNU_SOURCE
#include "progress.h"
#include "unit.h"

#include <pthread.h>
#include <string.h>

static void fmt(const progress_line *l, char *buf)
{
	progress_format(buf, 256, l);
}

/* The file's whole text (at most cap - 1 bytes). */
static void slurp(FILE *f, char *buf, size_t cap)
{
	fflush(f);
	rewind(f);
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = 0;
}

struct adder {
	progress *p;
	int times;
};

static void *add_many(void *arg)
{
	struct adder *a = arg;
	for (int i = 0; i < a->times; i++)
		progress_add(a->p, 1000);
	return NULL;
}

int main(void)
{
	char b[256];
	FILE *f;

	TEST_BEGIN("progress-format-fields");
	fmt(&(progress_line){ .step = PROGRESS_MERGE, .pass = 2, .passes = 3, .done = 1 << 20, .total = 4 << 20,
			      .elapsed = 0.5 }, b);
	/* 1 MiB in 0.5 s: 2.1 MB/s; 3 MiB left at that rate: 1.5 s, shown as 2 */
	CHECK(!strcmp(b, "gpusort: merge pass 2 of 3: 1.0 MiB of 4.0 MiB (25%), 2.1 MB/s, ETA 0:02"), "got '%s'", b);
	fmt(&(progress_line){ .step = PROGRESS_SORT, .done = 1000000, .total = 0, .elapsed = 2 }, b);
	CHECK(!strcmp(b, "gpusort: sort: 976.6 KiB, 0.5 MB/s"), "unknown total: got '%s'", b);
	fmt(&(progress_line){ .step = PROGRESS_READ, .done = 0, .total = 100, .elapsed = 0 }, b);
	CHECK(!strcmp(b, "gpusort: read: 0 B of 100 B (0%), 0.0 MB/s, ETA --:--"), "no byte yet: got '%s'", b);
	fmt(&(progress_line){ .step = PROGRESS_WRITE, .done = 99, .total = 100, .elapsed = 1 }, b);
	CHECK(strstr(b, "(99%)") != NULL, "rounds down, 100%% only when done: got '%s'", b);
	fmt(&(progress_line){ .step = PROGRESS_SPILL, .done = 200, .total = 100, .elapsed = 1 }, b);
	CHECK(strstr(b, "spill: 100 B of 100 B (100%)") != NULL, "clamped to the total: got '%s'", b);
	/* 2 hours left */
	fmt(&(progress_line){ .step = PROGRESS_SORT, .done = 1000000, .total = 7201000000, .elapsed = 1 }, b);
	CHECK(strstr(b, "ETA 2:00:00") != NULL, "hours: got '%s'", b);
	fmt(&(progress_line){ .step = PROGRESS_DONE, .done = 3 << 20, .elapsed = 1.5 }, b);
	CHECK(!strcmp(b, "gpusort: done: 3.0 MiB in 1.50 s, 2.1 MB/s"), "done: got '%s'", b);
	CHECK(progress_format(b, 10, &(progress_line){ .step = PROGRESS_SORT }) == 9 && strlen(b) == 9,
	      "a short buffer is cut and terminated");
	TEST_END();

	TEST_BEGIN("progress-null-is-off");
	progress_phase(NULL, PROGRESS_SORT, 0, 0, 10);
	progress_add(NULL, 10);
	progress_end(NULL, 1, 10);
	TEST_END();

	/* off a terminal, interval 0: a line per add, each phase's final line
	 * once, then done */
	TEST_BEGIN("progress-plain-lines");
	f = tmpfile();
	CHECK(f != NULL, "tmpfile");
	if (f) {
		progress p;
		char all[4096];
		progress_start(&p, f, 0, 0);
		progress_phase(&p, PROGRESS_SORT, 0, 0, 300);
		progress_add(&p, 100);
		progress_add(&p, 200);
		progress_phase(&p, PROGRESS_MERGE, 1, 1, 300);
		progress_end(&p, 1, 300);
		slurp(f, all, sizeof all);
		CHECK(strstr(all, "gpusort: sort: 100 B of 300 B (33%)") == all, "first line: %s", all);
		char *m = strstr(all, "\ngpusort: merge pass 1 of 1: 0 B of 300 B (0%)");
		CHECK(m && strstr(m, "\ngpusort: done: 300 B in ") && !strchr(all, '\r'),
		      "merge's end, then done, no carriage return: %s", all);
		int nsort = 0;
		for (char *s = all; (s = strstr(s, "sort: 300 B of 300 B")); s++)
			nsort++;
		CHECK(nsort == 1, "the sort's final line once (%d): %s", nsort, all);
		fclose(f);
	}
	TEST_END();

	/* a terminal: \r, the line, erase to its end; a newline only at the end */
	TEST_BEGIN("progress-terminal-line");
	f = tmpfile();
	CHECK(f != NULL, "tmpfile");
	if (f) {
		progress p;
		char all[4096];
		progress_start(&p, f, 1, 0);
		progress_phase(&p, PROGRESS_READ, 0, 0, 10);
		progress_add(&p, 10);
		progress_end(&p, 1, 10);
		slurp(f, all, sizeof all);
		CHECK(!strncmp(all, "\rgpusort: read: 0 B of 10 B (0%)", 32), "starts redrawing: %s", all);
		CHECK(strstr(all, "\033[K\rgpusort: read: 10 B of 10 B (100%)") != NULL, "redrawn in place: %s", all);
		size_t n = strlen(all);
		CHECK(n > 5 && !strcmp(all + n - 4, "\033[K\n") && strchr(all, '\n') == all + n - 1,
		      "one newline, at the end: %s", all);
		fclose(f);
	}
	f = tmpfile();
	if (f) {
		progress p;
		char all[4096];
		progress_start(&p, f, 1, 0);
		progress_phase(&p, PROGRESS_SORT, 0, 0, 10);
		progress_end(&p, 0, 0);
		slurp(f, all, sizeof all);
		size_t n = strlen(all);
		CHECK(n > 4 && !strcmp(all + n - 4, "\r\033[K") && !strchr(all, '\n'), "a failure erases the line: %s",
		      all);
		fclose(f);
	}
	TEST_END();

	/* several threads add at once: every byte counted, lines never torn */
	TEST_BEGIN("progress-threads");
	f = tmpfile();
	if (f) {
		progress p;
		static char all[1 << 20];
		progress_start(&p, f, 0, 0);
		progress_phase(&p, PROGRESS_MERGE, 1, 2, 4 * 500 * 1000);
		pthread_t t[4];
		struct adder a = { &p, 500 };
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, add_many, &a);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		CHECK(atomic_load(&p.done) == 2000000, "done %llu", (unsigned long long)atomic_load(&p.done));
		progress_end(&p, 1, 2000000);
		slurp(f, all, sizeof all);
		int bad = 0;
		for (char *s = all; *s; s = strchr(s, '\n') + 1) {
			if (strncmp(s, "gpusort: merge pass 1 of 2: ", 28) && strncmp(s, "gpusort: done: ", 15))
				bad++;
			if (!strchr(s, '\n'))
				break;
		}
		CHECK(bad == 0, "%d torn or foreign lines", bad);
		CHECK(strstr(all, "merge pass 1 of 2: 1.9 MiB of 1.9 MiB (100%)") != NULL, "a final 100%% line");
		fclose(f);
	}
	TEST_END();
	return UNIT_EXIT();
}
