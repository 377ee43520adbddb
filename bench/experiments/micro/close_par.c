/*
 * close_par.c - does freeing an unlinked file's cached pages scale over
 * threads when the data is spread over several files? (issue 19: the
 * spill file's close after the output is committed took 4.6-5.4 s for
 * 16 GiB on the H100 machine.) Writes TOTAL bytes into N unlinked files
 * in DIR (buffered, 4 MiB writes), then closes them all, on N threads at
 * once or on one, and prints the close's wall seconds. EXTRA_GIB and
 * SLEEP_S make the close meet what gpusort's does: EXTRA_GIB more written
 * to another file (the output) and SLEEP_S seconds waited (the merge)
 * after the spill, so that writeback is under way on the spilled pages.
 *
 *   close_par DIR TOTAL_GIB N par|seq [EXTRA_GIB [SLEEP_S]]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
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

static void *closer(void *p)
{
	close(*(int *)p);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 5 || argc > 7)
		return fprintf(stderr, "usage: close_par DIR TOTAL_GIB N par|seq [EXTRA_GIB [SLEEP_S]]\n"), 2;
	double extra = argc > 5 ? atof(argv[5]) : 0, nap = argc > 6 ? atof(argv[6]) : 0;
	int n = atoi(argv[3]), par = !strcmp(argv[4], "par");
	size_t per = (size_t)(atof(argv[2]) * (1u << 30)) / (size_t)n, blk = 4u << 20;
	char *buf = malloc(blk);
	int *fd = calloc((size_t)n, sizeof *fd);
	pthread_t *th = calloc((size_t)n, sizeof *th);
	memset(buf, 0x5a, blk);
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/close_par.XXXXXX", argv[1]);
		if ((fd[i] = mkstemp(path)) < 0)
			return perror("mkstemp"), 1;
		unlink(path);
		for (size_t o = 0; o < per; o += blk)
			if (write(fd[i], buf, blk) != (ssize_t)blk)
				return perror("write"), 1;
	}
	if (extra > 0) {
		char path[4096];
		snprintf(path, sizeof path, "%s/close_par.XXXXXX", argv[1]);
		int x = mkstemp(path);
		if (x < 0)
			return perror("mkstemp"), 1;
		unlink(path);
		for (size_t o = 0; o < (size_t)(extra * (1u << 30)); o += blk)
			if (write(x, buf, blk) != (ssize_t)blk)
				return perror("write"), 1;
	}
	if (nap > 0)
		usleep((useconds_t)(nap * 1e6));
	double t0 = now();
	for (int i = 0; i < n; i++)
		if (par)
			pthread_create(&th[i], NULL, closer, &fd[i]);
		else
			close(fd[i]);
	for (int i = 0; par && i < n; i++)
		pthread_join(th[i], NULL);
	printf("%s GiB in %d files, %.1f GiB more, %.1f s later, close %s: %.3f s\n", argv[2], n, extra, nap, argv[4],
	       now() - t0);
	return 0;
}
